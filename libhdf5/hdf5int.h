/* hdf5int.h: libhdf5's internal contract (netCDF-4 files on HDF5).
 *
 * libhdf5 is the only part of the library that includes hdf5.h.  No hid_t,
 * property list or HDF5 error stack leaves it: every herr_t/hid_t failure
 * becomes an NC_* code at the function that made the HDF5 call, and every
 * id it opens it closes (or hangs on an object's fmt state, closed when the
 * file closes).
 *
 * The model (groups, dims, vars, atts, types) lives in libsrc4 (nc4model.h);
 * this layer loads it when a file opens (hdf5open.c), writes what the model
 * marks dirty at enddef/sync/close (hdf5flush.c), and moves data
 * (hdf5data.c).  Files:
 *   hdf5dispatch.c  the NC_Dispatch table, initialize/finalize
 *   hdf5lock.c      the library-wide HDF5 lock (below)
 *   hdf5type.c      netCDF type <-> HDF5 datatype, committed user types
 *   hdf5att.c       attribute read (at open) and write (at flush)
 *   hdf5open.c      NC4_HDF5_open: file/memory open, the tree, pure HDF5 files
 *   hdf5data.c      get/put vara/vars, fill of unwritten regions, growth of
 *                   unlimited dimensions
 *   hdf5create.c    NC4_HDF5_create: file access/creation settings, memory files
 *   hdf5flush.c     writing the model: groups, types, dimension scales and
 *                   phony dimension datasets, variables (creation property
 *                   lists), attributes and the hidden convention attributes,
 *                   renames, deleted attributes
 *   hdf5dimscale.c  dimension-scale bookkeeping as HDF5's H5DS writes it
 *   hdf5file.c      redef/enddef/sync/abort/close, inq_format_extended
 *   hdf5var.c       HDF5-specific define checks (chunk limits, filters HDF5
 *                   has), chunk cache slots, filter inquiries
 *   hdf5heap.c      global-heap references of variable-length data checked
 *                   before HDF5 reads them
 *
 * Locking: every libhdf5 entry point that calls HDF5 holds the HDF5 lock
 * (nc4h5_lock/unlock) for its whole HDF5 sequence, so several threads using
 * different files are safe; classic files never take it.  The lock is
 * recursive (an entry point may call another).  Compute-only work (type
 * conversion of data already read) may run outside it.
 */
#ifndef HDF5INT_H
#define HDF5INT_H

#include <hdf5.h>
#include "ncdispatch.h"
#include "nc4model.h"
#include "netcdf_mem.h"

/* ---- lock (hdf5lock.c) ----------------------------------------------------- */
/* Take/release the library-wide HDF5 lock.  The first take in each thread
 * also turns off HDF5's automatic error printing for that thread. */
void nc4h5_lock(void);
void nc4h5_unlock(void);
/* Does this thread hold the lock?  (Code that waits on pool threads lets
 * them take it only when it does not.) */
int nc4h5_lock_held(void);

/* ---- names of the on-disk conventions ----------------------------------------- */
#define NC4H5_DIMID_ATT     "_Netcdf4Dimid"
#define NC4H5_COORDS_ATT    "_Netcdf4Coordinates"
#define NC4H5_NON_COORD     "_nc4_non_coord_"
#define NC4H5_STRICT_ATT    "_nc3_strict"
#define NC4H5_NCPROPS_ATT   "_NCProperties"
/* The attribute that records a variable's quantize setting (written at
 * flush, read back at open). */
#define NC4H5_QUANT_BITGROOM_ATT   "_QuantizeBitGroomNumberOfSignificantDigits"
#define NC4H5_QUANT_GRANULARBR_ATT "_QuantizeGranularBitRoundNumberOfSignificantDigits"
#define NC4H5_QUANT_BITROUND_ATT   "_QuantizeBitRoundNumberOfSignificantBits"
#define NC4H5_DIMSCALE_NOVAR "This is a netCDF dimension but not a netCDF variable."

/* ---- per-object state hung on the model's fmt pointers ------------------------------ */
enum { NC4H5_KFILE = 1, NC4H5_KGRP, NC4H5_KDIM, NC4H5_KVAR, NC4H5_KTYPE };

