/* nc4type.c: user-defined types of the enhanced model (compound, vlen,
 * enum, opaque): definition, fields and members, inquiries, type look-up by
 * name, structural equality across files, vlen elements.
 *
 * Order of checks and error codes follow upstream's libhdf5/hdf5type.c and
 * libsrc4/nc4type.c: an unknown user type id found through nc4_find_type is
 * NC_EBADTYPID there, an atomic id where a user type is needed NC_EBADTYPE. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "nc4priv.h"
#include "ncdispatch.h"
#include "ncx.h"

static const char *const atomic_names[NC_MAX_ATOMIC_TYPE + 1] = {
    "none", "byte", "char", "short", "int", "float", "double",
    "ubyte", "ushort", "uint", "int64", "uint64", "string"
};

int
nc4_atomic_name(nc_type xtype, const char **namep, size_t *sizep)
{
    if (xtype <= NC_NAT || xtype > NC_MAX_ATOMIC_TYPE)
        return NC_EBADTYPE;
    if (namep)
        *namep = atomic_names[xtype];
    if (sizep)
        *sizep = ncx_memlen(xtype);
    return NC_NOERR;
}

/* Upstream's nc4_find_type: NC_EINVAL for a negative id, *tp = NULL for an
 * atomic id, NC_EBADTYPID for an unknown user id. */
static int
find_type_up(NC4_file *f, nc_type xtype, NC4_type **tp)
{
    *tp = NULL;
    if (xtype < 0)
        return NC_EINVAL;
    if (xtype <= NC_MAX_ATOMIC_TYPE)
        return NC_NOERR;
    if (nc4_find_type(f, xtype, tp))
        return NC_EBADTYPID;
    return NC_NOERR;
}

/* The user type xtype of the file of ncid, of class tclass (0 = any):
 * NC_EBADTYPE otherwise (upstream's direct list look-ups). */
static int
user_type(int ncid, nc_type xtype, int tclass, NC4_file **fp, NC4_type **tp)
{
    NC4_file *f;
    NC4_type *t = NULL;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if (xtype <= NC_MAX_ATOMIC_TYPE || nc4_find_type(f, xtype, &t) || t == NULL)
        return NC_EBADTYPE;
    if (tclass && t->tclass != tclass)
        return NC_EBADTYPE;
    if (fp)
        *fp = f;
    *tp = t;
    return NC_NOERR;
}

/* ---- definitions ------------------------------------------------------------------ */

static int
add_user_type(int ncid, size_t size, const char *name, nc_type base, int tclass,
              nc_type *typeidp)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_type *t = NULL;
    int stat;

    if ((stat = nc4_check_name(name)))
        return stat;
    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (f->classic_model)
        return NC_ESTRICTNC3;
    if ((stat = nc4_check_define(f)))
        return stat;
    if (tclass == NC_VLEN) {
        size = sizeof(nc_vlen_t);
    } else if (tclass == NC_ENUM) {
        /* Upstream takes the base type's size, whatever the base type. */
        NC4_type *bt;
        if ((stat = find_type_up(f, base, &bt)))
            return stat;
        if (base == NC_NAT)
            return NC_EBADTYPE;
        size = bt ? bt->size : ncx_memlen(base);
    } else if (size == 0) {
        return NC_EINVAL;
    }
    if ((stat = nc4_check_dup_name(g, name)))
        return stat;
    if ((stat = nc4_new_type(g, name, tclass, size,
                             (tclass == NC_VLEN || tclass == NC_ENUM) ? base : NC_NAT, &t)))
        return stat;
    g->dirty = 1;
    f->dirty = 1;
    if (typeidp)
        *typeidp = t->hdr.id;
    return NC_NOERR;
}

int
NC4_def_compound(int ncid, size_t size, const char *name, nc_type *typeidp)
{
    return add_user_type(ncid, size, name, NC_NAT, NC_COMPOUND, typeidp);
}

int
NC4_def_opaque(int ncid, size_t size, const char *name, nc_type *typeidp)
{
    return add_user_type(ncid, size, name, NC_NAT, NC_OPAQUE, typeidp);
}

