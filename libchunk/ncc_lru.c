/* ncc_lru.c: the lru write-back policy of a variable (ncc_var.lru; see
 * ncchunk.h), the one HDF5's netCDF-4 files are written with.
 *
 * A write is a list of jobs -- evicted entries to encode and store, then
 * the request's chunks in C order (whole ones, or parts read-modify-
 * written, encoded and stored; parts merged into cache entries) -- run a
 * batch at a time on the pool, one job per task.  Whatever a job encodes
 * is stored in job order: from the tasks when the format stores from
 * tasks (a finished task stores every job whose turn has come, so one
 * thread's store overlaps the others' codec work), else on the caller's
 * thread after the batch.  The bytes a format is given to store, and their
 * order, so depend only on the sequence of calls. */
#include "config.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "ncchunk.h"

#define LRU_BATCH_MAX 64
#define LRU_SMALL 8          /* batches and ranks up to this: job arrays on the stack */

enum { J_EVICT, J_CHUNK, J_MERGE };

typedef struct lru_job {
    int kind;
    ncc_entry *e;            /* J_EVICT, J_MERGE: its entry */
    uint64_t *idx;           /* J_CHUNK, J_MERGE: the chunk (rank entries each, */
    size_t *k0, *nk, *l0;    /*   in the context's pool) and its part */
    int whole, edge;         /* J_CHUNK: covered whole; an edge chunk (padded) */
    int load;                /* its stored bytes are fetched first */
    char *key;
    ncc_raw raw;
    void *out;
    size_t outlen;
    unsigned mask;
    int status;
    int ready;               /* its task is over */
} lru_job;

typedef struct lru_ctx {
    ncc_var *v;
    const ncc_sel *s;
    const unsigned char *src;
    lru_job *jobs;
    size_t n, next;          /* jobs of the batch, the next to store */
    int writer;              /* a task is storing */
    pthread_mutex_t seq;
    _Atomic int status;      /* first failure: later jobs skip their work */
} lru_ctx;

static void
fail(lru_ctx *c, int stat)
{
    int expect = NC_NOERR;
    if (stat)
        atomic_compare_exchange_strong(&c->status, &expect, stat);
}

/* Encoded bytes of a decoded chunk into j. */
static void
encode_out(ncc_var *v, lru_job *j, const unsigned char *data)
{
    if (v->stored_raw) {
        if ((j->out = malloc(v->g.chunkbytes ? v->g.chunkbytes : 1)) == NULL) {
            j->status = NC_ENOMEM;
            return;
        }
        memcpy(j->out, data, v->g.chunkbytes);
        j->outlen = v->g.chunkbytes;
        j->mask = 0;
        return;
    }
    j->status = v->ops->encode(v->fmt, data, v->g.chunkbytes, &j->out, &j->outlen, &j->mask);
}

/* The chunk's stored contents (fetched) into dst, or fill when not stored. */
static int
load_into(ncc_var *v, lru_job *j, unsigned char *dst)
{
    const unsigned char *fc;
    if (j->raw.status == NC_NOERR)
        return v->ops->decode(v->fmt, &j->raw, dst, v->g.chunkbytes, NULL);
    if (j->raw.status != NC_EEMPTY)
        return j->raw.status;
    if ((fc = ncc_fill_chunk(v)) == NULL)
        return NC_ENOMEM;
    memcpy(dst, fc, v->g.chunkbytes);
    return NC_NOERR;
}

/* Copy job j's part of the caller's buffer into chunk dst. */
static void
merge_into(const lru_ctx *c, const lru_job *j, unsigned char *dst)
{
    const ncc_sel *s = c->s;
    const ncc_grid *g = &c->v->g;
    size_t doff = 0, dstr[NC_MAX_VAR_DIMS];
    for (int k = 0; k < s->rank; k++) {
        doff += j->l0[k] * g->cstr[k];
        dstr[k] = s->stride[k] * g->cstr[k];
    }
    ncc_copy_strided(s->rank, g->esize, j->nk, c->src + ncc_sel_uoff(s, j->k0) * g->esize, s->ustr,
                     dst + doff * g->esize, dstr);
}

