/* tst_access.c: every access family (var, var1, vara, vars, varm) for every
 * external type and memory type (plus the untyped nc_put_vara & co.), on
 * fixed-size and record variables, in CDF-1, CDF-2 and CDF-5. Each variable
 * is mirrored by a model array; after every write the whole variable is read
 * back and compared with the model, so unwritten elements must hold the fill
 * value (default or _FillValue) and numrecs must grow as records are touched.
 * Reads go through every family too, including strided and mapped reads
 * with transposing and negative imaps. */
#include "nctst.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NY 3
#define NX 5
#define MAXREC 8
#define NEL (MAXREC * NY * NX)

typedef struct {
    nc_type x;
    int m;           /* memory type, M_NMEM for the untyped calls */
    int rec;         /* record variable? */
    int varid;
    long double fill;
    long double model[NEL];
    unsigned char unknown[NEL]; /* never written, not filled: any value */
    int seed;
} avar;

static int ncid_g;
static size_t numrecs_model;
static const char *fmtname;
static int cdf5_g;

/* Expected memory value of external value s; 0 if it does not fit (the
 * default fills of signed types do not fit unsigned memory types). In
 * CDF-1/2, NC_BYTE read as unsigned char is a raw copy. */
static int
load(nc_type x, nc_type mt, long double s, long double *out)
{
    if (!cdf5_g && x == NC_BYTE && mt == NC_UBYTE) { *out = (unsigned char)(signed char)s; return 1; }
    return nct_convert(s, mt, out);
}

static nc_type
memtype(const avar *v)
{
    return v->m == M_NMEM ? v->x : nct_mem_nctype(v->m);
}

static const char *
mname(const avar *v)
{
    return v->m == M_NMEM ? "untyped" : nct_mem_name[v->m];
}

static long double
value_for(avar *v, size_t e)
{
    long double base = (long double)((e * 7 + (size_t)v->seed * 13) % 90);
    v->seed++;
    return v->x == NC_CHAR ? 33 + base : 1 + base;
}

/* linear index in the model of element (r, y, x) */
static size_t
lin(const avar *v, size_t r, size_t y, size_t x)
{
    return v->rec ? (r * NY + y) * NX + x : y * NX + x;
}

static size_t
nrec_of(const avar *v)
{
    return v->rec ? numrecs_model : 1;
}

/* Compare the whole variable with the model using an untyped read. */
static void
verify(avar *v, const char *after)
{
    size_t nrec = nrec_of(v), n = nrec * NY * NX;
    size_t start[3] = {0, 0, 0}, count[3] = {nrec, NY, NX};
    unsigned char *buf = calloc(n ? n : 1, nct_type_size(v->x));
    size_t len = 0;
    int unlim = -1;

    OK(nc_inq_unlimdim(ncid_g, &unlim));
    OK(nc_inq_dimlen(ncid_g, unlim, &len));
    CHECK(len == numrecs_model, "%s: numrecs after %s: got %zu expected %zu", fmtname, after, len, numrecs_model);
    int stat = v->rec ? nc_get_vara(ncid_g, v->varid, start, count, buf)
                      : nc_get_vara(ncid_g, v->varid, start + 1, count + 1, buf);
    CHECK(stat == NC_NOERR, "%s: verify read after %s: %d", fmtname, after, stat);
    for (size_t i = 0; i < n; i++) {
        long double got = nct_ld_get(v->x, buf, i);
        if (!v->unknown[i] && !nct_same(got, v->model[i])) {
            CHECK(0, "%s: ext %d mem %s %s: after %s element %zu is %.17Lg, expected %.17Lg",
                  fmtname, v->x, mname(v), v->rec ? "record" : "fixed", after, i, got, v->model[i]);
            break;
        }
    }
    nct_pass++;
    free(buf);
}

/* Grow the model's record count: new records of every variable read as
 * fill; through PnetCDF (built with nctst_par.h) they hold anything until
 * written, since PnetCDF does not fill records when the record dimension
 * grows (and its writes of 1-byte record variables leave other bytes of
 * the last record undefined, with upstream's build too). */
