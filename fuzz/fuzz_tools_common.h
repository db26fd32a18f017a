/* fuzz_tools_common.h: shared by fuzz_ncdump.c and fuzz_nccopy.c.
 *
 * The input bytes are written to a per-process temporary file (in /dev/shm
 * when there is one), because the tools open files by name.  The file is
 * also opened once through nc_open_mem to learn how much data it declares
 * (the tools print or copy all of it, so only files declaring little data
 * get the data-reading option sets) and the name of its first variable
 * (for -v/-V).  Everything is static: one run at a time. */
#ifndef FUZZ_TOOLS_COMMON_H
#define FUZZ_TOOLS_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcdf.h"
#include "netcdf_mem.h"

typedef struct {
    int opened;                     /* nc_open_mem succeeded */
    double data_bytes;              /* bytes of data the header declares */
    char var0[NC_MAX_NAME + 1];     /* first variable's name, or "" */
} fz_info;

static char fz_dir[32];

static void
fz_init_dir(void)
{
    strcpy(fz_dir, access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
}

/* Writes the input to path; 0 on success. */
static int
fz_write(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f)
        return -1;
    ok = fwrite(data, 1, size, f) == size;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* FNV-1a of the input: picks option sets deterministically. */
static size_t
fz_hash(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return h;
}

static fz_info
fz_inspect(const uint8_t *data, size_t size)
{
    fz_info in = {0, 0, ""};
    int ncid, nvars = 0, unlimid = -1, v, j;
    size_t nrecs = 0;

    if (nc_open_mem("fuzz", NC_NOWRITE, size, (void *)data, &ncid))
        return in;
    in.opened = 1;
    if (nc_inq_nvars(ncid, &nvars) || nc_inq_unlimdim(ncid, &unlimid))
        nvars = 0;
    if (unlimid >= 0 && nc_inq_dimlen(ncid, unlimid, &nrecs))
        nrecs = 0;
    for (v = 0; v < nvars; v++) {
        nc_type t;
        int nd, dimids[NC_MAX_VAR_DIMS];
        size_t tsize = 8, len;
        double n = 1;
        if (nc_inq_var(ncid, v, v == 0 ? in.var0 : NULL, &t, &nd, dimids, NULL))
            continue;
        (void)nc_inq_type(ncid, t, NULL, &tsize);
        for (j = 0; j < nd; j++) {
            if (dimids[j] == unlimid)
                len = nrecs;
            else if (nc_inq_dimlen(ncid, dimids[j], &len))
                len = 0;
            n *= (double)len;
        }
        in.data_bytes += n * (double)tsize;
    }
    nc_close(ncid);
    return in;
}

#endif
