/* tst_zmeta_compat.c: Zarr metadata read and named as upstream 4.10.1 does:
 * relative file:// URLs, pure Zarr stores without root group metadata
 * (v2 and v3), JSON-valued text attributes in upstream's layout, no
 * _FillValue attribute made up from a Zarr fill_value, and fill values a
 * type cannot hold refused with NC_ERANGE.
 * Usage: tst_zmeta_compat DIR (the test works in DIR). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netcdf.h>
#include "nctst.h"

static char cwd[2048]; /* the working directory: absolute URLs */

/* "file://CWD/store#mode=modes" */
static const char *
url(const char *store, const char *modes)
{
    static char u[4200];
    snprintf(u, sizeof u, "file://%s/%s#mode=%s", cwd, store, modes);
    return u;
}

/* Write text at DIR-relative path store/key, making the parents. */
static void
put(const char *store, const char *key, const char *text)
{
    char path[4096], *p;
    snprintf(path, sizeof path, "%s/%s", store, key);
    for (p = path; (p = strchr(p, '/')) != NULL; p++) {
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
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", store);
    if (system(cmd) != 0)
        nct_fail++;
}

static int
exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* A one-array pure Zarr v2 store: root .zgroup and v/.zarray of dtype
 * with the given fill_value JSON text. */
static void
fill_store(const char *store, const char *dtype, const char *fill)
{
    char zarray[512];
    rmstore(store);
    put(store, ".zgroup", "{\"zarr_format\": 2}");
    snprintf(zarray, sizeof zarray,
             "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], \"dtype\": \"%s\", "
             "\"compressor\": null, \"filters\": null, \"fill_value\": %s, \"order\": \"C\"}",
             dtype, fill);
    put(store, "v/.zarray", zarray);
}

static int
open_store(const char *store, int *ncidp)
{
    return nc_open(url(store, "zarr,file"), NC_NOWRITE, ncidp);
}

/* file://X is the relative path X, as upstream's URL parser reads it. */
static void
test_relative_url(void)
{
    int ncid, dimid, varid, v[2] = {7, 8}, got[2] = {0, 0};
    rmstore("rel.zarr");
    MUST(nc_create("file://rel.zarr#mode=nczarr,file", NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "d", 2, &dimid));
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    OK(nc_put_var_int(ncid, varid, v));
    OK(nc_close(ncid));
    CHECK(exists("rel.zarr/.zgroup"), "relative store created in the working directory");
    MUST(nc_open("file://rel.zarr#mode=nczarr,file", NC_NOWRITE, &ncid));
    OK(nc_get_var_int(ncid, 0, got));
    CHECK(got[0] == 7 && got[1] == 8, "relative store read back %d %d", got[0], got[1]);
    OK(nc_close(ncid));
    /* a relative path with directories; and without a storage mode */
    mkdir("sub", 0777);
    rmstore("sub/r2.zarr");
    MUST(nc_create("file://sub/r2.zarr#mode=zarr,file", NC_CLOBBER, &ncid));
    OK(nc_close(ncid));
    CHECK(exists("sub/r2.zarr/.zgroup"), "file://sub/r2.zarr created under sub/");
    OK(nc_open("file://sub/r2.zarr#mode=zarr", NC_NOWRITE, &ncid));
    nc_close(ncid);
    /* an empty path is still malformed */
    EXPECT(nc_open("file://#mode=nczarr,file", NC_NOWRITE, &ncid), NC_EURL);
}

/* Pure Zarr stores whose root holds no group metadata. */
static void
test_rootless(void)
{
    int ncid, nvars = -1, ngrps = -1, grps[4], varid, vals[2] = {0, 0};
    char name[NC_MAX_NAME + 1];
    static const char *za =
        "{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [2], \"dtype\": \"<i4\", "
        "\"compressor\": null, \"filters\": null, \"fill_value\": 5, \"order\": \"C\"}";

    /* only arrays */
    rmstore("arrs.zarr");
    put("arrs.zarr", "x/.zarray", za);
    put("arrs.zarr", "x/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"n\"]}");
    put("arrs.zarr", "y/.zarray", za);
    if (open_store("arrs.zarr", &ncid) == NC_NOERR) {
        nct_pass++;
        OK(nc_inq_nvars(ncid, &nvars));
        CHECK(nvars == 2, "arrays-only store: %d variables", nvars);
        OK(nc_inq_varid(ncid, "x", &varid));
        OK(nc_get_var_int(ncid, varid, vals));
        CHECK(vals[0] == 5 && vals[1] == 5, "unwritten chunk reads the fill %d %d", vals[0], vals[1]);
        OK(nc_inq_dimid(ncid, "n", &varid));
        nc_close(ncid);
    } else {
        CHECK(0, "arrays-only store refused");
    }

    /* only a nested group */
    rmstore("nest.zarr");
    put("nest.zarr", "g/.zgroup", "{\"zarr_format\": 2}");
    put("nest.zarr", "g/.zattrs", "{\"title\": \"inner\"}");
    put("nest.zarr", "g/z/.zarray", za);
    if (open_store("nest.zarr", &ncid) == NC_NOERR) {
        nct_pass++;
        OK(nc_inq_grps(ncid, &ngrps, grps));
        CHECK(ngrps == 1, "nested store: %d groups", ngrps);
        if (ngrps == 1) {
            OK(nc_inq_grpname(grps[0], name));
            CHECK(strcmp(name, "g") == 0, "group %s", name);
            OK(nc_inq_varid(grps[0], "z", &varid));
            OK(nc_get_att_text(grps[0], NC_GLOBAL, "title", name));
        }
        nc_close(ncid);
    } else {
        CHECK(0, "nested-group store refused");
    }

    /* v3: arrays below, no root zarr.json */
    rmstore("v3.zarr");
    put("v3.zarr", "a/zarr.json",
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2], \"data_type\": \"int32\", "
        "\"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, "
        "\"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 9, "
        "\"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}], "
        "\"dimension_names\": [\"t\"]}");
    put("v3.zarr", "g/zarr.json", "{\"zarr_format\": 3, \"node_type\": \"group\"}");
    if (open_store("v3.zarr", &ncid) == NC_NOERR) {
        nct_pass++;
        OK(nc_inq_varid(ncid, "a", &varid));
        OK(nc_get_var_int(ncid, varid, vals));
        CHECK(vals[0] == 9 && vals[1] == 9, "v3 fill %d %d", vals[0], vals[1]);
        OK(nc_inq_grps(ncid, &ngrps, grps));
        CHECK(ngrps == 1, "v3 rootless store: %d groups", ngrps);
        nc_close(ncid);
    } else {
        CHECK(0, "v3 store without root zarr.json refused");
    }

    /* no Zarr object anywhere: still not Zarr */
    rmstore("none.zarr");
    put("none.zarr", "a/b/readme.txt", "hello");
    EXPECT(open_store("none.zarr", &ncid), NC_ENOTZARR);
}

