/* d4meta.c: the DMR (XML, read with libxml2) into the enhanced model.
 *
 * Upstream's mapping: a Group is a group, a Dimension a dimension (an
 * _edu.ucar.isunlimited one unlimited), an anonymous <Dim size="N"/> the
 * root dimension "_AnonymousDimN", an Enumeration an enum type, a
 * Structure a compound type "PATH_t" (PATH: the names from the top-level
 * variable down, joined by '_'), a Sequence a vlen "PATH_t" of a compound
 * "PATH_base_t", an Opaque without _edu.ucar.opaque.size the root vlen
 * "_bytestring" of ubyte (with it, an opaque type of that size), String
 * and URL strings.  Attributes keep their DAP4 type; _edu.ucar.* ones are
 * not shown; Container attributes give their members as "NAME.MEMBER";
 * a _FillValue of an enum variable may name an enum constant.  Maps become
 * the attribute _edu.ucar.maps, as upstream.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include "d4int.h"

typedef struct Builder {
    D4file *d;
    NC4_file *f;
    nc_type bytestring;     /* the _bytestring vlen, once made */
    D4var *vars;
    size_t nvars, cap;
} Builder;

static const struct {
    const char *name;
    nc_type t;
} atomics[] = {
    {"Char", NC_CHAR},     {"Byte", NC_UBYTE},     {"Int8", NC_BYTE},     {"UInt8", NC_UBYTE},
    {"Int16", NC_SHORT},   {"UInt16", NC_USHORT},  {"Int32", NC_INT},     {"UInt32", NC_UINT},
    {"Int64", NC_INT64},   {"UInt64", NC_UINT64},  {"Float32", NC_FLOAT}, {"Float64", NC_DOUBLE},
    {"String", NC_STRING}, {"URL", NC_STRING},
};

static nc_type
atomic_type(const char *name)
{
    for (size_t i = 0; i < sizeof atomics / sizeof atomics[0]; i++)
        if (strcmp(atomics[i].name, name) == 0)
            return atomics[i].t;
    return NC_NAT;
}

static int
is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* An XML attribute's value (libxml2 memory) or NULL. */
static char *
xattr(const xmlNode *n, const char *name)
{
    return (char *)xmlGetProp((xmlNode *)n, (const xmlChar *)name);
}

static int
is_variable(const xmlNode *n)
{
    if (n->type != XML_ELEMENT_NODE)
        return 0;
    const char *s = (const char *)n->name;
    return atomic_type(s) != NC_NAT || !strcmp(s, "Opaque") || !strcmp(s, "Enum")
           || !strcmp(s, "Structure") || !strcmp(s, "Sequence");
}

/* Size and alignment in memory of xtype. */
static void
type_layout(NC4_file *f, nc_type t, size_t *size, size_t *align)
{
    NC4_type *ty = NULL;
    *size = nc4_type_size(f, t);
    *align = *size ? *size : 1;
    if (t == NC_STRING) {
        *align = sizeof(char *);
    } else if (nc4_find_type(f, t, &ty) == NC_NOERR && ty != NULL) {
        switch (ty->tclass) {
        case NC_VLEN: *align = sizeof(void *); break;
        case NC_OPAQUE: *align = 1; break;
        case NC_ENUM: type_layout(f, ty->base, size, align); *size = ty->size; break;
        case NC_COMPOUND: {
            size_t a = 1;
            for (size_t i = 0; i < ty->fields.n; i++) {
                size_t fs, fa;
                type_layout(f, ((NC4_field *)ty->fields.items[i])->xtype, &fs, &fa);
                if (fa > a)
                    a = fa;
            }
            *align = a;
            break;
        }
        default: break;
        }
    }
    if (*align > 8 || (*align & (*align - 1)) != 0)
        *align = 8;
}

