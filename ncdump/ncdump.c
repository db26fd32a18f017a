/* ncdump.c: print a netCDF file as CDL (or NcML with -x).
 *
 * Output must match upstream ncdump byte for byte, so the layout rules
 * (tabs, "// ..." comments, 80-column wrapping of data, escapes, number
 * formats) follow upstream's observable behaviour exactly.  Sections:
 *   options and messages, names and strings, attributes, header,
 *   data (read in large slabs, formatted without printf), NcML, main.
 * The tool is a function, ncdump_run() (nctools.h), so that a fuzz target
 * can run it in-process: a fatal error longjmps back to it, which closes
 * the file, frees every block still allocated through xmalloc (they are
 * kept on a list) and resets the option state for the next run.
 * Only the classic data model is printed; files of the enhanced model are
 * printed as far as their classic parts go. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcdf.h"
#include "ncdout.h"
#include "nctimefmt.h"
#include "nctools.h"

#define SLAB_BYTES ((size_t)4 << 20)   /* bytes of data read per call */
#define PRIM_LEN 100

/* ---- options --------------------------------------------------------- */

enum { LANG_C = 1, LANG_F = 2 };

static struct {
    const char *name;        /* dataset name printed after "netcdf" */
    int header_only;         /* -h */
    int coord_vals;          /* -c */
    int brief;               /* -b */
    int full;                /* -f */
    int lang;                /* LANG_C or LANG_F */
    int string_times;        /* -t or -i */
    int iso_sep;             /* -i */
    int special;             /* -s */
    int nlvars;              /* -v count */
    char **lvars;            /* -v names */
    int nlgrps;              /* -g count */
    int xml;                 /* -x */
    int kind;                /* -k */
    int kind_ext;            /* -K */
    int inmemory;            /* -Xm */
    int fmt_kind;            /* nc_inq_format of the file */
} opt = {NULL, 0, 0, 0, 0, LANG_C, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0};

static const char *progname = "ncdump";
static int float_digits = 7, double_digits = 15;
static int float_prec_set, double_prec_set;
static int max_line_len = 78;        /* -l value minus 2, as upstream */
static int linep;                    /* column in the data section */
static int att_times_col;            /* column of decoded attribute times */
static FILE *errf;                   /* diagnostics (stderr for the tool) */
static jmp_buf fail_jmp;             /* where a fatal error returns to */

/* A fatal error: message already printed; back to ncdump_run. */
static _Noreturn void
fail_out(void)
{
    ncd_out_flush();
    fflush(errf);
    longjmp(fail_jmp, 1);
}

static _Noreturn void
die(const char *fmt, ...)
{
    va_list ap;
    ncd_out_flush();
    fprintf(errf, "%s: ", progname);
    va_start(ap, fmt);
    vfprintf(errf, fmt, ap);
    va_end(ap);
    fputc('\n', errf);
    fail_out();
}

/* A library call that should not fail on an open, valid file. */
static void
check(int stat)
{
    if (stat != NC_NOERR) {
        ncd_out_flush();
        fprintf(errf, "%s\n", nc_strerror(stat));
        fprintf(errf, "Location: file %s; line %d\n", "ncdump.c", 0);
        fail_out();
    }
}

/* Heap blocks of one run, on a list so that a fatal error frees them. */
typedef struct block {
    struct block *prev, *next;
    max_align_t align[];             /* the caller's bytes */
} block;
static block *blocks;

static void *
xmalloc(size_t n)
{
    block *b;
    if (n > SIZE_MAX - sizeof(block) || !(b = malloc(sizeof(block) + (n ? n : 1))))
        die("out of memory\n");
    b->prev = NULL;
    b->next = blocks;
    if (blocks)
        blocks->prev = b;
    blocks = b;
    return b->align;
}

static void
xfree(void *p)
{
    block *b;
    if (!p)
        return;
    b = (block *)((char *)p - offsetof(block, align));
    if (b->prev)
        b->prev->next = b->next;
    else
        blocks = b->next;
    if (b->next)
        b->next->prev = b->prev;
    free(b);
}

static char *
xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

static void
xfree_all(void)
{
    while (blocks)
        xfree(blocks->align);
}

static void
usage(void)
{
    fprintf(errf,
        "%s [-c|-h] [-v ...] [[-b|-f] [c|f]] [-l len] [-n name] [-p n[,n]] [-k] [-x] [-s] [-t|-i] [-g ...] [-w] [-F] [-Ln] file\n"
        "  [-c]             Coordinate variable data and header information\n"
        "  [-h]             Header information only, no data\n"
        "  [-v var1[,...]]  Data for variable(s) <var1>,... only\n"
        "  [-b [c|f]]       Brief annotations for C or Fortran indices in data\n"
        "  [-f [c|f]]       Full annotations for C or Fortran indices in data\n"
        "  [-l len]         Line length maximum in data section (default 80)\n"
        "  [-n name]        Name for netCDF (default derived from file name)\n"
        "  [-p n[,n]]       Display floating-point values with less precision\n"
        "  [-k]             Output kind of netCDF file\n"
        "  [-s]             Output special (virtual) attributes\n"
        "  [-t]             Output time data as date-time strings\n"
        "  [-i]             Output time data as date-time strings with ISO-8601 'T' separator\n"
        "  [-g grp1[,...]]  Data and metadata for group(s) <grp1>,... only\n"
        "  [-w]             With client-side caching of variables for DAP URLs\n"
        "  [-x]             Output XML (NcML) instead of CDL\n"
        "  [-F]             Output _Filter and _Codecs instead of _Fletcher32, _Shuffle, and _Deflate\n"
        "  [-Xp]            Unconditionally suppress output of the properties attribute\n"
        "  [-Ln]            Set log level to n (>= 0); ignore if logging not enabled.\n"
        "  file             Name of netCDF file (or URL if DAP access enabled)\n",
        progname);
    fprintf(errf, "netcdf library version %s\n", nc_inq_libvers());
}

/* ---- names and strings ------------------------------------------------- */

/* Appends name with CDL escapes to dst (room for 4*strlen+2); returns length. */
static size_t
escape_name(char *dst, const char *cp)
{
    char *sp = dst;
    unsigned char c0 = (unsigned char)*cp;
    if ((c0 >= 0x01 && c0 <= 0x20) || c0 == 0x7f)
        die("name begins with space or control-character: %c", *cp);
    if (c0 >= '0' && c0 <= '9')
        *sp++ = '\\';
    for (; *cp; cp++) {
        unsigned char c = (unsigned char)*cp;
        if (c < 0x80 && (c < 0x20 || c == 0x7f)) {
            sp += sprintf(sp, "\\%%%.2x", c);
            continue;
        }
        switch (c) {
        case ' ': case '!': case '"': case '#': case '$': case '&': case '\'':
        case '(': case ')': case '*': case ',': case ':': case ';': case '<':
        case '=': case '>': case '?': case '[': case ']': case '\\': case '^':
        case '`': case '{': case '|': case '}': case '~':
            *sp++ = '\\';
            *sp++ = (char)c;
            break;
        default:
            *sp++ = (char)c;
        }
    }
    *sp = '\0';
    return (size_t)(sp - dst);
}

