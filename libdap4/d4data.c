/* d4data.c: the DAP4 data response.
 *
 * A response is a sequence of chunks, each with a 4-byte header: flags in
 * the first byte (1 last chunk, 2 error, 4 little-endian data) and the
 * chunk's length in the other three, big-endian.  The first chunk holds
 * the DMR, the rest the data of the top-level variables in order, each
 * followed by its CRC32 when checksums are on.  Values are in the byte
 * order the first chunk's flag says; strings, opaques and sequences are
 * an 8-byte count then their bytes or records.
 */
#include "config.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "d4int.h"

#define CHUNK_LAST 1
#define CHUNK_ERROR 2
#define CHUNK_LITTLE 4

int
d4_dechunk(unsigned char *buf, size_t len, char **dmr, size_t *dmrlen, unsigned char **data,
           size_t *datalen, int *little)
{
    size_t pos = 0, out = 0, head = 0;
    char *text = NULL;   /* the DMR, until it is handed out */
    int stat = NC_NOERR;
    for (;;) {
        if (len - pos < 4) {
            stat = NC_EDAP; /* truncated: no last chunk */
            break;
        }
        unsigned flags = buf[pos];
        size_t n = ((size_t)buf[pos + 1] << 16) | ((size_t)buf[pos + 2] << 8) | buf[pos + 3];
        pos += 4;
        if (n > len - pos) {
            stat = NC_EDAP;
            break;
        }
        if (flags & CHUNK_ERROR) {
            /* the server's message replaces the DMR in the output */
            char *t = malloc(n + 1);
            free(text);
            text = NULL;
            if (t == NULL)
                return NC_ENOMEM;
            memcpy(t, buf + pos, n);
            t[n] = '\0';
            *dmr = t;
            *dmrlen = n;
            return NC_EDAPSVC;
        }
        if (text == NULL) {
            if ((text = malloc(n + 1)) == NULL)
                return NC_ENOMEM;
            memcpy(text, buf + pos, n);
            text[n] = '\0';
            head = n;
            *little = (flags & CHUNK_LITTLE) != 0;
        } else {
            memmove(buf + out, buf + pos, n);
            out += n;
        }
        pos += n;
        if (flags & CHUNK_LAST)
            break;
    }
    if (stat) {
        free(text);
        return stat;
    }
    *dmr = text;
    *dmrlen = head;
    *data = buf;
    *datalen = out;
    return NC_NOERR;
}

/* CRC32 (IEEE, reflected 0xEDB88320) by slicing: tab[0] is the classic
 * byte table, tab[t] advances a byte through t more zero bytes, so eight
 * bytes are folded in per step. */
