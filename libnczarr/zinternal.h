/* zinternal.h: the state libnczarr hangs on the enhanced model (libsrc4) and
 * the calls between its parts.
 *
 * Parts:
 *   zmap*.c               the object store (zmap.h)
 *   zdispatch.c, zfile.c  dispatch table, create/open/enddef/sync/close
 *   zmeta_*.c, zjson*.c   JSON metadata: NCZarr v2, pure Zarr v2, Zarr v3,
 *                         consolidated, attributes, fill values, dims
 *   zchunk*.c, zdata.c    chunk keys, read/write by whole chunks, cache
 *   zcodecs.c, zshard.c   codec JSON <-> filter ids, v3 chain, sharding
 *
 * Ownership of the model.  The metadata side (zfile.c, zmeta_*.c) builds
 * the NC4_* tree on open from metadata (dims, vars with
 * xtype/dims/chunksizes/fill/filters, attributes) and writes metadata back
 * at enddef/sync/close.  The data path never changes the tree except
 * NC4_dim.len of unlimited dims grown by a write (and then sets var->dirty
 * and f->dirty so the metadata side rewrites the shapes).
 *
 * Chunking.  Every Zarr variable is chunked: var->storage == NC_CHUNKED and
 * var->chunksizes holds the chunk-grid shape (one stored object per grid
 * cell: v2 "chunks", v3 chunk_grid.configuration.chunk_shape; for a sharded
 * v3 array that is the shard shape, the inner chunk shape is in
 * NCZ_var.inner_chunks).  A scalar (ndims 0) has one chunk; its key is "0"
 * (v2), "c" (v3 default encoding) or "0" (v3 "v2" encoding).  NCZarr v2
 * writes scalars as shape [1] chunks [1] like upstream; on read such an
 * array with _nczarr_array.dimrefs == [] (or scalar:true) is a scalar.
 *
 * Fill.  var->fill_value (memory form of var->xtype) is the Zarr
 * fill_value; var->no_fill is set when fill_value is null.  A missing chunk
 * reads as var->fill_value, or the netCDF default fill when NULL.
 *
 * Keys.  NCZ_var.key is the store key prefix of the array ("/g1/v", never a
 * trailing '/'); NCZ_grp.key of the group ("" for the root, "/g1", ...).
 * Renames move stored objects at once (zmeta_rename.c), so the key always
 * names where the chunks are now.
 */
#ifndef ZINTERNAL_H
#define ZINTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "netcdf.h"
#include "nc4model.h"
#include "ncfilter.h"
#include "zmap.h"

/* ---- constants ---------------------------------------------------------- */

/* NCZarr format version written (upstream 4.10.1 writes 2.0.0). */
#define NCZ_NCZARR_VERSION "2.0.0"
/* Default fixed width of NC_STRING values in Zarr v2 ("|S<n>"), as
 * upstream's NCZ_MAXSTR_DEFAULT; per-variable: the _nczarr_maxstrlen
 * attribute, per-file: the _nczarr_default_maxstrlen attribute. */
#define NCZ_MAXSTR_DEFAULT 128

/* v3 chunk key encodings. */
#define NCZ_KEYS_V2 2      /* "0.1" / "0/1" (v2, and v3 "v2" encoding) */
#define NCZ_KEYS_DEFAULT 3 /* v3 "default": "c/0/1" or "c.0.1" */

/* ---- per-file state (NC4_file.fmt) --------------------------------------- */

/* First member of NCZ_file/NCZ_grp/NCZ_var: which one a fmt pointer is
 * (NC4_storage_ops.free_fmt gets only the pointer). */
#define NCZ_KFILE 1
#define NCZ_KGRP 2
#define NCZ_KVAR 3

