/* dfile.c: file-level entry points: create, open, close, modes, inquiry.
 *
 * NC_create and NC_open are the single paths every variant goes through
 * (nc_create, nc__create_mp, nc_create_mem, nc_open_mem, ...).  They infer
 * the model, register an NC record and hand over to the format's slot.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ncstate.h"
#include "ncapi.h"
#include "ncinfer.h"
#include "netcdf_mem.h"

#define MIN_MAGIC_LEN 4  /* bytes a memory image needs for inference */

/* Mode-flag combinations that make no sense for any format. */
static int
check_create_mode(int cmode)
{
    int formats = 0;
    if (cmode & NC_64BIT_OFFSET) formats++;
    if (cmode & NC_64BIT_DATA) formats++;
    if (cmode & NC_NETCDF4) formats++;
    if (formats > 1)
        return NC_EINVAL;
    if ((cmode & NC_MMAP) && (cmode & NC_INMEMORY))
        return NC_EINVAL;
    /* An image in memory cannot also be a diskless file (upstream's code). */
    if ((cmode & NC_DISKLESS) && (cmode & NC_INMEMORY))
        return NC_EDISKLESS;
    if ((cmode & NC_MPIIO) && !NC_format_parallel())
        return NC_ENOPAR;
    return NC_NOERR;
}

static int
register_and_call(NC *nc, int iscreate, const char *path, int mode, size_t initialsz,
                  int basepe, size_t *chunksizehintp, void *parameters, int *ncidp)
{
    int stat;
    if ((stat = NC_registry_add(nc))) {
        NC_free(nc);
        return stat;
    }
    if (iscreate)
        stat = nc->dispatch->create(path, mode, initialsz, basepe, chunksizehintp,
                                    parameters, nc->dispatch, nc->ext_ncid);
    else
        stat = nc->dispatch->open(path, mode, basepe, chunksizehintp, parameters,
                                  nc->dispatch, nc->ext_ncid);
    if (stat != NC_NOERR) {
        NC_registry_remove(nc);
        return stat;
    }
    NC_registry_publish(nc);
    if (ncidp != NULL)
        *ncidp = nc->ext_ncid;
    return NC_NOERR;
}

/* A parallel create or open (nc_create_par, nc_open_par): the row's
 * parallel model serves the file (PnetCDF for classic files, HDF5 for
 * netCDF-4); NC_ENOTBUILT when no layer of this build serves it so. */
static int
use_parallel_model(NCmodel *m)
{
    int pm = m->fmt != NULL ? m->fmt->par_model : 0;
    for (size_t i = 0; pm != 0 && i < NC_nformats; i++) {
        const NC_Format *r = &NC_formats[i];
        if (r->model == pm && r->impl != NULL && (r->impl->flags & NC_IMPL_PARALLEL)) {
            m->fmt = r;
            m->impl = pm;
            return NC_NOERR;
        }
    }
    return NC_ENOTBUILT;
}

static int
NC_create_model(int par, const char *path0, int cmode, size_t initialsz, int basepe,
                size_t *chunksizehintp, void *parameters, int *ncidp)
{
    int stat, isurl = 0;
    char *path = NULL;
    NCmodel m;
    const NC_Dispatch *table = NULL;
    NC *nc = NULL;

    if ((stat = NC_ensure_initialized()))
        return stat;
    /* As upstream: a NULL ncidp is allowed (the id is not returned), and an
     * empty path is a malformed URL. */
    if (path0 == NULL)
        return NC_EINVAL;
    if (*path0 == '\0')
        return NC_EURL;
    if ((stat = check_create_mode(cmode)))
        return stat;
    if ((stat = NC_infer_url(path0, &isurl, &m, &path)))
        return stat;
    /* A URL's row decides (its layer creates what the URL names, or the
     * row has no layer in this build: NC_ENOTBUILT); a path's mode flags. */
    if (!isurl && (stat = NC_infer_create(cmode, NC_get_default_format(), &m)))
        goto done;
    if (par && (stat = isurl ? NC_EINVAL : use_parallel_model(&m)))
        goto done;
    if ((stat = NC_format_dispatch(&m, &table)))
        goto done;
    cmode |= m.mode;
    if ((stat = NC_new(path ? path : path0, cmode, m.impl, table, &nc)))
        goto done;
    stat = register_and_call(nc, 1, path ? path : path0, cmode, initialsz, basepe,
                             chunksizehintp, parameters, ncidp);
done:
    free(path);
    return stat;
}

