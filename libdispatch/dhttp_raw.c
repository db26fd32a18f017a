/* dhttp_raw.c: raw HTTP requests for stores that sign their own (contract:
 * nchttp.h, "raw requests").
 *
 * Layout: the body callback (a caller's fixed buffer with a skip for a 200
 * answer to a ranged request, or a growing buffer; error answers kept
 * apart, bounded), the set-up of one easy handle for one request, the
 * serial runner on a reusable handle, and the concurrent runner on curl's
 * multi interface.  No .ncrc settings apply here: the store (S3) says
 * everything its requests need, and redirects, cookies and content coding
 * stay off, as signed requests want.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>
#include "netcdf.h"
#include "nchttp.h"

#define RAW_ERRBODY_MAX 65536                  /* error bodies kept, at most */
#define RAW_PREALLOC_MAX ((curl_off_t)1 << 30) /* largest body reserved up front */
#define RAW_CONNECTTIMEOUT 30L                 /* seconds */
#define RAW_LOW_SPEED_TIME 120L                /* seconds under 1 byte/s: a stalled server */

struct nch_raw {
    CURL *easy;
};

/* What the body callback needs: the request and its handle. */
typedef struct RawXfer {
    nch_rawreq *r;
    CURL *easy;
    int started; /* first body bytes seen */
} RawXfer;

/* ---- body ---- */

static size_t
raw_write(char *ptr, size_t size, size_t nmemb, void *arg)
{
    RawXfer *x = arg;
    nch_rawreq *r = x->r;
    size_t n = size * nmemb;
    if (!x->started) {
        x->started = 1;
        curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &r->status);
        if (r->status == 200 && r->dst == NULL) {
            curl_off_t cl = -1;
            curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
            /* Reserve what the server announces, within reason: a lying
             * Content-Length must not make us allocate a petabyte. */
            if (cl > 0 && cl <= RAW_PREALLOC_MAX && r->body.cap < (size_t)cl + 1) {
                unsigned char *nd = realloc(r->body.data, (size_t)cl + 1);
                if (nd == NULL) {
                    r->nomem = 1;
                    return 0;
                }
                r->body.data = nd;
                r->body.cap = (size_t)cl + 1;
            }
        }
    }
    if (r->status >= 300) { /* keep (part of) the error document */
        size_t keep = r->errbody.len < RAW_ERRBODY_MAX ? RAW_ERRBODY_MAX - r->errbody.len : 0;
        if (keep > n)
            keep = n;
        if (keep)
            (void)nch_buf_append(&r->errbody, ptr, keep);
        return n;
    }
    if (r->status == 200 && r->skip) {
        size_t drop = r->skip < n ? (size_t)r->skip : n;
        r->skip -= drop;
        ptr += drop;
        n -= drop;
        if (n == 0)
            return size * nmemb;
    }
    if (r->dst != NULL) {
        if (n > r->dstcap - r->got) {
            /* Fill what fits; the caller decides whether the rest was wanted. */
            memcpy((char *)r->dst + r->got, ptr, r->dstcap - r->got);
            r->got = r->dstcap;
            r->overflow = 1;
            return 0;
        }
        memcpy((char *)r->dst + r->got, ptr, n);
        r->got += n;
        return size * nmemb;
    }
    if (nch_buf_append(&r->body, ptr, n)) {
        r->nomem = 1;
        return 0;
    }
    return size * nmemb;
}

/* ---- headers ---- */

/* Copy the value of header line h (len bytes) into dst when its name is
 * name: blanks around the value and the line end dropped, cut to fit. */
static void
raw_keep_header(const char *h, size_t len, const char *name, char *dst, size_t cap)
{
    size_t nl = strlen(name), a, b;
    if (len <= nl || strncasecmp(h, name, nl) != 0 || h[nl] != ':')
        return;
    for (a = nl + 1; a < len && (h[a] == ' ' || h[a] == '\t'); a++)
        ;
    for (b = len; b > a && (h[b - 1] == '\r' || h[b - 1] == '\n' || h[b - 1] == ' '); b--)
        ;
    if (b - a >= cap)
        b = a + cap - 1;
    memcpy(dst, h + a, b - a);
    dst[b - a] = '\0';
}

