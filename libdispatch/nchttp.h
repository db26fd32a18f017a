/* nchttp.h: the library's one HTTP client (dhttp.c), on libcurl.
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
 * Errors: every function returns an NC_* code.  HTTP 404 (and 410) ->
 * NC_ENOTFOUND; 401 -> NC_EAUTH; 403 -> NC_EACCESS; 400 -> NC_EDAPURL;
 * 5xx or a DAP2 "Error { ... }" body -> NC_EDAPSVC; a transfer that fails
 * (no connection, timeout, a body cut short, bad TLS) -> NC_ECURL; an
 * invalid URL -> NC_EURL.  A failed request appends nothing to the
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
 * the configuration look-up).  No request is made.  NC_EURL when url is
 * not an http(s) or file URL; NC_ECURL when curl cannot start. */
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
/* The settings key for the session's URL, a copy (caller frees) or NULL. */
char *nch_session_key(const nch_session *s, const char *key);
/* The HTTP status a given NC_* code of this module stood for is in
 * nch_last_status; this maps a status to the NC_* code the module returns. */
int nch_status_error(long status);

#endif /* NCHTTP_H */
