/* d4dispatch.c: the DAP4 layer's dispatch table, open/close and reads.
 *
 * URLs (docs/dap4.md): dap4://host/path is http://host/path; an http(s)
 * URL with "#dap4", "#mode=dap4" or "#protocol=dap4"; file:///path/NAME
 * reads the recorded NAME.dmr and NAME.dap.  Parameters in the query or
 * the fragment: dap4.ce (or dap4.constraint), dap4.checksum=true|false
 * (true unless given false, as upstream), "hyrax" (checksums not checked);
 * their values are percent-decoded once (libdispatch/ncdapurl.h).
 *
 * Open reads the DMR only (one request).  A read of a variable over http
 * is one request, URL.dap?dap4.ce=/VAR[start:stride:last]..., whose slice
 * is kept in a small cache; the first read of a small variable (fixed-size
 * values, 64 bytes at most) fetches every small variable whole in one
 * request.  The user's constraint is parsed (d4ce.c): a bad one is
 * NC_EDAPCONSTRAINT before any request, and its normal form is what is
 * sent.  Over http, when it only picks variables and strided slices of
 * them, a read is still one request, its indices composed with the
 * constraint's slice; otherwise (filters, projections, dimension
 * redefinitions, slice lists) and for file:// URLs the whole data response
 * is decoded once and serves every read.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "ncdispatch.h"
#include "ncx.h"
#include "d4int.h"
#include "d4ce.h"
#include "ncdapurl.h"
#if NC_HAVE_HTTP
#include "nchttp.h"
#endif

#define D4_HTTP_PIECE (512L << 10) /* curl's receive buffer for this client's sessions */

/* ---- URL ------------------------------------------------------------------------- */

/* The dataset and the parameters DAP4 reads (libdispatch/ncdapurl.h): the
 * query's pairs and the fragment's; dap4.ce before dap4.constraint. */
static int
url_parse(const char *url, D4file *d)
{
    NCDAP_url u = {0};
    const char *v;
    int stat;

    if ((stat = ncdap_url_parse(url, &u)))
        return stat;
    if (u.query && (stat = ncdap_params_add(&u, u.query, strlen(u.query))))
        goto done;
    v = ncdap_param(&u, "dap4.ce");
    if (v == NULL)
        v = ncdap_param(&u, "dap4.constraint");
    if (v && v[0]) {
        /* checked and put in normal form before anything is fetched */
        char msg[160];
        if ((stat = d4ce_parse(v, strlen(v), &d->cep, msg, sizeof msg))) {
            if (stat == NC_EDAPCONSTRAINT)
                fprintf(stderr, "%s\n", msg);
            goto done;
        }
        if (d->cep->n == 0) {
            d4ce_free(d->cep);
            d->cep = NULL;
        } else if ((stat = d4ce_format(d->cep, &d->ce))) {
            goto done;
        }
    }
    /* upstream's rule: checksums on unless dap4.checksum=false; #hyrax:
     * the data carry them but they are not checked */
    v = ncdap_param(&u, "dap4.checksum");
    d->checksum = !(v && strcasecmp(v, "false") == 0);
    d->crc_ignore = ncdap_param(&u, "hyrax") != NULL;
    d->isfile = u.isfile;
    d->base = u.base;
    u.base = NULL;
done:
    ncdap_url_clear(&u);
    return stat;
}

/* ---- fetching --------------------------------------------------------------------- */

static int
read_file(const char *path, unsigned char **bufp, size_t *lenp)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    unsigned char *buf;
    if (fp == NULL)
        return ENOENT;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0
        || (unsigned long long)st.st_size > (1ULL << 40)) {
        fclose(fp);
        return ENOENT;
    }
    if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
        fclose(fp);
        return NC_ENOMEM;
    }
    size_t got = fread(buf, 1, (size_t)st.st_size, fp);
    fclose(fp);
    if (got != (size_t)st.st_size) {
        free(buf);
        return NC_EIO;
    }
    buf[got] = '\0';
    *bufp = buf;
    *lenp = got;
    return NC_NOERR;
}

