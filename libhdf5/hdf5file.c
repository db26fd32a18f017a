/* hdf5file.c: define mode, sync, abort and close of netCDF-4/HDF5 files.
 *
 * Leaving define mode (nc_enddef, the implicit enddef of a data call, sync,
 * close; libsrc4 holds the define-mode rules) writes the model
 * (nc4h5_flush) and flushes HDF5's buffers, as upstream's
 * sync_netcdf4_file.  Close (the model's ops->close, behind NC4_close and
 * NC4_abort) releases every HDF5 id hung on the tree before H5Fclose (with fclose degree WEAK an id left open would keep
 * the file open in HDF5 after it), then
 * frees the tree; it does so even when writing failed, and reports the
 * first error.  A file on disk whose flush before the close fails (no
 * room) is left open in HDF5 instead, for the exit handler to retry. */
#include "config.h"
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hdf5int.h"
#include "hdf5chunk.h"

static hid_t
file_id(NC4_file *f)
{
    NC4H5_file *hf = f->fmt;
    return hf ? hf->fid : -1;
}

/* Write the model and flush HDF5's buffers. */
static int
sync_file(NC4_file *f)
{
    int stat = NC_NOERR;
    if (!f->readonly)
        stat = nc4h5_flush(f);
    if (stat == NC_NOERR) {
        nc4h5_lock();
        if (file_id(f) >= 0 && H5Fflush(file_id(f), H5F_SCOPE_GLOBAL) < 0)
            stat = NC_EHDFERR;
        nc4h5_unlock();
    }
    return stat;
}

int
nc4h5_enddef(NC4_file *f)
{
    NC4H5_file *hf = f->fmt;
    f->indef = 0;
    f->explicit_redef = 0;
    if (hf)
        hf->first_define = 0;
    /* A parallel file gets the model but no H5Fflush: HDF5's MPI-IO driver
     * ends every flush but the last with MPI_File_sync, which writes the
     * whole file to disk on every rank (the fill values HDF5 has just
     * written included).  nc_sync and nc_close write HDF5's metadata. */
    if (hf && hf->par)
        return f->readonly ? NC_NOERR : nc4h5_flush(f);
    return sync_file(f);
}

/* A reader's nc_sync: unlimited dims take the extents the datasets have
 * now (another handle may have written records, as NC_SHARE expects;
 * upstream asks the datasets at every length inquiry). */
static void
refresh_unlimited(NC4_file *f)
{
    nc4h5_lock();
    for (size_t i = 0; i < f->ngrps; i++) {
        NC4_grp *g = f->grps[i];
        for (size_t j = 0; j < g->vars.n; j++) {
            NC4_var *v = (NC4_var *)g->vars.items[j];
            NC4H5_var *hv = v->fmt;
            hsize_t cur[H5S_MAX_RANK];
            hid_t did, sid;
            int unlim = 0;
            for (int k = 0; k < v->ndims; k++)
                unlim |= v->dims[k]->unlimited;
            if (!unlim || !v->created || v->ndims > H5S_MAX_RANK)
                continue;
            if (!hv || nc4h5_var_open_dataset(v))
                continue;
            did = hv->did;
            if ((sid = H5Dget_space(did)) >= 0) {
                if (H5Sget_simple_extent_ndims(sid) == v->ndims &&
                    H5Sget_simple_extent_dims(sid, cur, NULL) >= 0)
                    for (int k = 0; k < v->ndims; k++)
                        if (v->dims[k]->unlimited && cur[k] > v->dims[k]->len)
                            v->dims[k]->len = (size_t)cur[k];
                H5Sclose(sid);
            }
        }
    }
    nc4h5_unlock();
}

/* nc_sync's durability: after H5Fflush, the file's own descriptor is
 * fsync'd when HDF5 writes it through the POSIX (sec2) driver; other
 * drivers (memory, MPI-IO) are left as they are. */
static int
fsync_file(NC4_file *f)
{
    hid_t fid = file_id(f), fapl;
    void *handle = NULL;
    int stat = NC_NOERR;
    if (fid < 0)
        return NC_NOERR;
    nc4h5_lock();
    if ((fapl = H5Fget_access_plist(fid)) >= 0) {
        if (H5Pget_driver(fapl) == H5FD_SEC2 && H5Fget_vfd_handle(fid, fapl, &handle) >= 0
            && handle != NULL && fsync(*(int *)handle) != 0)
            stat = NC_EIO;
        H5Pclose(fapl);
    }
    nc4h5_unlock();
    return stat;
}