static void
put_name(const char *name)
{
    char buf[4 * NC_MAX_NAME + 8];
    char *p = buf;
    size_t n = strlen(name);
    if (n > NC_MAX_NAME)
        p = xmalloc(4 * n + 8);
    ncd_write(p, escape_name(p, name));
    if (p != buf)
        xfree(p);
}

static int
is_keyword(const char *s)
{
    return !strcmp(s, "variable") || !strcmp(s, "dimension") || !strcmp(s, "data")
        || !strcmp(s, "group") || !strcmp(s, "types");
}

/* Text attribute value in CDL: trailing NULs dropped, escapes, newline
 * splits the string (classic formats). */
static void
put_att_text(const char *s, size_t len)
{
    size_t i;
    while (len && s[len - 1] == '\0')
        len--;
    ncd_putc('"');
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\b': ncd_puts("\\b"); break;
        case '\f': ncd_puts("\\f"); break;
        case '\n':
            if (opt.fmt_kind != NC_FORMAT_NETCDF4)
                ncd_puts("\\n\",\n\t\t\t\"");
            else
                ncd_puts("\\n");
            break;
        case '\r': ncd_puts("\\r"); break;
        case '\t': ncd_puts("\\t"); break;
        case '\v': ncd_puts("\\v"); break;
        case '\\': ncd_puts("\\\\"); break;
        case '\'': ncd_puts("\\'"); break;
        case '"': ncd_puts("\\\""); break;
        default:
            if (c < 0x20 || c == 0x7f)
                ncd_printf("\\%03o", c);
            else
                ncd_putc((char)c);
        }
    }
    ncd_putc('"');
}

/* ---- value formatting -------------------------------------------------- */

static size_t
type_size(nc_type t)
{
    switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_INT64: case NC_UINT64: case NC_DOUBLE: return 8;
    default: return 0;
    }
}

static const char *
type_name(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "byte";
    case NC_CHAR: return "char";
    case NC_SHORT: return "short";
    case NC_INT: return "int";
    case NC_FLOAT: return "float";
    case NC_DOUBLE: return "double";
    case NC_UBYTE: return "ubyte";
    case NC_USHORT: return "ushort";
    case NC_UINT: return "uint";
    case NC_INT64: return "int64";
    case NC_UINT64: return "uint64";
    case NC_STRING: return "string";
    default: return "bogus";
    }
}

static double
value_as_double(nc_type t, const void *p)
{
    switch (t) {
    case NC_BYTE: return *(const signed char *)p;
    case NC_CHAR: return *(const char *)p;
    case NC_SHORT: return *(const short *)p;
    case NC_INT: return *(const int *)p;
    case NC_FLOAT: return *(const float *)p;
    case NC_DOUBLE: return *(const double *)p;
    case NC_UBYTE: return *(const unsigned char *)p;
    case NC_USHORT: return *(const unsigned short *)p;
    case NC_UINT: return *(const unsigned int *)p;
    case NC_INT64: return (double)*(const long long *)p;
    case NC_UINT64: return (double)*(const unsigned long long *)p;
    default: return 0;
    }
}

/* ---- attributes ---------------------------------------------------------- */

typedef struct {
    nc_type type;
    int unit_ok;              /* has a usable time unit */
    nct_units tu;             /* parsed time units */
} timeinfo_t;

/* Time units of variable varid, if it qualifies for -t decoding. */
static int
get_timeinfo(int ncid, int varid, nct_units *tu)
{
    nc_type t;
    size_t len;
    char *units, *cal = NULL;
    int calkind, ok = 0;

    if (nc_inq_att(ncid, varid, "units", &t, &len) || t != NC_CHAR)
        return 0;
    units = xmalloc(len + 1);
    check(nc_get_att_text(ncid, varid, "units", units));
    units[len] = '\0';
    if (nct_valid_units(units)) {
        size_t clen = 0;
        if (!nc_inq_att(ncid, varid, "calendar", &t, &clen) && t == NC_CHAR && clen > 0) {
            cal = xmalloc(clen + 1);
            check(nc_get_att_text(ncid, varid, "calendar", cal));
            cal[clen] = '\0';
        } else
            clen = 0;
        calkind = nct_calendar(cal, clen);
        ok = nct_parse(calkind, units, tu) == 0;
        xfree(cal);
    }
    xfree(units);
    return ok;
}

/* Bounds variables (named by a "bounds" attribute under -t) decode their
 * values with the units of the variable naming them. */
typedef struct bnode { char *name; int varid; struct bnode *next; } bnode;
static bnode *bounds_list;

static void
put_time_string(const nct_units *tu, double v, char *out)
{
    char tmp[80];
    if (isfinite(v)) {
        nct_format(tu, v, opt.iso_sep ? 'T' : ' ', tmp);
        snprintf(out, PRIM_LEN, "\"%s\"", tmp);
    } else if (isnan(v))
        strcpy(out, "NaN");
    else
        strcpy(out, v < 0 ? "-Infinity" : "Infinity");
}

/* The "// ..." comment with decoded times after a numeric attribute. */
static void
print_att_times(int ncid, int varid, nc_type type, size_t len, const void *vals)
{
    nct_units tu;
    size_t i, sz = type_size(type);
    char s[PRIM_LEN + 2];

    if (type == NC_CHAR || type == NC_STRING || varid == NC_GLOBAL || len == 0)
        return;
    if (!get_timeinfo(ncid, varid, &tu))
        return;
    for (i = 0; i < len; i++) {
        int first = (i == 0), wrap = (len > 2), nl;
        size_t n;
        put_time_string(&tu, value_as_double(type, (const char *)vals + i * sz), s);
        if (i < len - 1)
            strcat(s, ",");
        n = strlen(s);
        att_times_col = att_times_col + 1 + (int)n;
        nl = wrap && (first || att_times_col > max_line_len + 2);
        if (nl) {
            ncd_puts("\n\t\t  ");
            att_times_col = 16 + 2 + (int)n;
        } else
            ncd_putc(' ');
        if (first || nl) {
            ncd_puts("// ");
            att_times_col += 3;
        }
        ncd_write(s, n);
    }
}

