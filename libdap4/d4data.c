/* d4data.c: the DAP4 data response.
 *
 * A response is a sequence of chunks, each with a 4-byte header: flags in
 * the first byte (1 last chunk, 2 error, 4 little-endian data) and the
 * chunk's length in the other three, big-endian.  The first chunk holds
 * the DMR, the rest the data of the top-level variables in order, each
 * followed by its CRC32 when checksums are on.  Values are in the byte
 * order the first chunk's flag says; strings, opaques and sequences are
 * an 8-byte count then their bytes or records.
 *
 * A response is read as it arrives (D4resp, d4int.h): nothing holds it
 * whole; only from the first variable of a type other than the atomic ones
 * and enums (strings, opaques, structures, sequences) on are the data kept
 * until the end and decoded then.
 */
#include "config.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "d4int.h"

#define CHUNK_LAST 1
#define CHUNK_ERROR 2
#define CHUNK_LITTLE 4

/* CRC32 (IEEE, reflected 0xEDB88320) by slicing: tab[0] is the classic
 * byte table, tab[t] advances a byte through t more zero bytes, so eight
 * bytes are folded in per step.  Where the CPU multiplies without carries
 * (x86-64 PCLMULQDQ), runs of 64 bytes and more are folded 128 bits at a
 * time instead, several times faster. */
static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define D4_CRC_FOLD 1
static int crc_fold_ok, shuffle_ok; /* the CPU has PCLMULQDQ and SSE4.1; SSSE3 */

/* x * k (the low or high halves, as sel picks) xor next: one 128-bit lane
 * carried 512 or 128 bits further along the message. */
__attribute__((target("pclmul,sse4.1"))) static inline __m128i
fold128(__m128i x, __m128i k, __m128i next)
{
    __m128i lo = _mm_clmulepi64_si128(x, k, 0x00), hi = _mm_clmulepi64_si128(x, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

/* The CRC register (inverted form) after n bytes (n >= 64, a multiple of
 * 16).  The constants are powers of x modulo the polynomial P (bit-
 * reflected, 33 bits) that carry a lane 512 bits and 128 bits along, the
 * one that reduces 64 bits to 32, and P with floor(x^64 / P) for the final
 * Barrett reduction. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t
crc_fold(uint32_t crc, const unsigned char *p, size_t n)
{
    const __m128i k4lane = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);
    const __m128i k1lane = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);
    const __m128i k64 = _mm_set_epi64x(0, 0x0163cd6124LL);
    const __m128i barrett = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);
    const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
    __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 16)),
            c = _mm_loadu_si128((const __m128i *)(p + 32)), d = _mm_loadu_si128((const __m128i *)(p + 48));
    a = _mm_xor_si128(a, _mm_cvtsi32_si128((int)crc));
    for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
        a = fold128(a, k4lane, _mm_loadu_si128((const __m128i *)p));
        b = fold128(b, k4lane, _mm_loadu_si128((const __m128i *)(p + 16)));
        c = fold128(c, k4lane, _mm_loadu_si128((const __m128i *)(p + 32)));
        d = fold128(d, k4lane, _mm_loadu_si128((const __m128i *)(p + 48)));
    }
    a = fold128(fold128(fold128(a, k1lane, b), k1lane, c), k1lane, d);
    for (; n >= 16; p += 16, n -= 16)
        a = fold128(a, k1lane, _mm_loadu_si128((const __m128i *)p));
    /* 128 -> 64 bits, then 64 -> 32 bits */
    a = _mm_xor_si128(_mm_srli_si128(a, 8), _mm_clmulepi64_si128(a, k1lane, 0x10));
    a = _mm_xor_si128(_mm_srli_si128(a, 4), _mm_clmulepi64_si128(_mm_and_si128(a, low32), k64, 0x00));
    /* Barrett: q = floor(a / P) through the quotient, a - q * P */
    __m128i q = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(a, low32), barrett, 0x10), low32);
    a = _mm_xor_si128(a, _mm_clmulepi64_si128(q, barrett, 0x00));
    return (uint32_t)_mm_extract_epi32(a, 1);
}
#endif

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
#ifdef D4_CRC_FOLD
    __builtin_cpu_init();
    crc_fold_ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    shuffle_ok = __builtin_cpu_supports("ssse3");
