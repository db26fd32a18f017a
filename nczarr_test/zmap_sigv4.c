/* zmap_sigv4.c: AWS SigV4 signing for the tests (see zmap_sigv4.h).
 * Canonical request = METHOD \n URI \n QUERY \n HEADERS \n SIGNED \n HASH;
 * string to sign = "AWS4-HMAC-SHA256" \n DATETIME \n SCOPE \n hex(SHA256(CR));
 * key = HMAC chain over "AWS4"+secret, date, region, service, "aws4_request". */
#include "zmap_sigv4.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

static void
hexify(const unsigned char *md, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
    out[2 * n] = '\0';
}

void
sigv4_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(data ? data : "", len, md, &n, EVP_sha256(), NULL);
    hexify(md, 32, out);
}

static void
hmac(const void *key, size_t klen, const char *msg, unsigned char out[32])
{
    unsigned int n = 32;
    HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, strlen(msg), out, &n);
}

/* A growing string. */
typedef struct Str {
    char *s;
    size_t len, cap;
} Str;

static void
put(Str *b, const char *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns)
            abort(); /* test helper: out of memory is not a case to handle */
        b->s = ns;
        b->cap = nc;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void
puts_(Str *b, const char *p)
{
    put(b, p, strlen(p));
}

static int
unreserved(unsigned char c)
{
    return isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
}

static void
encode(Str *b, const char *p, size_t n, int keep_slash)
{
    char e[4];
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (unreserved(c) || (keep_slash && c == '/'))
            put(b, (const char *)&c, 1);
        else {
            snprintf(e, sizeof e, "%%%02X", c);
            put(b, e, 3);
        }
    }
}

static int
hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
}

/* Decode %XX of p[0..n) into a new string. */
static char *
decode(const char *p, size_t n, size_t *outlen)
{
    char *o = malloc(n + 1);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '%' && i + 2 < n && hexval(p[i + 1]) >= 0 &&
            hexval(p[i + 2]) >= 0) {
            o[w++] = (char)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
            i += 2;
        } else
            o[w++] = p[i];
    }
    o[w] = '\0';
    *outlen = w;
    return o;
}

typedef struct Pair {
    char *k, *v;
} Pair;

static int
cmp_pair(const void *a, const void *b)
{
    const Pair *x = a, *y = b;
    int c = strcmp(x->k, y->k);
    return c ? c : strcmp(x->v, y->v);
}

/* Canonical query string of q[0..n). */
static void
canonical_query(Str *out, const char *q, size_t n)
{
    Pair *ps = NULL;
    size_t np = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && q[j] != '&')
            j++;
        if (j > i) {
            const char *eq = memchr(q + i, '=', j - i);
            size_t kl = eq ? (size_t)(eq - (q + i)) : j - i, dl;
            Str k = {0}, v = {0};
            char *d = decode(q + i, kl, &dl);
            encode(&k, d, dl, 0);
            free(d);
            if (eq) {
                d = decode(eq + 1, (size_t)(q + j - eq - 1), &dl);
                encode(&v, d, dl, 0);
                free(d);
            }
            puts_(&k, "");
            puts_(&v, "");
            ps = realloc(ps, (np + 1) * sizeof *ps);
            ps[np++] = (Pair){k.s, v.s};
        }
        i = j + 1;
    }
    qsort(ps, np, sizeof *ps, cmp_pair);
    for (size_t i = 0; i < np; i++) {
        if (i)
            puts_(out, "&");
        puts_(out, ps[i].k);
        puts_(out, "=");
        puts_(out, ps[i].v);
        free(ps[i].k);
        free(ps[i].v);
    }
    free(ps);
    puts_(out, "");
}

int
sigv4_parse_auth(const char *value, sigv4_auth *a)
{
    memset(a, 0, sizeof *a);
    const char *c = strstr(value, "Credential="), *sh = strstr(value, "SignedHeaders="),
               *sg = strstr(value, "Signature=");
    if (strncmp(value, "AWS4-HMAC-SHA256 ", 17) != 0 || !c || !sh || !sg)
        return -1;
    char cred[512];
    size_t cl = strcspn(c + 11, ", ");
    if (cl >= sizeof cred)
        return -1;
    memcpy(cred, c + 11, cl);
    cred[cl] = '\0';
    char *parts[5];
    char *save = NULL, *t = strtok_r(cred, "/", &save);
    int np = 0;
    while (t && np < 5) {
        parts[np++] = t;
        t = strtok_r(NULL, "/", &save);
    }
    if (np != 5 || strcmp(parts[4], "aws4_request") != 0)
        return -1;
    snprintf(a->access_key, sizeof a->access_key, "%s", parts[0]);
    snprintf(a->date, sizeof a->date, "%s", parts[1]);
    snprintf(a->region, sizeof a->region, "%s", parts[2]);
    snprintf(a->service, sizeof a->service, "%s", parts[3]);
    size_t sl = strcspn(sh + 14, ", ");
    if (sl >= sizeof a->signed_headers)
        return -1;
    memcpy(a->signed_headers, sh + 14, sl);
    size_t gl = strcspn(sg + 10, ", \r\n");
    if (gl != 64)
        return -1;
    memcpy(a->signature, sg + 10, 64);
    return 0;
}

typedef struct Hdr {
    char *name;  /* lower case */
    char *value; /* trimmed, inner runs of spaces collapsed */
} Hdr;

