/* zmap_s3.c: the S3 store of zmap.h over the HTTP layer (libcurl).
 *
 * Requests: HEAD (exists, len), GET with Range (read), GET (read_all), PUT
 * (write), DELETE (del), ListObjectsV2 GET with prefix/delimiter and
 * continuation tokens (list, list_all, open).  Requests go through
 * libdispatch's HTTP layer (nchttp.h, raw requests): each store keeps one
 * reusable connection (nch_raw); read_many and write_many run up to
 * S3_MAXCONN transfers at once (nch_raw_perform_many).  Every HTTP request
 * is counted (nrequests).
 *
 * Signing: curl's built-in AWS SigV4 ("aws:amz:REGION:s3", through the
 * layer) when credentials were found, unsigned requests otherwise.  curl 7.x does
 * not send the x-amz-content-sha256 header S3 requires, so we add it (the
 * payload's SHA-256, which is also what curl puts in the canonical request;
 * curl signs every header we add).  Query strings are built already sorted
 * and encoded, so they are their own canonical form.
 *
 * Errors are translated once (http_status): 404 -> NC_EEMPTY for an object,
 * 401/403 -> NC_EAUTH, 416 -> NC_EINVAL, other HTTP errors -> NC_ES3;
 * connection failures -> NC_ES3, a body cut short -> NC_EIO. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "zmap_s3.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <openssl/evp.h>

#include <netcdf.h>

#include "nchttp.h"

#define S3_MAXCONN 16          /* concurrent transfers in read_many/write_many */
#define S3_LIST_PAGE "1000"    /* keys per ListObjectsV2 page */

typedef struct S3Map {
    NCZ_map head;    /* first: the zmap.h head */
    NCZ_s3_cfg cfg;  /* where and who */
    nch_raw *raw;    /* connection for serial requests */
    char *sigv4;     /* "aws:amz:REGION:s3", NULL when anonymous */
    char *objbase;   /* endpoint [+ "/" bucket]: object URLs append "/" key */
    char *listurl;   /* the bucket URL for listings (no query) */
    uint64_t nreq;   /* HTTP requests issued */
} S3Map;

/* ---- process-wide init --------------------------------------------------- */

static pthread_once_t s3_once = PTHREAD_ONCE_INIT;

static void
s3_init(void)
{
    xmlInitParser();
}

/* ---- one request ------------------------------------------------------------- */

/* One request: method, URL (owned), payload, range, where the body goes
 * (the layer's raw request). */
typedef nch_rawreq Req;

static void
sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_Digest(data ? data : "", len, md, &mdlen, EVP_sha256(), NULL);
    for (unsigned int i = 0; i < mdlen && i < 32; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
    out[64] = '\0';
}

/* Headers and signing of r: SigV4 by curl with the payload's SHA-256 and
 * the session token when the store has credentials. */
static int
s3_sign(S3Map *sm, Req *r)
{
    int stat;
    char h[128];
    if (strcmp(r->method, "PUT") == 0 &&
        (stat = nch_rawreq_header(r, "Content-Type: application/octet-stream")))
        return stat;
    if (sm->sigv4) {
        char hex[65];
        sha256_hex(r->payload, r->paylen, hex);
        snprintf(h, sizeof h, "x-amz-content-sha256: %s", hex);
        if ((stat = nch_rawreq_header(r, h)))
            return stat;
        if (sm->cfg.session_token) {
            size_t n = strlen(sm->cfg.session_token) + 32;
            char *t = malloc(n);
            if (!t)
                return NC_ENOMEM;
            snprintf(t, n, "x-amz-security-token: %s", sm->cfg.session_token);
            stat = nch_rawreq_header(r, t);
            free(t);
            if (stat)
                return stat;
        }
        r->sigv4 = sm->sigv4;
        r->user = sm->cfg.access_key;
        r->password = sm->cfg.secret_key;
    }
    return NC_NOERR;
}

/* The layer's transfer outcome st of r -> NC_*. */
static int
transport(int st, const Req *r)
{
    if (r->nomem || st == NC_ENOMEM)
        return NC_ENOMEM;
    if (r->overflow)
        return NC_ES3; /* more bytes than asked for */
    if (st == NC_NOERR || st == NC_EIO) /* NC_EIO: body cut short */
        return st;
    return NC_ES3;
}

