/* hdf5native.c: the native reader's side of the open (h5n.h): the walk
 * of hdf5open.c made from the metadata h5n parses without HDF5, for
 * read-only files on disk.
 *
 * The same walk and the same model as hdf5open.c's.  Whatever h5n or these
 * functions cannot settle exactly returns H5N_GIVEUP, and the open starts
 * again through HDF5: the two ways never give different models, only
 * different speeds.  HDF5 opens the file later, when data is first read
 * (nc4h5_ensure_hdf5). */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hdf5open.h"

static int
host_big_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

/* n values of size sz from the file's byte order to the host's, into out. */
static void
copy_swapped(void *out, const unsigned char *in, size_t n, size_t sz, int big)
{
    unsigned char *o = out;
    if (big == host_big_endian() || sz == 1) {
        memcpy(out, in, n * sz);
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sz; k++)
            o[i * sz + k] = in[i * sz + sz - 1 - k];
}

/* netCDF type of a file datatype as nc4h5_find_type_for decides it (no
 * user types exist on this path: files with committed types give up):
 * NC_NAT for types netCDF skips, H5N_GIVEUP for those only HDF5's native
 * type mapping could tell. */
static int
native_xtype(const h5n_type *t, nc_type *xtypep, int *endp)
{
    *endp = NC_ENDIAN_NATIVE;
    switch (t->cls) {
    case H5N_STRING:
        if (t->size == 0)
            return H5N_GIVEUP;
        *xtypep = t->size > 1 ? NC_STRING : NC_CHAR;
        return NC_NOERR;
    case H5N_VLEN:
        *xtypep = t->vlen_string ? NC_STRING : NC_NAT;
        return NC_NOERR;
    case H5N_FIXED:
    case H5N_FLOAT:
        if (!t->plain)
            return H5N_GIVEUP;
        *endp = t->big_endian ? NC_ENDIAN_BIG : NC_ENDIAN_LITTLE;
        if (t->cls == H5N_FLOAT) {
            *xtypep = t->size == 4 ? NC_FLOAT : NC_DOUBLE;
            return NC_NOERR;
        }
        switch (t->size) {
        case 1: *xtypep = t->is_signed ? NC_BYTE : NC_UBYTE; break;
        case 2: *xtypep = t->is_signed ? NC_SHORT : NC_USHORT; break;
        case 4: *xtypep = t->is_signed ? NC_INT : NC_UINT; break;
        default: *xtypep = t->is_signed ? NC_INT64 : NC_UINT64; break;
        }
        return NC_NOERR;
    default:
        *xtypep = NC_NAT;
        return NC_NOERR;
    }
}

static h5n_att *
native_att(h5n_obj *o, const char *name)
{
    for (size_t i = 0; i < o->natts; i++)
        if (strcmp(o->atts[i].name, name) == 0)
            return &o->atts[i];
    return NULL;
}

/* read_text_att_present's answer for attribute a (NULL text: not a string). */
static int
native_text(open_ctx *c, const h5n_att *a, char **textp)
{
    *textp = NULL;
    if (a->space.npoints != 1)
        return NC_NOERR;
    if (a->type.cls == H5N_VLEN && a->type.vlen_string) {
        const unsigned char *p;
        size_t len;
        uint32_t count;
        int stat;
        /* Read as ASCII: HDF5 would have to convert anything else. */
        if (a->type.cset != 0)
            return H5N_GIVEUP;
        if ((stat = h5n_vlen(c->nf, a->data, &p, &len, &count)))
            return stat;
        if (p == NULL)
            return count ? H5N_GIVEUP : NC_NOERR;
        if (len < count)
            return H5N_GIVEUP;
        if ((*textp = strndup((const char *)p, count)) == NULL)
            return NC_ENOMEM;
        return NC_NOERR;
    }
    if (a->type.cls != H5N_STRING)
        return NC_NOERR;
    if (a->type.size == 0 || a->type.size > ((size_t)1 << 26))
        return NC_NOERR;
    if (a->type.cset != 0 || a->type.strpad > 1)
        return H5N_GIVEUP;   /* conversions left to HDF5 */
    if ((*textp = strndup((const char *)a->data, a->type.size)) == NULL)
        return NC_ENOMEM;
    return NC_NOERR;
}

