/* dhttp.c: the library's HTTP client on libcurl (contract: nchttp.h).
 *
 * Layout: process-wide state (curl's global init once, the shared cookie
 * jar, the request counter); session set-up from the .ncrc keys of the
 * dataset URL; the body callbacks (whole body, stream, byte range, error
 * capture); one request runner that every public call goes through and
 * that turns curl's and the server's errors into NC_* codes.
 *
 * Bodies: an error status (>= 400) is captured apart (bounded) for
 * nch_last_error and never reaches the caller.  nch_get appends to the
 * caller's buffer and takes back what it appended when the request fails,
 * so a body cut short is never returned.  nch_get_stream hands each piece
 * curl delivers straight to the sink (no copy), after a short look at the
 * first bytes for a DAP2 error body.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, strncasecmp */
#include "config.h"
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>
#include "netcdf.h"
#include "ncrc.h"
#include "nchttp.h"

#define NCH_MAX_REDIRECTS 20L
#define NCH_ERRBODY_MAX 4096   /* bytes of an error body kept for nch_last_error */
#define NCH_DFLT_TIMEOUT 1800L /* seconds, as upstream's default */
#define NCH_DFLT_CONNECTTIMEOUT 50L
#define NCH_PREALLOC_MAX ((curl_off_t)1 << 30) /* largest body reserved up front */
#define NCH_PEEK 8                             /* bytes looked at for a DAP2 "Error {" body */

/* ---- process-wide state ---- */

static pthread_once_t nch_once = PTHREAD_ONCE_INIT;
static int nch_init_status = NC_NOERR;
static CURLSH *nch_share; /* cookies and DNS shared by all sessions */
static pthread_mutex_t nch_share_locks[CURL_LOCK_DATA_LAST];
static atomic_ulong nch_requests;

static void
share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *arg)
{
    (void)h;
    (void)access;
    (void)arg;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST)
        pthread_mutex_lock(&nch_share_locks[data]);
}

static void
share_unlock(CURL *h, curl_lock_data data, void *arg)
{
    (void)h;
    (void)arg;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST)
        pthread_mutex_unlock(&nch_share_locks[data]);
}

