/* dvar.c: variable definition and inquiry entry points, including the
 * per-variable storage settings of the enhanced model. */
#include "config.h"
#include <string.h>
#include "ncapi.h"
#include "ncstate.h"
#include "netcdf_filter.h"

#define MEGABYTE 1048576

int
nc_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp, int *varidp)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NEW_NAME(name, nm, nc->dispatch->def_var(ncid, nm, xtype, ndims, dimidsp, varidp));
}

int
nc_inq_varid(int ncid, const char *name, int *varidp)
{
    WITH_NC_SHARED(ncid);
    if (name == NULL)
        return NC_EINVAL;
    RETURN_WITH_NAME(name, nm, nc->dispatch->inq_varid(ncid, nm, varidp));
}

int
nc_rename_var(int ncid, int varid, const char *name)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NEW_NAME(name, nm, nc->dispatch->rename_var(ncid, varid, nm));
}

/* inq_var_all with only the listed outputs; the rest NULL. */
#define INQ_ALL(nc, ncid, varid, name, xt, nd, dims, natts, shuf, defl, lvl, f32, contig,  \
                chunks, nofill, fill, endian)                                              \
    (nc)->dispatch->inq_var_all((ncid), (varid), (name), (xt), (nd), (dims), (natts),      \
                                (shuf), (defl), (lvl), (f32), (contig), (chunks),          \
                                (nofill), (fill), (endian), NULL, NULL, NULL)

int
nc_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
           int *dimidsp, int *nattsp)
{
    WITH_NC_SHARED(ncid);
    return INQ_ALL(nc, ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp,
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}

int nc_inq_varname(int ncid, int varid, char *name)
{ return nc_inq_var(ncid, varid, name, NULL, NULL, NULL, NULL); }
int nc_inq_vartype(int ncid, int varid, nc_type *xtypep)
{ return nc_inq_var(ncid, varid, NULL, xtypep, NULL, NULL, NULL); }
int nc_inq_varndims(int ncid, int varid, int *ndimsp)
{ return nc_inq_var(ncid, varid, NULL, NULL, ndimsp, NULL, NULL); }
int nc_inq_vardimid(int ncid, int varid, int *dimidsp)
{ return nc_inq_var(ncid, varid, NULL, NULL, NULL, dimidsp, NULL); }
int nc_inq_varnatts(int ncid, int varid, int *nattsp)
{
    if (varid == NC_GLOBAL)
        return nc_inq_natts(ncid, nattsp);
    return nc_inq_var(ncid, varid, NULL, NULL, NULL, NULL, nattsp);
}

/* ---- fill values ------------------------------------------------------------------ */

int
nc_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value)
{
    WITH_NC_EXCL(ncid);
    return nc->dispatch->def_var_fill(ncid, varid, no_fill, fill_value);
}

int
nc_inq_var_fill(int ncid, int varid, int *no_fill, void *fill_valuep)
{
    WITH_NC_SHARED(ncid);
    return INQ_ALL(nc, ncid, varid, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL, NULL, no_fill, fill_valuep, NULL);
}

/* ---- storage settings (enhanced model; classic formats answer NC_ENOTNC4) ---- */

int
nc_def_var_deflate(int ncid, int varid, int shuffle, int deflate, int deflate_level)
{
    WITH_NC_EXCL(ncid);
    return nc->dispatch->def_var_deflate(ncid, varid, shuffle, deflate, deflate_level);
}

int
nc_inq_var_deflate(int ncid, int varid, int *shufflep, int *deflatep, int *deflate_levelp)
{
    size_t nparams = 0;
    unsigned int params[4];
    int deflating, stat;
    WITH_NC_SHARED(ncid);

    /* Deflate is one filter among others: ask the filter list. */
    stat = nc_inq_var_filter_info(ncid, varid, H5Z_FILTER_DEFLATE, &nparams, NULL);
    if (stat == NC_ENOFILTER) {
        deflating = 0;
    } else if (stat == NC_NOERR) {
        if (nparams != 1)
            return NC_EFILTER;
        if ((stat = nc_inq_var_filter_info(ncid, varid, H5Z_FILTER_DEFLATE, &nparams, params)))
            return stat;
        deflating = 1;
    } else {
        return stat;
    }
    if (deflatep) *deflatep = deflating;
    if (deflate_levelp) *deflate_levelp = deflating ? (int)params[0] : 0;
    if (shufflep == NULL)
        return NC_NOERR;
    return INQ_ALL(nc, ncid, varid, NULL, NULL, NULL, NULL, NULL, shufflep, NULL, NULL, NULL,
                   NULL, NULL, NULL, NULL, NULL);
}

int
nc_def_var_fletcher32(int ncid, int varid, int fletcher32)
{
    WITH_NC_EXCL(ncid);
    return nc->dispatch->def_var_fletcher32(ncid, varid, fletcher32);
}

int
nc_inq_var_fletcher32(int ncid, int varid, int *fletcher32p)
{
    WITH_NC_SHARED(ncid);
    return INQ_ALL(nc, ncid, varid, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   fletcher32p, NULL, NULL, NULL, NULL, NULL);
}