static void
put_att_values(nc_type type, size_t len, const void *vals)
{
    char buf[PRIM_LEN];
    size_t i;
    for (i = 0; i < len; i++) {
        const char *delim = (i == len - 1) ? "" : ", ";
        switch (type) {
        case NC_BYTE: ncd_printf("%db%s", ((const signed char *)vals)[i], delim); break;
        case NC_SHORT: ncd_printf("%ds%s", ((const short *)vals)[i], delim); break;
        case NC_INT: ncd_printf("%d%s", ((const int *)vals)[i], delim); break;
        case NC_UBYTE: ncd_printf("%uUB%s", ((const unsigned char *)vals)[i], delim); break;
        case NC_USHORT: ncd_printf("%huUS%s", ((const unsigned short *)vals)[i], delim); break;
        case NC_UINT: ncd_printf("%uU%s", ((const unsigned int *)vals)[i], delim); break;
        case NC_INT64: ncd_printf("%lldLL%s", ((const long long *)vals)[i], delim); break;
        case NC_UINT64: ncd_printf("%lluULL%s", ((const unsigned long long *)vals)[i], delim); break;
        case NC_FLOAT: {
            float f = ((const float *)vals)[i];
            if (isfinite(f)) {
                ncd_fmt_g(buf, f, float_digits, 1);
                ncd_printf("%sf%s", buf, delim);
            } else if (isnan(f))
                ncd_printf("NaNf%s", delim);
            else
                ncd_printf("%sInfinityf%s", f < 0 ? "-" : "", delim);
            break;
        }
        case NC_DOUBLE: {
            double d = ((const double *)vals)[i];
            if (isfinite(d)) {
                ncd_fmt_g(buf, d, double_digits, 1);
                ncd_printf("%s%s", buf, delim);
            } else if (isnan(d))
                ncd_printf("NaN%s", delim);
            else
                ncd_printf("%sInfinity%s", d < 0 ? "-" : "", delim);
            break;
        }
        default:
            die("pr_att_vals: bad type");
        }
    }
}

static void
print_att(int ncid, int varid, const char *varname, int ia)
{
    char name[NC_MAX_NAME + 1];
    nc_type type;
    size_t len, sz;
    void *vals;

    check(nc_inq_attname(ncid, varid, ia, name));
    if (varid == NC_GLOBAL && !strcmp(name, "_NCProperties"))
        return;
    check(nc_inq_att(ncid, varid, name, &type, &len));
    ncd_puts("\t\t");
    put_name(varname);
    if (is_keyword(varname))
        ncd_putc(' ');
    ncd_putc(':');
    put_name(name);
    ncd_puts(" = ");
    if (len == 0)
        type = NC_CHAR;
    sz = type_size(type);
    if (sz == 0)
        die("pr_att_vals: bad type");
    if (len > ((size_t)-1) / 8 - 1)
        die("out of memory\n");
    vals = xmalloc((len + 1) * sz);
    check(nc_get_att(ncid, varid, name, vals));
    if (type == NC_CHAR) {
        ((char *)vals)[len] = '\0';
        put_att_text(vals, len);
    } else
        put_att_values(type, len, vals);
    ncd_puts(" ;");
    if (opt.string_times) {
        print_att_times(ncid, varid, type, len, vals);
        if (type == NC_CHAR && !strcmp(name, "bounds")) {
            bnode *b = xmalloc(sizeof *b);
            b->name = xstrdup((char *)vals);
            b->varid = varid;
            b->next = bounds_list;
            bounds_list = b;
        }
    }
    xfree(vals);
    ncd_putc('\n');
}

/* ---- header -------------------------------------------------------------- */

typedef struct {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int ndims;
    int dimids[NC_MAX_VAR_DIMS];
    int natts;
} var_t;

static const char *
kind_string(int kind)
{
    switch (kind) {
    case NC_FORMAT_CLASSIC: return "classic";
    case NC_FORMAT_64BIT_OFFSET: return "64-bit offset";
    case NC_FORMAT_CDF5: return "cdf5";
    case NC_FORMAT_NETCDF4: return "netCDF-4";
    case NC_FORMAT_NETCDF4_CLASSIC: return "netCDF-4 classic model";
    default: die("unrecognized file format: %d", kind); return "unrecognized";
    }
}

static int
var_wanted(const char *name)
{
    int i;
    if (opt.nlvars == 0)
        return 1;
    for (i = 0; i < opt.nlvars; i++)
        if (!strcmp(opt.lvars[i], name))
            return 1;
    return 0;
}

static int
is_coord_var(int ncid, const var_t *v)
{
    int ndims, d;
    char dname[NC_MAX_NAME + 1];
    if (v->ndims != 1)
        return 0;
    check(nc_inq_ndims(ncid, &ndims));
    for (d = 0; d < ndims; d++) {
        check(nc_inq_dimname(ncid, d, dname));
        if (!strcmp(dname, v->name))
            return 1;
    }
    return 0;
}

static void
print_hidden_atts(int ncid)
{
    size_t len;
    nc_type t;
    if (!nc_inq_att(ncid, NC_GLOBAL, "_NCProperties", &t, &len)) {
        char *s = xmalloc(len + 1);
        if (!nc_get_att_text(ncid, NC_GLOBAL, "_NCProperties", s)) {
            s[len] = '\0';
            ncd_puts("\t\t:_NCProperties = \"");
            ncd_puts(s);
            ncd_puts("\" ;\n");
        }
        xfree(s);
    }
    if (!nc_inq_att(ncid, NC_GLOBAL, "_SuperblockVersion", &t, &len) && len == 1) {
        int v;
        if (!nc_get_att_int(ncid, NC_GLOBAL, "_SuperblockVersion", &v))
            ncd_printf("\t\t:_SuperblockVersion = %d ;\n", v);
    }
    if (!nc_inq_att(ncid, NC_GLOBAL, "_IsNetcdf4", &t, &len) && len == 1) {
        int v;
        if (!nc_get_att_int(ncid, NC_GLOBAL, "_IsNetcdf4", &v))
            ncd_printf("\t\t:_IsNetcdf4 = %d ;\n", v ? 1 : 0);
    }
}

/* ---- data section ------------------------------------------------------ */

/* How one variable's values are turned into text. */
typedef struct {
    const var_t *v;
    size_t size;             /* bytes per value */
    int has_fill;            /* compare values with fill */
    union { signed char b; char c; short s; int i; float f; double d;
            unsigned char ub; unsigned short us; unsigned int ui;
            long long ll; unsigned long long ull; } fill;
    const char *cfmt;        /* validated C_format, or NULL */
    int cfmt_double;         /* C_format takes a double argument */
    int fprec;               /* significant digits for float/double */
    int is_time;             /* decode as time strings */
    nct_units tu;
    int text;                /* char data printed as strings */
} printer_t;

static float float_eps = FLT_EPSILON;
static double double_eps = DBL_EPSILON;

static int
is_fill(const printer_t *p, const char *vp)
{
    switch (p->v->type) {
    case NC_BYTE: return *(const signed char *)vp == p->fill.b;
    case NC_CHAR: return *(const char *)vp == p->fill.c;
    case NC_SHORT: return *(const short *)vp == p->fill.s;
    case NC_INT: return *(const int *)vp == p->fill.i;
    case NC_UBYTE: return *(const unsigned char *)vp == p->fill.ub;
    case NC_USHORT: return *(const unsigned short *)vp == p->fill.us;
    case NC_UINT: return *(const unsigned int *)vp == p->fill.ui;
    case NC_INT64: return *(const long long *)vp == p->fill.ll;
    case NC_UINT64: return *(const unsigned long long *)vp == p->fill.ull;
    case NC_FLOAT: {
        float v1 = p->fill.f, v2 = *(const float *)vp;
        if ((v1 > 0.0f) != (v2 > 0.0f))
            return 0;
        if (isfinite(v1) && isfinite(v2)) {
            float diff = v1 - v2, tol = float_eps * v2;
            return (diff < 0 ? -diff : diff) <= (tol < 0 ? -tol : tol);
        }
        if (isnan(v1) && isnan(v2)) return 1;
        if (isinf(v1) && isinf(v2)) return 1;
        return 0;
    }
    case NC_DOUBLE: {
        double v1 = p->fill.d, v2 = *(const double *)vp;
        if ((v1 > 0.0) != (v2 > 0.0))
            return 0;
        if (isfinite(v1) && isfinite(v2)) {
            double diff = v1 - v2, tol = double_eps * v2;
            return (diff < 0 ? -diff : diff) <= (tol < 0 ? -tol : tol);
        }
        if (isnan(v1) && isnan(v2)) return 1;
        if (isinf(v1) && isinf(v2)) return 1;
        return 0;
    }
    default: return 0;
    }
}

