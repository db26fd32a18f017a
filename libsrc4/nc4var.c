/* nc4var.c: variable slots of the enhanced model: define, find, rename,
 * inquire, and the per-variable storage settings (chunking, filters,
 * fill, endianness, quantize, chunk cache), with upstream's default chunk
 * sizes.
 *
 * Order of checks follows upstream's libhdf5/hdf5var.c (NC4_def_var and
 * nc_def_var_extra), libhdf5/hdf5filter.c and libsrc4/nc4var.c.  Settings
 * only change the model and mark the var dirty; the storage layer applies
 * them when it creates the dataset, after which they are NC_ELATEDEF. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nc4priv.h"
#include "ncdispatch.h"
#include "netcdf_filter.h"

#define NC4_MAX_RANK 32              /* HDF5's H5S_MAX_RANK */
#define DEFAULT_CHUNK_SIZE 16777216  /* upstream's default bytes per chunk (as measured) */
#define DEFAULT_1D_UNLIM_SIZE 4096   /* cap for 1-D record vars */
#define CHUNK_CACHE_SIZE 16777216    /* upstream's compile-time cache default */
#define DEFAULT_CHUNKS_IN_CACHE 10
#define MAX_DEFAULT_CACHE_SIZE 67108864
#define COMPACT_MAX 65536            /* HDF5 compact datasets hold <= 64 KiB */

#ifndef H5Z_FILTER_DEFLATE
#define H5Z_FILTER_DEFLATE 1
#endif
#ifndef H5Z_FILTER_SHUFFLE
#define H5Z_FILTER_SHUFFLE 2
#endif
#ifndef H5Z_FILTER_FLETCHER32
#define H5Z_FILTER_FLETCHER32 3
#endif
#ifndef H5Z_FILTER_SZIP
#define H5Z_FILTER_SZIP 4
#endif

/* ---- shape, chunk sizes, cache --------------------------------------------------- */

void
nc4_var_shape(const NC4_var *var, size_t *shape)
{
    for (int d = 0; d < var->ndims; d++)
        shape[d] = var->dims[d]->len;
}

/* Bytes of one element for chunk arithmetic (vlens count their handle). */
static size_t
elem_size(NC4_file *f, const NC4_var *var)
{
    size_t s = nc4_type_size(f, var->xtype);
    return s ? s : sizeof(char *);
}

/* NC_EBADCHUNK when one chunk would exceed 4 GiB (HDF5's limit). */
static int
check_chunk_bytes(NC4_file *f, const NC4_var *var, const size_t *chunks)
{
    double prod = (double)elem_size(f, var);
    for (int d = 0; d < var->ndims; d++)
        prod *= (double)chunks[d];
    return prod > (double)NC_MAX_UINT ? NC_EBADCHUNK : NC_NOERR;
}

