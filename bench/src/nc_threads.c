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
 *               first call); without -p every kind runs twice: with the
 *               default pool (workload T_<kind>) and then, in a child run on
 *               the same file, with the pool off (-p 1: T_<kind>_p1)
 *   -r          reuse the file a previous run made (no create)
 *   -s          both threads (and the one thread, twice) read variable a
 *   -R N        repeat the timed phases N times; the stderr table gives the
 *               run of median wall time of each phase, the phase lines the last
 *
 * Each phase's table row (stderr) gives, besides the wall time, what does not
 * depend on the machine's load: each reader's CPU time, the process's CPU
 * time (pool workers included), each reader's run-queue wait (runnable, no
 * core: the kernel's schedstat) and "blocked" = its wall time less CPU and
 * run-queue wait (asleep: locks, waiting for pool tasks, I/O; the three
 * readings race with preemption in a way that can only make it low, and it
 * is shown 0 when below).  With -L
 * (runs itself again under LD_PRELOAD of lockwait.so, built beside it from
 * src/lockwait.c) it also gives each reader's time spent waiting for
 * contended pthread locks and condition variables; LOCKWAIT=1 in the
 * environment adds the waits per call site at exit.
 * "quiet" ratio = read1/read2 of CPU + blocked of the reader(s) on the
 * critical path (wall time less run-queue wait):
 * the speed-up with a free core per reader when the pool is off; with the
 * pool on it leaves in what the reader waited for descheduled workers. */
#include "bench_common.h"
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <netcdf.h>
#include <netcdf_filter.h>

#define CHK(e) do { int s_ = (e); if (s_) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, nc_strerror(s_)); exit(2); } } while (0)
#define MAXREPS 64

static int ncid, same;
static size_t ny, nx = 4096;
static float *out[2];

/* What one reader call cost, seconds. */
typedef struct {
    double wall, cpu, runq, lockw;
} cost;
static cost rc[2];                      /* the readers' last calls */
static unsigned long long (*lockwait_ns)(int);  /* from lockwait.so, if preloaded */

/* Run-queue wait in seconds of this thread (the kernel's schedstat; 0 when
 * it has none), or with all = 1, of every thread of the process. */
static double runq_wait(int all)
{
    unsigned long long run = 0, wait = 0, sum = 0;
    char p[300];
    if (!all) {
        FILE *f = fopen("/proc/thread-self/schedstat", "r");
        if (f == NULL)
            return 0;
        if (fscanf(f, "%llu %llu", &run, &wait) != 2)
            wait = 0;
        fclose(f);
        return 1e-9 * (double)wait;
    }
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "/proc/self/task/%s/schedstat", e->d_name);
        FILE *f = fopen(p, "r");
        if (f == NULL)
            continue;
        if (fscanf(f, "%llu %llu", &run, &wait) == 2)
            sum += wait;
        fclose(f);
    }
    closedir(d);
    return 1e-9 * (double)sum;
}

static double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void usage(void)
{
    fprintf(stderr, "usage: nc_threads -d DIR -k classic|nc4z|zarr [-m MIB] [-p N] [-r] [-s] [-R N] [-L]\n");
    exit(1);
}

static void *reader(void *arg)
{
    int v = (int)(intptr_t)arg;
    size_t start[2] = {0, 0}, count[2] = {ny, nx};
    double q = runq_wait(0), l = lockwait_ns ? 1e-9 * (double)lockwait_ns(-1) : 0;
    double c = clock_s(CLOCK_THREAD_CPUTIME_ID), w = bench_now();
    CHK(nc_get_vara_float(ncid, same ? 0 : v, start, count, out[v]));
    rc[v].wall = bench_now() - w;
    rc[v].cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c;
    rc[v].runq = runq_wait(0) - q;
    rc[v].lockw = lockwait_ns ? 1e-9 * (double)lockwait_ns(-1) - l : 0;
    return NULL;
}

/* One timed phase: wall, process CPU, all threads' run-queue wait, the
 * readers' costs. */
typedef struct {
    double wall, pcpu, prunq;
    cost r[2];
} phase;

