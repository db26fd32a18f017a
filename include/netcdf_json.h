/* netcdf_json.h: the small JSON tree API of netCDF-C (NCjson), for filter
 * plugins and other code that must not depend on libnetcdf.
 *
 * Upstream's header is self-contained: a program or plugin that includes it
 * gets its own private (static) copy of every function below, so it links
 * against nothing.  libnetcdf compiles the same code with external linkage
 * (NETCDF_JSON_EXPORT, libdispatch/djson.c) and exports the functions, plus
 * NCJdump and NCJtotext.
 *
 * Conventions (upstream's): functions return NCJ_OK (0) or NCJ_ERR (-1).  A
 * node's sort says what it holds: atomic sorts keep their text in `string`
 * (an NCJ_INT holds "12", an NCJ_BOOLEAN "true"); NCJ_DICT and NCJ_ARRAY keep
 * their members in `list`, a dict as alternating key and value nodes.  The
 * caller owns every tree it gets and frees it with NCJreclaim.
 *
 * Parsing: any value may be the top level; a word made of letters, digits
 * and "_$+-." is read as a boolean (true/false, any case), an integer, a
 * double (also NaN, Infinity, -Infinity and their "f" forms), null, or else
 * as an unquoted string.  The whole text must be consumed.  Unparsing
 * writes dicts as {"k": v, "k2": v2} and arrays as [a,b]. */
#ifndef NETCDF_JSON_H
#define NETCDF_JSON_H 1

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sorts of JSON nodes. */
#define NCJ_UNDEF    0
#define NCJ_STRING   1
#define NCJ_INT      2
#define NCJ_DOUBLE   3
#define NCJ_BOOLEAN  4
#define NCJ_DICT     5
#define NCJ_ARRAY    6
#define NCJ_NULL     7

#define NCJ_NSORTS   8

/* Results. */
#define NCJ_OK 0
#define NCJ_ERR (-1)

/* One node of a JSON tree. */
typedef struct NCjson {
    int sort;                  /* NCJ_* */
    char* string;              /* text of an atomic node (NULL for NCJ_NULL) */
    struct NCjlist {
        size_t len;            /* number of members (a dict: 2 per entry) */
        struct NCjson** contents;
    } list;                    /* members of a dict or array */
} NCjson;

/* A node's value converted to another sort by NCJcvt; sval is malloc'd. */
struct NCJconst {int bval; long long ival; double dval; char* sval;};
#define NCJconst_empty {0,0,0.0,NULL}

/* Accessors. */
#define NCJsort(x) ((x)->sort)
#define NCJstring(x) ((x)->string)
#define NCJlength(x) ((x)==NULL ? 0 : (x)->list.len)
#define NCJdictlength(x) ((x)==NULL ? 0 : (x)->list.len/2)
#define NCJcontents(x) ((x)->list.contents)
#define NCJith(x,i) ((x)->list.contents[i])
#define NCJdictith(x,i) ((x)->list.contents[2*(i)])

#define NCJsetsort(x,s) (x)->sort=(s)
#define NCJsetstring(x,y) (x)->string=(y)
#define NCJsetcontents(x,c) (x)->list.contents=(c)
#define NCJsetlength(x,l) (x)->list.len=(l)

#define NCJisatomic(j) ((j)->sort != NCJ_ARRAY && (j)->sort != NCJ_DICT && (j)->sort != NCJ_NULL && (j)->sort != NCJ_UNDEF)

/* Linkage: a private copy unless libnetcdf builds its exported one;
 * NCJ_LOCAL_ marks the helpers, private everywhere. */
