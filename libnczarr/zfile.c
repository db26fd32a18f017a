/* zfile.c: create, open, enddef, sync, abort and close of Zarr stores.
 *
 * The path given is a URL ("file:///x.zarr#mode=nczarr,file", "s3://...")
 * or a plain path to a store (found by libdispatch's sniffing).  Mode keys
 * read here: nczarr | zarr (pure Zarr: no NCZarr keys written), v2 | v3,
 * xarray | noxarray, consolidated; the storage keys (file, zip, s3) go to
 * ncz_map_open.  Environment: NCZARR_CONSOLIDATED (any value but "0",
 * "false", "no", "off") asks for consolidated metadata on write, as
 * mode=consolidated does. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ncdispatch.h"
#include "netcdf_meta.h"
#include "zmeta.h"

/* ---- the fmt states ---------------------------------------------------------- */

static void
free_fmt(NC4_file *f, void *fmt)
{
    int kind = fmt ? *(int *)fmt : 0;
    (void)f;
    if (kind == NCZ_KVAR) {
        NCZ_var *zv = fmt;
        ncz_var_data_free(zv);
        free(zv->key);
        free(zv->transpose);
        free(zv->inner_chunks);
        ncz_codec_specs_free(&zv->codecs, &zv->ncodecs);
        ncz_codec_specs_free(&zv->index_codecs, &zv->nindex_codecs);
        ncz_codec_specs_free(&zv->inner_codecs, &zv->ninner_codecs);
        free(zv);
    } else if (kind == NCZ_KGRP) {
        NCZ_grp *zg = fmt;
        free(zg->key);
        free(zg);
    } else if (kind == NCZ_KFILE) {
        NCZ_file *zf = fmt;
        ncz_meta_free(zf);
        free(zf->modelist);
        free(zf);
    }
}

static int
check_chunking(NC4_file *f, NC4_var *var, const size_t *chunks)
{
    size_t bytes = nc4_type_size(f, var->xtype);
    (void)f;
    if (var->xtype == NC_STRING && ncz_var(var))
        bytes = ncz_var(var)->maxstrlen ? ncz_var(var)->maxstrlen : NCZ_MAXSTR_DEFAULT;
    for (int i = 0; chunks && i < var->ndims; i++) {
        if (chunks[i] == 0 || bytes > ((size_t)1 << 34) / chunks[i])
            return NC_EBADCHUNK;
        bytes *= chunks[i];
    }
    return NC_NOERR;
}

static int ncz_enddef(NC4_file *f);
static int close_file(NC4_file *f, int abort_it, void *params);

static const NC4_storage_ops ncz_ops = {
    .check_chunking = check_chunking,
    .check_filter = ncz_check_filter,
    .free_fmt = free_fmt,
    .enddef = ncz_enddef,
    .chunked_only = 1,
    .close = close_file,
};

/* ---- URL pieces ------------------------------------------------------------------ */

/* Split "url#frag" into the URL and the mode list (value of mode=, also
 * bare keys like "#zarr").  Both malloc'ed. */
static int
split_url(const char *path, char **urlp, char **modesp)
{
    const char *hash = strchr(path, '#');
    size_t ulen = hash ? (size_t)(hash - path) : strlen(path);
    char *url = malloc(ulen + 1), *modes = NULL;
    if (url == NULL)
        return NC_ENOMEM;
    memcpy(url, path, ulen);
    url[ulen] = '\0';
    if (hash) {
        /* Collect every "mode=a,b" and bare key into one comma list. */
        size_t cap = strlen(hash) + 1, n = 0;
        const char *p = hash + 1;
        if ((modes = calloc(1, cap)) == NULL) {
            free(url);
            return NC_ENOMEM;
        }
        while (*p) {
            const char *amp = strchr(p, '&');
            size_t plen = amp ? (size_t)(amp - p) : strlen(p);
            const char *v = p;
            size_t vlen = plen;
            if (plen >= 5 && strncmp(p, "mode=", 5) == 0) {
                v = p + 5;
                vlen = plen - 5;
            } else if (memchr(p, '=', plen)) {
                vlen = 0; /* other key=value pairs are not modes */
            }
            if (vlen) {
                if (n)
                    modes[n++] = ',';
                memcpy(modes + n, v, vlen);
                n += vlen;
                modes[n] = '\0';
            }
            if (!amp)
                break;
            p = amp + 1;
        }
    }
    *urlp = url;
    *modesp = modes;
    return NC_NOERR;
}

