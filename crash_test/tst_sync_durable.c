/* tst_sync_durable.c: nc_sync makes what it wrote durable - it ends with
 * an fsync or fdatasync of the file - for classic and netCDF-4 files
 * (upstream calls neither).  Runs under LD_PRELOAD=libcrash_shim.so, which
 * counts those calls (crash_shim_fsyncs) and skips them.
 *
 *   tst_sync_durable classic|nc4 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <netcdf.h>

int
main(int argc, char **argv)
{
    const char *fmt = argc > 1 ? argv[1] : "";
    long *count = (long *)dlsym(RTLD_DEFAULT, "crash_shim_fsyncs");
    int ncid, dt, v, st, cmode = !strcmp(fmt, "nc4") ? NC_NETCDF4 : 0;
    int vals[4] = {1, 2, 3, 4};
    size_t start[1] = {0}, cnt[1] = {4};
    long before;
    if (count == NULL) {
        printf("needs LD_PRELOAD=.../libcrash_shim.so\n");
        return 77;
    }
    if ((st = nc_create("tst_sync_durable.nc", NC_CLOBBER | cmode, &ncid))
        || (st = nc_def_dim(ncid, "t", NC_UNLIMITED, &dt))
        || (st = nc_def_var(ncid, "v", NC_INT, 1, &dt, &v)) || (st = nc_enddef(ncid))
        || (st = nc_put_vara_int(ncid, v, start, cnt, vals))) {
        printf("%s: %s\n", fmt, nc_strerror(st));
        return 1;
    }
    before = *count;
    st = nc_sync(ncid);
    printf("%s: nc_sync %s, %ld fsync calls\n", fmt, nc_strerror(st), *count - before);
    if (nc_close(ncid) || st || *count == before)
        return 1;
    remove("tst_sync_durable.nc");
    return 0;
}
