/* dap2fetch.c: getting DAP2 responses.
 *
 * file:// URLs read NAME.dds, NAME.das and NAME.dods from disk (upstream's
 * test mode); the whole .dods is read once and every read subsets it.
 * http(s) URLs go through libdispatch's HTTP layer (nchttp.h): URL.dds and
 * URL.das at open, one constrained URL.dods?var[a:s:b]... per read (the
 * whole URL.dods only for what a constraint cannot select alone: members
 * of sequences and of structure arrays).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "dap2int.h"
#if NC_HAVE_HTTP
#include "nchttp.h"
#endif

/* The whole file (plus a NUL byte, not counted).  ENOENT when missing. */
/* base.ext, then "?query" when query is not NULL. */
static char *
with_query(const char *base, const char *ext, const char *query)
{
    size_t l = strlen(base) + strlen(ext) + (query ? strlen(query) + 1 : 0) + 2;
    char *p = malloc(l);
    if (p)
        snprintf(p, l, "%s.%s%s%s", base, ext, query ? "?" : "", query ? query : "");
    return p;
}

int
d2_read_file(const char *path, unsigned char **bufp, size_t *lenp)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    unsigned char *buf;
    size_t got;

    if (fp == NULL)
        return errno ? errno : ENOENT;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0
        || (unsigned long long)st.st_size > (unsigned long long)SIZE_MAX - 1) {
        fclose(fp);
        return ENOENT;
    }
    if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
        fclose(fp);
        return NC_ENOMEM;
    }
    got = fread(buf, 1, (size_t)st.st_size, fp);
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

static char *
with_ext(const char *base, const char *ext)
{
    size_t l = strlen(base) + strlen(ext) + 2;
    char *p = malloc(l);
    if (p)
        snprintf(p, l, "%s.%s", base, ext);
    return p;
}

#if NC_HAVE_HTTP
/* A new session of the handle's set: request URLs are encoded here, as
 * "encode" says, and go to curl as they are. */
static int
session_setup(nch_session *s, void *arg)
{
    (void)arg;
    nch_session_raw_urls(s, 1);
    return NC_NOERR;
}
#endif

/* http(s): GET url into a NUL-terminated buffer. */
static int
http_get(D2file *f, const char *url, unsigned char **bufp, size_t *lenp)
{
#if NC_HAVE_HTTP
    nch_buf b = {NULL, 0, 0};
    nch_session *s = NULL;
    struct timespec t0, t1;
    if (f->showfetch) {
        fprintf(stderr, "Note:fetch: %s\n", url);
        clock_gettime(CLOCK_MONOTONIC, &t0);
    }
    char *wire = d2_wire_url(url, f->encode);
    int stat = wire ? nch_sessions_take(f->sessions, &s) : NC_ENOMEM;
    if (stat == NC_NOERR) {
        stat = nch_get(s, wire, &b);
        nch_sessions_give(f->sessions, s);
    }
    free(wire);
    if (f->showfetch) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        fprintf(stderr, "Note:fetch complete: %0.3f secs\n",
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    }
    if (stat == NC_NOERR && (stat = nch_buf_append(&b, "", 1)) == NC_NOERR) {
        *bufp = b.data;
        *lenp = b.len - 1;
        return NC_NOERR;
    }
    nch_buf_free(&b);
    return stat;
#else
    (void)f;
    (void)url;
    (void)bufp;
    (void)lenp;
    return NC_ENOTBUILT;
#endif
}

int
d2_remote_open(D2file *f)
{
#if NC_HAVE_HTTP
    nch_session *s = NULL;
    int stat;
    /* upstream logs the requests with show=fetch when logging is on */
    f->showfetch = d2_param_check(f, "show", "fetch")
                   && (d2_param(f, "log") != NULL || getenv("NCLOGGING") != NULL);
    f->wholevar = d2_param(f, "wholevar") != NULL;
    f->encode = d2_encode_flags(f);
    /* each request on a session of its own (threads share the handle);
     * the first one opened now so that a URL the HTTP layer refuses fails
     * the open */
    if ((stat = nch_sessions_open(f->base, NCH_IDLE_SESSIONS, session_setup, NULL, &f->sessions)))
        return stat;
    if ((stat = nch_sessions_take(f->sessions, &s)) == NC_NOERR)
        nch_sessions_give(f->sessions, s);
    return stat;
#else
    (void)f;
    return NC_ENOTBUILT;
#endif
}

void
d2_remote_close(D2file *f)
{
#if NC_HAVE_HTTP
    nch_sessions_close(f->sessions);
#endif
    f->sessions = NULL;
}

/* A growing string. */
typedef struct Sb {
    char *s;
    size_t len, cap;
} Sb;

static int
sb_add(Sb *b, const char *t, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t ncap = (b->cap + n + 1) * 2;
        char *ns = realloc(b->s, ncap);
        if (ns == NULL)
            return NC_ENOMEM;
        b->s = ns;
        b->cap = ncap;
    }
    memcpy(b->s + b->len, t, n);
    b->len += n;
    b->s[b->len] = '\0';
    return NC_NOERR;
}