static int
has_mode(const char *list, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == wl && strncasecmp(p, word, wl) == 0)
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static int
env_consolidated(void)
{
    const char *e = getenv("NCZARR_CONSOLIDATED");
    if (e == NULL)
        return 0;
    return !(strcmp(e, "0") == 0 || strcasecmp(e, "false") == 0 || strcasecmp(e, "no") == 0 ||
             strcasecmp(e, "off") == 0);
}

/* The provenance string written to new stores. */
static char *
make_ncproperties(void)
{
    char buf[128];
    snprintf(buf, sizeof buf, "version=2,netcdf=%s,nczarr=%s", NC_VERSION, NCZ_NCZARR_VERSION);
    return strdup(buf);
}

/* New file state and model for ncid; modes parsed. */
static int
new_file(int ncid, int mode, const char *path, NC4_file **fp, char **urlp)
{
    NC *nc;
    NC4_file *f = NULL;
    NCZ_file *zf;
    NCZ_grp *zg;
    char *url = NULL, *modes = NULL;
    int stat;

    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if ((stat = split_url(path, &url, &modes)))
        return stat;
    if ((stat = nc4_file_new(nc, nc->ext_ncid, mode, NC_FORMATX_NCZARR, &ncz_ops, &f)))
        goto fail;
    if ((zf = calloc(1, sizeof(*zf))) == NULL || (zg = ncz_grp_state_new()) == NULL) {
        free(zf);
        stat = NC_ENOMEM;
        goto fail;
    }
    zf->kind = NCZ_KFILE;
    f->fmt = zf;
    zg->kind = NCZ_KGRP;
    f->root->fmt = zg;
    if ((zg->key = strdup("")) == NULL) {
        stat = NC_ENOMEM;
        goto fail;
    }
    zf->modelist = modes;
    modes = NULL;
    zf->zarr_format = has_mode(zf->modelist, "v3") ? 3 : 2;
    zf->pure_zarr = has_mode(zf->modelist, "zarr") && !has_mode(zf->modelist, "nczarr");
    zf->xarray = !has_mode(zf->modelist, "noxarray");
    zf->write_consolidated = has_mode(zf->modelist, "consolidated") || env_consolidated();
    zf->dimsep = '.';
    zf->default_maxstrlen = NCZ_MAXSTR_DEFAULT;
    nc4_get_default_cache(&zf->cache_size, &zf->cache_nelems, &zf->cache_preemption);
    f->is_netcdf4 = 1;
    /* _SuperblockVersion: the NCZarr format's major version (2.0.0, or our
     * 3.0.0 for v3), as upstream reports it; set again once open knows. */
    f->superblock = zf->zarr_format;
    *fp = f;
    *urlp = url;
    return NC_NOERR;
fail:
    if (f)
        nc4_file_free(f);
    nc->dispatchdata = NULL;
    free(url);
    free(modes);
    return stat;
}

int
NCZ_create(const char *path, int cmode, size_t initialsz, int basepe, size_t *chunksizehintp,
           void *parameters, const NC_Dispatch *table, int ncid)
{
    NC4_file *f = NULL;
    NCZ_file *zf;
    char *url = NULL;
    int stat, mmode;

    (void)initialsz; (void)basepe; (void)chunksizehintp; (void)parameters; (void)table;
    if (cmode & (NC_MMAP | NC_64BIT_OFFSET | NC_64BIT_DATA | NC_INMEMORY | NC_DISKLESS))
        return NC_EINVAL;
    if ((stat = new_file(ncid, cmode | NC_WRITE | NC_NETCDF4, path, &f, &url)))
        return stat;
    zf = ncz_file(f);
    mmode = NCZ_MAP_WRITE | NCZ_MAP_CREATE | ((cmode & NC_NOCLOBBER) ? 0 : NCZ_MAP_CLOBBER);
    if ((stat = ncz_map_open(url, zf->modelist, mmode, &zf->map)))
        goto fail;
    zf->created = 1;
    f->indef = 1;
    f->dirty = 1;
    if (!zf->pure_zarr && (f->ncproperties = make_ncproperties()) == NULL) {
        stat = NC_ENOMEM;
        goto fail;
    }
    free(url);
    return NC_NOERR;
fail:
    if (zf->map)
        zf->map->ops->close(zf->map, 0);
    zf->map = NULL;
    if (f->nc)
        f->nc->dispatchdata = NULL;
    nc4_file_free(f);
    free(url);
    return stat == NC_ENOOBJECT ? ENOENT : stat;
}

