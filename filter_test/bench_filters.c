/* bench_filters.c: throughput of libfilter's chunk pipeline (not a test).
 *
 *   bench_filters [MiB] [chunk KiB]
 * Encodes and decodes smooth float data (a random walk, like the W5 bench
 * variable) with shuffle+deflate-1 and shuffle+zstd-1, on pools of 1 and 2
 * threads (and NETCDF_FILTER_THREADS if set), and compares the deflate
 * ratio with zlib's compress2 at level 1.  Prints MB/s of uncompressed data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include <netcdf.h>
#include "ncfilter.h"
#include "chain_jobs.h"

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 128;
    size_t chunk = (argc > 2 ? strtoul(argv[2], NULL, 10) : 1024) * 1024;
    size_t total = mib << 20, nch = total / chunk, i;
    float *data = malloc(total);
    unsigned char *back = malloc(total);
    unsigned four = 4, one = 1;
    ncf_filter_spec sd[2] = {{2, 0, 1, &four}, {1, 0, 1, &one}};
    ncf_filter_spec sz[2] = {{2, 0, 1, &four}, {32015, 0, 1, &one}};
    ncf_filter_spec *chains[2] = {sd, sz};
    const char *names[2] = {"shuffle+deflate-1", "shuffle+zstd-1"};
    int threads[3] = {1, 2, 0};
    tjob *jobs = calloc(nch, sizeof(tjob));
    unsigned seed = 12345;
    float x = 0;
    int c, t;
    if (!data || !back || !jobs || nch == 0)
        return 1;
    memset(back, 0, total); /* touch it: page faults are not the codec's */
    for (i = 0; i < total / 4; i++) {
        seed = seed * 1103515245u + 12345u;
        x += ((float)(seed >> 16) / 65536.0f - 0.5f) * 0.01f;
        data[i] = 280.0f + x;
    }
    for (c = 0; c < 2; c++) {
        ncf_chain *ch;
        size_t enc = 0;
        if (ncf_chain_create(2, chains[c], 4, &ch))
            return 1;
        for (t = 0; t < 3; t++) {
            ncf_pool *p = NULL;
            double t0, t1, t2;
            if (t == 2 && getenv("NETCDF_FILTER_THREADS") == NULL)
                continue;
            ncf_pool_create(threads[t], &p);
            for (i = 0; i < nch; i++) {
                memset(&jobs[i], 0, sizeof(jobs[i]));
                jobs[i].src = (unsigned char *)data + i * chunk;
                jobs[i].srclen = chunk;
            }
            t0 = now();
            if (tjobs_encode(ch, p, nch, jobs))
                return 1;
            t1 = now();
            enc = 0;
            for (i = 0; i < nch; i++) {
                void *o = jobs[i].out;
                enc += jobs[i].outlen;
                jobs[i].src = o;
                jobs[i].srclen = jobs[i].outlen;
                jobs[i].mask = jobs[i].outmask;
                jobs[i].dst = back + i * chunk;
                jobs[i].dstlen = chunk;
            }
            if (tjobs_decode(ch, p, nch, jobs))
                return 1;
            t2 = now();
            if (memcmp(back, data, nch * chunk))
                return 1;
            printf("%-18s threads %d: encode %7.0f MB/s  decode %7.0f MB/s  ratio %.3f\n", names[c],
                   ncf_pool_nthreads(p), (double)(nch * chunk) / (t1 - t0) / 1e6,
                   (double)(nch * chunk) / (t2 - t1) / 1e6, (double)(nch * chunk) / (double)enc);
            for (i = 0; i < nch; i++)
                free((void *)jobs[i].src);
            ncf_pool_free(p);
        }
        ncf_chain_free(ch);
    }
    /* zlib level 1 on the same shuffled chunks, for the ratio. */
    {
        size_t zenc = 0;
        unsigned char *sh = malloc(chunk), *z = malloc(compressBound((uLong)chunk));
        double t0 = now(), t1;
        for (i = 0; i < nch; i++) {
            uLongf zl = compressBound((uLong)chunk);
            ncf_shuffle(4, chunk, (unsigned char *)data + i * chunk, sh);
            compress2(z, &zl, sh, (uLong)chunk, 1);
            zenc += zl;
        }
        t1 = now();
        printf("zlib compress2 -1   threads 1: encode %7.0f MB/s                      ratio %.3f\n",
               (double)(nch * chunk) / (t1 - t0) / 1e6, (double)(nch * chunk) / (double)zenc);
        free(sh);
        free(z);
    }
    ncf_finalize();
    free(data);
    free(back);
    free(jobs);
    return 0;
}
