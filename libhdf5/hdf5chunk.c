/* hdf5chunk.c: the parallel chunk pipeline (see hdf5chunk.h), on the chunk
 * engine's copies, scratch and cache index (libchunk/ncchunk.h).
 *
 * A request is cut into the chunks it touches, one pool task each (the pool
 * hands them out one at a time, so a thread that is descheduled holds up at
 * most one chunk, and there is one join per request).  A task reads the raw
 * bytes it needs under the HDF5 lock (H5Dread_chunk); without it, it
 * decodes and copies the selected elements out (or, writing, merges the
 * caller's elements in and encodes); a write then goes out with
 * H5Dwrite_chunk under the lock.  One thread's I/O so overlaps the others'
 * codec work.  Memory: a raw, a decoded and an encoded chunk per pool
 * thread -- never the whole variable. */
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

typedef struct plan {
    hid_t did;
    int nd;
    size_t size;                     /* element bytes */
    hsize_t start[H5S_MAX_RANK], count[H5S_MAX_RANK], stride[H5S_MAX_RANK];
    hsize_t cd[H5S_MAX_RANK];        /* chunk shape */
    hsize_t ext[H5S_MAX_RANK];       /* dataset extent */
    size_t ustride[H5S_MAX_RANK];    /* element strides of the caller's buffer */
    size_t cstride[H5S_MAX_RANK];    /* element strides of a chunk */
    size_t celems, cbytes;
    hsize_t clo[H5S_MAX_RANK];       /* first chunk touched, per dimension */
    size_t grid[H5S_MAX_RANK];       /* chunks touched, per dimension */
    ncf_chain *chain;
    int chain_borrowed;              /* chain is the cache's: not freed with the plan */
    unsigned char *fillchunk;        /* a whole chunk of fill values (plan_fill) */
    unsigned char fillval[256];      /* one fill value (larger elements: HDF5's path) */
    int fill_never;                  /* fill time "never": unwritten chunks read as nothing */
    int sparse;                      /* a read wanting few elements of the chunks it touches */
    int writable;                    /* the file is open for writing */
    hsize_t fsize;                   /* the file's size: no stored chunk is larger */
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
    const unsigned char *raw;        /* raw bytes (the thread's buffer) */
    size_t rawlen;
    unsigned int mask;
} cjob;

/* ---- element copies between a chunk and the caller's buffer ------------------ */

/* Move the selected elements of chunk j between chunk (its decoded bytes)
 * and the caller's buffer (the engine's strided box copy). */
static void
copy_sel(const plan *p, const cjob *j, unsigned char *chunk, int to_user)
{
    size_t n[H5S_MAX_RANK], cstr[H5S_MAX_RANK], coff = 0;
    for (int d = 0; d < p->nd; d++) {
        n[d] = (size_t)(j->khi[d] - j->klo[d]);
        coff += (size_t)(p->start[d] + j->klo[d] * p->stride[d] - j->off[d]) * p->cstride[d];
        cstr[d] = (size_t)p->stride[d] * p->cstride[d];
    }
    if (to_user)
        ncc_copy_strided(p->nd, p->size, n, chunk + coff * p->size, cstr, p->user + j->uoff * p->size, p->ustride);
    else
        ncc_copy_strided(p->nd, p->size, n, p->user + j->uoff * p->size, p->ustride, chunk + coff * p->size, cstr);
}

/* ---- plan ------------------------------------------------------------------------ */

static void
plan_free(plan *p)
{
    if (!p->chain_borrowed)
        ncf_chain_free(p->chain);
    free(p->fillchunk);
}

/* A whole chunk of fill values in p->fillchunk (once per plan; before the
 * tasks run). */