/* Formats one value into s (>= PRIM_LEN bytes); returns its length. */
static int
format_value(const printer_t *p, const char *vp, char *s)
{
    if (p->has_fill && is_fill(p, vp)) {
        s[0] = '_';
        s[1] = '\0';
        return 1;
    }
    if (p->is_time) {
        put_time_string(&p->tu, value_as_double(p->v->type, vp), s);
        return (int)strlen(s);
    }
    if (p->cfmt) {
        int n;
        if (p->cfmt_double) {
            double d = value_as_double(p->v->type, vp);
            if (!isfinite(d))
                goto special;
            n = snprintf(s, PRIM_LEN, p->cfmt, d);
        } else {
            switch (p->v->type) {
            case NC_BYTE: n = snprintf(s, PRIM_LEN, p->cfmt, *(const signed char *)vp); break;
            case NC_CHAR: n = snprintf(s, PRIM_LEN, p->cfmt, *(const char *)vp); break;
            case NC_SHORT: n = snprintf(s, PRIM_LEN, p->cfmt, *(const short *)vp); break;
            case NC_INT: n = snprintf(s, PRIM_LEN, p->cfmt, *(const int *)vp); break;
            case NC_UBYTE: n = snprintf(s, PRIM_LEN, p->cfmt, *(const unsigned char *)vp); break;
            case NC_USHORT: n = snprintf(s, PRIM_LEN, p->cfmt, *(const unsigned short *)vp); break;
            case NC_UINT: n = snprintf(s, PRIM_LEN, p->cfmt, *(const unsigned int *)vp); break;
            case NC_INT64: n = snprintf(s, PRIM_LEN, p->cfmt, *(const long long *)vp); break;
            case NC_UINT64: n = snprintf(s, PRIM_LEN, p->cfmt, *(const unsigned long long *)vp); break;
            default: n = 0; s[0] = '\0';
            }
        }
        if (n >= PRIM_LEN)
            n = PRIM_LEN - 1;
        return n < 0 ? 0 : n;
    }
    switch (p->v->type) {
    case NC_BYTE: return ncd_fmt_ll(s, *(const signed char *)vp);
    case NC_CHAR: s[0] = *vp; s[1] = '\0'; return 1;
    case NC_SHORT: return ncd_fmt_ll(s, *(const short *)vp);
    case NC_INT: return ncd_fmt_ll(s, *(const int *)vp);
    case NC_UBYTE: return ncd_fmt_ull(s, *(const unsigned char *)vp);
    case NC_USHORT: return ncd_fmt_ull(s, *(const unsigned short *)vp);
    case NC_UINT: return ncd_fmt_ull(s, *(const unsigned int *)vp);
    case NC_INT64: return ncd_fmt_ll(s, *(const long long *)vp);
    case NC_UINT64: return ncd_fmt_ull(s, *(const unsigned long long *)vp);
    case NC_FLOAT: {
        float f = *(const float *)vp;
        if (isfinite(f))
            return ncd_fmt_g(s, f, p->fprec, 0);
        break;
    }
    case NC_DOUBLE: {
        double d = *(const double *)vp;
        if (isfinite(d))
            return ncd_fmt_g(s, d, p->fprec, 0);
        break;
    }
    default: s[0] = '\0'; return 0;
    }
special:
    {
        double d = value_as_double(p->v->type, vp);
        const char *suf = p->v->type == NC_FLOAT ? "f" : "";
        if (isnan(d))
            return snprintf(s, PRIM_LEN, "NaN%s", suf);
        return snprintf(s, PRIM_LEN, "%sInfinity%s", d < 0 ? "-" : "", suf);
    }
}

/* Writes s (n bytes) in the data section, starting a continuation line
 * first when it would pass the line length (upstream's lput). */
static void
lput(const char *s, size_t n)
{
    if ((int)n + linep > max_line_len && n > 2) {
        ncd_puts("\n    ");
        linep = 4;
    }
    ncd_write(s, n);
    if (n > 0 && s[n - 1] == '\n')
        linep = 0;
    else
        linep += (int)n;
}

/* Checks a C_format attribute: one conversion, compatible with the type.
 * Returns the format or NULL; *dbl tells whether it takes a double. */
static char *
checked_cformat(const char *f, nc_type t, int *dbl)
{
    const char *q;
    int nconv = 0;
    char conv = 0;
    int ll = 0;

    for (q = f; *q; q++) {
        if (*q != '%')
            continue;
        if (q[1] == '%') {
            q++;
            continue;
        }
        q++;
        while (*q && strchr("-+ #0", *q)) q++;
        while (*q && isdigit((unsigned char)*q)) q++;
        if (*q == '.') {
            q++;
            while (*q && isdigit((unsigned char)*q)) q++;
        }
        ll = 0;
        if (q[0] == 'l' && q[1] == 'l') { ll = 2; q += 2; }
        else if (q[0] == 'l') { ll = 1; q++; }
        else if (q[0] == 'h') { q++; if (*q == 'h') q++; }
        if (!*q)
            return NULL;
        conv = *q;
        nconv++;
    }
    if (nconv != 1)
        return NULL;
    if (strchr("eEfFgGaA", conv)) {
        if (t != NC_FLOAT && t != NC_DOUBLE)
            return NULL;
        *dbl = 1;
        return (char *)f;
    }
    if (strchr("diouxXc", conv)) {
        int wide = (t == NC_INT64 || t == NC_UINT64);
        if (t == NC_FLOAT || t == NC_DOUBLE)
            return NULL;
        if (wide ? ll != 2 : ll != 0)
            return NULL;
        *dbl = 0;
        return (char *)f;
    }
    return NULL;
}

