/* zmap_ref.c: the reference store of zmap.h, read-only: a kerchunk /
 * VirtualiZarr reference file (JSON) whose keys are Zarr objects held
 * inline or as byte ranges of other files (netCDF-4/HDF5, classic, any).
 *
 * The file (local path, file:// URL, or http(s)/s3 URL read through the
 * remote reader) is either version 0 -- {"key": value, ...} -- or version 1
 * -- {"version": 1, "templates": {...}, "gen": [...], "refs": {...}}.  A
 * value is a string (the object's bytes; "base64:" then base64 for binary
 * data), a JSON object or other non-string (its JSON text), [url] (the
 * whole file) or [url, offset, length].  URLs may hold "{{name}}" template
 * references.  A "gen" entry makes keys from a key, url, offset and length
 * template over the product of its dimensions (a count, a list of
 * integers, or {"start", "stop", "step"}); its templates hold integer
 * expressions (+ - * / // % and parentheses) of the dimension names.
 *
 * Targets: http(s):// and s3:// through libdispatch's remote reader (one
 * handle per URL: block cache, merged and concurrent requests), anything
 * else a local file read with pread (file:// prefix removed; relative paths
 * from the reference file's directory).  Every offset and length is
 * checked against the target's size when read; all parsing is bounded
 * (keys generated at most NCZ_REF_MAX_KEYS). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "zmap_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <netcdf.h>

#include "ncremote.h"

#define NCZ_REF_MAX_KEYS ((size_t)1 << 26)  /* keys a reference file may make */
#define NCZ_REF_MAX_JSON ((uint64_t)1 << 31) /* bytes of the reference file */

enum { R_INLINE = 0, R_RANGE = 1, R_WHOLE = 2 };

typedef struct rref {
    char *key;          /* "/a/b" */
    int kind;           /* R_* */
    unsigned char *data;/* R_INLINE: the bytes */
    size_t src;         /* R_RANGE/R_WHOLE: the target */
    uint64_t off, len;  /* R_INLINE, R_RANGE: len bytes (at off) */
    size_t seq;         /* order given: of two equal keys the later stays */
} rref;

typedef struct rsrc {
    char *url;          /* target as written (templates expanded) */
    char *path;         /* local path, NULL for a remote target */
    int fd;             /* -1 until opened */
    NC_remote *r;       /* remote target, NULL until opened */
    uint64_t size;
    int opened, err;    /* open tried; its error */
} rsrc;

typedef struct RefMap {
    NCZ_map head;       /* first: the zmap.h head */
    rref *refs;         /* sorted by key, unique */
    size_t n, cap;
    rsrc *srcs;
    size_t nsrc, srccap;
    char *dir;          /* directory of a local reference file, or NULL */
    pthread_mutex_t lock; /* targets are opened and read one thread at a time */
} RefMap;

/* ---- small helpers ------------------------------------------------------- */

/* arr (n used of *cap elements of sz bytes) with room for one more, or
 * NULL (arr untouched). */
static void *
grow(void *arr, size_t *cap, size_t n, size_t sz)
{
    size_t c;
    void *p;
    if (n < *cap)
        return arr;
    c = *cap ? 2 * *cap : 16;
    if (c > SIZE_MAX / sz || (p = realloc(arr, c * sz)) == NULL)
        return NULL;
    *cap = c;
    return p;
}

