/* tst_zstr.c: variable-length strings in Zarr (v3 "string" with vlen-utf8,
 * v2 dtype "|O" with the vlen-utf8 filter) through the public API: lengths
 * 0, 1, 127, 128, 129 and 10000 and multibyte UTF-8 survive a round trip
 * uncut, fill values, strided and partial-chunk reads and writes,
 * nc_get_var1, sharded arrays, a tiny cache (evictions), nc_abort with
 * dirty chunks, and a hand-made v2 "|O" store, also with hostile lengths.
 * Usage: tst_zstr DIR MODE (MODE "zarr,v3,file" or "zarr,v3,file,shard"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "nctst.h"

static char url[8300], path[4096];
static const char *mode;

static void
seturl(const char *dir, const char *name, const char *m)
{
    snprintf(path, sizeof(path), "%s/%s.zarr", dir, name);
    snprintf(url, sizeof(url), "file://%s#mode=%s", path, m);
}

static int
create(int *ncid)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    if (system(cmd) != 0)
        return NC_EIO;
    return nc_create(url, NC_CLOBBER | NC_NETCDF4, ncid);
}

/* A string of n bytes: a repeating pattern that marks its position. */
static char *
mk(size_t n, int salt)
{
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = (char)('a' + (i * 7 + (size_t)salt) % 26);
    s[n] = '\0';
    return s;
}

#define N1 12
static char *vals[N1];

static void
make_vals(void)
{
    static const size_t lens[] = {0, 1, 127, 128, 129, 10000, 3, 0, 200, 5, 64};
    for (int i = 0; i < 11; i++)
        vals[i] = mk(lens[i], i);
    vals[11] = strdup("h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x98\x80");
}

static int
same(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* 1-D: every length, whole and strided reads, get_var1, partial writes. */
static void
test_lengths(const char *dir)
{
    int ncid, dim, var;
    size_t chunk = 4;
    char *r[N1];
    seturl(dir, "lengths", mode);
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        return;
    }
    OK(nc_def_dim(ncid, "n", N1, &dim));
    OK(nc_def_var(ncid, "s", NC_STRING, 1, &dim, &var));
    OK(nc_def_var_chunking(ncid, var, NC_CHUNKED, &chunk));
    OK(nc_enddef(ncid));
    OK(nc_put_var_string(ncid, var, (const char **)vals));
    /* Read back from the (dirty) cache before closing. */
    memset(r, 0, sizeof(r));
    if (nc_get_var_string(ncid, var, r) == NC_NOERR) {
        for (int i = 0; i < N1; i++)
            CHECK(same(r[i], vals[i]), "cached string %d", i);
        nc_free_string(N1, r);
    } else
        CHECK(0, "get from cache");
    OK(nc_close(ncid));

    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_varid(ncid, "s", &var));
    memset(r, 0, sizeof(r));
    if (nc_get_var_string(ncid, var, r) == NC_NOERR) {
        for (int i = 0; i < N1; i++)
            CHECK(same(r[i], vals[i]), "string %d (length %zu) back as length %zu", i, strlen(vals[i]),
                  r[i] ? strlen(r[i]) : (size_t)-1);
        nc_free_string(N1, r);
    } else
        CHECK(0, "get after reopen");
    {
        size_t idx = 5;
        char *one = NULL;
        OK(nc_get_var1_string(ncid, var, &idx, &one));
        CHECK(same(one, vals[5]) && strlen(one) == 10000, "get_var1 of the 10000-byte string");
        nc_free_string(1, &one);
    }
    {
        /* Strided over chunk boundaries: elements 1, 4, 7, 10. */
        size_t st = 1, ct = 4;
        ptrdiff_t sd = 3;
        char *g[4] = {0};
        OK(nc_get_vars_string(ncid, var, &st, &ct, &sd, g));
        for (int i = 0; i < 4; i++)
            CHECK(same(g[i], vals[1 + 3 * i]), "strided read %d", i);
        nc_free_string(4, g);
    }
    {
        /* A partial-chunk write replaces two strings inside chunk 1, the
         * others of that chunk stay. */
        size_t st = 5, ct = 2;
        const char *w[2] = {"x", NULL}; /* NULL writes "" */
        char *g[N1] = {0};
        OK(nc_put_vara_string(ncid, var, &st, &ct, w));
        OK(nc_get_var_string(ncid, var, g));
        for (int i = 0; i < N1; i++) {
            const char *want = i == 5 ? "x" : i == 6 ? "" : vals[i];
            CHECK(same(g[i], want), "after partial write %d", i);
        }
        nc_free_string(N1, g);
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "s", &var));
    {
        size_t idx = 4;
        char *one = NULL;
        OK(nc_get_var1_string(ncid, var, &idx, &one));
        CHECK(same(one, vals[4]), "chunk neighbour kept");
        nc_free_string(1, &one);
        idx = 5;
        OK(nc_get_var1_string(ncid, var, &idx, &one));
        CHECK(same(one, "x"), "partial write stored");
        nc_free_string(1, &one);
    }
    EXPECT(nc_put_var_string(ncid, var, (const char **)vals), NC_EPERM);
    OK(nc_close(ncid));
    {
        /* Sharded: the inner chunks go through vlen-utf8. */
        char p[4200], meta[4096] = {0};
        FILE *f;
        snprintf(p, sizeof(p), "%s/s/zarr.json", path);
        if ((f = fopen(p, "rb")) != NULL) {
            size_t got = fread(meta, 1, sizeof(meta) - 1, f);
            (void)got;
            fclose(f);
        }
        CHECK(strstr(meta, "vlen-utf8") != NULL, "zarr.json names vlen-utf8");
        if (strstr(mode, "shard"))
            CHECK(strstr(meta, "sharding_indexed") != NULL, "string array sharded: %s", meta);
    }
}

