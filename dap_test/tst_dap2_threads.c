/* tst_dap2_threads.c: threads sharing one DAP2 handle (docs/threads.md).
 *
 * For each dataset and URL form, every variable is first read whole,
 * serially, through a handle of its own; then NTHR threads share one other
 * handle, started together so that their first reads race the prefetch,
 * and each reads the same and different variables: whole, hyperslabs and
 * strided reads (the string dimension too), every value compared with the
 * serial read.  The URL forms are file:// (the whole .dods, loaded once),
 * and over the loopback server (run_http.py c): plain (prefetch, response
 * cache), small prefetch with a cache of 2 responses (threads filling and
 * evicting it at once), nocache, wholevar.  Run under TSan
 * (test.sh) and ASan.
 * Usage (run_http.py c): tst_dap2_threads PORT LOGINPORT DATADIR WORKDIR TLSPORT */
#include "nctst.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHR 6
#define ROUNDS 8
#define MAXVARS 64

static const char *DATASETS[] = {"fnoc1.nc", "test.03", "test.07", "123bears.nc", "synth3"};
static const char *FORMS[] = {"", "#smallsizelimit=2&cachecount=2", "#nocache&smallsizelimit=2",
                              "#wholevar&smallsizelimit=2"};

typedef struct Var {
    int varid, ndims;
    size_t shape[NC_MAX_VAR_DIMS];
    size_t nvals, es;
    unsigned char *whole;     /* the serial read */
} Var;

static Var vars[MAXVARS];
static int nvars, shared_ncid;
static atomic_int nbad, nreads;
static pthread_barrier_t barrier;

/* One selection of v: kind 0 whole, 1 a hyperslab from index 1 (or 0) of
 * about half of each dimension, 2 strided by 2 or 3 from index 0 or 1. */
static void
selection(const Var *v, int kind, unsigned seed, size_t *start, size_t *count, ptrdiff_t *stride)
{
    for (int d = 0; d < v->ndims; d++) {
        size_t n = v->shape[d];
        start[d] = 0;
        count[d] = n;
        stride[d] = 1;
        if (kind == 1 && n > 1) {
            start[d] = (seed + (unsigned)d) % 2;
            count[d] = (n - start[d] + 1) / 2;
        } else if (kind == 2 && n > 1) {
            stride[d] = 2 + (ptrdiff_t)((seed + (unsigned)d) % 2);
            start[d] = (seed >> 1) % 2 < n ? (seed >> 1) % 2 : 0;
            count[d] = (n - start[d] + (size_t)stride[d] - 1) / (size_t)stride[d];
        }
    }
}

/* Does out hold v's values at the selection? */
static int
same_values(const Var *v, const size_t *start, const size_t *count, const ptrdiff_t *stride,
            const unsigned char *out)
{
    size_t idx[NC_MAX_VAR_DIMS] = {0}, total = 1;
    for (int d = 0; d < v->ndims; d++)
        total *= count[d];
    for (size_t k = 0; k < total; k++) {
        size_t off = 0;
        for (int d = 0; d < v->ndims; d++)
            off = off * v->shape[d] + start[d] + idx[d] * (size_t)stride[d];
        if (memcmp(out + k * v->es, v->whole + off * v->es, v->es) != 0)
            return 0;
        for (int d = v->ndims - 1; d >= 0; d--) {
            if (++idx[d] < count[d])
                break;
            idx[d] = 0;
        }
    }
    return 1;
}

