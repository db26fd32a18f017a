/* hdf5chunk.c: libhdf5's adapter of the chunk engine (libchunk/ncchunk.h)
 * for filtered chunked datasets (see hdf5chunk.h).
 *
 * The engine cuts a request into chunks, runs decode / encode on the pool
 * and keeps the write-back cache, with HDF5's rules (ncc_var: fill_never,
 * keep_sparse, pad_edges, keepall) and HDF5's write-back policy and order
 * (lru), so files are written with the same chunk writes in the same order
 * as HDF5 sees them from the netCDF calls.  This file gives it the table:
 * a chunk's key is its origin (hsize_t per dimension); raw chunks are read
 * (H5Dget_chunk_storage_size, H5Dread_chunk) and written (H5Dwrite_chunk)
 * under the HDF5 lock, taken by the pool tasks themselves when the calling
 * thread holds none (a data call releases its own hold first), else by the
 * calling thread before and after the pool runs (nc_sync writing the cache
 * back under its hold), so no hold is ever taken away from a caller.
 *
 * What a variable's requests need from HDF5 (filters, chunk shape, fill
 * value, intent, the codec chain) is asked once, when the first request
 * after its dataset was created or opened comes, and kept with the engine's
 * variable on its NC4H5_var until the variable goes, its dataset is remade,
 * or the file is flushed (enddef, sync, close).
 *
 * Raw reads of a file on disk opened read-only skip HDF5's lock: a chunk's
 * address, stored size and filter mask are asked of HDF5 once
 * (H5Dget_chunk_info_by_coord, under the lock) and kept in the variable's
 * table of chunks, and its bytes are read with pread on HDF5's own
 * descriptor (the POSIX driver's), outside every lock, so threads reading
 * one handle read and decode in parallel.  The file is checked once per
 * request (fstat: same size and modification time as when the table was
 * begun); a file another writer changed, a writable handle, an image in
 * memory or a remote file read through HDF5 (H5Dread_chunk) as before.
 * The table is filled in one walk of the chunk index by the native reader
 * when the index is a version-1 B-tree (netCDF-4 files), else chunk by
 * chunk as requests need them.  The same table and reads serve the
 * unfiltered chunked datasets hdf5data.c reads straight from the file
 * (nc4h5_plain_begin). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hdf5chunk.h"
#include "h5n.h"
#include "ncfilter.h"
#include "ncchunk.h"

/* A small request (ncc_sel_small: a row of a tall chunk, one value) is
 * sparse: a read keeps the chunks it decodes in the cache (keep_sparse), a
 * write goes to HDF5 when the variable has no cache. */
/* The most chunks a variable's table of chunk addresses covers (16 bytes
 * each); a variable with more asks HDF5 for each chunk it reads. */
#define MAX_TABLE ((size_t)1 << 20)

/* Chunks read by pread / by HDF5 (nc4h5_chunk_read_counts). */
static atomic_size_t n_pread, n_hdf5;

/* One chunk of the table: addr 0 not asked yet, 1 never written, else the
 * chunk's file offset + 2 (stored last, with release order: a reader that
 * sees it sees sizemask too); sizemask: stored size << 32 | filter mask. */
typedef struct centry {
    _Atomic uint64_t addr;
    _Atomic uint64_t sizemask;
} centry;

/* ---- the variable's state ------------------------------------------------------------
 * On its NC4H5_var, for the dataset id it was made for (another id: the
 * dataset was remade, and the state with its cached chunks is discarded
 * unwritten).  Used by one request at a time (the entry points take the
 * variable's lock, var_lock); pool tasks of a request read it. */
typedef struct vcache {
    NC4H5_var *key;
    hid_t did;                       /* key->did when made */
    NC4_var *var;
    int nd;
    size_t size;                     /* element bytes */
    int usable;                      /* the engine takes this variable's requests */
    int enofilter;                   /* a filter neither libfilter nor HDF5 runs:
                                      * reads fail with NC_ENOFILTER */
    hsize_t cd[H5S_MAX_RANK];        /* chunk shape */
    size_t celems, cbytes;
    ncf_chain *chain;
    unsigned char fillval[256];      /* one fill value (larger elements: HDF5's path) */
    int fill_never;                  /* fill time "never": unwritten chunks read as nothing */
    int writable;                    /* the file is open for writing */
    hsize_t fsize;                   /* the file's size: no stored chunk is larger */
    int plain;                       /* unfiltered, of a read-only file: cd, celems,
                                      * cbytes and the pread table serve
                                      * nc4h5_plain_begin */
    int engine;                      /* ev is set up */
    ncc_var ev;                      /* the engine's variable and write-back cache */
    /* Raw reads by pread (read-only file on disk), else through HDF5. */
    _Atomic int pfd;                 /* HDF5's descriptor of the file, -1: HDF5 reads */
    struct stat st;                  /* the file when the table was begun */
    size_t grid[H5S_MAX_RANK];       /* chunks per dimension */
    size_t ntable;                   /* entries of table (0: none) */
    centry *table;
} vcache;

static int vc_engine(vcache *vc);

static void
vc_free(vcache *vc)
{
    vc->key->chunks = NULL;
    if (vc->engine)
        ncc_var_fini(&vc->ev);
    ncf_chain_free(vc->chain);
    free(vc->table);
    free(vc);
}

/* hv's state.  One made for another dataset id (the dataset was remade)
 * is discarded unwritten. */
static vcache *
vc_find(NC4H5_var *hv)
{
    vcache *v = hv->chunks;
    if (v && v->did != hv->did) {
        vc_free(v);
        v = NULL;
    }
    return v;
}

/* Chunks var's cache may hold, for chunks of cbytes: HDF5's rule (a chunk
 * larger than the cache is not cached), bounded by the slots too. */
static size_t
cache_cap(const NC4_var *var, size_t cbytes)
{
    size_t n = cbytes ? var->cache_size / cbytes : 0;
    return n < var->cache_nelems ? n : var->cache_nelems;
}

