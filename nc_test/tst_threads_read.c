/* tst_threads_read.c: threads reading one read-only classic handle at once
 * (docs/threads.md): such reads share the handle's lock and run in
 * parallel, each thread with its own read buffers.  NTHR threads read
 * through one handle: whole variables, hyperslabs, strided slabs, one
 * element at a time along a row (the per-thread read-ahead), the same and
 * different variables, with type conversion, attributes and inquiries;
 * a thread alternates between two handles of two files (a thread's buffer
 * must never serve one file's bytes for the other), and one thread opens
 * and closes other files the whole time.  Every value is checked.
 *
 * Split reads: a large read of such a handle is cut into pieces read and
 * converted on libfilter's pool.  The threshold is lowered here
 * (NETCDF_CLASSIC_SPLIT_MIN) so small variables split: every external type
 * of a CDF-5 file read into every numeric memory type, whole, as a slab
 * and strided, and record variables, each checked value by value against
 * the conversion model of nctst.c (NC_ERANGE exactly when a value is out
 * of range) and byte for byte against the same request read row by row
 * (below the threshold: the serial path), including the elements an
 * out-of-range conversion leaves alone.  A pread hook checks that more
 * than one thread read the file during one such call. */
#define _GNU_SOURCE
#include "nctst.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define NTHR 5
#define NVAR 3
#define NY 64
#define NX 1500
#define NIT 40

static int ncid[2];
static atomic_long nerr;
static atomic_int done;

static void
fail(const char *what, long a, long b)
{
    if (atomic_fetch_add(&nerr, 1) < 10)
        fprintf(stderr, "FAIL %s: %ld %ld\n", what, a, b);
}

/* Value of element (y, x) of variable v of file f. */
static int
val(int f, int v, size_t y, size_t x)
{
    return f * 1000000 + v * 100000 + (int)(y * NX + x) % 99991;
}

static void
make(const char *path, int f)
{
    int id, dims[2], v, vid;
    static int buf[NY * NX];
    MUST(nc_create(path, NC_CLOBBER | NC_64BIT_OFFSET, &id));
    MUST(nc_def_dim(id, "y", NY, &dims[0]));
    MUST(nc_def_dim(id, "x", NX, &dims[1]));
    for (v = 0; v < NVAR; v++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", v);
        MUST(nc_def_var(id, name, NC_INT, 2, dims, &vid));
        MUST(nc_put_att_int(id, vid, "k", NC_INT, 1, &v));
    }
    MUST(nc_enddef(id));
    for (v = 0; v < NVAR; v++) {
        for (size_t i = 0; i < (size_t)NY * NX; i++)
            buf[i] = val(f, v, i / NX, i % NX);
        MUST(nc_put_var_int(id, v, buf));
    }
    MUST(nc_close(id));
}

static void
check_whole(int f, int v)
{
    static _Thread_local int buf[NY * NX];
    int st = nc_get_var_int(ncid[f], v, buf);
    if (st)
        fail("get_var", v, st);
    for (size_t i = 0; i < (size_t)NY * NX; i++)
        if (buf[i] != val(f, v, i / NX, i % NX)) {
            fail("whole value", (long)i, buf[i]);
            break;
        }
}

static void *
reader(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int it = 0; it < NIT; it++) {
        int f = (t == 0) ? it % 2 : 0;   /* thread 0 switches files */
        int v = (t + it) % NVAR, st, k = -1;
        size_t y = (size_t)(t * 7 + it * 3) % NY;
        switch (it % 5) {
        case 0:
            check_whole(f, v);
            break;
        case 1: {
            size_t start[2] = {y, 10}, count[2] = {NY - y, NX - 20};
            static _Thread_local double d[NY * NX];
            if ((st = nc_get_vara_double(ncid[f], v, start, count, d)))
                fail("get_vara", v, st);
            for (size_t i = 0; i < count[0] * count[1]; i++)
                if (d[i] != (double)val(f, v, y + i / count[1], 10 + i % count[1])) {
                    fail("slab value", (long)i, (long)d[i]);
                    break;
                }
            break;
        }
        case 2: {
            size_t start[2] = {0, (size_t)t}, count[2] = {NY / 3, NX / 7};
            ptrdiff_t stride[2] = {3, 7};
            static _Thread_local short s[NY * NX];
            st = nc_get_vars_short(ncid[f], v, start, count, stride, s);
            /* values above 32767 are NC_ERANGE, the others are converted */
            if (st != NC_NOERR && st != NC_ERANGE)
                fail("get_vars", v, st);
            for (size_t i = 0; i < count[0] * count[1]; i++) {
                int want = val(f, v, 3 * (i / count[1]), (size_t)t + 7 * (i % count[1]));
                if (want <= 32767 && s[i] != want) {
                    fail("strided value", (long)i, s[i]);
                    break;
                }
            }
            break;
        }
        case 3:
            for (size_t x = 0; x < NX; x += 3) {
                size_t idx[2] = {y, x};
                int one;
                if ((st = nc_get_var1_int(ncid[f], v, idx, &one)) || one != val(f, v, y, x)) {
                    fail("var1", (long)x, st ? st : one);
                    break;
                }
            }
            break;
        default: {
            int vid, nd, natts;
            char name[16];
            size_t len;
            snprintf(name, sizeof name, "v%d", v);
            if ((st = nc_inq_varid(ncid[f], name, &vid)) || vid != v)
                fail("inq_varid", v, st);
            if ((st = nc_get_att_int(ncid[f], v, "k", &k)) || k != v)
                fail("get_att", v, st);
            if ((st = nc_inq_var(ncid[f], v, NULL, NULL, &nd, NULL, &natts)) || nd != 2 || natts != 1)
                fail("inq_var", v, st);
            if ((st = nc_inq_dimlen(ncid[f], 1, &len)) || len != NX)
                fail("inq_dimlen", (long)len, st);
        }
        }
    }
    return NULL;
}

