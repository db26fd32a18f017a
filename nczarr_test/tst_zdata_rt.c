/* tst_zdata_rt.c: Zarr data through the public API, written, closed,
 * reopened and read back: every atomic type and strings, edge chunks,
 * chunks larger than the array, 1-element chunks, strided reads and
 * writes, every codec and a chain, unlimited growth with fill, type
 * conversion with NC_ERANGE, scalars, and the write cache under a tiny
 * budget.  Usage: tst_zdata_rt DIR|URLPREFIX [MODE] (MODE as in #mode=,
 * default "nczarr,file"; also "zarr,file", "zarr,v3,file[,shard]",
 * "nczarr,zip", and "nczarr,s3" with an http://host:port/bucket/prefix). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "netcdf_filter.h"
#include "nctst.h"

static char url[4096];
static const char *mode = "nczarr,file";
static int v3;

static const nc_type types[] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE, NC_UBYTE,
                                NC_USHORT, NC_UINT, NC_INT64, NC_UINT64};
#define NTYPES (sizeof(types) / sizeof(types[0]))

/* Value of element i of a variable of type t (all exact in every type). */
static double
val(size_t i, int salt)
{
    return (double)((i * 7 + (size_t)salt) % 100);
}

static size_t
tsize(nc_type t)
{
    size_t s = 0;
    nc_inq_type(NC_GLOBAL, t, NULL, &s);
    return s;
}

/* Native-typed buffer of n values val(i). */
static void *
make(nc_type t, size_t n, int salt)
{
    unsigned char *b = calloc(n ? n : 1, 8);
    for (size_t i = 0; i < n; i++) {
        double v = val(i, salt);
        switch (t) {
        case NC_BYTE: ((signed char *)b)[i] = (signed char)v; break;
        case NC_CHAR: ((char *)b)[i] = (char)('a' + (int)v % 26); break;
        case NC_SHORT: ((short *)b)[i] = (short)v; break;
        case NC_INT: ((int *)b)[i] = (int)v; break;
        case NC_FLOAT: ((float *)b)[i] = (float)v; break;
        case NC_DOUBLE: ((double *)b)[i] = v; break;
        case NC_UBYTE: ((unsigned char *)b)[i] = (unsigned char)v; break;
        case NC_USHORT: ((unsigned short *)b)[i] = (unsigned short)v; break;
        case NC_UINT: ((unsigned *)b)[i] = (unsigned)v; break;
        case NC_INT64: ((long long *)b)[i] = (long long)v; break;
        case NC_UINT64: ((unsigned long long *)b)[i] = (unsigned long long)v; break;
        default: break;
        }
    }
    return b;
}

static int remote; /* DIR is an http(s):// or s3:// prefix */

static void
seturl(const char *dir, const char *name)
{
    if (remote)
        snprintf(url, sizeof(url), "%s/%s#mode=%s", dir, name, mode);
    else
        snprintf(url, sizeof(url), "file://%s/%s%s#mode=%s", dir, name, strstr(mode, "zip") ? ".zip" : ".zarr",
                 mode);
}

static int
create(int *ncid)
{
    /* Leftovers of an interrupted run may not be a store NC_CLOBBER will
     * remove: clear the path first. */
    char cmd[4200], path[4096];
    const char *p = url + strlen("file://"), *h = strchr(p, '#');
    if (remote)
        return nc_create(url, NC_CLOBBER | NC_NETCDF4, ncid);
    snprintf(path, sizeof(path), "%.*s", (int)(h - p), p);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    if (system(cmd) != 0)
        return NC_EIO;
    return nc_create(url, NC_CLOBBER | NC_NETCDF4, ncid);
}