int
nc4_default_chunks(NC4_file *f, NC4_var *var)
{
    size_t tsize = elem_size(f, var), suggested;
    double num_values = 1, num_unlim = 0;
    size_t *cs;

    if (var->ndims == 0)
        return NC_NOERR;
    if (var->chunksizes == NULL &&
        (var->chunksizes = calloc((size_t)var->ndims, sizeof(size_t))) == NULL)
        return NC_ENOMEM;
    cs = var->chunksizes;
    for (int d = 0; d < var->ndims; d++) {
        cs[d] = 0;
        if (!var->dims[d]->unlimited) {
            num_values *= (double)var->dims[d]->len;
        } else {
            num_unlim++;
            cs[d] = 1;
        }
    }
    /* A 1-D record variable gets about 4 KiB per chunk.  Upstream divides
     * by the type size twice here; the files it writes show it, so do we. */
    if (var->ndims == 1 && num_unlim == 1) {
        if (DEFAULT_CHUNK_SIZE / tsize == 0)
            suggested = 1;
        else if (DEFAULT_CHUNK_SIZE / tsize > DEFAULT_1D_UNLIM_SIZE)
            suggested = DEFAULT_1D_UNLIM_SIZE;
        else
            suggested = DEFAULT_CHUNK_SIZE / tsize;
        cs[0] = suggested / tsize;
    }
    if (var->ndims > 1 && (double)var->ndims == num_unlim) {
        suggested = (size_t)pow((double)DEFAULT_CHUNK_SIZE / (double)tsize,
                                1.0 / (double)var->ndims);
        for (int d = 0; d < var->ndims; d++)
            cs[d] = suggested ? suggested : 1;
    }
    for (int d = 0; d < var->ndims; d++) {
        if (cs[d])
            continue;
        suggested = (size_t)(pow((double)DEFAULT_CHUNK_SIZE / (num_values * (double)tsize),
                                 1.0 / ((double)var->ndims - num_unlim)) *
                                 (double)var->dims[d]->len - .5);
        if (suggested > var->dims[d]->len)
            suggested = var->dims[d]->len;
        cs[d] = suggested ? suggested : 1;
    }
    /* Halve every length until a chunk fits in 4 GiB. */
    while (check_chunk_bytes(f, var, cs) == NC_EBADCHUNK)
        for (int d = 0; d < var->ndims; d++)
            cs[d] = cs[d] / 2 ? cs[d] / 2 : 1;
    /* Spread the overhang of the last chunk over all chunks.  Upstream's
     * record dims count as length 0 here (their length is not kept while
     * writing), so records written before this var do not shrink chunks;
     * but in a reopened file a record dim whose coordinate variable was
     * read from it has the current length (upstream reads it from the
     * coordinate variable's dataset at open). */
    for (int d = 0; d < var->ndims; d++) {
        const NC4_dim *dim = var->dims[d];
        size_t len = !dim->unlimited || (dim->coord_var && dim->coord_var->from_file)
                         ? dim->len : 0;
        size_t nchunks = (len + cs[d] - 1) / cs[d];
        if (nchunks > 0) {
            size_t overhang = nchunks * cs[d] - len;
            cs[d] -= overhang / nchunks;
        }
    }
    return NC_NOERR;
}

void
nc4_adjust_var_cache(NC4_var *var)
{
    size_t bytes = 1;
    if (var->storage != NC_CHUNKED || var->chunksizes == NULL)
        return;
    for (int d = 0; d < var->ndims; d++)
        bytes *= var->chunksizes[d];
    bytes *= elem_size(var->grp->file, var);
    /* Grow a cache the user has not set when one chunk does not fit. */
    if (var->cache_size == CHUNK_CACHE_SIZE && bytes > var->cache_size) {
        var->cache_size = bytes * DEFAULT_CHUNKS_IN_CACHE;
        if (var->cache_size > MAX_DEFAULT_CACHE_SIZE)
            var->cache_size = MAX_DEFAULT_CACHE_SIZE;
    }
}

/* Make var chunked, computing default sizes if it has none. */
static int
make_chunked(NC4_file *f, NC4_var *var)
{
    int stat;
    var->storage = NC_CHUNKED;
    if (var->chunksizes == NULL || var->chunksizes[0] == 0) {
        if ((stat = nc4_default_chunks(f, var)))
            return stat;
    }
    nc4_adjust_var_cache(var);
    return NC_NOERR;
}

static void
mark_dirty(NC4_file *f, NC4_var *var)
{
    var->dirty = 1;
    f->dirty = 1;
}

/* ---- define, find, rename ------------------------------------------------------------- */

