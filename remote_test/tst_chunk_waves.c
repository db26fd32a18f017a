/* tst_chunk_waves.c: a read of many chunks through a format that fetches
 * several at once (fetch_many, as remote stores do) fetches them in waves
 * and decodes a wave while the next is being fetched.
 *
 * The format is made up here: chunk i.j of a [64*8][16] int variable is
 * held in memory, "encoded" by adding 1 to every byte.  Each fetch_many
 * after the first waits (up to a few seconds) for a chunk of an earlier
 * fetch to be decoded while it is still in progress: that happens only when
 * decoding overlaps the fetch.  The test checks every value read, that the
 * chunks came in more than one fetch but few (about log2 of the batch plus
 * four), that decoding overlapped fetching, that each chunk was fetched
 * once, and that a failing fetch of a later wave is the read's error. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nctst.h"
#include "ncchunk.h"

#define NCY 64   /* chunks along y */
#define CY 8     /* chunk extent along y */
#define NX 16    /* the x extent, one chunk */

typedef struct fake {
    pthread_mutex_t lock;
    pthread_cond_t decoded; /* a chunk was decoded */
    int fetching;           /* a fetch_many is in progress */
    long ndecoded, nfetch_calls, nfetched, noverlap, maxwave;
    long fetched[NCY];      /* times each chunk was fetched */
    int fail_call;          /* this fetch_many call fails (0: none) */
} fake;

static int
value_at(size_t y, size_t x)
{
    return (int)(y * 1000 + x * 7) - 12345;
}

static int
f_key(void *fmt, const uint64_t *idx, char **keyp)
{
    char b[64];
    (void)fmt;
    snprintf(b, sizeof(b), "%llu.%llu", (unsigned long long)idx[0], (unsigned long long)idx[1]);
    return (*keyp = strdup(b)) == NULL ? NC_ENOMEM : NC_NOERR;
}

static int
f_locate(void *fmt, const uint64_t *idx, ncc_raw *r)
{
    return f_key(fmt, idx, &r->key);
}

/* Wait up to 5 s for a decode while this fetch is in progress (locked). */
static void
wait_decode(fake *f)
{
    long before = f->ndecoded;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    while (f->ndecoded == before)
        if (pthread_cond_timedwait(&f->decoded, &f->lock, &until) == ETIMEDOUT)
            return;
    f->noverlap++;
}

static int
f_fetch_many(void *fmt, size_t n, ncc_raw *r)
{
    fake *f = fmt;
    int stat = NC_NOERR;
    pthread_mutex_lock(&f->lock);
    f->fetching = 1;
    f->nfetch_calls++;
    if ((long)n > f->maxwave)
        f->maxwave = (long)n;
    /* A chunk fetched earlier can be decoded now, if decoding overlaps. */
    if (f->nfetch_calls > 1 && f->nfetched > f->ndecoded)
        wait_decode(f);
    if (f->fail_call == f->nfetch_calls)
        stat = NC_EIO;
    for (size_t i = 0; i < n && stat == NC_NOERR; i++) {
        unsigned y0 = 0;
        int *buf;
        sscanf(r[i].key, "%u.", &y0);
        if (y0 >= NCY || (buf = malloc(CY * NX * sizeof(int))) == NULL) {
            stat = NC_ENOMEM;
            break;
        }
        for (size_t y = 0; y < CY; y++)
            for (size_t x = 0; x < NX; x++)
                buf[y * NX + x] = value_at(y0 * CY + y, x);
        for (size_t b = 0; b < CY * NX * sizeof(int); b++)
            ((unsigned char *)buf)[b] += 1;
        r[i].data = buf;
        r[i].len = CY * NX * sizeof(int);
        r[i].owned = 1;
        r[i].status = NC_NOERR;
        f->fetched[y0]++;
        f->nfetched++;
    }
    for (size_t i = 0; i < n && stat; i++)
        r[i].status = stat;
    f->fetching = 0;
    pthread_mutex_unlock(&f->lock);
    return stat;
}

static int
f_decode(void *fmt, const ncc_raw *r, void *dst, size_t dstlen, ncf_pool *inner)
{
    fake *f = fmt;
    (void)inner;
    if (r->len != dstlen)
        return NC_EFILTER;
    for (size_t b = 0; b < dstlen; b++)
        ((unsigned char *)dst)[b] = (unsigned char)(((const unsigned char *)r->data)[b] - 1);
    pthread_mutex_lock(&f->lock);
    f->ndecoded++;
    pthread_cond_broadcast(&f->decoded);
    pthread_mutex_unlock(&f->lock);
    return NC_NOERR;
}

static const ncc_ops ops = {.key = f_key, .locate = f_locate, .fetch_many = f_fetch_many, .decode = f_decode};

static void
read_all(int fail_call)
{
    size_t chunk[2] = {CY, NX}, dims[2] = {NCY * CY, NX};
    static const int fill = -1;
    ncc_grid g;
    ncc_sel s;
    ncc_var v;
    fake f;
    int *out = malloc(sizeof(int) * NCY * CY * NX);
    long bad = 0, twice = 0;
    CHECK(out != NULL, "no memory");
    if (out == NULL)
        return;
    memset(&f, 0, sizeof(f));
    pthread_mutex_init(&f.lock, NULL);
    pthread_cond_init(&f.decoded, NULL);
    f.fail_call = fail_call;
    MUST(ncc_grid_init(&g, 2, chunk, sizeof(int), (size_t)1 << 30));
    MUST(ncc_sel_init(&s, &g, NULL, NULL, NULL, dims, NULL));
    MUST(ncc_var_init(&v, &g, 0, &fill, 0, 0, &ops, &f));
    memset(out, 0, sizeof(int) * NCY * CY * NX);
    if (fail_call) {
        EXPECT(ncc_read(&v, &s, (unsigned char *)out), NC_EIO);
        CHECK(f.nfetch_calls == fail_call, "a failed wave ends the read: %ld fetches", f.nfetch_calls);
    } else {
        OK(ncc_read(&v, &s, (unsigned char *)out));
        for (size_t y = 0; y < NCY * CY; y++)
            for (size_t x = 0; x < NX; x++)
                bad += out[y * NX + x] != value_at(y, x);
        for (int c = 0; c < NCY; c++)
            twice += f.fetched[c] != 1;
        CHECK(bad == 0, "%ld values differ", bad);
        CHECK(twice == 0, "%ld chunks not fetched exactly once", twice);
        CHECK(f.ndecoded == NCY, "%ld chunks decoded of %d", f.ndecoded, NCY);
        /* In waves, but few of them. */
        CHECK(f.nfetch_calls >= 2 && f.nfetch_calls <= 12, "%ld fetches (largest %ld chunks)", f.nfetch_calls,
              f.maxwave);
        CHECK(f.maxwave < NCY, "one fetch of all %ld chunks", f.maxwave);
        CHECK(f.noverlap >= 1, "no chunk decoded while a fetch was in progress (%ld fetches)", f.nfetch_calls);
    }
    ncc_var_fini(&v);
    pthread_cond_destroy(&f.decoded);
    pthread_mutex_destroy(&f.lock);
    free(out);
}

int
main(void)
{
    read_all(0);
    read_all(3); /* the third fetch fails */
    return nct_summary("tst_chunk_waves");
}
