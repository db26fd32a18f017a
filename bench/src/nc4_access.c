/* W9 and W10: netCDF-4 access patterns that are slow upstream.
 *  W9  strided: a chunked 2-D float variable (rows x 1024, chunks 64 x 256),
 *      written once untimed, then read with nc_get_vars at stride 4 in both
 *      dimensions (bytes = the values delivered).  Upstream: nc#1381.
 *  W10 open:   nc_open + nc_close of a small netCDF-4 file (3 dims, 8
 *      variables with attributes, one group) ITER times; bytes = file size
 *      times ITER, and opens_per_s is printed.  Upstream: nc#3183. */
#include <netcdf.h>
#include "bench_common.h"

static void usage(void)
{
    fprintf(stderr, "usage: nc4_access -d DIR -k strided|open [-m MIB] [-i ITER]\n"
                    "  defaults: -m 64 (strided variable size) -i 2000 (opens)\n");
    exit(1);
}

static void strided(const char *dir, size_t mib)
{
    char path[4096];
    const size_t ncols = 1024;
    size_t nrows = mib * 1024 * 1024 / (ncols * sizeof(float));
    if (nrows < 64) nrows = 64;
    snprintf(path, sizeof path, "%s/w9.nc", dir);
    int ncid, dims[2], varid;
    size_t chunks[2] = {64, 256};
    NC(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid));
    NC(nc_def_dim(ncid, "y", nrows, &dims[0]));
    NC(nc_def_dim(ncid, "x", ncols, &dims[1]));
    NC(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &varid));
    NC(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
    NC(nc_enddef(ncid));
    float *row = xmalloc_touched(64 * ncols * sizeof(float));
    for (size_t r = 0; r < nrows; r += 64) {
        size_t n = nrows - r < 64 ? nrows - r : 64;
        for (size_t i = 0; i < n * ncols; i++) row[i] = (float)(r * ncols + i);
        size_t start[2] = {r, 0}, count[2] = {n, ncols};
        NC(nc_put_vara_float(ncid, varid, start, count, row));
    }
    NC(nc_close(ncid));
    free(row);

    size_t ry = (nrows + 3) / 4, rx = ncols / 4;
    float *out = xmalloc_touched(ry * rx * sizeof(float));
    bench_phase ph;
    phase_begin(&ph);
    NC(nc_open(path, NC_NOWRITE, &ncid));
    size_t start[2] = {0, 0}, count[2] = {ry, rx};
    ptrdiff_t stride[2] = {4, 4};
    NC(nc_get_vars_float(ncid, 0, start, count, stride, out));
    NC(nc_close(ncid));
    phase_end(&ph, "W9_strided", "read_stride4", (double)(ry * rx * sizeof(float)), NULL);
    /* spot check: the value at (i,j) is (4i)*ncols + 4j */
    size_t i = ry / 2, j = rx / 3;
    if (out[i * rx + j] != (float)(4 * i * ncols + 4 * j)) {
        fprintf(stderr, "W9: wrong value read\n");
        exit(2);
    }
    free(out);
}

static void opens(const char *dir, int iters)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/w10.nc", dir);
    int ncid, grp, dims[3], varid;
    NC(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid));
    NC(nc_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
    NC(nc_def_dim(ncid, "lat", 10, &dims[1]));
    NC(nc_def_dim(ncid, "lon", 20, &dims[2]));
    NC(nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "bench"));
    for (int v = 0; v < 8; v++) {
        char name[32];
        snprintf(name, sizeof name, "var%d", v);
        NC(nc_def_var(ncid, name, NC_FLOAT, 3, dims, &varid));
        NC(nc_put_att_text(ncid, varid, "units", 1, "K"));
    }
    NC(nc_def_grp(ncid, "sub", &grp));
    NC(nc_def_var(grp, "s", NC_INT, 1, &dims[1], &varid));
    NC(nc_close(ncid));
    struct stat st;
    if (stat(path, &st) != 0) exit(2);

    bench_phase ph;
    phase_begin(&ph);
    for (int i = 0; i < iters; i++) {
        NC(nc_open(path, NC_NOWRITE, &ncid));
        NC(nc_close(ncid));
    }
    double t = phase_end(&ph, "W10_open", "open_close", (double)st.st_size * iters,
                         " opens=%d", iters);
    (void)t;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *kind = NULL;
    size_t mib = 64;
    int iters = 2000, c;
    while ((c = getopt(argc, argv, "d:k:m:i:")) != -1) {
        switch (c) {
        case 'd': dir = optarg; break;
        case 'k': kind = optarg; break;
        case 'm': mib = strtoul(optarg, NULL, 10); break;
        case 'i': iters = atoi(optarg); break;
        default: usage();
        }
    }
    if (!dir || !kind) usage();
    if (!strcmp(kind, "strided")) strided(dir, mib ? mib : 1);
    else if (!strcmp(kind, "open")) opens(dir, iters > 0 ? iters : 1);
    else usage();
    return 0;
}
