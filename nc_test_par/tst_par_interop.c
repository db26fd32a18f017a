/* tst_par_interop: one MPI program built twice, against our parallel
 * library and against upstream's (Debian's libnetcdf_mpi.so.19, 4.9.0 on
 * parallel HDF5, built with -DNCREF and the reference headers), run by
 * run_par_interop.sh.
 *
 *   tst_par_interop write FILE   every rank writes its block of each
 *                                variable: int and double collectively with
 *                                an unlimited dimension growing, a
 *                                deflate+shuffle float chunked per rank,
 *                                a short written independently
 *   tst_par_interop read FILE    every rank reads all of every variable
 *                                and checks each value
 *
 * The script has each build read the other's file and compares the dumps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <netcdf.h>
#ifdef NCREF
/* The reference prefix has no netcdf_par.h: upstream's declarations. */
#define NC_INDEPENDENT 0
#define NC_COLLECTIVE 1
int nc_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp);
int nc_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp);
int nc_var_par_access(int ncid, int varid, int par_access);
#else
#include <netcdf_par.h>
#endif

#define NX 5
#define NT 4

static int rank, nranks, fails;

#define CHECK(e) do { int s_ = (e); if (s_) { fprintf(stderr, "rank %d line %d: %s -> %s\n", \
    rank, __LINE__, #e, nc_strerror(s_)); fails++; } } while (0)

static double
val(int v, int t, int x)
{
    return (double)(v * 1000 + t * 100 + x) / (v == 2 ? 8.0 : 1.0);
}

static void
do_write(const char *path)
{
    int ncid, dims[2], sdim, vi, vd, vz, vs;
    size_t gx = (size_t)NX * (size_t)nranks, chunks[2] = {1, NX};

    CHECK(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    CHECK(nc_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
    CHECK(nc_def_dim(ncid, "x", gx, &dims[1]));
    CHECK(nc_def_dim(ncid, "s", gx, &sdim));
    CHECK(nc_def_var(ncid, "i", NC_INT, 2, dims, &vi));
    CHECK(nc_def_var(ncid, "d", NC_DOUBLE, 2, dims, &vd));
    CHECK(nc_def_var(ncid, "z", NC_FLOAT, 2, dims, &vz));
    CHECK(nc_def_var_chunking(ncid, vz, NC_CHUNKED, chunks));
    CHECK(nc_def_var_deflate(ncid, vz, 1, 1, 1));
    CHECK(nc_def_var(ncid, "s", NC_SHORT, 1, &sdim, &vs));
    CHECK(nc_put_att_text(ncid, vd, "units", 1, "m"));
    CHECK(nc_enddef(ncid));
    CHECK(nc_var_par_access(ncid, vi, NC_COLLECTIVE));
    CHECK(nc_var_par_access(ncid, vd, NC_COLLECTIVE));
    CHECK(nc_var_par_access(ncid, vz, NC_COLLECTIVE));
    for (int t = 0; t < NT; t++) {
        size_t start[2] = {(size_t)t, (size_t)rank * NX}, count[2] = {1, NX};
        int ib[NX];
        double db[NX];
        float zb[NX];
        for (int i = 0; i < NX; i++) {
            ib[i] = (int)val(0, t, rank * NX + i);
            db[i] = val(1, t, rank * NX + i);
            zb[i] = (float)val(2, t, rank * NX + i);
        }
        CHECK(nc_put_vara_int(ncid, vi, start, count, ib));
        CHECK(nc_put_vara_double(ncid, vd, start, count, db));
        CHECK(nc_put_vara_float(ncid, vz, start, count, zb));
    }
    {
        size_t start = (size_t)rank * NX, count = NX;
        short sb[NX];
        for (int i = 0; i < NX; i++)
            sb[i] = (short)val(3, 0, rank * NX + i);
        CHECK(nc_put_vara_short(ncid, vs, &start, &count, sb));
    }
    CHECK(nc_close(ncid));
}

static void
do_read(const char *path)
{
    int ncid, varid;
    size_t gx = (size_t)NX * (size_t)nranks, len;
    static const char *names[] = {"i", "d", "z"};
    double *buf = malloc(NT * gx * sizeof *buf);

    CHECK(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    CHECK(nc_inq_dimlen(ncid, 0, &len));
    if (len != NT)
        fails++;
    for (int v = 0; v < 3; v++) {
        size_t start[2] = {0, 0}, count[2] = {NT, gx};
        CHECK(nc_inq_varid(ncid, names[v], &varid));
        CHECK(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
        CHECK(nc_get_vara_double(ncid, varid, start, count, buf));
        for (int t = 0; t < NT; t++)
            for (size_t x = 0; x < gx; x++)
                if (buf[t * gx + x] != val(v, t, (int)x))
                    fails++;
    }
    {
        size_t start = 0;
        CHECK(nc_inq_varid(ncid, "s", &varid));
        CHECK(nc_get_vara_double(ncid, varid, &start, &gx, buf));
        for (size_t x = 0; x < gx; x++)
            if (buf[x] != val(3, 0, (int)x))
                fails++;
    }
    CHECK(nc_close(ncid));
    free(buf);
}

int
main(int argc, char **argv)
{
    int total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: tst_par_interop write|read FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(argv[1], "write") == 0)
        do_write(argv[2]);
    else
        do_read(argv[2]);
    MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total)
        fprintf(stderr, "%s %s: %d failures\n", argv[1], argv[2], total);
    MPI_Finalize();
    return total ? 1 : 0;
}
