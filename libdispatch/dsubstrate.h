/* dsubstrate.h: dispatch functions shared by read-only formats that keep
 * their metadata in an in-memory substrate (libdap2, libhdf4).
 *
 * Such a format opens, builds a diskless classic (or netCDF-4) file that
 * holds its dimensions, variables and attributes but never data, and
 * serves reads itself.  The functions here answer the metadata inquiries
 * of the format's dispatch table by forwarding them to the substrate
 * through the substrate's own table, so every answer and error is the
 * substrate layer's.  What they promise:
 *   - the format's file and its substrate are one dataset: a group id the
 *     substrate returns for its root is translated back to the format's
 *     ncid;
 *   - the record dimension's length is the format's (the substrate holds
 *     no data, so its own record count is 0);
 *   - nothing is ever written to the substrate through them.
 * The format makes an NC_substrate its per-file state (nc->dispatchdata)
 * with NC_substrate_attach once the substrate is built, finds its own
 * state with NC_substrate_get, and takes it back with
 * NC_substrate_detach when it closes (closing the substrate itself).
 */
#ifndef DSUBSTRATE_H
#define DSUBSTRATE_H

#include <stddef.h>
#include "ncdispatch.h"

typedef struct NC_substrate {
    int ncid;              /* the format's file */
    int subid;             /* its substrate */
    const int *recdimid;   /* the format's record dimension (-1: none) */
    const size_t *numrecs; /* and its length */
    void *state;           /* the format's own per-file state */
} NC_substrate;

/* Makes nc's per-file state an NC_substrate for the file ncid with
 * substrate subid and the format's state; recdimid and numrecs point into
 * that state (read at each inquiry, so they may change after this). */
int NC_substrate_attach(NC *nc, int ncid, int subid, void *state, const int *recdimid,
                        const size_t *numrecs);
/* The format's state of an open file (statep) and, when subp is not NULL,
 * its substrate's record.  NC_EBADID when the file has no such state. */
int NC_substrate_get(int ncid, void **statep, NC **subp);
/* Releases nc's NC_substrate and returns the format's state (NULL if
 * none); nc->dispatchdata becomes NULL.  The substrate is left open. */
void *NC_substrate_detach(NC *nc);

/* Dispatch-table functions forwarding to the substrate. */
int NC_SUB_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp);
int NC_SUB_inq_type(int ncid, nc_type t, char *name, size_t *sizep);
int NC_SUB_inq_dimid(int ncid, const char *name, int *idp);
int NC_SUB_inq_dim(int ncid, int dimid, char *name, size_t *lenp);
int NC_SUB_inq_unlimdim(int ncid, int *idp);
int NC_SUB_inq_att(int ncid, int varid, const char *name, nc_type *tp, size_t *lenp);
int NC_SUB_inq_attid(int ncid, int varid, const char *name, int *idp);
int NC_SUB_inq_attname(int ncid, int varid, int attnum, char *name);
int NC_SUB_get_att(int ncid, int varid, const char *name, void *value, nc_type memtype);
int NC_SUB_inq_varid(int ncid, const char *name, int *idp);
int NC_SUB_inq_var_all(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
                       int *dimidsp, int *nattsp, int *shufflep, int *deflatep,
                       int *deflate_levelp, int *fletcher32p, int *contiguousp,
                       size_t *chunksizesp, int *no_fill, void *fill_valuep, int *endiannessp,
                       unsigned int *idp, size_t *nparamsp, unsigned int *params);
int NC_SUB_show_metadata(int ncid);
int NC_SUB_inq_unlimdims(int ncid, int *np, int *idsp);
int NC_SUB_inq_ncid(int ncid, const char *name, int *grpidp);
int NC_SUB_inq_grps(int ncid, int *np, int *idsp);
int NC_SUB_inq_grpname(int ncid, char *name);
int NC_SUB_inq_grpname_full(int ncid, size_t *lenp, char *full);
int NC_SUB_inq_grp_parent(int ncid, int *parentp);
int NC_SUB_inq_grp_full_ncid(int ncid, const char *full, int *grpidp);
int NC_SUB_inq_varids(int ncid, int *np, int *idsp);
int NC_SUB_inq_dimids(int ncid, int *np, int *idsp, int include_parents);
int NC_SUB_inq_typeids(int ncid, int *np, int *idsp);
int NC_SUB_inq_type_equal(int ncid1, nc_type t1, int ncid2, nc_type t2, int *equalp);
int NC_SUB_inq_typeid(int ncid, const char *name, nc_type *tp);

/* The slots a substrate format forwards, for its dispatch table's
 * designated initializers (inq_var_all is left to the format: the
 * netCDF-4 properties may be its own). */
#define NC_SUBSTRATE_SLOTS \
    .inq = NC_SUB_inq, \
    .inq_type = NC_SUB_inq_type, \
    .inq_dimid = NC_SUB_inq_dimid, \
    .inq_dim = NC_SUB_inq_dim, \
    .inq_unlimdim = NC_SUB_inq_unlimdim, \
    .inq_att = NC_SUB_inq_att, \
    .inq_attid = NC_SUB_inq_attid, \
    .inq_attname = NC_SUB_inq_attname, \
    .get_att = NC_SUB_get_att, \
    .inq_varid = NC_SUB_inq_varid, \
    .show_metadata = NC_SUB_show_metadata, \
    .inq_unlimdims = NC_SUB_inq_unlimdims, \
    .inq_ncid = NC_SUB_inq_ncid, \
    .inq_grps = NC_SUB_inq_grps, \
    .inq_grpname = NC_SUB_inq_grpname, \
    .inq_grpname_full = NC_SUB_inq_grpname_full, \
    .inq_grp_parent = NC_SUB_inq_grp_parent, \
    .inq_grp_full_ncid = NC_SUB_inq_grp_full_ncid, \
    .inq_varids = NC_SUB_inq_varids, \
    .inq_dimids = NC_SUB_inq_dimids, \
    .inq_typeids = NC_SUB_inq_typeids, \
    .inq_type_equal = NC_SUB_inq_type_equal, \
    .inq_typeid = NC_SUB_inq_typeid

/* The slots of the calls a read-only format refuses (NC_EPERM; strided
 * and mapped writes through put_vara). */
#define NC_READONLY_SLOTS \
    .create = NC_RO_create, \
    .redef = NC_RO_redef, \
    ._enddef = NC_RO__enddef, \
    .sync = NC_RO_sync, \
    .set_fill = NC_RO_set_fill, \
    .def_dim = NC_RO_def_dim, \
    .rename_dim = NC_RO_rename_dim, \
    .rename_att = NC_RO_rename_att, \
    .del_att = NC_RO_del_att, \
    .put_att = NC_RO_put_att, \
    .def_var = NC_RO_def_var, \
    .rename_var = NC_RO_rename_var, \
    .put_vara = NC_RO_put_vara, \
    .put_vars = NCDEFAULT_put_vars, \
    .put_varm = NCDEFAULT_put_varm, \
    .def_var_fill = NC_RO_def_var_fill

#endif /* DSUBSTRATE_H */
