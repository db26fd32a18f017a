/* tst_threads4_pread.c: threads sharing one read-only handle of a
 * compressed netCDF-4 file, each reading different variables and the same
 * ones (whole, boxes, strided, single values), every value checked.  On a
 * file on disk opened read-only the raw chunks are read with pread outside
 * the HDF5 lock: the library's chunk counters (nc4h5_chunk_read_counts)
 * must show that path, and none through HDF5.  A writable handle, and a
 * read-only one whose file another process changed, read through HDF5.
 * The same for unfiltered chunked variables (strided reads go straight to
 * the chunks): copies of the four, one big-endian, and one without fill
 * whose chunks never written leave the caller's values as they were; a
 * damaged chunk index is a clean error.
 * Atomics only between threads: runs under TSan. */
#include "nctst.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* libhdf5/hdf5chunk.h: chunks read by pread / through HDF5 so far. */
void nc4h5_chunk_read_counts(size_t *pread_chunks, size_t *hdf5_chunks);

#define FILE_NAME "tst_threads4_pread.nc"
#define NTHR 4
#define NIT 6
#define NVARS 4      /* compressed: a b c d */
#define NPLAIN 4     /* unfiltered copies of them: pa pb (big-endian) pc pd */
#define NOFILL_VAR (NVARS + NPLAIN) /* pn: d's shape, no fill, half written */
#define NALL (NOFILL_VAR + 1)

/* The variables: name, type, rank, shape, chunks; c (and pc) is written
 * only in its first half (the rest are chunks never written: the fill
 * value); pn only in its first N_WRITTEN rows. */
static const struct {
    const char *name;
    nc_type type;
    int nd;
    size_t shape[3], chunk[3];
} vars[NALL] = {
    {"a", NC_FLOAT, 2, {120, 300}, {16, 64}},
    {"b", NC_INT, 3, {20, 40, 30}, {7, 11, 13}},
    {"c", NC_DOUBLE, 1, {1000}, {37}},
    {"d", NC_SHORT, 2, {100, 100}, {25, 50}},
    {"pa", NC_FLOAT, 2, {120, 300}, {16, 64}},
    {"pb", NC_INT, 3, {20, 40, 30}, {7, 11, 13}},
    {"pc", NC_DOUBLE, 1, {1000}, {37}},
    {"pd", NC_SHORT, 2, {100, 100}, {25, 50}},
    {"pn", NC_SHORT, 2, {100, 100}, {25, 50}},
};
#define C_WRITTEN 500
#define N_WRITTEN 50
#define SENTINEL 12345

static atomic_long nerr;

static size_t
nelems(int v)
{
    size_t n = 1;
    for (int d = 0; d < vars[v].nd; d++)
        n *= vars[v].shape[d];
    return n;
}

/* The value at linear index i of variable v (c past C_WRITTEN: its fill);
 * the unfiltered ones hold those of their compressed twin (pn: d's). */
static double
value(int v, size_t i)
{
    v = v == NOFILL_VAR ? 3 : v % NVARS;
    if (v == 2 && i >= C_WRITTEN)
        return NC_FILL_DOUBLE;
    switch (v) {
    case 0: return (double)(i % 977) * 0.5 - 100.0;
    case 1: return (double)((long)(i * 2654435761u % 100000) - 50000);
    case 2: return (double)i / 7.0;
    default: return (double)((long)(i % 60000) - 30000);
    }
}

static void
fail(const char *what, int v, size_t i, double got, double want)
{
    if (atomic_fetch_add(&nerr, 1) < 20)
        fprintf(stderr, "FAIL %s var %s index %zu: got %g want %g\n", what, vars[v].name, i, got, want);
}

/* Make the file: shuffle + deflate on every compressed variable,
 * fletcher32 on d. */
