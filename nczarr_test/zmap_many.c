/* zmap_many.c: write_many and read_many of zmap.h on one store, against the
 * same objects written and read one by one.
 *
 * Usage: zmap_many URL MODELIST NOBJ SIZE [fail]
 * Creates the store at URL (clobbered), writes NOBJ objects of SIZE bytes
 * one at a time and again with write_many, reads both sets back one at a
 * time and with read_many, checks every byte and prints the four wall times
 * (for the bench and the report).  Then checks the per-request statuses: a
 * batch with an invalid key, and on a read-only store.  With "fail", one key
 * of a batch holds "zfail", which the test proxy (zmap_slowproxy.py) answers
 * with 503: the batch must report NC_ES3 for it and succeed for the rest. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nctst.h"
#include "zmap.h"

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
fill(unsigned char *b, size_t n, size_t seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 31 + i * 7);
}

static void
run(const char *url, const char *modes, size_t n, size_t size, int inject)
{
    NCZ_map *m = NULL;
    char (*keys)[64] = calloc(2 * n, sizeof *keys);
    unsigned char **bufs = calloc(n, sizeof *bufs);
    NCZ_write_req *w = calloc(n + 1, sizeof *w);
    NCZ_read_req *r = calloc(n, sizeof *r);
    if (!keys || !bufs || !w || !r || n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!(bufs[i] = malloc(size ? size : 1)))
            return;
        fill(bufs[i], size, i);
        snprintf(keys[i], sizeof keys[i], "/serial/%zu", i);
        snprintf(keys[n + i], sizeof keys[n + i], "/many/%zu", i);
    }
    MUST(ncz_map_open(url, modes, NCZ_MAP_WRITE | NCZ_MAP_CREATE | NCZ_MAP_CLOBBER, &m));
    MUST(m->ops->write_many ? NC_NOERR : NC_ENOTBUILT);

    double t0 = now_ms();
    for (size_t i = 0; i < n; i++)
        OK(m->ops->write(m, keys[i], size, bufs[i]));
    double t1 = now_ms();
    for (size_t i = 0; i < n; i++)
        w[i] = (NCZ_write_req){.key = keys[n + i], .count = size, .content = bufs[i], .status = -1};
    OK(m->ops->write_many(m, n, w));
    double t2 = now_ms();
    for (size_t i = 0; i < n; i++)
        EXPECT(w[i].status, NC_NOERR);

    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        void *d = NULL;
        size_t len = 0;
        OK(m->ops->read_all(m, keys[i], &d, &len));
        if (len != size || (size && memcmp(d, bufs[i], size) != 0))
            bad++;
        free(d);
    }
    double t3 = now_ms();
    for (size_t i = 0; i < n; i++)
        r[i] = (NCZ_read_req){.key = keys[n + i], .start = 0, .count = (uint64_t)-1};
    OK(m->ops->read_many(m, n, r));
    double t4 = now_ms();
    for (size_t i = 0; i < n; i++) {
        EXPECT(r[i].status, NC_NOERR);
        if (r[i].len != size || (size && memcmp(r[i].data, bufs[i], size) != 0))
            bad++;
        free(r[i].data);
    }
    EXPECT(bad, 0);
    printf("zmap_many %s n=%zu size=%zu: write serial %.1f ms, write_many %.1f ms, "
           "read serial %.1f ms, read_many %.1f ms\n",
           modes, n, size, t1 - t0, t2 - t1, t3 - t2, t4 - t3);

    /* statuses: one invalid key (and an injected server failure) among good ones */
    size_t nb = n < 4 ? n : 4;
    w[0] = (NCZ_write_req){.key = "/bad/../key", .count = 1, .content = "x", .status = -1};
    for (size_t i = 1; i < nb; i++)
        w[i] = (NCZ_write_req){.key = keys[n + i], .count = size, .content = bufs[0], .status = -1};
    w[nb] = (NCZ_write_req){.key = "/many/zfail", .count = 3, .content = "abc", .status = -1};
    int st = m->ops->write_many(m, inject ? nb + 1 : nb, w);
    EXPECT(st, NC_EINVAL);
    EXPECT(w[0].status, NC_EINVAL);
    for (size_t i = 1; i < nb; i++)
        EXPECT(w[i].status, NC_NOERR);
    if (inject) {
        EXPECT(w[nb].status, NC_ES3);
        w[0] = w[nb];
        EXPECT(m->ops->write_many(m, 1, w), NC_ES3);
        EXPECT(m->ops->exists(m, "/many/zfail") != NC_NOERR, 1);
    }
    if (nb > 1) {
        void *d = NULL;
        size_t len = 0;
        OK(m->ops->read_all(m, keys[n + 1], &d, &len));
        EXPECT(len == size && (size == 0 || memcmp(d, bufs[0], size) == 0), 1);
        free(d);
    }
    OK(m->ops->write_many(m, 0, w));
    OK(m->ops->close(m, 0));

    /* read-only: every request refused, none silently */
    MUST(ncz_map_open(url, modes, NCZ_MAP_READ, &m));
    /* what was written (kept in memory, spilled, or sent) is in the store */
    {
        const char *check[3] = {keys[0], keys[n - 1], keys[2 * n - 1]};
        const unsigned char *want[3] = {bufs[0], bufs[n - 1], bufs[n - 1]};
        for (int i = 0; i < 3; i++) {
            void *d = NULL;
            size_t len = 0;
            OK(m->ops->read_all(m, check[i], &d, &len));
            CHECK(len == size && (size == 0 || memcmp(d, want[i], size) == 0),
                  "%s after reopen", check[i]);
            free(d);
        }
    }
    w[0] = (NCZ_write_req){.key = keys[0], .count = 1, .content = "x", .status = -1};
    w[1] = (NCZ_write_req){.key = keys[1 % n], .count = 1, .content = "y", .status = -1};
    EXPECT(m->ops->write_many(m, 2, w), NC_EPERM);
    EXPECT(w[0].status, NC_EPERM);
    EXPECT(w[1].status, NC_EPERM);
    OK(m->ops->close(m, 1));

    for (size_t i = 0; i < n; i++)
        free(bufs[i]);
    free(bufs);
    free(keys);
    free(w);
    free(r);
}

int
main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: zmap_many URL MODELIST NOBJ SIZE [fail]\n");
        return 2;
    }
    run(argv[1], argv[2], (size_t)atol(argv[3]), (size_t)atol(argv[4]),
        argc > 5 && strcmp(argv[5], "fail") == 0);
    return nct_summary("zmap_many");
}
