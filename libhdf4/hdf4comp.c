/* hdf4comp.c: the decoders of HDF4's compressed special elements, from the
 * HDF4 file format: run-length (RLE), N-bit, skipping Huffman, deflate and
 * szip.  Each turns the stored bytes of an element into exactly `total`
 * bytes; a stream that ends early or is inconsistent is NC_EHDFERR.
 *
 * The compression header (after the special code, version, length and
 * reference) holds the model (only "stdio", 0) and the coder, then the
 * coder's own fields (big-endian):
 *   N-bit:             number type (4), sign extend (2), fill ones (2),
 *                      top bit of the field (4), field length in bits (4)
 *   skipping Huffman:  skip size (4), unused (4)
 *   deflate:           level (2)
 *   szip:              pixels (4), pixels per scanline (4), options (4),
 *                      bits per pixel (1), pixels per block (1)
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "netcdf.h"
#include "ncfilter.h"
#include "hdf4int.h"

#define CODE_RLE 1
#define CODE_NBIT 2
#define CODE_SKPHUFF 3
#define CODE_DEFLATE 4
#define CODE_SZIP 5
#define SZIP_REV2 0x10000u   /* the stream starts with a flag and a length */

static uint32_t
rd32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- bits, most significant first ------------------------------------------ */

typedef struct Bits {
    const unsigned char *p;
    size_t len, pos;   /* pos: in bits */
} Bits;

/* The next n (<= 57) bits as a number; -1 when the stream is too short. */
static int
bits_get(Bits *b, unsigned n, uint64_t *v)
{
    if (b->pos > 8 * b->len || n > 8 * b->len - b->pos)
        return -1;
    uint64_t acc = 0;
    size_t byte = b->pos >> 3;
    unsigned skip = (unsigned)(b->pos & 7), have = 0;
    /* gather whole bytes covering the bits, then shift off the excess */
    while (have < skip + n) {
        acc = acc << 8 | b->p[byte++];
        have += 8;
    }
    acc >>= have - skip - n;
    *v = acc & (((uint64_t)1 << n) - 1);
    b->pos += n;
    return 0;
}

/* ---- run-length ---------------------------------------------------------------- */

/* A control byte with the top bit set: the next byte repeated (low 7 bits)
 * + 3 times; else (low 7 bits) + 1 bytes copied as they are. */
static int
un_rle(const unsigned char *s, size_t slen, unsigned char *out, size_t total)
{
    size_t i = 0, o = 0;
    while (o < total) {
        if (i >= slen)
            return NC_EHDFERR;
        unsigned c = s[i++];
        size_t n;
        if (c & 0x80) {
            n = (c & 0x7f) + 3;
            if (i >= slen)
                return NC_EHDFERR;
            if (n > total - o)
                n = total - o;
            memset(out + o, s[i++], n);
        } else {
            n = c + 1;
            if (n > slen - i)
                return NC_EHDFERR;
            if (n > total - o)
                n = total - o;
            memcpy(out + o, s + i, n);
            i += n;
        }
        o += n;
    }
    return NC_NOERR;
}

/* ---- N-bit -------------------------------------------------------------------- */

/* Each value (nt_size bytes, most significant first) was stored as its
 * field of len bits ending at bit top (bit 0 the least significant), the
 * fields packed one after another.  The bits outside the field read as
 * ones or zeros (fill), and above the field as its top bit when the
 * header asks for sign extension. */
