/* zmeta_v2.c: Zarr v2 metadata, NCZarr and pure, read and written.
 *
 * Layout written (upstream 4.10.1):
 *   <grp>/.zgroup   {"zarr_format": 2}
 *   <grp>/.zattrs   user attributes, plus (NCZarr) "_nczarr_group":
 *                   {"dimensions": {name: {"size": n, "unlimited": 0|1}},
 *                    "arrays": [...], "groups": [...]}, in the root
 *                   "_nczarr_superblock": {"version": "2.0.0"}, and
 *                   "_nczarr_attr": {"types": {name: dtype}}
 *   <var>/.zarray   zarr_format, shape, dtype, chunks, fill_value, order,
 *                   compressor, filters[, dimension_separator]
 *   <var>/.zattrs   user attributes, _ARRAY_DIMENSIONS (root-group vars
 *                   whose dims are all in the root), (NCZarr)
 *                   "_nczarr_array": {"dimension_references": [fqn...],
 *                   "storage": "chunked"[, "scalar": 1]}, "_nczarr_attr"
 * Read also: the same keys inside .zgroup/.zarray (4.8-4.9.0), upper-case
 * spellings, "dims"/"vars"/"dimrefs", plain integer dimension sizes.
 * Pure Zarr: groups and arrays found by listing; dims from
 * _ARRAY_DIMENSIONS (root scope) or "_Anonymous_Dim_<len>" in the root. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zmeta.h"

/* Largest chunk accepted from metadata (bytes): hostile .zarray files must
 * not make a reader allocate absurd buffers. */
#define NCZ_MAX_CHUNK_BYTES ((size_t)1 << 34)

/* A key inside .zattrs, else inside the .zgroup/.zarray object (old layout),
 * in either case. */
static json_object *
nczarr_key(json_object *zattrs, json_object *zobj, const char *lower, const char *upper)
{
    json_object *v;
    if ((v = ncz_json_get(zattrs, lower)) || (v = ncz_json_get(zobj, lower)) ||
        (v = ncz_json_get(zattrs, upper)) || (v = ncz_json_get(zobj, upper)))
        return v;
    return NULL;
}

static json_object *
get_alt(json_object *d, const char *a, const char *b)
{
    json_object *v = ncz_json_get(d, a);
    return v ? v : ncz_json_get(d, b);
}

/* ---- reading ------------------------------------------------------------------ */

static int read_group(NC4_file *f, NC4_grp *g, int depth);

static int
decode_dims(NC4_file *f, NC4_grp *g, json_object *jdims)
{
    if (jdims == NULL)
        return NC_NOERR;
    if (!json_object_is_type(jdims, json_type_object))
        return NC_ENCZARR;
    json_object_object_foreach(jdims, name, jd) {
        size_t len = 0;
        int unlim = 0;
        NC4_dim *d;
        int stat;
        if (json_object_is_type(jd, json_type_object)) {
            json_object *ju = ncz_json_get(jd, "unlimited");
            if ((stat = ncz_json_size(ncz_json_get(jd, "size"), &len)))
                return stat;
            if (ju) {
                long long u;
                if (json_object_is_type(ju, json_type_boolean))
                    unlim = json_object_get_boolean(ju);
                else if (ncz_json_int64(ju, &u) == NC_NOERR)
                    unlim = u != 0;
                else
                    return NC_ENCZARR;
            }
        } else if (json_object_is_type(jd, json_type_string)) {
            /* 4.8 wrote the sizes as strings */
            char *end;
            const char *s = json_object_get_string(jd);
            unsigned long long v = strtoull(s, &end, 10);
            if (end == s || *end || s[0] == '-')
                return NC_ENCZARR;
            len = (size_t)v;
        } else if ((stat = ncz_json_size(jd, &len))) {
            return stat;
        }
        if (nc4_index_find(&g->dims, name))
            return NC_ENCZARR;
        if ((stat = ncz_find_or_make_dim(f, g, name, len, unlim, &d)))
            return stat;
    }
    return NC_NOERR;
}