/* Find a group by its FQN ("/g/h"), NULL if none. */
static NC4_grp *
find_group(NC4_file *f, const char *fqn, const char **lastp)
{
    NC4_grp *g = f->root;
    const char *p = fqn;
    if (*p == '/')
        p++;
    for (;;) {
        const char *slash = strchr(p, '/');
        if (slash == NULL) {
            *lastp = p;
            return g;
        }
        char name[NC_MAX_NAME + 1];
        size_t l = (size_t)(slash - p);
        if (l == 0 || l > NC_MAX_NAME)
            return NULL;
        memcpy(name, p, l);
        name[l] = '\0';
        g = (NC4_grp *)nc4_index_find(&g->children, name);
        if (g == NULL)
            return NULL;
        p = slash + 1;
    }
}

/* A dimension reference of a variable: "/d", "/g/d", a bare name seen from
 * g, or an anonymous size. */
static int
dim_ref(Builder *b, NC4_grp *g, const xmlNode *n, int *dimidp, size_t *lenp)
{
    char *name = xattr(n, "name"), *size = xattr(n, "size");
    int stat = NC_EDMR;
    NC4_dim *dim = NULL;
    if (name != NULL) {
        const char *last;
        if (name[0] == '/') {
            NC4_grp *dg = find_group(b->f, name, &last);
            if (dg)
                dim = (NC4_dim *)nc4_index_find(&dg->dims, last);
        } else {
            dim = nc4_find_dim_by_name(g, name);
        }
    } else if (size != NULL) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(size, &end, 10);
        char an[64];
        if (errno || *end || end == size || size[0] == '-' || v > (unsigned long long)SIZE_MAX / 2)
            goto done;
        snprintf(an, sizeof an, "_AnonymousDim%llu", v);
        dim = (NC4_dim *)nc4_index_find(&b->f->root->dims, an);
        if (dim == NULL && (stat = nc4_new_dim(b->f->root, an, (size_t)v, 0, &dim)))
            goto done;
    }
    if (dim == NULL)
        goto done;
    *dimidp = dim->hdr.id;
    *lenp = dim->len;
    stat = NC_NOERR;
done:
    xmlFree(name);
    xmlFree(size);
    return stat;
}

/* ---- attribute values ------------------------------------------------------ */

static int
parse_value(NC4_file *f, nc_type t, const char *s, void *out)
{
    char *end;
    errno = 0;
    switch (t) {
    case NC_CHAR: *(char *)out = s[0]; return NC_NOERR;
    case NC_STRING: return (*(char **)out = strdup(s)) ? NC_NOERR : NC_ENOMEM;
    case NC_FLOAT: *(float *)out = strtof(s, &end); break;
    case NC_DOUBLE: *(double *)out = strtod(s, &end); break;
    case NC_BYTE: case NC_SHORT: case NC_INT: case NC_INT64: {
        long long v = strtoll(s, &end, 0);
        if (t == NC_BYTE) *(signed char *)out = (signed char)v;
        else if (t == NC_SHORT) *(short *)out = (short)v;
        else if (t == NC_INT) *(int *)out = (int)v;
        else *(long long *)out = v;
        break;
    }
    case NC_UBYTE: case NC_USHORT: case NC_UINT: case NC_UINT64: {
        unsigned long long v = strtoull(s, &end, 0);
        if (t == NC_UBYTE) *(unsigned char *)out = (unsigned char)v;
        else if (t == NC_USHORT) *(unsigned short *)out = (unsigned short)v;
        else if (t == NC_UINT) *(unsigned int *)out = (unsigned int)v;
        else *(unsigned long long *)out = v;
        break;
    }
    default: {
        /* an enum: a constant's name or a number */
        NC4_type *ty;
        if (nc4_find_type(f, t, &ty) || ty == NULL || ty->tclass != NC_ENUM)
            return NC_EDMR;
        long long v = 0;
        NC4_obj *m = nc4_index_find(&ty->members, s);
        if (m != NULL) {
            v = ((NC4_member *)m)->value;
        } else {
            v = strtoll(s, &end, 0);
            if (end == s || *end)
                return NC_EDMR;
        }
        switch (ty->base) {
        case NC_BYTE: case NC_UBYTE: *(unsigned char *)out = (unsigned char)v; break;
        case NC_SHORT: case NC_USHORT: *(unsigned short *)out = (unsigned short)v; break;
        case NC_INT: case NC_UINT: *(unsigned int *)out = (unsigned int)v; break;
        default: *(unsigned long long *)out = (unsigned long long)v; break;
        }
        return NC_NOERR;
    }
    }
    if (end == s)
        return NC_EDMR;
    return NC_NOERR;
}

