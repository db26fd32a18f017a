/* dumptypes.c: user-defined types as ncdump sees them, and values of any
 * type (atomic, string, enum, opaque, vlen, compound) as CDL data text,
 * with upstream's escapes and number formats.  See dumptypes.h. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "netcdf.h"
#include "ncdout.h"
#include "dumptypes.h"

static utype_t *utypes;

void
types_reset(void)
{
    utypes = NULL;               /* the blocks are freed with the run's */
}


int
is_user_type(nc_type t)
{
    return t > NC_MAX_ATOMIC_TYPE;
}

utype_t *
find_utype(nc_type t)
{
    utype_t *u;
    for (u = utypes; u; u = u->next)
        if (u->tid == t)
            return u;
    die("%d is an invalid type id", t);
    return NULL;
}

/* Bytes of one value of any type in memory. */
size_t
elem_size(nc_type t)
{
    if (t == NC_STRING)
        return sizeof(char *);
    if (is_user_type(t))
        return find_utype(t)->size;
    return type_size(t);
}

/* Records the user-defined types of ncid and of all its subgroups. */
void
init_types(int ncid)
{
    int ntypes, ngrps, i, *ids;

    check(nc_inq_typeids(ncid, &ntypes, NULL));
    if (ntypes > 0) {
        size_t glen;
        char *gname;
        ids = xmalloc(sizeof(int) * (size_t)ntypes);
        check(nc_inq_typeids(ncid, NULL, ids));
        check(nc_inq_grpname_full(ncid, &glen, NULL));
        gname = xmalloc(glen + 1);
        check(nc_inq_grpname_full(ncid, NULL, gname));
        gname[glen] = '\0';
        for (i = 0; i < ntypes; i++) {
            utype_t *u = xmalloc(sizeof *u);
            size_t f;
            memset(u, 0, sizeof *u);
            u->tid = ids[i];
            u->ncid = ncid;
            u->grp = gname;
            check(nc_inq_user_type(ncid, ids[i], u->name, &u->size, &u->base, &u->nfields, &u->cls));
            if (u->cls == NC_VLEN)
                u->size = sizeof(nc_vlen_t);
            if (u->cls == NC_COMPOUND && u->nfields > 0) {
                u->fields = xmalloc(sizeof(field_t) * u->nfields);
                for (f = 0; f < u->nfields; f++) {
                    field_t *fp = &u->fields[f];
                    int d;
                    check(nc_inq_compound_field(ncid, ids[i], (int)f, fp->name, &fp->off,
                                                &fp->type, &fp->rank, NULL));
                    if (fp->rank < 0 || fp->rank > NC_MAX_VAR_DIMS)
                        die("bad rank of compound field %s", fp->name);
                    check(nc_inq_compound_field(ncid, ids[i], (int)f, NULL, NULL, NULL, NULL,
                                                fp->sides));
                    fp->nvals = 1;
                    for (d = 0; d < fp->rank; d++)
                        fp->nvals *= (size_t)(fp->sides[d] > 0 ? fp->sides[d] : 0);
                }
            }
            u->next = utypes;
            utypes = u;
        }
        xfree(ids);
    }
    check(nc_inq_grps(ncid, &ngrps, NULL));
    if (ngrps > 0) {
        ids = xmalloc(sizeof(int) * (size_t)ngrps);
        check(nc_inq_grps(ncid, NULL, ids));
        for (i = 0; i < ngrps; i++)
            init_types(ids[i]);
        xfree(ids);
    }
}

/* A type's name as referenced from group locid: the bare name when a type
 * of that name is visible there (defined in locid or an ancestor), else
 * prefixed with the full name of the defining group. */
void
print_type_name(int locid, nc_type t)
{
    utype_t *u;
    int gid = locid, found = 0;
    if (!is_user_type(t)) {
        ncd_puts(type_name(t));
        return;
    }
    u = find_utype(t);
    for (;;) {
        int n, i, *ids, parent;
        check(nc_inq_typeids(gid, &n, NULL));
        if (n > 0) {
            ids = xmalloc(sizeof(int) * (size_t)n);
            check(nc_inq_typeids(gid, NULL, ids));
            for (i = 0; i < n && !found; i++) {
                char nm[NC_MAX_NAME + 1];
                check(nc_inq_type(gid, ids[i], nm, NULL));
                found = !strcmp(nm, u->name);
            }
            xfree(ids);
        }
        if (found || nc_inq_grp_parent(gid, &parent) != NC_NOERR)
            break;
        gid = parent;
    }
    if (!found) {
        put_name(u->grp);
        ncd_putc('/');
    }
    put_name(u->name);
}


void
ds_cat(dstr *d, const char *s, size_t n)
{
    if (d->len + n + 1 > d->cap) {
        size_t cap = d->cap ? d->cap : 128;
        char *ns;
        while (cap < d->len + n + 1)
            cap *= 2;
        ns = xmalloc(cap);
        if (d->len)
            memcpy(ns, d->s, d->len);
        xfree(d->s);
        d->s = ns;
        d->cap = cap;
    }
    memcpy(d->s + d->len, s, n);
    d->len += n;
    d->s[d->len] = '\0';
}

