/* tst_http.c: the HTTP layer (nchttp.h) against the loopback server.
 *
 *     tst_http PORT LOGINPORT DATADIR WORKDIR TLSPORT
 *
 * Run by run_http.py, which starts dapserver.py and writes the settings
 * file (NCRCENV_RC) and the .netrc files this program's cases rely on:
 *   [127.0.0.1:PORT/stall]HTTP.TIMEOUT=2 (and /stallbody)
 *   [127.0.0.1:PORT/auth/gzip]HTTP.CREDENTIALS.USERPASSWORD=tiggeruser:tigger
 *   [127.0.0.1:PORT/auth/deflate]HTTP.NETRC=WORKDIR/netrc_data
 *   [127.0.0.1:PORT/auth/k-nonetrc]HTTP.NETRC= (none; $HOME/.netrc has
 *   the data host's credentials and must not be read)
 *   [127.0.0.1:PORT/setcookie]HTTP.COOKIEJAR=WORKDIR/jar
 *   [127.0.0.1:PORT/_echo]HTTP.USERAGENT=tst_http/1
 *   [nowhere.invalid:9]HTTP.PROXY.SERVER=http://127.0.0.1:PORT
 *   [127.0.0.1:TLSPORT/k-noverify]HTTP.SSL.VERIFYPEER=0, VERIFYHOST=0
 *   [127.0.0.1:TLSPORT/k-ca]HTTP.SSL.CAINFO=WORKDIR/cert.pem (self-signed)
 *   [127.0.0.1:TLSPORT/k-validate]HTTP.SSL.VALIDATE=1 and that CAINFO
 *   HTTP.NETRC=WORKDIR/netrc (machine localhost: the login host)
 * Each section checks the returned NC_* code, the body against the file
 * on disk, and where it matters the server's request counts.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "config.h"
#include "nctst.h"
#include "nchttp.h"

static int port, loginport, tlsport;
static const char *datadir, *workdir;

static char *
url(const char *fmt, const char *arg)
{
    static char buf[8][1200];
    static int next;
    char *b = buf[next++ % 8];
    char path[1100];
    snprintf(path, sizeof(path), fmt, arg);
    snprintf(b, sizeof(buf[0]), "http://127.0.0.1:%d%.1100s", port, path);
    return b;
}

static unsigned char *
file_bytes(const char *name, size_t *len)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s/%s", datadir, name);
    return nct_slurp(p, len);
}

/* Does b hold exactly the bytes of data file name? */
static int
same_as_file(const nch_buf *b, const char *name)
{
    size_t n = 0;
    unsigned char *f = file_bytes(name, &n);
    int ok = f != NULL && b->len == n && memcmp(b->data, f, n) == 0;
    free(f);
    return ok;
}

/* The server's count of requests for path. */
static long
server_count(nch_session *s, const char *path)
{
    nch_buf b = {0};
    long n = -1;
    if (nch_get(s, url("/_count?path=%s", path), &b) == NC_NOERR)
        n = atol((const char *)b.data);
    nch_buf_free(&b);
    return n;
}

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- sections ---- */

static void
test_plain(void)
{
    nch_session *s = NULL;
    nch_buf b = {0};
    unsigned long before;
    MUST(nch_session_open(url("/123.nc", ""), &s));
    before = nch_request_count();
    OK(nch_get(s, url("/%s", "123.nc.dds"), &b));
    CHECK(same_as_file(&b, "123.nc.dds"), "plain dds body");
    CHECK(nch_last_status(s) == 200, "status %ld", nch_last_status(s));
    CHECK(strcmp(nch_last_error(s), "") == 0, "no error text");
    CHECK(b.data[b.len] == '\0', "NUL after the body");
    /* Appending: a second body goes after the first. */
    OK(nch_get(s, url("/%s", "123.nc.das"), &b));
    {
        size_t n1 = 0, n2 = 0;
        unsigned char *f1 = file_bytes("123.nc.dds", &n1), *f2 = file_bytes("123.nc.das", &n2);
        CHECK(f1 && f2 && b.len == n1 + n2 && memcmp(b.data + n1, f2, n2) == 0, "appended body");
        free(f1);
        free(f2);
    }
    CHECK(nch_request_count() == before + 2, "request count %lu", nch_request_count() - before);
    nch_buf_free(&b);
    OK(nch_get(s, url("/%s", "123.nc.dods"), &b));
    CHECK(same_as_file(&b, "123.nc.dods"), "dods body");
    nch_buf_free(&b);
    nch_session_close(s);
}

