/* hdf5open.c: NC4_HDF5_open, an HDF5 file (on disk, diskless or in memory)
 * loaded into the model, as upstream 4.10.1 reads it.
 *
 * Two passes.  The walk (pass 1) visits every group as upstream does: the
 * links of a group in creation order (name order when the group does not
 * track it, which upstream allows read-only only: NC_ECANTWRITE), committed
 * datatypes read into the model as they come, datasets noted with what
 * matters for dimensions (dimension-scale flags, _Netcdf4Dimid,
 * _Netcdf4Coordinates, the DIMENSION_LIST references), child groups after all
 * of their parent's objects, depth first (group ids in that order).
 *
 * The resolve (pass 2) makes the model from the notes:
 *   - dimensions of the dimension scales, with the ids upstream gives them
 *     (_Netcdf4Dimid, else the next free id in walk order);
 *   - each dataset's dimensions: _Netcdf4Coordinates, else the scale itself
 *     (coordinate variable), else the scales its DIMENSION_LIST points at
 *     (this group, then the ancestors; the last scale attached to a dimension
 *     wins), else phony dimensions "phony_dim_N", shared within a group by
 *     length and unlimitedness but never twice in one variable; groups are
 *     matched children first, as upstream's rec_match_dimscales;
 *   - variables in walk order (datasets of types netCDF lacks are skipped),
 *     storage, filters, fill value, endianness, attributes;
 *   - unlimited lengths: the largest extent among the variables using them.
 * Everything read is marked stored (stored_name = the HDF5 link name).
 *
 * Each dataset is opened once here (with a one-slot chunk cache on
 * read-only files), read (one pass over its attributes for the hidden ones,
 * DIMENSION_LIST only when _Netcdf4Coordinates cannot settle the
 * dimensions), and closed: variables open their dataset again on first use
 * (nc4h5_var_open_dataset), the phony dimension datasets when a flush needs
 * them.  Group ids and committed types stay open on the fmt state until
 * nc4h5_free_fmt; every other id is closed before returning.
 *
 * Read-only files on disk are read first by hdf5native.c, without HDF5. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hdf5open.h"
#include "ncremote.h"

/* ---- fmt state -------------------------------------------------------------------- */

static void
close_id(hid_t id)
{
    if (id >= 0)
        H5Idec_ref(id);
}

void
nc4h5_free_fmt(NC4_file *f, void *fmt)
{
    int kind;

    (void)f;
    if (fmt == NULL)
        return;
    kind = *(int *)fmt;
    nc4h5_lock();
    switch (kind) {
    case NC4H5_KFILE: {
        NC4H5_file *hf = (NC4H5_file *)fmt;
        if (hf->fid >= 0)
            H5Fclose(hf->fid);
#if NC_ENABLE_PARALLEL4
        nc4h5_par_end(&hf->par);
#endif
        /* An image the library took over (nc_open_memio, unlocked, NC_WRITE)
         * is ours to free unless the close handed it back (memory NULL). */
        if (hf->mem == NC_INMEMORY && !hf->memio_locked && hf->memio.memory != NULL &&
            hf->memio_owned)
            free(hf->memio.memory);
        nc4h5_guard_drop(hf);
        nc4h5_remote_release(hf->remote);
        free(hf->path);
        break;
    }
    case NC4H5_KGRP: close_id(((NC4H5_grp *)fmt)->gid); break;
    case NC4H5_KDIM: close_id(((NC4H5_dim *)fmt)->dsid); break;
    case NC4H5_KVAR:
        nc4h5_chunk_cache_drop((NC4H5_var *)fmt);
        close_id(((NC4H5_var *)fmt)->did);
        break;
    case NC4H5_KTYPE:
        close_id(((NC4H5_type *)fmt)->ftid);
        close_id(((NC4H5_type *)fmt)->mtid);
        break;
    default: break;
    }
    nc4h5_unlock();
    free(fmt);
}

const NC4_storage_ops nc4h5_ops = {
    .check_chunking = nc4h5_check_chunking,
    .check_filter = nc4h5_check_filter,
    .free_fmt = nc4h5_free_fmt,
    .enddef = nc4h5_enddef,
    .remakes_fill = 1,  /* hdf5flush.c remakes a dataset whose fill changed */
    .close = nc4h5_close,
    .check_close = nc4h5_check_close,
};

/* ---- file images ------------------------------------------------------------------ */

/* The superblock checksum of an image, recomputed (HDF5 1.10 leaves a stale one). */
int
nc4h5_fix_image(void *buf, size_t size)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char *p = buf;

    /* The superblock is at 0 or after a user block of 512 * 2^k bytes. */
    for (size_t at = 0; at + 16 <= size; at = at ? at * 2 : 512) {
        unsigned char *sb = p + at;
        size_t end;
        uint32_t sum;
        if (memcmp(sb, sig, 8) != 0)
            continue;
        if (sb[8] != 2 && sb[8] != 3)
            return NC_NOERR;   /* versions 0/1 carry no checksum */
        end = 12 + 4 * (size_t)sb[9];
        if (sb[9] == 0 || at + end + 4 > size)
            return NC_NOERR;
        sum = h5n_lookup3(sb, end);
        sb[end] = (unsigned char)sum;
        sb[end + 1] = (unsigned char)(sum >> 8);
        sb[end + 2] = (unsigned char)(sum >> 16);
        sb[end + 3] = (unsigned char)(sum >> 24);
        return NC_NOERR;
    }
    return NC_NOERR;
}

/* ---- notes of the walk ---------------------------------------------------------- */


int
nc4h5_obj_addr(hid_t oid, haddr_t *addr)
{
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t oi;
    if (H5Oget_info3(oid, &oi, H5O_INFO_BASIC) < 0)
        return NC_EHDFERR;
    if (H5VLnative_token_to_addr(oid, oi.token, addr) < 0)
        return NC_EHDFERR;
#else
    H5O_info_t oi;
    if (H5Oget_info2(oid, &oi, H5O_INFO_BASIC) < 0)
        return NC_EHDFERR;
    *addr = oi.addr;
#endif
    return NC_NOERR;
}

/* Text of a string attribute (fixed or variable), NULL if absent or not a
 * string; *errp set (NC_EHDFERR) only when a variable-length value's heap
 * reference is damaged.  The caller frees. */
static char *
read_text_att_present(NC4_file *f, hid_t obj, const char *name, int *errp)
{
    hid_t aid = -1, tid = -1, sid = -1, mtid = -1;
    char *text = NULL;

    if ((aid = H5Aopen(obj, name, H5P_DEFAULT)) < 0 || (tid = H5Aget_type(aid)) < 0 ||
        (sid = H5Aget_space(aid)) < 0)
        goto done;
    if (H5Tget_class(tid) != H5T_STRING || H5Sget_simple_extent_npoints(sid) != 1)
        goto done;
    if (H5Tis_variable_str(tid) > 0) {
        char *v = NULL;
        if ((mtid = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mtid, H5T_VARIABLE) < 0)
            goto done;
        int g = nc4h5_guard_att(f, obj, name, tid, 1);
        if (g) {
            *errp = g;
            goto done;
        }
        if (H5Aread(aid, mtid, &v) < 0)
            goto done;
        if (v != NULL) {
            text = strdup(v);
            H5Dvlen_reclaim(mtid, sid, H5P_DEFAULT, &v);
        }
    } else {
        size_t size = H5Tget_size(tid);
        if (size == 0 || size > ((size_t)1 << 26))
            goto done;
        if ((mtid = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mtid, size + 1) < 0 ||
            H5Tset_strpad(mtid, H5T_STR_NULLTERM) < 0)
            goto done;
        if ((text = calloc(1, size + 1)) == NULL)
            goto done;
        if (H5Aread(aid, mtid, text) < 0) {
            free(text);
            text = NULL;
        }
    }
done:
    if (mtid >= 0)
        H5Tclose(mtid);
    if (sid >= 0)
        H5Sclose(sid);
    if (tid >= 0)
        H5Tclose(tid);
    if (aid >= 0)
        H5Aclose(aid);
    return text;
}