/* HTTP status -> NC_* (for object requests: 404 means no object). */
static int
http_status(long code)
{
    if (code >= 200 && code < 300)
        return NC_NOERR;
    switch (code) {
    case 404:
        return NC_EEMPTY;
    case 401:
    case 403:
        return NC_EAUTH;
    case 416:
        return NC_EINVAL;
    default:
        return NC_ES3;
    }
}

static void
req_clear(Req *r)
{
    nch_rawreq_clear(r);
}

/* Run r on the store's handle; NC_* from the transport or the status. */
static int
perform(S3Map *sm, Req *r)
{
    int stat;
    if ((stat = s3_sign(sm, r)))
        return stat;
    sm->nreq++;
    if ((stat = transport(nch_raw_perform(sm->raw, r), r)))
        return stat;
    return http_status(r->status);
}

/* ---- URLs ---------------------------------------------------------------------- */

/* URL of the object at key. */
static int
object_url(S3Map *sm, const char *key, char **urlp)
{
    int stat;
    char *enc = NULL;
    if ((stat = ncz_key_check(key)))
        return stat;
    const char *pf = sm->cfg.prefix;
    size_t pl = strlen(pf), kl = strlen(key);
    char *full = malloc(pl + kl + 1);
    if (!full)
        return NC_ENOMEM;
    /* store prefix "a/b" + key "/x" -> "a/b/x"; no prefix -> "x" */
    memcpy(full, pf, pl);
    memcpy(full + pl, pl ? key : key + 1, pl ? kl + 1 : kl);
    stat = ncz_s3_encode(full, 1, &enc);
    free(full);
    if (stat)
        return stat;
    size_t n = strlen(sm->objbase) + strlen(enc) + 2;
    if ((*urlp = malloc(n)))
        snprintf(*urlp, n, "%s/%s", sm->objbase, enc);
    free(enc);
    return *urlp ? NC_NOERR : NC_ENOMEM;
}

/* ---- ops ------------------------------------------------------------------------ */

static int
head(S3Map *sm, const char *key, uint64_t *lenp)
{
    Req r = {.method = "HEAD"};
    int stat = object_url(sm, key, &r.url);
    if (!stat)
        stat = perform(sm, &r);
    if (!stat && lenp) {
        if (r.content_length < 0)
            stat = NC_ES3;
        else
            *lenp = (uint64_t)r.content_length;
    }
    req_clear(&r);
    return stat;
}

static int
s3_exists(NCZ_map *map, const char *key)
{
    return head((S3Map *)map, key, NULL);
}

static int
s3_len(NCZ_map *map, const char *key, uint64_t *lenp)
{
    return head((S3Map *)map, key, lenp);
}

static int
s3_read(NCZ_map *map, const char *key, uint64_t start, uint64_t count, void *buf)
{
    S3Map *sm = (S3Map *)map;
    int stat;
    if (count == 0 || start > UINT64_MAX - count) {
        /* nothing to fetch: the answer is whether the range fits */
        uint64_t len;
        if ((stat = head(sm, key, &len)))
            return stat;
        return start <= len && count <= len - start ? NC_NOERR : NC_EINVAL;
    }
    if (count > SIZE_MAX)
        return NC_ENOMEM;
    Req r = {.method = "GET"};
    if ((stat = object_url(sm, key, &r.url)))
        goto done;
    snprintf(r.range, sizeof r.range, "%llu-%llu", (unsigned long long)start,
             (unsigned long long)(start + count - 1));
    r.dst = buf;
    r.dstcap = (size_t)count;
    r.skip = start;
    stat = perform(sm, &r);
    if (stat == NC_ES3 && r.overflow && r.status == 200)
        stat = NC_NOERR; /* whole object sent, our range filled: stop early */
    if (!stat && r.got < count)
        stat = NC_EINVAL; /* the object ends before the range does */
done:
    req_clear(&r);
    return stat;
}

static int
s3_read_all(NCZ_map *map, const char *key, void **datap, size_t *lenp)
{
    S3Map *sm = (S3Map *)map;
    Req r = {.method = "GET"};
    int stat = object_url(sm, key, &r.url);
    if (!stat)
        stat = perform(sm, &r);
    if (!stat) {
        if (!r.body.data && !(r.body.data = malloc(1)))
            stat = NC_ENOMEM;
        else {
            *datap = r.body.data;
            *lenp = r.body.len;
            r.body.data = NULL;
        }
    }
    req_clear(&r);
    return stat;
}

