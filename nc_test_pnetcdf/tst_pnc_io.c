/* tst_pnc_io.c: classic files through PnetCDF (nc_create_par/nc_open_par
 * without NC_NETCDF4), run under mpiexec with any number of ranks.
 *
 * For CDF-1, CDF-2 and CDF-5, in collective and in independent access:
 * every rank writes its own hyperslab of fixed and record variables of
 * every type the format has (the record dimension grows to NREC), strided
 * and mapped writes, attributes of every type; after close, rank 0 reopens
 * the file serially (nc_open) and checks every value, then every rank
 * reopens it in parallel and reads its neighbour's hyperslab.  Also the
 * format inquiries, fill values, NC_ERANGE, the access-mode switch and the
 * netCDF-4 calls that a classic file refuses. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <pnetcdf.h>
#include "nctst.h"

#define NXR 6   /* x points per rank */
#define NREC 3  /* records written */
#define SVAL(x) ((x) % 120 - 60)  /* the byte variable "strided" at x */

static int rank, nranks;

static const nc_type types[] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE,
                                NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64};

/* The value every type holds at (variable t, record r, x): small enough
 * for all of them.  Characters are letters. */
static double
value(int t, int r, int x)
{
    return (double)((t * 7 + r * 13 + x) % 50) + (types[t] == NC_FLOAT || types[t] == NC_DOUBLE ? 0.5 : 0);
}

static void
fill_text(char *buf, int t, int r, int x0, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = (char)('a' + (int)value(t, r, x0 + i) % 26);
}

static double
text_value(int t, int r, int x)
{
    return 'a' + (int)value(t, r, x) % 26;
}

static void
define(int ncid, int ntypes, int *dimx, int *dimt, int *fixv, int *recv, int *sv, int *fv)
{
    int dims[2];
    char name[32];
    OK(nc_def_dim(ncid, "time", NC_UNLIMITED, dimt));
    OK(nc_def_dim(ncid, "x", (size_t)(NXR * nranks), dimx));
    dims[0] = *dimt;
    dims[1] = *dimx;
    for (int t = 0; t < ntypes; t++) {
        snprintf(name, sizeof name, "fix_%d", t);
        OK(nc_def_var(ncid, name, types[t], 1, dimx, &fixv[t]));
        snprintf(name, sizeof name, "rec_%d", t);
        OK(nc_def_var(ncid, name, types[t], 2, dims, &recv[t]));
    }
    /* bytes: PnetCDF moves 1-byte values without conversion, the path
     * where its mapped calls misplace values for a map running backwards */
    OK(nc_def_var(ncid, "strided", NC_BYTE, 1, dimx, sv));
    OK(nc_def_var(ncid, "filled", NC_SHORT, 1, dimx, fv));
    /* attributes of every type */
    for (int t = 0; t < ntypes; t++) {
        snprintf(name, sizeof name, "att_%d", t);
        if (types[t] == NC_CHAR) {
            OK(nc_put_att_text(ncid, NC_GLOBAL, name, 5, "hello"));
        } else {
            double v[3] = {1, 2, 100};
            OK(nc_put_att_double(ncid, NC_GLOBAL, name, types[t], 3, v));
        }
    }
    OK(nc_put_att_int(ncid, fixv[0], "rank_count", NC_INT, 1, &nranks));
}

