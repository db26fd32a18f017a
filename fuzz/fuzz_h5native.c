/* fuzz_h5native.c: libFuzzer target for the native netCDF-4 metadata reader
 * (libhdf5/h5n*.c).
 *
 * The reader works on files on disk, so each input is written to a
 * per-process temporary file and opened read-only with
 * NETCDF_HDF5_NATIVE_OPEN=2 (native only: a file it gives up on fails to
 * open instead of going to HDF5, whose own findings are fuzz_open_nc4's).
 * On success the whole model is inquired: groups, dims, types, variables
 * with every storage inquiry, attributes with their values.  Data is not
 * read: that opens HDF5.  Any sanitizer report is a bug in our code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "netcdf.h"

#define MAX_DEPTH 8

static char path[64];

static void
walk_atts(int ncid, int varid, int natts)
{
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len, tsize = 0;
        if (nc_inq_attname(ncid, varid, a, name) || nc_inq_att(ncid, varid, name, &t, &len))
            continue;
        if (nc_inq_type(ncid, t, NULL, &tsize) || tsize == 0 || len > (1u << 20) / tsize)
            continue;
        void *buf = calloc(len ? len : 1, tsize);
        if (buf == NULL)
            continue;
        if (nc_get_att(ncid, varid, name, buf) == NC_NOERR)
            (void)nc_reclaim_data(ncid, t, buf, len);
        free(buf);
    }
}

static void
walk(int ncid, int depth)
{
    int nd, nv, na, ul, ng, ids[NC_MAX_VAR_DIMS];
    int *grps;
    char name[NC_MAX_NAME + 1];
    size_t len;

    if (depth > MAX_DEPTH || nc_inq(ncid, &nd, &nv, &na, &ul))
        return;
    (void)nc_inq_grpname(ncid, name);
    if (nc_inq_dimids(ncid, &nd, NULL, 0) == NC_NOERR && nd > 0) {
        int *d = malloc((size_t)nd * sizeof(int));
        if (d && nc_inq_dimids(ncid, &nd, d, 0) == NC_NOERR)
            for (int i = 0; i < nd; i++)
                (void)nc_inq_dim(ncid, d[i], name, &len);
        free(d);
    }
    (void)nc_inq_unlimdims(ncid, &ul, NULL);
    walk_atts(ncid, NC_GLOBAL, na);
    for (int v = 0; v < nv; v++) {
        nc_type t;
        int ndims, natts, shuf, defl, lvl, fl, contig, nofill, endian;
        size_t chunks[NC_MAX_VAR_DIMS], nf;
        unsigned char fill[64];
        if (nc_inq_var(ncid, v, name, &t, &ndims, ids, &natts))
            continue;
        (void)nc_inq_var_deflate(ncid, v, &shuf, &defl, &lvl);
        (void)nc_inq_var_fletcher32(ncid, v, &fl);
        (void)nc_inq_var_chunking(ncid, v, &contig, chunks);
        (void)nc_inq_var_endian(ncid, v, &endian);
        (void)nc_inq_var_filter_ids(ncid, v, &nf, NULL);
        if (t != NC_STRING && t <= NC_UINT64 && nc_inq_var_fill(ncid, v, &nofill, fill) == NC_NOERR)
            ;
        walk_atts(ncid, v, natts);
    }
    if (nc_inq_grps(ncid, &ng, NULL) == NC_NOERR && ng > 0 &&
        (grps = malloc((size_t)ng * sizeof(int))) != NULL) {
        if (nc_inq_grps(ncid, &ng, grps) == NC_NOERR)
            for (int i = 0; i < ng; i++)
                walk(grps[i], depth + 1);
        free(grps);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *fp;
    int ncid;

    if (path[0] == '\0') {
        snprintf(path, sizeof(path), "/tmp/fuzz_h5native_%ld.nc", (long)getpid());
        setenv("NETCDF_HDF5_NATIVE_OPEN", "2", 1);
    }
    if ((fp = fopen(path, "wb")) == NULL)
        return 0;
    if (size > 0 && fwrite(data, 1, size, fp) != size) {
        fclose(fp);
        return 0;
    }
    fclose(fp);
    if (nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR) {
        int fmt;
        (void)nc_inq_format(ncid, &fmt);
        walk(ncid, 0);
        nc_close(ncid);
    }
    unlink(path);
    return 0;
}
