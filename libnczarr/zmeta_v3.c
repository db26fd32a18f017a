/* zmeta_v3.c: Zarr v3 metadata (zarr.json), read and written.
 *
 * Group: {"zarr_format": 3, "node_type": "group", "attributes": {...}}.
 * Array: zarr_format, node_type "array", shape, data_type, chunk_grid
 * (regular), chunk_key_encoding (default "/" or v2 "."/"/"), fill_value,
 * codecs (zcodecs.c), attributes, dimension_names.
 * NCZarr extras, as attributes unless mode=zarr (upstream's v3 work is a
 * draft, so this follows its v2 spelling): the root's _nczarr_superblock
 * {"version": "3.0.0", "format": 3}; each group's _nczarr_group
 * {"dimensions": {name: {"size", "unlimited"}}, "arrays", "groups"}; each
 * array's _nczarr_array {"dimension_references": [...], "type_alias":
 * "char"} and _nczarr_attr {"types": {...}} (v2 dtype spellings).
 * Without them: children by listing, dims from dimension_names (root scope)
 * or anonymous by length; a consolidated root lists everything. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zmeta.h"

#define NCZ_V3_VERSION "3.0.0"
#define NCZ_MAX_CHUNK_BYTES ((size_t)1 << 34)

static int
node_key(const char *key, char **outp)
{
    return ncz_key_join(key, "zarr.json", outp);
}

/* ---- reading ------------------------------------------------------------------ */