void
ds_puts(dstr *d, const char *s)
{
    ds_cat(d, s, strlen(s));
}

/* Char field of a compound: backslash before the special characters (the
 * character itself kept, as upstream), octal for other unprintables. */
static void
ds_chars(dstr *d, const char *v, size_t len)
{
    size_t i;
    char o[8];
    while (len && v[len - 1] == '\0')
        len--;
    ds_cat(d, "\"", 1);
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)v[i];
        switch (c) {
        case '\b': case '\f': case '\n': case '\r': case '\t': case '\v':
        case '\\': case '\'': case '"':
            o[0] = '\\';
            o[1] = (char)c;
            ds_cat(d, o, 2);
            break;
        default:
            if (c >= 0x20 && c < 0x7f)
                ds_cat(d, (const char *)&v[i], 1);
            else {
                snprintf(o, sizeof o, "\\%.3o", c);
                ds_cat(d, o, 4);
            }
        }
    }
    ds_cat(d, "\"", 1);
}

/* String value in data: quoted, escaped (a vertical tab shows as \n, as
 * upstream), NULL as NIL. */
static void
ds_string(dstr *d, const char *cp)
{
    char o[8];
    if (!cp) {
        ds_puts(d, "NIL");
        return;
    }
    ds_cat(d, "\"", 1);
    for (; *cp; cp++) {
        unsigned char c = (unsigned char)*cp;
        const char *e = NULL;
        switch (c) {
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        case '\v': e = "\\n"; break;
        case '\\': e = "\\\\"; break;
        case '\'': e = "\\'"; break;
        case '"': e = "\\\""; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                snprintf(o, sizeof o, "\\%03o", c);
                ds_cat(d, o, 4);
            } else
                ds_cat(d, cp, 1);
        }
        if (e)
            ds_cat(d, e, 2);
    }
    ds_cat(d, "\"", 1);
}

long long
int_value(nc_type t, const void *p)
{
    switch (t) {
    case NC_BYTE: return *(const signed char *)p;
    case NC_UBYTE: return *(const unsigned char *)p;
    case NC_SHORT: return *(const short *)p;
    case NC_USHORT: return *(const unsigned short *)p;
    case NC_INT: return *(const int *)p;
    case NC_UINT: return *(const unsigned int *)p;
    case NC_INT64: return *(const long long *)p;
    case NC_UINT64: return (long long)*(const unsigned long long *)p;
    default: die("enum must have an integer base type: %d", t); return 0;
    }
}

/* Appends one value of type t (any type) in CDL data syntax. */
void
ds_value(dstr *d, nc_type t, const void *vp)
{
    char s[PRIM_LEN + 8];
    int n;
    switch (t) {
    case NC_BYTE: n = ncd_fmt_ll(s, *(const signed char *)vp); break;
    case NC_CHAR: ds_chars(d, vp, 1); return;
    case NC_SHORT: n = ncd_fmt_ll(s, *(const short *)vp); break;
    case NC_INT: n = ncd_fmt_ll(s, *(const int *)vp); break;
    case NC_UBYTE: n = ncd_fmt_ull(s, *(const unsigned char *)vp); break;
    case NC_USHORT: n = ncd_fmt_ull(s, *(const unsigned short *)vp); break;
    case NC_UINT: n = ncd_fmt_ull(s, *(const unsigned int *)vp); break;
    case NC_INT64: n = ncd_fmt_ll(s, *(const long long *)vp); break;
    case NC_UINT64: n = ncd_fmt_ull(s, *(const unsigned long long *)vp); break;
    case NC_FLOAT: {
        float f = *(const float *)vp;
        if (isfinite(f))
            n = ncd_fmt_g(s, f, float_digits, 0);
        else
            n = snprintf(s, sizeof s, "%s", isnan(f) ? "NaNf" : f < 0 ? "-Infinityf" : "Infinityf");
        break;
    }
    case NC_DOUBLE: {
        double f = *(const double *)vp;
        if (isfinite(f))
            n = ncd_fmt_g(s, f, double_digits, 0);
        else
            n = snprintf(s, sizeof s, "%s", isnan(f) ? "NaN" : f < 0 ? "-Infinity" : "Infinity");
        break;
    }
    case NC_STRING: ds_string(d, *(char *const *)vp); return;
    default: {
        utype_t *u = find_utype(t);
        size_t i, f;
        switch (u->cls) {
        case NC_ENUM: {
            char sym[NC_MAX_NAME + 1];
            check(nc_inq_enum_ident(u->ncid, t, int_value(u->base, vp), sym));
            ds_puts(d, sym);
            return;
        }
        case NC_OPAQUE: {
            static const char hx[] = "0123456789ABCDEF";
            const unsigned char *b = vp;
            ds_cat(d, "0X", 2);
            for (i = 0; i < u->size; i++) {
                char h[2];
                h[0] = hx[b[i] >> 4];
                h[1] = hx[b[i] & 15];
                ds_cat(d, h, 2);
            }
            return;
        }
        case NC_VLEN: {
            const nc_vlen_t *vl = vp;
            size_t bsz = elem_size(u->base);
            ds_cat(d, "{", 1);
            for (i = 0; i < vl->len; i++) {
                ds_value(d, u->base, (const char *)vl->p + i * bsz);
                if (i + 1 < vl->len)
                    ds_cat(d, ", ", 2);
            }
            ds_cat(d, "}", 1);
            return;
        }
        case NC_COMPOUND:
            ds_cat(d, "{", 1);
            for (f = 0; f < u->nfields; f++) {
                const field_t *fp = &u->fields[f];
                const char *fv = (const char *)vp + fp->off;
                if (fp->rank == 0) {
                    ds_value(d, fp->type, fv);
                } else if (fp->type == NC_CHAR) {
                    size_t slen = (size_t)fp->sides[fp->rank - 1], ns = fp->nvals / (slen ? slen : 1);
                    ds_cat(d, "{", 1);
                    for (i = 0; slen && i < ns; i++) {
                        ds_chars(d, fv + i * slen, slen);
                        if (i + 1 < ns)
                            ds_cat(d, ", ", 2);
                    }
                    ds_cat(d, "}", 1);
                } else {
                    size_t fsz = elem_size(fp->type);
                    ds_cat(d, "{", 1);
                    for (i = 0; i < fp->nvals; i++) {
                        ds_value(d, fp->type, fv + i * fsz);
                        if (i + 1 < fp->nvals)
                            ds_cat(d, ", ", 2);
                    }
                    ds_cat(d, "}", 1);
                }
                if (f + 1 < u->nfields)
                    ds_cat(d, ", ", 2);
            }
            ds_cat(d, "}", 1);
            return;
        default:
            die("unrecognized class of user defined type: %d", u->cls);
        }
    }
    }
    ds_cat(d, s, (size_t)(n < 0 ? 0 : n));
}