/* Write this rank's part of everything. */
static void
write_data(int ncid, int ntypes, const int *fixv, const int *recv, int sv)
{
    double d[NXR];
    char c[NXR];
    int x0 = rank * NXR;
    size_t start[2], count[2];
    for (int t = 0; t < ntypes; t++) {
        start[0] = (size_t)x0; count[0] = NXR;
        for (int i = 0; i < NXR; i++) d[i] = value(t, 0, x0 + i);
        if (types[t] == NC_CHAR) {
            fill_text(c, t, 0, x0, NXR);
            OK(nc_put_vara_text(ncid, fixv[t], start, count, c));
        } else {
            OK(nc_put_vara_double(ncid, fixv[t], start, count, d));
        }
        for (int r = 0; r < NREC; r++) {
            start[0] = (size_t)r; start[1] = (size_t)x0;
            count[0] = 1; count[1] = NXR;
            for (int i = 0; i < NXR; i++) d[i] = value(t, r, x0 + i);
            if (types[t] == NC_CHAR) {
                fill_text(c, t, r, x0, NXR);
                OK(nc_put_vara_text(ncid, recv[t], start, count, c));
            } else {
                OK(nc_put_vara_double(ncid, recv[t], start, count, d));
            }
        }
    }
    /* strided: even points by a strided write, odd ones by a mapped one
     * whose map runs backwards (the memory holds them last first) */
    {
        signed char ev[NXR / 2], od[NXR / 2];
        size_t st = (size_t)x0, ct = NXR / 2;
        ptrdiff_t stride = 2, imap = -1;
        for (int i = 0; i < NXR / 2; i++) {
            ev[i] = (signed char)SVAL(x0 + 2 * i);
            od[NXR / 2 - 1 - i] = (signed char)SVAL(x0 + 2 * i + 1);
        }
        OK(nc_put_vars_schar(ncid, sv, &st, &ct, &stride, ev));
        st++;
        OK(nc_put_varm_schar(ncid, sv, &st, &ct, &stride, &imap, od + NXR / 2 - 1));
    }
}

/* Rank 0, serially: every value of the file. */
static void
check_serial(const char *path, int ntypes, int fmt)
{
    int ncid, format, nx = NXR * nranks, varid;
    size_t len;
    double *d = malloc(sizeof(double) * (size_t)nx * NREC);
    char *c = malloc((size_t)nx * NREC);
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    OK(nc_inq_format(ncid, &format));
    CHECK(format == fmt, "%s: format %d, want %d", path, format, fmt);
    OK(nc_inq_dimlen(ncid, 0, &len));
    CHECK(len == NREC, "%s: %zu records, want %d", path, len, NREC);
    for (int t = 0; t < ntypes; t++) {
        char name[32];
        snprintf(name, sizeof name, "fix_%d", t);
        OK(nc_inq_varid(ncid, name, &varid));
        if (types[t] == NC_CHAR) {
            OK(nc_get_var_text(ncid, varid, c));
            for (int x = 0; x < nx; x++)
                CHECK(c[x] == (char)text_value(t, 0, x), "%s %s[%d]", path, name, x);
        } else {
            OK(nc_get_var_double(ncid, varid, d));
            for (int x = 0; x < nx; x++)
                CHECK(d[x] == value(t, 0, x), "%s %s[%d] = %g", path, name, x, d[x]);
        }
        snprintf(name, sizeof name, "rec_%d", t);
        OK(nc_inq_varid(ncid, name, &varid));
        if (types[t] == NC_CHAR) {
            OK(nc_get_var_text(ncid, varid, c));
            for (int r = 0; r < NREC; r++)
                for (int x = 0; x < nx; x++)
                    CHECK(c[r * nx + x] == (char)text_value(t, r, x), "%s %s[%d][%d]", path,
                          name, r, x);
        } else {
            OK(nc_get_var_double(ncid, varid, d));
            for (int r = 0; r < NREC; r++)
                for (int x = 0; x < nx; x++)
                    CHECK(d[r * nx + x] == value(t, r, x), "%s %s[%d][%d] = %g", path, name,
                          r, x, d[r * nx + x]);
        }
        snprintf(name, sizeof name, "att_%d", t);
        if (types[t] == NC_CHAR) {
            char a[6] = "";
            OK(nc_get_att_text(ncid, NC_GLOBAL, name, a));
            CHECK(memcmp(a, "hello", 5) == 0, "%s: %s", path, name);
        } else {
            double a[3] = {0};
            nc_type at;
            OK(nc_inq_att(ncid, NC_GLOBAL, name, &at, &len));
            CHECK(at == types[t] && len == 3, "%s: %s type %d len %zu", path, name, at, len);
            OK(nc_get_att_double(ncid, NC_GLOBAL, name, a));
            CHECK(a[0] == 1 && a[1] == 2 && a[2] == 100, "%s: %s values", path, name);
        }
    }
    {
        signed char *bv = (signed char *)d;
        OK(nc_inq_varid(ncid, "strided", &varid));
        OK(nc_get_var_schar(ncid, varid, bv));
        for (int x = 0; x < nx; x++)
            CHECK(bv[x] == SVAL(x), "%s: strided[%d] = %d", path, x, bv[x]);
        short *sv = (short *)d;
        OK(nc_inq_varid(ncid, "filled", &varid));
        OK(nc_get_var_short(ncid, varid, sv));
        for (int x = 0; x < nx; x++)
            CHECK(sv[x] == NC_FILL_SHORT, "%s: filled[%d] = %d", path, x, sv[x]);
    }
    OK(nc_close(ncid));
    free(d);
    free(c);
}

