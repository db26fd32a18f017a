/* dap2dispatch.c: the DAP2 layer's dispatch table, open/close and reads.
 *
 * Inquiries go to the in-memory classic substrate through its own dispatch
 * table (libdispatch's substrate forwarding, dsubstrate.h, as upstream's
 * NCDISPATCH_* forwarding does), so every answer and error is the classic
 * layer's; group ids it returns are translated back to ours.  The record
 * dimension's length is ours (the substrate never holds data).  Reads are
 * served from the decoded responses.  Every modifying call is NC_EPERM.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncdispatch.h"
#include "dsubstrate.h"
#include "ncx.h"
#include "dap2int.h"

/* ---- the substrate ------------------------------------------------------------- */

static int
d2_get(int ncid, D2file **fp, NC **subp)
{
    void *state;
    int stat = NC_substrate_get(ncid, &state, subp);
    if (stat == NC_NOERR)
        *fp = state;
    return stat;
}

#define SUB(ncid)                                   \
    D2file *f;                                      \
    NC *sub;                                        \
    int stat = d2_get((ncid), &f, &sub);            \
    if (stat)                                       \
        return stat

static void
d2_free(D2file *f)
{
    if (f == NULL)
        return;
    d2_meta_free(f);
    d2_remote_close(f);
    d2_node_free(f->prefetchresp);
    for (size_t i = 0; i < f->ncached; i++)
        d2_node_free(f->cached[i].resp);
    free(f->cached);
    d2_node_free(f->dds);
    d2_das_free(f->das);
    d2_node_free(f->data);
    free(f->dods);
    free(f->base);
    free(f->query);
    d2_projs_free(f);
    d2_params_free(f);
    if (f->haslock)
        pthread_mutex_destroy(&f->lock);
    free(f);
}

/* ---- open and close ------------------------------------------------------------ */

/* A size parameter with an optional K, M or G suffix (upstream's
 * getlimitnumber); 0 when absent or not a number. */
static size_t
limit_param(const D2file *f, const char *key)
{
    const char *v = d2_param(f, key);
    unsigned long long n = 0, mult = 1;
    size_t len;
    if (v == NULL || (len = strlen(v)) == 0)
        return 0;
    switch (v[len - 1]) {
    case 'G': case 'g': mult = 1ull << 30; break;
    case 'M': case 'm': mult = 1ull << 20; break;
    case 'K': case 'k': mult = 1ull << 10; break;
    default: break;
    }
    if (sscanf(v, "%llu", &n) != 1 || n > SIZE_MAX / mult)
        return 0;
    return (size_t)(n * mult);
}

/* Upstream's defaults and the client parameters that change them: lazy
 * prefetch of variables of at most 4096 values, a cache of whole-variable
 * responses of at most 100 entries and 100 MiB. */
static void
controls(D2file *f)
{
    size_t n;
    f->cache = 1;
    f->prefetch = 1;
    if (d2_param_check(f, "cache", NULL))
        f->cache = 1;
    else if (d2_param_check(f, "nocache", NULL))
        f->cache = 0;
    if (d2_param_check(f, "noprefetch", NULL) && !d2_param_check(f, "prefetch", NULL))
        f->prefetch = 0;
    f->fillmismatch = 1;
    if (d2_param_check(f, "nofillmismatch", NULL) && !d2_param_check(f, "fillmismatch", NULL))
        f->fillmismatch = 0;
    f->smalllimit = (n = limit_param(f, "smallsizelimit")) ? n : 4096;
    f->cachelimit = (n = limit_param(f, "cachelimit")) ? n : (size_t)100 << 20;
    f->cachecount = (n = limit_param(f, "cachecount")) ? n : 100;
}

