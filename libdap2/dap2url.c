/* dap2url.c: the parts of a DAP2 URL.
 *
 *   [key=value][key]...scheme://host/path?constraint#key=value&key&...
 *
 * Client parameters come from "[...]" prefixes and from the fragment
 * (upstream accepts both); the query is the user's constraint expression.
 * file:// URLs name NAME for NAME.dds, NAME.das and NAME.dods on disk.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "dap2int.h"

static int
add_param(D2file *f, const char *k, size_t klen, const char *v, size_t vlen)
{
    D2param *np;
    if (klen == 0)
        return NC_NOERR;
    np = realloc(f->params, (f->nparams + 1) * sizeof *np);
    if (np == NULL)
        return NC_ENOMEM;
    f->params = np;
    np = &f->params[f->nparams];
    np->key = strndup(k, klen);
    np->value = strndup(v ? v : "", v ? vlen : 0);
    if (np->key == NULL || np->value == NULL) {
        free(np->key);
        free(np->value);
        return NC_ENOMEM;
    }
    f->nparams++;
    return NC_NOERR;
}

/* "key=value" or "key". */
static int
add_pair(D2file *f, const char *s, size_t len)
{
    const char *eq = memchr(s, '=', len);
    if (eq == NULL)
        return add_param(f, s, len, NULL, 0);
    return add_param(f, s, (size_t)(eq - s), eq + 1, len - (size_t)(eq - s) - 1);
}

void
d2_params_free(D2file *f)
{
    for (size_t i = 0; i < f->nparams; i++) {
        free(f->params[i].key);
        free(f->params[i].value);
    }
    free(f->params);
    f->params = NULL;
    f->nparams = 0;
}

const char *
d2_param(const D2file *f, const char *key)
{
    for (size_t i = 0; i < f->nparams; i++)
        if (strcasecmp(f->params[i].key, key) == 0)
            return f->params[i].value;
    return NULL;
}

/* Upstream's dapparamcheck: is key set, and (sub != NULL) does its value
 * contain sub as a word of a list separated by "+,:;"? */
int
d2_param_check(const D2file *f, const char *key, const char *sub)
{
    const char *v = d2_param(f, key), *p;
    if (v == NULL)
        return 0;
    if (sub == NULL)
        return 1;
    for (p = strstr(v, sub); p != NULL; p = strstr(p + 1, sub)) {
        char c = p[strlen(sub)];
        if (c == '\0' || strchr("+,:;", c) != NULL)
            return 1;
    }
    return 0;
}

int
d2_url_parse(const char *url, D2file *f)
{
    int stat;
    const char *p = url, *end, *q, *h;
    size_t n;

    while (*p == '[') {
        const char *close = strchr(p, ']');
        if (close == NULL)
            return NC_EURL;
        if ((stat = add_pair(f, p + 1, (size_t)(close - p - 1))))
            return stat;
        p = close + 1;
    }
    h = strchr(p, '#');
    end = h ? h : p + strlen(p);
    if (h != NULL) {
        for (const char *s = h + 1; *s;) {
            const char *amp = strchr(s, '&');
            size_t l = amp ? (size_t)(amp - s) : strlen(s);
            if ((stat = add_pair(f, s, l)))
                return stat;
            s = amp ? amp + 1 : s + l;
        }
    }
    q = memchr(p, '?', (size_t)(end - p));
    if (q != NULL && q + 1 < end) {
        if ((f->query = strndup(q + 1, (size_t)(end - q - 1))) == NULL)
            return NC_ENOMEM;
    }
    n = (size_t)((q ? q : end) - p);
    if (n > 7 && strncasecmp(p, "file://", 7) == 0) {
        f->isfile = 1;
        f->base = strndup(p + 7, n - 7);
    } else if ((n > 7 && strncasecmp(p, "http://", 7) == 0)
               || (n > 8 && strncasecmp(p, "https://", 8) == 0)) {
        f->base = strndup(p, n);
    } else if (n > 7 && strncasecmp(p, "dap2://", 7) == 0) {
        /* dap2://host/path is http://host/path */
        size_t l = n - 7 + 7;
        if ((f->base = malloc(l + 1)) != NULL)
            snprintf(f->base, l + 1, "http://%.*s", (int)(n - 7), p + 7);
    } else {
        return NC_EURL;
    }
    if (f->base == NULL)
        return NC_ENOMEM;
    /* a file:// URL without a dataset name */
    if (f->isfile && (f->base[0] == '\0' || f->base[strlen(f->base) - 1] == '/'))
        return NC_EURL;
    return NC_NOERR;
}

/* ---- the user's constraint ---------------------------------------------------- */

/* Does the projection pr name node n (its path of names from the dataset)? */
static int
names_node(const D2proj *pr, const D2node *n)
{
    size_t k = pr->nnames;
    while (k > 0 && n && n->kind != D2_DATASET && strcmp(n->name, pr->names[k - 1]) == 0) {
        k--;
        n = n->parent;
    }
    return k == 0 && n && n->kind == D2_DATASET;
}

const D2proj *
d2_user_proj(const D2file *f, const D2node *v)
{
    for (size_t i = 0; i < f->nprojs; i++)
        if (names_node(&f->projs[i], v))
            return &f->projs[i];
    /* a hyperslab on a Grid applies to its array */
    if (v->parent && v->parent->kind == D2_GRID && v->parent->fields[0] == v)
        for (size_t i = 0; i < f->nprojs; i++)
            if (names_node(&f->projs[i], v->parent))
                return &f->projs[i];
    return NULL;
}