/* Values of an <Attribute>: <Value value="..."/> or <Value>text</Value>. */
static int
put_attribute(Builder *b, NC4_grp *g, NC4_var *var, const xmlNode *an, const char *prefix,
              int depth)
{
    char *name = xattr(an, "name"), *type = xattr(an, "type");
    char full[2 * NC_MAX_NAME + 2];
    int stat = NC_NOERR;
    size_t n = 0, cap = 0, sz;
    unsigned char *vals = NULL;
    nc_type t = NC_NAT;

    if (name == NULL || type == NULL || depth > D4_MAX_DEPTH) {
        stat = NC_EDMR;
        goto done;
    }
    if (prefix)
        snprintf(full, sizeof full, "%s.%s", prefix, name);
    else
        snprintf(full, sizeof full, "%s", name);
    if (strncmp(full, "_edu.ucar.", 10) == 0)
        goto done;
    if (strcmp(type, "Container") == 0) {
        for (const xmlNode *c = an->children; c && !stat; c = c->next)
            if (is_elem(c, "Attribute"))
                stat = put_attribute(b, g, var, c, full, depth + 1);
        goto done;
    }
    t = atomic_type(type);
    if (strcmp(type, "Opaque") == 0) {
        /* opaque attribute values: not representable in the model; skip */
        goto done;
    }
    if (t == NC_NAT) {
        stat = NC_EDMR;
        goto done;
    }
    /* a _FillValue given by name on an enum variable */
    if (var != NULL && strcmp(full, "_FillValue") == 0 && var->xtype != t) {
        NC4_type *ty = NULL;
        if (nc4_find_type(b->f, var->xtype, &ty) == NC_NOERR && ty != NULL) {
            if (ty->tclass != NC_ENUM)
                goto done; /* a fill for a compound or vlen: dropped, as upstream */
            t = var->xtype;
        }
    }
    sz = nc4_type_size(b->f, t);
    for (const xmlNode *c = an->children; c; c = c->next) {
        if (!is_elem(c, "Value"))
            continue;
        char *v = xattr(c, "value");
        char *text = v ? v : (char *)xmlNodeGetContent(c);
        if (text == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 4;
            unsigned char *nv = realloc(vals, nc * sz);
            if (nv == NULL) {
                xmlFree(text);
                stat = NC_ENOMEM;
                goto done;
            }
            memset(nv + cap * sz, 0, (nc - cap) * sz);
            vals = nv;
            cap = nc;
        }
        stat = parse_value(b->f, t, text, vals + n * sz);
        xmlFree(text);
        if (stat)
            goto done;
        n++;
    }
    if (var == NULL && g->parent == NULL && strcmp(full, "_NCProperties") == 0 && t == NC_STRING
        && n > 0 && b->f->ncproperties == NULL) {
        /* the server's provenance: answered by name as a netCDF-4 file's,
         * not listed among the attributes */
        if ((b->f->ncproperties = strdup(((char **)vals)[0])) == NULL)
            stat = NC_ENOMEM;
        goto done;
    }
    stat = nc4_set_att(g, var, full, t, n, vals, NULL);
done:
    if (vals && t == NC_STRING)
        for (size_t i = 0; i < n; i++)
            free(((char **)vals)[i]);
    free(vals);
    xmlFree(name);
    xmlFree(type);
    return stat == NC_ENAMEINUSE ? NC_NOERR : stat;
}

