/* tst_mem4.c: netCDF-4 files in memory: NC_DISKLESS (with and without
 * NC_PERSIST, created and opened), nc_create_mem + nc_close_memio,
 * nc_open_mem (read-only, the caller's buffer untouched), nc_open_memio
 * (NC_WRITE: a grown image returned by nc_close_memio, NC_MEMIO_LOCKED),
 * and images that are not netCDF-4.  Built against the reference too. */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netcdf_mem.h>

#define PATH "tst_mem4.nc"

/* A small file: group g, dim x=4, var g/v(x) int = 0..3, string att. */
static int
fill_file(int ncid)
{
    int g, d, v, stat, data[4] = {0, 1, 2, 3};
    const char *s = "hello";
    if ((stat = nc_def_grp(ncid, "g", &g)) || (stat = nc_def_dim(ncid, "x", 4, &d)) ||
        (stat = nc_def_var(g, "v", NC_INT, 1, &d, &v)) ||
        (stat = nc_put_att_string(ncid, NC_GLOBAL, "s", 1, &s)) || (stat = nc_enddef(ncid)) ||
        (stat = nc_put_var_int(g, v, data)))
        return stat;
    return NC_NOERR;
}

static void
check_file(int ncid, const char *when)
{
    int g = -1, data[4] = {-1, -1, -1, -1}, fmt = -1;
    char *s = NULL;
    OK(nc_inq_format(ncid, &fmt));
    CHECK(fmt == NC_FORMAT_NETCDF4, "%s: format %d", when, fmt);
    OK(nc_inq_grp_ncid(ncid, "g", &g));
    OK(nc_get_var_int(g, 0, data));
    CHECK(data[0] == 0 && data[3] == 3, "%s: values %d %d", when, data[0], data[3]);
    OK(nc_get_att_string(ncid, NC_GLOBAL, "s", &s));
    CHECK(s && !strcmp(s, "hello"), "%s: string attribute", when);
    if (s) nc_free_string(1, &s);
}

static void *
read_whole(const char *path, size_t *sizep)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc((size_t)n);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    *sizep = (size_t)n;
    return buf;
}

static void
test_diskless(void)
{
    int ncid;
    remove(PATH);
    MUST(nc_create(PATH, NC_NETCDF4 | NC_DISKLESS | NC_CLOBBER, &ncid));
    OK(fill_file(ncid));
    check_file(ncid, "diskless, open");
    OK(nc_close(ncid));
    CHECK(access(PATH, F_OK) != 0, "diskless without NC_PERSIST wrote a file");
    MUST(nc_create(PATH, NC_NETCDF4 | NC_DISKLESS | NC_PERSIST | NC_CLOBBER, &ncid));
    OK(fill_file(ncid));
    OK(nc_close(ncid));
    CHECK(access(PATH, F_OK) == 0, "diskless with NC_PERSIST wrote no file");
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    check_file(ncid, "persisted");
    OK(nc_close(ncid));
    /* opened diskless and changed: the file on disk keeps its old content */
    MUST(nc_open(PATH, NC_WRITE | NC_DISKLESS, &ncid));
    check_file(ncid, "opened diskless");
    OK(nc_put_att_text(ncid, NC_GLOBAL, "added", 1, "x"));
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    size_t len;
    EXPECT(nc_inq_attlen(ncid, NC_GLOBAL, "added", &len), NC_ENOTATT);
    OK(nc_close(ncid));
    /* opened diskless with NC_PERSIST: the change is written back */
    MUST(nc_open(PATH, NC_WRITE | NC_DISKLESS | NC_PERSIST, &ncid));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "added", 1, "x"));
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_attlen(ncid, NC_GLOBAL, "added", &len));
    OK(nc_close(ncid));
}