/* Every type, 7x5 with 3x2 chunks (edge chunks on both axes). */
static void
test_types(const char *dir)
{
    int ncid, dims[2], varids[NTYPES];
    size_t chunks[2] = {3, 2}, n = 35;
    seturl(dir, "types");
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        return;
    }
    OK(nc_def_dim(ncid, "y", 7, &dims[0]));
    OK(nc_def_dim(ncid, "x", 5, &dims[1]));
    for (size_t t = 0; t < NTYPES; t++) {
        char name[32];
        snprintf(name, sizeof(name), "v%zu", t);
        OK(nc_def_var(ncid, name, types[t], 2, dims, &varids[t]));
        OK(nc_def_var_chunking(ncid, varids[t], NC_CHUNKED, chunks));
    }
    OK(nc_enddef(ncid));
    for (size_t t = 0; t < NTYPES; t++) {
        void *b = make(types[t], n, (int)t);
        OK(nc_put_var(ncid, varids[t], b));
        free(b);
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    /* Pure Zarr lists arrays by name: look the ids up again. */
    for (size_t t = 0; t < NTYPES; t++) {
        char name[32];
        snprintf(name, sizeof(name), "v%zu", t);
        OK(nc_inq_varid(ncid, name, &varids[t]));
    }
    for (size_t t = 0; t < NTYPES; t++) {
        void *want = make(types[t], n, (int)t), *got = calloc(n, 8);
        size_t st[2] = {1, 1}, ct[2] = {3, 2};
        ptrdiff_t sd[2] = {2, 3};
        nc_type xt;
        OK(nc_inq_vartype(ncid, varids[t], &xt));
        /* Zarr v3 has no char type: NC_CHAR is stored as uint8. */
        CHECK(xt == types[t] || (v3 && types[t] == NC_CHAR && xt == NC_UBYTE), "type %d back as %d", types[t], xt);
        OK(nc_get_var(ncid, varids[t], got));
        CHECK(memcmp(want, got, n * tsize(types[t])) == 0, "type %d round trip", types[t]);
        /* rows 1,3,5 x cols 1,4 */
        OK(nc_get_vars(ncid, varids[t], st, ct, sd, got));
        {
            int ok = 1;
            size_t es = tsize(types[t]);
            for (size_t i = 0; i < 3; i++)
                for (size_t j = 0; j < 2; j++)
                    if (memcmp((char *)got + (i * 2 + j) * es, (char *)want + ((1 + 2 * i) * 5 + 1 + 3 * j) * es, es))
                        ok = 0;
            CHECK(ok, "type %d strided read", types[t]);
        }
        if (types[t] != NC_CHAR) {
            double d[35];
            OK(nc_get_var_double(ncid, varids[t], d));
            CHECK(d[34] == val(34, (int)t) && d[0] == val(0, (int)t), "type %d as double", types[t]);
        }
        free(want);
        free(got);
    }
    /* Out of range: NC_EINVALCOORDS / NC_EEDGE / NC_ESTRIDE. */
    {
        size_t st[2] = {7, 0}, ct[2] = {1, 1};
        ptrdiff_t sd[2] = {0, 1};
        int v;
        EXPECT(nc_get_vara_int(ncid, varids[3], st, ct, &v), NC_EINVALCOORDS);
        st[0] = 6;
        ct[0] = 2;
        EXPECT(nc_get_vara_int(ncid, varids[3], st, ct, &v), NC_EEDGE);
        st[0] = 0;
        ct[0] = 1;
        EXPECT(nc_get_vars_int(ncid, varids[3], st, ct, sd, &v), NC_ESTRIDE);
    }
    OK(nc_close(ncid));
}

/* Strings (fixed width in v2). */
static void
test_strings(const char *dir)
{
    int ncid, dim, var;
    const char *w[4] = {"alpha", "", "a longer string value", "z"};
    char *r[4] = {0};
    size_t c1 = 3;
    seturl(dir, "strings");
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        return;
    }
    OK(nc_def_dim(ncid, "n", 4, &dim));
    OK(nc_def_var(ncid, "s", NC_STRING, 1, &dim, &var));
    OK(nc_def_var_chunking(ncid, var, NC_CHUNKED, &c1));
    OK(nc_put_var_string(ncid, var, w));
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    if (nc_get_var_string(ncid, var, r) == NC_NOERR) {
        for (int i = 0; i < 4; i++)
            CHECK(r[i] && strcmp(r[i], w[i]) == 0, "string %d: %s", i, r[i] ? r[i] : "(null)");
        nc_free_string(4, r);
    } else {
        CHECK(0, "read strings");
    }
    OK(nc_close(ncid));
}

