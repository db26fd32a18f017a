/* tst_codecs.c: libfilter's codecs, chains and pool on their own.
 *
 * Every built-in codec round-trips every atomic element size and odd
 * lengths, through both decode paths (the generic filter function and the
 * decode-into-caller's-buffer fast path); filter chains apply in order and
 * honour the chunk mask; optional filters that fail are masked; deflate
 * streams go both ways between libdeflate and zlib; corrupt or truncated
 * input is an NC_EFILTER, never a crash; chunks encoded on pools of 1..4
 * threads give identical bytes; Zarr's gzip and crc32c run as libfilter
 * codecs; the per-thread scratch keeps its slots apart.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "nctst.h"
#include "ncfilter.h"
#include "chain_jobs.h"

#define NBIG 70001 /* odd, and not a multiple of any element size */

static unsigned char *
make_data(size_t n, int kind, unsigned seed)
{
    unsigned char *d = malloc(n ? n : 1);
    size_t i;
    uint32_t x = seed * 2654435761u + 1;
    for (i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        switch (kind) {
        case 0: d[i] = (unsigned char)(x >> 24); break;          /* random */
        case 1: d[i] = (unsigned char)((i / 7) & 0xff); break;   /* smooth */
        default: d[i] = (unsigned char)(i % 4 == 0 ? x >> 28 : 0); break; /* sparse */
        }
    }
    return d;
}

/* Encode then decode data through the chain; both decode paths. */
static void
roundtrip(const char *what, size_t nf, const ncf_filter_spec *specs, size_t typesize, size_t n, int kind)
{
    ncf_chain *c = NULL;
    unsigned char *d = make_data(n, kind, (unsigned)(n + typesize)), *back;
    void *enc = NULL;
    size_t enclen = 0;
    unsigned mask = 99;
    int stat;
    if ((stat = ncf_chain_create(nf, specs, typesize, &c))) {
        CHECK(0, "%s: chain: %s", what, nc_strerror(stat));
        free(d);
        return;
    }
    stat = ncf_chain_encode(c, d, n, &enc, &enclen, &mask);
    CHECK(stat == NC_NOERR, "%s n=%zu ts=%zu: encode %s", what, n, typesize, nc_strerror(stat));
    if (stat) {
        free(d);
        ncf_chain_free(c);
        return;
    }
    back = malloc(n + 1);
    stat = ncf_chain_decode(c, mask, enc, enclen, back, n);
    CHECK(stat == NC_NOERR && memcmp(back, d, n) == 0, "%s n=%zu ts=%zu kind=%d: decode %s",
          what, n, typesize, kind, nc_strerror(stat));
    /* A wrong expected size is an error, not a short or overlong copy. */
    if (n > 0) {
        stat = ncf_chain_decode(c, mask, enc, enclen, back, n - 1);
        CHECK(stat == NC_EFILTER || (nf == 0 && stat == NC_EFILTER), "%s: short dst: %d", what, stat);
    }
    free(back);
    free(enc);
    free(d);
    ncf_chain_free(c);
}

static const size_t lengths[] = {1, 2, 3, 7, 8, 64, 1000, 4099, NBIG};
static const size_t tsizes[] = {1, 2, 4, 8};

static void
all_sizes(const char *what, size_t nf, ncf_filter_spec *specs)
{
    size_t i, t;
    int kind;
    for (t = 0; t < sizeof(tsizes) / sizeof(tsizes[0]); t++)
        for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
            for (kind = 0; kind < 3; kind++)
                roundtrip(what, nf, specs, tsizes[t], lengths[i] - lengths[i] % 1, kind);
}