int
NC4_HDF5_sync(int ncid)
{
    NC4_file *f;
    int stat;
    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if (f->readonly) {
        refresh_unlimited(f);
        return sync_file(f);
    }
    if (f->indef)
        stat = nc4_sync_define(f); /* nc4h5_enddef syncs */
    else
        stat = sync_file(f);
    return stat ? stat : fsync_file(f);
}

/* HDF5 1.10 frees a file whose H5Fclose failed (its last flush could not
 * write: a file size limit, a full disk) but keeps its id (a dataset's
 * H5Dclose the same), and its shutdown at exit closes that id again: a
 * crash after the error was reported.  So the shutdown is ours when we
 * start HDF5 (HDF5 then registers none):
 * - nc_close flushes a file before closing anything (close_file); when
 *   that fails, the file and its ids are left open in HDF5, unchanged, and
 *   the error returned;
 * - at exit, the files so left are flushed again (the disk may have room
 *   now), and H5close runs only when that worked and no close failed:
 *   otherwise HDF5 is left as it is (the process is ending; its memory and
 *   descriptors go with it).
 * When HDF5 was started before us, or its exit handler turned off by the
 * program, HDF5's shutdown stays. */
static atomic_int close_failed;
static atomic_int own_shutdown; /* shutdown_hdf5 is registered */
static hid_t *left_open;   /* files left open by a failed close (HDF5 lock) */
static size_t nleft, left_cap;

static void
shutdown_hdf5(void)
{
    int ok = !atomic_load(&close_failed);
    for (size_t i = 0; i < nleft; i++)
        if (H5Fflush(left_open[i], H5F_SCOPE_LOCAL) < 0)
            ok = 0;
    free(left_open);
    left_open = NULL;
    nleft = left_cap = 0;
    if (ok)
        H5close();
}

void
nc4h5_own_shutdown(void)
{
    static atomic_int taken;
    /* H5dont_atexit fails once HDF5 has registered its handler (it does
     * at its start) or when asked before */
    if (!atomic_exchange(&taken, 1) && H5dont_atexit() >= 0 && atexit(shutdown_hdf5) == 0)
        atomic_store(&own_shutdown, 1);
}

/* Remember fid as left open (under the HDF5 lock); 0 when done. */
static int
leave_open(hid_t fid)
{
    if (nleft == left_cap) {
        size_t cap = left_cap ? 2 * left_cap : 4;
        hid_t *p = realloc(left_open, cap * sizeof *p);
        if (!p)
            return -1;
        left_open = p;
        left_cap = cap;
    }
    left_open[nleft++] = fid;
    return 0;
}

/* Close every HDF5 id the tree holds (not the file).  Closing a dataset
 * writes what HDF5's chunk cache holds of it: a full disk shows here, and
 * H5Fclose (fclose degree WEAK or SEMI) does not repeat that write, so the
 * first failure is returned (NC_EHDFERR); every id is closed regardless.
 * With keep, the tree lets go of the ids without closing them (they stay
 * open in HDF5: a file left open, see close_file). */
#define DROP_ID(id, closer) do { \
        if (!keep && closer(id) < 0) { stat = NC_EHDFERR; atomic_store(&close_failed, 1); } \
        (id) = -1; } while (0)
static int
close_ids(NC4_file *f, int keep)
{
    int stat = NC_NOERR;
    for (size_t i = 0; i < f->ngrps; i++) {
        NC4_grp *g = f->grps[i];
        for (size_t j = 0; j < g->vars.n; j++) {
            NC4H5_var *hv = ((NC4_var *)g->vars.items[j])->fmt;
            if (hv && hv->did >= 0)
                DROP_ID(hv->did, H5Dclose);
        }
    }
    for (size_t i = 0; i < f->ndims; i++) {
        NC4H5_dim *hd = f->dims[i]->fmt;
        if (hd && hd->dsid >= 0)
            DROP_ID(hd->dsid, H5Dclose);
    }
    for (size_t i = 0; i < f->ntypes; i++) {
        NC4H5_type *ht = f->types[i]->fmt;
        if (ht && ht->ftid >= 0)
            DROP_ID(ht->ftid, H5Tclose);
        if (ht && ht->mtid >= 0)
            DROP_ID(ht->mtid, H5Tclose);
    }
    for (size_t i = 0; i < f->ngrps; i++) {
        NC4H5_grp *hg = f->grps[i]->fmt;
        if (hg && hg->gid >= 0)
            DROP_ID(hg->gid, H5Gclose);
    }
    return stat;
}
#undef DROP_ID

