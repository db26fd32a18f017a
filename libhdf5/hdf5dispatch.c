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

static void
mark_written(int ncid, int varid, int stat)
{
    NC4_var *var;
    if ((stat == NC_NOERR || stat == NC_ERANGE) && !nc4_find_var(ncid, varid, NULL, NULL, &var))
        var->fill_fixed = 1;
}

static int
put_vara(int ncid, int varid, const size_t *start, const size_t *count, const void *value,
         nc_type memtype)
{
    int stat = NC4_HDF5_put_vara(ncid, varid, start, count, value, memtype);
    mark_written(ncid, varid, stat);
    return stat;
}

static int
put_vars(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
         const void *value, nc_type memtype)
{
    int stat = NC4_HDF5_put_vars(ncid, varid, start, count, stride, value, memtype);
    mark_written(ncid, varid, stat);
    return stat;
}

static const NC_Dispatch NC4_HDF5_table = {
    .model = NC_FORMATX_NC_HDF5,
    .dispatch_version = NC_DISPATCH_VERSION,
    .create = NC4_HDF5_create,
    .open = open_file,
    .redef = NC4_redef,
    ._enddef = NC4__enddef,
    .sync = NC4_HDF5_sync,
    .abort = NC4_HDF5_abort,
    .close = NC4_HDF5_close,
    .set_fill = NC4_set_fill,
    .inq_format = NC4_inq_format,
    .inq_format_extended = NC4_inq_format_extended,
    .inq = NC4_inq,
    .inq_type = NC4_inq_type,
    .def_dim = NC4_def_dim,
    .inq_dimid = NC4_inq_dimid,
    .inq_dim = NC4_inq_dim,
    .inq_unlimdim = NC4_inq_unlimdim,
    .rename_dim = NC4_rename_dim,
    .inq_att = NC4_inq_att,
    .inq_attid = NC4_inq_attid,
    .inq_attname = NC4_inq_attname,
    .rename_att = NC4_rename_att,
    .del_att = NC4_del_att,
    .get_att = NC4_get_att,
    .put_att = NC4_put_att,
    .def_var = NC4_def_var,
    .inq_varid = NC4_inq_varid,
    .rename_var = NC4_rename_var,
    .get_vara = NC4_HDF5_get_vara,
    .put_vara = put_vara,
    .get_vars = NC4_HDF5_get_vars,
    .put_vars = put_vars,
    .get_varm = NCDEFAULT_get_varm,
    .put_varm = NCDEFAULT_put_varm,
    .inq_var_all = NC4_inq_var_all,
    .var_par_access = NC4_var_par_access,
    .def_var_fill = NC4_def_var_fill,
    .show_metadata = NC4_show_metadata,
    .inq_unlimdims = NC4_inq_unlimdims,
    .inq_ncid = NC4_inq_ncid,
    .inq_grps = NC4_inq_grps,
    .inq_grpname = NC4_inq_grpname,
    .inq_grpname_full = NC4_inq_grpname_full,
    .inq_grp_parent = NC4_inq_grp_parent,
    .inq_grp_full_ncid = NC4_inq_grp_full_ncid,
    .inq_varids = NC4_inq_varids,
    .inq_dimids = NC4_inq_dimids,
    .inq_typeids = NC4_inq_typeids,
    .inq_type_equal = NC4_inq_type_equal,
    .def_grp = NC4_def_grp,
    .rename_grp = NC4_rename_grp,
    .inq_user_type = NC4_inq_user_type,
    .inq_typeid = NC4_inq_typeid,
    .def_compound = NC4_def_compound,
    .insert_compound = NC4_insert_compound,
    .insert_array_compound = NC4_insert_array_compound,
    .inq_compound_field = NC4_inq_compound_field,
    .inq_compound_fieldindex = NC4_inq_compound_fieldindex,
    .def_vlen = NC4_def_vlen,
    .put_vlen_element = NC4_put_vlen_element,
    .get_vlen_element = NC4_get_vlen_element,
    .def_enum = NC4_def_enum,
    .insert_enum = NC4_insert_enum,
    .inq_enum_member = NC4_inq_enum_member,
    .inq_enum_ident = NC4_inq_enum_ident,
    .def_opaque = NC4_def_opaque,
    .def_var_deflate = NC4_def_var_deflate,
    .def_var_fletcher32 = NC4_def_var_fletcher32,
    .def_var_chunking = NC4_def_var_chunking,
    .def_var_endian = NC4_def_var_endian,
    .def_var_filter = NC4_def_var_filter,
    .set_var_chunk_cache = NC4_HDF5_set_var_chunk_cache,
    .get_var_chunk_cache = NC4_get_var_chunk_cache,
    .inq_var_filter_ids = NC4_inq_var_filter_ids,
    .inq_var_filter_info = NC4_inq_var_filter_info,
    .def_var_quantize = NC4_def_var_quantize,
    .inq_var_quantize = NC4_inq_var_quantize,
    .inq_filter_avail = NC4_HDF5_inq_filter_avail,
};

const NC_Dispatch *NC4_HDF5_dispatch_table = &NC4_HDF5_table;

int
NC4_HDF5_initialize(void)
{
    /* Called under libdispatch's global lock, so not under ours (the HDF5
     * paths take ours and then libdispatch's): H5open is thread-safe in
     * Debian's build by itself. */
    return H5open() < 0 ? NC_EHDFERR : NC_NOERR;
}

int
NC4_HDF5_finalize(void)
{
    return NC_NOERR;
}
