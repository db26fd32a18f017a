/* nctimefmt.c: decoding of CF time values for ncdump -t / -i.
 *
 * Times are carried as "epochal hours": a double counting hours from
 * 1970-01-01 in the calendar at hand.  Calendars are bit sets:
 *   CHRON  0x11     dated (year matters); climatological calendars lack it
 *   LEAP   0x100    has Gregorian/Julian leap years
 *   Y365   0x1000   365-day years with real month lengths
 *   Y366   0x2000   every year has 366 days
 *   JUL    0x10000  Julian leap rule (every 4th year)
 *   MIXED  0x20000  Julian before 1582-10-15, Gregorian after
 * A calendar with neither Y365 nor Y366 has 360-day years of 30-day months.
 * The sequence of floating-point operations follows the classic ncdump
 * implementation so that decoded strings are identical.
 * Dates are computed only while the day number fits an int, base years
 * within YEAR_LIMIT of the epoch and month offsets within as many years:
 * beyond that the reference's int arithmetic overflows (it prints garbage
 * or loops for ages), so ours reports an invalid time, printed as "".  Year loops skip
 * whole leap cycles, so a date millions of years out costs no more than a
 * few hundred iterations. */
#define _POSIX_C_SOURCE 200809L
#include "nctimefmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CHRON 0x11
#define BASE1970 0x10
#define LEAP 0x100
#define Y365 0x1000
#define Y366 0x2000
#define JUL 0x10000
#define MIXED 0x20000

#define CAL_STANDARD (CHRON | LEAP | Y365)
#define CAL_JULIAN (CHRON | LEAP | Y365 | JUL)
#define CAL_NOLEAP (CHRON | Y365)
#define CAL_360 (CHRON)
#define CAL_366 (CHRON | Y366)
#define CAL_CLIM (Y365)
#define CAL_MIXED (CAL_STANDARD | MIXED)

#define YEAR_LIMIT 5000000L          /* years from the epoch we compute */

enum { U_BAD = 0, U_MINUTE = 1, U_HOUR, U_DAY, U_WEEK, U_MONTH, U_SEASON, U_YEAR, U_SECOND };

typedef struct {
    long year;
    int month, day;
    double hour;
} comp_t;

static const comp_t ZA = {1582, 10, 5, 0.0};   /* last Julian day + 1 */
static const comp_t ZB = {1582, 10, 15, 0.0};  /* first Gregorian day */

