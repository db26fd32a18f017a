/* dvarx.c: generic strided (vars) and mapped (varm) access for formats
 * that implement only contiguous hyperslabs, or only vars.
 *
 * Strided reads fetch the whole span of each innermost row in bounded
 * blocks and pick every stride-th element, instead of one call per
 * element.  Strided writes cannot overwrite the elements between, so they
 * write innermost elements one by one (formats with a faster way implement
 * their own put_vars).  Mapped access moves one innermost row at a time
 * through a row buffer and scatters or gathers it with the map.
 */
#include "config.h"
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "ncapi.h"
#include "ncvario.h"

#define SPAN_BLOCK_BYTES (1u << 20) /* bound on the temporary span buffer */

/* Element size of a memory type (user types need the file). */
static int
mem_size(int ncid, nc_type memtype, size_t *sizep)
{
    size_t n = NC_atomictypelen(memtype);
    if (n) {
        *sizep = n;
        return NC_NOERR;
    }
    return nc_inq_type(ncid, memtype, NULL, sizep);
}

/* Shared preparation: rank, element size, stride checks.  *trivial is set
 * when every stride is 1 or some count is 0 (nothing strided to do). */
static int
prepare(NC *nc, int ncid, int varid, nc_type memtype, const size_t *edges,
        const ptrdiff_t *stride, int *ndimsp, size_t *elsizep, int *trivial)
{
    int stat, ndims;
    nc_type xtype;
    if ((stat = NC_var_info(nc, ncid, varid, &xtype, &ndims)))
        return stat;
    if ((stat = mem_size(ncid, memtype == NC_NAT ? xtype : memtype, elsizep)))
        return stat;
    {
        int unit = 1, empty = 0;
        for (int i = 0; i < ndims; i++) {
            if (stride[i] < 1)
                return NC_ESTRIDE;
            unit &= stride[i] == 1;
            empty |= edges[i] == 0;
        }
        *trivial = unit || empty;
    }
    *ndimsp = ndims;
    return NC_NOERR;
}

/* Advance an odometer over dims [0, n); returns 0 when it wraps. */
static int
odometer_next(size_t *idx, const size_t *edges, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (++idx[i] < edges[i])
            return 1;
        idx[i] = 0;
    }
    return 0;
}

int
NCDEFAULT_get_vars(int ncid, int varid, const size_t *start, const size_t *edges,
                   const ptrdiff_t *stride, void *value, nc_type memtype)
{
    size_t idx[NC_MAX_VAR_DIMS] = {0}, st[NC_MAX_VAR_DIMS], cnt[NC_MAX_VAR_DIMS];
    size_t elsize, nrow, s;
    int ndims, trivial, stat, d;
    char *out = value, *span = NULL;
    WITH_NC(ncid);

    if ((stat = prepare(nc, ncid, varid, memtype, edges, stride, &ndims, &elsize, &trivial)))
        return stat;
    if (trivial || ndims == 0)
        return nc->dispatch->get_vara(ncid, varid, start, edges, value, memtype);
    d = ndims - 1;
    nrow = edges[d];
    s = (size_t)stride[d];
    if (s > 1) {
        /* elements per block so that the span of one block fits the bound */
        size_t per = SPAN_BLOCK_BYTES / elsize / s;
        size_t bytes = ((per ? per : 1) - 1) * s * elsize + elsize;
        if ((span = malloc(bytes)) == NULL)
            return NC_ENOMEM;
    }
    for (int i = 0; i < ndims; i++)
        cnt[i] = 1;
    do {
        for (int i = 0; i < d; i++)
            st[i] = start[i] + idx[i] * (size_t)stride[i];
        if (s == 1) {
            st[d] = start[d];
            cnt[d] = nrow;
            if ((stat = nc->dispatch->get_vara(ncid, varid, st, cnt, out, memtype)))
                goto done;
            out += nrow * elsize;
            continue;
        }
        for (size_t j = 0; j < nrow;) {
            size_t per = SPAN_BLOCK_BYTES / elsize / s;
            size_t take = per ? per : 1;
            if (take > nrow - j)
                take = nrow - j;
            st[d] = start[d] + j * s;
            cnt[d] = (take - 1) * s + 1;
            if ((stat = nc->dispatch->get_vara(ncid, varid, st, cnt, span, memtype)))
                goto done;
            for (size_t k = 0; k < take; k++)
                memcpy(out + k * elsize, span + k * s * elsize, elsize);
            out += take * elsize;
            j += take;
        }
    } while (odometer_next(idx, edges, d));
done:
    free(span);
    return stat;
}

