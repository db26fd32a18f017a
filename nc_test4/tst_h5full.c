/* tst_h5full: a netCDF-4 file that fills the disk while records are
 * written.  A child process writes records (syncing every few, or never)
 * and reports each call's status through a pipe; some call (put, sync or
 * close) must return an error, nc_close among them, and every record a
 * successful sync covered must read back intact from the reopened file.
 * Two kinds of full disk:
 *  - a private 2 MiB tmpfs (ENOSPC), when the test may mount one (root, in
 *    its own mount namespace): writes of new blocks fail while HDF5's
 *    metadata still fits, so only the chunk writes at close fail;
 *  - RLIMIT_FSIZE with SIGXFSZ ignored (EFBIG), everywhere.  HDF5 then
 *    cannot write the end of the file either and the file does not reopen
 *    (the reference's neither): only the errors are checked.
 * Usage: tst_h5full [N] runs scenario N alone. */
#define _GNU_SOURCE

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netcdf.h>
#include "nctst.h"

#define NREC 2000
#define RECLEN 1000 /* doubles per record: 8 kB */

static char path[256] = "tst_h5full.nc";

/* What the child tells the parent. */
typedef struct {
    int create_stat;
    int first_put_err, first_put_err_rec; /* first failing put */
    int first_sync_err, first_sync_err_rec;
    int synced_recs;    /* records covered by the last successful sync */
    int nput_ok;        /* puts that returned success */
    int close_stat;
    unsigned char put_ok[NREC]; /* record r's put returned success */
} report;

/* Values that do not compress (so a deflated variable fills the disk too). */
static double
value(int rec, int i)
{
    unsigned long long h = (unsigned long long)rec * 1000003u + (unsigned)i;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (double)(h >> 11) / 9007199254740992.0 + rec;
}

static void
child(int fd, rlim_t limit, int sync_every, int deflate, size_t rows)
{
    report r;
    struct rlimit rl = {limit, limit};
    int ncid, dimids[2], varid;
    double buf[RECLEN];

    memset(&r, 0, sizeof r);
    r.first_put_err_rec = r.first_sync_err_rec = -1;
    signal(SIGXFSZ, SIG_IGN);
    if (limit && setrlimit(RLIMIT_FSIZE, &rl) != 0)
        _exit(3);
    r.create_stat = nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid);
    if (!r.create_stat)
        r.create_stat = nc_def_dim(ncid, "t", NC_UNLIMITED, &dimids[0]);
    if (!r.create_stat)
        r.create_stat = nc_def_dim(ncid, "x", RECLEN, &dimids[1]);
    if (!r.create_stat)
        r.create_stat = nc_def_var(ncid, "v", NC_DOUBLE, 2, dimids, &varid);
    if (!r.create_stat && deflate)
        r.create_stat = nc_def_var_deflate(ncid, varid, 1, 1, deflate);
    if (!r.create_stat && rows) {
        size_t chunks[2] = {rows, RECLEN};
        r.create_stat = nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks);
    }
    if (!r.create_stat)
        r.create_stat = nc_enddef(ncid);
    if (r.create_stat) {
        if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
            _exit(4);
        _exit(0);
    }
    for (int rec = 0; rec < NREC; rec++) {
        size_t start[2] = {(size_t)rec, 0}, count[2] = {1, RECLEN};
        int s;
        for (int i = 0; i < RECLEN; i++)
            buf[i] = value(rec, i);
        s = nc_put_vara_double(ncid, varid, start, count, buf);
        if (s) {
            if (!r.first_put_err) {
                r.first_put_err = s;
                r.first_put_err_rec = rec;
            }
        } else {
            r.put_ok[rec] = 1;
            r.nput_ok++;
        }
        if (sync_every && (rec + 1) % sync_every == 0) {
            s = nc_sync(ncid);
            if (s && !r.first_sync_err) {
                r.first_sync_err = s;
                r.first_sync_err_rec = rec;
            }
            if (!s)
                r.synced_recs = rec + 1;
        }
    }
    r.close_stat = nc_close(ncid);
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(4);
    _exit(0);
}

