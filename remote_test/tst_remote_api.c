/* tst_remote_api.c URL FILE: the remote reader's API (ncremote.h) against a
 * server that serves FILE at URL: size, read, read_many of scattered and
 * overlapping ranges (fetched concurrently), reads served again from the
 * cache with no request, ranges past the end refused, counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "nctst.h"
#include "ncremote.h"

int
main(int argc, char **argv)
{
    NC_remote *r = NULL;
    NC_remote_stats st0, st1;
    unsigned char *local;
    size_t flen;
    long fsize;
    int model = 0;
    if (argc != 3) {
        fprintf(stderr, "usage: %s URL FILE\n", argv[0]);
        return 2;
    }
    if ((local = nct_slurp(argv[2], &flen)) == NULL)
        return 2;
    fsize = (long)flen;

    OK(NC_remote_open(argv[1], &r));
    CHECK(NC_remote_size(r) == (unsigned long long)fsize, "size %llu, file %ld",
          NC_remote_size(r), fsize);
    OK(NC_remote_model(r, &model));
    CHECK(model == NC_FORMATX_NC3, "model %d", model);
    NC_remote_get_stats(r, &st0);
    CHECK(st0.requests == 1, "open in %llu requests", st0.requests);

    /* Scattered ranges, two in one block, one empty, one ending the file. */
    {
        unsigned long long sz = (unsigned long long)fsize;
        NC_remote_range rg[6] = {{sz / 3, 70000}, {sz / 3 + 10, 100}, {sz / 2, 0},
                                 {sz * 2 / 3, 200000}, {sz - 5000, 5000}, {123456, 1}};
        unsigned char *bufs[6];
        for (int i = 0; i < 6; i++)
            bufs[i] = malloc(rg[i].len + 1);
        OK(NC_remote_read_many(r, 6, rg, (void *const *)bufs));
        for (int i = 0; i < 6; i++)
            CHECK(memcmp(bufs[i], local + rg[i].off, rg[i].len) == 0, "range %d differs", i);
        NC_remote_get_stats(r, &st1);
        CHECK(st1.requests > st0.requests, "no request for missing ranges");
        /* The same ranges again: from the cache, no request. */
        for (int i = 0; i < 6; i++)
            memset(bufs[i], 0, rg[i].len + 1);
        OK(NC_remote_read_many(r, 6, rg, (void *const *)bufs));
        for (int i = 0; i < 6; i++)
            CHECK(memcmp(bufs[i], local + rg[i].off, rg[i].len) == 0, "cached range %d differs", i);
        NC_remote_get_stats(r, &st0);
        /* With a small cache these reads are larger than half of it: they
         * go to the caller without being cached. */
        if (getenv("NETCDF_BYTERANGE_CACHESIZE") == NULL)
            CHECK(st0.requests == st1.requests && st0.hits > st1.hits,
                  "cached reads: %llu requests (was %llu), %llu hits", st0.requests,
                  st1.requests, st0.hits);
        for (int i = 0; i < 6; i++)
            free(bufs[i]);
    }
    /* One read of the whole file equals the file. */
    {
        unsigned char *all = malloc((size_t)fsize);
        OK(NC_remote_read(r, 0, (size_t)fsize, all));
        CHECK(memcmp(all, local, (size_t)fsize) == 0, "whole read differs");
        free(all);
    }
    /* Past the end: refused, nothing read. */
    {
        unsigned char b[16];
        EXPECT(NC_remote_read(r, (unsigned long long)fsize - 8, 16, b), NC_EINVAL);
        EXPECT(NC_remote_read(r, (unsigned long long)fsize + 1, 1, b), NC_EINVAL);
        OK(NC_remote_read(r, (unsigned long long)fsize, 0, b));
    }
    NC_remote_get_stats(r, &st1);
    CHECK(st1.bytes >= (unsigned long long)fsize / 2 && st1.retries == 0,
          "counters: %llu bytes, %llu retries", st1.bytes, st1.retries);
    NC_remote_close(r);
    /* Adjacent ranges that share a block (as the chunks of a variable do):
     * each block is fetched once. */
    OK(NC_remote_open(argv[1], &r));
    {
        const char *e = getenv("NETCDF_BYTERANGE_BLOCKSIZE");
        unsigned long long bs = e ? strtoull(e, NULL, 10) << (strchr(e, 'k') ? 10 : 0) : 1 << 20;
        NC_remote_range rg[2] = {{bs + 100, bs + bs / 2 - 100}, {2 * bs + bs / 2, bs / 2 + 100}};
        unsigned char *bufs[2];
        for (int i = 0; i < 2; i++)
            bufs[i] = malloc(rg[i].len);
        NC_remote_get_stats(r, &st0);
        OK(NC_remote_read_many(r, 2, rg, (void *const *)bufs));
        NC_remote_get_stats(r, &st1);
        for (int i = 0; i < 2; i++)
            CHECK(memcmp(bufs[i], local + rg[i].off, rg[i].len) == 0, "adjacent range %d differs", i);
        CHECK(st1.misses - st0.misses == 3, "blocks 1, 2, 3 of adjacent ranges: %llu misses",
              st1.misses - st0.misses);
        for (int i = 0; i < 2; i++)
            free(bufs[i]);
    }
    NC_remote_close(r);
    /* Bad URLs: clean errors. */
    EXPECT(NC_remote_open("ftp://127.0.0.1/x", &r), NC_EURL);
    EXPECT(NC_remote_open("s3://bucket#mode=bytes", &r), NC_EURL);
    free(local);
    return nct_summary("tst_remote_api");
}