static int
read_array(NC4_file *f, NC4_grp *g, const char *name, json_object *node)
{
    NCZ_file *zf = ncz_file(f);
    json_object *jv, *attrs = ncz_json_get(node, "attributes"), *jnc = NULL, *types = NULL;
    json_object *jrefs = NULL, *jnames = ncz_json_get(node, "dimension_names");
    size_t shape[NC_MAX_VAR_DIMS], chunks[NC_MAX_VAR_DIMS], width = 0, rank;
    int dimids[NC_MAX_VAR_DIMS], stat;
    nc_type xtype;
    NC4_var *var = NULL;
    NCZ_var *zv;
    const char *alias = NULL;

    if (attrs && !json_object_is_type(attrs, json_type_object))
        return NC_ENCZARR;
    if (ncz_dtype_v3_parse(ncz_json_string(node, "data_type"), &xtype, &width))
        return NC_NOERR; /* a type netCDF cannot hold: the array stays invisible */
    if (!zf->pure_zarr) {
        jnc = ncz_json_get(attrs, NCZ_ARRAY);
        jrefs = ncz_json_get(jnc, "dimension_references");
        alias = ncz_json_string(jnc, "type_alias");
        types = ncz_json_get(ncz_json_get(attrs, NCZ_ATTR), "types");
        if (alias && strcmp(alias, "char") == 0 && xtype == NC_UBYTE)
            xtype = NC_CHAR;
    }
    jv = ncz_json_get(node, "shape");
    if (!json_object_is_type(jv, json_type_array) || (rank = json_object_array_length(jv)) > NC_MAX_VAR_DIMS)
        return NC_ENCZARR;
    for (size_t i = 0; i < rank; i++)
        if ((stat = ncz_json_size(json_object_array_get_idx(jv, i), &shape[i])))
            return stat;
    {
        json_object *grid = ncz_json_get(node, "chunk_grid");
        const char *gname = ncz_json_string(grid, "name");
        size_t bytes = width ? width : 1;
        jv = ncz_json_get(ncz_json_get(grid, "configuration"), "chunk_shape");
        if (gname == NULL || strcmp(gname, "regular") != 0 || !json_object_is_type(jv, json_type_array) ||
            json_object_array_length(jv) != rank)
            return NC_ENCZARR;
        for (size_t i = 0; i < rank; i++) {
            if ((stat = ncz_json_size(json_object_array_get_idx(jv, i), &chunks[i])))
                return stat;
            if (chunks[i] == 0 || bytes > NCZ_MAX_CHUNK_BYTES / chunks[i])
                return NC_ENCZARR;
            bytes *= chunks[i];
        }
    }
    if (jrefs && (!json_object_is_type(jrefs, json_type_array) || json_object_array_length(jrefs) != rank))
        return NC_ENCZARR;
    if (jnames && (!json_object_is_type(jnames, json_type_array) || json_object_array_length(jnames) != rank))
        jnames = NULL;
    for (size_t i = 0; i < rank; i++) {
        NC4_dim *d;
        if ((stat = ncz_axis_dim(f, jrefs, jnames, i, shape[i], &d)))
            return stat;
        dimids[i] = d->hdr.id;
    }
    if ((stat = nc4_new_var(g, name, xtype, (int)rank, dimids, &var)))
        return stat == NC_ENAMEINUSE ? NC_ENCZARR : stat;
    var->created = 1;
    var->meta_locked = 1;
    var->storage = NC_CHUNKED;
    if ((var->hdr.stored_name = strdup(name)) == NULL)
        return NC_ENOMEM;
    if (rank) {
        free(var->chunksizes); /* the model's zeroed array for unlimited dims */
        if ((var->chunksizes = malloc(rank * sizeof(size_t))) == NULL)
            return NC_ENOMEM;
        memcpy(var->chunksizes, chunks, rank * sizeof(size_t));
    }
    if ((zv = ncz_var_state_new(f, var)) == NULL)
        return NC_ENOMEM;
    zv->kind = NCZ_KVAR;
    var->fmt = zv;
    if ((stat = ncz_key_join(ncz_grp(g)->key, name, &zv->key)))
        return stat;
    zv->typesize = xtype == NC_STRING ? width : nc4_type_size(f, xtype);
    zv->maxstrlen = xtype == NC_STRING ? width : 0;
    zv->vlen_utf8 = xtype == NC_STRING && width == 0;
    {
        json_object *cke = ncz_json_get(node, "chunk_key_encoding");
        const char *kname = ncz_json_string(cke, "name");
        const char *sep = ncz_json_string(ncz_json_get(cke, "configuration"), "separator");
        if (kname && strcmp(kname, "v2") == 0) {
            zv->key_encoding = NCZ_KEYS_V2;
            zv->dimsep = sep && strcmp(sep, "/") == 0 ? '/' : '.';
        } else if (kname == NULL || strcmp(kname, "default") == 0) {
            zv->key_encoding = NCZ_KEYS_DEFAULT;
            zv->dimsep = sep && strcmp(sep, ".") == 0 ? '.' : '/';
        } else {
            return NC_ENCZARR;
        }
    }
    if ((stat = ncz_atts_decode(f, g, var, attrs, types)))
        return stat;
    if ((stat = ncz_codecs_from_json_v3(f, var, ncz_json_get(node, "codecs"))))
        return stat;
    var->endianness = zv->bigendian ? NC_ENDIAN_BIG : NC_ENDIAN_LITTLE;
    if (nc4_type_size(f, xtype) <= 1 || xtype == NC_STRING)
        var->endianness = NC_ENDIAN_NATIVE;
    if ((stat = ncz_fill_decode(f, var, ncz_json_get(node, "fill_value"), 1)))
        return stat;
    /* v3 always names a fill value; NCZarr notes a netCDF no-fill array. */
    if (ncz_json_get(jnc, "no_fill"))
        var->no_fill = 1;
    return NC_NOERR;
}

