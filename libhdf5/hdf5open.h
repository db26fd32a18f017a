/* hdf5open.h: what the two readers of an HDF5 file share (hdf5open.c
 * through HDF5, hdf5native.c through h5n.h): the notes of the walk and the
 * passes that make the model from them.  Private to those two files. */
#ifndef HDF5OPEN_H
#define HDF5OPEN_H

#include <stdint.h>
#include "hdf5int.h"
#include "h5n.h"

/* The szip option bits a user gives (HDF5 adds its own to the stored ones). */
#define SZIP_USER_MASKS (H5_SZIP_CHIP_OPTION_MASK | H5_SZIP_EC_OPTION_MASK | H5_SZIP_NN_OPTION_MASK)

/* A little-endian 64-bit value in file bytes. */
static inline uint64_t
le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Deeper groups are left out: the walk and the matching recurse. */
#define MAX_GROUP_DEPTH 1000

typedef struct ds_note {
    char *name;          /* HDF5 link name */
    hid_t did;           /* open dataset, -1 once handed to a model object */
    int ndims;
    hsize_t dims[H5S_MAX_RANK], maxdims[H5S_MAX_RANK];
    int is_scale;        /* a dimension scale (CLASS = DIMENSION_SCALE), ndims >= 1 */
    int dim_only;        /* NAME says "dimension but not a variable" */
    int assigned_id;     /* _Netcdf4Dimid, -1 if none */
    int upstream_id;     /* the dim id upstream gives the scale */
    haddr_t addr;        /* object address, to match DIMENSION_LIST */
    int *coords;         /* _Netcdf4Coordinates (file dim ids), NULL if none */
    int has_dimlist;     /* a DIMENSION_LIST attribute is present (read on demand) */
    haddr_t *dimlist;    /* per dim: address of the last attached scale, NULL
                          * until read */
    int has_scales;      /* dimlist present and dim 0 has a scale (upstream's test) */
    NC4_dim *dim;        /* the dim of a scale */
    int *dimids;         /* model dim ids, after matching */
    nc_type xtype;       /* netCDF type, NC_NAT when netCDF has none (skipped) */
    int endianness;
    h5n_obj *obj;        /* native reader: the parsed object header (did is -1) */
} ds_note;

typedef struct grp_note {
    NC4_grp *g;
    hid_t gid;           /* owned by g->fmt */
    size_t parent;       /* index of the parent note, SIZE_MAX for the root */
    ds_note *ds;
    size_t nds, cap;
    size_t *kids;
    size_t nkids, kcap;
    haddr_t addr;        /* object address, to see a group twice */
    h5n_obj *gobj;       /* native reader: the parsed group header (gid is -1) */
} grp_note;

typedef struct open_ctx {
    NC4_file *f;
    int readonly;
    grp_note *grps;
    size_t ngrps, gcap;
    int next_dimid;      /* upstream's counter, for ids and phony names */
    haddr_t *dim_addr;   /* by model dim id: scale address, HADDR_UNDEF for phony */
    int *dim_uid;        /* by model dim id: upstream id */
    size_t ndimtab;
    int count_markers;   /* counting netCDF-4 marker attributes (_IsNetcdf4) */
    int full_scan;       /* iterate over every attribute of each dataset */
    int markers;
    h5n_file *nf;        /* native reader (h5n.h) instead of HDF5, else NULL */
} open_ctx;

/* ---- hdf5open.c ---- */
/* Append the note of group g (gid: its open id, -1 natively) under parent. */
int nc4h5o_add_group_note(open_ctx *c, NC4_grp *g, hid_t gid, size_t parent, size_t *gip);
/* Classic or enhanced model from the root (strict: _nc3_strict present). */
void nc4h5o_note_model(open_ctx *c, int strict);
/* The model from the notes of a walked file: marker verdict, dims, vars. */
int nc4h5o_build_tree(open_ctx *c);
void nc4h5o_free_ctx(open_ctx *c);
/* The scales a dataset's DIMENSION_LIST attaches (either reader). */
int nc4h5o_note_dimlist(open_ctx *c, ds_note *n);
void nc4h5o_order_filters(NC4_var *var);
void nc4h5o_read_quantize(NC4_var *var);
/* The chunk-cache settings upstream reports for an unchunked dataset. */
void nc4h5o_unchunked_cache(NC4_var *var);

/* ---- hdf5native.c ---- */
/* Read-only open of path without HDF5: NC_NOERR, NC_ENOMEM, H5N_GIVEUP (open
 * through HDF5 instead), NC_ENOTBUILT (NETCDF_HDF5_NATIVE_OPEN=2 and the
 * native reader gave up). */
int nc4h5o_open_native(NC *nc, const char *path, int mode);
/* The same for a file read through a callback (a remote file: hdf5remote.c). */
int nc4h5o_open_native_reader(NC *nc, const char *path, int mode, h5n_readfn fn, void *ctx,
                              uint64_t size, struct nc4h5_rref *remote);
int nc4h5o_native_dimlist(open_ctx *c, ds_note *n);
/* Variable var of note n from its parsed header. */
int nc4h5o_native_var(open_ctx *c, grp_note *gn, ds_note *n, NC4_var *var);

#endif /* HDF5OPEN_H */
