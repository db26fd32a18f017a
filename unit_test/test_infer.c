/* test_infer.c: model inference on crafted bytes, files and URLs, and the
 * errors nc_open/nc_create give for formats this build lacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "netcdf.h"
#include "netcdf_mem.h"
#include "netcdf_meta.h"
#include "ncinfer.h"

static int passed, failed;
#define CHECK(cond) do { if (cond) passed++; else { failed++; \
    printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

static void
write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(bytes, 1, n, f) != n) {
        perror(path);
        exit(2);
    }
    fclose(f);
}

static void
test_bytes(void)
{
    NCmodel m;
    const unsigned char cdf1[] = {'C', 'D', 'F', 1, 0, 0, 0, 0};
    const unsigned char cdf2[] = {'C', 'D', 'F', 2};
    const unsigned char cdf5[] = {'C', 'D', 'F', 5};
    const unsigned char cdf3[] = {'C', 'D', 'F', 3};
    const unsigned char hdf5[] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    const unsigned char hdf4[] = {0x0e, 0x03, 0x13, 0x01};

    CHECK(NC_infer_bytes(cdf1, sizeof cdf1, &m) == NC_NOERR && m.impl == NC_FORMATX_NC3
          && m.format == NC_FORMAT_CLASSIC);
    CHECK(NC_infer_bytes(cdf2, sizeof cdf2, &m) == NC_NOERR && m.format == NC_FORMAT_64BIT_OFFSET
          && (m.mode & NC_64BIT_OFFSET));
    CHECK(NC_infer_bytes(cdf5, sizeof cdf5, &m) == NC_NOERR && m.format == NC_FORMAT_64BIT_DATA
          && (m.mode & NC_64BIT_DATA));
    CHECK(NC_infer_bytes(cdf3, sizeof cdf3, &m) == NC_ENOTNC);
    CHECK(NC_infer_bytes(cdf1, 3, &m) == NC_ENOTNC);   /* truncated magic */
    CHECK(NC_infer_bytes(cdf1, 0, &m) == NC_ENOTNC);
    CHECK(NC_infer_bytes(hdf5, sizeof hdf5, &m) == NC_NOERR && m.impl == NC_FORMATX_NC_HDF5);
    CHECK(NC_infer_bytes(hdf5, 7, &m) == NC_ENOTNC);
    CHECK(NC_infer_bytes(hdf4, sizeof hdf4, &m) == NC_NOERR && m.impl == NC_FORMATX_NC_HDF4);
    CHECK(NC_infer_bytes((const unsigned char *)"garbage!", 8, &m) == NC_ENOTNC);
}

static void
test_urls(void)
{
    NCmodel m;
    int isurl;
    char *p = NULL;

    CHECK(NC_infer_url("plain/path.nc", &isurl, &m, &p) == NC_NOERR && !isurl && p == NULL);
    CHECK(NC_infer_url("C:/x.nc", &isurl, &m, &p) == NC_NOERR && !isurl);
    CHECK(NC_infer_url("file:///tmp/x.zarr#mode=nczarr,file", &isurl, &m, &p) == NC_NOERR
          && isurl && m.impl == NC_FORMATX_NCZARR);
    free(p); p = NULL;
    CHECK(NC_infer_url("file:///tmp/x.zarr#mode=zarr,zip", &isurl, &m, &p) == NC_NOERR
          && m.impl == NC_FORMATX_NCZARR);
    free(p); p = NULL;
    CHECK(NC_infer_url("https://host/x.nc#mode=bytes", &isurl, &m, &p) == NC_NOERR
          && m.impl == NC_FORMATX_NC3);
    free(p); p = NULL;
    CHECK(NC_infer_url("https://host/dap/x#mode=dap4", &isurl, &m, &p) == NC_NOERR
          && m.impl == NC_FORMATX_DAP4);
    free(p); p = NULL;
    CHECK(NC_infer_url("http://host/dap/x", &isurl, &m, &p) == NC_NOERR && m.impl == NC_FORMATX_DAP2);
    free(p); p = NULL;
    CHECK(NC_infer_url("s3://bucket/key", &isurl, &m, &p) == NC_NOERR && m.impl == NC_FORMATX_NCZARR);
    free(p); p = NULL;
    CHECK(NC_infer_url("file:///tmp/plain.nc", &isurl, &m, &p) == NC_NOERR && !isurl
          && p != NULL && strcmp(p, "/tmp/plain.nc") == 0);
    free(p); p = NULL;
    CHECK(NC_infer_url("gopher://x/y", &isurl, &m, &p) == NC_EURL);
    CHECK(NC_infer_url("http://", &isurl, &m, &p) == NC_EURL);
}

