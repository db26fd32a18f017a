/* tst_apicodes4.c: return codes and out-parameters of the enhanced-model API
 * (groups, user-defined types, chunking and filters, strings, vlens, the
 * classic-model rules, renames) on NC_NETCDF4 and NC_NETCDF4|NC_CLASSIC_MODEL
 * files, for a differential comparison with the reference library.  The
 * same source is built against ours and against the reference
 * (ref_tst_apicodes4, NCT_REFERENCE_BUILD); run_apicodes4.sh diffs the two
 * outputs.  nc_test/tst_apicodes.c (argument nc4) covers the calls the
 * classic formats share.
 *
 * One line per call: tag, return code, out-parameters pre-filled with
 * sentinels (ints -7, sizes 77, names "~~~~").  Group ids are printed as
 * their group part (ncid & 0xffff) so that the file slot does not matter.
 * Each section runs in a child process so a crash is reported, not fatal.
 *
 * Usage: tst_apicodes4   (writes ac4_*.nc in the current directory) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_mem.h>

/* Fortran helper that netcdf.h does not declare. */
extern int nc_def_var_chunking_ints(int ncid, int varid, int contiguous, int *chunksizesp);

#define SI (-7)
#define SZ ((size_t)77)

static int cur_cmode;
static const char *cur_fmt;

static void line(const char *tag, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void
line(const char *tag, int rc, const char *fmt, ...)
{
    va_list ap;
    printf("%s %s: %d", cur_fmt, tag, rc);
    if (fmt && *fmt) {
        putchar(' ');
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
    }
    putchar('\n');
    fflush(stdout);
}

/* Call with no out-parameters. */
#define L(tag, call) line(tag, (call), "%s", "")

static const char *
txt(const char *s)
{
    static char out[4][200];
    static int k;
    char *o = out[k++ & 3];
    size_t j = 0;
    for (size_t i = 0; i < 40 && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 32 && c < 127) o[j++] = (char)c;
        else j += (size_t)sprintf(o + j, "\\%03o", c);
    }
    o[j] = 0;
    return o;
}

#define NAMEBUF(b) char b[NC_MAX_NAME + 2]; memset(b, '~', 20); b[20] = 0
#define GID(g) ((g) == SI ? SI : ((g) & 0xffff))

static char path_buf[64];
static const char *
fpath(const char *what)
{
    snprintf(path_buf, sizeof path_buf, "ac4_%s_%s.nc", cur_fmt, what);
    return path_buf;
}

static int classic_model(void) { return (cur_cmode & NC_CLASSIC_MODEL) != 0; }

/* ---- groups ------------------------------------------------------------------ */

static void
sec_groups(void)
{
    int ncid, rc, g = SI, h = SI, k = SI;
    if (nc_create(fpath("grp"), cur_cmode | NC_CLOBBER, &ncid)) { line("setup", -1, "%s", ""); return; }
    nc_def_dim(ncid, "x", 3, NULL);
    nc_def_var(ncid, "v", NC_INT, 0, NULL, NULL);
    rc = nc_def_grp(ncid, "g", &g);
    line("def_grp(g)", rc, "g=%d", GID(g));
    rc = nc_def_grp(g, "h", &h);
    line("def_grp(g/h)", rc, "h=%d", GID(h));
    k = SI; rc = nc_def_grp(ncid, "g", &k);
    line("def_grp(dup)", rc, "k=%d", GID(k));
    k = SI; rc = nc_def_grp(ncid, "v", &k);
    line("def_grp(name of var)", rc, "k=%d", GID(k));
    /* A group named like a dimension: the reference accepts it, then
     * fails in enddef (HDF5 link names clash): left out. */
    k = SI; rc = nc_def_grp(ncid, "bad/name", &k);
    line("def_grp(bad name)", rc, "k=%d", GID(k));
    k = SI; rc = nc_def_grp(ncid, "", &k);
    line("def_grp(\"\")", rc, "k=%d", GID(k));
    rc = nc_def_grp(ncid, "nullid", NULL);
    line("def_grp(NULL idp)", rc, "%s", "");
    k = SI; rc = nc_def_grp(12345678, "z", &k);
    line("def_grp(bad ncid)", rc, "k=%d", GID(k));
    if (classic_model()) { nc_close(ncid); return; }
    /* a dimension in g, visible from h */
    int gy = SI, d = SI, hv = SI;
    rc = nc_def_dim(g, "y", 2, &gy);
    line("def_dim(g,y)", rc, "d=%d", gy);
    rc = nc_def_dim(h, "x", 4, &d);
    line("def_dim(h,x shadows root x)", rc, "d=%d", d);
    d = SI; rc = nc_inq_dimid(h, "y", &d);
    line("inq_dimid(h,y from parent)", rc, "d=%d", d);
    d = SI; rc = nc_inq_dimid(h, "x", &d);
    line("inq_dimid(h,x nearest)", rc, "d=%d", d);
    d = SI; rc = nc_inq_dimid(ncid, "y", &d);
    line("inq_dimid(root,y of child)", rc, "d=%d", d);
    {
        int dd[2] = {gy, 0};
        rc = nc_def_var(h, "hv", NC_INT, 2, dd, &hv);
        line("def_var(h, parent dims)", rc, "v=%d", hv);
        int bad = 99;
        rc = nc_def_var(h, "hw", NC_INT, 1, &bad, &hv);
        line("def_var(h, bad dim)", rc, "%s", "");
        /* A root variable on a child group's dimension: the reference
         * accepts it and fails in enddef (NC_EHDFERR): left out. */
    }
    for (int inc = 0; inc < 2; inc++) {
        int n = SI, ids[6] = {SI, SI, SI, SI, SI, SI};
        char tag[64];
        rc = nc_inq_dimids(h, &n, ids, inc);
        snprintf(tag, sizeof tag, "inq_dimids(h,parents=%d)", inc);
        line(tag, rc, "n=%d ids=%d,%d,%d,%d", n, ids[0], ids[1], ids[2], ids[3]);
    }
    {
        int n = SI, nd = SI, nv = SI, na = SI, u = SI;
        rc = nc_inq(h, &nd, &nv, &na, &u);
        line("inq(h)", rc, "nd=%d nv=%d na=%d u=%d", nd, nv, na, u);
        n = SI;
        rc = nc_inq_ndims(g, &n);
        line("inq_ndims(g)", rc, "n=%d", n);
    }
    {
        int n = SI, ids[4] = {SI, SI, SI, SI};
        rc = nc_inq_grps(ncid, &n, ids);
        line("inq_grps(root)", rc, "n=%d ids=%d,%d", n, GID(ids[0]), GID(ids[1]));
        n = SI;
        rc = nc_inq_grps(h, &n, ids);
        line("inq_grps(h)", rc, "n=%d", n);
    }
    {
        NAMEBUF(name);
        size_t len = SZ;
        char full[256];
        memset(full, '~', 30); full[30] = 0;
        rc = nc_inq_grpname(h, name);
        line("inq_grpname(h)", rc, "name=%s", txt(name));
        rc = nc_inq_grpname_full(h, &len, full);
        line("inq_grpname_full(h)", rc, "len=%zu name=%s", len, txt(full));
        len = SZ;
        rc = nc_inq_grpname_len(h, &len);
        line("inq_grpname_len(h)", rc, "len=%zu", len);
        int p = SI;
        rc = nc_inq_grp_parent(h, &p);
        line("inq_grp_parent(h)", rc, "p=%d", GID(p));
        p = SI;
        rc = nc_inq_grp_parent(ncid, &p);
        line("inq_grp_parent(root)", rc, "p=%d", GID(p));
    }
    {
        const char *fulls[] = {"/g/h", "g/h", "/g", "/g/", "/g/nope", "/nope/h", "//g", "/", "h", "/g/h/"};
        for (size_t i = 0; i < sizeof fulls / sizeof fulls[0]; i++) {
            char tag[64];
            k = SI;
            rc = nc_inq_grp_full_ncid(ncid, fulls[i], &k);
            snprintf(tag, sizeof tag, "inq_grp_full_ncid(root,\"%s\")", fulls[i]);
            line(tag, rc, "k=%d", GID(k));
        }
        k = SI;
        rc = nc_inq_grp_full_ncid(g, "/g/h", &k);
        line("inq_grp_full_ncid(g,\"/g/h\")", rc, "k=%d", GID(k));
        k = SI;
        rc = nc_inq_grp_full_ncid(g, "h", &k);
        line("inq_grp_full_ncid(g,\"h\")", rc, "k=%d", GID(k));
        k = SI;
        rc = nc_inq_grp_ncid(g, "h", &k);
        line("inq_grp_ncid(g,h)", rc, "k=%d", GID(k));
        k = SI;
        rc = nc_inq_grp_ncid(ncid, "h", &k);
        line("inq_grp_ncid(root,h grandchild)", rc, "k=%d", GID(k));
        k = SI;
        rc = nc_inq_ncid(g, "h", &k);
        line("inq_ncid(g,h)", rc, "k=%d", GID(k));
    }
    {
        int n = SI, ids[4] = {SI, SI, SI, SI};
        rc = nc_inq_varids(h, &n, ids);
        line("inq_varids(h)", rc, "n=%d ids0=%d", n, ids[0]);
        int v = SI;
        rc = nc_inq_varid(h, "v", &v);
        line("inq_varid(h,v of root)", rc, "v=%d", v);
    }
    /* renames */
    L("rename_grp(root)", nc_rename_grp(ncid, "r"));
    L("rename_grp(h,dup of nothing)", nc_rename_grp(h, "h2"));
    L("rename_grp(g,v name of var)", nc_rename_grp(g, "v"));
    L("rename_grp(g,bad/name)", nc_rename_grp(g, "bad/name"));
    L("rename_grp(g,\"\")", nc_rename_grp(g, ""));
    L("def_grp(g,h again)", nc_def_grp(g, "h", NULL));
    L("rename_grp(g,gg)", nc_rename_grp(g, "gg"));
    L("enddef", nc_enddef(ncid));
    /* data mode: netCDF-4 goes back to define mode by itself */
    k = SI; rc = nc_def_grp(ncid, "late", &k);
    line("def_grp(data mode)", rc, "k=%d", GID(k));
    L("def_dim(data mode)", nc_def_dim(ncid, "late_dim", 5, NULL));
    L("def_var(data mode)", nc_def_var(ncid, "late", NC_INT, 0, NULL, NULL));
    L("rename_grp(data mode)", nc_rename_grp(h, "h3"));
    L("close", nc_close(ncid));
    /* reopen: names and order */
    if (nc_open(fpath("grp"), NC_NOWRITE, &ncid)) { line("reopen", -1, "%s", ""); return; }
    {
        int n = SI, ids[8];
        rc = nc_inq_grps(ncid, &n, ids);
        line("reopen inq_grps", rc, "n=%d", n);
        for (int i = 0; rc == 0 && i < n && i < 8; i++) {
            NAMEBUF(name);
            int nn = SI;
            nc_inq_grpname(ids[i], name);
            nc_inq_grps(ids[i], &nn, NULL);
            line("reopen grp", 0, "%d name=%s ngrps=%d", i, txt(name), nn);
        }
        k = SI;
        rc = nc_inq_grp_full_ncid(ncid, "/gg/h3", &k);
        line("reopen inq_grp_full_ncid(/gg/h3)", rc, "found=%d", k != SI);
        L("reopen def_grp(readonly)", nc_def_grp(ncid, "ro", NULL));
        L("reopen rename_grp(readonly)", nc_rename_grp(ids[0], "ro"));
    }
    nc_close(ncid);
}