static int
D2_open(const char *path, int mode, int basepe, size_t *chunksizehintp, void *parameters,
        const NC_Dispatch *table, int ncid)
{
    int stat;
    NC *nc;
    D2file *f = NULL;
    char *text = NULL;
    size_t len = 0;
    char subname[64];

    (void)basepe;
    (void)chunksizehintp;
    (void)parameters;
    (void)table;
    if (mode & NC_WRITE)
        return NC_EPERM;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if ((f = calloc(1, sizeof *f)) == NULL)
        return NC_ENOMEM;
    f->ncid = ncid;
    f->subid = -1;
    f->recdimid = -1;
    if (pthread_mutex_init(&f->lock, NULL) != 0) {
        free(f);
        return NC_ENOMEM;
    }
    f->haslock = 1;
    if ((stat = d2_url_parse(path, f)))
        goto done;
    controls(f);
    if (f->query != NULL) {
        /* file:// datasets take no constraint (upstream: NC_EDAPCONSTRAINT) */
        if (f->isfile) {
            stat = NC_EDAPCONSTRAINT;
            goto done;
        }
        if ((stat = d2_parse_constraint(f)))
            goto done;
    }
    if (!f->isfile && (stat = d2_remote_open(f)))
        goto done;
    /* the DDS: NAME.dds, else the DDS part of NAME.dods */
    stat = d2_fetch_text(f, "dds", &text, &len);
    if (stat == ENOENT) {
        if ((stat = d2_load_data(f)))
            goto done;
        size_t off;
        if ((stat = d2_find_data(f->dods, f->dodslen, &off)))
            goto done;
        stat = d2_parse_dds((const char *)f->dods, off, &f->dds, NULL);
    } else if (stat == NC_NOERR) {
        stat = d2_parse_dds(text, len, &f->dds, NULL);
    }
    free(text);
    text = NULL;
    if (stat)
        goto done;
    /* the DAS is optional, and a malformed one is ignored, as upstream */
    if (d2_fetch_text(f, "das", &text, &len) == NC_NOERR) {
        if (d2_parse_das(text, len, &f->das, NULL) != NC_NOERR)
            f->das = NULL;
        free(text);
        text = NULL;
    }
    if (f->das && f->query && !f->isfile) {
        /* As upstream: the DAS meets the unconstrained DDS first, so that
         * attributes of variables the constraint leaves out do not come
         * back as global attributes. */
        D2node *pattern = NULL;
        char *q = f->query;
        f->query = NULL;
        stat = d2_fetch_text(f, "dds", &text, &len);
        f->query = q;
        if (stat == NC_NOERR && (stat = d2_parse_dds(text, len, &pattern, NULL)) == NC_NOERR)
            stat = d2_merge_das(pattern, f->das);
        d2_node_free(pattern);
        free(text);
        text = NULL;
        if (stat)
            goto done;
    }
    if (f->das && (stat = d2_merge_das(f->dds, f->das)))
        goto done;
    /* the substrate: an in-memory classic file, never written */
    snprintf(subname, sizeof subname, "dap2-substrate-%d", ncid);
    if ((stat = nc_create(subname, NC_DISKLESS | NC_64BIT_OFFSET | NC_CLOBBER, &f->subid))) {
        f->subid = -1;
        goto done;
    }
    nc_set_fill(f->subid, NC_NOFILL, NULL);
    if ((stat = d2_build(f)))
        goto done;
    if ((stat = NC_substrate_attach(nc, ncid, f->subid, f, &f->recdimid, &f->numrecs)))
        goto done;
    return NC_NOERR;
done:
    free(text);
    if (f && f->subid >= 0)
        nc_abort(f->subid);
    d2_free(f);
    return stat;
}

static int
D2_close(int ncid, void *ignore)
{
    NC *nc;
    int stat;
    (void)ignore;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    D2file *f = NC_substrate_detach(nc);
    if (f != NULL) {
        if (f->subid >= 0)
            nc_abort(f->subid);
        d2_free(f);
    }
    return NC_NOERR;
}

static int
D2_abort(int ncid)
{
    return D2_close(ncid, NULL);
}

/* ---- inquiries ------------------------------------------------------------------ */

static int
D2_inq_format(int ncid, int *formatp)
{
    SUB(ncid);
    (void)f;
    (void)sub;
    if (formatp)
        *formatp = NC_FORMAT_CLASSIC;
    return NC_NOERR;
}

static int
D2_inq_format_extended(int ncid, int *formatp, int *modep)
{
    NC *nc;
    int stat;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (formatp)
        *formatp = NC_FORMATX_DAP2;
    if (modep)
        *modep = nc->mode;
    return NC_NOERR;
}

