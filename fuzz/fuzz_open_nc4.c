/* fuzz_open_nc4.c: libFuzzer target for netCDF-4 (HDF5) images.
 *
 * Each input is opened by both open paths: nc_open_mem (HDF5 reads the
 * image) and nc_open of a per-process temporary file with the native
 * metadata reader enabled (NETCDF_HDF5_NATIVE_OPEN=1: HDF5 takes over where
 * it gives up, and reads the data).  On success the whole group tree is
 * walked: user types (and their fields/members), dimensions, attributes with
 * their values, variables with every storage inquiry, and each variable is
 * read (whole when small, else one element and a strided sample), values of
 * strings and vlens reclaimed with nc_reclaim_data.  A crash, leak or
 * sanitizer report in our code is a bug; one inside HDF5 is listed in
 * docs/hdf5-fuzz.md (and stopped before HDF5 when a check of ours can).
 * Seeds: fuzz/corpus_nc4, which holds the seeds of the mutation campaign
 * (nc_test4/tst_h5mutate.c); fuzz/regress_nc4 holds damaged files that
 * crashed HDF5 before our checks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "netcdf.h"
#include "netcdf_mem.h"
#include "netcdf_filter.h"

#define MAX_READ_BYTES (1u << 20)
#define MAX_DEPTH 8

static void
read_atts(int ncid, int varid, int natts)
{
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len, tsize = 0;
        if (nc_inq_attname(ncid, varid, a, name) || nc_inq_att(ncid, varid, name, &t, &len))
            continue;
        if (nc_inq_type(ncid, t, NULL, &tsize) || tsize == 0 || len > MAX_READ_BYTES / tsize)
            continue;
        void *buf = calloc(len ? len : 1, tsize);
        if (buf == NULL)
            continue;
        if (nc_get_att(ncid, varid, name, buf) == NC_NOERR)
            (void)nc_reclaim_data(ncid, t, buf, len);
        if (t != NC_CHAR && t <= NC_UINT64) {
            double *d = calloc(len ? len : 1, sizeof(double));
            if (d) (void)nc_get_att_double(ncid, varid, name, d);
            free(d);
        }
        free(buf);
    }
}

static void
read_var(int ncid, int varid)
{
    char name[NC_MAX_NAME + 1];
    nc_type t;
    int ndims, natts, dimids[NC_MAX_VAR_DIMS], nofill, storage, endian, sh, df, lvl, f32;
    size_t shape[NC_MAX_VAR_DIMS], chunks[NC_MAX_VAR_DIMS], tsize = 0, nfilters = 0;
    size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    ptrdiff_t stride[NC_MAX_VAR_DIMS];
    double nelems = 1;
    if (nc_inq_var(ncid, varid, name, &t, &ndims, dimids, &natts))
        return;
    read_atts(ncid, varid, natts);
    (void)nc_inq_var_chunking(ncid, varid, &storage, chunks);
    (void)nc_inq_var_deflate(ncid, varid, &sh, &df, &lvl);
    (void)nc_inq_var_fletcher32(ncid, varid, &f32);
    (void)nc_inq_var_endian(ncid, varid, &endian);
    (void)nc_inq_var_fill(ncid, varid, &nofill, NULL);
    if (nc_inq_var_filter_ids(ncid, varid, &nfilters, NULL) == NC_NOERR && nfilters <= 16) {
        unsigned int ids[16];
        if (nc_inq_var_filter_ids(ncid, varid, &nfilters, ids) == NC_NOERR)
            for (size_t i = 0; i < nfilters; i++) {
                size_t np = 0;
                if (nc_inq_var_filter_info(ncid, varid, ids[i], &np, NULL) == NC_NOERR && np <= 64) {
                    unsigned int p[64];
                    (void)nc_inq_var_filter_info(ncid, varid, ids[i], &np, p);
                }
            }
    }
    if (nc_inq_type(ncid, t, NULL, &tsize) || tsize == 0)
        return;
    for (int i = 0; i < ndims; i++) {
        if (nc_inq_dimlen(ncid, dimids[i], &shape[i]))
            return;
        nelems *= (double)shape[i];
        start[i] = 0;
    }
    if (nelems * (double)tsize <= MAX_READ_BYTES) {
        size_t n = (size_t)nelems;
        void *bt = calloc(n ? n : 1, tsize);
        if (bt && nc_get_var(ncid, varid, bt) == NC_NOERR)
            (void)nc_reclaim_data(ncid, t, bt, n);
        free(bt);
        if (t != NC_CHAR && t <= NC_UINT64 && n) {
            double *b8 = calloc(n, sizeof(double));
            if (b8) (void)nc_get_var_double(ncid, varid, b8);
            free(b8);
        }
        return;
    }
    /* Large: one element at the far corner and a strided sample. */
    void *one = calloc(1, tsize > 8 ? tsize : 8);
    if (one == NULL)
        return;
    for (int i = 0; i < ndims; i++) {
        start[i] = shape[i] ? shape[i] - 1 : 0;
        count[i] = shape[i] ? 1 : 0;
    }
    if (nc_get_vara(ncid, varid, start, count, one) == NC_NOERR && nelems > 0)
        (void)nc_reclaim_data(ncid, t, one, 1);
    size_t total = 1;
    for (int i = 0; i < ndims; i++) {
        start[i] = 0;
        count[i] = shape[i] < 4 ? shape[i] : 4;
        stride[i] = (ptrdiff_t)(shape[i] / 4 ? shape[i] / 4 : 1);
        total *= count[i];
    }
    void *buf = calloc(total ? total : 1, tsize);
    if (buf && nc_get_vars(ncid, varid, start, count, stride, buf) == NC_NOERR)
        (void)nc_reclaim_data(ncid, t, buf, total);
    free(buf);
    free(one);
}