#if defined(__GNUC__)
#define NCJ_LOCAL_ static __attribute__((unused))
#else
#define NCJ_LOCAL_ static
#endif
#ifdef NETCDF_JSON_EXPORT
#define NCJ_FUNC
#else
#define NCJ_FUNC NCJ_LOCAL_
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/* Parse nul-terminated text / len bytes of text into *jsonp. */
NCJ_FUNC int NCJparse(const char* text, unsigned flags, NCjson** jsonp);
NCJ_FUNC int NCJparsen(size_t len, const char* text, unsigned flags, NCjson** jsonp);
/* Free a tree (NULL is fine). */
NCJ_FUNC void NCJreclaim(NCjson* json);
/* A new empty node of a sort. */
NCJ_FUNC int NCJnew(int sort, NCjson** objectp);
/* A new atomic node holding a copy of value (len bytes of it). */
NCJ_FUNC int NCJnewstring(int sort, const char* value, NCjson** jsonp);
NCJ_FUNC int NCJnewstringn(int sort, size_t len, const char* value, NCjson** jsonp);
/* The value of key in a dict (*valuep NULL when absent); NCJ_ERR if not a dict. */
NCJ_FUNC int NCJdictget(const NCjson* dict, const char* key, NCjson** valuep);
/* An atomic node's value as another sort. */
NCJ_FUNC int NCJcvt(const NCjson* value, int outsort, struct NCJconst* output);
/* Append a new atomic node to a dict or array. */
NCJ_FUNC int NCJaddstring(NCjson* json, int sort, const char* s);
/* Append a node to a dict or array (the container takes it). */
NCJ_FUNC int NCJappend(NCjson* object, NCjson* value);
/* Add key (copied) and value (taken) to a dict. */
NCJ_FUNC int NCJinsert(NCjson* object, const char* key, NCjson* value);
/* Add key and a string value (both copied; NULL gives null) to a dict. */
NCJ_FUNC int NCJinsertstring(NCjson* object, const char* key, const char* value);
/* Add key and an integer value to a dict. */
NCJ_FUNC int NCJinsertint(NCjson* object, const char* key, long long ivalue);
/* Text of a tree in *textp (malloc'd). */
NCJ_FUNC int NCJunparse(const NCjson* json, unsigned flags, char** textp);
/* A deep copy. */
NCJ_FUNC int NCJclone(const NCjson* json, NCjson** clonep);
#ifdef NETCDF_JSON_EXPORT
/* libnetcdf only: print a tree, or its text in a per-thread buffer. */
void NCJdump(const NCjson* json, unsigned flags, FILE* out);
const char* NCJtotext(const NCjson* json);
#endif

#if defined(__cplusplus)
}
#endif

/* ---- implementation ------------------------------------------------------ */

/* ASCII case-insensitive equality (no dependence on POSIX strcasecmp). */
NCJ_LOCAL_ int
ncj_caseeq_(const char* a, const char* b)
{
    for (; *a && *b; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a + 32) : *a;
        char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b + 32) : *b;
        if (x != y) return 0;
    }
    return *a == *b;
}

/* A growable text buffer. */
typedef struct NCJtext_ {
    char* s;
    size_t len, cap;
} NCJtext_;

NCJ_LOCAL_ int
ncj_put_(NCJtext_* b, const char* s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char* p;
        while (cap < b->len + n + 1) cap *= 2;
        if ((p = (char*)realloc(b->s, cap)) == NULL) return NCJ_ERR;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return NCJ_OK;
}

/* Append a member to a list. */
NCJ_LOCAL_ int
ncj_push_(struct NCjlist* l, NCjson* j)
{
    NCjson** p;
    if (j == NULL) return NCJ_ERR;
    p = (NCjson**)realloc(l->contents, (l->len + 1) * sizeof(NCjson*));
    if (p == NULL) return NCJ_ERR;
    p[l->len++] = j;
    l->contents = p;
    return NCJ_OK;
}

NCJ_FUNC void
NCJreclaim(NCjson* json)
{
    size_t i;
    if (json == NULL) return;
    if (json->sort == NCJ_DICT || json->sort == NCJ_ARRAY) {
        for (i = 0; i < json->list.len; i++) NCJreclaim(json->list.contents[i]);
        free(json->list.contents);
    }
    free(json->string);
    free(json);
}

NCJ_FUNC int
NCJnew(int sort, NCjson** objectp)
{
    NCjson* j;
    if (sort <= NCJ_UNDEF || sort >= NCJ_NSORTS) return NCJ_ERR;
    if ((j = (NCjson*)calloc(1, sizeof(NCjson))) == NULL) return NCJ_ERR;
    j->sort = sort;
    if (objectp) *objectp = j;
    else free(j);
    return NCJ_OK;
}