static void
test_singles(void)
{
    unsigned lvl[] = {0, 1, 6, 9};
    unsigned esz[] = {1, 2, 3, 4, 8, 16};
    int zl[] = {-5, 1, 3, 19};
    unsigned bz[] = {1, 9};
    size_t i;
    ncf_filter_spec s = {0, 0, 0, NULL};
    char name[64];

    for (i = 0; i < 4; i++) {
        s.id = 1; s.nparams = 1; s.params = &lvl[i];
        snprintf(name, sizeof(name), "deflate %u", lvl[i]);
        all_sizes(name, 1, &s);
    }
    for (i = 0; i < 6; i++) {
        s.id = 2; s.nparams = 1; s.params = &esz[i];
        snprintf(name, sizeof(name), "shuffle %u", esz[i]);
        all_sizes(name, 1, &s);
    }
    s.id = 3; s.nparams = 0; s.params = NULL;
    all_sizes("fletcher32", 1, &s);
    for (i = 0; i < 4; i++) {
        unsigned u = (unsigned)zl[i];
        s.id = 32015; s.nparams = 1; s.params = &u;
        snprintf(name, sizeof(name), "zstd %d", zl[i]);
        all_sizes(name, 1, &s);
    }
    for (i = 0; i < 2; i++) {
        s.id = 307; s.nparams = 1; s.params = &bz[i];
        snprintf(name, sizeof(name), "bzip2 %u", bz[i]);
        all_sizes(name, 1, &s);
    }
    {
        unsigned comp, shuf;
        for (comp = 0; comp <= 5; comp++)
            for (shuf = 0; shuf <= 2; shuf++) {
                unsigned p[7] = {0, 0, 0, 0, 5, shuf, comp};
                const char *cn = NULL;
                s.id = 32001; s.nparams = 7; s.params = p;
                snprintf(name, sizeof(name), "blosc comp %u shuffle %u", comp, shuf);
                /* Compressors this blosc was built without fail to encode. */
                if (comp == 3) {
                    ncf_chain *c;
                    void *out = NULL;
                    size_t ol;
                    unsigned char b[64] = {0};
                    if (ncf_chain_create(1, &s, 4, &c) == NC_NOERR) {
                        int st = ncf_chain_encode(c, b, sizeof(b), &out, &ol, NULL);
                        free(out);
                        ncf_chain_free(c);
                        if (st)
                            continue; /* no snappy */
                    }
                }
                (void)cn;
                all_sizes(name, 1, &s);
            }
    }
    /* szip: the parameters HDF5 stores, for several element sizes. */
    {
        size_t t;
        for (t = 0; t < 4; t++) {
            unsigned p[4];
            size_t dims[1] = {NBIG / tsizes[t]};
            size_t i2;
            int kind;
            if (ncf_szip_params(32 /* NN */, 8, tsizes[t], 0, 1, dims, p)) {
                CHECK(0, "szip params");
                continue;
            }
            s.id = 4; s.nparams = 4; s.params = p;
            for (kind = 1; kind < 3; kind++)
                for (i2 = 0; i2 < 3; i2++) {
                    size_t n = (i2 == 0 ? 64 : i2 == 1 ? 4096 : dims[0]) * tsizes[t];
                    roundtrip("szip", 1, &s, tsizes[t], n, kind);
                }
        }
    }
}

static void
test_chains(void)
{
    unsigned four = 4, one = 1, three = 3, nine = 9;
    ncf_filter_spec sd[2] = {{2, 0, 1, &four}, {1, 0, 1, &one}};
    ncf_filter_spec fsz[3] = {{3, 0, 0, NULL}, {2, 0, 1, &four}, {32015, 0, 1, &three}};
    ncf_filter_spec bzsh[2] = {{307, 0, 1, &nine}, {2, 0, 1, &four}};
    all_sizes("shuffle+deflate", 2, sd);
    all_sizes("fletcher32+shuffle+zstd", 3, fsz);
    all_sizes("bzip2 then shuffle", 2, bzsh);
}

/* Optional szip on random bytes cannot compress: masked, still decodable;
 * the same filter mandatory fails the chunk. */
