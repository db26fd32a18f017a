/* hdf5var.c: what only HDF5 knows about variables -- its chunk limit, the
 * filters it has, the per-dataset chunk cache.
 *
 * nc4h5_check_chunking / nc4h5_check_filter are the model's storage checks
 * (nc4h5_ops), run before a define call changes the model. */
#include "config.h"
#include <stdlib.h>
#include "hdf5int.h"

/* szip option bits and limit (HDF5's H5_SZIP_*). */
#ifndef H5_SZIP_EC_OPTION_MASK
#define H5_SZIP_EC_OPTION_MASK 4
#endif
#ifndef H5_SZIP_NN_OPTION_MASK
#define H5_SZIP_NN_OPTION_MASK 32
#endif
#define SZIP_MAX_PIXELS_PER_BLOCK 32

int
nc4h5_check_chunking(NC4_file *f, NC4_var *var, const size_t *chunks)
{
    double bytes;
    if (!chunks)
        return NC_NOERR;
    /* A chunk is addressed with 32 bits in HDF5: at most 4 GiB - 1 bytes.
     * Vlen values count as their handle (upstream's rule). */
    if (var->xtype >= NC_FIRSTUSERTYPEID) {
        NC4_type *t = NULL;
        if (nc4_find_type(f, var->xtype, &t) == NC_NOERR && t && t->tclass == NC_VLEN)
            bytes = (double)sizeof(nc_vlen_t);
        else
            bytes = (double)nc4_type_size(f, var->xtype);
    } else
        bytes = (double)nc4_type_size(f, var->xtype);
    for (int d = 0; d < var->ndims; d++)
        bytes *= (double)chunks[d];
    if (bytes > (double)NC_MAX_UINT)
        return NC_EBADCHUNK;
    return NC_NOERR;
}

int
nc4h5_check_filter(NC4_file *f, NC4_var *var, unsigned int id, size_t nparams,
                   const unsigned int *params)
{
    htri_t avail;
    (void)f; (void)var;
    if (id == H5Z_FILTER_SZIP) {
        unsigned int mask, ppb;
        if (nparams < 2 || !params)
            return NC_EINVAL;
        mask = params[0];
        ppb = params[1];
        if (!(mask & (H5_SZIP_EC_OPTION_MASK | H5_SZIP_NN_OPTION_MASK)))
            return NC_EINVAL;
        if ((ppb % 2) || ppb == 0 || ppb > SZIP_MAX_PIXELS_PER_BLOCK)
            return NC_EINVAL;
    }
    nc4h5_lock();
    avail = H5Zfilter_avail((H5Z_filter_t)id);
    nc4h5_unlock();
    return avail > 0 ? NC_NOERR : NC_ENOFILTER;
}

int
NC4_HDF5_inq_filter_avail(int ncid, unsigned int id)
{
    int stat;
    htri_t avail;
    if ((stat = nc4_find_grp(ncid, NULL, NULL)))
        return stat;
    nc4h5_lock();
    avail = H5Zfilter_avail((H5Z_filter_t)id);
    nc4h5_unlock();
    return avail > 0 ? NC_NOERR : NC_ENOFILTER;
}

int
NC4_HDF5_set_var_chunk_cache(int ncid, int varid, size_t size, size_t nelems, float preemption)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4H5_var *hv;
    NC4H5_grp *hg;
    hid_t dapl;
    int stat;

    if ((stat = NC4_set_var_chunk_cache(ncid, varid, size, nelems, preemption)))
        return stat;
    if ((stat = nc4_find_var(ncid, varid, &f, &g, &var)))
        return stat;
    hv = var->fmt;
    hg = g->fmt;
    /* An open dataset takes a cache only when opened: reopen it. */
    if (!hv || hv->did < 0 || !hg || hg->gid < 0 || var->storage != NC_CHUNKED ||
        !var->hdr.stored_name)
        return NC_NOERR;
    nc4h5_lock();
    if ((dapl = H5Pcreate(H5P_DATASET_ACCESS)) < 0 ||
        H5Pset_chunk_cache(dapl, var->cache_nelems, var->cache_size, var->cache_preemption) < 0) {
        stat = NC_EHDFERR;
    } else {
        H5Dclose(hv->did);
        if ((hv->did = H5Dopen2(hg->gid, var->hdr.stored_name, dapl)) < 0)
            stat = NC_EHDFERR;
    }
    if (dapl >= 0)
        H5Pclose(dapl);
    nc4h5_unlock();
    return stat;
}
