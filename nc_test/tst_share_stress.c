/* tst_share_stress.c: many threads sharing one writable handle of a
 * netCDF-4 or Zarr file, each kind of call at once (docs/threads.md):
 *   - readers of the same and of different variables: whole variables,
 *     hyperslabs and strided reads of a deflated 1-D and a chunked 2-D
 *     variable, records as the writers finish them;
 *   - writers of different record variables, record after record;
 *   - one thread changing metadata: a global attribute rewritten, an
 *     attribute renamed back and forth, new variables defined in define
 *     mode (nc_redef, nc_def_var, nc_put_att, nc_enddef) while the others
 *     inquire and read;
 *   - one thread opening, reading and closing other files of the format.
 * Every value read is checked, and inquiries against what the writers have
 * published.  After the threads, the file is closed, reopened and checked
 * whole.  Run under TSan (test.sh) and ASan.
 * Usage: tst_share_stress nc4|zarr|zip */
#include "nctst.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NX 600      /* a, b */
#define NY 24       /* c: NY x NX2 */
#define NX2 50
#define XW 40       /* records of w0, w1 */
#define NREC 24
#define NWRITE 2
#define NREAD 3
#define NMETA 24    /* metadata steps; a new variable every 4th */
#define NCHURN 6
#define ROUNDS 3

static int ncid, va, vb, vc, vw[NWRITE];
static atomic_int progress[NWRITE]; /* records written and published */
static atomic_int cnt_pub = -1;     /* last value of global "cnt" written */
static atomic_int cnt_next = -1;    /* the value being written */
static atomic_int newvars_pub;      /* new_0 .. new_(n-1) defined, attribute set */
static atomic_int writers_left, stop;
static atomic_long nbad, nreads;
static char other_path[4400];

static void
bad(const char *what, long v)
{
    if (atomic_fetch_add(&nbad, 1) < 12)
        fprintf(stderr, "FAIL %s: %ld\n", what, v);
}

static void
bad_st(const char *what, int st)
{
    if (atomic_fetch_add(&nbad, 1) < 12)
        fprintf(stderr, "FAIL %s: %d (%s)\n", what, st, nc_strerror(st));
}

static int a_val(size_t i) { return (int)i * 3; }
static double b_val(size_t i) { return (double)i * 0.5; }
static int c_val(size_t j, size_t i) { return (int)(j * 1000 + i); }
static int w_val(int t, size_t r, size_t i) { return t * 1000000 + (int)r * 1000 + (int)i; }

/* A small pseudo-random step per thread. */
static unsigned
rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void
read_a(unsigned *seed)
{
    int buf[NX];
    size_t start = 0, count = NX;
    int st;
    if (rnd(seed) % 2) {
        if ((st = nc_get_vara_int(ncid, va, &start, &count, buf))) {
            bad_st("get a", st);
            return;
        }
        for (size_t i = 0; i < NX; i++)
            if (buf[i] != a_val(i)) {
                bad("a value", (long)i);
                return;
            }
    } else {
        ptrdiff_t s = 1 + rnd(seed) % 7;
        start = rnd(seed) % 40;
        count = (NX - 1 - start) / (size_t)s + 1;
        if ((st = nc_get_vars_int(ncid, va, &start, &count, &s, buf))) {
            bad_st("get a strided", st);
            return;
        }
        for (size_t k = 0; k < count; k++)
            if (buf[k] != a_val(start + k * (size_t)s)) {
                bad("a strided value", (long)k);
                return;
            }
    }
}

static void
read_b(void)
{
    double buf[NX];
    int st = nc_get_var_double(ncid, vb, buf);
    if (st) {
        bad_st("get b", st);
        return;
    }
    for (size_t i = 0; i < NX; i++)
        if (buf[i] != b_val(i)) {
            bad("b value", (long)i);
            return;
        }
}

static void
read_c(unsigned *seed)
{
    int buf[NY * NX2];
    size_t start[2], count[2];
    ptrdiff_t stride[2] = {1, 1};
    int st;
    start[0] = rnd(seed) % NY;
    start[1] = rnd(seed) % NX2;
    if (rnd(seed) % 2) {
        stride[0] = 1 + rnd(seed) % 3;
        stride[1] = 1 + rnd(seed) % 4;
    }
    count[0] = 1 + rnd(seed) % ((NY - 1 - start[0]) / (size_t)stride[0] + 1);
    count[1] = 1 + rnd(seed) % ((NX2 - 1 - start[1]) / (size_t)stride[1] + 1);
    st = stride[0] == 1 && stride[1] == 1 ? nc_get_vara_int(ncid, vc, start, count, buf)
                                          : nc_get_vars_int(ncid, vc, start, count, stride, buf);
    if (st) {
        bad_st("get c", st);
        return;
    }
    for (size_t j = 0; j < count[0]; j++)
        for (size_t i = 0; i < count[1]; i++)
            if (buf[j * count[1] + i] !=
                c_val(start[0] + j * (size_t)stride[0], start[1] + i * (size_t)stride[1])) {
                bad("c value", (long)(j * 1000 + i));
                return;
            }
}

