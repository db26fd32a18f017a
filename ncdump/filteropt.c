/* filteropt.c: parsing of nccopy's -F filter specifications.
 *
 *   -F none | -F '*,none'      no filter on any output variable unless
 *                              another -F names it
 *   -F vars,none               no filter on these variables
 *   -F vars,id,p1,...|id,...   these filters on these variables
 * vars is "*" or variable names joined by '&', each a full name with CDL
 * escapes ("/g/v", or "v" for "/v"); a backslash escapes the next
 * character, so "a\,b" and "a\&b" are single names.  The filter list is
 * parsed by the library (ncaux_h5filterspec_parselist).  As upstream, a
 * name part with no filter part ("-F v") adds nothing but still asks for
 * netCDF-4 output. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "netcdf.h"
#include "netcdf_aux.h"
#include "copyspec.h"

static int
add_opt(filteropts *fo, const char *var, size_t vlen, int nofilter, const NC_H5_Filterspec *f)
{
    filteropt *o;
    int slash = strcmp(var, "*") != 0 && var[0] != '/';

    if (fo->n == fo->cap) {
        size_t cap = fo->cap ? 2 * fo->cap : 8;
        filteropt *no = realloc(fo->opts, cap * sizeof *no);
        if (!no)
            return NC_ENOMEM;
        fo->opts = no;
        fo->cap = cap;
    }
    o = &fo->opts[fo->n];
    memset(o, 0, sizeof *o);
    if (!(o->fqn = malloc(vlen + 2)))
        return NC_ENOMEM;
    o->fqn[0] = '/';
    memcpy(o->fqn + slash, var, vlen + 1);
    o->nofilter = nofilter;
    if (!nofilter) {
        o->id = f->filterid;
        o->nparams = f->nparams;
        if (f->nparams) {
            if (!(o->params = malloc(f->nparams * sizeof *o->params))) {
                free(o->fqn);
                return NC_ENOMEM;
            }
            memcpy(o->params, f->params, f->nparams * sizeof *o->params);
        }
    }
    fo->n++;
    return NC_NOERR;
}

int
filteropt_parse(filteropts *fo, const char *arg, int *nc4)
{
    char *copy = NULL, *p, *rest, *var;
    NC_H5_Filterspec **filters = NULL;
    size_t nfilters = 0, i, k;
    int stat = NC_NOERR, isnone = 0, star;

    *nc4 = 0;
    if (!strcmp(arg, "none") || !strcasecmp(arg, "*,none")) {
        fo->suppress = 1;
        return NC_NOERR;
    }
    *nc4 = 1;
    if (!*arg)
        return NC_NOERR;
    if (!(copy = strdup(arg)))
        return NC_ENOMEM;
    /* the variable part ends at the first unescaped comma */
    for (p = copy; *p && *p != ','; p++)
        if (*p == '\\' && p[1])
            p++;
    rest = p;
    if (*p)
        *rest++ = '\0';
    if (!*copy) {
        stat = NC_EINVAL;
        goto done;
    }
    if (strcasecmp(rest, "none") != 0) {
        if ((stat = ncaux_h5filterspec_parselist(rest, NULL, &nfilters, &filters)))
            goto done;
    } else
        isnone = 1;
    /* each name separated by an unescaped '&' ("*" alone is all) */
    star = !strcmp(copy, "*");
    for (var = p = copy;; p++) {
        if (*p == '\\' && p[1] && !star) {
            p++;
            continue;
        }
        if (*p && (*p != '&' || star))
            continue;
        {
            int last = !*p;
            *p = '\0';
            if (*var) {
                size_t vlen = strlen(var);
                if (isnone)
                    stat = add_opt(fo, var, vlen, 1, NULL);
                for (k = 0; !isnone && k < nfilters && !stat; k++)
                    stat = add_opt(fo, var, vlen, 0, filters[k]);
                if (stat)
                    goto done;
            }
            if (last)
                break;
            var = p + 1;
        }
    }
done:
    for (i = 0; i < nfilters; i++)
        ncaux_h5filterspec_free(filters[i]);
    free(filters);
    free(copy);
    return stat;
}

void
filteropt_free(filteropts *fo)
{
    size_t i;
    for (i = 0; i < fo->n; i++) {
        free(fo->opts[i].fqn);
        free(fo->opts[i].params);
    }
    free(fo->opts);
    fo->opts = NULL;
    fo->n = fo->cap = 0;
    fo->suppress = 0;
}
