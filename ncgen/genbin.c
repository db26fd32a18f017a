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
    for (int i = 0; i < m->ndims; i++)
        if ((stat = nc_def_dim(b->ncid, m->dims[i].name, m->dims[i].unlimited ? NC_UNLIMITED : m->dims[i].len,
                               &m->dims[i].id)))
            goto done;
    for (int i = 0; i < m->nvars; i++) {
        int dimids[NC_MAX_VAR_DIMS];
        ncg_var *v = &m->vars[i];
        for (int d = 0; d < v->ndims; d++) dimids[d] = m->dims[v->dims[d]].id;
        if ((stat = nc_def_var(b->ncid, v->name, v->type, v->ndims, dimids, &v->id))) goto done;
    }
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].nofill >= 0 && (stat = nc_def_var_fill(b->ncid, m->vars[i].id, m->vars[i].nofill, NULL)))
            goto done;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < m->natts; i++) {
            ncg_att *a = &m->atts[i];
            if ((a->var < 0) != (pass == 0)) continue;
            int varid = a->var < 0 ? NC_GLOBAL : m->vars[a->var].id;
            if (a->type == NC_CHAR) stat = nc_put_att_text(b->ncid, varid, a->name, a->len, a->data);
            else stat = nc_put_att(b->ncid, varid, a->name, a->type, a->len, a->data);
            if (stat) goto done;
        }
    if (m->nofill && (stat = nc_set_fill(b->ncid, NC_NOFILL, &old))) goto done;
    stat = nc_enddef(b->ncid);
done:
    return stat;
}

static int
bin_put(void *vctx, const ncg_model *m, int var, const size_t *start, const size_t *count, const void *buf)
{
    ncg_bin *b = vctx;
    const ncg_var *v = &m->vars[var];
    if (v->type == NC_CHAR) return nc_put_vara_text(b->ncid, v->id, start, count, buf);
    return nc_put_vara(b->ncid, v->id, start, count, buf);
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
