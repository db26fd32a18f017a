/* zmeta_rename.c: renaming a stored array or group moves its objects.
 *
 * Zarr names an object by its key, so a rename copies every object under
 * the old key prefix to the new one and deletes the old (metadata is
 * rewritten at the next sync).  Cached chunks are written back first. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "zmeta.h"

/* Move every object under oldkey to newkey (both without trailing '/'). */
static int
move_prefix(NCZ_map *map, const char *oldkey, const char *newkey)
{
    NCZ_keys keys = {0};
    size_t olen = strlen(oldkey);
    int stat = map->ops->list_all(map, oldkey, &keys);
    if (stat == NC_EEMPTY)
        stat = NC_NOERR;
    for (size_t i = 0; stat == NC_NOERR && i < keys.n; i++) {
        const char *k = keys.keys[i];
        void *data = NULL;
        size_t len = 0;
        char *nk;
        if (strncmp(k, oldkey, olen) != 0 || (k[olen] != '/' && k[olen] != '\0'))
            continue;
        if ((nk = malloc(strlen(newkey) + strlen(k + olen) + 1)) == NULL) {
            stat = NC_ENOMEM;
            break;
        }
        strcpy(nk, newkey);
        strcat(nk, k + olen);
        if ((stat = map->ops->read_all(map, k, &data, &len)) == NC_NOERR &&
            (stat = map->ops->write(map, nk, len, data)) == NC_NOERR)
            stat = map->ops->del(map, k);
        free(data);
        free(nk);
    }
    ncz_keys_free(&keys);
    return stat;
}

int
ncz_rename_var_keys(NC4_file *f, NC4_var *var, const char *newname)
{
    NCZ_var *zv = ncz_var(var);
    char *nk = NULL;
    int stat;
    if ((stat = ncz_var_flush(f, var)))
        return stat;
    if ((stat = ncz_key_join(ncz_grp(var->grp)->key, newname, &nk)))
        return stat;
    if ((stat = move_prefix(ncz_file(f)->map, zv->key, nk))) {
        free(nk);
        return stat;
    }
    free(zv->key);
    zv->key = nk;
    free(var->hdr.stored_name);
    var->hdr.stored_name = strdup(newname);
    return NC_NOERR;
}

/* Recompute the keys of g's subtree after its own key changed. */
static int
rekey(NC4_grp *g)
{
    NCZ_grp *zg = ncz_grp(g);
    int stat;
    for (size_t i = 0; i < g->vars.n; i++) {
        NC4_var *v = (NC4_var *)g->vars.items[i];
        NCZ_var *zv = ncz_var(v);
        if (zv == NULL)
            continue;
        free(zv->key);
        zv->key = NULL;
        if ((stat = ncz_key_join(zg->key, v->hdr.name, &zv->key)))
            return stat;
    }
    for (size_t i = 0; i < g->children.n; i++) {
        NC4_grp *c = (NC4_grp *)g->children.items[i];
        NCZ_grp *zc = ncz_grp(c);
        if (zc == NULL)
            continue;
        free(zc->key);
        zc->key = NULL;
        if ((stat = ncz_key_join(zg->key, c->hdr.name, &zc->key)) || (stat = rekey(c)))
            return stat;
    }
    return NC_NOERR;
}

int
ncz_rename_grp_keys(NC4_file *f, NC4_grp *g, const char *newname)
{
    NCZ_grp *zg = ncz_grp(g);
    char *nk = NULL;
    int stat;
    for (size_t i = 0; i < f->ngrps; i++)
        for (size_t j = 0; j < f->grps[i]->vars.n; j++) {
            NC4_var *v = (NC4_var *)f->grps[i]->vars.items[j];
            if (v->fmt && v->created && (stat = ncz_var_flush(f, v)))
                return stat;
        }
    if ((stat = ncz_key_join(ncz_grp(g->parent)->key, newname, &nk)))
        return stat;
    if ((stat = move_prefix(ncz_file(f)->map, zg->key, nk))) {
        free(nk);
        return stat;
    }
    free(zg->key);
    zg->key = nk;
    free(g->hdr.stored_name);
    g->hdr.stored_name = strdup(newname);
    return rekey(g);
}
