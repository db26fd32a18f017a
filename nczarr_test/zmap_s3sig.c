/* zmap_s3sig.c: the S3 store against a scripted HTTP server in this process.
 *  1. our SigV4 signer (zmap_sigv4.c) reproduces AWS's published test vectors;
 *  2. every request the store sends is captured and its Authorization header
 *     recomputed with our signer from the request, its x-amz-date and the
 *     known secret (curl signs with the current time, so the test cannot fix
 *     the clock); PUT bodies match x-amz-content-sha256;
 *  3. credentials and region come from ~/.aws-style profile files;
 *  4. hostile answers - HTTP 403/404/500, malformed or endless listings,
 *     bodies cut short, absurd lengths, hostile keys - give clean NC_* codes. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nctst.h"
#include "zmap.h"
#include "zmap_s3.h"
#include "zmap_sigv4.h"

#define SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

/* ---- 1. AWS's vectors (aws-sig-v4-test-suite, service "service") ---------- */

typedef struct Vector {
    const char *name, *request;
} Vector;

#define AUTH(sh, sig)                                                                    \
    "Authorization:AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/"  \
    "aws4_request, SignedHeaders=" sh ", Signature=" sig "\n"

static const Vector vectors[] = {
    {"get-vanilla", "GET / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n" AUTH(
                        "host;x-amz-date",
                        "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31") "\n"},
    {"get-vanilla-query-order-key-case",
     "GET /?Param2=value2&Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:"
     "20150830T123600Z\n" AUTH("host;x-amz-date",
                               "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500") "\n"},
    {"get-vanilla-query-unreserved",
     "GET /?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~"
     "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz HTTP/1.1\n"
     "Host:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n" AUTH(
         "host;x-amz-date", "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197") "\n"},
    {"get-vanilla-empty-query-key",
     "GET /?Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n" AUTH(
         "host;x-amz-date", "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb") "\n"},
    {"get-utf8", "GET /\xe1\x88\xb4 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n" AUTH(
                     "host;x-amz-date",
                     "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85") "\n"},
    {"get-header-value-trim",
     "GET / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1: value1\nMy-Header2: \"a   b   c\"\n"
     "X-Amz-Date:20150830T123600Z\n" AUTH(
         "host;my-header1;my-header2;x-amz-date",
         "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736") "\n"},
    {"get-vanilla-with-session-token",
     "GET / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n"
     "X-Amz-Security-Token:6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267\n" AUTH(
         "host;x-amz-date;x-amz-security-token",
         "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8") "\n"},
    {"post-header-key-sort",
     "POST / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:value1\nX-Amz-Date:20150830T123600Z\n" AUTH(
         "host;my-header1;x-amz-date",
         "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c") "\n"},
    {"post-x-www-form-urlencoded",
     "POST / HTTP/1.1\nContent-Type:application/x-www-form-urlencoded\nHost:example.amazonaws.com\n"
     "Content-Length:13\n"
     "x-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e\n"
     "X-Amz-Date:20150830T123600Z\n" AUTH(
         "content-length;content-type;host;x-amz-content-sha256;x-amz-date",
         "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b") "\nParam1=value1"},
};

static void
test_vectors(void)
{
    for (size_t i = 0; i < sizeof vectors / sizeof *vectors; i++) {
        const Vector *v = &vectors[i];
        char sig[65];
        sigv4_auth a;
        int rc = sigv4_sign_request(v->request, strlen(v->request), SECRET, 0, sig, &a);
        CHECK(rc == 0 && strcmp(sig, a.signature) == 0, "vector %s: got %s want %s", v->name,
              rc == 0 ? sig : "(error)", a.signature);
        /* a wrong secret must not match */
        rc = sigv4_sign_request(v->request, strlen(v->request), SECRET "x", 0, sig, &a);
        CHECK(rc == 0 && strcmp(sig, a.signature) != 0, "vector %s with a wrong secret", v->name);
    }
    /* the payload is signed: a changed body changes the signature */
    char body[65];
    sigv4_sha256_hex("Param1=value1", 13, body);
    CHECK(strcmp(body, "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e") == 0,
          "sha256 %s", body);
}

