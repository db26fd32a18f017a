/* ncx.c: type conversion matrix and big-endian codec (contract in ncx.h,
 * rules in docs/conversion.md).
 *
 * Layout:
 *   1. the type list (X-macro) and per-type constants;
 *   2. one macro body per (source, destination) pair, instantiated for all
 *      100 numeric pairs, and the [src][dst] lookup table;
 *   3. byte swapping (a separate pass, fused block by block with 2);
 *   4. the public entry points.
 * Every converter is a plain loop with no calls; range checks are computed as
 * 0/1 values and collected per call, so the in-range path has no branches.  Values
 * are loaded and stored with memcpy so that callers' buffers need no alignment
 * and in-place use never breaks aliasing rules.
 */
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "ncx.h"

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NCX_HOST_BIG_ENDIAN 1
#elif defined(WORDS_BIGENDIAN)
#define NCX_HOST_BIG_ENDIAN 1
#else
#define NCX_HOST_BIG_ENDIAN 0
#endif

/* ---- 1. types ----------------------------------------------------------- */

/* X(tag, nc_type, C type, kind): kind I = integer, F = floating point.
 * The pair generator needs the list twice (a macro cannot expand inside
 * itself), so NCX_TYPES_B must stay a copy of NCX_TYPES_A. */
#define NCX_TYPES_A(X) \
    X(schar,  NC_BYTE,   signed char,        I) \
    X(uchar,  NC_UBYTE,  unsigned char,      I) \
    X(short,  NC_SHORT,  short,              I) \
    X(ushort, NC_USHORT, unsigned short,     I) \
    X(int,    NC_INT,    int,                I) \
    X(uint,   NC_UINT,   unsigned int,       I) \
    X(int64,  NC_INT64,  long long,          I) \
    X(uint64, NC_UINT64, unsigned long long, I) \
    X(float,  NC_FLOAT,  float,              F) \
    X(double, NC_DOUBLE, double,             F)
#define NCX_TYPES_B(X, ...) \
    X(__VA_ARGS__, schar,  NC_BYTE,   signed char,        I) \
    X(__VA_ARGS__, uchar,  NC_UBYTE,  unsigned char,      I) \
    X(__VA_ARGS__, short,  NC_SHORT,  short,              I) \
    X(__VA_ARGS__, ushort, NC_USHORT, unsigned short,     I) \
    X(__VA_ARGS__, int,    NC_INT,    int,                I) \
    X(__VA_ARGS__, uint,   NC_UINT,   unsigned int,       I) \
    X(__VA_ARGS__, int64,  NC_INT64,  long long,          I) \
    X(__VA_ARGS__, uint64, NC_UINT64, unsigned long long, I) \
    X(__VA_ARGS__, float,  NC_FLOAT,  float,              F) \
    X(__VA_ARGS__, double, NC_DOUBLE, double,             F)

/* Integer ranges: LO as long long, HI as unsigned long long, SIGNED 0/1. */
#define NCX_LO_schar  SCHAR_MIN
#define NCX_HI_schar  SCHAR_MAX
#define NCX_SG_schar  1
#define NCX_LO_uchar  0
#define NCX_HI_uchar  UCHAR_MAX
#define NCX_SG_uchar  0
#define NCX_LO_short  SHRT_MIN
#define NCX_HI_short  SHRT_MAX
#define NCX_SG_short  1
#define NCX_LO_ushort 0
#define NCX_HI_ushort USHRT_MAX
#define NCX_SG_ushort 0
#define NCX_LO_int    INT_MIN
#define NCX_HI_int    INT_MAX
#define NCX_SG_int    1
#define NCX_LO_uint   0
#define NCX_HI_uint   UINT_MAX
#define NCX_SG_uint   0
#define NCX_LO_int64  LLONG_MIN
#define NCX_HI_int64  LLONG_MAX
#define NCX_SG_int64  1
#define NCX_LO_uint64 0
#define NCX_HI_uint64 ULLONG_MAX
#define NCX_SG_uint64 0
/* Only the integer entries are used; these keep the pair macros uniform. */
#define NCX_LO_float  0
#define NCX_HI_float  0
#define NCX_SG_float  1
#define NCX_LO_double 0
#define NCX_HI_double 0
#define NCX_SG_double 1