static void
make_file(void)
{
    int ncid, dimids[NALL][3], varid;
    MUST(nc_create(FILE_NAME, NC_NETCDF4 | NC_CLOBBER, &ncid));
    for (int v = 0; v < NALL; v++) {
        for (int d = 0; d < vars[v].nd; d++) {
            char dn[16];
            snprintf(dn, sizeof dn, "%s%d", vars[v].name, d);
            MUST(nc_def_dim(ncid, dn, vars[v].shape[d], &dimids[v][d]));
        }
        MUST(nc_def_var(ncid, vars[v].name, vars[v].type, vars[v].nd, dimids[v], &varid));
        MUST(nc_def_var_chunking(ncid, varid, NC_CHUNKED, vars[v].chunk));
        if (v < NVARS)
            MUST(nc_def_var_deflate(ncid, varid, 1, 1, 1));
        if (v == 3)
            MUST(nc_def_var_fletcher32(ncid, varid, NC_FLETCHER32));
        if (v == NVARS + 1)
            MUST(nc_def_var_endian(ncid, varid, NC_ENDIAN_BIG));
        if (v == NOFILL_VAR)
            MUST(nc_def_var_fill(ncid, varid, NC_NOFILL, NULL));
    }
    MUST(nc_enddef(ncid));
    for (int v = 0; v < NALL; v++) {
        size_t n = nelems(v);
        size_t start[3] = {0, 0, 0}, count[3];
        double *buf = malloc(n * sizeof(double));
        MUST(buf == NULL ? NC_ENOMEM : NC_NOERR);
        for (int d = 0; d < vars[v].nd; d++)
            count[d] = vars[v].shape[d];
        if (v % NVARS == 2 && v != NOFILL_VAR)
            count[0] = C_WRITTEN;
        if (v == NOFILL_VAR)
            count[0] = N_WRITTEN;
        n = 1;
        for (int d = 0; d < vars[v].nd; d++)
            n *= count[d];
        for (size_t i = 0; i < n; i++)
            buf[i] = value(v, i);
        MUST(nc_put_vara_double(ncid, v, start, count, buf));
        free(buf);
    }
    MUST(nc_close(ncid));
}

/* Read variable v of ncid through one of several shapes of request
 * (kind: 0 all, 1 a box, 2 strided, 3 one value, 4 and 5 strided) and
 * check every value; 0 when all are right. */
static int
check_read(int ncid, int v, int kind)
{
    size_t start[3] = {0, 0, 0}, count[3] = {1, 1, 1}, n = 1;
    ptrdiff_t stride[3] = {1, 1, 1};
    int nd = vars[v].nd, bad = 0, st;
    for (int d = 0; d < nd; d++) {
        size_t len = vars[v].shape[d];
        switch (kind) {
        case 0: count[d] = len; break;                               /* all */
        case 1: start[d] = len / 5; count[d] = len - len / 3 - start[d]; break; /* a box */
        case 2: start[d] = 1; stride[d] = 3; count[d] = (len - 2) / 3 + 1; break; /* strided */
        case 3: start[d] = (len * 7) / 11; count[d] = 1; break;      /* one value */
        case 4: start[d] = len / 7; stride[d] = 2; count[d] = (len - 1 - start[d]) / 2 + 1; break;
        default: start[d] = 3; stride[d] = 5 + d; count[d] = (len - 4) / (size_t)stride[d] + 1; break;
        }
        n *= count[d];
    }
    double *buf = malloc(n * sizeof(double));
    if (buf == NULL)
        return 1;
    st = nc_get_vars_double(ncid, v, start, count, stride, buf);
    if (st) {
        if (atomic_fetch_add(&nerr, 1) < 20)
            fprintf(stderr, "FAIL get var %s kind %d: %s\n", vars[v].name, kind, nc_strerror(st));
        free(buf);
        return 1;
    }
    size_t idx[3] = {0, 0, 0};
    for (size_t k = 0; k < n; k++) {
        size_t lin = 0;
        for (int d = 0; d < nd; d++)
            lin = lin * vars[v].shape[d] + start[d] + idx[d] * (size_t)stride[d];
        double want = value(v, lin);
        if (vars[v].type == NC_FLOAT)
            want = (double)(float)want;
        if (buf[k] != want) {
            fail("read", v, lin, buf[k], want);
            bad = 1;
            break;
        }
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < count[d])
                break;
            idx[d] = 0;
        }
    }
    free(buf);
    return bad;
}

static int shared_ncid;

/* Thread t reads a variable of its own (t % NVARS) and variable a, which
 * every thread reads, in every request shape. */
static void *
reader(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int it = 0; it < NIT; it++) {
        int kind = (t + it) % 4;
        check_read(shared_ncid, t % NVARS, kind);
        check_read(shared_ncid, 0, (kind + 1) % 4);
        check_read(shared_ncid, (t + it) % NVARS, 0);
    }
    return NULL;
}

/* Thread t reads the unfiltered variables strided (straight from their
 * chunks): one of its own and pa, which every thread reads. */
static void *
plain_reader(void *arg)
{
    static const int kinds[3] = {2, 4, 5};
    int t = (int)(intptr_t)arg;
    for (int it = 0; it < NIT; it++) {
        check_read(shared_ncid, NVARS + t % NPLAIN, kinds[(t + it) % 3]);
        check_read(shared_ncid, NVARS, kinds[(t + it + 1) % 3]);
    }
    return NULL;
}

/* pn read strided as short: the rows written hold d's values, its chunks
 * never written leave the caller's values as they were.  0 when right. */
