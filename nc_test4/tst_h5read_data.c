/* tst_h5read_data.c: the data path of netCDF-4/HDF5 files (hdf5data.c) as
 * the API shows it: vara/vars/var1 writes and reads in every memory type,
 * conversions and NC_ERANGE, bounds and stride codes, unlimited dimensions
 * (growth, several per variable, fill past a variable's own extent), char,
 * string and user-type data, define-mode rules of both models, scalars,
 * NOFILL.  Prints each call's code and the values read back; built against
 * ours and against the reference (ref_tst_h5read_data), run by run_diff.sh,
 * the outputs must be identical.  Uses only the public API. */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <netcdf.h>

static int
report(int line, const char *call, int st)
{
    printf("%d: %s = %d\n", line, call, st);
    return st;
}
#define P(call) report(__LINE__, #call, (call))

static void
show_d(const char *what, const double *v, size_t n)
{
    printf("  %s:", what);
    for (size_t i = 0; i < n; i++)
        printf(" %.17g", v[i]);
    printf("\n");
}

static void
show_ll(const char *what, const long long *v, size_t n)
{
    printf("  %s:", what);
    for (size_t i = 0; i < n; i++)
        printf(" %lld", v[i]);
    printf("\n");
}

/* Every atomic numeric type, written and read in every memory type. */
static void
conversions(const char *path, int cmode)
{
    static const nc_type all[] = {NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT,
                                  NC_UINT, NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE};
    static const nc_type classic[] = {NC_BYTE, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE};
    const nc_type *types = (cmode & NC_CLASSIC_MODEL) ? classic : all;
    const int nt = (cmode & NC_CLASSIC_MODEL) ? 5 : 10;
    int ncid, dim, varids[10] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    size_t start[1] = {0}, count[1] = {6};
    double dv[6] = {-1e30, -129.5, -1, 0, 255.5, 4e9};
    long long llv[6] = {-5000000000LL, -129, -1, 1, 256, 70000};
    signed char sc[6] = {-128, -1, 0, 1, 100, 127};
    unsigned char uc[6] = {0, 1, 127, 128, 200, 255};
    double dout[6];
    long long llout[6];
    char name[16];

    printf("== conversions %s cmode %d\n", path, cmode);
    if (P(nc_create(path, cmode | NC_CLOBBER, &ncid)))
        return;
    P(nc_def_dim(ncid, "n", 6, &dim));
    for (int t = 0; t < nt; t++) {
        snprintf(name, sizeof(name), "v%d", t);
        P(nc_def_var(ncid, name, types[t], 1, &dim, &varids[t]));
    }
    P(nc_enddef(ncid));
    for (int t = 0; t < nt; t++) {
        printf(" type %d\n", types[t]);
        P(nc_put_vara_double(ncid, varids[t], start, count, dv));
        P(nc_get_vara_double(ncid, varids[t], start, count, dout));
        show_d("double", dout, 6);
        P(nc_put_vara_longlong(ncid, varids[t], start, count, llv));
        P(nc_get_vara_longlong(ncid, varids[t], start, count, llout));
        show_ll("longlong", llout, 6);
        P(nc_put_vara_schar(ncid, varids[t], start, count, sc));
        P(nc_get_vara_double(ncid, varids[t], start, count, dout));
        show_d("from schar", dout, 6);
        P(nc_put_vara_uchar(ncid, varids[t], start, count, uc));
        P(nc_get_vara_double(ncid, varids[t], start, count, dout));
        show_d("from uchar", dout, 6);
        {
            signed char b[6];
            unsigned char u[6];
            short s[6];
            unsigned int ui[6];
            float fl[6];
            unsigned long long ull[6];
            P(nc_get_vara_schar(ncid, varids[t], start, count, b));
            P(nc_get_vara_uchar(ncid, varids[t], start, count, u));
            P(nc_get_vara_short(ncid, varids[t], start, count, s));
            P(nc_get_vara_uint(ncid, varids[t], start, count, ui));
            P(nc_get_vara_float(ncid, varids[t], start, count, fl));
            P(nc_get_vara_ulonglong(ncid, varids[t], start, count, ull));
            printf("  mixed: %d %u %d %u %.9g %llu\n", b[3], u[4], s[2], ui[1], fl[5], ull[2]);
        }
    }
    P(nc_close(ncid));
}

