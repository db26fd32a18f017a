/* dap2meta.c: upstream's mapping of a DAP2 dataset into the classic model,
 * written into the in-memory substrate.
 *
 * In the order upstream's client applies them:
 *   1. variables: atomic nodes, top-level ones first, then grid arrays (grid
 *      maps are not variables: the top-level coordinate variables stand for
 *      them), then members of structures and sequences, each group in
 *      declaration order;
 *   2. grids: the array takes the grid's name; anonymous dimensions of the
 *      array and its maps take the maps' names;
 *   3. sequences: usable when a member is reachable without crossing another
 *      sequence and no container above is an array; members of other
 *      sequences are dropped; a usable sequence gets a dimension named after
 *      it whose length is its record count;
 *   4. strings: a last dimension "maxStrlen64" (the "stringlength" or
 *      "maxstrlen" parameter changes 64; per variable "stringlength_VAR", or
 *      the DODS strlen/dimName attributes, give a dimension of its own);
 *   5. dimensions of a variable: its containers' (copied per variable), its
 *      own, the string one; the sequence's for members of a sequence;
 *   6. names: a named dimension keeps its name (dimensions with one name and
 *      one size are one; with one name and other sizes, "_1", "_2"... are
 *      appended); an anonymous one is "VARPATH_i"; '/' becomes "%2f";
 *      dimensions are defined sorted by name, the DODS_EXTRA
 *      Unlimited_Dimension first as the record dimension;
 *   7. a variable with a zero-length dimension is dropped;
 *   8. variables are named by their path of names below the dataset, grids
 *      left out, joined by '.'; attributes: strings joined by newlines with
 *      escapes expanded, numbers converted to the classic type, _FillValue
 *      given the variable's type.
 */
#include "config.h"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "dap2int.h"

typedef struct List {
    void **v;
    size_t n, cap;
} List;

static int
lpush(List *l, void *p)
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
lcontains(const List *l, const void *p)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == p)
            return 1;
    return 0;
}

#define NM(n) ((D2nm *)(n)->map)

/* ---- names ------------------------------------------------------------------------ */

/* Upstream's legal netCDF name for a DAP name: '/' becomes "%2f". */
static char *
legalname(const char *name)
{
    size_t n = 0;
    char *s, *q;
    for (const char *p = name; *p; p++)
        n += *p == '/' ? 3 : 1;
    if ((s = malloc(n + 1)) == NULL)
        return NULL;
    q = s;
    for (const char *p = name; *p; p++) {
        if (*p == '/') {
            memcpy(q, "%2f", 3);
            q += 3;
        } else {
            *q++ = *p;
        }
    }
    *q = '\0';
    return s;
}

/* Basenames of the path below the dataset joined by '.', grids left out
 * when elide is set. */
static char *
pathname(const D2node *n, int elide)
{
    size_t len = 0;
    const D2node *p;
    char *s;
    for (p = n; p && p->kind != D2_DATASET; p = p->parent)
        if (!(elide && p->kind == D2_GRID))
            len += strlen(NM(p)->basename) + 1;
    if (len == 0)
        return strdup("");
    if ((s = malloc(len)) == NULL)
        return NULL;
    s[len - 1] = '\0';
    for (p = n; p && p->kind != D2_DATASET; p = p->parent) {
        if (elide && p->kind == D2_GRID)
            continue;
        size_t l = strlen(NM(p)->basename);
        len -= l + 1;
        memcpy(s + len, NM(p)->basename, l);
        if (len > 0)
            s[len - 1] = '.';
    }
    return s;
}

/* ---- dimensions --------------------------------------------------------------------- */

static D2cdim *
newdim(D2file *f, const char *ocname, size_t size, D2node *array)
{
    D2cdim *d = calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    if (ocname != NULL && (d->ocname = strdup(ocname)) == NULL) {
        free(d);
        return NULL;
    }
    d->size = size;
    d->array = array;
    d->dimid = -1;
    d->next = f->alldims;
    f->alldims = d;
    return d;
}

static int
setdimname(D2cdim *d, const char *ocname)
{
    char *s = strdup(ocname);
    if (s == NULL)
        return NC_ENOMEM;
    free(d->ocname);
    d->ocname = s;
    return NC_NOERR;
}

/* ---- per-node state ------------------------------------------------------------------ */

