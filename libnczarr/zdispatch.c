/* zdispatch.c: the dispatch table of Zarr/NCZarr stores (NC_FORMATX_NCZARR).
 *
 * Metadata slots go to the shared model (libsrc4) as libhdf5's table does;
 * file slots to zfile.c; data slots to the data path (ncz_var_get/put).
 * User-defined types are refused with NC_ENOTNC4, as upstream's NCZarr. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "ncdispatch.h"
#include "zmeta.h"

int NCZ_create(const char *, int, size_t, int, size_t *, void *, const NC_Dispatch *, int);
int NCZ_open(const char *, int, int, size_t *, void *, const NC_Dispatch *, int);
int NCZ_sync(int);
int NCZ_abort(int);
int NCZ_close(int, void *);
int ncz_rename_var_keys(NC4_file *f, NC4_var *var, const char *newname);
int ncz_rename_grp_keys(NC4_file *f, NC4_grp *g, const char *newname);

/* nc_sync: data and metadata out (zfile.c), then whatever the store needs
 * to make them durable (a zip archive is written out). */
static int
sync_durable(int ncid)
{
    NC4_file *f;
    int stat = NCZ_sync(ncid);
    if (stat || (stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    NCZ_map *map = ncz_file(f) ? ncz_file(f)->map : NULL;
    if (!f->readonly && map && map->ops->sync)
        stat = map->ops->sync(map);
    return stat;
}

/* Data access: the define-mode rules of netCDF-4, then the data path. */
static int
data_access(int ncid, int varid, int write, NC4_file **fp, NC4_var **vp)
{
    NC4_file *f;
    NC4_var *var;
    int stat;
    if ((stat = nc4_find_var(ncid, varid, &f, NULL, &var)))
        return stat;
    if (write && f->readonly)
        return NC_EPERM;
    if ((stat = nc4_data_define(f, var)))
        return stat;
    *fp = f;
    *vp = var;
    return NC_NOERR;
}

static int
NCZ_get_vars(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
             void *value, nc_type memtype)
{
    NC4_file *f;
    NC4_var *var;
    int stat = data_access(ncid, varid, 0, &f, &var);
    if (stat)
        return stat;
    if (memtype >= NC_FIRSTUSERTYPEID)
        return NC_EBADTYPE;
    return ncz_var_get(f, var, start, count, stride, memtype, value);
}

static int
NCZ_get_vara(int ncid, int varid, const size_t *start, const size_t *count, void *value,
             nc_type memtype)
{
    return NCZ_get_vars(ncid, varid, start, count, NULL, value, memtype);
}

static int
NCZ_put_vars(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
             const void *value, nc_type memtype)
{
    NC4_file *f;
    NC4_var *var;
    int stat = data_access(ncid, varid, 1, &f, &var);
    if (stat)
        return stat;
    if (memtype >= NC_FIRSTUSERTYPEID)
        return NC_EBADTYPE;
    return ncz_var_put(f, var, start, count, stride, memtype, value);
}

static int
NCZ_put_vara(int ncid, int varid, const size_t *start, const size_t *count, const void *value,
             nc_type memtype)
{
    return NCZ_put_vars(ncid, varid, start, count, NULL, value, memtype);
}

static int
NCZ_rename_var(int ncid, int varid, const char *name)
{
    NC4_file *f;
    NC4_var *var;
    int stat;
    if ((stat = nc4_find_var(ncid, varid, &f, NULL, &var)))
        return stat;
    if (f->readonly)
        return NC_EPERM;
    /* Stored arrays move their objects to the new key at once. */
    if (var->created && name && ncz_var(var)) {
        char *old = strdup(var->hdr.name);
        if (old == NULL)
            return NC_ENOMEM;
        if ((stat = NC4_rename_var(ncid, varid, name))) {
            free(old);
            return stat;
        }
        if (strcmp(old, var->hdr.name) != 0 && (stat = ncz_rename_var_keys(f, var, var->hdr.name))) {
            free(old);
            return stat;
        }
        free(old);
        ncz_var(var)->meta_dirty = 1;
        f->dirty = 1;
        return NC_NOERR;
    }
    return NC4_rename_var(ncid, varid, name);
}

static int
NCZ_rename_grp(int ncid, const char *name)
{
    NC4_file *f;
    NC4_grp *g;
    int stat;
    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (f->readonly)
        return NC_EPERM;
    if ((stat = NC4_rename_grp(ncid, name)))
        return stat;
    if (g->created && g->fmt)
        stat = ncz_rename_grp_keys(f, g, g->hdr.name);
    /* Dimension references name the group: every array is rewritten. */
    for (size_t i = 0; i < f->ngrps; i++)
        for (size_t j = 0; j < f->grps[i]->vars.n; j++) {
            NC4_var *v = (NC4_var *)f->grps[i]->vars.items[j];
            if (v->fmt)
                ncz_var(v)->meta_dirty = 1;
        }
    f->dirty = 1;
    return stat;
}

static int
NCZ_set_var_chunk_cache(int ncid, int varid, size_t size, size_t nelems, float preemption)
{
    NC4_file *f;
    NC4_var *var;
    int stat;
    if ((stat = NC4_set_var_chunk_cache(ncid, varid, size, nelems, preemption)))
        return stat;
    if ((stat = nc4_find_var(ncid, varid, &f, NULL, &var)))
        return stat;
    if (var->fmt == NULL)
        return NC_NOERR; /* takes the settings when created */
    return ncz_var_set_cache(f, var, size, nelems, preemption);
}

/* The _Codecs virtual attribute of an array: its codec chain as Zarr JSON
 * text (v2: filters then compressor), as upstream's NCZarr answers it. */
static int
codecs_text(int ncid, int varid, char **textp)
{
    NC4_file *f;
    NC4_var *var;
    json_object *a = NULL, *b = NULL, *arr;
    int stat;
    *textp = NULL;
    if ((stat = nc4_find_var(ncid, varid, &f, NULL, &var)))
        return stat;
    if (var->fmt == NULL)
        return NC_ENOTATT; /* not settled until enddef */
    if (ncz_file(f)->zarr_format == 3) {
        if ((stat = ncz_codecs_to_json_v3(f, var, &a)))
            return stat;
        arr = a;
    } else {
        if ((stat = ncz_codecs_to_json_v2(f, var, &a, &b)))
            return stat;
        arr = a ? a : json_object_new_array();
        if (arr && b && json_object_array_add(arr, json_object_get(b)))
            stat = NC_ENOMEM;
        json_object_put(b);
    }
    if (arr == NULL || json_object_array_length(arr) == 0)
        stat = stat ? stat : NC_ENOTATT;
    else if ((*textp = strdup(ncz_json_text(arr))) == NULL)
        stat = NC_ENOMEM;
    json_object_put(arr);
    return stat;
}

static int
NCZ_inq_att(int ncid, int varid, const char *name, nc_type *xtypep, size_t *lenp)
{
    if (varid != NC_GLOBAL && name && strcmp(name, "_Codecs") == 0) {
        char *t;
        int stat = codecs_text(ncid, varid, &t);
        if (stat)
            return stat;
        if (xtypep)
            *xtypep = NC_CHAR;
        if (lenp)
            *lenp = strlen(t);
        free(t);
        return NC_NOERR;
    }
    return NC4_inq_att(ncid, varid, name, xtypep, lenp);
}

static int
NCZ_get_att(int ncid, int varid, const char *name, void *value, nc_type memtype)
{
    if (varid != NC_GLOBAL && name && strcmp(name, "_Codecs") == 0) {
        char *t;
        int stat = codecs_text(ncid, varid, &t);
        if (stat)
            return stat;
        if (memtype != NC_NAT && memtype != NC_CHAR)
            stat = NC_ECHAR;
        else if (value)
            memcpy(value, t, strlen(t));
        free(t);
        return stat;
    }
    return NC4_get_att(ncid, varid, name, value, memtype);
}

static int
NCZ_inq_filter_avail(int ncid, unsigned int id)
{
    int stat;
    if ((stat = nc4_find_grp(ncid, NULL, NULL)))
        return stat;
    return ncf_filter_avail(id);
}

static const NC_Dispatch NCZ_table = {
    .model = NC_FORMATX_NCZARR,
    .dispatch_version = NC_DISPATCH_VERSION,
    .create = NCZ_create,
    .open = NCZ_open,
    .redef = NC4_redef,
    ._enddef = NC4__enddef,
    .sync = sync_durable,
    .abort = NCZ_abort,
    .close = NCZ_close,
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
    .inq_att = NCZ_inq_att,
    .inq_attid = NC4_inq_attid,
    .inq_attname = NC4_inq_attname,
    .rename_att = NC4_rename_att,
    .del_att = NC4_del_att,
    .get_att = NCZ_get_att,
    .put_att = NC4_put_att,
    .def_var = NC4_def_var,
    .inq_varid = NC4_inq_varid,
    .rename_var = NCZ_rename_var,
    .get_vara = NCZ_get_vara,
    .put_vara = NCZ_put_vara,
    .get_vars = NCZ_get_vars,
    .put_vars = NCZ_put_vars,
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
    .rename_grp = NCZ_rename_grp,
    .inq_user_type = NC4_inq_user_type,
    .inq_typeid = NC4_inq_typeid,
    .def_compound = NC_NOTNC4_def_compound,
    .insert_compound = NC_NOTNC4_insert_compound,
    .insert_array_compound = NC_NOTNC4_insert_array_compound,
    .inq_compound_field = NC4_inq_compound_field,
    .inq_compound_fieldindex = NC4_inq_compound_fieldindex,
    .def_vlen = NC_NOTNC4_def_vlen,
    .put_vlen_element = NC_NOTNC4_put_vlen_element,
    .get_vlen_element = NC4_get_vlen_element,
    .def_enum = NC_NOTNC4_def_enum,
    .insert_enum = NC_NOTNC4_insert_enum,
    .inq_enum_member = NC4_inq_enum_member,
    .inq_enum_ident = NC4_inq_enum_ident,
    .def_opaque = NC_NOTNC4_def_opaque,
    .def_var_deflate = NC4_def_var_deflate,
    .def_var_fletcher32 = NC4_def_var_fletcher32,
    .def_var_chunking = NC4_def_var_chunking,
    .def_var_endian = NC4_def_var_endian,
    .def_var_filter = NC4_def_var_filter,
    .set_var_chunk_cache = NCZ_set_var_chunk_cache,
    .get_var_chunk_cache = NC4_get_var_chunk_cache,
    .inq_var_filter_ids = NC4_inq_var_filter_ids,
    .inq_var_filter_info = NC4_inq_var_filter_info,
    .def_var_quantize = NC4_def_var_quantize,
    .inq_var_quantize = NC4_inq_var_quantize,
    .inq_filter_avail = NCZ_inq_filter_avail,
};

const NC_Dispatch *NCZ_dispatch_table = &NCZ_table;

int
NCZ_initialize(void)
{
    return NC_NOERR;
}

int
NCZ_finalize(void)
{
    return NC_NOERR;
}
