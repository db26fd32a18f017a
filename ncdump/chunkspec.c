/* chunkspec.c: parsing of nccopy's -c chunk specifications.
 *
 * Two forms, told apart by a ':' anywhere in the argument (upstream's rule):
 *   dim1/n1,dim2/n2,...   chunk length per input dimension; "dim/" means the
 *                         dimension's length; "/" or "//" turns chunking off;
 *                         a comma after a backslash belongs to the name.
 *   var:n1,n2,...         chunk lengths for one variable (one per dimension,
 *                         none larger than its dimension); "var:" turns its
 *                         chunking off; "var:contiguous" / "var:compact"
 *                         choose that storage.
 * Names may carry a group path ("/g/d").  The sizes are read the way
 * upstream reads them (strtoll base 0 for dimensions, "%lu" for variables),
 * so "0x10" is 16 and "v:-1" is a huge size refused as larger than the
 * dimension. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "copyspec.h"

/* A dimension by name, optionally with a group path (upstream's
 * nc_inq_dimid2: the group part is looked up, then the whole name). */
static int
find_dim(int igrp, const char *name, int *dimidp)
{
    const char *slash = strrchr(name, '/');
    char *grp;
    int gid, stat;

    if (!slash)
        return nc_inq_dimid(igrp, name, dimidp);
    grp = strndup(name, (size_t)(slash - name));
    if (!grp)
        return NC_ENOMEM;
    stat = nc_inq_grp_full_ncid(igrp, grp, &gid);
    free(grp);
    if (stat == NC_NOERR)
        stat = nc_inq_dimid(gid, name, dimidp);
    return stat;
}

/* A variable by name, optionally with a group path; also its group. */
static int
find_var(int igrp, const char *name, int *grpp, int *varidp)
{
    const char *slash = strrchr(name, '/');
    char *grp;
    int stat;

    if (!slash) {
        *grpp = igrp;
        return nc_inq_varid(igrp, name, varidp);
    }
    grp = slash == name ? strdup("/") : strndup(name, (size_t)(slash - name));
    if (!grp)
        return NC_ENOMEM;
    stat = nc_inq_grp_full_ncid(igrp, grp, grpp);
    free(grp);
    if (stat == NC_NOERR)
        stat = nc_inq_varid(*grpp, slash + 1, varidp);
    return stat;
}

static void
free_dims(chunkspecs *cs)
{
    free(cs->dimids);
    free(cs->dimsizes);
    cs->dimids = NULL;
    cs->dimsizes = NULL;
    cs->ndims = 0;
    cs->dim_omit = 0;
}

/* An unescaped comma: not preceded by a backslash. */
static int
is_sep(const char *s, const char *p)
{
    return *p == ',' && (p == s || p[-1] != '\\');
}

static int
parse_dims(chunkspecs *cs, int igrp, const char *spec)
{
    const char *p, *tok;
    size_t n = 1, i = 0;
    int stat = NC_NOERR;

    free_dims(cs);
    if (!strcmp(spec, "/") || !strcmp(spec, "//")) {
        cs->dim_omit = 1;
        return NC_NOERR;
    }
    for (p = spec; *p; p++)
        if (is_sep(spec, p)) {
            if (p > spec && is_sep(spec, p - 1))
                return NC_EINVAL;       /* consecutive separators */
            n++;
        }
    cs->dimids = malloc(n * sizeof *cs->dimids);
    cs->dimsizes = malloc(n * sizeof *cs->dimsizes);
    if (!cs->dimids || !cs->dimsizes) {
        free_dims(cs);
        return NC_ENOMEM;
    }
    for (tok = p = spec;; p++) {
        const char *slash, *num;
        char *name;
        int dimid;
        size_t size;

        if (*p && !is_sep(spec, p))
            continue;
        /* the token is [tok, p): its last '/' ends the name */
        for (slash = p; slash > tok && slash[-1] != '/'; slash--)
            ;
        if (slash == tok) {
            stat = NC_EINVAL;           /* no "/size" part */
            break;
        }
        slash--;
        if (!(name = strndup(tok, (size_t)(slash - tok)))) {
            stat = NC_ENOMEM;
            break;
        }
        stat = find_dim(igrp, name, &dimid);
        free(name);
        if (stat)
            break;
        num = slash + 1;
        if (num == p) {                 /* "dim/": the whole dimension */
            if ((stat = nc_inq_dimlen(igrp, dimid, &size)))
                break;
        } else {
            char *end;
            long long v;
            errno = 0;
            v = strtoll(num, &end, 0);
            if (end == num || errno == ERANGE || v < 1) {
                stat = NC_EINVAL;
                break;
            }
            size = (size_t)v;
        }
        cs->dimids[i] = dimid;
        cs->dimsizes[i] = size;
        cs->ndims = ++i;
        if (!*p)
            break;
        tok = p + 1;
    }
    return stat;
}

