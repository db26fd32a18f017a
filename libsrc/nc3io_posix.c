/* nc3io_posix.c: the POSIX file backend of ncio (see nc3io.h).
 *
 * Reads and writes are pread/pwrite.  Two bounded buffers cut the cost of
 * many small sequential calls and keep kernel copies page-congruent (the
 * buffer address and the file offset agree mod the page size, which makes
 * the kernel's copy markedly faster than into an arbitrary user address):
 *   - a read buffer filled by peek, with read-ahead for sequential access;
 *   - a write-behind buffer that coalesces writes contiguous in the file,
 *     flushed before any non-contiguous write, any read that overlaps it,
 *     get/set_size, sync and close.
 * Under NC_SHARE nothing is kept between calls: writes go straight to the
 * file and every read goes to the file, so other processes see data as
 * soon as it is written and this one sees theirs.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nc3io.h"

#define PX_PAGE 4096u
#define PX_BUF (1u << 20)   /* read piece and write-behind size */

typedef struct px_io {
    ncio base;              /* must be first */
    int fd;                 /* open descriptor */
    int share;              /* NC_SHARE: keep nothing between calls */
    char *path;             /* for delete on close */
    unsigned char *rbuf;    /* rcap bytes, page aligned */
    size_t rcap;            /* size of rbuf: grows up to PX_BUF + PX_PAGE */
    long long fsize;        /* file size as far as this handle knows: read
                             * ahead stops there (a small file gets a small
                             * buffer; mapping 1 MiB per open was most of
                             * the cost of opening it) */
    long long roff;         /* file offset (page aligned) of rbuf[0] */
    size_t rlen;            /* valid bytes in rbuf, 0 if none */
    long long rnext;        /* end of the last peek: sequential detection */
    unsigned char *wbuf;    /* PX_BUF + PX_PAGE bytes, page aligned */
    int wact;               /* write-behind region started at woff */
    long long woff;         /* file offset of the region; bytes at wbuf + woff % PX_PAGE */
    size_t wlen;            /* bytes held */
    int werr;               /* sticky: a write-behind flush failed, data lost */
    unsigned long long serial;  /* unique per open: keys the per-thread buffers */
} px_io;

/* Read buffers of peek_shared, one per thread, each holding a window of at
 * most one handle (the one with its serial; serials are never reused, so a
 * window of a closed handle is never taken for a new one, and px_sync
 * drops the windows of its file by taking a new one).  Freed when the
 * thread ends. */
typedef struct px_tlbuf {
    unsigned long long serial;  /* handle the window belongs to, 0 = none */
    unsigned char *buf;         /* cap bytes, page aligned */
    size_t cap;
    long long roff;             /* as the fields of px_io */
    size_t rlen;
    long long rnext;
} px_tlbuf;

static atomic_ullong px_serials;
static pthread_key_t px_tlkey;
static pthread_once_t px_tlonce = PTHREAD_ONCE_INIT;
static _Thread_local px_tlbuf *px_tl;

static void
px_tl_free(void *v)
{
    px_tlbuf *t = v;
    if (t != NULL)
        free(t->buf);
    free(t);
}

static void
px_tl_init(void)
{
    (void)pthread_key_create(&px_tlkey, px_tl_free);
}

static unsigned char *
wbase(const px_io *p)
{
    return p->wbuf + (size_t)(p->woff % PX_PAGE);
}

/* pread loop of up to n bytes; of the bytes at or beyond end of file, the
 * first `need` - (bytes read) read as zero and the rest of b is left as it
 * was (a read-ahead past the end of a small file must not zero, and so
 * fault in, its whole buffer).  *gotp (may be NULL) receives how many bytes
 * came from the file. */
static int
px_pread(px_io *p, long long off, unsigned char *b, size_t n, size_t need, size_t *gotp)
{
    size_t total = 0;
    while (total < n) {
        ssize_t got = pread(p->fd, b + total, n - total, (off_t)(off + (long long)total));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno ? errno : NC_EIO;
        }
        if (got == 0)               /* past end of file: reads as zeros */
            break;
        total += (size_t)got;
    }
    if (total < need)
        memset(b + total, 0, need - total);
    if (gotp != NULL)
        *gotp = total;
    return NC_NOERR;
}