static int
s3_write(NCZ_map *map, const char *key, uint64_t count, const void *content)
{
    S3Map *sm = (S3Map *)map;
    if (!(map->mode & NCZ_MAP_WRITE))
        return NC_EPERM;
    if (count > SIZE_MAX || (count && !content))
        return NC_EINVAL;
    Req r = {.method = "PUT", .payload = content, .paylen = (size_t)count};
    int stat = object_url(sm, key, &r.url);
    if (!stat)
        stat = perform(sm, &r);
    if (stat == NC_EEMPTY)
        stat = NC_ENOOBJECT; /* 404 on PUT: the bucket is gone */
    req_clear(&r);
    return stat;
}

static int
s3_del(NCZ_map *map, const char *key)
{
    S3Map *sm = (S3Map *)map;
    int stat;
    if (!(map->mode & NCZ_MAP_WRITE))
        return NC_EPERM;
    /* S3 answers 204 whether or not the key held anything */
    if ((stat = head(sm, key, NULL)))
        return stat;
    Req r = {.method = "DELETE"};
    if (!(stat = object_url(sm, key, &r.url)))
        stat = perform(sm, &r);
    req_clear(&r);
    return stat;
}

/* One ListObjectsV2 page: prefix (raw), delimiter "/" or NULL, token or NULL. */
static int
list_page(S3Map *sm, const char *prefix, int delim, const char *maxkeys, const char *token,
          NCZ_s3_listing *out)
{
    int stat;
    char *eprefix = NULL, *etoken = NULL;
    Req r = {.method = "GET"};
    if ((stat = ncz_s3_encode(prefix, 0, &eprefix)) ||
        (token && (stat = ncz_s3_encode(token, 0, &etoken))))
        goto done;
    /* parameters in canonical (sorted) order */
    size_t n = strlen(sm->listurl) + strlen(eprefix) + (etoken ? strlen(etoken) : 0) + 128;
    if (!(r.url = malloc(n))) {
        stat = NC_ENOMEM;
        goto done;
    }
    snprintf(r.url, n, "%s?%s%s%s%slist-type=2&max-keys=%s&prefix=%s", sm->listurl,
             etoken ? "continuation-token=" : "", etoken ? etoken : "", etoken ? "&" : "",
             delim ? "delimiter=%2F&" : "", maxkeys, eprefix);
    if ((stat = perform(sm, &r))) {
        if (stat == NC_EEMPTY)
            stat = NC_ENOOBJECT; /* no such bucket */
        goto done;
    }
    stat = ncz_s3_parse_list((const char *)r.body.data, r.body.len, out);
done:
    free(eprefix);
    free(etoken);
    req_clear(&r);
    return stat;
}

/* Raw S3 prefix of a listing: store prefix + prefix + "/" ("" for the root
 * of a store without prefix). */
static char *
raw_prefix(S3Map *sm, const char *prefix)
{
    const char *pf = sm->cfg.prefix;
    int root = strcmp(prefix, "/") == 0;
    size_t pl = strlen(pf), kl = root ? 0 : strlen(prefix);
    char *s = malloc(pl + kl + 2);
    if (!s)
        return NULL;
    memcpy(s, pf, pl);
    size_t w = pl;
    if (!root) {
        const char *k = pl ? prefix : prefix + 1; /* "/x" -> "x" or "a/b/x" */
        memcpy(s + w, k, strlen(k));
        w += strlen(k);
    }
    if (w)
        s[w++] = '/';
    s[w] = '\0';
    return s;
}

/* Walk every page of the listing of raw: children (full 0, a delimiter
 * listing) or full keys head + "/" + the rest after raw (full 1). */
