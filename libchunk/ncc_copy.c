/* ncc_copy.c: strided box copies between chunks and callers' buffers, fill,
 * strings, and the per-thread scratch buffers chunks are decoded in.
 * The innermost axis is a memcpy when both sides are contiguous along it,
 * else a loop specialised on the element size (no call per element). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "ncchunk.h"

/* ---- per-thread scratch ---------------------------------------------------------
 * libfilter's per-thread grow-only buffers, the engine's slots (see
 * ncchunk.h): a fresh chunk-sized malloc per chunk costs a page fault per
 * 4 KiB, which on this kind of machine is most of the read time.  Some
 * headroom for chunks of varying stored size. */
unsigned char *
ncc_scratch(int which, size_t n)
{
    if (which < 0 || which >= NCC_NSCRATCH)
        return NULL;
    return ncf_scratch_get(NCF_SCRATCH_ENGINE + which, n, n / 4 + 64);
}

/* Next row of a strided box: odometer over the axes before outer, moving
 * both offsets; 0 when every row is done. */
static int
next_row(int outer, const size_t *count, const size_t *sstr, const size_t *dstr, size_t *idx, size_t *soff,
         size_t *doff)
{
    for (int k = outer - 1; k >= 0; k--) {
        *soff += sstr[k];
        *doff += dstr[k];
        if (++idx[k] < count[k])
            return 1;
        *soff -= sstr[k] * count[k];
        *doff -= dstr[k] * count[k];
        idx[k] = 0;
    }
    return 0;
}

static void
copy_row(size_t esize, size_t n, const unsigned char *s, size_t ss, unsigned char *d, size_t ds)
{
    if (ss == 1 && ds == 1) {
        memcpy(d, s, n * esize);
        return;
    }
    ss *= esize;
    ds *= esize;
    /* Gathered into a contiguous row (strided reads): four at a time, the
     * size a constant so each copy is one move. */
#define GATHER4(SZ)                                                             \
    do {                                                                        \
        size_t i = 0;                                                           \
        for (; i + 4 <= n; i += 4, s += 4 * ss, d += 4 * (SZ)) {                \
            memcpy(d, s, SZ);                                                   \
            memcpy(d + (SZ), s + ss, SZ);                                       \
            memcpy(d + 2 * (SZ), s + 2 * ss, SZ);                               \
            memcpy(d + 3 * (SZ), s + 3 * ss, SZ);                               \
        }                                                                       \
        for (; i < n; i++, s += ss, d += (SZ))                                  \
            memcpy(d, s, SZ);                                                   \
    } while (0)
    if (ds == esize && (esize == 2 || esize == 4 || esize == 8)) {
        if (esize == 2)
            GATHER4(2);
        else if (esize == 4)
            GATHER4(4);
        else
            GATHER4(8);
        return;
    }
#undef GATHER4
    switch (esize) {
    case 1:
        for (size_t i = 0; i < n; i++)
            d[i * ds] = s[i * ss];
        break;
    case 2:
        for (size_t i = 0; i < n; i++)
            memcpy(d + i * ds, s + i * ss, 2);
        break;
    case 4:
        for (size_t i = 0; i < n; i++)
            memcpy(d + i * ds, s + i * ss, 4);
        break;
    case 8:
        for (size_t i = 0; i < n; i++)
            memcpy(d + i * ds, s + i * ss, 8);
        break;
    default:
        for (size_t i = 0; i < n; i++)
            memcpy(d + i * ds, s + i * ss, esize);
        break;
    }
}

void
ncc_copy_strided(int rank, size_t esize, const size_t *count, const void *src, const size_t *sstr,
                 void *dst, const size_t *dstr)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    size_t idx[NC_MAX_VAR_DIMS];
    size_t soff = 0, doff = 0;
    int outer = rank - 1;
    if (rank == 0) {
        memcpy(d, s, esize);
        return;
    }
    for (int k = 0; k < rank; k++) {
        if (count[k] == 0)
            return;
        idx[k] = 0;
    }
    for (;;) {
        copy_row(esize, count[outer], s + soff * esize, sstr[outer], d + doff * esize, dstr[outer]);
        if (!next_row(outer, count, sstr, dstr, idx, &soff, &doff))
            return;
    }
}

int
ncc_all_fill(const void *buf, size_t n, size_t esize, const void *fill)
{
    const unsigned char *b = buf, *f = fill;
    if (n == 0)
        return 1;
    if (memcmp(b, f, esize) != 0)
        return 0;
    /* Each block equals the one before it: compare the buffer with itself
     * shifted by one element. */
    return memcmp(b, b + esize, (n - 1) * esize) == 0;
}

void
ncc_fill_elems(void *dst, size_t n, size_t esize, const void *fill)
{
    unsigned char *d = dst;
    if (n == 0)
        return;
    memcpy(d, fill, esize);
    /* Double the filled part each time: log n memcpy calls. */
    for (size_t done = 1; done < n;) {
        size_t k = done < n - done ? done : n - done;
        memcpy(d + done * esize, d, k * esize);
        done += k;
    }
}

/* ---- variable-length strings ----------------------------------------------------- */

void
ncc_strings_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i]);
        v[i] = NULL;
    }
}

/* A copy of s, NULL for NULL or "" (the empty string costs nothing). */
static int
str_dup(const char *s, char **out)
{
    size_t l;
    *out = NULL;
    if (s == NULL || (l = strlen(s)) == 0)
        return NC_NOERR;
    if ((*out = malloc(l + 1)) == NULL)
        return NC_ENOMEM;
    memcpy(*out, s, l + 1);
    return NC_NOERR;
}

int
ncc_strings_copy_strided(int rank, const size_t *count, char *const *src, const size_t *sstr, char **dst,
                         const size_t *dstr)
{
    size_t idx[NC_MAX_VAR_DIMS], soff = 0, doff = 0;
    int outer = rank - 1;
    if (rank == 0) {
        char *c;
        if (str_dup(src[0], &c))
            return NC_ENOMEM;
        free(dst[0]);
        dst[0] = c;
        return NC_NOERR;
    }
    for (int k = 0; k < rank; k++) {
        if (count[k] == 0)
            return NC_NOERR;
        idx[k] = 0;
    }
    for (;;) {
        for (size_t i = 0; i < count[outer]; i++) {
            char *c, **d = &dst[doff + i * dstr[outer]];
            if (str_dup(src[soff + i * sstr[outer]], &c))
                return NC_ENOMEM;
            free(*d);
            *d = c;
        }
        if (!next_row(outer, count, sstr, dstr, idx, &soff, &doff))
            return NC_NOERR;
    }
}

int
ncc_strings_all_fill(char *const *v, size_t n, const char *fill)
{
    if (fill == NULL)
        fill = "";
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i] ? v[i] : "", fill) != 0)
            return 0;
    return 1;
}

int
ncc_strings_fill(char **v, size_t n, const char *fill)
{
    if (fill == NULL || fill[0] == '\0') {
        memset(v, 0, n * sizeof(char *));
        return NC_NOERR;
    }
    for (size_t i = 0; i < n; i++)
        if (str_dup(fill, &v[i])) {
            ncc_strings_free(v, i);
            memset(v + i, 0, (n - i) * sizeof(char *));
            return NC_ENOMEM;
        }
    return NC_NOERR;
}
