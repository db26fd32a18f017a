/* ncc_engine.c: reads, writes and the write-back of a chunked variable
 * through its format's table (see ncchunk.h).
 *
 * Read: the chunks a selection touches go a batch at a time: the format
 * fetches their raw bytes (several at once, or each from its own pool
 * task), then a pool task per chunk decodes it and copies its part into the
 * caller's buffer (decoding straight into that buffer when the chunk is one
 * run of it).  Cached chunks are copied from the cache; chunks not stored
 * are copied from a chunk of fill.  A format that fetches several chunks at
 * once gets a large batch asked in waves, the next wave fetched while the
 * pool decodes the last.
 * Write: whole chunks the cache does not hold are encoded from the caller's
 * data, NCC_DIRECT_BATCH at a time on the pool; parts of chunks it does not
 * hold go into the stored chunk in place when the format can (write_runs);
 * the others are merged into cache entries.  A full cache writes every
 * dirty chunk in one batch and keeps the newer half. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "ncchunk.h"
#include "ncx.h"

/* ---- the variable ------------------------------------------------------------------- */

int
ncc_var_init(ncc_var *v, const ncc_grid *g, int vstr, const void *fill, int keepall, size_t max,
             const ncc_ops *ops, void *fmt)
{
    memset(v, 0, sizeof(*v));
    v->g = *g;
    v->vstr = vstr;
    v->fill = fill;
    v->keepall = keepall;
    v->ops = ops;
    v->fmt = fmt;
    v->zerofill = !vstr;
    for (size_t i = 0; i < g->esize && v->zerofill; i++)
        v->zerofill = v->fill[i] == 0;
    pthread_mutex_init(&v->filllock, NULL);
    pthread_mutex_init(&v->lrulock, NULL);
    if (ncc_cache_init(&v->cache, g->rank, max)) {
        pthread_mutex_destroy(&v->filllock);
        pthread_mutex_destroy(&v->lrulock);
        return NC_ENOMEM;
    }
    return NC_NOERR;
}

/* Free the strings a chunk owns. */
static void
chunk_release(const ncc_var *v, unsigned char *data)
{
    if (v->vstr && data != NULL)
        ncc_strings_free((char **)(void *)data, v->g.chunkelems);
}

/* Drop entry e (unwritten if dirty); its buffer is kept for reuse (lru:
 * freed, as its writes allocate their own). */
static void
entry_drop(ncc_var *v, ncc_entry *e)
{
    unsigned char *data;
    chunk_release(v, e->data);
    if (v->ops->entry_free)
        v->ops->entry_free(v->fmt, e);
    data = ncc_cache_unlink(&v->cache, e);
    if (!v->lru && v->cache.nspare < NCC_SPARE_MAX)
        v->cache.spare[v->cache.nspare++] = data;
    else
        free(data);
}

void
ncc_var_fini(ncc_var *v)
{
    while (v->cache.head)
        entry_drop(v, v->cache.head);
    for (size_t i = 0; i < v->cache.nspare; i++)
        free(v->cache.spare[i]);
    free(v->cache.buckets);
    free(v->fillchunk);
    pthread_mutex_destroy(&v->filllock);
    pthread_mutex_destroy(&v->lrulock);
    memset(&v->cache, 0, sizeof(v->cache));
    v->fillchunk = NULL;
}

const unsigned char *
ncc_fill_chunk(ncc_var *v)
{
    pthread_mutex_lock(&v->filllock);
    if (v->fillchunk == NULL && (v->fillchunk = malloc(v->g.chunkbytes ? v->g.chunkbytes : 1)) != NULL)
        ncc_fill_elems(v->fillchunk, v->g.chunkelems, v->g.esize, v->fill);
    pthread_mutex_unlock(&v->filllock);
    return v->fillchunk;
}

int
ncc_has_dirty(const ncc_var *v)
{
    for (const ncc_entry *e = v->cache.head; e; e = e->next)
        if (e->dirty)
            return 1;
    return 0;
}

static int
chunk_all_fill(const ncc_var *v, const unsigned char *data)
{
    if (v->vstr)
        return ncc_strings_all_fill((char *const *)(const void *)data, v->g.chunkelems,
                                    *(char *const *)(const void *)v->fill);
    return ncc_all_fill(data, v->g.chunkelems, v->g.esize, v->fill);
}

/* ---- storing encoded chunks ----------------------------------------------------------- */

static int
store_job(ncc_var *v, ncc_enc *j)
{
    ncc_put p = {j->key, j->out, j->outlen, j->mask, j->empty, NULL};
    int s = v->ops->store_one(v->fmt, &p);
    if (!j->borrowed)
        free(j->out);
    j->out = NULL;
    return s;
}

/* Encode job j from data (and store it from this task when the format
 * stores from tasks). */
static void
encode_job(ncc_var *v, ncc_enc *j, const unsigned char *data, int may_borrow)
{
    if (!v->keepall && chunk_all_fill(v, data)) {
        j->empty = 1;
    } else if (v->stored_raw && may_borrow) {
        /* Stored as it is in memory: written from the chunk, no copy. */
        j->out = (void *)data;
        j->outlen = v->g.chunkbytes;
        j->borrowed = 1;
    } else if (v->stored_raw) {
        if ((j->out = malloc(v->g.chunkbytes ? v->g.chunkbytes : 1)) == NULL) {
            j->status = NC_ENOMEM;
            return;
        }
        memcpy(j->out, data, v->g.chunkbytes);
        j->outlen = v->g.chunkbytes;
    } else if ((j->status = v->ops->encode(v->fmt, data, v->g.chunkbytes, &j->out, &j->outlen, &j->mask))) {
        return;
    }
    if (v->store_in_task)
        j->status = store_job(v, j);
}

