/* hdf5att.c: attributes of groups and datasets, read at open and written at
 * flush.
 *
 * On disk, as upstream writes them: NC_CHAR values are one scalar fixed-size
 * string of len bytes (H5T_C_S1, NULLTERM, ASCII); NC_STRING values a 1-D
 * array of variable-length UTF-8 strings; every other type a 1-D array of
 * len values of the file type (native order); len 0 is a null dataspace.
 * The hidden convention attributes are scalars when they hold one number
 * (_Netcdf4Dimid, _nc3_strict) and 1-D otherwise (_Netcdf4Coordinates).
 *
 * Read rules (upstream's read_hdf5_att): a scalar fixed-size string is NC_CHAR
 * of its size; an array of fixed-size strings is NC_STRING; attributes of a
 * type netCDF cannot represent are skipped, not fatal; order is creation
 * order (or the stored order when the object does not track it). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "hdf5int.h"

/* Attributes the netCDF API never shows (upstream's reserved list). */
static const char *const hidden_atts[] = {
    "CLASS", "DIMENSION_LIST", "NAME", "REFERENCE_LIST", "_Format", "_IsNetcdf4",
    NC4H5_NCPROPS_ATT, NC4H5_COORDS_ATT, NC4H5_DIMID_ATT, "_SuperblockVersion",
    NC4H5_STRICT_ATT, NULL
};

int
nc4h5_is_hidden_att(const char *name)
{
    for (const char *const *p = hidden_atts; *p; p++)
        if (strcmp(name, *p) == 0)
            return 1;
    return 0;
}

typedef struct {
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    int stat;      /* first hard error (NC_ENOMEM ...) */
} read_ctx;

