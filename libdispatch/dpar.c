/* dpar.c: the parallel I/O entry points of netcdf_par.h.
 *
 * This build has no MPI: the calls exist (clients link against them) and
 * answer NC_ENOPAR, as upstream's non-parallel builds do.  The MPI handle
 * types are opaque here, so they are taken as pointer-sized integers,
 * which matches the calling convention of both MPICH (int) and Open MPI
 * (pointer) handles.
 */
#include "config.h"
#include <stdint.h>
#include "ncapi.h"

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
    WITH_NC(ncid);
    /* As upstream without parallel I/O: any open file gets NC_ENOPAR. */
    (void)nc; (void)varid; (void)par_access;
    return NC_ENOPAR;
}