static void
test_encodings(void)
{
    nch_session *s = NULL;
    nch_buf b = {0};
    MUST(nch_session_open(url("/gzip/123.nc", ""), &s));
    OK(nch_get(s, url("/gzip/%s", "123.nc.dods"), &b));
    CHECK(same_as_file(&b, "123.nc.dods"), "gzip body decoded");
    nch_buf_free(&b);
    OK(nch_get(s, url("/deflate/%s", "test.01.dods"), &b));
    CHECK(same_as_file(&b, "test.01.dods"), "deflate body decoded");
    nch_buf_free(&b);
    OK(nch_get(s, url("/_echo", ""), &b));
    CHECK(b.data && strstr((char *)b.data, "gzip") != NULL, "Accept-Encoding sent: %s",
          b.data ? (char *)b.data : "");
    CHECK(b.data && strstr((char *)b.data, "\"oc" PACKAGE_VERSION "\"") != NULL,
          "default User-Agent: %s", b.data ? (char *)b.data : "");
    nch_buf_free(&b);
    /* Characters servers reject in a query go %XX-escaped; '%' stays. */
    OK(nch_get(s, url("/_echo?%s", "bears[0:1:1],l&l>\"a b\"%2C"), &b));
    CHECK(b.data && strstr((char *)b.data, "\"/_echo?bears%5B0:1:1%5D,l&l%3E%22a%20b%22%2C\"") != NULL,
          "escaped query: %s", b.data ? (char *)b.data : "");
    nch_buf_free(&b);
    nch_session_close(s);
    /* HTTP.USERAGENT for the URL of the session. */
    MUST(nch_session_open(url("/_echo", ""), &s));
    OK(nch_get(s, url("/_echo", ""), &b));
    CHECK(b.data && strstr((char *)b.data, "tst_http/1") != NULL, "User-Agent key: %s",
          b.data ? (char *)b.data : "");
    nch_buf_free(&b);
    nch_session_close(s);
}

static void
test_redirects(void)
{
    static const char *const kinds[] = {"r301", "r302", "r307"};
    nch_session *s = NULL;
    nch_buf b = {0};
    char path[1024];
    size_t i;
    MUST(nch_session_open(url("/123.nc", ""), &s));
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "/%s/gzip/123.nc.dds", kinds[i]);
        OK(nch_get(s, url("%s", path), &b));
        CHECK(same_as_file(&b, "123.nc.dds"), "%s body", kinds[i]);
        CHECK(nch_last_status(s) == 200, "%s final status %ld", kinds[i], nch_last_status(s));
        nch_buf_free(&b);
    }
    /* More than 20 redirects is an error. */
    strcpy(path, "");
    for (i = 0; i < 22; i++)
        strcat(path, "/r302");
    strcat(path, "/123.nc.dds");
    EXPECT(nch_get(s, url("%s", path), &b), NC_EIO);
    CHECK(b.len == 0, "nothing kept of a redirect loop");
    nch_buf_free(&b);
    nch_session_close(s);
}

