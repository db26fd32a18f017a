/* dv2i.c: the netCDF-2 API, built on the current API.
 *
 * Every v2 call reports failure by returning -1 after nc_advise(), which
 * stores the status in the global ncerr (NC_SYSERR for an errno value),
 * prints "routine: details: message" to stderr when ncopts has NC_VERBOSE,
 * and exits with status ncopts when ncopts has NC_FATAL (upstream's exit
 * code).  Defaults: NC_VERBOSE|NC_FATAL.  The routine names and detail
 * formats are upstream's, except that ncvarget1 reports as "ncvarget1"
 * (upstream says "ncdimid") and nothing is truncated to int.
 *
 * v2 coordinates are long; they are checked (no negative start, count or
 * index) and converted to size_t/ptrdiff_t.  The v2 imap counts bytes of
 * the variable's external type; it is divided by that size for nc_*_varm.
 * Also here: nctypelen() and the record helpers nc_inq_rec, nc_get_rec and
 * nc_put_rec that upstream exports from this file.
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"

int ncerr = NC_NOERR;
int ncopts = (NC_FATAL | NC_VERBOSE);

/* Exported by upstream without a prototype in netcdf.h. */
int nc_inq_rec(int ncid, size_t *nrecvarsp, int *recvarids, size_t *recsizes);
int nc_get_rec(int ncid, size_t recnum, void **datap);
int nc_put_rec(int ncid, size_t recnum, void *const *datap);

#define SMALL_RANK 32 /* ranks up to this use stack buffers */

void
nc_advise(const char *routine_name, int err, const char *fmt, ...)
{
    va_list args;

    ncerr = NC_ISSYSERR(err) ? NC_SYSERR : err;
    if (ncopts & NC_VERBOSE) {
        fprintf(stderr, "%s: ", routine_name);
        va_start(args, fmt);
        vfprintf(stderr, fmt, args);
        va_end(args);
        if (err != NC_NOERR)
            fprintf(stderr, ": %s", nc_strerror(err));
        fputc('\n', stderr);
        fflush(stderr);
    }
    if ((ncopts & NC_FATAL) && err != NC_NOERR)
        exit(ncopts);
}

int
nctypelen(nc_type type)
{
    switch (type) {
    case NC_CHAR: return (int)sizeof(char);
    case NC_BYTE: return (int)sizeof(signed char);
    case NC_SHORT: return (int)sizeof(short);
    case NC_INT: return (int)sizeof(int);
    case NC_FLOAT: return (int)sizeof(float);
    case NC_DOUBLE: return (int)sizeof(double);
    case NC_UBYTE: return (int)sizeof(unsigned char);
    case NC_USHORT: return (int)sizeof(unsigned short);
    case NC_UINT: return (int)sizeof(unsigned int);
    case NC_INT64: return (int)sizeof(long long);
    case NC_UINT64: return (int)sizeof(unsigned long long);
    case NC_STRING: return (int)sizeof(char *);
    default: return -1;
    }
}

/* ---- long vectors to size_t / ptrdiff_t ------------------------------------ */

/* A converted coordinate vector: stack storage for small ranks. */
typedef struct Coords {
    size_t small[SMALL_RANK];
    size_t *v;     /* small, heap, or NULL when the input was NULL */
} Coords;

typedef struct Strides {
    ptrdiff_t small[SMALL_RANK];
    ptrdiff_t *v;  /* as Coords */
} Strides;

/* NULL in gives NULL out (the library then applies its defaults).
 * negerr: status for a negative entry. */
static int
to_sizes(const long *in, int n, Coords *c, int negerr)
{
    int i;
    c->v = NULL;
    if (in == NULL)
        return NC_NOERR;
    if (n > SMALL_RANK) {
        if ((c->v = malloc((size_t)n * sizeof(size_t))) == NULL)
            return NC_ENOMEM;
    } else {
        c->v = c->small;
    }
    for (i = 0; i < n; i++) {
        if (in[i] < 0)
            return negerr;
        c->v[i] = (size_t)in[i];
    }
    return NC_NOERR;
}

