/* tst_zdata_samevar.c: two threads reading one read-only Zarr handle
 * (directory store, pool off) run at the same time: while the first
 * thread's read is held inside the store's read of its chunk (this
 * program's pread64 stops it there), a second thread's read must finish.
 * A lock held by a read across its I/O and decoding would keep the second
 * thread out until the first is let go.  Two cases: the first two reads of
 * a freshly opened handle, on two variables; two reads of ONE variable
 * (other chunks) after a first read.  Both reads, and the values, checked.  Runs under TSan (test.sh)
 * and ASan too; the reads use the library's own locks only.
 * Usage: tst_zdata_samevar DIR (exits 77 where the store does not read
 * with pread64, so the first read cannot be held). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "netcdf.h"
#include "nctst.h"

#define NROW 2
#define NX 1000
#define WAIT_S 20 /* a bound on waits that must end at once when nothing serializes */

static pthread_mutex_t gm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gc = PTHREAD_COND_INITIALIZER;
static char gate_path[4200];   /* the chunk file whose first read is held */
static int gate_armed, gate_held, gate_open, second_done;
static int second_var;         /* the variable the second thread reads */
static int ncid;
static int got[NROW][NX];
static int rstat[NROW];

/* Deadline WAIT_S seconds from now. */
static struct timespec
deadline(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += WAIT_S;
    return t;
}

/* The library's reads of chunk files come here: the first read of the
 * gate file waits until the gate opens. */
ssize_t
pread64(int fd, void *buf, size_t n, off64_t off)
{
    static ssize_t (*real)(int, void *, size_t, off64_t);
    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "pread64");
    pthread_mutex_lock(&gm);
    if (gate_armed) {
        char link[64], path[4200];
        ssize_t l;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        l = readlink(link, path, sizeof path - 1);
        if (l > 0) {
            path[l] = '\0';
            if (strcmp(path, gate_path) == 0) {
                struct timespec t = deadline();
                gate_armed = 0;
                gate_held = 1;
                pthread_cond_broadcast(&gc);
                while (!gate_open && pthread_cond_timedwait(&gc, &gm, &t) != ETIMEDOUT)
                    ;
            }
        }
    }
    pthread_mutex_unlock(&gm);
    return real(fd, buf, n, off);
}

static void *
reader(void *arg)
{
    int r = (int)(intptr_t)arg;
    size_t st[2] = {(size_t)r, 0}, ct[2] = {1, NX};
    rstat[r] = nc_get_vara_int(ncid, r ? second_var : 0, st, ct, got[r]);
    if (r == 1) {
        pthread_mutex_lock(&gm);
        second_done = 1;
        pthread_cond_broadcast(&gc);
        pthread_mutex_unlock(&gm);
    }
    return NULL;
}

static void
run(const char *dir, int samevar)
{
    char url[4200], root[4200];
    int dims[2], v, w, data[NROW][NX];
    size_t chunks[2] = {1, NX};
    pthread_t a, b;
    struct stat sb;
    if (snprintf(root, sizeof root, "%s/samevar.zarr", dir) >= (int)sizeof root
        || snprintf(url, sizeof url, "file://%s#mode=nczarr,file", root) >= (int)sizeof url) {
        nct_report(__FILE__, __LINE__, "directory name too long");
        nct_fail++;
        return;
    }
    for (int r = 0; r < NROW; r++)
        for (int i = 0; i < NX; i++)
            data[r][i] = r * 100000 + i;
    MUST(nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "y", NROW, &dims[0]));
    MUST(nc_def_dim(ncid, "x", NX, &dims[1]));
    MUST(nc_def_var(ncid, "v", NC_INT, 2, dims, &v));
    MUST(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    MUST(nc_def_var_deflate(ncid, v, 1, 1, 1));
    MUST(nc_def_var(ncid, "w", NC_INT, 2, dims, &w));
    MUST(nc_def_var_chunking(ncid, w, NC_CHUNKED, chunks));
    MUST(nc_put_var_int(ncid, v, &data[0][0]));
    MUST(nc_put_var_int(ncid, w, &data[0][0]));
    MUST(nc_close(ncid));

    /* Chunk (0, 0): its key with either dimension separator. */
    if (snprintf(gate_path, sizeof gate_path, "%s/v/0.0", root) >= (int)sizeof gate_path
        || (stat(gate_path, &sb) != 0
            && snprintf(gate_path, sizeof gate_path, "%s/v/0/0", root) >= (int)sizeof gate_path)
        || realpath(gate_path, root) == NULL) {
        nct_report(__FILE__, __LINE__, "no file for chunk (0, 0) under %s", gate_path);
        nct_fail++;
        return;
    }
    memcpy(gate_path, root, sizeof gate_path);

    MUST(nc_open(url, NC_NOWRITE, &ncid));
    second_var = samevar ? v : w;
    if (samevar) {
        /* A first read: the variable's state is built, the handle is known
         * to be in data mode. */
        size_t st[2] = {1, 0}, ct[2] = {1, NX};
        OK(nc_get_vara_int(ncid, v, st, ct, got[1]));
    }
    pthread_mutex_lock(&gm);
    gate_armed = 1;
    gate_held = gate_open = second_done = 0;
    pthread_mutex_unlock(&gm);
    if (pthread_create(&a, NULL, reader, (void *)(intptr_t)0) != 0) {
        nct_fail++;
        return;
    }
    /* Wait until the first read is held in the store. */
    pthread_mutex_lock(&gm);
    {
        struct timespec t = deadline();
        while (!gate_held && pthread_cond_timedwait(&gc, &gm, &t) != ETIMEDOUT)
            ;
    }
    if (!gate_held) {
        /* The store never reached pread64 for the chunk: nothing to test. */
        gate_armed = 0;
        pthread_mutex_unlock(&gm);
        pthread_join(a, NULL);
        nc_close(ncid);
        printf("tst_zdata_samevar: the chunk read did not go through pread64: skipped\n");
        exit(77);
    }
    pthread_mutex_unlock(&gm);

    /* The second read, of another chunk of the same variable, while the
     * first is held: it must end without the first. */
    if (pthread_create(&b, NULL, reader, (void *)(intptr_t)1) != 0) {
        nct_fail++;
        return;
    }
    pthread_mutex_lock(&gm);
    {
        struct timespec t = deadline();
        while (!second_done && pthread_cond_timedwait(&gc, &gm, &t) != ETIMEDOUT)
            ;
    }
    if (!second_done) {
        nct_report(__FILE__, __LINE__, "%s: a read of row 1 of %s did not end in %d s while a read of row 0 of v "
                   "was in its chunk read", samevar ? "one variable" : "fresh handle", samevar ? "v" : "w", WAIT_S);
        nct_fail++;
    } else
        nct_pass++;
    gate_open = 1;
    pthread_cond_broadcast(&gc);
    pthread_mutex_unlock(&gm);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    for (int r = 0; r < NROW; r++) {
        EXPECT(rstat[r], NC_NOERR);
        EXPECT(memcmp(got[r], data[r], sizeof got[r]) == 0 ? NC_NOERR : NC_EINVAL, NC_NOERR);
    }
    OK(nc_close(ncid));
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    /* Pool off: each read fetches and decodes its chunks on its own thread. */
    setenv("NETCDF_FILTER_THREADS", "1", 1);
    run(argv[1], 0);
    run(argv[1], 1);
    return nct_summary("tst_zdata_samevar");
}
