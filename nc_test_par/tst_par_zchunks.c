/* tst_par_zchunks: collective writes of filtered variables in a parallel
 * netCDF-4 file store the chunks the serial library stores.
 *
 * Every rank writes whole chunks of deflated (and shuffled, and fletcher32)
 * variables, collectively: a 2-D float variable with one chunk per rank, a
 * 3-D int variable with several chunks per rank and edge chunks that reach
 * past the extent, a double variable on an unlimited dimension that grows,
 * and a variable written in pieces that are not whole chunks (HDF5's own
 * pipeline).  Rank 0 then writes the same values serially into a second
 * file and checks, through HDF5 alone:
 *   - every chunk of the parallel file holds the same bytes and filter mask
 *     as the serial file's (H5Dread_chunk);
 *   - every deflated chunk inflates (zlib) and unshuffles to the expected
 *     values, byte for byte;
 * and, through the library, every value; and the reference ncdump prints
 * the same data for both files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <hdf5.h>
#include <zlib.h>
#include <mpi.h>
#include "netcdf.h"
#include "netcdf_par.h"

#include "partest.h"

static int rank, nranks;

/* The values: a function of the index in the whole variable. */
static float fval(size_t r, size_t c) { return (float)((r * 7 + c / 3) % 5000) * 0.5f; }
static int ival(size_t i, size_t j, size_t k) { return (int)(i * 100000 + j * 100 + k) - 50000; }
static double dval(size_t t, size_t x) { return (double)t * 1000.0 + (double)x / 8.0; }

#define FC 3000      /* float: (nranks, FC), one chunk of 1 x FC per rank */
#define IX 4         /* int: (IX * nranks, IY, IZ), chunks (2, 4, 4): */
#define IY 10        /* edge chunks in y and z reach past the extent */
#define IZ 7
#define DX 64        /* double: (time, DX), chunks (1, 16), each rank one record */
#define PX 100       /* partial: (nranks, PX), chunks (1, 50), written 30 at a time */

/* Define the variables in ncid (parallel or serial). */
static void
define(int ncid, int *v)
{
    int d[6];
    size_t fch[2] = {1, FC}, ich[3] = {2, 4, 4}, dch[2] = {1, 16}, pch[2] = {1, 50};
    ERR(nc_def_dim(ncid, "r", (size_t)nranks, &d[0]));
    ERR(nc_def_dim(ncid, "c", FC, &d[1]));
    ERR(nc_def_dim(ncid, "x", (size_t)IX * nranks, &d[2]));
    ERR(nc_def_dim(ncid, "y", IY, &d[3]));
    ERR(nc_def_dim(ncid, "z", IZ, &d[4]));
    ERR(nc_def_dim(ncid, "time", NC_UNLIMITED, &d[5]));
    int fd[2] = {d[0], d[1]}, id[3] = {d[2], d[3], d[4]}, dd[2] = {d[5], 0}, pd[2] = {d[0], 0};
    int dx, px;
    ERR(nc_def_dim(ncid, "dx", DX, &dx));
    ERR(nc_def_dim(ncid, "px", PX, &px));
    dd[1] = dx;
    pd[1] = px;
    ERR(nc_def_var(ncid, "f", NC_FLOAT, 2, fd, &v[0]));
    ERR(nc_def_var_chunking(ncid, v[0], NC_CHUNKED, fch));
    ERR(nc_def_var_deflate(ncid, v[0], 1, 1, 1));
    ERR(nc_def_var(ncid, "i", NC_INT, 3, id, &v[1]));
    ERR(nc_def_var_chunking(ncid, v[1], NC_CHUNKED, ich));
    ERR(nc_def_var_fletcher32(ncid, v[1], NC_FLETCHER32));
    ERR(nc_def_var_deflate(ncid, v[1], 1, 1, 4));
    ERR(nc_def_var(ncid, "d", NC_DOUBLE, 2, dd, &v[2]));
    ERR(nc_def_var_chunking(ncid, v[2], NC_CHUNKED, dch));
    ERR(nc_def_var_deflate(ncid, v[2], 0, 1, 9));
    ERR(nc_def_var(ncid, "p", NC_FLOAT, 2, pd, &v[3]));
    ERR(nc_def_var_chunking(ncid, v[3], NC_CHUNKED, pch));
    ERR(nc_def_var_deflate(ncid, v[3], 1, 1, 1));
}

/* Write rank r's part of every variable (the serial file: called for
 * every r by rank 0). */
