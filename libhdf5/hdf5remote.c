/* hdf5remote.c: netCDF-4/HDF5 files read by HTTP(S)/S3 byte ranges
 * (URL#mode=bytes), read-only, on libdispatch's remote reader (ncremote.h).
 *
 * The open reads the metadata with the native reader (h5n.h) through the
 * remote reader's block cache, so a file netCDF-4 wrote opens with the
 * request that fetched its head.  HDF5 is used where the native reader does
 * not go (other superblock versions, data reads, inquiries it leaves to
 * HDF5) through a read-only virtual file driver, registered at run time,
 * whose reads are the same remote reader's: every byte HDF5 asks for comes
 * out of the same block cache, misses fetched as aligned blocks, sequential
 * reads with read-ahead.
 *
 * The remote file is shared, reference counted, by the open netCDF file and
 * the HDF5 file open on the driver: whichever closes last closes it.  All
 * calls happen under the HDF5 lock (nc4h5_lock), which also serialises the
 * remote reader's use (one thread at a time). */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hdf5int.h"
#include "hdf5open.h"
#include "h5n.h"
#include "ncremote.h"

struct nc4h5_rref {
    NC_remote *r;
    int refs;
};

struct nc4h5_rref *
nc4h5_remote_ref(struct nc4h5_rref *rr)
{
    if (rr != NULL)
        rr->refs++;
    return rr;
}

void
nc4h5_remote_release(struct nc4h5_rref *rr)
{
    if (rr == NULL || --rr->refs > 0)
        return;
    NC_remote_close(rr->r);
    free(rr);
}

/* The native reader's reads (h5n_readfn). */
static int
rr_read(void *ctx, uint64_t off, size_t len, void *buf)
{
    struct nc4h5_rref *rr = ctx;
    return NC_remote_read(rr->r, off, len, buf);
}

h5n_file *
nc4h5_remote_guard(struct nc4h5_rref *rr)
{
    h5n_file *nf = NULL;
    if (rr != NULL)
        (void)h5n_open_reader(rr_read, rr, NC_remote_size(rr->r), 1, &nf);
    return nf;
}

/* ---- the virtual file driver ------------------------------------------------------ */

/* What the file access property list carries: the remote file (borrowed;
 * the driver's open takes its own reference). */
typedef struct rfapl {
    struct nc4h5_rref *rr;
} rfapl;

typedef struct rfile {
    H5FD_t pub; /* first: HDF5's part */
    struct nc4h5_rref *rr;
    haddr_t eoa;
} rfile;

#define RMAXADDR (((haddr_t)1 << 62) - 1)

static H5FD_t *
rd_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
    const rfapl *fa;
    rfile *f;
    (void)name;
    if ((flags & (H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC | H5F_ACC_EXCL)) ||
        maxaddr == 0 || maxaddr == HADDR_UNDEF)
        return NULL;
    if ((fa = H5Pget_driver_info(fapl)) == NULL || fa->rr == NULL)
        return NULL;
    if ((f = calloc(1, sizeof(*f))) == NULL)
        return NULL;
    f->rr = nc4h5_remote_ref(fa->rr);
    f->eoa = 0;
    return &f->pub;
}

static herr_t
rd_close(H5FD_t *file)
{
    rfile *f = (rfile *)file;
    nc4h5_remote_release(f->rr);
    free(f);
    return 0;
}

static int
rd_cmp(const H5FD_t *a, const H5FD_t *b)
{
    const NC_remote *x = ((const rfile *)a)->rr->r, *y = ((const rfile *)b)->rr->r;
    return x < y ? -1 : x > y ? 1 : 0;
}

static herr_t
rd_query(const H5FD_t *file, unsigned long *flags)
{
    (void)file;
    /* Small raw reads are gathered by HDF5's sieve buffer; the block cache
     * beneath serves both it and metadata. */
    if (flags != NULL)
        *flags = H5FD_FEAT_DATA_SIEVE;
    return 0;
}

static haddr_t
rd_get_eoa(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const rfile *)file)->eoa;
}

