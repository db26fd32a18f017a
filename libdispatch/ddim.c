/* ddim.c: dimension entry points. */
#include "config.h"
#include "ncapi.h"

int
nc_def_dim(int ncid, const char *name, size_t len, int *idp)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NEW_NAME(name, nm, nc->dispatch->def_dim(ncid, nm, len, idp));
}

int
nc_inq_dimid(int ncid, const char *name, int *idp)
{
    WITH_NC_SHARED(ncid);
    if (name == NULL)
        return NC_EINVAL;
    RETURN_WITH_NAME(name, nm, nc->dispatch->inq_dimid(ncid, nm, idp));
}

int
nc_inq_dim(int ncid, int dimid, char *name, size_t *lenp)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_dim(ncid, dimid, name, lenp);
}

int nc_inq_dimname(int ncid, int dimid, char *name) { return nc_inq_dim(ncid, dimid, name, NULL); }
int nc_inq_dimlen(int ncid, int dimid, size_t *lenp) { return nc_inq_dim(ncid, dimid, NULL, lenp); }

int
nc_rename_dim(int ncid, int dimid, const char *name)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NEW_NAME(name, nm, nc->dispatch->rename_dim(ncid, dimid, nm));
}
