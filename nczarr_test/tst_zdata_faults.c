/* tst_zdata_faults.c: Zarr stores under misuse and hostile contents.
 *   null     nc_get_vara/nc_put_vara with a NULL buffer: an error code (the
 *            one netCDF-4 returns), not a crash; an empty selection is fine.
 *   links    a directory store whose chunk is a symbolic link to a file
 *            outside, whose chunk directory is a symlink to a directory
 *            outside, whose chunk is a FIFO: reads fail (never the outside
 *            bytes, never blocking), writes fail and leave the outside alone.
 *   zip      nc_sync of a zip store makes it durable (a kill -9 after the
 *            sync keeps the synced data); a close that fails on a full disk
 *            (RLIMIT_FSIZE in a child) returns an error and leaves the
 *            archive as it was (also when the store was created over it
 *            with NC_CLOBBER); no spill file is left beside the archive.
 *   shapes   arrays of one record dimension whose stored shapes disagree
 *            (a crash between their metadata writes): reads past the
 *            shorter one's shape, within the dimension, return fill.
 * Usage: tst_zdata_faults DIR */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "netcdf.h"
#include "nctst.h"

static const char *dir;

static void
test_null(const char *mode, const char *tag)
{
    char url[4200];
    int ncid, dim, v;
    size_t st = 0, ct = 4;
    ptrdiff_t sd = 2;
    snprintf(url, sizeof url, "file://%s/null_%s.zarr#mode=%s", dir, tag, mode);
    MUST(nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "x", 8, &dim));
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &dim, &v));
    MUST(nc_enddef(ncid));
    EXPECT(nc_get_vara_int(ncid, v, &st, &ct, NULL), NC_EHDFERR);
    EXPECT(nc_get_vara(ncid, v, &st, &ct, NULL), NC_EHDFERR);
    EXPECT(nc_get_var_int(ncid, v, NULL), NC_EHDFERR);
    EXPECT(nc_get_vars_int(ncid, v, &st, &ct, &sd, NULL), NC_EHDFERR);
    EXPECT(nc_get_vara_double(ncid, v, &st, &ct, NULL), NC_EHDFERR);
    EXPECT(nc_put_vara_int(ncid, v, &st, &ct, NULL), NC_EHDFERR);
    EXPECT(nc_put_vara_double(ncid, v, &st, &ct, NULL), NC_EHDFERR);
    ct = 0;
    OK(nc_get_vara_int(ncid, v, &st, &ct, NULL));
    OK(nc_put_vara_int(ncid, v, &st, &ct, NULL));
    OK(nc_close(ncid));
}

static void
write_file(const char *path, const void *buf, size_t n)
{
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL && fwrite(buf, 1, n, fp) == n, "write %s", path);
    if (fp)
        fclose(fp);
}

static int
file_is(const char *path, const void *buf, size_t n)
{
    char got[256];
    FILE *fp = fopen(path, "rb");
    size_t k = fp ? fread(got, 1, sizeof got, fp) : 0;
    if (fp)
        fclose(fp);
    return k == n && memcmp(got, buf, n) == 0;
}

static void
on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL: blocked on a FIFO chunk\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(3);
}

/* A store with v(x=8) in chunks of 4, both written (1..8). */
static int
make_store(const char *url)
{
    int ncid, dim, v, stat;
    size_t cs = 4;
    int vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    if ((stat = nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid)) || (stat = nc_def_dim(ncid, "x", 8, &dim)) ||
        (stat = nc_def_var(ncid, "v", NC_INT, 1, &dim, &v)) ||
        (stat = nc_def_var_chunking(ncid, v, NC_CHUNKED, &cs)) || (stat = nc_enddef(ncid)) ||
        (stat = nc_put_var_int(ncid, v, vals)) || (stat = nc_close(ncid)))
        return stat;
    return NC_NOERR;
}

