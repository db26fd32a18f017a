/* nchttp.h: the library's one HTTP client (dhttp*.c), on libcurl.
 *
 * Every remote read of the library (DAP2, DAP4, byte ranges, S3) asks this
 * module for its requests; nothing else calls curl.  It is built when
 * libcurl is found (NC_HAVE_HTTP); docs/http.md lists what it does.
 *
 * A session belongs to one open dataset and is used by one thread at a
 * time.  Its settings come from the .ncrc/.daprc/.dodsrc keys (ncrc.h) that
 * match the dataset URL given to nch_session_open (host, port and path;
 * its query and fragment are ignored for the look-up); user:password in
 * that URL, the HTTP.CREDENTIALS.* keys and .netrc answer 401 challenges.
 * Cookies live in one jar per process shared by every session (and, with
 * HTTP.COOKIEJAR, in that file too).
 *
 * Errors: every function returns an NC_* code, as upstream's DAP2 client
 * does: HTTP 404 (and 410) -> NC_ENOTFOUND; 401 -> NC_EACCESS; 403 ->
 * NC_EAUTH; other 4xx -> NC_EACCESS; 5xx or a DAP2 "Error { ... }" body ->
 * NC_EDAPSVC; a transfer that fails (no connection, a timeout, a body cut
 * short, TLS, too many redirects) -> NC_EIO; an invalid URL -> NC_EURL;
 * curl that cannot start -> NC_ECURL.  A failed request appends nothing to the
 * caller's buffer.  nch_last_error() keeps the server's error text (or
 * curl's message) of the session's last request for logging.
 *
 * Memory: an nch_buf starts zeroed ({0}); the functions append to it
 * (geometric growth, one byte past len is always a NUL so text bodies can
 * be read as strings) and the caller frees it with nch_buf_free.
 */
#ifndef NCHTTP_H
#define NCHTTP_H

#include <stddef.h>

typedef struct nch_session nch_session; /* one per open dataset; holds the curl handle, config for its URL */
typedef struct nch_buf {
    unsigned char *data;
    size_t len, cap;
} nch_buf;
/* sink for streamed bodies: return 0 to continue, non-zero NC_* to abort */
typedef int (*nch_sink)(void *arg, const void *bytes, size_t n);

/* Open a session for the dataset url (its query/fragment are ignored for
 * the configuration look-up).  No request is made.  NC_EURL when url has
 * no "scheme://"; NC_ECURL when curl cannot start. */
int nch_session_open(const char *url, nch_session **sp);
void nch_session_close(nch_session *s);

/* GET url; the whole body, decoded (gzip/deflate), is appended to out. */
int nch_get(nch_session *s, const char *url, nch_buf *out);
/* GET url; the decoded body goes to sink as it arrives.  A non-zero return
 * of the sink stops the transfer and is returned.  On an HTTP error the
 * sink sees nothing (the error body is kept for nch_last_error). */
int nch_get_stream(nch_session *s, const char *url, nch_sink sink, void *arg);
/* HEAD url; *content_length is the object's size, -1 when unknown. */
int nch_head(nch_session *s, const char *url, long long *content_length);
/* GET bytes [off, off+n) of url, appended to out.  A server that ignores
 * the range (200 with the whole object) is answered from that body; fewer
 * bytes than asked (the object ends first) is not an error: out grows by
 * what there is. */
int nch_get_range(nch_session *s, const char *url, unsigned long long off, size_t n, nch_buf *out);

const char *nch_last_error(const nch_session *s); /* server's error text or curl's message, "" if none */
long nch_last_status(const nch_session *s);       /* last HTTP status */
unsigned long nch_request_count(void);            /* requests made by this process, for tests */
void nch_buf_free(nch_buf *b);

/* ---- helpers shared with the clients ---- */

/* Append n bytes to b (geometric growth, NUL kept after len). */
int nch_buf_append(nch_buf *b, const void *bytes, size_t n);
/* Whether a 200 body that starts "Error {" is a DAP2 error (NC_EDAPSVC) for
 * nch_get and nch_get_stream: on by default; off for stores of arbitrary
 * bytes. */
void nch_session_dap_errors(nch_session *s, int on);
/* With on, the session's request URLs go to curl byte for byte: the caller
 * has %XX-escaped what it wants escaped (DAP2's "encode" parameter); off
 * (the default), the characters URLs do not allow are escaped here. */
void nch_session_raw_urls(nch_session *s, int on);
/* The size of the pieces curl hands a body over in (its receive buffer,
 * 16 KiB by default), for a session that reads large bodies: fewer, larger
 * reads.  Clamped to curl's limits; the HTTP.READ.BUFFERSIZE key, when
 * set for the URL, wins. */
int nch_session_bufsize(nch_session *s, long bytes);
/* The settings key for the session's URL, a copy (caller frees) or NULL. */
char *nch_session_key(const nch_session *s, const char *key);
/* The HTTP status a given NC_* code of this module stood for is in
 * nch_last_status; this maps a status to the NC_* code the module returns. */
int nch_status_error(long status);

/* curl's process-wide start (once; NC_ECURL when it failed), and the
 * request counter behind nch_request_count: shared by the dhttp*.c files. */
int nch_global_start(void);
void nch_count_request(void);

/* ---- idle sessions (dhttp_sessions.c) ----
 * One open dataset that threads read at once makes each request on a
 * session of its own, taken from the dataset's set and given back after:
 * a session (one curl handle) serves one request at a time, and one given
 * back keeps its connection open for the next request.
 *
 * The set is thread-safe: any thread may take and give at any time, and a
 * taken session is the taker's alone until it gives it back.  Take hands
 * out an idle session (the last one given back) or, when none is idle, a
 * new one: nch_session_open(url) and then setup(s, arg) when setup is not
 * NULL; a failed open or set-up returns its code and leaves nothing open.
 * Give keeps the session idle while fewer than cap are, else closes it: so
 * any number of requests may run at once, and at most cap sessions stay
 * open between them.  Close closes the idle sessions and frees the set; no
 * session may be out then. */
