/* netcdf_filter_build.h: what a filter-plugin author compiles against.
 *
 * A plugin is a shared library found on the plugin path (HDF5_PLUGIN_PATH).
 * For HDF5 it exports H5PLget_plugin_type() and H5PLget_plugin_info(), the
 * latter returning an H5Z_class2_t.  For NCZarr it may also export
 * NCZ_get_codec_info() (one NCZ_codec_t) or NCZ_codec_info_defaults() (a
 * NULL-terminated vector of NCZ_codec_t*), which pair an HDF5 filter id with
 * a Zarr codec name and convert parameters to and from codec JSON.
 *
 * When <hdf5.h> can be found it is used; otherwise the few HDF5 filter
 * declarations a plugin needs are given here with HDF5's own names, types
 * and values, so plugins build and run without HDF5 installed.  Define
 * NC_FILTER_BUILD_NO_HDF5 to use the stand-ins even when HDF5 is present.
 */
#ifndef NETCDF_FILTER_BUILD_H
#define NETCDF_FILTER_BUILD_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "netcdf.h"
#include "netcdf_filter.h"

#if !defined(NC_FILTER_BUILD_NO_HDF5) && !defined(NC_FILTER_BUILD_HAVE_HDF5)
# if defined(__has_include)
#  if __has_include(<hdf5.h>)
#   define NC_FILTER_BUILD_HAVE_HDF5 1
#  endif
# endif
#endif

#ifdef NC_FILTER_BUILD_HAVE_HDF5
#include <hdf5.h>
#include <H5PLextern.h>
#else
/* ---- Stand-ins for HDF5's filter declarations (H5public.h, H5Ipublic.h,
 * H5Zpublic.h, H5PLpublic.h), same types and values as HDF5 1.10+. */
typedef int herr_t;             /* negative: failure */
typedef int htri_t;             /* negative: failure; 0 false; positive true */
typedef unsigned int hbool_t;   /* boolean */
typedef uint64_t hsize_t;       /* sizes and counts */
typedef int64_t hid_t;          /* object identifier */

typedef int H5Z_filter_t;       /* filter id */
#define H5Z_FILTER_ERROR (-1)
#define H5Z_FILTER_NONE 0
#define H5Z_FILTER_NBIT 5
#define H5Z_FILTER_SCALEOFFSET 6
#define H5Z_FILTER_RESERVED 256 /* ids below are reserved for HDF5 */
#define H5Z_FILTER_MAX 65535    /* largest filter id */

/* Flags in a filter's definition and at invocation. */
#define H5Z_FLAG_DEFMASK 0x00ff
#define H5Z_FLAG_MANDATORY 0x0000
#define H5Z_FLAG_OPTIONAL 0x0001
#define H5Z_FLAG_INVMASK 0xff00
#define H5Z_FLAG_REVERSE 0x0100 /* decoding (read) */
#define H5Z_FLAG_SKIP_EDC 0x0200

/* Version of H5Z_class2_t. */
#define H5Z_CLASS_T_VERS 1

typedef htri_t (*H5Z_can_apply_func_t)(hid_t dcpl_id, hid_t type_id, hid_t space_id);
typedef herr_t (*H5Z_set_local_func_t)(hid_t dcpl_id, hid_t type_id, hid_t space_id);
/* Filters *buf (nbytes valid, *buf_size allocated) in place or by replacing
 * it; returns the new number of valid bytes, 0 on failure. */
typedef size_t (*H5Z_func_t)(unsigned int flags, size_t cd_nelmts,
                             const unsigned int cd_values[], size_t nbytes,
                             size_t *buf_size, void **buf);

typedef struct H5Z_class2_t {
    int version;                    /* H5Z_CLASS_T_VERS */
    H5Z_filter_t id;                /* filter id */
    unsigned encoder_present;       /* nonzero if it can encode */
    unsigned decoder_present;       /* nonzero if it can decode */
    const char *name;               /* for messages */
    H5Z_can_apply_func_t can_apply; /* may be NULL */
    H5Z_set_local_func_t set_local; /* may be NULL */
    H5Z_func_t filter;              /* the filter function */
} H5Z_class2_t;

/* What a plugin library holds. */
typedef enum H5PL_type_t {
    H5PL_TYPE_ERROR = -1,
    H5PL_TYPE_FILTER = 0,
    H5PL_TYPE_VOL = 1,
    H5PL_TYPE_VFD = 2,
    H5PL_TYPE_NONE = 3
} H5PL_type_t;

/* Buffers handed to and returned by a filter belong to HDF5's allocator;
 * without HDF5 that is the C library's. */
#ifndef H5allocate_memory
#define H5allocate_memory(size, clear) ((clear) ? calloc(1, (size)) : malloc(size))
#define H5free_memory(buf) free(buf)
#define H5resize_memory(buf, size) realloc((buf), (size))
#endif
#endif /* NC_FILTER_BUILD_HAVE_HDF5 */

/* The two functions every HDF5 filter plugin exports. */
typedef H5PL_type_t (*H5PL_get_plugin_type_proto)(void);
typedef const void *(*H5PL_get_plugin_info_proto)(void);

/* ---- NCZarr codec API ---------------------------------------------------- */

/* Version of NCZ_codec_t. */
#define NCZ_CODEC_CLASS_VER 1
/* Kinds of NCZ_codec_t: an HDF5 filter <-> Zarr codec converter. */
#define NCZ_CODEC_HDF5 1
/* Invocation flag bits (not stored). */
#define NCZ_FILTER_DECODE 0x00000001

/* One codec.  version and sort select the layout of the rest. */
typedef struct NCZ_codec_t {
    int version;                    /* NCZ_CODEC_CLASS_VER */
    int sort;                       /* NCZ_CODEC_HDF5 */
    const char *codecid;            /* Zarr codec name, e.g. "zstd" */
    unsigned int hdf5id;            /* the matching HDF5 filter id */
    void (*NCZ_codec_initialize)(void);  /* when loaded; may be NULL */
    void (*NCZ_codec_finalize)(void);    /* when unloaded; may be NULL */
    /* Codec JSON -> visible HDF5 parameters (caller frees *paramsp). */
    int (*NCZ_codec_to_hdf5)(const char *codec, size_t *nparamsp, unsigned **paramsp);
    /* Visible HDF5 parameters -> codec JSON (caller frees *codecp). */
    int (*NCZ_hdf5_to_codec)(size_t nparams, const unsigned *params, char **codecp);
    /* Visible -> working parameters for variable (ncid, varid); may also
     * rewrite the visible ones.  May be NULL. */
    int (*NCZ_modify_parameters)(int ncid, int varid, size_t *vnparamsp, unsigned **vparamsp,
                                 size_t *wnparamsp, unsigned **wparamsp);
} NCZ_codec_t;

/* Entry points an NCZarr codec library exports (either or both). */
typedef const void *(*NCZ_get_codec_info_proto)(void);
typedef const void *(*NCZ_codec_info_defaults_proto)(void);

#ifndef NC_UNUSED
#define NC_UNUSED(var) (void)(var)
#endif

#ifndef DLLEXPORT
#ifdef _WIN32
#define DLLEXPORT __declspec(dllexport)
#else
#define DLLEXPORT
#endif
#endif

#endif /* NETCDF_FILTER_BUILD_H */