int
NC4_def_vlen(int ncid, const char *name, nc_type base, nc_type *typeidp)
{
    return add_user_type(ncid, 0, name, base, NC_VLEN, typeidp);
}

int
NC4_def_enum(int ncid, nc_type base, const char *name, nc_type *typeidp)
{
    return add_user_type(ncid, 0, name, base, NC_ENUM, typeidp);
}

int
NC4_insert_array_compound(int ncid, nc_type xtype, const char *name, size_t offset,
                          nc_type field_typeid, int ndims, const int *dim_sizesp)
{
    NC4_file *f;
    NC4_type *t;
    int stat;

    if ((stat = nc4_check_name(name)))
        return stat;
    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if ((stat = find_type_up(f, xtype, &t)))
        return stat;
    if (t == NULL || t->tclass != NC_COMPOUND)
        return NC_EBADTYPE;
    if (t->committed)
        return NC_ETYPDEFINED;
    if (field_typeid <= NC_NAT || nc4_find_type(f, field_typeid, NULL))
        return NC_EBADTYPE;
    /* A repeated name is NC_ENAMEINUSE here; upstream accepts it and fails
     * in HDF5 at enddef. */
    if ((stat = nc4_new_field(t, name, offset, field_typeid, ndims, dim_sizesp)))
        return stat;
    t->grp->dirty = 1;
    f->dirty = 1;
    return NC_NOERR;
}

int
NC4_insert_compound(int ncid, nc_type xtype, const char *name, size_t offset,
                    nc_type field_typeid)
{
    return NC4_insert_array_compound(ncid, xtype, name, offset, field_typeid, 0, NULL);
}

/* Value of an enum member given in the base type's memory form. */
static int
enum_value_in(nc_type base, const void *value, long long *llp)
{
    switch (base) {
    case NC_BYTE: *llp = *(const signed char *)value; break;
    case NC_UBYTE: *llp = *(const unsigned char *)value; break;
    case NC_SHORT: *llp = *(const short *)value; break;
    case NC_USHORT: *llp = *(const unsigned short *)value; break;
    case NC_INT: *llp = *(const int *)value; break;
    case NC_UINT: *llp = *(const unsigned int *)value; break;
    case NC_INT64: *llp = *(const long long *)value; break;
    case NC_UINT64: *llp = (long long)*(const unsigned long long *)value; break;
    default: return NC_EINVAL;
    }
    return NC_NOERR;
}

static void
enum_value_out(nc_type base, long long ll, void *value)
{
    switch (base) {
    case NC_BYTE: *(signed char *)value = (signed char)ll; break;
    case NC_UBYTE: *(unsigned char *)value = (unsigned char)ll; break;
    case NC_SHORT: *(short *)value = (short)ll; break;
    case NC_USHORT: *(unsigned short *)value = (unsigned short)ll; break;
    case NC_INT: *(int *)value = (int)ll; break;
    case NC_UINT: *(unsigned int *)value = (unsigned int)ll; break;
    case NC_INT64: *(long long *)value = ll; break;
    case NC_UINT64: *(unsigned long long *)value = (unsigned long long)ll; break;
    default: break;
    }
}

int
NC4_insert_enum(int ncid, nc_type xtype, const char *name, const void *value)
{
    NC4_file *f;
    NC4_type *t;
    long long ll;
    int stat;

    if ((stat = nc4_check_name(name)))
        return stat;
    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if ((stat = find_type_up(f, xtype, &t)))
        return stat;
    if (t == NULL || t->tclass != NC_ENUM)
        return NC_EBADTYPE;
    if (t->committed)
        return NC_ETYPDEFINED;
    if (value == NULL)
        return NC_EINVAL;
    if ((stat = enum_value_in(t->base, value, &ll)))
        return stat;
    if ((stat = nc4_new_member(t, name, ll)))
        return stat;
    t->grp->dirty = 1;
    f->dirty = 1;
    return NC_NOERR;
}

