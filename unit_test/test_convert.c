/* test_convert.c: white-box test of the conversion module (libdispatch/ncx.c).
 *
 * Runs every source type x every destination type over boundary values
 * through ncx_convert, ncx_getn (separate buffers and both in-place layouts)
 * and ncx_putn (with and without xfill), plus the type errors, fills and byte
 * swapping.  Expected values come from the rules in docs/conversion.md
 * (measured on upstream netCDF-C 4.9.0), evaluated here independently in long
 * double arithmetic; big-endian bytes are built and decoded with shifts.
 * Prints "convert: N passed, M failed"; exits non-zero on any failure.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netcdf.h"
#include "ncx.h"

static int npass, nfail;

#define CHECK(cond, ...) \
    do { \
        if (cond) { \
            npass++; \
        } else { \
            nfail++; \
            if (nfail <= 40) { \
                printf("FAIL %s:%d: ", __FILE__, __LINE__); \
                printf(__VA_ARGS__); \
                printf("\n"); \
            } \
        } \
    } while (0)

static const nc_type numeric[] = {NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT,
                                  NC_UINT, NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE};
#define NNUM 10

static const char *
tname(nc_type t)
{
    static const char *names[] = {"nat", "byte", "char", "short", "int", "float", "double",
                                  "ubyte", "ushort", "uint", "int64", "uint64", "string"};
    return t >= 0 && t <= NC_STRING ? names[t] : "?";
}

static int
is_int(nc_type t)
{
    return t != NC_FLOAT && t != NC_DOUBLE;
}

static int
is_signed(nc_type t)
{
    return t == NC_BYTE || t == NC_SHORT || t == NC_INT || t == NC_INT64;
}

static int
tbits(nc_type t)
{
    switch (t) {
    case NC_BYTE: case NC_UBYTE: return 8;
    case NC_SHORT: case NC_USHORT: return 16;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 32;
    default: return 64;
    }
}

static long double
tmin(nc_type t)
{
    return is_signed(t) ? -ldexpl(1.0L, tbits(t) - 1) : 0.0L;
}

static long double
tmax(nc_type t)
{
    return is_signed(t) ? ldexpl(1.0L, tbits(t) - 1) - 1 : ldexpl(1.0L, tbits(t)) - 1;
}

/* ---- values: a long double and its native bytes ------------------------- */

typedef struct {
    long double v;            /* exact value (NaN/inf for floats) */
    unsigned char b[8];       /* native representation */
} val;

/* Store long double x (representable, or to be rounded for floats) as type t. */
static void
store(nc_type t, long double x, unsigned char *b)
{
    switch (t) {
    case NC_BYTE: { signed char c = (signed char)x; memcpy(b, &c, 1); break; }
    case NC_UBYTE: { unsigned char c = (unsigned char)x; memcpy(b, &c, 1); break; }
    case NC_SHORT: { short c = (short)x; memcpy(b, &c, 2); break; }
    case NC_USHORT: { unsigned short c = (unsigned short)x; memcpy(b, &c, 2); break; }
    case NC_INT: { int c = (int)x; memcpy(b, &c, 4); break; }
    case NC_UINT: { unsigned int c = (unsigned int)x; memcpy(b, &c, 4); break; }
    case NC_INT64: { long long c = (long long)x; memcpy(b, &c, 8); break; }
    case NC_UINT64: { unsigned long long c = (unsigned long long)x; memcpy(b, &c, 8); break; }
    case NC_FLOAT: { float c = (float)x; memcpy(b, &c, 4); break; }
    default: { double c = (double)x; memcpy(b, &c, 8); break; }
    }
}

static long double
load(nc_type t, const unsigned char *b)
{
    switch (t) {
    case NC_BYTE: { signed char c; memcpy(&c, b, 1); return c; }
    case NC_UBYTE: { unsigned char c; memcpy(&c, b, 1); return c; }
    case NC_SHORT: { short c; memcpy(&c, b, 2); return c; }
    case NC_USHORT: { unsigned short c; memcpy(&c, b, 2); return c; }
    case NC_INT: { int c; memcpy(&c, b, 4); return c; }
    case NC_UINT: { unsigned int c; memcpy(&c, b, 4); return c; }
    case NC_INT64: { long long c; memcpy(&c, b, 8); return c; }
    case NC_UINT64: { unsigned long long c; memcpy(&c, b, 8); return c; }
    case NC_FLOAT: { float c; memcpy(&c, b, 4); return c; }
    default: { double c; memcpy(&c, b, 8); return c; }
    }
}