static int
plan_fill(plan *p)
{
    if (p->fillchunk != NULL)
        return NC_NOERR;
    if ((p->fillchunk = malloc(p->cbytes)) == NULL)
        return NC_ENOMEM;
    memcpy(p->fillchunk, p->fillval, p->size);
    for (size_t filled = 1; filled < p->celems;) {
        size_t n = filled <= p->celems - filled ? filled : p->celems - filled;
        memcpy(p->fillchunk + filled * p->size, p->fillchunk, n * p->size);
        filled += n;
    }
    return NC_NOERR;
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

/* Set up p for did; *usable = 0 when the request is HDF5's.  cache_bytes:
 * the write-back cache of the variable (0: none).  Locked. */
static int
plan_init(plan *p, hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
          const hsize_t *stride, size_t size, int reading, size_t cache_bytes, int *usable)
{
    hid_t dcpl = -1, ftid = -1, sid = -1;
    ncf_filter_spec specs[MAX_FILTERS];
    unsigned params[MAX_FILTERS][MAX_PARAMS];
    H5D_fill_time_t ft = H5D_FILL_TIME_IFSET;
    const char *env = getenv(NC4H5_PIPELINE_ENV);
    double want = 1, touched = 1;
    int nf, stat = NC_NOERR;

    memset(p, 0, sizeof(*p));
    *usable = 0;
    if ((env != NULL && strcmp(env, "0") == 0) || nd < 1 || nd > H5S_MAX_RANK || size == 0)
        return NC_NOERR;
    if ((dcpl = H5Dget_create_plist(did)) < 0)
        return NC_NOERR;
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || (nf = H5Pget_nfilters(dcpl)) <= 0 ||
        nf > MAX_FILTERS || H5Pget_chunk(dcpl, nd, p->cd) != nd)
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
        /* HDF5's path (taken below for some requests) needs the filter too. */
        (void)nc4h5_filter_register((unsigned)id);
    }
    /* The pipeline moves bytes as stored: the memory type must be the
     * file type (no byte swapping or compound repacking here). */
    if ((ftid = H5Dget_type(did)) < 0 || H5Tequal(ftid, mtid) <= 0)
        goto done;
    if ((sid = H5Dget_space(did)) < 0 || H5Sget_simple_extent_dims(sid, p->ext, NULL) != nd)
        goto done;
    p->celems = 1;
    for (int d = 0; d < nd; d++) {
        if (p->cd[d] == 0 || count[d] == 0 || stride[d] == 0)
            goto done;
        if (start[d] + (count[d] - 1) * stride[d] >= p->ext[d])
            goto done;
        if ((double)p->celems * (double)p->cd[d] * (double)size > (double)UINT32_MAX)
            goto done;
        p->celems *= (size_t)p->cd[d];
        want *= (double)count[d];
        touched *= (double)((start[d] + (count[d] - 1) * stride[d]) / p->cd[d] - start[d] / p->cd[d] + 1) *
                   (double)p->cd[d];
    }
    /* Sparse writes are fine when the write-back cache can hold a chunk:
     * it merges them without re-encoding; sparse reads keep the chunks
     * they decode in that cache (cached_read). */
    if (want * SPARSE < touched) {
        if (!reading && cache_bytes < p->celems * size)
            goto done;
        p->sparse = reading;
    }
    if ((stat = ncf_chain_create((size_t)nf, specs, size, &p->chain))) {
        /* Not runnable here: HDF5's pipeline, unless HDF5 cannot run it
         * either, which a read reports instead of returning raw bytes. */
        if (stat == NC_ENOFILTER && reading && hdf5_has_filters(dcpl, nf) == NC_ENOFILTER) {
            *usable = 1;
            goto done;
        }
        stat = stat == NC_ENOFILTER ? NC_NOERR : stat;
        goto done;
    }
    p->did = did;
    p->nd = nd;
    p->size = size;
    p->cbytes = p->celems * size;
    for (int d = 0; d < nd; d++) {
        p->start[d] = start[d];
        p->count[d] = count[d];
        p->stride[d] = stride[d];
    }
    p->ustride[nd - 1] = p->cstride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--) {
        p->ustride[d] = p->ustride[d + 1] * (size_t)count[d + 1];
        p->cstride[d] = p->cstride[d + 1] * (size_t)p->cd[d + 1];
    }
    /* The fill value HDF5 would give an unwritten chunk. */
    if (H5Pget_fill_time(dcpl, &ft) < 0)
        ft = H5D_FILL_TIME_IFSET;
    p->fill_never = ft == H5D_FILL_TIME_NEVER;
    {
        hid_t fid = H5Iget_file_id(did);
        unsigned intent = H5F_ACC_RDWR;
        p->fsize = 0;
        if (fid >= 0) {
            (void)H5Fget_intent(fid, &intent);
            (void)H5Fget_filesize(fid, &p->fsize);
            H5Fclose(fid);
        }
        p->writable = (intent & H5F_ACC_RDWR) != 0;
    }
    if (size > sizeof(p->fillval)) {
        stat = NC_NOERR;   /* larger elements: HDF5's path */
        goto done;
    }
    if (!p->fill_never && H5Pget_fill_value(dcpl, mtid, p->fillval) < 0)
        memset(p->fillval, 0, size);
    /* Reads may meet unwritten chunks anywhere: the fill chunk now.  Writes
     * and sparse reads build it only when a chunk needs it (plan_fill). */
    if (reading && !p->sparse && (stat = plan_fill(p)))
        goto done;
    *usable = 1;
