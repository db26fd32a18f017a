/* hdf5dispatch.c: the dispatch table of netCDF-4 files on HDF5.
 *
 * Metadata slots go to the shared model (libsrc4), which answers inquiries
 * and records definitions; what touches the file goes to this layer. */
#include "config.h"
#include "hdf5int.h"

/* The model's marks for the _FillValue rule (nc4model.h, remakes_fill): the
 * variables of an opened file were read from it; a variable written to
 * keeps its fill value. */
static int
open_file(const char *path, int mode, int basepe, size_t *chunksizehintp, void *parameters,
          const NC_Dispatch *table, int ncid)
{
    NC4_file *f;
    int stat = NC4_HDF5_open(path, mode, basepe, chunksizehintp, parameters, table, ncid);
    if (stat || nc4_find_grp(ncid, &f, NULL))
        return stat;
    for (size_t i = 0; i < f->ngrps; i++) {
        NC4_grp *g = f->grps[i];
        for (size_t j = 0; j < g->vars.n; j++)
            ((NC4_var *)g->vars.items[j])->from_file = 1;
    }
    return NC_NOERR;
}

/* A write that went through fixes the fill value; vara is vars without a
 * stride. */
static int
put_vars(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
         const void *value, nc_type memtype)
{
    NC4_var *var;
    int stat = NC4_HDF5_put_vars(ncid, varid, start, count, stride, value, memtype);
    if ((stat == NC_NOERR || stat == NC_ERANGE) && !nc4_find_var(ncid, varid, NULL, NULL, &var))
        var->fill_fixed = 1;
    return stat;
}

static int
put_vara(int ncid, int varid, const size_t *start, const size_t *count, const void *value,
         nc_type memtype)
{
    return put_vars(ncid, varid, start, count, NULL, value, memtype);
}

/* The table, as the registry entry reads it (hdf5format.c); the model
 * answers what is not listed (nc4model.h). */
#if NC_ENABLE_PARALLEL4
/* nc_var_par_access replaces the model's slot (NC_ENOPAR) below. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#endif
const NC_Dispatch *NC4_HDF5_dispatch_table = &(const NC_Dispatch){
    .model = NC_FORMATX_NC_HDF5,
    NC4_MODEL_SLOTS, NC4_MODEL_USER_TYPE_SLOTS,
    .create = NC4_HDF5_create,
    .open = open_file,
    .sync = NC4_HDF5_sync,
    .get_vara = NC4_HDF5_get_vara,
    .put_vara = put_vara,
    .get_vars = NC4_HDF5_get_vars,
    .put_vars = put_vars,
    .set_var_chunk_cache = NC4_HDF5_set_var_chunk_cache,
    .inq_filter_avail = NC4_HDF5_inq_filter_avail,
    /* The model's, unwrapped (Zarr wraps them: not in NC4_MODEL_SLOTS). */
    .inq_att = NC4_inq_att,
    .get_att = NC4_get_att,
    .rename_var = NC4_rename_var,
    .rename_grp = NC4_rename_grp,
#if NC_ENABLE_PARALLEL4
    .var_par_access = NC4_HDF5_var_par_access,
#endif
};
#if NC_ENABLE_PARALLEL4
#pragma GCC diagnostic pop
#endif

/* HDF5 starts itself at its first call, which is made under our lock
 * (hdf5lock.c): a process that never opens a netCDF-4 file does not pay
 * its start (about 0.7 ms) nor its shutdown.  What must come before that
 * start is asking HDF5 not to register its own exit handler. */
int
NC4_HDF5_initialize(void)
{
    nc4h5_own_shutdown();
    return NC_NOERR;
}