/* The response "dmr" or "dap"; ce (raw, not encoded) goes in the query. */
static int
fetch(D4file *d, const char *ext, const char *ce, unsigned char **bufp, size_t *lenp)
{
    char *url = NULL, *enc = NULL;
    int stat;
    if (d->isfile) {
        size_t l = strlen(d->base) + strlen(ext) + 2;
        if ((url = malloc(l)) == NULL)
            return NC_ENOMEM;
        snprintf(url, l, "%s.%s", d->base, ext);
        stat = read_file(url, bufp, lenp);
        free(url);
        return stat == ENOENT ? NC_ENOTFOUND : stat;
    }
#if NC_HAVE_HTTP
    {
        size_t l;
        nch_buf b = {0};
        if (ce && (enc = ncdap_pct_encode(ce, "/")) == NULL)
            return NC_ENOMEM;
        l = strlen(d->base) + strlen(ext) + (enc ? strlen(enc) : 0) + 64;
        if ((url = malloc(l)) == NULL) {
            free(enc);
            return NC_ENOMEM;
        }
        snprintf(url, l, "%s.%s?%s%s%sdap4.checksum=%s", d->base, ext, enc ? "dap4.ce=" : "",
                 enc ? enc : "", enc ? "&" : "", d->checksum ? "true" : "false");
        stat = nch_get(d->http, url, &b);
        free(url);
        free(enc);
        if (stat) {
            nch_buf_free(&b);
            return stat;
        }
        *bufp = b.data;
        *lenp = b.len;
        return NC_NOERR;
    }
#else
    (void)ce;
    (void)enc;
    return NC_ENOTBUILT;
#endif
}

#if NC_HAVE_HTTP
/* A new session of the handle's set: data responses are decoded as they
 * arrive, so they come in large pieces. */
static int
session_setup(nch_session *s, void *arg)
{
    (void)arg;
    return nch_session_bufsize(s, D4_HTTP_PIECE);
}
#endif

/* The data response for the constraint ce (raw, not encoded), fed to r
 * as it arrives (a file:// one a block at a time); the transfer's own
 * outcome, for d4_resp_finish. */
#define D4_FILE_BLOCK (1u << 20)

static int
fetch_data(D4file *d, const char *ce, D4resp *r)
{
    char *url = NULL, *enc = NULL;
    int stat = NC_NOERR;
    if (d->isfile) {
        size_t l = strlen(d->base) + 8;
        FILE *fp;
        unsigned char *blk;
        if ((url = malloc(l)) == NULL)
            return NC_ENOMEM;
        snprintf(url, l, "%s.dap", d->base);
        fp = fopen(url, "rb");
        free(url);
        if (fp == NULL)
            return NC_ENOTFOUND;
        if ((blk = malloc(D4_FILE_BLOCK)) == NULL)
            stat = NC_ENOMEM;
        while (stat == NC_NOERR) {
            size_t got = fread(blk, 1, D4_FILE_BLOCK, fp);
            if (got > 0)
                stat = d4_resp_feed(r, blk, got);
            if (got < D4_FILE_BLOCK) {
                if (ferror(fp))
                    stat = NC_EIO;
                break;
            }
        }
        free(blk);
        fclose(fp);
        return stat;
    }
#if NC_HAVE_HTTP
    size_t l;
    if (ce && (enc = ncdap_pct_encode(ce, "/")) == NULL)
        return NC_ENOMEM;
    l = strlen(d->base) + (enc ? strlen(enc) : 0) + 64;
    if ((url = malloc(l)) == NULL) {
        free(enc);
        return NC_ENOMEM;
    }
    snprintf(url, l, "%s.dap?%s%s%sdap4.checksum=%s", d->base, enc ? "dap4.ce=" : "",
             enc ? enc : "", enc ? "&" : "", d->checksum ? "true" : "false");
    nch_session *sess = NULL;
    if ((stat = nch_sessions_take(d->sessions, &sess)) == NC_NOERR) {
        stat = nch_get_stream(sess, url, d4_resp_feed, r);
        nch_sessions_give(d->sessions, sess);
    }
    free(url);
    free(enc);
    return stat;
#else
    (void)ce;
    (void)enc;
    (void)url;
    return NC_ENOTBUILT;
#endif
}

