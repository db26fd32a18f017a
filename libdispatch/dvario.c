/* dvario.c: the data-access core behind every nc_get/put_var* family.
 *
 * Fills in what the caller may omit (memory type NC_NAT = the variable's
 * type, NULL count = whole extent, NULL stride = ones, NULL imap = natural
 * order) and calls the format's get/put slot once.  The generic strided and
 * mapped implementations for layers without their own are in dvarx.c.
 */
#include "config.h"
#include <stdint.h>
#include <string.h>
#include "ncapi.h"
#include "ncvario.h"

/* Constant vectors long enough for any variable. */
#define ONES4 1, 1, 1, 1
#define ONES16 ONES4, ONES4, ONES4, ONES4
#define ONES64 ONES16, ONES16, ONES16, ONES16
#define ONES256 ONES64, ONES64, ONES64, ONES64
#define ONES1024 ONES256, ONES256, ONES256, ONES256
const size_t NC_ones[NC_MAX_VAR_DIMS] = {ONES1024};
const ptrdiff_t NC_stride_ones[NC_MAX_VAR_DIMS] = {ONES1024};
const size_t NC_zeros[NC_MAX_VAR_DIMS];

int
NC_var_info(NC *nc, int ncid, int varid, nc_type *xtypep, int *ndimsp)
{
    return nc->dispatch->inq_var_all(ncid, varid, NULL, xtypep, ndimsp, NULL, NULL, NULL,
                                     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL, NULL);
}

int
NC_var_shape(NC *nc, int ncid, int varid, int ndims, size_t *shape)
{
    int dimids[NC_MAX_VAR_DIMS];
    int stat;
    if (ndims == 0)
        return NC_NOERR;
    if ((stat = nc->dispatch->inq_var_all(ncid, varid, NULL, NULL, NULL, dimids, NULL, NULL,
                                          NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                          NULL, NULL, NULL)))
        return stat;
    for (int i = 0; i < ndims; i++)
        if ((stat = nc->dispatch->inq_dim(ncid, dimids[i], NULL, &shape[i])))
            return stat;
    return NC_NOERR;
}

/* What a request needs resolved before it reaches the format. */
typedef struct request {
    nc_type memtype;           /* resolved memory type */
    const size_t *start;       /* never NULL for ndims > 0 */
    const size_t *count;
    const ptrdiff_t *stride;
    size_t shape[NC_MAX_VAR_DIMS]; /* storage when count defaults to the extent */
} request;

/* Resolve defaults.  whole: start is all zeros and count the whole extent.
 * keep_nat: an untyped request (NC_NAT) goes to the format as it is, which
 * uses the variable's own type; upstream does so for var1 only, so there the
 * format's varid checks (NC_EGLOBAL) come first. */
static int
resolve(NC *nc, int ncid, int varid, nc_type memtype, const size_t *start,
        const size_t *count, const ptrdiff_t *stride, int whole, int keep_nat, request *r)
{
    int ndims = 0, stat;
    nc_type xtype = NC_NAT;
    int need_info = (memtype == NC_NAT && !keep_nat) || whole || start == NULL || count == NULL;

    r->memtype = memtype;
    r->start = start;
    r->count = count;
    r->stride = stride ? stride : NC_stride_ones;
    if (!need_info)
        return NC_NOERR;
    if ((stat = NC_var_info(nc, ncid, varid, &xtype, &ndims)))
        return stat;
    if (memtype == NC_NAT)
        r->memtype = xtype;
    if (whole) {
        r->start = NC_zeros;
        r->count = NULL;
    } else if (start == NULL) {
        if (ndims > 0)
            return NC_EINVALCOORDS;
        r->start = NC_zeros;
    }
    if (r->count == NULL) {
        if ((stat = NC_var_shape(nc, ncid, varid, ndims, r->shape)))
            return stat;
        r->count = r->shape;
    }
    return NC_NOERR;
}

/* The one path of every data access: resolve defaults, then call the slot.
 * shape selects the request's form: a hyperslab (vara), one element (var1:
 * count of ones), the whole variable (var), strided (vars) or mapped (varm). */