/* Candidate values; each type keeps those it can hold. */
static long double cands[128];
static int ncands;

static void
init_cands(void)
{
    static const long double list[] = {
        0, 1, -1, 2, -2, 126, 127, 128, 129, -127, -128, -129, -130, 254, 255, 256, 257,
        32766, 32767, 32768, -32767, -32768, -32769, 65534, 65535, 65536,
        2147483646.0L, 2147483647.0L, 2147483648.0L, -2147483647.0L, -2147483648.0L,
        -2147483649.0L, 4294967294.0L, 4294967295.0L, 4294967296.0L,
        9223372036854775807.0L, 9223372036854775808.0L, -9223372036854775807.0L,
        -9223372036854775808.0L, 18446744073709551615.0L, 18446744073709551616.0L,
        9223372036854774784.0L, 18446744073709549568.0L, 9223372036854775296.0L,
        16777216.0L, 16777217.0L, 9007199254740993.0L,
        0.5L, -0.5L, 1.5L, -1.5L, 2.5L, 0.49L, 0.51L, -0.9L, 127.5L, 127.9L, -128.5L,
        -128.9L, 255.5L, 255.9L, 32767.5L, -32768.9L, 65535.9L, 2147483647.5L,
        -2147483648.9L, 4294967295.5L, -2147483649.5L, 3e9L, -3e9L, 1e19L, -1e19L,
        1e40L, -1e40L, 1e300L, 1e-300L, 1e-40L, 1e-46L, -1e-46L, 0.1L,
        3.4028234663852886e38L, 3.4028235677973366e38L, 3.4028236e38L,
        1.7976931348623157e308L, -1.7976931348623157e308L,
    };
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        cands[ncands++] = list[i];
    cands[ncands++] = NAN;
    cands[ncands++] = INFINITY;
    cands[ncands++] = -INFINITY;
    cands[ncands++] = -0.0L;
    cands[ncands++] = ldexpl(1.0L, -149);                 /* smallest float subnormal */
    cands[ncands++] = ldexpl(1.0L, -150);                 /* halfway to it: rounds to 0 */
    cands[ncands++] = (long double)FLT_MAX + ldexpl(1.0L, 103);  /* half ulp above FLT_MAX */
    cands[ncands++] = (long double)FLT_MAX + ldexpl(1.0L, 100);  /* rounds down to FLT_MAX */
}

/* The values of type t used as sources; returns their count. */
static int
values_of(nc_type t, val *out)
{
    int n = 0;
    for (int i = 0; i < ncands; i++) {
        long double x = cands[i];
        if (is_int(t)) {
            if (isnan(x) || isinf(x) || x != truncl(x) || x < tmin(t) || x > tmax(t))
                continue;
        } else if (t == NC_FLOAT) {
            if (!isnan(x) && !isinf(x) && fabsl(x) > 3.5e38L)
                continue;   /* would round to inf: covered by INFINITY itself */
        } else {
            if (!isnan(x) && !isinf(x) && fabsl(x) > DBL_MAX)
                continue;
        }
        store(t, x, out[n].b);
        out[n].v = load(t, out[n].b);   /* the value the type really holds */
        n++;
    }
    return n;
}

/* ---- the rules ------------------------------------------------------------ */

enum { M_CONVERT, M_PUT, M_GET_KEEP, M_GET_FILL };

/* Reduce integer x (|x| < 2^64+2^63, exact in long double) modulo 2^bits into
 * the range of t: what a C cast to an integer type does on two's complement. */
static long double
wrap(nc_type t, long double x)
{
    long double m = ldexpl(1.0L, tbits(t));
    long double r = fmodl(x, m);
    if (r < 0)
        r += m;
    if (is_signed(t) && r > tmax(t))
        r -= m;
    return r;
}

/* What x86-64 stores for (T)x with x floating, including the overflow cases:
 * types up to int convert through int32, uint and int64 through int64 and
 * uint64 through the unsigned sequence; overflow/NaN give INT_MIN. */
