/* dcopy.c: nc_copy_var: copy a variable's definition, attributes and data
 * from one open file to another (classic model types).
 *
 * The output file must be in define mode and already have dimensions of the
 * same names; as upstream, the call ends define mode to write the data.
 * Data move one outermost slice at a time, so memory stays bounded by the
 * size of one slice.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "ncapi.h"
#include "ncvario.h"

int
nc_copy_var(int ncid_in, int varid_in, int ncid_out)
{
    char name[NC_MAX_NAME + 1], dname[NC_MAX_NAME + 1];
    int dimids_in[NC_MAX_VAR_DIMS], dimids_out[NC_MAX_VAR_DIMS];
    size_t shape[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS] = {0}, count[NC_MAX_VAR_DIMS];
    int ndims, natts, varid_out, stat;
    nc_type xtype;
    size_t slice = 1, elsize;
    void *buf = NULL;

    if ((stat = nc_inq_var(ncid_in, varid_in, name, &xtype, &ndims, dimids_in, &natts)))
        return stat;
    if (xtype > NC_MAX_ATOMIC_TYPE)
        return NC_ENOTNC4;
    for (int i = 0; i < ndims; i++) {
        if ((stat = nc_inq_dim(ncid_in, dimids_in[i], dname, &shape[i])))
            return stat;
        if ((stat = nc_inq_dimid(ncid_out, dname, &dimids_out[i])))
            return stat;
    }
    if ((stat = nc_def_var(ncid_out, name, xtype, ndims, dimids_out, &varid_out)))
        return stat;
    for (int a = 0; a < natts; a++) {
        char aname[NC_MAX_NAME + 1];
        if ((stat = nc_inq_attname(ncid_in, varid_in, a, aname)))
            return stat;
        if ((stat = nc_copy_att(ncid_in, varid_in, aname, ncid_out, varid_out)))
            return stat;
    }
    stat = nc_enddef(ncid_out);
    if (stat != NC_NOERR && stat != NC_ENOTINDEFINE)
        return stat;

    elsize = NC_atomictypelen(xtype);
    for (int i = 1; i < ndims; i++)
        slice *= shape[i];
    if (ndims == 0 || shape[0] == 0 || slice == 0) {
        if (ndims > 0)
            return NC_NOERR;  /* nothing stored */
    }
    if ((buf = malloc(slice * elsize > 0 ? slice * elsize : 1)) == NULL)
        return NC_ENOMEM;
    if (ndims == 0) {
        if ((stat = NC_get_vara(ncid_in, varid_in, NULL, NULL, buf, xtype)) == NC_NOERR)
            stat = NC_put_vara(ncid_out, varid_out, NC_zeros, NC_ones, buf, xtype);
        goto done;
    }
    count[0] = 1;
    for (int i = 1; i < ndims; i++)
        count[i] = shape[i];
    for (size_t r = 0; r < shape[0]; r++) {
        start[0] = r;
        if ((stat = NC_get_vara(ncid_in, varid_in, start, count, buf, xtype)))
            break;
        if ((stat = NC_put_vara(ncid_out, varid_out, start, count, buf, xtype)))
            break;
    }
done:
    if (xtype == NC_STRING && ndims == 0)
        nc_free_string(1, buf);
    free(buf);
    return stat;
}
