/* nc4att.c: attribute slots of the enhanced model (inquire, get with
 * conversion, put with conversion, rename, delete), the reserved names and
 * the virtual provenance attributes of the root group.
 *
 * Order of checks follows upstream's libhdf5/hdf5attr.c (nc4_put_att,
 * NC4_HDF5_del_att, NC4_HDF5_rename_att) and libsrc4/nc4attr.c
 * (nc4_get_att_ptrs).  A put that overflows the file type still stores the
 * converted values and returns NC_ERANGE, as upstream. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "nc4priv.h"
#include "ncdispatch.h"
#include "ncx.h"

/* Upstream's table of reserved attribute names (libsrc4/nc4internal.c);
 * every entry is read-only, so none may be put on a variable or on the
 * root group. */
static const struct { const char *name; int flags; } reserved[] = {
    {"CLASS", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"DIMENSION_LIST", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"NAME", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"REFERENCE_LIST", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"_ARRAY_DIMENSIONS", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"_Codecs", NC4_RES_READONLY | NC4_RES_NAMEONLY},
    {"_Format", NC4_RES_READONLY},
    {"_IsNetcdf4", NC4_RES_READONLY | NC4_RES_NAMEONLY},
    {"_NCProperties", NC4_RES_READONLY | NC4_RES_NAMEONLY | NC4_RES_HIDDEN},
    {"_Netcdf4Coordinates", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"_Netcdf4Dimid", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"_SuperblockVersion", NC4_RES_READONLY | NC4_RES_NAMEONLY},
    {"_nc3_strict", NC4_RES_READONLY},
    {"_nczarr_attr", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"_nczarr_group", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"_nczarr_array", NC4_RES_READONLY | NC4_RES_HIDDEN},
    {"_nczarr_superblock", NC4_RES_READONLY | NC4_RES_HIDDEN},
};

int
nc4_reserved_att_flags(const char *name)
{
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
        if (strcmp(reserved[i].name, name) == 0)
            return reserved[i].flags;
    return 0;
}

/* The attributes answered on NC_GLOBAL of any group without being stored
 * (_NCProperties, _IsNetcdf4, _SuperblockVersion; _Codecs answers nothing). */
static int
is_virtual(const char *name)
{
    return (nc4_reserved_att_flags(name) & NC4_RES_NAMEONLY) != 0;
}

/* Upstream's nc4_get_att_special: the memory type is ignored (it is always
 * called with NC_NAT), inq_attid is NC_EATTMETA. */
static int
get_virtual(NC4_file *f, const char *name, nc_type *xtypep, size_t *lenp, int *attnump,
            void *data)
{
    if (attnump)
        return NC_EATTMETA;
    if (strcmp(name, "_NCProperties") == 0) {
        size_t len;
        if (f->ncproperties == NULL)
            return NC_ENOTATT;
        len = strlen(f->ncproperties);
        if (xtypep)
            *xtypep = NC_CHAR;
        if (lenp)
            *lenp = len;
        if (data)
            memcpy(data, f->ncproperties, len + 1);
    } else if (strcmp(name, "_Codecs") == 0) {
        /* Upstream answers NC_NOERR and sets nothing (NCZarr's variable
         * attribute asked of a group). */
    } else {
        int v = strcmp(name, "_SuperblockVersion") == 0 ? f->superblock : f->is_netcdf4;
        if (xtypep)
            *xtypep = NC_INT;
        if (lenp)
            *lenp = 1;
        if (data)
            *(int *)data = v;
    }
    return NC_NOERR;
}

/* ---- looking attributes up ---------------------------------------------------------- */

/* Group, var and list for an attribute call, with upstream's order: the
 * ncid, then the varid, then the name (NC_EBADNAME for NULL, NC_EMAXNAME
 * for too long). */
static int
att_context(int ncid, int varid, const char *name, int use_name, NC4_file **fp,
            NC4_grp **gp, NC4_var **vp, NC4_index **lp)
{
    int stat;
    if ((stat = nc4_find_grp(ncid, fp, gp)))
        return stat;
    if ((stat = nc4_att_list(*gp, varid, lp, vp)))
        return stat;
    if (use_name) {
        char *norm = NULL;
        if (name == NULL)
            return NC_EBADNAME;
        /* Upstream normalizes the name here: invalid UTF-8 is NC_EBADNAME. */
        if ((stat = NC_normalize_name(name, &norm)))
            return NC_EBADNAME;
        free(norm);
        if (strlen(name) > NC_MAX_NAME)
            return NC_EMAXNAME;
    }
    return NC_NOERR;
}

