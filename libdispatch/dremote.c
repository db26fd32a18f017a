/* dremote.c: the remote reader (contract: ncremote.h).
 *
 * Layout: settings, the block cache (hash of block index -> block, LRU
 * list), answers (one ranged request checked: status, Content-Range,
 * validators, length), fetch plans (runs of missing blocks, each one
 * request, sent one at a time on a kept-alive connection or together on
 * curl multi, retried with a growing pause), then the public functions.
 *
 * Blocks are aligned on the block size; the last one of the file is
 * shorter.  A read larger than half the cache goes straight into the
 * caller's buffer for the blocks it covers whole, so a big read neither
 * flushes the cache nor needs memory beyond the caller's.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "netcdf.h"
#include "ncinfer.h"
#include "ncstate.h"
#include "ncremote.h"
#include "ncdispatch.h"
#include "ncformat.h"

int
NC_remote_is_url(const char *path)
{
    size_t i = 0;
    if (path == NULL)
        return 0;
    while ((path[i] >= 'a' && path[i] <= 'z') || (path[i] >= 'A' && path[i] <= 'Z')
           || (i > 0 && ((path[i] >= '0' && path[i] <= '9') || path[i] == '+' || path[i] == '-'
                         || path[i] == '.')))
        i++;
    return i >= 2 && strncmp(path + i, "://", 3) == 0;
}

#if NC_HAVE_HTTP

#include <strings.h>
#include "nchttp.h"
#include "ncrc.h"
#include "ncs3.h"

#define R_BLOCK_DEFAULT ((size_t)1 << 20)
#define R_CACHE_DEFAULT ((size_t)64 << 20)
#define R_CONN_DEFAULT 4
#define R_BLOCK_MIN ((size_t)4096)
#define R_BLOCK_MAX ((size_t)256 << 20)
#define R_CONN_MAX 64
#define R_MAX_BLOCKS ((unsigned long long)1 << 20) /* cache capacity in blocks, at most */
#define R_RETRIES 4                        /* attempts after the first */
#define R_PAUSE_MS 50                      /* first pause; doubles each time */
#define R_REQ_MAX ((unsigned long long)16 << 20) /* bytes per request, at most */
#define R_HEAD_MAGIC 8                     /* bytes inference needs */
/* SHA-256 of an empty payload, the x-amz-content-sha256 of a signed GET */
#define R_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* ---- settings ---- */

/* A size setting: the environment variable, else the .ncrc key for url,
 * else dflt.  Accepts a number with an optional k/m/g suffix (binary). */
static unsigned long long
setting(const char *env, const char *key, const char *url, unsigned long long dflt)
{
    const char *v = getenv(env);
    char *rc = NULL, *end = NULL;
    unsigned long long x;
    if (v == NULL || *v == '\0')
        v = rc = NC_rc_lookup(key, url);
    if (v == NULL)
        return dflt;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (errno != 0 || end == v)
        x = dflt;
    else if (*end == 'k' || *end == 'K')
        x <<= 10;
    else if (*end == 'm' || *end == 'M')
        x <<= 20;
    else if (*end == 'g' || *end == 'G')
        x <<= 30;
    free(rc);
    return x;
}

/* ---- the block cache ---- */

typedef struct rblock {
    unsigned long long index;
    struct rblock *prev, *next; /* LRU list, most recently used first */
    struct rblock *hnext;       /* hash chain */
    unsigned char data[];       /* the block's bytes (shorter for the last block) */
} rblock;

struct NC_remote {
    char *url;            /* what requests ask for: the URL without its fragment */
    nch_raw *conn;        /* handle for single requests */
    nch_pool *pool;      /* connections kept alive for every request */
    unsigned long long size;
    size_t bsize;         /* block size */
    size_t maxblocks;     /* cache capacity in blocks */
    size_t nblocks;       /* blocks held */
    rblock **hash;        /* hcap chains */
    size_t hcap;
    rblock *head, *tail;  /* LRU list */
    size_t maxconn;       /* concurrent requests */
    unsigned long long nextblock; /* first block after the last read */
    int seq;              /* consecutive sequential reads seen */
    int norange;          /* the server answers ranges with the whole file (200) */
    char etag[128];       /* validators of the first answer */
    char lastmod[64];
    char *sigv4;          /* S3 with credentials: curl's SigV4 spec, else NULL */
    char *token;          /* "x-amz-security-token: ..." header, or NULL */
    NC_s3_cfg s3;         /* S3 objects: endpoint, bucket, key, region, keys */
    NC_remote_stats st;
};

static size_t
hslot(const NC_remote *r, unsigned long long index)
{
    return (size_t)((index * 0x9E3779B97F4A7C15ull) >> 20) & (r->hcap - 1);
}