static void run_phase(int two, phase *ph)
{
    double pc = clock_s(CLOCK_PROCESS_CPUTIME_ID), pq = runq_wait(1), w = bench_now();
    if (two) {
        pthread_t th[2];
        for (int v = 0; v < 2; v++)
            pthread_create(&th[v], NULL, reader, (void *)(intptr_t)v);
        for (int v = 0; v < 2; v++)
            pthread_join(th[v], NULL);
    } else {
        reader((void *)(intptr_t)0);
        reader((void *)(intptr_t)1);
    }
    ph->wall = bench_now() - w;
    ph->pcpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - pc;
    ph->prunq = runq_wait(1) - pq;
    if (two) /* the readers' threads have ended: their schedstat is gone */
        ph->prunq += rc[0].runq + rc[1].runq;
    ph->r[0] = rc[0];
    ph->r[1] = rc[1];
}

/* The phase of median wall time among n. */
static const phase *median(phase *ph, int n)
{
    const phase *s[MAXREPS];
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && s[j - 1]->wall > ph[i].wall; j--)
            s[j] = s[j - 1];
        s[j] = &ph[i];
    }
    return s[n / 2];
}

/* A reader call's time asleep: wall less CPU and run-queue wait. */
static double blocked(const cost *c)
{
    double b = c->wall - c->cpu - c->runq;
    return b > 0 ? b : 0;
}

/* CPU + blocked of the reader(s) on the critical path: the phase's wall
 * time when each reader has a core. */
static double quiet(const phase *p, int two)
{
    if (!two)
        return p->r[0].cpu + blocked(&p->r[0]) + p->r[1].cpu + blocked(&p->r[1]);
    double a = p->r[0].cpu + blocked(&p->r[0]), b = p->r[1].cpu + blocked(&p->r[1]);
    return a > b ? a : b;
}