static int
read_node(NC4_file *f, NC4_grp *g, json_object *node, int depth)
{
    NCZ_file *zf = ncz_file(f);
    NCZ_grp *zg = ncz_grp(g);
    json_object *attrs = ncz_json_get(node, "attributes"), *jg = NULL, *types = NULL;
    NCZ_keys kids = {0};
    int stat;

    if (depth > 128)
        return NC_ENCZARR;
    if ((node && !json_object_is_type(node, json_type_object)) ||
        (attrs && !json_object_is_type(attrs, json_type_object)))
        return NC_ENCZARR;
    if (!zf->pure_zarr) {
        jg = ncz_json_get(attrs, NCZ_GROUP);
        types = ncz_json_get(ncz_json_get(attrs, NCZ_ATTR), "types");
        if (jg) {
            json_object *jd = ncz_json_get(jg, "dimensions");
            if (jd && !json_object_is_type(jd, json_type_object))
                return NC_ENCZARR;
            if (jd) {
                json_object_object_foreach(jd, dname, dv) {
                    size_t len;
                    NC4_dim *d;
                    json_object *ju = ncz_json_get(dv, "unlimited");
                    if ((stat = ncz_json_size(ncz_json_get(dv, "size"), &len)))
                        return stat;
                    if (nc4_index_find(&g->dims, dname))
                        return NC_ENCZARR;
                    if ((stat = ncz_find_or_make_dim(f, g, dname, len,
                                                     ju && json_object_get_int(ju) != 0, &d)))
                        return stat;
                }
            }
        }
    }
    if ((stat = ncz_atts_decode(f, g, NULL, attrs, types)))
        return stat;
    /* Children: NCZarr's lists (creation order), else a listing (or the
     * consolidated keys). */
    if (jg && (ncz_json_get(jg, "arrays") || ncz_json_get(jg, "groups"))) {
        static const char *const lists[2] = {"arrays", "groups"};
        for (int l = 0; l < 2; l++) {
            json_object *arr = ncz_json_get(jg, lists[l]);
            if (arr && !json_object_is_type(arr, json_type_array)) {
                ncz_keys_free(&kids);
                return NC_ENCZARR;
            }
            for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
                json_object *e = json_object_array_get_idx(arr, i);
                if (!json_object_is_type(e, json_type_string)) {
                    ncz_keys_free(&kids);
                    return NC_ENCZARR;
                }
                if ((stat = ncz_keys_add(&kids, json_object_get_string(e)))) {
                    ncz_keys_free(&kids);
                    return stat;
                }
            }
        }
    } else {
        stat = ncz_meta_list(f, zg->key, &kids);
        if (stat == NC_EEMPTY)
            stat = NC_NOERR;
        if (stat)
            return stat;
    }
    /* Arrays of this group first (their dims may live here), then groups. */
    for (int pass = 0; pass < 2 && stat == NC_NOERR; pass++) {
        for (size_t i = 0; i < kids.n && stat == NC_NOERR; i++) {
            const char *name = kids.keys[i];
            char *k1 = NULL, *k2 = NULL;
            json_object *child = NULL;
            const char *nt;
            if (ncz_check_name(name) || name[0] == '.' || strcmp(name, "zarr.json") == 0)
                continue;
            if ((stat = ncz_key_join(zg->key, name, &k1)) || (stat = node_key(k1, &k2))) {
                free(k1);
                break;
            }
            stat = ncz_meta_read(f, k2, &child);
            free(k1);
            free(k2);
            if (stat == NC_EEMPTY) {
                stat = NC_NOERR; /* chunks directory ("c") or stray keys */
                continue;
            }
            if (stat)
                break;
            nt = ncz_json_string(child, "node_type");
            if (nt && strcmp(nt, "array") == 0 && pass == 0) {
                stat = read_array(f, g, name, child);
            } else if (nt && strcmp(nt, "group") == 0 && pass == 1) {
                NC4_grp *c;
                NCZ_grp *zc;
                if ((stat = nc4_new_grp(g, name, &c)) == NC_NOERR) {
                    c->created = 1;
                    c->hdr.stored_name = strdup(name);
                    if ((zc = ncz_grp_state_new()) == NULL) {
                        stat = NC_ENOMEM;
                    } else {
                        zc->kind = NCZ_KGRP;
                        c->fmt = zc;
                        if ((stat = ncz_key_join(zg->key, name, &zc->key)) == NC_NOERR)
                            stat = read_node(f, c, child, depth + 1);
                    }
                } else if (stat == NC_ENAMEINUSE) {
                    stat = NC_ENCZARR;
                }
            } else if (!nt) {
                stat = NC_ENCZARR;
            }
            json_object_put(child);
        }
    }
    ncz_keys_free(&kids);
    return stat;
}

int
ncz_v3_read(NC4_file *f, json_object *root)
{
    NCZ_file *zf = ncz_file(f);
    json_object *attrs = ncz_json_get(root, "attributes");
    json_object *sb = ncz_json_get(attrs, NCZ_SUPERBLOCK);
    long long fmt;
    const char *nt = ncz_json_string(root, "node_type");

    if (root == NULL) {
        /* No root zarr.json, but nodes below it (the open checked): a pure
         * Zarr store whose root group has no attributes. */
        zf->pure_zarr = 1;
        return read_node(f, f->root, NULL, 0);
    }
    if (ncz_json_int64(ncz_json_get(root, "zarr_format"), &fmt) || fmt != 3)
        return NC_ENOTZARR;
    if (nt == NULL || strcmp(nt, "group") != 0)
        return NC_ENOTZARR; /* an array at the root has no netCDF form */
    if (sb == NULL) {
        zf->pure_zarr = 1;
    } else {
        const char *v = ncz_json_string(sb, "version");
        if (v)
            sscanf(v, "%d.%d.%d", &zf->nczarr_major, &zf->nczarr_minor, &zf->nczarr_patch);
        if (ncz_json_get(sb, "classic_model")) {
            f->classic_model = 1;
            f->format = NC_FORMAT_NETCDF4_CLASSIC;
        }
    }
    return read_node(f, f->root, root, 0);
}

