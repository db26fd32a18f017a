/* dgroup.c: group entry points (enhanced model).  Classic formats answer
 * through their tables (upstream gives a classic file one root group "/"). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "ncapi.h"


int nc_inq_ncid(int ncid, const char *name, int *grp_ncid)
{ WITH_NC_SHARED(ncid); return nc->dispatch->inq_ncid(ncid, name, grp_ncid); }
int nc_inq_grps(int ncid, int *numgrps, int *ncids)
{ WITH_NC_SHARED(ncid); return nc->dispatch->inq_grps(ncid, numgrps, ncids); }
int nc_inq_grpname(int ncid, char *name)
{ WITH_NC_SHARED(ncid); return nc->dispatch->inq_grpname(ncid, name); }
int nc_inq_grpname_full(int ncid, size_t *lenp, char *full_name)
{ WITH_NC_SHARED(ncid); return nc->dispatch->inq_grpname_full(ncid, lenp, full_name); }
int nc_inq_grpname_len(int ncid, size_t *lenp)
{ return nc_inq_grpname_full(ncid, lenp, NULL); }
int nc_inq_grp_parent(int ncid, int *parent_ncid)
{ WITH_NC_SHARED(ncid); return nc->dispatch->inq_grp_parent(ncid, parent_ncid); }
int nc_inq_grp_ncid(int ncid, const char *grp_name, int *grp_ncid)
{ return nc_inq_ncid(ncid, grp_name, grp_ncid); }
int nc_inq_grp_full_ncid(int ncid, const char *full_name, int *grp_ncid)
{ WITH_NC_SHARED(ncid); return nc->dispatch->inq_grp_full_ncid(ncid, full_name, grp_ncid); }
int nc_inq_varids(int ncid, int *nvars, int *varids)
{ WITH_NC_SHARED(ncid); return nc->dispatch->inq_varids(ncid, nvars, varids); }
int nc_inq_dimids(int ncid, int *ndims, int *dimids, int include_parents)
{ WITH_NC_SHARED(ncid); return nc->dispatch->inq_dimids(ncid, ndims, dimids, include_parents); }

int
nc_def_grp(int parent_ncid, const char *name, int *new_ncid)
{
    WITH_NC_EXCL(parent_ncid);
    RETURN_WITH_NAME(name, nm, nc->dispatch->def_grp(parent_ncid, nm, new_ncid));
}

int
nc_rename_grp(int grpid, const char *name)
{
    WITH_NC_EXCL(grpid);
    RETURN_WITH_NAME(name, nm, nc->dispatch->rename_grp(grpid, nm));
}
