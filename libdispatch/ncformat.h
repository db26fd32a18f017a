/* ncformat.h: what a layer built into the library hands to libdispatch.
 *
 * The format registry (dformat.c) lists every format the library knows of:
 * how it is recognised (magic numbers, URL schemes, "#mode=" keys, create
 * flags) and, when the build includes it, the layer's own entry declared
 * below.  Recognition stays in the registry, so a file or URL of a format
 * this build leaves out is NC_ENOTBUILT rather than NC_ENOTNC; everything a
 * layer implements comes in through its entry.  Each layer defines its
 * entry in one small file of its folder (libsrc/nc3format.c,
 * libhdf5/hdf5format.c, libnczarr/zformat.c, libfilter/ncf_layer.c), and
 * libdispatch includes no header of any layer.
 *
 * Adding a format: one row in dformat.c (under its build flag) and its
 * folder, which defines its NC_FormatImpl.  docs/architecture.md says more.
 */
#ifndef NCFORMAT_H
#define NCFORMAT_H

#include <stddef.h>
#include "netcdf_dispatch.h"

/* Flags of NC_FormatImpl. */
#define NC_IMPL_PARALLEL 0x1  /* serves parallel (NC_MPIIO) opens and creates */

/* A layer's entry.  Every pointer may be NULL when the layer has nothing
 * to do there.  Called by libdispatch only. */
typedef struct NC_FormatImpl {
    int model;                            /* NC_FORMATX_* it serves; 0 for a layer that
                                           * serves no format (the filter layer) */
    const char *name;                     /* short name, for messages */
    const NC_Dispatch *const *dispatch;   /* address of the layer's table pointer */
    int (*initialize)(void);              /* once, from nc_initialize (global lock held) */
    int (*finalize)(void);                /* once, from nc_finalize */
    /* Is path a store of this format although no magic number matched?
     * isdir: path is a directory (head is then NULL); else head holds the
     * headlen bytes last read from the file.  1 yes, 0 no; never fails. */
    int (*sniff)(const char *path, int isdir, const unsigned char *head, size_t headlen);
    int flags;                            /* NC_IMPL_* */
    /* The text of a status code of the layer's own engine that nc_strerror
     * does not know (PnetCDF's codes); NULL when it is not one.  Optional. */
    const char *(*strerror)(int code);
} NC_FormatImpl;

/* The entries of the layers (each defined only in builds that have it). */
extern const NC_FormatImpl NC3_format_impl;       /* libsrc/: CDF-1, CDF-2, CDF-5 */
extern const NC_FormatImpl NC_remote_format_impl;  /* libdispatch/dremote.c: any of them over byte ranges */
extern const NC_FormatImpl NC4_HDF5_format_impl;  /* libhdf5/: netCDF-4 on HDF5 */
extern const NC_FormatImpl NCZ_format_impl;       /* libnczarr/: Zarr and NCZarr */
extern const NC_FormatImpl NCD2_format_impl;      /* libdap2/: DAP2 client */
extern const NC_FormatImpl NCD4_format_impl;      /* libdap4/: DAP4 client */
extern const NC_FormatImpl NCH4_format_impl;      /* libhdf4/: HDF4 SD files */
extern const NC_FormatImpl NCP_format_impl;       /* libpnetcdf/: classic files through PnetCDF */
extern const NC_FormatImpl NCF_layer_impl;        /* libfilter/: codecs, plugins, pool */

#endif /* NCFORMAT_H */