static void
walk(int ncid, int depth)
{
    int ndims = 0, nvars = 0, natts = 0, unlim, ntypes = 0, ngrps = 0;
    if (depth > MAX_DEPTH || nc_inq(ncid, &ndims, &nvars, &natts, &unlim))
        return;
    if (nc_inq_typeids(ncid, &ntypes, NULL) == NC_NOERR && ntypes > 0 && ntypes < 4096) {
        nc_type *types = malloc(sizeof(nc_type) * (size_t)ntypes);
        if (types && nc_inq_typeids(ncid, NULL, types) == NC_NOERR)
            for (int i = 0; i < ntypes; i++) {
                char name[NC_MAX_NAME + 1];
                size_t size, nfields;
                nc_type base;
                int cls;
                if (nc_inq_user_type(ncid, types[i], name, &size, &base, &nfields, &cls))
                    continue;
                for (size_t k = 0; k < nfields && k < 1024; k++) {
                    char fname[NC_MAX_NAME + 1];
                    if (cls == NC_COMPOUND) {
                        size_t off;
                        nc_type ft;
                        int fnd, fds[NC_MAX_VAR_DIMS];
                        (void)nc_inq_compound_field(ncid, types[i], (int)k, fname, &off, &ft, &fnd, NULL);
                        if (nc_inq_compound_fieldndims(ncid, types[i], (int)k, &fnd) == NC_NOERR &&
                            fnd >= 0 && fnd <= NC_MAX_VAR_DIMS)
                            (void)nc_inq_compound_fielddim_sizes(ncid, types[i], (int)k, fds);
                    } else if (cls == NC_ENUM) {
                        long long v = 0;
                        (void)nc_inq_enum_member(ncid, types[i], (int)k, fname, &v);
                    }
                }
            }
        free(types);
    }
    int dimids[NC_MAX_DIMS];
    if (ndims > 0 && ndims <= NC_MAX_DIMS && nc_inq_dimids(ncid, &ndims, dimids, 0) == NC_NOERR)
        for (int i = 0; i < ndims; i++) {
            char name[NC_MAX_NAME + 1];
            size_t len;
            (void)nc_inq_dim(ncid, dimids[i], name, &len);
        }
    read_atts(ncid, NC_GLOBAL, natts);
    for (int v = 0; v < nvars; v++)
        read_var(ncid, v);
    if (nc_inq_grps(ncid, &ngrps, NULL) == NC_NOERR && ngrps > 0 && ngrps < 4096) {
        int *grps = malloc(sizeof(int) * (size_t)ngrps);
        if (grps && nc_inq_grps(ncid, NULL, grps) == NC_NOERR)
            for (int i = 0; i < ngrps; i++)
                walk(grps[i], depth + 1);
        free(grps);
    }
}

/* The input as a file, for the path-based open (one per process). */
static const char *
as_file(const uint8_t *data, size_t size)
{
    static char path[64];
    FILE *f;
    if (path[0] == '\0')
        snprintf(path, sizeof path, "/tmp/fuzz_open_nc4_%ld.nc", (long)getpid());
    if ((f = fopen(path, "wb")) == NULL)
        return NULL;
    if (fwrite(data, 1, size, f) != size) {
        fclose(f);
        return NULL;
    }
    return fclose(f) == 0 ? path : NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int ncid;
    const char *path;
    /* nc_open_mem may keep the pointer while open; give it its own copy. */
    void *copy = malloc(size ? size : 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    if (nc_open_mem("fuzz.nc", NC_NOWRITE, size, copy, &ncid) == NC_NOERR) {
        walk(ncid, 0);
        (void)nc_close(ncid);
    }
    free(copy);
    if ((path = as_file(data, size)) != NULL) {
        setenv("NETCDF_HDF5_NATIVE_OPEN", "1", 1);
        if (nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR) {
            walk(ncid, 0);
            (void)nc_close(ncid);
        }
        unlink(path);
    }
    return 0;
}