typedef struct NC4H5_file {
    int kind;              /* NC4H5_KFILE */
    hid_t fid;             /* the open HDF5 file, -1 when closed */
    int mem;               /* 0 disk, else NC_INMEMORY or NC_DISKLESS */
    int persist;           /* diskless + NC_PERSIST: write the image to path at close */
    NC_memio memio;        /* image given to nc_open_mem(io)/nc_create_mem */
    int memio_locked;      /* NC_MEMIO_LOCKED: the caller keeps the buffer */
    char *path;
    int first_define;      /* created and not yet out of its first define mode:
                            * nc_abort removes the file */
    int memio_owned;       /* memio.memory was taken from an unlocked caller
                            * (nc_open_memio + NC_WRITE): nc4h5_free_fmt frees it
                            * unless the close set it to NULL */
    int lazy;              /* read by the native reader (h5n.h): fid and the
                            * groups' gids stay -1 until nc4h5_ensure_hdf5 */
    size_t lazy_csize, lazy_cnelems; float lazy_cpre; /* its file cache settings */
    struct h5n_file *guard;/* hdf5heap.c: the file read by the native reader for
                            * checks before HDF5 reads variable-length data */
    int guard_tried;       /* guard opened (or found impossible) once */
    void *par;             /* hdf5par.c: a file opened or created in parallel
                            * (its communicator, access modes); NULL serial */
    struct h5n_obj *guard_obj; /* the last object header it parsed (attributes) */
    struct nc4h5_rref *remote; /* a URL read by byte ranges (hdf5remote.c): the
                            * remote file HDF5 and the native reader read, or NULL */
} NC4H5_file;

typedef struct NC4H5_grp {
    int kind;              /* NC4H5_KGRP */
    hid_t gid;             /* -1 until opened/created */
} NC4H5_grp;

typedef struct NC4H5_dim {
    int kind;              /* NC4H5_KDIM */
    hid_t dsid;            /* the phony dimension-scale dataset of a dim without a
                            * coordinate variable, -1 otherwise / not yet */
    int phony_name_differs;/* the phony dataset is stored under _nc4_non_coord_ */
    int remade;            /* phony dataset removed by this flush, to be made again
                            * with the extent it had (remade_len) */
    size_t remade_len;
} NC4H5_dim;

typedef struct NC4H5_var {
    int kind;              /* NC4H5_KVAR */
    hid_t did;             /* the dataset, -1 until created/opened */
    int dimscale;          /* the dataset is a dimension scale (coordinate var) */
    int scales_attached;   /* dimension scales attached to its dims */
    int write_lost;        /* cached chunks of it failed to reach the file and
                            * were dropped: every later sync and close fails */
    int index_checked;     /* hdf5heap.c: its storage checked once, sound */
    struct vcache *chunks; /* hdf5chunk.c: its chunk pipeline state (codec chain,
                            * chunk shape, fill, write-back cache of decoded
                            * chunks; NULL: none yet); freed with it */
} NC4H5_var;

typedef struct NC4H5_type {
    int kind;              /* NC4H5_KTYPE */
    hid_t ftid;            /* committed datatype in the file, -1 until committed */
    hid_t mtid;            /* native memory datatype, -1 until built */
} NC4H5_type;

/* fmt of any model object; frees through NC4_storage_ops.free_fmt. */
void nc4h5_free_fmt(NC4_file *f, void *fmt);
/* The storage ops libhdf5 gives the model. */
extern const NC4_storage_ops nc4h5_ops;

/* ---- hdf5type.c ----------------------------------------------------------------- */
/* New HDF5 datatype for xtype (atomic or user type of f): the file type in
 * the given endianness (NC_ENDIAN_NATIVE = native) when file is set, else the
 * native memory type.  The caller closes it. */
int nc4h5_hdf5_type(NC4_file *f, nc_type xtype, int endianness, int file, hid_t *tidp);
/* netCDF atomic type and endianness of an HDF5 datatype, NC_EBADTYPE if it
 * is not atomic-mappable (user types are found through their committed
 * object, see nc4h5_find_type_for). */
int nc4h5_atomic_from_hdf5(hid_t tid, nc_type *xtypep, int *endiannessp);
/* The netCDF type of an HDF5 datatype met in a file: atomic, or the user type
 * of f it equals (committed types were all read before).  NC_EBADTYPE if it
 * cannot be represented, e.g. an uncommitted compound/enum/...: the dataset
 * or attribute that uses it is left out, as upstream does. */
