/* ncgen Fortran 77 sink (-l f77), plus the data capture shared with the Java
 * sink (genjava.c). The program text follows the layout of upstream ncgen's
 * generator (sections, comments, blank lines, 72-column folding, one write
 * subroutine per data slab) but is valid Fortran: upstream 4.9.0 prints names
 * as quoted strings where identifiers belong, passes garbage to the write
 * subroutines and defines the unlimited dimension as a fixed one. Identifiers
 * are derived from names as upstream's C generator does ("DIGIT_1_", "_SPACE_",
 * "_XC3"...).
 *
 * Both language sinks need facts known only at the end (the number of
 * records), so every put() is copied into a per-variable buffer and the whole
 * program is printed by finish(). */
#include "ncgen.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- data capture (shared with genjava.c) ------------------------------------ */

/* fixed variables at most this many elements are written in one slab; larger
 * ones, and all record variables of rank >= 2, one last-dimension row at a time
 * (upstream's iteration, so the programs have the same calls) */
#define LANG_WHOLE_MAX 1024

/* Define the model in a scratch file and drop it: the program is then known
 * to make only calls the library accepts (names, sizes, classic types), and
 * an input -b would refuse fails here with the same message. */
static int
dry_run(ncg_model *m)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    ncg_bin b;
    int stat;
    memset(&b, 0, sizeof b);
    snprintf(path, sizeof path, "%s/ncgen-check", dir && *dir && strlen(dir) < 4000 ? dir : "/tmp");
    b.path = path;
    stat = ncg_bin_sink.define(&b, m);
    ncg_bin_sink.abort(&b, m);
    free(b.tmp);
    return stat;
}

int
ncg_lang_define(void *ctx, ncg_model *m)
{
    return ncg_lang_init(ctx, m, 1);
}

int
ncg_lang_init(void *ctx, ncg_model *m, int classic_types)
{
    ncg_lang *g = ctx;
    int stat;
    if ((stat = dry_run(m))) return stat;
    /* the program generators speak the classic model only */
    if (m->ngroups > 1 || m->ntypes > 0) return NC_ENOTBUILT;
    nc_type maxtype = classic_types ? NC_DOUBLE : NC_UINT64;
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].type < NC_BYTE || m->vars[i].type > maxtype) return NC_EBADTYPE;
    for (int i = 0; i < m->natts; i++)
        if (m->atts[i].type < NC_BYTE || m->atts[i].type > maxtype) return NC_EBADTYPE;
    g->m = m;
    g->nvars = m->nvars;
    if (m->nvars) {
        g->data = calloc((size_t)m->nvars, sizeof *g->data);
        g->cap = calloc((size_t)m->nvars, sizeof *g->cap);
        g->len = calloc((size_t)m->nvars, sizeof *g->len);
        if (!g->data || !g->cap || !g->len) return NC_ENOMEM;
    }
    for (int i = 0; i < m->ndims; i++) m->dims[i].id = i;
    for (int i = 0; i < m->nvars; i++) m->vars[i].id = i;
    return NC_NOERR;
}

/* elements in one leading-dimension row of variable v */
static size_t
rowlen(const ncg_model *m, const ncg_var *v)
{
    size_t n = 1;
    for (int i = 1; i < v->ndims; i++) n *= m->dims[v->dims[i]].len;
    return n;
}

int
ncg_lang_put(void *ctx, const ncg_model *m, int var, const size_t *start, const size_t *count,
             const void *buf)
{
    ncg_lang *g = ctx;
    const ncg_var *v = &m->vars[var];
    size_t es = ncg_typesize(v->type), row = rowlen(m, v) * es, off, n;
    if (v->ndims == 0) { off = 0; n = es; }
    else {
        /* the parser's slabs are whole leading rows, so sizes are products
         * it has already checked for overflow */
        off = start[0] * row;
        n = count[0] * row;
    }
    if (off + n > g->cap[var]) {
        size_t nc = g->cap[var] ? g->cap[var] : 64;
        while (nc < off + n) {
            if (nc > SIZE_MAX / 2) return NC_ENOMEM;
            nc *= 2;
        }
        unsigned char *p = realloc(g->data[var], nc);
        if (!p) return NC_ENOMEM;
        g->data[var] = p;
        g->cap[var] = nc;
    }
    memcpy(g->data[var] + off, buf, n);
    if (off + n > g->len[var]) g->len[var] = off + n;
    return NC_NOERR;
}

