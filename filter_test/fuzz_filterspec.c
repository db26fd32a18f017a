/* fuzz_filterspec.c: libFuzzer target for the filter-spec parser and the
 * codec pipeline on hostile input.
 *
 * Input: a filter-spec list (ncaux_h5filterspec_parselist syntax) up to the
 * first newline, then one mask byte, then raw chunk bytes.  A spec that
 * parses and names runnable filters builds a chain (type size 4) which
 * decodes the chunk into a 4096-byte buffer, then encodes it and checks
 * that it decodes back to itself.  Any result code is fine;
 * crashes, leaks, overruns and undefined behaviour are not.
 *   cmake -S . -B build-fuzz -DNETCDF_ENABLE_FUZZ=ON -DCMAKE_C_COMPILER=clang
 *   build-fuzz/filter_test/fuzz_filterspec -max_total_time=600 filter_test/corpus_filterspec
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_aux.h>
#include "ncfilter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t speclen = nl ? (size_t)(nl - data) : size, n = 0, i;
    char *spec = malloc(speclen + 1);
    NC_H5_Filterspec **vec = NULL;
    if (spec == NULL)
        return 0;
    memcpy(spec, data, speclen);
    spec[speclen] = '\0';
    if (ncaux_h5filterspec_parselist(spec, NULL, &n, &vec) == NC_NOERR) {
        ncf_filter_spec specs[8];
        ncf_chain *chain = NULL;
        if (n > 0 && n <= 8) {
            for (i = 0; i < n; i++) {
                specs[i].id = vec[i]->filterid;
                specs[i].flags = 0;
                specs[i].nparams = vec[i]->nparams;
                specs[i].params = vec[i]->params;
            }
            if (ncf_chain_create(n, specs, 4, &chain) == NC_NOERR && nl && (size_t)(nl - data) + 2 <= size) {
                static unsigned char out[4096];
                const uint8_t *raw = nl + 2;
                size_t rawlen = size - (size_t)(raw - data);
                (void)ncf_chain_decode(chain, nl[1], raw, rawlen, out, sizeof(out));
                /* Round trip: whatever encodes must decode to itself. */
                if (rawlen <= sizeof(out)) {
                    void *enc = NULL;
                    size_t enclen = 0;
                    unsigned mask = 0;
                    if (ncf_chain_encode(chain, raw, rawlen, &enc, &enclen, &mask) == NC_NOERR) {
                        static unsigned char back[4096];
                        if (ncf_chain_decode(chain, mask, enc, enclen, back, rawlen) != NC_NOERR
                            || memcmp(back, raw, rawlen) != 0)
                            abort();
                    }
                    free(enc);
                }
            }
            ncf_chain_free(chain);
        }
        for (i = 0; i < n; i++)
            ncaux_h5filterspec_free(vec[i]);
        free(vec);
    }
    {
        unsigned id, *params = NULL, p2[2];
        size_t np;
        if (ncaux_h5filterspec_parse(spec, &id, &np, &params) == NC_NOERR)
            free(params);
        (void)ncaux_h5filterspec_parse_parameter(spec, &np, p2);
    }
    free(spec);
    return 0;
}