static rblock *
cache_find(NC_remote *r, unsigned long long index)
{
    rblock *b;
    for (b = r->hash[hslot(r, index)]; b != NULL; b = b->hnext)
        if (b->index == index)
            break;
    if (b != NULL && b != r->head) { /* move to the front */
        b->prev->next = b->next;
        if (b->next)
            b->next->prev = b->prev;
        else
            r->tail = b->prev;
        b->prev = NULL;
        b->next = r->head;
        r->head->prev = b;
        r->head = b;
    }
    return b;
}

static void
cache_unlink(NC_remote *r, rblock *b)
{
    rblock **pp = &r->hash[hslot(r, b->index)];
    while (*pp != b)
        pp = &(*pp)->hnext;
    *pp = b->hnext;
    if (b->prev)
        b->prev->next = b->next;
    else
        r->head = b->next;
    if (b->next)
        b->next->prev = b->prev;
    else
        r->tail = b->prev;
    r->nblocks--;
}

/* Bytes of block index (the last one is shorter). */
static size_t
block_len(const NC_remote *r, unsigned long long index)
{
    unsigned long long start = index * r->bsize;
    unsigned long long left = r->size - start;
    return left < r->bsize ? (size_t)left : r->bsize;
}

/* Put a copy of block index (its bytes at src) in the cache, dropping the
 * least recently used block when full.  Out of memory only loses the copy. */
static void
cache_put(NC_remote *r, unsigned long long index, const unsigned char *src)
{
    size_t len = block_len(r, index);
    rblock *b;
    size_t h;
    if (r->maxblocks == 0 || cache_find(r, index) != NULL)
        return;
    if (r->nblocks >= r->maxblocks) {
        b = r->tail;
        cache_unlink(r, b);
        free(b);
    }
    if ((b = malloc(sizeof(*b) + len)) == NULL)
        return;
    memcpy(b->data, src, len);
    b->index = index;
    h = hslot(r, index);
    b->hnext = r->hash[h];
    r->hash[h] = b;
    b->prev = NULL;
    b->next = r->head;
    if (r->head)
        r->head->prev = b;
    else
        r->tail = b;
    r->head = b;
    r->nblocks++;
}

static void
cache_clear(NC_remote *r)
{
    rblock *b = r->head;
    while (b != NULL) {
        rblock *n = b->next;
        free(b);
        b = n;
    }
    r->head = r->tail = NULL;
    r->nblocks = 0;
    if (r->hash)
        memset(r->hash, 0, r->hcap * sizeof(*r->hash));
}

/* ---- answers ---- */

/* Outcome of one attempt: done, worth another try, or a final error. */
enum { A_OK = 0, A_RETRY = 1 };

/* Parse "bytes FIRST-LAST/TOTAL", or "bytes *" "/TOTAL" (first = last = -1). */
static int
parse_content_range(const char *s, long long *first, long long *last, long long *total)
{
    char *end;
    if (strncmp(s, "bytes ", 6) != 0)
        return 0;
    s += 6;
    *first = *last = -1;
    if (*s == '*') {
        s++;
    } else {
        *first = strtoll(s, &end, 10);
        if (end == s || *end != '-')
            return 0;
        s = end + 1;
        *last = strtoll(s, &end, 10);
        if (end == s || *last < *first)
            return 0;
        s = end;
    }
    if (*s != '/')
        return 0;
    s++;
    *total = strtoll(s, &end, 10);
    return end != s && *total >= 0;
}

/* Compare the answer's validators with the first answer's.  A different
 * ETag or Last-Modified means the file changed between requests. */
static int
check_validators(const NC_remote *r, const nch_rawreq *q)
{
    if (r->etag[0] && q->etag[0] && strcmp(r->etag, q->etag) != 0)
        return NC_EIO;
    if (r->lastmod[0] && q->last_modified[0] && strcmp(r->lastmod, q->last_modified) != 0)
        return NC_EIO;
    return NC_NOERR;
}

/* Judge the answer to a request for len bytes at off (the transfer's
 * outcome xst as nch_raw_perform returned it).  *final gets the NC_* code
 * when the answer is final; returns A_RETRY when it is worth another try. */
