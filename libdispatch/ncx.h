/* ncx.h: the type conversion module shared by every format layer.
 *
 * Converts arrays between the ten numeric netCDF types (plus NC_CHAR and
 * NC_STRING copies), element by element, in memory order, and fuses the
 * big-endian encoding of the classic (CDF) formats into the same pass.
 * The exact rules (which values raise NC_ERANGE, what is stored when a value
 * does not fit) were measured on upstream netCDF-C 4.9.0 and are written down,
 * with the few deliberate differences, in docs/conversion.md.  In short:
 *   - NC_ERANGE is returned when any value does not fit the destination type;
 *     every other element is still converted.
 *   - ncx_convert / ncx_putn store what a C cast stores on x86-64 for values
 *     that do not fit (integers wrap modulo 2^N; floats that overflow the
 *     32/64-bit conversion give the "integer indefinite" pattern), except that
 *     NC_BYTE -> NC_UINT negatives in ncx_putn store the fill value.
 *   - ncx_getn (the classic read path) leaves the destination element of an
 *     out-of-range float/double -> integer value untouched, and clips
 *     double -> float overflow to +-FLT_MAX.
 *   - float/double 2^63 -> int64 gives INT64_MAX and 2^64 -> uint64 gives
 *     UINT64_MAX, without error, on every path.
 *   - NaN counts as in range; to an integer it stores the x86 "indefinite" result.
 * CDF-1/2 quirk (handled by the caller): nc_put/get_*_uchar on an NC_BYTE
 * variable or attribute is not range checked there; the classic layer gets it
 * by passing xtype NC_UBYTE to ncx_getn/ncx_putn for such accesses.
 *
 * Thread safety: stateless, no globals.  Nothing here allocates.
 */
#ifndef NCX_H
#define NCX_H

#include <stddef.h>
#include "netcdf.h"

/* Size of one value of an atomic type in a classic (CDF) file: NC_BYTE,
 * NC_CHAR, NC_UBYTE 1; NC_SHORT, NC_USHORT 2; NC_INT, NC_UINT, NC_FLOAT 4;
 * NC_DOUBLE, NC_INT64, NC_UINT64 8; 0 for anything else. */
size_t ncx_len(nc_type xtype);

/* Size of one value of a memory type (NC_CHAR 1 ... NC_STRING sizeof(char*));
 * 0 otherwise. */
size_t ncx_memlen(nc_type memtype);

/* Memory -> memory: convert n values from src (srctype) to dst (dsttype).
 * src and dst must not overlap unless src == dst and both types have the same
 * size.  Returns NC_NOERR, NC_ERANGE if any value did not fit (every element is
 * still converted), NC_ECHAR if exactly one type is NC_CHAR, NC_EBADTYPE for
 * non-atomic types or NC_STRING with anything but NC_STRING (string to string
 * copies the pointers, not the strings). */
int ncx_convert(nc_type srctype, const void *src, nc_type dsttype, void *dst, size_t n);

/* Classic read path: decode n big-endian external values of xtype at xp into
 * native memtype values at mp.  In-place operation on one buffer is supported
 * in exactly two layouts:
 *   - mp == xp when ncx_memlen(memtype) <= ncx_len(xtype);
 *   - xp == (char*)mp + n*(memlen - xlen) when memlen > xlen (the external data
 *     sits in the tail of the caller's buffer).
 * Any other overlap is undefined.  An out-of-range float/double -> integer value
 * leaves its destination element untouched, except in place, where the element
 * gets the default fill of memtype (its old contents are gone).
 * Returns as ncx_convert (NC_CHAR/NC_CHAR is a copy). */
int ncx_getn(nc_type xtype, const void *xp, nc_type memtype, void *mp, size_t n);

/* Classic write path: encode n native memtype values at mp as big-endian xtype
 * values at xp (xp never overlaps mp).  Out-of-range values are stored as
 * ncx_convert stores them, except NC_BYTE -> NC_UINT negatives (upstream writes
 * nothing there): they get *xfill (a native value of type xtype) or, if xfill is
 * NULL, the default fill of xtype.  Returns as ncx_convert. */
int ncx_putn(nc_type memtype, const void *mp, nc_type xtype, void *xp, size_t n,
             const void *xfill);

/* Default fill value of an atomic type in native form (NC_FILL_BYTE ...
 * NC_FILL_UINT64; NC_CHAR: NC_FILL_CHAR; NC_STRING: a pointer to a static "").
 * value must have room for ncx_memlen(type) bytes.  NC_EBADTYPE otherwise. */
int ncx_default_fill(nc_type type, void *value);

/* Byte-swap n values of 2, 4 or 8 bytes in place, on any host (unaligned p is
 * fine).  For host <-> big-endian use ncx_getn/ncx_putn, which swap only on
 * little-endian hosts. */
void ncx_swap2(void *p, size_t n);
void ncx_swap4(void *p, size_t n);
void ncx_swap8(void *p, size_t n);

/* Copy n values of size 1, 2, 4 or 8 bytes from src to dst, reversing the bytes
 * of each one (size 1: plain copy).  dst == src is allowed; other overlaps are
 * not. */
void ncx_swapcopy(void *dst, const void *src, size_t size, size_t n);

#endif /* NCX_H */