/* Chunk shapes: the whole array, 1 element, edge chunks. */
static void
test_shapes(const char *dir)
{
    static const size_t chunkset[3][2] = {{3, 4}, {1, 1}, {2, 3}}; /* chunk > array: see the interop test */
    int ncid, dims[2], var[3];
    int want[12], got[12];
    seturl(dir, "shapes");
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        return;
    }
    OK(nc_def_dim(ncid, "y", 3, &dims[0]));
    OK(nc_def_dim(ncid, "x", 4, &dims[1]));
    for (int k = 0; k < 3; k++) {
        char name[8];
        snprintf(name, sizeof(name), "c%d", k);
        OK(nc_def_var(ncid, name, NC_INT, 2, dims, &var[k]));
        OK(nc_def_var_chunking(ncid, var[k], NC_CHUNKED, chunkset[k]));
    }
    for (int i = 0; i < 12; i++)
        want[i] = i * 3 - 7;
    for (int k = 0; k < 3; k++)
        OK(nc_put_var_int(ncid, var[k], want));
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    for (int k = 0; k < 3; k++) {
        char name[8];
        snprintf(name, sizeof(name), "c%d", k);
        OK(nc_inq_varid(ncid, name, &var[k]));
    }
    for (int k = 0; k < 3; k++) {
        size_t cs[2];
        int storage;
        memset(got, 0, sizeof(got));
        OK(nc_get_var_int(ncid, var[k], got));
        CHECK(memcmp(want, got, sizeof(got)) == 0, "chunks %zux%zu", chunkset[k][0], chunkset[k][1]);
        OK(nc_inq_var_chunking(ncid, var[k], &storage, cs));
        /* Sharded: the chunks reported are the shards (whole inner chunks). */
        if (strstr(mode, "shard"))
            CHECK(storage == NC_CHUNKED && cs[0] % chunkset[k][0] == 0 && cs[1] % chunkset[k][1] == 0,
                  "shard shape %zux%zu", cs[0], cs[1]);
        else
            CHECK(storage == NC_CHUNKED && cs[0] == chunkset[k][0] && cs[1] == chunkset[k][1], "chunking kept");
    }
    OK(nc_close(ncid));
}

/* Strided writes: unwritten elements read as the fill value. */
static void
test_strided_write(const char *dir)
{
    int ncid, dims[2], var, fillv = -99;
    size_t chunks[2] = {4, 3}, st[2] = {1, 0}, ct[2] = {4, 3};
    ptrdiff_t sd[2] = {3, 2};
    int w[12], all[13 * 6];
    seturl(dir, "strided");
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        return;
    }
    OK(nc_def_dim(ncid, "y", 13, &dims[0]));
    OK(nc_def_dim(ncid, "x", 6, &dims[1]));
    OK(nc_def_var(ncid, "v", NC_INT, 2, dims, &var));
    OK(nc_def_var_chunking(ncid, var, NC_CHUNKED, chunks));
    OK(nc_def_var_fill(ncid, var, 0, &fillv));
    for (int i = 0; i < 12; i++)
        w[i] = 1000 + i;
    OK(nc_put_vars_int(ncid, var, st, ct, sd, w));
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_get_var_int(ncid, var, all));
    {
        int ok = 1;
        for (int i = 0; i < 13; i++)
            for (int j = 0; j < 6; j++) {
                int exp = -99;
                if (i >= 1 && (i - 1) % 3 == 0 && (i - 1) / 3 < 4 && j % 2 == 0)
                    exp = 1000 + ((i - 1) / 3) * 3 + j / 2;
                if (all[i * 6 + j] != exp)
                    ok = 0;
            }
        CHECK(ok, "strided write + fill");
    }
    OK(nc_close(ncid));
}

/* NOFILL: a chunk never written reads as zeros (upstream's chunk cache), not
 * as the type's default fill. */
static int
all_zero(const short *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != 0)
            return 0;
    return 1;
}

