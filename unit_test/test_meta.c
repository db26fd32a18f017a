/* test_meta.c: netcdf_meta.h as a client sees it.
 *
 * Every macro of netCDF-C 4.10.1's netcdf_meta.h must be defined, must be
 * written exactly "1" or "0" (clients test them with `#if NC_HAS_X`, where a
 * word such as ON silently counts as 0), and must say what this build does:
 * each feature is probed through the API where a probe is possible
 * (creating a CDF-5 or netCDF-4 file, opening a DAP or NCZarr URL, parallel
 * I/O, diskless files, fill on out-of-range values, the v2 API).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "netcdf.h"
#include "netcdf_meta.h"

static int npass, nfail;

static void
check(int ok, const char *fmt, const char *a, const char *b)
{
    if (ok) {
        npass++;
    } else {
        nfail++;
        fprintf(stderr, "FAIL ");
        fprintf(stderr, fmt, a, b);
        fputc('\n', stderr);
    }
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* The value's spelling.  (Its value is taken from the spelling, so that a
 * broken header fails here at run time instead of breaking the build; the
 * consumer test checks what a client's `#if` makes of it.) */
#define FLAG(name) { #name, STR(name) }
struct flag { const char *name; const char *text; };

/* netcdf_meta.h of 4.10.1, every 0/1 macro (NC_RELAX_COORD_BOUND and
 * NC_DISPATCH_VERSION are checked apart), then the three 4.9 names we keep. */
#if !defined(NC_HAS_NC2) || !defined(NC_HAS_HDF4) || !defined(NC_HAS_HDF5) \
    || !defined(NC_HAS_SZIP) || !defined(NC_HAS_SZIP_WRITE) || !defined(NC_HAS_DAP2) \
    || !defined(NC_HAS_DAP4) || !defined(NC_HAS_BYTERANGE) || !defined(NC_HAS_DISKLESS) \
    || !defined(NC_HAS_MMAP) || !defined(NC_HAS_PNETCDF) || !defined(NC_HAS_PARALLEL4) \
    || !defined(NC_HAS_PARALLEL) || !defined(NC_HAS_CDF5) || !defined(NC_HAS_ERANGE_FILL) \
    || !defined(NC_RELAX_COORD_BOUND) || !defined(NC_DISPATCH_VERSION) \
    || !defined(NC_HAS_PAR_FILTERS) || !defined(NC_HAS_LOGGING) || !defined(NC_HAS_QUANTIZE) \
    || !defined(NC_HAS_ZSTD) || !defined(NC_HAS_BENCHMARKS) || !defined(NC_HAS_BLOSC) \
    || !defined(NC_HAS_BZ2) || !defined(NC_HAS_UDF_SELF_LOAD) || !defined(NC_HAS_S3) \
    || !defined(NC_HAS_S3_AWS) || !defined(NC_HAS_S3_INTERNAL) || !defined(NC_HAS_HDF5_ROS3) \
    || !defined(NC_HAS_NCZARR)
#error "netcdf_meta.h lacks a macro of 4.10.1"
#endif

static const struct flag flags[] = {
    FLAG(NC_HAS_NC2), FLAG(NC_HAS_HDF4), FLAG(NC_HAS_HDF5), FLAG(NC_HAS_SZIP),
    FLAG(NC_HAS_SZIP_WRITE), FLAG(NC_HAS_DAP2), FLAG(NC_HAS_DAP4), FLAG(NC_HAS_BYTERANGE),
    FLAG(NC_HAS_DISKLESS), FLAG(NC_HAS_MMAP), FLAG(NC_HAS_PNETCDF), FLAG(NC_HAS_PARALLEL4),
    FLAG(NC_HAS_PARALLEL), FLAG(NC_HAS_CDF5), FLAG(NC_HAS_ERANGE_FILL),
    FLAG(NC_HAS_PAR_FILTERS), FLAG(NC_HAS_LOGGING), FLAG(NC_HAS_QUANTIZE), FLAG(NC_HAS_ZSTD),
    FLAG(NC_HAS_BENCHMARKS), FLAG(NC_HAS_BLOSC), FLAG(NC_HAS_BZ2), FLAG(NC_HAS_UDF_SELF_LOAD),
    FLAG(NC_HAS_S3), FLAG(NC_HAS_S3_AWS), FLAG(NC_HAS_S3_INTERNAL), FLAG(NC_HAS_HDF5_ROS3),
    FLAG(NC_HAS_NCZARR),
#ifdef NC_HAS_NC4
    FLAG(NC_HAS_NC4),
#endif
#ifdef NC_HAS_JNA
    FLAG(NC_HAS_JNA),
#endif
#ifdef NC_HAS_MULTIFILTERS
    FLAG(NC_HAS_MULTIFILTERS),
#endif
};