/* Every rank, in parallel: the neighbour's part of the record variables. */
static void
check_parallel(const char *path, int ntypes, int collective)
{
    int ncid, varid, fmtx, mode;
    int nb = (rank + 1) % nranks, x0 = nb * NXR;
    double d[NXR];
    char c[NXR];
    size_t start[2], count[2];
    MUST(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_inq_format_extended(ncid, &fmtx, &mode));
    CHECK(fmtx == NC_FORMATX_PNETCDF, "open_par: model %d", fmtx);
    if (collective)
        OK(nc_var_par_access(ncid, NC_GLOBAL, NC_COLLECTIVE));
    for (int t = 0; t < ntypes; t++) {
        char name[32];
        snprintf(name, sizeof name, "rec_%d", t);
        OK(nc_inq_varid(ncid, name, &varid));
        for (int r = 0; r < NREC; r++) {
            start[0] = (size_t)r; start[1] = (size_t)x0;
            count[0] = 1; count[1] = NXR;
            if (types[t] == NC_CHAR) {
                OK(nc_get_vara_text(ncid, varid, start, count, c));
                for (int i = 0; i < NXR; i++)
                    CHECK(c[i] == (char)text_value(t, r, x0 + i), "par %s[%d][%d]", name, r,
                          x0 + i);
            } else {
                OK(nc_get_vara_double(ncid, varid, start, count, d));
                for (int i = 0; i < NXR; i++)
                    CHECK(d[i] == value(t, r, x0 + i), "par %s[%d][%d] = %g", name, r, x0 + i,
                          d[i]);
            }
        }
    }
    /* a strided read of the neighbour's odd points */
    {
        signed char iv[NXR / 2];
        size_t st = (size_t)x0 + 1, ct = NXR / 2;
        ptrdiff_t stride = 2;
        OK(nc_inq_varid(ncid, "strided", &varid));
        OK(nc_get_vars_schar(ncid, varid, &st, &ct, &stride, iv));
        for (int i = 0; i < NXR / 2; i++)
            CHECK(iv[i] == SVAL(x0 + 2 * i + 1), "par strided %d", iv[i]);
        /* the same points through a map that runs backwards */
        ptrdiff_t imap = -1;
        memset(iv, 0, sizeof iv);
        OK(nc_get_varm_schar(ncid, varid, &st, &ct, &stride, &imap, iv + NXR / 2 - 1));
        for (int i = 0; i < NXR / 2; i++)
            CHECK(iv[NXR / 2 - 1 - i] == SVAL(x0 + 2 * i + 1), "par mapped backwards %d: %d",
                  i, iv[NXR / 2 - 1 - i]);
    }
    /* the neighbour's records of the byte variable, last element first */
    {
        signed char b[NREC * NXR], *last = b + NREC * NXR - 1;
        size_t st[2] = {0, (size_t)x0}, ct[2] = {NREC, NXR};
        ptrdiff_t sd[2] = {1, 1}, imap[2] = {-NXR, -1};
        OK(nc_inq_varid(ncid, "rec_0", &varid));
        OK(nc_get_varm_schar(ncid, varid, st, ct, sd, imap, last));
        for (int r = 0; r < NREC; r++)
            for (int i = 0; i < NXR; i++)
                CHECK(last[-(r * NXR + i)] == value(0, r, x0 + i), "par rec_0 backwards [%d][%d] = %d",
                      r, x0 + i, last[-(r * NXR + i)]);
    }
    OK(nc_close(ncid));
}

