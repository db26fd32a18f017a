/* zdata.c: reading and writing Zarr variables by whole chunks.
 *
 * Read: the chunks a selection (start/count/stride) touches are fetched a
 * batch at a time with the store's read_many (concurrent on S3), then each
 * is decoded and copied into the caller's selection by a task on
 * libfilter's pool (straight into the caller's buffer when the chunk is one
 * contiguous run of it).  A chunk the store does not hold reads as the fill
 * value; chunks held dirty in the write cache are read from there.
 * Write: each touched chunk is assembled in the variable's write-back cache
 * (a partly written chunk is first read and decoded); when the cache is
 * over its budget, and on flush, the dirty chunks are encoded in parallel
 * and written.  A chunk that is all fill is not stored (its object is
 * deleted if it was there), as zarr-python with write_empty_chunks=False;
 * except in a NOFILL variable, whose every written chunk is stored: its
 * metadata names no fill (v2 null) or one the skipped zeros would not be
 * (v3), so other readers could not tell what a missing chunk held.
 * Threads: a variable's state is built once under one lock, and each get,
 * put or flush of a variable holds the variable's own lock.
 * Conversions and NC_ERANGE are ncx_convert's, as elsewhere in the library;
 * NC_STRING values of NCZarr v2 ("|S<n>") are held fixed-width, NUL-padded;
 * vlen-utf8 strings (v3 "string", v2 "|O") are held as one char * per
 * element (NULL: ""), owned by the chunk holding them: a get hands out
 * copies, a put stores copies, evicting an entry frees its strings.
 */
#include "config.h"
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zdata.h"
#include "zchunk.h"
#include "ncx.h"
#include "nc4priv.h"

#define BATCH_BYTES ((size_t)256 << 20) /* decoded bytes per read batch */


#define SPARE_MAX 16

typedef struct centry {
    char *key;
    unsigned char *data;     /* the chunk in memory form */
    int dirty;
    /* A shard a partial write brought in by inner chunk: the stored shard
     * (NULL: none) and its index; valid[i]: inner chunk i is in data, else
     * its stored bytes are current (never decoded).  valid NULL: all of
     * data is current. */
    unsigned char *raw;
    uint64_t *pairs;
    unsigned char *valid;
    struct centry *prev, *next; /* LRU list, most recent first */
    struct centry *hnext;
} centry;

typedef struct zvdata {
    ncz_pipe *pipe;          /* codecs of a stored chunk (inner chunk if sharded) */
    ncz_shard *shard;        /* sharded: geometry of a shard */
    ncz_keyenc enc;
    int rank;
    size_t chunk[NC_MAX_VAR_DIMS];
    size_t cstr[NC_MAX_VAR_DIMS]; /* C strides of a chunk, in elements */
    size_t esize;            /* element bytes in memory */
    int vstr;                /* vlen strings: elements are owned char * */
    size_t chunkelems, chunkbytes;
    unsigned char *fill;     /* one element, memory form */
    unsigned char *fillchunk;/* a chunk of fill, made on first need */
    pthread_mutex_t filllock;
    pthread_mutex_t oplock;  /* held by each get, put and flush */
    int keepall;             /* NOFILL: store every chunk, fill or not */
    int zerofill;            /* the fill element is all zero bytes */
    /* write-back cache */
    centry *head, *tail;
    centry **buckets;
    size_t nbuckets, nentries, maxentries;
    unsigned char *spare[SPARE_MAX]; /* free chunk buffers */
    size_t nspare;
    /* Set only in the inner-chunk view of a sharded variable (read path):
     * the indexes of the shards a read touches. */
    const struct shardtab *tab;
} zvdata;

/* Indexes of the shards in a box of the shard grid (read_sel_sharded). */
typedef struct shardtab {
    uint64_t lo[NC_MAX_VAR_DIMS], n[NC_MAX_VAR_DIMS]; /* box origin and extent */
    size_t nshards;
    char **keys;
    uint64_t **pairs;   /* per shard: 2*ninner (offset, nbytes), NULL if absent */
    const ncz_shard *geom;
} shardtab;

/* ---- setup -------------------------------------------------------------------- */

/* Free the strings an entry's chunk owns. */
static void
chunk_release(const zvdata *d, unsigned char *data)
{
    if (d->vstr && data != NULL)
        ncz_strings_free((char **)(void *)data, d->chunkelems);
}

/* The fill string of a string variable (NULL: ""). */
static const char *
fill_str(const zvdata *d)
{
    return *(char *const *)(const void *)d->fill;
}

static void
entry_free_shard(centry *e)
{
    free(e->raw);
    free(e->pairs);
    free(e->valid);
    e->raw = NULL;
    e->pairs = NULL;
    e->valid = NULL;
}

static void
cache_drop_all(zvdata *d)
{
    centry *e = d->head, *n;
    for (; e; e = n) {
        n = e->next;
        chunk_release(d, e->data);
        entry_free_shard(e);
        free(e->key);
        free(e->data);
        free(e);
    }
    d->head = d->tail = NULL;
    d->nentries = 0;
    if (d->buckets)
        memset(d->buckets, 0, d->nbuckets * sizeof(centry *));
}

