/* tst_full_disk.c: a write that fails for lack of room (here EFBIG from an
 * RLIMIT_FSIZE limit with SIGXFSZ ignored, as ENOSPC on a full disk) must
 * report the error to the caller - at the write, nc_sync or nc_close - and
 * leave what an earlier nc_sync made durable as it was: the file opens and
 * every synced record reads back.  Formats: netCDF-4, Zarr directory and
 * zip stores; classic ("classic": a redef that grows the header, so that
 * nc_enddef must move all data, with no room for it; record writes are
 * nc_test/tst_write_fail).
 *
 *   tst_full_disk classic|nc4|zarr|zip [enospc|keep]
 *
 * The writing runs in a child process, which must exit normally (the
 * libraries' shutdown at exit included); the parent then opens the file as
 * the disk holds it.  The child lifts the limit before it exits, as a disk
 * that got room again.  "keep": the limit stays to the end (netCDF-4: the
 * file HDF5 left need not open, see below; the child must still exit
 * normally after reporting the error).
 *
 * "enospc": instead of the size limit, the disk fills up after the first
 * sync (CRASH_DISK_FULL for the LD_PRELOAD shim crash_shim, which then
 * refuses with ENOSPC every write that would make a file longer).  HDF5
 * needs the limit lifted before exit, or this: at a failed flush it has
 * already written a superblock whose end of allocation lies past the data
 * it could not write, and it makes the file that long with ftruncate,
 * which a full disk allows (a hole) and a size limit does not, leaving a
 * file HDF5 will not open until a later flush (the library's at exit)
 * succeeds.
 *
 * With FULL_DISK_NOLIMIT set no limit is set: run it in a small file
 * system (a 400 KiB tmpfs) to get a real ENOSPC. */
#define _XOPEN_SOURCE 700
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netcdf.h>

#define NX 16384        /* one record: 64 KiB, one chunk */
#define NSYNC 4         /* records synced before the limit */
#define NMORE 8         /* records written after it */

static int failures;

#define CHECK(c, ...) do { if (!(c)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
    printf(__VA_ARGS__); printf("\n"); } } while (0)

static int
val(int rec, int i)
{
    return rec * 1000003 + i;
}

static long long
size_of(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/* rm -rf file (a name made here: no quoting needed) */
static int
remove_store(const char *file)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", file);
    return system(cmd) != 0;
}

static int write_part(const char *fmt, const char *path, const char *file, int classic,
                      int enospc, int keep);

int
main(int argc, char **argv)
{
    const char *fmt = argc > 1 ? argv[1] : "";
    int enospc = argc > 2 && !strcmp(argv[2], "enospc");
    int keep = argc > 2 && !strcmp(argv[2], "keep");
    /* each mode its own file: the tests run in parallel */
    const char *mode = enospc ? "_enospc" : keep ? "_keep" : "";
    char path[320], file[64];
    int ncid, dt, v, i, r, st, *buf, wst;
    size_t start[2] = {0, 0}, count[2] = {1, NX}, len = 0;
    pid_t pid;

    int classic = !strcmp(fmt, "classic");
    if (classic || !strcmp(fmt, "nc4")) {
        snprintf(file, sizeof file, "tst_full_disk_%s%s.nc", fmt, mode);
        snprintf(path, sizeof path, "%s", file);
    } else if (!strcmp(fmt, "zarr")) {
        snprintf(file, sizeof file, "tst_full_disk_%s%s.zarr", fmt, mode);
        snprintf(path, sizeof path, "file://%s#mode=nczarr,file", file);
    } else if (!strcmp(fmt, "zip")) {
        snprintf(file, sizeof file, "tst_full_disk_%s%s.zip", fmt, mode);
        snprintf(path, sizeof path, "file://%s#mode=nczarr,zip", file);
    } else {
        fprintf(stderr, "usage: tst_full_disk nc4|zarr|zip\n");
        return 2;
    }
    if (remove_store(file))
        return 1;
    fflush(stdout);
    if ((pid = fork()) < 0)
        return 1;
    if (pid == 0)
        exit(write_part(fmt, path, file, classic, enospc, keep));
    if (waitpid(pid, &wst, 0) != pid)
        return 1;
    if (WIFEXITED(wst) && WEXITSTATUS(wst) == 77)
        return 77;
    CHECK(WIFEXITED(wst), "%s: the writer died of signal %d", fmt, WIFSIGNALED(wst) ? WTERMSIG(wst) : 0);
    CHECK(!WIFEXITED(wst) || WEXITSTATUS(wst) == 0, "%s: the writer failed (%d)", fmt,
          WEXITSTATUS(wst));

    /* everything synced is there */
    if ((buf = malloc(NX * sizeof *buf)) == NULL)
        return 1;
    if ((st = nc_open(path, NC_NOWRITE, &ncid))) {
        if (keep && !classic && !strcmp(fmt, "nc4"))
            printf("%s: reopen after a limit kept to the end: %s (HDF5 could not finish the file)\n",
                   fmt, nc_strerror(st));
        else
            CHECK(0, "%s: reopen: %s", fmt, nc_strerror(st));
    } else {
        CHECK(nc_inq_dimid(ncid, "time", &dt) == NC_NOERR && nc_inq_dimlen(ncid, dt, &len) == NC_NOERR &&
              len >= NSYNC, "%s: %zu records, %d were synced", fmt, len, NSYNC);
        CHECK(nc_inq_varid(ncid, "rec", &v) == NC_NOERR, "%s: rec", fmt);
        for (r = 0; r < NSYNC; r++) {
            int bad = 0;
            start[0] = (size_t)r;
            st = nc_get_vara_int(ncid, v, start, count, buf);
            for (i = 0; st == NC_NOERR && i < NX; i++)
                bad += buf[i] != val(r, i);
            CHECK(st == NC_NOERR && bad == 0, "%s: synced record %d: %s, %d values wrong",
                  fmt, r, nc_strerror(st), bad);
        }
        nc_close(ncid);
    }
    free(buf);
    if (!failures && remove_store(file))
        return 1;
    printf("tst_full_disk %s%s%s: %d failures\n", fmt, argc > 2 ? " " : "", argc > 2 ? argv[2] : "",
           failures);
    return failures ? 1 : 0;
}