static int
check_nofill(int ncid)
{
    enum { NR = 33, NC = 25 };
    size_t start[2] = {1, 2}, count[2] = {NR, NC};
    ptrdiff_t stride[2] = {3, 4};
    short buf[NR * NC];
    int st;
    for (size_t i = 0; i < NR * NC; i++)
        buf[i] = SENTINEL;
    if ((st = nc_get_vars_short(ncid, NOFILL_VAR, start, count, stride, buf))) {
        fprintf(stderr, "FAIL get var pn: %s\n", nc_strerror(st));
        return 1;
    }
    for (size_t r = 0; r < NR; r++)
        for (size_t c = 0; c < NC; c++) {
            size_t row = 1 + 3 * r, col = 2 + 4 * c;
            short want = row < N_WRITTEN ? (short)value(NOFILL_VAR, row * vars[NOFILL_VAR].shape[1] + col)
                                         : SENTINEL;
            if (buf[r * NC + c] != want) {
                fail("read", NOFILL_VAR, row * vars[NOFILL_VAR].shape[1] + col, buf[r * NC + c], want);
                return 1;
            }
        }
    return 0;
}

/* The other writer: rewrite variables d and pd of the file with the
 * values they have (their chunks rewritten where they are; the file
 * changes under the reader).  HDF5's file locks would refuse the open
 * while the reader has the file: a writer that turned them off. */
static void
rewrite(void)
{
    int ncid;
    size_t start[2] = {0, 0}, count[2] = {vars[3].shape[0], vars[3].shape[1]};
    size_t n = nelems(3);
    double *buf = malloc(n * sizeof(double));
    MUST(buf == NULL ? NC_ENOMEM : NC_NOERR);
    for (size_t i = 0; i < n; i++)
        buf[i] = value(3, i);
    setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
    MUST(nc_open(FILE_NAME, NC_WRITE, &ncid));
    MUST(nc_put_vara_double(ncid, 3, start, count, buf));
    MUST(nc_put_vara_double(ncid, NVARS + 3, start, count, buf));
    MUST(nc_close(ncid));
    free(buf);
}

/* An unfiltered chunked variable whose chunk index puts a chunk past the
 * end of the file: a strided read of it is a clean NC_EHDFERR. */
#define DAMAGED_FILE "tst_threads4_pread_damaged.nc"
static void
damaged_index(void)
{
    int ncid, dimids[2], varid;
    size_t chunk[2] = {16, 16}, len = 0, hits = 0, start[2] = {0, 0}, count[2] = {32, 32};
    ptrdiff_t stride[2] = {2, 2};
    float vals[64 * 64], out[32 * 32];
    unsigned char *b;
    long at = -1;
    for (size_t i = 0; i < 64 * 64; i++)
        vals[i] = (float)i + 0.25f;
    MUST(nc_create(DAMAGED_FILE, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "y", 64, &dimids[0]));
    MUST(nc_def_dim(ncid, "x", 64, &dimids[1]));
    MUST(nc_def_var(ncid, "v", NC_FLOAT, 2, dimids, &varid));
    MUST(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunk));
    MUST(nc_put_var_float(ncid, varid, vals));
    MUST(nc_close(ncid));
    /* Chunk (0, 0) starts with the first 16 values of row 0; the index
     * entries that hold its address (8 bytes, little-endian) are moved past
     * the end of the file. */
    MUST((b = nct_slurp(DAMAGED_FILE, &len)) == NULL ? NC_ENOMEM : NC_NOERR);
    for (size_t o = 0; o + sizeof(float) * 16 <= len && at < 0; o++)
        if (memcmp(b + o, vals, sizeof(float) * 16) == 0)
            at = (long)o;
    for (size_t o = 0; at > 0 && o + 8 <= len; o++) {
        uint64_t a = 0;
        for (int k = 7; k >= 0; k--)
            a = a << 8 | b[o + k];
        if (a == (uint64_t)at) {
            uint64_t bad = (uint64_t)len * 16 + 4096;
            for (int k = 0; k < 8; k++)
                b[o + k] = (unsigned char)(bad >> (8 * k));
            hits++;
        }
    }
    CHECK(at > 0 && hits > 0, "damaged index: chunk (0, 0) at %ld, %zu index entries", at, hits);
    if (hits > 0 && nct_write_file(DAMAGED_FILE, b, len)) {
        MUST(nc_open(DAMAGED_FILE, NC_NOWRITE, &ncid));
        EXPECT(nc_get_vars_float(ncid, 0, start, count, stride, out), NC_EHDFERR);
        OK(nc_close(ncid));
    }
    free(b);
    remove(DAMAGED_FILE);
}

