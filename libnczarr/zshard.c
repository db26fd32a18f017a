/* zshard.c: Zarr v3 sharding_indexed.
 *
 * A shard holds the inner chunks of one outer chunk, each encoded by the
 * inner codecs, plus an index of ninner (offset, nbytes) pairs of
 * little-endian uint64 in C order over the inner grid (both 2^64-1: the
 * inner chunk is absent), itself followed by its crc32c when index_codecs
 * say so; the index sits at the start or the end of the shard.  Shards come
 * from anywhere: every index entry is checked against the shard's size.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "zdata.h"
#include "ncbyteorder.h"

#define MAX_INNER ((size_t)1 << 26)

int
ncz_shard_init(ncz_shard *s, int rank, const size_t *shape, const size_t *inner, size_t typesize,
               int at_start, int crc, const ncz_pipe *pipe)
{
    if (rank < 0 || rank > NC_MAX_VAR_DIMS || typesize == 0)
        return NC_EINVAL;
    s->rank = rank;
    s->ninner = 1;
    s->typesize = typesize;
    s->at_start = at_start;
    s->crc = crc;
    s->pipe = pipe;
    s->vlen = pipe != NULL && ncz_pipe_is_vlen(pipe);
    for (int d = 0; d < rank; d++) {
        if (inner[d] == 0 || shape[d] == 0 || shape[d] % inner[d] != 0)
            return NC_ENCZARR;
        s->shape[d] = shape[d];
        s->inner[d] = inner[d];
        s->nper[d] = shape[d] / inner[d];
        if (s->nper[d] > MAX_INNER || s->ninner * s->nper[d] > MAX_INNER)
            return NC_ENCZARR;
        s->ninner *= s->nper[d];
    }
    return NC_NOERR;
}

size_t
ncz_shard_index_size(const ncz_shard *s)
{
    return s->ninner * 16 + (s->crc ? 4 : 0);
}

int
ncz_shard_index_decode(const ncz_shard *s, const void *idx, size_t idxlen, uint64_t shardlen,
                       uint64_t *pairs)
{
    const unsigned char *b = idx;
    size_t isz = ncz_shard_index_size(s);
    uint64_t lo, hi; /* where chunk data may lie */
    if (idxlen != isz || shardlen < isz)
        return NC_ENCZARR;
    if (s->crc && ncf_crc32c(b, isz - 4) != nc_get_le32(b + isz - 4))
        return NC_ENCZARR;
    lo = s->at_start ? isz : 0;
    hi = s->at_start ? shardlen : shardlen - isz;
    for (size_t i = 0; i < s->ninner; i++) {
        uint64_t off = nc_get_le64(b + 16 * i), n = nc_get_le64(b + 16 * i + 8);
        if (off == NCZ_SHARD_EMPTY && n == NCZ_SHARD_EMPTY) {
            pairs[2 * i] = pairs[2 * i + 1] = NCZ_SHARD_EMPTY;
            continue;
        }
        if (off < lo || off > hi || n > hi - off)
            return NC_ENCZARR;
        pairs[2 * i] = off;
        pairs[2 * i + 1] = n;
    }
    return NC_NOERR;
}

/* ---- whole-shard decode --------------------------------------------------------- */

typedef struct dec_ctx {
    const ncz_shard *s;
    const unsigned char *shard;
    const uint64_t *pairs;
    unsigned char *dst;
    const void *fill;
    size_t chunkbytes;
    int stat;
    pthread_mutex_t lock;
} dec_ctx;

/* Position of inner chunk i in the shard array: its origin's element offset. */
static void
inner_geom(const ncz_shard *s, size_t i, size_t *origin_off, size_t *sstr)
{
    size_t off = 0, st = 1;
    for (int d = s->rank - 1; d >= 0; d--) {
        size_t c = i % s->nper[d];
        i /= s->nper[d];
        sstr[d] = st;
        off += c * s->inner[d] * st;
        st *= s->shape[d];
    }
    *origin_off = off;
}

/* Bytes of one inner chunk in memory. */
static size_t
inner_bytes(const ncz_shard *s)
{
    size_t n = s->typesize;
    for (int d = 0; d < s->rank; d++)
        n *= s->inner[d];
    return n;
}

