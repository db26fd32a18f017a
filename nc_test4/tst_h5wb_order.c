/* tst_h5wb_order: filtered chunked variables written through every path of
 * the write-back cache -- whole chunks, rows merged into cached chunks, edge
 * chunks, strided puts, appended records, requests with more partly
 * covered chunks than the cache holds (read-modify-write), evictions, a
 * changed cache size, no cache (single values through HDF5's own
 * pipeline), reads and syncs between writes -- and read back
 * against a model of what was written.
 *
 * Usage: tst_h5wb_order [DIR].  The files it leaves in DIR (default ".")
 * depend only on the calls made, so the same program built against two
 * libraries must leave byte-identical files when the libraries write
 * chunks in the same order (nc_test4/h5wb_bytes.sh compares them).  It
 * uses only the public API, so it builds against any netCDF-C install. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "netcdf_filter.h"

#define MAXD 3

static int failures;

static void
chk(int st, int line, const char *what)
{
    if (st != NC_NOERR) {
        fprintf(stderr, "line %d: %s: %s\n", line, what, nc_strerror(st));
        exit(1);
    }
}
#define CHK(call) chk((call), __LINE__, #call)

/* A variable and the model of its values (unwritten: the fill value). */
typedef struct tvar {
    int ncid, varid, nd;
    size_t dims[MAXD];
    size_t n;
    double *m;
    double fill;
    double next;             /* the next value written */
} tvar;

static unsigned long long rng = 88172645463325252ull;

static unsigned
rnd(unsigned n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (unsigned)((rng >> 33) % n) : 0;
}

static void
model_grow(tvar *v, size_t rows)
{
    size_t per = 1, old = v->n;
    if (rows <= v->dims[0])
        return;
    for (int d = 1; d < v->nd; d++)
        per *= v->dims[d];
    v->n = rows * per;
    v->m = realloc(v->m, v->n * sizeof(double));
    for (size_t i = old; i < v->n; i++)
        v->m[i] = v->fill;
    v->dims[0] = rows;
}

static tvar
def_var(int ncid, const char *name, nc_type t, int nd, const int *dimids, const size_t *dims,
        const size_t *chunks, int shuffle, int deflate, int fletcher, double fill)
{
    tvar v;
    memset(&v, 0, sizeof(v));
    v.ncid = ncid;
    v.nd = nd;
    v.fill = fill;
    v.next = 1;
    CHK(nc_def_var(ncid, name, t, nd, dimids, &v.varid));
    CHK(nc_def_var_chunking(ncid, v.varid, NC_CHUNKED, chunks));
    if (shuffle || deflate)
        CHK(nc_def_var_deflate(ncid, v.varid, shuffle, deflate > 0, deflate));
    if (fletcher)
        CHK(nc_def_var_fletcher32(ncid, v.varid, 1));
    v.n = 1;
    for (int d = 0; d < nd; d++) {
        v.dims[d] = dims[d];
        v.n *= dims[d];
    }
    v.m = malloc((v.n ? v.n : 1) * sizeof(double));
    for (size_t i = 0; i < v.n; i++)
        v.m[i] = fill;
    return v;
}

/* Write the box start/count/stride with fresh values. */
static void
put(tvar *v, const size_t *start, const size_t *count, const ptrdiff_t *stride)
{
    size_t n = 1, idx[MAXD] = {0};
    double *buf;
    for (int d = 0; d < v->nd; d++)
        n *= count[d];
    if (v->nd > 0 && start[0] + (count[0] - 1) * (size_t)stride[0] >= v->dims[0])
        model_grow(v, start[0] + (count[0] - 1) * (size_t)stride[0] + 1);
    buf = malloc((n ? n : 1) * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        size_t off = 0;
        buf[i] = v->next;
        v->next = v->next >= 30000 ? 1 : v->next + 1;
        for (int d = 0; d < v->nd; d++)
            off = off * v->dims[d] + start[d] + idx[d] * (size_t)stride[d];
        v->m[off] = buf[i];
        for (int d = v->nd - 1; d >= 0; d--) {
            if (++idx[d] < count[d])
                break;
            idx[d] = 0;
        }
    }
    CHK(nc_put_vars_double(v->ncid, v->varid, start, count, stride, buf));
    free(buf);
}

static void
put_box(tvar *v, size_t s0, size_t s1, size_t s2, size_t c0, size_t c1, size_t c2, ptrdiff_t t0, ptrdiff_t t1,
        ptrdiff_t t2)
{
    size_t start[MAXD] = {s0, s1, s2}, count[MAXD] = {c0, c1, c2};
    ptrdiff_t stride[MAXD] = {t0, t1, t2};
    put(v, start, count, stride);
}