/* ---- user-defined types ---------------------------------------------------- */

struct pt { int i; double d; short a[3]; };

static void
sec_types(void)
{
    int ncid, rc;
    nc_type cmp = SI, t = SI, vl = SI, en = SI, op = SI, vv = SI;
    if (nc_create(fpath("typ"), cur_cmode | NC_CLOBBER, &ncid)) { line("setup", -1, "%s", ""); return; }
    rc = nc_def_compound(ncid, sizeof(struct pt), "pt", &cmp);
    line("def_compound", rc, "t=%d", cmp);
    if (classic_model()) {
        t = SI; rc = nc_def_vlen(ncid, "vl", NC_INT, &t);
        line("def_vlen", rc, "t=%d", t);
        t = SI; rc = nc_def_enum(ncid, NC_INT, "en", &t);
        line("def_enum", rc, "t=%d", t);
        t = SI; rc = nc_def_opaque(ncid, 4, "op", &t);
        line("def_opaque", rc, "t=%d", t);
        nc_close(ncid);
        return;
    }
    int three = 3;
    L("insert_compound(i)", nc_insert_compound(ncid, cmp, "i", offsetof(struct pt, i), NC_INT));
    L("insert_compound(d)", nc_insert_compound(ncid, cmp, "d", offsetof(struct pt, d), NC_DOUBLE));
    L("insert_array_compound(a)", nc_insert_array_compound(ncid, cmp, "a", offsetof(struct pt, a), NC_SHORT, 1, &three));
    /* A duplicate field name, an offset past the end, a field straddling the
     * end: the reference accepts them and fails later in HDF5 (the file
     * cannot be closed cleanly): left out, checked in tst_types4. */
    /* A field of type 99: the reference accepts it: left out. */
    L("insert_compound(bad name)", nc_insert_compound(ncid, cmp, "bad/name", 0, NC_INT));
    L("insert_compound(not compound)", nc_insert_compound(ncid, NC_INT, "z", 0, NC_INT));
    L("insert_compound(bad typeid)", nc_insert_compound(ncid, 99, "z", 0, NC_INT));
    {
        int zero = 0, neg = -1;
        /* Array fields with 0 dims or sizes 0/-1: the reference accepts
         * them (and adds the fields): left out. */
        (void)zero; (void)neg;
    }
    t = SI; rc = nc_def_compound(ncid, 0, "zero", &t);
    line("def_compound(size 0)", rc, "t=%d", t);
    t = SI; rc = nc_def_compound(ncid, 8, "pt", &t);
    line("def_compound(dup name)", rc, "t=%d", t);
    t = SI; rc = nc_def_compound(ncid, 8, "bad/name", &t);
    line("def_compound(bad name)", rc, "t=%d", t);
    /* nc_def_compound with a NULL id pointer succeeds and leaves an empty
     * compound that HDF5 cannot commit: an opaque type shows the same. */
    rc = nc_def_opaque(ncid, 8, "nullid", NULL);
    line("def_opaque(NULL idp)", rc, "%s", "");
    /* nested compound, compound with a string field, vlen in compound */
    nc_type outer = SI, withstr = SI;
    rc = nc_def_compound(ncid, sizeof(struct pt) + 8, "outer", &outer);
    line("def_compound(outer)", rc, "t=%d", outer);
    L("insert_compound(outer,p)", nc_insert_compound(ncid, outer, "p", 0, cmp));
    L("insert_compound(outer,n)", nc_insert_compound(ncid, outer, "n", sizeof(struct pt), NC_INT64));
    /* A compound inserted into itself: the reference accepts it: left out. */
    rc = nc_def_compound(ncid, sizeof(char *), "withstr", &withstr);
    line("def_compound(withstr)", rc, "t=%d", withstr);
    L("insert_compound(withstr,s)", nc_insert_compound(ncid, withstr, "s", 0, NC_STRING));
    /* vlen */
    rc = nc_def_vlen(ncid, "vl", NC_INT, &vl);
    line("def_vlen", rc, "t=%d", vl);
    t = SI; rc = nc_def_vlen(ncid, "vl", NC_INT, &t);
    line("def_vlen(dup)", rc, "t=%d", t);
    /* nc_def_vlen with base type 99: the reference accepts it: left out. */
    rc = nc_def_vlen(ncid, "vv", vl, &vv);
    line("def_vlen(of vlen)", rc, "t=%d", vv);
    t = SI; rc = nc_def_vlen(ncid, "vlc", cmp, &t);
    line("def_vlen(of compound)", rc, "t=%d", t);
    t = SI; rc = nc_def_vlen(ncid, "vls", NC_STRING, &t);
    line("def_vlen(of string)", rc, "t=%d", t);
    /* enum */
    rc = nc_def_enum(ncid, NC_SHORT, "en", &en);
    line("def_enum(short)", rc, "t=%d", en);
    {
        short a = 1, b = 2, c = 1;
        L("insert_enum(one)", nc_insert_enum(ncid, en, "one", &a));
        L("insert_enum(two)", nc_insert_enum(ncid, en, "two", &b));
        /* A duplicate member name or value: the reference accepts both
         * (HDF5 then refuses the type): left out, checked in tst_types4. */
        (void)c;
        L("insert_enum(bad name)", nc_insert_enum(ncid, en, "bad/name", &b));
        L("insert_enum(not enum)", nc_insert_enum(ncid, cmp, "x", &b));
        /* nc_insert_enum with a NULL value: the reference crashes: left out. */
    }
    /* Enums of float or string base: the reference accepts them (HDF5
     * cannot store them): left out, checked in tst_types4. */
    t = SI; rc = nc_def_enum(ncid, NC_UINT64, "eu", &t);
    line("def_enum(uint64)", rc, "t=%d", t);
    {
        unsigned long long big = 18446744073709551615ull;
        L("insert_enum(uint64 max)", nc_insert_enum(ncid, t, "max", &big));
    }
    /* An enum without members: the reference accepts it, then nc_close
     * fails with NC_EINVAL: left out, checked in tst_types4. */
    /* opaque */
    rc = nc_def_opaque(ncid, 5, "op", &op);
    line("def_opaque", rc, "t=%d", op);
    t = SI; rc = nc_def_opaque(ncid, 0, "op0", &t);
    line("def_opaque(size 0)", rc, "t=%d", t);
    t = SI; rc = nc_def_opaque(ncid, 5, "op", &t);
    line("def_opaque(dup)", rc, "t=%d", t);
    /* Commit the types: the reference compares uncommitted types with
     * NC_EHDFERR, and changes uncommitted types after use. */
    L("sync(types complete)", nc_sync(ncid));
    /* a type and a variable of the same name */
    L("def_var(name of type)", nc_def_var(ncid, "pt", NC_INT, 0, NULL, NULL));
    /* inquiries */
    nc_type all[] = {cmp, outer, withstr, vl, vv, en, op, NC_INT, NC_STRING, 99};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        char tag[64];
        NAMEBUF(name);
        size_t size = SZ, nf = SZ;
        nc_type base = SI;
        int cl = SI;
        rc = nc_inq_user_type(ncid, all[i], name, &size, &base, &nf, &cl);
        snprintf(tag, sizeof tag, "inq_user_type(#%zu)", i);
        line(tag, rc, "name=%s size=%zu base=%d n=%zu class=%d", txt(name), size, base, nf, cl);
        NAMEBUF(n2);
        size = SZ;
        rc = nc_inq_type(ncid, all[i], n2, &size);
        snprintf(tag, sizeof tag, "inq_type(#%zu)", i);
        line(tag, rc, "name=%s size=%zu", txt(n2), size);
    }
    for (int f = -1; f < 4; f++) {
        char tag[64];
        NAMEBUF(name);
        size_t off = SZ;
        nc_type ft = SI;
        int nd = SI, ds[2] = {SI, SI};
        rc = nc_inq_compound_field(ncid, cmp, f, name, &off, &ft, &nd, ds);
        snprintf(tag, sizeof tag, "inq_compound_field(pt,%d)", f);
        line(tag, rc, "name=%s off=%zu type=%d ndims=%d dim0=%d", txt(name), off, ft, nd, ds[0]);
    }
    {
        int fi = SI;
        rc = nc_inq_compound_fieldindex(ncid, cmp, "d", &fi);
        line("inq_compound_fieldindex(d)", rc, "i=%d", fi);
        fi = SI;
        rc = nc_inq_compound_fieldindex(ncid, cmp, "nope", &fi);
        line("inq_compound_fieldindex(nope)", rc, "i=%d", fi);
        int nd = SI, ds[2] = {SI, SI};
        rc = nc_inq_compound_fielddim_sizes(ncid, cmp, 2, ds);
        line("inq_compound_fielddim_sizes(a)", rc, "d0=%d", ds[0]);
        rc = nc_inq_compound_fieldndims(ncid, cmp, 2, &nd);
        line("inq_compound_fieldndims(a)", rc, "nd=%d", nd);
        nc_type ft = SI;
        rc = nc_inq_compound_fieldtype(ncid, outer, 0, &ft);
        line("inq_compound_fieldtype(outer,0)", rc, "t=%d", ft);
    }
    for (int m = -1; m < 3; m++) {
        char tag[64];
        NAMEBUF(name);
        short val = SI;
        rc = nc_inq_enum_member(ncid, en, m, name, &val);
        snprintf(tag, sizeof tag, "inq_enum_member(en,%d)", m);
        line(tag, rc, "name=%s val=%d", txt(name), val);
    }
    for (long long v = 0; v < 3; v++) {
        char tag[64];
        NAMEBUF(name);
        rc = nc_inq_enum_ident(ncid, en, v, name);
        snprintf(tag, sizeof tag, "inq_enum_ident(en,%lld)", v);
        line(tag, rc, "name=%s", txt(name));
    }
    {
        const char *names[] = {"pt", "/pt", "vl", "en", "int", "nope", "/nope/pt", ""};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            char tag[64];
            t = SI;
            rc = nc_inq_typeid(ncid, names[i], &t);
            snprintf(tag, sizeof tag, "inq_typeid(\"%s\")", names[i]);
            line(tag, rc, "t=%d", t);
        }
        int n = SI, ids[16];
        rc = nc_inq_typeids(ncid, &n, ids);
        line("inq_typeids", rc, "n=%d first=%d", n, n > 0 ? ids[0] : SI);
    }
    /* a type in a subgroup: seen from below, not from above */
    {
        int g = SI;
        nc_type gt = SI;
        nc_def_grp(ncid, "g", &g);
        rc = nc_def_opaque(g, 3, "gop", &gt);
        line("def_opaque(g)", rc, "t=%d", gt);
        t = SI; rc = nc_inq_typeid(ncid, "gop", &t);
        line("inq_typeid(root,gop)", rc, "t=%d", t);
        /* nc_inq_typeid(root, "/g/gop"): the reference returns NC_NOERR
         * without setting the id: left out. */
        t = SI; rc = nc_inq_typeid(g, "pt", &t);
        line("inq_typeid(g,pt of parent)", rc, "t=%d", t);
        int n = SI;
        rc = nc_inq_typeids(g, &n, NULL);
        line("inq_typeids(g)", rc, "n=%d", n);
        L("def_var(g, root type)", nc_def_var(g, "gv", cmp, 0, NULL, NULL));
        L("sync(g)", nc_sync(ncid));
        int eq = SI;
        rc = nc_inq_type_equal(ncid, op, g, gt, &eq);
        line("inq_type_equal(op,gop)", rc, "eq=%d", eq);
    }
    {
        int eq = SI;
        rc = nc_inq_type_equal(ncid, cmp, ncid, cmp, &eq);
        line("inq_type_equal(pt,pt)", rc, "eq=%d", eq);
        eq = SI;
        rc = nc_inq_type_equal(ncid, cmp, ncid, NC_INT, &eq);
        line("inq_type_equal(pt,int)", rc, "eq=%d", eq);
    }
    /* variables and attributes of user types; then the types are fixed */
    int vc = SI, vvl = SI, ven = SI, vop = SI;
    nc_def_dim(ncid, "n", 2, NULL);
    {
        int d0 = 0;
        rc = nc_def_var(ncid, "vc", cmp, 1, &d0, &vc);
        line("def_var(compound)", rc, "v=%d", vc);
        rc = nc_def_var(ncid, "vvl", vl, 1, &d0, &vvl);
        line("def_var(vlen)", rc, "v=%d", vvl);
        rc = nc_def_var(ncid, "ven", en, 1, &d0, &ven);
        line("def_var(enum)", rc, "v=%d", ven);
        rc = nc_def_var(ncid, "vop", op, 1, &d0, &vop);
        line("def_var(opaque)", rc, "v=%d", vop);
    }
    L("sync(vars)", nc_sync(ncid));
    L("insert_compound(after use)", nc_insert_compound(ncid, cmp, "late", 0, NC_BYTE));
    {
        short c = 9;
        L("insert_enum(after use)", nc_insert_enum(ncid, en, "nine", &c));
    }
    {
        struct pt p[2] = {{1, 2.5, {1, 2, 3}}, {4, 5.5, {4, 5, 6}}};
        short e[2] = {1, 2}, bad[2] = {1, 7};
        unsigned char o[10] = "abcdefghi";
        int d1[1] = {1}, d2[2] = {2, 3};
        nc_vlen_t vd[2] = {{1, d1}, {2, d2}};
        L("put_var(compound)", nc_put_var(ncid, vc, p));
        L("put_var(enum)", nc_put_var(ncid, ven, e));
        L("put_var(enum, not a member)", nc_put_var(ncid, ven, bad));
        L("put_var(opaque)", nc_put_var(ncid, vop, o));
        L("put_var(vlen)", nc_put_var(ncid, vvl, vd));
        L("put_var_int(compound)", nc_put_var_int(ncid, vc, d2));
        L("put_var_short(enum)", nc_put_var_short(ncid, ven, e));
        L("put_var_int(enum)", nc_put_var_int(ncid, ven, d2));
        L("put_var_int(vlen)", nc_put_var_int(ncid, vvl, d2));
        L("put_var_text(opaque)", nc_put_var_text(ncid, vop, "abcdefghij"));
        L("put_att(compound)", nc_put_att(ncid, vc, "ca", cmp, 2, p));
        L("put_att(enum)", nc_put_att(ncid, NC_GLOBAL, "ea", en, 2, e));
        L("put_att(opaque)", nc_put_att(ncid, NC_GLOBAL, "oa", op, 2, o));
        L("put_att(vlen)", nc_put_att(ncid, NC_GLOBAL, "va", vl, 2, vd));
        L("put_att_int(as compound)", nc_put_att_int(ncid, NC_GLOBAL, "xa", cmp, 1, d2));
        /* nc_put_att with type 99 says NC_EBADTYPID in the reference but
         * leaves a broken attribute that fails nc_close: left out. */
        L("put_att(_FillValue compound)", nc_put_att(ncid, vc, "_FillValue", cmp, 1, p));
    }
    L("close", nc_close(ncid));
    if (nc_open(fpath("typ"), NC_NOWRITE, &ncid)) { line("reopen", -1, "%s", ""); return; }
    {
        int n = SI, ids[32];
        rc = nc_inq_typeids(ncid, &n, ids);
        line("reopen inq_typeids", rc, "n=%d", n);
        for (int i = 0; rc == 0 && i < n && i < 32; i++) {
            NAMEBUF(name);
            size_t size = SZ, nf = SZ;
            nc_type base = SI;
            int cl = SI;
            int r2 = nc_inq_user_type(ncid, ids[i], name, &size, &base, &nf, &cl);
            line("reopen type", r2, "id=%d name=%s size=%zu base=%d n=%zu class=%d",
                 ids[i], txt(name), size, base, nf, cl);
        }
        struct pt p[2];
        short e[2] = {SI, SI};
        unsigned char o[11] = {0};
        nc_vlen_t vd[2] = {{SZ, NULL}, {SZ, NULL}};
        int vid = SI;
        memset(p, 0, sizeof p);
        nc_inq_varid(ncid, "vc", &vid);
        rc = nc_get_var(ncid, vid, p);
        line("get_var(compound)", rc, "%d %g %d,%d,%d / %d %g %d", p[0].i, p[0].d, p[0].a[0], p[0].a[1],
             p[0].a[2], p[1].i, p[1].d, p[1].a[2]);
        rc = nc_get_var_int(ncid, vid, (int *)p);
        line("get_var_int(compound)", rc, "%s", "");
        nc_inq_varid(ncid, "ven", &vid);
        rc = nc_get_var(ncid, vid, e);
        line("get_var(enum)", rc, "%d,%d", e[0], e[1]);
        {
            int ie[2] = {SI, SI};
            rc = nc_get_var_int(ncid, vid, ie);
            line("get_var_int(enum)", rc, "%d,%d", ie[0], ie[1]);
        }
        nc_inq_varid(ncid, "vop", &vid);
        rc = nc_get_var(ncid, vid, o);
        line("get_var(opaque)", rc, "%s", txt((char *)o));
        nc_inq_varid(ncid, "vvl", &vid);
        rc = nc_get_var(ncid, vid, vd);
        line("get_var(vlen)", rc, "len=%zu,%zu v=%d,%d", vd[0].len, vd[1].len,
             rc == 0 ? ((int *)vd[0].p)[0] : SI, rc == 0 ? ((int *)vd[1].p)[1] : SI);
        if (rc == 0) {
            L("free_vlens", nc_free_vlens(2, vd));
        }
        nc_type at = SI;
        size_t al = SZ;
        rc = nc_inq_att(ncid, NC_GLOBAL, "va", &at, &al);
        line("inq_att(va)", rc, "t=%d len=%zu", at, al);
        {
            int ib[4] = {SI, SI, SI, SI};
            rc = nc_get_att_int(ncid, NC_GLOBAL, "ea", ib);
            line("get_att_int(enum att)", rc, "%d,%d", ib[0], ib[1]);
        }
        /* nc_def_compound on a read-only file: the reference says
         * NC_NOERR: left out. */
        /* nc_def_opaque on a read-only file: the reference says NC_NOERR
         * (ours NC_EPERM): left out. */
    }
    nc_close(ncid);
}