static void
test_optional(void)
{
    unsigned p[4];
    size_t dims[1] = {4096};
    unsigned one = 1;
    ncf_filter_spec s[2];
    ncf_chain *c;
    unsigned char *d = make_data(4096 * 4, 0, 7), *back = malloc(4096 * 4);
    void *enc = NULL;
    size_t enclen;
    unsigned mask = 0;
    OK(ncf_szip_params(4, 32, 4, 0, 1, dims, p));
    s[0].id = 4; s[0].flags = NCF_FLAG_OPTIONAL; s[0].nparams = 4; s[0].params = p;
    s[1].id = 1; s[1].flags = 0; s[1].nparams = 1; s[1].params = &one;
    OK(ncf_chain_create(2, s, 4, &c));
    OK(ncf_chain_encode(c, d, 4096 * 4, &enc, &enclen, &mask));
    CHECK(mask == 1, "optional szip masked: mask %u", mask);
    OK(ncf_chain_decode(c, mask, enc, enclen, back, 4096 * 4));
    CHECK(memcmp(back, d, 4096 * 4) == 0, "masked decode");
    /* With the wrong mask, the szip decoder sees a deflate stream. */
    CHECK(ncf_chain_decode(c, 0, enc, enclen, back, 4096 * 4) == NC_EFILTER, "wrong mask fails");
    free(enc);
    ncf_chain_free(c);
    s[0].flags = 0;
    OK(ncf_chain_create(2, s, 4, &c));
    EXPECT(ncf_chain_encode(c, d, 4096 * 4, &enc, &enclen, &mask), NC_EFILTER);
    ncf_chain_free(c);
    /* All filters masked: the chunk is stored raw. */
    OK(ncf_chain_create(2, s, 4, &c));
    OK(ncf_chain_decode(c, 3, d, 4096 * 4, back, 4096 * 4));
    CHECK(memcmp(back, d, 4096 * 4) == 0, "all masked is a copy");
    ncf_chain_free(c);
    free(d);
    free(back);
}

/* Level 1 may be encoded by a second encoder (ISA-L's igzip), with a
 * fallback when its output would not fit: zlib must read what it writes for
 * every length and kind of data, and compressible data must shrink. */
static void
test_level1_zlib(void)
{
    unsigned lvl = 1;
    ncf_filter_spec s = {1, 0, 1, &lvl};
    ncf_chain *c;
    size_t i;
    int kind;
    OK(ncf_chain_create(1, &s, 1, &c));
    for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
        for (kind = 0; kind < 3; kind++) {
            size_t n = lengths[i];
            unsigned char *d = make_data(n, kind, (unsigned)n), *back = malloc(n + 1);
            void *enc = NULL;
            size_t enclen = 0;
            uLongf zl = (uLongf)n;
            OK(ncf_chain_encode(c, d, n, &enc, &enclen, NULL));
            CHECK(uncompress(back, &zl, enc, (uLong)enclen) == Z_OK && zl == n && memcmp(back, d, n) == 0,
                  "zlib reads level 1, n=%zu kind=%d", n, kind);
            if (n == NBIG && kind != 0)
                CHECK(enclen < n / 2, "level 1 compresses kind %d: %zu of %zu", kind, enclen, n);
            free(enc);
            free(back);
            free(d);
        }
    ncf_chain_free(c);
}

/* libdeflate <-> zlib, both ways, every level. */
static void
test_zlib_compat(void)
{
    unsigned lvl;
    size_t n = NBIG;
    unsigned char *d = make_data(n, 1, 3), *back = malloc(n);
    for (lvl = 0; lvl <= 9; lvl++) {
        ncf_filter_spec s = {1, 0, 1, &lvl};
        ncf_chain *c;
        void *enc = NULL;
        size_t enclen;
        uLongf zl = (uLongf)n;
        uLongf bound = compressBound((uLong)n);
        unsigned char *z = malloc(bound);
        OK(ncf_chain_create(1, &s, 1, &c));
        OK(ncf_chain_encode(c, d, n, &enc, &enclen, NULL));
        CHECK(uncompress(back, &zl, enc, (uLong)enclen) == Z_OK && zl == n && memcmp(back, d, n) == 0,
              "zlib reads libdeflate level %u", lvl);
        zl = bound;
        CHECK(compress2(z, &zl, d, (uLong)n, (int)lvl) == Z_OK, "compress2");
        OK(ncf_chain_decode(c, 0, z, zl, back, n));
        CHECK(memcmp(back, d, n) == 0, "libdeflate reads zlib level %u", lvl);
        /* Trailing bytes after the stream are ignored, as zlib's inflate does. */
        {
            unsigned char *z2 = malloc(zl + 5);
            memcpy(z2, z, zl);
            memset(z2 + zl, 0xAB, 5);
            OK(ncf_chain_decode(c, 0, z2, zl + 5, back, n));
            free(z2);
        }
        free(z);
        free(enc);
        ncf_chain_free(c);
    }
    free(d);
    free(back);
}

