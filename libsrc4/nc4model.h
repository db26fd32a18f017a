/* nc4model.h: the enhanced data model, shared by every non-classic format.
 *
 * Owns: the in-memory tree of one open netCDF-4-model file (groups,
 * dimensions, variables, attributes, user-defined types), the rules of the
 * enhanced and classic models for defining and changing it, and every
 * inquiry answered from it.  It holds no storage type (no HDF5 header, no
 * JSON): a storage layer (libhdf5, libnczarr) builds the tree when it
 * opens a file, hangs its own state on the `fmt` pointers, and writes what the
 * flags below mark as changed when it flushes.
 *
 * Ids.  ncid = ext_ncid | grp->hdr.id (group id 0 is the root).  Dimension
 * ids and user type ids are unique in the file (dims from 0, types from
 * NC_FIRSTUSERTYPEID, in creation order); variable ids count from 0 in each
 * group; attribute numbers from 0 per variable (or NC_GLOBAL) and close up
 * when one is deleted.  The storage layer assigns ids only through the
 * nc4_new_* calls below, in the order objects are found/created.
 *
 * Look-ups.  Every collection is an NC4_index: items in id (creation) order
 * plus a hash of the names, so name and id look-ups are O(1) whatever the
 * count (100,000 variables in a group stay fast).
 *
 * Memory.  Everything reachable from an NC4_file is owned by it and freed by
 * nc4_file_free(); the storage layer frees what it hung on `fmt` first (it is
 * given each object through the NC4_storage_ops.free_* callbacks).
 *
 * Threads.  libdispatch's handle lock (ncdispatch.h) guards a file's tree:
 * calls that change it run alone, inquiries and data reads may run in
 * several threads at once and must not change it (state a storage layer
 * fills lazily on such a call has its own guard); distinct files share
 * nothing here.
 */
#ifndef NC4MODEL_H
#define NC4MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "netcdf.h"
#include "netcdf_dispatch.h"

struct NC;
typedef struct NC4_file NC4_file;
typedef struct NC4_grp NC4_grp;
typedef struct NC4_var NC4_var;
typedef struct NC4_type NC4_type;

/* ---- named objects and the hashed index ---------------------------------- */

/* Common head of every named object. */
typedef struct NC4_obj {
    char *name;        /* current name (NFC UTF-8, or raw bytes read from a file) */
    uint32_t hash;     /* of name; maintained by the index */
    int id;            /* dimid, varid, typeid, group id, attnum, field/member index */
    char *stored_name; /* name the object has in storage; NULL = not stored yet.
                        * Differs from name after a rename until the next flush. */
} NC4_obj;

typedef struct NC4_index {
    NC4_obj **items; /* in id order (items[i]->id == i for per-parent ids) */
    size_t n, cap;
    uint32_t *slots; /* open-addressing hash: 0 empty, else item position + 1 */
    size_t nslots;   /* power of two, kept >= 2n */
} NC4_index;

void nc4_index_init(NC4_index *ix);
/* Append obj (its name already set); NC_ENOMEM. */
int nc4_index_add(NC4_index *ix, NC4_obj *obj);
/* Find by name (exact bytes); NULL if absent. */
NC4_obj *nc4_index_find(const NC4_index *ix, const char *name);
/* Replace obj's name with a copy of newname and rehash; NC_ENOMEM. */
int nc4_index_rename(NC4_index *ix, NC4_obj *obj, const char *newname);
/* Remove the item at position pos, closing up the order; ids of later items
 * are decremented when renumber is set (attributes). */
void nc4_index_remove(NC4_index *ix, size_t pos, int renumber);
/* Free the arrays (not the items). */
void nc4_index_clear(NC4_index *ix);

/* ---- the objects ------------------------------------------------------------ */

typedef struct NC4_att {
    NC4_obj hdr;      /* id = attnum */
    nc_type xtype;    /* atomic or user type id of the file */
    size_t len;       /* number of values */
    void *data;       /* len values in memory form of xtype (char* for strings,
                       * nc_vlen_t for vlens); deep-owned; NULL when len == 0 */
    int dirty;        /* value or type changed since last flush */
    void *fmt;
} NC4_att;