/* Read one string-class attribute (fixed or variable size). */
static int
read_string_att(read_ctx *c, hid_t loc, const char *name, hid_t aid, hid_t ftid, hid_t sid,
                int ndims, hssize_t npoints)
{
    htri_t var = H5Tis_variable_str(ftid);
    size_t fsize = H5Tget_size(ftid);
    char **strs = NULL;
    char *buf = NULL;
    hid_t mtid = -1;
    size_t n;
    int stat = NC_NOERR;

    if (var < 0 || npoints < 0)
        return NC_EHDFERR;
    n = (size_t)npoints;
    if (!var && ndims == 0) {
        /* One fixed-size string: NC_CHAR of its size (null space: empty). */
        if (npoints == 0)
            return nc4_set_att(c->g, c->var, name, NC_CHAR, 0, NULL, NULL);
        if (fsize == 0)
            return NC_EHDFERR;
        if ((buf = malloc(fsize)) == NULL)
            return NC_ENOMEM;
        if (H5Aread(aid, ftid, buf) < 0)
            stat = NC_EHDFERR;
        else
            stat = nc4_set_att(c->g, c->var, name, NC_CHAR, fsize, buf, NULL);
        free(buf);
        return stat;
    }
    if (n == 0)
        return nc4_set_att(c->g, c->var, name, NC_STRING, 0, NULL, NULL);
    if (n > SIZE_MAX / sizeof(char *) || (!var && n > SIZE_MAX / (fsize + 1)))
        return NC_ENOMEM;
    if ((strs = calloc(n, sizeof(char *))) == NULL)
        return NC_ENOMEM;
    if (var) {
        if ((mtid = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mtid, H5T_VARIABLE) < 0 ||
            H5Tset_cset(mtid, H5Tget_cset(ftid)) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        if ((stat = nc4h5_guard_att(c->f, loc, name, ftid, (hsize_t)n))) {
            c->stat = stat;   /* a damaged file: the open fails */
            goto done;
        }
        if (H5Aread(aid, mtid, strs) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        stat = nc4_set_att(c->g, c->var, name, NC_STRING, n, strs, NULL);
        H5Dvlen_reclaim(mtid, sid, H5P_DEFAULT, strs);
    } else {
        /* Fixed-size strings: one block, each terminated in a copy. */
        char *fixed = NULL;
        if (fsize == 0 || (fixed = malloc(n * fsize)) == NULL ||
            (buf = malloc(n * (fsize + 1))) == NULL) {
            if (fsize != 0 && buf == NULL)
                free(fixed);
            stat = fsize == 0 ? NC_EHDFERR : NC_ENOMEM;
            goto done;
        }
        if (H5Aread(aid, ftid, fixed) < 0) {
            free(fixed);
            stat = NC_EHDFERR;
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            char *s = buf + i * (fsize + 1);
            memcpy(s, fixed + i * fsize, fsize);
            s[fsize] = '\0';
            strs[i] = s;
        }
        free(fixed);
        stat = nc4_set_att(c->g, c->var, name, NC_STRING, n, strs, NULL);
    }
done:
    if (mtid >= 0)
        H5Tclose(mtid);
    free(buf);
    free(strs);
    return stat;
}

/* Read one attribute into the model; NC_EBADTYPE and friends mean "skip". */
static int
read_one(read_ctx *c, hid_t loc, const char *name)
{
    hid_t aid = -1, ftid = -1, sid = -1, mtid = -1;
    int ndims;
    hssize_t npoints;
    H5S_class_t sclass;
    nc_type xtype;
    size_t len, tsize;
    void *buf = NULL;
    int stat = NC_NOERR;

    if ((aid = H5Aopen(loc, name, H5P_DEFAULT)) < 0 ||
        (ftid = H5Aget_type(aid)) < 0 || (sid = H5Aget_space(aid)) < 0) {
        stat = NC_EATTMETA;
        goto done;
    }
    if ((ndims = H5Sget_simple_extent_ndims(sid)) < 0 ||
        (npoints = H5Sget_simple_extent_npoints(sid)) < 0 ||
        (sclass = H5Sget_simple_extent_type(sid)) < 0) {
        stat = NC_EATTMETA;
        goto done;
    }
    if (H5Tget_class(ftid) == H5T_STRING) {
        stat = read_string_att(c, loc, name, aid, ftid, sid, ndims, npoints);
        goto done;
    }
    if ((stat = nc4h5_find_type_for(c->f, c->g, ftid, &xtype)))
        goto done;
    /* Attributes are 1-D; others netCDF cannot show are left out. */
    if (ndims > 1) {
        stat = NC_EBADTYPE;
        goto done;
    }
    len = sclass == H5S_NULL ? 0 : (size_t)npoints;
    if (len == 0) {
        stat = nc4_set_att(c->g, c->var, name, xtype, 0, NULL, NULL);
        goto done;
    }
    if ((tsize = nc4_type_size(c->f, xtype)) == 0) {
        stat = NC_EBADTYPE;
        goto done;
    }
    if (len > SIZE_MAX / tsize) {
        stat = NC_ENOMEM;
        goto done;
    }
    if ((stat = nc4h5_hdf5_type(c->f, xtype, NC_ENDIAN_NATIVE, 0, &mtid)))
        goto done;
    if ((buf = calloc(len, tsize)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    if (nc4_type_has_pointers(c->f, xtype) > 0 &&
        (stat = nc4h5_guard_att(c->f, loc, name, ftid, (hsize_t)len))) {
        c->stat = stat;   /* a damaged file: the open fails */
        goto done;
    }
    if (H5Aread(aid, mtid, buf) < 0) {
        stat = NC_EATTMETA;
        goto done;
    }
    stat = nc4_set_att(c->g, c->var, name, xtype, len, buf, NULL);
    if (nc4_type_has_pointers(c->f, xtype) > 0)
        H5Dvlen_reclaim(mtid, sid, H5P_DEFAULT, buf);
done:
    free(buf);
    if (mtid >= 0)
        H5Tclose(mtid);
    if (sid >= 0)
        H5Sclose(sid);
    if (ftid >= 0)
        H5Tclose(ftid);
    if (aid >= 0)
        H5Aclose(aid);
    return stat;
}

static herr_t
read_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    read_ctx *c = (read_ctx *)data;
    int stat;

    (void)info;
    if (nc4h5_is_hidden_att(name))
        return 0;
    stat = read_one(c, loc, name);
    if (c->stat)
        return -1;
    if (stat == NC_ENOMEM) {
        c->stat = stat;
        return -1;
    }
    /* Anything else (unknown types, odd spaces) skips this attribute. */
    if (stat == NC_NOERR) {
        NC4_index *list = c->var ? &c->var->atts : &c->g->atts;
        NC4_att *att = (NC4_att *)nc4_index_find(list, name);
        if (att != NULL) {
            att->dirty = 0;
            if (att->hdr.stored_name == NULL && (att->hdr.stored_name = strdup(name)) == NULL) {
                c->stat = NC_ENOMEM;
                return -1;
            }
        }
    }
    return 0;
}

int
nc4h5_read_atts(NC4_file *f, NC4_grp *g, NC4_var *var, hid_t obj)
{
    read_ctx c = {f, g, var, NC_NOERR};
    hsize_t idx = 0;

    /* Creation order, as upstream asks; on an object that does not track it
     * HDF5 gives the order of its attribute messages (compact storage) or
     * fails (dense storage), and then name order is the only one left. */
    if (H5Aiterate2(obj, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, read_cb, &c) >= 0)
        return c.stat;
    if (c.stat)
        return c.stat;
    if (idx == 0 &&
        H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, read_cb, &c) >= 0)
        return c.stat;
    return c.stat ? c.stat : NC_EATTMETA;
}

int
nc4h5_delete_att(hid_t obj, const char *name)
{
    htri_t ex;
    int stat = NC_NOERR;

    nc4h5_lock();
    if ((ex = H5Aexists(obj, name)) < 0)
        stat = NC_EHDFERR;
    else if (ex > 0 && H5Adelete(obj, name) < 0)
        stat = NC_EHDFERR;
    nc4h5_unlock();
    return stat;
}

/* Whether attribute aid has file type ftid and the shape of dataspace sid. */
static int
same_type_and_shape(hid_t aid, hid_t ftid, hid_t sid)
{
    hid_t otid = H5Aget_type(aid), osid = H5Aget_space(aid);
    int same = otid >= 0 && osid >= 0 && H5Tequal(otid, ftid) > 0 &&
               H5Sget_simple_extent_type(osid) == H5Sget_simple_extent_type(sid) &&
               H5Sget_simple_extent_npoints(osid) == H5Sget_simple_extent_npoints(sid);
    if (otid >= 0)
        H5Tclose(otid);
    if (osid >= 0)
        H5Sclose(osid);
    return same;
}

/* Create attribute name on obj and write data.  With reuse, an old
 * attribute of the same type and number of values is written in place,
 * keeping its place in the creation order (upstream's rule: only a changed
 * type or length deletes it and creates it anew, last in that order). */
static int
create_att(hid_t obj, const char *name, hid_t ftid, hid_t sid, hid_t mtid, const void *data,
           int reuse)
{
    hid_t aid;
    int stat = NC_NOERR;
    htri_t ex = H5Aexists(obj, name);

    if (ex < 0)
        return NC_EHDFERR;
    if (ex > 0 && reuse) {
        if ((aid = H5Aopen(obj, name, H5P_DEFAULT)) < 0)
            return NC_EATTMETA;
        if (same_type_and_shape(aid, ftid, sid)) {
            if (data != NULL && H5Awrite(aid, mtid, data) < 0)
                stat = NC_EATTMETA;
            if (H5Aclose(aid) < 0 && !stat)
                stat = NC_EHDFERR;
            return stat;
        }
        H5Aclose(aid);
    }
    if (ex > 0 && H5Adelete(obj, name) < 0)
        return NC_EHDFERR;
    if ((aid = H5Acreate2(obj, name, ftid, sid, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        return NC_EATTMETA;
    if (data != NULL && H5Awrite(aid, mtid, data) < 0)
        stat = NC_EATTMETA;
    if (H5Aclose(aid) < 0 && !stat)
        stat = NC_EHDFERR;
    return stat;
}

int
nc4h5_write_att(NC4_file *f, hid_t obj, const NC4_att *att)
{
    hid_t ftid = -1, mtid = -1, sid = -1;
    const char *name = att->hdr.name;
    int stat = NC_NOERR;

    nc4h5_lock();
    if (att->xtype == NC_CHAR) {
        /* One fixed-size string of len bytes (size 1 when empty). */
        if ((ftid = H5Tcopy(H5T_C_S1)) < 0 ||
            H5Tset_size(ftid, att->len ? att->len : 1) < 0 ||
            H5Tset_strpad(ftid, H5T_STR_NULLTERM) < 0 ||
            H5Tset_cset(ftid, H5T_CSET_ASCII) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        if ((sid = H5Screate(att->len ? H5S_SCALAR : H5S_NULL)) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        stat = create_att(obj, name, ftid, sid, ftid, att->len ? att->data : NULL, 1);
        goto done;
    }
    if ((stat = nc4h5_hdf5_type(f, att->xtype, NC_ENDIAN_NATIVE, 1, &ftid)))
        goto done;
    if ((stat = nc4h5_hdf5_type(f, att->xtype, NC_ENDIAN_NATIVE, 0, &mtid)))
        goto done;
    if (att->len == 0) {
        sid = H5Screate(H5S_NULL);
    } else {
        hsize_t dim = (hsize_t)att->len;
        sid = H5Screate_simple(1, &dim, NULL);
    }
    if (sid < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    stat = create_att(obj, name, ftid, sid, mtid, att->len ? att->data : NULL, 1);
done:
    if (sid >= 0)
        H5Sclose(sid);
    if (mtid >= 0)
        H5Tclose(mtid);
    if (ftid >= 0)
        H5Tclose(ftid);
    nc4h5_unlock();
    return stat;
}

int
nc4h5_write_int_att(hid_t obj, const char *name, int n, const int *values)
{
    hid_t sid;
    int stat;
    hsize_t dim = (hsize_t)(n > 0 ? n : 0);

    nc4h5_lock();
    /* Upstream: one dimension id is a scalar, a coordinates list is 1-D. */
    if (n == 1 && strcmp(name, NC4H5_COORDS_ATT) != 0)
        sid = H5Screate(H5S_SCALAR);
    else if (n > 0)
        sid = H5Screate_simple(1, &dim, NULL);
    else
        sid = H5Screate(H5S_NULL);
    if (sid < 0) {
        nc4h5_unlock();
        return NC_EHDFERR;
    }
    stat = create_att(obj, name, H5T_NATIVE_INT, sid, H5T_NATIVE_INT, n > 0 ? values : NULL, 0);
    H5Sclose(sid);
    nc4h5_unlock();
    return stat;
}

int
nc4h5_write_text_att(hid_t obj, const char *name, const char *text)
{
    hid_t tid = -1, sid = -1;
    size_t len = strlen(text);
    int stat = NC_NOERR;

    nc4h5_lock();
    if ((tid = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(tid, len ? len : 1) < 0 ||
        H5Tset_strpad(tid, H5T_STR_NULLTERM) < 0 || H5Tset_cset(tid, H5T_CSET_ASCII) < 0 ||
        (sid = H5Screate(H5S_SCALAR)) < 0)
        stat = NC_EHDFERR;
    else
        stat = create_att(obj, name, tid, sid, tid, len ? text : "", 0);
    if (sid >= 0)
        H5Sclose(sid);
    if (tid >= 0)
        H5Tclose(tid);
    nc4h5_unlock();
    return stat;
}
