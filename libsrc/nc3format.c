/* nc3format.c: the classic layer's entry in the format registry
 * (libdispatch/ncformat.h): its dispatch table, start-up and shutdown.
 * Remote classic files come in through the byte-range row
 * (libdispatch/dremote.c), which hands their opens to this table. */
#include "ncdispatch.h"
#include "ncformat.h"

const NC_FormatImpl NC3_format_impl = {
    .model = NC_FORMATX_NC3,
    .name = "classic",
    .dispatch = &NC3_dispatch_table,
    .initialize = NC3_initialize,
    .finalize = NC3_finalize,
};
