/* tst_zdata_keepshare.c: small reads of one compressed Zarr variable by two
 * threads fetch and decode at the same time.  Point reads keep the chunks
 * they decode in the variable's cache; the exclusive hold that puts a chunk
 * there must not cover the chunk's fetch or its decoding.
 * This program stands in for pread64 (the directory store's reads) and for
 * libdeflate_zlib_decompress_ex (the zlib codec's decoding): the first
 * fetch, and the first decode, of the two-thread phase wait (up to WAIT_S)
 * for the other thread to be fetching (decoding) too; the test asserts that
 * both happened.  A read holding the variable's lock alone across its fetch
 * or its decode keeps the other thread out until the wait runs out.
 * Then: every value right; point reads again read no chunk (kept); a writer
 * beside the readers, and every value the new one once all are done (a
 * chunk decoded before a write is not kept after it).
 * Usage: tst_zdata_keepshare DIR (exits 77 where the store does not read
 * with pread64 or the codec does not reach libdeflate_zlib_decompress_ex). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libdeflate.h>
#include "netcdf.h"
#include "nctst.h"

#define NY 64
#define NX 1024 /* chunks of 1 x NX floats (4 KiB): 64 chunks */
#define NPOINT 2000
#define WAIT_S 10 /* a bound on waits that end at once when nothing serializes */

static char vdir[4200]; /* the variable's directory in the store */
static size_t vdirlen;

/* Two threads meeting inside a call: the first to come waits for the
 * other while the meeting is armed and has not yet happened. */
typedef struct meet {
    int inflight, most, gaveup;
    long calls;
} meet;

static pthread_mutex_t mm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mc = PTHREAD_COND_INITIALIZER;
static int armed;
static meet fetches, decodes;

static void
meet_enter(meet *m)
{
    struct timespec t;
    pthread_mutex_lock(&mm);
    m->calls++;
    if (++m->inflight > m->most)
        m->most = m->inflight;
    pthread_cond_broadcast(&mc);
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += WAIT_S;
    while (armed && m->most < 2 && !m->gaveup)
        if (pthread_cond_timedwait(&mc, &mm, &t) == ETIMEDOUT)
            m->gaveup = 1;
    pthread_mutex_unlock(&mm);
}

static void
meet_leave(meet *m)
{
    pthread_mutex_lock(&mm);
    m->inflight--;
    pthread_mutex_unlock(&mm);
}

static int
is_chunk_fd(int fd)
{
    char link[64], path[4200];
    ssize_t l;
    if (vdirlen == 0)
        return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    l = readlink(link, path, sizeof path - 1);
    if (l <= 0)
        return 0;
    path[l] = '\0';
    return strncmp(path, vdir, vdirlen) == 0 && path[vdirlen] != '.'; /* not .zarray, .zattrs */
}

/* The real functions, found before any thread starts. */
static ssize_t (*real_pread64)(int, void *, size_t, off64_t);
static enum libdeflate_result (*real_decompress)(struct libdeflate_decompressor *, const void *, size_t, void *,
                                                 size_t, size_t *, size_t *);

static void
find_real(void)
{
    *(void **)&real_pread64 = dlsym(RTLD_NEXT, "pread64");
    *(void **)&real_decompress = dlsym(RTLD_NEXT, "libdeflate_zlib_decompress_ex");
}

ssize_t
pread64(int fd, void *buf, size_t n, off64_t off)
{
    ssize_t r;
    int chunk = is_chunk_fd(fd);
    if (real_pread64 == NULL)
        find_real();
    if (chunk)
        meet_enter(&fetches);
    r = real_pread64(fd, buf, n, off);
    if (chunk)
        meet_leave(&fetches);
    return r;
}

enum libdeflate_result
libdeflate_zlib_decompress_ex(struct libdeflate_decompressor *d, const void *in, size_t inlen, void *out,
                              size_t outlen, size_t *inused, size_t *outgot)
{
    enum libdeflate_result r;
    if (real_decompress == NULL)
        find_real();
    meet_enter(&decodes);
    r = real_decompress(d, in, inlen, out, outlen, inused, outgot);
    meet_leave(&decodes);
    return r;
}

static float
value(size_t y, size_t x, int gen)
{
    return (float)(y * 10000 + x) + (float)gen * 0.5f;
}

static int ncid, varid;
static int bad[2];
static volatile int gen_read; /* values being written: 0 before, 1 after */

/* Thread r: point reads over its own chunks (rows y with y % 2 == r),
 * each value checked (against either generation while a writer runs). */
static void *
reader(void *arg)
{
    int r = (int)(intptr_t)arg;
    for (int i = 0; i < NPOINT; i++) {
        size_t idx[2] = {(size_t)(((i * 5) % (NY / 2)) * 2 + r), (size_t)((i * 131 + r) % NX)};
        float v = -1;
        if (nc_get_var1_float(ncid, varid, idx, &v) != NC_NOERR)
            bad[r]++;
        else if (v != value(idx[0], idx[1], 0) && !(gen_read && v == value(idx[0], idx[1], 1)))
            bad[r]++;
    }
    return NULL;
}

