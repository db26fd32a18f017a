/* zutil.c: keys of groups, Zarr data types <-> nc_type, names read from a
 * store, base64, and the fresh per-object state. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zmeta.h"

int
ncz_key_join(const char *key, const char *name, char **outp)
{
    size_t a = strlen(key), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (s == NULL)
        return NC_ENOMEM;
    memcpy(s, key, a);
    s[a] = '/';
    memcpy(s + a + 1, name, b + 1);
    *outp = s;
    return NC_NOERR;
}

int
ncz_grp_key(const NC4_grp *g, char **keyp)
{
    size_t len = 0;
    char *s;
    for (const NC4_grp *p = g; p->parent; p = p->parent)
        len += strlen(p->hdr.name) + 1;
    if ((s = malloc(len + 1)) == NULL)
        return NC_ENOMEM;
    s[len] = '\0';
    for (const NC4_grp *p = g; p->parent; p = p->parent) {
        size_t n = strlen(p->hdr.name);
        len -= n;
        memcpy(s + len, p->hdr.name, n);
        s[--len] = '/';
    }
    *keyp = s;
    return NC_NOERR;
}

int
ncz_check_name(const char *name)
{
    /* A key component: not empty, no '/', not "." or "..", no control bytes. */
    if (name == NULL || !*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
        strcmp(name, "..") == 0 || strlen(name) > NC_MAX_NAME)
        return NC_EBADNAME;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return NC_EBADNAME;
    return NC_NOERR;
}

/* ---- v2 dtypes ------------------------------------------------------------ */

int
ncz_dtype_v2_parse(const char *dtype, nc_type *xtypep, int *endianp, size_t *widthp)
{
    char kind;
    const char *p = dtype;
    unsigned long n;
    char *end;
    int endian = NC_ENDIAN_NATIVE;

    if (dtype == NULL)
        return NC_ENCZARR;
    /* NCZarr's markers first (upstream's special cases). */
    if (strcmp(dtype, ">S1") == 0) {
        *xtypep = NC_CHAR;
        *endianp = NC_ENDIAN_NATIVE;
        *widthp = 1;
        return NC_NOERR;
    }
    if (strcmp(dtype, "|O") == 0) { /* numpy objects: vlen-utf8 strings (width 0) */
        *xtypep = NC_STRING;
        *endianp = NC_ENDIAN_NATIVE;
        *widthp = 0;
        return NC_NOERR;
    }
    switch (*p) {
    case '<': endian = NC_ENDIAN_LITTLE; p++; break;
    case '>': endian = NC_ENDIAN_BIG; p++; break;
    case '|': p++; break;
    default: break;
    }
    kind = *p++;
    if (kind == '\0' || *p < '0' || *p > '9')
        return NC_ENCZARR;
    n = strtoul(p, &end, 10);
    if (*end != '\0' || n == 0 || n > (1UL << 20))
        return NC_ENCZARR;
    *widthp = (size_t)n;
    *endianp = endian;
    switch (kind) {
    case 'i':
        *xtypep = n == 1 ? NC_BYTE : n == 2 ? NC_SHORT : n == 4 ? NC_INT : n == 8 ? NC_INT64 : NC_NAT;
        break;
    case 'u':
        *xtypep = n == 1 ? NC_UBYTE : n == 2 ? NC_USHORT : n == 4 ? NC_UINT : n == 8 ? NC_UINT64 : NC_NAT;
        break;
    case 'f':
        *xtypep = n == 4 ? NC_FLOAT : n == 8 ? NC_DOUBLE : NC_NAT;
        break;
    case 'b':
        *xtypep = n == 1 ? NC_UBYTE : NC_NAT; /* numpy bool: one byte 0/1 */
        break;
    case 'S':
        *xtypep = NC_STRING; /* fixed-width bytes */
        *endianp = NC_ENDIAN_NATIVE;
        break;
    case 'J':
        *xtypep = NC_CHAR;
        break;
    case 'U':
        /* numpy unicode; NCZarr 4.8-4.9.0 typed char attributes "<U1". */
        *xtypep = n == 1 ? NC_CHAR : NC_STRING;
        *endianp = NC_ENDIAN_NATIVE;
        break;
    default:
        *xtypep = NC_NAT;
        break;
    }
    if (kind == 'J')
        return NC_NOERR;
    return *xtypep == NC_NAT ? NC_EBADTYPE : NC_NOERR;
}

void
ncz_dtype_v2_make(nc_type xtype, int endian, size_t width, char buf[32])
{
    char e = endian == NC_ENDIAN_BIG ? '>' : '<';
    switch (xtype) {
    case NC_CHAR: strcpy(buf, ">S1"); return;
    case NC_STRING: snprintf(buf, 32, "|S%zu", width ? width : (size_t)NCZ_MAXSTR_DEFAULT); return;
    case NC_BYTE: snprintf(buf, 32, "%ci1", e); return;
    case NC_UBYTE: snprintf(buf, 32, "%cu1", e); return;
    case NC_SHORT: snprintf(buf, 32, "%ci2", e); return;
    case NC_USHORT: snprintf(buf, 32, "%cu2", e); return;
    case NC_INT: snprintf(buf, 32, "%ci4", e); return;
    case NC_UINT: snprintf(buf, 32, "%cu4", e); return;
    case NC_INT64: snprintf(buf, 32, "%ci8", e); return;
    case NC_UINT64: snprintf(buf, 32, "%cu8", e); return;
    case NC_FLOAT: snprintf(buf, 32, "%cf4", e); return;
    case NC_DOUBLE: snprintf(buf, 32, "%cf8", e); return;
    default: strcpy(buf, "|V0"); return;
    }
}