done:
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (ftid >= 0)
        H5Tclose(ftid);
    if (sid >= 0)
        H5Sclose(sid);
    if (stat || !*usable)
        plan_free(p);
    return stat;
}

/* ---- the touched chunks, by index ------------------------------------------------ */

/* Chunk number i of the grid the request touches (C order) into j;
 * 0 when no selected element lies in it (strided requests skip chunks). */
static int
chunk_at(const plan *p, size_t i, cjob *j)
{
    int contiguous = 1;
    j->uoff = 0;
    j->full = 1;
    j->edge = 0;
    for (int d = p->nd - 1; d >= 0; d--) {
        hsize_t ci = p->clo[d] + (hsize_t)(i % p->grid[d]);
        i /= p->grid[d];
        j->off[d] = ci * p->cd[d];
    }
    for (int d = 0; d < p->nd; d++) {
        hsize_t co = j->off[d], last = co + p->cd[d] - 1, inext;
        j->klo[d] = co <= p->start[d] ? 0 : (co - p->start[d] + p->stride[d] - 1) / p->stride[d];
        j->khi[d] = (last - p->start[d]) / p->stride[d] + 1;
        if (j->khi[d] > p->count[d])
            j->khi[d] = p->count[d];
        if (j->klo[d] >= j->khi[d])
            return 0;
        inext = p->ext[d] - co < p->cd[d] ? p->ext[d] - co : p->cd[d];
        if (inext < p->cd[d])
            j->edge = 1;
        if (j->khi[d] - j->klo[d] != inext)
            j->full = 0;
        /* Contiguous in the caller's buffer: the chunk spans the whole
         * request along every dimension after the first. */
        if (p->stride[d] != 1 || (d > 0 && (p->count[d] != p->cd[d] || p->start[d] != co)))
            contiguous = 0;
        j->uoff += (size_t)j->klo[d] * p->ustride[d];
    }
    j->direct = contiguous && j->full && !j->edge;
    return 1;
}

/* ---- per-thread buffers ------------------------------------------------------------
 * A raw chunk and a decoded chunk per pool thread (the engine's scratch),
 * grow-only, reused by every request: memory is a few chunks per thread
 * whatever the request, and steady-state requests touch no fresh pages. */

/* Raw bytes of chunk j into this thread's raw scratch (j->allocated = 0 if
 * never written).  Locked. */
static int
read_raw(const plan *p, cjob *j)
{
    unsigned char *raw;
    hsize_t nb = 0;
    uint32_t mask = 0;
    j->allocated = 0;
    if (H5Dget_chunk_storage_size(p->did, j->off, &nb) < 0 || nb == 0)
        return NC_NOERR;
    /* The size comes from the chunk index: a damaged one may say 4 GiB.
     * A chunk lies inside the file (which a writer may have grown since
     * the plan was made: asked again before giving up). */
    if (nb > p->fsize) {
        hid_t fid = H5Iget_file_id(p->did);
        hsize_t now = 0;
        if (fid >= 0) {
            (void)H5Fget_filesize(fid, &now);
            H5Fclose(fid);
        }
        if (nb > now)
            return NC_EHDFERR;
    }
    if (nb > SIZE_MAX / 2)
        return NC_EHDFERR;
    if ((raw = ncc_scratch(NCC_SCRATCH_RAW, (size_t)nb)) == NULL)
        return NC_ENOMEM;
    if (H5Dread_chunk(p->did, H5P_DEFAULT, j->off, &mask, raw) < 0)
        return NC_EHDFERR;
    if (p->writable) {
        /* HDF5 1.10.8's H5Dread_chunk can report a stale filter mask for a
         * chunk rewritten (H5Dwrite_chunk) with another one -- an optional
         * filter such as szip skipped one time and not the next -- when
         * chunks were visited in some orders (so: now and then with two
         * threads).  The chunk index has the right one. */
        unsigned fm = 0;
        haddr_t addr = HADDR_UNDEF;
        hsize_t sz = 0;
        if (H5Dget_chunk_info_by_coord(p->did, j->off, &fm, &addr, &sz) < 0)
            return NC_EHDFERR;
        mask = fm;
    }
    j->raw = raw;
    j->rawlen = (size_t)nb;
    j->mask = mask;
    j->allocated = 1;
    return NC_NOERR;
}