static int
b64val(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

/* Decode base64 s[0..n) (padding optional) into a new buffer. */
static int
b64decode(const char *s, size_t n, unsigned char **outp, size_t *lenp)
{
    unsigned char *o = malloc(n / 4 * 3 + 3);
    size_t k = 0;
    unsigned acc = 0;
    int bits = 0;
    if (o == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        int v;
        if (s[i] == '=' || s[i] == '\n' || s[i] == '\r')
            continue;
        if ((v = b64val((unsigned char)s[i])) < 0) {
            free(o);
            return NC_EINVAL;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[k++] = (unsigned char)(acc >> bits);
        }
    }
    *outp = o;
    *lenp = k;
    return NC_NOERR;
}

/* Read a whole local file (bounded). */
static int
slurp_local(const char *path, char **textp, size_t *lenp)
{
    struct stat sb;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    char *t;
    size_t got = 0;
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? NC_ENOOBJECT : NC_EACCESS;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > NCZ_REF_MAX_JSON) {
        close(fd);
        return NC_ENOOBJECT;
    }
    if ((t = malloc((size_t)sb.st_size + 1)) == NULL) {
        close(fd);
        return NC_ENOMEM;
    }
    while (got < (size_t)sb.st_size) {
        ssize_t r = pread(fd, t + got, (size_t)sb.st_size - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != (size_t)sb.st_size) {
        free(t);
        return NC_EIO;
    }
    t[got] = '\0';
    *textp = t;
    *lenp = got;
    return NC_NOERR;
}

static int
slurp_remote(const char *url, char **textp, size_t *lenp)
{
    NC_remote *r = NULL;
    uint64_t size;
    char *t;
    int st;
    if ((st = NC_remote_open(url, &r)))
        return st;
    size = NC_remote_size(r);
    if (size > NCZ_REF_MAX_JSON) {
        NC_remote_close(r);
        return NC_EINVAL;
    }
    if ((t = malloc((size_t)size + 1)) == NULL) {
        NC_remote_close(r);
        return NC_ENOMEM;
    }
    st = size ? NC_remote_read(r, 0, (size_t)size, t) : NC_NOERR;
    NC_remote_close(r);
    if (st) {
        free(t);
        return st;
    }
    t[size] = '\0';
    *textp = t;
    *lenp = (size_t)size;
    return NC_NOERR;
}

static int
is_remote(const char *u)
{
    return strncasecmp(u, "http://", 7) == 0 || strncasecmp(u, "https://", 8) == 0 ||
           strncasecmp(u, "s3://", 5) == 0;
}

/* ---- templates ------------------------------------------------------------- */

/* Variables of a template: names with an integer value (gen dimensions) or
 * a string (templates). */
typedef struct tvars {
    json_object *templates;     /* name -> string, or NULL */
    size_t nint;
    const char *names[8];
    long long vals[8];
} tvars;

typedef struct ecur {
    const char *p, *end;
    const tvars *v;
    int bad;
} ecur;

static void
skipws(ecur *c)
{
    while (c->p < c->end && isspace((unsigned char)*c->p))
        c->p++;
}

static long long expr(ecur *c);

static long long
primary(ecur *c)
{
    long long v = 0;
    skipws(c);
    if (c->p >= c->end) {
        c->bad = 1;
        return 0;
    }
    if (*c->p == '(') {
        c->p++;
        v = expr(c);
        skipws(c);
        if (c->p >= c->end || *c->p != ')')
            c->bad = 1;
        else
            c->p++;
        return v;
    }
    if (*c->p == '-') {
        c->p++;
        return -primary(c);
    }
    if (isdigit((unsigned char)*c->p)) {
        while (c->p < c->end && isdigit((unsigned char)*c->p)) {
            if (v > (LLONG_MAX - 9) / 10)
                c->bad = 1;
            else
                v = v * 10 + (*c->p - '0');
            c->p++;
        }
        return v;
    }
    if (isalpha((unsigned char)*c->p) || *c->p == '_') {
        const char *s = c->p;
        while (c->p < c->end && (isalnum((unsigned char)*c->p) || *c->p == '_'))
            c->p++;
        for (size_t i = 0; i < c->v->nint; i++)
            if (strlen(c->v->names[i]) == (size_t)(c->p - s) &&
                strncmp(c->v->names[i], s, (size_t)(c->p - s)) == 0)
                return c->v->vals[i];
    }
    c->bad = 1;
    return 0;
}

static long long
term(ecur *c)
{
    long long v = primary(c);
    for (;;) {
        skipws(c);
        if (c->bad || c->p >= c->end)
            return v;
        if (*c->p == '*') {
            c->p++;
            long long w = primary(c);
            if (v != 0 && (w > LLONG_MAX / (v < 0 ? -v : v) || w < -(LLONG_MAX / (v < 0 ? -v : v))))
                c->bad = 1;
            else
                v *= w;
        } else if (*c->p == '/' || *c->p == '%') {
            int mod = *c->p == '%';
            c->p++;
            if (!mod && c->p < c->end && *c->p == '/')
                c->p++;
            long long w = primary(c);
            if (w == 0)
                c->bad = 1;
            else
                v = mod ? v % w : v / w;
        } else {
            return v;
        }
    }
}

static long long
expr(ecur *c)
{
    long long v = term(c);
    for (;;) {
        skipws(c);
        if (c->bad || c->p >= c->end || (*c->p != '+' && *c->p != '-'))
            return v;
        int sub = *c->p == '-';
        c->p++;
        long long w = term(c);
        if ((!sub && ((w > 0 && v > LLONG_MAX - w) || (w < 0 && v < LLONG_MIN - w))) ||
            (sub && ((w < 0 && v > LLONG_MAX + w) || (w > 0 && v < LLONG_MIN + w))))
            c->bad = 1;
        else
            v = sub ? v - w : v + w;
    }
}

/* Expand the "{{...}}" of s: a template name gives its string, anything
 * else an integer expression of the variables.  A new string. */
static int
render(const char *s, const tvars *v, char **outp)
{
    size_t cap = strlen(s) + 64, n = 0;
    char *o = malloc(cap);
    if (o == NULL)
        return NC_ENOMEM;
    while (*s) {
        const char *piece = s, *open = strstr(s, "{{"), *close;
        char num[32];
        size_t plen;
        if (open == NULL || (close = strstr(open + 2, "}}")) == NULL) {
            plen = strlen(s);
            s += plen;
        } else if (open > s) {
            plen = (size_t)(open - s);
            s = open;
        } else {
            const char *a = open + 2, *z = close;
            while (a < z && isspace((unsigned char)*a)) a++;
            while (z > a && isspace((unsigned char)z[-1])) z--;
            piece = NULL;
            if (v->templates != NULL) {
                json_object_object_foreach(v->templates, k, val) {
                    if (strlen(k) == (size_t)(z - a) && strncmp(k, a, (size_t)(z - a)) == 0 &&
                        json_object_is_type(val, json_type_string)) {
                        piece = json_object_get_string(val);
                        break;
                    }
                }
            }
            if (piece == NULL) {
                ecur c = {a, z, v, 0};
                long long x = expr(&c);
                skipws(&c);
                if (c.bad || c.p != z) {
                    free(o);
                    return NC_EINVAL;
                }
                snprintf(num, sizeof num, "%lld", x);
                piece = num;
            }
            plen = strlen(piece);
            s = close + 2;
        }
        if (n + plen + 1 > cap) {
            char *t;
            cap = (n + plen + 1) * 2;
            if ((t = realloc(o, cap)) == NULL) {
                free(o);
                return NC_ENOMEM;
            }
            o = t;
        }
        memcpy(o + n, piece, plen);
        n += plen;
    }
    o[n] = '\0';
    *outp = o;
    return NC_NOERR;
}

/* ---- building the table ------------------------------------------------------- */

static void
ref_free(rref *r)
{
    free(r->key);
    free(r->data);
}

/* The target url (already expanded): its index, added when new. */
static int
source(RefMap *m, const char *url, size_t *ip)
{
    rsrc *s;
    for (size_t i = m->nsrc; i > 0; i--)
        if (strcmp(m->srcs[i - 1].url, url) == 0) {
            *ip = i - 1;
            return NC_NOERR;
        }
    if ((s = grow(m->srcs, &m->srccap, m->nsrc, sizeof(*s))) == NULL)
        return NC_ENOMEM;
    m->srcs = s;
    s = &m->srcs[m->nsrc];
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    if ((s->url = strdup(url)) == NULL)
        return NC_ENOMEM;
    if (!is_remote(url)) {
        const char *p = url;
        if (strncasecmp(p, "file://", 7) == 0) {
            p += 7;
            if (strncasecmp(p, "localhost/", 10) == 0)
                p += 9;
        }
        if (p[0] != '/' && m->dir != NULL) {
            size_t dl = strlen(m->dir), pl = strlen(p);
            if ((s->path = malloc(dl + pl + 2)) != NULL) {
                memcpy(s->path, m->dir, dl);
                s->path[dl] = '/';
                memcpy(s->path + dl + 1, p, pl + 1);
            }
        } else {
            s->path = strdup(p);
        }
        if (s->path == NULL) {
            free(s->url);
            return NC_ENOMEM;
        }
    }
    *ip = m->nsrc++;
    return NC_NOERR;
}

/* Add key (no leading '/') with value val.  Keys are checked as zmap keys;
 * one that is not valid is skipped (no reader can ask for it). */
static int
add_ref(RefMap *m, const char *key, json_object *val, const tvars *tv)
{
    rref r;
    int st = NC_NOERR;
    memset(&r, 0, sizeof(r));
    if (m->n >= NCZ_REF_MAX_KEYS)
        return NC_EINVAL;
    if ((r.key = malloc(strlen(key) + 2)) == NULL)
        return NC_ENOMEM;
    r.key[0] = '/';
    strcpy(r.key + 1, key);
    if (ncz_key_check(r.key) != NC_NOERR) {
        free(r.key);
        return NC_NOERR;
    }
    if (json_object_is_type(val, json_type_array)) {
        size_t k = json_object_array_length(val);
        json_object *u = k >= 1 ? json_object_array_get_idx(val, 0) : NULL;
        char *url = NULL;
        if ((k != 1 && k != 3) || !json_object_is_type(u, json_type_string)) {
            st = NC_EINVAL;
        } else if ((st = render(json_object_get_string(u), tv, &url)) == NC_NOERR) {
            st = source(m, url, &r.src);
            free(url);
        }
        if (!st && k == 3) {
            json_object *o = json_object_array_get_idx(val, 1), *l = json_object_array_get_idx(val, 2);
            int64_t oo, ll;
            if (!json_object_is_type(o, json_type_int) || !json_object_is_type(l, json_type_int) ||
                (oo = json_object_get_int64(o)) < 0 || (ll = json_object_get_int64(l)) < 0)
                st = NC_EINVAL;
            else {
                r.kind = R_RANGE;
                r.off = (uint64_t)oo;
                r.len = (uint64_t)ll;
            }
        } else if (!st) {
            r.kind = R_WHOLE;
        }
    } else {
        const char *s = json_object_is_type(val, json_type_string)
                            ? json_object_get_string(val)
                            : json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN);
        size_t l = json_object_is_type(val, json_type_string) ? (size_t)json_object_get_string_len(val)
                                                              : strlen(s);
        r.kind = R_INLINE;
        if (l >= 7 && strncmp(s, "base64:", 7) == 0) {
            size_t dl = 0;
            st = b64decode(s + 7, l - 7, &r.data, &dl);
            r.len = dl;
        } else if ((r.data = malloc(l ? l : 1)) == NULL) {
            st = NC_ENOMEM;
        } else {
            memcpy(r.data, s, l);
            r.len = l;
        }
    }
    if (st == NC_NOERR) {
        rref *t = grow(m->refs, &m->cap, m->n, sizeof(*t));
        if (t == NULL)
            st = NC_ENOMEM;
        else {
            m->refs = t;
            r.seq = m->n;
            m->refs[m->n++] = r;
            return NC_NOERR;
        }
    }
    ref_free(&r);
    return st;
}