static long double
x86_f2i(nc_type t, long double x)
{
    long double two31 = ldexpl(1.0L, 31), two63 = ldexpl(1.0L, 63);
    if (t == NC_UINT64) {
        if (!(x >= two63)) {
            long double tr = truncl(x);
            if (isnan(x) || !(tr >= -two63 && tr < two63))
                return two63;
            return wrap(t, tr);
        } else {
            long double y = truncl(x - two63);
            if (!(y < two63))
                return 0;            /* INT64_MIN ^ sign bit */
            return y + two63;
        }
    }
    long double lim = (t == NC_UINT || t == NC_INT64) ? two63 : two31;
    long double tr = truncl(x);
    if (isnan(x) || !(tr >= -lim && tr < lim))
        return wrap(t, -lim);
    return wrap(t, tr);
}

/* Expected conversion of value x from type s to type d.  *old is the previous
 * destination value (for M_GET_KEEP), fill the fill (M_GET_FILL, M_PUT).
 * Returns 1 if the value is out of range. */
static int
expect(nc_type s, nc_type d, long double x, int mode, long double old, long double fill,
       long double *out)
{
    if (s == d) {
        *out = x;
        return 0;
    }
    if (is_int(s) && is_int(d)) {
        int bad = x < tmin(d) || x > tmax(d);
        *out = wrap(d, x);
        if (bad && mode == M_PUT && s == NC_BYTE && d == NC_UINT)
            *out = fill;
        return bad;
    }
    if (is_int(s)) {             /* to float/double: rounding, never an error */
        *out = d == NC_FLOAT ? (long double)(float)x : (long double)(double)x;
        return 0;
    }
    if (d == NC_DOUBLE) {        /* from float */
        *out = x;
        return mode == M_PUT && isinf(x);
    }
    if (d == NC_FLOAT) {         /* from double */
        int bad = !isnan(x) && fabsl(x) > FLT_MAX;
        *out = (float)x;
        if (bad && (mode == M_GET_KEEP || mode == M_GET_FILL))
            *out = x > 0 ? FLT_MAX : -FLT_MAX;
        return bad;
    }
    /* float/double -> integer.  Upstream compares in double, where the maxima
     * of int64/uint64 round up to 2^63/2^64; those two clamp without error. */
    long double hi = tmax(d);
    if (d == NC_INT64 || d == NC_UINT64)
        hi += 1;
    int bad = !isnan(x) && (x < tmin(d) || x > hi);
    if (!bad && !isnan(x)) {
        *out = truncl(x);
        if (*out > tmax(d))
            *out = tmax(d);
        if (*out == 0)
            *out = 0;            /* -0.0 -> 0 */
        return 0;
    }
    *out = x86_f2i(d, x);
    if (bad && mode == M_CONVERT && d == NC_UINT64 && x > ldexpl(1.0L, 64))
        *out = ldexpl(1.0L, 63);
    if (bad && mode == M_GET_KEEP)
        *out = old;
    if (bad && mode == M_GET_FILL)
        *out = fill;
    return bad;
}

static int
same_value(nc_type t, long double a, long double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (a != b)
        return 0;
    return is_int(t) || signbit(a) == signbit(b);
}

/* Big-endian encode/decode with shifts, independent of ncx. */
static void
to_be(nc_type t, const unsigned char *native, unsigned char *be)
{
    int sz = tbits(t) / 8;
    uint64_t bits = 0;
    switch (sz) {
    case 1: { uint8_t u; memcpy(&u, native, 1); bits = u; break; }
    case 2: { uint16_t u; memcpy(&u, native, 2); bits = u; break; }
    case 4: { uint32_t u; memcpy(&u, native, 4); bits = u; break; }
    default: memcpy(&bits, native, 8); break;
    }
    for (int k = 0; k < sz; k++)
        be[k] = (unsigned char)(bits >> (8 * (sz - 1 - k)));
}

static void
from_be(nc_type t, const unsigned char *be, unsigned char *native)
{
    int sz = tbits(t) / 8;
    uint64_t bits = 0;
    for (int k = 0; k < sz; k++)
        bits = (bits << 8) | be[k];
    switch (sz) {
    case 1: { uint8_t u = (uint8_t)bits; memcpy(native, &u, 1); break; }
    case 2: { uint16_t u = (uint16_t)bits; memcpy(native, &u, 2); break; }
    case 4: { uint32_t u = (uint32_t)bits; memcpy(native, &u, 4); break; }
    default: memcpy(native, &bits, 8); break;
    }
}