static void
fill_elems(unsigned char *buf, size_t n, size_t esize, const void *fill)
{
    if (fill == NULL)
        memset(buf, 0, n * esize);
    else
        ncc_fill_elems(buf, n, esize, fill);
}

static void
dec_task(void *arg, size_t i)
{
    dec_ctx *c = arg;
    const ncz_shard *s = c->s;
    size_t origin, sstr[NC_MAX_VAR_DIMS], cstr[NC_MAX_VAR_DIMS];
    unsigned char *tmp;
    int stat;
    inner_geom(s, i, &origin, sstr);
    if ((tmp = ncz_scratch(2, c->chunkbytes)) == NULL) {
        stat = NC_ENOMEM;
        goto out;
    }
    if (c->pairs[2 * i] == NCZ_SHARD_EMPTY && s->vlen) {
        /* Strings: each element its own copy of the fill string. */
        stat = ncz_strings_fill((char **)(void *)tmp, c->chunkbytes / s->typesize,
                                c->fill ? *(char *const *)c->fill : NULL);
    } else if (c->pairs[2 * i] == NCZ_SHARD_EMPTY) {
        fill_elems(tmp, c->chunkbytes / s->typesize, s->typesize, c->fill);
        stat = NC_NOERR;
    } else {
        stat = ncz_pipe_decode(s->pipe, c->shard + c->pairs[2 * i], (size_t)c->pairs[2 * i + 1], tmp,
                               c->chunkbytes);
    }
    if (stat == NC_NOERR) {
        size_t st = 1;
        for (int d = s->rank - 1; d >= 0; d--) {
            cstr[d] = st;
            st *= s->inner[d];
        }
        ncz_copy_strided(s->rank, s->typesize, s->inner, tmp, cstr, c->dst + origin * s->typesize, sstr);
    }
out:
    if (stat) {
        pthread_mutex_lock(&c->lock);
        if (c->stat == NC_NOERR)
            c->stat = stat;
        pthread_mutex_unlock(&c->lock);
    }
}

int
ncz_shard_decode(const ncz_shard *s, const void *shard, size_t len, void *dst, const void *fill,
                 void *pool)
{
    size_t isz = ncz_shard_index_size(s), chunkbytes = inner_bytes(s);
    uint64_t *pairs;
    int stat;
    if (len < isz)
        return NC_ENCZARR;
    if (s->vlen)
        memset(dst, 0, chunkbytes * s->ninner); /* no string yet: freeable on error */
    if ((pairs = malloc(2 * s->ninner * sizeof(uint64_t))) == NULL)
        return NC_ENOMEM;
    stat = ncz_shard_index_decode(s, (const unsigned char *)shard + (s->at_start ? 0 : len - isz), isz, len,
                                  pairs);
    if (stat) {
        free(pairs);
        return stat;
    }
    dec_ctx c = {.s = s, .shard = shard, .pairs = pairs, .dst = dst, .fill = fill,
                 .chunkbytes = chunkbytes, .stat = NC_NOERR};
    pthread_mutex_init(&c.lock, NULL);
    stat = ncf_pool_run(pool, s->ninner, dec_task, &c);
    pthread_mutex_destroy(&c.lock);
    free(pairs);
    if (stat == NC_NOERR)
        stat = c.stat;
    if (stat && s->vlen)
        ncz_strings_free(dst, chunkbytes * s->ninner / sizeof(char *));
    return stat;
}

int
ncz_shard_decode_one(const ncz_shard *s, const void *shard, const uint64_t *pairs, size_t i, void *dst,
                     const void *fill)
{
    size_t origin, sstr[NC_MAX_VAR_DIMS], cstr[NC_MAX_VAR_DIMS], st = 1, chunkbytes = s->typesize, n;
    unsigned char *tmp;
    int stat;
    for (int d = s->rank - 1; d >= 0; d--) {
        cstr[d] = st;
        st *= s->inner[d];
    }
    chunkbytes *= st;
    n = st;
    inner_geom(s, i, &origin, sstr);
    if ((tmp = ncz_scratch(2, chunkbytes)) == NULL)
        return NC_ENOMEM;
    if (pairs == NULL || pairs[2 * i] == NCZ_SHARD_EMPTY) {
        if (s->vlen)
            stat = ncz_strings_fill((char **)(void *)tmp, n, fill ? *(char *const *)fill : NULL);
        else {
            fill_elems(tmp, n, s->typesize, fill);
            stat = NC_NOERR;
        }
    } else {
        stat = ncz_pipe_decode(s->pipe, (const unsigned char *)shard + pairs[2 * i], (size_t)pairs[2 * i + 1],
                               tmp, chunkbytes);
    }
    if (stat == NC_NOERR)
        ncz_copy_strided(s->rank, s->typesize, s->inner, tmp, cstr, (unsigned char *)dst + origin * s->typesize,
                         sstr);
    return stat;
}

