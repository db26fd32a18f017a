/* ncdout.c: output buffer and exact fast "%.*g" formatting for ncdump.
 *
 * The formatter scales |v| by a power of ten that is exact in binary
 * (10^0..10^22), keeps the product as an exact double-double (fma), and
 * rounds to `prec` digits.  When the discarded part is within 1e-9 of a
 * half (ties and near-ties) or the power would not be exact, it defers to
 * snprintf, so the result is always byte-identical to the C library's. */
#define _POSIX_C_SOURCE 200809L
#include "ncdout.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTCAP (1u << 20)

static char *obuf;          /* output buffer */
static size_t olen;         /* bytes pending in obuf */
static FILE *ofile;         /* destination; NULL means stdout */

#define OFILE (ofile ? ofile : stdout)

void
ncd_out_set(FILE *f)
{
    ofile = f;
}

void
ncd_out_init(void)
{
    if (!obuf) {
        obuf = malloc(OUTCAP);
        if (!obuf) {
            fputs("ncdump: out of memory\n", stderr);
            exit(EXIT_FAILURE);
        }
    }
    olen = 0;
}

void
ncd_out_flush(void)
{
    if (olen) {
        fwrite(obuf, 1, olen, OFILE);
        olen = 0;
    }
    fflush(OFILE);
}

void
ncd_out_close(void)
{
    ncd_out_flush();
    free(obuf);
    obuf = NULL;
    ofile = NULL;
}

void
ncd_write(const char *s, size_t n)
{
    if (olen + n > OUTCAP) {
        fwrite(obuf, 1, olen, OFILE);
        olen = 0;
        if (n > OUTCAP) {
            fwrite(s, 1, n, OFILE);
            return;
        }
    }
    if (n <= 16) {           /* data values: a call to memcpy costs more */
        char *d = obuf + olen;
        size_t i;
        for (i = 0; i < n; i++)
            d[i] = s[i];
    } else
        memcpy(obuf + olen, s, n);
    olen += n;
}

void
ncd_puts(const char *s)
{
    ncd_write(s, strlen(s));
}

void
ncd_putc(char c)
{
    if (olen + 1 > OUTCAP) {
        fwrite(obuf, 1, olen, OFILE);
        olen = 0;
    }
    obuf[olen++] = c;
}

