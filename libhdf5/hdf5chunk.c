/* hdf5chunk.c: the parallel chunk pipeline (see hdf5chunk.h), on the chunk
 * engine's copies, scratch and cache index (libchunk/ncchunk.h).
 *
 * A request is cut into the chunks it touches and run in batches, one pool
 * task per chunk: a task reads its raw bytes under the HDF5 lock
 * (H5Dread_chunk), decodes and copies the selected elements out (or,
 * writing, merges the caller's elements in and encodes) with no lock, and
 * the encoded chunks are written under the lock (H5Dwrite_chunk) in chunk
 * order, whatever the number of threads.  Tasks take the lock themselves
 * only when the calling thread holds none (a data call releases its own
 * hold first); under a caller's hold (nc_sync writing the cache back) the
 * calling thread does the batch's reads before the pool runs and its writes
 * after, so no hold is ever taken away from a caller.  Memory: a decoded
 * chunk per pool thread and the raw and encoded chunks of one batch --
 * never the whole variable.
 *
 * What a variable's requests need from HDF5 (filters, chunk shape, fill
 * value, intent, the codec chain) is asked once, when the first request
 * after its dataset was created or opened comes, and kept with the
 * variable's write-back cache on its NC4H5_var until the variable goes, its
 * dataset is remade, or the file is flushed (enddef, sync, close). */
#include "config.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hdf5chunk.h"
#include "ncfilter.h"
#include "ncchunk.h"

#define MAX_FILTERS 32               /* H5Z_MAX_NFILTERS */
#define MAX_PARAMS 64                /* more cd_values: HDF5's path */
/* A request that wants less than 1/SPARSE of the elements of the chunks
 * it touches (a row of a tall chunk, one value) goes to HDF5, whose chunk
 * cache keeps decoded chunks between calls; the pipeline would decode (and
 * on write re-encode) whole chunks on every call. */
#define SPARSE 4
/* Chunks per batch, per pool thread: a read batch holds raw chunks (small,
 * in reused scratch), a write batch encoded ones until their turn to be
 * written comes (no more than threads: the memory of a thread writing its
 * own). */
#define READ_BATCH_PER_THREAD 2
#define WRITE_BATCH_PER_THREAD 1

/* ---- the variable's state ------------------------------------------------------------
 * On its NC4H5_var, for the dataset id it was made for (another id: the
 * dataset was remade, and the state with its cached chunks is discarded
 * unwritten).  Used by one request at a time (the entry points take the
 * variable's lock, var_lock); pool tasks of a request read it and touch
 * only the entries of their own chunks.
 * The write-back cache: entries are the engine's (ncc_cache: found by
 * chunk index, LRU order); it holds at most c.max decoded chunks (the
 * variable's chunk-cache bytes and slots, as HDF5 would hold them), least
 * recently used first out.  An entry's loading flag: its contents are still
 * to be read in by a task; its stamp: the last request that used it. */
typedef struct vcache {
    NC4H5_var *key;
    hid_t did;                       /* key->did when made */
    NC4_var *var;
    int nd;
    size_t size;                     /* element bytes */
    int usable;                      /* the pipeline takes this variable's requests */
    int enofilter;                   /* a filter neither libfilter nor HDF5 runs:
                                      * reads fail with NC_ENOFILTER */
    hsize_t cd[H5S_MAX_RANK];        /* chunk shape */
    size_t cstride[H5S_MAX_RANK];    /* element strides of a chunk */
    size_t celems, cbytes;
    ncf_chain *chain;
    unsigned char fillval[256];      /* one fill value (larger elements: HDF5's path) */
    unsigned char *fillchunk;        /* a whole chunk of it (vc_fill) */
    int fill_never;                  /* fill time "never": unwritten chunks read as nothing */
    int writable;                    /* the file is open for writing */
    hsize_t fsize;                   /* the file's size: no stored chunk is larger */
    ncc_cache c;                     /* cached chunks; c.max: the bound */
    unsigned long stamp;             /* requests served */
} vcache;

typedef struct plan {
    vcache *vc;
    hid_t did;
    int nd;
    size_t size;
    hsize_t start[H5S_MAX_RANK], count[H5S_MAX_RANK], stride[H5S_MAX_RANK];
    hsize_t ext[H5S_MAX_RANK];       /* dataset extent */
    size_t ustride[H5S_MAX_RANK];    /* element strides of the caller's buffer */
    hsize_t clo[H5S_MAX_RANK];       /* first chunk touched, per dimension */
    size_t grid[H5S_MAX_RANK];       /* chunks touched, per dimension */
    unsigned char *user;             /* the caller's buffer */
} plan;

typedef struct cjob {
    hsize_t off[H5S_MAX_RANK];       /* chunk origin */
    hsize_t klo[H5S_MAX_RANK], khi[H5S_MAX_RANK]; /* request indices inside it */
    size_t uoff;                     /* element offset of klo in the caller's buffer */
    int allocated;                   /* stored in the file (raw read) */
    int full;                        /* every element of chunk ∩ extent selected */
    int edge;                        /* chunk reaches past the extent */
    int direct;                      /* the whole chunk is contiguous in the caller's buffer */
    const unsigned char *raw;        /* raw bytes */
    size_t rawlen;
    unsigned int mask;
} cjob;

