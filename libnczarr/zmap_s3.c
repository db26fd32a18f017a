/* zmap_s3.c: placeholder until the s3 store lands (answers NC_ENOTBUILT). */
#include "zmap_impl.h"
#include <netcdf.h>
int
ncz_map_s3_open(const char *url, int mode, NCZ_map **mapp)
{
    (void)url, (void)mode, (void)mapp;
    return NC_ENOTBUILT;
}
