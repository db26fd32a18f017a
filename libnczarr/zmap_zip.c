/* zmap_zip.c: placeholder until the zip store lands (answers NC_ENOTBUILT). */
#include "zmap_impl.h"
#include <netcdf.h>
int
ncz_map_zip_open(const char *path, const char *url, int mode, int rootlayout, NCZ_map **mapp)
{
    (void)path, (void)url, (void)mode, (void)rootlayout, (void)mapp;
    return NC_ENOTBUILT;
}