static int
list_walk(S3Map *sm, const char *raw, int full, const char *head, NCZ_keys *out)
{
    int stat = NC_NOERR;
    size_t rl = strlen(raw);
    char *token = NULL;
    size_t pages = 0;
    do {
        NCZ_s3_listing page;
        if ((stat = list_page(sm, raw, !full, S3_LIST_PAGE, token, &page)))
            break;
        /* a server repeating its token would make us loop forever */
        if (page.truncated && token && strcmp(token, page.next_token) == 0)
            stat = NC_ES3;
        free(token);
        token = page.truncated ? page.next_token : NULL;
        page.next_token = NULL;
        /* common prefixes answer a delimiter listing only */
        for (int pass = 0; pass < (full ? 1 : 2) && !stat; pass++) {
            NCZ_keys *src = pass ? &page.prefixes : &page.keys;
            for (size_t i = 0; i < src->n && !stat; i++) {
                const char *k = src->keys[i];
                size_t kl = strlen(k);
                if (kl <= rl || strncmp(k, raw, rl) != 0)
                    continue; /* not under the prefix: a confused server */
                const char *rest = k + rl;
                size_t restl = kl - rl;
                if (pass && rest[restl - 1] == '/')
                    restl--;
                stat = full ? ncz_keys_add_full(out, head, rest, restl)
                            : ncz_keys_add_child(out, rest, restl);
            }
        }
        ncz_s3_listing_clear(&page);
        /* a server handing out tokens forever is broken, not a big store */
        if (++pages > 10000000)
            stat = NC_ES3;
    } while (!stat && token);
    free(token);
    return stat;
}

/* The lister of zmap_impl.h. */
static int
s3_lister(NCZ_map *map, const char *prefix, int full, NCZ_keys *out)
{
    char *raw = raw_prefix((S3Map *)map, prefix);
    if (!raw)
        return NC_ENOMEM;
    int stat = list_walk((S3Map *)map, raw, full, strcmp(prefix, "/") == 0 ? "" : prefix, out);
    free(raw);
    return stat;
}

static int
s3_list(NCZ_map *map, const char *prefix, NCZ_keys *out)
{
    return ncz_list_frame(map, prefix, 0, out, s3_lister);
}

static int
s3_list_all(NCZ_map *map, const char *prefix, NCZ_keys *out)
{
    return ncz_list_frame(map, prefix, 1, out, s3_lister);
}

/* ---- read_many / write_many: concurrent transfers (the layer's curl multi) ---- */

/* How one batch is run: prep(i) fills the Req of request i (method, url,
 * range, payload); a non-zero return is that request's status without a
 * transfer.  done(i, r, st) gets the transport/HTTP outcome st of a finished
 * transfer and returns the request's final status.  Both set the caller's
 * per-request status; run_multi only moves transfers. */
typedef struct Batch {
    S3Map *sm;
    void *reqs;
    int (*prep)(struct Batch *b, size_t i, Req *r);
    int (*done)(struct Batch *b, size_t i, Req *r, int st);
    void (*fail)(struct Batch *b, size_t i, int st); /* status of a request never sent */
    int (*serious)(int st); /* does st fail the batch (not just one object)? */
} Batch;

static size_t
s3_maxconn(void)
{
    const char *env = getenv("NCZ_S3_MAXCONN"); /* tuning knob for the bench and tests */
    if (env && atoi(env) > 0 && atoi(env) <= 256)
        return (size_t)atoi(env);
    return S3_MAXCONN;
}

/* The layer's callbacks on a Batch: prep also signs; a finished transfer's
 * outcome becomes the store's status before done sees it. */
static int
batch_prep(void *arg, size_t i, nch_rawreq *r)
{
    Batch *bt = arg;
    int st = bt->prep(bt, i, r);
    return st ? st : s3_sign(bt->sm, r);
}

static int
batch_done(void *arg, size_t i, nch_rawreq *r, int st)
{
    Batch *bt = arg;
    st = transport(st, r);
    if (!st)
        st = http_status(r->status);
    return bt->done(bt, i, r, st);
}

static void
batch_fail(void *arg, size_t i, int st)
{
    Batch *bt = arg;
    bt->fail(bt, i, st);
}

static int
run_multi(Batch *bt, size_t n)
{
    nch_raw_batch rb = {bt, batch_prep, batch_done, batch_fail, bt->serious, NC_ES3};
    unsigned long long sent = 0;
    int stat = nch_raw_perform_many(&rb, n, s3_maxconn(), &sent);
    bt->sm->nreq += sent;
    return stat;
}

/* NC_EEMPTY and a bad range are answers about one object, not failures. */
static int
read_serious(int st)
{
    return st != NC_NOERR && st != NC_EEMPTY && st != NC_EINVAL;
}

static void
read_fail(Batch *bt, size_t i, int st)
{
    NCZ_read_req *q = &((NCZ_read_req *)bt->reqs)[i];
    free(q->data);
    q->data = NULL;
    q->len = 0;
    q->status = st;
}

