/* zcodecs.c: Zarr codec metadata <-> HDF5 filter ids and parameters.
 *
 * v2 (numcodecs JSON, "filters" then "compressor"):
 *   zlib {level} -> deflate 1 [level];  shuffle {elementsize} -> 2 [size];
 *   fletcher32 (NCZarr's) -> 3;  szip {mask, pixels-per-block} -> 4 [mask, ppb];
 *   bz2 {level} -> 307 [level];  zstd {level} -> 32015 [level];
 *   blosc {cname, clevel, shuffle, blocksize} -> 32001, HDF5's 7 parameters;
 *   gzip {level} (shown as deflate) and crc32c (not shown) run as libfilter's
 *   NCF_ID_GZIP and NCF_ID_CRC32C (zcodecs_pipe.c).
 * v3 ("codecs" array: array->array*, one array->bytes, bytes->bytes*):
 *   transpose {order}, bytes {endian}, sharding_indexed {chunk_shape,
 *   codecs, index_codecs, index_location}, vlen-utf8 (strings);
 *   gzip {level}, zstd {level, checksum}, blosc {cname, clevel, shuffle
 *   ("noshuffle"/"shuffle"/"bitshuffle"), typesize, blocksize}, crc32c;
 *   numcodecs.shuffle/bz2/fletcher32/zlib (zarr-python 3's names for
 *   numcodecs codecs) as in v2.
 * Unknown codecs are kept (hdf5id 0, JSON written back unchanged); reading
 * their data is NC_ENOFILTER.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zinternal.h"

static const char *const blosc_cnames[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
#define NBLOSC (sizeof(blosc_cnames) / sizeof(blosc_cnames[0]))

/* ---- small JSON helpers ------------------------------------------------------ */

static json_object *
jget(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o == NULL || !json_object_is_type(o, json_type_object))
        return NULL;
    if (!json_object_object_get_ex(o, key, &v))
        return NULL;
    return v;
}

/* Integer member key (absent: dflt); NC_ENCZARR if present but not an integer. */
static int
jint(json_object *o, const char *key, long long dflt, long long *v)
{
    json_object *x = jget(o, key);
    if (x == NULL || json_object_is_type(x, json_type_null)) {
        *v = dflt;
        return NC_NOERR;
    }
    if (!json_object_is_type(x, json_type_int))
        return NC_ENCZARR;
    *v = json_object_get_int64(x);
    return NC_NOERR;
}

static const char *
jstr(json_object *o, const char *key)
{
    json_object *x = jget(o, key);
    if (x == NULL || !json_object_is_type(x, json_type_string))
        return NULL;
    return json_object_get_string(x);
}

