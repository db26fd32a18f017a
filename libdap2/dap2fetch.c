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
#include "dap2int.h"
#if NC_HAVE_HTTP
#include "nchttp.h"
#endif

/* The whole file (plus a NUL byte, not counted).  ENOENT when missing. */
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

/* http(s): GET url into a NUL-terminated buffer. */
static int
http_get(D2file *f, const char *url, unsigned char **bufp, size_t *lenp)
{
#if NC_HAVE_HTTP
    nch_buf b = {NULL, 0, 0};
    int stat = nch_get(f->http, url, &b);
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
    int stat = nch_session_open(f->base, &s);
    if (stat == NC_NOERR)
        f->http = s;
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
    if (f->http)
        nch_session_close(f->http);
#endif
    f->http = NULL;
}

/* Appends a DAP name to a constraint, %-encoding what is not a letter,
 * digit, '_' or '-'. */
static int
append_name(char **bufp, size_t *lenp, size_t *capp, const char *s)
{
    for (; *s; s++) {
        char enc[4];
        unsigned char c = (unsigned char)*s;
        int n;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '_' || c == '-')
            n = snprintf(enc, sizeof enc, "%c", c);
        else
            n = snprintf(enc, sizeof enc, "%%%02X", c);
        if (*lenp + (size_t)n + 2 > *capp) {
            size_t ncap = *capp * 2 + 64;
            char *nb = realloc(*bufp, ncap);
            if (nb == NULL)
                return NC_ENOMEM;
            *bufp = nb;
            *capp = ncap;
        }
        memcpy(*bufp + *lenp, enc, (size_t)n + 1);
        *lenp += (size_t)n;
    }
    return NC_NOERR;
}

int
d2_fetch_var(D2file *f, const D2node *v, size_t nd, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, D2node **respp)
{
    int stat = NC_NOERR;
    const D2node *path[D2_MAX_DEPTH + 2];
    size_t depth = 0, len = 0, cap = 0, off, blen = 0;
    char *url = NULL;
    unsigned char *buf = NULL;
    D2node *resp = NULL;

    for (const D2node *p = v; p && p->kind != D2_DATASET; p = p->parent) {
        if (depth >= D2_MAX_DEPTH + 1)
            return NC_EDATADDS;
        path[depth++] = p;
    }
    len = strlen(f->base);
    cap = len + 64;
    if ((url = malloc(cap)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    memcpy(url, f->base, len);
    memcpy(url + len, ".dods?", 7);
    len += 6;
    while (depth > 0) {
        const D2node *p = path[--depth];
        if ((stat = append_name(&url, &len, &cap, p->name)))
            goto done;
        if (depth > 0) {
            url[len++] = '.';  /* room: append_name leaves at least one byte */
            url[len] = '\0';
        }
    }
    for (size_t i = 0; i < nd; i++) {
        char dim[96];
        size_t last = start[i] + (count[i] - 1) * (size_t)stride[i];
        int n = snprintf(dim, sizeof dim, "[%zu:%zu:%zu]", start[i], (size_t)stride[i], last);
        if (len + (size_t)n + 1 > cap) {
            char *nb = realloc(url, cap * 2 + (size_t)n + 1);
            if (nb == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            url = nb;
            cap = cap * 2 + (size_t)n + 1;
        }
        memcpy(url + len, dim, (size_t)n + 1);
        len += (size_t)n;
    }
    if ((stat = http_get(f, url, &buf, &blen)))
        goto done;
    if ((stat = d2_find_data(buf, blen, &off)))
        goto done;
    if ((stat = d2_parse_dds((const char *)buf, off, &resp, NULL)))
        goto done;
    if ((stat = d2_decode(resp, buf + off, blen - off)))
        goto done;
    *respp = resp;
    resp = NULL;
done:
    d2_node_free(resp);
    free(buf);
    free(url);
    return stat;
}

int
d2_fetch_text(D2file *f, const char *ext, char **textp, size_t *lenp)
{
    int stat;
    char *path;
    unsigned char *buf = NULL;
    if (!f->isfile) {
        if ((path = with_ext(f->base, ext)) == NULL)
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
    if (f->isfile)
        stat = d2_read_file(path, &f->dods, &f->dodslen);
    else
        stat = http_get(f, path, &f->dods, &f->dodslen);
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
