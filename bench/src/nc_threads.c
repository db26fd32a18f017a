/* nc_threads: two threads reading two variables of one file through ONE
 * handle, against one thread reading both in turn.
 *   -k classic  two float vars of M/2 MiB each, CDF-2, one nc_get_vara per var
 *   -k nc4z     netCDF-4, 1 MiB chunks, shuffle + deflate 1 (smooth field)
 *   -k zarr     NCZarr directory, same chunks and filters
 * Phases: read1 = one thread reads var a then var b; read2 = thread 1 reads
 * a while thread 2 reads b (same ncid); both deliver M MiB.  speedup =
 * read1/read2 seconds (printed on stderr).  Values are checked outside the
 * timed region.
 *   -p N        libfilter's pool size (NETCDF_FILTER_THREADS, set before the
 *               first call); without -p the compressed kinds run twice: with
 *               the default pool (workload T_<kind>) and then, in a child run
 *               on the same file, with the pool off (-p 1: T_<kind>_p1)
 *   -r          reuse the file a previous run made (no create)
 *   -R N        repeat the timed phases N times (profiling; last one printed) */
#include "bench_common.h"
#include <pthread.h>
#include <netcdf.h>
#include <netcdf_filter.h>

#define CHK(e) do { int s_ = (e); if (s_) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, nc_strerror(s_)); exit(2); } } while (0)

static int ncid;
static size_t ny, nx = 4096;
static float *out[2];
static double cpu[2];                   /* each reader's CPU seconds, last call */
static double runq[2];                  /* its seconds runnable but not running */

/* This thread's run-queue wait in seconds (the kernel's schedstat; 0 when
 * it has none).  On a machine shared with other sessions' work, the
 * scheduler's autogroups give a session one share however many threads it
 * runs: waits here, not locks, then explain a missing speed-up. */
static double runq_wait(void)
{
    unsigned long long run = 0, wait = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%llu %llu", &run, &wait) != 2)
        wait = 0;
    fclose(f);
    return 1e-9 * (double)wait;
}

static void usage(void)
{
    fprintf(stderr, "usage: nc_threads -d DIR -k classic|nc4z|zarr [-m MIB] [-p N] [-r] [-R N]\n");
    exit(1);
}