static void
jadd_int(json_object *o, const char *key, long long v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

/* ---- one spec --------------------------------------------------------------- */

static int
spec_set(NCZ_codec_spec *s, const char *name, json_object *json, unsigned id, size_t np, const unsigned *p)
{
    memset(s, 0, sizeof(*s));
    if ((s->name = strdup(name)) == NULL)
        return NC_ENOMEM;
    s->json = json_object_get(json);
    s->hdf5id = id;
    s->nparams = np;
    if ((s->params = calloc(np + 1, sizeof(unsigned))) == NULL)
        return NC_ENOMEM;
    if (np)
        memcpy(s->params, p, np * sizeof(unsigned));
    return NC_NOERR;
}

static int
level_ok(long long v, long long lo, long long hi)
{
    return v >= lo && v <= hi;
}

/* A numcodecs (v2) or v3 bytes->bytes codec: conf holds its parameters (the
 * codec object itself for v2, "configuration" for v3). */
static int
spec_from(NC4_var *var, const char *name, json_object *json, json_object *conf, int v3,
          NCZ_codec_spec *s)
{
    NCZ_var *zv = ncz_var(var);
    long long a, b, c, d;
    unsigned p[7] = {0};
    int stat;
    if (strcmp(name, "zlib") == 0) {
        if ((stat = jint(conf, "level", 1, &a)) || !level_ok(a, 0, 9))
            return NC_ENCZARR;
        p[0] = (unsigned)a;
        return spec_set(s, name, json, NCF_ID_DEFLATE, 1, p);
    }
    if (strcmp(name, "gzip") == 0) {
        if ((stat = jint(conf, "level", 1, &a)) || !level_ok(a, 0, 9))
            return NC_ENCZARR;
        p[0] = (unsigned)a;
        /* The same deflate stream in a gzip wrapper: shown to the netCDF API
         * as deflate; the pipe runs it as libfilter's gzip. */
        return spec_set(s, name, json, NCF_ID_DEFLATE, 1, p);
    }
    if (strcmp(name, "crc32c") == 0)
        return spec_set(s, name, json, 0, 0, p);
    if (strcmp(name, "shuffle") == 0) {
        if ((stat = jint(conf, "elementsize", (long long)zv->typesize, &a)) || !level_ok(a, 0, 1 << 20))
            return NC_ENCZARR;
        p[0] = (unsigned)(a ? a : (long long)zv->typesize);
        return spec_set(s, name, json, NCF_ID_SHUFFLE, 1, p);
    }
    if (strcmp(name, "fletcher32") == 0)
        return spec_set(s, name, json, NCF_ID_FLETCHER32, 0, p);
    if (strcmp(name, "szip") == 0) {
        if (jint(conf, "mask", 0, &a) || jint(conf, "pixels-per-block", 0, &b) || !level_ok(a, 0, 0xffff) ||
            !level_ok(b, 0, 32))
            return NC_ENCZARR;
        p[0] = (unsigned)a;
        p[1] = (unsigned)b;
        return spec_set(s, name, json, NCF_ID_SZIP, 2, p);
    }
    if (strcmp(name, "bz2") == 0) {
        if (jint(conf, "level", 9, &a) || !level_ok(a, 1, 9))
            return NC_ENCZARR;
        p[0] = (unsigned)a;
        return spec_set(s, name, json, NCF_ID_BZIP2, 1, p);
    }
    if (strcmp(name, "zstd") == 0) {
        if (jint(conf, "level", 0, &a) || !level_ok(a, -131072, 22))
            return NC_ENCZARR;
        p[0] = (unsigned)(int)a;
        return spec_set(s, name, json, NCF_ID_ZSTD, 1, p);
    }
    if (strcmp(name, "blosc") == 0) {
        const char *cn = jstr(conf, "cname");
        size_t i;
        if (cn == NULL)
            cn = "lz4";
        for (i = 0; i < NBLOSC; i++)
            if (strcmp(cn, blosc_cnames[i]) == 0)
                break;
        if (i == NBLOSC)
            return NC_ENOFILTER; /* a blosc compressor this library lacks */
        if (jint(conf, "clevel", 5, &a) || !level_ok(a, 0, 9) || jint(conf, "blocksize", 0, &b) ||
            !level_ok(b, 0, 0x7fffffff))
            return NC_ENCZARR;
        if (v3) {
            const char *sh = jstr(conf, "shuffle");
            if (sh == NULL || strcmp(sh, "noshuffle") == 0)
                c = 0;
            else if (strcmp(sh, "shuffle") == 0)
                c = 1;
            else if (strcmp(sh, "bitshuffle") == 0)
                c = 2;
            else
                return NC_ENCZARR;
            if (jint(conf, "typesize", (long long)zv->typesize, &d) || !level_ok(d, 0, 0x7fffffff))
                return NC_ENCZARR;
        } else {
            if (jint(conf, "shuffle", 1, &c) || !level_ok(c, -1, 2))
                return NC_ENCZARR;
            /* numcodecs AUTOSHUFFLE: bit shuffle for 1-byte items, else byte. */
            if (c == -1)
                c = zv->typesize == 1 ? 2 : 1;
            d = (long long)zv->typesize;
        }
        ncf_blosc_params((size_t)d, 0, p);
        p[3] = (unsigned)b;
        p[4] = (unsigned)a;
        p[5] = (unsigned)c;
        p[6] = (unsigned)i;
        return spec_set(s, name, json, NCF_ID_BLOSC, 7, p);
    }
    /* Unknown here: kept for the metadata, no data access. */
    return spec_set(s, name, json, 0, 0, p);
}

/* var->filters/nfilters from the specs that map to HDF5 filters. */
static int
sync_model_filters(NC4_var *var, const NCZ_codec_spec *specs, size_t n)
{
    size_t k = 0;
    NC4_filter *fl;
    for (size_t i = 0; i < var->nfilters; i++)
        free(var->filters[i].params);
    free(var->filters);
    var->filters = NULL;
    var->nfilters = 0;
    if (n == 0)
        return NC_NOERR;
    if ((fl = calloc(n, sizeof(*fl))) == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (specs[i].hdf5id == 0)
            continue;
        fl[k].id = specs[i].hdf5id;
        fl[k].nparams = specs[i].nparams;
        if ((fl[k].params = calloc(specs[i].nparams + 1, sizeof(unsigned))) == NULL) {
            var->filters = fl;
            var->nfilters = k;
            return NC_ENOMEM;
        }
        if (specs[i].nparams)
            memcpy(fl[k].params, specs[i].params, specs[i].nparams * sizeof(unsigned));
        k++;
    }
    if (k == 0) {
        free(fl);
        return NC_NOERR;
    }
    var->filters = fl;
    var->nfilters = k;
    return NC_NOERR;
}

/* Append one codec to a spec vector. */
static int
push_spec(NCZ_codec_spec **v, size_t *n, size_t *cap, NCZ_codec_spec **slot)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        NCZ_codec_spec *p = realloc(*v, nc * sizeof(*p));
        if (p == NULL)
            return NC_ENOMEM;
        *v = p;
        *cap = nc;
    }
    *slot = &(*v)[*n];
    memset(*slot, 0, sizeof(**slot));
    (*n)++;
    return NC_NOERR;
}