static int
judge(NC_remote *r, nch_rawreq *q, int xst, unsigned long long off, size_t len, int *final)
{
    long long first, last, total;
    *final = NC_NOERR;
    if (xst == NC_ENOMEM) {
        *final = NC_ENOMEM;
        return A_OK;
    }
    /* A 200 answer fills the buffer and is stopped there on purpose. */
    if (q->status == 200 && q->overflow && q->got == len)
        xst = NC_NOERR;
    if (xst != NC_NOERR || q->status == 0 || q->status >= 500) {
        *final = xst != NC_NOERR ? NC_EIO : nch_status_error(q->status);
        return A_RETRY;
    }
    if (q->status != 200 && q->status != 206) {
        *final = q->status == 416 ? NC_EIO : nch_status_error(q->status);
        return A_OK;
    }
    if ((*final = check_validators(r, q)))
        return A_OK;
    if (q->status == 206) {
        if (!parse_content_range(q->content_range, &first, &last, &total)
            || (unsigned long long)total != r->size || (unsigned long long)first != off
            || (unsigned long long)(last - first + 1) != len) {
            *final = NC_EIO; /* another range, or the size changed */
            return A_OK;
        }
    } else if (q->content_length >= 0 && (unsigned long long)q->content_length != r->size) {
        *final = NC_EIO;
        return A_OK;
    }
    if (q->got != len) { /* a body cut short */
        *final = NC_EIO;
        return A_RETRY;
    }
    return A_OK;
}

/* Fill a zeroed request for len bytes at off into dst. */
static int
prep_request(const NC_remote *r, nch_rawreq *q, unsigned long long off, size_t len, void *dst)
{
    int stat;
    q->method = "GET";
    q->pool = r->pool;
    if ((q->url = strdup(r->url)) == NULL)
        return NC_ENOMEM;
    if (r->sigv4 != NULL) {
        if ((stat = nch_rawreq_header(q, "x-amz-content-sha256: " R_EMPTY_SHA256))
            || (r->token != NULL && (stat = nch_rawreq_header(q, r->token))))
            return stat;
        q->sigv4 = r->sigv4;
        q->user = r->s3.access_key;
        q->password = r->s3.secret_key;
    }
    if (r->norange)
        q->skip = off;
    snprintf(q->range, sizeof q->range, "%llu-%llu", off, off + len - 1);
    q->dst = dst;
    q->dstcap = len;
    return NC_NOERR;
}

static void
pause_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* One request for len bytes at off into dst on the kept-alive connection,
 * with retries. */
static int
fetch_one(NC_remote *r, unsigned long long off, size_t len, void *dst)
{
    int final = NC_NOERR;
    for (int attempt = 0; attempt <= R_RETRIES; attempt++) {
        nch_rawreq q;
        int xst, verdict;
        if (attempt > 0) {
            pause_ms((unsigned)R_PAUSE_MS << (attempt - 1));
            r->st.retries++;
        }
        memset(&q, 0, sizeof q);
        if ((final = prep_request(r, &q, off, len, dst))) {
            nch_rawreq_clear(&q);
            return final;
        }
        xst = nch_raw_perform(r->conn, &q);
        r->st.requests++;
        r->st.bytes += q.got;
        verdict = judge(r, &q, xst, off, len, &final);
        nch_rawreq_clear(&q);
        if (verdict != A_RETRY)
            return final;
    }
    return final;
}

/* ---- fetch plans ---- */

/* One request of a plan: len bytes at off into dst (the caller's buffer,
 * or tmp, owned, whose blocks go to the cache). */
typedef struct rpiece {
    unsigned long long off;
    size_t len;
    unsigned char *dst;
    int cached;            /* dst is tmp; its blocks go to the cache */
    int stat;              /* outcome */
    int retry;             /* worth another try */
} rpiece;

typedef struct rplan {
    rpiece *p;
    size_t n, cap;
    unsigned long long maxlen; /* bytes per request, at most */
} rplan;

static void
plan_free(rplan *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->p[i].cached)
            free(pl->p[i].dst);
    free(pl->p);
    memset(pl, 0, sizeof(*pl));
}

/* Add block index to the plan: extends the last piece when the block
 * follows it and goes the same way (direct into dst, or to the cache). */
static int
plan_block(NC_remote *r, rplan *pl, unsigned long long index, unsigned char *direct)
{
    unsigned long long start = index * r->bsize;
    size_t len = block_len(r, index);
    rpiece *last = pl->n ? &pl->p[pl->n - 1] : NULL;
    if (last != NULL && last->off + last->len == start && (last->cached == (direct == NULL))
        && last->len + len <= pl->maxlen && (direct == NULL || last->dst + last->len == direct)) {
        last->len += len;
        return NC_NOERR;
    }
    if (pl->n == pl->cap) {
        size_t ncap = pl->cap ? 2 * pl->cap : 8;
        rpiece *np = realloc(pl->p, ncap * sizeof(*np));
        if (np == NULL)
            return NC_ENOMEM;
        pl->p = np;
        pl->cap = ncap;
    }
    last = &pl->p[pl->n++];
    memset(last, 0, sizeof(*last));
    last->off = start;
    last->len = len;
    last->dst = direct;
    last->cached = direct == NULL;
    return NC_NOERR;
}