static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void
crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_tab[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

static uint32_t
le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t
d4_crc32(uint32_t crc, const unsigned char *p, size_t n)
{
    pthread_once(&crc_once, crc_init);
    crc = ~crc;
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo = le32(p) ^ crc, hi = le32(p + 4);
        crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^ crc_tab[5][(lo >> 16) & 0xff]
              ^ crc_tab[4][lo >> 24] ^ crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff]
              ^ crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
    }
    for (; n > 0; n--, p++)
        crc = crc_tab[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static void
swap_n(unsigned char *p, size_t size, size_t n)
{
    /* the common sizes a word at a time */
    if (size == 2 || size == 4 || size == 8) {
        for (size_t i = 0; i < n; i++, p += size) {
            if (size == 2) {
                uint16_t v;
                memcpy(&v, p, 2);
                v = __builtin_bswap16(v);
                memcpy(p, &v, 2);
            } else if (size == 4) {
                uint32_t v;
                memcpy(&v, p, 4);
                v = __builtin_bswap32(v);
                memcpy(p, &v, 4);
            } else {
                uint64_t v;
                memcpy(&v, p, 8);
                v = __builtin_bswap64(v);
                memcpy(p, &v, 8);
            }
        }
        return;
    }
    for (size_t i = 0; i < n; i++, p += size)
        for (size_t a = 0, b = size - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

static int
get_count(D4dec *d, unsigned long long *np)
{
    unsigned char b[8];
    if (d->end - d->p < 8)
        return NC_EDAP;
    memcpy(b, d->p, 8);
    d->p += 8;
    if (d->swap)
        swap_n(b, 8, 1);
    memcpy(np, b, 8);
    return NC_NOERR;
}

static int
decode_inner(D4dec *d, nc_type xtype, size_t n, unsigned char *out)
{
    NC4_type *ty = NULL;
    size_t size;
    int stat;

    if (++d->depth > D4_MAX_DEPTH)
        return NC_EDAP;
    if (xtype >= NC_FIRSTUSERTYPEID) {
        if ((stat = nc4_find_type(d->f, xtype, &ty)) || ty == NULL)
            return NC_EDAP;
    }
    if (ty == NULL && xtype != NC_STRING) {
        size = nc4_type_size(d->f, xtype);
        if (size == 0 || (size_t)(d->end - d->p) / size < n)
            return NC_EDAP;
        memcpy(out, d->p, n * size);
        d->p += n * size;
        if (d->swap && size > 1)
            swap_n(out, size, n);
        d->depth--;
        return NC_NOERR;
    }
    if (xtype == NC_STRING) {
        char **s = (char **)out;
        for (size_t i = 0; i < n; i++) {
            unsigned long long c;
            if ((stat = get_count(d, &c)))
                return stat;
            if (c > (unsigned long long)(d->end - d->p))
                return NC_EDAP;
            if ((s[i] = malloc((size_t)c + 1)) == NULL)
                return NC_ENOMEM;
            memcpy(s[i], d->p, (size_t)c);
            s[i][c] = '\0';
            d->p += c;
        }
        d->depth--;
        return NC_NOERR;
    }
    switch (ty->tclass) {
    case NC_ENUM:
        stat = decode_inner(d, ty->base, n, out);
        break;
    case NC_OPAQUE:
        stat = NC_NOERR;
        for (size_t i = 0; i < n && !stat; i++) {
            unsigned long long c;
            if ((stat = get_count(d, &c)))
                break;
            if (c > (unsigned long long)(d->end - d->p))
                return NC_EDAP;
            memcpy(out + i * ty->size, d->p, c < ty->size ? (size_t)c : ty->size);
            d->p += c;
        }
        break;
    case NC_COMPOUND:
        stat = NC_NOERR;
        for (size_t i = 0; i < n && !stat; i++) {
            for (size_t k = 0; k < ty->fields.n && !stat; k++) {
                NC4_field *fl = (NC4_field *)ty->fields.items[k];
                size_t m = 1;
                for (int j = 0; j < fl->ndims; j++)
                    m *= (size_t)fl->dimsizes[j];
                stat = decode_inner(d, fl->xtype, m, out + i * ty->size + fl->offset);
            }
        }
        break;
    case NC_VLEN: {
        size_t bsize = nc4_type_size(d->f, ty->base);
        nc_vlen_t *v = (nc_vlen_t *)out;
        stat = NC_NOERR;
        if (bsize == 0)
            return NC_EDAP;
        for (size_t i = 0; i < n && !stat; i++) {
            unsigned long long c;
            if ((stat = get_count(d, &c)))
                break;
            /* every element takes one byte at least */
            if (c > (unsigned long long)(d->end - d->p))
                return NC_EDAP;
            v[i].len = (size_t)c;
            if (c > 0) {
                if ((v[i].p = calloc((size_t)c, bsize)) == NULL)
                    return NC_ENOMEM;
                stat = decode_inner(d, ty->base, (size_t)c, v[i].p);
            }
        }
        break;
    }
    default:
        stat = NC_EDAP;
    }
    d->depth--;
    return stat;
}

int
d4_decode(D4dec *d, nc_type xtype, size_t n, void *out)
{
    int stat;
    d->depth = 0;
    if ((stat = decode_inner(d, xtype, n, out)))
        nc4_reclaim_values(d->f, xtype, out, n);
    return stat;
}

int
d4_decode_var(D4dec *d, NC4_var *var, size_t nvals, int crc, int verify, void **outp)
{
    size_t size = nc4_type_size(d->f, var->xtype);
    const unsigned char *start = d->p;
    void *out = *outp;
    int own = out == NULL;
    int stat;

    /* every value takes one byte at least: no more values than bytes */
    if (size == 0 || nvals > (size_t)(d->end - d->p) + 1)
        return NC_EDAP;
    if (own && (out = calloc(nvals ? nvals : 1, size)) == NULL)
        return NC_ENOMEM;
    if ((stat = d4_decode(d, var->xtype, nvals, out))) {
        if (own)
            free(out);
        return stat;
    }
    if (crc) {
        unsigned char b[4];
        uint32_t got;
        if (d->end - d->p < 4) {
            stat = NC_EDAP;
        } else {
            memcpy(b, d->p, 4);
            d->p += 4;
            if (d->swap)
                swap_n(b, 4, 1);
            memcpy(&got, b, 4);
            if (verify && got != d4_crc32(0, start, (size_t)(d->p - 4 - start)))
                stat = NC_EDATADAP;
        }
        if (stat) {
            nc4_reclaim_values(d->f, var->xtype, out, nvals);
            if (own)
                free(out);
            return stat;
        }
    }
    *outp = out;
    return NC_NOERR;
}