/* ---- v2 --------------------------------------------------------------------------- */

static int
v2_one(NC4_var *var, json_object *c, NCZ_codec_spec **v, size_t *n, size_t *cap)
{
    const char *id = jstr(c, "id");
    NCZ_codec_spec *s;
    int stat;
    if (id == NULL)
        return NC_ENCZARR;
    if ((stat = push_spec(v, n, cap, &s)))
        return stat;
    return spec_from(var, id, c, c, 0, s);
}

int
ncz_codecs_from_json_v2(NC4_file *f, NC4_var *var, json_object *filters, json_object *compressor)
{
    NCZ_var *zv = ncz_var(var);
    NCZ_codec_spec *v = NULL;
    size_t n = 0, cap = 0;
    int stat = NC_NOERR;
    (void)f;
    if (filters != NULL && !json_object_is_type(filters, json_type_null)) {
        if (!json_object_is_type(filters, json_type_array))
            return NC_ENCZARR;
        for (size_t i = 0; i < json_object_array_length(filters) && !stat; i++) {
            json_object *c = json_object_array_get_idx(filters, i);
            const char *id = jstr(c, "id");
            if (i == 0 && id != NULL && strcmp(id, "vlen-utf8") == 0) {
                /* zarr-python's object codec of "|O" strings: the data path's
                 * string encoding, not a byte codec. */
                if (var->xtype != NC_STRING)
                    stat = NC_ENCZARR;
                zv->vlen_utf8 = 1;
                continue;
            }
            stat = v2_one(var, c, &v, &n, &cap);
        }
    }
    if (!stat && compressor != NULL && !json_object_is_type(compressor, json_type_null)) {
        if (!json_object_is_type(compressor, json_type_object))
            stat = NC_ENCZARR;
        else
            stat = v2_one(var, compressor, &v, &n, &cap);
    }
    if (stat == NC_ENOFILTER) /* an unsupported blosc cname: keep it, unreadable */
        stat = NC_NOERR, v[n - 1].hdf5id = 0;
    if (stat) {
        ncz_codec_specs_free(&v, &n);
        return stat;
    }
    ncz_codec_specs_free(&zv->codecs, &zv->ncodecs);
    zv->codecs = v;
    zv->ncodecs = n;
    return sync_model_filters(var, v, n);
}

/* numcodecs JSON for one HDF5 filter of var (keys sorted, as zarr-python). */
static int
v2_json(NC4_var *var, const NC4_filter *fl, json_object **op)
{
    NCZ_var *zv = ncz_var(var);
    json_object *o = json_object_new_object();
    const unsigned *p = fl->params;
    size_t np = fl->nparams;
    if (o == NULL)
        return NC_ENOMEM;
    switch (fl->id) {
    case NCF_ID_DEFLATE:
        json_object_object_add(o, "id", json_object_new_string("zlib"));
        jadd_int(o, "level", np >= 1 ? p[0] : 6);
        break;
    case NCF_ID_SHUFFLE:
        jadd_int(o, "elementsize", np >= 1 && p[0] ? p[0] : (long long)zv->typesize);
        json_object_object_add(o, "id", json_object_new_string("shuffle"));
        break;
    case NCF_ID_FLETCHER32:
        json_object_object_add(o, "id", json_object_new_string("fletcher32"));
        break;
    case NCF_ID_SZIP:
        if (np < 2)
            goto bad;
        json_object_object_add(o, "id", json_object_new_string("szip"));
        jadd_int(o, "mask", p[0]);
        jadd_int(o, "pixels-per-block", p[1]);
        break;
    case NCF_ID_BZIP2:
        json_object_object_add(o, "id", json_object_new_string("bz2"));
        jadd_int(o, "level", np >= 1 ? p[0] : 9);
        break;
    case NCF_ID_ZSTD:
        json_object_object_add(o, "id", json_object_new_string("zstd"));
        jadd_int(o, "level", np >= 1 ? (int)p[0] : 3);
        break;
    case NCF_ID_BLOSC: {
        unsigned code = np >= 7 ? p[6] : 0;
        if (code >= NBLOSC)
            goto bad;
        jadd_int(o, "blocksize", np >= 4 ? p[3] : 0);
        jadd_int(o, "clevel", np >= 5 ? p[4] : 5);
        json_object_object_add(o, "cname", json_object_new_string(blosc_cnames[code]));
        json_object_object_add(o, "id", json_object_new_string("blosc"));
        jadd_int(o, "shuffle", np >= 6 ? p[5] : 1);
        break;
    }
    default:
        goto bad;
    }
    *op = o;
    return NC_NOERR;
bad:
    json_object_put(o);
    return NC_ENOFILTER;
}