/* Float -> integer value for elements that may not fit.  It reproduces what
 * the C cast does on x86-64 (which is what upstream stores): truncation
 * through a 32-bit conversion for types up to int, a 64-bit one for uint and
 * int64, and the unsigned 64-bit sequence for uint64; a conversion that
 * overflows (or NaN) yields the "integer indefinite" INT_MIN pattern.  The
 * operand is selected before the cast, so no out-of-range float->int cast is
 * ever executed and the select vectorizes. */
#define NCX_T32(d) ((int32_t)(((d) > -2147483649.0 && (d) < 2147483648.0) ? (d) : -2147483648.0))
#define NCX_T64(d) ((int64_t)(((d) >= -9223372036854775808.0 && (d) < 9223372036854775808.0) \
                              ? (d) : -9223372036854775808.0))
#define NCX_F2I_schar(d)  ((signed char)NCX_T32(d))
#define NCX_F2I_uchar(d)  ((unsigned char)NCX_T32(d))
#define NCX_F2I_short(d)  ((short)NCX_T32(d))
#define NCX_F2I_ushort(d) ((unsigned short)NCX_T32(d))
#define NCX_F2I_int(d)    ((int)NCX_T32(d))
#define NCX_F2I_uint(d)   ((unsigned int)NCX_T64(d))
#define NCX_F2I_int64(d)  ((long long)NCX_T64(d))
#define NCX_F2I_uint64(d) (!((d) >= 9223372036854775808.0) ? (unsigned long long)NCX_T64(d) \
        : ((unsigned long long)NCX_T64((d) - 9223372036854775808.0) ^ 0x8000000000000000ULL))
#define NCX_F2I_float(d)  0
#define NCX_F2I_double(d) 0

/* How out-of-range values are treated (see ncx.h). */
enum {
    NCX_CONVERT = 0,  /* memory -> memory: store the cast value */
    NCX_PUT = 1,      /* classic write: cast value, except schar->uint: fill */
    NCX_GET_KEEP = 2, /* classic read: float->int leaves dst, double->float clips */
    NCX_GET_FILL = 3  /* as GET_KEEP but float->int stores the fill (in place) */
};

/* One converter: n values src -> dst; returns 1 if any value was out of range.
 * fill: a native destination value, used by NCX_PUT and NCX_GET_FILL. */
typedef int (*ncx_cvt_fn)(const void *src, void *dst, size_t n, int mode, const void *fill);

/* ---- 2. the pair bodies ------------------------------------------------- */

/* Integer -> integer: compare in the wider signed or unsigned domain.  The
 * dead half of each test folds away per pair. */