static void
setup_printer(int ncid, int varid, const var_t *v, printer_t *p, char *cfbuf)
{
    nc_type t;
    size_t len;

    memset(p, 0, sizeof *p);
    p->v = v;
    p->size = type_size(v->type);
    /* fill value */
    p->has_fill = 1;
    if (!nc_inq_att(ncid, varid, "_FillValue", &t, &len) && t == v->type && len == 1) {
        check(nc_get_att(ncid, varid, "_FillValue", &p->fill));
    } else {
        switch (v->type) {
        case NC_CHAR: p->fill.c = NC_FILL_CHAR; break;
        case NC_SHORT: p->fill.s = NC_FILL_SHORT; break;
        case NC_INT: p->fill.i = NC_FILL_INT; break;
        case NC_FLOAT: p->fill.f = NC_FILL_FLOAT; break;
        case NC_DOUBLE: p->fill.d = NC_FILL_DOUBLE; break;
        case NC_USHORT: p->fill.us = NC_FILL_USHORT; break;
        case NC_UINT: p->fill.ui = NC_FILL_UINT; break;
        case NC_INT64: p->fill.ll = NC_FILL_INT64; break;
        case NC_UINT64: p->fill.ull = NC_FILL_UINT64; break;
        default: p->has_fill = 0; break;
        }
    }
    /* time decoding */
    if (opt.string_times && v->type != NC_CHAR) {
        bnode *b;
        int src = varid;
        for (b = bounds_list; b; b = b->next)
            if (!strcmp(b->name, v->name)) {
                src = b->varid;
                break;
            }
        p->is_time = get_timeinfo(ncid, src, &p->tu);
    }
    /* print format */
    p->fprec = v->type == NC_FLOAT ? float_digits : double_digits;
    if (!((float_prec_set && v->type == NC_FLOAT) || (double_prec_set && v->type == NC_DOUBLE))) {
        if (!nc_inq_att(ncid, varid, "C_format", &t, &len) && t == NC_CHAR && len != 0 && len < 100) {
            check(nc_get_att_text(ncid, varid, "C_format", cfbuf));
            cfbuf[len] = '\0';
            if (v->type == NC_CHAR) {
                if (strcmp(cfbuf, "%s") && cfbuf[0])
                    p->cfmt = checked_cformat(cfbuf, v->type, &p->cfmt_double);
            } else
                p->cfmt = checked_cformat(cfbuf, v->type, &p->cfmt_double);
        }
    }
    p->text = (v->type == NC_CHAR && !p->cfmt);
}

static void
annotate_brief(const var_t *v, const size_t *cor, const size_t *vdims)
{
    int r = v->ndims, id;
    ncd_puts("// ");
    put_name(v->name);
    ncd_putc('(');
    if (opt.lang == LANG_C) {
        for (id = 0; id < r - 1; id++)
            ncd_printf("%lu,", (unsigned long)cor[id]);
        if (vdims[r - 1] == 1)
            ncd_putc('0');
        else
            ncd_printf(" 0-%lu", (unsigned long)vdims[r - 1] - 1);
    } else {
        if (vdims[r - 1] == 1)
            ncd_putc('1');
        else
            ncd_printf("1-%lu ", (unsigned long)vdims[r - 1]);
        for (id = r - 2; id >= 0; id--)
            ncd_printf(",%lu", (unsigned long)(1 + cor[id]));
    }
    ncd_puts(")\n    ");
    linep = 4;
}

static void
annotate(const var_t *v, const size_t *cor, size_t iel)
{
    int r = v->ndims, id;
    ncd_puts("  // ");
    put_name(v->name);
    ncd_putc('(');
    if (r == 0) {
        /* upstream reads outside its index array for Fortran scalars */
        ncd_puts(opt.lang == LANG_C ? "0" : "1");
    } else if (opt.lang == LANG_C) {
        for (id = 0; id < r - 1; id++)
            ncd_printf("%lu,", (unsigned long)cor[id]);
        ncd_printf("%lu", (unsigned long)(cor[r - 1] + iel));
    } else {
        ncd_printf("%lu", (unsigned long)(cor[r - 1] + iel + 1));
        for (id = r - 2; id >= 0; id--)
            ncd_printf(",%lu", (unsigned long)(1 + cor[id]));
    }
    ncd_puts(")\n    ");
}

/* Char row as a string: trailing NULs dropped, escapes, newline splits. */
static void
put_text_row(const char *s, size_t len)
{
    size_t i;
    while (len && s[len - 1] == '\0')
        len--;
    ncd_putc('"');
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\b': ncd_puts("\\b"); break;
        case '\f': ncd_puts("\\f"); break;
        case '\n': ncd_puts("\\n\",\n    \""); break;
        case '\r': ncd_puts("\\r"); break;
        case '\t': ncd_puts("\\t"); break;
        case '\v': ncd_puts("\\v"); break;
        case '\\': ncd_puts("\\\\"); break;
        case '\'': ncd_puts("\\'"); break;
        case '"': ncd_puts("\\\""); break;
        default:
            if (c >= 0x20 && c < 0x7f)
                ncd_putc((char)c);
            else
                ncd_printf("\\%.3o", c);
        }
    }
    ncd_putc('"');
}

/* Position bookkeeping while values stream through. */
typedef struct {
    const printer_t *p;
    const size_t *vdims;
    size_t *cor;             /* index of the current row (last dim = 0) */
    size_t ncols;
    size_t col;              /* next column in the current row */
} stream_t;

static int
row_is_last(const stream_t *st)
{
    int j, r = st->p->v->ndims;
    for (j = 0; j < r - 1; j++)
        if (st->cor[j] != st->vdims[j] - 1)
            return 0;
    return 1;
}

static void
next_row(stream_t *st)
{
    int j, r = st->p->v->ndims;
    st->col = 0;
    for (j = r - 2; j >= 0; j--) {
        if (++st->cor[j] < st->vdims[j])
            return;
        st->cor[j] = 0;
    }
}

static void
row_end(stream_t *st, const char *last, size_t n)
{
    int lastrow = row_is_last(st);
    if (opt.full) {
        ncd_write(last, n);
        ncd_putc(lastrow ? ';' : ',');
        annotate(st->p->v, st->cor, st->ncols - 1);
    } else {
        lput(last, n);
        if (lastrow) {
            lput(" ;", 2);
            lput("\n", 1);
        } else {
            lput(",\n", 2);
            lput("  ", 2);
        }
    }
    next_row(st);
}

/* Emits n numeric values starting at the stream position. */
static void
emit_values(stream_t *st, const char *buf, size_t n)
{
    const printer_t *p = st->p;
    char s[PRIM_LEN + 4];
    size_t i;
    int r = p->v->ndims;

    for (i = 0; i < n; i++, buf += p->size) {
        int len;
        if (st->col == 0 && opt.brief && r > 1 && st->ncols > 0)
            annotate_brief(p->v, st->cor, st->vdims);
        len = format_value(p, buf, s);
        if (st->col + 1 < st->ncols) {
            if (opt.full) {
                ncd_write(s, (size_t)len);
                ncd_puts(", ");
                annotate(p->v, st->cor, st->col);
            } else {
                s[len] = ',';
                s[len + 1] = ' ';
                lput(s, (size_t)len + 2);
            }
            st->col++;
        } else
            row_end(st, s, (size_t)len);
    }
}

