/* tst_dap2_hostile.c: hostile DAP2 responses read through file:// URLs give
 * clean NC_* errors (no crash, no leak, no huge allocation): huge declared
 * sizes, deep nesting, truncated and inconsistent .dods data, bad sequence
 * markers, huge string lengths, garbage DAS (ignored), server error bodies.
 *
 *   tst_dap2_hostile WORKDIR
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "netcdf.h"
#include "nctst.h"

static char dir[1024];

/* Writes NAME.dds (NULL: none), NAME.das (NULL: none) and NAME.dods = DDS
 * text + "Data:\n" + xdr (xdrlen bytes; xdr NULL: no .dods). */
static void
put(const char *name, const char *dds, const char *das, const unsigned char *xdr, size_t xdrlen)
{
    char path[1200];
    const char *ext[] = {"dds", "das", "dods"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext[i]);
        remove(path);
    }
    if (dds) {
        snprintf(path, sizeof path, "%s/%s.dds", dir, name);
        nct_write_file(path, (const unsigned char *)dds, strlen(dds));
    }
    if (das) {
        snprintf(path, sizeof path, "%s/%s.das", dir, name);
        nct_write_file(path, (const unsigned char *)das, strlen(das));
    }
    if (xdr) {
        size_t tl = strlen(dds) + 7;
        unsigned char *b = malloc(tl + xdrlen + 1);
        snprintf((char *)b, tl + 1, "%s\nData:\n", dds);
        memcpy(b + tl, xdr, xdrlen);
        snprintf(path, sizeof path, "%s/%s.dods", dir, name);
        nct_write_file(path, b, tl + xdrlen);
        free(b);
    }
}

static int
open_url(const char *name, int *ncidp)
{
    char url[1200];
    snprintf(url, sizeof url, "file://%s/%s", dir, name);
    return nc_open(url, NC_NOWRITE, ncidp);
}

/* Reads the first value of variable v as int: the status. */
static int
read1(int ncid, const char *v)
{
    int varid, stat, ndims;
    size_t start[NC_MAX_VAR_DIMS] = {0}, count[NC_MAX_VAR_DIMS];
    char buf[256];
    if ((stat = nc_inq_varid(ncid, v, &varid)))
        return stat;
    nc_inq_varndims(ncid, varid, &ndims);
    for (int i = 0; i < ndims; i++)
        count[i] = 1;
    return nc_get_vara(ncid, varid, start, count, buf);
}

static void
test_sizes(void)
{
    int ncid;
    /* the product of the dimensions beyond 2^40 elements */
    put("huge", "Dataset { Int32 x[2147483647][2147483647][2147483647]; } d;", NULL, NULL, 0);
    EXPECT(open_url("huge", &ncid), NC_EDDS);
    /* negative, non-numeric and out-of-range sizes */
    put("neg", "Dataset { Int32 x[-3]; } d;", NULL, NULL, 0);
    EXPECT(open_url("neg", &ncid), NC_EDDS);
    put("nan", "Dataset { Int32 x[abc]; } d;", NULL, NULL, 0);
    EXPECT(open_url("nan", &ncid), NC_EDDS);
    put("big", "Dataset { Int32 x[4294967296]; } d;", NULL, NULL, 0);
    EXPECT(open_url("big", &ncid), NC_EDDS);
    /* a large declared array whose data is a few bytes: the read fails
     * before anything of that size is allocated */
    static const unsigned char few[] = {0x40, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 1};
    put("lie", "Dataset { Int32 x[1073741824]; } d;", NULL, few, sizeof few);
    if (open_url("lie", &ncid) == NC_NOERR) {
        EXPECT(read1(ncid, "x"), NC_EDATADDS);
        OK(nc_close(ncid));
    } else {
        CHECK(0, "lie: open failed");
    }
}

static void
test_nesting(void)
{
    int ncid;
    size_t n = 200;
    char *dds = malloc(64 + n * 40);
    strcpy(dds, "Dataset {");
    for (size_t i = 0; i < n; i++)
        strcat(dds, " Structure {");
    strcat(dds, " Int32 x;");
    for (size_t i = 0; i < n; i++)
        strcat(dds, " } s;");
    strcat(dds, " } d;");
    put("deep", dds, NULL, NULL, 0);
    EXPECT(open_url("deep", &ncid), NC_EDDS);
    free(dds);
    /* a DAS nested too deeply is ignored, as any malformed DAS */
    char *das = malloc(64 + n * 8);
    strcpy(das, "Attributes {");
    for (size_t i = 0; i < n; i++)
        strcat(das, " a {");
    for (size_t i = 0; i < n; i++)
        strcat(das, " }");
    strcat(das, " }");
    put("deepdas", "Dataset { Int32 x; } d;", das, NULL, 0);
    if (open_url("deepdas", &ncid) == NC_NOERR) {
        int natts = -1;
        OK(nc_inq_natts(ncid, &natts));
        CHECK(natts == 0, "deepdas: %d global attributes", natts);
        OK(nc_close(ncid));
    } else {
        CHECK(0, "deepdas: open failed");
    }
    free(das);
}