/* 1 if netcdf_meta.h spells the macro "1". */
static int
has(const char *name)
{
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (strcmp(flags[i].name, name) == 0)
            return strcmp(flags[i].text, "1") == 0;
    check(0, "%s: not in the table%s", name, "");
    return 0;
}

/* What this build does, by trying it. */
static void
probe(const char *name, int advertised, int works)
{
    check(advertised == works, "%s: netcdf_meta.h says %s", name, advertised ? "1 but it does not work" : "0 but it works");
}

int
main(void)
{
    int ncid, stat;
    char path[64], cwd[4096], zarr_dir[4200], zarr_url[4300], rm[4300];

    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        check(strcmp(flags[i].text, "0") == 0 || strcmp(flags[i].text, "1") == 0,
              "%s is \"%s\", not 0 or 1", flags[i].name, flags[i].text);
    }
    check(strcmp(STR(NC_RELAX_COORD_BOUND), "1") == 0, "%s is %s", "NC_RELAX_COORD_BOUND", STR(NC_RELAX_COORD_BOUND));
    check(NC_DISPATCH_VERSION == 5, "%s is %s", "NC_DISPATCH_VERSION", STR(NC_DISPATCH_VERSION));
    check(strcmp(NC_VERSION, nc_inq_libvers()) == 0 || strncmp(nc_inq_libvers(), NC_VERSION, strlen(NC_VERSION)) == 0,
          "NC_VERSION %s, library %s", NC_VERSION, nc_inq_libvers());

    snprintf(path, sizeof path, "test_meta_%ld.nc", (long)getpid());
    /* a file URL needs an absolute path */
    if (getcwd(cwd, sizeof cwd) == NULL) strcpy(cwd, "/tmp");
    snprintf(zarr_dir, sizeof zarr_dir, "%s/test_meta_%ld.zarr", cwd, (long)getpid());
    snprintf(zarr_url, sizeof zarr_url, "file://%s#mode=nczarr,file", zarr_dir);

    /* CDF-5 */
    stat = nc_create(path, NC_CLOBBER | NC_64BIT_DATA, &ncid);
    if (stat == NC_NOERR) nc_close(ncid);
    probe("NC_HAS_CDF5", has("NC_HAS_CDF5"), stat == NC_NOERR);
    /* netCDF-4 (HDF5) */
    stat = nc_create(path, NC_CLOBBER | NC_NETCDF4, &ncid);
    if (stat == NC_NOERR) nc_close(ncid);
    probe("NC_HAS_HDF5", has("NC_HAS_HDF5"), stat == NC_NOERR);
#ifdef NC_HAS_NC4
    /* The enhanced model without HDF5 lives on in NCZarr: probe it there. */
    if (stat == NC_NOERR || !has("NC_HAS_NCZARR")) {
        probe("NC_HAS_NC4", has("NC_HAS_NC4"), stat == NC_NOERR);
    } else {
        int zid = -1, grp;
        stat = nc_create(zarr_url, NC_CLOBBER | NC_NETCDF4, &zid);
        if (stat == NC_NOERR) stat = nc_def_grp(zid, "g", &grp);
        if (zid >= 0 && nc_close(zid) != NC_NOERR) stat = NC_EINTERNAL;
        probe("NC_HAS_NC4", has("NC_HAS_NC4"), stat == NC_NOERR);
    }
