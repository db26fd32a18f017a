/* tst_h5read_plain.c: reads of unfiltered datasets of a read-only netCDF-4
 * file that go straight to the file (hdf5data.c with the chunk engine's
 * ncc_plain_read), checked against a model of the values:
 *   - strided reads of chunked variables with chunks never written (they
 *     read as the fill value: the variable's _FillValue, or the default
 *     one), in both byte orders, and a chunk shape that does not divide the
 *     extent;
 *   - large (over 4 MiB) reads of contiguous variables: big-endian ints read
 *     as int, double and short (NC_ERANGE, in-range values exact), a
 *     little-endian float read as double, sub-boxes, and a 3-D variable
 *     whose planes are larger than a piece. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include "nctst.h"

#define FILE_NAME "tst_h5read_plain.nc"

/* ---- chunked, strided, chunks not written ------------------------------------------ */

#define CR 40
#define CC 50

static int
cval(size_t r, size_t c)
{
    return (int)(r * 1000 + c) - 7000;
}

/* Written: rows [8, 24) x cols [10, 30) and the last chunk row's first
 * chunk (rows [32, 40) x cols [0, 10)); the rest never. */
static int
written(size_t r, size_t c)
{
    return (r >= 8 && r < 24 && c >= 10 && c < 30) || (r >= 32 && c < 10);
}

static void
write_chunked(int ncid, int varid)
{
    size_t start[2], count[2];
    /* Two boxes, each a run of whole chunks. */
    start[0] = 8, start[1] = 10, count[0] = 16, count[1] = 20;
    {
        static int box[16 * 20];
        for (size_t r = 0; r < 16; r++)
            for (size_t c = 0; c < 20; c++)
                box[r * 20 + c] = cval(8 + r, 10 + c);
        OK(nc_put_vara_int(ncid, varid, start, count, box));
    }
    start[0] = 32, start[1] = 0, count[0] = 8, count[1] = 10;
    {
        static int box[8 * 10];
        for (size_t r = 0; r < 8; r++)
            for (size_t c = 0; c < 10; c++)
                box[r * 10 + c] = cval(32 + r, c);
        OK(nc_put_vara_int(ncid, varid, start, count, box));
    }
}

static void
check_strided(int ncid, const char *name, int fill)
{
    static const struct { size_t st[2]; ptrdiff_t sd[2]; } cases[] = {
        {{0, 0}, {2, 2}}, {{1, 3}, {3, 4}}, {{5, 1}, {2, 7}}, {{0, 9}, {4, 3}}, {{7, 0}, {5, 2}},
    };
    int varid;
    OK(nc_inq_varid(ncid, name, &varid));
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        size_t count[2];
        int out[CR * CC], nbad = 0, nfill = 0;
        for (int d = 0; d < 2; d++)
            count[d] = ((d ? CC : CR) - 1 - cases[k].st[d]) / (size_t)cases[k].sd[d] + 1;
        OK(nc_get_vars_int(ncid, varid, cases[k].st, count, cases[k].sd, out));
        for (size_t i = 0; i < count[0]; i++)
            for (size_t j = 0; j < count[1]; j++) {
                size_t r = cases[k].st[0] + i * (size_t)cases[k].sd[0];
                size_t c = cases[k].st[1] + j * (size_t)cases[k].sd[1];
                int want = written(r, c) ? cval(r, c) : fill;
                nfill += !written(r, c);
                if (out[i * count[1] + j] != want && nbad++ < 3)
                    CHECK(0, "%s case %zu: [%zu][%zu] = %d, want %d", name, k, r, c, out[i * count[1] + j], want);
            }
        CHECK(nbad == 0, "%s case %zu: %d wrong values", name, k, nbad);
        CHECK(nfill > 0, "%s case %zu: no chunk never written in the selection", name, k);
    }
}

/* ---- contiguous, large -------------------------------------------------------------- */

#define BR 1030
#define BC 1031
#define P0 2
#define P1 1100
#define P2 1000

static int
bval(size_t i)
{
    return (int)(i * 37 % 200003) - 100000; /* some fit a short, most do not */
}

static float
fval(size_t i)
{
    return (float)i * 0.25f - 12345.5f;
}

