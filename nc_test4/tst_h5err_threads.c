/* tst_h5err_threads.c: HDF5 errors of two threads at the same time stay
 * with their thread (docs/threads.md).  Fresh threads (HDF5's automatic
 * error printing and its error stack are per thread) make HDF5 fail in two
 * different ways over and over, at once:
 *   - a netCDF-4 create in a directory that does not exist (H5Fcreate
 *     fails: EACCES, as upstream reports it);
 *   - a write to a netCDF-4 file open read-only (H5Dwrite fails:
 *     NC_EHDFERR), on a handle the two writers share.
 * Each call must return its own code, and nothing may reach stderr: an
 * HDF5 error stack printed (or one thread's stack shown by the other)
 * fails the test.  stderr is sent to a file while the threads run. */
#include "nctst.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 6
#define CALLS 40

static int ro_ncid, ro_varid;
static pthread_barrier_t bar;
static atomic_int nbad, ncalls;
static atomic_int first_bad[2];

static void *
creator(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar);
    for (int k = 0; k < CALLS; k++) {
        int id = -1, st = nc_create("tst_h5err_no_dir/sub/x.nc", NC_NETCDF4 | NC_CLOBBER, &id);
        atomic_fetch_add(&ncalls, 1);
        if (st != EACCES) {
            atomic_store(&first_bad[0], st ? st : 1);
            atomic_fetch_add(&nbad, 1);
            if (st == NC_NOERR)
                nc_close(id);
        }
    }
    return NULL;
}

static void *
writer(void *arg)
{
    int x = (int)(intptr_t)arg;
    pthread_barrier_wait(&bar);
    for (int k = 0; k < CALLS; k++) {
        size_t i = (size_t)k % 10;
        int st = nc_put_var1_int(ro_ncid, ro_varid, &i, &x);
        atomic_fetch_add(&ncalls, 1);
        if (st != NC_EHDFERR) {
            atomic_store(&first_bad[1], st ? st : 1);
            atomic_fetch_add(&nbad, 1);
        }
    }
    return NULL;
}

int
main(void)
{
    const char *path = "tst_h5err_threads.nc", *errpath = "tst_h5err_threads.err";
    int id, dim, v, st, saved, fd;
    size_t errlen = 0;
    unsigned char *err;

    st = nc_create(path, NC_NETCDF4 | NC_CLOBBER, &id);
    if (st == NC_ENOTBUILT) {
        printf("tst_h5err_threads: netCDF-4 not built here, skipped\n");
        return 77;
    }
    if (st || (st = nc_def_dim(id, "x", 10, &dim)) || (st = nc_def_var(id, "v", NC_INT, 1, &dim, &v))
        || (st = nc_close(id)) || (st = nc_open(path, NC_NOWRITE, &ro_ncid))
        || (st = nc_inq_varid(ro_ncid, "v", &ro_varid))) {
        fprintf(stderr, "setup: %s\n", nc_strerror(st));
        return 1;
    }

    /* stderr to a file while the threads run. */
    fflush(stderr);
    saved = dup(2);
    fd = open(errpath, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (saved < 0 || fd < 0 || dup2(fd, 2) < 0)
        return 1;
    close(fd);
    for (int r = 0; r < ROUNDS; r++) {
        pthread_t th[3];
        pthread_barrier_init(&bar, NULL, 3);
        pthread_create(&th[0], NULL, creator, NULL);
        pthread_create(&th[1], NULL, writer, (void *)(intptr_t)1);
        pthread_create(&th[2], NULL, writer, (void *)(intptr_t)2);
        for (int t = 0; t < 3; t++)
            pthread_join(th[t], NULL);
        pthread_barrier_destroy(&bar);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);

    CHECK(atomic_load(&ncalls) == ROUNDS * CALLS * 3, "%d calls made", atomic_load(&ncalls));
    CHECK(atomic_load(&nbad) == 0, "%d calls returned another code (create: %d, write: %d)",
          atomic_load(&nbad), atomic_load(&first_bad[0]), atomic_load(&first_bad[1]));
    err = nct_slurp(errpath, &errlen);
    CHECK(err == NULL, "%zu bytes written to stderr, first:\n%.600s", errlen, err ? (char *)err : "");
    free(err);
    OK(nc_close(ro_ncid));
    return nct_summary("tst_h5err_threads");
}