NCJ_FUNC int
NCJnewstringn(int sort, size_t len, const char* value, NCjson** jsonp)
{
    NCjson* j = NULL;
    if (jsonp) *jsonp = NULL;
    if (value == NULL || NCJnew(sort, &j) != NCJ_OK) return NCJ_ERR;
    if ((j->string = (char*)malloc(len + 1)) == NULL) { NCJreclaim(j); return NCJ_ERR; }
    memcpy(j->string, value, len);
    j->string[len] = '\0';
    if (jsonp) *jsonp = j;
    else NCJreclaim(j);
    return NCJ_OK;
}

NCJ_FUNC int
NCJnewstring(int sort, const char* value, NCjson** jsonp)
{
    if (value == NULL) { if (jsonp) *jsonp = NULL; return NCJ_ERR; }
    return NCJnewstringn(sort, strlen(value), value, jsonp);
}

/* ---- parser: recursive descent over a private copy of the text ---- */
typedef struct NCJparser_ {
    const char* p;             /* next character */
    const char* end;
    int depth;                 /* nesting, bounded */
} NCJparser_;

#define NCJ_MAXDEPTH_ 1024
#define NCJ_WORDCHARS_ "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$+-."

NCJ_LOCAL_ void
ncj_skip_(NCJparser_* ps)
{
    while (ps->p < ps->end && ((unsigned char)*ps->p <= ' ' || *ps->p == '\177')) ps->p++;
}

/* Sort of an unquoted word. */
NCJ_LOCAL_ int
ncj_wordsort_(const char* w)
{
    long long iv;
    double dv;
    int n = 0;
    static const char* const specials[] = {"nan", "infinity", "-infinity", "nanf", "infinityf", "-infinityf"};
    size_t k, len = strlen(w);
    if (ncj_caseeq_(w, "true") || ncj_caseeq_(w, "false")) return NCJ_BOOLEAN;
    if (sscanf(w, "%lld%n", &iv, &n) == 1 && (size_t)n == len) return NCJ_INT;
    for (k = 0; k < sizeof specials / sizeof specials[0]; k++)
        if (ncj_caseeq_(w, specials[k])) return NCJ_DOUBLE;
    n = 0;
    if (sscanf(w, "%lg%n", &dv, &n) == 1 && (size_t)n == len) return NCJ_DOUBLE;
    if (ncj_caseeq_(w, "null")) return NCJ_NULL;
    return NCJ_STRING;
}

NCJ_LOCAL_ char
ncj_unescape_(char c)
{
    switch (c) {
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return c;         /* \" \\ \/ and anything else: the character */
    }
}

static int ncj_value_(NCJparser_* ps, NCjson** out);

/* A quoted string (ps->p just past the quote) into a new node of sort. */
NCJ_LOCAL_ int
ncj_string_(NCJparser_* ps, int sort, NCjson** out)
{
    const char* s = ps->p;
    size_t n = 0;
    char* t;
    NCjson* j;
    while (ps->p < ps->end && *ps->p != '"') {
        if (*ps->p == '\\' && ps->p + 1 < ps->end) ps->p++;
        ps->p++;
        n++;
    }
    if (ps->p >= ps->end) return NCJ_ERR;       /* unterminated */
    if (NCJnew(sort, &j) != NCJ_OK) return NCJ_ERR;
    if ((j->string = t = (char*)malloc(n + 1)) == NULL) { NCJreclaim(j); return NCJ_ERR; }
    while (s < ps->p) {
        if (*s == '\\' && s + 1 < ps->p) { s++; *t++ = ncj_unescape_(*s++); }
        else *t++ = *s++;
    }
    *t = '\0';
    ps->p++;                                    /* closing quote */
    *out = j;
    return NCJ_OK;
}

/* An unquoted word into a new node of its sort. */
NCJ_LOCAL_ int
ncj_word_(NCJparser_* ps, NCjson** out)
{
    const char* s = ps->p;
    char* w;
    int sort, stat;
    while (ps->p < ps->end && *ps->p && strchr(NCJ_WORDCHARS_, *ps->p)) ps->p++;
    if (ps->p == s) return NCJ_ERR;
    if ((w = (char*)malloc((size_t)(ps->p - s) + 1)) == NULL) return NCJ_ERR;
    memcpy(w, s, (size_t)(ps->p - s));
    w[ps->p - s] = '\0';
    sort = ncj_wordsort_(w);
    if (sort == NCJ_NULL) {
        free(w);
        return NCJnew(NCJ_NULL, out);
    }
    if ((stat = NCJnew(sort, out)) != NCJ_OK) { free(w); return stat; }
    (*out)->string = w;
    return NCJ_OK;
}

