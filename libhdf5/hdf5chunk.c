/* hdf5chunk.c: the parallel chunk pipeline (see hdf5chunk.h).
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
    unsigned char *fillchunk;        /* a whole chunk of fill values */
    int fill_never;                  /* fill time "never": unwritten chunks read as nothing */
    unsigned char *user;             /* the caller's buffer */
    int serial;                      /* run the tasks in the calling thread only */
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

static void
gather(unsigned char *dst, const unsigned char *src, size_t n, size_t step, size_t size)
{
    if (step == 1) {
        memcpy(dst, src, n * size);
        return;
    }
    switch (size) {
    case 1:
        for (size_t i = 0; i < n; i++) dst[i] = src[i * step];
        break;
    case 2:
        for (size_t i = 0; i < n; i++) memcpy(dst + 2 * i, src + i * step * 2, 2);
        break;
    case 4:
        for (size_t i = 0; i < n; i++) memcpy(dst + 4 * i, src + i * step * 4, 4);
        break;
    case 8:
        for (size_t i = 0; i < n; i++) memcpy(dst + 8 * i, src + i * step * 8, 8);
        break;
    default:
        for (size_t i = 0; i < n; i++) memcpy(dst + i * size, src + i * step * size, size);
    }
}

static void
scatter(unsigned char *dst, const unsigned char *src, size_t n, size_t step, size_t size)
{
    if (step == 1) {
        memcpy(dst, src, n * size);
        return;
    }
    switch (size) {
    case 1:
        for (size_t i = 0; i < n; i++) dst[i * step] = src[i];
        break;
    case 2:
        for (size_t i = 0; i < n; i++) memcpy(dst + i * step * 2, src + 2 * i, 2);
        break;
    case 4:
        for (size_t i = 0; i < n; i++) memcpy(dst + i * step * 4, src + 4 * i, 4);
        break;
    case 8:
        for (size_t i = 0; i < n; i++) memcpy(dst + i * step * 8, src + 8 * i, 8);
        break;
    default:
        for (size_t i = 0; i < n; i++) memcpy(dst + i * step * size, src + i * size, size);
    }
}

/* Move the selected elements of chunk j between chunk (its decoded bytes)
 * and the caller's buffer, one row of the last dimension at a time. */
static void
copy_sel(const plan *p, const cjob *j, unsigned char *chunk, int to_user)
{
    int nd = p->nd, last = nd - 1;
    size_t n = (size_t)(j->khi[last] - j->klo[last]), step = (size_t)p->stride[last];
    hsize_t k[H5S_MAX_RANK];

    for (int d = 0; d < nd; d++)
        k[d] = j->klo[d];
    for (;;) {
        size_t coff = 0, uoff = 0;
        for (int d = 0; d < nd; d++) {
            coff += (size_t)(p->start[d] + k[d] * p->stride[d] - j->off[d]) * p->cstride[d];
            uoff += (size_t)k[d] * p->ustride[d];
        }
        if (to_user)
            gather(p->user + uoff * p->size, chunk + coff * p->size, n, step, p->size);
        else
            scatter(chunk + coff * p->size, p->user + uoff * p->size, n, step, p->size);
        int d = nd - 2;
        for (; d >= 0; d--) {
            if (++k[d] < j->khi[d])
                break;
            k[d] = j->klo[d];
        }
        if (d < 0)
            break;
    }
}

/* ---- plan ------------------------------------------------------------------------ */

