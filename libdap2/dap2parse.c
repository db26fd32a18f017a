/* dap2parse.c: the DDS and DAS parsers of the DAP2 client.
 *
 * Hand-written recursive descent over upstream's grammar (oc2's dap.y) and
 * its lexical rules: word characters, case-insensitive keywords that may
 * also be names (spelled in lower case then), quoted strings that keep
 * each backslash and the character after it, '#' comments, "%XX" in names
 * decoded only when XX is a letter, digit or one of _!~*'-".  Every
 * declared size is checked, nesting is limited to D2_MAX_DEPTH, and a
 * malformed text is NC_EDDS (NC_EDAS) with nothing leaked.
 *
 * Sections: lexer, DDS, DAS, freeing.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "dap2.h"

/* ---- lexer ---------------------------------------------------------------------- */

enum {
    T_EOF = 0, T_ERR = 1, T_WORD = 256, T_STRING, T_DATA,
    /* keywords, in the order of the table below */
    K_ALIAS, K_ARRAY, K_ATTR, K_BYTE, K_DATASET, K_ERROR, K_FLOAT32, K_FLOAT64, K_GRID,
    K_INT16, K_INT32, K_MAPS, K_SEQUENCE, K_STRING, K_STRUCTURE, K_UINT16, K_UINT32,
    K_URL, K_CODE, K_MESSAGE, K_PTYPE, K_PROG
};

static const char *const keywords[] = {
    "alias", "array", "attributes", "byte", "dataset", "error", "float32", "float64",
    "grid", "int16", "int32", "maps", "sequence", "string", "structure", "uint16",
    "uint32", "url", "code", "message", "program_type", "program"};
#define NKEYWORDS (sizeof keywords / sizeof keywords[0])

#define WORDCHARS1 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-+_/%\\.*"
#define DDSCHARSN WORDCHARS1 "#"
#define DASCHARSN WORDCHARS1 "#:"
#define DELIMS "{}[]:;=,"

typedef struct Lex {
    const char *s;         /* input */
    size_t len, pos;
    const char *charsn;    /* characters that continue a word */
    int tok;               /* current token */
    char *text;            /* its text (words, strings); owned */
    size_t tlen, tcap;
    int nomem;
    /* one token of look-ahead */
    int havepeek;
    size_t peekpos;
} Lex;

static void
addc(Lex *lx, char c)
{
    if (lx->tlen + 1 >= lx->tcap) {
        size_t ncap = lx->tcap ? lx->tcap * 2 : 64;
        char *t = realloc(lx->text, ncap);
        if (t == NULL) {
            lx->nomem = 1;
            return;
        }
        lx->text = t;
        lx->tcap = ncap;
    }
    lx->text[lx->tlen++] = c;
    lx->text[lx->tlen] = '\0';
}

