/* ncbyteorder.h: byte order helpers shared by every layer (libfilter and the
 * plugins built from its sources, libnczarr, libsrc, libhdf5).  Header only,
 * no dependency: loads and stores of little- and big-endian integers at any
 * alignment, and byte swaps.  Whole arrays are swapped by ncx_swapcopy
 * (libdispatch/ncx.h), which fuses the swap with a copy. */
#ifndef NCBYTEORDER_H
#define NCBYTEORDER_H

#include <stdint.h>

static inline uint16_t
nc_bswap16(uint16_t v)
{
    return __builtin_bswap16(v);
}

static inline uint32_t
nc_bswap32(uint32_t v)
{
    return __builtin_bswap32(v);
}

static inline uint64_t
nc_bswap64(uint64_t v)
{
    return __builtin_bswap64(v);
}

/* An unsigned integer of n (1..8) bytes, least significant byte first. */
static inline uint64_t
nc_get_le(const void *p, int n)
{
    const unsigned char *b = p;
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

/* An unsigned integer of n (1..8) bytes, most significant byte first. */
static inline uint64_t
nc_get_be(const void *p, int n)
{
    const unsigned char *b = p;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | b[i];
    return v;
}

static inline uint32_t
nc_get_le32(const void *p)
{
    const unsigned char *b = p;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static inline uint64_t
nc_get_le64(const void *p)
{
    const unsigned char *b = p;
    return (uint64_t)nc_get_le32(b) | ((uint64_t)nc_get_le32(b + 4) << 32);
}

static inline void
nc_put_le32(void *p, uint32_t v)
{
    unsigned char *b = p;
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
}

static inline void
nc_put_le64(void *p, uint64_t v)
{
    unsigned char *b = p;
    nc_put_le32(b, (uint32_t)v);
    nc_put_le32(b + 4, (uint32_t)(v >> 32));
}

#endif /* NCBYTEORDER_H */
