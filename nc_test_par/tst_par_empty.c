/* tst_par_empty: a rank with nothing to move in a collective call moves
 * nothing.
 *
 * Rank 0 takes part in collective writes with a zero count (as
 * netcdf-fortran's f90tst_parallel_fill does) while the other ranks write
 * quadrants of fixed-size variables of several types; the quadrant nobody
 * writes must read as the fill value, element (0, 0) included.  Then
 * collective reads: rank 0 with a zero count and no buffer, every rank a
 * record of a variable past its own extent (another variable grew the
 * unlimited dimension: all fill). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "netcdf.h"
#include "netcdf_par.h"

#include "partest.h"

#define N 16
#define H (N / 2)

static int rank, nranks;

/* Quadrant q: (x0, y0). */
static void
quadrant(int q, size_t *start)
{
    start[0] = (q & 1) ? H : 0;
    start[1] = (q & 2) ? H : 0;
}

int
main(int argc, char **argv)
{
    const char *path = "tst_par_empty.nc";
    int ncid, d[3], vb, vi, vd, vu, vw;
    signed char b[H * H];
    int iv[H * H];
    double dv[H * H], u[N];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    ERR(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    ERR(nc_def_dim(ncid, "x", N, &d[0]));
    ERR(nc_def_dim(ncid, "y", N, &d[1]));
    ERR(nc_def_dim(ncid, "time", NC_UNLIMITED, &d[2]));
    ERR(nc_def_var(ncid, "b", NC_BYTE, 2, d, &vb));
    ERR(nc_def_var(ncid, "i", NC_INT, 2, d, &vi));
    ERR(nc_def_var(ncid, "d", NC_DOUBLE, 2, d, &vd));
    int ud[2] = {d[2], d[0]};
    ERR(nc_def_var(ncid, "u", NC_DOUBLE, 2, ud, &vu));
    ERR(nc_def_var(ncid, "w", NC_DOUBLE, 2, ud, &vw));
    ERR(nc_var_par_access(ncid, vw, NC_COLLECTIVE));
    ERR(nc_var_par_access(ncid, vb, NC_COLLECTIVE));
    ERR(nc_var_par_access(ncid, vi, NC_COLLECTIVE));
    ERR(nc_var_par_access(ncid, vd, NC_COLLECTIVE));
    ERR(nc_var_par_access(ncid, vu, NC_COLLECTIVE));
    ERR(nc_enddef(ncid));

    for (int k = 0; k < H * H; k++) {
        b[k] = -1;
        iv[k] = -4;
        dv[k] = -4.5;
    }
    size_t start[2], count[2] = {H, H};
    quadrant(rank % 4, start);
    if (rank == 0 || rank >= 4)
        count[0] = count[1] = 0;
    ERR(nc_put_vara_schar(ncid, vb, start, count, b));
    ERR(nc_put_vara_int(ncid, vi, start, count, iv));
    ERR(nc_put_vara_double(ncid, vd, start, count, dv));
    /* Record 0 of u: rank 1 writes it, the others nothing. */
    for (int k = 0; k < N; k++)
        u[k] = 7.0 + k;
    size_t us[2] = {0, 0}, uc[2] = {1, N};
    if (rank != 1)
        uc[0] = uc[1] = 0;
    ERR(nc_put_vara_double(ncid, vu, us, uc, u));
    /* w grows time to 4 records (u keeps 1). */
    {
        double w[4 * N];
        size_t ws[2] = {0, 0}, wc[2] = {4, N};
        for (int k = 0; k < 4 * N; k++)
            w[k] = k;
        if (rank != 1)
            wc[0] = wc[1] = 0;
        ERR(nc_put_vara_double(ncid, vw, ws, wc, w));
    }
    ERR(nc_close(ncid));

    if (rank == 0) {
        signed char ball[N * N];
        int iall[N * N];
        double dall[N * N];
        ERR(nc_open(path, NC_NOWRITE, &ncid));
        ERR(nc_get_var_schar(ncid, vb, ball));
        ERR(nc_get_var_int(ncid, vi, iall));
        ERR(nc_get_var_double(ncid, vd, dall));
        for (int x = 0; x < N; x++)
            for (int y = 0; y < N; y++) {
                int q = (x >= H) | ((y >= H) << 1);
                int written = q != 0 && q < nranks;
                int k = x * N + y;
                if (ball[k] != (written ? -1 : NC_FILL_BYTE) ||
                    iall[k] != (written ? -4 : NC_FILL_INT) ||
                    dall[k] != (written ? -4.5 : NC_FILL_DOUBLE))
                    FAIL("(%d, %d): %d %d %g", x, y, ball[k], iall[k], dall[k]);
            }
        size_t len;
        ERR(nc_inq_dimlen(ncid, d[2], &len));
        if (len != (nranks > 1 ? 4u : 0u))
            FAIL("time has %zu records", len);
        ERR(nc_close(ncid));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    ERR(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    ERR(nc_var_par_access(ncid, vi, NC_COLLECTIVE));
    ERR(nc_var_par_access(ncid, vu, NC_COLLECTIVE));
    /* Rank 0: nothing, and no buffer. */
    {
        int in[H * H];
        size_t s[2], c[2] = {H, H};
        quadrant(rank % 4, s);
        if (rank == 0)
            c[0] = c[1] = 0;
        ERR(nc_get_vara_int(ncid, vi, s, c, rank == 0 ? NULL : in));
        for (int k = 0; rank != 0 && k < H * H; k++)
            if (in[k] != (rank < 4 ? -4 : NC_FILL_INT))
                FAIL("read i[%d] = %d", k, in[k]);
    }
    /* A record of u past its own extent (w made it): all fill, on every
     * rank. */
    if (nranks > 1) {
        double in[N];
        size_t s[2] = {3, 0}, c[2] = {1, N};
        for (int k = 0; k < N; k++)
            in[k] = 0;
        ERR(nc_get_vara_double(ncid, vu, s, c, in));
        for (int k = 0; k < N; k++)
            if (in[k] != NC_FILL_DOUBLE)
                FAIL("u[3][%d] = %g", k, in[k]);
    }
    ERR(nc_close(ncid));
    MPI_Finalize();
    return 0;
}