static char *
read_text_att(NC4_file *f, hid_t obj, const char *name, int *errp)
{
    if (H5Aexists(obj, name) <= 0)
        return NULL;
    return read_text_att_present(f, obj, name, errp);
}

/* Integers of an integer attribute (known to exist) when it holds exactly
 * n of them. */
static int
read_ints_att(hid_t obj, const char *name, int n, int *out)
{
    hid_t aid = -1, tid = -1, sid = -1;
    int ok = 0;

    if ((aid = H5Aopen(obj, name, H5P_DEFAULT)) >= 0 && (tid = H5Aget_type(aid)) >= 0 &&
        (sid = H5Aget_space(aid)) >= 0 && H5Tget_class(tid) == H5T_INTEGER &&
        H5Sget_simple_extent_npoints(sid) == n && H5Aread(aid, H5T_NATIVE_INT, out) >= 0)
        ok = 1;
    if (sid >= 0)
        H5Sclose(sid);
    if (tid >= 0)
        H5Tclose(tid);
    if (aid >= 0)
        H5Aclose(aid);
    return ok;
}

/* The DIMENSION_LIST of a dataset: for each dimension the address of the
 * last scale attached (as H5DSiterate_scales visits them). */
static int
read_dimlist(NC4_file *f, hid_t did, int ndims, haddr_t *addrs, int *dim0_has)
{
    hid_t aid = -1, tid = -1, sid = -1, mtid = -1, super = -1;
    hvl_t vl[H5S_MAX_RANK];
    int read = 0, stat = NC_NOERR;

    *dim0_has = 0;
    for (int d = 0; d < ndims; d++)
        addrs[d] = HADDR_UNDEF;
    if ((aid = H5Aopen(did, "DIMENSION_LIST", H5P_DEFAULT)) < 0 ||
        (tid = H5Aget_type(aid)) < 0 || (sid = H5Aget_space(aid)) < 0)
        goto done;
    if (H5Tget_class(tid) != H5T_VLEN || (super = H5Tget_super(tid)) < 0 ||
        H5Tget_class(super) != H5T_REFERENCE || H5Tequal(super, H5T_STD_REF_OBJ) <= 0 ||
        H5Sget_simple_extent_npoints(sid) != ndims)
        goto done;
    if ((mtid = H5Tvlen_create(H5T_STD_REF_OBJ)) < 0)
        goto done;
    /* A damaged length or heap reference: H5Aread would allocate what the
     * length says (2^31 references from a 10 KB file) or copy out of bounds. */
    if ((stat = nc4h5_guard_att(f, did, "DIMENSION_LIST", tid, (hsize_t)ndims)))
        goto done;
    memset(vl, 0, sizeof(vl));
    if (H5Aread(aid, mtid, vl) < 0)
        goto done;
    read = 1;
    for (int d = 0; d < ndims; d++) {
        if (vl[d].len > 0 && vl[d].p != NULL)
            addrs[d] = (haddr_t)((hobj_ref_t *)vl[d].p)[vl[d].len - 1];
    }
    *dim0_has = addrs[0] != HADDR_UNDEF;
done:
    if (read)
        H5Dvlen_reclaim(mtid, sid, H5P_DEFAULT, vl);
    if (mtid >= 0)
        H5Tclose(mtid);
    if (super >= 0)
        H5Tclose(super);
    if (sid >= 0)
        H5Sclose(sid);
    if (tid >= 0)
        H5Tclose(tid);
    if (aid >= 0)
        H5Aclose(aid);
    return stat;
}

/* One pass over a dataset's attributes for the hidden ones the dimension
 * matching needs (H5Aexists + H5Aopen per name cost several lookups each). */
typedef struct {
    open_ctx *c;
    ds_note *n;
    int is_scale_class;  /* CLASS = "DIMENSION_SCALE" (H5DSis_scale) */
    int has_name, has_dimid, has_coords;
} att_scan;

static herr_t
scan_att_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    att_scan *s = (att_scan *)data;
    (void)info;
    if (name[0] != 'C' && name[0] != 'N' && name[0] != 'D' && name[0] != 'R' &&
        name[0] != '_')
        return 0;   /* no hidden name starts otherwise */
    if (!nc4h5_is_hidden_att(name))
        return 0;
    if (s->c->count_markers)
        s->c->markers++;
    if (strcmp(name, "CLASS") == 0) {
        int err = NC_NOERR;
        char *cls = read_text_att_present(s->c->f, loc, name, &err);
        s->is_scale_class = cls != NULL && strcmp(cls, "DIMENSION_SCALE") == 0;
        free(cls);
        if (err)
            return -1;   /* a damaged file: the open fails */
    } else if (strcmp(name, "NAME") == 0) {
        s->has_name = 1;
    } else if (strcmp(name, NC4H5_DIMID_ATT) == 0) {
        s->has_dimid = 1;
    } else if (strcmp(name, NC4H5_COORDS_ATT) == 0) {
        s->has_coords = 1;
    } else if (strcmp(name, "DIMENSION_LIST") == 0) {
        s->n->has_dimlist = 1;
    }
    return 0;
}

/* Read the DIMENSION_LIST of note n (its dataset open) once. */
int
nc4h5o_note_dimlist(open_ctx *c, ds_note *n)
{
    if (n->dimlist != NULL || n->ndims == 0 || (n->did < 0 && n->obj == NULL))
        return NC_NOERR;
    if ((n->dimlist = malloc((size_t)n->ndims * sizeof(haddr_t))) == NULL)
        return NC_ENOMEM;
    for (int d = 0; d < n->ndims; d++)
        n->dimlist[d] = HADDR_UNDEF;
    n->has_scales = 0;
    if (!n->has_dimlist)
        return NC_NOERR;
    if (n->obj != NULL)
        return nc4h5o_native_dimlist(c, n);
    return read_dimlist(c->f, n->did, n->ndims, n->dimlist, &n->has_scales);
}

static void
free_note(ds_note *n)
{
    free(n->name);
    close_id(n->did);
    free(n->coords);
    free(n->dimlist);
    free(n->dimids);
    if (n->obj != NULL) {
        h5n_obj_free(n->obj);
        free(n->obj);
    }
}