#define NCX_BAD_II(S, D, v) \
    (NCX_SG_##S \
     ? (((long long)(v) < (long long)NCX_LO_##D) | \
        ((unsigned long long)NCX_HI_##D <= (unsigned long long)LLONG_MAX && \
         (long long)(v) > (long long)NCX_HI_##D)) \
     : ((unsigned long long)(v) > (unsigned long long)NCX_HI_##D))

#define NCX_CONV_I_I(S, D, ST, DT, v, r, bad, mode, fillv) \
    do { \
        bad = NCX_BAD_II(S, D, v); \
        r = (DT)(v); \
        if (NCX_IS_schar_##S && NCX_IS_uint_##D && mode == NCX_PUT && bad) \
            r = fillv; \
    } while (0)

#define NCX_CONV_I_F(S, D, ST, DT, v, r, bad, mode, fillv) \
    do { bad = 0; r = (DT)(v); (void)mode; (void)fillv; } while (0)

/* float <-> double.  double -> float: out of range beyond +-FLT_MAX (inf
 * included; the stored value is the IEEE rounding); the read path clips.
 * float -> double: upstream's write path calls an infinite float out of range. */
#define NCX_CONV_F_F(S, D, ST, DT, v, r, bad, mode, fillv) \
    do { \
        (void)fillv; \
        if (sizeof(DT) < sizeof(ST)) { \
            bad = ((v) > FLT_MAX) | ((v) < -FLT_MAX); \
            r = (DT)(v); \
            if (bad && mode >= NCX_GET_KEEP) \
                r = (DT)((v) > 0 ? FLT_MAX : -FLT_MAX); \
        } else { \
            bad = (sizeof(DT) > sizeof(ST) && mode == NCX_PUT) && \
                  (((v) > DBL_MAX) | ((v) < -DBL_MAX)); \
            r = (DT)(v); \
        } \
    } while (0)

/* float/double -> integer.  NaN compares false and so counts as in range.
 * 2^63 -> int64 and 2^64 -> uint64 (the rounded maxima) clamp without error. */
#define NCX_CONV_F_I(S, D, ST, DT, v, r, bad, mode, fillv) \
    do { \
        double d_ = (double)(v); \
        bad = (d_ > (double)NCX_HI_##D) | (d_ < (double)NCX_LO_##D); \
        r = NCX_F2I_##D(d_); \
        if ((NCX_IS_int64_##D || NCX_IS_uint64_##D) && d_ == (double)NCX_HI_##D) { \
            r = (DT)NCX_HI_##D; \
            bad = 0; \
        } \
        if (NCX_IS_uint64_##D && mode == NCX_CONVERT && d_ > 18446744073709551616.0) \
            r = (DT)0x8000000000000000ULL;   /* netCDF-4's value for overflow */ \
        if (bad && mode >= NCX_GET_KEEP) \
            r = fillv; \
    } while (0)

/* Only float -> integer needs the old destination value (NCX_GET_KEEP). */
#define NCX_KEEPS_I_I 0
#define NCX_KEEPS_I_F 0
#define NCX_KEEPS_F_F 0
#define NCX_KEEPS_F_I 1

/* Tag tests usable in constant expressions: NCX_IS_<tag>_<tag2>. */
#define NCX_IS_schar_schar 1
#define NCX_IS_schar_uchar 0
#define NCX_IS_schar_short 0
#define NCX_IS_schar_ushort 0
#define NCX_IS_schar_int 0
#define NCX_IS_schar_uint 0
#define NCX_IS_schar_int64 0
#define NCX_IS_schar_uint64 0
#define NCX_IS_schar_float 0
#define NCX_IS_schar_double 0
#define NCX_IS_uint_schar 0
#define NCX_IS_uint_uchar 0
#define NCX_IS_uint_short 0
#define NCX_IS_uint_ushort 0
#define NCX_IS_uint_int 0
#define NCX_IS_uint_uint 1
#define NCX_IS_uint_int64 0
#define NCX_IS_uint_uint64 0
#define NCX_IS_uint_float 0
#define NCX_IS_uint_double 0
#define NCX_IS_int64_schar 0
#define NCX_IS_int64_uchar 0
#define NCX_IS_int64_short 0
#define NCX_IS_int64_ushort 0
#define NCX_IS_int64_int 0
#define NCX_IS_int64_uint 0
#define NCX_IS_int64_int64 1
#define NCX_IS_int64_uint64 0
#define NCX_IS_int64_float 0
#define NCX_IS_int64_double 0
#define NCX_IS_uint64_schar 0
#define NCX_IS_uint64_uchar 0
#define NCX_IS_uint64_short 0
#define NCX_IS_uint64_ushort 0
#define NCX_IS_uint64_int 0
#define NCX_IS_uint64_uint 0
#define NCX_IS_uint64_int64 0
#define NCX_IS_uint64_uint64 1
#define NCX_IS_uint64_float 0
#define NCX_IS_uint64_double 0

/* The per-pair body, inlined into one loop per mode so that the mode tests
 * fold away and each loop can vectorize.  In mode NCX_GET_KEEP the old
 * destination value is what an out-of-range element keeps. */
#if defined(__GNUC__)
#define NCX_INLINE static inline __attribute__((always_inline))
#else
#define NCX_INLINE static inline
#endif

#define NCX_GEN_PAIR(S, SNC, ST, SK, D, DNC, DT, DK) \
    NCX_INLINE int \
    ncx_body_##S##_##D(const unsigned char *sp, unsigned char *dp, size_t n, int mode, \
                       DT fillv) \
    { \
        int anybad = 0; \
        for (size_t i = 0; i < n; i++) { \
            ST v; \
            DT r; \
            int bad; \
            memcpy(&v, sp + i * sizeof(ST), sizeof v); \
            if (NCX_KEEPS_##SK##_##DK && mode == NCX_GET_KEEP) \
                memcpy(&fillv, dp + i * sizeof(DT), sizeof fillv); \
            NCX_CONV_##SK##_##DK(S, D, ST, DT, v, r, bad, mode, fillv); \
            memcpy(dp + i * sizeof(DT), &r, sizeof r); \
            if (bad)   /* this form, not |=, lets GCC vectorize the loop */ \
                anybad = 1; \
        } \
        return anybad; \
    } \
    static int \
    ncx_cvt_##S##_##D(const void *src, void *dst, size_t n, int mode, const void *fill) \
    { \
        DT fillv = 0; \
        if (fill != NULL) \
            memcpy(&fillv, fill, sizeof fillv); \
        switch (mode) { \
        case NCX_PUT: return ncx_body_##S##_##D(src, dst, n, NCX_PUT, fillv); \
        case NCX_GET_KEEP: return ncx_body_##S##_##D(src, dst, n, NCX_GET_KEEP, fillv); \
        case NCX_GET_FILL: return ncx_body_##S##_##D(src, dst, n, NCX_GET_FILL, fillv); \
        default: return ncx_body_##S##_##D(src, dst, n, NCX_CONVERT, fillv); \
        } \
    }

#if defined(__GNUC__)
#pragma GCC diagnostic push
/* Range tests against constants are always true/false for some pairs by design. */
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wbool-operation"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif

#define NCX_GEN_ROW(S, SNC, ST, SK) NCX_TYPES_B(NCX_GEN_PAIR, S, SNC, ST, SK)
NCX_TYPES_A(NCX_GEN_ROW)

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#define NCX_ENTRY(S, SNC, ST, SK, D, DNC, DT, DK) [DNC] = ncx_cvt_##S##_##D,
#define NCX_ROW(S, SNC, ST, SK) [SNC] = { NCX_TYPES_B(NCX_ENTRY, S, SNC, ST, SK) },
static const ncx_cvt_fn ncx_table[NC_UINT64 + 1][NC_UINT64 + 1] = {
    NCX_TYPES_A(NCX_ROW)
};

/* ---- 3. byte order ------------------------------------------------------ */

void
ncx_swap2(void *p, size_t n)
{
    unsigned char *cp = p;
    for (size_t i = 0; i < n; i++) {
        uint16_t v;
        memcpy(&v, cp + 2 * i, 2);
        v = __builtin_bswap16(v);
        memcpy(cp + 2 * i, &v, 2);
    }
}

void
ncx_swap4(void *p, size_t n)
{
    unsigned char *cp = p;
    for (size_t i = 0; i < n; i++) {
        uint32_t v;
        memcpy(&v, cp + 4 * i, 4);
        v = __builtin_bswap32(v);
        memcpy(cp + 4 * i, &v, 4);
    }
}

void
ncx_swap8(void *p, size_t n)
{
    unsigned char *cp = p;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, cp + 8 * i, 8);
        v = __builtin_bswap64(v);
        memcpy(cp + 8 * i, &v, 8);
    }
}

/* Distinct-buffer loops: restrict lets the compiler vectorize without
 * run-time overlap checks. */
#define NCX_SWAPCOPY(N, UT, BSWAP) \
    static void \
    ncx_swapcopy##N(unsigned char *restrict d, const unsigned char *restrict s, size_t n) \
    { \
        for (size_t i = 0; i < n; i++) { \
            UT v; \
            memcpy(&v, s + N * i, N); \
            v = BSWAP(v); \
            memcpy(d + N * i, &v, N); \
        } \
    }
NCX_SWAPCOPY(2, uint16_t, __builtin_bswap16)
NCX_SWAPCOPY(4, uint32_t, __builtin_bswap32)
NCX_SWAPCOPY(8, uint64_t, __builtin_bswap64)

void
ncx_swapcopy(void *dst, const void *src, size_t size, size_t n)
{
    if (dst == src) {
        switch (size) {
        case 2: ncx_swap2(dst, n); break;
        case 4: ncx_swap4(dst, n); break;
        case 8: ncx_swap8(dst, n); break;
        default: break;
        }
        return;
    }
    switch (size) {
    case 2: ncx_swapcopy2(dst, src, n); break;
    case 4: ncx_swapcopy4(dst, src, n); break;
    case 8: ncx_swapcopy8(dst, src, n); break;
    default: memmove(dst, src, size * n); break;
    }
}

/* Host order <-> big-endian (dst == src allowed). */
static void
ncx_becopy(void *dst, const void *src, size_t size, size_t n)
{
#if NCX_HOST_BIG_ENDIAN
    if (dst != src)
        memmove(dst, src, size * n);
#else
    ncx_swapcopy(dst, src, size, n);
#endif
}

/* ---- 4. entry points ---------------------------------------------------- */

/* Elements per block when decode/encode and conversion are fused: small
 * enough for the stack and L1, large enough to amortise the loop setup. */
#define NCX_BLOCK 512

static int
ncx_is_numeric(nc_type t)
{
    return t >= NC_BYTE && t <= NC_UINT64 && t != NC_CHAR;
}

size_t
ncx_len(nc_type xtype)
{
    switch (xtype) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_DOUBLE: case NC_INT64: case NC_UINT64: return 8;
    default: return 0;
    }
}

size_t
ncx_memlen(nc_type memtype)
{
    if (memtype == NC_STRING)
        return sizeof(char *);
    return ncx_len(memtype);   /* native sizes equal the external ones */
}

int
ncx_default_fill(nc_type type, void *value)
{
    union {
        signed char b; char c; short s; int i; float f; double d;
        unsigned char ub; unsigned short us; unsigned int ui;
        long long ll; unsigned long long ull; const char *str;
    } u;
    switch (type) {
    case NC_BYTE: u.b = NC_FILL_BYTE; break;
    case NC_CHAR: u.c = NC_FILL_CHAR; break;
    case NC_SHORT: u.s = NC_FILL_SHORT; break;
    case NC_INT: u.i = NC_FILL_INT; break;
    case NC_FLOAT: u.f = NC_FILL_FLOAT; break;
    case NC_DOUBLE: u.d = NC_FILL_DOUBLE; break;
    case NC_UBYTE: u.ub = NC_FILL_UBYTE; break;
    case NC_USHORT: u.us = NC_FILL_USHORT; break;
    case NC_UINT: u.ui = NC_FILL_UINT; break;
    case NC_INT64: u.ll = NC_FILL_INT64; break;
    case NC_UINT64: u.ull = NC_FILL_UINT64; break;
    case NC_STRING: u.str = ""; break;
    default: return NC_EBADTYPE;
    }
    memcpy(value, &u, ncx_memlen(type));
    return NC_NOERR;
}

/* Type checks common to the three conversions.  Returns NC_NOERR when both
 * are numeric, 1 when both are NC_CHAR (a copy), an error otherwise. */
static int
ncx_check_pair(nc_type a, nc_type b)
{
    if (a == NC_CHAR && b == NC_CHAR)
        return 1;
    if (ncx_is_numeric(a) && ncx_is_numeric(b))
        return NC_NOERR;
    if ((a == NC_CHAR && ncx_is_numeric(b)) || (b == NC_CHAR && ncx_is_numeric(a)))
        return NC_ECHAR;
    return NC_EBADTYPE;
}

int
ncx_convert(nc_type srctype, const void *src, nc_type dsttype, void *dst, size_t n)
{
    int stat;

    if (srctype == NC_STRING && dsttype == NC_STRING) {
        if (dst != src)
            memmove(dst, src, n * sizeof(char *));
        return NC_NOERR;
    }
    stat = ncx_check_pair(srctype, dsttype);
    if (stat == 1 || (stat == NC_NOERR && srctype == dsttype)) {
        if (dst != src)
            memmove(dst, src, n * ncx_len(srctype));
        return NC_NOERR;
    }
    if (stat != NC_NOERR)
        return stat;
    return ncx_table[srctype][dsttype](src, dst, n, NCX_CONVERT, NULL) ? NC_ERANGE : NC_NOERR;
}

/* Scratch block, aligned for any numeric type. */
typedef union {
    double d;
    long long ll;
    unsigned char bytes[NCX_BLOCK * 8];
} ncx_block;

int
ncx_getn(nc_type xtype, const void *xp, nc_type memtype, void *mp, size_t n)
{
    const unsigned char *xs = xp;
    unsigned char *ms = mp;
    size_t xlen, mlen;
    int stat, mode = NCX_GET_KEEP, bad = 0;
    unsigned char fill[8];
    ncx_block blk;
    ncx_cvt_fn fn;

    stat = ncx_check_pair(xtype, memtype);
    if (stat == 1) {
        if (mp != xp)
            memmove(mp, xp, n);
        return NC_NOERR;
    }
    if (stat != NC_NOERR)
        return stat;
    xlen = ncx_len(xtype);
    mlen = ncx_len(memtype);
    if (xtype == memtype) {
        ncx_becopy(mp, xp, xlen, n);   /* in place when mp == xp */
        return NC_NOERR;
    }
    /* In place the old destination values are gone: out-of-range elements
     * get the fill of the memory type instead of keeping them. */
    if ((uintptr_t)ms < (uintptr_t)xs + n * xlen && (uintptr_t)xs < (uintptr_t)ms + n * mlen) {
        mode = NCX_GET_FILL;
        (void)ncx_default_fill(memtype, fill);
    }
    fn = ncx_table[xtype][memtype];
    /* Forward block order is safe for both in-place layouts: the destination
     * of elements [0, i+B) ends at or before the source of element i+B. */
    for (size_t i = 0; i < n; i += NCX_BLOCK) {
        size_t k = n - i < NCX_BLOCK ? n - i : NCX_BLOCK;
        ncx_becopy(blk.bytes, xs + i * xlen, xlen, k);
        bad |= fn(blk.bytes, ms + i * mlen, k, mode, mode == NCX_GET_FILL ? fill : NULL);
    }
    return bad ? NC_ERANGE : NC_NOERR;
}

int
ncx_putn(nc_type memtype, const void *mp, nc_type xtype, void *xp, size_t n, const void *xfill)
{
    const unsigned char *ms = mp;
    unsigned char *xs = xp;
    size_t xlen, mlen;
    int stat, bad = 0;
    unsigned char fill[8];
    ncx_block blk;
    ncx_cvt_fn fn;

    stat = ncx_check_pair(memtype, xtype);
    if (stat == 1) {
        memmove(xp, mp, n);
        return NC_NOERR;
    }
    if (stat != NC_NOERR)
        return stat;
    xlen = ncx_len(xtype);
    mlen = ncx_len(memtype);
    if (xtype == memtype) {
        ncx_becopy(xp, mp, xlen, n);
        return NC_NOERR;
    }
    if (xfill != NULL)
        memcpy(fill, xfill, xlen);
    else
        (void)ncx_default_fill(xtype, fill);
    fn = ncx_table[memtype][xtype];
    for (size_t i = 0; i < n; i += NCX_BLOCK) {
        size_t k = n - i < NCX_BLOCK ? n - i : NCX_BLOCK;
        bad |= fn(ms + i * mlen, blk.bytes, k, NCX_PUT, fill);
        ncx_becopy(xs + i * xlen, blk.bytes, xlen, k);
    }
    return bad ? NC_ERANGE : NC_NOERR;
}