void
ncg_lang_free(ncg_lang *g)
{
    if (g->data)
        for (int i = 0; i < g->nvars; i++) free(g->data[i]);
    free(g->data);
    free(g->cap);
    free(g->len);
    g->data = NULL;
    g->cap = g->len = NULL;
    g->nvars = 0;
}

size_t
ncg_lang_nrecs(const ncg_lang *g)
{
    const ncg_model *m = g->m;
    size_t n = 0;
    for (int i = 0; i < m->nvars; i++) {
        const ncg_var *v = &m->vars[i];
        if (g->data[i] && v->ndims && m->dims[v->dims[0]].unlimited) {
            size_t row = rowlen(m, v) * ncg_typesize(v->type);
            if (row && g->len[i] / row > n) n = g->len[i] / row;
        }
    }
    return n;
}

/* length of dimension d, the record count for the unlimited one */
size_t
ncg_lang_dimlen(const ncg_lang *g, int d)
{
    return g->m->dims[d].unlimited ? ncg_lang_nrecs(g) : g->m->dims[d].len;
}

int
ncg_lang_slabs(const ncg_lang *g, int var, ncg_slab_fn fn, void *ctx)
{
    const ncg_model *m = g->m;
    const ncg_var *v = &m->vars[var];
    size_t shape[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    size_t es = ncg_typesize(v->type), total = 1;
    const unsigned char *data = g->data[var];
    int rank = v->ndims, stat;

    if (!data) return NC_NOERR;
    for (int i = 0; i < rank; i++) {
        shape[i] = ncg_lang_dimlen(g, v->dims[i]);
        total *= shape[i];
        start[i] = 0;
        count[i] = shape[i];
    }
    if (total == 0) return NC_NOERR;
    if (total * es > g->len[var]) return NC_EINTERNAL;
    int rec = rank > 0 && m->dims[v->dims[0]].unlimited;
    if (rank <= 1 || v->type == NC_CHAR || (!rec && total <= LANG_WHOLE_MAX))
        return fn(ctx, var, start, count, data, total);
    /* one row of the last dimension per slab, in index order */
    size_t last = shape[rank - 1];
    for (int i = 0; i < rank - 1; i++) count[i] = 1;
    for (size_t off = 0; off < total; off += last) {
        if ((stat = fn(ctx, var, start, count, data + off * es, last))) return stat;
        for (int i = rank - 2; i >= 0; i--) {
            if (++start[i] < shape[i]) break;
            start[i] = 0;
        }
    }
    return NC_NOERR;
}

/* Identifier for a name, as upstream's generators make them: a leading digit
 * becomes "DIGIT_n_", punctuation a word ("_SPACE_"), bytes >= 0x80 "_XHH",
 * and one leading '_' is dropped (Fortran identifiers start with a letter). */
char *
ncg_lang_ident(const char *name)
{
    static const char *const words[128] = {
        [' '] = "_SPACE_", ['!'] = "_EXCLAMATION_", ['"'] = "_QUOTATION_", ['#'] = "_HASH_",
        ['$'] = "_DOLLAR_", ['%'] = "_PERCENT_", ['&'] = "_AMPERSAND_", ['\''] = "_APOSTROPHE_",
        ['('] = "_LEFTPAREN_", [')'] = "_RIGHTPAREN_", ['*'] = "_ASTERISK_", ['+'] = "_PLUS_",
        [','] = "_COMMA_", ['-'] = "_MINUS_", ['.'] = "_PERIOD_", [':'] = "_COLON_",
        [';'] = "_SEMICOLON_", ['<'] = "_LESSTHAN_", ['='] = "_EQUALS_", ['>'] = "_GREATERTHAN_",
        ['?'] = "_QUESTION_", ['@'] = "_ATSIGN_", ['['] = "_LEFTBRACKET_", ['\\'] = "_BACKSLASH_",
        [']'] = "_RIGHTBRACKET_", ['^'] = "_CIRCUMFLEX_", ['`'] = "_BACKQUOTE_", ['{'] = "_LEFTCURLY_",
        ['|'] = "_VERTICALBAR_", ['}'] = "_RIGHTCURLY_", ['~'] = "_TILDE_", ['/'] = "_SLASH_",
    };
    size_t n = strlen(name), cap = 16 * n + 16, k = 0;  /* longest word is 15 bytes */
    const unsigned char *p = (const unsigned char *)name;
    char *out = malloc(cap);
    if (!out) return NULL;
    if (*p >= '0' && *p <= '9') k += (size_t)snprintf(out, cap, "DIGIT_%c_", *p++);
    for (; *p; p++) {
        if (*p >= 128) k += (size_t)snprintf(out + k, cap - k, "_X%02X", *p);
        else if (words[*p]) k += (size_t)snprintf(out + k, cap - k, "%s", words[*p]);
        else out[k++] = (char)*p;
    }
    out[k] = 0;
    if (out[0] == '_') memmove(out, out + 1, k);
    return out;
}

int
ncg_lang_idents(const ncg_model *m, char ***vids, char ***dids)
{
    *vids = NULL;
    *dids = NULL;
    if (m->nvars && !(*vids = calloc((size_t)m->nvars, sizeof **vids))) return NC_ENOMEM;
    if (m->ndims && !(*dids = calloc((size_t)m->ndims, sizeof **dids))) return NC_ENOMEM;
    for (int i = 0; i < m->nvars; i++)
        if (!((*vids)[i] = ncg_lang_ident(m->vars[i].name))) return NC_ENOMEM;
    for (int i = 0; i < m->ndims; i++)
        if (!((*dids)[i] = ncg_lang_ident(m->dims[i].name))) return NC_ENOMEM;
    return NC_NOERR;
}

void
ncg_lang_free_idents(const ncg_model *m, char **vids, char **dids)
{
    for (int i = 0; vids && i < m->nvars; i++) free(vids[i]);
    for (int i = 0; dids && i < m->ndims; i++) free(dids[i]);
    free(vids);
    free(dids);
}

void
ncg_lang_abort(void *vctx, const ncg_model *m)
{
    (void)m;
    ncg_lang_free(vctx);
}

/* ---- growable text buffer ----------------------------------------------------- */

int
ncg_sb_add(ncg_sb *b, const char *s, size_t n)
{
    if (b->err) return -1;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 1024;
        while (nc < b->len + n + 1) {
            if (nc > SIZE_MAX / 2) { b->err = 1; return -1; }
            nc *= 2;
        }
        char *p = realloc(b->p, nc);
        if (!p) { b->err = 1; return -1; }
        b->p = p;
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return 0;
}

int
ncg_sb_printf(ncg_sb *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) { b->err = 1; return -1; }
    if ((size_t)n < sizeof tmp) return ncg_sb_add(b, tmp, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big) { b->err = 1; return -1; }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int r = ncg_sb_add(b, big, (size_t)n);
    free(big);
    return r;
}

