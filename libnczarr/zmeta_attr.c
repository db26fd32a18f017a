/* zmeta_attr.c: attributes and fill values between JSON and the model.
 *
 * Writing follows upstream's convention (docs/nczarr.md, Appendix C): one
 * value -> a JSON scalar, several -> an array; NC_CHAR -> a JSON string,
 * or the parsed JSON itself (type "|J0") when the text is a JSON object or
 * array; floats' NaN/Inf -> "NaN"/"Infinity"/"-Infinity".  Reading uses the
 * NCZarr type dict when there is one, else infers the type as upstream
 * (integers: int, then uint, int64, uint64 by range; reals: double; bool:
 * ubyte; a string: char; strings of one character each: char, else string;
 * anything else: the JSON text as char).
 */
#include "config.h"
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zmeta.h"

/* ---- JSON -> values ------------------------------------------------------------ */

static int
is_special_float(const char *s, double *dp)
{
    if (strcmp(s, "NaN") == 0) { *dp = NAN; return 1; }
    if (strcmp(s, "Infinity") == 0) { *dp = INFINITY; return 1; }
    if (strcmp(s, "-Infinity") == 0) { *dp = -INFINITY; return 1; }
    return 0;
}

/* One JSON scalar -> one value of numeric xtype at dst. */
static int
scalar_to_value(json_object *v, nc_type xtype, void *dst)
{
    double d = 0;
    long long i = 0;
    unsigned long long u = 0;
    int isint = 0, isuint = 0;

    switch (json_object_get_type(v)) {
    case json_type_int:
        i = (long long)json_object_get_int64(v);
        u = (unsigned long long)json_object_get_uint64(v);
        if (i < 0 || u <= (unsigned long long)INT64_MAX)
            isint = 1;
        else
            isuint = 1;
        d = isuint ? (double)u : (double)i;
        break;
    case json_type_double: d = json_object_get_double(v); break;
    case json_type_boolean: i = json_object_get_boolean(v); d = (double)i; isint = 1; break;
    case json_type_string: {
        const char *s = json_object_get_string(v);
        char *end;
        if (!is_special_float(s, &d)) {
            d = strtod(s, &end);
            if (end == s || *end)
                return NC_ENCZARR;
        }
        break;
    }
    default: return NC_ENCZARR;
    }
    if (!isint && !isuint) {
        /* A real into an integer type: C's conversion, guarded. */
        if (xtype != NC_FLOAT && xtype != NC_DOUBLE) {
            if (isnan(d)) d = 0;
            if (d < -9.2e18) d = -9.2e18;
            if (d > 1.8e19) d = 1.8e19;
            if (d >= 9.2e18) { u = (unsigned long long)d; isuint = 1; }
            else { i = (long long)d; isint = 1; }
        }
    }
    switch (xtype) {
    case NC_BYTE: *(signed char *)dst = (signed char)(isuint ? (long long)u : i); break;
    case NC_UBYTE: *(unsigned char *)dst = (unsigned char)(isuint ? u : (unsigned long long)i); break;
    case NC_SHORT: *(short *)dst = (short)(isuint ? (long long)u : i); break;
    case NC_USHORT: *(unsigned short *)dst = (unsigned short)(isuint ? u : (unsigned long long)i); break;
    case NC_INT: *(int *)dst = (int)(isuint ? (long long)u : i); break;
    case NC_UINT: *(unsigned int *)dst = (unsigned int)(isuint ? u : (unsigned long long)i); break;
    case NC_INT64: *(long long *)dst = isuint ? (long long)u : i; break;
    case NC_UINT64: *(unsigned long long *)dst = isuint ? u : (unsigned long long)i; break;
    case NC_FLOAT: *(float *)dst = (float)d; break;
    case NC_DOUBLE: *(double *)dst = d; break;
    default: return NC_EBADTYPE;
    }
    return NC_NOERR;
}