/* divisor: 1 for strides; the element size for a byte imap. */
static int
to_ptrdiffs(const long *in, int n, Strides *s, long divisor)
{
    int i;
    s->v = NULL;
    if (in == NULL)
        return NC_NOERR;
    if (n > SMALL_RANK) {
        if ((s->v = malloc((size_t)n * sizeof(ptrdiff_t))) == NULL)
            return NC_ENOMEM;
    } else {
        s->v = s->small;
    }
    for (i = 0; i < n; i++)
        s->v[i] = (ptrdiff_t)(in[i] / divisor);
    return NC_NOERR;
}

static void
free_sizes(Coords *c)
{
    if (c->v != NULL && c->v != c->small)
        free(c->v);
}

static void
free_ptrdiffs(Strides *s)
{
    if (s->v != NULL && s->v != s->small)
        free(s->v);
}

/* ---- files ------------------------------------------------------------------- */

int
nccreate(const char *path, int cmode)
{
    int ncid;
    int status = nc_create(path, cmode, &ncid);
    if (status != NC_NOERR) {
        nc_advise("nccreate", status, "filename \"%s\"", path ? path : "");
        return -1;
    }
    return ncid;
}

int
ncopen(const char *path, int mode)
{
    int ncid;
    int status = nc_open(path, mode, &ncid);
    if (status != NC_NOERR) {
        nc_advise("ncopen", status, "filename \"%s\"", path ? path : "");
        return -1;
    }
    return ncid;
}