static void
nch_global_init(void)
{
    int i;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        nch_init_status = NC_ECURL;
        return;
    }
    for (i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&nch_share_locks[i], NULL);
    if ((nch_share = curl_share_init()) == NULL) {
        nch_init_status = NC_ECURL;
        return;
    }
    if (curl_share_setopt(nch_share, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK || curl_share_setopt(nch_share, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK || curl_share_setopt(nch_share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE) != CURLSHE_OK || curl_share_setopt(nch_share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK)
        nch_init_status = NC_ECURL;
}

unsigned long
nch_request_count(void)
{
    return atomic_load(&nch_requests);
}

void
nch_count_request(void)
{
    atomic_fetch_add(&nch_requests, 1);
}

int
nch_global_start(void)
{
    (void)pthread_once(&nch_once, nch_global_init);
    return nch_init_status;
}

/* ---- buffers ---- */

/* Room for n more bytes and the NUL after them: capacity doubles. */
static int
nch_buf_reserve(nch_buf *b, size_t n)
{
    size_t need = b->len + n + 1, ncap = b->cap ? b->cap : 4096;
    unsigned char *nd;
    if (need <= b->cap && b->data != NULL)
        return NC_NOERR;
    if (need < b->len)
        return NC_ENOMEM;
    while (ncap < need) {
        if (ncap > (size_t)-1 / 2) {
            ncap = need;
            break;
        }
        ncap *= 2;
    }
    if ((nd = realloc(b->data, ncap)) == NULL)
        return NC_ENOMEM;
    b->data = nd;
    b->cap = ncap;
    return NC_NOERR;
}

int
nch_buf_append(nch_buf *b, const void *bytes, size_t n)
{
    if ((b->cap - b->len <= n || b->data == NULL) && nch_buf_reserve(b, n))
        return NC_ENOMEM;
    if (n > 0)
        memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
    return NC_NOERR;
}

void
nch_buf_free(nch_buf *b)
{
    if (b == NULL)
        return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* ---- sessions ---- */

/* What a request does with its body: all of it into a buffer, to a sink,
 * none (HEAD), a slice into a buffer. */
enum req_kind { REQ_BODY,
                REQ_STREAM,
                REQ_HEAD,
                REQ_RANGE };

struct nch_session {
    CURL *curl;
    char *where;      /* "host[:port]/path" of the dataset URL: the .ncrc look-up key */
    char *user, *pwd; /* credentials of the dataset URL or the rc keys, or NULL */
    char *agent;      /* User-Agent */
    char *cookiejar;  /* HTTP.COOKIEJAR file, or NULL */
    int encode;       /* ask for gzip/deflate bodies */
    int dap_errors;   /* a body starting "Error {" is a DAP2 error */
    int raw_urls;     /* request URLs go to curl as given (the caller escaped them) */
    long status;      /* last HTTP status (0: none) */
    char *errtext;    /* last error text, "" when none */
    char curlerr[CURL_ERROR_SIZE];
    /* the request in progress */
    enum req_kind kind;
    nch_buf *out;
    size_t out_start; /* out->len before the request */
    nch_sink sink;
    void *sinkarg;
    int sinkstat; /* the sink's non-zero return */
    int iserror;  /* this response's status is an error: body captured apart */
    int isdaperr; /* the body is a DAP2 error */
    int decided;  /* status looked at for this response */
    int skip;     /* this response's body is dropped (a redirect) */
    nch_buf errbody;
    unsigned char peek[NCH_PEEK];
    size_t npeek;
    unsigned long long range_off; /* REQ_RANGE: wanted bytes */
    size_t range_n;
    unsigned long long body_pos; /* REQ_RANGE: object offset of the next body byte */
    unsigned long long crange;   /* start given by this response's Content-Range */
    int peeked;                  /* REQ_STREAM: the first bytes were looked at */
    size_t range_got;
    int range_done; /* stopped on purpose after enough bytes */
};

static int
set_error(nch_session *s, const char *text, size_t n)
{
    char *t = malloc(n + 1);
    if (t == NULL)
        return NC_ENOMEM;
    memcpy(t, text, n);
    t[n] = '\0';
    free(s->errtext);
    s->errtext = t;
    return NC_NOERR;
}

const char *
nch_last_error(const nch_session *s)
{
    return s != NULL && s->errtext != NULL ? s->errtext : "";
}

long
nch_last_status(const nch_session *s)
{
    return s != NULL ? s->status : 0;
}

void
nch_session_dap_errors(nch_session *s, int on)
{
    if (s != NULL)
        s->dap_errors = on;
}

void
nch_session_raw_urls(nch_session *s, int on)
{
    if (s != NULL)
        s->raw_urls = on;
}

int
nch_session_bufsize(nch_session *s, long bytes)
{
    char *v;
    if (s == NULL)
        return NC_EINVAL;
    if ((v = nch_session_key(s, "HTTP.READ.BUFFERSIZE")) != NULL) {
        free(v); /* the user's setting stays */
        return NC_NOERR;
    }
    if (bytes < 1024)
        bytes = 1024;
    if (bytes > (long)CURL_MAX_READ_SIZE)
        bytes = (long)CURL_MAX_READ_SIZE;
    return curl_easy_setopt(s->curl, CURLOPT_BUFFERSIZE, bytes) == CURLE_OK ? NC_NOERR : NC_ECURL;
}

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* A copy of [p, p+n) with %XX escapes decoded. */
static char *
pct_decode(const char *p, size_t n)
{
    char *d = malloc(n + 1), *q = d;
    size_t i;
    if (d == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        if (p[i] == '%' && i + 2 < n && hexval(p[i + 1]) >= 0 && hexval(p[i + 2]) >= 0) {
            *q++ = (char)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
            i += 2;
        } else
            *q++ = p[i];
    }
    *q = '\0';
    return d;
}

/* Split url into the parts this module needs: the offset and length of
 * the "user[:password]@" part (0 when none), and where the authority
 * starts.  NC_EURL when url has no "scheme://". */
static int
url_parts(const char *url, size_t *auth_start, size_t *ui_len)
{
    const char *p = strstr(url, "://"), *a, *end, *at = NULL, *q;
    if (p == NULL || p == url)
        return NC_EURL;
    a = p + 3;
    end = a + strcspn(a, "/?#");
    for (q = a; q < end; q++)
        if (*q == '@')
            at = q;
    *auth_start = (size_t)(a - url);
    *ui_len = at ? (size_t)(at + 1 - a) : 0;
    return NC_NOERR;
}

/* url without its user info (a copy); *user and *pwd get the decoded
 * user info when there is one and those pointers are given. */
static int
strip_userinfo(const char *url, char **clean, char **user, char **pwd)
{
    size_t as, ul, n = strlen(url);
    int stat;
    char *c;
    if ((stat = url_parts(url, &as, &ul)))
        return stat;
    if (ul > 0 && user != NULL && pwd != NULL) {
        const char *ui = url + as, *colon = memchr(ui, ':', ul - 1);
        size_t un = colon ? (size_t)(colon - ui) : ul - 1;
        *user = pct_decode(ui, un);
        *pwd = colon ? pct_decode(colon + 1, ul - 1 - un - 1) : strdup("");
        if (*user == NULL || *pwd == NULL)
            return NC_ENOMEM;
    }
    if ((c = malloc(n - ul + 1)) == NULL)
        return NC_ENOMEM;
    memcpy(c, url, as);
    memcpy(c + as, url + as + ul, n - as - ul + 1);
    *clean = c;
    return NC_NOERR;
}

/* Characters sent %XX-escaped in a request's path and query: what RFC 3986
 * does not allow there and servers reject (space, quotes, braces, brackets,
 * controls, bytes above 127).  '%' stays: what the caller escaped is kept. */
static int
unsafe_char(unsigned char c)
{
    return c <= 0x20 || c >= 0x7f || strchr("\"<>\\^`{|}[]", c) != NULL;
}

/* url with the unsafe characters after its authority escaped: url itself
 * when there are none (*copy NULL), else a copy the caller frees. */
static int
escape_unsafe(const char *url, char **copy)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t as, ul, n = 0;
    const char *p, *rest;
    char *q;
    int stat;
    *copy = NULL;
    if ((stat = url_parts(url, &as, &ul)))
        return stat;
    rest = url + as + strcspn(url + as, "/?#");
    for (p = rest; *p; p++)
        n += unsafe_char((unsigned char)*p);
    if (n == 0)
        return NC_NOERR;
    if ((*copy = malloc(strlen(url) + 2 * n + 1)) == NULL)
        return NC_ENOMEM;
    memcpy(*copy, url, (size_t)(rest - url));
    q = *copy + (rest - url);
    for (p = rest; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (unsafe_char(c)) {
            *q++ = '%';
            *q++ = hex[c >> 4];
            *q++ = hex[c & 15];
        } else
            *q++ = (char)c;
    }
    *q = '\0';
    return NC_NOERR;
}

char *
nch_session_key(const nch_session *s, const char *key)
{
    return s != NULL ? NC_rc_lookup(key, s->where) : NULL;
}

/* First of several spellings of a key that is set. */
static char *
key_any(const nch_session *s, const char *const *keys)
{
    char *v = NULL;
    for (; *keys != NULL && v == NULL; keys++)
        v = nch_session_key(s, *keys);
    return v;
}

/* A boolean key: 1/0, on/off, true/false, yes/no; dflt when unset or unclear. */
static int
key_bool(const nch_session *s, const char *key, int dflt)
{
    char *v = nch_session_key(s, key);
    int r = dflt;
    if (v != NULL) {
        if (strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0)
            r = 1;
        else if (strcmp(v, "0") == 0 || strcasecmp(v, "off") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0)
            r = 0;
        else if (atol(v) > 0)
            r = 1;
        free(v);
    }
    return r;
}

/* A non-negative number; dflt when unset or not a number. */
static long
key_long(const nch_session *s, const char *key, long dflt)
{
    char *v = nch_session_key(s, key), *e;
    long r = dflt;
    if (v != NULL) {
        long x = strtol(v, &e, 10);
        if (e != v && *e == '\0' && x >= 0)
            r = x;
        free(v);
    }
    return r;
}

#define SETOPT(opt, val) \
    do { \
        if (curl_easy_setopt(s->curl, opt, val) != CURLE_OK) { \
            stat = NC_ECURL; \
            goto done; \
        } \
    } while (0)

/* A string key passed to curl as is (curl copies it). */
static int
set_str_key(nch_session *s, CURLoption opt, const char *const *keys)
{
    char *v = key_any(s, keys);
    int stat = NC_NOERR;
    if (v != NULL && *v != '\0')
        SETOPT(opt, v);
done:
    free(v);
    return stat;
}

/* Apply the session's settings (the .ncrc keys of its URL) to its handle. */
static int
configure(nch_session *s)
{
    static const char *const k_proxy[] = {"HTTP.PROXY.SERVER", "HTTP.PROXY_SERVER", NULL};
    static const char *const k_cert[] = {"HTTP.SSL.CERTIFICATE", NULL};
    static const char *const k_key[] = {"HTTP.SSL.KEY", NULL};
    static const char *const k_keypw[] = {"HTTP.SSL.KEYPASSWORD", NULL};
    static const char *const k_cainfo[] = {"HTTP.SSL.CAINFO", NULL};
    static const char *const k_capath[] = {"HTTP.SSL.CAPATH", NULL};
    static const char *const k_jar[] = {"HTTP.COOKIEJAR", "HTTP.COOKIE_JAR", "HTTP.COOKIEFILE",
                                        "HTTP.COOKIE_FILE", NULL};
    static const char *const k_user[] = {"HTTP.CREDENTIALS.USERNAME", "HTTP.CREDENTIALS.USER", NULL};
    static const char *const k_pwd[] = {"HTTP.CREDENTIALS.PASSWORD", NULL};
    int stat = NC_NOERR;
    char *v = NULL;
    long n;

    SETOPT(CURLOPT_SHARE, nch_share);
    SETOPT(CURLOPT_NOPROGRESS, 1L);
    SETOPT(CURLOPT_NOSIGNAL, 1L);
    SETOPT(CURLOPT_ERRORBUFFER, s->curlerr);
    SETOPT(CURLOPT_FOLLOWLOCATION, 1L);
    SETOPT(CURLOPT_MAXREDIRS, NCH_MAX_REDIRECTS);
    SETOPT(CURLOPT_VERBOSE, key_bool(s, "HTTP.VERBOSE", 0) ? 1L : 0L);
    SETOPT(CURLOPT_TIMEOUT, key_long(s, "HTTP.TIMEOUT", NCH_DFLT_TIMEOUT));
    SETOPT(CURLOPT_CONNECTTIMEOUT, key_long(s, "HTTP.CONNECTTIMEOUT", NCH_DFLT_CONNECTTIMEOUT));
    s->encode = key_bool(s, "HTTP.DEFLATE", 1);

    /* User-Agent: the key, else upstream's "oc" followed by the version. */
    if ((v = nch_session_key(s, "HTTP.USERAGENT")) != NULL && *v != '\0')
        s->agent = v;
    else {
        free(v);
        v = NULL;
        if ((s->agent = strdup("oc" PACKAGE_VERSION)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
    }
    v = NULL;
    SETOPT(CURLOPT_USERAGENT, s->agent);

    /* Cookies: the process's shared jar, and the named file when set (read
     * now, written when the session closes). */
    if ((v = key_any(s, k_jar)) != NULL && *v != '\0') {
        s->cookiejar = v;
        v = NULL;
        SETOPT(CURLOPT_COOKIEFILE, s->cookiejar);
        SETOPT(CURLOPT_COOKIEJAR, s->cookiejar);
    } else
        SETOPT(CURLOPT_COOKIEFILE, "");
    free(v);
    v = NULL;

    /* .netrc: only the file HTTP.NETRC names (as upstream: never curl's
     * default $HOME/.netrc); it answers for the hosts the URL and keys give
     * no credentials for (a login host).  Optional, so that credentials in
     * the URL still count. */
    if ((v = nch_session_key(s, "HTTP.NETRC")) != NULL && *v != '\0') {
        SETOPT(CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
        SETOPT(CURLOPT_NETRC_FILE, v);
    }
    free(v);
    v = NULL;

    /* Credentials: the URL's, else USERNAME+PASSWORD, else USERPASSWORD. */
    if (s->user == NULL) {
        char *u = key_any(s, k_user), *p = key_any(s, k_pwd);
        if (u != NULL && p != NULL) {
            s->user = u;
            s->pwd = p;
        } else {
            free(u);
            free(p);
            if ((v = nch_session_key(s, "HTTP.CREDENTIALS.USERPASSWORD")) != NULL) {
                char *colon = strchr(v, ':');
                if (colon != NULL) {
                    s->user = pct_decode(v, (size_t)(colon - v));
                    s->pwd = pct_decode(colon + 1, strlen(colon + 1));
                    if (s->user == NULL || s->pwd == NULL) {
                        stat = NC_ENOMEM;
                        goto done;
                    }
                }
                free(v);
                v = NULL;
            }
        }
    }
    if (s->user != NULL) {
        SETOPT(CURLOPT_USERNAME, s->user);
        SETOPT(CURLOPT_PASSWORD, s->pwd ? s->pwd : "");
        SETOPT(CURLOPT_HTTPAUTH, (long)CURLAUTH_ANY);
    }

    /* Proxy: the key (a URL, with user:password if the proxy wants them);
     * without it curl honours http_proxy, https_proxy, ALL_PROXY, NO_PROXY. */
    if ((v = key_any(s, k_proxy)) != NULL && *v != '\0') {
        SETOPT(CURLOPT_PROXY, v);
        SETOPT(CURLOPT_PROXYAUTH, (long)CURLAUTH_ANY);
    }
    free(v);
    v = NULL;

    /* TLS. */
    if (key_bool(s, "HTTP.SSL.VALIDATE", 0)) {
        SETOPT(CURLOPT_SSL_VERIFYPEER, 1L);
        SETOPT(CURLOPT_SSL_VERIFYHOST, 2L);
    }
    if ((n = key_long(s, "HTTP.SSL.VERIFYPEER", -1)) >= 0)
        SETOPT(CURLOPT_SSL_VERIFYPEER, n ? 1L : 0L);
    if ((n = key_long(s, "HTTP.SSL.VERIFYHOST", -1)) >= 0)
        SETOPT(CURLOPT_SSL_VERIFYHOST, n ? 2L : 0L);
    if ((stat = set_str_key(s, CURLOPT_SSLCERT, k_cert)) || (stat = set_str_key(s, CURLOPT_SSLKEY, k_key)) || (stat = set_str_key(s, CURLOPT_KEYPASSWD, k_keypw)) || (stat = set_str_key(s, CURLOPT_CAINFO, k_cainfo)) || (stat = set_str_key(s, CURLOPT_CAPATH, k_capath)))
        goto done;

    /* HTTP.READ.BUFFERSIZE: bytes, or "max". */
    if ((v = nch_session_key(s, "HTTP.READ.BUFFERSIZE")) != NULL) {
        long bs = strcasecmp(v, "max") == 0 ? (long)CURL_MAX_READ_SIZE : atol(v);
        if (bs > 0)
            SETOPT(CURLOPT_BUFFERSIZE, bs);
        free(v);
        v = NULL;
    }
    /* HTTP.KEEPALIVE: "on", or "idle/interval" in seconds. */
    if ((v = nch_session_key(s, "HTTP.KEEPALIVE")) != NULL) {
        unsigned long idle = 0, intvl = 0;
        if (strcasecmp(v, "on") == 0 || sscanf(v, "%lu/%lu", &idle, &intvl) == 2) {
            SETOPT(CURLOPT_TCP_KEEPALIVE, 1L);
            if (idle > 0)
                SETOPT(CURLOPT_TCP_KEEPIDLE, (long)idle);
            if (intvl > 0)
                SETOPT(CURLOPT_TCP_KEEPINTVL, (long)intvl);
        }
        free(v);
        v = NULL;
    }
done:
    free(v);
    return stat;
}

int
nch_session_open(const char *url, nch_session **sp)
{
    nch_session *s = NULL;
    char *clean = NULL;
    size_t as, ul, wl;
    int stat;

    if (sp == NULL || url == NULL)
        return NC_EINVAL;
    *sp = NULL;
    if ((stat = url_parts(url, &as, &ul)))
        return stat;
    if ((stat = nch_global_start()))
        return stat;
    if ((s = calloc(1, sizeof(*s))) == NULL)
        return NC_ENOMEM;
    s->dap_errors = 1;
    if ((stat = strip_userinfo(url, &clean, &s->user, &s->pwd)))
        goto done;
    /* The look-up key: host, port and path, without query or fragment. */
    wl = strcspn(clean + as, "?#");
    if ((s->where = malloc(wl + 1)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    memcpy(s->where, clean + as, wl);
    s->where[wl] = '\0';
    if ((s->curl = curl_easy_init()) == NULL) {
        stat = NC_ECURL;
        goto done;
    }
    if ((stat = configure(s)))
        goto done;
    *sp = s;
    s = NULL;
done:
    free(clean);
    nch_session_close(s);
    return stat;
}

void
nch_session_close(nch_session *s)
{
    if (s == NULL)
        return;
    if (s->curl != NULL)
        curl_easy_cleanup(s->curl); /* writes HTTP.COOKIEJAR */
    free(s->where);
    free(s->user);
    free(s->pwd);
    free(s->agent);
    free(s->cookiejar);
    free(s->errtext);
    nch_buf_free(&s->errbody);
    free(s);
}

/* ---- body callbacks ---- */

/* Look at the status of the response whose body starts arriving. */
static void
decide(nch_session *s)
{
    long code = 0;
    if (s->decided)
        return;
    s->decided = 1;
    (void)curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
    s->iserror = code >= 400;
    s->skip = code >= 300 && code < 400; /* a redirect's own body */
    if (s->kind == REQ_BODY && code >= 200 && code < 300) {
        /* Reserve what the server announces, within reason (a lying
         * Content-Length must not make us allocate without bound); a
         * content-coded body may grow past it, geometrically. */
        curl_off_t cl = -1;
        if (curl_easy_getinfo(s->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK && cl > 0 && cl <= NCH_PREALLOC_MAX && s->out->cap - s->out->len <= (size_t)cl)
            (void)nch_buf_reserve(s->out, (size_t)cl);
    }
    if (s->kind == REQ_RANGE)
        s->body_pos = code == 206 ? s->crange : 0;
}

/* Deliver body bytes that are not an error body to the request's target. */
static int
deliver(nch_session *s, const char *p, size_t n)
{
    switch (s->kind) {
    case REQ_BODY:
        return nch_buf_append(s->out, p, n);
    case REQ_STREAM:
        return n > 0 ? s->sink(s->sinkarg, p, n) : NC_NOERR;
    case REQ_RANGE: {
        /* A 206 body starts at range_off; a 200 body (range ignored) at 0. */
        unsigned long long start = s->body_pos, end = start + n, lo, hi;
        unsigned long long want_lo = s->range_off, want_hi = s->range_off + s->range_n;
        int stat = NC_NOERR;
        s->body_pos = end;
        lo = start > want_lo ? start : want_lo;
        hi = end < want_hi ? end : want_hi;
        if (lo < hi) {
            stat = nch_buf_append(s->out, p + (lo - start), (size_t)(hi - lo));
            s->range_got += (size_t)(hi - lo);
        }
        if (!stat && s->range_got >= s->range_n)
            s->range_done = 1;
        return stat;
    }
    default:
        return NC_NOERR;
    }
}

/* Is what is in peek (all the body so far) the start of "Error {"? */
static int
looks_like_daperr(const unsigned char *p, size_t n, int complete)
{
    static const char tag[] = "Error";
    size_t i = 0, t = 0;
    while (i < n && t < 5) {
        if (p[i] != (unsigned char)tag[t])
            return 0;
        i++;
        t++;
    }
    if (t < 5)
        return !complete;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
        i++;
    if (i < n)
        return p[i] == '{';
    return !complete;
}

static size_t
write_cb(char *p, size_t size, size_t nmemb, void *arg)
{
    nch_session *s = arg;
    size_t n = size * nmemb;
    int stat = NC_NOERR;

    decide(s);
    if (s->skip)
        return n;
    if (s->iserror || s->isdaperr) {
        size_t room = NCH_ERRBODY_MAX > s->errbody.len ? NCH_ERRBODY_MAX - s->errbody.len : 0;
        if (nch_buf_append(&s->errbody, p, n < room ? n : room))
            return 0;
        return n;
    }
    if (s->kind == REQ_STREAM && s->dap_errors && !s->peeked) {
        /* Hold the first bytes back until they say whether this is an error. */
        size_t take = NCH_PEEK - s->npeek < n ? NCH_PEEK - s->npeek : n;
        memcpy(s->peek + s->npeek, p, take);
        s->npeek += take;
        p += take;
        n -= take;
        if (s->npeek < NCH_PEEK && n == 0 && looks_like_daperr(s->peek, s->npeek, 0))
            return size * nmemb;
        if (looks_like_daperr(s->peek, s->npeek, 0)) {
            s->isdaperr = 1;
            if (nch_buf_append(&s->errbody, s->peek, s->npeek) || nch_buf_append(&s->errbody, p, n))
                return 0;
            return size * nmemb;
        }
        s->peeked = 1;
        if ((stat = deliver(s, (const char *)s->peek, s->npeek)))
            goto fail;
        s->npeek = 0;
    }
    if ((stat = deliver(s, p, n)))
        goto fail;
    if (s->kind == REQ_RANGE && s->range_done)
        return 0; /* enough: stop the transfer (not an error, see run) */
    return size * nmemb;
fail:
    s->sinkstat = stat;
    return 0;
}

/* A new response of a redirect chain or authentication round starts with
 * its status line: forget what the previous one decided. */
static size_t
header_cb(char *p, size_t size, size_t nmemb, void *arg)
{
    nch_session *s = arg;
    size_t n = size * nmemb;
    if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
        s->decided = 0;
        s->iserror = 0;
        s->skip = 0;
        s->crange = 0;
        s->errbody.len = 0;
    } else if (n > 14 && strncasecmp(p, "Content-Range:", 14) == 0) {
        /* "Content-Range: bytes FIRST-LAST/SIZE": where the body starts. */
        char tmp[128];
        unsigned long long first;
        size_t m = n < sizeof(tmp) - 1 ? n : sizeof(tmp) - 1;
        memcpy(tmp, p, m);
        tmp[m] = '\0';
        if (sscanf(tmp + 14, " bytes %llu-", &first) == 1)
            s->crange = first;
    }
    return n;
}

/* ---- requests ---- */

/* As upstream's DAP2 client answers (the reference ncdump's messages): 401
 * "Access failure", 403 "Authorization failure", 404 "file not found", 5xx
 * "DAP server error", any other 4xx "Access failure". */
int
nch_status_error(long status)
{
    if (status < 400)
        return NC_NOERR;
    switch (status) {
    case 401:
        return NC_EACCESS;
    case 403:
        return NC_EAUTH;
    case 404:
    case 410:
        return NC_ENOTFOUND;
    default:
        return status >= 500 ? NC_EDAPSVC : NC_EACCESS;
    }
}

static int
curl_error(CURLcode c)
{
    switch (c) {
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        return NC_EURL;
    case CURLE_OUT_OF_MEMORY:
        return NC_ENOMEM;
    case CURLE_FILE_COULDNT_READ_FILE:
    case CURLE_REMOTE_FILE_NOT_FOUND:
        return NC_ENOTFOUND;
    case CURLE_LOGIN_DENIED:
    case CURLE_REMOTE_ACCESS_DENIED:
        return NC_EACCESS;
    default:
        /* No connection, a timeout, a body cut short, TLS, too many
         * redirects: upstream's "I/O failure". */
        return NC_EIO;
    }
}

/* Keep the error body as the error text: trimmed, one line per line. */
static void
keep_error_body(nch_session *s, long status)
{
    char head[64];
    const char *t = s->errbody.data ? (const char *)s->errbody.data : "";
    size_t n = s->errbody.len;
    while (n > 0 && isspace((unsigned char)t[n - 1]))
        n--;
    if (n > 0)
        (void)set_error(s, t, n);
    else {
        snprintf(head, sizeof(head), "HTTP status %ld", status);
        (void)set_error(s, head, strlen(head));
    }
}

/* Run one request of the given kind on url; the callbacks' state is set by
 * the caller. */
static int
run(nch_session *s, const char *url)
{
    char *clean = NULL, *escaped = NULL, *user = NULL, *pwd = NULL;
    long code = 0;
    CURLcode c;
    int stat = NC_NOERR;

    if (s == NULL || url == NULL)
        return NC_EINVAL;
    s->status = 0;
    s->curlerr[0] = '\0';
    free(s->errtext);
    s->errtext = NULL;
    s->errbody.len = 0;
    s->decided = s->iserror = s->isdaperr = s->skip = s->peeked = 0;
    s->crange = s->range_off;
    s->sinkstat = 0;
    s->npeek = 0;
    s->body_pos = 0;
    s->range_got = 0;
    s->range_done = 0;
    if ((stat = strip_userinfo(url, &clean, &user, &pwd)))
        goto done;
    /* A request URL with its own credentials uses them for this request. */
    if (user != NULL) {
        SETOPT(CURLOPT_USERNAME, user);
        SETOPT(CURLOPT_PASSWORD, pwd);
        SETOPT(CURLOPT_HTTPAUTH, (long)CURLAUTH_ANY);
    }
    if (!s->raw_urls && (stat = escape_unsafe(clean, &escaped)))
        goto done;
    SETOPT(CURLOPT_URL, escaped ? escaped : clean);
    SETOPT(CURLOPT_WRITEFUNCTION, write_cb);
    SETOPT(CURLOPT_WRITEDATA, s);
    SETOPT(CURLOPT_HEADERFUNCTION, header_cb);
    SETOPT(CURLOPT_HEADERDATA, s);
    if (s->kind == REQ_HEAD)
        SETOPT(CURLOPT_NOBODY, 1L);
    else
        SETOPT(CURLOPT_HTTPGET, 1L);
    /* Ranges count bytes of the stored object: no content coding there. */
    SETOPT(CURLOPT_ACCEPT_ENCODING, (s->encode && s->kind != REQ_RANGE) ? "deflate, gzip" : NULL);
    if (s->kind == REQ_RANGE) {
        char range[64];
        snprintf(range, sizeof(range), "%llu-%llu", s->range_off,
                 s->range_off + (unsigned long long)s->range_n - 1);
        SETOPT(CURLOPT_RANGE, range);
    } else
        SETOPT(CURLOPT_RANGE, NULL);

    nch_count_request();
    c = curl_easy_perform(s->curl);
    (void)curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
    s->status = code;

    if (c == CURLE_WRITE_ERROR && s->sinkstat) {
        stat = s->sinkstat;
        (void)set_error(s, "transfer stopped by the receiver", 32);
    } else if (c == CURLE_WRITE_ERROR && s->range_done) {
        stat = NC_NOERR;
    } else if (c != CURLE_OK) {
        const char *m = s->curlerr[0] ? s->curlerr : curl_easy_strerror(c);
        (void)set_error(s, m, strlen(m));
        stat = curl_error(c);
    } else if (code >= 400) {
        keep_error_body(s, code);
        stat = nch_status_error(code);
    } else if (s->kind == REQ_STREAM && s->npeek > 0 && !s->isdaperr) {
        /* A body shorter than the peek: release it now. */
        if (looks_like_daperr(s->peek, s->npeek, 1)) {
            (void)nch_buf_append(&s->errbody, s->peek, s->npeek);
            s->isdaperr = 1;
        } else if ((stat = deliver(s, (const char *)s->peek, s->npeek))) {
            goto done;
        }
    }
    if (stat == NC_NOERR && s->kind == REQ_BODY && s->dap_errors && s->out->len > s->out_start && looks_like_daperr(s->out->data + s->out_start, s->out->len - s->out_start, 1)) {
        (void)nch_buf_append(&s->errbody, s->out->data + s->out_start, s->out->len - s->out_start);
        s->isdaperr = 1;
    }
    if (stat == NC_NOERR && s->isdaperr) {
        keep_error_body(s, code);
        stat = NC_EDAPSVC;
    }
done:
    if (user != NULL) {
        /* Back to the session's own credentials. */
        (void)curl_easy_setopt(s->curl, CURLOPT_USERNAME, s->user);
        (void)curl_easy_setopt(s->curl, CURLOPT_PASSWORD, s->user ? s->pwd : NULL);
        if (s->user == NULL)
            (void)curl_easy_setopt(s->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
    }
    if (s->kind == REQ_HEAD)
        (void)curl_easy_setopt(s->curl, CURLOPT_NOBODY, 0L);
    free(clean);
    free(escaped);
    free(user);
    free(pwd);
    return stat;
}

/* Run a request whose body goes into out; a failed one leaves out as it
 * was (its length and the NUL after it). */
static int
run_into(nch_session *s, const char *url, nch_buf *out)
{
    int stat;
    s->out = out;
    s->out_start = out->len;
    stat = run(s, url);
    if (s->kind == REQ_RANGE && s->status == 416 && stat == nch_status_error(416))
        stat = NC_NOERR; /* the range starts at or past the end: no bytes */
    if (stat != NC_NOERR) {
        out->len = s->out_start;
        if (out->data != NULL)
            out->data[out->len] = '\0';
    }
    s->out = NULL;
    return stat;
}

int
nch_get(nch_session *s, const char *url, nch_buf *out)
{
    if (s == NULL || out == NULL)
        return NC_EINVAL;
    s->kind = REQ_BODY;
    return run_into(s, url, out);
}

int
nch_get_stream(nch_session *s, const char *url, nch_sink sink, void *arg)
{
    int stat;
    if (s == NULL || sink == NULL)
        return NC_EINVAL;
    s->kind = REQ_STREAM;
    s->sink = sink;
    s->sinkarg = arg;
    stat = run(s, url);
    s->sink = NULL;
    s->sinkarg = NULL;
    return stat;
}

int
nch_head(nch_session *s, const char *url, long long *content_length)
{
    curl_off_t len = -1;
    int stat;
    if (s == NULL)
        return NC_EINVAL;
    s->kind = REQ_HEAD;
    stat = run(s, url);
    if (stat == NC_NOERR && content_length != NULL) {
        if (curl_easy_getinfo(s->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len) != CURLE_OK)
            len = -1;
        *content_length = (long long)len;
    }
    return stat;
}

int
nch_get_range(nch_session *s, const char *url, unsigned long long off, size_t n, nch_buf *out)
{
    if (s == NULL || out == NULL)
        return NC_EINVAL;
    if (n == 0)
        return NC_NOERR;
    if (off + n < off)
        return NC_EINVAL;
    s->kind = REQ_RANGE;
    s->range_off = off;
    s->range_n = n;
    return run_into(s, url, out);
}