/* ---- v3 data types ---------------------------------------------------------- */

static const struct { const char *name; nc_type xtype; } v3types[] = {
    {"int8", NC_BYTE},     {"uint8", NC_UBYTE},   {"int16", NC_SHORT},
    {"uint16", NC_USHORT}, {"int32", NC_INT},     {"uint32", NC_UINT},
    {"int64", NC_INT64},   {"uint64", NC_UINT64}, {"float32", NC_FLOAT},
    {"float64", NC_DOUBLE}, {"bool", NC_UBYTE},   {"string", NC_STRING},
};

int
ncz_dtype_v3_parse(const char *dtype, nc_type *xtypep, size_t *widthp)
{
    if (dtype == NULL)
        return NC_ENCZARR;
    for (size_t i = 0; i < sizeof v3types / sizeof v3types[0]; i++)
        if (strcmp(dtype, v3types[i].name) == 0) {
            *xtypep = v3types[i].xtype;
            *widthp = v3types[i].xtype == NC_STRING ? 0 : nc4_type_size(NULL, v3types[i].xtype);
            return NC_NOERR;
        }
    /* "r<bits>": raw bytes; NCZarr's fixed-width strings. */
    if (dtype[0] == 'r' && dtype[1] >= '1' && dtype[1] <= '9') {
        char *end;
        unsigned long bits = strtoul(dtype + 1, &end, 10);
        if (*end || bits % 8 || bits == 0 || bits > (8UL << 20))
            return NC_EBADTYPE;
        *xtypep = bits == 8 ? NC_CHAR : NC_STRING;
        *widthp = bits / 8;
        return NC_NOERR;
    }
    return NC_EBADTYPE;
}

const char *
ncz_dtype_v3_name(nc_type xtype)
{
    switch (xtype) {
    case NC_BYTE: return "int8";
    case NC_CHAR: return "uint8";
    case NC_UBYTE: return "uint8";
    case NC_SHORT: return "int16";
    case NC_USHORT: return "uint16";
    case NC_INT: return "int32";
    case NC_UINT: return "uint32";
    case NC_INT64: return "int64";
    case NC_UINT64: return "uint64";
    case NC_FLOAT: return "float32";
    case NC_DOUBLE: return "float64";
    case NC_STRING: return "string";
    default: return NULL;
    }
}

/* ---- state ----------------------------------------------------------------- */

NCZ_var *
ncz_var_state_new(NC4_file *f, NC4_var *var)
{
    NCZ_file *zf = ncz_file(f);
    NCZ_var *zv = calloc(1, sizeof(*zv));
    if (zv == NULL)
        return NULL;
    zv->key_encoding = zf->zarr_format == 3 ? NCZ_KEYS_DEFAULT : NCZ_KEYS_V2;
    zv->dimsep = zf->zarr_format == 3 ? '/' : zf->dimsep;
    zv->order = 'C';
    zv->bigendian = var->endianness == NC_ENDIAN_BIG;
    zv->typesize = nc4_type_size(f, var->xtype);
    if (var->xtype == NC_STRING) {
        zv->maxstrlen = zf->default_maxstrlen;
        zv->typesize = zv->maxstrlen;
        if (zf->zarr_format == 3)
            zv->vlen_utf8 = 1;
    }
    return zv;
}

NCZ_grp *
ncz_grp_state_new(void)
{
    return calloc(1, sizeof(NCZ_grp));
}

size_t
ncz_chunk_nelems(const NC4_var *var)
{
    size_t n = 1;
    for (int i = 0; i < var->ndims; i++) {
        size_t c = var->chunksizes ? var->chunksizes[i] : 0;
        if (c == 0 || n > SIZE_MAX / c)
            return 0;
        n *= c;
    }
    return n;
}

void
ncz_codec_specs_free(NCZ_codec_spec **specs, size_t *n)
{
    if (*specs) {
        for (size_t i = 0; i < *n; i++) {
            free((*specs)[i].name);
            json_object_put((*specs)[i].json);
            free((*specs)[i].params);
        }
        free(*specs);
    }
    *specs = NULL;
    *n = 0;
}

/* ---- base64 ------------------------------------------------------------------ */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
ncz_base64_encode(const unsigned char *in, size_t len)
{
    size_t olen = 4 * ((len + 2) / 3);
    char *out = malloc(olen + 1), *o = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < len) v |= (unsigned)in[i + 1] << 8;
        if (i + 2 < len) v |= in[i + 2];
        *o++ = b64[(v >> 18) & 63];
        *o++ = b64[(v >> 12) & 63];
        *o++ = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        *o++ = i + 2 < len ? b64[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

int
ncz_base64_decode(const char *in, unsigned char **outp, size_t *lenp)
{
    size_t n = strlen(in), k = 0;
    unsigned char *out;
    if (n % 4)
        return NC_EINVAL;
    if ((out = malloc(n / 4 * 3 + 1)) == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < n; i += 4) {
        unsigned v = 0;
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            char c = in[i + j];
            const char *p = c ? strchr(b64, c) : NULL;
            if (c == '=' && i + 4 == n && j >= 2) {
                pad++;
                v <<= 6;
                continue;
            }
            if (p == NULL || pad) {
                free(out);
                return NC_EINVAL;
            }
            v = (v << 6) | (unsigned)(p - b64);
        }
        out[k++] = (unsigned char)(v >> 16);
        if (pad < 2) out[k++] = (unsigned char)(v >> 8);
        if (pad < 1) out[k++] = (unsigned char)v;
    }
    *outp = out;
    *lenp = k;
    return NC_NOERR;
}