void
ncz_var_data_free(NCZ_var *zv)
{
    zvdata *d;
    if (zv == NULL || (d = zv->cache) == NULL)
        return;
    cache_drop_all(d);
    for (size_t i = 0; i < d->nspare; i++)
        free(d->spare[i]);
    free(d->buckets);
    ncz_pipe_free(d->pipe);
    free(d->shard);
    if (d->vstr && d->fill)
        free(*(char **)(void *)d->fill);
    free(d->fill);
    free(d->fillchunk);
    pthread_mutex_destroy(&d->filllock);
    pthread_mutex_destroy(&d->oplock);
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
    size_t size = var->cache_size, n;
    if (size == 0) {
        size_t nel;
        float pre;
        nc4_get_default_cache(&size, &nel, &pre);
    }
    n = chunkbytes ? size / chunkbytes : 1;
    /* At least a few chunks, so a flush encodes in parallel, unless chunks
     * (shards) are so big that one is all memory should hold. */
    if (n < 4)
        n = chunkbytes <= ((size_t)64 << 20) ? 4 : 1;
    return n;
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
    const NCZ_codec_spec *codecs;
    size_t ncodecs;
    int perm[NC_MAX_VAR_DIMS], *permp = NULL, stat;
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
    if ((d = calloc(1, sizeof(*d))) == NULL)
        return NC_ENOMEM;
    pthread_mutex_init(&d->filllock, NULL);
    pthread_mutex_init(&d->oplock, NULL);
    d->keepall = var->no_fill;
    d->rank = var->ndims;
    d->esize = zv->typesize;
    if (var->xtype == NC_STRING && zv->vlen_utf8) {
        d->vstr = 1;
        d->esize = sizeof(char *);
    }
    d->chunkelems = 1;
    for (int k = 0; k < d->rank; k++) {
        d->chunk[k] = var->chunksizes[k];
        if (d->chunk[k] == 0 || d->chunkelems > SIZE_MAX / d->chunk[k]) {
            stat = NC_ENCZARR;
            goto fail;
        }
        d->chunkelems *= d->chunk[k];
    }
    if (d->chunkelems > SIZE_MAX / d->esize || d->chunkelems * d->esize > ((size_t)1 << 40)) {
        stat = NC_ENCZARR; /* absurd chunk */
        goto fail;
    }
    d->chunkbytes = d->chunkelems * d->esize;
    if (d->rank > 0) {
        d->cstr[d->rank - 1] = 1;
        for (int k = d->rank - 2; k >= 0; k--)
            d->cstr[k] = d->cstr[k + 1] * d->chunk[k + 1];
    }
    if (zv->key_encoding == NCZ_KEYS_DEFAULT) {
        d->enc.v3default = 1;
        d->enc.sep = zv->dimsep ? zv->dimsep : '/';
    } else {
        d->enc.v3default = 0;
        d->enc.sep = zv->dimsep ? zv->dimsep : '.';
    }
    if (zv->transpose != NULL) {
        permp = zv->transpose;
    } else if (zv->order == 'F' && d->rank > 1) {
        for (int k = 0; k < d->rank; k++)
            perm[k] = d->rank - 1 - k;
        permp = perm;
    }
    codecs = zv->sharded ? zv->inner_codecs : zv->codecs;
    ncodecs = zv->sharded ? zv->ninner_codecs : zv->ncodecs;
    pshape = zv->sharded ? zv->inner_chunks : d->chunk;
    if (var->xtype == NC_STRING || var->xtype == NC_CHAR)
        permp = zv->transpose ? zv->transpose : permp;
    if ((stat = ncz_pipe_create(codecs, ncodecs, d->esize,
                                zv->bigendian && var->xtype != NC_STRING && var->xtype != NC_CHAR,
                                zv->vlen_utf8 && var->xtype == NC_STRING, d->rank, pshape, permp, &d->pipe)))
        goto fail;
    if (zv->sharded) {
        int crc = zv->nindex_codecs > 0;
        if (zv->inner_chunks == NULL) {
            stat = NC_ENCZARR;
            goto fail;
        }
        if ((d->shard = malloc(sizeof(*d->shard))) == NULL) {
            stat = NC_ENOMEM;
            goto fail;
        }
        if ((stat = ncz_shard_init(d->shard, d->rank, d->chunk, zv->inner_chunks, d->esize, zv->index_at_start,
                                   crc, d->pipe)))
            goto fail;
    }
    if ((stat = make_fill(f, var, d->esize, d->vstr, &d->fill)))
        goto fail;
    d->zerofill = !d->vstr;
    for (size_t i = 0; i < d->esize && d->zerofill; i++)
        d->zerofill = d->fill[i] == 0;
    d->maxentries = budget_entries(var, d->chunkbytes);
    d->nbuckets = 64;
    if ((d->buckets = calloc(d->nbuckets, sizeof(centry *))) == NULL) {
        stat = NC_ENOMEM;
        goto fail;
    }
    zv->cache = d;
    *dp = d;
    return NC_NOERR;
fail:
    zv->cache = d;
    ncz_var_data_free(zv);
    return stat;
}

/* A chunk's worth of fill (shared, read-only once made). */
static const unsigned char *
fill_chunk(zvdata *d)
{
    if (d->tab != NULL)
        return d->fillchunk; /* the view: made by the owner beforehand */
    pthread_mutex_lock(&d->filllock);
    if (d->fillchunk == NULL && (d->fillchunk = malloc(d->chunkbytes ? d->chunkbytes : 1)) != NULL) {
        memcpy(d->fillchunk, d->fill, d->esize);
        for (size_t done = 1; done < d->chunkelems;) {
            size_t k = done < d->chunkelems - done ? done : d->chunkelems - done;
            memcpy(d->fillchunk + done * d->esize, d->fillchunk, k * d->esize);
            done += k;
        }
    }
    pthread_mutex_unlock(&d->filllock);
    return d->fillchunk;
}

/* ---- the selection and the chunks it touches ---------------------------------------- */

typedef struct sel {
    int rank;
    size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], stride[NC_MAX_VAR_DIMS];
    size_t ustr[NC_MAX_VAR_DIMS]; /* C strides of the caller's buffer */
    size_t n;
    /* chunk grid box touched */
    uint64_t clo[NC_MAX_VAR_DIMS], chi[NC_MAX_VAR_DIMS];
} sel;

/* Part of the selection in chunk idx: per axis, the first selected index
 * k0 (position in the caller's buffer), the count nk and the offset in the
 * chunk l0.  0 when the chunk holds no selected element. */
static int
chunk_part(const zvdata *d, const sel *s, const uint64_t *idx, size_t *k0, size_t *nk, size_t *l0)
{
    for (int k = 0; k < s->rank; k++) {
        uint64_t c0 = idx[k] * d->chunk[k], c1 = c0 + d->chunk[k];
        uint64_t first = 0, last;
        if (c0 > s->start[k])
            first = (c0 - s->start[k] + s->stride[k] - 1) / s->stride[k];
        if (first >= s->count[k])
            return 0;
        if (s->start[k] + first * s->stride[k] >= c1)
            return 0;
        last = (c1 - 1 - s->start[k]) / s->stride[k];
        if (last >= s->count[k])
            last = s->count[k] - 1;
        k0[k] = (size_t)first;
        nk[k] = (size_t)(last - first + 1);
        l0[k] = (size_t)(s->start[k] + first * s->stride[k] - c0);
    }
    return 1;
}

/* Advance the chunk odometer; 0 when done. */
static int
next_chunk(const sel *s, uint64_t *idx)
{
    for (int k = s->rank - 1; k >= 0; k--) {
        if (++idx[k] <= s->chi[k])
            return 1;
        idx[k] = s->clo[k];
    }
    return 0;
}

static int
check_bound(size_t start, size_t count, size_t stride, size_t len, int zero)
{
    size_t last = count ? start + stride * (count - 1) : start;
    if (start > len || (start == len && count > 0))
        return NC_EINVALCOORDS;
    if (!zero && count && last >= len)
        return NC_EEDGE;
    return NC_NOERR;
}

/* Fill s from the arguments; write: unlimited dims are not bounded. */
static int
make_sel(NC4_var *var, const zvdata *d, const size_t *start, const size_t *count, const ptrdiff_t *stride,
         int write, sel *s)
{
    int zero = 0, stat;
    s->rank = var->ndims;
    s->n = 1;
    for (int k = 0; k < s->rank; k++)
        if (stride && stride[k] <= 0)
            return NC_ESTRIDE;
    for (int k = 0; k < s->rank; k++) {
        s->start[k] = start ? start[k] : 0;
        s->count[k] = count ? count[k] : var->dims[k]->len;
        s->stride[k] = stride ? (size_t)stride[k] : 1;
        if (s->count[k] == 0)
            zero = 1;
    }
    for (int k = 0; k < s->rank; k++) {
        if (write && var->dims[k]->unlimited)
            continue;
        if ((stat = check_bound(s->start[k], s->count[k], s->stride[k], var->dims[k]->len, zero)))
            return stat;
    }
    if (zero) {
        s->n = 0;
        return NC_NOERR;
    }
    for (int k = s->rank - 1; k >= 0; k--) {
        s->ustr[k] = s->n;
        if (s->count[k] && s->n > SIZE_MAX / s->count[k])
            return NC_ENOMEM;
        s->n *= s->count[k];
        if (s->count[k] > 0 && s->stride[k] > (SIZE_MAX - s->start[k]) / s->count[k])
            return NC_EEDGE;
        s->clo[k] = s->start[k] / d->chunk[k];
        s->chi[k] = (s->start[k] + s->stride[k] * (s->count[k] - 1)) / d->chunk[k];
    }
    return NC_NOERR;
}