/* One run: limit 0 is no file-size limit (the disk is what is full). */
static void
scenario(rlim_t limit, int sync_every, int deflate, size_t rows, int must_reopen)
{
    int fds[2], status, ncid, varid, dimid;
    report r;
    pid_t pid;
    ssize_t n;

    printf("%s, sync every %d, deflate %d, chunk rows %zu:\n",
           limit ? "RLIMIT_FSIZE" : "full tmpfs", sync_every, deflate, rows);
    remove(path);
    if (pipe(fds) != 0)
        return;
    fflush(stdout);
    if ((pid = fork()) < 0)
        return;
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], limit, sync_every, deflate, rows);
    }
    close(fds[1]);
    n = read(fds[0], &r, sizeof r);
    close(fds[0]);
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child died: status %#x", status);
    CHECK(n == (ssize_t)sizeof r, "no report from the child");
    if (n != (ssize_t)sizeof r)
        return;
    CHECK(r.create_stat == NC_NOERR, "create: %s", nc_strerror(r.create_stat));
    printf("  puts ok %d, first put error %d at record %d, first sync error %d at record %d, "
           "synced %d records, close %d (%s)\n",
           r.nput_ok, r.first_put_err, r.first_put_err_rec, r.first_sync_err,
           r.first_sync_err_rec, r.synced_recs, r.close_stat, nc_strerror(r.close_stat));
    /* The data cannot all fit: some call says so.  A close that returns
     * success vouches for every put that did; unfiltered data waits in
     * HDF5's chunk cache, so there the close itself fails (as the
     * reference's: NC_EHDFERR). */
    CHECK(r.first_put_err || r.first_sync_err || r.close_stat,
          "every put, sync and close returned success on a full disk");
    if (!deflate)
        CHECK(r.close_stat != NC_NOERR, "nc_close returned success on a full disk");

    /* What a successful sync covered is on disk. */
    int s = nc_open(path, NC_NOWRITE, &ncid);
    if (!must_reopen) {
        /* Only the errors count (see the callers). */
        printf("  reopen: %s\n", nc_strerror(s));
        if (s == NC_NOERR)
            nc_close(ncid);
    } else {
        CHECK(s == NC_NOERR, "reopen after the full disk: %s", nc_strerror(s));
        if (s == NC_NOERR) {
            size_t len = 0;
            double buf[RECLEN];
            int bad = 0, intact = 0, nread = 0;
            OK(nc_inq_varid(ncid, "v", &varid));
            OK(nc_inq_dimid(ncid, "t", &dimid));
            OK(nc_inq_dimlen(ncid, dimid, &len));
            CHECK(len >= (size_t)r.synced_recs, "t has %zu records, %d were synced", len,
                  r.synced_recs);
            for (int rec = 0; rec < NREC && rec < (int)len; rec++) {
                size_t start[2] = {(size_t)rec, 0}, count[2] = {1, RECLEN};
                int ok = nc_get_vara_double(ncid, varid, start, count, buf) == NC_NOERR;
                nread += ok;
                for (int i = 0; ok && i < RECLEN; i++)
                    ok = buf[i] == value(rec, i);
                /* Vouched for: a successful put covered by a later
                 * successful sync, or by a successful close. */
                if (ok)
                    intact++;
                else if (r.put_ok[rec] && (rec < r.synced_recs || r.close_stat == NC_NOERR))
                    bad++;
            }
            printf("  reopened: %zu records, %d readable, %d intact (%d synced)\n", len, nread,
                   intact, r.synced_recs);
            CHECK(bad == 0, "%d records lost or damaged that a sync or the close said were written",
                  bad);
            OK(nc_close(ncid));
        }
    }
    remove(path);
}

/* A private 2 MiB tmpfs at dir: 1, or 0 when this process may not mount. */
static int
private_tmpfs(const char *dir)
{
    if (mkdir(dir, 0700) != 0 && access(dir, F_OK) != 0)
        return 0;
    if (unshare(CLONE_NEWNS) != 0)
        return 0;
    if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return 0;
    return mount("tmpfs", dir, "tmpfs", 0, "size=2m") == 0;
}

int
main(int argc, char **argv)
{
    const char *dir = "tst_h5full.mnt";
    int only = argc > 1 ? atoi(argv[1]) : 0; /* run scenario N alone (1-based) */

    /* EFBIG past a 256 KiB limit. */
    if (!only || only == 1)
        scenario(256 * 1024, 10, 0, 0, 0);
    if (!only || only == 2)
        scenario(256 * 1024, 10, 1, 0, 0);
    if (!only || only == 3)
        scenario(256 * 1024, 0, 0, 0, 0);
    /* ENOSPC: unfiltered data goes out through HDF5's chunk cache (written
     * when the dataset closes), deflated data through the library's own. */
    if ((!only || only > 3) && private_tmpfs(dir)) {
        snprintf(path, sizeof path, "%s/tst_h5full.nc", dir);
        if (!only || only == 4)
            scenario(0, 0, 0, 0, 1);
        if (!only || only == 5)
            scenario(0, 10, 0, 0, 1);
        if (!only || only == 6)
            scenario(0, 10, 1, 0, 1);
        /* Records filling chunks of 16 in several calls: they wait in the
         * library's write-back cache.  Once one of its write-backs has
         * failed, HDF5 1.10 may leave the chunk index unreadable (every
         * read fails after reopening, synced chunks too): errors only. */
        if (!only || only == 7)
            scenario(0, 10, 1, 16, 0);
        if (!only || only == 8)
            scenario(0, 0, 1, 16, 1);
        umount(dir);
    } else if (!only || only > 3) {
        printf("no private tmpfs here (not root?): the ENOSPC runs are skipped\n");
    }
    rmdir(dir);
    return nct_summary("tst_h5full");
}