static int
un_nbit(const unsigned char *h, size_t hl, const unsigned char *s, size_t slen,
        unsigned char *out, size_t total)
{
    if (hl < 30)
        return NC_EHDFERR;
    uint32_t nt = rd32(h + 14);
    unsigned sext = (unsigned)(h[18] << 8 | h[19]), fill1 = (unsigned)(h[20] << 8 | h[21]);
    uint32_t top = rd32(h + 22), len = rd32(h + 26);
    size_t ntsize;
    switch (nt & 0xff) {
    case 3: case 4: case 20: case 21: ntsize = 1; break;  /* uchar, char, int8, uint8 */
    case 22: case 23: ntsize = 2; break;                   /* int16, uint16 */
    case 5: case 24: case 25: ntsize = 4; break;           /* float32, int32, uint32 */
    case 6: case 26: case 27: ntsize = 8; break;           /* float64, int64, uint64 */
    default: return NC_EHDFERR;
    }
    unsigned bits = (unsigned)(8 * ntsize);
    if (len == 0 || len > 57 || top >= bits || len > top + 1)
        return NC_EHDFERR;
    unsigned low = top + 1 - len;
    uint64_t all = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    uint64_t field = (((uint64_t)1 << len) - 1) << low;
    uint64_t above = all & ~((((uint64_t)1 << top) << 1) - 1);  /* bits above top */
    uint64_t base = fill1 ? all & ~field : 0;
    Bits b = {s, slen, 0};
    size_t n = total / ntsize;
    for (size_t k = 0; k < n; k++) {
        uint64_t f, v;
        if (bits_get(&b, len, &f))
            return NC_EHDFERR;
        v = base | f << low;
        if (sext)
            v = (f >> (len - 1)) & 1 ? v | above : v & ~above;
        for (size_t j = ntsize; j-- > 0; v >>= 8)
            out[k * ntsize + j] = (unsigned char)v;
    }
    memset(out + n * ntsize, 0, total - n * ntsize);
    return NC_NOERR;
}

/* ---- skipping Huffman ----------------------------------------------------------- */

/* An adaptive code on semi-splay trees (D. W. Jones, 1988), one tree per
 * byte position modulo the skip size.  Nodes 0..255 are inner (0 the
 * root), 256..511 the leaves of the byte values.  Each tree starts as the
 * complete binary tree; a byte's code is its path from the root (0: left),
 * and after each byte its tree is semi-splayed around the byte's leaf. */
typedef struct Splay {
    uint16_t left[256], right[256];
    uint8_t up[512];
} Splay;

static void
splay_init(Splay *t)
{
    for (unsigned i = 0; i < 512; i++)
        t->up[i] = (uint8_t)(i >> 1);
    for (unsigned i = 0; i < 256; i++) {
        t->left[i] = (uint16_t)(2 * i);
        t->right[i] = (uint16_t)(2 * i + 1);
    }
}

/* Walks from the leaf towards the root two levels at a time, swapping the
 * node into its grandparent's other child's place (so it moves up one
 * level and its path shortens), then continues from the grandparent. */
static void
splay(Splay *t, unsigned leaf)
{
    unsigned node = leaf;
    while (node != 0) {
        unsigned parent = t->up[node];
        if (parent == 0)
            break;
        unsigned grand = t->up[parent], uncle;
        if (t->left[grand] == parent) {
            uncle = t->right[grand];
            t->right[grand] = (uint16_t)node;
        } else {
            uncle = t->left[grand];
            t->left[grand] = (uint16_t)node;
        }
        if (t->left[parent] == node)
            t->left[parent] = (uint16_t)uncle;
        else
            t->right[parent] = (uint16_t)uncle;
        t->up[node] = (uint8_t)grand;
        t->up[uncle] = (uint8_t)parent;
        node = grand;
    }
}

static int
un_skphuff(const unsigned char *h, size_t hl, const unsigned char *s, size_t slen,
           unsigned char *out, size_t total)
{
    if (hl < 22)
        return NC_EHDFERR;
    uint32_t skip = rd32(h + 14);
    /* one tree per position; more positions than bytes would go unused */
    if (skip == 0 || skip > 65536 || (skip > total && total > 0))
        return NC_EHDFERR;
    Splay *trees = malloc(skip * sizeof *trees);
    if (trees == NULL)
        return NC_ENOMEM;
    for (size_t i = 0; i < skip; i++)
        splay_init(&trees[i]);
    size_t bitpos = 0, nbits = 8 * slen, pos = 0;
    int stat = NC_NOERR;
    for (size_t o = 0; o < total; o++) {
        Splay *t = &trees[pos];
        unsigned node = 0;
        do {
            if (bitpos >= nbits) {
                stat = NC_EHDFERR;
                goto done;
            }
            unsigned bit = (s[bitpos >> 3] >> (7 - (bitpos & 7))) & 1;
            bitpos++;
            node = bit ? t->right[node] : t->left[node];
        } while (node < 256);
        out[o] = (unsigned char)(node - 256);
        splay(t, node);
        if (++pos == skip)
            pos = 0;
    }
done:
    free(trees);
    return stat;
}

/* ---- deflate and szip ------------------------------------------------------------ */

