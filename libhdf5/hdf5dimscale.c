/* hdf5dimscale.c: HDF5 dimension scales, written the way HDF5's high-level
 * H5DS library writes them, without linking libhdf5_hl.
 *
 * On disk (what upstream netCDF-4 files carry, through H5DS):
 *   scale dataset:  CLASS = "DIMENSION_SCALE" (fixed string, NUL counted),
 *                   NAME  = the scale's name (same form),
 *                   REFERENCE_LIST = 1-D array of compound
 *                     { object reference "dataset"; native int "dimension" },
 *                   one entry per (dataset, dimension) attached, in order
 *                   of attachment; rewritten (deleted, created) on change.
 *   data dataset:   DIMENSION_LIST = 1-D array[rank] of vlen of object
 *                   references, written in place when it exists.
 * Object references of one file are object header addresses, so two
 * references name the same object exactly when they are equal.
 *
 * Every function returns NC_NOERR or NC_EDIMSCALE/NC_EHDFERR/NC_ENOMEM and
 * closes what it opened; the caller holds the HDF5 lock. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "hdf5int.h"

#define DS_CLASS_ATT "CLASS"
#define DS_NAME_ATT "NAME"
#define DS_CLASS_VALUE "DIMENSION_SCALE"
#define DS_DIMLIST_ATT "DIMENSION_LIST"
#define DS_REFLIST_ATT "REFERENCE_LIST"

/* One REFERENCE_LIST entry in memory (the layout H5DS uses). */
typedef struct ds_ref_entry {
    hobj_ref_t ref;
    int dim;
} ds_ref_entry;