/* Read the data response of ce: the values of the variables its DMR
 * lists, each handed to take(dv, values, nvals) (which owns them after);
 * nvals: values per variable when the response holds one slice (0: each
 * variable's whole shape); destvar's values go to dest. */
static int
get_data(D4file *d, const char *ce, size_t nvals, d4_take_fn take, void *arg, D4var *destvar,
         void *dest)
{
    D4resp r;
    d4_resp_init(&r, d, nvals, take, arg, destvar, dest);
    return d4_resp_finish(&r, fetch_data(d, ce, &r), NULL, NULL);
}

static int
take_whole(D4file *d, D4var *dv, void *vals, size_t nvals, void *arg)
{
    (void)arg;
    if (dv->whole) {
        nc4_reclaim_values(d->f, dv->var->xtype, dv->whole, dv->nwhole);
        free(dv->whole);
    }
    dv->whole = vals;
    dv->nwhole = nvals;
    return NC_NOERR;
}

/* file:// (or the user's constraint): the whole response, once.  Called
 * with d->lock held: other readers wait for it. */
static int
load_all(D4file *d)
{
    int stat;
    if (d->loaded)
        return NC_NOERR;
    stat = get_data(d, d->ce, 0, take_whole, NULL, NULL, NULL);
    if (stat == NC_NOERR)
        d->loaded = 1;
    return stat;
}

/* ---- small variables together (http) ------------------------------------------------ */

/* Whole variables of fixed-size types up to this many bytes are fetched
 * together, in one request, the first time one of them is read. */
#define D4_SMALL_BYTES 64

static int
is_small(D4file *d, const D4var *dv)
{
    if (nc4_type_has_pointers(d->f, dv->var->xtype))
        return 0;
    size_t n = d4_var_nvals(dv->var), size = nc4_type_size(d->f, dv->var->xtype);
    return size > 0 && n <= D4_SMALL_BYTES / size;
}

/* One request for every small variable not yet held: /a;/b;...  Called
 * with d->lock held. */
static int
prefetch_small(D4file *d)
{
    size_t cap = 1, l = 0;
    char *ce;
    int stat;

    d->prefetched = 1;
    for (size_t i = 0; i < d->nvars; i++)
        if (d->vars[i].whole == NULL && is_small(d, &d->vars[i]))
            cap += strlen(d->vars[i].fqn) + 1;
    if (cap == 1)
        return NC_NOERR;
    if ((ce = malloc(cap)) == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < d->nvars; i++)
        if (d->vars[i].whole == NULL && is_small(d, &d->vars[i]))
            l += (size_t)snprintf(ce + l, cap - l, "%s%s", l ? ";" : "", d->vars[i].fqn);
    stat = get_data(d, ce, 0, take_whole, NULL, NULL, NULL);
    free(ce);
    return stat;
}

/* A read larger than the slice cache: the slice decoded straight into the
 * caller's buffer (values of a type without pointers, read in their own
 * type), not kept. */
typedef struct DirectArg {
    D4var *want;
    void *dest;
    int got;
} DirectArg;

static int
take_direct(D4file *d, D4var *dv, void *vals, size_t nvals, void *arg)
{
    DirectArg *a = arg;
    if (dv != a->want || vals != a->dest || a->got) {
        if (vals != a->dest) {
            nc4_reclaim_values(d->f, dv->var->xtype, vals, nvals);
            free(vals);
        }
        return NC_EDAP;
    }
    a->got = 1;
    return NC_NOERR;
}

