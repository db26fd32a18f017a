/* d4ce.c: the DAP4 constraint expression parser (d4ce.h).
 *
 * Recursive descent over the grammar in d4ce.h; every error is
 * NC_EDAPCONSTRAINT with a message naming the offset.  Memory is bounded by
 * the text: each clause, slice and name consumes input.
 */
#include "d4ce.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"

#define D4CE_MAX_VALUE ((uint64_t)1 << 62)

typedef struct P {
    const char *s;
    size_t n, i;
    int depth;
    int stat;
    char *msg;
    size_t msglen;
} P;

/* Characters the grammar gives a meaning to, and control characters: a
 * name needs '\' before them. */
static int
special(int c)
{
    return (c >= 0 && c < 0x20) || c == '[' || c == ']' || c == '{' || c == '}' || c == ';' || c == '|' || c == ','
           || c == '=' || c == ':' || c == '"' || c == '<' || c == '>' || c == '!' || c == '~'
           || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '/' || c == '.' || c == '\\';
}

static int
fail(P *p, const char *fmt, ...)
{
    if (p->stat == NC_NOERR) {
        p->stat = NC_EDAPCONSTRAINT;
        if (p->msg && p->msglen) {
            int k = snprintf(p->msg, p->msglen, "dap4.ce at offset %zu: ", p->i);
            va_list ap;
            va_start(ap, fmt);
            if (k >= 0 && (size_t)k < p->msglen)
                vsnprintf(p->msg + k, p->msglen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return p->stat;
}

static int
nomem(P *p)
{
    if (p->stat == NC_NOERR)
        p->stat = NC_ENOMEM;
    return p->stat;
}

static void
blanks(P *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\r'
                           || p->s[p->i] == '\n'))
        p->i++;
}

static int
peek(P *p)
{
    blanks(p);
    return p->i < p->n ? (unsigned char)p->s[p->i] : -1;
}

static int
accept(P *p, int c)
{
    if (peek(p) == c) {
        p->i++;
        return 1;
    }
    return 0;
}

/* A growing string. */
typedef struct Buf {
    char *s;
    size_t len, cap;
} Buf;

static int
put(Buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *t = realloc(b->s, cap);
        if (t == NULL)
            return NC_ENOMEM;
        b->s = t;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return NC_NOERR;
}

/* One name: unescaped, except that a '\' stays before '/', '.' and '\'
 * so that the path stays unambiguous. */
static int
name(P *p, Buf *b)
{
    size_t start = b->len;
    blanks(p);
    while (p->i < p->n) {
        int c = (unsigned char)p->s[p->i];
        if (c == '\\') {
            if (p->i + 1 >= p->n)
                return fail(p, "'\\' at the end");
            c = (unsigned char)p->s[p->i + 1];
            if ((c == '/' || c == '.' || c == '\\') && put(b, "\\", 1))
                return nomem(p);
            char ch = (char)c;
            if (put(b, &ch, 1))
                return nomem(p);
            p->i += 2;
            continue;
        }
        if (special(c))
            break;
        char ch = (char)c;
        if (put(b, &ch, 1))
            return nomem(p);
        p->i++;
    }
    if (b->len == start)
        return fail(p, "a name expected");
    return NC_NOERR;
}

/* A path: ['/'] name ('/' name)* ('.' name)*; a leading '/' is added. */
static int
path(P *p, char **out, int fields)
{
    Buf b = {0};
    int seenfield = 0;
    if (!fields) {
        if (put(&b, "/", 1))
            return nomem(p);
        accept(p, '/');
    }
    for (;;) {
        if (name(p, &b))
            break;
        if (p->i < p->n && p->s[p->i] == '/' && !seenfield && !fields) {
            p->i++;
        } else if (p->i < p->n && p->s[p->i] == '.') {
            seenfield = 1;
            p->i++;
        } else {
            *out = b.s;
            return NC_NOERR;
        }
        if (put(&b, &p->s[p->i - 1], 1)) {
            nomem(p);
            break;
        }
    }
    free(b.s);
    return p->stat;
}

static int
number(P *p, uint64_t *v)
{
    uint64_t x = 0;
    size_t start;
    blanks(p);
    start = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
        x = x * 10 + (uint64_t)(p->s[p->i] - '0');
        if (x >= D4CE_MAX_VALUE)
            return fail(p, "an index too large");
        p->i++;
    }
    if (p->i == start)
        return fail(p, "an index expected");
    *v = x;
    return NC_NOERR;
}

