/* ncinfer.h: which format serves a path, a URL or a memory image, and the
 * format registry that inference walks (dformat.c; layers see ncformat.h).
 *
 * Pure functions (no I/O except NC_infer_open reading the first bytes of a
 * file) so they can be tested on crafted input.
 */
#ifndef NCINFER_H
#define NCINFER_H

#include <stddef.h>
#include "netcdf_dispatch.h"
#include "ncformat.h"

/* ---- the registry ------------------------------------------------------------ */

/* One member of a format family: CDF-1, CDF-2 and CDF-5 are the classic
 * row's; netCDF-4 and netCDF-4 classic model HDF5's. */
typedef struct NC_Variant {
    int format;         /* NC_FORMAT_*; 0 ends a row's list */
    int mode;           /* mode bits that ask for it on create and that an open implies */
    const char *magic;  /* bytes that identify it at offset 0; NULL: none */
    size_t magiclen;
    int off;            /* 1: this build leaves the variant out (CDF-5 without
                         * NC_ENABLE_CDF5): nc_set_default_format refuses it */
} NC_Variant;

#define NC_MAX_VARIANTS 3

/* One row of the registry.  Strings of words are comma-separated. */
typedef struct NC_Format {
    int model;                    /* NC_FORMATX_* */
    const char *name;             /* for messages and docs */
    NC_Variant variants[NC_MAX_VARIANTS]; /* the first one is what a URL or a
                                   * sniff implies */
    int magic_search;             /* magic numbers also looked for at 512, 1024,
                                   * 2048, ... (an HDF5 user block) */
    int create_by_mode;           /* nc_create of a path picks it from the mode
                                   * flags or the default format */
    const char *modekeys;         /* "#mode=" keys that name it */
    const char *schemes;          /* URL schemes that name it as a key does */
    const char *fallback_schemes; /* schemes that name it when no key did */
    int par_model;                /* NC_FORMATX_* serving a parallel open of its
                                   * files (PnetCDF for classic); 0: none */
    const NC_FormatImpl *impl;    /* the layer's entry; NULL when not built */
} NC_Format;

/* The rows, in the order they are walked: start-up and shutdown, then
 * URL keys (the first row naming a key wins). */
extern const NC_Format NC_formats[];
extern const size_t NC_nformats;

/* ---- what inference decided ------------------------------------------------------ */

typedef struct NCmodel {
    int impl;    /* NC_FORMATX_* that will serve the file */
    int format;  /* NC_FORMAT_* when known from the bytes, else 0 */
    int mode;    /* mode bits implied (NC_64BIT_OFFSET, NC_64BIT_DATA, NC_NETCDF4, NC_UDFn) */
    const NC_Format *fmt; /* the row that recognised it; NULL for user-defined formats */
} NCmodel;

/* The dispatch table serving a model: the row's layer, or a user-defined
 * format's slot.  NC_ENOTBUILT when this build (or no nc_def_user_format)
 * provides none. */
int NC_format_dispatch(const NCmodel *m, const NC_Dispatch **tablep);

/* Start-up of every built layer in row order, stopping at the first error;
 * shutdown of every one (the first error is returned).  Layers that serve no
 * format (the filter layer) have their own shutdown, after the formats'. */
int NC_formats_initialize(void);
int NC_formats_finalize(void);
int NC_services_finalize(void);

/* May nc_set_default_format select format?  NC_NOERR; NC_ENOTBUILT for a
 * known format this build cannot create; NC_EINVAL for anything else. */
int NC_format_check_default(int format);

/* Does any built layer serve parallel (NC_MPIIO) opens? */
int NC_format_parallel(void);

/* The text a built layer gives for a status code nc_strerror does not know;
 * NULL when none does. */
const char *NC_format_strerror(int code);

/* nc_create_par / nc_open_par (dpar.c): create and open as nc_create and
 * nc_open do, served by the row's parallel model (NC_ENOTBUILT when this
 * build has none), the mode with NC_MPIIO and mpi (ncpar.h's NC_MPI_INFO)
 * as the slot's parameters (dfile.c). */
int NC_create_parallel(const char *path, int cmode, void *mpi, int *ncidp);
int NC_open_parallel(const char *path, int omode, void *mpi, int *ncidp);

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