/* Replace attribute `name` of obj by a NUL-terminated fixed string. */
static int
set_string_att(hid_t obj, const char *name, const char *value)
{
    int stat = NC_NOERR;
    hid_t tid = -1, sid = -1, aid = -1;
    htri_t ex;

    if ((ex = H5Aexists(obj, name)) < 0)
        return NC_EHDFERR;
    if (ex > 0 && H5Adelete(obj, name) < 0)
        return NC_EHDFERR;
    if ((tid = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(tid, strlen(value) + 1) < 0 ||
        H5Tset_strpad(tid, H5T_STR_NULLTERM) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    if ((sid = H5Screate(H5S_SCALAR)) < 0 ||
        (aid = H5Acreate2(obj, name, tid, sid, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        H5Awrite(aid, tid, value) < 0)
        stat = NC_EHDFERR;
done:
    if (aid >= 0) H5Aclose(aid);
    if (sid >= 0) H5Sclose(sid);
    if (tid >= 0) H5Tclose(tid);
    return stat;
}

int
nc4h5_ds_set_scale(hid_t dsid, const char *name)
{
    int stat;
    if ((stat = set_string_att(dsid, DS_CLASS_ATT, DS_CLASS_VALUE)))
        return stat;
    return set_string_att(dsid, DS_NAME_ATT, name);
}

int
nc4h5_ds_is_scale(hid_t dsid)
{
    htri_t ex = H5Aexists(dsid, DS_CLASS_ATT);
    return ex > 0;
}

/* The memory type of REFERENCE_LIST entries. */
static hid_t
reflist_type(void)
{
    hid_t tid = H5Tcreate(H5T_COMPOUND, sizeof(ds_ref_entry));
    if (tid < 0)
        return -1;
    if (H5Tinsert(tid, "dataset", offsetof(ds_ref_entry, ref), H5T_STD_REF_OBJ) < 0 ||
        H5Tinsert(tid, "dimension", offsetof(ds_ref_entry, dim), H5T_NATIVE_INT) < 0) {
        H5Tclose(tid);
        return -1;
    }
    return tid;
}

/* Read REFERENCE_LIST of dsid: *np entries in a new array (NULL, 0 when absent). */
static int
read_reflist(hid_t dsid, ds_ref_entry **listp, size_t *np)
{
    int stat = NC_NOERR;
    hid_t aid = -1, sid = -1, tid = -1;
    hssize_t n;
    htri_t ex;
    ds_ref_entry *list = NULL;

    *listp = NULL;
    *np = 0;
    if ((ex = H5Aexists(dsid, DS_REFLIST_ATT)) < 0)
        return NC_EHDFERR;
    if (!ex)
        return NC_NOERR;
    if ((aid = H5Aopen(dsid, DS_REFLIST_ATT, H5P_DEFAULT)) < 0 ||
        (sid = H5Aget_space(aid)) < 0 || (n = H5Sget_simple_extent_npoints(sid)) < 0 ||
        (tid = reflist_type()) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    if (n > 0) {
        if (!(list = calloc((size_t)n, sizeof(*list)))) {
            stat = NC_ENOMEM;
            goto done;
        }
        if (H5Aread(aid, tid, list) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
    }
    *listp = list;
    *np = (size_t)n;
    list = NULL;
done:
    free(list);
    if (tid >= 0) H5Tclose(tid);
    if (sid >= 0) H5Sclose(sid);
    if (aid >= 0) H5Aclose(aid);
    return stat;
}

/* Replace REFERENCE_LIST of dsid by n entries (none: the attribute goes). */
static int
write_reflist(hid_t dsid, const ds_ref_entry *list, size_t n)
{
    int stat = NC_NOERR;
    hid_t aid = -1, sid = -1, tid = -1;
    hsize_t dims[1];
    htri_t ex;

    if ((ex = H5Aexists(dsid, DS_REFLIST_ATT)) < 0)
        return NC_EHDFERR;
    if (ex > 0 && H5Adelete(dsid, DS_REFLIST_ATT) < 0)
        return NC_EHDFERR;
    if (n == 0)
        return NC_NOERR;
    dims[0] = n;
    if ((tid = reflist_type()) < 0 || (sid = H5Screate_simple(1, dims, NULL)) < 0 ||
        (aid = H5Acreate2(dsid, DS_REFLIST_ATT, tid, sid, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        H5Awrite(aid, tid, list) < 0)
        stat = NC_EHDFERR;
    if (aid >= 0) H5Aclose(aid);
    if (sid >= 0) H5Sclose(sid);
    if (tid >= 0) H5Tclose(tid);
    return stat;
}

/* DIMENSION_LIST of did, read into buf[rank] (all empty when absent).
 * *existsp tells whether the attribute exists. */
static int
read_dimlist(hid_t did, int rank, hvl_t *buf, hid_t vtid, int *existsp)
{
    hid_t aid;
    htri_t ex;
    int i;

    for (i = 0; i < rank; i++) {
        buf[i].len = 0;
        buf[i].p = NULL;
    }
    if ((ex = H5Aexists(did, DS_DIMLIST_ATT)) < 0)
        return NC_EHDFERR;
    *existsp = ex > 0;
    if (!ex)
        return NC_NOERR;
    if ((aid = H5Aopen(did, DS_DIMLIST_ATT, H5P_DEFAULT)) < 0)
        return NC_EHDFERR;
    {
        hid_t sid = H5Aget_space(aid);
        hssize_t n = sid >= 0 ? H5Sget_simple_extent_npoints(sid) : -1;
        if (sid >= 0) H5Sclose(sid);
        if (n != rank) {      /* a foreign or damaged list: not ours to edit */
            H5Aclose(aid);
            return NC_EDIMSCALE;
        }
    }
    if (H5Aread(aid, vtid, buf) < 0) {
        H5Aclose(aid);
        return NC_EHDFERR;
    }
    H5Aclose(aid);
    return NC_NOERR;
}

static void
free_dimlist(hvl_t *buf, int rank)
{
    /* HDF5's vlen allocator made them (or H5allocate_memory below). */
    for (int i = 0; i < rank; i++)
        if (buf[i].p)
            H5free_memory(buf[i].p);
}

static int
write_dimlist(hid_t did, int rank, hvl_t *buf, hid_t vtid, int exists)
{
    hid_t aid = -1, sid = -1;
    hsize_t dims[1];
    int stat = NC_NOERR, any = 0;

    for (int i = 0; i < rank; i++)
        if (buf[i].len)
            any = 1;
    if (!any)
        return exists && H5Adelete(did, DS_DIMLIST_ATT) < 0 ? NC_EHDFERR : NC_NOERR;
    if (exists)
        aid = H5Aopen(did, DS_DIMLIST_ATT, H5P_DEFAULT);
    else {
        dims[0] = (hsize_t)rank;
        if ((sid = H5Screate_simple(1, dims, NULL)) >= 0)
            aid = H5Acreate2(did, DS_DIMLIST_ATT, vtid, sid, H5P_DEFAULT, H5P_DEFAULT);
    }
    if (aid < 0 || H5Awrite(aid, vtid, buf) < 0)
        stat = NC_EHDFERR;
    if (aid >= 0) H5Aclose(aid);
    if (sid >= 0) H5Sclose(sid);
    return stat;
}

static int
dataset_rank(hid_t did)
{
    hid_t sid = H5Dget_space(did);
    int rank;
    if (sid < 0)
        return -1;
    rank = H5Sget_simple_extent_ndims(sid);
    H5Sclose(sid);
    return rank;
}

int
nc4h5_ds_attach(hid_t did, hid_t dsid, int idx)
{
    int stat = NC_NOERR, rank, exists = 0, found = 0;
    hobj_ref_t dref, sref;
    hvl_t *buf = NULL;
    hid_t vtid = -1;
    ds_ref_entry *list = NULL, *nl;
    size_t n = 0;

    if ((rank = dataset_rank(did)) < 0)
        return NC_EHDFERR;
    if (idx < 0 || idx >= rank)
        return NC_EDIMSCALE;
    if (H5Rcreate(&dref, did, ".", H5R_OBJECT, -1) < 0 ||
        H5Rcreate(&sref, dsid, ".", H5R_OBJECT, -1) < 0)
        return NC_EHDFERR;
    if (dref == sref)
        return NC_EDIMSCALE;
    if ((vtid = H5Tvlen_create(H5T_STD_REF_OBJ)) < 0)
        return NC_EHDFERR;
    if (!(buf = calloc((size_t)rank, sizeof(hvl_t)))) {
        stat = NC_ENOMEM;
        goto done;
    }
    if ((stat = read_dimlist(did, rank, buf, vtid, &exists)))
        goto done;
    for (size_t j = 0; j < buf[idx].len; j++)
        if (((hobj_ref_t *)buf[idx].p)[j] == sref)
            found = 1;
    if (found)               /* already attached: nothing changes */
        goto done;
    {
        hobj_ref_t *p = H5allocate_memory((buf[idx].len + 1) * sizeof(hobj_ref_t), 0);
        if (!p) {
            stat = NC_ENOMEM;
            goto done;
        }
        if (buf[idx].len)
            memcpy(p, buf[idx].p, buf[idx].len * sizeof(hobj_ref_t));
        if (buf[idx].p)
            H5free_memory(buf[idx].p);
        p[buf[idx].len++] = sref;
        buf[idx].p = p;
    }
    if ((stat = write_dimlist(did, rank, buf, vtid, exists)))
        goto done;
    /* The scale's back references: the new entry goes last. */
    if ((stat = read_reflist(dsid, &list, &n)))
        goto done;
    if (!(nl = realloc(list, (n + 1) * sizeof(*nl)))) {
        stat = NC_ENOMEM;
        goto done;
    }
    list = nl;
    memset(&list[n], 0, sizeof(list[n]));
    list[n].ref = dref;
    list[n].dim = idx;
    if ((stat = write_reflist(dsid, list, n + 1)))
        goto done;
    if (!nc4h5_ds_is_scale(dsid))
        stat = set_string_att(dsid, DS_CLASS_ATT, DS_CLASS_VALUE);
done:
    if (buf) {
        free_dimlist(buf, rank);
        free(buf);
    }
    free(list);
    if (vtid >= 0) H5Tclose(vtid);
    return stat;
}

int
nc4h5_ds_detach(hid_t did, hid_t dsid, int idx)
{
    int stat = NC_NOERR, rank, exists = 0, found = 0;
    hobj_ref_t dref, sref;
    hvl_t *buf = NULL;
    hid_t vtid = -1;
    ds_ref_entry *list = NULL;
    size_t n = 0;

    if ((rank = dataset_rank(did)) < 0)
        return NC_EHDFERR;
    if (idx < 0 || idx >= rank)
        return NC_EDIMSCALE;
    if (H5Rcreate(&dref, did, ".", H5R_OBJECT, -1) < 0 ||
        H5Rcreate(&sref, dsid, ".", H5R_OBJECT, -1) < 0)
        return NC_EHDFERR;
    if ((vtid = H5Tvlen_create(H5T_STD_REF_OBJ)) < 0)
        return NC_EHDFERR;
    if (!(buf = calloc((size_t)rank, sizeof(hvl_t)))) {
        stat = NC_ENOMEM;
        goto done;
    }
    if ((stat = read_dimlist(did, rank, buf, vtid, &exists)))
        goto done;
    /* As H5DS: the last reference of that dimension takes the found one's place. */
    for (size_t j = 0; j < buf[idx].len; j++) {
        hobj_ref_t *p = buf[idx].p;
        if (p[j] == sref) {
            p[j] = p[buf[idx].len - 1];
            buf[idx].len--;
            found = 1;
            break;
        }
    }
    if (!found)              /* not attached: nothing to undo */
        goto done;
    if ((stat = write_dimlist(did, rank, buf, vtid, exists)))
        goto done;
    if ((stat = read_reflist(dsid, &list, &n)))
        goto done;
    for (size_t i = 0; i < n; i++)
        if (list[i].dim == idx && list[i].ref == dref) {
            list[i] = list[n - 1];
            n--;
            stat = write_reflist(dsid, list, n);
            break;
        }
done:
    if (buf) {
        free_dimlist(buf, rank);
        free(buf);
    }
    free(list);
    if (vtid >= 0) H5Tclose(vtid);
    return stat;
}

int
nc4h5_ds_remove_scale_atts(hid_t did)
{
    static const char *const names[] = {NC4H5_DIMID_ATT, DS_CLASS_ATT, DS_NAME_ATT};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        htri_t ex = H5Aexists(did, names[i]);
        if (ex < 0)
            return NC_EHDFERR;
        if (ex > 0 && H5Adelete(did, names[i]) < 0)
            return NC_EHDFERR;
    }
    return NC_NOERR;
}

/* ---- many attachments at once --------------------------------------------------------------
 * Attaching n variables to one scale one by one rewrites the scale's
 * REFERENCE_LIST n times (O(n^2), as H5DS).  A batch writes each variable's
 * DIMENSION_LIST once and each scale's REFERENCE_LIST once, with the
 * entries in the order of the calls: the same attributes, in the same
 * creation order, as the one-by-one attachments (nothing else is written to
 * the scales in between). */
typedef struct ds_pending {
    hobj_ref_t sref;   /* the scale */
    hid_t dsid;        /* borrowed */
    size_t seq;        /* call order */
    ds_ref_entry entry;
} ds_pending;

struct nc4h5_ds_batch {
    ds_pending *p;
    size_t n, cap;
};

nc4h5_ds_batch *
nc4h5_ds_batch_new(void)
{
    return calloc(1, sizeof(nc4h5_ds_batch));
}

void
nc4h5_ds_batch_free(nc4h5_ds_batch *b)
{
    if (b) {
        free(b->p);
        free(b);
    }
}

int
nc4h5_ds_batch_attach(nc4h5_ds_batch *b, hid_t did, int ndims, const hid_t *dsids)
{
    int stat = NC_NOERR, rank, exists = 0, changed = 0;
    hobj_ref_t dref;
    hvl_t *buf = NULL;
    hid_t vtid = -1;

    if ((rank = dataset_rank(did)) < 0)
        return NC_EHDFERR;
    if (rank != ndims)
        return NC_EDIMSCALE;
    if (H5Rcreate(&dref, did, ".", H5R_OBJECT, -1) < 0)
        return NC_EHDFERR;
    if ((vtid = H5Tvlen_create(H5T_STD_REF_OBJ)) < 0)
        return NC_EHDFERR;
    if (!(buf = calloc((size_t)(rank ? rank : 1), sizeof(hvl_t)))) {
        stat = NC_ENOMEM;
        goto done;
    }
    if ((stat = read_dimlist(did, rank, buf, vtid, &exists)))
        goto done;
    for (int k = 0; k < rank; k++) {
        hobj_ref_t sref;
        int found = 0;
        hobj_ref_t *p;
        if (dsids[k] < 0)
            continue;
        if (H5Rcreate(&sref, dsids[k], ".", H5R_OBJECT, -1) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        if (sref == dref) {
            stat = NC_EDIMSCALE;
            goto done;
        }
        for (size_t j = 0; j < buf[k].len; j++)
            if (((hobj_ref_t *)buf[k].p)[j] == sref)
                found = 1;
        if (found)
            continue;
        if (!(p = H5allocate_memory((buf[k].len + 1) * sizeof(hobj_ref_t), 0))) {
            stat = NC_ENOMEM;
            goto done;
        }
        if (buf[k].len)
            memcpy(p, buf[k].p, buf[k].len * sizeof(hobj_ref_t));
        if (buf[k].p)
            H5free_memory(buf[k].p);
        p[buf[k].len++] = sref;
        buf[k].p = p;
        changed = 1;
        if (b->n == b->cap) {
            size_t cap = b->cap ? 2 * b->cap : 64;
            ds_pending *np = realloc(b->p, cap * sizeof(*np));
            if (!np) {
                stat = NC_ENOMEM;
                goto done;
            }
            b->p = np;
            b->cap = cap;
        }
        memset(&b->p[b->n], 0, sizeof(b->p[b->n]));
        b->p[b->n].sref = sref;
        b->p[b->n].dsid = dsids[k];
        b->p[b->n].seq = b->n;
        b->p[b->n].entry.ref = dref;
        b->p[b->n].entry.dim = k;
        b->n++;
    }
    if (changed)
        stat = write_dimlist(did, rank, buf, vtid, exists);
done:
    if (buf) {
        free_dimlist(buf, rank);
        free(buf);
    }
    if (vtid >= 0) H5Tclose(vtid);
    return stat;
}

static int
cmp_pending(const void *a, const void *b)
{
    const ds_pending *x = a, *y = b;
    if (x->sref != y->sref)
        return x->sref < y->sref ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int
nc4h5_ds_batch_commit(nc4h5_ds_batch *b)
{
    int stat = NC_NOERR;
    size_t i = 0;

    if (b->n > 1)
        qsort(b->p, b->n, sizeof(*b->p), cmp_pending);
    while (i < b->n && !stat) {
        size_t j = i, n = 0;
        ds_ref_entry *list = NULL, *nl;
        while (j < b->n && b->p[j].sref == b->p[i].sref)
            j++;
        if ((stat = read_reflist(b->p[i].dsid, &list, &n)) == NC_NOERR) {
            if (!(nl = realloc(list, (n + (j - i)) * sizeof(*nl)))) {
                stat = NC_ENOMEM;
            } else {
                list = nl;
                for (size_t k = i; k < j; k++)
                    list[n++] = b->p[k].entry;
                stat = write_reflist(b->p[i].dsid, list, n);
                if (!stat && !nc4h5_ds_is_scale(b->p[i].dsid))
                    stat = set_string_att(b->p[i].dsid, DS_CLASS_ATT, DS_CLASS_VALUE);
            }
        }
        free(list);
        i = j;
    }
    b->n = 0;
    return stat;
}

int
nc4h5_ds_rewrite_reflist(hid_t dsid)
{
    ds_ref_entry *list = NULL;
    size_t n = 0;
    int stat = read_reflist(dsid, &list, &n);
    if (!stat && n)
        stat = write_reflist(dsid, list, n);
    free(list);
    return stat;
}