static void
test_auth(void)
{
    nch_session *s = NULL;
    nch_buf b = {0};
    char u[1024];
    /* No credentials: the challenge is an error. */
    MUST(nch_session_open(url("/auth/123.nc", ""), &s));
    EXPECT(nch_get(s, url("/auth/%s", "123.nc.dds"), &b), NC_EACCESS);
    CHECK(nch_last_status(s) == 401, "401 status %ld", nch_last_status(s));
    CHECK(strstr(nch_last_error(s), "authorization required") != NULL, "server text kept: %s",
          nch_last_error(s));
    CHECK(b.len == 0, "no body on 401");
    nch_session_close(s);
    /* user:password in the dataset URL (escaped characters decoded). */
    snprintf(u, sizeof(u), "http://tigger%%75ser:tigger@127.0.0.1:%d/auth/123.nc", port);
    MUST(nch_session_open(u, &s));
    OK(nch_get(s, url("/auth/%s", "123.nc.dds"), &b));
    CHECK(same_as_file(&b, "123.nc.dds"), "URL credentials");
    nch_buf_free(&b);
    nch_session_close(s);
    /* Wrong password in the URL. */
    snprintf(u, sizeof(u), "http://tiggeruser:wrong@127.0.0.1:%d/auth/123.nc", port);
    MUST(nch_session_open(u, &s));
    EXPECT(nch_get(s, url("/auth/%s", "123.nc.dds"), &b), NC_EACCESS);
    nch_session_close(s);
    /* Credentials in a request URL. */
    MUST(nch_session_open(url("/123.nc", ""), &s));
    snprintf(u, sizeof(u), "http://tiggeruser:tigger@127.0.0.1:%d/auth/123.nc.das", port);
    OK(nch_get(s, u, &b));
    CHECK(same_as_file(&b, "123.nc.das"), "request URL credentials");
    nch_buf_free(&b);
    /* ... used for that request only. */
    EXPECT(nch_get(s, url("/auth/%s", "123.nc.das"), &b), NC_EACCESS);
    nch_session_close(s);
    /* HTTP.CREDENTIALS.USERPASSWORD for [127.0.0.1:PORT/auth/gzip]. */
    MUST(nch_session_open(url("/auth/gzip/123.nc", ""), &s));
    OK(nch_get(s, url("/auth/gzip/%s", "123.nc.dds"), &b));
    CHECK(same_as_file(&b, "123.nc.dds"), "rc credentials");
    nch_buf_free(&b);
    nch_session_close(s);
    /* .netrc named by HTTP.NETRC for [127.0.0.1:PORT/auth/deflate]. */
    MUST(nch_session_open(url("/auth/deflate/123.nc", ""), &s));
    OK(nch_get(s, url("/auth/deflate/%s", "123.nc.dds"), &b));
    CHECK(same_as_file(&b, "123.nc.dds"), ".netrc credentials");
    nch_buf_free(&b);
    nch_session_close(s);
    /* No HTTP.NETRC: $HOME/.netrc is not read. */
    MUST(nch_session_open(url("/auth/k-nonetrc/123.nc", ""), &s));
    EXPECT(nch_get(s, url("/auth/k-nonetrc/%s", "123.nc.dds"), &b), NC_EACCESS);
    nch_session_close(s);
}

static void
test_cookies(void)
{
    nch_session *s = NULL, *s2 = NULL;
    nch_buf b = {0};
    char jar[1024];
    size_t n = 0;
    unsigned char *j;
    MUST(nch_session_open(url("/setcookie/123.nc", ""), &s));
    EXPECT(nch_get(s, url("/needcookie/%s", "123.nc.das"), &b), NC_EAUTH);
    CHECK(nch_last_status(s) == 403, "403 status %ld", nch_last_status(s));
    OK(nch_get(s, url("/setcookie/%s", "123.nc.das"), &b));
    nch_buf_free(&b);
    OK(nch_get(s, url("/needcookie/%s", "123.nc.das"), &b));
    CHECK(same_as_file(&b, "123.nc.das"), "cookie sent back");
    nch_buf_free(&b);
    /* The jar is the process's: another session has the cookie too. */
    MUST(nch_session_open(url("/123.nc", ""), &s2));
    OK(nch_get(s2, url("/needcookie/%s", "123.nc.dds"), &b));
    nch_buf_free(&b);
    nch_session_close(s2);
    /* HTTP.COOKIEJAR is written when the session closes. */
    nch_session_close(s);
    snprintf(jar, sizeof(jar), "%s/jar", workdir);
    j = nct_slurp(jar, &n);
    CHECK(j != NULL && n > 0 && strstr((char *)j, "dapsess") != NULL, "cookie jar file written");
    free(j);
}