/* NC_ENOFILTER if HDF5 lacks one of the dataset's filters too. */
static int
hdf5_has_filters(hid_t dcpl, int nf)
{
    for (int i = 0; i < nf; i++) {
        unsigned flags, cdv[NC4H5_MAX_PARAMS];
        size_t ncd = NC4H5_MAX_PARAMS;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cdv, 0, NULL, NULL);
        if (id < 0 || H5Zfilter_avail(id) <= 0)
            return NC_ENOFILTER;
    }
    return NC_NOERR;
}

/* One chunk of the index walk into vc's table (nonzero: the walk is not
 * to be trusted -- a chunk off the grid, outside the file, listed twice). */
static int
table_put(void *ctx, const uint64_t *origin, uint32_t size, uint32_t mask, uint64_t addr)
{
    vcache *vc = ctx;
    size_t i = 0;
    if (origin[vc->nd] != 0 || size == 0 || addr > (uint64_t)vc->st.st_size ||
        size > (uint64_t)vc->st.st_size - addr)
        return 1;
    for (int d = 0; d < vc->nd; d++) {
        uint64_t c = origin[d] / vc->cd[d];
        if (origin[d] % vc->cd[d] != 0 || c >= vc->grid[d])
            return 1;
        i = i * vc->grid[d] + (size_t)c;
    }
    if (atomic_load_explicit(&vc->table[i].addr, memory_order_relaxed) != 0)
        return 1;
    atomic_store_explicit(&vc->table[i].sizemask, (uint64_t)size << 32 | mask, memory_order_relaxed);
    atomic_store_explicit(&vc->table[i].addr, addr + 2, memory_order_relaxed);
    return 0;
}

/* vc's table filled in one walk of dataset did's chunk index by the
 * native reader, when it is a version-1 B-tree (HDF5's query of one chunk,
 * H5Dget_chunk_info_by_coord, walks the whole index in this HDF5: a table
 * filled chunk by chunk cost the square of the chunks); the chunks it
 * does not list were never written.  Another index, or one the walk does
 * not trust: every entry left unasked (HDF5 is asked chunk by chunk).
 * Locked (the state is not shared yet). */
static void
table_walk(vcache *vc, hid_t did)
{
    h5n_file *nf = nc4h5_guard(vc->var->grp->file);
    h5n_obj o;
    haddr_t oaddr;
    int walked = 0, stat;
    if (nf == NULL || nc4h5_obj_addr(did, &oaddr) != NC_NOERR)
        return;
    memset(&o, 0, sizeof(o));
    /* A version-2 header parsed, else (version 1) the walk reads it. */
    if ((stat = h5n_read_obj(nf, (uint64_t)oaddr, &o)) == NC_ENOMEM)
        return;
    stat = h5n_chunk_index_walk(nf, stat == NC_NOERR && o.nbufs > 0 ? &o : NULL, (uint64_t)oaddr, table_put, vc,
                                &walked);
    h5n_obj_free(&o);
    for (size_t i = 0; i < vc->ntable; i++) {
        if (stat || !walked)
            atomic_store_explicit(&vc->table[i].addr, 0, memory_order_relaxed);
        else if (atomic_load_explicit(&vc->table[i].addr, memory_order_relaxed) == 0)
            atomic_store_explicit(&vc->table[i].addr, 1, memory_order_relaxed);
    }
}

/* Raw reads by pread for dataset did of the read-only file fid, when HDF5
 * reads it with its POSIX driver (not an image in memory, not a remote
 * file, no user block): its descriptor, the file's identity, and
 * a table of chunk addresses when the chunk grid is small enough.  Leaves
 * vc->pfd -1 otherwise.  Locked. */
static void
pread_setup(vcache *vc, hid_t did, hid_t fid)
{
    hid_t fapl, fcpl, sid;
    hsize_t ub = 0, dims[H5S_MAX_RANK];
    void *h = NULL;
    int fd = -1;
    size_t n = 1;

    atomic_store(&vc->pfd, -1);
    if (fid < 0 || (fapl = H5Fget_access_plist(fid)) < 0)
        return;
    if (H5Pget_driver(fapl) == H5FD_SEC2 && H5Fget_vfd_handle(fid, fapl, &h) >= 0 && h != NULL)
        fd = *(int *)h;
    H5Pclose(fapl);
    if (fd < 0 || fstat(fd, &vc->st) != 0 || !S_ISREG(vc->st.st_mode))
        return;
    /* A user block puts HDF5's addresses at an offset the chunk queries
     * do not all state the same way: such files (netCDF writes none) read
     * through HDF5. */
    if ((fcpl = H5Fget_create_plist(fid)) < 0)
        return;
    if (H5Pget_userblock(fcpl, &ub) < 0)
        ub = 1;
    H5Pclose(fcpl);
    if (ub != 0)
        return;
    /* The table: one entry per chunk of the extent. */
    if ((sid = H5Dget_space(did)) >= 0) {
        if (H5Sget_simple_extent_dims(sid, dims, NULL) == vc->nd) {
            for (int d = 0; d < vc->nd && n; d++) {
                hsize_t g = (dims[d] + vc->cd[d] - 1) / vc->cd[d];
                vc->grid[d] = (size_t)g;
                n = g == 0 || g > MAX_TABLE || n > MAX_TABLE / g ? 0 : n * (size_t)g;
            }
            if (n > 0 && (vc->table = calloc(n, sizeof(centry))) != NULL)
                vc->ntable = n;
        }
        H5Sclose(sid);
    }
    if (vc->ntable > 0)
        table_walk(vc, did);
    atomic_store(&vc->pfd, fd);
}

/* Whether vc's file is still the one its table describes (another writer
 * may have changed it): checked once per request.  A changed file is read
 * through HDF5 from then on. */
