/* fuzz_open_classic.c: libFuzzer target for the classic-format header
 * reader and data path.
 *
 * Each input is opened as an in-memory file (nc_open_mem); on success every
 * dimension, attribute (with its values) and variable is inquired, and each
 * variable is read whole when it is small, else by a few single elements and
 * a strided sample, both as its own type and as double.  Any crash, leak,
 * sanitizer report or oversized allocation is a bug in the library.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "netcdf_mem.h"

#define MAX_READ_BYTES (1u << 20)   /* whole-variable reads up to this size */

static void
read_atts(int ncid, int varid, int natts)
{
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len;
        if (nc_inq_attname(ncid, varid, a, name) || nc_inq_att(ncid, varid, name, &t, &len))
            continue;
        if (len > MAX_READ_BYTES)
            continue;
        void *buf = malloc(len * 8 + 1);
        if (buf == NULL)
            continue;
        if (t == NC_CHAR) {
            (void)nc_get_att_text(ncid, varid, name, buf);
        } else {
            (void)nc_get_att(ncid, varid, name, buf);
            (void)nc_get_att_double(ncid, varid, name, buf);
        }
        free(buf);
    }
}

static void
read_var(int ncid, int varid)
{
    char name[NC_MAX_NAME + 1];
    nc_type t;
    int ndims, natts, dimids[NC_MAX_VAR_DIMS], nofill;
    size_t shape[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    ptrdiff_t stride[NC_MAX_VAR_DIMS];
    unsigned char fill[64];
    double nelems = 1;
    if (nc_inq_var(ncid, varid, name, &t, &ndims, dimids, &natts))
        return;
    read_atts(ncid, varid, natts);
    (void)nc_inq_var_fill(ncid, varid, &nofill, NULL);
    if (natts == 0)
        (void)nc_inq_var_fill(ncid, varid, &nofill, fill);
    for (int i = 0; i < ndims; i++) {
        if (nc_inq_dimlen(ncid, dimids[i], &shape[i]))
            return;
        nelems *= (double)shape[i];
        start[i] = 0;
    }
    if (nelems * 8 <= MAX_READ_BYTES) {
        /* Buffers of the exact size, so an overrun is caught. */
        size_t n = (size_t)nelems, tsize = 1;
        void *b1 = malloc(n ? n : 1), *b8 = malloc(n ? n * 8 : 1), *bt;
        (void)nc_inq_type(ncid, t, NULL, &tsize);
        bt = malloc(n && tsize ? n * tsize : 1);
        if (b1 && b8 && bt) {
            if (t == NC_CHAR) {
                (void)nc_get_var_text(ncid, varid, b1);
            } else {
                (void)nc_get_var(ncid, varid, bt);
                (void)nc_get_var_double(ncid, varid, b8);
                (void)nc_get_var_schar(ncid, varid, b1);
                (void)nc_get_var_ushort(ncid, varid, b8);
            }
        }
        free(b1);
        free(b8);
        free(bt);
        return;
    }
    /* Large: first and last element, and a strided sample of up to 8 per dim. */
    {
        double d[512];
        char c[512];
        for (int i = 0; i < ndims; i++)
            start[i] = shape[i] ? shape[i] - 1 : 0;
        if (t == NC_CHAR) {
            (void)nc_get_var1_text(ncid, varid, start, c);
        } else {
            (void)nc_get_var1_double(ncid, varid, start, d);
        }
        size_t total = 1;
        for (int i = 0; i < ndims; i++) {
            start[i] = 0;
            count[i] = shape[i] < 2 ? shape[i] : 2;
            if (total * count[i] > 256)
                count[i] = 1;
            total *= count[i] ? count[i] : 1;
            stride[i] = shape[i] > 2 ? (ptrdiff_t)(shape[i] / 2) : 1;
        }
        if (t == NC_CHAR)
            (void)nc_get_vars_text(ncid, varid, start, count, stride, c);
        else
            (void)nc_get_vars_double(ncid, varid, start, count, stride, d);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int ncid, ndims, nvars, natts, unlim, fmt;
    void *copy;
    if (size < 4)
        return 0;
    if ((copy = malloc(size)) == NULL)
        return 0;
    memcpy(copy, data, size);
    if (nc_open_mem("fuzz.nc", NC_NOWRITE, size, copy, &ncid) == NC_NOERR) {
        (void)nc_inq_format(ncid, &fmt);
        if (nc_inq(ncid, &ndims, &nvars, &natts, &unlim) == NC_NOERR) {
            for (int d = 0; d < ndims; d++) {
                char name[NC_MAX_NAME + 1];
                size_t len;
                (void)nc_inq_dim(ncid, d, name, &len);
            }
            read_atts(ncid, NC_GLOBAL, natts);
            for (int v = 0; v < nvars; v++)
                read_var(ncid, v);
        }
        (void)nc_close(ncid);
    }
    free(copy);
    return 0;
}