int
NC4_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp,
            int *varidp)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4_type *type = NULL;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (ndims > NC4_MAX_RANK)
        return NC_EMAXDIMS;
    if ((stat = nc4_check_define(f)))
        return stat;
    if ((stat = nc4_check_name(name)))
        return stat;
    if (xtype == NC_NAT)
        return NC_EBADTYPE;
    if (f->classic_model && xtype > NC_DOUBLE)
        return NC_ESTRICTNC3;
    if (ndims < 0)
        return NC_EINVAL;
    if ((stat = nc4_check_dup_name(g, name)))
        return stat;
    if (ndims && dimidsp == NULL)
        return NC_EINVAL;
    for (int d = 0; d < ndims; d++)
        if ((stat = nc4_find_dim(f, dimidsp[d], NULL)))
            return stat;
    if (xtype < NC_NAT)
        return NC_EINVAL;
    if (nc4_find_type(f, xtype, &type))
        return NC_EBADTYPE;
    if ((stat = nc4_new_var(g, name, xtype, ndims, dimidsp, &var)))
        return stat;
    var->endianness = type ? type->endianness : NC_ENDIAN_NATIVE;
    /* Upstream copies the file's fill mode (NC_FILL 0 / NC_NOFILL 0x100)
     * as is into the var, for atomic types other than strings. */
    if (type == NULL && xtype != NC_STRING)
        var->no_fill = f->fill_mode;
    if (ndims > 0 && f->ops && f->ops->chunked_only)
        var->storage = NC_CHUNKED;
    if (var->storage == NC_CHUNKED && (stat = make_chunked(f, var)))
        return stat;
    var->dirty = 1;
    g->dirty = 1;
    f->dirty = 1;
    if (varidp)
        *varidp = var->hdr.id;
    return NC_NOERR;
}

int
NC4_inq_varid(int ncid, const char *name, int *varidp)
{
    NC4_grp *g;
    NC4_obj *o;
    int stat;

    if (name == NULL)
        return NC_EINVAL;
    if (varidp == NULL)
        return NC_NOERR;
    if ((stat = nc4_find_grp(ncid, NULL, &g)))
        return stat;
    if ((o = nc4_index_find(&g->vars, name)) == NULL)
        return NC_ENOTVAR;
    *varidp = o->id;
    return NC_NOERR;
}

int
NC4_rename_var(int ncid, int varid, const char *name)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    int stat;

    if (name == NULL)
        return NC_EINVAL;
    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (strlen(name) > NC_MAX_NAME)
        return NC_EMAXNAME;
    if (f->readonly)
        return NC_EPERM;
    if ((stat = NC_check_name(name)))
        return stat;
    if (varid < 0 || (size_t)varid >= g->vars.n)
        return NC_ENOTVAR;
    var = (NC4_var *)g->vars.items[varid];
    /* Renaming to its own name is NC_ENAMEINUSE too, as upstream. */
    if (nc4_index_find(&g->vars, name))
        return NC_ENAMEINUSE;
    if (!f->indef && f->classic_model && strlen(name) > strlen(var->hdr.name))
        return NC_ENOTINDEFINE;
    if ((stat = nc4_index_rename(&g->vars, &var->hdr, name)))
        return stat;
    nc4_update_coord(var);
    mark_dirty(f, var);
    g->dirty = 1;
    return NC_NOERR;
}

/* ---- inquiry ---------------------------------------------------------------------------- */

static NC4_filter *
find_filter(const NC4_var *var, unsigned int id)
{
    for (size_t i = 0; i < var->nfilters; i++)
        if (var->filters[i].id == id)
            return &var->filters[i];
    return NULL;
}