static void
pread_check(vcache *vc)
{
    struct stat st;
    int fd = atomic_load(&vc->pfd);
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || st.st_size != vc->st.st_size || st.st_ino != vc->st.st_ino ||
        st.st_dev != vc->st.st_dev || st.st_mtim.tv_sec != vc->st.st_mtim.tv_sec ||
        st.st_mtim.tv_nsec != vc->st.st_mtim.tv_nsec)
        atomic_store(&vc->pfd, -1);
}

int
nc4h5_dcpl_chain(hid_t dcpl, int nd, hsize_t *cd, nc4h5_chain_spec *cs)
{
    int nf;
    cs->nf = 0;
    if (nd < 1 || nd > H5S_MAX_RANK || H5Pget_layout(dcpl) != H5D_CHUNKED ||
        (nf = H5Pget_nfilters(dcpl)) <= 0 || nf > NC4H5_MAX_FILTERS || H5Pget_chunk(dcpl, nd, cd) != nd)
        return 0;
    for (int i = 0; i < nf; i++) {
        size_t ncd = NC4H5_MAX_PARAMS;
        unsigned flags = 0;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cs->params[i], 0, NULL, NULL);
        if (id < 0 || ncd > NC4H5_MAX_PARAMS)
            return 0;
        cs->specs[i].id = (unsigned)id;
        cs->specs[i].flags = flags & H5Z_FLAG_OPTIONAL ? NCF_FLAG_OPTIONAL : 0;
        cs->specs[i].nparams = ncd;
        cs->specs[i].params = cs->params[i];
    }
    cs->nf = (size_t)nf;
    return 1;
}

/* An unfiltered chunked dataset (dcpl) of a file opened read-only: its
 * chunk shape, and on disk the table and descriptor of reads by pread
 * for hdf5data.c's reads straight from the file (nc4h5_plain_begin).
 * Locked. */
static void
plain_setup(vcache *vc, hid_t did, hid_t dcpl)
{
    unsigned intent = H5F_ACC_RDWR;
    hid_t fid;
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_nfilters(dcpl) != 0 ||
        H5Pget_chunk(dcpl, vc->nd, vc->cd) != vc->nd)
        return;
    vc->celems = 1;
    for (int d = 0; d < vc->nd; d++) {
        if (vc->cd[d] == 0 || (double)vc->celems * (double)vc->cd[d] * (double)vc->size > (double)UINT32_MAX)
            return;
        vc->celems *= (size_t)vc->cd[d];
    }
    vc->cbytes = vc->celems * vc->size;
    if ((fid = H5Iget_file_id(did)) < 0)
        return;
    if (H5Fget_intent(fid, &intent) >= 0 && (intent & H5F_ACC_RDWR) == 0) {
        vc->plain = 1;
        pread_setup(vc, did, fid);
    }
    H5Fclose(fid);
}

/* What the pipeline needs of dataset did (memory type mtid, the file type
 * when the pipeline may take it) into vc; vc->usable stays 0 when its
 * requests are HDF5's.  Locked. */
static int
vc_setup(vcache *vc, hid_t did, hid_t mtid)
{
    hid_t dcpl = -1, ftid = -1;
    nc4h5_chain_spec cs;
    H5D_fill_time_t ft = H5D_FILL_TIME_IFSET;
    const char *env = getenv(NC4H5_PIPELINE_ENV);
    int nf, nd = vc->nd, stat = NC_NOERR;

    if ((env != NULL && strcmp(env, "0") == 0) || nd < 1 || nd > H5S_MAX_RANK || vc->size == 0)
        return NC_NOERR;
    if ((dcpl = H5Dget_create_plist(did)) < 0)
        return NC_NOERR;
    if (!nc4h5_dcpl_chain(dcpl, nd, vc->cd, &cs)) {
        plain_setup(vc, did, dcpl);
        goto done;
    }
    nf = (int)cs.nf;
    /* HDF5's path (taken for some requests) needs the filters too. */
    for (int i = 0; i < nf; i++)
        (void)nc4h5_filter_register(cs.specs[i].id);
    /* The pipeline moves bytes as stored: the memory type must be the
     * file type (no byte swapping or compound repacking here). */
    if ((ftid = H5Dget_type(did)) < 0 || H5Tequal(ftid, mtid) <= 0)
        goto done;
    vc->celems = 1;
    for (int d = 0; d < nd; d++) {
        if (vc->cd[d] == 0)
            goto done;
        if ((double)vc->celems * (double)vc->cd[d] * (double)vc->size > (double)UINT32_MAX)
            goto done;
        vc->celems *= (size_t)vc->cd[d];
    }
    if ((stat = ncf_chain_create(cs.nf, cs.specs, vc->size, &vc->chain))) {
        /* Not runnable here: HDF5's pipeline, unless HDF5 cannot run it
         * either, which a read reports instead of returning raw bytes. */
        if (stat == NC_ENOFILTER && hdf5_has_filters(dcpl, nf) == NC_ENOFILTER)
            vc->enofilter = 1;
        stat = stat == NC_ENOFILTER ? NC_NOERR : stat;
        goto done;
    }
    vc->cbytes = vc->celems * vc->size;
    /* The fill value HDF5 would give an unwritten chunk. */
    if (H5Pget_fill_time(dcpl, &ft) < 0)
        ft = H5D_FILL_TIME_IFSET;
    vc->fill_never = ft == H5D_FILL_TIME_NEVER;
    {
        hid_t fid = H5Iget_file_id(did);
        unsigned intent = H5F_ACC_RDWR;
        if (fid >= 0) {
            (void)H5Fget_intent(fid, &intent);
            (void)H5Fget_filesize(fid, &vc->fsize);
        }
        vc->writable = (intent & H5F_ACC_RDWR) != 0;
        if (!vc->writable)
            pread_setup(vc, did, fid);
        if (fid >= 0)
            H5Fclose(fid);
    }
    if (vc->size > sizeof(vc->fillval))
        goto done;   /* larger elements: HDF5's path */
    if (!vc->fill_never && H5Pget_fill_value(dcpl, mtid, vc->fillval) < 0)
        memset(vc->fillval, 0, vc->size);
    vc->usable = 1;
done:
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (ftid >= 0)
        H5Tclose(ftid);
    return stat;
}