static int
read_direct(D4file *d, D4var *dv, const char *ce, size_t nvals, void *value)
{
    DirectArg a = {.want = dv, .dest = value};
    int stat = get_data(d, ce, nvals, take_direct, &a, dv, value);
    if (stat == NC_NOERR && !a.got)
        stat = NC_EDAP;
    return stat;
}

/* ---- the slice cache (http) ---------------------------------------------------------- */

static void
slice_free(D4file *d, D4slice *s)
{
    if (s->data) {
        nc4_reclaim_values(d->f, s->dv->var->xtype, s->data, s->nvals);
        free(s->data);
    }
    d->cachebytes -= s->bytes;
    free(s->ce);
    memset(s, 0, sizeof *s);
}

void
d4_cache_clear(D4file *d)
{
    for (size_t i = 0; i < D4_CACHE_ENTRIES; i++)
        if (d->cache[i].ce)
            slice_free(d, &d->cache[i]);
}

typedef struct SliceArg {
    D4var *want;
    void *vals;
    size_t nvals;
} SliceArg;

static int
take_slice(D4file *d, D4var *dv, void *vals, size_t nvals, void *arg)
{
    SliceArg *a = arg;
    if (dv != a->want || a->vals != NULL) {
        nc4_reclaim_values(d->f, dv->var->xtype, vals, nvals);
        free(vals);
        return NC_EDAP;
    }
    a->vals = vals;
    a->nvals = nvals;
    return NC_NOERR;
}

/* What a read hands its caller: nvals values of xtype at src, copied
 * (deep copies of pointer values) or converted from srctype to memtype. */
typedef struct Deliver {
    NC4_file *f;
    nc_type xtype, srctype, memtype;
    size_t size;
    void *value;
} Deliver;

static int
deliver(const Deliver *o, const void *src, size_t nvals)
{
    if (o->memtype != o->xtype)
        return ncx_convert(o->srctype, src, o->memtype, o->value, nvals);
    if (nc4_type_has_pointers(o->f, o->xtype))
        return nc4_copy_values(o->f, o->xtype, src, o->value, nvals);
    memcpy(o->value, src, nvals * o->size);
    return NC_NOERR;
}

/* The slice ce of dv (nvals values), from the cache or the server, handed
 * to the caller while nothing can drop it: a cached slice under d->lock,
 * a fetched one before it goes to the cache.  The request runs without
 * the lock, so threads reading different slices fetch at once. */