int
NCZ_open(const char *path, int mode, int basepe, size_t *chunksizehintp, void *parameters,
         const NC_Dispatch *table, int ncid)
{
    NC4_file *f = NULL;
    NCZ_file *zf;
    char *url = NULL;
    json_object *root3 = NULL;
    int stat;

    (void)basepe; (void)chunksizehintp; (void)parameters; (void)table;
    if (mode & (NC_MMAP | NC_INMEMORY | NC_DISKLESS))
        return NC_EINVAL;
    if ((stat = new_file(ncid, mode | NC_NETCDF4, path, &f, &url)))
        return stat;
    zf = ncz_file(f);
    f->readonly = zf->readonly = (mode & NC_WRITE) == 0;
    if ((stat = ncz_map_open(url, zf->modelist, f->readonly ? NCZ_MAP_READ : NCZ_MAP_WRITE, &zf->map)))
        goto fail;
    /* Format: what the store holds, unless the mode forces one.  A v2
     * consolidated store answers with its one /.zmetadata object (an S3
     * open then costs two requests); else zarr.json decides. */
    if (!has_mode(zf->modelist, "v3")) {
        zf->zarr_format = 2;
        if ((stat = ncz_meta_load_consolidated(f, NULL)))
            goto fail;
    }
    if (!zf->consolidated && !has_mode(zf->modelist, "v2")) {
        stat = ncz_json_read(zf->map, "/zarr.json", &root3);
        if (stat == NC_NOERR)
            zf->zarr_format = 3;
        else if (stat != NC_EEMPTY && stat != NC_ENCZARR)
            goto fail;
        else if (stat == NC_ENCZARR && !has_mode(zf->modelist, "v3"))
            stat = NC_NOERR; /* a broken zarr.json next to v2 metadata */
        else if (stat == NC_ENCZARR)
            goto fail;
        if (stat == NC_EEMPTY)
            stat = NC_NOERR;
    }
    if (root3 == NULL && !zf->consolidated && ncz_meta_exists(f, "/.zgroup") == NC_EEMPTY) {
        /* No root group metadata: as upstream, any Zarr metadata object
         * below makes it a pure Zarr store, of that object's format. */
        int found = 0;
        if ((stat = ncz_meta_find_format(f, &found)))
            goto fail;
        if (found == 0 || (found == 3 && has_mode(zf->modelist, "v2")) ||
            (found == 2 && has_mode(zf->modelist, "v3"))) {
            stat = NC_ENOTZARR;
            goto fail;
        }
        zf->zarr_format = found;
    }
    f->superblock = zf->zarr_format;
    if (zf->zarr_format == 3)
        zf->dimsep = '/';
    if (zf->zarr_format == 3 && (stat = ncz_meta_load_consolidated(f, root3)))
        goto fail;
    if (zf->consolidated && !f->readonly)
        zf->write_consolidated = 1; /* keep it in step with the store */
    stat = zf->zarr_format == 3 ? ncz_v3_read(f, root3) : ncz_v2_read(f);
    if (stat)
        goto fail;
    /* The consolidated dict served the open; the tree holds it all now. */
    json_object_put(zf->cons);
    zf->cons = NULL;
    /* What was read is as stored; nothing to write back until changed. */
    f->root->created = 1;
    f->dirty = 0;
    for (size_t i = 0; i < f->ngrps; i++) {
        f->grps[i]->dirty = f->grps[i]->atts_dirty = 0;
        for (size_t j = 0; j < f->grps[i]->vars.n; j++) {
            NC4_var *v = (NC4_var *)f->grps[i]->vars.items[j];
            v->dirty = v->atts_dirty = 0;
        }
    }
    for (size_t i = 0; i < f->ndims; i++)
        f->dims[i]->dirty = 0;
    json_object_put(root3);
    free(url);
    return NC_NOERR;
fail:
    json_object_put(root3);
    if (zf->map)
        zf->map->ops->close(zf->map, 0);
    zf->map = NULL;
    if (f->nc)
        f->nc->dispatchdata = NULL;
    nc4_file_free(f);
    free(url);
    if (stat == NC_ENOOBJECT)
        stat = ENOENT;
    return stat;
}