/* read_ints_att's answer: 1 and out[] when a holds exactly n integers. */
static int
native_ints(const h5n_att *a, int n, int *out, int *okp)
{
    *okp = 0;
    if (a->type.cls != H5N_FIXED || a->space.npoints != (uint64_t)n)
        return NC_NOERR;
    if (!a->type.plain)
        return H5N_GIVEUP;
    for (int i = 0; i < n; i++) {
        size_t sz = a->type.size;
        unsigned char b[8];
        uint64_t v = 0;
        long long x;
        copy_swapped(b, a->data + (size_t)i * sz, 1, sz, a->type.big_endian);
        for (size_t k = 0; k < sz; k++)
            v |= (uint64_t)b[host_big_endian() ? sz - 1 - k : k] << (8 * k);
        if (a->type.is_signed && sz < 8 && (v >> (8 * sz - 1)) & 1)
            v |= ~(uint64_t)0 << (8 * sz);
        if (!a->type.is_signed && sz == 8 && v > (uint64_t)INT64_MAX)
            return H5N_GIVEUP;
        x = (long long)v;
        if (x < INT32_MIN || x > INT32_MAX)
            return H5N_GIVEUP;   /* HDF5 would clip */
        out[i] = (int)x;
    }
    *okp = 1;
    return NC_NOERR;
}

int
nc4h5o_native_dimlist(open_ctx *c, ds_note *n)
{
    h5n_att *a = native_att(n->obj, "DIMENSION_LIST");
    int stat;

    if (a == NULL || !a->type.vlen_objref || a->space.npoints != (uint64_t)n->ndims)
        return NC_NOERR;
    for (int d = 0; d < n->ndims; d++) {
        const unsigned char *p;
        size_t len;
        uint32_t count;
        if ((stat = h5n_vlen(c->nf, a->data + (size_t)d * 16, &p, &len, &count)))
            return stat;
        if (count == 0 || p == NULL)
            continue;
        if (len / 8 < count)
            return H5N_GIVEUP;
        n->dimlist[d] = (haddr_t)le64(p + ((size_t)count - 1) * 8);
    }
    n->has_scales = n->dimlist[0] != HADDR_UNDEF;
    return NC_NOERR;
}

