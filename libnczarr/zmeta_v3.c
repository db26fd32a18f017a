/* zmeta_v3.c: Zarr v3 metadata (zarr.json). */
#include "config.h"
#include "zmeta.h"

int
ncz_v3_read(NC4_file *f, json_object *root)
{
    (void)f; (void)root;
    return NC_ENOTBUILT;
}

int
ncz_v3_write(NC4_file *f)
{
    (void)f;
    return NC_ENOTBUILT;
}