static void
emit_text_rows(stream_t *st, const char *buf, size_t nrows)
{
    size_t i;
    int r = st->p->v->ndims;
    for (i = 0; i < nrows; i++, buf += st->ncols) {
        if (opt.brief && r > 1 && st->ncols > 0)
            annotate_brief(st->p->v, st->cor, st->vdims);
        put_text_row(buf, st->ncols);
        st->col = st->ncols;
        row_end(st, "", 0);
    }
}

/* Reads the variable in slabs of whole trailing sub-arrays and streams
 * the values to the printer. */
static void
print_var_data(int ncid, int varid, const var_t *v, const size_t *vdims)
{
    printer_t p;
    stream_t st;
    char cfbuf[128];
    size_t cor[NC_MAX_VAR_DIMS + 1], start[NC_MAX_VAR_DIMS + 1], count[NC_MAX_VAR_DIMS + 1];
    size_t ncols, elsz, slab_elems, inner;
    int r = v->ndims, j, k;
    char *buf;

    setup_printer(ncid, varid, v, &p, cfbuf);
    elsz = p.size;
    ncd_putc('\n');
    ncd_putc(' ');
    put_name(v->name);
    if (r <= 1) {
        ncd_puts(" = ");
        linep = (int)strlen(v->name) + 4;
    } else {
        ncd_puts(" =\n  ");
        linep = 2;
    }
    ncols = r > 0 ? vdims[r - 1] : 1;
    memset(cor, 0, sizeof cor);
    st.p = &p;
    st.vdims = vdims;
    st.cor = cor;
    st.ncols = ncols;
    st.col = 0;

    slab_elems = SLAB_BYTES / elsz;
    if (r == 0) {
        char val[16];
        check(nc_get_var(ncid, varid, val));
        if (p.text)
            emit_text_rows(&st, val, 1);
        else
            emit_values(&st, val, 1);
        return;
    }
    if (ncols > slab_elems && !p.text) {
        /* rows longer than a slab: read each row in pieces */
        size_t nrows = 1, row;
        for (j = 0; j < r - 1; j++)
            nrows *= vdims[j];
        buf = xmalloc(slab_elems * elsz);
        for (row = 0; row < nrows; row++) {
            size_t c0, nn;
            for (j = 0; j < r - 1; j++) {
                start[j] = cor[j];
                count[j] = 1;
            }
            for (c0 = 0; c0 < ncols; c0 += nn) {
                nn = ncols - c0 < slab_elems ? ncols - c0 : slab_elems;
                start[r - 1] = c0;
                count[r - 1] = nn;
                check(nc_get_vara(ncid, varid, start, count, buf));
                emit_values(&st, buf, nn);
            }
        }
        xfree(buf);
        return;
    }
    /* smallest k whose trailing block dims[k..] fits a slab */
    inner = 1;
    k = r;
    while (k > 0 && vdims[k - 1] <= slab_elems / inner) {
        inner *= vdims[k - 1];
        k--;
    }
    if (k == r) {            /* text row larger than a slab: one row a read */
        inner = ncols;
        k = r - 1;
    }
    {
        /* read blocks: dims < k-1 step by 1, dim k-1 by m, dims >= k whole */
        size_t m = 1, total_rows_block;
        size_t idx[NC_MAX_VAR_DIMS + 1];
        if (k > 0) {
            m = slab_elems / inner;
            if (m < 1) m = 1;
            if (m > vdims[k - 1]) m = vdims[k - 1];
        }
        buf = xmalloc((k > 0 ? m : 1) * inner * elsz);
        memset(idx, 0, sizeof idx);
        for (;;) {
            size_t nelem;
            for (j = 0; j < r; j++) {
                if (j < k - 1) { start[j] = idx[j]; count[j] = 1; }
                else if (j == k - 1) {
                    start[j] = idx[j];
                    count[j] = vdims[j] - idx[j] < m ? vdims[j] - idx[j] : m;
                } else { start[j] = 0; count[j] = vdims[j]; }
            }
            nelem = (k > 0 ? count[k - 1] : 1) * inner;
            check(nc_get_vara(ncid, varid, start, count, buf));
            if (p.text) {
                total_rows_block = nelem / ncols;
                emit_text_rows(&st, buf, total_rows_block);
            } else
                emit_values(&st, buf, nelem);
            if (k == 0)
                break;
            idx[k - 1] += count[k - 1];
            j = k - 1;
            while (j >= 0 && idx[j] >= vdims[j]) {
                idx[j] = 0;
                if (j == 0) { j = -1; break; }
                idx[j - 1]++;
                j--;
            }
            if (j < 0)
                break;
        }
        xfree(buf);
    }
}

/* ---- CDL ------------------------------------------------------------------ */

static void
do_ncdump(int ncid)
{
    int ndims, nvars, ngatts, unlimid, d, varid, ia;
    size_t *dimlens;
    var_t v;

    ncd_puts("netcdf ");
    put_name(opt.name);
    ncd_puts(" {\n");
    check(nc_inq(ncid, &ndims, &nvars, &ngatts, &unlimid));
    dimlens = xmalloc(sizeof(size_t) * (size_t)(ndims + 1));
    if (ndims > 0)
        ncd_puts("dimensions:\n");
    for (d = 0; d < ndims; d++) {
        char dname[NC_MAX_NAME + 1];
        check(nc_inq_dim(ncid, d, dname, &dimlens[d]));
        ncd_putc('\t');
        put_name(dname);
        if (d == unlimid)
            ncd_printf(" = UNLIMITED ; // (%lu currently)\n", (unsigned long)dimlens[d]);
        else
            ncd_printf(" = %lu ;\n", (unsigned long)dimlens[d]);
    }
    if (nvars > 0)
        ncd_puts("variables:\n");
    for (varid = 0; varid < nvars; varid++) {
        check(nc_inq_var(ncid, varid, v.name, &v.type, &v.ndims, v.dimids, &v.natts));
        ncd_putc('\t');
        ncd_puts(type_name(v.type));
        ncd_putc(' ');
        put_name(v.name);
        if (v.ndims > 0)
            ncd_putc('(');
        for (d = 0; d < v.ndims; d++) {
            char dname[NC_MAX_NAME + 1];
            check(nc_inq_dimname(ncid, v.dimids[d], dname));
            put_name(dname);
            ncd_puts(d < v.ndims - 1 ? ", " : ")");
        }
        ncd_puts(" ;\n");
        for (ia = 0; ia < v.natts; ia++)
            print_att(ncid, varid, v.name, ia);
    }
    if (ngatts > 0 || opt.special)
        ncd_puts("\n// global attributes:\n");
    for (ia = 0; ia < ngatts; ia++)
        print_att(ncid, NC_GLOBAL, "", ia);
    if (opt.special) {
        print_hidden_atts(ncid);
        ncd_printf("\t\t:_Format = \"%s\" ;\n", kind_string(opt.fmt_kind));
    }
    if (!opt.header_only) {
        if (nvars > 0)
            ncd_puts("data:\n");
        for (varid = 0; varid < nvars; varid++) {
            size_t vdims[NC_MAX_VAR_DIMS + 1];
            int empty = 0;
            check(nc_inq_var(ncid, varid, v.name, &v.type, &v.ndims, v.dimids, &v.natts));
            if (!var_wanted(v.name))
                continue;
            if (opt.coord_vals && !is_coord_var(ncid, &v))
                continue;
            if (type_size(v.type) == 0)
                continue;
            for (d = 0; d < v.ndims; d++) {
                check(nc_inq_dimlen(ncid, v.dimids[d], &vdims[d]));
                if (vdims[d] == 0)
                    empty = 1;
            }
            if (empty)
                continue;
            print_var_data(ncid, varid, &v, vdims);
        }
    }
    ncd_puts("}\n");
    xfree(dimlens);
}

