/* test_strerror.c: nc_strerror() gives upstream's exact text for every code.
 *
 * The expected strings are upstream netCDF-C's messages (they are what
 * ncdump prints and what users' scripts match).
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include "netcdf.h"

static int npass, nfail;

static void
check(int code, const char *want)
{
    const char *got = nc_strerror(code);
    if (got != NULL && strcmp(got, want) == 0) {
        npass++;
    } else {
        nfail++;
        fprintf(stderr, "FAIL code %d: got \"%s\" want \"%s\"\n", code, got ? got : "(null)", want);
    }
}

static const struct { int code; const char *msg; } table[] = {
    {NC_NOERR, "No error"},
    {NC_EBADID, "NetCDF: Not a valid ID"},
    {NC_ENFILE, "NetCDF: Too many files open"},
    {NC_EEXIST, "NetCDF: File exists && NC_NOCLOBBER"},
    {NC_EINVAL, "NetCDF: Invalid argument"},
    {NC_EPERM, "NetCDF: Write to read only"},
    {NC_ENOTINDEFINE, "NetCDF: Operation not allowed in data mode"},
    {NC_EINDEFINE, "NetCDF: Operation not allowed in define mode"},
    {NC_EINVALCOORDS, "NetCDF: Index exceeds dimension bound"},
    {NC_EMAXDIMS, "NetCDF: NC_MAX_DIMS exceeded"},
    {NC_ENAMEINUSE, "NetCDF: String match to name in use"},
    {NC_ENOTATT, "NetCDF: Attribute not found"},
    {NC_EMAXATTS, "NetCDF: NC_MAX_ATTRS exceeded"},
    {NC_EBADTYPE, "NetCDF: Not a valid data type or _FillValue type mismatch"},
    {NC_EBADDIM, "NetCDF: Invalid dimension ID or name"},
    {NC_EUNLIMPOS, "NetCDF: NC_UNLIMITED in the wrong index"},
    {NC_EMAXVARS, "NetCDF: NC_MAX_VARS exceeded"},
    {NC_ENOTVAR, "NetCDF: Variable not found"},
    {NC_EGLOBAL, "NetCDF: Action prohibited on NC_GLOBAL varid"},
    {NC_ENOTNC, "NetCDF: Unknown file format"},
    {NC_ESTS, "NetCDF: In Fortran, string too short"},
    {NC_EMAXNAME, "NetCDF: NC_MAX_NAME exceeded"},
    {NC_EUNLIMIT, "NetCDF: NC_UNLIMITED size already in use"},
    {NC_ENORECVARS, "NetCDF: nc_rec op when there are no record vars"},
    {NC_ECHAR, "NetCDF: Attempt to convert between text & numbers"},
    {NC_EEDGE, "NetCDF: Start+count exceeds dimension bound"},
    {NC_ESTRIDE, "NetCDF: Illegal stride"},
    {NC_EBADNAME, "NetCDF: Name contains illegal characters"},
    {NC_ERANGE, "NetCDF: Numeric conversion not representable"},
    {NC_ENOMEM, "NetCDF: Memory allocation (malloc) failure"},
    {NC_EVARSIZE, "NetCDF: One or more variable sizes violate format constraints"},
    {NC_EDIMSIZE, "NetCDF: Invalid dimension size"},
    {NC_ETRUNC, "NetCDF: File likely truncated or possibly corrupted"},
    {NC_EAXISTYPE, "NetCDF: Illegal axis type"},
    {NC_EDAP, "NetCDF: DAP failure"},
    {NC_ECURL, "NetCDF: libcurl failure"},
    {NC_EIO, "NetCDF: I/O failure"},
    {NC_ENODATA, "NetCDF: Variable has no data"},
    {NC_EDAPSVC, "NetCDF: DAP server error"},
    {NC_EDAS, "NetCDF: Malformed or inaccessible DAP DAS"},
    {NC_EDDS, "NetCDF: Malformed or inaccessible DAP2 DDS or DAP4 DMR response"},
    {NC_EDATADDS, "NetCDF: Malformed or inaccessible DAP2 DATADDS or DAP4 DAP response"},
    {NC_EDAPURL, "NetCDF: Malformed URL"},
    {NC_EDAPCONSTRAINT, "NetCDF: Malformed or unexpected Constraint"},
    {NC_ETRANSLATION, "NetCDF: Untranslatable construct"},
    {NC_EACCESS, "NetCDF: Access failure"},
    {NC_EAUTH, "NetCDF: Authorization failure"},
    {NC_ENOTFOUND, "NetCDF: file not found"},
    {NC_ECANTREMOVE, "NetCDF: cannot delete file"},
    {NC_EINTERNAL, "NetCDF: internal library error; Please contact Unidata support"},
    {NC_EPNETCDF, "NetCDF: PnetCDF error"},
    {NC_EHDFERR, "NetCDF: HDF error"},
    {NC_ECANTREAD, "NetCDF: Can't read file"},
    {NC_ECANTWRITE, "NetCDF: Can't write file"},
    {NC_ECANTCREATE, "NetCDF: Can't create file"},
    {NC_EFILEMETA, "NetCDF: Can't add HDF5 file metadata"},
    {NC_EDIMMETA, "NetCDF: Can't define dimensional metadata"},
    {NC_EATTMETA, "NetCDF: Can't open HDF5 attribute"},
    {NC_EVARMETA, "NetCDF: Problem with variable metadata."},
    {NC_ENOCOMPOUND, "NetCDF: Can't create HDF5 compound type"},
    {NC_EATTEXISTS, "NetCDF: Attempt to create attribute that already exists"},
    {NC_ENOTNC4, "NetCDF: Attempting netcdf-4 operation on netcdf-3 file"},
    {NC_ESTRICTNC3, "NetCDF: Attempting netcdf-4 operation on strict nc3 netcdf-4 file"},
    {NC_ENOTNC3, "NetCDF: Attempting netcdf-3 operation on netcdf-4 file"},
    {NC_ENOPAR, "NetCDF: Parallel operation on file opened for non-parallel access"},
    {NC_EPARINIT, "NetCDF: Error initializing for parallel access"},
    {NC_EBADGRPID, "NetCDF: Bad group ID"},
    {NC_EBADTYPID, "NetCDF: Bad type ID"},
    {NC_ETYPDEFINED, "NetCDF: Type has already been defined and may not be edited"},
    {NC_EBADFIELD, "NetCDF: Bad field ID"},
    {NC_EBADCLASS, "NetCDF: Bad class"},
    {NC_EMAPTYPE, "NetCDF: Mapped access for atomic types only"},
    {NC_ELATEFILL, "NetCDF: Attempt to define fill value when data already exists."},
    {NC_ELATEDEF, "NetCDF: Attempt to define var properties, like deflate, after enddef."},
    {NC_EDIMSCALE, "NetCDF: Problem with HDF5 dimscales."},
    {NC_ENOGRP, "NetCDF: No group found."},
    {NC_ESTORAGE, "NetCDF: Cannot specify both contiguous and chunking."},
    {NC_EBADCHUNK, "NetCDF: Bad chunk sizes."},
    {NC_ENOTBUILT, "NetCDF: Attempt to use feature that was not turned on when netCDF was built."},
    {NC_EDISKLESS, "NetCDF: Error in using diskless access"},
    {NC_ECANTEXTEND, "NetCDF: Attempt to extend dataset during NC_INDEPENDENT I/O operation. Use nc_var_par_access to set mode NC_COLLECTIVE before extending variable."},
    {NC_EMPI, "NetCDF: MPI operation failed."},
    {NC_EFILTER, "NetCDF: Filter error: bad id or parameters or duplicate filter"},
    {NC_ERCFILE, "NetCDF: RC File Failure."},
    {NC_ENULLPAD, "NetCDF: File fails strict Null-Byte Header check."},
    {NC_EINMEMORY, "NetCDF: In-memory File operation failed."},
    {NC_ENOFILTER, "NetCDF: Filter error: undefined filter encountered"},
    {NC_ENCZARR, "NetCDF: NCZarr error"},
    {NC_ES3, "NetCDF: S3 error"},
    {NC_EEMPTY, "NetCDF: Attempt to read empty NCZarr map key"},
    {NC_EOBJECT, "NetCDF: Some object exists when it should not"},
    {NC_ENOOBJECT, "NetCDF: Some object not found"},
    {NC_EPLUGIN, "NetCDF: Unclassified failure in accessing a dynamically loaded plugin"},
    {NC_ENOTZARR, "Malformed (NC)Zarr file"},
};

int
main(void)
{
    size_t i;
    int code;

    for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        check(table[i].code, table[i].msg);

    /* Codes with no meaning, including the v2-only ones and the gap -79..-89. */
    check(-1, "Unknown Error");
    check(NC_EXDR, "Unknown Error");
    check(NC_SYSERR, "Unknown Error");
    check(-80, "Unknown Error");
    check(-99, "Unknown Error");
    check(-145, "Unknown Error");
    check(-100000, "Unknown Error");

    /* System errors come from the C library. */
    check(ENOENT, strerror(ENOENT));
    check(EACCES, strerror(EACCES));

    /* Every defined code has a message of its own. */
    for (code = NC4_FIRST_ERROR; code >= NC4_LAST_ERROR; code--) {
        const char *m = nc_strerror(code);
        if (code == NC4_FIRST_ERROR)
            continue;
        if (m == NULL || strcmp(m, "Unknown Error") == 0) {
            nfail++;
            fprintf(stderr, "FAIL code %d has no message\n", code);
        } else {
            npass++;
        }
    }

    printf("test_strerror: %d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
