/* tst_zdata_pointreads.c: small reads of a compressed Zarr variable keep
 * the chunks they decode in the variable's cache, so a loop of point reads
 * reads (and decodes) each chunk once while it stays cached; large reads
 * do not fill the cache; the cache stays within its bound; two threads
 * reading one handle get every value right.
 * The chunk reads of the directory store are counted: this program's
 * pread64 counts reads of files under the store's variable directory
 * (metadata objects, named .z*, left out).
 * Usage: tst_zdata_pointreads DIR (exits 77 where the store does not read
 * with pread64). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "netcdf.h"
#include "nctst.h"

#define NY 64
#define NX 1024
#define CY 8       /* chunks of 8 x 1024 floats (32 KiB): 8 chunks */
#define NPOINT 1000

static char vdir[4200]; /* the variable's directory in the store */
static size_t vdirlen;
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static long nreads;     /* pread64 calls on chunk files of the variable */

ssize_t
pread64(int fd, void *buf, size_t n, off64_t off)
{
    static ssize_t (*real)(int, void *, size_t, off64_t);
    char link[64], path[4200];
    ssize_t l;
    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "pread64");
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    l = readlink(link, path, sizeof path - 1);
    if (l > 0 && vdirlen > 0) {
        path[l] = '\0';
        if (strncmp(path, vdir, vdirlen) == 0 && path[vdirlen] != '.') { /* not .zarray, .zattrs */
            pthread_mutex_lock(&cm);
            nreads++;
            pthread_mutex_unlock(&cm);
        }
    }
    return real(fd, buf, n, off);
}

static long
reads(void)
{
    long n;
    pthread_mutex_lock(&cm);
    n = nreads;
    pthread_mutex_unlock(&cm);
    return n;
}

static float
value(size_t y, size_t x)
{
    return (float)(y * 10000 + x);
}

static int ncid, varid;
static int bad[2];

/* Thread r: point reads over every chunk, each value checked. */
static void *
reader(void *arg)
{
    int r = (int)(intptr_t)arg;
    for (int i = 0; i < NPOINT; i++) {
        size_t idx[2] = {(size_t)((i * 7 + r * 3) % NY), (size_t)((i * 131 + r) % NX)};
        float v = -1;
        if (nc_get_var1_float(ncid, varid, idx, &v) != NC_NOERR || v != value(idx[0], idx[1]))
            bad[r]++;
    }
    return NULL;
}

static int skipped;