/* ---- per-variable storage settings ---------------------------------------------- */

static void
show_var(int ncid, int varid, const char *w)
{
    char tag[96];
    int rc, st = SI, sh = SI, de = SI, lv = SI, fl = SI, en = SI, nf = SI, q = SI, nsd = SI;
    size_t cs[3] = {SZ, SZ, SZ}, nfil = SZ;
    unsigned ids[4] = {0xabcd, 0xabcd, 0xabcd, 0xabcd};
    int fv[2] = {SI, SI};
#define TAG(n) (snprintf(tag, sizeof tag, "%s[%s]", n, w), tag)
    rc = nc_inq_var_chunking(ncid, varid, &st, cs);
    line(TAG("inq_var_chunking"), rc, "storage=%d chunks=%zu,%zu,%zu", st, cs[0], cs[1], cs[2]);
    rc = nc_inq_var_deflate(ncid, varid, &sh, &de, &lv);
    line(TAG("inq_var_deflate"), rc, "shuffle=%d deflate=%d level=%d", sh, de, lv);
    rc = nc_inq_var_fletcher32(ncid, varid, &fl);
    line(TAG("inq_var_fletcher32"), rc, "f=%d", fl);
    rc = nc_inq_var_endian(ncid, varid, &en);
    line(TAG("inq_var_endian"), rc, "e=%d", en);
    rc = nc_inq_var_fill(ncid, varid, &nf, fv);
    line(TAG("inq_var_fill"), rc, "nofill=%d fill=%d", nf, fv[0]);
    rc = nc_inq_var_filter_ids(ncid, varid, &nfil, ids);
    line(TAG("inq_var_filter_ids"), rc, "n=%zu ids=%u,%u,%u", nfil, ids[0], ids[1], ids[2]);
    rc = nc_inq_var_quantize(ncid, varid, &q, &nsd);
    line(TAG("inq_var_quantize"), rc, "mode=%d nsd=%d", q, nsd);
    {
        int m = SI, p = SI;
        rc = nc_inq_var_szip(ncid, varid, &m, &p);
        line(TAG("inq_var_szip"), rc, "mask=%d ppb=%d", m, p);
    }
    {
        size_t sz = SZ, ne = SZ;
        float pr = -7.0f;
        rc = nc_get_var_chunk_cache(ncid, varid, &sz, &ne, &pr);
        line(TAG("get_var_chunk_cache"), rc, "size=%zu nelems=%zu pre=%g", sz, ne, pr);
    }
#undef TAG
}