/* ---- whole-shard encode ------------------------------------------------------------ */

typedef struct enc_ctx {
    const ncz_shard *s;
    const unsigned char *src;
    const unsigned char *valid; /* NULL: every inner chunk is in src */
    const void *fill;
    size_t chunkbytes;
    void **out;
    size_t *outlen;
    int stat;
    pthread_mutex_t lock;
    /* Finished inner chunks go to put in index order as soon as those
     * before them have gone, then are freed. */
    const unsigned char *old; /* inner chunks not in src: their stored bytes */
    const uint64_t *oldpairs;
    ncz_shard_put_fn put;
    void *putarg;
    unsigned char *done; /* per inner chunk: encoded (or fill) */
    unsigned char *idx;  /* the index being built */
    size_t next;         /* the next inner chunk to put */
    uint64_t pos;        /* where it goes */
    int any;             /* something was put */
} enc_ctx;

/* Put every finished inner chunk whose predecessors have gone.  Locked. */
static void
emit_ready(enc_ctx *c)
{
    while (c->next < c->s->ninner && c->done[c->next]) {
        size_t i = c->next++;
        uint64_t off = NCZ_SHARD_EMPTY, len = NCZ_SHARD_EMPTY;
        const unsigned char *from = c->out[i];
        size_t n = c->outlen[i];
        if (from == NULL && c->valid != NULL && !c->valid[i] && c->old != NULL && c->oldpairs != NULL
            && c->oldpairs[2 * i] != NCZ_SHARD_EMPTY && c->oldpairs[2 * i + 1] > 0) {
            from = c->old + c->oldpairs[2 * i]; /* kept as stored */
            n = (size_t)c->oldpairs[2 * i + 1];
        }
        if (from != NULL && c->stat == NC_NOERR) {
            int st = c->put(c->putarg, c->pos, from, n);
            if (st != NC_NOERR) {
                c->stat = st;
            } else {
                off = c->pos;
                len = n;
                c->pos += n;
                c->any = 1;
            }
        }
        nc_put_le64(c->idx + 16 * i, off);
        nc_put_le64(c->idx + 16 * i + 8, len);
        free(c->out[i]);
        c->out[i] = NULL;
    }
}

static void
enc_task(void *arg, size_t i)
{
    enc_ctx *c = arg;
    const ncz_shard *s = c->s;
    size_t origin, sstr[NC_MAX_VAR_DIMS], cstr[NC_MAX_VAR_DIMS], st = 1;
    unsigned char *tmp;
    int stat = NC_NOERR;
    if (c->valid != NULL && !c->valid[i])
        goto done; /* kept as stored */
    inner_geom(s, i, &origin, sstr);
    for (int d = s->rank - 1; d >= 0; d--) {
        cstr[d] = st;
        st *= s->inner[d];
    }
    if ((tmp = ncz_scratch(2, c->chunkbytes)) == NULL) {
        stat = NC_ENOMEM;
    } else {
        ncz_copy_strided(s->rank, s->typesize, s->inner, c->src + origin * s->typesize, sstr, tmp, cstr);
        size_t n = c->chunkbytes / s->typesize;
        int empty = c->fill != NULL && (s->vlen ? ncz_strings_all_fill((char *const *)(void *)tmp, n,
                                                                        *(char *const *)c->fill)
                                                : ncz_all_fill(tmp, n, s->typesize, c->fill));
        if (!empty)
            stat = ncz_pipe_encode(s->pipe, tmp, c->chunkbytes, &c->out[i], &c->outlen[i]);
    }
done:
    pthread_mutex_lock(&c->lock);
    if (stat && c->stat == NC_NOERR)
        c->stat = stat;
    c->done[i] = 1;
    emit_ready(c);
    pthread_mutex_unlock(&c->lock);
}

