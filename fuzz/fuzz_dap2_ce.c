/* fuzz_dap2_ce.c: libFuzzer target for the DAP2 constraint parser
 * (libdap2/dap2ce.c, compiled in).  The input is the query of a DAP2 URL.
 * A parsed constraint must hold what the parser promises (every projection
 * a non-empty path of names, each hyperslab with a stride of at least 1
 * and first <= last, the selection starting at '&'); a rejected one is
 * NC_EDAPCONSTRAINT.  A crash, leak or sanitizer report is a bug.
 *   fuzz_dap2_ce -max_total_time=120 CORPUS_DIR fuzz/corpus_dap2_ce
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dap2int.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    D2file f;
    memset(&f, 0, sizeof f);
    if ((f.query = malloc(size + 1)) == NULL)
        return 0;
    memcpy(f.query, data, size);
    f.query[size] = '\0';
    int stat = d2_parse_constraint(&f);
    if (stat != NC_NOERR && stat != NC_EDAPCONSTRAINT && stat != NC_ENOMEM)
        abort();
    if (stat == NC_NOERR) {
        for (size_t i = 0; i < f.nprojs; i++) {
            const D2proj *p = &f.projs[i];
            if (p->nnames == 0 || p->nslab > D2_MAX_RANK)
                abort();
            for (size_t j = 0; j < p->nnames; j++)
                if (p->names[j] == NULL || strlen(p->names[j]) > size)
                    abort();
            for (size_t k = 0; k < p->nslab; k++)
                if (p->stride[k] == 0 || p->last[k] < p->first[k])
                    abort();
        }
        if (f.selection && f.selection[0] != '&')
            abort();
    }
    d2_projs_free(&f);
    free(f.query);
    return 0;
}