static int
att_get(int ncid, int varid, const char *name, int attnum, int use_name, nc_type *xtypep,
        size_t *lenp, int *attnump, void *data, nc_type memtype)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4_index *list;
    NC4_att *att;
    int stat, range = 0;

    if ((stat = att_context(ncid, varid, name, use_name, &f, &g, &var, &list)))
        return stat;
    if (use_name && var == NULL && is_virtual(name))
        return get_virtual(f, name, xtypep, lenp, attnump, data);
    if (use_name)
        att = (NC4_att *)nc4_index_find(list, name);
    else
        att = (attnum >= 0 && (size_t)attnum < list->n) ? (NC4_att *)list->items[attnum] : NULL;
    if (att == NULL)
        return NC_ENOTATT;
    if (memtype == NC_NAT)
        memtype = att->xtype;
    if (data && att->len &&
        ((att->xtype == NC_CHAR && memtype != NC_CHAR) ||
         (att->xtype != NC_CHAR && memtype == NC_CHAR)))
        return NC_ECHAR;
    if (lenp)
        *lenp = att->len;
    if (xtypep)
        *xtypep = att->xtype;
    if (attnump)
        *attnump = att->hdr.id;
    if (data == NULL || att->len == 0)
        return NC_NOERR;
    if (nc4_type_size(f, memtype) == 0)
        return NC_EBADTYPE;
    if (memtype == att->xtype) {
        if ((stat = nc4_copy_values(f, att->xtype, att->data, data, att->len)))
            return stat;
        return NC_NOERR;
    }
    if (att->xtype > NC_MAX_ATOMIC_TYPE || memtype > NC_MAX_ATOMIC_TYPE)
        return NC_EBADTYPE;
    stat = ncx_convert(att->xtype, att->data, memtype, data, att->len);
    if (stat == NC_ERANGE) {
        range = 1;
        stat = NC_NOERR;
    }
    if (stat)
        return stat;
    /* The classic model does not range-check byte <-> ubyte. */
    if (range && f->classic_model && (att->xtype == NC_BYTE || att->xtype == NC_UBYTE) &&
        (memtype == NC_BYTE || memtype == NC_UBYTE))
        range = 0;
    return range ? NC_ERANGE : NC_NOERR;
}

int
NC4_inq_att(int ncid, int varid, const char *name, nc_type *xtypep, size_t *lenp)
{
    return att_get(ncid, varid, name, 0, 1, xtypep, lenp, NULL, NULL, NC_NAT);
}

int
NC4_inq_attid(int ncid, int varid, const char *name, int *attnump)
{
    return att_get(ncid, varid, name, 0, 1, NULL, NULL, attnump, NULL, NC_NAT);
}

int
NC4_inq_attname(int ncid, int varid, int attnum, char *name)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4_index *list;
    int stat;

    if ((stat = att_context(ncid, varid, NULL, 0, &f, &g, &var, &list)))
        return stat;
    if (attnum < 0 || (size_t)attnum >= list->n)
        return NC_ENOTATT;
    if (name)
        strcpy(name, list->items[attnum]->name);
    return NC_NOERR;
}

int
NC4_get_att(int ncid, int varid, const char *name, void *value, nc_type memtype)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4_index *list;
    int stat;

    /* The virtual attributes ignore the memory type, as upstream. */
    if ((stat = att_context(ncid, varid, name, 1, &f, &g, &var, &list)))
        return stat;
    if (var == NULL && is_virtual(name))
        return get_virtual(f, name, NULL, NULL, NULL, value);
    return att_get(ncid, varid, name, 0, 1, NULL, NULL, NULL, value, memtype);
}

/* ---- changing attributes ------------------------------------------------------------ */

/* Bytes an attribute takes for the classic-model "may not grow outside
 * define mode" rule (upstream's nc4typelen; unknown types count -1). */
static long long
classic_bytes(nc_type xtype, size_t len)
{
    size_t s = ncx_len(xtype);
    return s ? (long long)(len * s) : -(long long)len;
}

