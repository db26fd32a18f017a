/* dap2das.c: merging a DAS into a DDS, as upstream's client does.
 *
 * The containers of the DAS are visited in the order the parser made them
 * (a container after its contents):
 *   - the root, and containers whose name ends in "global" (any case), give
 *     their attributes to the dataset (global attributes);
 *   - containers whose name starts with "DODS" give theirs to the dataset
 *     as "CONTAINER.name";
 *   - any other container holding attributes gives them to every atomic
 *     DDS variable it names: by full name, by its name equal to a variable's
 *     full name, or by its name equal to a variable's name;
 *   - the attributes of containers that named no variable become global
 *     attributes under their dotted full names ("Facility.DataCenter").
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "dap2.h"

typedef struct Vec {
    void **v;
    size_t n, cap;
} Vec;

static int
vpush(Vec *l, void *p)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        void **nv = realloc(l->v, ncap * sizeof *nv);
        if (nv == NULL)
            return NC_ENOMEM;
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = p;
    return NC_NOERR;
}

static int
das_postorder(D2das *d, Vec *out)
{
    int stat;
    for (size_t i = 0; i < d->nsubs; i++)
        if ((stat = das_postorder(d->subs[i], out)))
            return stat;
    return vpush(out, d);
}

static int
dds_atomics(D2node *n, Vec *out)
{
    int stat;
    if (n->kind == D2_ATOMIC)
        return vpush(out, n);
    for (size_t i = 0; i < n->nfields; i++)
        if ((stat = dds_atomics(n->fields[i], out)))
            return stat;
    return NC_NOERR;
}

/* Names of containers from below the root down to d, joined by '.'. */
static char *
das_fullname(const D2das *d)
{
    size_t len = 0;
    const D2das *p;
    char *s;
    for (p = d; p != NULL && p->name != NULL; p = p->parent)
        len += strlen(p->name) + 1;
    if (len == 0)
        return strdup("");
    if ((s = malloc(len)) == NULL)
        return NULL;
    s[len - 1] = '\0';
    for (p = d; p != NULL && p->name != NULL; p = p->parent) {
        size_t l = strlen(p->name);
        len -= l + 1;
        memcpy(s + len, p->name, l);
        if (len > 0)
            s[len - 1] = '.';
    }
    return s;
}

/* Appends an attribute (values copied) to a DDS node. */
static int
add_att(D2node *n, const char *name, const D2das *a)
{
    D2att *t;
    if (n->natts == n->attcap) {
        size_t ncap = n->attcap ? n->attcap * 2 : 4;
        D2att *na = realloc(n->atts, ncap * sizeof *na);
        if (na == NULL)
            return NC_ENOMEM;
        n->atts = na;
        n->attcap = ncap;
    }
    t = &n->atts[n->natts];
    memset(t, 0, sizeof *t);
    if ((t->name = strdup(name)) == NULL)
        return NC_ENOMEM;
    t->atype = a->atype;
    if (a->nvalues > 0 && (t->values = calloc(a->nvalues, sizeof *t->values)) == NULL) {
        free(t->name);
        return NC_ENOMEM;
    }
    for (size_t i = 0; i < a->nvalues; i++) {
        if ((t->values[i] = strdup(a->values[i])) == NULL) {
            for (size_t j = 0; j < i; j++)
                free(t->values[j]);
            free(t->values);
            free(t->name);
            return NC_ENOMEM;
        }
    }
    t->nvalues = a->nvalues;
    n->natts++;
    return NC_NOERR;
}

static int
isglobalname(const char *name)
{
    size_t len = strlen(name);
    return len >= 6 && strcasecmp(name + len - 6, "global") == 0;
}

/* The direct attributes of a container, to a node; marks them bound when
 * the node is a variable. */
static int
merge_set(D2node *n, D2das *set, const char *prefix)
{
    int stat;
    for (size_t i = 0; i < set->nsubs; i++) {
        D2das *a = set->subs[i];
        if (a->isset)
            continue;
        if (n->kind != D2_DATASET)
            a->bound = 1;
        if (prefix == NULL) {
            stat = add_att(n, a->name, a);
        } else {
            size_t l = strlen(prefix) + strlen(a->name) + 2;
            char *nm = malloc(l);
            if (nm == NULL)
                return NC_ENOMEM;
            snprintf(nm, l, "%s.%s", prefix, a->name);
            stat = add_att(n, nm, a);
            free(nm);
        }
        if (stat)
            return stat;
    }
    return NC_NOERR;
}

/* Attributes not given to a variable, as globals named by their full names. */
static int
merge_other(D2node *root, D2das *d)
{
    int stat = NC_NOERR;
    if (!d->isset) {
        char *fn;
        if (d->bound)
            return NC_NOERR;
        if ((fn = das_fullname(d)) == NULL)
            return NC_ENOMEM;
        stat = add_att(root, fn, d);
        free(fn);
        return stat;
    }
    for (size_t i = 0; i < d->nsubs && stat == NC_NOERR; i++)
        stat = merge_other(root, d->subs[i]);
    return stat;
}

int
d2_merge_das(D2node *dds, D2das *das)
{
    int stat = NC_NOERR;
    Vec all = {0}, globals = {0}, dods = {0}, sets = {0}, vars = {0};

    if (dds == NULL || das == NULL)
        return NC_NOERR;
    if ((stat = das_postorder(das, &all)) || (stat = dds_atomics(dds, &vars)))
        goto done;
    for (size_t i = 0; i < all.n; i++) {
        D2das *d = all.v[i];
        int hasatts = 0;
        if (!d->isset)
            continue;
        if (d->name == NULL || isglobalname(d->name)) {
            stat = vpush(&globals, d);
        } else if (strncmp(d->name, "DODS", 4) == 0) {
            stat = vpush(&dods, d);
        } else {
            for (size_t j = 0; j < d->nsubs && !hasatts; j++)
                hasatts = !d->subs[j]->isset;
            if (hasatts)
                stat = vpush(&sets, d);
        }
        if (stat)
            goto done;
    }
    for (size_t i = 0; i < sets.n; i++) {
        D2das *d = sets.v[i];
        char *dfull = das_fullname(d);
        if (dfull == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        for (size_t j = 0; j < vars.n && stat == NC_NOERR; j++) {
            D2node *v = vars.v[j];
            char *vfull = d2_fullname(v);
            if (vfull == NULL) {
                stat = NC_ENOMEM;
                break;
            }
            if (strcmp(dfull, vfull) == 0 || strcmp(d->name, vfull) == 0
                || strcmp(d->name, v->name) == 0) {
                stat = merge_set(v, d, NULL);
                sets.v[i] = NULL;
            }
            free(vfull);
        }
        free(dfull);
        if (stat)
            goto done;
    }
    for (size_t i = 0; i < globals.n; i++)
        if ((stat = merge_set(dds, globals.v[i], NULL)))
            goto done;
    for (size_t i = 0; i < dods.n; i++) {
        D2das *d = dods.v[i];
        if ((stat = merge_set(dds, d, d->name)))
            goto done;
    }
    for (size_t i = 0; i < sets.n; i++)
        if (sets.v[i] != NULL && (stat = merge_other(dds, sets.v[i])))
            goto done;
done:
    free(all.v);
    free(globals.v);
    free(dods.v);
    free(sets.v);
    free(vars.v);
    return stat;
}