/* Names from a JSON array of strings into keys. */
static int
name_list(json_object *arr, NCZ_keys *out)
{
    if (arr == NULL)
        return NC_NOERR;
    if (!json_object_is_type(arr, json_type_array))
        return NC_ENCZARR;
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        int stat;
        if (!json_object_is_type(e, json_type_string) || ncz_check_name(json_object_get_string(e)))
            return NC_ENCZARR;
        if ((stat = ncz_keys_add(out, json_object_get_string(e))))
            return stat;
    }
    return NC_NOERR;
}

static int
read_var(NC4_file *f, NC4_grp *g, const char *name, NCZ_read_req *pre)
{
    NCZ_file *zf = ncz_file(f);
    NCZ_grp *zg = ncz_grp(g);
    json_object *zarray = NULL, *zattrs = NULL, *jv, *jnc, *jrefs = NULL, *jx = NULL, *types = NULL;
    char *key = NULL, *okey = NULL;
    size_t shape[NC_MAX_VAR_DIMS], chunks[NC_MAX_VAR_DIMS], width = 0;
    int dimids[NC_MAX_VAR_DIMS];
    size_t zrank, rank;
    nc_type xtype;
    int endian, scalar = 0, stat;
    NC4_var *var = NULL;
    NCZ_var *zv = NULL;

    if ((stat = ncz_key_join(zg->key, name, &key)))
        return stat;
    if (pre) {
        /* Fetched with the group's other arrays (read_many). */
        stat = pre[0].status ? pre[0].status : ncz_json_parse(pre[0].data, pre[0].len, &zarray);
    } else if ((stat = ncz_key_join(key, ".zarray", &okey)) == NC_NOERR) {
        stat = ncz_meta_read(f, okey, &zarray);
    }
    if (stat) {
        if (stat == NC_EEMPTY)
            stat = zf->pure_zarr ? NC_NOERR : NC_ENCZARR; /* listed but missing */
        goto done;
    }
    free(okey);
    okey = NULL;
    if (pre) {
        stat = pre[1].status ? pre[1].status : ncz_json_parse(pre[1].data, pre[1].len, &zattrs);
    } else if ((stat = ncz_key_join(key, ".zattrs", &okey)) == NC_NOERR) {
        stat = ncz_meta_read(f, okey, &zattrs);
    }
    if (stat && stat != NC_EEMPTY)
        goto done;
    stat = NC_NOERR;
    if (!json_object_is_type(zarray, json_type_object) ||
        (zattrs && !json_object_is_type(zattrs, json_type_object))) {
        stat = NC_ENCZARR;
        goto done;
    }
    {
        long long zfmt;
        if (ncz_json_int64(ncz_json_get(zarray, "zarr_format"), &zfmt) || zfmt != 2) {
            stat = NC_ENCZARR;
            goto done;
        }
    }
    /* Data type: one netCDF cannot hold makes the variable invisible, as
     * upstream suppresses what it cannot represent. */
    if ((stat = ncz_dtype_v2_parse(ncz_json_string(zarray, "dtype"), &xtype, &endian, &width)) ||
        (strpbrk(ncz_json_string(zarray, "dtype"), "UJ") &&
         !(xtype == NC_CHAR && !zf->pure_zarr && strchr(ncz_json_string(zarray, "dtype"), 'U')))) {
        /* Arrays of numpy unicode (UCS-4) have no netCDF form here, except
         * NCZarr 4.8-4.9.0's char arrays: "<U1" over one byte each. */
        if (stat == NC_EBADTYPE || stat == NC_NOERR)
            stat = NC_NOERR;
        goto done;
    }
    /* Shape and chunks. */
    jv = ncz_json_get(zarray, "shape");
    if (!json_object_is_type(jv, json_type_array) ||
        (zrank = json_object_array_length(jv)) > NC_MAX_VAR_DIMS) {
        stat = NC_ENCZARR;
        goto done;
    }
    for (size_t i = 0; i < zrank; i++)
        if ((stat = ncz_json_size(json_object_array_get_idx(jv, i), &shape[i])))
            goto done;
    jv = ncz_json_get(zarray, "chunks");
    if (!json_object_is_type(jv, json_type_array) || json_object_array_length(jv) != zrank) {
        stat = NC_ENCZARR;
        goto done;
    }
    {
        size_t bytes = width ? width : 1;
        for (size_t i = 0; i < zrank; i++) {
            if ((stat = ncz_json_size(json_object_array_get_idx(jv, i), &chunks[i])))
                goto done;
            if (chunks[i] == 0 || bytes > NCZ_MAX_CHUNK_BYTES / chunks[i]) {
                stat = NC_ENCZARR;
                goto done;
            }
            bytes *= chunks[i];
        }
    }
    /* NCZarr annotations. */
    if (!zf->pure_zarr) {
        jnc = nczarr_key(zattrs, zarray, NCZ_ARRAY, "_NCZARR_ARRAY");
        if (jnc) {
            const char *storage = ncz_json_string(jnc, "storage");
            if (!json_object_is_type(jnc, json_type_object)) {
                stat = NC_ENCZARR;
                goto done;
            }
            jrefs = get_alt(jnc, "dimension_references", "dimrefs");
            if (jrefs && !json_object_is_type(jrefs, json_type_array)) {
                stat = NC_ENCZARR;
                goto done;
            }
            if (ncz_json_get(jnc, "scalar") || (storage && strcmp(storage, "scalar") == 0) ||
                (jrefs && json_object_array_length(jrefs) == 0))
                scalar = 1;
        }
        {
            json_object *ja = nczarr_key(zattrs, zarray, NCZ_ATTR, "_NCZARR_ATTR");
            if (ja == NULL)
                ja = ncz_json_get(zattrs, NCZ_ATTRS_NEW);
            types = ncz_json_get(ja, "types");
        }
    }
    if (zf->xarray && jrefs == NULL) {
        jx = ncz_json_get(zattrs, NCZ_XARRAY_DIMS);
        if (jx && (!json_object_is_type(jx, json_type_array) || json_object_array_length(jx) != zrank))
            jx = NULL; /* unusable: fall back to anonymous dims */
        if (jx && zrank == 1 && shape[0] == 1) {
            json_object *e = json_object_array_get_idx(jx, 0);
            if (json_object_is_type(e, json_type_string) &&
                strcmp(json_object_get_string(e), NCZ_XARRAY_SCALAR) == 0)
                scalar = 1;
        }
    }
    if (scalar && (zrank != 1 || shape[0] != 1)) {
        stat = NC_ENCZARR;
        goto done;
    }
    rank = scalar ? 0 : zrank;
    /* Dimensions. */
    if (jrefs && rank > 0 && json_object_array_length(jrefs) != zrank) {
        stat = NC_ENCZARR;
        goto done;
    }
    for (size_t i = 0; i < rank; i++) {
        NC4_dim *d;
        if ((stat = ncz_axis_dim(f, jrefs, jx, i, shape[i], &d)))
            goto done;
        dimids[i] = d->hdr.id;
    }
    if ((stat = nc4_new_var(g, name, xtype, (int)rank, dimids, &var)))
        goto done;
    var->created = 1;
    var->meta_locked = 1;
    var->storage = NC_CHUNKED;
    if ((var->hdr.stored_name = strdup(name)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    if (rank) {
        free(var->chunksizes); /* the model's zeroed array for unlimited dims */
        if ((var->chunksizes = malloc(rank * sizeof(size_t))) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        memcpy(var->chunksizes, chunks, rank * sizeof(size_t));
    }
    var->endianness = endian;
    if ((zv = ncz_var_state_new(f, var)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    zv->kind = NCZ_KVAR;
    var->fmt = zv;
    zv->key = key;
    key = NULL;
    zv->key_encoding = NCZ_KEYS_V2;
    zv->scalar_as_1 = scalar;
    zv->bigendian = endian == NC_ENDIAN_BIG;
    zv->typesize = xtype == NC_STRING ? width : nc4_type_size(f, xtype);
    zv->maxstrlen = xtype == NC_STRING ? width : 0;
    {
        const char *order = ncz_json_string(zarray, "order");
        const char *sep = ncz_json_string(zarray, "dimension_separator");
        zv->order = order && strcmp(order, "F") == 0 ? 'F' : 'C';
        zv->dimsep = sep && (strcmp(sep, "/") == 0) ? '/' : '.';
    }
    /* Attributes first: the fill value then replaces a _FillValue in place. */
    if ((stat = ncz_atts_decode(f, g, var, zattrs, types)))
        goto done;
    if ((stat = ncz_fill_decode(f, var, ncz_json_get(zarray, "fill_value"), 0)))
        goto done;
    if ((stat = ncz_codecs_from_json_v2(f, var, ncz_json_get(zarray, "filters"),
                                        ncz_json_get(zarray, "compressor"))))
        goto done;
    /* Attributes read are as stored. */
    for (size_t i = 0; i < var->atts.n; i++) {
        NC4_att *a = (NC4_att *)var->atts.items[i];
        a->dirty = 0;
        if (!a->hdr.stored_name)
            a->hdr.stored_name = strdup(a->hdr.name);
    }
done:
    json_object_put(zarray);
    json_object_put(zattrs);
    free(key);
    free(okey);
    return stat;
}

/* A group's arrays.  Without consolidated metadata their .zarray/.zattrs
 * objects are fetched in batches through read_many (concurrent requests on
 * S3) instead of two round trips per array. */
#define NCZ_PREFETCH 256
static int
read_vars(NC4_file *f, NC4_grp *g, NCZ_keys *vars)
{
    NCZ_file *zf = ncz_file(f);
    NCZ_read_req *reqs = NULL;
    char **keys = NULL;
    int stat = NC_NOERR;
    size_t batch = vars->n < NCZ_PREFETCH ? vars->n : NCZ_PREFETCH;

    if (zf->cons || vars->n < 2 || zf->map->ops->read_many == NULL) {
        for (size_t i = 0; i < vars->n && stat == NC_NOERR; i++)
            stat = read_var(f, g, vars->keys[i], NULL);
        return stat == NC_ENAMEINUSE ? NC_ENCZARR : stat;
    }
    if ((reqs = calloc(2 * batch, sizeof(*reqs))) == NULL || (keys = calloc(2 * batch, sizeof(char *))) == NULL) {
        free(reqs);
        return NC_ENOMEM;
    }
    for (size_t b = 0; b < vars->n && stat == NC_NOERR; b += batch) {
        size_t n = vars->n - b < batch ? vars->n - b : batch;
        for (size_t i = 0; i < n && stat == NC_NOERR; i++) {
            char *vk = NULL;
            if ((stat = ncz_key_join(ncz_grp(g)->key, vars->keys[b + i], &vk)) ||
                (stat = ncz_key_join(vk, ".zarray", &keys[2 * i])) ||
                (stat = ncz_key_join(vk, ".zattrs", &keys[2 * i + 1]))) {
                free(vk);
                break;
            }
            free(vk);
            for (int k = 0; k < 2; k++) {
                reqs[2 * i + k].key = keys[2 * i + k];
                reqs[2 * i + k].start = 0;
                reqs[2 * i + k].count = (uint64_t)-1;
            }
        }
        if (stat == NC_NOERR) {
            /* Per-request status says which objects are missing. */
            stat = zf->map->ops->read_many(zf->map, 2 * n, reqs);
            if (stat == NC_EEMPTY)
                stat = NC_NOERR;
        }
        for (size_t i = 0; i < n && stat == NC_NOERR; i++)
            stat = read_var(f, g, vars->keys[b + i], &reqs[2 * i]);
        for (size_t i = 0; i < 2 * n; i++) {
            free(reqs[i].data);
            free(keys[i]);
        }
        memset(reqs, 0, 2 * batch * sizeof(*reqs));
        memset(keys, 0, 2 * batch * sizeof(char *));
    }
    free(reqs);
    free(keys);
    return stat == NC_ENAMEINUSE ? NC_ENCZARR : stat;
}

/* Subgroups and arrays of a pure-Zarr group by listing. */
static int
search_children(NC4_file *f, NC4_grp *g, NCZ_keys *vars, NCZ_keys *grps)
{
    NCZ_keys kids = {0};
    int stat = ncz_meta_list(f, ncz_grp(g)->key, &kids);
    if (stat == NC_EEMPTY)
        stat = NC_NOERR;
    for (size_t i = 0; stat == NC_NOERR && i < kids.n; i++) {
        const char *name = kids.keys[i];
        char *k1 = NULL, *k2 = NULL;
        if (name[0] == '.' || ncz_check_name(name))
            continue;
        if ((stat = ncz_key_join(ncz_grp(g)->key, name, &k1)))
            break;
        if ((stat = ncz_key_join(k1, ".zarray", &k2)) == NC_NOERR) {
            if (ncz_meta_exists(f, k2) == NC_NOERR) {
                stat = ncz_keys_add(vars, name);
            } else {
                free(k2);
                k2 = NULL;
                if ((stat = ncz_key_join(k1, ".zgroup", &k2)) == NC_NOERR &&
                    ncz_meta_exists(f, k2) == NC_NOERR)
                    stat = ncz_keys_add(grps, name);
            }
        }
        free(k1);
        free(k2);
    }
    ncz_keys_free(&kids);
    return stat;
}

static int
read_group(NC4_file *f, NC4_grp *g, int depth)
{
    NCZ_file *zf = ncz_file(f);
    NCZ_grp *zg = ncz_grp(g);
    json_object *zgroup = NULL, *zattrs = NULL, *jg = NULL, *types = NULL;
    NCZ_keys vars = {0}, grps = {0};
    char *key = NULL;
    int stat;

    if (depth > 128)
        return NC_ENCZARR; /* nesting a store cannot hold sensibly */
    if ((stat = ncz_key_join(zg->key, ".zgroup", &key)))
        return stat;
    stat = ncz_meta_read(f, key, &zgroup);
    free(key);
    key = NULL;
    if (stat == NC_EEMPTY && g->parent == NULL && zf->pure_zarr) {
        stat = NC_NOERR; /* a store of arrays (or groups) with no root .zgroup */
    } else if (stat) {
        if (stat == NC_EEMPTY)
            stat = g->parent ? NC_ENCZARR : NC_ENOTZARR;
        goto done;
    }
    if (zgroup && !json_object_is_type(zgroup, json_type_object)) {
        stat = NC_ENCZARR;
        goto done;
    }
    if ((stat = ncz_key_join(zg->key, ".zattrs", &key)))
        goto done;
    if ((stat = ncz_meta_read(f, key, &zattrs)) && stat != NC_EEMPTY)
        goto done;
    stat = NC_NOERR;
    if (zattrs && !json_object_is_type(zattrs, json_type_object)) {
        stat = NC_ENCZARR;
        goto done;
    }
    if (!zf->pure_zarr) {
        jg = nczarr_key(zattrs, zgroup, NCZ_GROUP, "_NCZARR_GROUP");
        {
            json_object *ja = nczarr_key(zattrs, zgroup, NCZ_ATTR, "_NCZARR_ATTR");
            if (ja == NULL)
                ja = ncz_json_get(zattrs, NCZ_ATTRS_NEW);
            types = ncz_json_get(ja, "types");
        }
    }
    if (jg) {
        if (!json_object_is_type(jg, json_type_object)) {
            stat = NC_ENCZARR;
            goto done;
        }
        if ((stat = decode_dims(f, g, get_alt(jg, "dimensions", "dims"))) ||
            (stat = name_list(get_alt(jg, "arrays", "vars"), &vars)) ||
            (stat = name_list(ncz_json_get(jg, "groups"), &grps)))
            goto done;
    } else if ((stat = search_children(f, g, &vars, &grps))) {
        goto done;
    }
    if ((stat = ncz_atts_decode(f, g, NULL, zattrs, types)))
        goto done;
    for (size_t i = 0; i < g->atts.n; i++) {
        NC4_att *a = (NC4_att *)g->atts.items[i];
        if (!a->hdr.stored_name)
            a->hdr.stored_name = strdup(a->hdr.name);
    }
    /* Subgroups first make their names known (FQN dim refs may point into
     * them); their contents are read after this group's variables. */
    for (size_t i = 0; i < grps.n; i++) {
        NC4_grp *c;
        NCZ_grp *zc;
        if ((stat = nc4_new_grp(g, grps.keys[i], &c))) {
            if (stat == NC_ENAMEINUSE)
                stat = NC_ENCZARR;
            goto done;
        }
        c->created = 1;
        c->hdr.stored_name = strdup(grps.keys[i]);
        if ((zc = ncz_grp_state_new()) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        zc->kind = NCZ_KGRP;
        c->fmt = zc;
        if ((stat = ncz_key_join(zg->key, grps.keys[i], &zc->key)))
            goto done;
    }
    if ((stat = read_vars(f, g, &vars)))
        goto done;
    for (size_t i = 0; i < grps.n; i++) {
        NC4_grp *c = (NC4_grp *)nc4_index_find(&g->children, grps.keys[i]);
        if ((stat = read_group(f, c, depth + 1)))
            goto done;
    }
done:
    json_object_put(zgroup);
    json_object_put(zattrs);
    free(key);
    ncz_keys_free(&vars);
    ncz_keys_free(&grps);
    return stat;
}

int
ncz_v2_read(NC4_file *f)
{
    NCZ_file *zf = ncz_file(f);
    json_object *zg = NULL, *za = NULL, *sb;
    int stat;

    /* Superblock: NCZarr unless the mode said zarr.  With no root .zgroup
     * (the open found other Zarr objects below) the store is pure Zarr. */
    if ((stat = ncz_meta_read(f, "/.zgroup", &zg)) && stat != NC_EEMPTY)
        return stat;
    if ((stat = ncz_meta_read(f, "/.zattrs", &za)) && stat != NC_EEMPTY) {
        json_object_put(zg);
        return stat;
    }
    sb = nczarr_key(za, zg, NCZ_SUPERBLOCK, "_NCZARR_SUPERBLOCK");
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
    json_object_put(zg);
    json_object_put(za);
    return read_group(f, f->root, 0);
}

/* ---- writing ------------------------------------------------------------------ */

/* FQN of a dimension: "/g1/d". */
static char *
dim_fqn(const NC4_dim *d)
{
    char *gk = NULL, *out = NULL;
    if (ncz_grp_key(d->grp, &gk))
        return NULL;
    if (ncz_key_join(gk, d->hdr.name, &out))
        out = NULL;
    free(gk);
    return out;
}

static int
add_type(json_object *types, const char *name, const char *dtype)
{
    if (types == NULL)
        return NC_NOERR;
    return ncz_json_add(types, name, json_object_new_string(dtype));
}

static int
write_group(NC4_file *f, NC4_grp *g)
{
    NCZ_file *zf = ncz_file(f);
    NCZ_grp *zg = ncz_grp(g);
    json_object *zgroup = json_object_new_object(), *attrs = NULL, *types = NULL;
    char *key = NULL;
    int stat;

    if (zgroup == NULL)
        return NC_ENOMEM;
    if ((stat = ncz_json_add(zgroup, "zarr_format", json_object_new_int(2))))
        goto done;
    if ((stat = ncz_key_join(zg->key, ".zgroup", &key)) || (stat = ncz_meta_write(f, key, zgroup)))
        goto done;
    free(key);
    key = NULL;
    if ((stat = ncz_atts_encode(f, g, NULL, &attrs, zf->pure_zarr ? NULL : &types)))
        goto done;
    if (!zf->pure_zarr) {
        json_object *jg = json_object_new_object(), *jd = json_object_new_object();
        json_object *ja = json_object_new_array(), *jgr = json_object_new_array();
        json_object *jt;
        if (!jg || !jd || !ja || !jgr) {
            json_object_put(jg); json_object_put(jd); json_object_put(ja); json_object_put(jgr);
            stat = NC_ENOMEM;
            goto done;
        }
        for (size_t i = 0; i < g->dims.n; i++) {
            NC4_dim *d = (NC4_dim *)g->dims.items[i];
            json_object *one = json_object_new_object();
            if (one == NULL ||
                ncz_json_add(one, "size", json_object_new_uint64(d->len)) ||
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
            json_object_put(jg);
            stat = NC_ENOMEM;
            goto done;
        }
        if ((stat = ncz_json_add(attrs, NCZ_GROUP, jg)) || (stat = add_type(types, NCZ_GROUP, NCZ_JSON_DTYPE)))
            goto done;
        if (g->parent == NULL) {
            json_object *sb = json_object_new_object();
            /* The classic model is kept across reopens (HDF5 files say
             * _nc3_strict; upstream's NCZarr forgets it). */
            if (sb == NULL || ncz_json_add(sb, "version", json_object_new_string(NCZ_NCZARR_VERSION)) ||
                (f->classic_model && ncz_json_add(sb, "classic_model", json_object_new_int(1)))) {
                json_object_put(sb);
                stat = NC_ENOMEM;
                goto done;
            }
            if ((stat = ncz_json_add(attrs, NCZ_SUPERBLOCK, sb)) ||
                (stat = add_type(types, NCZ_SUPERBLOCK, NCZ_JSON_DTYPE)))
                goto done;
            if (f->ncproperties &&
                ((stat = ncz_json_add(attrs, "_NCProperties", json_object_new_string(f->ncproperties))) ||
                 (stat = add_type(types, "_NCProperties", ">S1"))))
                goto done;
        }
        if ((stat = add_type(types, NCZ_ATTR, NCZ_JSON_DTYPE)))
            goto done;
        jt = json_object_new_object();
        if (jt == NULL || ncz_json_add(jt, "types", types)) {
            types = NULL;
            json_object_put(jt);
            stat = NC_ENOMEM;
            goto done;
        }
        types = NULL;
        if ((stat = ncz_json_add(attrs, NCZ_ATTR, jt)))
            goto done;
    }
    if ((stat = ncz_key_join(zg->key, ".zattrs", &key)) || (stat = ncz_meta_write(f, key, attrs)))
        goto done;
    g->created = 1;
    g->dirty = g->atts_dirty = 0;
done:
    json_object_put(zgroup);
    json_object_put(attrs);
    json_object_put(types);
    free(key);
    return stat;
}

static int
write_var(NC4_file *f, NC4_var *var)
{
    NCZ_file *zf = ncz_file(f);
    NCZ_var *zv = ncz_var(var);
    json_object *za = json_object_new_object(), *attrs = NULL, *types = NULL, *jv = NULL;
    json_object *filters = NULL, *compressor = NULL;
    char dtype[32], *key = NULL;
    int stat = NC_NOERR, xarray;
    size_t zrank = var->ndims ? (size_t)var->ndims : 1;

    if (za == NULL)
        return NC_ENOMEM;
    if ((stat = ncz_json_add(za, "zarr_format", json_object_new_int(2))))
        goto done;
    jv = json_object_new_array();
    for (size_t i = 0; jv && i < zrank; i++)
        if (ncz_json_append(jv, json_object_new_uint64(var->ndims ? var->dims[i]->len : 1)))
            stat = NC_ENOMEM;
    if (stat || (stat = ncz_json_add(za, "shape", jv)))
        goto done;
    ncz_dtype_v2_make(var->xtype, var->endianness == NC_ENDIAN_BIG ? NC_ENDIAN_BIG : NC_ENDIAN_LITTLE,
                      zv->maxstrlen, dtype);
    if (zv->vlen_utf8)
        strcpy(dtype, "|O"); /* v2 object strings (vlen-utf8 filter) */
    if ((stat = ncz_json_add(za, "dtype", json_object_new_string(dtype))))
        goto done;
    jv = json_object_new_array();
    for (size_t i = 0; jv && i < zrank; i++)
        if (ncz_json_append(jv, json_object_new_uint64(var->ndims ? var->chunksizes[i] : 1)))
            stat = NC_ENOMEM;
    if (stat || (stat = ncz_json_add(za, "chunks", jv)))
        goto done;
    if ((stat = ncz_fill_encode(f, var, 0, &jv)) || (stat = ncz_json_add(za, "fill_value", jv)))
        goto done;
    if ((stat = ncz_json_add(za, "order", json_object_new_string(zv->order == 'F' ? "F" : "C"))))
        goto done;
    if ((stat = ncz_codecs_to_json_v2(f, var, &filters, &compressor)))
        goto done;
    stat = ncz_json_add(za, "compressor", compressor);
    compressor = NULL;
    if (stat)
        goto done;
    stat = ncz_json_add(za, "filters", filters);
    filters = NULL;
    if (stat)
        goto done;
    if (zv->dimsep == '/' && (stat = ncz_json_add(za, "dimension_separator", json_object_new_string("/"))))
        goto done;
    if ((stat = ncz_key_join(zv->key, ".zarray", &key)) || (stat = ncz_meta_write(f, key, za)))
        goto done;
    free(key);
    key = NULL;

    /* .zattrs */
    if ((stat = ncz_atts_encode(f, var->grp, var, &attrs, zf->pure_zarr ? NULL : &types)))
        goto done;
    xarray = zf->xarray && var->grp->parent == NULL;
    for (int i = 0; i < var->ndims; i++)
        if (var->dims[i]->grp != f->root)
            xarray = 0;
    if (xarray) {
        jv = json_object_new_array();
        if (var->ndims == 0 && ncz_json_append(jv, json_object_new_string(NCZ_XARRAY_SCALAR)))
            stat = NC_ENOMEM;
        for (int i = 0; jv && i < var->ndims; i++)
            if (ncz_json_append(jv, json_object_new_string(var->dims[i]->hdr.name)))
                stat = NC_ENOMEM;
        if (stat || (stat = ncz_json_add(attrs, NCZ_XARRAY_DIMS, jv)))
            goto done;
    }
    if (!zf->pure_zarr) {
        json_object *jn = json_object_new_object(), *jr = json_object_new_array(), *jt;
        if (!jn || !jr) {
            json_object_put(jn); json_object_put(jr);
            stat = NC_ENOMEM;
            goto done;
        }
        if (var->ndims == 0 && ncz_json_append(jr, json_object_new_string("/" NCZ_XARRAY_SCALAR)))
            stat = NC_ENOMEM;
        for (int i = 0; i < var->ndims; i++) {
            char *fqn = dim_fqn(var->dims[i]);
            if (fqn == NULL || ncz_json_append(jr, json_object_new_string(fqn)))
                stat = NC_ENOMEM;
            free(fqn);
        }
        if (stat || ncz_json_add(jn, "dimension_references", jr) ||
            (var->ndims == 0 && ncz_json_add(jn, "scalar", json_object_new_int(1))) ||
            ncz_json_add(jn, "storage", json_object_new_string("chunked"))) {
            json_object_put(jn);
            stat = NC_ENOMEM;
            goto done;
        }
        if ((stat = ncz_json_add(attrs, NCZ_ARRAY, jn)) || (stat = add_type(types, NCZ_ARRAY, NCZ_JSON_DTYPE)) ||
            (stat = add_type(types, NCZ_ATTR, NCZ_JSON_DTYPE)))
            goto done;
        jt = json_object_new_object();
        if (jt == NULL || ncz_json_add(jt, "types", types)) {
            types = NULL;
            json_object_put(jt);
            stat = NC_ENOMEM;
            goto done;
        }
        types = NULL;
        if ((stat = ncz_json_add(attrs, NCZ_ATTR, jt)))
            goto done;
    }
    if ((stat = ncz_key_join(zv->key, ".zattrs", &key)) || (stat = ncz_meta_write(f, key, attrs)))
        goto done;
    var->created = 1;
    var->dirty = var->atts_dirty = 0;
    zv->meta_dirty = 0;
done:
    json_object_put(za);
    json_object_put(attrs);
    json_object_put(types);
    json_object_put(filters);
    json_object_put(compressor);
    free(key);
    return stat;
}

int
ncz_v2_write(NC4_file *f)
{
    NCZ_file *zf = ncz_file(f);
    int stat, all = zf->write_consolidated;

    if (all) {
        json_object_put(zf->cons_out);
        zf->cons_out = NULL;
    }
    /* Children before parents (groups are numbered as created) and a
     * group's arrays before the group: a store cut short never lists an
     * array or a group whose metadata is not there yet. */
    for (size_t i = f->ngrps; i-- > 0;) {
        NC4_grp *g = f->grps[i];
        if (g == NULL)
            continue;
        for (size_t j = 0; j < g->vars.n; j++) {
            NC4_var *v = (NC4_var *)g->vars.items[j];
            NCZ_var *zv = ncz_var(v);
            int unlim = 0;
            /* Grown unlimited dims and renamed dims change the shape or the
             * dimension names an array's metadata carries. */
            for (int k = 0; k < v->ndims; k++)
                unlim |= v->dims[k]->unlimited || v->dims[k]->dirty;
            if (all || !v->created || v->dirty || v->atts_dirty || zv->meta_dirty || unlim)
                if ((stat = write_var(f, v)))
                    return stat;
        }
        /* A group's listing and dims change with what it holds: rewrite
         * every group when anything changed (groups are few). */
        if ((stat = write_group(f, g)))
            return stat;
    }
    return ncz_meta_write_consolidated(f);
}