/* The batch callbacks of nch_raw_perform_many over a plan. */
typedef struct rbatch {
    NC_remote *r;
    rplan *pl;
    size_t *which; /* plan index of each request */
} rbatch;

static int
b_prep(void *arg, size_t i, nch_rawreq *q)
{
    rbatch *b = arg;
    rpiece *p = &b->pl->p[b->which[i]];
    return prep_request(b->r, q, p->off, p->len, p->dst);
}

static int
b_done(void *arg, size_t i, nch_rawreq *q, int st)
{
    rbatch *b = arg;
    rpiece *p = &b->pl->p[b->which[i]];
    int final;
    b->r->st.requests++;
    b->r->st.bytes += q->got;
    p->retry = judge(b->r, q, st, p->off, p->len, &final) == A_RETRY;
    p->stat = final;
    return final;
}

static void
b_fail(void *arg, size_t i, int st)
{
    rbatch *b = arg;
    rpiece *p = &b->pl->p[b->which[i]];
    p->stat = st;
    p->retry = st == NC_EIO || st == NC_ECURL;
}

/* Only answers that are final errors stop a batch; retries come after. */
static int
b_serious(int st)
{
    (void)st;
    return 0;
}

/* Fetch every piece of the plan: tmp buffers allocated, one request on the
 * kept-alive connection when there is one piece, else all of them on curl
 * multi, the failed ones retried one by one. */
static int
plan_run(NC_remote *r, rplan *pl)
{
    size_t *which = NULL;
    int stat = NC_NOERR;
    for (size_t i = 0; i < pl->n; i++)
        if (pl->p[i].cached && (pl->p[i].dst = malloc(pl->p[i].len)) == NULL) {
            pl->p[i].cached = 0; /* nothing to free */
            return NC_ENOMEM;
        }
    if (pl->n == 1)
        return fetch_one(r, pl->p[0].off, pl->p[0].len, pl->p[0].dst);
    if ((which = malloc(pl->n * sizeof(*which))) == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < pl->n; i++)
        which[i] = i;
    {
        rbatch b = {r, pl, which};
        nch_raw_batch bt = {&b, b_prep, b_done, b_fail, b_serious, NC_ECURL};
        unsigned long long sent = 0;
        (void)nch_raw_perform_many(&bt, pl->n, r->maxconn, &sent);
    }
    for (size_t i = 0; i < pl->n && stat == NC_NOERR; i++) {
        rpiece *p = &pl->p[i];
        if (p->stat == NC_NOERR)
            continue;
        if (!p->retry) {
            stat = p->stat;
            break;
        }
        r->st.retries++;
        pause_ms(R_PAUSE_MS);
        stat = fetch_one(r, p->off, p->len, p->dst);
    }
    free(which);
    return stat;
}

/* ---- reads ---- */

/* Copy the part of block index (bytes at src) that falls in [off, off+n)
 * into buf (which holds [off, off+n)). */
static void
copy_overlap(const NC_remote *r, unsigned long long index, const unsigned char *src,
             unsigned long long off, size_t n, unsigned char *buf)
{
    unsigned long long bs = index * r->bsize, be = bs + block_len(r, index);
    unsigned long long a = bs > off ? bs : off, z = be < off + n ? be : off + n;
    if (a < z)
        memcpy(buf + (a - off), src + (a - bs), (size_t)(z - a));
}

/* Plan the blocks of [off, off+n) that are not cached and not in the plan's
 * last piece; copy those that are cached.  big: fully covered blocks go
 * straight into buf. */
static int
plan_range(NC_remote *r, rplan *pl, unsigned long long off, size_t n, unsigned char *buf, int big)
{
    unsigned long long b0 = off / r->bsize, b1 = (off + n - 1) / r->bsize;
    int stat;
    for (unsigned long long b = b0; b <= b1; b++) {
        rblock *c = cache_find(r, b);
        unsigned long long bs = b * r->bsize;
        if (c != NULL) {
            r->st.hits++;
            copy_overlap(r, b, c->data, off, n, buf);
            continue;
        }
        /* Planned already for the range before (adjacent ranges share
         * their boundary block): plan_deliver copies it to both. */
        if (pl->n > 0 && pl->p[pl->n - 1].cached && bs >= pl->p[pl->n - 1].off &&
            bs < pl->p[pl->n - 1].off + pl->p[pl->n - 1].len)
            continue;
        r->st.misses++;
        if (big && bs >= off && bs + block_len(r, b) <= off + n)
            stat = plan_block(r, pl, b, buf + (bs - off));
        else
            stat = plan_block(r, pl, b, NULL);
        if (stat)
            return stat;
    }
    return NC_NOERR;
}

