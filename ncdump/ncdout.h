/* ncdout.h: buffered output and number formatting shared by ncdump.
 *
 * Output goes through one large buffer flushed with fwrite, so the data
 * section costs no stdio call per value.  The number formatter produces the
 * same bytes as printf("%.*g") (and "%#.*g" followed by upstream's trailing
 * zero trim) using integer arithmetic, falling back to snprintf only where
 * rounding is too close to call. */
#ifndef NCDOUT_H
#define NCDOUT_H

#include <stddef.h>
#include <stdio.h>

/* Output buffer, written to stdout unless ncd_out_set named another
 * stream (until the next ncd_out_close). */
void ncd_out_set(FILE *f);
void ncd_out_init(void);
void ncd_out_flush(void);
void ncd_out_close(void);     /* flush and release the buffer */
void ncd_write(const char *s, size_t n);
void ncd_puts(const char *s);
void ncd_putc(char c);
void ncd_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Formats finite v like snprintf("%.*g", prec, v) into out (>= 64 bytes);
 * with alt != 0 like "%#.*g" then trailing zeros after the point removed
 * (the point itself kept).  Returns the length. */
int ncd_fmt_g(char *out, double v, int prec, int alt);

/* Decimal integers; return the length. */
int ncd_fmt_ll(char *out, long long v);
int ncd_fmt_ull(char *out, unsigned long long v);

#endif
