/* nc3io_posix.c: the POSIX file backend of ncio (see nc3io.h).
 *
 * Every access is one pread/pwrite loop straight between the file and the
 * caller's buffer; nothing is cached, so NC_SHARE readers see other
 * writers' data as soon as it is written.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nc3io.h"

typedef struct px_io {
    ncio base;              /* must be first */
    int fd;                 /* open descriptor */
    char *path;             /* for delete on close */
} px_io;

static int
px_read_at(ncio *io, long long off, void *buf, size_t n)
{
    px_io *p = (px_io *)io;
    char *b = buf;
    while (n > 0) {
        ssize_t got = pread(p->fd, b, n, (off_t)off);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno ? errno : NC_EIO;
        }
        if (got == 0) {             /* past end of file: reads as zeros */
            memset(b, 0, n);
            break;
        }
        b += got;
        n -= (size_t)got;
        off += got;
    }
    return NC_NOERR;
}

static int
px_write_at(ncio *io, long long off, const void *buf, size_t n)
{
    px_io *p = (px_io *)io;
    const char *b = buf;
    while (n > 0) {
        ssize_t put = pwrite(p->fd, b, n, (off_t)off);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            return errno ? errno : NC_EIO;
        }
        b += put;
        n -= (size_t)put;
        off += put;
    }
    return NC_NOERR;
}

static int
px_get_size(ncio *io, long long *sizep)
{
    px_io *p = (px_io *)io;
    struct stat sb;
    if (fstat(p->fd, &sb) != 0)
        return errno ? errno : NC_EIO;
    *sizep = (long long)sb.st_size;
    return NC_NOERR;
}

static int
px_set_size(ncio *io, long long size)
{
    px_io *p = (px_io *)io;
    if (ftruncate(p->fd, (off_t)size) != 0)
        return errno ? errno : NC_EIO;
    return NC_NOERR;
}

static int
px_sync(ncio *io)
{
    (void)io;   /* nothing buffered here */
    return NC_NOERR;
}

static int
px_close(ncio *io, int delete_it, NC_memio *memio_out)
{
    px_io *p = (px_io *)io;
    int stat = NC_NOERR;
    (void)memio_out;
    if (close(p->fd) != 0)
        stat = errno ? errno : NC_EIO;
    if (delete_it && p->path != NULL)
        (void)unlink(p->path);
    free(p->path);
    free(p);
    return stat;
}

static int
px_new(const char *path, int fd, int writable, ncio **iop)
{
    px_io *p = calloc(1, sizeof *p);
    struct stat sb;
    if (p == NULL || (p->path = strdup(path)) == NULL) {
        free(p);
        return NC_ENOMEM;
    }
    p->fd = fd;
    p->base.read_at = px_read_at;
    p->base.write_at = px_write_at;
    p->base.get_size = px_get_size;
    p->base.set_size = px_set_size;
    p->base.sync = px_sync;
    p->base.close = px_close;
    p->base.writable = writable;
    p->base.chunk = 4096;
    if (fstat(fd, &sb) == 0 && sb.st_blksize > 4096)
        p->base.chunk = ((size_t)sb.st_blksize + 7) & ~(size_t)7;
    *iop = &p->base;
    return NC_NOERR;
}

int
nc3io_posix_create(const char *path, int cmode, ncio **iop)
{
    int stat, fd;
    int oflags = O_RDWR | O_CREAT | ((cmode & NC_NOCLOBBER) ? O_EXCL : O_TRUNC);
    fd = open(path, oflags, 0666);
    if (fd < 0)
        return errno == EEXIST ? NC_EEXIST : (errno ? errno : NC_EIO);
    if ((stat = px_new(path, fd, 1, iop)))
        (void)close(fd);
    return stat;
}

int
nc3io_posix_open(const char *path, int mode, ncio **iop)
{
    int stat, fd;
    int writable = (mode & NC_WRITE) != 0;
    fd = open(path, writable ? O_RDWR : O_RDONLY);
    if (fd < 0)
        return errno ? errno : NC_EIO;
    if ((stat = px_new(path, fd, writable, iop)))
        (void)close(fd);
    return stat;
}