/* Store the encoded jobs (those not failed) with one store_many. */
static void
store_jobs(ncc_var *v, ncc_enc *jobs, size_t n)
{
    ncc_put *puts = calloc(n ? n : 1, sizeof(*puts));
    size_t np = 0;
    if (puts == NULL) {
        for (size_t k = 0; k < n; k++)
            if (jobs[k].status == NC_NOERR)
                jobs[k].status = NC_ENOMEM; /* nothing stored */
        return;
    }
    for (size_t k = 0; k < n; k++)
        if (jobs[k].status == NC_NOERR)
            puts[np++] = (ncc_put){jobs[k].key, jobs[k].out, jobs[k].outlen, jobs[k].mask, jobs[k].empty,
                                   &jobs[k].status};
    if (np > 0)
        (void)v->ops->store_many(v->fmt, np, puts); /* statuses per job */
    free(puts);
}

/* ---- write-back ------------------------------------------------------------------------- */

typedef struct enc_ctx {
    ncc_var *v;
    ncc_enc *jobs;
    ncf_pool *inner; /* pool for a format's own parallel work (one job) */
} enc_ctx;

static void
enc_task(void *arg, size_t i)
{
    enc_ctx *c = arg;
    ncc_enc *j = &c->jobs[i];
    ncc_var *v = c->v;
    if (v->ops->entry_flush) {
        j->status = v->ops->entry_flush(v->fmt, j, NULL, c->inner, v->store_in_task);
        return;
    }
    encode_job(v, j, j->e->data, 1);
}

void
ncc_cache_clear(ncc_var *v)
{
    v->gen++;
    while (v->cache.head)
        entry_drop(v, v->cache.head);
}

int
ncc_flush(ncc_var *v, size_t keep)
{
    size_t ndirty = 0, k = 0;
    int stat = NC_NOERR;
    v->gen++;
    for (ncc_entry *e = v->cache.head; e; e = e->next)
        ndirty += e->dirty != 0;
    if (v->lru) {
        stat = ncc_lru_flush(v);
    } else if (ndirty > 0) {
        ncc_enc *jobs = calloc(ndirty, sizeof(*jobs));
        enc_ctx c;
        if (jobs == NULL)
            return NC_ENOMEM;
        for (ncc_entry *e = v->cache.head; e && stat == NC_NOERR; e = e->next)
            if (e->dirty) {
                jobs[k].e = e;
                stat = v->ops->key(v->fmt, e->idx, &jobs[k].key);
                k++;
            }
        if (stat == NC_NOERR) {
            c.v = v;
            c.jobs = jobs;
            c.inner = ndirty == 1 ? ncf_pool_default() : NULL;
            ncf_pool_run(ncf_pool_default(), ndirty, enc_task, &c);
            if (!v->store_in_task)
                store_jobs(v, jobs, ndirty);
            for (k = 0; k < ndirty; k++) {
                ncc_enc *j = &jobs[k];
                if (j->status == NC_NOERR)
                    j->e->dirty = 0;
                else if (stat == NC_NOERR)
                    stat = j->status;
            }
        }
        for (k = 0; k < ndirty; k++) {
            if (!jobs[k].borrowed)
                free(jobs[k].out);
            free(jobs[k].key);
        }
        free(jobs);
    }
    /* Drop clean entries from the cold end down to keep. */
    for (ncc_entry *e = v->cache.tail, *p; e && v->cache.n > keep; e = p) {
        p = e->prev;
        if (!e->dirty)
            entry_drop(v, e);
    }
    return stat;
}

int
ncc_set_cache(ncc_var *v, size_t max)
{
    v->gen++;
    v->cache.max = max;
    return v->cache.n > max ? ncc_flush(v, max) : NC_NOERR;
}

/* ---- read ------------------------------------------------------------------------------- */

typedef struct rd_job {
    size_t *k0, *nk, *l0;        /* rank entries each (in the batch's index pool) */
    uint64_t *idx;               /* the chunk's grid index (keep_sparse) */
    const unsigned char *cached; /* chunk from the cache */
    int absent;                  /* known absent: fill */
    int direct;                  /* decode straight into the caller's buffer */
    unsigned char *keep;         /* decode here, then into the cache (keep_sparse) */
    int kept;                    /* keep holds the decoded chunk */
    ncc_raw *raw;
    int status;
} rd_job;

typedef struct rd_ctx {
    ncc_var *v;
    const ncc_sel *s;
    unsigned char *out;
    rd_job *jobs;
    ncf_pool *inner;
} rd_ctx;

/* Copy job j's part of chunk into out (strings: copies of them). */
static int
copy_part(const ncc_var *v, const ncc_sel *s, const rd_job *j, const unsigned char *chunk, unsigned char *out)
{
    size_t soff = 0, sstr[NC_MAX_VAR_DIMS];
    for (int k = 0; k < s->rank; k++) {
        soff += j->l0[k] * v->g.cstr[k];
        sstr[k] = s->stride[k] * v->g.cstr[k];
    }
    if (v->vstr)
        return ncc_strings_copy_strided(s->rank, j->nk, (char *const *)(const void *)chunk + soff, sstr,
                                        (char **)(void *)out + ncc_sel_uoff(s, j->k0), s->ustr);
    ncc_copy_strided(s->rank, v->g.esize, j->nk, chunk + soff * v->g.esize, sstr,
                     out + ncc_sel_uoff(s, j->k0) * v->g.esize, s->ustr);
    return NC_NOERR;
}

static int
copy_fill(ncc_var *v, const ncc_sel *s, const rd_job *j, unsigned char *out)
{
    const unsigned char *src = ncc_fill_chunk(v);
    return src == NULL ? NC_ENOMEM : copy_part(v, s, j, src, out);
}