/* JSON (scalar or array) -> len values of xtype (malloc'ed, deep). */
static int
json_to_values(json_object *v, nc_type xtype, size_t *lenp, void **datap)
{
    size_t n, esize = nc4_type_size(NULL, xtype);
    int isarr = json_object_is_type(v, json_type_array);
    char *buf = NULL;

    *lenp = 0;
    *datap = NULL;
    if (xtype == NC_CHAR) {
        /* A string is its characters; an array of strings their
         * concatenation; any other JSON its text. */
        size_t total = 0;
        if (v == NULL)
            return NC_NOERR;
        if (json_object_is_type(v, json_type_string)) {
            total = (size_t)json_object_get_string_len(v);
            if (total && (buf = malloc(total)) == NULL)
                return NC_ENOMEM;
            if (total)
                memcpy(buf, json_object_get_string(v), total);
        } else {
            int allstr = isarr;
            for (size_t k = 0; isarr && k < json_object_array_length(v); k++)
                if (!json_object_is_type(json_object_array_get_idx(v, k), json_type_string))
                    allstr = 0;
            if (allstr) {
                for (size_t k = 0; k < json_object_array_length(v); k++)
                    total += (size_t)json_object_get_string_len(json_object_array_get_idx(v, k));
                if (total && (buf = malloc(total)) == NULL)
                    return NC_ENOMEM;
                total = 0;
                for (size_t k = 0; k < json_object_array_length(v); k++) {
                    json_object *e = json_object_array_get_idx(v, k);
                    size_t l = (size_t)json_object_get_string_len(e);
                    memcpy(buf + total, json_object_get_string(e), l);
                    total += l;
                }
            } else {
                /* the JSON's text in upstream's layout, so a value written
                 * as `{"k": [1,2]}` reads back as written */
                int st = ncz_json_attr_text(v, &buf);
                if (st)
                    return st;
                total = strlen(buf);
            }
        }
        *lenp = total;
        *datap = buf;
        return NC_NOERR;
    }
    n = isarr ? json_object_array_length(v) : 1;
    if (n == 0)
        return NC_NOERR;
    if (esize == 0)
        return NC_EBADTYPE;
    if ((buf = calloc(n, esize)) == NULL)
        return NC_ENOMEM;
    for (size_t k = 0; k < n; k++) {
        json_object *e = isarr ? json_object_array_get_idx(v, k) : v;
        int stat;
        if (xtype == NC_STRING) {
            const char *s = e == NULL ? "" : json_object_is_type(e, json_type_string)
                                                 ? json_object_get_string(e)
                                                 : ncz_json_text(e);
            if ((((char **)buf)[k] = strdup(s ? s : "")) == NULL) {
                nc4_reclaim_values(NULL, NC_STRING, buf, k);
                free(buf);
                return NC_ENOMEM;
            }
            continue;
        }
        if ((stat = scalar_to_value(e, xtype, buf + k * esize))) {
            free(buf);
            return stat;
        }
    }
    *lenp = n;
    *datap = buf;
    return NC_NOERR;
}

/* Upstream's integer inference: int, then uint, int64, uint64. */
static nc_type
infer_int(json_object *v)
{
    long long i = (long long)json_object_get_int64(v);
    unsigned long long u = (unsigned long long)json_object_get_uint64(v);
    if (i >= 0 && u > (unsigned long long)INT64_MAX)
        return NC_UINT64;
    if (i < 0)
        return i >= NC_MIN_INT ? NC_INT : NC_INT64;
    if (i <= NC_MAX_INT)
        return NC_INT;
    if (i <= (long long)NC_MAX_UINT)
        return NC_UINT;
    return NC_INT64;
}

static int
rank_of(nc_type t)
{
    switch (t) {
    case NC_UBYTE: return 0;
    case NC_INT: return 1;
    case NC_UINT: return 2;
    case NC_INT64: return 3;
    case NC_UINT64: return 4;
    case NC_DOUBLE: return 5;
    default: return 6;
    }
}

static nc_type
infer_type(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_int: return infer_int(v);
    case json_type_double: return NC_DOUBLE;
    case json_type_boolean: return NC_UBYTE;
    case json_type_string: return NC_CHAR;
    case json_type_array: {
        size_t n = json_object_array_length(v);
        nc_type t = NC_NAT;
        int allchar1 = n > 0, anystr = 0;
        if (n == 0)
            return NC_CHAR;
        for (size_t k = 0; k < n; k++) {
            json_object *e = json_object_array_get_idx(v, k);
            if (json_object_is_type(e, json_type_string)) {
                double d;
                if (is_special_float(json_object_get_string(e), &d)) {
                    t = NC_DOUBLE; /* NaN/Infinity among numbers */
                    continue;
                }
                anystr = 1;
                if (json_object_get_string_len(e) != 1)
                    allchar1 = 0;
                continue;
            }
            allchar1 = 0;
            if (json_object_is_type(e, json_type_array) || json_object_is_type(e, json_type_object) ||
                e == NULL)
                return NC_CHAR; /* nested: keep the JSON text */
            {
                nc_type te = infer_type(e);
                /* Widest of the elements (upstream takes the first one's type;
                 * [1, 2.5] would lose the .5). */
                if (t == NC_NAT || rank_of(te) > rank_of(t))
                    t = te;
                if ((t == NC_UINT64 && te == NC_INT64) || (t == NC_INT64 && te == NC_UINT64))
                    t = NC_DOUBLE;
            }
        }
        if (anystr)
            return t == NC_NAT ? (allchar1 ? NC_CHAR : NC_STRING) : NC_CHAR;
        return t;
    }
    default: return NC_CHAR; /* dict or null: the JSON text */
    }
}