/* After a plan ran: blocks fetched into tmp buffers go to the caller's
 * ranges and to the cache. */
static void
plan_deliver(NC_remote *r, rplan *pl, size_t k, const NC_remote_range *ranges,
             void *const *bufs)
{
    for (size_t i = 0; i < pl->n; i++) {
        rpiece *p = &pl->p[i];
        if (!p->cached)
            continue;
        for (size_t j = 0; j < k; j++)
            if (ranges[j].len > 0 && p->off < ranges[j].off + ranges[j].len
                && ranges[j].off < p->off + p->len) {
                unsigned long long a = p->off > ranges[j].off ? p->off : ranges[j].off;
                unsigned long long z = p->off + p->len < ranges[j].off + ranges[j].len
                                           ? p->off + p->len
                                           : ranges[j].off + ranges[j].len;
                memcpy((unsigned char *)bufs[j] + (a - ranges[j].off), p->dst + (a - p->off),
                       (size_t)(z - a));
            }
        for (unsigned long long at = p->off; at < p->off + p->len; at += r->bsize)
            cache_put(r, at / r->bsize, p->dst + (at - p->off));
    }
}

int
NC_remote_read_many(NC_remote *r, size_t k, const NC_remote_range *ranges, void *const *bufs)
{
    rplan pl = {NULL, 0, 0, R_REQ_MAX};
    unsigned long long total = 0, lastblock = 0;
    int stat = NC_NOERR, big;
    if (r == NULL || (k > 0 && (ranges == NULL || bufs == NULL)))
        return NC_EINVAL;
    for (size_t j = 0; j < k; j++) {
        if (ranges[j].off > r->size || ranges[j].len > r->size - ranges[j].off)
            return NC_EINVAL;
        total += ranges[j].len;
    }
    big = total > (unsigned long long)r->maxblocks * r->bsize / 2;
    /* A large read is cut into one request per connection (whole blocks),
     * fetched at the same time. */
    if (r->maxconn > 1 && total / r->maxconn < pl.maxlen) {
        pl.maxlen = (total / r->maxconn + r->bsize - 1) / r->bsize * r->bsize;
        if (pl.maxlen < r->bsize)
            pl.maxlen = r->bsize;
    }
    for (size_t j = 0; j < k && stat == NC_NOERR; j++)
        if (ranges[j].len > 0)
            stat = plan_range(r, &pl, ranges[j].off, ranges[j].len, bufs[j], big);
    if (stat == NC_NOERR && k > 0 && total > 0) {
        /* A sequential reader gets the blocks after this read too, up to
         * one block per connection, fetched with the rest. */
        const NC_remote_range *z = &ranges[k - 1];
        unsigned long long first = ranges[0].off / r->bsize;
        lastblock = (z->off + (z->len ? z->len : 1) - 1) / r->bsize;
        if (first == r->nextblock || first + 1 == r->nextblock)
            r->seq++;
        else
            r->seq = 0;
        if (r->seq >= 1 && !big && pl.n > 0) {
            unsigned long long nb = (r->size + r->bsize - 1) / r->bsize;
            for (unsigned long long b = lastblock + 1;
                 b < nb && b <= lastblock + r->maxconn && stat == NC_NOERR; b++)
                if (cache_find(r, b) == NULL)
                    stat = plan_block(r, &pl, b, NULL);
        }
        r->nextblock = lastblock + 1;
    }
    if (stat == NC_NOERR && pl.n > 0 && (stat = plan_run(r, &pl)) == NC_NOERR)
        plan_deliver(r, &pl, k, ranges, bufs);
    plan_free(&pl);
    return stat;
}

int
NC_remote_read(NC_remote *r, unsigned long long off, size_t n, void *buf)
{
    NC_remote_range rg = {off, n};
    void *bufs[1] = {buf};
    return NC_remote_read_many(r, 1, &rg, bufs);
}

/* ---- open and close ---- */

/* Is url (no fragment) an S3 object: s3://, or a host of AWS S3? */
static int
is_s3(const char *url)
{
    const char *h, *e;
    size_t n;
    if (strncasecmp(url, "s3://", 5) == 0)
        return 1;
    h = strstr(url, "://") + 3;
    e = h + strcspn(h, "/?");
    n = (size_t)(e - h);
    /* ignore a port */
    for (const char *c = h; c < e; c++)
        if (*c == ':') {
            n = (size_t)(c - h);
            break;
        }
    return n > 14 && strncasecmp(h + n - 14, ".amazonaws.com", 14) == 0;
}