static void
job_work(lru_ctx *c, lru_job *j)
{
    ncc_var *v = c->v;
    unsigned char *buf;
    const unsigned char *fc;
    switch (j->kind) {
    case J_EVICT:
        encode_out(v, j, j->e->data);
        return;
    case J_MERGE:
        if (j->e->loading) {
            if ((j->status = load_into(v, j, j->e->data)))
                return;
            j->e->loading = 0;
        }
        merge_into(c, j, j->e->data);
        return;
    default:
        break;
    }
    if (j->whole && !j->edge && ncc_part_direct(&v->g, c->s, j->nk)) {
        encode_out(v, j, c->src + ncc_sel_uoff(c->s, j->k0) * v->g.esize);
        return;
    }
    if ((buf = ncc_scratch(NCC_SCRATCH_CHUNK, v->g.chunkbytes)) == NULL) {
        j->status = NC_ENOMEM;
        return;
    }
    if (!j->whole) {
        if ((j->status = load_into(v, j, buf)))
            return;
    } else if (j->edge) {
        /* The padding past the extent: fill. */
        if ((fc = ncc_fill_chunk(v)) == NULL) {
            j->status = NC_ENOMEM;
            return;
        }
        memcpy(buf, fc, v->g.chunkbytes);
    }
    merge_into(c, j, buf);
    encode_out(v, j, buf);
}

/* Store job j (encoded) unless something failed; an entry stored is clean. */
static void
job_store(lru_ctx *c, lru_job *j, int from_task)
{
    ncc_var *v = c->v;
    if (j->out != NULL && j->status == NC_NOERR && atomic_load(&c->status) == NC_NOERR) {
        ncc_put p = {j->key, j->out, j->outlen, j->mask, 0, &j->status};
        int st = from_task ? v->ops->store_one(v->fmt, &p) : v->ops->store_many(v->fmt, 1, &p);
        if (st == NC_NOERR)
            st = j->status;
        if (st)
            fail(c, st);
        else if (j->e != NULL && j->kind == J_EVICT)
            j->e->dirty = 0;
    }
    free(j->out);
    j->out = NULL;
}

/* Job i's task is over: store, in order, every job whose predecessors are
 * stored (unless another task is at it). */
static void
seq_done(lru_ctx *c, size_t i)
{
    pthread_mutex_lock(&c->seq);
    c->jobs[i].ready = 1;
    if (!c->writer) {
        c->writer = 1;
        while (c->next < c->n && c->jobs[c->next].ready) {
            lru_job *j = &c->jobs[c->next++];
            pthread_mutex_unlock(&c->seq);
            job_store(c, j, 1);
            pthread_mutex_lock(&c->seq);
        }
        c->writer = 0;
    }
    pthread_mutex_unlock(&c->seq);
}

static void
job_task(void *arg, size_t i)
{
    lru_ctx *c = arg;
    lru_job *j = &c->jobs[i];
    ncc_var *v = c->v;
    if (atomic_load(&c->status) == NC_NOERR) {
        if (j->load && v->fetch_in_task)
            (void)v->ops->fetch_one(v->fmt, &j->raw); /* its status in raw */
        job_work(c, j);
        if (j->raw.owned)
            free(j->raw.data);
        j->raw.data = NULL;
        fail(c, j->status);
    }
    if (v->store_in_task)
        seq_done(c, i);
}

/* The jobs of a write or flush: first ev[0..nev), then (walk) the chunks of
 * the selection in C order -- merges into cache entries (cached: parts) or
 * read-modify-writes (else) -- a batch at a time.  The first failure. */