/* One dimension of a gen entry as its list of values. */
static int
gen_dim(json_object *d, long long **valsp, size_t *np)
{
    long long start = 0, stop = 0, step = 1, *v;
    size_t n;
    if (json_object_is_type(d, json_type_int)) {
        stop = json_object_get_int64(d);
    } else if (json_object_is_type(d, json_type_array)) {
        n = json_object_array_length(d);
        if (n > NCZ_REF_MAX_KEYS || (v = malloc((n ? n : 1) * sizeof(*v))) == NULL)
            return n > NCZ_REF_MAX_KEYS ? NC_EINVAL : NC_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            json_object *e = json_object_array_get_idx(d, i);
            if (!json_object_is_type(e, json_type_int)) {
                free(v);
                return NC_EINVAL;
            }
            v[i] = json_object_get_int64(e);
        }
        *valsp = v;
        *np = n;
        return NC_NOERR;
    } else if (json_object_is_type(d, json_type_object)) {
        json_object *a = NULL, *b = NULL, *c = NULL;
        json_object_object_get_ex(d, "start", &a);
        json_object_object_get_ex(d, "stop", &b);
        json_object_object_get_ex(d, "step", &c);
        if (b == NULL || !json_object_is_type(b, json_type_int) ||
            (a && !json_object_is_type(a, json_type_int)) || (c && !json_object_is_type(c, json_type_int)))
            return NC_EINVAL;
        start = a ? json_object_get_int64(a) : 0;
        stop = json_object_get_int64(b);
        step = c ? json_object_get_int64(c) : 1;
    } else {
        return NC_EINVAL;
    }
    if (step <= 0 || start < -(LLONG_MAX / 4) || stop > LLONG_MAX / 4)
        return NC_EINVAL;
    n = stop > start ? (size_t)((stop - start + step - 1) / step) : 0;
    if (n > NCZ_REF_MAX_KEYS || (v = malloc((n ? n : 1) * sizeof(*v))) == NULL)
        return n > NCZ_REF_MAX_KEYS ? NC_EINVAL : NC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = start + (long long)i * step;
    *valsp = v;
    *np = n;
    return NC_NOERR;
}