/* Note one dataset of group gi (takes did). */
static int
note_dataset(open_ctx *c, size_t gi, const char *name, hid_t did)
{
    grp_note *gn = &c->grps[gi];
    ds_note *n;
    hid_t sid;
    int ndims;
    int stat = NC_NOERR;

    if (gn->nds == gn->cap) {
        size_t cap = gn->cap ? 2 * gn->cap : 16;
        ds_note *p = realloc(gn->ds, cap * sizeof(*p));
        if (p == NULL) {
            close_id(did);
            return NC_ENOMEM;
        }
        gn->ds = p;
        gn->cap = cap;
    }
    n = &gn->ds[gn->nds];
    memset(n, 0, sizeof(*n));
    n->did = did;
    n->assigned_id = -1;
    n->upstream_id = -1;
    n->addr = HADDR_UNDEF;
    if ((n->name = strdup(name)) == NULL) {
        close_id(did);
        return NC_ENOMEM;
    }
    gn->nds++;

    if ((sid = H5Dget_space(did)) < 0)
        return NC_EHDFERR;
    ndims = H5Sget_simple_extent_dims(sid, n->dims, n->maxdims);
    H5Sclose(sid);
    if (ndims < 0 || ndims > H5S_MAX_RANK)
        return NC_EHDFERR;
    n->ndims = ndims;
    /* HDF5 decodes attribute messages as it finds them: checked first. */
    if ((stat = nc4h5_guard_header(c->f, did)))
        return stat;
    if (c->count_markers && strcmp(name, "phony_dim") == 0)
        c->markers++;
    {
        att_scan sc;
        hsize_t idx = 0;
        memset(&sc, 0, sizeof(sc));
        sc.c = c;
        sc.n = n;
        /* Markers are counted over every attribute (rare: files without
         * _NCProperties).  Otherwise the few hidden names are asked by name:
         * an H5Aiterate over all attributes of each dataset made HDF5 hold
         * ~5 KB more per dataset (W7: +57 MB at 10,000 variables). */
        if (c->full_scan) {
            if (H5Aiterate2(did, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, scan_att_cb, &sc) < 0)
                return NC_EHDFERR;
        } else {
            char *cls = ndims >= 1 ? read_text_att(c->f, did, "CLASS", &stat) : NULL;
            sc.is_scale_class = cls != NULL && strcmp(cls, "DIMENSION_SCALE") == 0;
            free(cls);
            if (stat)
                return stat;
            if (sc.is_scale_class) {
                sc.has_name = H5Aexists(did, "NAME") > 0;
                sc.has_dimid = H5Aexists(did, NC4H5_DIMID_ATT) > 0;
            }
            sc.has_coords = ndims > 0 && H5Aexists(did, NC4H5_COORDS_ATT) > 0;
            n->has_dimlist = ndims > 0 && !sc.is_scale_class &&
                             H5Aexists(did, "DIMENSION_LIST") > 0;
            if (c->count_markers)
                c->markers += sc.is_scale_class + sc.has_name + sc.has_dimid + sc.has_coords +
                              n->has_dimlist;
        }
        if (ndims >= 1 && sc.is_scale_class) {
            char *nm;
            int id;
            n->is_scale = 1;
            if (sc.has_dimid && read_ints_att(did, NC4H5_DIMID_ATT, 1, &id) && id >= 0)
                n->assigned_id = id;
            if (sc.has_name && (nm = read_text_att_present(c->f, did, "NAME", &stat)) != NULL) {
                n->dim_only =
                    strncmp(nm, NC4H5_DIMSCALE_NOVAR, strlen(NC4H5_DIMSCALE_NOVAR)) == 0;
                free(nm);
            }
            if (stat || (stat = nc4h5_obj_addr(did, &n->addr)))
                return stat;
        }
        if (ndims > 0 && sc.has_coords) {
            int *co = malloc((size_t)ndims * sizeof(int));
            if (co == NULL)
                return NC_ENOMEM;
            if (read_ints_att(did, NC4H5_COORDS_ATT, ndims, co))
                n->coords = co;
            else
                free(co);
        }
    }
    /* DIMENSION_LIST (references, the costliest read) only when the
     * dimension ids may need it: no _Netcdf4Coordinates, or a writable file
     * (whose flush must know which scales are attached). */
    if (ndims > 0 && !n->is_scale && (!n->coords || !c->readonly) &&
        (stat = nc4h5o_note_dimlist(c, n)))
        return stat;
    return NC_NOERR;
}

typedef struct {
    char **names;
    size_t n, cap;
    int nomem;
} name_list;

/* H5Literate's link info type (HDF5 1.12 renamed the iteration API). */
#if H5_VERSION_GE(1, 12, 0)
typedef H5L_info2_t link_info_t;
#else
typedef H5L_info_t link_info_t;
#endif

static herr_t
collect_cb(hid_t gid, const char *name, const link_info_t *info, void *data)
{
    name_list *l = (name_list *)data;
    (void)gid;
    (void)info;
    if (strlen(name) > NC_MAX_NAME)
        return 0;   /* no netCDF name can hold it: left out */
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        char **p = realloc(l->names, cap * sizeof(*p));
        if (p == NULL) {
            l->nomem = 1;
            return -1;
        }
        l->names = p;
        l->cap = cap;
    }
    if ((l->names[l->n] = strdup(name)) == NULL) {
        l->nomem = 1;
        return -1;
    }
    l->n++;
    return 0;
}

static void
free_names(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
}

/* Walk group gi: types, datasets, then child groups depth first. */
static int
walk_group(open_ctx *c, size_t gi, int depth)
{
    hid_t gid = c->grps[gi].gid, gcpl;
    unsigned order = 0;
    H5_index_t index;
    name_list l = {NULL, 0, 0, 0};
    name_list kids = {NULL, 0, 0, 0};
    hsize_t idx = 0;
    int stat = NC_NOERR;

    if ((gcpl = H5Gget_create_plist(gid)) < 0)
        return NC_EHDFERR;
    if (H5Pget_link_creation_order(gcpl, &order) < 0) {
        H5Pclose(gcpl);
        return NC_EHDFERR;
    }
    H5Pclose(gcpl);
    if (order & H5P_CRT_ORDER_TRACKED) {
        index = H5_INDEX_CRT_ORDER;
    } else {
        /* Upstream cannot keep the order of new objects in such a group. */
        if (!c->readonly)
            return NC_ECANTWRITE;
        index = H5_INDEX_NAME;
    }
    /* In a group with dense link storage and an indexed creation order, the
     * native order of that index is increasing creation order, and HDF5
     * walks its B-tree directly; asked for H5_ITER_INC it builds and frees a
     * table of every link instead, which crashes inside HDF5 1.10.8 on a
     * corrupt link (docs/hdf5-fuzz.md) and costs more. */
    H5_iter_order_t iter = H5_ITER_INC;
    if (index == H5_INDEX_CRT_ORDER && (order & H5P_CRT_ORDER_INDEXED)) {
        H5G_info_t ginfo;
        if (H5Gget_info(gid, &ginfo) >= 0 && ginfo.storage_type == H5G_STORAGE_TYPE_DENSE)
            iter = H5_ITER_NATIVE;
    }
    if (H5Literate(gid, index, iter, &idx, collect_cb, &l) < 0) {
        stat = l.nomem ? NC_ENOMEM : NC_EHDFERR;
        goto done;
    }
    for (size_t i = 0; i < l.n && !stat; i++) {
        hid_t oid = H5Oopen(gid, l.names[i], H5P_DEFAULT);
        H5I_type_t t;
        if (oid < 0) {
            /* A soft or external link may point nowhere: left out.  A hard
             * link's object is in this file: one that does not open is
             * damaged, an error as upstream's, never a quiet omission. */
            link_info_t li;
            if (H5Lget_info(gid, l.names[i], &li, H5P_DEFAULT) < 0 || li.type == H5L_TYPE_HARD)
                stat = NC_EHDFERR;
            continue;
        }
        t = H5Iget_type(oid);
        if (t == H5I_GROUP) {
            H5Oclose(oid);
            /* Children wait until this group's objects are all read. */
            if (kids.n == kids.cap) {
                size_t cap = kids.cap ? 2 * kids.cap : 8;
                char **p = realloc(kids.names, cap * sizeof(*p));
                if (p == NULL) {
                    stat = NC_ENOMEM;
                    break;
                }
                kids.names = p;
                kids.cap = cap;
            }
            kids.names[kids.n++] = l.names[i];
            l.names[i] = NULL;
        } else if (t == H5I_DATATYPE) {
            int s = nc4h5_read_type(c->f, c->grps[gi].g, l.names[i], oid);
            H5Oclose(oid);
            if (s == NC_ENOMEM)
                stat = s;
        } else if (t == H5I_DATASET) {
            stat = note_dataset(c, gi, l.names[i], oid);
        } else {
            H5Oclose(oid);
        }
    }
    for (size_t i = 0; i < kids.n && !stat; i++) {
        NC4_grp *child;
        hid_t cgid;
        haddr_t addr;
        size_t ci;
        int s, seen = 0;
        if ((cgid = H5Gopen2(gid, kids.names[i], H5P_DEFAULT)) < 0)
            continue;
        /* A group reached again through another hard link (possibly an
         * ancestor: a cycle) is netCDF's "multiple links": left out. */
        if (nc4h5_obj_addr(cgid, &addr)) {
            close_id(cgid);
            continue;
        }
        for (size_t k = 0; k < c->ngrps && !seen; k++)
            seen = c->grps[k].addr == addr;
        if (seen || depth >= MAX_GROUP_DEPTH) {
            close_id(cgid);
            continue;
        }
        if ((stat = nc4h5_guard_header(c->f, cgid))) {
            close_id(cgid);
            break;
        }
        s = nc4_new_grp(c->grps[gi].g, kids.names[i], &child);
        if (s) {
            close_id(cgid);
            if (s == NC_ENOMEM)
                stat = s;
            continue;   /* a name the model refuses: left out */
        }
        if ((stat = nc4h5o_add_group_note(c, child, cgid, gi, &ci)))
            break;
        c->grps[ci].addr = addr;
        stat = walk_group(c, ci, depth + 1);
    }
done:
    free_names(&l);
    free_names(&kids);
    return stat;
}

