/* tst_wcache: the write-back cache of decoded chunks (libhdf5/hdf5chunk.c).
 *
 * Filtered variables (shuffle + deflate, zstd) are written by rows, records
 * and odd strided hyperslabs that straddle chunks, in random order, with
 * reads, nc_sync and close/reopen in between, a cache too small for the
 * working set (evictions) and the default one, an unlimited dimension that
 * grows record by record; every value is checked against an in-memory model
 * and against an unfiltered twin variable.  The same final data written in
 * one call goes to a second file; the reference ncdump (argv[2], optional)
 * must print both files the same.  nc_abort after partial writes of an
 * opened file keeps them, as upstream does.
 *
 * usage: tst_wcache DIR [REFERENCE_NCDUMP] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include "nctst.h"

#define NT 40
#define NY 23
#define NX 19
#define NREC (NY * NX)

static const char *dir;
static unsigned long long rng = 88172645463325252ULL;

static unsigned
rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

typedef struct model {
    float f[NT * NREC];
    int g[NT * NREC];
    size_t len;             /* records written (unlimited length) */
} model;

static void
path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

enum { C_DEFLATE, C_ZSTD };

/* Schema: f (float, filtered), g (int, filtered, other chunks), u (float,
 * unfiltered twin of f). */
static int
make(const char *p, int codec, size_t cache_bytes, int *ncidp)
{
    int ncid, dims[3], v;
    size_t cf[3] = {4, 6, 5}, cg[3] = {3, 7, 4};
    int stat;
    if ((stat = nc_create(p, NC_NETCDF4 | NC_CLOBBER, &ncid)))
        return stat;
    nc_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]);
    nc_def_dim(ncid, "y", NY, &dims[1]);
    nc_def_dim(ncid, "x", NX, &dims[2]);
    nc_def_var(ncid, "f", NC_FLOAT, 3, dims, &v);
    nc_def_var_chunking(ncid, v, NC_CHUNKED, cf);
    if (codec == C_DEFLATE) {
        stat = nc_def_var_deflate(ncid, v, 1, 1, 1);
    } else {
        nc_def_var_deflate(ncid, v, 1, 0, 0);
        stat = nc_def_var_zstandard(ncid, v, 1);
    }
    if (stat)
        return stat;
    if (cache_bytes && (stat = nc_set_var_chunk_cache(ncid, v, cache_bytes, 7, 0.75f)))
        return stat;
    nc_def_var(ncid, "g", NC_INT, 3, dims, &v);
    nc_def_var_chunking(ncid, v, NC_CHUNKED, cg);
    if ((stat = nc_def_var_deflate(ncid, v, 0, 1, 4)))
        return stat;
    if (cache_bytes && (stat = nc_set_var_chunk_cache(ncid, v, cache_bytes, 7, 0.75f)))
        return stat;
    nc_def_var(ncid, "u", NC_FLOAT, 3, dims, &v);
    nc_def_var_chunking(ncid, v, NC_CHUNKED, cf);
    if ((stat = nc_enddef(ncid)))
        return stat;
    *ncidp = ncid;
    return NC_NOERR;
}

static void
model_init(model *m)
{
    for (size_t i = 0; i < NT * NREC; i++) {
        m->f[i] = NC_FILL_FLOAT;
        m->g[i] = NC_FILL_INT;
    }
    m->len = 0;
}

