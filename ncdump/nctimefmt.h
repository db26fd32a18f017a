/* nctimefmt.h: CF "units since base" time decoding for ncdump -t / -i.
 *
 * Reproduces the arithmetic of the calendar code ncdump has always used
 * (hours since 1970 as a double, month/season/year units moving whole
 * months, the mixed Julian/Gregorian "standard" calendar switching at
 * 1582-10-15), so decoded strings match upstream byte for byte. */
#ifndef NCTIMEFMT_H
#define NCTIMEFMT_H

#include <stddef.h>

/* Calendar kinds (bit sets, see nctimefmt.c). */
typedef struct nct_units {
    int cal;          /* calendar flags */
    int unit;         /* NCT_SECOND ... NCT_YEAR */
    long byear;       /* base time */
    int bmonth, bday;
    double bhour;
} nct_units;

/* Calendar of a variable from its "calendar" attribute text (may be NULL). */
int nct_calendar(const char *calstr, size_t len);

/* 1 if units text looks like "<unit> since <base>" with a known unit. */
int nct_valid_units(const char *units);

/* Parses units for calendar cal; returns 0 on success. */
int nct_parse(int cal, const char *units, nct_units *u);

/* Writes the ISO string for value into out (>= 64 bytes); separator is ' '
 * or 'T'.  Returns 0, or -1 if the time is invalid (out is then empty). */
int nct_format(const nct_units *u, double value, int separator, char *out);

#endif
