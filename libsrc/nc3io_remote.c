/* nc3io_remote.c: the read-only ncio backend of a remote file (see
 * nc3io.h), on libdispatch's remote reader (ncremote.h): HTTP byte ranges
 * through an aligned block cache.
 *
 * Opened for a URL that the format registry gave to the classic layer
 * (#mode=bytes).  The file's first bytes must be a classic header: any
 * other format (netCDF-4/HDF5) is NC_ENOTBUILT, because no layer of this
 * build reads it remotely.  Writing is NC_EPERM.
 */
#include <stdlib.h>
#include <string.h>
#include "nc3io.h"
#include "ncremote.h"
#include "ncdispatch.h"

typedef struct rm_io {
    ncio base; /* must be first */
    NC_remote *r;
} rm_io;

static int
rm_read_at(ncio *io, long long off, void *buf, size_t n)
{
    rm_io *p = (rm_io *)io;
    unsigned long long size = NC_remote_size(p->r), have = 0;
    if (off < 0)
        return NC_EINVAL;
    /* Bytes at or beyond the end of the file read as zero. */
    if ((unsigned long long)off < size)
        have = size - (unsigned long long)off < n ? size - (unsigned long long)off : n;
    if (have < n)
        memset((unsigned char *)buf + have, 0, n - (size_t)have);
    return have ? NC_remote_read(p->r, (unsigned long long)off, (size_t)have, buf) : NC_NOERR;
}

static int
rm_write_at(ncio *io, long long off, const void *buf, size_t n)
{
    (void)io; (void)off; (void)buf; (void)n;
    return NC_EPERM;
}

static int
rm_get_size(ncio *io, long long *sizep)
{
    *sizep = (long long)NC_remote_size(((rm_io *)io)->r);
    return NC_NOERR;
}

static int
rm_set_size(ncio *io, long long size)
{
    (void)io; (void)size;
    return NC_EPERM;
}

static int
rm_sync(ncio *io)
{
    (void)io;
    return NC_NOERR;
}

static int
rm_close(ncio *io, int delete_it, NC_memio *memio_out)
{
    rm_io *p = (rm_io *)io;
    (void)delete_it;
    if (memio_out != NULL)
        memset(memio_out, 0, sizeof(*memio_out));
    NC_remote_close(p->r);
    free(p);
    return NC_NOERR;
}

int
nc3io_remote_open(const char *url, int mode, ncio **iop)
{
    rm_io *p;
    int stat, model = 0;
    if (mode & NC_WRITE)
        return NC_EPERM;
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return NC_ENOMEM;
    if ((stat = NC_remote_open(url, &p->r)))
        goto fail;
    stat = NC_remote_model(p->r, &model);
    if (stat == NC_NOERR && model != NC_FORMATX_NC3)
        stat = NC_ENOTBUILT;
    if (stat)
        goto fail;
    p->base.read_at = rm_read_at;
    p->base.write_at = rm_write_at;
    p->base.get_size = rm_get_size;
    p->base.set_size = rm_set_size;
    p->base.sync = rm_sync;
    p->base.close = rm_close;
    p->base.chunk = 65536;
    *iop = &p->base;
    return NC_NOERR;
fail:
    NC_remote_close(p->r);
    free(p);
    return stat;
}
