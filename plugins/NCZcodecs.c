/* NCZcodecs.c: NCZarr codec wrappers, pairing HDF5 filter ids with Zarr
 * (numcodecs) codec JSON.  Built twice, as upstream names them:
 *   lib__nczhdf5filters.so (NCZ_HDF5FILTERS): shuffle, fletcher32, zlib, szip
 *   lib__nczstdfilters.so  (NCZ_STDFILTERS):  bz2, zstd, blosc
 * Each exports NCZ_codec_info_defaults() (a NULL-terminated vector of
 * NCZ_codec_t*).  JSON is flat ({"id": "...", "key": number|string, ...});
 * parameters a codec keeps hidden (blosc's type and chunk sizes) are left 0
 * for the pipeline to fill from the variable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define NC_FILTER_BUILD_NO_HDF5 1
#include "netcdf.h"
#include "netcdf_filter_build.h"

/* ---- a small reader for flat JSON objects ------------------------------- */

/* Position of the value of "key" in json, or NULL. */
static const char *
json_value(const char *json, const char *key)
{
    size_t kl = strlen(key);
    const char *p = json;
    while ((p = strchr(p, '"')) != NULL) {
        const char *q = p + 1;
        if (strncmp(q, key, kl) == 0 && q[kl] == '"') {
            q += kl + 1;
            while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
                q++;
            if (*q != ':') {
                p = q;
                continue;
            }
            q++;
            while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
                q++;
            return q;
        }
        /* Skip this string. */
        q = p + 1;
        while (*q && *q != '"') {
            if (*q == '\\' && q[1])
                q++;
            q++;
        }
        if (*q == '\0')
            return NULL;
        p = q + 1;
    }
    return NULL;
}

/* Integer value of key; NC_EFILTER if missing or not a number. */
static int
json_int(const char *json, const char *key, long long *v)
{
    const char *p = json_value(json, key);
    char *end;
    if (p == NULL)
        return NC_EFILTER;
    *v = strtoll(p, &end, 10);
    if (end == p)
        return NC_EFILTER;
    return NC_NOERR;
}

#ifdef NCZ_STDFILTERS
/* String value of key into buf; NC_EFILTER if missing. */
static int
json_str(const char *json, const char *key, char *buf, size_t cap)
{
    const char *p = json_value(json, key);
    size_t n = 0;
    if (p == NULL || *p != '"')
        return NC_EFILTER;
    p++;
    while (*p && *p != '"' && n + 1 < cap)
        buf[n++] = *p++;
    if (*p != '"')
        return NC_EFILTER;
    buf[n] = '\0';
    return NC_NOERR;
}
#endif

static int
make_params(size_t n, const unsigned *vals, size_t *np, unsigned **pp)
{
    unsigned *v = calloc(n + 1, sizeof(unsigned));
    if (v == NULL)
        return NC_ENOMEM;
    if (n)
        memcpy(v, vals, n * sizeof(unsigned));
    *np = n;
    *pp = v;
    return NC_NOERR;
}

static int
make_json(char **codecp, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#include <stdarg.h>
static int
make_json(char **codecp, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(tmp))
        return NC_EFILTER;
    if ((*codecp = strdup(tmp)) == NULL)
        return NC_ENOMEM;
    return NC_NOERR;
}

/* Codecs with one integer parameter called key. */
#define ONE_PARAM_CODEC(fn, name, key)                                                    \
    static int fn##_to_hdf5(const char *codec, size_t *np, unsigned **pp)                 \
    {                                                                                     \
        long long v;                                                                      \
        unsigned u;                                                                       \
        if (codec == NULL || np == NULL || pp == NULL)                                    \
            return NC_EINVAL;                                                             \
        if (json_int(codec, key, &v))                                                     \
            return NC_EFILTER;                                                            \
        u = (unsigned)v;                                                                  \
        return make_params(1, &u, np, pp);                                                \
    }                                                                                     \
    static int fn##_to_codec(size_t n, const unsigned *p, char **codecp)                  \
    {                                                                                     \
        if (codecp == NULL || n < 1 || p == NULL)                                         \
            return NC_EFILTER;                                                            \
        return make_json(codecp, "{\"id\": \"%s\", \"%s\": %d}", name, key, (int)p[0]);   \
    }

#ifdef NCZ_HDF5FILTERS
ONE_PARAM_CODEC(zlib, "zlib", "level")
ONE_PARAM_CODEC(shuffle, "shuffle", "elementsize")

static int
fletcher32_to_hdf5(const char *codec, size_t *np, unsigned **pp)
{
    if (codec == NULL || np == NULL || pp == NULL)
        return NC_EINVAL;
    return make_params(0, NULL, np, pp);
}
static int
fletcher32_to_codec(size_t n, const unsigned *p, char **codecp)
{
    (void)n;
    (void)p;
    if (codecp == NULL)
        return NC_EINVAL;
    return make_json(codecp, "{\"id\": \"fletcher32\"}");
}