static const int mdays[2][12] = {
    {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
    {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}};
static const int mcum[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

static int
is_leap(long y, int t)
{
    if (t & Y366)
        return 1;
    if (!(t & LEAP))
        return 0;
    if (y % 4)
        return 0;
    return (t & JUL) || (y % 100) || !(y % 400);
}

static int
year_days(long y, int t)
{
    if (t & Y366)
        return 366;
    if (t & Y365)
        return is_leap(y, t) ? 366 : 365;
    return is_leap(y, t) ? 366 : 360;
}

/* Years after which the leap rule of calendar t repeats. */
static long
cycle_years(int t)
{
    if (!(t & LEAP) || (t & Y366))
        return 1;
    return (t & JUL) ? 4 : 400;
}

/* Days in the cycle_years(t) years starting at any year. */
static long
cycle_days(int t)
{
    long y, n = 0;
    for (y = 0; y < cycle_years(t); y++)
        n += year_days(y, t);
    return n;
}

/* Days in the years [from, to), from <= to. */
static long
span_days(long from, long to, int t)
{
    long p = cycle_years(t), k = (to - from) / p, days = k * cycle_days(t), y;
    for (y = from + k * p; y < to; y++)
        days += year_days(y, t);
    return days;
}

/* Epochal hours of a date in calendar t (NaN beyond YEAR_LIMIT). */
static double
to_etime(int t, comp_t c)
{
    long year = c.year, base = 1970;
    long days = 0;
    int month = c.month, doy;

    if (!(t & 0x1))
        year = base = 0;
    if (year > base + YEAR_LIMIT || year < base - YEAR_LIMIT)
        return NAN;
    if (month < 1 || month > 12)
        month = 1;
    doy = c.day + ((is_leap(year, t) && month > 2) ? 1 : 0);
    doy += (t & (Y365 | Y366)) ? mcum[month - 1] : 30 * (month - 1);
    if (year > base)
        days = span_days(base, year, t);
    else if (year < base)
        days = -span_days(year, base, t);
    return (double)(days + doy - 1) * 24. + c.hour;
}

/* Date of epochal hours e in calendar t; month 0 (invalid) when e is not
 * finite or its day number does not fit an int (the reference's cast). */
static comp_t
from_etime(double e, int t)
{
    comp_t c = {0, 0, 0, 0.0};
    long y, base = (t & 0x1) ? 1970 : 0, cd = cycle_days(t), k;
    int doy, n, i, idoy;
    const int *ml;

    if (!(fabs(floor(e / 24.)) < 2147483646.0))
        return c;
    doy = (int)floor(e / 24.) + 1;
    c.hour = e - (double)(doy - 1) * 24.;
    if (c.hour >= 24.) {
        doy += 1;
        c.hour -= 24.;
    }
    if (doy > 0) {
        /* whole cycles first: the loop would pass through all their years */
        k = (doy - 1) / cd;
        doy -= (int)(k * cd);
        for (y = base + k * cycle_years(t);; y++) {
            n = year_days(y, t);
            if (doy <= n)
                break;
            doy -= n;
        }
    } else {
        k = -(long)doy / cd;
        doy += (int)(k * cd);
        for (y = base - 1 - k * cycle_years(t);; y--) {
            doy += year_days(y, t);
            if (doy > 0)
                break;
        }
    }
    c.year = (t & 0x1) ? y : 0;
    c.month = 0;
    c.day = 0;
    idoy = doy;
    if (idoy < 1)
        return c;
    ml = mdays[is_leap(c.year, t)];
    for (i = 0; i < 12; i++) {
        c.month++;
        c.day = idoy;
        idoy -= (t & (Y365 | Y366)) ? ml[c.month - 1] : 30;
        if (idoy <= 0)
            break;
    }
    return c;
}

static int
comp_cmp(comp_t a, comp_t b)
{
    if (a.year != b.year)
        return a.year < b.year ? -1 : 1;
    if (a.month != b.month)
        return a.month < b.month ? -1 : 1;
    if (a.day != b.day)
        return a.day < b.day ? -1 : 1;
    if (a.hour != b.hour)
        return a.hour < b.hour ? -1 : 1;
    return 0;
}

/* Parses a base date ("Y-M-D h:m:s" or, climatological, "M-D h:m:s"). */
static comp_t
parse_base(int cal, const char *s)
{
    comp_t c = {0, 1, 1, 0.0};
    long year;
    short month, day;
    int ihr, imin, n;
    double sec;

    if (cal & 0x1) {
        n = sscanf(s, "%ld-%hd-%hd %d:%d:%lf", &year, &month, &day, &ihr, &imin, &sec);
        if (n == EOF || n == 0)
            return c;
        c.year = year;
        if (n >= 2) c.month = month;
        if (n >= 3) c.day = day;
        if (n >= 4) {
            if (ihr < 0 || ihr > 23) return c;
            c.hour = (double)ihr;
        }
        if (n >= 5) {
            if (imin < 0 || imin > 59) return c;
            c.hour += (double)imin / 60.;
        }
        if (n >= 6) {
            if (sec < 0.0 || sec > 60.0) return c;
            c.hour += sec / 3600.;
        }
    } else {
        n = sscanf(s, "%hd-%hd %d:%d:%lf", &month, &day, &ihr, &imin, &sec);
        if (n == EOF || n == 0)
            return c;
        c.month = month;
        if (n >= 2) c.day = day;
        if (n >= 3) {
            if (ihr < 0 || ihr > 23) return c;
            c.hour = (double)ihr;
        }
        if (n >= 4) {
            if (imin < 0 || imin > 59) return c;
            c.hour += (double)imin / 60.;
        }
        if (n >= 5) {
            if (sec < 0.0 || sec > 60.0) return c;
            c.hour += sec / 3600.;
        }
    }
    return c;
}

static int
unit_of(const char *w)
{
    if (!strncasecmp(w, "sec", 3) || !strcasecmp(w, "s")) return U_SECOND;
    if (!strncasecmp(w, "min", 3) || !strcasecmp(w, "mn")) return U_MINUTE;
    if (!strncasecmp(w, "hour", 4) || !strcasecmp(w, "hr")) return U_HOUR;
    if (!strncasecmp(w, "day", 3) || !strcasecmp(w, "dy")) return U_DAY;
    if (!strncasecmp(w, "week", 4) || !strcasecmp(w, "wk")) return U_WEEK;
    if (!strncasecmp(w, "month", 5) || !strcasecmp(w, "mo")) return U_MONTH;
    if (!strncasecmp(w, "season", 6)) return U_SEASON;
    if (!strncasecmp(w, "year", 4) || !strcasecmp(w, "yr")) return U_YEAR;
    return U_BAD;
}

int
nct_valid_units(const char *units)
{
    char w[256], b1[256], b2[256];
    int n1, n2;

    if (strlen(units) >= 250)
        return 0;
    n1 = sscanf(units, "%s since %[^T]T%s", w, b1, b2);
    n2 = sscanf(units, "%s since %s %s", w, b1, b2);
    if (!(n1 > 1 || n2 > 1))
        return 0;
    /* The unit word is matched without regard to case ("DaYs", "HOURS"),
     * as the reference ncdump (4.9.0) does. */
    return unit_of(w) != U_BAD;
}

int
nct_calendar(const char *calstr, size_t len)
{
    static const struct { const char *name; int cal; } map[] = {
        {"gregorian", CAL_MIXED}, {"standard", CAL_MIXED},
        {"proleptic_gregorian", CAL_STANDARD},
        {"noleap", CAL_NOLEAP}, {"no_leap", CAL_NOLEAP}, {"365_day", CAL_NOLEAP},
        {"allleap", CAL_366}, {"all_leap", CAL_366}, {"366_day", CAL_366},
        {"360_day", CAL_360}, {"julian", CAL_JULIAN}, {"none", CAL_CLIM}};
    size_t i;

    if (!calstr || len == 0)
        return CAL_MIXED;
    /* As the reference ncdump: the attribute may be any prefix of a name,
     * in any case; the first match in table order wins ("3" is 365_day). */
    for (i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strncasecmp(calstr, map[i].name, len) == 0)
            return map[i].cal;
    return CAL_MIXED;
}

/* Cuts s at its first white space (within n bytes). */
static void
trim_word(char *s, size_t n)
{
    char *c = s;
    while (*c && c < s + n - 1 && !(*c == ' ' || (*c >= '\t' && *c <= '\r')))
        c++;
    *c = '\0';
}

int
nct_parse(int cal, const char *units, nct_units *u)
{
    char w[256], b1[256], b2[256], base[520];
    int n;
    comp_t c;

    if (strlen(units) >= 250)
        return 1;
    n = sscanf(units, "%s since %s %s", w, b1, b2);
    if (n != EOF && n >= 2 && strchr(b1, 'T'))
        n = sscanf(units, "%s since %[^T]T%s", w, b1, b2);
    if (n == EOF || n == 0)
        return 1;
    trim_word(w, 64);
    u->unit = unit_of(w);
    if (u->unit == U_BAD)
        return 1;
    if (u->unit == U_YEAR && !(cal & 0x1))
        return 1;
    if (n == 1) {
        strcpy(base, (cal & 0x1) ? "1979" : "1");
    } else if (n == 2) {
        trim_word(b1, 48);
        strcpy(base, b1);
    } else {
        trim_word(b1, 48);
        trim_word(b2, 48);
        snprintf(base, sizeof base, "%s %s", b1, b2);
    }
    c = parse_base(cal, base);
    u->cal = cal;
    u->byear = c.year;
    u->bmonth = c.month;
    u->bday = c.day;
    u->bhour = c.hour;
    return 0;
}

/* Hours from 1979-01-01 to c in calendar t (the "hours" relative time). */
static double
rel_hours(int t, comp_t c)
{
    comp_t b1979 = {1979, 1, 1, 0.0};
    return to_etime(t, c) - to_etime(t, b1979);
}

static comp_t
add_hours(comp_t c, double value, int t)
{
    comp_t b1979 = {1979, 1, 1, 0.0};
    double rel = rel_hours(t, c);
    rel += value;
    return from_etime(to_etime(t, b1979) + rel, t);
}

static comp_t
add_mixed(comp_t ct, double value)
{
    if (comp_cmp(ct, ZB) == -1) {
        double xj = rel_hours(CAL_JULIAN, ZA) - rel_hours(CAL_JULIAN, ct);
        if (value <= xj)
            return add_hours(ct, value, CAL_JULIAN);
        return add_hours(ZB, value - xj, CAL_STANDARD);
    } else {
        double xg = rel_hours(CAL_STANDARD, ZB) - rel_hours(CAL_STANDARD, ct);
        if (value > xg)
            return add_hours(ct, value, CAL_STANDARD);
        return add_hours(ZA, value - xg, CAL_JULIAN);
    }
}

static double
to_hours(double v, int unit)
{
    switch (unit) {
    case U_SECOND: return v / 3600.0;
    case U_MINUTE: return v / 60.0;
    case U_HOUR: return v;
    case U_DAY: return 24.0 * v;
    case U_WEEK: return 168.0 * v;
    default: return 0;
    }
}

static comp_t
rel_to_comp(const nct_units *u, double rt)
{
    comp_t base = {u->byear, u->bmonth, u->bday, u->bhour};
    int t = u->cal;
    int monthly = (u->unit == U_MONTH || u->unit == U_SEASON || u->unit == U_YEAR);
    double base_etm, delta = 0;
    long idelta = 0;

    if (t == CAL_MIXED) {
        if (!monthly)
            return add_mixed(base, to_hours(rt, u->unit));
        t = CAL_STANDARD;
    }
    switch (u->unit) {
    case U_SECOND: delta = rt / 3600.0; break;
    case U_MINUTE: delta = rt / 60.0; break;
    case U_HOUR: delta = rt; break;
    case U_DAY: delta = 24.0 * rt; break;
    case U_WEEK: delta = 168.0 * rt; break;
    case U_MONTH: delta = rt; break;
    case U_SEASON: delta = 3.0 * rt; break;
    case U_YEAR: delta = 12 * rt; break;
    default: break;
    }
    if (monthly) {
        comp_t bad = {0, 0, 0, 0.0};
        /* climatological calendars have no year: only the cast matters */
        if (!(fabs(delta) < ((t & 0x1) ? 12.0 * YEAR_LIMIT : 9.0e18)))
            return bad;
        idelta = (long)(delta + (rt < 0 ? -1.e-10 : 1.e-10));
    }
    base_etm = to_etime(t, base);
    if (monthly) {
        comp_t b, e;
        long dm, dy;
        if (rt == 0.0)
            return base;
        b = from_etime(base_etm, t);
        if (b.month == 0)
            return b;                   /* base date out of range */
        dm = idelta + b.month - 1;
        dy = dm >= 0 ? dm / 12 : (dm + 1) / 12 - 1;
        e.year = b.year + dy;
        e.month = (int)(dm - 12 * dy + 1);
        e.day = 1;
        e.hour = 0.0;
        return from_etime(to_etime(t, e), t);
    }
    return from_etime(base_etm + delta, t);
}

int
nct_format(const nct_units *u, double value, int sep, char *out)
{
    const double epssec = 0.5e-6, epsmin = epssec / 60., epshr = epsmin / 60.;
    comp_t c = rel_to_comp(u, value);
    double dtmp, sec;
    int ihr, imin, isec, nskip;

    out[0] = '\0';
    if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > 31 || c.hour < 0.0 || c.hour > 24.0)
        return -1;
    ihr = (int)(c.hour + epshr);
    dtmp = 60.0 * (c.hour - (double)ihr);
    imin = (int)(dtmp + epsmin);
    sec = 60.0 * (dtmp - (double)imin);
    isec = (int)(sec + epssec);
    if (sec - isec < epssec)
        nskip = isec ? 1 : imin ? 2 : ihr ? 3 : 4;
    else
        nskip = 0;
    if (u->cal & 0x1) {
        switch (nskip) {
        case 0: snprintf(out, 64, "%4.4ld-%2.2d-%2.2d%c%2.2d:%2.2d:%lf", c.year, c.month, c.day, sep, ihr, imin, sec); break;
        case 1: snprintf(out, 64, "%4.4ld-%2.2d-%2.2d%c%2.2d:%2.2d:%2.2d", c.year, c.month, c.day, sep, ihr, imin, isec); break;
        case 2: snprintf(out, 64, "%4.4ld-%2.2d-%2.2d%c%2.2d:%2.2d", c.year, c.month, c.day, sep, ihr, imin); break;
        case 3: snprintf(out, 64, "%4.4ld-%2.2d-%2.2d%c%2.2d", c.year, c.month, c.day, sep, ihr); break;
        default: snprintf(out, 64, "%4.4ld-%2.2d-%2.2d", c.year, c.month, c.day); break;
        }
    } else {
        switch (nskip) {
        case 0: snprintf(out, 64, "%2.2d-%2.2d%c%2.2d:%2.2d:%lf", c.month, c.day, sep, ihr, imin, sec); break;
        case 1: snprintf(out, 64, "%2.2d-%2.2d%c%2.2d:%2.2d:%2.2d", c.month, c.day, sep, ihr, imin, isec); break;
        case 2: snprintf(out, 64, "%2.2d-%2.2d%c%2.2d:%2.2d", c.month, c.day, sep, ihr, imin); break;
        case 3: snprintf(out, 64, "%2.2d-%2.2d%c%2.2d", c.month, c.day, sep, ihr); break;
        default: snprintf(out, 64, "%2.2d-%2.2d", c.month, c.day); break;
        }
    }
    return 0;
}