/* Hang gid on g (taking it) and note the group. */
int
nc4h5o_add_group_note(open_ctx *c, NC4_grp *g, hid_t gid, size_t parent, size_t *gip)
{
    NC4H5_grp *hg;
    grp_note *gn;

    if ((hg = calloc(1, sizeof(*hg))) == NULL) {
        close_id(gid);
        return NC_ENOMEM;
    }
    hg->kind = NC4H5_KGRP;
    hg->gid = gid;
    g->fmt = hg;
    g->created = 1;
    if (g->hdr.stored_name == NULL && (g->hdr.stored_name = strdup(g->hdr.name)) == NULL)
        return NC_ENOMEM;
    if (c->ngrps == c->gcap) {
        size_t cap = c->gcap ? 2 * c->gcap : 8;
        grp_note *p = realloc(c->grps, cap * sizeof(*p));
        if (p == NULL)
            return NC_ENOMEM;
        c->grps = p;
        c->gcap = cap;
    }
    gn = &c->grps[c->ngrps];
    memset(gn, 0, sizeof(*gn));
    gn->g = g;
    gn->gid = gid;
    gn->parent = parent;
    if (parent != SIZE_MAX) {
        grp_note *pn = &c->grps[parent];
        if (pn->nkids == pn->kcap) {
            size_t cap = pn->kcap ? 2 * pn->kcap : 4;
            size_t *p = realloc(pn->kids, cap * sizeof(*p));
            if (p == NULL)
                return NC_ENOMEM;
            pn->kids = p;
            pn->kcap = cap;
        }
        pn->kids[pn->nkids++] = c->ngrps;
    }
    *gip = c->ngrps++;
    return NC_NOERR;
}

/* ---- resolve ----------------------------------------------------------------------- */

/* Remember what the matching needs of a new model dim. */
static int
note_dim(open_ctx *c, NC4_dim *dim, haddr_t addr, int uid)
{
    size_t id = (size_t)dim->hdr.id;
    if (id >= c->ndimtab) {
        size_t cap = c->ndimtab ? 2 * c->ndimtab : 16;
        haddr_t *a;
        int *u;
        while (cap <= id)
            cap *= 2;
        if ((a = realloc(c->dim_addr, cap * sizeof(*a))) == NULL)
            return NC_ENOMEM;
        c->dim_addr = a;
        if ((u = realloc(c->dim_uid, cap * sizeof(*u))) == NULL)
            return NC_ENOMEM;
        c->dim_uid = u;
        c->ndimtab = cap;
    }
    c->dim_addr[id] = addr;
    c->dim_uid[id] = uid;
    return NC_NOERR;
}

static int
new_dim_fmt(NC4_dim *dim, hid_t dsid)
{
    NC4H5_dim *hd = calloc(1, sizeof(*hd));
    if (hd == NULL)
        return NC_ENOMEM;
    hd->kind = NC4H5_KDIM;
    hd->dsid = dsid;
    dim->fmt = hd;
    if ((dim->hdr.stored_name = strdup(dim->hdr.name)) == NULL)
        return NC_ENOMEM;
    return NC_NOERR;
}

typedef struct { int uid; size_t seq, gi, di; } scale_ref;

static int
cmp_scale(const void *a, const void *b)
{
    const scale_ref *x = a, *y = b;
    if (x->uid != y->uid)
        return x->uid < y->uid ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The dims of the scales, in upstream's id order. */
static int
make_scale_dims(open_ctx *c)
{
    scale_ref *refs = NULL;
    size_t n = 0, cap = 0;
    int stat = NC_NOERR;

    for (size_t gi = 0; gi < c->ngrps; gi++) {
        grp_note *gn = &c->grps[gi];
        for (size_t di = 0; di < gn->nds; di++) {
            ds_note *d = &gn->ds[di];
            if (!d->is_scale)
                continue;
            if (d->assigned_id >= 0) {
                d->upstream_id = d->assigned_id;
                if (d->assigned_id >= c->next_dimid)
                    c->next_dimid = d->assigned_id + 1;
            } else {
                d->upstream_id = c->next_dimid++;
            }
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 16;
                scale_ref *p = realloc(refs, nc * sizeof(*p));
                if (p == NULL) {
                    free(refs);
                    return NC_ENOMEM;
                }
                refs = p;
                cap = nc;
            }
            refs[n].uid = d->upstream_id;
            refs[n].seq = n;
            refs[n].gi = gi;
            refs[n].di = di;
            n++;
        }
    }
    if (n > 1)
        qsort(refs, n, sizeof(*refs), cmp_scale);
    for (size_t i = 0; i < n && !stat; i++) {
        grp_note *gn = &c->grps[refs[i].gi];
        ds_note *d = &gn->ds[refs[i].di];
        /* Length 0 is NC_UNLIMITED to upstream's dim constructor. */
        int unlim = d->maxdims[0] == H5S_UNLIMITED || d->dims[0] == 0;
        NC4_dim *dim;
        int s = nc4_new_dim(gn->g, d->name, (size_t)d->dims[0], unlim, &dim);
        if (s == NC_ENOMEM) {
            stat = s;
            break;
        }
        if (s) {
            d->is_scale = 0;    /* the model refuses the name: an ordinary dataset */
            d->dim_only = 0;
            continue;
        }
        d->dim = dim;
        /* A phony dataset opens again when a flush needs it. */
        if ((stat = new_dim_fmt(dim, -1)))
            break;
        stat = note_dim(c, dim, d->addr, d->upstream_id);
    }
    free(refs);
    /* Ids follow _Netcdf4Dimid, but upstream lists a group's dims in the
     * order their datasets are met (a dim renamed in data mode has its
     * dataset relinked, so it comes last), and nc_inq_unlimdims and nc_inq's
     * unlimdimid follow that listing.  Usually the orders agree: no move. */
    for (size_t gi = 0; gi < c->ngrps && !stat; gi++) {
        NC4_index *ix = &c->grps[gi].g->dims;
        size_t p = 0;
        for (size_t di = 0; di < c->grps[gi].nds; di++) {
            NC4_obj *o = (NC4_obj *)c->grps[gi].ds[di].dim;
            if (o == NULL)
                continue;
            if (p < ix->n && ix->items[p] != o)
                for (size_t q = p + 1; q < ix->n; q++)
                    if (ix->items[q] == o) {
                        nc4_index_move(ix, q, p);
                        break;
                    }
            p++;
        }
    }
    return stat;
}

/* Model dim of a file dim id (upstream id), NULL if none. */
static NC4_dim *
dim_of_uid(open_ctx *c, int uid)
{
    for (size_t i = 0; i < c->f->ndims; i++)
        if (i < c->ndimtab && c->dim_uid[i] == uid)
            return c->f->dims[i];
    return NULL;
}

