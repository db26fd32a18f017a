/* tst_chunk_engine.c: the chunk engine (libchunk/) on its own, through a
 * format made up here: chunks are objects in a small in-memory store, keyed
 * "i.j", encoded by a codec that adds each byte's position (so a chunk
 * decoded with the wrong length or offset shows).  Random selections
 * (starts, counts, strides, edge chunks) are read and written against a
 * plain array model of the variable, with a cache small enough to evict,
 * every fetch and store mode, owned strings, fill chunks left out (or kept),
 * a store that fails, bounds and conversions; parts of raw chunks written
 * in place store what the cache path stores; HDF5's rules (fill time
 * "never", sparse reads kept in the cache, edge chunks padded) and HDF5's
 * write-back order (lru). */
#include "config.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nctst.h"
#include "ncchunk.h"

/* ---- the made-up format --------------------------------------------------------- */

#define MAXOBJ 512

typedef struct store {
    pthread_mutex_t lock;
    char *key[MAXOBJ];
    unsigned char *data[MAXOBJ];
    size_t len[MAXOBJ];
    size_t nobj;
    long nstore, ndelete, nfetch, ndecode, ndirect;
    int fail_stores;       /* stores fail (NC_EACCESS) while set */
    const unsigned char *user; /* the caller's buffer of the current read */
    size_t userlen;
    int rank;
    int raw;               /* chunks stored as they are (no codec) */
    size_t chunkbytes;     /* write_runs: the size of a chunk made */
    long nruns, ndeclined; /* write_runs calls, and those declined */
    int decline;           /* write_runs declines every call while set */
    int badruns;           /* runs out of order, overlapping or outside */
    char log[1024];        /* keys stored, in order ("k k ...") */
} store;

static int
find(store *s, const char *key)
{
    for (size_t i = 0; i < s->nobj; i++)
        if (strcmp(s->key[i], key) == 0)
            return (int)i;
    return -1;
}

static int
f_key(void *fmt, const uint64_t *idx, char **keyp)
{
    store *s = fmt;
    char buf[256];
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < s->rank; k++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, k ? ".%llu" : "%llu", (unsigned long long)idx[k]);
    if (s->rank == 0)
        snprintf(buf, sizeof(buf), "0");
    return (*keyp = strdup(buf)) == NULL ? NC_ENOMEM : NC_NOERR;
}

static int
f_locate(void *fmt, const uint64_t *idx, ncc_raw *r)
{
    return f_key(fmt, idx, &r->key);
}

static int
fetch(store *s, ncc_raw *r, int owned)
{
    int i;
    pthread_mutex_lock(&s->lock);
    s->nfetch++;
    i = find(s, r->key);
    r->status = NC_EEMPTY;
    if (i >= 0) {
        r->len = s->len[i];
        r->data = owned ? malloc(r->len) : ncc_scratch(NCC_SCRATCH_RAW, r->len);
        r->owned = owned;
        memcpy(r->data, s->data[i], r->len);
        r->status = NC_NOERR;
    }
    pthread_mutex_unlock(&s->lock);
    return r->status;
}

static int
f_fetch_many(void *fmt, size_t n, ncc_raw *r)
{
    int stat = NC_NOERR;
    for (size_t i = 0; i < n; i++) {
        int s = fetch(fmt, &r[i], 1);
        if (s && !stat)
            stat = s;
    }
    return stat;
}

static int
f_fetch_one(void *fmt, ncc_raw *r)
{
    return fetch(fmt, r, 0);
}

static int
f_fetch_whole(void *fmt, ncc_raw *r)
{
    return fetch(fmt, r, 1);
}

/* The codec: stored byte i = chunk byte i + i (mod 256), plus a 4-byte length. */
static int
f_decode(void *fmt, const ncc_raw *r, void *dst, size_t dstlen, ncf_pool *inner)
{
    store *s = fmt;
    const unsigned char *b = r->data;
    unsigned char *d = dst;
    uint32_t n;
    (void)inner;
    if (s->raw) {
        if (r->len != dstlen)
            return NC_EFILTER;
        memcpy(d, b, dstlen);
        return NC_NOERR;
    }
    if (r->len < 4)
        return NC_EFILTER;
    memcpy(&n, b, 4);
    if (n != dstlen || r->len != (size_t)n + 4)
        return NC_EFILTER;
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)(b[4 + i] - (unsigned char)i);
    pthread_mutex_lock(&s->lock);
    s->ndecode++;
    if (s->user && d >= s->user && d < s->user + s->userlen)
        s->ndirect++;
    pthread_mutex_unlock(&s->lock);
    return NC_NOERR;
}

static int
f_encode(void *fmt, const void *src, size_t len, void **outp, size_t *outlenp, unsigned *maskp)
{
    const unsigned char *c = src;
    unsigned char *o = malloc(len + 4);
    uint32_t n = (uint32_t)len;
    (void)fmt;
    if (o == NULL)
        return NC_ENOMEM;
    memcpy(o, &n, 4);
    for (size_t i = 0; i < len; i++)
        o[4 + i] = (unsigned char)(c[i] + (unsigned char)i);
    *outp = o;
    *outlenp = len + 4;
    *maskp = 0;
    return NC_NOERR;
}