/* The calls that only pass ncid through and return 0. */
#define V2_SIMPLE(v2name, call)                                  \
    int v2name(int ncid)                                         \
    {                                                            \
        int status = call(ncid);                                 \
        if (status != NC_NOERR) {                                \
            nc_advise(#v2name, status, "ncid %d", ncid);         \
            return -1;                                           \
        }                                                        \
        return 0;                                                \
    }

V2_SIMPLE(ncredef, nc_redef)
V2_SIMPLE(ncendef, nc_enddef)
V2_SIMPLE(ncclose, nc_close)
V2_SIMPLE(ncsync, nc_sync)
V2_SIMPLE(ncabort, nc_abort)

int
ncsetfill(int ncid, int fillmode)
{
    int oldmode = -1;
    int status = nc_set_fill(ncid, fillmode, &oldmode);
    if (status != NC_NOERR) {
        nc_advise("ncsetfill", status, "ncid %d", ncid);
        return -1;
    }
    return oldmode;
}

int
ncinquire(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimp)
{
    int nd, nv, na, ud;
    int status = nc_inq(ncid, &nd, &nv, &na, &ud);
    if (status != NC_NOERR) {
        nc_advise("ncinquire", status, "ncid %d", ncid);
        return -1;
    }
    if (ndimsp)
        *ndimsp = nd;
    if (nvarsp)
        *nvarsp = nv;
    if (nattsp)
        *nattsp = na;
    if (unlimdimp)
        *unlimdimp = ud;
    return ncid;
}

/* ---- dimensions --------------------------------------------------------------- */

int
ncdimdef(int ncid, const char *name, long len)
{
    int dimid;
    int status;
    if (len < 0) {
        nc_advise("ncdimdef", NC_EDIMSIZE, "ncid %d", ncid);
        return -1;
    }
    if ((status = nc_def_dim(ncid, name, (size_t)len, &dimid)) != NC_NOERR) {
        nc_advise("ncdimdef", status, "ncid %d", ncid);
        return -1;
    }
    return dimid;
}

int
ncdimid(int ncid, const char *name)
{
    int dimid;
    int status = nc_inq_dimid(ncid, name, &dimid);
    if (status != NC_NOERR) {
        nc_advise("ncdimid", status, "ncid %d", ncid);
        return -1;
    }
    return dimid;
}

int
ncdiminq(int ncid, int dimid, char *name, long *lenp)
{
    size_t len;
    int status = nc_inq_dim(ncid, dimid, name, &len);
    if (status != NC_NOERR) {
        nc_advise("ncdiminq", status, "ncid %d", ncid);
        return -1;
    }
    if (lenp)
        *lenp = (long)len;
    return dimid;
}

int
ncdimrename(int ncid, int dimid, const char *name)
{
    int status = nc_rename_dim(ncid, dimid, name);
    if (status != NC_NOERR) {
        nc_advise("ncdimrename", status, "ncid %d", ncid);
        return -1;
    }
    return dimid;
}

/* ---- variables ------------------------------------------------------------------ */

int
ncvardef(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp)
{
    int varid = -1;
    int status = nc_def_var(ncid, name, xtype, ndims, dimidsp, &varid);
    if (status != NC_NOERR) {
        nc_advise("ncvardef", status, "ncid %d", ncid);
        return -1;
    }
    return varid;
}

int
ncvarid(int ncid, const char *name)
{
    int varid = -1;
    int status = nc_inq_varid(ncid, name, &varid);
    if (status != NC_NOERR) {
        nc_advise("ncvarid", status, "ncid %d", ncid);
        return -1;
    }
    return varid;
}

int
ncvarinq(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp, int *nattsp)
{
    int nd, na;
    int status = nc_inq_var(ncid, varid, name, xtypep, &nd, dimidsp, &na);
    if (status != NC_NOERR) {
        nc_advise("ncvarinq", status, "ncid %d", ncid);
        return -1;
    }
    if (ndimsp)
        *ndimsp = nd;
    if (nattsp)
        *nattsp = na;
    return varid;
}

int
ncvarrename(int ncid, int varid, const char *name)
{
    int status = nc_rename_var(ncid, varid, name);
    if (status != NC_NOERR) {
        nc_advise("ncvarrename", status, "ncid %d", ncid);
        return -1;
    }
    return varid;
}

/* ---- data ------------------------------------------------------------------------- */

/* What each data call does once its vectors are converted. */
enum v2op { OP_PUT1, OP_GET1, OP_PUTA, OP_GETA, OP_PUTS, OP_GETS, OP_PUTM, OP_GETM };

/* One path for all eight data calls: convert, call, report. */
static int
v2_data(const char *routine, enum v2op op, int ncid, int varid, const long *start,
        const long *count, const long *stride, const long *imap, void *value, int varid_in_msg)
{
    int status, ndims = 0;
    long elsize = 1;
    Coords st = {{0}, NULL}, ct = {{0}, NULL};
    Strides sd = {{0}, NULL}, mp = {{0}, NULL};

    if ((status = nc_inq_varndims(ncid, varid, &ndims)))
        goto done;
    if (imap != NULL) {
        nc_type xtype;
        if ((status = nc_inq_vartype(ncid, varid, &xtype)))
            goto done;
        elsize = nctypelen(xtype);
        if (elsize <= 0) {
            size_t sz = 0;
            if ((status = nc_inq_type(ncid, xtype, NULL, &sz)))
                goto done;
            elsize = (long)sz;
        }
        if (elsize <= 0) {
            status = NC_EBADTYPE;
            goto done;
        }
    }
    if ((status = to_sizes(start, ndims, &st, NC_EINVALCOORDS)))
        goto done;
    if ((status = to_sizes(count, ndims, &ct, NC_EEDGE)))
        goto done;
    if ((status = to_ptrdiffs(stride, ndims, &sd, 1)))
        goto done;
    if ((status = to_ptrdiffs(imap, ndims, &mp, elsize)))
        goto done;
    switch (op) {
    case OP_PUT1: status = nc_put_var1(ncid, varid, st.v, value); break;
    case OP_GET1: status = nc_get_var1(ncid, varid, st.v, value); break;
    case OP_PUTA: status = nc_put_vara(ncid, varid, st.v, ct.v, value); break;
    case OP_GETA: status = nc_get_vara(ncid, varid, st.v, ct.v, value); break;
    case OP_PUTS: status = nc_put_vars(ncid, varid, st.v, ct.v, sd.v, value); break;
    case OP_GETS: status = nc_get_vars(ncid, varid, st.v, ct.v, sd.v, value); break;
    case OP_PUTM: status = nc_put_varm(ncid, varid, st.v, ct.v, sd.v, mp.v, value); break;
    case OP_GETM: status = nc_get_varm(ncid, varid, st.v, ct.v, sd.v, mp.v, value); break;
    }
done:
    free_sizes(&st);
    free_sizes(&ct);
    free_ptrdiffs(&sd);
    free_ptrdiffs(&mp);
    if (status != NC_NOERR) {
        if (varid_in_msg)
            nc_advise(routine, status, "ncid %d; varid %d", ncid, varid);
        else
            nc_advise(routine, status, "ncid %d", ncid);
        return -1;
    }
    return 0;
}

int
ncvarput1(int ncid, int varid, const long *indexp, const void *op)
{
    return v2_data("ncvarput1", OP_PUT1, ncid, varid, indexp, NULL, NULL, NULL, (void *)op, 0);
}

int
ncvarget1(int ncid, int varid, const long *indexp, void *ip)
{
    return v2_data("ncvarget1", OP_GET1, ncid, varid, indexp, NULL, NULL, NULL, ip, 0);
}

int
ncvarput(int ncid, int varid, const long *startp, const long *countp, const void *op)
{
    return v2_data("ncvarput", OP_PUTA, ncid, varid, startp, countp, NULL, NULL, (void *)op, 0);
}

int
ncvarget(int ncid, int varid, const long *startp, const long *countp, void *ip)
{
    return v2_data("ncvarget", OP_GETA, ncid, varid, startp, countp, NULL, NULL, ip, 1);
}

int
ncvarputs(int ncid, int varid, const long *startp, const long *countp, const long *stridep,
          const void *op)
{
    if (stridep == NULL)
        return ncvarput(ncid, varid, startp, countp, op);
    return v2_data("ncvarputs", OP_PUTS, ncid, varid, startp, countp, stridep, NULL, (void *)op, 0);
}

int
ncvargets(int ncid, int varid, const long *startp, const long *countp, const long *stridep, void *ip)
{
    if (stridep == NULL)
        return ncvarget(ncid, varid, startp, countp, ip);
    return v2_data("ncvargets", OP_GETS, ncid, varid, startp, countp, stridep, NULL, ip, 0);
}

int
ncvarputg(int ncid, int varid, const long *startp, const long *countp, const long *stridep,
          const long *imapp, const void *op)
{
    if (imapp == NULL)
        return ncvarputs(ncid, varid, startp, countp, stridep, op);
    return v2_data("ncvarputg", OP_PUTM, ncid, varid, startp, countp, stridep, imapp, (void *)op, 0);
}

int
ncvargetg(int ncid, int varid, const long *startp, const long *countp, const long *stridep,
          const long *imapp, void *ip)
{
    if (imapp == NULL)
        return ncvargets(ncid, varid, startp, countp, stridep, ip);
    return v2_data("ncvargetg", OP_GETM, ncid, varid, startp, countp, stridep, imapp, ip, 0);
}

/* ---- attributes ------------------------------------------------------------------- */

int
ncattput(int ncid, int varid, const char *name, nc_type xtype, int len, const void *op)
{
    int status;
    if (len < 0) {
        nc_advise("ncattput", NC_EINVAL, "ncid %d", ncid);
        return -1;
    }
    if ((status = nc_put_att(ncid, varid, name, xtype, (size_t)len, op)) != NC_NOERR) {
        nc_advise("ncattput", status, "ncid %d", ncid);
        return -1;
    }
    return 0;
}

int
ncattinq(int ncid, int varid, const char *name, nc_type *xtypep, int *lenp)
{
    size_t len;
    int status = nc_inq_att(ncid, varid, name, xtypep, &len);
    if (status != NC_NOERR) {
        nc_advise("ncattinq", status, "ncid %d; varid %d; attname \"%s\"", ncid, varid,
                  name ? name : "");
        return -1;
    }
    if (lenp)
        *lenp = (int)len;
    return 1;
}

int
ncattget(int ncid, int varid, const char *name, void *ip)
{
    int status = nc_get_att(ncid, varid, name, ip);
    if (status != NC_NOERR) {
        nc_advise("ncattget", status, "ncid %d", ncid);
        return -1;
    }
    return 1;
}

int
ncattcopy(int ncid_in, int varid_in, const char *name, int ncid_out, int varid_out)
{
    int status = nc_copy_att(ncid_in, varid_in, name, ncid_out, varid_out);
    if (status != NC_NOERR) {
        nc_advise("ncattcopy", status, "%s", name ? name : "");
        return -1;
    }
    return 0;
}

int
ncattname(int ncid, int varid, int attnum, char *name)
{
    int status = nc_inq_attname(ncid, varid, attnum, name);
    if (status != NC_NOERR) {
        nc_advise("ncattname", status, "ncid %d", ncid);
        return -1;
    }
    return attnum;
}

int
ncattrename(int ncid, int varid, const char *name, const char *newname)
{
    int status = nc_rename_att(ncid, varid, name, newname);
    if (status != NC_NOERR) {
        nc_advise("ncattrename", status, "ncid %d", ncid);
        return -1;
    }
    return 1;
}

int
ncattdel(int ncid, int varid, const char *name)
{
    int status = nc_del_att(ncid, varid, name);
    if (status != NC_NOERR) {
        nc_advise("ncattdel", status, "ncid %d", ncid);
        return -1;
    }
    return 1;
}

/* ---- records ------------------------------------------------------------------------ */

/* The record variables of ncid (first dimension unlimited), in varid order,
 * and the bytes one record of each takes; the two vectors are new (caller frees). */
static int
record_vars(int ncid, int *nrecp, int **idsp, size_t **sizesp)
{
    int stat, nvars = 0, recdim = -1, v, n = 0, *ids = NULL, *dims = NULL;
    size_t *sizes = NULL;

    if ((stat = nc_inq_nvars(ncid, &nvars)))
        return stat;
    if ((stat = nc_inq_unlimdim(ncid, &recdim)))
        return stat;
    if ((ids = calloc((size_t)nvars + 1, sizeof(int))) == NULL
        || (sizes = calloc((size_t)nvars + 1, sizeof(size_t))) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    for (v = 0; recdim >= 0 && v < nvars; v++) {
        int ndims, d;
        nc_type xtype;
        size_t size;
        if ((stat = nc_inq_varndims(ncid, v, &ndims)))
            goto done;
        if (ndims <= 0)
            continue;
        free(dims);
        if ((dims = malloc((size_t)ndims * sizeof(int))) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        if ((stat = nc_inq_vardimid(ncid, v, dims)))
            goto done;
        if (dims[0] != recdim)
            continue;
        if ((stat = nc_inq_vartype(ncid, v, &xtype)))
            goto done;
        if (nctypelen(xtype) > 0)
            size = (size_t)nctypelen(xtype);
        else if ((stat = nc_inq_type(ncid, xtype, NULL, &size)))
            goto done;
        for (d = 1; d < ndims; d++) {
            size_t len;
            if ((stat = nc_inq_dimlen(ncid, dims[d], &len)))
                goto done;
            size *= len;
        }
        ids[n] = v;
        sizes[n] = size;
        n++;
    }
done:
    free(dims);
    if (stat) {
        free(ids);
        free(sizes);
        return stat;
    }
    *nrecp = n;
    *idsp = ids;
    *sizesp = sizes;
    return NC_NOERR;
}

int
nc_inq_rec(int ncid, size_t *nrecvarsp, int *recvarids, size_t *recsizes)
{
    int stat, n = 0, i;
    int *ids = NULL;
    size_t *sizes = NULL;

    if ((stat = record_vars(ncid, &n, &ids, &sizes)))
        return stat;
    if (nrecvarsp)
        *nrecvarsp = (size_t)n;
    for (i = 0; i < n; i++) {
        if (recvarids)
            recvarids[i] = ids[i];
        if (recsizes)
            recsizes[i] = sizes[i];
    }
    free(ids);
    free(sizes);
    return NC_NOERR;
}

/* One record of every record variable whose datap entry is not NULL. */
static int
rec_io(int ncid, size_t recnum, void *const *datap, int put)
{
    int stat, n = 0, i;
    int *ids = NULL;
    size_t *sizes = NULL;
    size_t *start = NULL, *edges = NULL;

    if ((stat = record_vars(ncid, &n, &ids, &sizes)))
        return stat;
    if (n > 0 && datap == NULL) {
        stat = NC_EINVAL;
        goto done;
    }
    for (i = 0; i < n; i++) {
        int ndims, d, *dims = NULL;
        if (datap[i] == NULL)
            continue;
        if ((stat = nc_inq_varndims(ncid, ids[i], &ndims)))
            goto done;
        free(start);
        free(edges);
        start = calloc((size_t)ndims, sizeof(size_t));
        edges = calloc((size_t)ndims, sizeof(size_t));
        dims = calloc((size_t)ndims, sizeof(int));
        if (start == NULL || edges == NULL || dims == NULL) {
            free(dims);
            stat = NC_ENOMEM;
            goto done;
        }
        if ((stat = nc_inq_vardimid(ncid, ids[i], dims)) == NC_NOERR) {
            for (d = 1; d < ndims && stat == NC_NOERR; d++)
                stat = nc_inq_dimlen(ncid, dims[d], &edges[d]);
        }
        free(dims);
        if (stat)
            goto done;
        start[0] = recnum;
        edges[0] = 1;
        stat = put ? nc_put_vara(ncid, ids[i], start, edges, datap[i])
                   : nc_get_vara(ncid, ids[i], start, edges, datap[i]);
        if (stat)
            goto done;
    }
done:
    free(start);
    free(edges);
    free(ids);
    free(sizes);
    return stat;
}

int
nc_get_rec(int ncid, size_t recnum, void **datap)
{
    return rec_io(ncid, recnum, (void *const *)datap, 0);
}

int
nc_put_rec(int ncid, size_t recnum, void *const *datap)
{
    return rec_io(ncid, recnum, datap, 1);
}

int
ncrecinq(int ncid, int *nrecvarsp, int *recvaridsp, long *recsizesp)
{
    int stat, n = 0, i;
    int *ids = NULL;
    size_t *sizes = NULL;

    if ((stat = record_vars(ncid, &n, &ids, &sizes))) {
        nc_advise("ncrecinq", stat, "ncid %d", ncid);
        return -1;
    }
    if (nrecvarsp)
        *nrecvarsp = n;
    for (i = 0; i < n; i++) {
        if (recvaridsp)
            recvaridsp[i] = ids[i];
        if (recsizesp)
            recsizesp[i] = (long)sizes[i];
    }
    free(ids);
    free(sizes);
    return n;
}

int
ncrecget(int ncid, long recnum, void **datap)
{
    int status = recnum < 0 ? NC_EINVALCOORDS : nc_get_rec(ncid, (size_t)recnum, datap);
    if (status != NC_NOERR) {
        nc_advise("ncrecget", status, "ncid %d", ncid);
        return -1;
    }
    return 0;
}

int
ncrecput(int ncid, long recnum, void *const *datap)
{
    int status = recnum < 0 ? NC_EINVALCOORDS : nc_put_rec(ncid, (size_t)recnum, datap);
    if (status != NC_NOERR) {
        nc_advise("ncrecput", status, "ncid %d", ncid);
        return -1;
    }
    return 0;
}
