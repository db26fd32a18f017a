/* d4format.c: the DAP4 layer's entry in the format registry
 * (libdispatch/ncformat.h): its dispatch table. */
#include "ncdispatch.h"
#include "ncformat.h"

extern const NC_Dispatch *NCD4_dispatch_table;

const NC_FormatImpl NCD4_format_impl = {
    .model = NC_FORMATX_DAP4,
    .name = "DAP4",
    .dispatch = &NCD4_dispatch_table,
};
