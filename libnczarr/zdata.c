/* zdata.c: the Zarr adapter of the chunk engine (libchunk/ncchunk.h).
 *
 * The engine cuts selections into chunks, decodes and encodes them on
 * libfilter's pool, and keeps the write-back cache; this file tells it how
 * a Zarr variable is stored: chunk keys, reads and writes of objects
 * through the store (zmap: read_many/write_many, concurrent on S3; from
 * the pool tasks themselves on directory stores), the codec pipe of a
 * chunk (zcodecs_pipe.c), and shards (zshard.c), which stay this adapter's
 * business: a sharded variable's reads go by inner chunk (the indexes of
 * the shards touched first, then ranged reads of the inner chunks), its
 * cache entries are shards brought in by inner chunk.  On stores that
 * update objects in place (directory trees), a write of part of a chunk
 * stored raw (no codec, byte order and layout as in memory) goes into the
 * chunk's object as the caller's rows when the engine can (write_runs;
 * NOFILL, or a fill of zero bytes): no chunk assembled in the cache.
 * A chunk that is all fill is not stored (its object is deleted if it was
 * there), as zarr-python with write_empty_chunks=False; except in a NOFILL
 * variable, whose every written chunk is stored: its metadata names no
 * fill (v2 null) or one the skipped zeros would not be (v3), so other
 * readers could not tell what a missing chunk held.
 * Threads: a variable's state is built once under one lock, and each get,
 * put or flush of a variable holds the variable's own lock.
 * Conversions and NC_ERANGE are ncx_convert's, as elsewhere in the library;
 * NC_STRING values of NCZarr v2 ("|S<n>") are held fixed-width, NUL-padded;
 * vlen-utf8 strings (v3 "string", v2 "|O") are held as one char * per
 * element (NULL: ""), owned by the chunk holding them: a get hands out
 * copies, a put stores copies, evicting an entry frees its strings.
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np */
#include "config.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zdata.h"
#include "zchunk.h"

struct shardtab;
struct zvdata;

/* The engine's handle on a variable: the variable, and for the inner-chunk
 * view of a sharded variable the indexes of the shards a read touches. */
typedef struct zfmt {
    struct zvdata *d;
    const struct shardtab *tab;
} zfmt;

typedef struct zvdata {
    ncc_var eng;             /* the engine's state (grid, fill chunk, cache) */
    zfmt self;
    NC4_file *f;
    NCZ_var *zv;
    ncz_pipe *pipe;          /* codecs of a stored chunk (inner chunk if sharded) */
    ncz_shard *shard;        /* sharded: geometry of a shard */
    ncz_keyenc enc;
    unsigned char *fill;     /* one element, memory form */
    pthread_rwlock_t oplock; /* shared by gets; alone: puts, flushes, cache changes */
} zvdata;

/* Indexes of the shards in a box of the shard grid (read_sel_sharded). */
typedef struct shardtab {
    uint64_t lo[NC_MAX_VAR_DIMS], n[NC_MAX_VAR_DIMS]; /* box origin and extent */
    size_t nshards;
    char **keys;
    uint64_t **pairs;   /* per shard: 2*ninner (offset, nbytes), NULL if absent */
    const ncz_shard *geom;
} shardtab;

/* A shard a partial write brought in by inner chunk: the stored shard
 * (NULL: none) and its index; valid[i]: inner chunk i is in the entry's
 * data, else its stored bytes are current (never decoded).  No aux, or
 * valid NULL: all of data is current. */
typedef struct shard_aux {
    unsigned char *raw;
    uint64_t *pairs;
    unsigned char *valid;
} shard_aux;

static NCZ_map *
zmap(const zvdata *d)
{
    return ncz_file(d->f)->map;
}

/* The fill whose chunks (inner chunks) are left out; NULL: none are. */
static const void *
skip_fill(const zvdata *d)
{
    return d->eng.keepall ? NULL : d->fill;
}

/* ---- the format's table: keys and objects --------------------------------------- */

static int
z_key(void *fmt, const uint64_t *idx, char **keyp)
{
    zvdata *d = ((zfmt *)fmt)->d;
    char key[4096];
    int stat = ncz_chunk_key(&d->enc, d->zv->key, d->eng.g.rank, idx, key, sizeof(key));
    if (stat)
        return stat;
    return (*keyp = strdup(key)) == NULL ? NC_ENOMEM : NC_NOERR;
}

static int
z_locate(void *fmt, const uint64_t *idx, ncc_raw *r)
{
    const shardtab *t = ((zfmt *)fmt)->tab;
    size_t lin = 0, in = 0;
    if (t == NULL)
        return z_key(fmt, idx, &r->key);
    /* An inner chunk: its shard's key and index entry. */
    for (int k = 0; k < ((zfmt *)fmt)->d->eng.g.rank; k++) {
        uint64_t sh = idx[k] / t->geom->nper[k];
        lin = lin * t->n[k] + (size_t)(sh - t->lo[k]);
        in = in * t->geom->nper[k] + (size_t)(idx[k] % t->geom->nper[k]);
    }
    if (t->pairs[lin] == NULL || t->pairs[lin][2 * in] == NCZ_SHARD_EMPTY)
        return NC_EEMPTY;
    r->start = t->pairs[lin][2 * in];
    r->count = t->pairs[lin][2 * in + 1];
    return (r->key = strdup(t->keys[lin])) == NULL ? NC_ENOMEM : NC_NOERR;
}