/* ---- element copies between a chunk and the caller's buffer ------------------ */

/* Move the selected elements of chunk j between chunk (its decoded bytes)
 * and the caller's buffer (the engine's strided box copy). */
static void
copy_sel(const plan *p, const cjob *j, unsigned char *chunk, int to_user)
{
    const vcache *vc = p->vc;
    size_t n[H5S_MAX_RANK], cstr[H5S_MAX_RANK], coff = 0;
    for (int d = 0; d < p->nd; d++) {
        n[d] = (size_t)(j->khi[d] - j->klo[d]);
        coff += (size_t)(p->start[d] + j->klo[d] * p->stride[d] - j->off[d]) * vc->cstride[d];
        cstr[d] = (size_t)p->stride[d] * vc->cstride[d];
    }
    if (to_user)
        ncc_copy_strided(p->nd, p->size, n, chunk + coff * p->size, cstr, p->user + j->uoff * p->size, p->ustride);
    else
        ncc_copy_strided(p->nd, p->size, n, p->user + j->uoff * p->size, p->ustride, chunk + coff * p->size, cstr);
}

/* ---- the state ------------------------------------------------------------------------- */

static void
e_free(ncc_entry *e)
{
    if (e) {
        free(e->data);
        free(e);
    }
}

/* Discard every cached chunk (nothing written). */
static void
vc_clear(vcache *vc)
{
    while (vc->c.head) {
        ncc_entry *e = vc->c.head;
        ncc_cache_detach(&vc->c, e);
        e_free(e);
    }
}

static void
vc_free(vcache *vc)
{
    vc->key->chunks = NULL;
    vc_clear(vc);
    free(vc->c.buckets);
    ncf_chain_free(vc->chain);
    free(vc->fillchunk);
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

/* A whole chunk of fill values in vc->fillchunk (made once; before tasks
 * that need it run). */
static int
vc_fill(vcache *vc)
{
    if (vc->fillchunk != NULL)
        return NC_NOERR;
    if ((vc->fillchunk = malloc(vc->cbytes)) == NULL)
        return NC_ENOMEM;
    ncc_fill_elems(vc->fillchunk, vc->celems, vc->size, vc->fillval);
    return NC_NOERR;
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
        unsigned flags, cdv[MAX_PARAMS];
        size_t ncd = MAX_PARAMS;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cdv, 0, NULL, NULL);
        if (id < 0 || H5Zfilter_avail(id) <= 0)
            return NC_ENOFILTER;
    }
    return NC_NOERR;
}

/* What the pipeline needs of dataset did (memory type mtid, the file type
 * when the pipeline may take it) into vc; vc->usable stays 0 when its
 * requests are HDF5's.  Locked. */
static int
vc_setup(vcache *vc, hid_t did, hid_t mtid)
{
    hid_t dcpl = -1, ftid = -1;
    ncf_filter_spec specs[MAX_FILTERS];
    unsigned params[MAX_FILTERS][MAX_PARAMS];
    H5D_fill_time_t ft = H5D_FILL_TIME_IFSET;
    const char *env = getenv(NC4H5_PIPELINE_ENV);
    int nf, nd = vc->nd, stat = NC_NOERR;

    if ((env != NULL && strcmp(env, "0") == 0) || nd < 1 || nd > H5S_MAX_RANK || vc->size == 0)
        return NC_NOERR;
    if ((dcpl = H5Dget_create_plist(did)) < 0)
        return NC_NOERR;
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || (nf = H5Pget_nfilters(dcpl)) <= 0 ||
        nf > MAX_FILTERS || H5Pget_chunk(dcpl, nd, vc->cd) != nd)
        goto done;
    for (int i = 0; i < nf; i++) {
        size_t ncd = MAX_PARAMS;
        unsigned flags = 0;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, params[i], 0, NULL, NULL);
        if (id < 0 || ncd > MAX_PARAMS)
            goto done;
        specs[i].id = (unsigned)id;
        specs[i].flags = flags & H5Z_FLAG_OPTIONAL ? NCF_FLAG_OPTIONAL : 0;
        specs[i].nparams = ncd;
        specs[i].params = params[i];
        /* HDF5's path (taken for some requests) needs the filter too. */
        (void)nc4h5_filter_register((unsigned)id);
    }
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
    if ((stat = ncf_chain_create((size_t)nf, specs, vc->size, &vc->chain))) {
        /* Not runnable here: HDF5's pipeline, unless HDF5 cannot run it
         * either, which a read reports instead of returning raw bytes. */
        if (stat == NC_ENOFILTER && hdf5_has_filters(dcpl, nf) == NC_ENOFILTER)
            vc->enofilter = 1;
        stat = stat == NC_ENOFILTER ? NC_NOERR : stat;
        goto done;
    }
    vc->cbytes = vc->celems * vc->size;
    vc->cstride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--)
        vc->cstride[d] = vc->cstride[d + 1] * (size_t)vc->cd[d + 1];
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
            H5Fclose(fid);
        }
        vc->writable = (intent & H5F_ACC_RDWR) != 0;
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
    if ((vc = calloc(1, sizeof(*vc))) == NULL || ncc_cache_init(&vc->c, nd, 0)) {
        free(vc);
        return NC_ENOMEM;
    }
    vc->key = hv;
    vc->did = did;
    vc->var = var;
    vc->nd = nd;
    vc->size = size;
    nc4h5_lock();
    stat = vc_setup(vc, did, mtid);
    nc4h5_unlock();
    if (stat) {
        /* Not kept: asked again on the next request. */
        free(vc->c.buckets);
        ncf_chain_free(vc->chain);
        free(vc);
        return stat;
    }
    hv->chunks = vc;
    *vcp = vc;
    return NC_NOERR;
}

