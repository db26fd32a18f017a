/* tst_write_fail.c: a record write that fails (here EFBIG from an
 * RLIMIT_FSIZE limit with SIGXFSZ ignored, as ENOSPC on a full disk) must
 * not grow the record count, and a buffered write whose flush fails must
 * make nc_sync / nc_close fail, leaving a file that claims nothing that was
 * not written.  No root or tmpfs needed. */
#define _XOPEN_SOURCE 700
#include "nctst.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

static struct rlimit saved;

static long long
fsize(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

static int
limit_to(long long bytes)
{
    struct rlimit rl = saved;
    rl.rlim_cur = (rlim_t)bytes;
    return setrlimit(RLIMIT_FSIZE, &rl);
}

static void
unlimit(void)
{
    (void)setrlimit(RLIMIT_FSIZE, &saved);
}

static size_t
numrecs_of(const char *path)
{
    int ncid, unlim;
    size_t n = (size_t)-1;
    if (nc_open(path, NC_NOWRITE, &ncid))
        return (size_t)-2;
    if (nc_inq_unlimdim(ncid, &unlim) == NC_NOERR)
        (void)nc_inq_dimlen(ncid, unlim, &n);
    nc_close(ncid);
    return n;
}

/* A record of 1 MiB written straight to the file fails half way. */
static void
direct_write(int share)
{
    const char *path = "tst_write_fail_direct.nc";
    int ncid, d[2], v, unlim;
    size_t len, start[2] = {0, 0}, count[2] = {1, 262144};
    int *buf = calloc(262144, sizeof *buf);
    int stat;
    if (buf == NULL) { CHECK(0, "no memory"); return; }
    MUST(nc_create(path, NC_CLOBBER | share, &ncid));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    MUST(nc_def_dim(ncid, "x", 262144, &d[1]));
    MUST(nc_def_var(ncid, "v", NC_INT, 2, d, &v));
    MUST(nc_set_fill(ncid, NC_NOFILL, NULL));
    MUST(nc_enddef(ncid));
    OK(nc_put_vara_int(ncid, v, start, count, buf));
    OK(nc_sync(ncid));
    CHECK(limit_to(fsize(path) + 300000) == 0, "setrlimit");
    start[0] = 1;
    stat = nc_put_vara_int(ncid, v, start, count, buf);
    /* Without NC_SHARE the record may sit in the write-behind buffer: then
     * the put succeeds and nc_close must report the failed flush. */
    CHECK(stat != NC_NOERR || !share, "share=%d: a write past the file size limit succeeded", share);
    if (stat != NC_NOERR) {
        OK(nc_inq_unlimdim(ncid, &unlim));
        OK(nc_inq_dimlen(ncid, unlim, &len));
        CHECK(len == 1, "share=%d: failed write counted: numrecs %zu, want 1", share, len);
        stat = nc_close(ncid);
        unlimit();
        CHECK(stat == NC_NOERR, "share=%d: close after a failed (reported) write: %d", share, stat);
    } else {
        stat = nc_close(ncid);
        unlimit();
        CHECK(stat != NC_NOERR, "share=%d: nc_close did not report the failed flush", share);
    }
    len = numrecs_of(path);
    CHECK(len == 1, "share=%d: file claims %zu records, want 1", share, len);
    free(buf);
}

/* Small records sit in the write-behind buffer; its flush fails. */
static void
buffered_write(int at_close)
{
    const char *path = "tst_write_fail_buffered.nc";
    int ncid, d, v, stat;
    size_t start[1] = {0}, count[1] = {16}, len;
    int buf[16] = {0};
    long long base;
    MUST(nc_create(path, NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &d));
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    MUST(nc_enddef(ncid));
    OK(nc_put_vara_int(ncid, v, start, count, buf));
    OK(nc_sync(ncid));
    base = fsize(path);
    CHECK(limit_to(base) == 0, "setrlimit");
    start[0] = 16;
    stat = nc_put_vara_int(ncid, v, start, count, buf);   /* buffered: may succeed */
    if (stat == NC_NOERR && !at_close) {
        stat = nc_sync(ncid);
        CHECK(stat != NC_NOERR, "nc_sync did not report the failed flush");
    }
    stat = nc_close(ncid);
    unlimit();
    CHECK(stat != NC_NOERR, "at_close=%d: nc_close did not report the failed flush", at_close);
    len = numrecs_of(path);
    CHECK(len == 16, "at_close=%d: file claims %zu records, want 16 (the synced ones)", at_close, len);
    CHECK(fsize(path) == base, "at_close=%d: file grew from %lld to %lld", at_close, base, fsize(path));
}

int
main(void)
{
    if (getrlimit(RLIMIT_FSIZE, &saved) != 0) {
        printf("no RLIMIT_FSIZE: skipped\n");
        return 77;
    }
    signal(SIGXFSZ, SIG_IGN);
    direct_write(0);
    direct_write(NC_SHARE);
    buffered_write(0);
    buffered_write(1);
    return nct_summary("tst_write_fail");
}