/* ---- NcML ------------------------------------------------------------------- */

static void
put_xml_text(const char *attname, const char *s, size_t len)
{
    size_t i;
    int nuls = 0;
    while (len && s[len - 1] == '\0')
        len--;
    ncd_putc('"');
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': ncd_puts("&quot;"); break;
        case '<': ncd_puts("&lt;"); break;
        case '>': ncd_puts("&gt;"); break;
        case '&': ncd_puts("&amp;"); break;
        case '\n': ncd_puts("&#xA;"); break;
        case '\r': ncd_puts("&#xD;"); break;
        case '\t': ncd_puts("&#x9;"); break;
        case '\0':
            ncd_puts("&#0;");
            if (nuls++ == 0)
                fprintf(errf, "Attribute: '%s'; value contains nul characters; producing illegal xml\n", attname);
            break;
        default:
            if (c < 0x20 || c == 0x7f)
                ncd_printf("&#%d;", c);
            else
                ncd_putc((char)c);
        }
    }
    ncd_putc('"');
}


/* Upstream prints 64-bit NcML attribute values through a double; values
 * at 2^63 and beyond do not fit the cast, which on x86-64 yields what the
 * two functions below compute without undefined behaviour: LLONG_MIN, and
 * for unsigned values from 2^63 the same trick offset by 2^63 (so 2^64,
 * the double nearest UINT64_MAX, prints as 0). */
static long long
x86_ll(double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return LLONG_MIN;
    return (long long)d;
}

static unsigned long long
x86_ull(double d)
{
    if (!(d >= 9223372036854775808.0))
        return (unsigned long long)x86_ll(d);
    return (unsigned long long)x86_ll(d - 9223372036854775808.0) ^ 0x8000000000000000ULL;
}

static void
print_attx(int ncid, int varid, int ia)
{
    char name[NC_MAX_NAME + 1];
    nc_type type;
    size_t len, i;
    const char *ind = varid != NC_GLOBAL ? "  " : "";

    check(nc_inq_attname(ncid, varid, ia, name));
    if (varid == NC_GLOBAL && !strcmp(name, "_NCProperties"))
        return;
    check(nc_inq_att(ncid, varid, name, &type, &len));
    if (type == NC_CHAR) {
        char *s = xmalloc(len + 1);
        check(nc_get_att_text(ncid, varid, name, s));
        s[len] = '\0';
        ncd_printf("%s  <attribute name=\"%s\" value=", ind, name);
        put_xml_text(name, s, len);
        xfree(s);
    } else {
        double *d = xmalloc((len + 1) * sizeof(double));
        char buf[PRIM_LEN];
        nc_get_att_double(ncid, varid, name, d);
        ncd_printf("%s  <attribute name=\"%s\" type=\"%s\" value=\"", ind, name, type_name(type));
        for (i = 0; i < len; i++) {
            switch (type) {
            case NC_BYTE: case NC_SHORT: case NC_INT:
                ncd_printf("%d", (int)d[i]);
                break;
            case NC_UBYTE: case NC_USHORT: case NC_UINT:
                ncd_printf("%u", (unsigned int)d[i]);
                break;
            case NC_INT64:
                ncd_printf("%lld", x86_ll(d[i]));
                break;
            case NC_UINT64:
                ncd_printf("%llu", x86_ull(d[i]));
                break;
            case NC_FLOAT:
                ncd_fmt_g(buf, (float)d[i], float_digits, 1);
                ncd_puts(buf);
                break;
            default:
                ncd_fmt_g(buf, d[i], double_digits, 1);
                ncd_puts(buf);
                break;
            }
            if (i < len - 1)
                ncd_putc(' ');
        }
        ncd_putc('"');
        xfree(d);
    }
    ncd_puts(" />\n");
}

static void
do_ncdumpx(int ncid, const char *path)
{
    int ndims, nvars, ngatts, unlimid, d, varid, ia;
    size_t *dimlens;
    char (*dnames)[NC_MAX_NAME + 1];
    var_t v;

    ncd_printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<netcdf xmlns=\"https://www.unidata.ucar.edu/namespaces/netcdf/ncml-2.2\" location=\"%s\">\n", path);
    check(nc_inq(ncid, &ndims, &nvars, &ngatts, &unlimid));
    dimlens = xmalloc(sizeof(size_t) * (size_t)(ndims + 1));
    dnames = xmalloc(sizeof *dnames * (size_t)(ndims + 1));
    for (d = 0; d < ndims; d++) {
        check(nc_inq_dim(ncid, d, dnames[d], &dimlens[d]));
        if (d == unlimid)
            ncd_printf("  <dimension name=\"%s\" length=\"%d\" isUnlimited=\"true\" />\n", dnames[d], (int)dimlens[d]);
        else
            ncd_printf("  <dimension name=\"%s\" length=\"%d\" />\n", dnames[d], (int)dimlens[d]);
    }
    for (ia = 0; ia < ngatts; ia++)
        print_attx(ncid, NC_GLOBAL, ia);
    for (varid = 0; varid < nvars; varid++) {
        check(nc_inq_var(ncid, varid, v.name, &v.type, &v.ndims, v.dimids, &v.natts));
        ncd_printf("  <variable name=\"%s\"", v.name);
        if (v.ndims > 0) {
            ncd_puts(" shape=\"");
            for (d = 0; d < v.ndims; d++) {
                ncd_puts(dnames[v.dimids[d]]);
                if (d < v.ndims - 1)
                    ncd_putc(' ');
            }
            ncd_putc('"');
        }
        if (v.natts == 0) {
            int isrec = v.ndims > 0 && v.dimids[0] == unlimid;
            if (opt.header_only || !var_wanted(v.name)
                || (opt.coord_vals && !is_coord_var(ncid, &v))
                || (isrec && dimlens[unlimid] == 0)) {
                ncd_printf(" type=\"%s\" />\n", type_name(v.type));
                continue;
            }
        }
        ncd_printf(" type=\"%s\">\n", type_name(v.type));
        for (ia = 0; ia < v.natts; ia++)
            print_attx(ncid, varid, ia);
        ncd_puts("  </variable>\n");
    }
    ncd_puts("</netcdf>\n");
    xfree(dimlens);
    xfree(dnames);
}

/* ---- main ------------------------------------------------------------------ */

static char *
name_from_path(const char *path)
{
    const char *cp = strrchr(path, '/');
    char *s, *dot;
    cp = cp ? cp + 1 : path;
    s = xstrdup(cp);
    if ((dot = strrchr(s, '.')))
        *dot = '\0';
    return s;
}