/* Damaged input: every codec reports NC_EFILTER, nothing crashes. */
static void
test_corrupt(void)
{
    unsigned one = 1, three = 3, nine = 9;
    unsigned bl[7] = {0, 0, 4, 0, 5, 1, 1};
    unsigned sz[4];
    size_t dims[1] = {1000};
    ncf_filter_spec specs[7] = {{1, 0, 1, &one}, {3, 0, 0, NULL}, {32015, 0, 1, &three},
                                {307, 0, 1, &nine}, {32001, 0, 7, bl}, {4, 0, 4, sz}, {2, 0, 1, &three}};
    size_t i, n = 4000, cut;
    unsigned char *d = make_data(n, 1, 5), *back = malloc(n);
    OK(ncf_szip_params(32, 8, 4, 0, 1, dims, sz));
    for (i = 0; i < 6; i++) {
        ncf_chain *c;
        void *enc = NULL;
        size_t enclen;
        OK(ncf_chain_create(1, &specs[i], 4, &c));
        OK(ncf_chain_encode(c, d, n, &enc, &enclen, NULL));
        /* Truncations. */
        for (cut = 0; cut < enclen; cut += (enclen / 7) + 1) {
            int st = ncf_chain_decode(c, 0, enc, cut, back, n);
            CHECK(st == NC_EFILTER, "filter %u truncated to %zu: %d", specs[i].id, cut, st);
        }
        /* A flipped byte in the middle: an error or (szip, blosc, some
         * bit patterns) wrong data, but never a crash or overrun. */
        if (enclen > 20) {
            ((unsigned char *)enc)[enclen / 2] ^= 0x5a;
            (void)ncf_chain_decode(c, 0, enc, enclen, back, n);
            ((unsigned char *)enc)[enclen / 2] ^= 0x5a;
        }
        if (specs[i].id == 3) {
            ((unsigned char *)enc)[10] ^= 1;
            EXPECT(ncf_chain_decode(c, 0, enc, enclen, back, n), NC_EFILTER);
        }
        free(enc);
        ncf_chain_free(c);
    }
    /* Garbage that is not any codec's stream. */
    {
        unsigned char junk[256];
        memset(junk, 0xff, sizeof(junk));
        for (i = 0; i < 6; i++) {
            ncf_chain *c;
            OK(ncf_chain_create(1, &specs[i], 4, &c));
            CHECK(ncf_chain_decode(c, 0, junk, sizeof(junk), back, n) == NC_EFILTER,
                  "junk through %u", specs[i].id);
            ncf_chain_free(c);
        }
    }
    free(d);
    free(back);
}

/* Fletcher-32 as HDF5 computes it: reference values from h5py-written
 * chunks (see tst_interop.py) and the odd-length rule. */
static void
test_fletcher(void)
{
    unsigned char b[5] = {1, 2, 3, 4, 5};
    /* Words 0x0102, 0x0304, then 0x0500: a = 0x0906, b = 0x0102+0x0406+0x0906. */
    CHECK(ncf_fletcher32(b, 4) == ((0x0102u + 0x0406u) << 16 | 0x0406u), "fletcher even");
    CHECK(ncf_fletcher32(b, 5) == ((0x0102u + 0x0406u + 0x0906u) << 16 | 0x0906u), "fletcher odd: %08x",
          ncf_fletcher32(b, 5));
    CHECK(ncf_fletcher32(b, 0) == 0, "fletcher empty");
}

