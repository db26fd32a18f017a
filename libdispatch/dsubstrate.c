/* dsubstrate.c: metadata inquiries of read-only formats forwarded to their
 * in-memory substrate (dsubstrate.h says what they promise). */
#include "config.h"
#include <stdlib.h>
#include "dsubstrate.h"

int
NC_substrate_attach(NC *nc, int ncid, int subid, void *state, const int *recdimid,
                    const size_t *numrecs)
{
    NC_substrate *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NC_ENOMEM;
    s->ncid = ncid;
    s->subid = subid;
    s->recdimid = recdimid;
    s->numrecs = numrecs;
    s->state = state;
    nc->dispatchdata = s;
    return NC_NOERR;
}

void *
NC_substrate_detach(NC *nc)
{
    NC_substrate *s = nc->dispatchdata;
    void *state = s ? s->state : NULL;
    free(s);
    nc->dispatchdata = NULL;
    return state;
}

/* The NC_substrate of ncid and, when subp is not NULL, its substrate. */
static int
sub_get(int ncid, NC_substrate **sp, NC **subp)
{
    NC *nc;
    int stat;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (nc->dispatchdata == NULL)
        return NC_EBADID;
    *sp = nc->dispatchdata;
    if (subp && (stat = NC_check_id((*sp)->subid, subp)))
        return stat;
    return NC_NOERR;
}

int
NC_substrate_get(int ncid, void **statep, NC **subp)
{
    NC_substrate *s;
    int stat = sub_get(ncid, &s, subp);
    if (stat == NC_NOERR)
        *statep = s->state;
    return stat;
}

/* Declares s (the file's NC_substrate), sub (its substrate) and stat, and
 * returns the error when ncid has none. */
#define SUB(ncid)                         \
    NC_substrate *s;                      \
    NC *sub;                              \
    int stat = sub_get((ncid), &s, &sub); \
    if (stat)                             \
        return stat

/* A group id from the substrate, as the format's. */
static void
ourid(const NC_substrate *s, int *idp)
{
    if (idp && *idp == s->subid)
        *idp = s->ncid;
}

int
NC_SUB_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp)
{
    SUB(ncid);
    return sub->dispatch->inq(s->subid, ndimsp, nvarsp, nattsp, unlimdimidp);
}

int
NC_SUB_inq_type(int ncid, nc_type t, char *name, size_t *sizep)
{
    SUB(ncid);
    return sub->dispatch->inq_type(s->subid, t, name, sizep);
}

int
NC_SUB_inq_dimid(int ncid, const char *name, int *idp)
{
    SUB(ncid);
    return sub->dispatch->inq_dimid(s->subid, name, idp);
}

int
NC_SUB_inq_dim(int ncid, int dimid, char *name, size_t *lenp)
{
    SUB(ncid);
    if ((stat = sub->dispatch->inq_dim(s->subid, dimid, name, lenp)))
        return stat;
    /* the substrate holds no records: the length is the format's */
    if (lenp && s->recdimid && s->numrecs && dimid == *s->recdimid)
        *lenp = *s->numrecs;
    return NC_NOERR;
}

int
NC_SUB_inq_unlimdim(int ncid, int *idp)
{
    SUB(ncid);
    return sub->dispatch->inq_unlimdim(s->subid, idp);
}

int
NC_SUB_inq_att(int ncid, int varid, const char *name, nc_type *tp, size_t *lenp)
{
    SUB(ncid);
    return sub->dispatch->inq_att(s->subid, varid, name, tp, lenp);
}

int
NC_SUB_inq_attid(int ncid, int varid, const char *name, int *idp)
{
    SUB(ncid);
    return sub->dispatch->inq_attid(s->subid, varid, name, idp);
}

int
NC_SUB_inq_attname(int ncid, int varid, int attnum, char *name)
{
    SUB(ncid);
    return sub->dispatch->inq_attname(s->subid, varid, attnum, name);
}

