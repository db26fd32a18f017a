/* fuzz_dap4_ce.c: libFuzzer target for the DAP4 constraint parser
 * (libdap4/d4ce.c, compiled in).  The input is a dap4.ce value, already
 * percent-decoded.  A parsed constraint's normal form must parse again to
 * the same normal form; a rejected one must be NC_EDAPCONSTRAINT with a
 * message.  A crash, leak or sanitizer report is a bug.
 *   fuzz_dap4_ce -max_total_time=120 CORPUS_DIR fuzz/corpus_dap4_ce
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "d4ce.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    D4ce *ce = NULL, *again = NULL;
    char *out = NULL, *out2 = NULL, msg[160];
    int stat = d4ce_parse((const char *)data, size, &ce, msg, sizeof msg);
    if (stat != NC_NOERR) {
        if (stat != NC_EDAPCONSTRAINT || ce != NULL || msg[0] == '\0')
            abort();
        return 0;
    }
    for (size_t i = 0; i < ce->n; i++)
        if (!ce->c[i].isdim && d4ce_find(ce, ce->c[i].fqn) == NULL)
            abort();
    (void)d4ce_is_simple(ce);
    if (d4ce_format(ce, &out) == NC_NOERR) {
        if (d4ce_parse(out, strlen(out), &again, msg, sizeof msg) != NC_NOERR) {
            fprintf(stderr, "normal form %s rejected: %s\n", out, msg);
            abort();
        }
        if (d4ce_format(again, &out2) != NC_NOERR || strcmp(out, out2) != 0) {
            fprintf(stderr, "normal form %s gave %s\n", out, out2 ? out2 : "(null)");
            abort();
        }
    }
    free(out);
    free(out2);
    d4ce_free(ce);
    d4ce_free(again);
    return 0;
}
