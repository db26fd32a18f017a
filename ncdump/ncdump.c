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
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcdf.h"
#include "netcdf_filter.h"
#include "ncdout.h"
#include "nctimefmt.h"
#include "nctools.h"
#include "dumptypes.h"

#define SLAB_BYTES ((size_t)4 << 20)   /* bytes of data read per call */
#define BAND_BYTES ((size_t)64 << 20)  /* largest read of a band of chunks */

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
    int nc4;                 /* a netCDF-4 kind (groups, specials) */
    int filter_all;          /* -F */
    int no_props;            /* -Xp */
    char **lgrps;            /* -g names */
} opt = {NULL, 0, 0, 0, 0, LANG_C, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL};

static const char *progname = "ncdump";
int float_digits = 7, double_digits = 15;
static int float_prec_set, double_prec_set;
static int max_line_len = 78;        /* -l value minus 2, as upstream */
static int linep;                    /* column in the data section */
static int indent;                   /* spaces of group nesting (2 a level) */
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

_Noreturn void
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

/* A library call that should not fail on an open, valid file (see
 * dumptypes.h); the location names the source file without its path. */
void
check_at(int stat, const char *file, int line)
{
    if (stat != NC_NOERR) {
        const char *base = strrchr(file, '/');
        ncd_out_flush();
        fprintf(errf, "%s\n", nc_strerror(stat));
        fprintf(errf, "Location: file %s; line %d\n", base ? base + 1 : file, line);
        fail_out();
    }
}

/* Heap blocks of one run, on a list so that a fatal error frees them. */
typedef struct block {
    struct block *prev, *next;
    max_align_t align[];             /* the caller's bytes */
} block;
static block *blocks;

void *
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

void
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

struct var_s;
static void lput(const char *s, size_t n);
static void annotate_brief(const struct var_s *v, const size_t *cor, const size_t *vdims);
static void annotate(const struct var_s *v, const size_t *cor, size_t iel);
static void put_text_row(const char *s, size_t len);