static void
plan_free(plan *p)
{
    ncf_chain_free(p->chain);
    free(p->fillchunk);
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

/* Set up p for did; *usable = 0 when the request is HDF5's.  Locked. */
static int
plan_init(plan *p, hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
          const hsize_t *stride, size_t size, int reading, int *usable)
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
        /* libaec's szip coder fails now and then when two threads run it at
         * once (seen on Debian's libaec 1.0.6): szip chains run serially. */
        if (id == H5Z_FILTER_SZIP)
            p->serial = 1;
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
    if (want * SPARSE < touched)
        goto done;
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
    if ((p->fillchunk = malloc(p->cbytes)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    memset(p->fillchunk, 0, size);
    if (!p->fill_never && H5Pget_fill_value(dcpl, mtid, p->fillchunk) < 0)
        memset(p->fillchunk, 0, size);
    for (size_t filled = 1; filled < p->celems;) {
        size_t n = filled <= p->celems - filled ? filled : p->celems - filled;
        memcpy(p->fillchunk + filled * size, p->fillchunk, n * size);
        filled += n;
    }
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
 * A raw chunk and a decoded chunk per pool thread, grow-only, reused by
 * every request: memory is a few chunks per thread whatever the request,
 * and steady-state requests touch no fresh pages (each costs a fault). */
typedef struct tbufs {
    unsigned char *raw, *buf;
    size_t rawcap, bufcap;
} tbufs;

static pthread_key_t tbufs_key;
static pthread_once_t tbufs_once = PTHREAD_ONCE_INIT;
static int tbufs_ok;

static void
tbufs_free(void *v)
{
    tbufs *t = v;
    if (t) {
        free(t->raw);
        free(t->buf);
        free(t);
    }
}

static void
tbufs_init(void)
{
    tbufs_ok = pthread_key_create(&tbufs_key, tbufs_free) == 0;
}

static tbufs *
tbufs_get(void)
{
    tbufs *t;
    pthread_once(&tbufs_once, tbufs_init);
    if (!tbufs_ok)
        return NULL;
    if ((t = pthread_getspecific(tbufs_key)) == NULL) {
        if ((t = calloc(1, sizeof(*t))) == NULL)
            return NULL;
        if (pthread_setspecific(tbufs_key, t) != 0) {
            free(t);
            return NULL;
        }
    }
    return t;
}

static unsigned char *
grow(unsigned char **bp, size_t *capp, size_t n)
{
    if (*capp < n) {
        unsigned char *b = malloc(n);
        if (b == NULL)
            return NULL;
        free(*bp);
        *bp = b;
        *capp = n;
    }
    return *bp;
}

/* Raw bytes of chunk j into t->raw (j->allocated = 0 if never written).
 * Locked. */
static int
read_raw(const plan *p, cjob *j, tbufs *t)
{
    hsize_t nb = 0;
    uint32_t mask = 0;
    j->allocated = 0;
    if (H5Dget_chunk_storage_size(p->did, j->off, &nb) < 0 || nb == 0)
        return NC_NOERR;
    if (nb > SIZE_MAX / 2)
        return NC_EHDFERR;
    if (grow(&t->raw, &t->rawcap, (size_t)nb) == NULL)
        return NC_ENOMEM;
    if (H5Dread_chunk(p->did, H5P_DEFAULT, j->off, &mask, t->raw) < 0)
        return NC_EHDFERR;
    j->raw = t->raw;
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
    tbufs *t;
    unsigned char *src;
    int stat;

    if (atomic_load(&c->status) || !chunk_at(p, i, &j))
        return;
    if ((t = tbufs_get()) == NULL) {
        fail(c, NC_ENOMEM);
        return;
    }
    nc4h5_lock();
    stat = read_raw(p, &j, t);
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
        if ((src = grow(&t->buf, &t->bufcap, p->cbytes)) == NULL) {
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

static void
write_task(void *arg, size_t i)
{
    run_ctx *c = arg;
    plan *p = c->p;
    cjob j;
    tbufs *t;
    const unsigned char *src;
    void *out = NULL;
    size_t outlen = 0;
    unsigned int outmask = 0;
    int stat = NC_NOERR;

    if (atomic_load(&c->status) || !chunk_at(p, i, &j))
        return;
    if ((t = tbufs_get()) == NULL) {
        fail(c, NC_ENOMEM);
        return;
    }
    if (!j.full) {
        nc4h5_lock();
        stat = read_raw(p, &j, t);
        nc4h5_unlock();
        if (stat) {
            fail(c, stat);
            return;
        }
    }
    if (j.direct) {
        src = p->user + j.uoff * p->size;
    } else {
        unsigned char *b = grow(&t->buf, &t->bufcap, p->cbytes);
        if (b == NULL) {
            fail(c, NC_ENOMEM);
            return;
        }
        if (!j.full && j.allocated) {
            if ((stat = codec_status(ncf_chain_decode(p->chain, j.mask, j.raw, j.rawlen, b, p->cbytes)))) {
                fail(c, stat);
                return;
            }
        } else if (!j.full || j.edge) {
            /* New chunk, or the padding of an edge chunk: fill values, as
             * HDF5 initializes a chunk it creates. */
            memcpy(b, p->fillchunk, p->cbytes);
        }
        copy_sel(p, &j, b, 0);
        src = b;
    }
    if ((stat = codec_status(ncf_chain_encode(p->chain, src, p->cbytes, &out, &outlen, &outmask)))) {
        fail(c, stat);
        return;
    }
    nc4h5_lock();
    if (H5Dwrite_chunk(p->did, H5P_DEFAULT, outmask, j.off, outlen, out) < 0)
        stat = NC_EHDFERR;
    nc4h5_unlock();
    free(out);
    fail(c, stat);
}

/* Run the request: one pool task per touched chunk.  Called with the HDF5
 * lock held once (the data slots); released while the pool runs. */
static int
run(plan *p, int writing)
{
    run_ctx ctx;
    size_t nchunks = 1;

    for (int d = 0; d < p->nd; d++) {
        p->clo[d] = p->start[d] / p->cd[d];
        p->grid[d] = (size_t)((p->start[d] + (p->count[d] - 1) * p->stride[d]) / p->cd[d] - p->clo[d] + 1);
        nchunks *= p->grid[d];
    }
    ctx.p = p;
    atomic_init(&ctx.status, NC_NOERR);
    nc4h5_unlock();
    ncf_pool_run(p->serial ? NULL : ncf_pool_default(), nchunks, writing ? write_task : read_task, &ctx);
    nc4h5_lock();
    return atomic_load(&ctx.status);
}

int
nc4h5_chunk_read(hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
                 const hsize_t *stride, size_t size, void *out, int *done)
{
    plan p;
    int stat;
    *done = 0;
    if ((stat = plan_init(&p, did, mtid, nd, start, count, stride, size, 1, done)) || !*done)
        return stat;
    p.user = out;
    stat = run(&p, 0);
    plan_free(&p);
    return stat;
}

int
nc4h5_chunk_write(hid_t did, hid_t mtid, int nd, const hsize_t *start, const hsize_t *count,
                  const hsize_t *stride, size_t size, const void *in, int *done)
{
    plan p;
    int stat;
    *done = 0;
    if ((stat = plan_init(&p, did, mtid, nd, start, count, stride, size, 0, done)) || !*done)
        return stat;
    /* Only read from; the copies go one way (scatter into chunk buffers). */
    p.user = (unsigned char *)(uintptr_t)in;
    stat = run(&p, 1);
    plan_free(&p);
    return stat;
}
