/* nc_zarr: Zarr read-all workload (zarrs' benchmark shape, scaled down).
 *
 *   nc_zarr -d DIR [-n N] [-c C] [-k plain|shard] [-l LEVEL] [-K]
 *
 * An N^3 uint16 array in C^3 chunks, zstd level LEVEL (default 512, 128, 1):
 *   plain  pure Zarr v2 ("#mode=zarr,file"): one object per chunk, which
 *          zarr-python 2 reads too (bench/src/nc_zarr_py.py, same run);
 *   shard  Zarr v3 with sharding_indexed ("#mode=zarr,v3,file,shard"):
 *          shards of 4^3 inner chunks.
 * Phases: write (create, put the whole array, close) and read (open, get the
 * whole array, close).  Output as bench_common.h; workload Z_<kind>_zstd.
 * -K keeps the store (DIR/z_<kind>.zarr) for the zarr-python reader.
 */
#include "bench_common.h"
#include <netcdf.h>

#define NC(e)                                                                         \
    do {                                                                              \
        int s_ = (e);                                                                 \
        if (s_) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #e, nc_strerror(s_)); \
            exit(3);                                                                  \
        }                                                                             \
    } while (0)

static void
usage(void)
{
    fprintf(stderr, "usage: nc_zarr -d DIR [-n N] [-c C] [-k plain|shard] [-l LEVEL] [-K]\n");
    exit(2);
}

static long long
tree_bytes(const char *path)
{
    char cmd[4300];
    long long n = -1;
    FILE *p;
    snprintf(cmd, sizeof cmd, "du -sb '%s' 2>/dev/null", path);
    if ((p = popen(cmd, "r")) != NULL) {
        if (fscanf(p, "%lld", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static void
rm_tree(const char *path)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: %s failed\n", cmd);
}

int
main(int argc, char **argv)
{
    const char *dir = NULL, *kind = "plain";
    size_t n = 512, c = 128;
    unsigned level = 1;
    int keep = 0, opt;
    while ((opt = getopt(argc, argv, "d:n:c:k:l:K")) != -1) {
        switch (opt) {
        case 'd': dir = optarg; break;
        case 'n': n = (size_t)atol(optarg); break;
        case 'c': c = (size_t)atol(optarg); break;
        case 'k': kind = optarg; break;
        case 'l': level = (unsigned)atoi(optarg); break;
        case 'K': keep = 1; break;
        default: usage();
        }
    }
    if (!dir || !n || !c || (strcmp(kind, "plain") && strcmp(kind, "shard")))
        usage();
    char fspath[4096], url[4300], wl[64];
    snprintf(fspath, sizeof fspath, "%s/z_%s.zarr", dir, kind);
    snprintf(url, sizeof url, "file://%s#mode=%s", fspath,
             strcmp(kind, "plain") ? "zarr,v3,file,shard" : "zarr,file");
    snprintf(wl, sizeof wl, "Z_%s_zstd%u", kind, level);
    size_t total = n * n * n;
    double bytes = (double)total * 2;
    unsigned short *src = xmalloc_touched(total * 2);
    /* Smooth data with some noise: compresses like a real field. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < n; k++) {
                size_t x = (i * n + j) * n + k;
                src[x] = (unsigned short)((i * 3 + j * 5 + k * 7) + (bench_mix64(x) & 7));
            }
    rm_tree(fspath);
    bench_phase ph;
    int ncid, varid, dims[3];
    size_t chunks[3] = {c, c, c};
    unsigned params[1] = {level};
    phase_begin(&ph);
    NC(nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid));
    NC(nc_def_dim(ncid, "z", n, &dims[0]));
    NC(nc_def_dim(ncid, "y", n, &dims[1]));
    NC(nc_def_dim(ncid, "x", n, &dims[2]));
    NC(nc_def_var(ncid, "data", NC_USHORT, 3, dims, &varid));
    NC(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
    NC(nc_def_var_filter(ncid, varid, 32015, 1, params));
    NC(nc_enddef(ncid));
    NC(nc_put_var_ushort(ncid, varid, src));
    NC(nc_close(ncid));
    double tw = bench_now() - ph.t0;
    long long fb = tree_bytes(fspath);
    ph.t0 = bench_now() - tw;
    phase_end(&ph, wl, "write", bytes, " file_bytes=%lld comp_ratio=%.3f", fb, fb > 0 ? bytes / (double)fb : 0.0);

    unsigned short *dst = xmalloc_touched(total * 2);
    phase_begin(&ph);
    NC(nc_open(url, NC_NOWRITE, &ncid));
    NC(nc_inq_varid(ncid, "data", &varid));
    NC(nc_get_var_ushort(ncid, varid, dst));
    NC(nc_close(ncid));
    double tr = bench_now() - ph.t0;
    int ok = memcmp(src, dst, total * 2) == 0;
    ph.t0 = bench_now() - tr;
    phase_end(&ph, wl, "read", bytes, " verify=%s", ok ? "ok" : "FAIL");
    free(src);
    free(dst);
    if (!keep)
        rm_tree(fspath);
    return ok ? 0 : 4;
}
