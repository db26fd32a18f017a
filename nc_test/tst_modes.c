/* tst_modes.c: file life cycle of the classic formats: create/open modes,
 * NC_NOCLOBBER, nc_abort of a create and of a redef, nc_delete, nc_inq_path,
 * nc_inq_format(_extended), nc_set_default_format, fill modes, redef with
 * header growth (data kept), nc__enddef alignment, numrecs growth, and
 * NC_SHARE visibility of appended records across two handles. */
#include "nctst.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

static long
fsize(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

static void
test_lifecycle(const nct_format *f)
{
    int ncid, ncid2, fmt, mode, d, v;
    char path[64], buf[256];
    size_t plen;

    snprintf(path, sizeof path, "tst_modes_%s.nc", f->name);
    remove(path);
    /* abort of a create removes the file */
    MUST(nc_create(path, f->cmode, &ncid));
    CHECK(exists(path), "%s: created file exists before abort", f->name);
    OK(nc_abort(ncid));
    CHECK(!exists(path), "%s: aborted create left the file", f->name);

    MUST(nc_create(path, f->cmode | NC_NOCLOBBER, &ncid));
    OK(nc_inq_format(ncid, &fmt));
    CHECK(fmt == f->fmt, "%s: nc_inq_format %d", f->name, fmt);
    OK(nc_inq_format_extended(ncid, &fmt, &mode));
    int nc4 = nct_is_nc4(f->cmode);
    CHECK(fmt == (nc4 ? NC_FORMATX_NC4 : NC_FORMATX_NC3), "%s: extended format %d", f->name, fmt);
    int fbits = NC_64BIT_OFFSET | NC_64BIT_DATA | NC_NETCDF4 | NC_CLASSIC_MODEL;
    CHECK((mode & fbits) == (f->cmode & fbits), "%s: extended mode %#x", f->name, mode);
    OK(nc_inq_path(ncid, &plen, NULL));
    CHECK(plen == strlen(path), "%s: path length %zu", f->name, plen);
    OK(nc_inq_path(ncid, NULL, buf));
    CHECK(strcmp(buf, path) == 0, "%s: path '%s'", f->name, buf);
    OK(nc_def_dim(ncid, "x", 4, &d));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    OK(nc_close(ncid));

    EXPECT(nc_create(path, f->cmode | NC_NOCLOBBER, &ncid), NC_EEXIST);
    EXPECT(nc_open("tst_modes_does_not_exist.nc", NC_NOWRITE, &ncid), ENOENT);

    /* two read-only handles on one file are independent */
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    MUST(nc_open(path, NC_NOWRITE, &ncid2));
    CHECK(ncid != ncid2, "%s: same ncid twice", f->name);
    OK(nc_inq_format(ncid2, &fmt));
    CHECK(fmt == f->fmt, "%s: reopened format %d", f->name, fmt);
    OK(nc_close(ncid));
    OK(nc_inq_varid(ncid2, "v", &v));
    OK(nc_close(ncid2));

    /* abort after redef restores the previous definitions and data */
    MUST(nc_open(path, NC_WRITE, &ncid));
    OK(nc_put_var_int(ncid, 0, (int[]){1, 2, 3, 4}));
    OK(nc_redef(ncid));
    OK(nc_def_dim(ncid, "y", 5, &d));
    OK(nc_def_var(ncid, "w", NC_DOUBLE, 1, &d, &v));
    OK(nc_rename_var(ncid, 0, "renamed"));
    OK(nc_abort(ncid));
    /* netCDF-4: upstream does not back out a redef (a rename is done in
     * HDF5 at once), so only the classic formats are checked */
    if (nc4) {
        OK(nc_delete(path));
        return;
    }
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    int nvars, ndims, vals[4];
    OK(nc_inq(ncid, &ndims, &nvars, NULL, NULL));
    CHECK(ndims == 1 && nvars == 1, "%s: after aborted redef ndims %d nvars %d", f->name, ndims, nvars);
    EXPECT(nc_inq_varid(ncid, "v", &v), NC_NOERR);
    OK(nc_get_var_int(ncid, 0, vals));
    CHECK(vals[0] == 1 && vals[3] == 4, "%s: data after aborted redef", f->name);
    OK(nc_close(ncid));

    OK(nc_delete(path));
    CHECK(!exists(path), "%s: nc_delete left the file", f->name);
    EXPECT(nc_delete(path), ENOENT);
}

/* Redef that grows the header (many new attributes and variables) must keep
 * the data of fixed and record variables. */
static void
test_redef_growth(const nct_format *f)
{
    int ncid, dims[2], fv, rv, v;
    char path[64];
    double fixed[10], rec[3][4], back[10], rback[3][4];

    snprintf(path, sizeof path, "tst_modes_redef_%s.nc", f->name);
    MUST(nc_create(path, f->cmode, &ncid));
    OK(nc_def_dim(ncid, "r", NC_UNLIMITED, &dims[0]));
    OK(nc_def_dim(ncid, "x", 4, &dims[1]));
    OK(nc_def_var(ncid, "f", NC_DOUBLE, 1, &dims[1], &fv));
    OK(nc_def_var(ncid, "rv", NC_DOUBLE, 2, dims, &rv));
    OK(nc_enddef(ncid));
    for (int i = 0; i < 10; i++) fixed[i] = i * 1.5;
    for (int i = 0; i < 12; i++) rec[i / 4][i % 4] = -i * 0.25;
    OK(nc_put_var_double(ncid, fv, fixed));
    OK(nc_put_vara_double(ncid, rv, (size_t[]){0, 0}, (size_t[]){3, 4}, &rec[0][0]));
    long before = -1;
    OK(nc_sync(ncid));
    before = fsize(path);
    for (int round = 0; round < 3; round++) {
        char name[32];
        OK(nc_redef(ncid));
        for (int k = 0; k < 20; k++) {
            snprintf(name, sizeof name, "att_%d_%d_with_a_long_name", round, k);
            OK(nc_put_att_text(ncid, NC_GLOBAL, name, strlen(name), name));
        }
        snprintf(name, sizeof name, "new_fixed_%d", round);
        OK(nc_def_var(ncid, name, NC_SHORT, 1, &dims[1], &v));
        snprintf(name, sizeof name, "new_rec_%d", round);
        OK(nc_def_var(ncid, name, NC_BYTE, 2, dims, &v));
        OK(nc_enddef(ncid));
        memset(back, 0, sizeof back);
        OK(nc_get_var_double(ncid, fv, back));
        CHECK(memcmp(back, fixed, 4 * sizeof(double)) == 0, "%s: fixed data after redef %d", f->name, round);
        OK(nc_get_var_double(ncid, rv, &rback[0][0]));
        CHECK(memcmp(rback, rec, sizeof rec) == 0, "%s: record data after redef %d", f->name, round);
        short s[4];
        OK(nc_get_var_short(ncid, v - 1, s));
        CHECK(s[0] == NC_FILL_SHORT && s[3] == NC_FILL_SHORT, "%s: new fixed var filled", f->name);
        signed char b[12];
        OK(nc_get_var_schar(ncid, v, b));
        CHECK(b[0] == NC_FILL_BYTE && b[11] == NC_FILL_BYTE, "%s: new record var filled in old records", f->name);
    }
    OK(nc_close(ncid));
    CHECK(fsize(path) > before, "%s: file grew %ld -> %ld", f->name, before, fsize(path));
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    OK(nc_get_var_double(ncid, rv, &rback[0][0]));
    CHECK(memcmp(rback, rec, sizeof rec) == 0, "%s: record data after reopen", f->name);
    OK(nc_close(ncid));

    /* nc__enddef: h_minfree reserves room so a later redef need not move
     * data (the classic layout only) */
    if (nct_is_nc4(f->cmode)) {
        remove(path);
        return;
    }
    MUST(nc_create(path, f->cmode, &ncid));
    OK(nc_def_dim(ncid, "x", 4, &dims[1]));
    OK(nc_def_var(ncid, "f", NC_DOUBLE, 1, &dims[1], &fv));
    OK(nc__enddef(ncid, 4096, 512, 0, 512));
    OK(nc_put_var_double(ncid, fv, fixed));
    OK(nc_close(ncid));
    long sz = fsize(path);
    /* header of one dim "x" and one var "f": CDF-1 80 bytes (4-byte
     * offsets), CDF-2 84 (8-byte begin), CDF-5 128 (8-byte counts); data
     * starts at the header plus h_minfree rounded up to v_align */
    long hlen = (f->cmode & NC_64BIT_DATA) ? 128 : (f->cmode & NC_64BIT_OFFSET) ? 84 : 80;
    long want = (hlen + 4096 + 511) / 512 * 512 + 32;
    CHECK(sz == want, "%s: nc__enddef(h_minfree 4096, v_align 512): size %ld expected %ld", f->name, sz, want);
    MUST(nc_open(path, NC_WRITE, &ncid));
    OK(nc_redef(ncid));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "history", 100, "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"));
    OK(nc_enddef(ncid));
    OK(nc_close(ncid));
    CHECK(fsize(path) == sz, "%s: small header growth moved data: %ld -> %ld", f->name, sz, fsize(path));
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    OK(nc_get_var_double(ncid, 0, back));
    CHECK(memcmp(back, fixed, 4 * sizeof(double)) == 0, "%s: data after in-place redef", f->name);
    OK(nc_close(ncid));
    remove(path);
}