void
ncd_printf(const char *fmt, ...)
{
    char small[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        ncd_write(small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (!big)
            return;
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        ncd_write(big, (size_t)n);
        free(big);
    }
}

int
ncd_fmt_ull(char *out, unsigned long long v)
{
    char tmp[24];
    int n = 0, i;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = '\0';
    return n;
}

int
ncd_fmt_ll(char *out, long long v)
{
    if (v < 0) {
        out[0] = '-';
        return 1 + ncd_fmt_ull(out + 1, 0ull - (unsigned long long)v);
    }
    return ncd_fmt_ull(out, (unsigned long long)v);
}

static const double pow10tab[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* Upstream's trim for "%#g" output: drop zeros after the point, keep it. */
static int
trim_alt(char *s)
{
    char *cp = s, *ep, *q;
    if (*cp == '-')
        cp++;
    while ((*cp >= '0' && *cp <= '9') || *cp == '.')
        cp++;
    if (cp == s || *--cp == '.')
        return (int)strlen(s);
    ep = cp + 1;
    while (*cp == '0')
        cp--;
    cp++;
    if (cp != ep) {
        q = cp;
        while (*ep)
            *q++ = *ep++;
        *q = '\0';
    }
    return (int)strlen(s);
}

static int
slow_g(char *out, double v, int prec, int alt)
{
    int n = snprintf(out, 64, alt ? "%#.*g" : "%.*g", prec, v);
    if (alt)
        n = trim_alt(out);
    return n;
}

/* Scales a (> 0) by 10^k into hi + lo; returns 0 if 10^|k| is not exact. */
static int
scale10(double a, int k, double *hi, double *lo)
{
    if (k >= 0) {
        double p;
        if (k > 22)
            return 0;
        p = pow10tab[k];
        *hi = a * p;
        *lo = fma(a, p, -*hi);
    } else {
        double p, q, r;
        if (-k > 22)
            return 0;
        p = pow10tab[-k];
        q = a / p;
        r = fma(-q, p, a);
        *hi = q;
        *lo = r / p;
    }
    return 1;
}

int
ncd_fmt_g(char *out, double v, int prec, int alt)
{
    char dig[24];
    char *p = out;
    double a, hi, lo, fl, frac, lim;
    unsigned long long N;
    int e2, E, i, nd;

    if (prec <= 0)
        prec = 1;
    if (prec > 15 || !isfinite(v) || v == 0.0)
        return slow_g(out, v, prec, alt);
    a = fabs(v);
    {
        /* binary exponent straight from the bits (frexp's, for normals) */
        uint64_t bits;
        memcpy(&bits, &a, sizeof bits);
        if ((bits >> 52) == 0)
            return slow_g(out, v, prec, alt);
        e2 = (int)(bits >> 52) - 1022;
    }
    E = (int)floor((double)(e2 - 1) * 0.30102999566398120);
    lim = pow10tab[prec];
    if (!scale10(a, prec - 1 - E, &hi, &lo))
        return slow_g(out, v, prec, alt);
    if (hi >= lim) {
        E++;
        if (!scale10(a, prec - 1 - E, &hi, &lo))
            return slow_g(out, v, prec, alt);
    }
    fl = hi < 9007199254740992.0 ? (double)(unsigned long long)hi : floor(hi);
    frac = (hi - fl) + lo;
    if (frac < 0) {
        fl -= 1;
        frac += 1;
    } else if (frac >= 1) {
        fl += 1;
        frac -= 1;
    }
    if (fabs(frac - 0.5) < 1e-9 || fl < pow10tab[prec - 1] * 0.5)
        return slow_g(out, v, prec, alt);
    N = (unsigned long long)fl + (frac > 0.5);
    if ((double)N >= lim) {
        N /= 10;
        E++;
    }
    if ((double)N < pow10tab[prec - 1])   /* estimate was off: be safe */
        return slow_g(out, v, prec, alt);
    for (i = prec - 1; i >= 0; i--) {
        dig[i] = (char)('0' + N % 10);
        N /= 10;
    }
    nd = prec;
    if (signbit(v))
        *p++ = '-';
    if (E < -4 || E >= prec) {
        int ee, last = nd;
        while (last > 1 && dig[last - 1] == '0')
            last--;
        *p++ = dig[0];
        if (last > 1 || alt) {
            *p++ = '.';
            for (i = 1; i < last; i++)
                *p++ = dig[i];
        }
        *p++ = 'e';
        ee = E;
        if (ee < 0) {
            *p++ = '-';
            ee = -ee;
        } else
            *p++ = '+';
        if (ee >= 100) {
            *p++ = (char)('0' + ee / 100);
            ee %= 100;
            *p++ = (char)('0' + ee / 10);
            *p++ = (char)('0' + ee % 10);
        } else {
            *p++ = (char)('0' + ee / 10);
            *p++ = (char)('0' + ee % 10);
        }
    } else if (E >= 0) {
        int last = nd;
        for (i = 0; i <= E; i++)
            *p++ = dig[i];
        while (last > E + 1 && dig[last - 1] == '0')
            last--;
        if (last > E + 1 || alt) {
            *p++ = '.';
            for (i = E + 1; i < last; i++)
                *p++ = dig[i];
        }
    } else {
        int last = nd;
        while (last > 0 && dig[last - 1] == '0')
            last--;
        *p++ = '0';
        *p++ = '.';
        for (i = 0; i < -E - 1; i++)
            *p++ = '0';
        for (i = 0; i < last; i++)
            *p++ = dig[i];
    }
    *p = '\0';
    return (int)(p - out);
}