/* Open, read and close the second file over and over on its own handles. */
static void *
churn(void *arg)
{
    (void)arg;
    while (!atomic_load(&done)) {
        int id, st, one;
        size_t idx[2] = {5, 9};
        if ((st = nc_open("tst_threads_read1.nc", NC_NOWRITE, &id))) {
            fail("churn open", st, 0);
            break;
        }
        if ((st = nc_get_var1_int(id, 2, idx, &one)) || one != val(1, 2, 5, 9))
            fail("churn value", st, one);
        if ((st = nc_close(id)))
            fail("churn close", st, 0);
    }
    return NULL;
}

/* ---- split reads ---------------------------------------------------------- */

#define SNY 16
#define SNX 600
#define SNREC 12

/* pread hook: while probing, note which threads read; the probing thread
 * waits (up to 2 s) in each of its reads for another thread to read too,
 * so a pool worker surely takes a piece when the call is split, even on a
 * loaded machine. */
static atomic_int probing;
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t probe_tid[16], probe_main;
static int probe_ntid;

static int
probe_count(void)
{
    int n;
    pthread_mutex_lock(&probe_lock);
    n = probe_ntid;
    pthread_mutex_unlock(&probe_lock);
    return n;
}

static void
probe_note(void)
{
    pthread_t me = pthread_self();
    int i, seen = 0;
    pthread_mutex_lock(&probe_lock);
    for (i = 0; i < probe_ntid; i++)
        if (pthread_equal(probe_tid[i], me))
            seen = 1;
    if (!seen && probe_ntid < 16)
        probe_tid[probe_ntid++] = me;
    pthread_mutex_unlock(&probe_lock);
    if (pthread_equal(me, probe_main))
        for (i = 0; i < 2000 && probe_count() < 2; i++)
            usleep(1000);
}

/* The library reads with pread64 (64-bit offsets on every target). */
typedef ssize_t (*pread_fn)(int, void *, size_t, off64_t);
static pread_fn real_pread64;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void
find_real(void)
{
    real_pread64 = (pread_fn)dlsym(RTLD_NEXT, "pread64");
}

ssize_t
pread64(int fd, void *b, size_t n, off64_t off)
{
    pthread_once(&real_once, find_real);
    if (atomic_load(&probing))
        probe_note();
    return real_pread64(fd, b, n, off);
}

/* The value of element i of the variable of external type t: small values,
 * the type's extremes, and values beyond the narrower types' ranges. */
static long double
sval(nc_type t, size_t i)
{
    long double lo = nct_type_min(t), hi = nct_type_max(t), v;
    if (t == NC_CHAR)
        return 'a' + (long double)(i % 26);
    switch (i % 7) {
    case 0: v = (long double)(i % 200) - 100; break;
    case 1: v = hi - (long double)(i % 3); break;
    case 2: v = lo + (long double)(i % 3); break;
    case 3: v = 40000.0L + (long double)(i % 50); break;
    case 4: v = -70000.0L - (long double)(i % 50); break;
    case 5: v = 5.0e9L + (long double)(i % 7); break;
    default: v = (long double)(i % 1000) + 0.25L; break;
    }
    if (t == NC_FLOAT && (i % 7 == 1 || i % 7 == 2))
        v = (i % 7 == 1) ? 1.0e30L : -3.0e20L;
    if (t == NC_DOUBLE && (i % 7 == 1 || i % 7 == 2))
        v = (i % 7 == 1) ? 1.0e300L : -2.5e19L;
    if (t != NC_FLOAT && t != NC_DOUBLE)
        v = truncl(v);
    if (v < lo)
        v = lo + (long double)(i % 3);
    if (v > hi)
        v = hi - (long double)(i % 3);
    if (t == NC_FLOAT)
        v = (float)v;
    return v;
}