/* ---- inquiries ---------------------------------------------------------------------- */

int
NC4_inq_type(int ncid, nc_type xtype, char *name, size_t *sizep)
{
    NC4_type *t;
    const char *an;
    int stat;

    if (xtype > NC_NAT && xtype <= NC_MAX_ATOMIC_TYPE) {
        size_t s;
        nc4_atomic_name(xtype, &an, &s);
        if (name)
            strcpy(name, an);
        if (sizep)
            *sizep = s;
        return NC_NOERR;
    }
    if ((stat = user_type(ncid, xtype, 0, NULL, &t)))
        return stat;
    if (name)
        strcpy(name, t->hdr.name);
    if (sizep)
        *sizep = t->tclass == NC_VLEN ? sizeof(nc_vlen_t) : t->size;
    return NC_NOERR;
}

int
NC4_inq_user_type(int ncid, nc_type xtype, char *name, size_t *sizep, nc_type *basep,
                  size_t *nfieldsp, int *classp)
{
    NC4_type *t;
    int stat;

    if ((stat = user_type(ncid, xtype, 0, NULL, &t)))
        return stat;
    if (nfieldsp)
        *nfieldsp = t->tclass == NC_COMPOUND ? t->fields.n
                  : t->tclass == NC_ENUM     ? t->members.n : 0;
    if (sizep)
        *sizep = t->tclass == NC_VLEN ? sizeof(nc_vlen_t) : t->size;
    if (name)
        strcpy(name, t->hdr.name);
    if (basep)
        *basep = (t->tclass == NC_ENUM || t->tclass == NC_VLEN) ? t->base : NC_NAT;
    if (classp)
        *classp = t->tclass;
    return NC_NOERR;
}

int
NC4_inq_compound_field(int ncid, nc_type xtype, int fieldid, char *name, size_t *offsetp,
                       nc_type *field_typeidp, int *ndimsp, int *dim_sizesp)
{
    NC4_file *f;
    NC4_type *t;
    NC4_field *fl;
    int stat;

    if ((stat = user_type(ncid, xtype, NC_COMPOUND, &f, &t)))
        return stat;
    if (fieldid < 0 || (size_t)fieldid >= t->fields.n)
        return NC_EBADFIELD;
    fl = (NC4_field *)t->fields.items[fieldid];
    if (name)
        strcpy(name, fl->hdr.name);
    if (offsetp)
        *offsetp = fl->offset;
    if (field_typeidp)
        *field_typeidp = fl->xtype;
    if (ndimsp)
        *ndimsp = fl->ndims;
    if (dim_sizesp)
        for (int d = 0; d < fl->ndims; d++)
            dim_sizesp[d] = fl->dimsizes[d];
    return NC_NOERR;
}

int
NC4_inq_compound_fieldindex(int ncid, nc_type xtype, const char *name, int *fieldidp)
{
    NC4_file *f;
    NC4_type *t;
    NC4_obj *o;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if ((stat = find_type_up(f, xtype, &t)))
        return stat;
    if (t == NULL || t->tclass != NC_COMPOUND)
        return NC_EBADTYPE;
    if (name == NULL)
        return NC_EINVAL;
    if (strlen(name) > NC_MAX_NAME)
        return NC_EMAXNAME;
    if ((o = nc4_index_find(&t->fields, name)) == NULL)
        return NC_EBADFIELD;
    if (fieldidp)
        *fieldidp = o->id;
    return NC_NOERR;
}

int
NC4_inq_enum_member(int ncid, nc_type xtype, int idx, char *name, void *value)
{
    NC4_file *f;
    NC4_type *t;
    NC4_member *m;
    int stat;

    if ((stat = user_type(ncid, xtype, NC_ENUM, &f, &t)))
        return stat;
    if (idx < 0 || (size_t)idx >= t->members.n)
        return NC_EINVAL;
    m = (NC4_member *)t->members.items[idx];
    if (name)
        strcpy(name, m->hdr.name);
    if (value)
        enum_value_out(t->base, m->value, value);
    return NC_NOERR;
}