static void
test_mem(void)
{
    int ncid, m;
    NC_memio mio = {0, NULL, 0};
    MUST(nc_create_mem("memfile", NC_NETCDF4, 0, &ncid));
    OK(fill_file(ncid));
    check_file(ncid, "create_mem");
    OK(nc_close_memio(ncid, &mio));
    CHECK(mio.size > 0 && mio.memory, "close_memio gave %zu bytes", mio.size);
    if (!mio.memory) return;
    CHECK(!memcmp(mio.memory, "\211HDF\r\n\032\n", 8), "image starts with the HDF5 signature");
    void *copy = malloc(mio.size);
    memcpy(copy, mio.memory, mio.size);
    /* nc_open_mem: read-only, the buffer is not changed */
    MUST(nc_open_mem("m1", NC_NOWRITE, mio.size, mio.memory, &m));
    check_file(m, "open_mem");
    EXPECT(nc_put_att_text(m, NC_GLOBAL, "z", 1, "z"), NC_EPERM);
    OK(nc_close(m));
    CHECK(!memcmp(copy, mio.memory, mio.size), "open_mem changed the caller's buffer");
#ifndef NCT_REFERENCE_BUILD
    /* nc_open_memio with NC_WRITE, not locked: the library owns the buffer
     * (may realloc or free it); grow the file, nc_close_memio returns the
     * new image, which the caller frees.  (The reference says
     * NC_ECANTWRITE here, against its documentation.) */
    NC_memio w = {mio.size, copy, 0};
    MUST(nc_open_memio("m2", NC_WRITE, &w, &m));
    OK(nc_redef(m));
    int d, v;
    OK(nc_def_dim(m, "y", 1000, &d));
    OK(nc_def_var(m, "big", NC_DOUBLE, 1, &d, &v));
    OK(nc_enddef(m));
    double dv[1000];
    for (int i = 0; i < 1000; i++) dv[i] = i * 0.5;
    OK(nc_put_var_double(m, v, dv));
    NC_memio out = {0, NULL, 0};
    OK(nc_close_memio(m, &out));
    CHECK(out.size > mio.size && out.memory, "grown image %zu > %zu", out.size, mio.size);
    if (out.memory) {
        MUST(nc_open_mem("m3", NC_NOWRITE, out.size, out.memory, &m));
        check_file(m, "grown image");
        double r[1000];
        int bv = -1;
        OK(nc_inq_varid(m, "big", &bv));
        OK(nc_get_var_double(m, bv, r));
        CHECK(r[999] == 499.5, "grown image values");
        OK(nc_close(m));
        free(out.memory);
    }
#else
    free(copy);
#endif
    /* NC_MEMIO_LOCKED: the library must neither free nor realloc the
     * buffer (what nc_close_memio hands back: tst_bugs4) */
    void *locked = malloc(mio.size);
    memcpy(locked, mio.memory, mio.size);
    NC_memio lk = {mio.size, locked, NC_MEMIO_LOCKED};
    MUST(nc_open_memio("m4", NC_NOWRITE, &lk, &m));
    check_file(m, "locked");
    NC_memio lout = {0, NULL, 0};
    OK(nc_close_memio(m, &lout));
    CHECK(!memcmp(locked, mio.memory, mio.size), "locked buffer changed");
    if (lout.memory != locked) free(lout.memory);
    free(locked);
    free(mio.memory);
}

static void
test_bad_images(void)
{
    unsigned char junk[4096];
    int m = -1;
    memset(junk, 0, sizeof junk);
    memcpy(junk, "\211HDF\r\n\032\n", 8);
    EXPECT(nc_open_mem("junk", NC_NOWRITE, sizeof junk, junk, &m), NC_EHDFERR);
    memset(junk, 0xab, sizeof junk);
    EXPECT(nc_open_mem("junk2", NC_NOWRITE, sizeof junk, junk, &m), NC_ENOTNC);
    /* a truncated netCDF-4 image */
    int ncid;
    NC_memio mio = {0, NULL, 0};
    if (nc_create_mem("t", NC_NETCDF4, 0, &ncid) == NC_NOERR && fill_file(ncid) == NC_NOERR &&
        nc_close_memio(ncid, &mio) == NC_NOERR && mio.memory) {
        int rc = nc_open_mem("trunc", NC_NOWRITE, mio.size / 2, mio.memory, &m);
        CHECK(rc != NC_NOERR || 1, "truncated image");
        if (rc == NC_NOERR) {
            int g, data[4];
            /* whatever opens must not crash when read */
            if (nc_inq_grp_ncid(m, "g", &g) == NC_NOERR) (void)nc_get_var_int(g, 0, data);
            nc_close(m);
        }
        free(mio.memory);
    }
    (void)read_whole;
}

int
main(void)
{
    test_diskless();
    test_mem();
    test_bad_images();
    return nct_summary("tst_mem4");
}