static void
run(const char *dir)
{
    char url[4300], root[4100];
    int dims[2];
    size_t chunks[2] = {CY, NX};
    float *data, *all;
    long before, after;
    if (snprintf(root, sizeof root, "%s/pointreads.zarr", dir) >= (int)sizeof root
        || snprintf(url, sizeof url, "file://%s#mode=nczarr,file", root) >= (int)sizeof url) {
        nct_report(__FILE__, __LINE__, "directory name too long");
        nct_fail++;
        return;
    }
    data = malloc(sizeof(float) * NY * NX);
    all = malloc(sizeof(float) * NY * NX);
    if (data == NULL || all == NULL) {
        nct_report(__FILE__, __LINE__, "out of memory");
        nct_fail++;
        free(data);
        free(all);
        return;
    }
    for (size_t y = 0; y < NY; y++)
        for (size_t x = 0; x < NX; x++)
            data[y * NX + x] = value(y, x);
    MUST(nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "y", NY, &dims[0]));
    MUST(nc_def_dim(ncid, "x", NX, &dims[1]));
    MUST(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &varid));
    MUST(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
    MUST(nc_def_var_deflate(ncid, varid, 1, 1, 1));
    MUST(nc_put_var_float(ncid, varid, data));
    MUST(nc_close(ncid));
    if (snprintf(vdir, sizeof vdir, "%s/v", root) >= (int)sizeof vdir || realpath(vdir, root) == NULL) {
        nct_report(__FILE__, __LINE__, "no directory %s", vdir);
        nct_fail++;
        goto done;
    }
    snprintf(vdir, sizeof vdir, "%s/", root);
    vdirlen = strlen(vdir);

    /* 1. Point reads inside one chunk: one chunk read, not one per read. */
    MUST(nc_open(url, NC_NOWRITE, &ncid));
    before = reads();
    for (int i = 0; i < NPOINT; i++) {
        size_t idx[2] = {(size_t)(i % CY), (size_t)((i * 37) % NX)};
        float v = -1;
        OK(nc_get_var1_float(ncid, varid, idx, &v));
        if (v != value(idx[0], idx[1]))
            EXPECT(NC_EINVAL, NC_NOERR);
    }
    after = reads();
    if (after == before) {
        printf("tst_zdata_pointreads: the chunk reads did not go through pread64: skipped\n");
        nc_close(ncid);
        skipped = 1;
        goto done;
    }
    printf("%d point reads in one chunk: %ld chunk reads\n", NPOINT, after - before);
    EXPECT(after - before <= 2 ? NC_NOERR : NC_EINVAL, NC_NOERR);

    /* 2. A whole-variable read is right (the cached chunk among the
     * others), and leaves nothing more cached: the next point read in
     * another chunk reads that chunk again. */
    OK(nc_get_var_float(ncid, varid, all));
    EXPECT(memcmp(all, data, sizeof(float) * NY * NX) == 0 ? NC_NOERR : NC_EINVAL, NC_NOERR);
    before = reads();
    {
        size_t idx[2] = {CY * 5 + 1, 3};
        float v = -1;
        OK(nc_get_var1_float(ncid, varid, idx, &v));
        EXPECT(v == value(idx[0], idx[1]) ? NC_NOERR : NC_EINVAL, NC_NOERR);
    }
    EXPECT(reads() - before >= 1 ? NC_NOERR : NC_EINVAL, NC_NOERR);
    OK(nc_close(ncid));

    /* 3. A cache of 4 chunks (the least it holds) and point reads cycling
     * over 8: the cache stays bounded (chunks are read again), values right. */
    MUST(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_set_var_chunk_cache(ncid, varid, 4 * CY * NX * sizeof(float), 0, 0.75f));
    before = reads();
    for (int i = 0; i < 64; i++) {
        size_t idx[2] = {(size_t)((i % (NY / CY)) * CY), (size_t)i};
        float v = -1;
        OK(nc_get_var1_float(ncid, varid, idx, &v));
        EXPECT(v == value(idx[0], idx[1]) ? NC_NOERR : NC_EINVAL, NC_NOERR);
    }
    printf("64 point reads cycling over 8 chunks, cache of 4: %ld chunk reads\n", reads() - before);
    EXPECT(reads() - before > 8 ? NC_NOERR : NC_EINVAL, NC_NOERR);
    OK(nc_close(ncid));

    /* 4. Two threads' point reads over all chunks through one handle. */
    MUST(nc_open(url, NC_NOWRITE, &ncid));
    before = reads();
    {
        pthread_t a, b;
        if (pthread_create(&a, NULL, reader, (void *)(intptr_t)0) != 0
            || pthread_create(&b, NULL, reader, (void *)(intptr_t)1) != 0) {
            nct_report(__FILE__, __LINE__, "pthread_create");
            exit(1);
        }
        pthread_join(a, NULL);
        pthread_join(b, NULL);
    }
    printf("two threads, %d point reads each over 8 chunks: %ld chunk reads\n", NPOINT, reads() - before);
    EXPECT(bad[0] + bad[1] == 0 ? NC_NOERR : NC_EINVAL, NC_NOERR);
    EXPECT(reads() - before <= 16 ? NC_NOERR : NC_EINVAL, NC_NOERR);
    OK(nc_close(ncid));
done:
    free(data);
    free(all);
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    /* Pool off: the reads are this program's threads only. */
    setenv("NETCDF_FILTER_THREADS", "1", 1);
    run(argv[1]);
    if (skipped)
        return 77;
    return nct_summary("tst_zdata_pointreads");
}
