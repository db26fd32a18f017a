/* fuzz_dap2.c: libFuzzer target for the DAP2 client: the DDS and DAS
 * parsers, the mapping into the classic model and the XDR decoder.
 *
 * An input is a .dods response (DDS text, "Data:" line, XDR values),
 * optionally followed by the separator "\n\0DAS\0\n" and a DAS.  They are
 * written as NAME.dods and NAME.das in a scratch directory (no NAME.dds: the
 * client takes the DDS from the .dods) and opened as file:///DIR/NAME; on
 * success every attribute is read, and every variable whole when small, else
 * its first element and a strided sample.  A crash, leak, sanitizer report
 * or oversized allocation is a bug in the library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "netcdf.h"

#define MAX_READ_BYTES (1u << 20)
static const char SEP[] = "\n\0DAS\0\n";
#define SEPLEN (sizeof SEP - 1)

static char dir[512];

static void
write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return;
    if (n > 0)
        fwrite(b, 1, n, f);
    fclose(f);
}

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
        (void)nc_get_att(ncid, varid, name, buf);
        if (t != NC_CHAR)
            (void)nc_get_att_double(ncid, varid, name, buf);
        free(buf);
    }
}

static void
read_var(int ncid, int varid)
{
    nc_type t;
    int ndims, natts, dimids[NC_MAX_VAR_DIMS];
    size_t shape[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    ptrdiff_t stride[NC_MAX_VAR_DIMS];
    double nelems = 1;
    if (nc_inq_var(ncid, varid, NULL, &t, &ndims, dimids, &natts))
        return;
    read_atts(ncid, varid, natts);
    for (int i = 0; i < ndims; i++) {
        if (nc_inq_dimlen(ncid, dimids[i], &shape[i]))
            return;
        nelems *= (double)shape[i];
        start[i] = 0;
    }
    if (nelems * 8 <= MAX_READ_BYTES) {
        size_t n = (size_t)nelems;
        void *b8 = malloc(n ? n * 8 : 1);
        if (b8 != NULL) {
            if (t == NC_CHAR) {
                (void)nc_get_var_text(ncid, varid, b8);
            } else {
                (void)nc_get_var(ncid, varid, b8);
                (void)nc_get_var_double(ncid, varid, b8);
            }
        }
        free(b8);
        return;
    }
    double d[512];
    size_t total = 1;
    for (int i = 0; i < ndims; i++) {
        count[i] = shape[i] < 2 ? shape[i] : 2;
        if (total * count[i] > 256)
            count[i] = 1;
        total *= count[i] ? count[i] : 1;
        stride[i] = shape[i] > 2 ? (ptrdiff_t)(shape[i] / 2) : 1;
    }
    if (t == NC_CHAR)
        (void)nc_get_vars_text(ncid, varid, start, count, stride, (char *)d);
    else
        (void)nc_get_vars_double(ncid, varid, start, count, stride, d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[600], url[600];
    const uint8_t *das = NULL;
    size_t dodslen = size, daslen = 0;
    int ncid, ndims, nvars, natts, unlim;

    if (dir[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/fuzz_dap2_%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
        mkdir(dir, 0700);
    }
    for (size_t i = 0; i + SEPLEN <= size; i++) {
        if (memcmp(data + i, SEP, SEPLEN) == 0) {
            dodslen = i;
            das = data + i + SEPLEN;
            daslen = size - i - SEPLEN;
            break;
        }
    }
    snprintf(path, sizeof path, "%s/x.dods", dir);
    write_file(path, data, dodslen);
    snprintf(path, sizeof path, "%s/x.das", dir);
    if (das != NULL)
        write_file(path, das, daslen);
    else
        remove(path);
    snprintf(url, sizeof url, "file://%s/x", dir);
    if (nc_open(url, NC_NOWRITE, &ncid) == NC_NOERR) {
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
    return 0;
}