static void
test_links(void)
{
    char path[4200], url[4300], chunk[4300], outside[4300], outdir[4300], target[4400];
    static const int secret[4] = {0x11111111, 0x22222222, 0x33333333, 0x44444444};
    int ncid, got[8], vals[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    size_t st = 4, ct = 2;

    snprintf(outside, sizeof outside, "%s/outside.bin", dir);
    snprintf(outdir, sizeof outdir, "%s/outside_dir", dir);
    write_file(outside, secret, sizeof secret);
    mkdir(outdir, 0777);

    /* v2: chunk 1 is a symbolic link to a file outside the store. */
    snprintf(path, sizeof path, "%s/links_v2.zarr", dir);
    snprintf(url, sizeof url, "file://%s#mode=nczarr,file", path);
    MUST(make_store(url));
    snprintf(chunk, sizeof chunk, "%s/v/1", path);
    unlink(chunk);
    CHECK(symlink(outside, chunk) == 0, "symlink %s", chunk);
    MUST(nc_open(url, NC_WRITE, &ncid));
    memset(got, 0, sizeof got);
    EXPECT(nc_get_var_int(ncid, 0, got), NC_EACCESS);
    CHECK(got[4] != secret[0], "the outside file's bytes were read");
    EXPECT(nc_get_vara_int(ncid, 0, &st, &ct, got), NC_EACCESS);
    /* A partial write reads the chunk first: refused, outside unchanged. */
    EXPECT(nc_put_vara_int(ncid, 0, &st, &ct, vals), NC_EACCESS);
    nc_close(ncid);
    CHECK(file_is(outside, secret, sizeof secret), "the outside file was changed");

    /* v2: chunk 0 is a FIFO; reads and partial writes fail at once. */
    unlink(chunk);
    snprintf(chunk, sizeof chunk, "%s/v/0", path);
    unlink(chunk);
    CHECK(mkfifo(chunk, 0666) == 0, "mkfifo %s", chunk);
    signal(SIGALRM, on_alarm);
    alarm(20);
    MUST(nc_open(url, NC_WRITE, &ncid));
    EXPECT(nc_get_var_int(ncid, 0, got), NC_EACCESS);
    st = 1;
    EXPECT(nc_put_vara_int(ncid, 0, &st, &ct, vals), NC_EACCESS);
    nc_close(ncid);
    alarm(0);

    /* v3: the chunk directory v/c is a symbolic link to a directory outside
     * holding a chunk file: not read, not rewritten, nothing created. */
    snprintf(path, sizeof path, "%s/links_v3.zarr", dir);
    snprintf(url, sizeof url, "file://%s#mode=zarr,v3,file", path);
    MUST(make_store(url));
    snprintf(target, sizeof target, "%s/0", outdir);
    write_file(target, secret, sizeof secret);
    snprintf(chunk, sizeof chunk, "%s/v/c", path);
    {
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", chunk);
        CHECK(system(cmd) == 0, "%s", cmd);
    }
    CHECK(symlink(outdir, chunk) == 0, "symlink %s", chunk);
    MUST(nc_open(url, NC_WRITE, &ncid));
    memset(got, 0, sizeof got);
    EXPECT(nc_get_var_int(ncid, 0, got), NC_EACCESS);
    CHECK(got[0] != secret[0], "a chunk was read through a symlinked directory");
    /* Whole chunks: written straight to the store, refused. */
    st = 0;
    ct = 8;
    int put = nc_put_vara_int(ncid, 0, &st, &ct, vals);
    int closed = nc_close(ncid);
    CHECK(put == NC_EPERM || closed == NC_EPERM, "write through a symlinked directory: put %d close %d", put,
          closed);
    CHECK(file_is(target, secret, sizeof secret), "a file outside the store was rewritten");
    snprintf(target, sizeof target, "%s/1", outdir);
    CHECK(access(target, F_OK) != 0, "a file was created outside the store");
}

#define ZN 1000

static const char *self;

static int
zval(int salt, size_t i)
{
    return salt * 1000000 + (int)i;
}

/* Create (or clobber) a zip store with v(x=ZN) = zval(salt, i). */
static int
zip_write(const char *url, int salt, int *ncidp)
{
    int ncid, dim, v, stat;
    int *buf = malloc(ZN * sizeof(int));
    if (!buf)
        return NC_ENOMEM;
    for (size_t i = 0; i < ZN; i++)
        buf[i] = zval(salt, i);
    if (!(stat = nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid))) {
        if (!(stat = nc_def_dim(ncid, "x", ZN, &dim)) && !(stat = nc_def_var(ncid, "v", NC_INT, 1, &dim, &v)) &&
            !(stat = nc_enddef(ncid)))
            stat = nc_put_var_int(ncid, v, buf);
        if (stat)
            nc_abort(ncid);
        else
            *ncidp = ncid;
    }
    free(buf);
    return stat;
}

static int
zip_holds(const char *url, int salt)
{
    int ncid, bad = 0;
    int *buf = malloc(ZN * sizeof(int));
    if (!buf || nc_open(url, NC_NOWRITE, &ncid) != NC_NOERR) {
        free(buf);
        return 0;
    }
    if (nc_get_var_int(ncid, 0, buf) != NC_NOERR)
        bad = 1;
    for (size_t i = 0; !bad && i < ZN; i++)
        bad = buf[i] != zval(salt, i);
    nc_close(ncid);
    free(buf);
    return !bad;
}