/* Read one value (a sparse read) and compare it with the model. */
static void
get1(tvar *v, const size_t *at)
{
    double x;
    size_t off = 0;
    for (int d = 0; d < v->nd; d++)
        off = off * v->dims[d] + at[d];
    CHK(nc_get_var1_double(v->ncid, v->varid, at, &x));
    if (x != v->m[off]) {
        fprintf(stderr, "var %d element %zu: %g, expected %g\n", v->varid, off, x, v->m[off]);
        failures++;
    }
}

/* Read the whole variable and compare it with the model. */
static void
check(tvar *v)
{
    double *buf = malloc((v->n ? v->n : 1) * sizeof(double));
    size_t start[MAXD] = {0}, count[MAXD];
    size_t bad = 0;
    for (int d = 0; d < v->nd; d++)
        count[d] = v->dims[d];
    CHK(nc_get_vara_double(v->ncid, v->varid, start, count, buf));
    for (size_t i = 0; i < v->n; i++)
        if (buf[i] != v->m[i] && bad++ < 3)
            fprintf(stderr, "var %d element %zu: %g, expected %g\n", v->varid, i, buf[i], v->m[i]);
    failures += bad != 0;
    free(buf);
}

static char path[4096];

static const char *
fname(const char *dir, const char *name)
{
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return path;
}

/* Check a and b, close the file, free the models. */
static void
finish(int ncid, tvar *a, tvar *b)
{
    check(a);
    check(b);
    CHK(nc_close(ncid));
    free(a->m);
    free(b->m);
}

/* Close the file, check a from it reopened read-only, free the model. */
static void
reopen_check(const char *dir, const char *name, int ncid, tvar *a)
{
    CHK(nc_close(ncid));
    CHK(nc_open(fname(dir, name), NC_NOWRITE, &a->ncid));
    check(a);
    CHK(nc_close(a->ncid));
    free(a->m);
}

/* A new file name in dir with dimensions y and x of dims. */
static int
create2(const char *dir, const char *name, const size_t *dims, int *dimids)
{
    int ncid;
    CHK(nc_create(fname(dir, name), NC_NETCDF4 | NC_CLOBBER, &ncid));
    CHK(nc_def_dim(ncid, "y", dims[0], &dimids[0]));
    CHK(nc_def_dim(ncid, "x", dims[1], &dimids[1]));
    return ncid;
}

/* One full write, chunks dividing the shape and not. */
static void
t_whole(const char *dir)
{
    int ncid, dimids[2];
    size_t dims[2] = {100, 60}, ch[2] = {10, 12}, ch2[2] = {30, 25};
    tvar a, b;
    ncid = create2(dir, "whole.nc", dims, dimids);
    a = def_var(ncid, "a", NC_DOUBLE, 2, dimids, dims, ch, 0, 1, 0, NC_FILL_DOUBLE);
    b = def_var(ncid, "b", NC_INT, 2, dimids, dims, ch2, 1, 4, 0, NC_FILL_INT);
    CHK(nc_enddef(ncid));
    put_box(&a, 0, 0, 0, 100, 60, 1, 1, 1, 1);
    put_box(&b, 0, 0, 0, 100, 60, 1, 1, 1, 1);
    finish(ncid, &a, &b);
}

/* Rows into tall chunks: every row a part of several chunks, merged in the
 * cache and evicted as the rows move down. */
static void
t_rows(const char *dir, const char *name, unsigned zstd)
{
    int ncid, dimids[2];
    size_t dims[2] = {64, 50}, ch[2] = {16, 10};
    tvar a;
    ncid = create2(dir, name, dims, dimids);
    a = def_var(ncid, "a", NC_INT, 2, dimids, dims, ch, 1, zstd ? 0 : 5, 0, NC_FILL_INT);
    if (zstd)
        CHK(nc_def_var_filter(ncid, a.varid, 32015, 1, &zstd));
    /* A cache of 7 chunks: the rows' 5 chunks fit, two bands of them do not. */
    CHK(nc_set_var_chunk_cache(ncid, a.varid, 7 * 16 * 10 * 4, 7, 0.75f));
    CHK(nc_enddef(ncid));
    for (size_t r = 0; r < 64; r++)
        put_box(&a, r, 0, 0, 1, 50, 1, 1, 1, 1);
    check(&a);
    for (size_t r = 0; r < 64; r += 3)
        put_box(&a, r, 5, 0, 1, 30, 1, 1, 1, 1);
    reopen_check(dir, name, ncid, &a);
}