static int
f_store_one(void *fmt, const ncc_put *p)
{
    store *s = fmt;
    int i, stat = NC_NOERR;
    pthread_mutex_lock(&s->lock);
    i = find(s, p->key);
    if (s->fail_stores) {
        stat = NC_EACCESS;
    } else if (p->empty) {
        s->ndelete++;
        if (i >= 0) {
            free(s->key[i]);
            free(s->data[i]);
            s->nobj--;
            s->key[i] = s->key[s->nobj];
            s->data[i] = s->data[s->nobj];
            s->len[i] = s->len[s->nobj];
        }
    } else {
        unsigned char *b = malloc(p->outlen ? p->outlen : 1);
        s->nstore++;
        if (strlen(s->log) + strlen(p->key) + 2 < sizeof(s->log)) {
            strcat(s->log, p->key);
            strcat(s->log, " ");
        }
        if (b == NULL || (i < 0 && s->nobj == MAXOBJ)) {
            free(b);
            stat = NC_ENOMEM;
        } else {
            memcpy(b, p->out, p->outlen);
            if (i < 0) {
                i = (int)s->nobj++;
                s->key[i] = strdup(p->key);
            } else {
                free(s->data[i]);
            }
            s->data[i] = b;
            s->len[i] = p->outlen;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return stat;
}

static int
f_store_many(void *fmt, size_t n, ncc_put *p)
{
    int stat = NC_NOERR;
    for (size_t i = 0; i < n; i++) {
        *p[i].status = f_store_one(fmt, &p[i]);
        if (*p[i].status && !stat)
            stat = *p[i].status;
    }
    return stat;
}

/* In place: an absent chunk is made of zeros; one of another size, or
 * every call while decline is set, is declined. */
static int
f_write_runs(void *fmt, const char *key, size_t n, const ncc_run *runs)
{
    store *s = fmt;
    int i, stat = NC_NOERR;
    pthread_mutex_lock(&s->lock);
    s->nruns++;
    i = find(s, key);
    if (s->decline || (i >= 0 && s->len[i] != s->chunkbytes)) {
        s->ndeclined++;
        stat = NCC_DECLINED;
    } else if (i < 0 && s->nobj == MAXOBJ) {
        stat = NC_ENOMEM;
    } else {
        if (i < 0) {
            i = (int)s->nobj++;
            s->key[i] = strdup(key);
            s->data[i] = calloc(1, s->chunkbytes);
            s->len[i] = s->chunkbytes;
        }
        for (size_t r = 0; r < n; r++) {
            if (runs[r].len == 0 || runs[r].off + runs[r].len > s->chunkbytes ||
                (r > 0 && runs[r].off < runs[r - 1].off + runs[r - 1].len))
                s->badruns++;
            else
                memcpy(s->data[i] + runs[r].off, runs[r].buf, runs[r].len);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return stat;
}

static const ncc_ops ops = {
    .key = f_key,
    .locate = f_locate,
    .fetch_many = f_fetch_many,
    .fetch_one = f_fetch_one,
    .fetch_whole = f_fetch_whole,
    .decode = f_decode,
    .encode = f_encode,
    .store_many = f_store_many,
    .store_one = f_store_one,
};

/* The same format, with parts written in place. */
static const ncc_ops runs_ops = {
    .key = f_key,
    .locate = f_locate,
    .fetch_many = f_fetch_many,
    .fetch_one = f_fetch_one,
    .fetch_whole = f_fetch_whole,
    .decode = f_decode,
    .encode = f_encode,
    .store_many = f_store_many,
    .store_one = f_store_one,
    .write_runs = f_write_runs,
};

static void
store_clear(store *s)
{
    for (size_t i = 0; i < s->nobj; i++) {
        free(s->key[i]);
        free(s->data[i]);
    }
    s->nobj = 0;
}

/* ---- helpers ---------------------------------------------------------------------- */

static unsigned rng = 12345;
static unsigned
rnd(unsigned n)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 8) % n;
}

/* Random selection inside dims (rank 2). */
static void
random_sel(const size_t *dims, size_t *start, size_t *count, ptrdiff_t *stride)
{
    for (int k = 0; k < 2; k++) {
        stride[k] = 1 + (ptrdiff_t)rnd(3);
        start[k] = rnd((unsigned)dims[k]);
        size_t maxc = (dims[k] - 1 - start[k]) / (size_t)stride[k] + 1;
        count[k] = 1 + rnd((unsigned)maxc);
    }
}

/* ---- tests ------------------------------------------------------------------------- */

static void
test_sel(void)
{
    ncc_grid g;
    ncc_sel s;
    size_t chunk[2] = {4, 3}, dims[2] = {10, 7}, start[2], count[2];
    ptrdiff_t stride[2];
    MUST(ncc_grid_init(&g, 2, chunk, 4, (size_t)1 << 30));
    CHECK(g.chunkelems == 12 && g.chunkbytes == 48 && g.cstr[0] == 3 && g.cstr[1] == 1, "grid strides");
    EXPECT(ncc_grid_init(&g, 2, (size_t[]){0, 3}, 4, 1 << 30), NC_EINVAL);
    EXPECT(ncc_grid_init(&g, 2, (size_t[]){1 << 20, 1 << 20}, 8, 1 << 30), NC_EINVAL);
    MUST(ncc_grid_init(&g, 2, chunk, 4, (size_t)1 << 30));
    /* Bounds: netCDF's rules. */
    EXPECT(ncc_sel_init(&s, &g, (size_t[]){10, 0}, (size_t[]){1, 1}, NULL, dims, NULL), NC_EINVALCOORDS);
    EXPECT(ncc_sel_init(&s, &g, (size_t[]){10, 0}, (size_t[]){0, 1}, NULL, dims, NULL), NC_NOERR);
    CHECK(s.n == 0, "zero count selects nothing");
    EXPECT(ncc_sel_init(&s, &g, (size_t[]){11, 0}, (size_t[]){0, 1}, NULL, dims, NULL), NC_EINVALCOORDS);
    EXPECT(ncc_sel_init(&s, &g, (size_t[]){8, 0}, (size_t[]){3, 1}, NULL, dims, NULL), NC_EEDGE);
    EXPECT(ncc_sel_init(&s, &g, (size_t[]){0, 0}, (size_t[]){4, 1}, (ptrdiff_t[]){4, 1}, dims, NULL), NC_EEDGE);
    EXPECT(ncc_sel_init(&s, &g, (size_t[]){0, 0}, (size_t[]){1, 1}, (ptrdiff_t[]){0, 1}, dims, NULL), NC_ESTRIDE);
    EXPECT(ncc_sel_init(&s, &g, (size_t[]){8, 0}, (size_t[]){3, 1}, NULL, dims, (unsigned char[]){1, 0}),
           NC_NOERR);
    CHECK(ncc_check_bound(5, 0, 1, 5, 1) == NC_NOERR, "start at the end with count 0");
    /* Parts: every selected element lies in exactly one chunk part, at the
     * right place. */
    for (int t = 0; t < 200; t++) {
        uint64_t idx[2];
        size_t k0[2], nk[2], l0[2], seen = 0;
        unsigned char *hit;
        random_sel(dims, start, count, stride);
        MUST(ncc_sel_init(&s, &g, start, count, stride, dims, NULL));
        hit = calloc(s.n, 1);
        idx[0] = s.clo[0];
        idx[1] = s.clo[1];
        do {
            if (!ncc_sel_part(&g, &s, idx, k0, nk, l0))
                continue;
            for (size_t a = 0; a < nk[0]; a++)
                for (size_t b = 0; b < nk[1]; b++) {
                    size_t i = k0[0] + a, j = k0[1] + b;
                    size_t r = idx[0] * chunk[0] + l0[0] + a * (size_t)stride[0];
                    size_t c = idx[1] * chunk[1] + l0[1] + b * (size_t)stride[1];
                    CHECK(r == start[0] + i * (size_t)stride[0] && c == start[1] + j * (size_t)stride[1],
                          "part element position");
                    CHECK(r / chunk[0] == idx[0] && c / chunk[1] == idx[1], "part element inside its chunk");
                    hit[ncc_sel_uoff(&s, (size_t[]){i, j})]++;
                    seen++;
                }
        } while (ncc_sel_next(&s, idx));
        CHECK(seen == s.n, "every element in one part (%zu of %zu)", seen, s.n);
        for (size_t i = 0; i < s.n; i++)
            if (hit[i] != 1) {
                CHECK(0, "element %zu hit %d times", i, hit[i]);
                break;
            }
        free(hit);
    }
}

/* Random reads and writes of a 2-D int variable against a model array. */
static void
test_rw(int fetch_in_task, int store_in_task, size_t maxentries, int keepall)
{
    enum { R = 23, C = 17 };
    size_t dims[2] = {R, C}, chunk[2] = {5, 4};
    int model[R][C], fill = -7;
    store st;
    ncc_grid g;
    ncc_var v;
    memset(&st, 0, sizeof(st));
    pthread_mutex_init(&st.lock, NULL);
    st.rank = 2;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            model[i][j] = fill;
    MUST(ncc_grid_init(&g, 2, chunk, sizeof(int), (size_t)1 << 30));
    MUST(ncc_var_init(&v, &g, 0, &fill, keepall, maxentries, &ops, &st));
    v.fetch_in_task = fetch_in_task;
    v.store_in_task = store_in_task;
    for (int t = 0; t < 300; t++) {
        size_t start[2], count[2];
        ptrdiff_t stride[2];
        ncc_sel s;
        int *buf;
        random_sel(dims, start, count, stride);
        if (t % 7 == 0) { /* whole chunks, one run of the buffer */
            start[0] = 5 * rnd(3);
            count[0] = 5;
            start[1] = 0;
            count[1] = C;
            stride[0] = stride[1] = 1;
        }
        MUST(ncc_sel_init(&s, &g, start, count, stride, dims, NULL));
        buf = malloc(s.n * sizeof(int));
        if (t % 2 == 0) {
            for (size_t i = 0; i < s.n; i++)
                buf[i] = t % 5 == 0 ? fill : (int)rnd(1000);
            OK(ncc_write(&v, &s, (unsigned char *)buf, t % 3 != 0));
            for (size_t a = 0; a < count[0]; a++)
                for (size_t b = 0; b < count[1]; b++)
                    model[start[0] + a * (size_t)stride[0]][start[1] + b * (size_t)stride[1]] =
                        buf[a * count[1] + b];
        } else {
            int bad = 0;
            st.user = (unsigned char *)buf;
            st.userlen = s.n * sizeof(int);
            OK(ncc_read(&v, &s, (unsigned char *)buf));
            st.user = NULL;
            for (size_t a = 0; a < count[0] && !bad; a++)
                for (size_t b = 0; b < count[1] && !bad; b++)
                    bad = model[start[0] + a * (size_t)stride[0]][start[1] + b * (size_t)stride[1]] !=
                          buf[a * count[1] + b];
            CHECK(!bad, "read %d matches the model (fetch_in_task %d, store_in_task %d, max %zu)", t,
                  fetch_in_task, store_in_task, maxentries);
        }
        free(buf);
        CHECK(v.cache.n <= (maxentries > 0 ? maxentries : 1), "cache bounded (%zu)", v.cache.n);
    }
    OK(ncc_flush(&v, 0));
    CHECK(v.cache.n == 0 && !ncc_has_dirty(&v), "flush to 0 empties the cache");
    /* A fresh variable over the same store reads back the model. */
    ncc_var_fini(&v);
    MUST(ncc_var_init(&v, &g, 0, &fill, keepall, maxentries, &ops, &st));
    {
        int back[R][C];
        ncc_sel s;
        MUST(ncc_sel_init(&s, &g, NULL, NULL, NULL, dims, NULL));
        st.ndirect = 0;
        st.user = (unsigned char *)back;
        st.userlen = sizeof(back);
        OK(ncc_read(&v, &s, (unsigned char *)back));
        st.user = NULL;
        CHECK(memcmp(back, model, sizeof(back)) == 0, "whole variable read back");
        /* Chunks wholly inside the variable's first 20 rows and 16 columns
         * are covered whole, but only a chunk spanning every column is one
         * run of the buffer: with 17 columns none is. */
        CHECK(st.ndirect == 0, "no direct decode when chunks are not runs of the buffer");
    }
    {
        /* Stored chunks: every one whose contents are not all fill (all of
         * them when keepall). */
        size_t want = 0, nonfill = 0;
        for (size_t ci = 0; ci < (R + 4) / 5; ci++)
            for (size_t cj = 0; cj < (C + 3) / 4; cj++) {
                char key[64];
                int allfill = 1;
                for (size_t i = ci * 5; i < ci * 5 + 5; i++)
                    for (size_t j = cj * 4; j < cj * 4 + 4; j++)
                        if (i < R && j < C && model[i][j] != fill)
                            allfill = 0;
                snprintf(key, sizeof(key), "%zu.%zu", ci, cj);
                nonfill += !allfill;
                if (!allfill)
                    want += find(&st, key) >= 0;
            }
        CHECK(want == nonfill, "every chunk with data is stored (%zu of %zu)", want, nonfill);
        if (!keepall)
            CHECK(st.nobj == nonfill, "chunks of fill are left out (%zu stored, %zu with data)", st.nobj, nonfill);
    }
    ncc_var_fini(&v);
    store_clear(&st);
    pthread_mutex_destroy(&st.lock);
}

/* Whole chunks that are runs of the caller's buffer decode straight into it. */
static void
test_direct(void)
{
    size_t dims[2] = {12, 8}, chunk[2] = {4, 8};
    double fill = 0, data[12][8], back[12][8];
    store st;
    ncc_grid g;
    ncc_var v;
    ncc_sel s;
    memset(&st, 0, sizeof(st));
    pthread_mutex_init(&st.lock, NULL);
    st.rank = 2;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 8; j++)
            data[i][j] = i * 100 + j + 0.5;
    MUST(ncc_grid_init(&g, 2, chunk, sizeof(double), (size_t)1 << 30));
    MUST(ncc_var_init(&v, &g, 0, &fill, 0, 4, &ops, &st));
    MUST(ncc_sel_init(&s, &g, NULL, NULL, NULL, dims, NULL));
    OK(ncc_write(&v, &s, (unsigned char *)data, 1));
    CHECK(v.cache.n == 0 && st.nstore == 3, "whole chunks encoded from the caller (%ld stores)", st.nstore);
    st.user = (unsigned char *)back;
    st.userlen = sizeof(back);
    OK(ncc_read(&v, &s, (unsigned char *)back));
    CHECK(st.ndirect == 3 && st.ndecode == 3, "three chunks decoded into the caller's buffer (%ld)", st.ndirect);
    CHECK(memcmp(back, data, sizeof(data)) == 0, "direct read");
    /* A corrupt chunk is the codec's error, not data. */
    st.data[0][5] ^= 1;
    st.len[0]--;
    EXPECT(ncc_read(&v, &s, (unsigned char *)back), NC_EFILTER);
    ncc_var_fini(&v);
    store_clear(&st);
    pthread_mutex_destroy(&st.lock);
}

/* A store that fails leaves its chunks dirty; they go out on the next flush. */
static void
test_store_failure(void)
{
    size_t dims[1] = {40}, chunk[1] = {10};
    int fill = 0, one[3] = {1, 2, 3}, back[40];
    store st;
    ncc_grid g;
    ncc_var v;
    ncc_sel s;
    memset(&st, 0, sizeof(st));
    pthread_mutex_init(&st.lock, NULL);
    st.rank = 1;
    MUST(ncc_grid_init(&g, 1, chunk, sizeof(int), (size_t)1 << 30));
    MUST(ncc_var_init(&v, &g, 0, &fill, 0, 8, &ops, &st));
    MUST(ncc_sel_init(&s, &g, (size_t[]){8}, (size_t[]){3}, NULL, dims, NULL));
    OK(ncc_write(&v, &s, (unsigned char *)one, 1)); /* chunks 0 and 1, partly */
    CHECK(v.cache.n == 2 && ncc_has_dirty(&v), "partial writes cached");
    st.fail_stores = 1;
    EXPECT(ncc_flush(&v, 8), NC_EACCESS);
    CHECK(ncc_has_dirty(&v), "still dirty after a failed store");
    st.fail_stores = 0;
    OK(ncc_flush(&v, 0));
    CHECK(!ncc_has_dirty(&v) && st.nobj == 2, "written on the next flush");
    ncc_var_fini(&v);
    MUST(ncc_var_init(&v, &g, 0, &fill, 0, 8, &ops, &st));
    MUST(ncc_sel_init(&s, &g, NULL, NULL, NULL, dims, NULL));
    OK(ncc_read(&v, &s, (unsigned char *)back));
    CHECK(back[7] == 0 && back[8] == 1 && back[9] == 2 && back[10] == 3 && back[11] == 0 && back[39] == 0,
          "values after the retried flush");
    ncc_var_fini(&v);
    store_clear(&st);
    pthread_mutex_destroy(&st.lock);
}

/* Owned strings: copies in, copies out, fill strings, nothing leaked. */
static void
test_strings(int store_in_task)
{
    size_t dims[1] = {9}, chunk[1] = {4};
    static const char *fillstr = "fill";
    char *in[3] = {"a", "", "ccc"}, *out[9];
    store st;
    ncc_grid g;
    ncc_var v;
    ncc_sel s;
    memset(&st, 0, sizeof(st));
    pthread_mutex_init(&st.lock, NULL);
    st.rank = 1;
    MUST(ncc_grid_init(&g, 1, chunk, sizeof(char *), (size_t)1 << 30));
    /* The codec sees pointers only in memory: keep it in the cache. */
    MUST(ncc_var_init(&v, &g, 1, (const void *)&fillstr, 0, 8, &ops, &st));
    v.store_in_task = store_in_task;
    MUST(ncc_sel_init(&s, &g, (size_t[]){2}, (size_t[]){3}, (ptrdiff_t[]){2}, dims, NULL));
    OK(ncc_write(&v, &s, (unsigned char *)in, 0));
    MUST(ncc_sel_init(&s, &g, NULL, NULL, NULL, dims, NULL));
    memset(out, 0, sizeof(out));
    OK(ncc_read(&v, &s, (unsigned char *)out));
    CHECK(out[0] && strcmp(out[0], "fill") == 0 && out[2] && strcmp(out[2], "a") == 0 && out[4] == NULL &&
              out[6] && strcmp(out[6], "ccc") == 0 && out[8] && strcmp(out[8], "fill") == 0,
          "strings read back with fill");
    CHECK(out[2] != in[0], "a read hands out copies");
    ncc_strings_free(out, 9);
    ncc_var_fini(&v); /* dirty string chunks dropped: their strings freed */
    store_clear(&st);
    pthread_mutex_destroy(&st.lock);
}

static void
test_copies(void)
{
    int src[3][4], dst[4][3], fillv = 9, arr[5] = {9, 9, 9, 9, 9};
    size_t count[2] = {3, 4}, sstr[2] = {4, 1}, dstr[2] = {1, 3};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            src[i][j] = i * 10 + j;
    ncc_copy_strided(2, sizeof(int), count, src, sstr, dst, dstr); /* transpose */
    CHECK(dst[3][2] == 23 && dst[0][1] == 10, "strided copy transposes");
    CHECK(ncc_all_fill(arr, 5, sizeof(int), &fillv), "all fill");
    arr[4] = 8;
    CHECK(!ncc_all_fill(arr, 5, sizeof(int), &fillv), "not all fill");
    {
        size_t c[2] = {1, 2}, lo[2] = {1, 2}, hi[2] = {2, 4}, n = 1;
        while (ncc_box_next(2, c, lo, hi))
            n++;
        CHECK(n == 6 && c[0] == 1 && c[1] == 2, "box walk visits 2x3 and ends at lo (%zu)", n);
    }
    ncc_fill_elems(arr, 5, sizeof(int), &(int){4});
    CHECK(arr[0] == 4 && arr[4] == 4, "fill elements");
    /* Conversion with NC_ERANGE, and the classic model's byte exception. */
    {
        int big[2] = {300, 5};
        signed char b[2];
        unsigned char ub = 200;
        EXPECT(ncc_convert(NC_INT, big, NC_BYTE, b, 2, 0), NC_ERANGE);
        CHECK(b[1] == 5, "values after the one out of range are converted");
        EXPECT(ncc_convert(NC_UBYTE, &ub, NC_BYTE, b, 1, 0), NC_ERANGE);
        EXPECT(ncc_convert(NC_UBYTE, &ub, NC_BYTE, b, 1, 1), NC_NOERR);
    }
    /* Scratch grows and is per thread. */
    {
        unsigned char *a = ncc_scratch(NCC_SCRATCH_CHUNK, 100), *b = ncc_scratch(NCC_SCRATCH_CHUNK, 50);
        CHECK(a != NULL && a == b, "scratch reused when big enough");
        CHECK(ncc_scratch(NCC_SCRATCH_CHUNK, (size_t)1 << 20) != NULL, "scratch grows");
    }
}

/* Parts written in place store the bytes the cache path stores: the same
 * random writes go to a variable whose format writes runs and to one whose
 * format does not (raw chunks, fill of zero bytes, kept or left out), with
 * reads between them checked against a model; at the end both stores hold
 * the same objects, byte for byte.  A chunk in the cache, a declined call,
 * a non-zero fill or an inner stride take the cache path. */
static void
test_runs(int keepall, int in_task, size_t maxentries, int fillv)
{
    enum { R = 23, C = 17 };
    size_t dims[2] = {R, C}, chunk[2] = {5, 4};
    int model[R][C];
    store st[2];
    ncc_grid g;
    ncc_var v[2];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            model[i][j] = fillv;
    MUST(ncc_grid_init(&g, 2, chunk, sizeof(int), (size_t)1 << 30));
    for (int w = 0; w < 2; w++) {
        memset(&st[w], 0, sizeof(st[w]));
        pthread_mutex_init(&st[w].lock, NULL);
        st[w].rank = 2;
        st[w].raw = 1;
        st[w].chunkbytes = g.chunkbytes;
        MUST(ncc_var_init(&v[w], &g, 0, &fillv, keepall, maxentries, w ? &runs_ops : &ops, &st[w]));
        v[w].stored_raw = 1;
        v[w].fetch_in_task = v[w].store_in_task = v[w].runs_in_task = in_task;
    }
    for (int t = 0; t < 400; t++) {
        size_t start[2], count[2];
        ptrdiff_t stride[2];
        ncc_sel s;
        int *buf;
        random_sel(dims, start, count, stride);
        if (t % 3 == 0)
            stride[1] = 1; /* rows that are runs of the chunk */
        if (t % 11 == 0) { /* whole rows of chunks: merged runs */
            start[1] = 0;
            count[1] = C;
            stride[0] = 1;
            count[0] = start[0] + count[0] > R ? R - start[0] : count[0];
        }
        if (start[1] + (count[1] - 1) * (size_t)stride[1] >= C)
            count[1] = (C - 1 - start[1]) / (size_t)stride[1] + 1;
        if (start[0] + (count[0] - 1) * (size_t)stride[0] >= R)
            count[0] = (R - 1 - start[0]) / (size_t)stride[0] + 1;
        MUST(ncc_sel_init(&s, &g, start, count, stride, dims, NULL));
        buf = malloc(s.n * sizeof(int));
        if (t % 2 == 0) {
            /* Some writes of zeros: a chunk may become all fill again. */
            for (size_t i = 0; i < s.n; i++)
                buf[i] = t % 10 == 0 ? 0 : (int)rnd(1000) - 500;
            st[1].decline = t % 13 == 0;
            for (int w = 0; w < 2; w++)
                OK(ncc_write(&v[w], &s, (unsigned char *)buf, 1));
            for (size_t a = 0; a < count[0]; a++)
                for (size_t b = 0; b < count[1]; b++)
                    model[start[0] + a * (size_t)stride[0]][start[1] + b * (size_t)stride[1]] =
                        buf[a * count[1] + b];
        } else {
            for (int w = 0; w < 2; w++) {
                int bad = 0;
                OK(ncc_read(&v[w], &s, (unsigned char *)buf));
                for (size_t a = 0; a < count[0] && !bad; a++)
                    for (size_t b = 0; b < count[1] && !bad; b++)
                        bad = model[start[0] + a * (size_t)stride[0]][start[1] + b * (size_t)stride[1]] !=
                              buf[a * count[1] + b];
                CHECK(!bad, "read %d matches the model (in place %d, keepall %d, fill %d, max %zu)", t, w, keepall,
                      fillv, maxentries);
            }
        }
        free(buf);
    }
    for (int w = 0; w < 2; w++)
        OK(ncc_flush(&v[w], 0));
    CHECK(st[1].badruns == 0, "runs in order, inside the chunk");
    if (fillv == 0)
        CHECK(st[1].nruns > st[1].ndeclined, "parts written in place (%ld calls, %ld declined)", st[1].nruns,
              st[1].ndeclined);
    else
        CHECK(st[1].nruns == 0, "a fill of non-zero bytes never writes in place");
    CHECK(st[0].nruns == 0, "no runs without the op");
    CHECK(st[0].nobj == st[1].nobj, "same chunks stored (%zu, %zu)", st[0].nobj, st[1].nobj);
    for (size_t i = 0; i < st[0].nobj; i++) {
        int j = find(&st[1], st[0].key[i]);
        CHECK(j >= 0 && st[1].len[j] == st[0].len[i] && memcmp(st[1].data[j], st[0].data[i], st[0].len[i]) == 0,
              "chunk %s stored the same in place (keepall %d, in task %d, max %zu)", st[0].key[i], keepall, in_task,
              maxentries);
    }
    for (int w = 0; w < 2; w++) {
        ncc_var_fini(&v[w]);
        store_clear(&st[w]);
        pthread_mutex_destroy(&st[w].lock);
    }
}

/* A stored object that is not a chunk's size is declined: the cache path
 * reads it, and its decode error is the write's. */
static void
test_runs_declined(void)
{
    size_t dims[1] = {40}, chunk[1] = {10};
    int fill = 0, one[3] = {1, 2, 3};
    store st;
    ncc_grid g;
    ncc_var v;
    ncc_sel s;
    ncc_put p = {"0", "short", 5, 0, 0, NULL};
    memset(&st, 0, sizeof(st));
    pthread_mutex_init(&st.lock, NULL);
    st.rank = 1;
    st.raw = 1;
    MUST(ncc_grid_init(&g, 1, chunk, sizeof(int), (size_t)1 << 30));
    st.chunkbytes = g.chunkbytes;
    MUST(ncc_var_init(&v, &g, 0, &fill, 1, 8, &runs_ops, &st));
    v.stored_raw = 1;
    MUST(f_store_one(&st, &p));
    MUST(ncc_sel_init(&s, &g, (size_t[]){2}, (size_t[]){3}, NULL, dims, NULL));
    EXPECT(ncc_write(&v, &s, (unsigned char *)one, 1), NC_EFILTER);
    CHECK(st.ndeclined == 1 && st.len[0] == 5, "declined, the object left as it was");
    MUST(ncc_sel_init(&s, &g, (size_t[]){12}, (size_t[]){3}, NULL, dims, NULL));
    OK(ncc_write(&v, &s, (unsigned char *)one, 1));
    CHECK(v.cache.n == 0 && st.nobj == 2 && st.len[1] == g.chunkbytes, "an absent chunk made in place");
    ncc_var_fini(&v);
    store_clear(&st);
    /* Chunks of fill left out: a part of zeros goes through the cache, so a
     * chunk that ends up all zero is not stored (or is deleted). */
    MUST(ncc_var_init(&v, &g, 0, &fill, 0, 8, &runs_ops, &st));
    v.stored_raw = 1;
    {
        int zeros[3] = {0, 0, 0}, back[10];
        MUST(ncc_sel_init(&s, &g, (size_t[]){22}, (size_t[]){3}, NULL, dims, NULL));
        OK(ncc_write(&v, &s, (unsigned char *)zeros, 1));
        OK(ncc_flush(&v, 0));
        CHECK(st.nobj == 0, "a part of zeros in an absent chunk stores nothing");
        OK(ncc_write(&v, &s, (unsigned char *)one, 1));
        CHECK(st.nobj == 1 && v.cache.n == 0, "a part with data made in place");
        OK(ncc_write(&v, &s, (unsigned char *)zeros, 1));
        OK(ncc_flush(&v, 0));
        CHECK(st.nobj == 0, "the chunk all zero again is deleted");
        OK(ncc_write(&v, &s, (unsigned char *)one, 1));
        MUST(ncc_sel_init(&s, &g, (size_t[]){20}, (size_t[]){10}, NULL, dims, NULL));
        OK(ncc_read(&v, &s, (unsigned char *)back));
        CHECK(back[1] == 0 && back[2] == 1 && back[4] == 3 && back[5] == 0, "read after a part in place");
    }
    ncc_var_fini(&v);
    store_clear(&st);
    pthread_mutex_destroy(&st.lock);
}

/* HDF5's rules: chunks not stored read as nothing (fill time "never"),
 * sparse reads keep what they decode in the cache, edge chunks written
 * whole at full size with fill padding. */
static void
test_hdf5_rules(void)
{
    enum { R = 10, C = 7 };
    size_t dims[2] = {R, C}, chunk[2] = {4, 3};
    int fill = -5, zero = 0, data[R][C], back[R][C];
    store st;
    ncc_grid g;
    ncc_var v;
    ncc_sel s;
    memset(&st, 0, sizeof(st));
    pthread_mutex_init(&st.lock, NULL);
    st.rank = 2;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            data[i][j] = 100 * i + j;
    MUST(ncc_grid_init(&g, 2, chunk, sizeof(int), (size_t)1 << 30));

    /* Fill time "never": only stored chunks reach the buffer. */
    MUST(ncc_var_init(&v, &g, 0, &zero, 1, 4, &ops, &st));
    v.fill_never = 1;
    MUST(ncc_sel_init(&s, &g, (size_t[]){0, 0}, (size_t[]){4, 3}, NULL, dims, NULL));
    OK(ncc_write(&v, &s, (unsigned char *)data, 1)); /* chunk 0.0 only (4x3 of data's rows) */
    OK(ncc_flush(&v, 0));
    memset(back, 0x5A, sizeof(back));
    MUST(ncc_sel_init(&s, &g, NULL, NULL, NULL, dims, NULL));
    OK(ncc_read(&v, &s, (unsigned char *)back));
    {
        int bad = 0;
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                int want;
                if (i < 4 && j < 3)
                    want = ((int *)data)[i * 3 + j];
                else
                    memset(&want, 0x5A, sizeof(want));
                bad += back[i][j] != want;
            }
        CHECK(bad == 0, "fill never: stored chunk read, the rest left as it was (%d wrong)", bad);
    }
    v.fill_never = 0;
    OK(ncc_read(&v, &s, (unsigned char *)back));
    CHECK(back[9][6] == 0 && back[0][0] == data[0][0], "fill read again once fill_never is off");
    ncc_var_fini(&v);
    store_clear(&st);

    /* Sparse reads keep the chunks they decode, clean, within the bound,
     * and never push out a dirty one. */
    MUST(ncc_var_init(&v, &g, 0, &fill, 0, 3, &ops, &st));
    MUST(ncc_sel_init(&s, &g, NULL, NULL, NULL, dims, NULL));
    OK(ncc_write(&v, &s, (unsigned char *)data, 1));
    OK(ncc_flush(&v, 0));
    v.keep_sparse = 4;
    st.ndecode = 0;
    for (int rep = 0; rep < 3; rep++)
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 3; j++) {
                int one = 0;
                MUST(ncc_sel_init(&s, &g, (size_t[]){i, j}, (size_t[]){1, 1}, NULL, dims, NULL));
                OK(ncc_read(&v, &s, (unsigned char *)&one));
                CHECK(one == data[i][j], "sparse read value");
            }
    CHECK(st.ndecode == 1, "a run of sparse reads decodes the chunk once (%ld)", st.ndecode);
    CHECK(v.cache.n == 1 && !ncc_has_dirty(&v), "the chunk kept clean (%zu entries)", v.cache.n);
    /* A dirty chunk and reads of every other chunk: the bound holds and
     * the dirty chunk stays. */
    {
        int val = 7;
        MUST(ncc_sel_init(&s, &g, (size_t[]){9, 6}, (size_t[]){1, 1}, NULL, dims, NULL));
        OK(ncc_write(&v, &s, (unsigned char *)&val, 1));
        for (size_t ci = 0; ci < 3; ci++)
            for (size_t cj = 0; cj < 3; cj++) {
                int one;
                MUST(ncc_sel_init(&s, &g, (size_t[]){ci * 4, cj * 3}, (size_t[]){1, 1}, NULL, dims, NULL));
                OK(ncc_read(&v, &s, (unsigned char *)&one));
                CHECK(one == data[ci * 4][cj * 3], "sparse read of chunk %zu.%zu", ci, cj);
            }
        CHECK(v.cache.n <= 3 && ncc_has_dirty(&v), "bounded (%zu), the dirty chunk kept", v.cache.n);
        MUST(ncc_sel_init(&s, &g, (size_t[]){9, 6}, (size_t[]){1, 1}, NULL, dims, NULL));
        OK(ncc_read(&v, &s, (unsigned char *)&val));
        CHECK(val == 7, "the dirty chunk's value");
        data[9][6] = 7;
    }
    /* Not sparse: nothing kept. */
    OK(ncc_flush(&v, 0));
    MUST(ncc_sel_init(&s, &g, NULL, NULL, NULL, dims, NULL));
    OK(ncc_read(&v, &s, (unsigned char *)back));
    CHECK(v.cache.n == 0 && memcmp(back, data, sizeof(back)) == 0, "a covering read keeps nothing (%zu)",
          v.cache.n);
    ncc_var_fini(&v);
    store_clear(&st);

    /* Edge chunks at full size: a write of every element inside the
     * variable writes the chunk whole (no read), its padding fill. */
    for (int direct = 0; direct < 2; direct++) {
        MUST(ncc_var_init(&v, &g, 0, &fill, 1, 4, &ops, &st));
        v.pad_edges = 1;
        MUST(ncc_sel_init(&s, &g, (size_t[]){8, 6}, (size_t[]){2, 1}, NULL, dims, NULL));
        st.nfetch = 0;
        OK(ncc_write(&v, &s, (unsigned char *)(int[]){11, 12}, direct));
        OK(ncc_flush(&v, 0));
        CHECK(st.nfetch == 0, "an edge chunk covered inside the extent is not read first (direct %d)", direct);
        {
            int i = find(&st, "2.2"), ok = i >= 0 && st.len[i] == 4 + 12 * sizeof(int);
            if (ok) {
                int chunkv[12];
                ncc_raw r = {0};
                r.data = st.data[i];
                r.len = st.len[i];
                OK(f_decode(&st, &r, chunkv, sizeof(chunkv), NULL));
                for (int k = 0; k < 12; k++) {
                    int want = k == 0 ? 11 : k == 3 ? 12 : fill;
                    ok &= chunkv[k] == want;
                }
            }
            CHECK(ok, "edge chunk stored at full size: data, then fill padding (direct %d)", direct);
        }
        ncc_var_fini(&v);
        store_clear(&st);
    }
    pthread_mutex_destroy(&st.lock);
}

