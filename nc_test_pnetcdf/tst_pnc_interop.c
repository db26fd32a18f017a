/* tst_pnc_interop.c: the same MPI program built against this library and
 * against Debian's libnetcdf_pnetcdf (upstream 4.9.0 with PnetCDF); each
 * build writes a file that the other build reads (run_interop.sh).
 *
 * usage: tst_pnc_interop write|read cdf1|cdf2|cdf5 coll|indep FILE
 *
 * write: every rank writes its hyperslab of fixed and record variables of
 * every type the format has, and attributes; read: every rank reads every
 * variable whole and checks every value, and the format inquiries. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#ifdef NCT_REFERENCE_BUILD
/* The reference prefix has no netcdf_par.h: its declarations, as upstream's. */
#define NC_INDEPENDENT 0
#define NC_COLLECTIVE 1
int nc_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp);
int nc_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp);
int nc_var_par_access(int ncid, int varid, int par_access);
#else
#include <netcdf_par.h>
#endif

#define NXR 5
#define NREC 3

static int rank, nranks;
static long fails, passes;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (cond) passes++;                                                \
        else {                                                             \
            if (fails++ < 20) {                                            \
                fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
                fprintf(stderr, __VA_ARGS__);                              \
                fputc('\n', stderr);                                       \
            }                                                              \
        }                                                                  \
    } while (0)
#define OK(call)                                                           \
    do {                                                                   \
        int e_ = (call);                                                   \
        CHECK(e_ == NC_NOERR, "%s: %s", #call, nc_strerror(e_));          \
    } while (0)

static const nc_type types[] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE,
                                NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64};

static double
value(int t, int r, int x)
{
    double v = (double)((t * 11 + r * 7 + x) % 60);
    if (types[t] == NC_CHAR) return 'A' + (int)v % 26;
    if (types[t] == NC_FLOAT || types[t] == NC_DOUBLE) return v + 0.25;
    return v;
}

static int
do_write(const char *path, int cmode, int ntypes, int coll)
{
    int ncid, dt, dx, dims[2], fixv[11], recv[11];
    char name[32];
    double d[NXR];
    char c[NXR];
    size_t st[2], ct[2];
    int x0 = rank * NXR;
    OK(nc_create_par(path, cmode | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    if (fails) return 1;
    OK(nc_def_dim(ncid, "time", NC_UNLIMITED, &dt));
    OK(nc_def_dim(ncid, "x", (size_t)(NXR * nranks), &dx));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "title", 7, "interop"));
    dims[0] = dt;
    dims[1] = dx;
    for (int t = 0; t < ntypes; t++) {
        snprintf(name, sizeof name, "f_%d", t);
        OK(nc_def_var(ncid, name, types[t], 1, &dx, &fixv[t]));
        snprintf(name, sizeof name, "r_%d", t);
        OK(nc_def_var(ncid, name, types[t], 2, dims, &recv[t]));
        if (types[t] != NC_CHAR) {
            double a[2] = {(double)t, 7};
            OK(nc_put_att_double(ncid, recv[t], "a", types[t], 2, a));
        }
    }
    if (coll)
        OK(nc_var_par_access(ncid, NC_GLOBAL, NC_COLLECTIVE));
    OK(nc_enddef(ncid));
    for (int t = 0; t < ntypes; t++) {
        for (int r = -1; r < NREC; r++) {
            int rr = r < 0 ? 0 : r;
            for (int i = 0; i < NXR; i++) {
                d[i] = value(t, r < 0 ? 99 : r, x0 + i);
                c[i] = (char)d[i];
            }
            if (r < 0) {
                st[0] = (size_t)x0; ct[0] = NXR;
            } else {
                st[0] = (size_t)rr; st[1] = (size_t)x0; ct[0] = 1; ct[1] = NXR;
            }
            int v = r < 0 ? fixv[t] : recv[t];
            if (types[t] == NC_CHAR)
                OK(nc_put_vara_text(ncid, v, st, ct, c));
            else
                OK(nc_put_vara_double(ncid, v, st, ct, d));
        }
    }
    OK(nc_close(ncid));
    return 0;
}