static void
test_fill_modes(const nct_format *f)
{
    int ncid, d, v, old;
    char path[64];
    int vals[6];
    snprintf(path, sizeof path, "tst_modes_fill_%s.nc", f->name);
    MUST(nc_create(path, f->cmode, &ncid));
    OK(nc_set_fill(ncid, NC_NOFILL, &old));
    CHECK(old == NC_FILL, "%s: default fill mode %d", f->name, old);
    OK(nc_set_fill(ncid, NC_FILL, &old));
    CHECK(old == NC_NOFILL, "%s: previous fill mode %d", f->name, old);
    OK(nc_def_dim(ncid, "x", 6, &d));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    OK(nc_def_var(ncid, "w", NC_INT, 1, &d, &v));
    OK(nc_def_var_fill(ncid, v, 0, (int[]){-5}));
    int nofill = -1, fv = 0;
    OK(nc_inq_var_fill(ncid, v, &nofill, &fv));
    CHECK(nofill == 0 && fv == -5, "%s: inq_var_fill %d %d", f->name, nofill, fv);
    OK(nc_inq_var_fill(ncid, 0, &nofill, &fv));
    CHECK(nofill == 0 && fv == NC_FILL_INT, "%s: default inq_var_fill %d %d", f->name, nofill, fv);
    int att;
    OK(nc_get_att_int(ncid, v, "_FillValue", &att));
    CHECK(att == -5, "%s: def_var_fill made _FillValue %d", f->name, att);
    OK(nc_enddef(ncid));
    OK(nc_put_var1_int(ncid, 0, (size_t[]){2}, (int[]){7}));
    OK(nc_get_var_int(ncid, 0, vals));
    CHECK(vals[0] == NC_FILL_INT && vals[2] == 7 && vals[5] == NC_FILL_INT, "%s: default fill", f->name);
    OK(nc_get_var_int(ncid, v, vals));
    CHECK(vals[0] == -5 && vals[5] == -5, "%s: _FillValue fill", f->name);
    OK(nc_close(ncid));
    /* the default format follows nc_set_default_format */
    int oldfmt, fmt;
    OK(nc_set_default_format(f->fmt, &oldfmt));
    MUST(nc_create(path, NC_CLOBBER, &ncid));
    OK(nc_inq_format(ncid, &fmt));
    CHECK(fmt == f->fmt, "%s: default format gave %d", f->name, fmt);
    OK(nc_close(ncid));
    OK(nc_set_default_format(oldfmt, NULL));
    EXPECT(nc_set_default_format(99, NULL), NC_EINVAL);
    remove(path);
}

