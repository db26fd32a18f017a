/* tst_fmt_g.c: ncd_fmt_g must equal snprintf("%.*g") (and "%#.*g" with
 * upstream's zero trim) for random floats, doubles and short decimals. */
#include "ncdout.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t state = 88172645463325252ull;

static uint64_t
next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* Reference: printf, then drop zeros after the point for the '#' form. */
static void
reference(char *out, double v, int prec, int alt)
{
    char *cp, *ep, *q;
    snprintf(out, 128, alt ? "%#.*g" : "%.*g", prec, v);
    if (!alt)
        return;
    cp = out;
    if (*cp == '-')
        cp++;
    while ((*cp >= '0' && *cp <= '9') || *cp == '.')
        cp++;
    if (*--cp == '.')
        return;
    ep = cp + 1;
    while (*cp == '0')
        cp--;
    cp++;
    if (cp != ep) {
        for (q = cp; *ep;)
            *q++ = *ep++;
        *q = '\0';
    }
}

int
main(void)
{
    char a[128], b[128];
    long i, bad = 0, n = 0;

    for (i = 0; i < 3000000; i++) {
        double v;
        int prec, alt = (int)(i & 1);
        if (i % 3 == 0) {
            uint32_t u = (uint32_t)next();
            float f;
            memcpy(&f, &u, 4);
            v = f;
            prec = 7;
        } else if (i % 3 == 1) {
            uint64_t u = next();
            memcpy(&v, &u, 8);
            prec = 15;
        } else {
            v = (double)(next() % 100000) / (double)(1 + next() % 1000);
            prec = 1 + (int)(next() % 20);
            if (next() & 1)
                v = (float)v;
        }
        if (!isfinite(v))
            continue;
        n++;
        ncd_fmt_g(a, v, prec, alt);
        reference(b, v, prec, alt);
        if (strcmp(a, b)) {
            if (bad < 10)
                printf("%.17g prec=%d alt=%d ours=%s printf=%s\n", v, prec, alt, a, b);
            bad++;
        }
    }
    printf("%ld values, %ld mismatches\n", n, bad);
    return bad != 0;
}