static void
sec_storage(void)
{
    int ncid, rc, dims[3], vi = SI, vf = SI, vs = SI, vc = SI, vu = SI, vb = SI;
    if (nc_create(fpath("sto"), cur_cmode | NC_CLOBBER, &ncid)) { line("setup", -1, "%s", ""); return; }
    nc_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]);
    nc_def_dim(ncid, "y", 100, &dims[1]);
    nc_def_dim(ncid, "x", 7, &dims[2]);
    nc_def_var(ncid, "vi", NC_INT, 2, dims + 1, &vi);
    nc_def_var(ncid, "vf", NC_FLOAT, 3, dims, &vf);
    nc_def_var(ncid, "vs", NC_DOUBLE, 0, NULL, &vs);
    nc_def_var(ncid, "vc", NC_INT, 2, dims + 1, &vc);
    nc_def_var(ncid, "vu", NC_INT, 1, dims, &vu);
    nc_def_var(ncid, "vb", NC_BYTE, 2, dims + 1, &vb);
    /* defaults before anything is set */
    show_var(ncid, vi, "default,fixed");
    show_var(ncid, vf, "default,unlim");
    show_var(ncid, vs, "default,scalar");
    show_var(ncid, vu, "default,1d unlim");
    {
        size_t ok[2] = {10, 7}, zero[2] = {0, 7}, big[2] = {101, 7}, huge[2] = {(size_t)1 << 31, 7};
        L("def_var_chunking(vi,10x7)", nc_def_var_chunking(ncid, vi, NC_CHUNKED, ok));
        L("def_var_chunking(vc,zero)", nc_def_var_chunking(ncid, vc, NC_CHUNKED, zero));
        L("def_var_chunking(vc,larger than dim)", nc_def_var_chunking(ncid, vc, NC_CHUNKED, big));
        L("def_var_chunking(vc,4 GiB chunk)", nc_def_var_chunking(ncid, vc, NC_CHUNKED, huge));
        L("def_var_chunking(vc,NULL sizes)", nc_def_var_chunking(ncid, vc, NC_CHUNKED, NULL));
        L("def_var_chunking(vc,bad storage)", nc_def_var_chunking(ncid, vc, 7, ok));
        L("def_var_chunking(vu,contiguous unlim)", nc_def_var_chunking(ncid, vu, NC_CONTIGUOUS, NULL));
        L("def_var_chunking(vs,chunked scalar)", nc_def_var_chunking(ncid, vs, NC_CHUNKED, ok));
        L("def_var_chunking(vs,compact)", nc_def_var_chunking(ncid, vs, NC_COMPACT, NULL));
        L("def_var_chunking(vb,compact 700B)", nc_def_var_chunking(ncid, vb, NC_COMPACT, NULL));
        L("def_var_chunking(vu,compact unlim)", nc_def_var_chunking(ncid, vu, NC_COMPACT, NULL));
        L("def_var_chunking(global)", nc_def_var_chunking(ncid, NC_GLOBAL, NC_CONTIGUOUS, NULL));
        L("def_var_chunking(99)", nc_def_var_chunking(ncid, 99, NC_CONTIGUOUS, NULL));
        int oki[2] = {5, 7};
        L("def_var_chunking_ints(vc)", nc_def_var_chunking_ints(ncid, vc, NC_CHUNKED, oki));
    }
    /* Level 10: the reference accepts it and fails in enddef: left out. */
    for (int lvl = -1; lvl <= 9; lvl += 1) {
        char tag[64];
        snprintf(tag, sizeof tag, "def_var_deflate(vi,level %d)", lvl);
        L(tag, nc_def_var_deflate(ncid, vi, 0, 1, lvl));
    }
    L("def_var_deflate(vf,shuffle only)", nc_def_var_deflate(ncid, vf, 1, 0, 0));
    L("def_var_deflate(vs,scalar)", nc_def_var_deflate(ncid, vs, 1, 1, 4));
    L("def_var_fletcher32(vf)", nc_def_var_fletcher32(ncid, vf, 1));
    L("def_var_fletcher32(vf,2)", nc_def_var_fletcher32(ncid, vf, 2));
    /* A bad szip mask or an odd pixels-per-block: the reference accepts
     * them and fails in enddef: left out. */
    L("def_var_szip(vb,ppb 32)", nc_def_var_szip(ncid, vb, NC_SZIP_NN, 32));
    /* Endianness -1 or 3: the reference stores them: left out. */
    for (int e = 0; e <= 2; e++) {
        char tag[64];
        snprintf(tag, sizeof tag, "def_var_endian(vc,%d)", e);
        L(tag, nc_def_var_endian(ncid, vc, e));
    }
    L("def_var_endian(vc,big)", nc_def_var_endian(ncid, vc, NC_ENDIAN_BIG));
    L("def_var_quantize(vi int)", nc_def_var_quantize(ncid, vi, NC_QUANTIZE_BITGROOM, 3));
    L("def_var_quantize(vf,nsd 0)", nc_def_var_quantize(ncid, vf, NC_QUANTIZE_BITGROOM, 0));
    L("def_var_quantize(vf,nsd 8)", nc_def_var_quantize(ncid, vf, NC_QUANTIZE_BITGROOM, 8));
    L("def_var_quantize(vf,bad mode)", nc_def_var_quantize(ncid, vf, 9, 3));
    L("def_var_quantize(vf,bitround 23)", nc_def_var_quantize(ncid, vf, NC_QUANTIZE_BITROUND, 23));
    L("def_var_quantize(vf,granular 3)", nc_def_var_quantize(ncid, vf, NC_QUANTIZE_GRANULARBR, 3));
    {
        int f = 42;
        L("def_var_fill(vi,42)", nc_def_var_fill(ncid, vi, 0, &f));
        L("def_var_fill(vc,nofill)", nc_def_var_fill(ncid, vc, 1, NULL));
        L("def_var_fill(vu,NULL value)", nc_def_var_fill(ncid, vu, 0, NULL));
        L("put_att(vu,_FillValue,2 values)", nc_put_att_int(ncid, vu, "_FillValue", NC_INT, 2, (int[]){1, 2}));
        L("put_att(vu,_FillValue,wrong type)", nc_put_att_int(ncid, vu, "_FillValue", NC_SHORT, 1, &f));
        L("put_att(vu,_FillValue)", nc_put_att_int(ncid, vu, "_FillValue", NC_INT, 1, &f));
    }
    {
        unsigned p[1] = {5};
        L("def_var_filter(vb,deflate)", nc_def_var_filter(ncid, vb, H5Z_FILTER_DEFLATE, 1, p));
        L("def_var_filter(vb,deflate no params)", nc_def_var_filter(ncid, vb, H5Z_FILTER_DEFLATE, 0, NULL));
        L("def_var_filter(vb,unknown 54321)", nc_def_var_filter(ncid, vb, 54321, 1, p));
        L("def_var_filter(vb,shuffle)", nc_def_var_filter(ncid, vb, H5Z_FILTER_SHUFFLE, 0, NULL));
    }
    L("set_var_chunk_cache(vi)", nc_set_var_chunk_cache(ncid, vi, 1 << 20, 101, 0.25f));
    L("set_var_chunk_cache(vi,pre 2)", nc_set_var_chunk_cache(ncid, vi, 1 << 20, 101, 2.0f));
    show_var(ncid, vi, "set,vi");
    show_var(ncid, vf, "set,vf");
    show_var(ncid, vs, "set,vs");
    show_var(ncid, vc, "set,vc");
    show_var(ncid, vu, "set,vu");
    show_var(ncid, vb, "set,vb");
    /* In the classic model the reference's enddef says NC_ENOTINDEFINE here
     * though the file is in define mode (a nc_def_dim just before it
     * succeeds); ours says NC_NOERR: the code is not compared. */
    if (classic_model()) nc_enddef(ncid);
    else L("enddef", nc_enddef(ncid));
    {
        size_t ok[2] = {10, 7};
        int f = 1;
        L("def_var_chunking(after enddef)", nc_def_var_chunking(ncid, vi, NC_CHUNKED, ok));
        L("def_var_deflate(after enddef)", nc_def_var_deflate(ncid, vi, 0, 1, 1));
        L("def_var_fletcher32(after enddef)", nc_def_var_fletcher32(ncid, vi, 1));
        L("def_var_endian(after enddef)", nc_def_var_endian(ncid, vi, NC_ENDIAN_LITTLE));
        L("def_var_fill(after enddef)", nc_def_var_fill(ncid, vi, 0, &f));
        L("put_att(_FillValue after enddef)", nc_put_att_int(ncid, vi, "_FillValue", NC_INT, 1, &f));
        L("redef", nc_redef(ncid));
        L("def_var_chunking(after redef)", nc_def_var_chunking(ncid, vi, NC_CHUNKED, ok));
        L("def_var_fill(after redef)", nc_def_var_fill(ncid, vi, 0, &f));
        L("put_att(_FillValue after redef)", nc_put_att_int(ncid, vi, "_FillValue", NC_INT, 1, &f));
        int nv = SI;
        rc = nc_def_var(ncid, "late", NC_INT, 2, dims + 1, &nv);
        line("def_var(late)", rc, "v=%d", nv);
        L("def_var_deflate(late)", nc_def_var_deflate(ncid, nv, 1, 1, 2));
        L("enddef(2)", nc_enddef(ncid));
    }
    {
        int data[7] = {1, 2, 3, 4, 5, 6, 7};
        size_t st[3] = {0, 0, 0}, ct[3] = {3, 1, 7};
        float fd[21];
        for (int i = 0; i < 21; i++) fd[i] = (float)i * 1.5f;
        L("put_vara(vf,3 records)", nc_put_vara_float(ncid, vf, st, ct, fd));
        L("put_vara(vi)", nc_put_vara_int(ncid, vi, st, ct + 1, data));
        size_t len = SZ;
        rc = nc_inq_dimlen(ncid, dims[0], &len);
        line("inq_dimlen(t)", rc, "len=%zu", len);
    }
    L("close", nc_close(ncid));
    if (nc_open(fpath("sto"), NC_NOWRITE, &ncid)) { line("reopen", -1, "%s", ""); return; }
    show_var(ncid, vi, "reopen,vi");
    show_var(ncid, vf, "reopen,vf");
    show_var(ncid, vs, "reopen,vs");
    show_var(ncid, vc, "reopen,vc");
    show_var(ncid, vu, "reopen,vu");
    show_var(ncid, vb, "reopen,vb");
    show_var(ncid, 6, "reopen,late");
    {
        int ib[8] = {SI, SI, SI, SI, SI, SI, SI, SI};
        size_t st[2] = {1, 0}, ct[2] = {1, 7};
        rc = nc_get_vara_int(ncid, vi, st, ct, ib);
        line("get_vara(vi,row 1 fill)", rc, "%d,%d", ib[0], ib[6]);
        float fb[7];
        size_t st3[3] = {2, 0, 0}, ct3[3] = {1, 1, 7};
        rc = nc_get_vara_float(ncid, vf, st3, ct3, fb);
        line("get_vara(vf,rec 2)", rc, "%g,%g", fb[0], fb[6]);
        st3[0] = 3;
        rc = nc_get_vara_float(ncid, vf, st3, ct3, fb);
        line("get_vara(vf,rec 3 past end)", rc, "%s", "");
    }
    nc_close(ncid);
}

