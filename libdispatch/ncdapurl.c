/* ncdapurl.c: the parts of an OPeNDAP dataset URL (ncdapurl.h). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "netcdf.h"
#include "ncdapurl.h"

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *
ncdap_pct_decode(const char *s, size_t n)
{
    char *out = malloc(n + 1), *q = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int a, b;
        if (s[i] == '%' && i + 2 < n && (a = hexval((unsigned char)s[i + 1])) >= 0
            && (b = hexval((unsigned char)s[i + 2])) >= 0) {
            *q++ = (char)(a * 16 + b);
            i += 2;
        } else {
            *q++ = s[i];
        }
    }
    *q = '\0';
    return out;
}

char *
ncdap_pct_encode(const char *s, const char *keep)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *out = malloc(3 * n + 1), *q = out;
    if (out == NULL)
        return NULL;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
            || strchr("-._~", c) || (keep && c && strchr(keep, c))) {
            *q++ = (char)c;
        } else {
            *q++ = '%';
            *q++ = hex[c >> 4];
            *q++ = hex[c & 15];
        }
    }
    *q = '\0';
    return out;
}

/* "key=value" or "key"; decoded once unless raw. */
static int
add_pair(NCDAP_url *u, const char *s, size_t n, int raw)
{
    const char *eq = memchr(s, '=', n);
    size_t kl = eq ? (size_t)(eq - s) : n;
    NCDAP_param *np;
    if (kl == 0)
        return NC_NOERR;
    np = realloc(u->params, (u->nparams + 1) * sizeof *np);
    if (np == NULL)
        return NC_ENOMEM;
    u->params = np;
    np = &u->params[u->nparams];
    np->key = raw ? strndup(s, kl) : ncdap_pct_decode(s, kl);
    np->value = !eq ? strdup("") : raw ? strndup(eq + 1, n - kl - 1) : ncdap_pct_decode(eq + 1, n - kl - 1);
    if (np->key == NULL || np->value == NULL) {
        free(np->key);
        free(np->value);
        return NC_ENOMEM;
    }
    u->nparams++;
    return NC_NOERR;
}

static int
params_add(NCDAP_url *u, const char *text, size_t n, int raw)
{
    int stat = NC_NOERR;
    while (n > 0 && stat == NC_NOERR) {
        const char *amp = memchr(text, '&', n);
        size_t l = amp ? (size_t)(amp - text) : n;
        stat = add_pair(u, text, l, raw);
        text += l;
        n -= l;
        if (n > 0) {
            text++;
            n--;
        }
    }
    return stat;
}

int
ncdap_params_add(NCDAP_url *u, const char *text, size_t n)
{
    return params_add(u, text, n, 0);
}

const char *
ncdap_param_first(const NCDAP_url *u, const char *key)
{
    for (size_t i = 0; i < u->nparams; i++)
        if (strcasecmp(u->params[i].key, key) == 0)
            return u->params[i].value;
    return NULL;
}

const char *
ncdap_param(const NCDAP_url *u, const char *key)
{
    for (size_t i = u->nparams; i-- > 0;)
        if (strcasecmp(u->params[i].key, key) == 0)
            return u->params[i].value;
    return NULL;
}

int
ncdap_param_has(const NCDAP_url *u, const char *key, const char *word)
{
    const char *v = ncdap_param(u, key);
    size_t wl;
    if (v == NULL)
        return 0;
    if (word == NULL)
        return 1;
    wl = strlen(word);
    if (wl == 0)
        return 0;
    for (const char *p = strstr(v, word); p != NULL; p = strstr(p + 1, word)) {
        int start = p == v || strchr("+,:;", p[-1]) != NULL;
        int end = p[wl] == '\0' || strchr("+,:;", p[wl]) != NULL;
        if (start && end)
            return 1;
    }
    return 0;
}

void
ncdap_url_clear(NCDAP_url *u)
{
    for (size_t i = 0; i < u->nparams; i++) {
        free(u->params[i].key);
        free(u->params[i].value);
    }
    free(u->params);
    free(u->base);
    free(u->query);
    memset(u, 0, sizeof *u);
}

static int
url_parse(const char *url, NCDAP_url *u, int raw)
{
    const char *p = url, *h, *end, *q;
    size_t n;
    int stat = NC_NOERR;

    while (*p == '[' && stat == NC_NOERR) {
        const char *close = strchr(p, ']');
        if (close == NULL) {
            stat = NC_EURL;
            break;
        }
        stat = add_pair(u, p + 1, (size_t)(close - p - 1), raw);
        p = close + 1;
    }
    if (stat)
        goto fail;
    h = strchr(p, '#');
    end = h ? h : p + strlen(p);
    if (h && (stat = params_add(u, h + 1, strlen(h + 1), raw)))
        goto fail;
    q = memchr(p, '?', (size_t)(end - p));
    if (q && q + 1 < end && (u->query = strndup(q + 1, (size_t)(end - q - 1))) == NULL) {
        stat = NC_ENOMEM;
        goto fail;
    }
    n = (size_t)((q ? q : end) - p);
    if (n > 7 && strncasecmp(p, "file://", 7) == 0) {
        u->isfile = 1;
        u->base = raw ? strndup(p + 7, n - 7) : ncdap_pct_decode(p + 7, n - 7);
    } else if ((n > 7 && strncasecmp(p, "http://", 7) == 0)
               || (n > 8 && strncasecmp(p, "https://", 8) == 0)) {
        u->base = strndup(p, n);
    } else if (n > 7 && (strncasecmp(p, "dap2://", 7) == 0 || strncasecmp(p, "dap4://", 7) == 0)) {
        if ((u->base = malloc(n + 1)) != NULL)
            snprintf(u->base, n + 1, "http://%.*s", (int)(n - 7), p + 7);
    } else {
        stat = NC_EURL;
        goto fail;
    }
    if (u->base == NULL) {
        stat = NC_ENOMEM;
        goto fail;
    }
    if ((u->isfile || !raw) && (u->base[0] == '\0' || u->base[strlen(u->base) - 1] == '/')) {
        stat = NC_EURL;
        goto fail;
    }
    return NC_NOERR;
fail:
    ncdap_url_clear(u);
    return stat;
}

int
ncdap_url_parse(const char *url, NCDAP_url *u)
{
    return url_parse(url, u, 0);
}

int
ncdap_url_parse_raw(const char *url, NCDAP_url *u)
{
    return url_parse(url, u, 1);
}