/* A codec's failure as HDF5's own pipeline would report it. */
static int
codec_status(int stat)
{
    return stat == NC_EFILTER ? NC_EHDFERR : stat;
}

typedef struct run_ctx {
    plan *p;
    _Atomic int status;      /* first failure; later tasks skip their work */
} run_ctx;

static void
fail(run_ctx *c, int stat)
{
    int expect = NC_NOERR;
    if (stat)
        atomic_compare_exchange_strong(&c->status, &expect, stat);
}

/* One chunk per task; the task takes the HDF5 lock only around its own
 * raw read (and write), so one thread's I/O overlaps the others' codec
 * work. */
static void
read_task(void *arg, size_t i)
{
    run_ctx *c = arg;
    plan *p = c->p;
    cjob j;
    unsigned char *src;
    int stat;

    if (atomic_load(&c->status) || !chunk_at(p, i, &j))
        return;
    nc4h5_lock();
    stat = read_raw(p, &j);
    nc4h5_unlock();
    if (stat) {
        fail(c, stat);
        return;
    }
    if (!j.allocated) {
        if (p->fill_never)
            return;
        src = p->fillchunk;
    } else if (j.direct) {
        fail(c, codec_status(ncf_chain_decode(p->chain, j.mask, j.raw, j.rawlen,
                                              p->user + j.uoff * p->size, p->cbytes)));
        return;
    } else {
        if ((src = ncc_scratch(NCC_SCRATCH_CHUNK, p->cbytes)) == NULL) {
            fail(c, NC_ENOMEM);
            return;
        }
        if ((stat = codec_status(ncf_chain_decode(p->chain, j.mask, j.raw, j.rawlen, src, p->cbytes)))) {
            fail(c, stat);
            return;
        }
    }
    copy_sel(p, &j, src, 1);
}

/* ---- the write-back cache of decoded chunks ----------------------------------------
 * Per variable, on its NC4H5_var (made on first use, dropped with the var
 * or when its dataset id changes); every use happens under the HDF5 lock.
 * Entries are the engine's (ncc_cache: found by chunk index, LRU order); a
 * cache holds at most c.max decoded chunks (the variable's chunk-cache
 * bytes and slots, as HDF5 would hold them), least recently used first
 * out.  Pool tasks touch only the chunk buffers and entries of the request
 * they serve; the index is not changed while they run.  An entry's loading
 * flag: its contents are still to be read in by a task; its stamp: the
 * last request that used it. */
typedef struct vcache {
    NC4H5_var *key;
    hid_t did;                       /* key->did when made: another is a remade dataset */
    NC4_var *var;
    int nd;
    hsize_t cd[H5S_MAX_RANK];
    size_t cbytes;
    ncc_cache c;                     /* entries; c.max: the bound */
    ncf_chain *chain;
    int have_tmpl;                   /* tmpl holds a sparse read's plan */
    plan tmpl;                       /* what a sparse read of var needs, without the
                                      * request (no chain, fill chunk or buffer) */
} vcache;

static unsigned long req_stamp;

static void vc_free(vcache *vc);

/* hv's cache.  One made for another dataset id (the dataset was remade)
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
e_free(ncc_entry *e)
{
    if (e) {
        free(e->data);
        free(e);
    }
}

/* Discard every entry (nothing written). */
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
    free(vc);
}

/* Chunks var's cache may hold, for chunks of cbytes: HDF5's rule (a chunk
 * larger than the cache is not cached), bounded by the slots too. */
static size_t
cache_cap(const NC4_var *var, size_t cbytes)
{
    size_t n = cbytes ? var->cache_size / cbytes : 0;
    return n < var->cache_nelems ? n : var->cache_nelems;
}

/* ---- writing chunks out ----------------------------------------------------------- */

/* Encode a whole decoded chunk and write it at off.  No lock held; takes it
 * for the write. */