/* Appends a DAP name, %-encoding what is not a letter, digit, '_' or '-'. */
static int
sb_name(Sb *b, const char *s)
{
    int stat = NC_NOERR;
    for (; *s && stat == NC_NOERR; s++) {
        unsigned char c = (unsigned char)*s;
        char enc[4];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '_' || c == '-') {
            stat = sb_add(b, (const char *)&c, 1);
        } else {
            snprintf(enc, sizeof enc, "%%%02X", c);
            stat = sb_add(b, enc, 3);
        }
    }
    return stat;
}

/* One hyperslab [first:stride:last] of a projection. */
static int
sb_slab(Sb *b, size_t first, size_t step, size_t last)
{
    char dim[96];
    int n = snprintf(dim, sizeof dim, "[%zu:%zu:%zu]", first, step, last);
    return sb_add(b, dim, (size_t)n);
}

/* The projection of one variable: its path below the dataset, and when
 * start is not NULL a hyperslab [first:stride:last] per dimension (nd of
 * them: those of its containers that are arrays, outermost first, then its
 * own, as the classic view orders them). */
static int
sb_projection(Sb *b, const D2file *f, const D2node *v, size_t nd, const size_t *start,
              const size_t *count, const ptrdiff_t *stride)
{
    const D2proj *pr = d2_user_proj(f, v);
    const D2node *path[D2_MAX_DEPTH + 2];
    size_t depth = 0, k = 0;
    int stat;
    for (const D2node *p = v; p && p->kind != D2_DATASET; p = p->parent) {
        if (depth >= D2_MAX_DEPTH + 1)
            return NC_EDATADDS;
        path[depth++] = p;
    }
    while (depth > 0) {
        const D2node *p = path[--depth];
        if ((stat = sb_name(b, p->name)))
            return stat;
        /* a sequence limited to its first records ("limit") */
        if (p->kind == D2_SEQUENCE && p->map != NULL && ((const D2nm *)p->map)->seqlimit > 0) {
            char rows[48];
            int n = snprintf(rows, sizeof rows, "[0:%zu]", ((const D2nm *)p->map)->seqlimit - 1);
            if ((stat = sb_add(b, rows, (size_t)n)))
                return stat;
        }
        /* a container array: the slabs of its dimensions */
        for (size_t i = 0; start != NULL && p != v && i < p->rank; i++, k++) {
            if (k >= nd)
                return NC_EINVAL;
            if ((stat = sb_slab(b, start[k], (size_t)stride[k],
                                start[k] + (count[k] - 1) * (size_t)stride[k])))
                return stat;
        }
        if (depth > 0 && (stat = sb_add(b, ".", 1)))
            return stat;
    }
    if (pr != NULL && pr->nslab != v->rank)
        pr = NULL;
    if (start == NULL && pr != NULL)
        nd = v->rank;  /* the whole variable as the user's constraint shaped it */
    for (size_t i = 0; (start != NULL || pr != NULL) && i + k < nd; i++) {
        size_t first, step, last;
        if (start != NULL) {
            first = start[k + i];
            step = (size_t)stride[k + i];
            last = first + (count[k + i] - 1) * step;
            if (pr != NULL) {  /* indices of the user's view -> the dataset's */
                first = pr->first[i] + first * pr->stride[i];
                last = pr->first[i] + last * pr->stride[i];
                step *= pr->stride[i];
            }
        } else {
            first = pr->first[i];
            step = pr->stride[i];
            last = first + (pr->last[i] - first) / step * step;
        }
        if ((stat = sb_slab(b, first, step, last)))
            return stat;
    }
    return NC_NOERR;
}

/* URL.dods?PROJECTIONS[&selection] for d2_fetch_vars. */
static int
data_url(Sb *url, D2file *f, const D2node *const *vars, size_t nvars, size_t nd,
         const size_t *start, const size_t *count, const ptrdiff_t *stride)
{
    int stat;
    if ((stat = sb_add(url, f->base, strlen(f->base))) || (stat = sb_add(url, ".dods?", 6)))
        return stat;
    for (size_t i = 0; i < nvars; i++) {
        if (i > 0 && (stat = sb_add(url, ",", 1)))
            return stat;
        if ((stat = sb_projection(url, f, vars[i], nd, nvars == 1 ? start : NULL, count, stride)))
            return stat;
    }
    if (f->selection && (stat = sb_add(url, f->selection, strlen(f->selection))))
        return stat;
    return NC_NOERR;
}

/* The decoded response of a body of blen bytes (a NUL after them), which
 * it takes over. */
