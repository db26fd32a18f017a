/* ncinfer.h: which format serves a path, a URL or a memory image.
 *
 * Pure functions (no I/O except NC_infer_open reading the first bytes of a
 * file) so they can be tested on crafted input.
 */
#ifndef NCINFER_H
#define NCINFER_H

#include <stddef.h>

/* What inference decided. */
typedef struct NCmodel {
    int impl;    /* NC_FORMATX_* that will serve the file */
    int format;  /* NC_FORMAT_* when known from the bytes, else 0 */
    int mode;    /* mode bits implied (NC_64BIT_OFFSET, NC_64BIT_DATA, NC_NETCDF4, NC_UDFn) */
} NCmodel;

/* Classify the first len bytes of a file (len may be short: a file that is
 * too small is NC_ENOTNC).  Recognises CDF-1/2/5, the HDF5 superblock at 0,
 * 512, 1024, 2048, ... (needs the bytes at that offset: pass what you have;
 * NC_infer_open searches the file itself), HDF4, and registered UDF magic
 * numbers.  NC_ENOTNC when nothing matches. */
int NC_infer_bytes(const unsigned char *buf, size_t len, NCmodel *model);

/* Interpret a URL: scheme and "#mode=a,b,..." fragment.  Returns 0 and sets
 * *isurl=0 for plain paths.  For URLs sets the model from the mode keys
 * (nczarr, zarr -> NCZARR; dap2 -> DAP2; dap4 -> DAP4; bytes -> NC3 over
 * HTTP; s3, file, zip name the storage) and NC_EURL for malformed URLs.
 * *pathp gets a new string: the local path for file:// URLs without a
 * storage mode, else the URL itself (caller frees). */
int NC_infer_url(const char *path, int *isurl, NCmodel *model, char **pathp);

/* Model for nc_create from the mode flags and the default format.
 * NC_EINVAL for contradictory flags. */
int NC_infer_create(int cmode, int default_format, NCmodel *model);

/* Model for nc_open of a path (after URL handling): reads the first bytes.
 * Returns a positive errno (e.g. ENOENT) if the file cannot be read. */
int NC_infer_open(const char *path, NCmodel *model);

#endif /* NCINFER_H */