/* A record a writer has published, and the record dimension's length. */
static void
read_record(unsigned *seed)
{
    int t = (int)(rnd(seed) % NWRITE), n = atomic_load(&progress[t]), buf[XW], st, unlim;
    size_t start[2], count[2] = {1, XW}, len;
    if (n == 0)
        return;
    start[0] = rnd(seed) % (unsigned)n;
    start[1] = 0;
    if ((st = nc_get_vara_int(ncid, vw[t], start, count, buf))) {
        bad_st("get record", st);
        return;
    }
    for (size_t i = 0; i < XW; i++)
        if (buf[i] != w_val(t, start[0], i)) {
            bad("record value", (long)(start[0] * 1000 + i));
            return;
        }
    if ((st = nc_inq_unlimdim(ncid, &unlim)) || (st = nc_inq_dimlen(ncid, unlim, &len)))
        bad_st("record dim", st);
    else if (len < (size_t)n || len > NREC)
        bad("record dim length", (long)len);
}

/* Attributes and variables the metadata thread adds, as published. */
static void
read_meta(unsigned *seed, int *cnt_seen, int *nvars_seen)
{
    int st, v, k, nvars, pub = atomic_load(&cnt_pub);
    nc_type t;
    size_t len;
    char name[NC_MAX_NAME + 1];
    switch (rnd(seed) % 4) {
    case 0:
        if (pub < 0)
            break;
        if ((st = nc_get_att_int(ncid, NC_GLOBAL, "cnt", &v))) {
            bad_st("get cnt", st);
            break;
        }
        /* Never older than what was written before the call or than what
         * this thread saw, never newer than what is being written. */
        if (v < pub || v < *cnt_seen || v > atomic_load(&cnt_next))
            bad("cnt value", v);
        *cnt_seen = v;
        break;
    case 1:
        /* Renamed between ra_A and ra_B: one of them, of value 7. */
        for (int tries = 0; tries < 2; tries++) {
            const char *nm = (rnd(seed) % 2) ? "ra_A" : "ra_B";
            st = nc_get_att_int(ncid, NC_GLOBAL, nm, &v);
            if (st == NC_NOERR && v != 7)
                bad("renamed attribute value", v);
            else if (st != NC_NOERR && st != NC_ENOTATT)
                bad_st("renamed attribute", st);
        }
        if ((st = nc_inq_att(ncid, NC_GLOBAL, "units", &t, &len)) || t != NC_CHAR || len != 1)
            bad_st("inq units", st ? st : -1);
        break;
    case 2:
        if ((st = nc_inq_nvars(ncid, &nvars))) {
            bad_st("inq_nvars", st);
            break;
        }
        if (nvars < *nvars_seen || nvars < 3 + NWRITE + atomic_load(&newvars_pub)
            || nvars > 3 + NWRITE + NMETA / 4)
            bad("nvars", nvars);
        *nvars_seen = nvars;
        break;
    default:
        k = atomic_load(&newvars_pub);
        if (k == 0)
            break;
        k = (int)(rnd(seed) % (unsigned)k);
        snprintf(name, sizeof name, "new_%d", k);
        if ((st = nc_inq_varid(ncid, name, &v))) {
            bad_st("inq_varid new", st);
            break;
        }
        {
            int kk = -1, ndims = -1, one = 0;
            size_t idx = rnd(seed) % NX;
            if ((st = nc_get_att_int(ncid, v, "k", &kk)) || kk != k)
                bad("new var attribute", st ? st : kk);
            if ((st = nc_inq_var(ncid, v, name, &t, &ndims, NULL, NULL)) || t != NC_INT
                || ndims != 1)
                bad("new var inq", st ? st : ndims);
            /* Never written: the fill value. */
            if ((st = nc_get_var1_int(ncid, v, &idx, &one)) || one != NC_FILL_INT)
                bad("new var fill", st ? st : one);
        }
        break;
    }
}