typedef enum { ACC_VARA, ACC_VAR1, ACC_VAR, ACC_VARS, ACC_VARM } access_form;

static int
access_data(int isput, access_form form, int ncid, int varid, const size_t *start,
            const size_t *count, const ptrdiff_t *stride, const ptrdiff_t *imap,
            void *value, nc_type memtype)
{
    const NC_Dispatch *d;
    request r;
    int stat;
    WITH_NC(ncid);
    /* Writes exclusive: one may grow an unlimited dimension that reads of
     * other variables check their bounds against. */
    NC_GUARD guard_ = {NULL, NULL, 0};
    if (nc->locking)
        NC_handle_lock_data(nc, isput, &guard_);
    d = nc->dispatch;
    if (form == ACC_VAR1)
        count = NC_ones;
    if ((stat = resolve(nc, ncid, varid, memtype, start, count, stride, form == ACC_VAR,
                        form == ACC_VAR1, &r)))
        return stat;
    /* Mapped access always goes to the varm slot, even without a map: its
     * checks come in another order than those of vars (NC_ECHAR first). */
    if (form == ACC_VARM)
        stat = isput ? d->put_varm(ncid, varid, r.start, r.count, r.stride, imap, value, r.memtype)
                     : d->get_varm(ncid, varid, r.start, r.count, r.stride, imap, value, r.memtype);
    else if (form == ACC_VARS)
        stat = isput ? d->put_vars(ncid, varid, r.start, r.count, r.stride, value, r.memtype)
                     : d->get_vars(ncid, varid, r.start, r.count, r.stride, value, r.memtype);
    else
        stat = isput ? d->put_vara(ncid, varid, r.start, r.count, value, r.memtype)
                     : d->get_vara(ncid, varid, r.start, r.count, value, r.memtype);
    if (stat == NC_NOERR)
        NC_handle_data_mode(&guard_);
    return stat;
}

/* Writes never modify the caller's data; the slots take it as const. */
#define IN(v) ((void *)(uintptr_t)(v))

int NC_get_vara(int ncid, int varid, const size_t *start, const size_t *count,
                void *value, nc_type memtype)
{ return access_data(0, ACC_VARA, ncid, varid, start, count, NULL, NULL, value, memtype); }
int NC_get_var(int ncid, int varid, void *value, nc_type memtype)
{ return access_data(0, ACC_VAR, ncid, varid, NULL, NULL, NULL, NULL, value, memtype); }
int NC_get_var1(int ncid, int varid, const size_t *index, void *value, nc_type memtype)
{ return access_data(0, ACC_VAR1, ncid, varid, index, NULL, NULL, NULL, value, memtype); }
int NC_get_vars(int ncid, int varid, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, void *value, nc_type memtype)
{ return access_data(0, ACC_VARS, ncid, varid, start, count, stride, NULL, value, memtype); }
int NC_get_varm(int ncid, int varid, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, const ptrdiff_t *imap, void *value, nc_type memtype)
{ return access_data(0, ACC_VARM, ncid, varid, start, count, stride, imap, value, memtype); }

int NC_put_vara(int ncid, int varid, const size_t *start, const size_t *count,
                const void *value, nc_type memtype)
{ return access_data(1, ACC_VARA, ncid, varid, start, count, NULL, NULL, IN(value), memtype); }
int NC_put_var(int ncid, int varid, const void *value, nc_type memtype)
{ return access_data(1, ACC_VAR, ncid, varid, NULL, NULL, NULL, NULL, IN(value), memtype); }
int NC_put_var1(int ncid, int varid, const size_t *index, const void *value, nc_type memtype)
{ return access_data(1, ACC_VAR1, ncid, varid, index, NULL, NULL, NULL, IN(value), memtype); }
int NC_put_vars(int ncid, int varid, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, const void *value, nc_type memtype)
{ return access_data(1, ACC_VARS, ncid, varid, start, count, stride, NULL, IN(value), memtype); }
int NC_put_varm(int ncid, int varid, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, const ptrdiff_t *imap, const void *value, nc_type memtype)
{ return access_data(1, ACC_VARM, ncid, varid, start, count, stride, imap, IN(value), memtype); }