/* ---- the touched chunks, by index ------------------------------------------------ */

static size_t
plan_grid(plan *p)
{
    size_t nchunks = 1;
    for (int d = 0; d < p->nd; d++) {
        p->clo[d] = p->start[d] / p->vc->cd[d];
        p->grid[d] = (size_t)((p->start[d] + (p->count[d] - 1) * p->stride[d]) / p->vc->cd[d] - p->clo[d] + 1);
        nchunks *= p->grid[d];
    }
    return nchunks;
}

/* Chunk number i of the grid the request touches (C order) into j;
 * 0 when no selected element lies in it (strided requests skip chunks). */
static int
chunk_at(const plan *p, size_t i, cjob *j)
{
    const hsize_t *cd = p->vc->cd;
    int contiguous = 1;
    j->uoff = 0;
    j->full = 1;
    j->edge = 0;
    j->allocated = 0;
    j->raw = NULL;
    j->rawlen = 0;
    j->mask = 0;
    for (int d = p->nd - 1; d >= 0; d--) {
        hsize_t ci = p->clo[d] + (hsize_t)(i % p->grid[d]);
        i /= p->grid[d];
        j->off[d] = ci * cd[d];
    }
    for (int d = 0; d < p->nd; d++) {
        hsize_t co = j->off[d], last = co + cd[d] - 1, inext;
        j->klo[d] = co <= p->start[d] ? 0 : (co - p->start[d] + p->stride[d] - 1) / p->stride[d];
        j->khi[d] = (last - p->start[d]) / p->stride[d] + 1;
        if (j->khi[d] > p->count[d])
            j->khi[d] = p->count[d];
        if (j->klo[d] >= j->khi[d])
            return 0;
        inext = p->ext[d] - co < cd[d] ? p->ext[d] - co : cd[d];
        if (inext < cd[d])
            j->edge = 1;
        if (j->khi[d] - j->klo[d] != inext)
            j->full = 0;
        /* Contiguous in the caller's buffer: the chunk spans the whole
         * request along every dimension after the first. */
        if (p->stride[d] != 1 || (d > 0 && (p->count[d] != cd[d] || p->start[d] != co)))
            contiguous = 0;
        j->uoff += (size_t)j->klo[d] * p->ustride[d];
    }
    j->direct = contiguous && j->full && !j->edge;
    return 1;
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

/* The raw bytes of chunk j (nb of them, nb > 0) into buf.  Locked. */
static int
raw_read(const vcache *vc, hid_t did, cjob *j, unsigned char *buf, hsize_t nb)
{
    uint32_t mask = 0;
    if (H5Dread_chunk(did, H5P_DEFAULT, j->off, &mask, buf) < 0)
        return NC_EHDFERR;
    if (vc->writable) {
        /* HDF5 1.10.8's H5Dread_chunk can report a stale filter mask for a
         * chunk rewritten (H5Dwrite_chunk) with another one -- an optional
         * filter such as szip skipped one time and not the next -- when
         * chunks were visited in some orders.  The chunk index has the
         * right one. */
        unsigned fm = 0;
        haddr_t addr = HADDR_UNDEF;
        hsize_t sz = 0;
        if (H5Dget_chunk_info_by_coord(did, j->off, &fm, &addr, &sz) < 0)
            return NC_EHDFERR;
        mask = fm;
    }
    j->raw = buf;
    j->rawlen = (size_t)nb;
    j->mask = mask;
    j->allocated = 1;
    return NC_NOERR;
}

/* Raw bytes of one chunk into this thread's raw scratch (j->allocated = 0
 * if never written).  Takes the lock. */
static int
read_raw_one(const plan *p, cjob *j)
{
    unsigned char *raw;
    hsize_t nb = 0;
    int stat;
    nc4h5_lock();
    if ((stat = raw_size(p->vc, p->did, j->off, &nb)) == NC_NOERR && nb > 0) {
        if ((raw = ncc_scratch(NCC_SCRATCH_RAW, (size_t)nb)) == NULL)
            stat = NC_ENOMEM;
        else
            stat = raw_read(p->vc, p->did, j, raw, nb);
    }
    nc4h5_unlock();
    return stat;
}

/* A codec's failure as HDF5's own pipeline would report it. */
static int
codec_status(int stat)
{
    return stat == NC_EFILTER ? NC_EHDFERR : stat;
}

/* ---- batches ------------------------------------------------------------------------
 * A request's chunks (and a write-back's cached chunks) go a batch at a
 * time, one pool task per chunk, and what they encode is written in chunk
 * order -- so the file gets the same writes in the same order whatever the
 * number of threads.  When the calling thread holds no HDF5 lock, each task
 * takes it itself for its raw read, and a finished task writes every
 * encoded chunk whose turn has come (one thread's I/O overlaps the others'
 * codec work).  When it holds the lock (a caller above, such as nc_sync,
 * took it), the tasks must not wait for it: the calling thread reads the
 * batch's raw bytes before the pool runs and writes its chunks after. */
typedef struct slot {
    cjob j;
    int used;                        /* a chunk of the request's selection */
    int need_raw;                    /* its stored bytes are read first */
    ncc_entry *e;                    /* its cache entry (write-back, merge) */
    int evicted;                     /* e leaves the cache: encode and write it */
    void *out;                       /* encoded, to be written at j.off */
    size_t outlen;
    unsigned outmask;
    int put;
    int status;
    int ready;                       /* its task is over (batch_ctx.seq) */
} slot;

typedef struct batch_ctx batch_ctx;
static void read_work(batch_ctx *c, struct slot *s);
struct batch_ctx {
    plan *p;
    vcache *vc;
    hid_t did;
    /* Slot for task i: set s (used, need_raw, e, j.off); 0: nothing to do. */
    void (*setup)(batch_ctx *c, size_t i, slot *s);
    /* Pool work on slot s (no HDF5 call). */
    void (*work)(batch_ctx *c, slot *s);
    slot *slots;
    int self_io;                     /* tasks read and write under the lock themselves */
    pthread_mutex_t seq;             /* the order of writes: */
    size_t n, next;                  /*   slots of the batch, the next to write */
    int writer;                      /*   a task is writing */
    ncc_entry **list;                /* write-back: the entries */
    ncc_entry **ev;                  /* a cached write: the evicted entries */
    size_t nev;
    _Atomic int status;              /* first failure; later tasks skip their work */
};

static void
fail(batch_ctx *c, int stat)
{
    int expect = NC_NOERR;
    if (stat)
        atomic_compare_exchange_strong(&c->status, &expect, stat);
}

static void batch_store(batch_ctx *c, slot *s, size_t n);

/* Slot i's task is over: write, in order, every encoded chunk whose
 * predecessors are written (unless another task is at it). */
static void
seq_done(batch_ctx *c, size_t i)
{
    pthread_mutex_lock(&c->seq);
    c->slots[i].ready = 1;
    if (!c->writer) {
        c->writer = 1;
        while (c->next < c->n && c->slots[c->next].ready) {
            slot *s = &c->slots[c->next++];
            pthread_mutex_unlock(&c->seq);
            if (s->out != NULL) {
                nc4h5_lock();
                batch_store(c, s, 1);
                nc4h5_unlock();
            }
            pthread_mutex_lock(&c->seq);
        }
        c->writer = 0;
    }
    pthread_mutex_unlock(&c->seq);
}

static void
batch_task(void *arg, size_t i)
{
    batch_ctx *c = arg;
    slot *s = &c->slots[i];
    if (s->used && !atomic_load(&c->status)) {
        if (c->self_io && s->need_raw) {
            hsize_t nb = 0;
            unsigned char *raw;
            nc4h5_lock();
            if ((s->status = raw_size(c->vc, c->did, s->j.off, &nb)) == NC_NOERR && nb > 0) {
                if ((raw = ncc_scratch(NCC_SCRATCH_RAW, (size_t)nb)) == NULL)
                    s->status = NC_ENOMEM;
                else
                    s->status = raw_read(c->vc, c->did, &s->j, raw, nb);
            }
            nc4h5_unlock();
        }
        if (s->status == NC_NOERR)
            c->work(c, s);
        fail(c, s->status);
    }
    if (c->self_io)
        seq_done(c, i);
}

/* Raw bytes of the slots that need them, one after another into this
 * thread's raw scratch.  Locked. */
static int
batch_fetch(batch_ctx *c, slot *s, size_t n)
{
    hsize_t nb[64];
    size_t total = 0, at = 0;
    unsigned char *buf;
    int stat;
    for (size_t k = 0; k < n; k++) {
        nb[k] = 0;
        if (!s[k].used || !s[k].need_raw)
            continue;
        if ((stat = raw_size(c->vc, c->did, s[k].j.off, &nb[k])))
            return stat;
        /* Each chunk's bytes start 16-byte aligned. */
        total += ((size_t)nb[k] + 15) & ~(size_t)15;
    }
    if (total == 0)
        return NC_NOERR;
    if ((buf = ncc_scratch(NCC_SCRATCH_RAW, total)) == NULL)
        return NC_ENOMEM;
    for (size_t k = 0; k < n; k++) {
        if (nb[k] == 0)
            continue;
        if ((stat = raw_read(c->vc, c->did, &s[k].j, buf + at, nb[k])))
            return stat;
        at += ((size_t)nb[k] + 15) & ~(size_t)15;
    }
    return NC_NOERR;
}

/* Write the slots' encoded chunks, in order; an entry written is clean.
 * Locked. */
static void
batch_store(batch_ctx *c, slot *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (s[k].put && s[k].status == NC_NOERR && atomic_load(&c->status) == NC_NOERR) {
            if (H5Dwrite_chunk(c->did, H5P_DEFAULT, s[k].outmask, s[k].j.off, s[k].outlen, s[k].out) < 0)
                fail(c, NC_EHDFERR);
            else if (s[k].e != NULL)
                s[k].e->dirty = 0;
        }
        free(s[k].out);
        s[k].out = NULL;
    }
}