int
nc_def_var_chunking(int ncid, int varid, int storage, const size_t *chunksizesp)
{
    WITH_NC_EXCL(ncid);
    return nc->dispatch->def_var_chunking(ncid, varid, storage, chunksizesp);
}

int
nc_inq_var_chunking(int ncid, int varid, int *storagep, size_t *chunksizesp)
{
    WITH_NC_SHARED(ncid);
    return INQ_ALL(nc, ncid, varid, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   storagep, chunksizesp, NULL, NULL, NULL);
}

/* Fortran helpers: chunk sizes as ints. */
int
nc_def_var_chunking_ints(int ncid, int varid, int contiguous, int *chunksizesp)
{
    size_t sizes[NC_MAX_VAR_DIMS];
    int ndims, stat;
    if ((stat = nc_inq_varndims(ncid, varid, &ndims)))
        return stat;
    if (chunksizesp != NULL) {
        for (int i = 0; i < ndims; i++) {
            if (chunksizesp[i] < 0)
                return NC_EINVAL;
            sizes[i] = (size_t)chunksizesp[i];
        }
    }
    return nc_def_var_chunking(ncid, varid, contiguous, chunksizesp ? sizes : NULL);
}

int
nc_inq_var_chunking_ints(int ncid, int varid, int *contiguousp, int *chunksizesp)
{
    size_t sizes[NC_MAX_VAR_DIMS];
    int ndims, stat, storage = NC_CONTIGUOUS;
    if ((stat = nc_inq_varndims(ncid, varid, &ndims)))
        return stat;
    if ((stat = nc_inq_var_chunking(ncid, varid, &storage, sizes)))
        return stat;
    if (contiguousp != NULL)
        *contiguousp = storage;
    /* Chunk sizes exist only for chunked storage (as upstream). */
    if (chunksizesp != NULL && storage == NC_CHUNKED) {
        for (int i = 0; i < ndims; i++) {
            if (sizes[i] > (size_t)NC_MAX_INT)
                return NC_ERANGE;
            chunksizesp[i] = (int)sizes[i];
        }
    }
    return NC_NOERR;
}

int
nc_def_var_endian(int ncid, int varid, int endian)
{
    WITH_NC_EXCL(ncid);
    return nc->dispatch->def_var_endian(ncid, varid, endian);
}

int
nc_inq_var_endian(int ncid, int varid, int *endianp)
{
    WITH_NC_SHARED(ncid);
    return INQ_ALL(nc, ncid, varid, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL, NULL, NULL, NULL, endianp);
}

int
nc_def_var_quantize(int ncid, int varid, int quantize_mode, int nsd)
{
    WITH_NC_EXCL(ncid);
    if (varid == NC_GLOBAL)
        return NC_EGLOBAL;
    return nc->dispatch->def_var_quantize(ncid, varid, quantize_mode, nsd);
}

int
nc_inq_var_quantize(int ncid, int varid, int *quantize_modep, int *nsdp)
{
    WITH_NC_SHARED(ncid);
    if (varid == NC_GLOBAL)
        return NC_EGLOBAL;
    return nc->dispatch->inq_var_quantize(ncid, varid, quantize_modep, nsdp);
}

/* ---- per-variable chunk cache ----------------------------------------------------- */

int
nc_set_var_chunk_cache(int ncid, int varid, size_t size, size_t nelems, float preemption)
{
    WITH_NC_EXCL(ncid);
    return nc->dispatch->set_var_chunk_cache(ncid, varid, size, nelems, preemption);
}

int
nc_get_var_chunk_cache(int ncid, int varid, size_t *sizep, size_t *nelemsp, float *preemptionp)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->get_var_chunk_cache(ncid, varid, sizep, nelemsp, preemptionp);
}

/* Fortran helpers: size in MiB, preemption in percent; negative keeps the default. */
int
nc_set_var_chunk_cache_ints(int ncid, int varid, int size, int nelems, int preemption)
{
    size_t real_size, real_nelems;
    float real_pre;
    NC_get_chunk_cache_defaults(&real_size, &real_nelems, &real_pre);
    if (size >= 0) real_size = (size_t)size * MEGABYTE;
    if (nelems >= 0) real_nelems = (size_t)nelems;
    if (preemption >= 0) real_pre = (float)preemption / 100.0f;
    return nc_set_var_chunk_cache(ncid, varid, real_size, real_nelems, real_pre);
}

int
nc_get_var_chunk_cache_ints(int ncid, int varid, int *sizep, int *nelemsp, int *preemptionp)
{
    size_t size, nelems;
    float pre;
    int stat = nc_get_var_chunk_cache(ncid, varid, &size, &nelems, &pre);
    if (stat)
        return stat;
    if (sizep) *sizep = (int)(size / MEGABYTE);
    if (nelemsp) *nelemsp = (int)nelems;
    if (preemptionp) *preemptionp = (int)(pre * 100.0f);
    return NC_NOERR;
}
