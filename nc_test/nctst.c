/* nctst.c: implementation of the shared test harness (see nctst.h). */
#include "nctst.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

long nct_pass, nct_fail;
static long nct_printed;

unsigned char *
nct_slurp(const char *path, size_t *lenp)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long l = 0;
    if (f && fseek(f, 0, SEEK_END) == 0 && (l = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)l)) != NULL && fread(b, 1, (size_t)l, f) != (size_t)l) {
        free(b);
        b = NULL;
    }
    if (f)
        fclose(f);
    if (b)
        *lenp = (size_t)l;
    return b;
}

int
nct_write_file(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b, 1, len, f) == len;
    if (f && fclose(f))
        ok = 0;
    return ok;
}

void
nct_report(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    /* Keep a broken build from flooding the log: the count still grows. */
    if (nct_printed++ >= 60) return;
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int
nct_summary(const char *name)
{
    printf("%s: %ld passed, %ld failed\n", name, nct_pass, nct_fail);
    return nct_fail ? 1 : 0;
}

const nct_format nct_formats[3] = {
    {NC_CLOBBER, NC_FORMAT_CLASSIC, "CDF-1"},
    {NC_CLOBBER | NC_64BIT_OFFSET, NC_FORMAT_64BIT_OFFSET, "CDF-2"},
    {NC_CLOBBER | NC_64BIT_DATA, NC_FORMAT_64BIT_DATA, "CDF-5"},
};

/* The classic formats plus the netCDF-4 classic model, for the suites whose
 * expectations hold there too (format-aware where upstream differs). */
const nct_format nct_formats4[4] = {
    {NC_CLOBBER, NC_FORMAT_CLASSIC, "CDF-1"},
    {NC_CLOBBER | NC_64BIT_OFFSET, NC_FORMAT_64BIT_OFFSET, "CDF-2"},
    {NC_CLOBBER | NC_64BIT_DATA, NC_FORMAT_64BIT_DATA, "CDF-5"},
    {NC_CLOBBER | NC_NETCDF4 | NC_CLASSIC_MODEL, NC_FORMAT_NETCDF4_CLASSIC, "NC4-classic"},
};

int
nct_is_nc4(int cmode)
{
    return (cmode & NC_NETCDF4) != 0;
}

const nc_type nct_ext_types[11] = {
    NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE,
    NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64,
};

int
nct_format_ntypes(int cmode)
{
    return (cmode & NC_64BIT_DATA) ? 11 : 6;
}

const char *const nct_mem_name[M_NMEM] = {
    "text", "schar", "uchar", "short", "int", "long", "float", "double",
    "ubyte", "ushort", "uint", "longlong", "ulonglong",
};

const char *const nct_fam_name[F_NFAM] = {"var", "var1", "vara", "vars", "varm"};

nc_type
nct_mem_nctype(int m)
{
    switch (m) {
    case M_TEXT: return NC_CHAR;
    case M_SCHAR: return NC_BYTE;
    case M_UCHAR: return NC_UBYTE;
    case M_SHORT: return NC_SHORT;
    case M_INT: return NC_INT;
    case M_LONG: return sizeof(long) == sizeof(int) ? NC_INT : NC_INT64;
    case M_FLOAT: return NC_FLOAT;
    case M_DOUBLE: return NC_DOUBLE;
    case M_UBYTE: return NC_UBYTE;
    case M_USHORT: return NC_USHORT;
    case M_UINT: return NC_UINT;
    case M_LONGLONG: return NC_INT64;
    case M_ULONGLONG: return NC_UINT64;
    }
    return NC_NAT;
}

size_t
nct_type_size(nc_type t)
{
    switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_DOUBLE: case NC_INT64: case NC_UINT64: return 8;
    }
    return 0;
}

