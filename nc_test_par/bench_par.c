/* bench_par: parallel write and read times of one large float variable
 * (not a test; nc_test_par/bench_par.sh runs it).  Built against our
 * library and (with -DNCREF) against upstream's parallel build.
 *
 *   bench_par write FILE MIB [z]  every rank writes its own block (one row
 *                                 of a (ranks, MIB MiB / ranks / 4) float
 *                                 variable), collectively; z: deflate level
 *                                 1 + shuffle, one chunk per rank
 *   bench_par read FILE           the variable read back, each rank an
 *                                 equal share of the rows' columns,
 *                                 collectively
 *   bench_par mpiio FILE MIB      the same bytes with MPI_File_write_at_all
 *
 * Rank 0 prints the seconds from the create/open to the close (the slowest
 * rank's, after a barrier).  Before a write the file is removed and the
 * page cache synced, outside the timing, so that every writer starts from
 * the same state.  BENCH_PHASES=1: each phase's time on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include <netcdf.h>
#ifdef NCREF
#define NC_COLLECTIVE 1
int nc_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp);
int nc_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp);
int nc_var_par_access(int ncid, int varid, int par_access);
#else
#include <netcdf_par.h>
#endif

#define ERR(e) do { int s_ = (e); if (s_) { fprintf(stderr, "line %d: %s\n", __LINE__, \
    nc_strerror(s_)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

int
main(int argc, char **argv)
{
    int rank, nranks, ncid, varid, dims[2], nphase = 0;
    double t0, t1, tp[5];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 3)
        MPI_Abort(MPI_COMM_WORLD, 2);
    const char *op = argv[1], *path = argv[2];

    if (strcmp(op, "read") == 0) {
        size_t rows, cols;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        ERR(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        ERR(nc_inq_varid(ncid, "v", &varid));
        ERR(nc_inq_dimlen(ncid, 0, &rows));
        ERR(nc_inq_dimlen(ncid, 1, &cols));
        ERR(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
        /* An equal share of the rows (whole rows, or a part of every row
         * when there are more ranks than rows). */
        size_t r0, nr, c0 = 0, nc = cols;
        if ((size_t)nranks <= rows) {
            nr = rows / (size_t)nranks;
            r0 = (size_t)rank * nr;
        } else {
            nr = 1;
            r0 = (size_t)rank % rows;
            size_t per = (size_t)nranks / rows;
            nc = cols / per;
            c0 = ((size_t)rank / rows) * nc;
        }
        float *buf = malloc(nr * nc * sizeof *buf);
        size_t start[2] = {r0, c0}, count[2] = {nr, nc};
        ERR(nc_get_vara_float(ncid, varid, start, count, buf));
        ERR(nc_close(ncid));
        for (size_t i = 0; i < nr * nc; i += 4099)
            if (buf[i] != (float)(((c0 + i % nc) / 16) % 4096)) {
                fprintf(stderr, "bad value at %zu\n", i);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        free(buf);
    } else {
        size_t mib = argc > 3 ? strtoul(argv[3], NULL, 10) : 1024;
        size_t cols = mib * 1024 * 1024 / 4 / (size_t)nranks;
        float *buf = malloc(cols * sizeof *buf);
        for (size_t i = 0; i < cols; i++)
            buf[i] = (float)((i / 16) % 4096);
        /* Every writer starts alike, outside the timing: no file (so no
         * truncation of an old one inside nc_create_par, and no overwrite
         * of cached pages by MPI-IO, which does not truncate) and nothing
         * dirty in the page cache. */
        if (rank == 0) {
            remove(path);
            sync();
        }
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (strcmp(op, "mpiio") == 0) {
            MPI_File fh;
            MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
            tp[0] = MPI_Wtime();
            MPI_File_write_at_all(fh, (MPI_Offset)rank * (MPI_Offset)(cols * 4), buf, (int)cols,
                                  MPI_FLOAT, MPI_STATUS_IGNORE);
            tp[1] = MPI_Wtime();
            MPI_File_close(&fh);
            tp[2] = MPI_Wtime();
            nphase = 3;
        } else {
            ERR(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
            tp[0] = MPI_Wtime();
            ERR(nc_def_dim(ncid, "row", (size_t)nranks, &dims[0]));
            ERR(nc_def_dim(ncid, "col", cols, &dims[1]));
            ERR(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &varid));
            if (argc > 4 && argv[4][0] == 'z') {
                size_t chunks[2] = {1, cols};
                ERR(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
                ERR(nc_def_var_deflate(ncid, varid, 1, 1, 1));
            }
            if (getenv("BENCH_NOFILL"))
                ERR(nc_def_var_fill(ncid, varid, NC_NOFILL, NULL));
            tp[1] = MPI_Wtime();
            ERR(nc_enddef(ncid));
            tp[2] = MPI_Wtime();
            ERR(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
            size_t start[2] = {(size_t)rank, 0}, count[2] = {1, cols};
            ERR(nc_put_vara_float(ncid, varid, start, count, buf));
            tp[3] = MPI_Wtime();
            ERR(nc_close(ncid));
            tp[4] = MPI_Wtime();
            nphase = 5;
        }
        free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t1 = MPI_Wtime();
    if (rank == 0)
        printf("%.3f\n", t1 - t0);
    /* BENCH_PHASES: each phase's seconds (the slowest rank's end of it,
     * from the common start), on stderr. */
    if (getenv("BENCH_PHASES") && nphase > 0) {
        double mx[5];
        for (int i = 0; i < nphase; i++)
            tp[i] -= t0;
        MPI_Reduce(tp, mx, nphase, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            static const char *nc[] = {"create", "defs", "enddef", "put", "close"};
            static const char *mp[] = {"open", "write", "close"};
            for (int i = 0; i < nphase; i++)
                fprintf(stderr, "%s %.3f%s", nphase == 5 ? nc[i] : mp[i],
                        mx[i] - (i ? mx[i - 1] : 0), i + 1 < nphase ? " " : "\n");
        }
    }
    MPI_Finalize();
    return 0;
}