static int
do_read(const char *path, int fmt, int ntypes, int coll)
{
    int ncid, format, fmtx, mode, varid;
    int nx = NXR * nranks;
    size_t len;
    double *d = malloc(sizeof(double) * (size_t)nx * NREC);
    char *c = malloc((size_t)nx * NREC);
    char name[32];
    OK(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    if (fails) return 1;
    OK(nc_inq_format(ncid, &format));
    CHECK(format == fmt, "format %d, want %d", format, fmt);
    OK(nc_inq_format_extended(ncid, &fmtx, &mode));
    CHECK(fmtx == NC_FORMATX_PNETCDF, "model %d", fmtx);
    if (coll)
        OK(nc_var_par_access(ncid, NC_GLOBAL, NC_COLLECTIVE));
    OK(nc_inq_dimlen(ncid, 0, &len));
    CHECK(len == NREC, "%zu records", len);
    for (int t = 0; t < ntypes; t++) {
        /* r = -1: the fixed variable; r = 0: the record variable, whole */
        for (int r = -1; r <= 0; r++) {
            int n = r < 0 ? nx : nx * NREC;
            snprintf(name, sizeof name, r < 0 ? "f_%d" : "r_%d", t);
            OK(nc_inq_varid(ncid, name, &varid));
            if (types[t] == NC_CHAR) {
                OK(nc_get_var_text(ncid, varid, c));
                for (int i = 0; i < n; i++) d[i] = (unsigned char)c[i];
            } else {
                OK(nc_get_var_double(ncid, varid, d));
            }
            for (int i = 0; i < n; i++) {
                int rec = r < 0 ? 99 : i / nx, x = i % nx;
                CHECK(d[i] == value(t, rec, x), "%s[%d] = %g, want %g", name, i, d[i],
                      value(t, rec, x));
            }
            if (r >= 0 && types[t] != NC_CHAR) {
                double a[2] = {0, 0};
                nc_type at;
                OK(nc_inq_att(ncid, varid, "a", &at, &len));
                CHECK(at == types[t] && len == 2, "%s:a type %d len %zu", name, at, len);
                OK(nc_get_att_double(ncid, varid, "a", a));
                CHECK(a[0] == t && a[1] == 7, "%s:a = %g %g", name, a[0], a[1]);
            }
        }
    }
    OK(nc_close(ncid));
    free(d);
    free(c);
    return 0;
}

int
main(int argc, char **argv)
{
    long total_f, total_p;
    int cmode, fmt, ntypes, coll;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 5) {
        if (rank == 0)
            fprintf(stderr, "usage: %s write|read cdf1|cdf2|cdf5 coll|indep FILE\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    cmode = strcmp(argv[2], "cdf2") == 0 ? NC_64BIT_OFFSET
          : strcmp(argv[2], "cdf5") == 0 ? NC_64BIT_DATA : 0;
    fmt = strcmp(argv[2], "cdf2") == 0 ? NC_FORMAT_64BIT_OFFSET
        : strcmp(argv[2], "cdf5") == 0 ? NC_FORMAT_CDF5 : NC_FORMAT_CLASSIC;
    ntypes = cmode == NC_64BIT_DATA ? 11 : 6;
    coll = strcmp(argv[3], "coll") == 0;
    if (strcmp(argv[1], "write") == 0)
        do_write(argv[4], cmode, ntypes, coll);
    else
        do_read(argv[4], fmt, ntypes, coll);
    MPI_Allreduce(&fails, &total_f, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&passes, &total_p, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("tst_pnc_interop %s %s %s: %ld passed, %ld failed\n", argv[1], argv[2], argv[3],
               total_p, total_f);
    MPI_Finalize();
    return total_f ? 1 : 0;
}