/* ---- reads ----------------------------------------------------------------------- */

/* The node of a decoded response (root) that holds a variable's values.
 * A Grid may come back as a Structure (a partial grid). */
static int
find_node(D2node *root, const D2node *v, D2node **np)
{
    const D2node *path[D2_MAX_DEPTH + 2];
    size_t depth = 0;
    D2node *d;

    for (const D2node *p = v; p && p->kind != D2_DATASET; p = p->parent) {
        if (depth >= D2_MAX_DEPTH + 1)
            return NC_EDATADDS;
        path[depth++] = p;
    }
    d = root;
    while (depth > 0) {
        const D2node *want = path[--depth];
        D2node *found = NULL;
        for (size_t i = 0; i < d->nfields && !found; i++)
            if (strcmp(d->fields[i]->name, want->name) == 0)
                found = d->fields[i];
        if (found == NULL)
            return NC_EDATADDS;
        if (found->kind != want->kind
            && !((found->kind == D2_GRID || found->kind == D2_STRUCTURE)
                 && (want->kind == D2_GRID || want->kind == D2_STRUCTURE)))
            return NC_EDATADDS;
        d = found;
    }
    if (d->kind != D2_ATOMIC || d->atype != v->atype)
        return NC_EDATADDS;
    *np = d;
    return NC_NOERR;
}

/* Copies the selection (start, count, stride over shape, the nd
 * non-string dimensions) of a column into out, in the variable's type;
 * string variables give, for each string, the characters sstart,
 * sstart+sstride, ... (scount of them, NUL past its end). */
static void
gather(const D2node *col, size_t nd, const size_t *shape, const size_t *start,
       const size_t *count, const ptrdiff_t *stride, int isstring, size_t sstart,
       size_t scount, ptrdiff_t sstride, size_t es, unsigned char *out)
{
    size_t idx[NC_MAX_VAR_DIMS];
    size_t inner = nd > 0 ? count[nd - 1] : 1;
    size_t istride = nd > 0 ? (size_t)stride[nd - 1] : 1;

    memset(idx, 0, sizeof idx);
    for (;;) {
        size_t off = 0;
        for (size_t i = 0; i < nd; i++)
            off = off * shape[i] + start[i] + (i + 1 < nd ? idx[i] * (size_t)stride[i] : 0);
        if (!isstring && istride == 1) {
            /* a contiguous row: one copy */
            memcpy(out, (const unsigned char *)col->col + off * es, inner * es);
            out += inner * es;
        } else if (isstring) {
            for (size_t k = 0; k < inner; k++) {
                const char *str = ((char **)col->col)[off + k * istride];
                size_t sl = strlen(str);
                for (size_t c = 0; c < scount; c++) {
                    size_t ci = sstart + c * (size_t)sstride;
                    *out++ = (unsigned char)(ci < sl ? str[ci] : '\0');
                }
            }
        } else {
            /* strided: fixed-size copies the compiler turns into moves */
            const unsigned char *src = (const unsigned char *)col->col + off * es;
#define D2_STRIDED(N)                                              \
    for (size_t k = 0; k < inner; k++, out += N, src += istride * N) \
        memcpy(out, src, N)
            switch (es) {
            case 1: D2_STRIDED(1); break;
            case 2: D2_STRIDED(2); break;
            case 4: D2_STRIDED(4); break;
            default: D2_STRIDED(8); break;
            }
#undef D2_STRIDED
        }
        size_t i = nd > 0 ? nd - 1 : 0;
        while (i > 0) {
            if (++idx[i - 1] < count[i - 1])
                break;
            idx[i - 1] = 0;
            i--;
        }
        if (i == 0)
            break;
    }
}

/* How a read of v over http is asked for (upstream's fetch projection):
 * D2_ASK_SLAB: one constraint selects exactly the values asked for (the
 * hyperslab on v and on the structure arrays above it); D2_ASK_WHOLE: a
 * member of a sequence, asked for whole (servers select no records by
 * index); D2_ASK_DODS: the whole response (a sequence nested in a sequence
 * or in an array, or a structure array under a constraint in the URL, whose
 * indices the URL's constraint has already shifted). */