static int
run_jobs(ncc_var *v, const ncc_sel *s, const unsigned char *src, ncc_entry **ev, size_t nev, int walk,
         int cached, int pooled)
{
    ncf_pool *pool = pooled ? ncf_pool_default() : NULL;
    size_t per = (size_t)(pool ? ncf_pool_nthreads(pool) : 1), rk, i = 0;
    uint64_t idx[NC_MAX_VAR_DIMS];
    size_t *ipool = NULL;
    uint64_t *xpool = NULL;
    lru_job sjobs[LRU_SMALL];
    size_t sipool[LRU_SMALL * 3 * LRU_SMALL];
    uint64_t sxpool[LRU_SMALL * LRU_SMALL];
    int more = walk, stat;
    lru_ctx c;

    if (per > LRU_BATCH_MAX)
        per = LRU_BATCH_MAX;
    if (per < 1)
        per = 1;
    rk = v->g.rank > 0 ? (size_t)v->g.rank : 1;
    memset(&c, 0, sizeof(c));
    c.v = v;
    c.s = s;
    c.src = src;
    atomic_init(&c.status, NC_NOERR);
    if (per <= LRU_SMALL && rk <= LRU_SMALL) {
        /* The usual case on the stack: no heap block of this call stays
         * above the chunks its tasks allocate. */
        c.jobs = sjobs;
        ipool = sipool;
        xpool = sxpool;
    } else {
        c.jobs = calloc(per, sizeof(*c.jobs));
        ipool = calloc(per * 3 * rk, sizeof(size_t));
        xpool = calloc(per * rk, sizeof(uint64_t));
        if (c.jobs == NULL || ipool == NULL || xpool == NULL) {
            free(c.jobs);
            free(ipool);
            free(xpool);
            return NC_ENOMEM;
        }
    }
    pthread_mutex_init(&c.seq, NULL);
    if (walk)
        for (int k = 0; k < s->rank; k++)
            idx[k] = s->clo[k];
    while ((i < nev || more) && atomic_load(&c.status) == NC_NOERR) {
        size_t n = 0;
        /* The next batch of jobs. */
        while (n < per && (i < nev || more)) {
            lru_job *j = &c.jobs[n];
            memset(j, 0, sizeof(*j));
            j->idx = xpool + n * rk;
            j->k0 = ipool + n * 3 * rk;
            j->nk = j->k0 + rk;
            j->l0 = j->nk + rk;
            if (i < nev) {
                j->kind = J_EVICT;
                j->e = ev[i++];
                memcpy(j->idx, j->e->idx, rk * sizeof(uint64_t));
            } else {
                int in = ncc_sel_part(&v->g, s, idx, j->k0, j->nk, j->l0);
                memcpy(j->idx, idx, (size_t)s->rank * sizeof(uint64_t));
                more = ncc_sel_next(s, idx);
                if (!in)
                    continue;
                j->whole = 1;
                for (int k = 0; k < s->rank; k++) {
                    size_t ext = v->g.chunk[k], o = (size_t)j->idx[k] * v->g.chunk[k];
                    if (v->pad_edges && s->len[k] > o && s->len[k] - o < ext) {
                        ext = s->len[k] - o;
                        j->edge = 1;
                    }
                    if (j->nk[k] != ext)
                        j->whole = 0;
                }
                if (cached && !j->whole) {
                    /* Its entry was made when the request was indexed. */
                    j->kind = J_MERGE;
                    if ((j->e = ncc_cache_find(&v->cache, j->idx)) == NULL) {
                        fail(&c, NC_EINTERNAL);
                        break;
                    }
                    j->load = j->e->loading;
                } else {
                    j->kind = J_CHUNK;
                    j->load = !j->whole;
                }
            }
            if (j->kind != J_MERGE || j->load)
                if ((stat = v->ops->key(v->fmt, j->idx, &j->key))) {
                    fail(&c, stat);
                    break;
                }
            j->raw.key = j->key;
            j->raw.count = UINT64_MAX;
            n++;
        }
        if (atomic_load(&c.status) == NC_NOERR && !v->fetch_in_task)
            for (size_t k = 0; k < n; k++)
                if (c.jobs[k].load)
                    (void)v->ops->fetch_many(v->fmt, 1, &c.jobs[k].raw); /* status in raw */
        c.n = n;
        c.next = 0;
        c.writer = 0;
        if (atomic_load(&c.status) == NC_NOERR)
            ncf_pool_run(pool, n, job_task, &c);
        for (size_t k = 0; k < n; k++) {
            lru_job *j = &c.jobs[k];
            if (!v->store_in_task)
                job_store(&c, j, 0);
            free(j->out);
            if (j->raw.owned)
                free(j->raw.data);
            free(j->key);
        }
    }
    pthread_mutex_destroy(&c.seq);
    if (c.jobs != sjobs) {
        free(c.jobs);
        free(ipool);
        free(xpool);
    }
    return atomic_load(&c.status);
}

/* Is the part nk of chunk idx the whole chunk (inside the extent, with
 * pad_edges)? */
static int
part_whole(const ncc_var *v, const ncc_sel *s, const uint64_t *idx, const size_t *nk)
{
    for (int k = 0; k < s->rank; k++) {
        size_t ext = v->g.chunk[k], o = (size_t)idx[k] * v->g.chunk[k];
        if (v->pad_edges && s->len[k] > o && s->len[k] - o < ext)
            ext = s->len[k] - o;
        if (nk[k] != ext)
            return 0;
    }
    return 1;
}

static void
lru_free(ncc_var *v, ncc_entry *e)
{
    if (v->ops->entry_free)
        v->ops->entry_free(v->fmt, e);
    free(e->data);
    free(e);
}