/* 2-D 5x7, chunks 2x3 (edge chunks), a fill value, strided writes. */
static void
test_fill_strided(const char *dir)
{
    int ncid, dims[2], var, var2;
    size_t chunks[2] = {2, 3};
    const char *fill = "FILL\xc3\xa9";
    char *g[35] = {0};
    seturl(dir, "fill", mode);
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        return;
    }
    OK(nc_def_dim(ncid, "y", 5, &dims[0]));
    OK(nc_def_dim(ncid, "x", 7, &dims[1]));
    OK(nc_def_var(ncid, "f", NC_STRING, 2, dims, &var));
    OK(nc_def_var_chunking(ncid, var, NC_CHUNKED, chunks));
    OK(nc_def_var_fill(ncid, var, 0, &fill));
    OK(nc_def_var(ncid, "nf", NC_STRING, 2, dims, &var2));
    OK(nc_def_var_chunking(ncid, var2, NC_CHUNKED, chunks));
    OK(nc_enddef(ncid));
    {
        /* rows 0,2,4 x cols 1,4 */
        size_t st[2] = {0, 1}, ct[2] = {3, 2};
        ptrdiff_t sd[2] = {2, 3};
        const char *w[6] = {vals[2], vals[3], vals[4], vals[5], vals[11], ""};
        OK(nc_put_vars_string(ncid, var, st, ct, sd, w));
        OK(nc_put_vars_string(ncid, var2, st, ct, sd, w));
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "f", &var));
    OK(nc_inq_varid(ncid, "nf", &var2));
    for (int v = 0; v < 2; v++) {
        int vid = v ? var2 : var;
        const char *dflt = v ? "" : fill;
        if (nc_get_var_string(ncid, vid, g) != NC_NOERR) {
            CHECK(0, "get var %d", v);
            continue;
        }
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 7; x++) {
                const char *want = dflt;
                if (y % 2 == 0 && (x == 1 || x == 4)) {
                    int k = (y / 2) * 2 + (x == 4);
                    const char *w[6] = {vals[2], vals[3], vals[4], vals[5], vals[11], ""};
                    want = w[k];
                }
                CHECK(same(g[y * 7 + x], want), "var %d [%d][%d]: '%.20s'", v, y, x,
                      g[y * 7 + x] ? g[y * 7 + x] : "(null)");
            }
        nc_free_string(35, g);
    }
    {
        /* A strided read across edge chunks: rows 0,4 x cols 0,3,6 and
         * rows 0,4 x cols 1,4. */
        size_t st[2] = {0, 0}, ct[2] = {2, 3};
        ptrdiff_t sd[2] = {4, 3};
        char *h[6] = {0};
        OK(nc_get_vars_string(ncid, var, st, ct, sd, h));
        for (int i = 0; i < 6; i++)
            CHECK(same(h[i], fill), "strided edge read %d", i);
        nc_free_string(6, h);
        st[1] = 1;
        ct[1] = 2;
        OK(nc_get_vars_string(ncid, var, st, ct, sd, h));
        CHECK(same(h[0], vals[2]) && same(h[1], vals[3]) && same(h[2], vals[11]) && same(h[3], ""),
              "strided edge read of written strings");
        nc_free_string(4, h);
    }
    OK(nc_close(ncid));
}

