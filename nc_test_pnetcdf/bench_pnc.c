/* bench_pnc.c: time of a parallel CDF-5 write through this library's
 * nc_put_vara_float (collective, PnetCDF table) against PnetCDF's own
 * ncmpi_put_vara_float_all writing the same layout.  Not a test: run by
 * hand (docs/parallel.md has the command and results).
 *
 * usage: mpiexec -n 4 bench_pnc nc|pnc FILE [MIB]
 *
 * NVARS float variables of shape [4 * nranks][NY][NX], MIB MiB in all
 * (default 256); rank r writes planes 4r..4r+3 of each, one call per
 * variable.  Prints the slowest rank's time from create to close. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <pnetcdf.h>

#define NVARS 4
#define PLANES 4 /* planes of each variable per rank */
#define NX 1024

#define CK(call)                                                                 \
    do {                                                                         \
        int e_ = (call);                                                         \
        if (e_) {                                                                \
            fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call, e_);   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                        \
        }                                                                        \
    } while (0)

int
main(int argc, char **argv)
{
    int rank, nranks, ncid, dims[3], varids[NVARS];
    size_t mib = 256, ny;
    double t0, t1, tmax;
    float *buf;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: %s nc|pnc FILE [MIB]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (argc > 3)
        mib = (size_t)atol(argv[3]);
    /* rows per plane so that the whole file is mib MiB */
    ny = mib * 1024 * 1024 / (NVARS * (size_t)nranks * PLANES * NX * sizeof(float));
    if (ny == 0)
        ny = 1;
    buf = malloc(PLANES * ny * NX * sizeof(float));
    for (size_t i = 0; i < PLANES * ny * NX; i++)
        buf[i] = (float)(rank * 1000000 + (int)(i % 1000000));
    char name[16];
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (strcmp(argv[1], "nc") == 0) {
        size_t start[3] = {(size_t)rank * PLANES, 0, 0}, count[3] = {PLANES, ny, NX};
        CK(nc_create_par(argv[2], NC_CLOBBER | NC_64BIT_DATA, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &ncid));
        CK(nc_def_dim(ncid, "z", (size_t)nranks * PLANES, &dims[0]));
        CK(nc_def_dim(ncid, "y", ny, &dims[1]));
        CK(nc_def_dim(ncid, "x", NX, &dims[2]));
        for (int v = 0; v < NVARS; v++) {
            snprintf(name, sizeof name, "v%d", v);
            CK(nc_def_var(ncid, name, NC_FLOAT, 3, dims, &varids[v]));
        }
        CK(nc_var_par_access(ncid, NC_GLOBAL, NC_COLLECTIVE));
        CK(nc_enddef(ncid));
        for (int v = 0; v < NVARS; v++)
            CK(nc_put_vara_float(ncid, varids[v], start, count, buf));
        CK(nc_close(ncid));
    } else {
        MPI_Offset start[3] = {(MPI_Offset)rank * PLANES, 0, 0};
        MPI_Offset count[3] = {PLANES, (MPI_Offset)ny, NX};
        CK(ncmpi_create(MPI_COMM_WORLD, argv[2], NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL,
                        &ncid));
        CK(ncmpi_def_dim(ncid, "z", (MPI_Offset)nranks * PLANES, &dims[0]));
        CK(ncmpi_def_dim(ncid, "y", (MPI_Offset)ny, &dims[1]));
        CK(ncmpi_def_dim(ncid, "x", NX, &dims[2]));
        for (int v = 0; v < NVARS; v++) {
            snprintf(name, sizeof name, "v%d", v);
            CK(ncmpi_def_var(ncid, name, NC_FLOAT, 3, dims, &varids[v]));
        }
        /* the alignment nc_enddef asks for, so the layouts are the same */
        CK(ncmpi__enddef(ncid, 0, 1, 0, 1));
        for (int v = 0; v < NVARS; v++)
            CK(ncmpi_put_vara_float_all(ncid, varids[v], start, count, buf));
        CK(ncmpi_close(ncid));
    }
    t1 = MPI_Wtime() - t0;
    MPI_Reduce(&t1, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %zu MiB %d ranks: %.3f s\n", argv[1], mib, nranks, tmax);
    free(buf);
    MPI_Finalize();
    return 0;
}