/* The file image of an in-memory file, in a new buffer. */
static int
take_image(hid_t fid, NC_memio *memio)
{
    ssize_t n;
    void *buf;
    if (H5Fflush(fid, H5F_SCOPE_GLOBAL) < 0 || (n = H5Fget_file_image(fid, NULL, 0)) < 0)
        return NC_EHDFERR;
    if (!(buf = malloc(n ? (size_t)n : 1)))
        return NC_ENOMEM;
    if (H5Fget_file_image(fid, buf, (size_t)n) < 0) {
        free(buf);
        return NC_EHDFERR;
    }
    /* HDF5 1.10 clears the "open for writing" flag of a version-2/3
     * superblock in this image but keeps the checksum made with it set. */
    nc4h5_fix_image(buf, (size_t)n);
    memio->size = (size_t)n;
    memio->memory = buf;
    memio->flags = 0;
    return NC_NOERR;
}

/* Release everything of f; write first unless aborting.  memio (close of
 * an in-memory file) receives the final image. */
static int
close_file(NC4_file *f, int abort, NC_memio *memio)
{
    int stat = NC_NOERR, s;
    NC4H5_file *hf = f->fmt;

    if (!abort && !f->readonly) {
        f->indef = 0;
        stat = nc4h5_flush(f);
    }
    nc4h5_lock();
    if (hf && hf->fid >= 0 && !abort && memio && hf->mem == NC_INMEMORY) {
        if (f->readonly && hf->memio.memory) {
            /* Nothing changed: the caller's image comes back as given (the
             * same buffer, as upstream; a locked one is the caller's anyway). */
            *memio = hf->memio;
            memio->flags = hf->memio_locked ? NC_MEMIO_LOCKED : 0;
        } else if ((s = take_image(hf->fid, memio)) && !stat)
            stat = s;
    }
    /* A file on disk written by this process alone: flushed first, left
     * open when that fails (see shutdown_hdf5) */
    if (hf && hf->fid >= 0 && !abort && !f->readonly && !hf->mem && !hf->par &&
        atomic_load(&own_shutdown) && H5Fflush(hf->fid, H5F_SCOPE_LOCAL) < 0 &&
        leave_open(hf->fid) == 0) {
        (void)close_ids(f, 1);
        hf->fid = -1;
        if (!stat)
            stat = NC_EHDFERR;
    }
    if ((s = close_ids(f, 0)) && !stat)
        stat = s;
    if (hf && hf->fid >= 0) {
        if (H5Fclose(hf->fid) < 0) {
            atomic_store(&close_failed, 1);
            if (!stat)
                stat = NC_EHDFERR;
        }
        hf->fid = -1;
    }
    nc4h5_unlock();
    nc4_file_free(f);
    return stat;
}

/* nc_abort: the changes are not written. */
static int
abort_file(NC4_file *f)
{
    NC4H5_file *hf = f->fmt;
    char *path = NULL;
    int stat = NC_NOERR, s, remove_it;

    /* A file still in the define mode of its creation disappears; one in
     * redef keeps what was written before (the changes are not written). */
    remove_it = hf && hf->first_define && hf->path && (!hf->mem || hf->persist);
    if (remove_it && !(path = strdup(hf->path)))
        return NC_ENOMEM;
    /* Upstream's abort still closes the HDF5 file, which writes HDF5's chunk
     * cache: data put before the abort stays.  Ours must do the same with its
     * own cache of partial chunks; a file about to be removed need not. */
    if (!remove_it && !f->readonly)
        stat = nc4h5_chunk_cache_flush_file(f);
    if ((s = close_file(f, 1, NULL)) && !stat)
        stat = s;
    if (path) {
        if (remove(path) < 0 && stat == NC_NOERR)
            stat = NC_ECANTREMOVE;
        free(path);
    }
    return stat;
}

int
nc4h5_close(NC4_file *f, int abort, void *params)
{
    return abort ? abort_file(f) : close_file(f, 0, (NC_memio *)params);
}

/* An enum type without members cannot be stored (HDF5 refuses it).
 * Upstream's close fails on such a type and keeps the file open, so that
 * members can still be added. */
int
nc4h5_check_close(NC4_file *f)
{
    if (f->readonly)
        return NC_NOERR;
    for (size_t i = 0; i < f->ntypes; i++) {
        const NC4_type *t = f->types[i];
        if (t && t->tclass == NC_ENUM && !t->committed && t->members.n == 0)
            return NC_EINVAL;
    }
    return NC_NOERR;
}