/* Reads the next token into lx->tok / lx->text. */
static int
next(Lex *lx)
{
    lx->tlen = 0;
    if (lx->text)
        lx->text[0] = '\0';
    lx->tok = T_EOF;
    while (lx->pos < lx->len) {
        unsigned char c = (unsigned char)lx->s[lx->pos];
        if (c == '\0')
            break;
        if (c <= ' ' || c >= 0x7f) {  /* upstream's lexer: signed chars, so >= 0x80 is blank */
            lx->pos++;
        } else if (c == '#') {
            while (lx->pos < lx->len && lx->s[lx->pos] != '\n' && lx->s[lx->pos] != '\0')
                lx->pos++;
        } else if (strchr(DELIMS, c) != NULL) {
            lx->pos++;
            return lx->tok = c;
        } else if (c == '"') {
            lx->pos++;
            addc(lx, '\0');
            lx->tlen = 0;
            while (lx->pos < lx->len && lx->s[lx->pos] != '\0') {
                char d = lx->s[lx->pos++];
                if (d == '"')
                    return lx->tok = T_STRING;
                if (d == '\\') {
                    addc(lx, d);  /* the backslash stays: attribute code expands escapes */
                    if (lx->pos >= lx->len || lx->s[lx->pos] == '\0')
                        break;
                    d = lx->s[lx->pos++];
                }
                addc(lx, d);
            }
            return lx->tok = T_STRING;  /* unterminated: up to the end, as upstream */
        } else if (strchr(WORDCHARS1, c) != NULL) {
            while (lx->pos < lx->len && lx->s[lx->pos] != '\0'
                   && strchr(lx->charsn, lx->s[lx->pos]) != NULL)
                addc(lx, lx->s[lx->pos++]);
            if (lx->tlen == 4 && strcmp(lx->text, "Data") == 0 && lx->pos < lx->len
                && lx->s[lx->pos] == ':') {
                size_t p = lx->pos + 1;
                if (p < lx->len && (lx->s[p] == '\n'
                                    || (lx->s[p] == '\r' && p + 1 < lx->len && lx->s[p + 1] == '\n'))) {
                    lx->pos = p + (lx->s[p] == '\r' ? 2 : 1);
                    return lx->tok = T_DATA;
                }
            }
            for (size_t i = 0; i < NKEYWORDS; i++)
                if (strcasecmp(keywords[i], lx->text) == 0)
                    return lx->tok = K_ALIAS + (int)i;
            return lx->tok = T_WORD;
        } else {
            lx->pos++;  /* illegal characters are skipped, as upstream */
        }
    }
    return lx->tok;
}

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A name from a word: "%XX" decoded when XX is a character legal in DAP2 names. */
static char *
decode_name(const char *w)
{
    static const char *legal =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_!~*'-\"";
    size_t n = strlen(w);
    char *out = malloc(n + 1), *q = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (w[i] == '%' && i + 2 < n && hexval((unsigned char)w[i + 1]) >= 0
            && hexval((unsigned char)w[i + 2]) >= 0) {
            int c = hexval((unsigned char)w[i + 1]) * 16 + hexval((unsigned char)w[i + 2]);
            if (c != 0 && strchr(legal, c) != NULL) {
                *q++ = (char)c;
                i += 2;
                continue;
            }
        }
        *q++ = w[i];
    }
    *q = '\0';
    return out;
}

/* Is the current token something that can be a name? */
static int
isname(const Lex *lx)
{
    return lx->tok == T_WORD || (lx->tok >= K_ALIAS && lx->tok <= K_PROG);
}

/* The name the current token spells (a keyword keeps its spelling). */
static char *
take_name(Lex *lx)
{
    return decode_name(lx->text ? lx->text : "");
}

/* The type a keyword names, D2_NAT if none. */
static int
keyword_type(int tok)
{
    switch (tok) {
    case K_BYTE: return D2_BYTE;
    case K_INT16: return D2_INT16;
    case K_UINT16: return D2_UINT16;
    case K_INT32: return D2_INT32;
    case K_UINT32: return D2_UINT32;
    case K_FLOAT32: return D2_FLOAT32;
    case K_FLOAT64: return D2_FLOAT64;
    case K_STRING: return D2_STRING;
    case K_URL: return D2_URL;
    default: return D2_NAT;
    }
}

/* Look at the token after the current one without consuming it. */
static int
peek(Lex *lx)
{
    Lex save = *lx;
    char *savetext = lx->text ? strdup(lx->text) : NULL;
    int t;
    if (lx->text != NULL && savetext == NULL) {
        lx->nomem = 1;
        return T_ERR;
    }
    t = next(lx);
    /* restore */
    lx->pos = save.pos;
    lx->tok = save.tok;
    lx->tlen = save.tlen;
    if (savetext != NULL) {
        memcpy(lx->text, savetext, save.tlen + 1);
        free(savetext);
    }
    return t;
}

static void
lex_init(Lex *lx, const char *s, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->s = s;
    lx->len = len;
    lx->charsn = DDSCHARSN;
}

/* ---- server error responses ------------------------------------------------------- */