static int
chunk_key(NCZ_var *zv, const zvdata *d, const uint64_t *idx, char *buf, size_t cap)
{
    return ncz_chunk_key(&d->enc, zv->key, d->rank, idx, buf, cap);
}

/* ---- the write-back cache ----------------------------------------------------------------- */

static size_t
hash_key(const char *k)
{
    size_t h = 1469598103934665603ull;
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 1099511628211ull;
    return h;
}

static centry *
cache_find(zvdata *d, const char *key)
{
    centry *e = d->buckets[hash_key(key) % d->nbuckets];
    for (; e; e = e->hnext)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

static void
lru_unlink(zvdata *d, centry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        d->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        d->tail = e->prev;
    e->prev = e->next = NULL;
}

static void
lru_front(zvdata *d, centry *e)
{
    e->next = d->head;
    e->prev = NULL;
    if (d->head)
        d->head->prev = e;
    d->head = e;
    if (d->tail == NULL)
        d->tail = e;
}

static void
cache_remove(zvdata *d, centry *e)
{
    centry **pp = &d->buckets[hash_key(e->key) % d->nbuckets];
    while (*pp && *pp != e)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = e->hnext;
    lru_unlink(d, e);
    d->nentries--;
    chunk_release(d, e->data);
    entry_free_shard(e);
    free(e->key);
    /* Keep a few chunk buffers for the next entries (no fresh pages). */
    if (d->nspare < SPARE_MAX)
        d->spare[d->nspare++] = e->data;
    else
        free(e->data);
    free(e);
}

static int
cache_insert(zvdata *d, const char *key, unsigned char *data, centry **ep)
{
    centry *e = calloc(1, sizeof(*e));
    size_t b;
    if (e == NULL || (e->key = strdup(key)) == NULL) {
        free(e);
        return NC_ENOMEM;
    }
    e->data = data;
    b = hash_key(key) % d->nbuckets;
    e->hnext = d->buckets[b];
    d->buckets[b] = e;
    lru_front(d, e);
    d->nentries++;
    *ep = e;
    return NC_NOERR;
}

/* ---- encode and store dirty chunks -------------------------------------------------------- */

typedef struct enc_job {
    centry *e;
    void *out;          /* encoded bytes; owned unless borrowed */
    size_t outlen;
    int borrowed;       /* out is the entry's own data (no codec) */
    int empty;   /* all fill: delete instead of writing */
    int status;
} enc_job;

typedef struct enc_ctx {
    zvdata *d;
    enc_job *jobs;
    ncf_pool *inner; /* pool for a shard's inner chunks */
    NCZ_map *map;    /* directory stores: each task writes its own chunk */
} enc_ctx;

/* The fill whose chunks (inner chunks) are left out; NULL: none are. */
static const void *
skip_fill(const zvdata *d)
{
    return d->keepall ? NULL : d->fill;
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

/* One object of a batch to store (empty: delete it). */
typedef struct zput {
    const char *key;
    const void *out;
    size_t outlen;
    int empty;
    int *status; /* where its result goes */
} zput;

/* Store a batch: deletes one by one, writes with one write_many (concurrent
 * on S3).  Every item gets its status; returns the first error. */
static int
store_batch(NCZ_map *map, zput *puts, size_t n)
{
    NCZ_write_req *reqs;
    size_t nw = 0, k = 0;
    int stat = NC_NOERR;
    if (n == 0)
        return NC_NOERR;
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

/* Store (or delete) job j's chunk. */
static int
store_job(NCZ_map *map, enc_job *j)
{
    int s = store_obj(map, j->e->key, j->empty, j->out, j->outlen);
    if (!j->borrowed)
        free(j->out);
    j->out = NULL;
    return s;
}

static void
enc_task(void *arg, size_t i)
{
    enc_ctx *c = arg;
    enc_job *j = &c->jobs[i];
    zvdata *d = c->d;
    if (d->shard) {
        /* Inner chunks no write touched keep their stored bytes. */
        if (c->map != NULL) {
            j->status = store_shard(c->map, d, j->e->key, j->e->data, j->e->valid, j->e->raw, j->e->pairs, c->inner);
            return;
        }
        j->status = ncz_shard_encode_mixed(d->shard, j->e->data, j->e->valid, j->e->raw, j->e->pairs, skip_fill(d),
                                           c->inner, &j->out, &j->outlen);
        j->empty = j->status == NC_NOERR && j->out == NULL;
        return;
    }
    if (!d->keepall && (d->vstr ? ncz_strings_all_fill((char *const *)(void *)j->e->data, d->chunkelems, fill_str(d))
                                : ncz_all_fill(j->e->data, d->chunkelems, d->esize, d->fill))) {
        j->empty = 1;
        j->status = c->map != NULL ? store_job(c->map, j) : NC_NOERR;
        return;
    }
    if (ncz_pipe_is_raw(d->pipe)) {
        /* Stored as it is in memory: written from the entry, no copy. */
        j->out = j->e->data;
        j->outlen = d->chunkbytes;
        j->borrowed = 1;
    } else {
        j->status = ncz_pipe_encode(d->pipe, j->e->data, d->chunkbytes, &j->out, &j->outlen);
    }
    if (j->status == NC_NOERR && c->map != NULL)
        j->status = store_job(c->map, j);
}

/* Write every dirty chunk; with evict, also drop entries down to keep. */
static int
cache_flush(NC4_file *f, zvdata *d, size_t keep)
{
    NCZ_map *map = ncz_file(f)->map;
    size_t ndirty = 0, k = 0;
    enc_job *jobs;
    enc_ctx c;
    int stat = NC_NOERR;
    for (centry *e = d->head; e; e = e->next)
        ndirty += e->dirty != 0;
    if (ndirty > 0) {
        if ((jobs = calloc(ndirty, sizeof(*jobs))) == NULL)
            return NC_ENOMEM;
        for (centry *e = d->head; e; e = e->next)
            if (e->dirty)
                jobs[k++].e = e;
        c.d = d;
        c.jobs = jobs;
        c.inner = ndirty == 1 ? ncf_pool_default() : NULL;
        /* Directory stores: independent files, written from the tasks. */
        c.map = map->impl == NCZ_MAP_FILE ? map : NULL;
        ncf_pool_run(ncf_pool_default(), ndirty, enc_task, &c);
        if (c.map == NULL) {
            zput *puts = calloc(ndirty, sizeof(*puts));
            size_t np = 0;
            for (k = 0; k < ndirty; k++)
                if (puts == NULL)
                    jobs[k].status = NC_ENOMEM; /* nothing stored: stays dirty */
                else if (jobs[k].status == NC_NOERR)
                    puts[np++] = (zput){jobs[k].e->key, jobs[k].out, jobs[k].outlen, jobs[k].empty, &jobs[k].status};
            if (puts != NULL)
                (void)store_batch(map, puts, np); /* statuses per job, below */
            free(puts);
        }
        for (k = 0; k < ndirty; k++) {
            enc_job *j = &jobs[k];
            int s = j->status;
            if (s == NC_NOERR)
                j->e->dirty = 0;
            else if (stat == NC_NOERR)
                stat = s;
            if (!j->borrowed)
                free(j->out);
        }
        free(jobs);
    }
    /* Drop clean entries from the cold end down to keep. */
    for (centry *e = d->tail, *p; e && d->nentries > keep; e = p) {
        p = e->prev;
        if (!e->dirty)
            cache_remove(d, e);
    }
    return stat;
}

int
ncz_var_flush(NC4_file *f, NC4_var *var)
{
    NCZ_var *zv = ncz_var(var);
    zvdata *d = zv ? zv->cache : NULL;
    int stat;
    if (d == NULL)
        return NC_NOERR;
    pthread_mutex_lock(&d->oplock);
    stat = cache_flush(f, d, d->maxentries);
    pthread_mutex_unlock(&d->oplock);
    return stat;
}

int
ncz_var_set_cache(NC4_file *f, NC4_var *var, size_t size, size_t nelems, float preemption)
{
    NCZ_var *zv = ncz_var(var);
    zvdata *d = zv ? zv->cache : NULL;
    int stat = NC_NOERR;
    (void)nelems;
    (void)preemption;
    if (d == NULL)
        return NC_NOERR;
    pthread_mutex_lock(&d->oplock);
    d->maxentries = d->chunkbytes ? size / d->chunkbytes : 1;
    if (d->maxentries < 4)
        d->maxentries = d->chunkbytes <= ((size_t)64 << 20) ? 4 : 1;
    if (d->nentries > d->maxentries)
        stat = cache_flush(f, d, d->maxentries);
    pthread_mutex_unlock(&d->oplock);
    return stat;
}

/* ---- read ------------------------------------------------------------------------------------ */

typedef struct rd_job {
    size_t *k0, *nk, *l0;        /* rank entries each (in rd_ctx's index pool) */
    const unsigned char *cached; /* chunk from the cache */
    int absent;                  /* known absent (empty in its shard's index): fill */
    int direct;                  /* decode straight into the caller's buffer */
    NCZ_read_req *req;
    int status;
} rd_job;

typedef struct rd_ctx {
    zvdata *d;
    const sel *s;
    unsigned char *out;
    rd_job *jobs;
    ncf_pool *inner;
    NCZ_map *map;
    int fetch;      /* each task reads its own chunk (directory stores) */
} rd_ctx;

/* Where job j's part starts in the caller's buffer (element offset). */
static size_t
user_off(const sel *s, const rd_job *j)
{
    size_t off = 0;
    for (int k = 0; k < s->rank; k++)
        off += j->k0[k] * s->ustr[k];
    return off;
}

/* Copy job j's part of chunk into out (strings: copies of them). */
static int
copy_part(const zvdata *d, const sel *s, const rd_job *j, const unsigned char *chunk, unsigned char *out)
{
    size_t soff = 0, sstr[NC_MAX_VAR_DIMS];
    for (int k = 0; k < s->rank; k++) {
        soff += j->l0[k] * d->cstr[k];
        sstr[k] = s->stride[k] * d->cstr[k];
    }
    if (d->vstr)
        return ncz_strings_copy_strided(s->rank, j->nk, (char *const *)(const void *)chunk + soff, sstr,
                                        (char **)(void *)out + user_off(s, j), s->ustr);
    ncz_copy_strided(s->rank, d->esize, j->nk, chunk + soff * d->esize, sstr, out + user_off(s, j) * d->esize,
                     s->ustr);
    return NC_NOERR;
}

static void
rd_task(void *arg, size_t i)
{
    rd_ctx *c = arg;
    rd_job *j = &c->jobs[i];
    zvdata *d = c->d;
    unsigned char *tmp = NULL;
    const unsigned char *src, *raw;
    size_t rawlen;
    int stat = NC_NOERR;
    if (j->cached) {
        j->status = copy_part(d, c->s, j, j->cached, c->out);
        return;
    }
    if (j->absent) {
        if ((src = fill_chunk(d)) == NULL)
            stat = NC_ENOMEM;
        else
            stat = copy_part(d, c->s, j, src, c->out);
        j->status = stat;
        return;
    }
    if (c->fetch) {
        /* Directory store: open/pread/close, safe from several threads. */
        uint64_t len = j->req->count;
        unsigned char *buf = NULL;
        if (len == (uint64_t)-1)
            stat = c->map->ops->len(c->map, j->req->key, &len);
        if (stat == NC_NOERR && len > ((size_t)1 << 40))
            stat = NC_ENCZARR;
        if (stat == NC_NOERR && (buf = ncz_scratch(0, (size_t)len)) == NULL)
            stat = NC_ENOMEM;
        if (stat == NC_NOERR)
            stat = c->map->ops->read(c->map, j->req->key, j->req->start, len, buf);
        j->req->status = stat;
        raw = buf;
        rawlen = (size_t)len;
        stat = NC_NOERR;
    } else {
        raw = j->req->data;
        rawlen = j->req->len;
    }
    if (j->req->status == NC_EEMPTY) {
        if ((src = fill_chunk(d)) == NULL)
            stat = NC_ENOMEM;
        else
            stat = copy_part(d, c->s, j, src, c->out);
        j->status = stat;
        return;
    }
    if (j->req->status != NC_NOERR) {
        j->status = j->req->status;
        return;
    }
    if (j->direct) {
        tmp = c->out + user_off(c->s, j) * d->esize;
    } else if ((tmp = ncz_scratch(1, d->chunkbytes)) == NULL) {
        j->status = NC_ENOMEM;
        return;
    }
    if (d->shard)
        stat = ncz_shard_decode(d->shard, raw, rawlen, tmp, d->fill, c->inner);
    else
        stat = ncz_pipe_decode(d->pipe, raw, rawlen, tmp, d->chunkbytes);
    if (stat == NC_NOERR && !j->direct) {
        stat = copy_part(d, c->s, j, tmp, c->out);
        chunk_release(d, tmp); /* the scratch chunk's own strings */
    }
    free(j->req->data);
    j->req->data = NULL;
    j->status = stat;
}

/* Is the part of job j the whole chunk, lying contiguously in the caller's buffer? */
static int
is_direct(const zvdata *d, const sel *s, const rd_job *j)
{
    int k;
    for (k = 0; k < s->rank; k++)
        if (j->nk[k] != d->chunk[k] || (s->stride[k] != 1 && d->chunk[k] > 1))
            return 0;
    /* Contiguous: below the first axis the selection must be the chunk itself. */
    for (k = 1; k < s->rank; k++)
        if (s->count[k] != d->chunk[k])
            return 0;
    return 1;
}

static int
run_read_batch(NC4_file *f, zvdata *d, const sel *s, unsigned char *out, rd_job *jobs, NCZ_read_req *reqs,
               size_t njobs, size_t nreqs)
{
    NCZ_map *map = ncz_file(f)->map;
    rd_ctx c;
    int stat = NC_NOERR;
    c.map = map;
    c.fetch = map->impl == NCZ_MAP_FILE;
    if (nreqs > 0 && !c.fetch) {
        stat = map->ops->read_many(map, nreqs, reqs);
        if (stat && stat != NC_EEMPTY) {
            for (size_t i = 0; i < nreqs; i++)
                free(reqs[i].data);
            return stat;
        }
        stat = NC_NOERR;
    }
    c.d = d;
    c.s = s;
    c.out = out;
    c.jobs = jobs;
    c.inner = njobs == 1 ? ncf_pool_default() : NULL;
    ncf_pool_run(ncf_pool_default(), njobs, rd_task, &c);
    for (size_t i = 0; i < njobs; i++)
        if (jobs[i].status && stat == NC_NOERR)
            stat = jobs[i].status;
    for (size_t i = 0; i < nreqs; i++)
        free(reqs[i].data);
    return stat;
}

/* Read selection s in memory form (esize bytes per element) into out. */
static int
read_sel(NC4_file *f, NC4_var *var, zvdata *d, const sel *s, unsigned char *out)
{
    NCZ_var *zv = ncz_var(var);
    size_t maxjobs = BATCH_BYTES / (d->chunkbytes ? d->chunkbytes : 1), njobs = 0, nreqs = 0;
    uint64_t idx[NC_MAX_VAR_DIMS];
    rd_job *jobs = NULL;
    NCZ_read_req *reqs = NULL;
    char **keys = NULL;
    size_t *ixpool = NULL, rk = s->rank > 0 ? (size_t)s->rank : 1, nchunks = 1;
    int stat = NC_NOERR;
    int nthreads = ncf_pool_default() ? ncf_pool_nthreads(ncf_pool_default()) : 1;
    if (maxjobs < (size_t)nthreads * 2)
        maxjobs = (size_t)nthreads * 2;
    if (maxjobs > 4096)
        maxjobs = 4096;
    /* No more jobs than chunks in the box touched. */
    for (int k = 0; k < s->rank && nchunks <= maxjobs; k++)
        nchunks *= (size_t)(s->chi[k] - s->clo[k] + 1);
    if (nchunks < maxjobs)
        maxjobs = nchunks;
    jobs = calloc(maxjobs, sizeof(*jobs));
    reqs = calloc(maxjobs, sizeof(*reqs));
    keys = calloc(maxjobs, sizeof(char *));
    ixpool = calloc(maxjobs * 3 * rk, sizeof(size_t));
    if (jobs == NULL || reqs == NULL || keys == NULL || ixpool == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < maxjobs; i++) {
        jobs[i].k0 = ixpool + i * 3 * rk;
        jobs[i].nk = jobs[i].k0 + rk;
        jobs[i].l0 = jobs[i].nk + rk;
    }
    for (int k = 0; k < s->rank; k++)
        idx[k] = s->clo[k];
    for (int more = 1; more && stat == NC_NOERR;) {
        rd_job *j = &jobs[njobs];
        char key[4096];
        centry *e;
        if (chunk_part(d, s, idx, j->k0, j->nk, j->l0)) {
            uint64_t off = 0, cnt = (uint64_t)-1;
            j->cached = NULL;
            j->req = NULL;
            j->absent = 0;
            j->direct = 0;
            if (d->tab != NULL) {
                /* An inner chunk: its shard's key and index entry. */
                const shardtab *t = d->tab;
                size_t lin = 0, in = 0;
                for (int k = 0; k < s->rank; k++) {
                    uint64_t sh = idx[k] / t->geom->nper[k];
                    lin = lin * t->n[k] + (size_t)(sh - t->lo[k]);
                    in = in * t->geom->nper[k] + (size_t)(idx[k] % t->geom->nper[k]);
                }
                if (t->pairs[lin] == NULL || t->pairs[lin][2 * in] == NCZ_SHARD_EMPTY) {
                    j->absent = 1;
                    njobs++;
                    goto next;
                }
                off = t->pairs[lin][2 * in];
                cnt = t->pairs[lin][2 * in + 1];
                snprintf(key, sizeof(key), "%s", t->keys[lin]);
            } else if ((stat = chunk_key(zv, d, idx, key, sizeof(key)))) {
                break;
            }
            if (d->tab == NULL && (e = cache_find(d, key)) != NULL) {
                j->cached = e->data;
            } else {
                NCZ_read_req *r = &reqs[nreqs];
                if ((keys[nreqs] = strdup(key)) == NULL) {
                    stat = NC_ENOMEM;
                    break;
                }
                memset(r, 0, sizeof(*r));
                r->key = keys[nreqs];
                r->start = off;
                r->count = cnt;
                j->req = r;
                j->direct = is_direct(d, s, j);
                nreqs++;
            }
            njobs++;
        }
    next:
        more = s->rank > 0 ? next_chunk(s, idx) : 0;
        if (njobs == maxjobs || (!more && njobs > 0)) {
            stat = run_read_batch(f, d, s, out, jobs, reqs, njobs, nreqs);
            for (size_t i = 0; i < nreqs; i++) {
                free(keys[i]);
                keys[i] = NULL;
            }
            njobs = nreqs = 0;
        }
    }
done:
    if (keys)
        for (size_t i = 0; i < nreqs; i++)
            free(keys[i]);
    free(keys);
    free(reqs);
    free(jobs);
    free(ixpool);
    return stat;
}

/* Read a sharded variable by inner chunks: the indexes of the shards
 * touched first (one ranged read each), then every inner chunk touched by
 * a ranged read of its bytes, decoded on the pool like plain chunks.  Dirty
 * shards in the write cache are written first. */
static int
read_sel_sharded(NC4_file *f, NC4_var *var, zvdata *d, const sel *s, unsigned char *out)
{
    NCZ_var *zv = ncz_var(var);
    NCZ_map *map = ncz_file(f)->map;
    const ncz_shard *g = d->shard;
    size_t isz = ncz_shard_index_size(g), nsh = 1;
    shardtab t;
    zvdata *v = NULL;
    sel si;
    uint64_t idx[NC_MAX_VAR_DIMS];
    unsigned char *ibuf = NULL;
    int stat = NC_NOERR;
    for (centry *e = d->head; e; e = e->next)
        if (e->dirty) {
            if ((stat = cache_flush(f, d, d->maxentries)))
                return stat;
            break;
        }
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
        char key[4096];
        uint64_t len = 0;
        if ((stat = chunk_key(zv, d, idx, key, sizeof(key))))
            break;
        if ((t.keys[i] = strdup(key)) == NULL) {
            stat = NC_ENOMEM;
            break;
        }
        stat = map->ops->len(map, key, &len);
        if (stat == NC_EEMPTY) {
            stat = NC_NOERR; /* no shard: all fill */
        } else if (stat == NC_NOERR) {
            if (len < isz) {
                stat = NC_ENCZARR;
                break;
            }
            if ((stat = map->ops->read(map, key, g->at_start ? 0 : len - isz, isz, ibuf)))
                break;
            if ((t.pairs[i] = malloc(2 * g->ninner * sizeof(uint64_t))) == NULL) {
                stat = NC_ENOMEM;
                break;
            }
            stat = ncz_shard_index_decode(g, ibuf, isz, len, t.pairs[i]);
        }
        if (s->rank > 0)
            (void)next_chunk(s, idx);
    }
    if (stat)
        goto done;
    /* The inner-chunk view of the variable. */
    if ((v = malloc(sizeof(*v))) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    *v = *d;
    v->shard = NULL;
    v->tab = &t;
    v->chunkelems = 1;
    for (int k = 0; k < d->rank; k++) {
        v->chunk[k] = g->inner[k];
        v->chunkelems *= g->inner[k];
    }
    v->chunkbytes = v->chunkelems * d->esize;
    /* A fill chunk of the inner size (the shard-sized one is not needed). */
    if ((v->fillchunk = malloc(v->chunkbytes ? v->chunkbytes : 1)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    memcpy(v->fillchunk, d->fill, d->esize);
    for (size_t done = 1; done < v->chunkelems;) {
        size_t k = done < v->chunkelems - done ? done : v->chunkelems - done;
        memcpy(v->fillchunk + done * d->esize, v->fillchunk, k * d->esize);
        done += k;
    }
    if (d->rank > 0) {
        v->cstr[d->rank - 1] = 1;
        for (int k = d->rank - 2; k >= 0; k--)
            v->cstr[k] = v->cstr[k + 1] * v->chunk[k + 1];
    }
    si = *s;
    for (int k = 0; k < s->rank; k++) {
        si.clo[k] = s->start[k] / v->chunk[k];
        si.chi[k] = (s->start[k] + s->stride[k] * (s->count[k] - 1)) / v->chunk[k];
    }
    stat = read_sel(f, var, v, &si, out);
done:
    if (v != NULL)
        free(v->fillchunk);
    free(v);
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

/* ---- write ---------------------------------------------------------------------------------- */

/* A new cache entry for a shard a write covers in part: the stored shard
 * and its index are kept, no inner chunk is decoded yet (prepare_inner
 * does, for the ones a write covers in part). */
static int
shard_entry(NC4_file *f, zvdata *d, const char *key, unsigned char *data, centry **ep)
{
    NCZ_map *map = ncz_file(f)->map;
    const ncz_shard *g = d->shard;
    size_t isz = ncz_shard_index_size(g);
    void *raw = NULL;
    size_t len = 0;
    uint64_t *pairs = NULL;
    unsigned char *valid = NULL;
    int stat = map->ops->read_all(map, key, &raw, &len);
    if (stat == NC_EEMPTY) {
        stat = NC_NOERR; /* no shard yet: every inner chunk is fill */
    } else if (stat == NC_NOERR) {
        if (len < isz)
            stat = NC_ENCZARR;
        else if ((pairs = malloc(2 * g->ninner * sizeof(uint64_t))) == NULL)
            stat = NC_ENOMEM;
        else
            stat = ncz_shard_index_decode(g, (unsigned char *)raw + (g->at_start ? 0 : len - isz), isz, len, pairs);
    }
    if (stat == NC_NOERR && (valid = calloc(g->ninner, 1)) == NULL)
        stat = NC_ENOMEM;
    if (stat == NC_NOERR) {
        if (d->vstr)
            memset(data, 0, d->chunkbytes); /* strings appear as inner chunks are brought in */
        stat = cache_insert(d, key, data, ep);
    }
    if (stat) {
        free(raw);
        free(pairs);
        free(valid);
        free(data);
        return stat;
    }
    if (raw == NULL) {
        free(pairs);
        pairs = NULL;
    }
    (*ep)->raw = raw;
    (*ep)->pairs = pairs;
    (*ep)->valid = valid;
    return NC_NOERR;
}

/* Before a write into shard entry e at offset l0, count nk, stride st (in
 * the shard): the inner chunks it covers entirely become valid as they
 * are, the ones it covers in part are decoded (or filled) first. */
static int
prepare_inner(zvdata *d, centry *e, const size_t *l0, const size_t *nk, const size_t *st)
{
    const ncz_shard *g = d->shard;
    size_t lo[NC_MAX_VAR_DIMS], hi[NC_MAX_VAR_DIMS], c[NC_MAX_VAR_DIMS];
    int r = g->rank, stat = NC_NOERR;
    if (e->valid == NULL)
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
            size_t a = c[k] * g->inner[k], b = a + g->inner[k] - 1;
            i = i * g->nper[k] + c[k];
            if (!(st[k] == 1 || nk[k] == 1) || l0[k] > a || l0[k] + (nk[k] - 1) * st[k] < b)
                whole = 0;
        }
        if (!e->valid[i]) {
            if (!whole && (stat = ncz_shard_decode_one(g, e->raw, e->pairs, i, e->data, d->fill)))
                return stat;
            e->valid[i] = 1;
        }
        int k = r - 1;
        for (; k >= 0; k--) {
            if (++c[k] <= hi[k])
                break;
            c[k] = lo[k];
        }
        if (k < 0)
            break;
    }
    return stat;
}

/* The cache entry of chunk key, created (read and decoded, or fill) if
 * absent; whole: the write covers the chunk entirely (no read needed). */
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

static int
get_entry(NC4_file *f, zvdata *d, const char *key, int whole, centry **ep)
{
    NCZ_map *map = ncz_file(f)->map;
    centry *e = cache_find(d, key);
    unsigned char *data;
    int stat;
    if (e != NULL) {
        lru_unlink(d, e);
        lru_front(d, e);
        *ep = e;
        return NC_NOERR;
    }
    /* Full: write every dirty chunk (in parallel) and keep the newer half,
     * so the next flush again has several chunks to encode at once. */
    if (d->nentries >= d->maxentries && (stat = cache_flush(f, d, d->maxentries / 2)))
        return stat;
    /* A chunk of zero fill (NOFILL, or a fill of zero bytes) about to be
     * read as absent starts as fresh zero pages: no fill chunk copied in. */
    int zeroed = 0;
    if (d->nspare > 0) {
        data = d->spare[--d->nspare];
    } else if (!whole && !d->vstr && d->shard == NULL && d->zerofill) {
        if ((data = calloc(1, d->chunkbytes ? d->chunkbytes : 1)) == NULL)
            return NC_ENOMEM;
        zeroed = 1;
        huge_pages(data, d->chunkbytes);
    } else if ((data = malloc(d->chunkbytes ? d->chunkbytes : 1)) == NULL) {
        return NC_ENOMEM;
    }
    if (d->shard != NULL && !whole)
        return shard_entry(f, d, key, data, ep);
    if (whole && d->vstr) {
        memset(data, 0, d->chunkbytes); /* no strings yet: the write replaces NULLs */
    } else if (!whole) {
        void *raw = NULL;
        size_t len = 0;
        stat = map->ops->read_all(map, key, &raw, &len);
        if (stat == NC_EEMPTY && d->vstr) {
            stat = ncz_strings_fill((char **)(void *)data, d->chunkelems, fill_str(d));
        } else if (stat == NC_EEMPTY && d->zerofill) {
            if (!zeroed)
                memset(data, 0, d->chunkbytes);
            stat = NC_NOERR;
        } else if (stat == NC_EEMPTY) {
            const unsigned char *fc = fill_chunk(d);
            if (fc == NULL)
                stat = NC_ENOMEM;
            else {
                memcpy(data, fc, d->chunkbytes);
                stat = NC_NOERR;
            }
        } else if (stat == NC_NOERR) {
            stat = ncz_pipe_decode(d->pipe, raw, len, data, d->chunkbytes);
        }
        free(raw);
        if (stat) {
            free(data);
            return stat;
        }
    }
    if ((stat = cache_insert(d, key, data, ep))) {
        chunk_release(d, data);
        free(data);
        return stat;
    }
    return NC_NOERR;
}

/* Whole chunks a write covers and the cache does not hold are encoded
 * straight from the caller's data, a batch at a time on the pool, with no
 * cache copy (the copy and the cache's half-flushes were the serial part
 * of a large write). */
#define DIRECT_BATCH 64

typedef struct dw_job {
    char *key;
    size_t soff;        /* element offset of the chunk's first element in src */
    void *out;          /* encoded bytes; owned unless borrowed */
    size_t outlen;
    int borrowed;       /* out points into src */
    int empty;          /* all fill: delete instead of writing */
    int status;
} dw_job;

typedef struct dw_ctx {
    zvdata *d;
    const sel *s;
    const unsigned char *src;
    int contiguous;     /* each whole chunk is one run of src */
    NCZ_map *map;       /* directory stores: each task writes its own chunk */
    dw_job *jobs;
} dw_ctx;

static void
dw_task(void *arg, size_t i)
{
    dw_ctx *c = arg;
    dw_job *j = &c->jobs[i];
    zvdata *d = c->d;
    const unsigned char *data = c->src + j->soff * d->esize;
    int scratch = 0;
    if (!c->contiguous) {
        unsigned char *buf = ncz_scratch(1, d->chunkbytes);
        if (buf == NULL) {
            j->status = NC_ENOMEM;
            return;
        }
        ncz_copy_strided(c->s->rank, d->esize, d->chunk, data, c->s->ustr, buf, d->cstr);
        data = buf;
        scratch = 1;
    }
    if (!d->keepall && (d->vstr ? ncz_strings_all_fill((char *const *)(const void *)data, d->chunkelems, fill_str(d))
                                : ncz_all_fill(data, d->chunkelems, d->esize, d->fill))) {
        j->empty = 1;
    } else if (ncz_pipe_is_raw(d->pipe) && (c->map != NULL || !scratch)) {
        j->out = (void *)data;
        j->outlen = d->chunkbytes;
        j->borrowed = 1;
    } else if ((j->status = ncz_pipe_encode(d->pipe, data, d->chunkbytes, &j->out, &j->outlen))) {
        return;
    }
    if (c->map != NULL) {
        j->status = store_obj(c->map, j->key, j->empty, j->out, j->outlen);
        if (!j->borrowed)
            free(j->out);
        j->out = NULL;
    }
}

/* Encode and store jobs[0..n); frees their keys and outputs. */
static int
run_direct(NC4_file *f, zvdata *d, const sel *s, const unsigned char *src, dw_job *jobs, size_t n)
{
    NCZ_map *map = ncz_file(f)->map;
    dw_ctx c;
    int stat = NC_NOERR;
    c.d = d;
    c.s = s;
    c.src = src;
    c.contiguous = 1;
    for (int k = 1; k < s->rank; k++)
        if (s->count[k] != d->chunk[k])
            c.contiguous = 0;
    c.map = map->impl == NCZ_MAP_FILE ? map : NULL;
    c.jobs = jobs;
    ncf_pool_run(ncf_pool_default(), n, dw_task, &c);
    if (c.map == NULL) {
        zput puts[DIRECT_BATCH];
        size_t np = 0;
        for (size_t i = 0; i < n; i++)
            if (jobs[i].status == NC_NOERR)
                puts[np++] = (zput){jobs[i].key, jobs[i].out, jobs[i].outlen, jobs[i].empty, &jobs[i].status};
        (void)store_batch(map, puts, np); /* statuses per job, below */
    }
    for (size_t i = 0; i < n; i++) {
        dw_job *j = &jobs[i];
        int st = j->status;
        if (st != NC_NOERR && stat == NC_NOERR)
            stat = st;
        if (!j->borrowed)
            free(j->out);
        free(j->key);
    }
    memset(jobs, 0, n * sizeof(*jobs));
    return stat;
}

static int
write_sel(NC4_file *f, NC4_var *var, zvdata *d, const sel *s, const unsigned char *src)
{
    NCZ_var *zv = ncz_var(var);
    uint64_t idx[NC_MAX_VAR_DIMS];
    size_t k0[NC_MAX_VAR_DIMS], nk[NC_MAX_VAR_DIMS], l0[NC_MAX_VAR_DIMS];
    dw_job direct[DIRECT_BATCH];
    size_t ndirect = 0;
    /* Fixed-width strings are converted per element on their way in: cache
     * path; vlen strings encode from the caller's pointers. */
    int can_direct = d->shard == NULL && (var->xtype != NC_STRING || d->vstr) && s->rank > 0;
    int stat = NC_NOERR;
    memset(direct, 0, sizeof(direct));
    for (int k = 0; k < s->rank; k++)
        idx[k] = s->clo[k];
    for (int more = 1; more && stat == NC_NOERR;) {
        char key[4096];
        centry *e;
        if (chunk_part(d, s, idx, k0, nk, l0)) {
            int whole = 1;
            size_t soff = 0, doff = 0, dstr[NC_MAX_VAR_DIMS];
            for (int k = 0; k < s->rank; k++)
                if (nk[k] != d->chunk[k])
                    whole = 0;
            if ((stat = chunk_key(zv, d, idx, key, sizeof(key))))
                break;
            if (whole && d->shard != NULL && cache_find(d, key) == NULL) {
                /* A whole shard written at once: encode it from the caller's
                 * data (no shard-sized cache copy). */
                int contiguous = 1;
                for (int k = 1; k < s->rank; k++)
                    if (s->count[k] != d->chunk[k])
                        contiguous = 0;
                for (int k = 0; k < s->rank; k++)
                    if (s->stride[k] != 1 && d->chunk[k] > 1)
                        contiguous = 0;
                if (contiguous) {
                    size_t off = 0;
                    for (int k = 0; k < s->rank; k++)
                        off += k0[k] * s->ustr[k];
                    if ((stat = store_shard(ncz_file(f)->map, d, key, src + off * d->esize, NULL, NULL, NULL,
                                            ncf_pool_default())))
                        break;
                    goto next;
                }
            }
            if (whole && can_direct && cache_find(d, key) == NULL) {
                for (int k = 0; k < s->rank; k++)
                    soff += k0[k] * s->ustr[k];
                if ((direct[ndirect].key = strdup(key)) == NULL) {
                    stat = NC_ENOMEM;
                    break;
                }
                direct[ndirect++].soff = soff;
                if (ndirect == DIRECT_BATCH) {
                    stat = run_direct(f, d, s, src, direct, ndirect);
                    ndirect = 0;
                }
                goto next;
            }
            if ((stat = get_entry(f, d, key, whole, &e)))
                break;
            if (e->valid != NULL && (stat = prepare_inner(d, e, l0, nk, s->stride)))
                break;
            for (int k = 0; k < s->rank; k++) {
                soff += k0[k] * s->ustr[k];
                doff += l0[k] * d->cstr[k];
                dstr[k] = s->stride[k] * d->cstr[k];
            }
            e->dirty = 1;
            if (d->vstr) {
                if ((stat = ncz_strings_copy_strided(s->rank, nk, (char *const *)(const void *)src + soff, s->ustr,
                                                     (char **)(void *)e->data + doff, dstr)))
                    break;
            } else {
                ncz_copy_strided(s->rank, d->esize, nk, src + soff * d->esize, s->ustr,
                                 e->data + doff * d->esize, dstr);
            }
        }
    next:
        more = s->rank > 0 ? next_chunk(s, idx) : 0;
    }
    if (ndirect > 0) {
        int st = run_direct(f, d, s, src, direct, ndirect);
        if (stat == NC_NOERR)
            stat = st;
    }
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

static int
range_ignored(NC4_file *f, NC4_var *var, nc_type memtype)
{
    return f->classic_model && (var->xtype == NC_BYTE || var->xtype == NC_UBYTE) &&
           (memtype == NC_BYTE || memtype == NC_UBYTE);
}

/* No buffer for a selection that is not empty: what the netCDF-4 path
 * answers (HDF5 refuses the read or write). */
#define NO_BUFFER NC_EHDFERR

static int
var_get(NC4_file *f, NC4_var *var, zvdata *d, const size_t *start, const size_t *count, const ptrdiff_t *stride,
        nc_type memtype, void *buf)
{
    sel s;
    unsigned char *tmp = NULL;
    int stat, range = 0;
    if ((stat = make_sel(var, d, start, count, stride, 0, &s)))
        return stat;
    if (s.n == 0)
        return NC_NOERR;
    if (buf == NULL)
        return NO_BUFFER;
    if (d->vstr) {
        /* Read into NULLs, so whatever a failed read made can be freed. */
        if ((tmp = calloc(s.n, sizeof(char *))) == NULL)
            return NC_ENOMEM;
    } else if (memtype != var->xtype || var->xtype == NC_STRING) {
        if (s.n > SIZE_MAX / d->esize || (tmp = malloc(s.n * d->esize)) == NULL)
            return NC_ENOMEM;
    }
    if (d->shard != NULL)
        stat = read_sel_sharded(f, var, d, &s, tmp ? tmp : buf);
    else
        stat = read_sel(f, var, d, &s, tmp ? tmp : buf);
    if (stat) {
        if (d->vstr)
            ncz_strings_free((char **)(void *)tmp, s.n);
        goto done;
    }
    if (d->vstr) {
        /* The copies are the caller's; an empty string is a fresh "". */
        char **got = (char **)(void *)tmp, **out = buf;
        for (size_t i = 0; i < s.n && stat == NC_NOERR; i++)
            if (got[i] == NULL && (got[i] = calloc(1, 1)) == NULL)
                stat = NC_ENOMEM;
        if (stat)
            ncz_strings_free(got, s.n);
        else
            memcpy(out, got, s.n * sizeof(char *));
    } else if (var->xtype == NC_STRING) {
        char **out = buf;
        for (size_t i = 0; i < s.n; i++) {
            const char *p = (const char *)tmp + i * d->esize;
            size_t l = strnlen(p, d->esize);
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
        stat = ncx_convert(var->xtype, tmp, memtype, buf, s.n);
        if (stat == NC_ERANGE) {
            stat = NC_NOERR;
            range = !range_ignored(f, var, memtype);
        }
    }
done:
    free(tmp);
    if (stat)
        return stat;
    return range ? NC_ERANGE : NC_NOERR;
}

int
ncz_var_get(NC4_file *f, NC4_var *var, const size_t *start, const size_t *count, const ptrdiff_t *stride,
            nc_type memtype, void *buf)
{
    zvdata *d;
    int stat;
    if ((stat = resolve_memtype(var, &memtype)))
        return stat;
    if ((stat = setup(f, var, &d)))
        return stat;
    pthread_mutex_lock(&d->oplock);
    stat = var_get(f, var, d, start, count, stride, memtype, buf);
    pthread_mutex_unlock(&d->oplock);
    return stat;
}

static int
var_put(NC4_file *f, NC4_var *var, zvdata *d, const size_t *start, const size_t *count, const ptrdiff_t *stride,
        nc_type memtype, const void *buf)
{
    sel s;
    unsigned char *tmp = NULL;
    const unsigned char *src = buf;
    int stat, range = 0;
    if ((stat = make_sel(var, d, start, count, stride, 1, &s)))
        return stat;
    if (s.n == 0)
        return NC_NOERR;
    if (buf == NULL)
        return NO_BUFFER;
    if (d->vstr) {
        src = buf; /* the caller's char *s: write_sel stores copies */
    } else if (var->xtype == NC_STRING) {
        const char *const *in = buf;
        if (s.n > SIZE_MAX / d->esize || (tmp = calloc(s.n, d->esize)) == NULL)
            return NC_ENOMEM;
        for (size_t i = 0; i < s.n; i++)
            if (in[i] != NULL)
                memcpy(tmp + i * d->esize, in[i], strnlen(in[i], d->esize));
        src = tmp;
    } else if (memtype != var->xtype) {
        if (s.n > SIZE_MAX / d->esize || (tmp = malloc(s.n * d->esize)) == NULL)
            return NC_ENOMEM;
        stat = ncx_convert(memtype, buf, var->xtype, tmp, s.n);
        if (stat == NC_ERANGE) {
            stat = NC_NOERR;
            range = !range_ignored(f, var, memtype);
        }
        if (stat)
            goto done;
        src = tmp;
    }
    if (var->quantize_mode && (var->xtype == NC_FLOAT || var->xtype == NC_DOUBLE)) {
        if (tmp == NULL) {
            if (s.n > SIZE_MAX / d->esize || (tmp = malloc(s.n * d->esize)) == NULL)
                return NC_ENOMEM;
            memcpy(tmp, buf, s.n * d->esize);
            src = tmp;
        }
        stat = var->xtype == NC_FLOAT
                   ? ncf_quantize_float(var->quantize_mode, var->nsd, var->fill_value, (float *)tmp, s.n)
                   : ncf_quantize_double(var->quantize_mode, var->nsd, var->fill_value, (double *)tmp, s.n);
        if (stat)
            goto done;
    }
    if ((stat = write_sel(f, var, d, &s, src)))
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
    pthread_mutex_lock(&d->oplock);
    stat = var_put(f, var, d, start, count, stride, memtype, buf);
    pthread_mutex_unlock(&d->oplock);
    return stat;
}
