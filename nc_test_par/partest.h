/* partest.h: how the MPI test programs of this folder fail: the rank and
 * line on stderr, then MPI_Abort of every rank (one rank leaving alone
 * would hang the others in their next collective call).  The including
 * file has an int `rank` in scope. */
#ifndef PARTEST_H
#define PARTEST_H

#include <stdio.h>
#include <mpi.h>
#include "netcdf.h"

#define FAIL(...)                                                                        \
    do {                                                                                 \
        fprintf(stderr, "rank %d, line %d: ", rank, __LINE__);                           \
        fprintf(stderr, __VA_ARGS__);                                                    \
        fprintf(stderr, "\n");                                                           \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                    \
    } while (0)
#define ERR(e)                                                                           \
    do {                                                                                 \
        int _s = (e);                                                                    \
        if (_s) FAIL("%s: %s", #e, nc_strerror(_s));                                     \
    } while (0)

#endif /* PARTEST_H */
