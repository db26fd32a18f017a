/* ncdispatch.h: libdispatch's contract with the format layers.
 *
 * Owns: the registry of open files (one NC record per file), model
 * inference, the checks common to every format, and the small helpers that
 * every layer shares.  Format layers include this header and
 * netcdf_dispatch.h; nothing else of libdispatch is visible to them.
 *
 * Ids: an external ncid is (file slot << 16) | group id.  The root group of
 * every file has group id 0, so a classic file's ncid is slot << 16.
 *
 * Lifecycle: nc_create/nc_open allocate the NC record and register it
 * *before* calling the format's create/open slot with the new ncid, so the
 * format finds its record with NC_check_id() and hangs its own state on
 * nc->dispatchdata.  If create/open fails, libdispatch unregisters and frees
 * the record; the format must already have freed its own state.  After a
 * successful close/abort slot the format has freed dispatchdata and
 * libdispatch frees the record.  A close slot that fails frees its state
 * and sets dispatchdata to NULL (the record goes too), or leaves both when
 * it refused to close (the file stays open under the same ncid).
 *
 * Checks done here before any slot is called: the ncid names an open file
 * (a classic file's ncid has no group bits); required output pointers are
 * non-NULL where the API says so; names of new or renamed dimensions and
 * variables are valid (NC_check_name) for formats that do not check them
 * themselves (the enhanced model does, in upstream's order: ncapi.h,
 * NC_LAYER_CHECKS_NAMES); group and type names always go to the format
 * (a classic file says NC_ENOTNC4 first); names are passed to slots in
 * Unicode NFC.  Attribute names are the exception: upstream
 * checks them after the variable id, so the att slots get a NULL or
 * invalid name as given and check it themselves (NC_EBADNAME after
 * NC_ENOTVAR; NC_check_name for a new attribute).  Coordinate bounds are
 * checked by the format.  The order of all checks: docs/error-precedence.md.
 *
 * Threading: the registry is guarded by one lock.  A handle of a format
 * that uses the enhanced model with writes (netCDF-4 on HDF5, Zarr) has a
 * read-write lock in its record, taken by the API entry points around the
 * format's slot: shared by inquiries and reads, exclusive by calls that
 * change the file (definitions, attributes, renames, define mode, fill
 * mode, sync, data writes).  Format slots run inside it and never take it;
 * a nested public call on the same file by the thread holding it goes
 * through without locking again.  Classic handles lock in libsrc.
 * docs/threads.md states what each format promises.
 */
#ifndef NCDISPATCH_H
#define NCDISPATCH_H

#include <pthread.h>
#include <stddef.h>
#include "netcdf.h"
#include "netcdf_dispatch.h"

#define NC_ID_SHIFT 16          /* ncid = slot << NC_ID_SHIFT | group id */
#define NC_GRP_MASK 0xffff      /* group-id bits of an ncid */
#define NC_MAX_OPEN_FILES 32767 /* slots 1..32767; slot 0 is never used */

/* One open file. */
typedef struct NC {
    int ext_ncid;                /* slot << NC_ID_SHIFT */
    int model;                   /* NC_FORMATX_* of the dispatch table */
    int mode;                    /* mode flags as given to create/open (+ inferred) */
    char *path;                  /* path or URL as given; owned by the record */
    const NC_Dispatch *dispatch; /* the format's table; borrowed */
    void *dispatchdata;          /* the format's per-file state; owned by the format */
    int locking;                 /* the API entry points take `lock` (set by NC_new) */
    pthread_rwlock_t lock;       /* the handle lock; see Threading above */
    int maybe_indef;             /* the file may be in define mode: data calls take
                                  * the lock exclusive (their implicit enddef changes
                                  * the tree).  Set under the exclusive lock by every
                                  * exclusive call, cleared by a successful enddef or
                                  * exclusive data call; read with __atomic loads. */
} NC;

/* The record of the file that ncid belongs to (group bits ignored).
 * NC_EBADID if no such file is open. */
int NC_check_id(int ncid, NC **ncpp);

/* As NC_check_id, and counts the call in flight on the file until
 * NC_release(*ncpp): nc_close waits for it and a call starting while the
 * file closes is NC_EBADID, so the record and the format's state stay valid
 * for the whole call.  API entry points hold; format layers, called inside
 * a held call, use NC_check_id.  NC_release(NULL) does nothing. */
int NC_hold(int ncid, NC **ncpp);
void NC_release(NC *nc);
/* For __attribute__((cleanup)): NC_release(*ncp). */
void NC_release_cleanup(NC **ncp);
/* A record held until the end of the enclosing block. */
#define NC_HELD NC *__attribute__((cleanup(NC_release_cleanup)))

/* Name rules shared by all formats: NC_EBADNAME for a name that is not
 * valid UTF-8, is empty, starts with a character other than a letter,
 * digit >= 0x80 byte or '_' , contains '/' or control characters, or ends
 * in white space; NC_EMAXNAME if longer than NC_MAX_NAME bytes. */