/* Compare the whole of f, g and u with the model. */
static void
check_all(int ncid, const model *m, const char *when)
{
    static float f[NT * NREC], u[NT * NREC];
    static int g[NT * NREC];
    size_t start[3] = {0, 0, 0}, count[3] = {m->len, NY, NX}, len = 0, bad = 0;
    int dimid;
    if (m->len == 0)
        return;
    OK(nc_inq_dimid(ncid, "t", &dimid));
    OK(nc_inq_dimlen(ncid, dimid, &len));
    CHECK(len == m->len, "%s: t has %zu records, expected %zu", when, len, m->len);
    OK(nc_get_vara_float(ncid, 0, start, count, f));
    OK(nc_get_vara_int(ncid, 1, start, count, g));
    OK(nc_get_vara_float(ncid, 2, start, count, u));
    for (size_t i = 0; i < m->len * NREC; i++)
        if (memcmp(&f[i], &m->f[i], 4) || g[i] != m->g[i] || memcmp(&u[i], &m->f[i], 4)) {
            if (bad++ < 3)
                nct_report(__FILE__, __LINE__, "%s: element %zu: f %g g %d u %g, expected %g %d", when,
                           i, f[i], g[i], u[i], m->f[i], m->g[i]);
        }
    CHECK(bad == 0, "%s: %zu elements differ", when, bad);
}

/* One random write (the same to f, g and u and the model). */
static void
random_write(int ncid, model *m, unsigned long long *serial)
{
    size_t start[3], count[3];
    ptrdiff_t stride[3] = {1, 1, 1};
    static float fb[NT * NREC];
    static int gb[NT * NREC];
    size_t n;
    unsigned kind = rnd(4);
    size_t tmax = m->len < NT - 3 ? m->len + 1 : NT - 3;   /* may add one record */

    switch (kind) {
    case 0: /* a record: the next one (growth) or an old one */
        start[0] = rnd(3) ? (m->len < NT ? m->len : NT - 1) : rnd((unsigned)tmax);
        start[1] = start[2] = 0;
        count[0] = 1, count[1] = NY, count[2] = NX;
        break;
    case 1: /* a row */
        start[0] = rnd((unsigned)tmax), start[1] = rnd(NY), start[2] = 0;
        count[0] = 1, count[1] = 1, count[2] = NX;
        break;
    case 2: /* a column piece */
        start[0] = rnd((unsigned)tmax), start[1] = rnd(NY / 2), start[2] = rnd(NX);
        count[0] = 1 + rnd(2), count[1] = 1 + rnd(NY - (unsigned)start[1]), count[2] = 1;
        break;
    default: /* an odd strided box straddling chunks */
        for (int d = 0; d < 3; d++) {
            size_t ext = d == 0 ? tmax + 2 : d == 1 ? NY : NX;
            stride[d] = 1 + (ptrdiff_t)rnd(3);
            start[d] = rnd((unsigned)ext);
            count[d] = 1 + rnd((unsigned)((ext - start[d] - 1) / (size_t)stride[d] + 1));
        }
        if (start[0] + (count[0] - 1) * (size_t)stride[0] >= NT)
            count[0] = 1;
    }
    n = count[0] * count[1] * count[2];
    for (size_t i = 0; i < n; i++) {
        (*serial)++;
        fb[i] = (float)(*serial % 100000) * 0.25f;
        gb[i] = (int)(*serial * 7 % 1000003);
    }
    OK(nc_put_vars_float(ncid, 0, start, count, stride, fb));
    OK(nc_put_vars_int(ncid, 1, start, count, stride, gb));
    OK(nc_put_vars_float(ncid, 2, start, count, stride, fb));
    for (size_t i = 0, k = 0; i < count[0]; i++)
        for (size_t j = 0; j < count[1]; j++)
            for (size_t l = 0; l < count[2]; l++, k++) {
                size_t t = start[0] + i * (size_t)stride[0], y = start[1] + j * (size_t)stride[1],
                       x = start[2] + l * (size_t)stride[2];
                m->f[t * NREC + y * NX + x] = fb[k];
                m->g[t * NREC + y * NX + x] = gb[k];
                if (t + 1 > m->len)
                    m->len = t + 1;
            }
}

