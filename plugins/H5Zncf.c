/* H5Zncf.c: one HDF5 filter plugin around one libfilter codec.
 *
 * Compiled once per plugin with NCF_PLUGIN_ZSTD, NCF_PLUGIN_BZIP2 or
 * NCF_PLUGIN_BLOSC, together with that codec's libfilter source (built with
 * NCF_H5MEM so buffers come from HDF5's allocator).  Exports HDF5's two
 * plugin entry points; loadable by any HDF5 (h5dump, h5py, other netCDF
 * builds) through HDF5_PLUGIN_PATH.
 */
#include <hdf5.h>
#include <H5PLextern.h>
#include "ncf_codecs.h"

#if defined(NCF_PLUGIN_ZSTD)
#define PLUGIN_ID NCF_ID_ZSTD
#define PLUGIN_NAME "zstd"
#define PLUGIN_FILTER ncf_zstd_filter
#define PLUGIN_SET_LOCAL NULL
#elif defined(NCF_PLUGIN_BZIP2)
#define PLUGIN_ID NCF_ID_BZIP2
#define PLUGIN_NAME "bzip2"
#define PLUGIN_FILTER ncf_bzip2_filter
#define PLUGIN_SET_LOCAL NULL
#elif defined(NCF_PLUGIN_BLOSC)
#define PLUGIN_ID NCF_ID_BLOSC
#define PLUGIN_NAME "blosc"
#define PLUGIN_FILTER ncf_blosc_filter
#define PLUGIN_SET_LOCAL blosc_set_local

/* As the HDF5 blosc plugin: slots 0-1 zero, 2 the (base) type size, 3 the
 * chunk size in bytes; the user's 4-6 (level, shuffle, compressor) kept. */
static herr_t
blosc_set_local(hid_t dcpl, hid_t type, hid_t space)
{
    unsigned flags = 0, values[7] = {0, 0, 0, 0, 5, 1, 0};
    size_t n = 7, typesize, base, chunkbytes;
    hsize_t dims[32];
    int ndims, i;
    (void)space;
    if (H5Pget_filter_by_id2(dcpl, PLUGIN_ID, &flags, &n, values, 0, NULL, NULL) < 0)
        return -1;
    if ((ndims = H5Pget_chunk(dcpl, 32, dims)) < 0 || ndims > 32)
        return -1;
    if ((typesize = H5Tget_size(type)) == 0)
        return -1;
    base = typesize;
    if (H5Tget_class(type) == H5T_ARRAY) {
        hid_t super = H5Tget_super(type);
        if (super < 0)
            return -1;
        base = H5Tget_size(super);
        H5Tclose(super);
    }
    if (base > 255)
        base = 1;
    chunkbytes = typesize;
    for (i = 0; i < ndims; i++)
        chunkbytes *= (size_t)dims[i];
    /* Slots the user left out keep the defaults above (level 5, byte
     * shuffle, blosclz). */
    values[0] = 0;
    values[1] = 0;
    values[2] = (unsigned)base;
    values[3] = chunkbytes > 0xffffffffu ? 0xffffffffu : (unsigned)chunkbytes;
    if (H5Pmodify_filter(dcpl, PLUGIN_ID, flags, 7, values) < 0)
        return -1;
    return 1;
}
#else
#error "define NCF_PLUGIN_ZSTD, NCF_PLUGIN_BZIP2 or NCF_PLUGIN_BLOSC"
#endif

static const H5Z_class2_t plugin_class[1] = {{
    H5Z_CLASS_T_VERS,
    (H5Z_filter_t)PLUGIN_ID,
    1, /* encoder present */
    1, /* decoder present */
    PLUGIN_NAME,
    NULL, /* can_apply */
    PLUGIN_SET_LOCAL,
    (H5Z_func_t)PLUGIN_FILTER,
}};

H5PL_type_t
H5PLget_plugin_type(void)
{
    return H5PL_TYPE_FILTER;
}

const void *
H5PLget_plugin_info(void)
{
    return plugin_class;
}