#define NCH_IDLE_SESSIONS 16 /* the cap the DAP clients keep */
typedef struct nch_sessions nch_sessions;
typedef int (*nch_session_setup)(nch_session *s, void *arg);
/* NC_EINVAL for a NULL url or a cap over 2^20. */
int nch_sessions_open(const char *url, size_t cap, nch_session_setup setup, void *arg,
                      nch_sessions **setp);
void nch_sessions_close(nch_sessions *set);
int nch_sessions_take(nch_sessions *set, nch_session **sp);
/* s NULL: nothing; set NULL: s is closed. */
void nch_sessions_give(nch_sessions *set, nch_session *s);
/* For tests: the new sessions take has handed out, the sessions idle now. */
void nch_sessions_count(nch_sessions *set, unsigned long *made, size_t *idle);

/* ---- raw requests (dhttp_raw.c): stores that sign their own requests ----
 *
 * For S3: no .ncrc settings, no redirects, no cookies, no content coding;
 * each request says its method, URL, headers, payload and signing, and
 * where its body goes.  The outcome of the transfer is the return value;
 * the HTTP status is the caller's to judge.  A request (nch_rawreq) is
 * zeroed before use and cleared with nch_rawreq_clear, which frees what it
 * owns (url, headers, body unless taken, error body). */
typedef struct nch_raw nch_raw; /* a reusable connection for serial requests */
typedef struct nch_rawreq {
    /* what to send */
    const char *method;  /* "GET", "PUT", "HEAD", "DELETE" */
    char *url;           /* owned: malloc'ed by the caller, freed by clear */
    const void *payload; /* PUT body (borrowed) */
    size_t paylen;
    char range[64];    /* "FIRST-LAST", "FIRST-" or "" */
    void *headers;     /* extra header lines (nch_rawreq_header) */
    const char *sigv4; /* curl's AWS SigV4 spec ("aws:amz:REGION:s3") or NULL */
    const char *user;  /* with sigv4: the access key and secret */
    const char *password;
    /* where the body goes: the caller's dst of dstcap bytes when dst is set
     * (skip: bytes dropped first from a 200 answer, a range ignored), else
     * body, grown (reserved from Content-Length up to 1 GiB) */
    void *dst;
    size_t dstcap;
    unsigned long long skip;
    /* what came back */
    long status;              /* HTTP status, 0 when none */
    nch_buf body;             /* dst NULL: the body (take body.data to keep it) */
    size_t got;               /* dst set: bytes stored there */
    int overflow;             /* dst set: the answer held more than dstcap bytes (stopped) */
    int nomem;                /* no memory for the body */
    nch_buf errbody;          /* body of an answer >= 300, at most 64 KiB */
    long long content_length; /* Content-Length of the answer, -1 unknown */
    /* headers of the answer that a ranged reader checks ("" when absent,
     * cut to fit) */
    char content_range[64]; /* "bytes FIRST-LAST/TOTAL", or "*" for FIRST-LAST */
    char etag[128];
    char last_modified[64];
    struct nch_pool *pool;  /* connections to reuse (nch_pool_open), or NULL */
} nch_rawreq;

int nch_raw_open(nch_raw **hp);
void nch_raw_close(nch_raw *h);
/* Append a copy of one "Name: value" header line to r. */
int nch_rawreq_header(nch_rawreq *r, const char *line);
void nch_rawreq_clear(nch_rawreq *r);
/* Run r on h's connection.  Returns the transfer's outcome: NC_NOERR (any
 * status), NC_ENOMEM, NC_EIO (the body was cut short), NC_ECURL (no
 * connection, a timeout, a transfer stopped on overflow, ...). */
int nch_raw_perform(nch_raw *h, nch_rawreq *r);

/* n requests, up to maxconn at once (curl multi), in order of index.
 * prep(arg, i, r) fills a zeroed r for request i; a non-zero return (or a
 * failed set-up) goes to fail(arg, i, st) and no transfer is made.
 * done(arg, i, r, st) gets the outcome of a finished transfer (as
 * nch_raw_perform returns it) and returns the request's final status.
 * serious(st) says whether a status fails the batch: the first such status
 * is returned, and the requests not started yet then get it through fail.
 * When curl's multi interface itself fails, the batch stops with fatal
 * (requests in flight or not started get fatal through fail).  *nsent
 * counts the transfers started. */
typedef struct nch_raw_batch {
    void *arg;
    int (*prep)(void *arg, size_t i, nch_rawreq *r);
    int (*done)(void *arg, size_t i, nch_rawreq *r, int st);
    void (*fail)(void *arg, size_t i, int st);
    int (*serious)(int st);
    int fatal;
} nch_raw_batch;
int nch_raw_perform_many(const nch_raw_batch *b, size_t n, size_t maxconn, unsigned long long *nsent);

/* ---- shared connections (dhttp_pool.c) ----
 * Raw requests naming the same pool reuse its open connections (and DNS
 * and TLS sessions), serial or in batches.  One thread at a time; close it
 * after every connection and batch that used it. */
typedef struct nch_pool nch_pool;
int nch_pool_open(nch_pool **sp);
void nch_pool_close(nch_pool *s);
void *nch_pool_handle(const nch_pool *s); /* curl's CURLSH, for dhttp_raw.c */

#endif /* NCHTTP_H */