/* One wrapper per (family, memory type): X(enum, suffix, C type). */
#define NCT_MEMS(X)                                                         \
    X(M_TEXT, text, char) X(M_SCHAR, schar, signed char)                    \
    X(M_UCHAR, uchar, unsigned char) X(M_SHORT, short, short)               \
    X(M_INT, int, int) X(M_LONG, long, long) X(M_FLOAT, float, float)       \
    X(M_DOUBLE, double, double) X(M_UBYTE, ubyte, unsigned char)            \
    X(M_USHORT, ushort, unsigned short) X(M_UINT, uint, unsigned int)       \
    X(M_LONGLONG, longlong, long long) X(M_ULONGLONG, ulonglong, unsigned long long)

int
nct_put(int fam, int m, int ncid, int varid, const size_t *start, const size_t *count,
        const ptrdiff_t *stride, const ptrdiff_t *imap, const void *buf)
{
    if (m == M_NMEM) {
        switch (fam) {
        case F_VAR: return nc_put_var(ncid, varid, buf);
        case F_VAR1: return nc_put_var1(ncid, varid, start, buf);
        case F_VARA: return nc_put_vara(ncid, varid, start, count, buf);
        case F_VARS: return nc_put_vars(ncid, varid, start, count, stride, buf);
        case F_VARM: return nc_put_varm(ncid, varid, start, count, stride, imap, buf);
        }
        return -1;
    }
#define PUT_CASE(E, S, T)                                                   \
    case E:                                                                 \
        switch (fam) {                                                      \
        case F_VAR: return nc_put_var_##S(ncid, varid, (const T *)buf);     \
        case F_VAR1: return nc_put_var1_##S(ncid, varid, start, (const T *)buf); \
        case F_VARA: return nc_put_vara_##S(ncid, varid, start, count, (const T *)buf); \
        case F_VARS: return nc_put_vars_##S(ncid, varid, start, count, stride, (const T *)buf); \
        case F_VARM: return nc_put_varm_##S(ncid, varid, start, count, stride, imap, (const T *)buf); \
        }                                                                   \
        break;
    switch (m) { NCT_MEMS(PUT_CASE) }
    return -1;
}

int
nct_get(int fam, int m, int ncid, int varid, const size_t *start, const size_t *count,
        const ptrdiff_t *stride, const ptrdiff_t *imap, void *buf)
{
    if (m == M_NMEM) {
        switch (fam) {
        case F_VAR: return nc_get_var(ncid, varid, buf);
        case F_VAR1: return nc_get_var1(ncid, varid, start, buf);
        case F_VARA: return nc_get_vara(ncid, varid, start, count, buf);
        case F_VARS: return nc_get_vars(ncid, varid, start, count, stride, buf);
        case F_VARM: return nc_get_varm(ncid, varid, start, count, stride, imap, buf);
        }
        return -1;
    }
#define GET_CASE(E, S, T)                                                   \
    case E:                                                                 \
        switch (fam) {                                                      \
        case F_VAR: return nc_get_var_##S(ncid, varid, (T *)buf);           \
        case F_VAR1: return nc_get_var1_##S(ncid, varid, start, (T *)buf);  \
        case F_VARA: return nc_get_vara_##S(ncid, varid, start, count, (T *)buf); \
        case F_VARS: return nc_get_vars_##S(ncid, varid, start, count, stride, (T *)buf); \
        case F_VARM: return nc_get_varm_##S(ncid, varid, start, count, stride, imap, (T *)buf); \
        }                                                                   \
        break;
    switch (m) { NCT_MEMS(GET_CASE) }
    return -1;
}

long double
nct_ld_get(nc_type t, const void *buf, size_t i)
{
    switch (t) {
    case NC_BYTE: return ((const signed char *)buf)[i];
    case NC_CHAR: return ((const unsigned char *)buf)[i];
    case NC_UBYTE: return ((const unsigned char *)buf)[i];
    case NC_SHORT: return ((const short *)buf)[i];
    case NC_USHORT: return ((const unsigned short *)buf)[i];
    case NC_INT: return ((const int *)buf)[i];
    case NC_UINT: return ((const unsigned int *)buf)[i];
    case NC_FLOAT: return ((const float *)buf)[i];
    case NC_DOUBLE: return ((const double *)buf)[i];
    case NC_INT64: return ((const long long *)buf)[i];
    case NC_UINT64: return ((const unsigned long long *)buf)[i];
    }
    return 0;
}