static int
attach_maps(D2file *f, D2node *n, List *all)
{
    int stat;
    D2nm *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NC_ENOMEM;
    n->map = m;
    if ((stat = lpush(all, n)))
        return stat;
    if ((m->basename = legalname(n->name ? n->name : "")) == NULL)
        return NC_ENOMEM;
    if (n->rank > 0 && (m->dimset0 = calloc(n->rank, sizeof *m->dimset0)) == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < n->rank; i++) {
        if ((m->dimset0[i] = newdim(f, n->dims[i].name, n->dims[i].size, n)) == NULL)
            return NC_ENOMEM;
    }
    m->nd0 = n->rank;
    for (size_t i = 0; i < n->nfields; i++)
        if ((stat = attach_maps(f, n->fields[i], all)))
            return stat;
    return NC_NOERR;
}

static void
free_maps(D2node *n)
{
    if (n == NULL)
        return;
    if (n->map) {
        D2nm *m = n->map;
        free(m->basename);
        free(m->fullname0);
        free(m->dimset0);
        free(m->dimsetall);
        free(m->dimname);
        free(m);
        n->map = NULL;
    }
    for (size_t i = 0; i < n->nfields; i++)
        free_maps(n->fields[i]);
}

void
d2_meta_free(D2file *f)
{
    free_maps(f->dds);
    while (f->alldims) {
        D2cdim *d = f->alldims;
        f->alldims = d->next;
        free(d->ocname);
        free(d->ncname);
        free(d);
    }
    for (size_t i = 0; i < f->nvars; i++)
        free(f->vars[i].dims);
    free(f->vars);
    f->vars = NULL;
    f->nvars = 0;
}

/* ---- grids ------------------------------------------------------------------------------ */

static int
fixgrid(D2node *grid)
{
    D2node *array = grid->fields[0];
    D2nm *am = NM(array);
    char *b = strdup(NM(grid)->basename);
    if (b == NULL)
        return NC_ENOMEM;
    free(am->basename);
    am->basename = b;
    if (grid->nfields - 1 != am->nd0)
        return NC_NOERR;  /* malformed grid: left as it is */
    for (size_t i = 1; i < grid->nfields; i++) {
        D2node *map = grid->fields[i];
        D2cdim *ad = am->dimset0[i - 1], *md;
        int stat;
        if (NM(map)->nd0 != 1)
            return NC_NOERR;
        md = NM(map)->dimset0[0];
        if (ad->ocname && strcmp(ad->ocname, map->name) != 0)
            return NC_NOERR;
        if (md->ocname && strcmp(md->ocname, map->name) != 0)
            return NC_NOERR;
        if (md->ocname == NULL && (stat = setdimname(md, map->name)))
            return stat;
        if (ad->ocname == NULL && (stat = setdimname(ad, map->name)))
            return stat;
    }
    return NC_NOERR;
}

/* ---- sequences ------------------------------------------------------------------------- */

static int
seqcheck(D2node *n, D2node *topseq, const List *vars)
{
    int ok = 0;
    if (topseq == NULL && NM(n)->nd0 > 0)
        return 0;
    if (n->kind == D2_SEQUENCE) {
        for (size_t i = 0; i < n->nfields; i++)
            if (seqcheck(n->fields[i], n, vars))
                ok = 1;
        NM(n)->usesequence = topseq == NULL && ok;
        return NM(n)->usesequence;
    }
    if (lcontains(vars, n))
        return 1;
    for (size_t i = 0; i < n->nfields; i++)
        if (seqcheck(n->fields[i], topseq, vars))
            ok = 1;
    return ok;
}

/* The member of a sequence (or of a structure or grid inside it) whose
 * values are cheapest to fetch for the record count, upstream's choice: the
 * first atomic field that is not a string, else the first string, else
 * the same search in the last structure or grid field. */
static const D2node *
countmember(const D2node *n, int depth)
{
    const D2node *str = NULL, *compound = NULL;
    for (size_t i = 0; i < n->nfields; i++) {
        const D2node *c = n->fields[i];
        if (c->kind == D2_ATOMIC && c->atype != D2_STRING && c->atype != D2_URL)
            return c;
        if (c->kind == D2_ATOMIC && str == NULL)
            str = c;
        if (c->kind == D2_STRUCTURE || c->kind == D2_GRID)
            compound = c;
    }
    if (str != NULL)
        return str;
    return compound && depth < D2_MAX_DEPTH ? countmember(compound, depth + 1) : NULL;
}

/* The node of a decoded response (root) at the path of seq, a node of
 * f->dds, or NULL when the response has no such node of that kind. */
static D2node *
response_node(D2node *root, const D2node *seq)
{
    const D2node *path[D2_MAX_DEPTH + 2];
    size_t depth = 0;
    D2node *d = root;
    for (const D2node *p = seq; p && p->kind != D2_DATASET; p = p->parent) {
        if (depth >= D2_MAX_DEPTH + 1)
            return NULL;
        path[depth++] = p;
    }
    while (depth > 0) {
        const D2node *want = path[--depth];
        D2node *found = NULL;
        for (size_t i = 0; i < d->nfields && !found; i++)
            if (strcmp(d->fields[i]->name, want->name) == 0)
                found = d->fields[i];
        if (found == NULL || found->kind != want->kind)
            return NULL;
        d = found;
    }
    return d;
}