#endif
    /* diskless */
    stat = nc_create(path, NC_CLOBBER | NC_DISKLESS, &ncid);
    if (stat == NC_NOERR) nc_close(ncid);
    probe("NC_HAS_DISKLESS", has("NC_HAS_DISKLESS"), stat == NC_NOERR);
    /* parallel: without it, any MPI mode is NC_ENOPAR */
    stat = nc_create(path, NC_CLOBBER | NC_MPIIO, &ncid);
    if (stat == NC_NOERR) nc_close(ncid);
    probe("NC_HAS_PARALLEL", has("NC_HAS_PARALLEL"), stat != NC_ENOPAR);
    if (!has("NC_HAS_PARALLEL")) {
        probe("NC_HAS_PARALLEL4", has("NC_HAS_PARALLEL4"), 0);
        probe("NC_HAS_PNETCDF", has("NC_HAS_PNETCDF"), 0);
        probe("NC_HAS_PAR_FILTERS", has("NC_HAS_PAR_FILTERS"), 0);
    }
    /* remote and cloud access: only a build without them can be probed
     * offline (the URL is refused as not built) */
    if (!has("NC_HAS_DAP2")) {
        stat = nc_open("http://localhost:1/nothing", NC_NOWRITE, &ncid);
        probe("NC_HAS_DAP2", has("NC_HAS_DAP2"), stat != NC_ENOTBUILT);
    }
    if (!has("NC_HAS_DAP4")) {
        stat = nc_open("http://localhost:1/nothing#dap4", NC_NOWRITE, &ncid);
        probe("NC_HAS_DAP4", has("NC_HAS_DAP4"), stat != NC_ENOTBUILT);
    }
    if (!has("NC_HAS_BYTERANGE")) {
        stat = nc_open("http://localhost:1/nothing#mode=bytes", NC_NOWRITE, &ncid);
        probe("NC_HAS_BYTERANGE", has("NC_HAS_BYTERANGE"), stat != NC_ENOTBUILT);
    }
    if (!has("NC_HAS_NCZARR")) {
        stat = nc_create("file:///tmp/test_meta_nczarr.file#mode=nczarr,file", NC_CLOBBER, &ncid);
        if (stat == NC_NOERR) nc_close(ncid);
        probe("NC_HAS_NCZARR", has("NC_HAS_NCZARR"), stat != NC_ENOTBUILT);
    }
    if (!has("NC_HAS_S3")) {
        stat = nc_open("s3://bucket/key#mode=nczarr,s3", NC_NOWRITE, &ncid);
        probe("NC_HAS_S3", has("NC_HAS_S3"), stat != NC_ENOTBUILT);
    }
    /* features that need netCDF-4 (or NCZarr) cannot be there without it */
    if (!has("NC_HAS_HDF5")) {
        /* szip without HDF5 only as an NCZarr codec: try it on a variable */
        int works = 0;
        if (has("NC_HAS_NCZARR")) {
            int zid = -1, dim, v;
            size_t chunk = 64;
            stat = nc_create(zarr_url, NC_CLOBBER | NC_NETCDF4, &zid);
            if (stat == NC_NOERR) stat = nc_def_dim(zid, "d", 256, &dim);
            if (stat == NC_NOERR) stat = nc_def_var(zid, "v", NC_INT, 1, &dim, &v);
            if (stat == NC_NOERR) stat = nc_def_var_chunking(zid, v, NC_CHUNKED, &chunk);
            if (stat == NC_NOERR) stat = nc_def_var_szip(zid, v, 32, 32);
            works = stat == NC_NOERR;
            if (zid >= 0) nc_close(zid);
        }
        probe("NC_HAS_SZIP", has("NC_HAS_SZIP"), works);
        probe("NC_HAS_SZIP_WRITE", has("NC_HAS_SZIP_WRITE"), works);
        probe("NC_HAS_HDF5_ROS3", has("NC_HAS_HDF5_ROS3"), 0);
    }
    if (!has("NC_HAS_HDF5") && !has("NC_HAS_NCZARR")) {
        probe("NC_HAS_QUANTIZE", has("NC_HAS_QUANTIZE"), 0);
        probe("NC_HAS_ZSTD", has("NC_HAS_ZSTD"), 0);
        probe("NC_HAS_BLOSC", has("NC_HAS_BLOSC"), 0);
        probe("NC_HAS_BZ2", has("NC_HAS_BZ2"), 0);
    }
    if (!has("NC_HAS_S3")) {
        probe("NC_HAS_S3_AWS", has("NC_HAS_S3_AWS"), 0);
        probe("NC_HAS_S3_INTERNAL", has("NC_HAS_S3_INTERNAL"), 0);
    }
    /* ERANGE_FILL: an out-of-range value is stored as the fill value */
    {
        int v, big = 300;
        signed char got = 0;
        size_t idx = 0;
        stat = nc_create(path, NC_CLOBBER, &ncid);
        if (stat == NC_NOERR) stat = nc_def_var(ncid, "b", NC_BYTE, 0, NULL, &v);
        if (stat == NC_NOERR) stat = nc_enddef(ncid);
        if (stat == NC_NOERR) stat = nc_put_var1_int(ncid, v, &idx, &big);
        if (stat == NC_ERANGE) stat = nc_get_var1_schar(ncid, v, &idx, &got);
        nc_close(ncid);
        check(stat == NC_NOERR, "%s%s", "ERANGE_FILL probe failed", "");
        probe("NC_HAS_ERANGE_FILL", has("NC_HAS_ERANGE_FILL"), got == NC_FILL_BYTE);
    }
    /* the v2 API is there when advertised (a link-time fact) */
    probe("NC_HAS_NC2", has("NC_HAS_NC2"), nctypelen(NC_INT) == 4);
    unlink(path);
    snprintf(rm, sizeof rm, "rm -rf '%s'", zarr_dir);
    if (system(rm) != 0) fprintf(stderr, "could not remove %s\n", zarr_dir);

    printf("test_meta: %d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