static void
test_earthdata(void)
{
    nch_session *s = NULL;
    nch_buf b = {0};
    long logins, logins2;
    /* 302 to the login host, basic auth there from .netrc (machine
     * localhost), cookie set by the data host's callback, 302 back. */
    MUST(nch_session_open(url("/edl/123.nc", ""), &s));
    OK(nch_get(s, url("/edl/%s", "123.nc.dds"), &b));
    CHECK(same_as_file(&b, "123.nc.dds"), "Earthdata flow body");
    nch_buf_free(&b);
    logins = server_count(s, "/oauth/authorize");
    CHECK(logins >= 1, "login host asked (%ld)", logins);
    /* The cookie now lets requests through without the login host. */
    OK(nch_get(s, url("/edl/%s", "123.nc.das"), &b));
    CHECK(same_as_file(&b, "123.nc.das"), "Earthdata cookie reused");
    nch_buf_free(&b);
    logins2 = server_count(s, "/oauth/authorize");
    CHECK(logins2 == logins, "no second login (%ld -> %ld)", logins, logins2);
    nch_session_close(s);
}

static void
test_errors(void)
{
    static const struct {
        const char *path;
        int want;
        long status;
    } cases[] = {
        {"/e404/123.nc.dds", NC_ENOTFOUND, 404},
        {"/nosuch.dds", NC_ENOTFOUND, 404},
        {"/nosuchfile.bin", NC_ENOTFOUND, 404},
        {"/e401/123.nc.dds", NC_EACCESS, 401},
        {"/e403/123.nc.dds", NC_EAUTH, 403},
        {"/e400/123.nc.dds", NC_EACCESS, 400},
        {"/e500/123.nc.dds", NC_EDAPSVC, 500},
        {"/e503/123.nc.dds", NC_EDAPSVC, 503},
        {"/daperr/123.nc.dods", NC_EDAPSVC, 200},
        {"/daperr500/123.nc.dods", NC_EDAPSVC, 500},
        {"/123.nc.dods?bears", NC_EACCESS, 400},
    };
    nch_session *s = NULL;
    nch_buf b = {0};
    size_t i;
    char u[256];
    MUST(nch_session_open(url("/123.nc", ""), &s));
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        b.len = 0;
        OK(nch_buf_append(&b, "abc", 3));
        if (strstr(cases[i].path, "?bears") != NULL && getenv("TST_HTTP_SUBSET") != NULL)
            continue; /* a constraint module serves this */
        EXPECT(nch_get(s, url("%s", cases[i].path), &b), cases[i].want);
        CHECK(nch_last_status(s) == cases[i].status, "%s: status %ld", cases[i].path,
              nch_last_status(s));
        CHECK(b.len == 3 && memcmp(b.data, "abc", 3) == 0, "%s: buffer untouched", cases[i].path);
        CHECK(nch_last_error(s)[0] != '\0', "%s: error text", cases[i].path);
    }
    CHECK(strstr(nch_last_error(s), "code") != NULL, "DAP error text kept: %s", nch_last_error(s));
    b.len = 0;
    EXPECT(nch_get(s, url("/daperr/%s", "123.nc.dds"), &b), NC_EDAPSVC);
    CHECK(strstr(nch_last_error(s), "no such variable") != NULL, "DAP message: %s",
          nch_last_error(s));
    /* A store of arbitrary bytes turns the DAP2 check off. */
    nch_session_dap_errors(s, 0);
    b.len = 0;
    OK(nch_get(s, url("/daperr/%s", "123.nc.dds"), &b));
    CHECK(b.len > 7 && memcmp(b.data, "Error {", 7) == 0, "error text as a body");
    nch_buf_free(&b);
    nch_session_close(s);
    /* Nobody listens on port 1. */
    MUST(nch_session_open("http://127.0.0.1:1/x", &s));
    EXPECT(nch_get(s, "http://127.0.0.1:1/x.dds", &b), NC_EIO);
    CHECK(nch_last_error(s)[0] != '\0', "connect error text");
    nch_session_close(s);
    /* Not URLs. */
    s = NULL;
    EXPECT(nch_session_open("no-scheme-here", &s), NC_EURL);
    CHECK(s == NULL, "no session for a bad URL");
    EXPECT(nch_session_open(NULL, &s), NC_EINVAL);
    snprintf(u, sizeof(u), "http://127.0.0.1:%d/123.nc", port);
    MUST(nch_session_open(u, &s));
    EXPECT(nch_get(s, "bogus://x/y", &b), NC_EURL);
    EXPECT(nch_get(s, NULL, &b), NC_EINVAL);
    EXPECT(nch_get(NULL, u, &b), NC_EINVAL);
    nch_buf_free(&b);
    nch_session_close(s);
    nch_session_close(NULL);
    CHECK(strcmp(nch_last_error(NULL), "") == 0, "last error of no session");
}