static void *
reader(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    pthread_barrier_wait(&barrier);
    for (unsigned r = 0; r < ROUNDS; r++) {
        /* even rounds: every thread on the same variable; odd: each its own */
        const Var *v = &vars[(r % 2 ? r + id : r) % (unsigned)nvars];
        size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], total = 1;
        ptrdiff_t stride[NC_MAX_VAR_DIMS];
        selection(v, (int)((r / 2 + id) % 3), r * 7 + id, start, count, stride);
        for (int d = 0; d < v->ndims; d++)
            total *= count[d];
        unsigned char *out = malloc(total * v->es + 1);
        int st = out ? nc_get_vars(shared_ncid, v->varid, start, count, stride, out) : NC_ENOMEM;
        atomic_fetch_add(&nreads, 1);
        if (st != NC_NOERR || !same_values(v, start, count, stride, out)) {
            char name[NC_MAX_NAME + 1] = "?";
            nc_inq_varname(shared_ncid, v->varid, name);
            fprintf(stderr, "thread %u round %u: %s: %s\n", id, r, name,
                    st ? nc_strerror(st) : "values differ from the serial read");
            atomic_fetch_add(&nbad, 1);
        }
        free(out);
    }
    return NULL;
}

/* The serial reads of every variable of url; 0 when it cannot be opened. */
static int
load(const char *url)
{
    int ncid, n, st;
    if ((st = nc_open(url, NC_NOWRITE, &ncid)) != NC_NOERR) {
        fprintf(stderr, "%s: %s\n", url, nc_strerror(st));
        return 0;
    }
    nc_inq_nvars(ncid, &n);
    nvars = 0;
    for (int i = 0; i < n && nvars < MAXVARS; i++) {
        Var *v = &vars[nvars];
        int dimids[NC_MAX_VAR_DIMS];
        nc_type t;
        memset(v, 0, sizeof *v);
        v->varid = i;
        nc_inq_var(ncid, i, NULL, &t, &v->ndims, dimids, NULL);
        nc_inq_type(ncid, t, NULL, &v->es);
        v->nvals = 1;
        for (int d = 0; d < v->ndims; d++) {
            nc_inq_dimlen(ncid, dimids[d], &v->shape[d]);
            v->nvals *= v->shape[d];
        }
        if (v->nvals == 0 || (v->whole = malloc(v->nvals * v->es)) == NULL)
            continue;
        if (nc_get_var(ncid, i, v->whole) != NC_NOERR) {
            free(v->whole);
            continue;
        }
        nvars++;
    }
    nc_close(ncid);
    return 1;
}

static void
run(const char *url)
{
    pthread_t th[NTHR];
    int st;
    CHECK(load(url), "%s: the serial open fails", url);
    CHECK(nvars > 0, "%s: no variable read", url);
    if (nvars == 0)
        return;
    st = nc_open(url, NC_NOWRITE, &shared_ncid);
    CHECK(st == NC_NOERR, "%s: open: %s", url, nc_strerror(st));
    if (st == NC_NOERR) {
        atomic_store(&nbad, 0);
        atomic_store(&nreads, 0);
        pthread_barrier_init(&barrier, NULL, NTHR);
        for (unsigned i = 0; i < NTHR; i++)
            pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)i);
        for (int i = 0; i < NTHR; i++)
            pthread_join(th[i], NULL);
        pthread_barrier_destroy(&barrier);
        CHECK(atomic_load(&nbad) == 0 && atomic_load(&nreads) == NTHR * ROUNDS,
              "%s: %d of %d shared reads wrong", url, atomic_load(&nbad), atomic_load(&nreads));
        CHECK(nc_close(shared_ncid) == NC_NOERR, "%s: close", url);
    }
    for (int i = 0; i < nvars; i++)
        free(vars[i].whole);
}

int
main(int argc, char **argv)
{
    char url[4096];
    if (argc < 4) {
        fprintf(stderr, "usage: tst_dap2_threads PORT LOGINPORT DATADIR ...\n");
        return 2;
    }
    int port = atoi(argv[1]);
    const char *data = argv[3];
    for (size_t d = 0; d < sizeof DATASETS / sizeof *DATASETS; d++) {
        snprintf(url, sizeof url, "file://%s/%s", data, DATASETS[d]);
        run(url);
        for (size_t k = 0; k < sizeof FORMS / sizeof *FORMS; k++) {
            snprintf(url, sizeof url, "http://127.0.0.1:%d/%s%s", port, DATASETS[d], FORMS[k]);
            run(url);
        }
    }
    return nct_summary("tst_dap2_threads");
}