/* Bounds, strides, unlimited growth and fill past the extent. */
static void
shapes(const char *path)
{
    int ncid, dx, dt, du, dims[2], vfix, va, vb, vtu, vsc, vnf;
    int data[64], out[64];
    size_t st[2], ct[2], len;
    ptrdiff_t sd[2];

    printf("== shapes\n");
    if (P(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid)))
        return;
    P(nc_def_dim(ncid, "x", 5, &dx));
    P(nc_def_dim(ncid, "t", NC_UNLIMITED, &dt));
    P(nc_def_dim(ncid, "u", NC_UNLIMITED, &du));
    P(nc_def_var(ncid, "fix", NC_INT, 1, &dx, &vfix));
    dims[0] = dt;
    dims[1] = dx;
    P(nc_def_var(ncid, "a", NC_INT, 2, dims, &va));
    P(nc_def_var(ncid, "b", NC_INT, 2, dims, &vb));
    P(nc_def_var_fill(ncid, vb, 0, (int[]){-77}));
    dims[0] = dt;
    dims[1] = du;
    P(nc_def_var(ncid, "tu", NC_INT, 2, dims, &vtu));
    P(nc_def_var(ncid, "sc", NC_DOUBLE, 0, NULL, &vsc));
    P(nc_def_var(ncid, "nf", NC_SHORT, 1, &dx, &vnf));
    P(nc_def_var_fill(ncid, vnf, 1, NULL));
    for (int i = 0; i < 64; i++)
        data[i] = i + 1;
    /* implicit enddef through a data call */
    st[0] = 0; ct[0] = 5;
    P(nc_put_vara_int(ncid, vfix, st, ct, data));
    st[0] = 4; ct[0] = 1;
    P(nc_put_vara_int(ncid, vfix, st, ct, data));
    st[0] = 5; ct[0] = 0;
    P(nc_put_vara_int(ncid, vfix, st, ct, data));
    st[0] = 5; ct[0] = 1;
    P(nc_put_vara_int(ncid, vfix, st, ct, data));
    st[0] = 6; ct[0] = 0;
    P(nc_put_vara_int(ncid, vfix, st, ct, data));
    st[0] = 3; ct[0] = 3;
    P(nc_put_vara_int(ncid, vfix, st, ct, data));
    st[0] = 0; ct[0] = 3; sd[0] = 2;
    P(nc_put_vars_int(ncid, vfix, st, ct, sd, data + 10));
    sd[0] = 0;
    P(nc_put_vars_int(ncid, vfix, st, ct, sd, data));
    sd[0] = 3; ct[0] = 2;
    P(nc_get_vars_int(ncid, vfix, st, ct, sd, out));
    printf("  stride3: %d %d\n", out[0], out[1]);
    sd[0] = 2; ct[0] = 3;
    P(nc_get_vars_int(ncid, vfix, st, ct, sd, out));
    printf("  stride2: %d %d %d\n", out[0], out[1], out[2]);
    ct[0] = 4;
    P(nc_get_vars_int(ncid, vfix, st, ct, sd, out));
    P(nc_get_var_int(ncid, vfix, out));
    printf("  fix: %d %d %d %d %d\n", out[0], out[1], out[2], out[3], out[4]);

    /* a grows t to 3, b stays at 1 record: b reads fill past its extent */
    st[0] = 0; st[1] = 0; ct[0] = 1; ct[1] = 5;
    P(nc_put_vara_int(ncid, vb, st, ct, data));
    st[0] = 2; ct[0] = 1;
    P(nc_put_vara_int(ncid, va, st, ct, data + 5));
    P(nc_inq_dimlen(ncid, dt, &len));
    printf("  t len %zu\n", len);
    st[0] = 0; ct[0] = 3;
    memset(out, 0, sizeof(out));
    P(nc_get_vara_int(ncid, vb, st, ct, out));
    for (int i = 0; i < 15; i++)
        printf(" %d", out[i]);
    printf("\n");
    memset(out, 0, sizeof(out));
    P(nc_get_vara_int(ncid, va, st, ct, out));
    for (int i = 0; i < 15; i++)
        printf(" %d", out[i]);
    printf("\n");
    st[0] = 1; ct[0] = 2; ct[1] = 2; st[1] = 1; sd[0] = 1; sd[1] = 3;
    P(nc_get_vars_int(ncid, vb, st, ct, sd, out));
    printf("  b strided: %d %d %d %d\n", out[0], out[1], out[2], out[3]);
    st[0] = 3; ct[0] = 1; st[1] = 0; ct[1] = 5;
    P(nc_get_vara_int(ncid, vb, st, ct, out));
    st[0] = 3; ct[0] = 0;
    P(nc_get_vara_int(ncid, vb, st, ct, out));
    st[0] = 4; ct[0] = 0;
    P(nc_get_vara_int(ncid, vb, st, ct, out));
    st[0] = 2; ct[0] = 2;
    P(nc_get_vara_int(ncid, vb, st, ct, out));
    /* strided write past the end of an unlimited dim */
    st[0] = 4; st[1] = 0; ct[0] = 2; ct[1] = 2; sd[0] = 2; sd[1] = 4;
    P(nc_put_vars_int(ncid, va, st, ct, sd, data));
    P(nc_inq_dimlen(ncid, dt, &len));
    printf("  t len %zu\n", len);
    /* two unlimited dims */
    st[0] = 1; st[1] = 2; ct[0] = 2; ct[1] = 2;
    P(nc_put_vara_int(ncid, vtu, st, ct, data));
    P(nc_inq_dimlen(ncid, du, &len));
    printf("  u len %zu\n", len);
    st[0] = 0; st[1] = 0; ct[0] = 3; ct[1] = 4;
    P(nc_get_vara_int(ncid, vtu, st, ct, out));
    for (int i = 0; i < 12; i++)
        printf(" %d", out[i]);
    printf("\n");
    /* scalar */
    {
        double d = 2.5, o = 0;
        size_t z = 0;
        P(nc_put_var_double(ncid, vsc, &d));
        P(nc_get_var1_double(ncid, vsc, &z, &o));
        P(nc_get_vara_double(ncid, vsc, NULL, NULL, &o));
        printf("  scalar %g\n", o);
    }
    /* NOFILL: a written part, and a read of what was never written */
    {
        short s[5] = {0};
        size_t z = 1, c1 = 2;
        P(nc_put_vara_short(ncid, vnf, &z, &c1, (short[]){4, 5}));
        P(nc_get_vara_short(ncid, vnf, &z, &c1, s));
        printf("  nofill %d %d\n", s[0], s[1]);
    }
    P(nc_close(ncid));
    P(nc_open(path, NC_NOWRITE, &ncid));
    st[0] = 0; st[1] = 0; ct[0] = 6; ct[1] = 5;
    memset(out, 0, sizeof(out));
    P(nc_get_vara_int(ncid, vb, st, ct, out));
    for (int i = 0; i < 30; i++)
        printf(" %d", out[i]);
    printf("\n");
    P(nc_put_vara_int(ncid, va, st, ct, data));
    P(nc_close(ncid));
}

