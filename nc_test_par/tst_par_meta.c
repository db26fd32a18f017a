/* tst_par_meta: the parallel variant says what it is.  netcdf_meta.h of a
 * parallel build has NC_HAS_PARALLEL 1 (and NC_HAS_PARALLEL4 or
 * NC_HAS_PNETCDF), netcdf_par.h compiles against the MPI in use, and every
 * rank of the communicator reaches the library. */
#include <stdio.h>
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <netcdf_meta.h>

int
main(int argc, char **argv)
{
    int rank, size, fails = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#if NC_HAS_PARALLEL != 1
    fails++;
#endif
#if !(NC_HAS_PARALLEL4 || NC_HAS_PNETCDF)
    fails++;
#endif
    /* The parallel entry points exist with the MPI handle types. */
    int (*cp)(const char *, int, MPI_Comm, MPI_Info, int *) = nc_create_par;
    int (*op)(const char *, int, MPI_Comm, MPI_Info, int *) = nc_open_par;
    if (cp == NULL || op == NULL)
        fails++;
    if (nc_inq_libvers() == NULL)
        fails++;
    MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, %d failures\n", size, total);
    MPI_Finalize();
    return total ? 1 : 0;
}