static int
read_prep(Batch *bt, size_t i, Req *r)
{
    NCZ_read_req *q = &((NCZ_read_req *)bt->reqs)[i];
    r->method = "GET";
    int st = object_url(bt->sm, q->key, &r->url);
    if (!st && !(q->start == 0 && q->count == (uint64_t)-1)) {
        if (q->count == 0 || (q->count != (uint64_t)-1 && q->start > UINT64_MAX - q->count))
            st = NC_EINVAL; /* empty or absurd ranges are not worth a request */
        else if (q->count == (uint64_t)-1)
            snprintf(r->range, sizeof r->range, "%llu-", (unsigned long long)q->start);
        else
            snprintf(r->range, sizeof r->range, "%llu-%llu", (unsigned long long)q->start,
                     (unsigned long long)(q->start + q->count - 1));
        r->skip = q->start;
    }
    return st;
}

static int
read_done(Batch *bt, size_t i, Req *r, int st)
{
    NCZ_read_req *q = &((NCZ_read_req *)bt->reqs)[i];
    if (!st && q->count != (uint64_t)-1 && r->body.len != q->count)
        st = r->body.len < q->count ? NC_EINVAL : NC_NOERR;
    if (!st && q->count != (uint64_t)-1 && r->body.len > q->count)
        r->body.len = (size_t)q->count; /* whole object sent: keep the range */
    if (!st && !r->body.data && !(r->body.data = malloc(1)))
        st = NC_ENOMEM;
    q->status = st;
    if (!st) {
        q->data = r->body.data;
        q->len = r->body.len;
        r->body.data = NULL;
    }
    return st;
}

static int
s3_read_many(NCZ_map *map, size_t n, NCZ_read_req *reqs)
{
    for (size_t i = 0; i < n; i++) {
        reqs[i].data = NULL;
        reqs[i].len = 0;
        reqs[i].status = NC_EINVAL;
    }
    Batch bt = {(S3Map *)map, reqs, read_prep, read_done, read_fail, read_serious};
    return run_multi(&bt, n);
}

/* Every failed PUT fails the batch. */
static int
write_serious(int st)
{
    return st != NC_NOERR;
}

static void
write_fail(Batch *bt, size_t i, int st)
{
    ((NCZ_write_req *)bt->reqs)[i].status = st;
}

static int
write_prep(Batch *bt, size_t i, Req *r)
{
    NCZ_write_req *q = &((NCZ_write_req *)bt->reqs)[i];
    if (q->count > SIZE_MAX || (q->count && !q->content))
        return NC_EINVAL;
    r->method = "PUT";
    r->payload = q->content;
    r->paylen = (size_t)q->count;
    return object_url(bt->sm, q->key, &r->url);
}

static int
write_done(Batch *bt, size_t i, Req *r, int st)
{
    (void)r;
    if (st == NC_EEMPTY)
        st = NC_ENOOBJECT; /* 404 on PUT: the bucket is gone */
    ((NCZ_write_req *)bt->reqs)[i].status = st;
    return st;
}

static int
s3_write_many(NCZ_map *map, size_t n, NCZ_write_req *reqs)
{
    if (!(map->mode & NCZ_MAP_WRITE)) {
        for (size_t i = 0; i < n; i++)
            reqs[i].status = NC_EPERM;
        return n ? NC_EPERM : NC_NOERR;
    }
    for (size_t i = 0; i < n; i++)
        reqs[i].status = NC_EINVAL;
    Batch bt = {(S3Map *)map, reqs, write_prep, write_done, write_fail, write_serious};
    return run_multi(&bt, n);
}

/* ---- lifetime ----------------------------------------------------------------- */

static uint64_t
s3_nrequests(NCZ_map *map)
{
    return ((S3Map *)map)->nreq;
}

/* Delete every object of the store. */
static int
delete_all(S3Map *sm)
{
    NCZ_keys all = {0};
    int stat = s3_list_all(&sm->head, "/", &all);
    for (size_t i = 0; i < all.n && !stat; i++) {
        Req r = {.method = "DELETE"};
        if (!(stat = object_url(sm, all.keys[i], &r.url)))
            stat = perform(sm, &r);
        if (stat == NC_EEMPTY)
            stat = NC_NOERR;
        req_clear(&r);
    }
    ncz_keys_free(&all);
    return stat;
}

static void
free_s3map(S3Map *sm)
{
    nch_raw_close(sm->raw);
    ncz_s3_cfg_clear(&sm->cfg);
    free(sm->sigv4);
    free(sm->objbase);
    free(sm->listurl);
    free(sm->head.url);
    free(sm);
}