/* Text attributes holding JSON read back in upstream's layout. */
static void
test_json_text(void)
{
    int ncid, dimid, varid;
    char buf[256];
    size_t len = 0;
    static const struct { const char *in, *out; } cases[] = {
        {"{\"key1\": [1,2,3]}", "{\"key1\": [1,2,3]}"},
        {"{\"a\":1,  \"b\" : [1, 2.5,\"x\"], \"c\": {\"d\": null, \"e\": true}}",
         "{\"a\": 1, \"b\": [1,2.5,\"x\"], \"c\": {\"d\": null, \"e\": true}}"},
        {"[[1,2],[3,4]]", "[[1,2],[3,4]]"},
        {"{\"s\": \"q\\\"uote/slash\"}", "{\"s\": \"q\\\"uote/slash\"}"},
    };
    const size_t n = sizeof cases / sizeof *cases;

    rmstore("json.zarr");
    MUST(nc_create(url("json.zarr", "nczarr,file"), NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "d", 1, &dimid));
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    for (size_t i = 0; i < n; i++) {
        char an[16];
        snprintf(an, sizeof an, "j%zu", i);
        OK(nc_put_att_text(ncid, varid, an, strlen(cases[i].in), cases[i].in));
    }
    OK(nc_close(ncid));
    MUST(nc_open(url("json.zarr", "nczarr,file"), NC_NOWRITE, &ncid));
    for (size_t i = 0; i < n; i++) {
        char an[16];
        snprintf(an, sizeof an, "j%zu", i);
        memset(buf, 0, sizeof buf);
        OK(nc_inq_attlen(ncid, 0, an, &len));
        if (len < sizeof buf)
            OK(nc_get_att_text(ncid, 0, an, buf));
        CHECK(strcmp(buf, cases[i].out) == 0, "%s: got '%s' want '%s'", an, buf, cases[i].out);
    }
    OK(nc_close(ncid));

    /* the same from a pure Zarr store's .zattrs (zarr-python's layout) */
    fill_store("jpure.zarr", "<i4", "0");
    put("jpure.zarr", "v/.zattrs",
        "{\n    \"j\": {\n        \"key1\": [\n            1,\n            2\n        ],\n"
        "        \"k\": \"v\"\n    }\n}");
    MUST(open_store("jpure.zarr", &ncid));
    memset(buf, 0, sizeof buf);
    OK(nc_get_att_text(ncid, 0, "j", buf));
    CHECK(strcmp(buf, "{\"key1\": [1,2], \"k\": \"v\"}") == 0, "pure zarr JSON attribute '%s'", buf);
    OK(nc_close(ncid));
}