static size_t
raw_header(char *ptr, size_t size, size_t nmemb, void *arg)
{
    RawXfer *x = arg;
    nch_rawreq *r = x->r;
    size_t n = size * nmemb;
    if (n >= 5 && strncmp(ptr, "HTTP/", 5) == 0) { /* a new answer (after 100) */
        r->content_range[0] = r->etag[0] = r->last_modified[0] = '\0';
        return n;
    }
    raw_keep_header(ptr, n, "Content-Range", r->content_range, sizeof r->content_range);
    raw_keep_header(ptr, n, "ETag", r->etag, sizeof r->etag);
    raw_keep_header(ptr, n, "Last-Modified", r->last_modified, sizeof r->last_modified);
    return n;
}

/* ---- requests ---- */

int
nch_rawreq_header(nch_rawreq *r, const char *line)
{
    struct curl_slist *l = curl_slist_append(r->headers, line);
    if (l == NULL)
        return NC_ENOMEM;
    r->headers = l;
    return NC_NOERR;
}

void
nch_rawreq_clear(nch_rawreq *r)
{
    if (r == NULL)
        return;
    free(r->url);
    curl_slist_free_all(r->headers);
    nch_buf_free(&r->body);
    nch_buf_free(&r->errbody);
    memset(r, 0, sizeof(*r));
}

/* Configure easy (fresh or reset) for r. */
static int
raw_setup(CURL *easy, nch_rawreq *r, RawXfer *x)
{
    if (r->url == NULL || r->method == NULL)
        return NC_EINVAL;
    x->r = r;
    x->easy = easy;
    x->started = 0;
    r->content_length = -1;
    curl_easy_setopt(easy, CURLOPT_URL, r->url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT, RAW_CONNECTTIMEOUT);
    /* A stalled server fails instead of hanging the caller. */
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, RAW_LOW_SPEED_TIME);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, raw_write);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, raw_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, x);
    if (strcmp(r->method, "HEAD") == 0)
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    else if (strcmp(r->method, "PUT") == 0) {
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, "PUT");
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, r->payload ? (const char *)r->payload : "");
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->paylen);
        /* Not "Expect:" to switch 100-continue off: curl would sign that
         * empty header without sending it, and S3 would reject the signature. */
        curl_easy_setopt(easy, CURLOPT_EXPECT_100_TIMEOUT_MS, 300L);
    } else if (strcmp(r->method, "GET") != 0)
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, r->method);
    if (r->range[0])
        curl_easy_setopt(easy, CURLOPT_RANGE, r->range);
    if (r->sigv4 != NULL) {
        curl_easy_setopt(easy, CURLOPT_AWS_SIGV4, r->sigv4);
        curl_easy_setopt(easy, CURLOPT_USERNAME, r->user);
        curl_easy_setopt(easy, CURLOPT_PASSWORD, r->password);
    }
    if (r->headers != NULL)
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, (struct curl_slist *)r->headers);
    if (r->pool != NULL)
        curl_easy_setopt(easy, CURLOPT_SHARE, (CURLSH *)nch_pool_handle(r->pool));
    return NC_NOERR;
}

/* The outcome of a finished transfer of r on easy. */
static int
raw_finish(CURL *easy, nch_rawreq *r, CURLcode cc)
{
    curl_off_t cl = -1;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &r->status);
    if (curl_easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK)
        r->content_length = (long long)cl;
    if (r->nomem || cc == CURLE_OUT_OF_MEMORY)
        return NC_ENOMEM;
    switch (cc) {
    case CURLE_OK:
        return NC_NOERR;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
        return NC_EIO; /* body cut short */
    default:
        return NC_ECURL;
    }
}

int
nch_raw_open(nch_raw **hp)
{
    nch_raw *h;
    int stat;
    if (hp == NULL)
        return NC_EINVAL;
    *hp = NULL;
    if ((stat = nch_global_start()))
        return stat;
    if ((h = calloc(1, sizeof(*h))) == NULL)
        return NC_ENOMEM;
    if ((h->easy = curl_easy_init()) == NULL) {
        free(h);
        return NC_ENOMEM;
    }
    *hp = h;
    return NC_NOERR;
}

void
nch_raw_close(nch_raw *h)
{
    if (h == NULL)
        return;
    curl_easy_cleanup(h->easy);
    free(h);
}

