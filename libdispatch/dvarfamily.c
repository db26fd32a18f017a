/* dvarfamily.c: the typed data-access families nc_{get,put}_{var,var1,vara,
 * vars,varm}_<type> and the untyped ones, each a one-line call into dvario.c
 * with its memory type. */
#include "config.h"
#include "ncvario.h"

/* long follows its size: NC_INT on ILP32 hosts, NC_INT64 on LP64. */
#define NC_LONG_MEMTYPE (sizeof(long) == sizeof(int) ? NC_INT : NC_INT64)

#define VAR_FAMILY(sfx, ctype, mt)                                                          \
    int nc_get_var_##sfx(int ncid, int varid, ctype *ip)                                    \
    { return NC_get_var(ncid, varid, ip, mt); }                                             \
    int nc_put_var_##sfx(int ncid, int varid, const ctype *op)                              \
    { return NC_put_var(ncid, varid, op, mt); }                                             \
    int nc_get_var1_##sfx(int ncid, int varid, const size_t *indexp, ctype *ip)             \
    { return NC_get_var1(ncid, varid, indexp, ip, mt); }                                    \
    int nc_put_var1_##sfx(int ncid, int varid, const size_t *indexp, const ctype *op)       \
    { return NC_put_var1(ncid, varid, indexp, op, mt); }                                    \
    int nc_get_vara_##sfx(int ncid, int varid, const size_t *startp,                        \
                          const size_t *countp, ctype *ip)                                  \
    { return NC_get_vara(ncid, varid, startp, countp, ip, mt); }                            \
    int nc_put_vara_##sfx(int ncid, int varid, const size_t *startp,                        \
                          const size_t *countp, const ctype *op)                            \
    { return NC_put_vara(ncid, varid, startp, countp, op, mt); }                            \
    int nc_get_vars_##sfx(int ncid, int varid, const size_t *startp, const size_t *countp,  \
                          const ptrdiff_t *stridep, ctype *ip)                              \
    { return NC_get_vars(ncid, varid, startp, countp, stridep, ip, mt); }                   \
    int nc_put_vars_##sfx(int ncid, int varid, const size_t *startp, const size_t *countp,  \
                          const ptrdiff_t *stridep, const ctype *op)                        \
    { return NC_put_vars(ncid, varid, startp, countp, stridep, op, mt); }                   \
    int nc_get_varm_##sfx(int ncid, int varid, const size_t *startp, const size_t *countp,  \
                          const ptrdiff_t *stridep, const ptrdiff_t *imapp, ctype *ip)      \
    { return NC_get_varm(ncid, varid, startp, countp, stridep, imapp, ip, mt); }            \
    int nc_put_varm_##sfx(int ncid, int varid, const size_t *startp, const size_t *countp,  \
                          const ptrdiff_t *stridep, const ptrdiff_t *imapp, const ctype *op)\
    { return NC_put_varm(ncid, varid, startp, countp, stridep, imapp, op, mt); }

VAR_FAMILY(text, char, NC_CHAR)
VAR_FAMILY(uchar, unsigned char, NC_UBYTE)
VAR_FAMILY(schar, signed char, NC_BYTE)
VAR_FAMILY(short, short, NC_SHORT)
VAR_FAMILY(int, int, NC_INT)
VAR_FAMILY(long, long, NC_LONG_MEMTYPE)
VAR_FAMILY(float, float, NC_FLOAT)
VAR_FAMILY(double, double, NC_DOUBLE)
VAR_FAMILY(ubyte, unsigned char, NC_UBYTE)
VAR_FAMILY(ushort, unsigned short, NC_USHORT)
VAR_FAMILY(uint, unsigned int, NC_UINT)
VAR_FAMILY(longlong, long long, NC_INT64)
VAR_FAMILY(ulonglong, unsigned long long, NC_UINT64)
VAR_FAMILY(string, char *, NC_STRING)

/* Untyped: the memory type is the variable's own. */
int nc_get_var(int ncid, int varid, void *ip)
{ return NC_get_var(ncid, varid, ip, NC_NAT); }
int nc_put_var(int ncid, int varid, const void *op)
{ return NC_put_var(ncid, varid, op, NC_NAT); }
int nc_get_var1(int ncid, int varid, const size_t *indexp, void *ip)
{ return NC_get_var1(ncid, varid, indexp, ip, NC_NAT); }
int nc_put_var1(int ncid, int varid, const size_t *indexp, const void *op)
{ return NC_put_var1(ncid, varid, indexp, op, NC_NAT); }
int nc_get_vara(int ncid, int varid, const size_t *startp, const size_t *countp, void *ip)
{ return NC_get_vara(ncid, varid, startp, countp, ip, NC_NAT); }
int nc_put_vara(int ncid, int varid, const size_t *startp, const size_t *countp, const void *op)
{ return NC_put_vara(ncid, varid, startp, countp, op, NC_NAT); }
int nc_get_vars(int ncid, int varid, const size_t *startp, const size_t *countp,
                const ptrdiff_t *stridep, void *ip)
{ return NC_get_vars(ncid, varid, startp, countp, stridep, ip, NC_NAT); }
int nc_put_vars(int ncid, int varid, const size_t *startp, const size_t *countp,
                const ptrdiff_t *stridep, const void *op)
{ return NC_put_vars(ncid, varid, startp, countp, stridep, op, NC_NAT); }
int nc_get_varm(int ncid, int varid, const size_t *startp, const size_t *countp,
                const ptrdiff_t *stridep, const ptrdiff_t *imapp, void *ip)
{ return NC_get_varm(ncid, varid, startp, countp, stridep, imapp, ip, NC_NAT); }
int nc_put_varm(int ncid, int varid, const size_t *startp, const size_t *countp,
                const ptrdiff_t *stridep, const ptrdiff_t *imapp, const void *op)
{ return NC_put_varm(ncid, varid, startp, countp, stridep, imapp, op, NC_NAT); }