/* Note dataset `name` of group gi from its parsed header (takes o). */
static int
native_note_dataset(open_ctx *c, size_t gi, const char *name, h5n_obj *o)
{
    grp_note *gn = &c->grps[gi];
    ds_note *n;
    h5n_att *a;
    int ndims, is_scale_class = 0, has_name = 0, has_dimid = 0, has_coords = 0;
    int stat;

    if (gn->nds == gn->cap) {
        size_t cap = gn->cap ? 2 * gn->cap : 16;
        ds_note *p = realloc(gn->ds, cap * sizeof(*p));
        if (p == NULL) {
            h5n_obj_free(o);
            free(o);
            return NC_ENOMEM;
        }
        gn->ds = p;
        gn->cap = cap;
    }
    n = &gn->ds[gn->nds];
    memset(n, 0, sizeof(*n));
    n->did = -1;
    n->obj = o;
    n->assigned_id = -1;
    n->upstream_id = -1;
    n->addr = HADDR_UNDEF;
    gn->nds++;
    if ((n->name = strdup(name)) == NULL)
        return NC_ENOMEM;
    ndims = o->space.ndims;
    n->ndims = ndims;
    for (int d = 0; d < ndims; d++) {
        n->dims[d] = (hsize_t)o->space.dims[d];
        n->maxdims[d] = o->space.maxdims[d] == H5N_UNDEF ? H5S_UNLIMITED
                                                         : (hsize_t)o->space.maxdims[d];
    }
    if (c->count_markers && strcmp(name, "phony_dim") == 0)
        c->markers++;

    if (c->full_scan) {
        for (size_t i = 0; i < o->natts; i++) {
            const char *an = o->atts[i].name;
            if (!nc4h5_is_hidden_att(an))
                continue;
            if (c->count_markers)
                c->markers++;
            if (strcmp(an, "CLASS") == 0) {
                char *cls;
                if ((stat = native_text(c, &o->atts[i], &cls)))
                    return stat;
                is_scale_class = cls != NULL && strcmp(cls, "DIMENSION_SCALE") == 0;
                free(cls);
            } else if (strcmp(an, "NAME") == 0) {
                has_name = 1;
            } else if (strcmp(an, NC4H5_DIMID_ATT) == 0) {
                has_dimid = 1;
            } else if (strcmp(an, NC4H5_COORDS_ATT) == 0) {
                has_coords = 1;
            } else if (strcmp(an, "DIMENSION_LIST") == 0) {
                n->has_dimlist = 1;
            }
        }
    } else {
        if (ndims >= 1 && (a = native_att(o, "CLASS")) != NULL) {
            char *cls;
            if ((stat = native_text(c, a, &cls)))
                return stat;
            is_scale_class = cls != NULL && strcmp(cls, "DIMENSION_SCALE") == 0;
            free(cls);
        }
        if (is_scale_class) {
            has_name = native_att(o, "NAME") != NULL;
            has_dimid = native_att(o, NC4H5_DIMID_ATT) != NULL;
        }
        has_coords = ndims > 0 && native_att(o, NC4H5_COORDS_ATT) != NULL;
        n->has_dimlist = ndims > 0 && !is_scale_class && native_att(o, "DIMENSION_LIST") != NULL;
        if (c->count_markers)
            c->markers += is_scale_class + has_name + has_dimid + has_coords + n->has_dimlist;
    }
    if (ndims >= 1 && is_scale_class) {
        int id, ok;
        n->is_scale = 1;
        if (has_dimid && (a = native_att(o, NC4H5_DIMID_ATT)) != NULL) {
            if ((stat = native_ints(a, 1, &id, &ok)))
                return stat;
            if (ok && id >= 0)
                n->assigned_id = id;
        }
        if (has_name && (a = native_att(o, "NAME")) != NULL) {
            char *nm;
            if ((stat = native_text(c, a, &nm)))
                return stat;
            if (nm != NULL)
                n->dim_only =
                    strncmp(nm, NC4H5_DIMSCALE_NOVAR, strlen(NC4H5_DIMSCALE_NOVAR)) == 0;
            free(nm);
        }
        n->addr = (haddr_t)o->addr;
    }
    if (ndims > 0 && has_coords && (a = native_att(o, NC4H5_COORDS_ATT)) != NULL) {
        int *co = malloc((size_t)ndims * sizeof(int)), ok;
        if (co == NULL)
            return NC_ENOMEM;
        if ((stat = native_ints(a, ndims, co, &ok))) {
            free(co);
            return stat;
        }
        if (ok)
            n->coords = co;
        else
            free(co);
    }
    /* The type, as resolve_types decides it. */
    n->xtype = NC_NAT;
    n->endianness = NC_ENDIAN_NATIVE;
    if (!n->dim_only) {
        int end;
        if ((stat = native_xtype(&o->type, &n->xtype, &end)))
            return stat;
        if (n->xtype != NC_CHAR && n->xtype != NC_STRING && n->xtype != NC_NAT)
            n->endianness = end;
    }
    /* read-only: DIMENSION_LIST when the matching asks for it */
    if (ndims > 0 && !n->is_scale && !n->coords && (stat = nc4h5o_note_dimlist(c, n)))
        return stat;
    return NC_NOERR;
}

/* One attribute as hdf5att.c's read_one reads it: NC_NOERR (added), or
 * NC_EBADTYPE (left out), NC_ENOMEM, H5N_GIVEUP. */
