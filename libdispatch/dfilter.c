/* dfilter.c: the public filter API (netcdf_filter.h) and szip.
 *
 * The four generic calls go straight to the file's dispatch slots
 * (def_var_filter, inq_var_filter_ids, inq_var_filter_info,
 * inq_filter_avail).  Everything else is built on them, as upstream does:
 * nc_inq_var_filter (first filter), the bzip2/zstd/blosc/szip shorthands,
 * and nc_filter_path_query, which looks for an HDF5 filter plugin on the
 * plugin path.
 *
 * Difference from the 4.9.0 reference: the zstd and blosc shorthands never
 * pretend to succeed when the filter is missing; they report NC_ENOFILTER.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, dirent */
#include "config.h"
#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "ncapi.h"
#include "netcdf_filter.h"
#include "netcdf_aux.h"
#include "ncinstance.h"
#define NC_FILTER_BUILD_NO_HDF5 1 /* we only need the H5Z_class2_t layout */
#include "netcdf_filter_build.h"

/* ---- helpers -------------------------------------------------------------- */

/* Parameters of filter id on varid into a new vector.  NC_ENOFILTER if the
 * variable does not use it. */
static int
filter_params(int ncid, int varid, unsigned int id, size_t *nparamsp, unsigned int **paramsp)
{
    int stat;
    size_t n = 0;
    unsigned int *params = NULL;

    if ((stat = nc_inq_var_filter_info(ncid, varid, id, &n, NULL)))
        return stat;
    /* One spare so a zero-length vector is still a valid allocation. */
    if ((params = calloc(n + 1, sizeof(unsigned int))) == NULL)
        return NC_ENOMEM;
    if ((stat = nc_inq_var_filter_info(ncid, varid, id, &n, params))) {
        free(params);
        return stat;
    }
    *nparamsp = n;
    *paramsp = params;
    return NC_NOERR;
}

/* ---- the generic calls ---------------------------------------------------- */

int
nc_inq_var_filter_ids(int ncid, int varid, size_t *nfiltersp, unsigned int *ids)
{
    NC_HELD nc = NULL;
    int stat;
    if ((stat = NC_hold(ncid, &nc)))
        return stat;
    NC_LOCK_HANDLE(nc, 0);
    return nc->dispatch->inq_var_filter_ids(ncid, varid, nfiltersp, ids);
}

int
nc_inq_var_filter_info(int ncid, int varid, unsigned int id, size_t *nparamsp, unsigned int *params)
{
    NC_HELD nc = NULL;
    int stat;
    if ((stat = NC_hold(ncid, &nc)))
        return stat;
    NC_LOCK_HANDLE(nc, 0);
    return nc->dispatch->inq_var_filter_info(ncid, varid, id, nparamsp, params);
}

int
nc_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams, const unsigned int *params)
{
    NC_HELD nc = NULL;
    int stat;
    nc_type xtype;
    int fixed = 0;

    if ((stat = NC_hold(ncid, &nc)))
        return stat;
    NC_LOCK_HANDLE(nc, 1);
    if (nparams > 0 && params == NULL)
        return NC_EINVAL;
    if ((stat = nc_inq_vartype(ncid, varid, &xtype)))
        return stat;
    /* Filters work on chunks of fixed-size values only. */
    if ((stat = NC_type_fixed_size(ncid, xtype, &fixed)))
        return stat;
    if (!fixed)
        return NC_EFILTER;
    return nc->dispatch->def_var_filter(ncid, varid, id, nparams, params);
}

int
nc_inq_var_filter(int ncid, int varid, unsigned int *idp, size_t *nparamsp, unsigned int *params)
{
    NC_HELD nc = NULL;
    int stat;
    size_t nfilters = 0;
    unsigned int *ids = NULL;
    unsigned int first;

    if ((stat = NC_hold(ncid, &nc)))
        return stat;
    NC_LOCK_HANDLE(nc, 0);
    if ((stat = nc_inq_var_filter_ids(ncid, varid, &nfilters, NULL)))
        return stat;
    if (nfilters == 0) {
        /* No filter: id 0 and success, as upstream since 4.8; upstream
         * leaves *nparamsp untouched. */
        if (idp)
            *idp = 0;
        return NC_NOERR;
    }
    if ((ids = calloc(nfilters, sizeof(unsigned int))) == NULL)
        return NC_ENOMEM;
    if ((stat = nc_inq_var_filter_ids(ncid, varid, &nfilters, ids)))
        goto done;
    first = ids[0];
    if ((stat = nc_inq_var_filter_info(ncid, varid, first, nparamsp, params)))
        goto done;
    if (idp)
        *idp = first;
done:
    free(ids);
    return stat;
}

int
nc_inq_filter_avail(int ncid, unsigned int id)
{
    NC_HELD nc = NULL;
    int stat;
    if ((stat = NC_hold(ncid, &nc)))
        return stat;
    NC_LOCK_HANDLE(nc, 0);
    return nc->dispatch->inq_filter_avail(ncid, id);
}

