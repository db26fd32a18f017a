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
#define PLUGIN_SET_LOCAL ncf_h5_blosc_set_local
#include "ncfilter.h"
#include "H5Zblosc_local.h"
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
