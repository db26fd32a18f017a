/* nc4file.c: lifetime of a file's tree and the primitive builders and
 * finders of nc4model.h (nc4_file_new/free, nc4_new_*, nc4_find_*,
 * nc4_check_define, the library-wide chunk cache defaults).
 *
 * The builders append with the next id and do only the namespace checks;
 * the define rules live in the NC4_def_* slots.  Objects they make are
 * clean (not dirty, stored_name NULL): a storage layer loading a file sets
 * stored_name/created itself, the def slots mark what they create dirty. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "nc4priv.h"
#include "ncdispatch.h"
#include "ncstate.h"

/* ---- helpers ---------------------------------------------------------------- */

/* Grow *arr (of pointers) to hold n + 1 entries. */
static int
grow_ptrs(void ***arr, size_t n)
{
    /* Capacity is the next power of two >= n + 1. */
    if (n == 0 || (n & (n - 1)) == 0) {
        size_t cap = n ? 2 * n : 1;
        void **p = realloc(*arr, cap * sizeof(void *));
        if (p == NULL)
            return NC_ENOMEM;
        *arr = p;
    }
    return NC_NOERR;
}

static int
obj_init(NC4_obj *hdr, const char *name, int id)
{
    if ((hdr->name = strdup(name)) == NULL)
        return NC_ENOMEM;
    hdr->id = id;
    hdr->stored_name = NULL;
    return NC_NOERR;
}

static void
obj_free(NC4_obj *hdr)
{
    free(hdr->name);
    free(hdr->stored_name);
}

static void
free_fmt(NC4_file *f, void *fmt)
{
    if (fmt != NULL && f->ops != NULL && f->ops->free_fmt != NULL)
        f->ops->free_fmt(f, fmt);
}

static void
free_att(NC4_file *f, NC4_att *att)
{
    free_fmt(f, att->fmt);
    if (att->data != NULL) {
        nc4_reclaim_values(f, att->xtype, att->data, att->len);
        free(att->data);
    }
    obj_free(&att->hdr);
    free(att);
}

static void
free_atts(NC4_file *f, NC4_index *ix)
{
    for (size_t i = 0; i < ix->n; i++)
        free_att(f, (NC4_att *)ix->items[i]);
    nc4_index_clear(ix);
}

static void
free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void
free_var(NC4_file *f, NC4_var *var)
{
    free_fmt(f, var->fmt);
    free_atts(f, &var->atts);
    if (var->fill_value != NULL) {
        nc4_reclaim_values(f, var->xtype, var->fill_value, 1);
        free(var->fill_value);
    }
    for (size_t i = 0; i < var->nfilters; i++)
        free(var->filters[i].params);
    free(var->filters);
    free(var->dimids);
    free(var->dims);
    free(var->chunksizes);
    free_names(var->deleted_atts, var->ndeleted_atts);
    obj_free(&var->hdr);
    free(var);
}

static void
free_type(NC4_file *f, NC4_type *t)
{
    free_fmt(f, t->fmt);
    for (size_t i = 0; i < t->fields.n; i++) {
        NC4_field *fl = (NC4_field *)t->fields.items[i];
        free(fl->dimsizes);
        obj_free(&fl->hdr);
        free(fl);
    }
    nc4_index_clear(&t->fields);
    for (size_t i = 0; i < t->members.n; i++) {
        obj_free(t->members.items[i]);
        free(t->members.items[i]);
    }
    nc4_index_clear(&t->members);
    obj_free(&t->hdr);
    free(t);
}

/* Frees the group's own things; children are freed by the caller through
 * f->grps (every group is there). */
static void
free_grp(NC4_file *f, NC4_grp *g)
{
    free_fmt(f, g->fmt);
    for (size_t i = 0; i < g->vars.n; i++)
        free_var(f, (NC4_var *)g->vars.items[i]);
    nc4_index_clear(&g->vars);
    free_atts(f, &g->atts);
    nc4_index_clear(&g->children);
    nc4_index_clear(&g->dims);
    nc4_index_clear(&g->types);
    free_names(g->deleted_atts, g->ndeleted_atts);
    obj_free(&g->hdr);
    free(g);
}

/* ---- file ----------------------------------------------------------------------- */