static herr_t
rd_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
    (void)type;
    ((rfile *)file)->eoa = addr;
    return 0;
}

static haddr_t
rd_get_eof(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return (haddr_t)NC_remote_size(((const rfile *)file)->rr->r);
}

static herr_t
rd_get_handle(H5FD_t *file, hid_t fapl, void **handle)
{
    (void)fapl;
    if (handle == NULL)
        return -1;
    *handle = ((rfile *)file)->rr->r;
    return 0;
}

/* Bytes past the end of the file read as zeros, as with HDF5's own drivers. */
static herr_t
rd_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, void *buf)
{
    rfile *f = (rfile *)file;
    unsigned long long eof = NC_remote_size(f->rr->r);
    size_t have = 0;
    (void)type;
    (void)dxpl;
    if (addr == HADDR_UNDEF || addr > RMAXADDR || size > RMAXADDR - addr)
        return -1;
    if (addr < eof)
        have = eof - addr < size ? (size_t)(eof - addr) : size;
    if (have > 0 && NC_remote_read(f->rr->r, addr, have, buf) != NC_NOERR)
        return -1;
    if (have < size)
        memset((unsigned char *)buf + have, 0, size - have);
    return 0;
}

static herr_t
rd_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, const void *buf)
{
    (void)file; (void)type; (void)dxpl; (void)addr; (void)size; (void)buf;
    return -1;
}

static herr_t
rd_truncate(H5FD_t *file, hid_t dxpl, hbool_t closing)
{
    (void)file; (void)dxpl; (void)closing;
    return 0;
}

static const H5FD_class_t rd_class = {
#if H5_VERSION_GE(1, 13, 2)
    .version = H5FD_CLASS_VERSION,
    .value = 0x2b0, /* a number of the range HDF5 leaves to users' drivers */
#endif
    .name = "netcdf-remote",
    .maxaddr = RMAXADDR,
    .fc_degree = H5F_CLOSE_WEAK,
    .fapl_size = sizeof(rfapl),
    .open = rd_open,
    .close = rd_close,
    .cmp = rd_cmp,
    .query = rd_query,
    .get_eoa = rd_get_eoa,
    .set_eoa = rd_set_eoa,
    .get_eof = rd_get_eof,
    .get_handle = rd_get_handle,
    .read = rd_read,
    .write = rd_write,
    .truncate = rd_truncate,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

/* The driver's id, registered on first use (again after HDF5 was closed
 * and reopened, which forgets it). */
static hid_t rd_id = -1;

static hid_t
driver_id(void)
{
    if (rd_id < 0 || H5Iis_valid(rd_id) <= 0)
        rd_id = H5FDregister(&rd_class);
    return rd_id;
}

int
nc4h5_remote_fapl(hid_t fapl, struct nc4h5_rref *rr)
{
    rfapl fa;
    hid_t id = driver_id();
    fa.rr = rr;
    if (id < 0 || rr == NULL || H5Pset_driver(fapl, id, &fa) < 0)
        return NC_EHDFERR;
    return NC_NOERR;
}

/* ---- the open ----------------------------------------------------------------------- */

int
nc4h5_remote_open(NC *nc, const char *path, int mode, struct nc4h5_rref **rrp)
{
    struct nc4h5_rref *rr;
    int stat;

    *rrp = NULL;
    if (mode & NC_WRITE)
        return NC_EPERM;
    if (mode & (NC_INMEMORY | NC_DISKLESS | NC_MMAP))
        return NC_EINVAL;
    if ((rr = calloc(1, sizeof(*rr))) == NULL)
        return NC_ENOMEM;
    rr->refs = 1;
    if ((stat = NC_remote_open(path, &rr->r))) {
        free(rr);
        return stat;
    }
    stat = nc4h5o_open_native_reader(nc, path, mode, rr_read, rr, NC_remote_size(rr->r), rr);
    if (stat == H5N_GIVEUP) {
        *rrp = rr;
        return stat;
    }
    nc4h5_remote_release(rr); /* the open file holds its own reference */
    return stat;
}
