/* tst_zdata_faults.c: Zarr stores under misuse and hostile contents.
 *   null     nc_get_vara/nc_put_vara with a NULL buffer: an error code (the
 *            one netCDF-4 returns), not a crash; an empty selection is fine.
 *   links    a directory store whose chunk is a symbolic link to a file
 *            outside, whose chunk directory is a symlink to a directory
 *            outside, whose chunk is a FIFO: reads fail (never the outside
 *            bytes, never blocking), writes fail and leave the outside alone.
 * Usage: tst_zdata_faults DIR */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
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

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    test_null("nczarr,file", "v2");
    test_null("zarr,v3,file", "v3");
    test_null("zarr,v3,file,shard", "v3s");
    test_links();
    return nct_summary("tst_zdata_faults");
}
