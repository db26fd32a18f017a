/* hdf5var.c: what only HDF5 knows about variables -- its chunk limit, the
 * filters it has, the per-dataset chunk cache.
 *
 * nc4h5_check_chunking / nc4h5_check_filter are the model's storage checks
 * (nc4h5_ops), run before a define call changes the model. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "hdf5int.h"
#include "hdf5chunk.h"
#include "ncfilter.h"
#include "../plugins/H5Zblosc_local.h" /* shared with the h5blosc plugin */

/* szip option bits and limit (HDF5's H5_SZIP_*). */
#ifndef H5_SZIP_EC_OPTION_MASK
#define H5_SZIP_EC_OPTION_MASK 4
#endif
#ifndef H5_SZIP_NN_OPTION_MASK
#define H5_SZIP_NN_OPTION_MASK 32
#endif
#define SZIP_MAX_PIXELS_PER_BLOCK 32

/* ---- libfilter's codecs registered with HDF5 ----------------------------------
 * HDF5 finds plugins only on HDF5_PLUGIN_PATH (or its compiled-in default);
 * the library finds its own codecs with no environment at all, and hands
 * them to HDF5 so both pipelines have the same filters. */

int
nc4h5_filter_register(unsigned int id)
{
    const ncf_codec *codec;
    H5Z_class2_t cls;
    if (H5Zfilter_avail((H5Z_filter_t)id) > 0)
        return NC_NOERR;
    /* Built-ins only: HDF5 keeps the class's pointers for the life of the
     * process, and a plugin's would dangle after ncf_finalize's dlclose
     * (third-party plugins reach HDF5 through HDF5_PLUGIN_PATH anyway). */
    if (id == H5Z_FILTER_SZIP)  /* needs HDF5's own set_local: HDF5 without szip has none */
        return NC_ENOFILTER;
    if (ncf_codec_find(id, &codec) != NC_NOERR || codec->filter == NULL || !codec->builtin)
        return NC_ENOFILTER;
    memset(&cls, 0, sizeof(cls));
    cls.version = H5Z_CLASS_T_VERS;
    cls.id = (H5Z_filter_t)id;
    cls.encoder_present = codec->can_encode;
    cls.decoder_present = codec->can_decode;
    cls.name = codec->name;
    cls.set_local = id == NCF_H5_BLOSC_ID ? ncf_h5_blosc_set_local : NULL;
    cls.filter = (H5Z_func_t)codec->filter;
    return H5Zregister(&cls) < 0 ? NC_ENOFILTER : NC_NOERR;
}

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
    avail = nc4h5_filter_register(id) == NC_NOERR;
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
    avail = nc4h5_filter_register(id) == NC_NOERR;
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

    if ((stat = nc4_find_var(ncid, varid, &f, &g, &var)))
        return stat;
    /* The write-back cache is bounded by these settings: empty it first. */
    if ((stat = nc4h5_chunk_cache_flush(var, 1)))
        return stat;
    if ((stat = NC4_set_var_chunk_cache(ncid, varid, size, nelems, preemption)))
        return stat;
    hv = var->fmt;
    hg = g->fmt;
    /* An open dataset takes a cache only when opened: reopen it.  One not
     * open yet (lazy open) takes the new settings when nc4h5_var_open_dataset
     * opens it. */
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