static void *
reader(void *arg)
{
    unsigned seed = 17u + (unsigned)(intptr_t)arg * 7919u;
    int cnt_seen = -1, nvars_seen = 0;
    long n = 0;
    while (!atomic_load(&stop)) {
        switch (rnd(&seed) % 6) {
        case 0: read_a(&seed); break;
        case 1: read_b(); break;
        case 2: case 3: read_c(&seed); break;
        case 4: read_record(&seed); break;
        default: read_meta(&seed, &cnt_seen, &nvars_seen); break;
        }
        n++;
    }
    atomic_fetch_add(&nreads, n);
    return NULL;
}

static void *
writer(void *arg)
{
    int t = (int)(intptr_t)arg, buf[XW], st;
    for (size_t r = 0; r < NREC; r++) {
        size_t start[2] = {r, 0}, count[2] = {1, XW};
        for (size_t i = 0; i < XW; i++)
            buf[i] = w_val(t, r, i);
        if (r % 3 == 2) {
            /* Odd elements, then even ones: a strided write, and a record
             * visible to readers only when both are in. */
            ptrdiff_t stride[2] = {1, 2};
            int half[XW / 2];
            count[1] = XW / 2;
            for (int p = 1; p >= 0; p--) {
                start[1] = (size_t)p;
                for (size_t i = 0; i < XW / 2; i++)
                    half[i] = buf[2 * i + (size_t)p];
                if ((st = nc_put_vars_int(ncid, vw[t], start, count, stride, half)))
                    bad_st("put record strided", st);
            }
        } else if ((st = nc_put_vara_int(ncid, vw[t], start, count, buf))) {
            bad_st("put record", st);
        }
        atomic_store(&progress[t], (int)r + 1);
    }
    atomic_fetch_sub(&writers_left, 1);
    return NULL;
}

static void *
meta(void *arg)
{
    int st, dimx;
    (void)arg;
    if ((st = nc_inq_dimid(ncid, "x", &dimx)))
        bad_st("inq x", st);
    for (int k = 0; k < NMETA; k++) {
        atomic_store(&cnt_next, k);
        if ((st = nc_put_att_int(ncid, NC_GLOBAL, "cnt", NC_INT, 1, &k)))
            bad_st("put cnt", st);
        else
            atomic_store(&cnt_pub, k);
        if ((st = nc_rename_att(ncid, NC_GLOBAL, k % 2 ? "ra_B" : "ra_A", k % 2 ? "ra_A" : "ra_B")))
            bad_st("rename att", st);
        if (k % 4 == 3) {
            char name[32];
            int v;
            snprintf(name, sizeof name, "new_%d", k / 4);
            if ((st = nc_redef(ncid)))
                bad_st("redef", st);
            if ((st = nc_def_var(ncid, name, NC_INT, 1, &dimx, &v)))
                bad_st("def_var", st);
            else if ((st = nc_put_att_int(ncid, v, "k", NC_INT, 1, &(int){k / 4})))
                bad_st("put k", st);
            /* A reader's data call may have left define mode already (the
             * enhanced model's implicit enddef). */
            if ((st = nc_enddef(ncid)) && st != NC_ENOTINDEFINE)
                bad_st("enddef", st);
            atomic_store(&newvars_pub, k / 4 + 1);
        }
        usleep(1000);
    }
    atomic_fetch_sub(&writers_left, 1);
    return NULL;
}

/* Other files of the format opened, read and closed meanwhile. */
static void *
churn(void *arg)
{
    (void)arg;
    for (int k = 0; k < NCHURN; k++) {
        int id, v, st, buf[NX];
        if ((st = nc_open(other_path, NC_NOWRITE, &id))) {
            bad_st("open other", st);
            continue;
        }
        if ((st = nc_inq_varid(id, "a", &v)) || (st = nc_get_var_int(id, v, buf)))
            bad_st("read other", st);
        else
            for (size_t i = 0; i < NX; i++)
                if (buf[i] != a_val(i)) {
                    bad("other value", (long)i);
                    break;
                }
        if ((st = nc_close(id)))
            bad_st("close other", st);
    }
    atomic_fetch_sub(&writers_left, 1);
    return NULL;
}