/* Many chunks through a one-chunk cache (evictions with strings), then
 * nc_abort with dirty chunks and nc_close with dirty chunks. */
static void
test_cache(const char *dir)
{
    int ncid, dim, var;
    size_t chunk = 2, n = 64;
    char *w[64], *g[64] = {0};
    seturl(dir, "cache", mode);
    if (create(&ncid)) {
        CHECK(0, "create %s", url);
        return;
    }
    OK(nc_def_dim(ncid, "n", n, &dim));
    OK(nc_def_var(ncid, "s", NC_STRING, 1, &dim, &var));
    OK(nc_def_var_chunking(ncid, var, NC_CHUNKED, &chunk));
    OK(nc_set_var_chunk_cache(ncid, var, 16, 1, 0.5f));
    OK(nc_enddef(ncid));
    for (size_t i = 0; i < n; i++)
        w[i] = mk(i * 3, (int)i);
    /* One element at a time, in an order that revisits chunks. */
    for (size_t k = 0; k < n; k++) {
        size_t i = (k * 37) % n;
        OK(nc_put_var1_string(ncid, var, &i, (const char **)&w[i]));
    }
    OK(nc_get_var_string(ncid, var, g));
    for (size_t i = 0; i < n; i++)
        CHECK(same(g[i], w[i]), "cache %zu", i);
    nc_free_string(n, g);
    OK(nc_close(ncid));
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_varid(ncid, "s", &var));
    {
        size_t st = 10, ct = 3;
        const char *x[3] = {"dirty1", "dirty2", "dirty3"};
        OK(nc_put_vara_string(ncid, var, &st, &ct, x));
        OK(nc_abort(ncid)); /* the dirty chunk's strings must be freed */
    }
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_varid(ncid, "s", &var));
    {
        size_t st = 20, ct = 3;
        const char *x[3] = {"d1", "d2", "d3"};
        char *o = NULL;
        OK(nc_put_vara_string(ncid, var, &st, &ct, x));
        st = 21;
        OK(nc_get_var1_string(ncid, var, &st, &o));
        CHECK(same(o, "d2"), "dirty read");
        nc_free_string(1, &o);
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "s", &var));
    memset(g, 0, sizeof(g));
    OK(nc_get_var_string(ncid, var, g));
    for (size_t i = 0; i < n; i++) {
        const char *want = i == 20 ? "d1" : i == 21 ? "d2" : i == 22 ? "d3" : w[i];
        /* What nc_abort leaves of the aborted write is not checked: whole
         * chunks may have been stored already (only leaks are). */
        if (i >= 10 && i <= 12)
            continue;
        CHECK(same(g[i], want), "after close %zu", i);
    }
    nc_free_string(n, g);
    OK(nc_close(ncid));
    for (size_t i = 0; i < n; i++)
        free(w[i]);
}

/* ---- a hand-made v2 "|O" store -------------------------------------------------- */

static int
put_file(const char *name, const void *data, size_t len)
{
    char p[4200];
    FILE *f;
    snprintf(p, sizeof(p), "%s/%s", path, name);
    if ((f = fopen(p, "wb")) == NULL)
        return -1;
    fwrite(data, 1, len, f);
    return fclose(f);
}

static size_t
put32(unsigned char *b, unsigned v)
{
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
    return 4;
}

/* vlen-utf8 bytes of n strings. */
static size_t
vlen_bytes(unsigned char *b, const char *const *s, unsigned n)
{
    size_t p = put32(b, n);
    for (unsigned i = 0; i < n; i++) {
        size_t l = strlen(s[i]);
        p += put32(b + p, (unsigned)l);
        memcpy(b + p, s[i], l);
        p += l;
    }
    return p;
}

