/* dpar.c: the parallel I/O entry points of netcdf_par.h.
 *
 * A parallel build (NC_ENABLE_PARALLEL: MPI with parallel HDF5 and/or
 * PnetCDF) creates and opens through dfile.c's paths with the caller's
 * communicator and info object; the format row's parallel model serves the
 * file: netCDF-4 on parallel HDF5 (libhdf5/hdf5par.c), classic files
 * through PnetCDF (libpnetcdf/).  As upstream, a classic create with no
 * PnetCDF in the build, or a netCDF-4 one with no parallel HDF5, is
 * NC_ENOTBUILT.  The _fortran forms take Fortran handles (MPI_Fint) and
 * convert them with MPI_Comm_f2c / MPI_Info_f2c.
 *
 * A serial build has no MPI: the calls exist (clients link against them)
 * and answer NC_ENOPAR, as upstream's non-parallel builds do.  The MPI
 * handle types are opaque there, so they are taken as pointer-sized
 * integers, which matches the calling convention of both MPICH (int) and
 * Open MPI (pointer) handles.
 */
#include "config.h"
#include <stdint.h>
#include "ncapi.h"

#if NC_ENABLE_PARALLEL
#include "netcdf_par.h"
#include "ncinfer.h"
#include "ncpar.h"

int
nc_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp)
{
    NC_MPI_INFO mpi;
    if (!NC_ENABLE_PNETCDF && !(cmode & NC_NETCDF4))
        return NC_ENOTBUILT;
    if (!NC_ENABLE_PARALLEL4 && (cmode & NC_NETCDF4))
        return NC_ENOTBUILT;
    mpi.comm = comm;
    mpi.info = info;
    return NC_create_parallel(path, cmode, &mpi, ncidp);
}

int
nc_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp)
{
    NC_MPI_INFO mpi;
    mpi.comm = comm;
    mpi.info = info;
    return NC_open_parallel(path, mode, &mpi, ncidp);
}

int
nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp)
{
    return nc_create_par(path, cmode, MPI_Comm_f2c((MPI_Fint)comm), MPI_Info_f2c((MPI_Fint)info),
                         ncidp);
}

int
nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp)
{
    return nc_open_par(path, mode, MPI_Comm_f2c((MPI_Fint)comm), MPI_Info_f2c((MPI_Fint)info),
                       ncidp);
}

int
nc_var_par_access(int ncid, int varid, int par_access)
{
    WITH_NC_EXCL(ncid);
    /* The format decides: a file not opened for parallel I/O is
     * NC_ENOPAR, a bad mode NC_EINVAL (hdf5par.c, libpnetcdf/). */
    if (nc->dispatch->var_par_access == NULL)
        return NC_ENOPAR;
    return nc->dispatch->var_par_access(ncid, varid, par_access);
}

#else /* no MPI */

int
nc_create_par(const char *path, int cmode, intptr_t comm, intptr_t info, int *ncidp)
{
    (void)path; (void)cmode; (void)comm; (void)info; (void)ncidp;
    return NC_ENOPAR;
}

int
nc_open_par(const char *path, int mode, intptr_t comm, intptr_t info, int *ncidp)
{
    (void)path; (void)mode; (void)comm; (void)info; (void)ncidp;
    return NC_ENOPAR;
}

int
nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp)
{
    (void)path; (void)cmode; (void)comm; (void)info; (void)ncidp;
    return NC_ENOPAR;
}

int
nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp)
{
    (void)path; (void)mode; (void)comm; (void)info; (void)ncidp;
    return NC_ENOPAR;
}

int
nc_var_par_access(int ncid, int varid, int par_access)
{
    WITH_NC_EXCL(ncid);
    /* As upstream without parallel I/O: any open file gets NC_ENOPAR. */
    (void)nc; (void)varid; (void)par_access;
    return NC_ENOPAR;
}

#endif
