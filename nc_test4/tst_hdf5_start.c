/* tst_hdf5_start.c: HDF5 starts only when a netCDF-4 file is used.
 * Creating, writing, opening and reading a classic file (and an NCZarr
 * directory where built) leave HDF5 not started; creating a netCDF-4 file
 * starts it, and that file works.  HDF5's "started" flag (H5_init_g, a
 * symbol of the HDF5 1.10 shared library) is looked up at run time; without
 * it the test is skipped (77). */
#include "nctst.h"

#include <dlfcn.h>
#include <netcdf_meta.h>
#include <stdlib.h>

static const unsigned char *started;

/* A file of kind cmode at path: one int variable of 4 values, written,
 * read back after a reopen. */
static void
roundtrip(const char *path, int cmode)
{
    int ncid, dimid, varid, in[4] = {0}, out[4] = {7, -1, 42, 3};
    OK(nc_create(path, cmode | NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 4, &dimid));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    OK(nc_enddef(ncid));
    OK(nc_put_var_int(ncid, varid, out));
    OK(nc_close(ncid));
    OK(nc_open(path, NC_NOWRITE, &ncid));
    OK(nc_get_var_int(ncid, varid, in));
    OK(nc_close(ncid));
    for (int i = 0; i < 4; i++)
        CHECK(in[i] == out[i], "%s: value %d is %d, not %d", path, i, in[i], out[i]);
}

int
main(void)
{
    started = dlsym(RTLD_DEFAULT, "H5_init_g");
    if (started == NULL) {
        printf("tst_hdf5_start: HDF5's H5_init_g not found: skipped\n");
        return 77;
    }
    CHECK(!*started, "HDF5 started before any netCDF call");
    roundtrip("tst_hdf5_start.nc", NC_64BIT_OFFSET);
    CHECK(!*started, "HDF5 started by a classic file");
#if NC_HAS_NCZARR
    roundtrip("file://tst_hdf5_start.zarr#mode=nczarr,file", 0);
    CHECK(!*started, "HDF5 started by an NCZarr directory");
#endif
    roundtrip("tst_hdf5_start4.nc", NC_NETCDF4);
    CHECK(*started, "HDF5 not started by a netCDF-4 file");
    return nct_summary("tst_hdf5_start");
}