int nc4h5_find_type_for(NC4_file *f, NC4_grp *g, hid_t tid, nc_type *xtypep);
/* Read the committed datatype `name` (open id tid) of group g into the model. */
int nc4h5_read_type(NC4_file *f, NC4_grp *g, const char *name, hid_t tid);
/* Commit t (and the user types it uses, first) in its group's HDF5 group. */
int nc4h5_commit_type(NC4_file *f, NC4_type *t);

/* ---- hdf5att.c ------------------------------------------------------------------- */
/* Load the user-visible attributes of an object (a group when var is NULL)
 * into the model, skipping the convention attributes this layer hides
 * (dimension-scale bookkeeping, _Netcdf4*, _nc3_strict, _NCProperties). */
int nc4h5_read_atts(NC4_file *f, NC4_grp *g, NC4_var *var, hid_t obj);
/* Write (create or replace) one attribute on obj. */
int nc4h5_write_att(NC4_file *f, hid_t obj, const NC4_att *att);
/* Delete attribute `name` from obj if present. */
int nc4h5_delete_att(hid_t obj, const char *name);
/* Whether name is one of the attributes the API hides (upstream's
 * reserved list: CLASS, NAME, DIMENSION_LIST, _Netcdf4Dimid, ...). */
int nc4h5_is_hidden_att(const char *name);
/* Write/read small hidden convention attributes. */
int nc4h5_write_int_att(hid_t obj, const char *name, int n, const int *values);
int nc4h5_write_text_att(hid_t obj, const char *name, const char *text);

/* ---- hdf5data.c ------------------------------------------------------------------- */
int NC4_HDF5_get_vara(int, int, const size_t *, const size_t *, void *, nc_type);
int NC4_HDF5_put_vara(int, int, const size_t *, const size_t *, const void *, nc_type);
int NC4_HDF5_get_vars(int, int, const size_t *, const size_t *, const ptrdiff_t *, void *, nc_type);
int NC4_HDF5_put_vars(int, int, const size_t *, const size_t *, const ptrdiff_t *, const void *, nc_type);

/* ---- hdf5heap.c: variable-length data checked before HDF5 reads it ----------------
 * HDF5 trusts the global-heap references of variable-length data (strings,
 * vlens, and types holding them): a damaged one makes H5Dread/H5Aread copy
 * out of bounds.  Before such a read the references are read from the file
 * and checked by the native reader (h5n_vlen_check): NC_EHDFERR for a
 * damaged one.  Chunk indexes (version-1 B-trees) are walked the same way.
 * Files open for writing are checked only while the tree is read at open
 * (afterwards the file on disk lags HDF5's cache). */
/* The file's checking reader: opened on first use for a read-only file;
 * NULL when none (a file open for writing outside its open, no HDF5
 * signature). */
struct h5n_file *nc4h5_guard(NC4_file *f);
/* Open it whatever the mode (the open of a writable file). */
void nc4h5_guard_open(NC4_file *f);
/* Close it for good (end of the open of a writable file, file close). */
void nc4h5_guard_drop(NC4H5_file *hf);
/* Before H5Aread of attribute `name` of object loc (file type ftid,
 * npoints values). */
int nc4h5_guard_att(NC4_file *f, hid_t loc, const char *name, hid_t ftid, hsize_t npoints);
/* Before H5Dget_create_plist of dataset did (file type ftid): HDF5
 * converts the fill value, a variable-length value too. */
int nc4h5_guard_fill(NC4_file *f, hid_t did, hid_t ftid);
/* Before H5Dread of the hyperslab start/stride/count of dataset did (file
 * type ftid, the variable's storage NC_CONTIGUOUS/NC_CHUNKED/NC_COMPACT),
 * after nc4h5_guard_index. */
int nc4h5_guard_read(NC4_file *f, hid_t did, hid_t ftid, int storage, int ndims,
                     const hsize_t *start, const hsize_t *stride, const hsize_t *count);
/* Before HDF5 first reads var hv: its storage checked once -- a compact
 * one holds the whole extent (H5Dread copied past it), a version-1 B-tree
 * of chunks has no cycle (H5B_find recursed until the stack ran out). */
int nc4h5_guard_index(NC4_file *f, NC4H5_var *hv);
/* Before HDF5 first decodes the attributes of obj (H5Aexists, H5Aopen,
 * H5Aiterate): a version-1 header's attribute messages (no checksum, and
 * HDF5 copies names and values as their sizes say) checked. */