static void
test_truncation(void)
{
    nch_session *s = NULL;
    nch_buf b = {0};
    MUST(nch_session_open(url("/123.nc", ""), &s));
    EXPECT(nch_get(s, url("/cut/%s", "123.nc.dods"), &b), NC_EIO);
    CHECK(b.len == 0, "no partial body kept (%zu bytes)", b.len);
    EXPECT(nch_get(s, url("/cutchunked/%s", "123.nc.dods"), &b), NC_EIO);
    CHECK(b.len == 0, "no partial chunked body kept (%zu bytes)", b.len);
    EXPECT(nch_get(s, url("/gzip/cut/%s", "123.nc.dods"), &b), NC_EIO);
    CHECK(b.len == 0, "no partial gzip body kept");
    /* A body that is not what its coding says; a length that lies. */
    EXPECT(nch_get(s, url("/badgzip/%s", "123.nc.dods"), &b), NC_EIO);
    CHECK(b.len == 0, "nothing kept of a bad gzip body");
    EXPECT(nch_get(s, url("/liar/%s", "123.nc.dods"), &b), NC_EIO);
    CHECK(b.len == 0, "nothing kept of a body shorter than announced");
    /* A body that ends with its connection is whole. */
    OK(nch_get(s, url("/nolength/%s", "123.nc.dods"), &b));
    CHECK(same_as_file(&b, "123.nc.dods"), "body without length");
    nch_buf_free(&b);
    nch_session_close(s);
}

static void
test_timeouts(void)
{
    nch_session *s = NULL;
    nch_buf b = {0};
    double t0;
    /* HTTP.TIMEOUT=2 for these paths; the server waits 10 s. */
    MUST(nch_session_open(url("/stall/123.nc", ""), &s));
    t0 = now();
    EXPECT(nch_get(s, url("/stall/%s", "123.nc.dds"), &b), NC_EIO);
    CHECK(now() - t0 < 6.0, "stall timed out in %.1f s", now() - t0);
    CHECK(strstr(nch_last_error(s), "imeout") != NULL || strstr(nch_last_error(s), "timed out"),
          "timeout text: %s", nch_last_error(s));
    nch_session_close(s);
    MUST(nch_session_open(url("/stallbody/123.nc", ""), &s));
    t0 = now();
    EXPECT(nch_get(s, url("/stallbody/%s", "123.nc.dods"), &b), NC_EIO);
    CHECK(now() - t0 < 6.0, "stalled body timed out in %.1f s", now() - t0);
    CHECK(b.len == 0, "nothing kept of a stalled body");
    nch_buf_free(&b);
    nch_session_close(s);
}

struct acc {
    nch_buf b;
    int calls, stop_after;
};

static int
sink(void *arg, const void *bytes, size_t n)
{
    struct acc *a = arg;
    a->calls++;
    if (a->stop_after && a->calls >= a->stop_after)
        return NC_EIO;
    return nch_buf_append(&a->b, bytes, n);
}