int
NC_SUB_get_att(int ncid, int varid, const char *name, void *value, nc_type memtype)
{
    SUB(ncid);
    return sub->dispatch->get_att(s->subid, varid, name, value, memtype);
}

int
NC_SUB_inq_varid(int ncid, const char *name, int *idp)
{
    SUB(ncid);
    return sub->dispatch->inq_varid(s->subid, name, idp);
}

int
NC_SUB_inq_var_all(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp,
                   int *nattsp, int *shufflep, int *deflatep, int *deflate_levelp,
                   int *fletcher32p, int *contiguousp, size_t *chunksizesp, int *no_fill,
                   void *fill_valuep, int *endiannessp, unsigned int *idp, size_t *nparamsp,
                   unsigned int *params)
{
    SUB(ncid);
    return sub->dispatch->inq_var_all(s->subid, varid, name, xtypep, ndimsp, dimidsp, nattsp,
                                      shufflep, deflatep, deflate_levelp, fletcher32p,
                                      contiguousp, chunksizesp, no_fill, fill_valuep,
                                      endiannessp, idp, nparamsp, params);
}

int
NC_SUB_show_metadata(int ncid)
{
    SUB(ncid);
    return sub->dispatch->show_metadata(s->subid);
}

int
NC_SUB_inq_unlimdims(int ncid, int *np, int *idsp)
{
    SUB(ncid);
    return sub->dispatch->inq_unlimdims(s->subid, np, idsp);
}

int
NC_SUB_inq_ncid(int ncid, const char *name, int *grpidp)
{
    SUB(ncid);
    if ((stat = sub->dispatch->inq_ncid(s->subid, name, grpidp)))
        return stat;
    ourid(s, grpidp);
    return NC_NOERR;
}

int
NC_SUB_inq_grps(int ncid, int *np, int *idsp)
{
    SUB(ncid);
    return sub->dispatch->inq_grps(s->subid, np, idsp);
}

int
NC_SUB_inq_grpname(int ncid, char *name)
{
    SUB(ncid);
    return sub->dispatch->inq_grpname(s->subid, name);
}

int
NC_SUB_inq_grpname_full(int ncid, size_t *lenp, char *full)
{
    SUB(ncid);
    return sub->dispatch->inq_grpname_full(s->subid, lenp, full);
}

int
NC_SUB_inq_grp_parent(int ncid, int *parentp)
{
    SUB(ncid);
    if ((stat = sub->dispatch->inq_grp_parent(s->subid, parentp)))
        return stat;
    ourid(s, parentp);
    return NC_NOERR;
}

int
NC_SUB_inq_grp_full_ncid(int ncid, const char *full, int *grpidp)
{
    SUB(ncid);
    if ((stat = sub->dispatch->inq_grp_full_ncid(s->subid, full, grpidp)))
        return stat;
    ourid(s, grpidp);
    return NC_NOERR;
}

int
NC_SUB_inq_varids(int ncid, int *np, int *idsp)
{
    SUB(ncid);
    return sub->dispatch->inq_varids(s->subid, np, idsp);
}

int
NC_SUB_inq_dimids(int ncid, int *np, int *idsp, int include_parents)
{
    SUB(ncid);
    return sub->dispatch->inq_dimids(s->subid, np, idsp, include_parents);
}

int
NC_SUB_inq_typeids(int ncid, int *np, int *idsp)
{
    SUB(ncid);
    return sub->dispatch->inq_typeids(s->subid, np, idsp);
}

int
NC_SUB_inq_type_equal(int ncid1, nc_type t1, int ncid2, nc_type t2, int *equalp)
{
    /* a substrate format has one dataset: both types are its own */
    (void)ncid2;
    SUB(ncid1);
    return sub->dispatch->inq_type_equal(s->subid, t1, s->subid, t2, equalp);
}

int
NC_SUB_inq_typeid(int ncid, const char *name, nc_type *tp)
{
    SUB(ncid);
    return sub->dispatch->inq_typeid(s->subid, name, tp);
}