int nc4h5_guard_header(NC4_file *f, hid_t obj);
/* (hdf5open.c) Object address of an open object. */
int nc4h5_obj_addr(hid_t oid, haddr_t *addr);

/* ---- lazy dataset open (hdf5open.c) --------------------------------------------------
 * Make sure ((NC4H5_var *)var->fmt)->did is a valid open dataset: opens it
 * by its stored name in its group (with the var's chunk cache) when it is
 * still -1 on a created variable.  Call it before every use of did.
 * NC_NOERR, or NC_EHDFERR (not created yet, or HDF5 refused). */
int nc4h5_var_open_dataset(NC4_var *var);
/* Open the HDF5 file and every group's gid of a file the native reader
 * loaded (hf->lazy), once; NC_NOERR when already open.  Takes the HDF5 lock.
 * Every read path that needs a file or group id goes through it
 * (nc4h5_var_open_dataset does). */
int nc4h5_ensure_hdf5(NC4_file *f);

/* ---- hdf5open.c / hdf5create.c ------------------------------------------------------------ */
int NC4_HDF5_open(const char *path, int mode, int basepe, size_t *chunksizehintp,
                  void *parameters, const NC_Dispatch *table, int ncid);
int NC4_HDF5_create(const char *path, int cmode, size_t initialsz, int basepe,
                    size_t *chunksizehintp, void *parameters, const NC_Dispatch *table,
                    int ncid);
/* (hdf5open.c) Repair the superblock checksum of an image taken with
 * H5Fget_file_image from a file open for writing: HDF5 1.10.8 writes a wrong
 * one (superblock versions 2 and 3), and the image then fails to open.
 * Call it on every image handed to a caller (nc_close_memio). */
int nc4h5_fix_image(void *buf, size_t size);

/* ---- hdf5flush.c ---------------------------------------------------------------------------- */
/* Write everything dirty in the model to the file (the whole tree on create). */
int nc4h5_flush(NC4_file *f);

/* ---- hdf5file.c ---------------------------------------------------------------------------- */
/* Leave define mode as nc_enddef does (flush, create datasets): the
 * model's ops->enddef, behind NC4__enddef, nc_sync and data calls' implicit
 * enddef (libsrc4 holds the rules). */
int nc4h5_enddef(NC4_file *f);
/* The model's ops->close and ops->check_close (nc_close, nc_abort). */
int nc4h5_close(NC4_file *f, int abort, void *params);
int nc4h5_check_close(NC4_file *f);
/* Before HDF5 starts: the library's shutdown at exit is ours (H5close
 * unless a file's close failed; see hdf5file.c). */
void nc4h5_own_shutdown(void);
int NC4_HDF5_sync(int);

/* ---- hdf5var.c ----------------------------------------------------------------------------- */
int NC4_HDF5_set_var_chunk_cache(int, int, size_t, size_t, float);
int NC4_HDF5_inq_filter_avail(int, unsigned int);


/* ---- hdf5dimscale.c ------------------------------------------------------------
 * Dimension scales as HDF5's H5DS writes them (CLASS, NAME, REFERENCE_LIST,
 * DIMENSION_LIST), without libhdf5_hl.  NC_NOERR / NC_EHDFERR / NC_EDIMSCALE. */
int nc4h5_ds_set_scale(hid_t dsid, const char *name);
int nc4h5_ds_is_scale(hid_t dsid);
/* Attach scale dsid to dimension idx of did; attaching twice changes nothing. */
int nc4h5_ds_attach(hid_t did, hid_t dsid, int idx);
/* Undo an attachment; NC_NOERR when it was not attached. */
int nc4h5_ds_detach(hid_t did, hid_t dsid, int idx);
/* Remove CLASS, NAME and _Netcdf4Dimid (a coordinate variable that is no longer one). */
int nc4h5_ds_remove_scale_atts(hid_t did);
/* Many attachments, each scale's REFERENCE_LIST written once at commit (same
 * result as nc4h5_ds_attach in call order).  dsids[k] < 0: dim k skipped. */
typedef struct nc4h5_ds_batch nc4h5_ds_batch;
nc4h5_ds_batch *nc4h5_ds_batch_new(void);
int nc4h5_ds_batch_attach(nc4h5_ds_batch *b, hid_t did, int ndims, const hid_t *dsids);
int nc4h5_ds_batch_commit(nc4h5_ds_batch *b);
void nc4h5_ds_batch_free(nc4h5_ds_batch *b);
/* Write a scale's REFERENCE_LIST again (it becomes its newest attribute). */
int nc4h5_ds_rewrite_reflist(hid_t dsid);