int
ncz_shard_encode_to(const ncz_shard *s, const void *src, const unsigned char *valid, const void *old,
                    const uint64_t *oldpairs, const void *fill, void *pool, ncz_shard_put_fn put, void *putarg,
                    int *anyp)
{
    size_t isz = ncz_shard_index_size(s);
    enc_ctx c = {.s = s, .src = src, .valid = valid, .old = old, .oldpairs = oldpairs, .fill = fill,
                 .chunkbytes = inner_bytes(s), .put = put, .putarg = putarg,
                 .pos = s->at_start ? isz : 0};
    int stat;
    *anyp = 0;
    c.out = calloc(s->ninner, sizeof(void *));
    c.outlen = calloc(s->ninner, sizeof(size_t));
    c.done = calloc(s->ninner, 1);
    c.idx = malloc(isz);
    if (c.out == NULL || c.outlen == NULL || c.done == NULL || c.idx == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    pthread_mutex_init(&c.lock, NULL);
    stat = ncf_pool_run(pool, s->ninner, enc_task, &c);
    pthread_mutex_destroy(&c.lock);
    if (stat || (stat = c.stat) || !c.any)
        goto done;
    if (s->crc)
        nc_put_le32(c.idx + isz - 4, ncf_crc32c(c.idx, isz - 4));
    if ((stat = put(putarg, s->at_start ? 0 : c.pos, c.idx, isz)) == NC_NOERR)
        *anyp = 1;
done:
    if (c.out != NULL)
        for (size_t i = 0; i < s->ninner; i++)
            free(c.out[i]);
    free(c.out);
    free(c.outlen);
    free(c.done);
    free(c.idx);
    return stat;
}

int
ncz_shard_encode(const ncz_shard *s, const void *src, const void *fill, void *pool, void **outp,
                 size_t *outlenp)
{
    return ncz_shard_encode_mixed(s, src, NULL, NULL, NULL, fill, pool, outp, outlenp);
}


/* Where an assembled shard is built: room for the whole uncompressed
 * shard is reserved up front (pages never written cost nothing), grown if
 * the encoded shard is bigger, trimmed at the end. */
typedef struct memsink {
    unsigned char *buf;
    size_t cap, end;
} memsink;

static int
mem_put(void *arg, uint64_t off, const void *b, size_t n)
{
    memsink *m = arg;
    if (off > SIZE_MAX - n)
        return NC_ENOMEM;
    size_t need = (size_t)off + n;
    if (need > m->cap) {
        size_t cap = m->cap > need / 2 ? 2 * m->cap : need;
        unsigned char *nb = realloc(m->buf, cap);
        if (nb == NULL)
            return NC_ENOMEM;
        m->buf = nb;
        m->cap = cap;
    }
    memcpy(m->buf + off, b, n);
    if (need > m->end)
        m->end = need;
    return NC_NOERR;
}

int
ncz_shard_encode_mixed(const ncz_shard *s, const void *src, const unsigned char *valid, const void *old,
                       const uint64_t *oldpairs, const void *fill, void *pool, void **outp, size_t *outlenp)
{
    memsink m = {NULL, 0, 0};
    size_t room = s->typesize;
    int any = 0, stat;
    *outp = NULL;
    *outlenp = 0;
    for (int d = 0; d < s->rank; d++)
        room *= s->inner[d];
    room = room * s->ninner + ncz_shard_index_size(s);
    if ((m.buf = malloc(room)) == NULL)
        return NC_ENOMEM;
    m.cap = room;
    stat = ncz_shard_encode_to(s, src, valid, old, oldpairs, fill, pool, mem_put, &m, &any);
    if (stat || !any) {
        free(m.buf);
        return stat;
    }
    if (m.end < m.cap) {
        unsigned char *nb = realloc(m.buf, m.end);
        if (nb != NULL)
            m.buf = nb;
    }
    *outp = m.buf;
    *outlenp = m.end;
    return NC_NOERR;
}
