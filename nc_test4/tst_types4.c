/* tst_types4.c: every atomic type of the enhanced model (variables and
 * attributes, with conversions and NC_ERANGE), NC_STRING (nc_free_string),
 * and the user-defined types: compound with nested compound and array
 * fields, vlen of int and vlen of vlen, vlen inside a compound, enum, opaque
 * - written, read back before and after reopen, and freed with
 * nc_free_vlen(s) / nc_reclaim_data.  Then the definitions the library must
 * refuse.  Built against the reference too (ref_tst_types4); where the
 * reference accepts a bad definition, the check is ours only (#ifndef
 * NCT_REFERENCE_BUILD) and says so. */
#include "nctst.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PATH "tst_types4.nc"

struct inner { int a; double b; };
struct outer { short id; struct inner in; float arr[2][3]; char tag[5]; };
struct withvlen { int k; nc_vlen_t v; char *s; };

static nc_type t_inner, t_outer, t_vl, t_vlvl, t_wv, t_en, t_op;

static void
def_types(int ncid)
{
    int dims2[2] = {2, 3}, five = 5;
    MUST(nc_def_compound(ncid, sizeof(struct inner), "inner", &t_inner));
    MUST(nc_insert_compound(ncid, t_inner, "a", offsetof(struct inner, a), NC_INT));
    MUST(nc_insert_compound(ncid, t_inner, "b", offsetof(struct inner, b), NC_DOUBLE));
    MUST(nc_def_compound(ncid, sizeof(struct outer), "outer", &t_outer));
    MUST(nc_insert_compound(ncid, t_outer, "id", offsetof(struct outer, id), NC_SHORT));
    MUST(nc_insert_compound(ncid, t_outer, "in", offsetof(struct outer, in), t_inner));
    MUST(nc_insert_array_compound(ncid, t_outer, "arr", offsetof(struct outer, arr), NC_FLOAT, 2, dims2));
    MUST(nc_insert_array_compound(ncid, t_outer, "tag", offsetof(struct outer, tag), NC_CHAR, 1, &five));
    MUST(nc_def_vlen(ncid, "vl", NC_INT, &t_vl));
    MUST(nc_def_vlen(ncid, "vlvl", t_vl, &t_vlvl));
    MUST(nc_def_compound(ncid, sizeof(struct withvlen), "withvlen", &t_wv));
    MUST(nc_insert_compound(ncid, t_wv, "k", offsetof(struct withvlen, k), NC_INT));
    MUST(nc_insert_compound(ncid, t_wv, "v", offsetof(struct withvlen, v), t_vl));
    MUST(nc_insert_compound(ncid, t_wv, "s", offsetof(struct withvlen, s), NC_STRING));
    MUST(nc_def_enum(ncid, NC_SHORT, "en", &t_en));
    short m0 = 0, m1 = -5, m2 = 300;
    MUST(nc_insert_enum(ncid, t_en, "zero", &m0));
    MUST(nc_insert_enum(ncid, t_en, "minus", &m1));
    MUST(nc_insert_enum(ncid, t_en, "big", &m2));
    MUST(nc_def_opaque(ncid, 6, "op", &t_op));
}

