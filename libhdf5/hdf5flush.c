/* hdf5flush.c: write what the model marks new or changed to the HDF5 file.
 *
 * Order (upstream's, so creation order and object headers come out alike):
 *   0. renamed variables get their new link names (upstream renames at
 *      once; the model defers renames to here);
 *   1. every group, depth first: create it (link + attribute creation
 *      order tracked), the root's _nc3_strict in the classic model, then
 *      its uncommitted user types, then its children;
 *   2. decide whether dimension ids must be stored (_Netcdf4Dimid): when a
 *      coordinate variable is new, is multidimensional, or coordinate
 *      variables are out of dimension order;
 *   3. every group again, depth first: deleted then changed group
 *      attributes; dimensions and variables interleaved -- dimensions
 *      without a coordinate variable up to the next one that has one, then
 *      variables up to that coordinate variable, and so on -- so that a
 *      coordinate variable's dataset follows the phony datasets of the dims
 *      defined before it; then the dimension scales of the group's
 *      variables are attached;
 *   4. _NCProperties, if the root group lacks it.
 * Upstream never extends a phony dataset: an unlimited dim's stays at the
 * length it had when made (its real length is the variables' extents).
 * A dimension without a coordinate variable is a phony dataset of its own
 * name: 32-bit big-endian floats, its length (unlimited: extendible,
 * chunks of 1), a dimension scale named "This is a netCDF dimension but
 * not a netCDF variable.%10d" and _Netcdf4Dimid.  A variable that has a
 * dimension's name without being its coordinate variable is stored as
 * _nc4_non_coord_<name>.
 *
 * nc4h5_flush takes the HDF5 lock for the whole walk. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hdf5int.h"
#include "hdf5chunk.h"


/* ---- fmt state of objects the model created -------------------------------------- */

static NC4H5_grp *
grp_fmt(NC4_grp *g)
{
    if (!g->fmt) {
        NC4H5_grp *h = calloc(1, sizeof(*h));
        if (!h)
            return NULL;
        h->kind = NC4H5_KGRP;
        h->gid = -1;
        g->fmt = h;
    }
    return g->fmt;
}

static NC4H5_var *
var_fmt(NC4_var *v)
{
    if (!v->fmt) {
        NC4H5_var *h = calloc(1, sizeof(*h));
        if (!h)
            return NULL;
        h->kind = NC4H5_KVAR;
        h->did = -1;
        v->fmt = h;
    }
    return v->fmt;
}

static NC4H5_dim *
dim_fmt(NC4_dim *d)
{
    if (!d->fmt) {
        NC4H5_dim *h = calloc(1, sizeof(*h));
        if (!h)
            return NULL;
        h->kind = NC4H5_KDIM;
        h->dsid = -1;
        d->fmt = h;
    }
    return d->fmt;
}

static int
set_stored_name(NC4_obj *hdr, const char *name)
{
    char *s;
    if (hdr->stored_name && !strcmp(hdr->stored_name, name))
        return NC_NOERR;
    if (!(s = strdup(name)))
        return NC_ENOMEM;
    free(hdr->stored_name);
    hdr->stored_name = s;
    return NC_NOERR;
}

/* The open HDF5 group of g (opened by its stored name if needed). */
static int
grp_id(NC4_grp *g, hid_t *gidp)
{
    NC4H5_grp *h = grp_fmt(g);
    if (!h)
        return NC_ENOMEM;
    if (h->gid < 0) {
        hid_t pid;
        int stat;
        if (!g->parent || !g->hdr.stored_name)
            return NC_EHDFERR;
        if ((stat = grp_id(g->parent, &pid)))
            return stat;
        if ((h->gid = H5Gopen2(pid, g->hdr.stored_name, H5P_DEFAULT)) < 0)
            return NC_EHDFERR;
    }
    *gidp = h->gid;
    return NC_NOERR;
}

/* The open dataset of a created variable. */
static int
var_id(NC4_var *v, hid_t *didp)
{
    NC4H5_var *h = var_fmt(v);
    hid_t gid;
    int stat;
    if (!h)
        return NC_ENOMEM;
    if (h->did < 0) {
        if (!v->created || !v->hdr.stored_name)
            return NC_EDIMSCALE;
        if ((stat = grp_id(v->grp, &gid)))
            return stat;
        if ((stat = nc4h5_var_open_dataset(v)))
            return stat;
    }
    *didp = h->did;
    return NC_NOERR;
}

/* Whether dataset dsid is a phony dimension dataset (its scale NAME says so). */
static int
is_phony(hid_t dsid)
{
    int yes = 0;
    hid_t aid, tid = -1;
    char buf[sizeof(NC4H5_DIMSCALE_NOVAR) + 16];
    htri_t ex = H5Aexists(dsid, "NAME");

    if (ex <= 0 || (aid = H5Aopen(dsid, "NAME", H5P_DEFAULT)) < 0)
        return 0;
    if ((tid = H5Aget_type(aid)) >= 0 && H5Tget_class(tid) == H5T_STRING &&
        !H5Tis_variable_str(tid) && H5Tget_size(tid) <= sizeof buf) {
        memset(buf, 0, sizeof buf);
        if (H5Aread(aid, tid, buf) >= 0)
            yes = !strncmp(buf, NC4H5_DIMSCALE_NOVAR, strlen(NC4H5_DIMSCALE_NOVAR));
    }
    if (tid >= 0) H5Tclose(tid);
    H5Aclose(aid);
    return yes;
}

