/* pncint.h: the PnetCDF layer's contract (NC_FORMATX_PNETCDF).
 *
 * Classic files (CDF-1, CDF-2, CDF-5) opened or created for parallel I/O
 * (nc_create_par / nc_open_par without NC_NETCDF4) are served by PnetCDF:
 * every classic-model slot maps onto one ncmpi_* call, as upstream's table
 * does.  The layer keeps no model of its own: PnetCDF holds the header,
 * checks ids, names, modes and coordinates, converts types (NC_ERANGE, and
 * the fill value in place of an out-of-range value, as PnetCDF does) and
 * its error codes are passed up unchanged (they are NC_* codes; PnetCDF's
 * own, such as NC_EMULTIDEFINE, are below -200).
 *
 * Access mode: a file starts in independent data access, as upstream
 * (and as netCDF-4 files do); nc_var_par_access switches the whole file
 * between independent (ncmpi_begin_indep_data, then ncmpi_put_vara...) and
 * collective (ncmpi_end_indep_data, then ncmpi_put_vara_all...), whatever
 * the variable id, because PnetCDF's mode is per file.  In define mode the
 * choice is remembered and applied at enddef.
 *
 * Slots refused: groups, user-defined types and netCDF-4 storage settings
 * (NC_ENOTNC4, libdispatch's NC_CLASSIC_MODEL_SLOTS); the filter inquiries
 * answer "none".
 *
 * Memory: the per-file state (NCP_file) hangs on nc->dispatchdata from a
 * successful create/open until close/abort.  Threads: none of PnetCDF's
 * calls are thread-safe (Debian's build: PNETCDF_THREAD_SAFE 0), so a file
 * is used by one thread, as MPI programs do.
 */
#ifndef PNCINT_H
#define PNCINT_H

#include "ncdispatch.h"
#include "ncpar.h" /* NC_MPI_INFO: what create/open get as `parameters` */

/* One open file. */
typedef struct NCP_file {
    int pncid;  /* PnetCDF's id of the file */
    int indata; /* 1 in data mode, 0 in define mode */
    int indep;  /* 1: independent data access chosen; 0: collective */
} NCP_file;

extern const NC_Dispatch *NCP_dispatch_table;

#endif /* PNCINT_H */
