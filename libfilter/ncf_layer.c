/* ncf_layer.c: the filter layer's entry in the format registry
 * (libdispatch/ncformat.h).  It serves no format: the entry only lets
 * nc_finalize release the codec registry, loaded plugins and the thread
 * pool, after the format layers.  Start-up is lazy (first use). */
#include "netcdf.h"
#include "ncformat.h"
#include "ncfilter.h"

static int
ncf_layer_finalize(void)
{
    ncf_finalize();
    return NC_NOERR;
}

const NC_FormatImpl NCF_layer_impl = {
    .model = 0,
    .name = "filters",
    .finalize = ncf_layer_finalize,
};