/* Strided puts over edge chunks in three dimensions. */
static void
t_strided(const char *dir)
{
    int ncid, dimids[3];
    size_t dims[3] = {20, 30, 40}, ch[3] = {7, 8, 9};
    tvar a;
    CHK(nc_create(fname(dir, "strided.nc"), NC_NETCDF4 | NC_CLOBBER, &ncid));
    CHK(nc_def_dim(ncid, "z", dims[0], &dimids[0]));
    CHK(nc_def_dim(ncid, "y", dims[1], &dimids[1]));
    CHK(nc_def_dim(ncid, "x", dims[2], &dimids[2]));
    a = def_var(ncid, "a", NC_FLOAT, 3, dimids, dims, ch, 0, 2, 1, NC_FILL_FLOAT);
    CHK(nc_enddef(ncid));
    put_box(&a, 0, 0, 0, 10, 10, 40, 2, 3, 1);
    put_box(&a, 1, 2, 3, 19, 14, 10, 1, 2, 4);
    put_box(&a, 14, 24, 36, 6, 6, 4, 1, 1, 1);   /* the far edge chunk, whole */
    put_box(&a, 0, 0, 0, 20, 30, 1, 1, 1, 1);    /* a plane: parts of many chunks */
    check(&a);
    put_box(&a, 3, 1, 1, 5, 9, 13, 3, 3, 3);
    reopen_check(dir, "strided.nc", ncid, &a);
}

/* Records appended one at a time to an unlimited dimension, with syncs. */
static void
t_unlim(const char *dir)
{
    int ncid, dimids[2];
    size_t dims[2] = {0, 30}, ch[2] = {4, 12};
    tvar a;
    CHK(nc_create(fname(dir, "unlim.nc"), NC_NETCDF4 | NC_CLOBBER, &ncid));
    CHK(nc_def_dim(ncid, "t", NC_UNLIMITED, &dimids[0]));
    CHK(nc_def_dim(ncid, "x", dims[1], &dimids[1]));
    a = def_var(ncid, "a", NC_SHORT, 2, dimids, dims, ch, 1, 1, 1, NC_FILL_SHORT);
    CHK(nc_enddef(ncid));
    for (size_t r = 0; r < 23; r++) {
        put_box(&a, r, 0, 0, 1, 30, 1, 1, 1, 1);
        if (r % 5 == 4)
            CHK(nc_sync(ncid));
    }
    put_box(&a, 25, 3, 0, 2, 20, 1, 1, 1, 1);    /* past the end: a gap of fill */
    check(&a);
    CHK(nc_close(ncid));
    free(a.m);
}

/* A cache of 3 chunks: requests with more parts than that (read-modify-
 * write), then small ones that evict, a changed cache, and NOFILL. */
static void
t_overflow(const char *dir)
{
    int ncid, dimids[2];
    size_t dims[2] = {40, 40}, ch[2] = {8, 8};
    tvar a, b;
    ncid = create2(dir, "overflow.nc", dims, dimids);
    a = def_var(ncid, "a", NC_DOUBLE, 2, dimids, dims, ch, 1, 3, 0, -7.0);
    CHK(nc_def_var_fill(ncid, a.varid, NC_FILL, &a.fill));
    b = def_var(ncid, "b", NC_INT, 2, dimids, dims, ch, 0, 1, 0, 0);
    CHK(nc_def_var_fill(ncid, b.varid, NC_NOFILL, NULL));
    CHK(nc_set_var_chunk_cache(ncid, a.varid, 3 * 8 * 8 * 8, 3, 0.75f));
    CHK(nc_set_var_chunk_cache(ncid, b.varid, 4 * 8 * 8 * 4, 4, 0.75f));
    CHK(nc_enddef(ncid));
    put_box(&b, 0, 0, 0, 40, 40, 1, 1, 1, 1);    /* every element of b written */
    put_box(&a, 3, 0, 0, 1, 40, 1, 1, 1, 1);     /* 5 parts > 3: read-modify-write */
    put_box(&a, 1, 1, 0, 30, 1, 1, 1, 1, 1);     /* a column */
    for (size_t i = 0; i < 12; i++)              /* parts in turn: evictions */
        put_box(&a, (i * 7) % 38, (i * 13) % 37, 0, 2, 3, 1, 1, 1, 1);
    for (size_t i = 0; i < 10; i++)
        put_box(&b, (i * 11) % 39, (i * 5) % 38, 0, 1, 2, 1, 1, 1, 1);
    CHK(nc_set_var_chunk_cache(ncid, a.varid, 6 * 8 * 8 * 8, 6, 0.75f));
    for (size_t i = 0; i < 12; i++)
        put_box(&a, (i * 17) % 39, (i * 3) % 36, 0, 1, 4, 1, 1, 1, 1);
    CHK(nc_set_var_chunk_cache(ncid, a.varid, 8, 1, 0.75f));  /* no cache */
    put_box(&a, 0, 0, 0, 40, 10, 1, 1, 4, 1);
    finish(ncid, &a, &b);
}

