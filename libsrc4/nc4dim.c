/* nc4dim.c: dimension slots of the enhanced model (def/inq/rename, the
 * unlimited-dimension inquiries) and the coordinate-variable link between
 * a dimension and the same-named variable of its group.
 *
 * Order of checks follows upstream's libhdf5/hdf5dim.c. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "nc4priv.h"
#include "ncdispatch.h"

void
nc4_update_coord(NC4_var *var)
{
    NC4_dim *d0 = var->ndims > 0 ? var->dims[0] : NULL;
    int should = d0 != NULL && d0->grp == var->grp && strcmp(d0->hdr.name, var->hdr.name) == 0;

    if (var->is_coord && !should) {
        /* Break the pair: the storage layer turns the dataset back into an
         * ordinary variable and gives the dim its own scale at flush. */
        for (int i = 0; i < var->ndims; i++)
            if (var->dims[i]->coord_var == var) {
                var->dims[i]->coord_var = NULL;
                var->dims[i]->dirty = 1;
            }
        var->is_coord = 0;
        var->was_coord = 1;
    } else if (!var->is_coord && should && d0->coord_var == NULL) {
        var->is_coord = 1;
        d0->coord_var = var;
    }
}

int
NC4_def_dim(int ncid, const char *name, size_t len, int *idp)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_dim *d;
    int stat;

    if ((stat = nc4_find_grp_w(ncid, &f, &g)))
        return stat;
    if (f->classic_model) {
        if (len == NC_UNLIMITED)
            for (size_t i = 0; i < g->dims.n; i++)
                if (((NC4_dim *)g->dims.items[i])->unlimited)
                    return NC_EUNLIMIT;
        if (!f->indef)
            return NC_ENOTINDEFINE;
    }
    if ((stat = nc4_check_name(name)))
        return stat;
    if (f->classic_model && len > (size_t)NC_MAX_UINT)
        return NC_EDIMSIZE;
    if (nc4_index_find(&g->dims, name))
        return NC_ENAMEINUSE;
    if ((stat = nc4_check_define(f)))
        return stat;
    if ((stat = nc4_new_dim(g, name, len, len == NC_UNLIMITED, &d)))
        return stat;
    d->dirty = 1;
    g->dirty = 1;
    f->dirty = 1;
    if (idp)
        *idp = d->hdr.id;
    return NC_NOERR;
}

int
NC4_inq_dimid(int ncid, const char *name, int *idp)
{
    NC4_grp *g;
    NC4_dim *d;
    int stat;

    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    if (name == NULL)
        return NC_EINVAL;
    if (name[0] == '/') {
        /* A full name: the group path, then the dim in that group only.  As
         * upstream: "/x" (directly under the root) is NC_EINVAL, an unknown
         * group NC_ENOGRP, a dim missing there NC_EBADTYPE. */
        const char *slash = strrchr(name, '/');
        char *path;
        int gid;
        NC4_file *f = g->file;
        if (slash == name)
            return NC_EINVAL;
        if ((path = strndup(name, (size_t)(slash - name))) == NULL)
            return NC_ENOMEM;
        stat = NC4_inq_grp_full_ncid(NC4_GRP_NCID(f, f->root), path, &gid);
        free(path);
        if (stat)
            return stat;
        d = (NC4_dim *)nc4_index_find(&f->grps[gid & NC_GRP_MASK]->dims, slash + 1);
        if (d == NULL)
            return NC_EBADTYPE;
    } else {
        if (strchr(name, '/'))
            return NC_EINVAL;
        d = nc4_find_dim_by_name(g, name);
        if (d == NULL)
            return NC_EBADDIM;
    }
    if (idp)
        *idp = d->hdr.id;
    return NC_NOERR;
}

int
NC4_inq_dim(int ncid, int dimid, char *name, size_t *lenp)
{
    NC4_file *f;
    NC4_dim *d;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if ((stat = nc4_find_dim(f, dimid, &d)))
        return stat;
    if (name)
        strcpy(name, d->hdr.name);
    if (lenp)
        *lenp = d->len;
    return NC_NOERR;
}

int
NC4_rename_dim(int ncid, int dimid, const char *name)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_dim *d;
    NC4_var *var;
    int stat;

    if (name == NULL)
        return NC_EINVAL;
    if ((stat = nc4_find_grp_w(ncid, &f, &g)))
        return stat;
    if ((stat = nc4_check_name(name)))
        return stat;
    if ((stat = nc4_find_dim(f, dimid, &d)))
        return stat;
    if (nc4_index_find(&g->dims, name))
        return NC_ENAMEINUSE;
    if (d->grp != g && nc4_index_find(&d->grp->dims, name))
        return NC_ENAMEINUSE;
    if ((stat = nc4_index_rename(&d->grp->dims, &d->hdr, name)))
        return stat;
    d->dirty = 1;
    d->grp->dirty = 1;
    f->dirty = 1;
    /* A coordinate variable whose dim changed name is one no more; a
     * variable already named like the dim's new name becomes one. */
    if (d->coord_var != NULL) {
        NC4_var *cv = d->coord_var;
        nc4_update_coord(cv);
        cv->dirty = 1;
    }
    if (d->coord_var == NULL) {
        var = (NC4_var *)nc4_index_find(&d->grp->vars, d->hdr.name);
        if (var != NULL && var->ndims > 0 && var->dims[0] == d) {
            nc4_update_coord(var);
            var->dirty = 1;
        }
    }
    return NC_NOERR;
}

int
NC4_inq_unlimdims(int ncid, int *nunlimdimsp, int *unlimdimidsp)
{
    NC4_grp *g;
    int stat, n = 0;

    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    for (size_t i = 0; i < g->dims.n; i++) {
        NC4_dim *d = (NC4_dim *)g->dims.items[i];
        if (d->unlimited) {
            if (unlimdimidsp)
                unlimdimidsp[n] = d->hdr.id;
            n++;
        }
    }
    if (nunlimdimsp)
        *nunlimdimsp = n;
    return NC_NOERR;
}

int
NC4_inq_unlimdim(int ncid, int *unlimdimidp)
{
    NC4_grp *g;
    int stat;

    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    if (unlimdimidp == NULL)
        return NC_NOERR;
    *unlimdimidp = -1;
    /* Upstream's loop meant to climb to the root but looks at the starting
     * group each time: only this group's dims count. */
    for (size_t i = 0; i < g->dims.n; i++) {
        NC4_dim *d = (NC4_dim *)g->dims.items[i];
        if (d->unlimited) {
            *unlimdimidp = d->hdr.id;
            break;
        }
    }
    return NC_NOERR;
}