static int
native_read_one(open_ctx *c, NC4_grp *g, NC4_var *var, const h5n_att *a)
{
    nc_type xtype;
    size_t n = (size_t)a->space.npoints, tsize;
    void *buf;
    int end, stat;

    if (a->type.cls == H5N_STRING || (a->type.cls == H5N_VLEN && a->type.vlen_string)) {
        int vstr = a->type.cls == H5N_VLEN;
        size_t fsize = a->type.size;
        char **strs;
        char *block = NULL;
        if (!vstr && a->space.ndims == 0) {
            /* one fixed-size string: NC_CHAR of its size */
            if (n == 0)
                return nc4_set_att(g, var, a->name, NC_CHAR, 0, NULL, NULL);
            if (fsize == 0)
                return NC_EBADTYPE;
            return nc4_set_att(g, var, a->name, NC_CHAR, fsize, a->data, NULL);
        }
        if (n == 0)
            return nc4_set_att(g, var, a->name, NC_STRING, 0, NULL, NULL);
        if (!vstr && fsize == 0)
            return NC_EBADTYPE;
        if ((strs = calloc(n, sizeof(char *))) == NULL)
            return NC_ENOMEM;
        stat = NC_NOERR;
        if (vstr) {
            for (size_t i = 0; i < n && !stat; i++) {
                const unsigned char *p;
                size_t len;
                uint32_t count;
                if ((stat = h5n_vlen(c->nf, a->data + i * 16, &p, &len, &count)))
                    break;
                if (p == NULL || len < count) {
                    stat = H5N_GIVEUP;   /* nil strings: HDF5's business */
                    break;
                }
                if ((strs[i] = strndup((const char *)p, count)) == NULL)
                    stat = NC_ENOMEM;
            }
        } else if ((block = malloc(n * (fsize + 1))) == NULL) {
            stat = NC_ENOMEM;
        } else {
            for (size_t i = 0; i < n; i++) {
                char *s = block + i * (fsize + 1);
                memcpy(s, a->data + i * fsize, fsize);
                s[fsize] = '\0';
                strs[i] = s;
            }
        }
        if (!stat)
            stat = nc4_set_att(g, var, a->name, NC_STRING, n, strs, NULL);
        if (vstr)
            for (size_t i = 0; i < n; i++)
                free(strs[i]);
        free(block);
        free(strs);
        return stat;
    }
    if ((stat = native_xtype(&a->type, &xtype, &end)))
        return stat;
    if (xtype == NC_NAT || a->space.ndims > 1)
        return NC_EBADTYPE;
    if (n == 0)
        return nc4_set_att(g, var, a->name, xtype, 0, NULL, NULL);
    tsize = a->type.size;
    if ((buf = malloc(n * tsize)) == NULL)
        return NC_ENOMEM;
    copy_swapped(buf, a->data, n, tsize, a->type.big_endian);
    stat = nc4_set_att(g, var, a->name, xtype, n, buf, NULL);
    free(buf);
    return stat;
}

/* nc4h5_read_atts from a parsed header (the attributes in creation order). */
static int
native_read_atts(open_ctx *c, NC4_grp *g, NC4_var *var, h5n_obj *o)
{
    for (size_t i = 0; i < o->natts; i++) {
        const char *name = o->atts[i].name;
        int stat;
        if (nc4h5_is_hidden_att(name))
            continue;
        stat = native_read_one(c, g, var, &o->atts[i]);
        if (stat == NC_ENOMEM || stat == H5N_GIVEUP)
            return stat;
        if (stat == NC_NOERR) {
            NC4_index *list = var ? &var->atts : &g->atts;
            NC4_att *att = (NC4_att *)nc4_index_find(list, name);
            if (att != NULL) {
                att->dirty = 0;
                if (att->hdr.stored_name == NULL &&
                    (att->hdr.stored_name = strdup(name)) == NULL)
                    return NC_ENOMEM;
            }
        }
    }
    return NC_NOERR;
}