/* ---- hdf5create.c --------------------------------------------------------------
 * The _NCProperties text this library writes ("version=2,netcdf=...,hdf5=..."). */
int nc4h5_make_ncproperties(char **textp);
/* Settings every file access property list gets, at create and at open, as
 * upstream's: fclose degree WEAK and the nc_set_alignment values (when
 * set).  NC_EHDFERR if HDF5 refuses them (an alignment of 0). */
int nc4h5_fapl_settings(hid_t fapl);

/* ---- hdf5par.c: netCDF-4 on parallel HDF5 (NC_ENABLE_PARALLEL4 builds) -------------
 * nc4h5_par_begin: for a parallel create/open (NC_MPIIO in mode and
 * ncpar.h's NC_MPI_INFO as parameters; otherwise *parp stays NULL and
 * nothing happens) set fapl to HDF5's MPI-IO driver on a duplicate of the
 * communicator, collective metadata; *parp is the file's state (hf->par),
 * released by nc4h5_par_end even after an error.  nc4h5_par_file: ncid is
 * such a file (its data calls go to nc4h5_par_get_vars / _put_vars).
 * nc4h5_par_vlen: variable varid of such a file holds variable-length
 * values (strings, vlens, types containing them), which HDF5 cannot move
 * collectively: reads of them take the serial path (independent), writes
 * are NC_EINVAL. */
int nc4h5_par_begin(void **parp, int mode, void *parameters, hid_t fapl);
void nc4h5_par_end(void **parp);
int nc4h5_par_file(int ncid);
int nc4h5_par_vlen(int ncid, int varid);
int nc4h5_par_get_vars(int ncid, int varid, const size_t *start, const size_t *count,
                       const ptrdiff_t *stride, void *value, nc_type memtype);
int nc4h5_par_put_vars(int ncid, int varid, const size_t *start, const size_t *count,
                       const ptrdiff_t *stride, const void *value, nc_type memtype);
int NC4_HDF5_var_par_access(int ncid, int varid, int par_access);

/* ---- hdf5var.c: the storage checks nc4h5_ops points to ------------------------- */
int nc4h5_check_chunking(NC4_file *f, NC4_var *var, const size_t *chunks);
int nc4h5_check_filter(NC4_file *f, NC4_var *var, unsigned int id, size_t nparams,
                       const unsigned int *params);

/* ---- hdf5remote.c: netCDF-4 files read by byte ranges ------------------------------
 * A URL (#mode=bytes) is read through libdispatch's remote reader
 * (ncremote.h): metadata by the native reader, anything else by HDF5 on a
 * read-only virtual file driver over the same reader (one block cache and
 * one set of connections per open file).  References counted: the open file
 * holds one, every HDF5 file open through the driver one. */
struct nc4h5_rref;
/* Open the remote file of a read-only open of URL path and try the native
 * reader: NC_NOERR (the file is open), an error (NC_EPERM for NC_WRITE),
 * or H5N_GIVEUP with *rrp the remote file for HDF5 (the caller's
 * reference: nc4h5_remote_fapl, then handed to hf->remote or released). */
int nc4h5_remote_open(NC *nc, const char *path, int mode, struct nc4h5_rref **rrp);
/* Make fapl open through the driver on rr.  NC_NOERR or NC_EHDFERR. */
int nc4h5_remote_fapl(hid_t fapl, struct nc4h5_rref *rr);
/* Another reference to rr (returned). */
struct nc4h5_rref *nc4h5_remote_ref(struct nc4h5_rref *rr);
/* Drop a reference (NULL: nothing). */
void nc4h5_remote_release(struct nc4h5_rref *rr);
/* The checking reader (nc4h5_guard) of a remote file, or NULL. */
struct h5n_file *nc4h5_remote_guard(struct nc4h5_rref *rr);

/* ---- hdf5chunk.c ------------------------------------------------------------------ */
/* The chunk pipeline's state of a variable (see hdf5chunk.h): discard it,
 * cached chunks unwritten (nc_abort, freeing the var's fmt).  No HDF5
 * call; takes the (recursive) lock itself. */
void nc4h5_chunk_cache_drop(NC4H5_var *hv);

#endif /* HDF5INT_H */