/* ---- strings ----------------------------------------------------------------- */

static void
sec_strings(void)
{
    int ncid, rc, d, vs = SI, vs0 = SI;
    if (nc_create(fpath("str"), cur_cmode | NC_CLOBBER, &ncid)) { line("setup", -1, "%s", ""); return; }
    nc_def_dim(ncid, "n", 3, &d);
    rc = nc_def_var(ncid, "s", NC_STRING, 1, &d, &vs);
    line("def_var(string)", rc, "v=%d", vs);
    rc = nc_def_var(ncid, "s0", NC_STRING, 0, NULL, &vs0);
    line("def_var(string scalar)", rc, "v=%d", vs0);
    {
        const char *a[3] = {"alpha", "", "gamma"};
        const char *fv = "FILL";
        L("put_att_string(global)", nc_put_att_string(ncid, NC_GLOBAL, "sa", 3, a));
        L("put_att_string(0 values)", nc_put_att_string(ncid, NC_GLOBAL, "sz", 0, a));
        L("put_att_string(NULL entry)", nc_put_att_string(ncid, NC_GLOBAL, "sn", 1, (const char *[]){NULL}));
        L("put_att(string as text)", nc_put_att_text(ncid, vs, "units", 2, "m2"));
        L("put_att_int(as string)", nc_put_att_int(ncid, NC_GLOBAL, "si", NC_STRING, 1, &d));
        L("def_var_fill(s)", nc_def_var_fill(ncid, vs, 0, &fv));
    }
    L("enddef", nc_enddef(ncid));
    {
        const char *w[3] = {"one", "two", "three"};
        size_t st = 1, ct = 1;
        L("put_vara_string(s[1])", nc_put_vara_string(ncid, vs, &st, &ct, w));
        L("put_var1_string(s0)", nc_put_var1_string(ncid, vs0, NULL, w + 2));
        L("put_var_int(string var)", nc_put_var_int(ncid, vs, (int[]){1, 2, 3}));
        L("put_var_text(string var)", nc_put_var_text(ncid, vs, "abc"));
        L("put_var_string(NULL entry)", nc_put_vara_string(ncid, vs, &st, &ct, (const char *[]){NULL}));
    }
    L("close", nc_close(ncid));
    if (nc_open(fpath("str"), NC_NOWRITE, &ncid)) { line("reopen", -1, "%s", ""); return; }
    {
        char *r[3] = {NULL, NULL, NULL};
        rc = nc_get_var_string(ncid, vs, r);
        line("get_var_string(s)", rc, "%s|%s|%s", r[0] ? txt(r[0]) : "(null)", r[1] ? txt(r[1]) : "(null)",
             r[2] ? txt(r[2]) : "(null)");
        if (rc == 0) L("free_string", nc_free_string(3, r));
        char *one = NULL;
        rc = nc_get_var1_string(ncid, vs0, NULL, &one);
        line("get_var1_string(s0)", rc, "%s", one ? txt(one) : "(null)");
        if (rc == 0) nc_free_string(1, &one);
        int ib[3];
        L("get_var_int(string var)", nc_get_var_int(ncid, vs, ib));
        char cb[16];
        L("get_var_text(string var)", nc_get_var_text(ncid, vs, cb));
        nc_type t = SI;
        size_t len = SZ;
        rc = nc_inq_att(ncid, NC_GLOBAL, "sa", &t, &len);
        line("inq_att(sa)", rc, "t=%d len=%zu", t, len);
        t = SI; len = SZ;
        rc = nc_inq_att(ncid, NC_GLOBAL, "sz", &t, &len);
        line("inq_att(sz)", rc, "t=%d len=%zu", t, len);
        char *sa[3] = {NULL, NULL, NULL};
        rc = nc_get_att_string(ncid, NC_GLOBAL, "sa", sa);
        line("get_att_string(sa)", rc, "%s|%s|%s", sa[0] ? txt(sa[0]) : "(null)",
             sa[1] ? txt(sa[1]) : "(null)", sa[2] ? txt(sa[2]) : "(null)");
        if (rc == 0) nc_free_string(3, sa);
        rc = nc_get_att_text(ncid, NC_GLOBAL, "sa", cb);
        line("get_att_text(string att)", rc, "%s", "");
        rc = nc_get_att_int(ncid, NC_GLOBAL, "sa", ib);
        line("get_att_int(string att)", rc, "%s", "");
        char *fv = NULL;
        int nf = SI;
        rc = nc_inq_var_fill(ncid, vs, &nf, &fv);
        line("inq_var_fill(s)", rc, "nofill=%d fill=%s", nf, fv ? txt(fv) : "(null)");
        if (rc == 0 && fv) nc_free_string(1, &fv);
        L("free_string(0)", nc_free_string(0, NULL));
    }
    nc_close(ncid);
}

/* ---- the classic model and the enhanced model's relaxations ---------------------- */

static void
sec_models(void)
{
    int ncid, rc, d0 = SI, d1 = SI, v = SI;
    if (nc_create(fpath("mod"), cur_cmode | NC_CLOBBER, &ncid)) { line("setup", -1, "%s", ""); return; }
    rc = nc_def_dim(ncid, "u1", NC_UNLIMITED, &d0);
    line("def_dim(u1)", rc, "d=%d", d0);
    rc = nc_def_dim(ncid, "u2", NC_UNLIMITED, &d1);
    line("def_dim(u2)", rc, "d=%d", d1);
    nc_type ts[] = {NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64, NC_STRING, NC_BYTE, NC_CHAR};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        char tag[64], nm[16];
        v = SI;
        snprintf(nm, sizeof nm, "t%d", ts[i]);
        rc = nc_def_var(ncid, nm, ts[i], 0, NULL, &v);
        snprintf(tag, sizeof tag, "def_var(type %d)", ts[i]);
        line(tag, rc, "v=%d", v);
        unsigned char buf[16] = {0};
        snprintf(nm, sizeof nm, "a%d", ts[i]);
        snprintf(tag, sizeof tag, "put_att(type %d)", ts[i]);
        if (ts[i] == NC_STRING) {
            const char *s = "x";
            L(tag, nc_put_att_string(ncid, NC_GLOBAL, nm, 1, &s));
        } else
            L(tag, nc_put_att(ncid, NC_GLOBAL, nm, ts[i], 1, buf));
    }
    {
        int dd[2] = {0, 0};
        if (d1 != SI) dd[1] = d1;
        v = SI;
        rc = nc_def_var(ncid, "two_unlim", NC_INT, 2, dd, &v);
        line("def_var(two unlim)", rc, "v=%d", v);
        int x;
        nc_def_dim(ncid, "x", 3, &x);
        int ud[2] = {x, d0};
        v = SI;
        rc = nc_def_var(ncid, "unlim_second", NC_INT, 2, ud, &v);
        line("def_var(unlim second)", rc, "v=%d", v);
    }
    L("put_att_text(global,_NCProperties)", nc_put_att_text(ncid, NC_GLOBAL, "_NCProperties", 1, "x"));
    L("put_att_text(global,_IsNetcdf4)", nc_put_att_text(ncid, NC_GLOBAL, "_IsNetcdf4", 1, "x"));
    L("put_att_text(global,_SuperblockVersion)", nc_put_att_text(ncid, NC_GLOBAL, "_SuperblockVersion", 1, "x"));
    L("put_att_text(global,_Format)", nc_put_att_text(ncid, NC_GLOBAL, "_Format", 1, "x"));
    L("put_att_text(global,_Foo)", nc_put_att_text(ncid, NC_GLOBAL, "_Foo", 1, "x"));
    L("put_att_text(global,_Netcdf4Dimid)", nc_put_att_text(ncid, NC_GLOBAL, "_Netcdf4Dimid", 1, "x"));
    L("put_att_text(global,_nc3_strict)", nc_put_att_text(ncid, NC_GLOBAL, "_nc3_strict", 1, "x"));
    L("put_att_text(global,_Unsigned)", nc_put_att_text(ncid, NC_GLOBAL, "_Unsigned", 4, "true"));
    L("enddef", nc_enddef(ncid));
    /* data mode: who needs redef */
    L("def_dim(data mode)", nc_def_dim(ncid, "dm", 2, NULL));
    L("def_var(data mode)", nc_def_var(ncid, "dmv", NC_INT, 0, NULL, NULL));
    L("put_att_text(new,data mode)", nc_put_att_text(ncid, NC_GLOBAL, "newatt", 1, "x"));
    L("put_att_text(grow,data mode)", nc_put_att_text(ncid, NC_GLOBAL, "newatt", 10, "xxxxxxxxxx"));
    L("del_att(data mode)", nc_del_att(ncid, NC_GLOBAL, "newatt"));
    L("rename_dim(longer,data mode)", nc_rename_dim(ncid, d0, "u1_longer_name"));
    /* nc_rename_var in data mode after a dimension rename: the reference
     * fails with NC_EHDFERR: left out. */
    L("rename_att(longer,data mode)", nc_rename_att(ncid, NC_GLOBAL, "a7", "a7_longer"));
    L("set_fill(data mode)", nc_set_fill(ncid, NC_NOFILL, NULL));
    L("redef", nc_redef(ncid));
    L("redef(again)", nc_redef(ncid));
    L("enddef(2)", nc_enddef(ncid));
    L("enddef(again)", nc_enddef(ncid));
    {
        int fmt = SI, mode = SI;
        rc = nc_inq_format(ncid, &fmt);
        line("inq_format", rc, "fmt=%d", fmt);
        rc = nc_inq_format_extended(ncid, &fmt, &mode);
        line("inq_format_extended", rc, "fmt=%d mode=%#x", fmt, mode);
    }
    L("close", nc_close(ncid));
    if (nc_open(fpath("mod"), NC_WRITE, &ncid)) { line("reopen", -1, "%s", ""); return; }
    {
        int fmt = SI, nd = SI, nv = SI, na = SI, u = SI, n = SI, ids[4] = {SI, SI, SI, SI};
        rc = nc_inq_format(ncid, &fmt);
        line("reopen inq_format", rc, "fmt=%d", fmt);
        rc = nc_inq(ncid, &nd, &nv, &na, &u);
        line("reopen inq", rc, "nd=%d nv=%d na=%d u=%d", nd, nv, na, u);
        rc = nc_inq_unlimdims(ncid, &n, ids);
        line("reopen inq_unlimdims", rc, "n=%d ids=%d,%d", n, ids[0], ids[1]);
        for (int i = 0; i < na && i < 40; i++) {
            NAMEBUF(name);
            nc_type t = SI;
            size_t len = SZ;
            nc_inq_attname(ncid, NC_GLOBAL, i, name);
            rc = nc_inq_att(ncid, NC_GLOBAL, name, &t, &len);
            line("reopen att", rc, "%d %s t=%d len=%zu", i, txt(name), t, len);
        }
        for (int i = 0; i < nv && i < 40; i++) {
            NAMEBUF(name);
            nc_type t = SI;
            int vnd = SI;
            rc = nc_inq_var(ncid, i, name, &t, &vnd, NULL, NULL);
            line("reopen var", rc, "%d %s t=%d nd=%d", i, txt(name), t, vnd);
        }
        NAMEBUF(hid);
        nc_type t = SI;
        size_t len = SZ;
        rc = nc_inq_att(ncid, NC_GLOBAL, "_NCProperties", &t, &len);
        line("reopen inq_att(_NCProperties)", rc, "t=%d", t);
        rc = nc_inq_att(ncid, NC_GLOBAL, "_IsNetcdf4", &t, &len);
        line("reopen inq_att(_IsNetcdf4)", rc, "t=%d len=%zu", t, len);
        int i4 = SI;
        rc = nc_get_att_int(ncid, NC_GLOBAL, "_IsNetcdf4", &i4);
        line("reopen get_att(_IsNetcdf4)", rc, "v=%d", i4);
        rc = nc_inq_att(ncid, NC_GLOBAL, "_SuperblockVersion", &t, &len);
        line("reopen inq_att(_SuperblockVersion)", rc, "t=%d len=%zu", t, len);
        rc = nc_inq_att(ncid, NC_GLOBAL, "_Format", &t, &len);
        line("reopen inq_att(_Format)", rc, "t=%d len=%zu", t, len);
        rc = nc_inq_attname(ncid, NC_GLOBAL, 99, hid);
        line("reopen inq_attname(99)", rc, "%s", "");
        L("reopen del_att(_NCProperties)", nc_del_att(ncid, NC_GLOBAL, "_NCProperties"));
        L("reopen put_att(_NCProperties)", nc_put_att_text(ncid, NC_GLOBAL, "_NCProperties", 1, "y"));
        L("reopen rename_att(_NCProperties)", nc_rename_att(ncid, NC_GLOBAL, "_NCProperties", "p"));
    }
    nc_close(ncid);
}