/* var's state for dataset did, made on the first request for it.  Takes
 * the lock to make it. */
static int
vc_get(NC4_var *var, hid_t did, hid_t mtid, int nd, size_t size, vcache **vcp)
{
    NC4H5_var *hv = var->fmt;
    vcache *vc;
    int stat;

    *vcp = NULL;
    if (hv == NULL)
        return NC_NOERR;
    vc = vc_find(hv);
    if (vc != NULL && vc->nd == nd && vc->size == size) {
        *vcp = vc;
        return NC_NOERR;
    }
    if (vc != NULL)
        vc_free(vc);
    if ((vc = calloc(1, sizeof(*vc))) == NULL)
        return NC_ENOMEM;
    atomic_init(&vc->pfd, -1);
    vc->key = hv;
    vc->did = did;
    vc->var = var;
    vc->nd = nd;
    vc->size = size;
    nc4h5_lock();
    stat = vc_setup(vc, did, mtid);
    nc4h5_unlock();
    if (stat == NC_NOERR && vc->usable)
        stat = vc_engine(vc);
    if (stat) {
        /* Not kept: asked again on the next request. */
        ncf_chain_free(vc->chain);
        free(vc);
        return stat;
    }
    hv->chunks = vc;
    *vcp = vc;
    return NC_NOERR;
}

/* ---- raw chunks --------------------------------------------------------------------- */

/* The stored size of the chunk at off into *nb (0: never written),
 * checked against the file: the size comes from the chunk index, and a
 * damaged one may say 4 GiB.  A chunk lies inside the file (which a writer
 * may have grown since the state was made: asked again before giving up).
 * Locked. */
static int
raw_size(vcache *vc, hid_t did, const hsize_t *off, hsize_t *nb)
{
    *nb = 0;
    if (H5Dget_chunk_storage_size(did, off, nb) < 0 || *nb == 0) {
        *nb = 0;
        return NC_NOERR;
    }
    if (*nb > vc->fsize) {
        hid_t fid = H5Iget_file_id(did);
        hsize_t now = 0;
        if (fid >= 0) {
            (void)H5Fget_filesize(fid, &now);
            H5Fclose(fid);
        }
        if (*nb > now)
            return NC_EHDFERR;
        vc->fsize = now;
    }
    if (*nb > SIZE_MAX / 2)
        return NC_EHDFERR;
    return NC_NOERR;
}

/* ---- the engine's table ------------------------------------------------------------ */

/* A chunk's key: its origin, one hsize_t per dimension. */
static int
h5_key(void *fmt, const uint64_t *idx, char **keyp)
{
    const vcache *vc = fmt;
    hsize_t *off = malloc((size_t)vc->nd * sizeof(hsize_t));
    if ((*keyp = (char *)off) == NULL)
        return NC_ENOMEM;
    for (int d = 0; d < vc->nd; d++)
        off[d] = (hsize_t)idx[d] * vc->cd[d];
    return NC_NOERR;
}

static int
h5_locate(void *fmt, const uint64_t *idx, ncc_raw *r)
{
    return h5_key(fmt, idx, &r->key);
}

/* A buffer of nb bytes for r's raw chunk: malloc'ed when r keeps it
 * (owned), else this thread's scratch; NULL with r->status NC_ENOMEM. */
static void *
raw_buffer(ncc_raw *r, int owned, size_t nb)
{
    void *buf = owned ? malloc(nb) : ncc_scratch(NCC_SCRATCH_RAW, nb);
    if (buf == NULL) {
        r->status = NC_ENOMEM;
        return NULL;
    }
    r->data = buf;
    r->owned = owned;
    r->len = nb;
    return buf;
}

/* The stored bytes of chunk r->key (its origin) into a malloc'ed buffer
 * (owned) or this thread's raw scratch, with their filter mask; r->status
 * NC_EEMPTY when never written.  Locked. */
static void
raw_fetch(vcache *vc, ncc_raw *r, int owned)
{
    const hsize_t *off = (const hsize_t *)(const void *)r->key;
    hid_t did = vc->did;
    uint32_t mask = 0;
    hsize_t nb = 0;
    void *buf;
    r->data = NULL;
    r->owned = 0;
    if ((r->status = raw_size(vc, did, off, &nb)) != NC_NOERR)
        return;
    if (nb == 0) {
        r->status = NC_EEMPTY;
        return;
    }
    if ((buf = raw_buffer(r, owned, (size_t)nb)) == NULL)
        return;
    if (H5Dread_chunk(did, H5P_DEFAULT, off, &mask, buf) < 0) {
        r->status = NC_EHDFERR;
        return;
    }
    if (vc->writable) {
        /* HDF5 1.10.8's H5Dread_chunk can report a stale filter mask for a
         * chunk rewritten (H5Dwrite_chunk) with another one -- an optional
         * filter such as szip skipped one time and not the next -- when
         * chunks were visited in some orders.  The chunk index has the
         * right one. */
        unsigned fm = 0;
        haddr_t addr = HADDR_UNDEF;
        hsize_t sz = 0;
        if (H5Dget_chunk_info_by_coord(did, off, &fm, &addr, &sz) < 0) {
            r->status = NC_EHDFERR;
            return;
        }
        mask = fm;
    }
    r->mask = mask;
}

/* The table entry of the chunk at off, or NULL when it has none. */
static centry *
table_entry(const vcache *vc, const hsize_t *off)
{
    size_t i = 0;
    if (vc->table == NULL)
        return NULL;
    for (int d = 0; d < vc->nd; d++) {
        hsize_t c = off[d] / vc->cd[d];
        if (c >= vc->grid[d])
            return NULL;
        i = i * vc->grid[d] + (size_t)c;
    }
    return &vc->table[i];
}