/* ---- writing ------------------------------------------------------------------ */

static int
finish_attrs(NC4_file *f, json_object *attrs, json_object *types, json_object *extra, const char *extraname)
{
    json_object *jt;
    int stat;
    (void)f;
    if (extra && (stat = ncz_json_add(attrs, extraname, extra)))
        return stat;
    if (types == NULL)
        return NC_NOERR;
    if ((jt = json_object_new_object()) == NULL) {
        json_object_put(types);
        return NC_ENOMEM;
    }
    if ((stat = ncz_json_add(jt, "types", types))) {
        json_object_put(jt);
        return stat;
    }
    return ncz_json_add(attrs, NCZ_ATTR, jt);
}

static int
write_group(NC4_file *f, NC4_grp *g, json_object **nodep)
{
    NCZ_file *zf = ncz_file(f);
    json_object *node = json_object_new_object(), *attrs = NULL, *types = NULL, *jg = NULL;
    int stat;

    *nodep = NULL;
    if (node == NULL)
        return NC_ENOMEM;
    if ((stat = ncz_json_add(node, "zarr_format", json_object_new_int(3))) ||
        (stat = ncz_json_add(node, "node_type", json_object_new_string("group"))))
        goto fail;
    if ((stat = ncz_atts_encode(f, g, NULL, &attrs, zf->pure_zarr ? NULL : &types)))
        goto fail;
    if (!zf->pure_zarr) {
        json_object *jd = json_object_new_object(), *ja = json_object_new_array(), *jgr = json_object_new_array();
        jg = json_object_new_object();
        if (!jg || !jd || !ja || !jgr) {
            json_object_put(jd); json_object_put(ja); json_object_put(jgr);
            stat = NC_ENOMEM;
            goto fail;
        }
        for (size_t i = 0; i < g->dims.n; i++) {
            NC4_dim *d = (NC4_dim *)g->dims.items[i];
            json_object *one = json_object_new_object();
            if (!one || ncz_json_add(one, "size", json_object_new_uint64(d->len)) ||
                ncz_json_add(one, "unlimited", json_object_new_int(d->unlimited ? 1 : 0)) ||
                ncz_json_add(jd, d->hdr.name, one))
                stat = NC_ENOMEM;
        }
        for (size_t i = 0; i < g->vars.n; i++)
            if (ncz_json_append(ja, json_object_new_string(g->vars.items[i]->name)))
                stat = NC_ENOMEM;
        for (size_t i = 0; i < g->children.n; i++)
            if (ncz_json_append(jgr, json_object_new_string(g->children.items[i]->name)))
                stat = NC_ENOMEM;
        if (stat || ncz_json_add(jg, "dimensions", jd) || ncz_json_add(jg, "arrays", ja) ||
            ncz_json_add(jg, "groups", jgr)) {
            stat = NC_ENOMEM;
            goto fail;
        }
        if (g->parent == NULL) {
            json_object *sb = json_object_new_object();
            if (!sb || ncz_json_add(sb, "version", json_object_new_string(NCZ_V3_VERSION)) ||
                ncz_json_add(sb, "format", json_object_new_int(3)) ||
                (f->classic_model && ncz_json_add(sb, "classic_model", json_object_new_int(1))) ||
                ncz_json_add(attrs, NCZ_SUPERBLOCK, sb)) {
                stat = NC_ENOMEM;
                goto fail;
            }
            if (f->ncproperties &&
                (stat = ncz_json_add(attrs, "_NCProperties", json_object_new_string(f->ncproperties))))
                goto fail;
        }
        stat = finish_attrs(f, attrs, types, jg, NCZ_GROUP);
        jg = types = NULL;
        if (stat)
            goto fail;
    }
    if ((stat = ncz_json_add(node, "attributes", attrs))) {
        attrs = NULL;
        goto fail;
    }
    *nodep = node;
    return NC_NOERR;
fail:
    json_object_put(node);
    json_object_put(attrs);
    json_object_put(types);
    json_object_put(jg);
    return stat;
}