/* A positive count of a limit parameter, or 0. */
static size_t
count_param(const char *v)
{
    unsigned long n = 0;
    char *end;
    if (v == NULL || *v < '0' || *v > '9')
        return 0;
    n = strtoul(v, &end, 10);
    return n > 0 && n <= (unsigned long)UINT_MAX ? (size_t)n : 0;
}

/* The records sequence seq is limited to over http, upstream's sequence
 * limit: "limit=N" for every sequence (none by default), "nolimit_PATH",
 * then "limit_PATH=N" for the one whose DAP path is PATH; 0: no limit. */
static size_t
seqlimit(const D2file *f, const D2node *seq)
{
    size_t lim = 0, n;  /* "nolimit" is the default */
    char *path = d2_fullname(seq), *key;
    if ((n = count_param(d2_param(f, "limit"))) > 0)
        lim = n;
    if (path == NULL || (key = malloc(strlen(path) + 16)) == NULL) {
        free(path);
        return lim;
    }
    snprintf(key, strlen(path) + 16, "nolimit_%s", path);
    if (d2_param(f, key) != NULL)
        lim = 0;
    snprintf(key, strlen(path) + 16, "limit_%s", path);
    if ((n = count_param(d2_param(f, key))) > 0)
        lim = n;
    free(key);
    free(path);
    return lim;
}

/* http(s): the record count of sequence seq from one request for a single
 * member (element 0 of every array on the way), as upstream; a response
 * holding that member whole is kept in the response cache for its read. */
static int
seqcount_remote(D2file *f, D2node *seq, size_t *countp)
{
    const D2node *m = countmember(seq, 0);
    size_t zero[NC_MAX_VAR_DIMS], one[NC_MAX_VAR_DIMS], nd = 0, size = 0;
    ptrdiff_t unit[NC_MAX_VAR_DIMS];
    D2node *resp = NULL, *d;
    int stat;
    if (m == NULL)
        return NC_EDDS;
    NM(seq)->seqlimit = seqlimit(f, seq);
    for (const D2node *p = m; p != seq; p = p->parent)
        nd += p->rank;
    if (nd > NC_MAX_VAR_DIMS)
        return NC_EDDS;
    for (size_t i = 0; i < nd; i++) {
        zero[i] = 0;
        one[i] = 1;
        unit[i] = 1;
    }
    if ((stat = d2_fetch_vars(f, &m, 1, nd, nd ? zero : NULL, one, unit, &resp, &size)))
        return stat;
    if ((d = response_node(resp, seq)) == NULL) {
        d2_node_free(resp);
        return NC_EDATADDS;
    }
    *countp = d->nrecords;
    if (nd == 0)
        return d2_cache_put(f, m, resp, size);
    d2_node_free(resp);
    return NC_NOERR;
}

/* The record count of sequence seq (a node of f->dds) in the decoded data. */
static int
seqcount(D2file *f, D2node *seq, size_t *countp)
{
    int stat;
    D2node *d;
    for (const D2node *p = seq->parent; p && p->kind != D2_DATASET; p = p->parent)
        if (p->kind != D2_STRUCTURE || p->rank > 0)
            return NC_EDDS;
    if (!f->isfile)
        return seqcount_remote(f, seq, countp);
    if ((stat = d2_load_data(f)))
        return stat;
    if ((d = response_node(f->data, seq)) == NULL)
        return NC_EDATADDS;
    *countp = d->nrecords;
    return NC_NOERR;
}

/* ---- dimension sets --------------------------------------------------------------------- */

static int
dimsets(D2file *f, D2node *n)
{
    D2nm *m = NM(n);
    D2nm *pm = n->parent ? NM(n->parent) : NULL;
    size_t nparent = pm ? pm->ndall : 0;
    size_t nplus = m->nd0 + (m->stringdim != NULL) + (m->seqdim != NULL);
    int stat;

    if (nparent + nplus > 0) {
        if (nparent + nplus > NC_MAX_VAR_DIMS + 8)
            return NC_EDDS;
        if ((m->dimsetall = calloc(nparent + nplus, sizeof *m->dimsetall)) == NULL)
            return NC_ENOMEM;
    }
    for (size_t i = 0; i < nparent; i++) {
        D2cdim *src = pm->dimsetall[i];
        D2cdim *c = newdim(f, src->ocname, src->size, n);
        if (c == NULL)
            return NC_ENOMEM;
        c->isstring = src->isstring;
        c->isseq = src->isseq;
        c->index1 = src->index1;
        m->dimsetall[m->ndall++] = c;
    }
    for (size_t i = 0; i < m->nd0; i++)
        m->dimsetall[m->ndall++] = m->dimset0[i];
    if (m->stringdim)
        m->dimsetall[m->ndall++] = m->stringdim;
    if (m->seqdim)
        m->dimsetall[m->ndall++] = m->seqdim;
    m->ndplus = nplus;
    for (size_t i = 0; i < n->nfields; i++)
        if ((stat = dimsets(f, n->fields[i])))
            return stat;
    return NC_NOERR;
}