static int
put_attributes(Builder *b, NC4_grp *g, NC4_var *var, const xmlNode *parent)
{
    int stat = NC_NOERR;
    for (const xmlNode *c = parent->children; c && !stat; c = c->next)
        if (is_elem(c, "Attribute"))
            stat = put_attribute(b, g, var, c, NULL, 0);
    return stat;
}

/* _edu.ucar.maps: the FQNs of a variable's maps. */
static int
put_maps(NC4_grp *g, NC4_var *var, const xmlNode *vn)
{
    char *names[NC_MAX_VAR_DIMS];
    size_t n = 0;
    int stat = NC_NOERR;
    for (const xmlNode *c = vn->children; c && n < NC_MAX_VAR_DIMS; c = c->next)
        if (is_elem(c, "Map") && (names[n] = xattr(c, "name")) != NULL)
            n++;
    if (n > 0)
        stat = nc4_set_att(g, var, "_edu.ucar.maps", NC_STRING, n, names, NULL);
    for (size_t i = 0; i < n; i++)
        xmlFree(names[i]);
    return stat;
}

/* ---- types ------------------------------------------------------------------ */

static int var_type(Builder *b, NC4_grp *g, const xmlNode *vn, const char *path, int depth,
                    nc_type *tp);

/* A compound from the members of a Structure or Sequence element. */
static int
compound_type(Builder *b, NC4_grp *g, const xmlNode *vn, const char *path, const char *tname,
              int depth, nc_type *tp)
{
    NC4_type *ty;
    size_t off = 0, maxalign = 1, nfields = 0;
    int stat;
    struct F { char *name; nc_type t; int ndims; int dims[NC_MAX_VAR_DIMS]; } *fl = NULL;
    size_t cap = 0;

    for (const xmlNode *c = vn->children; c; c = c->next) {
        if (!is_variable(c))
            continue;
        char *fname = xattr(c, "name");
        char sub[4 * NC_MAX_NAME];
        struct F *nf;
        if (fname == NULL || strlen(fname) > NC_MAX_NAME) {
            xmlFree(fname);
            stat = NC_EDMR;
            goto done;
        }
        if (nfields == cap) {
            cap = cap ? 2 * cap : 8;
            if ((nf = realloc(fl, cap * sizeof *fl)) == NULL) {
                xmlFree(fname);
                stat = NC_ENOMEM;
                goto done;
            }
            fl = nf;
        }
        nf = &fl[nfields];
        nf->name = fname;
        nf->ndims = 0;
        nfields++;
        snprintf(sub, sizeof sub, "%s_%s", path, fname);
        if ((stat = var_type(b, g, c, sub, depth + 1, &nf->t)))
            goto done;
        for (const xmlNode *dn = c->children; dn; dn = dn->next) {
            if (!is_elem(dn, "Dim"))
                continue;
            int dimid;
            size_t len;
            if (nf->ndims >= NC_MAX_VAR_DIMS) {
                stat = NC_EDMR;
                goto done;
            }
            if ((stat = dim_ref(b, g, dn, &dimid, &len)))
                goto done;
            if (len > INT_MAX) {
                stat = NC_EDMR;
                goto done;
            }
            nf->dims[nf->ndims++] = (int)len;
        }
    }
    if (nfields == 0) {
        stat = NC_EDMR;
        goto done;
    }
    for (size_t i = 0; i < nfields; i++) {
        size_t sz, al, n = 1;
        type_layout(b->f, fl[i].t, &sz, &al);
        for (int k = 0; k < fl[i].ndims; k++) {
            if (fl[i].dims[k] != 0 && n > SIZE_MAX / 4 / (size_t)fl[i].dims[k]) {
                stat = NC_EDMR;
                goto done;
            }
            n *= (size_t)fl[i].dims[k];
        }
        off = (off + al - 1) & ~(al - 1);
        if (sz != 0 && n > (SIZE_MAX / 4 - off) / sz) {
            stat = NC_EDMR;
            goto done;
        }
        off += n * sz;
        if (al > maxalign)
            maxalign = al;
    }
    off = (off + maxalign - 1) & ~(maxalign - 1);
    if ((stat = nc4_new_type(g, tname, NC_COMPOUND, off, NC_NAT, &ty)))
        goto done;
    off = 0;
    for (size_t i = 0; i < nfields; i++) {
        size_t sz, al, n = 1;
        type_layout(b->f, fl[i].t, &sz, &al);
        for (int k = 0; k < fl[i].ndims; k++)
            n *= (size_t)fl[i].dims[k];
        off = (off + al - 1) & ~(al - 1);
        if ((stat = nc4_new_field(ty, fl[i].name, off, fl[i].t, fl[i].ndims, fl[i].dims)))
            goto done;
        off += n * sz;
    }
    ty->committed = 1;
    *tp = ty->hdr.id;
done:
    for (size_t i = 0; i < nfields; i++)
        xmlFree(fl[i].name);
    free(fl);
    return stat == NC_ENAMEINUSE ? NC_EDMR : stat;
}