static int
szip_to_hdf5(const char *codec, size_t *np, unsigned **pp)
{
    long long mask, ppb;
    unsigned v[2];
    if (codec == NULL || np == NULL || pp == NULL)
        return NC_EINVAL;
    if (json_int(codec, "mask", &mask) || json_int(codec, "pixels-per-block", &ppb))
        return NC_EFILTER;
    v[0] = (unsigned)mask;
    v[1] = (unsigned)ppb;
    return make_params(2, v, np, pp);
}
static int
szip_to_codec(size_t n, const unsigned *p, char **codecp)
{
    if (codecp == NULL || n < 2 || p == NULL)
        return NC_EFILTER;
    return make_json(codecp, "{\"id\": \"szip\", \"mask\": %u, \"pixels-per-block\": %u}", p[0], p[1]);
}

static NCZ_codec_t c_shuffle = {NCZ_CODEC_CLASS_VER, NCZ_CODEC_HDF5, "shuffle", 2, NULL, NULL,
                                shuffle_to_hdf5, shuffle_to_codec, NULL};
static NCZ_codec_t c_fletcher32 = {NCZ_CODEC_CLASS_VER, NCZ_CODEC_HDF5, "fletcher32", 3, NULL, NULL,
                                   fletcher32_to_hdf5, fletcher32_to_codec, NULL};
static NCZ_codec_t c_zlib = {NCZ_CODEC_CLASS_VER, NCZ_CODEC_HDF5, "zlib", 1, NULL, NULL,
                             zlib_to_hdf5, zlib_to_codec, NULL};
static NCZ_codec_t c_szip = {NCZ_CODEC_CLASS_VER, NCZ_CODEC_HDF5, "szip", 4, NULL, NULL,
                             szip_to_hdf5, szip_to_codec, NULL};
static const NCZ_codec_t *defaults[] = {&c_shuffle, &c_fletcher32, &c_zlib, &c_szip, NULL};
#endif

#ifdef NCZ_STDFILTERS
ONE_PARAM_CODEC(bz2, "bz2", "level")
ONE_PARAM_CODEC(zstd, "zstd", "level")

static const char *const blosc_names[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};

static int
blosc_to_hdf5(const char *codec, size_t *np, unsigned **pp)
{
    long long clevel, shuffle = 1, blocksize = 0;
    char cname[32];
    unsigned v[7] = {0, 0, 0, 0, 0, 0, 0};
    size_t i;
    if (codec == NULL || np == NULL || pp == NULL)
        return NC_EINVAL;
    if (json_int(codec, "clevel", &clevel) || json_str(codec, "cname", cname, sizeof(cname)))
        return NC_EFILTER;
    (void)json_int(codec, "shuffle", &shuffle);
    (void)json_int(codec, "blocksize", &blocksize);
    for (i = 0; i < sizeof(blosc_names) / sizeof(blosc_names[0]); i++)
        if (strcmp(cname, blosc_names[i]) == 0)
            break;
    if (i == sizeof(blosc_names) / sizeof(blosc_names[0]) || shuffle < 0 || shuffle > 2)
        return NC_EFILTER;
    v[3] = (unsigned)blocksize;
    v[4] = (unsigned)clevel;
    v[5] = (unsigned)shuffle;
    v[6] = (unsigned)i;
    return make_params(7, v, np, pp);
}
static int
blosc_to_codec(size_t n, const unsigned *p, char **codecp)
{
    if (codecp == NULL || n < 7 || p == NULL || p[6] >= sizeof(blosc_names) / sizeof(blosc_names[0]))
        return NC_EFILTER;
    return make_json(codecp,
                     "{\"id\": \"blosc\", \"clevel\": %u, \"blocksize\": %u, \"cname\": \"%s\", \"shuffle\": %u}",
                     p[4], p[3], blosc_names[p[6]], p[5]);
}

static NCZ_codec_t c_bz2 = {NCZ_CODEC_CLASS_VER, NCZ_CODEC_HDF5, "bz2", 307, NULL, NULL,
                            bz2_to_hdf5, bz2_to_codec, NULL};
static NCZ_codec_t c_zstd = {NCZ_CODEC_CLASS_VER, NCZ_CODEC_HDF5, "zstd", 32015, NULL, NULL,
                             zstd_to_hdf5, zstd_to_codec, NULL};
static NCZ_codec_t c_blosc = {NCZ_CODEC_CLASS_VER, NCZ_CODEC_HDF5, "blosc", 32001, NULL, NULL,
                              blosc_to_hdf5, blosc_to_codec, NULL};
static const NCZ_codec_t *defaults[] = {&c_bz2, &c_zstd, &c_blosc, NULL};
#endif

const void *NCZ_codec_info_defaults(void);
const void *
NCZ_codec_info_defaults(void)
{
    return (const void *)defaults;
}
