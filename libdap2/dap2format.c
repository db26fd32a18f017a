/* dap2format.c: the DAP2 layer's entry in the format registry
 * (libdispatch/ncformat.h): its dispatch table, start-up and shutdown. */
#include <stdio.h>
#include <sys/stat.h>
#include "ncdispatch.h"
#include "ncformat.h"

extern const NC_Dispatch *NCD2_dispatch_table;
int NCD2_initialize(void);
int NCD2_finalize(void);

/* A file:// URL with nothing at its path (called with no bytes) is a DAP2
 * dataset when NAME.dds or NAME.dods is there. */
static int
d2_sniff(const char *path, int isdir, const unsigned char *head, size_t headlen)
{
    static const char *const ext[] = {".dds", ".dods"};
    if (isdir || head != NULL || headlen > 0)
        return 0;  /* a file that exists is never a DAP2 URL */
    for (int i = 0; i < 2; i++) {
        char p[4096];
        struct stat st;
        if ((size_t)snprintf(p, sizeof p, "%s%s", path, ext[i]) < sizeof p
            && stat(p, &st) == 0 && S_ISREG(st.st_mode))
            return 1;
    }
    return 0;
}

const NC_FormatImpl NCD2_format_impl = {
    .model = NC_FORMATX_DAP2,
    .name = "DAP2",
    .dispatch = &NCD2_dispatch_table,
    .initialize = NCD2_initialize,
    .finalize = NCD2_finalize,
    .sniff = d2_sniff,
};
