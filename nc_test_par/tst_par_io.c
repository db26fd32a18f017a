/* tst_par_io: one netCDF-4 file written and read by every rank through
 * parallel HDF5.
 *
 * Each rank owns a block of NX columns.  Variables of every numeric atomic
 * type and NC_CHAR on (time, x), time unlimited, written collectively one
 * record at a time (the unlimited dimension grows collectively); a
 * deflate+shuffle float variable chunked one block per rank (collective,
 * as filters require); a fixed-size int variable written independently.
 * Upstream's rules are checked: an unknown mode is NC_EINVAL, growing the unlimited dimension in
 * independent access NC_ECANTEXTEND, nc_var_par_access on a file not
 * opened in parallel NC_ENOPAR, strings NC_EINVAL.  The file is read back in parallel (each
 * rank its neighbour's block, collective and independent), then rank 0
 * opens it serially and checks every value, and its dump by our ncdump
 * equals the reference ncdump's (REF_NCDUMP, /usr/bin/ncdump). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <netcdf_meta.h>

#define NX 6
#define NT 3
#define FILE_NAME "tst_par_io.nc"

static int rank, nranks, fails;

#define CHECK(e) do { int s_ = (e); if (s_) { fprintf(stderr, "rank %d line %d: %s -> %s\n", \
    rank, __LINE__, #e, nc_strerror(s_)); fails++; } } while (0)
#define EXPECT(e, want) do { int s_ = (e); if (s_ != (want)) { fprintf(stderr, \
    "rank %d line %d: %s -> %d, want %d\n", rank, __LINE__, #e, s_, (want)); fails++; } } while (0)

static const nc_type types[] = {NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT, NC_UINT,
                                NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE, NC_CHAR};
#define NTYPES (int)(sizeof types / sizeof types[0])

/* The value at (t, x) of the variable of type index k, as a double that
 * every type holds exactly. */
static double
value_at(int k, int t, int x)
{
    if (types[k] == NC_CHAR)
        return 'a' + (t * 7 + x) % 26;
    return (double)((t * 31 + x * 3 + k) % 100);
}

static void
fill_block(int k, int t, int x0, int n, void *buf)
{
    for (int i = 0; i < n; i++) {
        double v = value_at(k, t, x0 + i);
        switch (types[k]) {
        case NC_BYTE: ((signed char *)buf)[i] = (signed char)v; break;
        case NC_CHAR: ((char *)buf)[i] = (char)v; break;
        case NC_UBYTE: ((unsigned char *)buf)[i] = (unsigned char)v; break;
        case NC_SHORT: ((short *)buf)[i] = (short)v; break;
        case NC_USHORT: ((unsigned short *)buf)[i] = (unsigned short)v; break;
        case NC_INT: ((int *)buf)[i] = (int)v; break;
        case NC_UINT: ((unsigned *)buf)[i] = (unsigned)v; break;
        case NC_INT64: ((long long *)buf)[i] = (long long)v; break;
        case NC_UINT64: ((unsigned long long *)buf)[i] = (unsigned long long)v; break;
        case NC_FLOAT: ((float *)buf)[i] = (float)v; break;
        case NC_DOUBLE: ((double *)buf)[i] = v; break;
        }
    }
}