typedef struct NCZ_file {
    int kind;              /* NCZ_KFILE */
    NCZ_map *map;          /* the store; closed by zfile.c */
    int zarr_format;       /* 2 or 3 */
    int pure_zarr;         /* mode=zarr (or no NCZarr keys found): no _nczarr_* written */
    int xarray;            /* read/write xarray's _ARRAY_DIMENSIONS (v2; default on,
                            * mode=noxarray turns it off) */
    int consolidated;      /* opened from consolidated metadata */
    int write_consolidated;/* write /.zmetadata (v2) or inline (v3) at sync/close */
    int readonly;
    char dimsep;           /* default dimension separator for new arrays: '.' (v2)
                            * or '/' (v3 default encoding) */
    int nczarr_major, nczarr_minor, nczarr_patch; /* NCZarr version read, 0s if none */
    char *modelist;        /* the #mode= value as given (may be NULL) */
    size_t default_maxstrlen; /* NC_STRING width for new variables (v2) */
    /* Chunk cache defaults for variables opened/created in this file. */
    size_t cache_size, cache_nelems;
    float cache_preemption;
    int nczarr_meta_dirty; /* superblock/group listings need rewriting */
    /* Consolidated metadata (zmeta_store.c): the dict read at open
     * (key without the leading '/' -> object), and the one collected for
     * writing; NULL when not used. */
    json_object *cons;
    json_object *cons_out;
    int created;           /* this handle created the store (abort removes it) */
} NCZ_file;

/* ---- per-group state (NC4_grp.fmt) ---------------------------------------- */

typedef struct NCZ_grp {
    int kind;              /* NCZ_KGRP */
    char *key;             /* "" for the root, "/g1", "/g1/g2" */
} NCZ_grp;

/* ---- one codec of a variable, as the metadata names it --------------------- */

typedef struct NCZ_codec_spec {
    char *name;            /* v2: numcodecs "id" ("zlib", "blosc", "shuffle"...);
                            * v3: codec "name" ("gzip", "bytes", "transpose"...) */
    json_object *json;     /* the whole codec object as read or built (owned ref;
                            * written back unchanged when the codec is unknown here) */
    unsigned int hdf5id;   /* mapped HDF5 filter id, 0 if none (then a data access
                            * is NC_ENOFILTER, metadata stays readable) */
    size_t nparams;
    unsigned int *params;  /* HDF5-style parameters (malloc'ed) */
} NCZ_codec_spec;

/* ---- per-variable state (NC4_var.fmt) --------------------------------------- */

typedef struct NCZ_var {
    int kind;              /* NCZ_KVAR */
    char *key;             /* store key prefix: "/v", "/g1/v" */
    /* Storage layout. */
    int key_encoding;      /* NCZ_KEYS_V2 or NCZ_KEYS_DEFAULT */
    char dimsep;           /* '.' or '/' */
    char order;            /* v2 "order": 'C' or 'F' */
    int *transpose;        /* v3 transpose codec order (ndims entries), or NULL */
    int bigendian;         /* stored byte order of multi-byte types */
    size_t typesize;       /* bytes of one stored element: the atomic size; for
                            * NC_STRING in v2 the fixed width ("|S<n>": n) */
    size_t maxstrlen;      /* NC_STRING fixed width (v2), 0 otherwise */
    int vlen_utf8;         /* v3 "string" data type with vlen-utf8 codec, or v2
                            * dtype "|O" with the vlen-utf8 filter */
    int scalar_as_1;       /* stored as shape [1] (NCZarr v2 scalar) */
    /* Codecs in order of application on write.  v2: "filters" then
     * "compressor"; v3: the bytes->bytes codecs after "bytes" (the
     * array->array "transpose" and array->bytes "bytes"/sharding are
     * parsed into the fields here, not listed).  var->filters/nfilters
     * hold the HDF5 ids/params of those that map (for nc_inq_var_filter). */
    NCZ_codec_spec *codecs;
    size_t ncodecs;
    ncf_chain *chain;      /* built from codecs on first data access; NULL
                            * before; freed by ncz_var_data_free */
    /* v3 sharding_indexed (sharded != 0): var->chunksizes is the shard shape. */
    int sharded;
    size_t *inner_chunks;  /* ndims entries */
    int inner_bigendian;   /* the inner "bytes" codec's endian */
    NCZ_codec_spec *index_codecs; /* usually bytes + crc32c */
    size_t nindex_codecs;
    int index_at_start;    /* index_location "start" (default "end") */
    NCZ_codec_spec *inner_codecs; /* bytes->bytes codecs inside each shard */
    size_t ninner_codecs;
    /* The data path's chunk cache and whatever else it keeps (opaque here). */
    void *cache;
    int meta_dirty;        /* .zarray/.zattrs/zarr.json must be rewritten */
} NCZ_var;

static inline NCZ_file *ncz_file(const NC4_file *f) { return (NCZ_file *)f->fmt; }
static inline NCZ_var *ncz_var(const NC4_var *v) { return (NCZ_var *)v->fmt; }
static inline NCZ_grp *ncz_grp(const NC4_grp *g) { return (NCZ_grp *)g->fmt; }