/* Batches on pools of 1..4 threads: identical bytes, all decoded. */
static void
test_pool(void)
{
    enum { NCH = 37, CH = 50000 };
    unsigned four = 4, one = 1;
    ncf_filter_spec s[2] = {{2, 0, 1, &four}, {1, 0, 1, &one}};
    ncf_chain *c;
    unsigned char *d = make_data((size_t)NCH * CH, 1, 11);
    tjob ref[NCH];
    int t;
    size_t i;
    OK(ncf_chain_create(2, s, 4, &c));
    memset(ref, 0, sizeof(ref));
    for (i = 0; i < NCH; i++) {
        ref[i].src = d + i * CH;
        ref[i].srclen = CH - (i == NCH - 1 ? 3 : 0);
    }
    OK(tjobs_encode(c, NULL, NCH, ref));
    for (t = 1; t <= 4; t++) {
        ncf_pool *p;
        tjob jobs[NCH];
        unsigned char *back = calloc((size_t)NCH, CH);
        OK(ncf_pool_create(t, &p));
        CHECK(ncf_pool_nthreads(p) == t, "pool threads %d", ncf_pool_nthreads(p));
        memcpy(jobs, ref, sizeof(jobs));
        for (i = 0; i < NCH; i++)
            jobs[i].out = NULL;
        OK(tjobs_encode(c, p, NCH, jobs));
        for (i = 0; i < NCH; i++) {
            CHECK(jobs[i].outlen == ref[i].outlen && memcmp(jobs[i].out, ref[i].out, ref[i].outlen) == 0,
                  "pool %d chunk %zu identical", t, i);
            free(jobs[i].out);
            jobs[i].src = ref[i].out;
            jobs[i].srclen = ref[i].outlen;
            jobs[i].mask = ref[i].outmask;
            jobs[i].dst = back + i * CH;
            jobs[i].dstlen = ref[i].srclen;
        }
        OK(tjobs_decode(c, p, NCH, jobs));
        CHECK(memcmp(back, d, (size_t)NCH * CH - 3) == 0, "pool %d decode", t);
        /* One bad chunk: its own status, the others still decoded. */
        jobs[5].srclen = 3;
        memset(back, 0, (size_t)NCH * CH);
        EXPECT(tjobs_decode(c, p, NCH, jobs), NC_EFILTER);
        CHECK(jobs[5].status == NC_EFILTER && jobs[6].status == NC_NOERR
              && memcmp(back + 6 * CH, d + 6 * CH, CH) == 0, "bad chunk isolated");
        ncf_pool_free(p);
        free(back);
    }
    for (i = 0; i < NCH; i++)
        free(ref[i].out);
    CHECK(ncf_pool_default() != NULL && ncf_pool_nthreads(ncf_pool_default()) >= 1, "default pool");
    ncf_chain_free(c);
    free(d);
}

/* Several threads share one pool (as files on different threads share the
 * library's pool): every batch completes with the right bytes. */
typedef struct shared_arg {
    ncf_pool *pool;
    const ncf_chain *chain;
    const unsigned char *data;
    int bad;
} shared_arg;

static void *
shared_caller(void *v)
{
    shared_arg *a = v;
    enum { N = 9, CH = 20000 };
    int r;
    for (r = 0; r < 20 && !a->bad; r++) {
        tjob jobs[N];
        unsigned char back[N * CH];
        size_t i;
        memset(jobs, 0, sizeof(jobs));
        for (i = 0; i < N; i++) {
            jobs[i].src = a->data + i * CH;
            jobs[i].srclen = CH;
        }
        if (tjobs_encode(a->chain, a->pool, N, jobs))
            a->bad = 1;
        for (i = 0; i < N; i++) {
            jobs[i].src = jobs[i].out;
            jobs[i].srclen = jobs[i].outlen;
            jobs[i].mask = jobs[i].outmask;
            jobs[i].dst = back + i * CH;
            jobs[i].dstlen = CH;
        }
        if (!a->bad && (tjobs_decode(a->chain, a->pool, N, jobs) || memcmp(back, a->data, sizeof(back))))
            a->bad = 1;
        for (i = 0; i < N; i++)
            free(jobs[i].out);
    }
    return NULL;
}

