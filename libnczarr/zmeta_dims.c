/* zmeta_dims.c: the dimensions an array being read refers to, shared by the
 * v2 and v3 readers.
 *
 * An axis names its dimension by FQN (NCZarr's dimension_references), else
 * by a name looked up in the root (xarray's _ARRAY_DIMENSIONS, v3's
 * dimension_names), else it gets the anonymous dimension of its length. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zmeta.h"

int
ncz_find_or_make_dim(NC4_file *f, NC4_grp *g, const char *name, size_t len, int unlim,
                     NC4_dim **dp)
{
    NC4_dim *d = (NC4_dim *)nc4_index_find(&g->dims, name);
    int stat;
    (void)f;
    if (d) {
        *dp = d;
        return NC_NOERR;
    }
    if ((stat = ncz_check_name(name)))
        return NC_ENCZARR;
    if ((stat = nc4_new_dim(g, name, len, unlim, &d)))
        return stat;
    d->hdr.stored_name = strdup(name);
    if (d->hdr.stored_name == NULL)
        return NC_ENOMEM;
    *dp = d;
    return NC_NOERR;
}

/* One per length, in the root. */
static int
anon_dim(NC4_file *f, size_t len, NC4_dim **dp)
{
    char name[64];
    snprintf(name, sizeof name, "%s_%zu", NCZ_ANON_DIM, len);
    return ncz_find_or_make_dim(f, f->root, name, len, 0, dp);
}

/* Group by path of FQN segments ("/g1/g2/d" -> g2, *lastp "d"); NULL if
 * a segment is empty, too long or not a group. */
static NC4_grp *
locate_group(NC4_file *f, const char *fqn, const char **lastp)
{
    NC4_grp *g = f->root;
    const char *p = *fqn == '/' ? fqn + 1 : fqn;
    for (;;) {
        const char *slash = strchr(p, '/');
        char name[NC_MAX_NAME + 1];
        size_t n;
        if (slash == NULL)
            break;
        n = (size_t)(slash - p);
        if (n == 0 || n > NC_MAX_NAME)
            return NULL;
        memcpy(name, p, n);
        name[n] = '\0';
        if ((g = (NC4_grp *)nc4_index_find(&g->children, name)) == NULL)
            return NULL;
        p = slash + 1;
    }
    *lastp = p;
    return g;
}

int
ncz_axis_dim(NC4_file *f, json_object *refs, json_object *names, size_t i, size_t len,
             NC4_dim **dp)
{
    NC4_dim *d = NULL;
    int stat;
    if (refs) {
        json_object *e = json_object_array_get_idx(refs, i);
        const char *last = NULL;
        NC4_grp *dg;
        if (!json_object_is_type(e, json_type_string) ||
            (dg = locate_group(f, json_object_get_string(e), &last)) == NULL)
            return NC_ENCZARR;
        if ((d = (NC4_dim *)nc4_index_find(&dg->dims, last)) == NULL &&
            (stat = ncz_find_or_make_dim(f, dg, last, len, 0, &d)))
            return stat;
    } else if (names) {
        json_object *e = json_object_array_get_idx(names, i);
        if (json_object_is_type(e, json_type_string) &&
            ncz_check_name(json_object_get_string(e)) == NC_NOERR) {
            d = (NC4_dim *)nc4_index_find(&f->root->dims, json_object_get_string(e));
            if (d && d->len != len && !d->unlimited) {
                /* Same name, other length: one dimension of the longest, as
                 * after a crash left one record array's shape behind the
                 * others'; a shorter array reads fill past its shape. */
                if (len > d->len)
                    d->len = len;
                *dp = d;
                return NC_NOERR;
            }
            if (!d && (stat = ncz_find_or_make_dim(f, f->root, json_object_get_string(e), len, 0, &d)))
                return stat;
        }
    }
    if (d == NULL && (stat = anon_dim(f, len, &d)))
        return stat;
    if (d->unlimited) {
        if (len > d->len)
            d->len = len;
    } else if (d->len != len) {
        return NC_ENCZARR; /* the shape disagrees with the dimension */
    }
    *dp = d;
    return NC_NOERR;
}
