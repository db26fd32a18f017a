/* zcore_redirect.h: forced-included (-include) into nc_test conformance
 * programs to run their netCDF-4 cases on NCZarr stores: every nc_create
 * with NC_NETCDF4 and every nc_open/nc_delete of a path whose ".zarr" store
 * exists goes to "file://<cwd>/<path>.zarr#mode=<ZCORE_MODE>" instead
 * (classic-format cases stay as they are). */
#ifndef ZCORE_REDIRECT_H
#define ZCORE_REDIRECT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netcdf.h>

#ifndef ZCORE_MODE
#define ZCORE_MODE "nczarr,file"
#endif

static inline const char *
zcore_url(const char *path, char *buf, size_t n)
{
    char cwd[2048];
    if (path[0] == '/')
        snprintf(buf, n, "file://%s.zarr#mode=" ZCORE_MODE, path);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(buf, n, "file://%s/%s.zarr#mode=" ZCORE_MODE, cwd, path);
    else
        snprintf(buf, n, "%s", path);
    return buf;
}

static inline int
zcore_exists(const char *path)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s.zarr", path);
    return stat(p, &st) == 0;
}

static inline int
zcore_create(const char *path, int cmode, int *ncidp)
{
    char buf[4096];
    if (cmode & NC_NETCDF4)
        return (nc_create)(zcore_url(path, buf, sizeof buf), cmode, ncidp);
    if (zcore_exists(path)) {
        /* A classic file of the same name: a stale store must not catch its opens. */
        snprintf(buf, sizeof buf, "rm -rf '%s.zarr'", path);
        if (system(buf) != 0)
            return NC_EIO;
    }
    return (nc_create)(path, cmode, ncidp);
}

static inline int
zcore_open(const char *path, int mode, int *ncidp)
{
    char buf[4096];
    if (zcore_exists(path))
        return (nc_open)(zcore_url(path, buf, sizeof buf), mode, ncidp);
    return (nc_open)(path, mode, ncidp);
}

#define nc_create(p, m, i) zcore_create((p), (m), (i))
#define nc_open(p, m, i) zcore_open((p), (m), (i))
#endif
