/* dap2ce.c: the user's DAP2 constraint expression (the URL's query).
 *
 *   proj[,proj]...[&selection]...
 *
 * A projection is a path of names separated by '.', each name with %XX
 * escapes decoded; hyperslabs "[a]", "[a:b]" or "[a:s:b]" may follow any
 * name (only the last name's count).  Selections are kept as they are, to
 * be passed on.  Errors are NC_EDAPCONSTRAINT.  Needs nothing but libc and
 * the D2file fields it fills, so the fuzz target compiles it on its own.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "dap2int.h"

void
d2_projs_free(D2file *f)
{
    for (size_t i = 0; i < f->nprojs; i++) {
        for (size_t j = 0; j < f->projs[i].nnames; j++)
            free(f->projs[i].names[j]);
        free(f->projs[i].names);
    }
    free(f->projs);
    f->projs = NULL;
    f->nprojs = 0;
    free(f->selection);
    f->selection = NULL;
}

/* "[a]", "[a:b]" or "[a:s:b]" at *pp. */
static int
ce_slab(const char **pp, size_t *first, size_t *stride, size_t *last)
{
    unsigned long long v[3];
    int n = 0;
    const char *p = *pp + 1;
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9' || n == 3)
            return NC_EDAPCONSTRAINT;
        v[n++] = strtoull(p, &end, 10);
        p = end;
        if (*p == ']')
            break;
        if (*p != ':')
            return NC_EDAPCONSTRAINT;
        p++;
    }
    *pp = p + 1;
    *first = (size_t)v[0];
    *stride = n == 3 ? (size_t)v[1] : 1;
    *last = (size_t)(n == 1 ? v[0] : v[n - 1]);
    if (*stride == 0 || *last < *first)
        return NC_EDAPCONSTRAINT;
    return NC_NOERR;
}

int
d2_parse_constraint(D2file *f)
{
    const char *q = f->query, *amp;
    size_t plen;
    if (q == NULL || *q == '\0')
        return NC_NOERR;
    amp = strchr(q, '&');
    plen = amp ? (size_t)(amp - q) : strlen(q);
    if (amp && (f->selection = strdup(amp)) == NULL)
        return NC_ENOMEM;
    for (const char *p = q; p < q + plen;) {
        const char *comma = memchr(p, ',', (size_t)(q + plen - p));
        const char *pend = comma ? comma : q + plen;
        D2proj *np = realloc(f->projs, (f->nprojs + 1) * sizeof *np), *pr;
        if (np == NULL)
            return NC_ENOMEM;
        f->projs = np;
        pr = &f->projs[f->nprojs++];
        memset(pr, 0, sizeof *pr);
        while (p < pend) {
            const char *s = p;
            char **nn;
            while (p < pend && *p != '.' && *p != '[')
                p++;
            if (p == s)
                return NC_EDAPCONSTRAINT;
            if (pr->nnames >= D2_MAX_DEPTH || (nn = realloc(pr->names, (pr->nnames + 1) * sizeof *nn)) == NULL)
                return pr->nnames >= D2_MAX_DEPTH ? NC_EDAPCONSTRAINT : NC_ENOMEM;
            pr->names = nn;
            if ((pr->names[pr->nnames++] = ncdap_pct_decode(s, (size_t)(p - s))) == NULL)
                return NC_ENOMEM;
            pr->nslab = 0;  /* only the last name's hyperslab counts */
            while (p < pend && *p == '[') {
                int stat;
                if (pr->nslab >= D2_MAX_RANK)
                    return NC_EDAPCONSTRAINT;
                if ((stat = ce_slab(&p, &pr->first[pr->nslab], &pr->stride[pr->nslab],
                                    &pr->last[pr->nslab])))
                    return stat;
                pr->nslab++;
            }
            if (p < pend) {
                if (*p != '.')
                    return NC_EDAPCONSTRAINT;
                p++;
            }
        }
        if (pr->nnames == 0)
            return NC_EDAPCONSTRAINT;
        p = comma ? comma + 1 : pend;
    }
    return NC_NOERR;
}
