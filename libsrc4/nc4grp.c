/* nc4grp.c: file- and group-level slots of the enhanced model: nc_inq,
 * format and fill mode, groups (define, rename, navigate, full names) and
 * the per-group id lists (varids, dimids, typeids).
 *
 * Order of checks follows upstream's libsrc4/nc4grp.c, libhdf5/hdf5grp.c
 * and libsrc4/nc4file.c. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "nc4priv.h"
#include "ncdispatch.h"

int
nc4_check_name(const char *name)
{
    return name == NULL ? NC_EINVAL : NC_check_name(name);
}

int
nc4_check_dup_name(NC4_grp *g, const char *name)
{
    if (nc4_index_find(&g->types, name) || nc4_index_find(&g->children, name) ||
        nc4_index_find(&g->vars, name))
        return NC_ENAMEINUSE;
    return NC_NOERR;
}

int
NC4_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp)
{
    NC4_grp *g;
    int stat;

    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    if (ndimsp)
        *ndimsp = (int)g->dims.n;
    if (nvarsp)
        *nvarsp = (int)g->vars.n;
    if (nattsp)
        *nattsp = (int)g->atts.n;
    if (unlimdimidp) {
        /* The first unlimited dim of this group only, as upstream. */
        *unlimdimidp = -1;
        for (size_t i = 0; i < g->dims.n; i++) {
            NC4_dim *d = (NC4_dim *)g->dims.items[i];
            if (d->unlimited) {
                *unlimdimidp = d->hdr.id;
                break;
            }
        }
    }
    return NC_NOERR;
}

int
NC4_inq_format(int ncid, int *formatp)
{
    NC4_file *f;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if (formatp)
        *formatp = f->classic_model ? NC_FORMAT_NETCDF4_CLASSIC : NC_FORMAT_NETCDF4;
    return NC_NOERR;
}

int
NC4_set_fill(int ncid, int fillmode, int *old_modep)
{
    NC4_file *f;
    int stat;

    if ((stat = nc4_find_grp_w(ncid, &f, NULL)))
        return stat;
    if (fillmode != NC_FILL && fillmode != NC_NOFILL)
        return NC_EINVAL;
    if (old_modep)
        *old_modep = f->fill_mode;
    f->fill_mode = fillmode;
    return NC_NOERR;
}

/* ---- groups ------------------------------------------------------------------ */

int
NC4_def_grp(int parent_ncid, const char *name, int *new_ncid)
{
    NC4_file *f;
    NC4_grp *parent, *g;
    int stat;

    if ((stat = nc4_find_grp(parent_ncid, &f, &parent)))
        return stat;
    if ((stat = nc4_check_name(name)))
        return stat;
    if ((stat = nc4_check_dup_name(parent, name)))
        return stat;
    if (f->classic_model)
        return NC_ESTRICTNC3;
    if ((stat = nc4_check_define(f)))
        return stat;
    if ((stat = nc4_new_grp(parent, name, &g)))
        return stat;
    g->dirty = 1;
    parent->dirty = 1;
    f->dirty = 1;
    if (new_ncid)
        *new_ncid = NC4_GRP_NCID(f, g);
    return NC_NOERR;
}

int
NC4_rename_grp(int grpid, const char *name)
{
    NC4_file *f;
    NC4_grp *g;
    int stat;

    if ((stat = nc4_find_grp_w(grpid, &f, &g)))
        return stat;
    if (g->parent == NULL)
        return NC_EBADGRPID;
    if ((stat = nc4_check_name(name)))
        return stat;
    if ((stat = nc4_check_dup_name(g->parent, name)))
        return stat;
    if ((stat = nc4_check_define(f)))
        return stat;
    if ((stat = nc4_index_rename(&g->parent->children, &g->hdr, name)))
        return stat;
    g->dirty = 1;
    f->dirty = 1;
    return NC_NOERR;
}

int
NC4_inq_ncid(int ncid, const char *name, int *grp_ncid)
{
    NC4_file *f;
    NC4_grp *g, *child;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (name == NULL) {
        if (grp_ncid)
            *grp_ncid = NC4_GRP_NCID(f, f->root);
        return NC_NOERR;
    }
    if ((stat = NC_check_name(name)))
        return stat;
    if ((child = (NC4_grp *)nc4_index_find(&g->children, name)) == NULL)
        return NC_ENOGRP;
    if (grp_ncid)
        *grp_ncid = NC4_GRP_NCID(f, child);
    return NC_NOERR;
}

