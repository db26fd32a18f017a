/* tst_szip_threads: szip (libaec) encoding and decoding from several
 * threads at once.
 *
 * The chunk pipeline used to run szip chains in one thread only, after
 * intermittent failures with two.  Here many chunks of every szip
 * configuration the library stores (NN and EC coding, 1-8 byte samples,
 * odd lengths, short last scanlines, data that does not compress and so
 * exceeds the input) go through ncf_chain_encode/decode on pools of 2..4
 * threads, repeatedly; every encoded stream must equal the one made in a
 * single thread, and every decoded chunk the original.  Run it under TSan
 * and ASan (the thread/address build options) with a large repeat count.
 *
 * usage: tst_szip_threads [REPEATS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nctst.h"
#include "ncfilter.h"

#define NCHUNK 48

typedef struct job {
    ncf_chain *chain;
    unsigned char *data;
    size_t len;
    unsigned char *ref;          /* single-thread encoding */
    size_t reflen;
    unsigned refmask;
    int bad;                     /* written by its own task only */
} job;

static job jobs[NCHUNK];

static unsigned char *
make_data(size_t n, int kind, unsigned seed)
{
    unsigned char *d = malloc(n ? n : 1);
    uint32_t x = seed * 2654435761u + 7;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        d[i] = kind == 0 ? (unsigned char)(x >> 24)                    /* noise: grows */
             : kind == 1 ? (unsigned char)((i / 5) & 0xff)             /* smooth */
                         : (unsigned char)(i % 8 == 0 ? x >> 29 : 0);  /* sparse */
    }
    return d;
}

static void
task(void *arg, size_t i)
{
    job *j = &((job *)arg)[i];
    void *enc = NULL;
    size_t enclen = 0;
    unsigned mask = 0;
    unsigned char *back;
    if (ncf_chain_encode(j->chain, j->data, j->len, &enc, &enclen, &mask) != NC_NOERR) {
        j->bad = 1;
        return;
    }
    if (enclen != j->reflen || mask != j->refmask || memcmp(enc, j->ref, enclen)) {
        j->bad = 2;
    } else if ((back = malloc(j->len ? j->len : 1)) == NULL) {
        j->bad = 3;
    } else {
        if (ncf_chain_decode(j->chain, mask, enc, enclen, back, j->len) != NC_NOERR)
            j->bad = 4;
        else if (memcmp(back, j->data, j->len))
            j->bad = 5;
        free(back);
    }
    free(enc);
}

int
main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 20;
    static const size_t tsizes[] = {1, 2, 4, 8};
    static const unsigned masks[] = {32 /* NN */, 4 /* EC */};
    ncf_pool *pools[3];

    for (int p = 0; p < 3; p++)
        if (ncf_pool_create(p + 2, &pools[p]) != NC_NOERR) {
            fprintf(stderr, "no pool\n");
            return 1;
        }
    for (size_t t = 0; t < sizeof tsizes / sizeof *tsizes; t++)
        for (size_t m = 0; m < 2; m++) {
            /* Chunks of one configuration: the chain is shared, as the
             * pipeline shares a variable's chain between its tasks. */
            size_t dims[2] = {13, 37 + 2 * t};
            unsigned params[4];
            ncf_filter_spec spec = {4, NCF_FLAG_OPTIONAL, 4, params};
            ncf_chain *chain;
            if (ncf_szip_params(masks[m], t == 0 ? 8 : 16, tsizes[t], 0, 2, dims, params)) {
                CHECK(0, "szip params, size %zu", tsizes[t]);
                continue;
            }
            if (ncf_chain_create(1, &spec, tsizes[t], &chain) != NC_NOERR) {
                printf("tst_szip_threads: no szip in this build\n");
                return 77;
            }
            for (size_t i = 0; i < NCHUNK; i++) {
                job *j = &jobs[i];
                void *enc = NULL;
                memset(j, 0, sizeof(*j));
                j->chain = chain;
                j->len = dims[0] * dims[1] * tsizes[t] - (i % 3) * tsizes[t];
                j->data = make_data(j->len, (int)(i % 3), (unsigned)(i + 100 * t + 1000 * m));
                OK(ncf_chain_encode(chain, j->data, j->len, &enc, &j->reflen, &j->refmask));
                j->ref = enc;
            }
            for (int r = 0; r < repeats; r++) {
                size_t bad = 0;
                OK(ncf_pool_run(pools[r % 3], NCHUNK, task, jobs));
                for (size_t i = 0; i < NCHUNK; i++) {
                    if (jobs[i].bad && bad++ < 3)
                        nct_report(__FILE__, __LINE__, "size %zu mask %u chunk %zu repeat %d: failure %d",
                                   tsizes[t], masks[m], i, r, jobs[i].bad);
                    jobs[i].bad = 0;
                }
                CHECK(bad == 0, "size %zu mask %u repeat %d: %zu chunks failed", tsizes[t], masks[m], r, bad);
            }
            for (size_t i = 0; i < NCHUNK; i++) {
                free(jobs[i].data);
                free(jobs[i].ref);
            }
            ncf_chain_free(chain);
        }
    for (int p = 0; p < 3; p++)
        ncf_pool_free(pools[p]);
    ncf_finalize();
    return nct_summary("tst_szip_threads");
}