int
nc4_file_new(struct NC *nc, int ext_ncid, int cmode, int formatx,
             const NC4_storage_ops *ops, NC4_file **fp)
{
    NC4_file *f;
    NC4_grp *root = NULL;
    int stat;

    if ((f = calloc(1, sizeof(*f))) == NULL)
        return NC_ENOMEM;
    f->nc = nc;
    f->ext_ncid = ext_ncid;
    f->cmode = cmode;
    f->formatx = formatx;
    f->classic_model = (cmode & NC_CLASSIC_MODEL) != 0;
    f->format = f->classic_model ? NC_FORMAT_NETCDF4_CLASSIC : NC_FORMAT_NETCDF4;
    f->readonly = 0;
    f->fill_mode = NC_FILL;
    f->superblock = -1;
    f->ops = ops;
    if ((root = calloc(1, sizeof(*root))) == NULL) {
        free(f);
        return NC_ENOMEM;
    }
    if ((stat = obj_init(&root->hdr, "/", 0))) {
        free(root);
        free(f);
        return stat;
    }
    root->file = f;
    if ((stat = grow_ptrs((void ***)&f->grps, 0))) {
        obj_free(&root->hdr);
        free(root);
        free(f);
        return stat;
    }
    f->grps[0] = root;
    f->ngrps = 1;
    f->root = root;
    if (nc != NULL)
        nc->dispatchdata = f;
    *fp = f;
    return NC_NOERR;
}

void
nc4_file_free(NC4_file *f)
{
    if (f == NULL)
        return;
    /* Vars and atts first (their values may be of user types), types last. */
    for (size_t i = 0; i < f->ngrps; i++)
        free_grp(f, f->grps[i]);
    for (size_t i = 0; i < f->ndims; i++) {
        NC4_dim *d = f->dims[i];
        free_fmt(f, d->fmt);
        obj_free(&d->hdr);
        free(d);
    }
    for (size_t i = 0; i < f->ntypes; i++)
        free_type(f, f->types[i]);
    free(f->grps);
    free(f->dims);
    free(f->types);
    free(f->ncproperties);
    free_fmt(f, f->fmt);
    if (f->nc != NULL && f->nc->dispatchdata == f)
        f->nc->dispatchdata = NULL;
    free(f);
}

/* ---- builders ----------------------------------------------------------------------- */

int
nc4_new_grp(NC4_grp *parent, const char *name, NC4_grp **gp)
{
    NC4_file *f = parent->file;
    NC4_grp *g;
    int stat;

    if (nc4_index_find(&parent->children, name))
        return NC_ENAMEINUSE;
    if (f->ngrps > NC_GRP_MASK)
        return NC_ENOMEM;  /* group ids are 16 bits in an ncid */
    if ((stat = grow_ptrs((void ***)&f->grps, f->ngrps)))
        return stat;
    if ((g = calloc(1, sizeof(*g))) == NULL)
        return NC_ENOMEM;
    if ((stat = obj_init(&g->hdr, name, (int)f->ngrps))) {
        free(g);
        return stat;
    }
    g->file = f;
    g->parent = parent;
    if ((stat = nc4_index_add(&parent->children, &g->hdr))) {
        obj_free(&g->hdr);
        free(g);
        return stat;
    }
    f->grps[f->ngrps++] = g;
    if (gp)
        *gp = g;
    return NC_NOERR;
}

int
nc4_new_dim(NC4_grp *g, const char *name, size_t len, int unlimited, NC4_dim **dp)
{
    NC4_file *f = g->file;
    NC4_dim *d;
    int stat;

    if (nc4_index_find(&g->dims, name))
        return NC_ENAMEINUSE;
    if (f->ndims >= (size_t)NC_MAX_INT)
        return NC_EMAXDIMS;
    if ((stat = grow_ptrs((void ***)&f->dims, f->ndims)))
        return stat;
    if ((d = calloc(1, sizeof(*d))) == NULL)
        return NC_ENOMEM;
    if ((stat = obj_init(&d->hdr, name, (int)f->ndims))) {
        free(d);
        return stat;
    }
    d->grp = g;
    d->len = len;
    d->unlimited = unlimited != 0;
    if ((stat = nc4_index_add(&g->dims, &d->hdr))) {
        obj_free(&d->hdr);
        free(d);
        return stat;
    }
    f->dims[f->ndims++] = d;
    /* A variable of this name already in g whose first dim is this one
     * cannot exist yet (the dim is new), so no coordinate link to make. */
    if (dp)
        *dp = d;
    return NC_NOERR;
}