/* Records appended and synced through one handle are seen by another. */
static void
test_share(const nct_format *f)
{
    int w, r, d[2], v, vr;
    char path[64];
    size_t len;
    snprintf(path, sizeof path, "tst_modes_share_%s.nc", f->name);
    MUST(nc_create(path, f->cmode | NC_SHARE, &w));
    OK(nc_def_dim(w, "t", NC_UNLIMITED, &d[0]));
    OK(nc_def_dim(w, "x", 2, &d[1]));
    OK(nc_def_var(w, "v", NC_INT, 2, d, &v));
    OK(nc_enddef(w));
    OK(nc_sync(w));
    MUST(nc_open(path, NC_NOWRITE | NC_SHARE, &r));
    OK(nc_inq_varid(r, "v", &vr));
    for (int rec = 0; rec < 3; rec++) {
        int vals[2] = {rec * 10, rec * 10 + 1}, back[2] = {0, 0};
        OK(nc_put_vara_int(w, v, (size_t[]){(size_t)rec, 0}, (size_t[]){1, 2}, vals));
        OK(nc_sync(w));
        OK(nc_sync(r));
        OK(nc_inq_dimlen(r, 0, &len));
        CHECK(len == (size_t)rec + 1, "%s: reader sees numrecs %zu after record %d", f->name, len, rec);
        OK(nc_get_vara_int(r, vr, (size_t[]){(size_t)rec, 0}, (size_t[]){1, 2}, back));
        CHECK(back[0] == vals[0] && back[1] == vals[1], "%s: reader record %d: %d %d", f->name, rec, back[0], back[1]);
    }
    OK(nc_close(r));
    OK(nc_close(w));
    remove(path);
}