/* ---- renames ------------------------------------------------------------------------ */

static void
sec_renames(void)
{
    int ncid, rc, dx, dt, vx = SI, vt = SI, va = SI;
    if (nc_create(fpath("ren"), cur_cmode | NC_CLOBBER, &ncid)) { line("setup", -1, "%s", ""); return; }
    nc_def_dim(ncid, "x", 3, &dx);
    nc_def_dim(ncid, "t", NC_UNLIMITED, &dt);
    nc_def_var(ncid, "x", NC_INT, 1, &dx, &vx);       /* coordinate variable */
    nc_def_var(ncid, "t", NC_DOUBLE, 1, &dt, &vt);
    {
        int dd[2] = {dt, dx};
        nc_def_var(ncid, "a", NC_FLOAT, 2, dd, &va);
    }
    nc_put_att_text(ncid, va, "units", 1, "m");
    nc_put_att_text(ncid, va, "long_name", 1, "a");
    L("enddef", nc_enddef(ncid));
    {
        int xs[3] = {10, 20, 30};
        L("put_var(x)", nc_put_var_int(ncid, vx, xs));
    }
    L("rename_dim(x->t dup)", nc_rename_dim(ncid, dx, "t"));
    L("rename_var(x->t dup)", nc_rename_var(ncid, vx, "t"));
    L("rename_var(x->a dup)", nc_rename_var(ncid, vx, "a"));
    L("rename_att(units->long_name dup)", nc_rename_att(ncid, va, "units", "long_name"));
    L("rename_dim(x->x same)", nc_rename_dim(ncid, dx, "x"));
    L("rename_var(x->x same)", nc_rename_var(ncid, vx, "x"));
    L("rename_dim(x->lon)", nc_rename_dim(ncid, dx, "lon"));
    L("rename_var(x->lon)", nc_rename_var(ncid, vx, "lon"));
    L("rename_var(t->time)", nc_rename_var(ncid, vt, "time"));
    L("rename_dim(t->time)", nc_rename_dim(ncid, dt, "time"));
    L("rename_att(units->Units)", nc_rename_att(ncid, va, "units", "Units"));
    L("rename_var(a->bad/name)", nc_rename_var(ncid, va, "bad/name"));
    L("rename_dim(-1)", nc_rename_dim(ncid, -1, "q"));
    L("rename_att(global nope)", nc_rename_att(ncid, NC_GLOBAL, "nope", "q"));
    {
        NAMEBUF(name);
        int d = SI, v = SI;
        rc = nc_inq_dimname(ncid, dx, name);
        line("inq_dimname(dx)", rc, "%s", txt(name));
        rc = nc_inq_dimid(ncid, "lon", &d);
        line("inq_dimid(lon)", rc, "d=%d", d);
        rc = nc_inq_varid(ncid, "lon", &v);
        line("inq_varid(lon)", rc, "v=%d", v);
        d = SI;
        rc = nc_inq_dimid(ncid, "x", &d);
        line("inq_dimid(x old)", rc, "d=%d", d);
    }
    L("close", nc_close(ncid));
    if (nc_open(fpath("ren"), NC_NOWRITE, &ncid)) { line("reopen", -1, "%s", ""); return; }
    {
        int nd = SI, nv = SI;
        nc_inq(ncid, &nd, &nv, NULL, NULL);
        for (int i = 0; i < nd; i++) {
            NAMEBUF(name);
            size_t len = SZ;
            rc = nc_inq_dim(ncid, i, name, &len);
            line("reopen dim", rc, "%d %s len=%zu", i, txt(name), len);
        }
        for (int i = 0; i < nv; i++) {
            NAMEBUF(name);
            int vnd = SI, dims[2] = {SI, SI}, na = SI;
            rc = nc_inq_var(ncid, i, name, NULL, &vnd, dims, &na);
            line("reopen var", rc, "%d %s nd=%d dims=%d,%d na=%d", i, txt(name), vnd, dims[0], dims[1], na);
            for (int a = 0; a < na; a++) {
                NAMEBUF(an);
                nc_inq_attname(ncid, i, a, an);
                line("reopen att", 0, "%d.%d %s", i, a, txt(an));
            }
        }
        /* The values of the renamed coordinate variable: the reference
         * loses them (reads fill values): checked in tst_rename4. */
    }
    nc_close(ncid);
}

/* ---- attributes in enhanced files: order, delete, types ---------------------------- */

static void
sec_atts(void)
{
    int ncid, rc, v;
    if (nc_create(fpath("att"), cur_cmode | NC_CLOBBER, &ncid)) { line("setup", -1, "%s", ""); return; }
    nc_def_var(ncid, "v", NC_INT, 0, NULL, &v);
    const char *names[] = {"zeta", "alpha", "mid", "beta"};
    for (int i = 0; i < 4; i++) {
        nc_put_att_int(ncid, v, names[i], NC_INT, 1, &i);
        nc_put_att_int(ncid, NC_GLOBAL, names[i], NC_INT, 1, &i);
    }
    L("del_att(alpha)", nc_del_att(ncid, v, "alpha"));
    L("put_att(zeta again,new type)", nc_put_att_double(ncid, v, "zeta", NC_DOUBLE, 1, (double[]){2.5}));
    L("put_att(long name 256)", nc_put_att_text(ncid, v,
        "a123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
        "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
        "01234567890123456789012345678901234567890123456789012345", 1, "x"));
    L("put_att_uchar(NC_UBYTE range)", nc_put_att_uchar(ncid, v, "ub", NC_BYTE, 1, (unsigned char[]){200}));
    L("put_att_int(NC_UBYTE range)", nc_put_att_int(ncid, v, "ub2", NC_UBYTE, 1, (int[]){300}));
    L("put_att_longlong(uint64)", nc_put_att_longlong(ncid, v, "u64", NC_UINT64, 1, (long long[]){-1}));
    L("close", nc_close(ncid));
    if (nc_open(fpath("att"), NC_WRITE, &ncid)) { line("reopen", -1, "%s", ""); return; }
    for (int vv = -1; vv <= 0; vv++) {
        int na = SI;
        nc_inq_varnatts(ncid, vv, &na);
        for (int i = 0; i < na; i++) {
            NAMEBUF(name);
            nc_type t = SI;
            size_t len = SZ;
            int id = SI;
            rc = nc_inq_attname(ncid, vv, i, name);
            nc_inq_att(ncid, vv, name, &t, &len);
            nc_inq_attid(ncid, vv, name, &id);
            line("reopen att", rc, "%d.%d %s t=%d len=%zu id=%d", vv, i, txt(name), t, len, id);
        }
    }
    L("reopen del_att(data mode)", nc_del_att(ncid, NC_GLOBAL, "alpha"));
    L("reopen put_att(new, data mode)", nc_put_att_int(ncid, NC_GLOBAL, "new", NC_INT, 1, &v));
    {
        int na = SI, id = SI;
        nc_inq_varnatts(ncid, NC_GLOBAL, &na);
        rc = nc_inq_attid(ncid, NC_GLOBAL, "new", &id);
        line("reopen attid(new)", rc, "na=%d id=%d", na, id);
        id = SI;
        rc = nc_inq_attid(ncid, NC_GLOBAL, "beta", &id);
        line("reopen attid(beta)", rc, "id=%d", id);
    }
    L("close(2)", nc_close(ncid));
}

/* ---- memory files ---------------------------------------------------------------- */

