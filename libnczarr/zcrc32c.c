/* zcrc32c.c: CRC-32C by slice-by-8 tables (no Debian library ships a
 * Castagnoli CRC under a stable API; this is ~1.5 GB/s, far below the cost
 * of the codecs it guards). */
#include <pthread.h>
#include "zcrc32c.h"

static uint32_t table[8][256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
build_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xFF];
}

uint32_t
ncz_crc32c(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    pthread_once(&once, build_tables);
    while (len >= 8) {
        /* Little-endian loads byte by byte: no alignment or endianness assumption. */
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
            table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^ table[0][p[7]];
        p += 8;
        len -= 8;
    }
    while (len--)
        c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
    return c ^ 0xFFFFFFFFu;
}