/* The type of a variable or field element; path names the types made. */
static int
var_type(Builder *b, NC4_grp *g, const xmlNode *vn, const char *path, int depth, nc_type *tp)
{
    const char *kind = (const char *)vn->name;
    char tname[4 * NC_MAX_NAME + 16];
    int stat = NC_NOERR;
    nc_type t;

    if (depth > D4_MAX_DEPTH)
        return NC_EDMR;
    if ((t = atomic_type(kind)) != NC_NAT) {
        *tp = t;
        return NC_NOERR;
    }
    if (strcmp(kind, "Enum") == 0) {
        char *en = xattr(vn, "enum");
        const char *last;
        NC4_grp *eg = NULL;
        NC4_obj *o = NULL;
        if (en != NULL) {
            if (en[0] == '/') {
                eg = find_group(b->f, en, &last);
                o = eg ? nc4_index_find(&eg->types, last) : NULL;
            } else {
                for (eg = g; eg != NULL && o == NULL; eg = eg->parent)
                    o = nc4_index_find(&eg->types, en);
            }
        }
        xmlFree(en);
        if (o == NULL || ((NC4_type *)o)->tclass != NC_ENUM)
            return NC_EDMR;
        *tp = o->id;
        return NC_NOERR;
    }
    if (strcmp(kind, "Opaque") == 0) {
        /* a size from _edu.ucar.opaque.size makes a fixed opaque type */
        for (const xmlNode *c = vn->children; c; c = c->next) {
            if (!is_elem(c, "Attribute"))
                continue;
            char *an = xattr(c, "name");
            int match = an && strcmp(an, "_edu.ucar.opaque.size") == 0;
            xmlFree(an);
            if (!match)
                continue;
            for (const xmlNode *v = c->children; v; v = v->next) {
                if (!is_elem(v, "Value"))
                    continue;
                char *s = xattr(v, "value");
                long long size = s ? strtoll(s, NULL, 10) : 0;
                xmlFree(s);
                if (size > 0 && size < (1LL << 30)) {
                    NC4_type *ty;
                    snprintf(tname, sizeof tname, "%s_t", path);
                    if ((stat = nc4_new_type(g, tname, NC_OPAQUE, (size_t)size, NC_NAT, &ty)))
                        return stat == NC_ENAMEINUSE ? NC_EDMR : stat;
                    ty->committed = 1;
                    *tp = ty->hdr.id;
                    return NC_NOERR;
                }
            }
        }
        if (b->bytestring == NC_NAT) {
            NC4_type *ty;
            if ((stat = nc4_new_type(b->f->root, "_bytestring", NC_VLEN, sizeof(nc_vlen_t),
                                     NC_UBYTE, &ty)))
                return stat == NC_ENAMEINUSE ? NC_EDMR : stat;
            ty->committed = 1;
            b->bytestring = ty->hdr.id;
        }
        *tp = b->bytestring;
        return NC_NOERR;
    }
    if (strcmp(kind, "Structure") == 0) {
        snprintf(tname, sizeof tname, "%s_t", path);
        return compound_type(b, g, vn, path, tname, depth, tp);
    }
    if (strcmp(kind, "Sequence") == 0) {
        nc_type base;
        NC4_type *ty;
        snprintf(tname, sizeof tname, "%s_base_t", path);
        if ((stat = compound_type(b, g, vn, path, tname, depth, &base)))
            return stat;
        snprintf(tname, sizeof tname, "%s_t", path);
        if ((stat = nc4_new_type(g, tname, NC_VLEN, sizeof(nc_vlen_t), base, &ty)))
            return stat == NC_ENAMEINUSE ? NC_EDMR : stat;
        ty->committed = 1;
        *tp = ty->hdr.id;
        return NC_NOERR;
    }
    return NC_EDMR;
}