static int
parse_var(chunkspecs *cs, int igrp, const char *spec0)
{
    char *spec = strdup(spec0), *p, *q;
    cs_var v;
    int stat = NC_NOERR, rank, dimids[NC_MAX_VAR_DIMS], i;

    if (!spec)
        return NC_ENOMEM;
    memset(&v, 0, sizeof v);
    p = strchr(spec, ':');
    *p++ = '\0';
    if ((stat = find_var(igrp, spec, &v.igrp, &v.ivar)))
        goto done;
    if (!*p) {
        v.omit = 1;                     /* kind stays 0 (NC_CHUNKED), as upstream */
    } else if (!strcasecmp(p, "compact")) {
        v.kind = NC_COMPACT;
    } else if (!strcasecmp(p, "contiguous")) {
        v.kind = NC_CONTIGUOUS;
    } else {
        v.kind = NC_CHUNKED;
        while (*p) {
            unsigned long size;
            q = strchr(p, ',');
            if (q)
                *q++ = '\0';
            else
                q = p + strlen(p);
            if (sscanf(p, "%lu", &size) != 1 || v.rank >= NC_MAX_VAR_DIMS) {
                stat = NC_EINVAL;
                goto done;
            }
            v.sizes[v.rank++] = (size_t)size;
            p = q;
        }
        if ((stat = nc_inq_var(v.igrp, v.ivar, NULL, NULL, &rank, dimids, NULL)))
            goto done;
        if ((size_t)rank != v.rank) {
            stat = NC_EINVAL;
            goto done;
        }
        for (i = 0; i < rank; i++) {
            size_t len;
            if ((stat = nc_inq_dimlen(igrp, dimids[i], &len)))
                goto done;
            if (v.sizes[i] > len) {
                stat = NC_EBADCHUNK;
                goto done;
            }
        }
    }
    if (cs->nvars == cs->cap) {
        size_t cap = cs->cap ? 2 * cs->cap : 4;
        cs_var *nv = realloc(cs->vars, cap * sizeof *nv);
        if (!nv) {
            stat = NC_ENOMEM;
            goto done;
        }
        cs->vars = nv;
        cs->cap = cap;
    }
    cs->vars[cs->nvars++] = v;
done:
    free(spec);
    return stat;
}

int
chunkspec_parse(chunkspecs *cs, int igrp, const char *spec)
{
    if (!spec || !*spec)
        return NC_NOERR;
    return strchr(spec, ':') ? parse_var(cs, igrp, spec) : parse_dims(cs, igrp, spec);
}

void
chunkspec_free(chunkspecs *cs)
{
    free_dims(cs);
    free(cs->vars);
    cs->vars = NULL;
    cs->nvars = cs->cap = 0;
}

const cs_var *
chunkspec_var(const chunkspecs *cs, int igrp, int ivar)
{
    size_t i;
    for (i = 0; i < cs->nvars; i++)
        if (cs->vars[i].igrp == igrp && cs->vars[i].ivar == ivar)
            return &cs->vars[i];
    return NULL;
}

int
chunkspec_var_omit(const chunkspecs *cs, int igrp, int ivar)
{
    const cs_var *v = chunkspec_var(cs, igrp, ivar);
    return v ? v->omit : cs->dim_omit;
}

int
chunkspec_dim(const chunkspecs *cs, int dimid, size_t *sizep)
{
    size_t i;
    for (i = 0; i < cs->ndims; i++)
        if (cs->dimids[i] == dimid) {
            *sizep = cs->dimsizes[i];
            return 1;
        }
    return 0;
}