/* "Error { code = N; message = "..."; };": the message. */
static char *
error_message(Lex *lx)
{
    char *msg = NULL;
    if (next(lx) != '{')
        return NULL;
    while (next(lx) != T_EOF && lx->tok != '}') {
        int key = lx->tok;
        if (next(lx) != '=')
            break;
        next(lx);
        if (key == K_MESSAGE && (lx->tok == T_WORD || lx->tok == T_STRING) && msg == NULL)
            msg = strdup(lx->text ? lx->text : "");
        next(lx);  /* ';' */
    }
    return msg;
}

/* ---- DDS ------------------------------------------------------------------------------ */

typedef struct Pstate {
    Lex lx;
    size_t nnodes;
    int err;       /* first semantic error */
} Pstate;

static D2node *
new_node(Pstate *ps, int kind)
{
    D2node *n;
    if (++ps->nnodes > D2_MAX_NODES) {
        ps->err = NC_EDDS;
        return NULL;
    }
    n = calloc(1, sizeof *n);
    if (n == NULL)
        ps->err = NC_ENOMEM;
    else
        n->kind = kind;
    return n;
}

void
d2_node_free(D2node *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->nfields; i++)
        d2_node_free(n->fields[i]);
    free(n->fields);
    for (size_t i = 0; i < n->rank; i++)
        free(n->dims[i].name);
    free(n->dims);
    for (size_t i = 0; i < n->natts; i++) {
        free(n->atts[i].name);
        for (size_t j = 0; j < n->atts[i].nvalues; j++)
            free(n->atts[i].values[j]);
        free(n->atts[i].values);
    }
    free(n->atts);
    if (n->col != NULL && (n->atype == D2_STRING || n->atype == D2_URL)) {
        char **s = n->col;
        for (size_t i = 0; i < n->ncol; i++)
            free(s[i]);
    }
    free(n->col);
    free(n->name);
    free(n);
}

static int add_field(D2node *parent, D2node *child);

/* Adds a member, refusing a name already used in the same scope. */
static int
add_field(D2node *parent, D2node *child)
{
    for (size_t i = 0; i < parent->nfields; i++)
        if (strcmp(parent->fields[i]->name, child->name) == 0)
            return NC_ENAMEINUSE;
    if ((parent->nfields & (parent->nfields - 1)) == 0) {  /* 0, 1, 2, 4, ... */
        size_t ncap = parent->nfields ? parent->nfields * 2 : 1;
        D2node **f = realloc(parent->fields, ncap * sizeof *f);
        if (f == NULL)
            return NC_ENOMEM;
        parent->fields = f;
    }
    parent->fields[parent->nfields++] = child;
    child->parent = parent;
    return NC_NOERR;
}

/* A dimension size: an integer (any C base) in 0..INT32_MAX. */
static int
dim_size(const char *w, size_t *sizep)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(w, &end, 0);
    if (end == w || *end != '\0' || errno != 0 || v < 0 || v > INT32_MAX)
        return NC_EDDS;
    *sizep = (size_t)v;
    return NC_NOERR;
}

/* array_decls: ('[' [name] ['='] size ']')* ; leaves the token after them. */
static int
parse_dims(Pstate *ps, D2node *n)
{
    Lex *lx = &ps->lx;
    size_t total = 1;
    while (lx->tok == '[') {
        D2dim d = {NULL, 0};
        D2dim *nd;
        next(lx);
        if (lx->tok == '=') {
            next(lx);
        } else if (isname(lx) && peek(lx) == '=') {
            if ((d.name = take_name(lx)) == NULL)
                return NC_ENOMEM;
            next(lx);
            next(lx);
        }
        if (lx->tok != T_WORD || dim_size(lx->text, &d.size) != NC_NOERR || next(lx) != ']') {
            free(d.name);
            return NC_EDDS;
        }
        if (n->rank >= D2_MAX_RANK || (d.size > 0 && total > D2_MAX_ELEMS / d.size)) {
            free(d.name);
            return NC_EDDS;
        }
        if (d.size > 0)
            total *= d.size;
        nd = realloc(n->dims, (n->rank + 1) * sizeof *nd);
        if (nd == NULL) {
            free(d.name);
            return NC_ENOMEM;
        }
        n->dims = nd;
        n->dims[n->rank++] = d;
        next(lx);
    }
    return NC_NOERR;
}