static void
run(const nct_format *fmt, int collective)
{
    char path[64];
    int ncid, dimx, dimt, fixv[11], recv[11], sv, fv, ntypes = nct_format_ntypes(fmt->cmode);
    int format, fmtx, mode, old;
    snprintf(path, sizeof path, "tst_pnc_io_%s_%s.nc", fmt->name,
             collective ? "coll" : "indep");
    MUST(nc_create_par(path, fmt->cmode | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_inq_format(ncid, &format));
    CHECK(format == fmt->fmt, "%s: format %d", path, format);
    OK(nc_inq_format_extended(ncid, &fmtx, &mode));
    CHECK(fmtx == NC_FORMATX_PNETCDF, "%s: model %d", path, fmtx);
    CHECK((mode & NC_MPIIO) != 0, "%s: mode %#x has no NC_MPIIO", path, mode);
    define(ncid, ntypes, &dimx, &dimt, fixv, recv, &sv, &fv);
    /* fill: "filled" is never written and reads as the default fill */
    OK(nc_set_fill(ncid, NC_FILL, &old));
    OK(nc_def_var_fill(ncid, fixv[0], 1, NULL));
    if (collective)
        OK(nc_var_par_access(ncid, NC_GLOBAL, NC_COLLECTIVE));
    OK(nc_enddef(ncid));
    {
        int nofill = -1;
        short fillv = 0;
        OK(nc_inq_var_fill(ncid, fv, &nofill, &fillv));
        CHECK(nofill == 0 && fillv == NC_FILL_SHORT, "%s: fill %d %d", path, nofill, fillv);
        OK(nc_inq_var_fill(ncid, fixv[0], &nofill, NULL));
        CHECK(nofill == 1, "%s: nofill %d", path, nofill);
    }
    write_data(ncid, ntypes, fixv, recv, sv);
    /* an out-of-range value: NC_ERANGE; every rank writes its own point */
    {
        size_t st[2] = {0, (size_t)rank * NXR};
        int big = 300;
        if (!collective) {
            /* independent: one rank alone */
            if (rank == 0)
                EXPECT(nc_put_var1_int(ncid, recv[0], st, &big), NC_ERANGE);
        } else {
            EXPECT(nc_put_var1_int(ncid, recv[0], st, &big), NC_ERANGE);
        }
        /* then the right value again */
        signed char ok = (signed char)value(0, 0, rank * NXR);
        if (collective || rank == 0)
            OK(nc_put_var1_schar(ncid, recv[0], st, &ok));
    }
    /* netCDF-4 calls a classic file refuses */
    {
        int g;
        EXPECT(nc_def_grp(ncid, "g", &g), NC_ENOTNC4);
        EXPECT(nc_def_var_deflate(ncid, fixv[0], 0, 1, 1), NC_ENOTNC4);
        EXPECT(nc_var_par_access(ncid, fixv[0], 42), NC_EINVAL);
        int endian;
        EXPECT(nc_inq_var_endian(ncid, fixv[0], &endian), NC_ENOTNC4);
        nc_type t;
        EXPECT(nc_def_opaque(ncid, 4, "o", &t), NC_ENOTNC4);
    }
    OK(nc_close(ncid));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_serial(path, ntypes, fmt->fmt);
    MPI_Barrier(MPI_COMM_WORLD);
    check_parallel(path, ntypes, collective);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        remove(path);
}

/* PnetCDF's own codes get PnetCDF's text from nc_strerror, as upstream's
 * parallel builds give it; the library's own codes keep theirs. */
static void
check_strerror(void)
{
    static const int codes[] = {NC_ESMALL, NC_ENOTINDEP, NC_EINDEP, NC_ESTRICTCDF2, NC_EMULTIDEFINE};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *ours = nc_strerror(codes[i]), *theirs = ncmpi_strerror(codes[i]);
        CHECK(theirs != NULL && strcmp(ours, theirs) == 0, "nc_strerror(%d) is \"%s\", PnetCDF says \"%s\"",
              codes[i], ours, theirs ? theirs : "(null)");
    }
    CHECK(strcmp(nc_strerror(NC_EINVAL), "NetCDF: Invalid argument") == 0, "nc_strerror(NC_EINVAL) changed");
    CHECK(strcmp(nc_strerror(-1000), "Unknown Error") == 0 || strcmp(nc_strerror(-1000), ncmpi_strerror(-1000)) == 0,
          "nc_strerror(-1000) is \"%s\"", nc_strerror(-1000));
}

int
main(int argc, char **argv)
{
    long fails;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    check_strerror();
    for (int f = 0; f < 3; f++)
        for (int coll = 0; coll < 2; coll++)
            run(&nct_formats[f], coll);
    MPI_Allreduce(&nct_fail, &fails, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        nct_fail = fails;
        nct_summary("tst_pnc_io");
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