/* Group nesting: every header and data line of a subgroup starts with it. */
static void
indent_out(void)
{
    static const char sp[] = "                                                                ";
    int n = indent;
    while (n > 0) {
        int k = n < (int)sizeof sp - 1 ? n : (int)sizeof sp - 1;
        ncd_write(sp, (size_t)k);
        n -= k;
    }
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

void
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

size_t
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

const char *
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

/* ---- values the library allocated --------------------------------------- */

/* Strings and vlens read from the file hang off our buffers; the library
 * allocated them.  While such a buffer is live it is registered here, so
 * that a fatal error (which longjmps out) still releases them, before the
 * file is closed. */
enum { OWN_FILL, OWN_ROW, OWN_ATT, OWN_SLOTS };
static struct { int ncid; nc_type type; void *mem; size_t n; } owned[OWN_SLOTS];

static void
own(int slot, int ncid, nc_type type, void *mem, size_t n)
{
    owned[slot].ncid = ncid;
    owned[slot].type = type;
    owned[slot].mem = mem;
    owned[slot].n = n;
}

static void
release(int slot)
{
    if (owned[slot].mem)
        nc_reclaim_data(owned[slot].ncid, owned[slot].type, owned[slot].mem, owned[slot].n);
    owned[slot].mem = NULL;
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
            ncd_putc('\n');
            indent_out();
            ncd_puts("\t\t  ");
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
print_att(int ncid, int varid, const char *varname, int ia, int is_root)
{
    char name[NC_MAX_NAME + 1];
    nc_type type;
    size_t len, sz;
    void *vals;

    check(nc_inq_attname(ncid, varid, ia, name));
    if (is_root && varid == NC_GLOBAL && !strcmp(name, "_NCProperties"))
        return;
    check(nc_inq_att(ncid, varid, name, &type, &len));
    indent_out();
    ncd_puts("\t\t");
    if (type == NC_STRING || is_user_type(type)) {
        print_type_name(ncid, type);
        ncd_putc(' ');
    }
    put_name(varname);
    if (is_keyword(varname))
        ncd_putc(' ');
    ncd_putc(':');
    put_name(name);
    ncd_puts(" = ");
    if (len == 0)
        type = NC_CHAR;
    if (len > ((size_t)-1) / 64 - 1)
        die("out of memory\n");
    if (is_user_type(type)) {
        utype_t *u = find_utype(type);
        size_t i;
        dstr d = {NULL, 0, 0};
        vals = xmalloc((len + 1) * u->size);
        check(nc_get_att(ncid, varid, name, vals));
        own(OWN_ATT, ncid, type, vals, len);
        for (i = 0; i < len; i++) {
            const char *vp = (const char *)vals + i * u->size;
            if (u->cls == NC_ENUM) {
                char sym[NC_MAX_NAME + 1];
                check(nc_inq_enum_ident(ncid, type, int_value(u->base, vp), sym));
                put_name(sym);
                if (i + 1 < len)
                    ncd_puts(", ");
            } else if (u->cls == NC_OPAQUE) {
                d.len = 0;
                ds_value(&d, type, vp);
                ncd_write(d.s, d.len);
                if (i + 1 < len)
                    ncd_puts(", ");
            } else {
                /* vlen and compound values go through the data section's
                 * line wrapping, as upstream */
                d.len = 0;
                ds_value(&d, type, vp);
                if (i + 1 < len)
                    ds_cat(&d, ", ", 2);
                lput(d.s, d.len);
            }
        }
        release(OWN_ATT);
        xfree(d.s);
        xfree(vals);
        ncd_puts(" ;\n");
        return;
    }
    if (type == NC_STRING) {
        char **sv = xmalloc((len + 1) * sizeof(char *));
        size_t i;
        check(nc_get_att_string(ncid, varid, name, sv));
        own(OWN_ATT, ncid, NC_STRING, sv, len);
        for (i = 0; i < len; i++) {
            if (sv[i])
                put_att_text(sv[i], strlen(sv[i]));
            else
                ncd_puts("NIL");
            if (i + 1 < len)
                ncd_puts(", ");
        }
        release(OWN_ATT);
        xfree(sv);
        ncd_puts(" ;\n");
        return;
    }
    sz = type_size(type);
    if (sz == 0)
        die("pr_att_vals: bad type");
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

typedef struct var_s {
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
        ncd_putc('\n');
        indent_out();
        ncd_puts("    ");
        linep = 4 + indent;
    }
    ncd_write(s, n);
    if (n > 0 && s[n - 1] == '\n')
        linep = indent;
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
    ncd_puts(")\n");
    indent_out();
    ncd_puts("    ");
    linep = 4 + indent;
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

/* One block read of the fast path, possibly on a helper thread (the
 * library is called by one thread at a time: the main thread only
 * formats while a helper reads). */
typedef struct {
    int ncid, varid;
    size_t start[NC_MAX_VAR_DIMS + 1], count[NC_MAX_VAR_DIMS + 1];
    char *buf;
    int stat;
    pthread_t th;
} reader_t;

static void
reader_run(reader_t *r)
{
    r->stat = nc_get_vara(r->ncid, r->varid, r->start, r->count, r->buf);
}

static void *
reader_main(void *arg)
{
    reader_run(arg);
    return NULL;
}

/* Starts the read; returns 1 if on a thread, 0 if already done inline. */
static int
reader_start(reader_t *r)
{
    if (pthread_create(&r->th, NULL, reader_main, r) == 0)
        return 1;
    reader_run(r);
    return 0;
}

static void
reader_wait(reader_t *r, int threaded)
{
    if (threaded)
        pthread_join(r->th, NULL);
}

/* Fills rd's start/count with the block at idx and advances idx; returns
 * 0 when idx was already past the end.  Blocks: dims < k-1 step by 1,
 * dim k-1 by m, dims >= k whole. */
static int
next_block(int r, int k, size_t m, const size_t *vdims, size_t *idx, reader_t *rd)
{
    int j;
    if (idx[NC_MAX_VAR_DIMS])          /* end marker */
        return 0;
    for (j = 0; j < r; j++) {
        if (j < k - 1) { rd->start[j] = idx[j]; rd->count[j] = 1; }
        else if (j == k - 1) {
            rd->start[j] = idx[j];
            rd->count[j] = vdims[j] - idx[j] < m ? vdims[j] - idx[j] : m;
        } else { rd->start[j] = 0; rd->count[j] = vdims[j]; }
    }
    if (k == 0) {
        idx[NC_MAX_VAR_DIMS] = 1;
        return 1;
    }
    idx[k - 1] += rd->count[k - 1];
    j = k - 1;
    while (idx[j] >= vdims[j]) {
        idx[j] = 0;
        if (j == 0) {
            idx[NC_MAX_VAR_DIMS] = 1;
            break;
        }
        idx[j - 1]++;
        j--;
    }
    return 1;
}

/* The " name = " line that opens a variable's data. */
static void
data_start(const var_t *v)
{
    ncd_putc('\n');
    indent_out();
    ncd_putc(' ');
    put_name(v->name);
    if (v->ndims <= 1) {
        ncd_puts(" = ");
        linep = (int)strlen(v->name) + 4 + indent;
    } else {
        ncd_puts(" =\n  ");
        linep = 2 + indent;
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
    size_t ncols, elsz, slab_elems, inner, band;
    int r = v->ndims, j, k;
    char *buf;

    setup_printer(ncid, varid, v, &p, cfbuf);
    elsz = p.size;
    data_start(v);
    ncols = r > 0 ? vdims[r - 1] : 1;
    memset(cor, 0, sizeof cor);
    st.p = &p;
    st.vdims = vdims;
    st.cor = cor;
    st.ncols = ncols;
    st.col = 0;

    slab_elems = SLAB_BYTES / elsz;
    /* A chunked variable is read in whole bands of chunks along its first
     * dimension (when a band is not huge), so that no chunk is decoded
     * twice for two slabs. */
    band = 0;
    if (r > 1 && opt.nc4) {
        int storage = 0;
        size_t chunks[NC_MAX_VAR_DIMS + 1], rest = 1;
        if (nc_inq_var_chunking(ncid, varid, &storage, chunks) == NC_NOERR
            && storage == NC_CHUNKED && chunks[0] > 1) {
            for (j = 1; j < r; j++)
                rest = vdims[j] && rest > SIZE_MAX / vdims[j] ? SIZE_MAX : rest * vdims[j];
            if (rest <= (BAND_BYTES / elsz) / chunks[0]) {
                band = chunks[0];
                if (band * rest > slab_elems)
                    slab_elems = band * rest;
            }
        }
    }
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
        /* read blocks: dims < k-1 step by 1, dim k-1 by m, dims >= k whole;
         * with more than one block, the next block is read by a helper
         * thread while this one is formatted */
        size_t m = 1, bufn;
        size_t idx[NC_MAX_VAR_DIMS + 1];
        reader_t rd[2];
        int cur = 0, more;
        if (k > 0) {
            m = slab_elems / inner;
            if (k == 1 && band > 0 && m >= band)
                m -= m % band;
            if (m < 1) m = 1;
            if (m > vdims[k - 1]) m = vdims[k - 1];
        }
        bufn = (k > 0 ? m : 1) * inner * elsz;
        memset(idx, 0, sizeof idx);
        memset(rd, 0, sizeof rd);
        for (j = 0; j < 2; j++) {
            rd[j].ncid = ncid;
            rd[j].varid = varid;
        }
        rd[0].buf = xmalloc(bufn);
        more = next_block(r, k, m, vdims, idx, &rd[0]);
        reader_run(&rd[0]);
        check(rd[0].stat);
        while (more) {
            size_t nelem;
            int nxt = 1 - cur, threaded = 0;
            reader_t *c = &rd[cur];
            more = next_block(r, k, m, vdims, idx, &rd[nxt]);
            if (more) {
                if (!rd[nxt].buf)
                    rd[nxt].buf = xmalloc(bufn);
                threaded = reader_start(&rd[nxt]);
            }
            nelem = (k > 0 ? c->count[k - 1] : 1) * inner;
            if (p.text)
                emit_text_rows(&st, c->buf, nelem / ncols);
            else
                emit_values(&st, c->buf, nelem);
            if (more) {
                reader_wait(&rd[nxt], threaded);
                check(rd[nxt].stat);
            }
            cur = nxt;
        }
        xfree(rd[0].buf);
        xfree(rd[1].buf);
    }
}

/* ---- generic data: strings, user types, nested unlimited dimensions ------ */

/* Unlimited dimensions of the whole file (a variable's nested records are
 * braced when one of its inner dimensions is unlimited anywhere). */
static int *unlim_ids, n_unlim;

static void
collect_unlims(int ncid)
{
    int n, ng, i, *ids;
    if (nc_inq_unlimdims(ncid, &n, NULL) == NC_NOERR && n > 0) {
        int *nu = xmalloc(sizeof(int) * (size_t)(n_unlim + n));
        if (n_unlim)
            memcpy(nu, unlim_ids, sizeof(int) * (size_t)n_unlim);
        check(nc_inq_unlimdims(ncid, NULL, nu + n_unlim));
        xfree(unlim_ids);
        unlim_ids = nu;
        n_unlim += n;
    }
    if (!opt.nc4 || nc_inq_grps(ncid, &ng, NULL) != NC_NOERR || ng == 0)
        return;
    ids = xmalloc(sizeof(int) * (size_t)ng);
    check(nc_inq_grps(ncid, NULL, ids));
    for (i = 0; i < ng; i++)
        collect_unlims(ids[i]);
    xfree(ids);
}

static int
is_unlim(int dimid)
{
    int i;
    for (i = 0; i < n_unlim; i++)
        if (unlim_ids[i] == dimid)
            return 1;
    return 0;
}

/* State of one variable printed value by value (upstream's print_rows). */
typedef struct {
    int ncid, varid;
    const var_t *v;
    const size_t *vdims;
    size_t esz;
    int has_fill;
    void *fill;
    int text;                /* char rows as strings */
    int prim;                /* atomic non-string type: formatted by p */
    printer_t p;
    char *row;               /* one row of values */
    dstr d;
} gen_t;

static void
gen_rows(gen_t *g, int level, size_t *cor, size_t *edg, int marks)
{
    const var_t *v = g->v;
    int rank = v->ndims, i;
    size_t d0 = rank > 0 ? g->vdims[level] : 1, k;
    size_t ncols = rank > 0 ? g->vdims[rank - 1] : 1;

    if (level > 0 && is_unlim(v->dimids[level])) {
        lput("{", 1);
        marks++;
    }
    if (rank - level > 1) {
        size_t lcor[NC_MAX_VAR_DIMS + 1], ledg[NC_MAX_VAR_DIMS + 1];
        for (i = 0; i < rank; i++) {
            lcor[i] = cor[i];
            ledg[i] = edg[i];
        }
        lcor[level] = 0;
        ledg[level] = 1;
        for (k = 0; k + 1 < d0; k++) {
            gen_rows(g, level + 1, lcor, ledg, 0);
            lcor[level]++;
        }
        gen_rows(g, level + 1, lcor, ledg, marks);
    } else {
        int lastrow = 1;
        if (opt.brief && rank > 1 && ncols > 0)
            annotate_brief(v, cor, g->vdims);
        check(nc_get_vara(g->ncid, g->varid, cor, edg, g->row));
        if (v->type == NC_STRING || is_user_type(v->type))
            own(OWN_ROW, g->ncid, v->type, g->row, ncols);
        g->d.len = 0;
        ds_cat(&g->d, "", 0);
        if (g->text) {
            put_text_row(g->row, ncols);
        } else {
            for (k = 0; k < d0; k++) {
                const char *vp = g->row + k * g->esz;
                g->d.len = 0;
                if (g->prim) {
                    char s[PRIM_LEN + 4];
                    ds_cat(&g->d, s, (size_t)format_value(&g->p, vp, s));
                } else if (g->has_fill && values_equal(v->type, g->fill, vp))
                    ds_cat(&g->d, "_", 1);
                else
                    ds_value(&g->d, v->type, vp);
                if (k + 1 == d0)
                    break;
                if (opt.full) {
                    ncd_write(g->d.s, g->d.len);
                    ncd_puts(", ");
                    annotate(v, cor, k);
                } else {
                    ds_cat(&g->d, ", ", 2);
                    lput(g->d.s, g->d.len);
                }
            }
        }
        release(OWN_ROW);
        for (i = 0; i < rank - 1; i++)
            if (cor[i] != g->vdims[i] - 1) {
                lastrow = 0;
                break;
            }
        for (i = 0; i < marks; i++)
            ds_cat(&g->d, "}", 1);
        if (opt.full) {
            ncd_write(g->d.s, g->d.len);
            ncd_putc(lastrow ? ';' : ',');
            annotate(v, cor, d0 - 1);
        } else {
            lput(g->d.s, g->d.len);
            if (lastrow) {
                lput(" ;", 2);
                lput("\n", 1);
            } else {
                lput(",\n", 2);
                lput("  ", 2);
            }
        }
    }
}

/* Variables the fast path cannot print: strings, user types, and those
 * whose inner dimensions are unlimited (braced records). */
static int
needs_generic(const var_t *v)
{
    int d;
    if (v->type == NC_STRING || is_user_type(v->type))
        return 1;
    for (d = 1; d < v->ndims; d++)
        if (is_unlim(v->dimids[d]))
            return 1;
    return 0;
}

static void
print_var_generic(int ncid, int varid, const var_t *v, const size_t *vdims)
{
    gen_t g;
    size_t cor[NC_MAX_VAR_DIMS + 1], edg[NC_MAX_VAR_DIMS + 1], ncols;
    nc_type t;
    size_t len;
    int d;
    char cfbuf[128];

    memset(&g, 0, sizeof g);
    g.ncid = ncid;
    g.varid = varid;
    g.v = v;
    g.vdims = vdims;
    g.esz = elem_size(v->type);
    g.fill = xmalloc(g.esz + 8);
    memset(g.fill, 0, g.esz + 8);
    if (!nc_inq_att(ncid, varid, "_FillValue", &t, &len) && t == v->type && len == 1) {
        check(nc_get_att(ncid, varid, "_FillValue", g.fill));
        if (v->type == NC_STRING || is_user_type(v->type))
            own(OWN_FILL, ncid, v->type, g.fill, 1);
        g.has_fill = 1;
    } else if (v->type == NC_STRING) {
        *(char **)g.fill = NULL;
        g.has_fill = 2;      /* upstream's default: the empty string */
    }
    if (!is_user_type(v->type) && v->type != NC_STRING) {
        /* fill, time and C_format as in the fast path */
        setup_printer(ncid, varid, v, &g.p, cfbuf);
        g.prim = 1;
        g.text = g.p.text;
    }
    data_start(v);
    ncols = v->ndims > 0 ? vdims[v->ndims - 1] : 1;
    for (d = 0; d < v->ndims; d++) {
        cor[d] = 0;
        edg[d] = 1;
    }
    if (v->ndims > 0)
        edg[v->ndims - 1] = ncols;
    else {
        cor[0] = 0;
        edg[0] = 1;
    }
    g.row = xmalloc(ncols * g.esz + 1);
    if (g.has_fill == 2) {
        static char empty[] = "";
        *(char **)g.fill = empty;
    }
    gen_rows(&g, 0, cor, edg, 0);
    release(OWN_FILL);
    xfree(g.row);
    xfree(g.fill);
    xfree(g.d.s);
}

/* ---- CDL ------------------------------------------------------------------ */

/* The virtual attributes of -s for one variable of a netCDF-4 file, in
 * upstream's order. */
static void
print_specials(int ncid, int varid, const var_t *v)
{
    int storage = 0, i;
    size_t nf = 0, f;
    unsigned int *ids = NULL;
    int fletcher = 0, shuffle = 0, deflate = 0, level = 0;
    dstr other = {NULL, 0, 0};

#define SPECIAL_NAME(a) do { indent_out(); ncd_puts("\t\t"); put_name(v->name); ncd_puts(":" a " = "); } while (0)
    {
        size_t chunks[NC_MAX_VAR_DIMS + 1];
        check(nc_inq_var_chunking(ncid, varid, &storage, chunks));
        if (storage == NC_CONTIGUOUS) {
            SPECIAL_NAME("_Storage");
            ncd_puts("\"contiguous\" ;\n");
        } else if (storage == NC_COMPACT) {
            SPECIAL_NAME("_Storage");
            ncd_puts("\"compact\" ;\n");
        } else if (storage == NC_CHUNKED) {
            SPECIAL_NAME("_Storage");
            ncd_puts("\"chunked\" ;\n");
            if (v->ndims > 0) {
                SPECIAL_NAME("_ChunkSizes");
                for (i = 0; i < v->ndims; i++)
                    ncd_printf("%lu%s", (unsigned long)chunks[i], i + 1 < v->ndims ? ", " : " ;\n");
            }
        }
    }
    if (nc_inq_var_filter_ids(ncid, varid, &nf, NULL) == NC_NOERR && nf > 0) {
        ids = xmalloc(sizeof(unsigned int) * nf);
        check(nc_inq_var_filter_ids(ncid, varid, &nf, ids));
        for (f = 0; f < nf; f++) {
            size_t np = 0, k;
            unsigned int *params = NULL;
            check(nc_inq_var_filter_info(ncid, varid, ids[f], &np, NULL));
            if (np > 0) {
                params = xmalloc(sizeof(unsigned int) * np);
                check(nc_inq_var_filter_info(ncid, varid, ids[f], &np, params));
            }
            if (!opt.filter_all && ids[f] == 3)
                fletcher = 1;
            else if (!opt.filter_all && ids[f] == 2)
                shuffle = 1;
            else if (!opt.filter_all && ids[f] == 1) {
                deflate = 1;
                level = np > 0 ? (int)params[0] : 0;
            } else {
                char num[16];
                if (other.len)
                    ds_cat(&other, "|", 1);
                snprintf(num, sizeof num, "%u", ids[f]);
                ds_puts(&other, num);
                for (k = 0; k < np; k++) {
                    snprintf(num, sizeof num, ",%u", params[k]);
                    ds_puts(&other, num);
                }
            }
            xfree(params);
        }
        xfree(ids);
    }
    if (fletcher) {
        SPECIAL_NAME("_Fletcher32");
        ncd_puts("\"true\" ;\n");
    }
    if (shuffle) {
        SPECIAL_NAME("_Shuffle");
        ncd_puts("\"true\" ;\n");
    }
    if (deflate) {
        SPECIAL_NAME("_DeflateLevel");
        ncd_printf("%d ;\n", level);
    }
    if (other.len) {
        SPECIAL_NAME("_Filter");
        ncd_printf("\"%s\" ;\n", other.s);
    }
    xfree(other.s);
    /* NCZarr's codec chain as JSON text, after _Filter with or without -F,
     * as upstream prints it; other formats have no such attribute. */
    {
        nc_type ct;
        size_t clen = 0;
        if (nc_inq_att(ncid, varid, "_Codecs", &ct, &clen) == NC_NOERR && ct == NC_CHAR
            && clen > 0) {
            char *json = xmalloc(clen + 1);
            if (nc_get_att_text(ncid, varid, "_Codecs", json) == NC_NOERR) {
                json[clen] = '\0';
                SPECIAL_NAME("_Codecs");
                put_att_text(json, clen);
                ncd_puts(" ;\n");
            }
            xfree(json);
        }
    }
    if (!is_user_type(v->type) && v->type != NC_STRING && type_size(v->type) > 1) {
        int endian = 0;
        check(nc_inq_var_endian(ncid, varid, &endian));
        if (endian == NC_ENDIAN_LITTLE || endian == NC_ENDIAN_BIG) {
            SPECIAL_NAME("_Endianness");
            ncd_puts(endian == NC_ENDIAN_LITTLE ? "\"little\" ;\n" : "\"big\" ;\n");
        }
    }
    {
        int nofill = 0;
        check(nc_inq_var_fill(ncid, varid, &nofill, NULL));
        if (nofill) {
            SPECIAL_NAME("_NoFill");
            ncd_puts("\"true\" ;\n");
        }
    }
#undef SPECIAL_NAME
}

/* Dimension ids visible in ncid (with its ancestors' when parents). */
static int *
group_dimids(int ncid, int parents, int *np)
{
    int n, *ids, i;
    if (!opt.nc4) {
        check(nc_inq_ndims(ncid, &n));
        ids = xmalloc(sizeof(int) * (size_t)(n + 1));
        for (i = 0; i < n; i++)
            ids[i] = i;
    } else {
        check(nc_inq_dimids(ncid, &n, NULL, parents));
        ids = xmalloc(sizeof(int) * (size_t)(n + 1));
        check(nc_inq_dimids(ncid, NULL, ids, parents));
    }
    *np = n;
    return ids;
}

/* Coordinate variable as upstream decides it: one dimension, and a
 * visible dimension (any) has the variable's name. */
static int
is_coord_var(int ncid, const var_t *v)
{
    int n, d, *ids, found = 0;
    char dname[NC_MAX_NAME + 1];
    if (v->ndims != 1)
        return 0;
    ids = group_dimids(ncid, 1, &n);
    for (d = 0; d < n && !found; d++) {
        check(nc_inq_dimname(ncid, ids[d], dname));
        found = !strcmp(dname, v->name);
    }
    xfree(ids);
    return found;
}

/* Full name of group ncid ("/" for the root); caller frees. */
static char *
group_fullname(int ncid)
{
    size_t len;
    char *s;
    if (!opt.nc4)
        return xstrdup("/");
    check(nc_inq_grpname_full(ncid, &len, NULL));
    s = xmalloc(len + 1);
    check(nc_inq_grpname_full(ncid, NULL, s));
    s[len] = '\0';
    return s;
}

/* Variable lookup of -v in group ncid: "v", "g/v" (the group's full
 * name ends with "g") or "/g/v" (the group is exactly "/g"). */
static int
gvarid(int ncid, const char *name, int *varid)
{
    const char *slash = strrchr(name, '/');
    char *grp, *full;
    int stat, ok;
    size_t gl, fl;
    if (!name[0])
        return NC_ENOTVAR;
    if (!slash)
        return nc_inq_varid(ncid, name, varid);
    gl = (size_t)(slash - name);
    grp = xmalloc(gl + 1);
    memcpy(grp, name, gl);
    grp[gl] = '\0';
    full = group_fullname(ncid);
    fl = strlen(full);
    if (name[0] == '/')
        ok = !strcmp(full, grp);
    else
        ok = fl >= gl && !strcmp(full + fl - gl, grp);
    stat = ok ? nc_inq_varid(ncid, slash + 1, varid) : NC_ENOTVAR;
    xfree(grp);
    xfree(full);
    return stat;
}

static size_t
varname_count(int ncid, const char *name)
{
    size_t count = 0;
    int varid, ng, i, *ids;
    if (gvarid(ncid, name, &varid) == NC_NOERR)
        count++;
    if (!opt.nc4)
        return count;
    check(nc_inq_grps(ncid, &ng, NULL));
    if (ng > 0) {
        ids = xmalloc(sizeof(int) * (size_t)ng);
        check(nc_inq_grps(ncid, NULL, ids));
        for (i = 0; i < ng; i++)
            count += varname_count(ids[i], name);
        xfree(ids);
    }
    return count;
}

/* Groups whose data -g asks for. */
static int *grp_wanted_ids, n_grp_wanted;

static void
add_wanted(int id)
{
    int *n = xmalloc(sizeof(int) * (size_t)(n_grp_wanted + 1));
    if (n_grp_wanted)
        memcpy(n, grp_wanted_ids, sizeof(int) * (size_t)n_grp_wanted);
    n[n_grp_wanted++] = id;
    xfree(grp_wanted_ids);
    grp_wanted_ids = n;
}

static size_t
grpname_count(int ncid, const char *name)
{
    size_t count = 0;
    int gid, ng, i, *ids, stat;
    if (!name[0] || !strcmp(name, "/")) {
        add_wanted(ncid);
        return 1;
    }
    if (name[0] == '/') {
        stat = nc_inq_grp_full_ncid(ncid, name, &gid);
        if (stat == NC_NOERR) {
            add_wanted(gid);
            return 1;
        }
        if (stat != NC_ENOGRP)
            die("when looking up group %s: %s ", name, nc_strerror(stat));
        return 0;
    }
    if (nc_inq_grp_ncid(ncid, name, &gid) == NC_NOERR) {
        count++;
        add_wanted(gid);
    }
    check(nc_inq_grps(ncid, &ng, NULL));
    if (ng > 0) {
        ids = xmalloc(sizeof(int) * (size_t)ng);
        check(nc_inq_grps(ncid, NULL, ids));
        for (i = 0; i < ng; i++)
            count += grpname_count(ids[i], name);
        xfree(ids);
    }
    return count;
}

static int
group_wanted(int ncid)
{
    int i;
    if (opt.nlgrps == 0)
        return 1;
    for (i = 0; i < n_grp_wanted; i++)
        if (grp_wanted_ids[i] == ncid)
            return 1;
    return 0;
}

/* The group of the file that defines dimid, searched breadth first from
 * the root group of ncid; -1 when no group does. */
static int
dim_group(int ncid, int dimid)
{
    int root = ncid, parent, *queue, nq = 1, cap = 16, head, found = -1;
    while (nc_inq_grp_parent(root, &parent) == NC_NOERR)
        root = parent;
    queue = xmalloc(sizeof(int) * (size_t)cap);
    queue[0] = root;
    for (head = 0; head < nq && found < 0; head++) {
        int g = queue[head], n, ng, i, *ids;
        check(nc_inq_dimids(g, &n, NULL, 0));
        if (n > 0) {
            ids = xmalloc(sizeof(int) * (size_t)n);
            check(nc_inq_dimids(g, NULL, ids, 0));
            for (i = 0; i < n && found < 0; i++)
                if (ids[i] == dimid)
                    found = g;
            xfree(ids);
        }
        check(nc_inq_grps(g, &ng, NULL));
        if (ng > 0) {
            if (nq + ng > cap) {
                int *grown;
                while (nq + ng > cap)
                    cap *= 2;
                grown = xmalloc(sizeof(int) * (size_t)cap);
                memcpy(grown, queue, sizeof(int) * (size_t)nq);
                xfree(queue);
                queue = grown;
            }
            check(nc_inq_grps(g, NULL, queue + nq));
            nq += ng;
        }
    }
    xfree(queue);
    return found;
}

/* A variable's dimension name.  When the bare name does not find this
 * dimension from the variable's group (another dimension of that name is
 * nearer, or the dimension lives in a group that is not an ancestor, such
 * as a sibling's), the name is qualified with the full name of the group
 * that defines it, which is found anywhere in the file as upstream does. */
static void
print_dim_ref(int ncid, int dimid)
{
    char dname[NC_MAX_NAME + 1];
    check(nc_inq_dimname(ncid, dimid, dname));
    if (opt.nc4) {
        int test;
        if (nc_inq_dimid(ncid, dname, &test) != NC_NOERR || test != dimid) {
            int owner = dim_group(ncid, dimid);
            char *gname;
            if (owner < 0)
                check(NC_EBADDIM);
            gname = group_fullname(owner);
            put_name(gname);
            if (strcmp(gname, "/"))
                ncd_putc('/');
            xfree(gname);
        }
    }
    put_name(dname);
}

static void
print_type_decl(int ncid, nc_type tid)
{
    utype_t *u = find_utype(tid);
    size_t f;
    switch (u->cls) {
    case NC_VLEN:
        indent_out();
        print_type_name(ncid, u->base);
        ncd_puts("(*) ");
        print_type_name(ncid, tid);
        ncd_puts(" ;\n");
        break;
    case NC_OPAQUE:
        indent_out();
        ncd_printf("opaque(%d) ", (int)u->size);
        print_type_name(ncid, tid);
        ncd_puts(" ;\n");
        break;
    case NC_ENUM: {
        dstr d = {NULL, 0, 0};
        char buf[4 * NC_MAX_NAME + 8];
        indent_out();
        ds_puts(&d, type_name(u->base));
        ds_puts(&d, " enum ");
        escape_name(buf, u->name);
        ds_puts(&d, buf);
        ds_puts(&d, " {");
        lput(d.s, d.len);
        for (f = 0; f < u->nfields; f++) {
            char mname[NC_MAX_NAME + 1];
            long long val[2] = {0, 0};
            char num[32];
            check(nc_inq_enum_member(ncid, tid, (int)f, mname, val));
            d.len = 0;
            escape_name(buf, mname);
            ds_puts(&d, buf);
            snprintf(num, sizeof num, " = %lld", int_value(u->base, val));
            ds_puts(&d, num);
            ds_puts(&d, f + 1 < u->nfields ? ", " : "} ;\n");
            lput(d.s, d.len);
        }
        xfree(d.s);
        break;
    }
    case NC_COMPOUND:
        indent_out();
        ncd_puts("compound ");
        print_type_name(ncid, tid);
        ncd_puts(" {\n");
        for (f = 0; f < u->nfields; f++) {
            const field_t *fp = &u->fields[f];
            int d;
            indent_out();
            ncd_puts("  ");
            print_type_name(ncid, fp->type);
            ncd_putc(' ');
            put_name(fp->name);
            if (fp->rank > 0) {
                ncd_putc('(');
                for (d = 0; d < fp->rank; d++)
                    ncd_printf("%d%s", fp->sides[d], d + 1 < fp->rank ? ", " : ")");
            }
            ncd_puts(" ;\n");
        }
        indent_out();
        ncd_puts("}; // ");
        print_type_name(ncid, tid);
        ncd_putc('\n');
        break;
    default:
        die("Unknown class of user-defined type!");
    }
}

static void
do_group(int ncid, int is_root)
{
    int ndims, nvars, ngatts, unlimid, d, varid, ia, *dimids, i;
    int *vlist = NULL, nvl = 0;
    var_t v;

    if (opt.nlvars > 0) {
        vlist = xmalloc(sizeof(int) * (size_t)opt.nlvars);
        for (i = 0; i < opt.nlvars; i++)
            if (gvarid(ncid, opt.lvars[i], &varid) == NC_NOERR)
                vlist[nvl++] = varid;
    }
    if (opt.nc4) {
        int ntypes, *tids;
        check(nc_inq_typeids(ncid, &ntypes, NULL));
        if (ntypes > 0) {
            tids = xmalloc(sizeof(int) * (size_t)ntypes);
            check(nc_inq_typeids(ncid, NULL, tids));
            indent_out();
            ncd_puts("types:\n");
            indent += 2;
            for (i = 0; i < ntypes; i++)
                print_type_decl(ncid, tids[i]);
            indent -= 2;
            xfree(tids);
        }
    }
    check(nc_inq(ncid, &ndims, &nvars, &ngatts, &unlimid));
    dimids = group_dimids(ncid, 0, &ndims);
    if (ndims > 0) {
        indent_out();
        ncd_puts("dimensions:\n");
    }
    for (d = 0; d < ndims; d++) {
        char dname[NC_MAX_NAME + 1];
        size_t len;
        check(nc_inq_dim(ncid, dimids[d], dname, &len));
        indent_out();
        ncd_putc('\t');
        put_name(dname);
        if (opt.nc4 ? is_unlim(dimids[d]) : dimids[d] == unlimid)
            ncd_printf(" = UNLIMITED ; // (%lu currently)\n", (unsigned long)len);
        else
            ncd_printf(" = %lu ;\n", (unsigned long)len);
    }
    xfree(dimids);
    if (nvars > 0) {
        indent_out();
        ncd_puts("variables:\n");
    }
    for (varid = 0; varid < nvars; varid++) {
        check(nc_inq_varndims(ncid, varid, &v.ndims));
        if (v.ndims > NC_MAX_VAR_DIMS)
            die("too many dimensions");
        check(nc_inq_var(ncid, varid, v.name, &v.type, &v.ndims, v.dimids, &v.natts));
        indent_out();
        ncd_putc('\t');
        print_type_name(ncid, v.type);
        ncd_putc(' ');
        put_name(v.name);
        if (v.ndims > 0)
            ncd_putc('(');
        for (d = 0; d < v.ndims; d++) {
            print_dim_ref(ncid, v.dimids[d]);
            ncd_puts(d < v.ndims - 1 ? ", " : ")");
        }
        ncd_puts(" ;\n");
        for (ia = 0; ia < v.natts; ia++)
            print_att(ncid, varid, v.name, ia, is_root);
        if (opt.special && opt.nc4)
            print_specials(ncid, varid, &v);
    }
    if (ngatts > 0 || opt.special) {
        ncd_putc('\n');
        indent_out();
        ncd_puts(is_root ? "// global attributes:\n" : "// group attributes:\n");
    }
    for (ia = 0; ia < ngatts; ia++)
        print_att(ncid, NC_GLOBAL, "", ia, is_root);
    if (is_root && opt.special) {
        print_hidden_atts(ncid);
        ncd_printf("\t\t:_Format = \"%s\" ;\n", kind_string(opt.fmt_kind));
    }
    if (!opt.header_only && group_wanted(ncid)) {
        if (nvars > 0) {
            indent_out();
            ncd_puts("data:\n");
        }
        for (varid = 0; varid < nvars; varid++) {
            size_t vdims[NC_MAX_VAR_DIMS + 1];
            int empty = 0, want = 1;
            if (opt.nlvars > 0) {
                want = 0;
                for (i = 0; i < nvl; i++)
                    if (vlist[i] == varid)
                        want = 1;
                if (!want)
                    continue;
            }
            check(nc_inq_var(ncid, varid, v.name, &v.type, &v.ndims, v.dimids, &v.natts));
            if (opt.coord_vals && !is_coord_var(ncid, &v))
                continue;
            for (d = 0; d < v.ndims; d++) {
                check(nc_inq_dimlen(ncid, v.dimids[d], &vdims[d]));
                if (vdims[d] == 0)
                    empty = 1;
            }
            if (empty)
                continue;
            if (needs_generic(&v))
                print_var_generic(ncid, varid, &v, vdims);
            else if (type_size(v.type) != 0)
                print_var_data(ncid, varid, &v, vdims);
        }
    }
    xfree(vlist);
    if (opt.nc4) {
        int ng, *gids;
        check(nc_inq_grps(ncid, &ng, NULL));
        if (ng > 0) {
            gids = xmalloc(sizeof(int) * (size_t)ng);
            check(nc_inq_grps(ncid, NULL, gids));
            for (i = 0; i < ng; i++) {
                char gname[NC_MAX_NAME + 1];
                check(nc_inq_grpname(gids[i], gname));
                ncd_putc('\n');
                indent_out();
                ncd_puts("group: ");
                put_name(gname);
                ncd_puts(" {\n");
                indent += 2;
                do_group(gids[i], 0);
                indent_out();
                ncd_puts("} // group ");
                put_name(gname);
                ncd_putc('\n');
                indent -= 2;
            }
            xfree(gids);
        }
    }
}

static void
do_ncdump(int ncid)
{
    ncd_puts("netcdf ");
    put_name(opt.name);
    ncd_puts(" {\n");
    do_group(ncid, 1);
    ncd_puts("}\n");
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

/* Whether PATH is a URL: optional leading [key=value] groups, then
 * SCHEME:// with a scheme of letters, digits, '+', '-' or '.'. */
static const char *
url_start(const char *path)
{
    const char *p = path, *q;
    while (*p == '[') {
        const char *close = strchr(p, ']');
        if (!close)
            return NULL;
        p = close + 1;
    }
    if (!isalpha((unsigned char)*p))
        return NULL;
    for (q = p; isalnum((unsigned char)*q) || *q == '+' || *q == '-' || *q == '.'; q++)
        ;
    return strncmp(q, "://", 3) == 0 ? p : NULL;
}

/* The dataset name: the last component of the path without its extension.
 * For a URL, the path ends at the query ('?') or the fragment ('#'), so a
 * constraint or a client parameter is no part of the name. */
static char *
name_from_path(const char *path)
{
    const char *url = url_start(path);
    const char *end, *cp;
    char *s, *dot;
    size_t n;
    if (url) {
        end = url + strcspn(url, "?#");
        path = strstr(url, "://") + 3;
    } else {
        end = path + strlen(path);
    }
    for (cp = end; cp > path && cp[-1] != '/'; cp--)
        ;
    n = (size_t)(end - cp);
    s = xmalloc(n + 1);
    memcpy(s, cp, n);
    s[n] = '\0';
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
    int i;
    for (i = 0; i < OWN_SLOTS; i++)
        release(i);
    if (cur_ncid >= 0)
        nc_close(cur_ncid);
    cur_ncid = -1;
    xfree_all();
    bounds_list = NULL;
    types_reset();
    unlim_ids = NULL;
    n_unlim = 0;
    grp_wanted_ids = NULL;
    n_grp_wanted = 0;
    indent = 0;
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
            int i;
            for (i = 0; i < opt.nlgrps; i++)
                xfree(opt.lgrps[i]);
            xfree(opt.lgrps);
            make_list(optarg, &opt.nlgrps, &opt.lgrps);
            if (opt.nlgrps == 0) {   /* an empty list names the root group */
                xfree(opt.lgrps);
                opt.lgrps = xmalloc(sizeof(char *));
                opt.lgrps[0] = xstrdup("");
                opt.nlgrps = 1;
            }
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
        case 'F': opt.filter_all = 1; break;
        case 'X':
            switch (tolower((unsigned char)optarg[0])) {
            case 'm': opt.inmemory = 1; break;
            case 'p': opt.no_props = 1; break;
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
    opt.nc4 = opt.fmt_kind == NC_FORMAT_NETCDF4 || opt.fmt_kind == NC_FORMAT_NETCDF4_CLASSIC;
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
        int i;
        if (opt.nc4)
            init_types(cur_ncid);
        collect_unlims(cur_ncid);
        for (i = 0; i < opt.nlvars; i++)
            if (varname_count(cur_ncid, opt.lvars[i]) == 0)
                die("%s: No such variable", opt.lvars[i]);
        if (opt.nlgrps > 0 && opt.fmt_kind != NC_FORMAT_NETCDF4) {
            status = EXIT_FAILURE;
            goto done;
        }
        for (i = 0; i < opt.nlgrps; i++)
            if (grpname_count(cur_ncid, opt.lgrps[i]) == 0)
                die("%s: No such group", opt.lgrps[i]);
        if (opt.xml) {
            if (opt.fmt_kind == NC_FORMAT_NETCDF4)
                die("NcML output (-x) currently only permitted for netCDF classic model");
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
