/* dap2url.c: the parts of a DAP2 URL (libdispatch/ncdapurl.h's, undecoded).
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

/* The first value given wins, as upstream's DAP2 client reads them. */
const char *
d2_param(const D2file *f, const char *key)
{
    NCDAP_url u = {.params = f->params, .nparams = f->nparams};
    return ncdap_param_first(&u, key);
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
d2_encode_flags(const D2file *f)
{
    const char *v = d2_param(f, "encode");
    int flags = 0;
    if (v == NULL)
        return D2_ENCODE_QUERY;
    while (*v) {
        size_t n = strcspn(v, ",");
        if (n == 4 && strncmp(v, "path", 4) == 0)
            flags |= D2_ENCODE_PATH;
        else if (n == 5 && strncmp(v, "query", 5) == 0)
            flags |= D2_ENCODE_QUERY;
        else if (n == 3 && strncmp(v, "all", 3) == 0)
            flags |= D2_ENCODE_PATH | D2_ENCODE_QUERY;
        else if (n == 4 && strncmp(v, "none", 4) == 0)
            flags = 0;
        v += n + (v[n] == ',');
    }
    return flags;
}

static int
is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Appends [p, end) to q, encoded or not; returns the new end. */
static char *
encode_part(char *q, const char *p, const char *end, int encode)
{
    static const char hex[] = "0123456789abcdef";
    static const char allow[] = "!#$&'()*+,-./:;=?@_~";
    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        int keep;
        if (c <= 0x20 || c == 0x7f)
            keep = 0;
        else if (!encode)
            keep = 1;
        else
            keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                   || strchr(allow, c) != NULL
                   || (c == '%' && end - p > 2 && is_hex(p[1]) && is_hex(p[2]));
        if (keep) {
            *q++ = (char)c;
        } else {
            *q++ = '%';
            *q++ = hex[c >> 4];
            *q++ = hex[c & 15];
        }
    }
    return q;
}

char *
d2_wire_url(const char *url, int flags)
{
    size_t len = strlen(url);
    const char *sep = strstr(url, "://");
    const char *path = sep ? sep + 3 : url;
    const char *query;
    char *out, *q;
    path += strcspn(path, "/?");
    query = path + strcspn(path, "?");
    if ((out = malloc(3 * len + 1)) == NULL)
        return NULL;
    memcpy(out, url, (size_t)(path - url));
    q = out + (path - url);
    q = encode_part(q, path, query, flags & D2_ENCODE_PATH);
    if (*query == '?') {
        *q++ = '?';
        q = encode_part(q, query + 1, url + len, flags & D2_ENCODE_QUERY);
    }
    *q = '\0';
    return out;
}

/* libdispatch's URL parts in DAP2's form: nothing %XX-decoded (the file://
 * path and the parameters as written), as upstream's DAP2 client. */
int
d2_url_parse(const char *url, D2file *f)
{
    NCDAP_url u = {0};
    int stat = ncdap_url_parse_raw(url, &u);
    if (stat)
        return stat;
    f->isfile = u.isfile;
    f->base = u.base;
    f->query = u.query;
    f->params = u.params;
    f->nparams = u.nparams;
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
