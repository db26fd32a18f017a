/* dinstance.c: deep operations on in-memory data of any type.
 *
 * nc_reclaim_data(_all), nc_copy_data(_all), nc_dump_data, and the older
 * nc_free_string/nc_free_vlen(s).  Atomic types need no file; user types
 * (vlen, opaque, enum, compound) are described through the public type
 * inquiry calls, so this works for every format that has them.
 *
 * Layout rules (as the library reads and writes them): a vector of n values
 * of a type of size s occupies n*s bytes; a compound field at its recorded
 * offset, fixed-size arrays in row-major order; a vlen is an nc_vlen_t
 * whose p points to len values of the base type; a string is a char*.
 *
 * Copies are built so that a failure part-way leaves the copy reclaimable:
 * every pointer slot of the destination is zeroed before it is filled.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "config.h"
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "ncinstance.h"

#define MAX_NESTING 64 /* deepest type nesting we follow */

/* ---- type helpers (ncinstance.h) ---------------------------------------- */

static const char *const atomic_names[NC_MAX_ATOMIC_TYPE + 1] = {
    NULL, "byte", "char", "short", "int", "float", "double",
    "ubyte", "ushort", "uint", "int64", "uint64", "string"};

static const size_t atomic_sizes[NC_MAX_ATOMIC_TYPE + 1] = {
    0, sizeof(signed char), sizeof(char), sizeof(short), sizeof(int), sizeof(float),
    sizeof(double), sizeof(unsigned char), sizeof(unsigned short), sizeof(unsigned int),
    sizeof(long long), sizeof(unsigned long long), sizeof(char *)};

static const size_t atomic_aligns[NC_MAX_ATOMIC_TYPE + 1] = {
    0, alignof(signed char), alignof(char), alignof(short), alignof(int), alignof(float),
    alignof(double), alignof(unsigned char), alignof(unsigned short), alignof(unsigned int),
    alignof(long long), alignof(unsigned long long), alignof(char *)};

int
NC_inq_any_type(int ncid, nc_type xtype, char *name, size_t *sizep, nc_type *basetypep,
                size_t *nfieldsp, int *classp)
{
    if (xtype > NC_NAT && xtype <= NC_MAX_ATOMIC_TYPE) {
        if (name)
            strcpy(name, atomic_names[xtype]);
        if (sizep)
            *sizep = atomic_sizes[xtype];
        if (basetypep)
            *basetypep = NC_NAT;
        if (nfieldsp)
            *nfieldsp = 0;
        if (classp)
            *classp = xtype;
        return NC_NOERR;
    }
    if (xtype < NC_FIRSTUSERTYPEID)
        return NC_EBADTYPE;
    return nc_inq_user_type(ncid, xtype, name, sizep, basetypep, nfieldsp, classp);
}

static int
fixed_size_r(int ncid, nc_type xtype, int depth, int *fixedp)
{
    int stat, klass;
    size_t nfields, i;
    nc_type base;

    if (xtype > NC_NAT && xtype < NC_STRING) {
        *fixedp = 1;
        return NC_NOERR;
    }
    if (xtype == NC_STRING) {
        *fixedp = 0;
        return NC_NOERR;
    }
    if (depth > MAX_NESTING)
        return NC_EBADTYPE;
    if ((stat = NC_inq_any_type(ncid, xtype, NULL, NULL, &base, &nfields, &klass)))
        return stat;
    switch (klass) {
    case NC_VLEN: *fixedp = 0; return NC_NOERR;
    case NC_OPAQUE:
    case NC_ENUM: *fixedp = 1; return NC_NOERR;
    case NC_COMPOUND:
        for (i = 0; i < nfields; i++) {
            nc_type ftype;
            int ff;
            if ((stat = nc_inq_compound_fieldtype(ncid, xtype, (int)i, &ftype)))
                return stat;
            if ((stat = fixed_size_r(ncid, ftype, depth + 1, &ff)))
                return stat;
            if (!ff) {
                *fixedp = 0;
                return NC_NOERR;
            }
        }
        *fixedp = 1;
        return NC_NOERR;
    default: return NC_EBADTYPE;
    }
}