/* ---- shorthands for the standard filters ---------------------------------- */

int
nc_def_var_bzip2(int ncid, int varid, int level)
{
    int stat;
    unsigned int ulevel;

    if ((stat = nc_inq_filter_avail(ncid, H5Z_FILTER_BZIP2)))
        return stat;
    if (level < 1 || level > 9)
        return NC_EINVAL;
    ulevel = (unsigned int)level;
    return nc_def_var_filter(ncid, varid, H5Z_FILTER_BZIP2, 1, &ulevel);
}

/* Shared by the bzip2 and zstd queries: one signed level parameter.  As
 * upstream, *hasfilterp and *levelp are written (0 and 0) even when the
 * filter is not available or the query fails. */
static int
inq_level_filter(int ncid, int varid, unsigned int id, int *hasfilterp, int *levelp)
{
    int stat;
    size_t n = 0;
    unsigned int *params = NULL;
    int has = 0, level = 0;

    if ((stat = nc_inq_filter_avail(ncid, id))) {
        if (hasfilterp)
            *hasfilterp = 0;
        if (levelp)
            *levelp = 0;
        return stat;
    }
    stat = filter_params(ncid, varid, id, &n, &params);
    if (stat == NC_ENOFILTER) {
        stat = NC_NOERR;
    } else if (stat == NC_NOERR) {
        has = 1;
        if (n != 1)
            stat = NC_EFILTER;
        else
            level = (int)params[0]; /* bit pattern of a signed level */
    }
    free(params);
    if (stat)
        return stat;
    if (hasfilterp)
        *hasfilterp = has;
    if (levelp)
        *levelp = level;
    return NC_NOERR;
}

int
nc_inq_var_bzip2(int ncid, int varid, int *hasfilterp, int *levelp)
{
    return inq_level_filter(ncid, varid, H5Z_FILTER_BZIP2, hasfilterp, levelp);
}

int
nc_def_var_zstandard(int ncid, int varid, int level)
{
    int stat;
    unsigned int ulevel;

    if ((stat = nc_inq_filter_avail(ncid, H5Z_FILTER_ZSTD)))
        return stat;
    /* zstd's range (1.4.5 and later); negative levels trade ratio for speed. */
    if (level < -131072 || level > 22)
        return NC_EINVAL;
    ulevel = (unsigned int)level;
    return nc_def_var_filter(ncid, varid, H5Z_FILTER_ZSTD, 1, &ulevel);
}

int
nc_inq_var_zstandard(int ncid, int varid, int *hasfilterp, int *levelp)
{
    return inq_level_filter(ncid, varid, H5Z_FILTER_ZSTD, hasfilterp, levelp);
}

int
nc_def_var_blosc(int ncid, int varid, unsigned subcompressor, unsigned level, unsigned blocksize,
                 unsigned addshuffle)
{
    int stat;
    unsigned int params[7];

    if ((stat = nc_inq_filter_avail(ncid, H5Z_FILTER_BLOSC)))
        return stat;
    if (addshuffle > (unsigned)BLOSC_BITSHUFFLE || subcompressor > (unsigned)BLOSC_ZSTD)
        return NC_EINVAL;
    /* The blosc plugin's layout: the first three are filled in by the
     * plugin (version, type size, chunk size). */
    params[0] = 0;
    params[1] = 0;
    params[2] = 0;
    params[3] = blocksize;
    params[4] = level;
    params[5] = addshuffle;
    params[6] = subcompressor;
    return nc_def_var_filter(ncid, varid, H5Z_FILTER_BLOSC, 7, params);
}

int
nc_inq_var_blosc(int ncid, int varid, int *hasfilterp, unsigned *subcompressorp, unsigned *levelp,
                 unsigned *blocksizep, unsigned *addshufflep)
{
    int stat;
    size_t n = 0;
    unsigned int *params = NULL;
    int has = 0;
    unsigned int p[7] = {0, 0, 0, 0, 0, 0, 0};

    if ((stat = nc_inq_filter_avail(ncid, H5Z_FILTER_BLOSC)))
        return stat;
    stat = filter_params(ncid, varid, H5Z_FILTER_BLOSC, &n, &params);
    if (stat == NC_ENOFILTER) {
        stat = NC_NOERR;
    } else if (stat == NC_NOERR) {
        has = 1;
        if (n != 7)
            stat = NC_EFILTER;
        else
            memcpy(p, params, sizeof(p));
    }
    free(params);
    if (stat)
        return stat;
    if (hasfilterp)
        *hasfilterp = has;
    if (has) {
        if (blocksizep)
            *blocksizep = p[3];
        if (levelp)
            *levelp = p[4];
        if (addshufflep)
            *addshufflep = p[5];
        if (subcompressorp)
            *subcompressorp = p[6];
    }
    return NC_NOERR;
}