static void
check_types(int ncid, const char *when)
{
    char name[NC_MAX_NAME + 1];
    size_t size, nf, off;
    nc_type base, ft;
    int cls, nd, dims[4];
    nc_type t;
    OK(nc_inq_typeid(ncid, "outer", &t));
    CHECK(t == t_outer, "%s: typeid outer", when);
    OK(nc_inq_user_type(ncid, t_outer, name, &size, &base, &nf, &cls));
    CHECK(!strcmp(name, "outer") && size == sizeof(struct outer) && nf == 4 && cls == NC_COMPOUND,
          "%s: outer %s %zu %zu %d", when, name, size, nf, cls);
    OK(nc_inq_compound_field(ncid, t_outer, 2, name, &off, &ft, &nd, dims));
    CHECK(!strcmp(name, "arr") && off == offsetof(struct outer, arr) && ft == NC_FLOAT && nd == 2 &&
          dims[0] == 2 && dims[1] == 3, "%s: field arr", when);
    OK(nc_inq_compound_field(ncid, t_outer, 1, name, &off, &ft, &nd, dims));
    CHECK(ft == t_inner && nd == 0, "%s: field in is inner", when);
    int idx = -1;
    OK(nc_inq_compound_fieldindex(ncid, t_outer, "tag", &idx));
    CHECK(idx == 3, "%s: field index", when);
    EXPECT(nc_inq_compound_fieldindex(ncid, t_outer, "nope", &idx), NC_EBADFIELD);
    EXPECT(nc_inq_compound_field(ncid, t_outer, 4, name, NULL, NULL, NULL, NULL), NC_EBADFIELD);
    OK(nc_inq_vlen(ncid, t_vlvl, name, &size, &base));
    CHECK(!strcmp(name, "vlvl") && base == t_vl && size == sizeof(nc_vlen_t), "%s: vlvl", when);
    OK(nc_inq_enum(ncid, t_en, name, &base, &size, &nf));
    CHECK(base == NC_SHORT && size == 2 && nf == 3, "%s: enum", when);
    short val = 0;
    OK(nc_inq_enum_member(ncid, t_en, 2, name, &val));
    CHECK(!strcmp(name, "big") && val == 300, "%s: enum member", when);
    OK(nc_inq_enum_ident(ncid, t_en, -5, name));
    CHECK(!strcmp(name, "minus"), "%s: enum ident", when);
    EXPECT(nc_inq_enum_ident(ncid, t_en, 7, name), NC_EINVAL);
    OK(nc_inq_opaque(ncid, t_op, name, &size));
    CHECK(size == 6, "%s: opaque size", when);
    int n = -1, ids[16];
    OK(nc_inq_typeids(ncid, &n, ids));
    CHECK(n == 7 && ids[0] == t_inner && ids[6] == t_op, "%s: %d types in order", when, n);
    int eq = -1;
    OK(nc_inq_type_equal(ncid, t_inner, ncid, t_inner, &eq));
    CHECK(eq == 1, "%s: type equal to itself", when);
    OK(nc_inq_type_equal(ncid, t_inner, ncid, t_outer, &eq));
    CHECK(eq == 0, "%s: different types", when);
}

static void
write_data(int ncid)
{
    int v;
    struct outer o[2];
    memset(o, 0, sizeof o);
    for (int i = 0; i < 2; i++) {
        o[i].id = (short)(i + 1);
        o[i].in.a = 10 * (i + 1);
        o[i].in.b = 0.5 + i;
        for (int j = 0; j < 6; j++) o[i].arr[j / 3][j % 3] = (float)(j + 10 * i);
        memcpy(o[i].tag, i ? "xy" : "abcde", i ? 2 : 5);
    }
    MUST(nc_inq_varid(ncid, "vo", &v));
    OK(nc_put_var(ncid, v, o));
    int d1[3] = {1, 2, 3}, d2[1] = {4};
    nc_vlen_t vl[2] = {{3, d1}, {1, d2}};
    MUST(nc_inq_varid(ncid, "vvl", &v));
    OK(nc_put_var(ncid, v, vl));
    nc_vlen_t inner2[2] = {{3, d1}, {0, NULL}};
    nc_vlen_t vv[1] = {{2, inner2}};
    MUST(nc_inq_varid(ncid, "vvlvl", &v));
    OK(nc_put_var(ncid, v, vv));
    struct withvlen w[2] = {{7, {2, d1}, "seven"}, {8, {0, NULL}, ""}};
    MUST(nc_inq_varid(ncid, "vwv", &v));
    OK(nc_put_var(ncid, v, w));
    short e[3] = {0, 300, -5};
    MUST(nc_inq_varid(ncid, "ven", &v));
    OK(nc_put_var(ncid, v, e));
    unsigned char op[12] = "abcdefghijkl";
    MUST(nc_inq_varid(ncid, "vop", &v));
    OK(nc_put_var(ncid, v, op));
    const char *strs[3] = {"one", "", "three"};
    MUST(nc_inq_varid(ncid, "vstr", &v));
    OK(nc_put_var_string(ncid, v, strs));
}

