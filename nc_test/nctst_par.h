/* nctst_par.h: the parallel mode of the classic conformance programs.
 *
 * Force-included (-include nctst_par.h) when a program of this folder is
 * built a second time for the PnetCDF layer (par_tst_*, label parallel):
 * nc_create and nc_open of classic files become nc_create_par and
 * nc_open_par on MPI_COMM_WORLD, so every call after them goes through the
 * PnetCDF table; main runs between MPI_Init and MPI_Finalize.  Creates and
 * opens that a parallel file cannot serve (NC_DISKLESS, NC_INMEMORY,
 * NC_MMAP, NC_NETCDF4) stay serial.  Only programs whose main takes no
 * arguments are built this way.  The serial programs never see this
 * header. */
#ifndef NCTST_PAR_H
#define NCTST_PAR_H

#include <netcdf.h>  /* its declarations first, before the names are redirected */

int nct_par_create(const char *path, int cmode, int *ncidp);
int nct_par_open(const char *path, int mode, int *ncidp);

#define nc_create(path, cmode, ncidp) nct_par_create((path), (cmode), (ncidp))
#define nc_open(path, mode, ncidp) nct_par_open((path), (mode), (ncidp))
#define main nct_par_main

/* The programs' switch for what PnetCDF does by design (docs/differences.md). */
#define NCT_PNETCDF 1

#endif /* NCTST_PAR_H */