int
NC_type_fixed_size(int ncid, nc_type xtype, int *fixedp)
{
    int fixed = 0;
    int stat = fixed_size_r(ncid, xtype, 0, &fixed);
    if (stat == NC_NOERR && fixedp)
        *fixedp = fixed;
    return stat;
}

static int
alignment_r(int ncid, nc_type xtype, int depth, size_t *alignp)
{
    int stat, klass;
    size_t nfields, i, best = 1;
    nc_type base;

    if (xtype > NC_NAT && xtype <= NC_MAX_ATOMIC_TYPE) {
        *alignp = atomic_aligns[xtype];
        return NC_NOERR;
    }
    if (depth > MAX_NESTING)
        return NC_EBADTYPE;
    if ((stat = NC_inq_any_type(ncid, xtype, NULL, NULL, &base, &nfields, &klass)))
        return stat;
    switch (klass) {
    case NC_VLEN: *alignp = alignof(nc_vlen_t); return NC_NOERR;
    case NC_OPAQUE: *alignp = 1; return NC_NOERR;
    case NC_ENUM: return alignment_r(ncid, base, depth + 1, alignp);
    case NC_COMPOUND:
        /* A C struct is aligned as its most demanding member. */
        for (i = 0; i < nfields; i++) {
            nc_type ftype;
            size_t fa;
            if ((stat = nc_inq_compound_fieldtype(ncid, xtype, (int)i, &ftype)))
                return stat;
            if ((stat = alignment_r(ncid, ftype, depth + 1, &fa)))
                return stat;
            if (fa > best)
                best = fa;
        }
        *alignp = best;
        return NC_NOERR;
    default: return NC_EBADTYPE;
    }
}

int
NC_type_alignment(int ncid, nc_type xtype, size_t *alignp)
{
    size_t align = 0;
    int stat = alignment_r(ncid, xtype, 0, &align);
    if (stat == NC_NOERR && alignp)
        *alignp = align;
    return stat;
}

/* ---- walking values ------------------------------------------------------ */

/* What a walk needs to know about one type, fetched once per vector. */
typedef struct TypeDesc {
    int klass;       /* NC_VLEN.. or the atomic id */
    size_t size;     /* bytes of one value in memory */
    nc_type base;    /* vlen/enum base type */
    size_t nfields;  /* compound fields */
    int fixed;       /* no pointers inside */
} TypeDesc;

static int
describe(int ncid, nc_type xtype, TypeDesc *d)
{
    int stat;
    if ((stat = NC_inq_any_type(ncid, xtype, NULL, &d->size, &d->base, &d->nfields, &d->klass)))
        return stat;
    return NC_type_fixed_size(ncid, xtype, &d->fixed);
}

/* One compound field: where it is, its type and how many values it holds. */
static int
field_info(int ncid, nc_type xtype, size_t fid, size_t *offsetp, nc_type *ftypep, size_t *countp)
{
    int stat, ndims, i;
    int dims[NC_MAX_VAR_DIMS];
    size_t count = 1;

    if ((stat = nc_inq_compound_fieldndims(ncid, xtype, (int)fid, &ndims)))
        return stat;
    if (ndims < 0 || ndims > NC_MAX_VAR_DIMS)
        return NC_EBADFIELD;
    if ((stat = nc_inq_compound_field(ncid, xtype, (int)fid, NULL, offsetp, ftypep, NULL, dims)))
        return stat;
    for (i = 0; i < ndims; i++) {
        if (dims[i] < 0 || (dims[i] > 0 && count > SIZE_MAX / (size_t)dims[i]))
            return NC_EBADFIELD;
        count *= (size_t)dims[i];
    }
    *countp = count;
    return NC_NOERR;
}