static void
check_data(int ncid, const char *when)
{
    int v;
    struct outer o[2];
    memset(o, 0x55, sizeof o);
    MUST(nc_inq_varid(ncid, "vo", &v));
    OK(nc_get_var(ncid, v, o));
    CHECK(o[1].id == 2 && o[1].in.a == 20 && o[1].in.b == 1.5 && o[1].arr[1][2] == 15.0f &&
          !memcmp(o[0].tag, "abcde", 5) && !memcmp(o[1].tag, "xy\0\0\0", 5),
          "%s: compound values", when);
    nc_vlen_t vl[2];
    MUST(nc_inq_varid(ncid, "vvl", &v));
    OK(nc_get_var(ncid, v, vl));
    CHECK(vl[0].len == 3 && vl[1].len == 1 && ((int *)vl[0].p)[2] == 3 && ((int *)vl[1].p)[0] == 4,
          "%s: vlen values", when);
    OK(nc_free_vlens(2, vl));
    nc_vlen_t vv[1];
    MUST(nc_inq_varid(ncid, "vvlvl", &v));
    OK(nc_get_var(ncid, v, vv));
    CHECK(vv[0].len == 2 && ((nc_vlen_t *)vv[0].p)[0].len == 3 && ((nc_vlen_t *)vv[0].p)[1].len == 0,
          "%s: vlen of vlen", when);
    OK(nc_reclaim_data(ncid, t_vlvl, vv, 1));
    struct withvlen w[2];
    MUST(nc_inq_varid(ncid, "vwv", &v));
    OK(nc_get_var(ncid, v, w));
    CHECK(w[0].k == 7 && w[0].v.len == 2 && ((int *)w[0].v.p)[1] == 2 && w[0].s && !strcmp(w[0].s, "seven") &&
          w[1].v.len == 0 && w[1].s && !strcmp(w[1].s, ""), "%s: compound with vlen and string", when);
    OK(nc_reclaim_data(ncid, t_wv, w, 2));
    short e[3];
    MUST(nc_inq_varid(ncid, "ven", &v));
    OK(nc_get_var(ncid, v, e));
    CHECK(e[0] == 0 && e[1] == 300 && e[2] == -5, "%s: enum values", when);
    unsigned char op[12];
    MUST(nc_inq_varid(ncid, "vop", &v));
    OK(nc_get_var(ncid, v, op));
    CHECK(!memcmp(op, "abcdefghijkl", 12), "%s: opaque values", when);
    char *strs[3] = {NULL, NULL, NULL};
    MUST(nc_inq_varid(ncid, "vstr", &v));
    OK(nc_get_var_string(ncid, v, strs));
    CHECK(strs[0] && !strcmp(strs[0], "one") && strs[1] && !strcmp(strs[1], "") && strs[2] &&
          !strcmp(strs[2], "three"), "%s: strings", when);
    OK(nc_free_string(3, strs));
    /* wrong memory types */
    int ib[12];
    MUST(nc_inq_varid(ncid, "vo", &v));
    EXPECT(nc_get_var_int(ncid, v, ib), NC_EBADTYPE);
    MUST(nc_inq_varid(ncid, "vstr", &v));
    EXPECT(nc_get_var_int(ncid, v, ib), NC_EBADTYPE);
    EXPECT(nc_get_var_text(ncid, v, (char *)ib), NC_ECHAR);
    /* attributes of user types */
    struct inner ia[2] = {{0, 0}, {0, 0}};
    OK(nc_get_att(ncid, NC_GLOBAL, "ainner", ia));
    CHECK(ia[0].a == 1 && ia[1].b == 4.5, "%s: compound attribute", when);
    nc_vlen_t av[2];
    OK(nc_get_att(ncid, NC_GLOBAL, "avl", av));
    CHECK(av[0].len == 3 && av[1].len == 0, "%s: vlen attribute", when);
    OK(nc_reclaim_data(ncid, t_vl, av, 2));
    short ae = 0;
    OK(nc_get_att(ncid, NC_GLOBAL, "aen", &ae));
    CHECK(ae == -5, "%s: enum attribute", when);
    nc_type at;
    size_t al;
    OK(nc_inq_att(ncid, NC_GLOBAL, "aen", &at, &al));
    CHECK(at == t_en && al == 1, "%s: enum attribute type", when);
    char *as[2] = {NULL, NULL};
    OK(nc_get_att_string(ncid, NC_GLOBAL, "astr", as));
    CHECK(as[0] && as[1] && !strcmp(as[1], "b\xc3\xa9"), "%s: string attribute", when);
    nc_free_string(2, as);
}

/* Every atomic type: a variable and an attribute with extreme values,
 * read back exactly and converted with NC_ERANGE where it does not fit. */