/* A random box of f read back and compared (reads see cached writes). */
static void
random_read(int ncid, const model *m)
{
    static float fb[NT * NREC];
    size_t start[3], count[3], bad = 0;
    if (m->len == 0)
        return;
    start[0] = rnd((unsigned)m->len), start[1] = rnd(NY), start[2] = rnd(NX);
    count[0] = 1 + rnd((unsigned)(m->len - start[0]));
    count[1] = 1 + rnd((unsigned)(NY - start[1]));
    count[2] = 1 + rnd((unsigned)(NX - start[2]));
    OK(nc_get_vara_float(ncid, 0, start, count, fb));
    for (size_t i = 0, k = 0; i < count[0]; i++)
        for (size_t j = 0; j < count[1]; j++)
            for (size_t l = 0; l < count[2]; l++, k++)
                if (memcmp(&fb[k], &m->f[(start[0] + i) * NREC + (start[1] + j) * NX + start[2] + l], 4))
                    bad++;
    CHECK(bad == 0, "read-back of a box: %zu elements differ", bad);
}

/* Random writes with reads, syncs and reopens; then the one-call twin file
 * and the reference ncdump of both. */
static void
random_session(int codec, size_t cache_bytes, const char *refdump, unsigned nops)
{
    static model m;
    char p[4200], q[4200];
    int ncid;
    unsigned long long serial = 0;
    char name[64];

    snprintf(name, sizeof name, "wc_%s_%zu.nc", codec == C_DEFLATE ? "deflate" : "zstd", cache_bytes);
    path(p, sizeof p, name);
    model_init(&m);
    MUST(make(p, codec, cache_bytes, &ncid));
    for (unsigned op = 0; op < nops; op++) {
        unsigned r = rnd(100);
        if (r < 80) {
            random_write(ncid, &m, &serial);
        } else if (r < 90) {
            random_read(ncid, &m);
        } else if (r < 95) {
            OK(nc_sync(ncid));
        } else {
            OK(nc_close(ncid));
            MUST(nc_open(p, NC_WRITE, &ncid));
            if (cache_bytes) {
                OK(nc_set_var_chunk_cache(ncid, 0, cache_bytes, 7, 0.75f));
                OK(nc_set_var_chunk_cache(ncid, 1, cache_bytes, 7, 0.75f));
            }
        }
    }
    check_all(ncid, &m, "before close");
    OK(nc_close(ncid));
    MUST(nc_open(p, NC_NOWRITE, &ncid));
    check_all(ncid, &m, "after reopen");
    OK(nc_close(ncid));

    /* The same data in one call per variable. */
    snprintf(name, sizeof name, "wc_%s_%zu_whole.nc", codec == C_DEFLATE ? "deflate" : "zstd",
             cache_bytes);
    path(q, sizeof q, name);
    MUST(make(q, codec, 0, &ncid));
    {
        size_t start[3] = {0, 0, 0}, count[3] = {m.len, NY, NX};
        OK(nc_put_vara_float(ncid, 0, start, count, m.f));
        OK(nc_put_vara_int(ncid, 1, start, count, m.g));
        OK(nc_put_vara_float(ncid, 2, start, count, m.f));
    }
    OK(nc_close(ncid));
    if (refdump && codec == C_DEFLATE) {
        char cmd[20000], a[4300], b[4300];
        FILE *fa, *fb;
        snprintf(a, sizeof a, "%s.cdl", p);
        snprintf(b, sizeof b, "%s.cdl", q);
        snprintf(cmd, sizeof cmd, "'%s' '%s' | sed 1d > '%s' && '%s' '%s' | sed 1d > '%s'", refdump, p,
                 a, refdump, q, b);
        CHECK(system(cmd) == 0, "reference ncdump failed: %s", cmd);
        fa = fopen(a, "rb");
        fb = fopen(b, "rb");
        CHECK(fa && fb, "dumps missing");
        if (fa && fb) {
            int ca, cb;
            long pos = 0, lines = 0;
            do {
                ca = getc(fa);
                cb = getc(fb);
                pos++;
                lines += ca == '\n';
            } while (ca == cb && ca != EOF);
            CHECK(ca == cb && lines > NREC / 10, "%s: reference ncdump differs from the one-call file at byte %ld",
                  name, pos);
        }
        if (fa)
            fclose(fa);
        if (fb)
            fclose(fb);
    }
}

