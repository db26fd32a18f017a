/* tst_dap2_params.c: DAP2 client parameters and the _FillValue rules, on
 * small datasets written at test time and read through file:// URLs:
 *   - a Float32 _FillValue of an Int32 variable takes the variable's type
 *     (default, "#fillmismatch") or fails the open ("#nofillmismatch");
 *   - an Int16 _FillValue of a Byte variable with _Unsigned "0" is a byte,
 *     and _Unsigned reads "false";
 *   - "#maxstrlen=N" / "#stringlength=N" set the string dimension, and
 *     "#stringlength_VAR=N" one variable's;
 *   - "#noseqdims" gives sequences one record;
 *   - a Byte value 255 read as int, unsigned char or float is 255 (the
 *     reference reads the same);
 *   - parameters may also come as "[key=value]" prefixes of the URL;
 *   - nothing in the URL is %XX-decoded, the first of a repeated parameter
 *     wins (as the reference).
 *
 *   tst_dap2_params WORKDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "netcdf.h"
#include "nctst.h"

static char dir[1024];

static void
put(const char *name, const char *dds, const char *das, const unsigned char *xdr, size_t xdrlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.dds", dir, name);
    nct_write_file(path, (const unsigned char *)dds, strlen(dds));
    snprintf(path, sizeof path, "%s/%s.das", dir, name);
    nct_write_file(path, (const unsigned char *)das, strlen(das));
    size_t tl = strlen(dds) + 6;
    unsigned char *b = malloc(tl + xdrlen + 1);
    snprintf((char *)b, tl + 1, "%sData:\n", dds);
    memcpy(b + tl, xdr, xdrlen);
    snprintf(path, sizeof path, "%s/%s.dods", dir, name);
    nct_write_file(path, b, tl + xdrlen);
    free(b);
}

static int
open_url(const char *name, const char *frag, int *ncidp)
{
    char url[1200];
    snprintf(url, sizeof url, "file://%s/%s%s", dir, name, frag);
    return nc_open(url, NC_NOWRITE, ncidp);
}

static void
test_fill(void)
{
    int ncid, varid;
    nc_type t;
    char text[16];
    signed char b;
    int i;
    static const unsigned char xi[] = {0, 0, 0, 7};
    put("fill", "Dataset {\n    Int32 i;\n} f;\n",
        "Attributes {\n    i {\n        Float32 _FillValue 100.5;\n    }\n}\n", xi, sizeof xi);
    if (open_url("fill", "", &ncid) == NC_NOERR) {
        OK(nc_inq_varid(ncid, "i", &varid));
        OK(nc_inq_atttype(ncid, varid, "_FillValue", &t));
        OK(nc_get_att_int(ncid, varid, "_FillValue", &i));
        CHECK(t == NC_INT && i == 100, "_FillValue type %d value %d", t, i);
        OK(nc_close(ncid));
    } else {
        CHECK(0, "fill: open failed");
    }
    EXPECT(open_url("fill", "#fillmismatch", &ncid), NC_NOERR);
    nc_close(ncid);
    EXPECT(open_url("fill", "#nofillmismatch", &ncid), NC_EBADTYPE);

    static const unsigned char xb[] = {0, 0, 0, 3, 0, 0, 0, 3, 1, 255, 3, 0};
    put("unsigned", "Dataset {\n    Byte b[3];\n} u;\n",
        "Attributes {\n    b {\n        Int16 _FillValue -1;\n        String _Unsigned \"0\";\n    }\n}\n",
        xb, sizeof xb);
    if (open_url("unsigned", "#nofillmismatch", &ncid) == NC_NOERR) {
        size_t len = 0;
        OK(nc_inq_varid(ncid, "b", &varid));
        OK(nc_inq_atttype(ncid, varid, "_FillValue", &t));
        OK(nc_get_att_schar(ncid, varid, "_FillValue", &b));
        CHECK(t == NC_BYTE && b == -1, "_FillValue type %d value %d", t, b);
        /* reads in another type convert from the DAP type: Byte is unsigned */
        {
            int iv[3];
            unsigned char uv[3];
            float fv[3];
            OK(nc_get_var_int(ncid, varid, iv));
            OK(nc_get_var_uchar(ncid, varid, uv));
            OK(nc_get_var_float(ncid, varid, fv));
            CHECK(iv[1] == 255 && uv[1] == 255 && fv[1] == 255.0f, "byte 255 read as %d %d %g",
                  iv[1], uv[1], fv[1]);
        }
        OK(nc_inq_attlen(ncid, varid, "_Unsigned", &len));
        memset(text, 0, sizeof text);
        OK(nc_get_att_text(ncid, varid, "_Unsigned", text));
        CHECK(len == 5 && strcmp(text, "false") == 0, "_Unsigned %s", text);
        OK(nc_close(ncid));
    } else {
        CHECK(0, "unsigned: open failed");
    }
}

static size_t
dimlen(int ncid, const char *name)
{
    int dimid;
    size_t len = 0;
    if (nc_inq_dimid(ncid, name, &dimid) || nc_inq_dimlen(ncid, dimid, &len))
        return 0;
    return len;
}