/* Run ntasks through c a batch at a time; the first failure. */
static int
batch_run(batch_ctx *c, size_t ntasks, int pooled)
{
    ncf_pool *pool = pooled ? ncf_pool_default() : NULL;
    size_t per = (size_t)(pool ? ncf_pool_nthreads(pool) : 1) *
                 (c->work == read_work ? READ_BATCH_PER_THREAD : WRITE_BATCH_PER_THREAD);
    slot slots[64];
    c->self_io = !nc4h5_lock_held();
    if (per > 64)
        per = 64;
    if (per < 1)
        per = 1;
    c->slots = slots;
    pthread_mutex_init(&c->seq, NULL);
    atomic_init(&c->status, NC_NOERR);
    for (size_t i0 = 0; i0 < ntasks && atomic_load(&c->status) == NC_NOERR; i0 += per) {
        size_t n = ntasks - i0 < per ? ntasks - i0 : per;
        int need = 0, put = 0, stat;
        for (size_t k = 0; k < n; k++) {
            memset(&slots[k], 0, sizeof(slots[k]));
            c->setup(c, i0 + k, &slots[k]);
            need |= slots[k].used && slots[k].need_raw;
        }
        c->n = n;
        c->next = 0;
        c->writer = 0;
        if (need && !c->self_io) {
            nc4h5_lock();
            stat = batch_fetch(c, slots, n);
            nc4h5_unlock();
            if (stat) {
                fail(c, stat);
                break;
            }
        }
        ncf_pool_run(pool, n, batch_task, c);
        for (size_t k = 0; k < n; k++)
            put |= slots[k].out != NULL;
        if (put) {
            nc4h5_lock();
            batch_store(c, slots, n);
            nc4h5_unlock();
        }
    }
    pthread_mutex_destroy(&c->seq);
    return atomic_load(&c->status);
}