/* The children (run through exec: the parent has threads). */
static int
zip_child(const char *what, const char *url)
{
    int ncid, stat;
    if (strcmp(what, "sync") == 0) {
        /* Write, sync, say so, wait to be killed. */
        if ((stat = zip_write(url, 1, &ncid)) || (stat = nc_sync(ncid)))
            return 10;
        if (write(1, "synced\n", 7) != 7)
            return 11;
        for (;;)
            pause();
    }
    /* Full disk at close: each file may grow to 64 KiB only. */
    struct rlimit rl = {65536, 65536};
    signal(SIGXFSZ, SIG_IGN);
    if (strcmp(what, "fullnew") == 0) {
        /* A bigger store created over the archive. */
        if ((stat = zip_write(url, 3, &ncid)))
            return 12;
        int big[20000];
        size_t st = 0, ct = 20000;
        int dim, v;
        nc_redef(ncid);
        nc_def_dim(ncid, "y", 20000, &dim);
        nc_def_var(ncid, "w", NC_INT, 1, &dim, &v);
        nc_enddef(ncid);
        for (int i = 0; i < 20000; i++)
            big[i] = i * 7 + 1;
        if (nc_put_vara_int(ncid, v, &st, &ct, big))
            return 13;
        setrlimit(RLIMIT_FSIZE, &rl);
        stat = nc_close(ncid);
        return stat == NC_NOERR ? 14 : 0;
    }
    if (strcmp(what, "fullold") == 0) {
        int big[20000], dim, v;
        if (nc_open(url, NC_WRITE, &ncid) || nc_redef(ncid) || nc_def_dim(ncid, "y", 20000, &dim) ||
            nc_def_var(ncid, "w", NC_INT, 1, &dim, &v) || nc_enddef(ncid))
            return 15;
        for (int i = 0; i < 20000; i++)
            big[i] = i * 7 + 1;
        if (nc_put_var_int(ncid, v, big))
            return 16;
        setrlimit(RLIMIT_FSIZE, &rl);
        stat = nc_close(ncid);
        return stat == NC_NOERR ? 17 : 0;
    }
    return 2;
}

static int
run_child(const char *what, const char *url, int killafter)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl(self, self, "--child", what, url, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    int status = 0;
    if (killafter) {
        char got[16] = {0};
        ssize_t n = read(fds[0], got, sizeof got - 1);
        CHECK(n > 0 && strncmp(got, "synced", 6) == 0, "child %s did not sync", what);
        kill(pid, SIGKILL);
    }
    close(fds[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static int
spill_files(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)))
        n += strstr(de->d_name, ".nczspill.") != NULL;
    if (d)
        closedir(d);
    return n;
}

static void
test_zip(void)
{
    char path[4200], url[4300];
    int ncid;
    snprintf(path, sizeof path, "%s/durable.zip", dir);
    snprintf(url, sizeof url, "file://%s#mode=nczarr,zip", path);

    /* kill -9 after nc_sync: the synced data is there. */
    unlink(path);
    CHECK(run_child("sync", url, 1) == 100 + SIGKILL, "sync child killed");
    CHECK(access(path, F_OK) == 0, "no archive after a sync and kill -9");
    CHECK(zip_holds(url, 1), "synced data lost after kill -9");
    CHECK(spill_files() == 0, "a spill file was left behind");

    /* Full disk at close: an error, and the archive stays as it was. */
    MUST(zip_write(url, 1, &ncid));
    OK(nc_close(ncid));
    CHECK(zip_holds(url, 1), "archive before the full-disk closes");
    EXPECT(run_child("fullold", url, 0), 0);
    CHECK(zip_holds(url, 1), "archive lost or changed by a failed close");
    EXPECT(run_child("fullnew", url, 0), 0);
    CHECK(zip_holds(url, 1), "archive lost by a failed close of a store created over it");

    /* Objects past the memory budget go to a spill file nobody else sees. */
    MUST(zip_write(url, 2, &ncid));
    {
        int dim, v;
        size_t n = (size_t)10 << 20, st = 0;
        int *big = calloc(n, sizeof(int));
        MUST(big ? NC_NOERR : NC_ENOMEM);
        for (size_t i = 0; i < n; i++)
            big[i] = (int)i;
        OK(nc_redef(ncid));
        OK(nc_def_dim(ncid, "big", n, &dim));
        OK(nc_def_var(ncid, "b", NC_INT, 1, &dim, &v));
        OK(nc_enddef(ncid));
        OK(nc_put_vara_int(ncid, v, &st, &n, big));
        OK(nc_sync(ncid));
        CHECK(spill_files() == 0, "a spill file is visible beside the archive");
        OK(nc_close(ncid));
        CHECK(zip_holds(url, 2), "spilled store");
        MUST(nc_open(url, NC_NOWRITE, &ncid));
        memset(big, 0, n * sizeof(int));
        OK(nc_get_var_int(ncid, 1, big));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += big[i] != (int)i;
        CHECK(bad == 0, "spilled variable: %zu values wrong", bad);
        OK(nc_close(ncid));
        free(big);
    }
    CHECK(spill_files() == 0, "a spill file was left behind");
}