static int
make(const char *path)
{
    int st, id, dx, dy, dx2, drec, dw, dimc[2], dimw[2], a, b, c, w;
    size_t chc[2] = {8, 16}, chw[2] = {1, XW}, cha = 128;
    int *ia = malloc(NX * sizeof(int)), *ic = malloc(NY * NX2 * sizeof(int)), seven = 7;
    double *db = malloc(NX * sizeof(double));
    if (ia == NULL || ic == NULL || db == NULL) {
        st = NC_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < NX; i++) {
        ia[i] = a_val(i);
        db[i] = b_val(i);
    }
    for (size_t j = 0; j < NY; j++)
        for (size_t i = 0; i < NX2; i++)
            ic[j * NX2 + i] = c_val(j, i);
    if ((st = nc_create(path, NC_NETCDF4 | NC_CLOBBER, &id)))
        goto done;
    if ((st = nc_def_dim(id, "x", NX, &dx)) || (st = nc_def_dim(id, "y", NY, &dy))
        || (st = nc_def_dim(id, "x2", NX2, &dx2)) || (st = nc_def_dim(id, "rec", NC_UNLIMITED, &drec))
        || (st = nc_def_dim(id, "xw", XW, &dw)))
        goto close;
    dimc[0] = dy;
    dimc[1] = dx2;
    dimw[0] = drec;
    dimw[1] = dw;
    if ((st = nc_def_var(id, "a", NC_INT, 1, &dx, &a)) || (st = nc_def_var_chunking(id, a, NC_CHUNKED, &cha))
        || (st = nc_def_var_deflate(id, a, 1, 1, 1)) || (st = nc_def_var(id, "b", NC_DOUBLE, 1, &dx, &b))
        || (st = nc_def_var(id, "c", NC_INT, 2, dimc, &c)) || (st = nc_def_var_chunking(id, c, NC_CHUNKED, chc)))
        goto close;
    for (int t = 0; t < NWRITE; t++) {
        char name[8];
        snprintf(name, sizeof name, "w%d", t);
        if ((st = nc_def_var(id, name, NC_INT, 2, dimw, &w)) || (st = nc_def_var_chunking(id, w, NC_CHUNKED, chw)))
            goto close;
    }
    if ((st = nc_put_att_text(id, NC_GLOBAL, "units", 1, "m"))
        || (st = nc_put_att_int(id, NC_GLOBAL, "ra_A", NC_INT, 1, &seven)) || (st = nc_enddef(id))
        || (st = nc_put_var_int(id, a, ia)) || (st = nc_put_var_double(id, b, db))
        || (st = nc_put_var_int(id, c, ic)))
        goto close;
close:
    if (st)
        nc_close(id);
    else
        st = nc_close(id);
done:
    free(ia);
    free(ic);
    free(db);
    return st;
}

/* The file after the threads: every record, the attributes, the new variables. */
static void
final_check(const char *path)
{
    int id, v, buf[XW], nvars, val;
    size_t len;
    MUST(nc_open(path, NC_NOWRITE, &id));
    for (int t = 0; t < NWRITE; t++) {
        char name[8];
        snprintf(name, sizeof name, "w%d", t);
        MUST(nc_inq_varid(id, name, &v));
        for (size_t r = 0; r < NREC; r++) {
            size_t start[2] = {r, 0}, count[2] = {1, XW};
            int ok = 1;
            OK(nc_get_vara_int(id, v, start, count, buf));
            for (size_t i = 0; i < XW; i++)
                ok &= buf[i] == w_val(t, r, i);
            CHECK(ok, "record %zu of %s", r, name);
        }
    }
    OK(nc_inq_dimlen(id, 3, &len));
    CHECK(len == NREC, "rec length %zu", len);
    OK(nc_inq_nvars(id, &nvars));
    CHECK(nvars == 3 + NWRITE + NMETA / 4, "nvars %d", nvars);
    OK(nc_get_att_int(id, NC_GLOBAL, "cnt", &val));
    CHECK(val == NMETA - 1, "cnt %d", val);
    /* NMETA renames: back to the first name when NMETA is even. */
    OK(nc_get_att_int(id, NC_GLOBAL, NMETA % 2 ? "ra_B" : "ra_A", &val));
    CHECK(val == 7, "renamed attribute %d", val);
    for (int k = 0; k < NMETA / 4; k++) {
        char name[32];
        int kk = -1;
        snprintf(name, sizeof name, "new_%d", k);
        OK(nc_inq_varid(id, name, &v));
        OK(nc_get_att_int(id, v, "k", &kk));
        CHECK(kk == k, "%s attribute k %d", name, kk);
    }
    OK(nc_close(id));
}

/* A read-only handle: its first data calls load state lazily (netCDF-4:
 * HDF5 opens the file and each dataset on first use; Zarr: a variable's
 * chunk state), here by every thread at once, under the shared lock. */
static pthread_barrier_t ro_bar;