static int
NC_create(const char *path0, int cmode, size_t initialsz, int basepe,
          size_t *chunksizehintp, void *parameters, int *ncidp)
{
    return NC_create_model(0, path0, cmode, initialsz, basepe, chunksizehintp, parameters,
                           ncidp);
}

static int
NC_open_model(int par, const char *path0, int omode, int basepe, size_t *chunksizehintp,
              void *parameters, int *ncidp)
{
    int stat, isurl = 0;
    char *path = NULL;
    NCmodel m = {0, 0, 0, NULL};
    const NC_Dispatch *table = NULL;
    NC *nc = NULL;

    if ((stat = NC_ensure_initialized()))
        return stat;
    /* As NC_create: NULL ncidp allowed, "" is a malformed URL. */
    if (path0 == NULL)
        return NC_EINVAL;
    if (*path0 == '\0')
        return NC_EURL;
    if ((omode & NC_MPIIO) && !NC_format_parallel())
        return NC_ENOPAR;
    if ((omode & NC_DISKLESS) && (omode & NC_INMEMORY))
        return NC_EDISKLESS;
    if ((stat = NC_infer_url(path0, &isurl, &m, &path)))
        return stat;
    /* A URL's row decides, as for create; a memory image or a file by its
     * bytes. */
    if (isurl) {
        stat = NC_NOERR;
    } else if ((omode & NC_INMEMORY) && parameters != NULL) {
        const NC_memio *mem = parameters;
        if (mem->memory == NULL || mem->size < MIN_MAGIC_LEN) {
            stat = NC_ENOTNC;
            goto done;
        }
        stat = NC_infer_bytes(mem->memory, mem->size, &m);
    } else {
        stat = NC_infer_open(path ? path : path0, &m);
    }
    if (stat == NC_NOERR && par)
        stat = (isurl || (omode & NC_INMEMORY)) ? NC_EINVAL : use_parallel_model(&m);
    if (stat)
        goto done;
    if ((stat = NC_format_dispatch(&m, &table)))
        goto done;
    omode |= m.mode;
    if ((stat = NC_new(path ? path : path0, omode, m.impl, table, &nc)))
        goto done;
    /* An opened file is in data mode: its first reads share the handle
     * lock (NC_new assumes the define mode of a created file). */
    nc->maybe_indef = 0;
    stat = register_and_call(nc, 0, path ? path : path0, omode, 0, basepe,
                             chunksizehintp, parameters, ncidp);
done:
    free(path);
    return stat;
}

static int
NC_open(const char *path0, int omode, int basepe, size_t *chunksizehintp,
        void *parameters, int *ncidp)
{
    return NC_open_model(0, path0, omode, basepe, chunksizehintp, parameters, ncidp);
}

int
NC_create_parallel(const char *path, int cmode, void *mpi, int *ncidp)
{
    return NC_create_model(1, path, cmode | NC_MPIIO, 0, 0, NULL, mpi, ncidp);
}

int
NC_open_parallel(const char *path, int omode, void *mpi, int *ncidp)
{
    return NC_open_model(1, path, omode | NC_MPIIO, 0, NULL, mpi, ncidp);
}

/* ---- create ------------------------------------------------------------------------ */

int
nc_create(const char *path, int cmode, int *ncidp)
{
    return NC_create(path, cmode, 0, 0, NULL, NULL, ncidp);
}