/* The record variables: int r0 and double r1, [rec][x]. */
static long double
rval(int v, size_t rec, size_t x)
{
    long double base = (long double)(rec * SNX + x) * 37 - 9000;
    return v == 0 ? base : base * 1000.5L;
}

static void
make_split(const char *path)
{
    int id, dims[3], vid;
    size_t n = (size_t)SNY * SNX;
    unsigned char *buf = malloc(n * 8);
    MUST(nc_create(path, NC_CLOBBER | NC_64BIT_DATA, &id));
    MUST(nc_def_dim(id, "rec", NC_UNLIMITED, &dims[2]));
    MUST(nc_def_dim(id, "y", SNY, &dims[0]));
    MUST(nc_def_dim(id, "x", SNX, &dims[1]));
    for (int k = 0; k < 11; k++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", k);
        MUST(nc_def_var(id, name, nct_ext_types[k], 2, dims, &vid));
    }
    {
        int rd[2] = {dims[2], dims[1]};
        MUST(nc_def_var(id, "r0", NC_INT, 2, rd, &vid));
        MUST(nc_def_var(id, "r1", NC_DOUBLE, 2, rd, &vid));
    }
    MUST(nc_enddef(id));
    for (int k = 0; k < 11; k++) {
        nc_type t = nct_ext_types[k];
        for (size_t i = 0; i < n; i++)
            nct_ld_put(t, buf, i, sval(t, i));
        MUST(nc_put_var(id, k, buf));
    }
    for (int v = 0; v < 2; v++) {
        size_t start[2] = {0, 0}, count[2] = {SNREC, SNX};
        for (size_t i = 0; i < (size_t)SNREC * SNX; i++)
            nct_ld_put(v ? NC_DOUBLE : NC_INT, buf, i, rval(v, i / SNX, i % SNX));
        MUST(nc_put_vara(id, 11 + v, start, count, buf));
    }
    MUST(nc_close(id));
    free(buf);
}

/* A request: start, count, stride (NULL: vara) over a 2-D variable. */
typedef struct sreq {
    const char *name;
    size_t start[2], count[2];
    ptrdiff_t stride[2];
    int strided;
} sreq;

/* Read req of variable vid (external type t, shape ny x nx, values from
 * valf) into memory type m, split, and check it. */
static void
check_split(int id, int vid, nc_type t, int m, const sreq *rq,
            long double (*valf)(int, nc_type, size_t, size_t), int key)
{
    nc_type mt = nct_mem_nctype(m);
    size_t ms = nct_type_size(mt), n = rq->count[0] * rq->count[1];
    unsigned char *got = malloc(n * ms), *row = malloc(n * ms);
    const ptrdiff_t *sp = rq->strided ? rq->stride : NULL;
    int fam = rq->strided ? F_VARS : F_VARA, st, want = NC_NOERR, rowst = NC_NOERR;
    memset(got, 0xA5, n * ms);
    memset(row, 0xA5, n * ms);
    st = nct_get(fam, m, id, vid, rq->start, rq->count, sp, NULL, got);
    /* the serial path: the same request one row at a time */
    for (size_t y = 0; y < rq->count[0]; y++) {
        size_t s1[2] = {rq->start[0] + y * (size_t)(sp ? sp[0] : 1), rq->start[1]};
        size_t c1[2] = {1, rq->count[1]};
        int r = nct_get(fam, m, id, vid, s1, c1, sp, NULL, row + y * rq->count[1] * ms);
        if (r != NC_NOERR && rowst != NC_ERANGE)
            rowst = r;
    }
    for (size_t i = 0; i < n; i++) {
        size_t y = rq->start[0] + (i / rq->count[1]) * (size_t)(sp ? sp[0] : 1);
        size_t x = rq->start[1] + (i % rq->count[1]) * (size_t)(sp ? sp[1] : 1);
        long double v = valf(key, t, y, x), c;
        if (m == M_TEXT) {
            if (got[i] != (unsigned char)v) {
                fail("split text", (long)i, got[i]);
                break;
            }
        } else if (!nct_convert(v, mt, &c)) {
            want = NC_ERANGE;
        } else if (!nct_same(nct_ld_get(mt, got, i), c)) {
            fprintf(stderr, "%s: var %d into %s, element %zu: %Lg, want %Lg\n", rq->name,
                    vid, nct_mem_name[m], i, nct_ld_get(mt, got, i), c);
            fail("split value", vid, m);
            break;
        }
    }
    if (st != want || rowst != want) {
        fprintf(stderr, "%s: var %d into %s: status %d, rows %d, model %d\n", rq->name, vid,
                nct_mem_name[m], st, rowst, want);
        fail("split status", vid, m);
    }
    if (memcmp(got, row, n * ms) != 0) {
        fprintf(stderr, "%s: var %d into %s differs from the row-by-row read\n", rq->name, vid,
                nct_mem_name[m]);
        fail("split bytes", vid, m);
    }
    free(got);
    free(row);
}