static int
gen_render_int(json_object *o, const tvars *tv, long long *vp)
{
    char *s = NULL, *e;
    int st;
    if (json_object_is_type(o, json_type_int)) {
        *vp = json_object_get_int64(o);
        return *vp < 0 ? NC_EINVAL : NC_NOERR;
    }
    if (!json_object_is_type(o, json_type_string))
        return NC_EINVAL;
    if ((st = render(json_object_get_string(o), tv, &s)))
        return st;
    errno = 0;
    *vp = strtoll(s, &e, 10);
    st = (errno || e == s || *e || *vp < 0) ? NC_EINVAL : NC_NOERR;
    free(s);
    return st;
}

/* Expand one "gen" entry. */
static int
add_gen(RefMap *m, json_object *g, json_object *templates)
{
    json_object *key = NULL, *url = NULL, *off = NULL, *len = NULL, *dims = NULL;
    long long *vals[8] = {0};
    size_t nv[8] = {0}, idx[8] = {0}, nd = 0;
    tvars tv;
    int st = NC_NOERR;

    memset(&tv, 0, sizeof(tv));
    tv.templates = templates;
    if (!json_object_is_type(g, json_type_object) || !json_object_object_get_ex(g, "key", &key) ||
        !json_object_object_get_ex(g, "url", &url) ||
        !json_object_object_get_ex(g, "dimensions", &dims) ||
        !json_object_is_type(key, json_type_string) || !json_object_is_type(url, json_type_string) ||
        !json_object_is_type(dims, json_type_object))
        return NC_EINVAL;
    json_object_object_get_ex(g, "offset", &off);
    json_object_object_get_ex(g, "length", &len);
    if ((off == NULL) != (len == NULL))
        return NC_EINVAL;
    {
        json_object_object_foreach(dims, name, d) {
            if (nd == 8) {
                st = NC_EINVAL;
                break;
            }
            tv.names[nd] = name;
            if ((st = gen_dim(d, &vals[nd], &nv[nd])))
                break;
            nd++;
        }
    }
    tv.nint = nd;
    for (size_t i = 0; i < nd && !st; i++)
        if (nv[i] == 0)
            goto done; /* an empty product */
    while (!st) {
        char *k = NULL, *u = NULL;
        json_object *val;
        long long o = 0, l = 0;
        for (size_t i = 0; i < nd; i++)
            tv.vals[i] = vals[i][idx[i]];
        if ((st = render(json_object_get_string(key), &tv, &k)))
            break;
        if ((st = render(json_object_get_string(url), &tv, &u))) {
            free(k);
            break;
        }
        if (off != NULL && ((st = gen_render_int(off, &tv, &o)) || (st = gen_render_int(len, &tv, &l)))) {
            free(k);
            free(u);
            break;
        }
        val = json_object_new_array();
        if (val == NULL) {
            st = NC_ENOMEM;
        } else {
            json_object_array_add(val, json_object_new_string(u));
            if (off != NULL) {
                json_object_array_add(val, json_object_new_int64(o));
                json_object_array_add(val, json_object_new_int64(l));
            }
            /* The url is expanded already: no templates for it again. */
            tvars none;
            memset(&none, 0, sizeof(none));
            st = add_ref(m, k, val, &none);
            json_object_put(val);
        }
        free(k);
        free(u);
        /* next index of the product (the last dimension fastest) */
        size_t i = nd;
        while (i > 0 && ++idx[i - 1] == nv[i - 1]) {
            idx[i - 1] = 0;
            i--;
        }
        if (i == 0)
            break;
    }
done:
    for (size_t i = 0; i < 8; i++)
        free(vals[i]);
    return st;
}