void
nct_ld_put(nc_type t, void *buf, size_t i, long double v)
{
    switch (t) {
    case NC_BYTE: ((signed char *)buf)[i] = (signed char)v; break;
    case NC_CHAR: ((char *)buf)[i] = (char)(unsigned char)v; break;
    case NC_UBYTE: ((unsigned char *)buf)[i] = (unsigned char)v; break;
    case NC_SHORT: ((short *)buf)[i] = (short)v; break;
    case NC_USHORT: ((unsigned short *)buf)[i] = (unsigned short)v; break;
    case NC_INT: ((int *)buf)[i] = (int)v; break;
    case NC_UINT: ((unsigned int *)buf)[i] = (unsigned int)v; break;
    case NC_FLOAT: ((float *)buf)[i] = (float)v; break;
    case NC_DOUBLE: ((double *)buf)[i] = (double)v; break;
    case NC_INT64: ((long long *)buf)[i] = (long long)v; break;
    case NC_UINT64: ((unsigned long long *)buf)[i] = (unsigned long long)v; break;
    }
}

long double
nct_type_min(nc_type t)
{
    switch (t) {
    case NC_BYTE: return SCHAR_MIN;
    case NC_CHAR: case NC_UBYTE: case NC_USHORT: case NC_UINT: case NC_UINT64: return 0;
    case NC_SHORT: return SHRT_MIN;
    case NC_INT: return INT_MIN;
    case NC_FLOAT: return -FLT_MAX;
    case NC_DOUBLE: return -DBL_MAX;
    case NC_INT64: return LLONG_MIN;
    }
    return 0;
}

long double
nct_type_max(nc_type t)
{
    switch (t) {
    case NC_BYTE: return SCHAR_MAX;
    case NC_CHAR: case NC_UBYTE: return UCHAR_MAX;
    case NC_SHORT: return SHRT_MAX;
    case NC_USHORT: return USHRT_MAX;
    case NC_INT: return INT_MAX;
    case NC_UINT: return UINT_MAX;
    case NC_FLOAT: return FLT_MAX;
    case NC_DOUBLE: return DBL_MAX;
    case NC_INT64: return LLONG_MAX;
    case NC_UINT64: return ULLONG_MAX;
    }
    return 0;
}

long double
nct_default_fill(nc_type t)
{
    switch (t) {
    case NC_BYTE: return NC_FILL_BYTE;
    case NC_CHAR: return NC_FILL_CHAR;
    case NC_UBYTE: return NC_FILL_UBYTE;
    case NC_SHORT: return NC_FILL_SHORT;
    case NC_USHORT: return NC_FILL_USHORT;
    case NC_INT: return NC_FILL_INT;
    case NC_UINT: return NC_FILL_UINT;
    case NC_FLOAT: return NC_FILL_FLOAT;
    case NC_DOUBLE: return NC_FILL_DOUBLE;
    case NC_INT64: return NC_FILL_INT64;
    case NC_UINT64: return NC_FILL_UINT64;
    }
    return 0;
}

int
nct_convert(long double v, nc_type to, long double *out)
{
    if (isnan(v)) {
        if (to != NC_FLOAT && to != NC_DOUBLE) return 0;
        *out = v;
        return 1;
    }
    switch (to) {
    case NC_FLOAT:
        if (isinf(v)) { *out = v; return 1; }
        if (v > FLT_MAX || v < -FLT_MAX) return 0;
        *out = (float)v;
        return 1;
    case NC_DOUBLE:
        *out = (double)v;
        return 1;
    default:
        /* The range test applies to the value before truncation toward 0. */
        if (v < nct_type_min(to) || v > nct_type_max(to)) return 0;
        *out = truncl(v);
        return 1;
    }
}

int
nct_same(long double a, long double b)
{
    if (isnan(a) && isnan(b)) return 1;
    return a == b;
}