static int
put_chunk(hid_t did, const ncf_chain *chain, const hsize_t *off, const unsigned char *src, size_t cbytes)
{
    void *out = NULL;
    size_t outlen = 0;
    unsigned int outmask = 0;
    int stat;
    if ((stat = codec_status(ncf_chain_encode(chain, src, cbytes, &out, &outlen, &outmask))))
        return stat;
    nc4h5_lock();
    if (H5Dwrite_chunk(did, H5P_DEFAULT, outmask, off, outlen, out) < 0)
        stat = NC_EHDFERR;
    nc4h5_unlock();
    free(out);
    return stat;
}

/* Chunk j of the request, written from the caller's data (wholly covered)
 * or by read-modify-write (partly covered, no cache). */
static void
write_uncached(run_ctx *c, cjob *j)
{
    plan *p = c->p;
    const unsigned char *src;
    int stat = NC_NOERR;

    if (!j->full) {
        nc4h5_lock();
        stat = read_raw(p, j);
        nc4h5_unlock();
        if (stat) {
            fail(c, stat);
            return;
        }
    }
    if (j->direct) {
        src = p->user + j->uoff * p->size;
    } else {
        unsigned char *b = ncc_scratch(NCC_SCRATCH_CHUNK, p->cbytes);
        if (b == NULL) {
            fail(c, NC_ENOMEM);
            return;
        }
        if (!j->full && j->allocated) {
            if ((stat = codec_status(ncf_chain_decode(p->chain, j->mask, j->raw, j->rawlen, b, p->cbytes)))) {
                fail(c, stat);
                return;
            }
        } else if (!j->full || j->edge) {
            /* New chunk, or the padding of an edge chunk: fill values, as
             * HDF5 initializes a chunk it creates. */
            memcpy(b, p->fillchunk, p->cbytes);
        }
        copy_sel(p, j, b, 0);
        src = b;
    }
    fail(c, put_chunk(p->did, p->chain, j->off, src, p->cbytes));
}

static void
write_task(void *arg, size_t i)
{
    run_ctx *c = arg;
    cjob j;
    if (atomic_load(&c->status) || !chunk_at(c->p, i, &j))
        return;
    write_uncached(c, &j);
}

/* Tasks of a cached write: first the evicted dirty chunks (encode, write),
 * then the chunks of the request -- wholly covered ones straight out,
 * partly covered ones merged into their cached copy (read in first when
 * new to the cache). */
typedef struct cw_ctx {
    run_ctx rc;
    vcache *vc;
    ncc_entry **ev;
    size_t nev;
} cw_ctx;

static void
cached_task(void *arg, size_t i)
{
    cw_ctx *c = arg;
    plan *p = c->rc.p;
    cjob j;
    ncc_entry *e;
    int stat;

    if (atomic_load(&c->rc.status))
        return;
    if (i < c->nev) {
        hsize_t off[H5S_MAX_RANK];
        idx_off(c->vc, c->ev[i]->idx, off);
        if ((stat = put_chunk(p->did, p->chain, off, c->ev[i]->data, p->cbytes)))
            fail(&c->rc, stat);
        else
            c->ev[i]->dirty = 0;
        return;
    }
    if (!chunk_at(p, i - c->nev, &j))
        return;
    if (j.full) {
        write_uncached(&c->rc, &j);
        return;
    }
    e = e_find(c->vc, j.off);
    if (e->loading) {
        nc4h5_lock();
        stat = read_raw(p, &j);
        nc4h5_unlock();
        if (!stat && j.allocated)
            stat = codec_status(ncf_chain_decode(p->chain, j.mask, j.raw, j.rawlen, e->data, p->cbytes));
        else if (!stat)
            memcpy(e->data, p->fillchunk, p->cbytes);
        if (stat) {
            fail(&c->rc, stat);
            return;
        }
        e->loading = 0;
    }
    copy_sel(p, &j, e->data, 0);
}

static size_t
plan_grid(plan *p)
{
    size_t nchunks = 1;
    for (int d = 0; d < p->nd; d++) {
        p->clo[d] = p->start[d] / p->cd[d];
        p->grid[d] = (size_t)((p->start[d] + (p->count[d] - 1) * p->stride[d]) / p->cd[d] - p->clo[d] + 1);
        nchunks *= p->grid[d];
    }
    return nchunks;
}

/* Run ntasks of fn on the pool with the HDF5 lock released (whatever the
 * caller's nesting: the tasks take it themselves). */
static void
pool_run(size_t ntasks, ncf_task_fn fn, void *ctx)
{
    int holds = nc4h5_lock_release();
    ncf_pool_run(ncf_pool_default(), ntasks, fn, ctx);
    nc4h5_lock_reacquire(holds);
}

