/* tst_zcore_bad.c: hostile or broken Zarr metadata gives clean NC_* errors
 * (no crash, no leak, no huge allocation): malformed JSON, wrong JSON
 * types, wrong shapes, absurd chunk sizes, dims that disagree, dangling
 * references, deep nesting, broken consolidated metadata, v3 nodes.
 * Usage: tst_zcore_bad DIR */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netcdf.h>
#include "nctst.h"

static char dir[2048];

static void
put(const char *store, const char *key, const char *text)
{
    char path[4096], *p;
    snprintf(path, sizeof path, "%s/%s/%s", dir, store, key);
    /* parents */
    for (p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0777);
        *p = '/';
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        nct_fail++;
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fputs(text, f);
    fclose(f);
}

static void
rmstore(const char *store)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/%s'", dir, store);
    if (system(cmd) != 0)
        nct_fail++;
}

/* Open must fail (any clean error) or succeed; never crash.  want: the
 * expected status, or 1 for "any error". */
static void
try_open(const char *store, int want, const char *what)
{
    char path[4096];
    int ncid, stat;
    snprintf(path, sizeof path, "file://%s/%s#mode=nczarr,file", dir, store);
    stat = nc_open(path, NC_NOWRITE, &ncid);
    if (stat == NC_NOERR) {
        /* Reading everything must also be clean. */
        int nvars = 0;
        nc_inq_nvars(ncid, &nvars);
        for (int v = 0; v < nvars; v++) {
            size_t start[NC_MAX_VAR_DIMS] = {0}, count[NC_MAX_VAR_DIMS];
            int nd = 0;
            double buf[8];
            nc_inq_varndims(ncid, v, &nd);
            for (int i = 0; i < nd; i++)
                count[i] = 1;
            (void)nc_get_vara_double(ncid, v, start, count, buf);
        }
        nc_close(ncid);
    }
    if (want == 1)
        CHECK(stat != NC_NOERR, "%s: opened (want an error)", what);
    else
        CHECK(stat == want, "%s: got %d (%s), want %d", what, stat, nc_strerror(stat), want);
}

#define ZG "{\"zarr_format\": 2}"
#define SB "\"_nczarr_superblock\": {\"version\": \"2.0.0\"}"