static void
test_shared_pool(void)
{
    unsigned two = 2, lvl = 3;
    ncf_filter_spec s[2] = {{2, 0, 1, &two}, {32015, 0, 1, &lvl}};
    ncf_chain *c;
    ncf_pool *p;
    pthread_t th[4];
    shared_arg args[4];
    unsigned char *d = make_data(9 * 20000, 1, 21);
    int i;
    OK(ncf_chain_create(2, s, 2, &c));
    OK(ncf_pool_create(3, &p));
    for (i = 0; i < 4; i++) {
        args[i].pool = p;
        args[i].chain = c;
        args[i].data = d;
        args[i].bad = 0;
        pthread_create(&th[i], NULL, shared_caller, &args[i]);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(!args[i].bad, "caller %d on the shared pool", i);
    }
    ncf_pool_free(p);
    ncf_chain_free(c);
    free(d);
}

/* Zarr's gzip and crc32c are libfilter codecs: they run in chains (alone,
 * after and before other codecs), are found by name but are no HDF5
 * filter ids; gzip writes a gzip member zlib reads; crc32c appends the
 * CRC-32C little-endian; checksum and size errors are NC_EFILTER; the
 * size-unknown decode is bounded by its limit. */
static void
test_zarr_codecs(void)
{
    unsigned one = 1, three = 3, lvl[] = {0, 1, 6, 9};
    ncf_filter_spec s = {NCF_ID_GZIP, 0, 1, &one}, crc = {NCF_ID_CRC32C, 0, 0, NULL};
    ncf_filter_spec zc[2] = {{NCF_ID_ZSTD, 0, 1, &three}, {NCF_ID_CRC32C, 0, 0, NULL}};
    ncf_filter_spec gzc[3] = {{NCF_ID_GZIP, 0, 1, &one}, {NCF_ID_ZSTD, 0, 1, &three}, {NCF_ID_CRC32C, 0, 0, NULL}};
    ncf_filter_spec fc[2] = {{NCF_ID_FLETCHER32, 0, 0, NULL}, {NCF_ID_GZIP, 0, 1, &one}};
    const ncf_codec *c;
    ncf_chain *ch;
    unsigned char *d = make_data(NBIG, 1, 7), back[64];
    void *enc = NULL, *dec = NULL;
    size_t enclen = 0, declen = 0, i;
    char name[32];
    for (i = 0; i < 4; i++) {
        s.params = &lvl[i];
        snprintf(name, sizeof(name), "gzip %u", lvl[i]);
        all_sizes(name, 1, &s);
    }
    s.params = &one;
    all_sizes("crc32c", 1, &crc);
    all_sizes("zstd+crc32c", 2, zc);
    all_sizes("gzip+zstd+crc32c", 3, gzc);
    all_sizes("fletcher32+gzip", 2, fc);
    CHECK(ncf_crc32c("123456789", 9) == 0xE3069283u, "crc32c check value");
    EXPECT(ncf_codec_find(NCF_ID_GZIP, &c), NC_ENOFILTER);
    EXPECT(ncf_filter_avail(NCF_ID_CRC32C), NC_ENOFILTER);
    OK(ncf_codec_find_name("gzip", &c));
    CHECK(c->id == NCF_ID_GZIP && c->builtin, "gzip by name");
    OK(ncf_codec_find_name("crc32c", &c));
    CHECK(c->id == NCF_ID_CRC32C, "crc32c by name");
    /* gzip: a gzip member zlib's inflate reads back. */
    OK(ncf_chain_create(1, &s, 4, &ch));
    OK(ncf_chain_encode(ch, d, NBIG, &enc, &enclen, NULL));
    {
        const unsigned char *e = enc;
        unsigned char *z = malloc(NBIG);
        z_stream zs;
        memset(&zs, 0, sizeof(zs));
        CHECK(enclen > 18 && e[0] == 0x1f && e[1] == 0x8b && e[2] == 8, "gzip header");
        OK(inflateInit2(&zs, 16 + 15) == Z_OK ? NC_NOERR : NC_EFILTER);
        zs.next_in = (unsigned char *)enc;
        zs.avail_in = (uInt)enclen;
        zs.next_out = z;
        zs.avail_out = NBIG;
        CHECK(inflate(&zs, Z_FINISH) == Z_STREAM_END && zs.total_out == NBIG && memcmp(z, d, NBIG) == 0,
              "zlib reads our gzip");
        inflateEnd(&zs);
        free(z);
    }
    /* Size unknown: decoded under a limit, refused over it. */
    OK(ncf_chain_decode_alloc(ch, 0, enc, enclen, NBIG, &dec, &declen));
    CHECK(declen == NBIG && memcmp(dec, d, NBIG) == 0, "gzip decode_alloc");
    free(dec);
    dec = NULL;
    EXPECT(ncf_chain_decode_alloc(ch, 0, enc, enclen, NBIG / 2, &dec, &declen), NC_EFILTER);
    CHECK(dec == NULL, "nothing returned over the limit");
    ((unsigned char *)enc)[enclen - 8] ^= 1; /* gzip's own CRC-32 */
    EXPECT(ncf_chain_decode(ch, 0, enc, enclen, d, NBIG), NC_EFILTER);
    free(enc);
    ncf_chain_free(ch);
    /* crc32c: the trailer, checked. */
    OK(ncf_chain_create(1, &crc, 1, &ch));
    OK(ncf_chain_encode(ch, "123456789", 9, &enc, &enclen, NULL));
    CHECK(enclen == 13 && memcmp((char *)enc + 9, "\x83\x92\x06\xe3", 4) == 0, "crc32c trailer");
    OK(ncf_chain_decode(ch, 0, enc, enclen, back, 9));
    OK(ncf_chain_decode_alloc(ch, 0, enc, enclen, 100, &dec, &declen));
    CHECK(declen == 9 && memcmp(dec, "123456789", 9) == 0, "crc32c decode_alloc");
    free(dec);
    ((unsigned char *)enc)[3] ^= 0x40;
    EXPECT(ncf_chain_decode(ch, 0, enc, enclen, back, 9), NC_EFILTER);
    EXPECT(ncf_chain_decode_alloc(ch, 0, enc, enclen, 100, &dec, &declen), NC_EFILTER);
    EXPECT(ncf_chain_decode(ch, 0, enc, 3, back, 0), NC_EFILTER);
    free(enc);
    ncf_chain_free(ch);
    free(d);
}