/* Every chunk p touches through setup and work, on the pool. */
static int
run_plan(plan *p, void (*setup)(batch_ctx *, size_t, slot *), void (*work)(batch_ctx *, slot *))
{
    batch_ctx c;
    memset(&c, 0, sizeof(c));
    c.p = p;
    c.vc = p->vc;
    c.did = p->did;
    c.setup = setup;
    c.work = work;
    return batch_run(&c, plan_grid(p), 1);
}

/* Encode a whole decoded chunk into s (written by batch_store). */
static void
encode_into(const vcache *vc, slot *s, const unsigned char *src)
{
    s->status = codec_status(ncf_chain_encode(vc->chain, src, vc->cbytes, &s->out, &s->outlen, &s->outmask));
    s->put = s->status == NC_NOERR;
}

/* ---- reading ------------------------------------------------------------------------ */

static void
read_setup(batch_ctx *c, size_t i, slot *s)
{
    s->used = chunk_at(c->p, i, &s->j);
    s->need_raw = 1;
}

static void
read_work(batch_ctx *c, slot *s)
{
    plan *p = c->p;
    const vcache *vc = c->vc;
    cjob *j = &s->j;
    unsigned char *src;

    if (!j->allocated) {
        if (vc->fill_never)
            return;
        src = vc->fillchunk;
    } else if (j->direct) {
        s->status = codec_status(ncf_chain_decode(vc->chain, j->mask, j->raw, j->rawlen,
                                                  p->user + j->uoff * p->size, vc->cbytes));
        return;
    } else {
        if ((src = ncc_scratch(NCC_SCRATCH_CHUNK, vc->cbytes)) == NULL) {
            s->status = NC_ENOMEM;
            return;
        }
        if ((s->status = codec_status(ncf_chain_decode(vc->chain, j->mask, j->raw, j->rawlen, src, vc->cbytes))))
            return;
    }
    copy_sel(p, j, src, 1);
}

/* ---- writing ------------------------------------------------------------------------- */

/* Chunk s of the request, encoded from the caller's data (wholly covered)
 * or by read-modify-write (partly covered, no cache: its raw bytes read). */
static void
write_uncached(batch_ctx *c, slot *s)
{
    plan *p = c->p;
    const vcache *vc = c->vc;
    cjob *j = &s->j;
    unsigned char *b;

    if (j->direct) {
        encode_into(vc, s, p->user + j->uoff * p->size);
        return;
    }
    if ((b = ncc_scratch(NCC_SCRATCH_CHUNK, vc->cbytes)) == NULL) {
        s->status = NC_ENOMEM;
        return;
    }
    if (!j->full && j->allocated) {
        if ((s->status = codec_status(ncf_chain_decode(vc->chain, j->mask, j->raw, j->rawlen, b, vc->cbytes))))
            return;
    } else if (!j->full || j->edge) {
        /* New chunk, or the padding of an edge chunk: fill values, as
         * HDF5 initializes a chunk it creates. */
        memcpy(b, vc->fillchunk, vc->cbytes);
    }
    copy_sel(p, j, b, 0);
    encode_into(vc, s, b);
}