/* A dim of g or its ancestors made from the scale at addr. */
static NC4_dim *
dim_of_addr(open_ctx *c, NC4_grp *g, haddr_t addr)
{
    if (addr == HADDR_UNDEF)
        return NULL;
    for (; g != NULL; g = g->parent) {
        for (size_t i = 0; i < g->dims.n; i++) {
            NC4_dim *dim = (NC4_dim *)g->dims.items[i];
            size_t id = (size_t)dim->hdr.id;
            if (id < c->ndimtab && c->dim_addr[id] == addr)
                return dim;
        }
    }
    return NULL;
}

/* A phony dim for dimension d of note n in g: an existing dim of g of the
 * same length and unlimitedness not used yet by this dataset, else a new
 * one "phony_dim_N". */
static int
phony_dim(open_ctx *c, NC4_grp *g, ds_note *n, int d, int *dimids)
{
    int unlim = n->maxdims[d] == H5S_UNLIMITED;
    char name[64];
    NC4_dim *dim = NULL;
    int stat;

    for (size_t k = 0; k < g->dims.n; k++) {
        NC4_dim *cand = (NC4_dim *)g->dims.items[k];
        int used = 0;
        if ((hsize_t)cand->len != n->dims[d] || !cand->unlimited != !unlim)
            continue;
        for (int e = 0; e < d; e++)
            if (dimids[e] == cand->hdr.id)
                used = 1;
        if (!used) {
            dimids[d] = cand->hdr.id;
            return NC_NOERR;
        }
    }
    for (;;) {
        snprintf(name, sizeof(name), "phony_dim_%d", c->next_dimid++);
        stat = nc4_new_dim(g, name, (size_t)n->dims[d], unlim || n->dims[d] == 0, &dim);
        if (stat != NC_ENAMEINUSE)
            break;
    }
    if (stat)
        return stat;
    if ((stat = new_dim_fmt(dim, -1)))
        return stat;
    if ((stat = note_dim(c, dim, HADDR_UNDEF, -1)))
        return stat;
    dimids[d] = dim->hdr.id;
    return NC_NOERR;
}

/* Dimensions of every dataset of group gi, children first (upstream). */
static int
match_dims(open_ctx *c, size_t gi)
{
    grp_note *gn;
    int stat;

    for (size_t k = 0; k < c->grps[gi].nkids; k++)
        if ((stat = match_dims(c, c->grps[gi].kids[k])))
            return stat;
    gn = &c->grps[gi];
    for (size_t di = 0; di < gn->nds; di++) {
        ds_note *n = &gn->ds[di];
        int nd = n->ndims;
        /* Upstream never gets that far with datasets of unknown types. */
        if (n->dim_only || nd == 0 || n->xtype == NC_NAT)
            continue;
        if ((n->dimids = malloc((size_t)nd * sizeof(int))) == NULL)
            return NC_ENOMEM;
        for (int d = 0; d < nd; d++) {
            NC4_dim *dim = NULL;
            if (n->coords)
                dim = dim_of_uid(c, n->coords[d]);
            if (dim == NULL && n->is_scale && d == 0)
                dim = n->dim;
            if (dim == NULL && !n->is_scale && n->dimlist == NULL &&
                (stat = nc4h5o_note_dimlist(c, n)))
                return stat;
            if (dim == NULL && n->dimlist && n->has_scales)
                dim = dim_of_addr(c, gn->g, n->dimlist[d]);
            /* A dim that does not fit the extent cannot be this one. */
            if (dim != NULL && !dim->unlimited && (hsize_t)dim->len != n->dims[d])
                dim = NULL;
            n->dimids[d] = dim ? dim->hdr.id : -1;
        }
        for (int d = 0; d < nd; d++)
            if (n->dimids[d] < 0 && (stat = phony_dim(c, gn->g, n, d, n->dimids)))
                return stat;
    }
    return NC_NOERR;
}

/* Upstream lists fletcher32, then shuffle, then the others in dcpl order,
 * whatever order the file applies them in. */
void
nc4h5o_order_filters(NC4_var *var)
{
    NC4_filter tmp;
    size_t k = 0;
    for (unsigned want = H5Z_FILTER_FLETCHER32;; want = H5Z_FILTER_SHUFFLE) {
        for (size_t i = k; i < var->nfilters; i++) {
            if (var->filters[i].id == want) {
                tmp = var->filters[i];
                memmove(&var->filters[k + 1], &var->filters[k], (i - k) * sizeof(NC4_filter));
                var->filters[k++] = tmp;
                break;
            }
        }
        if (want == H5Z_FILTER_SHUFFLE)
            break;
    }
}

