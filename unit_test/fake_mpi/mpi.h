/* Minimal stand-in for an MPI implementation's mpi.h, so the constants test
 * can include netcdf_par.h on a machine without MPI. */
#ifndef FAKE_MPI_H
#define FAKE_MPI_H
typedef int MPI_Comm;
typedef int MPI_Info;
#endif
