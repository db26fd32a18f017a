/* tst_copyatt4.c: nc_copy_att and nc_copy_var with enhanced-model types.
 * User-defined types have per-file ids, so a copy must find the output
 * file's equal type (searched in the target group, its ancestors, then the
 * whole tree); strings and vlens must arrive with their contents. */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>

typedef struct { int a; double b; } pair;

/* Define the types the tests use in group g; returns their ids. */
static int
def_types(int g, nc_type *cmp, nc_type *vl, nc_type *en, nc_type *op)
{
    int stat;
    signed char one = 1, two = 2;
    if ((stat = nc_def_compound(g, sizeof(pair), "pair_t", cmp)) ||
        (stat = nc_insert_compound(g, *cmp, "a", offsetof(pair, a), NC_INT)) ||
        (stat = nc_insert_compound(g, *cmp, "b", offsetof(pair, b), NC_DOUBLE)) ||
        (stat = nc_def_vlen(g, "vl_t", NC_SHORT, vl)) ||
        (stat = nc_def_enum(g, NC_BYTE, "en_t", en)) ||
        (stat = nc_insert_enum(g, *en, "one", &one)) ||
        (stat = nc_insert_enum(g, *en, "two", &two)) ||
        (stat = nc_def_opaque(g, 3, "op_t", op)))
        return stat;
    return NC_NOERR;
}