/* Storage, filters and fill value of var from its dcpl. */
static int
read_var_storage(NC4_file *f, NC4_var *var, hid_t did)
{
    hid_t dcpl = -1, mtid = -1;
    H5D_layout_t layout;
    H5D_fill_value_t fstat;
    H5D_fill_time_t ftime = H5D_FILL_TIME_IFSET;
    int nf;
    int stat = NC_NOERR;

    /* H5Dget_create_plist converts the fill value, a variable-length one
     * through the global heap: checked first. */
    if (nc4_type_has_pointers(f, var->xtype) > 0) {
        hid_t ftid = H5Dget_type(did);
        if (ftid < 0)
            return NC_EHDFERR;
        stat = nc4h5_guard_fill(f, did, ftid);
        H5Tclose(ftid);
        if (stat)
            return stat;
    }
    if ((dcpl = H5Dget_create_plist(did)) < 0)
        return NC_EHDFERR;
    if ((layout = H5Pget_layout(dcpl)) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    free(var->chunksizes);
    var->chunksizes = NULL;
    if (layout == H5D_CHUNKED && var->ndims > 0) {
        hsize_t cs[H5S_MAX_RANK];
        if (H5Pget_chunk(dcpl, H5S_MAX_RANK, cs) != var->ndims) {
            stat = NC_EHDFERR;
            goto done;
        }
        if ((var->chunksizes = malloc((size_t)var->ndims * sizeof(size_t))) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        for (int d = 0; d < var->ndims; d++)
            var->chunksizes[d] = (size_t)cs[d];
        var->storage = NC_CHUNKED;
    } else if (layout == H5D_COMPACT) {
        var->storage = NC_COMPACT;
    } else {
        var->storage = NC_CONTIGUOUS;
    }

    if ((nf = H5Pget_nfilters(dcpl)) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    if (nf > 0) {
        if ((var->filters = calloc((size_t)nf, sizeof(NC4_filter))) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        for (int i = 0; i < nf; i++) {
            size_t np = 0;
            unsigned int flags;
            H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &np, NULL, 0, NULL, NULL);
            NC4_filter *fl = &var->filters[var->nfilters];
            if (id < 0) {
                stat = NC_EHDFERR;
                goto done;
            }
            if (np > 0) {
                if (np > 4096 || (fl->params = calloc(np, sizeof(unsigned int))) == NULL) {
                    stat = NC_ENOMEM;
                    goto done;
                }
                if (H5Pget_filter2(dcpl, (unsigned)i, &flags, &np, fl->params, 0, NULL, NULL) < 0) {
                    free(fl->params);
                    fl->params = NULL;
                    stat = NC_EHDFERR;
                    goto done;
                }
            }
            if (id == H5Z_FILTER_DEFLATE && (np != 1 || fl->params[0] > 9)) {
                free(fl->params);
                fl->params = NULL;
                stat = NC_EHDFERR;
                goto done;
            }
            /* HDF5 keeps 4 szip values; the user gave (and upstream shows) 2. */
            if (id == H5Z_FILTER_SZIP && np == 4) {
                np = 2;
                fl->params[0] &= SZIP_USER_MASKS;
            }
            fl->id = (unsigned int)id;
            fl->nparams = np;
            var->nfilters++;
        }
        nc4h5o_order_filters(var);
    }

    if (H5Pfill_value_defined(dcpl, &fstat) < 0 || H5Pget_fill_time(dcpl, &ftime) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    var->no_fill = fstat != H5D_FILL_VALUE_USER_DEFINED || ftime == H5D_FILL_TIME_NEVER;
    if (fstat == H5D_FILL_VALUE_USER_DEFINED) {
        size_t size = nc4_type_size(f, var->xtype);
        void *fill;
        if (size == 0) {
            stat = NC_EBADTYPE;
            goto done;
        }
        if ((stat = nc4h5_hdf5_type(f, var->xtype, NC_ENDIAN_NATIVE, 0, &mtid)))
            goto done;
        if ((fill = calloc(1, size)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        if (H5Pget_fill_value(dcpl, mtid, fill) < 0) {
            free(fill);
            stat = NC_EHDFERR;
            goto done;
        }
        var->fill_value = fill;
    }
done:
    if (mtid >= 0)
        H5Tclose(mtid);
    H5Pclose(dcpl);
    return stat;
}

/* Make sure var's dataset is open (hv->did valid): datasets of a file opened
 * are opened on first use, chunked ones with the var's chunk cache. */
int
nc4h5_var_open_dataset(NC4_var *var)
{
    NC4H5_var *hv = var ? var->fmt : NULL;
    NC4H5_grp *hg;
    hid_t dapl = H5P_DEFAULT;
    int stat = NC_NOERR;

    if (hv == NULL)
        return NC_EHDFERR;
    /* Threads reading one handle under its shared lock may get here at
     * once: the id is published with release order once the dataset is
     * open, and opened by one of them only (checked again under the HDF5
     * lock, which the group ids are also written under). */
    if (__atomic_load_n(&hv->did, __ATOMIC_ACQUIRE) >= 0)
        return NC_NOERR;
    hg = var->grp ? var->grp->fmt : NULL;
    nc4h5_lock();
    if (hv->did >= 0) {
        nc4h5_unlock();
        return NC_NOERR;
    }
    if (hg != NULL && hg->gid < 0 && var->grp->file != NULL &&
        (stat = nc4h5_ensure_hdf5(var->grp->file))) {
        nc4h5_unlock();
        return stat;
    }
    if (!var->created || var->hdr.stored_name == NULL || hg == NULL || hg->gid < 0) {
        nc4h5_unlock();
        return NC_EHDFERR;
    }
    /* Always explicit for chunked data: a read-only file's own default
     * cache is the small one of the open-time probe (NC4_HDF5_open). */
    if (var->storage == NC_CHUNKED) {
        if ((dapl = H5Pcreate(H5P_DATASET_ACCESS)) < 0 ||
            H5Pset_chunk_cache(dapl, var->cache_nelems, var->cache_size,
                               var->cache_preemption) < 0)
            stat = NC_EHDFERR;
    }
    if (!stat) {
        hid_t did = H5Dopen2(hg->gid, var->hdr.stored_name, dapl);
        if (did < 0)
            stat = NC_EHDFERR;
        else
            __atomic_store_n(&hv->did, did, __ATOMIC_RELEASE);
    }
    if (dapl != H5P_DEFAULT && dapl >= 0)
        H5Pclose(dapl);
    nc4h5_unlock();
    return stat;
}

/* Access properties of a file open: upstream's (nc4h5_fapl_settings), the
 * raw-data chunk cache given. */
static hid_t
file_access(size_t csize, size_t cnelems, float cpre)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && (nc4h5_fapl_settings(fapl) ||
                      H5Pset_cache(fapl, 0, cnelems, csize, cpre) < 0)) {
        H5Pclose(fapl);
        fapl = -1;
    }
    return fapl;
}

int
nc4h5_ensure_hdf5(NC4_file *f)
{
    NC4H5_file *hf = f ? f->fmt : NULL;
    hid_t fapl;
    int stat = NC_NOERR;

    if (hf == NULL)
        return NC_EHDFERR;
    nc4h5_lock();
    if (hf->fid >= 0 || !hf->lazy) {
        nc4h5_unlock();
        return hf->fid >= 0 ? NC_NOERR : NC_EHDFERR;
    }
    if ((fapl = file_access(hf->lazy_csize, hf->lazy_cnelems, hf->lazy_cpre)) < 0) {
        nc4h5_unlock();
        return NC_EHDFERR;
    }
    if (hf->remote != NULL && nc4h5_remote_fapl(fapl, hf->remote))
        hf->fid = -1;
    else
        hf->fid = H5Fopen(hf->path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (hf->fid < 0)
        stat = NC_EHDFERR;
    /* Group ids follow the walk: a parent's id is below its children's. */
    for (size_t i = 0; i < f->ngrps && !stat; i++) {
        NC4_grp *g = f->grps[i];
        NC4H5_grp *hg = g ? g->fmt : NULL;
        NC4H5_grp *hp = g && g->parent ? g->parent->fmt : NULL;
        if (hg == NULL || hg->gid >= 0)
            continue;
        if (g->parent == NULL)
            hg->gid = H5Gopen2(hf->fid, "/", H5P_DEFAULT);
        else if (hp != NULL && hp->gid >= 0 && g->hdr.stored_name != NULL)
            hg->gid = H5Gopen2(hp->gid, g->hdr.stored_name, H5P_DEFAULT);
        if (hg->gid < 0)
            stat = NC_EHDFERR;
    }
    if (!stat)
        hf->lazy = 0;
    nc4h5_unlock();
    return stat;
}

/* The netCDF type of every dataset (all committed types are known now). */
static int
resolve_types(open_ctx *c)
{
    for (size_t gi = 0; gi < c->ngrps; gi++) {
        grp_note *gn = &c->grps[gi];
        for (size_t di = 0; di < gn->nds; di++) {
            ds_note *n = &gn->ds[di];
            hid_t ftid;
            int stat;
            n->xtype = NC_NAT;
            n->endianness = NC_ENDIAN_NATIVE;
            if (n->dim_only)
                continue;
            if ((ftid = H5Dget_type(n->did)) < 0)
                return NC_EHDFERR;
            stat = nc4h5_find_type_for(c->f, gn->g, ftid, &n->xtype);
            if (!stat && n->xtype != NC_CHAR && n->xtype != NC_STRING &&
                n->xtype <= NC_MAX_ATOMIC_TYPE)
                stat = nc4h5_atomic_from_hdf5(ftid, NULL, &n->endianness);
            H5Tclose(ftid);
            if (stat == NC_ENOMEM)
                return stat;
            if (stat)
                n->xtype = NC_NAT;
        }
    }
    return NC_NOERR;
}

/* Make the variables of group gi. */
/* The quantize setting a file records in the attribute upstream writes (it
 * stays visible as an ordinary attribute too). */
void
nc4h5o_read_quantize(NC4_var *var)
{
    static const struct { const char *name; int mode; } q[] = {
        {NC4H5_QUANT_BITGROOM_ATT, NC_QUANTIZE_BITGROOM},
        {NC4H5_QUANT_GRANULARBR_ATT, NC_QUANTIZE_GRANULARBR},
        {NC4H5_QUANT_BITROUND_ATT, NC_QUANTIZE_BITROUND},
    };
    if (var->xtype != NC_FLOAT && var->xtype != NC_DOUBLE)
        return;
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        NC4_att *a = (NC4_att *)nc4_index_find(&var->atts, q[i].name);
        if (a != NULL && a->len == 1 && a->data != NULL &&
            (a->xtype == NC_INT || a->xtype == NC_UINT)) {
            var->quantize_mode = q[i].mode;
            var->nsd = *(const int *)a->data;
            return;
        }
    }
}

/* The chunk-cache settings upstream reports for an unchunked dataset: the
 * dataset's own, which are HDF5's library defaults whatever the file's.
 * Asked of HDF5 once (under the HDF5 lock); the native reader uses HDF5's
 * documented defaults until then (the same numbers). */
static int cache_known;
static size_t cache_nslots = 521, cache_nbytes = 1048576;
static double cache_w0 = 0.75;

void
nc4h5o_unchunked_cache(NC4_var *var)
{
    var->cache_nelems = cache_nslots;
    var->cache_size = cache_nbytes;
    var->cache_preemption = (float)cache_w0;
}

static int
make_vars(open_ctx *c, size_t gi)
{
    grp_note *gn = &c->grps[gi];
    NC4_file *f = c->f;
    int stat = NC_NOERR;

    for (size_t di = 0; di < gn->nds && !stat; di++) {
        ds_note *n = &gn->ds[di];
        const char *name = n->name;
        size_t plen = strlen(NC4H5_NON_COORD);
        nc_type xtype;
        int endianness;
        NC4_var *var;
        NC4H5_var *hv;

        if (n->dim_only || (n->did < 0 && n->obj == NULL) || n->xtype == NC_NAT)
            continue;   /* a type netCDF lacks: the dataset is left out */
        xtype = n->xtype;
        endianness = n->endianness;
        if (strlen(name) > plen && strncmp(name, NC4H5_NON_COORD, plen) == 0)
            name += plen;
        stat = nc4_new_var(gn->g, name, xtype, n->ndims, n->dimids, &var);
        if (stat == NC_ENOMEM)
            return stat;
        if (stat) {
            stat = NC_NOERR;
            continue;
        }
        if ((var->hdr.stored_name = strdup(n->name)) == NULL)
            return NC_ENOMEM;
        var->endianness = endianness;
        var->created = 1;
        var->meta_locked = 1;
        if ((hv = calloc(1, sizeof(*hv))) == NULL)
            return NC_ENOMEM;
        hv->kind = NC4H5_KVAR;
        hv->did = n->did;
        hv->dimscale = n->is_scale;
        hv->scales_attached = n->has_scales || n->is_scale;
        n->did = -1;
        var->fmt = hv;
        if (n->obj != NULL) {
            if ((stat = nc4h5o_native_var(c, gn, n, var)))
                return stat;
            continue;
        }
        if ((stat = read_var_storage(f, var, hv->did)))
            return stat;
        if (var->storage != NC_CHUNKED) {
            if (!cache_known) {
                hid_t dapl = H5Dget_access_plist(hv->did);
                if (dapl >= 0) {
                    cache_known = H5Pget_chunk_cache(dapl, &cache_nslots, &cache_nbytes,
                                                     &cache_w0) >= 0;
                    H5Pclose(dapl);
                }
            }
            nc4h5o_unchunked_cache(var);
        }
        nc4_adjust_var_cache(var);
        /* Unlimited lengths: the longest extent of the datasets using them. */
        for (int d = 0; d < var->ndims; d++)
            if (var->dims[d]->unlimited && var->dims[d]->len < (size_t)n->dims[d])
                var->dims[d]->len = (size_t)n->dims[d];
        if ((stat = nc4h5_read_atts(f, gn->g, var, hv->did)))
            return stat;
        nc4h5o_read_quantize(var);
        /* Everything is read: the dataset opens again on first use
         * (nc4h5_var_open_dataset), with the var's own chunk cache; open
         * files hold no dataset until then (memory, and nc_close). */
        close_id(hv->did);
        hv->did = -1;
    }
    return stat;
}

void
nc4h5o_free_ctx(open_ctx *c)
{
    for (size_t gi = 0; gi < c->ngrps; gi++) {
        grp_note *gn = &c->grps[gi];
        for (size_t di = 0; di < gn->nds; di++)
            free_note(&gn->ds[di]);
        free(gn->ds);
        free(gn->kids);
        if (gn->gobj != NULL) {
            h5n_obj_free(gn->gobj);
            free(gn->gobj);
        }
    }
    free(c->grps);
    free(c->dim_addr);
    free(c->dim_uid);
}

/* The model the root's attributes give (strict: _nc3_strict present), and
 * whether datasets' marker attributes are to be counted. */
void
nc4h5o_note_model(open_ctx *c, int strict)
{
    NC4_file *f = c->f;
    if (strict) {
        f->classic_model = 1;
        f->format = NC_FORMAT_NETCDF4_CLASSIC;
        f->cmode |= NC_CLASSIC_MODEL;
        f->is_netcdf4 = 0;   /* what the reference reports for classic-model files */
    } else {
        /* The reference (4.9.0) decides by counting marker attributes on
         * datasets even when _NCProperties is present: a netCDF-4 file
         * without dimensions reports 0.  Files without _NCProperties are
         * scanned attribute by attribute; the others are counted from the
         * hidden names probed anyway. */
        c->count_markers = 1;
        c->full_scan = f->ncproperties == NULL;
    }
}

/* From the notes of a walked file: the marker verdict, the dimensions and
 * the variables (attributes are the caller's: each reader reads its own). */
int
nc4h5o_build_tree(open_ctx *c)
{
    NC4_file *f = c->f;
    int stat;
    if (c->count_markers)
        f->is_netcdf4 = c->markers >= 2;
    if ((stat = make_scale_dims(c)) || (stat = match_dims(c, 0)))
        return stat;
    /* Unlimited dims are as long as their longest variable. */
    for (size_t i = 0; i < f->ndims; i++)
        if (f->dims[i]->unlimited)
            f->dims[i]->len = 0;
    for (size_t gi = 0; gi < c->ngrps && !stat; gi++)
        stat = make_vars(c, gi);
    return stat;
}

/* Read the whole tree of an open file into f. */
static int
read_tree(NC4_file *f, hid_t fid, int readonly)
{
    open_ctx c;
    hid_t root;
    size_t gi;
    H5F_info2_t finfo;
    int stat;

    memset(&c, 0, sizeof(c));
    c.f = f;
    c.readonly = readonly;
    nc4h5_guard_open(f);
    if ((root = H5Gopen2(fid, "/", H5P_DEFAULT)) < 0) {
        nc4h5o_free_ctx(&c);
        return NC_EHDFERR;
    }
    if ((stat = nc4h5o_add_group_note(&c, f->root, root, SIZE_MAX, &gi)))
        goto done;

    /* Provenance and model, from the root's hidden attributes. */
    if ((stat = nc4h5_guard_header(f, root)))
        goto done;
    f->ncproperties = read_text_att(f, root, NC4H5_NCPROPS_ATT, &stat);
    if (stat)
        goto done;
    nc4h5o_note_model(&c, H5Aexists(root, NC4H5_STRICT_ATT) > 0);
    if (H5Fget_info2(fid, &finfo) >= 0)
        f->superblock = (int)finfo.super.version;

    if (nc4h5_obj_addr(root, &c.grps[0].addr))
        c.grps[0].addr = HADDR_UNDEF;
    if ((stat = walk_group(&c, 0, 0)) || (stat = resolve_types(&c)) ||
        (stat = nc4h5o_build_tree(&c)))
        goto done;
    for (gi = 0; gi < c.ngrps && !stat; gi++)
        stat = nc4h5_read_atts(f, c.grps[gi].g, NULL, c.grps[gi].gid);
done:
    nc4h5o_free_ctx(&c);
    /* Once HDF5 may write, the file on disk no longer shows what it reads. */
    if (!readonly)
        nc4h5_guard_drop(f->fmt);
    return stat;
}

/* ---- read-only memory images in place ----------------------------------------------
 * HDF5's core driver asks for a buffer and copies the image into it, once
 * for the property list and once at open.  For a read-only open these
 * callbacks hand it the caller's buffer itself (udata: the file's NC_memio),
 * copy nothing and free nothing: the caller keeps the buffer until nc_close,
 * as nc_open_mem requires. */
static void *
inplace_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
    NC_memio *m = (NC_memio *)udata;
    (void)op;
    return size == m->size ? m->memory : NULL;
}

static void *
inplace_memcpy(void *dest, const void *src, size_t size, H5FD_file_image_op_t op, void *udata)
{
    NC_memio *m = (NC_memio *)udata;
    (void)op;
    /* Only the copy of the buffer onto itself is expected. */
    return (dest == m->memory && src == m->memory && size <= m->size) ? dest : NULL;
}

static void *
inplace_realloc(void *ptr, size_t size, H5FD_file_image_op_t op, void *udata)
{
    (void)ptr; (void)size; (void)op; (void)udata;
    return NULL;   /* read-only: never grows */
}

static herr_t
inplace_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
    (void)ptr; (void)op; (void)udata;
    return 0;      /* the caller's */
}

static void *
inplace_udata_copy(void *udata)
{
    return udata;  /* shared, lives in the file's fmt state */
}

static herr_t
inplace_udata_free(void *udata)
{
    (void)udata;
    return 0;
}

static herr_t
set_inplace_image(hid_t fapl, NC_memio *m)
{
    H5FD_file_image_callbacks_t cb;
    cb.image_malloc = inplace_malloc;
    cb.image_memcpy = inplace_memcpy;
    cb.image_realloc = inplace_realloc;
    cb.image_free = inplace_free;
    cb.udata_copy = inplace_udata_copy;
    cb.udata_free = inplace_udata_free;
    cb.udata = m;
    return H5Pset_file_image_callbacks(fapl, &cb);
}

/* ---- the open slot ------------------------------------------------------------------ */

/* Whether the native reader may be tried: NETCDF_HDF5_NATIVE_OPEN=0 never;
 * =2 only (a file it gives up on fails to open with NC_ENOTBUILT: tests use
 * it to know which path read a file). */
int
NC4_HDF5_open(const char *path, int mode, int basepe, size_t *chunksizehintp,
              void *parameters, const NC_Dispatch *table, int ncid)
{
    NC *nc;
    NC4_file *f = NULL;
    NC4H5_file *hf = NULL;
    hid_t fapl = -1;
    size_t csize, cnelems;
    float cpre;
    unsigned flags;
    struct nc4h5_rref *remote = NULL;
    int stat;

    (void)basepe;
    (void)chunksizehintp;
    (void)table;
    if ((mode & NC_MMAP) || ((mode & NC_DISKLESS) && (mode & NC_INMEMORY)))
        return NC_EINVAL;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if ((mode & NC_INMEMORY) && parameters == NULL)
        return NC_EINMEMORY;

    nc4h5_lock();
    /* Read-only files on disk: the native reader first (HDF5 opens the
     * file when data is read); anything it does not handle, through HDF5. */
    if (!(mode & (NC_WRITE | NC_INMEMORY | NC_DISKLESS | NC_MPIIO)) && path != NULL &&
        !NC_remote_is_url(path) &&
        (stat = nc4h5o_open_native(nc, path, mode)) != H5N_GIVEUP) {
        nc4h5_unlock();
        return stat;
    }
    /* A URL read by byte ranges (hdf5remote.c): the native reader on the
     * remote file first, else HDF5 through the remote driver. */
    if (path != NULL && NC_remote_is_url(path) &&
        (stat = nc4h5_remote_open(nc, path, mode, &remote)) != H5N_GIVEUP) {
        nc4h5_unlock();
        return stat;
    }
    if ((stat = nc4_file_new(nc, nc->ext_ncid, mode, NC_FORMATX_NC_HDF5, &nc4h5_ops, &f)))
        goto fail;
    if ((hf = calloc(1, sizeof(*hf))) == NULL) {
        stat = NC_ENOMEM;
        goto fail;
    }
    hf->kind = NC4H5_KFILE;
    hf->fid = -1;
    f->fmt = hf;
    f->readonly = (mode & NC_WRITE) == 0;
    f->indef = 0;
    if (path && (hf->path = strdup(path)) == NULL) {
        stat = NC_ENOMEM;
        goto fail;
    }
    flags = (mode & NC_WRITE) ? H5F_ACC_RDWR : H5F_ACC_RDONLY;

    /* Access properties as upstream (nc4h5_fapl_settings), the library-wide
     * raw-data chunk cache. */
    nc4_get_default_cache(&csize, &cnelems, &cpre);
    /* Read-only, every dataset the library reads data from is opened with
     * its own cache (nc4h5_var_open_dataset): the file's default serves only
     * the open-time reading of shapes and settings, where HDF5 would
     * allocate and clear cnelems hash slots per chunked dataset for nothing.
     * (Files opened for writing keep upstream's setting: datasets created
     * later without a cache of their own take it.) */
    if (!(mode & NC_WRITE))
        cnelems = 1;
    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
        nc4h5_fapl_settings(fapl) ||
        H5Pset_cache(fapl, 0, cnelems, csize, cpre) < 0) {
        stat = NC_EHDFERR;
        goto fail;
    }
#if NC_ENABLE_PARALLEL4
    /* nc_open_par: HDF5's MPI-IO driver (hdf5par.c). */
    if ((stat = nc4h5_par_begin(&hf->par, mode, parameters, fapl)))
        goto fail;
#endif
    if (remote != NULL) {
        if ((stat = nc4h5_remote_fapl(fapl, remote)))
            goto fail;
        hf->remote = remote; /* the file's reference now */
        remote = NULL;
    }
    if (mode & NC_INMEMORY) {
        NC_memio *memio = (NC_memio *)parameters;
        if (memio->memory == NULL || memio->size == 0) {
            stat = NC_EINMEMORY;
            goto fail;
        }
        hf->mem = NC_INMEMORY;
        hf->memio = *memio;
        hf->memio_locked = (memio->flags & NC_MEMIO_LOCKED) != 0;
        /* Read-only: HDF5 reads the caller's buffer in place (callbacks
         * that neither copy nor free it).  Writable: HDF5 works on its own
         * copy, which may grow. */
        if (H5Pset_fapl_core(fapl, 65536, 0) < 0 ||
            (!(mode & NC_WRITE) &&
             set_inplace_image(fapl, &hf->memio) < 0) ||
            H5Pset_file_image(fapl, memio->memory, memio->size) < 0) {
            stat = NC_EHDFERR;
            goto fail;
        }
        /* Unlocked and writable: the library takes the caller's buffer, as
         * upstream does (the caller gets the final image at nc_close_memio). */
        if (!hf->memio_locked && (mode & NC_WRITE)) {
            hf->memio_owned = 1;
            memio->memory = NULL;
            memio->size = 0;
        }
        {
            /* The core driver refuses an image whose name exists on disk:
             * give it a name of its own, as H5LTopen_file_image does. */
            char iname[64];
            snprintf(iname, sizeof(iname), "nc4h5_image_%p", (void *)hf);
            hf->fid = H5Fopen(iname, flags, fapl);
        }
    } else if (mode & NC_DISKLESS) {
        hf->mem = NC_DISKLESS;
        hf->persist = (mode & NC_PERSIST) != 0;
        /* The core driver reads the file into memory and, with a backing
         * store, writes it back at close. */
        if (H5Pset_fapl_core(fapl, 65536, hf->persist ? 1 : 0) < 0) {
            stat = NC_EHDFERR;
            goto fail;
        }
        hf->fid = H5Fopen(path, flags, fapl);
    } else {
        hf->fid = H5Fopen(path, flags, fapl);
    }
    if (hf->fid < 0) {
        stat = NC_EHDFERR;
        goto fail;
    }
    H5Pclose(fapl);
    fapl = -1;

    if ((stat = read_tree(f, hf->fid, f->readonly)))
        goto fail;
    f->dirty = 0;
    nc4h5_unlock();
    return NC_NOERR;

fail:
    if (fapl >= 0)
        H5Pclose(fapl);
    if (f != NULL)
        nc4_file_free(f);   /* frees hf too, closing the file */
    nc4h5_remote_release(remote);
    nc4h5_unlock();
    return stat;
}
