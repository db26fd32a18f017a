/* nc_bigread (workload B): one large read of a classic file in a single
 * call, the case a library can split across cores by itself.
 * The file (CDF-2) holds a float variable of M MiB [M*64][4096].  Phases,
 * each one call on a handle opened read-only, after an untimed warm-up
 * read (page cache):
 *   vara_float   nc_get_vara_float of the whole variable (byte swap)
 *   vara_double  nc_get_vara_double of the whole variable (conversion)
 *   vars_float   nc_get_vars_float, stride 2 on the last dimension
 * bytes = bytes delivered to the caller.  Values are checked outside the
 * timed region. */
#include <netcdf.h>
#include "bench_common.h"

#define NCOLS 4096

static void usage(void)
{
    fprintf(stderr, "usage: nc_bigread -d DIR [-m MIB]   (MIB >= 1, default 128)\n");
    exit(1);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    size_t mib = 128;
    char path[4200];
    int c, ncid, dims[2], varid;
    while ((c = getopt(argc, argv, "d:m:")) != -1) {
        switch (c) {
        case 'd': dir = optarg; break;
        case 'm': mib = (size_t)strtoul(optarg, NULL, 10); break;
        default: usage();
        }
    }
    if (!dir || mib < 1) usage();
    size_t nrows = mib * 1048576 / sizeof(float) / NCOLS, n = nrows * NCOLS;
    snprintf(path, sizeof path, "%s/bigread.nc", dir);

    /* make the file (untimed) */
    float *data = xmalloc_touched(n * sizeof(float));
    fill_pattern(data, n, 0);
    NC(nc_create(path, NC_CLOBBER | NC_64BIT_OFFSET, &ncid));
    NC(nc_set_fill(ncid, NC_NOFILL, NULL));
    NC(nc_def_dim(ncid, "y", nrows, &dims[0]));
    NC(nc_def_dim(ncid, "x", NCOLS, &dims[1]));
    NC(nc_def_var(ncid, "data", NC_FLOAT, 2, dims, &varid));
    NC(nc_enddef(ncid));
    {
        size_t start[2] = {0, 0}, count[2] = {nrows, NCOLS};
        NC(nc_put_vara_float(ncid, varid, start, count, data));
    }
    NC(nc_close(ncid));

    float *outf = xmalloc_touched(n * sizeof(float));
    double *outd = xmalloc_touched(n * sizeof(double));
    size_t start[2] = {0, 0}, count[2] = {nrows, NCOLS};
    size_t scount[2] = {nrows, NCOLS / 2};
    ptrdiff_t stride[2] = {1, 2};
    bench_phase ph;
    int ok = 1;
    NC(nc_open(path, NC_NOWRITE, &ncid));
    NC(nc_get_vara_float(ncid, varid, start, count, outf));    /* warm */

    memset(outf, 0, n * sizeof(float));
    phase_begin(&ph);
    NC(nc_get_vara_float(ncid, varid, start, count, outf));
    phase_end(&ph, "B_bigread", "vara_float", (double)n * sizeof(float), NULL);
    ok = ok && memcmp(outf, data, n * sizeof(float)) == 0;

    phase_begin(&ph);
    NC(nc_get_vara_double(ncid, varid, start, count, outd));
    phase_end(&ph, "B_bigread", "vara_double", (double)n * sizeof(double), NULL);
    for (size_t i = 0; i < n && ok; i++)
        ok = outd[i] == (double)data[i];

    memset(outf, 0, n * sizeof(float));
    phase_begin(&ph);
    NC(nc_get_vars_float(ncid, varid, start, scount, stride, outf));
    phase_end(&ph, "B_bigread", "vars_float", (double)n / 2 * sizeof(float), NULL);
    for (size_t i = 0; i < n / 2 && ok; i++)
        ok = outf[i] == data[2 * i];
    NC(nc_close(ncid));
    remove(path);
    printf("workload=B_bigread phase=verify status=%s\n", ok ? "ok" : "failed");
    return ok ? 0 : 4;
}