/* ---- enddef, sync, close ---------------------------------------------------------- */

/* A positive integer attribute's value, 0 if absent or not one. */
static size_t
att_size(NC4_grp *g, NC4_var *var, const char *name)
{
    NC4_att *a = (NC4_att *)nc4_index_find(var ? &var->atts : &g->atts, name);
    long long v = 0;
    if (a == NULL || a->len != 1 || a->data == NULL)
        return 0;
    switch (a->xtype) {
    case NC_BYTE: v = *(signed char *)a->data; break;
    case NC_UBYTE: v = *(unsigned char *)a->data; break;
    case NC_SHORT: v = *(short *)a->data; break;
    case NC_USHORT: v = *(unsigned short *)a->data; break;
    case NC_INT: v = *(int *)a->data; break;
    case NC_UINT: v = *(unsigned int *)a->data; break;
    case NC_INT64: v = *(long long *)a->data; break;
    case NC_UINT64: v = (long long)(*(unsigned long long *)a->data & 0x7fffffffffffffffULL); break;
    default: return 0;
    }
    return v > 0 && v <= (1 << 20) ? (size_t)v : 0;
}

/* Settle what a new variable's storage needs before data can flow. */
static int
prepare_var(NC4_file *f, NC4_var *var)
{
    NCZ_var *zv = ncz_var(var);
    int stat;
    if (zv == NULL) {
        NCZ_grp *zg = ncz_grp(var->grp);
        if ((zv = ncz_var_state_new(f, var)) == NULL)
            return NC_ENOMEM;
        zv->kind = NCZ_KVAR;
        var->fmt = zv;
        if ((stat = ncz_key_join(zg->key, var->hdr.name, &zv->key)))
            return stat;
    }
    if (!var->created) {
        /* Zarr stores every array in chunks; contiguous/compact become one
         * chunk the size of the dims (unlimited: 1 until it grows), as
         * upstream. */
        if (var->storage != NC_CHUNKED || var->chunksizes == NULL) {
            free(var->chunksizes);
            var->chunksizes = NULL;
            if (var->ndims && (var->chunksizes = calloc((size_t)var->ndims, sizeof(size_t))) == NULL)
                return NC_ENOMEM;
            if (var->storage != NC_CHUNKED)
                for (int i = 0; i < var->ndims; i++)
                    var->chunksizes[i] = var->dims[i]->unlimited || var->dims[i]->len == 0
                                             ? 1 : var->dims[i]->len;
            var->storage = NC_CHUNKED;
        }
        if (ncz_chunk_nelems(var) == 0 && var->ndims && (stat = nc4_default_chunks(f, var)))
            return stat;
        zv->bigendian = var->endianness == NC_ENDIAN_BIG;
        if (var->xtype == NC_STRING) {
            /* Fixed width of v2 strings: the variable's _nczarr_maxstrlen,
             * else the root's _nczarr_default_maxstrlen, else 128 (upstream's
             * Appendix D). */
            int v2 = ncz_file(f)->zarr_format == 2; /* v3 strings are vlen-utf8 */
            size_t w = v2 ? att_size(var->grp, var, NCZ_MAXSTRLEN_ATT) : 0;
            if (w == 0 && v2)
                w = att_size(f->root, NULL, NCZ_DFLT_MAXSTRLEN_ATT);
            if (w == 0)
                w = ncz_file(f)->default_maxstrlen;
            zv->maxstrlen = zv->typesize = w;
        }
        var->meta_locked = 1;
    }
    return NC_NOERR;
}