/* HDF5's write-back policy and order (lru), on a row of 10 chunks of 4
 * with a cache of 4: evictions least recent first down to 3/4, a whole
 * chunk written from the caller and its cached copy dropped, a request
 * with more parts than the cache holds written back and read-modify-
 * written in order, a failed eviction dropped and reported, and a sparse
 * read keeping every chunk it uses. */
static void
test_lru(int in_task)
{
    enum { N = 40 };
    size_t dims[1] = {N}, chunk[1] = {4};
    int fill = -1, model[N], back[N], vals[N];
    store st;
    ncc_grid g;
    ncc_var v;
    ncc_sel s;
    memset(&st, 0, sizeof(st));
    pthread_mutex_init(&st.lock, NULL);
    st.rank = 1;
    for (int i = 0; i < N; i++) {
        model[i] = fill;
        vals[i] = 1000 + i;
    }
    MUST(ncc_grid_init(&g, 1, chunk, sizeof(int), (size_t)1 << 30));
    MUST(ncc_var_init(&v, &g, 0, &fill, 1, 4, &ops, &st));
    v.lru = 1;
    v.pad_edges = 1;
    v.keep_sparse = 4;
    v.fetch_in_task = v.store_in_task = in_task;
#define LRU_PUT(st0, n0, sd0)                                                                                \
    do {                                                                                                     \
        ptrdiff_t sd_[1] = {sd0};                                                                            \
        MUST(ncc_sel_init(&s, &g, (size_t[]){st0}, (size_t[]){n0}, sd_, dims, NULL));                        \
        OK(ncc_write(&v, &s, (unsigned char *)vals, 1));                                                     \
        for (size_t i_ = 0; i_ < (n0); i_++)                                                                 \
            model[(st0) + i_ * (sd0)] = vals[i_];                                                            \
    } while (0)
    for (size_t c = 0; c < 4; c++)
        LRU_PUT(c * 4 + 1, 1, 1);
    CHECK(st.log[0] == 0 && v.cache.n == 4, "four parts cached, nothing stored (%s)", st.log);
    LRU_PUT(17, 2, 1);
    CHECK(strcmp(st.log, "0 1 ") == 0 && v.cache.n == 3, "the two least recent evicted (%s)", st.log);
    LRU_PUT(8, 4, 1);
    CHECK(strcmp(st.log, "0 1 2 ") == 0 && v.cache.n == 2, "a whole chunk stored, its entry dropped (%s)",
          st.log);
    st.log[0] = 0;
    LRU_PUT(2, 5, 4);
    CHECK(strcmp(st.log, "4 3 0 1 2 3 4 ") == 0 && v.cache.n == 0,
          "more parts than the cache: written back most recent first, then every chunk in order (%s)", st.log);
    MUST(ncc_sel_init(&s, &g, NULL, NULL, NULL, dims, NULL));
    OK(ncc_read(&v, &s, (unsigned char *)back));
    CHECK(memcmp(back, model, sizeof(back)) == 0, "read back (in_task %d)", in_task);
    /* A sparse read (1 in 4, keep_sparse 3) of one value in each of
     * the five stored chunks keeps all five, over the bound. */
    {
        int five[5];
        ptrdiff_t sd[1] = {4};
        v.keep_sparse = 3;
        MUST(ncc_sel_init(&s, &g, (size_t[]){1}, (size_t[]){5}, sd, dims, NULL));
        OK(ncc_read(&v, &s, (unsigned char *)five));
        CHECK(v.cache.n == 5 && five[4] == model[17], "a sparse read keeps every chunk it used (%zu)", v.cache.n);
    }
    /* Parts of chunks 6 to 9 push the clean ones out (nothing stored); then,
     * with stores failing, chunk 5 evicts 6 and 7: dropped, lost set, and
     * chunk 5, never loaded, leaves too (9 and 8 stay). */
    st.log[0] = 0;
    LRU_PUT(25, 1, 1);
    LRU_PUT(29, 1, 1);
    LRU_PUT(33, 1, 1);
    LRU_PUT(37, 1, 1);
    CHECK(st.log[0] == 0 && v.cache.n == 4 && !v.lost, "clean entries dropped, nothing stored (%s)", st.log);
    st.fail_stores = 1;
    MUST(ncc_sel_init(&s, &g, (size_t[]){21}, (size_t[]){1}, NULL, dims, NULL));
    CHECK(ncc_write(&v, &s, (unsigned char *)vals, 1) == NC_EACCESS && v.lost && v.cache.n == 2 &&
              ncc_cache_find(&v.cache, (uint64_t[]){6}) == NULL &&
              ncc_cache_find(&v.cache, (uint64_t[]){9}) != NULL,
          "a failed eviction drops its chunks and sets lost (lost %d, %zu cached)", v.lost, v.cache.n);
    st.fail_stores = 0;
#undef LRU_PUT
    ncc_var_fini(&v);
    store_clear(&st);
    pthread_mutex_destroy(&st.lock);
}