int
main(int argc, char **argv)
{
    pthread_t th[NTHR];
    size_t p0, h0, p1, h1;
    int ncid;

    if (argc > 1 && strcmp(argv[1], "rewrite") == 0) {
        rewrite();
        return nct_fail ? 1 : 0;
    }
    make_file();
    if (nct_fail)
        return nct_summary("tst_threads4_pread");

    /* Threads on one read-only handle: every chunk by pread. */
    OK(nc_open(FILE_NAME, NC_NOWRITE, &shared_ncid));
    nc4h5_chunk_read_counts(&p0, &h0);
    for (int t = 0; t < NTHR; t++)
        CHECK(pthread_create(&th[t], NULL, reader, (void *)(intptr_t)t) == 0, "thread %d", t);
    for (int t = 0; t < NTHR; t++)
        pthread_join(th[t], NULL);
    nc4h5_chunk_read_counts(&p1, &h1);
    CHECK(atomic_load(&nerr) == 0, "%ld wrong reads on the shared read-only handle", atomic_load(&nerr));
    CHECK(p1 > p0, "no chunk read by pread (%zu)", p1 - p0);
    CHECK(h1 == h0, "%zu chunks read through HDF5 on a read-only handle", h1 - h0);
    OK(nc_close(shared_ncid));

    /* Unfiltered variables read strided on one read-only handle: every
     * chunk by pread. */
    OK(nc_open(FILE_NAME, NC_NOWRITE, &shared_ncid));
    nc4h5_chunk_read_counts(&p0, &h0);
    for (int t = 0; t < NTHR; t++)
        CHECK(pthread_create(&th[t], NULL, plain_reader, (void *)(intptr_t)t) == 0, "thread %d", t);
    for (int t = 0; t < NTHR; t++)
        pthread_join(th[t], NULL);
    CHECK(check_nofill(shared_ncid) == 0, "unfiltered, no fill");
    nc4h5_chunk_read_counts(&p1, &h1);
    CHECK(atomic_load(&nerr) == 0, "%ld wrong reads of unfiltered variables", atomic_load(&nerr));
    CHECK(p1 > p0, "unfiltered: no chunk read by pread (%zu)", p1 - p0);
    CHECK(h1 == h0, "unfiltered: %zu chunks read through HDF5 on a read-only handle", h1 - h0);
    OK(nc_close(shared_ncid));

    /* A writable handle reads through HDF5. */
    OK(nc_open(FILE_NAME, NC_WRITE, &ncid));
    nc4h5_chunk_read_counts(&p0, &h0);
    for (int v = 0; v < NVARS; v++)
        CHECK(check_read(ncid, v, 0) == 0, "writable handle: var %s", vars[v].name);
    nc4h5_chunk_read_counts(&p1, &h1);
    CHECK(p1 == p0, "%zu chunks read by pread on a writable handle", p1 - p0);
    CHECK(h1 > h0, "writable handle: no chunk read through HDF5");
    OK(nc_close(ncid));

    /* A read-only handle whose file another process changes: pread until
     * then, HDF5 after. */
    OK(nc_open(FILE_NAME, NC_NOWRITE, &ncid));
    nc4h5_chunk_read_counts(&p0, &h0);
    CHECK(check_read(ncid, 3, 0) == 0, "before the change");
    CHECK(check_read(ncid, NVARS + 3, 2) == 0, "before the change, unfiltered");
    CHECK(check_nofill(ncid) == 0, "before the change, no fill");
    nc4h5_chunk_read_counts(&p1, &h1);
    CHECK(p1 > p0 && h1 == h0, "before the change: pread %zu, HDF5 %zu", p1 - p0, h1 - h0);
    {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "'%s' rewrite", argv[0]);
        CHECK(system(cmd) == 0, "the other writer failed");
    }
    nc4h5_chunk_read_counts(&p0, &h0);
    CHECK(check_read(ncid, 3, 0) == 0, "after the change");
    CHECK(check_read(ncid, 3, 2) == 0, "after the change, strided");
    nc4h5_chunk_read_counts(&p1, &h1);
    CHECK(p1 == p0, "changed file: %zu chunks read by pread", p1 - p0);
    CHECK(h1 > h0, "changed file: no chunk read through HDF5");
    nc4h5_chunk_read_counts(&p0, &h0);
    CHECK(check_read(ncid, NVARS + 3, 2) == 0, "after the change, unfiltered");
    CHECK(check_nofill(ncid) == 0, "after the change, no fill");
    nc4h5_chunk_read_counts(&p1, &h1);
    CHECK(p1 == p0, "changed file, unfiltered: %zu chunks read by pread", p1 - p0);
    CHECK(h1 > h0, "changed file, unfiltered: no chunk read through HDF5");
    OK(nc_close(ncid));
    remove(FILE_NAME);
    damaged_index();
    return nct_summary("tst_threads4_pread");
}