/* Do the mapped codecs of zv->codecs equal var->filters (same ids, params)? */
static int
codecs_match_model(const NC4_var *var, const NCZ_var *zv)
{
    size_t k = 0;
    for (size_t i = 0; i < zv->ncodecs; i++) {
        const NCZ_codec_spec *s = &zv->codecs[i];
        if (s->hdf5id == 0)
            continue;
        if (k >= var->nfilters || var->filters[k].id != s->hdf5id)
            return 0;
        /* Parameters the wrappers complete (shuffle's size, blosc's hidden
         * ones) may differ in form; the id sequence is what matters. */
        k++;
    }
    return k == var->nfilters;
}

static int
codec_ok_for(const NC4_var *var, unsigned id)
{
    (void)var;
    switch (id) {
    case NCF_ID_DEFLATE: case NCF_ID_SHUFFLE: case NCF_ID_FLETCHER32: case NCF_ID_SZIP:
    case NCF_ID_BZIP2: case NCF_ID_ZSTD: case NCF_ID_BLOSC:
        return ncf_filter_avail(id) == NC_NOERR;
    default:
        return 0;
    }
}

int
ncz_codecs_to_json_v2(NC4_file *f, NC4_var *var, json_object **filtersp, json_object **compressorp)
{
    NCZ_var *zv = ncz_var(var);
    json_object *arr = NULL, *comp = NULL;
    int stat = NC_NOERR;
    (void)f;
    *filtersp = NULL;
    *compressorp = NULL;
    if (!(zv->ncodecs > 0 && codecs_match_model(var, zv))) {
        /* Rebuild the codecs from the model's filters. */
        NCZ_codec_spec *v = NULL;
        size_t n = 0, cap = 0;
        for (size_t i = 0; i < var->nfilters && !stat; i++) {
            json_object *o = NULL;
            NCZ_codec_spec *s;
            if ((stat = v2_json(var, &var->filters[i], &o)))
                break;
            if ((stat = push_spec(&v, &n, &cap, &s)) == NC_NOERR)
                stat = spec_from(var, jstr(o, "id"), o, o, 0, s);
            json_object_put(o);
        }
        if (stat) {
            ncz_codec_specs_free(&v, &n);
            return stat;
        }
        ncz_codec_specs_free(&zv->codecs, &zv->ncodecs);
        zv->codecs = v;
        zv->ncodecs = n;
    }
    if (zv->ncodecs == 0 && !zv->vlen_utf8)
        return NC_NOERR;
    /* The last codec is the compressor, the rest the filters (upstream's
     * split); "|O" strings start the filters with vlen-utf8. */
    if (zv->ncodecs > 0)
        comp = json_object_get(zv->codecs[zv->ncodecs - 1].json);
    if (zv->ncodecs > 1 || zv->vlen_utf8) {
        if ((arr = json_object_new_array()) == NULL) {
            json_object_put(comp);
            return NC_ENOMEM;
        }
        if (zv->vlen_utf8) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "id", json_object_new_string("vlen-utf8"));
            json_object_array_add(arr, o);
        }
        for (size_t i = 0; i + 1 < zv->ncodecs; i++)
            json_object_array_add(arr, json_object_get(zv->codecs[i].json));
    }
    *filtersp = arr;
    *compressorp = comp;
    return NC_NOERR;
}

int
ncz_check_filter(NC4_file *f, NC4_var *var, unsigned int id, size_t nparams, const unsigned int *params)
{
    if (!codec_ok_for(var, id))
        return NC_ENOFILTER;
    if (f != NULL && f->fmt != NULL && ncz_file(f)->zarr_format == 3 && id == NCF_ID_SZIP)
        return NC_ENOFILTER; /* no v3 codec carries szip */
    if (id == NCF_ID_BLOSC && nparams >= 7 && params != NULL && params[6] >= NBLOSC)
        return NC_EINVAL;
    if (id == NCF_ID_SZIP && nparams < 2)
        return NC_EINVAL;
    return NC_NOERR;
}