int NC_check_name(const char *name);

/* NFC-normalise a UTF-8 name.  *normp gets a new string (caller frees), or
 * NULL when name is already normal (pure ASCII: the common case, no
 * allocation).  NC_EBADNAME for NULL or invalid UTF-8. */
int NC_normalize_name(const char *name, char **normp);

/* Size in bytes of one value of an atomic type in memory (NC_STRING:
 * sizeof(char*)); 0 for anything else. */
size_t NC_atomictypelen(nc_type xtype);

/* Generic strided and mapped access, built on a table's get_vara/put_vara
 * and get_vars/put_vars.  Layers without a faster path point their slots here. */
int NCDEFAULT_get_vars(int ncid, int varid, const size_t *start, const size_t *edges,
                       const ptrdiff_t *stride, void *value, nc_type memtype);
int NCDEFAULT_put_vars(int ncid, int varid, const size_t *start, const size_t *edges,
                       const ptrdiff_t *stride, const void *value, nc_type memtype);
int NCDEFAULT_get_varm(int ncid, int varid, const size_t *start, const size_t *edges,
                       const ptrdiff_t *stride, const ptrdiff_t *imapp, void *value,
                       nc_type memtype);
int NCDEFAULT_put_varm(int ncid, int varid, const size_t *start, const size_t *edges,
                       const ptrdiff_t *stride, const ptrdiff_t *imapp,
                       const void *value, nc_type memtype);

/* The default format for nc_create() without a format flag (NC_FORMAT_*),
 * as set by nc_set_default_format(). */
int NC_get_default_format(void);

/* Dispatch tables of the formats built into this library.  libdispatch
 * reaches them only through the layers' registry entries (ncformat.h). */
extern const NC_Dispatch *NC3_dispatch_table;

/* Format layer start-up and shutdown, called once by nc_initialize/nc_finalize
 * through the same entries. */
int NC3_initialize(void);
int NC3_finalize(void);
/* netCDF-4 on HDF5 (libhdf5/), in builds with NC_ENABLE_HDF5. */
extern const NC_Dispatch *NC4_HDF5_dispatch_table;
int NC4_HDF5_initialize(void);
/* Zarr and NCZarr (libnczarr/), in builds with NC_ENABLE_NCZARR. */
extern const NC_Dispatch *NCZ_dispatch_table;


/* The dispatch slots of a format holding only the classic data model: groups,
 * user-defined types and the netCDF-4 storage settings are refused with
 * NC_ENOTNC4, filter inquiries answer "none".  A classic-model table lists
 * NC_CLASSIC_MODEL_SLOTS among its designated initializers and adds
 * inq_typeid and inq_type_equal itself. */
#define NC_CLASSIC_MODEL_SLOTS                                                                 \
    .def_grp = NC_NOTNC4_def_grp, .rename_grp = NC_NOTNC4_rename_grp,                          \
    .inq_user_type = NC_NOTNC4_inq_user_type, .def_compound = NC_NOTNC4_def_compound,          \
    .insert_compound = NC_NOTNC4_insert_compound,                                              \
    .insert_array_compound = NC_NOTNC4_insert_array_compound,                                  \
    .inq_compound_field = NC_NOTNC4_inq_compound_field,                                        \
    .inq_compound_fieldindex = NC_NOTNC4_inq_compound_fieldindex,                              \
    .def_vlen = NC_NOTNC4_def_vlen, .put_vlen_element = NC_NOTNC4_put_vlen_element,            \
    .get_vlen_element = NC_NOTNC4_get_vlen_element, .def_enum = NC_NOTNC4_def_enum,            \
    .insert_enum = NC_NOTNC4_insert_enum, .inq_enum_member = NC_NOTNC4_inq_enum_member,        \
    .inq_enum_ident = NC_NOTNC4_inq_enum_ident, .def_opaque = NC_NOTNC4_def_opaque,            \
    .def_var_deflate = NC_NOTNC4_def_var_deflate,                                              \
    .def_var_fletcher32 = NC_NOTNC4_def_var_fletcher32,                                        \
    .def_var_chunking = NC_NOTNC4_def_var_chunking, .def_var_endian = NC_NOTNC4_def_var_endian, \
    .def_var_filter = NC_NOTNC4_def_var_filter,                                                \
    .set_var_chunk_cache = NC_NOTNC4_set_var_chunk_cache,                                      \
    .get_var_chunk_cache = NC_NOTNC4_get_var_chunk_cache,                                      \
    .inq_var_filter_ids = NC_NOOP_inq_var_filter_ids,                                          \
    .inq_var_filter_info = NC_NOOP_inq_var_filter_info,                                        \
    .def_var_quantize = NC_NOTNC4_def_var_quantize,                                            \
    .inq_var_quantize = NC_NOTNC4_inq_var_quantize, .inq_filter_avail = NC_NOOP_inq_filter_avail

#endif /* NCDISPATCH_H */