#endif
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
#ifdef D4_CRC_FOLD
    if (crc_fold_ok && n >= 64) {
        size_t m = n & ~(size_t)15;
        crc = crc_fold(crc, p, m);
        p += m;
        n -= m;
    }
#endif
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
    /* the common sizes a word at a time, one loop each */
    if (size == 2) {
        for (size_t i = 0; i < n; i++, p += 2) {
            uint16_t v;
            memcpy(&v, p, 2);
            v = __builtin_bswap16(v);
            memcpy(p, &v, 2);
        }
    } else if (size == 4) {
        for (size_t i = 0; i < n; i++, p += 4) {
            uint32_t v;
            memcpy(&v, p, 4);
            v = __builtin_bswap32(v);
            memcpy(p, &v, 4);
        }
    } else if (size == 8) {
        for (size_t i = 0; i < n; i++, p += 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            v = __builtin_bswap64(v);
            memcpy(p, &v, 8);
        }
    } else {
        for (size_t i = 0; i < n; i++, p += size)
            for (size_t a = 0, b = size - 1; a < b; a++, b--) {
                unsigned char t = p[a];
                p[a] = p[b];
                p[b] = t;
            }
    }
}

/* dst = src with each of n elements of size 2, 4 or 8 byte-reversed: one
 * pass, 16 bytes a step where the CPU shuffles bytes (SSSE3). */
static void
copy_swap_plain(unsigned char *dst, const unsigned char *src, size_t size, size_t n)
{
    memcpy(dst, src, n * size);
    swap_n(dst, size, n);
}

#ifdef D4_CRC_FOLD
__attribute__((target("ssse3"))) static void
copy_swap_ssse3(unsigned char *dst, const unsigned char *src, size_t size, size_t n)
{
    const __m128i rev = size == 2   ? _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)
                        : size == 4 ? _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12)
                                    : _mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    size_t bytes = n * size, i = 0;
    for (; i + 16 <= bytes; i += 16)
        _mm_storeu_si128((__m128i *)(dst + i),
                         _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + i)), rev));
    copy_swap_plain(dst + i, src + i, size, (bytes - i) / size);
}
#endif

static void
copy_swap(unsigned char *dst, const unsigned char *src, size_t size, size_t n)
{
#ifdef D4_CRC_FOLD
    if (shuffle_ok && (size == 2 || size == 4 || size == 8)) {
        copy_swap_ssse3(dst, src, size, n);
        return;
    }
#endif
    copy_swap_plain(dst, src, size, n);
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

/* ---- the variables of a response ------------------------------------------------------- */

size_t
d4_var_nvals(const NC4_var *var)
{
    size_t n = 1;
    for (int i = 0; i < var->ndims; i++)
        n *= var->dims[i]->len;
    return n;
}

D4var *
d4_find_fqn(D4file *d, const char *fqn)
{
    NC4_grp *g = d->f->root;
    const char *p = fqn;
    char name[NC_MAX_NAME + 1];
    if (*p++ != '/')
        return NULL;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t l = slash ? (size_t)(slash - p) : strlen(p);
        if (l == 0 || l > NC_MAX_NAME)
            return NULL;
        memcpy(name, p, l);
        name[l] = '\0';
        if (slash == NULL) {
            NC4_var *var = (NC4_var *)nc4_index_find(&g->vars, name);
            return var ? var->fmt : NULL;
        }
        if ((g = (NC4_grp *)nc4_index_find(&g->children, name)) == NULL)
            return NULL;
        p = slash + 1;
    }
}

/* ---- a response read as it arrives ---------------------------------------------------- */

