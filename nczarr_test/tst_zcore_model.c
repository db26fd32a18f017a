/* tst_zcore_model.c: the netCDF-4 model on Zarr stores through the public
 * API: groups, every atomic type (strings too), attributes of every type,
 * fill values, unlimited growth, renames, reopen, format inquiries, the
 * refusals upstream gives (user types), NC_NOCLOBBER, read-only opens,
 * abort of a new store.  Run per store URL prefix and mode.
 * Usage: tst_zcore_model DIR MODE   (MODE e.g. "nczarr,file", "zarr,file",
 *        "nczarr,zip", "nczarr,file,consolidated", "v3,file"; DIR may be an
 *        S3 prefix "http://127.0.0.1:PORT/bucket/p" with MODE "nczarr,s3") */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <netcdf.h>
#include "nctst.h"

static char url[4096], dir[2048], mode[256];
static int pure, v3;

static const char *
store(const char *name)
{
    /* DIR may be a local directory or a remote prefix (http://host/bucket/p). */
    if (strstr(dir, "://"))
        snprintf(url, sizeof url, "%s/%s.zarr#mode=%s", dir, name, mode);
    else
        snprintf(url, sizeof url, "file://%s/%s.zarr#mode=%s", dir, name, mode);
    return url;
}

static void
test_types(void)
{
    int ncid, dimid, varid[12], g2;
    static const nc_type types[] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE,
                                    NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64, NC_STRING};
    char name[32];
    double dv[4] = {1.5, -2.25, 1e300, -0.0};
    float fv[4] = {1.5f, NAN, INFINITY, -3.0f};
    long long i64[4] = {-9223372036854775807LL - 1, 5, -7, 9223372036854775807LL};
    unsigned long long u64[4] = {18446744073709551615ULL, 0, 1, 9223372036854775808ULL};
    const char *strs[4] = {"alpha", "", "gamma delta", "\xc3\xa9t\xc3\xa9"};
    char *sback[4];

    MUST(nc_create(store("types"), NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 4, &dimid));
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "v%d", (int)types[i]);
        MUST(nc_def_var(ncid, name, types[i], 1, &dimid, &varid[i]));
    }
    /* Attributes of every type on the first var and the root. */
    OK(nc_put_att_double(ncid, NC_GLOBAL, "ad", NC_DOUBLE, 4, dv));
    OK(nc_put_att_float(ncid, NC_GLOBAL, "af", NC_FLOAT, 4, fv));
    OK(nc_put_att_longlong(ncid, NC_GLOBAL, "ai64", NC_INT64, 4, i64));
    OK(nc_put_att_ulonglong(ncid, NC_GLOBAL, "au64", NC_UINT64, 4, u64));
    OK(nc_put_att_string(ncid, NC_GLOBAL, "as", 4, strs));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "at", 5, "hello"));
    {
        signed char b = -5;
        unsigned short us = 65535;
        short s1 = -300;
        unsigned int ui = 4000000000u;
        unsigned char ub = 200;
        OK(nc_put_att_schar(ncid, varid[0], "ab", NC_BYTE, 1, &b));
        OK(nc_put_att_ushort(ncid, varid[0], "aus", NC_USHORT, 1, &us));
        OK(nc_put_att_short(ncid, varid[0], "as", NC_SHORT, 1, &s1));
        OK(nc_put_att_uint(ncid, varid[0], "aui", NC_UINT, 1, &ui));
        OK(nc_put_att_uchar(ncid, varid[0], "aub", NC_UBYTE, 1, &ub));
    }
    MUST(nc_def_grp(ncid, "g", &g2));
    OK(nc_enddef(ncid));
    OK(nc_put_var_double(ncid, varid[5], dv));
    OK(nc_put_var_float(ncid, varid[4], fv));
    OK(nc_put_var_longlong(ncid, varid[9], i64));
    OK(nc_put_var_ulonglong(ncid, varid[10], u64));
    OK(nc_put_var_string(ncid, varid[11], strs));
    OK(nc_put_var_text(ncid, varid[1], "wxyz"));
    OK(nc_close(ncid));

    MUST(nc_open(store("types"), NC_NOWRITE, &ncid));
    {
        int fmt, fmtx, m;
        OK(nc_inq_format(ncid, &fmt));
        CHECK(fmt == NC_FORMAT_NETCDF4, "format %d", fmt);
        OK(nc_inq_format_extended(ncid, &fmtx, &m));
        CHECK(fmtx == NC_FORMATX_NCZARR, "formatx %d", fmtx);
    }
    for (int i = 0; i < 12; i++) {
        nc_type t;
        snprintf(name, sizeof name, "v%d", (int)types[i]);
        OK(nc_inq_varid(ncid, name, &varid[i]));
        OK(nc_inq_vartype(ncid, varid[i], &t));
        /* Pure Zarr v3 has no char type: it reads back as ubyte. */
        CHECK(t == types[i] || (pure && v3 && types[i] == NC_CHAR && t == NC_UBYTE), "type of %s: %d", name, t);
    }
    {
        double d2[4];
        float f2[4];
        long long l2[4];
        unsigned long long u2[4];
        char txt[8] = {0};
        nc_type t;
        size_t len;
        OK(nc_get_var_double(ncid, varid[5], d2));
        CHECK(memcmp(d2, dv, sizeof dv) == 0, "double data");
        OK(nc_get_var_float(ncid, varid[4], f2));
        CHECK(f2[0] == 1.5f && isnan(f2[1]) && isinf(f2[2]) && f2[3] == -3.0f, "float data");
        OK(nc_get_var_longlong(ncid, varid[9], l2));
        CHECK(memcmp(l2, i64, sizeof l2) == 0, "int64 data");
        OK(nc_get_var_ulonglong(ncid, varid[10], u2));
        CHECK(memcmp(u2, u64, sizeof u2) == 0, "uint64 data");
        OK(nc_get_var_string(ncid, varid[11], sback));
        for (int i = 0; i < 4; i++)
            CHECK(strcmp(sback[i], strs[i]) == 0, "string %d: '%s'", i, sback[i]);
        nc_free_string(4, sback);
        if (pure && v3)
            OK(nc_get_var_uchar(ncid, varid[1], (unsigned char *)txt));
        else
            OK(nc_get_var_text(ncid, varid[1], txt));
        CHECK(memcmp(txt, "wxyz", 4) == 0, "text data '%s'", txt);

        /* Attributes come back with their types (NCZarr) or inferred (pure). */
        OK(nc_inq_att(ncid, NC_GLOBAL, "ad", &t, &len));
        CHECK(t == NC_DOUBLE && len == 4, "ad %d %zu", t, len);
        OK(nc_get_att_double(ncid, NC_GLOBAL, "ad", d2));
        CHECK(d2[0] == 1.5 && d2[2] == 1e300, "ad values");
        OK(nc_inq_att(ncid, NC_GLOBAL, "af", &t, &len));
        CHECK(len == 4 && (pure ? t == NC_DOUBLE : t == NC_FLOAT), "af %d %zu", t, len);
        /* Pure Zarr reads it as double: Infinity to float is NC_ERANGE. */
        EXPECT(nc_get_att_float(ncid, NC_GLOBAL, "af", f2), pure ? NC_ERANGE : NC_NOERR);
        CHECK(f2[0] == 1.5f && isnan(f2[1]) && isinf(f2[2]), "af values");
        OK(nc_inq_att(ncid, NC_GLOBAL, "ai64", &t, &len));
        CHECK(t == NC_INT64 && len == 4, "ai64 %d", t);
        OK(nc_get_att_longlong(ncid, NC_GLOBAL, "ai64", l2));
        CHECK(memcmp(l2, i64, sizeof l2) == 0, "ai64 values");
        OK(nc_inq_att(ncid, NC_GLOBAL, "au64", &t, &len));
        CHECK(pure ? (t == NC_UINT64 || t == NC_INT64 || t == NC_DOUBLE) : t == NC_UINT64, "au64 %d", t);
        if (!pure) {
            OK(nc_get_att_ulonglong(ncid, NC_GLOBAL, "au64", u2));
            CHECK(memcmp(u2, u64, sizeof u2) == 0, "au64 values");
        }
        OK(nc_inq_att(ncid, NC_GLOBAL, "as", &t, &len));
        CHECK(t == NC_STRING && len == 4, "as %d %zu", t, len);
        OK(nc_get_att_string(ncid, NC_GLOBAL, "as", sback));
        for (int i = 0; i < 4; i++)
            CHECK(strcmp(sback[i], strs[i]) == 0, "att string %d", i);
        nc_free_string(4, sback);
        OK(nc_inq_att(ncid, NC_GLOBAL, "at", &t, &len));
        CHECK(t == NC_CHAR && len == 5, "at %d %zu", t, len);
        if (!pure) {
            OK(nc_inq_att(ncid, varid[0], "aus", &t, &len));
            CHECK(t == NC_USHORT, "aus %d", t);
            OK(nc_inq_att(ncid, varid[0], "ab", &t, &len));
            CHECK(t == NC_BYTE, "ab %d", t);
            OK(nc_inq_att(ncid, varid[0], "aui", &t, &len));
            CHECK(t == NC_UINT, "aui %d", t);
        }
    }
    {
        int ng, gid;
        OK(nc_inq_grps(ncid, &ng, NULL));
        CHECK(ng == 1, "groups %d", ng);
        OK(nc_inq_ncid(ncid, "g", &gid));
    }
    /* Read-only: writes refused. */
    EXPECT(nc_redef(ncid), NC_EPERM);
    OK(nc_close(ncid));
}

