/* tst_share_read.c: threads sharing one read-only handle of any format,
 * for the formats whose reads fill caches as they go (DAP4's decoded
 * slices and whole responses, the remote reader's block cache, HDF4's
 * compressed and chunked elements, a reference store's targets):
 *
 *   tst_share_read [-t THREADS] [-r ROUNDS] [-s SECONDS] [-m BYTES] [-k] PATH_OR_URL...
 *
 * For each dataset, a serial pass on a handle of its own reads every
 * group, dimension, variable and attribute, and every variable of a type
 * it can compare (atomic types, strings, enums, opaques) whole.  Then, each
 * round, a fresh handle is opened and THREADS threads start at once (so
 * their first reads race the handle's lazy state) and, for SECONDS, read
 * the same variable (half of them) or any variable: whole, hyperslabs,
 * strided slabs, single values, inquiries and attribute reads, every value
 * and answer checked against the serial pass.  Run under TSan (test.sh)
 * and ASan.  Variables larger than -m BYTES are inquired, not read.  Exit
 * 77 when a dataset cannot be opened and -k is given. */
#include "nctst.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXV 256
#define MAXA 64
#define MAX_BYTES (64u << 20) /* values kept of one dataset */

typedef struct Att {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    size_t len;
    void *val; /* len values (strings: char * each), NULL when not compared */
} Att;

typedef struct Var {
    int grp, varid;
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int isstr;
    size_t size; /* bytes per value in memory */
    int ndims;
    int dimids[NC_MAX_VAR_DIMS];
    size_t shape[NC_MAX_VAR_DIMS];
    size_t n;
    void *vals; /* n values, NULL when not compared */
    int natts;
    Att *atts;
} Var;

typedef struct Grp {
    int id;  /* in the serial handle */
    char path[1024];
    int ndims, nvars, natts;
    Att *atts;
} Grp;

static Grp grps[64];
static int ngrps;
static Var vars[MAXV];
static int nvars;
static size_t kept;

static int ncid;                 /* the shared handle */
static int gids[64];             /* its groups, as grps[] */
static atomic_int go, started;
static atomic_long nbad, nops;
static double secs = 1.0;
static int nthreads = 6;
static size_t maxvar = MAX_BYTES; /* -m: larger variables are not read */

static void
bad(const char *what, const char *name, long v)
{
    if (atomic_fetch_add(&nbad, 1) < 12)
        fprintf(stderr, "FAIL %s %s: %ld\n", what, name, v);
}

static void
bad_st(const char *what, const char *name, int st)
{
    if (atomic_fetch_add(&nbad, 1) < 12)
        fprintf(stderr, "FAIL %s %s: %d (%s)\n", what, name, st, nc_strerror(st));
}

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned
rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* Bytes per value of type t in memory, whether it holds strings, and
 * whether values of it are compared (0: not, e.g. vlens, compounds). */
static int
type_info(int gid, nc_type t, size_t *sizep, int *isstrp)
{
    *isstrp = 0;
    if (t == NC_STRING) {
        *sizep = sizeof(char *);
        *isstrp = 1;
        return 1;
    }
    if (t <= NC_MAX_ATOMIC_TYPE) {
        int st = nc_inq_type(gid, t, NULL, sizep);
        return st == NC_NOERR;
    }
    int cls;
    if (nc_inq_user_type(gid, t, NULL, sizep, NULL, NULL, &cls))
        return 0;
    return cls == NC_ENUM || cls == NC_OPAQUE;
}

static void
free_vals(nc_type t, int isstr, void *v, size_t n)
{
    (void)t;
    if (v && isstr)
        nc_free_string(n, v);
    free(v);
}

static int
read_atts(int gid, int varid, int natts, Att **out)
{
    Att *a = calloc((size_t)(natts ? natts : 1), sizeof *a);
    if (a == NULL)
        return NC_ENOMEM;
    for (int i = 0; i < natts && i < MAXA; i++) {
        size_t size;
        int isstr, st;
        if ((st = nc_inq_attname(gid, varid, i, a[i].name))
            || (st = nc_inq_att(gid, varid, a[i].name, &a[i].type, &a[i].len)))
            return st;
        if (!type_info(gid, a[i].type, &size, &isstr) || a[i].len == 0)
            continue;
        if ((a[i].val = calloc(a[i].len, size)) == NULL)
            return NC_ENOMEM;
        if ((st = nc_get_att(gid, varid, a[i].name, a[i].val)))
            return st;
    }
    *out = a;
    return NC_NOERR;
}