/* first | first:last | first:stride:last | first: | first:stride: */
static int
range(P *p, D4ce_range *r)
{
    uint64_t a, b;
    if (number(p, &a))
        return p->stat;
    r->first = a;
    r->stride = 1;
    r->last = a;
    if (!accept(p, ':'))
        return NC_NOERR;
    if (peek(p) == ']' || peek(p) == ',') {
        r->last = D4CE_TOEND;
        return NC_NOERR;
    }
    if (number(p, &b))
        return p->stat;
    if (accept(p, ':')) {
        r->stride = b;
        if (peek(p) == ']' || peek(p) == ',')
            r->last = D4CE_TOEND;
        else if (number(p, &r->last))
            return p->stat;
    } else {
        r->last = b;
    }
    if (r->stride == 0)
        return fail(p, "a stride of 0");
    if (r->last != D4CE_TOEND && r->last < r->first)
        return fail(p, "last index %llu before first %llu", (unsigned long long)r->last,
                    (unsigned long long)r->first);
    return NC_NOERR;
}

/* '[' [range (',' range)*] ']' */
static int
dimslice(P *p, D4ce_dim *d)
{
    size_t cap = 0;
    if (!accept(p, '['))
        return fail(p, "'[' expected");
    if (accept(p, ']'))
        return NC_NOERR;
    for (;;) {
        if (d->nranges == cap) {
            size_t nc = cap ? 2 * cap : 2;
            D4ce_range *t = realloc(d->ranges, nc * sizeof *t);
            if (t == NULL)
                return nomem(p);
            d->ranges = t;
            cap = nc;
        }
        if (range(p, &d->ranges[d->nranges]))
            return p->stat;
        d->nranges++;
        if (accept(p, ']'))
            return NC_NOERR;
        if (!accept(p, ','))
            return fail(p, "',' or ']' expected");
    }
}

static int
slices(P *p, D4ce_clause *c)
{
    size_t cap = 0;
    while (peek(p) == '[') {
        if (c->ndims == D4CE_MAX_DIMS)
            return fail(p, "more than %d slices", D4CE_MAX_DIMS);
        if (c->ndims == cap) {
            size_t nc = cap ? 2 * cap : 4;
            D4ce_dim *t = realloc(c->dims, nc * sizeof *t);
            if (t == NULL)
                return nomem(p);
            c->dims = t;
            cap = nc;
        }
        c->dims[c->ndims].nranges = 0;
        c->dims[c->ndims].ranges = NULL;
        c->ndims++;
        if (dimslice(p, &c->dims[c->ndims - 1]))
            return p->stat;
    }
    return NC_NOERR;
}

static int put_path(Buf *b, const char *fqn);

/* An operand of a predicate, in normal form, appended to b. */
static int
operand(P *p, Buf *b)
{
    int c = peek(p);
    if (c == '"') {
        /* a string: "..." with \" and \\ escapes, kept as written */
        size_t start = p->i++;
        while (p->i < p->n && p->s[p->i] != '"') {
            if (p->s[p->i] == '\\' && p->i + 1 < p->n)
                p->i++;
            p->i++;
        }
        if (p->i >= p->n)
            return fail(p, "an unterminated string");
        p->i++;
        if (put(b, p->s + start, p->i - start))
            return nomem(p);
        return NC_NOERR;
    }
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
        /* a number: sign, digits, '.', exponent */
        size_t start = p->i;
        char *end;
        char tmp[64];
        size_t k = 0;
        while (p->i < p->n && k < sizeof tmp - 1
               && strchr("+-0123456789.eE", p->s[p->i]) != NULL && p->s[p->i] != '\0')
            tmp[k++] = p->s[p->i++];
        tmp[k] = '\0';
        (void)strtod(tmp, &end);
        if (k == 0 || *end != '\0')
            return fail(p, "a bad number");
        if (put(b, p->s + start, p->i - start))
            return nomem(p);
        return NC_NOERR;
    }
    char *pth = NULL;
    if (path(p, &pth, 1))
        return p->stat;
    /* fields are named relative to the filtered variable */
    int stat = put_path(b, pth);
    free(pth);
    return stat ? nomem(p) : NC_NOERR;
}