static int
get_slice(D4file *d, D4var *dv, const char *ce, size_t nvals, const Deliver *o)
{
    D4slice *slot = NULL;
    SliceArg a = {.want = dv};
    int stat, dstat;

    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < D4_CACHE_ENTRIES; i++) {
        if (d->cache[i].ce && strcmp(d->cache[i].ce, ce) == 0) {
            d->cache[i].stamp = ++d->clock;
            stat = deliver(o, d->cache[i].data, nvals);
            pthread_mutex_unlock(&d->lock);
            return stat;
        }
    }
    pthread_mutex_unlock(&d->lock);
    stat = get_data(d, ce, nvals, take_slice, &a, NULL, NULL);
    if (stat == NC_NOERR && (a.vals == NULL || a.nvals != nvals))
        stat = NC_EDAP;
    if (stat) {
        if (a.vals) {
            nc4_reclaim_values(d->f, dv->var->xtype, a.vals, a.nvals);
            free(a.vals);
        }
        return stat;
    }
    dstat = deliver(o, a.vals, nvals);
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < D4_CACHE_ENTRIES; i++) {
        if (d->cache[i].ce && strcmp(d->cache[i].ce, ce) == 0) {
            /* another thread fetched it meanwhile: keep that one */
            pthread_mutex_unlock(&d->lock);
            nc4_reclaim_values(d->f, dv->var->xtype, a.vals, nvals);
            free(a.vals);
            return dstat;
        }
    }
    /* the least recently used slot; older ones go while over the budget */
    size_t bytes = nvals * nc4_type_size(d->f, dv->var->xtype);
    for (size_t i = 0; i < D4_CACHE_ENTRIES; i++)
        if (slot == NULL || d->cache[i].ce == NULL || d->cache[i].stamp < slot->stamp) {
            slot = &d->cache[i];
            if (slot->ce == NULL)
                break;
        }
    if (slot->ce)
        slice_free(d, slot);
    while (d->cachebytes + bytes > D4_CACHE_BYTES) {
        D4slice *old = NULL;
        for (size_t i = 0; i < D4_CACHE_ENTRIES; i++)
            if (d->cache[i].ce && (old == NULL || d->cache[i].stamp < old->stamp))
                old = &d->cache[i];
        if (old == NULL)
            break;
        slice_free(d, old);
    }
    if ((slot->ce = strdup(ce)) == NULL) {
        /* not kept; the caller has the values */
        pthread_mutex_unlock(&d->lock);
        nc4_reclaim_values(d->f, dv->var->xtype, a.vals, nvals);
        free(a.vals);
        return dstat;
    }
    slot->dv = dv;
    slot->data = a.vals;
    slot->nvals = nvals;
    slot->bytes = bytes;
    slot->stamp = ++d->clock;
    d->cachebytes += bytes;
    pthread_mutex_unlock(&d->lock);
    return dstat;
}

/* ---- open and close ------------------------------------------------------------------ */

static void
d4_free(D4file *d)
{
    if (d == NULL)
        return;
    d4_cache_clear(d);
    for (size_t i = 0; i < d->nvars; i++) {
        if (d->vars[i].whole) {
            nc4_reclaim_values(d->f, d->vars[i].var->xtype, d->vars[i].whole, d->vars[i].nwhole);
            free(d->vars[i].whole);
        }
        free(d->vars[i].fqn);
    }
    free(d->vars);
#if NC_HAVE_HTTP
    nch_session_close(d->http);
    nch_sessions_close(d->sessions);
#endif
    if (d->haslock)
        pthread_mutex_destroy(&d->lock);
    free(d->base);
    free(d->ce);
    d4ce_free(d->cep);
    free(d);
}

static int
d4_close_storage(NC4_file *f, int abort, void *params)
{
    (void)abort;
    (void)params;
    D4file *d = f->fmt;
    d4_free(d);
    f->fmt = NULL;
    for (size_t i = 0; i < f->ngrps; i++)
        for (size_t k = 0; f->grps[i] && k < f->grps[i]->vars.n; k++)
            ((NC4_var *)f->grps[i]->vars.items[k])->fmt = NULL;
    nc4_file_free(f);
    return NC_NOERR;
}

static const NC4_storage_ops d4_ops = {
    .close = d4_close_storage,
};