/* ---- v3 ------------------------------------------------------------------------------ */

static int
v3_name_conf(json_object *c, const char **namep, json_object **confp)
{
    if (json_object_is_type(c, json_type_string)) {
        /* A bare name is allowed for codecs without configuration. */
        *namep = json_object_get_string(c);
        *confp = NULL;
        return NC_NOERR;
    }
    if ((*namep = jstr(c, "name")) == NULL)
        return NC_ENCZARR;
    *confp = jget(c, "configuration");
    if (*confp != NULL && !json_object_is_type(*confp, json_type_object) &&
        !json_object_is_type(*confp, json_type_null))
        return NC_ENCZARR;
    return NC_NOERR;
}

static int
v3_endian(json_object *conf, int *big)
{
    const char *e = jstr(conf, "endian");
    *big = 0;
    if (e == NULL)
        return NC_NOERR; /* single-byte types may omit it */
    if (strcmp(e, "big") == 0)
        *big = 1;
    else if (strcmp(e, "little") != 0)
        return NC_ENCZARR;
    return NC_NOERR;
}

/* Parse a codec list: array->array (transpose), one array->bytes (bytes,
 * vlen-utf8 or sharding_indexed), bytes->bytes.  top: the array's own list
 * (sharding allowed); else the inner list of a shard. */
static int
v3_list(NC4_var *var, json_object *codecs, int top, NCZ_codec_spec **vp, size_t *np, int *bigp,
        int **permp)
{
    NCZ_var *zv = ncz_var(var);
    NCZ_codec_spec *v = NULL;
    size_t n = 0, cap = 0, len;
    int stat = NC_NOERR, seen_bytes = 0, *perm = NULL;
    if (codecs == NULL || !json_object_is_type(codecs, json_type_array))
        return NC_ENCZARR;
    len = json_object_array_length(codecs);
    for (size_t i = 0; i < len && !stat; i++) {
        json_object *c = json_object_array_get_idx(codecs, i), *conf;
        const char *name;
        if ((stat = v3_name_conf(c, &name, &conf)))
            break;
        if (strcmp(name, "transpose") == 0) {
            json_object *ord = jget(conf, "order");
            int nd = var->ndims;
            int *np2;
            if (seen_bytes || ord == NULL || !json_object_is_type(ord, json_type_array) ||
                (int)json_object_array_length(ord) != nd) {
                stat = NC_ENCZARR;
                break;
            }
            if ((np2 = calloc((size_t)nd + 1, sizeof(int))) == NULL) {
                stat = NC_ENOMEM;
                break;
            }
            for (int d = 0; d < nd && !stat; d++) {
                json_object *x = json_object_array_get_idx(ord, (size_t)d);
                long long o = json_object_is_type(x, json_type_int) ? json_object_get_int64(x) : -1;
                if (o < 0 || o >= nd)
                    stat = NC_ENCZARR;
                else
                    np2[d] = (int)o;
            }
            /* A permutation: every axis once. */
            for (int d = 0; d < nd && !stat; d++)
                for (int e = d + 1; e < nd; e++)
                    if (np2[d] == np2[e])
                        stat = NC_ENCZARR;
            if (stat) {
                free(np2);
                break;
            }
            if (perm != NULL) {
                /* Two transposes compose: the second permutes the first's output. */
                for (int d = 0; d < nd; d++)
                    np2[d] = perm[np2[d]];
                free(perm);
            }
            perm = np2;
            continue;
        }
        if (strcmp(name, "bytes") == 0 || strcmp(name, "vlen-utf8") == 0) {
            if (seen_bytes) {
                stat = NC_ENCZARR;
                break;
            }
            seen_bytes = 1;
            if (name[0] == 'b')
                stat = v3_endian(conf, bigp);
            else
                zv->vlen_utf8 = 1;
            continue;
        }
        if (strcmp(name, "sharding_indexed") == 0) {
            json_object *cs = jget(conf, "chunk_shape"), *ic = jget(conf, "codecs"),
                        *xc = jget(conf, "index_codecs");
            const char *loc = jstr(conf, "index_location");
            int ibig = 0, *iperm = NULL;
            if (!top || seen_bytes || perm != NULL || cs == NULL || ic == NULL ||
                !json_object_is_type(cs, json_type_array) ||
                (int)json_object_array_length(cs) != var->ndims) {
                stat = top ? NC_ENCZARR : NC_ENOFILTER; /* nested shards: not supported */
                break;
            }
            seen_bytes = 1;
            free(zv->inner_chunks);
            if ((zv->inner_chunks = calloc((size_t)var->ndims + 1, sizeof(size_t))) == NULL) {
                stat = NC_ENOMEM;
                break;
            }
            for (int d = 0; d < var->ndims && !stat; d++) {
                size_t ic1;
                if ((stat = ncz_json_size(json_object_array_get_idx(cs, (size_t)d), &ic1)) == NC_NOERR &&
                    ic1 == 0)
                    stat = NC_ENCZARR;
                zv->inner_chunks[d] = ic1;
            }
            if (stat)
                break;
            if (loc != NULL && strcmp(loc, "start") && strcmp(loc, "end")) {
                stat = NC_ENCZARR;
                break;
            }
            zv->index_at_start = loc != NULL && strcmp(loc, "start") == 0;
            ncz_codec_specs_free(&zv->inner_codecs, &zv->ninner_codecs);
            if ((stat = v3_list(var, ic, 0, &zv->inner_codecs, &zv->ninner_codecs, &ibig, &iperm)))
                break;
            if (iperm != NULL) {
                free(iperm);
                stat = NC_ENOFILTER; /* transpose inside a shard: not supported here */
                break;
            }
            zv->inner_bigendian = ibig;
            ncz_codec_specs_free(&zv->index_codecs, &zv->nindex_codecs);
            if (xc != NULL) {
                int xbig = 0, *xperm = NULL;
                if ((stat = v3_list(var, xc, 0, &zv->index_codecs, &zv->nindex_codecs, &xbig, &xperm)))
                    break;
                free(xperm);
                if (xbig)
                    stat = NC_ENOFILTER; /* a big-endian index: not supported */
                for (size_t k = 0; k < zv->nindex_codecs && !stat; k++)
                    if (strcmp(zv->index_codecs[k].name, "crc32c") != 0)
                        stat = NC_ENOFILTER;
            }
            zv->sharded = 1;
            continue;
        }
        /* bytes -> bytes */
        {
            NCZ_codec_spec *s;
            if (!seen_bytes) {
                stat = NC_ENCZARR;
                break;
            }
            if ((stat = push_spec(&v, &n, &cap, &s)))
                break;
            if (strncmp(name, "numcodecs.", 10) == 0 && strcmp(name + 10, "blosc") != 0)
                stat = spec_from(var, name + 10, c, conf, 0, s);
            else
                stat = spec_from(var, name, c, conf, 1, s);
            if (stat == NC_ENOFILTER)
                stat = NC_NOERR, s->hdf5id = 0;
        }
    }
    if (!stat && !seen_bytes)
        stat = NC_ENCZARR;
    if (stat) {
        ncz_codec_specs_free(&v, &n);
        free(perm);
        return stat;
    }
    *vp = v;
    *np = n;
    *permp = perm;
    return NC_NOERR;
}