/* Value equality as upstream tests data against the fill value: floats
 * within an epsilon, compound values by the first element of each field. */
int
values_equal(nc_type t, const void *a, const void *b)
{
    switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE:
        return *(const unsigned char *)a == *(const unsigned char *)b;
    case NC_SHORT: case NC_USHORT:
        return *(const unsigned short *)a == *(const unsigned short *)b;
    case NC_INT: case NC_UINT:
        return *(const unsigned int *)a == *(const unsigned int *)b;
    case NC_INT64: case NC_UINT64:
        return *(const unsigned long long *)a == *(const unsigned long long *)b;
    case NC_FLOAT: {
        float v1 = *(const float *)a, v2 = *(const float *)b;
        if ((v1 > 0.0f) != (v2 > 0.0f))
            return 0;
        if (isfinite(v1) && isfinite(v2)) {
            float diff = v1 - v2, tol = FLT_EPSILON * v2;
            return (diff < 0 ? -diff : diff) <= (tol < 0 ? -tol : tol);
        }
        return (isnan(v1) && isnan(v2)) || (isinf(v1) && isinf(v2));
    }
    case NC_DOUBLE: {
        double v1 = *(const double *)a, v2 = *(const double *)b;
        if ((v1 > 0.0) != (v2 > 0.0))
            return 0;
        if (isfinite(v1) && isfinite(v2)) {
            double diff = v1 - v2, tol = DBL_EPSILON * v2;
            return (diff < 0 ? -diff : diff) <= (tol < 0 ? -tol : tol);
        }
        return (isnan(v1) && isnan(v2)) || (isinf(v1) && isinf(v2));
    }
    case NC_STRING: {
        const char *s1 = *(char *const *)a, *s2 = *(char *const *)b;
        if (!s1 || !s2)
            return s1 == s2;
        return !strcmp(s1, s2);
    }
    default: {
        utype_t *u = find_utype(t);
        size_t i;
        switch (u->cls) {
        case NC_ENUM:
            return values_equal(u->base, a, b);
        case NC_OPAQUE:
            return !memcmp(a, b, u->size);
        case NC_VLEN: {
            const nc_vlen_t *x = a, *y = b;
            size_t bsz = elem_size(u->base);
            if (x->len != y->len)
                return 0;
            for (i = 0; i < x->len; i++)
                if (!values_equal(u->base, (const char *)x->p + i * bsz, (const char *)y->p + i * bsz))
                    return 0;
            return 1;
        }
        case NC_COMPOUND:
            for (i = 0; i < u->nfields; i++) {
                const field_t *fp = &u->fields[i];
                if (fp->nvals > 0 && !values_equal(fp->type, (const char *)a + fp->off, (const char *)b + fp->off))
                    return 0;
            }
            return 1;
        default:
            return 0;
        }
    }
    }
}

