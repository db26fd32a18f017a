/* tst_storage4.c: per-variable storage of netCDF-4 files: default chunk
 * sizes (the values upstream computes, taken from the reference), explicit
 * chunking, contiguous and compact storage, deflate/shuffle/fletcher32/szip
 * and generic filters, endianness, fill values and no-fill, multiple
 * unlimited dimensions, each read back before and after reopen with the
 * data intact.  Built against the reference too (ref_tst_storage4). */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>
#include <netcdf_filter.h>

#define PATH "tst_storage4.nc"

/* Default chunking of a variable with these dimension lengths (0 =
 * unlimited) and type; storage and chunk sizes as the reference answers. */
struct dflt {
    const char *name;
    nc_type type;
    int ndims;
    size_t lens[4];
    int deflate;
    int storage;
    size_t chunks[4];
};

static const struct dflt dflts[] = {
    {"fixed_small", NC_INT, 2, {100, 7}, 0, NC_CONTIGUOUS, {0}},
    {"fixed_deflate", NC_INT, 2, {100, 7}, 1, NC_CHUNKED, {100, 7}},
    {"rec1d_int", NC_INT, 1, {0}, 0, NC_CHUNKED, {1024}},
    {"rec1d_double", NC_DOUBLE, 1, {0}, 0, NC_CHUNKED, {512}},
    {"rec1d_byte", NC_BYTE, 1, {0}, 0, NC_CHUNKED, {4096}},
    {"rec3d", NC_FLOAT, 3, {0, 100, 7}, 0, NC_CHUNKED, {1, 100, 7}},
    {"rec_big", NC_DOUBLE, 3, {0, 1000, 2000}, 0, NC_CHUNKED, {1, 1000, 2000}},
    {"two_unlim", NC_INT, 2, {0, 0}, 0, NC_CHUNKED, {2048, 2048}},
    {"fixed_big_deflate", NC_DOUBLE, 2, {5000, 3000}, 1, NC_CHUNKED, {1667, 1000}},
    {"fixed_4d_deflate", NC_SHORT, 4, {10, 20, 30, 40}, 1, NC_CHUNKED, {10, 20, 30, 40}},
    {"unlim_mid", NC_INT, 3, {10, 0, 50}, 0, NC_CHUNKED, {10, 1, 50}},
};
#define NDFLT (sizeof dflts / sizeof dflts[0])

static void
check_defaults(int ncid, const char *when)
{
    for (size_t i = 0; i < NDFLT; i++) {
        int v = -1, st = -1;
        size_t cs[4] = {0, 0, 0, 0};
        OK(nc_inq_varid(ncid, dflts[i].name, &v));
        OK(nc_inq_var_chunking(ncid, v, &st, cs));
        int good = st == dflts[i].storage;
        if (st == NC_CHUNKED)
            for (int d = 0; d < dflts[i].ndims; d++) good &= cs[d] == dflts[i].chunks[d];
        CHECK(good, "%s: default storage of %s: %d chunks %zu,%zu,%zu,%zu", when, dflts[i].name, st, cs[0],
              cs[1], cs[2], cs[3]);
    }
}

static void
test_defaults(void)
{
    int ncid;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    for (size_t i = 0; i < NDFLT; i++) {
        int dims[4], v;
        for (int d = 0; d < dflts[i].ndims; d++) {
            char dn[64];
            snprintf(dn, sizeof dn, "%s_%d", dflts[i].name, d);
            MUST(nc_def_dim(ncid, dn, dflts[i].lens[d], &dims[d]));
        }
        MUST(nc_def_var(ncid, dflts[i].name, dflts[i].type, dflts[i].ndims, dims, &v));
        if (dflts[i].deflate) MUST(nc_def_var_deflate(ncid, v, 0, 1, 1));
    }
    check_defaults(ncid, "define mode");
    OK(nc_enddef(ncid));
    check_defaults(ncid, "data mode");
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    check_defaults(ncid, "reopen");
    OK(nc_close(ncid));
}

/* Explicit settings, data, and the same answers after reopen. */
static int v_ch, v_ct, v_cp, v_fl, v_be, v_le, v_nf, v_sz, v_mu;