int
NC4_inq_var_all(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
                int *dimidsp, int *nattsp, int *shufflep, int *deflatep,
                int *deflate_levelp, int *fletcher32p, int *contiguousp,
                size_t *chunksizesp, int *no_fill, void *fill_valuep, int *endiannessp,
                unsigned int *idp, size_t *nparamsp, unsigned int *params)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4_filter *fl;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    /* NC_GLOBAL answers the number of group attributes, as upstream. */
    if (varid == NC_GLOBAL && nattsp) {
        *nattsp = (int)g->atts.n;
        return NC_NOERR;
    }
    if (varid < 0 || (size_t)varid >= g->vars.n)
        return NC_ENOTVAR;
    var = (NC4_var *)g->vars.items[varid];

    if (name)
        strcpy(name, var->hdr.name);
    if (xtypep)
        *xtypep = var->xtype;
    if (ndimsp)
        *ndimsp = var->ndims;
    if (dimidsp)
        for (int d = 0; d < var->ndims; d++)
            dimidsp[d] = var->dimids[d];
    if (nattsp)
        *nattsp = (int)var->atts.n;
    if (chunksizesp && var->storage == NC_CHUNKED && var->chunksizes)
        for (int d = 0; d < var->ndims; d++)
            chunksizesp[d] = var->chunksizes[d];
    if (contiguousp)
        *contiguousp = var->storage;
    if (shufflep)
        *shufflep = find_filter(var, H5Z_FILTER_SHUFFLE) != NULL;
    if (fletcher32p)
        *fletcher32p = find_filter(var, H5Z_FILTER_FLETCHER32) != NULL;
    fl = find_filter(var, H5Z_FILTER_DEFLATE);
    if (deflatep)
        *deflatep = fl != NULL;
    if (deflate_levelp)
        *deflate_levelp = (fl && fl->nparams > 0) ? (int)fl->params[0] : 0;
    /* The older single-filter API reports the first filter. */
    if (idp)
        *idp = var->nfilters ? var->filters[0].id : 0;
    if (var->nfilters) {
        if (nparamsp)
            *nparamsp = var->filters[0].nparams;
        if (params && var->filters[0].nparams)
            memcpy(params, var->filters[0].params,
                   var->filters[0].nparams * sizeof(unsigned int));
    } else if (nparamsp) {
        *nparamsp = 0;
    }
    if (no_fill)
        *no_fill = var->no_fill;
    if (!var->no_fill && fill_valuep) {
        if (var->fill_value)
            stat = nc4_copy_values(f, var->xtype, var->fill_value, fill_valuep, 1);
        else
            stat = nc4_default_fill(f, var->xtype, fill_valuep);
        if (stat)
            return stat;
    }
    if (endiannessp)
        *endiannessp = var->endianness;
    return NC_NOERR;
}

/* ---- storage settings ------------------------------------------------------------------ */

/* Find a var that may still take storage settings: NC_EPERM, NC_ENOTVAR,
 * NC_ELATEDEF in upstream's order. */
static int
settable_var(int ncid, int varid, NC4_file **fp, NC4_var **vp)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    int stat;

    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (f->readonly)
        return NC_EPERM;
    if (varid < 0 || (size_t)varid >= g->vars.n)
        return NC_ENOTVAR;
    var = (NC4_var *)g->vars.items[varid];
    if (var->created || var->meta_locked)
        return NC_ELATEDEF;
    *fp = f;
    *vp = var;
    return NC_NOERR;
}

/* Add or replace (keeping its place) filter id on var; makes var chunked. */
static int
add_filter(NC4_file *f, NC4_var *var, unsigned int id, size_t nparams,
           const unsigned int *params)
{
    NC4_filter *fl = find_filter(var, id);
    unsigned int *copy = NULL;

    if (nparams > 0) {
        if ((copy = malloc(nparams * sizeof(unsigned int))) == NULL)
            return NC_ENOMEM;
        memcpy(copy, params, nparams * sizeof(unsigned int));
    }
    if (fl == NULL) {
        NC4_filter *a = realloc(var->filters, (var->nfilters + 1) * sizeof(NC4_filter));
        if (a == NULL) {
            free(copy);
            return NC_ENOMEM;
        }
        var->filters = a;
        /* Upstream's order: fletcher32 always first, shuffle next, the
         * rest in order of definition. */
        size_t pos = var->nfilters;
        if (var->nfilters > 0) {
            if (id == H5Z_FILTER_FLETCHER32)
                pos = 0;
            else if (id == H5Z_FILTER_SHUFFLE)
                pos = var->filters[0].id == H5Z_FILTER_FLETCHER32 ? 1 : 0;
        }
        memmove(&var->filters[pos + 1], &var->filters[pos],
                (var->nfilters - pos) * sizeof(NC4_filter));
        var->nfilters++;
        fl = &var->filters[pos];
        fl->id = id;
    } else {
        free(fl->params);
    }
    fl->params = copy;
    fl->nparams = nparams;
    mark_dirty(f, var);
    return NC_NOERR;
}