static void
set_precision(const char *arg)
{
    char *p1 = NULL, *p2 = NULL;
    int fd = 7, dd = 15;
    if (arg && *arg && arg[0] != ',') {
        fd = (int)strtol(arg, &p1, 10);
        float_prec_set = 1;
    }
    if (fd < 1 || fd > 20)
        die("unreasonable value for float significant digits: %d", fd);
    if (p1 && *p1 == ',') {
        dd = (int)strtol(p1 + 1, &p2, 10);
        double_prec_set = 1;
        if (p2 == p1 + 1 || dd < 1 || dd > 20)
            die("unreasonable value for double significant digits: %d", dd);
    }
    float_digits = fd;
    double_digits = dd;
}

/* Deprecated -d: like -p but does not override C_format. */
static void
set_sigdigs(const char *arg)
{
    int fs = float_prec_set, ds = double_prec_set;
    set_precision(arg);
    float_prec_set = fs;
    double_prec_set = ds;
}

static void
make_list(char *arg, int *np, char ***lp)
{
    int n = 1, i = 0;
    char *cp, *tok, *save = NULL;
    for (cp = arg; *cp; cp++)
        if (*cp == ',')
            n++;
    *lp = xmalloc(sizeof(char *) * (size_t)n);
    for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        (*lp)[i++] = xstrdup(tok);
    *np = i;
}

static int cur_ncid = -1;            /* the open file, closed on any exit */

/* Everything a run allocated or opened, released; options back to their
 * defaults. */
static void
end_run(void)
{
    if (cur_ncid >= 0)
        nc_close(cur_ncid);
    cur_ncid = -1;
    xfree_all();
    bounds_list = NULL;
    memset(&opt, 0, sizeof opt);
    opt.lang = LANG_C;
    float_digits = 7;
    double_digits = 15;
    float_prec_set = double_prec_set = 0;
    max_line_len = 78;
    linep = 0;
    att_times_col = 0;
    ncd_out_close();
}

/* The tool proper; a fatal error longjmps out of it to ncdump_run. */
static int
dump_main(int argc, char *argv[])
{
    int c, stat, max_len = 80, nameopt = 0, status = EXIT_SUCCESS;
    char *path;

    if (argc <= 1) {
        usage();
        goto done;
    }
#ifdef __GLIBC__
    optind = 0;                      /* full re-initialisation of getopt */
#else
    optind = 1;
#endif
    opterr = (errf == stderr);
    while ((c = getopt(argc, argv, "b:cd:f:g:hikl:n:p:stv:xwFKL:X:")) != -1) {
        switch (c) {
        case 'h': opt.header_only = 1; break;
        case 'c': opt.coord_vals = 1; break;
        case 'n': opt.name = optarg; nameopt = 1; break;
        case 'b':
        case 'f':
            if (c == 'b') opt.brief = 1; else opt.full = 1;
            switch (tolower((unsigned char)optarg[0])) {
            case 'c': opt.lang = LANG_C; break;
            case 'f': opt.lang = LANG_F; break;
            default: die("invalid value for -%c option: %s", c, optarg);
            }
            break;
        case 'l':
            max_len = (int)strtol(optarg, NULL, 0);
            if (max_len < 10)
                die("unreasonably small line length specified: %d", max_len);
            break;
        case 'v': make_list(optarg, &opt.nlvars, &opt.lvars); break;
        case 'g': {
            char **g;
            int i;
            make_list(optarg, &opt.nlgrps, &g);
            if (opt.nlgrps == 0)
                opt.nlgrps = 1;
            for (i = 0; i < opt.nlgrps; i++)
                xfree(g[i]);
            xfree(g);
            break;
        }
        case 'd': set_sigdigs(optarg); break;
        case 'p': set_precision(optarg); break;
        case 'x': opt.xml = 1; break;
        case 'k': opt.kind = 1; break;
        case 'K': opt.kind_ext = 1; break;
        case 't': opt.string_times = 1; opt.iso_sep = 0; break;
        case 'i': opt.string_times = 1; opt.iso_sep = 1; break;
        case 's': opt.special = 1; break;
        case 'w': break;
        case 'F': break;
        case 'X':
            switch (tolower((unsigned char)optarg[0])) {
            case 'm': opt.inmemory = 1; break;
            case 'p': break;
            default: die("invalid value for -X option: %s", optarg);
            }
            break;
        case 'L': break;
        default:
            usage();
            status = EXIT_FAILURE;
            goto done;
        }
    }
    max_line_len = max_len - 2;
    argc -= optind;
    argv += optind;
    if (argc != 1) {
        usage();
        status = EXIT_FAILURE;
        goto done;
    }
    path = argv[0];
    if (!nameopt)
        opt.name = name_from_path(path);
    stat = nc_open(path, opt.inmemory ? (NC_DISKLESS | NC_NOWRITE) : NC_NOWRITE, &cur_ncid);
    if (stat != NC_NOERR) {
        cur_ncid = -1;
        die("%s: %s", path, nc_strerror(stat));
    }
    check(nc_inq_format(cur_ncid, &opt.fmt_kind));
    if (opt.kind) {
        ncd_printf("%s\n", kind_string(opt.fmt_kind));
    } else if (opt.kind_ext) {
        int fx, mode;
        check(nc_inq_format_extended(cur_ncid, &fx, &mode));
        if (fx == NC_FORMATX_NC3)
            ncd_printf("%s mode=%08x\n", (mode & NC_64BIT_DATA) ? "64-bit data"
                       : (mode & NC_64BIT_OFFSET) ? "64-bit offset" : "classic", mode);
        else if (fx == NC_FORMATX_NC_HDF5)
            ncd_printf("HDF5 mode=%08x\n", mode);
        else
            ncd_printf("unknown mode=%08x\n", mode);
    } else {
        int i, vid;
        for (i = 0; i < opt.nlvars; i++)
            if (nc_inq_varid(cur_ncid, opt.lvars[i], &vid) != NC_NOERR)
                die("%s: No such variable", opt.lvars[i]);
        if (opt.nlgrps > 0 && opt.fmt_kind != NC_FORMAT_NETCDF4) {
            status = EXIT_FAILURE;
            goto done;
        }
        if (opt.xml) {
            if (opt.fmt_kind == NC_FORMAT_NETCDF4)
                die("%s: NcML output (-x) currently only permitted for netCDF classic model", path);
            do_ncdumpx(cur_ncid, path);
        } else
            do_ncdump(cur_ncid);
    }
    stat = nc_close(cur_ncid);
    cur_ncid = -1;
    check(stat);
done:
    end_run();
    return status;
}

int
ncdump_run(int argc, char *argv[], FILE *out, FILE *err)
{
    errf = err ? err : stderr;
    progname = argv[0];
    end_run();
    ncd_out_set(out ? out : stdout);
    ncd_out_init();
    if (setjmp(fail_jmp)) {
        end_run();
        return EXIT_FAILURE;
    }
    return dump_main(argc, argv);
}