static int
relop(P *p, Buf *b)
{
    static const char *const ops[] = {"<=", ">=", "==", "!=", "~=", "<", ">"};
    blanks(p);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t l = strlen(ops[k]);
        if (p->i + l <= p->n && memcmp(p->s + p->i, ops[k], l) == 0) {
            p->i += l;
            return put(b, ops[k], l) ? nomem(p) : NC_NOERR;
        }
    }
    return fail(p, "a comparison (< <= > >= == != ~=) expected");
}

/* pred (',' pred)*, pred: operand relop operand [relop operand] */
static int
filter(P *p, char **out)
{
    Buf b = {0};
    for (;;) {
        if (operand(p, &b) || relop(p, &b) || operand(p, &b))
            break;
        int c = peek(p);
        if (c == '<' || c == '>' || c == '=' || c == '!' || c == '~') {
            if (relop(p, &b) || operand(p, &b))
                break;
        }
        if (!accept(p, ',')) {
            *out = b.s;
            return NC_NOERR;
        }
        if (put(&b, ",", 1)) {
            nomem(p);
            break;
        }
    }
    free(b.s);
    return p->stat;
}

static int clauses(P *p, D4ce *ce, int fields);

static void
clause_free(D4ce_clause *c)
{
    free(c->fqn);
    for (size_t i = 0; i < c->ndims; i++)
        free(c->dims[i].ranges);
    free(c->dims);
    d4ce_free(c->fields);
    free(c->filter);
}

static int
clause(P *p, D4ce_clause *c, int fields)
{
    if (path(p, &c->fqn, fields))
        return p->stat;
    if (!fields && accept(p, '=')) {
        c->isdim = 1;
        if ((c->dims = calloc(1, sizeof *c->dims)) == NULL)
            return nomem(p);
        c->ndims = 1;
        if (dimslice(p, &c->dims[0]))
            return p->stat;
        if (c->dims[0].nranges != 1)
            return fail(p, "a dimension takes one slice");
        return NC_NOERR;
    }
    if (slices(p, c))
        return p->stat;
    if (accept(p, '{')) {
        if (p->depth >= D4CE_MAX_DEPTH)
            return fail(p, "projections nested deeper than %d", D4CE_MAX_DEPTH);
        if ((c->fields = calloc(1, sizeof *c->fields)) == NULL)
            return nomem(p);
        p->depth++;
        if (clauses(p, c->fields, 1))
            return p->stat;
        p->depth--;
        if (!accept(p, '}'))
            return fail(p, "'}' expected");
        if (c->fields->n == 0)
            return fail(p, "an empty projection");
    }
    if (accept(p, '|') && filter(p, &c->filter))
        return p->stat;
    return NC_NOERR;
}

/* clause (';' clause)*; empty clauses (";;", a trailing ';') are skipped. */
static int
clauses(P *p, D4ce *ce, int fields)
{
    size_t cap = 0;
    for (;;) {
        int c = peek(p);
        if (c == -1 || (fields && c == '}'))
            return NC_NOERR;
        if (c == ';') {
            p->i++;
            continue;
        }
        if (ce->n == cap) {
            size_t nc = cap ? 2 * cap : 4;
            D4ce_clause *t = realloc(ce->c, nc * sizeof *t);
            if (t == NULL)
                return nomem(p);
            ce->c = t;
            cap = nc;
        }
        memset(&ce->c[ce->n], 0, sizeof ce->c[0]);
        ce->n++;
        if (clause(p, &ce->c[ce->n - 1], fields))
            return p->stat;
        c = peek(p);
        if (c == ';')
            p->i++;
        else if (c != -1 && !(fields && c == '}'))
            return fail(p, "';' expected");
    }
}

int
d4ce_parse(const char *text, size_t len, D4ce **cep, char *msg, size_t msglen)
{
    P p = {.s = text, .n = len, .msg = msg, .msglen = msglen};
    D4ce *ce;

    *cep = NULL;
    if (msg && msglen)
        msg[0] = '\0';
    if ((ce = calloc(1, sizeof *ce)) == NULL)
        return NC_ENOMEM;
    if (memchr(text, '\0', len) != NULL)
        fail(&p, "a NUL character");
    else
        clauses(&p, ce, 0);
    if (p.stat) {
        d4ce_free(ce);
        return p.stat;
    }
    *cep = ce;
    return NC_NOERR;
}