/* Run the request: one pool task per touched chunk.  Locked. */
static int
run(plan *p, int writing)
{
    run_ctx ctx;
    size_t nchunks = plan_grid(p);
    int stat;
    if (writing && (stat = plan_fill(p)))
        return stat;
    ctx.p = p;
    atomic_init(&ctx.status, NC_NOERR);
    pool_run(nchunks, writing ? write_task : read_task, &ctx);
    return atomic_load(&ctx.status);
}

/* Write back the dirty chunks of vc (all of them, in one batch on the
 * pool); drop: free the cache too.  Locked. */
typedef struct wb_ctx {
    hid_t did;
    const vcache *vc;
    ncc_entry **list;
    _Atomic int status;
} wb_ctx;

static void
wb_task(void *arg, size_t i)
{
    wb_ctx *c = arg;
    int stat, expect = NC_NOERR;
    hsize_t off[H5S_MAX_RANK];
    if (atomic_load(&c->status))
        return;
    idx_off(c->vc, c->list[i]->idx, off);
    if ((stat = put_chunk(c->did, c->vc->chain, off, c->list[i]->data, c->vc->cbytes)))
        atomic_compare_exchange_strong(&c->status, &expect, stat);
    else
        c->list[i]->dirty = 0;
}

static int
vc_writeback(vcache *vc, int drop)
{
    wb_ctx c;
    size_t n = 0;
    int stat = NC_NOERR;

    for (ncc_entry *e = vc->c.head; e; e = e->next)
        n += e->dirty;
    if (n > 0) {
        NC4H5_var *hv = vc->key;
        if ((c.list = malloc(n * sizeof(*c.list))) == NULL)
            return NC_ENOMEM;
        n = 0;
        for (ncc_entry *e = vc->c.head; e; e = e->next)
            if (e->dirty)
                c.list[n++] = e;
        if ((stat = nc4h5_var_open_dataset(vc->var)) == NC_NOERR) {
            c.did = hv->did;
            c.vc = vc;
            atomic_init(&c.status, NC_NOERR);
            pool_run(n, wb_task, &c);
            stat = atomic_load(&c.status);
        }
        free(c.list);
    }
    if (drop) {
        /* Dirty chunks dropped unwritten: remembered (see cached_write). */
        if (stat)
            ((NC4H5_var *)vc->key)->write_lost = 1;
        vc_free(vc);
    }
    return stat;
}

/* The cached write of p (its var's cache vc).  *fits = 0 when the request
 * has more partly covered chunks than the cache holds: nothing done. */