int ncg_sb_puts(ncg_sb *b, const char *s) { return ncg_sb_add(b, s, strlen(s)); }

/* ---- Fortran 77 text ---------------------------------------------------------- */

#define F77_STMT 66             /* statement columns 7-72 */

typedef struct f77 {
    ncg_lang *g;
    FILE *f;
    ncg_sb chunk;               /* text since the last flush */
    ncg_sb procs;               /* write subroutines, printed after the main program */
    ncg_sb calls;               /* the current variable's subroutine calls */
    ncg_sb tmp;
    int nprocs;
    char **ids;                 /* identifiers of the variables */
    char **dids;                /* identifiers of the dimensions */
} f77;

static void line(ncg_sb *b, const char *s) { ncg_sb_puts(b, s); ncg_sb_add(b, "\n", 1); }
static void skip(ncg_sb *b) { ncg_sb_add(b, "\n", 1); }
static void comment(ncg_sb *b, const char *s) { ncg_sb_puts(b, "* "); line(b, s); }

/* Print the chunk in fixed form: leading blank lines dropped, statements
 * indented to column 7 and continued ("     1") past column 72, never right
 * after a backslash; comments and blank lines as they are. */
static void
flush(f77 *x)
{
    const char *p = x->chunk.p, *end;
    FILE *f = x->f;
    if (!p) return;
    while (*p && strchr(" \t\r\n", *p)) p++;
    for (; *p; p = end + 1) {
        if (!(end = strchr(p, '\n'))) break;
        size_t n = (size_t)(end - p) + 1;       /* with the newline */
        if (*p == '*' || n == 1) { fwrite(p, 1, n, f); continue; }
        fputs("      ", f);
        while (n > F77_STMT) {
            size_t k = F77_STMT;
            if (p[k - 1] == '\\') k--;
            fwrite(p, 1, k, f);
            fputs("\n     1", f);
            p += k;
            n -= k;
        }
        fwrite(p, 1, n, f);
    }
    x->chunk.len = 0;
    if (x->chunk.p) x->chunk.p[0] = 0;
}

