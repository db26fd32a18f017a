/* tst_par_iomode: which MPI-IO calls a collective write of a contiguous
 * variable makes.  When every rank's selection is one run of consecutive
 * elements in the file (a row each), the write is made by every rank on its
 * own (MPI_File_write_at), without MPI-IO's collective buffering
 * (MPI_File_write_at_all would first gather the bytes at the aggregators);
 * a selection that interleaves with the other ranks' (a column each) stays
 * a collective MPI-IO write.  Collective reads likewise.  The MPI-IO calls
 * are counted through MPI's profiling interface (this program's
 * MPI_File_write*, MPI_File_read* and MPI_File_sync run before
 * PMPI_File_*), and so are the syncs: nc_enddef makes none (HDF5's
 * MPI-IO driver would sync the whole file to disk on every rank at a
 * flush there), nc_sync one.  Every value is checked afterwards, serially on rank 0
 * and in parallel on every rank. */
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include "partest.h"

#define FILE_NAME "tst_par_iomode.nc"
#define COLS 4096 /* of v, one row per rank */
#define ROWS 16   /* of w, one column per rank */

static int rank;
static long n_coll, n_indep; /* MPI-IO calls made, collective / not */

int
MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int count,
                      MPI_Datatype type, MPI_Status *status)
{
    n_coll++;
    return PMPI_File_write_at_all(fh, off, buf, count, type, status);
}

int
MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                   MPI_Status *status)
{
    n_coll++;
    return PMPI_File_write_all(fh, buf, count, type, status);
}

int
MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf, int count,
                  MPI_Datatype type, MPI_Status *status)
{
    n_indep++;
    return PMPI_File_write_at(fh, off, buf, count, type, status);
}

int
MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    n_indep++;
    return PMPI_File_write(fh, buf, count, type, status);
}

int
MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype type,
                     MPI_Status *status)
{
    n_coll++;
    return PMPI_File_read_at_all(fh, off, buf, count, type, status);
}

int
MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    n_coll++;
    return PMPI_File_read_all(fh, buf, count, type, status);
}

int
MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype type,
                 MPI_Status *status)
{
    n_indep++;
    return PMPI_File_read_at(fh, off, buf, count, type, status);
}

int
MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    n_indep++;
    return PMPI_File_read(fh, buf, count, type, status);
}

/* MPI_File_sync: HDF5's MPI-IO driver makes one at every flush but the
 * last (H5Fflush), which forces the whole file to disk on every rank. */
static long n_sync;

int
MPI_File_sync(MPI_File fh)
{
    n_sync++;
    return PMPI_File_sync(fh);
}

static float
vval(int r, int c)
{
    return (float)(r * 100000 + c);
}

static float
wval(int r, int c)
{
    return (float)(c * 1000 + r) + 0.5f;
}

/* Every rank's counts, so that rank 0 can say which rank differs. */
static void
counts_on_all(long *all)
{
    long mine[2] = {n_coll, n_indep};
    if (MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, MPI_COMM_WORLD) != MPI_SUCCESS)
        FAIL("MPI_Allgather");
}