/* Storage, filters, fill value, cache and attributes of var (read_var_storage
 * and the rest of make_vars) from note n's parsed header. */
int
nc4h5o_native_var(open_ctx *c, grp_note *gn, ds_note *n, NC4_var *var)
{
    h5n_obj *o = n->obj;
    int stat;

    free(var->chunksizes);   /* nc4_new_var's, for unlimited dims */
    var->chunksizes = NULL;
    if (o->layout == H5N_CHUNKED && var->ndims > 0) {
        if (o->chunk_ndims != var->ndims)
            return H5N_GIVEUP;
        if ((var->chunksizes = malloc((size_t)var->ndims * sizeof(size_t))) == NULL)
            return NC_ENOMEM;
        for (int d = 0; d < var->ndims; d++)
            var->chunksizes[d] = (size_t)o->chunk[d];
        var->storage = NC_CHUNKED;
    } else {
        var->storage = o->layout == H5N_COMPACT ? NC_COMPACT : NC_CONTIGUOUS;
    }
    if (o->nfilters > 0) {
        if ((var->filters = calloc(o->nfilters, sizeof(NC4_filter))) == NULL)
            return NC_ENOMEM;
        for (size_t i = 0; i < o->nfilters; i++) {
            const h5n_filter *hf = &o->filters[i];
            NC4_filter *fl = &var->filters[var->nfilters];
            size_t np = hf->nparams;
            if (hf->id == H5Z_FILTER_DEFLATE && (np != 1 || hf->params[0] > 9))
                return H5N_GIVEUP;
            if (np > 0) {
                if ((fl->params = malloc(np * sizeof(unsigned int))) == NULL)
                    return NC_ENOMEM;
                memcpy(fl->params, hf->params, np * sizeof(unsigned int));
            }
            if (hf->id == H5Z_FILTER_SZIP && np == 4) {
                np = 2;
                fl->params[0] &= SZIP_USER_MASKS;
            }
            fl->id = hf->id;
            fl->nparams = np;
            var->nfilters++;
        }
        nc4h5o_order_filters(var);
    }
    var->no_fill = o->fill_state != H5N_FILL_USER || o->fill_time == 1;
    if (o->fill_state == H5N_FILL_USER) {
        size_t size = nc4_type_size(c->f, var->xtype);
        void *fill;
        if (size == 0)
            return H5N_GIVEUP;
        if (var->xtype == NC_STRING) {
            /* a vlen string in the file (fixed-size ones: converted by HDF5) */
            const unsigned char *p;
            size_t len;
            uint32_t count;
            char *str;
            if (!o->type.vlen_string || o->fill_size != 16)
                return H5N_GIVEUP;
            if ((stat = h5n_vlen(c->nf, o->fill, &p, &len, &count)))
                return stat;
            if (p == NULL || len < count)
                return H5N_GIVEUP;
            if ((str = strndup((const char *)p, count)) == NULL)
                return NC_ENOMEM;
            if ((fill = malloc(sizeof(char *))) == NULL) {
                free(str);
                return NC_ENOMEM;
            }
            *(char **)fill = str;
            var->fill_value = fill;
        } else if (var->xtype == NC_CHAR) {
            /* the memory type is a NULLTERM ASCII 1-byte string */
            if (o->fill_size != 1 || o->type.strpad != 0 || o->type.cset != 0)
                return H5N_GIVEUP;
        } else if (o->fill_size != size || o->type.size != size) {
            return H5N_GIVEUP;
        }
        if (var->xtype != NC_STRING) {
            if ((fill = malloc(size)) == NULL)
                return NC_ENOMEM;
            copy_swapped(fill, o->fill, 1, size, var->xtype == NC_CHAR ? 0 : o->type.big_endian);
            var->fill_value = fill;
        }
    }
    if (var->storage != NC_CHUNKED)
        nc4h5o_unchunked_cache(var);
    nc4_adjust_var_cache(var);
    for (int d = 0; d < var->ndims; d++)
        if (var->dims[d]->unlimited && var->dims[d]->len < (size_t)n->dims[d])
            var->dims[d]->len = (size_t)n->dims[d];
    if ((stat = native_read_atts(c, gn->g, var, o)))
        return stat;
    nc4h5o_read_quantize(var);
    return NC_NOERR;
}