static json_object *
size_array(size_t n, const size_t *v)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; a && i < n; i++)
        if (ncz_json_append(a, json_object_new_uint64(v[i]))) {
            json_object_put(a);
            return NULL;
        }
    return a;
}

static int
write_array(NC4_file *f, NC4_var *var, json_object **nodep)
{
    NCZ_file *zf = ncz_file(f);
    NCZ_var *zv = ncz_var(var);
    json_object *node = json_object_new_object(), *attrs = NULL, *types = NULL, *jv = NULL;
    json_object *codecs = NULL;
    size_t shape[NC_MAX_VAR_DIMS];
    const char *dtype = ncz_dtype_v3_name(var->xtype);
    int stat;

    *nodep = NULL;
    if (node == NULL)
        return NC_ENOMEM;
    /* Codecs first: for a new array the data part may turn it into a
     * sharded one, which changes the chunk grid (var->chunksizes). */
    if ((stat = ncz_codecs_to_json_v3(f, var, &codecs))) {
        json_object_put(node);
        return stat;
    }
    for (int i = 0; i < var->ndims; i++)
        shape[i] = var->dims[i]->len;
    if ((stat = ncz_json_add(node, "zarr_format", json_object_new_int(3))) ||
        (stat = ncz_json_add(node, "node_type", json_object_new_string("array"))) ||
        (stat = ncz_json_add(node, "shape", size_array((size_t)var->ndims, shape))) ||
        (stat = ncz_json_add(node, "data_type", json_object_new_string(dtype ? dtype : "uint8"))))
        goto fail;
    {
        json_object *grid = json_object_new_object(), *conf = json_object_new_object();
        json_object *cke = json_object_new_object(), *kconf = json_object_new_object();
        char sep[2] = {zv->dimsep == '.' ? '.' : '/', 0};
        if (!grid || !conf || !cke || !kconf ||
            ncz_json_add(conf, "chunk_shape", size_array((size_t)var->ndims, var->chunksizes)) ||
            ncz_json_add(grid, "name", json_object_new_string("regular")) ||
            ncz_json_add(grid, "configuration", conf) ||
            ncz_json_add(kconf, "separator", json_object_new_string(sep)) ||
            ncz_json_add(cke, "name", json_object_new_string(zv->key_encoding == NCZ_KEYS_V2 ? "v2" : "default")) ||
            ncz_json_add(cke, "configuration", kconf) ||
            ncz_json_add(node, "chunk_grid", grid) || ncz_json_add(node, "chunk_key_encoding", cke)) {
            stat = NC_ENOMEM;
            goto fail;
        }
    }
    /* v3 requires a fill value: a no-fill array still names one. */
    {
        int nofill = var->no_fill;
        var->no_fill = 0;
        stat = ncz_fill_encode(f, var, 1, &jv);
        var->no_fill = nofill;
        if (stat || (stat = ncz_json_add(node, "fill_value", jv)))
            goto fail;
    }
    jv = codecs;
    codecs = NULL;
    if (jv == NULL) {
        /* No codec list from the data part: the required array->bytes one. */
        json_object *b = json_object_new_object(), *c = json_object_new_object();
        jv = json_object_new_array();
        if (!b || !c || !jv || ncz_json_add(c, "endian", json_object_new_string(zv->bigendian ? "big" : "little")) ||
            ncz_json_add(b, "name", json_object_new_string("bytes")) || ncz_json_add(b, "configuration", c) ||
            ncz_json_append(jv, b)) {
            stat = NC_ENOMEM;
            goto fail;
        }
    }
    if ((stat = ncz_json_add(node, "codecs", jv)))
        goto fail;
    if ((stat = ncz_atts_encode(f, var->grp, var, &attrs, zf->pure_zarr ? NULL : &types)))
        goto fail;
    if (!zf->pure_zarr) {
        json_object *jn = json_object_new_object(), *jr = json_object_new_array();
        if (!jn || !jr) {
            json_object_put(jn); json_object_put(jr);
            stat = NC_ENOMEM;
            goto fail;
        }
        for (int i = 0; i < var->ndims; i++) {
            char *gk = NULL, *fqn = NULL;
            if (ncz_grp_key(var->dims[i]->grp, &gk) || ncz_key_join(gk, var->dims[i]->hdr.name, &fqn) ||
                ncz_json_append(jr, json_object_new_string(fqn)))
                stat = NC_ENOMEM;
            free(gk);
            free(fqn);
        }
        if (stat || ncz_json_add(jn, "dimension_references", jr) ||
            (var->xtype == NC_CHAR && ncz_json_add(jn, "type_alias", json_object_new_string("char"))) ||
            (var->no_fill && ncz_json_add(jn, "no_fill", json_object_new_int(1)))) {
            json_object_put(jn);
            stat = NC_ENOMEM;
            goto fail;
        }
        stat = finish_attrs(f, attrs, types, jn, NCZ_ARRAY);
        types = NULL;
        if (stat)
            goto fail;
    }
    if ((stat = ncz_json_add(node, "attributes", attrs))) {
        attrs = NULL;
        goto fail;
    }
    attrs = NULL;
    {
        json_object *names = json_object_new_array();
        for (int i = 0; names && i < var->ndims; i++)
            if (ncz_json_append(names, json_object_new_string(var->dims[i]->hdr.name)))
                stat = NC_ENOMEM;
        if (stat || (stat = ncz_json_add(node, "dimension_names", names)))
            goto fail;
    }
    *nodep = node;
    return NC_NOERR;
fail:
    json_object_put(node);
    json_object_put(attrs);
    json_object_put(types);
    json_object_put(codecs);
    return stat;
}