/* Ask HDF5 where the chunk at off lies and keep the answer in e (when
 * not NULL): *ap the table's form of its address (1: never written, else
 * the file offset + 2), *nb, *mask.  Locked. */
static int
chunk_ask(const vcache *vc, const hsize_t *off, centry *e, uint64_t *ap, hsize_t *nb, unsigned *mask)
{
    unsigned fm = 0;
    haddr_t ha = HADDR_UNDEF;
    hsize_t sz = 0;
    uint64_t a;
    if (H5Dget_chunk_info_by_coord(vc->did, off, &fm, &ha, &sz) < 0)
        return NC_EHDFERR;
    if (ha == HADDR_UNDEF || sz == 0) {
        a = 1;
        sz = 0;
    } else {
        /* Inside the file (a damaged index may say anything). */
        if (sz > (hsize_t)UINT32_MAX || ha > (haddr_t)vc->st.st_size || sz > (hsize_t)vc->st.st_size - ha)
            return NC_EHDFERR;
        a = (uint64_t)ha + 2;
    }
    if (e) {
        atomic_store_explicit(&e->sizemask, (uint64_t)sz << 32 | fm, memory_order_relaxed);
        atomic_store_explicit(&e->addr, a, memory_order_release);
    }
    *ap = a;
    *nb = sz;
    *mask = fm;
    return NC_NOERR;
}

/* Where the chunk at off lies: *addr (file offset, UINT64_MAX: never
 * written), *nb, *mask, from the table or asked of HDF5 (taking the lock)
 * and kept there. */
static int
chunk_where(vcache *vc, const hsize_t *off, uint64_t *addr, hsize_t *nb, unsigned *mask)
{
    centry *e = table_entry(vc, off);
    uint64_t a = e ? atomic_load_explicit(&e->addr, memory_order_acquire) : 0;
    if (a == 0) {
        int stat;
        nc4h5_lock();
        stat = chunk_ask(vc, off, e, &a, nb, mask);
        nc4h5_unlock();
        if (stat)
            return stat;
    } else {
        uint64_t sm = atomic_load_explicit(&e->sizemask, memory_order_relaxed);
        *nb = sm >> 32;
        *mask = (unsigned)(sm & 0xffffffffu);
    }
    *addr = a == 1 ? UINT64_MAX : a - 2;
    return NC_NOERR;
}