static int
un_deflate(const unsigned char *s, size_t slen, unsigned char *out, size_t total)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (slen > UINT32_MAX || inflateInit(&z) != Z_OK)
        return NC_EHDFERR;
    z.next_in = (unsigned char *)s;
    z.avail_in = (uInt)slen;
    z.next_out = out;
    z.avail_out = (uInt)total;
    int zr = inflate(&z, Z_FINISH);
    size_t got = total - z.avail_out;
    inflateEnd(&z);
    if ((zr != Z_STREAM_END && zr != Z_BUF_ERROR && zr != Z_OK) || got != total)
        return NC_EHDFERR;
    return NC_NOERR;
}

static int
un_szip(const unsigned char *h, size_t hl, const unsigned char *s, size_t slen,
        unsigned char *out, size_t total)
{
    if (hl < 28)
        return NC_EHDFERR;
    uint32_t pixels = rd32(h + 14), pps = rd32(h + 18), mask = rd32(h + 22);
    unsigned bpp = h[26], ppb = h[27];
    size_t bytes = (bpp + 7) / 8;
    if (bytes == 3)
        bytes = 4;
    if (bpp == 0 || bpp > 64 || (uint64_t)pixels * bytes != total)
        return NC_EHDFERR;
    if (mask & SZIP_REV2) {
        /* a flag (0: szip, 1: stored as is) and the stream's length */
        if (slen < 5)
            return NC_EHDFERR;
        size_t good = rd32(s + 1);
        if (good > slen - 5)
            return NC_EHDFERR;
        if (s[0] == 1) {
            if (good != total)
                return NC_EHDFERR;
            memcpy(out, s + 5, total);
            return NC_NOERR;
        }
        s += 5;
        slen = good;
    }
    if (ncf_szip_decode(mask & ~SZIP_REV2, ppb, bpp, pps, s, slen, out, total))
        return NC_EHDFERR;
    return NC_NOERR;
}

/* ---- the compressed element ------------------------------------------------------- */

int
h4_decompress(const unsigned char *h, size_t hl, const unsigned char *src, size_t slen,
              unsigned char *out, size_t total)
{
    if (hl < 14)
        return NC_EHDFERR;
    unsigned model = (unsigned)(h[10] << 8 | h[11]), code = (unsigned)(h[12] << 8 | h[13]);
    if (model != 0)
        return NC_ENOFILTER;
    switch (code) {
    case 0:
        if (slen < total)
            return NC_EHDFERR;
        memcpy(out, src, total);
        return NC_NOERR;
    case CODE_RLE: return un_rle(src, slen, out, total);
    case CODE_NBIT: return un_nbit(h, hl, src, slen, out, total);
    case CODE_SKPHUFF: return un_skphuff(h, hl, src, slen, out, total);
    case CODE_DEFLATE: return un_deflate(src, slen, out, total);
    case CODE_SZIP: return un_szip(h, hl, src, slen, out, total);
    default: return NC_ENOFILTER;   /* JPEG and the like: not SD data */
    }
}

int
h4_coder_known(const unsigned char *h, size_t hl)
{
    if (hl < 14)
        return 0;
    unsigned model = (unsigned)(h[10] << 8 | h[11]), code = (unsigned)(h[12] << 8 | h[13]);
    return model == 0 && code <= CODE_SZIP;
}

/* The largest decoded size that `slen` stored bytes can honestly give:
 * what a corrupt header may not exceed (memory stays bounded). */
size_t
h4_decompress_bound(const unsigned char *h, size_t hl, size_t slen)
{
    unsigned code = hl >= 14 ? (unsigned)(h[12] << 8 | h[13]) : 0;
    size_t k;
    switch (code) {
    case CODE_RLE: k = 65; break;          /* 2 bytes for a run of 130 */
    case CODE_NBIT: k = 64; break;         /* at least 1 bit per value of <= 8 bytes */
    case CODE_SKPHUFF: k = 8; break;       /* at least 1 bit per byte */
    case CODE_DEFLATE: k = 1032; break;
    case CODE_SZIP: k = 8192; break;       /* zero blocks: 64 blocks in a few bits */
    default: k = 1; break;
    }
    return slen > (SIZE_MAX - 64) / k ? SIZE_MAX : slen * k + 64;
}
