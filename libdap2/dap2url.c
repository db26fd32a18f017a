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
