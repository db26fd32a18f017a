/* nc4values.c: values in memory form: sizes of types, whether they hold
 * pointers, deep copy and reclaim (strings, vlens, nested compounds and
 * arrays of them), default fill values.
 *
 * Memory form is upstream's: NC_STRING a char* (NULL allowed), a vlen an
 * nc_vlen_t {len, p} whose p holds len values of the base type, a compound
 * its C struct with fields at their offsets, an enum its base integer, an
 * opaque its bytes.  nc4_reclaim_values frees what the values point to, not
 * the array itself (nc_reclaim_data semantics). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "nc4priv.h"
#include "ncx.h"

/* User types can only nest types defined before them, so depth is bounded
 * by the number of types; a hostile file could still build a cycle through
 * the storage layer, which this limit turns into an error. */
#define MAX_NEST 64

size_t
nc4_type_size(NC4_file *f, nc_type xtype)
{
    NC4_type *t;
    if (xtype > NC_NAT && xtype <= NC_MAX_ATOMIC_TYPE)
        return ncx_memlen(xtype);
    if (f == NULL || nc4_find_type(f, xtype, &t) || t == NULL)
        return 0;
    return t->size;
}

int
nc4_type_class(NC4_file *f, nc_type xtype)
{
    NC4_type *t;
    if (xtype > NC_NAT && xtype <= NC_MAX_ATOMIC_TYPE)
        return xtype;
    if (f == NULL || nc4_find_type(f, xtype, &t) || t == NULL)
        return NC_NAT;
    return t->tclass;
}

/* Number of elements of a field (product of its array dims). */
static size_t
field_count(const NC4_field *fl)
{
    size_t n = 1;
    for (int i = 0; i < fl->ndims; i++)
        n *= fl->dimsizes[i] > 0 ? (size_t)fl->dimsizes[i] : 0;
    return n;
}

static int
has_pointers(NC4_file *f, nc_type xtype, int depth)
{
    NC4_type *t;
    if (xtype == NC_STRING)
        return 1;
    if (xtype <= NC_MAX_ATOMIC_TYPE || depth > MAX_NEST)
        return 0;
    if (nc4_find_type(f, xtype, &t) || t == NULL)
        return 0;
    switch (t->tclass) {
    case NC_VLEN:
        return 1;
    case NC_COMPOUND:
        for (size_t i = 0; i < t->fields.n; i++)
            if (has_pointers(f, ((NC4_field *)t->fields.items[i])->xtype, depth + 1))
                return 1;
        return 0;
    default:
        return 0;
    }
}

int
nc4_type_has_pointers(NC4_file *f, nc_type xtype)
{
    return has_pointers(f, xtype, 0);
}

static void reclaim(NC4_file *f, nc_type xtype, void *data, size_t n, int depth);

static void
reclaim(NC4_file *f, nc_type xtype, void *data, size_t n, int depth)
{
    NC4_type *t;
    if (data == NULL || n == 0 || depth > MAX_NEST)
        return;
    if (xtype == NC_STRING) {
        char **s = data;
        for (size_t i = 0; i < n; i++) {
            free(s[i]);
            s[i] = NULL;
        }
        return;
    }
    if (xtype <= NC_MAX_ATOMIC_TYPE || nc4_find_type(f, xtype, &t) || t == NULL)
        return;
    if (t->tclass == NC_VLEN) {
        nc_vlen_t *v = data;
        int deep = has_pointers(f, t->base, depth + 1);
        for (size_t i = 0; i < n; i++) {
            if (deep)
                reclaim(f, t->base, v[i].p, v[i].len, depth + 1);
            free(v[i].p);
            v[i].p = NULL;
            v[i].len = 0;
        }
    } else if (t->tclass == NC_COMPOUND && has_pointers(f, xtype, depth)) {
        for (size_t i = 0; i < n; i++) {
            char *rec = (char *)data + i * t->size;
            for (size_t k = 0; k < t->fields.n; k++) {
                NC4_field *fl = (NC4_field *)t->fields.items[k];
                if (has_pointers(f, fl->xtype, depth + 1))
                    reclaim(f, fl->xtype, rec + fl->offset, field_count(fl), depth + 1);
            }
        }
    }
}

void
nc4_reclaim_values(NC4_file *f, nc_type xtype, void *data, size_t n)
{
    reclaim(f, xtype, data, n, 0);
}