static int
cmp_ref(const void *a, const void *b)
{
    const rref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
build(RefMap *m, json_object *root)
{
    json_object *refs = root, *ver = NULL, *templates = NULL, *gen = NULL;
    tvars tv;
    int st = NC_NOERR;

    if (!json_object_is_type(root, json_type_object))
        return NC_ENOTNC;
    memset(&tv, 0, sizeof(tv));
    if (json_object_object_get_ex(root, "version", &ver)) {
        if (!json_object_is_type(ver, json_type_int) || json_object_get_int(ver) != 1 ||
            !json_object_object_get_ex(root, "refs", &refs) ||
            !json_object_is_type(refs, json_type_object))
            return NC_ENOTNC;
        if (json_object_object_get_ex(root, "templates", &templates) &&
            !json_object_is_type(templates, json_type_object))
            return NC_ENOTNC;
        tv.templates = templates;
        if (json_object_object_get_ex(root, "gen", &gen) && !json_object_is_type(gen, json_type_array))
            return NC_ENOTNC;
    }
    {
        json_object_object_foreach(refs, k, v) {
            if ((st = add_ref(m, k, v, &tv)))
                return st;
        }
    }
    for (size_t i = 0; gen != NULL && i < json_object_array_length(gen) && !st; i++)
        st = add_gen(m, json_object_array_get_idx(gen, i), templates);
    if (st)
        return st;
    /* Sorted; of equal keys the last one given stays. */
    if (m->n > 1) {
        size_t w = 0;
        qsort(m->refs, m->n, sizeof(*m->refs), cmp_ref);
        for (size_t i = 0; i < m->n; i++) {
            if (w > 0 && strcmp(m->refs[w - 1].key, m->refs[i].key) == 0)
                ref_free(&m->refs[--w]);
            m->refs[w++] = m->refs[i];
        }
        m->n = w;
    }
    return NC_NOERR;
}

/* ---- targets -------------------------------------------------------------------- */

/* Open target s once (locked). */
static int
src_open(rsrc *s)
{
    if (s->opened)
        return s->err;
    s->opened = 1;
    if (s->path == NULL) {
        s->err = NC_remote_open(s->url, &s->r);
        if (!s->err)
            s->size = NC_remote_size(s->r);
    } else {
        struct stat sb;
        if ((s->fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
            s->err = errno == ENOENT || errno == ENOTDIR ? NC_ENOTFOUND : NC_EACCESS;
        else if (fstat(s->fd, &sb) < 0 || !S_ISREG(sb.st_mode))
            s->err = NC_EACCESS;
        else
            s->size = (uint64_t)sb.st_size;
    }
    return s->err;
}

static int
src_pread(rsrc *s, uint64_t off, size_t n, void *buf)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = pread(s->fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return NC_EIO;
        p += r;
        off += (uint64_t)r;
        n -= (size_t)r;
    }
    return NC_NOERR;
}

static rref *
find(RefMap *m, const char *key)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->refs[mid].key, key);
        if (c == 0)
            return &m->refs[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Where the object of r lies: target bytes [*offp, *offp + *lenp) (locked).
 * Checked against the target's size. */
static int
locate(RefMap *m, rref *r, rsrc **sp, uint64_t *offp, uint64_t *lenp)
{
    rsrc *s = &m->srcs[r->src];
    int st = src_open(s);
    if (st)
        return st;
    *sp = s;
    if (r->kind == R_WHOLE) {
        *offp = 0;
        *lenp = s->size;
        return NC_NOERR;
    }
    if (r->off > s->size || r->len > s->size - r->off)
        return NC_EIO; /* the reference points past its target's end */
    *offp = r->off;
    *lenp = r->len;
    return NC_NOERR;
}

/* ---- the ops ---------------------------------------------------------------------- */

static int
ref_close(NCZ_map *map, int deleteit)
{
    RefMap *m = (RefMap *)map;
    (void)deleteit;
    for (size_t i = 0; i < m->n; i++)
        ref_free(&m->refs[i]);
    for (size_t i = 0; i < m->nsrc; i++) {
        free(m->srcs[i].url);
        free(m->srcs[i].path);
        if (m->srcs[i].fd >= 0)
            close(m->srcs[i].fd);
        NC_remote_close(m->srcs[i].r);
    }
    pthread_mutex_destroy(&m->lock);
    free(m->refs);
    free(m->srcs);
    free(m->dir);
    free(m->head.url);
    free(m);
    return NC_NOERR;
}

static int
ref_exists(NCZ_map *map, const char *key)
{
    if (ncz_key_check(key))
        return NC_EINVAL;
    return find((RefMap *)map, key) ? NC_NOERR : NC_EEMPTY;
}

static int
ref_len(NCZ_map *map, const char *key, uint64_t *lenp)
{
    RefMap *m = (RefMap *)map;
    rref *r;
    rsrc *s;
    uint64_t off;
    int st;
    if (ncz_key_check(key))
        return NC_EINVAL;
    if ((r = find(m, key)) == NULL)
        return NC_EEMPTY;
    if (r->kind == R_INLINE) {
        *lenp = r->len;
        return NC_NOERR;
    }
    pthread_mutex_lock(&m->lock);
    st = locate(m, r, &s, &off, lenp);
    pthread_mutex_unlock(&m->lock);
    return st;
}

static int
ref_read(NCZ_map *map, const char *key, uint64_t start, uint64_t count, void *buf)
{
    RefMap *m = (RefMap *)map;
    rref *r;
    rsrc *s;
    uint64_t off, len;
    int st;
    if (ncz_key_check(key))
        return NC_EINVAL;
    if ((r = find(m, key)) == NULL)
        return NC_EEMPTY;
    if (r->kind == R_INLINE) {
        if (start > r->len || count > r->len - start)
            return NC_EINVAL;
        if (count)
            memcpy(buf, r->data + start, (size_t)count);
        return NC_NOERR;
    }
    pthread_mutex_lock(&m->lock);
    if ((st = locate(m, r, &s, &off, &len)) == NC_NOERR) {
        if (start > len || count > len - start || count > SIZE_MAX)
            st = NC_EINVAL;
        else if (count == 0)
            st = NC_NOERR;
        else if (s->r != NULL)
            st = NC_remote_read(s->r, off + start, (size_t)count, buf);
        else
            st = src_pread(s, off + start, (size_t)count, buf);
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

static int
ref_read_all(NCZ_map *map, const char *key, void **datap, size_t *lenp)
{
    uint64_t len;
    void *b;
    int st;
    if ((st = ref_len(map, key, &len)))
        return st;
    if (len > SIZE_MAX - 1 || (b = malloc(len ? (size_t)len : 1)) == NULL)
        return NC_ENOMEM;
    if ((st = ref_read(map, key, 0, len, b))) {
        free(b);
        return st;
    }
    *datap = b;
    *lenp = (size_t)len;
    return NC_NOERR;
}

/* Several reads: inline and local ones one after another, the ranges of
 * each remote target in one read_many of the remote reader (merged and
 * concurrent requests). */
static int
ref_read_many(NCZ_map *map, size_t n, NCZ_read_req *reqs)
{
    RefMap *m = (RefMap *)map;
    NC_remote_range *rg = NULL;
    void **bufs = NULL;
    size_t *which = NULL;
    int first = NC_NOERR;

    if (n == 0)
        return NC_NOERR;
    if ((rg = malloc(n * sizeof(*rg))) == NULL || (bufs = malloc(n * sizeof(*bufs))) == NULL ||
        (which = malloc(n * sizeof(*which))) == NULL) {
        free(rg);
        free(bufs);
        return NC_ENOMEM;
    }
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < n; i++) {
        reqs[i].data = NULL;
        reqs[i].len = 0;
        reqs[i].status = NC_NOERR;
    }
    /* Each remote target in turn; everything else at the first pass. */
    for (size_t si = 0; si <= m->nsrc; si++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            NCZ_read_req *q = &reqs[i];
            rref *r;
            rsrc *s = NULL;
            uint64_t off = 0, len = 0, cnt;
            if (q->status != NC_NOERR || q->data != NULL)
                continue;
            if (ncz_key_check(q->key)) {
                q->status = NC_EINVAL;
                continue;
            }
            if ((r = find(m, q->key)) == NULL) {
                q->status = NC_EEMPTY;
                continue;
            }
            if (r->kind == R_INLINE) {
                off = 0;
                len = r->len;
            } else if (si == m->nsrc && m->srcs[r->src].path == NULL) {
                continue; /* remote: read at its target's turn */
            } else if (si < m->nsrc && r->src != si) {
                continue;
            } else if ((q->status = locate(m, r, &s, &off, &len))) {
                continue;
            }
            cnt = q->count == (uint64_t)-1 ? (q->start <= len ? len - q->start : 0) : q->count;
            if (q->start > len || cnt > len - q->start || cnt > SIZE_MAX - 1) {
                q->status = NC_EINVAL;
                continue;
            }
            if ((q->data = malloc(cnt ? (size_t)cnt : 1)) == NULL) {
                q->status = NC_ENOMEM;
                continue;
            }
            q->len = (size_t)cnt;
            if (r->kind == R_INLINE) {
                if (cnt)
                    memcpy(q->data, r->data + q->start, (size_t)cnt);
            } else if (s->r == NULL) {
                q->status = cnt ? src_pread(s, off + q->start, (size_t)cnt, q->data) : NC_NOERR;
            } else if (cnt) {
                rg[k].off = off + q->start;
                rg[k].len = (size_t)cnt;
                bufs[k] = q->data;
                which[k++] = i;
            }
        }
        if (k > 0) {
            int st = NC_remote_read_many(m->srcs[si].r, k, rg, bufs);
            for (size_t j = 0; j < k && st; j++)
                reqs[which[j]].status = st;
        }
        if (si == m->nsrc)
            break;
    }
    pthread_mutex_unlock(&m->lock);
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].status != NC_NOERR) {
            free(reqs[i].data);
            reqs[i].data = NULL;
            reqs[i].len = 0;
            if (first == NC_NOERR && reqs[i].status != NC_EEMPTY)
                first = reqs[i].status;
        }
    }
    free(rg);
    free(bufs);
    free(which);
    return first;
}

