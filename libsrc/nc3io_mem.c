/* nc3io_mem.c: the in-memory backend of ncio (see nc3io.h).
 *
 * One contiguous image [0, size) inside an allocation of cap bytes.
 *   NC_DISKLESS create: starts with initialsz zero bytes; with NC_PERSIST the
 *     image is written to the path at close.
 *   NC_DISKLESS open: the file is read whole; with NC_WRITE|NC_PERSIST it is
 *     written back at close.
 *   NC_INMEMORY open (nc_open_mem, nc_open_memio): the caller's NC_memio.  A
 *     locked buffer is used in place and never reallocated or freed (growing
 *     it fails with NC_EINMEMORY); an unlocked one becomes ours.
 *   NC_INMEMORY create (nc_create_mem): initialsz bytes reserved.
 * At close the image is handed to memio_out if given (ownership passes to
 * the caller unless locked), else freed.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nc3io.h"

typedef struct mem_io {
    ncio base;              /* must be first */
    unsigned char *buf;     /* the image */
    size_t size;            /* bytes in use */
    size_t cap;             /* bytes allocated */
    int locked;             /* caller's buffer: never realloc/free */
    int persist;            /* write to path at close */
    char *path;             /* persist target */
} mem_io;

static int
mem_reserve(mem_io *m, size_t need)
{
    size_t ncap;
    unsigned char *nb;
    if (need <= m->cap)
        return NC_NOERR;
    if (m->locked)
        return NC_EINMEMORY;
    ncap = m->cap ? m->cap : 4096;
    while (ncap < need) {
        if (ncap > ((size_t)-1) / 2) {
            ncap = need;
            break;
        }
        ncap *= 2;
    }
    if ((nb = realloc(m->buf, ncap)) == NULL)
        return NC_ENOMEM;
    memset(nb + m->cap, 0, ncap - m->cap);
    m->buf = nb;
    m->cap = ncap;
    return NC_NOERR;
}

static int
mem_read_at(ncio *io, long long off, void *buf, size_t n)
{
    mem_io *m = (mem_io *)io;
    size_t have = 0;
    if (off < 0)
        return NC_EINVAL;
    if ((unsigned long long)off < m->size) {
        have = m->size - (size_t)off;
        if (have > n)
            have = n;
        memcpy(buf, m->buf + off, have);
    }
    if (have < n)
        memset((char *)buf + have, 0, n - have);
    return NC_NOERR;
}

static int
mem_write_at(ncio *io, long long off, const void *buf, size_t n)
{
    mem_io *m = (mem_io *)io;
    int stat;
    size_t end;
    if (off < 0 || (unsigned long long)off > ((size_t)-1) - n)
        return NC_EINVAL;
    end = (size_t)off + n;
    if ((stat = mem_reserve(m, end)))
        return stat;
    if ((size_t)off > m->size)
        memset(m->buf + m->size, 0, (size_t)off - m->size);
    memcpy(m->buf + off, buf, n);
    if (end > m->size)
        m->size = end;
    return NC_NOERR;
}

static int
mem_get_size(ncio *io, long long *sizep)
{
    *sizep = (long long)((mem_io *)io)->size;
    return NC_NOERR;
}

static int
mem_set_size(ncio *io, long long size)
{
    mem_io *m = (mem_io *)io;
    int stat;
    if (size < 0)
        return NC_EINVAL;
    if ((stat = mem_reserve(m, (size_t)size)))
        return stat;
    if ((size_t)size > m->size)
        memset(m->buf + m->size, 0, (size_t)size - m->size);
    m->size = (size_t)size;
    return NC_NOERR;
}

static int
mem_sync(ncio *io)
{
    (void)io;
    return NC_NOERR;
}