static void
check_big(int ncid)
{
    int varid, fvarid, pvarid, nbad;
    size_t n = (size_t)BR * BC;
    int *iv = malloc(n * sizeof(int));
    double *dv = malloc(n * sizeof(double));
    short *sv = malloc(n * sizeof(short));
    float *pv = malloc((size_t)P0 * P1 * P2 * sizeof(float));
    if (!iv || !dv || !sv || !pv) {
        CHECK(0, "out of memory");
        goto out;
    }
    OK(nc_inq_varid(ncid, "big_be", &varid));
    OK(nc_inq_varid(ncid, "flt", &fvarid));
    OK(nc_inq_varid(ncid, "planes", &pvarid));

    /* Whole, as stored (byte swap only). */
    OK(nc_get_var_int(ncid, varid, iv));
    nbad = 0;
    for (size_t i = 0; i < n; i++)
        nbad += iv[i] != bval(i);
    CHECK(nbad == 0, "big_be as int: %d wrong", nbad);

    /* Whole, converted to double. */
    OK(nc_get_var_double(ncid, varid, dv));
    nbad = 0;
    for (size_t i = 0; i < n; i++)
        nbad += dv[i] != (double)bval(i);
    CHECK(nbad == 0, "big_be as double: %d wrong", nbad);

    /* To short: NC_ERANGE, every value that fits exact. */
    EXPECT(nc_get_var_short(ncid, varid, sv), NC_ERANGE);
    nbad = 0;
    for (size_t i = 0; i < n; i++)
        if (bval(i) >= -32768 && bval(i) <= 32767)
            nbad += sv[i] != (short)bval(i);
    CHECK(nbad == 0, "big_be as short: %d wrong", nbad);

    /* A sub-box over 4 MiB of doubles (pieces copied, not read in place). */
    {
        size_t start[2] = {3, 5}, count[2] = {BR - 3, 1022};
        OK(nc_get_vara_double(ncid, varid, start, count, dv));
        nbad = 0;
        for (size_t r = 0; r < count[0]; r++)
            for (size_t c = 0; c < count[1]; c++)
                nbad += dv[r * count[1] + c] != (double)bval((start[0] + r) * BC + start[1] + c);
        CHECK(nbad == 0, "big_be sub-box as double: %d wrong", nbad);
    }

    /* A little-endian float read as double. */
    OK(nc_get_var_double(ncid, fvarid, dv));
    nbad = 0;
    for (size_t i = 0; i < n; i++)
        nbad += dv[i] != (double)fval(i);
    CHECK(nbad == 0, "flt as double: %d wrong", nbad);

    /* Planes larger than a piece: cut along their rows. */
    OK(nc_get_var_float(ncid, pvarid, pv));
    nbad = 0;
    for (size_t i = 0; i < (size_t)P0 * P1 * P2; i++)
        nbad += pv[i] != fval(i);
    CHECK(nbad == 0, "planes: %d wrong", nbad);
    {
        size_t start[3] = {1, 17, 0}, count[3] = {1, 1083, P2};
        OK(nc_get_vara_float(ncid, pvarid, start, count, pv));
        nbad = 0;
        for (size_t r = 0; r < count[1]; r++)
            for (size_t c = 0; c < P2; c++)
                nbad += pv[r * P2 + c] != fval(((size_t)1 * P1 + 17 + r) * P2 + c);
        CHECK(nbad == 0, "planes sub-box: %d wrong", nbad);
    }
out:
    free(iv);
    free(dv);
    free(sv);
    free(pv);
}

static void
write_big(int ncid)
{
    size_t n = (size_t)BR * BC, np = (size_t)P0 * P1 * P2;
    int *iv = malloc(n * sizeof(int));
    float *fv = malloc((np > n ? np : n) * sizeof(float));
    int varid;
    if (!iv || !fv) {
        CHECK(0, "out of memory");
        free(iv);
        free(fv);
        return;
    }
    for (size_t i = 0; i < n; i++)
        iv[i] = bval(i);
    OK(nc_inq_varid(ncid, "big_be", &varid));
    OK(nc_put_var_int(ncid, varid, iv));
    for (size_t i = 0; i < np; i++)
        fv[i] = fval(i);
    OK(nc_inq_varid(ncid, "flt", &varid));
    OK(nc_put_var_float(ncid, varid, fv));
    OK(nc_inq_varid(ncid, "planes", &varid));
    OK(nc_put_var_float(ncid, varid, fv));
    free(iv);
    free(fv);
}

int
main(void)
{
    int ncid, dims[2], bdims[2], pdims[3], varid;
    size_t chunks[2] = {8, 10}, odd[2] = {7, 9};
    int fill = -99;

    OK(nc_create(FILE_NAME, NC_NETCDF4 | NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "r", CR, &dims[0]));
    OK(nc_def_dim(ncid, "c", CC, &dims[1]));
    /* _FillValue set, native order. */
    OK(nc_def_var(ncid, "c_fill", NC_INT, 2, dims, &varid));
    OK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
    OK(nc_def_var_fill(ncid, varid, NC_FILL, &fill));
    /* The default fill value, big-endian. */
    OK(nc_def_var(ncid, "c_be", NC_INT, 2, dims, &varid));
    OK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
    OK(nc_def_var_endian(ncid, varid, NC_ENDIAN_BIG));
    /* Chunks that do not divide the extent. */
    OK(nc_def_var(ncid, "c_odd", NC_INT, 2, dims, &varid));
    OK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, odd));
    OK(nc_def_var_fill(ncid, varid, NC_FILL, &fill));

    OK(nc_def_dim(ncid, "br", BR, &bdims[0]));
    OK(nc_def_dim(ncid, "bc", BC, &bdims[1]));
    OK(nc_def_var(ncid, "big_be", NC_INT, 2, bdims, &varid));
    OK(nc_def_var_chunking(ncid, varid, NC_CONTIGUOUS, NULL));
    OK(nc_def_var_endian(ncid, varid, NC_ENDIAN_BIG));
    OK(nc_def_var(ncid, "flt", NC_FLOAT, 2, bdims, &varid));
    OK(nc_def_var_chunking(ncid, varid, NC_CONTIGUOUS, NULL));
    OK(nc_def_var_endian(ncid, varid, NC_ENDIAN_LITTLE));
    OK(nc_def_dim(ncid, "p0", P0, &pdims[0]));
    OK(nc_def_dim(ncid, "p1", P1, &pdims[1]));
    OK(nc_def_dim(ncid, "p2", P2, &pdims[2]));
    OK(nc_def_var(ncid, "planes", NC_FLOAT, 3, pdims, &varid));
    OK(nc_def_var_chunking(ncid, varid, NC_CONTIGUOUS, NULL));
    OK(nc_enddef(ncid));
    for (int v = 0; v < 3; v++)
        write_chunked(ncid, v);
    write_big(ncid);
    OK(nc_close(ncid));

    OK(nc_open(FILE_NAME, NC_NOWRITE, &ncid));
    check_strided(ncid, "c_fill", fill);
    check_strided(ncid, "c_be", NC_FILL_INT);
    check_strided(ncid, "c_odd", fill);
    check_big(ncid);
    OK(nc_close(ncid));
    remove(FILE_NAME);
    return nct_summary("tst_h5read_plain");
}