static void
write_part(int ncid, const int *v, int r)
{
    float *f = malloc(FC * sizeof *f);
    int *iv = malloc((size_t)IX * IY * IZ * sizeof *iv);
    double dv[DX];
    float pv[30];
    for (size_t c = 0; c < FC; c++)
        f[c] = fval((size_t)r, c);
    size_t fs[2] = {(size_t)r, 0}, fc[2] = {1, FC};
    ERR(nc_put_vara_float(ncid, v[0], fs, fc, f));
    for (size_t i = 0; i < IX; i++)
        for (size_t j = 0; j < IY; j++)
            for (size_t k = 0; k < IZ; k++)
                iv[(i * IY + j) * IZ + k] = ival((size_t)r * IX + i, j, k);
    size_t is[3] = {(size_t)r * IX, 0, 0}, ic[3] = {IX, IY, IZ};
    ERR(nc_put_vara_int(ncid, v[1], is, ic, iv));
    for (size_t x = 0; x < DX; x++)
        dv[x] = dval((size_t)r, x);
    size_t ds[2] = {(size_t)r, 0}, dc[2] = {1, DX};
    ERR(nc_put_vara_double(ncid, v[2], ds, dc, dv));
    for (size_t off = 0; off < PX; off += 30) {
        size_t n = PX - off < 30 ? PX - off : 30;
        for (size_t c = 0; c < n; c++)
            pv[c] = (float)(r * 1000 + (int)(off + c));
        size_t ps[2] = {(size_t)r, off}, pc[2] = {1, n};
        ERR(nc_put_vara_float(ncid, v[3], ps, pc, pv));
    }
    free(f);
    free(iv);
}

/* Every value of ncid checked. */
static void
check_values(int ncid)
{
    int v;
    float *f = malloc((size_t)nranks * FC * sizeof *f);
    int *iv = malloc((size_t)IX * nranks * IY * IZ * sizeof *iv);
    double *dv = malloc((size_t)nranks * DX * sizeof *dv);
    float *pv = malloc((size_t)nranks * PX * sizeof *pv);
    ERR(nc_inq_varid(ncid, "f", &v));
    ERR(nc_get_var_float(ncid, v, f));
    for (size_t r = 0; r < (size_t)nranks; r++)
        for (size_t c = 0; c < FC; c++)
            if (f[r * FC + c] != fval(r, c))
                FAIL("f[%zu][%zu] = %g", r, c, (double)f[r * FC + c]);
    ERR(nc_inq_varid(ncid, "i", &v));
    ERR(nc_get_var_int(ncid, v, iv));
    for (size_t i = 0; i < (size_t)IX * nranks; i++)
        for (size_t j = 0; j < IY; j++)
            for (size_t k = 0; k < IZ; k++)
                if (iv[(i * IY + j) * IZ + k] != ival(i, j, k))
                    FAIL("i[%zu][%zu][%zu] = %d", i, j, k, iv[(i * IY + j) * IZ + k]);
    size_t len;
    int dimid;
    ERR(nc_inq_dimid(ncid, "time", &dimid));
    ERR(nc_inq_dimlen(ncid, dimid, &len));
    if (len != (size_t)nranks)
        FAIL("time has %zu records", len);
    ERR(nc_inq_varid(ncid, "d", &v));
    ERR(nc_get_var_double(ncid, v, dv));
    for (size_t t = 0; t < (size_t)nranks; t++)
        for (size_t x = 0; x < DX; x++)
            if (dv[t * DX + x] != dval(t, x))
                FAIL("d[%zu][%zu] = %g", t, x, dv[t * DX + x]);
    ERR(nc_inq_varid(ncid, "p", &v));
    ERR(nc_get_var_float(ncid, v, pv));
    for (size_t r = 0; r < (size_t)nranks; r++)
        for (size_t c = 0; c < PX; c++)
            if (pv[r * PX + c] != (float)(r * 1000 + c))
                FAIL("p[%zu][%zu] = %g", r, c, (double)pv[r * PX + c]);
    free(f);
    free(iv);
    free(dv);
    free(pv);
}

/* Undo HDF5's shuffle of n elements of size es. */
static void
unshuffle(const unsigned char *in, unsigned char *out, size_t n, size_t es)
{
    for (size_t b = 0; b < es; b++)
        for (size_t i = 0; i < n; i++)
            out[i * es + b] = in[b * n + i];
}

/* Chunk by chunk, through HDF5 alone: the parallel file's raw chunks are
 * the serial file's (found by their coordinates), and those of "f"
 * inflate to the values.  "p" was written by HDF5's pipeline: not
 * compared. */
