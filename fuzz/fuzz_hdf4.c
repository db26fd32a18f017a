/* fuzz_hdf4.c: libFuzzer target for the HDF4 reader (libhdf4/).
 *
 * Each input is written to a temporary file and opened (the HDF4 layer
 * reads files only); on success every attribute is read and every variable
 * of at most a million values is read whole, as its own type and as
 * double.  Any crash, leak or sanitizer report is a bug in the library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "netcdf.h"

static void
read_all(int ncid)
{
    int nvars = 0, natts = 0;
    nc_inq(ncid, NULL, &nvars, &natts, NULL);
    for (int v = -1; v < nvars; v++) {
        int nd = 0, dims[NC_MAX_VAR_DIMS], na = 0;
        size_t total = 1, len;
        if (v >= 0 && nc_inq_var(ncid, v, NULL, NULL, &nd, dims, &na))
            continue;
        if (v < 0)
            na = natts;
        for (int a = 0; a < na; a++) {
            char name[NC_MAX_NAME + 1];
            if (nc_inq_attname(ncid, v, a, name) || nc_inq_attlen(ncid, v, name, &len)
                || len > (1u << 20))
                continue;
            double *b = malloc(len * sizeof *b + 1);
            if (b) {
                (void)nc_get_att(ncid, v, name, b);
                free(b);
            }
        }
        if (v < 0)
            continue;
        for (int i = 0; i < nd; i++) {
            if (nc_inq_dimlen(ncid, dims[i], &len))
                len = 0;
            total = len && total <= (1u << 20) / len ? total * len : (1u << 20) + 1;
        }
        if (total > (1u << 20))
            continue;
        double *d = malloc(total * sizeof *d + 1);
        if (d) {
            (void)nc_get_var(ncid, v, d);
            (void)nc_get_var_double(ncid, v, d);
            free(d);
        }
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_hdf4_XXXXXX";
    int fd = mkstemp(path), ncid;
    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size && nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR) {
        read_all(ncid);
        nc_close(ncid);
    }
    close(fd);
    unlink(path);
    return 0;
}