static void
check_settings(int ncid, const char *when)
{
    int st, sh, de, lv, f, e, nf;
    size_t cs[3];
    OK(nc_inq_var_chunking(ncid, v_ch, &st, cs));
    CHECK(st == NC_CHUNKED && cs[0] == 1 && cs[1] == 5 && cs[2] == 6, "%s: chunks %d %zu %zu %zu", when, st,
          cs[0], cs[1], cs[2]);
    OK(nc_inq_var_deflate(ncid, v_ch, &sh, &de, &lv));
    CHECK(sh == 1 && de == 1 && lv == 4, "%s: deflate %d %d %d", when, sh, de, lv);
    OK(nc_inq_var_chunking(ncid, v_ct, &st, NULL));
    CHECK(st == NC_CONTIGUOUS, "%s: contiguous %d", when, st);
    OK(nc_inq_var_chunking(ncid, v_cp, &st, NULL));
    CHECK(st == NC_COMPACT, "%s: compact %d", when, st);
    OK(nc_inq_var_fletcher32(ncid, v_fl, &f));
    CHECK(f == 1, "%s: fletcher32 %d", when, f);
    OK(nc_inq_var_endian(ncid, v_be, &e));
    CHECK(e == NC_ENDIAN_BIG, "%s: big endian %d", when, e);
    OK(nc_inq_var_endian(ncid, v_le, &e));
    CHECK(e == NC_ENDIAN_LITTLE, "%s: little endian %d", when, e);
    short fv = 0;
    OK(nc_inq_var_fill(ncid, v_le, &nf, &fv));
    CHECK(nf == 0 && fv == -1, "%s: fill %d %d", when, nf, fv);
    OK(nc_inq_var_fill(ncid, v_nf, &nf, NULL));
    CHECK(nf == 1, "%s: nofill %d", when, nf);
    size_t nids = 0;
    unsigned ids[4] = {0, 0, 0, 0};
    OK(nc_inq_var_filter_ids(ncid, v_ch, &nids, ids));
    CHECK(nids == 2 && ids[0] == H5Z_FILTER_SHUFFLE && ids[1] == H5Z_FILTER_DEFLATE, "%s: filter ids %zu %u %u",
          when, nids, ids[0], ids[1]);
    size_t np = 0;
    unsigned params[4] = {0};
    OK(nc_inq_var_filter_info(ncid, v_ch, H5Z_FILTER_DEFLATE, &np, params));
    CHECK(np == 1 && params[0] == 4, "%s: deflate params %zu %u", when, np, params[0]);
    EXPECT(nc_inq_var_filter_info(ncid, v_ch, H5Z_FILTER_FLETCHER32, &np, params), NC_ENOFILTER);
    if (v_sz >= 0) {
        int mask = -1, ppb = -1;
        OK(nc_inq_var_szip(ncid, v_sz, &mask, &ppb));
        CHECK((mask & NC_SZIP_NN) && ppb == 16, "%s: szip %d %d", when, mask, ppb);
    }
    /* data */
    float fb[60];
    size_t st3[3] = {1, 0, 0}, ct3[3] = {1, 10, 6};
    OK(nc_get_vara_float(ncid, v_ch, st3, ct3, fb));
    int good = 1;
    for (int i = 0; i < 60; i++) good &= fb[i] == (float)(60 + i);
    CHECK(good, "%s: chunked+deflated data", when);
    short sb[10];
    OK(nc_get_var_short(ncid, v_be, sb));
    CHECK(sb[0] == -300 && sb[9] == 309, "%s: big-endian data %d %d", when, sb[0], sb[9]);
    OK(nc_get_var_short(ncid, v_le, sb));
    CHECK(sb[0] == 5 && sb[3] == -1 && sb[9] == -1, "%s: little-endian data with fill %d %d", when, sb[0], sb[3]);
    int ib[12];
    OK(nc_get_var_int(ncid, v_cp, ib));
    CHECK(ib[0] == 0 && ib[11] == 11, "%s: compact data", when);
    OK(nc_get_var_int(ncid, v_fl, ib));
    CHECK(ib[0] == 7 && ib[11] == 7, "%s: fletcher32 data", when);
    if (v_sz >= 0) {
        int zb[1000];
        OK(nc_get_var_int(ncid, v_sz, zb));
        good = 1;
        for (int i = 0; i < 1000; i++) good &= zb[i] == i % 37;
        CHECK(good, "%s: szip data", when);
    }
    /* two unlimited dimensions grow independently */
    size_t l0 = 0, l1 = 0;
    int dims[2];
    OK(nc_inq_vardimid(ncid, v_mu, dims));
    OK(nc_inq_dimlen(ncid, dims[0], &l0));
    OK(nc_inq_dimlen(ncid, dims[1], &l1));
    CHECK(l0 == 3 && l1 == 5, "%s: unlimited lengths %zu %zu", when, l0, l1);
    int mb[15];
    OK(nc_get_var_int(ncid, v_mu, mb));
    CHECK(mb[0] == NC_FILL_INT && mb[14] == 99, "%s: 2-unlimited data %d %d", when, mb[0], mb[14]);
}