/* ---- provided by the metadata side (zfile.c, zmeta_*.c, zjson.c, zutil.c) ---- */

/* The dispatch table (zdispatch.c). */
extern const NC_Dispatch *NCZ_dispatch_table;

/* Parse len bytes of JSON text (not NUL-terminated necessarily): NC_ENCZARR
 * on malformed JSON.  *objp: new reference (json_object_put to free). */
int ncz_json_parse(const char *text, size_t len, json_object **objp);
/* Read the object at key and parse it; NC_EEMPTY if absent. */
int ncz_json_read(NCZ_map *map, const char *key, json_object **objp);
/* Serialize obj (compact, keys in insertion order) and write it at key. */
int ncz_json_write(NCZ_map *map, const char *key, json_object *obj);
/* A JSON integer as size_t / unsigned / int64 with range checks: NC_ENCZARR
 * when obj is not an integer in range. */
int ncz_json_size(json_object *obj, size_t *vp);
int ncz_json_uint(json_object *obj, unsigned int *vp);
int ncz_json_int64(json_object *obj, long long *vp);

/* Free one codec list (names, json refs, params) and zero the pointers. */
void ncz_codec_specs_free(NCZ_codec_spec **specs, size_t *n);

/* Number of elements in one chunk of var (product of chunksizes; 1 for a
 * scalar); 0 on overflow. */
size_t ncz_chunk_nelems(const NC4_var *var);

/* ---- provided by the data path (zdata.c, zchunk*.c, zcodecs.c, zshard.c) ------ */

/* Read/write the selection start/count/stride (stride NULL: 1s) of var,
 * converting between memtype (NC_NAT: the var's type) and the stored
 * type; NC_ERANGE semantics as netCDF-4 (all values converted, error
 * returned at the end).  Missing chunks read as fill.  A write beyond an
 * unlimited dim's length grows it (dim->len, var->dirty, f->dirty) and may
 * grow other vars' shapes through that dim, as netCDF-4 does.  Indices are
 * checked here (NC_EINVALCOORDS / NC_EEDGE / NC_ESTRIDE). */
int ncz_var_get(NC4_file *f, NC4_var *var, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, nc_type memtype, void *buf);
int ncz_var_put(NC4_file *f, NC4_var *var, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, nc_type memtype, const void *buf);
/* Write back the variable's cached dirty chunks (called by sync, close,
 * redef of the variable's metadata, and before a rename moves its keys). */
int ncz_var_flush(NC4_file *f, NC4_var *var);
/* Free the cache and chain (not the specs, key, etc.: the metadata side
 * frees those); called from its free_fmt without a flush. */
void ncz_var_data_free(NCZ_var *zv);
/* New chunk-cache settings for var (nc_set_var_chunk_cache). */
int ncz_var_set_cache(NC4_file *f, NC4_var *var, size_t size, size_t nelems, float preemption);

/* Codecs, v2: "filters" (JSON array or null) and "compressor" (object or
 * null) -> zv->codecs and var->filters/nfilters.  An unknown codec is kept
 * (hdf5id 0), not an error.  NC_ENCZARR on malformed entries. */
int ncz_codecs_from_json_v2(NC4_file *f, NC4_var *var, json_object *filters,
                            json_object *compressor);
/* var->filters -> zv->codecs (refreshing them) -> new "filters" (array or
 * NULL for none) and "compressor" (object or NULL) references.  A filter
 * with no numcodecs form is NC_ENOFILTER. */
int ncz_codecs_to_json_v2(NC4_file *f, NC4_var *var, json_object **filtersp,
                          json_object **compressorp);
/* v3: the "codecs" array -> order/endian/transpose/sharding/codecs fields. */
int ncz_codecs_from_json_v3(NC4_file *f, NC4_var *var, json_object *codecs);
/* ... and back: a new "codecs" array reference. */
int ncz_codecs_to_json_v3(NC4_file *f, NC4_var *var, json_object **codecsp);
/* storage_ops.check_filter: can id/params be expressed as a Zarr codec and
 * run here (NC_ENOFILTER if not). */
int ncz_check_filter(NC4_file *f, NC4_var *var, unsigned int id, size_t nparams,
                     const unsigned int *params);

#endif /* ZINTERNAL_H */