static int
D4_open(const char *path, int mode, int basepe, size_t *chunksizehintp, void *parameters,
        const NC_Dispatch *table, int ncid)
{
    NC *nc;
    NC4_file *f = NULL;
    D4file *d = NULL;
    unsigned char *buf = NULL;
    size_t len = 0;
    int stat;

    (void)basepe;
    (void)chunksizehintp;
    (void)parameters;
    (void)table;
    if (mode & NC_WRITE)
        return NC_EPERM;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if ((d = calloc(1, sizeof *d)) == NULL)
        return NC_ENOMEM;
    if (pthread_mutex_init(&d->lock, NULL)) {
        free(d);
        return NC_ENOMEM;
    }
    d->haslock = 1;
    if ((stat = url_parse(path, d)))
        goto fail;
#if NC_HAVE_HTTP
    /* each request on a session of its own (threads share the handle); the
     * DMR's is taken now */
    if (!d->isfile) {
        if ((stat = nch_sessions_open(d->base, NCH_IDLE_SESSIONS, session_setup, NULL,
                                      &d->sessions)))
            goto fail;
        if ((stat = nch_sessions_take(d->sessions, &d->http)))
            goto fail;
    }
#else
    if (!d->isfile) {
        stat = NC_ENOTBUILT;
        goto fail;
    }
#endif
    if ((stat = nc4_file_new(nc, nc->ext_ncid, mode & ~NC_WRITE, NC_FORMATX_DAP4, &d4_ops, &f)))
        goto fail;
    d->f = f;
    f->fmt = d;
    f->readonly = 1;
    f->format = NC_FORMAT_NETCDF4;
    /* The DMR: NAME.dmr, else the DMR at the head of NAME.dap */
    stat = fetch(d, "dmr", d->ce, &buf, &len);
    if (stat == NC_NOERR) {
        stat = d4_build(d, (const char *)buf, len);
    } else if (stat == NC_ENOTFOUND && d->isfile) {
        char *dmr = NULL;
        size_t dmrlen = 0;
        D4resp r;
        d4_resp_init(&r, d, 0, NULL, NULL, NULL, NULL);
        stat = d4_resp_finish(&r, fetch_data(d, NULL, &r), &dmr, &dmrlen);
        if (stat == NC_NOERR)
            stat = d4_build(d, dmr, dmrlen);
        free(dmr);
    }
    free(buf);
    buf = NULL;
    if (stat)
        goto fail;
#if NC_HAVE_HTTP
    /* the DMR's session serves the first read */
    nch_sessions_give(d->sessions, d->http);
    d->http = NULL;
#endif
    return NC_NOERR;
fail:
    free(buf);
    if (f) {
        f->fmt = NULL;
        nc4_file_free(f);
        nc->dispatchdata = NULL;
    }
    d4_free(d);
    return stat == NC_ENOTFOUND ? ENOENT : stat;
}

/* ---- reads ------------------------------------------------------------------------------ */

/* Under a constraint that only picks variables and strided slices, the
 * first index and the stride of each dimension of dv in the full dataset:
 * 1, or 0 when reads must go through the whole constrained response (the
 * variable not named, another rank, counts that disagree with the DMR). */
static int
ce_slice(const D4file *d, const D4var *dv, const size_t *shape, size_t *base, size_t *step)
{
    const D4ce_clause *c;
    int ndims = dv->var->ndims;
    if (!d4ce_is_simple(d->cep) || (c = d4ce_find(d->cep, dv->fqn)) == NULL)
        return 0;
    if (c->ndims != 0 && c->ndims != (size_t)ndims)
        return 0;
    for (int i = 0; i < ndims; i++) {
        base[i] = 0;
        step[i] = 1;
        if (c->ndims == 0 || c->dims[i].nranges == 0)
            continue;
        const D4ce_range *r = &c->dims[i].ranges[0];
        if (r->last != D4CE_TOEND && (r->last - r->first) / r->stride + 1 != shape[i])
            return 0;
        if (shape[i] > 0 && (r->first > SIZE_MAX / 2 || r->stride > SIZE_MAX / 2 / shape[i]))
            return 0;
        base[i] = (size_t)r->first;
        step[i] = (size_t)r->stride;
    }
    return 1;
}