/* The serial pass: group gid (path) and its subgroups. */
static int
walk(int gid, const char *path)
{
    int st, nv, nsub, subs[64];
    Grp *g;
    if (ngrps >= 64)
        return NC_NOERR;
    g = &grps[ngrps++];
    g->id = gid;
    snprintf(g->path, sizeof g->path, "%s", path);
    if ((st = nc_inq(gid, &g->ndims, &g->nvars, &g->natts, NULL)))
        return st;
    if ((st = read_atts(gid, NC_GLOBAL, g->natts, &g->atts)))
        return st;
    nv = g->nvars;
    for (int v = 0; v < nv && nvars < MAXV; v++) {
        Var *x = &vars[nvars];
        memset(x, 0, sizeof *x);
        x->grp = ngrps - 1;
        x->varid = v;
        if ((st = nc_inq_var(gid, v, x->name, &x->type, &x->ndims, x->dimids, &x->natts)))
            return st;
        if ((st = read_atts(gid, v, x->natts, &x->atts)))
            return st;
        x->n = 1;
        for (int d = 0; d < x->ndims; d++) {
            if ((st = nc_inq_dimlen(gid, x->dimids[d], &x->shape[d])))
                return st;
            x->n *= x->shape[d];
        }
        nvars++;
        if (!type_info(gid, x->type, &x->size, &x->isstr) || x->n == 0
            || x->n > (MAX_BYTES - kept) / x->size || x->n > maxvar / x->size)
            continue;
        if ((x->vals = calloc(x->n, x->size)) == NULL)
            return NC_ENOMEM;
        if ((st = nc_get_var(gid, v, x->vals))) {
            fprintf(stderr, "serial read of %s/%s: %s\n", path, x->name, nc_strerror(st));
            return st;
        }
        kept += x->n * x->size;
    }
    if ((st = nc_inq_grps(gid, &nsub, NULL)))
        return st;
    if (nsub > 64)
        nsub = 64;
    if ((st = nc_inq_grps(gid, NULL, subs)))
        return st;
    for (int i = 0; i < nsub; i++) {
        char name[NC_MAX_NAME + 1], sub[1200];
        if ((st = nc_inq_grpname(subs[i], name)))
            return st;
        snprintf(sub, sizeof sub, "%s/%s", strcmp(path, "/") ? path : "", name);
        if ((st = walk(subs[i], sub)))
            return st;
    }
    return NC_NOERR;
}

static void
free_atts(Att *a, int n)
{
    for (int i = 0; a && i < n && i < MAXA; i++)
        if (a[i].val)
            free_vals(a[i].type, a[i].type == NC_STRING, a[i].val, a[i].type == NC_STRING ? a[i].len : 0);
    free(a);
}

static void
clear_model(void)
{
    for (int i = 0; i < nvars; i++) {
        free_vals(vars[i].type, vars[i].isstr, vars[i].vals, vars[i].n);
        free_atts(vars[i].atts, vars[i].natts);
    }
    for (int i = 0; i < ngrps; i++)
        free_atts(grps[i].atts, grps[i].natts);
    nvars = ngrps = 0;
    kept = 0;
}

/* The groups of the shared handle, in the order walk() found them. */
static int
map_groups(int gid, int *k)
{
    int st, nsub, subs[64];
    if (*k >= 64)
        return NC_NOERR;
    gids[(*k)++] = gid;
    if ((st = nc_inq_grps(gid, &nsub, NULL)))
        return st;
    if (nsub > 64)
        nsub = 64;
    if ((st = nc_inq_grps(gid, NULL, subs)))
        return st;
    for (int i = 0; i < nsub; i++)
        if ((st = map_groups(subs[i], k)))
            return st;
    return NC_NOERR;
}

/* Whether n values at got equal those at want (strings by content). */
static int
same_vals(const Var *x, const void *got, const void *want, size_t n)
{
    if (!x->isstr)
        return memcmp(got, want, n * x->size) == 0;
    for (size_t i = 0; i < n; i++) {
        const char *a = ((char *const *)got)[i], *b = ((char *const *)want)[i];
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b)))
            return 0;
    }
    return 1;
}

/* The expected values of a strided slab of x into out. */
static void
expect_slab(const Var *x, const size_t *st, const size_t *cnt, const ptrdiff_t *sd, void *out)
{
    size_t idx[NC_MAX_VAR_DIMS] = {0}, k = 0;
    if (x->ndims == 0) {
        memcpy(out, x->vals, x->size);
        return;
    }
    for (;;) {
        size_t off = 0;
        for (int i = 0; i < x->ndims; i++)
            off = off * x->shape[i] + st[i] + idx[i] * (size_t)sd[i];
        memcpy((char *)out + k++ * x->size, (const char *)x->vals + off * x->size, x->size);
        int i = x->ndims - 1;
        for (; i >= 0; i--) {
            if (++idx[i] < cnt[i])
                break;
            idx[i] = 0;
        }
        if (i < 0)
            break;
    }
}