int
ncz_codecs_from_json_v3(NC4_file *f, NC4_var *var, json_object *codecs)
{
    NCZ_var *zv = ncz_var(var);
    NCZ_codec_spec *v = NULL;
    size_t n = 0;
    int big = 0, *perm = NULL, stat;
    (void)f;
    zv->sharded = 0;
    if ((stat = v3_list(var, codecs, 1, &v, &n, &big, &perm)))
        return stat;
    ncz_codec_specs_free(&zv->codecs, &zv->ncodecs);
    zv->codecs = v;
    zv->ncodecs = n;
    free(zv->transpose);
    zv->transpose = perm;
    zv->bigendian = zv->sharded ? zv->inner_bigendian : big;
    /* For a sharded array the filters a user sees are those of the inner chunks. */
    if (zv->sharded)
        return sync_model_filters(var, zv->inner_codecs, zv->ninner_codecs);
    return sync_model_filters(var, v, n);
}

/* v3 JSON of one bytes->bytes codec spec (from its parameters). */
static json_object *
v3_codec_json(const NC4_var *var, unsigned id, size_t np, const unsigned *p)
{
    json_object *o = json_object_new_object(), *conf = json_object_new_object();
    const char *name = NULL;
    (void)var;
    switch (id) {
    case NCF_ID_ZSTD:
        name = "zstd";
        jadd_int(conf, "level", np >= 1 ? (int)p[0] : 3);
        json_object_object_add(conf, "checksum", json_object_new_boolean(0));
        break;
    case NCF_ID_BLOSC: {
        static const char *const sh[] = {"noshuffle", "shuffle", "bitshuffle"};
        unsigned code = np >= 7 ? p[6] : 0, s = np >= 6 ? p[5] : 1;
        if (code >= NBLOSC || s > 2)
            break;
        name = "blosc";
        json_object_object_add(conf, "cname", json_object_new_string(blosc_cnames[code]));
        jadd_int(conf, "clevel", np >= 5 ? p[4] : 5);
        json_object_object_add(conf, "shuffle", json_object_new_string(sh[s]));
        jadd_int(conf, "typesize", np >= 3 && p[2] ? p[2] : 1);
        jadd_int(conf, "blocksize", np >= 4 ? p[3] : 0);
        break;
    }
    case NCF_ID_DEFLATE:
        /* v3 has no zlib codec; gzip carries the same deflate stream. */
        name = "gzip";
        jadd_int(conf, "level", np >= 1 ? p[0] : 6);
        break;
    /* No core v3 codec: zarr-python 3's numcodecs.* names. */
    case NCF_ID_SHUFFLE:
        name = "numcodecs.shuffle";
        jadd_int(conf, "elementsize", np >= 1 && p[0] ? p[0] : (long long)ncz_var(var)->typesize);
        break;
    case NCF_ID_BZIP2:
        name = "numcodecs.bz2";
        jadd_int(conf, "level", np >= 1 ? p[0] : 9);
        break;
    case NCF_ID_FLETCHER32:
        name = "numcodecs.fletcher32";
        break;
    default:
        break;
    }
    if (name == NULL || o == NULL || conf == NULL) {
        json_object_put(o);
        json_object_put(conf);
        return NULL;
    }
    json_object_object_add(o, "name", json_object_new_string(name));
    if (json_object_object_length(conf) > 0)
        json_object_object_add(o, "configuration", conf);
    else
        json_object_put(conf);
    return o;
}