static void
sec_memory(void)
{
    int ncid, rc;
    rc = nc_create(fpath("dl"), cur_cmode | NC_CLOBBER | NC_DISKLESS, &ncid);
    line("create(diskless)", rc, "%s", "");
    if (rc == 0) {
        nc_def_dim(ncid, "x", 2, NULL);
        L("close(diskless)", nc_close(ncid));
        ncid = SI;
        rc = nc_open(fpath("dl"), NC_NOWRITE, &ncid);
        line("open(diskless file not persisted)", rc, "%s", "");
        if (rc == 0) nc_close(ncid);
    }
    rc = nc_create(fpath("dlp"), cur_cmode | NC_CLOBBER | NC_DISKLESS | NC_PERSIST, &ncid);
    line("create(diskless persist)", rc, "%s", "");
    if (rc == 0) {
        nc_def_dim(ncid, "x", 2, NULL);
        L("close(diskless persist)", nc_close(ncid));
        rc = nc_open(fpath("dlp"), NC_NOWRITE | NC_DISKLESS, &ncid);
        line("open(diskless)", rc, "%s", "");
        if (rc == 0) {
            int nd = SI;
            nc_inq_ndims(ncid, &nd);
            line("inq_ndims(diskless)", 0, "nd=%d", nd);
            nc_close(ncid);
        }
    }
    {
        NC_memio mio = {0, NULL, 0};
        rc = nc_create_mem("mem4", cur_cmode, 0, &ncid);
        line("create_mem", rc, "%s", "");
        if (rc == 0) {
            nc_def_dim(ncid, "x", 2, NULL);
            nc_def_var(ncid, "v", NC_INT, 1, (int[]){0}, NULL);
            rc = nc_close_memio(ncid, &mio);
            line("close_memio", rc, "size>0=%d", mio.size > 0);
            if (rc == 0 && mio.memory) {
                int m2;
                rc = nc_open_mem("mem4b", NC_NOWRITE, mio.size, mio.memory, &m2);
                line("open_mem", rc, "%s", "");
                if (rc == 0) {
                    int fmt = SI, nv = SI;
                    nc_inq_format(m2, &fmt);
                    nc_inq_nvars(m2, &nv);
                    line("open_mem inq", 0, "fmt=%d nv=%d", fmt, nv);
                    L("open_mem close", nc_close(m2));
                }
                free(mio.memory);
            }
        }
    }
    /* NC_INMEMORY through the plain calls */
    ncid = SI;
    rc = nc_create(fpath("inmem"), cur_cmode | NC_CLOBBER | NC_INMEMORY, &ncid);
    line("create(NC_INMEMORY)", rc, "%s", "");
    if (rc == 0) {
        nc_def_dim(ncid, "x", 2, NULL);
        L("close(NC_INMEMORY)", nc_close(ncid));
        rc = nc_open(fpath("inmem"), NC_NOWRITE, &ncid);
        line("open(NC_INMEMORY file)", rc, "%s", "");
        if (rc == 0) nc_close(ncid);
    }
    if (nc_create(fpath("inm2"), cur_cmode | NC_CLOBBER, &ncid) == 0) {
        nc_def_dim(ncid, "x", 2, NULL);
        nc_close(ncid);
        /* nc_open(path, NC_INMEMORY): the reference crashes (it takes
         * the path for an NC_memio): left out. */
        rc = nc_open(fpath("inm2"), NC_WRITE | NC_DISKLESS | NC_INMEMORY, &ncid);
        line("open(NC_DISKLESS|NC_INMEMORY)", rc, "%s", "");
        if (rc == 0) nc_close(ncid);
    }
    {
        NC_memio mio = {0, NULL, 0};
        rc = nc_create_mem("cm", cur_cmode | NC_DISKLESS, 0, &ncid);
        line("create_mem(NC_DISKLESS)", rc, "%s", "");
        if (rc == 0) {
            rc = nc_close_memio(ncid, &mio);
            line("close_memio(NC_DISKLESS)", rc, "size>0=%d", mio.size > 0);
            free(mio.memory);
        }
        rc = nc_close_memio(12345678, &mio);
        line("close_memio(bad ncid)", rc, "%s", "");
        if (nc_create(fpath("cm2"), cur_cmode | NC_CLOBBER, &ncid) == 0) {
            NC_memio m2 = {SZ, NULL, 0};
            rc = nc_close_memio(ncid, &m2);
            line("close_memio(disk file)", rc, "size=%zu null=%d", m2.size, m2.memory == NULL);
            if (rc != 0) nc_close(ncid);
            else free(m2.memory);
        }
    }
    {
        unsigned char junk[512];
        memset(junk, 0, sizeof junk);
        memcpy(junk, "\211HDF\r\n\032\n", 8);
        int m2 = SI;
        rc = nc_open_mem("junk", NC_NOWRITE, sizeof junk, junk, &m2);
        line("open_mem(hdf5 magic, junk)", rc, "%s", "");
        if (rc == 0) nc_close(m2);
    }
}

/* ---- odds and ends: group ids in file-level calls, vlen elements, filters ---- */

static void
sec_misc(void)
{
    int ncid, rc, g = SI, d, v = SI;
    if (nc_create(fpath("misc"), cur_cmode | NC_CLOBBER, &ncid)) { line("setup", -1, "%s", ""); return; }
    nc_def_dim(ncid, "n", 8, &d);
    nc_def_var(ncid, "v", NC_INT, 1, &d, &v);
    if (!classic_model()) nc_def_grp(ncid, "g", &g);
    {
        unsigned p1[1] = {3};
        L("def_var_filter(deflate 3)", nc_def_var_filter(ncid, v, H5Z_FILTER_DEFLATE, 1, p1));
        L("def_var_filter(shuffle)", nc_def_var_filter(ncid, v, H5Z_FILTER_SHUFFLE, 0, NULL));
        L("def_var_fletcher32", nc_def_var_fletcher32(ncid, v, 1));
        size_t n = SZ;
        unsigned ids[4] = {0xabcd, 0xabcd, 0xabcd, 0xabcd};
        rc = nc_inq_var_filter_ids(ncid, v, &n, ids);
        line("inq_var_filter_ids(order)", rc, "n=%zu ids=%u,%u,%u", n, ids[0], ids[1], ids[2]);
        unsigned p[4] = {0xabcd, 0xabcd, 0xabcd, 0xabcd};
        n = SZ;
        rc = nc_inq_var_filter_info(ncid, v, H5Z_FILTER_DEFLATE, &n, p);
        line("inq_var_filter_info(deflate)", rc, "n=%zu p0=%u", n, p[0]);
        n = SZ;
        rc = nc_inq_var_filter_info(ncid, v, H5Z_FILTER_SHUFFLE, &n, p);
        line("inq_var_filter_info(shuffle)", rc, "n=%zu", n);
        n = SZ;
        rc = nc_inq_var_filter_info(ncid, v, 307, &n, p);
        line("inq_var_filter_info(bzip2 absent)", rc, "n=%zu", n);
        unsigned id = 0xabcd;
        n = SZ;
        rc = nc_inq_var_filter(ncid, v, &id, &n, p);
        line("inq_var_filter(first)", rc, "id=%u n=%zu", id, n);
        L("def_var_szip(after deflate)", nc_def_var_szip(ncid, v, NC_SZIP_NN, 8));
        L("inq_filter_avail(deflate)", nc_inq_filter_avail(ncid, H5Z_FILTER_DEFLATE));
        L("inq_filter_avail(szip)", nc_inq_filter_avail(ncid, H5Z_FILTER_SZIP));
        L("inq_filter_avail(54321)", nc_inq_filter_avail(ncid, 54321));
    }
    if (!classic_model()) {
        nc_type vl = SI;
        rc = nc_def_vlen(ncid, "vl", NC_SHORT, &vl);
        line("def_vlen(short)", rc, "t=%d", vl);
        nc_vlen_t e = {SZ, NULL};
        short in[3] = {1, 2, 3}, out[3] = {SI, SI, SI};
        rc = nc_put_vlen_element(ncid, vl, &e, 3, in);
        line("put_vlen_element", rc, "len=%zu", e.len);
        size_t len = SZ;
        rc = nc_get_vlen_element(ncid, vl, &e, &len, out);
        line("get_vlen_element", rc, "len=%zu v=%d,%d", len, out[0], out[2]);
        nc_vlen_t e2 = {SZ, NULL};
        rc = nc_put_vlen_element(ncid, NC_INT, &e2, 3, in);
        line("put_vlen_element(not vlen)", rc, "%s", "");
        int vv = SI;
        rc = nc_def_var(ncid, "vv", vl, 0, NULL, &vv);
        line("def_var(vlen scalar)", rc, "v=%d", vv);
        rc = nc_put_var(ncid, vv, &e);
        line("put_var(vlen element)", rc, "%s", "");
        nc_vlen_t back = {SZ, NULL};
        rc = nc_get_var(ncid, vv, &back);
        line("get_var(vlen)", rc, "len=%zu", back.len);
        if (rc == 0) nc_free_vlen(&back);
        /* e.p is the caller's array (nc_put_vlen_element stores the
         * pointer, it does not copy): not freed */
        char *sv = NULL;
        rc = nc_get_att_string(ncid, NC_GLOBAL, "nope", &sv);
        line("get_att_string(missing)", rc, "%s", "");
        const char *ss[2] = {"a", "bc"};
        L("put_att_string(vlen var)", nc_put_att_string(ncid, vv, "s", 2, ss));
        char tb[8] = "~~~~~~~";
        rc = nc_get_att_text(ncid, vv, "s", tb);
        line("get_att_text(string att)", rc, "%s", "");
        int ib[2] = {SI, SI};
        rc = nc_get_att_int(ncid, vv, "s", ib);
        line("get_att_int(string att)", rc, "%d", ib[0]);
    }
    {
        size_t sz = SZ, ne = SZ;
        float pr = -7.0f;
        L("set_var_chunk_cache(v)", nc_set_var_chunk_cache(ncid, v, 4 << 20, 1009, 0.5f));
        rc = nc_get_var_chunk_cache(ncid, v, &sz, &ne, &pr);
        line("get_var_chunk_cache(v)", rc, "size=%zu nelems=%zu pre=%g", sz, ne, pr);
        L("set_var_chunk_cache(v, pre -1)", nc_set_var_chunk_cache(ncid, v, 4 << 20, 1009, -1.0f));
    }
    {
        int fmt = SI, mode = SI;
        size_t pl = SZ;
        rc = nc_inq_format(g, &fmt);
        line("inq_format(group)", rc, "fmt=%d", fmt);
        rc = nc_inq_format_extended(g, &fmt, &mode);
        line("inq_format_extended(group)", rc, "fmt=%d mode=%#x", fmt, mode);
        rc = nc_inq_path(g, &pl, NULL);
        line("inq_path(group)", rc, "len=%zu", pl);
        int old = SI;
        rc = nc_set_fill(g, NC_NOFILL, &old);
        line("set_fill(group)", rc, "old=%d", old);
        rc = nc_set_fill(ncid, NC_FILL, &old);
        line("set_fill(root after group)", rc, "old=%d", old);
        rc = nc_redef(g);
        line("redef(group)", rc, "%s", "");
        rc = nc_enddef(g);
        line("enddef(group)", rc, "%s", "");
        rc = nc_sync(g);
        line("sync(group)", rc, "%s", "");
    }
    nc_enddef(ncid);   /* the group's enddef may have ended define mode */
    {
        int data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8];
        size_t st = 1, ct = 3;
        ptrdiff_t sd = 2;
        L("put_var(v)", nc_put_var_int(ncid, v, data));
        rc = nc_get_vars_int(ncid, v, &st, &ct, &sd, back);
        line("get_vars(v, stride 2)", rc, "%d,%d,%d", back[0], back[1], back[2]);
        ptrdiff_t im = -1;
        rc = nc_get_varm_int(ncid, v, &st, &ct, &sd, &im, back + 4);
        line("get_varm(v, imap -1)", rc, "%s", "");
        ct = 0;
        st = 8;
        rc = nc_get_vara_int(ncid, v, &st, &ct, back);
        line("get_vara(v, empty at end)", rc, "%s", "");
        st = 9;
        rc = nc_get_vara_int(ncid, v, &st, &ct, back);
        line("get_vara(v, empty past end)", rc, "%s", "");
    }
    L("close", nc_close(ncid));
}