/* ---- the scripted server ------------------------------------------------- */

#define MAXCAP 512

typedef struct Server {
    int lfd, port;
    pthread_t th;
    volatile int stop;
    pthread_mutex_t mu;
    char *cap[MAXCAP]; /* raw requests seen */
    size_t caplen[MAXCAP];
    int ncap;
} Server;

static Server srv;

static void
sendall(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void
reply(int fd, int code, const char *extra, const char *body, size_t len, int head)
{
    char h[512];
    int n = snprintf(h, sizeof h,
                     "HTTP/1.1 %d X\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n", code,
                     len, extra ? extra : "");
    sendall(fd, h, (size_t)n);
    if (!head && len)
        sendall(fd, body, len);
}

/* Value of query parameter name in target (decoded), or "" */
static void
qparam(const char *target, const char *name, char *out, size_t cap)
{
    out[0] = '\0';
    const char *q = strchr(target, '?');
    size_t nl = strlen(name);
    for (const char *p = q ? q + 1 : NULL; p && *p;) {
        const char *e = strchr(p, '&');
        if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
            size_t w = 0;
            for (const char *s = p + nl + 1; *s && *s != '&' && w + 1 < cap; s++) {
                if (*s == '%' && s[1] && s[2]) {
                    char hx[3] = {s[1], s[2], 0};
                    out[w++] = (char)strtol(hx, NULL, 16);
                    s += 2;
                } else
                    out[w++] = *s;
            }
            out[w] = '\0';
            return;
        }
        p = e ? e + 1 : NULL;
    }
}

static void
listing(int fd, const char *keys, int truncated, const char *token)
{
    char body[4096];
    int n = snprintf(body, sizeof body,
                     "<?xml version=\"1.0\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/"
                     "doc/2006-03-01/\">%s<IsTruncated>%s</IsTruncated>%s%s%s</ListBucketResult>",
                     keys, truncated ? "true" : "false", token ? "<NextContinuationToken>" : "",
                     token ? token : "", token ? "</NextContinuationToken>" : "");
    reply(fd, 200, "Content-Type: application/xml\r\n", body, (size_t)n, 0);
}