int
nc4_new_var(NC4_grp *g, const char *name, nc_type xtype, int ndims,
            const int *dimids, NC4_var **vp)
{
    NC4_file *f = g->file;
    NC4_var *var;
    int stat = NC_NOERR;

    if (nc4_index_find(&g->vars, name))
        return NC_ENAMEINUSE;
    if (ndims < 0 || (ndims > 0 && dimids == NULL))
        return NC_EINVAL;
    if (g->vars.n >= (size_t)NC_MAX_INT)
        return NC_EMAXVARS;
    for (int d = 0; d < ndims; d++)
        if (dimids[d] < 0 || (size_t)dimids[d] >= f->ndims)
            return NC_EBADDIM;
    if ((var = calloc(1, sizeof(*var))) == NULL)
        return NC_ENOMEM;
    if ((stat = obj_init(&var->hdr, name, (int)g->vars.n)))
        goto fail;
    var->grp = g;
    var->xtype = xtype;
    var->ndims = ndims;
    var->storage = NC_CONTIGUOUS;
    var->endianness = NC_ENDIAN_NATIVE;
    if (ndims > 0) {
        if ((var->dimids = malloc((size_t)ndims * sizeof(int))) == NULL ||
            (var->dims = malloc((size_t)ndims * sizeof(NC4_dim *))) == NULL) {
            stat = NC_ENOMEM;
            goto fail;
        }
        for (int d = 0; d < ndims; d++) {
            var->dimids[d] = dimids[d];
            var->dims[d] = f->dims[dimids[d]];
            if (var->dims[d]->unlimited)
                var->storage = NC_CHUNKED;
        }
        if (var->storage == NC_CHUNKED &&
            (var->chunksizes = calloc((size_t)ndims, sizeof(size_t))) == NULL) {
            stat = NC_ENOMEM;
            goto fail;
        }
    }
    NC_get_chunk_cache_defaults(&var->cache_size, &var->cache_nelems, &var->cache_preemption);
    if ((stat = nc4_index_add(&g->vars, &var->hdr)))
        goto fail;
    nc4_update_coord(var);
    if (vp)
        *vp = var;
    return NC_NOERR;
fail:
    free(var->dimids);
    free(var->dims);
    free(var->chunksizes);
    obj_free(&var->hdr);
    free(var);
    return stat;
}

int
nc4_new_type(NC4_grp *g, const char *name, int tclass, size_t size, nc_type base,
             NC4_type **tp)
{
    NC4_file *f = g->file;
    NC4_type *t;
    int stat;

    if (nc4_index_find(&g->types, name))
        return NC_ENAMEINUSE;
    if (f->ntypes >= (size_t)(NC_MAX_INT - NC_FIRSTUSERTYPEID))
        return NC_EMAXDIMS;
    if ((stat = grow_ptrs((void ***)&f->types, f->ntypes)))
        return stat;
    if ((t = calloc(1, sizeof(*t))) == NULL)
        return NC_ENOMEM;
    if ((stat = obj_init(&t->hdr, name, NC_FIRSTUSERTYPEID + (int)f->ntypes))) {
        free(t);
        return stat;
    }
    t->grp = g;
    t->tclass = tclass;
    t->size = size;
    t->base = base;
    t->endianness = NC_ENDIAN_NATIVE;
    if ((stat = nc4_index_add(&g->types, &t->hdr))) {
        obj_free(&t->hdr);
        free(t);
        return stat;
    }
    f->types[f->ntypes++] = t;
    if (tp)
        *tp = t;
    return NC_NOERR;
}

int
nc4_new_field(NC4_type *t, const char *name, size_t offset, nc_type xtype,
              int ndims, const int *dimsizes)
{
    NC4_field *fl;
    int stat;

    if (nc4_index_find(&t->fields, name))
        return NC_ENAMEINUSE;
    if (ndims < 0 || (ndims > 0 && dimsizes == NULL))
        return NC_EINVAL;
    if ((fl = calloc(1, sizeof(*fl))) == NULL)
        return NC_ENOMEM;
    if ((stat = obj_init(&fl->hdr, name, (int)t->fields.n))) {
        free(fl);
        return stat;
    }
    fl->offset = offset;
    fl->xtype = xtype;
    fl->ndims = ndims;
    if (ndims > 0) {
        if ((fl->dimsizes = malloc((size_t)ndims * sizeof(int))) == NULL) {
            obj_free(&fl->hdr);
            free(fl);
            return NC_ENOMEM;
        }
        memcpy(fl->dimsizes, dimsizes, (size_t)ndims * sizeof(int));
    }
    if ((stat = nc4_index_add(&t->fields, &fl->hdr))) {
        free(fl->dimsizes);
        obj_free(&fl->hdr);
        free(fl);
        return stat;
    }
    return NC_NOERR;
}