static int
is_reserved_key(const char *name)
{
    static const char *const skip[] = {NCZ_SUPERBLOCK, NCZ_GROUP, NCZ_ARRAY, NCZ_ATTR, NCZ_ATTRS_NEW,
                                       "_NCZARR_SUPERBLOCK", "_NCZARR_GROUP", "_NCZARR_ARRAY",
                                       "_NCZARR_ATTR", NCZ_XARRAY_DIMS, "_NCProperties"};
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strcmp(name, skip[i]) == 0)
            return 1;
    return 0;
}

int
ncz_atts_decode(NC4_file *f, NC4_grp *g, NC4_var *var, json_object *attrs, json_object *types)
{
    int stat = NC_NOERR;
    if (attrs == NULL)
        return NC_NOERR;
    if (!json_object_is_type(attrs, json_type_object))
        return NC_ENCZARR;
    json_object_object_foreach(attrs, name, val) {
        nc_type xtype = NC_NAT;
        size_t len = 0;
        void *data = NULL;
        const char *dtype;

        if (is_reserved_key(name)) {
            if (!var && !g->parent && strcmp(name, "_NCProperties") == 0 &&
                json_object_is_type(val, json_type_string) && f->ncproperties == NULL)
                f->ncproperties = strdup(json_object_get_string(val));
            continue;
        }
        if (ncz_check_name(name))
            continue; /* a key netCDF cannot name (e.g. containing '/') */
        dtype = types ? ncz_json_string(types, name) : NULL;
        if (dtype) {
            int endian;
            size_t width;
            if (strcmp(dtype, NCZ_JSON_DTYPE) == 0)
                xtype = NC_CHAR;
            else if ((stat = ncz_dtype_v2_parse(dtype, &xtype, &endian, &width)))
                return stat;
        } else if (var && strcmp(name, NC_FillValue) == 0) {
            xtype = var->xtype; /* the variable's type, as upstream's hint */
        } else {
            xtype = infer_type(val);
        }
        if ((stat = json_to_values(val, xtype, &len, &data)) == NC_ENCZARR && xtype != NC_CHAR) {
            /* A value that does not fit the type it claims: keep its JSON
             * text rather than refuse the whole store. */
            xtype = NC_CHAR;
            stat = json_to_values(val, xtype, &len, &data);
        }
        if (stat)
            return stat;
        if (var && strcmp(name, NC_FillValue) == 0) {
            /* The Zarr fill_value decides the fill; the attribute stays as
             * read unless it disagrees in type or length. */
            if (xtype != var->xtype || len != 1) {
                nc4_reclaim_values(f, xtype, data, len);
                free(data);
                continue;
            }
        }
        stat = nc4_set_att(g, var, name, xtype, len, data, NULL);
        nc4_reclaim_values(f, xtype, data, len);
        free(data);
        if (stat == NC_ENAMEINUSE)
            stat = NC_NOERR;
        if (stat)
            return stat;
    }
    return NC_NOERR;
}

/* ---- values -> JSON ---------------------------------------------------------------- */

static json_object *
real_json(double d, int isfloat)
{
    char buf[40];
    if (isnan(d))
        return json_object_new_string("NaN");
    if (isinf(d))
        return json_object_new_string(d > 0 ? "Infinity" : "-Infinity");
    /* Shortest text that reads back to the same value, always with a '.'
     * or exponent so readers keep it real. */
    for (int p = isfloat ? 6 : 15; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, d);
        if (isfloat ? (float)strtod(buf, NULL) == (float)d : strtod(buf, NULL) == d)
            break;
    }
    if (!strpbrk(buf, ".eEn"))
        strcat(buf, ".0");
    return json_object_new_double_s(d, buf);
}