static long double
default_fill(nc_type t)
{
    switch (t) {
    case NC_BYTE: return NC_FILL_BYTE;
    case NC_UBYTE: return NC_FILL_UBYTE;
    case NC_SHORT: return NC_FILL_SHORT;
    case NC_USHORT: return NC_FILL_USHORT;
    case NC_INT: return NC_FILL_INT;
    case NC_UINT: return NC_FILL_UINT;
    case NC_INT64: return NC_FILL_INT64;
    case NC_UINT64: return NC_FILL_UINT64;
    case NC_FLOAT: return NC_FILL_FLOAT;
    default: return NC_FILL_DOUBLE;
    }
}

static void
fmt(nc_type t, long double x, char *buf)
{
    if (is_int(t))
        snprintf(buf, 64, "%.0Lf", x);
    else
        snprintf(buf, 64, "%.17Lg", x);
}

/* ---- the matrix ----------------------------------------------------------- */

#define NREP 3   /* repeat the value list so arrays cross the 512-element blocks */
#define MAXV (128 * 16)

static val srcv[MAXV];

static void
test_pair(nc_type s, nc_type d)
{
    int nv = values_of(s, srcv);
    size_t n = 0, ss = tbits(s) / 8, ds = tbits(d) / 8;
    unsigned char *src = NULL, *dst = NULL, *be = NULL, *buf = NULL;
    long double *exp_keep = NULL, *exp_fill = NULL, *exp_conv = NULL;
    long double *exp_put = NULL, *exp_put42 = NULL;
    int bad_any = 0, badput_any = 0;
    char b1[64], b2[64], b3[64];
    const long double keep = 90;   /* prefilled destination bytes are not used */
    unsigned char pre[8];
    long double preval;
    unsigned char fill42[8];

    /* Array: the value list repeated until well over one block. */
    while (n < 1200)
        n += nv;
    src = malloc(n * ss);
    dst = malloc(n * 8);
    be = malloc(n * 8);
    buf = malloc(n * 16);
    exp_keep = malloc(n * sizeof *exp_keep);
    exp_fill = malloc(n * sizeof *exp_fill);
    exp_conv = malloc(n * sizeof *exp_conv);
    exp_put = malloc(n * sizeof *exp_put);
    exp_put42 = malloc(n * sizeof *exp_put42);
    if (!src || !dst || !be || !buf || !exp_keep || !exp_fill || !exp_conv || !exp_put || !exp_put42) {
        printf("out of memory\n");
        exit(1);
    }
    memset(pre, 0x5a, sizeof pre);
    preval = load(d, pre);
    (void)keep;
    store(d, 42, fill42);

    /* Single values through every path, with expected results per rule. */
    for (size_t i = 0; i < n; i++) {
        const val *v = &srcv[i % nv];
        long double e, o;
        int eb, st;
        unsigned char one[8], xb[8], nat[8];

        memcpy(src + i * ss, v->b, ss);
        eb = expect(s, d, v->v, M_CONVERT, 0, 0, &exp_conv[i]);
        bad_any |= eb;
        expect(s, d, v->v, M_GET_KEEP, preval, 0, &exp_keep[i]);
        expect(s, d, v->v, M_GET_FILL, 0, default_fill(d), &exp_fill[i]);
        badput_any |= expect(s, d, v->v, M_PUT, 0, default_fill(d), &exp_put[i]);
        expect(s, d, v->v, M_PUT, 0, 42, &exp_put42[i]);
        if (i >= (size_t)nv)
            continue;   /* single-element checks once per value */

        /* ncx_convert */
        memcpy(one, pre, 8);
        st = ncx_convert(s, v->b, d, one, 1);
        o = load(d, one);
        fmt(s, v->v, b1); fmt(d, o, b2); fmt(d, exp_conv[i], b3);
        CHECK(st == (eb ? NC_ERANGE : NC_NOERR) && same_value(d, o, exp_conv[i]),
              "convert %s %s -> %s: got %s st %d, want %s st %d", tname(s), b1, tname(d), b2, st,
              b3, eb ? NC_ERANGE : 0);

        /* ncx_getn: source type s is the external type */
        to_be(s, v->b, xb);
        memcpy(one, pre, 8);
        e = exp_keep[i];
        eb = expect(s, d, v->v, M_GET_KEEP, preval, 0, &e);
        st = ncx_getn(s, xb, d, one, 1);
        o = load(d, one);
        fmt(d, o, b2); fmt(d, e, b3);
        CHECK(st == (eb ? NC_ERANGE : NC_NOERR) && same_value(d, o, e),
              "getn %s %s -> %s: got %s st %d, want %s st %d", tname(s), b1, tname(d), b2, st, b3,
              eb ? NC_ERANGE : 0);

        /* ncx_putn: source type s is the memory type, d external */
        memset(xb, 0xee, sizeof xb);
        eb = expect(s, d, v->v, M_PUT, 0, default_fill(d), &e);
        st = ncx_putn(s, v->b, d, xb, 1, NULL);
        from_be(d, xb, nat);
        o = load(d, nat);
        fmt(d, o, b2); fmt(d, e, b3);
        CHECK(st == (eb ? NC_ERANGE : NC_NOERR) && same_value(d, o, e),
              "putn %s %s -> %s: got %s st %d, want %s st %d", tname(s), b1, tname(d), b2, st, b3,
              eb ? NC_ERANGE : 0);
        memset(xb, 0xee, sizeof xb);
        expect(s, d, v->v, M_PUT, 0, 42, &e);
        st = ncx_putn(s, v->b, d, xb, 1, fill42);
        from_be(d, xb, nat);
        o = load(d, nat);
        fmt(d, o, b2); fmt(d, e, b3);
        CHECK(st == (eb ? NC_ERANGE : NC_NOERR) && same_value(d, o, e),
              "putn(xfill 42) %s %s -> %s: got %s, want %s", tname(s), b1, tname(d), b2, b3);
    }

    /* Whole arrays: status is the OR, every element converted. */
    {
        int st, ok;
        size_t i;

        for (i = 0; i < n; i++)
            memcpy(dst + i * ds, pre, ds);
        st = ncx_convert(s, src, d, dst, n);
        for (ok = 1, i = 0; i < n && ok; i++)
            ok = same_value(d, load(d, dst + i * ds), exp_conv[i]);
        CHECK(ok && st == (bad_any ? NC_ERANGE : NC_NOERR), "convert array %s -> %s (n %zu) elem %zu st %d",
              tname(s), tname(d), n, i - 1, st);

        /* getn, separate buffers */
        for (i = 0; i < n; i++) {
            to_be(s, src + i * ss, be + i * ss);
            memcpy(dst + i * ds, pre, ds);
        }
        st = ncx_getn(s, be, d, dst, n);
        for (ok = 1, i = 0; i < n && ok; i++)
            ok = same_value(d, load(d, dst + i * ds), exp_keep[i]);
        CHECK(ok && st == (bad_any ? NC_ERANGE : NC_NOERR), "getn array %s -> %s elem %zu st %d",
              tname(s), tname(d), i - 1, st);

        /* getn in place: head layout when the memory type is not wider,
         * tail layout otherwise; out-of-range float->int elements get the fill */
        {
            size_t off = ds > ss ? n * (ds - ss) : 0;
            memset(buf, 0x77, n * 16);
            memcpy(buf + off, be, n * ss);
            st = ncx_getn(s, buf + off, d, buf, n);
            for (ok = 1, i = 0; i < n && ok; i++)
                ok = same_value(d, load(d, buf + i * ds), s == d ? srcv[i % nv].v : exp_fill[i]);
            CHECK(ok && st == (bad_any ? NC_ERANGE : NC_NOERR), "getn in place %s -> %s elem %zu st %d",
                  tname(s), tname(d), i - 1, st);
        }

        /* putn, default fill and xfill */
        memset(be, 0xee, n * 8);
        st = ncx_putn(s, src, d, be, n, NULL);
        for (ok = 1, i = 0; i < n && ok; i++) {
            unsigned char nat[8];
            from_be(d, be + i * ds, nat);
            ok = same_value(d, load(d, nat), exp_put[i]);
        }
        CHECK(ok && st == (badput_any ? NC_ERANGE : NC_NOERR), "putn array %s -> %s elem %zu st %d",
              tname(s), tname(d), i - 1, st);
        st = ncx_putn(s, src, d, be, n, fill42);
        for (ok = 1, i = 0; i < n && ok; i++) {
            unsigned char nat[8];
            from_be(d, be + i * ds, nat);
            ok = same_value(d, load(d, nat), exp_put42[i]);
        }
        CHECK(ok && st == (badput_any ? NC_ERANGE : NC_NOERR), "putn xfill array %s -> %s elem %zu",
              tname(s), tname(d), i - 1);
    }

    free(src);
    free(dst);
    free(be);
    free(buf);
    free(exp_keep);
    free(exp_fill);
    free(exp_conv);
    free(exp_put);
    free(exp_put42);
}