static json_object *
v3_bytes_json(int big)
{
    json_object *o = json_object_new_object(), *conf = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string("bytes"));
    json_object_object_add(conf, "endian", json_object_new_string(big ? "big" : "little"));
    json_object_object_add(o, "configuration", conf);
    return o;
}

/* Rebuild the bytes->bytes specs of a v3 list from var->filters: shuffle
 * folds into blosc when followed by it and is otherwise NC_ENOFILTER (v3
 * has no shuffle codec); fletcher32 becomes crc32c. */
static int
v3_rebuild(NC4_var *var, NCZ_codec_spec **vp, size_t *np)
{
    NCZ_codec_spec *v = NULL;
    size_t n = 0, cap = 0;
    int stat = NC_NOERR;
    for (size_t i = 0; i < var->nfilters && !stat; i++) {
        const NC4_filter *fl = &var->filters[i];
        json_object *o;
        NCZ_codec_spec *s;
        unsigned id = fl->id;
        if ((o = v3_codec_json(var, id, fl->nparams, fl->params)) == NULL) {
            stat = NC_ENOFILTER;
            break;
        }
        if ((stat = push_spec(&v, &n, &cap, &s)) == NC_NOERR) {
            const char *nm = jstr(o, "name");
            int plain = strncmp(nm, "numcodecs.", 10) == 0;
            stat = spec_from(var, plain ? nm + 10 : nm, o, jget(o, "configuration"), !plain, s);
        }
        json_object_put(o);
    }
    if (stat) {
        ncz_codec_specs_free(&v, &n);
        return stat;
    }
    *vp = v;
    *np = n;
    return NC_NOERR;
}

/* Inner chunks per shard along each axis asked for new v3 arrays: env
 * NCZARR_SHARD=k, else 4 when the #mode= list has "shard"; 0: no sharding. */
static size_t
shard_factor(NC4_file *f)
{
    const char *e = getenv("NCZARR_SHARD"), *m;
    NCZ_file *zf = f ? ncz_file(f) : NULL;
    if (e != NULL && *e) {
        long v = strtol(e, NULL, 10);
        return v > 0 && v < 65536 ? (size_t)v : 0;
    }
    if (zf == NULL || (m = zf->modelist) == NULL)
        return 0;
    for (const char *p = strstr(m, "shard"); p; p = strstr(p + 1, "shard"))
        if ((p == m || p[-1] == ',') && (p[5] == '\0' || p[5] == ','))
            return 4;
    return 0;
}

/* Make a new array sharded: the user's chunks become the inner chunks,
 * var->chunksizes the shard (k inner chunks per axis, clipped to the
 * array); the index gets a crc32c. */