/* Members of a dict or array up to the closing character. */
NCJ_LOCAL_ int
ncj_members_(NCJparser_* ps, NCjson* c, char close)
{
    ncj_skip_(ps);
    if (ps->p < ps->end && *ps->p == close) { ps->p++; return NCJ_OK; }
    for (;;) {
        NCjson* m = NULL;
        if (c->sort == NCJ_DICT) {
            ncj_skip_(ps);
            if (ps->p >= ps->end) return NCJ_ERR;
            if (*ps->p == '"') { ps->p++; if (ncj_string_(ps, NCJ_STRING, &m) != NCJ_OK) return NCJ_ERR; }
            else if (ncj_word_(ps, &m) != NCJ_OK) return NCJ_ERR;
            if (m->sort == NCJ_NULL) { NCJreclaim(m); return NCJ_ERR; }   /* keys are words or strings */
            if (ncj_push_(&c->list, m) != NCJ_OK) { NCJreclaim(m); return NCJ_ERR; }
            ncj_skip_(ps);
            if (ps->p >= ps->end || *ps->p != ':') return NCJ_ERR;
            ps->p++;
            m = NULL;
        }
        if (ncj_value_(ps, &m) != NCJ_OK) return NCJ_ERR;
        if (ncj_push_(&c->list, m) != NCJ_OK) { NCJreclaim(m); return NCJ_ERR; }
        ncj_skip_(ps);
        if (ps->p >= ps->end) return NCJ_ERR;
        if (*ps->p == ',') { ps->p++; continue; }
        if (*ps->p == close) { ps->p++; return NCJ_OK; }
        return NCJ_ERR;
    }
}

NCJ_LOCAL_ int
ncj_value_(NCJparser_* ps, NCjson** out)
{
    NCjson* c = NULL;
    char open;
    *out = NULL;
    ncj_skip_(ps);
    if (ps->p >= ps->end) return NCJ_ERR;
    open = *ps->p;
    if (open == '"') { ps->p++; return ncj_string_(ps, NCJ_STRING, out); }
    if (open != '{' && open != '[') return ncj_word_(ps, out);
    if (++ps->depth > NCJ_MAXDEPTH_) return NCJ_ERR;
    ps->p++;
    if (NCJnew(open == '{' ? NCJ_DICT : NCJ_ARRAY, &c) != NCJ_OK) return NCJ_ERR;
    if (ncj_members_(ps, c, open == '{' ? '}' : ']') != NCJ_OK) { NCJreclaim(c); return NCJ_ERR; }
    ps->depth--;
    *out = c;
    return NCJ_OK;
}

NCJ_FUNC int
NCJparsen(size_t len, const char* text, unsigned flags, NCjson** jsonp)
{
    NCJparser_ ps;
    NCjson* j = NULL;
    (void)flags;
    if (jsonp) *jsonp = NULL;
    if (text == NULL) return NCJ_ERR;
    ps.p = text;
    ps.end = text + len;
    ps.depth = 0;
    if (ncj_value_(&ps, &j) != NCJ_OK) { NCJreclaim(j); return NCJ_ERR; }
    ncj_skip_(&ps);
    if (ps.p != ps.end && *ps.p != '\0') { NCJreclaim(j); return NCJ_ERR; }   /* text left over */
    if (jsonp) *jsonp = j;
    else NCJreclaim(j);
    return NCJ_OK;
}

NCJ_FUNC int
NCJparse(const char* text, unsigned flags, NCjson** jsonp)
{
    if (text == NULL) { if (jsonp) *jsonp = NULL; return NCJ_ERR; }
    return NCJparsen(strlen(text), text, flags, jsonp);
}