int
NC4_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams,
                   const unsigned int *params)
{
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    int stat, isnew;

    if ((stat = nc4_find_grp(ncid, &f, &g)))
        return stat;
    if (varid < 0 || (size_t)varid >= g->vars.n)
        return NC_ENOTVAR;
    var = (NC4_var *)g->vars.items[varid];
    /* Upstream's code for "not in define mode" here is NC_EINDEFINE. */
    if (!f->indef)
        return NC_EINDEFINE;
    if (var->ndims == 0)
        return NC_EINVAL;
    if (var->created || var->meta_locked)
        return NC_ELATEDEF;
    if (nparams > 0 && params == NULL)
        return NC_EINVAL;
    if (f->ops && f->ops->check_filter &&
        (stat = f->ops->check_filter(f, var, id, nparams, params)))
        return stat;
    isnew = find_filter(var, id) == NULL;
    /* Conflicts are checked only for a filter new to the var; a known one
     * just gets its parameters replaced. */
    if (isnew) {
        if (id == H5Z_FILTER_DEFLATE) {
            if (nparams != 1)
                return NC_EFILTER;
            if ((int)params[0] < NC_MIN_DEFLATE_LEVEL || (int)params[0] > NC_MAX_DEFLATE_LEVEL)
                return NC_EINVAL;
            if (find_filter(var, H5Z_FILTER_SZIP))
                return NC_EINVAL;
        }
        if (id == H5Z_FILTER_SZIP) {
            if (nparams != 2)
                return NC_EFILTER;
            if (params[1] % 2 || params[1] > NC_MAX_PIXELS_PER_BLOCK)
                return NC_EINVAL;
            if (find_filter(var, H5Z_FILTER_DEFLATE))
                return NC_EINVAL;
        }
        if ((stat = make_chunked(f, var)))
            return stat;
    }
    if (id == H5Z_FILTER_SZIP) {
        size_t nelems = 1;
        for (int d = 0; d < var->ndims; d++)
            if (var->dims[d]->len)
                nelems *= var->dims[d]->len;
        if (params[1] > nelems)
            return NC_EINVAL;
    }
    return add_filter(f, var, id, nparams, params);
}

int
NC4_inq_var_filter_ids(int ncid, int varid, size_t *nfiltersp, unsigned int *ids)
{
    NC4_var *var;
    int stat;

    if ((stat = nc4_find_var(ncid, varid, NULL, NULL, &var)))
        return stat;
    if (nfiltersp)
        *nfiltersp = var->nfilters;
    if (ids)
        for (size_t i = 0; i < var->nfilters; i++)
            ids[i] = var->filters[i].id;
    return NC_NOERR;
}

int
NC4_inq_var_filter_info(int ncid, int varid, unsigned int id, size_t *nparamsp,
                        unsigned int *params)
{
    NC4_var *var;
    NC4_filter *fl;
    int stat;

    if ((stat = nc4_find_var(ncid, varid, NULL, NULL, &var)))
        return stat;
    if ((fl = find_filter(var, id)) == NULL)
        return NC_ENOFILTER;
    if (nparamsp)
        *nparamsp = fl->nparams;
    if (params && fl->nparams)
        memcpy(params, fl->params, fl->nparams * sizeof(unsigned int));
    return NC_NOERR;
}

/* The common body of the def_var_* settings (upstream's nc_def_var_extra):
 * every pointer may be NULL, meaning "leave as is". */