static void
read_var(const Var *x, unsigned *seed)
{
    int gid = gids[x->grp], st, kind = (int)(rnd(seed) % 4);
    size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], n = 1;
    ptrdiff_t stride[NC_MAX_VAR_DIMS];
    void *got, *want;
    if (x->vals == NULL)
        return;
    for (int i = 0; i < x->ndims; i++) {
        size_t len = x->shape[i];
        start[i] = 0;
        count[i] = len;
        stride[i] = 1;
        if (kind == 1 && len > 0) { /* hyperslab */
            start[i] = rnd(seed) % len;
            count[i] = 1 + rnd(seed) % (len - start[i]);
        } else if (kind == 2 && len > 0) { /* strided */
            stride[i] = 1 + (ptrdiff_t)(rnd(seed) % 5);
            start[i] = rnd(seed) % len;
            count[i] = (len - 1 - start[i]) / (size_t)stride[i] + 1;
        } else if (kind == 3 && len > 0) { /* one value */
            start[i] = rnd(seed) % len;
            count[i] = 1;
        }
        n *= count[i];
    }
    got = calloc(n ? n : 1, x->size);
    want = calloc(n ? n : 1, x->size);
    if (got == NULL || want == NULL) {
        bad("memory", x->name, (long)n);
        free(got);
        free(want);
        return;
    }
    if (kind == 0)
        st = nc_get_var(gid, x->varid, got);
    else if (kind == 2)
        st = nc_get_vars(gid, x->varid, start, count, stride, got);
    else
        st = nc_get_vara(gid, x->varid, start, count, got);
    if (st) {
        bad_st("read", x->name, st);
    } else {
        expect_slab(x, start, count, stride, want);
        if (!same_vals(x, got, want, n))
            bad(kind == 0 ? "whole values" : kind == 1 ? "slab values" : kind == 2 ? "strided values" : "value",
                x->name, (long)n);
        if (x->isstr)
            nc_free_string(n, got);
    }
    free(got);
    free(want);
    atomic_fetch_add(&nops, 1);
}

static void
check_atts(int gid, int varid, const Att *atts, int natts, const char *owner)
{
    int st, nat;
    if (varid == NC_GLOBAL)
        st = nc_inq_natts(gid, &nat);
    else
        st = nc_inq_varnatts(gid, varid, &nat);
    if (st || nat != natts) {
        bad("natts", owner, st ? st : nat);
        return;
    }
    for (int i = 0; i < natts && i < MAXA; i++) {
        const Att *a = &atts[i];
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len, size;
        int isstr;
        if ((st = nc_inq_attname(gid, varid, i, name)) || strcmp(name, a->name)) {
            bad("attribute name", owner, i);
            continue;
        }
        if ((st = nc_inq_att(gid, varid, name, &t, &len)) || t != a->type || len != a->len) {
            bad("attribute", a->name, st);
            continue;
        }
        if (a->val == NULL)
            continue;
        type_info(gid, t, &size, &isstr);
        void *v = calloc(len, size);
        if (v == NULL)
            continue;
        if ((st = nc_get_att(gid, varid, name, v)))
            bad_st("get attribute", a->name, st);
        else if (isstr) {
            for (size_t k = 0; k < len; k++)
                if (strcmp(((char **)v)[k], ((char **)a->val)[k])) {
                    bad("string attribute value", a->name, (long)k);
                    break;
                }
            nc_free_string(len, v);
        } else if (memcmp(v, a->val, len * size)) {
            bad("attribute value", a->name, (long)len);
        }
        free(v);
    }
    atomic_fetch_add(&nops, 1);
}

static void
inquire(const Var *x)
{
    int gid = gids[x->grp], st, ndims, dimids[NC_MAX_VAR_DIMS], natts;
    char name[NC_MAX_NAME + 1];
    nc_type t;
    if ((st = nc_inq_var(gid, x->varid, name, &t, &ndims, dimids, &natts))) {
        bad_st("inq_var", x->name, st);
        return;
    }
    if (strcmp(name, x->name) || t != x->type || ndims != x->ndims || natts != x->natts) {
        bad("inq_var answer", x->name, ndims);
        return;
    }
    for (int d = 0; d < ndims; d++) {
        size_t len;
        if (dimids[d] != x->dimids[d] || (st = nc_inq_dimlen(gid, dimids[d], &len))
            || len != x->shape[d])
            bad("dimension", x->name, d);
    }
    int vid;
    if ((st = nc_inq_varid(gid, x->name, &vid)) || vid != x->varid)
        bad("inq_varid", x->name, st);
    atomic_fetch_add(&nops, 1);
}