static void
test_atomic(int cmode)
{
    int ncid, d, n = (cmode & NC_CLASSIC_MODEL) ? 6 : 11;
    MUST(nc_create(PATH, cmode | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 2, &d));
    for (int i = 0; i < n; i++) {
        nc_type t = nct_ext_types[i];
        char name[16];
        int v;
        snprintf(name, sizeof name, "v%d", t);
        MUST(nc_def_var(ncid, name, t, 1, &d, &v));
    }
    for (int i = 0; i < n; i++) {
        nc_type t = nct_ext_types[i];
        unsigned char buf[16];
        if (t == NC_CHAR) continue;
        nct_ld_put(t, buf, 0, nct_type_min(t));
        nct_ld_put(t, buf, 1, nct_type_max(t));
        OK(nc_put_att(ncid, i, "ext", t, 2, buf));
    }
    MUST(nc_enddef(ncid));
    for (int i = 0; i < n; i++) {
        nc_type t = nct_ext_types[i];
        unsigned char buf[16];
        if (t == NC_CHAR) continue;
        nct_ld_put(t, buf, 0, nct_type_min(t));
        nct_ld_put(t, buf, 1, nct_type_max(t));
        OK(nc_put_var(ncid, i, buf));
    }
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    for (int i = 0; i < n; i++) {
        nc_type t = nct_ext_types[i], vt;
        if (t == NC_CHAR) continue;
        unsigned char buf[16];
        OK(nc_inq_vartype(ncid, i, &vt));
        CHECK(vt == t, "type of var %d: %d", i, vt);
        OK(nc_get_var(ncid, i, buf));
        CHECK(nct_same(nct_ld_get(t, buf, 0), nct_type_min(t)) && nct_same(nct_ld_get(t, buf, 1), nct_type_max(t)),
              "extremes of type %d", t);
        OK(nc_get_att(ncid, i, "ext", buf));
        CHECK(nct_same(nct_ld_get(t, buf, 1), nct_type_max(t)), "attribute extremes of type %d", t);
        /* to every memory type: NC_ERANGE exactly when a value does not fit */
        for (int m = M_SCHAR; m < M_NMEM; m++) {
            nc_type mt = nct_mem_nctype(m);
            long double o;
            int fits = nct_convert(nct_type_min(t), mt, &o) && nct_convert(nct_type_max(t), mt, &o);
            /* byte as unsigned char: no range check in the classic model
             * (as in the classic formats); checked in the enhanced model */
            if (t == NC_BYTE && mt == NC_UBYTE && (cmode & NC_CLASSIC_MODEL)) fits = 1;
            unsigned char mb[32];
            int rc = nct_get(F_VAR, m, ncid, i, NULL, NULL, NULL, NULL, mb);
            CHECK(rc == (fits ? NC_NOERR : NC_ERANGE), "get type %d as %s: %d", t, nct_mem_name[m], rc);
        }
    }
    OK(nc_close(ncid));
}

static void
test_user(void)
{
    int ncid, d, d3, d1, v;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    def_types(ncid);
    MUST(nc_def_dim(ncid, "two", 2, &d));
    MUST(nc_def_dim(ncid, "three", 3, &d3));
    MUST(nc_def_dim(ncid, "one", 1, &d1));
    MUST(nc_def_var(ncid, "vo", t_outer, 1, &d, &v));
    MUST(nc_def_var(ncid, "vvl", t_vl, 1, &d, &v));
    MUST(nc_def_var(ncid, "vvlvl", t_vlvl, 1, &d1, &v));
    MUST(nc_def_var(ncid, "vwv", t_wv, 1, &d, &v));
    MUST(nc_def_var(ncid, "ven", t_en, 1, &d3, &v));
    MUST(nc_def_var(ncid, "vop", t_op, 1, &d, &v));
    MUST(nc_def_var(ncid, "vstr", NC_STRING, 1, &d3, &v));
    {
        struct inner ia[2];
        memset(ia, 0, sizeof ia);   /* the padding is written too */
        ia[0].a = 1; ia[0].b = 2.5; ia[1].a = 3; ia[1].b = 4.5;
        int d1v[3] = {1, 2, 3};
        nc_vlen_t av[2] = {{3, d1v}, {0, NULL}};
        short ae = -5;
        const char *as[2] = {"a", "b\xc3\xa9"};
        OK(nc_put_att(ncid, NC_GLOBAL, "ainner", t_inner, 2, ia));
        OK(nc_put_att(ncid, NC_GLOBAL, "avl", t_vl, 2, av));
        OK(nc_put_att(ncid, NC_GLOBAL, "aen", t_en, 1, &ae));
        OK(nc_put_att_string(ncid, NC_GLOBAL, "astr", 2, as));
    }
    write_data(ncid);
    check_types(ncid, "before close");
    check_data(ncid, "before close");
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    check_types(ncid, "after reopen");
    check_data(ncid, "after reopen");
    OK(nc_close(ncid));
}