static void
write_file(void)
{
    int ncid, dims[2], fixdim, varids[NTYPES], zvar, ivar, svar;
    size_t gx = (size_t)NX * (size_t)nranks;
    char name[32];

    CHECK(nc_create_par(FILE_NAME, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    CHECK(nc_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
    CHECK(nc_def_dim(ncid, "x", gx, &dims[1]));
    CHECK(nc_def_dim(ncid, "y", gx, &fixdim));
    for (int k = 0; k < NTYPES; k++) {
        snprintf(name, sizeof name, "v%d", (int)types[k]);
        CHECK(nc_def_var(ncid, name, types[k], 2, dims, &varids[k]));
    }
    {
        size_t chunks[2] = {1, NX};
        CHECK(nc_def_var(ncid, "z", NC_FLOAT, 2, dims, &zvar));
        CHECK(nc_def_var_chunking(ncid, zvar, NC_CHUNKED, chunks));
        CHECK(nc_def_var_deflate(ncid, zvar, 1, 1, 1));
    }
    CHECK(nc_def_var(ncid, "ind", NC_INT, 1, &fixdim, &ivar));
    CHECK(nc_def_var(ncid, "str", NC_STRING, 1, &fixdim, &svar));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 8, "parallel"));
    CHECK(nc_enddef(ncid));

    /* Upstream's rules. */
    {
        /* A filtered variable starts collective; independent access is
         * accepted, and HDF5 refuses an independent filtered write. */
        size_t start[2] = {0, (size_t)rank * NX}, count[2] = {1, NX};
        float zb[NX] = {0};
        CHECK(nc_var_par_access(ncid, zvar, NC_INDEPENDENT));
        EXPECT(nc_put_vara_float(ncid, zvar, start, count, zb), NC_ECANTEXTEND);
    }
    EXPECT(nc_var_par_access(ncid, ivar, 7), NC_EINVAL);
    {
        /* Variable-length data is not written in parallel (docs/parallel.md);
         * it is read, independently: the value never written is the fill. */
        size_t start = 0, count = 1;
        const char *str[1] = {"a"};
        char *got[1] = {NULL};
        EXPECT(nc_put_vara_string(ncid, svar, &start, &count, str), NC_EINVAL);
        EXPECT(nc_get_vara_string(ncid, svar, &start, &count, got), NC_NOERR);
        EXPECT(got[0] == NULL || got[0][0] == '\0', 1);
        if (got[0] != NULL)
            nc_free_string(1, got);
    }
    EXPECT(nc_var_par_access(ncid, 999, NC_COLLECTIVE), NC_ENOTVAR);
    {
        /* Independent access cannot grow the unlimited dimension. */
        size_t start[2] = {0, (size_t)rank * NX}, count[2] = {1, NX};
        int buf[NX] = {0};
        EXPECT(nc_put_vara_int(ncid, varids[4], start, count, buf), NC_ECANTEXTEND);
    }

    for (int k = 0; k < NTYPES; k++)
        CHECK(nc_var_par_access(ncid, varids[k], NC_COLLECTIVE));
    CHECK(nc_var_par_access(ncid, zvar, NC_COLLECTIVE));
    for (int t = 0; t < NT; t++) {
        size_t start[2] = {(size_t)t, (size_t)rank * NX}, count[2] = {1, NX};
        double buf[NX];
        for (int k = 0; k < NTYPES; k++) {
            fill_block(k, t, rank * NX, NX, buf);
            CHECK(nc_put_vara(ncid, varids[k], start, count, buf));
        }
        float zb[NX];
        for (int i = 0; i < NX; i++)
            zb[i] = (float)(t * 1000 + rank * NX + i) / 4.0f;
        CHECK(nc_put_vara_float(ncid, zvar, start, count, zb));
    }
    /* Independent, fixed size: the last rank also writes an empty slab. */
    {
        size_t start = (size_t)rank * NX, count = NX, none = 0;
        int ib[NX];
        for (int i = 0; i < NX; i++)
            ib[i] = -(rank * NX + i);
        CHECK(nc_put_vara_int(ncid, ivar, &start, &count, ib));
        CHECK(nc_put_vara_int(ncid, ivar, &start, &none, ib));
    }
    /* Filtered data in independent access: HDF5 refuses the write. */
    {
        size_t start[2] = {0, (size_t)rank * NX}, count[2] = {1, NX};
        float zb[NX] = {0};
        CHECK(nc_var_par_access(ncid, zvar, NC_INDEPENDENT));
        EXPECT(nc_put_vara_float(ncid, zvar, start, count, zb), NC_EHDFERR);
        CHECK(nc_var_par_access(ncid, zvar, NC_COLLECTIVE));
    }
    /* A rank with nothing to write still takes part in a collective call. */
    {
        size_t start[2] = {0, 0}, count[2] = {rank == 0 ? 1 : 0, rank == 0 ? 1 : 0};
        float one = 0.0f;
        CHECK(nc_put_vara_float(ncid, zvar, start, count, &one));
    }
    CHECK(nc_close(ncid));
}

/* Every rank reads its neighbour's block: collectively through the
 * converting path (as doubles), independently for ind. */
static void
read_parallel(void)
{
    int ncid, varid, fmt;
    int other = (rank + 1) % nranks;
    size_t len;
    char name[32];

    CHECK(nc_open_par(FILE_NAME, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    CHECK(nc_inq_format(ncid, &fmt));
    if (fmt != NC_FORMAT_NETCDF4)
        fails++;
    CHECK(nc_inq_dimlen(ncid, 0, &len));
    if (len != NT)
        fails++;
    for (int k = 0; k < NTYPES; k++) {
        if (types[k] == NC_CHAR)
            continue;
        snprintf(name, sizeof name, "v%d", (int)types[k]);
        CHECK(nc_inq_varid(ncid, name, &varid));
        CHECK(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
        double got[NT][NX];
        size_t start[2] = {0, (size_t)other * NX}, count[2] = {NT, NX};
        CHECK(nc_get_vara_double(ncid, varid, start, count, &got[0][0]));
        for (int t = 0; t < NT; t++)
            for (int i = 0; i < NX; i++)
                if (got[t][i] != value_at(k, t, other * NX + i)) {
                    if (fails++ < 5)
                        fprintf(stderr, "rank %d: %s[%d][%d] = %g\n", rank, name, t, i, got[t][i]);
                }
    }
    {
        int ib[NX];
        size_t start = (size_t)other * NX, count = NX;
        CHECK(nc_inq_varid(ncid, "ind", &varid));
        CHECK(nc_get_vara_int(ncid, varid, &start, &count, ib));
        for (int i = 0; i < NX; i++)
            if (ib[i] != -(other * NX + i))
                fails++;
    }
    {
        float zb[NT][NX];
        size_t start[2] = {0, (size_t)other * NX}, count[2] = {NT, NX};
        CHECK(nc_inq_varid(ncid, "z", &varid));
        CHECK(nc_get_vara_float(ncid, varid, start, count, &zb[0][0]));
        for (int t = 0; t < NT; t++)
            for (int i = 0; i < NX; i++) {
                float want = (t == 0 && other == 0 && i == 0) ? 0.0f
                           : (float)(t * 1000 + other * NX + i) / 4.0f;
                if (zb[t][i] != want)
                    fails++;
            }
    }
    CHECK(nc_close(ncid));
}

/* Rank 0, serially: every value, the filters, and the dumps. */
static void
check_serial(void)
{
    int ncid, varid, shuffle, deflate, level, nvars;
    size_t gx = (size_t)NX * (size_t)nranks;
    char name[32];

    CHECK(nc_open(FILE_NAME, NC_NOWRITE, &ncid));
    CHECK(nc_inq_nvars(ncid, &nvars));
    if (nvars != NTYPES + 3)
        fails++;
    EXPECT(nc_var_par_access(ncid, 0, NC_COLLECTIVE), NC_ENOPAR);
    for (int k = 0; k < NTYPES; k++) {
        snprintf(name, sizeof name, "v%d", (int)types[k]);
        CHECK(nc_inq_varid(ncid, name, &varid));
        for (int t = 0; t < NT; t++) {
            size_t start[2] = {(size_t)t, 0}, count[2] = {1, gx};
            double *got = malloc(gx * sizeof *got), *want = malloc(gx * sizeof *want);
            if (types[k] == NC_CHAR) {
                char *c = malloc(gx);
                CHECK(nc_get_vara_text(ncid, varid, start, count, c));
                for (size_t i = 0; i < gx; i++)
                    got[i] = c[i];
                free(c);
            } else {
                CHECK(nc_get_vara_double(ncid, varid, start, count, got));
            }
            for (size_t i = 0; i < gx; i++)
                if (got[i] != value_at(k, t, (int)i))
                    fails++;
            free(got);
            free(want);
        }
    }
    CHECK(nc_inq_varid(ncid, "z", &varid));
    CHECK(nc_inq_var_deflate(ncid, varid, &shuffle, &deflate, &level));
    if (!shuffle || !deflate || level != 1)
        fails++;
    CHECK(nc_close(ncid));

#ifdef NCDUMP
    {
        const char *ref = getenv("REF_NCDUMP") ? getenv("REF_NCDUMP") : "/usr/bin/ncdump";
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "test -x %s || exit 77; %s %s > tst_par_io.ours.cdl && "
                 "%s %s > tst_par_io.ref.cdl && cmp tst_par_io.ours.cdl tst_par_io.ref.cdl",
                 ref, NCDUMP, FILE_NAME, ref, FILE_NAME);
        int rc = system(cmd);
        if (rc != 0 && !(WIFEXITED(rc) && WEXITSTATUS(rc) == 77)) {
            fprintf(stderr, "dumps differ (or a dump failed): %s\n", cmd);
            fails++;
        }
    }
#endif
}

int
main(int argc, char **argv)
{
    int total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    write_file();
    MPI_Barrier(MPI_COMM_WORLD);
    read_parallel();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_serial();
    MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("tst_par_io: %d ranks, %d failures\n", nranks, total);
    MPI_Finalize();
    return total ? 1 : 0;
}