int
nc__create(const char *path, int cmode, size_t initialsz, size_t *chunksizehintp, int *ncidp)
{
    return NC_create(path, cmode, initialsz, 0, chunksizehintp, NULL, ncidp);
}

int
nc__create_mp(const char *path, int cmode, size_t initialsz, int basepe,
              size_t *chunksizehintp, int *ncidp)
{
    return NC_create(path, cmode, initialsz, basepe, chunksizehintp, NULL, ncidp);
}

int
nc_create_mem(const char *path, int mode, size_t initialsize, int *ncidp)
{
    if (mode & NC_MMAP)
        return NC_EINVAL;
    return NC_create(path, mode | NC_INMEMORY, initialsize, 0, NULL, NULL, ncidp);
}

/* ---- open ---------------------------------------------------------------------------- */

int
nc_open(const char *path, int mode, int *ncidp)
{
    return NC_open(path, mode, 0, NULL, NULL, ncidp);
}

int
nc__open(const char *path, int mode, size_t *chunksizehintp, int *ncidp)
{
    return NC_open(path, mode, 0, chunksizehintp, NULL, ncidp);
}

int
nc__open_mp(const char *path, int mode, int basepe, size_t *chunksizehintp, int *ncidp)
{
    return NC_open(path, mode, basepe, chunksizehintp, NULL, ncidp);
}

int
nc_open_mem(const char *path, int mode, size_t size, void *memory, int *ncidp)
{
    NC_memio mem;
    if (path == NULL || memory == NULL || size < MIN_MAGIC_LEN)
        return NC_EINVAL;
    if (mode & (NC_WRITE | NC_MMAP))
        return NC_EINVAL;
    mem.size = size;
    mem.memory = memory;
    mem.flags = NC_MEMIO_LOCKED;  /* the caller's buffer: never realloc'd or freed */
    return NC_open(path, mode | NC_INMEMORY, 0, NULL, &mem, ncidp);
}

int
nc_open_memio(const char *path, int mode, NC_memio *params, int *ncidp)
{
    if (path == NULL || params == NULL)
        return NC_EINVAL;
    if (params->memory == NULL || params->size < MIN_MAGIC_LEN)
        return NC_EINVAL;
    if (mode & NC_MMAP)
        return NC_EINVAL;
    return NC_open(path, mode | NC_INMEMORY, 0, NULL, params, ncidp);
}

/* ---- close, abort, delete --------------------------------------------------------- */

static int
NC_close(int ncid, NC_memio *memio)
{
    NC *nc;
    int stat;
    /* Closing goes through the root group's id; a subgroup's id is refused
     * and the file stays open, as upstream (nc_abort takes any group). */
    if ((ncid & NC_GRP_MASK) != 0) {
        if ((stat = NC_check_id(ncid, NULL)))
            return stat;
        return NC_EBADGRPID;
    }
    /* From here calls from other threads are NC_EBADID; those running
     * have ended. */
    if ((stat = NC_close_begin(ncid, &nc)))
        return stat;
    /* A format releases its state even when closing fails (the file may be
     * half-written, but it is closed), so the record goes too: keeping it
     * would leave an ncid pointing at freed state.  A format that refuses
     * to close and keeps the file open (its state still on dispatchdata:
     * netCDF-4 with an enum type that has no members, as upstream) keeps
     * the record, so that the program can mend the file and close again. */
    stat = nc->dispatch->close(ncid, memio);
    NC_close_end(nc, !(stat != NC_NOERR && nc->dispatchdata != NULL));
    return stat;
}

int
nc_close(int ncid)
{
    return NC_close(ncid, NULL);
}

int
nc_close_memio(int ncid, NC_memio *memio)
{
    return NC_close(ncid, memio);
}