static int
z_fetch_many(void *fmt, size_t n, ncc_raw *r)
{
    NCZ_map *map = zmap(((zfmt *)fmt)->d);
    NCZ_read_req *reqs = calloc(n, sizeof(*reqs));
    int stat;
    if (reqs == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        reqs[i].key = r[i].key;
        reqs[i].start = r[i].start;
        reqs[i].count = r[i].count;
    }
    stat = map->ops->read_many(map, n, reqs);
    for (size_t i = 0; i < n; i++) {
        r[i].data = reqs[i].data;
        r[i].len = reqs[i].len;
        r[i].status = reqs[i].status;
        r[i].owned = 1;
    }
    free(reqs);
    return stat;
}

/* Directory stores: open/pread/close, safe from several threads. */
static int
z_fetch_one(void *fmt, ncc_raw *r)
{
    NCZ_map *map = zmap(((zfmt *)fmt)->d);
    uint64_t len = r->count;
    unsigned char *buf = NULL;
    int stat = NC_NOERR;
    if (len == UINT64_MAX)
        stat = map->ops->len(map, r->key, &len);
    if (stat == NC_NOERR && len > ((size_t)1 << 40))
        stat = NC_ENCZARR;
    if (stat == NC_NOERR && (buf = ncc_scratch(NCC_SCRATCH_RAW, (size_t)len)) == NULL)
        stat = NC_ENOMEM;
    if (stat == NC_NOERR)
        stat = map->ops->read(map, r->key, r->start, len, buf);
    r->data = buf;
    r->len = (size_t)len;
    r->owned = 0;
    return r->status = stat;
}

static int
z_fetch_whole(void *fmt, ncc_raw *r)
{
    NCZ_map *map = zmap(((zfmt *)fmt)->d);
    r->owned = 1;
    return map->ops->read_all(map, r->key, &r->data, &r->len);
}

static int
z_decode(void *fmt, const ncc_raw *r, void *dst, size_t dstlen, ncf_pool *inner)
{
    (void)inner;
    return ncz_pipe_decode(((zfmt *)fmt)->d->pipe, r->data, r->len, dst, dstlen);
}

static int
z_encode(void *fmt, const void *src, size_t len, void **outp, size_t *outlenp, unsigned *maskp)
{
    *maskp = 0;
    return ncz_pipe_encode(((zfmt *)fmt)->d->pipe, src, len, outp, outlenp);
}

static int
store_obj(NCZ_map *map, const char *key, int empty, const void *out, size_t outlen)
{
    int s;
    if (empty) {
        s = map->ops->del(map, key);
        return s == NC_EEMPTY ? NC_NOERR : s;
    }
    return map->ops->write(map, key, outlen, out);
}

static int
z_store_one(void *fmt, const ncc_put *p)
{
    return store_obj(zmap(((zfmt *)fmt)->d), p->key, p->empty, p->out, p->outlen);
}

/* Store a batch: deletes one by one, writes with one write_many (concurrent
 * on S3).  Every item gets its status; returns the first error. */
static int
z_store_many(void *fmt, size_t n, ncc_put *puts)
{
    NCZ_map *map = zmap(((zfmt *)fmt)->d);
    NCZ_write_req *reqs;
    size_t nw = 0, k = 0;
    int stat = NC_NOERR;
    if ((reqs = calloc(n, sizeof(*reqs))) == NULL) {
        for (size_t i = 0; i < n; i++)
            *puts[i].status = NC_ENOMEM;
        return NC_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if (puts[i].empty) {
            int s = store_obj(map, puts[i].key, 1, NULL, 0);
            *puts[i].status = s;
            if (s != NC_NOERR && stat == NC_NOERR)
                stat = s;
        } else {
            reqs[nw].key = puts[i].key;
            reqs[nw].count = puts[i].outlen;
            reqs[nw].content = puts[i].out;
            nw++;
        }
    }
    if (nw > 0) {
        int s = map->ops->write_many(map, nw, reqs);
        if (s != NC_NOERR && stat == NC_NOERR)
            stat = s;
    }
    for (size_t i = 0; i < n; i++)
        if (!puts[i].empty)
            *puts[i].status = reqs[k++].status;
    free(reqs);
    return stat;
}

/* Stores that update an object in place (directory trees): a part of a
 * raw chunk goes into its object as the caller's rows (the engine offers
 * it only when the stored bytes are those the cache path would write). */