typedef struct NC4_dim {
    NC4_obj hdr;      /* id = dimid (file-wide) */
    NC4_grp *grp;     /* defining group */
    size_t len;       /* current length (unlimited: largest extent written) */
    int unlimited;
    NC4_var *coord_var; /* variable of the same name in grp whose first dim is
                         * this dim, or NULL */
    int dirty;        /* new, renamed or length changed since last flush */
    void *fmt;
} NC4_dim;

typedef struct NC4_filter {
    unsigned int id;
    size_t nparams;
    unsigned int *params;
} NC4_filter;

/* Var storage kinds: NC_CONTIGUOUS, NC_CHUNKED, NC_COMPACT (netcdf.h). */
struct NC4_var {
    NC4_obj hdr;      /* id = varid in grp */
    NC4_grp *grp;
    nc_type xtype;
    int ndims;
    int *dimids;      /* ndims */
    NC4_dim **dims;   /* ndims, borrowed */
    NC4_index atts;   /* NC4_att */
    int storage;      /* NC_CONTIGUOUS / NC_CHUNKED / NC_COMPACT */
    size_t *chunksizes; /* ndims entries when storage == NC_CHUNKED, else NULL;
                         * all 0 until the defaults are computed (nc4_default_chunks) */
    int endianness;   /* NC_ENDIAN_NATIVE / LITTLE / BIG */
    int no_fill;
    void *fill_value; /* one value in memory form of xtype, or NULL = default fill */
    NC4_filter *filters; /* in order of application on write */
    size_t nfilters;
    int quantize_mode, nsd;
    size_t cache_size, cache_nelems; float cache_preemption;
    int is_coord;      /* is the coordinate variable of the same-named dim */
    int was_coord;     /* was a coordinate var before a rename (storage hint) */
    int created;       /* exists in storage */
    int meta_locked;   /* storage settings fixed (after first enddef/created) */
    int from_file;     /* read from storage at open, not defined in this session */
    int fill_fixed;    /* written to, or its group left define mode by nc_enddef */
    int dirty;         /* new, renamed, dims or fill changed since last flush */
    int atts_dirty;    /* some attribute added, changed or deleted */
    char **deleted_atts; size_t ndeleted_atts; /* stored names to delete at flush */
    void *fmt;
};

/* One field of a compound type. */
typedef struct NC4_field {
    NC4_obj hdr;      /* id = field index */
    size_t offset;
    nc_type xtype;
    int ndims;        /* 0 for scalar fields */
    int *dimsizes;
} NC4_field;

/* One member of an enum type. */
typedef struct NC4_member {
    NC4_obj hdr;      /* id = member index */
    long long value;  /* the value, widened (base type decides the width) */
} NC4_member;

struct NC4_type {
    NC4_obj hdr;      /* id = type id (>= NC_FIRSTUSERTYPEID) */
    NC4_grp *grp;
    int tclass;       /* NC_COMPOUND, NC_VLEN, NC_ENUM, NC_OPAQUE */
    size_t size;      /* in-memory size of one value */
    nc_type base;     /* vlen element type / enum integer type; NC_NAT otherwise */
    NC4_index fields; /* compound: NC4_field */
    NC4_index members;/* enum: NC4_member */
    int committed;    /* stored in the file; no longer changeable */
    int endianness;   /* of the stored type, for inquiries */
    void *fmt;
};

struct NC4_grp {
    NC4_obj hdr;      /* id = group id; root: id 0, name "/" */
    NC4_file *file;
    NC4_grp *parent;  /* NULL for the root */
    NC4_index children; /* NC4_grp */
    NC4_index dims;   /* NC4_dim defined here */
    NC4_index vars;   /* NC4_var */
    NC4_index types;  /* NC4_type defined here */
    NC4_index atts;   /* global attributes */
    int created, dirty, atts_dirty;
    char **deleted_atts; size_t ndeleted_atts;
    void *fmt;
};

