/* hdf4format.c: the HDF4 layer's entry in the format registry
 * (libdispatch/ncformat.h).  Files are recognised by their magic number in
 * the registry's row, so the layer has no sniff. */
#include "ncdispatch.h"
#include "ncformat.h"

extern const NC_Dispatch *NCH4_dispatch_table;

const NC_FormatImpl NCH4_format_impl = {
    .model = NC_FORMATX_NC_HDF4,
    .name = "HDF4",
    .dispatch = &NCH4_dispatch_table,
};