int
nc4_new_member(NC4_type *t, const char *name, long long value)
{
    NC4_member *m;
    int stat;

    if (nc4_index_find(&t->members, name))
        return NC_ENAMEINUSE;
    if ((m = calloc(1, sizeof(*m))) == NULL)
        return NC_ENOMEM;
    if ((stat = obj_init(&m->hdr, name, (int)t->members.n))) {
        free(m);
        return stat;
    }
    m->value = value;
    if ((stat = nc4_index_add(&t->members, &m->hdr))) {
        obj_free(&m->hdr);
        free(m);
        return stat;
    }
    return NC_NOERR;
}

int
nc4_set_att(NC4_grp *g, NC4_var *var, const char *name, nc_type xtype, size_t len,
            const void *data, NC4_att **ap)
{
    NC4_file *f = g->file;
    NC4_index *list = var ? &var->atts : &g->atts;
    NC4_att *att;
    void *copy = NULL;
    int stat;

    if (len > 0 && data == NULL)
        return NC_EINVAL;
    if (len > 0 && (stat = nc4_dup_values(f, xtype, data, len, &copy)))
        return stat;
    att = (NC4_att *)nc4_index_find(list, name);
    if (att != NULL) {
        if (att->data != NULL) {
            nc4_reclaim_values(f, att->xtype, att->data, att->len);
            free(att->data);
        }
    } else {
        if ((att = calloc(1, sizeof(*att))) == NULL) {
            stat = NC_ENOMEM;
            goto fail;
        }
        if ((stat = obj_init(&att->hdr, name, (int)list->n))) {
            free(att);
            goto fail;
        }
        if ((stat = nc4_index_add(list, &att->hdr))) {
            obj_free(&att->hdr);
            free(att);
            goto fail;
        }
    }
    att->xtype = xtype;
    att->len = len;
    att->data = copy;
    if (ap)
        *ap = att;
    return NC_NOERR;
fail:
    if (copy != NULL) {
        nc4_reclaim_values(f, xtype, copy, len);
        free(copy);
    }
    return stat;
}

/* ---- finders ---------------------------------------------------------------------- */

int
nc4_find_grp(int ncid, NC4_file **fp, NC4_grp **gp)
{
    NC *nc;
    NC4_file *f;
    size_t gid;
    int stat;

    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    /* Only the model's own formats hang an NC4_file on the record (a
     * classic ncid can arrive here, e.g. as inq_type_equal's second file). */
    if (nc->model != NC_FORMATX_NC_HDF5 && nc->model != NC_FORMATX_NCZARR
        && nc->model != NC_FORMATX_DAP4)
        return NC_ENOTNC4;
    f = (NC4_file *)nc->dispatchdata;
    if (f == NULL || f->nc != nc)
        return NC_ENOTNC4;
    gid = (size_t)(ncid & NC_GRP_MASK);
    if (gid >= f->ngrps)
        return NC_EBADID;
    if (fp)
        *fp = f;
    if (gp)
        *gp = f->grps[gid];
    return NC_NOERR;
}

int
nc4_find_grp_w(int ncid, NC4_file **fp, NC4_grp **gp)
{
    NC4_file *f;
    int stat = nc4_find_grp(ncid, &f, gp);
    if (stat)
        return stat;
    if (f->readonly)
        return NC_EPERM;
    if (fp)
        *fp = f;
    return NC_NOERR;
}

int
nc4_find_var(int ncid, int varid, NC4_file **fp, NC4_grp **gp, NC4_var **vp)
{
    NC4_file *f;
    NC4_grp *g;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (varid < 0 || (size_t)varid >= g->vars.n)
        return NC_ENOTVAR;
    if (fp)
        *fp = f;
    if (gp)
        *gp = g;
    if (vp)
        *vp = (NC4_var *)g->vars.items[varid];
    return NC_NOERR;
}

int
nc4_find_dim(NC4_file *f, int dimid, NC4_dim **dp)
{
    if (dimid < 0 || (size_t)dimid >= f->ndims)
        return NC_EBADDIM;
    if (dp)
        *dp = f->dims[dimid];
    return NC_NOERR;
}

NC4_dim *
nc4_find_dim_by_name(NC4_grp *g, const char *name)
{
    for (; g != NULL; g = g->parent) {
        NC4_obj *o = nc4_index_find(&g->dims, name);
        if (o != NULL)
            return (NC4_dim *)o;
    }
    return NULL;
}