/* What the model asks of its storage layer.  Every member may be NULL. */
typedef struct NC4_storage_ops {
    /* Checks that only the storage knows, called before a define call
     * changes the model (e.g. HDF5's 4 GiB chunk limit, filter availability). */
    int (*check_chunking)(NC4_file *f, NC4_var *var, const size_t *chunks);
    int (*check_filter)(NC4_file *f, NC4_var *var, unsigned int id, size_t nparams,
                        const unsigned int *params);
    /* Release the fmt state of one object (called by nc4_file_free). */
    void (*free_fmt)(NC4_file *f, void *fmt);
    /* Leave define mode: write what defining changed, clear f->indef and
     * f->explicit_redef.  Called by NC4__enddef, nc4_sync_define and
     * nc4_data_define; NULL: only the flags are cleared. */
    int (*enddef)(NC4_file *f);
    /* Set when the storage remakes a created variable whose _FillValue
     * changes: _FillValue may then change until the variable is written to
     * or nc_enddef is called on its group, or when read from the file
     * (upstream's written_to rule); unset: until it is created. */
    int remakes_fill;
    /* Set when the storage keeps every array in chunks (Zarr): a new
     * variable with dimensions starts chunked with the default chunk
     * sizes, as a netCDF-4 variable does once a filter or an unlimited
     * dimension asks for it; only an explicit NC_CONTIGUOUS makes it one
     * chunk of the whole array. */
    int chunked_only;
    /* Close the file (NC4_close, abort 0) or abort it (NC4_abort, 1):
     * unless aborting write what is pending, then release the storage and
     * free the tree (nc4_file_free), even when writing failed; the first
     * error.  params: nc_close's (the NC_memio of nc_close_memio, else
     * NULL).  NULL: the tree is freed. */
    int (*close)(NC4_file *f, int abort, void *params);
    /* Called by NC4_close before closing through the root group's ncid: an
     * error keeps the file open, nothing written or released (e.g. a type
     * the storage cannot write, which can still be completed). */
    int (*check_close)(NC4_file *f);
} NC4_storage_ops;

struct NC4_file {
    struct NC *nc;         /* libdispatch's record (controller) */
    int ext_ncid;          /* slot << NC_ID_SHIFT */
    int cmode;             /* mode given to create/open */
    int format;            /* NC_FORMAT_NETCDF4 or NC_FORMAT_NETCDF4_CLASSIC */
    int formatx;           /* NC_FORMATX_NC_HDF5, NC_FORMATX_NCZARR, ... */
    int classic_model;     /* NC_CLASSIC_MODEL rules apply */
    int readonly;          /* opened without NC_WRITE */
    int indef;             /* in define mode */
    int explicit_redef;    /* define mode entered with nc_redef (enhanced model) */
    int fill_mode;         /* NC_FILL or NC_NOFILL (nc_set_fill) */
    int dirty;             /* anything to flush */
    NC4_grp *root;
    NC4_grp **grps;  size_t ngrps;  /* by group id */
    NC4_dim **dims;  size_t ndims;  /* by dimid */
    NC4_type **types; size_t ntypes;/* by type id - NC_FIRSTUSERTYPEID */
    /* Provenance read from or written to the file (_NCProperties etc.). */
    char *ncproperties;    /* NULL if absent */
    int superblock;        /* storage's superblock version, -1 unknown */
    int is_netcdf4;        /* file carries netCDF-4 markers (_IsNetcdf4) */
    const NC4_storage_ops *ops;
    void *fmt;
};

/* ---- building the tree (storage layers) --------------------------------- */

/* New file with an empty root group. */
int nc4_file_new(struct NC *nc, int ext_ncid, int cmode, int formatx,
                 const NC4_storage_ops *ops, NC4_file **fp);
/* Free the tree (calls ops->free_fmt on every fmt first). */
void nc4_file_free(NC4_file *f);