enum { D2_ASK_SLAB, D2_ASK_WHOLE, D2_ASK_DODS };

static int
ask_kind(const D2file *f, const D2node *v)
{
    int nseq = 0, arrays = 0, arrayabove = 0;
    for (const D2node *p = v->parent; p && p->kind != D2_DATASET; p = p->parent) {
        if (p->kind == D2_SEQUENCE)
            nseq++;
        else if (p->kind == D2_STRUCTURE && p->rank > 0) {
            arrays++;
            if (nseq > 0)
                arrayabove = 1;
        }
    }
    if (nseq > 1 || arrayabove || (arrays > 0 && f->query != NULL))
        return D2_ASK_DODS;
    return nseq == 1 ? D2_ASK_WHOLE : D2_ASK_SLAB;
}

/* The lazy prefetch (upstream's rule): at the first read, one request for
 * every variable outside sequences with at most smalllimit values, whole. */
static int
prefetch(D2file *f)
{
    int stat;
    const D2node **vars;
    size_t n = 0;
    f->prefetched = 1;
    if ((vars = calloc(f->nvars ? f->nvars : 1, sizeof *vars)) == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < f->nvars; i++) {
        D2var *v = &f->vars[i];
        int inseq = 0;
        for (const D2node *p = v->node->parent; p; p = p->parent)
            if (p->kind == D2_SEQUENCE)
                inseq = 1;
        if (!inseq && v->nelems <= f->smalllimit)
            vars[n++] = v->node;
    }
    stat = n ? d2_fetch_vars(f, vars, n, 0, NULL, NULL, NULL, &f->prefetchresp, NULL) : NC_NOERR;
    free(vars);
    if (stat)
        return stat;
    for (size_t i = 0; n && i < f->nvars; i++) {
        D2var *v = &f->vars[i];
        D2node *col;
        int inseq = 0;
        for (const D2node *p = v->node->parent; p; p = p->parent)
            if (p->kind == D2_SEQUENCE)
                inseq = 1;
        if (!inseq && v->nelems <= f->smalllimit
            && find_node(f->prefetchresp, v->node, &col) == NC_NOERR && col->ncol == v->nelems)
            v->inprefetch = 1;
    }
    return NC_NOERR;
}

/* The cached response holding v whole (made most recently used), or -1. */
static int
cache_find(D2file *f, const D2node *var, D2node **colp)
{
    for (size_t i = f->ncached; i-- > 0;) {
        if (f->cached[i].var == var) {
            D2cached c = f->cached[i];
            memmove(f->cached + i, f->cached + i + 1, (f->ncached - i - 1) * sizeof c);
            f->cached[f->ncached - 1] = c;  /* most recently used last */
            return find_node(c.resp, var, colp);
        }
    }
    return -1;
}

/* The column of a whole variable: from the response cache, else one
 * request (kept in the cache, least recently used responses dropped to
 * stay within cachecount and cachelimit).  A response larger than
 * cachelimit is not kept: it goes to *ownp, for the caller to free.
 * Called with f->lock held, which is released during the request: the
 * column of a cached response stays valid while the caller holds it. */
static int
cached_var(D2file *f, const D2var *v, D2node **colp, D2node **ownp)
{
    int stat;
    D2node *resp = NULL, *col;
    size_t size = 0;
    const D2node *one = v->node;
    if ((stat = cache_find(f, v->node, colp)) >= 0)
        return stat;
    pthread_mutex_unlock(&f->lock);
    stat = d2_fetch_vars(f, &one, 1, 0, NULL, NULL, NULL, &resp, &size);
    pthread_mutex_lock(&f->lock);
    if (stat)
        return stat;
    if ((stat = find_node(resp, v->node, &col)) || col->ncol != v->nelems) {
        d2_node_free(resp);
        return stat ? stat : NC_EDATADDS;
    }
    /* another thread may have kept the same variable meanwhile */
    if ((stat = cache_find(f, v->node, colp)) >= 0) {
        d2_node_free(resp);
        return stat;
    }
    if (size > f->cachelimit) {
        *ownp = resp;
        *colp = col;
        return NC_NOERR;
    }
    if ((stat = d2_cache_put(f, v->node, resp, size)))
        return stat;
    *colp = col;
    return NC_NOERR;
}