/* The object header at addr, parsed into a new h5n_obj. */
static int
new_obj(h5n_file *nf, uint64_t addr, h5n_obj **op)
{
    h5n_obj *o = malloc(sizeof(*o));
    int stat;
    if (o == NULL)
        return NC_ENOMEM;
    if ((stat = h5n_read_obj(nf, addr, o))) {
        h5n_obj_free(o);
        free(o);
        return stat;
    }
    *op = o;
    return NC_NOERR;
}

/* walk_group from parsed headers: gi's object is c->grps[gi].gobj. */
static int
native_walk_group(open_ctx *c, size_t gi, int depth)
{
    h5n_obj *go = c->grps[gi].gobj;
    size_t *kids = NULL, nkids = 0;
    int stat = NC_NOERR;

    if (go->nlinks > 0 && (kids = malloc(go->nlinks * sizeof(size_t))) == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < go->nlinks && !stat; i++) {
        const h5n_link *l = &go->links[i];
        h5n_obj *o;
        if (strlen(l->name) > NC_MAX_NAME)
            continue;
        if ((stat = new_obj(c->nf, l->addr, &o)))
            break;
        if (o->kind == H5N_OBJ_GROUP) {
            kids[nkids++] = i;   /* after this group's objects */
            h5n_obj_free(o);
            free(o);
        } else if (o->kind == H5N_OBJ_DATASET) {
            stat = native_note_dataset(c, gi, l->name, o);
        } else {
            h5n_obj_free(o);
            free(o);
            stat = H5N_GIVEUP;   /* committed types: HDF5's reader */
        }
    }
    for (size_t k = 0; k < nkids && !stat; k++) {
        const h5n_link *l = &c->grps[gi].gobj->links[kids[k]];
        NC4_grp *child;
        h5n_obj *o;
        size_t ci;
        int s, seen = 0;
        for (size_t q = 0; q < c->ngrps && !seen; q++)
            seen = c->grps[q].addr == (haddr_t)l->addr;
        if (seen || depth >= MAX_GROUP_DEPTH)
            continue;
        s = nc4_new_grp(c->grps[gi].g, l->name, &child);
        if (s) {
            if (s == NC_ENOMEM)
                stat = s;
            continue;
        }
        if ((stat = nc4h5o_add_group_note(c, child, -1, gi, &ci)))
            break;
        c->grps[ci].addr = (haddr_t)l->addr;
        if ((stat = new_obj(c->nf, l->addr, &o)))
            break;
        c->grps[ci].gobj = o;
        stat = native_walk_group(c, ci, depth + 1);
    }
    free(kids);
    return stat;
}

/* read_tree through the native reader: NC_NOERR, NC_ENOMEM, or H5N_GIVEUP
 * (f is then half built: the caller frees it). */
static int
read_tree_native(NC4_file *f, h5n_file *nf)
{
    open_ctx c;
    h5n_obj *root;
    h5n_att *a;
    size_t gi;
    int stat;

    memset(&c, 0, sizeof(c));
    c.f = f;
    c.readonly = 1;
    c.nf = nf;
    if ((stat = nc4h5o_add_group_note(&c, f->root, -1, SIZE_MAX, &gi)))
        goto done;
    if ((stat = new_obj(nf, h5n_root_addr(nf), &root)))
        goto done;
    if (root->kind != H5N_OBJ_GROUP) {
        h5n_obj_free(root);
        free(root);
        stat = H5N_GIVEUP;
        goto done;
    }
    c.grps[0].gobj = root;
    c.grps[0].addr = (haddr_t)h5n_root_addr(nf);
    if ((a = native_att(root, NC4H5_NCPROPS_ATT)) != NULL &&
        (stat = native_text(&c, a, &f->ncproperties)))
        goto done;
    nc4h5o_note_model(&c, native_att(root, NC4H5_STRICT_ATT) != NULL);
    f->superblock = h5n_superblock_version(nf);
    if ((stat = native_walk_group(&c, 0, 0)) || (stat = nc4h5o_build_tree(&c)))
        goto done;
    for (gi = 0; gi < c.ngrps && !stat; gi++)
        stat = native_read_atts(&c, c.grps[gi].g, NULL, c.grps[gi].gobj);
done:
    nc4h5o_free_ctx(&c);
    return stat;
}