static int
mem_persist(mem_io *m)
{
    int fd = open(m->path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    size_t done = 0;
    if (fd < 0)
        return errno ? errno : NC_EIO;
    while (done < m->size) {
        ssize_t w = write(fd, m->buf + done, m->size - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            (void)close(fd);
            return errno ? errno : NC_EIO;
        }
        done += (size_t)w;
    }
    if (close(fd) != 0)
        return errno ? errno : NC_EIO;
    return NC_NOERR;
}

static int
mem_close(ncio *io, int delete_it, NC_memio *memio_out)
{
    mem_io *m = (mem_io *)io;
    int stat = NC_NOERR;
    if (!delete_it && m->persist && m->path != NULL)
        stat = mem_persist(m);
    if (memio_out != NULL && !delete_it) {
        memio_out->memory = m->buf;
        memio_out->size = m->size;
        memio_out->flags = 0;
    } else if (!m->locked) {
        free(m->buf);
    }
    free(m->path);
    free(m);
    return stat;
}

/* Only a locked buffer has a hard limit; an image of ours grows on demand. */
static int
mem_can_grow(ncio *io, long long size)
{
    const mem_io *m = (const mem_io *)io;
    if (!m->locked)
        return NC_NOERR;
    return (size < 0 || (unsigned long long)size > m->cap) ? NC_EINMEMORY : NC_NOERR;
}

static mem_io *
mem_new(const char *path, int writable)
{
    mem_io *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    if (path != NULL && (m->path = strdup(path)) == NULL) {
        free(m);
        return NULL;
    }
    m->base.read_at = mem_read_at;
    m->base.write_at = mem_write_at;
    m->base.get_size = mem_get_size;
    m->base.set_size = mem_set_size;
    m->base.sync = mem_sync;
    m->base.close = mem_close;
    m->base.can_grow = mem_can_grow;
    m->base.chunk = 4096;
    m->base.writable = writable;
    return m;
}

int
nc3io_mem_create(const char *path, int cmode, size_t initialsz, ncio **iop)
{
    mem_io *m;
    int stat;
    if ((m = mem_new(path, 1)) == NULL)
        return NC_ENOMEM;
    m->persist = (cmode & NC_DISKLESS) && (cmode & NC_PERSIST) && !(cmode & NC_INMEMORY);
    if ((stat = mem_reserve(m, initialsz > 4096 ? initialsz : 4096))) {
        mem_close(&m->base, 1, NULL);
        return stat;
    }
    m->size = initialsz;    /* as upstream: the image is at least initialsz bytes */
    *iop = &m->base;
    return NC_NOERR;
}

int
nc3io_mem_open(const char *path, int mode, void *parameters, ncio **iop)
{
    mem_io *m;
    int stat = NC_NOERR;
    int writable = (mode & NC_WRITE) != 0;
    if ((m = mem_new(path, writable)) == NULL)
        return NC_ENOMEM;
    if (mode & NC_INMEMORY) {
        NC_memio *mi = parameters;
        if (mi == NULL || mi->memory == NULL) {
            stat = NC_EINVAL;
            goto fail;
        }
        m->buf = mi->memory;
        m->size = m->cap = mi->size;
        m->locked = (mi->flags & NC_MEMIO_LOCKED) != 0;
    } else {
        /* NC_DISKLESS: read the whole file into memory. */
        struct stat sb;
        int fd = open(path, O_RDONLY);
        size_t done = 0;
        if (fd < 0) {
            stat = errno ? errno : NC_EIO;
            goto fail;
        }
        if (fstat(fd, &sb) != 0 || sb.st_size < 0) {
            stat = errno ? errno : NC_EIO;
            (void)close(fd);
            goto fail;
        }
        if ((stat = mem_reserve(m, (size_t)sb.st_size > 0 ? (size_t)sb.st_size : 1))) {
            (void)close(fd);
            goto fail;
        }
        while (done < (size_t)sb.st_size) {
            ssize_t r = read(fd, m->buf + done, (size_t)sb.st_size - done);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            done += (size_t)r;
        }
        (void)close(fd);
        m->size = done;
        m->persist = writable && (mode & NC_PERSIST);
    }
    *iop = &m->base;
    return NC_NOERR;
fail:
    m->locked = 1;      /* never free a caller's buffer on failure */
    if (!(mode & NC_INMEMORY))
        free(m->buf);
    free(m->path);
    free(m);
    return stat;
}