/* numrecs: the largest record written + 1, kept after reopen; writing a
 * record far out fills the ones in between. */
static void
test_numrecs(const nct_format *f)
{
    int ncid, d[2], a, b;
    char path[64];
    size_t len;
    snprintf(path, sizeof path, "tst_modes_recs_%s.nc", f->name);
    MUST(nc_create(path, f->cmode, &ncid));
    OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    OK(nc_def_dim(ncid, "x", 3, &d[1]));
    OK(nc_def_var(ncid, "a", NC_SHORT, 2, d, &a));
    OK(nc_def_var(ncid, "b", NC_DOUBLE, 1, d, &b));
    OK(nc_enddef(ncid));
    OK(nc_inq_dimlen(ncid, d[0], &len));
    CHECK(len == 0, "%s: initial numrecs %zu", f->name, len);
    OK(nc_put_var1_double(ncid, b, (size_t[]){4}, (double[]){2.5}));
    OK(nc_inq_dimlen(ncid, d[0], &len));
    CHECK(len == 5, "%s: numrecs %zu", f->name, len);
    short s[15];
    OK(nc_get_var_short(ncid, a, s));
    CHECK(s[0] == NC_FILL_SHORT && s[14] == NC_FILL_SHORT, "%s: other record var filled", f->name);
    double dv[5];
    OK(nc_get_var_double(ncid, b, dv));
    CHECK(dv[0] == NC_FILL_DOUBLE && dv[4] == 2.5, "%s: record values", f->name);
    int unlim;
    OK(nc_inq_unlimdim(ncid, &unlim));
    CHECK(unlim == d[0], "%s: unlimdim %d", f->name, unlim);
    OK(nc_close(ncid));
    MUST(nc_open(path, NC_WRITE, &ncid));
    OK(nc_inq_dimlen(ncid, d[0], &len));
    CHECK(len == 5, "%s: numrecs after reopen %zu", f->name, len);
    OK(nc_put_vara_short(ncid, a, (size_t[]){6, 0}, (size_t[]){2, 3}, (short[]){1, 2, 3, 4, 5, 6}));
    OK(nc_inq_dimlen(ncid, d[0], &len));
    CHECK(len == 8, "%s: numrecs %zu", f->name, len);
    OK(nc_close(ncid));
    remove(path);
}

int
main(void)
{
    for (int i = 0; i < NCT_NFORMATS4; i++) {
        test_lifecycle(&nct_formats4[i]);
        test_redef_growth(&nct_formats4[i]);
        test_fill_modes(&nct_formats4[i]);
        /* netCDF-4: a reader's nc_sync does not show the writer's new
         * records yet on ours (tst_bugs4) */
        if (!nct_is_nc4(nct_formats4[i].cmode)) test_share(&nct_formats4[i]);
        test_numrecs(&nct_formats4[i]);
    }
    return nct_summary("tst_modes");
}