static int
reclaim_vec(int ncid, nc_type xtype, char *mem, size_t count, int depth)
{
    int stat;
    size_t i, f;
    TypeDesc d;

    if (count == 0 || (xtype > NC_NAT && xtype < NC_STRING))
        return NC_NOERR;
    if (xtype == NC_STRING) {
        char **ss = (char **)(void *)mem;
        for (i = 0; i < count; i++) {
            free(ss[i]);
            ss[i] = NULL;
        }
        return NC_NOERR;
    }
    if (depth > MAX_NESTING)
        return NC_EBADTYPE;
    if ((stat = describe(ncid, xtype, &d)))
        return stat;
    if (d.fixed)
        return NC_NOERR;
    switch (d.klass) {
    case NC_VLEN:
        for (i = 0; i < count; i++) {
            nc_vlen_t *vl = (nc_vlen_t *)(void *)(mem + i * sizeof(nc_vlen_t));
            if (vl->len > 0 && vl->p == NULL)
                return NC_EINVAL;
            if ((stat = reclaim_vec(ncid, d.base, vl->p, vl->len, depth + 1)))
                return stat;
            free(vl->p);
            vl->p = NULL;
            vl->len = 0;
        }
        return NC_NOERR;
    case NC_COMPOUND:
        for (f = 0; f < d.nfields; f++) {
            size_t off, n;
            nc_type ft;
            if ((stat = field_info(ncid, xtype, f, &off, &ft, &n)))
                return stat;
            for (i = 0; i < count; i++)
                if ((stat = reclaim_vec(ncid, ft, mem + i * d.size + off, n, depth + 1)))
                    return stat;
        }
        return NC_NOERR;
    default:
        return NC_EBADTYPE;
    }
}

int
nc_reclaim_data(int ncid, nc_type xtype, void *memory, size_t count)
{
    if (ncid < 0 || xtype <= NC_NAT)
        return NC_EINVAL;
    if (memory == NULL)
        return count > 0 ? NC_EINVAL : NC_NOERR;
    return reclaim_vec(ncid, xtype, memory, count, 0);
}

int
nc_reclaim_data_all(int ncid, nc_type xtype, void *memory, size_t count)
{
    int stat = nc_reclaim_data(ncid, xtype, memory, count);
    if (stat == NC_NOERR)
        free(memory);
    return stat;
}

/* Copy count values; dst must not overlap src.  On failure everything
 * already allocated in dst is still reachable from dst (and nothing else is). */
static int
copy_vec(int ncid, nc_type xtype, const char *src, char *dst, size_t count, int depth)
{
    int stat;
    size_t i, f;
    TypeDesc d;

    if (count == 0)
        return NC_NOERR;
    if (xtype == NC_STRING) {
        const char *const *ss = (const char *const *)(const void *)src;
        char **ds = (char **)(void *)dst;
        memset(ds, 0, count * sizeof(char *));
        for (i = 0; i < count; i++)
            if (ss[i] != NULL && (ds[i] = strdup(ss[i])) == NULL)
                return NC_ENOMEM;
        return NC_NOERR;
    }
    if (depth > MAX_NESTING)
        return NC_EBADTYPE;
    if ((stat = describe(ncid, xtype, &d)))
        return stat;
    if (d.size != 0 && count > SIZE_MAX / d.size)
        return NC_ENOMEM;
    if (d.fixed) {
        memcpy(dst, src, count * d.size);
        return NC_NOERR;
    }
    switch (d.klass) {
    case NC_VLEN: {
        TypeDesc bd;
        memset(dst, 0, count * sizeof(nc_vlen_t));
        if ((stat = describe(ncid, d.base, &bd)))
            return stat;
        for (i = 0; i < count; i++) {
            const nc_vlen_t *sv = (const nc_vlen_t *)(const void *)(src + i * sizeof(nc_vlen_t));
            nc_vlen_t *dv = (nc_vlen_t *)(void *)(dst + i * sizeof(nc_vlen_t));
            if (sv->len == 0)
                continue;
            if (sv->p == NULL)
                return NC_EINVAL;
            if ((dv->p = calloc(sv->len, bd.size ? bd.size : 1)) == NULL)
                return NC_ENOMEM;
            dv->len = sv->len;
            if ((stat = copy_vec(ncid, d.base, sv->p, dv->p, sv->len, depth + 1)))
                return stat;
        }
        return NC_NOERR;
    }
    case NC_COMPOUND:
        /* Bytes first (fixed fields and padding), then the pointer-bearing
         * fields are cleared and deep-copied one by one. */
        memcpy(dst, src, count * d.size);
        for (f = 0; f < d.nfields; f++) {
            size_t off, n, fsize;
            nc_type ft;
            int ffixed;
            if ((stat = field_info(ncid, xtype, f, &off, &ft, &n)))
                goto fail;
            if ((stat = NC_type_fixed_size(ncid, ft, &ffixed)))
                goto fail;
            if (ffixed)
                continue;
            if ((stat = NC_inq_any_type(ncid, ft, NULL, &fsize, NULL, NULL, NULL)))
                goto fail;
            for (i = 0; i < count; i++)
                memset(dst + i * d.size + off, 0, n * fsize);
        }
        for (f = 0; f < d.nfields; f++) {
            size_t off, n;
            nc_type ft;
            int ffixed;
            if ((stat = field_info(ncid, xtype, f, &off, &ft, &n)))
                return stat;
            if ((stat = NC_type_fixed_size(ncid, ft, &ffixed)))
                return stat;
            if (ffixed)
                continue;
            for (i = 0; i < count; i++)
                if ((stat = copy_vec(ncid, ft, src + i * d.size + off, dst + i * d.size + off, n,
                                     depth + 1)))
                    return stat;
        }
        return NC_NOERR;
    fail:
        /* Pointers in dst may still alias src: make the copy inert. */
        memset(dst, 0, count * d.size);
        return stat;
    default:
        return NC_EBADTYPE;
    }
}