NCJ_FUNC int
NCJdictget(const NCjson* dict, const char* key, NCjson** valuep)
{
    size_t i;
    if (valuep) *valuep = NULL;
    if (dict == NULL || dict->sort != NCJ_DICT || key == NULL) return NCJ_ERR;
    for (i = 0; i + 1 < dict->list.len; i += 2) {
        const NCjson* k = dict->list.contents[i];
        if (k && k->string && strcmp(k->string, key) == 0) {
            if (valuep) *valuep = dict->list.contents[i + 1];
            break;
        }
    }
    return NCJ_OK;
}

NCJ_FUNC int
NCJcvt(const NCjson* v, int outsort, struct NCJconst* out)
{
    const char* s;
    int isfalse;
    if (out == NULL) return NCJ_OK;
    if (v == NULL || !NCJisatomic(v) || v->string == NULL) return NCJ_ERR;
    s = v->string;
    isfalse = ncj_caseeq_(s, "false");
    switch (outsort) {
    case NCJ_STRING:
        if ((out->sval = (char*)malloc(strlen(s) + 1)) == NULL) return NCJ_ERR;
        strcpy(out->sval, s);
        return NCJ_OK;
    case NCJ_BOOLEAN:
        if (v->sort == NCJ_INT) { out->ival = strtoll(s, NULL, 10); out->bval = out->ival != 0; }
        else if (v->sort == NCJ_DOUBLE) { out->dval = strtod(s, NULL); out->bval = out->dval != 0; }
        else out->bval = !isfalse;
        return NCJ_OK;
    case NCJ_INT:
        if (v->sort == NCJ_BOOLEAN) out->ival = !isfalse;
        else if (v->sort == NCJ_DOUBLE) { out->dval = strtod(s, NULL); out->ival = (long long)out->dval; }
        else out->ival = strtoll(s, NULL, 10);
        return NCJ_OK;
    case NCJ_DOUBLE:
        if (v->sort == NCJ_BOOLEAN) out->dval = isfalse ? 0.0 : 1.0;
        else if (v->sort == NCJ_INT) { out->ival = strtoll(s, NULL, 10); out->dval = (double)out->ival; }
        else out->dval = strtod(s, NULL);
        return NCJ_OK;
    default:
        return NCJ_ERR;
    }
}

NCJ_FUNC int
NCJappend(NCjson* object, NCjson* value)
{
    if (object == NULL || value == NULL) return NCJ_ERR;
    if (object->sort != NCJ_DICT && object->sort != NCJ_ARRAY) return NCJ_ERR;
    return ncj_push_(&object->list, value);
}

NCJ_FUNC int
NCJaddstring(NCjson* json, int sort, const char* s)
{
    NCjson* j = NULL;
    if (json == NULL || (json->sort != NCJ_DICT && json->sort != NCJ_ARRAY)) return NCJ_ERR;
    if (NCJnewstring(sort, s, &j) != NCJ_OK) return NCJ_ERR;
    if (NCJappend(json, j) != NCJ_OK) { NCJreclaim(j); return NCJ_ERR; }
    return NCJ_OK;
}

NCJ_FUNC int
NCJinsert(NCjson* object, const char* key, NCjson* value)
{
    NCjson* k = NULL;
    if (object == NULL || object->sort != NCJ_DICT || key == NULL || value == NULL) return NCJ_ERR;
    if (NCJnewstring(NCJ_STRING, key, &k) != NCJ_OK) return NCJ_ERR;
    if (NCJappend(object, k) != NCJ_OK) { NCJreclaim(k); return NCJ_ERR; }
    if (NCJappend(object, value) != NCJ_OK) {  /* keep the dict whole */
        object->list.len--;
        NCJreclaim(k);
        return NCJ_ERR;
    }
    return NCJ_OK;
}

NCJ_FUNC int
NCJinsertstring(NCjson* object, const char* key, const char* value)
{
    NCjson* v = NULL;
    int stat = value ? NCJnewstring(NCJ_STRING, value, &v) : NCJnew(NCJ_NULL, &v);
    if (stat != NCJ_OK) return stat;
    if ((stat = NCJinsert(object, key, v)) != NCJ_OK) NCJreclaim(v);
    return stat;
}

