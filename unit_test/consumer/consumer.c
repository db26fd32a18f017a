/* A minimal client: prints the library version and checks it is ours.
 * It also tests netcdf_meta.h the way clients do, with `#if`: every 0/1
 * macro of netCDF-C 4.10.1 must be defined and spelled 0 or 1 (pasting a 1
 * makes 11 or 01; a word such as ON would make ON1, which `#if` reads as 0),
 * and `#if NC_HAS_CDF5` must agree with the library. */
#include <stdio.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_meta.h>

#define NCC_CAT(a, b) a##b
#define NCC_XCAT(a, b) NCC_CAT(a, b)
#if !defined(NC_HAS_NC2) || (NCC_XCAT(NC_HAS_NC2, 1) != 11 && NCC_XCAT(NC_HAS_NC2, 1) != 01)
#error "NC_HAS_NC2 is not 0 or 1"
#endif
#if !defined(NC_HAS_HDF4) || (NCC_XCAT(NC_HAS_HDF4, 1) != 11 && NCC_XCAT(NC_HAS_HDF4, 1) != 01)
#error "NC_HAS_HDF4 is not 0 or 1"
#endif
#if !defined(NC_HAS_HDF5) || (NCC_XCAT(NC_HAS_HDF5, 1) != 11 && NCC_XCAT(NC_HAS_HDF5, 1) != 01)
#error "NC_HAS_HDF5 is not 0 or 1"
#endif
#if !defined(NC_HAS_SZIP) || (NCC_XCAT(NC_HAS_SZIP, 1) != 11 && NCC_XCAT(NC_HAS_SZIP, 1) != 01)
#error "NC_HAS_SZIP is not 0 or 1"
#endif
#if !defined(NC_HAS_SZIP_WRITE) || (NCC_XCAT(NC_HAS_SZIP_WRITE, 1) != 11 && NCC_XCAT(NC_HAS_SZIP_WRITE, 1) != 01)
#error "NC_HAS_SZIP_WRITE is not 0 or 1"
#endif
#if !defined(NC_HAS_DAP2) || (NCC_XCAT(NC_HAS_DAP2, 1) != 11 && NCC_XCAT(NC_HAS_DAP2, 1) != 01)
#error "NC_HAS_DAP2 is not 0 or 1"
#endif
#if !defined(NC_HAS_DAP4) || (NCC_XCAT(NC_HAS_DAP4, 1) != 11 && NCC_XCAT(NC_HAS_DAP4, 1) != 01)
#error "NC_HAS_DAP4 is not 0 or 1"
#endif
#if !defined(NC_HAS_BYTERANGE) || (NCC_XCAT(NC_HAS_BYTERANGE, 1) != 11 && NCC_XCAT(NC_HAS_BYTERANGE, 1) != 01)
#error "NC_HAS_BYTERANGE is not 0 or 1"
#endif
#if !defined(NC_HAS_DISKLESS) || (NCC_XCAT(NC_HAS_DISKLESS, 1) != 11 && NCC_XCAT(NC_HAS_DISKLESS, 1) != 01)
#error "NC_HAS_DISKLESS is not 0 or 1"
#endif
#if !defined(NC_HAS_MMAP) || (NCC_XCAT(NC_HAS_MMAP, 1) != 11 && NCC_XCAT(NC_HAS_MMAP, 1) != 01)
#error "NC_HAS_MMAP is not 0 or 1"
#endif
#if !defined(NC_HAS_PNETCDF) || (NCC_XCAT(NC_HAS_PNETCDF, 1) != 11 && NCC_XCAT(NC_HAS_PNETCDF, 1) != 01)
#error "NC_HAS_PNETCDF is not 0 or 1"
#endif
#if !defined(NC_HAS_PARALLEL4) || (NCC_XCAT(NC_HAS_PARALLEL4, 1) != 11 && NCC_XCAT(NC_HAS_PARALLEL4, 1) != 01)
#error "NC_HAS_PARALLEL4 is not 0 or 1"
#endif
#if !defined(NC_HAS_PARALLEL) || (NCC_XCAT(NC_HAS_PARALLEL, 1) != 11 && NCC_XCAT(NC_HAS_PARALLEL, 1) != 01)
#error "NC_HAS_PARALLEL is not 0 or 1"
#endif
#if !defined(NC_HAS_CDF5) || (NCC_XCAT(NC_HAS_CDF5, 1) != 11 && NCC_XCAT(NC_HAS_CDF5, 1) != 01)
#error "NC_HAS_CDF5 is not 0 or 1"
#endif
#if !defined(NC_HAS_ERANGE_FILL) || (NCC_XCAT(NC_HAS_ERANGE_FILL, 1) != 11 && NCC_XCAT(NC_HAS_ERANGE_FILL, 1) != 01)
#error "NC_HAS_ERANGE_FILL is not 0 or 1"
#endif
#if !defined(NC_RELAX_COORD_BOUND) || (NCC_XCAT(NC_RELAX_COORD_BOUND, 1) != 11 && NCC_XCAT(NC_RELAX_COORD_BOUND, 1) != 01)
#error "NC_RELAX_COORD_BOUND is not 0 or 1"
#endif
#if !defined(NC_HAS_PAR_FILTERS) || (NCC_XCAT(NC_HAS_PAR_FILTERS, 1) != 11 && NCC_XCAT(NC_HAS_PAR_FILTERS, 1) != 01)
#error "NC_HAS_PAR_FILTERS is not 0 or 1"
#endif
#if !defined(NC_HAS_LOGGING) || (NCC_XCAT(NC_HAS_LOGGING, 1) != 11 && NCC_XCAT(NC_HAS_LOGGING, 1) != 01)
#error "NC_HAS_LOGGING is not 0 or 1"
#endif
#if !defined(NC_HAS_QUANTIZE) || (NCC_XCAT(NC_HAS_QUANTIZE, 1) != 11 && NCC_XCAT(NC_HAS_QUANTIZE, 1) != 01)
#error "NC_HAS_QUANTIZE is not 0 or 1"
#endif
#if !defined(NC_HAS_ZSTD) || (NCC_XCAT(NC_HAS_ZSTD, 1) != 11 && NCC_XCAT(NC_HAS_ZSTD, 1) != 01)
#error "NC_HAS_ZSTD is not 0 or 1"
#endif
#if !defined(NC_HAS_BENCHMARKS) || (NCC_XCAT(NC_HAS_BENCHMARKS, 1) != 11 && NCC_XCAT(NC_HAS_BENCHMARKS, 1) != 01)
#error "NC_HAS_BENCHMARKS is not 0 or 1"
#endif
#if !defined(NC_HAS_BLOSC) || (NCC_XCAT(NC_HAS_BLOSC, 1) != 11 && NCC_XCAT(NC_HAS_BLOSC, 1) != 01)
#error "NC_HAS_BLOSC is not 0 or 1"
#endif
#if !defined(NC_HAS_BZ2) || (NCC_XCAT(NC_HAS_BZ2, 1) != 11 && NCC_XCAT(NC_HAS_BZ2, 1) != 01)
#error "NC_HAS_BZ2 is not 0 or 1"
#endif
#if !defined(NC_HAS_UDF_SELF_LOAD) || (NCC_XCAT(NC_HAS_UDF_SELF_LOAD, 1) != 11 && NCC_XCAT(NC_HAS_UDF_SELF_LOAD, 1) != 01)
#error "NC_HAS_UDF_SELF_LOAD is not 0 or 1"
#endif
#if !defined(NC_HAS_S3) || (NCC_XCAT(NC_HAS_S3, 1) != 11 && NCC_XCAT(NC_HAS_S3, 1) != 01)
#error "NC_HAS_S3 is not 0 or 1"
#endif
#if !defined(NC_HAS_S3_AWS) || (NCC_XCAT(NC_HAS_S3_AWS, 1) != 11 && NCC_XCAT(NC_HAS_S3_AWS, 1) != 01)
#error "NC_HAS_S3_AWS is not 0 or 1"
#endif
#if !defined(NC_HAS_S3_INTERNAL) || (NCC_XCAT(NC_HAS_S3_INTERNAL, 1) != 11 && NCC_XCAT(NC_HAS_S3_INTERNAL, 1) != 01)
#error "NC_HAS_S3_INTERNAL is not 0 or 1"
#endif
#if !defined(NC_HAS_HDF5_ROS3) || (NCC_XCAT(NC_HAS_HDF5_ROS3, 1) != 11 && NCC_XCAT(NC_HAS_HDF5_ROS3, 1) != 01)
#error "NC_HAS_HDF5_ROS3 is not 0 or 1"
#endif
#if !defined(NC_HAS_NCZARR) || (NCC_XCAT(NC_HAS_NCZARR, 1) != 11 && NCC_XCAT(NC_HAS_NCZARR, 1) != 01)
#error "NC_HAS_NCZARR is not 0 or 1"
#endif
#if !defined(NC_DISPATCH_VERSION) || NC_DISPATCH_VERSION != 5
#error "NC_DISPATCH_VERSION is not 5"
#endif

int
main(void)
{
    const char *v = nc_inq_libvers();
    int ncid, cdf5;
    printf("%s\n", v);
    if (strncmp(v, NC_VERSION, strlen(NC_VERSION)) != 0)
        return 1;
    cdf5 = nc_create("consumer_cdf5.nc", NC_CLOBBER | NC_64BIT_DATA | NC_DISKLESS, &ncid) == NC_NOERR;
    if (cdf5)
        nc_abort(ncid);
#if NC_HAS_CDF5
    if (!cdf5) { printf("NC_HAS_CDF5 is 1 but CDF-5 files cannot be created\n"); return 1; }
#else
    if (cdf5) { printf("#if NC_HAS_CDF5 is false but CDF-5 files can be created\n"); return 1; }
#endif
    return 0;
}