/* The value of key "k=v" in a fragment "a=b&c&k=v", a copy, or NULL. */
static char *
frag_value(const char *frag, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = frag; p != NULL && *p;) {
        const char *amp = strchr(p, '&');
        size_t n = amp ? (size_t)(amp - p) : strlen(p);
        if (n > kl && p[kl] == '=' && strncasecmp(p, key, kl) == 0) {
            char *v = malloc(n - kl);
            if (v != NULL) {
                memcpy(v, p + kl + 1, n - kl - 1);
                v[n - kl - 1] = '\0';
            }
            return v;
        }
        p = amp ? amp + 1 : NULL;
    }
    return NULL;
}

/* S3 object: the request URL from the bucket and key (path or virtual-host
 * style), the region (the fragment's aws.region over the rest), and SigV4
 * signing when credentials were found. */
static int
s3_setup(NC_remote *r, const char *frag)
{
    int stat;
    char *region, *u;
    size_t n, k = 0;
    static const char hex[] = "0123456789ABCDEF";
    if ((stat = NC_s3_cfg_from_url(r->url, &r->s3)))
        return stat;
    if (r->s3.prefix == NULL || r->s3.prefix[0] == '\0')
        return NC_EURL; /* a bucket, not an object */
    if ((region = frag_value(frag, "aws.region")) != NULL) {
        free(r->s3.region);
        r->s3.region = region;
    }
    n = strlen(r->s3.endpoint) + strlen(r->s3.bucket) + 3 * strlen(r->s3.prefix) + 4;
    if ((u = malloc(n)) == NULL)
        return NC_ENOMEM;
    k = (size_t)snprintf(u, n, r->s3.vhost ? "%s/" : "%s/%s/", r->s3.endpoint, r->s3.bucket);
    /* the key percent-encoded as SigV4 wants it ('/' kept) */
    for (const unsigned char *p = (const unsigned char *)r->s3.prefix; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')
            || *p == '-' || *p == '_' || *p == '.' || *p == '~' || *p == '/') {
            u[k++] = (char)*p;
        } else {
            u[k++] = '%';
            u[k++] = hex[*p >> 4];
            u[k++] = hex[*p & 15];
        }
    }
    u[k] = '\0';
    free(r->url);
    r->url = u;
    if (r->s3.access_key != NULL) {
        n = strlen(r->s3.region) + 16;
        if ((r->sigv4 = malloc(n)) == NULL)
            return NC_ENOMEM;
        snprintf(r->sigv4, n, "aws:amz:%s:s3", r->s3.region);
        if (r->s3.session_token != NULL) {
            n = strlen(r->s3.session_token) + 32;
            if ((r->token = malloc(n)) == NULL)
                return NC_ENOMEM;
            snprintf(r->token, n, "x-amz-security-token: %s", r->s3.session_token);
        }
    }
    return NC_NOERR;
}

/* The first request: the head of the file (one block), its size from the
 * answer, its validators kept. */
static int
first_request(NC_remote *r)
{
    unsigned char *head = NULL;
    int final = NC_NOERR;
    if ((head = malloc(r->bsize)) == NULL)
        return NC_ENOMEM;
    for (int attempt = 0; attempt <= R_RETRIES; attempt++) {
        nch_rawreq q;
        long long first, last, total;
        int xst;
        if (attempt > 0) {
            pause_ms((unsigned)R_PAUSE_MS << (attempt - 1));
            r->st.retries++;
        }
        memset(&q, 0, sizeof q);
        if ((final = prep_request(r, &q, 0, r->bsize, head))) {
            nch_rawreq_clear(&q);
            break;
        }
        xst = nch_raw_perform(r->conn, &q);
        r->st.requests++;
        r->st.bytes += q.got;
        if (q.status == 200 && q.overflow)
            xst = NC_NOERR; /* a server ignoring ranges, stopped after one block */
        if (xst == NC_ENOMEM) {
            final = NC_ENOMEM;
        } else if (xst != NC_NOERR || q.status == 0 || q.status >= 500) {
            final = NC_EIO;
            nch_rawreq_clear(&q);
            continue;
        } else if (q.status == 206 || q.status == 416) {
            if (!parse_content_range(q.content_range, &first, &last, &total)
                || (q.status == 206 && (first != 0 || (size_t)(last + 1) != q.got))
                || (q.status == 416 && total != 0))
                final = NC_EIO;
            else
                r->size = (unsigned long long)total;
        } else if (q.status == 200) {
            if (q.content_length < 0 && q.overflow)
                final = NC_EIO; /* no range and no size: cannot address the file */
            else {
                r->size = q.content_length >= 0 ? (unsigned long long)q.content_length : q.got;
                r->norange = 1;
            }
        } else {
            final = nch_status_error(q.status);
        }
        if (final == NC_NOERR) {
            snprintf(r->etag, sizeof r->etag, "%s", q.etag);
            snprintf(r->lastmod, sizeof r->lastmod, "%s", q.last_modified);
            if (q.got < block_len(r, 0) && r->size > 0)
                final = NC_EIO;
        }
        nch_rawreq_clear(&q);
        if (final == NC_NOERR && r->size > 0)
            cache_put(r, 0, head);
        if (final == NC_NOERR)
            r->nextblock = 1;
        break;
    }
    free(head);
    return final;
}