static void
test_copy_atts(void)
{
    int in, out, sub, deep;
    nc_type ci, vi, ei, oi, co, vo, eo, oo, extra;
    pair p[2] = {{1, 2.5}, {-3, 4.25}};
    short s1[2] = {7, 8}, s2[1] = {9};
    nc_vlen_t v[2] = {{2, s1}, {1, s2}};
    signed char e[3] = {1, 2, 1};
    unsigned char o[6] = {1, 2, 3, 4, 5, 6};
    const char *strs[2] = {"alpha", "beta gamma"};

    MUST(nc_create("tst_copyatt4_in.nc", NC_NETCDF4 | NC_CLOBBER, &in));
    MUST(def_types(in, &ci, &vi, &ei, &oi));
    MUST(nc_put_att(in, NC_GLOBAL, "p", ci, 2, p));
    MUST(nc_put_att(in, NC_GLOBAL, "v", vi, 2, v));
    MUST(nc_put_att(in, NC_GLOBAL, "e", ei, 3, e));
    MUST(nc_put_att(in, NC_GLOBAL, "o", oi, 2, o));
    MUST(nc_put_att_string(in, NC_GLOBAL, "s", 2, strs));

    /* Output: an unrelated type first (ids differ from the input's), the
     * equal types in the root, copies made into a grandchild group. */
    MUST(nc_create("tst_copyatt4_out.nc", NC_NETCDF4 | NC_CLOBBER, &out));
    MUST(nc_def_opaque(out, 5, "other_t", &extra));
    MUST(def_types(out, &co, &vo, &eo, &oo));
    MUST(nc_def_grp(out, "sub", &sub));
    MUST(nc_def_grp(sub, "deep", &deep));
    CHECK(co != ci, "test needs different ids (%d, %d)", co, ci);
    const char *names[] = {"p", "v", "e", "o", "s"};
    for (int i = 0; i < 5; i++) {
        OK(nc_copy_att(in, NC_GLOBAL, names[i], deep, NC_GLOBAL));
        OK(nc_copy_att(in, NC_GLOBAL, names[i], out, NC_GLOBAL));
    }

    /* The values, read back through the output's types. */
    nc_type t;
    size_t len;
    pair pr[2];
    OK(nc_inq_att(deep, NC_GLOBAL, "p", &t, &len));
    CHECK(t == co && len == 2, "p: type %d len %zu", t, len);
    OK(nc_get_att(deep, NC_GLOBAL, "p", pr));
    CHECK(pr[0].a == 1 && pr[0].b == 2.5 && pr[1].a == -3 && pr[1].b == 4.25, "p values");
    nc_vlen_t vr[2];
    OK(nc_inq_att(deep, NC_GLOBAL, "v", &t, &len));
    CHECK(t == vo && len == 2, "v: type %d len %zu", t, len);
    OK(nc_get_att(deep, NC_GLOBAL, "v", vr));
    CHECK(vr[0].len == 2 && ((short *)vr[0].p)[1] == 8 && vr[1].len == 1 &&
          ((short *)vr[1].p)[0] == 9, "v values");
    OK(nc_reclaim_data(deep, vo, vr, 2));
    signed char er[3];
    OK(nc_get_att(deep, NC_GLOBAL, "e", er));
    CHECK(memcmp(er, e, 3) == 0, "e values");
    unsigned char orr[6];
    OK(nc_inq_att(out, NC_GLOBAL, "o", &t, &len));
    CHECK(t == oo && len == 2, "o: type %d len %zu", t, len);
    OK(nc_get_att(out, NC_GLOBAL, "o", orr));
    CHECK(memcmp(orr, o, 6) == 0, "o values");
    char *sr[2];
    OK(nc_get_att_string(deep, NC_GLOBAL, "s", sr));
    CHECK(strcmp(sr[0], "alpha") == 0 && strcmp(sr[1], "beta gamma") == 0, "s values");
    OK(nc_free_string(2, sr));

    /* A file without an equal type: NC_EBADTYPE, nothing written. */
    int bare;
    MUST(nc_create("tst_copyatt4_bare.nc", NC_NETCDF4 | NC_CLOBBER, &bare));
    EXPECT(nc_copy_att(in, NC_GLOBAL, "p", bare, NC_GLOBAL), NC_EBADTYPE);
    EXPECT(nc_inq_att(bare, NC_GLOBAL, "p", &t, &len), NC_ENOTATT);
    /* Same name, different structure is not equal. */
    nc_type wrong;
    MUST(nc_def_compound(bare, sizeof(pair), "pair_t", &wrong));
    MUST(nc_insert_compound(bare, wrong, "x", offsetof(pair, a), NC_INT));
    MUST(nc_insert_compound(bare, wrong, "b", offsetof(pair, b), NC_DOUBLE));
    EXPECT(nc_copy_att(in, NC_GLOBAL, "p", bare, NC_GLOBAL), NC_EBADTYPE);
    /* An enhanced type into a classic file. */
    int cl;
    MUST(nc_create("tst_copyatt4_cl.nc", NC_CLOBBER, &cl));
    EXPECT(nc_copy_att(in, NC_GLOBAL, "p", cl, NC_GLOBAL), NC_EBADTYPE);
    OK(nc_close(cl));
    OK(nc_close(bare));

    /* nc_copy_var: a compound and a string variable with their data. */
    int d, vp, vs, di;
    MUST(nc_def_dim(in, "n", 2, &d));
    MUST(nc_def_var(in, "vp", ci, 1, &d, &vp));
    MUST(nc_put_att(in, vp, "_FillValue", ci, 1, &p[1]));
    MUST(nc_def_var(in, "vs", NC_STRING, 1, &d, &vs));
    MUST(nc_put_var(in, vp, p));
    MUST(nc_put_var_string(in, vs, strs));
    MUST(nc_def_dim(sub, "n", 2, &di));
    OK(nc_copy_var(in, vp, sub));
    OK(nc_copy_var(in, vs, sub));
    int ovp, ovs;
    OK(nc_inq_varid(sub, "vp", &ovp));
    OK(nc_inq_varid(sub, "vs", &ovs));
    OK(nc_inq_vartype(sub, ovp, &t));
    CHECK(t == co, "vp type %d, want %d", t, co);
    memset(pr, 0, sizeof pr);
    OK(nc_get_var(sub, ovp, pr));
    CHECK(pr[0].a == 1 && pr[1].b == 4.25, "vp values");
    OK(nc_get_att(sub, ovp, "_FillValue", pr));
    CHECK(pr[0].a == -3, "vp fill");
    OK(nc_get_var_string(sub, ovs, sr));
    CHECK(strcmp(sr[1], "beta gamma") == 0, "vs values");
    OK(nc_free_string(2, sr));

    OK(nc_close(out));
    OK(nc_close(in));
}

int
main(void)
{
    test_copy_atts();
    return nct_summary("tst_copyatt4");
}