/* Replace the first "[ from ]" after "shape" in the file at path. */
static int
set_shape(const char *path, const char *from, const char *to)
{
    char buf[8192];
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp)
        fclose(fp);
    buf[n] = '\0';
    char *sh = strstr(buf, "\"shape\"");
    char *at = sh ? strstr(sh, from) : NULL;
    if (!at)
        return 0;
    char out[8300];
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - buf), buf, to, at + strlen(from));
    write_file(path, out, strlen(out));
    return 1;
}

static void
test_shapes(const char *mode, const char *tag, const char *meta)
{
    char path[4200], url[4300], file[4400];
    int ncid, dim, a, b, vals[10], got[10];
    size_t st = 0, ct = 10, cs = 2;
    for (int i = 0; i < 10; i++)
        vals[i] = i + 1;
    snprintf(path, sizeof path, "%s/shapes_%s.zarr", dir, tag);
    snprintf(url, sizeof url, "file://%s#mode=%s", path, mode);
    MUST(nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &dim));
    MUST(nc_def_var(ncid, "a", NC_INT, 1, &dim, &a));
    MUST(nc_def_var(ncid, "b", NC_INT, 1, &dim, &b));
    MUST(nc_def_var_chunking(ncid, a, NC_CHUNKED, &cs));
    MUST(nc_def_var_chunking(ncid, b, NC_CHUNKED, &cs));
    MUST(nc_enddef(ncid));
    MUST(nc_put_vara_int(ncid, a, &st, &ct, vals));
    ct = 4;
    MUST(nc_put_vara_int(ncid, b, &st, &ct, vals));
    MUST(nc_close(ncid));
    /* b's metadata as a sync cut short left it: shape 4, a's 10. */
    snprintf(file, sizeof file, "%s/b/%s", path, meta);
    CHECK(set_shape(file, "[ 10 ]", "[ 4 ]"), "%s: rewrite b's shape in %s", tag, file);
    MUST(nc_open(url, NC_NOWRITE, &ncid));
    size_t len = 0;
    int bdim = -1;
    OK(nc_inq_vardimid(ncid, 1, &bdim));
    OK(nc_inq_dimlen(ncid, bdim, &len));
    CHECK(len == 10, "%s: b's dimension has length %zu, want 10", tag, len);
    ct = 10;
    OK(nc_get_vara_int(ncid, 1, &st, &ct, got));
    for (int i = 0; i < 10; i++)
        CHECK(got[i] == (i < 4 ? i + 1 : NC_FILL_INT), "%s: b[%d] = %d", tag, i, got[i]);
    size_t i7 = 7;
    int one = 0;
    OK(nc_get_var1_int(ncid, 1, &i7, &one));
    CHECK(one == NC_FILL_INT, "%s: b[7] = %d, want fill", tag, one);
    OK(nc_get_vara_int(ncid, 0, &st, &ct, got));
    CHECK(got[9] == 10, "%s: a[9] = %d", tag, got[9]);
    OK(nc_close(ncid));
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    self = argv[0];
    if (strcmp(argv[1], "--child") == 0 && argc == 4)
        return zip_child(argv[2], argv[3]);
    dir = argv[1];
    test_null("nczarr,file", "v2");
    test_null("zarr,v3,file", "v3");
    test_null("zarr,v3,file,shard", "v3s");
    test_links();
    test_zip();
    test_shapes("nczarr,file", "nczarr", ".zarray");
    test_shapes("zarr,file", "pure", ".zarray");
    test_shapes("zarr,v3,file", "v3", "zarr.json");
    return nct_summary("tst_zdata_faults");
}