/* ---- variables stored as they are, read at offsets (ncc_plain_read) ------------------ */

#define PR 13
#define PC 11

typedef struct pimg {
    unsigned char *bytes;
    size_t len;
    uint64_t off[4][4];  /* chunked: where chunk (i, j) is; UINT64_MAX: not stored */
    int pieces;          /* contiguous: pieces of prow rows, the last shorter */
    size_t prow;
    int fail;            /* reads fail while set */
    long nreads;
} pimg;

static short
pval(size_t r, size_t c)
{
    return (short)((int)r * 700 - (int)c * 37 - 1000);
}

static void
put_be16(unsigned char *b, short v)
{
    b[0] = (unsigned char)((unsigned short)v >> 8);
    b[1] = (unsigned char)v;
}

static int
p_where(void *src, const uint64_t *idx, uint64_t *offp, size_t *nelemsp)
{
    pimg *im = src;
    if (im->pieces) {
        size_t r0 = (size_t)idx[0] * im->prow;
        *offp = (uint64_t)r0 * PC * 2;
        *nelemsp = (PR - r0 < im->prow ? PR - r0 : im->prow) * PC;
        return NC_NOERR;
    }
    if (im->off[idx[0]][idx[1]] == UINT64_MAX)
        return NC_EEMPTY;
    *offp = im->off[idx[0]][idx[1]];
    *nelemsp = 12;
    return NC_NOERR;
}