static int
s3_close(NCZ_map *map, int deleteit)
{
    S3Map *sm = (S3Map *)map;
    int stat = NC_NOERR;
    if (!sm)
        return NC_NOERR;
    if (deleteit && (map->mode & NCZ_MAP_WRITE))
        stat = delete_all(sm);
    free_s3map(sm);
    return stat;
}

static const NCZ_map_ops s3_ops = {
    .version = NCZ_MAP_VERSION,
    .close = s3_close,
    .exists = s3_exists,
    .len = s3_len,
    .read = s3_read,
    .read_all = s3_read_all,
    .write = s3_write,
    .del = s3_del,
    .list = s3_list,
    .list_all = s3_list_all,
    .read_many = s3_read_many,
    .write_many = s3_write_many,
    .nrequests = s3_nrequests,
};

/* Does the store hold any object?  One request (max-keys=1). */
static int
store_nonempty(S3Map *sm, int *yes)
{
    NCZ_s3_listing page;
    char *raw = raw_prefix(sm, "/");
    if (!raw)
        return NC_ENOMEM;
    int stat = list_page(sm, raw, 0, "1", NULL, &page);
    free(raw);
    if (!stat) {
        *yes = page.keys.n > 0;
        ncz_s3_listing_clear(&page);
    }
    return stat;
}

/* PUT the bucket (creating a store in a bucket that does not exist yet). */
static int
create_bucket(S3Map *sm)
{
    Req r = {.method = "PUT"};
    size_t n = strlen(sm->listurl) + 2;
    if (!(r.url = malloc(n)))
        return NC_ENOMEM;
    snprintf(r.url, n, "%s", sm->listurl);
    int stat = perform(sm, &r);
    req_clear(&r);
    return stat;
}

int
ncz_map_s3_open(const char *url, int mode, NCZ_map **mapp)
{
    int stat;
    S3Map *sm = NULL;

    pthread_once(&s3_once, s3_init);
    if (!(sm = calloc(1, sizeof *sm)))
        return NC_ENOMEM;
    sm->head.ops = &s3_ops;
    sm->head.impl = NCZ_MAP_S3;
    sm->head.mode = mode;
    if (!(sm->head.url = strdup(url))) {
        stat = NC_ENOMEM;
        goto done;
    }
    if ((stat = ncz_s3_cfg_from_url(url, &sm->cfg)))
        goto done;
    for (const char *p = sm->cfg.bucket; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '.' || *p == '_')) {
            stat = NC_EURL;
            goto done;
        }
    size_t n = strlen(sm->cfg.endpoint) + strlen(sm->cfg.bucket) + 4;
    if (!(sm->objbase = malloc(n)) || !(sm->listurl = malloc(n))) {
        stat = NC_ENOMEM;
        goto done;
    }
    if (sm->cfg.vhost) {
        snprintf(sm->objbase, n, "%s", sm->cfg.endpoint);
        snprintf(sm->listurl, n, "%s/", sm->cfg.endpoint);
    } else {
        snprintf(sm->objbase, n, "%s/%s", sm->cfg.endpoint, sm->cfg.bucket);
        snprintf(sm->listurl, n, "%s/%s", sm->cfg.endpoint, sm->cfg.bucket);
    }
    if (sm->cfg.access_key) {
        size_t m = strlen(sm->cfg.region) + 16;
        if (!(sm->sigv4 = malloc(m))) {
            stat = NC_ENOMEM;
            goto done;
        }
        snprintf(sm->sigv4, m, "aws:amz:%s:s3", sm->cfg.region);
    }
    if ((stat = nch_raw_open(&sm->raw))) {
        if (stat == NC_ECURL)
            stat = NC_ES3; /* curl could not start */
        goto done;
    }

    int nonempty = 0;
    stat = store_nonempty(sm, &nonempty);
    if (mode & NCZ_MAP_CREATE) {
        if (stat == NC_ENOOBJECT) /* no bucket yet */
            stat = create_bucket(sm);
        else if (!stat && nonempty) {
            if (!(mode & NCZ_MAP_CLOBBER))
                stat = NC_EEXIST;
            else
                stat = delete_all(sm);
        }
    } else if (!stat && !nonempty) {
        stat = NC_ENOOBJECT;
    }
    if (stat)
        goto done;
    *mapp = &sm->head;
    sm = NULL;
done:
    if (sm)
        free_s3map(sm);
    return stat;
}