/* szip: two visible parameters (options mask, pixels per block); HDF5
 * stores four, of which the first two are these. */
int
nc_def_var_szip(int ncid, int varid, int options_mask, int pixels_per_block)
{
    NC_HELD nc = NULL;
    int stat;
    unsigned int params[2];

    if ((stat = NC_hold(ncid, &nc)))
        return stat;
    NC_LOCK_HANDLE(nc, 1);
    if (!(options_mask & (NC_SZIP_EC | NC_SZIP_NN))
        || (options_mask & NC_SZIP_EC && options_mask & NC_SZIP_NN))
        return NC_EINVAL;
    if (pixels_per_block <= 0 || pixels_per_block % 2 != 0
        || pixels_per_block > NC_MAX_PIXELS_PER_BLOCK)
        return NC_EINVAL;
    params[0] = (unsigned int)options_mask;
    params[1] = (unsigned int)pixels_per_block;
    return nc_def_var_filter(ncid, varid, H5Z_FILTER_SZIP, 2, params);
}

int
nc_inq_var_szip(int ncid, int varid, int *options_maskp, int *pixels_per_blockp)
{
    NC_HELD nc = NULL;
    int stat;
    size_t n = 0;
    unsigned int *params = NULL;
    int mask = 0, ppb = 0;

    if ((stat = NC_hold(ncid, &nc)))
        return stat;
    NC_LOCK_HANDLE(nc, 0);
    stat = filter_params(ncid, varid, H5Z_FILTER_SZIP, &n, &params);
    switch (stat) {
    case NC_NOERR:
        if (n < 2) {
            stat = NC_EFILTER;
            break;
        }
        mask = (int)params[0];
        ppb = (int)params[1];
        break;
    case NC_ENOFILTER:
    case NC_ENOTNC4:
        /* Not in use (or impossible in this format): both zero, success. */
        stat = NC_NOERR;
        break;
    default:
        break;
    }
    free(params);
    if (stat)
        return stat;
    if (options_maskp)
        *options_maskp = mask;
    if (pixels_per_blockp)
        *pixels_per_blockp = ppb;
    return NC_NOERR;
}

/* ---- plugin search -------------------------------------------------------- */

/* 1 if the shared library at path is an HDF5 filter plugin for id. */
static int
plugin_has_filter(const char *path, int id)
{
    int found = 0;
    void *lib;
    void *sym_type, *sym_info;

    if ((lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL)) == NULL)
        return 0;
    sym_type = dlsym(lib, "H5PLget_plugin_type");
    sym_info = dlsym(lib, "H5PLget_plugin_info");
    if (sym_type != NULL && sym_info != NULL) {
        H5PL_get_plugin_type_proto gettype;
        H5PL_get_plugin_info_proto getinfo;
        const H5Z_class2_t *info;
        /* POSIX guarantees object and function pointers convert via dlsym. */
        memcpy(&gettype, &sym_type, sizeof(gettype));
        memcpy(&getinfo, &sym_info, sizeof(getinfo));
        if (gettype() == H5PL_TYPE_FILTER && (info = getinfo()) != NULL && info->id == id)
            found = 1;
    }
    dlclose(lib);
    return found;
}

/* NC_NOERR if some directory on the plugin path holds a plugin for filter
 * id, NC_ENOFILTER if none does, NC_EINVAL for an id outside 1..65535. */
int
nc_filter_path_query(int id)
{
    int stat;
    size_t i;
    int found = 0;
    NCPluginList dirs = {0, NULL};

    if (id <= 0 || id > H5Z_FILTER_MAX)
        return NC_EINVAL;
    if ((stat = nc_plugin_path_get(&dirs)))
        return stat;
    for (i = 0; i < dirs.ndirs && !found; i++) {
        DIR *d;
        struct dirent *ent;
        if (dirs.dirs[i] == NULL || dirs.dirs[i][0] == '\0' || (d = opendir(dirs.dirs[i])) == NULL)
            continue;
        while (!found && (ent = readdir(d)) != NULL) {
            size_t dl = strlen(dirs.dirs[i]), nl = strlen(ent->d_name);
            char *full;
            /* Shared libraries only; HDF5 loads "*.so" files on this platform. */
            if (nl < 4 || strstr(ent->d_name, ".so") == NULL)
                continue;
            if ((full = malloc(dl + nl + 2)) == NULL) {
                stat = NC_ENOMEM;
                break;
            }
            memcpy(full, dirs.dirs[i], dl);
            full[dl] = '/';
            memcpy(full + dl + 1, ent->d_name, nl + 1);
            found = plugin_has_filter(full, id);
            free(full);
        }
        closedir(d);
        if (stat)
            break;
    }
    ncaux_plugin_path_clear(&dirs);
    if (stat)
        return stat;
    return found ? NC_NOERR : NC_ENOFILTER;
}