static int
ref_write(NCZ_map *map, const char *key, uint64_t count, const void *content)
{
    (void)map; (void)key; (void)count; (void)content;
    return NC_EPERM;
}

static int
ref_del(NCZ_map *map, const char *key)
{
    (void)map; (void)key;
    return NC_EPERM;
}

static int
ref_lister(NCZ_map *map, const char *prefix, int full, NCZ_keys *out)
{
    RefMap *m = (RefMap *)map;
    size_t pl = strcmp(prefix, "/") == 0 ? 0 : strlen(prefix);
    for (size_t i = 0; i < m->n; i++) {
        const char *k = m->refs[i].key, *rest, *slash;
        int st;
        if (strncmp(k, prefix, pl) != 0 || k[pl] != '/')
            continue;
        rest = k + pl + 1;
        if (full)
            st = ncz_keys_add_full(out, pl ? prefix : "", rest, strlen(rest));
        else {
            slash = strchr(rest, '/');
            st = ncz_keys_add_child(out, rest, slash ? (size_t)(slash - rest) : strlen(rest));
        }
        if (st)
            return st;
    }
    return NC_NOERR;
}

static int
ref_list(NCZ_map *map, const char *prefix, NCZ_keys *out)
{
    return ncz_list_frame(map, prefix, 0, out, ref_lister);
}