/* The file remote_open_any opened to learn its format, waiting for the
 * layer it hands the URL to (per thread: opens run in the caller's). */
static _Thread_local struct {
    const char *url;
    NC_remote *r;
} pending;

int
NC_remote_open(const char *url, NC_remote **rp)
{
    NC_remote *r;
    unsigned long long bs, cs, nc;
    size_t ulen;
    int stat;
    if (url == NULL || rp == NULL)
        return NC_EINVAL;
    *rp = NULL;
    if (pending.r != NULL && pending.url != NULL && strcmp(pending.url, url) == 0) {
        *rp = pending.r; /* opened by remote_open_any for this layer */
        pending.r = NULL;
        return NC_NOERR;
    }
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0
        && strncasecmp(url, "s3://", 5) != 0)
        return NC_EURL;
    if ((r = calloc(1, sizeof(*r))) == NULL)
        return NC_ENOMEM;
    ulen = strcspn(url, "#");
    if ((r->url = malloc(ulen + 1)) == NULL) {
        free(r);
        return NC_ENOMEM;
    }
    memcpy(r->url, url, ulen);
    r->url[ulen] = '\0';
    if (is_s3(r->url) && (stat = s3_setup(r, url[ulen] == '#' ? url + ulen + 1 : "")))
        goto fail;
    bs = setting("NETCDF_BYTERANGE_BLOCKSIZE", "HTTP.BYTERANGE.BLOCKSIZE", r->url, R_BLOCK_DEFAULT);
    cs = setting("NETCDF_BYTERANGE_CACHESIZE", "HTTP.BYTERANGE.CACHESIZE", r->url, R_CACHE_DEFAULT);
    nc = setting("NETCDF_BYTERANGE_CONNECTIONS", "HTTP.BYTERANGE.CONNECTIONS", r->url, R_CONN_DEFAULT);
    r->bsize = (size_t)(bs < R_BLOCK_MIN ? R_BLOCK_MIN : bs > R_BLOCK_MAX ? R_BLOCK_MAX : bs);
    cs /= r->bsize;
    r->maxblocks = (size_t)(cs < 2 ? 2 : cs > R_MAX_BLOCKS ? R_MAX_BLOCKS : cs); /* at least
                                               * the head and the block being read */
    r->maxconn = (size_t)(nc < 1 ? 1 : nc > R_CONN_MAX ? R_CONN_MAX : nc);
    r->hcap = 64;
    while (r->hcap < r->maxblocks)
        r->hcap *= 2;
    if ((r->hash = calloc(r->hcap, sizeof(*r->hash))) == NULL) {
        stat = NC_ENOMEM;
        goto fail;
    }
    if ((stat = nch_pool_open(&r->pool)) || (stat = nch_raw_open(&r->conn)))
        goto fail;
    if ((stat = first_request(r)))
        goto fail;
    *rp = r;
    return NC_NOERR;
fail:
    NC_remote_close(r);
    return stat;
}

void
NC_remote_close(NC_remote *r)
{
    if (r == NULL)
        return;
    if (NC_get_log_level() >= 1)
        fprintf(stderr,
                "remote %s: %llu requests, %llu bytes, %llu block hits, %llu misses, %llu retries\n",
                r->url, r->st.requests, r->st.bytes, r->st.hits, r->st.misses, r->st.retries);
    cache_clear(r);
    nch_raw_close(r->conn);
    nch_pool_close(r->pool);
    NC_s3_cfg_clear(&r->s3);
    free(r->sigv4);
    free(r->token);
    free(r->hash);
    free(r->url);
    free(r);
}

unsigned long long
NC_remote_size(const NC_remote *r)
{
    return r ? r->size : 0;
}

int
NC_remote_model(NC_remote *r, int *formatxp)
{
    /* The first block (cached by the open): an HDF5 signature may follow a
     * user block of 512, 1024, ... bytes. */
    size_t n = r->size < r->bsize ? (size_t)r->size : r->bsize;
    NCmodel m = {0, 0, 0, NULL};
    unsigned char *head;
    int stat;
    if (n < 4)
        return NC_ENOTNC;
    if ((head = malloc(n)) == NULL)
        return NC_ENOMEM;
    if ((stat = NC_remote_read(r, 0, n, head)) == NC_NOERR &&
        (stat = NC_infer_bytes(head, n, &m)) == NC_NOERR)
        *formatxp = m.impl;
    free(head);
    return stat;
}