static int
D4_get_vars(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
            void *value, nc_type memtype)
{
    NC4_file *f;
    NC4_var *var;
    D4file *d;
    D4var *dv;
    size_t shape[NC_MAX_VAR_DIMS], st[NC_MAX_VAR_DIMS], cnt[NC_MAX_VAR_DIMS];
    ptrdiff_t sd[NC_MAX_VAR_DIMS];
    size_t nvals = 1, size;
    nc_type xtype, srctype;
    void *tmp = NULL;
    int stat, ndims;

    if ((stat = nc4_find_var(ncid, varid, &f, NULL, &var)))
        return stat;
    d = f->fmt;
    dv = var->fmt;
    if (d == NULL || dv == NULL)
        return NC_ENOTVAR;
    xtype = var->xtype;
    ndims = var->ndims;
    nc4_var_shape(var, shape);
    for (int i = 0; i < ndims; i++) {
        st[i] = start ? start[i] : 0;
        cnt[i] = count ? count[i] : shape[i];
        sd[i] = stride ? stride[i] : 1;
        if (sd[i] <= 0)
            return NC_ESTRIDE;
        if (st[i] > shape[i])
            return NC_EINVALCOORDS;
        if (cnt[i] > 0 && (cnt[i] - 1 > (shape[i] - st[i] - 1) / (size_t)sd[i] || st[i] == shape[i]))
            return st[i] == shape[i] ? NC_EINVALCOORDS : NC_EEDGE;
        nvals *= cnt[i];
    }
    /* the type the values are converted from */
    srctype = xtype;
    if (xtype >= NC_FIRSTUSERTYPEID) {
        NC4_type *ty;
        if ((stat = nc4_find_type(f, xtype, &ty)))
            return stat;
        if (memtype != NC_NAT && memtype != xtype) {
            if (ty->tclass != NC_ENUM)
                return NC_EBADTYPE;
            srctype = ty->base;
        }
    }
    if (memtype == NC_NAT)
        memtype = xtype;
    if ((memtype == NC_CHAR) != (srctype == NC_CHAR) && memtype != xtype)
        return NC_ECHAR;
    if (memtype != xtype && (memtype == NC_STRING) != (srctype == NC_STRING))
        return NC_EBADTYPE;
    if (memtype >= NC_FIRSTUSERTYPEID && memtype != xtype)
        return NC_EBADTYPE;
    if (nvals == 0)
        return NC_NOERR;
    size = nc4_type_size(f, xtype);

    Deliver o = {.f = f, .xtype = xtype, .srctype = srctype, .memtype = memtype, .size = size,
                 .value = value};
    /* what fills the handle's state (the small variables, the whole
     * response) runs once, under the lock; a variable's whole values do
     * not change once set, so they are read without it */
    const void *whole = NULL;
    size_t nwhole = 0;
    size_t base[NC_MAX_VAR_DIMS], step[NC_MAX_VAR_DIMS];
    int composed = 0;
    pthread_mutex_lock(&d->lock);
    if (!d->isfile && !d->ce && !d->prefetched && dv->whole == NULL && is_small(d, dv))
        stat = prefetch_small(d);
    /* under the user's constraint: the variable's slice of the full one */
    if (stat == NC_NOERR)
        composed = !d->isfile && d->ce && dv->whole == NULL && ce_slice(d, dv, shape, base, step);
    if (stat == NC_NOERR && (d->isfile || (d->ce && !composed) || dv->whole)) {
        if (d->isfile || d->ce)
            stat = load_all(d);
        whole = dv->whole;
        nwhole = dv->nwhole;
        if (stat == NC_NOERR && whole == NULL)
            stat = NC_EDAP;
    }
    pthread_mutex_unlock(&d->lock);
    if (stat)
        return stat;
    if (whole) {
        /* gather the slice from the whole variable */
        if (nwhole != d4_var_nvals(var))
            return NC_EDAP;
        if ((tmp = malloc(nvals * size)) == NULL)
            return NC_ENOMEM;
        size_t idx[NC_MAX_VAR_DIMS] = {0}, out = 0;
        size_t run = ndims ? cnt[ndims - 1] : 1;
        int contiguous = ndims == 0 || sd[ndims - 1] == 1;
        for (;;) {
            size_t off = 0;
            for (int i = 0; i < ndims; i++)
                off = off * shape[i] + st[i] + idx[i] * (size_t)sd[i];
            if (contiguous) {
                memcpy((char *)tmp + out * size, (const char *)whole + off * size, run * size);
                out += run;
            } else {
                for (size_t k = 0; k < run; k++)
                    memcpy((char *)tmp + (out + k) * size,
                           (const char *)whole + (off + k * (size_t)sd[ndims - 1]) * size, size);
                out += run;
            }
            int i = ndims - 2;
            for (; i >= 0; i--) {
                if (++idx[i] < cnt[i])
                    break;
                idx[i] = 0;
            }
            if (i < 0)
                break;
        }
        stat = deliver(&o, tmp, nvals);
        free(tmp);
        return stat;
    } else {
        /* one constrained request: /fqn[first:stride:last]... */
        size_t cap = strlen(dv->fqn) + 64 * (size_t)ndims + 1, l;
        char *ce = malloc(cap);
        if (ce == NULL)
            return NC_ENOMEM;
        l = (size_t)snprintf(ce, cap, "%s", dv->fqn);
        for (int i = 0; i < ndims; i++) {
            size_t b = composed ? base[i] : 0, k = composed ? step[i] : 1;
            l += (size_t)snprintf(ce + l, cap - l, "[%zu:%zu:%zu]", b + st[i] * k,
                                  (size_t)sd[i] * k, b + (st[i] + (cnt[i] - 1) * (size_t)sd[i]) * k);
        }
        if (memtype == xtype && !nc4_type_has_pointers(f, xtype) && nvals * size > D4_CACHE_BYTES) {
            stat = read_direct(d, dv, ce, nvals, value);
            free(ce);
            return stat;
        }
        stat = get_slice(d, dv, ce, nvals, &o);
        free(ce);
        return stat;
    }
}

