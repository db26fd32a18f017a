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
int ncz_rename_var_keys(NC4_file *f, NC4_var *var, const char *newname);
int ncz_rename_grp_keys(NC4_file *f, NC4_grp *g, const char *newname);

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

/* The table, as the registry entry reads it (zformat.c); the model answers
 * what is not listed (nc4model.h). */
const NC_Dispatch *NCZ_dispatch_table = &(const NC_Dispatch){
    .model = NC_FORMATX_NCZARR,
    NC4_MODEL_SLOTS,
    .create = NCZ_create,
    .open = NCZ_open,
    .sync = NCZ_sync,
    .get_vara = NCZ_get_vara,
    .put_vara = NCZ_put_vara,
    .get_vars = NCZ_get_vars,
    .put_vars = NCZ_put_vars,
    .set_var_chunk_cache = NCZ_set_var_chunk_cache,
    .inq_filter_avail = NCZ_inq_filter_avail,
    /* The model's, with the _Codecs attribute and the moving of stored keys. */
    .inq_att = NCZ_inq_att,
    .get_att = NCZ_get_att,
    .rename_var = NCZ_rename_var,
    .rename_grp = NCZ_rename_grp,
    /* User-defined types cannot be defined (inquiries find none). */
    .def_compound = NC_NOTNC4_def_compound,
    .insert_compound = NC_NOTNC4_insert_compound,
    .insert_array_compound = NC_NOTNC4_insert_array_compound,
    .def_vlen = NC_NOTNC4_def_vlen,
    .put_vlen_element = NC_NOTNC4_put_vlen_element,
    .def_enum = NC_NOTNC4_def_enum,
    .insert_enum = NC_NOTNC4_insert_enum,
    .def_opaque = NC_NOTNC4_def_opaque,
};
