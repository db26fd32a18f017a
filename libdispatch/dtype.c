/* dtype.c: type inquiry and the user-defined type API (compound, vlen,
 * enum, opaque).  Atomic types are answered here for any ncid, as upstream
 * does; everything else goes to the file's format.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "ncapi.h"

static const char *const atomic_names[NC_MAX_ATOMIC_TYPE + 1] = {
    "", "byte", "char", "short", "int", "float", "double",
    "ubyte", "ushort", "uint", "int64", "uint64", "string"
};
static const size_t atomic_sizes[NC_MAX_ATOMIC_TYPE + 1] = {
    0, 1, 1, sizeof(short), sizeof(int), sizeof(float), sizeof(double),
    1, sizeof(unsigned short), sizeof(unsigned int), sizeof(long long),
    sizeof(unsigned long long), sizeof(char *)
};

size_t
NC_atomictypelen(nc_type xtype)
{
    return (xtype > NC_NAT && xtype <= NC_MAX_ATOMIC_TYPE) ? atomic_sizes[xtype] : 0;
}

/* Look the file up and bind nc, or return its error. */

int
nc_inq_type(int ncid, nc_type xtype, char *name, size_t *size)
{
    NC_HELD nc = NULL;
    if (xtype <= NC_NAT)
        return NC_EBADTYPE;
    if (xtype <= NC_MAX_ATOMIC_TYPE) {
        /* Valid for any ncid, even a bad one: old clients rely on it. */
        if (name) strcpy(name, atomic_names[xtype]);
        if (size) *size = atomic_sizes[xtype];
        return NC_NOERR;
    }
    if (NC_hold(ncid, &nc))
        return NC_EBADTYPE;
    NC_LOCK_HANDLE(nc, 0);
    return nc->dispatch->inq_type(ncid, xtype, name, size);
}

/* The format answers for atomic names too: which of them a file knows
 * depends on its format (a classic file knows byte..double, CDF-5 also the
 * unsigned and 64-bit types; the rest is NC_ENOTNC4, as upstream). */
int
nc_inq_typeid(int ncid, const char *name, nc_type *typeidp)
{
    WITH_NC_SHARED(ncid);
    if (name == NULL)
        return NC_EINVAL;
    return nc->dispatch->inq_typeid(ncid, name, typeidp);
}

int
nc_inq_typeids(int ncid, int *ntypes, int *typeids)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_typeids(ncid, ntypes, typeids);
}

/* As upstream: the first ncid must name an open file (NC_EBADID), then
 * NC_EINVAL for a type id <= 0; the rest is the format's answer. */
int
nc_inq_type_equal(int ncid1, nc_type typeid1, int ncid2, nc_type typeid2, int *equal)
{
    NC_HELD nc1 = NULL;
    int stat;
    if ((stat = NC_hold(ncid1, &nc1)))
        return stat;
    NC_LOCK_HANDLE(nc1, 0);
    if (typeid1 <= NC_NAT || typeid2 <= NC_NAT)
        return NC_EINVAL;
    return nc1->dispatch->inq_type_equal(ncid1, typeid1, ncid2, typeid2, equal);
}

int
nc_inq_user_type(int ncid, nc_type xtype, char *name, size_t *size,
                 nc_type *base_nc_typep, size_t *nfieldsp, int *classp)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_user_type(ncid, xtype, name, size, base_nc_typep, nfieldsp, classp);
}

/* ---- compound ------------------------------------------------------------------- */

int
nc_def_compound(int ncid, size_t size, const char *name, nc_type *typeidp)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NAME(name, nm, nc->dispatch->def_compound(ncid, size, nm, typeidp));
}

int
nc_insert_compound(int ncid, nc_type xtype, const char *name, size_t offset, nc_type field_typeid)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NAME(name, nm, nc->dispatch->insert_compound(ncid, xtype, nm, offset, field_typeid));
}

int
nc_insert_array_compound(int ncid, nc_type xtype, const char *name, size_t offset,
                         nc_type field_typeid, int ndims, const int *dim_sizes)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NAME(name, nm, nc->dispatch->insert_array_compound(ncid, xtype, nm, offset,
                                                             field_typeid, ndims, dim_sizes));
}

/* Check that xtype is a compound type of this file. */
static int
check_compound(int ncid, nc_type xtype, char *name, size_t *sizep, size_t *nfieldsp)
{
    int klass = 0;
    int stat = nc_inq_user_type(ncid, xtype, name, sizep, NULL, nfieldsp, &klass);
    if (stat)
        return stat;
    return klass == NC_COMPOUND ? NC_NOERR : NC_EBADTYPE;
}

int nc_inq_compound(int ncid, nc_type xtype, char *name, size_t *sizep, size_t *nfieldsp)
{ return check_compound(ncid, xtype, name, sizep, nfieldsp); }
int nc_inq_compound_name(int ncid, nc_type xtype, char *name)
{ return check_compound(ncid, xtype, name, NULL, NULL); }
int nc_inq_compound_size(int ncid, nc_type xtype, size_t *sizep)
{ return check_compound(ncid, xtype, NULL, sizep, NULL); }
int nc_inq_compound_nfields(int ncid, nc_type xtype, size_t *nfieldsp)
{ return check_compound(ncid, xtype, NULL, NULL, nfieldsp); }