static int
var_extra(int ncid, int varid, const int *shuffle, const int *fletcher32,
          const int *storage, const size_t *chunksizes, const int *no_fill,
          const void *fill_value, const int *endianness, const int *quantize_mode,
          const int *nsd)
{
    NC4_file *f;
    NC4_var *var;
    int stat;

    if ((stat = settable_var(ncid, varid, &f, &var)))
        return stat;
    if (var->ndims == 0 && ((shuffle && *shuffle) || (fletcher32 && *fletcher32)))
        return NC_EINVAL;
    if (shuffle && *shuffle && !find_filter(var, H5Z_FILTER_SHUFFLE)) {
        if ((stat = nc_def_var_filter(ncid, varid, H5Z_FILTER_SHUFFLE, 0, NULL)))
            return stat;
        var->storage = NC_CHUNKED;
    }
    if (fletcher32 && *fletcher32 && !find_filter(var, H5Z_FILTER_FLETCHER32)) {
        if ((stat = nc_def_var_filter(ncid, varid, H5Z_FILTER_FLETCHER32, 0, NULL)))
            return stat;
        var->storage = NC_CHUNKED;
    }
    if (storage) {
        if (*storage != NC_CHUNKED) {
            if (var->nfilters > 0)
                return NC_EINVAL;
            for (int d = 0; d < var->ndims; d++)
                if (var->dims[d]->unlimited)
                    return NC_EINVAL;
        }
        if (*storage == NC_CHUNKED && var->ndims == 0) {
            return NC_EINVAL;
        } else if (*storage == NC_CHUNKED) {
            if (chunksizes) {
                if ((stat = check_chunk_bytes(f, var, chunksizes)))
                    return stat;
                for (int d = 0; d < var->ndims; d++)
                    if (!var->dims[d]->unlimited && var->dims[d]->len > 0 &&
                        chunksizes[d] > var->dims[d]->len)
                        return NC_EBADCHUNK;
                if (f->ops && f->ops->check_chunking &&
                    (stat = f->ops->check_chunking(f, var, chunksizes)))
                    return stat;
                if (var->chunksizes == NULL &&
                    (var->chunksizes = calloc((size_t)var->ndims, sizeof(size_t))) == NULL)
                    return NC_ENOMEM;
                for (int d = 0; d < var->ndims; d++)
                    var->chunksizes[d] = chunksizes[d];
            }
            var->storage = NC_CHUNKED;
        } else if (*storage == NC_CONTIGUOUS) {
            var->storage = NC_CONTIGUOUS;
        } else if (*storage == NC_COMPACT) {
            size_t ndata = 1;
            for (int d = 0; d < var->ndims; d++)
                ndata *= var->dims[d]->len;
            if (ndata * nc4_type_size(f, var->xtype) > COMPACT_MAX)
                return NC_EVARSIZE;
            var->storage = NC_COMPACT;
        }
        /* Only chunked storage keeps chunk sizes (nc4model.h). */
        if (var->storage != NC_CHUNKED) {
            free(var->chunksizes);
            var->chunksizes = NULL;
        }
        mark_dirty(f, var);
    }
    if (var->storage == NC_CHUNKED && (stat = make_chunked(f, var)))
        return stat;

    if (no_fill) {
        if (*no_fill) {
            if (var->xtype == NC_STRING)
                return NC_EINVAL;
            var->no_fill = 1;
        } else {
            var->no_fill = 0;
        }
        mark_dirty(f, var);
    }
    if (fill_value && no_fill && !*no_fill) {
        /* The value lives in the _FillValue attribute; putting it also sets
         * var->fill_value (nc4att.c). */
        if ((stat = nc4_del_att_by_name(var->grp, var, NC_FillValue)) && stat != NC_ENOTATT)
            return stat;
        if ((stat = nc_put_att(ncid, varid, NC_FillValue, var->xtype, 1, fill_value)))
            return stat;
    } else if (var->fill_value && no_fill && *no_fill) {
        if ((stat = nc4_del_att_by_name(var->grp, var, NC_FillValue)) && stat != NC_ENOTATT)
            return stat;
        if (var->fill_value) {
            nc4_reclaim_values(f, var->xtype, var->fill_value, 1);
            free(var->fill_value);
            var->fill_value = NULL;
        }
    }
    if (endianness) {
        switch (var->xtype) {
        case NC_BYTE: case NC_SHORT: case NC_INT: case NC_FLOAT: case NC_DOUBLE:
        case NC_UBYTE: case NC_USHORT: case NC_UINT: case NC_INT64: case NC_UINT64:
            break;
        default:
            return NC_EINVAL;
        }
        var->endianness = *endianness;
        mark_dirty(f, var);
    }
    if (quantize_mode) {
        int mode = *quantize_mode;
        if (mode != NC_NOQUANTIZE && mode != NC_QUANTIZE_BITGROOM &&
            mode != NC_QUANTIZE_GRANULARBR && mode != NC_QUANTIZE_BITROUND)
            return NC_EINVAL;
        if (mode != NC_NOQUANTIZE) {
            if (var->xtype != NC_FLOAT && var->xtype != NC_DOUBLE)
                return NC_EINVAL;
            if (nsd == NULL || *nsd <= 0)
                return NC_EINVAL;
            if (mode == NC_QUANTIZE_BITROUND) {
                if (*nsd > (var->xtype == NC_FLOAT ? NC_QUANTIZE_MAX_FLOAT_NSB
                                                   : NC_QUANTIZE_MAX_DOUBLE_NSB))
                    return NC_EINVAL;
            } else if (*nsd > (var->xtype == NC_FLOAT ? NC_QUANTIZE_MAX_FLOAT_NSD
                                                      : NC_QUANTIZE_MAX_DOUBLE_NSD)) {
                return NC_EINVAL;
            }
            var->nsd = *nsd;
        }
        var->quantize_mode = mode;
        if (mode == NC_NOQUANTIZE)
            var->nsd = 0;
        mark_dirty(f, var);
    }
    return NC_NOERR;
}