#ifndef NCT_PNETCDF
#define NCT_PNETCDF 0
#endif
static int nofill_records_g;
static void
grow(avar *vars, int nv, size_t nrec)
{
    if (nrec <= numrecs_model) return;
    for (int k = 0; k < nv; k++)
        if (vars[k].rec)
            for (size_t i = numrecs_model * NY * NX; i < nrec * NY * NX; i++)
            {
                vars[k].model[i] = vars[k].fill;
                vars[k].unknown[i] = (unsigned char)nofill_records_g;
            }
    numrecs_model = nrec;
}

/* Write a (strided, optionally mapped) block through family fam. The
 * rank-agnostic arrays always hold 3 entries; fixed variables use the last 2. */
static void
write_block(avar *vars, int nv, avar *v, int fam, const size_t *st, const size_t *ct,
            const ptrdiff_t *sd, int transpose)
{
    nc_type mt = memtype(v);
    size_t n = ct[0] * ct[1] * ct[2];
    /* exact size, so the sanitizer build catches overruns by the library */
    unsigned char *buf = calloc(n ? n : 1, nct_type_size(mt));
    ptrdiff_t imap[3];
    int off = v->rec ? 0 : 1;
    char what[64];

    /* imap in elements: transposed means the memory order is x fastest-last,
     * i.e. the C order of the reversed shape */
    if (transpose) {
        imap[2] = (ptrdiff_t)(ct[0] * ct[1]);
        imap[1] = (ptrdiff_t)ct[0];
        imap[0] = 1;
        if (!v->rec) { imap[2] = (ptrdiff_t)ct[1]; imap[1] = 1; }
    } else {
        imap[2] = 1;
        imap[1] = (ptrdiff_t)ct[2];
        imap[0] = (ptrdiff_t)(ct[1] * ct[2]);
    }
    if (v->rec) grow(vars, nv, st[0] + (ct[0] ? (ct[0] - 1) * (size_t)sd[0] + 1 : 0));
    for (size_t r = 0; r < ct[0]; r++)
        for (size_t y = 0; y < ct[1]; y++)
            for (size_t x = 0; x < ct[2]; x++) {
                size_t e = lin(v, st[0] + r * sd[0], st[1] + y * sd[1], st[2] + x * sd[2]);
                long double val = value_for(v, e);
                size_t mi = (size_t)(r * imap[0] + y * imap[1] + x * imap[2]);
                nct_ld_put(mt, buf, mi, val);
                v->model[e] = val;
                v->unknown[e] = 0;
            }
    int stat = nct_put(fam, v->m, ncid_g, v->varid, st + off, ct + off, sd + off, imap + off, buf);
    snprintf(what, sizeof what, "put_%s%s", nct_fam_name[fam], transpose ? "(transposed)" : "");
    CHECK(stat == NC_NOERR, "%s: nc_%s_%s ext %d: %d (%s)", fmtname, what, mname(v), v->x, stat, nc_strerror(stat));
    free(buf);
    verify(v, what);
}