static int
write_metadata(NC4_file *f)
{
    NCZ_file *zf = ncz_file(f);
    int stat;
    for (size_t i = 0; i < f->ngrps; i++) {
        NC4_grp *g = f->grps[i];
        if (g->fmt == NULL) {
            NCZ_grp *zg = ncz_grp_state_new();
            NCZ_grp *zp = ncz_grp(g->parent);
            if (zg == NULL)
                return NC_ENOMEM;
            zg->kind = NCZ_KGRP;
            g->fmt = zg;
            if ((stat = ncz_key_join(zp->key, g->hdr.name, &zg->key)))
                return stat;
        }
        for (size_t j = 0; j < g->vars.n; j++)
            if ((stat = prepare_var(f, (NC4_var *)g->vars.items[j])))
                return stat;
    }
    stat = zf->zarr_format == 3 ? ncz_v3_write(f) : ncz_v2_write(f);
    if (stat == NC_NOERR) {
        f->dirty = 0;
        for (size_t i = 0; i < f->ndims; i++)
            f->dims[i]->dirty = 0;
    }
    return stat;
}

/* Anything to write: model changes or grown unlimited dims. */
static int
needs_write(NC4_file *f)
{
    if (f->dirty)
        return 1;
    for (size_t i = 0; i < f->ngrps; i++) {
        NC4_grp *g = f->grps[i];
        if (g->dirty || g->atts_dirty || !g->created)
            return 1;
        for (size_t j = 0; j < g->vars.n; j++) {
            NC4_var *v = (NC4_var *)g->vars.items[j];
            if (v->dirty || v->atts_dirty || !v->created || (v->fmt && ncz_var(v)->meta_dirty))
                return 1;
        }
    }
    for (size_t i = 0; i < f->ndims; i++)
        if (f->dims[i]->dirty)
            return 1;
    return 0;
}

static int
ncz_enddef(NC4_file *f)
{
    int stat = NC_NOERR;
    if (!f->readonly && needs_write(f))
        stat = write_metadata(f);
    if (stat == NC_NOERR) {
        f->indef = 0;
        f->explicit_redef = 0;
        ncz_file(f)->created = 0; /* an abort from now on keeps the store */
    }
    return stat;
}

static int
flush_data(NC4_file *f)
{
    int stat = NC_NOERR;
    for (size_t i = 0; i < f->ngrps; i++) {
        NC4_grp *g = f->grps[i];
        for (size_t j = 0; j < g->vars.n; j++) {
            NC4_var *v = (NC4_var *)g->vars.items[j];
            if (v->fmt && v->created) {
                int s = ncz_var_flush(f, v);
                if (s && stat == NC_NOERR)
                    stat = s;
            }
        }
    }
    return stat;
}

int
ncz_sync_file(NC4_file *f)
{
    int stat = flush_data(f);
    if (stat == NC_NOERR && !f->readonly && needs_write(f))
        stat = write_metadata(f);
    return stat;
}

/* nc_sync: data and metadata out, then whatever the store needs to make
 * them durable (a zip archive is written out).  A reader has nothing to
 * write. */
int
NCZ_sync(int ncid)
{
    NC4_file *f;
    NCZ_map *map;
    int stat;
    if ((stat = nc4_find_grp(ncid, &f, NULL)) || f->readonly)
        return stat;
    if ((stat = nc4_sync_define(f)) || (stat = ncz_sync_file(f)))
        return stat;
    map = ncz_file(f) ? ncz_file(f)->map : NULL;
    return map && map->ops->sync ? map->ops->sync(map) : NC_NOERR;
}

/* The model's ops->close (nc_close, nc_abort). */
static int
close_file(NC4_file *f, int abort_it, void *params)
{
    NCZ_file *zf = ncz_file(f);
    int stat = NC_NOERR, s;
    int remove_it = abort_it && zf->created;

    (void)params;
    if (!abort_it && !f->readonly) {
        if (f->indef)
            stat = ncz_enddef(f);
        if (stat == NC_NOERR)
            stat = ncz_sync_file(f);
    }
    /* Free the data state first (caches hold no map pointers past this). */
    if (zf->map) {
        s = zf->map->ops->close(zf->map, remove_it);
        if (s && stat == NC_NOERR && !abort_it)
            stat = s;
        zf->map = NULL;
    }
    if (f->nc)
        f->nc->dispatchdata = NULL;
    nc4_file_free(f);
    return stat;
}