static void
rd_task(void *arg, size_t i)
{
    rd_ctx *c = arg;
    rd_job *j = &c->jobs[i];
    ncc_var *v = c->v;
    ncc_raw *r = j->raw;
    unsigned char *tmp;
    int stat;
    if (j->cached) {
        j->status = copy_part(v, c->s, j, j->cached, c->out);
        return;
    }
    if (j->absent) {
        if (!v->fill_never)
            j->status = copy_fill(v, c->s, j, c->out);
        return;
    }
    if (v->fetch_in_task)
        (void)v->ops->fetch_one(v->fmt, r); /* its status in r */
    if (r->status == NC_EEMPTY) {
        if (!v->fill_never)
            j->status = copy_fill(v, c->s, j, c->out);
        return;
    }
    if (r->status != NC_NOERR) {
        j->status = r->status;
        return;
    }
    if (j->direct) {
        tmp = c->out + ncc_sel_uoff(c->s, j->k0) * v->g.esize;
    } else if (j->keep) {
        tmp = j->keep;
    } else if ((tmp = ncc_scratch(NCC_SCRATCH_CHUNK, v->g.chunkbytes)) == NULL) {
        j->status = NC_ENOMEM;
        return;
    }
    stat = v->ops->decode(v->fmt, r, tmp, v->g.chunkbytes, c->inner);
    if (stat == NC_NOERR && !j->direct) {
        stat = copy_part(v, c->s, j, tmp, c->out);
        if (!j->keep)
            chunk_release(v, tmp); /* the scratch chunk's own strings */
    }
    if (stat == NC_NOERR && j->keep)
        j->kept = 1;
    if (r->owned)
        free(r->data);
    r->data = NULL;
    j->status = stat;
}

static void
raws_clear(ncc_raw *raws, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (raws[i].owned)
            free(raws[i].data);
        free(raws[i].key);
        memset(&raws[i], 0, sizeof(raws[i]));
    }
}

int
ncc_read_keeps(const ncc_var *v, const ncc_sel *s)
{
    return v->keep_sparse > 0 && v->cache.max > 0 && s->n > 0 && ncc_sel_small(&v->g, s, v->keep_sparse);
}

/* A keep buffer the cache does not take (decoded: its strings freed) is
 * kept for reuse.  The lock held alone, or v->lrulock. */
static void
keep_discard(ncc_var *v, unsigned char *data, int decoded)
{
    if (decoded)
        chunk_release(v, data);
    if (v->cache.nspare < NCC_SPARE_MAX)
        v->cache.spare[v->cache.nspare++] = data;
    else
        free(data);
}

/* A chunk a small read decoded goes into the cache as a clean entry; clean
 * entries from the cold end go while the cache is over its bound (dirty
 * ones stay: they are written only by a flush; lru: none the request
 * used).  The lock held alone. */
static void
keep_entry(ncc_var *v, const uint64_t *idx, unsigned char *data)
{
    ncc_entry *e;
    if (ncc_cache_insert(&v->cache, idx, data, &e)) {
        keep_discard(v, data, 1);
        return;
    }
    e->stamp = v->stamp;
    for (ncc_entry *x = v->cache.tail, *pv; x && v->cache.n > v->cache.max; x = pv) {
        pv = x->prev;
        if (!x->dirty && x != e && !(v->lru && x->stamp == v->stamp))
            entry_drop(v, x);
    }
}

static void
keep_chunk(ncc_var *v, rd_job *j)
{
    unsigned char *data = j->keep;
    j->keep = NULL;
    if (j->kept)
        keep_entry(v, j->idx, data);
    else
        keep_discard(v, data, 0);
}

/* ncc_read_shared: job j's decoded chunk goes to kept (room made for the
 * batch), an unused buffer back to the spares. */
static void
keep_hand(ncc_var *v, rd_job *j, ncc_kept *kept)
{
    unsigned char *data = j->keep;
    j->keep = NULL;
    if (j->kept && kept->n < kept->cap) {
        size_t rk = v->g.rank > 0 ? (size_t)v->g.rank : 1;
        memcpy(kept->idx + kept->n * rk, j->idx, rk * sizeof(uint64_t));
        kept->data[kept->n++] = data;
        return;
    }
    pthread_mutex_lock(&v->lrulock);
    keep_discard(v, data, j->kept);
    pthread_mutex_unlock(&v->lrulock);
}

void
ncc_keep_insert(ncc_var *v, ncc_kept *kept)
{
    size_t rk = v->g.rank > 0 ? (size_t)v->g.rank : 1;
    for (size_t i = 0; i < kept->n; i++) {
        unsigned char *data = kept->data[i];
        const uint64_t *idx = kept->idx + i * rk;
        ncc_entry *e;
        kept->data[i] = NULL;
        if (kept->gen != v->gen) {
            keep_discard(v, data, 1); /* the stored chunk may have changed */
        } else if ((e = ncc_cache_find(&v->cache, idx)) != NULL) {
            /* Another read kept it meanwhile: the same bytes. */
            ncc_cache_touch(&v->cache, e);
            e->stamp = v->stamp;
            keep_discard(v, data, 1);
        } else {
            keep_entry(v, idx, data);
        }
    }
    kept->n = 0;
}

void
ncc_kept_free(const ncc_var *v, ncc_kept *kept)
{
    for (size_t i = 0; i < kept->n; i++) {
        chunk_release(v, kept->data[i]);
        free(kept->data[i]);
    }
    free(kept->idx);
    free(kept->data);
    memset(kept, 0, sizeof(*kept));
}

/* Decode jobs[0..n) on the pool (the caller joins in). */
static void
decode_jobs(ncc_var *v, const ncc_sel *s, unsigned char *out, rd_job *jobs, size_t n)
{
    rd_ctx c;
    c.v = v;
    c.s = s;
    c.out = out;
    c.jobs = jobs;
    c.inner = n == 1 && !v->read_serial ? ncf_pool_default() : NULL;
    ncf_pool_run(v->read_serial ? NULL : ncf_pool_default(), n, rd_task, &c);
}

/* A wave of a read: the jobs it decodes, and a thread that decodes them
 * (as a caller of the pool) while the reading thread fetches the next. */
typedef struct rd_wave {
    ncc_var *v;
    const ncc_sel *s;
    unsigned char *out;
    rd_job *jobs;
    size_t n;
    pthread_t th;
} rd_wave;

