/* tst_layout.c: fixed sequences of API calls that write classic files, for
 * byte-for-byte comparison with the reference library. The same source is
 * built against our library and against the reference (run_layout.sh runs
 * both in separate directories and cmp's every file). Only in-range values
 * are written, so the result does not depend on NC_ERANGE policies.
 * Usage: tst_layout  (writes layout_*.nc in the current directory) */
#include "nctst.h"

#include <string.h>

static int failures;

#define T(call)                                                             \
    do {                                                                    \
        int e_ = (call);                                                    \
        if (e_) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(e_)); failures++; return; } \
    } while (0)

/* Fixed and record variables of every type the format allows, attributes of
 * every type, a scalar, a char array, _FillValue on some variables. */
static void
seq_alltypes(const nct_format *f)
{
    char path[64];
    int ncid, d[4], v;
    int ntypes = nct_format_ntypes(f->cmode);
    snprintf(path, sizeof path, "layout_alltypes_%s.nc", f->name);
    T(nc_create(path, f->cmode, &ncid));
    T(nc_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
    T(nc_def_dim(ncid, "y", 3, &d[1]));
    T(nc_def_dim(ncid, "x", 5, &d[2]));
    T(nc_def_dim(ncid, "strlen", 7, &d[3]));
    T(nc_put_att_text(ncid, NC_GLOBAL, "title", 11, "layout test"));
    for (int t = 0; t < ntypes; t++) {
        nc_type x = nct_ext_types[t];
        unsigned char buf[8 * 5];
        char name[32];
        for (int i = 0; i < 5; i++) nct_ld_put(x, buf, i, x == NC_CHAR ? 'a' + i : i * 3 - (x == NC_UBYTE || x == NC_USHORT || x == NC_UINT || x == NC_UINT64 ? 0 : 4));
        snprintf(name, sizeof name, "gatt_%d", x);
        T(nc_put_att(ncid, NC_GLOBAL, name, x, 1 + t % 5, buf));
        snprintf(name, sizeof name, "fixed_%d", x);
        T(nc_def_var(ncid, name, x, 2, &d[1], &v));
        T(nc_put_att(ncid, v, "vatt", x, 2, buf));
        if (t % 2) T(nc_put_att(ncid, v, "_FillValue", x, 1, buf + nct_type_size(x)));
        snprintf(name, sizeof name, "rec_%d", x);
        T(nc_def_var(ncid, name, x, 3, d, &v));
        snprintf(name, sizeof name, "scalar_%d", x);
        T(nc_def_var(ncid, name, x, 0, NULL, &v));
    }
    int cd[2] = {d[0], d[3]};
    T(nc_def_var(ncid, "names", NC_CHAR, 2, cd, &v));
    T(nc_enddef(ncid));
    int nvars;
    T(nc_inq_nvars(ncid, &nvars));
    for (int varid = 0; varid < nvars; varid++) {
        nc_type x;
        int nd;
        char name[NC_MAX_NAME + 1];
        T(nc_inq_var(ncid, varid, name, &x, &nd, NULL, NULL));
        unsigned char buf[8 * 64];
        for (int i = 0; i < 64; i++) nct_ld_put(x, buf, (size_t)i, x == NC_CHAR ? 'A' + i % 26 : (i * 7) % 100);
        if (strncmp(name, "fixed_", 6) == 0) {
            /* leave the last row unwritten: fill */
            T(nc_put_vara(ncid, varid, (size_t[]){0, 0}, (size_t[]){2, 5}, buf));
        } else if (strncmp(name, "rec_", 4) == 0) {
            T(nc_put_vara(ncid, varid, (size_t[]){0, 0, 0}, (size_t[]){2, 3, 5}, buf));
        } else if (strncmp(name, "scalar_", 7) == 0) {
            if (x != NC_DOUBLE) T(nc_put_var(ncid, varid, buf + nct_type_size(x)));
        } else {
            T(nc_put_vara_text(ncid, varid, (size_t[]){0, 0}, (size_t[]){3, 7}, "alpha\0\0beta\0\0\0gamma!!"));
        }
    }
    /* a record written past the end: the gap is filled */
    T(nc_put_var1_int(ncid, 1, (size_t[]){4, 2, 2}, (int[]){42}));
    T(nc_close(ncid));
}

/* A single record variable of odd size: records are not padded. */
static void
seq_oddrec(const nct_format *f)
{
    char path[64];
    int ncid, d[2], v;
    snprintf(path, sizeof path, "layout_oddrec_%s.nc", f->name);
    T(nc_create(path, f->cmode, &ncid));
    T(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    T(nc_def_dim(ncid, "n", 3, &d[1]));
    T(nc_def_var(ncid, "b", NC_BYTE, 2, d, &v));
    T(nc_enddef(ncid));
    signed char b[15];
    for (int i = 0; i < 15; i++) b[i] = (signed char)(i - 7);
    T(nc_put_vara_schar(ncid, v, (size_t[]){0, 0}, (size_t[]){5, 3}, b));
    T(nc_close(ncid));

    /* and a single short scalar record variable */
    snprintf(path, sizeof path, "layout_oddrec2_%s.nc", f->name);
    T(nc_create(path, f->cmode, &ncid));
    T(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    T(nc_def_var(ncid, "s", NC_SHORT, 1, d, &v));
    T(nc_def_var(ncid, "fixed", NC_CHAR, 0, NULL, &v));
    T(nc_enddef(ncid));
    T(nc_put_vara_short(ncid, 0, (size_t[]){0}, (size_t[]){3}, (short[]){1, -2, 3}));
    T(nc_put_var_text(ncid, 1, "z"));
    T(nc_close(ncid));
}

/* nc__enddef alignment parameters. */
static void
seq_align(const nct_format *f, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align, int tag)
{
    char path[64];
    int ncid, d[2], v;
    snprintf(path, sizeof path, "layout_align%d_%s.nc", tag, f->name);
    T(nc_create(path, f->cmode, &ncid));
    T(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    T(nc_def_dim(ncid, "x", 7, &d[1]));
    T(nc_def_var(ncid, "f1", NC_SHORT, 1, &d[1], &v));
    T(nc_def_var(ncid, "f2", NC_DOUBLE, 1, &d[1], &v));
    T(nc_def_var(ncid, "r1", NC_BYTE, 2, d, &v));
    T(nc_def_var(ncid, "r2", NC_FLOAT, 2, d, &v));
    T(nc__enddef(ncid, h_minfree, v_align, v_minfree, r_align));
    T(nc_put_var_short(ncid, 0, (short[]){1, 2, 3, 4, 5, 6, 7}));
    T(nc_put_vara_float(ncid, 3, (size_t[]){1, 0}, (size_t[]){1, 7}, (float[]){.5f, 1, 2, 3, 4, 5, 6}));
    T(nc_close(ncid));
    /* reopen, grow the header a little and a lot */
    T(nc_open(path, NC_WRITE, &ncid));
    T(nc_redef(ncid));
    T(nc_put_att_text(ncid, NC_GLOBAL, "h", 20, "twenty characters..."));
    T(nc_enddef(ncid));
    T(nc_redef(ncid));
    char big[3000];
    memset(big, 'q', sizeof big);
    T(nc_put_att_text(ncid, NC_GLOBAL, "big", sizeof big, big));
    T(nc_def_var(ncid, "late", NC_INT, 1, &d[1], &v));
    T(nc__enddef(ncid, h_minfree, v_align, v_minfree, r_align));
    T(nc_put_var1_int(ncid, v, (size_t[]){3}, (int[]){33}));
    T(nc_close(ncid));
}

/* NOFILL and partial records. */
static void
seq_nofill(const nct_format *f)
{
    char path[64];
    int ncid, d[2], v, old;
    snprintf(path, sizeof path, "layout_nofill_%s.nc", f->name);
    T(nc_create(path, f->cmode, &ncid));
    T(nc_set_fill(ncid, NC_NOFILL, &old));
    T(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    T(nc_def_dim(ncid, "x", 4, &d[1]));
    T(nc_def_var(ncid, "fx", NC_INT, 1, &d[1], &v));
    T(nc_def_var(ncid, "r", NC_INT, 2, d, &v));
    T(nc_def_var(ncid, "q", NC_SHORT, 2, d, &v));
    T(nc_enddef(ncid));
    T(nc_put_var_int(ncid, 0, (int[]){1, 2, 3, 4}));
    for (size_t r = 0; r < 3; r++) {
        T(nc_put_vara_int(ncid, 1, (size_t[]){r, 0}, (size_t[]){1, 4}, (int[]){5, 6, 7, 8}));
        T(nc_put_vara_short(ncid, 2, (size_t[]){r, 0}, (size_t[]){1, 4}, (short[]){9, 10, 11, 12}));
    }
    T(nc_close(ncid));

    /* fill mode with partial records: only some elements of the last record */
    snprintf(path, sizeof path, "layout_partial_%s.nc", f->name);
    T(nc_create(path, f->cmode, &ncid));
    T(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    T(nc_def_dim(ncid, "x", 4, &d[1]));
    T(nc_def_var(ncid, "r", NC_DOUBLE, 2, d, &v));
    T(nc_def_var(ncid, "q", NC_UBYTE - (f->cmode & NC_64BIT_DATA ? 0 : 6), 2, d, &v));
    T(nc_enddef(ncid));
    T(nc_put_vara_double(ncid, 0, (size_t[]){2, 1}, (size_t[]){1, 2}, (double[]){1.25, -2.5}));
    T(nc_put_var1_int(ncid, 1, (size_t[]){3, 3}, (int[]){100}));
    T(nc_set_fill(ncid, NC_NOFILL, &old));
    T(nc_put_var1_int(ncid, 1, (size_t[]){5, 0}, (int[]){7}));
    T(nc_close(ncid));
}

/* Renames, deleted attributes, redef adding dims and vars. */
static void
seq_redef(const nct_format *f)
{
    char path[64];
    int ncid, d[3], v;
    snprintf(path, sizeof path, "layout_redef_%s.nc", f->name);
    T(nc_create(path, f->cmode, &ncid));
    T(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    T(nc_def_dim(ncid, "x", 2, &d[1]));
    T(nc_def_var(ncid, "a", NC_FLOAT, 2, d, &v));
    T(nc_put_att_double(ncid, v, "scale", NC_DOUBLE, 1, (double[]){0.5}));
    T(nc_put_att_text(ncid, v, "units", 1, "m"));
    T(nc_enddef(ncid));
    T(nc_put_vara_float(ncid, v, (size_t[]){0, 0}, (size_t[]){2, 2}, (float[]){1, 2, 3, 4}));
    T(nc_redef(ncid));
    T(nc_def_dim(ncid, "zz_new_dimension", 9, &d[2]));
    T(nc_def_var(ncid, "b", NC_SHORT, 1, &d[2], &v));
    T(nc_rename_var(ncid, 0, "a_renamed_longer"));
    T(nc_rename_att(ncid, 0, "units", "unit_string"));
    T(nc_del_att(ncid, 0, "scale"));
    T(nc_put_att_int(ncid, NC_GLOBAL, "version", NC_INT, 3, (int[]){4, 10, 1}));
    T(nc_enddef(ncid));
    T(nc_put_vara_float(ncid, 0, (size_t[]){2, 0}, (size_t[]){1, 2}, (float[]){5, 6}));
    T(nc_rename_dim(ncid, 1, "X"));
    T(nc_close(ncid));
}

int
main(void)
{
    for (int i = 0; i < 3; i++) {
        const nct_format *f = &nct_formats[i];
        seq_alltypes(f);
        seq_oddrec(f);
        seq_align(f, 0, 4, 0, 4, 1);
        seq_align(f, 1000, 512, 100, 1024, 2);
        seq_align(f, 0, 8192, 0, 4096, 3);
        seq_nofill(f);
        seq_redef(f);
    }
    printf("tst_layout: %s\n", failures ? "FAILED" : "files written");
    return failures ? 1 : 0;
}