static void
check_chunks(const char *par, const char *ser)
{
    hid_t fp = H5Fopen(par, H5F_ACC_RDONLY, H5P_DEFAULT), fs = H5Fopen(ser, H5F_ACC_RDONLY, H5P_DEFAULT);
    const char *names[] = {"f", "i", "d"};
    if (fp < 0 || fs < 0)
        FAIL("H5Fopen");
    for (int n = 0; n < 3; n++) {
        hid_t dp = H5Dopen2(fp, names[n], H5P_DEFAULT), ds = H5Dopen2(fs, names[n], H5P_DEFAULT);
        hsize_t np = 0, ns = 0;
        if (dp < 0 || ds < 0)
            FAIL("H5Dopen2 %s", names[n]);
        hid_t sp = H5Dget_space(dp), ss = H5Dget_space(ds);
        if (H5Dget_num_chunks(dp, sp, &np) < 0 || H5Dget_num_chunks(ds, ss, &ns) < 0 || np != ns || np == 0)
            FAIL("%s: %llu chunks against %llu", names[n], (unsigned long long)np,
                 (unsigned long long)ns);
        for (hsize_t k = 0; k < np; k++) {
            hsize_t off[3];
            unsigned mp, ms;
            haddr_t ap, as;
            hsize_t szp, szs;
            if (H5Dget_chunk_info(dp, sp, k, off, &mp, &ap, &szp) < 0 ||
                H5Dget_chunk_info_by_coord(ds, off, &ms, &as, &szs) < 0 || as == HADDR_UNDEF)
                FAIL("H5Dget_chunk_info %s %llu", names[n], (unsigned long long)k);
            if (szp != szs || mp != ms)
                FAIL("%s chunk %llu: %llu bytes, mask %u against %llu, %u", names[n],
                     (unsigned long long)k, (unsigned long long)szp, mp, (unsigned long long)szs, ms);
            unsigned char *bp = malloc(szp), *bs = malloc(szs);
            uint32_t fmp = 0, fms = 0;
            if (H5Dread_chunk(dp, H5P_DEFAULT, off, &fmp, bp) < 0 ||
                H5Dread_chunk(ds, H5P_DEFAULT, off, &fms, bs) < 0)
                FAIL("H5Dread_chunk");
            if (memcmp(bp, bs, szp))
                FAIL("%s chunk %llu: bytes differ from the serial file's", names[n],
                     (unsigned long long)k);
            if (n == 0) {
                /* Inflate and unshuffle: the row's values, byte for byte. */
                uLongf len = FC * sizeof(float);
                unsigned char *raw = malloc(len), *vals = malloc(len);
                if (uncompress(raw, &len, bp, (uLong)szp) != Z_OK || len != FC * sizeof(float))
                    FAIL("f chunk %llu does not inflate to a chunk", (unsigned long long)k);
                unshuffle(raw, vals, FC, sizeof(float));
                for (size_t c = 0; c < FC; c++) {
                    float want = fval((size_t)off[0], c);
                    if (memcmp(vals + c * sizeof want, &want, sizeof want))
                        FAIL("f chunk %llu value %zu", (unsigned long long)off[0], c);
                }
                free(raw);
                free(vals);
            }
            free(bp);
            free(bs);
        }
        H5Sclose(sp);
        H5Sclose(ss);
        H5Dclose(dp);
        H5Dclose(ds);
    }
    H5Fclose(fp);
    H5Fclose(fs);
}

int
main(int argc, char **argv)
{
    const char *par = "tst_par_zchunks.nc", *ser = "tst_par_zchunks_ser.nc";
    int ncid, v[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    ERR(nc_create_par(par, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    define(ncid, v);
    ERR(nc_enddef(ncid));
    for (int k = 0; k < 4; k++)
        ERR(nc_var_par_access(ncid, v[k], NC_COLLECTIVE));
    write_part(ncid, v, rank);
    ERR(nc_close(ncid));

    if (rank == 0) {
        ERR(nc_create(ser, NC_NETCDF4 | NC_CLOBBER, &ncid));
        define(ncid, v);
        ERR(nc_enddef(ncid));
        for (int r = 0; r < nranks; r++)
            write_part(ncid, v, r);
        ERR(nc_close(ncid));
        ERR(nc_open(par, NC_NOWRITE, &ncid));
        check_values(ncid);
        ERR(nc_close(ncid));
        check_chunks(par, ser);
        if (access("/usr/bin/ncdump", X_OK) == 0) {
            char cmd[512];
            snprintf(cmd, sizeof cmd,
                     "/usr/bin/ncdump %s | sed 1d > %s.cdl && /usr/bin/ncdump %s | sed 1d > %s.cdl && "
                     "cmp -s %s.cdl %s.cdl",
                     par, par, ser, ser, par, ser);
            if (system(cmd) != 0)
                FAIL("the reference ncdump prints the two files differently");
        }
        if (access("/usr/bin/h5dump", X_OK) == 0) {
            char cmd[256];
            snprintf(cmd, sizeof cmd, "/usr/bin/h5dump %s > /dev/null", par);
            if (system(cmd) != 0)
                FAIL("h5dump fails on the file");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Every rank reads its neighbour's float row back in parallel. */
    ERR(nc_open_par(par, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    {
        int r = (rank + 1) % nranks, fv;
        float *f = malloc(FC * sizeof *f);
        size_t s[2] = {(size_t)r, 0}, c[2] = {1, FC};
        ERR(nc_inq_varid(ncid, "f", &fv));
        ERR(nc_var_par_access(ncid, fv, NC_COLLECTIVE));
        ERR(nc_get_vara_float(ncid, fv, s, c, f));
        for (size_t k = 0; k < FC; k++)
            if (f[k] != fval((size_t)r, k))
                FAIL("read back f[%d][%zu]", r, k);
        free(f);
    }
    ERR(nc_close(ncid));
    MPI_Finalize();
    return 0;
}
