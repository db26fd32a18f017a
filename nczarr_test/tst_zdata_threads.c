/* tst_zdata_threads.c: threads sharing one Zarr handle read its variables
 * at the same time, each variable first touched by all of them at once (its
 * chunk state is built by one thread, never twice), then threads writing
 * distinct variables of one handle; every value checked.  Runs under TSan
 * (test.sh) and ASan, where a state built twice shows as a race or a leak.
 * Usage: tst_zdata_threads DIR */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "nctst.h"

#define NTHR 6
#define NVAR 8
#define NX 300
#define CHUNK 64

static int ncid;
static atomic_int nbad;
static pthread_barrier_t bar;

static int
val(int v, size_t i)
{
    return v * 100000 + (int)i;
}

static void *
reader(void *arg)
{
    int t = (int)(intptr_t)arg;
    int buf[NX];
    for (int k = 0; k < NVAR; k++) {
        int v = (k + t) % 2 ? k : NVAR - 1 - k; /* half start from each end */
        pthread_barrier_wait(&bar);
        size_t st = 0, ct = NX;
        int s = nc_get_vara_int(ncid, v, &st, &ct, buf);
        if (s != NC_NOERR) {
            fprintf(stderr, "thread %d var %d: %s\n", t, v, nc_strerror(s));
            atomic_fetch_add(&nbad, 1);
            continue;
        }
        for (size_t i = 0; i < NX; i++)
            if (buf[i] != val(v, i)) {
                atomic_fetch_add(&nbad, 1);
                break;
            }
    }
    return NULL;
}

static void *
writer(void *arg)
{
    int t = (int)(intptr_t)arg;
    int buf[NX];
    for (size_t i = 0; i < NX; i++)
        buf[i] = val(t, i) + 7;
    pthread_barrier_wait(&bar);
    for (size_t i = 0; i < NX; i += 50) {
        size_t st = i, ct = 50;
        if (nc_put_vara_int(ncid, t, &st, &ct, buf + i) != NC_NOERR)
            atomic_fetch_add(&nbad, 1);
    }
    return NULL;
}

static void
run(void *(*fn)(void *))
{
    pthread_t th[NTHR];
    for (int t = 0; t < NTHR; t++)
        MUST(pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t) == 0 ? NC_NOERR : NC_EINVAL);
    for (int t = 0; t < NTHR; t++)
        pthread_join(th[t], NULL);
}

static void
one_mode(const char *dir, size_t m, const char *mode)
{
    char url[4200];
    int dim, v;
    int buf[NX];
    snprintf(url, sizeof url, "file://%s/threads_%zu.zarr#mode=%s", dir, m, mode);
    MUST(nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "x", NX, &dim));
    for (int k = 0; k < NVAR; k++) {
        char name[16];
        size_t cs = CHUNK;
        snprintf(name, sizeof name, "v%d", k);
        MUST(nc_def_var(ncid, name, NC_INT, 1, &dim, &v));
        MUST(nc_def_var_chunking(ncid, v, NC_CHUNKED, &cs));
    }
    MUST(nc_enddef(ncid));
    for (int k = 0; k < NVAR; k++) {
        for (size_t i = 0; i < NX; i++)
            buf[i] = val(k, i);
        MUST(nc_put_var_int(ncid, k, buf));
    }
    MUST(nc_close(ncid));

    /* Reads: every variable first reached by all threads at once. */
    MUST(nc_open(url, NC_WRITE, &ncid));
    atomic_store(&nbad, 0);
    run(reader);
    CHECK(atomic_load(&nbad) == 0, "%s: %d bad concurrent reads", mode, atomic_load(&nbad));
    /* Writes: one variable per thread, through the shared handle. */
    atomic_store(&nbad, 0);
    run(writer);
    CHECK(atomic_load(&nbad) == 0, "%s: %d bad concurrent writes", mode, atomic_load(&nbad));
    OK(nc_close(ncid));
    MUST(nc_open(url, NC_NOWRITE, &ncid));
    for (int k = 0; k < NVAR; k++) {
        int bad = 0;
        OK(nc_get_var_int(ncid, k, buf));
        for (size_t i = 0; i < NX; i++)
            bad += buf[i] != val(k, i) + (k < NTHR ? 7 : 0);
        CHECK(bad == 0, "%s: var %d: %d values wrong after the threads' writes", mode, k, bad);
    }
    OK(nc_close(ncid));
}

int
main(int argc, char **argv)
{
    static const char *modes[] = {"nczarr,file", "zarr,v3,file"};
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    pthread_barrier_init(&bar, NULL, NTHR);
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
        one_mode(argv[1], m, modes[m]);
    pthread_barrier_destroy(&bar);
    return nct_summary("tst_zdata_threads");
}