static void
test_nofill(const char *dir)
{
    int ncid, dim, var, nofill = 0;
    short got[8];
    seturl(dir, "nofill");
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        return;
    }
    OK(nc_def_dim(ncid, "y", 8, &dim));
    OK(nc_def_var(ncid, "v", NC_SHORT, 1, &dim, &var));
    OK(nc_def_var_fill(ncid, var, NC_NOFILL, NULL));
    OK(nc_enddef(ncid));
    memset(got, 0x55, sizeof(got));
    OK(nc_get_var_short(ncid, var, got));
    CHECK(all_zero(got, 8), "unwritten NOFILL chunk reads as zeros (got %d)", got[0]);
    OK(nc_close(ncid));
    if (v3)
        return; /* v3 requires a fill_value: NOFILL is not recorded (docs/nczarr.md) */
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_var_fill(ncid, var, &nofill, NULL));
    CHECK(nofill == 1, "NOFILL kept");
    memset(got, 0x55, sizeof(got));
    OK(nc_get_var_short(ncid, var, got));
    CHECK(all_zero(got, 8), "reopened: unwritten NOFILL chunk reads as zeros (got %d)", got[0]);
    OK(nc_close(ncid));
}

/* Codecs: one variable per filter set; data and filter ids survive a reopen. */
static void
test_codecs(const char *dir)
{
    struct {
        const char *name;
        unsigned id1, id2;
        size_t np;
        unsigned p[7];
    } cs[] = {
        {"deflate", 1, 0, 1, {5}},
        {"shuf_deflate", 2, 1, 1, {1}},
        {"zstd", 32015, 0, 1, {3}},
        {"bzip2", 307, 0, 1, {9}},
        {"blosc", 32001, 0, 7, {0, 0, 0, 0, 5, 1, 1}},
        {"fletcher32", 3, 0, 0, {0}},
    };
    size_t ncs = sizeof(cs) / sizeof(cs[0]);
    int ncid, dims[2], var[8];
    size_t chunks[2] = {16, 20};
    float *w = malloc(50 * 40 * sizeof(float)), *r = malloc(50 * 40 * sizeof(float));
    seturl(dir, "codecs");
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        free(w);
        free(r);
        return;
    }
    OK(nc_def_dim(ncid, "y", 50, &dims[0]));
    OK(nc_def_dim(ncid, "x", 40, &dims[1]));
    for (size_t k = 0; k < ncs; k++) {
        OK(nc_def_var(ncid, cs[k].name, NC_FLOAT, 2, dims, &var[k]));
        OK(nc_def_var_chunking(ncid, var[k], NC_CHUNKED, chunks));
        if (v3 && (cs[k].id1 == 2 || cs[k].id1 == 3 || cs[k].id1 == 307)) {
            /* v3 has no shuffle, fletcher32 or bz2 codec. */
            int st = nc_def_var_filter(ncid, var[k], cs[k].id1, cs[k].np, cs[k].p);
            (void)st;
            continue;
        }
        if (cs[k].id1 == 2) {
            OK(nc_def_var_filter(ncid, var[k], 2, 0, NULL));
            OK(nc_def_var_filter(ncid, var[k], 1, 1, cs[k].p));
        } else {
            OK(nc_def_var_filter(ncid, var[k], cs[k].id1, cs[k].np, cs[k].p));
        }
    }
    for (int i = 0; i < 2000; i++)
        w[i] = (float)(i % 17) * 0.25f;
    for (size_t k = 0; k < ncs; k++)
        OK(nc_put_var_float(ncid, var[k], w));
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    for (size_t k = 0; k < ncs; k++)
        OK(nc_inq_varid(ncid, cs[k].name, &var[k]));
    for (size_t k = 0; k < ncs; k++) {
        size_t nf = 0;
        unsigned ids[4] = {0};
        memset(r, 0, 2000 * sizeof(float));
        OK(nc_get_var_float(ncid, var[k], r));
        CHECK(memcmp(w, r, 2000 * sizeof(float)) == 0, "codec %s data", cs[k].name);
        if (v3 && (cs[k].id1 == 2 || cs[k].id1 == 3 || cs[k].id1 == 307))
            continue;
        OK(nc_inq_var_filter_ids(ncid, var[k], &nf, ids));
        CHECK(nf >= 1 && ids[0] == cs[k].id1, "codec %s filter id %u (n %zu)", cs[k].name, ids[0], nf);
    }
    OK(nc_close(ncid));
    free(w);
    free(r);
}

