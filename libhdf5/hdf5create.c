/* hdf5create.c: NC4_HDF5_create, a new netCDF-4 file on HDF5.
 *
 * The file gets upstream's HDF5 settings, so that its structure is the one
 * upstream writes:
 *   access:   fclose degree WEAK (HDF5's default, so that another H5Fopen
 *             of the same file in the process agrees with ours), the
 *             nc_set_alignment settings, the library's chunk cache
 *             defaults, library format bounds v1.8 .. latest (superblock
 *             version 2);
 *   creation: link and attribute creation order tracked and indexed, no
 *             object modification times.
 * NC_DISKLESS uses HDF5's core driver (NC_PERSIST: its backing store writes
 * the path at close); NC_INMEMORY (nc_create_mem) the core driver without a
 * backing store, whose image nc_close_memio hands back.
 * _NCProperties is made here and written by the first flush (hdf5flush.c). */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hdf5int.h"
#include "ncstate.h"
#include "netcdf_meta.h"

/* Core driver growth step: 10% of the size hint, at least 64 KiB (upstream's). */
static size_t
core_increment(size_t initialsz)
{
    size_t step = initialsz / 10;
    return step > 65536 ? step : 65536;
}

int
nc4h5_fapl_settings(hid_t fapl)
{
    int threshold, alignment;

    if (H5Pset_fclose_degree(fapl, H5F_CLOSE_WEAK) < 0)
        return NC_EHDFERR;
    if (NC_get_alignment_defaults(&threshold, &alignment) &&
        H5Pset_alignment(fapl, (hsize_t)threshold, (hsize_t)alignment) < 0)
        return NC_EHDFERR;
    return NC_NOERR;
}

/* The access property list of a new file. */
static int
make_fapl(int cmode, size_t initialsz, int persist, hid_t *faplp)
{
    hid_t fapl;
    size_t size, nelems;
    float preempt;

    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0)
        return NC_EHDFERR;
    NC_get_chunk_cache_defaults(&size, &nelems, &preempt);
    if (nc4h5_fapl_settings(fapl) ||
        H5Pset_cache(fapl, 0, nelems, size, preempt) < 0)
        goto fail;
    /* Upstream creates in-memory files with HDF5's default bounds
     * (superblock 0); H5Fget_file_image of an open superblock-2 file
     * also carries a stale checksum. */
    if (!(cmode & NC_INMEMORY) &&
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)
        goto fail;
    if ((cmode & (NC_DISKLESS | NC_INMEMORY)) &&
        H5Pset_fapl_core(fapl, core_increment(initialsz), persist ? 1 : 0) < 0)
        goto fail;
    *faplp = fapl;
    return NC_NOERR;
fail:
    H5Pclose(fapl);
    return NC_EHDFERR;
}

static int
make_fcpl(int cmode, hid_t *fcplp)
{
    hid_t fcpl;
    if ((fcpl = H5Pcreate(H5P_FILE_CREATE)) < 0)
        return NC_EHDFERR;
    /* NC_NOATTCREORD: attribute creation order not tracked (4.9's option). */
    if (H5Pset_obj_track_times(fcpl, 0) < 0 ||
        H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
        (!(cmode & NC_NOATTCREORD) &&
         H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0)) {
        H5Pclose(fcpl);
        return NC_EHDFERR;
    }
    *fcplp = fcpl;
    return NC_NOERR;
}

/* "version=2,netcdf=4.10.1,hdf5=1.10.8", as upstream's provenance. */
int
nc4h5_make_ncproperties(char **textp)
{
    unsigned maj, min, rel;
    char buf[128];

    if (H5get_libversion(&maj, &min, &rel) < 0)
        return NC_EHDFERR;
    snprintf(buf, sizeof buf, "version=2,netcdf=%s,hdf5=%u.%u.%u", NC_VERSION, maj, min, rel);
    if (!(*textp = strdup(buf)))
        return NC_ENOMEM;
    return NC_NOERR;
}

static NC4H5_grp *
new_grp_fmt(void)
{
    NC4H5_grp *g = calloc(1, sizeof(*g));
    if (g) {
        g->kind = NC4H5_KGRP;
        g->gid = -1;
    }
    return g;
}