static void
respond(int fd, const char *method, const char *target, size_t bodylen)
{
    int head = strcmp(method, "HEAD") == 0;
    (void)bodylen;
    if (strncmp(target, "/bkt?", 5) == 0) {
        char prefix[512], token[128];
        qparam(target, "prefix", prefix, sizeof prefix);
        qparam(target, "continuation-token", token, sizeof token);
        if (strcmp(prefix, "store/") == 0)
            listing(fd, "<Contents><Key>store/.zgroup</Key></Contents>", 0, NULL);
        else if (strcmp(prefix, "store/badxml/") == 0) {
            const char *b = "<ListBucketResult><Contents><Key>store/badxml/x</Key>";
            reply(fd, 200, NULL, b, strlen(b), 0);
        } else if (strcmp(prefix, "store/notxml/") == 0)
            reply(fd, 200, NULL, "{\"json\": 1}", 11, 0);
        else if (strcmp(prefix, "store/notoken/") == 0)
            listing(fd, "<Contents><Key>store/notoken/a</Key></Contents>", 1, NULL);
        else if (strcmp(prefix, "store/loop/") == 0)
            listing(fd, "<Contents><Key>store/loop/a</Key></Contents>", 1, "same");
        else if (strcmp(prefix, "store/pages/") == 0) {
            if (!token[0])
                listing(fd, "<Contents><Key>store/pages/a</Key></Contents>", 1, "t/2=");
            else if (strcmp(token, "t/2=") == 0)
                listing(fd, "<Contents><Key>store/pages/b</Key></Contents>", 0, NULL);
            else
                reply(fd, 400, NULL, "", 0, 0);
        } else if (strcmp(prefix, "store/hostile/") == 0)
            listing(fd,
                    "<Contents><Key>store/hostile/../x</Key></Contents>"
                    "<Contents><Key>store/hostile/a//b</Key></Contents>"
                    "<Contents><Key>store/hostile/ok</Key></Contents>"
                    "<Contents><Key>store/hostile/</Key></Contents>"
                    "<Contents><Key>elsewhere/x</Key></Contents>"
                    "<Contents><Key>store/hostile/.</Key></Contents>"
                    "<Contents></Contents>"
                    "<CommonPrefixes><Prefix>store/hostile/../</Prefix></CommonPrefixes>"
                    "<CommonPrefixes><Prefix>store/hostile/sub/</Prefix></CommonPrefixes>",
                    0, NULL);
        else if (strcmp(prefix, "store/e500/") == 0)
            reply(fd, 500, NULL, "<Error><Code>InternalError</Code></Error>", 41, 0);
        else
            listing(fd, "", 0, NULL);
        return;
    }
    const char *name = strncmp(target, "/bkt/store/", 11) == 0 ? target + 11 : "";
    if (strcmp(method, "PUT") == 0 || strcmp(method, "DELETE") == 0) {
        reply(fd, strcmp(method, "PUT") == 0 ? 200 : 204, NULL, "", 0, 0);
    } else if (strcmp(name, "ok") == 0) {
        reply(fd, 200, NULL, "hello world", 11, head);
    } else if (strcmp(name, "norange") == 0) {
        reply(fd, 200, NULL, "0123456789", 10, head); /* ignores Range */
    } else if (strcmp(name, "e500") == 0) {
        reply(fd, 500, NULL, "<Error><Code>InternalError</Code></Error>", 41, head);
    } else if (strcmp(name, "e403") == 0) {
        reply(fd, 403, NULL, "<Error><Code>AccessDenied</Code></Error>", 40, head);
    } else if (strcmp(name, "trunc") == 0) {
        const char *h = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n0123456789";
        sendall(fd, h, strlen(h));
    } else if (strcmp(name, "absurd") == 0) {
        const char *h = "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000\r\n"
                        "Connection: close\r\n\r\nabcde";
        sendall(fd, h, strlen(h));
    } else if (strcmp(name, "garbage") == 0) {
        const char *h = "NOT HTTP AT ALL\r\n\r\n";
        sendall(fd, h, strlen(h));
    } else {
        reply(fd, 404, NULL, "<Error><Code>NoSuchKey</Code></Error>", 37, head);
    }
}

/* Read one request (headers + Content-Length body) from fd. */
static char *
read_request(int fd, size_t *lenp)
{
    size_t cap = 8192, len = 0, need = 0;
    char *b = malloc(cap + 1);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            b = realloc(b, cap + 1);
        }
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 5000) <= 0)
            break;
        ssize_t r = recv(fd, b + len, cap - len, 0);
        if (r <= 0)
            break;
        len += (size_t)r;
        b[len] = '\0';
        char *end = strstr(b, "\r\n\r\n");
        if (end && !need) {
            char *cl = strcasestr(b, "\r\nContent-Length:");
            size_t body = cl && cl < end ? (size_t)strtoull(cl + 17, NULL, 10) : 0;
            need = (size_t)(end + 4 - b) + body;
        }
        if (need && len >= need)
            break;
    }
    b[len] = '\0';
    *lenp = len;
    return b;
}

static void *
serve(void *arg)
{
    (void)arg;
    while (!srv.stop) {
        struct pollfd pf = {srv.lfd, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0)
            continue;
        int fd = accept(srv.lfd, NULL, NULL);
        if (fd < 0)
            continue;
        size_t len;
        char *req = read_request(fd, &len);
        char method[16] = "", target[2048] = "";
        sscanf(req, "%15s %2047s", method, target);
        pthread_mutex_lock(&srv.mu);
        if (srv.ncap < MAXCAP) {
            srv.cap[srv.ncap] = req;
            srv.caplen[srv.ncap++] = len;
            req = NULL;
        }
        pthread_mutex_unlock(&srv.mu);
        respond(fd, method, target, 0);
        free(req);
        shutdown(fd, SHUT_WR);
        close(fd);
    }
    return NULL;
}