/* ---- the rest ------------------------------------------------------------- */

static void
test_sizes_and_fills(void)
{
    static const struct { nc_type t; size_t x, m; } sz[] = {
        {NC_NAT, 0, 0}, {NC_BYTE, 1, 1}, {NC_CHAR, 1, 1}, {NC_SHORT, 2, 2}, {NC_INT, 4, 4},
        {NC_FLOAT, 4, 4}, {NC_DOUBLE, 8, 8}, {NC_UBYTE, 1, 1}, {NC_USHORT, 2, 2},
        {NC_UINT, 4, 4}, {NC_INT64, 8, 8}, {NC_UINT64, 8, 8}, {NC_STRING, 0, sizeof(char *)},
        {NC_VLEN, 0, 0}, {NC_COMPOUND, 0, 0}, {-1, 0, 0}, {100, 0, 0},
    };
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
        CHECK(ncx_len(sz[i].t) == sz[i].x, "ncx_len(%d) = %zu", sz[i].t, ncx_len(sz[i].t));
        CHECK(ncx_memlen(sz[i].t) == sz[i].m, "ncx_memlen(%d) = %zu", sz[i].t, ncx_memlen(sz[i].t));
    }
    for (int i = 0; i < NNUM; i++) {
        unsigned char b[8];
        CHECK(ncx_default_fill(numeric[i], b) == NC_NOERR &&
              same_value(numeric[i], load(numeric[i], b), default_fill(numeric[i])),
              "default fill of %s", tname(numeric[i]));
    }
    {
        char c = 'x';
        char *s = NULL;
        unsigned char b[8];
        CHECK(ncx_default_fill(NC_CHAR, &c) == NC_NOERR && c == 0, "fill char");
        CHECK(ncx_default_fill(NC_STRING, &s) == NC_NOERR && s != NULL && s[0] == 0, "fill string");
        CHECK(ncx_default_fill(NC_NAT, b) == NC_EBADTYPE, "fill NAT");
        CHECK(ncx_default_fill(NC_VLEN, b) == NC_EBADTYPE, "fill VLEN");
    }
}