int
main(int argc, char **argv)
{
    int nranks, ncid, dims[4], v, w, e;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long *all = malloc(sizeof *all * 2 * (size_t)nranks);
    float *row = malloc(sizeof *row * COLS), col[ROWS];
    if (all == NULL || row == NULL)
        FAIL("no memory");

    ERR(nc_create_par(FILE_NAME, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    ERR(nc_def_dim(ncid, "row", (size_t)nranks, &dims[0]));
    ERR(nc_def_dim(ncid, "col", COLS, &dims[1]));
    ERR(nc_def_dim(ncid, "wrow", ROWS, &dims[2]));
    ERR(nc_def_dim(ncid, "wcol", (size_t)nranks, &dims[3]));
    ERR(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &v));
    ERR(nc_def_var(ncid, "w", NC_FLOAT, 2, dims + 2, &w));
    ERR(nc_def_var(ncid, "e", NC_FLOAT, 2, dims, &e));
    /* No fill: only the writes below make MPI-IO calls after nc_enddef. */
    ERR(nc_def_var_fill(ncid, v, NC_NOFILL, NULL));
    ERR(nc_def_var_fill(ncid, w, NC_NOFILL, NULL));
    /* nc_enddef writes no fsync through MPI-IO (nc_sync does, below). */
    n_sync = 0;
    ERR(nc_enddef(ncid));
    if (n_sync != 0)
        FAIL("nc_enddef made %ld MPI_File_sync calls (want 0)", n_sync);
    ERR(nc_var_par_access(ncid, v, NC_COLLECTIVE));
    ERR(nc_var_par_access(ncid, w, NC_COLLECTIVE));
    ERR(nc_var_par_access(ncid, e, NC_COLLECTIVE));

    /* A row per rank: one run each, written by every rank on its own. */
    for (int c = 0; c < COLS; c++)
        row[c] = vval(rank, c);
    size_t start[2] = {(size_t)rank, 0}, count[2] = {1, COLS};
    n_coll = n_indep = 0;
    ERR(nc_put_vara_float(ncid, v, start, count, row));
    counts_on_all(all);
    for (int r = 0; r < nranks; r++)
        if (all[2 * r] != 0 || all[2 * r + 1] < 1)
            FAIL("rows: rank %d made %ld collective and %ld independent MPI-IO writes "
                 "(want 0 and at least 1)", r, all[2 * r], all[2 * r + 1]);

    /* The same with rank 0 writing nothing: the others still write alone. */
    n_coll = n_indep = 0;
    size_t ecount[2] = {rank == 0 ? 0 : 1, COLS};
    ERR(nc_put_vara_float(ncid, e, start, ecount, rank == 0 ? NULL : row));
    counts_on_all(all);
    for (int r = 0; r < nranks; r++)
        if (all[2 * r] != 0 || (r > 0 && all[2 * r + 1] < 1))
            FAIL("rows, rank 0 empty: rank %d made %ld collective and %ld independent "
                 "MPI-IO writes", r, all[2 * r], all[2 * r + 1]);

    /* A column per rank: the runs interleave, so with more than one rank the
     * write stays collective in MPI-IO. */
    for (int r = 0; r < ROWS; r++)
        col[r] = wval(r, rank);
    size_t wstart[2] = {0, (size_t)rank}, wcount[2] = {ROWS, 1};
    n_coll = n_indep = 0;
    ERR(nc_put_vara_float(ncid, w, wstart, wcount, col));
    counts_on_all(all);
    for (int r = 0; r < nranks; r++)
        if (nranks > 1 ? all[2 * r] < 1 : all[2 * r] != 0 || all[2 * r + 1] < 1)
            FAIL("columns: rank %d made %ld collective and %ld independent MPI-IO writes",
                 r, all[2 * r], all[2 * r + 1]);
    n_sync = 0;
    ERR(nc_sync(ncid));
    if (n_sync != 1)
        FAIL("nc_sync made %ld MPI_File_sync calls (want 1)", n_sync);
    /* A redef that adds a variable, and its nc_enddef: no sync either. */
    ERR(nc_redef(ncid));
    int x;
    ERR(nc_def_var(ncid, "x", NC_INT, 1, dims, &x));
    n_sync = 0;
    ERR(nc_enddef(ncid));
    if (n_sync != 0)
        FAIL("nc_enddef after nc_redef made %ld MPI_File_sync calls (want 0)", n_sync);
    int xv = rank + 7;
    size_t xs = (size_t)rank, one = 1;
    ERR(nc_put_vara_int(ncid, x, &xs, &one, &xv));
    ERR(nc_close(ncid));

    /* Every value, read by every rank in parallel (its neighbour's row) and
     * by rank 0 alone. */
    MPI_Barrier(MPI_COMM_WORLD);
    ERR(nc_open_par(FILE_NAME, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    ERR(nc_var_par_access(ncid, v, NC_COLLECTIVE));
    int nb = (rank + 1) % nranks;
    size_t nstart[2] = {(size_t)nb, 0};
    n_coll = n_indep = 0;
    ERR(nc_get_vara_float(ncid, v, nstart, count, row));
    counts_on_all(all);
    for (int r = 0; r < nranks; r++)
        if (all[2 * r] != 0 || all[2 * r + 1] < 1)
            FAIL("row reads: rank %d made %ld collective and %ld independent MPI-IO reads "
                 "(want 0 and at least 1)", r, all[2 * r], all[2 * r + 1]);
    for (int c = 0; c < COLS; c++)
        if (row[c] != vval(nb, c))
            FAIL("v[%d][%d] = %g in parallel", nb, c, row[c]);
    /* A column each: collective MPI-IO reads with more than one rank. */
    ERR(nc_var_par_access(ncid, w, NC_COLLECTIVE));
    n_coll = n_indep = 0;
    size_t nwstart[2] = {0, (size_t)nb};
    ERR(nc_get_vara_float(ncid, w, nwstart, wcount, col));
    counts_on_all(all);
    for (int r = 0; r < nranks; r++)
        if (nranks > 1 ? all[2 * r] < 1 : all[2 * r] != 0 || all[2 * r + 1] < 1)
            FAIL("column reads: rank %d made %ld collective and %ld independent MPI-IO reads",
                 r, all[2 * r], all[2 * r + 1]);
    for (int i = 0; i < ROWS; i++)
        if (col[i] != wval(i, nb))
            FAIL("w[%d][%d] = %g in parallel", i, nb, col[i]);
    ERR(nc_close(ncid));
    if (rank == 0) {
        ERR(nc_open(FILE_NAME, NC_NOWRITE, &ncid));
        for (int r = 0; r < nranks; r++) {
            size_t s[2] = {(size_t)r, 0};
            ERR(nc_get_vara_float(ncid, v, s, count, row));
            for (int c = 0; c < COLS; c++)
                if (row[c] != vval(r, c))
                    FAIL("v[%d][%d] = %g", r, c, row[c]);
            ERR(nc_get_vara_float(ncid, e, s, count, row));
            for (int c = 0; c < COLS; c++)
                if (row[c] != (r == 0 ? NC_FILL_FLOAT : vval(r, c)))
                    FAIL("e[%d][%d] = %g", r, c, row[c]);
            int xv;
            size_t xs = (size_t)r;
            ERR(nc_get_var1_int(ncid, 3, &xs, &xv));
            if (xv != r + 7)
                FAIL("x[%d] = %d", r, xv);
            size_t ws[2] = {0, (size_t)r};
            ERR(nc_get_vara_float(ncid, w, ws, wcount, col));
            for (int i = 0; i < ROWS; i++)
                if (col[i] != wval(i, r))
                    FAIL("w[%d][%d] = %g", i, r, col[i]);
        }
        ERR(nc_close(ncid));
    }
    free(all);
    free(row);
    MPI_Finalize();
    return 0;
}