/* Values of a variable whose bytes are copied as they come: atomic types
 * (not strings) and enums of them; 0 for the others. */
static size_t
plain_size(NC4_file *f, nc_type xtype)
{
    if (xtype >= NC_FIRSTUSERTYPEID) {
        NC4_type *ty = NULL;
        if (nc4_find_type(f, xtype, &ty) || ty == NULL || ty->tclass != NC_ENUM)
            return 0;
        xtype = ty->base;
    }
    if (xtype < NC_BYTE || xtype > NC_UINT64 || xtype == NC_STRING)
        return 0;
    return nc4_type_size(f, xtype);
}

/* Room for need bytes at *buf (capacity *cap): doubled, at least 64 KiB,
 * at most limit when it is not 0. */
static int
grow(unsigned char **buf, size_t *cap, size_t need, size_t limit)
{
    if (need <= *cap)
        return NC_NOERR;
    size_t c = *cap < (64u << 10) ? (64u << 10) : *cap;
    while (c < need)
        c = c > SIZE_MAX / 2 ? need : c * 2;
    if (limit && c > limit)
        c = limit;
    unsigned char *nb = realloc(*buf, c);
    if (nb == NULL)
        return NC_ENOMEM;
    *buf = nb;
    *cap = c;
    return NC_NOERR;
}

void
d4_resp_init(D4resp *r, D4file *d, size_t nvals, d4_take_fn take, void *arg, D4var *destvar,
             void *dest)
{
    pthread_once(&crc_once, crc_init); /* the CPU's features for copy_swap too */
    memset(r, 0, sizeof *r);
    r->d = d;
    r->nvals = nvals;
    r->take = take;
    r->arg = arg;
    r->destvar = destvar;
    r->dest = dest;
}

static void
var_reset(D4resp *r)
{
    if (r->own)
        free(r->out);
    r->dv = NULL;
    r->out = NULL;
    r->own = 0;
    r->n = r->size = r->need = r->got = r->cap = 0;
    r->incrc = 0;
    r->ncrc = 0;
    r->crcv = 0;
}

/* The current variable's values are all in (and its checksum): verified,
 * handed to take, and the next variable is the current one. */
static void
var_done(D4resp *r)
{
    if (r->crc) {
        uint32_t got;
        if (r->swap)
            swap_n(r->crcb, 4, 1);
        memcpy(&got, r->crcb, 4);
        if (r->verify && got != r->crcv) {
            r->stat = NC_EDATADAP;
            return;
        }
    }
    if (r->own && r->out == NULL && (r->out = calloc(1, r->size)) == NULL) {
        r->stat = NC_ENOMEM;
        return;
    }
    void *vals = r->out;
    r->own = 0; /* take owns the values now, whatever it answers */
    r->out = NULL;
    r->stat = r->take(r->d, r->dv, vals, r->n, r->arg);
    var_reset(r);
    r->cur++;
}

/* Make the next variable current; those without bytes to wait for are
 * done at once.  A variable of another type starts the gathering. */
static void
var_next(D4resp *r)
{
    while (r->stat == NC_NOERR && !r->gather && r->dv == NULL && r->cur < r->nnames) {
        D4var *dv = d4_find_fqn(r->d, r->names[r->cur]);
        size_t n, size;
        if (dv == NULL) {
            r->stat = NC_EDAP;
            return;
        }
        n = r->nvals ? r->nvals : d4_var_nvals(dv->var);
        if ((size = plain_size(r->d->f, dv->var->xtype)) == 0) {
            r->gather = 1;
            return;
        }
        if (n > SIZE_MAX / size) {
            r->stat = NC_EDAP;
            return;
        }
        r->dv = dv;
        r->n = n;
        r->size = size;
        r->need = n * size;
        if (dv == r->destvar && r->nvals) {
            r->out = r->dest;
        } else {
            r->own = 1;
            /* a slice asked for is as large as the caller's read: room for
             * it now; a whole variable grows with its bytes (its size is
             * the DMR's word) */
            if (r->nvals && r->need > 0 && grow(&r->out, &r->cap, r->need, r->need)) {
                r->stat = NC_ENOMEM;
                return;
            }
        }
        if (r->need > 0 || r->crc)
            return;
        var_done(r);
    }
}