int
nc_abort(int ncid)
{
    NC *nc;
    int stat;
    if ((stat = NC_close_begin(ncid, &nc)))
        return stat;
    stat = nc->dispatch->abort(ncid);
    NC_close_end(nc, 1);
    return stat;
}

int
nc_delete_mp(const char *path, int basepe)
{
    int ncid, stat;
    /* Only a file we recognise as netCDF is deleted. */
    if ((stat = NC_open(path, NC_NOWRITE, basepe, NULL, NULL, &ncid)))
        return stat;
    if ((stat = nc_close(ncid)))
        return stat;
    if (unlink(path) != 0)
        return errno ? errno : NC_EIO;
    return NC_NOERR;
}

int
nc_delete(const char *path)
{
    return nc_delete_mp(path, 0);
}

/* ---- define mode ------------------------------------------------------------------- */

int
nc_redef(int ncid)
{
    WITH_NC_EXCL(ncid);
    return nc->dispatch->redef(ncid);
}

int
nc__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align)
{
    int stat;
    WITH_NC_EXCL(ncid);
    if ((stat = nc->dispatch->_enddef(ncid, h_minfree, v_align, v_minfree, r_align)) == NC_NOERR)
        NC_handle_data_mode(&guard_);
    return stat;
}

int
nc_enddef(int ncid)
{
    /* Upstream's defaults: no extra header space, align on 4 bytes. */
    return nc__enddef(ncid, 0, 1, 0, 1);
}

int
nc_sync(int ncid)
{
    WITH_NC_EXCL(ncid);
    return nc->dispatch->sync(ncid);
}

int
nc_set_fill(int ncid, int fillmode, int *old_modep)
{
    WITH_NC_EXCL(ncid);
    /* The format checks fillmode (NC_EINVAL), after read-only (NC_EPERM),
     * as upstream. */
    return nc->dispatch->set_fill(ncid, fillmode, old_modep);
}

/* ---- inquiry ---------------------------------------------------------------------------- */

int
nc_inq_path(int ncid, size_t *pathlen, char *path)
{
    NC_HELD nc = NULL;
    int stat = NC_hold(ncid, &nc);
    if (stat)
        return stat;
    if (pathlen != NULL)
        *pathlen = strlen(nc->path);
    if (path != NULL)
        strcpy(path, nc->path);
    return NC_NOERR;
}

int
nc_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq(ncid, ndimsp, nvarsp, nattsp, unlimdimidp);
}

int nc_inq_ndims(int ncid, int *ndimsp) { return nc_inq(ncid, ndimsp, NULL, NULL, NULL); }
int nc_inq_nvars(int ncid, int *nvarsp) { return nc_inq(ncid, NULL, nvarsp, NULL, NULL); }
int nc_inq_natts(int ncid, int *nattsp) { return nc_inq(ncid, NULL, NULL, nattsp, NULL); }
int nc_inq_unlimdim(int ncid, int *unlimdimidp) { return nc_inq(ncid, NULL, NULL, NULL, unlimdimidp); }

int
nc_inq_unlimdims(int ncid, int *nunlimdimsp, int *unlimdimidsp)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_unlimdims(ncid, nunlimdimsp, unlimdimidsp);
}

int
nc_inq_format(int ncid, int *formatp)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_format(ncid, formatp);
}

int
nc_inq_format_extended(int ncid, int *formatp, int *modep)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_format_extended(ncid, formatp, modep);
}

int
nc_show_metadata(int ncid)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->show_metadata(ncid);
}

/* Multi-processor stubs kept for old programs: one processing element only. */
int
nc_set_base_pe(int ncid, int pe)
{
    NC_HELD nc = NULL;
    (void)pe;
    return NC_hold(ncid, &nc);
}

int
nc_inq_base_pe(int ncid, int *pe)
{
    NC_HELD nc = NULL;
    int stat = NC_hold(ncid, &nc);
    if (stat == NC_NOERR && pe != NULL)
        *pe = 0;
    return stat;
}
