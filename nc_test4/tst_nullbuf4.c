/* tst_nullbuf4: a NULL data buffer for a non-empty selection of a netCDF-4
 * variable is NC_EHDFERR for every get and put form -- strided ones
 * included -- as upstream returns it (HDF5 refuses the buffer), after the
 * coordinate checks; an empty selection is NC_NOERR; nothing is written. */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>
#include "nctst.h"

#define FILE_NAME "tst_nullbuf4.nc"

static void
check_var(int ncid, int v, const char *what)
{
    size_t start[2] = {0, 0}, count[2] = {2, 2}, zero[2] = {0, 2}, bad[2] = {9, 0};
    ptrdiff_t stride[2] = {2, 2};
    int got[16];

    EXPECT(nc_get_vara_int(ncid, v, start, count, NULL), NC_EHDFERR);
    EXPECT(nc_get_vars_int(ncid, v, start, count, stride, NULL), NC_EHDFERR);
#ifndef NCT_REFERENCE_BUILD /* the reference converts into the NULL buffer: a crash */
    EXPECT(nc_get_vars_double(ncid, v, start, count, stride, NULL), NC_EHDFERR);
    EXPECT(nc_put_vars_short(ncid, v, start, count, stride, NULL), NC_EHDFERR);
#endif
    EXPECT(nc_get_vars(ncid, v, start, count, stride, NULL), NC_EHDFERR);
    EXPECT(nc_get_var1_int(ncid, v, start, NULL), NC_EHDFERR);
    EXPECT(nc_get_var_int(ncid, v, NULL), NC_EHDFERR);
    EXPECT(nc_put_vara_int(ncid, v, start, count, NULL), NC_EHDFERR);
    EXPECT(nc_put_vars_int(ncid, v, start, count, stride, NULL), NC_EHDFERR);
    EXPECT(nc_put_var1_int(ncid, v, start, NULL), NC_EHDFERR);
    /* Empty selections read and write nothing. */
    EXPECT(nc_get_vars_int(ncid, v, start, zero, stride, NULL), NC_NOERR);
    EXPECT(nc_put_vars_int(ncid, v, start, zero, stride, NULL), NC_NOERR);
    /* Coordinates are checked first. */
    EXPECT(nc_get_vars_int(ncid, v, bad, count, stride, NULL), NC_EINVALCOORDS);
    EXPECT(nc_put_vars_int(ncid, v, bad, count, stride, NULL), NC_EINVALCOORDS);
    /* The data is untouched. */
    OK(nc_get_var_int(ncid, v, got));
    for (int i = 0; i < 16; i++)
        CHECK(got[i] == i, "%s: value %d is %d", what, i, got[i]);
}

int
main(void)
{
    int ncid, d[2], v, w;
    size_t ch[2] = {2, 2};
    int data[16];

    for (int i = 0; i < 16; i++)
        data[i] = i;
    OK(nc_create(FILE_NAME, NC_NETCDF4 | NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "y", 4, &d[0]));
    OK(nc_def_dim(ncid, "x", 4, &d[1]));
    OK(nc_def_var(ncid, "contig", NC_INT, 2, d, &v));
    OK(nc_def_var_chunking(ncid, v, NC_CONTIGUOUS, NULL));
    OK(nc_def_var(ncid, "chunked", NC_INT, 2, d, &w));
    OK(nc_def_var_chunking(ncid, w, NC_CHUNKED, ch));
    OK(nc_enddef(ncid));
    OK(nc_put_var_int(ncid, v, data));
    OK(nc_put_var_int(ncid, w, data));
    check_var(ncid, v, "contiguous, open for writing");
    check_var(ncid, w, "chunked, open for writing");
    OK(nc_close(ncid));
    OK(nc_open(FILE_NAME, NC_WRITE, &ncid));
    check_var(ncid, v, "contiguous, reopened");
    check_var(ncid, w, "chunked, reopened");
    OK(nc_close(ncid));
    remove(FILE_NAME);
    return nct_summary("tst_nullbuf4");
}