static int
native_mode(void)
{
    const char *e = getenv("NETCDF_HDF5_NATIVE_OPEN");
    return e == NULL ? 1 : e[0] == '0' ? 0 : e[0] == '2' ? 2 : 1;
}

/* Open read-only through the native reader the file nf (closed here),
 * named path; remote: the remote file it is read from (hdf5remote.c), or
 * NULL.  NC_NOERR, an error, or H5N_GIVEUP (nothing is left behind; the
 * caller opens through HDF5). */
static int
open_native_file(NC *nc, const char *path, int mode, h5n_file *nf, struct nc4h5_rref *remote)
{
    NC4_file *f = NULL;
    NC4H5_file *hf;
    int stat;

    if ((stat = nc4_file_new(nc, nc->ext_ncid, mode, NC_FORMATX_NC_HDF5, &nc4h5_ops, &f)))
        goto done;
    if ((hf = calloc(1, sizeof(*hf))) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    hf->kind = NC4H5_KFILE;
    hf->fid = -1;
    hf->lazy = 1;
    f->fmt = hf;
    f->readonly = 1;
    f->indef = 0;
    if ((hf->path = strdup(path)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    /* The settings NC4_HDF5_open would give HDF5 now, for the later open. */
    nc4_get_default_cache(&hf->lazy_csize, &hf->lazy_cnelems, &hf->lazy_cpre);
    hf->lazy_cnelems = 1;
    if ((stat = read_tree_native(f, nf)))
        goto done;
    f->dirty = 0;
    if (remote != NULL)
        hf->remote = nc4h5_remote_ref(remote);
done:
    h5n_close(nf);
    /* Errors are HDF5's to report (same codes as ever): only running out
     * of memory ends the open here. */
    if (stat && stat != NC_ENOMEM)
        stat = native_mode() == 2 ? NC_ENOTBUILT : H5N_GIVEUP;
    if (stat && f != NULL)
        nc4_file_free(f);
    return stat;
}

/* Open path read-only through the native reader: NC_NOERR, an error, or
 * H5N_GIVEUP (nothing is left behind; the caller opens through HDF5). */
int
nc4h5o_open_native(NC *nc, const char *path, int mode)
{
    h5n_file *nf = NULL;
    int stat;

    if (native_mode() == 0)
        return H5N_GIVEUP;
    if ((stat = h5n_open(path, &nf)))
        return stat == NC_ENOMEM ? stat : native_mode() == 2 ? NC_ENOTBUILT : H5N_GIVEUP;
    return open_native_file(nc, path, mode, nf, NULL);
}

/* The same for a file read through fn(ctx, ...) of size bytes, the remote
 * file remote (the open file keeps a reference to it). */
int
nc4h5o_open_native_reader(NC *nc, const char *path, int mode, h5n_readfn fn, void *ctx,
                          uint64_t size, struct nc4h5_rref *remote)
{
    h5n_file *nf = NULL;
    int stat;

    if (native_mode() == 0)
        return H5N_GIVEUP;
    if ((stat = h5n_open_reader(fn, ctx, size, 0, &nf)))
        return stat == NC_ENOMEM ? stat : native_mode() == 2 ? NC_ENOTBUILT : H5N_GIVEUP;
    return open_native_file(nc, path, mode, nf, remote);
}