/* Each appends a new object with the next id; name is copied; NC_ENOMEM,
 * NC_ENAMEINUSE (same name already in that namespace), NC_EMAXDIMS /
 * NC_EMAXVARS ... where the model limits apply.  They do no define-mode or
 * classic-model checks: the NC4_def_* slots below do. */
int nc4_new_grp(NC4_grp *parent, const char *name, NC4_grp **gp);
int nc4_new_dim(NC4_grp *g, const char *name, size_t len, int unlimited, NC4_dim **dp);
int nc4_new_var(NC4_grp *g, const char *name, nc_type xtype, int ndims,
                const int *dimids, NC4_var **vp);
int nc4_new_type(NC4_grp *g, const char *name, int tclass, size_t size, nc_type base,
                 NC4_type **tp);
int nc4_new_field(NC4_type *t, const char *name, size_t offset, nc_type xtype,
                  int ndims, const int *dimsizes);
int nc4_new_member(NC4_type *t, const char *name, long long value);
/* Add or replace an attribute of var (NULL = group attribute); data is len
 * values in memory form of xtype and is deep-copied. */
int nc4_set_att(NC4_grp *g, NC4_var *var, const char *name, nc_type xtype, size_t len,
                const void *data, NC4_att **ap);

/* ---- finding things ----------------------------------------------------- */

/* File and group of an ncid: NC_EBADID if no such file or group, NC_ENOTNC4
 * if the file is not of this model.  Either output may be NULL. */
int nc4_find_grp(int ncid, NC4_file **fp, NC4_grp **gp);
/* ... and a variable of that group: NC_ENOTVAR. */
int nc4_find_var(int ncid, int varid, NC4_file **fp, NC4_grp **gp, NC4_var **vp);
/* Dimension by id (file-wide), NC_EBADDIM. */
int nc4_find_dim(NC4_file *f, int dimid, NC4_dim **dp);
/* Dimension by name visible from g (g, then its ancestors), NULL if none. */
NC4_dim *nc4_find_dim_by_name(NC4_grp *g, const char *name);
/* Type by id: atomic ids give *tp = NULL and NC_NOERR; user ids their
 * record; NC_EBADTYPE otherwise. */
int nc4_find_type(NC4_file *f, nc_type xtype, NC4_type **tp);
/* The attribute list of varid in g (NC_GLOBAL: the group's), NC_ENOTVAR. */
int nc4_att_list(NC4_grp *g, int varid, NC4_index **listp, NC4_var **varp);

/* Size in memory of one value of xtype (atomic or user), 0 if unknown. */
size_t nc4_type_size(NC4_file *f, nc_type xtype);
/* Whether values of xtype hold pointers (strings, vlens, also nested). */
int nc4_type_has_pointers(NC4_file *f, nc_type xtype);
/* Deep copy / reclaim of n values of xtype in memory form. */
int nc4_copy_values(NC4_file *f, nc_type xtype, const void *src, void *dst, size_t n);
void nc4_reclaim_values(NC4_file *f, nc_type xtype, void *data, size_t n);

/* Upstream's default chunk sizes for var (fills var->chunksizes). */
int nc4_default_chunks(NC4_file *f, NC4_var *var);
/* Grow the chunk cache of a chunked var the user has not sized when one
 * chunk does not fit, as upstream does (storage layers call it once a
 * var's chunks are known). */
void nc4_adjust_var_cache(NC4_var *var);
/* Default fill value of xtype into fill (nc4_type_size bytes); strings get
 * a strdup'd "" as upstream.  NC_EBADTYPE. */
int nc4_default_fill(NC4_file *f, nc_type xtype, void *fill);
/* Current shape of var (unlimited dims: their current length). */
void nc4_var_shape(const NC4_var *var, size_t *shape);

/* Enter define mode implicitly if the model allows (enhanced: yes, and
 * returns NC_NOERR; classic model: NC_EINDEFINE / NC_ENOTINDEFINE rules). */
