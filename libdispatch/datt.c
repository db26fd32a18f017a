/* datt.c: attribute entry points: inquiry, rename/delete/copy, and the
 * typed put/get families, each a thin call with its memory type. */
#include "config.h"
#include <string.h>
#include "ncapi.h"

/* Attribute names are checked by the format, after the variable id, as
 * upstream does (a bad varid with a NULL name is NC_ENOTVAR, not
 * NC_EBADNAME): the format gets the NFC form of a valid UTF-8 name, and
 * anything else (NULL, invalid UTF-8) as given. */
#define RETURN_WITH_ATT_NAME(name, nm, expr) do {                        \
        char *norm_ = NULL;                                              \
        int st_;                                                         \
        if ((name) == NULL || NC_normalize_name((name), &norm_) != NC_NOERR) \
            norm_ = NULL;                                                \
        {   const char *nm = norm_ ? norm_ : (name);                     \
            st_ = (expr); }                                              \
        free(norm_);                                                     \
        return st_;                                                      \
    } while (0)

/* ---- inquiry ------------------------------------------------------------------ */

int
nc_inq_att(int ncid, int varid, const char *name, nc_type *xtypep, size_t *lenp)
{
    WITH_NC_SHARED(ncid);
    RETURN_WITH_ATT_NAME(name, nm, nc->dispatch->inq_att(ncid, varid, nm, xtypep, lenp));
}

int nc_inq_atttype(int ncid, int varid, const char *name, nc_type *xtypep)
{ return nc_inq_att(ncid, varid, name, xtypep, NULL); }
int nc_inq_attlen(int ncid, int varid, const char *name, size_t *lenp)
{ return nc_inq_att(ncid, varid, name, NULL, lenp); }

int
nc_inq_attid(int ncid, int varid, const char *name, int *idp)
{
    WITH_NC_SHARED(ncid);
    RETURN_WITH_ATT_NAME(name, nm, nc->dispatch->inq_attid(ncid, varid, nm, idp));
}

int
nc_inq_attname(int ncid, int varid, int attnum, char *name)
{
    WITH_NC_SHARED(ncid);
    return nc->dispatch->inq_attname(ncid, varid, attnum, name);
}

/* ---- rename, delete, copy -------------------------------------------------------- */

int
nc_rename_att(int ncid, int varid, const char *name, const char *newname)
{
    char *oldnorm = NULL, *newnorm = NULL;
    int stat;
    WITH_NC_EXCL(ncid);
    if (name != NULL && NC_normalize_name(name, &oldnorm) != NC_NOERR)
        oldnorm = NULL;
    if (newname != NULL && NC_normalize_name(newname, &newnorm) != NC_NOERR)
        newnorm = NULL;
    stat = nc->dispatch->rename_att(ncid, varid, oldnorm ? oldnorm : name,
                                    newnorm ? newnorm : newname);
    free(oldnorm);
    free(newnorm);
    return stat;
}

int
nc_del_att(int ncid, int varid, const char *name)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_ATT_NAME(name, nm, nc->dispatch->del_att(ncid, varid, nm));
}

/* ---- untyped ------------------------------------------------------------------------ */

static int
put_att(int ncid, int varid, const char *name, nc_type xtype, size_t len,
        const void *op, nc_type memtype)
{
    WITH_NC_EXCL(ncid);
    RETURN_WITH_ATT_NAME(name, nm, nc->dispatch->put_att(ncid, varid, nm, xtype, len, op, memtype));
}

static int
get_att(int ncid, int varid, const char *name, void *ip, nc_type memtype)
{
    WITH_NC_SHARED(ncid);
    RETURN_WITH_ATT_NAME(name, nm, nc->dispatch->get_att(ncid, varid, nm, ip, memtype));
}

int
nc_put_att(int ncid, int varid, const char *name, nc_type xtype, size_t len, const void *op)
{
    return put_att(ncid, varid, name, xtype, len, op, xtype);
}

int
nc_get_att(int ncid, int varid, const char *name, void *ip)
{
    nc_type xtype;
    int stat = nc_inq_atttype(ncid, varid, name, &xtype);
    return stat ? stat : get_att(ncid, varid, name, ip, xtype);
}

/* ---- typed families ----------------------------------------------------------------------- */

int nc_put_att_text(int ncid, int varid, const char *name, size_t len, const char *op)
{ return put_att(ncid, varid, name, NC_CHAR, len, op, NC_CHAR); }
int nc_get_att_text(int ncid, int varid, const char *name, char *ip)
{ return get_att(ncid, varid, name, ip, NC_CHAR); }
int nc_put_att_string(int ncid, int varid, const char *name, size_t len, const char **op)
{ return put_att(ncid, varid, name, NC_STRING, len, op, NC_STRING); }
int nc_get_att_string(int ncid, int varid, const char *name, char **ip)
{ return get_att(ncid, varid, name, ip, NC_STRING); }

/* long is 64 bits on LP64 hosts: its memory type follows its size. */
#define NC_LONG_MEMTYPE (sizeof(long) == sizeof(int) ? NC_INT : NC_INT64)

#define ATT_FAMILY(suffix, ctype, memtype)                                                 \
    int nc_put_att_##suffix(int ncid, int varid, const char *name, nc_type xtype,         \
                            size_t len, const ctype *op)                                   \
    { return put_att(ncid, varid, name, xtype, len, op, memtype); }                        \
    int nc_get_att_##suffix(int ncid, int varid, const char *name, ctype *ip)             \
    { return get_att(ncid, varid, name, ip, memtype); }

ATT_FAMILY(uchar, unsigned char, NC_UBYTE)
ATT_FAMILY(schar, signed char, NC_BYTE)
ATT_FAMILY(short, short, NC_SHORT)
ATT_FAMILY(int, int, NC_INT)
ATT_FAMILY(long, long, NC_LONG_MEMTYPE)
ATT_FAMILY(float, float, NC_FLOAT)
ATT_FAMILY(double, double, NC_DOUBLE)
ATT_FAMILY(ubyte, unsigned char, NC_UBYTE)
ATT_FAMILY(ushort, unsigned short, NC_USHORT)
ATT_FAMILY(uint, unsigned int, NC_UINT)
ATT_FAMILY(longlong, long long, NC_INT64)
ATT_FAMILY(ulonglong, unsigned long long, NC_UINT64)