static int
cached_write(plan *p, vcache *vc, int *fits)
{
    size_t nchunks = plan_grid(p), npart = 0, nev = 0, nfull = 0, nload = 0, target;
    unsigned long stamp = ++req_stamp;
    ncc_entry **ev = NULL;
    cw_ctx c;
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
            if (j.edge && (stat = plan_fill(p)))
                return stat;
            if (e)
                free(ncc_cache_unlink(&vc->c, e));
            continue;
        }
        if (e == NULL) {
            unsigned char *buf = malloc(p->cbytes);
            if (buf == NULL)
                return NC_ENOMEM;
            if ((stat = plan_fill(p)) || (stat = e_insert(vc, j.off, buf, &e))) {
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
    c.rc.p = p;
    atomic_init(&c.rc.status, NC_NOERR);
    c.vc = vc;
    c.ev = ev;
    c.nev = nev;
    /* Only merges into cached chunks (a row into chunks already loaded):
     * copies too small to hand to other threads. */
    if (nev + nfull + nload > 0)
        pool_run(nev + nchunks, cached_task, &c);
    else
        ncf_pool_run(NULL, nchunks, cached_task, &c);
    stat = atomic_load(&c.rc.status);
    /* An evicted chunk that did not reach the file (a full disk) held data
     * earlier calls were told was written.  It is not retried (HDF5 1.10
     * can crash rewriting a chunk whose write failed): the loss is
     * remembered, and every later sync and close report it. */
    for (size_t i = 0; i < nev; i++) {
        if (ev[i]->dirty)
            ((NC4H5_var *)vc->key)->write_lost = 1;
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

/* var's cache for plan p, made on first use; NULL when the variable's
 * chunk-cache settings hold no chunk of this size. */
static int
vc_get(NC4_var *var, plan *p, vcache **vcp)
{
    NC4H5_var *hv = var->fmt;
    vcache *vc = vc_find(hv);
    size_t cap = cache_cap(var, p->cbytes);

    *vcp = NULL;
    if (vc && (vc->c.max != cap || vc->cbytes != p->cbytes)) {
        int stat = vc_writeback(vc, 1);
        vc = NULL;
        if (stat)
            return stat;
    }
    if (vc == NULL) {
        if (cap == 0)
            return NC_NOERR;
        if ((vc = calloc(1, sizeof(*vc))) == NULL || ncc_cache_init(&vc->c, p->nd, cap)) {
            free(vc);
            return NC_ENOMEM;
        }
        vc->key = hv;
        vc->did = hv->did;
        vc->var = var;
        vc->nd = p->nd;
        memcpy(vc->cd, p->cd, sizeof(vc->cd));
        vc->cbytes = p->cbytes;
        /* The cache keeps the request's chain for its write-backs. */
        vc->chain = p->chain;
        p->chain = NULL;
        hv->chunks = vc;
    }
    if (p->chain == NULL) {
        /* Tasks of this request use the cache's chain (same filters). */
        p->chain = vc->chain;
        p->chain_borrowed = 1;
    }
    *vcp = vc;
    return NC_NOERR;
}

/* Decode chunk j (its raw bytes read) into a new entry of vc, evicting
 * the least recently used clean chunks over the bound.  Locked. */
static int
vc_load(vcache *vc, const plan *p, const cjob *j, unsigned long stamp, ncc_entry **ep)
{
    ncc_entry *e;
    unsigned char *buf = malloc(p->cbytes);
    int stat;
    if (buf == NULL)
        return NC_ENOMEM;
    if ((stat = codec_status(ncf_chain_decode(p->chain, j->mask, j->raw, j->rawlen, buf, p->cbytes))) ||
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
 * Without a cache (settings too small for a chunk) every read decodes.
 * Locked. */
static int
cached_read(plan *p, NC4_var *var)
{
    size_t nchunks = plan_grid(p);
    unsigned long stamp = ++req_stamp;
    vcache *vc = NULL;
    cjob j;
    int stat;

    if (var != NULL && (stat = vc_get(var, p, &vc)))
        return stat;
    if (vc != NULL && !vc->have_tmpl) {
        /* The next sparse reads of var start from this plan (sparse_plan). */
        vc->tmpl = *p;
        vc->tmpl.chain = NULL;
        vc->tmpl.chain_borrowed = 0;
        vc->tmpl.fillchunk = NULL;
        vc->tmpl.user = NULL;
        vc->have_tmpl = 1;
    }
    for (size_t i = 0; i < nchunks; i++) {
        ncc_entry *e;
        unsigned char *src;
        if (!chunk_at(p, i, &j))
            continue;
        if (vc != NULL && (e = e_find(vc, j.off)) != NULL) {
            ncc_cache_touch(&vc->c, e);
            e->stamp = stamp;
            copy_sel(p, &j, e->data, 1);
            continue;
        }
        if ((stat = read_raw(p, &j)))
            return stat;
        if (!j.allocated) {
            if (p->fill_never)
                continue;
            if ((stat = plan_fill(p)))
                return stat;
            src = p->fillchunk;
        } else if (vc != NULL) {
            if ((stat = vc_load(vc, p, &j, stamp, &e)))
                return stat;
            src = e->data;
        } else {
            if ((src = ncc_scratch(NCC_SCRATCH_CHUNK, p->cbytes)) == NULL)
                return NC_ENOMEM;
            if ((stat = codec_status(ncf_chain_decode(p->chain, j.mask, j.raw, j.rawlen, src,
                                                      p->cbytes))))
                return stat;
        }
        copy_sel(p, &j, src, 1);
    }
    return NC_NOERR;
}

/* The plan of a sparse read of var from the one its cache keeps: what
 * plan_init asks HDF5 (filters, chunk shape, types, fill value, intent)
 * does not change while the cache lives (a dataset remade or refiltered is
 * a new id, which drops the cache), and asking costs more than decoding a
 * cached value.  0 when there is none or the request is not sparse. */
static int
sparse_plan(NC4_var *var, int nd, const hsize_t *start, const hsize_t *count,
            const hsize_t *stride, size_t size, plan *p)
{
    const char *env = getenv(NC4H5_PIPELINE_ENV);
    vcache *vc = var && var->fmt ? vc_find((NC4H5_var *)var->fmt) : NULL;
    double want = 1, touched = 1;
    if (vc == NULL || !vc->have_tmpl || vc->tmpl.nd != nd || vc->tmpl.size != size ||
        vc->c.max != cache_cap(var, vc->cbytes) || (env != NULL && strcmp(env, "0") == 0))
        return 0;
    for (int d = 0; d < nd; d++) {
        hsize_t cd = vc->tmpl.cd[d];
        if (count[d] == 0 || stride[d] == 0)
            return 0;
        want *= (double)count[d];
        touched *= (double)((start[d] + (count[d] - 1) * stride[d]) / cd - start[d] / cd + 1) *
                   (double)cd;
    }
    if (want * SPARSE >= touched)
        return 0;
    *p = vc->tmpl;
    for (int d = 0; d < nd; d++) {
        p->start[d] = start[d];
        p->count[d] = count[d];
        p->stride[d] = stride[d];
        /* The caller keeps requests inside the extent; ext only marks edge
         * chunks, which reads do not need. */
        p->ext[d] = (hsize_t)-1;
    }
    p->ustride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--)
        p->ustride[d] = p->ustride[d + 1] * (size_t)count[d + 1];
    p->chain = vc->chain;
    p->chain_borrowed = 1;
    return 1;
}

int
nc4h5_chunk_read(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start,
                 const hsize_t *count, const hsize_t *stride, size_t size, void *out, int *done)
{
    plan p;
    int stat;
    *done = 0;
    if (sparse_plan(var, nd, start, count, stride, size, &p)) {
        *done = 1;
        p.user = out;
        stat = cached_read(&p, var);
        plan_free(&p);
        return stat;
    }
    if ((stat = plan_init(&p, did, mtid, nd, start, count, stride, size, 1, 0, done)) || !*done)
        return stat;
    p.user = out;
    stat = p.sparse ? cached_read(&p, var) : run(&p, 0);
    plan_free(&p);
    return stat;
}

int
nc4h5_chunk_write(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start,
                  const hsize_t *count, const hsize_t *stride, size_t size, const void *in,
                  int *done)
{
    plan p;
    vcache *vc = NULL;
    int stat, fits = 0;
    *done = 0;
    if ((stat = plan_init(&p, did, mtid, nd, start, count, stride, size, 0,
                          var->cache_nelems ? var->cache_size : 0, done)) || !*done)
        return stat;
    /* Only read from; the copies go one way (scatter into chunk buffers). */
    p.user = (unsigned char *)(uintptr_t)in;
    if ((stat = vc_get(var, &p, &vc)) == NC_NOERR && vc)
        stat = cached_write(&p, vc, &fits);
    if (stat == NC_NOERR && !fits) {
        /* No cache, or more partly covered chunks than it holds: whatever
         * it has goes out first, then read-modify-write chunk by chunk. */
        if (vc) {
            /* Dirty chunks dropped unwritten: remembered (see cached_write). */
            if ((stat = vc_writeback(vc, 0)))
                ((NC4H5_var *)vc->key)->write_lost = 1;
            if (p.chain_borrowed) {
                /* The plan keeps the chain the cache had taken from it. */
                vc->chain = NULL;
                p.chain_borrowed = 0;
            }
            vc_free(vc);
        }
        if (stat == NC_NOERR)
            stat = run(&p, 1);
    }
    plan_free(&p);
    return stat;
}

int
nc4h5_chunk_cache_flush(NC4_var *var, int drop)
{
    vcache *vc = var->fmt ? vc_find((NC4H5_var *)var->fmt) : NULL;
    return vc ? vc_writeback(vc, drop) : NC_NOERR;
}

int
nc4h5_chunk_cache_flush_file(NC4_file *f)
{
    int stat = NC_NOERR, s;
    /* By the file's own variables: a cache is trusted only through a live
     * var (see vc_find).  Write-backs release the lock; other threads may
     * then change the table, never this file's caches.  Data once lost to
     * a failed write keeps every later sync and close failing. */
    for (size_t i = 0; i < f->ngrps; i++) {
        NC4_grp *g = f->grps[i];
        for (size_t j = 0; j < g->vars.n; j++) {
            NC4_var *v = (NC4_var *)g->vars.items[j];
            NC4H5_var *hv = v->fmt;
            vcache *vc = hv ? vc_find(hv) : NULL;
            if (vc && (s = vc_writeback(vc, 1)) && !stat)
                stat = s;
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