static void
test_settings(void)
{
    int ncid, t, y, x, u1, u2, dims[3];
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    MUST(nc_def_dim(ncid, "y", 10, &y));
    MUST(nc_def_dim(ncid, "x", 12, &x));
    MUST(nc_def_dim(ncid, "u1", NC_UNLIMITED, &u1));
    MUST(nc_def_dim(ncid, "u2", NC_UNLIMITED, &u2));
    dims[0] = t; dims[1] = y; dims[2] = x;
    MUST(nc_def_var(ncid, "chunked", NC_FLOAT, 3, dims, &v_ch));
    size_t cs[3] = {1, 5, 6};
    OK(nc_def_var_chunking(ncid, v_ch, NC_CHUNKED, cs));
    OK(nc_def_var_deflate(ncid, v_ch, 1, 1, 4));
    MUST(nc_def_var(ncid, "contig", NC_INT, 2, dims + 1, &v_ct));
    OK(nc_def_var_chunking(ncid, v_ct, NC_CONTIGUOUS, NULL));
    MUST(nc_def_var(ncid, "compact", NC_INT, 1, &x, &v_cp));
    OK(nc_def_var_chunking(ncid, v_cp, NC_COMPACT, NULL));
    MUST(nc_def_var(ncid, "fletcher", NC_INT, 1, &x, &v_fl));
    OK(nc_def_var_fletcher32(ncid, v_fl, 1));
    MUST(nc_def_var(ncid, "big", NC_SHORT, 1, &y, &v_be));
    OK(nc_def_var_endian(ncid, v_be, NC_ENDIAN_BIG));
    MUST(nc_def_var(ncid, "little", NC_SHORT, 1, &y, &v_le));
    OK(nc_def_var_endian(ncid, v_le, NC_ENDIAN_LITTLE));
    short fv = -1;
    OK(nc_def_var_fill(ncid, v_le, 0, &fv));
    MUST(nc_def_var(ncid, "nofill", NC_DOUBLE, 1, &y, &v_nf));
    OK(nc_def_var_fill(ncid, v_nf, 1, NULL));
    v_sz = -1;
#if NC_HAS_SZIP
    {
        int dz;
        MUST(nc_def_dim(ncid, "z", 1000, &dz));
        MUST(nc_def_var(ncid, "szip", NC_INT, 1, &dz, &v_sz));
        OK(nc_def_var_szip(ncid, v_sz, NC_SZIP_NN, 16));
    }
#endif
    int ud[2] = {u1, u2};
    MUST(nc_def_var(ncid, "multi", NC_INT, 2, ud, &v_mu));
    /* errors */
    EXPECT(nc_def_var_chunking(ncid, v_mu, NC_CONTIGUOUS, NULL), NC_EINVAL);
    size_t bad[3] = {1, 11, 6};
    EXPECT(nc_def_var_chunking(ncid, v_ch, NC_CHUNKED, bad), NC_EBADCHUNK);
#ifdef NCT_STRICT_DOCS
    /* The reference, and ours following it, accept level 10 here (then
     * enddef fails in HDF5) and then -1: upstream's documented range is
     * 0..9.  Compiled only with -DNCT_STRICT_DOCS. */
    EXPECT(nc_def_var_deflate(ncid, v_ch, 0, 1, 10), NC_EINVAL);
    EXPECT(nc_def_var_deflate(ncid, v_ch, 0, 1, -1), NC_EINVAL);
#endif
    MUST(nc_enddef(ncid));
    EXPECT(nc_def_var_chunking(ncid, v_ch, NC_CHUNKED, cs), NC_ELATEDEF);
    EXPECT(nc_def_var_deflate(ncid, v_ct, 0, 1, 1), NC_ELATEDEF);
    EXPECT(nc_def_var_endian(ncid, v_ct, NC_ENDIAN_BIG), NC_ELATEDEF);
    /* data */
    float fb[120];
    for (int i = 0; i < 120; i++) fb[i] = (float)i;
    size_t st3[3] = {0, 0, 0}, ct3[3] = {2, 10, 6};
    OK(nc_put_vara_float(ncid, v_ch, st3, ct3, fb));
    EXPECT(nc_def_var_fill(ncid, v_ch, 1, NULL), NC_ELATEDEF);
    short sb[10];
    for (int i = 0; i < 10; i++) sb[i] = (short)(i ? 300 + i : -300);
    OK(nc_put_var_short(ncid, v_be, sb));
    size_t s1 = 0, c1 = 3;
    short lb[3] = {5, 6, 7};
    OK(nc_put_vara_short(ncid, v_le, &s1, &c1, lb));
    int ib[12];
    for (int i = 0; i < 12; i++) ib[i] = i;
    OK(nc_put_var_int(ncid, v_cp, ib));
    for (int i = 0; i < 12; i++) ib[i] = 7;
    OK(nc_put_var_int(ncid, v_fl, ib));
    if (v_sz >= 0) {
        int zb[1000];
        for (int i = 0; i < 1000; i++) zb[i] = i % 37;
        OK(nc_put_var_int(ncid, v_sz, zb));
    }
    size_t ms[2] = {2, 4}, one[2] = {1, 1};
    int ninety9 = 99;
    OK(nc_put_vara_int(ncid, v_mu, ms, one, &ninety9));
    check_settings(ncid, "before close");
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    check_settings(ncid, "after reopen");
    EXPECT(nc_def_var_deflate(ncid, v_ct, 0, 1, 1), NC_EPERM);
    OK(nc_close(ncid));
}

