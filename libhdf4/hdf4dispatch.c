/* hdf4dispatch.c: the HDF4 layer's dispatch table, open/close and reads.
 *
 * The metadata lives in an in-memory classic (CDF-5) substrate that is
 * never written: inquiries go to it through libdispatch's substrate
 * forwarding (dsubstrate.h), so its answers and errors are the classic
 * layer's.  The record dimension's length is ours.  Reads come from the
 * file (hdf4file.c).  The file reports itself as netCDF-4
 * (NC_FORMATX_NC_HDF4), as upstream's HDF4 layer does; every modifying
 * call is NC_EPERM.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncdispatch.h"
#include "dsubstrate.h"
#include "ncx.h"
#include "hdf4int.h"

static int
h4_get(int ncid, H4file **fp, NC **subp)
{
    void *state;
    int stat = NC_substrate_get(ncid, &state, subp);
    if (stat == NC_NOERR)
        *fp = state;
    return stat;
}

#define SUB(ncid)                          \
    H4file *f;                             \
    NC *sub;                               \
    int stat = h4_get((ncid), &f, &sub);   \
    if (stat)                              \
        return stat

static void
h4_free(H4file *f)
{
    if (f == NULL)
        return;
    if (f->subid >= 0)
        nc_abort(f->subid);
    h4_file_free(f);
    free(f);
}

static int
H4_open(const char *path, int mode, int basepe, size_t *chunksizehintp, void *parameters,
        const NC_Dispatch *table, int ncid)
{
    NC *nc;
    H4file *f;
    int stat;
    char subname[64];
    (void)basepe;
    (void)chunksizehintp;
    (void)parameters;
    (void)table;
    if (mode & NC_WRITE)
        return NC_EPERM;
    if (mode & (NC_INMEMORY | NC_DISKLESS | NC_MMAP))
        return NC_EINVAL;  /* upstream's HDF4 layer reads files only */
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if ((f = calloc(1, sizeof *f)) == NULL)
        return NC_ENOMEM;
    f->ncid = ncid;
    f->subid = -1;
    f->fd = -1;
    f->recdimid = -1;
    if ((stat = h4_open_file(path, f)))
        goto fail;
    snprintf(subname, sizeof subname, "hdf4-substrate-%d", ncid);
    if ((stat = nc_create(subname, NC_DISKLESS | NC_64BIT_DATA | NC_CLOBBER, &f->subid))) {
        f->subid = -1;
        goto fail;
    }
    nc_set_fill(f->subid, NC_NOFILL, NULL);
    if ((stat = h4_build(f))
        || (stat = NC_substrate_attach(nc, ncid, f->subid, f, &f->recdimid, &f->numrecs)))
        goto fail;
    return NC_NOERR;
fail:
    h4_free(f);
    return stat;
}

static int
H4_close(int ncid, void *ignore)
{
    NC *nc;
    int stat;
    (void)ignore;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    h4_free(NC_substrate_detach(nc));
    return NC_NOERR;
}

static int
H4_abort(int ncid)
{
    return H4_close(ncid, NULL);
}

/* ---- inquiries ------------------------------------------------------------------ */

static int
H4_inq_format(int ncid, int *formatp)
{
    SUB(ncid);
    (void)f;
    (void)sub;
    if (formatp)
        *formatp = NC_FORMAT_NETCDF4;
    return NC_NOERR;
}

static int
H4_inq_format_extended(int ncid, int *formatp, int *modep)
{
    NC *nc;
    int stat;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (formatp)
        *formatp = NC_FORMATX_NC_HDF4;
    if (modep)
        *modep = nc->mode | NC_NETCDF4;
    return NC_NOERR;
}

static int
H4_inq_var_all(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp,
               int *nattsp, int *shufflep, int *deflatep, int *deflate_levelp,
               int *fletcher32p, int *contiguousp, size_t *chunksizesp, int *no_fill,
               void *fill_valuep, int *endiannessp, unsigned int *idp, size_t *nparamsp,
               unsigned int *params)
{
    SUB(ncid);
    /* the netCDF-4 properties are ours: the substrate is classic */
    if ((stat = sub->dispatch->inq_var_all(f->subid, varid, name, xtypep, ndimsp, dimidsp,
                                           nattsp, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                           fill_valuep, NULL, NULL, NULL, NULL)))
        return stat;
    const H4var *v = NULL;
    for (size_t i = 0; i < f->nvars; i++)
        if (f->vars[i].varid == varid)
            v = &f->vars[i];
    if (no_fill)
        *no_fill = 0;  /* the substrate is NC_NOFILL; the data sets have fill values */
    if (shufflep)
        *shufflep = 0;
    if (deflatep)
        *deflatep = 0;
    if (deflate_levelp)
        *deflate_levelp = 0;
    if (fletcher32p)
        *fletcher32p = 0;
    if (contiguousp)
        *contiguousp = v && v->chunked ? NC_CHUNKED : NC_CONTIGUOUS;
    if (chunksizesp && v && v->chunked)
        for (int i = 0; i < v->ndims; i++)
            chunksizesp[i] = v->chunkshape[i];
    if (endiannessp)
        *endiannessp = NC_ENDIAN_NATIVE;
    if (idp)
        *idp = 0;
    if (nparamsp)
        *nparamsp = 0;
    (void)params;
    return NC_NOERR;
}