int
nc4_find_type(NC4_file *f, nc_type xtype, NC4_type **tp)
{
    if (xtype > NC_NAT && xtype <= NC_MAX_ATOMIC_TYPE) {
        if (tp)
            *tp = NULL;
        return NC_NOERR;
    }
    if (xtype < NC_FIRSTUSERTYPEID || (size_t)(xtype - NC_FIRSTUSERTYPEID) >= f->ntypes)
        return NC_EBADTYPE;
    if (tp)
        *tp = f->types[xtype - NC_FIRSTUSERTYPEID];
    return NC_NOERR;
}

int
nc4_att_list(NC4_grp *g, int varid, NC4_index **listp, NC4_var **varp)
{
    NC4_var *var = NULL;
    if (varid == NC_GLOBAL) {
        *listp = &g->atts;
    } else {
        if (varid < 0 || (size_t)varid >= g->vars.n)
            return NC_ENOTVAR;
        var = (NC4_var *)g->vars.items[varid];
        *listp = &var->atts;
    }
    if (varp)
        *varp = var;
    return NC_NOERR;
}

int
nc4_check_define(NC4_file *f)
{
    if (f->indef)
        return NC_NOERR;
    if (f->classic_model)
        return NC_ENOTINDEFINE;
    if (f->readonly)
        return NC_EPERM;
    f->indef = 1;
    return NC_NOERR;
}

/* ops->enddef, or just the flags when the storage has none. */
static int
leave_define(NC4_file *f)
{
    if (f->ops && f->ops->enddef)
        return f->ops->enddef(f);
    f->indef = 0;
    f->explicit_redef = 0;
    return NC_NOERR;
}

int
NC4_redef(int ncid)
{
    NC4_file *f;
    int stat;
    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if (f->indef)
        return f->classic_model ? NC_EINDEFINE : NC_NOERR;
    if (f->readonly)
        return NC_EPERM;
    f->indef = 1;
    f->explicit_redef = 1;
    return NC_NOERR;
}

int
NC4__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align)
{
    NC4_file *f;
    NC4_grp *g;
    int stat;
    (void)h_minfree; (void)v_align; (void)v_minfree; (void)r_align;
    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    /* An explicit nc_enddef fixes the fill values of the variables of the
     * group it names (upstream's rule: only that group, not its children,
     * and even when the file was not in define mode). */
    for (size_t i = 0; i < g->vars.n; i++)
        ((NC4_var *)g->vars.items[i])->fill_fixed = 1;
    if (!f->indef)
        return NC_ENOTINDEFINE;
    return leave_define(f);
}

int
nc4_sync_define(NC4_file *f)
{
    if (!f->indef)
        return NC_NOERR;
    if (f->classic_model)
        return NC_EINDEFINE;
    return leave_define(f);
}

int
nc4_data_define(NC4_file *f, const NC4_var *var)
{
    if (!f->indef && (var == NULL || var->created))
        return NC_NOERR;
    if (f->classic_model && f->indef)
        return NC_EINDEFINE;
    return leave_define(f);
}

int
NC4_inq_format_extended(int ncid, int *formatp, int *modep)
{
    NC4_file *f;
    int stat;
    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if (formatp)
        *formatp = f->formatx;
    if (modep)
        *modep = (f->nc ? f->nc->mode : f->cmode) | NC_NETCDF4;
    return NC_NOERR;
}

int
NC4_var_par_access(int ncid, int varid, int par_access)
{
    (void)ncid; (void)varid; (void)par_access;
    return NC_ENOPAR;
}

int
NC4_show_metadata(int ncid)
{
    return nc4_find_grp(ncid, NULL, NULL);
}

/* ops->close, or just the tree when the storage has none. */
static int
close_file(NC4_file *f, int abort, void *params)
{
    if (f->ops && f->ops->close)
        return f->ops->close(f, abort, params);
    nc4_file_free(f);
    return NC_NOERR;
}

int
NC4_close(int ncid, void *params)
{
    NC4_file *f;
    NC4_grp *g;
    int stat, is_group;
    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    is_group = g->parent != NULL;
    if (!is_group && f->ops && f->ops->check_close && (stat = f->ops->check_close(f)))
        return stat;
    stat = close_file(f, 0, params);
    return is_group ? NC_EBADGRPID : stat;
}

int
NC4_abort(int ncid)
{
    NC4_file *f;
    int stat = nc4_find_grp(ncid, &f, NULL);
    return stat ? stat : close_file(f, 1, NULL);
}

void
nc4_get_default_cache(size_t *size, size_t *nelems, float *preemption)
{
    size_t s, n;
    float p;
    NC_get_chunk_cache_defaults(&s, &n, &p);
    if (size)
        *size = s;
    if (nelems)
        *nelems = n;
    if (preemption)
        *preemption = p;
}