static int
ref_list_all(NCZ_map *map, const char *prefix, NCZ_keys *out)
{
    return ncz_list_frame(map, prefix, 1, out, ref_lister);
}

static uint64_t
ref_nrequests(NCZ_map *map)
{
    RefMap *m = (RefMap *)map;
    uint64_t n = 0;
    for (size_t i = 0; i < m->nsrc; i++) {
        if (m->srcs[i].r != NULL) {
            NC_remote_stats st;
            NC_remote_get_stats(m->srcs[i].r, &st);
            n += st.requests;
        }
    }
    return n;
}

static int
ref_write_many(NCZ_map *map, size_t n, NCZ_write_req *reqs)
{
    (void)map;
    for (size_t i = 0; i < n; i++)
        reqs[i].status = NC_EPERM;
    return n ? NC_EPERM : NC_NOERR;
}

static const NCZ_map_ops ref_ops = {
    .version = NCZ_MAP_VERSION,
    .close = ref_close,
    .exists = ref_exists,
    .len = ref_len,
    .read = ref_read,
    .read_all = ref_read_all,
    .write = ref_write,
    .del = ref_del,
    .list = ref_list,
    .list_all = ref_list_all,
    .read_many = ref_read_many,
    .nrequests = ref_nrequests,
    .write_many = ref_write_many,
};