static void
write_setup(batch_ctx *c, size_t i, slot *s)
{
    s->used = chunk_at(c->p, i, &s->j);
    s->need_raw = !s->j.full;
}

static void
write_work(batch_ctx *c, slot *s)
{
    write_uncached(c, s);
}

/* The uncached write of p: every chunk from the caller's data or by
 * read-modify-write. */
static int
run_write(plan *p)
{
    int stat;
    if ((stat = vc_fill(p->vc)))
        return stat;
    return run_plan(p, write_setup, write_work);
}

/* ---- the write-back cache --------------------------------------------------------- */

/* Origin of the chunk at grid index idx, and back. */
static void
idx_off(const vcache *vc, const uint64_t *idx, hsize_t *off)
{
    for (int d = 0; d < vc->nd; d++)
        off[d] = (hsize_t)idx[d] * vc->cd[d];
}

static ncc_entry *
e_find(const vcache *vc, const hsize_t *off)
{
    uint64_t idx[H5S_MAX_RANK];
    for (int d = 0; d < vc->nd; d++)
        idx[d] = off[d] / vc->cd[d];
    return ncc_cache_find(&vc->c, idx);
}

/* A new entry for the chunk at off, most recent, owning buf. */
static int
e_insert(vcache *vc, const hsize_t *off, unsigned char *buf, ncc_entry **ep)
{
    uint64_t idx[H5S_MAX_RANK];
    for (int d = 0; d < vc->nd; d++)
        idx[d] = off[d] / vc->cd[d];
    return ncc_cache_insert(&vc->c, idx, buf, ep);
}

static void
wb_setup(batch_ctx *c, size_t i, slot *s)
{
    s->used = 1;
    s->e = c->list[i];
    idx_off(c->vc, s->e->idx, s->j.off);
}

static void
wb_work(batch_ctx *c, slot *s)
{
    encode_into(c->vc, s, s->e->data);
}

/* Write back the dirty chunks of vc (in batches on the pool); drop: empty
 * the cache too. */