int
ncz_v3_write(NC4_file *f)
{
    NCZ_file *zf = ncz_file(f);
    json_object *cons = zf->write_consolidated ? json_object_new_object() : NULL;
    json_object *rootnode = NULL;
    int stat = NC_NOERR;

    /* Children before parents (groups are numbered as created) and a
     * group's arrays before the group: a store cut short never lists an
     * array or a group whose metadata is not there yet. */
    for (size_t i = f->ngrps; i-- > 0 && stat == NC_NOERR;) {
        NC4_grp *g = f->grps[i];
        json_object *node = NULL, *gnode = NULL;
        char *key = NULL;
        if ((stat = write_group(f, g, &gnode)))
            break;
        g->created = 1;
        g->dirty = g->atts_dirty = 0;
        for (size_t j = 0; j < g->vars.n && stat == NC_NOERR; j++) {
            NC4_var *v = (NC4_var *)g->vars.items[j];
            NCZ_var *zv = ncz_var(v);
            int unlim = 0;
            for (int k = 0; k < v->ndims; k++)
                unlim |= v->dims[k]->unlimited || v->dims[k]->dirty;
            if (!(cons || !v->created || v->dirty || v->atts_dirty || zv->meta_dirty || unlim))
                continue;
            node = NULL;
            key = NULL;
            if ((stat = write_array(f, v, &node)))
                break;
            if ((stat = node_key(zv->key, &key)) == NC_NOERR)
                stat = ncz_meta_write(f, key, node);
            if (stat == NC_NOERR && cons)
                stat = ncz_json_add(cons, zv->key + 1, json_object_get(node));
            json_object_put(node);
            free(key);
            v->created = 1;
            v->dirty = v->atts_dirty = 0;
            zv->meta_dirty = 0;
        }
        if (g->parent == NULL) {
            rootnode = gnode; /* written last, with the consolidated metadata */
        } else {
            key = NULL;
            if (stat == NC_NOERR && (stat = node_key(ncz_grp(g)->key, &key)) == NC_NOERR)
                stat = ncz_meta_write(f, key, gnode);
            if (stat == NC_NOERR && cons)
                stat = ncz_json_add(cons, ncz_grp(g)->key + 1, json_object_get(gnode));
            json_object_put(gnode);
            free(key);
        }
    }
    if (stat == NC_NOERR && rootnode) {
        if (cons) {
            json_object *cm = json_object_new_object();
            if (!cm || ncz_json_add(cm, "kind", json_object_new_string("inline")) ||
                ncz_json_add(cm, "must_understand", json_object_new_boolean(0)) ||
                ncz_json_add(cm, "metadata", json_object_get(cons)) ||
                ncz_json_add(rootnode, "consolidated_metadata", cm))
                stat = NC_ENOMEM;
        }
        if (stat == NC_NOERR)
            stat = ncz_json_write(zf->map, "/zarr.json", rootnode);
    }
    json_object_put(rootnode);
    json_object_put(cons);
    return stat;
}