int
ncz_map_ref_open(const char *url, int mode, NCZ_map **mapp)
{
    RefMap *m;
    json_object *root = NULL;
    char *text = NULL;
    size_t tlen = 0;
    int st;

    *mapp = NULL;
    if (mode & (NCZ_MAP_WRITE | NCZ_MAP_CREATE))
        return NC_EPERM;
    if ((m = calloc(1, sizeof(*m))) == NULL)
        return NC_ENOMEM;
    pthread_mutex_init(&m->lock, NULL);
    m->head.ops = &ref_ops;
    m->head.impl = NCZ_MAP_REF;
    m->head.mode = NCZ_MAP_READ;
    if ((m->head.url = strdup(url)) == NULL) {
        ref_close(&m->head, 0);
        return NC_ENOMEM;
    }
    if (is_remote(url)) {
        st = slurp_remote(url, &text, &tlen);
    } else {
        const char *p = url, *slash;
        if (strncasecmp(p, "file://", 7) == 0) {
            p += 7;
            if (strncasecmp(p, "localhost/", 10) == 0)
                p += 9;
        }
        slash = strrchr(p, '/');
        if ((m->dir = slash ? strndup(p, slash == p ? 1 : (size_t)(slash - p)) : strdup(".")) == NULL)
            st = NC_ENOMEM;
        else
            st = slurp_local(p, &text, &tlen);
    }
    if (st == NC_NOERR) {
        json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
        if (tok == NULL)
            st = NC_ENOMEM;
        else {
            root = json_tokener_parse_ex(tok, text, (int)(tlen > INT_MAX ? INT_MAX : tlen));
            if (root == NULL || json_tokener_get_error(tok) != json_tokener_success || tlen > INT_MAX)
                st = NC_ENOTNC;
            json_tokener_free(tok);
        }
    }
    free(text);
    if (st == NC_NOERR)
        st = build(m, root);
    json_object_put(root);
    if (st) {
        ref_close(&m->head, 0);
        return st;
    }
    *mapp = &m->head;
    return NC_NOERR;
}