/* nc_abort after partial writes of an opened file keeps them, as upstream
 * (HDF5 writes its chunk cache when the file is closed, abort or not). */
static void
abort_session(void)
{
    static model m;
    char p[4200];
    int ncid;
    unsigned long long serial = 0;
    size_t start[3] = {0, 0, 0}, count[3] = {1, 1, NX};
    float row[NX];

    path(p, sizeof p, "wc_abort.nc");
    model_init(&m);
    MUST(make(p, C_DEFLATE, 0, &ncid));
    for (int i = 0; i < 30; i++)
        random_write(ncid, &m, &serial);
    OK(nc_close(ncid));

    /* Reopened: partial rows, a sync, more partial rows, abort. */
    MUST(nc_open(p, NC_WRITE, &ncid));
    for (size_t y = 0; y < NY; y += 3) {
        start[0] = y % m.len, start[1] = y;
        for (int x = 0; x < NX; x++)
            row[x] = 1000.0f + (float)(y * NX + (size_t)x);
        OK(nc_put_vara_float(ncid, 0, start, count, row));
        OK(nc_put_vara_float(ncid, 2, start, count, row));
        memcpy(&m.f[start[0] * NREC + y * NX], row, sizeof row);
    }
    OK(nc_sync(ncid));
    for (size_t y = 1; y < NY; y += 3) {
        start[0] = y % m.len, start[1] = y;
        for (int x = 0; x < NX; x++)
            row[x] = -5.0f;
        OK(nc_put_vara_float(ncid, 0, start, count, row));
        OK(nc_put_vara_float(ncid, 2, start, count, row));
        memcpy(&m.f[start[0] * NREC + y * NX], row, sizeof row);
    }
    OK(nc_abort(ncid));
    MUST(nc_open(p, NC_NOWRITE, &ncid));
    check_all(ncid, &m, "after abort");
    OK(nc_close(ncid));

    /* Abort with nothing synced since the open. */
    MUST(nc_open(p, NC_WRITE, &ncid));
    start[0] = 0, start[1] = 2;
    for (int x = 0; x < NX; x++)
        row[x] = 7.0f + (float)x;
    OK(nc_put_vara_float(ncid, 0, start, count, row));
    OK(nc_put_vara_float(ncid, 2, start, count, row));
    memcpy(&m.f[start[0] * NREC + 2 * NX], row, sizeof row);
    OK(nc_abort(ncid));
    MUST(nc_open(p, NC_NOWRITE, &ncid));
    check_all(ncid, &m, "after abort without sync");
    OK(nc_close(ncid));
}

int
main(int argc, char **argv)
{
    const char *refdump = NULL;
    if (argc < 2) {
        fprintf(stderr, "usage: tst_wcache DIR [REFERENCE_NCDUMP]\n");
        return 2;
    }
    dir = argv[1];
    if (argc > 2 && argv[2][0])
        refdump = argv[2];
    /* A cache of 3 chunks of f (4*6*5 floats): evictions all the time. */
    random_session(C_DEFLATE, 3 * 4 * 6 * 5 * 4, refdump, 400);
    random_session(C_DEFLATE, 0, refdump, 400);
    {
        int ncid, ok;
        char p[4200];
        path(p, sizeof p, "wc_probe.nc");
        ok = nc_create(p, NC_NETCDF4 | NC_CLOBBER, &ncid) == NC_NOERR;
        if (ok) {
            ok = nc_inq_filter_avail(ncid, H5Z_FILTER_ZSTD) == NC_NOERR;
            nc_abort(ncid);
        }
        if (ok) {
            random_session(C_ZSTD, 3 * 4 * 6 * 5 * 4, NULL, 300);
            random_session(C_ZSTD, 0, NULL, 300);
        }
    }
    abort_session();
    return nct_summary("tst_wcache");
}