/* ---- reads ----------------------------------------------------------------------- */

static int
H4_get_vars(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, void *value, nc_type memtype)
{
    const H4var *v = NULL;
    size_t total = 1, zero[1] = {0}, one[1] = {1};
    ptrdiff_t st[NC_MAX_VAR_DIMS];
    SUB(ncid);
    (void)sub;
    for (size_t i = 0; i < f->nvars; i++)
        if (f->vars[i].varid == varid)
            v = &f->vars[i];
    if (v == NULL)
        return NC_ENOTVAR;
    if (memtype == NC_NAT)
        memtype = v->type;
    if ((memtype == NC_CHAR) != (v->type == NC_CHAR))
        return NC_ECHAR;
    if (memtype <= NC_NAT || memtype > NC_UINT64 || memtype == NC_STRING)
        return NC_EBADTYPE;
    if (v->ndims == 0) {
        start = zero;
        count = one;
    }
    for (int i = 0; i < v->ndims; i++) {
        size_t len = i == 0 && v->isrec ? f->numrecs : v->shape[i];
        st[i] = stride ? stride[i] : 1;
        if (st[i] <= 0)
            return NC_ESTRIDE;
        if (start[i] > len || (start[i] == len && count[i] > 0))
            return NC_EINVALCOORDS;
        if (count[i] > 0 && count[i] - 1 > (len - start[i] - 1) / (size_t)st[i])
            return NC_EEDGE;
        if (count[i] > 0 && total > SIZE_MAX / 8 / count[i])
            return NC_EINVAL;
        total *= count[i];
    }
    if (total == 0)
        return NC_NOERR;
    void *tmp = value;
    if (memtype != v->type && (tmp = malloc(total * v->esize)) == NULL)
        return NC_ENOMEM;
    stat = h4_read_vars(f, v, start, count, st, tmp);
    if (stat == NC_NOERR && tmp != value)
        stat = ncx_convert(v->type, tmp, memtype, value, total);
    if (tmp != value)
        free(tmp);
    return stat;
}

static int
H4_get_vara(int ncid, int varid, const size_t *start, const size_t *count, void *value,
            nc_type memtype)
{
    return H4_get_vars(ncid, varid, start, count, NULL, value, memtype);
}

/* Upstream's HDF4 layer answers user-type inquiries from its (empty)
 * netCDF-4 metadata: no type is a user-defined type. */
static int
H4_inq_user_type(int ncid, nc_type t, char *name, size_t *sizep, nc_type *basep,
                 size_t *nfieldsp, int *classp)
{
    (void)t;
    (void)name;
    (void)sizep;
    (void)basep;
    (void)nfieldsp;
    (void)classp;
    SUB(ncid);
    (void)f;
    (void)sub;
    return NC_EBADTYPE;
}

/* The classic model's slots, but for inq_user_type, which upstream's HDF4
 * layer answers from its metadata: the later initializer is meant. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winitializer-overrides"
#elif defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#endif
static const NC_Dispatch H4_table = {
    .model = NC_FORMATX_NC_HDF4,
    .dispatch_version = NC_DISPATCH_VERSION,
    NC_READONLY_SLOTS,
    .open = H4_open,
    .abort = H4_abort,
    .close = H4_close,
    .inq_format = H4_inq_format,
    .inq_format_extended = H4_inq_format_extended,
    NC_SUBSTRATE_SLOTS,
    .get_vara = H4_get_vara,
    .get_vars = H4_get_vars,
    .get_varm = NCDEFAULT_get_varm,
    .inq_var_all = H4_inq_var_all,
    .var_par_access = NC_NOTNC4_var_par_access,
    NC_CLASSIC_MODEL_SLOTS,
    .inq_user_type = H4_inq_user_type,
};
#if defined(__clang__)
#pragma clang diagnostic pop
#elif defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

const NC_Dispatch *NCH4_dispatch_table = &H4_table;