/* ---- names: NULL and invalid names of new objects, in every mode ---------------------
 * Run on netCDF-4, the classic model, a classic file and a Zarr store: the
 * enhanced model checks a new name after the read-only and define-mode
 * checks (NULL: NC_EINVAL, bad: NC_EBADNAME); classic files check it first,
 * and group and type calls on them are NC_ENOTNC4 whatever the name. */
static int names_zarr;   /* sec_names on a Zarr store */

static int
names_open(int mode, int create, int *ncidp)
{
    char path[512], cwd[400];
    if (names_zarr) {
        if (!getcwd(cwd, sizeof cwd))
            return NC_EINVAL;
        snprintf(path, sizeof path, "file://%s/ac4_zarr_names.file#mode=nczarr,file", cwd);
    } else {
        snprintf(path, sizeof path, "%s", fpath("names"));
    }
    if (create)
        return nc_create(path, mode | NC_CLOBBER, ncidp);
    return nc_open(path, mode, ncidp);
}

static void
names_define(int ncid, const char *when)
{
    char tag[96];
    int g = SI, t = SI, rc;
    /* Classic files: only the group and type calls (the reference crashes
     * on NULL dimension and variable names there, docs/error-precedence.md,
     * and tst_apicodes covers the rest); the read-only reference defines
     * user types (a reference bug), so none is made there. */
    int nc3 = cur_cmode == 0, ro = when[0] == 'r';
#define LN(what, call) do { snprintf(tag, sizeof tag, "%s %s", when, what); L(tag, call); } while (0)
#define LN4(what, call) do { if (!nc3) LN(what, call); } while (0)
    LN4("def_dim(NULL)", nc_def_dim(ncid, NULL, 2, NULL));
    LN4("def_dim(bad)", nc_def_dim(ncid, "a/b", 2, NULL));
    LN4("def_dim(\"\")", nc_def_dim(ncid, "", 2, NULL));
    LN4("def_dim(NULL,2nd unlim)", nc_def_dim(ncid, NULL, NC_UNLIMITED, NULL));
    LN4("def_dim(bad,in use)", nc_def_dim(ncid, "d\x01", 2, NULL));
    LN4("def_var(NULL)", nc_def_var(ncid, NULL, NC_INT, 0, NULL, NULL));
    LN4("def_var(bad)", nc_def_var(ncid, "a/b", NC_INT, 0, NULL, NULL));
    LN4("def_var(NULL,NAT)", nc_def_var(ncid, NULL, NC_NAT, 0, NULL, NULL));
    LN4("def_var(bad,NAT)", nc_def_var(ncid, "a/b", NC_NAT, 0, NULL, NULL));
    LN4("def_var(NULL,ndims 1000)", nc_def_var(ncid, NULL, NC_INT, 1000, NULL, NULL));
    LN("def_grp(NULL)", nc_def_grp(ncid, NULL, NULL));
    LN("def_grp(bad)", nc_def_grp(ncid, "a/b", NULL));
    LN("def_grp(\"\")", nc_def_grp(ncid, "", NULL));
    LN("rename_grp(root,NULL)", nc_rename_grp(ncid, NULL));
    LN("rename_grp(root,x)", nc_rename_grp(ncid, "x"));
    LN("rename_grp(root,bad)", nc_rename_grp(ncid, "a/b"));
    snprintf(tag, sizeof tag, "%s def_grp(g)", when);
    rc = nc_def_grp(ncid, "g", &g);
    line(tag, rc, "%s", "");
    if (rc == NC_NOERR) {
        LN("rename_grp(g,NULL)", nc_rename_grp(g, NULL));
        LN("rename_grp(g,bad)", nc_rename_grp(g, "a/b"));
        LN("rename_grp(g,v)", nc_rename_grp(g, "v"));
    }
    LN("def_enum(NULL)", nc_def_enum(ncid, NC_INT, NULL, NULL));
    LN("def_enum(bad)", nc_def_enum(ncid, NC_INT, "a/b", NULL));
    LN("def_compound(NULL)", nc_def_compound(ncid, 8, NULL, NULL));
    LN("def_compound(bad)", nc_def_compound(ncid, 8, "a/b", NULL));
    LN("def_compound(NULL,size 0)", nc_def_compound(ncid, 0, NULL, NULL));
    LN("def_opaque(NULL)", nc_def_opaque(ncid, 8, NULL, NULL));
    LN("def_opaque(bad)", nc_def_opaque(ncid, 8, "a/b", NULL));
    LN("def_vlen(NULL)", nc_def_vlen(ncid, NULL, NC_INT, NULL));
    LN("def_vlen(bad)", nc_def_vlen(ncid, "a/b", NC_INT, NULL));
    snprintf(tag, sizeof tag, "%s def_enum(e)", when);
    rc = ro ? NC_EPERM : nc_def_enum(ncid, NC_INT, when[1] == 'e' ? "e" : "e2", &t);
    if (!ro)
        line(tag, rc, "%s", "");
    if (rc == NC_NOERR) {
        int one = 1;
        LN("insert_enum(NULL)", nc_insert_enum(ncid, t, NULL, &one));
        LN("insert_enum(bad)", nc_insert_enum(ncid, t, "a/b", &one));
        LN("insert_enum(m)", nc_insert_enum(ncid, t, "m", &one));
    }
    snprintf(tag, sizeof tag, "%s def_compound(c)", when);
    rc = ro ? NC_EPERM : nc_def_compound(ncid, 8, when[1] == 'e' ? "c" : "c2", &t);
    if (!ro)
        line(tag, rc, "%s", "");
    if (rc == NC_NOERR) {
        int dims[1] = {2};
        LN("insert_compound(NULL)", nc_insert_compound(ncid, t, NULL, 0, NC_INT));
        LN("insert_compound(bad)", nc_insert_compound(ncid, t, "a/b", 0, NC_INT));
        LN("insert_array_compound(NULL)", nc_insert_array_compound(ncid, t, NULL, 0, NC_INT, 1, dims));
        LN("insert_compound(f)", nc_insert_compound(ncid, t, "f", 0, NC_INT));
    }
    LN4("rename_dim(0,NULL)", nc_rename_dim(ncid, 0, NULL));
    LN4("rename_dim(0,bad)", nc_rename_dim(ncid, 0, "a/b"));
    LN4("rename_dim(99,bad)", nc_rename_dim(ncid, 99, "a/b"));
    LN4("rename_dim(99,NULL)", nc_rename_dim(ncid, 99, NULL));
    LN4("rename_var(0,NULL)", nc_rename_var(ncid, 0, NULL));
    LN4("rename_var(0,bad)", nc_rename_var(ncid, 0, "a/b"));
    LN4("rename_var(99,bad)", nc_rename_var(ncid, 99, "a/b"));
    LN4("rename_var(99,NULL)", nc_rename_var(ncid, 99, NULL));
#undef LN4
#undef LN
}

static void
sec_names(void)
{
    int ncid = SI, rc;
    rc = names_open(cur_cmode, 1, &ncid);
    line("names create", rc, "%s", "");
    if (rc)
        return;
    nc_def_dim(ncid, "u", NC_UNLIMITED, NULL);
    nc_def_dim(ncid, "d\x01", 2, NULL);
    nc_def_dim(ncid, "d", 2, NULL);
    nc_def_var(ncid, "v", NC_INT, 0, NULL, NULL);
    names_define(ncid, "define");
    L("names enddef", nc_enddef(ncid));
    names_define(ncid, "data");
    L("names close", nc_close(ncid));
    if (names_zarr)
        return; /* the reference crashes opening the store read-only */
    rc = names_open(NC_NOWRITE, 0, &ncid);
    line("names open(readonly)", rc, "%s", "");
    if (rc)
        return;
    names_define(ncid, "readonly");
    L("names close(readonly)", nc_close(ncid));
}

/* ---- driver ------------------------------------------------------------------------ */

static void
run(const char *name, void (*fn)(void))
{
    pid_t pid;
    int status = 0;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        struct rlimit rl = {64u << 20, 64u << 20};
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &rl);
        fn();
        fflush(stdout);
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        printf("%s %s: fork failed\n", cur_fmt, name);
        return;
    }
    if (WIFSIGNALED(status))
        printf("%s %s: CRASHED (signal %d)\n", cur_fmt, name, WTERMSIG(status));
    else if (WEXITSTATUS(status))
        printf("%s %s: exit %d\n", cur_fmt, name, WEXITSTATUS(status));
    fflush(stdout);
}

int
main(void)
{
    static const struct { int cmode; const char *name; } formats[] = {
        {NC_NETCDF4, "nc4"}, {NC_NETCDF4 | NC_CLASSIC_MODEL, "nc4c"},
    };
    for (int f = 0; f < 2; f++) {
        cur_cmode = formats[f].cmode;
        cur_fmt = formats[f].name;
        run("groups", sec_groups);
        run("types", sec_types);
        run("storage", sec_storage);
        run("strings", sec_strings);
        run("models", sec_models);
        run("renames", sec_renames);
        run("atts", sec_atts);
        run("memory", sec_memory);
        run("misc", sec_misc);
        run("names", sec_names);
    }
    /* The names section also on a classic file and a Zarr store. */
    cur_cmode = 0;
    cur_fmt = "nc3";
    run("names", sec_names);
    cur_cmode = NC_NETCDF4;
    cur_fmt = "zarr";
    names_zarr = 1;
    run("names", sec_names);
    return 0;
}