/* char, string and user types. */
static void
kinds(const char *path)
{
    int ncid, dx, vc, vs, vv, vcmp, ve, vo, vl;
    nc_type tv, tc, te, to;
    size_t st[1] = {0}, ct[1] = {3};
    typedef struct { int i; double d; } cmp_t;

    printf("== kinds\n");
    if (P(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid)))
        return;
    P(nc_def_dim(ncid, "x", 3, &dx));
    P(nc_def_var(ncid, "c", NC_CHAR, 1, &dx, &vc));
    P(nc_def_var(ncid, "s", NC_STRING, 1, &dx, &vs));
    P(nc_def_vlen(ncid, "vl_t", NC_INT, &tv));
    P(nc_def_compound(ncid, sizeof(cmp_t), "cmp_t", &tc));
    P(nc_insert_compound(ncid, tc, "i", offsetof(cmp_t, i), NC_INT));
    P(nc_insert_compound(ncid, tc, "d", offsetof(cmp_t, d), NC_DOUBLE));
    P(nc_def_enum(ncid, NC_SHORT, "en_t", &te));
    P(nc_insert_enum(ncid, te, "A", (short[]){1}));
    P(nc_insert_enum(ncid, te, "B", (short[]){-2}));
    P(nc_def_opaque(ncid, 3, "op_t", &to));
    P(nc_def_var(ncid, "v", tv, 1, &dx, &vv));
    P(nc_def_var(ncid, "cmp", tc, 1, &dx, &vcmp));
    P(nc_def_var(ncid, "e", te, 1, &dx, &ve));
    P(nc_def_var(ncid, "o", to, 1, &dx, &vo));
    P(nc_def_var(ncid, "l", NC_INT64, 1, &dx, &vl));
    P(nc_enddef(ncid));
    {
        int iv[3] = {1, 2, 3};
        char out[4] = {0};
        P(nc_put_vara_text(ncid, vc, st, ct, "abc"));
        P(nc_put_vara_int(ncid, vc, st, ct, iv));
        P(nc_get_vara_int(ncid, vc, st, ct, iv));
        P(nc_get_vara_text(ncid, vc, st, ct, out));
        printf("  text %s\n", out);
        P(nc_put_vara_text(ncid, vl, st, ct, "abc"));
        P(nc_get_var(ncid, vc, out));
        printf("  text %s\n", out);
    }
    {
        const char *in[3] = {"one", "", "three"};
        char *out[3] = {NULL, NULL, NULL};
        int iv[3];
        P(nc_put_vara_string(ncid, vs, st, ct, in));
        P(nc_get_vara_string(ncid, vs, st, ct, out));
        printf("  strings %s|%s|%s\n", out[0], out[1], out[2]);
        P(nc_free_string(3, out));
        P(nc_get_vara_int(ncid, vs, st, ct, iv));
        P(nc_put_vara_int(ncid, vs, st, ct, iv));
    }
    {
        int a[] = {1, 2, 3}, b[] = {4};
        nc_vlen_t in[3] = {{3, a}, {1, b}, {0, NULL}}, out[3];
        P(nc_put_vara(ncid, vv, st, ct, in));
        P(nc_get_vara(ncid, vv, st, ct, out));
        for (int i = 0; i < 3; i++) {
            printf("  vlen %zu:", out[i].len);
            for (size_t k = 0; k < out[i].len; k++)
                printf(" %d", ((int *)out[i].p)[k]);
            printf("\n");
        }
        P(nc_free_vlens(3, out));
    }
    {
        cmp_t in[3] = {{1, 1.5}, {2, 2.5}, {3, 3.5}}, out[3];
        short e[3] = {1, -2, 1}, eo[3];
        unsigned char o[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, oo[9];
        int iv[3];
        P(nc_put_vara(ncid, vcmp, st, ct, in));
        P(nc_get_vara(ncid, vcmp, st, ct, out));
        printf("  cmp %d %g %d %g\n", out[0].i, out[0].d, out[2].i, out[2].d);
        P(nc_get_vara_int(ncid, vcmp, st, ct, iv));
        P(nc_put_vara(ncid, ve, st, ct, e));
        P(nc_get_vara(ncid, ve, st, ct, eo));
        printf("  enum %d %d %d\n", eo[0], eo[1], eo[2]);
        P(nc_get_vara_int(ncid, ve, st, ct, iv));
        P(nc_put_vara(ncid, vo, st, ct, o));
        P(nc_get_vara(ncid, vo, st, ct, oo));
        printf("  opaque %d %d %d\n", oo[0], oo[4], oo[8]);
    }
    P(nc_close(ncid));
}