int
ncc_lru_flush(ncc_var *v)
{
    size_t n = 0;
    ncc_entry **list;
    int stat;
    for (ncc_entry *e = v->cache.head; e; e = e->next)
        n += e->dirty != 0;
    if (n == 0)
        return NC_NOERR;
    if ((list = malloc(n * sizeof(*list))) == NULL)
        return NC_ENOMEM;
    n = 0;
    for (ncc_entry *e = v->cache.head; e; e = e->next)
        if (e->dirty)
            list[n++] = e;
    stat = run_jobs(v, NULL, NULL, list, n, 0, 0, 1);
    free(list);
    return stat;
}

int
ncc_lru_write(ncc_var *v, const ncc_sel *s, const unsigned char *src)
{
    uint64_t idx[NC_MAX_VAR_DIMS];
    size_t k0[NC_MAX_VAR_DIMS], nk[NC_MAX_VAR_DIMS], l0[NC_MAX_VAR_DIMS];
    size_t max = v->cache.max, npart = 0, nfull = 0, nload = 0, nev = 0, target;
    unsigned long stamp = ++v->stamp;
    ncc_entry **ev = NULL;
    int more, stat = NC_NOERR;

    if (s->n == 0 || s->rank == 0 || v->vstr)
        return s->n == 0 ? NC_NOERR : NC_EINVAL;
    /* The parts: more than the cache holds, and the request goes chunk by
     * chunk after the cache is written back and emptied. */
    for (int k = 0; k < s->rank; k++)
        idx[k] = s->clo[k];
    for (more = max > 0; more && npart <= max;) {
        if (ncc_sel_part(&v->g, s, idx, k0, nk, l0) && !part_whole(v, s, idx, nk))
            npart++;
        more = ncc_sel_next(s, idx);
    }
    if (max == 0 || npart > max) {
        /* Dirty chunks dropped unwritten: remembered in lost. */
        if ((stat = ncc_lru_flush(v)))
            v->lost = 1;
        ncc_cache_clear(v);
        return stat ? stat : run_jobs(v, s, src, NULL, 0, 1, 0, 1);
    }
    /* Index the request's chunks: whole ones leave the cache (overwritten),
     * parts enter it or move to the front. */
    for (more = 1; more;) {
        if (ncc_sel_part(&v->g, s, idx, k0, nk, l0)) {
            ncc_entry *e = ncc_cache_find(&v->cache, idx);
            if (part_whole(v, s, idx, nk)) {
                nfull++;
                if (e != NULL) {
                    ncc_cache_detach(&v->cache, e);
                    lru_free(v, e);
                }
            } else {
                if (e == NULL) {
                    unsigned char *buf = malloc(v->g.chunkbytes ? v->g.chunkbytes : 1);
                    if (buf == NULL)
                        return NC_ENOMEM;
                    if ((stat = ncc_cache_insert(&v->cache, idx, buf, &e))) {
                        free(buf);
                        return stat;
                    }
                    e->loading = 1;
                    nload++;
                } else {
                    ncc_cache_touch(&v->cache, e);
                }
                e->stamp = stamp;
                e->dirty = 1;
            }
        }
        more = ncc_sel_next(s, idx);
    }
    /* Over the bound: evict from the old end down to 3/4 of it, so that
     * evicted chunks go out several at a time on the pool. */
    if (v->cache.n > max) {
        target = max - max / 4;
        if (target < npart)
            target = npart;
        if ((ev = malloc((v->cache.n - target) * sizeof(*ev))) == NULL)
            return NC_ENOMEM;
        while (v->cache.n > target && v->cache.tail && v->cache.tail->stamp != stamp) {
            ncc_entry *e = v->cache.tail;
            ncc_cache_detach(&v->cache, e);
            if (e->dirty && !e->loading)
                ev[nev++] = e;
            else
                lru_free(v, e);
        }
    }
    /* Only merges into cached chunks (a row into chunks already loaded):
     * copies too small to hand to other threads. */
    stat = run_jobs(v, s, src, ev, nev, 1, 1, nev + nfull + nload > 0);
    /* An evicted chunk that did not reach the format is not retried: the
     * loss is remembered. */
    for (size_t i = 0; i < nev; i++) {
        if (ev[i]->dirty)
            v->lost = 1;
        lru_free(v, ev[i]);
    }
    free(ev);
    if (stat) {
        /* Chunks whose first contents never arrived cannot stay. */
        for (ncc_entry *e = v->cache.head, *nx; e; e = nx) {
            nx = e->next;
            if (e->loading) {
                ncc_cache_detach(&v->cache, e);
                lru_free(v, e);
            }
        }
    }
    return stat;
}