static void
v2_cases(void)
{
    /* A good baseline, so the failures below are about their one change. */
    rmstore("good");
    put("good", ".zgroup", ZG);
    put("good", ".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": {\"size\": 4, \"unlimited\": 0}}, \"arrays\": [\"v\"], \"groups\": []}}");
    put("good", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": 0, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
    put("good", "v/.zattrs", "{\"_nczarr_array\": {\"dimension_references\": [\"/x\"], \"storage\": \"chunked\"}}");
    try_open("good", NC_NOERR, "baseline");

    static const struct { const char *key, *text; int want; const char *what; } cases[] = {
        {".zgroup", "{", NC_ENCZARR, "truncated .zgroup"},
        {".zgroup", "", NC_ENCZARR, "empty .zgroup"},
        {".zgroup", "[1,2]", NC_ENCZARR, ".zgroup not a dict"},
        {".zgroup", "{\"zarr_format\": 2} trailing", NC_ENCZARR, "garbage after JSON"},
        {".zattrs", "{\"a\": }", NC_ENCZARR, "bad .zattrs"},
        {".zattrs", "7", NC_ENCZARR, ".zattrs a number"},
        {".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": [1]}}", NC_ENCZARR, "dims not a dict"},
        {".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": -4}, \"arrays\": [\"v\"]}}", NC_ENCZARR, "negative dim"},
        {".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": {\"size\": \"big\"}}, \"arrays\": [\"v\"]}}", NC_ENCZARR, "dim size a string"},
        {".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": 4}, \"arrays\": [7]}}", NC_ENCZARR, "array name a number"},
        {".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": 4}, \"arrays\": [\"nothere\"]}}", NC_ENCZARR, "listed array missing"},
        {".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": 4}, \"arrays\": [\"v\"], \"groups\": [\"../up\"]}}", NC_ENCZARR, "group name with a slash"},
        {".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": 4}, \"arrays\": [\"v\"], \"groups\": [\"g\"]}}", NC_ENCZARR, "listed group missing"},
        {".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": 5}, \"arrays\": [\"v\"]}}", NC_ENCZARR, "shape disagrees with dim"},
        {".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": 4}, \"arrays\": [\"v\", \"v\"]}}", NC_ENCZARR, "array listed twice"},
        {".zattrs", "{" SB ", \"_nczarr_attr\": {\"types\": {\"a\": \"<q9\"}}, \"a\": 1, \"_nczarr_group\": {\"dimensions\": {\"x\": 4}, \"arrays\": [\"v\"]}}", 1, "attribute dtype garbage"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": \"4\", \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": 0}", NC_ENCZARR, "shape a string"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [-4], \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": 0}", NC_ENCZARR, "negative shape"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [0], \"fill_value\": 0}", NC_ENCZARR, "zero chunk"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [2, 2], \"fill_value\": 0}", NC_ENCZARR, "chunks rank differs"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [4000000000000], \"fill_value\": 0}", NC_ENCZARR, "absurd chunk size"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [99999999999999999999999], \"fill_value\": 0}", NC_ENCZARR, "chunk beyond int64"},
        {"v/.zarray", "{\"zarr_format\": 3, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": 0}", NC_ENCZARR, "wrong zarr_format"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": 5, \"chunks\": [2], \"fill_value\": 0}", NC_ENCZARR, "dtype a number"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": {\"a\": 1}}", NC_ENCZARR, "fill a dict"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": \"abc\"}", NC_ENCZARR, "fill a word"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": 0, \"filters\": 3}", 1, "filters a number"},
        {"v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": 0, \"compressor\": {\"noid\": 1}}", 1, "compressor without id"},
        {"v/.zattrs", "{\"_nczarr_array\": {\"dimension_references\": [\"/nogroup/x\"]}}", NC_ENCZARR, "dim ref into a missing group"},
        {"v/.zattrs", "{\"_nczarr_array\": {\"dimension_references\": [\"/x\", \"/x\"]}}", NC_ENCZARR, "dim refs rank differs"},
        {"v/.zattrs", "{\"_nczarr_array\": {\"dimension_references\": 5}}", NC_ENCZARR, "dim refs a number"},
        {"v/.zattrs", "{\"_nczarr_array\": 5}", NC_ENCZARR, "_nczarr_array a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu", i);
        rmstore(name);
        put(name, ".zgroup", ZG);
        put(name, ".zattrs", "{" SB ", \"_nczarr_group\": {\"dimensions\": {\"x\": {\"size\": 4, \"unlimited\": 0}}, \"arrays\": [\"v\"], \"groups\": []}}");
        put(name, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": 0, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
        put(name, "v/.zattrs", "{\"_nczarr_array\": {\"dimension_references\": [\"/x\"], \"storage\": \"chunked\"}}");
        put(name, cases[i].key, cases[i].text);
        try_open(name, cases[i].want, cases[i].what);
    }

    /* Deep nesting: refused by the parser, not by the stack. */
    {
        size_t n = 200000;
        char *deep = malloc(2 * n + 64);
        strcpy(deep, "{\"zarr_format\": 2, \"x\": ");
        size_t off = strlen(deep);
        memset(deep + off, '[', n);
        memset(deep + off + n, ']', n);
        strcpy(deep + off + 2 * n, "}");
        rmstore("deep");
        put("deep", ".zgroup", deep);
        try_open("deep", NC_ENCZARR, "deep nesting");
        free(deep);
    }

    /* A huge array over an empty store: opens, a corner reads as fill. */
    {
        char path[4096];
        int ncid;
        rmstore("huge");
        put("huge", ".zgroup", ZG);
        put("huge", "h/.zarray", "{\"zarr_format\": 2, \"shape\": [1000000000000, 1000000000000], \"dtype\": \"<f8\", \"chunks\": [1, 1], \"fill_value\": 7.5}");
        snprintf(path, sizeof path, "%s/huge", dir);
        OK(nc_open(path, NC_NOWRITE, &ncid));
        {
            size_t start[2] = {999999999999ULL, 5}, count[2] = {1, 2};
            double v[2] = {0, 0};
            OK(nc_get_vara_double(ncid, 0, start, count, v));
            CHECK(v[0] == 7.5 && v[1] == 7.5, "fill of a huge array %g", v[0]);
        }
        nc_close(ncid);
    }

    /* Consolidated metadata that is not what it claims. */
    rmstore("cons");
    put("cons", ".zgroup", ZG);
    put("cons", ".zmetadata", "{\"metadata\": 5, \"zarr_consolidated_format\": 1}");
    try_open("cons", NC_EZARRMETA, "bad .zmetadata");
    put("cons", ".zmetadata", "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, \"v/.zarray\": [1]}, \"zarr_consolidated_format\": 1}");
    {
        /* "v" is listed only through the consolidated keys; its .zarray is junk. */
        char path[4096];
        int ncid, stat;
        snprintf(path, sizeof path, "%s/cons", dir);
        stat = nc_open(path, NC_NOWRITE, &ncid);
        CHECK(stat == NC_ENCZARR, "junk consolidated .zarray: %d", stat);
        if (stat == NC_NOERR)
            nc_close(ncid);
    }
}

static void
v3_cases(void)
{
    static const struct { const char *root, *arr; int want; const char *what; } cases[] = {
        {"{\"zarr_format\": 3, \"node_type\": \"array\"}", NULL, NC_ENOTZARR, "v3 root is an array"},
        {"{\"zarr_format\": 3}", NULL, NC_ENOTZARR, "v3 root without node_type"},
        {"{\"zarr_format\": 3, \"node_type\": \"group\", \"attributes\": 4}", NULL, NC_ENCZARR, "v3 attributes a number"},
        {"{\"zarr_format\": 3, \"node_type\": \"group\"}",
         "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"irregular\"}, \"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\"}]}",
         NC_ENCZARR, "v3 chunk grid not regular"},
        {"{\"zarr_format\": 3, \"node_type\": \"group\"}",
         "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [0]}}, \"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\"}]}",
         NC_ENCZARR, "v3 zero chunk"},
        {"{\"zarr_format\": 3, \"node_type\": \"group\"}",
         "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, \"chunk_key_encoding\": {\"name\": \"weird\"}, \"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\"}]}",
         NC_ENCZARR, "v3 unknown key encoding"},
        {"{\"zarr_format\": 3, \"node_type\": \"group\"}",
         "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": \"float32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, \"fill_value\": \"0x7fc0\", \"codecs\": [{\"name\": \"bytes\"}]}",
         NC_ENCZARR, "v3 hex fill of the wrong width"},
        {"{\"zarr_format\": 3, \"node_type\": \"group\"}",
         "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": \"float32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, \"fill_value\": \"0x7fc00000\", \"codecs\": [{\"name\": \"bytes\"}]}",
         NC_NOERR, "v3 hex fill"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad3_%zu", i);
        rmstore(name);
        put(name, "zarr.json", cases[i].root);
        if (cases[i].arr)
            put(name, "v/zarr.json", cases[i].arr);
        try_open(name, cases[i].want, cases[i].what);
    }
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    mkdir(dir, 0777);
    v2_cases();
    v3_cases();
    return nct_summary("tst_zcore_bad");
}