/* ---- groups ------------------------------------------------------------------ */

static int
add_var(Builder *b, NC4_grp *g, const xmlNode *vn)
{
    char *name = xattr(vn, "name");
    int dimids[NC_MAX_VAR_DIMS], ndims = 0, stat;
    size_t len;
    nc_type t;
    NC4_var *var;
    D4var *dv;

    if (name == NULL || name[0] == '\0' || strlen(name) > NC_MAX_NAME) {
        stat = NC_EDMR;
        goto done;
    }
    if ((stat = var_type(b, g, vn, name, 0, &t)))
        goto done;
    for (const xmlNode *c = vn->children; c; c = c->next) {
        if (!is_elem(c, "Dim"))
            continue;
        if (ndims >= NC_MAX_VAR_DIMS) {
            stat = NC_EDMR;
            goto done;
        }
        if ((stat = dim_ref(b, g, c, &dimids[ndims], &len)))
            goto done;
        ndims++;
    }
    if ((stat = nc4_new_var(g, name, t, ndims, dimids, &var)))
        goto done;
    var->from_file = 1;
    var->created = 1;
    var->meta_locked = 1;
    var->fill_fixed = 1;
    var->no_fill = 0;
    if ((stat = put_attributes(b, g, var, vn)) || (stat = put_maps(g, var, vn)))
        goto done;
    if (b->nvars == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 16;
        D4var *nv = realloc(b->vars, nc * sizeof *nv);
        if (nv == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        b->vars = nv;
        b->cap = nc;
    }
    dv = &b->vars[b->nvars];
    memset(dv, 0, sizeof *dv);
    dv->var = var;
    dv->index = b->nvars++;
done:
    xmlFree(name);
    return stat == NC_ENAMEINUSE ? NC_EDMR : stat;
}

static int
unlimited_flag(const xmlNode *dn)
{
    char *u = xattr(dn, "_edu.ucar.isunlimited");
    int yes = u != NULL && strcmp(u, "0") != 0 && strcmp(u, "false") != 0;
    xmlFree(u);
    return yes;
}

/* Dimensions, types and subgroups first (variables refer to them), then the
 * variables of the group, then its subgroups' variables: upstream's order of
 * the data. */
static int
build_group(Builder *b, NC4_grp *g, const xmlNode *gn, int depth)
{
    int stat = NC_NOERR;
    if (depth > D4_MAX_DEPTH)
        return NC_EDMR;
    for (const xmlNode *c = gn->children; c && !stat; c = c->next) {
        if (is_elem(c, "Dimension")) {
            char *name = xattr(c, "name"), *size = xattr(c, "size");
            char *end = NULL;
            unsigned long long v = 0;
            if (size) {
                errno = 0;
                v = strtoull(size, &end, 10);
            }
            if (name == NULL || size == NULL || errno || *end || end == size || size[0] == '-'
                || v > (unsigned long long)SIZE_MAX / 2 || strlen(name) > NC_MAX_NAME)
                stat = NC_EDMR;
            else
                stat = nc4_new_dim(g, name, (size_t)v, unlimited_flag(c), NULL);
            xmlFree(name);
            xmlFree(size);
        } else if (is_elem(c, "Enumeration")) {
            char *name = xattr(c, "name"), *base = xattr(c, "basetype");
            nc_type bt = base ? atomic_type(base) : NC_INT;
            NC4_type *ty = NULL;
            if (base == NULL)
                bt = NC_INT;
            if (name == NULL || bt == NC_NAT || bt == NC_CHAR || bt == NC_STRING
                || bt == NC_FLOAT || bt == NC_DOUBLE || strlen(name) > NC_MAX_NAME)
                stat = NC_EDMR;
            else
                stat = nc4_new_type(g, name, NC_ENUM, nc4_type_size(b->f, bt), bt, &ty);
            for (const xmlNode *e = c->children; e && !stat; e = e->next) {
                if (!is_elem(e, "EnumConst"))
                    continue;
                char *en = xattr(e, "name"), *ev = xattr(e, "value"), *end;
                long long v = 0;
                if (ev) {
                    errno = 0;
                    v = strtoll(ev, &end, 0);
                }
                if (en == NULL || ev == NULL || errno || *end || end == ev)
                    stat = NC_EDMR;
                else
                    stat = nc4_new_member(ty, en, v);
                xmlFree(en);
                xmlFree(ev);
            }
            if (ty)
                ty->committed = 1;
            xmlFree(name);
            xmlFree(base);
        } else if (is_elem(c, "Group")) {
            char *name = xattr(c, "name");
            NC4_grp *sub;
            if (name == NULL || strlen(name) > NC_MAX_NAME)
                stat = NC_EDMR;
            else if ((stat = nc4_new_grp(g, name, &sub)) == NC_NOERR)
                sub->created = 1;
            xmlFree(name);
        } else if (c->type == XML_ELEMENT_NODE && !is_variable(c) && !is_elem(c, "Attribute")
                   && !is_elem(c, "Map")) {
            stat = NC_EDMR; /* an element DAP4 does not define in a group */
        }
    }
    if (stat)
        return stat == NC_ENAMEINUSE ? NC_EDMR : stat;
    for (const xmlNode *c = gn->children; c && !stat; c = c->next)
        if (is_variable(c))
            stat = add_var(b, g, c);
    if (!stat)
        stat = put_attributes(b, g, NULL, gn);
    for (const xmlNode *c = gn->children; c && !stat; c = c->next) {
        if (!is_elem(c, "Group"))
            continue;
        char *name = xattr(c, "name");
        NC4_grp *sub = (NC4_grp *)nc4_index_find(&g->children, name);
        xmlFree(name);
        stat = sub ? build_group(b, sub, c, depth + 1) : NC_EDMR;
    }
    return stat == NC_ENAMEINUSE ? NC_EDMR : stat;
}

static int
parse_xml(const char *text, size_t len, xmlDoc **docp, xmlNode **rootp)
{
    xmlDoc *doc;
    xmlNode *root;
    if (len > INT_MAX)
        return NC_EDMR;
    doc = xmlReadMemory(text, (int)len, NULL, NULL,
                        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (doc == NULL)
        return NC_EDMR;
    root = xmlDocGetRootElement(doc);
    if (root == NULL || !is_elem(root, "Dataset")) {
        xmlFreeDoc(doc);
        return NC_EDMR;
    }
    *docp = doc;
    *rootp = root;
    return NC_NOERR;
}

/* "/g/v" of a variable: group names from the root. */
static char *
var_fqn(const NC4_var *var)
{
    size_t l = strlen(var->hdr.name) + 2;
    for (const NC4_grp *g = var->grp; g->parent; g = g->parent)
        l += strlen(g->hdr.name) + 1;
    char *s = malloc(l), *p;
    if (s == NULL)
        return NULL;
    p = s + l - 1;
    *p = '\0';
    size_t n = strlen(var->hdr.name);
    p -= n;
    memcpy(p, var->hdr.name, n);
    *--p = '/';
    for (const NC4_grp *g = var->grp; g->parent; g = g->parent) {
        n = strlen(g->hdr.name);
        p -= n;
        memcpy(p, g->hdr.name, n);
        *--p = '/';
    }
    return s;
}

int
d4_build(D4file *d, const char *dmr, size_t len)
{
    Builder b = {.d = d, .f = d->f, .bytestring = NC_NAT};
    xmlDoc *doc = NULL;
    xmlNode *root;
    int stat;

    if ((stat = parse_xml(dmr, len, &doc, &root)))
        return stat;
    stat = build_group(&b, d->f->root, root, 0);
    for (size_t i = 0; stat == NC_NOERR && i < b.nvars; i++) {
        if ((b.vars[i].fqn = var_fqn(b.vars[i].var)) == NULL)
            stat = NC_ENOMEM;
    }
    xmlFreeDoc(doc);
    if (stat) {
        for (size_t i = 0; i < b.nvars; i++)
            free(b.vars[i].fqn);
        free(b.vars);
        return stat;
    }
    d->vars = b.vars;
    d->nvars = b.nvars;
    for (size_t i = 0; i < b.nvars; i++)
        b.vars[i].var->fmt = &d->vars[i];
    return NC_NOERR;
}

/* Top-level variables of a group element, in serialization order. */
static int
list_vars(const xmlNode *gn, const char *prefix, char ***names, size_t *n, size_t *cap,
          int *hascrc, int depth)
{
    int stat = NC_NOERR;
    if (depth > D4_MAX_DEPTH)
        return NC_EDMR;
    for (const xmlNode *c = gn->children; c && !stat; c = c->next) {
        if (!is_variable(c))
            continue;
        char *name = xattr(c, "name");
        if (name == NULL)
            return NC_EDMR;
        size_t l = strlen(prefix) + strlen(name) + 2;
        char *s = malloc(l);
        if (s)
            snprintf(s, l, "%s/%s", prefix, name);
        xmlFree(name);
        if (s == NULL)
            return NC_ENOMEM;
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 8;
            char **nn = realloc(*names, nc * sizeof *nn);
            if (nn == NULL) {
                free(s);
                return NC_ENOMEM;
            }
            *names = nn;
            *cap = nc;
        }
        (*names)[(*n)++] = s;
        for (const xmlNode *a = c->children; a; a = a->next) {
            if (!is_elem(a, "Attribute"))
                continue;
            char *an = xattr(a, "name");
            if (an && strcmp(an, "_DAP4_Checksum_CRC32") == 0)
                *hascrc = 1;
            xmlFree(an);
        }
    }
    for (const xmlNode *c = gn->children; c && !stat; c = c->next) {
        if (!is_elem(c, "Group"))
            continue;
        char *name = xattr(c, "name");
        if (name == NULL)
            return NC_EDMR;
        size_t l = strlen(prefix) + strlen(name) + 2;
        char *s = malloc(l);
        if (s)
            snprintf(s, l, "%s/%s", prefix, name);
        xmlFree(name);
        if (s == NULL)
            return NC_ENOMEM;
        stat = list_vars(c, s, names, n, cap, hascrc, depth + 1);
        free(s);
    }
    return stat;
}

int
d4_dmr_vars(const char *dmr, size_t len, char ***namesp, size_t *np, int *hascrcp)
{
    xmlDoc *doc;
    xmlNode *root;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int hascrc = 0, stat;
    if ((stat = parse_xml(dmr, len, &doc, &root)))
        return stat;
    stat = list_vars(root, "", &names, &n, &cap, &hascrc, 0);
    xmlFreeDoc(doc);
    if (stat) {
        for (size_t i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return stat;
    }
    *namesp = names;
    *np = n;
    *hascrcp = hascrc;
    return NC_NOERR;
}
