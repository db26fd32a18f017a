/* zcrc32c.h: CRC-32C (Castagnoli), as Zarr v3's "crc32c" codec and the
 * sharding index use it: reflected polynomial 0x82F63B78, initial value and
 * final xor 0xFFFFFFFF; stored little-endian after the data. */
#ifndef ZCRC32C_H
#define ZCRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of len bytes (a fresh computation; crc32c("123456789") = 0xE3069283). */
uint32_t ncz_crc32c(const void *data, size_t len);

#endif
