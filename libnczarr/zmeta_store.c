/* zmeta_store.c: metadata objects through the consolidated metadata.
 *
 * Opening reads /.zmetadata (v2; zarr-python's layout {"metadata": {key:
 * object}, "zarr_consolidated_format": 1}) or the root zarr.json's
 * "consolidated_metadata" (v3) whenever present; the open then costs one
 * or two requests on S3.  Every metadata read and listing is answered from
 * it.  A store opened that way, or created/opened with mode=consolidated
 * (or NCZARR_CONSOLIDATED set), gets its consolidated object rewritten at
 * each metadata write so it never goes stale. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "zmeta.h"

#define ZMETADATA "/.zmetadata"

static json_object *
cons_lookup(NCZ_file *zf, const char *key)
{
    json_object *v = NULL;
    if (zf->cons == NULL || key[0] != '/')
        return NULL;
    if (!json_object_object_get_ex(zf->cons, key + 1, &v))
        return NULL;
    return v;
}

int
ncz_meta_read(NC4_file *f, const char *key, json_object **objp)
{
    NCZ_file *zf = ncz_file(f);
    *objp = NULL;
    if (zf->cons) {
        json_object *v = cons_lookup(zf, key);
        if (v == NULL)
            return NC_EEMPTY;
        *objp = json_object_get(v);
        return NC_NOERR;
    }
    return ncz_json_read(zf->map, key, objp);
}

int
ncz_meta_exists(NC4_file *f, const char *key)
{
    NCZ_file *zf = ncz_file(f);
    if (zf->cons)
        return cons_lookup(zf, key) ? NC_NOERR : NC_EEMPTY;
    return zf->map->ops->exists(zf->map, key);
}

/* Format a metadata object name says (0: not one). */
static int
tag_format(const char *name)
{
    if (strcmp(name, ".zgroup") == 0 || strcmp(name, ".zarray") == 0 ||
        strcmp(name, ".zattrs") == 0 || strcmp(name, ".zmetadata") == 0)
        return 2;
    if (strcmp(name, "zarr.json") == 0)
        return 3;
    return 0;
}

/* Directories looked into before giving up: a store whose first metadata
 * object lies deeper than this is not taken for Zarr. */
#define NCZ_FIND_FORMAT_MAX 512

int
ncz_meta_find_format(NC4_file *f, int *formatp)
{
    NCZ_map *map = ncz_file(f)->map;
    NCZ_keys todo = {0}; /* directories still to list, in order */
    int stat = NC_NOERR;

    *formatp = 0;
    if ((stat = ncz_keys_add(&todo, "/")))
        return stat;
    for (size_t next = 0; next < todo.n && next < NCZ_FIND_FORMAT_MAX && *formatp == 0; next++) {
        NCZ_keys kids = {0};
        const char *dir = todo.keys[next];
        stat = map->ops->list(map, dir, &kids);
        if (stat == NC_EEMPTY || stat == NC_EINVAL) {
            stat = NC_NOERR; /* an object, not a directory */
            continue;
        }
        if (stat)
            break;
        for (size_t i = 0; i < kids.n && *formatp == 0; i++)
            *formatp = tag_format(kids.keys[i]);
        for (size_t i = 0; i < kids.n && *formatp == 0 && stat == NC_NOERR; i++) {
            char *k = NULL;
            if (ncz_check_name(kids.keys[i]))
                continue;
            if ((stat = ncz_key_join(strcmp(dir, "/") ? dir : "", kids.keys[i], &k)) == NC_NOERR) {
                stat = ncz_keys_add(&todo, k);
                free(k);
            }
        }
        ncz_keys_free(&kids);
    }
    ncz_keys_free(&todo);
    return stat;
}

int
ncz_meta_write(NC4_file *f, const char *key, json_object *obj)
{
    NCZ_file *zf = ncz_file(f);
    int stat = ncz_json_write(zf->map, key, obj);
    if (stat == NC_NOERR && zf->write_consolidated && key[0] == '/') {
        if (zf->cons_out == NULL && (zf->cons_out = json_object_new_object()) == NULL)
            return NC_ENOMEM;
        stat = ncz_json_add(zf->cons_out, key + 1, json_object_get(obj));
    }
    return stat;
}