static int
isequivalent(const D2cdim *a, const D2cdim *b)
{
    return a->size == b->size && a->ocname && b->ocname && strcmp(a->ocname, b->ocname) == 0;
}

/* Unify, index and name the dimensions of the variables; *basedimsp gets
 * the dimensions to define. */
static int
dimnames(D2file *f, List *vars, List *basedims)
{
    int stat = NC_NOERR;
    List alldims = {0};
    char tmp[2 * NC_MAX_NAME + 64];

    (void)f;
    for (size_t i = 0; i < vars->n; i++) {
        D2nm *m = NM((D2node *)vars->v[i]);
        for (size_t j = 0; j < m->ndall; j++) {
            D2cdim *d = m->dimsetall[j];
            if (!lcontains(&alldims, d) && (stat = lpush(&alldims, d)))
                goto done;
            if (d->ocname == NULL)
                d->index1 = (int)j + 1;
        }
    }
    for (size_t i = 0; i < alldims.n; i++) {
        D2cdim *b = alldims.v[i];
        if (b->base)
            continue;
        for (size_t j = i + 1; j < alldims.n; j++) {
            D2cdim *d = alldims.v[j];
            if (d != b && d->base == NULL && isequivalent(b, d))
                d->base = b;
        }
    }
    for (size_t i = 0; i < alldims.n; i++) {
        D2cdim *b = alldims.v[i];
        int k = 0;
        if (b->base)
            continue;
        for (size_t j = i + 1; j < alldims.n; j++) {
            D2cdim *d = alldims.v[j];
            if (d->base || d->ocname == NULL || b->ocname == NULL)
                continue;
            if (strcmp(d->ocname, b->ocname) != 0 || d->size == b->size)
                continue;
            d->index1 = ++k;
        }
    }
    for (size_t i = 0; i < vars->n; i++) {
        D2nm *m = NM((D2node *)vars->v[i]);
        for (size_t j = 0; j < m->ndall; j++)
            if (m->dimsetall[j]->base)
                m->dimsetall[j] = m->dimsetall[j]->base;
    }
    for (size_t i = 0; i < alldims.n; i++) {
        D2cdim *d = alldims.v[i];
        if (d->base == NULL && !lcontains(basedims, d) && (stat = lpush(basedims, d)))
            goto done;
    }
    for (size_t i = 0; i < basedims->n; i++) {
        D2cdim *d = basedims->v[i];
        char *nm;
        if (d->ocname == NULL) {
            snprintf(tmp, sizeof tmp, "%s_%d", NM(d->array)->fullname0, d->index1 - 1);
            nm = legalname(tmp);
        } else if (d->index1 > 0) {
            char *l = legalname(d->ocname);
            if (l == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            snprintf(tmp, sizeof tmp, "%s_%d", l, d->index1);
            free(l);
            nm = strdup(tmp);
        } else {
            nm = legalname(d->ocname);
        }
        if (nm == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        free(d->ncname);
        d->ncname = nm;
    }
    /* one dimension per name: later duplicates stand for the first */
    for (size_t i = 0; i < basedims->n; i++) {
        D2cdim *a = basedims->v[i];
        for (size_t j = basedims->n; j-- > i + 1;) {
            D2cdim *b = basedims->v[j];
            if (strcmp(a->ncname, b->ncname) == 0) {
                b->base = a;
                memmove(basedims->v + j, basedims->v + j + 1, (basedims->n - j - 1) * sizeof(void *));
                basedims->n--;
            }
        }
    }
    for (size_t i = 0; i < vars->n; i++) {
        D2nm *m = NM((D2node *)vars->v[i]);
        for (size_t j = 0; j < m->ndall; j++)
            while (m->dimsetall[j]->base)
                m->dimsetall[j] = m->dimsetall[j]->base;
    }
done:
    free(alldims.v);
    return stat;
}

/* ---- attributes ---------------------------------------------------------------------- */

/* Upstream's escape expansion in string attributes (only shortens). */
static void
expand_escapes(char *s)
{
    char *t = s, *o = s;
    while (*t) {
        if (*t != '\\') {
            *o++ = *t++;
            continue;
        }
        t++;
        switch (*t) {
        case 'a': *o++ = '\a'; t++; break;
        case 'b': *o++ = '\b'; t++; break;
        case 'f': *o++ = '\f'; t++; break;
        case 'n': *o++ = '\n'; t++; break;
        case 'r': *o++ = '\r'; t++; break;
        case 't': *o++ = '\t'; t++; break;
        case 'v': *o++ = '\v'; t++; break;
        case '\\': *o++ = '\\'; t++; break;
        case '?': *o++ = '\177'; t++; break;
        case 'x': {
            char *end;
            t++;
            *o++ = (char)strtol(t, &end, 16);
            t = end;
            break;
        }
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
            if (t[1] >= '0' && t[1] <= '7' && t[2] >= '0' && t[2] <= '7') {
                *o++ = (char)(((t[0] - '0') << 6) | ((t[1] - '0') << 3) | (t[2] - '0'));
                t += 3;
            } else {
                *o++ = *t++;
            }
            break;
        case '\0':
            break;
        default:
            *o++ = *t++;  /* any other escaped character stands for itself */
            break;
        }
    }
    *o = '\0';
}

/* Upstream's conversion of one attribute value string to a number. */
static void
cvtnum(const char *s, long long *ll, double *dv)
{
    size_t slen = strlen(s);
    int nread = 0;
    long long l = 0;
    double d = 0;
    if (sscanf(s, "%lld%n", &l, &nread) == 1 && (size_t)nread == slen) {
        *ll = l;
        *dv = (double)l;
        return;
    }
    nread = 0;
    if (sscanf(s, "%lg%n", &d, &nread) == 1 && (size_t)nread == slen) {
        /* as a C cast on x86: out of range and NaN give LLONG_MIN */
        *ll = (isfinite(d) && d > -9.2e18 && d < 9.2e18) ? (long long)d : LLONG_MIN;
        *dv = d;
        return;
    }
    *ll = l;  /* what a partial integer scan left, else 0 */
    *dv = (double)l;
}

static int
put_attribute(int subid, int varid, const D2att *a, int atype_dap)
{
    int stat;
    if (atype_dap == D2_STRING || atype_dap == D2_URL) {
        size_t len = 0;
        char *s;
        for (size_t i = 0; i < a->nvalues; i++)
            len += strlen(a->values[i]) + 1;
        if ((s = malloc(len + 1)) == NULL)
            return NC_ENOMEM;
        s[0] = '\0';
        len = 0;
        for (size_t i = 0; i < a->nvalues; i++) {
            size_t l = strlen(a->values[i]);
            if (i > 0)
                s[len++] = '\n';
            memcpy(s + len, a->values[i], l);
            len += l;
        }
        s[len] = '\0';
        expand_escapes(s);
        len = strlen(s);
        stat = nc_put_att_text(subid, varid, a->name, len ? len : 1, s);
        free(s);
        return stat;
    }
    nc_type atype = d2_nctype(atype_dap);
    size_t n = a->nvalues;
    unsigned char *mem = NULL;
    size_t es = atype == NC_CHAR || atype == NC_BYTE ? 1 : atype == NC_SHORT ? 2
              : atype == NC_DOUBLE ? 8 : 4;
    if (n > 0 && (mem = calloc(n, es)) == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *s = a->values[i];
        long long ll;
        double dv;
        if (atype == NC_CHAR) {
            if (strlen(s) != 1) {
                free(mem);
                return NC_ETRANSLATION;
            }
            mem[i] = (unsigned char)s[0];
            continue;
        }
        cvtnum(s, &ll, &dv);
        switch (atype) {
        case NC_BYTE: { signed char v = (signed char)ll; memcpy(mem + i, &v, 1); break; }
        case NC_SHORT: { short v = (short)ll; memcpy(mem + 2 * i, &v, 2); break; }
        case NC_INT: { int v = (int)ll; memcpy(mem + 4 * i, &v, 4); break; }
        case NC_FLOAT: { float v = (float)dv; memcpy(mem + 4 * i, &v, 4); break; }
        default: memcpy(mem + 8 * i, &dv, 8); break;
        }
    }
    stat = nc_put_att(subid, varid, a->name, atype, n, mem);
    free(mem);
    return stat;
}

/* ---- the build ------------------------------------------------------------------------------- */

/* DAP2's String and Url are one type here, as in upstream's mapping. */
static int
same_daptype(int a, int b)
{
    if (a == D2_URL)
        a = D2_STRING;
    if (b == D2_URL)
        b = D2_STRING;
    return a == b;
}

/* A variable's attributes, with upstream's _FillValue rules: a _FillValue
 * whose type differs from the variable's takes the variable's type
 * ("fillmismatch", the default) or fails the open with NC_EBADTYPE
 * ("nofillmismatch"); an Int16 _FillValue of a Byte variable with
 * _Unsigned false (or 0) is a byte, and _Unsigned becomes "false". */
static int
var_attributes(D2file *f, D2node *v, int varid)
{
    int stat;
    D2att *unsignedatt = NULL;
    int unsignedval = 0;
    for (size_t j = 0; j < v->natts; j++) {
        if (strcmp(v->atts[j].name, "_Unsigned") == 0) {
            const char *val = v->atts[j].nvalues ? v->atts[j].values[0] : NULL;
            unsignedatt = &v->atts[j];
            unsignedval = val != NULL && strcasecmp(val, "false") != 0 && strcmp(val, "0") != 0;
            break;
        }
    }
    for (size_t j = 0; j < v->natts; j++) {
        D2att *a = &v->atts[j];
        int atype = a->atype;
        if (strcmp(a->name, "_FillValue") == 0) {
            if (v->atype == D2_BYTE && a->atype == D2_INT16 && unsignedatt != NULL
                && !unsignedval) {
                char *t = strdup("false");
                if (t == NULL)
                    return NC_ENOMEM;
                atype = D2_BYTE;
                if (unsignedatt->nvalues > 0) {
                    /* the first value goes, "false" comes last */
                    free(unsignedatt->values[0]);
                    memmove(unsignedatt->values, unsignedatt->values + 1,
                            (unsignedatt->nvalues - 1) * sizeof(char *));
                    unsignedatt->values[unsignedatt->nvalues - 1] = t;
                } else {
                    char **nv = realloc(unsignedatt->values, sizeof *nv);
                    if (nv == NULL) {
                        free(t);
                        return NC_ENOMEM;
                    }
                    unsignedatt->values = nv;
                    nv[0] = t;
                    unsignedatt->nvalues = 1;
                }
            } else if (!same_daptype(a->atype, v->atype)) {
                if (!f->fillmismatch)
                    return NC_EBADTYPE;
                atype = v->atype;
            }
        }
        if ((stat = put_attribute(f->subid, varid, a, atype)))
            return stat;
    }
    return NC_NOERR;
}

static int
isgridarray(const D2node *n)
{
    return n->parent && n->parent->kind == D2_GRID && n->parent->fields[0] == n;
}

static int
isgridmap(const D2node *n)
{
    return n->parent && n->parent->kind == D2_GRID && n->parent->fields[0] != n;
}

static int
cmpdimname(const void *a, const void *b)
{
    const D2cdim *x = *(D2cdim *const *)a, *y = *(D2cdim *const *)b;
    return strcmp(x->ncname, y->ncname);
}

/* Reads a DODS special attribute as upstream does. */
static void
dods_specials(D2file *f, D2node *n, char **recdimname)
{
    D2nm *m = NM(n);
    for (size_t i = 0; i < n->natts; i++) {
        const D2att *a = &n->atts[i];
        if (strcmp(a->name, "DODS.strlen") == 0 || strcmp(a->name, "DODS_EXTRA.strlen") == 0) {
            unsigned v = 0;
            if (a->nvalues > 0 && sscanf(a->values[0], "%u", &v) != 1)
                v = 0;
            m->maxstrlen = v;
        } else if (strcmp(a->name, "DODS.dimName") == 0
                   || strcmp(a->name, "DODS_EXTRA.dimName") == 0) {
            free(m->dimname);
            m->dimname = a->nvalues > 0 ? strdup(a->values[0]) : NULL;
        } else if (strcmp(a->name, "DODS.Unlimited_Dimension") == 0
                   || strcmp(a->name, "DODS_EXTRA.Unlimited_Dimension") == 0) {
            if (*recdimname == NULL && a->nvalues > 0)
                *recdimname = a->values[0];
        }
    }
    (void)f;
}

static size_t
param_size(const D2file *f, const char *key)
{
    const char *v = d2_param(f, key);
    int len = 0;
    if (v != NULL && *v && sscanf(v, "%d", &len) == 1 && len > 0)
        return (size_t)len;
    return 0;
}

int
d2_build(D2file *f)
{
    int stat = NC_NOERR;
    List all = {0}, vars = {0}, basedims = {0};
    char *recdimname = NULL;
    D2cdim *globalsdim = NULL, *recdim = NULL;
    char tmp[NC_MAX_NAME + 64];

    if ((stat = attach_maps(f, f->dds, &all)))
        goto done;
    /* 1. the variables */
    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; i < all.n; i++) {
            D2node *n = all.v[i];
            if (n->kind != D2_ATOMIC || NM(n)->isvar)
                continue;
            int top = n->parent && n->parent->kind == D2_DATASET;
            if ((pass == 0 && top) || (pass == 1 && isgridarray(n))
                || (pass == 2 && !isgridmap(n))) {
                NM(n)->isvar = 1;
                if ((stat = lpush(&vars, n)))
                    goto done;
            } else if (pass == 1 && isgridmap(n)) {
                NM(n)->isvar = -1;  /* grid maps are not variables */
            }
        }
    }
    /* 2. grids */
    for (size_t i = 0; i < all.n; i++) {
        D2node *n = all.v[i];
        if (n->kind == D2_GRID && n->nfields > 0 && (stat = fixgrid(n)))
            goto done;
    }
    /* 3. sequences: usable ones, and members of the others dropped */
    seqcheck(f->dds, NULL, &vars);
    for (size_t i = vars.n; i-- > 0;) {
        D2node *v = vars.v[i];
        for (D2node *p = v->parent; p && p->kind != D2_DATASET; p = p->parent) {
            if (p->kind == D2_SEQUENCE && !NM(p)->usesequence) {
                memmove(vars.v + i, vars.v + i + 1, (vars.n - i - 1) * sizeof(void *));
                vars.n--;
                break;
            }
        }
    }
    /* DODS special attributes and client parameters */
    for (size_t i = 0; i < all.n; i++)
        dods_specials(f, all.v[i], &recdimname);
    f->defaultstrlen = param_size(f, "stringlength");
    if (f->defaultstrlen == 0)
        f->defaultstrlen = param_size(f, "maxstrlen");
    if (f->defaultstrlen == 0)
        f->defaultstrlen = 64;
    for (size_t i = 0; i < vars.n; i++) {
        D2node *v = vars.v[i];
        char *path = d2_fullname(v);
        char key[NC_MAX_NAME + 32];
        if (path == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        snprintf(key, sizeof key, "stringlength_%.*s", NC_MAX_NAME, path);
        NM(v)->userstrlen = param_size(f, key);
        if (NM(v)->userstrlen == 0) {
            snprintf(key, sizeof key, "maxstrlen_%.*s", NC_MAX_NAME, path);
            NM(v)->userstrlen = param_size(f, key);
        }
        free(path);
    }
    /* 4. string dimensions */
    snprintf(tmp, sizeof tmp, "maxStrlen%lu", (unsigned long)f->defaultstrlen);
    if ((globalsdim = newdim(f, tmp, f->defaultstrlen, f->dds)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    globalsdim->isstring = 1;
    for (size_t i = 0; i < vars.n; i++) {
        D2node *v = vars.v[i];
        D2nm *m = NM(v);
        size_t sz;
        if (v->atype != D2_STRING && v->atype != D2_URL)
            continue;
        sz = m->maxstrlen > 0 ? m->maxstrlen : m->userstrlen;
        if (sz == 0) {
            m->stringdim = globalsdim;
            continue;
        }
        if (m->dimname)
            snprintf(tmp, sizeof tmp, "%.*s", NC_MAX_NAME, m->dimname);
        else
            snprintf(tmp, sizeof tmp, "maxStrlen%lu", (unsigned long)sz);
        if ((m->stringdim = newdim(f, tmp, sz, v)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        m->stringdim->isstring = 1;
    }
    /* 3b. sequence dimensions */
    for (size_t i = 0; i < all.n; i++) {
        D2node *s = all.v[i];
        size_t count = 0;
        int usable = 1;
        if (s->kind != D2_SEQUENCE)
            continue;
        for (D2node *c = s->parent; c && c->kind != D2_DATASET; c = c->parent)
            if (c->kind != D2_STRUCTURE || NM(c)->nd0 > 0) {
                usable = 0;
                break;
            }
        if (usable && d2_param(f, "noseqdims") == NULL) {
            int s2 = seqcount(f, s, &count);
            if (s2 == NC_ENOMEM) {
                stat = s2;
                goto done;
            }
            if (s2)
                usable = 0;
        } else if (usable) {
            count = 1;
        }
        if (usable) {
            if ((NM(s)->seqdim = newdim(f, s->name, count, s)) == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            NM(s)->seqdim->isseq = 1;
        }
    }
    /* 5. dimension sets */
    if ((stat = dimsets(f, f->dds)))
        goto done;
    for (size_t i = 0; i < vars.n; i++) {
        D2node *v = vars.v[i];
        /* upstream names anonymous dimensions after the variable's path
         * computed before the grid renaming */
        D2node *g = isgridarray(v) ? v->parent : NULL;
        char *saved = NULL;
        if (g) {
            saved = NM(v)->basename;
            if ((NM(v)->basename = legalname(v->name)) == NULL) {
                NM(v)->basename = saved;
                stat = NC_ENOMEM;
                goto done;
            }
        }
        NM(v)->fullname0 = pathname(v, 0);
        if (g) {
            free(NM(v)->basename);
            NM(v)->basename = saved;
        }
        if (NM(v)->fullname0 == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
    }
    /* 6. dimension names */
    if ((stat = dimnames(f, &vars, &basedims)))
        goto done;
    /* 7. zero-length dimensions hide a variable */
    for (size_t i = 0; i < vars.n; i++) {
        D2nm *m = NM((D2node *)vars.v[i]);
        for (size_t j = m->ndall - m->ndplus; j < m->ndall; j++)
            if (m->dimsetall[j]->size == 0)
                m->invisible = 1;
    }
    if (recdimname != NULL) {
        for (size_t i = 0; i < basedims.n; i++) {
            D2cdim *d = basedims.v[i];
            if (d->ocname && strcmp(d->ocname, recdimname) == 0) {
                recdim = d;
                break;
            }
        }
    }
    /* 8. variables with the same path and shape are one */
    for (size_t i = 0; i < vars.n; i++) {
        D2node *v = vars.v[i];
        for (size_t j = 0; j < i; j++) {
            D2node *t = vars.v[j];
            D2nm *vm = NM(v), *tm = NM(t);
            int match = 1;
            if (tm->basevar)
                continue;
            char *a = pathname(v, 0), *b = pathname(t, 0);
            if (a == NULL || b == NULL) {
                free(a);
                free(b);
                stat = NC_ENOMEM;
                goto done;
            }
            if (strcmp(a, b) != 0 || vm->ndall != tm->ndall)
                match = 0;
            for (size_t d = 0; match && d < vm->ndall; d++)
                if (vm->dimsetall[d]->size != tm->dimsetall[d]->size)
                    match = 0;
            free(a);
            free(b);
            if (match)
                tm->basevar = v;
        }
    }
    /* the substrate: global attributes, dimensions, variables */
    for (size_t i = 0; i < f->dds->natts; i++)
        if ((stat = put_attribute(f->subid, NC_GLOBAL, &f->dds->atts[i], f->dds->atts[i].atype)))
            goto done;
    if (basedims.n > 1)
        qsort(basedims.v, basedims.n, sizeof(void *), cmpdimname);
    f->recdimid = -1;
    if (recdim != NULL) {
        if ((stat = nc_def_dim(f->subid, recdim->ncname, NC_UNLIMITED, &recdim->dimid)))
            goto done;
        f->recdimid = recdim->dimid;
        f->numrecs = recdim->size;
    }
    for (size_t i = 0; i < basedims.n; i++) {
        D2cdim *d = basedims.v[i];
        if (d == recdim)
            continue;
        if ((stat = nc_def_dim(f->subid, d->ncname, d->size, &d->dimid)))
            goto done;
    }
    if (vars.n > 0 && (f->vars = calloc(vars.n, sizeof *f->vars)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < vars.n; i++) {
        D2node *v = vars.v[i];
        D2nm *m = NM(v);
        D2var *dv;
        int dimids[NC_MAX_VAR_DIMS];
        char *name;
        if (m->invisible || m->basevar)
            continue;
        if (m->ndall > NC_MAX_VAR_DIMS) {
            stat = NC_EMAXDIMS;
            goto done;
        }
        for (size_t j = 0; j < m->ndall; j++)
            dimids[j] = m->dimsetall[j]->dimid;
        if ((name = pathname(v, 1)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        dv = &f->vars[f->nvars];
        dv->node = v;
        dv->type = d2_nctype(v->atype);
        stat = nc_def_var(f->subid, name, dv->type, (int)m->ndall, dimids, &dv->varid);
        free(name);
        if (stat)
            goto done;
        dv->ndims = m->ndall;
        if (m->ndall > 0 && (dv->dims = calloc(m->ndall, sizeof *dv->dims)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        if (m->ndall > 0)
            memcpy(dv->dims, m->dimsetall, m->ndall * sizeof *dv->dims);
        dv->isstring = m->stringdim != NULL;
        dv->strlen = m->stringdim ? m->stringdim->size : 0;
        dv->nelems = 1;
        for (size_t j = 0; j + (dv->isstring ? 1 : 0) < m->ndall; j++) {
            size_t sz = m->dimsetall[j] == recdim ? f->numrecs : m->dimsetall[j]->size;
            dv->nelems = sz > 0 && dv->nelems > SIZE_MAX / sz ? SIZE_MAX : dv->nelems * sz;
        }
        f->nvars++;
        if ((stat = var_attributes(f, v, dv->varid)))
            goto done;
    }
done:
    free(all.v);
    free(vars.v);
    free(basedims.v);
    return stat;
}