static const char *
nftype(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "nf_byte";
    case NC_CHAR: return "nf_char";
    case NC_SHORT: return "nf_short";
    case NC_INT: return "nf_int";
    case NC_FLOAT: return "nf_float";
    default: return "nf_double";
    }
}

/* declaration type, put-function suffix, attribute vector prefix */
static const char *decl(nc_type t) { return t == NC_FLOAT ? "real " : t == NC_DOUBLE ? "double precision" : "integer"; }
static const char *suffix(nc_type t) { return t == NC_CHAR ? "text" : t == NC_FLOAT ? "real" : t == NC_DOUBLE ? "double" : "int"; }
static const char *
vecname(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "int1";
    case NC_CHAR: return "text";
    case NC_SHORT: return "int2";
    case NC_INT: return "int";
    case NC_FLOAT: return "real";
    default: return "double";
    }
}

/* A Fortran constant. Doubles use the D exponent. Fortran 77 has no literal
 * for NaN or infinity: they come out as upstream prints them ("nan", "inf"). */
static void
f77value(ncg_sb *b, nc_type t, const void *p)
{
    char tmp[64];
    switch (t) {
    case NC_BYTE: ncg_sb_printf(b, "%d", *(const signed char *)p); return;
    case NC_CHAR: ncg_sb_printf(b, "%d", *(const signed char *)p); return;
    case NC_SHORT: ncg_sb_printf(b, "%d", *(const short *)p); return;
    case NC_INT: ncg_sb_printf(b, "%d", *(const int *)p); return;
    case NC_FLOAT: ncg_sb_printf(b, "%.8g", (double)*(const float *)p); return;
    default:
        snprintf(tmp, sizeof tmp, "%.16g", *(const double *)p);
        for (char *q = tmp; *q; q++)
            if (*q == 'e') *q = 'D';
        ncg_sb_puts(b, tmp);
        return;
    }
}

/* A character expression: printable runs quoted ('' for a quote), other
 * bytes as char(n), joined with //; the empty string is char(0). */
static void
f77string(ncg_sb *b, const char *s, size_t n)
{
    int last = 0;
    if (n == 0) { ncg_sb_puts(b, "char(0)"); return; }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int esc = c < ' ' || c >= 0x7f;
        if (i > 0) {
            if (!last && esc) ncg_sb_puts(b, "'");
            else if (last && !esc) ncg_sb_puts(b, "//'");
        } else if (!esc) ncg_sb_puts(b, "'");
        if (esc) ncg_sb_printf(b, i == 0 ? "char(%u)" : "//char(%u)", c);
        else if (c == '\'') ncg_sb_puts(b, "''");
        else ncg_sb_add(b, (const char *)&c, 1);
        last = esc;
    }
    if (!last) ncg_sb_puts(b, "'");
}

static const char *
varid(f77 *x, int var, char *buf, size_t n)
{
    if (var < 0) return "NF_GLOBAL";
    snprintf(buf, n, "%s_id", x->ids[var]);
    return buf;
}