int
ncz_meta_list(NC4_file *f, const char *prefix, NCZ_keys *out)
{
    NCZ_file *zf = ncz_file(f);
    if (zf->cons == NULL)
        return zf->map->ops->list(zf->map, *prefix ? prefix : "/", out);
    /* Children of prefix among the consolidated keys ("g/v/.zarray"). */
    {
        size_t plen = *prefix ? strlen(prefix) - 1 : 0; /* without the leading '/' */
        const char *p = *prefix ? prefix + 1 : "";
        json_object_object_foreach(zf->cons, k, v) {
            const char *rest, *slash;
            char name[NC_MAX_NAME + 2];
            size_t n;
            int dup = 0;
            (void)v;
            if (plen) {
                if (strncmp(k, p, plen) != 0 || k[plen] != '/')
                    continue;
                rest = k + plen + 1;
            } else {
                rest = k;
            }
            slash = strchr(rest, '/');
            if (slash == NULL)
                continue; /* an object of the group itself */
            n = (size_t)(slash - rest);
            if (n == 0 || n > NC_MAX_NAME)
                continue;
            memcpy(name, rest, n);
            name[n] = '\0';
            for (size_t i = 0; i < out->n && !dup; i++)
                dup = strcmp(out->keys[i], name) == 0;
            if (!dup) {
                int stat = ncz_keys_add(out, name);
                if (stat)
                    return stat;
            }
        }
    }
    return NC_NOERR;
}

int
ncz_meta_load_consolidated(NC4_file *f, json_object *root_v3)
{
    NCZ_file *zf = ncz_file(f);
    json_object *z = NULL, *md;
    int stat;

    if (zf->zarr_format == 3) {
        json_object *cm = ncz_json_get(root_v3, "consolidated_metadata");
        json_object *m = ncz_json_get(cm, "metadata");
        if (m == NULL || !json_object_is_type(m, json_type_object))
            return NC_NOERR;
        /* v3 keys are node paths ("g/v"); stored as "g/v/zarr.json" here so
         * one lookup serves both formats.  The root is the object read. */
        if ((zf->cons = json_object_new_object()) == NULL)
            return NC_ENOMEM;
        if ((stat = ncz_json_add(zf->cons, "zarr.json", json_object_get(root_v3))))
            return stat;
        json_object_object_foreach(m, k, v) {
            char *key = malloc(strlen(k) + sizeof "/zarr.json");
            if (key == NULL)
                return NC_ENOMEM;
            strcpy(key, k);
            strcat(key, "/zarr.json");
            stat = ncz_json_add(zf->cons, key, json_object_get(v));
            free(key);
            if (stat)
                return stat;
        }
        zf->consolidated = 1;
        return NC_NOERR;
    }
    stat = ncz_json_read(zf->map, ZMETADATA, &z);
    if (stat == NC_EEMPTY)
        return NC_NOERR;
    if (stat)
        return stat == NC_ENCZARR ? NC_EZARRMETA : stat;
    md = ncz_json_get(z, "metadata");
    if (md == NULL || !json_object_is_type(md, json_type_object)) {
        json_object_put(z);
        return NC_EZARRMETA;
    }
    zf->cons = json_object_get(md);
    json_object_put(z);
    zf->consolidated = 1;
    return NC_NOERR;
}

int
ncz_meta_write_consolidated(NC4_file *f)
{
    NCZ_file *zf = ncz_file(f);
    json_object *z;
    int stat;

    if (!zf->write_consolidated || zf->cons_out == NULL || zf->zarr_format == 3)
        return NC_NOERR;
    if ((z = json_object_new_object()) == NULL)
        return NC_ENOMEM;
    if ((stat = ncz_json_add(z, "metadata", json_object_get(zf->cons_out))) ||
        (stat = ncz_json_add(z, "zarr_consolidated_format", json_object_new_int(1)))) {
        json_object_put(z);
        return stat;
    }
    stat = ncz_json_write(zf->map, ZMETADATA, z);
    json_object_put(z);
    return stat;
}

void
ncz_meta_free(NCZ_file *zf)
{
    json_object_put(zf->cons);
    json_object_put(zf->cons_out);
    zf->cons = zf->cons_out = NULL;
}