int
nch_raw_perform(nch_raw *h, nch_rawreq *r)
{
    RawXfer x;
    CURLcode cc;
    int stat;
    if (h == NULL || r == NULL)
        return NC_EINVAL;
    curl_easy_reset(h->easy);
    if ((stat = raw_setup(h->easy, r, &x)))
        return stat;
    nch_count_request();
    cc = curl_easy_perform(h->easy);
    return raw_finish(h->easy, r, cc);
}

/* ---- concurrent requests ---- */

int
nch_raw_perform_many(const nch_raw_batch *bt, size_t n, size_t maxconn, unsigned long long *nsent)
{
    int first = NC_NOERR;
    size_t width = 0, next = 0, running = 0, s;
    CURLM *multi = NULL;
    nch_rawreq *slots = NULL;
    RawXfer *xfers = NULL;
    CURL **easies = NULL;
    size_t *owner = NULL;       /* request index of each slot */
    unsigned char *busy = NULL; /* slot holds a transfer */

    if (n == 0)
        return NC_NOERR;
    if (maxconn == 0)
        maxconn = 1;
    if ((first = nch_global_start()))
        goto done;
    width = n < maxconn ? n : maxconn;
    multi = curl_multi_init();
    slots = calloc(width, sizeof(*slots));
    xfers = calloc(width, sizeof(*xfers));
    easies = calloc(width, sizeof(*easies));
    owner = calloc(width, sizeof(*owner));
    busy = calloc(width, 1);
    if (!multi || !slots || !xfers || !easies || !owner || !busy) {
        first = NC_ENOMEM;
        goto done;
    }
    curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)maxconn);
    for (;;) {
        int still = 0, left;
        CURLMsg *msg;
        /* Fill free slots. */
        for (s = 0; s < width && next < n; s++) {
            nch_rawreq *r = &slots[s];
            int st;
            if (busy[s])
                continue;
            memset(r, 0, sizeof(*r));
            st = bt->prep(bt->arg, next, r);
            if (!st && !easies[s] && !(easies[s] = curl_easy_init()))
                st = NC_ENOMEM;
            if (!st) {
                curl_easy_reset(easies[s]);
                st = raw_setup(easies[s], r, &xfers[s]);
            }
            if (!st && curl_multi_add_handle(multi, easies[s]) != CURLM_OK)
                st = NC_ENOMEM;
            if (st) {
                bt->fail(bt->arg, next, st);
                if (bt->serious(st) && first == NC_NOERR)
                    first = st;
                nch_rawreq_clear(r);
                next++;
                s--; /* this slot takes the next request */
                continue;
            }
            owner[s] = next++;
            busy[s] = 1;
            nch_count_request();
            if (nsent)
                (*nsent)++;
            running++;
        }
        if (running == 0)
            break;
        if (curl_multi_perform(multi, &still) != CURLM_OK) {
            first = bt->fatal;
            break;
        }
        while ((msg = curl_multi_info_read(multi, &left))) {
            nch_rawreq *r;
            int st;
            if (msg->msg != CURLMSG_DONE)
                continue;
            for (s = 0; s < width && easies[s] != msg->easy_handle; s++)
                ;
            if (s == width)
                continue;
            r = &slots[s];
            st = raw_finish(easies[s], r, msg->data.result);
            st = bt->done(bt->arg, owner[s], r, st);
            if (bt->serious(st) && first == NC_NOERR)
                first = st;
            curl_multi_remove_handle(multi, easies[s]);
            nch_rawreq_clear(r);
            busy[s] = 0;
            running--;
        }
        if (still > 0 && curl_multi_poll(multi, NULL, 0, 1000, NULL) != CURLM_OK) {
            first = bt->fatal;
            break;
        }
    }
done:
    if (first && next < n) /* requests never started: say so */
        for (s = next; s < n; s++)
            bt->fail(bt->arg, s, first);
    if (slots != NULL)
        for (s = 0; s < width; s++) {
            if (easies && easies[s]) {
                if (busy && busy[s]) {
                    curl_multi_remove_handle(multi, easies[s]);
                    bt->fail(bt->arg, owner[s], first ? first : bt->fatal);
                }
                curl_easy_cleanup(easies[s]);
            }
            nch_rawreq_clear(&slots[s]);
        }
    free(slots);
    free(xfers);
    free(easies);
    free(owner);
    free(busy);
    if (multi)
        curl_multi_cleanup(multi);
    return first;
}