static void
f77att(f77 *x, const ncg_att *a)
{
    ncg_sb *b = &x->chunk;
    char vb[1024];
    const char *vid;
    ncg_sb_printf(b, "* define %s\n", a->name);
    if (a->var >= 0) {
        /* identifiers can be long: build the id name without truncation */
        x->tmp.len = 0;
        ncg_sb_printf(&x->tmp, "%s_id", x->ids[a->var]);
        vid = x->tmp.err ? "" : x->tmp.p;
    } else vid = varid(x, -1, vb, sizeof vb);
    if (a->type == NC_CHAR) {
        ncg_sb_printf(b, "stat = nf_put_att_text(ncid, %s, ", vid);
        f77string(b, a->name, strlen(a->name));
        ncg_sb_printf(b, ", %zu, ", a->len ? a->len : 1);
        f77string(b, a->data, a->len);
        line(b, ")");
    } else {
        size_t es = ncg_typesize(a->type);
        for (size_t i = 0; i < a->len; i++) {
            ncg_sb_printf(b, "%sval(%zu) = ", vecname(a->type), i + 1);
            f77value(b, a->type, (const char *)a->data + i * es);
            skip(b);
        }
        ncg_sb_printf(b, "stat = nf_put_att_%s(ncid, %s, ", suffix(a->type), vid);
        f77string(b, a->name, strlen(a->name));
        ncg_sb_printf(b, ", %s, %zu, %sval)\n", nftype(a->type), a->len, vecname(a->type));
    }
    line(b, "call check_err(stat)");
}

/* one data slab of a variable: inline for scalars and text, else a call
 * here and a subroutine printed after the main program */
static int
f77slab(void *ctx, int var, const size_t *start, const size_t *count, const void *data, size_t n)
{
    f77 *x = ctx;
    const ncg_var *v = &x->g->m->vars[var];
    const char *id = x->ids[var];
    ncg_sb *b = &x->chunk;
    size_t es = ncg_typesize(v->type);
    int rank = v->ndims;

    if (v->type == NC_CHAR) {
        ncg_sb_printf(b, "stat = nf_put_var_text(ncid, %s_id, ", id);
        f77string(b, data, n);
        line(b, ")");
        line(b, "call check_err(stat)");
        skip(b);
        return b->err ? NC_ENOMEM : NC_NOERR;
    }
    if (rank == 0) {
        ncg_sb_printf(b, "data %s /", id);
        f77value(b, v->type, data);
        line(b, "/");
        ncg_sb_printf(b, "stat = nf_put_var_%s(ncid, %s_id, %s)\n", suffix(v->type), id, id);
        line(b, "call check_err(stat)");
        skip(b);
        return b->err ? NC_ENOMEM : NC_NOERR;
    }
    int k = x->nprocs++;
    ncg_sb_printf(&x->calls, "call write_%s_%d(ncid,%s_id)\n\n", id, k, id);
    b = &x->procs;
    skip(b);
    ncg_sb_printf(b, "subroutine write_%s_%d(ncid,%s_id)\n", id, k, id);
    line(b, "integer ncid");
    ncg_sb_printf(b, "integer %s_id\n", id);
    line(b, "include 'netcdf.inc'");
    line(b, "integer stat");
    skip(b);
    ncg_sb_printf(b, "integer %s_start(%d)\n", id, rank);
    ncg_sb_printf(b, "integer %s_count(%d)\n", id, rank);
    skip(b);
    /* Fortran arrays are column-major: dimensions reversed */
    ncg_sb_printf(b, "%s %s(", decl(v->type), id);
    for (int i = rank - 1; i >= 0; i--) ncg_sb_printf(b, "%s%zu", i == rank - 1 ? "" : ",", count[i]);
    line(b, ")");
    ncg_sb_printf(b, "data %s /", id);
    for (size_t i = 0; i < n; i++) {
        if (i) ncg_sb_puts(b, ", ");
        f77value(b, v->type, (const char *)data + i * es);
    }
    line(b, "/");
    for (int i = 0; i < rank; i++) ncg_sb_printf(b, "%s_start(%d) = %zu\n", id, i + 1, start[rank - 1 - i] + 1);
    for (int i = 0; i < rank; i++) ncg_sb_printf(b, "%s_count(%d) = %zu\n", id, i + 1, count[rank - 1 - i]);
    ncg_sb_printf(b, "stat = nf_put_vara_%s(ncid, %s_id, %s_start, %s_count, %s)\n", suffix(v->type), id, id, id, id);
    line(b, "call check_err(stat)");
    line(b, "end");
    return b->err || x->calls.err ? NC_ENOMEM : NC_NOERR;
}