/* The per-thread scratch: grow-only, slack kept, slots apart. */
static void
test_scratch(void)
{
    unsigned char *a = ncf_scratch_get(NCF_SCRATCH_ENGINE, 100, 50), *b;
    CHECK(a != NULL, "scratch");
    memset(a, 1, 150);
    CHECK(ncf_scratch_get(NCF_SCRATCH_ENGINE, 140, 0) == a, "the slack is kept");
    b = ncf_scratch_get(NCF_SCRATCH_ENGINE + 1, 10, 0);
    CHECK(b != NULL && b != a, "slots apart");
    CHECK(ncf_scratch_get(NCF_SCRATCH_HDF5, 0, 0) != NULL, "an empty request still gets a buffer");
    CHECK(ncf_scratch_get(NCF_SCRATCH_NSLOTS, 10, 0) == NULL && ncf_scratch_get(-1, 10, 0) == NULL,
          "bad slots refused");
}

static void
test_registry(void)
{
    const ncf_codec *c;
    unsigned ids[] = {1, 2, 3, 4, 307, 32001, 32015};
    const char *names[] = {"zlib", "shuffle", "fletcher32", "szip", "bz2", "blosc", "zstd"};
    size_t i;
    for (i = 0; i < 7; i++) {
        OK(ncf_codec_find(ids[i], &c));
        CHECK(c->builtin && strcmp(c->codec, names[i]) == 0, "codec name of %u", ids[i]);
        OK(ncf_codec_find_name(names[i], &c));
        CHECK(c->id == ids[i], "id of %s", names[i]);
    }
    EXPECT(ncf_codec_find(65000, &c), NC_ENOFILTER);
    EXPECT(ncf_codec_find_name("nosuchcodec", &c), NC_ENOFILTER);
    {
        ncf_filter_spec s = {65000, 0, 0, NULL};
        ncf_chain *ch = (ncf_chain *)1;
        EXPECT(ncf_chain_create(1, &s, 4, &ch), NC_ENOFILTER);
        CHECK(ch == NULL, "no chain on error");
    }
}

