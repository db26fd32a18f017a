/* R: reads of a netCDF-4 file served over HTTP byte ranges (a loopback
 * rangeserver.py with 5 ms added per request, started by run.sh).
 *   nc_remote -k make -o FILE -m MIB
 *       writes v[MIB*64][4096] float, 1 MiB chunks (64x4096), shuffle +
 *       deflate 1, the smooth field of W5 (untimed input)
 *   nc_remote -k make20 -o FILE
 *       writes a 20-variable netCDF-4 file (t unlimited, 24 records, x =
 *       1000; deflate 1, 8x250 chunks, attributes) for ncdump -h
 *   nc_remote -k read -w WORKLOAD -u PATH_OR_URL -m MIB
 *       nc_open .. nc_get_var_float(v) .. nc_close of the MIB file, timed
 *       (phase read, bytes = the values delivered; open_s = the open); every
 *       value is checked afterwards (verify=ok|FAIL).  A URL (#mode=bytes or
 *       a reference store) against a library without byte-range support
 *       prints status=unavailable. */
#include <netcdf.h>
#include <netcdf_meta.h>
#include "bench_common.h"

#define COLS 4096
#define CROWS 64

static void usage(void)
{
    fprintf(stderr, "usage: nc_remote -k make -o FILE -m MIB | -k make20 -o FILE |\n"
                    "       nc_remote -k read -w WORKLOAD -u PATH_OR_URL -m MIB\n");
    exit(1);
}

static int make_big(const char *path, size_t mib)
{
    size_t rows = mib * 64, chunk[2] = {CROWS, COLS}, start[2] = {0, 0}, count[2] = {0, COLS};
    int ncid, dims[2], varid;
    float *buf = malloc((size_t)1024 * COLS * sizeof(float));
    if (buf == NULL) return 3;
    NC(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid));
    NC(nc_def_dim(ncid, "y", rows, &dims[0]));
    NC(nc_def_dim(ncid, "x", COLS, &dims[1]));
    NC(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &varid));
    NC(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunk));
    NC(nc_def_var_deflate(ncid, varid, 1, 1, 1));
    NC(nc_enddef(ncid));
    for (size_t r0 = 0; r0 < rows; r0 += 1024) {
        size_t n = rows - r0 < 1024 ? rows - r0 : 1024;
        fill_smooth(buf, r0, n, COLS, rows);
        start[0] = r0;
        count[0] = n;
        NC(nc_put_vara_float(ncid, varid, start, count, buf));
    }
    NC(nc_close(ncid));
    free(buf);
    return 0;
}

static int make20(const char *path)
{
    static const nc_type types[4] = {NC_FLOAT, NC_DOUBLE, NC_INT, NC_SHORT};
    size_t chunk[2] = {8, 250}, start[2] = {0, 0}, count[2] = {24, 1000};
    int ncid, dims[2], tv, varid[20];
    double *buf = malloc(24 * 1000 * sizeof(double));
    if (buf == NULL) return 3;
    NC(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid));
    NC(nc_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
    NC(nc_def_dim(ncid, "x", 1000, &dims[1]));
    NC(nc_def_var(ncid, "t", NC_DOUBLE, 1, dims, &tv));
    NC(nc_put_att_text(ncid, tv, "units", 21, "days since 2000-01-01"));
    for (int k = 0; k < 20; k++) {
        char name[16], ln[32];
        snprintf(name, sizeof(name), "v%02d", k);
        snprintf(ln, sizeof(ln), "variable %d", k);
        NC(nc_def_var(ncid, name, types[k % 4], 2, dims, &varid[k]));
        NC(nc_def_var_chunking(ncid, varid[k], NC_CHUNKED, chunk));
        NC(nc_def_var_deflate(ncid, varid[k], 0, 1, 1));
        NC(nc_put_att_text(ncid, varid[k], "long_name", strlen(ln), ln));
        NC(nc_put_att_text(ncid, varid[k], "units", 1, "K"));
    }
    NC(nc_put_att_text(ncid, NC_GLOBAL, "title", 16, "twenty variables"));
    NC(nc_enddef(ncid));
    for (size_t i = 0; i < 24; i++) buf[i] = (double)i;
    NC(nc_put_vara_double(ncid, tv, start, count, buf));
    for (int k = 0; k < 20; k++) {
        for (size_t i = 0; i < 24 * 1000; i++) buf[i] = (double)((i * 7919 + (size_t)k * 31) % 30011) - 15000;
        NC(nc_put_vara_double(ncid, varid[k], start, count, buf));
    }
    NC(nc_close(ncid));
    free(buf);
    return 0;
}

static int read_all(const char *wl, const char *url, size_t mib)
{
    size_t rows = mib * 64, total = rows * COLS, len;
    int ncid, varid, dimids[2], ndims;
    if (strstr(url, "://") != NULL && !NC_HAS_BYTERANGE) {
        print_unavailable(wl, "read", "no_byterange");
        return 0;
    }
    float *out = xmalloc_touched(total * sizeof(float));
    bench_phase ph;
    phase_begin(&ph);
    NC(nc_open(url, NC_NOWRITE, &ncid));
    double t_open = bench_now() - ph.t0;
    NC(nc_inq_varid(ncid, "v", &varid));
    NC(nc_inq_varndims(ncid, varid, &ndims));
    NC(nc_inq_vardimid(ncid, varid, dimids));
    if (ndims != 2) { fprintf(stderr, "nc_remote: v has %d dimensions\n", ndims); return 2; }
    NC(nc_inq_dimlen(ncid, dimids[0], &len));
    if (len != rows) { fprintf(stderr, "nc_remote: %zu rows, not %zu\n", len, rows); return 2; }
    NC(nc_get_var_float(ncid, varid, out));
    NC(nc_close(ncid));
    double t = bench_now() - ph.t0;

    /* every value is the field's (regenerated a slab at a time) */
    size_t bad = 0;
    float *want = malloc((size_t)1024 * COLS * sizeof(float));
    if (want == NULL) return 3;
    for (size_t r0 = 0; r0 < rows; r0 += 1024) {
        size_t n = rows - r0 < 1024 ? rows - r0 : 1024;
        fill_smooth(want, r0, n, COLS, rows);
        bad += memcmp(want, out + r0 * COLS, n * COLS * sizeof(float)) != 0;
    }
    free(want);
    ph.t0 = bench_now() - t;   /* the phase is open .. close, the check left out */
    phase_end(&ph, wl, "read", (double)(total * sizeof(float)), " open_s=%.4f verify=%s", t_open,
              bad ? "FAIL" : "ok");
    if (bad) fprintf(stderr, "nc_remote: %zu slabs differ\n", bad);
    free(out);
    return bad ? 2 : 0;
}

int main(int argc, char **argv)
{
    const char *kind = NULL, *out = NULL, *url = NULL, *wl = "R_read";
    size_t mib = 0;
    int c;
    while ((c = getopt(argc, argv, "k:o:u:m:w:")) != -1) {
        switch (c) {
        case 'k': kind = optarg; break;
        case 'o': out = optarg; break;
        case 'u': url = optarg; break;
        case 'm': mib = strtoul(optarg, NULL, 10); break;
        case 'w': wl = optarg; break;
        default: usage();
        }
    }
    if (kind == NULL) usage();
    if (!strcmp(kind, "make") && out && mib) return make_big(out, mib);
    if (!strcmp(kind, "make20") && out) return make20(out);
    if (!strcmp(kind, "read") && url && mib) return read_all(wl, url, mib);
    usage();
    return 1;
}