int
NCDEFAULT_put_vars(int ncid, int varid, const size_t *start, const size_t *edges,
                   const ptrdiff_t *stride, const void *value, nc_type memtype)
{
    size_t idx[NC_MAX_VAR_DIMS] = {0}, st[NC_MAX_VAR_DIMS], cnt[NC_MAX_VAR_DIMS];
    size_t elsize, nrow, s;
    int ndims, trivial, stat = NC_NOERR, d, range = NC_NOERR;
    const char *in = value;
    WITH_NC(ncid);

    if ((stat = prepare(nc, ncid, varid, memtype, edges, stride, &ndims, &elsize, &trivial)))
        return stat;
    if (trivial || ndims == 0)
        return nc->dispatch->put_vara(ncid, varid, start, edges, value, memtype);
    d = ndims - 1;
    nrow = edges[d];
    s = (size_t)stride[d];
    for (int i = 0; i < ndims; i++)
        cnt[i] = 1;
    do {
        for (int i = 0; i < d; i++)
            st[i] = start[i] + idx[i] * (size_t)stride[i];
        if (s == 1) {
            st[d] = start[d];
            cnt[d] = nrow;
            stat = nc->dispatch->put_vara(ncid, varid, st, cnt, in, memtype);
            in += nrow * elsize;
        } else {
            for (size_t j = 0; j < nrow; j++) {
                st[d] = start[d] + j * s;
                stat = nc->dispatch->put_vara(ncid, varid, st, cnt, in, memtype);
                in += elsize;
                if (stat == NC_ERANGE) { range = stat; stat = NC_NOERR; }
                if (stat)
                    break;
            }
        }
        /* A range error still writes everything; report it at the end. */
        if (stat == NC_ERANGE) { range = stat; stat = NC_NOERR; }
        if (stat)
            return stat;
    } while (odometer_next(idx, edges, d));
    return range;
}

/* Is imap the natural C layout of edges (so varm is plain vars)? */
static int
natural_map(int ndims, const size_t *edges, const ptrdiff_t *imap)
{
    ptrdiff_t expect = 1;
    for (int i = ndims - 1; i >= 0; i--) {
        if (edges[i] > 1 && imap[i] != expect)
            return 0;
        expect *= (ptrdiff_t)edges[i];
    }
    return 1;
}

/* Before a count sizes the row buffer: start beyond a fixed-size dimension
 * is NC_EINVALCOORDS, a count beyond it NC_EEDGE (starts first, as the
 * format checks), and a count whose row would overflow size_t is NC_EEDGE.
 * Unlimited dimensions are left to the format (a put may extend them).
 * Without this an absurd count was multiplied into a short buffer and the
 * rows were copied past its end. */
static int
varm_check_counts(NC *nc, int ncid, int varid, int ndims, const size_t *start,
                  const size_t *edges, size_t elsize)
{
    int dimids[NC_MAX_VAR_DIMS], unlim[NC_MAX_DIMS], nunlim = 0, stat;
    size_t len[NC_MAX_VAR_DIMS];
    int fixed[NC_MAX_VAR_DIMS];
    if ((stat = nc_inq_vardimid(ncid, varid, dimids)))
        return stat;
    /* A user-defined format's table may lack inq_unlimdims: then its one
     * unlimited dimension, if any, from inq. */
    if (nc->dispatch->inq_unlimdims == NULL) {
        if (nc_inq_unlimdim(ncid, &unlim[0]) == NC_NOERR && unlim[0] >= 0)
            nunlim = 1;
    } else if (nc_inq_unlimdims(ncid, &nunlim, NULL) || nunlim > NC_MAX_DIMS
               || (nunlim > 0 && nc_inq_unlimdims(ncid, &nunlim, unlim))) {
        nunlim = 0;
    }
    for (int i = 0; i < ndims; i++) {
        fixed[i] = 1;
        for (int u = 0; u < nunlim; u++)
            if (unlim[u] == dimids[i])
                fixed[i] = 0;
        if ((stat = nc_inq_dimlen(ncid, dimids[i], &len[i])))
            return stat;
    }
    for (int i = 0; i < ndims; i++)
        if (fixed[i] && start[i] > len[i])
            return NC_EINVALCOORDS;
    for (int i = 0; i < ndims; i++)
        if (fixed[i] && edges[i] > len[i] - start[i])
            return NC_EEDGE;
    if (edges[ndims - 1] > SIZE_MAX / elsize)
        return NC_EEDGE;
    return NC_NOERR;
}