static int
copy(NC4_file *f, nc_type xtype, const void *src, void *dst, size_t n, int depth)
{
    NC4_type *t = NULL;
    size_t size;
    int stat;

    if (n == 0)
        return NC_NOERR;
    if (depth > MAX_NEST)
        return NC_EBADTYPE;
    if (xtype == NC_STRING) {
        char *const *s = src;
        char **d = dst;
        for (size_t i = 0; i < n; i++)
            d[i] = NULL;
        for (size_t i = 0; i < n; i++) {
            if (s[i] != NULL && (d[i] = strdup(s[i])) == NULL) {
                reclaim(f, NC_STRING, dst, i, depth);
                return NC_ENOMEM;
            }
        }
        return NC_NOERR;
    }
    if (xtype > NC_NAT && xtype <= NC_MAX_ATOMIC_TYPE) {
        memcpy(dst, src, n * ncx_memlen(xtype));
        return NC_NOERR;
    }
    if (nc4_find_type(f, xtype, &t) || t == NULL)
        return NC_EBADTYPE;
    size = t->size;
    if (t->tclass == NC_VLEN) {
        const nc_vlen_t *s = src;
        nc_vlen_t *d = dst;
        size_t bsize = nc4_type_size(f, t->base);
        if (bsize == 0)
            return NC_EBADTYPE;
        for (size_t i = 0; i < n; i++) {
            d[i].len = 0;
            d[i].p = NULL;
        }
        for (size_t i = 0; i < n; i++) {
            if (s[i].len == 0 || s[i].p == NULL)
                continue;
            if (s[i].len > SIZE_MAX / bsize || (d[i].p = malloc(s[i].len * bsize)) == NULL) {
                stat = NC_ENOMEM;
                reclaim(f, xtype, dst, i, depth);
                return stat;
            }
            d[i].len = s[i].len;
            if ((stat = copy(f, t->base, s[i].p, d[i].p, s[i].len, depth + 1))) {
                free(d[i].p);
                d[i].p = NULL;
                d[i].len = 0;
                reclaim(f, xtype, dst, i, depth);
                return stat;
            }
        }
        return NC_NOERR;
    }
    /* Compound, enum, opaque: bytes first, then the pointers deep. */
    if (n > SIZE_MAX / (size ? size : 1))
        return NC_ENOMEM;
    memcpy(dst, src, n * size);
    if (t->tclass == NC_COMPOUND && has_pointers(f, xtype, depth)) {
        for (size_t i = 0; i < n; i++) {
            const char *srec = (const char *)src + i * size;
            char *drec = (char *)dst + i * size;
            for (size_t k = 0; k < t->fields.n; k++) {
                NC4_field *fl = (NC4_field *)t->fields.items[k];
                if (!has_pointers(f, fl->xtype, depth + 1))
                    continue;
                if ((stat = copy(f, fl->xtype, srec + fl->offset, drec + fl->offset,
                                 field_count(fl), depth + 1))) {
                    /* Undo: fields before k of this record, and records before i.
                     * The remaining pointer fields still alias src: clear them. */
                    for (size_t j = 0; j < k; j++) {
                        NC4_field *fj = (NC4_field *)t->fields.items[j];
                        if (has_pointers(f, fj->xtype, depth + 1))
                            reclaim(f, fj->xtype, drec + fj->offset, field_count(fj), depth + 1);
                    }
                    reclaim(f, xtype, dst, i, depth);
                    memset(dst, 0, n * size);
                    return stat;
                }
            }
        }
    }
    return NC_NOERR;
}

int
nc4_copy_values(NC4_file *f, nc_type xtype, const void *src, void *dst, size_t n)
{
    return copy(f, xtype, src, dst, n, 0);
}

int
nc4_dup_values(NC4_file *f, nc_type xtype, const void *src, size_t n, void **copyp)
{
    size_t size = nc4_type_size(f, xtype);
    void *buf;
    int stat;

    *copyp = NULL;
    if (n == 0)
        return NC_NOERR;
    if (size == 0)
        return NC_EBADTYPE;
    if (n > SIZE_MAX / size || (buf = malloc(n * size)) == NULL)
        return NC_ENOMEM;
    if ((stat = copy(f, xtype, src, buf, n, 0))) {
        free(buf);
        return stat;
    }
    *copyp = buf;
    return NC_NOERR;
}

int
nc4_default_fill(NC4_file *f, nc_type xtype, void *fill)
{
    NC4_type *t;
    if (xtype == NC_STRING) {
        char *s = strdup(NC_FILL_STRING);
        if (s == NULL)
            return NC_ENOMEM;
        *(char **)fill = s;
        return NC_NOERR;
    }
    if (xtype > NC_NAT && xtype <= NC_MAX_ATOMIC_TYPE)
        return ncx_default_fill(xtype, fill);
    if (nc4_find_type(f, xtype, &t) || t == NULL)
        return NC_EBADTYPE;
    if (t->tclass == NC_ENUM)
        return ncx_default_fill(t->base, fill);
    memset(fill, 0, t->size);
    return NC_NOERR;
}