int
NC4_inq_enum_ident(int ncid, nc_type xtype, long long value, char *identifier)
{
    NC4_type *t;
    int stat;

    if ((stat = user_type(ncid, xtype, NC_ENUM, NULL, &t)))
        return stat;
    for (size_t i = 0; i < t->members.n; i++) {
        NC4_member *m = (NC4_member *)t->members.items[i];
        if (m->value == value) {
            if (identifier)
                strcpy(identifier, m->hdr.name);
            return NC_NOERR;
        }
    }
    /* 0 is HDF5's default fill of an enum dataset: as 4.10.1, it is named
     * NC_UNDEFINED_ENUM_IDENT when no member has it. */
    if (value != 0)
        return NC_EINVAL;
    if (identifier)
        strcpy(identifier, NC_UNDEFINED_ENUM_IDENT);
    return NC_NOERR;
}

/* Type t1 found from group g1 when named by its name (recursive search of
 * upstream's nc4_rec_find_named_type: the group, then its subgroups). */
static NC4_type *
find_named_type_rec(NC4_grp *g, const char *name, int depth)
{
    NC4_obj *o = nc4_index_find(&g->types, name);
    if (o != NULL)
        return (NC4_type *)o;
    if (depth > 10000)
        return NULL;
    for (size_t i = 0; i < g->children.n; i++) {
        NC4_type *t = find_named_type_rec((NC4_grp *)g->children.items[i], name, depth + 1);
        if (t != NULL)
            return t;
    }
    return NULL;
}

int
NC4_inq_typeid(int ncid, const char *name, nc_type *typeidp)
{
    NC4_file *f;
    NC4_grp *g, *p;
    NC4_type *t = NULL;
    int stat;

    if (name == NULL)
        return NC_EINVAL;
    for (int i = 0; i <= NC_MAX_ATOMIC_TYPE; i++)
        if (strcmp(name, atomic_names[i]) == 0) {
            if (typeidp)
                *typeidp = i;
            return NC_NOERR;
        }
    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    /* A name with '/' must be a full path from the root. */
    if (name[0] != '/' && strchr(name, '/'))
        return NC_EINVAL;
    if (strlen(name) > NC_MAX_NAME && name[0] != '/')
        return NC_EMAXNAME;
    if (name[0] == '/') {
        /* A full name: the group path, then the type in that group only.
         * As upstream, a type directly under the root ("/t") is NC_EINVAL.
         * (Upstream 4.9 then forgets to store the id; we store it.) */
        const char *slash = strrchr(name, '/');
        char *path;
        int gid;
        if (slash == name)
            return NC_EINVAL;
        if ((path = strndup(name, (size_t)(slash - name))) == NULL)
            return NC_ENOMEM;
        stat = NC4_inq_grp_full_ncid(NC4_GRP_NCID(f, f->root), path, &gid);
        free(path);
        if (stat)
            return stat;
        t = (NC4_type *)nc4_index_find(&f->grps[gid & NC_GRP_MASK]->types, slash + 1);
    } else {
        for (p = g; p != NULL && t == NULL; p = p->parent)
            t = (NC4_type *)nc4_index_find(&p->types, name);
        if (t == NULL)
            t = find_named_type_rec(f->root, name, 0);
    }
    if (t == NULL)
        return NC_EBADTYPE;
    if (typeidp)
        *typeidp = t->hdr.id;
    return NC_NOERR;
}

/* Structural equality, as HDF5's H5Tequal compares the native types:
 * class, size, base types, fields (name, offset, type, shape) and enum
 * members (name, value); type names do not matter. */