static json_object *
value_json(nc_type xtype, const void *p)
{
    switch (xtype) {
    case NC_BYTE: return json_object_new_int(*(const signed char *)p);
    case NC_UBYTE: return json_object_new_int(*(const unsigned char *)p);
    case NC_SHORT: return json_object_new_int(*(const short *)p);
    case NC_USHORT: return json_object_new_int(*(const unsigned short *)p);
    case NC_INT: return json_object_new_int(*(const int *)p);
    case NC_UINT: return json_object_new_int64(*(const unsigned int *)p);
    case NC_INT64: return json_object_new_int64(*(const long long *)p);
    case NC_UINT64: return json_object_new_uint64(*(const unsigned long long *)p);
    case NC_FLOAT: return real_json(*(const float *)p, 1);
    case NC_DOUBLE: return real_json(*(const double *)p, 0);
    case NC_STRING: {
        const char *s = *(char *const *)p;
        return json_object_new_string(s ? s : "");
    }
    default: return NULL;
    }
}

/* Does the text parse as a JSON object or array (upstream's "complex JSON")? */
static json_object *
complex_json(const char *text, size_t len)
{
    json_object *o = NULL;
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
        i++;
    if (i == len || (text[i] != '{' && text[i] != '['))
        return NULL;
    if (ncz_json_parse(text, len, &o))
        return NULL;
    if (o && !json_object_is_type(o, json_type_object) && !json_object_is_type(o, json_type_array)) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

int
ncz_atts_encode(NC4_file *f, NC4_grp *g, NC4_var *var, json_object **attrsp, json_object **typesp)
{
    NC4_index *atts = var ? &var->atts : &g->atts;
    json_object *attrs = json_object_new_object();
    json_object *types = typesp ? json_object_new_object() : NULL;
    int stat = NC_NOERR;
    NCZ_var *zv = var ? ncz_var(var) : NULL;

    if (attrs == NULL || (typesp && types == NULL)) {
        stat = NC_ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < atts->n; i++) {
        NC4_att *a = (NC4_att *)atts->items[i];
        json_object *jv = NULL;
        char dtype[32];
        if (a->xtype > NC_MAX_ATOMIC_TYPE) {
            stat = NC_ENCZARR;
            goto fail;
        }
        if (a->xtype == NC_CHAR) {
            jv = complex_json(a->data ? a->data : "", a->len);
            if (jv) {
                strcpy(dtype, NCZ_JSON_DTYPE);
            } else {
                /* Up to the first NUL, as the text a reader expects. */
                size_t n = a->len;
                const char *s = a->data ? a->data : "";
                const char *z = memchr(s, '\0', n);
                if (z) n = (size_t)(z - s);
                jv = json_object_new_string_len(s, (int)n);
                strcpy(dtype, ">S1");
            }
        } else {
            size_t esize = nc4_type_size(f, a->xtype);
            if (a->len == 1) {
                jv = value_json(a->xtype, a->data);
            } else {
                jv = json_object_new_array_ext((int)a->len);
                for (size_t k = 0; jv && k < a->len; k++)
                    if ((stat = ncz_json_append(jv, value_json(a->xtype, (char *)a->data + k * esize))))
                        goto fail_jv;
            }
            ncz_dtype_v2_make(a->xtype, NC_ENDIAN_LITTLE,
                              a->xtype == NC_STRING
                                  ? (zv && zv->maxstrlen ? zv->maxstrlen
                                                         : ncz_file(f)->default_maxstrlen)
                                  : 0,
                              dtype);
        }
        if (jv == NULL) {
            stat = NC_ENOMEM;
            goto fail;
        }
        if ((stat = ncz_json_add(attrs, a->hdr.name, jv)))
            goto fail;
        if (types && (stat = ncz_json_add(types, a->hdr.name, json_object_new_string(dtype))))
            goto fail;
        continue;
    fail_jv:
        json_object_put(jv);
        goto fail;
    }
    *attrsp = attrs;
    if (typesp)
        *typesp = types;
    return NC_NOERR;
fail:
    json_object_put(attrs);
    json_object_put(types);
    return stat;
}

/* ---- fill values ------------------------------------------------------------------ */

static int
set_fill(NC4_file *f, NC4_var *var, const void *value)
{
    size_t esize = nc4_type_size(f, var->xtype);
    void *copy = calloc(1, esize ? esize : 1);
    int stat;
    if (copy == NULL)
        return NC_ENOMEM;
    if ((stat = nc4_copy_values(f, var->xtype, value, copy, 1))) {
        free(copy);
        return stat;
    }
    if (var->fill_value) {
        nc4_reclaim_values(f, var->xtype, var->fill_value, 1);
        free(var->fill_value);
    }
    var->fill_value = copy;
    var->no_fill = 0;
    /* The _FillValue attribute mirrors it (upstream's "dual" attribute)
     * only where the array's attributes hold one: as upstream 4.10.1, none
     * is made up from the Zarr fill_value (zarr-python's default 0 would
     * otherwise mask real zeros for netCDF readers). */
    if (nc4_index_find(&var->atts, NC_FillValue))
        return nc4_set_att(var->grp, var, NC_FillValue, var->xtype, 1, value, NULL);
    return NC_NOERR;
}

/* NC_ERANGE when the JSON fill value jfill cannot be a value of the numeric
 * xtype (as upstream's conversion: out of range, or NaN/Infinity for an
 * integer type); reals are truncated toward zero otherwise. */
static int
fill_range_check(json_object *jfill, nc_type xtype)
{
    double lo, hi, d;
    int isreal = xtype == NC_FLOAT || xtype == NC_DOUBLE;

    switch (xtype) {
    case NC_BYTE: lo = -128.0; hi = 127.0; break;
    case NC_UBYTE: lo = 0.0; hi = 255.0; break;
    case NC_SHORT: lo = -32768.0; hi = 32767.0; break;
    case NC_USHORT: lo = 0.0; hi = 65535.0; break;
    case NC_INT: lo = -2147483648.0; hi = 2147483647.0; break;
    case NC_UINT: lo = 0.0; hi = 4294967295.0; break;
    case NC_INT64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    case NC_UINT64: lo = 0.0; hi = 18446744073709551615.0; break;
    case NC_FLOAT: lo = -FLT_MAX; hi = FLT_MAX; break;
    default: return NC_NOERR;
    }
    switch (json_object_get_type(jfill)) {
    case json_type_int: {
        int64_t i = json_object_get_int64(jfill);
        uint64_t u = json_object_get_uint64(jfill);
        if (isreal)
            return NC_NOERR;
        if (i >= 0 && u > (uint64_t)INT64_MAX) /* above INT64_MAX */
            return xtype == NC_UINT64 ? NC_NOERR : NC_ERANGE;
        if (xtype == NC_INT64)
            return NC_NOERR;
        if (xtype == NC_UINT64)
            return i < 0 ? NC_ERANGE : NC_NOERR;
        return ((double)i < lo || (double)i > hi) ? NC_ERANGE : NC_NOERR;
    }
    case json_type_double:
        d = json_object_get_double(jfill);
        break;
    case json_type_string:
        if (!is_special_float(json_object_get_string(jfill), &d))
            return NC_NOERR; /* the parser decides (hex patterns, bad text) */
        break;
    default:
        return NC_NOERR;
    }
    if (isnan(d) || isinf(d))
        return isreal ? NC_NOERR : NC_ERANGE;
    if (xtype == NC_DOUBLE)
        return NC_NOERR;
    /* the largest int64/uint64 round up to 2^63 / 2^64 as doubles */
    if ((xtype == NC_INT64 || xtype == NC_UINT64) ? (d < lo || d >= hi) : (d < lo || d > hi))
        return NC_ERANGE;
    return NC_NOERR;
}

int
ncz_fill_decode(NC4_file *f, NC4_var *var, json_object *jfill, int v3)
{
    unsigned char val[8];
    int stat;

    if (jfill == NULL) {
        var->no_fill = 1;
        return NC_NOERR;
    }
    if (var->xtype == NC_STRING || var->xtype == NC_CHAR) {
        char *s = NULL;
        const char *t;
        /* v2 "|O" strings (width 0) hold their fill as is; zarr-python's
         * default fill 0 there is no string: none (reads as ""). */
        int obj = !v3 && var->xtype == NC_STRING && ncz_var(var) && ncz_var(var)->maxstrlen == 0;
        if (json_object_is_type(jfill, json_type_int) && var->xtype == NC_CHAR) {
            int64_t b = json_object_get_int64(jfill);
            char c;
            if (b < -128 || b > 255)
                return NC_ERANGE;
            c = (char)b;
            return set_fill(f, var, &c);
        }
        if (obj && json_object_is_type(jfill, json_type_int))
            return NC_NOERR;
        if (!json_object_is_type(jfill, json_type_string))
            return NC_ENCZARR;
        t = json_object_get_string(jfill);
        if (!v3 && !obj) {
            /* Zarr v2 stores fixed-width bytes' fill in base64. */
            unsigned char *dec = NULL;
            size_t dlen = 0;
            if (ncz_base64_decode(t, &dec, &dlen) == NC_NOERR) {
                if ((s = calloc(1, dlen + 1)) == NULL) {
                    free(dec);
                    return NC_ENOMEM;
                }
                memcpy(s, dec, dlen);
                free(dec);
            }
        }
        if (s == NULL && (s = strdup(t)) == NULL)
            return NC_ENOMEM;
        if (var->xtype == NC_CHAR)
            stat = set_fill(f, var, s);
        else
            stat = set_fill(f, var, &s);
        free(s);
        return stat;
    }
    memset(val, 0, sizeof val);
    if (v3 && json_object_is_type(jfill, json_type_string) &&
        strncmp(json_object_get_string(jfill), "0x", 2) == 0) {
        /* A bit pattern of the element, big-endian hex digits. */
        const char *h = json_object_get_string(jfill) + 2;
        size_t esize = nc4_type_size(f, var->xtype);
        unsigned long long bits;
        char *end;
        if (strlen(h) != 2 * esize)
            return NC_ENCZARR;
        bits = strtoull(h, &end, 16);
        if (*end)
            return NC_ENCZARR;
        if (esize == 4) {
            uint32_t b = (uint32_t)bits;
            memcpy(val, &b, 4);
        } else if (esize == 8) {
            memcpy(val, &bits, 8);
        } else if (esize == 2) {
            uint16_t b = (uint16_t)bits;
            memcpy(val, &b, 2);
        } else {
            val[0] = (unsigned char)bits;
        }
        return set_fill(f, var, val);
    }
    if ((stat = fill_range_check(jfill, var->xtype)) ||
        (stat = scalar_to_value(jfill, var->xtype, val)))
        return stat;
    return set_fill(f, var, val);
}

/* The netCDF default fill of an atomic type. */
static void
default_fill(nc_type t, void *p)
{
    switch (t) {
    case NC_BYTE: *(signed char *)p = NC_FILL_BYTE; break;
    case NC_CHAR: *(char *)p = NC_FILL_CHAR; break;
    case NC_UBYTE: *(unsigned char *)p = NC_FILL_UBYTE; break;
    case NC_SHORT: *(short *)p = NC_FILL_SHORT; break;
    case NC_USHORT: *(unsigned short *)p = NC_FILL_USHORT; break;
    case NC_INT: *(int *)p = NC_FILL_INT; break;
    case NC_UINT: *(unsigned int *)p = NC_FILL_UINT; break;
    case NC_INT64: *(long long *)p = NC_FILL_INT64; break;
    case NC_UINT64: *(unsigned long long *)p = NC_FILL_UINT64; break;
    case NC_FLOAT: *(float *)p = NC_FILL_FLOAT; break;
    case NC_DOUBLE: *(double *)p = NC_FILL_DOUBLE; break;
    case NC_STRING: *(const char **)p = ""; break;
    default: break;
    }
}

int
ncz_fill_encode(NC4_file *f, NC4_var *var, int v3, json_object **jfillp)
{
    unsigned char def[8];
    const void *p = var->fill_value;
    (void)f;
    *jfillp = NULL;
    if (var->no_fill)
        return NC_NOERR;
    if (p == NULL) {
        default_fill(var->xtype, def);
        p = def;
    }
    if (var->xtype == NC_CHAR) {
        if (v3) {
            *jfillp = json_object_new_int(*(const unsigned char *)p);
        } else {
            char *b = ncz_base64_encode(p, 1);
            if (b == NULL)
                return NC_ENOMEM;
            *jfillp = json_object_new_string(b);
            free(b);
        }
    } else if (var->xtype == NC_STRING) {
        const char *s = *(char *const *)p;
        if (s == NULL)
            s = "";
        if (v3 || (ncz_var(var) && ncz_var(var)->vlen_utf8)) { /* v3, v2 "|O": as is */
            *jfillp = json_object_new_string(s);
        } else {
            char *b = ncz_base64_encode((const unsigned char *)s, strlen(s));
            if (b == NULL)
                return NC_ENOMEM;
            *jfillp = json_object_new_string(b);
            free(b);
        }
    } else {
        *jfillp = value_json(var->xtype, p);
    }
    return *jfillp ? NC_NOERR : NC_ENOMEM;
}