static void
test_v2_object(const char *dir)
{
    static const char zarray[] =
        "{\"zarr_format\":2,\"shape\":[5],\"chunks\":[3],\"dtype\":\"|O\",\"compressor\":null,"
        "\"filters\":[{\"id\":\"vlen-utf8\"}],\"fill_value\":null,\"order\":\"C\"}";
    static unsigned char buf[40000];
    const char *c0[3] = {"", "b", NULL}, *c1[2] = {"\xc3\xa9t\xc3\xa9", NULL};
    char cmd[8400], *g[5] = {0};
    int ncid, var;
    size_t n;
    char *big = mk(20000, 3);
    c0[2] = big;
    c1[1] = vals[5];
    seturl(dir, "v2obj", "zarr,file");
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s/s'", path, path);
    if (system(cmd) != 0) {
        CHECK(0, "mkdir");
        free(big);
        return;
    }
    put_file(".zgroup", "{\"zarr_format\":2}", 17);
    put_file("s/.zarray", zarray, sizeof(zarray) - 1);
    n = vlen_bytes(buf, c0, 3);
    put_file("s/0", buf, n);
    n = vlen_bytes(buf, c1, 2);
    /* The edge chunk holds a whole chunk (3 items); the last is "". */
    {
        const char *c1f[3] = {c1[0], c1[1], ""};
        n = vlen_bytes(buf, c1f, 3);
    }
    put_file("s/1", buf, n);
    if (nc_open(url, NC_WRITE, &ncid) != NC_NOERR) {
        CHECK(0, "open %s", url);
        free(big);
        return;
    }
    OK(nc_inq_varid(ncid, "s", &var));
    {
        nc_type xt;
        OK(nc_inq_vartype(ncid, var, &xt));
        CHECK(xt == NC_STRING, "|O is NC_STRING (%d)", xt);
    }
    if (nc_get_var_string(ncid, var, g) == NC_NOERR) {
        CHECK(same(g[0], "") && same(g[1], "b") && same(g[2], big) && same(g[3], c1[0]) && same(g[4], vals[5]),
              "v2 |O strings read whole");
        nc_free_string(5, g);
    } else
        CHECK(0, "get v2 |O");
    {
        size_t i = 1;
        const char *w = vals[4];
        OK(nc_put_var1_string(ncid, var, &i, &w));
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "s", &var));
    if (nc_get_var_string(ncid, var, g) == NC_NOERR) {
        CHECK(same(g[1], vals[4]) && same(g[2], big), "v2 |O after a write");
        nc_free_string(5, g);
    } else
        CHECK(0, "get v2 |O after write");
    OK(nc_close(ncid));
    {
        /* The array stays "|O" with the vlen-utf8 filter. */
        char p[4200], meta[4096] = {0};
        FILE *f;
        snprintf(p, sizeof(p), "%s/s/.zarray", path);
        if ((f = fopen(p, "rb")) != NULL) {
            size_t got = fread(meta, 1, sizeof(meta) - 1, f);
            (void)got;
            fclose(f);
        }
        CHECK(strstr(meta, "\"|O\"") && strstr(meta, "vlen-utf8"), ".zarray after write: %s", meta);
    }

    /* Hostile chunks: a length past the end, a wrong count, truncation. */
    {
        const char *one[3] = {"abc", "de", "f"};
        size_t len = vlen_bytes(buf, one, 3);
        unsigned char bad[64];
        struct { size_t len; int patch; unsigned at, v; } cases[] = {
            {0, 1, 4, 0xfffffff0u},   /* first length absurd */
            {0, 1, 11, 1000},         /* second length past the end */
            {0, 1, 0, 2},             /* count 2 for a 3-chunk */
            {3, 0, 0, 0},             /* shorter than the count */
            {9, 0, 0, 0},             /* cut inside a string */
        };
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
            size_t l = cases[k].len ? cases[k].len : len;
            memcpy(bad, buf, len);
            if (cases[k].patch)
                put32(bad + cases[k].at, cases[k].v);
            put_file("s/0", bad, l);
            OK(nc_open(url, NC_NOWRITE, &ncid));
            OK(nc_inq_varid(ncid, "s", &var));
            memset(g, 0, sizeof(g));
            {
                int e = nc_get_var_string(ncid, var, g);
                CHECK(e != NC_NOERR, "hostile chunk %zu read", k);
                if (e == NC_NOERR)
                    nc_free_string(5, g);
            }
            {
                size_t i = 4;
                char *o = NULL;
                OK(nc_get_var1_string(ncid, var, &i, &o)); /* the other chunk still reads */
                CHECK(same(o, vals[5]), "good chunk beside a hostile one");
                nc_free_string(1, &o);
            }
            OK(nc_close(ncid));
        }
    }
    free(big);
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s DIR MODE\n", argv[0]);
        return 2;
    }
    mode = argv[2];
    make_vals();
    test_lengths(argv[1]);
    test_fill_strided(argv[1]);
    test_cache(argv[1]);
    if (strstr(mode, "shard") == NULL)
        test_v2_object(argv[1]);
    for (int i = 0; i < N1; i++)
        free(vals[i]);
    return nct_summary("tst_zstr");
}