int nc4_check_define(NC4_file *f);

/* ---- dispatch slots answered by the model ------------------------------------
 * Same signatures as NC_Dispatch.  Storage layers point their table at these.
 * Define-type slots change only the model and set the dirty flags; the storage
 * writes at its enddef/sync/close. */
int NC4_inq(int, int *, int *, int *, int *);
int NC4_inq_type(int, nc_type, char *, size_t *);
int NC4_def_dim(int, const char *, size_t, int *);
int NC4_inq_dimid(int, const char *, int *);
int NC4_inq_dim(int, int, char *, size_t *);
int NC4_inq_unlimdim(int, int *);
int NC4_rename_dim(int, int, const char *);
int NC4_inq_att(int, int, const char *, nc_type *, size_t *);
int NC4_inq_attid(int, int, const char *, int *);
int NC4_inq_attname(int, int, int, char *);
int NC4_rename_att(int, int, const char *, const char *);
int NC4_del_att(int, int, const char *);
int NC4_get_att(int, int, const char *, void *, nc_type);
int NC4_put_att(int, int, const char *, nc_type, size_t, const void *, nc_type);
int NC4_def_var(int, const char *, nc_type, int, const int *, int *);
int NC4_inq_varid(int, const char *, int *);
int NC4_rename_var(int, int, const char *);
int NC4_inq_var_all(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
                    int *dimidsp, int *nattsp, int *shufflep, int *deflatep,
                    int *deflate_levelp, int *fletcher32p, int *contiguousp,
                    size_t *chunksizesp, int *no_fill, void *fill_valuep, int *endiannessp,
                    unsigned int *idp, size_t *nparamsp, unsigned int *params);
int NC4_def_var_fill(int, int, int, const void *);
int NC4_inq_unlimdims(int, int *, int *);
int NC4_inq_ncid(int, const char *, int *);
int NC4_inq_grps(int, int *, int *);
int NC4_inq_grpname(int, char *);
int NC4_inq_grpname_full(int, size_t *, char *);
int NC4_inq_grp_parent(int, int *);
int NC4_inq_grp_full_ncid(int, const char *, int *);
int NC4_inq_varids(int, int *, int *);
int NC4_inq_dimids(int, int *, int *, int);
int NC4_inq_typeids(int, int *, int *);
int NC4_inq_type_equal(int, nc_type, int, nc_type, int *);
int NC4_def_grp(int, const char *, int *);
int NC4_rename_grp(int, const char *);
int NC4_inq_user_type(int, nc_type, char *, size_t *, nc_type *, size_t *, int *);
int NC4_inq_typeid(int, const char *, nc_type *);
int NC4_def_compound(int, size_t, const char *, nc_type *);
int NC4_insert_compound(int, nc_type, const char *, size_t, nc_type);
int NC4_insert_array_compound(int, nc_type, const char *, size_t, nc_type, int, const int *);
int NC4_inq_compound_field(int, nc_type, int, char *, size_t *, nc_type *, int *, int *);
int NC4_inq_compound_fieldindex(int, nc_type, const char *, int *);
int NC4_def_vlen(int, const char *, nc_type, nc_type *);
int NC4_put_vlen_element(int, int, void *, size_t, const void *);
int NC4_get_vlen_element(int, int, const void *, size_t *, void *);
int NC4_def_enum(int, nc_type, const char *, nc_type *);
int NC4_insert_enum(int, nc_type, const char *, const void *);
int NC4_inq_enum_member(int, nc_type, int, char *, void *);
int NC4_inq_enum_ident(int, nc_type, long long, char *);
int NC4_def_opaque(int, size_t, const char *, nc_type *);
int NC4_def_var_deflate(int, int, int, int, int);
int NC4_def_var_fletcher32(int, int, int);
int NC4_def_var_chunking(int, int, int, const size_t *);
int NC4_def_var_endian(int, int, int);
int NC4_def_var_filter(int, int, unsigned int, size_t, const unsigned int *);
int NC4_set_var_chunk_cache(int, int, size_t, size_t, float);
int NC4_get_var_chunk_cache(int, int, size_t *, size_t *, float *);
int NC4_inq_var_filter_ids(int, int, size_t *, unsigned int *);
int NC4_inq_var_filter_info(int, int, unsigned int, size_t *, unsigned int *);
int NC4_def_var_quantize(int, int, int, int);
int NC4_inq_var_quantize(int, int, int *, int *);
int NC4_set_fill(int, int, int *);
int NC4_inq_format(int, int *);