static int
make_sharded(NC4_var *var, size_t k)
{
    NCZ_var *zv = ncz_var(var);
    json_object *o;
    int stat;
    if ((zv->inner_chunks = calloc((size_t)var->ndims, sizeof(size_t))) == NULL)
        return NC_ENOMEM;
    for (int d = 0; d < var->ndims; d++) {
        size_t c = var->chunksizes[d], len = var->dims[d]->len, n;
        if (c == 0) {
            free(zv->inner_chunks);
            zv->inner_chunks = NULL;
            return NC_NOERR; /* chunking not settled: leave it */
        }
        n = len ? (len + c - 1) / c : 1;
        zv->inner_chunks[d] = c;
        var->chunksizes[d] = c * (n < k ? n : k);
    }
    zv->inner_codecs = zv->codecs;
    zv->ninner_codecs = zv->ncodecs;
    zv->codecs = NULL;
    zv->ncodecs = 0;
    zv->inner_bigendian = zv->bigendian;
    zv->index_at_start = 0;
    if ((o = json_tokener_parse("{\"name\": \"crc32c\"}")) == NULL)
        return NC_ENOMEM;
    zv->index_codecs = calloc(1, sizeof(NCZ_codec_spec));
    if (zv->index_codecs == NULL) {
        json_object_put(o);
        return NC_ENOMEM;
    }
    stat = spec_from(var, "crc32c", o, NULL, 1, &zv->index_codecs[0]);
    json_object_put(o);
    zv->nindex_codecs = 1;
    zv->sharded = 1;
    return stat;
}

int
ncz_codecs_to_json_v3(NC4_file *f, NC4_var *var, json_object **codecsp)
{
    NCZ_var *zv = ncz_var(var);
    json_object *arr;
    size_t k;
    if (!zv->sharded && !var->created && var->ndims > 0 && var->chunksizes != NULL &&
        zv->transpose == NULL && (k = shard_factor(f)) > 0) {
        int st = make_sharded(var, k);
        if (st)
            return st;
    }
    NCZ_codec_spec **cur = zv->sharded ? &zv->inner_codecs : &zv->codecs;
    size_t *ncur = zv->sharded ? &zv->ninner_codecs : &zv->ncodecs;
    int stat;
    *codecsp = NULL;
    if (!(*ncur > 0 && codecs_match_model(var, &(NCZ_var){.codecs = *cur, .ncodecs = *ncur}))) {
        NCZ_codec_spec *v = NULL;
        size_t n = 0;
        if ((stat = v3_rebuild(var, &v, &n)))
            return stat;
        ncz_codec_specs_free(cur, ncur);
        *cur = v;
        *ncur = n;
    }
    if ((arr = json_object_new_array()) == NULL)
        return NC_ENOMEM;
    if (zv->transpose != NULL && !zv->sharded) {
        json_object *o = json_object_new_object(), *conf = json_object_new_object(),
                    *ord = json_object_new_array();
        for (int d = 0; d < var->ndims; d++)
            json_object_array_add(ord, json_object_new_int(zv->transpose[d]));
        json_object_object_add(conf, "order", ord);
        json_object_object_add(o, "name", json_object_new_string("transpose"));
        json_object_object_add(o, "configuration", conf);
        json_object_array_add(arr, o);
    }
    if (zv->sharded) {
        json_object *o = json_object_new_object(), *conf = json_object_new_object(),
                    *cs = json_object_new_array(), *inner = json_object_new_array(),
                    *idx = json_object_new_array();
        for (int d = 0; d < var->ndims; d++)
            json_object_array_add(cs, json_object_new_int64((int64_t)zv->inner_chunks[d]));
        json_object_object_add(conf, "chunk_shape", cs);
        if (zv->vlen_utf8) {
            json_object *vo = json_object_new_object();
            json_object_object_add(vo, "name", json_object_new_string("vlen-utf8"));
            json_object_array_add(inner, vo);
        } else {
            json_object_array_add(inner, v3_bytes_json(zv->inner_bigendian));
        }
        for (size_t i = 0; i < zv->ninner_codecs; i++)
            json_object_array_add(inner, json_object_get(zv->inner_codecs[i].json));
        json_object_object_add(conf, "codecs", inner);
        json_object_array_add(idx, v3_bytes_json(0));
        for (size_t i = 0; i < zv->nindex_codecs; i++)
            json_object_array_add(idx, json_object_get(zv->index_codecs[i].json));
        json_object_object_add(conf, "index_codecs", idx);
        json_object_object_add(conf, "index_location",
                               json_object_new_string(zv->index_at_start ? "start" : "end"));
        json_object_object_add(o, "name", json_object_new_string("sharding_indexed"));
        json_object_object_add(o, "configuration", conf);
        json_object_array_add(arr, o);
    } else if (zv->vlen_utf8) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string("vlen-utf8"));
        json_object_array_add(arr, o);
    } else {
        json_object_array_add(arr, v3_bytes_json(zv->bigendian));
    }
    if (!zv->sharded)
        for (size_t i = 0; i < zv->ncodecs; i++)
            json_object_array_add(arr, json_object_get(zv->codecs[i].json));
    *codecsp = arr;
    return NC_NOERR;
}