int
NC4_HDF5_create(const char *path, int cmode, size_t initialsz, int basepe,
                size_t *chunksizehintp, void *parameters, const NC_Dispatch *table,
                int ncid)
{
    int stat = NC_NOERR;
    NC *nc = NULL;
    NC4_file *f = NULL;
    NC4H5_file *hf = NULL;
    NC4H5_grp *hg = NULL;
    hid_t fapl = -1, fcpl = -1, fid = -1, gid = -1;
    void *par = NULL;           /* hdf5par.c: a parallel create's state */
    int mem = cmode & (NC_DISKLESS | NC_INMEMORY);
    int persist = (cmode & NC_DISKLESS) && (cmode & NC_PERSIST);
    unsigned flags;
    H5F_info2_t finfo;

    (void)basepe; (void)chunksizehintp; (void)table; (void)parameters; (void)par;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (cmode & (NC_MMAP | NC_64BIT_OFFSET | NC_CDF5))
        return NC_EINVAL;
    if ((cmode & NC_DISKLESS) && (cmode & NC_INMEMORY))
        return NC_EDISKLESS;        /* nc_create_mem with NC_DISKLESS, as upstream */
    /* An existing path is refused before HDF5 sees it (upstream's order);
     * a memory file never looks at the disk. */
    if (!mem && (cmode & NC_NOCLOBBER) && access(path, F_OK) == 0)
        return NC_EEXIST;
    flags = (!mem && (cmode & NC_NOCLOBBER)) ? H5F_ACC_EXCL : H5F_ACC_TRUNC;

    nc4h5_lock();
    if ((stat = make_fapl(cmode, initialsz, persist, &fapl)) || (stat = make_fcpl(cmode, &fcpl)))
        goto done;
#if NC_ENABLE_PARALLEL4
    /* nc_create_par: HDF5's MPI-IO driver (hdf5par.c). */
    if ((stat = nc4h5_par_begin(&par, cmode, parameters, fapl)))
        goto done;
#endif
    if ((fid = H5Fcreate(path, flags, fcpl, fapl)) < 0) {
        /* Upstream reports the likely cause, a path it may not write. */
        stat = (!mem && (cmode & NC_NOCLOBBER) && access(path, F_OK) == 0) ? NC_EEXIST : EACCES;
        goto done;
    }
    if ((gid = H5Gopen2(fid, "/", H5P_DEFAULT)) < 0) {
        stat = NC_EFILEMETA;
        goto done;
    }

    if ((stat = nc4_file_new(nc, nc->ext_ncid, cmode, NC_FORMATX_NC_HDF5, &nc4h5_ops, &f)))
        goto done;
    f->indef = 1;
    f->dirty = 1;
    f->is_netcdf4 = 1;
    if (!(hf = calloc(1, sizeof(*hf))) || !(hg = new_grp_fmt())) {
        stat = NC_ENOMEM;
        goto done;
    }
    hf->kind = NC4H5_KFILE;
    hf->fid = fid;
    hf->mem = (cmode & NC_INMEMORY) ? NC_INMEMORY : (cmode & NC_DISKLESS) ? NC_DISKLESS : 0;
    hf->persist = persist;
    hf->first_define = 1;
    hf->par = par;
    par = NULL;
    if (path && !(hf->path = strdup(path))) {
        stat = NC_ENOMEM;
        goto done;
    }
    f->fmt = hf;
    hf = NULL;
    fid = -1;                   /* owned by f->fmt now */
    hg->gid = gid;
    f->root->fmt = hg;
    hg = NULL;
    gid = -1;
    f->root->created = 1;
    if (!(f->root->hdr.stored_name = strdup("/"))) {
        stat = NC_ENOMEM;
        goto done;
    }

    if (H5Fget_info2(((NC4H5_file *)f->fmt)->fid, &finfo) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    f->superblock = (int)finfo.super.version;
    /* Written by the first flush, after the user's root attributes (upstream's order). */
    stat = nc4h5_make_ncproperties(&f->ncproperties);
done:
    if (fapl >= 0) H5Pclose(fapl);
    if (fcpl >= 0) H5Pclose(fcpl);
    if (stat) {
        /* Nothing of the new file stays: close what is open, drop the tree,
         * and remove what HDF5 created on disk. */
        int created_on_disk = fid >= 0 || (f && f->fmt && ((NC4H5_file *)f->fmt)->fid >= 0);
        if (gid >= 0) H5Gclose(gid);
        if (fid >= 0) H5Fclose(fid);
        free(hg);
        if (hf) {
            free(hf->path);
            free(hf);
        }
        if (f) {
            NC4H5_file *ff = f->fmt;
            NC4H5_grp *rg = f->root->fmt;
            if (rg && rg->gid >= 0) {
                H5Gclose(rg->gid);
                rg->gid = -1;
            }
            if (ff && ff->fid >= 0) {
                H5Fclose(ff->fid);
                ff->fid = -1;
            }
            nc4_file_free(f);
        }
        nc->dispatchdata = NULL;
        if (created_on_disk && (!mem || persist))
            (void)remove(path);
    }
#if NC_ENABLE_PARALLEL4
    nc4h5_par_end(&par);
#endif
    nc4h5_unlock();
    return stat;
}