/* Library-wide chunk cache defaults (nc_set_chunk_cache), read by storage
 * layers when they open a variable. */
void nc4_get_default_cache(size_t *size, size_t *nelems, float *preemption);

/* Added by the model's author (h1), append-only: */
/* Move the item at position from to position to, shifting those between;
 * ids are unchanged.  For listings whose order differs from id order, e.g.
 * a group's dims read from a netCDF-4 file: upstream lists them in the
 * order their datasets are met, with ids from _Netcdf4Dimid, and
 * nc_inq_unlimdims / nc_inq's unlimdimid follow that listing.  O(n). */
void nc4_index_move(NC4_index *ix, size_t from, size_t to);
/* Define-mode rules of the enhanced model, the same for every storage
 * layer (which points its table at the two slots and calls the others):
 * - NC4_redef: in define mode already, NC_EINDEFINE for the classic model
 *   and nothing otherwise; read-only: NC_EPERM.
 * - NC4__enddef: NC_ENOTINDEFINE outside define mode; the layout hints are
 *   ignored (HDF5 and Zarr have no header to pad).
 * - nc4_sync_define: nc_sync in define mode leaves it (classic model:
 *   NC_EINDEFINE); NC_NOERR and nothing outside define mode.
 * - nc4_data_define: a data call leaves define mode, or writes a variable
 *   not yet stored (var may be NULL); classic model in define mode:
 *   NC_EINDEFINE. */
int NC4_redef(int);
int NC4__enddef(int, size_t, size_t, size_t, size_t);
int nc4_sync_define(NC4_file *f);
int nc4_data_define(NC4_file *f, const NC4_var *var);
/* Slots every storage layer answers alike: nc_inq_format_extended (f's
 * formatx, the open/create mode with NC_NETCDF4), nc_var_par_access
 * (NC_ENOPAR: serial build, as upstream's), show_metadata (nothing). */
int NC4_inq_format_extended(int, int *, int *);
int NC4_var_par_access(int, int, int);
int NC4_show_metadata(int);
/* nc_close and nc_abort through ops->close.  Upstream refuses nc_close of a
 * group's ncid and keeps the file open; libdispatch drops its record
 * whatever the slot says, so NC4_close closes the file all the same (no
 * state may outlive the record) and reports NC_EBADGRPID. */
int NC4_close(int, void *);
int NC4_abort(int);
/* The slots of a storage layer's dispatch table that are the same for every
 * layer on the model, as designated initializers (varm: libdispatch's
 * generic mapped access on the layer's vars):
 *     static const NC_Dispatch table = {.model = ..., NC4_MODEL_SLOTS, ...};
 * The layer's table adds what it serves or refuses itself: create, open,
 * sync, vara and vars, inq_att, get_att, rename_var, rename_grp, the
 * defining of user types (NC4_MODEL_USER_TYPE_SLOTS where the storage
 * keeps them), set_var_chunk_cache and inq_filter_avail. */
