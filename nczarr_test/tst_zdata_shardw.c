/* tst_zdata_shardw.c: partial writes of sharded Zarr v3 arrays, which go
 * by inner chunk (the inner chunks a write does not touch keep their
 * stored bytes): boxes covering whole inner chunks, parts of them, strides,
 * writes across shards, absent shards and inner chunks (fill), reads in
 * between (which flush), a tiny cache, close/reopen; every result checked
 * against a copy kept in memory; and the stored bytes of an untouched
 * inner chunk stay the same.  Usage: tst_zdata_shardw DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "netcdf_filter.h"
#include "nctst.h"

#define NZ 12
#define NY 12
#define NX 16
static int ref[NZ][NY][NX];
static char url[8300], path[4096];

static unsigned rnd_state = 12345;
static unsigned
rnd(unsigned n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 16) % n;
}

static void
put_box(int ncid, int v, const size_t *st, const size_t *ct, const ptrdiff_t *sd, int salt)
{
    size_t n = ct[0] * ct[1] * ct[2];
    int *b = malloc((n ? n : 1) * sizeof(int));
    for (size_t i = 0; i < n; i++)
        b[i] = salt * 1000 + (int)i;
    OK(nc_put_vars_int(ncid, v, st, ct, sd, b));
    for (size_t z = 0; z < ct[0]; z++)
        for (size_t y = 0; y < ct[1]; y++)
            for (size_t x = 0; x < ct[2]; x++)
                ref[st[0] + z * sd[0]][st[1] + y * sd[1]][st[2] + x * sd[2]] = b[(z * ct[1] + y) * ct[2] + x];
    free(b);
}

static int
check_all(int ncid, int v, const char *what)
{
    static int got[NZ][NY][NX];
    int bad = 0;
    if (nc_get_var_int(ncid, v, &got[0][0][0]) != NC_NOERR) {
        CHECK(0, "read %s", what);
        return 1;
    }
    for (int z = 0; z < NZ; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++)
                if (got[z][y][x] != ref[z][y][x] && bad++ < 3)
                    fprintf(stderr, "%s: [%d][%d][%d] %d want %d\n", what, z, y, x, got[z][y][x], ref[z][y][x]);
    CHECK(bad == 0, "%s: %d wrong", what, bad);
    return bad;
}

static long
file_size(const char *rel)
{
    char p[8300];
    FILE *f;
    long n;
    snprintf(p, sizeof(p), "%s/%s", path, rel);
    if ((f = fopen(p, "rb")) == NULL)
        return -1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fclose(f);
    return n;
}

int
main(int argc, char **argv)
{
    int ncid, dims[3], v;
    size_t inner[3] = {2, 3, 4};
    unsigned lvl = 3;
    char cmd[8400];
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    snprintf(path, sizeof(path), "%s/shardw.zarr", argv[1]);
    snprintf(url, sizeof(url), "file://%s#mode=zarr,v3,file,shard", path);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    if (system(cmd) != 0)
        return 1;
    for (int z = 0; z < NZ; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++)
                ref[z][y][x] = -7;
    OK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    OK(nc_def_dim(ncid, "z", NZ, &dims[0]));
    OK(nc_def_dim(ncid, "y", NY, &dims[1]));
    OK(nc_def_dim(ncid, "x", NX, &dims[2]));
    OK(nc_def_var(ncid, "v", NC_INT, 3, dims, &v));
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, inner));
    OK(nc_def_var_filter(ncid, v, 32015, 1, &lvl));
    {
        int fill = -7;
        OK(nc_def_var_fill(ncid, v, 0, &fill));
    }
    OK(nc_enddef(ncid));
    /* Shards are 8x12x16 (4 inner chunks per axis, clipped): two along z. */
    {
        size_t st[3] = {0, 0, 0}, ct[3] = {2, 3, 4};
        ptrdiff_t sd[3] = {1, 1, 1};
        put_box(ncid, v, st, ct, sd, 1); /* one whole inner chunk of an absent shard */
        st[0] = 9, st[1] = 4, st[2] = 5, ct[0] = 2, ct[1] = 2, ct[2] = 2;
        put_box(ncid, v, st, ct, sd, 2); /* part of one in the other shard */
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_varid(ncid, "v", &v));
    check_all(ncid, v, "sparse shards");
    /* Random boxes and strides, reads in between. */
    for (int it = 0; it < 60; it++) {
        size_t st[3], ct[3];
        ptrdiff_t sd[3];
        size_t n[3] = {NZ, NY, NX};
        for (int k = 0; k < 3; k++) {
            sd[k] = (ptrdiff_t)(rnd(4) == 0 ? 1 + rnd(3) : 1);
            st[k] = rnd((unsigned)n[k]);
            ct[k] = 1 + rnd((unsigned)((n[k] - st[k] - 1) / (size_t)sd[k] + 1));
        }
        if (it % 5 == 0) { /* exactly whole inner chunks */
            for (int k = 0; k < 3; k++) {
                st[k] = (st[k] / inner[k]) * inner[k];
                ct[k] = inner[k] * (1 + rnd((unsigned)((n[k] - st[k]) / inner[k])));
                sd[k] = 1;
            }
        }
        put_box(ncid, v, st, ct, sd, 3 + it);
        if (it % 7 == 3) {
            char what[32];
            snprintf(what, sizeof(what), "after write %d", it);
            check_all(ncid, v, what);
        }
        if (it == 30) {
            OK(nc_close(ncid));
            OK(nc_open(url, NC_WRITE, &ncid));
            OK(nc_inq_varid(ncid, "v", &v));
            OK(nc_set_var_chunk_cache(ncid, v, 64, 1, 0.5f)); /* one shard at a time */
        }
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "v", &v));
    check_all(ncid, v, "final");
    OK(nc_close(ncid));

    /* A write of one whole inner chunk changes the shard only by that
     * chunk: same values written again leave the shard's size alone. */
    {
        long before = file_size("v/c/1/0/0"), after;
        size_t st[3] = {8, 3, 4}, ct[3] = {2, 3, 4};
        ptrdiff_t sd[3] = {1, 1, 1};
        int b[24];
        OK(nc_open(url, NC_WRITE, &ncid));
        OK(nc_inq_varid(ncid, "v", &v));
        OK(nc_get_vara_int(ncid, v, st, ct, b));
        OK(nc_put_vara_int(ncid, v, st, ct, b));
        OK(nc_close(ncid));
        after = file_size("v/c/1/0/0");
        CHECK(before > 0 && before == after, "shard size %ld -> %ld", before, after);
        (void)sd;
    }
    return nct_summary("tst_zdata_shardw");
}