/* The DMR chunk is complete: its variables, the byte order, checksums. */
static void
dmr_done(D4resp *r)
{
    const int one = 1;
    if (r->take == NULL)
        return; /* the caller wants the text */
    int hascrc = 0;
    r->stat = d4_dmr_vars((const char *)r->text, r->ntext, &r->names, &r->nnames, &hascrc);
    free(r->text);
    r->text = NULL;
    r->ntext = r->captext = 0;
    r->swap = r->little != (*(const char *)&one == 1);
    /* CRC32s follow the variables when the response's DMR declares them
     * (_DAP4_Checksum_CRC32), or when we asked a server for them */
    r->crc = hascrc || (r->d->checksum && !r->d->isfile);
    r->verify = r->d->checksum && !r->d->crc_ignore;
    var_next(r);
}

/* Values bytes of the current variable: the checksum over them as they
 * came, copied (byte-swapped when the order is not ours). */
static void
take_values(D4resp *r, const unsigned char *p, size_t k)
{
    if (r->crc)
        r->crcv = d4_crc32(r->crcv, p, k);
    if (r->own && grow(&r->out, &r->cap, r->got + k, r->need)) {
        r->stat = NC_ENOMEM;
        return;
    }
    if (!r->swap || r->size == 1) {
        memcpy(r->out + r->got, p, k);
        r->got += k;
        return;
    }
    /* an element split between pieces: completed, then swapped */
    size_t off = r->got % r->size;
    if (off) {
        size_t t = r->size - off < k ? r->size - off : k;
        memcpy(r->out + r->got, p, t);
        r->got += t;
        p += t;
        k -= t;
        if (r->got % r->size == 0)
            swap_n(r->out + r->got - r->size, r->size, 1);
    }
    size_t ne = k / r->size;
    copy_swap(r->out + r->got, p, r->size, ne);
    r->got += ne * r->size;
    p += ne * r->size;
    k -= ne * r->size;
    memcpy(r->out + r->got, p, k);
    r->got += k;
}

/* Data bytes (the chunks after the DMR, joined). */
static void
data_bytes(D4resp *r, const unsigned char *p, size_t m)
{
    while (m > 0 && r->stat == NC_NOERR && r->cur < r->nnames) {
        if (r->gather) {
            if (grow(&r->rest, &r->caprest, r->nrest + m, 0)) {
                r->stat = NC_ENOMEM;
                return;
            }
            memcpy(r->rest + r->nrest, p, m);
            r->nrest += m;
            return;
        }
        size_t k;
        if (!r->incrc) {
            k = r->need - r->got < m ? r->need - r->got : m;
            take_values(r, p, k);
            if (r->got == r->need)
                r->incrc = r->crc;
        } else {
            k = 4 - r->ncrc < m ? 4 - r->ncrc : m;
            memcpy(r->crcb + r->ncrc, p, k);
            r->ncrc += (unsigned)k;
        }
        p += k;
        m -= k;
        if (r->stat == NC_NOERR && r->got == r->need && (!r->crc || r->ncrc == 4)) {
            var_done(r);
            var_next(r);
        }
    }
}

/* The payload of the current chunk. */
static void
chunk_bytes(D4resp *r, const unsigned char *p, size_t m)
{
    if ((r->flags & CHUNK_ERROR) || r->chunk == 0) {
        /* the DMR or an error's text, kept whole (the 24-bit length bounds it) */
        if (grow(&r->text, &r->captext, r->ntext + m + 1, 0)) {
            r->nomem = 1;
            return;
        }
        memcpy(r->text + r->ntext, p, m);
        r->ntext += m;
        r->text[r->ntext] = '\0';
        return;
    }
    if (r->take)
        data_bytes(r, p, m);
}