#define NC4_MODEL_SLOTS                                                                    \
    .dispatch_version = NC_DISPATCH_VERSION,                                               \
    .redef = NC4_redef, ._enddef = NC4__enddef, .abort = NC4_abort, .close = NC4_close,    \
    .set_fill = NC4_set_fill, .inq_format = NC4_inq_format,                                \
    .inq_format_extended = NC4_inq_format_extended, .inq = NC4_inq,                        \
    .show_metadata = NC4_show_metadata, .var_par_access = NC4_var_par_access,              \
    /* dimensions */                                                                       \
    .def_dim = NC4_def_dim, .inq_dimid = NC4_inq_dimid, .inq_dim = NC4_inq_dim,            \
    .inq_unlimdim = NC4_inq_unlimdim, .rename_dim = NC4_rename_dim,                        \
    .inq_unlimdims = NC4_inq_unlimdims, .inq_dimids = NC4_inq_dimids,                      \
    /* attributes */                                                                       \
    .inq_attid = NC4_inq_attid, .inq_attname = NC4_inq_attname,                            \
    .rename_att = NC4_rename_att, .del_att = NC4_del_att, .put_att = NC4_put_att,          \
    /* variables */                                                                        \
    .def_var = NC4_def_var, .inq_varid = NC4_inq_varid, .inq_var_all = NC4_inq_var_all,    \
    .inq_varids = NC4_inq_varids, .def_var_fill = NC4_def_var_fill,                        \
    .def_var_deflate = NC4_def_var_deflate, .def_var_fletcher32 = NC4_def_var_fletcher32,  \
    .def_var_chunking = NC4_def_var_chunking, .def_var_endian = NC4_def_var_endian,        \
    .def_var_filter = NC4_def_var_filter, .get_var_chunk_cache = NC4_get_var_chunk_cache,  \
    .inq_var_filter_ids = NC4_inq_var_filter_ids,                                          \
    .inq_var_filter_info = NC4_inq_var_filter_info,                                        \
    .def_var_quantize = NC4_def_var_quantize, .inq_var_quantize = NC4_inq_var_quantize,    \
    /* groups */                                                                           \
    .inq_ncid = NC4_inq_ncid, .inq_grps = NC4_inq_grps, .inq_grpname = NC4_inq_grpname,    \
    .inq_grpname_full = NC4_inq_grpname_full, .inq_grp_parent = NC4_inq_grp_parent,        \
    .inq_grp_full_ncid = NC4_inq_grp_full_ncid, .def_grp = NC4_def_grp,                    \
    /* types */                                                                            \
    .inq_type = NC4_inq_type, .inq_typeids = NC4_inq_typeids,                              \
    .inq_type_equal = NC4_inq_type_equal, .inq_user_type = NC4_inq_user_type,              \
    .inq_typeid = NC4_inq_typeid, .inq_compound_field = NC4_inq_compound_field,            \
    .inq_compound_fieldindex = NC4_inq_compound_fieldindex,                                \
    .get_vlen_element = NC4_get_vlen_element, .inq_enum_member = NC4_inq_enum_member,      \
    .inq_enum_ident = NC4_inq_enum_ident,                                                  \
    /* data: mapped access on vars */                                                      \
    .get_varm = NCDEFAULT_get_varm, .put_varm = NCDEFAULT_put_varm
/* The defining of user types, as the model does it. */
#define NC4_MODEL_USER_TYPE_SLOTS                                                          \
    .def_compound = NC4_def_compound, .insert_compound = NC4_insert_compound,              \
    .insert_array_compound = NC4_insert_array_compound, .def_vlen = NC4_def_vlen,          \
    .put_vlen_element = NC4_put_vlen_element, .def_enum = NC4_def_enum,                    \
    .insert_enum = NC4_insert_enum, .def_opaque = NC4_def_opaque
/* Notes on the existing contract, as implemented:
 * - nc4_file_new sets nc->dispatchdata = the new file (when nc is given);
 *   nc4_file_free clears it if it still points there.
 * - nc4_new_* make clean objects (dirty 0, stored_name NULL); the NC4_def_*
 *   slots mark what they create dirty (and f->dirty).
 * - nc4_reclaim_values frees what the values point to, not the array
 *   itself (nc_reclaim_data semantics).
 * - Renaming an attribute moves its stored name to deleted_atts (storage
 *   deletes, then writes the attribute anew); flush deletions first. */

#endif /* NC4MODEL_H */
