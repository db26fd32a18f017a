/* ncf_quantize.c: BitGroom, GranularBitRound and BitRound, computed as
 * upstream's nc4_convert_type does after converting to the file type.
 *
 * Differences, where upstream is wrong: +-Inf are left alone (BitGroom's
 * bit-set turned them into NaN), and a mask that would need a shift by a
 * negative count or by the full width (undefined in C; seen at large NSD or
 * on subnormals in GranularBR) keeps the value unchanged instead.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "ncfilter.h"

#define MANT_FLT 23 /* explicit significand bits */
#define MANT_DBL 52

/* Computed as upstream does (a quotient of the two logs), so the roundings
 * match to the last bit. */
#define NCF_LN10 2.30258509299404568402
#define NCF_LN2 0.69314718055994530942
static const double bits_per_digit = NCF_LN10 / NCF_LN2;  /* log2(10) */
static const double digits_per_bit = NCF_LN2 / NCF_LN10;  /* log10(2) */

/* BitGroom/BitRound: explicit bits to keep, from nsd. */
static int
keep_bits(int mode, int nsd)
{
    if (mode == NC_QUANTIZE_BITGROOM)
        return (int)ceil(nsd * bits_per_digit) + 1;
    return nsd; /* BitRound: nsd is bits */
}

/* GranularBR: explicit bits to keep for value v (finite, nonzero). */
static int
gbr_keep_bits(double v, int nsd)
{
    int xpn, dgt, qnt;
    unsigned short keep;
    double mnt = frexp(v, &xpn);
    double mabs = fabs(mnt);
    double mlog = log10(mabs);
    dgt = (int)floor(xpn * digits_per_bit + mlog) + 1;
    qnt = (int)floor(bits_per_digit * (dgt - nsd));
    keep = mabs == 0.0 ? 0 : (unsigned short)abs((int)floor(xpn - bits_per_digit * mlog) - qnt);
    keep--; /* upstream's one-bit reduction, wrapping as its unsigned short does */
    return keep;
}

static int
check(int mode, int nsd, int maxnsd, int maxnsb)
{
    if (mode == NC_QUANTIZE_BITGROOM || mode == NC_QUANTIZE_GRANULARBR)
        return nsd >= 1 && nsd <= maxnsd;
    if (mode == NC_QUANTIZE_BITROUND)
        return nsd >= 1 && nsd <= maxnsb;
    return 0;
}

int
ncf_quantize_float(int mode, int nsd, const float *fillp, float *data, size_t n)
{
    float fill = fillp ? *fillp : NC_FILL_FLOAT;
    size_t i;
    if (mode == NC_NOQUANTIZE)
        return NC_NOERR;
    if (!check(mode, nsd, NC_QUANTIZE_MAX_FLOAT_NSD, NC_QUANTIZE_MAX_FLOAT_NSB))
        return NC_EINVAL;
    if (data == NULL && n > 0)
        return NC_EINVAL;
    if (mode == NC_QUANTIZE_GRANULARBR) {
        for (i = 0; i < n; i++) {
            float v = data[i];
            int zero;
            uint32_t u, zmask, omask, half;
            if (v == fill || v == 0.0f || !isfinite(v))
                continue;
            zero = MANT_FLT - gbr_keep_bits((double)v, nsd);
            if (zero <= 0 || zero >= 32)
                continue;
            zmask = ~(uint32_t)0 << zero;
            omask = ~zmask;
            half = omask & (zmask >> 1);
            memcpy(&u, &data[i], 4);
            u += half;
            u &= zmask;
            memcpy(&data[i], &u, 4);
        }
        return NC_NOERR;
    }
    {
        int zero = MANT_FLT - keep_bits(mode, nsd);
        uint32_t zmask, omask, half;
        if (zero <= 0)
            return NC_NOERR;
        zmask = ~(uint32_t)0 << zero;
        omask = ~zmask;
        half = omask & (zmask >> 1);
        for (i = 0; i < n; i++) {
            float v = data[i];
            uint32_t u;
            if (v == fill || v == 0.0f || !isfinite(v))
                continue;
            memcpy(&u, &data[i], 4);
            if (mode == NC_QUANTIZE_BITROUND) {
                u += half;
                u &= zmask;
            } else if (i % 2 == 0) {
                u &= zmask; /* BitGroom: shave even indices, set odd ones */
            } else {
                u |= omask;
            }
            memcpy(&data[i], &u, 4);
        }
    }
    return NC_NOERR;
}

int
ncf_quantize_double(int mode, int nsd, const double *fillp, double *data, size_t n)
{
    double fill = fillp ? *fillp : NC_FILL_DOUBLE;
    size_t i;
    if (mode == NC_NOQUANTIZE)
        return NC_NOERR;
    if (!check(mode, nsd, NC_QUANTIZE_MAX_DOUBLE_NSD, NC_QUANTIZE_MAX_DOUBLE_NSB))
        return NC_EINVAL;
    if (data == NULL && n > 0)
        return NC_EINVAL;
    if (mode == NC_QUANTIZE_GRANULARBR) {
        for (i = 0; i < n; i++) {
            double v = data[i];
            int zero;
            uint64_t u, zmask, omask, half;
            if (v == fill || v == 0.0 || !isfinite(v))
                continue;
            zero = MANT_DBL - gbr_keep_bits(v, nsd);
            if (zero <= 0 || zero >= 64)
                continue;
            zmask = ~(uint64_t)0 << zero;
            omask = ~zmask;
            half = omask & (zmask >> 1);
            memcpy(&u, &data[i], 8);
            u += half;
            u &= zmask;
            memcpy(&data[i], &u, 8);
        }
        return NC_NOERR;
    }
    {
        int zero = MANT_DBL - keep_bits(mode, nsd);
        uint64_t zmask, omask, half;
        if (zero <= 0)
            return NC_NOERR;
        zmask = ~(uint64_t)0 << zero;
        omask = ~zmask;
        half = omask & (zmask >> 1);
        for (i = 0; i < n; i++) {
            double v = data[i];
            uint64_t u;
            if (v == fill || v == 0.0 || !isfinite(v))
                continue;
            memcpy(&u, &data[i], 8);
            if (mode == NC_QUANTIZE_BITROUND) {
                u += half;
                u &= zmask;
            } else if (i % 2 == 0) {
                u &= zmask;
            } else {
                u |= omask;
            }
            memcpy(&data[i], &u, 8);
        }
    }
    return NC_NOERR;
}