static void
test_stream(void)
{
    nch_session *s = NULL;
    struct acc a;
    size_t n = 0;
    unsigned char *f;
    MUST(nch_session_open(url("/123.nc", ""), &s));
    memset(&a, 0, sizeof(a));
    OK(nch_get_stream(s, url("/gzip/%s", "123.nc.dods"), sink, &a));
    CHECK(same_as_file(&a.b, "123.nc.dods"), "streamed body");
    nch_buf_free(&a.b);
    /* A big body arrives in several pieces; the sink can stop it. */
    f = file_bytes("test.06.dods", &n);
    memset(&a, 0, sizeof(a));
    OK(nch_get_stream(s, url("/%s", "test.06.dods"), sink, &a));
    CHECK(same_as_file(&a.b, "test.06.dods"), "streamed big body (%zu bytes, %d calls)", n,
          a.calls);
    nch_buf_free(&a.b);
    free(f);
    memset(&a, 0, sizeof(a));
    a.stop_after = 1;
    EXPECT(nch_get_stream(s, url("/%s", "123.nc.dods"), sink, &a), NC_EIO);
    nch_buf_free(&a.b);
    /* Errors never reach the sink. */
    memset(&a, 0, sizeof(a));
    EXPECT(nch_get_stream(s, url("/daperr/%s", "123.nc.dods"), sink, &a), NC_EDAPSVC);
    CHECK(a.calls == 0, "DAP error body not streamed (%d calls)", a.calls);
    EXPECT(nch_get_stream(s, url("/e404/%s", "123.nc.dods"), sink, &a), NC_ENOTFOUND);
    CHECK(a.calls == 0, "404 body not streamed");
    EXPECT(nch_get_stream(s, url("/cut/%s", "123.nc.dods"), sink, &a), NC_EIO);
    nch_buf_free(&a.b);
    /* A body shorter than the look-ahead. */
    memset(&a, 0, sizeof(a));
    OK(nch_get_stream(s, url("/_count?path=%s", "/none"), sink, &a));
    CHECK(a.b.len == 1 && a.b.data[0] == '0', "short streamed body");
    nch_buf_free(&a.b);
    nch_session_close(s);
}

static void
test_range_head(void)
{
    nch_session *s = NULL;
    nch_buf b = {0};
    size_t n = 0;
    long long len = 0;
    unsigned char *f = file_bytes("123.nc.dods", &n);
    MUST(nch_session_open(url("/123.nc.dods", ""), &s));
    if (f == NULL || n < 200) {
        CHECK(0, "test file");
        return;
    }
    OK(nch_head(s, url("/%s", "123.nc.dods"), &len));
    CHECK(len == (long long)n, "HEAD length %lld, want %zu", len, n);
    EXPECT(nch_head(s, url("/e404/%s", "123.nc.dods"), &len), NC_ENOTFOUND);
    len = 0;
    OK(nch_head(s, url("/nolength/%s", "123.nc.dods"), &len));
    CHECK(len == -1, "HEAD without a length: %lld", len);
    OK(nch_get_range(s, url("/%s", "123.nc.dods"), 10, 100, &b));
    CHECK(b.len == 100 && memcmp(b.data, f + 10, 100) == 0, "range 10+100");
    CHECK(nch_last_status(s) == 206, "206 status %ld", nch_last_status(s));
    b.len = 0;
    /* A server that ignores Range: the slice is cut from the whole body. */
    OK(nch_get_range(s, url("/norange/%s", "123.nc.dods"), 50, 60, &b));
    CHECK(b.len == 60 && memcmp(b.data, f + 50, 60) == 0, "range from a 200 body");
    b.len = 0;
    /* The object ends first: fewer bytes. */
    OK(nch_get_range(s, url("/%s", "123.nc.dods"), n - 10, 100, &b));
    CHECK(b.len == 10 && memcmp(b.data, f + n - 10, 10) == 0, "short range (%zu)", b.len);
    b.len = 0;
    OK(nch_get_range(s, url("/%s", "123.nc.dods"), n + 5, 10, &b));
    CHECK(b.len == 0, "range past the end");
    OK(nch_get_range(s, url("/%s", "123.nc.dods"), 0, 0, &b));
    EXPECT(nch_get_range(s, url("/e500/%s", "123.nc.dods"), 0, 10, &b), NC_EDAPSVC);
    CHECK(b.len == 0, "no bytes on a failed range");
    nch_buf_free(&b);
    free(f);
    nch_session_close(s);
}

static void
test_proxy_file(void)
{
    nch_session *s = NULL;
    nch_buf b = {0};
    char u[1200];
    long before, after;
    /* HTTP.PROXY.SERVER for [nowhere.invalid:9]: the server is the proxy. */
    MUST(nch_session_open("http://nowhere.invalid:9/123.nc", &s));
    before = server_count(s, "/123.nc.das");
    OK(nch_get(s, "http://nowhere.invalid:9/123.nc.das", &b));
    CHECK(same_as_file(&b, "123.nc.das"), "body through the proxy");
    after = server_count(s, "/123.nc.das");
    CHECK(after == before + 1, "proxy reached the server (%ld -> %ld)", before, after);
    nch_buf_free(&b);
    nch_session_close(s);
    /* file:// URLs. */
    snprintf(u, sizeof(u), "file://%s/123.nc", datadir);
    MUST(nch_session_open(u, &s));
    snprintf(u, sizeof(u), "file://%s/123.nc.dds", datadir);
    OK(nch_get(s, u, &b));
    CHECK(same_as_file(&b, "123.nc.dds"), "file:// body");
    nch_buf_free(&b);
    snprintf(u, sizeof(u), "file://%s/nosuch.dds", datadir);
    EXPECT(nch_get(s, u, &b), NC_ENOTFOUND);
    nch_session_close(s);
}

