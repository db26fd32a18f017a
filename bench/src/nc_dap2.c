/* D2: reads of a float variable v[z][y][x] of a DAP2 dataset served by
 * dap2serve.py (values pattern_value(linear index), see dap2gen.py).
 *   nc_dap2 -u URL -v VAR -z NZ -y NY -x NX -k stride [-s S]
 *       nc_get_vars_float of the whole variable at stride S (default 4) in
 *       every dimension; phase get_vars, bytes = the values delivered
 *   nc_dap2 -u URL -v VAR -z NZ -y NY -x NX -k full
 *       nc_get_var_float of the whole variable; phase get_var
 * The phase covers nc_open .. nc_close (the open's DDS and DAS requests are
 * part of what a client pays); the output buffer is allocated and touched
 * before it.  open_s = the nc_open part.  Every value delivered is checked
 * afterwards (verify=ok|FAIL). */
#include <netcdf.h>
#include "bench_common.h"

static void usage(void)
{
    fprintf(stderr, "usage: nc_dap2 -u URL -v VAR -z NZ -y NY -x NX -k stride|full [-s STRIDE]\n");
    exit(1);
}

int main(int argc, char **argv)
{
    const char *url = NULL, *var = NULL, *kind = NULL;
    size_t n[3] = {0, 0, 0};
    long s = 4;
    int c;
    while ((c = getopt(argc, argv, "u:v:z:y:x:k:s:")) != -1) {
        switch (c) {
        case 'u': url = optarg; break;
        case 'v': var = optarg; break;
        case 'z': n[0] = strtoul(optarg, NULL, 10); break;
        case 'y': n[1] = strtoul(optarg, NULL, 10); break;
        case 'x': n[2] = strtoul(optarg, NULL, 10); break;
        case 'k': kind = optarg; break;
        case 's': s = strtol(optarg, NULL, 10); break;
        default: usage();
        }
    }
    if (!url || !var || !kind || !n[0] || !n[1] || !n[2] || s < 1) usage();
    int strided = !strcmp(kind, "stride");
    if (!strided && strcmp(kind, "full")) usage();
    if (!strided) s = 1;
    size_t cnt[3], start[3] = {0, 0, 0};
    ptrdiff_t stride[3] = {s, s, s};
    for (int d = 0; d < 3; d++) cnt[d] = (n[d] + (size_t)s - 1) / (size_t)s;
    size_t total = cnt[0] * cnt[1] * cnt[2];
    float *out = xmalloc_touched(total * sizeof(float));

    bench_phase ph;
    phase_begin(&ph);
    int ncid, varid, ndims, dimids[NC_MAX_VAR_DIMS];
    NC(nc_open(url, NC_NOWRITE, &ncid));
    double t_open = bench_now() - ph.t0;
    NC(nc_inq_varid(ncid, var, &varid));
    NC(nc_inq_varndims(ncid, varid, &ndims));
    NC(nc_inq_vardimid(ncid, varid, dimids));
    if (ndims != 3) { fprintf(stderr, "nc_dap2: %s has %d dimensions\n", var, ndims); return 2; }
    for (int d = 0; d < 3; d++) {
        size_t len;
        NC(nc_inq_dimlen(ncid, dimids[d], &len));
        if (len != n[d]) { fprintf(stderr, "nc_dap2: dimension %d is %zu, not %zu\n", d, len, n[d]); return 2; }
    }
    if (strided) NC(nc_get_vars_float(ncid, varid, start, cnt, stride, out));
    else NC(nc_get_var_float(ncid, varid, out));
    NC(nc_close(ncid));
    double t = bench_now() - ph.t0;

    /* every value delivered is the source's value at the strided index */
    size_t bad = 0;
    for (size_t k = 0; k < cnt[0]; k++)
        for (size_t j = 0; j < cnt[1]; j++) {
            const float *row = out + (k * cnt[1] + j) * cnt[2];
            uint64_t base = ((uint64_t)k * (uint64_t)s * n[1] + (uint64_t)j * (uint64_t)s) * n[2];
            for (size_t i = 0; i < cnt[2]; i++)
                if (row[i] != pattern_value(base + (uint64_t)i * (uint64_t)s)) bad++;
        }
    /* phase_end measures up to now: move the start so that it reports t,
       leaving the check above out of the phase */
    ph.t0 = bench_now() - t;
    phase_end(&ph, strided ? "D2_stride" : "D2_read", strided ? "get_vars" : "get_var",
              (double)(total * sizeof(float)), " limit=%s open_s=%.4f verify=%s",
              strided ? "d2_http_stride" : "d2_http_full", t_open, bad ? "FAIL" : "ok");
    if (bad) fprintf(stderr, "nc_dap2: %zu wrong values\n", bad);
    free(out);
    return bad ? 2 : 0;
}