static int
server_start(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    srv.lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (srv.lfd < 0 || bind(srv.lfd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(srv.lfd, 64) != 0 || getsockname(srv.lfd, (struct sockaddr *)&a, &al) != 0)
        return -1;
    srv.port = ntohs(a.sin_port);
    pthread_mutex_init(&srv.mu, NULL);
    return pthread_create(&srv.th, NULL, serve, NULL);
}

static void
server_stop(void)
{
    srv.stop = 1;
    pthread_join(srv.th, NULL);
    close(srv.lfd);
    for (int i = 0; i < srv.ncap; i++)
        free(srv.cap[i]);
}

/* Forget captured requests. */
static void
cap_reset(void)
{
    pthread_mutex_lock(&srv.mu);
    for (int i = 0; i < srv.ncap; i++)
        free(srv.cap[i]);
    srv.ncap = 0;
    pthread_mutex_unlock(&srv.mu);
}

/* ---- 2. curl's signatures ------------------------------------------------ */

/* Verify every captured request with the secret; count the signed ones. */
static int
verify_captured(const char *secret, const char *want_ak, const char *want_region)
{
    int nsigned = 0;
    time_t now = time(NULL);
    pthread_mutex_lock(&srv.mu);
    for (int i = 0; i < srv.ncap; i++) {
        const char *r = srv.cap[i];
        char sig[65];
        sigv4_auth a;
        if (!strcasestr(r, "\r\nAuthorization:")) {
            CHECK(0, "request %d is not signed: %.60s", i, r);
            continue;
        }
        int rc = sigv4_sign_request(r, srv.caplen[i], secret, 1, sig, &a);
        CHECK(rc == 0, "request %d parses: %.*s", i, (int)srv.caplen[i], r);
        if (rc)
            continue;
        nsigned++;
        CHECK(strcmp(sig, a.signature) == 0, "request %d: curl signed %s, we compute %s: %.80s",
              i, a.signature, sig, r);
        CHECK(strcmp(a.access_key, want_ak) == 0, "access key %s", a.access_key);
        CHECK(strcmp(a.region, want_region) == 0, "region %s", a.region);
        CHECK(strcmp(a.service, "s3") == 0, "service %s", a.service);
        CHECK(strstr(a.signed_headers, "x-amz-content-sha256") != NULL, "payload hash signed");
        /* the payload hash header is the body's */
        const char *ph = strcasestr(r, "\r\nx-amz-content-sha256:");
        const char *body = strstr(r, "\r\n\r\n");
        if (ph && body) {
            char want[65], got[65] = "";
            body += 4;
            sigv4_sha256_hex(body, srv.caplen[i] - (size_t)(body - r), want);
            sscanf(ph + 23, " %64s", got);
            CHECK(strcmp(want, got) == 0, "x-amz-content-sha256 %s, body hashes to %s", got, want);
        }
        /* and the date is now */
        const char *d = strcasestr(r, "\r\nx-amz-date:");
        struct tm tm = {0};
        if (d && strptime(d + 13 + (d[13] == ' '), "%Y%m%dT%H%M%SZ", &tm)) {
            time_t t = timegm(&tm);
            CHECK(t > now - 900 && t < now + 900, "x-amz-date within 15 minutes");
        } else
            CHECK(0, "x-amz-date missing");
    }
    pthread_mutex_unlock(&srv.mu);
    return nsigned;
}

static char base[128];

static void
test_signing(void)
{
    NCZ_map *m = NULL;
    setenv("AWS_ACCESS_KEY_ID", "AKIDTEST", 1);
    setenv("AWS_SECRET_ACCESS_KEY", SECRET, 1);
    setenv("AWS_REGION", "us-west-2", 1);
    cap_reset();
    MUST(ncz_map_open(base, "s3", NCZ_MAP_WRITE, &m));
    EXPECT(m->ops->exists(m, "/ok"), NC_NOERR);
    EXPECT(m->ops->exists(m, "/missing"), NC_EEMPTY);
    char buf[16];
    OK(m->ops->read(m, "/ok", 6, 5, buf));
    CHECK(memcmp(buf, "world", 5) == 0, "ranged read");
    const char payload[] = "some \x01\x02 binary \xff payload";
    OK(m->ops->write(m, "/sub dir/ch+unk~1", sizeof payload, payload));
    OK(m->ops->write(m, "/empty", 0, NULL));
    /* past 1 MiB curl adds "Expect: 100-continue" itself, unsigned */
    size_t bign = (2u << 20) + 3;
    char *big = malloc(bign);
    if (big) {
        for (size_t i = 0; i < bign; i++)
            big[i] = (char)(i * 31 + 7);
        OK(m->ops->write(m, "/bigput", bign, big));
        free(big);
    }
    NCZ_keys k = {0};
    OK(m->ops->list_all(m, "/pages", &k));
    ncz_keys_free(&k);
    uint64_t nreq = m->ops->nrequests(m);
    OK(m->ops->close(m, 0));
    int ns = verify_captured(SECRET, "AKIDTEST", "us-west-2");
    CHECK(ns >= 9, "signed requests: %d", ns);
    CHECK(nreq == (uint64_t)ns, "nrequests %llu == requests seen %d", (unsigned long long)nreq, ns);
    /* the key went out encoded, as S3 canonicalises it */
    int seen = 0;
    for (int i = 0; i < srv.ncap; i++)
        seen |= strstr(srv.cap[i], "PUT /bkt/store/sub%20dir/ch%2Bunk~1 ") != NULL;
    CHECK(seen, "encoded key in the request line");

    /* a session token is sent and signed */
    setenv("AWS_SESSION_TOKEN", "TOKEN/with+chars=", 1);
    cap_reset();
    MUST(ncz_map_open(base, "s3", NCZ_MAP_READ, &m));
    EXPECT(m->ops->exists(m, "/ok"), NC_NOERR);
    OK(m->ops->close(m, 0));
    verify_captured(SECRET, "AKIDTEST", "us-west-2");
    CHECK(srv.ncap > 0 && strstr(srv.cap[0], "x-amz-security-token: TOKEN/with+chars=") &&
              strstr(srv.cap[0], ";x-amz-security-token") != NULL,
          "session token sent and signed: %s", srv.ncap > 0 ? srv.cap[0] : "");
    unsetenv("AWS_SESSION_TOKEN");
}

/* ---- 3. profiles ---------------------------------------------------------- */

static void
test_profiles(const char *dir)
{
    char creds[512], config[512];
    snprintf(creds, sizeof creds, "%s/credentials", dir);
    snprintf(config, sizeof config, "%s/config", dir);
    FILE *f = fopen(creds, "w");
    fprintf(f, "# comment\n[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = "
               "SKDEFAULT\n\n[p1]\n aws_access_key_id=AKP1 \naws_secret_access_key = SKP1\n");
    fclose(f);
    f = fopen(config, "w");
    fprintf(f, "[default]\nregion = ap-south-1\n[profile p1]\nregion = eu-west-3\n");
    fclose(f);
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_REGION");
    unsetenv("AWS_DEFAULT_REGION");
    setenv("AWS_SHARED_CREDENTIALS_FILE", creds, 1);
    setenv("AWS_CONFIG_FILE", config, 1);

    NCZ_map *m = NULL;
    setenv("AWS_PROFILE", "p1", 1);
    cap_reset();
    MUST(ncz_map_open(base, "s3", NCZ_MAP_READ, &m));
    OK(m->ops->close(m, 0));
    verify_captured("SKP1", "AKP1", "eu-west-3");

    unsetenv("AWS_PROFILE"); /* the default profile */
    cap_reset();
    MUST(ncz_map_open(base, "s3", NCZ_MAP_READ, &m));
    OK(m->ops->close(m, 0));
    verify_captured("SKDEFAULT", "AKDEFAULT", "ap-south-1");

    setenv("AWS_REGION", "ca-central-1", 1); /* the environment wins */
    cap_reset();
    MUST(ncz_map_open(base, "s3", NCZ_MAP_READ, &m));
    OK(m->ops->close(m, 0));
    verify_captured("SKDEFAULT", "AKDEFAULT", "ca-central-1");
    unsetenv("AWS_REGION");

    setenv("AWS_PROFILE", "no", 1); /* upstream's anonymous profile */
    cap_reset();
    MUST(ncz_map_open(base, "s3", NCZ_MAP_READ, &m));
    OK(m->ops->close(m, 0));
    CHECK(srv.ncap == 1 && !strcasestr(srv.cap[0], "\r\nAuthorization:"), "anonymous request");
    unsetenv("AWS_PROFILE");
    unlink(creds);
    unlink(config);
    unsetenv("AWS_SHARED_CREDENTIALS_FILE");
    unsetenv("AWS_CONFIG_FILE");
}

/* ---- 4. hostile answers ---------------------------------------------------- */

static void
test_errors(void)
{
    NCZ_map *m = NULL;
    setenv("AWS_ACCESS_KEY_ID", "AKIDTEST", 1);
    setenv("AWS_SECRET_ACCESS_KEY", SECRET, 1);
    MUST(ncz_map_open(base, "s3", NCZ_MAP_READ, &m));
    char buf[64];
    void *data = NULL;
    size_t len = 0;
    uint64_t ulen = 0;

    EXPECT(m->ops->read_all(m, "/e500", &data, &len), NC_ES3);
    EXPECT(m->ops->read_all(m, "/e403", &data, &len), NC_EAUTH);
    EXPECT(m->ops->exists(m, "/e403"), NC_EAUTH);
    EXPECT(m->ops->read_all(m, "/missing", &data, &len), NC_EEMPTY);
    EXPECT(m->ops->read_all(m, "/trunc", &data, &len), NC_EIO);
    EXPECT(m->ops->read(m, "/trunc", 0, 50, buf), NC_EIO);
    EXPECT(m->ops->read_all(m, "/absurd", &data, &len), NC_EIO);
    EXPECT(m->ops->len(m, "/absurd", &ulen), NC_NOERR);
    CHECK(ulen == 1000000000000000ull, "len from HEAD");
    EXPECT(m->ops->read_all(m, "/garbage", &data, &len), NC_ES3);
    CHECK(data == NULL, "no data on errors");
    /* a server ignoring Range: the store still returns the asked bytes */
    OK(m->ops->read(m, "/norange", 3, 4, buf));
    CHECK(memcmp(buf, "3456", 4) == 0, "range from a whole answer: %.4s", buf);
    EXPECT(m->ops->read(m, "/ok", 8, 10, buf), NC_EINVAL); /* past the end */
    EXPECT(m->ops->read(m, "/ok", 20, 0, buf), NC_EINVAL);
    OK(m->ops->read(m, "/ok", 11, 0, buf));
    EXPECT(m->ops->write(m, "/x", 1, "x"), NC_EPERM); /* read-only store */
    EXPECT(m->ops->del(m, "/ok"), NC_EPERM);

    NCZ_keys k = {0};
    EXPECT(m->ops->list(m, "/badxml", &k), NC_ES3);
    EXPECT(m->ops->list(m, "/notxml", &k), NC_ES3);
    EXPECT(m->ops->list_all(m, "/notoken", &k), NC_ES3);
    EXPECT(m->ops->list_all(m, "/loop", &k), NC_ES3);
    EXPECT(m->ops->list(m, "/e500", &k), NC_ES3);
    ncz_keys_free(&k);
    OK(m->ops->list_all(m, "/pages", &k));
    CHECK(k.n == 2 && strcmp(k.keys[0], "/pages/a") == 0 && strcmp(k.keys[1], "/pages/b") == 0,
          "continuation token followed");
    ncz_keys_free(&k);
    OK(m->ops->list_all(m, "/hostile", &k));
    CHECK(k.n == 1 && strcmp(k.keys[0], "/hostile/ok") == 0, "hostile keys dropped (%zu: %s)",
          k.n, k.n ? k.keys[k.n - 1] : "");
    ncz_keys_free(&k);
    OK(m->ops->list(m, "/hostile", &k));
    CHECK(k.n == 2 && strcmp(k.keys[0], "ok") == 0 && strcmp(k.keys[1], "sub") == 0,
          "hostile children dropped (%zu)", k.n);
    ncz_keys_free(&k);

    /* read_many: mixed answers, per-request status, first transport error */
    NCZ_read_req rq[6] = {
        {.key = "/ok", .count = (uint64_t)-1},
        {.key = "/missing", .count = (uint64_t)-1},
        {.key = "/ok", .start = 6, .count = 5},
        {.key = "/norange", .start = 2, .count = 3},
        {.key = "/e500", .count = (uint64_t)-1},
        {.key = "/../bad", .count = (uint64_t)-1},
    };
    EXPECT(m->ops->read_many(m, 6, rq), NC_ES3);
    CHECK(rq[0].status == 0 && rq[0].len == 11 && memcmp(rq[0].data, "hello world", 11) == 0,
          "many 0");
    CHECK(rq[1].status == NC_EEMPTY && !rq[1].data, "many 1 %d", rq[1].status);
    CHECK(rq[2].status == 0 && rq[2].len == 5 && memcmp(rq[2].data, "world", 5) == 0, "many 2");
    CHECK(rq[3].status == 0 && rq[3].len == 3 && memcmp(rq[3].data, "234", 3) == 0, "many 3 %d",
          rq[3].status);
    CHECK(rq[4].status == NC_ES3, "many 4 %d", rq[4].status);
    CHECK(rq[5].status == NC_EINVAL, "many 5 %d", rq[5].status);
    for (int i = 0; i < 6; i++)
        free(rq[i].data);
    /* many at once: more than the connection bound */
    NCZ_read_req many[40];
    for (int i = 0; i < 40; i++)
        many[i] = (NCZ_read_req){.key = i % 2 ? "/ok" : "/missing", .count = (uint64_t)-1};
    OK(m->ops->read_many(m, 40, many));
    int good = 1;
    for (int i = 0; i < 40; i++) {
        good &= i % 2 ? many[i].status == 0 && many[i].len == 11 : many[i].status == NC_EEMPTY;
        free(many[i].data);
    }
    CHECK(good, "40 concurrent reads");
    OK(m->ops->close(m, 0));

    /* stores that are not there, URLs that are not URLs */
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/bkt/nothing", srv.port);
    EXPECT(ncz_map_open(url, "s3", NCZ_MAP_READ, &m), NC_ENOOBJECT);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/bkt/store/e500", srv.port);
    EXPECT(ncz_map_open(url, "s3", NCZ_MAP_READ, &m), NC_ES3);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", srv.port);
    EXPECT(ncz_map_open(url, "s3", NCZ_MAP_READ, &m), NC_EURL);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/bkt/a/../b", srv.port);
    EXPECT(ncz_map_open(url, "s3", NCZ_MAP_READ, &m), NC_EURL);
    EXPECT(ncz_map_open("s3://", "s3", NCZ_MAP_READ, &m), NC_EURL);
    EXPECT(ncz_map_open("http://user@host/bkt", "s3", NCZ_MAP_READ, &m), NC_EURL);
    EXPECT(ncz_map_open("/tmp/x", "s3", NCZ_MAP_READ, &m), NC_EURL);
    EXPECT(ncz_map_open("http://127.0.0.1:1/bkt/x", "zip", NCZ_MAP_READ, &m), NC_EURL);
    /* nothing listens on port 1 */
    EXPECT(ncz_map_open("http://127.0.0.1:1/bkt/x", "s3", NCZ_MAP_READ, &m), NC_ES3);
}

/* ---- 5. URL forms --------------------------------------------------------- */

static void
url_is(const char *url, const char *endpoint, const char *bucket, const char *prefix, int vhost,
       const char *region)
{
    NCZ_s3_cfg c;
    int stat = ncz_s3_cfg_from_url(url, &c);
    CHECK(stat == 0, "%s: %s", url, nc_strerror(stat));
    if (stat)
        return;
    CHECK(strcmp(c.endpoint, endpoint) == 0, "%s: endpoint %s", url, c.endpoint);
    CHECK(strcmp(c.bucket, bucket) == 0, "%s: bucket %s", url, c.bucket);
    CHECK(strcmp(c.prefix, prefix) == 0, "%s: prefix %s", url, c.prefix);
    CHECK(c.vhost == vhost, "%s: vhost %d", url, c.vhost);
    CHECK(strcmp(c.region, region) == 0, "%s: region %s", url, c.region);
    ncz_s3_cfg_clear(&c);
}

static void
test_urls(void)
{
    unsetenv("AWS_REGION");
    unsetenv("AWS_DEFAULT_REGION");
    unsetenv("AWS_ENDPOINT_URL");
    url_is("s3://bkt/a/b/", "https://s3.us-east-1.amazonaws.com", "bkt", "a/b", 0, "us-east-1");
    setenv("AWS_DEFAULT_REGION", "eu-north-1", 1);
    url_is("s3://bkt", "https://s3.eu-north-1.amazonaws.com", "bkt", "", 0, "eu-north-1");
    setenv("AWS_REGION", "sa-east-1", 1); /* AWS_REGION before AWS_DEFAULT_REGION */
    url_is("s3://bkt/x", "https://s3.sa-east-1.amazonaws.com", "bkt", "x", 0, "sa-east-1");
    unsetenv("AWS_REGION");
    unsetenv("AWS_DEFAULT_REGION");
    url_is("https://bkt.s3.eu-west-1.amazonaws.com/x/y", "https://bkt.s3.eu-west-1.amazonaws.com",
           "bkt", "x/y", 1, "eu-west-1");
    url_is("https://my.bkt.s3-us-west-2.amazonaws.com/", "https://my.bkt.s3-us-west-2.amazonaws.com",
           "my.bkt", "", 1, "us-west-2");
    url_is("https://bkt.s3.amazonaws.com/z", "https://bkt.s3.amazonaws.com", "bkt", "z", 1,
           "us-east-1");
    url_is("https://s3.ap-east-1.amazonaws.com/bkt/p", "https://s3.ap-east-1.amazonaws.com", "bkt",
           "p", 0, "ap-east-1");
    url_is("http://localhost:9000/bkt/p/q/", "http://localhost:9000", "bkt", "p/q", 0, "us-east-1");
    setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9/", 1);
    url_is("s3://bkt/p", "http://127.0.0.1:9", "bkt", "p", 0, "us-east-1");
    unsetenv("AWS_ENDPOINT_URL");
    static const char *const bad[] = {"s3://", "s3:///x", "http://host", "http://host/",
                                      "http://u@host/b", "http://host/b?x=1", "http://host/b#f",
                                      "http://host/b/../c", "http://host/b/./c", "https:///b"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        NCZ_s3_cfg c;
        EXPECT(ncz_s3_cfg_from_url(bad[i], &c), NC_EURL);
    }

    /* s3:// through AWS_ENDPOINT_URL reaches the (scripted) server */
    char ep[64];
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", srv.port);
    setenv("AWS_ENDPOINT_URL", ep, 1);
    NCZ_map *m = NULL;
    EXPECT(ncz_map_open("s3://bkt/store", NULL, NCZ_MAP_READ, &m), NC_NOERR);
    if (m) {
        EXPECT(m->ops->exists(m, "/ok"), NC_NOERR);
        m->ops->close(m, 0);
    }
    unsetenv("AWS_ENDPOINT_URL");
}

int
main(int argc, char **argv)
{
    const char *tmp = argc > 1 ? argv[1] : "/tmp";
    setenv("HOME", tmp, 1); /* never read the real ~/.aws */
    unsetenv("AWS_PROFILE");
    unsetenv("AWS_SESSION_TOKEN");
    unsetenv("AWS_ENDPOINT_URL");
    test_vectors();
    if (server_start() != 0) {
        fprintf(stderr, "cannot listen on 127.0.0.1\n");
        return 77;
    }
    snprintf(base, sizeof base, "http://127.0.0.1:%d/bkt/store", srv.port);
    test_signing();
    test_profiles(tmp);
    test_errors();
    test_urls();
    server_stop();
    return nct_summary(argv[0]);
}
