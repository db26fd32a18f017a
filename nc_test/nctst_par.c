/* nctst_par.c: what nctst_par.h redirects to (see there).  The target's
 * sources are all built with that header forced in: its names are undone
 * here, so nc_create and nc_open below are the real ones. */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#undef nc_create
#undef nc_open
#undef main

/* the program's own main(void), renamed by nctst_par.h */
int nct_par_main(void);

/* Modes a parallel create or open cannot serve stay serial. */
#define NCT_SERIAL_ONLY (NC_DISKLESS | NC_INMEMORY | NC_MMAP | NC_NETCDF4)

int
nct_par_create(const char *path, int cmode, int *ncidp)
{
    int stat, old, ncid;
    if (cmode & NCT_SERIAL_ONLY)
        return nc_create(path, cmode, ncidp);
    if ((stat = nc_create_par(path, cmode, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid)))
        return stat;
    /* PnetCDF creates files in NC_NOFILL mode (upstream's PnetCDF files
     * too); the programs expect netCDF's default, NC_FILL. */
    if ((stat = nc_set_fill(ncid, NC_FILL, &old))) {
        nc_abort(ncid);
        return stat;
    }
    if (ncidp)
        *ncidp = ncid;
    return NC_NOERR;
}

int
nct_par_open(const char *path, int mode, int *ncidp)
{
    if (mode & NCT_SERIAL_ONLY)
        return nc_open(path, mode, ncidp);
    return nc_open_par(path, mode, MPI_COMM_WORLD, MPI_INFO_NULL, ncidp);
}

int
main(int argc, char **argv)
{
    int stat;
    MPI_Init(&argc, &argv);
    stat = nct_par_main();
    MPI_Finalize();
    return stat;
}