static void *
wave_main(void *arg)
{
    rd_wave *w = arg;
    decode_jobs(w->v, w->s, w->out, w->jobs, w->n);
    return NULL;
}

/* Raw chunks a batch fetches in waves when the format fetches several at
 * once: wave k+1 is fetched on the calling thread (fetch_many stays there,
 * with whatever locks the caller holds) while a helper thread decodes wave
 * k on the pool, so the wait for the bytes and the decoding overlap.  The
 * first wave is two chunks per pool thread, so decoding starts early; each
 * later one is as large as all before it (the fetch of the next keeps
 * ahead of the decoding of the last), up to a quarter of the batch, so a
 * batch takes about log2(batch / first) + 4 fetches.  A batch of fewer
 * than NCC_WAVE_MIN raw chunks is fetched at once. */
#define NCC_WAVE_MIN 16
#define NCC_WAVE_PARTS 4

/* The end (raw index) of the wave that starts at raw r0 of nraws. */
static size_t
wave_end(size_t r0, size_t nraws, size_t first, size_t cap)
{
    size_t n = r0 == 0 ? first : r0 < cap ? r0 : cap;
    /* A short remainder goes with this wave. */
    if (n > nraws - r0 || nraws - r0 - n < n / 4)
        n = nraws - r0;
    return r0 + n;
}

static int
run_read_waves(ncc_var *v, const ncc_sel *s, unsigned char *out, rd_job *jobs, ncc_raw *raws, size_t njobs,
               size_t nraws)
{
    int nthreads = ncf_pool_default() ? ncf_pool_nthreads(ncf_pool_default()) : 1;
    size_t first = (size_t)nthreads * 2, cap = nraws / NCC_WAVE_PARTS, r0 = 0, r1, j0 = 0, j1;
    rd_wave w;
    int stat = NC_NOERR, running = 0;
    if (first > cap)
        first = cap;
    if (first < 1)
        first = 1;
    memset(&w, 0, sizeof(w));
    w.v = v;
    w.s = s;
    w.out = out;
    r1 = wave_end(0, nraws, first, cap);
    stat = v->ops->fetch_many(v->fmt, r1, raws);
    while (stat == NC_NOERR || stat == NC_EEMPTY) {
        /* The jobs of wave [r0, r1): up to the first job of a later raw
         * (jobs with no raw go with the wave they fall in). */
        for (j1 = j0; j1 < njobs && (jobs[j1].raw == NULL || (size_t)(jobs[j1].raw - raws) < r1); j1++)
            ;
        if (r1 == nraws)
            j1 = njobs;
        w.jobs = jobs + j0;
        w.n = j1 - j0;
        if (r1 == nraws) {
            decode_jobs(v, s, out, w.jobs, w.n);
            stat = NC_NOERR;
            break;
        }
        running = pthread_create(&w.th, NULL, wave_main, &w) == 0;
        if (!running)
            decode_jobs(v, s, out, w.jobs, w.n); /* no thread: one after the other */
        r0 = r1;
        j0 = j1;
        r1 = wave_end(r0, nraws, first, cap);
        stat = v->ops->fetch_many(v->fmt, r1 - r0, raws + r0);
        if (running)
            pthread_join(w.th, NULL);
        running = 0;
    }
    /* A failed fetch: the later waves are not decoded (the batch's error
     * is the fetch's). */
    return stat == NC_EEMPTY ? NC_NOERR : stat;
}

static int
run_read_batch(ncc_var *v, const ncc_sel *s, unsigned char *out, rd_job *jobs, ncc_raw *raws, size_t njobs,
               size_t nraws, ncc_kept *kept)
{
    int stat = NC_NOERR;
    if (nraws >= NCC_WAVE_MIN && !v->fetch_in_task) {
        stat = run_read_waves(v, s, out, jobs, raws, njobs, nraws);
    } else {
        if (nraws > 0 && !v->fetch_in_task)
            stat = v->ops->fetch_many(v->fmt, nraws, raws);
        if (stat == NC_NOERR || stat == NC_EEMPTY) {
            stat = NC_NOERR;
            decode_jobs(v, s, out, jobs, njobs);
        }
    }
    for (size_t i = 0; i < njobs; i++) {
        if (jobs[i].status && stat == NC_NOERR)
            stat = jobs[i].status;
        if (jobs[i].keep && kept)
            keep_hand(v, &jobs[i], kept);
        else if (jobs[i].keep)
            keep_chunk(v, &jobs[i]);
    }
    return stat;
}