static void
test_errors(void)
{
    unsigned char a[16] = {0}, b[16] = {0};
    char text[4] = "abc", out[4] = {0};
    static const nc_type bad[] = {NC_NAT, NC_VLEN, NC_OPAQUE, NC_ENUM, NC_COMPOUND, 32, -3};

    for (int i = 0; i < NNUM; i++) {
        nc_type t = numeric[i];
        CHECK(ncx_convert(NC_CHAR, a, t, b, 1) == NC_ECHAR, "convert char->%s", tname(t));
        CHECK(ncx_convert(t, a, NC_CHAR, b, 1) == NC_ECHAR, "convert %s->char", tname(t));
        CHECK(ncx_getn(NC_CHAR, a, t, b, 1) == NC_ECHAR, "getn char->%s", tname(t));
        CHECK(ncx_getn(t, a, NC_CHAR, b, 1) == NC_ECHAR, "getn %s->char", tname(t));
        CHECK(ncx_putn(NC_CHAR, a, t, b, 1, NULL) == NC_ECHAR, "putn char->%s", tname(t));
        CHECK(ncx_putn(t, a, NC_CHAR, b, 1, NULL) == NC_ECHAR, "putn %s->char", tname(t));
        CHECK(ncx_convert(NC_STRING, a, t, b, 1) == NC_EBADTYPE, "convert string->%s", tname(t));
        CHECK(ncx_convert(t, a, NC_STRING, b, 1) == NC_EBADTYPE, "convert %s->string", tname(t));
        CHECK(ncx_getn(NC_STRING, a, t, b, 1) == NC_EBADTYPE, "getn string->%s", tname(t));
        CHECK(ncx_putn(t, a, NC_STRING, b, 1, NULL) == NC_EBADTYPE, "putn %s->string", tname(t));
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            CHECK(ncx_convert(bad[k], a, t, b, 1) == NC_EBADTYPE, "convert %d->%s", bad[k], tname(t));
            CHECK(ncx_convert(t, a, bad[k], b, 1) == NC_EBADTYPE, "convert %s->%d", tname(t), bad[k]);
            CHECK(ncx_getn(bad[k], a, t, b, 1) == NC_EBADTYPE, "getn %d->%s", bad[k], tname(t));
            CHECK(ncx_putn(t, a, bad[k], b, 1, NULL) == NC_EBADTYPE, "putn %s->%d", tname(t), bad[k]);
        }
        /* n == 0 touches nothing */
        memset(b, 0x33, sizeof b);
        CHECK(ncx_convert(t, a, NC_DOUBLE, b, 0) == NC_NOERR && b[0] == 0x33, "n=0 %s", tname(t));
        CHECK(ncx_getn(t, a, NC_BYTE, b, 0) == NC_NOERR && b[0] == 0x33, "getn n=0 %s", tname(t));
        CHECK(ncx_putn(NC_INT, a, t, b, 0, NULL) == NC_NOERR && b[0] == 0x33, "putn n=0 %s", tname(t));
    }
    CHECK(ncx_getn(NC_STRING, a, NC_STRING, b, 1) == NC_EBADTYPE, "getn string->string");
    CHECK(ncx_putn(NC_STRING, a, NC_STRING, b, 1, NULL) == NC_EBADTYPE, "putn string->string");
    CHECK(ncx_convert(NC_CHAR, text, NC_CHAR, out, 4) == NC_NOERR && !strcmp(out, "abc"), "char copy");
    memset(out, 0, 4);
    CHECK(ncx_getn(NC_CHAR, text, NC_CHAR, out, 4) == NC_NOERR && !strcmp(out, "abc"), "getn char");
    memset(out, 0, 4);
    CHECK(ncx_putn(NC_CHAR, text, NC_CHAR, out, 4, NULL) == NC_NOERR && !strcmp(out, "abc"), "putn char");
    {
        char *strs[2] = {"one", "two"}, *outs[2] = {NULL, NULL};
        CHECK(ncx_convert(NC_STRING, strs, NC_STRING, outs, 2) == NC_NOERR && outs[0] == strs[0] &&
              outs[1] == strs[1], "string pointer copy");
    }
}

