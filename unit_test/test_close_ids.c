/* test_close_ids.c: which ids the file-ending calls take, as upstream.
 *
 * nc_close and nc_close_memio refuse a subgroup's id with NC_EBADGRPID and
 * leave the file open; nc_abort takes any group of the file.  nc_create_mem
 * refuses NC_DISKLESS (an image in memory is not a diskless file) with
 * NC_EDISKLESS for every format.  Exit 77 without netCDF-4. */
#include <stdio.h>
#include <unistd.h>
#include "netcdf.h"
#include "netcdf_mem.h"
#include "netcdf_meta.h"

static int passed, failed;
#define CHECK(cond) do { if (cond) passed++; else { failed++; \
    fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)

int
main(void)
{
    int ncid;
    CHECK(nc_create_mem("m.nc", NC_DISKLESS, 0, &ncid) == NC_EDISKLESS);
#if !NC_HAS_HDF5   /* NC_NETCDF4 files need HDF5 (NCZarr alone cannot create them) */
    printf("%d passed, %d failed (netCDF-4 not built: the rest skipped)\n", passed, failed);
    return failed ? 1 : 77;
#else
    int grp, natts, stat;
    char path[64];
    CHECK(nc_create_mem("m.nc", NC_DISKLESS | NC_NETCDF4, 0, &ncid) == NC_EDISKLESS);
    snprintf(path, sizeof path, "test_close_ids_%ld.nc", (long)getpid());
    CHECK(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid) == NC_NOERR);
    CHECK(nc_def_grp(ncid, "g", &grp) == NC_NOERR);
    CHECK(nc_close(grp) == NC_EBADGRPID);
    CHECK(nc_inq_natts(ncid, &natts) == NC_NOERR);   /* still open */
    NC_memio mem;
    CHECK(nc_close_memio(grp, &mem) == NC_EBADGRPID);
    CHECK(nc_inq_natts(ncid, &natts) == NC_NOERR);
    CHECK(nc_abort(grp) == NC_NOERR);                /* any group aborts */
    stat = nc_inq_natts(ncid, &natts);
    CHECK(stat == NC_EBADID);
    CHECK(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid) == NC_NOERR);
    CHECK(nc_close(ncid) == NC_NOERR);
    remove(path);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
#endif
}
