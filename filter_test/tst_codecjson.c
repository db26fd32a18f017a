/* tst_codecjson.c: the NCZarr codec wrappers (lib__nczhdf5filters.so,
 * lib__nczstdfilters.so) convert HDF5 parameters to numcodecs JSON and
 * back, and refuse malformed JSON.
 *   tst_codecjson PLUGINDIR
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define NC_FILTER_BUILD_NO_HDF5 1
#include <netcdf.h>
#include <netcdf_filter_build.h>
#include "nctst.h"

static const NCZ_codec_t *
find(const NCZ_codec_t *const *vec, const char *id)
{
    for (; vec && *vec; vec++)
        if (strcmp((*vec)->codecid, id) == 0)
            return *vec;
    return NULL;
}

static void
roundtrip(const NCZ_codec_t *c, size_t n, const unsigned *p, const char *want)
{
    char *json = NULL;
    size_t n2 = 0;
    unsigned *p2 = NULL;
    OK(c->NCZ_hdf5_to_codec(n, p, &json));
    CHECK(json && strcmp(json, want) == 0, "%s: json %s, want %s", c->codecid, json ? json : "(null)", want);
    if (json) {
        OK(c->NCZ_codec_to_hdf5(json, &n2, &p2));
        CHECK(n2 == n && (n == 0 || memcmp(p, p2, n * sizeof(unsigned)) == 0), "%s: params back", c->codecid);
    }
    free(json);
    free(p2);
}

int
main(int argc, char **argv)
{
    char path[4096];
    void *h1, *h2;
    const NCZ_codec_t *const *v1, *const *v2;
    NCZ_codec_info_defaults_proto f;
    void *sym;
    if (argc < 2)
        return 2;
    snprintf(path, sizeof(path), "%s/lib__nczhdf5filters.so", argv[1]);
    if ((h1 = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL)
        return 77;
    snprintf(path, sizeof(path), "%s/lib__nczstdfilters.so", argv[1]);
    if ((h2 = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL)
        return 77;
    sym = dlsym(h1, "NCZ_codec_info_defaults");
    memcpy(&f, &sym, sizeof(f));
    v1 = f();
    sym = dlsym(h2, "NCZ_codec_info_defaults");
    memcpy(&f, &sym, sizeof(f));
    v2 = f();
    {
        unsigned lvl[1] = {5}, esz[1] = {4}, sz[2] = {32, 16}, zs[1] = {(unsigned)-3}, bz[1] = {9};
        unsigned bl[7] = {0, 0, 4, 0, 5, 2, 1};
        const NCZ_codec_t *c;
        CHECK((c = find(v1, "zlib")) && c->hdf5id == 1, "zlib");
        if (c) roundtrip(c, 1, lvl, "{\"id\": \"zlib\", \"level\": 5}");
        CHECK((c = find(v1, "shuffle")) && c->hdf5id == 2, "shuffle");
        if (c) roundtrip(c, 1, esz, "{\"id\": \"shuffle\", \"elementsize\": 4}");
        CHECK((c = find(v1, "fletcher32")) && c->hdf5id == 3, "fletcher32");
        if (c) roundtrip(c, 0, NULL, "{\"id\": \"fletcher32\"}");
        CHECK((c = find(v1, "szip")) && c->hdf5id == 4, "szip");
        if (c) roundtrip(c, 2, sz, "{\"id\": \"szip\", \"mask\": 32, \"pixels-per-block\": 16}");
        CHECK((c = find(v2, "zstd")) && c->hdf5id == 32015, "zstd");
        if (c) roundtrip(c, 1, zs, "{\"id\": \"zstd\", \"level\": -3}");
        CHECK((c = find(v2, "bz2")) && c->hdf5id == 307, "bz2");
        if (c) roundtrip(c, 1, bz, "{\"id\": \"bz2\", \"level\": 9}");
        CHECK((c = find(v2, "blosc")) && c->hdf5id == 32001, "blosc");
        if (c) {
            size_t n = 0;
            unsigned *p = NULL;
            bl[2] = 0; /* hidden in JSON: the pipeline fills the type size */
            roundtrip(c, 7, bl, "{\"id\": \"blosc\", \"clevel\": 5, \"blocksize\": 0, \"cname\": \"lz4\", \"shuffle\": 2}");
            /* numcodecs' own spelling, keys in any order, spaces. */
            OK(c->NCZ_codec_to_hdf5("{ \"cname\":\"zstd\",\"clevel\":3 , \"shuffle\":1,\"id\":\"blosc\",\"blocksize\":0}", &n, &p));
            CHECK(n == 7 && p && p[4] == 3 && p[5] == 1 && p[6] == 5, "blosc from numcodecs json");
            free(p);
            EXPECT(c->NCZ_codec_to_hdf5("{\"id\": \"blosc\", \"cname\": \"nope\", \"clevel\": 3}", &n, &p), NC_EFILTER);
            EXPECT(c->NCZ_codec_to_hdf5("{\"id\": \"blosc\", \"cname\": \"lz4\"", &n, &p), NC_EFILTER);
            EXPECT(c->NCZ_codec_to_hdf5("{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 1, \"shuffle\": 7}", &n, &p), NC_EFILTER);
        }
        if ((c = find(v2, "zstd")) != NULL) {
            size_t n = 0;
            unsigned *p = NULL;
            EXPECT(c->NCZ_codec_to_hdf5("{\"id\": \"zstd\"}", &n, &p), NC_EFILTER);
            EXPECT(c->NCZ_codec_to_hdf5("{\"id\": \"zstd\", \"level\": \"x\"}", &n, &p), NC_EFILTER);
            EXPECT(c->NCZ_codec_to_hdf5("", &n, &p), NC_EFILTER);
            EXPECT(c->NCZ_codec_to_hdf5("{\"level", &n, &p), NC_EFILTER);
            EXPECT(c->NCZ_hdf5_to_codec(0, NULL, (char **)&p), NC_EFILTER);
        }
    }
    dlclose(h1);
    dlclose(h2);
    return nct_summary("tst_codecjson");
}
