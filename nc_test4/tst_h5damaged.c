/* tst_h5damaged: a dataset whose object header is damaged (a checksum
 * mismatch) makes the open fail with NC_EHDFERR, by either reader, as
 * upstream's; it was silently left out of the file. */
#include <stdio.h>
#include <stdlib.h>
#include <hdf5.h>
#include <netcdf.h>
#include "nctst.h"

static const char *path = "tst_h5damaged.nc";

int
main(void)
{
    int ncid, dim, v, w, s;
    haddr_t addr = HADDR_UNDEF;
    H5O_info_t oi;
    hid_t fid;
    FILE *f;
    unsigned char byte;

    if (nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid) || nc_def_dim(ncid, "x", 4, &dim) ||
        nc_def_var(ncid, "v", NC_INT, 1, &dim, &v) || nc_def_var(ncid, "w", NC_INT, 1, &dim, &w) ||
        nc_close(ncid)) {
        printf("cannot write %s\n", path);
        return 1;
    }
    /* The intact file has both variables. */
    OK(nc_open(path, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "w", &w));
    OK(nc_close(ncid));
    if ((fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) >= 0) {
        if (H5Oget_info_by_name(fid, "w", &oi, H5P_DEFAULT) >= 0)
            addr = oi.addr;
        H5Fclose(fid);
    }
    CHECK(addr != HADDR_UNDEF, "address of w");
    /* One byte inside w's header (after "OHDR", version and flags). */
    if (addr != HADDR_UNDEF && (f = fopen(path, "r+b")) != NULL) {
        if (fseek(f, (long)addr + 8, SEEK_SET) == 0 && fread(&byte, 1, 1, f) == 1) {
            byte ^= 0x5a;
            fseek(f, (long)addr + 8, SEEK_SET);
            fwrite(&byte, 1, 1, f);
        }
        fclose(f);
    }
    for (int way = 0; way < 2; way++) {
        setenv("NETCDF_HDF5_NATIVE_OPEN", way ? "0" : "1", 1);
        s = nc_open(path, NC_NOWRITE, &ncid);
        CHECK(s == NC_EHDFERR, "%s open of a file with a damaged dataset header: %d (%s)",
              way ? "HDF5" : "native", s, nc_strerror(s));
        if (s == NC_NOERR) {
            int nvars = 0;
            nc_inq_nvars(ncid, &nvars);
            printf("  opened with %d variables\n", nvars);
            nc_close(ncid);
        }
    }
    remove(path);
    return nct_summary("tst_h5damaged");
}