static void *
worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 17u;
    int same = (int)(uintptr_t)arg % 2 == 0; /* half the threads on one variable */
    int first = 0;
    for (int i = 0; i < nvars; i++)
        if (vars[i].vals && vars[i].n > vars[first].n)
            first = i;
    if (vars[first].vals == NULL)
        same = 0;
    atomic_fetch_add(&started, 1);
    while (!atomic_load(&go))
        ;
    double end = now() + secs;
    for (long k = 0; k == 0 || now() < end; k++) {
        int what = (int)(rnd(&seed) % 8);
        const Var *x = &vars[same && what < 4 ? first : (int)(rnd(&seed) % (unsigned)nvars)];
        if (what < 5) {
            read_var(x, &seed);
        } else if (what == 5) {
            inquire(x);
        } else if (what == 6) {
            check_atts(gids[x->grp], x->varid, x->atts, x->natts, x->name);
        } else {
            const Grp *g = &grps[rnd(&seed) % (unsigned)ngrps];
            int nd, nv, na;
            int gi = (int)(g - grps), st;
            if ((st = nc_inq(gids[gi], &nd, &nv, &na, NULL)) || nd != g->ndims || nv != g->nvars
                || na != g->natts)
                bad("nc_inq", g->path, st);
            check_atts(gids[gi], NC_GLOBAL, g->atts, g->natts, g->path);
        }
    }
    return NULL;
}

static int
run_one(const char *path, int rounds, int skip_missing)
{
    int st, serial, k = 0;
    if ((st = nc_open(path, NC_NOWRITE, &serial))) {
        fprintf(stderr, "open %s: %s\n", path, nc_strerror(st));
        return skip_missing ? 77 : 1;
    }
    st = walk(serial, "/");
    nc_close(serial);
    CHECK(st == NC_NOERR, "serial pass of %s: %s", path, nc_strerror(st));
    if (st)
        return 1;
    int compared = 0;
    for (int i = 0; i < nvars; i++)
        compared += vars[i].vals != NULL;
    CHECK(nvars > 0 && compared > 0, "%s: %d variables, %d compared", path, nvars, compared);
    for (int r = 0; r < rounds && nvars > 0; r++) {
        pthread_t th[64];
        if ((st = nc_open(path, NC_NOWRITE, &ncid))) {
            CHECK(0, "open %s: %s", path, nc_strerror(st));
            break;
        }
        k = 0;
        map_groups(ncid, &k);
        CHECK(k == ngrps, "%s: %d groups, %d in the serial pass", path, k, ngrps);
        atomic_store(&go, 0);
        atomic_store(&started, 0);
        for (int t = 0; t < nthreads; t++)
            pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)(t + r * 64));
        while (atomic_load(&started) < nthreads)
            ;
        atomic_store(&go, 1);
        for (int t = 0; t < nthreads; t++)
            pthread_join(th[t], NULL);
        CHECK(nc_close(ncid) == NC_NOERR, "close %s", path);
    }
    printf("%s: %d groups, %d variables (%d compared), %ld operations, %ld failures\n", path,
           ngrps, nvars, compared, atomic_load(&nops), atomic_load(&nbad));
    CHECK(atomic_load(&nbad) == 0, "%s: %ld failed checks", path, atomic_load(&nbad));
    atomic_store(&nbad, 0);
    atomic_store(&nops, 0);
    clear_model();
    return 0;
}

int
main(int argc, char **argv)
{
    int rounds = 3, skip = 0, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            nthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "-m") && i + 1 < argc)
            maxvar = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "-k"))
            skip = 1;
        else
            break;
    }
    if (i >= argc || nthreads < 1 || nthreads > 64 || rounds < 1) {
        fprintf(stderr, "usage: tst_share_read [-t THREADS] [-r ROUNDS] [-s SECONDS] [-m BYTES] [-k] PATH...\n");
        return 2;
    }
    for (; i < argc; i++) {
        int rc = run_one(argv[i], rounds, skip);
        if (rc == 77)
            return 77;
    }
    return nct_summary("tst_share_read");
}