static void *
ro_reader(void *arg)
{
    unsigned seed = 5u + (unsigned)(intptr_t)arg * 31u;
    int t = (int)(intptr_t)arg;
    pthread_barrier_wait(&ro_bar);
    /* Half start with a variable the other half reads last. */
    for (int k = 0; k < 5; k++) {
        switch ((k + t) % 5) {
        case 0: read_a(&seed); break;
        case 1: read_b(); break;
        case 2: read_c(&seed); break;
        case 3: read_record(&seed); break;
        default: {
            int nvars, st;
            if ((st = nc_inq_nvars(ncid, &nvars)) || nvars != 3 + NWRITE + NMETA / 4)
                bad("read-only nvars", st ? st : nvars);
            break;
        }
        }
    }
    return NULL;
}

static void
readonly_phase(const char *path)
{
    pthread_t th[NREAD + NWRITE];
    for (int t = 0; t < NWRITE; t++)
        atomic_store(&progress[t], NREC);
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    pthread_barrier_init(&ro_bar, NULL, NREAD + NWRITE);
    for (int t = 0; t < NREAD + NWRITE; t++)
        pthread_create(&th[t], NULL, ro_reader, (void *)(intptr_t)t);
    for (int t = 0; t < NREAD + NWRITE; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&ro_bar);
    OK(nc_close(ncid));
    CHECK(atomic_load(&nbad) == 0, "read-only: %ld wrong statuses or values", (long)atomic_load(&nbad));
}

static void
run(const char *label, const char *path)
{
    pthread_t th[NREAD + NWRITE + 2];
    int nth = 0, st = make(path);
    if (st == NC_ENOTBUILT || st == NC_EINVAL) {
        printf("%s: not built here, skipped\n", label);
        exit(77);
    }
    MUST(st);
    MUST(make(other_path));
    for (int t = 0; t < NWRITE; t++)
        atomic_store(&progress[t], 0);
    atomic_store(&cnt_pub, -1);
    atomic_store(&cnt_next, -1);
    atomic_store(&newvars_pub, 0);
    atomic_store(&stop, 0);
    MUST(nc_open(path, NC_WRITE, &ncid));
    MUST(nc_inq_varid(ncid, "a", &va));
    MUST(nc_inq_varid(ncid, "b", &vb));
    MUST(nc_inq_varid(ncid, "c", &vc));
    MUST(nc_inq_varid(ncid, "w0", &vw[0]));
    MUST(nc_inq_varid(ncid, "w1", &vw[1]));
    atomic_store(&writers_left, NWRITE + 2);
    for (int t = 0; t < NREAD; t++)
        pthread_create(&th[nth++], NULL, reader, (void *)(intptr_t)t);
    for (int t = 0; t < NWRITE; t++)
        pthread_create(&th[nth++], NULL, writer, (void *)(intptr_t)t);
    pthread_create(&th[nth++], NULL, meta, NULL);
    pthread_create(&th[nth++], NULL, churn, NULL);
    /* Readers keep going until every writer is done. */
    while (atomic_load(&writers_left) > 0)
        usleep(2000);
    atomic_store(&stop, 1);
    for (int t = 0; t < nth; t++)
        pthread_join(th[t], NULL);
    OK(nc_close(ncid));
    CHECK(atomic_load(&nbad) == 0, "%s: %ld wrong statuses or values", label, (long)atomic_load(&nbad));
    CHECK(atomic_load(&nreads) > 0, "%s: no reads", label);
    final_check(path);
    readonly_phase(path);
    printf("%s: %ld reads beside %d writers, %d metadata steps\n", label,
           (long)atomic_load(&nreads), NWRITE, NMETA);
}

int
main(int argc, char **argv)
{
    char cwd[4096], path[4400];
    const char *fmt = argc > 1 ? argv[1] : "nc4";
    if (getcwd(cwd, sizeof cwd) == NULL)
        return 1;
    if (strcmp(fmt, "nc4") == 0) {
        snprintf(path, sizeof path, "tst_share_stress.nc");
        snprintf(other_path, sizeof other_path, "tst_share_stress_other.nc");
    } else if (strcmp(fmt, "zarr") == 0 || strcmp(fmt, "zip") == 0) {
        const char *ext = fmt[1] == 'a' ? "zarr" : "zip", *store = fmt[1] == 'a' ? "file" : "zip";
        snprintf(path, sizeof path, "file://%s/tst_share_stress.%s#mode=nczarr,%s", cwd, ext, store);
        snprintf(other_path, sizeof other_path, "file://%s/tst_share_stress_other.%s#mode=nczarr,%s",
                 cwd, ext, store);
    } else {
        fprintf(stderr, "usage: tst_share_stress nc4|zarr|zip\n");
        return 2;
    }
    for (int round = 0; round < ROUNDS; round++)
        run(fmt, path);
    return nct_summary("tst_share_stress");
}