/* Read a block through family fam with a given imap sign and compare. */
static void
read_block(avar *v, int fam, const size_t *st, const size_t *ct, const ptrdiff_t *sd, int mapmode)
{
    nc_type mt = memtype(v);
    size_t n = ct[0] * ct[1] * ct[2];
    unsigned char *buf = calloc(n ? n : 1, nct_type_size(mt));
    ptrdiff_t imap[3];
    int off = v->rec ? 0 : 1;
    unsigned char *base = buf;
    size_t esz = nct_type_size(mt);

    imap[2] = 1;
    imap[1] = (ptrdiff_t)ct[2];
    imap[0] = (ptrdiff_t)(ct[1] * ct[2]);
    if (mapmode == 1) {            /* transposed */
        imap[0] = 1;
        imap[1] = (ptrdiff_t)ct[0];
        imap[2] = (ptrdiff_t)(ct[0] * ct[1]);
        if (!v->rec) { imap[1] = 1; imap[2] = (ptrdiff_t)ct[1]; }
    } else if (mapmode == 2) {     /* negative: last element first */
        imap[0] = -imap[0]; imap[1] = -imap[1]; imap[2] = -imap[2];
        base = buf + (n - 1) * esz;
    }
    int want = NC_NOERR, anyunknown = 0;
    long double dummy;
    for (size_t r = 0; r < ct[0]; r++)
        for (size_t y = 0; y < ct[1]; y++)
            for (size_t x = 0; x < ct[2]; x++) {
                size_t e = lin(v, st[0] + r * sd[0], st[1] + y * sd[1], st[2] + x * sd[2]);
                if (v->unknown[e])
                    anyunknown = 1;  /* may or may not convert */
                else if (!load(v->x, mt, v->model[e], &dummy))
                    want = NC_ERANGE;
            }
    int stat = nct_get(fam, v->m, ncid_g, v->varid, st + off, ct + off, sd + off, imap + off, base);
    if (anyunknown && stat == NC_ERANGE)
        want = NC_ERANGE;
    CHECK(stat == want, "%s: nc_get_%s_%s ext %d map %d: %d (%s)", fmtname, nct_fam_name[fam], mname(v),
          v->x, mapmode, stat, nc_strerror(stat));
    for (size_t r = 0; r < ct[0]; r++)
        for (size_t y = 0; y < ct[1]; y++)
            for (size_t x = 0; x < ct[2]; x++) {
                size_t e = lin(v, st[0] + r * sd[0], st[1] + y * sd[1], st[2] + x * sd[2]);
                ptrdiff_t mi = (ptrdiff_t)r * imap[0] + (ptrdiff_t)y * imap[1] + (ptrdiff_t)x * imap[2];
                if (!v->rec) mi = (ptrdiff_t)y * imap[1] + (ptrdiff_t)x * imap[2];
                long double want;
                long double got = nct_ld_get(mt, base + mi * (ptrdiff_t)esz, 0);
                if (v->unknown[e] || !load(v->x, mt, v->model[e], &want))
                    continue;    /* out of range: value checked in tst_types */
                if (!nct_same(got, want)) {
                    CHECK(0, "%s: nc_get_%s_%s ext %d %s map %d: (%zu,%zu,%zu) got %.17Lg expected %.17Lg",
                          fmtname, nct_fam_name[fam], mname(v), v->x, v->rec ? "record" : "fixed", mapmode,
                          st[0] + r * sd[0], st[1] + y * sd[1], st[2] + x * sd[2], got, want);
                    free(buf);
                    return;
                }
            }
    nct_pass++;
    free(buf);
}

static void
exercise(avar *vars, int nv, avar *v)
{
    static const ptrdiff_t one[3] = {1, 1, 1};
    /* record variables start at record 0..3, so early ones grow numrecs */
    size_t r0 = v->rec ? (size_t)(v->varid % 4) : 0;

    /* var1: three single elements, the last in a new record */
    {
        size_t p[3][3] = {{r0, 0, 0}, {r0, NY - 1, NX - 1}, {r0 + 1, 1, 2}};
        size_t c1[3] = {1, 1, 1};
        for (int i = 0; i < 3; i++) {
            if (!v->rec) { p[i][0] = 0; if (i == 2) p[i][1] = 1; }
            write_block(vars, nv, v, F_VAR1, p[i], c1, one, 0);
        }
    }
    /* vara: an interior block */
    {
        size_t st[3] = {v->rec ? r0 + 1 : 0, 1, 1}, ct[3] = {1, 2, 3};
        write_block(vars, nv, v, F_VARA, st, ct, one, 0);
    }
    /* vars: every other column, records two apart (grows numrecs) */
    {
        size_t st[3] = {v->rec ? r0 + 2 : 0, 0, 1}, ct[3] = {v->rec ? 2 : 1, 2, 2};
        ptrdiff_t sd[3] = {2, 2, 2};
        write_block(vars, nv, v, F_VARS, st, ct, sd, 0);
    }
    /* varm: transposed memory layout */
    {
        size_t st[3] = {v->rec ? r0 + 3 : 0, 0, 0}, ct[3] = {1, NY, 4};
        write_block(vars, nv, v, F_VARM, st, ct, one, 1);
    }
    /* varm with a stride too */
    {
        size_t st[3] = {v->rec ? r0 : 0, 0, 0}, ct[3] = {v->rec ? 2 : 1, 2, 3};
        ptrdiff_t sd[3] = {2, 2, 2};
        write_block(vars, nv, v, F_VARM, st, ct, sd, 1);
    }

    /* reads through every family */
    size_t nrec = nrec_of(v);
    {
        size_t p[3] = {nrec - 1, NY - 1, 0}, c1[3] = {1, 1, 1};
        read_block(v, F_VAR1, p, c1, one, 0);
    }
    {
        size_t st[3] = {0, 0, 0}, ct[3] = {nrec, NY, NX};
        read_block(v, F_VAR, st, ct, one, 0);
        read_block(v, F_VARA, st, ct, one, 0);
        read_block(v, F_VARM, st, ct, one, 1);
        read_block(v, F_VARM, st, ct, one, 2);
    }
    {
        size_t st[3] = {0, 1, 1}, ct[3] = {(nrec + 1) / 2, 1, 2};
        ptrdiff_t sd[3] = {2, 1, 3};
        read_block(v, F_VARS, st, ct, sd, 0);
        read_block(v, F_VARM, st, ct, sd, 1);
        read_block(v, F_VARM, st, ct, sd, 2);
    }
    {
        size_t st[3] = {0, 0, 0}, ct[3] = {0, 0, 0};   /* empty request */
        read_block(v, F_VARA, st, ct, one, 0);
    }
}