/* The phony dataset of a dim without coordinate variable, if it exists. */
static int
dim_phony_id(NC4_dim *d, hid_t *dsidp)
{
    NC4H5_dim *h = dim_fmt(d);
    hid_t gid;
    int stat;
    if (!h)
        return NC_ENOMEM;
    *dsidp = -1;
    if (h->dsid < 0 && d->hdr.stored_name) {
        htri_t ex;
        if ((stat = grp_id(d->grp, &gid)))
            return stat;
        if ((ex = H5Lexists(gid, d->hdr.stored_name, H5P_DEFAULT)) < 0)
            return NC_EHDFERR;
        if (ex > 0 && (h->dsid = H5Dopen2(gid, d->hdr.stored_name, H5P_DEFAULT)) < 0)
            return NC_EHDFERR;
        /* Only a phony dataset is the dim's own (a coordinate variable's
         * dataset of that name is the variable's). */
        if (h->dsid >= 0 && !is_phony(h->dsid)) {
            herr_t e = H5Dclose(h->dsid);
            h->dsid = -1;
            if (e < 0)
                return NC_EHDFERR;
        }
    }
    *dsidp = h->dsid;
    return NC_NOERR;
}

/* The dataset that is dimension d's scale: its coordinate variable's, or
 * its phony dataset. */
static int
dim_scale_id(NC4_dim *d, hid_t *dsidp)
{
    if (d->coord_var && d->coord_var->created)
        return var_id(d->coord_var, dsidp);
    return dim_phony_id(d, dsidp);
}

/* Attribute creation order tracked on a new object's creation property
 * list, unless the file was created or opened with NC_NOATTCREORD. */
