/* ncpar.h: what nc_create_par / nc_open_par (dpar.c) hand a layer's
 * create/open slot as its `parameters`: the caller's communicator and info
 * object (upstream's NC_MPI_INFO).  Parallel builds only (needs mpi.h).
 * The slot receives the mode with NC_MPIIO set; a layer takes a create or
 * open as parallel when both are given. */
#ifndef NCPAR_H
#define NCPAR_H

#include <mpi.h>

typedef struct NC_MPI_INFO {
    MPI_Comm comm;
    MPI_Info info;
} NC_MPI_INFO;

#endif /* NCPAR_H */