/* Shared body of get and put varm: walk rows, move each through a buffer. */
static int
varm_rows(NC *nc, int ncid, int varid, const size_t *start, const size_t *edges,
          const ptrdiff_t *stride, const ptrdiff_t *imap, char *value, nc_type memtype,
          int isput)
{
    size_t idx[NC_MAX_VAR_DIMS] = {0}, st[NC_MAX_VAR_DIMS], cnt[NC_MAX_VAR_DIMS];
    size_t elsize;
    int ndims, trivial, stat, d, range = NC_NOERR;
    char *row = NULL;

    if ((stat = prepare(nc, ncid, varid, memtype, edges, stride, &ndims, &elsize, &trivial)))
        return stat;
    if (ndims == 0 || natural_map(ndims, edges, imap))
        return isput ? nc->dispatch->put_vars(ncid, varid, start, edges, stride, value, memtype)
                     : nc->dispatch->get_vars(ncid, varid, start, edges, stride, value, memtype);
    for (int i = 0; i < ndims; i++)
        if (edges[i] == 0)  /* nothing to move; let the format check the coordinates */
            return isput ? nc->dispatch->put_vara(ncid, varid, start, edges, value, memtype)
                         : nc->dispatch->get_vara(ncid, varid, start, edges, value, memtype);
    if ((stat = varm_check_counts(nc, ncid, varid, ndims, start, edges, elsize)))
        return stat;
    d = ndims - 1;
    if ((row = malloc(edges[d] * elsize)) == NULL)
        return NC_ENOMEM;
    for (int i = 0; i < d; i++)
        cnt[i] = 1;
    cnt[d] = edges[d];
    st[d] = start[d];
    do {
        ptrdiff_t off = 0;
        for (int i = 0; i < d; i++) {
            st[i] = start[i] + idx[i] * (size_t)stride[i];
            off += (ptrdiff_t)idx[i] * imap[i];
        }
        if (isput) {
            for (size_t j = 0; j < edges[d]; j++)
                memcpy(row + j * elsize, value + (off + (ptrdiff_t)j * imap[d]) * (ptrdiff_t)elsize, elsize);
            stat = nc->dispatch->put_vars(ncid, varid, st, cnt, stride, row, memtype);
        } else {
            stat = nc->dispatch->get_vars(ncid, varid, st, cnt, stride, row, memtype);
            if (stat == NC_NOERR || stat == NC_ERANGE)
                for (size_t j = 0; j < edges[d]; j++)
                    memcpy(value + (off + (ptrdiff_t)j * imap[d]) * (ptrdiff_t)elsize, row + j * elsize, elsize);
        }
        if (stat == NC_ERANGE) { range = stat; stat = NC_NOERR; }
        if (stat)
            break;
    } while (odometer_next(idx, edges, d));
    free(row);
    return stat ? stat : range;
}

/* The checks of mapped access, in upstream's order (docs/error-precedence.md):
 * the variable (NC_ENOTVAR), text against numbers (NC_ECHAR), then for a
 * non-scalar every stride (NC_ESTRIDE for 0, negative or >= X_INT_MAX);
 * coordinates are checked after these, by the access itself. */
static int
varm_check(NC *nc, int ncid, int varid, nc_type memtype, const ptrdiff_t *stride)
{
    int stat, ndims;
    nc_type xtype;
    if ((stat = NC_var_info(nc, ncid, varid, &xtype, &ndims)))
        return stat;
    if (memtype == NC_NAT)
        memtype = xtype;
    if ((memtype == NC_CHAR) != (xtype == NC_CHAR))
        return NC_ECHAR;
    for (int i = 0; i < ndims; i++)
        if (stride[i] <= 0 || stride[i] >= (ptrdiff_t)NC_MAX_INT)
            return NC_ESTRIDE;
    return NC_NOERR;
}

int
NCDEFAULT_get_varm(int ncid, int varid, const size_t *start, const size_t *edges,
                   const ptrdiff_t *stride, const ptrdiff_t *imapp, void *value, nc_type memtype)
{
    int stat;
    WITH_NC(ncid);
    if (stride == NULL)
        stride = NC_stride_ones;
    if ((stat = varm_check(nc, ncid, varid, memtype, stride)))
        return stat;
    if (imapp == NULL)
        return nc->dispatch->get_vars(ncid, varid, start, edges, stride, value, memtype);
    return varm_rows(nc, ncid, varid, start, edges, stride, imapp, value, memtype, 0);
}

int
NCDEFAULT_put_varm(int ncid, int varid, const size_t *start, const size_t *edges,
                   const ptrdiff_t *stride, const ptrdiff_t *imapp, const void *value,
                   nc_type memtype)
{
    int stat;
    WITH_NC(ncid);
    if (stride == NULL)
        stride = NC_stride_ones;
    if ((stat = varm_check(nc, ncid, varid, memtype, stride)))
        return stat;
    if (imapp == NULL)
        return nc->dispatch->put_vars(ncid, varid, start, edges, stride, value, memtype);
    /* The row buffer is written, never the caller's data. */
    return varm_rows(nc, ncid, varid, start, edges, stride, imapp, (char *)(uintptr_t)value,
                     memtype, 1);
}

/* The public names of the same generic mapped access. */
int
NC_NOTNC3_get_varm(int ncid, int varid, const size_t *start, const size_t *edges,
                   const ptrdiff_t *stride, const ptrdiff_t *imapp, void *value0, nc_type memtype)
{
    return NCDEFAULT_get_varm(ncid, varid, start, edges, stride, imapp, value0, memtype);
}

int
NC_NOTNC3_put_varm(int ncid, int varid, const size_t *start, const size_t *edges,
                   const ptrdiff_t *stride, const ptrdiff_t *imapp, const void *value0,
                   nc_type memtype)
{
    return NCDEFAULT_put_varm(ncid, varid, start, edges, stride, imapp, value0, memtype);
}