static int parse_declarations(Pstate *ps, D2node *parent, int depth);

/* One declaration; on entry the current token starts it, on exit the token
 * after its ';' is current.  *np gets the node. */
static int
parse_declaration(Pstate *ps, int depth, D2node **np)
{
    Lex *lx = &ps->lx;
    D2node *n = NULL;
    int stat = NC_NOERR;
    int atype = keyword_type(lx->tok);

    *np = NULL;
    if (depth > D2_MAX_DEPTH)
        return NC_EDDS;
    if (atype != D2_NAT) {
        if ((n = new_node(ps, D2_ATOMIC)) == NULL)
            return ps->err;
        n->atype = atype;
        next(lx);
        if (!isname(lx)) {
            stat = NC_EDDS;
            goto done;
        }
        if ((n->name = take_name(lx)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        next(lx);
        if ((stat = parse_dims(ps, n)))
            goto done;
    } else if (lx->tok == K_STRUCTURE || lx->tok == K_SEQUENCE) {
        int kind = lx->tok == K_STRUCTURE ? D2_STRUCTURE : D2_SEQUENCE;
        if ((n = new_node(ps, kind)) == NULL)
            return ps->err;
        if (next(lx) != '{') {
            stat = NC_EDDS;
            goto done;
        }
        next(lx);
        if ((stat = parse_declarations(ps, n, depth + 1)))
            goto done;
        next(lx);  /* past '}' */
        if (!isname(lx)) {
            stat = NC_EDDS;
            goto done;
        }
        if ((n->name = take_name(lx)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        next(lx);
        if (kind == D2_STRUCTURE && (stat = parse_dims(ps, n)))
            goto done;
    } else if (lx->tok == K_GRID) {
        D2node *sub = NULL;
        if ((n = new_node(ps, D2_GRID)) == NULL)
            return ps->err;
        if (next(lx) != '{' || next(lx) != K_ARRAY || next(lx) != ':') {
            stat = NC_EDDS;
            goto done;
        }
        next(lx);
        if ((stat = parse_declaration(ps, depth + 1, &sub)))
            goto done;
        /* the grid's array comes first; names are unique among its maps only */
        if ((n->fields = malloc(sizeof *n->fields)) == NULL) {
            d2_node_free(sub);
            stat = NC_ENOMEM;
            goto done;
        }
        n->fields[0] = sub;
        n->nfields = 1;
        sub->parent = n;
        if (sub->kind != D2_ATOMIC || lx->tok != K_MAPS || next(lx) != ':') {
            stat = NC_EDDS;
            goto done;
        }
        next(lx);
        while (lx->tok != '}') {
            if (lx->tok == T_EOF) {
                stat = NC_EDDS;
                goto done;
            }
            if ((stat = parse_declaration(ps, depth + 1, &sub)))
                goto done;
            if (sub->kind != D2_ATOMIC) {
                d2_node_free(sub);
                stat = NC_EDDS;
                goto done;
            }
            /* duplicate map names are an error; a map may share the array's name */
            for (size_t i = 1; i < n->nfields; i++) {
                if (strcmp(n->fields[i]->name, sub->name) == 0) {
                    d2_node_free(sub);
                    stat = NC_EDDS;
                    goto done;
                }
            }
            if ((n->nfields & (n->nfields - 1)) == 0) {
                D2node **f = realloc(n->fields, n->nfields * 2 * sizeof *f);
                if (f == NULL) {
                    d2_node_free(sub);
                    stat = NC_ENOMEM;
                    goto done;
                }
                n->fields = f;
            }
            n->fields[n->nfields++] = sub;
            sub->parent = n;
        }
        next(lx);
        if (!isname(lx)) {
            stat = NC_EDDS;
            goto done;
        }
        if ((n->name = take_name(lx)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        next(lx);
    } else {
        return lx->nomem ? NC_ENOMEM : NC_EDDS;
    }
    if (lx->tok != ';') {
        stat = NC_EDDS;
        goto done;
    }
    next(lx);
done:
    if (stat == NC_NOERR && lx->nomem)
        stat = NC_ENOMEM;
    if (stat)
        d2_node_free(n);
    else
        *np = n;
    return stat;
}

/* declarations up to (not past) the closing '}'. */
static int
parse_declarations(Pstate *ps, D2node *parent, int depth)
{
    Lex *lx = &ps->lx;
    while (lx->tok != '}') {
        D2node *n = NULL;
        int stat;
        if (lx->tok == T_EOF)
            return NC_EDDS;
        if ((stat = parse_declaration(ps, depth, &n)))
            return stat;
        if ((stat = add_field(parent, n))) {
            d2_node_free(n);
            return stat == NC_ENAMEINUSE ? NC_EDDS : stat;
        }
    }
    return NC_NOERR;
}

int
d2_parse_dds(const char *text, size_t len, D2node **rootp, char **errmsg)
{
    Pstate ps;
    D2node *root = NULL;
    int stat = NC_NOERR;

    memset(&ps, 0, sizeof ps);
    lex_init(&ps.lx, text, len);
    *rootp = NULL;
    next(&ps.lx);
    if (ps.lx.tok == K_ERROR) {
        char *m = error_message(&ps.lx);
        if (errmsg)
            *errmsg = m;
        else
            free(m);
        stat = NC_EDAPSVC;
        goto done;
    }
    if (ps.lx.tok != K_DATASET || next(&ps.lx) != '{') {
        stat = NC_EDDS;
        goto done;
    }
    if ((root = new_node(&ps, D2_DATASET)) == NULL) {
        stat = ps.err;
        goto done;
    }
    next(&ps.lx);
    if ((stat = parse_declarations(&ps, root, 1)))
        goto done;
    next(&ps.lx);
    if (!isname(&ps.lx)) {
        stat = NC_EDDS;
        goto done;
    }
    if ((root->name = take_name(&ps.lx)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    if (next(&ps.lx) != ';') {
        stat = NC_EDDS;
        goto done;
    }
    next(&ps.lx);
    if (ps.lx.tok != T_EOF && ps.lx.tok != T_DATA)
        stat = NC_EDDS;
done:
    if (stat == NC_NOERR && (ps.lx.nomem || ps.err))
        stat = ps.lx.nomem ? NC_ENOMEM : ps.err;
    free(ps.lx.text);
    if (stat)
        d2_node_free(root);
    else
        *rootp = root;
    return stat;
}

/* ---- DAS ---------------------------------------------------------------------------- */

void
d2_das_free(D2das *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->nsubs; i++)
        d2_das_free(d->subs[i]);
    free(d->subs);
    for (size_t i = 0; i < d->nvalues; i++)
        free(d->values[i]);
    free(d->values);
    free(d->name);
    free(d);
}

static int
das_add(D2das *set, D2das *sub)
{
    for (size_t i = 0; i < set->nsubs; i++)
        if (strcmp(set->subs[i]->name, sub->name) == 0)
            return NC_EDAS;
    if ((set->nsubs & (set->nsubs - 1)) == 0) {
        size_t ncap = set->nsubs ? set->nsubs * 2 : 1;
        D2das **s = realloc(set->subs, ncap * sizeof *s);
        if (s == NULL)
            return NC_ENOMEM;
        set->subs = s;
    }
    set->subs[set->nsubs++] = sub;
    sub->parent = set;
    return NC_NOERR;
}

static int
push_value(D2das *a, const char *v)
{
    char **nv;
    char *copy = strdup(v);
    if (copy == NULL)
        return NC_ENOMEM;
    nv = realloc(a->values, (a->nvalues + 1) * sizeof *nv);
    if (nv == NULL) {
        free(copy);
        return NC_ENOMEM;
    }
    a->values = nv;
    a->values[a->nvalues++] = copy;
    return NC_NOERR;
}

static int parse_attrlist(Pstate *ps, D2das *set, int depth);

/* One attribute or container; the current token starts it. */
static int
parse_attribute(Pstate *ps, D2das *set, int depth)
{
    Lex *lx = &ps->lx;
    D2das *a = NULL;
    int stat = NC_NOERR;
    int atype = keyword_type(lx->tok);

    if (depth > D2_MAX_DEPTH || ++ps->nnodes > D2_MAX_NODES)
        return NC_EDAS;
    if (lx->tok == K_ALIAS) {  /* "Alias a b;" is ignored */
        if (next(lx) != T_WORD || next(lx) != T_WORD || next(lx) != ';')
            return NC_EDAS;
        next(lx);
        return NC_NOERR;
    }
    if ((a = calloc(1, sizeof *a)) == NULL)
        return NC_ENOMEM;
    if (atype != D2_NAT && peek(lx) != '{') {
        a->atype = atype;
        next(lx);
        if (!isname(lx)) {
            stat = NC_EDAS;
            goto done;
        }
        if ((a->name = take_name(lx)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        for (;;) {
            next(lx);
            if (atype == D2_STRING && lx->tok == T_STRING) {
                stat = push_value(a, lx->text ? lx->text : "");
            } else if ((atype == D2_STRING || atype == D2_URL) && isname(lx)) {
                char *v = take_name(lx);
                stat = v ? push_value(a, v) : NC_ENOMEM;
                free(v);
            } else if (atype != D2_STRING && atype != D2_URL && lx->tok == T_WORD) {
                stat = push_value(a, lx->text);
            } else {
                stat = NC_EDAS;
            }
            if (stat)
                goto done;
            next(lx);
            if (lx->tok == ';')
                break;
            if (lx->tok != ',') {
                stat = NC_EDAS;
                goto done;
            }
        }
        next(lx);
    } else if (isname(lx)) {
        a->isset = 1;
        if ((a->name = take_name(lx)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        if (next(lx) != '{') {
            stat = NC_EDAS;
            goto done;
        }
        next(lx);
        if ((stat = parse_attrlist(ps, a, depth + 1)))
            goto done;
        next(lx);  /* past '}' */
    } else {
        stat = NC_EDAS;
        goto done;
    }
    stat = das_add(set, a);
done:
    if (stat == NC_NOERR && lx->nomem)
        stat = NC_ENOMEM;
    if (stat)
        d2_das_free(a);
    return stat;
}

static int
parse_attrlist(Pstate *ps, D2das *set, int depth)
{
    Lex *lx = &ps->lx;
    while (lx->tok != '}') {
        int stat;
        if (lx->tok == T_EOF)
            return NC_EDAS;
        if ((stat = parse_attribute(ps, set, depth)))
            return stat;
    }
    return NC_NOERR;
}

int
d2_parse_das(const char *text, size_t len, D2das **rootp, char **errmsg)
{
    Pstate ps;
    D2das *root = NULL;
    int stat = NC_NOERR;

    memset(&ps, 0, sizeof ps);
    lex_init(&ps.lx, text, len);
    *rootp = NULL;
    next(&ps.lx);
    if (ps.lx.tok == K_ERROR) {
        char *m = error_message(&ps.lx);
        if (errmsg)
            *errmsg = m;
        else
            free(m);
        stat = NC_EDAPSVC;
        goto done;
    }
    if (ps.lx.tok != K_ATTR) {
        stat = NC_EDAS;
        goto done;
    }
    ps.lx.charsn = DASCHARSN;
    if (next(&ps.lx) != '{') {
        stat = NC_EDAS;
        goto done;
    }
    if ((root = calloc(1, sizeof *root)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    root->isset = 1;
    next(&ps.lx);
    if ((stat = parse_attrlist(&ps, root, 1)))
        goto done;
    if (next(&ps.lx) != T_EOF)
        stat = NC_EDAS;
done:
    if (stat == NC_NOERR && ps.lx.nomem)
        stat = NC_ENOMEM;
    free(ps.lx.text);
    if (stat)
        d2_das_free(root);
    else
        *rootp = root;
    return stat;
}
