/* ncgen binary sink: writes the model through the public netCDF API with the
 * same calls, in the same order, as upstream ncgen (create, dims, vars,
 * per-variable fill mode, global then variable attributes, set_fill, enddef,
 * data), so the file is byte-identical. The file is written under a temporary
 * name next to the target and renamed on success, so a failure never leaves a
 * half-written output nor destroys an existing file. */
#include "ncgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netcdf_aux.h>
#include <netcdf_filter.h>

static int
def_type(ncg_model *m, ncg_type *t)
{
    int g = m->groups[t->grp].id, stat = NC_NOERR;
    switch (t->cls) {
    case NC_OPAQUE: return nc_def_opaque(g, t->size, t->name, &t->id);
    case NC_VLEN: return nc_def_vlen(g, t->name, ncg_typeid(m, t->base), &t->id);
    case NC_ENUM:
        if ((stat = nc_def_enum(g, t->base, t->name, &t->id))) return stat;
        for (int i = 0; i < t->nconsts; i++)
            if ((stat = nc_insert_enum(g, t->id, t->consts[i].name, t->consts[i].val))) return stat;
        return NC_NOERR;
    case NC_COMPOUND:
        if ((stat = nc_def_compound(g, t->size, t->name, &t->id))) return stat;
        for (int i = 0; i < t->nfields; i++) {
            ncg_field *f = &t->fields[i];
            if (f->ndims == 0) stat = nc_insert_compound(g, t->id, f->name, f->offset, ncg_typeid(m, f->type));
            else stat = nc_insert_array_compound(g, t->id, f->name, f->offset, ncg_typeid(m, f->type), f->ndims,
                                                 f->dims);
            if (stat) return stat;
        }
        return NC_NOERR;
    default: return NC_EBADTYPE;
    }
}

/* storage properties from the special attributes, in upstream's order */
static int
def_specials(ncg_model *m, ncg_var *v)
{
    int g = m->groups[v->grp].id, stat;
    if (v->storage >= 0) {
        if (v->storage == NC_CHUNKED)
            stat = nc_def_var_chunking(g, v->id, NC_CHUNKED, v->nchunks ? v->chunks : NULL);
        else stat = nc_def_var_chunking(g, v->id, v->storage, NULL);
        if (stat) return stat;
    }
    if (v->fletcher32 >= 0 && (stat = nc_def_var_fletcher32(g, v->id, v->fletcher32))) return stat;
    if ((v->deflate >= 0 || v->shuffle >= 0) &&
        (stat = nc_def_var_deflate(g, v->id, v->shuffle == 1, v->deflate >= 0, v->deflate >= 0 ? v->deflate : 0)))
        return stat;
    if (v->endian >= 0 && (stat = nc_def_var_endian(g, v->id, v->endian))) return stat;
    if (v->nofill >= 0 && (stat = nc_def_var_fill(g, v->id, v->nofill, NULL))) return stat;
    if (v->filter) {
        size_t n = 0;
        NC_H5_Filterspec **specs = NULL;
        int fmt = 0;
        if ((stat = ncaux_h5filterspec_parselist(v->filter, &fmt, &n, &specs))) return stat;
        for (size_t i = 0; i < n && !stat; i++)
            stat = nc_def_var_filter(g, v->id, specs[i]->filterid, specs[i]->nparams, specs[i]->params);
        for (size_t i = 0; i < n; i++) ncaux_h5filterspec_free(specs[i]);
        free(specs);
        if (stat) return stat;
    }
    if (v->quantize > 0 && (stat = nc_def_var_quantize(g, v->id, v->quantize, v->nsd))) return stat;
    return NC_NOERR;
}

static int
bin_define(void *vctx, ncg_model *m)
{
    ncg_bin *b = vctx;
    int stat = NC_NOERR, old;
    size_t n = strlen(b->path);
    char *tmp = malloc(n + 16);
    if (!tmp) return NC_ENOMEM;
    snprintf(tmp, n + 16, "%s.ncgenXXXXXX", b->path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        /* directory not writable: let nc_create report it on the real name */
        strcpy(tmp, b->path);
    } else {
        close(fd);
        unlink(tmp);
    }
    b->tmp = tmp;
    if ((stat = nc_create(tmp, m->cmode | NC_CLOBBER, &b->ncid))) goto done;
    b->created = 1;
    b->made = 1;
    m->groups[0].id = b->ncid;
    /* -x before any definition: netCDF-4 variables take the fill mode the
     * file has when they are defined (the classic formats apply it at enddef) */
    if (m->nofill && (stat = nc_set_fill(b->ncid, NC_NOFILL, &old))) goto done;
    for (int i = 1; i < m->ngroups; i++)
        if ((stat = nc_def_grp(m->groups[m->groups[i].parent].id, m->groups[i].name, &m->groups[i].id)))
            goto done;
    for (int k = 0; k < m->ntypes; k++)
        if ((stat = def_type(m, &m->types[m->typeorder[k]]))) goto done;
    for (int i = 0; i < m->ndims; i++)
        if ((stat = nc_def_dim(m->groups[m->dims[i].grp].id, m->dims[i].name,
                               m->dims[i].unlimited ? NC_UNLIMITED : m->dims[i].len, &m->dims[i].id)))
            goto done;
    for (int i = 0; i < m->nvars; i++) {
        int dimids[NC_MAX_VAR_DIMS];
        ncg_var *v = &m->vars[i];
        for (int d = 0; d < v->ndims; d++) dimids[d] = m->dims[v->dims[d]].id;
        if ((stat = nc_def_var(m->groups[v->grp].id, v->name, ncg_typeid(m, v->type), v->ndims, dimids, &v->id)))
            goto done;
    }
    for (int i = 0; i < m->nvars; i++)
        if ((stat = def_specials(m, &m->vars[i]))) goto done;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < m->natts; i++) {
            ncg_att *a = &m->atts[i];
            if ((a->var < 0) != (pass == 0)) continue;
            int g = m->groups[a->grp].id;
            int varid = a->var < 0 ? NC_GLOBAL : m->vars[a->var].id;
            if (a->type == NC_CHAR) stat = nc_put_att_text(g, varid, a->name, a->len, a->data);
            else stat = nc_put_att(g, varid, a->name, ncg_typeid(m, a->type), a->len, a->data);
            if (stat) goto done;
        }
    stat = nc_enddef(b->ncid);
done:
    return stat;
}

static int
bin_put(void *vctx, const ncg_model *m, int var, const size_t *start, const size_t *count, const void *buf)
{
    const ncg_var *v = &m->vars[var];
    int g = m->groups[v->grp].id;
    (void)vctx;
    if (v->type == NC_CHAR) return nc_put_vara_text(g, v->id, start, count, buf);
    return nc_put_vara(g, v->id, start, count, buf);
}

static int
bin_finish(void *vctx, const ncg_model *m)
{
    ncg_bin *b = vctx;
    int stat;
    (void)m;
    b->created = 0;
    if ((stat = nc_close(b->ncid))) return stat;          /* abort() unlinks */
    if (strcmp(b->tmp, b->path) && rename(b->tmp, b->path)) return NC_EPERM;
    b->made = 0;
    return NC_NOERR;
}

static void
bin_abort(void *vctx, const ncg_model *m)
{
    ncg_bin *b = vctx;
    (void)m;
    if (b->created) nc_abort(b->ncid);
    b->created = 0;
    if (b->made && b->tmp) unlink(b->tmp);
    b->made = 0;
}

const ncg_sink ncg_bin_sink = {
    .define = bin_define,
    .put = bin_put,
    .finish = bin_finish,
    .abort = bin_abort,
};