/* https with a self-signed certificate: refused unless the keys say how
 * to trust it. */
static void
test_tls(void)
{
    static const struct {
        const char *scope;
        int want;
    } cases[] = {{"", NC_EIO}, {"/k-noverify", NC_NOERR}, {"/k-ca", NC_NOERR}, {"/k-validate", NC_NOERR}};
    nch_session *s = NULL;
    nch_buf b = {0};
    char u[256];
    size_t i;
    if (tlsport == 0) {
        printf("tst_http: no TLS listener, https cases skipped\n");
        return;
    }
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(u, sizeof(u), "https://127.0.0.1:%d%s/123.nc", tlsport, cases[i].scope);
        MUST(nch_session_open(u, &s));
        snprintf(u, sizeof(u), "https://127.0.0.1:%d%s/123.nc.dds", tlsport, cases[i].scope);
        b.len = 0;
        EXPECT(nch_get(s, u, &b), cases[i].want);
        if (cases[i].want == NC_NOERR)
            CHECK(same_as_file(&b, "123.nc.dds"), "https body (%s)", cases[i].scope);
        else
            CHECK(b.len == 0 && nch_last_error(s)[0] != '\0', "https refused: %s", nch_last_error(s));
        nch_session_close(s);
    }
    nch_buf_free(&b);
}

/* Sessions on several threads at once, sharing the cookie jar. */
#define NTHREADS 4
#define NROUNDS 8

static void *
worker(void *arg)
{
    static const char *const names[] = {"123.nc.dds", "123.nc.das", "123.nc.dods", "test.01.dods"};
    long *bad = arg;
    nch_session *s = NULL;
    nch_buf b = {0};
    int i;
    char u[512];
    /* Own URL buffers: url() is for the main thread only. */
    snprintf(u, sizeof(u), "http://127.0.0.1:%d/gzip/123.nc", port);
    if (nch_session_open(u, &s) != NC_NOERR) {
        (*bad)++;
        return NULL;
    }
    for (i = 0; i < NROUNDS; i++) {
        const char *name = names[i % 4];
        snprintf(u, sizeof(u), "http://127.0.0.1:%d/%s%s", port,
                 i % 2 ? "gzip/needcookie/" : "setcookie/", name);
        b.len = 0;
        if (nch_get(s, u, &b) != NC_NOERR || !same_as_file(&b, name))
            (*bad)++;
    }
    nch_buf_free(&b);
    nch_session_close(s);
    return NULL;
}

static void
test_threads(void)
{
    pthread_t t[NTHREADS];
    long bad[NTHREADS] = {0};
    unsigned long before = nch_request_count();
    int i;
    for (i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, &bad[i]) == 0, "thread %d", i);
    for (i = 0; i < NTHREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK(bad[i] == 0, "thread %d: %ld bad requests", i, bad[i]);
    }
    CHECK(nch_request_count() == before + NTHREADS * NROUNDS, "requests counted across threads: %lu",
          nch_request_count() - before);
}

int
main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: tst_http PORT LOGINPORT DATADIR WORKDIR TLSPORT\n");
        return 2;
    }
    tlsport = atoi(argv[5]);
    port = atoi(argv[1]);
    loginport = atoi(argv[2]);
    datadir = argv[3];
    workdir = argv[4];
    (void)loginport;
    test_plain();
    test_encodings();
    test_redirects();
    test_auth();
    test_cookies();
    test_earthdata();
    test_errors();
    test_truncation();
    test_stream();
    test_range_head();
    test_proxy_file();
    test_tls();
    test_threads();
    test_timeouts();
    return nct_summary("tst_http");
}