static int
f77_program(f77 *x)
{
    ncg_lang *g = x->g;
    const ncg_model *m = g->m;
    ncg_sb *b = &x->chunk;
    int ngatts = 0, nvatts = 0, stat;
    size_t vec[NC_DOUBLE + 1] = {0};

    for (int i = 0; i < m->natts; i++) {
        const ncg_att *a = &m->atts[i];
        if (a->var < 0) ngatts++; else nvatts++;
        /* a text attribute fills one element per CDL string; the model keeps
         * the joined text, so count one */
        size_t n = a->type == NC_CHAR ? 1 : a->len;
        if (n > vec[a->type]) vec[a->type] = n;
    }

    skip(b);
    ncg_sb_printf(b, "program %s\n", g->mainname ? g->mainname : "main");
    line(b, "include 'netcdf.inc'");
    comment(b, "error status return");
    line(b, "integer stat");
    comment(b, "netCDF ncid");
    line(b, "integer  ncid");
    if (m->nofill) {
        comment(b, "previous fill mode");
        line(b, "integer  oldfill");
    }
    if (m->ndims) {
        skip(b);
        comment(b, "dimension lengths");
        for (int i = 0; i < m->ndims; i++) {
            ncg_sb_printf(b, "integer %s_len\n", x->dids[i]);
            if (m->dims[i].unlimited) ncg_sb_printf(b, "parameter (%s_len = NF_UNLIMITED)\n", x->dids[i]);
            else ncg_sb_printf(b, "parameter (%s_len = %zu)\n", x->dids[i], m->dims[i].len);
        }
    }
    flush(x);

    if (m->ndims) {
        skip(b);
        comment(b, "dimension ids");
        for (int i = 0; i < m->ndims; i++) ncg_sb_printf(b, "integer %s_dim\n", x->dids[i]);
    }
    if (m->nvars) {
        skip(b);
        comment(b, "variable ids");
        for (int i = 0; i < m->nvars; i++) ncg_sb_printf(b, "integer %s_id;\n", x->ids[i]);
        skip(b);
        comment(b, "rank (number of dimensions) for each variable");
        for (int i = 0; i < m->nvars; i++) {
            ncg_sb_printf(b, "integer %s_rank\n", x->ids[i]);
            ncg_sb_printf(b, "parameter (%s_rank = %d)\n", x->ids[i], m->vars[i].ndims);
        }
        skip(b);
        comment(b, "variable shapes");
        for (int i = 0; i < m->nvars; i++)
            if (m->vars[i].ndims) ncg_sb_printf(b, "integer %s_dims(%s_rank)\n", x->ids[i], x->ids[i]);
        skip(b);
        comment(b, "variable declarations");
        for (int i = 0; i < m->nvars; i++) {
            const ncg_var *v = &m->vars[i];
            if (!g->data[i] || v->type == NC_CHAR) continue;
            ncg_sb_printf(b, "%s %s", decl(v->type), x->ids[i]);
            if (v->ndims) {
                ncg_sb_puts(b, "(");
                for (int d = v->ndims - 1; d >= 0; d--)
                    ncg_sb_printf(b, "%s%zu", d == v->ndims - 1 ? "" : ", ", ncg_lang_dimlen(g, v->dims[d]));
                ncg_sb_puts(b, ")");
            }
            skip(b);
        }
    }
    flush(x);

    if (m->natts) {
        skip(b);
        comment(b, "attribute vectors");
        for (nc_type t = NC_BYTE; t <= NC_DOUBLE; t++)
            if (vec[t])
                ncg_sb_printf(b, "%s %sval(%zu)\n", t == NC_FLOAT ? "real" : t == NC_DOUBLE ? "double precision" : "integer",
                              vecname(t), vec[t]);
    }
    skip(b);
    skip(b);
    comment(b, "enter define mode");
    ncg_sb_puts(b, "stat = nf_create(");
    f77string(b, g->path, strlen(g->path));
    line(b, ", nf_clobber, ncid);");
    line(b, "call check_err(stat)");
    flush(x);

    if (m->ndims) {
        skip(b);
        comment(b, "define dimensions");
        for (int i = 0; i < m->ndims; i++) {
            ncg_sb_puts(b, "stat = nf_def_dim(ncid, ");
            f77string(b, m->dims[i].name, strlen(m->dims[i].name));
            ncg_sb_printf(b, ", %s_len, %s_dim);\n", x->dids[i], x->dids[i]);
            line(b, "call check_err(stat)");
        }
    }
    flush(x);

    if (m->nvars) {
        skip(b);
        comment(b, "define variables");
        for (int i = 0; i < m->nvars; i++) {
            const ncg_var *v = &m->vars[i];
            skip(b);
            for (int d = 0; d < v->ndims; d++)
                ncg_sb_printf(b, "%s_dims(%d) = %s_dim\n", x->ids[i], d + 1, x->dids[v->dims[v->ndims - 1 - d]]);
            ncg_sb_puts(b, "stat = nf_def_var(ncid, ");
            f77string(b, v->name, strlen(v->name));
            ncg_sb_printf(b, ", %s, %s_rank, ", nftype(v->type), x->ids[i]);
            if (v->ndims) ncg_sb_printf(b, "%s_dims", x->ids[i]);
            else ncg_sb_puts(b, "0");
            ncg_sb_printf(b, ", %s_id);\n", x->ids[i]);
            line(b, "call check_err(stat)");
        }
    }
    flush(x);

    for (int pass = 0; pass < 2; pass++) {
        if (!(pass ? nvatts : ngatts)) continue;
        skip(b);
        comment(b, pass ? "assign per-variable attributes" : "assign global attributes");
        for (int i = 0; i < m->natts; i++)
            if ((m->atts[i].var >= 0) == pass) f77att(x, &m->atts[i]);
        skip(b);
        flush(x);
    }

    if (m->nofill) {
        comment(b, "don't initialize variables with fill values");
        line(b, "stat = nf_set_fill(ncid, NF_NOFILL, oldfill);");
        line(b, "call check_err(stat)");
    }
    skip(b);
    comment(b, "leave define mode");
    line(b, "stat = nf_enddef(ncid);");
    line(b, "call check_err(stat)");
    skip(b);
    flush(x);

    if (m->nvars && !g->header_only) {
        skip(b);
        skip(b);
        comment(b, "assign scalar and fixed dimension variable data");
        for (int i = 0; i < m->nvars; i++)
            if (m->vars[i].ndims == 0 && (stat = ncg_lang_slabs(g, i, f77slab, x))) return stat;
        skip(b);
        skip(b);
        skip(b);
        comment(b, "perform variable data writes");
        for (int i = 0; i < m->nvars; i++) {
            if (m->vars[i].ndims == 0) continue;
            x->calls.len = 0;
            if ((stat = ncg_lang_slabs(g, i, f77slab, x))) return stat;
            if (x->calls.len) ncg_sb_add(b, x->calls.p, x->calls.len);
        }
    }
    line(b, "stat = nf_close(ncid)");
    line(b, "call check_err(stat)");
    line(b, "end");
    if (x->procs.len) {
        skip(b);
        ncg_sb_add(b, x->procs.p, x->procs.len);
        skip(b);
    }
    flush(x);

    skip(b);
    line(b, "subroutine check_err(stat)");
    line(b, "integer stat");
    line(b, "include 'netcdf.inc'");
    line(b, "if (stat .ne. NF_NOERR) then");
    line(b, "print *, nf_strerror(stat)");
    line(b, "stop");
    line(b, "endif");
    line(b, "end");
    flush(x);
    return b->err || x->procs.err || x->calls.err ? NC_ENOMEM : NC_NOERR;
}

static int
f77_finish(void *vctx, const ncg_model *m)
{
    ncg_lang *g = vctx;
    f77 x;
    int stat = NC_ENOMEM;
    memset(&x, 0, sizeof x);
    x.g = g;
    x.f = g->out;
    if ((stat = ncg_lang_idents(m, &x.ids, &x.dids))) goto done;
    if ((stat = f77_program(&x))) goto done;
    stat = fflush(x.f) || ferror(x.f) ? NC_EIO : NC_NOERR;
done:
    ncg_lang_free_idents(m, x.ids, x.dids);
    free(x.chunk.p);
    free(x.procs.p);
    free(x.calls.p);
    free(x.tmp.p);
    ncg_lang_free(g);
    return stat;
}

const ncg_sink ncg_f77_sink = {
    .define = ncg_lang_define,
    .put = ncg_lang_put,
    .finish = f77_finish,
    .abort = ncg_lang_abort,
};