/* nc_put_var on every variable: fixed vars take the whole shape, record vars
 * the current number of records. */
static void
whole_var(avar *vars, int nv, avar *v)
{
    size_t st[3] = {0, 0, 0}, ct[3] = {nrec_of(v), NY, NX};
    write_block(vars, nv, v, F_VAR, st, ct, (const ptrdiff_t[3]){1, 1, 1}, 0);
}

static void
test_format(const nct_format *f, int fillvalues)
{
    char path[64];
    int dims[3];
    int ntypes = nct_format_ntypes(f->cmode);
    static avar vars[2 * 11 * (M_NMEM + 1)];
    int nv = 0;

    fmtname = f->name;
    cdf5_g = (f->cmode & NC_64BIT_DATA) != 0;
    numrecs_model = 0;
    nofill_records_g = NCT_PNETCDF && !(f->cmode & NC_NETCDF4);
    snprintf(path, sizeof path, "tst_access_%s_%d.nc", f->name, fillvalues);
    MUST(nc_create(path, f->cmode, &ncid_g));
    MUST(nc_def_dim(ncid_g, "rec", NC_UNLIMITED, &dims[0]));
    MUST(nc_def_dim(ncid_g, "y", NY, &dims[1]));
    MUST(nc_def_dim(ncid_g, "x", NX, &dims[2]));
    for (int t = 0; t < ntypes; t++) {
        nc_type x = nct_ext_types[t];
        for (int m = 0; m <= M_NMEM; m++) {
            if ((x == NC_CHAR) != (m == M_TEXT) && m != M_NMEM) continue;
            for (int rec = 0; rec < 2; rec++) {
                avar *v = &vars[nv++];
                char name[64];
                memset(v, 0, sizeof *v);
                v->x = x; v->m = m; v->rec = rec; v->seed = nv;
                snprintf(name, sizeof name, "%s_%d_%s", rec ? "r" : "f", x, m == M_NMEM ? "raw" : nct_mem_name[m]);
                MUST(nc_def_var(ncid_g, name, x, rec ? 3 : 2, rec ? dims : dims + 1, &v->varid));
                v->fill = nct_default_fill(x);
                if (fillvalues) {
                    unsigned char fb[8];
                    v->fill = x == NC_CHAR ? '*' : 99;
                    nct_ld_put(x, fb, 0, v->fill);
                    MUST(nc_put_att(ncid_g, v->varid, "_FillValue", x, 1, fb));
                }
                for (size_t i = 0; i < NEL; i++) v->model[i] = v->fill;
            }
        }
    }
    MUST(nc_enddef(ncid_g));
    for (int k = 0; k < nv; k++)
        exercise(vars, nv, &vars[k]);
    for (int k = 0; k < nv; k++)
        whole_var(vars, nv, &vars[k]);
    OK(nc_close(ncid_g));
    /* everything again from the file on disk */
    MUST(nc_open(path, NC_NOWRITE, &ncid_g));
    for (int k = 0; k < nv; k++)
        verify(&vars[k], "reopen");
    OK(nc_close(ncid_g));
}

int
main(void)
{
    for (int i = 0; i < NCT_NFORMATS4; i++)
        for (int fv = 0; fv < 2; fv++)
            test_format(&nct_formats4[i], fv);
    return nct_summary("tst_access");
}
