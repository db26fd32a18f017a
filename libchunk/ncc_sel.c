/* ncc_sel.c: the chunk grid and a selection over it (see ncchunk.h). */
#include "config.h"
#include <stdint.h>
#include "ncchunk.h"

int
ncc_grid_init(ncc_grid *g, int rank, const size_t *chunk, size_t esize, size_t maxbytes)
{
    if (rank < 0 || rank > NC_MAX_VAR_DIMS || esize == 0)
        return NC_EINVAL;
    g->rank = rank;
    g->esize = esize;
    g->chunkelems = 1;
    for (int k = 0; k < rank; k++) {
        g->chunk[k] = chunk[k];
        if (chunk[k] == 0 || g->chunkelems > SIZE_MAX / chunk[k])
            return NC_EINVAL;
        g->chunkelems *= chunk[k];
    }
    if (g->chunkelems > SIZE_MAX / esize || g->chunkelems * esize > maxbytes)
        return NC_EINVAL;
    g->chunkbytes = g->chunkelems * esize;
    if (rank > 0) {
        g->cstr[rank - 1] = 1;
        for (int k = rank - 2; k >= 0; k--)
            g->cstr[k] = g->cstr[k + 1] * g->chunk[k + 1];
    }
    return NC_NOERR;
}

int
ncc_check_bound(size_t start, size_t count, size_t stride, size_t len, int zero)
{
    size_t last = count ? start + stride * (count - 1) : start;
    if (start > len || (start == len && count > 0))
        return NC_EINVALCOORDS;
    if (!zero && count && last >= len)
        return NC_EEDGE;
    return NC_NOERR;
}

void
ncc_sel_regrid(ncc_sel *s, const ncc_grid *g)
{
    if (s->n == 0)
        return;
    for (int k = 0; k < s->rank; k++) {
        s->clo[k] = s->start[k] / g->chunk[k];
        s->chi[k] = (s->start[k] + s->stride[k] * (s->count[k] - 1)) / g->chunk[k];
    }
}

int
ncc_sel_init(ncc_sel *s, const ncc_grid *g, const size_t *start, const size_t *count, const ptrdiff_t *stride,
             const size_t *dimlen, const unsigned char *unbounded)
{
    int zero = 0, stat;
    s->rank = g->rank;
    s->n = 1;
    for (int k = 0; k < s->rank; k++)
        if (stride && stride[k] <= 0)
            return NC_ESTRIDE;
    for (int k = 0; k < s->rank; k++) {
        s->start[k] = start ? start[k] : 0;
        s->count[k] = count ? count[k] : dimlen[k];
        s->stride[k] = stride ? (size_t)stride[k] : 1;
        s->len[k] = dimlen[k];
        if (s->count[k] == 0)
            zero = 1;
    }
    for (int k = 0; k < s->rank; k++) {
        if (unbounded && unbounded[k])
            continue;
        if ((stat = ncc_check_bound(s->start[k], s->count[k], s->stride[k], dimlen[k], zero)))
            return stat;
    }
    if (zero) {
        s->n = 0;
        return NC_NOERR;
    }
    for (int k = s->rank - 1; k >= 0; k--) {
        s->ustr[k] = s->n;
        if (s->n > SIZE_MAX / s->count[k])
            return NC_ENOMEM;
        s->n *= s->count[k];
        if (s->stride[k] > (SIZE_MAX - s->start[k]) / s->count[k])
            return NC_EEDGE;
    }
    ncc_sel_regrid(s, g);
    return NC_NOERR;
}

int
ncc_sel_part(const ncc_grid *g, const ncc_sel *s, const uint64_t *idx, size_t *k0, size_t *nk, size_t *l0)
{
    for (int k = 0; k < s->rank; k++) {
        uint64_t c0 = idx[k] * g->chunk[k], c1 = c0 + g->chunk[k];
        uint64_t first = 0, last;
        if (c0 > s->start[k])
            first = (c0 - s->start[k] + s->stride[k] - 1) / s->stride[k];
        if (first >= s->count[k])
            return 0;
        if (s->start[k] + first * s->stride[k] >= c1)
            return 0;
        last = (c1 - 1 - s->start[k]) / s->stride[k];
        if (last >= s->count[k])
            last = s->count[k] - 1;
        k0[k] = (size_t)first;
        nk[k] = (size_t)(last - first + 1);
        l0[k] = (size_t)(s->start[k] + first * s->stride[k] - c0);
    }
    return 1;
}

int
ncc_sel_next(const ncc_sel *s, uint64_t *idx)
{
    for (int k = s->rank - 1; k >= 0; k--) {
        if (++idx[k] <= s->chi[k])
            return 1;
        idx[k] = s->clo[k];
    }
    return 0;
}

int
ncc_box_next(int rank, size_t *c, const size_t *lo, const size_t *hi)
{
    for (int k = rank - 1; k >= 0; k--) {
        if (++c[k] <= hi[k])
            return 1;
        c[k] = lo[k];
    }
    return 0;
}

size_t
ncc_sel_uoff(const ncc_sel *s, const size_t *k0)
{
    size_t off = 0;
    for (int k = 0; k < s->rank; k++)
        off += k0[k] * s->ustr[k];
    return off;
}

int
ncc_sel_contiguous(const ncc_grid *g, const ncc_sel *s)
{
    /* Below the first axis the selection must be the chunk itself. */
    for (int k = 1; k < s->rank; k++)
        if (s->count[k] != g->chunk[k])
            return 0;
    return 1;
}

int
ncc_part_direct(const ncc_grid *g, const ncc_sel *s, const size_t *nk)
{
    for (int k = 0; k < s->rank; k++)
        if (nk[k] != g->chunk[k] || (s->stride[k] != 1 && g->chunk[k] > 1))
            return 0;
    return ncc_sel_contiguous(g, s);
}

int
ncc_sel_small(const ncc_grid *g, const ncc_sel *s, size_t ratio)
{
    double touched = 1;
    for (int k = 0; k < s->rank; k++)
        touched *= (double)(s->chi[k] - s->clo[k] + 1) * (double)g->chunk[k];
    return (double)s->n * (double)ratio < touched;
}
