/* zchunk_copy.c: strided box copies between chunks and callers' buffers,
 * and the per-thread scratch buffers chunks are decoded in.
 * The innermost axis is a memcpy when both sides are contiguous along it,
 * else a loop specialised on the element size (no call per element). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "zdata.h"

/* ---- per-thread scratch ---------------------------------------------------------
 * Grow-only buffers per thread (see zdata.h): a fresh
 * chunk-sized malloc per chunk costs a page fault per 4 KiB, which on this
 * kind of machine is most of the read time. */
typedef struct zscratch {
    unsigned char *b[NCZ_NSCRATCH];
    size_t cap[NCZ_NSCRATCH];
} zscratch;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void
scratch_free(void *p)
{
    zscratch *z = p;
    if (z) {
        for (int i = 0; i < NCZ_NSCRATCH; i++)
            free(z->b[i]);
        free(z);
    }
}

static void
scratch_init(void)
{
    (void)pthread_key_create(&scratch_key, scratch_free);
}

unsigned char *
ncz_scratch(int which, size_t n)
{
    zscratch *z;
    pthread_once(&scratch_once, scratch_init);
    if ((z = pthread_getspecific(scratch_key)) == NULL) {
        if ((z = calloc(1, sizeof(*z))) == NULL)
            return NULL;
        if (pthread_setspecific(scratch_key, z) != 0) {
            free(z);
            return NULL;
        }
    }
    if (z->cap[which] < n || z->b[which] == NULL) {
        /* Contents need not survive: no realloc copy; some headroom for
         * chunks of varying stored size. */
        size_t cap = n + n / 4 + 64;
        free(z->b[which]);
        z->cap[which] = 0;
        if ((z->b[which] = malloc(cap)) == NULL)
            return NULL;
        z->cap[which] = cap;
    }
    return z->b[which];
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
ncz_copy_strided(int rank, size_t esize, const size_t *count, const void *src, const size_t *sstr,
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
ncz_all_fill(const void *buf, size_t n, size_t esize, const void *fill)
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

/* ---- variable-length strings ----------------------------------------------------- */

void
ncz_strings_free(char **v, size_t n)
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
ncz_strings_copy_strided(int rank, const size_t *count, char *const *src, const size_t *sstr, char **dst,
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
ncz_strings_all_fill(char *const *v, size_t n, const char *fill)
{
    if (fill == NULL)
        fill = "";
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i] ? v[i] : "", fill) != 0)
            return 0;
    return 1;
}

int
ncz_strings_fill(char **v, size_t n, const char *fill)
{
    if (fill == NULL || fill[0] == '\0') {
        memset(v, 0, n * sizeof(char *));
        return NC_NOERR;
    }
    for (size_t i = 0; i < n; i++)
        if (str_dup(fill, &v[i])) {
            ncz_strings_free(v, i);
            memset(v + i, 0, (n - i) * sizeof(char *));
            return NC_ENOMEM;
        }
    return NC_NOERR;
}