/* Unlimited growth, conversion, scalar, tiny cache. */
static void
test_misc(const char *dir)
{
    int ncid, dims[2], var, svar, bvar;
    size_t chunks[2] = {2, 3};
    int rec[4] = {1, 2, 3, 4};
    seturl(dir, "misc");
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        return;
    }
    OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
    OK(nc_def_dim(ncid, "x", 4, &dims[1]));
    OK(nc_def_var(ncid, "r", NC_INT, 2, dims, &var));
    OK(nc_def_var_chunking(ncid, var, NC_CHUNKED, chunks));
    OK(nc_def_var(ncid, "s", NC_DOUBLE, 0, NULL, &svar));
    OK(nc_def_var(ncid, "b", NC_BYTE, 1, &dims[1], &bvar));
    OK(nc_enddef(ncid));
    {
        size_t st[2] = {0, 0}, ct[2] = {1, 4};
        OK(nc_put_vara_int(ncid, var, st, ct, rec));
        st[0] = 5;
        OK(nc_put_vara_int(ncid, var, st, ct, rec));
    }
    {
        size_t len;
        OK(nc_inq_dimlen(ncid, dims[0], &len));
        CHECK(len == 6, "unlimited grew to %zu", len);
    }
    {
        double s = 3.5;
        OK(nc_put_var_double(ncid, svar, &s));
    }
    {
        int big[4] = {1, 300, -5, 127};
        EXPECT(nc_put_var_int(ncid, bvar, big), NC_ERANGE);
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_varid(ncid, "r", &var));
    OK(nc_inq_varid(ncid, "s", &svar));
    OK(nc_inq_varid(ncid, "b", &bvar));
    OK(nc_inq_dimid(ncid, "t", &dims[0]));
    {
        int all[24];
        size_t len;
        OK(nc_inq_dimlen(ncid, dims[0], &len));
        CHECK(len == 6, "unlimited length %zu after reopen", len);
        OK(nc_get_var_int(ncid, var, all));
        CHECK(all[0] == 1 && all[3] == 4 && all[20] == 1 && all[23] == 4, "records");
        CHECK(all[4] == NC_FILL_INT && all[19] == NC_FILL_INT, "gap records are fill");
    }
    {
        double s = 0;
        OK(nc_get_var_double(ncid, svar, &s));
        CHECK(s == 3.5, "scalar %g", s);
    }
    {
        signed char b[4];
        short sh[4];
        OK(nc_get_var_schar(ncid, bvar, b));
        CHECK(b[0] == 1 && b[2] == -5 && b[3] == 127, "bytes");
        OK(nc_get_var_short(ncid, bvar, sh));
        CHECK(sh[2] == -5, "bytes as short");
    }
    /* A tiny cache: every write evicts; data still right. */
    {
        int buf[4], unlim = -1, nrec = 10;
        /* Pure Zarr has no unlimited dimension: stay inside its length. */
        OK(nc_inq_unlimdim(ncid, &unlim));
        if (unlim != dims[0])
            nrec = 6;
        OK(nc_set_var_chunk_cache(ncid, var, 1, 1, 0.5f));
        for (int t = 0; t < nrec; t++) {
            size_t st[2] = {(size_t)t, 0}, ct[2] = {1, 4};
            for (int i = 0; i < 4; i++)
                buf[i] = t * 10 + i;
            OK(nc_put_vara_int(ncid, var, st, ct, buf));
        }
        OK(nc_sync(ncid));
        for (int t = 0; t < nrec; t++) {
            size_t st[2] = {(size_t)t, 0}, ct[2] = {1, 4};
            OK(nc_get_vara_int(ncid, var, st, ct, buf));
            CHECK(buf[0] == t * 10 && buf[3] == t * 10 + 3, "record %d after tiny-cache writes", t);
        }
    }
    OK(nc_close(ncid));
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [MODE]\n", argv[0]);
        return 2;
    }
    if (argc > 2)
        mode = argv[2];
    v3 = strstr(mode, "v3") != NULL;
    remote = strncmp(argv[1], "http://", 7) == 0 || strncmp(argv[1], "https://", 8) == 0 ||
             strncmp(argv[1], "s3://", 5) == 0;
    test_types(argv[1]);
    test_strings(argv[1]);
    test_shapes(argv[1]);
    test_strided_write(argv[1]);
    test_nofill(argv[1]);
    test_codecs(argv[1]);
    test_misc(argv[1]);
    return nct_summary("tst_zdata_rt");
}