static int
types_equal(NC4_file *f1, nc_type x1, NC4_file *f2, nc_type x2, int depth)
{
    NC4_type *t1, *t2;
    if (x1 <= NC_MAX_ATOMIC_TYPE || x2 <= NC_MAX_ATOMIC_TYPE)
        return x1 == x2;
    if (depth > 64 || nc4_find_type(f1, x1, &t1) || nc4_find_type(f2, x2, &t2) || !t1 || !t2)
        return 0;
    if (t1->tclass != t2->tclass || t1->size != t2->size)
        return 0;
    switch (t1->tclass) {
    case NC_VLEN:
        return types_equal(f1, t1->base, f2, t2->base, depth + 1);
    case NC_ENUM:
        if (t1->base != t2->base || t1->members.n != t2->members.n)
            return 0;
        for (size_t i = 0; i < t1->members.n; i++) {
            NC4_member *m1 = (NC4_member *)t1->members.items[i];
            NC4_member *m2 = (NC4_member *)nc4_index_find(&t2->members, m1->hdr.name);
            if (m2 == NULL || m2->value != m1->value)
                return 0;
        }
        return 1;
    case NC_COMPOUND:
        if (t1->fields.n != t2->fields.n)
            return 0;
        for (size_t i = 0; i < t1->fields.n; i++) {
            NC4_field *a = (NC4_field *)t1->fields.items[i];
            NC4_field *b = (NC4_field *)nc4_index_find(&t2->fields, a->hdr.name);
            if (b == NULL || a->offset != b->offset || a->ndims != b->ndims)
                return 0;
            for (int d = 0; d < a->ndims; d++)
                if (a->dimsizes[d] != b->dimsizes[d])
                    return 0;
            if (!types_equal(f1, a->xtype, f2, b->xtype, depth + 1))
                return 0;
        }
        return 1;
    default:
        return 1;  /* opaque: same size */
    }
}

int
NC4_inq_type_equal(int ncid1, nc_type typeid1, int ncid2, nc_type typeid2, int *equalp)
{
    NC4_file *f1, *f2;
    NC4_type *t;
    int stat;

    if (equalp == NULL)
        return NC_NOERR;
    if (typeid1 <= NC_NAT || typeid2 <= NC_NAT)
        return NC_EINVAL;
    if ((typeid1 <= NC_MAX_ATOMIC_TYPE) != (typeid2 <= NC_MAX_ATOMIC_TYPE)) {
        *equalp = 0;
        return NC_NOERR;
    }
    /* Upstream's bound here is NUM_ATOMIC_TYPES (13), one past NC_STRING. */
    if (typeid1 <= NC_MAX_ATOMIC_TYPE + 1) {
        *equalp = typeid1 == typeid2;
        return NC_NOERR;
    }
    if ((stat = user_type(ncid1, typeid1, 0, &f1, &t)))
        return stat;
    if ((stat = user_type(ncid2, typeid2, 0, &f2, &t)))
        return stat;
    *equalp = types_equal(f1, typeid1, f2, typeid2, 0);
    return NC_NOERR;
}

/* ---- vlen elements -------------------------------------------------------------------- */

int
NC4_put_vlen_element(int ncid, int typeid1, void *vlen_element, size_t len, const void *data)
{
    nc_vlen_t *v = vlen_element;
    (void)ncid;
    (void)typeid1;
    /* As upstream: the element points at the caller's data (no copy). */
    if (v == NULL)
        return NC_EINVAL;
    v->len = len;
    v->p = (void *)data;
    return NC_NOERR;
}

int
NC4_get_vlen_element(int ncid, int typeid1, const void *vlen_element, size_t *len, void *data)
{
    const nc_vlen_t *v = vlen_element;
    NC4_file *f;
    NC4_type *t = NULL;
    size_t bsize = 4;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if (v == NULL || len == NULL)
        return NC_EINVAL;
    /* Upstream copies len * 4 bytes whatever the type; a vlen type of the
     * file gets its base type's size, anything else upstream's 4. */
    if (typeid1 > NC_MAX_ATOMIC_TYPE && nc4_find_type(f, typeid1, &t) == NC_NOERR &&
        t->tclass == NC_VLEN && nc4_type_size(f, t->base) > 0)
        bsize = nc4_type_size(f, t->base);
    *len = v->len;
    if (data && v->len && v->p)
        memcpy(data, v->p, v->len * bsize);
    return NC_NOERR;
}