static void *reader(void *arg)
{
    int v = (int)(intptr_t)arg;
    size_t start[2] = {0, 0}, count[2] = {ny, nx};
    struct timespec a, b;
    double w = runq_wait();
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    CHK(nc_get_vara_float(ncid, v, start, count, out[v]));
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    cpu[v] = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    runq[v] = runq_wait() - w;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *kind = NULL;
    size_t mib = 128;
    char path[4200], wl[64];
    int c, pool = 0, reuse = 0, reps = 1;
    while ((c = getopt(argc, argv, "d:k:m:p:rR:")) != -1) {
        switch (c) {
        case 'd': dir = optarg; break;
        case 'k': kind = optarg; break;
        case 'm': mib = (size_t)strtoul(optarg, NULL, 10); break;
        case 'p': pool = atoi(optarg); break;
        case 'r': reuse = 1; break;
        case 'R': reps = atoi(optarg); break;
        default: usage();
        }
    }
    if (!dir || !kind || mib < 2 || pool < 0 || reps < 1) usage();
    if (pool > 0) {
        char pv[16];
        snprintf(pv, sizeof pv, "%d", pool);
        setenv("NETCDF_FILTER_THREADS", pv, 1);
    }
    int classic = strcmp(kind, "classic") == 0, zarr = strcmp(kind, "zarr") == 0;
    if (!classic && !zarr && strcmp(kind, "nc4z") != 0) usage();
    ny = mib / 2 * 1048576 / sizeof(float) / nx;      /* rows per variable */
    size_t n = ny * nx;
    if (classic) snprintf(path, sizeof path, "%s/thr.nc", dir);
    else if (zarr) snprintf(path, sizeof path, "file://%s/thr.zarr#mode=nczarr,file", dir);
    else snprintf(path, sizeof path, "%s/thr4.nc", dir);
    snprintf(wl, sizeof wl, pool == 1 && !classic ? "T_%s_p1" : "T_%s", kind);

    /* make the file (untimed) */
    float *data = xmalloc_touched(n * sizeof(float));
    int dims[2], vars[2];
    if (!reuse) {
        CHK(nc_create(path, NC_CLOBBER | (classic ? NC_64BIT_OFFSET : NC_NETCDF4), &ncid));
        CHK(nc_def_dim(ncid, "y", ny, &dims[0]));
        CHK(nc_def_dim(ncid, "x", nx, &dims[1]));
        for (int v = 0; v < 2; v++) {
            CHK(nc_def_var(ncid, v ? "b" : "a", NC_FLOAT, 2, dims, &vars[v]));
            if (!classic) {
                size_t ch[2] = {64, nx};
                CHK(nc_def_var_chunking(ncid, vars[v], NC_CHUNKED, ch));
                CHK(nc_def_var_deflate(ncid, vars[v], 1, 1, 1));
            }
        }
        CHK(nc_enddef(ncid));
        for (int v = 0; v < 2; v++) {
            size_t start[2] = {0, 0}, count[2] = {ny, nx};
            if (classic) fill_pattern(data, n, (uint64_t)v * n);
            else fill_smooth(data, (size_t)v * ny, ny, nx, 2 * ny);
            CHK(nc_put_vara_float(ncid, vars[v], start, count, data));
        }
        CHK(nc_close(ncid));
    }

    out[0] = xmalloc_touched(n * sizeof(float));
    out[1] = xmalloc_touched(n * sizeof(float));
    double bytes = 2.0 * (double)n * sizeof(float);
    bench_phase ph;
    CHK(nc_open(path, NC_NOWRITE, &ncid));
    /* warm: metadata and caches of the open handle, page cache */
    reader((void *)(intptr_t)0);
    reader((void *)(intptr_t)1);

    double t1 = 0, t2 = 0;
    for (int r = 0; r < reps; r++) {
        int last = r == reps - 1;
        phase_begin(&ph);
        reader((void *)(intptr_t)0);
        reader((void *)(intptr_t)1);
        t1 = last ? phase_end(&ph, wl, "read1", bytes, NULL) : 0;
    }
    for (int r = 0; r < reps; r++) {
        int last = r == reps - 1;
        memset(out[0], 0, n * sizeof(float));
        memset(out[1], 0, n * sizeof(float));
        pthread_t th[2];
        phase_begin(&ph);
        for (int v = 0; v < 2; v++)
            pthread_create(&th[v], NULL, reader, (void *)(intptr_t)v);
        for (int v = 0; v < 2; v++)
            pthread_join(th[v], NULL);
        t2 = last ? phase_end(&ph, wl, "read2", bytes, NULL) : 0;
    }
    /* Calling-thread CPU of each reader in read2: far below the wall time
     * means it waited (a lock, or the pool's workers). */
    fprintf(stderr, "%s: read2 wall %.3f s, readers' CPU %.3f + %.3f s, run-queue wait %.3f + %.3f s\n", wl,
            t2, cpu[0], cpu[1], runq[0], runq[1]);
    fprintf(stderr, "%s: read1/read2 = %.2f\n", wl, t2 > 0 ? t1 / t2 : 0.0);
    CHK(nc_close(ncid));

    /* verify */
    int ok = 1;
    for (int v = 0; v < 2 && ok; v++) {
        if (classic) fill_pattern(data, n, (uint64_t)v * n);
        else fill_smooth(data, (size_t)v * ny, ny, nx, 2 * ny);
        ok = memcmp(data, out[v], n * sizeof(float)) == 0;
    }
    printf("workload=%s phase=verify status=%s\n", wl, ok ? "ok" : "failed");
    if (!ok)
        return 4;
    if (pool == 0 && !classic) {
        /* The same file with the pool off, in a fresh process (the pool's
         * size is fixed when it starts). */
        char cmd[9000];
        fflush(stdout);
        snprintf(cmd, sizeof cmd, "'/proc/%ld/exe' -d '%s' -k %s -m %zu -p 1 -r -R %d", (long)getpid(), dir,
                 kind, mib, reps);
        return system(cmd) == 0 ? 0 : 4;
    }
    return 0;
}