static void
test_data(void)
{
    int ncid;
    const char *dds = "Dataset { Int32 a[4]; String s; } d;";
    /* truncated: the counts, then two of four values */
    static const unsigned char cut[] = {0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2};
    put("cut", dds, NULL, cut, sizeof cut);
    if (open_url("cut", &ncid) == NC_NOERR) {
        EXPECT(read1(ncid, "a"), NC_EDATADDS);
        EXPECT(read1(ncid, "a"), NC_EDATADDS);  /* and again, from the failed load */
        OK(nc_close(ncid));
    } else {
        CHECK(0, "cut: open failed");
    }
    /* counts that disagree with the declaration */
    static const unsigned char badcount[] = {0, 0, 0, 5, 0, 0, 0, 5};
    put("badcount", dds, NULL, badcount, sizeof badcount);
    if (open_url("badcount", &ncid) == NC_NOERR) {
        EXPECT(read1(ncid, "a"), NC_EDATADDS);
        OK(nc_close(ncid));
    }
    /* a string longer than the response */
    static const unsigned char longstr[] = {0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2,
                                            0, 0, 0, 3, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xf0, 'a'};
    put("longstr", dds, NULL, longstr, sizeof longstr);
    if (open_url("longstr", &ncid) == NC_NOERR) {
        EXPECT(read1(ncid, "s"), NC_EDATADDS);
        OK(nc_close(ncid));
    }
    /* a sequence with a bad record marker: its count is unknown, so (as
     * upstream) the sequence gets no dimension and its member reads fail */
    static const unsigned char badseq[] = {0x5a, 0, 0, 0, 0, 0, 0, 7, 0x12, 0x34, 0x56, 0x78};
    put("badseq", "Dataset { Sequence { Int32 v; } q; } d;", NULL, badseq, sizeof badseq);
    if (open_url("badseq", &ncid) == NC_NOERR) {
        int nvars = -1;
        OK(nc_inq_nvars(ncid, &nvars));
        CHECK(nvars == 1, "badseq: %d variables", nvars);
        EXPECT(read1(ncid, "q.v"), NC_EDATADDS);
        OK(nc_close(ncid));
    } else {
        CHECK(0, "badseq: open failed");
    }
    /* no "Data:" line and no .dds */
    put("nodata", "Dataset { Int32 x; } d;", NULL, NULL, 0);
    {
        char path[1200];
        snprintf(path, sizeof path, "%s/nodata.dds", dir);
        remove(path);
        snprintf(path, sizeof path, "%s/nodata.dods", dir);
        nct_write_file(path, (const unsigned char *)"Dataset { Int32 x; } d;", 23);
    }
    EXPECT(open_url("nodata", &ncid), NC_EDATADDS);
}

/* Selections whose arithmetic overflows are refused, not read. */
static void
test_selection(void)
{
    int ncid, varid;
    static const unsigned char x[] = {0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2,
                                      0, 0, 0, 3, 0, 0, 0, 4};
    put("sel", "Dataset { Int32 a[4]; } d;", NULL, x, sizeof x);
    if (open_url("sel", &ncid) != NC_NOERR) {
        CHECK(0, "sel: open failed");
        return;
    }
    OK(nc_inq_varid(ncid, "a", &varid));
    {
        size_t start[1] = {1}, count[1] = {5};
        ptrdiff_t stride[1] = {(ptrdiff_t)1 << 62};  /* (count-1)*stride wraps to 0 */
        int v[5] = {0, 0, 0, 0, 0};
        EXPECT(nc_get_vars_int(ncid, varid, start, count, stride, v), NC_EEDGE);
        count[0] = 2;
        stride[0] = 2;
        OK(nc_get_vars_int(ncid, varid, start, count, stride, v));
        CHECK(v[0] == 2 && v[1] == 4, "strided values %d %d", v[0], v[1]);
        count[0] = (size_t)-1;
        stride[0] = 1;
        EXPECT(nc_get_vars_int(ncid, varid, start, count, stride, v), NC_EEDGE);
    }
    OK(nc_close(ncid));
}

static void
test_text(void)
{
    int ncid;
    /* garbage, an unterminated DDS, a server error body */
    put("garbage", "\x01\x02 nothing { here", NULL, NULL, 0);
    EXPECT(open_url("garbage", &ncid), NC_EDDS);
    put("unterminated", "Dataset { Structure { Int32 x;", NULL, NULL, 0);
    EXPECT(open_url("unterminated", &ncid), NC_EDDS);
    put("svcerr", "Error { code = 5; message = \"no such dataset\"; };", NULL, NULL, 0);
    EXPECT(open_url("svcerr", &ncid), NC_EDAPSVC);
    /* duplicate names in one scope */
    put("dup", "Dataset { Int32 x; Int16 x; } d;", NULL, NULL, 0);
    EXPECT(open_url("dup", &ncid), NC_EDDS);
    /* a garbage DAS is ignored */
    put("baddas", "Dataset { Int32 x; } d;", "Attributes { x { Int32 a 1 2; } }", NULL, 0);
    if (open_url("baddas", &ncid) == NC_NOERR) {
        int natts = -1, varid;
        OK(nc_inq_varid(ncid, "x", &varid));
        OK(nc_inq_varnatts(ncid, varid, &natts));
        CHECK(natts == 0, "baddas: %d attributes", natts);
        OK(nc_close(ncid));
    } else {
        CHECK(0, "baddas: open failed");
    }
    /* read-only */
    put("ro", "Dataset { Int32 x; } d;", NULL, NULL, 0);
    {
        char url[1200];
        snprintf(url, sizeof url, "file://%s/ro", dir);
        EXPECT(nc_open(url, NC_WRITE, &ncid), NC_EPERM);
    }
}

int
main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "tst_dap2_hostile_dir");
    mkdir(dir, 0755);
    test_sizes();
    test_nesting();
    test_data();
    test_selection();
    test_text();
    return nct_summary("tst_dap2_hostile");
}