static int
decode_body(unsigned char *buf, size_t blen, D2node **respp)
{
    int stat, took = 0;
    size_t off;
    D2node *resp = NULL;
    if ((stat = d2_find_data(buf, blen, &off)) == NC_NOERR
        && (stat = d2_parse_dds((const char *)buf, off, &resp, NULL)) == NC_NOERR
        /* a single array takes over the body as its column: one copy */
        && (stat = d2_decode_owned(resp, buf, off, blen, &took)) == NC_NOERR) {
        if (took)
            buf = NULL;
        *respp = resp;
        resp = NULL;
    }
    d2_node_free(resp);
    free(buf);
    return stat;
}

int
d2_fetch_vars(D2file *f, const D2node *const *vars, size_t nvars, size_t nd,
              const size_t *start, const size_t *count, const ptrdiff_t *stride,
              D2node **respp, size_t *sizep)
{
    int stat;
    Sb url = {NULL, 0, 0};
    size_t blen = 0;
    unsigned char *buf = NULL;

    if ((stat = data_url(&url, f, vars, nvars, nd, start, count, stride)) == NC_NOERR
        && (stat = http_get(f, url.s, &buf, &blen)) == NC_NOERR) {
        if ((stat = decode_body(buf, blen, respp)) == NC_NOERR && sizep)
            *sizep = blen;
    }
    free(url.s);
    return stat;
}

int
d2_fetch_direct(D2file *f, const D2node *var, size_t nd, const size_t *start,
                const size_t *count, const ptrdiff_t *stride, void *out, size_t nvalues,
                D2node **respp)
{
#if NC_HAVE_HTTP
    int stat;
    Sb url = {NULL, 0, 0};
    D2direct d;
    struct timespec t0, t1;

    *respp = NULL;
    if (var->atype == D2_STRING || var->atype == D2_URL)
        return d2_fetch_vars(f, &var, 1, nd, start, count, stride, respp, NULL);
    if ((stat = data_url(&url, f, &var, 1, nd, start, count, stride)))
        goto done;
    d2_direct_init(&d, var, out, nvalues);
    if (f->showfetch) {
        fprintf(stderr, "Note:fetch: %s\n", url.s);
        clock_gettime(CLOCK_MONOTONIC, &t0);
    }
    {
        char *wire = d2_wire_url(url.s, f->encode);
        nch_session *s = NULL;
        stat = wire ? nch_sessions_take(f->sessions, &s) : NC_ENOMEM;
        if (stat == NC_NOERR) {
            stat = nch_get_stream(s, wire, d2_direct_sink, &d);
            nch_sessions_give(f->sessions, s);
        }
        free(wire);
    }
    if (f->showfetch) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        fprintf(stderr, "Note:fetch complete: %0.3f secs\n",
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    }
    if (stat == NC_NOERR) {
        int done = d2_direct_done(&d);
        if (done < 0) {
            stat = NC_EDATADDS;
        } else if (done == 0) {
            if (d.body.data == NULL) {
                stat = NC_EDATADDS;
            } else {
                stat = decode_body(d.body.data, d.body.len, respp);
                d.body.data = NULL;
            }
        }
    }
    free(d.body.data);
done:
    free(url.s);
    return stat;
#else
    return d2_fetch_vars(f, &var, 1, nd, start, count, stride, respp, NULL);
#endif
}

int
d2_fetch_text(D2file *f, const char *ext, char **textp, size_t *lenp)
{
    int stat;
    char *path;
    unsigned char *buf = NULL;
    if (!f->isfile) {
        /* the DDS as the user's constraint shapes it; the DAS whole */
        const char *q = strcmp(ext, "dds") == 0 ? f->query : NULL;
        if ((path = with_query(f->base, ext, q)) == NULL)
            return NC_ENOMEM;
        stat = http_get(f, path, &buf, lenp);
        free(path);
        if (stat == NC_NOERR)
            *textp = (char *)buf;
        return stat;
    }
    if ((path = with_ext(f->base, ext)) == NULL)
        return NC_ENOMEM;
    stat = d2_read_file(path, &buf, lenp);
    free(path);
    if (stat == NC_NOERR)
        *textp = (char *)buf;
    return stat;
}

int
d2_load_data(D2file *f)
{
    int stat;
    size_t off;
    char *path;

    if (f->dataloaded)
        return f->data ? NC_NOERR : NC_EDATADDS;
    f->dataloaded = 1;
    if ((path = with_ext(f->base, "dods")) == NULL)
        return NC_ENOMEM;
    if (f->isfile) {
        stat = d2_read_file(path, &f->dods, &f->dodslen);
    } else {
        char *url = with_query(f->base, "dods", f->query);
        stat = url ? http_get(f, url, &f->dods, &f->dodslen) : NC_ENOMEM;
        free(url);
    }
    free(path);
    if (stat)
        return stat;
    if ((stat = d2_find_data(f->dods, f->dodslen, &off)))
        return stat;
    if ((stat = d2_parse_dds((const char *)f->dods, off, &f->data, NULL)))
        return stat == NC_EDDS ? NC_EDATADDS : stat;
    if ((stat = d2_decode(f->data, f->dods + off, f->dodslen - off))) {
        d2_node_free(f->data);
        f->data = NULL;
        return stat;
    }
    return NC_NOERR;
}