int
nc_copy_data(int ncid, nc_type xtype, const void *memory, size_t count, void *copy)
{
    int stat;
    if (ncid < 0 || xtype <= NC_NAT)
        return NC_EINVAL;
    if (count > 0 && (memory == NULL || copy == NULL))
        return NC_EINVAL;
    if (count == 0 || memory == NULL)
        return NC_NOERR;
    if ((stat = copy_vec(ncid, xtype, memory, copy, count, 0))) {
        /* Free what was copied so the caller is left with no leak. */
        (void)reclaim_vec(ncid, xtype, copy, count, 0);
    }
    return stat;
}

int
nc_copy_data_all(int ncid, nc_type xtype, const void *memory, size_t count, void **copyp)
{
    int stat;
    size_t size = 0;
    void *copy = NULL;

    if ((stat = NC_inq_any_type(ncid, xtype, NULL, &size, NULL, NULL, NULL)))
        return stat;
    if (count > 0) {
        if (size != 0 && count > SIZE_MAX / size)
            return NC_ENOMEM;
        if ((copy = calloc(count, size ? size : 1)) == NULL)
            return NC_ENOMEM;
    }
    if ((stat = nc_copy_data(ncid, xtype, memory, count, copy))) {
        free(copy);
        return stat;
    }
    if (copyp)
        *copyp = copy;
    else
        (void)nc_reclaim_data_all(ncid, xtype, copy, count);
    return NC_NOERR;
}

/* ---- dump ------------------------------------------------------------------ */

/* A growable text buffer. */
typedef struct Text {
    char *s;      /* NUL-terminated contents */
    size_t len;   /* strlen(s) */
    size_t cap;   /* bytes allocated */
    int failed;   /* an allocation failed */
} Text;