void
d4ce_free(D4ce *ce)
{
    if (ce == NULL)
        return;
    for (size_t i = 0; i < ce->n; i++)
        clause_free(&ce->c[i]);
    free(ce->c);
    free(ce);
}

size_t
d4ce_escape(const char *name, char *out, size_t cap)
{
    size_t k = 0;
    for (const char *q = name; *q; q++) {
        if (*q == '\\' && q[1]) {
            /* an escaped separator stays escaped */
            if (k + 2 < cap) {
                out[k] = q[0];
                out[k + 1] = q[1];
            }
            k += 2;
            q++;
            continue;
        }
        if (special((unsigned char)*q) && *q != '/' && *q != '.') {
            if (k + 1 < cap)
                out[k] = '\\';
            k++;
        }
        if (k + 1 < cap)
            out[k] = *q;
        k++;
    }
    if (cap)
        out[k < cap ? k : cap - 1] = '\0';
    return k;
}

static int
put_path(Buf *b, const char *fqn)
{
    size_t n = d4ce_escape(fqn, NULL, 0);
    char *e = malloc(n + 1);
    int stat;
    if (e == NULL)
        return NC_ENOMEM;
    d4ce_escape(fqn, e, n + 1);
    stat = put(b, e, n);
    free(e);
    return stat;
}

static int
format(const D4ce *ce, Buf *b)
{
    char tmp[96];
    for (size_t i = 0; i < ce->n; i++) {
        const D4ce_clause *c = &ce->c[i];
        if (i && put(b, ";", 1))
            return NC_ENOMEM;
        if (put_path(b, c->fqn))
            return NC_ENOMEM;
        if (c->isdim && put(b, "=", 1))
            return NC_ENOMEM;
        for (size_t d = 0; d < c->ndims; d++) {
            if (put(b, "[", 1))
                return NC_ENOMEM;
            for (size_t r = 0; r < c->dims[d].nranges; r++) {
                const D4ce_range *x = &c->dims[d].ranges[r];
                int k;
                if (x->last == D4CE_TOEND)
                    k = snprintf(tmp, sizeof tmp, "%s%llu:%llu:", r ? "," : "",
                                 (unsigned long long)x->first, (unsigned long long)x->stride);
                else
                    k = snprintf(tmp, sizeof tmp, "%s%llu:%llu:%llu", r ? "," : "",
                                 (unsigned long long)x->first, (unsigned long long)x->stride,
                                 (unsigned long long)x->last);
                if (put(b, tmp, (size_t)k))
                    return NC_ENOMEM;
            }
            if (put(b, "]", 1))
                return NC_ENOMEM;
        }
        if (c->fields) {
            if (put(b, "{", 1) || format(c->fields, b) || put(b, "}", 1))
                return NC_ENOMEM;
        }
        if (c->filter && (put(b, "|", 1) || put(b, c->filter, strlen(c->filter))))
            return NC_ENOMEM;
    }
    return NC_NOERR;
}

int
d4ce_format(const D4ce *ce, char **outp)
{
    Buf b = {0};
    *outp = NULL;
    if (put(&b, "", 0) || format(ce, &b)) {
        free(b.s);
        return NC_ENOMEM;
    }
    *outp = b.s;
    return NC_NOERR;
}

const D4ce_clause *
d4ce_find(const D4ce *ce, const char *fqn)
{
    if (ce == NULL)
        return NULL;
    for (size_t i = 0; i < ce->n; i++)
        if (!ce->c[i].isdim && strcmp(ce->c[i].fqn, fqn) == 0)
            return &ce->c[i];
    return NULL;
}

int
d4ce_is_simple(const D4ce *ce)
{
    for (size_t i = 0; i < ce->n; i++) {
        const D4ce_clause *c = &ce->c[i];
        if (c->isdim || c->fields || c->filter || strchr(c->fqn, '.') != NULL)
            return 0;
        for (size_t d = 0; d < c->ndims; d++)
            if (c->dims[d].nranges > 1)
                return 0;
    }
    return 1;
}