static int
px_pwrite(px_io *p, long long off, const unsigned char *b, size_t n)
{
    if (off + (long long)n > p->fsize)
        p->fsize = off + (long long)n;
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

/* Write out the write-behind region.  It is dropped even on error, so a
 * failing device cannot wedge close; but writes the caller was told had
 * succeeded are then lost, so the error sticks: every later write, sync,
 * resize and close of this handle reports it, and nothing more (such as a
 * record count claiming the lost data) is written. */
static int
px_flush(px_io *p)
{
    int stat = NC_NOERR;
    if (p->werr)
        return p->werr;
    if (p->wact && p->wlen > 0)
        stat = px_pwrite(p, p->woff, wbase(p), p->wlen);
    p->wact = 0;
    p->wlen = 0;
    p->werr = stat;
    return stat;
}

static int
w_overlaps(const px_io *p, long long off, size_t n)
{
    return p->wact && p->wlen > 0 && off < p->woff + (long long)p->wlen
           && p->woff < off + (long long)n;
}

static void
r_forget(px_io *p, long long off, size_t n)
{
    if (p->rlen > 0 && off < p->roff + (long long)p->rlen && p->roff < off + (long long)n)
        p->rlen = 0;
}

/* Make rbuf hold at least n bytes (n <= PX_BUF + PX_PAGE); its contents
 * are dropped. */
static int
ensure_rbuf(px_io *p, size_t n)
{
    void *b = NULL;
    if (p->rcap >= n)
        return NC_NOERR;
    if (n < 4 * PX_PAGE)
        n = 4 * PX_PAGE;
    if (posix_memalign(&b, PX_PAGE, n) != 0)
        return NC_ENOMEM;
    free(p->rbuf);
    p->rbuf = b;
    p->rcap = n;
    p->rlen = 0;
    return NC_NOERR;
}

static int
alloc_buf(unsigned char **bp)
{
    void *b = NULL;
    if (*bp != NULL)
        return NC_NOERR;
    if (posix_memalign(&b, PX_PAGE, PX_BUF + PX_PAGE) != 0)
        return NC_ENOMEM;
    *bp = b;
    return NC_NOERR;
}

static int
px_read_at(ncio *io, long long off, void *buf, size_t n)
{
    px_io *p = (px_io *)io;
    int stat;
    if (p->share)
        p->rlen = 0;
    if (w_overlaps(p, off, n) && (stat = px_flush(p)))
        return stat;
    if (p->rlen > 0 && off >= p->roff && off + (long long)n <= p->roff + (long long)p->rlen) {
        memcpy(buf, p->rbuf + (off - p->roff), n);
        return NC_NOERR;
    }
    return px_pread(p, off, buf, n, n, NULL);
}

static int
px_peek(ncio *io, long long off, size_t n, const unsigned char **pp)
{
    px_io *p = (px_io *)io;
    long long start, end = off + (long long)n;
    size_t want, got;
    int stat;
    if (n > PX_BUF)
        return NC_EINTERNAL;
    if (p->share)
        p->rlen = 0;
    if (p->rlen > 0 && off >= p->roff && end <= p->roff + (long long)p->rlen) {
        *pp = p->rbuf + (off - p->roff);
        p->rnext = end;
        return NC_NOERR;
    }
    start = off - off % PX_PAGE;
    want = (size_t)(end - start + PX_PAGE - 1) / PX_PAGE * PX_PAGE;
    if (!p->share && off == p->rnext && want < PX_BUF) {
        /* sequential: read ahead, but not past the known end of file */
        size_t ahead = PX_BUF;
        long long left = p->fsize - start;
        if (left < (long long)ahead)
            ahead = left <= (long long)want ? want
                  : (size_t)(left + PX_PAGE - 1) / PX_PAGE * PX_PAGE;
        want = ahead;
    }
    if ((stat = ensure_rbuf(p, want)))
        return stat;
    if (w_overlaps(p, start, want) && (stat = px_flush(p)))
        return stat;
    p->rlen = 0;
    if ((stat = px_pread(p, start, p->rbuf, want, (size_t)(end - start), &got)))
        return stat;
    /* Zeros past the end of the file are not cached: it may grow. */
    p->roff = start;
    p->rlen = got;
    p->rnext = end;
    *pp = p->rbuf + (off - start);
    return NC_NOERR;
}

/* peek on this thread's own buffer (see px_tlbuf): a read-only handle
 * without NC_SHARE, whose px_io nothing changes after open, so threads
 * read it without a lock; read-ahead as px_peek. */
static int
px_peek_shared(ncio *io, long long off, size_t n, const unsigned char **pp)
{
    px_io *p = (px_io *)io;
    px_tlbuf *t = px_tl;
    long long start, end = off + (long long)n;
    size_t want, got;
    int stat;
    if (n > PX_BUF)
        return NC_EINTERNAL;
    if (t == NULL) {
        pthread_once(&px_tlonce, px_tl_init);
        if ((t = calloc(1, sizeof *t)) == NULL)
            return NC_ENOMEM;
        if (pthread_setspecific(px_tlkey, t) != 0) {
            free(t);
            return NC_ENOMEM;
        }
        px_tl = t;
    }
    if (t->serial == p->serial && t->rlen > 0 && off >= t->roff
        && end <= t->roff + (long long)t->rlen) {
        *pp = t->buf + (off - t->roff);
        t->rnext = end;
        return NC_NOERR;
    }
    start = off - off % PX_PAGE;
    want = (size_t)(end - start + PX_PAGE - 1) / PX_PAGE * PX_PAGE;
    if (t->serial == p->serial && off == t->rnext && want < PX_BUF) {
        size_t ahead = PX_BUF;
        long long left = p->fsize - start;
        if (left < (long long)ahead)
            ahead = left <= (long long)want ? want
                  : (size_t)(left + PX_PAGE - 1) / PX_PAGE * PX_PAGE;
        want = ahead;
    }
    if (t->cap < want) {
        void *b = NULL;
        size_t cap = want < 4 * PX_PAGE ? 4 * PX_PAGE : want;
        if (posix_memalign(&b, PX_PAGE, cap) != 0)
            return NC_ENOMEM;
        free(t->buf);
        t->buf = b;
        t->cap = cap;
    }
    t->serial = 0;
    if ((stat = px_pread(p, start, t->buf, want, (size_t)(end - start), &got)))
        return stat;
    t->serial = p->serial;
    t->roff = start;
    t->rlen = got;
    t->rnext = end;
    *pp = t->buf + (off - start);
    return NC_NOERR;
}

static int
px_reserve(ncio *io, long long off, size_t n, unsigned char **pp)
{
    px_io *p = (px_io *)io;
    int stat;
    *pp = NULL;
    if (p->werr)
        return p->werr;
    if (p->share || n > PX_BUF)
        return NC_NOERR;
    if (!(p->wact && off == p->woff + (long long)p->wlen && p->wlen + n <= PX_BUF)) {
        if ((stat = px_flush(p)) || (stat = alloc_buf(&p->wbuf)))
            return stat;
        p->wact = 1;
        p->woff = off;
        p->wlen = 0;
    }
    *pp = wbase(p) + p->wlen;
    return NC_NOERR;
}

static int
px_write_at(ncio *io, long long off, const void *buf, size_t n)
{
    px_io *p = (px_io *)io;
    int stat;
    r_forget(p, off, n);
    if (p->werr)
        return p->werr;
    if (n == 0)
        return NC_NOERR;
    if (p->share)
        return px_pwrite(p, off, buf, n);
    if (p->wact && off == p->woff + (long long)p->wlen && p->wlen + n <= PX_BUF) {
        /* Appends: in place if reserved, else copied. */
        if ((const unsigned char *)buf != wbase(p) + p->wlen)
            memcpy(wbase(p) + p->wlen, buf, n);
        p->wlen += n;
        return NC_NOERR;
    }
    if ((stat = px_flush(p)))
        return stat;
    if (n > PX_BUF / 2)
        return px_pwrite(p, off, buf, n);
    if ((stat = alloc_buf(&p->wbuf)))
        return stat;
    p->wact = 1;
    p->woff = off;
    memcpy(wbase(p), buf, n);
    p->wlen = n;
    return NC_NOERR;
}

static int
px_get_size(ncio *io, long long *sizep)
{
    px_io *p = (px_io *)io;
    struct stat sb;
    long long size;
    if (fstat(p->fd, &sb) != 0)
        return errno ? errno : NC_EIO;
    size = (long long)sb.st_size;
    if (size > p->fsize)
        p->fsize = size;    /* grown by another writer */
    if (p->wact && p->wlen > 0 && p->woff + (long long)p->wlen > size)
        size = p->woff + (long long)p->wlen;
    *sizep = size;
    return NC_NOERR;
}

static int
px_set_size(ncio *io, long long size)
{
    px_io *p = (px_io *)io;
    int stat;
    if ((stat = px_flush(p)))
        return stat;
    p->rlen = 0;
    if (ftruncate(p->fd, (off_t)size) != 0)
        return errno ? errno : NC_EIO;
    p->fsize = size;
    return NC_NOERR;
}

static int
px_sync(ncio *io)
{
    px_io *p = (px_io *)io;
    p->rlen = 0;
    p->rnext = -1;
    /* a new serial drops every thread's peek_shared window of the file */
    p->serial = atomic_fetch_add(&px_serials, 1) + 1;
    return px_flush(p);
}

static int
px_fsync(ncio *io)
{
    px_io *p = (px_io *)io;
    int stat;
    if ((stat = px_flush(p)))
        return stat;
    while (fdatasync(p->fd) != 0)
        if (errno != EINTR)
            return errno ? errno : NC_EIO;
    return NC_NOERR;
}

static int
px_close(ncio *io, int delete_it, NC_memio *memio_out)
{
    px_io *p = (px_io *)io;
    int stat = NC_NOERR;
    (void)memio_out;
    if (!delete_it)
        stat = px_flush(p);
    if (close(p->fd) != 0 && stat == NC_NOERR)
        stat = errno ? errno : NC_EIO;
    if (delete_it && p->path != NULL)
        (void)unlink(p->path);
    free(p->rbuf);
    free(p->wbuf);
    free(p->path);
    free(p);
    return stat;
}

static int
px_new(const char *path, int fd, int writable, int share, ncio **iop)
{
    px_io *p = calloc(1, sizeof *p);
    struct stat sb;
    if (p == NULL || (p->path = strdup(path)) == NULL) {
        free(p);
        return NC_ENOMEM;
    }
    p->fd = fd;
    p->share = share;
    p->rnext = -1;
    p->base.read_at = px_read_at;
    p->base.write_at = px_write_at;
    p->base.get_size = px_get_size;
    p->base.set_size = px_set_size;
    p->base.sync = px_sync;
    p->base.fsync = writable ? px_fsync : NULL;
    p->base.close = px_close;
    p->base.peek = px_peek;
    p->base.peek_shared = (!writable && !share) ? px_peek_shared : NULL;
    p->serial = atomic_fetch_add(&px_serials, 1) + 1;
    p->base.reserve = px_reserve;
    p->base.peekmax = PX_BUF;
    p->base.writable = writable;
    p->base.chunk = 4096;
    if (fstat(fd, &sb) == 0) {
        p->fsize = (long long)sb.st_size;
        if (sb.st_blksize > 4096)
            p->base.chunk = ((size_t)sb.st_blksize + 7) & ~(size_t)7;
    }
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
    if ((stat = px_new(path, fd, 1, (cmode & NC_SHARE) != 0, iop)))
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
    if ((stat = px_new(path, fd, writable, (mode & NC_SHARE) != 0, iop)))
        (void)close(fd);
    return stat;
}