static void
text_add(Text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        char *ns;
        while (cap < t->len + n + 1)
            cap *= 2;
        if ((ns = realloc(t->s, cap)) == NULL) {
            t->failed = 1;
            return;
        }
        t->s = ns;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

static int
dump_vec(int ncid, nc_type xtype, const char *mem, size_t count, Text *t, int depth)
{
    int stat;
    size_t i, f, k;
    char num[64];
    TypeDesc d;

    if (depth > MAX_NESTING)
        return NC_EBADTYPE;
    if ((stat = describe(ncid, xtype, &d)))
        return stat;
    for (i = 0; i < count; i++) {
        const char *p = mem + i * d.size;
        if (i > 0)
            text_add(t, " ");
        switch (d.klass) {
        case NC_CHAR: snprintf(num, sizeof(num), "'%c'", *p); text_add(t, num); break;
        case NC_BYTE: snprintf(num, sizeof(num), "%d", *(const signed char *)p); text_add(t, num); break;
        case NC_UBYTE: snprintf(num, sizeof(num), "%u", *(const unsigned char *)p); text_add(t, num); break;
        case NC_SHORT: snprintf(num, sizeof(num), "%d", *(const short *)(const void *)p); text_add(t, num); break;
        case NC_USHORT: snprintf(num, sizeof(num), "%u", *(const unsigned short *)(const void *)p); text_add(t, num); break;
        case NC_INT: snprintf(num, sizeof(num), "%d", *(const int *)(const void *)p); text_add(t, num); break;
        case NC_UINT: snprintf(num, sizeof(num), "%u", *(const unsigned int *)(const void *)p); text_add(t, num); break;
        case NC_FLOAT: snprintf(num, sizeof(num), "%f", *(const float *)(const void *)p); text_add(t, num); break;
        case NC_DOUBLE: snprintf(num, sizeof(num), "%f", *(const double *)(const void *)p); text_add(t, num); break;
        case NC_INT64: snprintf(num, sizeof(num), "%lld", *(const long long *)(const void *)p); text_add(t, num); break;
        case NC_UINT64: snprintf(num, sizeof(num), "%llu", *(const unsigned long long *)(const void *)p); text_add(t, num); break;
        case NC_STRING: {
            const char *s = *(const char *const *)(const void *)p;
            text_add(t, "\"");
            text_add(t, s ? s : "");
            text_add(t, "\"");
        } break;
        case NC_ENUM:
            if ((stat = dump_vec(ncid, d.base, p, 1, t, depth + 1)))
                return stat;
            break;
        case NC_OPAQUE:
            text_add(t, "|");
            for (k = 0; k < d.size; k++) {
                snprintf(num, sizeof(num), "%02x", (unsigned char)p[k]);
                text_add(t, num);
            }
            text_add(t, "|");
            break;
        case NC_VLEN: {
            const nc_vlen_t *vl = (const nc_vlen_t *)(const void *)p;
            if (vl->len > 0 && vl->p == NULL)
                return NC_EINVAL;
            snprintf(num, sizeof(num), "{len=%zu,p=(", vl->len);
            text_add(t, num);
            if ((stat = dump_vec(ncid, d.base, vl->p, vl->len, t, depth + 1)))
                return stat;
            text_add(t, ")}");
        } break;
        case NC_COMPOUND:
            text_add(t, "<");
            for (f = 0; f < d.nfields; f++) {
                char name[NC_MAX_NAME + 1];
                int ndims, dims[NC_MAX_VAR_DIMS], j;
                size_t off, n;
                nc_type ft;
                if ((stat = field_info(ncid, xtype, f, &off, &ft, &n)))
                    return stat;
                if ((stat = nc_inq_compound_field(ncid, xtype, (int)f, name, NULL, NULL, &ndims, dims)))
                    return stat;
                if (f > 0)
                    text_add(t, ";");
                text_add(t, name);
                for (j = 0; j < ndims && j < NC_MAX_VAR_DIMS; j++) {
                    snprintf(num, sizeof(num), "[%d]", dims[j]);
                    text_add(t, num);
                }
                text_add(t, "=");
                if ((stat = dump_vec(ncid, ft, p + off, n, t, depth + 1)))
                    return stat;
            }
            text_add(t, ">");
            break;
        default:
            return NC_EBADTYPE;
        }
    }
    return NC_NOERR;
}

int
nc_dump_data(int ncid, nc_type xtype, void *memory, size_t count, char **bufp)
{
    int stat = NC_NOERR;
    Text t = {NULL, 0, 0, 0};

    if (ncid < 0 || xtype <= NC_NAT)
        return NC_EINVAL;
    if (memory == NULL && count > 0)
        return NC_EINVAL;
    text_add(&t, "");
    if (count > 0)
        stat = dump_vec(ncid, xtype, memory, count, &t, 0);
    if (stat == NC_NOERR && t.failed)
        stat = NC_ENOMEM;
    if (stat == NC_NOERR && bufp) {
        *bufp = t.s;
        t.s = NULL;
    }
    free(t.s);
    return stat;
}

/* ---- the older single-purpose frees ----------------------------------------- */

int
nc_free_string(size_t len, char **data)
{
    size_t i;
    if (data == NULL)
        return NC_NOERR;
    for (i = 0; i < len; i++)
        free(data[i]);
    return NC_NOERR;
}

int
nc_free_vlen(nc_vlen_t *vl)
{
    if (vl != NULL)
        free(vl->p);
    return NC_NOERR;
}

int
nc_free_vlens(size_t len, nc_vlen_t vlens[])
{
    size_t i;
    if (vlens == NULL)
        return NC_NOERR;
    for (i = 0; i < len; i++)
        free(vlens[i].p);
    return NC_NOERR;
}