static int
cmp_hdr(const void *a, const void *b)
{
    return strcmp(((const Hdr *)a)->name, ((const Hdr *)b)->name);
}

int
sigv4_sign_request(const char *req, size_t len, const char *secret, int s3, char sig[65],
                   sigv4_auth *auth)
{
    int rc = -1;
    Hdr *hs = NULL;
    size_t nh = 0;
    char *copy = malloc(len + 1);
    Str cr = {0}, sts = {0};
    const char *authv = NULL, *amzdate = NULL, *payhash = NULL;
    memcpy(copy, req, len);
    copy[len] = '\0';

    /* request line */
    char *line = copy, *eol = strchr(line, '\n');
    if (!eol)
        goto done;
    *eol = '\0';
    if (eol > line && eol[-1] == '\r')
        eol[-1] = '\0';
    char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strrchr(sp1 + 1, ' ') : NULL;
    if (!sp1 || !sp2)
        goto done;
    *sp1 = '\0';
    *sp2 = '\0';
    const char *method = line, *target = sp1 + 1;
    /* headers */
    char *p = eol + 1, *body = NULL;
    while (*p) {
        eol = strchr(p, '\n');
        if (eol)
            *eol = '\0';
        size_t ll = strlen(p);
        if (ll && p[ll - 1] == '\r')
            p[--ll] = '\0';
        if (ll == 0) {
            body = eol ? eol + 1 : p + ll;
            break;
        }
        char *colon = strchr(p, ':');
        if (colon) {
            *colon = '\0';
            for (char *q = p; *q; q++)
                *q = (char)tolower((unsigned char)*q);
            char *v = colon + 1, *w = v;
            while (*v == ' ' || *v == '\t')
                v++;
            /* collapse runs of spaces, drop trailing ones */
            char *out = w;
            for (int sp = 0; *v; v++) {
                if (*v == ' ' || *v == '\t') {
                    sp = 1;
                    continue;
                }
                if (sp && out > w)
                    *out++ = ' ';
                sp = 0;
                *out++ = *v;
            }
            *out = '\0';
            hs = realloc(hs, (nh + 1) * sizeof *hs);
            hs[nh++] = (Hdr){p, w};
            if (strcmp(p, "authorization") == 0)
                authv = w;
            else if (strcmp(p, "x-amz-date") == 0)
                amzdate = w;
            else if (strcmp(p, "x-amz-content-sha256") == 0)
                payhash = w;
        }
        if (!eol)
            break;
        p = eol + 1;
    }
    if (!authv || !amzdate || sigv4_parse_auth(authv, auth) != 0)
        goto done;
    size_t bodylen = body ? len - (size_t)(body - copy) : 0;

    /* canonical request */
    puts_(&cr, method);
    puts_(&cr, "\n");
    const char *q = strchr(target, '?');
    size_t pathlen = q ? (size_t)(q - target) : strlen(target);
    if (s3)
        put(&cr, target, pathlen);
    else
        encode(&cr, target, pathlen, 1);
    puts_(&cr, "\n");
    if (q)
        canonical_query(&cr, q + 1, strlen(q + 1));
    puts_(&cr, "\n");
    qsort(hs, nh, sizeof *hs, cmp_hdr);
    /* every signed header, values of repeated names joined by ',' */
    char signedh[1024];
    snprintf(signedh, sizeof signedh, "%s", auth->signed_headers);
    char *save = NULL;
    for (char *n = strtok_r(signedh, ";", &save); n; n = strtok_r(NULL, ";", &save)) {
        int found = 0;
        puts_(&cr, n);
        puts_(&cr, ":");
        for (size_t i = 0; i < nh; i++)
            if (strcmp(hs[i].name, n) == 0) {
                if (found++)
                    puts_(&cr, ",");
                puts_(&cr, hs[i].value);
            }
        if (!found)
            goto done; /* signs a header the request does not have */
        puts_(&cr, "\n");
    }
    puts_(&cr, "\n");
    puts_(&cr, auth->signed_headers);
    puts_(&cr, "\n");
    char hash[65];
    if (payhash)
        snprintf(hash, sizeof hash, "%s", payhash);
    else
        sigv4_sha256_hex(body, bodylen, hash);
    puts_(&cr, hash);

    /* string to sign and key */
    char crhash[65];
    sigv4_sha256_hex(cr.s, cr.len, crhash);
    puts_(&sts, "AWS4-HMAC-SHA256\n");
    puts_(&sts, amzdate);
    puts_(&sts, "\n");
    char scope[256];
    snprintf(scope, sizeof scope, "%s/%s/%s/aws4_request", auth->date, auth->region,
             auth->service);
    puts_(&sts, scope);
    puts_(&sts, "\n");
    puts_(&sts, crhash);
    char k0[256];
    snprintf(k0, sizeof k0, "AWS4%s", secret);
    unsigned char k1[32], k2[32], k3[32], k4[32], s[32];
    hmac(k0, strlen(k0), auth->date, k1);
    hmac(k1, 32, auth->region, k2);
    hmac(k2, 32, auth->service, k3);
    hmac(k3, 32, "aws4_request", k4);
    hmac(k4, 32, sts.s, s);
    hexify(s, 32, sig);
    rc = 0;
done:
    free(hs);
    free(copy);
    free(cr.s);
    free(sts.s);
    return rc;
}