NCJ_FUNC int
NCJinsertint(NCjson* object, const char* key, long long ivalue)
{
    char digits[32];
    NCjson* v = NULL;
    int stat;
    snprintf(digits, sizeof digits, "%lld", ivalue);
    if ((stat = NCJnewstring(NCJ_INT, digits, &v)) != NCJ_OK) return stat;
    if ((stat = NCJinsert(object, key, v)) != NCJ_OK) NCJreclaim(v);
    return stat;
}

NCJ_LOCAL_ int
ncj_quoted_(NCJtext_* b, const char* s)
{
    char esc[8];
    if (ncj_put_(b, "\"", 1)) return NCJ_ERR;
    for (; s && *s; s++) {
        const char* e = NULL;
        switch (*s) {
        case '"': e = "\\\""; break;
        case '\\': e = "\\\\"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        default:
            if ((unsigned char)*s < ' ') {
                snprintf(esc, sizeof esc, "\\u%04x", (unsigned)(unsigned char)*s);
                e = esc;
            }
        }
        if (e ? ncj_put_(b, e, strlen(e)) : ncj_put_(b, s, 1)) return NCJ_ERR;
    }
    return ncj_put_(b, "\"", 1);
}

NCJ_LOCAL_ int
ncj_unparse_(const NCjson* j, NCJtext_* b, int depth)
{
    size_t i;
    if (j == NULL || depth > NCJ_MAXDEPTH_) return NCJ_ERR;
    switch (j->sort) {
    case NCJ_STRING:
        return ncj_quoted_(b, j->string);
    case NCJ_INT: case NCJ_DOUBLE: case NCJ_BOOLEAN:
        return j->string ? ncj_put_(b, j->string, strlen(j->string)) : NCJ_ERR;
    case NCJ_NULL:
        return ncj_put_(b, "null", 4);
    case NCJ_DICT:
        if (ncj_put_(b, "{", 1)) return NCJ_ERR;
        for (i = 0; i + 1 < j->list.len; i += 2) {
            if (i > 0 && ncj_put_(b, ", ", 2)) return NCJ_ERR;
            if (ncj_unparse_(j->list.contents[i], b, depth + 1) || ncj_put_(b, ": ", 2) ||
                ncj_unparse_(j->list.contents[i + 1], b, depth + 1))
                return NCJ_ERR;
        }
        return ncj_put_(b, "}", 1);
    case NCJ_ARRAY:
        if (ncj_put_(b, "[", 1)) return NCJ_ERR;
        for (i = 0; i < j->list.len; i++) {
            if (i > 0 && ncj_put_(b, ",", 1)) return NCJ_ERR;
            if (ncj_unparse_(j->list.contents[i], b, depth + 1)) return NCJ_ERR;
        }
        return ncj_put_(b, "]", 1);
    default:
        return NCJ_ERR;
    }
}

NCJ_FUNC int
NCJunparse(const NCjson* json, unsigned flags, char** textp)
{
    NCJtext_ b = {NULL, 0, 0};
    (void)flags;
    if (ncj_unparse_(json, &b, 0) != NCJ_OK || ncj_put_(&b, "", 0) != NCJ_OK) {
        free(b.s);
        return NCJ_ERR;
    }
    if (textp) *textp = b.s;
    else free(b.s);
    return NCJ_OK;
}

NCJ_FUNC int
NCJclone(const NCjson* json, NCjson** clonep)
{
    NCjson* c = NULL;
    size_t i;
    if (clonep) *clonep = NULL;
    if (json == NULL) return NCJ_OK;
    if (NCJnew(json->sort, &c) != NCJ_OK) return NCJ_ERR;
    if (json->string) {
        if ((c->string = (char*)malloc(strlen(json->string) + 1)) == NULL) { NCJreclaim(c); return NCJ_ERR; }
        strcpy(c->string, json->string);
    }
    if (json->sort == NCJ_DICT || json->sort == NCJ_ARRAY) {
        for (i = 0; i < json->list.len; i++) {
            NCjson* m = NULL;
            if (NCJclone(json->list.contents[i], &m) != NCJ_OK || ncj_push_(&c->list, m) != NCJ_OK) {
                NCJreclaim(m);
                NCJreclaim(c);
                return NCJ_ERR;
            }
        }
    }
    if (clonep) *clonep = c;
    else NCJreclaim(c);
    return NCJ_OK;
}

#endif /* NETCDF_JSON_H */
