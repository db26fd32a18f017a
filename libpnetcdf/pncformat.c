/* pncformat.c: the PnetCDF layer's entry in the format registry
 * (libdispatch/ncformat.h).  The layer has no magic number of its own: it
 * serves the classic row's files when they are opened or created for
 * parallel I/O (the row's par_model), so it has no sniff either. */
#include "config.h"
#include "ncdispatch.h"
#include "ncformat.h"
#include "pncint.h"
#include <pnetcdf.h>

/* PnetCDF's text for its own codes (NC_EFILE and below, NC_EMULTIDEFINE and
 * the like), which upstream's nc_strerror passes through; NULL for others. */
static const char *
ncp_strerror(int code)
{
    if (code > NC_EPNETCDF)
        return NULL;
    return ncmpi_strerror(code);
}

const NC_FormatImpl NCP_format_impl = {
    .model = NC_FORMATX_PNETCDF,
    .name = "PnetCDF",
    .dispatch = &NCP_dispatch_table,
    .flags = NC_IMPL_PARALLEL,
    .strerror = ncp_strerror,
};