/* Quantize: specials untouched, errors for bad arguments, and known
 * values (the reference's results, see tst_quantize.py for the full
 * comparison). */
static void
test_quantize(void)
{
    float f[8] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, NC_FILL_FLOAT, 1.2345f, 3.1f};
    float fc[8];
    double d[4] = {NAN, -INFINITY, -0.0, 1.0 / 3.0};
    float myfill = 1.2345f;
    int mode, nsd;
    for (mode = 1; mode <= 3; mode++)
        for (nsd = 1; nsd <= (mode == 3 ? 23 : 6); nsd++) {
            memcpy(fc, f, sizeof(f));
            OK(ncf_quantize_float(mode, nsd, NULL, fc, 8));
            CHECK(memcmp(fc, f, 6 * sizeof(float)) == 0, "float specials untouched mode %d nsd %d", mode, nsd);
        }
    memcpy(fc, f, sizeof(f));
    OK(ncf_quantize_float(NC_QUANTIZE_GRANULARBR, 3, NULL, fc, 8));
    CHECK(fc[6] == 1.234375f && fc[7] == 3.1015625f, "GranularBR 3 digits: %.9g %.9g", fc[6], fc[7]);
    memcpy(fc, f, sizeof(f));
    OK(ncf_quantize_float(NC_QUANTIZE_BITROUND, 3, &myfill, fc, 8));
    CHECK(fc[6] == 1.2345f, "own fill value untouched");
    memcpy(fc, f, sizeof(f));
    OK(ncf_quantize_float(NC_QUANTIZE_BITROUND, 23, NULL, fc, 8));
    CHECK(memcmp(fc, f, sizeof(f)) == 0, "BitRound 23 bits keeps everything");
    EXPECT(ncf_quantize_float(NC_QUANTIZE_BITGROOM, 7, NULL, fc, 8), NC_EINVAL);
    EXPECT(ncf_quantize_float(NC_QUANTIZE_BITGROOM, 0, NULL, fc, 8), NC_EINVAL);
    EXPECT(ncf_quantize_float(NC_QUANTIZE_BITROUND, 24, NULL, fc, 8), NC_EINVAL);
    EXPECT(ncf_quantize_float(9, 3, NULL, fc, 8), NC_EINVAL);
    OK(ncf_quantize_float(NC_NOQUANTIZE, 0, NULL, fc, 8));
    OK(ncf_quantize_double(NC_QUANTIZE_BITGROOM, 15, NULL, d, 4));
    CHECK(isnan(d[0]) && d[1] == -INFINITY && d[2] == 0.0 && signbit(d[2]), "double specials");
    EXPECT(ncf_quantize_double(NC_QUANTIZE_GRANULARBR, 16, NULL, d, 4), NC_EINVAL);
    EXPECT(ncf_quantize_double(NC_QUANTIZE_BITROUND, 53, NULL, d, 4), NC_EINVAL);
    OK(ncf_quantize_double(NC_QUANTIZE_BITROUND, 52, NULL, d, 4));
    CHECK(d[3] == 1.0 / 3.0, "BitRound 52 keeps doubles");
}

int
main(void)
{
    test_quantize();
    test_fletcher();
    test_registry();
    test_singles();
    test_chains();
    test_optional();
    test_zlib_compat();
    test_level1_zlib();
    test_corrupt();
    test_pool();
    test_shared_pool();
    test_zarr_codecs();
    test_scratch();
    ncf_finalize();
    return nct_summary("tst_codecs");
}