/* The writer (a child process): NSYNC records synced, then the limit (or
 * the full disk), then more writes whose error must reach the caller. */
static int
write_part(const char *fmt, const char *path, const char *file, int classic, int enospc, int keep)
{
    int ncid, dt, dx, v, i, r, st, first_err = NC_NOERR, *buf;
    int d2[2];
    size_t start[2] = {0, 0}, count[2] = {1, NX}, ch[2] = {1, NX};
    struct rlimit saved, rl;
    long long limit;

    if ((buf = malloc(NX * sizeof *buf)) == NULL)
        return 1;
    signal(SIGXFSZ, SIG_IGN);
    if (getrlimit(RLIMIT_FSIZE, &saved) != 0)
        return 77;

    /* NSYNC records written and synced: what must survive */
    if ((st = nc_create(path, NC_CLOBBER | (classic ? 0 : NC_NETCDF4), &ncid))) {
        printf("create %s: %s\n", path, nc_strerror(st));
        return 1;
    }
    d2[0] = nc_def_dim(ncid, "time", NC_UNLIMITED, &dt) ? -1 : dt;
    d2[1] = nc_def_dim(ncid, "x", NX, &dx) ? -1 : dx;
    CHECK(nc_def_var(ncid, "rec", NC_INT, 2, d2, &v) == NC_NOERR, "def_var");
    if (!classic)
        CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, ch) == NC_NOERR, "chunking");
    CHECK(nc_enddef(ncid) == NC_NOERR, "enddef");
    for (r = 0; r < NSYNC; r++) {
        for (i = 0; i < NX; i++)
            buf[i] = val(r, i);
        start[0] = (size_t)r;
        CHECK(nc_put_vara_int(ncid, v, start, count, buf) == NC_NOERR, "put %d", r);
    }
    CHECK(nc_sync(ncid) == NC_NOERR, "first sync");

    /* the limit: a little above the file (netCDF-4), below an archive with
     * more records (zip), below one chunk object (directory store) */
    limit = !strcmp(fmt, "zarr") ? 16384 : size_of(file) + 4096;
    rl = saved;
    rl.rlim_cur = (rlim_t)limit;
    /* FULL_DISK_NOLIMIT: no limit, for a run on a small file system that
     * fills up (a real ENOSPC; needs a mount, so not in CTest) */
    if (enospc) {
        if (getenv("LD_PRELOAD") == NULL || strstr(getenv("LD_PRELOAD"), "crash_shim") == NULL) {
            printf("enospc needs LD_PRELOAD=.../libcrash_shim.so\n");
            return 77;
        }
        setenv("CRASH_DISK_FULL", "1", 1);
    } else if (getenv("FULL_DISK_NOLIMIT") == NULL && (limit <= 4096 || setrlimit(RLIMIT_FSIZE, &rl) != 0)) {
        printf("cannot set the limit (%lld)\n", limit);
        return 77;
    }
    if (classic) {
        /* 8 KiB more header: every byte of data moves */
        char *att = calloc(1, 8192);
        first_err = att == NULL ? NC_ENOMEM : nc_redef(ncid);
        if (first_err == NC_NOERR)
            first_err = nc_put_att_text(ncid, NC_GLOBAL, "big", 8192, att);
        if (first_err == NC_NOERR)
            first_err = nc_enddef(ncid);
        free(att);
    }
    for (r = NSYNC; !classic && r < NSYNC + NMORE && first_err == NC_NOERR; r++) {
        for (i = 0; i < NX; i++)
            buf[i] = val(r, i);
        start[0] = (size_t)r;
        first_err = nc_put_vara_int(ncid, v, start, count, buf);
    }
    if (first_err == NC_NOERR)
        first_err = nc_sync(ncid);
    st = nc_close(ncid);
    if (first_err == NC_NOERR)
        first_err = st;
    if (!keep)
        (void)setrlimit(RLIMIT_FSIZE, &saved);
    unsetenv("CRASH_DISK_FULL");
    printf("%s: the first error: %s\n", fmt, nc_strerror(first_err));
    CHECK(first_err != NC_NOERR, "%s: writes past the limit reported no error", fmt);
    free(buf);
    fflush(stdout);
    return failures ? 1 : 0;
}