/* Definitions that must fail. */
static void
test_bad(void)
{
    int ncid;
    nc_type t, c;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    EXPECT(nc_def_compound(ncid, 0, "zero", &t), NC_EINVAL);
    EXPECT(nc_def_opaque(ncid, 0, "zero", &t), NC_EINVAL);
    MUST(nc_def_compound(ncid, 8, "c", &c));
    EXPECT(nc_def_compound(ncid, 8, "c", &t), NC_ENAMEINUSE);
    EXPECT(nc_def_vlen(ncid, "c", NC_INT, &t), NC_ENAMEINUSE);
    EXPECT(nc_def_compound(ncid, 8, "a/b", &t), NC_EBADNAME);
    EXPECT(nc_insert_compound(ncid, NC_INT, "f", 0, NC_INT), NC_EBADTYPE);
    EXPECT(nc_insert_compound(ncid, 99, "f", 0, NC_INT), NC_EBADTYPID);
    OK(nc_insert_compound(ncid, c, "f", 0, NC_INT));
    EXPECT(nc_def_enum(ncid, NC_INT, "c", &t), NC_ENAMEINUSE);
    nc_type e;
    MUST(nc_def_enum(ncid, NC_INT, "e", &e));
    int one = 1;
    EXPECT(nc_insert_enum(ncid, c, "x", &one), NC_EBADTYPE);
    EXPECT(nc_insert_enum(ncid, e, "a/b", &one), NC_EBADNAME);
#ifndef NCT_REFERENCE_BUILD
    /* The reference accepts these, and fails later in HDF5: ours refuses
     * them at once. */
    EXPECT(nc_insert_compound(ncid, c, "f", 4, NC_INT), NC_ENAMEINUSE);
    EXPECT(nc_insert_compound(ncid, c, "h", 0, 99), NC_EBADTYPE);
    OK(nc_insert_enum(ncid, e, "one", &one));
    EXPECT(nc_insert_enum(ncid, e, "one", &one), NC_ENAMEINUSE);
#endif
#ifdef NCT_STRICT_DOCS
    /* Errors by upstream's documentation that the reference, and ours
     * following it, accept (the definition then fails in HDF5 at enddef):
     * compiled only with -DNCT_STRICT_DOCS. */
    EXPECT(nc_insert_compound(ncid, c, "g", 6, NC_INT), NC_EBADDIM);
    EXPECT(nc_def_vlen(ncid, "vb", 99, &t), NC_EBADTYPE);
    EXPECT(nc_def_enum(ncid, NC_FLOAT, "ef", &t), NC_EBADTYPE);
    EXPECT(nc_def_enum(ncid, NC_STRING, "es", &t), NC_EBADTYPE);
#endif
    nc_abort(ncid);
    /* types in the classic model */
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER, &ncid));
    EXPECT(nc_def_compound(ncid, 8, "c", &t), NC_ESTRICTNC3);
    EXPECT(nc_def_vlen(ncid, "v", NC_INT, &t), NC_ESTRICTNC3);
    EXPECT(nc_def_enum(ncid, NC_INT, "e", &t), NC_ESTRICTNC3);
    EXPECT(nc_def_opaque(ncid, 4, "o", &t), NC_ESTRICTNC3);
    int v;
    EXPECT(nc_def_var(ncid, "s", NC_STRING, 0, NULL, &v), NC_ESTRICTNC3);
    EXPECT(nc_def_var(ncid, "u", NC_UINT, 0, NULL, &v), NC_ESTRICTNC3);
    const char *s = "x";
    EXPECT(nc_put_att_string(ncid, NC_GLOBAL, "s", 1, &s), NC_ESTRICTNC3);
    unsigned u = 1;
    EXPECT(nc_put_att_uint(ncid, NC_GLOBAL, "u", NC_UINT, 1, &u), NC_ESTRICTNC3);
    nc_close(ncid);
}

int
main(void)
{
    test_atomic(NC_NETCDF4);
    test_atomic(NC_NETCDF4 | NC_CLASSIC_MODEL);
    test_user();
    test_bad();
    return nct_summary("tst_types4");
}