int
nc_inq_compound_field(int ncid, nc_type xtype, int fieldid, char *name, size_t *offsetp,
                      nc_type *field_typeidp, int *ndimsp, int *dim_sizesp)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_compound_field(ncid, xtype, fieldid, name, offsetp,
                                            field_typeidp, ndimsp, dim_sizesp);
}

int nc_inq_compound_fieldname(int ncid, nc_type xtype, int fieldid, char *name)
{ return nc_inq_compound_field(ncid, xtype, fieldid, name, NULL, NULL, NULL, NULL); }
int nc_inq_compound_fieldoffset(int ncid, nc_type xtype, int fieldid, size_t *offsetp)
{ return nc_inq_compound_field(ncid, xtype, fieldid, NULL, offsetp, NULL, NULL, NULL); }
int nc_inq_compound_fieldtype(int ncid, nc_type xtype, int fieldid, nc_type *field_typeidp)
{ return nc_inq_compound_field(ncid, xtype, fieldid, NULL, NULL, field_typeidp, NULL, NULL); }
int nc_inq_compound_fieldndims(int ncid, nc_type xtype, int fieldid, int *ndimsp)
{ return nc_inq_compound_field(ncid, xtype, fieldid, NULL, NULL, NULL, ndimsp, NULL); }
int nc_inq_compound_fielddim_sizes(int ncid, nc_type xtype, int fieldid, int *dim_sizes)
{ return nc_inq_compound_field(ncid, xtype, fieldid, NULL, NULL, NULL, NULL, dim_sizes); }

int
nc_inq_compound_fieldindex(int ncid, nc_type xtype, const char *name, int *fieldidp)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_compound_fieldindex(ncid, xtype, name, fieldidp);
}

/* ---- vlen -------------------------------------------------------------------------- */

int
nc_def_vlen(int ncid, const char *name, nc_type base_typeid, nc_type *xtypep)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NAME(name, nm, nc->dispatch->def_vlen(ncid, nm, base_typeid, xtypep));
}

int
nc_inq_vlen(int ncid, nc_type xtype, char *name, size_t *datum_sizep, nc_type *base_nc_typep)
{
    int klass = 0;
    int stat = nc_inq_user_type(ncid, xtype, name, datum_sizep, base_nc_typep, NULL, &klass);
    if (stat)
        return stat;
    return klass == NC_VLEN ? NC_NOERR : NC_EBADTYPE;
}

int
nc_put_vlen_element(int ncid, int typeid1, void *vlen_element, size_t len, const void *data)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->put_vlen_element(ncid, typeid1, vlen_element, len, data);
}

int
nc_get_vlen_element(int ncid, int typeid1, const void *vlen_element, size_t *len, void *data)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->get_vlen_element(ncid, typeid1, vlen_element, len, data);
}

/* ---- enum ---------------------------------------------------------------------------- */

int
nc_def_enum(int ncid, nc_type base_typeid, const char *name, nc_type *typeidp)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NAME(name, nm, nc->dispatch->def_enum(ncid, base_typeid, nm, typeidp));
}

int
nc_insert_enum(int ncid, nc_type xtype, const char *name, const void *value)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NAME(name, nm, nc->dispatch->insert_enum(ncid, xtype, nm, value));
}

int
nc_inq_enum(int ncid, nc_type xtype, char *name, nc_type *base_nc_typep,
            size_t *base_sizep, size_t *num_membersp)
{
    int klass = 0;
    nc_type base = NC_NAT;
    int stat = nc_inq_user_type(ncid, xtype, name, NULL, &base, num_membersp, &klass);
    if (stat)
        return stat;
    if (klass != NC_ENUM)
        return NC_EBADTYPE;
    if (base_nc_typep) *base_nc_typep = base;
    if (base_sizep) *base_sizep = NC_atomictypelen(base);
    return NC_NOERR;
}

int
nc_inq_enum_member(int ncid, nc_type xtype, int idx, char *name, void *value)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_enum_member(ncid, xtype, idx, name, value);
}

int
nc_inq_enum_ident(int ncid, nc_type xtype, long long value, char *identifier)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_enum_ident(ncid, xtype, value, identifier);
}

/* ---- opaque ---------------------------------------------------------------------------- */

int
nc_def_opaque(int ncid, size_t size, const char *name, nc_type *xtypep)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_NAME(name, nm, nc->dispatch->def_opaque(ncid, size, nm, xtypep));
}

int
nc_inq_opaque(int ncid, nc_type xtype, char *name, size_t *sizep)
{
    int klass = 0;
    int stat = nc_inq_user_type(ncid, xtype, name, sizep, NULL, NULL, &klass);
    if (stat)
        return stat;
    return klass == NC_OPAQUE ? NC_NOERR : NC_EBADTYPE;
}