static void
test_strings(void)
{
    int ncid, varid;
    char buf[16];
    static const unsigned char xs[] = {0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0,
                                       0, 0, 0, 2, 'h', 'i', 0, 0};
    put("str", "Dataset {\n    String s;\n    String t;\n} s;\n", "Attributes {\n}\n", xs, sizeof xs);
    if (open_url("str", "#maxstrlen=8", &ncid) == NC_NOERR) {
        CHECK(dimlen(ncid, "maxStrlen8") == 8, "maxStrlen8");
        CHECK(dimlen(ncid, "maxStrlen64") == 0, "no maxStrlen64");
        OK(nc_close(ncid));
    }
    /* parameters as "[key=value]" prefixes */
    {
        char url[1200];
        snprintf(url, sizeof url, "[maxstrlen=6][noseqdims]file://%s/str", dir);
        if (nc_open(url, NC_NOWRITE, &ncid) == NC_NOERR) {
            CHECK(dimlen(ncid, "maxStrlen6") == 6, "prefix: maxStrlen6");
            OK(nc_close(ncid));
        } else {
            CHECK(0, "prefix: open failed");
        }
    }
    if (open_url("str", "#stringlength=3&stringlength_t=2", &ncid) == NC_NOERR) {
        size_t start[1] = {0}, count[1] = {3};
        CHECK(dimlen(ncid, "maxStrlen3") == 3, "maxStrlen3");
        CHECK(dimlen(ncid, "maxStrlen2") == 2, "maxStrlen2");
        OK(nc_inq_varid(ncid, "s", &varid));
        OK(nc_get_vara_text(ncid, varid, start, count, buf));
        CHECK(memcmp(buf, "hel", 3) == 0, "s truncated to 3: %.3s", buf);
        OK(nc_close(ncid));
    } else {
        CHECK(0, "str: open failed");
    }
}

static void
test_seq(void)
{
    int ncid;
    static const unsigned char xq[] = {0x5a, 0, 0, 0, 0, 0, 0, 1, 0x5a, 0, 0, 0, 0, 0, 0, 2,
                                       0xa5, 0, 0, 0};
    put("seq", "Dataset {\n    Sequence {\n        Int32 v;\n    } q;\n} s;\n", "Attributes {\n}\n",
        xq, sizeof xq);
    if (open_url("seq", "", &ncid) == NC_NOERR) {
        CHECK(dimlen(ncid, "q") == 2, "q = %zu", dimlen(ncid, "q"));
        OK(nc_close(ncid));
    }
    if (open_url("seq", "#noseqdims", &ncid) == NC_NOERR) {
        CHECK(dimlen(ncid, "q") == 1, "noseqdims: q = %zu", dimlen(ncid, "q"));
        OK(nc_close(ncid));
    } else {
        CHECK(0, "seq: open failed");
    }
}

/* Upstream's DAP2 client decodes no %XX in a URL (the reference 4.9.0
 * does not: file:///d%20s/x is not found, #maxstrlen=1%30 is 1), and the
 * first value of a repeated parameter wins. */
static void
test_url_forms(void)
{
    int ncid;
    char sub[1100], url[1300];
    static const unsigned char xs[] = {0, 0, 0, 2, 'h', 'i', 0, 0};
    snprintf(sub, sizeof sub, "%s/d sp", dir);
    mkdir(sub, 0755);
    snprintf(url, sizeof url, "d sp/u");
    put(url, "Dataset {\n    String s;\n} u;\n", "Attributes {\n}\n", xs, sizeof xs);
    snprintf(url, sizeof url, "file://%s/d sp/u", dir);
    CHECK(nc_open(url, NC_NOWRITE, &ncid) == NC_NOERR && nc_close(ncid) == NC_NOERR,
          "a path with a blank opens");
    snprintf(url, sizeof url, "file://%s/d%%20sp/u", dir);
    CHECK(nc_open(url, NC_NOWRITE, &ncid) != NC_NOERR, "%%20 in the path is not decoded");
    if (open_url("d sp/u", "#maxstrlen=1%30", &ncid) == NC_NOERR) {
        CHECK(dimlen(ncid, "maxStrlen1") == 1, "maxstrlen=1%%30 is 1");
        OK(nc_close(ncid));
    } else {
        CHECK(0, "#maxstrlen=1%%30: open failed");
    }
    snprintf(url, sizeof url, "[maxstrlen=4]file://%s/d sp/u#maxstrlen=8&maxstrlen=9", dir);
    if (nc_open(url, NC_NOWRITE, &ncid) == NC_NOERR) {
        CHECK(dimlen(ncid, "maxStrlen4") == 4 && dimlen(ncid, "maxStrlen8") == 0,
              "the first maxstrlen wins");
        OK(nc_close(ncid));
    } else {
        CHECK(0, "repeated maxstrlen: open failed");
    }
}

int
main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "tst_dap2_params_dir");
    mkdir(dir, 0755);
    test_fill();
    test_strings();
    test_seq();
    test_url_forms();
    return nct_summary("tst_dap2_params");
}