/* nc_set_fill(NC_NOFILL) on the file, fill values of every type, and a
 * _FillValue attribute changed before enddef. */
static void
test_fill(void)
{
    int ncid, d, v[12];
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 4, &d));
    for (int i = 0; i < 11; i++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", nct_ext_types[i]);
        MUST(nc_def_var(ncid, name, nct_ext_types[i], 1, &d, &v[i]));
    }
    MUST(nc_def_var(ncid, "s", NC_STRING, 1, &d, &v[11]));
    int old = -1;
    OK(nc_set_fill(ncid, NC_FILL, &old));
    CHECK(old == NC_FILL, "default fill mode %d", old);
    int nf = -1;
    OK(nc_inq_var_fill(ncid, v[3], &nf, NULL));
    CHECK(nf == 0, "fill on by default");
    int f = 17;
    OK(nc_put_att_int(ncid, v[3], "_FillValue", NC_INT, 1, &f));
    MUST(nc_enddef(ncid));
    size_t s0 = 3, c1 = 1;
    for (int i = 0; i < 11; i++) {
        long double one = 1;
        unsigned char b[8];
        nct_ld_put(nct_ext_types[i], b, 0, nct_ext_types[i] == NC_CHAR ? 'a' : one);
        OK(nc_put_vara(ncid, v[i], &s0, &c1, b));
    }
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    for (int i = 0; i < 11; i++) {
        nc_type t = nct_ext_types[i];
        unsigned char b[32];
        OK(nc_get_var(ncid, v[i], b));
        long double want = t == NC_INT ? 17 : nct_default_fill(t);
        CHECK(nct_same(nct_ld_get(t, b, 0), want) && nct_same(nct_ld_get(t, b, 2), want),
              "fill of type %d", t);
    }
    char *s[4] = {NULL, NULL, NULL, NULL};
    OK(nc_get_var_string(ncid, v[11], s));
    CHECK(s[0] && s[0][0] == 0, "string fill is the empty string");
    nc_free_string(4, s);
    OK(nc_close(ncid));
}

/* Default chunks of a variable defined on an unlimited dimension that
 * already has records: its current length does not count (reference:
 * 4 KiB / element size = 2048 shorts). */
static void
late_unlimited_chunks(void)
{
    int ncid, t, a, w, st = -1;
    size_t cs = 0, s0 = 0, c2 = 2;
    short data[2] = {1, 2};
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "time", NC_UNLIMITED, &t));
    MUST(nc_def_var(ncid, "a", NC_SHORT, 1, &t, &a));
    MUST(nc_enddef(ncid));
    OK(nc_put_vara_short(ncid, a, &s0, &c2, data));
    MUST(nc_redef(ncid));
    MUST(nc_def_var(ncid, "w", NC_SHORT, 1, &t, &w));
    OK(nc_inq_var_chunking(ncid, w, &st, &cs));
    CHECK(st == NC_CHUNKED && cs == 2048, "late var on unlimited dim: %d %zu", st, cs);
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_var_chunking(ncid, w, &st, &cs));
    CHECK(st == NC_CHUNKED && cs == 2048, "late var on unlimited dim after reopen: %d %zu", st, cs);
    OK(nc_close(ncid));
}

/* Variables of user-defined types keep fill on: the reference reads no
 * _NoFill for them (ours wrote HDF5 fill time "never"). */
static void
usertype_fill(void)
{
    int ncid, d, v, nf = -1;
    nc_type c, vl;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_compound(ncid, 8, "c", &c));
    MUST(nc_insert_compound(ncid, c, "a", 0, NC_INT));
    MUST(nc_insert_compound(ncid, c, "b", 4, NC_INT));
    MUST(nc_def_vlen(ncid, "vl", NC_INT, &vl));
    MUST(nc_def_dim(ncid, "n", 2, &d));
    MUST(nc_def_var(ncid, "vc", c, 1, &d, &v));
    MUST(nc_def_var(ncid, "vv", vl, 1, &d, &v));
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_var_fill(ncid, 0, &nf, NULL));
    CHECK(nf == 0, "compound variable no_fill %d", nf);
    OK(nc_inq_var_fill(ncid, 1, &nf, NULL));
    CHECK(nf == 0, "vlen variable no_fill %d", nf);
    OK(nc_close(ncid));
}

int
main(void)
{
    test_defaults();
    late_unlimited_chunks();
    usertype_fill();
    test_settings();
    test_fill();
    return nct_summary("tst_storage4");
}