/* No _FillValue attribute is made up from the Zarr fill_value. */
static void
test_no_synth_fill(void)
{
    int ncid, varid, nofill = -1, fill = -1, natts = -1, dimid;
    fill_store("fill0.zarr", "<i4", "0");
    MUST(open_store("fill0.zarr", &ncid));
    EXPECT(nc_inq_att(ncid, 0, "_FillValue", NULL, NULL), NC_ENOTATT);
    OK(nc_inq_varnatts(ncid, 0, &natts));
    CHECK(natts == 0, "pure zarr variable has %d attributes", natts);
    OK(nc_inq_var_fill(ncid, 0, &nofill, &fill));
    CHECK(nofill == 0 && fill == 0, "fill mode %d value %d", nofill, fill);
    OK(nc_close(ncid));

    /* a _FillValue the attributes hold stays */
    fill_store("fill1.zarr", "<i4", "-7");
    put("fill1.zarr", "v/.zattrs", "{\"_FillValue\": -7}");
    MUST(open_store("fill1.zarr", &ncid));
    fill = 0;
    OK(nc_get_att_int(ncid, 0, "_FillValue", &fill));
    CHECK(fill == -7, "_FillValue %d", fill);
    OK(nc_close(ncid));

    /* NCZarr: a _FillValue set by the user is kept, none appears otherwise */
    rmstore("fill2.zarr");
    MUST(nc_create(url("fill2.zarr", "nczarr,file"), NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "d", 2, &dimid));
    MUST(nc_def_var(ncid, "a", NC_INT, 1, &dimid, &varid));
    MUST(nc_def_var(ncid, "b", NC_INT, 1, &dimid, &varid));
    fill = 42;
    OK(nc_put_att_int(ncid, varid, "_FillValue", NC_INT, 1, &fill));
    OK(nc_close(ncid));
    MUST(nc_open(url("fill2.zarr", "nczarr,file"), NC_NOWRITE, &ncid));
    EXPECT(nc_inq_att(ncid, 0, "_FillValue", NULL, NULL), NC_ENOTATT);
    fill = 0;
    OK(nc_get_att_int(ncid, 1, "_FillValue", &fill));
    CHECK(fill == 42, "NCZarr _FillValue %d", fill);
    OK(nc_close(ncid));
}

/* A fill_value the array's type cannot hold is NC_ERANGE, never wrapped. */
static void
test_fill_range(void)
{
    static const struct { const char *dtype, *fill; int want; } cases[] = {
        {"<i4", "1e400", NC_ERANGE},   {"<i4", "NaN", NC_ERANGE},
        {"<i4", "\"NaN\"", NC_ERANGE}, {"<i4", "\"-Infinity\"", NC_ERANGE},
        {"<i4", "3000000000", NC_ERANGE}, {"<i4", "1e30", NC_ERANGE},
        {"|u1", "-1", NC_ERANGE},      {"|u1", "256", NC_ERANGE},
        {"|i1", "128", NC_ERANGE},     {"<u8", "-1", NC_ERANGE},
        {"<i8", "9223372036854775808", NC_ERANGE}, {"<f4", "1e39", NC_ERANGE},
        {"<u4", "-0.5", NC_ERANGE},
        {"<i4", "1.5", NC_NOERR},      {"<i4", "-2147483648", NC_NOERR},
        {"<u8", "18446744073709551615", NC_NOERR}, {"<f4", "\"Infinity\"", NC_NOERR},
        {"<f4", "\"NaN\"", NC_NOERR},  {"<f8", "1e300", NC_NOERR},
        {"|i1", "true", NC_NOERR},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int ncid, stat;
        fill_store("range.zarr", cases[i].dtype, cases[i].fill);
        stat = open_store("range.zarr", &ncid);
        CHECK(stat == cases[i].want, "%s fill %s: got %d (%s), want %d", cases[i].dtype,
              cases[i].fill, stat, nc_strerror(stat), cases[i].want);
        if (stat == NC_NOERR)
            nc_close(ncid);
    }
    /* the value kept for one that fits */
    {
        int ncid, nofill = -1, fill = 0;
        fill_store("range.zarr", "<i4", "1.5");
        if (open_store("range.zarr", &ncid) == NC_NOERR) {
            OK(nc_inq_var_fill(ncid, 0, &nofill, &fill));
            CHECK(fill == 1, "1.5 -> %d", fill);
            nc_close(ncid);
        }
    }
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    mkdir(argv[1], 0777);
    if (chdir(argv[1]) != 0 || getcwd(cwd, sizeof cwd) == NULL) {
        perror(argv[1]);
        return 2;
    }
    test_relative_url();
    test_rootless();
    test_json_text();
    test_no_synth_fill();
    test_fill_range();
    return nct_summary("tst_zmeta_compat");
}