int
d2_cache_put(D2file *f, const D2node *var, D2node *resp, size_t size)
{
    if (!f->cache) {
        /* keep only the last response */
        for (size_t i = 0; i < f->ncached; i++)
            d2_node_free(f->cached[i].resp);
        f->ncached = 0;
        f->cachesize = 0;
    }
    while (f->ncached > 0
           && (f->cachesize + size > f->cachelimit || f->ncached + 1 > f->cachecount)) {
        f->cachesize -= f->cached[0].size;
        d2_node_free(f->cached[0].resp);
        memmove(f->cached, f->cached + 1, (f->ncached - 1) * sizeof *f->cached);
        f->ncached--;
    }
    D2cached *nc = realloc(f->cached, (f->ncached + 1) * sizeof *nc);
    if (nc == NULL) {
        d2_node_free(resp);
        return NC_ENOMEM;
    }
    f->cached = nc;
    f->cached[f->ncached].var = var;
    f->cached[f->ncached].resp = resp;
    f->cached[f->ncached].size = size;
    f->ncached++;
    f->cachesize += size;
    return NC_NOERR;
}

static int
D2_get_vars(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, void *value, nc_type memtype)
{
    D2var *v = NULL;
    D2node *col = NULL, *resp = NULL, *owned = NULL;
    size_t shape[NC_MAX_VAR_DIMS], zero[NC_MAX_VAR_DIMS];
    ptrdiff_t st[NC_MAX_VAR_DIMS], one[NC_MAX_VAR_DIMS];
    size_t nd, total = 1, es;
    unsigned char *tmp = NULL;
    int ask, locked = 0;
    SUB(ncid);
    (void)sub;

    for (size_t i = 0; i < f->nvars; i++)
        if (f->vars[i].varid == varid)
            v = &f->vars[i];
    if (v == NULL)
        return NC_ENOTVAR;
    if (memtype == NC_NAT)
        memtype = v->type;
    if ((memtype == NC_CHAR) != (v->type == NC_CHAR))
        return NC_ECHAR;
    if (memtype <= NC_NAT || memtype > NC_UINT64 || memtype == NC_STRING)
        return NC_EBADTYPE;
    for (size_t i = 0; i < v->ndims; i++) {
        int dimid = v->dims[i]->dimid;
        shape[i] = dimid == f->recdimid ? f->numrecs : v->dims[i]->size;
        st[i] = stride ? stride[i] : 1;
        zero[i] = 0;
        one[i] = 1;
        if (st[i] <= 0)
            return NC_ESTRIDE;
        if (start[i] > shape[i] || (start[i] == shape[i] && count[i] > 0))
            return NC_EINVALCOORDS;
        if (count[i] > 0 && count[i] - 1 > (shape[i] - start[i] - 1) / (size_t)st[i])
            return NC_EEDGE;  /* the last index would be beyond the dimension */
        if (count[i] > 0 && total > SIZE_MAX / 8 / count[i])
            return NC_EINVAL;  /* more values than memory can hold */
        total *= count[i];
    }
    if (total == 0)
        return NC_NOERR;
    nd = v->ndims - (v->isstring ? 1 : 0);
    es = ncx_memlen(v->type);
    if (!f->isfile && f->prefetch) {
        /* the first read of any thread makes the prefetch; the others wait */
        pthread_mutex_lock(&f->lock);
        if (!f->prefetched)
            stat = prefetch(f);
        pthread_mutex_unlock(&f->lock);
        if (stat)
            return stat;
    }
    if (v->inprefetch) {
        if ((stat = find_node(f->prefetchresp, v->node, &col)))
            return stat;
        if (col->ncol != v->nelems)
            return NC_EDATADDS;
    } else if (!f->isfile && (ask = ask_kind(f, v->node)) != D2_ASK_DODS) {
        int whole = 1;  /* "wholevar": always the whole variable, as upstream */
        for (size_t i = 0; i < nd && !f->wholevar && ask == D2_ASK_SLAB; i++)
            if (start[i] != 0 || count[i] != shape[i] || (count[i] > 1 && st[i] != 1))
                whole = 0;
        if (whole) {
            /* the cache's column is read under the lock (another thread's
             * put may drop it), the gather below included */
            pthread_mutex_lock(&f->lock);
            locked = 1;
            if ((stat = cached_var(f, v, &col, &owned)))
                goto done;
        }
        if (!whole) {
            /* one constrained request for exactly the selection, decoded
             * straight into the caller's buffer (or the conversion's) */
            if (memtype != v->type && (tmp = malloc(total * es)) == NULL)
                return NC_ENOMEM;
            if ((stat = d2_fetch_direct(f, v->node, nd, start, count, st, tmp ? tmp : value,
                                        total, &resp)))
                goto done;
            if (resp == NULL)
                goto convert;
            if ((stat = find_node(resp, v->node, &col)))
                goto done;
            size_t want = 1;
            for (size_t i = 0; i < nd; i++)
                want *= count[i];
            if (col->ncol != want) {
                stat = NC_EDATADDS;
                goto done;
            }
        }
    } else {
        /* loaded once, then only read */
        pthread_mutex_lock(&f->lock);
        stat = d2_load_data(f);
        pthread_mutex_unlock(&f->lock);
        if (stat)
            return stat;
        if ((stat = find_node(f->data, v->node, &col)))
            return stat;
        if (col->ncol != v->nelems)
            return NC_EDATADDS;
    }
    if (memtype != v->type && tmp == NULL && (tmp = malloc(total * es)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    if (resp != NULL)
        gather(col, nd, count, zero, count, one, v->isstring,
               v->isstring ? start[nd] : 0, v->isstring ? count[nd] : 0,
               v->isstring ? st[nd] : 1, es, tmp ? tmp : value);
    else
        gather(col, nd, shape, start, count, st, v->isstring,
               v->isstring ? start[nd] : 0, v->isstring ? count[nd] : 0,
               v->isstring ? st[nd] : 1, es, tmp ? tmp : value);
convert:
    if (locked) {
        pthread_mutex_unlock(&f->lock);
        locked = 0;
    }
    if (tmp != NULL)  /* as upstream: from the DAP type (Byte is unsigned) */
        stat = ncx_convert(d2_nativetype(v->node->atype), tmp, memtype, value, total);
done:
    if (locked)
        pthread_mutex_unlock(&f->lock);
    free(tmp);
    d2_node_free(resp);
    d2_node_free(owned);
    return stat;
}

static int
D2_get_vara(int ncid, int varid, const size_t *start, const size_t *count, void *value,
            nc_type memtype)
{
    return D2_get_vars(ncid, varid, start, count, NULL, value, memtype);
}

/* ---- start-up ------------------------------------------------------------------- */

static int
D2_initialize(void)
{
    return NC_NOERR;
}

static int
D2_finalize(void)
{
    return NC_NOERR;
}

static int
D2_var_par_access(int ncid, int varid, int par)
{
    (void)ncid;
    (void)varid;
    (void)par;
    return NC_ENOPAR;
}

static const NC_Dispatch D2_table = {
    .model = NC_FORMATX_DAP2,
    .dispatch_version = NC_DISPATCH_VERSION,
    NC_READONLY_SLOTS,
    .open = D2_open,
    .abort = D2_abort,
    .close = D2_close,
    .inq_format = D2_inq_format,
    .inq_format_extended = D2_inq_format_extended,
    NC_SUBSTRATE_SLOTS,
    .get_vara = D2_get_vara,
    .get_vars = D2_get_vars,
    .get_varm = NCDEFAULT_get_varm,
    .inq_var_all = NC_SUB_inq_var_all,
    .var_par_access = D2_var_par_access,
    NC_CLASSIC_MODEL_SLOTS,
};

const NC_Dispatch *NCD2_dispatch_table = &D2_table;
int NCD2_initialize(void) { return D2_initialize(); }
int NCD2_finalize(void) { return D2_finalize(); }