int
NC4_inq_grps(int ncid, int *numgrps, int *ncids)
{
    NC4_file *f;
    NC4_grp *g;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (ncids)
        for (size_t i = 0; i < g->children.n; i++)
            ncids[i] = f->ext_ncid | g->children.items[i]->id;
    if (numgrps)
        *numgrps = (int)g->children.n;
    return NC_NOERR;
}

int
NC4_inq_grpname(int ncid, char *name)
{
    NC4_grp *g;
    int stat;

    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    if (name)
        strcpy(name, g->hdr.name);
    return NC_NOERR;
}

int
NC4_inq_grpname_full(int ncid, size_t *lenp, char *full_name)
{
    NC4_grp *g, *p;
    size_t len = 0, pos;
    int stat;

    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    if (g->parent == NULL) {
        len = 1;
    } else {
        for (p = g; p->parent != NULL; p = p->parent)
            len += 1 + strlen(p->hdr.name);
    }
    if (full_name) {
        full_name[len] = '\0';
        if (g->parent == NULL)
            full_name[0] = '/';
        pos = len;
        for (p = g; p->parent != NULL; p = p->parent) {
            size_t n = strlen(p->hdr.name);
            pos -= n;
            memcpy(full_name + pos, p->hdr.name, n);
            full_name[--pos] = '/';
        }
    }
    if (lenp)
        *lenp = len;
    return NC_NOERR;
}

int
NC4_inq_grp_parent(int ncid, int *parent_ncid)
{
    NC4_file *f;
    NC4_grp *g;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (g->parent == NULL)
        return NC_ENOGRP;
    if (parent_ncid)
        *parent_ncid = NC4_GRP_NCID(f, g->parent);
    return NC_NOERR;
}

int
NC4_inq_grp_full_ncid(int ncid, const char *full_name, int *grp_ncid)
{
    NC4_file *f;
    NC4_grp *g;
    char *copy, *part, *save = NULL;
    int id, stat;

    if (full_name == NULL)
        return NC_EINVAL;
    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if ((copy = strdup(full_name)) == NULL)
        return NC_ENOMEM;
    /* As upstream: the path is taken relative to ncid's group (a leading
     * '/' is skipped like any separator); "/" alone names ncid itself when
     * it is the root. */
    part = strtok_r(copy, "/", &save);
    if (part == NULL) {
        free(copy);
        if (g->parent != NULL)
            return NC_ENOGRP;
        id = ncid;
    } else {
        id = ncid;
        for (; part != NULL; part = strtok_r(NULL, "/", &save)) {
            if ((stat = NC4_inq_ncid(id, part, &id))) {
                free(copy);
                return stat;
            }
        }
        free(copy);
    }
    if (grp_ncid)
        *grp_ncid = id;
    return NC_NOERR;
}

int
NC4_inq_varids(int ncid, int *nvars, int *varids)
{
    NC4_grp *g;
    int stat;

    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    if (varids)
        for (size_t i = 0; i < g->vars.n; i++)
            varids[i] = g->vars.items[i]->id;
    if (nvars)
        *nvars = (int)g->vars.n;
    return NC_NOERR;
}

static int
cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int
NC4_inq_dimids(int ncid, int *ndims, int *dimids, int include_parents)
{
    NC4_grp *g, *p;
    size_t num = 0;
    int stat;

    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    for (p = g; p != NULL; p = include_parents ? p->parent : NULL)
        num += p->dims.n;
    if (dimids) {
        size_t n = 0;
        for (p = g; p != NULL; p = include_parents ? p->parent : NULL)
            for (size_t i = 0; i < p->dims.n; i++)
                dimids[n++] = p->dims.items[i]->id;
        qsort(dimids, num, sizeof(int), cmp_int);
    }
    if (ndims)
        *ndims = (int)num;
    return NC_NOERR;
}

int
NC4_inq_typeids(int ncid, int *ntypes, int *typeids)
{
    NC4_grp *g;
    int stat;

    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    if (typeids)
        for (size_t i = 0; i < g->types.n; i++)
            typeids[i] = g->types.items[i]->id;
    if (ntypes)
        *ntypes = (int)g->types.n;
    return NC_NOERR;
}
