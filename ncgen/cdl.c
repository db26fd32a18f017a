/* CDL front end of ncgen for the classic data model: a hand-written lexer and
 * recursive-descent parser, the semantic pass (types of untyped attributes,
 * _FillValue, output format) and the streaming data-section converter.
 *
 * Sections: lexer (tokens, numbers, strings, names) - model building -
 * value conversion (C-cast semantics of upstream on x86-64) - data sections
 * (numeric slabs, char padding rules) - ncg_run().
 *
 * Errors unwind with longjmp to ncg_run(): a parser has dozens of nested
 * places that can fail and every allocation is owned by the context, so one
 * jump target that frees the context is clearer than error codes threaded
 * through every production. Nothing here recurses on input structure, so no
 * input can exhaust the stack. */
#include "ncgen.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tokens ---------------------------------------------------------------- */
enum {
    T_EOF, T_IDENT, T_STRING, T_NUM, T_FILL, T_NETCDF, T_DIMENSIONS, T_VARIABLES,
    T_DATA, T_TYPES, T_GROUP, T_UNLIMITED, T_TYPE, T_NC4TYPE, T_PUNCT, T_PATH, T_BAD
};

typedef struct cval {
    nc_type t;                  /* NC_BYTE..NC_UINT64, NC_STRING, or NC_FILL_T */
    int64_t i;                  /* signed integer types */
    uint64_t u;                 /* unsigned integer types */
    double d;
    float f;
} cval;
#define NC_FILL_T 1000          /* the '_' marker */

/* values of a variable with inner unlimited dimensions, with their indices */
typedef struct ragged {
    int ndims;
    size_t es;
    size_t n, cap;
    size_t *idx;                /* n * ndims */
    unsigned char *vals;        /* n * es */
    size_t ext[NC_MAX_VAR_DIMS];    /* instances seen per dimension, empty {} too */
} ragged;

typedef struct ctx {
    const char *p, *end;        /* lexer cursor */
    int line;
    int tok;                    /* current token */
    int punct;                  /* character for T_PUNCT */
    nc_type toktype;            /* for T_TYPE; for T_IDENT the type it names when kwname */
    int kwname;                 /* T_IDENT that is a type keyword only in other formats */
    cval num;                   /* for T_NUM */
    char *sbuf; size_t slen, scap;   /* name or string text (NUL-terminated) */
    const char *tokstart;       /* raw text of the token, for messages */
    const ncg_options *opt;
    const ncg_sink *sink; void *sctx;
    ncg_outname_fn outname;
    ncg_model m;
    int defined;                /* sink->define done */
    int fmt_att;                /* _Format seen: NC_FORMAT_* */
    int nc4special;             /* netCDF-4-only special attribute seen */
    char *nc4name;
    void *buf; size_t bufcap;   /* data conversion buffer */
    cval *vals; size_t valcap;  /* attribute values being parsed */
    char *pending;              /* attribute name not yet owned by the model */
    char *cbuf; size_t clen, ccap; /* char data */
    int cur;                    /* group being parsed */
    int enhanced;               /* groups or types used */
    int depth;                  /* nesting of user-type values */
    /* native values holding pointers that an error must free */
    unsigned char *livebuf; size_t liven; int livetype; int liveown;
    ragged rag;
    char *spstr; int64_t *spints;   /* value of a special attribute */
    jmp_buf jb;
} ctx;

/* longest message text printed; longer ones end in "..." */
#define MSG_MAX 1000
/* longest part of a bad token echoed in a message (TOKARGS gives %.*s%s) */
#define TOK_MAX 64
#define TOKARGS(s, n) (int)((size_t)(n) > TOK_MAX ? TOK_MAX : (size_t)(n)), (s), ((size_t)(n) > TOK_MAX ? "..." : "")

static void die(ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((noreturn, format(printf, 2, 3)))
#endif
    ;

static void
die(ctx *c, const char *fmt, ...)
{
    if (!c->opt->quiet) {
        /* bounded: a message may echo a name or token of megabytes */
        char msg[MSG_MAX + 1];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        fprintf(stderr, "ncgen: %s line %d: %s%s\n", c->opt->cdlname ? c->opt->cdlname : "-", c->line,
                msg, n > MSG_MAX ? "..." : "");
    }
    longjmp(c->jb, 1);
}

/* message without the file/line prefix, as upstream prints library errors */
static void
dielib(ctx *c, int stat)
{
    if (!c->opt->quiet)
        fprintf(stderr, "ncgen: NetCDF: %s\n", nc_strerror(stat) + (strncmp(nc_strerror(stat), "NetCDF: ", 8) ? 0 : 8));
    longjmp(c->jb, 1);
}

static void *
xrealloc(ctx *c, void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) die(c, "out of memory");
    return q;
}