/* Record the stored name of an attribute going away, for the flush. */
static int
remember_deleted(NC4_grp *g, NC4_var *var, NC4_att *att)
{
    char ***names = var ? &var->deleted_atts : &g->deleted_atts;
    size_t *n = var ? &var->ndeleted_atts : &g->ndeleted_atts;
    char **a;
    if (att->hdr.stored_name == NULL)
        return NC_NOERR;
    if ((a = realloc(*names, (*n + 1) * sizeof(char *))) == NULL)
        return NC_ENOMEM;
    *names = a;
    a[(*n)++] = att->hdr.stored_name;
    att->hdr.stored_name = NULL;
    return NC_NOERR;
}

static void
mark_atts_dirty(NC4_file *f, NC4_grp *g, NC4_var *var)
{
    if (var)
        var->atts_dirty = 1;
    else
        g->atts_dirty = 1;
    f->dirty = 1;
}

/* Position of att in its list (attnum == position). */
static size_t
att_pos(const NC4_att *att)
{
    return (size_t)att->hdr.id;
}

int
nc4_del_att_by_name(NC4_grp *g, NC4_var *var, const char *name)
{
    NC4_file *f = g->file;
    NC4_index *list = var ? &var->atts : &g->atts;
    NC4_att *att = (NC4_att *)nc4_index_find(list, name);
    int stat;

    if (att == NULL)
        return NC_ENOTATT;
    if ((stat = remember_deleted(g, var, att)))
        return stat;
    nc4_index_remove(list, att_pos(att), 1);
    if (att->data) {
        nc4_reclaim_values(f, att->xtype, att->data, att->len);
        free(att->data);
    }
    if (att->fmt && f->ops && f->ops->free_fmt)
        f->ops->free_fmt(f, att->fmt);
    free(att->hdr.name);
    free(att->hdr.stored_name);
    free(att);
    mark_atts_dirty(f, g, var);
    /* Without its _FillValue a variable is back to the default fill. */
    if (var && strcmp(name, NC_FillValue) == 0 && var->fill_value) {
        nc4_reclaim_values(f, var->xtype, var->fill_value, 1);
        free(var->fill_value);
        var->fill_value = NULL;
        var->dirty = 1;
    }
    return NC_NOERR;
}

int
NC4_del_att(int ncid, int varid, const char *name)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4_index *list;
    int stat;

    if (name == NULL)
        return NC_EINVAL;
    if ((stat = nc4_find_grp_w(ncid, &f, &g)))
        return stat;
    if (!f->indef) {
        if (f->classic_model)
            return NC_ENOTINDEFINE;
        if ((stat = nc4_check_define(f)))
            return stat;
    }
    if ((stat = nc4_att_list(g, varid, &list, &var)))
        return stat;
    return nc4_del_att_by_name(g, var, name);
}

int
NC4_rename_att(int ncid, int varid, const char *name, const char *newname)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4_index *list;
    NC4_att *att;
    int stat;

    if (name == NULL || newname == NULL)
        return NC_EINVAL;
    if (strlen(newname) > NC_MAX_NAME)
        return NC_EMAXNAME;
    if ((stat = nc4_find_grp_w(ncid, &f, &g)))
        return stat;
    if ((stat = NC_check_name(newname)))
        return stat;
    if ((stat = nc4_att_list(g, varid, &list, &var)))
        return stat;
    if (nc4_index_find(list, newname))
        return NC_ENAMEINUSE;
    if ((att = (NC4_att *)nc4_index_find(list, name)) == NULL)
        return NC_ENOTATT;
    if (!f->indef && strlen(newname) > strlen(att->hdr.name) && f->classic_model)
        return NC_ENOTINDEFINE;
    /* In storage a rename is a delete of the old name and a new write. */
    if ((stat = remember_deleted(g, var, att)))
        return stat;
    if ((stat = nc4_index_rename(list, &att->hdr, newname)))
        return stat;
    att->dirty = 1;
    mark_atts_dirty(f, g, var);
    return NC_NOERR;
}

/* Convert or copy len values of memtype at data to a new buffer of xtype.
 * *range is set when some value did not fit. */
static int
convert_in(NC4_file *f, nc_type memtype, nc_type xtype, const void *data, size_t len,
           void **bufp, int *range)
{
    size_t size = nc4_type_size(f, xtype);
    void *buf;
    int stat;

    *bufp = NULL;
    if (memtype == xtype)
        return nc4_dup_values(f, xtype, data, len, bufp);
    /* Upstream reports a mismatch it does not convert (user types) this way. */
    if (memtype >= NC_STRING || xtype >= NC_STRING)
        return NC_EURL;
    if (size == 0 || (buf = malloc(len * size)) == NULL)
        return NC_ENOMEM;
    stat = ncx_convert(memtype, data, xtype, buf, len);
    if (stat == NC_ERANGE) {
        *range = 1;
        stat = NC_NOERR;
    }
    if (stat) {
        free(buf);
        return stat;
    }
    *bufp = buf;
    return NC_NOERR;
}