/* len bytes at off of fd, all of them. */
static int
pread_all(int fd, unsigned char *buf, size_t len, uint64_t off)
{
    while (len > 0) {
        ssize_t n = pread(fd, buf, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return NC_EHDFERR;   /* an error, or the file ends early */
        buf += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return NC_NOERR;
}

/* raw_fetch by pread on descriptor fd, outside the lock (but for a chunk
 * not in the table yet, whose place HDF5 gives under it). */
static void
raw_pread(vcache *vc, int fd, ncc_raw *r, int owned)
{
    const hsize_t *off = (const hsize_t *)(const void *)r->key;
    uint64_t addr;
    hsize_t nb;
    unsigned mask;
    void *buf;
    r->data = NULL;
    r->owned = 0;
    if ((r->status = chunk_where(vc, off, &addr, &nb, &mask)) != NC_NOERR)
        return;
    if (addr == UINT64_MAX) {
        r->status = NC_EEMPTY;
        return;
    }
    if ((buf = raw_buffer(r, owned, (size_t)nb)) == NULL)
        return;
    r->mask = mask;
    r->status = pread_all(fd, buf, (size_t)nb, addr);
    atomic_fetch_add_explicit(&n_pread, 1, memory_order_relaxed);
}

/* One chunk, by pread when vc reads so, else through HDF5 under the lock. */
static void
fetch(vcache *vc, ncc_raw *r, int owned)
{
    int fd = atomic_load_explicit(&vc->pfd, memory_order_relaxed);
    if (fd >= 0) {
        raw_pread(vc, fd, r, owned);
        return;
    }
    nc4h5_lock();
    raw_fetch(vc, r, owned);
    nc4h5_unlock();
    atomic_fetch_add_explicit(&n_hdf5, 1, memory_order_relaxed);
}

/* From a pool task: takes the lock when it needs it. */
static int
h5_fetch_one(void *fmt, ncc_raw *r)
{
    fetch(fmt, r, 0);
    return r->status;
}

/* On the calling thread (which may hold the lock). */
static int
h5_fetch_many(void *fmt, size_t n, ncc_raw *r)
{
    int stat = NC_NOERR;
    for (size_t i = 0; i < n; i++) {
        fetch(fmt, &r[i], 1);
        if (r[i].status && r[i].status != NC_EEMPTY && !stat)
            stat = r[i].status;
    }
    return stat;
}

void
nc4h5_chunk_read_counts(size_t *pread_chunks, size_t *hdf5_chunks)
{
    if (pread_chunks)
        *pread_chunks = atomic_load(&n_pread);
    if (hdf5_chunks)
        *hdf5_chunks = atomic_load(&n_hdf5);
}

/* A codec's failure as HDF5's own pipeline would report it. */
static int
codec_status(int stat)
{
    return stat == NC_EFILTER ? NC_EHDFERR : stat;
}

static int
h5_decode(void *fmt, const ncc_raw *r, void *dst, size_t dstlen, ncf_pool *inner)
{
    const vcache *vc = fmt;
    (void)inner;
    return codec_status(ncf_chain_decode(vc->chain, r->mask, r->data, r->len, dst, dstlen));
}

static int
h5_encode(void *fmt, const void *src, size_t len, void **outp, size_t *outlenp, unsigned *maskp)
{
    const vcache *vc = fmt;
    return codec_status(ncf_chain_encode(vc->chain, src, len, outp, outlenp, maskp));
}

/* Locked. */
static int
put_chunk(const vcache *vc, const ncc_put *p)
{
    int stat = H5Dwrite_chunk(vc->did, H5P_DEFAULT, p->mask, (const hsize_t *)(const void *)p->key, p->outlen,
                              p->out) < 0 ? NC_EHDFERR : NC_NOERR;
    if (p->status)
        *p->status = stat;
    return stat;
}

static int
h5_store_one(void *fmt, const ncc_put *p)
{
    int stat;
    nc4h5_lock();
    stat = put_chunk(fmt, p);
    nc4h5_unlock();
    return stat;
}

static int
h5_store_many(void *fmt, size_t n, ncc_put *p)
{
    int stat = NC_NOERR;
    nc4h5_lock();
    for (size_t i = 0; i < n; i++) {
        int s = put_chunk(fmt, &p[i]);
        if (s && !stat)
            stat = s;
    }
    nc4h5_unlock();
    return stat;
}

/* No fetch_whole: the lru policy fetches parts' chunks from its own jobs. */
static const ncc_ops h5_ops = {.key = h5_key, .locate = h5_locate, .fetch_many = h5_fetch_many,
                               .fetch_one = h5_fetch_one, .decode = h5_decode, .encode = h5_encode,
                               .store_many = h5_store_many, .store_one = h5_store_one};

/* The engine's variable over vc (after vc_setup made it usable). */
static int
vc_engine(vcache *vc)
{
    ncc_grid g;
    size_t chunk[H5S_MAX_RANK];
    int stat;
    for (int d = 0; d < vc->nd; d++)
        chunk[d] = (size_t)vc->cd[d];
    if ((stat = ncc_grid_init(&g, vc->nd, chunk, vc->size, (size_t)UINT32_MAX)) ||
        (stat = ncc_var_init(&vc->ev, &g, 0, vc->fillval, 1, 0, &h5_ops, vc)))
        return stat;
    vc->ev.fill_never = vc->fill_never;
    vc->ev.keep_sparse = NCC_SMALL_READ;
    vc->ev.pad_edges = 1;
    vc->ev.lru = 1;
    vc->engine = 1;
    return NC_NOERR;
}

/* Calls on one variable from threads sharing a handle take turns: a lock
 * per variable, from a small striped table.  A caller that holds the HDF5
 * lock takes none (it could wait on a thread that waits for the HDF5 lock;
 * the HDF5 lock orders it against other holders). */
#define NSTRIPES_BITS 6
#define NSTRIPES (1 << NSTRIPES_BITS)
static pthread_mutex_t stripes[NSTRIPES];
static pthread_once_t stripes_once = PTHREAD_ONCE_INIT;

static void
stripes_init(void)
{
    for (int i = 0; i < NSTRIPES; i++)
        pthread_mutex_init(&stripes[i], NULL);
}

static pthread_mutex_t *
var_lock(const NC4_var *var)
{
    pthread_mutex_t *m;
    if (nc4h5_lock_held())
        return NULL;
    pthread_once(&stripes_once, stripes_init);
    /* Mixed bits of the address: variables allocated a multiple of some
     * power of two apart must not share a stripe. */
    m = &stripes[(((uint64_t)(uintptr_t)var >> 4) * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - NSTRIPES_BITS)];
    pthread_mutex_lock(m);
    return m;
}

static void
var_unlock(pthread_mutex_t *m)
{
    if (m != NULL)
        pthread_mutex_unlock(m);
}

/* ---- write-back --------------------------------------------------------------------- */

/* Pool tasks do their own raw I/O under the lock unless the calling
 * thread holds it (they would wait for it). */
static void
vc_io_mode(vcache *vc)
{
    int self = !nc4h5_lock_held();
    vc->ev.fetch_in_task = self;
    vc->ev.store_in_task = self;
}

/* Data the engine dropped unwritten (a failed eviction): every later sync
 * and close report it. */
static void
vc_lost(vcache *vc)
{
    if (vc->ev.lost)
        vc->key->write_lost = 1;
    vc->ev.lost = 0;
}

/* Write back the dirty chunks of vc (in batches on the pool); drop: empty
 * the cache too (dirty chunks dropped unwritten are remembered). */
static int
vc_writeback(vcache *vc, int drop)
{
    int stat = NC_NOERR;
    if (!vc->engine)
        return NC_NOERR;
    if (ncc_has_dirty(&vc->ev)) {
        nc4h5_lock();
        stat = nc4h5_var_open_dataset(vc->var);
        nc4h5_unlock();
        if (stat == NC_NOERR) {
            vc_io_mode(vc);
            stat = ncc_flush(&vc->ev, SIZE_MAX);
        }
    }
    if (drop) {
        if (stat)
            vc->key->write_lost = 1;
        ncc_cache_clear(&vc->ev);
    }
    return stat;
}

/* The cache bound of var's chunk-cache settings; a changed one empties
 * the cache first. */
static int
vc_bound(vcache *vc)
{
    size_t cap = cache_cap(vc->var, vc->cbytes);
    int stat = NC_NOERR;
    if (vc->ev.cache.max != cap) {
        stat = vc_writeback(vc, 1);
        vc->ev.cache.max = cap;
    }
    return stat;
}

/* The request start/count/stride on vc as the engine's selection; 0 when
 * it is HDF5's (a count or stride of 0, past the extent).  *sparse: it is
 * small (ncc_sel_small). */
static int
sel_set(ncc_sel *s, const vcache *vc, const hsize_t *start, const hsize_t *count, const hsize_t *stride,
        const hsize_t *ext, int *sparse)
{
    size_t st[H5S_MAX_RANK], ct[H5S_MAX_RANK], len[H5S_MAX_RANK];
    ptrdiff_t sd[H5S_MAX_RANK];
    for (int d = 0; d < vc->nd; d++) {
        if (count[d] == 0 || stride[d] == 0 || start[d] + (count[d] - 1) * stride[d] >= ext[d] ||
            stride[d] > PTRDIFF_MAX)
            return 0;
        st[d] = (size_t)start[d];
        ct[d] = (size_t)count[d];
        sd[d] = (ptrdiff_t)stride[d];
        len[d] = (size_t)ext[d];
    }
    if (ncc_sel_init(s, &vc->ev.g, st, ct, sd, len, NULL) != NC_NOERR)
        return 0;
    *sparse = ncc_sel_small(&vc->ev.g, s, NCC_SMALL_READ);
    return 1;
}

static int
chunk_read(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
           const hsize_t *stride, const hsize_t *ext, size_t size, void *out, int *done)
{
    ncc_sel s;
    vcache *vc;
    int stat, sparse = 0;
    *done = 0;
    if ((stat = vc_get(var, did, mtid, nd, size, &vc)) || vc == NULL || (!vc->usable && !vc->enofilter))
        return stat;
    if (vc->enofilter) {
        /* No engine: only the request's own checks. */
        for (int d = 0; d < nd; d++)
            if (count[d] == 0 || stride[d] == 0 || start[d] + (count[d] - 1) * stride[d] >= ext[d])
                return NC_NOERR;
        *done = 1;
        return NC_ENOFILTER;
    }
    if (!sel_set(&s, vc, start, count, stride, ext, &sparse))
        return NC_NOERR;
    *done = 1;
    if (sparse && (stat = vc_bound(vc)))
        return stat;
    pread_check(vc);
    vc_io_mode(vc);
    return ncc_read(&vc->ev, &s, out);
}

static int
chunk_write(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
            const hsize_t *stride, const hsize_t *ext, size_t size, const void *in, int *done)
{
    ncc_sel s;
    vcache *vc;
    int stat, sparse = 0;
    *done = 0;
    if ((stat = vc_get(var, did, mtid, nd, size, &vc)) || vc == NULL || !vc->usable)
        return stat;
    if (!sel_set(&s, vc, start, count, stride, ext, &sparse))
        return NC_NOERR;
    /* Sparse writes are fine when the write-back cache can hold a chunk:
     * it merges them without re-encoding. */
    if (sparse && cache_cap(var, vc->cbytes) == 0)
        return NC_NOERR;
    *done = 1;
    if ((stat = vc_bound(vc)))
        return stat;
    vc_io_mode(vc);
    stat = ncc_write(&vc->ev, &s, in, 1);
    vc_lost(vc);
    return stat;
}

/* ---- unfiltered chunks of read-only files (hdf5data.c's plain reads) ----------------- */

/* ncc_plain's where from vc's table (plain_fill asked HDF5 for every
 * chunk of the request first): the chunk's file offset. */
static int
plain_where(void *src, const uint64_t *idx, uint64_t *offp, size_t *nelemsp)
{
    const vcache *vc = src;
    size_t i = 0;
    uint64_t a;
    for (int d = 0; d < vc->nd; d++) {
        if (idx[d] >= vc->grid[d])
            return NC_EHDFERR;
        i = i * vc->grid[d] + (size_t)idx[d];
    }
    a = atomic_load_explicit(&vc->table[i].addr, memory_order_acquire);
    if (a == 1)
        return NC_EEMPTY;
    /* Stored at the full size of a chunk (anything else is HDF5's to judge). */
    if (a == 0 || atomic_load_explicit(&vc->table[i].sizemask, memory_order_relaxed) >> 32 != vc->cbytes)
        return NC_EHDFERR;
    *offp = a - 2;
    *nelemsp = vc->celems;
    return NC_NOERR;
}

/* ncc_plain's read by pread on HDF5's descriptor, outside every lock. */
static int
plain_pread(void *src, uint64_t off, void *buf, size_t len)
{
    const vcache *vc = src;
    atomic_fetch_add_explicit(&n_pread, 1, memory_order_relaxed);
    return pread_all(atomic_load_explicit(&vc->pfd, memory_order_relaxed), buf, len, off);
}

/* The table's entries of every chunk holding an element of s (grid g)
 * that are not asked yet, asked of HDF5 under one hold of the lock. */
static int
plain_fill(vcache *vc, const ncc_grid *g, const ncc_sel *s)
{
    uint64_t idx[H5S_MAX_RANK];
    size_t k0[H5S_MAX_RANK], nk[H5S_MAX_RANK], l0[H5S_MAX_RANK];
    int stat = NC_NOERR, locked = 0;
    for (int d = 0; d < vc->nd; d++)
        idx[d] = s->clo[d];
    do {
        hsize_t off[H5S_MAX_RANK], nb;
        uint64_t a;
        unsigned mask;
        centry *e;
        if (!ncc_sel_part(g, s, idx, k0, nk, l0))
            continue;
        for (int d = 0; d < vc->nd; d++)
            off[d] = (hsize_t)idx[d] * vc->cd[d];
        if ((e = table_entry(vc, off)) == NULL) {
            stat = NC_EHDFERR;
            break;
        }
        if (atomic_load_explicit(&e->addr, memory_order_acquire) != 0)
            continue;
        if (!locked) {
            nc4h5_lock();
            locked = 1;
        }
        if ((stat = chunk_ask(vc, off, e, &a, &nb, &mask)))
            break;
    } while (ncc_sel_next(s, idx));
    if (locked)
        nc4h5_unlock();
    return stat;
}

/* HDF5's path: whether chunk idx is stored, asked of HDF5
 * (H5Dget_chunk_storage_size would fail for a chunk never written in this
 * HDF5).  The request holds the lock. */
static int
h5plain_where(void *src, const uint64_t *idx, uint64_t *offp, size_t *nelemsp)
{
    const nc4h5_plain_chunks *pc = src;
    hsize_t off[H5S_MAX_RANK], nb = 0;
    haddr_t addr = HADDR_UNDEF;
    unsigned mask = 0;
    uint64_t lin = 0;
    for (int d = 0; d < pc->nd; d++) {
        off[d] = (hsize_t)idx[d] * pc->cd[d];
        lin = lin * pc->nchunks[d] + idx[d];
    }
    if (H5Dget_chunk_info_by_coord(pc->did, off, &mask, &addr, &nb) < 0)
        return NC_EHDFERR;
    if (addr == HADDR_UNDEF || nb == 0)
        return NC_EEMPTY; /* never written */
    if (nb != (hsize_t)pc->cbytes)
        return NC_EHDFERR;
    *offp = lin;
    *nelemsp = pc->celems;
    return NC_NOERR;
}

/* HDF5's path: chunk lin (h5plain_where's position) read raw.  The
 * request holds the lock. */
static int
h5plain_read(void *src, uint64_t lin, void *buf, size_t len)
{
    const nc4h5_plain_chunks *pc = src;
    hsize_t off[H5S_MAX_RANK];
    uint32_t mask = 0;
    (void)len;
    for (int d = pc->nd - 1; d >= 0; d--) {
        off[d] = (hsize_t)(lin % pc->nchunks[d]) * pc->cd[d];
        lin /= pc->nchunks[d];
    }
    atomic_fetch_add_explicit(&n_hdf5, 1, memory_order_relaxed);
    return H5Dread_chunk(pc->did, H5P_DEFAULT, off, &mask, buf) < 0 ? NC_EHDFERR : NC_NOERR;
}

int
nc4h5_plain_begin(NC4_var *var, hid_t did, hid_t mtid, size_t size, const ncc_grid *g, const ncc_sel *s,
                  nc4h5_plain_chunks *pc, ncc_plain *p)
{
    vcache *vc = NULL;
    int nd = g->rank;
    memset(pc, 0, sizeof(*pc));
    if (nd < 1 || nd > H5S_MAX_RANK || size == 0)
        return NC_EINVAL;
    pc->did = did;
    pc->nd = nd;
    pc->celems = g->chunkelems;
    pc->cbytes = g->chunkelems * size;
    for (int d = 0; d < nd; d++) {
        pc->cd[d] = (hsize_t)g->chunk[d];
        pc->nchunks[d] = (s->len[d] + g->chunk[d] - 1) / g->chunk[d];
    }
    if (!nc4h5_lock_held()) {
        int same;
        pc->m = var_lock(var);
        if (vc_get(var, did, mtid, nd, size, &vc) == NC_NOERR && vc != NULL && vc->plain && vc->ntable > 0) {
            same = vc->nd == nd && vc->cbytes == pc->cbytes;
            for (int d = 0; d < nd && same; d++)
                same = vc->cd[d] == pc->cd[d];
            if (same)
                pread_check(vc);
            if (same && atomic_load(&vc->pfd) >= 0) {
                int stat = plain_fill(vc, g, s);
                if (stat) {
                    nc4h5_plain_end(pc);
                    return stat;
                }
                p->where = plain_where;
                p->read = plain_pread;
                p->src = vc;
                p->serial = 0;
                pc->vc = vc;
                return NC_NOERR;
            }
        }
        var_unlock(pc->m);
        pc->m = NULL;
    }
    /* HDF5's path, the whole request under one hold of the lock. */
    nc4h5_lock();
    pc->held = 1;
    p->where = h5plain_where;
    p->read = h5plain_read;
    p->src = pc;
    p->serial = 1;
    return NC_NOERR;
}

void
nc4h5_plain_end(nc4h5_plain_chunks *pc)
{
    if (pc->held)
        nc4h5_unlock();
    pc->held = 0;
    var_unlock(pc->m);
    pc->m = NULL;
}

int
nc4h5_chunk_read(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
                 const hsize_t *stride, const hsize_t *ext, size_t size, void *out, int *done)
{
    pthread_mutex_t *m = var_lock(var);
    int stat = chunk_read(var, did, mtid, nd, start, count, stride, ext, size, out, done);
    var_unlock(m);
    return stat;
}

int
nc4h5_chunk_write(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
                  const hsize_t *stride, const hsize_t *ext, size_t size, const void *in, int *done)
{
    pthread_mutex_t *m = var_lock(var);
    int stat = chunk_write(var, did, mtid, nd, start, count, stride, ext, size, in, done);
    var_unlock(m);
    return stat;
}

int
nc4h5_chunk_cache_flush(NC4_var *var, int drop)
{
    pthread_mutex_t *m = var_lock(var);
    vcache *vc = var->fmt ? vc_find((NC4H5_var *)var->fmt) : NULL;
    int stat = vc ? vc_writeback(vc, drop) : NC_NOERR;
    var_unlock(m);
    return stat;
}

int
nc4h5_chunk_cache_flush_file(NC4_file *f)
{
    int stat = NC_NOERR, s;
    /* By the file's own variables: a state is trusted only through a live
     * var (see vc_find).  Each variable's state goes too: the define mode
     * this may end could have changed its filters, chunks or fill value,
     * which the next request asks HDF5 for again.  Data once lost to a
     * failed write keeps every later sync and close failing. */
    for (size_t i = 0; i < f->ngrps; i++) {
        NC4_grp *g = f->grps[i];
        for (size_t j = 0; j < g->vars.n; j++) {
            NC4_var *v = (NC4_var *)g->vars.items[j];
            NC4H5_var *hv = v->fmt;
            vcache *vc = hv ? vc_find(hv) : NULL;
            if (vc && (s = vc_writeback(vc, 1)) && !stat)
                stat = s;
            if (vc)
                vc_free(vc);
            if (hv && hv->write_lost && !stat)
                stat = NC_EHDFERR;
        }
    }
    return stat;
}

void
nc4h5_chunk_cache_drop(NC4H5_var *hv)
{
    nc4h5_lock();
    if (hv->chunks != NULL)
        vc_free(hv->chunks);
    nc4h5_unlock();
}