/* ncc_read (kept NULL) and ncc_read_shared. */
static int
read_sel(ncc_var *v, const ncc_sel *s, unsigned char *out, ncc_kept *kept)
{
    size_t maxjobs = NCC_BATCH_BYTES / (v->g.chunkbytes ? v->g.chunkbytes : 1), njobs = 0, nraws = 0;
    size_t rk = s->rank > 0 ? (size_t)s->rank : 1, nchunks = 1, *ixpool = NULL;
    uint64_t *idxpool = NULL;
    uint64_t idx[NC_MAX_VAR_DIMS];
    rd_job *jobs = NULL;
    ncc_raw *raws = NULL;
    int nthreads = ncf_pool_default() ? ncf_pool_nthreads(ncf_pool_default()) : 1;
    int stat = NC_NOERR, keep = 0;
    if (s->n == 0)
        return NC_NOERR;
    keep = ncc_read_keeps(v, s);
    if (maxjobs < (size_t)nthreads * 2)
        maxjobs = (size_t)nthreads * 2;
    if (maxjobs > 4096)
        maxjobs = 4096;
    /* No more jobs than chunks in the box touched. */
    for (int k = 0; k < s->rank && nchunks <= maxjobs; k++)
        nchunks *= (size_t)(s->chi[k] - s->clo[k] + 1);
    if (kept && keep && nchunks > maxjobs)
        return NCC_DECLINED; /* kept would hold more than one batch */
    if (nchunks < maxjobs)
        maxjobs = nchunks;
    if (keep) {
        if (kept)
            pthread_mutex_lock(&v->lrulock);
        v->stamp++;
        if (kept)
            pthread_mutex_unlock(&v->lrulock);
    }
    if (kept && keep) {
        kept->gen = v->gen;
        kept->cap = maxjobs;
        kept->idx = malloc(maxjobs * rk * sizeof(uint64_t));
        kept->data = malloc(maxjobs * sizeof(unsigned char *));
        if (kept->idx == NULL || kept->data == NULL)
            return NC_ENOMEM; /* ncc_kept_free frees them */
    }
    jobs = calloc(maxjobs, sizeof(*jobs));
    raws = calloc(maxjobs, sizeof(*raws));
    ixpool = calloc(maxjobs * 3 * rk, sizeof(size_t));
    if (keep && (idxpool = calloc(maxjobs * rk, sizeof(uint64_t))) == NULL)
        stat = NC_ENOMEM;
    if (jobs == NULL || raws == NULL || ixpool == NULL || stat) {
        stat = NC_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < maxjobs; i++) {
        jobs[i].k0 = ixpool + i * 3 * rk;
        jobs[i].nk = jobs[i].k0 + rk;
        jobs[i].l0 = jobs[i].nk + rk;
        jobs[i].idx = idxpool ? idxpool + i * rk : NULL;
    }
    for (int k = 0; k < s->rank; k++)
        idx[k] = s->clo[k];
    for (int more = 1; more && stat == NC_NOERR;) {
        rd_job *j = &jobs[njobs];
        if (ncc_sel_part(&v->g, s, idx, j->k0, j->nk, j->l0)) {
            ncc_entry *e = ncc_cache_find(&v->cache, idx);
            j->cached = NULL;
            j->raw = NULL;
            j->absent = 0;
            j->direct = 0;
            j->keep = NULL;
            j->kept = 0;
            j->status = NC_NOERR;
            if (e != NULL) {
                j->cached = e->data;
                if (keep) {
                    if (kept)
                        pthread_mutex_lock(&v->lrulock);
                    ncc_cache_touch(&v->cache, e); /* LRU order, as a cache of reads */
                    e->stamp = v->stamp;
                    if (kept)
                        pthread_mutex_unlock(&v->lrulock);
                }
            } else {
                ncc_raw *r = &raws[nraws];
                r->count = UINT64_MAX;
                stat = v->ops->locate(v->fmt, idx, r);
                if (stat == NC_EEMPTY) {
                    free(r->key);
                    memset(r, 0, sizeof(*r));
                    j->absent = 1;
                    stat = NC_NOERR;
                } else if (stat) {
                    nraws++; /* its key is freed below */
                    break;
                } else {
                    j->raw = r;
                    j->direct = ncc_part_direct(&v->g, s, j->nk);
                    nraws++;
                    if (keep && !j->direct) {
                        /* Decoded into a buffer the cache then takes. */
                        if (kept)
                            pthread_mutex_lock(&v->lrulock);
                        if (v->cache.nspare > 0)
                            j->keep = v->cache.spare[--v->cache.nspare];
                        if (kept)
                            pthread_mutex_unlock(&v->lrulock);
                        if (j->keep == NULL && (j->keep = malloc(v->g.chunkbytes ? v->g.chunkbytes : 1)) == NULL) {
                            stat = NC_ENOMEM;
                            njobs++;
                            break;
                        }
                        j->kept = 0;
                        memcpy(j->idx, idx, (size_t)s->rank * sizeof(uint64_t));
                    }
                }
            }
            njobs++;
        }
        more = s->rank > 0 ? ncc_sel_next(s, idx) : 0;
        if (njobs == maxjobs || (!more && njobs > 0)) {
            stat = run_read_batch(v, s, out, jobs, raws, njobs, nraws, kept);
            raws_clear(raws, nraws);
            njobs = nraws = 0;
        }
    }
done:
    /* Buffers of a batch that did not run. */
    for (size_t i = 0; jobs && i < njobs; i++)
        free(jobs[i].keep);
    if (raws)
        raws_clear(raws, nraws);
    free(raws);
    free(jobs);
    free(ixpool);
    free(idxpool);
    return stat;
}

int
ncc_read(ncc_var *v, const ncc_sel *s, unsigned char *out)
{
    return read_sel(v, s, out, NULL);
}

int
ncc_read_shared(ncc_var *v, const ncc_sel *s, unsigned char *out, ncc_kept *kept)
{
    return read_sel(v, s, out, kept);
}

/* ---- write ------------------------------------------------------------------------------ */

/* Ask for huge pages over the 2 MiB-aligned inside of a big, fresh, zeroed
 * buffer: its first touch then faults a few pages, not thousands. */