int
NC4_def_var_deflate(int ncid, int varid, int shuffle, int deflate, int deflate_level)
{
    unsigned int level = (unsigned int)deflate_level;
    int stat;

    /* Shuffle first: filter order is the order of definition. */
    if ((stat = var_extra(ncid, varid, &shuffle, NULL, NULL, NULL, NULL, NULL, NULL,
                          NULL, NULL)))
        return stat;
    /* Level 0 is valid for zlib but only slows writing: no filter, as upstream. */
    if (deflate && deflate_level)
        if ((stat = nc_def_var_filter(ncid, varid, H5Z_FILTER_DEFLATE, 1, &level)))
            return stat;
    return NC_NOERR;
}

int
NC4_def_var_fletcher32(int ncid, int varid, int fletcher32)
{
    return var_extra(ncid, varid, NULL, &fletcher32, NULL, NULL, NULL, NULL, NULL, NULL,
                     NULL);
}

int
NC4_def_var_chunking(int ncid, int varid, int storage, const size_t *chunksizesp)
{
    return var_extra(ncid, varid, NULL, NULL, &storage, chunksizesp, NULL, NULL, NULL,
                     NULL, NULL);
}

int
NC4_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value)
{
    if (varid == NC_GLOBAL) {
        int stat = nc4_find_grp(ncid, NULL, NULL);
        return stat ? stat : NC_EGLOBAL;
    }
    return var_extra(ncid, varid, NULL, NULL, NULL, NULL, &no_fill, fill_value, NULL,
                     NULL, NULL);
}

int
NC4_def_var_endian(int ncid, int varid, int endianness)
{
    return var_extra(ncid, varid, NULL, NULL, NULL, NULL, NULL, NULL, &endianness, NULL,
                     NULL);
}

int
NC4_def_var_quantize(int ncid, int varid, int quantize_mode, int nsd)
{
    return var_extra(ncid, varid, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                     &quantize_mode, &nsd);
}

int
NC4_inq_var_quantize(int ncid, int varid, int *quantize_modep, int *nsdp)
{
    NC4_var *var;
    int stat;

    if ((stat = nc4_find_var(ncid, varid, NULL, NULL, &var)))
        return stat;
    if (quantize_modep)
        *quantize_modep = var->quantize_mode;
    if (nsdp)
        *nsdp = var->nsd;
    return NC_NOERR;
}

/* ---- chunk cache ---------------------------------------------------------------------- */

int
NC4_set_var_chunk_cache(int ncid, int varid, size_t size, size_t nelems, float preemption)
{
    NC4_var *var;
    int stat;

    if (preemption < 0 || preemption > 1)
        return NC_EINVAL;
    if ((stat = nc4_find_var(ncid, varid, NULL, NULL, &var)))
        return stat;
    var->cache_size = size;
    var->cache_nelems = nelems;
    var->cache_preemption = preemption;
    return NC_NOERR;
}

int
NC4_get_var_chunk_cache(int ncid, int varid, size_t *sizep, size_t *nelemsp,
                        float *preemptionp)
{
    NC4_var *var;
    int stat;

    if ((stat = nc4_find_var(ncid, varid, NULL, NULL, &var)))
        return stat;
    if (sizep)
        *sizep = var->cache_size;
    if (nelemsp)
        *nelemsp = var->cache_nelems;
    if (preemptionp)
        *preemptionp = var->cache_preemption;
    return NC_NOERR;
}