int
NC4_put_att(int ncid, int varid, const char *name, nc_type xtype, size_t len,
            const void *data, nc_type memtype)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4_index *list;
    NC4_att *att;
    void *copy = NULL, *fill = NULL;
    int stat, range = 0, flags;

    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if ((stat = nc4_att_list(g, varid, &list, &var)))
        return stat;
    if (len > (size_t)NC_MAX_INT)
        return NC_EINVAL;
    if (name == NULL || strlen(name) > NC_MAX_NAME)
        return NC_EBADNAME;
    if (len && data == NULL)
        return NC_EINVAL;
    if (f->readonly)
        return NC_EPERM;
    if ((stat = NC_check_name(name)))
        return stat;
    flags = nc4_reserved_att_flags(name);
    if (flags) {
        if (varid == NC_GLOBAL && g->parent == NULL && (flags & NC4_RES_READONLY))
            return NC_ENAMEINUSE;
        if (varid != NC_GLOBAL && (flags & (NC4_RES_HIDDEN | NC4_RES_READONLY)))
            return NC_ENAMEINUSE;
    }
    att = (NC4_att *)nc4_index_find(list, name);
    if (att == NULL ||
        (!f->indef && classic_bytes(xtype, len) > classic_bytes(att->xtype, att->len))) {
        if (!f->indef) {
            if (f->classic_model)
                return NC_ENOTINDEFINE;
            if ((stat = nc4_check_define(f)))
                return stat;
        }
    }
    if (xtype == NC_NAT || memtype == NC_NAT)
        return NC_EBADTYPE;
    if (xtype != memtype && (xtype == NC_CHAR || memtype == NC_CHAR ||
                             xtype == NC_STRING || memtype == NC_STRING))
        return NC_ECHAR;
    if (f->classic_model && xtype > NC_DOUBLE)
        return NC_ESTRICTNC3;
    /* Upstream's type-length look-up: an unknown user id is NC_EBADTYPID. */
    if (xtype < NC_NAT)
        return NC_EINVAL;
    if (nc4_find_type(f, xtype, NULL))
        return NC_EBADTYPID;
    if (memtype > NC_MAX_ATOMIC_TYPE && nc4_find_type(f, memtype, NULL))
        return NC_EBADTYPE;

    /* _FillValue of a variable: one value, of the variable's type; it
     * becomes the variable's fill value, converted from memtype. */
    if (var && strcmp(name, NC_FillValue) == 0) {
        if (len != 1)
            return NC_EINVAL;
        if (f->ops && f->ops->remakes_fill
                ? (var->fill_fixed || var->from_file)
                : (var->created || var->meta_locked))
            return NC_ELATEFILL;
        if (xtype != var->xtype)
            return NC_EBADTYPE;
        if ((stat = convert_in(f, memtype, var->xtype, data, 1, &fill, &range)))
            return stat;
    }
    if (len && (stat = convert_in(f, memtype, xtype, data, len, &copy, &range))) {
        if (fill) {
            nc4_reclaim_values(f, var->xtype, fill, 1);
            free(fill);
        }
        return stat;
    }
    /* The classic model does not range-check byte <-> ubyte. */
    if (range && f->classic_model && (xtype == NC_BYTE || xtype == NC_UBYTE) &&
        (memtype == NC_BYTE || memtype == NC_UBYTE))
        range = 0;
    /* Store the (already converted) copy without another conversion. */
    if ((stat = nc4_set_att(g, var, name, xtype, 0, NULL, &att))) {
        if (copy) {
            nc4_reclaim_values(f, xtype, copy, len);
            free(copy);
        }
        if (fill) {
            nc4_reclaim_values(f, var->xtype, fill, 1);
            free(fill);
        }
        return stat;
    }
    att->data = copy;
    att->len = len;
    att->dirty = 1;
    mark_atts_dirty(f, g, var);
    if (fill) {
        if (var->fill_value) {
            nc4_reclaim_values(f, var->xtype, var->fill_value, 1);
            free(var->fill_value);
        }
        var->fill_value = fill;
        var->dirty = 1;
    }
    return range ? NC_ERANGE : NC_NOERR;
}