static void
test_fill_unlimited(void)
{
    int ncid, d[2], v, v2, nd;
    size_t len, start[2] = {0, 0}, count[2] = {1, 3};
    int vals[3] = {1, 2, 3}, back[12];
    int fill = -99;

    MUST(nc_create(store("unlim"), NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    MUST(nc_def_dim(ncid, "x", 3, &d[1]));
    MUST(nc_def_var(ncid, "v", NC_INT, 2, d, &v));
    OK(nc_def_var_fill(ncid, v, NC_FILL, &fill));
    MUST(nc_def_var(ncid, "nofill", NC_INT, 2, d, &v2));
    OK(nc_def_var_fill(ncid, v2, NC_NOFILL, NULL));
    OK(nc_enddef(ncid));
    start[0] = 3; /* records 0..2 never written: fill */
    OK(nc_put_vara_int(ncid, v, start, count, vals));
    OK(nc_inq_dimlen(ncid, d[0], &len));
    CHECK(len == 4, "unlimited length %zu", len);
    OK(nc_close(ncid));

    MUST(nc_open(store("unlim"), NC_WRITE, &ncid));
    OK(nc_inq_unlimdims(ncid, &nd, NULL));
    CHECK(nd == (pure ? 0 : 1), "unlimited dims %d", nd);
    OK(nc_inq_dimlen(ncid, 0, &len));
    CHECK(len == 4, "length after reopen %zu", len);
    OK(nc_inq_varid(ncid, "v", &v));
    OK(nc_inq_varid(ncid, "nofill", &v2));
    OK(nc_get_var_int(ncid, v, back));
    CHECK(back[0] == -99 && back[8] == -99 && back[9] == 1 && back[11] == 3, "fill/data %d %d %d",
          back[0], back[9], back[11]);
    {
        int nofill, fv;
        OK(nc_inq_var_fill(ncid, v, &nofill, &fv));
        CHECK(!nofill && fv == -99, "fill %d %d", nofill, fv);
        OK(nc_inq_var_fill(ncid, v2, &nofill, NULL));
        /* Zarr v3 always has a fill value: pure v3 cannot say "no fill". */
        CHECK(nofill || (pure && v3), "nofill var %d", nofill);
    }
    if (!pure) {
        /* Growing again after reopen. */
        start[0] = 5;
        OK(nc_put_vara_int(ncid, v, start, count, vals));
        OK(nc_inq_dimlen(ncid, 0, &len));
        CHECK(len == 6, "regrown %zu", len);
    }
    OK(nc_close(ncid));
    if (!pure) {
        MUST(nc_open(store("unlim"), NC_NOWRITE, &ncid));
        OK(nc_inq_dimlen(ncid, 0, &len));
        CHECK(len == 6, "regrown after reopen %zu", len);
        OK(nc_close(ncid));
    }
}

static void
test_rename_groups(void)
{
    int ncid, g1, g2, d, v, gv, varid;
    int vals[4] = {10, 20, 30, 40}, back[4];
    char name[NC_MAX_NAME + 1];

    MUST(nc_create(store("rename"), NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 4, &d));
    MUST(nc_def_var(ncid, "a", NC_INT, 1, &d, &v));
    MUST(nc_def_grp(ncid, "g1", &g1));
    MUST(nc_def_grp(g1, "g2", &g2));
    {
        int gd;
        MUST(nc_def_dim(g1, "gd", 4, &gd));
        MUST(nc_def_var(g2, "deep", NC_INT, 1, &gd, &gv));
    }
    OK(nc_put_att_text(g2, NC_GLOBAL, "title", 4, "deep"));
    OK(nc_enddef(ncid));
    OK(nc_put_var_int(ncid, v, vals));
    OK(nc_put_var_int(g2, gv, vals));
    OK(nc_close(ncid));

    MUST(nc_open(store("rename"), NC_WRITE, &ncid));
    OK(nc_rename_var(ncid, 0, "b"));
    OK(nc_inq_ncid(ncid, "g1", &g1));
    OK(nc_rename_grp(g1, "h1"));
    OK(nc_rename_dim(ncid, d, "m"));
    OK(nc_rename_att(ncid, 0, "nonexistent", "x") == NC_ENOTATT ? NC_NOERR : NC_EINVAL);
    OK(nc_close(ncid));

    MUST(nc_open(store("rename"), NC_NOWRITE, &ncid));
    OK(nc_inq_varname(ncid, 0, name));
    CHECK(strcmp(name, "b") == 0, "renamed var '%s'", name);
    OK(nc_get_var_int(ncid, 0, back));
    CHECK(back[3] == 40, "data moved with the var %d", back[3]);
    EXPECT(nc_inq_ncid(ncid, "g1", &g1), NC_ENOGRP);
    OK(nc_inq_grp_full_ncid(ncid, "/h1/g2", &g2));
    OK(nc_inq_varid(g2, "deep", &varid));
    OK(nc_get_var_int(g2, varid, back));
    CHECK(back[0] == 10, "data moved with the group %d", back[0]);
    {
        int dimid, nd;
        OK(nc_inq_vardimid(g2, varid, &dimid));
        OK(nc_inq_dimname(g2, dimid, name));
        CHECK(strcmp(name, "gd") == 0 || (pure && strcmp(name, "_Anonymous_Dim_4") == 0), "deep's dim '%s'", name);
        OK(nc_inq_vardimid(ncid, 0, &dimid));
        OK(nc_inq_dimname(ncid, dimid, name));
        CHECK(strcmp(name, "m") == 0 || (pure && strstr(mode, "noxarray")), "renamed dim '%s'", name);
        OK(nc_inq_ndims(ncid, &nd));
    }
    {
        size_t len;
        OK(nc_inq_attlen(g2, NC_GLOBAL, "title", &len));
        CHECK(len == 4, "group attribute len %zu", len);
    }
    OK(nc_close(ncid));
}

/* The _Codecs virtual attribute names the codec chain (upstream's NCZarr). */
static void
test_codecs(void)
{
    int ncid, d, v, v2;
    size_t len = 0;
    nc_type t;
    char text[1024] = {0};
    MUST(nc_create(store("codecs"), NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 100, &d));
    MUST(nc_def_var(ncid, "z", NC_INT, 1, &d, &v));
    MUST(nc_def_var(ncid, "plain", NC_INT, 1, &d, &v2));
    OK(nc_def_var_deflate(ncid, v, 1, 1, 3));
    OK(nc_close(ncid));
    MUST(nc_open(store("codecs"), NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "z", &v));
    OK(nc_inq_varid(ncid, "plain", &v2));
    OK(nc_inq_att(ncid, v, "_Codecs", &t, &len));
    CHECK(t == NC_CHAR && len > 0 && len < sizeof text, "_Codecs %d %zu", t, len);
    OK(nc_get_att_text(ncid, v, "_Codecs", text));
    CHECK(strstr(text, v3 ? "gzip" : "zlib") != NULL, "_Codecs text '%s'", text);
    /* v3 always names at least its "bytes" codec. */
    EXPECT(nc_inq_att(ncid, v2, "_Codecs", &t, &len), v3 ? NC_NOERR : NC_ENOTATT);
    OK(nc_close(ncid));
}

/* NC_STRING widths in v2: _nczarr_maxstrlen (variable), else
 * _nczarr_default_maxstrlen (root), else 128; longer strings are cut. */
static void
test_maxstrlen(void)
{
    int ncid, d, v1, v2;
    int w4 = 4, w6 = 6;
    const char *in[2] = {"abcdefgh", "xy"};
    char *out[2];
    MUST(nc_create(store("maxstr"), NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 2, &d));
    MUST(nc_def_var(ncid, "s4", NC_STRING, 1, &d, &v1));
    MUST(nc_def_var(ncid, "s6", NC_STRING, 1, &d, &v2));
    OK(nc_put_att_int(ncid, v1, "_nczarr_maxstrlen", NC_INT, 1, &w4));
    OK(nc_put_att_int(ncid, NC_GLOBAL, "_nczarr_default_maxstrlen", NC_INT, 1, &w6));
    OK(nc_enddef(ncid));
    OK(nc_put_var_string(ncid, v1, in));
    OK(nc_put_var_string(ncid, v2, in));
    OK(nc_close(ncid));
    MUST(nc_open(store("maxstr"), NC_NOWRITE, &ncid));
    OK(nc_get_var_string(ncid, v1, out));
    CHECK(strcmp(out[0], v3 ? "abcdefgh" : "abcd") == 0 && strcmp(out[1], "xy") == 0, "s4 '%s'", out[0]);
    nc_free_string(2, out);
    OK(nc_get_var_string(ncid, v2, out));
    CHECK(strcmp(out[0], v3 ? "abcdefgh" : "abcdef") == 0, "s6 '%s'", out[0]);
    nc_free_string(2, out);
    OK(nc_close(ncid));
}

static void
test_misc(void)
{
    int ncid, t, scal;
    double x = 42.5, y = 0;

    /* User-defined types are not in the NCZarr model (as upstream). */
    MUST(nc_create(store("misc"), NC_CLOBBER, &ncid));
    EXPECT(nc_def_compound(ncid, 8, "c", &t), NC_ENOTNC4);
    EXPECT(nc_def_vlen(ncid, "vl", NC_INT, &t), NC_ENOTNC4);
    EXPECT(nc_def_enum(ncid, NC_INT, "e", &t), NC_ENOTNC4);
    EXPECT(nc_def_opaque(ncid, 4, "o", &t), NC_ENOTNC4);
    /* A scalar. */
    MUST(nc_def_var(ncid, "scalar", NC_DOUBLE, 0, NULL, &scal));
    OK(nc_put_var_double(ncid, scal, &x));
    OK(nc_close(ncid));
    MUST(nc_open(store("misc"), NC_NOWRITE, &ncid));
    {
        int nd;
        OK(nc_inq_varndims(ncid, 0, &nd));
        /* Pure Zarr without xarray's names cannot tell a scalar from [1]. */
        CHECK(nd == 0 || (pure && strstr(mode, "noxarray") && nd == 1), "scalar rank %d", nd);
        OK(nc_get_var_double(ncid, 0, &y));
        CHECK(y == 42.5, "scalar value %g", y);
    }
    OK(nc_close(ncid));
    /* NC_NOCLOBBER on an existing store. */
    EXPECT(nc_create(store("misc"), NC_NOCLOBBER, &ncid), NC_EEXIST);
    /* Abort of a new store removes it. */
    MUST(nc_create(store("aborted"), NC_CLOBBER, &ncid));
    OK(nc_abort(ncid));
    CHECK(nc_open(store("aborted"), NC_NOWRITE, &ncid) != NC_NOERR, "aborted store still there");
    /* A store that does not exist. */
    CHECK(nc_open(store("never-made"), NC_NOWRITE, &ncid) != NC_NOERR, "open of a missing store");
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s DIR MODE\n", argv[0]);
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    snprintf(mode, sizeof mode, "%s", argv[2]);
    pure = strstr(mode, "zarr") && !strstr(mode, "nczarr");
    v3 = strstr(mode, "v3") != NULL;
    test_types();
    test_fill_unlimited();
    test_rename_groups();
    test_codecs();
    test_maxstrlen();
    test_misc();
    return nct_summary("tst_zcore_model");
}