static int
vc_writeback(vcache *vc, int drop)
{
    batch_ctx c;
    size_t n = 0;
    int stat = NC_NOERR;

    for (ncc_entry *e = vc->c.head; e; e = e->next)
        n += e->dirty;
    if (n > 0) {
        memset(&c, 0, sizeof(c));
        if ((c.list = malloc(n * sizeof(*c.list))) == NULL)
            return NC_ENOMEM;
        n = 0;
        for (ncc_entry *e = vc->c.head; e; e = e->next)
            if (e->dirty)
                c.list[n++] = e;
        nc4h5_lock();
        stat = nc4h5_var_open_dataset(vc->var);
        c.did = vc->key->did;
        nc4h5_unlock();
        if (stat == NC_NOERR) {
            c.vc = vc;
            c.setup = wb_setup;
            c.work = wb_work;
            stat = batch_run(&c, n, 1);
        }
        free(c.list);
    }
    if (drop) {
        /* Dirty chunks dropped unwritten: remembered (see cached_write). */
        if (stat)
            vc->key->write_lost = 1;
        vc_clear(vc);
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
    if (vc->c.max != cap) {
        stat = vc_writeback(vc, 1);
        vc->c.max = cap;
    }
    return stat;
}

/* Tasks of a cached write: first the evicted dirty chunks (encode, write),
 * then the chunks of the request -- wholly covered ones straight out,
 * partly covered ones merged into their cached copy (read in first when
 * new to the cache). */
static void
cw_setup(batch_ctx *c, size_t i, slot *s)
{
    if (i < c->nev) {
        s->used = 1;
        s->evicted = 1;
        s->e = c->ev[i];
        idx_off(c->vc, s->e->idx, s->j.off);
        return;
    }
    if (!(s->used = chunk_at(c->p, i - c->nev, &s->j)))
        return;
    if (!s->j.full) {
        s->e = e_find(c->vc, s->j.off);
        s->need_raw = s->e->loading;
    }
}

static void
cw_work(batch_ctx *c, slot *s)
{
    const vcache *vc = c->vc;
    ncc_entry *e = s->e;
    if (s->evicted) {
        encode_into(vc, s, e->data);
        return;
    }
    if (s->j.full) {
        write_uncached(c, s);
        return;
    }
    if (e->loading) {
        if (s->j.allocated)
            s->status = codec_status(ncf_chain_decode(vc->chain, s->j.mask, s->j.raw, s->j.rawlen, e->data,
                                                      vc->cbytes));
        else
            memcpy(e->data, vc->fillchunk, vc->cbytes);
        if (s->status)
            return;
        e->loading = 0;
    }
    copy_sel(c->p, &s->j, e->data, 0);
}

/* The cached write of p.  *fits = 0 when the request has more partly
 * covered chunks than the cache holds: nothing done. */
static int
cached_write(plan *p, int *fits)
{
    vcache *vc = p->vc;
    size_t nchunks = plan_grid(p), npart = 0, nev = 0, nfull = 0, nload = 0, target;
    unsigned long stamp = ++vc->stamp;
    ncc_entry **ev = NULL;
    batch_ctx c;
    cjob j;
    int stat = NC_NOERR;

    *fits = 0;
    for (size_t i = 0; i < nchunks && npart <= vc->c.max; i++)
        if (chunk_at(p, i, &j) && !j.full)
            npart++;
    if (npart > vc->c.max)
        return NC_NOERR;
    *fits = 1;
    /* Index the request's chunks: wholly covered ones leave the cache
     * (overwritten), partly covered ones enter it or move to the front. */
    for (size_t i = 0; i < nchunks; i++) {
        ncc_entry *e;
        if (!chunk_at(p, i, &j))
            continue;
        e = e_find(vc, j.off);
        if (j.full) {
            nfull++;
            if (j.edge && (stat = vc_fill(vc)))
                return stat;
            if (e)
                free(ncc_cache_unlink(&vc->c, e));
            continue;
        }
        if (e == NULL) {
            unsigned char *buf = malloc(vc->cbytes);
            if (buf == NULL)
                return NC_ENOMEM;
            if ((stat = vc_fill(vc)) || (stat = e_insert(vc, j.off, buf, &e))) {
                free(buf);
                return stat;
            }
            e->loading = 1;
            nload++;
        } else {
            ncc_cache_touch(&vc->c, e);
        }
        e->stamp = stamp;
        e->dirty = 1;
    }
    /* Over the bound: evict from the old end down to 3/4 of it, so that
     * evicted chunks go out several at a time on the pool. */
    if (vc->c.n > vc->c.max) {
        target = vc->c.max - vc->c.max / 4;
        if (target < npart)
            target = npart;
        if ((ev = malloc((vc->c.n - target) * sizeof(*ev))) == NULL)
            return NC_ENOMEM;
        while (vc->c.n > target && vc->c.tail && vc->c.tail->stamp != stamp) {
            ncc_entry *e = vc->c.tail;
            ncc_cache_detach(&vc->c, e);
            if (e->dirty && !e->loading)
                ev[nev++] = e;
            else
                e_free(e);
        }
    }
    memset(&c, 0, sizeof(c));
    c.p = p;
    c.vc = vc;
    c.did = p->did;
    c.ev = ev;
    c.nev = nev;
    c.setup = cw_setup;
    c.work = cw_work;
    /* Only merges into cached chunks (a row into chunks already loaded):
     * copies too small to hand to other threads. */
    stat = batch_run(&c, nev + nchunks, nev + nfull + nload > 0);
    /* An evicted chunk that did not reach the file (a full disk) held data
     * earlier calls were told was written.  It is not retried (HDF5 1.10
     * can crash rewriting a chunk whose write failed): the loss is
     * remembered, and every later sync and close report it. */
    for (size_t i = 0; i < nev; i++) {
        if (ev[i]->dirty)
            vc->key->write_lost = 1;
        e_free(ev[i]);
    }
    free(ev);
    if (stat) {
        /* Chunks whose first contents never arrived cannot stay. */
        for (ncc_entry *e = vc->c.head, *nx; e; e = nx) {
            nx = e->next;
            if (e->loading)
                free(ncc_cache_unlink(&vc->c, e));
        }
    }
    return stat;
}

/* Decode chunk j (its raw bytes read) into a new entry of vc, evicting
 * the least recently used clean chunks over the bound. */
static int
vc_load(vcache *vc, const cjob *j, unsigned long stamp, ncc_entry **ep)
{
    ncc_entry *e;
    unsigned char *buf = malloc(vc->cbytes);
    int stat;
    if (buf == NULL)
        return NC_ENOMEM;
    if ((stat = codec_status(ncf_chain_decode(vc->chain, j->mask, j->raw, j->rawlen, buf, vc->cbytes))) ||
        (stat = e_insert(vc, j->off, buf, &e))) {
        free(buf);
        return stat;
    }
    e->stamp = stamp;
    /* Reads find the cache written back (get_vars flushes it first), so
     * what goes is clean; a dirty chunk is never dropped here. */
    for (ncc_entry *x = vc->c.tail, *pv; x && vc->c.n > vc->c.max; x = pv) {
        pv = x->prev;
        if (!x->dirty && x->stamp != stamp)
            free(ncc_cache_unlink(&vc->c, x));
    }
    *ep = e;
    return NC_NOERR;
}

/* A sparse read (one value, a row of a tall chunk): chunk by chunk on this
 * thread, each chunk decoded once into var's cache and served from there
 * to the reads after it, as HDF5's chunk cache serves its own reads.
 * Without a cache (settings too small for a chunk) every read decodes. */
static int
cached_read(plan *p)
{
    vcache *vc = p->vc;
    size_t nchunks = plan_grid(p);
    unsigned long stamp = ++vc->stamp;
    int cached = vc->c.max > 0;
    cjob j;
    int stat;

    for (size_t i = 0; i < nchunks; i++) {
        ncc_entry *e;
        unsigned char *src;
        if (!chunk_at(p, i, &j))
            continue;
        if (cached && (e = e_find(vc, j.off)) != NULL) {
            ncc_cache_touch(&vc->c, e);
            e->stamp = stamp;
            copy_sel(p, &j, e->data, 1);
            continue;
        }
        if ((stat = read_raw_one(p, &j)))
            return stat;
        if (!j.allocated) {
            if (vc->fill_never)
                continue;
            if ((stat = vc_fill(vc)))
                return stat;
            src = vc->fillchunk;
        } else if (cached) {
            if ((stat = vc_load(vc, &j, stamp, &e)))
                return stat;
            src = e->data;
        } else {
            if ((src = ncc_scratch(NCC_SCRATCH_CHUNK, vc->cbytes)) == NULL)
                return NC_ENOMEM;
            if ((stat = codec_status(ncf_chain_decode(vc->chain, j.mask, j.raw, j.rawlen, src, vc->cbytes))))
                return stat;
        }
        copy_sel(p, &j, src, 1);
    }
    return NC_NOERR;
}

/* The read of p, a batch at a time on the pool. */
static int
run_read(plan *p)
{
    int stat;
    /* Reads may meet unwritten chunks anywhere: the fill chunk first. */
    if (!p->vc->fill_never && (stat = vc_fill(p->vc)))
        return stat;
    return run_plan(p, read_setup, read_work);
}

/* Calls on one variable from threads sharing a handle take turns: a lock
 * per variable, from a small striped table.  A caller that holds the HDF5
 * lock takes none (it could wait on a thread that waits for the HDF5 lock;
 * the HDF5 lock orders it against other holders). */
#define NSTRIPES 64
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
    m = &stripes[((uintptr_t)var / sizeof(void *)) % NSTRIPES];
    pthread_mutex_lock(m);
    return m;
}

