/* pncformat.c: the PnetCDF layer's entry in the format registry
 * (libdispatch/ncformat.h).  The layer has no magic number of its own: it
 * serves the classic row's files when they are opened or created for
 * parallel I/O (the row's par_model), so it has no sniff either. */
#include "ncdispatch.h"
#include "ncformat.h"
#include "pncint.h"

const NC_FormatImpl NCP_format_impl = {
    .model = NC_FORMATX_PNETCDF,
    .name = "PnetCDF",
    .dispatch = &NCP_dispatch_table,
    .flags = NC_IMPL_PARALLEL,
};