static int
z_write_runs(void *fmt, const char *key, size_t n, const ncc_run *runs)
{
    zvdata *d = ((zfmt *)fmt)->d;
    NCZ_map *map = zmap(d);
    NCZ_run *r = malloc((n ? n : 1) * sizeof(*r));
    int stat;
    if (r == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        r[i] = (NCZ_run){runs[i].off, runs[i].buf, runs[i].len};
    stat = map->ops->write_runs(map, key, d->eng.g.chunkbytes, n, r);
    free(r);
    return stat == NC_EEXIST ? NCC_DECLINED : stat;
}

/* ---- shards ------------------------------------------------------------------------- */

typedef struct part_sink {
    NCZ_map *map;
    void *h;
} part_sink;

static int
put_part(void *arg, uint64_t off, const void *buf, size_t n)
{
    part_sink *p = arg;
    return p->map->ops->wpart(p->map, p->h, off, buf, n);
}

/* Encode a shard and store it at key (delete its object when every inner
 * chunk is fill): the inner chunks of src with valid[i] (all when valid is
 * NULL), the others keeping their stored bytes in old.  Stores that take
 * an object in pieces get each inner chunk as it is encoded: the shard is
 * never assembled in memory. */
static int
store_shard(NCZ_map *map, zvdata *d, const char *key, const void *src, const unsigned char *valid, const void *old,
            const uint64_t *pairs, void *pool)
{
    void *out = NULL;
    size_t outlen = 0;
    int stat, any = 0;
    if (map->ops->wbegin != NULL) {
        part_sink p = {map, NULL};
        int end;
        if ((stat = map->ops->wbegin(map, key, &p.h)))
            return stat;
        stat = ncz_shard_encode_to(d->shard, src, valid, old, pairs, skip_fill(d), pool, put_part, &p, &any);
        end = map->ops->wend(map, p.h, stat == NC_NOERR && any);
        if (stat || any)
            return stat ? stat : end;
    } else {
        if ((stat = ncz_shard_encode_mixed(d->shard, src, valid, old, pairs, skip_fill(d), pool, &out, &outlen)))
            return stat;
        any = out != NULL;
    }
    stat = store_obj(map, key, !any, out, outlen);
    free(out);
    return stat;
}

/* A whole shard written at once: encoded from the caller's data (no
 * shard-sized cache copy). */
static int
z_put_whole(void *fmt, const char *key, const void *src)
{
    zvdata *d = ((zfmt *)fmt)->d;
    return store_shard(zmap(d), d, key, src, NULL, NULL, NULL, ncf_pool_default());
}

/* A shard entry's write-back: inner chunks no write touched keep their
 * stored bytes. */
static int
z_entry_flush(void *fmt, ncc_enc *j, const void *src, ncf_pool *inner, int store)
{
    zvdata *d = ((zfmt *)fmt)->d;
    const shard_aux *a = j->e->aux;
    const unsigned char *valid = a ? a->valid : NULL;
    const void *raw = a ? a->raw : NULL;
    const uint64_t *pairs = a ? a->pairs : NULL;
    int stat;
    (void)src;
    if (store)
        return store_shard(zmap(d), d, j->key, j->e->data, valid, raw, pairs, inner);
    stat = ncz_shard_encode_mixed(d->shard, j->e->data, valid, raw, pairs, skip_fill(d), inner, &j->out, &j->outlen);
    j->empty = stat == NC_NOERR && j->out == NULL;
    return stat;
}

static void
z_entry_free(void *fmt, ncc_entry *e)
{
    shard_aux *a = e->aux;
    (void)fmt;
    if (a != NULL) {
        free(a->raw);
        free(a->pairs);
        free(a->valid);
        free(a);
        e->aux = NULL;
    }
}

/* A new cache entry for a shard a write covers in part: the stored shard
 * and its index are kept, no inner chunk is decoded yet (z_entry_prepare
 * does, for the ones a write covers in part). */
static int
z_entry_load(void *fmt, const char *key, ncc_entry *e)
{
    zvdata *d = ((zfmt *)fmt)->d;
    NCZ_map *map = zmap(d);
    const ncz_shard *g = d->shard;
    size_t isz = ncz_shard_index_size(g);
    shard_aux *a = calloc(1, sizeof(*a));
    void *raw = NULL;
    size_t len = 0;
    int stat;
    if (a == NULL)
        return NC_ENOMEM;
    e->aux = a;
    stat = map->ops->read_all(map, key, &raw, &len);
    if (stat == NC_EEMPTY) {
        stat = NC_NOERR; /* no shard yet: every inner chunk is fill */
    } else if (stat == NC_NOERR) {
        a->raw = raw;
        if (len < isz)
            stat = NC_ENCZARR;
        else if ((a->pairs = malloc(2 * g->ninner * sizeof(uint64_t))) == NULL)
            stat = NC_ENOMEM;
        else
            stat = ncz_shard_index_decode(g, (unsigned char *)raw + (g->at_start ? 0 : len - isz), isz, len,
                                          a->pairs);
    }
    if (stat == NC_NOERR && (a->valid = calloc(g->ninner, 1)) == NULL)
        stat = NC_ENOMEM;
    if (stat == NC_NOERR && d->eng.vstr)
        memset(e->data, 0, d->eng.g.chunkbytes); /* strings appear as inner chunks are brought in */
    return stat;
}

/* Before a write into shard entry e at offset l0, count nk, stride st (in
 * the shard): the inner chunks it covers entirely become valid as they
 * are, the ones it covers in part are decoded (or filled) first. */
static int
z_entry_prepare(void *fmt, ncc_entry *e, const size_t *l0, const size_t *nk, const size_t *st)
{
    zvdata *d = ((zfmt *)fmt)->d;
    const ncz_shard *g = d->shard;
    shard_aux *a = e->aux;
    size_t lo[NC_MAX_VAR_DIMS], hi[NC_MAX_VAR_DIMS], c[NC_MAX_VAR_DIMS];
    int r = g->rank, stat = NC_NOERR;
    if (a == NULL || a->valid == NULL)
        return NC_NOERR;
    for (int k = 0; k < r; k++) {
        lo[k] = l0[k] / g->inner[k];
        hi[k] = (l0[k] + (nk[k] - 1) * st[k]) / g->inner[k];
        c[k] = lo[k];
    }
    for (;;) {
        size_t i = 0;
        int whole = 1;
        for (int k = 0; k < r; k++) {
            size_t lo_el = c[k] * g->inner[k], hi_el = lo_el + g->inner[k] - 1;
            i = i * g->nper[k] + c[k];
            if (!(st[k] == 1 || nk[k] == 1) || l0[k] > lo_el || l0[k] + (nk[k] - 1) * st[k] < hi_el)
                whole = 0;
        }
        if (!a->valid[i]) {
            if (!whole && (stat = ncz_shard_decode_one(g, a->raw, a->pairs, i, e->data, d->fill)))
                return stat;
            a->valid[i] = 1;
        }
        if (!ncc_box_next(r, c, lo, hi))
            break;
    }
    return stat;
}

static const ncc_ops plain_ops = {
    .key = z_key,
    .locate = z_locate,
    .fetch_many = z_fetch_many,
    .fetch_one = z_fetch_one,
    .fetch_whole = z_fetch_whole,
    .decode = z_decode,
    .encode = z_encode,
    .store_many = z_store_many,
    .store_one = z_store_one,
};

/* Plain chunks on a store that updates objects in place. */
static const ncc_ops inplace_ops = {
    .key = z_key,
    .locate = z_locate,
    .fetch_many = z_fetch_many,
    .fetch_one = z_fetch_one,
    .fetch_whole = z_fetch_whole,
    .decode = z_decode,
    .encode = z_encode,
    .store_many = z_store_many,
    .store_one = z_store_one,
    .write_runs = z_write_runs,
};

static const ncc_ops shard_ops = {
    .key = z_key,
    .locate = z_locate,
    .fetch_many = z_fetch_many,
    .fetch_one = z_fetch_one,
    .fetch_whole = z_fetch_whole,
    .decode = z_decode,
    .encode = z_encode,
    .store_many = z_store_many,
    .store_one = z_store_one,
    .entry_load = z_entry_load,
    .entry_prepare = z_entry_prepare,
    .entry_free = z_entry_free,
    .entry_flush = z_entry_flush,
    .put_whole = z_put_whole,
};

/* ---- setup -------------------------------------------------------------------- */

void
ncz_var_data_free(NCZ_var *zv)
{
    zvdata *d;
    if (zv == NULL || (d = zv->cache) == NULL)
        return;
    ncc_var_fini(&d->eng);
    ncz_pipe_free(d->pipe);
    free(d->shard);
    if (d->eng.vstr && d->fill)
        free(*(char **)(void *)d->fill);
    free(d->fill);
    pthread_rwlock_destroy(&d->oplock);
    free(d);
    zv->cache = NULL;
    if (zv->chain) {
        ncf_chain_free(zv->chain);
        zv->chain = NULL;
    }
}

static size_t
budget_entries(const NC4_var *var, size_t chunkbytes)
{
    size_t size = var->cache_size;
    if (size == 0) {
        size_t nel;
        float pre;
        nc4_get_default_cache(&size, &nel, &pre);
    }
    return ncc_cache_budget(size, chunkbytes);
}

/* The fill value of var in memory form (esize bytes). */
static int
make_fill(NC4_file *f, NC4_var *var, size_t esize, int vstr, unsigned char **fillp)
{
    unsigned char *fill = calloc(1, esize > 8 ? esize : 8);
    if (fill == NULL)
        return NC_ENOMEM;
    if (var->no_fill) {
        /* Never-written chunks of a NOFILL variable read as zeros, as
         * upstream's chunk cache makes them. */
    } else if (vstr) {
        /* A char * to the variable's own copy of its fill string (NULL: ""). */
        const char *s = var->fill_value ? *(char *const *)var->fill_value : NULL;
        char *c = NULL;
        if (s != NULL && s[0] != '\0' && (c = strdup(s)) == NULL) {
            free(fill);
            return NC_ENOMEM;
        }
        memcpy(fill, &c, sizeof(c));
    } else if (var->xtype == NC_STRING) {
        /* Stored fixed-width: the fill string's bytes, NUL-padded. */
        const char *s = var->fill_value ? *(char *const *)var->fill_value : NULL;
        if (s != NULL)
            memcpy(fill, s, strnlen(s, esize));
    } else if (var->fill_value != NULL) {
        memcpy(fill, var->fill_value, esize);
    } else if (var->xtype <= NC_UINT64) {
        int stat = nc4_default_fill(f, var->xtype, fill);
        if (stat) {
            free(fill);
            return stat;
        }
    }
    *fillp = fill;
    return NC_NOERR;
}

static int setup_locked(NC4_file *f, NC4_var *var, zvdata **dp);

/* Threads sharing a handle may reach a variable first at the same time:
 * its state is built by one of them. */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;

static int
setup(NC4_file *f, NC4_var *var, zvdata **dp)
{
    pthread_mutex_lock(&setup_lock);
    int stat = setup_locked(f, var, dp);
    pthread_mutex_unlock(&setup_lock);
    return stat;
}

static int
setup_locked(NC4_file *f, NC4_var *var, zvdata **dp)
{
    NCZ_var *zv = ncz_var(var);
    zvdata *d;
    ncc_grid g;
    const NCZ_codec_spec *codecs;
    const ncc_ops *ops;
    size_t ncodecs, esize;
    int perm[NC_MAX_VAR_DIMS], *permp = NULL, stat, vstr = 0, rank = var->ndims;
    const size_t *pshape;
    if (zv == NULL)
        return NC_ENCZARR;
    if ((d = zv->cache) != NULL) {
        *dp = d;
        return NC_NOERR;
    }
    if (var->xtype > NC_STRING)
        return NC_EBADTYPE;
    if (var->ndims > 0 && var->chunksizes == NULL)
        return NC_ENCZARR;
    if (zv->typesize == 0 && var->xtype == NC_STRING && zv->vlen_utf8) {
        /* v3 strings carry no width: held at the file's string width. */
        NCZ_file *zf = ncz_file(f);
        zv->typesize = zv->maxstrlen ? zv->maxstrlen
                       : zf && zf->default_maxstrlen ? zf->default_maxstrlen : NCZ_MAXSTR_DEFAULT;
    }
    if (zv->typesize == 0)
        return NC_ENCZARR;
    esize = zv->typesize;
    if (var->xtype == NC_STRING && zv->vlen_utf8) {
        vstr = 1;
        esize = sizeof(char *);
    }
    /* An absurd chunk (over 1 TiB) is a damaged array. */
    if (ncc_grid_init(&g, rank, var->chunksizes, esize, (size_t)1 << 40))
        return NC_ENCZARR;
    if ((d = calloc(1, sizeof(*d))) == NULL)
        return NC_ENOMEM;
    {
        pthread_rwlockattr_t a;
        pthread_rwlockattr_init(&a);
#ifdef __GLIBC__
        /* A waiting writer goes before new readers (glibc prefers readers
         * by default): a small get waiting to put its chunk in the cache
         * would otherwise wait for the other threads' next fetches and
         * decodes too, one after another.  No thread takes the lock twice. */
        pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
        pthread_rwlock_init(&d->oplock, &a);
        pthread_rwlockattr_destroy(&a);
    }
    d->f = f;
    d->zv = zv;
    d->self.d = d;
    if (zv->key_encoding == NCZ_KEYS_DEFAULT) {
        d->enc.v3default = 1;
        d->enc.sep = zv->dimsep ? zv->dimsep : '/';
    } else {
        d->enc.v3default = 0;
        d->enc.sep = zv->dimsep ? zv->dimsep : '.';
    }
    if (zv->transpose != NULL) {
        permp = zv->transpose;
    } else if (zv->order == 'F' && rank > 1) {
        for (int k = 0; k < rank; k++)
            perm[k] = rank - 1 - k;
        permp = perm;
    }
    codecs = zv->sharded ? zv->inner_codecs : zv->codecs;
    ncodecs = zv->sharded ? zv->ninner_codecs : zv->ncodecs;
    pshape = zv->sharded ? zv->inner_chunks : g.chunk;
    if (var->xtype == NC_STRING || var->xtype == NC_CHAR)
        permp = zv->transpose ? zv->transpose : permp;
    if (zv->sharded && zv->inner_chunks == NULL) {
        stat = NC_ENCZARR;
        goto fail;
    }
    if ((stat = ncz_pipe_create(codecs, ncodecs, esize,
                                zv->bigendian && var->xtype != NC_STRING && var->xtype != NC_CHAR,
                                zv->vlen_utf8 && var->xtype == NC_STRING, rank, pshape, permp, &d->pipe)))
        goto fail;
    if (zv->sharded) {
        int crc = zv->nindex_codecs > 0;
        if ((d->shard = malloc(sizeof(*d->shard))) == NULL) {
            stat = NC_ENOMEM;
            goto fail;
        }
        if ((stat = ncz_shard_init(d->shard, rank, g.chunk, zv->inner_chunks, esize, zv->index_at_start, crc,
                                   d->pipe)))
            goto fail;
    }
    if ((stat = make_fill(f, var, esize, vstr, &d->fill)))
        goto fail;
    ops = zv->sharded ? &shard_ops : zmap(d)->ops->write_runs != NULL ? &inplace_ops : &plain_ops;
    if ((stat = ncc_var_init(&d->eng, &g, vstr, d->fill, var->no_fill, budget_entries(var, g.chunkbytes), ops,
                             &d->self)))
        goto fail;
    d->eng.stored_raw = ncz_pipe_is_raw(d->pipe);
    /* Directory stores: independent files, read and written from the tasks. */
    d->eng.fetch_in_task = d->eng.store_in_task = zmap(d)->impl == NCZ_MAP_FILE;
    d->eng.runs_in_task = d->eng.store_in_task;
    /* Small gets keep the chunks they decode (ncc_read_keeps): a loop of
     * point or row reads decodes each chunk once while it stays cached.
     * Not sharded variables (read by inner chunk, past the cache) nor vlen
     * strings. */
    d->eng.keep_sparse = !zv->sharded && !vstr ? NCC_SMALL_READ : 0;
    zv->cache = d;
    *dp = d;
    return NC_NOERR;
fail:
    ncz_pipe_free(d->pipe);
    free(d->shard);
    if (vstr && d->fill)
        free(*(char **)(void *)d->fill);
    free(d->fill);
    pthread_rwlock_destroy(&d->oplock);
    free(d);
    return stat;
}

int
ncz_var_flush(NC4_file *f, NC4_var *var)
{
    NCZ_var *zv = ncz_var(var);
    zvdata *d = zv ? zv->cache : NULL;
    int stat;
    (void)f;
    if (d == NULL)
        return NC_NOERR;
    pthread_rwlock_wrlock(&d->oplock);
    stat = ncc_flush(&d->eng, d->eng.cache.max);
    pthread_rwlock_unlock(&d->oplock);
    return stat;
}

int
ncz_var_set_cache(NC4_file *f, NC4_var *var, size_t size, size_t nelems, float preemption)
{
    NCZ_var *zv = ncz_var(var);
    zvdata *d = zv ? zv->cache : NULL;
    int stat;
    (void)f;
    (void)nelems;
    (void)preemption;
    if (d == NULL)
        return NC_NOERR;
    pthread_rwlock_wrlock(&d->oplock);
    stat = ncc_set_cache(&d->eng, ncc_cache_budget(size, d->eng.g.chunkbytes));
    pthread_rwlock_unlock(&d->oplock);
    return stat;
}

/* ---- sharded reads -------------------------------------------------------------------- */

/* Read a sharded variable by inner chunks: the indexes of the shards
 * touched first (one ranged read each), then every inner chunk touched by
 * a ranged read of its bytes, decoded on the pool like plain chunks.  Dirty
 * shards in the write cache are written first. */
static int
read_sel_sharded(zvdata *d, const ncc_sel *s, unsigned char *out)
{
    NCZ_map *map = zmap(d);
    const ncz_shard *g = d->shard;
    size_t isz = ncz_shard_index_size(g), nsh = 1;
    shardtab t;
    zfmt view_fmt;
    ncc_var *view = NULL;
    ncc_grid ig;
    ncc_sel *si = NULL;
    uint64_t idx[NC_MAX_VAR_DIMS];
    unsigned char *ibuf = NULL;
    int stat = NC_NOERR, have_view = 0;
    if (ncc_has_dirty(&d->eng) && (stat = ncc_flush(&d->eng, d->eng.cache.max)))
        return stat;
    memset(&t, 0, sizeof(t));
    t.geom = g;
    for (int k = 0; k < s->rank; k++) {
        t.lo[k] = s->clo[k];
        t.n[k] = s->chi[k] - s->clo[k] + 1;
        if (nsh > SIZE_MAX / t.n[k])
            return NC_ENOMEM;
        nsh *= (size_t)t.n[k];
    }
    t.nshards = nsh;
    t.keys = calloc(nsh, sizeof(char *));
    t.pairs = calloc(nsh, sizeof(uint64_t *));
    if (t.keys == NULL || t.pairs == NULL || (ibuf = malloc(isz)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    for (int k = 0; k < s->rank; k++)
        idx[k] = s->clo[k];
    for (size_t i = 0; i < nsh && stat == NC_NOERR; i++) {
        uint64_t len = 0;
        if ((stat = z_key(&d->self, idx, &t.keys[i])))
            break;
        stat = map->ops->len(map, t.keys[i], &len);
        if (stat == NC_EEMPTY) {
            stat = NC_NOERR; /* no shard: all fill */
        } else if (stat == NC_NOERR) {
            if (len < isz) {
                stat = NC_ENCZARR;
                break;
            }
            if ((stat = map->ops->read(map, t.keys[i], g->at_start ? 0 : len - isz, isz, ibuf)))
                break;
            if ((t.pairs[i] = malloc(2 * g->ninner * sizeof(uint64_t))) == NULL) {
                stat = NC_ENOMEM;
                break;
            }
            stat = ncz_shard_index_decode(g, ibuf, isz, len, t.pairs[i]);
        }
        if (s->rank > 0)
            (void)ncc_sel_next(s, idx);
    }
    if (stat)
        goto done;
    /* The inner-chunk view of the variable: no cache, chunks located in
     * their shards. */
    if (ncc_grid_init(&ig, d->eng.g.rank, g->inner, d->eng.g.esize, SIZE_MAX)) {
        stat = NC_ENCZARR;
        goto done;
    }
    if ((view = malloc(sizeof(*view))) == NULL || (si = malloc(sizeof(*si))) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    view_fmt.d = d;
    view_fmt.tab = &t;
    if ((stat = ncc_var_init(view, &ig, d->eng.vstr, d->fill, d->eng.keepall, 0, &plain_ops, &view_fmt)))
        goto done;
    have_view = 1;
    view->fetch_in_task = d->eng.fetch_in_task;
    *si = *s;
    ncc_sel_regrid(si, &ig);
    stat = ncc_read(view, si, out);
done:
    if (have_view)
        ncc_var_fini(view);
    free(view);
    free(si);
    free(ibuf);
    for (size_t i = 0; i < t.nshards; i++) {
        if (t.keys)
            free(t.keys[i]);
        if (t.pairs)
            free(t.pairs[i]);
    }
    free(t.keys);
    free(t.pairs);
    return stat;
}

/* ---- the entry points --------------------------------------------------------------------- */

static int
resolve_memtype(NC4_var *var, nc_type *memtype)
{
    if (*memtype == NC_NAT || *memtype >= NC_FIRSTUSERTYPEID)
        *memtype = var->xtype;
    if (*memtype != var->xtype && (*memtype == NC_CHAR || var->xtype == NC_CHAR))
        return NC_ECHAR;
    if (*memtype != var->xtype && (*memtype > NC_UINT64 || var->xtype > NC_UINT64))
        return NC_EBADTYPE;
    return NC_NOERR;
}

/* No buffer for a selection that is not empty: what the netCDF-4 path
 * answers (HDF5 refuses the read or write). */
#define NO_BUFFER NC_EHDFERR

/* The selection over d's chunk grid; writes do not bound unlimited axes. */
static int
make_sel(NC4_var *var, const zvdata *d, const size_t *start, const size_t *count, const ptrdiff_t *stride,
         int write, ncc_sel *s)
{
    size_t dimlen[NC_MAX_VAR_DIMS];
    unsigned char unb[NC_MAX_VAR_DIMS];
    for (int k = 0; k < var->ndims; k++) {
        dimlen[k] = var->dims[k]->len;
        unb[k] = write && var->dims[k]->unlimited;
    }
    return ncc_sel_init(s, &d->eng.g, start, count, stride, dimlen, unb);
}

/* Get selection s (made under the lock held) of var into buf; kept: the
 * lock is held shared (ncc_read_shared: NCC_DECLINED passed on, nothing
 * read), else alone. */
static int
var_get(NC4_file *f, NC4_var *var, zvdata *d, const ncc_sel *s, nc_type memtype, void *buf, ncc_kept *kept)
{
    unsigned char *tmp = NULL;
    int stat = NC_NOERR, range = 0;
    if (s->n == 0)
        return NC_NOERR;
    if (buf == NULL)
        return NO_BUFFER;
    if (d->eng.vstr) {
        /* Read into NULLs, so whatever a failed read made can be freed. */
        if ((tmp = calloc(s->n, sizeof(char *))) == NULL)
            return NC_ENOMEM;
    } else if (memtype != var->xtype || var->xtype == NC_STRING) {
        if (s->n > SIZE_MAX / d->eng.g.esize || (tmp = malloc(s->n * d->eng.g.esize)) == NULL)
            return NC_ENOMEM;
    }
    if (d->shard != NULL)
        stat = read_sel_sharded(d, s, tmp ? tmp : buf);
    else if (kept != NULL)
        stat = ncc_read_shared(&d->eng, s, tmp ? tmp : buf, kept);
    else
        stat = ncc_read(&d->eng, s, tmp ? tmp : buf);
    if (stat) {
        if (d->eng.vstr)
            ncc_strings_free((char **)(void *)tmp, s->n);
        goto done;
    }
    if (d->eng.vstr) {
        /* The copies are the caller's; an empty string is a fresh "". */
        char **got = (char **)(void *)tmp, **out = buf;
        for (size_t i = 0; i < s->n && stat == NC_NOERR; i++)
            if (got[i] == NULL && (got[i] = calloc(1, 1)) == NULL)
                stat = NC_ENOMEM;
        if (stat)
            ncc_strings_free(got, s->n);
        else
            memcpy(out, got, s->n * sizeof(char *));
    } else if (var->xtype == NC_STRING) {
        char **out = buf;
        for (size_t i = 0; i < s->n; i++) {
            const char *p = (const char *)tmp + i * d->eng.g.esize;
            size_t l = strnlen(p, d->eng.g.esize);
            if ((out[i] = malloc(l + 1)) == NULL) {
                for (size_t k = 0; k < i; k++) {
                    free(out[k]);
                    out[k] = NULL;
                }
                stat = NC_ENOMEM;
                goto done;
            }
            memcpy(out[i], p, l);
            out[i][l] = '\0';
        }
    } else if (tmp) {
        stat = ncc_convert(var->xtype, tmp, memtype, buf, s->n, f->classic_model);
        if (stat == NC_ERANGE) {
            stat = NC_NOERR;
            range = 1;
        }
    }
done:
    free(tmp);
    if (stat)
        return stat;
    return range ? NC_ERANGE : NC_NOERR;
}

/* Gets share the variable's lock: fetching, decoding and copying use
 * per-call buffers and the thread's scratch, the store's reads are
 * thread-safe, the cache is only looked up (ncc_read_shared), and puts,
 * flushes and cache changes hold the lock alone.  A small get hands the
 * chunks it decoded back (ncc_read_keeps), and they go into the cache under
 * the lock held alone, briefly: two threads' small gets of different chunks
 * fetch and decode at once.  The engine drops them if the variable changed
 * in between (ncc_keep_insert).  Held alone for the whole get: a sharded
 * variable with dirty shards (written back first), and a small get over
 * more chunks than one read batch (its chunks go into the cache as it
 * reads). */
int
ncz_var_get(NC4_file *f, NC4_var *var, const size_t *start, const size_t *count, const ptrdiff_t *stride,
            nc_type memtype, void *buf)
{
    zvdata *d;
    ncc_sel s;
    ncc_kept kept;
    int stat;
    if ((stat = resolve_memtype(var, &memtype)))
        return stat;
    if ((stat = setup(f, var, &d)))
        return stat;
    memset(&kept, 0, sizeof(kept));
    pthread_rwlock_rdlock(&d->oplock);
    if ((stat = make_sel(var, d, start, count, stride, 0, &s)) == NC_NOERR &&
        (d->shard == NULL || !ncc_has_dirty(&d->eng)))
        stat = var_get(f, var, d, &s, memtype, buf, &kept);
    else if (stat == NC_NOERR)
        stat = NCC_DECLINED;
    pthread_rwlock_unlock(&d->oplock);
    if (stat == NCC_DECLINED) {
        /* Alone (the selection made again: dimensions may have grown
         * meanwhile). */
        pthread_rwlock_wrlock(&d->oplock);
        if ((stat = make_sel(var, d, start, count, stride, 0, &s)) == NC_NOERR)
            stat = var_get(f, var, d, &s, memtype, buf, NULL);
        pthread_rwlock_unlock(&d->oplock);
    } else if (kept.n > 0) {
        pthread_rwlock_wrlock(&d->oplock);
        ncc_keep_insert(&d->eng, &kept);
        pthread_rwlock_unlock(&d->oplock);
    }
    ncc_kept_free(&d->eng, &kept);
    return stat;
}

static int
var_put(NC4_file *f, NC4_var *var, zvdata *d, const size_t *start, const size_t *count, const ptrdiff_t *stride,
        nc_type memtype, const void *buf)
{
    ncc_sel s;
    unsigned char *tmp = NULL;
    const unsigned char *src = buf;
    int stat, range = 0;
    if ((stat = make_sel(var, d, start, count, stride, 1, &s)))
        return stat;
    if (s.n == 0)
        return NC_NOERR;
    if (buf == NULL)
        return NO_BUFFER;
    if (d->eng.vstr) {
        src = buf; /* the caller's char *s: write_sel stores copies */
    } else if (var->xtype == NC_STRING) {
        const char *const *in = buf;
        if (s.n > SIZE_MAX / d->eng.g.esize || (tmp = calloc(s.n, d->eng.g.esize)) == NULL)
            return NC_ENOMEM;
        for (size_t i = 0; i < s.n; i++)
            if (in[i] != NULL)
                memcpy(tmp + i * d->eng.g.esize, in[i], strnlen(in[i], d->eng.g.esize));
        src = tmp;
    } else if (memtype != var->xtype) {
        if (s.n > SIZE_MAX / d->eng.g.esize || (tmp = malloc(s.n * d->eng.g.esize)) == NULL)
            return NC_ENOMEM;
        stat = ncc_convert(memtype, buf, var->xtype, tmp, s.n, f->classic_model);
        if (stat == NC_ERANGE) {
            stat = NC_NOERR;
            range = 1;
        }
        if (stat)
            goto done;
        src = tmp;
    }
    if (var->quantize_mode && (var->xtype == NC_FLOAT || var->xtype == NC_DOUBLE)) {
        if (tmp == NULL) {
            if (s.n > SIZE_MAX / d->eng.g.esize || (tmp = malloc(s.n * d->eng.g.esize)) == NULL)
                return NC_ENOMEM;
            memcpy(tmp, buf, s.n * d->eng.g.esize);
            src = tmp;
        }
        stat = var->xtype == NC_FLOAT
                   ? ncf_quantize_float(var->quantize_mode, var->nsd, var->fill_value, (float *)tmp, s.n)
                   : ncf_quantize_double(var->quantize_mode, var->nsd, var->fill_value, (double *)tmp, s.n);
        if (stat)
            goto done;
    }
    /* Fixed-width strings are converted per element on their way in: cache
     * path; vlen strings encode from the caller's pointers. */
    if ((stat = ncc_write(&d->eng, &s, src, d->shard == NULL && (var->xtype != NC_STRING || d->eng.vstr))))
        goto done;
    /* Grow unlimited dimensions the write went past. */
    for (int k = 0; k < s.rank; k++) {
        size_t last = s.start[k] + s.stride[k] * (s.count[k] - 1);
        if (var->dims[k]->unlimited && last + 1 > var->dims[k]->len) {
            var->dims[k]->len = last + 1;
            var->dims[k]->dirty = 1;
            var->dirty = 1;
            f->dirty = 1;
        }
    }
done:
    free(tmp);
    if (stat)
        return stat;
    return range ? NC_ERANGE : NC_NOERR;
}

int
ncz_var_put(NC4_file *f, NC4_var *var, const size_t *start, const size_t *count, const ptrdiff_t *stride,
            nc_type memtype, const void *buf)
{
    zvdata *d;
    int stat;
    if (f->readonly)
        return NC_EPERM;
    if ((stat = resolve_memtype(var, &memtype)))
        return stat;
    if ((stat = setup(f, var, &d)))
        return stat;
    pthread_rwlock_wrlock(&d->oplock);
    stat = var_put(f, var, d, start, count, stride, memtype, buf);
    pthread_rwlock_unlock(&d->oplock);
    return stat;
}