static void
var_unlock(pthread_mutex_t *m)
{
    if (m != NULL)
        pthread_mutex_unlock(m);
}

/* The request start/count/stride on vc into p; 0 when it is HDF5's (a
 * count or stride of 0, past the extent).  *sparse: it wants less than
 * 1/SPARSE of the elements of the chunks it touches. */
static int
plan_set(plan *p, vcache *vc, hid_t did, const hsize_t *start, const hsize_t *count, const hsize_t *stride,
         const hsize_t *ext, int *sparse)
{
    double want = 1, touched = 1;
    int nd = vc->nd;
    p->vc = vc;
    p->did = did;
    p->nd = nd;
    p->size = vc->size;
    p->user = NULL;
    for (int d = 0; d < nd; d++) {
        if (count[d] == 0 || stride[d] == 0 || start[d] + (count[d] - 1) * stride[d] >= ext[d])
            return 0;
        p->start[d] = start[d];
        p->count[d] = count[d];
        p->stride[d] = stride[d];
        p->ext[d] = ext[d];
        want *= (double)count[d];
        touched *= (double)((start[d] + (count[d] - 1) * stride[d]) / vc->cd[d] - start[d] / vc->cd[d] + 1) *
                   (double)vc->cd[d];
    }
    p->ustride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--)
        p->ustride[d] = p->ustride[d + 1] * (size_t)count[d + 1];
    *sparse = want * SPARSE < touched;
    return 1;
}

static int
chunk_read(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
           const hsize_t *stride, const hsize_t *ext, size_t size, void *out, int *done)
{
    plan p;
    vcache *vc;
    int stat, sparse = 0;
    *done = 0;
    if ((stat = vc_get(var, did, mtid, nd, size, &vc)) || vc == NULL || (!vc->usable && !vc->enofilter))
        return stat;
    if (!plan_set(&p, vc, did, start, count, stride, ext, &sparse))
        return NC_NOERR;
    *done = 1;
    if (vc->enofilter)
        return NC_ENOFILTER;
    p.user = out;
    if (!sparse)
        return run_read(&p);
    if ((stat = vc_bound(vc)))
        return stat;
    return cached_read(&p);
}

static int
chunk_write(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
            const hsize_t *stride, const hsize_t *ext, size_t size, const void *in, int *done)
{
    plan p;
    vcache *vc;
    int stat, sparse = 0, fits = 0;
    *done = 0;
    if ((stat = vc_get(var, did, mtid, nd, size, &vc)) || vc == NULL || !vc->usable)
        return stat;
    if (!plan_set(&p, vc, did, start, count, stride, ext, &sparse))
        return NC_NOERR;
    /* Sparse writes are fine when the write-back cache can hold a chunk:
     * it merges them without re-encoding. */
    if (sparse && cache_cap(var, vc->cbytes) == 0)
        return NC_NOERR;
    *done = 1;
    /* Only read from; the copies go one way (scatter into chunk buffers). */
    p.user = (unsigned char *)(uintptr_t)in;
    if ((stat = vc_bound(vc)) == NC_NOERR && vc->c.max > 0)
        stat = cached_write(&p, &fits);
    if (stat == NC_NOERR && !fits) {
        /* No cache, or more partly covered chunks than it holds: whatever
         * it has goes out first, then read-modify-write chunk by chunk.
         * Dirty chunks dropped unwritten: remembered (see cached_write). */
        if ((stat = vc_writeback(vc, 0)))
            vc->key->write_lost = 1;
        vc_clear(vc);
        if (stat == NC_NOERR)
            stat = run_write(&p);
    }
    return stat;
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