/* Define-mode rules: classic model refuses, enhanced leaves define mode. */
static void
modes(const char *path)
{
    int ncid, dx, v, w, val = 0;
    size_t z = 0;

    printf("== modes\n");
    if (P(nc_create(path, NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER, &ncid)))
        return;
    P(nc_def_dim(ncid, "x", 2, &dx));
    P(nc_def_var(ncid, "v", NC_BYTE, 1, &dx, &v));
    P(nc_put_var1_int(ncid, v, &z, &val));
    P(nc_get_var1_int(ncid, v, &z, &val));
    P(nc_enddef(ncid));
    P(nc_put_var1_int(ncid, v, &z, (int[]){200}));
    P(nc_put_var1_uchar(ncid, v, &z, (unsigned char[]){200}));
    P(nc_get_var1_int(ncid, v, &z, &val));
    printf("  byte from uchar %d\n", val);
    P(nc_redef(ncid));
    P(nc_get_var1_int(ncid, v, &z, &val));
    P(nc_close(ncid));

    if (P(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid)))
        return;
    P(nc_def_dim(ncid, "x", 2, &dx));
    P(nc_def_var(ncid, "v", NC_INT, 1, &dx, &v));
    P(nc_get_var1_int(ncid, v, &z, &val));
    printf("  unwritten %d\n", val);
    P(nc_redef(ncid));
    P(nc_def_var(ncid, "w", NC_INT, 1, &dx, &w));
    P(nc_put_var1_int(ncid, w, &z, (int[]){9}));
    P(nc_get_var1_int(ncid, w, &z, &val));
    printf("  w %d\n", val);
    P(nc_put_var1_int(ncid, 99, &z, &val));
    P(nc_get_var1_int(ncid, NC_GLOBAL, &z, &val));
    P(nc_close(ncid));
    P(nc_open(path, NC_NOWRITE, &ncid));
    P(nc_put_var1_int(ncid, 0, &z, &val));
    P(nc_get_var1_int(ncid, 1, &z, &val));
    printf("  w %d\n", val);
    P(nc_close(ncid));
}

int
main(void)
{
    conversions("tst_h5read_data1.nc", NC_NETCDF4);
    conversions("tst_h5read_data2.nc", NC_NETCDF4 | NC_CLASSIC_MODEL);
    shapes("tst_h5read_data3.nc");
    kinds("tst_h5read_data4.nc");
    modes("tst_h5read_data5.nc");
    return 0;
}