static void report(const char *wl, int pool, const phase *p1, const phase *p2)
{
    const char *lk = lockwait_ns ? "" : " (not preloaded)";
    fprintf(stderr, "%s (pool %d): threads   wall  proc-CPU  proc-runq | reader CPU      run-queue       blocked         lock-wait%s\n",
            wl, pool, lk);
    fprintf(stderr, "%s (pool %d):       1  %6.3f  %8.3f  %9.3f | %6.3f          %6.3f          %6.3f          %6.3f\n", wl,
            pool, p1->wall, p1->pcpu, p1->prunq, p1->r[0].cpu + p1->r[1].cpu, p1->r[0].runq + p1->r[1].runq,
            blocked(&p1->r[0]) + blocked(&p1->r[1]),
            p1->r[0].lockw + p1->r[1].lockw);
    fprintf(stderr, "%s (pool %d):       2  %6.3f  %8.3f  %9.3f | %6.3f + %6.3f %6.3f + %6.3f %6.3f + %6.3f %6.3f + %6.3f\n",
            wl, pool, p2->wall, p2->pcpu, p2->prunq, p2->r[0].cpu, p2->r[1].cpu, p2->r[0].runq, p2->r[1].runq,
            blocked(&p2->r[0]), blocked(&p2->r[1]),
            p2->r[0].lockw, p2->r[1].lockw);
    double q1 = quiet(p1, 0), q2 = quiet(p2, 1);
    fprintf(stderr, "%s (pool %d): read1/read2 = %.2f wall, %.2f quiet\n", wl, pool,
            p2->wall > 0 ? p1->wall / p2->wall : 0.0, q2 > 0 ? q1 / q2 : 0.0);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *kind = NULL;
    size_t mib = 128;
    char path[4200], wl[64];
    int c, pool = 0, reuse = 0, reps = 1, lw = 0;
    while ((c = getopt(argc, argv, "d:k:m:p:rR:sL")) != -1) {
        switch (c) {
        case 'd': dir = optarg; break;
        case 'k': kind = optarg; break;
        case 'm': mib = (size_t)strtoul(optarg, NULL, 10); break;
        case 'p': pool = atoi(optarg); break;
        case 'r': reuse = 1; break;
        case 'R': reps = atoi(optarg); break;
        case 's': same = 1; break;
        case 'L': lw = 1; break;
        default: usage();
        }
    }
    if (!dir || !kind || mib < 2 || pool < 0 || reps < 1 || reps > MAXREPS) usage();
    if (pool > 0) {
        char pv[16];
        snprintf(pv, sizeof pv, "%d", pool);
        setenv("NETCDF_FILTER_THREADS", pv, 1);
    }
    *(void **)&lockwait_ns = dlsym(RTLD_DEFAULT, "lockwait_thread_ns");
    if (lw && lockwait_ns == NULL) {
        /* Again, with lockwait.so from beside this program preloaded. */
        char exe[4096], so[4200], pre[8400];
        ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
        const char *old = getenv("LD_PRELOAD");
        if (l > 0) {
            exe[l] = '\0';
            char *slash = strrchr(exe, '/');
            if (slash) *slash = '\0';
            snprintf(so, sizeof so, "%s/lockwait.so", exe);
            if (access(so, R_OK) == 0) {
                snprintf(pre, sizeof pre, "%s%s%s", so, old ? ":" : "", old ? old : "");
                setenv("LD_PRELOAD", pre, 1);
                execv("/proc/self/exe", argv);
            }
        }
        fprintf(stderr, "nc_threads: no lockwait.so beside the program: lock waits not measured\n");
    }
    int classic = strcmp(kind, "classic") == 0, zarr = strcmp(kind, "zarr") == 0;
    if (!classic && !zarr && strcmp(kind, "nc4z") != 0) usage();
    ny = mib / 2 * 1048576 / sizeof(float) / nx;      /* rows per variable */
    size_t n = ny * nx;
    if (classic) snprintf(path, sizeof path, "%s/thr.nc", dir);
    else if (zarr) snprintf(path, sizeof path, "file://%s/thr.zarr#mode=nczarr,file", dir);
    else snprintf(path, sizeof path, "%s/thr4.nc", dir);
    snprintf(wl, sizeof wl, "T_%s%s%s", kind, same ? "_same" : "", pool == 1 ? "_p1" : "");

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
    bench_phase bp;
    phase ph1[MAXREPS], ph2[MAXREPS];
    CHK(nc_open(path, NC_NOWRITE, &ncid));
    /* warm: metadata and caches of the open handle, page cache */
    reader((void *)(intptr_t)0);
    reader((void *)(intptr_t)1);

    for (int r = 0; r < reps; r++) {
        phase_begin(&bp);
        run_phase(0, &ph1[r]);
        if (r == reps - 1)
            phase_end(&bp, wl, "read1", bytes, NULL);
    }
    for (int r = 0; r < reps; r++) {
        memset(out[0], 0, n * sizeof(float));
        memset(out[1], 0, n * sizeof(float));
        phase_begin(&bp);
        run_phase(1, &ph2[r]);
        if (r == reps - 1)
            phase_end(&bp, wl, "read2", bytes, NULL);
    }
    CHK(nc_close(ncid));
    int np = pool ? pool : 0;
    if (np == 0) {
        const char *e = getenv("NETCDF_FILTER_THREADS");
        np = e && atoi(e) > 0 ? atoi(e) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    }
    fflush(stdout);
    report(wl, np, median(ph1, reps), median(ph2, reps));

    /* verify */
    int ok = 1;
    for (int v = 0; v < 2 && ok; v++) {
        int sv = same ? 0 : v;
        if (classic) fill_pattern(data, n, (uint64_t)sv * n);
        else fill_smooth(data, (size_t)sv * ny, ny, nx, 2 * ny);
        ok = memcmp(data, out[v], n * sizeof(float)) == 0;
    }
    printf("workload=%s phase=verify status=%s\n", wl, ok ? "ok" : "failed");
    if (!ok)
        return 4;
    if (pool == 0) {
        /* The same file with the pool off, in a fresh process (the pool's
         * size is fixed when it starts). */
        char cmd[9000];
        fflush(stdout);
        snprintf(cmd, sizeof cmd, "'/proc/%ld/exe' -d '%s' -k %s -m %zu -p 1 -r -R %d%s%s", (long)getpid(), dir,
                 kind, mib, reps, same ? " -s" : "", lw ? " -L" : "");
        return system(cmd) == 0 ? 0 : 4;
    }
    return 0;
}