static char *
xstrdup(ctx *c, const char *s, size_t n)
{
    char *d = xrealloc(c, NULL, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static void
sput(ctx *c, char ch)
{
    if (c->slen + 2 > c->scap) {
        c->scap = c->scap ? 2 * c->scap : 256;
        c->sbuf = xrealloc(c, c->sbuf, c->scap);
    }
    c->sbuf[c->slen++] = ch;
    c->sbuf[c->slen] = 0;
}

/* ---- lexer ------------------------------------------------------------------ */
static int isdig(int ch) { return ch >= '0' && ch <= '9'; }
static int isalph(int ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static int ishex(int ch) { return isdig(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F'); }
static int hexval(int ch) { return isdig(ch) ? ch - '0' : (ch | 32) - 'a' + 10; }

/* length of a valid UTF-8 multi-byte sequence at p, 0 if none */
static int
utf8len(const unsigned char *p, const unsigned char *end)
{
    int n, i;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) n = 2;
    else if (p[0] >= 0xE0 && p[0] <= 0xEF) n = 3;
    else if (p[0] >= 0xF0 && p[0] <= 0xF4) n = 4;
    else return 0;
    if (end - p < n) return 0;
    for (i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    return n;
}

/* characters allowed after a backslash inside a name (others end the name) */
static int
idescapable(int ch)
{
    return ch >= ' ' && ch < 0x7f && ch != '/';
}

static int
identchar(const ctx *c, const char *p)
{
    int ch = (unsigned char)*p;
    if (isalph(ch) || isdig(ch) || ch == '_' || ch == '.' || ch == '@' || ch == '+' || ch == '-' || ch == '%')
        return 1;
    if (ch == '\\' && p + 1 < c->end && idescapable((unsigned char)p[1])) return 2;
    if (ch >= 0x80) return utf8len((const unsigned char *)p, (const unsigned char *)c->end);
    return 0;
}

static void
skipspace(ctx *c)
{
    const char *p = c->p;
    for (;;) {
        while (p < c->end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\n')) {
            if (*p == '\n') c->line++;
            p++;
        }
        if (p + 1 < c->end && p[0] == '/' && p[1] == '/') {
            while (p < c->end && *p != '\n') p++;
            continue;
        }
        if (p + 1 < c->end && p[0] == '/' && p[1] == '*') {
            p += 2;
            while (p < c->end && !(p[0] == '*' && p + 1 < c->end && p[1] == '/')) {
                if (*p == '\n') c->line++;
                p++;
            }
            if (p >= c->end) {
                c->p = p;
                die(c, "unterminated /**/ comment");
            }
            p += 2;
            continue;
        }
        break;
    }
    c->p = p;
}

/* Decode one escape after a backslash in a string; p points after '\\'. */
static const char *
unescape1(ctx *c, const char *p, char *out)
{
    int ch = (unsigned char)*p++, v, n;
    switch (ch) {
    case 'a': *out = '\a'; break;
    case 'b': *out = '\b'; break;
    case 'f': *out = '\f'; break;
    case 'n': *out = '\n'; break;
    case 'r': *out = '\r'; break;
    case 't': *out = '\t'; break;
    case 'v': *out = '\v'; break;
    case 'x': case 'X':
        v = 0;
        for (n = 0; n < 2 && p < c->end && ishex((unsigned char)*p); n++) v = v * 16 + hexval((unsigned char)*p++);
        *out = n ? (char)v : (char)ch;
        break;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
        v = ch - '0';
        for (n = 1; n < 3 && p < c->end && *p >= '0' && *p <= '7'; n++) v = v * 8 + (*p++ - '0');
        *out = (char)v;
        break;
    default: *out = (char)ch; break;   /* \\ \" \' \? and any other char */
    }
    return p;
}

static void
lex_string(ctx *c)
{
    const char *p = c->p + 1;
    int startline = c->line;
    int cut = 0;                /* a raw NUL ends the text, as in upstream's lexer */
    c->slen = 0;
    sput(c, 0); c->slen = 0;
    while (p < c->end && *p != '"') {
        char ch;
        if (*p == '\\' && p + 1 < c->end) {
            p = unescape1(c, p + 1, &ch);
            if (ch == '\n') { /* escaped newline still counts as a line */ }
        } else {
            if (*p == '\n') c->line++;
            if (!*p) cut = 1;
            ch = *p++;
        }
        if (!cut) sput(c, ch);
    }
    if (p >= c->end) {
        c->line = startline;
        die(c, "unterminated string constant");
    }
    c->p = p + 1;
    c->tok = T_STRING;
}

static const struct { const char *name; nc_type t; } typenames[] = {
    {"char", NC_CHAR}, {"byte", NC_BYTE}, {"ubyte", NC_UBYTE}, {"short", NC_SHORT},
    {"ushort", NC_USHORT}, {"int", NC_INT}, {"long", NC_INT}, {"integer", NC_INT},
    {"uint", NC_UINT}, {"ulong", NC_UINT}, {"uinteger", NC_UINT}, {"int64", NC_INT64},
    {"uint64", NC_UINT64}, {"float", NC_FLOAT}, {"real", NC_FLOAT}, {"double", NC_DOUBLE},
    {NULL, 0}
};

/* Special numeric words, as the upstream lexer knows them */
static int
special_number(ctx *c, const char *w, size_t n, int neg)
{
    cval *v = &c->num;
    memset(v, 0, sizeof *v);
#define IS(s) (n == sizeof(s) - 1 && !memcmp(w, s, n))
    if (!neg && (IS("NaN") || IS("nan"))) { v->t = NC_DOUBLE; v->d = NAN; }
    else if (!neg && (IS("NaNf") || IS("nanf"))) { v->t = NC_FLOAT; v->f = NAN; }
    else if (IS("Infinity") || (!neg && IS("DoubleInf"))) { v->t = NC_DOUBLE; v->d = neg ? -INFINITY : INFINITY; }
    else if (IS("Infinityf") || IS("Inff") || (!neg && IS("FloatInf"))) {
        v->t = NC_FLOAT; v->f = neg ? -INFINITY : INFINITY;
    } else return 0;
#undef IS
    c->m.specials = 1;          /* "-l c" then defines nan, inf... */
    return 1;
}

static const double pow10tab[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};
static const float pow10ftab[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

/* Lex a number starting at c->p (sign included). Floating values take an exact
 * fast path (Clinger: an exact mantissa times an exact power of ten, one
 * rounding) and fall back to strtod/strtof, so results equal the C library's. */
static void
lex_number(ctx *c)
{
    const char *s = c->p, *p = s, *digits, *numend;
    int neg = 0, isfloat = 0, ndig = 0, sig = 0, exp10 = 0, expv = 0, expneg = 0, fast = 1;
    uint64_t mant = 0;

    if (*p == '+' || *p == '-') { neg = (*p == '-'); p++; }
    digits = p;
    if (p + 1 < c->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && p + 2 < c->end && ishex((unsigned char)p[2])) {
        /* hexadecimal integer */
        uint64_t u = 0; int over = 0;
        p += 2;
        while (p < c->end && ishex((unsigned char)*p)) {
            if (u >> 60) over = 1;
            u = (u << 4) | (uint64_t)hexval((unsigned char)*p++);
        }
        numend = p;
        memset(&c->num, 0, sizeof c->num);
        if (over) {
            /* too long for a number: an opaque constant (checked where used) */
            c->p = p; c->num.t = NC_OPAQUE; c->tok = T_NUM; return;
        }
        if (neg) u = (uint64_t)0 - u;
        mant = u;
        goto intsuffix;
    }
    while (p < c->end && isdig((unsigned char)*p)) {
        if (mant < 100000000000000000ULL) { mant = mant * 10 + (uint64_t)(*p - '0'); if (mant) sig++; }
        else { fast = 0; }
        ndig++; p++;
    }
    if (p < c->end && *p == '.') {
        isfloat = 1; p++;
        while (p < c->end && isdig((unsigned char)*p)) {
            if (mant < 100000000000000000ULL) { mant = mant * 10 + (uint64_t)(*p - '0'); exp10--; if (mant) sig++; }
            else fast = 0;
            ndig++; p++;
        }
    }
    if (ndig == 0) {
        c->p = p;
        die(c, "bad long or double constant: %.*s%s", TOKARGS(s, p - s));
    }
    if (p < c->end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        if (q < c->end && (*q == '+' || *q == '-')) { expneg = (*q == '-'); q++; }
        if (q < c->end && isdig((unsigned char)*q)) {
            isfloat = 1;
            while (q < c->end && isdig((unsigned char)*q)) { if (expv < 100000) expv = expv * 10 + (*q - '0'); q++; }
            p = q;
        }
    }
    numend = p;
    memset(&c->num, 0, sizeof c->num);
    if (isfloat) {
        int isf = 0;
        if (p < c->end && (*p == 'f' || *p == 'F')) { isf = 1; p++; }
        else if (p < c->end && (*p == 'd' || *p == 'D' || *p == 'l' || *p == 'L')) p++;
        exp10 += expneg ? -expv : expv;
        (void)sig;
        if (isf) {
            c->num.t = NC_FLOAT;
            if (fast && mant < (1u << 24) && exp10 >= -10 && exp10 <= 10) {
                float f = (float)mant;
                f = exp10 >= 0 ? f * pow10ftab[exp10] : f / pow10ftab[-exp10];
                c->num.f = neg ? -f : f;
            } else {
                char tmp[128]; char *big = NULL, *str = tmp;
                size_t n = (size_t)(numend - s);
                if (n >= sizeof tmp) str = big = xrealloc(c, NULL, n + 1);
                memcpy(str, s, n); str[n] = 0;
                c->num.f = strtof(str, NULL);
                free(big);
            }
        } else {
            c->num.t = NC_DOUBLE;
            if (fast && mant <= (1ULL << 53) && exp10 >= -22 && exp10 <= 22) {
                double d = (double)mant;
                d = exp10 >= 0 ? d * pow10tab[exp10] : d / pow10tab[-exp10];
                c->num.d = neg ? -d : d;
            } else {
                char tmp[128]; char *big = NULL, *str = tmp;
                size_t n = (size_t)(numend - s);
                if (n >= sizeof tmp) str = big = xrealloc(c, NULL, n + 1);
                memcpy(str, s, n); str[n] = 0;
                c->num.d = strtod(str, NULL);
                free(big);
            }
        }
        c->p = p;
        c->tok = T_NUM;
        return;
    }
    /* integer: magnitude with C base-0 rules (leading 0 = octal) */
    {
        uint64_t u = 0;
        const char *q = digits;
        int over = 0;
        if (numend - digits > 1 && digits[0] == '0') {
            q++;
            while (q < numend && *q >= '0' && *q <= '7') {
                if (u >> 61) over = 1;
                u = u * 8 + (uint64_t)(*q++ - '0');
            }
        } else {
            while (q < numend) {
                unsigned dgt = (unsigned)(*q++ - '0');
                if (u > (UINT64_MAX - dgt) / 10) over = 1;
                u = u * 10 + dgt;
            }
        }
        if (over) { c->p = numend; die(c, "integer constant out of range: %.*s%s", TOKARGS(s, numend - s)); }
        mant = neg ? (uint64_t)0 - u : u;
        if (neg && u > (1ULL << 63)) {
            /* wrapped negative: upstream types it unsigned 64-bit */
            int hasu = 0;
            const char *r = p;
            while (r < c->end && (isalph((unsigned char)*r))) { if ((*r | 32) == 'u') hasu = 1; r++; }
            if (!hasu && r == p) {
                c->num.t = NC_UINT64; c->num.u = mant; c->p = p; c->tok = T_NUM; return;
            }
        }
    }
intsuffix:
    {
        /* suffix: [uU]? then b|s|l|ll (either case) */
        int uns = 0, kind = 0; /* kind: 0 none, 1 b, 2 s, 3 l, 4 ll */
        const char *q = p;
        if (q < c->end && (*q == 'u' || *q == 'U')) { uns = 1; q++; }
        if (q < c->end && (*q == 'b' || *q == 'B')) { kind = 1; q++; }
        else if (q < c->end && (*q == 's' || *q == 'S')) { kind = 2; q++; }
        else if (q < c->end && (*q == 'l' || *q == 'L')) {
            kind = 3; q++;
            if (q < c->end && (*q == 'l' || *q == 'L')) { kind = 4; q++; }
        }
        p = q;
        c->p = p;
        if (uns && neg) die(c, "Unsigned integer cannot be signed: %.*s%s", TOKARGS(s, numend - s));
        cval *v = &c->num;
        if (uns) {
            switch (kind) {
            case 1: v->t = NC_UBYTE; v->u = (uint8_t)mant; break;
            case 2: v->t = NC_USHORT; v->u = (uint16_t)mant; break;
            case 4: v->t = NC_UINT64; v->u = mant; break;
            default: v->t = NC_UINT; v->u = (uint32_t)mant; break;
            }
        } else if (kind == 1) { v->t = NC_BYTE; v->i = (int8_t)mant; }
        else if (kind == 2) { v->t = NC_SHORT; v->i = (int16_t)mant; }
        else if (kind == 3) { v->t = NC_INT; v->i = (int32_t)mant; }
        else if (kind == 4) { v->t = NC_INT64; v->i = (int64_t)mant; }
        else {
            int64_t sv = (int64_t)mant;
            if (neg) {
                if (sv >= INT32_MIN) { v->t = NC_INT; v->i = sv; }
                else { v->t = NC_INT64; v->i = sv; }
            } else if (mant <= INT32_MAX) { v->t = NC_INT; v->i = sv; }
            else if (mant <= UINT32_MAX) { v->t = NC_UINT; v->u = mant; }
            else if (mant <= INT64_MAX) { v->t = NC_INT64; v->i = sv; }
            else if (sv >= INT32_MIN) { v->t = NC_INT; v->i = sv; }
            else { v->t = NC_INT64; v->i = sv; }
        }
        c->tok = T_NUM;
    }
}

/* character constant 'x', '\n', '\101', '\x41' (a byte) */
static int
lex_charconst(ctx *c)
{
    const char *p = c->p + 1;
    char ch;
    if (p >= c->end) return 0;
    if (*p == '\\') {
        if (p + 1 >= c->end) return 0;
        p = unescape1(c, p + 1, &ch);
    } else if (*p == '\'' || *p == '\n') {
        return 0;
    } else ch = *p++;
    if (p >= c->end || *p != '\'') return 0;
    c->p = p + 1;
    memset(&c->num, 0, sizeof c->num);
    c->num.t = NC_BYTE;
    c->num.i = (signed char)ch;
    c->tok = T_NUM;
    return 1;
}

static void
lex_ident(ctx *c)
{
    const char *p = c->p, *w = p;
    int n;
    c->slen = 0;
    sput(c, 0); c->slen = 0;
    /* first char: letter, '_', UTF-8, or an escaped digit */
    if (*p == '\\') { sput(c, p[1]); p += 2; }
    while (p < c->end && (n = identchar(c, p))) {
        if (*p == '\\') { sput(c, p[1]); p += 2; continue; }
        while (n--) sput(c, *p++);
    }
    c->p = p;
    size_t wl = (size_t)(p - w);
    int plain = (c->slen == wl);
    if (plain) {
        int i;
        if (special_number(c, w, wl, 0)) { c->tok = T_NUM; return; }
        if (wl == 1 && w[0] == '_') { c->tok = T_FILL; return; }
        if (p < c->end && *p == ':') {
#define KW(s, t) if (wl == sizeof(s) - 1 && !memcmp(w, s, wl)) { c->p = p + 1; c->tok = t; return; }
            KW("dimensions", T_DIMENSIONS) KW("variables", T_VARIABLES) KW("data", T_DATA)
            KW("types", T_TYPES) KW("group", T_GROUP)
#undef KW
        }
        if ((wl == 6 && !memcmp(w, "netcdf", 6)) || (wl == 6 && !memcmp(w, "NETCDF", 6)) || (wl == 6 && !memcmp(w, "netCDF", 6))) {
            c->tok = T_NETCDF; return;
        }
        if ((wl == 9 && !memcmp(w, "unlimited", 9)) || (wl == 9 && !memcmp(w, "UNLIMITED", 9))) { c->tok = T_UNLIMITED; return; }
        /* As upstream's lexer: the CDF-5 type names are keywords only under -k cdf5
         * or netCDF-4, "string" only under netCDF-4; elsewhere they are names,
         * which still name their type where a type is expected. */
        int k = c->opt->kflag;
        int ext = k == NC_FORMAT_64BIT_DATA || k == NC_FORMAT_NETCDF4;
        for (i = 0; typenames[i].name; i++)
            if (strlen(typenames[i].name) == wl && !memcmp(typenames[i].name, w, wl)) {
                c->toktype = typenames[i].t;
                if (c->toktype > NC_DOUBLE && !ext) { c->tok = T_IDENT; c->kwname = 1; return; }
                c->tok = T_TYPE; return;
            }
        if (wl == 6 && !memcmp(w, "string", 6)) {
            c->toktype = NC_STRING;
            if (k != NC_FORMAT_NETCDF4) { c->tok = T_IDENT; c->kwname = 1; return; }
            c->tok = T_TYPE; return;
        }
        if ((wl == 8 && !memcmp(w, "compound", 8)) ||
            (wl == 6 && !memcmp(w, "struct", 6)) || (wl == 9 && !memcmp(w, "structure", 9)) ||
            (wl == 4 && !memcmp(w, "enum", 4)) || (wl == 6 && !memcmp(w, "opaque", 6))) {
            c->tok = T_NC4TYPE; return;
        }
    }
    c->tok = T_IDENT;
}

static void
next(ctx *c)
{
    skipspace(c);
    c->tokstart = c->p;
    c->kwname = 0;
    if (c->p >= c->end) { c->tok = T_EOF; return; }
    const char *p = c->p;
    int ch = (unsigned char)*p;
    if (ch == '"') { lex_string(c); return; }
    if (isdig(ch) || (ch == '.' && p + 1 < c->end && isdig((unsigned char)p[1]))) { lex_number(c); return; }
    if ((ch == '-' || ch == '+') && p + 1 < c->end) {
        int n1 = (unsigned char)p[1];
        if (isdig(n1) || (n1 == '.' && p + 2 < c->end && isdig((unsigned char)p[2]))) { lex_number(c); return; }
        if (ch == '-' && n1 == 'I') {
            const char *q = p + 1;
            while (q < c->end && isalph((unsigned char)*q)) q++;
            if (special_number(c, p + 1, (size_t)(q - p - 1), 1) && (q >= c->end || !identchar(c, q))) {
                c->p = q; c->tok = T_NUM; return;
            }
        }
    }
    if (ch == '.' ) { c->p = p + 1; die(c, "bad long or double constant: ."); }
    if (ch == '\'' && lex_charconst(c)) return;
    if (ch == '/' && p + 1 < c->end && (isalph((unsigned char)p[1]) || p[1] == '_' ||
                                        ((unsigned char)p[1] >= 0x80 && identchar(c, p + 1)) ||
                                        (p[1] == '\\' && identchar(c, p + 1)))) {
        /* group-qualified name "/g/sub/name": kept whole, escapes removed */
        c->slen = 0;
        sput(c, 0); c->slen = 0;
        while (p < c->end && *p == '/' && p + 1 < c->end && identchar(c, p + 1)) {
            int n;
            sput(c, *p++);
            while (p < c->end && (n = identchar(c, p))) {
                if (*p == '\\') { sput(c, p[1]); p += 2; continue; }
                while (n--) sput(c, *p++);
            }
        }
        c->p = p;
        c->tok = T_PATH;
        return;
    }
    if (isalph(ch) || ch == '_' || (ch == '\\' && p + 1 < c->end && isdig((unsigned char)p[1])) ||
        (ch >= 0x80 && utf8len((const unsigned char *)p, (const unsigned char *)c->end))) {
        lex_ident(c);
        return;
    }
    if (strchr("{}(),;=:", ch) && ch) { c->tok = T_PUNCT; c->punct = ch; c->p = p + 1; return; }
    c->tok = T_BAD;
    c->p = p + 1;
}

static const char *
tokname(ctx *c, char *buf)
{
    switch (c->tok) {
    case T_EOF: return "end of file";
    case T_IDENT: return "IDENT";
    case T_PATH: return "PATH";
    case T_STRING: return "TERMSTRING";
    case T_FILL: return "FILLMARKER";
    case T_NETCDF: return "NETCDF";
    case T_DIMENSIONS: return "DIMENSIONS";
    case T_VARIABLES: return "VARIABLES";
    case T_DATA: return "DATA";
    case T_TYPES: return "TYPES";
    case T_GROUP: return "GROUP";
    case T_UNLIMITED: return "NC_UNLIMITED_K";
    case T_TYPE: case T_NC4TYPE: return "type name";
    case T_PUNCT: sprintf(buf, "'%c'", c->punct); return buf;
    case T_NUM:
        switch (c->num.t) {
        case NC_BYTE: return "BYTE_CONST";
        case NC_UBYTE: return "UBYTE_CONST";
        case NC_SHORT: return "SHORT_CONST";
        case NC_USHORT: return "USHORT_CONST";
        case NC_INT: return "INT_CONST";
        case NC_UINT: return "UINT_CONST";
        case NC_INT64: return "INT64_CONST";
        case NC_UINT64: return "UINT64_CONST";
        case NC_FLOAT: return "FLOAT_CONST";
        default: return "DOUBLE_CONST";
        }
    default: return "invalid token";
    }
}

static void
syntax(ctx *c, const char *expecting)
{
    char b[8];
    if (expecting) die(c, "syntax error, unexpected %s, expecting %s", tokname(c, b), expecting);
    die(c, "syntax error, unexpected %s", tokname(c, b));
}

static int ispunct_(ctx *c, int ch) { return c->tok == T_PUNCT && c->punct == ch; }

static void
expect(ctx *c, int ch)
{
    char e[4] = {'\'', (char)ch, '\'', 0};
    if (!ispunct_(c, ch)) syntax(c, e);
    next(c);
}

/* ---- value conversion (upstream's C casts as compiled for x86-64) ----------- */
static int32_t
d2i32(double d)
{
    if (!(d > -2147483649.0 && d < 2147483648.0)) return INT32_MIN;
    return (int32_t)d;
}

static int64_t
d2i64(double d)
{
    if (!(d > -9223372036854775808.0 - 1.0 && d < 9223372036854775808.0) || d <= -9223372036854777856.0)
        return INT64_MIN;
    if (d < -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
}

static uint64_t
d2u64(double d)
{
    if (!(d >= 9223372036854775808.0)) return (uint64_t)d2i64(d);   /* NaN lands here too */
    return (uint64_t)d2i64(d - 9223372036854775808.0) ^ (1ULL << 63);
}

size_t
ncg_typesize(nc_type t)
{
    switch (t) {
    case NC_BYTE: case NC_UBYTE: case NC_CHAR: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_INT64: case NC_UINT64: case NC_DOUBLE: return 8;
    default: return 0;
    }
}

/* Convert constant v to type t into out (native). Strings convert as 0.
 * out may be unaligned (a member of a packed compound), hence memcpy. */
#define PUT(T, X) do { T put_tmp_ = (X); memcpy(out, &put_tmp_, sizeof put_tmp_); } while (0)

static void
convert(const cval *v, nc_type t, void *out)
{
    int isint = 0, isuns = 0;
    int64_t i = 0; uint64_t u = 0; double d = 0;
    switch (v->t) {
    case NC_BYTE: case NC_SHORT: case NC_INT: case NC_INT64: isint = 1; i = v->i; u = (uint64_t)i; break;
    case NC_UBYTE: case NC_USHORT: case NC_UINT: case NC_UINT64: isint = 1; isuns = 1; u = v->u; i = (int64_t)u; break;
    case NC_FLOAT: d = v->f; break;
    case NC_DOUBLE: d = v->d; break;
    default: isint = 1; break;
    }
    if (isint) {
        switch (t) {
        case NC_BYTE: case NC_CHAR: PUT(int8_t, (int8_t)u); break;
        case NC_UBYTE: PUT(uint8_t, (uint8_t)u); break;
        case NC_SHORT: PUT(int16_t, (int16_t)u); break;
        case NC_USHORT: PUT(uint16_t, (uint16_t)u); break;
        case NC_INT: PUT(int32_t, (int32_t)u); break;
        case NC_UINT: PUT(uint32_t, (uint32_t)u); break;
        case NC_INT64: PUT(int64_t, i); break;
        case NC_UINT64: PUT(uint64_t, u); break;
        case NC_FLOAT: PUT(float, isuns ? (float)u : (float)i); break;
        case NC_DOUBLE: PUT(double, isuns ? (double)u : (double)i); break;
        default: break;
        }
        return;
    }
    switch (t) {
    case NC_BYTE: case NC_CHAR: PUT(int8_t, (int8_t)d2i32(d)); break;
    case NC_UBYTE: PUT(uint8_t, (uint8_t)d2i32(d)); break;
    case NC_SHORT: PUT(int16_t, (int16_t)d2i32(d)); break;
    case NC_USHORT: PUT(uint16_t, (uint16_t)d2i32(d)); break;
    case NC_INT: PUT(int32_t, d2i32(d)); break;
    case NC_UINT: PUT(uint32_t, (uint32_t)d2i64(d)); break;
    case NC_INT64: PUT(int64_t, d2i64(d)); break;
    case NC_UINT64: PUT(uint64_t, d2u64(d)); break;
    case NC_FLOAT: PUT(float, v->t == NC_FLOAT ? v->f : (float)d); break;
    case NC_DOUBLE: PUT(double, d); break;
    default: break;
    }
}

/* a hex constant too long for any integer is only an opaque value */
static void
numcheck(ctx *c)
{
    if (c->tok == T_NUM && c->num.t == NC_OPAQUE)
        die(c, "integer constant out of range: %.*s%s", TOKARGS(c->tokstart, c->p - c->tokstart));
}

static void
default_fill(nc_type t, void *out)
{
    switch (t) {
    case NC_BYTE: PUT(int8_t, NC_FILL_BYTE); break;
    case NC_CHAR: PUT(char, NC_FILL_CHAR); break;
    case NC_UBYTE: PUT(uint8_t, NC_FILL_UBYTE); break;
    case NC_SHORT: PUT(int16_t, NC_FILL_SHORT); break;
    case NC_USHORT: PUT(uint16_t, NC_FILL_USHORT); break;
    case NC_INT: PUT(int32_t, NC_FILL_INT); break;
    case NC_UINT: PUT(uint32_t, NC_FILL_UINT); break;
    case NC_INT64: PUT(int64_t, NC_FILL_INT64); break;
    case NC_UINT64: PUT(uint64_t, NC_FILL_UINT64); break;
    case NC_FLOAT: PUT(float, NC_FILL_FLOAT); break;
    case NC_DOUBLE: PUT(double, NC_FILL_DOUBLE); break;
    default: break;
    }
}
#undef PUT

/* ---- model ------------------------------------------------------------------- */
static int
find_dim_in(ctx *c, const char *name, int g)
{
    for (int i = 0; i < c->m.ndims; i++)
        if (c->m.dims[i].grp == g && !strcmp(c->m.dims[i].name, name)) return i;
    return -1;
}

static int
find_var(ctx *c, const char *name)
{
    for (int i = 0; i < c->m.nvars; i++)
        if (c->m.vars[i].grp == c->cur && !strcmp(c->m.vars[i].name, name)) return i;
    return -1;
}

static int
find_group_in(ctx *c, const char *name, int parent)
{
    for (int i = 1; i < c->m.ngroups; i++)
        if (c->m.groups[i].parent == parent && !strcmp(c->m.groups[i].name, name)) return i;
    return -1;
}

static int
find_type_in(ctx *c, const char *name, int g)
{
    for (int i = 0; i < c->m.ntypes; i++)
        if (c->m.types[i].grp == g && !strcmp(c->m.types[i].name, name)) return i;
    return -1;
}

/* "/g/sub/name": the group holding name (-1 when a group is missing) and the
 * last component */
static int
path_group(ctx *c, const char *path, const char **leaf)
{
    int g = 0;
    const char *p = path + 1, *slash;
    while ((slash = strchr(p, '/'))) {
        char *part = xstrdup(c, p, (size_t)(slash - p));
        g = find_group_in(c, part, g);
        free(part);
        if (g < 0) return -1;
        p = slash + 1;
    }
    *leaf = p;
    return g;
}

/* dimension named by the current token (T_IDENT: this group or an ancestor) */
static int
find_dim(ctx *c, const char *name)
{
    if (c->tok == T_PATH) {
        const char *leaf;
        int g = path_group(c, name, &leaf);
        return g < 0 ? -1 : find_dim_in(c, leaf, g);
    }
    for (int g = c->cur; g >= 0; g = c->m.groups[g].parent) {
        int d = find_dim_in(c, name, g);
        if (d >= 0) return d;
    }
    return -1;
}

/* user type named by the current token, as upstream looks it up: this group
 * and its ancestors, then a unique match anywhere; -1 when none */
static int
find_type(ctx *c, const char *name)
{
    if (c->tok == T_PATH) {
        const char *leaf;
        int g = path_group(c, name, &leaf);
        return g < 0 ? -1 : find_type_in(c, leaf, g);
    }
    for (int g = c->cur; g >= 0; g = c->m.groups[g].parent) {
        int t = find_type_in(c, name, g);
        if (t >= 0) return t;
    }
    int found = -1;
    for (int i = 0; i < c->m.ntypes; i++)
        if (!strcmp(c->m.types[i].name, name)) {
            if (found >= 0) return -1;
            found = i;
        }
    return found;
}

size_t
ncg_size(const ncg_model *m, int t)
{
    if (t >= NCG_UTYPE) return m->types[t - NCG_UTYPE].size;
    if (t == NC_STRING) return sizeof(char *);
    return ncg_typesize(t);
}

int
ncg_typeid(const ncg_model *m, int t)
{
    return t >= NCG_UTYPE ? m->types[t - NCG_UTYPE].id : t;
}

static size_t
type_align(const ncg_model *m, int t)
{
    if (t >= NCG_UTYPE) return m->types[t - NCG_UTYPE].align;
    return ncg_size(m, t);
}

static int
hasptr(const ncg_model *m, int t)
{
    return t == NC_STRING || (t >= NCG_UTYPE && m->types[t - NCG_UTYPE].hasptr);
}

/* free what n native values of type t point to (not the values themselves) */
static void
free_values(const ncg_model *m, int t, void *p, size_t n)
{
    unsigned char *b = p;
    if (!p || !hasptr(m, t)) return;
    if (t == NC_STRING) {
        for (size_t i = 0; i < n; i++) free(((char **)p)[i]);
        return;
    }
    const ncg_type *ty = &m->types[t - NCG_UTYPE];
    for (size_t i = 0; i < n; i++, b += ty->size) {
        if (ty->cls == NC_VLEN) {
            nc_vlen_t *vl = (nc_vlen_t *)b;
            free_values(m, ty->base, vl->p, vl->len);
            free(vl->p);
        } else if (ty->cls == NC_COMPOUND) {
            for (int f = 0; f < ty->nfields; f++)
                free_values(m, ty->fields[f].type, b + ty->fields[f].offset, ty->fields[f].nelems);
        }
    }
}

static void
free_model(ncg_model *m)
{
    for (int i = 0; i < m->ndims; i++) free(m->dims[i].name);
    for (int i = 0; i < m->nvars; i++) {
        ncg_var *v = &m->vars[i];
        free(v->name);
        if (v->ufill) free_values(m, v->type, v->ufill, 1);
        free(v->ufill);
        free(v->chunks);
        free(v->filter);
    }
    for (int i = 0; i < m->natts; i++) {
        if (m->atts[i].data) free_values(m, m->atts[i].type, m->atts[i].data, m->atts[i].len);
        free(m->atts[i].name);
        free(m->atts[i].data);
    }
    for (int i = 0; i < m->ngroups; i++) free(m->groups[i].name);
    for (int i = 0; i < m->ntypes; i++) {
        ncg_type *t = &m->types[i];
        free(t->name);
        for (int f = 0; f < t->nfields; f++) free(t->fields[f].name);
        for (int e = 0; e < t->nconsts; e++) free(t->consts[e].name);
        free(t->fields);
        free(t->consts);
    }
    free(m->dims); free(m->vars); free(m->atts); free(m->name);
    free(m->groups); free(m->types); free(m->typeorder);
    memset(m, 0, sizeof *m);
}

/* ---- values of strings and user-defined types ---------------------------------- */
/* largest native size of a compound type (16 MiB) */
#define MAX_TYPE_SIZE ((size_t)1 << 24)
/* Nesting of braces is bounded by the type definitions, but those may nest
 * deeply too: a limit keeps the recursion off the end of the stack. */
#define MAX_VALUE_DEPTH 200

static void numcheck(ctx *c);
static int colon_follows(ctx *c);

/* deep copy of one native value of type t (src is not changed) */
static void
copy_value(ctx *c, int t, void *dst, const void *src)
{
    size_t sz = ncg_size(&c->m, t);
    memcpy(dst, src, sz);
    if (!hasptr(&c->m, t)) return;
    if (t == NC_STRING) {
        const char *s = *(char *const *)src;
        *(char **)dst = NULL;
        if (s) *(char **)dst = xstrdup(c, s, strlen(s));
        return;
    }
    const ncg_type *ty = &c->m.types[t - NCG_UTYPE];
    if (ty->cls == NC_VLEN) {
        const nc_vlen_t *s = src;
        nc_vlen_t *d = dst;
        size_t es = ncg_size(&c->m, ty->base);
        d->p = NULL;
        d->len = 0;
        if (s->len) {
            d->p = xrealloc(c, NULL, s->len * es);
            memset(d->p, 0, s->len * es);
            for (size_t i = 0; i < s->len; i++) {
                copy_value(c, ty->base, (unsigned char *)d->p + i * es, (const unsigned char *)s->p + i * es);
                d->len = i + 1;
            }
        }
        return;
    }
    /* compound: clear the pointers first so an error leaves it freeable */
    for (int f = 0; f < ty->nfields; f++)
        if (hasptr(&c->m, ty->fields[f].type))
            memset((unsigned char *)dst + ty->fields[f].offset, 0,
                   ty->fields[f].nelems * ncg_size(&c->m, ty->fields[f].type));
    for (int f = 0; f < ty->nfields; f++) {
        const ncg_field *fl = &ty->fields[f];
        size_t es = ncg_size(&c->m, fl->type);
        if (!hasptr(&c->m, fl->type)) continue;
        for (size_t i = 0; i < fl->nelems; i++)
            copy_value(c, fl->type, (unsigned char *)dst + fl->offset + i * es,
                       (const unsigned char *)src + fl->offset + i * es);
    }
}

/* the library's default fill value of type t, natively */
static void
default_fill_any(ctx *c, int t, void *out)
{
    memset(out, 0, ncg_size(&c->m, t));
    if (t < NCG_UTYPE) {
        if (t == NC_STRING) *(char **)out = xstrdup(c, "", 0);
        else default_fill(t, out);
        return;
    }
    const ncg_type *ty = &c->m.types[t - NCG_UTYPE];
    if (ty->cls == NC_ENUM) default_fill(ty->base, out);
    else if (ty->cls == NC_VLEN) {
        /* upstream's filler for a vlen is one element, the base type's fill */
        nc_vlen_t *vl = out;
        size_t es = ncg_size(&c->m, ty->base);
        vl->p = xrealloc(c, NULL, es);
        memset(vl->p, 0, es);
        vl->len = 1;
        default_fill_any(c, ty->base, vl->p);
    } else if (ty->cls == NC_COMPOUND)
        for (int f = 0; f < ty->nfields; f++) {
            size_t es = ncg_size(&c->m, ty->fields[f].type);
            for (size_t i = 0; i < ty->fields[f].nelems; i++)
                default_fill_any(c, ty->fields[f].type, (unsigned char *)out + ty->fields[f].offset + i * es);
        }
}

/* opaque constant 0x...: hex digits of the token into size bytes, zero padded */
static void
opaque_value(ctx *c, size_t size, unsigned char *out)
{
    const char *p = c->tokstart, *e = c->p;
    memset(out, 0, size);
    if (c->tok != T_NUM || e - p < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
        die(c, "Opaque constant expected");
    p += 2;
    for (size_t i = 0; p < e && ishex((unsigned char)*p) && i < 2 * size; i++, p++) {
        int h = hexval((unsigned char)*p);
        out[i / 2] |= (unsigned char)(i % 2 ? h : h << 4);
    }
}

static void parse_value(ctx *c, int t, unsigned char *out, const void *fill);

/* n elements of type t for an array field of a compound: in braces, or one
 * bare value; char arrays take strings whose characters fill the elements */
static void
parse_field(ctx *c, const ncg_field *f, unsigned char *out)
{
    size_t es = ncg_size(&c->m, f->type), k = 0;
    int braced = f->nelems > 1 || f->ndims > 0;
    if (braced && ispunct_(c, '{')) next(c);
    else braced = 0;
    for (;;) {
        if (braced && ispunct_(c, '}')) break;
        if (f->type == NC_CHAR && c->tok == T_STRING) {
            for (size_t i = 0; i < c->slen && k < f->nelems; i++) out[k++] = (unsigned char)c->sbuf[i];
            next(c);
        } else if (k < f->nelems) {
            parse_value(c, f->type, out + k * es, NULL);
            k++;
        } else die(c, "Too many values for field %s", f->name);
        if (!braced) break;
        if (ispunct_(c, ',')) { next(c); continue; }
        if (!ispunct_(c, '}')) syntax(c, "'}'");
    }
    if (braced) next(c);
    /* the rest keeps the default fill */
    for (; k < f->nelems; k++) default_fill_any(c, f->type, out + k * es);
}

/* One value of type t at the current token into out (which needs no freeing
 * beforehand); leaves the token after the value. fill: what '_' stands for */
static void
parse_value(ctx *c, int t, unsigned char *out, const void *fill)
{
    if (c->tok == T_FILL) {
        if (fill) copy_value(c, t, out, fill);
        else default_fill_any(c, t, out);
        next(c);
        return;
    }
    if (t < NCG_UTYPE) {
        if (t == NC_STRING) {
            if (c->tok != T_STRING) {
                if (ispunct_(c, '{')) die(c, "Expected primitive found {..}");
                if (c->tok == T_IDENT && !strcmp(c->sbuf, "NIL")) { *(char **)out = NULL; next(c); return; }
                die(c, "Data value is not consistent with the expected type: string");
            }
            *(char **)out = xstrdup(c, c->sbuf, c->slen);
        } else if (c->tok == T_NUM) {
            numcheck(c);
            convert(&c->num, t, out);
        } else if (c->tok == T_STRING && t == NC_CHAR) {
            *out = c->slen ? (unsigned char)c->sbuf[0] : 0;
        } else if (ispunct_(c, '{')) die(c, "Expected primitive found {..}");
        else if (c->tok == T_STRING) die(c, "Data value is not consistent with the expected type");
        else syntax(c, NULL);
        next(c);
        return;
    }
    const ncg_type *ty = &c->m.types[t - NCG_UTYPE];
    memset(out, 0, ty->size);
    if (++c->depth > MAX_VALUE_DEPTH) die(c, "values nested too deeply");
    switch (ty->cls) {
    case NC_ENUM:
        if (c->tok == T_IDENT || c->tok == T_PATH) {
            const char *nm = c->sbuf;
            int e;
            /* "type.CONST" (or "/grp/type.CONST") names the type too */
            const char *dot = strrchr(nm, '.'), *slash = strrchr(nm, '/');
            const char *tn = slash ? slash + 1 : nm;
            if (dot && (size_t)(dot - tn) == strlen(ty->name) && !strncmp(tn, ty->name, strlen(ty->name)))
                nm = dot + 1;
            for (e = 0; e < ty->nconsts; e++) if (!strcmp(ty->consts[e].name, nm)) break;
            if (e == ty->nconsts) die(c, "Undefined enum constant: %s", c->sbuf);
            memcpy(out, ty->consts[e].val, ty->size);
        } else if (c->tok == T_NUM) {
            numcheck(c);
            convert(&c->num, ty->base, out);
        } else if (ispunct_(c, '{')) die(c, "Expected primitive found {..}");
        else die(c, "Data value is not consistent with the expected type: %s", ty->name);
        next(c);
        break;
    case NC_OPAQUE:
        if (ispunct_(c, '{')) die(c, "Expected primitive found {..}");
        opaque_value(c, ty->size, out);
        next(c);
        break;
    case NC_VLEN: {
        nc_vlen_t *vl = (nc_vlen_t *)out;
        size_t es = ncg_size(&c->m, ty->base), cap = 0;
        if (!ispunct_(c, '{')) die(c, "Expected {..} for a value of vlen type %s", ty->name);
        next(c);
        while (!ispunct_(c, '}')) {
            if (vl->len == cap) {
                if (cap > SIZE_MAX / 2 / es) die(c, "out of memory");
                cap = cap ? 2 * cap : 4;
                vl->p = xrealloc(c, vl->p, cap * es);
            }
            /* counted first, zeroed: an error frees what was parsed */
            memset((unsigned char *)vl->p + vl->len * es, 0, es);
            vl->len++;
            parse_value(c, ty->base, (unsigned char *)vl->p + (vl->len - 1) * es, NULL);
            if (ispunct_(c, ',')) { next(c); continue; }
            if (!ispunct_(c, '}')) syntax(c, "'}'");
        }
        next(c);
        break;
    }
    case NC_COMPOUND:
        if (!ispunct_(c, '{')) die(c, "Expected {..} for a value of compound type %s", ty->name);
        next(c);
        for (int f = 0; f < ty->nfields; f++) {
            if (ispunct_(c, '}')) {
                /* missing fields keep the default fill */
                for (; f < ty->nfields; f++) {
                    size_t es = ncg_size(&c->m, ty->fields[f].type);
                    for (size_t i = 0; i < ty->fields[f].nelems; i++)
                        default_fill_any(c, ty->fields[f].type, out + ty->fields[f].offset + i * es);
                }
                break;
            }
            parse_field(c, &ty->fields[f], out + ty->fields[f].offset);
            if (f + 1 < ty->nfields && ispunct_(c, ',')) next(c);
        }
        if (!ispunct_(c, '}')) syntax(c, "'}'");
        next(c);
        break;
    default:
        break;
    }
    c->depth--;
}

/* "= value, value ... ;" of an attribute of a string or user-defined type */
static void
parse_attr_typed(ctx *c, int var, int type, char *name)
{
    ncg_att a;
    size_t es = ncg_size(&c->m, type), cap = 0;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.var = var;
    a.grp = c->cur;
    a.type = type;
    c->m.atts = xrealloc(c, c->m.atts, (size_t)(c->m.natts + 1) * sizeof *c->m.atts);
    c->m.atts[c->m.natts++] = a;
    c->pending = NULL;
    int ai = c->m.natts - 1;
    expect(c, '=');
    if (ispunct_(c, ';')) die(c, "Empty datalist can only be assigned to attributes of type char");
    if (ispunct_(c, ',')) next(c);
    for (;;) {
        ncg_att *ap = &c->m.atts[ai];
        if (c->tok == T_FILL) die(c, "Attribute data may not contain fill values (i.e. _ )");
        if (ap->len == cap) {
            if (cap > SIZE_MAX / 2 / es) die(c, "out of memory");
            cap = cap ? 2 * cap : 4;
            ap->data = xrealloc(c, ap->data, cap * es);
        }
        memset((unsigned char *)ap->data + ap->len * es, 0, es);
        ap->len++;
        parse_value(c, type, (unsigned char *)ap->data + (ap->len - 1) * es, NULL);
        if (ispunct_(c, ',')) { next(c); continue; }
        if (!ispunct_(c, ';')) syntax(c, "';'");
        break;
    }
    ncg_att *ap = &c->m.atts[ai];
    if (!strcmp(name, "_FillValue") && var >= 0) {
        ncg_var *v = &c->m.vars[var];
        if (ap->len != 1) {
            if (!c->opt->quiet) fprintf(stderr, "_FillValue: must be a single (possibly compound) value\n");
            longjmp(c->jb, 1);
        }
        if (v->ufill) free_values(&c->m, v->type, v->ufill, 1);
        else v->ufill = xrealloc(c, NULL, es);
        memset(v->ufill, 0, es);
        copy_value(c, type, v->ufill, ap->data);
    }
}

/* ---- header ------------------------------------------------------------------ */
static void
parse_dims(ctx *c)
{
    while (c->tok == T_IDENT && !colon_follows(c)) {
        for (;;) {
            ncg_dim d;
            memset(&d, 0, sizeof d);
            if (c->tok != T_IDENT) syntax(c, "IDENT");
            if (find_dim_in(c, c->sbuf, c->cur) >= 0) die(c, "Duplicate dimension declaration for %s", c->sbuf);
            d.name = xstrdup(c, c->sbuf, c->slen);
            d.grp = c->cur;
            c->m.dims = xrealloc(c, c->m.dims, (size_t)(c->m.ndims + 1) * sizeof *c->m.dims);
            c->m.dims[c->m.ndims++] = d;
            ncg_dim *dp = &c->m.dims[c->m.ndims - 1];
            next(c);
            expect(c, '=');
            if (c->tok == T_UNLIMITED) {
                /* a second one is refused by nc_def_dim in the classic formats */
                dp->unlimited = 1;
                if (c->m.unlimdim < 0) c->m.unlimdim = c->m.ndims - 1;
            } else if (c->tok == T_NUM && c->num.t != NC_FLOAT && c->num.t != NC_DOUBLE) {
                int neg = (c->num.t == NC_BYTE || c->num.t == NC_SHORT || c->num.t == NC_INT || c->num.t == NC_INT64) && c->num.i < 0;
                uint64_t v = c->num.u ? c->num.u : (uint64_t)c->num.i;
                if (neg && v != 0) die(c, "dimension length must be positive: %s", dp->name);
                if (v > (uint64_t)SIZE_MAX) die(c, "dimension length too large: %s", dp->name);
                dp->len = (size_t)v;
                if (v == 0) {
                    /* length 0 is NC_UNLIMITED to nc_def_dim: upstream declares the
                     * unlimited dimension this way */
                    dp->unlimited = 1;
                    dp->zero = 1;
                    if (c->m.unlimdim < 0) c->m.unlimdim = c->m.ndims - 1;
                }
            } else if (c->tok == T_NUM) {
                double v = c->num.t == NC_FLOAT ? c->num.f : c->num.d;
                if (!(v >= 1 && v < 1.8446744073709552e19)) die(c, "dimension length must be positive: %s", dp->name);
                dp->len = (size_t)v;
            } else syntax(c, "NC_UNLIMITED_K or INT_CONST");
            next(c);
            if (ispunct_(c, ',')) { next(c); continue; }
            expect(c, ';');
            break;
        }
    }
}

static int
is_nc4_special(const char *n)
{
    static const char *const sp[] = {"_Storage", "_ChunkSizes", "_Fletcher32", "_DeflateLevel", "_Shuffle",
        "_Endianness", "_Filter", "_Codecs", "_NCProperties", "_IsNetcdf4", "_SuperblockVersion", NULL};
    for (int i = 0; sp[i]; i++) if (!strcmp(sp[i], n)) return 1;
    return 0;
}

static const struct { const char *name; int fmt; } kinds[] = {
    {"classic", NC_FORMAT_CLASSIC}, {"nc3", NC_FORMAT_CLASSIC}, {"1", NC_FORMAT_CLASSIC},
    {"64-bit offset", NC_FORMAT_64BIT_OFFSET}, {"nc6", NC_FORMAT_64BIT_OFFSET}, {"2", NC_FORMAT_64BIT_OFFSET},
    {"64-bit-offset", NC_FORMAT_64BIT_OFFSET},
    {"netCDF-4", NC_FORMAT_NETCDF4}, {"nc4", NC_FORMAT_NETCDF4}, {"3", NC_FORMAT_NETCDF4},
    {"netCDF4", NC_FORMAT_NETCDF4}, {"hdf5", NC_FORMAT_NETCDF4}, {"enhanced", NC_FORMAT_NETCDF4},
    {"netcdf-4", NC_FORMAT_NETCDF4}, {"netcdf4", NC_FORMAT_NETCDF4},
    {"netCDF-4 classic model", NC_FORMAT_NETCDF4_CLASSIC}, {"nc7", NC_FORMAT_NETCDF4_CLASSIC},
    {"4", NC_FORMAT_NETCDF4_CLASSIC}, {"netCDF-4-classic", NC_FORMAT_NETCDF4_CLASSIC},
    {"netCDF-4_classic", NC_FORMAT_NETCDF4_CLASSIC}, {"netCDF4_classic", NC_FORMAT_NETCDF4_CLASSIC},
    {"hdf5-nc3", NC_FORMAT_NETCDF4_CLASSIC}, {"enhanced-nc3", NC_FORMAT_NETCDF4_CLASSIC},
    {"5", NC_FORMAT_64BIT_DATA}, {"64-bit-data", NC_FORMAT_64BIT_DATA}, {"64-bit data", NC_FORMAT_64BIT_DATA},
    {"nc5", NC_FORMAT_64BIT_DATA}, {"cdf5", NC_FORMAT_64BIT_DATA}, {"cdf-5", NC_FORMAT_64BIT_DATA},
    {NULL, 0}
};

int ncg_kind(const char *name);
int
ncg_kind(const char *name)
{
    for (int i = 0; kinds[i].name; i++) if (!strcmp(kinds[i].name, name)) return kinds[i].fmt;
    return 0;
}

/* Infer the type of an untyped numeric attribute: upstream keeps the later
 * type when its signed counterpart ranks at least as high. */
static nc_type
signedof(nc_type t)
{
    switch (t) {
    case NC_UBYTE: return NC_BYTE;
    case NC_USHORT: return NC_SHORT;
    case NC_UINT: return NC_INT;
    case NC_UINT64: return NC_INT64;
    default: return t;
    }
}

/* Parse "= value, value ... ;" of an attribute and append it to the model. */
static void
parse_attr(ctx *c, int var, nc_type type, char *name)
{
    cval *vals = c->vals;
    size_t n = 0;
    char *text = NULL; size_t tlen = 0;
    int nstr = 0, nnum = 0;
    int line = c->line;
    ncg_att a;

    if (!strcmp(name, "_FillValue") && var >= 0 &&
        (c->m.vars[var].type == NC_STRING || c->m.vars[var].type >= NCG_UTYPE))
        type = c->m.vars[var].type;
    if (type == NC_STRING || type >= NCG_UTYPE) { parse_attr_typed(c, var, type, name); return; }
    /* name ownership moves to the model at the end; free on error via model */
    memset(&a, 0, sizeof a);
    a.name = name;
    a.var = var;
    a.grp = c->cur;
    c->m.atts = xrealloc(c, c->m.atts, (size_t)(c->m.natts + 1) * sizeof *c->m.atts);
    c->m.atts[c->m.natts++] = a;
    c->pending = NULL;
    ncg_att *ap = &c->m.atts[c->m.natts - 1];

    expect(c, '=');
    /* Upstream's grammar lets the value list be empty ("a = ;", an empty
     * text attribute) and lets it start with a comma ("a = , 1 ;"). */
    int empty = ispunct_(c, ';');
    if (ispunct_(c, ',')) next(c);
    for (; !empty;) {
        if (c->tok == T_STRING) {
            ap->data = text = xrealloc(c, text, tlen + c->slen + 1);
            memcpy(text + tlen, c->sbuf, c->slen);
            tlen += c->slen;
            nstr++;
        } else if (c->tok == T_NUM) {
            if (n == c->valcap) {
                if (c->valcap > SIZE_MAX / 2 / sizeof *vals) die(c, "out of memory");
                c->valcap = c->valcap ? 2 * c->valcap : 8;
                c->vals = vals = xrealloc(c, vals, c->valcap * sizeof *vals);
            }
            vals[n++] = c->num;
            nnum++;
        } else if (c->tok == T_FILL) {
                        die(c, "Attribute data may not contain fill values (i.e. _ )");
        } else if (ispunct_(c, '{')) {
                        die(c, "Expected primitive found {..}");
        } else {
                        syntax(c, NULL);
        }
        next(c);
        if (ispunct_(c, ',')) { next(c); continue; }
        if (!ispunct_(c, ';')) { syntax(c, "';'"); }
        break;
    }
    (void)line;
    if (empty && !(!strcmp(name, "_FillValue") && var >= 0)) {
        if (type != NC_NAT && type != NC_CHAR)
            die(c, "Empty datalist can only be assigned to attributes of type char");
        type = NC_CHAR;
    }
    if (type == NC_NAT) {
        if (nstr && nnum) {
                        die(c, "Non-simple list of values for untyped attribute: /%s%s%s", var >= 0 ? c->m.vars[var].name : "",
                var >= 0 ? "/" : "", name);
        }
        if (nstr) type = NC_CHAR;
        else {
            type = NC_NAT;
            for (size_t k = 0; k < n; k++) {
                nc_type nt = vals[k].t;
                if (type == NC_NAT || type == nt || signedof(type) <= signedof(nt)) type = nt;
            }
        }
    }
    if (!strcmp(name, "_FillValue") && var >= 0) {
        ncg_var *v = &c->m.vars[var];
        type = v->type;   /* the fill value always takes the variable's type */
        if (type == NC_CHAR && !empty) {   /* an empty list is no value: refused below */
            size_t cl = tlen + n;
            /* "" is accepted: stored as one NUL like any empty text attribute */
            if (cl > 1) { c->line = line; dielib(c, NC_EBADTYPE); }
        } else if (n + (nstr ? 1 : 0) != 1) {
                        if (!c->opt->quiet) fprintf(stderr, "_FillValue: must be a single (possibly compound) value\n");
            longjmp(c->jb, 1);
        }
    }
    ap = &c->m.atts[c->m.natts - 1];
    ap->type = type;
    if (type == NC_CHAR) {
        /* strings concatenate; numeric constants add one character each */
        size_t total = tlen + n;
        char *out = xrealloc(c, NULL, total ? total : 1);
        if (tlen) memcpy(out, text, tlen);
        for (size_t k = 0; k < n; k++) convert(&vals[k], NC_CHAR, out + tlen + k);
        if (nnum && nstr) { /* typed char attribute mixing strings and numbers keeps CDL order poorly; rare */ }
        free(text);
        ap->data = out;
        ap->len = total;
        if (total == 0) { out[0] = 0; ap->len = 1; ap->empty = 1; }   /* "" is stored as one NUL, as upstream does */
    } else {
        size_t es = ncg_typesize(type);
        if (nstr) { die(c, "Data value is not consistent with the expected type: %s", name); }
        free(text);
        ap->data = NULL;
        unsigned char *out = xrealloc(c, NULL, n * es);
        for (size_t k = 0; k < n; k++) convert(&vals[k], type, out + k * es);
        ap->data = out;
        ap->len = n;
    }
        if (!strcmp(name, "_FillValue") && var >= 0) {
        memcpy(c->m.vars[var].fill, ap->data, ncg_typesize(type));
        /* upstream pads char data with the fill only when it was a string */
        c->m.vars[var].cfill = (type == NC_CHAR && nstr) ? *(char *)ap->data : 0;
    }
}

/* whether the next non-blank character after the current token is ':' */
static int
colon_follows(ctx *c)
{
    const char *save = c->p;
    int saveline = c->line;
    skipspace(c);
    int yes = c->p < c->end && *c->p == ':';
    c->p = save;
    c->line = saveline;
    return yes;
}

/* the value of a special attribute: one string or a list of integers */
static void
special_values(ctx *c, char **str, int64_t **ints, size_t *n)
{
    /* kept in the context until used, so an error frees them */
    free(c->spstr); free(c->spints);
    c->spstr = NULL; c->spints = NULL;
    *n = 0;
    expect(c, '=');
    for (;;) {
        if (c->tok == T_STRING) {
            if (!c->spstr) c->spstr = xstrdup(c, c->sbuf, c->slen);
        } else if (c->tok == T_NUM) {
            int64_t v;
            numcheck(c);
            convert(&c->num, NC_INT64, &v);
            if (*n >= 1024) die(c, "too many values for a special attribute");
            c->spints = xrealloc(c, c->spints, (*n + 1) * sizeof *c->spints);
            c->spints[(*n)++] = v;
        } else syntax(c, NULL);
        *str = c->spstr;
        *ints = c->spints;
        next(c);
        if (ispunct_(c, ',')) { next(c); continue; }
        if (!ispunct_(c, ';')) syntax(c, "';'");
        next(c);
        return;
    }
}

/* Per-variable special attributes set storage properties: parsed into the
 * variable, never written as attributes. Returns 0 when name is not one. */
static int
parse_special(ctx *c, int var, const char *name)
{
    static const char *const quant[] = {"_QuantizeBitGroomNumberOfSignificantDigits",
        "_QuantizeGranularBitRoundNumberOfSignificantDigits", "_QuantizeBitRoundNumberOfSignificantBits"};
    static const int qmode[] = {NC_QUANTIZE_BITGROOM, NC_QUANTIZE_GRANULARBR, NC_QUANTIZE_BITROUND};
    int q = -1;
    for (int i = 0; i < 3; i++) if (!strcmp(name, quant[i])) q = i;
    if (!is_nc4_special(name) && q < 0) return 0;
    char *str; int64_t *ints; size_t n;
    special_values(c, &str, &ints, &n);
    if (!c->nc4special) c->nc4special = 1;
    if (var >= 0) {
        ncg_var *v = &c->m.vars[var];
        int tf = str ? (!strcmp(str, "true") || !strcmp(str, "1")) : (n && ints[0] != 0);
        if (q >= 0) { v->quantize = qmode[q]; v->nsd = n ? (int)ints[0] : 0; }
        else if (!strcmp(name, "_Storage")) {
            if (str && !strcmp(str, "contiguous")) v->storage = NC_CONTIGUOUS;
            else if (str && !strcmp(str, "compact")) v->storage = NC_COMPACT;
            else v->storage = NC_CHUNKED;
        } else if (!strcmp(name, "_ChunkSizes")) {
            free(v->chunks);
            v->chunks = xrealloc(c, NULL, (n ? n : 1) * sizeof *v->chunks);
            for (size_t i = 0; i < n; i++) v->chunks[i] = (size_t)ints[i];
            v->nchunks = (int)n;
            if (v->storage < 0) v->storage = NC_CHUNKED;
        } else if (!strcmp(name, "_DeflateLevel")) v->deflate = n ? (int)ints[0] : 0;
        else if (!strcmp(name, "_Shuffle")) v->shuffle = tf;
        else if (!strcmp(name, "_Fletcher32")) v->fletcher32 = tf;
        else if (!strcmp(name, "_Endianness")) {
            if (str && !strcmp(str, "little")) v->endian = NC_ENDIAN_LITTLE;
            else if (str && !strcmp(str, "big")) v->endian = NC_ENDIAN_BIG;
            else if (str && !strcmp(str, "native")) v->endian = NC_ENDIAN_NATIVE;
            else die(c, "_Endianness: illegal value");
        } else if (!strcmp(name, "_Filter") && str) {
            free(v->filter);
            v->filter = str;
            c->spstr = NULL;
        }
    }
    free(c->spstr); free(c->spints);
    c->spstr = NULL; c->spints = NULL;
    return 1;
}

/* a type name in a declaration: atomic keyword, or a user type's name */
static int
decl_type(ctx *c)
{
    if (c->tok == T_TYPE) return c->toktype;
    if (c->tok == T_IDENT && c->kwname) return c->toktype;
    if (c->tok == T_IDENT || c->tok == T_PATH) {
        int t = find_type(c, c->sbuf);
        if (t >= 0) return NCG_UTYPE + t;
    }
    return -1;
}

static ncg_var *
new_var(ctx *c, int type)
{
    ncg_var v;
    memset(&v, 0, sizeof v);
    if (find_var(c, c->sbuf) >= 0) die(c, "Duplicate variable declaration for %s", c->sbuf);
    v.name = xstrdup(c, c->sbuf, c->slen);
    v.grp = c->cur;
    v.line = c->line;
    v.type = type;
    v.nofill = -1;
    v.storage = v.deflate = v.shuffle = v.fletcher32 = v.endian = -1;
    c->m.vars = xrealloc(c, c->m.vars, (size_t)(c->m.nvars + 1) * sizeof *c->m.vars);
    c->m.vars[c->m.nvars++] = v;
    ncg_var *vp = &c->m.vars[c->m.nvars - 1];
    if (type == NC_STRING || type >= NCG_UTYPE) {
        size_t sz = ncg_size(&c->m, type);
        vp->ufill = xrealloc(c, NULL, sz);
        memset(vp->ufill, 0, sz);
        default_fill_any(c, type, vp->ufill);
    } else default_fill(type, vp->fill);
    return vp;
}

/* The "variables:" section, or (globals_only) the global attributes that
 * upstream also accepts before "dimensions:" and between the dimensions and
 * "variables:"; those stop at the first statement that is not one. */
static void
parse_variables(ctx *c, int globals_only)
{
    for (;;) {
        int type = NC_NAT;
        if (globals_only && !ispunct_(c, ':') && !(c->tok == T_TYPE && colon_follows(c)) &&
            !((c->tok == T_IDENT || c->tok == T_PATH) && colon_follows(c) && find_var(c, c->sbuf) < 0 &&
              decl_type(c) >= NCG_UTYPE))
            return;
        if (c->tok == T_NC4TYPE) die(c, "netCDF-4 type %.*s is not supported in the classic model",
                                     (int)(c->p - c->tokstart), c->tokstart);
        if (c->tok == T_IDENT && c->kwname) {
            /* a name like "int64" that is not a keyword here, used as a type */
            if (!colon_follows(c)) c->tok = T_TYPE;
        } else if (c->tok == T_PATH || (c->tok == T_IDENT && !(colon_follows(c) && find_var(c, c->sbuf) >= 0))) {
            /* a user type (a variable's name before ':' is that variable) */
            int t = decl_type(c);
            if (t >= 0) { c->toktype = t; c->tok = T_TYPE; }
            else if (!colon_follows(c) || c->tok == T_PATH) die(c, "Undefined type: %s", c->sbuf);
        }
        if (c->tok == T_TYPE) {
            type = c->toktype;
            next(c);
            if (c->tok == T_IDENT || ispunct_(c, ':')) {
                /* either a variable list or a typed attribute: look for ':' after the name */
                if (c->tok == T_IDENT && !colon_follows(c)) goto vardecl;
                goto attdecl;
            }
            syntax(c, "IDENT");
        vardecl:
            for (;;) {
                if (c->tok != T_IDENT) syntax(c, "IDENT");
                ncg_var *vp = new_var(c, type);
                next(c);
                if (ispunct_(c, '(')) {
                    next(c);
                    for (;;) {
                        int d;
                        if (c->tok != T_IDENT && c->tok != T_PATH) syntax(c, "IDENT");
                        if ((d = find_dim(c, c->sbuf)) < 0)
                            die(c, "Undefined or forward referenced dimension: %s", c->sbuf);
                        if (vp->ndims >= NC_MAX_VAR_DIMS) die(c, "too many dimensions for variable %s", vp->name);
                        vp->dims[vp->ndims++] = d;
                        next(c);
                        if (ispunct_(c, ',')) { next(c); continue; }
                        expect(c, ')');
                        break;
                    }
                }
                if (ispunct_(c, ',')) { next(c); continue; }
                expect(c, ';');
                break;
            }
            continue;
        }
        if (c->tok == T_IDENT || ispunct_(c, ':')) {
        attdecl:;
            int var = -1;
            if (c->tok == T_IDENT) {
                if ((var = find_var(c, c->sbuf)) < 0) die(c, "Undefined or forward referenced variable: %s", c->sbuf);
                next(c);
            }
            expect(c, ':');
            if (c->tok != T_IDENT && c->tok != T_TYPE && c->tok != T_UNLIMITED && c->tok != T_NC4TYPE && c->tok != T_NETCDF)
                syntax(c, "IDENT");
            char *name = xstrdup(c, c->tokstart, c->tok == T_IDENT ? c->slen : (size_t)(c->p - c->tokstart));
            if (c->tok == T_IDENT) memcpy(name, c->sbuf, c->slen + 1);
            c->pending = name;
            next(c);
            if (!strcmp(name, "_Format")) {
                if (var >= 0) die(c, "_Format: must be global attribute");
                expect(c, '=');
                if (c->tok != T_STRING) syntax(c, "TERMSTRING");
                int f = ncg_kind(c->sbuf);
                if (!f) die(c, "_Format: illegal value: %s", c->sbuf);
                c->fmt_att = f;
                next(c);
                free(name);
                c->pending = NULL;
                expect(c, ';');
                continue;
            }
            if (parse_special(c, var, name)) {
                free(name);
                c->pending = NULL;
                continue;
            }
            if (!strcmp(name, "_NoFill") && var >= 0) {
                free(name);
                c->pending = NULL;
                expect(c, '=');
                int val = 1;
                if (c->tok == T_STRING) val = (!strcmp(c->sbuf, "true") || !strcmp(c->sbuf, "1"));
                else if (c->tok == T_NUM) { int32_t iv; convert(&c->num, NC_INT, &iv); val = iv != 0; }
                c->m.vars[var].nofill = val;
                while (!ispunct_(c, ';')) { if (c->tok == T_EOF) syntax(c, "';'"); next(c); }
                next(c);
                continue;
            }
            parse_attr(c, var, type, name);
            next(c);
            continue;
        }
        if (c->tok == T_DATA || c->tok == T_GROUP || ispunct_(c, '}')) return;
        if (c->tok == T_TYPES) die(c, "types: must come first in a group");
        syntax(c, NULL);
    }
}

/* the types: section of a group */
static ncg_type *
new_type(ctx *c, int cls, const char *name, size_t nlen)
{
    ncg_type t;
    memset(&t, 0, sizeof t);
    if (find_type_in(c, name, c->cur) >= 0) die(c, "Duplicate type declaration for %s", name);
    t.name = xstrdup(c, name, nlen);
    t.grp = c->cur;
    t.cls = cls;
    c->m.types = xrealloc(c, c->m.types, (size_t)(c->m.ntypes + 1) * sizeof *c->m.types);
    c->m.types[c->m.ntypes++] = t;
    c->enhanced = 1;
    return &c->m.types[c->m.ntypes - 1];
}

static int
isinttype(int t)
{
    return t >= NC_BYTE && t <= NC_UINT64 && t != NC_CHAR && t != NC_FLOAT && t != NC_DOUBLE;
}

static void
parse_types(ctx *c)
{
    for (;;) {
        int base = -1;
        if (c->tok == T_NC4TYPE && (c->p - c->tokstart == 6) && !memcmp(c->tokstart, "opaque", 6)) {
            next(c);
            expect(c, '(');
            if (c->tok != T_NUM || c->num.t == NC_FLOAT || c->num.t == NC_DOUBLE || c->num.t == NC_OPAQUE)
                syntax(c, "INT_CONST");
            int64_t sz; convert(&c->num, NC_INT64, &sz);
            if (sz <= 0 || (uint64_t)sz > MAX_TYPE_SIZE) die(c, "opaque size must be positive and at most %zu", MAX_TYPE_SIZE);
            next(c);
            expect(c, ')');
            if (c->tok != T_IDENT) syntax(c, "IDENT");
            ncg_type *t = new_type(c, NC_OPAQUE, c->sbuf, c->slen);
            t->size = (size_t)sz;
            t->align = 1;
            next(c);
            if (ispunct_(c, ';')) next(c);   /* optional after a type, as upstream */
            continue;
        }
        if (c->tok == T_NC4TYPE && ((c->p - c->tokstart == 8 && !memcmp(c->tokstart, "compound", 8)) ||
                                    (c->p - c->tokstart == 6 && !memcmp(c->tokstart, "struct", 6)) ||
                                    (c->p - c->tokstart == 9 && !memcmp(c->tokstart, "structure", 9)))) {
            next(c);
            if (c->tok != T_IDENT) syntax(c, "IDENT");
            int ti = (int)(new_type(c, NC_COMPOUND, c->sbuf, c->slen) - c->m.types);
            next(c);
            expect(c, '{');
            while (!ispunct_(c, '}')) {
                int ft = decl_type(c);
                if (ft < 0 || ft == NCG_UTYPE + ti) die(c, "Undefined type: %s", c->tok == T_EOF ? "" : c->sbuf);
                next(c);
                for (;;) {
                    ncg_field f;
                    ncg_type *t = &c->m.types[ti];
                    memset(&f, 0, sizeof f);
                    if (c->tok != T_IDENT) syntax(c, "IDENT");
                    for (int i = 0; i < t->nfields; i++)
                        if (!strcmp(t->fields[i].name, c->sbuf)) die(c, "Duplicate field name: %s", c->sbuf);
                    f.type = ft;
                    f.nelems = 1;
                    t->fields = xrealloc(c, t->fields, (size_t)(t->nfields + 1) * sizeof *t->fields);
                    t->fields[t->nfields] = f;
                    t->fields[t->nfields].name = xstrdup(c, c->sbuf, c->slen);
                    ncg_field *fp = &t->fields[t->nfields++];
                    next(c);
                    if (ispunct_(c, '(')) {
                        next(c);
                        for (;;) {
                            if (c->tok != T_NUM || c->num.t == NC_FLOAT || c->num.t == NC_DOUBLE || c->num.t == NC_OPAQUE)
                                syntax(c, "INT_CONST");
                            int64_t d; convert(&c->num, NC_INT64, &d);
                            if (d <= 0 || d > (1 << 24)) die(c, "field dimension must be positive: %s", fp->name);
                            if (fp->ndims >= NC_MAX_VAR_DIMS) die(c, "too many dimensions for field %s", fp->name);
                            if (fp->nelems > ((size_t)1 << 28) / (size_t)d) die(c, "field %s is too large", fp->name);
                            fp->dims[fp->ndims++] = (int)d;
                            fp->nelems *= (size_t)d;
                            next(c);
                            if (ispunct_(c, ',')) { next(c); continue; }
                            expect(c, ')');
                            break;
                        }
                    }
                    if (ispunct_(c, ',')) { next(c); continue; }
                    expect(c, ';');
                    break;
                }
            }
            next(c);
            if (ispunct_(c, ';')) next(c);   /* optional after a type, as upstream */
            /* layout as a C struct; upstream's alignment: the first field's,
             * the size padded by (size % largest alignment) */
            ncg_type *t = &c->m.types[ti];
            size_t off = 0, large = 1;
            if (t->nfields == 0) die(c, "compound %s has no fields", t->name);
            for (int i = 0; i < t->nfields; i++) {
                ncg_field *f = &t->fields[i];
                size_t al = type_align(&c->m, f->type), es = ncg_size(&c->m, f->type);
                if (i == 0) t->align = al;
                if (off % al) off += al - off % al;
                f->offset = off;
                /* bounded: every value of the type is built and filled in memory */
                if (off > MAX_TYPE_SIZE || (es && f->nelems > (MAX_TYPE_SIZE - off) / es)) die(c, "compound %s is too large", t->name);
                off += es * f->nelems;
                if (al > large) large = al;
                if (hasptr(&c->m, f->type)) t->hasptr = 1;
            }
            off += off % large;
            t->size = off;
            continue;
        }
        base = decl_type(c);
        /* "type :att" ends the section: a typed global attribute */
        if (base < 0 || colon_follows(c)) return;
        next(c);
        if (c->tok == T_NC4TYPE && c->p - c->tokstart == 4 && !memcmp(c->tokstart, "enum", 4)) {
            if (!isinttype(base)) die(c, "enum base type must be an integer type");
            next(c);
            if (c->tok != T_IDENT) syntax(c, "IDENT");
            ncg_type *t = new_type(c, NC_ENUM, c->sbuf, c->slen);
            int ti = (int)(t - c->m.types);
            t->base = base;
            t->size = t->align = ncg_typesize(base);
            next(c);
            expect(c, '{');
            for (;;) {
                ncg_econst e;
                memset(&e, 0, sizeof e);
                if (c->tok != T_IDENT) syntax(c, "IDENT");
                t = &c->m.types[ti];
                for (int i = 0; i < t->nconsts; i++)
                    if (!strcmp(t->consts[i].name, c->sbuf)) die(c, "Duplicate enum constant: %s", c->sbuf);
                t->consts = xrealloc(c, t->consts, (size_t)(t->nconsts + 1) * sizeof *t->consts);
                t->consts[t->nconsts] = e;
                t->consts[t->nconsts].name = xstrdup(c, c->sbuf, c->slen);
                ncg_econst *ep = &t->consts[t->nconsts++];
                next(c);
                expect(c, '=');
                if (c->tok != T_NUM) syntax(c, "INT_CONST");
                numcheck(c);
                convert(&c->num, base, ep->val);
                next(c);
                if (ispunct_(c, ',')) { next(c); continue; }
                expect(c, '}');
                break;
            }
            if (ispunct_(c, ';')) next(c);   /* optional after a type, as upstream */
            continue;
        }
        if (ispunct_(c, '(')) {
            next(c);
            if (!(c->tok == T_BAD && c->tokstart[0] == '*')) syntax(c, "'*'");
            next(c);
            expect(c, ')');
            if (c->tok != T_IDENT) syntax(c, "IDENT");
            ncg_type *t = new_type(c, NC_VLEN, c->sbuf, c->slen);
            t->base = base;
            t->size = sizeof(nc_vlen_t);
            t->align = sizeof(void *);
            t->hasptr = 1;
            next(c);
            if (ispunct_(c, ';')) next(c);   /* optional after a type, as upstream */
            continue;
        }
        syntax(c, "ENUM or '('");
    }
}

/* ---- define ------------------------------------------------------------------ */
static void
do_define(ctx *c)
{
    int k = c->opt->kflag;
    if (c->opt->lang_classic_only) k = NC_FORMAT_CLASSIC;
    if (!k) k = c->fmt_att;
    if (!k && (c->nc4special || c->enhanced)) k = NC_FORMAT_NETCDF4;
    if (!k) k = NC_FORMAT_CLASSIC;
    c->m.format = k;
    if (c->enhanced && (k == NC_FORMAT_CLASSIC || k == NC_FORMAT_64BIT_OFFSET || k == NC_FORMAT_NETCDF4_CLASSIC)) {
        /* upstream prints this and exits 0 without a file; we fail */
        if (!c->opt->quiet) fprintf(stderr, "-k or _Format conflicts with enhanced CDL input\n");
        longjmp(c->jb, 1);
    }
    if (k != NC_FORMAT_NETCDF4)
        for (int i = 0; i < c->m.nvars; i++)
            for (int d = 1; d < c->m.vars[i].ndims; d++)
                if (c->m.dims[c->m.vars[i].dims[d]].unlimited) {
                    c->line = c->m.vars[i].line;
                    die(c, "Variable: /%s: UNLIMITED must be in first dimension only", c->m.vars[i].name);
                }
    /* types are defined in upstream's order: first those built only from
     * atomic types (and every enum and opaque), then the others, each list
     * in declaration order */
    c->m.typeorder = xrealloc(c, NULL, (size_t)(c->m.ntypes ? c->m.ntypes : 1) * sizeof(int));
    {
        int n = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < c->m.ntypes; i++) {
                const ncg_type *t = &c->m.types[i];
                int simple = 1;
                if (t->cls == NC_VLEN) simple = t->base < NCG_UTYPE;
                else if (t->cls == NC_COMPOUND)
                    for (int f = 0; f < t->nfields; f++) if (t->fields[f].type >= NCG_UTYPE) simple = 0;
                if (simple == (pass == 0)) c->m.typeorder[n++] = i;
            }
    }
    switch (k) {
    case NC_FORMAT_64BIT_OFFSET: c->m.cmode = NC_64BIT_OFFSET; break;
    case NC_FORMAT_64BIT_DATA: c->m.cmode = NC_64BIT_DATA; break;
    case NC_FORMAT_NETCDF4: c->m.cmode = NC_NETCDF4; break;
    case NC_FORMAT_NETCDF4_CLASSIC: c->m.cmode = NC_NETCDF4 | NC_CLASSIC_MODEL; break;
    default: c->m.cmode = 0; break;
    }
    c->m.nofill = c->opt->nofill;
    if (c->opt->dataset_name) {
        free(c->m.name);
        c->m.name = xstrdup(c, c->opt->dataset_name, strlen(c->opt->dataset_name));
    }
    if (c->nc4special && k != NC_FORMAT_NETCDF4 && k != NC_FORMAT_NETCDF4_CLASSIC) dielib(c, NC_ENOTNC4);
    if (c->outname && c->outname(c->sctx, c->m.name)) longjmp(c->jb, 1);
    if (c->sink) {
        int stat = c->sink->define(c->sctx, &c->m);
        c->defined = 1;
        if (stat) dielib(c, stat);
    }
}

/* ---- data sections ----------------------------------------------------------- */
#define SLAB_BYTES (1u << 20)

static void
put(ctx *c, int vi, size_t row, size_t nrows, const void *buf)
{
    ncg_var *v = &c->m.vars[vi];
    size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    int stat;
    if (!c->sink || c->opt->header_only || nrows == 0) return;
    for (int i = 0; i < v->ndims; i++) { start[i] = 0; count[i] = c->m.dims[v->dims[i]].len; }
    if (v->ndims) { start[0] = row; count[0] = nrows; }
    if ((stat = c->sink->put(c->sctx, &c->m, vi, start, count, buf))) dielib(c, stat);
}

/* product of the lengths of dims [from, ndims) with overflow check */
static size_t
prod(ctx *c, const ncg_var *v, int from)
{
    size_t p = 1;
    for (int i = from; i < v->ndims; i++) {
        size_t l = c->m.dims[v->dims[i]].len;
        if (l && p > SIZE_MAX / l) die(c, "variable %s is too large", v->name);
        p *= l;
    }
    return p;
}

static void
fill_elems(void *buf, const void *fill, size_t es, size_t n)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++) memcpy(b + i * es, fill, es);
}

static void
data_numeric(ctx *c, int vi)
{
    ncg_var *v = &c->m.vars[vi];
    size_t es = ncg_typesize(v->type);
    int rec = v->ndims > 0 && c->m.dims[v->dims[0]].unlimited;
    size_t rowsize = v->ndims ? prod(c, v, 1) : 1;     /* elements per leading row */
    size_t nrows_total = v->ndims == 0 ? 1 : rec ? SIZE_MAX : c->m.dims[v->dims[0]].len;
    size_t slabrows, cap, n = 0, row = 0;
    unsigned char *buf;

    if (rowsize == 0) rowsize = 1;
    slabrows = SLAB_BYTES / (rowsize * es);
    if (slabrows == 0) slabrows = 1;
    if (slabrows > nrows_total) slabrows = nrows_total;
    if (rowsize > SIZE_MAX / es / slabrows) die(c, "variable %s is too large", v->name);
    cap = slabrows * rowsize;
    if (c->bufcap < cap * es) {
        free(c->buf);
        c->buf = NULL;
        c->buf = xrealloc(c, NULL, cap * es);
        c->bufcap = cap * es;
    }
    buf = c->buf;
    for (;;) {
        if (row < nrows_total) {
            if (c->tok == T_NUM) convert(&c->num, v->type, buf + n * es);
            else if (c->tok == T_FILL) memcpy(buf + n * es, v->fill, es);
            else if (c->tok == T_STRING) die(c, "Data value is not consistent with the expected type: %s", v->name);
            else if (ispunct_(c, '{')) die(c, "Expected primitive found {..}");
            else syntax(c, NULL);
            if (++n == cap) {
                put(c, vi, row, slabrows, buf);
                row += slabrows;
                n = 0;
            }
        } else if (c->tok != T_NUM && c->tok != T_FILL) {
            if (c->tok == T_STRING) die(c, "Data value is not consistent with the expected type: %s", v->name);
            if (ispunct_(c, '{')) die(c, "Expected primitive found {..}");
            syntax(c, NULL);
        }
        next(c);
        if (ispunct_(c, ',')) { next(c); continue; }
        if (!ispunct_(c, ';')) syntax(c, "';'");
        break;
    }
    /* pad the last row (and, for fixed-size variables, the rest) with fill */
    if (n > 0 || (!rec && row < nrows_total)) {
        size_t rows = (n + rowsize - 1) / rowsize;
        if (!rec) {
            size_t want = nrows_total - row;
            fill_elems(buf + n * es, v->fill, es, (rows ? rows : 0) * rowsize - n);
            put(c, vi, row, rows, buf);
            row += rows;
            want -= rows;
            if (want) {
                size_t chunk = slabrows;
                fill_elems(buf, v->fill, es, chunk * rowsize);
                while (want) {
                    size_t r = want < chunk ? want : chunk;
                    put(c, vi, row, r, buf);
                    row += r; want -= r;
                }
            }
        } else {
            fill_elems(buf + n * es, v->fill, es, rows * rowsize - n);
            put(c, vi, row, rows, buf);
            row += rows;
        }
    }
    v->has_data = 1;
    v->nrecs = rec ? row : 0;
}

static void
cput(ctx *c, const char *s, size_t n, int ch)
{
    if (c->clen + n + 1 > c->ccap) {
        size_t nc = c->ccap ? c->ccap : 4096;
        while (nc < c->clen + n + 1) {
            if (nc > SIZE_MAX / 2) die(c, "out of memory");
            nc *= 2;
        }
        c->cbuf = xrealloc(c, c->cbuf, nc);
        c->ccap = nc;
    }
    if (s) memcpy(c->cbuf + c->clen, s, n);
    else memset(c->cbuf + c->clen, ch, n);
    c->clen += n;
}

/* Char data follow upstream's rules: in rank >= 2 every string, and every
 * run of adjacent character constants ('a','b' is "ab"), is padded with the
 * fill character to a multiple of the last dimension; '_' adds that length
 * minus one; in rank <= 1 everything is concatenated and '_' adds nothing.
 * The result is then cut or padded to the variable (fixed) or to whole
 * records (record variables). Upstream overflows its buffer when the padded
 * text is longer than the variable, and drops the constant that follows a
 * run of character constants; we cut the text and keep the constant. */
static void
data_char(ctx *c, int vi)
{
    ncg_var *v = &c->m.vars[vi];
    int rec = v->ndims > 0 && c->m.dims[v->dims[0]].unlimited;
    size_t unit = v->ndims >= 2 ? c->m.dims[v->dims[v->ndims - 1]].len : 0;
    size_t total = rec ? 0 : prod(c, v, 0);
    size_t rowsize = v->ndims ? prod(c, v, 1) : 1;
    char fillc = v->cfill;
    size_t limit = rec ? SIZE_MAX : total;

    size_t run = 0;             /* length of the current run of character constants */
    c->clen = 0;
    for (;;) {
        size_t before = c->clen;
        int charconst = c->tok == T_NUM && (c->num.t == NC_BYTE || c->num.t == NC_UBYTE);
        if (run && !charconst && unit) {
            /* end of a run: pad it like a string of its length */
            size_t pad = run % unit ? unit - run % unit : 0;
            if (c->clen < limit) cput(c, NULL, pad < limit - c->clen ? pad : limit - c->clen, fillc);
        }
        if (!charconst) run = 0;
        if (c->tok == T_STRING) {
            if (c->clen < limit) cput(c, c->sbuf, c->slen < limit - c->clen ? c->slen : limit - c->clen, 0);
            if (unit) {
                size_t len = c->slen, pad = (len == 0 || len % unit) ? unit - len % unit : 0;
                if (c->clen < limit) cput(c, NULL, pad < limit - c->clen ? pad : limit - c->clen, fillc);
            }
        } else if (charconst) {
            char ch; convert(&c->num, NC_CHAR, &ch);
            if (c->clen < limit) cput(c, &ch, 1, 0);
            run++;
        } else if (c->tok == T_FILL) {
            if (unit > 1 && c->clen < limit) cput(c, NULL, unit - 1 < limit - c->clen ? unit - 1 : limit - c->clen, fillc);
        } else if (c->tok == T_NUM) {
            if (!c->opt->quiet)
                fprintf(stderr, "ncgen: %s line %d: Encountered non-string and non-char constant in datalist; ignored\n",
                        c->opt->cdlname ? c->opt->cdlname : "-", c->line);
        } else if (ispunct_(c, '{')) die(c, "Expected primitive found {..}");
        else syntax(c, NULL);
        (void)before;
        next(c);
        if (ispunct_(c, ',')) { next(c); continue; }
        if (!ispunct_(c, ';')) syntax(c, "';'");
        break;
    }
    if (run && unit) {
        size_t pad = run % unit ? unit - run % unit : 0;
        if (c->clen < limit) cput(c, NULL, pad < limit - c->clen ? pad : limit - c->clen, fillc);
    }
    size_t nrows;
    if (rec) {
        nrows = (c->clen + rowsize - 1) / rowsize;
        if (rowsize && nrows > SIZE_MAX / rowsize) die(c, "too much data for %s", v->name);
        if (nrows * rowsize > c->clen) cput(c, NULL, nrows * rowsize - c->clen, fillc);
    } else {
        if (v->ndims == 0 && c->clen == 0) cput(c, NULL, 1, 0);   /* scalar "" is a NUL */
        if (c->clen < total) cput(c, NULL, total - c->clen, fillc);
        nrows = v->ndims ? c->m.dims[v->dims[0]].len : 1;
    }
    put(c, vi, 0, nrows, c->cbuf);
    v->has_data = 1;
    v->nrecs = rec ? nrows : 0;
}

/* Data of a string or user-typed variable without inner unlimited
 * dimensions: values parsed one by one into slabs of whole rows, padded
 * with the fill value like data_numeric. */
static void
data_generic(ctx *c, int vi)
{
    ncg_var *v = &c->m.vars[vi];
    size_t es = ncg_size(&c->m, v->type);
    int rec = v->ndims > 0 && c->m.dims[v->dims[0]].unlimited;
    size_t rowsize = v->ndims ? prod(c, v, 1) : 1;
    size_t nrows_total = v->ndims == 0 ? 1 : rec ? SIZE_MAX : c->m.dims[v->dims[0]].len;
    size_t slabrows, cap, n = 0, row = 0;
    unsigned char *buf;

    if (rowsize == 0) rowsize = 1;
    slabrows = SLAB_BYTES / (rowsize * es);
    if (slabrows == 0) slabrows = 1;
    if (slabrows > nrows_total) slabrows = nrows_total;
    if (slabrows == 0) slabrows = 1;
    if (rowsize > SIZE_MAX / es / slabrows) die(c, "variable %s is too large", v->name);
    cap = slabrows * rowsize;
    if (c->bufcap < cap * es) {
        free(c->buf);
        c->buf = NULL;
        c->buf = xrealloc(c, NULL, cap * es);
        c->bufcap = cap * es;
    }
    buf = c->buf;
    /* c->buf holds no pointers between calls: n counts the live values */
    for (;;) {
        if (row < nrows_total) {
            memset(buf + n * es, 0, es);
            c->livebuf = buf; c->livetype = v->type; c->liveown = 0; c->liven = n + 1;
            parse_value(c, v->type, buf + n * es, v->ufill);
            if (++n == cap) {
                put(c, vi, row, slabrows, buf);
                free_values(&c->m, v->type, buf, n);
                c->liven = 0;
                row += slabrows;
                n = 0;
            }
        } else {
            /* extra values are checked and dropped */
            unsigned char *tmp = xrealloc(c, NULL, es);
            memset(tmp, 0, es);
            if (c->liven) free_values(&c->m, v->type, buf, n);   /* (only when n == 0) */
            c->livebuf = tmp; c->livetype = v->type; c->liveown = 1; c->liven = 1;
            parse_value(c, v->type, tmp, v->ufill);
            free_values(&c->m, v->type, tmp, 1);
            free(tmp);
            c->liven = 0; c->liveown = 0;
        }
        if (ispunct_(c, ',')) { next(c); continue; }
        if (!ispunct_(c, ';')) syntax(c, "';'");
        break;
    }
    if (n > 0 || (!rec && row < nrows_total)) {
        size_t rows = (n + rowsize - 1) / rowsize;
        size_t want = rec ? rows : nrows_total - row;
        while (want) {
            size_t r = want < slabrows ? want : slabrows;
            for (size_t k = n; k < r * rowsize; k++) {
                memset(buf + k * es, 0, es);
                c->livebuf = buf; c->livetype = v->type; c->liveown = 0; c->liven = k + 1;
                copy_value(c, v->type, buf + k * es, v->ufill);
            }
            n = r * rowsize;
            c->liven = n;
            put(c, vi, row, r, buf);
            free_values(&c->m, v->type, buf, n);
            c->liven = 0;
            n = 0;
            row += r;
            want -= r;
        }
    }
    v->has_data = 1;
    v->nrecs = rec ? row : 0;
}

/* Variables with an unlimited dimension after the first: each instance of
 * such a dimension is a {...} group of its own length. Values are collected
 * with their indices, then written as one dense block holding the fill value
 * where nothing was given (what a reader sees there anyway). */
static void
ragged_level(ctx *c, ncg_var *v, ragged *r, int k, size_t *idx, int braced)
{
    int j = k + 1;
    while (j < v->ndims && !c->m.dims[v->dims[j]].unlimited) j++;
    size_t inner = 1;           /* items per step of dim k */
    for (int d = k + 1; d < j; d++) inner *= c->m.dims[v->dims[d]].len ? c->m.dims[v->dims[d]].len : 1;
    size_t t = 0;
    for (;;) {
        if (braced && ispunct_(c, '}')) break;
        /* indices of this item */
        size_t q = t;
        for (int d = j - 1; d > k; d--) {
            size_t l = c->m.dims[v->dims[d]].len ? c->m.dims[v->dims[d]].len : 1;
            idx[d] = q % l;
            q /= l;
        }
        idx[k] = q;
        int over = !c->m.dims[v->dims[k]].unlimited && q >= c->m.dims[v->dims[k]].len;
        if (!over && q + 1 > r->ext[k]) r->ext[k] = q + 1;
        if (j == v->ndims && v->type == NC_CHAR && c->tok == T_STRING) {
            /* a string is its characters, padded to whole rows of a fixed last
             * dimension (as in the classic char rules); each is one item */
            size_t unit = k < v->ndims - 1 || !c->m.dims[v->dims[k]].unlimited ? c->m.dims[v->dims[v->ndims - 1]].len : 0;
            size_t len = c->slen, total = unit ? ((len + unit - 1) / unit) * unit : len;
            if (unit && total == 0) total = unit;
            char *str = xstrdup(c, c->sbuf, len);
            free(c->pending);
            c->pending = str;
            for (size_t ci = 0; ci < total; ci++, t++) {
                size_t q2 = t;
                for (int d = j - 1; d > k; d--) {
                    size_t l = c->m.dims[v->dims[d]].len ? c->m.dims[v->dims[d]].len : 1;
                    idx[d] = q2 % l;
                    q2 /= l;
                }
                idx[k] = q2;
                if (!c->m.dims[v->dims[k]].unlimited && q2 >= c->m.dims[v->dims[k]].len) break;
                if (q2 + 1 > r->ext[k]) r->ext[k] = q2 + 1;
                if (r->n == r->cap) {
                    if (r->cap > ((size_t)1 << 28)) die(c, "too much data for %s", v->name);
                    r->cap = r->cap ? 2 * r->cap : 64;
                    r->idx = xrealloc(c, r->idx, r->cap * (size_t)r->ndims * sizeof *r->idx);
                    r->vals = xrealloc(c, r->vals, r->cap * r->es);
                }
                memcpy(r->idx + r->n * (size_t)r->ndims, idx, (size_t)r->ndims * sizeof *idx);
                r->vals[r->n++] = (unsigned char)(ci < len ? str[ci] : v->cfill);
            }
            free(str);
            c->pending = NULL;
            next(c);
            if (ispunct_(c, ',')) { next(c); continue; }
            if (braced) { if (!ispunct_(c, '}')) syntax(c, "'}'"); break; }
            if (!ispunct_(c, ';')) syntax(c, "';'");
            break;
        }
        if (j == v->ndims) {
            if (r->n == r->cap) {
                if (r->cap > ((size_t)1 << 28)) die(c, "too much data for %s", v->name);
                r->cap = r->cap ? 2 * r->cap : 64;
                r->idx = xrealloc(c, r->idx, r->cap * (size_t)r->ndims * sizeof *r->idx);
                r->vals = xrealloc(c, r->vals, r->cap * r->es);
            }
            memset(r->vals + r->n * r->es, 0, r->es);
            memcpy(r->idx + r->n * (size_t)r->ndims, idx, (size_t)r->ndims * sizeof *idx);
            r->n++;             /* counted first: an error frees it */
            parse_value(c, v->type, r->vals + (r->n - 1) * r->es,
                        v->type == NC_STRING || v->type >= NCG_UTYPE ? v->ufill : v->fill);
            if (over) free_values(&c->m, v->type, r->vals + --r->n * r->es, 1);
        } else {
            if (!ispunct_(c, '{')) die(c, "Expected {..} for the unlimited dimension %s of %s", c->m.dims[v->dims[j]].name, v->name);
            next(c);
            ragged_level(c, v, r, j, idx, 1);
            if (!ispunct_(c, '}')) syntax(c, "'}'");
            next(c);
        }
        t++;
        (void)inner;
        if (ispunct_(c, ',')) { next(c); continue; }
        if (braced) { if (!ispunct_(c, '}')) syntax(c, "'}'"); break; }
        if (!ispunct_(c, ';')) syntax(c, "';'");
        break;
    }
}

static void
data_ragged(ctx *c, int vi)
{
    ncg_var *v = &c->m.vars[vi];
    ragged *r = &c->rag;        /* in the context: an error frees it */
    size_t idx[NC_MAX_VAR_DIMS], ext[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS], total = 1;
    int ptr = v->type == NC_STRING || v->type >= NCG_UTYPE;
    const void *fill = ptr ? v->ufill : (const void *)v->fill;
    /* sized for this variable's type and rank */
    free(r->vals);
    free(r->idx);
    memset(r, 0, sizeof *r);
    r->ndims = v->ndims;
    r->es = ncg_size(&c->m, v->type);
    c->livetype = v->type;
    ragged_level(c, v, r, 0, idx, 0);
    for (int d = 0; d < v->ndims; d++) {
        ext[d] = c->m.dims[v->dims[d]].unlimited ? 0 : c->m.dims[v->dims[d]].len;
        start[d] = 0;
    }
    for (int d = 0; d < v->ndims; d++)
        if (c->m.dims[v->dims[d]].unlimited) ext[d] = r->ext[d];
    for (size_t i = 0; i < r->n; i++)
        for (int d = 0; d < v->ndims; d++)
            if (c->m.dims[v->dims[d]].unlimited && r->idx[i * (size_t)v->ndims + d] + 1 > ext[d])
                ext[d] = r->idx[i * (size_t)v->ndims + d] + 1;
    for (int d = 0; d < v->ndims; d++) {
        if (ext[d] && total > ((size_t)1 << 28) / ext[d]) die(c, "too much data for %s", v->name);
        total *= ext[d];
        if (c->m.dims[v->dims[d]].unlimited && ext[d] > c->m.dims[v->dims[d]].cur) c->m.dims[v->dims[d]].cur = ext[d];
    }
    if (total) {
        unsigned char *dense = xrealloc(c, NULL, total * r->es);
        memset(dense, 0, total * r->es);
        c->livebuf = dense; c->liveown = 1; c->liven = total;
        for (size_t i = 0; i < total; i++) {
            if (ptr) copy_value(c, v->type, dense + i * r->es, fill);
            else memcpy(dense + i * r->es, fill, r->es);
        }
        for (size_t i = 0; i < r->n; i++) {
            size_t off = 0;
            for (int d = 0; d < v->ndims; d++) off = off * ext[d] + r->idx[i * (size_t)v->ndims + d];
            free_values(&c->m, v->type, dense + off * r->es, 1);
            memcpy(dense + off * r->es, r->vals + i * r->es, r->es);
        }
        r->n = 0;               /* the values now belong to dense */
        if (c->sink && !c->opt->header_only) {
            int stat = c->sink->put(c->sctx, &c->m, vi, start, ext, dense);
            if (stat) dielib(c, stat);
        }
        free_values(&c->m, v->type, dense, total);
        c->liven = 0; c->liveown = 0;
        free(dense);
    }
    v->has_data = 1;
    v->nrecs = v->ndims ? ext[0] : 0;
}

static void
parse_data(ctx *c)
{
    while (c->tok == T_IDENT) {
        int vi = find_var(c, c->sbuf);
        if (vi < 0) die(c, "Undefined or forward referenced variable: %s", c->sbuf);
        next(c);
        expect(c, '=');
        /* Upstream's grammar allows an empty list (the variable keeps its
         * fill values) and a leading comma. */
        if (ispunct_(c, ';')) { next(c); continue; }
        if (ispunct_(c, ',')) next(c);
        ncg_var *v = &c->m.vars[vi];
        int ragged = 0;
        for (int d = 1; d < v->ndims; d++) if (c->m.dims[v->dims[d]].unlimited) ragged = 1;
        if (ragged) data_ragged(c, vi);
        else if (v->type == NC_CHAR) data_char(c, vi);
        else if (v->type == NC_STRING || v->type >= NCG_UTYPE) data_generic(c, vi);
        else data_numeric(c, vi);
        v = &c->m.vars[vi];
        if (!ragged && v->ndims && c->m.dims[v->dims[0]].unlimited && v->nrecs > c->m.dims[v->dims[0]].cur)
            c->m.dims[v->dims[0]].cur = v->nrecs;
        next(c);
    }
}

/* Pad record variables that got fewer records than the file has. */
static void
pad_records(ctx *c)
{
    size_t nrec = 0;
    for (int i = 0; i < c->m.nvars; i++)
        if (c->m.vars[i].has_data && c->m.vars[i].nrecs > nrec) nrec = c->m.vars[i].nrecs;
    for (int i = 0; i < c->m.nvars; i++) {
        ncg_var *v = &c->m.vars[i];
        if (!v->has_data || v->ndims == 0 || !c->m.dims[v->dims[0]].unlimited || v->nrecs >= nrec) continue;
        size_t es = ncg_typesize(v->type), rowsize = prod(c, v, 1);
        if (rowsize == 0) continue;
        size_t slabrows = SLAB_BYTES / (rowsize * es);
        if (slabrows == 0) slabrows = 1;
        if (slabrows > nrec - v->nrecs) slabrows = nrec - v->nrecs;
        if (c->bufcap < slabrows * rowsize * es) {
            free(c->buf);
            c->buf = NULL;
            c->buf = xrealloc(c, NULL, slabrows * rowsize * es);
            c->bufcap = slabrows * rowsize * es;
        }
        fill_elems(c->buf, v->type == NC_CHAR ? &v->cfill : (const void *)v->fill, es, slabrows * rowsize);
        while (v->nrecs < nrec) {
            size_t r = nrec - v->nrecs < slabrows ? nrec - v->nrecs : slabrows;
            put(c, i, v->nrecs, r, c->buf);
            v->nrecs += r;
        }
    }
}

/* netCDF-4: each record variable given data is padded with its fill value
 * to the length its unlimited dimension got from any variable's data
 * (variables with inner unlimited dimensions are left as written). */
static void
pad_records4(ctx *c)
{
    for (int i = 0; i < c->m.nvars; i++) {
        ncg_var *v = &c->m.vars[i];
        size_t nrec = 0;
        int ragged = 0;
        if (!v->has_data || v->ndims == 0 || !c->m.dims[v->dims[0]].unlimited) continue;
        for (int d = 1; d < v->ndims; d++) if (c->m.dims[v->dims[d]].unlimited) ragged = 1;
        if (ragged) continue;
        nrec = c->m.dims[v->dims[0]].cur;
        if (v->nrecs >= nrec) continue;
        size_t es = ncg_size(&c->m, v->type), rowsize = prod(c, v, 1);
        if (rowsize == 0) continue;
        size_t slabrows = SLAB_BYTES / (rowsize * es);
        if (slabrows == 0) slabrows = 1;
        if (slabrows > nrec - v->nrecs) slabrows = nrec - v->nrecs;
        if (c->bufcap < slabrows * rowsize * es) {
            free(c->buf);
            c->buf = NULL;
            c->buf = xrealloc(c, NULL, slabrows * rowsize * es);
            c->bufcap = slabrows * rowsize * es;
        }
        int ptr = hasptr(&c->m, v->type);
        const void *fill = v->ufill ? v->ufill : v->type == NC_CHAR ? (const void *)&v->cfill : (const void *)v->fill;
        if (!ptr) fill_elems(c->buf, fill, es, slabrows * rowsize);
        while (v->nrecs < nrec) {
            size_t r = nrec - v->nrecs < slabrows ? nrec - v->nrecs : slabrows;
            if (ptr) {
                unsigned char *b = c->buf;
                for (size_t k = 0; k < r * rowsize; k++) {
                    memset(b + k * es, 0, es);
                    c->livebuf = b; c->livetype = v->type; c->liveown = 0; c->liven = k + 1;
                    copy_value(c, v->type, b + k * es, fill);
                }
            }
            put(c, i, v->nrecs, r, c->buf);
            if (ptr) { free_values(&c->m, v->type, c->buf, r * rowsize); c->liven = 0; }
            v->nrecs += r;
        }
    }
}

/* Dataset name: everything up to an unescaped '{', blanks removed. */
static void
parse_dsname(ctx *c)
{
    const char *p = c->p;
    c->slen = 0;
    sput(c, 0); c->slen = 0;
    while (p < c->end && *p != '{') {
        if (*p == '\n') c->line++;
        if (*p == '\\' && p + 1 < c->end) { sput(c, p[1]); p += 2; continue; }
        if ((unsigned char)*p > ' ') sput(c, *p);
        p++;
    }
    c->p = p;
    if (c->slen == 0 && p < c->end) { next(c); syntax(c, "DATASETID"); }
    if (memchr(c->sbuf, 0, c->slen)) die(c, "Illegal character in dataset name");
    c->m.name = xstrdup(c, c->sbuf, c->slen);
}

/* Skip a data section for pass 1: up to "group:" or the group's closing
 * brace, outside strings, character constants, comments and value braces. */
static void
skip_data(ctx *c)
{
    const char *p = c->p, *e = c->end;
    int depth = 0, line = c->line;
    while (p < e) {
        switch (*p) {
        case '\n': line++; p++; break;
        case '"':
            for (p++; p < e && *p != '"'; p++) {
                if (*p == '\n') line++;
                if (*p == '\\' && p + 1 < e) { p++; if (*p == '\n') line++; }
            }
            if (p < e) p++;
            break;
        case '\'':
            if (p + 2 < e && p[1] != '\\' && p[2] == '\'') p += 3;
            else if (p + 1 < e && p[1] == '\\') {
                const char *q = p + 2;
                while (q < e && q < p + 7 && *q != '\'' && *q != '\n') q++;
                p = q < e && *q == '\'' ? q + 1 : p + 1;
            } else p++;
            break;
        case '/':
            if (p + 1 < e && p[1] == '/') { while (p < e && *p != '\n') p++; }
            else if (p + 1 < e && p[1] == '*') {
                for (p += 2; p < e && !(p[0] == '*' && p + 1 < e && p[1] == '/'); p++) if (*p == '\n') line++;
                p = p < e ? p + 2 : e;
            } else p++;
            break;
        case '\\': p = p + 2 < e ? p + 2 : e; break;
        case '{': depth++; p++; break;
        case '}':
            if (depth == 0) goto out;
            depth--; p++;
            break;
        case 'g':
            if (depth == 0 && e - p > 6 && !memcmp(p, "group:", 6) && (p == c->p || !identchar(c, p - 1)))
                goto out;
            p++;
            break;
        default: p++; break;
        }
    }
out:
    c->p = p;
    c->line = line;
}

/* types, dimensions, variables and attributes of the group being parsed;
 * its data section is only located */
static void
parse_group_header(ctx *c)
{
    if (c->tok == T_TYPES) { next(c); parse_types(c); }
    parse_variables(c, 1);
    if (c->tok == T_DIMENSIONS) { next(c); parse_dims(c); }
    parse_variables(c, 1);
    if (c->tok == T_VARIABLES) { next(c); parse_variables(c, 0); }
    if (c->tok == T_DATA) {
        c->m.groups[c->cur].datap = c->p;
        c->m.groups[c->cur].dataline = c->line;
        skip_data(c);
        next(c);
    }
}

int
ncg_run(const char *text, size_t len, const ncg_options *opt, const ncg_sink *sink, void *sctx,
        ncg_outname_fn outname)
{
    ctx *c = calloc(1, sizeof *c);
    volatile int ret = 0;
    if (!c) return 1;
    c->p = text;
    c->end = text + len;
    c->line = 1;
    c->opt = opt;
    c->sink = sink;
    c->sctx = sctx;
    c->outname = outname;
    c->m.unlimdim = -1;
    if (setjmp(c->jb)) {
        if (c->defined && c->sink && c->sink->abort) c->sink->abort(c->sctx, &c->m);
        ret = 1;
        goto done;
    }
    /* a UTF-8 byte order mark is skipped, other ones refused (as upstream) */
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) c->p += 3;
    else if (len >= 2 && ((unsigned char)text[0] == 0xFF || (unsigned char)text[0] == 0xFE || text[0] == 0)) {
        if (!opt->quiet) fprintf(stderr, "Input file contains a BOM indicating a non-UTF8 encoding\n");
        ret = 1;
        goto done;
    }
    next(c);
    if (c->tok != T_NETCDF) syntax(c, "NETCDF");
    parse_dsname(c);
    next(c);
    expect(c, '{');
    c->m.groups = xrealloc(c, NULL, sizeof *c->m.groups);
    memset(c->m.groups, 0, sizeof *c->m.groups);
    c->m.groups[0].parent = -1;
    c->m.ngroups = 1;
    /* pass 1: every group's declarations, data sections skipped (upstream
     * defines everything before writing any data) */
    parse_group_header(c);
    for (;;) {
        if (c->tok == T_GROUP) {
            next(c);
            if (c->tok != T_IDENT) syntax(c, "IDENT");
            if (find_group_in(c, c->sbuf, c->cur) >= 0) die(c, "duplicate group declaration within parent group for %s", c->sbuf);
            ncg_group g;
            memset(&g, 0, sizeof g);
            g.parent = c->cur;
            c->m.groups = xrealloc(c, c->m.groups, (size_t)(c->m.ngroups + 1) * sizeof *c->m.groups);
            c->m.groups[c->m.ngroups] = g;
            c->m.groups[c->m.ngroups].name = xstrdup(c, c->sbuf, c->slen);
            c->cur = c->m.ngroups++;
            c->enhanced = 1;
            next(c);
            expect(c, '{');
            parse_group_header(c);
            continue;
        }
        if (!ispunct_(c, '}')) syntax(c, c->m.groups[c->cur].datap ? "'}'" : "DATA or '}'");
        if (c->cur == 0) break;
        c->cur = c->m.groups[c->cur].parent;
        next(c);
    }
    next(c);
    /* upstream's lexer returns a stray byte >= 0x80 as a negative token,
     * which its parser takes for the end of the input */
    if (c->tok == T_BAD && (unsigned char)*c->tokstart >= 0x80) c->tok = T_EOF;
    if (c->tok != T_EOF) syntax(c, "end of file");
    do_define(c);
    /* pass 2: the data sections, streamed to the sink */
    for (int g = 0; g < c->m.ngroups; g++) {
        if (!c->m.groups[g].datap) continue;
        c->cur = g;
        c->p = c->m.groups[g].datap;
        c->line = c->m.groups[g].dataline;
        next(c);
        parse_data(c);
        if (c->tok == T_GROUP && c->m.format != NC_FORMAT_NETCDF4)
            die(c, "netCDF-4 groups are not supported in the classic model");
        if (!ispunct_(c, '}') && c->tok != T_GROUP) syntax(c, "'}'");
    }
    if (!opt->header_only) {
        if (c->m.format == NC_FORMAT_NETCDF4) pad_records4(c);
        else pad_records(c);
    }
    if (c->sink) {
        int stat = c->sink->finish(c->sctx, &c->m);
        if (stat) {
            c->defined = 1;
            dielib(c, stat);
        }
    }
done:
    if (c->liven) free_values(&c->m, c->livetype, c->livebuf, c->liven);
    if (c->liveown) free(c->livebuf);
    free_values(&c->m, c->livetype, c->rag.vals, c->rag.n);
    free(c->rag.vals);
    free(c->rag.idx);
    free(c->spstr);
    free(c->spints);
    free_model(&c->m);
    free(c->sbuf);
    free(c->buf);
    free(c->cbuf);
    free(c->vals);
    free(c->pending);
    free(c->nc4name);
    free(c);
    return ret;
}