static void
huge_pages(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (n >= ((size_t)8 << 20) && hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

/* The cache entry of chunk idx, created (read and decoded, or fill) if
 * absent; whole: the write covers the chunk entirely (no read needed). */
static int
get_entry(ncc_var *v, const uint64_t *idx, int whole, int edge, ncc_entry **ep)
{
    ncc_entry *e = ncc_cache_find(&v->cache, idx);
    unsigned char *data;
    ncc_raw r;
    int stat, zeroed = 0;
    size_t cb = v->g.chunkbytes;
    if (e != NULL) {
        ncc_cache_touch(&v->cache, e);
        *ep = e;
        return NC_NOERR;
    }
    /* Full: write every dirty chunk (in parallel) and keep the newer half,
     * so the next flush again has several chunks to encode at once. */
    if (v->cache.n >= v->cache.max && (stat = ncc_flush(v, v->cache.max / 2)))
        return stat;
    /* A chunk of zero fill about to be read as absent starts as fresh zero
     * pages: no fill chunk copied in. */
    if (v->cache.nspare > 0) {
        data = v->cache.spare[--v->cache.nspare];
    } else if (!whole && !v->vstr && v->ops->entry_load == NULL && v->zerofill) {
        if ((data = calloc(1, cb ? cb : 1)) == NULL)
            return NC_ENOMEM;
        zeroed = 1;
        huge_pages(data, cb);
    } else if ((data = malloc(cb ? cb : 1)) == NULL) {
        return NC_ENOMEM;
    }
    memset(&r, 0, sizeof(r));
    if ((stat = v->ops->key(v->fmt, idx, &r.key))) {
        free(data);
        return stat;
    }
    if (!whole && v->ops->entry_load != NULL) {
        if ((stat = ncc_cache_insert(&v->cache, idx, data, ep))) {
            free(data);
        } else if ((stat = v->ops->entry_load(v->fmt, r.key, *ep))) {
            if (v->ops->entry_free)
                v->ops->entry_free(v->fmt, *ep);
            free(ncc_cache_unlink(&v->cache, *ep));
        }
        free(r.key);
        return stat;
    }
    if (whole && v->vstr) {
        memset(data, 0, cb); /* no strings yet: the write replaces NULLs */
    } else if (whole && edge) {
        /* The padding past the variable's extent: fill. */
        const unsigned char *fc = ncc_fill_chunk(v);
        if (fc == NULL)
            stat = NC_ENOMEM;
        else
            memcpy(data, fc, cb);
    } else if (!whole) {
        r.count = UINT64_MAX;
        stat = v->ops->fetch_whole(v->fmt, &r);
        if (stat == NC_EEMPTY && v->vstr) {
            stat = ncc_strings_fill((char **)(void *)data, v->g.chunkelems, *(char *const *)(const void *)v->fill);
        } else if (stat == NC_EEMPTY && v->zerofill) {
            if (!zeroed)
                memset(data, 0, cb);
            stat = NC_NOERR;
        } else if (stat == NC_EEMPTY) {
            const unsigned char *fc = ncc_fill_chunk(v);
            if (fc == NULL)
                stat = NC_ENOMEM;
            else {
                memcpy(data, fc, cb);
                stat = NC_NOERR;
            }
        } else if (stat == NC_NOERR) {
            stat = v->ops->decode(v->fmt, &r, data, cb, NULL);
        }
        if (r.owned)
            free(r.data);
    }
    free(r.key);
    if (stat) {
        free(data);
        return stat;
    }
    if ((stat = ncc_cache_insert(&v->cache, idx, data, ep))) {
        chunk_release(v, data);
        free(data);
    }
    return stat;
}

typedef struct dw_ctx {
    ncc_var *v;
    const ncc_sel *s;
    const unsigned char *src;
    int contiguous;     /* each whole chunk is one run of src */
    ncc_enc *jobs;
} dw_ctx;

static void
dw_task(void *arg, size_t i)
{
    dw_ctx *c = arg;
    ncc_enc *j = &c->jobs[i];
    ncc_var *v = c->v;
    const unsigned char *data = c->src + j->soff * v->g.esize;
    int scratch = 0;
    if (!c->contiguous || j->nk != NULL) {
        unsigned char *buf = ncc_scratch(NCC_SCRATCH_CHUNK, v->g.chunkbytes);
        const unsigned char *fc = NULL;
        if (buf == NULL || (j->nk != NULL && (fc = ncc_fill_chunk(v)) == NULL)) {
            j->status = NC_ENOMEM;
            return;
        }
        /* An edge chunk: its part inside the variable, the rest fill. */
        if (j->nk != NULL)
            memcpy(buf, fc, v->g.chunkbytes);
        ncc_copy_strided(c->s->rank, v->g.esize, j->nk ? j->nk : v->g.chunk, data, c->s->ustr, buf, v->g.cstr);
        data = buf;
        scratch = 1;
    }
    /* A scratch chunk may be lent only to a store made from this task. */
    encode_job(v, j, data, v->store_in_task || !scratch);
}

/* Encode and store jobs[0..n) from src; frees their keys and outputs. */
static int
run_direct(ncc_var *v, const ncc_sel *s, const unsigned char *src, ncc_enc *jobs, size_t n)
{
    dw_ctx c;
    int stat = NC_NOERR;
    c.v = v;
    c.s = s;
    c.src = src;
    c.contiguous = ncc_sel_contiguous(&v->g, s);
    c.jobs = jobs;
    ncf_pool_run(ncf_pool_default(), n, dw_task, &c);
    if (!v->store_in_task)
        store_jobs(v, jobs, n);
    for (size_t i = 0; i < n; i++) {
        ncc_enc *j = &jobs[i];
        if (j->status != NC_NOERR && stat == NC_NOERR)
            stat = j->status;
        if (!j->borrowed)
            free(j->out);
        free(j->key);
    }
    memset(jobs, 0, n * sizeof(*jobs));
    return stat;
}

/* ---- parts written in place ----------------------------------------------------------- */

#define NCC_RUNS 1024 /* runs handed to write_runs at once */

/* The rows (innermost axis) of one chunk part, walked as runs of bytes:
 * where each lies in the chunk and in the caller's buffer. */
typedef struct part_rows {
    int outer;                      /* axes before the innermost */
    size_t nk[NC_MAX_VAR_DIMS], idx[NC_MAX_VAR_DIMS];
    size_t dstr[NC_MAX_VAR_DIMS];   /* bytes per step in the chunk */
    size_t sstr[NC_MAX_VAR_DIMS];   /* bytes per step in the caller's buffer */
    size_t doff, soff, rowlen;      /* the current row, in bytes */
    int more;
} part_rows;

static void
rows_init(part_rows *w, const ncc_var *v, const ncc_sel *s, const size_t *k0, const size_t *nk, const size_t *l0)
{
    size_t es = v->g.esize;
    w->outer = s->rank - 1;
    w->doff = w->soff = 0;
    for (int k = 0; k < s->rank; k++) {
        w->doff += l0[k] * v->g.cstr[k] * es;
        w->soff += k0[k] * s->ustr[k] * es;
        w->dstr[k] = s->stride[k] * v->g.cstr[k] * es;
        w->sstr[k] = s->ustr[k] * es;
        w->nk[k] = nk[k];
        w->idx[k] = 0;
    }
    w->rowlen = nk[s->rank - 1] * es;
    w->more = 1;
}

/* Up to max runs of the next rows, rows that follow each other on both
 * sides merged into one run; 0 when every row is done. */
static size_t
rows_next(part_rows *w, const unsigned char *src, ncc_run *runs, size_t max)
{
    size_t n = 0;
    while (w->more && n < max) {
        ncc_run *last = n > 0 ? &runs[n - 1] : NULL;
        if (last && last->off + last->len == w->doff && (const unsigned char *)last->buf + last->len == src + w->soff)
            last->len += w->rowlen;
        else
            runs[n++] = (ncc_run){w->doff, src + w->soff, w->rowlen};
        w->more = 0;
        for (int k = w->outer - 1; k >= 0; k--) {
            w->doff += w->dstr[k];
            w->soff += w->sstr[k];
            if (++w->idx[k] < w->nk[k]) {
                w->more = 1;
                break;
            }
            w->doff -= w->dstr[k] * w->nk[k];
            w->soff -= w->sstr[k] * w->nk[k];
            w->idx[k] = 0;
        }
    }
    return n;
}

/* A batch of chunk parts to write in place: per part its chunk index and
 * its k0, nk, l0 (rank entries each, in pool), and its result. */
typedef struct ip_batch {
    ncc_var *v;
    const ncc_sel *s;
    const unsigned char *src;
    size_t n, rk;
    uint64_t *idx;
    size_t *pool;
    int *status;
} ip_batch;

#define IP_IDX(b, i) ((b)->idx + (i) * (b)->rk)
#define IP_K0(b, i) ((b)->pool + (i) * 3 * (b)->rk)
#define IP_NK(b, i) (IP_K0(b, i) + (b)->rk)
#define IP_L0(b, i) (IP_K0(b, i) + 2 * (b)->rk)

/* Write part i of the batch from src into its stored chunk in place, a
 * row (or a run of whole rows) of the caller's buffer at a time (a pool
 * task when the format writes runs from tasks).  NCC_DECLINED: the cache path
 * is to write it (the format declined, or the variable leaves chunks of
 * fill out and the part is all zero: whether the chunk ends up all fill,
 * and so is not stored, is for the cache path to see). */
static void
ip_task(void *arg, size_t i)
{
    static const unsigned char zero = 0;
    ip_batch *b = arg;
    ncc_var *v = b->v;
    ncc_run *runs = malloc(NCC_RUNS * sizeof(*runs));
    part_rows w;
    char *key = NULL;
    size_t n;
    int stat = NC_NOERR;
    if (runs == NULL) {
        b->status[i] = NC_ENOMEM;
        return;
    }
    rows_init(&w, v, b->s, IP_K0(b, i), IP_NK(b, i), IP_L0(b, i));
    if (!v->keepall) {
        int nonzero = 0;
        while (!nonzero && (n = rows_next(&w, b->src, runs, NCC_RUNS)) > 0)
            for (size_t r = 0; r < n && !nonzero; r++)
                nonzero = !ncc_all_fill(runs[r].buf, runs[r].len, 1, &zero);
        if (!nonzero)
            stat = NCC_DECLINED;
        rows_init(&w, v, b->s, IP_K0(b, i), IP_NK(b, i), IP_L0(b, i));
    }
    if (stat == NC_NOERR)
        stat = v->ops->key(v->fmt, IP_IDX(b, i), &key);
    while (stat == NC_NOERR && (n = rows_next(&w, b->src, runs, NCC_RUNS)) > 0)
        stat = v->ops->write_runs(v->fmt, key, n, runs);
    free(key);
    free(runs);
    b->status[i] = stat;
}

/* Merge the part (k0, nk, l0) of chunk idx from src into its cache entry. */
static int
merge_part(ncc_var *v, const ncc_sel *s, const unsigned char *src, const uint64_t *idx, int whole, int edge,
           const size_t *k0, const size_t *nk, const size_t *l0)
{
    size_t soff = 0, doff = 0, dstr[NC_MAX_VAR_DIMS];
    ncc_entry *e;
    int stat;
    if ((stat = get_entry(v, idx, whole, edge, &e)))
        return stat;
    if (v->ops->entry_prepare && (stat = v->ops->entry_prepare(v->fmt, e, l0, nk, s->stride)))
        return stat;
    for (int k = 0; k < s->rank; k++) {
        soff += k0[k] * s->ustr[k];
        doff += l0[k] * v->g.cstr[k];
        dstr[k] = s->stride[k] * v->g.cstr[k];
    }
    e->dirty = 1;
    if (v->vstr)
        return ncc_strings_copy_strided(s->rank, nk, (char *const *)(const void *)src + soff, s->ustr,
                                        (char **)(void *)e->data + doff, dstr);
    ncc_copy_strided(s->rank, v->g.esize, nk, src + soff * v->g.esize, s->ustr, e->data + doff * v->g.esize, dstr);
    return NC_NOERR;
}

/* Write the batch's parts in place (in parallel when the format writes
 * runs from tasks); the ones declined go through the cache.  The first
 * error. */
static int
run_in_place(ip_batch *b)
{
    int stat = NC_NOERR;
    if (b->v->runs_in_task && b->n > 1)
        ncf_pool_run(ncf_pool_default(), b->n, ip_task, b);
    else
        for (size_t i = 0; i < b->n; i++)
            ip_task(b, i);
    for (size_t i = 0; i < b->n; i++) {
        int st = b->status[i];
        if (st == NCC_DECLINED)
            st = merge_part(b->v, b->s, b->src, IP_IDX(b, i), 0, 0, IP_K0(b, i), IP_NK(b, i), IP_L0(b, i));
        if (st && stat == NC_NOERR)
            stat = st;
    }
    b->n = 0;
    return stat;
}

int
ncc_write(ncc_var *v, const ncc_sel *s, const unsigned char *src, int direct_ok)
{
    uint64_t idx[NC_MAX_VAR_DIMS];
    size_t k0[NC_MAX_VAR_DIMS], nk[NC_MAX_VAR_DIMS], l0[NC_MAX_VAR_DIMS];
    ncc_enc direct[NCC_DIRECT_BATCH];
    ip_batch ip;
    size_t ndirect = 0;
    int can_direct = direct_ok && s->rank > 0;
    /* Parts of chunks written in place: the stored bytes are the chunk's
     * bytes in memory and an absent chunk's unwritten bytes zero. */
    int can_runs = can_direct && v->ops->write_runs != NULL && v->stored_raw && !v->vstr && v->zerofill;
    int pad = v->pad_edges && !v->vstr;
    size_t *dnk = NULL;      /* the parts of edge chunks of the direct batch */
    int stat = NC_NOERR;
    v->gen++;
    if (v->lru)
        return ncc_lru_write(v, s, src);
    if (s->n == 0)
        return NC_NOERR;
    memset(direct, 0, sizeof(direct));
    memset(&ip, 0, sizeof(ip));
    ip.v = v;
    ip.s = s;
    ip.src = src;
    ip.rk = s->rank > 0 ? (size_t)s->rank : 1;
    for (int k = 0; k < s->rank; k++)
        idx[k] = s->clo[k];
    for (int more = 1; more && stat == NC_NOERR;) {
        if (ncc_sel_part(&v->g, s, idx, k0, nk, l0)) {
            int whole = 1, edge = 0;
            for (int k = 0; k < s->rank; k++) {
                size_t in = v->g.chunk[k], o = (size_t)idx[k] * v->g.chunk[k];
                /* Stored at full size: the part inside the extent is the chunk. */
                if (pad && s->len[k] > o && s->len[k] - o < in) {
                    in = s->len[k] - o;
                    edge = 1;
                }
                if (nk[k] != in)
                    whole = 0;
            }
            if (whole && !edge && v->ops->put_whole != NULL && ncc_part_direct(&v->g, s, nk) &&
                ncc_cache_find(&v->cache, idx) == NULL) {
                /* The format encodes it from the caller's data itself. */
                char *key = NULL;
                if ((stat = v->ops->key(v->fmt, idx, &key)) == NC_NOERR)
                    stat = v->ops->put_whole(v->fmt, key, src + ncc_sel_uoff(s, k0) * v->g.esize);
                free(key);
                if (stat)
                    break;
                goto next;
            }
            if (whole && can_direct && ncc_cache_find(&v->cache, idx) == NULL) {
                if ((stat = v->ops->key(v->fmt, idx, &direct[ndirect].key)))
                    break;
                if (edge) {
                    if (dnk == NULL && (dnk = malloc(NCC_DIRECT_BATCH * ip.rk * sizeof(size_t))) == NULL) {
                        free(direct[ndirect].key);
                        direct[ndirect].key = NULL;
                        stat = NC_ENOMEM;
                        break;
                    }
                    memcpy(dnk + ndirect * ip.rk, nk, (size_t)s->rank * sizeof(size_t));
                    direct[ndirect].nk = dnk + ndirect * ip.rk;
                }
                direct[ndirect++].soff = ncc_sel_uoff(s, k0);
                if (ndirect == NCC_DIRECT_BATCH) {
                    stat = run_direct(v, s, src, direct, ndirect);
                    ndirect = 0;
                }
                goto next;
            }
            /* A part not cached, whose rows are runs of the chunk: in place
             * (a cached chunk takes the cache path, so nothing goes stale). */
            if (!whole && can_runs && (s->stride[s->rank - 1] == 1 || nk[s->rank - 1] == 1) &&
                ncc_cache_find(&v->cache, idx) == NULL) {
                if (ip.idx == NULL) {
                    ip.idx = malloc(NCC_DIRECT_BATCH * ip.rk * sizeof(uint64_t));
                    ip.pool = malloc(NCC_DIRECT_BATCH * 3 * ip.rk * sizeof(size_t));
                    ip.status = malloc(NCC_DIRECT_BATCH * sizeof(int));
                    if (ip.idx == NULL || ip.pool == NULL || ip.status == NULL) {
                        stat = NC_ENOMEM;
                        break;
                    }
                }
                memcpy(IP_IDX(&ip, ip.n), idx, (size_t)s->rank * sizeof(uint64_t));
                memcpy(IP_K0(&ip, ip.n), k0, (size_t)s->rank * sizeof(size_t));
                memcpy(IP_NK(&ip, ip.n), nk, (size_t)s->rank * sizeof(size_t));
                memcpy(IP_L0(&ip, ip.n), l0, (size_t)s->rank * sizeof(size_t));
                if (++ip.n == NCC_DIRECT_BATCH)
                    stat = run_in_place(&ip);
                goto next;
            }
            if ((stat = merge_part(v, s, src, idx, whole, edge, k0, nk, l0)))
                break;
        }
    next:
        more = s->rank > 0 ? ncc_sel_next(s, idx) : 0;
    }
    if (ndirect > 0) {
        int st = run_direct(v, s, src, direct, ndirect);
        if (stat == NC_NOERR)
            stat = st;
    }
    for (size_t i = 0; i < ndirect; i++)
        free(direct[i].key);
    if (ip.n > 0) {
        int st = run_in_place(&ip);
        if (stat == NC_NOERR)
            stat = st;
    }
    free(ip.idx);
    free(ip.pool);
    free(ip.status);
    free(dnk);
    return stat;
}

/* ---- conversion --------------------------------------------------------------------------- */

int
ncc_convert(nc_type from, const void *src, nc_type to, void *dst, size_t n, int classic)
{
    int stat = ncx_convert(from, src, to, dst, n);
    if (stat == NC_ERANGE && classic && (from == NC_BYTE || from == NC_UBYTE) && (to == NC_BYTE || to == NC_UBYTE))
        stat = NC_NOERR;
    return stat;
}