static herr_t
set_att_order(NC4_file *f, hid_t cpl)
{
    if (f->cmode & NC_NOATTCREORD)
        return 0;
    return H5Pset_attr_creation_order(cpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
}

/* ---- hidden convention attributes -------------------------------------------------------- */

/* Create or overwrite an int attribute; scalar when dims is NULL. */
static int
put_int_att(hid_t obj, const char *name, const hsize_t *dims, const int *values)
{
    hid_t sid = -1, aid = -1;
    htri_t ex;
    int stat = NC_NOERR;

    if ((ex = H5Aexists(obj, name)) < 0)
        return NC_EHDFERR;
    if (ex > 0) {
        /* Reuse it when the shape matches (upstream rewrites _Netcdf4Dimid in place). */
        hid_t old = H5Aopen(obj, name, H5P_DEFAULT), osid;
        hssize_t n = -1;
        int scalar = 0;
        if (old < 0)
            return NC_EHDFERR;
        if ((osid = H5Aget_space(old)) >= 0) {
            scalar = H5Sget_simple_extent_type(osid) == H5S_SCALAR;
            n = H5Sget_simple_extent_npoints(osid);
            H5Sclose(osid);
        }
        if ((dims == NULL && scalar) || (dims && !scalar && n == (hssize_t)dims[0])) {
            if (H5Awrite(old, H5T_NATIVE_INT, values) < 0)
                stat = NC_EHDFERR;
            H5Aclose(old);
            return stat;
        }
        H5Aclose(old);
        if (H5Adelete(obj, name) < 0)
            return NC_EHDFERR;
    }
    sid = dims ? H5Screate_simple(1, dims, dims) : H5Screate(H5S_SCALAR);
    if (sid < 0 || (aid = H5Acreate2(obj, name, H5T_NATIVE_INT, sid, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        H5Awrite(aid, H5T_NATIVE_INT, values) < 0)
        stat = NC_EHDFERR;
    if (aid >= 0) H5Aclose(aid);
    if (sid >= 0) H5Sclose(sid);
    return stat;
}

static int
write_dimid_att(hid_t obj, int dimid)
{
    return put_int_att(obj, NC4H5_DIMID_ATT, NULL, &dimid);
}

/* ---- attributes of one object ----------------------------------------------------------------- */

static int
write_att_list(NC4_file *f, hid_t obj, NC4_index *atts, char ***deleted, size_t *ndeleted,
               int all)
{
    int stat;
    for (size_t i = 0; i < *ndeleted; i++) {
        if ((stat = nc4h5_delete_att(obj, (*deleted)[i])))
            return stat;
        free((*deleted)[i]);
    }
    free(*deleted);
    *deleted = NULL;
    *ndeleted = 0;
    for (size_t i = 0; i < atts->n; i++) {
        NC4_att *a = (NC4_att *)atts->items[i];
        if (!a->dirty && !all)
            continue;
        if ((stat = nc4h5_write_att(f, obj, a)))
            return stat;
        if ((stat = set_stored_name(&a->hdr, a->hdr.name)))
            return stat;
        a->dirty = 0;
    }
    return NC_NOERR;
}

/* ---- pass 0: renamed variables -------------------------------------------------------------------
 * Upstream moves a variable's link when it is renamed, then moves every
 * later variable of the group to a temporary name and back, so that link
 * creation order (which gives variable ids when the file is read) keeps the
 * variables' order; and it deletes the phony dataset of the variable's
 * first dimension (made again at the next write, after the others).  The
 * model defers renames to the flush: they are done here, before the
 * groups' renames, as a rename sequence that renames variables first. */
#define TEMP_NAME "_netcdf4_temporary_variable_name_for_rename"

static int remove_phony(NC4_file *f, NC4_dim *d);
static int var_hdf5_name(NC4_var *v, char *buf, size_t size);

static int
rename_vars(NC4_file *f, NC4_grp *g)
{
    int stat;
    char name[NC_MAX_NAME + sizeof(NC4H5_NON_COORD) + 1];
    hid_t gid = -1;

    for (size_t i = 0; i < g->vars.n; i++) {
        NC4_var *v = (NC4_var *)g->vars.items[i];
        if (!v->created || !v->hdr.stored_name)
            continue;
        var_hdf5_name(v, name, sizeof name);
        if (!strcmp(v->hdr.stored_name, name))
            continue;
        if (gid < 0 && (stat = grp_id(g, &gid)))
            return stat;
        if (v->ndims && (stat = remove_phony(f, v->dims[0])))
            return stat;
        if (H5Lmove(gid, v->hdr.stored_name, gid, name, H5P_DEFAULT, H5P_DEFAULT) < 0)
            return NC_EHDFERR;
        if ((stat = set_stored_name(&v->hdr, name)))
            return stat;
        for (size_t j = i + 1; j < g->vars.n; j++) {
            NC4_var *w = (NC4_var *)g->vars.items[j];
            if (!w->created || !w->hdr.stored_name)
                continue;
            if (H5Lmove(gid, w->hdr.stored_name, gid, TEMP_NAME, H5P_DEFAULT, H5P_DEFAULT) < 0 ||
                H5Lmove(gid, TEMP_NAME, gid, w->hdr.stored_name, H5P_DEFAULT, H5P_DEFAULT) < 0)
                return NC_EHDFERR;
        }
    }
    for (size_t i = 0; i < g->children.n; i++)
        if ((stat = rename_vars(f, (NC4_grp *)g->children.items[i])))
            return stat;
    return NC_NOERR;
}

/* ---- pass 1: groups and types ---------------------------------------------------------------------- */

static int
write_groups_types(NC4_file *f, NC4_grp *g)
{
    int stat;
    NC4H5_grp *h = grp_fmt(g);
    hid_t gid;

    if (!h)
        return NC_ENOMEM;
    if (g->parent) {
        hid_t pid;
        if ((stat = grp_id(g->parent, &pid)))
            return stat;
        if (!g->created) {
            hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
            if (gcpl < 0)
                return NC_EHDFERR;
            if (H5Pset_obj_track_times(gcpl, 0) < 0 ||
                H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
                set_att_order(f, gcpl) < 0 ||
                (h->gid = H5Gcreate2(pid, g->hdr.name, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0) {
                H5Pclose(gcpl);
                return NC_EHDFERR;
            }
            H5Pclose(gcpl);
            g->created = 1;
            /* Every attribute of a new group is new. */
            for (size_t i = 0; i < g->atts.n; i++)
                ((NC4_att *)g->atts.items[i])->dirty = 1;
        } else if (g->hdr.stored_name && strcmp(g->hdr.stored_name, g->hdr.name)) {
            if (H5Lmove(pid, g->hdr.stored_name, pid, g->hdr.name, H5P_DEFAULT, H5P_DEFAULT) < 0)
                return NC_EHDFERR;
        }
        if ((stat = set_stored_name(&g->hdr, g->hdr.name)))
            return stat;
    }
    if ((stat = grp_id(g, &gid)))
        return stat;
    if (!g->parent && f->classic_model) {
        htri_t ex = H5Aexists(gid, NC4H5_STRICT_ATT);
        int one = 1;
        if (ex < 0)
            return NC_EHDFERR;
        if (!ex && (stat = put_int_att(gid, NC4H5_STRICT_ATT, NULL, &one)))
            return stat;
    }
    for (size_t i = 0; i < g->types.n; i++) {
        NC4_type *t = (NC4_type *)g->types.items[i];
        if (!t->committed) {
            if ((stat = nc4h5_commit_type(f, t)))
                return stat;
            t->committed = 1;
        }
        if ((stat = set_stored_name(&t->hdr, t->hdr.name)))
            return stat;
    }
    for (size_t i = 0; i < g->children.n; i++)
        if ((stat = write_groups_types(f, (NC4_grp *)g->children.items[i])))
            return stat;
    return NC_NOERR;
}

/* ---- pass 2: must dimension ids be stored? ------------------------------------------------------------------ */

static int
coord_order_bad(NC4_grp *g)
{
    int last = -1;
    for (size_t i = 0; i < g->vars.n; i++) {
        NC4_var *v = (NC4_var *)g->vars.items[i];
        NC4H5_var *h = v->fmt;
        if (!v->is_coord || v->ndims == 0)
            continue;
        if (v->dimids[0] < last || v->ndims > 1)
            return 1;
        last = v->dimids[0];
        /* New, or becoming a coordinate variable: its dim id would move. */
        if (!v->created || !h || !h->dimscale || v->was_coord)
            return 1;
    }
    for (size_t i = 0; i < g->children.n; i++)
        if (coord_order_bad((NC4_grp *)g->children.items[i]))
            return 1;
    return 0;
}

/* ---- dimensions ------------------------------------------------------------------------------------------------ */

static int
create_phony(NC4_dim *d, hid_t gid)
{
    int stat = NC_NOERR;
    NC4H5_dim *h = dim_fmt(d);
    hid_t dcpl = -1, sid = -1;
    hsize_t dims[1], maxdims[1], chunk[1] = {1};
    char name[NC_MAX_NAME + 1];

    if (!h)
        return NC_ENOMEM;
    dims[0] = d->unlimited && h->remade ? h->remade_len : d->len;
    maxdims[0] = d->unlimited ? H5S_UNLIMITED : d->len;
    h->remade = 0;
    if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_obj_track_times(dcpl, 0) < 0 ||
        (d->unlimited && H5Pset_chunk(dcpl, 1, chunk) < 0) ||
        (sid = H5Screate_simple(1, dims, maxdims)) < 0 ||
        set_att_order(d->grp->file, dcpl) < 0 ||
        (h->dsid = H5Dcreate2(gid, d->hdr.name, H5T_IEEE_F32BE, sid, H5P_DEFAULT, dcpl,
                              H5P_DEFAULT)) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    snprintf(name, sizeof name, "%s%10d", NC4H5_DIMSCALE_NOVAR, (int)dims[0]);
    if ((stat = nc4h5_ds_set_scale(h->dsid, name)))
        goto done;
    if ((stat = write_dimid_att(h->dsid, d->hdr.id)))
        goto done;
    stat = set_stored_name(&d->hdr, d->hdr.name);
done:
    if (sid >= 0) H5Sclose(sid);
    if (dcpl >= 0) H5Pclose(dcpl);
    return stat;
}

/* Detach d's scale dsid from every created variable of the tree that uses d
 * (they are re-attached after the flush's variable pass). */
static int
detach_everywhere(NC4_grp *g, NC4_dim *d, hid_t dsid)
{
    int stat;
    /* Children first, as upstream (the order of REFERENCE_LIST entries). */
    for (size_t i = 0; i < g->children.n; i++)
        if ((stat = detach_everywhere((NC4_grp *)g->children.items[i], d, dsid)))
            return stat;
    for (size_t i = 0; i < g->vars.n; i++) {
        NC4_var *v = (NC4_var *)g->vars.items[i];
        NC4H5_var *h = v->fmt;
        hid_t did;
        if (!v->created || !h || h->dimscale)
            continue;
        for (int k = 0; k < v->ndims; k++) {
            if (v->dims[k] != d)
                continue;
            if ((stat = var_id(v, &did)) || (stat = nc4h5_ds_detach(did, dsid, k)))
                return stat;
            h->scales_attached = 0;
        }
    }
    return NC_NOERR;
}

/* Attach d's new scale dsid to every created variable using d, at once (a
 * coordinate variable's dataset was made again). */
static int
reattach_everywhere(NC4_grp *g, NC4_dim *d, hid_t dsid)
{
    int stat;
    for (size_t i = 0; i < g->children.n; i++)
        if ((stat = reattach_everywhere((NC4_grp *)g->children.items[i], d, dsid)))
            return stat;
    for (size_t i = 0; i < g->vars.n; i++) {
        NC4_var *v = (NC4_var *)g->vars.items[i];
        NC4H5_var *h = v->fmt;
        hid_t did;
        if (!v->created || !h || h->dimscale)
            continue;
        for (int k = 0; k < v->ndims; k++)
            if (v->dims[k] == d &&
                ((stat = var_id(v, &did)) || (stat = nc4h5_ds_attach(did, dsid, k))))
                return stat;
    }
    return NC_NOERR;
}

/* Remove the phony dataset of d (its coordinate variable takes its place). */
static int
remove_phony(NC4_file *f, NC4_dim *d)
{
    int stat;
    hid_t dsid, gid;
    NC4H5_dim *h = dim_fmt(d);
    if ((stat = dim_phony_id(d, &dsid)))
        return stat;
    if (dsid < 0)
        return NC_NOERR;
    if ((stat = detach_everywhere(f->root, d, dsid)))
        return stat;
    {
        /* Upstream remakes it from its dim's length as last read or
         * written; for an unlimited dim that is the old extent. */
        hid_t sid = H5Dget_space(dsid);
        hsize_t cur[1] = {0};
        if (sid >= 0 && H5Sget_simple_extent_ndims(sid) == 1)
            H5Sget_simple_extent_dims(sid, cur, NULL);
        if (sid >= 0)
            H5Sclose(sid);
        h->remade = 1;
        h->remade_len = (size_t)cur[0];
    }
    h->dsid = -1;
    if (H5Dclose(dsid) < 0)
        return NC_EHDFERR;
    if ((stat = grp_id(d->grp, &gid)))
        return stat;
    /* The reader may hand over an open phony without its stored name. */
    if (H5Ldelete(gid, d->hdr.stored_name ? d->hdr.stored_name : d->hdr.name, H5P_DEFAULT) < 0)
        return NC_EDIMMETA;
    free(d->hdr.stored_name);
    d->hdr.stored_name = NULL;
    return NC_NOERR;
}

static int
write_dim(NC4_file *f, NC4_dim *d, hid_t gid, int bad_order)
{
    int stat;
    hid_t dsid;
    if ((stat = dim_phony_id(d, &dsid)))
        return stat;
    if (dsid >= 0 && d->hdr.stored_name && strcmp(d->hdr.stored_name, d->hdr.name)) {
        /* A renamed dimension's phony dataset is made again under the new
         * name (upstream deletes it at the rename), then re-attached. */
        if ((stat = remove_phony(f, d)))
            return stat;
        dsid = -1;
    }
    if (dsid < 0) {
        if ((stat = create_phony(d, gid)))
            return stat;
        dsid = ((NC4H5_dim *)d->fmt)->dsid;
    }
    if (bad_order && (stat = write_dimid_att(dsid, d->hdr.id)))
        return stat;
    d->dirty = 0;
    return NC_NOERR;
}

/* ---- variables ------------------------------------------------------------------------------------------------- */

/* The HDF5 link name of v. */
static int
var_hdf5_name(NC4_var *v, char *buf, size_t size)
{
    if (!v->is_coord && nc4_index_find(&v->grp->dims, v->hdr.name) != NULL)
        snprintf(buf, size, "%s%s", NC4H5_NON_COORD, v->hdr.name);
    else
        snprintf(buf, size, "%s", v->hdr.name);
    return NC_NOERR;
}

/* Upstream's default fill values of the atomic types; 0 for other types. */
static int
default_fill(nc_type xtype, void *fill)
{
    switch (xtype) {
    case NC_BYTE: *(signed char *)fill = NC_FILL_BYTE; break;
    case NC_CHAR: *(char *)fill = NC_FILL_CHAR; break;
    case NC_SHORT: *(short *)fill = NC_FILL_SHORT; break;
    case NC_INT: *(int *)fill = NC_FILL_INT; break;
    case NC_FLOAT: *(float *)fill = NC_FILL_FLOAT; break;
    case NC_DOUBLE: *(double *)fill = NC_FILL_DOUBLE; break;
    case NC_UBYTE: *(unsigned char *)fill = NC_FILL_UBYTE; break;
    case NC_USHORT: *(unsigned short *)fill = NC_FILL_USHORT; break;
    case NC_UINT: *(unsigned int *)fill = NC_FILL_UINT; break;
    case NC_INT64: *(long long *)fill = NC_FILL_INT64; break;
    case NC_UINT64: *(unsigned long long *)fill = NC_FILL_UINT64; break;
    case NC_STRING: *(const char **)fill = NC_FILL_STRING; break;
    default: return 0;
    }
    return 1;
}

/* Fill value of v in memory form into *fillp: the variable's own, else
 * upstream's default -- the atomic types' NC_FILL_*, an enum's base type's,
 * zero bytes for compound, opaque and vlen types.  *ownp is set when the
 * buffer was allocated here (free it; its contents own nothing). */
static int
var_fill(NC4_file *f, NC4_var *v, void *buf, const void **fillp, void **ownp)
{
    NC4_type *t = NULL;
    size_t size;
    *ownp = NULL;
    *fillp = NULL;
    if (v->fill_value) {
        *fillp = v->fill_value;
        return NC_NOERR;
    }
    if (default_fill(v->xtype, buf)) {
        *fillp = buf;
        return NC_NOERR;
    }
    if (nc4_find_type(f, v->xtype, &t) || !t)
        return NC_NOERR;
    size = nc4_type_size(f, v->xtype);
    if (size == 0)
        return NC_NOERR;
    if (!(*ownp = calloc(1, size < 8 ? 8 : size)))
        return NC_ENOMEM;
    if (t->tclass == NC_ENUM)
        default_fill(t->base, *ownp);
    *fillp = *ownp;
    return NC_NOERR;
}

/* Whether the dataset's fill settings differ from the model's (a
 * _FillValue changed after the dataset was created: it must be remade). */
static int
fill_changed(NC4_file *f, NC4_var *v, hid_t did)
{
    hid_t dcpl, tid = -1;
    H5D_fill_time_t ft;
    H5D_fill_value_t def;
    int changed = 0;
    union { double d; long long l; void *p; unsigned char b[64]; } dflt, cur;
    const void *want = NULL;
    void *own = NULL;
    size_t size;

    if ((dcpl = H5Dget_create_plist(did)) < 0)
        return 0;
    if (H5Pget_fill_time(dcpl, &ft) < 0 || H5Pfill_value_defined(dcpl, &def) < 0)
        goto done;
    if (v->no_fill != (ft == H5D_FILL_TIME_NEVER)) {
        changed = 1;
        goto done;
    }
    if (v->no_fill)
        goto done;
    if (var_fill(f, v, &dflt, &want, &own))
        goto done;
    if (!want) {
        changed = def == H5D_FILL_VALUE_USER_DEFINED && v->fill_value;
        goto done;
    }
    if (def != H5D_FILL_VALUE_USER_DEFINED) {
        changed = 1;
        goto done;
    }
    size = nc4_type_size(f, v->xtype);
    if (v->xtype == NC_STRING || size == 0 || size > sizeof cur.b ||
        nc4_type_has_pointers(f, v->xtype))
        goto done;         /* compared by value only where that is plain bytes */
    if (nc4h5_hdf5_type(f, v->xtype, NC_ENDIAN_NATIVE, 0, &tid))
        goto done;
    if (H5Pget_fill_value(dcpl, tid, cur.b) >= 0 && memcmp(cur.b, want, size))
        changed = 1;
done:
    free(own);
    if (tid >= 0) H5Tclose(tid);
    H5Pclose(dcpl);
    return changed;
}

/* A new transient HDF5 file type for xtype (a copy of a committed one). */
static int
copy_file_type(NC4_file *f, nc_type xtype, int endianness, hid_t *tidp)
{
    hid_t t;
    int stat;
    if ((stat = nc4h5_hdf5_type(f, xtype, endianness, 1, &t)))
        return stat;
    *tidp = H5Tcopy(t);
    H5Tclose(t);
    return *tidp < 0 ? NC_EHDFERR : NC_NOERR;
}

static int
set_filters(hid_t dcpl, const NC4_var *v)
{
    for (size_t i = 0; i < v->nfilters; i++) {
        const NC4_filter *fl = &v->filters[i];
        switch (fl->id) {
        case H5Z_FILTER_FLETCHER32:
            if (H5Pset_fletcher32(dcpl) < 0)
                return NC_EHDFERR;
            break;
        case H5Z_FILTER_SHUFFLE:
            if (H5Pset_shuffle(dcpl) < 0)
                return NC_EHDFERR;
            break;
        case H5Z_FILTER_DEFLATE:
            if (fl->nparams != 1 || H5Pset_deflate(dcpl, fl->params[0]) < 0)
                return NC_EFILTER;
            break;
        case H5Z_FILTER_SZIP:
            if (fl->nparams != 2 || H5Pset_szip(dcpl, fl->params[0], fl->params[1]) < 0)
                return NC_EFILTER;
            break;
        default:
            /* Optional, as upstream: a filter that cannot apply (vlen data)
             * is skipped rather than failing the write. */
            if (H5Pset_filter(dcpl, fl->id, H5Z_FLAG_OPTIONAL, fl->nparams, fl->params) < 0)
                return NC_EFILTER;
        }
    }
    return NC_NOERR;
}

static int
write_quantize_att(NC4_var *v, hid_t did)
{
    const char *name;
    hsize_t one = 1;
    switch (v->quantize_mode) {
    case NC_QUANTIZE_BITGROOM: name = NC4H5_QUANT_BITGROOM_ATT; break;
    case NC_QUANTIZE_GRANULARBR: name = NC4H5_QUANT_GRANULARBR_ATT; break;
    case NC_QUANTIZE_BITROUND: name = NC4H5_QUANT_BITROUND_ATT; break;
    default: return NC_NOERR;
    }
    /* The model may also list it as an attribute; it is then written there. */
    if (nc4_index_find(&v->atts, name))
        return NC_NOERR;
    return put_int_att(did, name, &one, &v->nsd);
}

static int
create_dataset(NC4_file *f, NC4_var *v, hid_t gid, int bad_order)
{
    int stat = NC_NOERR;
    NC4H5_var *h = var_fmt(v);
    hid_t dcpl = -1, dapl = -1, tid = -1, ftid = -1, sid = -1;
    hsize_t dims[H5S_MAX_RANK], maxdims[H5S_MAX_RANK], chunks[H5S_MAX_RANK];
    int nunlim = 0, layout;
    union { double d; long long l; void *p; } dflt;
    const void *fill = NULL;
    void *fill_own = NULL;
    char name[NC_MAX_NAME + sizeof(NC4H5_NON_COORD) + 1];

    if (!h)
        return NC_ENOMEM;
    if (v->ndims > H5S_MAX_RANK)
        return NC_EMAXDIMS;
    if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_obj_track_times(dcpl, 0) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    /* A transient copy: upstream's datasets of user types carry the type
     * itself, not a link to the committed one. */
    if ((stat = copy_file_type(f, v->xtype, v->endianness, &tid)))
        goto done;

    if (v->no_fill) {
        if (H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
    } else {
        if ((stat = var_fill(f, v, &dflt, &fill, &fill_own)))
            goto done;
        if (fill) {
            /* Given in native form; HDF5 converts it to the dataset's order. */
            if (v->xtype == NC_STRING)
                ftid = H5Tcopy(tid);
            else if ((stat = copy_file_type(f, v->xtype, NC_ENDIAN_NATIVE, &ftid)))
                goto done;
            if (ftid < 0 || H5Pset_fill_value(dcpl, ftid, fill) < 0) {
                stat = NC_EHDFERR;
                goto done;
            }
        }
    }

    if ((stat = set_filters(dcpl, v)))
        goto done;

    for (int d = 0; d < v->ndims; d++)
        if (v->dims[d]->unlimited)
            nunlim++;
    layout = v->storage;
    if (v->ndims == 0)
        layout = layout == NC_COMPACT ? NC_COMPACT : NC_CONTIGUOUS;
    else if (nunlim || v->nfilters)
        layout = NC_CHUNKED;     /* HDF5 needs chunks to extend or filter */
    if (layout == NC_CHUNKED) {
        int unset = v->chunksizes == NULL;
        for (int d = 0; !unset && d < v->ndims; d++)
            if (v->chunksizes[d] == 0)
                unset = 1;
        if (unset) {
            if (!v->chunksizes && !(v->chunksizes = calloc((size_t)v->ndims, sizeof(size_t)))) {
                stat = NC_ENOMEM;
                goto done;
            }
            if ((stat = nc4_default_chunks(f, v)))
                goto done;
        }
        v->storage = NC_CHUNKED;
    }
    for (int d = 0; d < v->ndims; d++) {
        NC4_dim *dim = v->dims[d];
        /* An unlimited dimension starts empty; writes extend it. */
        dims[d] = dim->unlimited ? 0 : dim->len;
        maxdims[d] = dim->unlimited ? H5S_UNLIMITED : dim->len;
        if (layout == NC_CHUNKED)
            chunks[d] = v->chunksizes[d];
    }
    sid = v->ndims ? H5Screate_simple(v->ndims, dims, maxdims) : H5Screate(H5S_SCALAR);
    if (sid < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    if ((layout == NC_CONTIGUOUS && H5Pset_layout(dcpl, H5D_CONTIGUOUS) < 0) ||
        (layout == NC_COMPACT && H5Pset_layout(dcpl, H5D_COMPACT) < 0) ||
        (layout == NC_CHUNKED && H5Pset_chunk(dcpl, v->ndims, chunks) < 0) ||
        set_att_order(f, dcpl) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    /* An access list only when a cache is set: one less property list
     * made and freed per variable at enddef. */
    if (layout == NC_CHUNKED && v->cache_size &&
        ((dapl = H5Pcreate(H5P_DATASET_ACCESS)) < 0 ||
         H5Pset_chunk_cache(dapl, v->cache_nelems, v->cache_size, v->cache_preemption) < 0)) {
        stat = NC_EHDFERR;
        goto done;
    }
    var_hdf5_name(v, name, sizeof name);
    if ((h->did = H5Dcreate2(gid, name, tid, sid, H5P_DEFAULT, dcpl,
                             dapl >= 0 ? dapl : H5P_DEFAULT)) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    v->created = 1;
    h->dimscale = v->is_coord;
    h->scales_attached = 0;
    if ((stat = set_stored_name(&v->hdr, name)))
        goto done;

    /* Hidden attributes first, in upstream's order, then the user's. */
    if (v->ndims) {
        hsize_t n = (hsize_t)v->ndims;
        if ((stat = put_int_att(h->did, NC4H5_COORDS_ATT, &n, v->dimids)))
            goto done;
    }
    if (h->dimscale) {
        if ((stat = nc4h5_ds_set_scale(h->did, v->hdr.name)))
            goto done;
        if (bad_order && (stat = write_dimid_att(h->did, v->dimids[0])))
            goto done;
    }
    if ((stat = write_quantize_att(v, h->did)))
        goto done;
    stat = write_att_list(f, h->did, &v->atts, &v->deleted_atts, &v->ndeleted_atts, 1);
    /* A new dataset other than a scale is closed once made: each open one
     * holds several KB in HDF5, and defining 10,000 variables kept them all
     * open until the file closed.  Whoever needs it next (the scale
     * attachment below, data calls) reopens it (nc4h5_var_open_dataset). */
    if (stat == NC_NOERR && !h->dimscale) {
        if (H5Dclose(h->did) < 0)
            stat = NC_EHDFERR;
        h->did = -1;
    }
done:
    free(fill_own);
    if (sid >= 0) H5Sclose(sid);
    if (ftid >= 0) H5Tclose(ftid);
    if (tid >= 0) H5Tclose(tid);
    if (dapl >= 0) H5Pclose(dapl);
    if (dcpl >= 0) H5Pclose(dcpl);
    return stat;
}

/* Remove v's dataset so that it can be made again (new fill value, or a
 * variable that becomes a coordinate variable), keeping the tree's scales
 * consistent. */
static int
drop_dataset(NC4_file *f, NC4_var *v, hid_t gid)
{
    int stat;
    NC4H5_var *h = var_fmt(v);
    hid_t did, dsid;

    if ((stat = var_id(v, &did)))
        return stat;
    if (h->dimscale) {
        if ((stat = detach_everywhere(f->root, v->dims[0], did)))
            return stat;
    } else {
        for (int k = 0; k < v->ndims; k++) {
            NC4_dim *d = v->dims[k];
            if (d->coord_var == v)
                continue;
            if ((stat = dim_scale_id(d, &dsid)))
                return stat;
            if (dsid >= 0 && (stat = nc4h5_ds_detach(did, dsid, k)))
                return stat;
        }
    }
    h->did = -1;
    if (H5Dclose(did) < 0)
        return NC_EHDFERR;
    if (H5Ldelete(gid, v->hdr.stored_name, H5P_DEFAULT) < 0)
        return NC_EDIMMETA;
    free(v->hdr.stored_name);
    v->hdr.stored_name = NULL;
    v->created = 0;
    h->dimscale = 0;
    h->scales_attached = 0;
    return NC_NOERR;
}

static int
write_var(NC4_file *f, NC4_var *v, hid_t gid, int bad_order)
{
    int stat;
    NC4H5_var *h = var_fmt(v);
    hid_t did = -1;
    int remade = 0, rejoined = 0;

    if (!h)
        return NC_ENOMEM;
    if (v->created) {
        if ((stat = var_id(v, &did)))
            return stat;
        /* A stored scale the reader did not mark is still a scale (never
         * remake a dataset, and lose its data, for want of a flag). */
        if (v->is_coord && !h->dimscale && !v->was_coord && nc4h5_ds_is_scale(did) &&
            !is_phony(did))
            h->dimscale = 1;
        /* A coordinate variable that stops being one: its dataset is no
         * longer a scale; the variables using it lose it. */
        if (h->dimscale && !v->is_coord) {
            NC4_dim *old = v->ndims ? v->dims[0] : NULL;
            if (old && (stat = detach_everywhere(f->root, old, did)))
                return stat;
            if ((stat = nc4h5_ds_remove_scale_atts(did)))
                return stat;
            {
                /* Its back references go with the scale. */
                htri_t ex = H5Aexists(did, "REFERENCE_LIST");
                if (ex > 0 && H5Adelete(did, "REFERENCE_LIST") < 0)
                    return NC_EHDFERR;
            }
            h->dimscale = 0;
            h->scales_attached = 0;
        }
        /* A coordinate variable renamed apart from its dim and joined to it
         * again (both renamed): upstream remakes the dataset, losing its
         * data.  Ours keeps dataset and data, and takes only what the
         * remaking shows: the scale's new NAME and the dataset's place at
         * the end of the group's creation order (so variable ids match). */
        if (v->is_coord && h->dimscale && v->was_coord) {
            if (H5Lmove(gid, v->hdr.stored_name, gid, TEMP_NAME, H5P_DEFAULT, H5P_DEFAULT) < 0 ||
                H5Lmove(gid, TEMP_NAME, gid, v->hdr.stored_name, H5P_DEFAULT, H5P_DEFAULT) < 0)
                return NC_EHDFERR;
            /* The attributes in the remade dataset's order: scale, dim id
             * (written below), the user's, back references last. */
            if ((stat = nc4h5_ds_set_scale(did, v->hdr.name)) ||
                (stat = nc4h5_delete_att(did, NC4H5_DIMID_ATT)))
                return stat;
            for (size_t i = 0; i < v->atts.n; i++) {
                NC4_att *a = (NC4_att *)v->atts.items[i];
                if ((stat = nc4h5_delete_att(did, a->hdr.stored_name ? a->hdr.stored_name
                                                                     : a->hdr.name)))
                    return stat;
                a->dirty = 1;
            }
            rejoined = 1;
        }
        /* A variable that becomes a coordinate variable, or whose fill value
         * changed, is made again (HDF5 fixes both at creation). */
        if ((v->is_coord && !h->dimscale) || (v->dirty && fill_changed(f, v, did))) {
            for (size_t i = 0; i < v->atts.n; i++)
                ((NC4_att *)v->atts.items[i])->dirty = 1;
            if ((stat = drop_dataset(f, v, gid)))
                return stat;
            remade = 1;
        }
    }
    if (v->is_coord && !v->created && (stat = remove_phony(f, v->dims[0])))
        return stat;
    if (!v->created) {
        if ((stat = create_dataset(f, v, gid, bad_order)))
            return stat;
        /* A remade scale goes back to its users at once (upstream's order). */
        if (remade && h->dimscale && (stat = reattach_everywhere(f->root, v->dims[0], h->did)))
            return stat;
    } else {
        if (bad_order && v->ndims && (stat = write_dimid_att(did, v->dimids[0])))
            return stat;
        if ((stat = write_att_list(f, did, &v->atts, &v->deleted_atts, &v->ndeleted_atts, 0)))
            return stat;
        if (rejoined && (stat = nc4h5_ds_rewrite_reflist(did)))
            return stat;
    }
    v->dirty = 0;
    v->atts_dirty = 0;
    v->was_coord = 0;
    v->meta_locked = 1;
    return NC_NOERR;
}

/* Attach the missing scales of the group's variables (scales themselves
 * carry none), as one batch. */
static int
attach_scales(NC4_grp *g)
{
    int stat = NC_NOERR;
    nc4h5_ds_batch *b = NULL;
    hid_t *dsids = NULL;
    size_t cap = 0;

    for (size_t i = 0; i < g->vars.n && !stat; i++) {
        NC4_var *v = (NC4_var *)g->vars.items[i];
        NC4H5_var *h = var_fmt(v);
        hid_t did;
        if (!h) {
            stat = NC_ENOMEM;
            break;
        }
        if (h->dimscale || h->scales_attached || !v->created)
            continue;
        if (!b && !(b = nc4h5_ds_batch_new())) {
            stat = NC_ENOMEM;
            break;
        }
        if ((size_t)v->ndims > cap) {
            hid_t *p = realloc(dsids, (size_t)v->ndims * sizeof(hid_t));
            if (!p) {
                stat = NC_ENOMEM;
                break;
            }
            dsids = p;
            cap = (size_t)v->ndims;
        }
        if ((stat = var_id(v, &did)))
            break;
        for (int k = 0; k < v->ndims && !stat; k++) {
            if ((stat = dim_scale_id(v->dims[k], &dsids[k])))
                break;
            if (dsids[k] < 0)
                stat = NC_EDIMSCALE;
        }
        if (!stat && v->ndims)
            stat = nc4h5_ds_batch_attach(b, did, v->ndims, dsids);
        /* The batch keeps a reference, not the dataset: close it again. */
        if (!stat) {
            if (H5Dclose(h->did) < 0)
                stat = NC_EHDFERR;
            h->did = -1;
        }
        if (!stat)
            h->scales_attached = 1;
    }
    if (b) {
        int s2 = nc4h5_ds_batch_commit(b);
        if (!stat)
            stat = s2;
        nc4h5_ds_batch_free(b);
    }
    free(dsids);
    return stat;
}

static int
write_metadata(NC4_file *f, NC4_grp *g, int bad_order)
{
    int stat;
    hid_t gid;
    size_t di = 0, vi = 0;

    if ((stat = grp_id(g, &gid)))
        return stat;
    if ((stat = write_att_list(f, gid, &g->atts, &g->deleted_atts, &g->ndeleted_atts, 0)))
        return stat;
    g->atts_dirty = 0;

    while (di < g->dims.n || vi < g->vars.n) {
        NC4_var *coord = NULL;
        /* Dims without coordinate variable, up to the next that has one. */
        for (; di < g->dims.n && !coord; di++) {
            NC4_dim *d = (NC4_dim *)g->dims.items[di];
            if (d->coord_var)
                coord = d->coord_var;
            else if ((stat = write_dim(f, d, gid, bad_order)))
                return stat;
        }
        /* Vars, up to that coordinate variable. */
        for (; vi < g->vars.n;) {
            NC4_var *v = (NC4_var *)g->vars.items[vi++];
            if ((stat = write_var(f, v, gid, bad_order)))
                return stat;
            if (v == coord)
                break;
        }
    }
    for (size_t i = 0; i < g->dims.n; i++)
        ((NC4_dim *)g->dims.items[i])->dirty = 0;
    /* NC_NODIMSCALE_ATTACH: upstream's option to leave scales unattached. */
    if (!(f->cmode & NC_NODIMSCALE_ATTACH) && (stat = attach_scales(g)))
        return stat;
    g->dirty = 0;
    for (size_t i = 0; i < g->children.n; i++)
        if ((stat = write_metadata(f, (NC4_grp *)g->children.items[i], bad_order)))
            return stat;
    return NC_NOERR;
}

/* _NCProperties goes last, once: upstream writes its provenance at the end
 * of every sync when the root group lacks it. */
static int
write_provenance(NC4_file *f)
{
    int stat;
    hid_t gid;
    htri_t ex;
    if ((stat = grp_id(f->root, &gid)))
        return stat;
    if ((ex = H5Aexists(gid, NC4H5_NCPROPS_ATT)) < 0)
        return NC_EHDFERR;
    if (ex)
        return NC_NOERR;
    if (!f->ncproperties && (stat = nc4h5_make_ncproperties(&f->ncproperties)))
        return stat;
    return nc4h5_write_text_att(gid, NC4H5_NCPROPS_ATT, f->ncproperties);
}

int
nc4h5_flush(NC4_file *f)
{
    int stat;
    if (f->readonly)
        return NC_NOERR;
    nc4h5_lock();
    /* Cached chunks are written (and the caches emptied) before anything
     * below renames or remakes a dataset. */
    if ((stat = nc4h5_chunk_cache_flush_file(f)) == NC_NOERR &&
        (stat = rename_vars(f, f->root)) == NC_NOERR &&
        (stat = write_groups_types(f, f->root)) == NC_NOERR &&
        (stat = write_metadata(f, f->root, coord_order_bad(f->root))) == NC_NOERR)
        stat = write_provenance(f);
    if (stat == NC_NOERR)
        f->dirty = 0;
    nc4h5_unlock();
    return stat;
}