/* No cache: single values go through HDF5's own pipeline (its chunk
 * cache), bigger parts are read-modify-written from the chunks it holds. */
static void
t_nocache(const char *dir)
{
    int ncid, dimids[2];
    size_t dims[2] = {30, 30}, ch[2] = {6, 10};
    tvar a;
    ncid = create2(dir, "nocache.nc", dims, dimids);
    a = def_var(ncid, "a", NC_INT, 2, dimids, dims, ch, 1, 1, 0, NC_FILL_INT);
    CHK(nc_set_var_chunk_cache(ncid, a.varid, 0, 1, 0.75f));
    CHK(nc_enddef(ncid));
    for (size_t i = 0; i < 9; i++) {
        put_box(&a, (i * 7) % 30, (i * 11) % 30, 0, 1, 1, 1, 1, 1, 1);
        put_box(&a, (i * 5) % 25, (i * 3) % 20, 0, 5, 10, 1, 1, 1, 1);
    }
    reopen_check(dir, "nocache.nc", ncid, &a);
}

/* Random boxes, strides, single-value reads, whole reads, cache changes
 * and syncs on two variables in turn. */
static void
t_mixed(const char *dir)
{
    int ncid, dimids[3];
    size_t dims[3] = {24, 36, 20}, ch[3] = {5, 7, 6}, ch2[3] = {12, 9, 20};
    tvar v[2];
    CHK(nc_create(fname(dir, "mixed.nc"), NC_NETCDF4 | NC_CLOBBER, &ncid));
    CHK(nc_def_dim(ncid, "z", dims[0], &dimids[0]));
    CHK(nc_def_dim(ncid, "y", dims[1], &dimids[1]));
    CHK(nc_def_dim(ncid, "x", dims[2], &dimids[2]));
    v[0] = def_var(ncid, "a", NC_INT, 3, dimids, dims, ch, 1, 2, 0, NC_FILL_INT);
    v[1] = def_var(ncid, "b", NC_DOUBLE, 3, dimids, dims, ch2, 0, 6, 1, NC_FILL_DOUBLE);
    CHK(nc_set_var_chunk_cache(ncid, v[0].varid, 10 * 5 * 7 * 6 * 4, 10, 0.75f));
    CHK(nc_set_var_chunk_cache(ncid, v[1].varid, 5 * 12 * 9 * 20 * 8, 5, 0.75f));
    CHK(nc_enddef(ncid));
    for (int op = 0; op < 400; op++) {
        tvar *t = &v[rnd(2)];
        unsigned k = rnd(100);
        if (k < 60) {
            size_t start[3], count[3];
            ptrdiff_t stride[3];
            for (int d = 0; d < 3; d++) {
                start[d] = rnd((unsigned)t->dims[d]);
                stride[d] = rnd(4) == 0 ? 1 + rnd(3) : 1;
                count[d] = 1 + rnd((unsigned)((t->dims[d] - start[d] - 1) / (size_t)stride[d] + 1));
                if (rnd(3) == 0 && count[d] > 3)
                    count[d] = 1 + rnd(3);
            }
            put(t, start, count, stride);
        } else if (k < 85) {
            size_t at[3];
            for (int d = 0; d < 3; d++)
                at[d] = rnd((unsigned)t->dims[d]);
            get1(t, at);
        } else if (k < 92) {
            check(t);
        } else if (k < 97) {
            size_t slots = rnd(14);
            size_t cb = t == &v[0] ? 5 * 7 * 6 * 4 : 12 * 9 * 20 * 8;
            CHK(nc_set_var_chunk_cache(ncid, t->varid, slots * cb, slots ? slots : 1, 0.75f));
        } else {
            CHK(nc_sync(ncid));
        }
    }
    check(&v[0]);
    check(&v[1]);
    CHK(nc_close(ncid));
    free(v[0].m);
    free(v[1].m);
}

int
main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    int ncid, avail;
    t_whole(dir);
    t_rows(dir, "rows.nc", 0);
    t_strided(dir);
    t_unlim(dir);
    t_overflow(dir);
    t_nocache(dir);
    t_mixed(dir);
    CHK(nc_open(fname(dir, "whole.nc"), NC_NOWRITE, &ncid));
    avail = nc_inq_filter_avail(ncid, 32015);
    CHK(nc_close(ncid));
    if (avail == NC_NOERR)
        t_rows(dir, "rows_zstd.nc", 3);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