static void
test_swaps(void)
{
    unsigned char b[24], c[24];
    for (int i = 0; i < 24; i++)
        b[i] = (unsigned char)i;
    memcpy(c, b + 1, 16);          /* odd address: no alignment needed */
    ncx_swap2(c, 8);
    CHECK(c[0] == 2 && c[1] == 1 && c[14] == 16 && c[15] == 15, "swap2");
    memcpy(c, b + 1, 16);
    ncx_swap4(c, 4);
    CHECK(c[0] == 4 && c[3] == 1 && c[12] == 16 && c[15] == 13, "swap4");
    memcpy(c, b + 1, 16);
    ncx_swap8(c, 2);
    CHECK(c[0] == 8 && c[7] == 1 && c[8] == 16 && c[15] == 9, "swap8");
    ncx_swapcopy(c + 1, b, 4, 5);
    CHECK(c[1] == 3 && c[4] == 0 && c[17] == 19 && c[20] == 16, "swapcopy4");
    ncx_swapcopy(c, b, 1, 7);
    CHECK(memcmp(c, b, 7) == 0, "swapcopy1");
    memcpy(c, b, 24);
    ncx_swapcopy(c, c, 8, 3);
    CHECK(c[0] == 7 && c[7] == 0 && c[16] == 23, "swapcopy8 in place");
}

int
main(void)
{
    if (LDBL_MANT_DIG < 64) {
        printf("convert: long double too narrow for the reference model, skipped\n");
        return 77;
    }
    init_cands();
    test_sizes_and_fills();
    test_errors();
    test_swaps();
    for (int i = 0; i < NNUM; i++)
        for (int j = 0; j < NNUM; j++)
            test_pair(numeric[i], numeric[j]);
    printf("convert: %d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