static int
D4_get_vara(int ncid, int varid, const size_t *start, const size_t *count, void *value,
            nc_type memtype)
{
    return D4_get_vars(ncid, varid, start, count, NULL, value, memtype);
}

/* ---- read-only ----------------------------------------------------------------------------- */

static int
D4_put_vars(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
            const void *value, nc_type memtype)
{
    (void)varid; (void)start; (void)count; (void)stride; (void)value; (void)memtype;
    int stat = nc4_find_grp(ncid, NULL, NULL);
    return stat ? stat : NC_EPERM;
}

static int
D4_rename_grp(int ncid, const char *name)
{
    (void)name;
    int stat = nc4_find_grp(ncid, NULL, NULL);
    return stat ? stat : NC_EPERM;
}

static int
D4_set_var_chunk_cache(int ncid, int varid, size_t size, size_t nelems, float preemption)
{
    (void)size; (void)nelems; (void)preemption;
    return nc4_find_var(ncid, varid, NULL, NULL, NULL);
}

static int
D4_inq_filter_avail(int ncid, unsigned int id)
{
    (void)id;
    int stat = nc4_find_grp(ncid, NULL, NULL);
    return stat ? stat : NC_ENOFILTER;
}

static int
D4_sync(int ncid)
{
    return nc4_find_grp(ncid, NULL, NULL);
}

/* The model answers what is not listed (nc4model.h); the file is opened
 * read-only, so the model's defining slots answer NC_EPERM. */
const NC_Dispatch *NCD4_dispatch_table = &(const NC_Dispatch){
    .model = NC_FORMATX_DAP4,
    NC4_MODEL_SLOTS,
    NC4_MODEL_USER_TYPE_SLOTS,
    .create = NC_RO_create,
    .open = D4_open,
    .sync = D4_sync,
    .get_vara = D4_get_vara,
    .put_vara = NC_RO_put_vara,
    .get_vars = D4_get_vars,
    .put_vars = D4_put_vars,
    .inq_att = NC4_inq_att,
    .get_att = NC4_get_att,
    .rename_var = NC_RO_rename_var,
    .rename_grp = D4_rename_grp,
    .set_var_chunk_cache = D4_set_var_chunk_cache,
    .inq_filter_avail = D4_inq_filter_avail,
};