void
NC_remote_get_stats(const NC_remote *r, NC_remote_stats *st)
{
    if (r != NULL && st != NULL)
        *st = r->st;
}

/* ---- the byte-range row of the format registry ---- */

/* A URL with "#mode=bytes" names no format: the file's first block does.
 * The row's table is the classic one with its open replaced by
 * remote_open_any, which opens the remote file, recognises its format
 * (classic or HDF5), and hands the open to that format's layer -- the
 * record's table and model switched to the layer's -- which takes the
 * already open remote file from NC_remote_open (no second request). */
static int remote_open_any(const char *path, int mode, int basepe,
                           size_t *chunksizehintp, void *parameters,
                           const NC_Dispatch *table, int ncid);
/* Identified (model, version, open) from the start so the registry row is
 * well formed before initialisation; the other slots are the classic
 * layer's, copied in by remote_initialize. */
static NC_Dispatch remote_table = {
    .model = NC_FORMATX_NC3,
    .dispatch_version = NC_DISPATCH_VERSION,
    .open = remote_open_any,
};
static const NC_Dispatch *remote_table_ptr = &remote_table;

/* The dispatch table of the built layer of model, or NULL. */
static const NC_Dispatch *
layer_table(int model)
{
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_FormatImpl *impl = NC_formats[i].impl;
        if (NC_formats[i].model == model && NC_formats[i].modekeys == NULL && impl != NULL &&
            impl->dispatch != NULL && *impl->dispatch != NULL)
            return *impl->dispatch;
    }
    return NULL;
}

static int
remote_open_any(const char *path, int mode, int basepe, size_t *chunksizehintp,
                void *parameters, const NC_Dispatch *table, int ncid)
{
    const NC_Dispatch *t;
    NC_remote *r = NULL;
    NC *nc;
    int stat, model = 0;
    (void)table;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (mode & NC_WRITE)
        return NC_EPERM;
    if ((stat = NC_remote_open(path, &r)))
        return stat;
    if ((stat = NC_remote_model(r, &model))) {
        NC_remote_close(r);
        return stat;
    }
    /* Classic and netCDF-4/HDF5 files have a layer that reads them
     * remotely; anything else (HDF4, a user format) does not. */
    if ((model != NC_FORMATX_NC3 && model != NC_FORMATX_NC_HDF5) ||
        (t = layer_table(model)) == NULL) {
        NC_remote_close(r);
        return NC_ENOTBUILT;
    }
    nc->dispatch = t;
    nc->model = model;
    if (model == NC_FORMATX_NC_HDF5) {
        mode |= NC_NETCDF4;
        nc->mode |= NC_NETCDF4;
    }
    pending.url = path;
    pending.r = r;
    stat = t->open(path, mode, basepe, chunksizehintp, parameters, t, ncid);
    /* Not taken (the layer failed before opening it): closed here. */
    NC_remote_close(pending.r);
    pending.r = NULL;
    pending.url = NULL;
    return stat;
}

static int
remote_initialize(void)
{
    const NC_Dispatch *c = layer_table(NC_FORMATX_NC3);
    if (c == NULL)
        return NC_NOERR;
    remote_table = *c;
    remote_table.open = remote_open_any;
    remote_table_ptr = &remote_table;
    return NC_NOERR;
}

const NC_FormatImpl NC_remote_format_impl = {
    .model = NC_FORMATX_NC3,
    .name = "remote files over HTTP byte ranges",
    .dispatch = &remote_table_ptr,
    .initialize = remote_initialize,
};

#else /* no HTTP layer in this build */

int
NC_remote_open(const char *url, NC_remote **rp)
{
    (void)url;
    if (rp)
        *rp = NULL;
    return NC_ENOTBUILT;
}

void NC_remote_close(NC_remote *r) { (void)r; }
unsigned long long NC_remote_size(const NC_remote *r) { (void)r; return 0; }
int NC_remote_model(NC_remote *r, int *f) { (void)r; (void)f; return NC_ENOTBUILT; }
int NC_remote_read(NC_remote *r, unsigned long long o, size_t n, void *b)
{
    (void)r; (void)o; (void)n; (void)b;
    return NC_ENOTBUILT;
}
int NC_remote_read_many(NC_remote *r, size_t k, const NC_remote_range *g, void *const *b)
{
    (void)r; (void)k; (void)g; (void)b;
    return NC_ENOTBUILT;
}
void NC_remote_get_stats(const NC_remote *r, NC_remote_stats *st) { (void)r; if (st) memset(st, 0, sizeof *st); }

#endif
