/* nc3format.c: the classic layer's entries in the format registry
 * (libdispatch/ncformat.h): its dispatch table, start-up and shutdown, and
 * the entry of remote classic files read by byte ranges. */
#include "ncdispatch.h"
#include "ncformat.h"

const NC_FormatImpl NC3_format_impl = {
    .model = NC_FORMATX_NC3,
    .name = "classic",
    .dispatch = &NC3_dispatch_table,
    .initialize = NC3_initialize,
    .finalize = NC3_finalize,
};

/* The byte-range row: remote files served by the same table, on the
 * remote ncio backend (nc3io_remote.c); start-up and shutdown are the
 * classic row's. */
const NC_FormatImpl NC3_remote_format_impl = {
    .model = NC_FORMATX_NC3,
    .name = "classic over HTTP byte ranges",
    .dispatch = &NC3_dispatch_table,
};