static int
p_read(void *src, uint64_t off, void *buf, size_t len)
{
    pimg *im = src;
    __atomic_add_fetch(&im->nreads, 1, __ATOMIC_RELAXED);
    if (im->fail || off > im->len || len > im->len - off)
        return NC_EHDFERR;
    memcpy(buf, im->bytes + off, len);
    return NC_NOERR;
}

static void
test_plain(void)
{
    static const size_t chunk[2] = {4, 3};
    size_t piece[2] = {5, PC};
    const short fill = -5;
    short out[PR * PC];
    signed char bout[PR * PC];
    double dout[PR * PC];
    pimg im;
    ncc_plain p;
    ncc_grid g, gb, gd;
    ncc_sel s;
    size_t pos = 7;
    int nbad;

    /* Chunks of 4 x 3 big-endian shorts, stored at full size with junk past
     * the extent, in a scattered order; (1, 2) and (3, 0) never written. */
    memset(&im, 0, sizeof(im));
    im.len = 7 + 16 * 24 + 5;
    im.bytes = malloc(im.len);
    for (size_t i = 0; i < im.len; i++)
        im.bytes[i] = (unsigned char)(i * 29 + 3);
    for (int k = 15; k >= 0; k--) {
        size_t ci = (size_t)k % 4, cj = (size_t)k / 4;
        if ((ci == 1 && cj == 2) || (ci == 3 && cj == 0)) {
            im.off[ci][cj] = UINT64_MAX;
            continue;
        }
        im.off[ci][cj] = pos;
        for (size_t a = 0; a < 4; a++)
            for (size_t b = 0; b < 3; b++)
                if (ci * 4 + a < PR && cj * 3 + b < PC)
                    put_be16(im.bytes + pos + (a * 3 + b) * 2, pval(ci * 4 + a, cj * 3 + b));
        pos += 24;
    }
    memset(&p, 0, sizeof(p));
    p.where = p_where;
    p.read = p_read;
    p.src = &im;
    p.fsize = 2;
    p.swap = ((const unsigned char *)&(uint16_t){1})[0] == 1; /* the host is little-endian */
    p.ftype = p.mtype = NC_SHORT;
    p.fill = &fill;
    CHECK(ncc_grid_init(&g, 2, chunk, 2, SIZE_MAX) == NC_NOERR, "plain grid");
    for (int t = 0; t < 40; t++) {
        size_t st[2], ct[2], len[2] = {PR, PC};
        ptrdiff_t sd[2];
        for (int d = 0; d < 2; d++) {
            st[d] = (size_t)rnd(d ? PC : PR);
            sd[d] = 1 + (ptrdiff_t)rnd(4);
            ct[d] = 1 + rnd(((d ? PC : PR) - 1 - st[d]) / (size_t)sd[d] + 1);
        }
        if (ncc_sel_init(&s, &g, st, ct, sd, len, NULL) != NC_NOERR) {
            CHECK(0, "plain selection %d", t);
            continue;
        }
        memset(out, 0x77, sizeof(out));
        CHECK(ncc_plain_read(&p, &g, &s, (unsigned char *)out) == NC_NOERR, "plain read %d", t);
        nbad = 0;
        for (size_t i = 0; i < ct[0]; i++)
            for (size_t j = 0; j < ct[1]; j++) {
                size_t r = st[0] + i * (size_t)sd[0], c = st[1] + j * (size_t)sd[1];
                int absent = (r / 4 == 1 && c / 3 == 2) || (r / 4 == 3 && c / 3 == 0);
                nbad += out[i * ct[1] + j] != (absent ? fill : pval(r, c));
            }
        CHECK(nbad == 0, "plain read %d: %d values differ from the model", t, nbad);
    }
    /* The whole variable: chunks not stored are fill, or left alone. */
    {
        size_t st[2] = {0, 0}, ct[2] = {PR, PC}, len[2] = {PR, PC};
        ncc_sel_init(&s, &g, st, ct, NULL, len, NULL);
        p.fill = NULL;
        memset(out, 0x77, sizeof(out));
        CHECK(ncc_plain_read(&p, &g, &s, (unsigned char *)out) == NC_NOERR, "plain read, fill never");
        nbad = 0;
        for (size_t r = 0; r < PR; r++)
            for (size_t c = 0; c < PC; c++) {
                int absent = (r / 4 == 1 && c / 3 == 2) || (r / 4 == 3 && c / 3 == 0);
                nbad += out[r * PC + c] != (absent ? (short)0x7777 : pval(r, c));
            }
        CHECK(nbad == 0, "fill never: chunks not stored left as they were (%d differ)", nbad);
        /* Converted in the tasks: to double exact, to signed char NC_ERANGE
         * with the values that fit exact. */
        p.fill = &(double){-5.0};
        p.mtype = NC_DOUBLE;
        CHECK(ncc_grid_init(&gd, 2, chunk, 8, SIZE_MAX) == NC_NOERR, "double grid");
        ncc_sel_regrid(&s, &gd);
        CHECK(ncc_plain_read(&p, &gd, &s, (unsigned char *)dout) == NC_NOERR, "plain read as double");
        nbad = 0;
        for (size_t r = 0; r < PR; r++)
            for (size_t c = 0; c < PC; c++) {
                int absent = (r / 4 == 1 && c / 3 == 2) || (r / 4 == 3 && c / 3 == 0);
                nbad += dout[r * PC + c] != (absent ? -5.0 : (double)pval(r, c));
            }
        CHECK(nbad == 0, "as double: %d differ", nbad);
        p.fill = &(signed char){-5};
        p.mtype = NC_BYTE;
        CHECK(ncc_grid_init(&gb, 2, chunk, 1, SIZE_MAX) == NC_NOERR, "byte grid");
        ncc_sel_regrid(&s, &gb);
        CHECK(ncc_plain_read(&p, &gb, &s, (unsigned char *)bout) == NC_ERANGE, "plain read as byte: NC_ERANGE");
        nbad = 0;
        for (size_t r = 0; r < PR; r++)
            for (size_t c = 0; c < PC; c++) {
                int absent = (r / 4 == 1 && c / 3 == 2) || (r / 4 == 3 && c / 3 == 0);
                short v = pval(r, c);
                if (absent)
                    nbad += bout[r * PC + c] != -5;
                else if (v >= -128 && v <= 127)
                    nbad += bout[r * PC + c] != v;
            }
        CHECK(nbad == 0, "as byte: %d values that fit differ", nbad);
        /* A failing source: its error. */
        p.mtype = NC_SHORT;
        p.fill = &fill;
        ncc_sel_regrid(&s, &g);
        im.fail = 1;
        CHECK(ncc_plain_read(&p, &g, &s, (unsigned char *)out) == NC_EHDFERR, "a failed read is the call's error");
        im.fail = 0;
    }
    /* A contiguous variable in pieces of 5 rows (the last of 3), read straight
     * into the caller's buffer where a piece is one run of it. */
    {
        size_t st[2] = {0, 0}, ct[2] = {PR, PC}, len[2] = {PR, PC};
        unsigned char *img = malloc(PR * PC * 2);
        for (size_t r = 0; r < PR; r++)
            for (size_t c = 0; c < PC; c++)
                put_be16(img + (r * PC + c) * 2, pval(r, c));
        free(im.bytes);
        im.bytes = img;
        im.len = PR * PC * 2;
        im.pieces = 1;
        im.prow = 5;
        CHECK(ncc_grid_init(&g, 2, piece, 2, SIZE_MAX) == NC_NOERR, "piece grid");
        for (int t = 0; t < 2; t++) {
            if (t == 1)
                st[0] = 2, st[1] = 1, ct[0] = 11, ct[1] = 9;
            ncc_sel_init(&s, &g, st, ct, NULL, len, NULL);
            memset(out, 0, sizeof(out));
            CHECK(ncc_plain_read(&p, &g, &s, (unsigned char *)out) == NC_NOERR, "pieces read %d", t);
            nbad = 0;
            for (size_t i = 0; i < ct[0]; i++)
                for (size_t j = 0; j < ct[1]; j++)
                    nbad += out[i * ct[1] + j] != pval(st[0] + i, st[1] + j);
            CHECK(nbad == 0, "pieces read %d: %d differ", t, nbad);
        }
    }
    free(im.bytes);
}

int
main(void)
{
    test_sel();
    test_copies();
    for (int fit = 0; fit < 2; fit++)
        for (int sit = 0; sit < 2; sit++) {
            test_rw(fit, sit, 4, 0);
            test_rw(fit, sit, 1, 1);
        }
    test_rw(0, 0, 64, 0);
    test_direct();
    test_store_failure();
    test_strings(0);
    test_strings(1);
    for (int keepall = 0; keepall < 2; keepall++)
        for (int in_task = 0; in_task < 2; in_task++) {
            test_runs(keepall, in_task, 2, 0);
            test_runs(keepall, in_task, 64, 0);
        }
    test_runs(1, 1, 2, -7);
    test_runs(0, 0, 4, 5);
    test_runs_declined();
    test_hdf5_rules();
    test_lru(0);
    test_lru(1);
    test_plain();
    return nct_summary("tst_chunk_engine");
}