static long double
fixed_val(int key, nc_type t, size_t y, size_t x)
{
    (void)key;
    return sval(t, y * SNX + x);
}

static long double
rec_val(int key, nc_type t, size_t y, size_t x)
{
    (void)t;
    return rval(key, y, x);
}

static void
split_reads(void)
{
    static const sreq fixed[] = {
        {"whole", {0, 0}, {SNY, SNX}, {1, 1}, 0},
        {"slab", {3, 7}, {SNY - 5, SNX - 20}, {1, 1}, 0},
        {"strided", {1, 2}, {(SNY - 2) / 2, (SNX - 3) / 3}, {2, 3}, 1},
    };
    static const sreq recs[] = {
        {"records", {0, 0}, {SNREC, SNX}, {1, 1}, 0},
        {"record slab", {2, 5}, {SNREC - 3, SNX - 11}, {1, 1}, 0},
        {"strided records", {1, 1}, {(SNREC - 1) / 2, (SNX - 1) / 2}, {2, 2}, 1},
    };
    int id, ntid, st;
    make_split("tst_threads_read2.nc");
    if (nct_fail)
        return;
    MUST(nc_open("tst_threads_read2.nc", NC_NOWRITE, &id));
    for (int k = 0; k < 11; k++) {
        nc_type t = nct_ext_types[k];
        for (int m = 0; m < M_NMEM; m++) {
            if ((m == M_TEXT) != (t == NC_CHAR))
                continue;
            for (size_t r = 0; r < sizeof fixed / sizeof fixed[0]; r++)
                check_split(id, k, t, m, &fixed[r], fixed_val, 0);
        }
    }
    for (int v = 0; v < 2; v++)
        for (int m = M_SCHAR; m < M_NMEM; m++)
            for (size_t r = 0; r < sizeof recs / sizeof recs[0]; r++)
                check_split(id, 11 + v, v ? NC_DOUBLE : NC_INT, m, &recs[r], rec_val, v);
    /* the checks of a split-sized request are those of any other */
    {
        size_t start[2] = {0, 0}, count[2] = {SNY + 1, SNX};
        static double d[(SNY + 1) * SNX];
        EXPECT(nc_get_vara_double(id, 5, start, count, d), NC_EEDGE);
        count[0] = SNREC + 1;
        EXPECT(nc_get_vara_double(id, 12, start, count, d), NC_EEDGE);
    }
    MUST(nc_close(id));

    /* One split call reads on more than one thread. */
    MUST(nc_open("tst_threads_read2.nc", NC_NOWRITE, &id));
    {
        static double d[SNY * SNX];
        probe_main = pthread_self();
        atomic_store(&probing, 1);
        st = nc_get_var_double(id, 5, d);
        atomic_store(&probing, 0);
        OK(st);
        ntid = probe_count();
        CHECK(ntid >= 2, "one large read used %d thread(s), want 2 or more", ntid);
    }
    MUST(nc_close(id));
    printf("split reads checked\n");
}

int
main(void)
{
    pthread_t th[NTHR], ch;
    /* before the first library call: split reads from 4 KiB on a pool of
     * 3 threads, whatever the machine */
    setenv("NETCDF_CLASSIC_SPLIT_MIN", "4096", 1);
    setenv("NETCDF_FILTER_THREADS", "3", 1);
    split_reads();
    make("tst_threads_read0.nc", 0);
    make("tst_threads_read1.nc", 1);
    if (nct_fail)
        return nct_summary("tst_threads_read");
    if (nc_open("tst_threads_read0.nc", NC_NOWRITE, &ncid[0])
        || nc_open("tst_threads_read1.nc", NC_NOWRITE, &ncid[1])) {
        CHECK(0, "open");
        return nct_summary("tst_threads_read");
    }
    pthread_create(&ch, NULL, churn, NULL);
    for (int t = 0; t < NTHR; t++)
        pthread_create(&th[t], NULL, reader, (void *)(intptr_t)t);
    for (int t = 0; t < NTHR; t++)
        pthread_join(th[t], NULL);
    atomic_store(&done, 1);
    pthread_join(ch, NULL);
    OK(nc_close(ncid[0]));
    OK(nc_close(ncid[1]));
    CHECK(atomic_load(&nerr) == 0, "%ld reads returned a wrong status or value",
          (long)atomic_load(&nerr));
    printf("%d threads x %d reads, churn of a second file\n", NTHR, NIT);
    return nct_summary("tst_threads_read");
}