static void
chunk_end(D4resp *r)
{
    r->inchunk = 0;
    if (r->flags & CHUNK_ERROR) {
        r->error = 1;
        return;
    }
    if (r->chunk == 0)
        dmr_done(r);
    r->chunk++;
    if (r->flags & CHUNK_LAST)
        r->ended = 1;
}

int
d4_resp_feed(void *arg, const void *bytes, size_t n)
{
    D4resp *r = arg;
    const unsigned char *p = bytes;
    while (n > 0 && !r->ended && !r->error && !r->nomem) {
        if (!r->inchunk) {
            while (n > 0 && r->nhdr < 4) {
                r->hdr[r->nhdr++] = *p++;
                n--;
            }
            if (r->nhdr < 4)
                break;
            r->nhdr = 0;
            r->inchunk = 1;
            r->flags = r->hdr[0];
            r->left = ((size_t)r->hdr[1] << 16) | ((size_t)r->hdr[2] << 8) | r->hdr[3];
            if (r->flags & CHUNK_ERROR) {
                r->ntext = 0; /* the server's message replaces the DMR */
            } else if (r->chunk == 0) {
                r->little = (r->flags & CHUNK_LITTLE) != 0;
            }
        } else {
            size_t m = r->left < n ? r->left : n;
            chunk_bytes(r, p, m);
            p += m;
            n -= m;
            r->left -= m;
        }
        if (r->inchunk && r->left == 0)
            chunk_end(r);
    }
    return r->nomem ? NC_ENOMEM : NC_NOERR;
}

/* The variables from the current one on, from the gathered bytes. */
static int
decode_rest(D4resp *r)
{
    D4dec dec = {.f = r->d->f, .p = r->rest, .end = r->rest + r->nrest, .swap = r->swap};
    int stat = NC_NOERR;
    for (; r->cur < r->nnames && !stat; r->cur++) {
        D4var *dv = d4_find_fqn(r->d, r->names[r->cur]);
        void *vals = NULL;
        size_t n;
        if (dv == NULL)
            return NC_EDAP;
        if (dv == r->destvar && r->nvals)
            vals = r->dest;
        n = r->nvals ? r->nvals : d4_var_nvals(dv->var);
        if ((stat = d4_decode_var(&dec, dv->var, n, r->crc, r->verify, &vals)))
            break;
        stat = r->take(r->d, dv, vals, n, r->arg);
    }
    return stat;
}

int
d4_resp_finish(D4resp *r, int tstat, char **dmrp, size_t *dmrlenp)
{
    int stat = tstat;
    if (stat == NC_NOERR) {
        if (r->nomem)
            stat = NC_ENOMEM;
        else if (r->error)
            stat = NC_EDAPSVC;
        else if (!r->ended)
            stat = NC_EDAP; /* truncated: no last chunk */
        else if (r->take == NULL)
            stat = NC_NOERR; /* the chunks were checked; the DMR is wanted */
        else if (r->stat)
            stat = r->stat;
        else if (r->gather)
            stat = decode_rest(r);
        else if (r->cur < r->nnames)
            stat = NC_EDAP; /* the data end before the variables do */
    }
    if (stat == NC_EDAPSVC && r->error && r->take)
        fprintf(stderr, "DAP4 server error: %s\n", r->text ? (const char *)r->text : "");
    if (stat == NC_NOERR && r->take == NULL) {
        if (r->text == NULL && (r->text = calloc(1, 1)) == NULL)
            stat = NC_ENOMEM;
        else {
            *dmrp = (char *)r->text;
            *dmrlenp = r->ntext;
            r->text = NULL;
        }
    }
    var_reset(r);
    free(r->text);
    free(r->rest);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    r->text = NULL;
    r->rest = NULL;
    r->names = NULL;
    r->nnames = 0;
    return stat;
}