static float *rows1;

static void *
writer(void *arg)
{
    (void)arg;
    for (size_t y = 0; y < NY; y++) {
        size_t start[2] = {y, 0}, count[2] = {1, NX};
        if (nc_put_vara_float(ncid, varid, start, count, rows1 + y * NX) != NC_NOERR)
            bad[0]++;
    }
    return NULL;
}

static void
two(void *(*b)(void *), void *barg)
{
    pthread_t ta, tb;
    if (pthread_create(&ta, NULL, reader, (void *)(intptr_t)0) != 0 || pthread_create(&tb, NULL, b, barg) != 0) {
        nct_report(__FILE__, __LINE__, "pthread_create");
        exit(1);
    }
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
}

static int skipped;

static void
run(const char *dir)
{
    char url[4300], root[4100];
    int dims[2];
    size_t chunks[2] = {1, NX};
    float *data = NULL;
    long calls;
    if (snprintf(root, sizeof root, "%s/keepshare.zarr", dir) >= (int)sizeof root ||
        snprintf(url, sizeof url, "file://%s#mode=nczarr,file", root) >= (int)sizeof url) {
        nct_report(__FILE__, __LINE__, "directory name too long");
        nct_fail++;
        return;
    }
    data = malloc(sizeof(float) * NY * NX);
    rows1 = malloc(sizeof(float) * NY * NX);
    if (data == NULL || rows1 == NULL) {
        nct_report(__FILE__, __LINE__, "out of memory");
        nct_fail++;
        goto done;
    }
    for (size_t y = 0; y < NY; y++)
        for (size_t x = 0; x < NX; x++) {
            data[y * NX + x] = value(y, x, 0);
            rows1[y * NX + x] = value(y, x, 1);
        }
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

    /* 1. Two threads' point reads of different chunks: a fetch of each,
     * and a decode of each, at the same time. */
    MUST(nc_open(url, NC_NOWRITE, &ncid));
    pthread_mutex_lock(&mm);
    armed = 1;
    pthread_mutex_unlock(&mm);
    two(reader, (void *)(intptr_t)1);
    pthread_mutex_lock(&mm);
    armed = 0;
    pthread_mutex_unlock(&mm);
    if (fetches.calls == 0 || decodes.calls == 0) {
        printf("tst_zdata_keepshare: chunk reads not by pread64 (%ld) or decodes not by libdeflate (%ld): "
               "skipped\n",
               fetches.calls, decodes.calls);
        nc_close(ncid);
        skipped = 1;
        goto done;
    }
    printf("two threads, %d point reads each: %ld fetches (most at once %d), %ld decodes (most at once %d)\n",
           NPOINT, fetches.calls, fetches.most, decodes.calls, decodes.most);
    CHECK(fetches.most == 2, "two threads' fetches never ran at once (most %d)", fetches.most);
    CHECK(decodes.most == 2, "two threads' decodes never ran at once (most %d)", decodes.most);
    CHECK(bad[0] + bad[1] == 0, "%d wrong values", bad[0] + bad[1]);
    /* Every chunk was decoded at least once, and (kept) not many more times. */
    CHECK(decodes.calls >= NY && decodes.calls <= 2 * NY, "%ld decodes of %d chunks", decodes.calls, NY);

    /* 2. The same reads again: every chunk is in the cache. */
    calls = fetches.calls;
    bad[0] = bad[1] = 0;
    two(reader, (void *)(intptr_t)1);
    CHECK(fetches.calls == calls, "%ld chunk reads on a second pass", fetches.calls - calls);
    CHECK(bad[0] + bad[1] == 0, "%d wrong values", bad[0] + bad[1]);
    OK(nc_close(ncid));

    /* 3. A writer beside a reader, then every value the new one. */
    MUST(nc_open(url, NC_WRITE, &ncid));
    bad[0] = bad[1] = 0;
    gen_read = 1;
    two(writer, NULL);
    CHECK(bad[0] + bad[1] == 0, "%d wrong values or failed calls", bad[0] + bad[1]);
    for (size_t y = 0; y < NY; y++)
        for (size_t x = 0; x < NX; x += 97) {
            size_t idx[2] = {y, x};
            float v = -1;
            OK(nc_get_var1_float(ncid, varid, idx, &v));
            CHECK(v == value(y, x, 1), "(%zu,%zu): %g, not %g", y, x, (double)v, (double)value(y, x, 1));
        }
    OK(nc_close(ncid));
done:
    free(data);
    free(rows1);
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    /* Pool off: the fetches and decodes are this program's threads'. */
    setenv("NETCDF_FILTER_THREADS", "1", 1);
    find_real();
    run(argv[1]);
    if (skipped)
        return 77;
    return nct_summary("tst_zdata_keepshare");
}