static void
test_create_models(void)
{
    NCmodel m;
    CHECK(NC_infer_create(0, NC_FORMAT_CLASSIC, &m) == NC_NOERR && m.impl == NC_FORMATX_NC3
          && m.format == NC_FORMAT_CLASSIC);
    CHECK(NC_infer_create(0, NC_FORMAT_64BIT_OFFSET, &m) == NC_NOERR
          && m.format == NC_FORMAT_64BIT_OFFSET && (m.mode & NC_64BIT_OFFSET));
    CHECK(NC_infer_create(NC_64BIT_DATA, NC_FORMAT_CLASSIC, &m) == NC_NOERR
          && m.format == NC_FORMAT_64BIT_DATA);
    CHECK(NC_infer_create(NC_NETCDF4, NC_FORMAT_CLASSIC, &m) == NC_NOERR
          && m.impl == NC_FORMATX_NC_HDF5);
    CHECK(NC_infer_create(NC_NETCDF4 | NC_CLASSIC_MODEL, 0, &m) == NC_NOERR
          && m.format == NC_FORMAT_NETCDF4_CLASSIC);
    CHECK(NC_infer_create(NC_64BIT_OFFSET | NC_64BIT_DATA, 0, &m) == NC_EINVAL);
}

static void
test_public(void)
{
    int ncid;
    char dir[] = "/tmp/nc_inferXXXXXX";
    char path[256];
    unsigned char hdf5_at_512[1024];
    const unsigned char hdf5[] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        exit(2);
    }
    snprintf(path, sizeof path, "%s/garbage.nc", dir);
    write_file(path, "this is not a netCDF file at all", 32);
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_ENOTNC);

    snprintf(path, sizeof path, "%s/empty.nc", dir);
    write_file(path, "", 0);
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_ENOTNC);

    snprintf(path, sizeof path, "%s/cdf9.nc", dir);
    write_file(path, "CDF\011\0\0\0\0", 8);
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_ENOTNC);

    memset(hdf5_at_512, 0, sizeof hdf5_at_512);
    memcpy(hdf5_at_512 + 512, hdf5, sizeof hdf5);
    snprintf(path, sizeof path, "%s/userblock.h5", dir);
    write_file(path, hdf5_at_512, sizeof hdf5_at_512);
#if NC_HAS_HDF5
    /* found as HDF5 (after the user block), then refused as a broken file */
    {
        int st = nc_open(path, NC_NOWRITE, &ncid);
        CHECK(st != NC_NOERR && st != NC_ENOTBUILT && st != NC_ENOTNC);
    }
#else
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_ENOTBUILT);
#endif

    CHECK(nc_open(dir, NC_NOWRITE, &ncid) == NC_ENOTNC);  /* a directory */
    snprintf(path, sizeof path, "%s/missing.nc", dir);
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == ENOENT);
    CHECK(nc_open(NULL, NC_NOWRITE, &ncid) == NC_EINVAL);

    snprintf(path, sizeof path, "file://%s/x.zarr#mode=nczarr,file", dir);
#if NC_HAS_NCZARR
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == ENOENT);  /* no such store */
    CHECK(nc_create(path, NC_CLOBBER, &ncid) == NC_NOERR && nc_close(ncid) == NC_NOERR);
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR && nc_close(ncid) == NC_NOERR);
#else
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_ENOTBUILT);
    CHECK(nc_create(path, NC_CLOBBER, &ncid) == NC_ENOTBUILT);
#endif
#if NC_HAS_DAP4
    /* a dap4 URL reaches the DAP4 layer: no recorded NAME.dmr/NAME.dap there */
    snprintf(path, sizeof path, "file://%s/missing#mode=dap4", dir);
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == ENOENT);
#else
    CHECK(nc_open("https://example.invalid/x#mode=dap4", NC_NOWRITE, &ncid) == NC_ENOTBUILT);
#endif

    snprintf(path, sizeof path, "%s/nc4.nc", dir);
#if NC_HAS_HDF5
    CHECK(nc_create(path, NC_NETCDF4, &ncid) == NC_NOERR && nc_close(ncid) == NC_NOERR);
    {
        int fmt = -1;
        CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR);
        CHECK(nc_inq_format(ncid, &fmt) == NC_NOERR && fmt == NC_FORMAT_NETCDF4);
        CHECK(nc_close(ncid) == NC_NOERR);
    }
    remove(path);
#else
    CHECK(nc_create(path, NC_NETCDF4, &ncid) == NC_ENOTBUILT);
#endif
    CHECK(nc_create(path, NC_64BIT_OFFSET | NC_64BIT_DATA, &ncid) == NC_EINVAL);
    CHECK(access(path, F_OK) != 0);  /* failed creates leave nothing behind */

    /* Memory images go through the same inference. */
    CHECK(nc_open_mem("mem", NC_NOWRITE, 8, "garbage!", &ncid) == NC_ENOTNC);
    CHECK(nc_open_mem("mem", NC_NOWRITE, 2, "CD", &ncid) == NC_EINVAL);

    /* Bad ids never reach a format. */
    CHECK(nc_close(-1) == NC_EBADID);
    CHECK(nc_close(0) == NC_EBADID);
    CHECK(nc_inq_format(12345 << 16, &ncid) == NC_EBADID);

    snprintf(path, sizeof path, "rm -rf %s", dir);
    if (system(path) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

int
main(void)
{
    test_bytes();
    test_urls();
    test_create_models();
    test_public();
    printf("infer: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
