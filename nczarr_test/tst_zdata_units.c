/* tst_zdata_units.c: white-box tests of the Zarr data path's parts:
 * CRC-32C (libfilter's, as Zarr uses it), chunk keys, strided copies, codec pipes (every codec, chains,
 * byte order, transpose) and shards (index at start/end, crc32c, empty
 * inner chunks, and hostile shards: truncated, bad crc, out-of-range
 * entries give clean errors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nctst.h"
#include "zdata.h"
#include "zchunk.h"
#include "ncfilter.h"
#include "ncbyteorder.h"

static void
test_crc(void)
{
    CHECK(ncf_crc32c("123456789", 9) == 0xE3069283u, "crc32c check value");
    CHECK(ncf_crc32c("", 0) == 0, "crc32c empty");
    /* Slice-by-8 and the byte loop agree on every split. */
    unsigned char buf[100];
    for (int i = 0; i < 100; i++)
        buf[i] = (unsigned char)(i * 37 + 11);
    CHECK(ncf_crc32c(buf, 100) != ncf_crc32c(buf, 99), "crc32c depends on the last byte");
    /* 32 zero bytes: RFC 3720 B.4 vector. */
    memset(buf, 0, 32);
    CHECK(ncf_crc32c(buf, 32) == 0x8A9136AAu, "crc32c 32 zeros");
    memset(buf, 0xff, 32);
    CHECK(ncf_crc32c(buf, 32) == 0x62A8AB43u, "crc32c 32 0xff");
}

static void
test_keys(void)
{
    ncz_keyenc e;
    char k[256];
    uint64_t idx[3] = {1, 22, 333};
    OK(ncz_keyenc_v2(NULL, &e));
    OK(ncz_chunk_key(&e, "/g/v", 3, idx, k, sizeof(k)));
    CHECK(strcmp(k, "/g/v/1.22.333") == 0, "v2 key %s", k);
    OK(ncz_keyenc_v2("/", &e));
    OK(ncz_chunk_key(&e, "/v", 3, idx, k, sizeof(k)));
    CHECK(strcmp(k, "/v/1/22/333") == 0, "v2 / key %s", k);
    OK(ncz_chunk_key(&e, "/v", 0, idx, k, sizeof(k)));
    CHECK(strcmp(k, "/v/0") == 0, "v2 scalar key %s", k);
    EXPECT(ncz_keyenc_v2("x", &e), NC_EINVAL);
    OK(ncz_keyenc_v3(NULL, &e));
    OK(ncz_chunk_key(&e, "/v", 3, idx, k, sizeof(k)));
    CHECK(strcmp(k, "/v/c/1/22/333") == 0, "v3 key %s", k);
    OK(ncz_chunk_key(&e, "/v", 0, idx, k, sizeof(k)));
    CHECK(strcmp(k, "/v/c") == 0, "v3 scalar key %s", k);
    OK(ncz_chunk_key(&e, "", 1, idx, k, sizeof(k)));
    CHECK(strcmp(k, "/c/1") == 0, "v3 root array key %s", k);
    {
        json_object *j = json_tokener_parse("{\"name\":\"default\",\"configuration\":{\"separator\":\".\"}}");
        OK(ncz_keyenc_v3(j, &e));
        OK(ncz_chunk_key(&e, "/v", 2, idx, k, sizeof(k)));
        CHECK(strcmp(k, "/v/c.1.22") == 0, "v3 . key %s", k);
        json_object_put(j);
        j = json_tokener_parse("{\"name\":\"v2\"}");
        OK(ncz_keyenc_v3(j, &e));
        OK(ncz_chunk_key(&e, "/v", 2, idx, k, sizeof(k)));
        CHECK(strcmp(k, "/v/1.22") == 0, "v3 v2-encoding key %s", k);
        OK(ncz_chunk_key(&e, "/v", 0, idx, k, sizeof(k)));
        CHECK(strcmp(k, "/v/0") == 0, "v3 v2-encoding scalar key %s", k);
        json_object_put(j);
        j = json_tokener_parse("{\"name\":\"bogus\"}");
        EXPECT(ncz_keyenc_v3(j, &e), NC_EINVAL);
        json_object_put(j);
    }
    EXPECT(ncz_chunk_key(&e, "/v", 3, idx, k, 6), NC_EINVAL);
}

static void
test_copy(void)
{
    int src[4][5], dst[2][3];
    size_t count[2] = {2, 3}, sstr[2] = {10, 2}, dstr[2] = {3, 1};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            src[i][j] = i * 10 + j;
    /* rows 0 and 2, columns 0, 2, 4 */
    ncz_copy_strided(2, sizeof(int), count, &src[0][0], sstr, &dst[0][0], dstr);
    CHECK(dst[0][0] == 0 && dst[0][1] == 2 && dst[0][2] == 4 && dst[1][0] == 20 && dst[1][2] == 24,
          "strided copy");
    int fillv = 7, arr[5] = {7, 7, 7, 7, 7};
    CHECK(ncz_all_fill(arr, 5, sizeof(int), &fillv), "all fill");
    arr[4] = 8;
    CHECK(!ncz_all_fill(arr, 5, sizeof(int), &fillv), "not all fill");
}

/* A codec spec by hand (the metadata part builds them from JSON). */
static NCZ_codec_spec
spec(const char *name, unsigned id, size_t np, const unsigned *p)
{
    NCZ_codec_spec s;
    memset(&s, 0, sizeof(s));
    s.name = (char *)name;
    s.hdf5id = id;
    s.nparams = np;
    s.params = (unsigned *)p;
    return s;
}

static const unsigned lvl1[] = {1}, lvl9[] = {9}, size4[] = {4}, lvl3[] = {3};
static const unsigned blosc_lz4[] = {0, 0, 4, 0, 5, 1, 1};

static void
roundtrip(const char *what, NCZ_codec_spec *c, size_t n, int swap, int rank, const size_t *shape,
          const int *perm)
{
    ncz_pipe *p = NULL;
    size_t nel = 1, len;
    float *a, *b;
    void *enc = NULL;
    size_t enclen = 0;
    for (int d = 0; d < rank; d++)
        nel *= shape[d];
    len = nel * sizeof(float);
    a = malloc(len);
    b = malloc(len);
    for (size_t i = 0; i < nel; i++)
        a[i] = (float)(i % 97) * 0.5f;
    EXPECT(ncz_pipe_create(c, n, sizeof(float), swap, 0, rank, shape, perm, &p), NC_NOERR);
    if (p) {
        OK(ncz_pipe_encode(p, a, len, &enc, &enclen));
        OK(ncz_pipe_decode(p, enc, enclen, b, len));
        CHECK(memcmp(a, b, len) == 0, "%s round trip", what);
        /* A corrupt or truncated input is an error, never a crash. */
        if (enclen > 8 && n > 0) {
            int st = ncz_pipe_decode(p, enc, enclen / 2, b, len);
            CHECK(st != NC_NOERR, "%s truncated input rejected (%d)", what, st);
        }
        EXPECT(ncz_pipe_decode(p, enc, enclen, b, len - 4), NC_EFILTER);
        free(enc);
        ncz_pipe_free(p);
    }
    free(a);
    free(b);
}

static void
test_pipes(void)
{
    size_t shape2[2] = {13, 7}, shape3[3] = {3, 4, 5}, shape1[1] = {1000};
    int perm2[2] = {1, 0}, perm3[3] = {2, 0, 1};
    NCZ_codec_spec c[4];
    roundtrip("raw", c, 0, 0, 1, shape1, NULL);
    roundtrip("swap", c, 0, 1, 1, shape1, NULL);
    c[0] = spec("zlib", 1, 1, lvl1);
    roundtrip("zlib", c, 1, 0, 1, shape1, NULL);
    c[0] = spec("shuffle", 2, 1, size4);
    c[1] = spec("zlib", 1, 1, lvl9);
    roundtrip("shuffle+zlib", c, 2, 0, 2, shape2, NULL);
    c[0] = spec("zstd", 32015, 1, lvl3);
    roundtrip("zstd", c, 1, 0, 1, shape1, NULL);
    c[0] = spec("bz2", 307, 1, lvl9);
    roundtrip("bz2", c, 1, 0, 1, shape1, NULL);
    c[0] = spec("blosc", 32001, 7, blosc_lz4);
    roundtrip("blosc", c, 1, 1, 1, shape1, NULL);
    c[0] = spec("gzip", 1, 1, lvl1);
    roundtrip("gzip", c, 1, 0, 2, shape2, perm2);
    c[0] = spec("crc32c", 0, 0, NULL);
    roundtrip("crc32c", c, 1, 0, 3, shape3, perm3);
    c[0] = spec("zstd", 32015, 1, lvl3);
    c[1] = spec("crc32c", 0, 0, NULL);
    roundtrip("zstd+crc32c", c, 2, 1, 3, shape3, perm3);
    c[0] = spec("gzip", 1, 1, lvl1);
    c[1] = spec("zstd", 32015, 1, lvl3);
    c[2] = spec("crc32c", 0, 0, NULL);
    roundtrip("gzip+zstd+crc32c", c, 3, 0, 1, shape1, NULL);
    c[0] = spec("fletcher32", 3, 0, NULL);
    roundtrip("fletcher32", c, 1, 0, 1, shape1, NULL);
    /* Transpose layout: the encoded bytes are the transposed array. */
    {
        ncz_pipe *p;
        int a[6] = {0, 1, 2, 3, 4, 5}, *t; /* 2x3 */
        size_t sh[2] = {2, 3}, tl;
        void *enc;
        OK(ncz_pipe_create(NULL, 0, sizeof(int), 0, 0, 2, sh, perm2, &p));
        OK(ncz_pipe_encode(p, a, sizeof(a), &enc, &tl));
        t = enc;
        CHECK(tl == sizeof(a) && t[0] == 0 && t[1] == 3 && t[2] == 1 && t[3] == 4 && t[4] == 2 && t[5] == 5,
              "transpose layout");
        free(enc);
        ncz_pipe_free(p);
    }
    /* Unknown codec: NC_ENOFILTER at create, never raw bytes. */
    {
        ncz_pipe *p = NULL;
        c[0] = spec("lzma", 0, 0, NULL);
        EXPECT(ncz_pipe_create(c, 1, 4, 0, 0, 1, shape1, NULL, &p), NC_ENOFILTER);
        CHECK(p == NULL, "no pipe for an unknown codec");
        c[0] = spec("mystery", 54321, 0, NULL);
        EXPECT(ncz_pipe_create(c, 1, 4, 0, 0, 1, shape1, NULL, &p), NC_ENOFILTER);
    }
    /* vlen-utf8 strings (a char * per element, NULL: ""), through zstd. */
    {
        ncz_pipe *p;
        char *strs[4] = {"abc", NULL, "123456789012", "x"}, *back[4];
        void *enc;
        size_t el;
        const unsigned char *e;
        c[0] = spec("zstd", 32015, 1, lvl3);
        OK(ncz_pipe_create(c, 0, 8, 0, 1, 1, (size_t[]){4}, NULL, &p));
        CHECK(ncz_pipe_is_vlen(p) && !ncz_pipe_is_raw(p), "vlen pipe");
        OK(ncz_pipe_encode(p, strs, sizeof(strs), &enc, &el));
        e = enc;
        CHECK(el == 4 + 4 * 4 + 3 + 0 + 12 + 1 && e[0] == 4 && e[4] == 3 && e[8] == 'a', "vlen-utf8 layout");
        OK(ncz_pipe_decode(p, enc, el, back, sizeof(back)));
        CHECK(back[0] && strcmp(back[0], "abc") == 0 && back[1] == NULL && back[2] &&
                  strcmp(back[2], "123456789012") == 0 && back[3] && strcmp(back[3], "x") == 0,
              "vlen-utf8 round trip, uncut");
        ncz_strings_free(back, 4);
        ((unsigned char *)enc)[4] = 200; /* a length past the end */
        memset(back, 1, sizeof(back));
        EXPECT(ncz_pipe_decode(p, enc, el, back, sizeof(back)), NC_EFILTER);
        CHECK(back[0] == NULL && back[3] == NULL, "nothing left after a bad length");
        ((unsigned char *)enc)[4] = 3;
        EXPECT(ncz_pipe_decode(p, enc, el - 1, back, sizeof(back)), NC_EFILTER); /* cut short */
        free(enc);
        ncz_pipe_free(p);
        OK(ncz_pipe_create(c, 1, 8, 0, 1, 1, (size_t[]){4}, NULL, &p));
        OK(ncz_pipe_encode(p, strs, sizeof(strs), &enc, &el));
        memset(back, 0, sizeof(back));
        OK(ncz_pipe_decode(p, enc, el, back, sizeof(back)));
        CHECK(back[2] && strcmp(back[2], strs[2]) == 0 && back[1] == NULL, "vlen-utf8+zstd round trip");
        ncz_strings_free(back, 4);
        free(enc);
        ncz_pipe_free(p);
    }
    /* String helpers: strided copies replace and copy, fill checks. */
    {
        char *src[6] = {"a", "bb", NULL, "", "ccc", "d"}, *dst[6] = {0};
        size_t cnt[2] = {2, 2}, sst[2] = {3, 2}, dstr[2] = {2, 1};
        OK(ncz_strings_copy_strided(2, cnt, src, sst, dst, dstr)); /* 0,2,3,5 */
        CHECK(dst[0] && !strcmp(dst[0], "a") && dst[1] == NULL && dst[2] == NULL && dst[3] &&
                  !strcmp(dst[3], "d"),
              "strided string copy");
        OK(ncz_strings_copy_strided(2, cnt, src, sst, dst, dstr)); /* replaces, no leak */
        CHECK(ncz_strings_all_fill(src + 2, 2, NULL) && ncz_strings_all_fill(src + 2, 2, "") &&
                  !ncz_strings_all_fill(src + 1, 2, "") && ncz_strings_all_fill(src, 1, "a"),
              "string fill checks");
        ncz_strings_free(dst, 4);
        OK(ncz_strings_fill(dst, 3, "zz"));
        CHECK(dst[0] != dst[1] && !strcmp(dst[2], "zz"), "string fill copies");
        ncz_strings_free(dst, 3);
        OK(ncz_strings_fill(dst, 3, ""));
        CHECK(dst[0] == NULL && dst[2] == NULL, "empty fill is NULL");
    }
    /* Bad crc32c */
    {
        ncz_pipe *p;
        unsigned char raw[12] = {1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0}, out[8];
        c[0] = spec("crc32c", 0, 0, NULL);
        OK(ncz_pipe_create(c, 1, 1, 0, 0, 1, (size_t[]){8}, NULL, &p));
        EXPECT(ncz_pipe_decode(p, raw, 12, out, 8), NC_EFILTER);
        EXPECT(ncz_pipe_decode(p, raw, 3, out, 8), NC_EFILTER);
        ncz_pipe_free(p);
    }
}

/* A sink for ncz_shard_encode_to: pieces land at their offsets in buf;
 * put number fail_at (1-based; 0: never) fails. */
typedef struct psink {
    unsigned char buf[4096];
    size_t end;
    int nput, fail_at;
} psink;

static int
psink_put(void *arg, uint64_t off, const void *b, size_t n)
{
    psink *k = arg;
    if (++k->nput == k->fail_at)
        return NC_EIO;
    if (off + n > sizeof(k->buf))
        return NC_EINVAL;
    memcpy(k->buf + off, b, n);
    if (off + n > k->end)
        k->end = (size_t)(off + n);
    return NC_NOERR;
}

/* The streamed shard is the assembled one, byte for byte; a failing sink
 * is an error; an all-fill shard puts nothing. */
static void
check_stream(const ncz_shard *s, const short *a, const short *fill, const void *out, size_t outlen)
{
    psink k;
    int any = -1;
    memset(&k, 0, sizeof(k));
    OK(ncz_shard_encode_to(s, a, NULL, NULL, NULL, fill, ncf_pool_default(), psink_put, &k, &any));
    if (out == NULL) {
        CHECK(any == 0 && k.nput == 0, "all-fill shard streams nothing (any %d, %d puts)", any, k.nput);
        return;
    }
    CHECK(any == 1 && k.end == outlen && memcmp(k.buf, out, outlen) == 0, "streamed shard = assembled (%zu, %zu)",
          k.end, outlen);
    for (int f = 1; f <= k.nput; f++) {
        psink bad;
        memset(&bad, 0, sizeof(bad));
        bad.fail_at = f;
        EXPECT(ncz_shard_encode_to(s, a, NULL, NULL, NULL, fill, ncf_pool_default(), psink_put, &bad, &any), NC_EIO);
    }
}

static void
test_shards(void)
{
    size_t shape[2] = {8, 6}, inner[2] = {4, 3};
    short a[48], b[48], fill = -1;
    NCZ_codec_spec c[1];
    for (int at_start = 0; at_start <= 1; at_start++)
        for (int crc = 0; crc <= 1; crc++)
            for (int zstd = 0; zstd <= 1; zstd++) {
                ncz_pipe *p;
                ncz_shard s;
                void *out;
                size_t outlen;
                c[0] = spec("zstd", 32015, 1, lvl3);
                OK(ncz_pipe_create(c, (size_t)zstd, sizeof(short), 0, 0, 2, inner, NULL, &p));
                OK(ncz_shard_init(&s, 2, shape, inner, sizeof(short), at_start, crc, p));
                CHECK(s.ninner == 4, "4 inner chunks");
                for (int i = 0; i < 48; i++)
                    a[i] = (short)i;
                /* Inner chunk (0,1) (rows 0-3, cols 3-5) all fill: left out. */
                for (int i = 0; i < 4; i++)
                    for (int j = 3; j < 6; j++)
                        a[i * 6 + j] = fill;
                OK(ncz_shard_encode(&s, a, &fill, NULL, &out, &outlen));
                CHECK(out != NULL, "shard made");
                check_stream(&s, a, &fill, out, outlen);
                {
                    /* Inner chunks 0 and 2 rewritten, 1 and 3 kept as stored:
                     * streamed and assembled agree, and decode to the mix. */
                    uint64_t pairs[8];
                    unsigned char valid[4] = {1, 0, 1, 0};
                    short a2[48], mix[48];
                    void *out2 = NULL;
                    size_t out2len = 0;
                    psink k;
                    int any = 0;
                    const unsigned char *ix =
                        (const unsigned char *)out + (at_start ? 0 : outlen - ncz_shard_index_size(&s));
                    OK(ncz_shard_index_decode(&s, ix, ncz_shard_index_size(&s), outlen, pairs));
                    for (int i = 0; i < 48; i++)
                        a2[i] = (short)(1000 + i);
                    OK(ncz_shard_encode_mixed(&s, a2, valid, out, pairs, &fill, NULL, &out2, &out2len));
                    memset(&k, 0, sizeof(k));
                    OK(ncz_shard_encode_to(&s, a2, valid, out, pairs, &fill, ncf_pool_default(), psink_put, &k, &any));
                    CHECK(out2 != NULL && any == 1 && k.end == out2len && memcmp(k.buf, out2, out2len) == 0,
                          "mixed shard: streamed = assembled");
                    OK(ncz_shard_decode(&s, out2, out2len, mix, &fill, NULL));
                    for (int i = 0; i < 48; i++) {
                        int r = i / 6, col = i % 6, inner_i = (r / 4) * 2 + col / 3;
                        if (mix[i] != (valid[inner_i] ? a2[i] : a[i])) {
                            CHECK(0, "mixed shard element %d: %d", i, mix[i]);
                            break;
                        }
                    }
                    free(out2);
                }
                {
                    uint64_t pairs[8];
                    const unsigned char *ix = (const unsigned char *)out + (at_start ? 0 : outlen - ncz_shard_index_size(&s));
                    OK(ncz_shard_index_decode(&s, ix, ncz_shard_index_size(&s), outlen, pairs));
                    CHECK(pairs[2] == NCZ_SHARD_EMPTY && pairs[3] == NCZ_SHARD_EMPTY, "empty inner chunk");
                    if (!zstd)
                        CHECK(pairs[1] == 4 * 3 * sizeof(short), "raw inner size");
                }
                memset(b, 0, sizeof(b));
                OK(ncz_shard_decode(&s, out, outlen, b, &fill, ncf_pool_default()));
                CHECK(memcmp(a, b, sizeof(a)) == 0, "shard round trip start=%d crc=%d zstd=%d", at_start, crc, zstd);
                /* Hostile: truncated shard, flipped index bytes. */
                for (size_t cut = 0; cut < outlen; cut += 7) {
                    int st = ncz_shard_decode(&s, out, cut, b, &fill, NULL);
                    CHECK(st != NC_NOERR || cut == outlen, "truncated shard %zu rejected", cut);
                }
                {
                    unsigned char *bad = malloc(outlen);
                    size_t isz = ncz_shard_index_size(&s), ioff = at_start ? 0 : outlen - isz;
                    memcpy(bad, out, outlen);
                    bad[ioff + 5] ^= 0x40; /* offset of entry 0 far away */
                    int st = ncz_shard_decode(&s, bad, outlen, b, &fill, NULL);
                    CHECK(st != NC_NOERR, "corrupt index rejected (%d)", st);
                    memcpy(bad, out, outlen);
                    /* nbytes of entry 0 huge */
                    memset(bad + ioff + 8, 0x7f, 8);
                    if (crc)
                        nc_put_le32(bad + ioff + isz - 4, ncf_crc32c(bad + ioff, isz - 4));
                    EXPECT(ncz_shard_decode(&s, bad, outlen, b, &fill, NULL), NC_ENCZARR);
                    free(bad);
                }
                free(out);
                /* All fill: nothing to write. */
                for (int i = 0; i < 48; i++)
                    a[i] = fill;
                OK(ncz_shard_encode(&s, a, &fill, NULL, &out, &outlen));
                CHECK(out == NULL && outlen == 0, "all-fill shard not written");
                check_stream(&s, a, &fill, NULL, 0);
                ncz_pipe_free(p);
            }
    {
        ncz_shard s;
        size_t sh[1] = {10}, in[1] = {3};
        EXPECT(ncz_shard_init(&s, 1, sh, in, 2, 0, 0, NULL), NC_ENCZARR);
        sh[0] = (size_t)1 << 40;
        in[0] = 1;
        EXPECT(ncz_shard_init(&s, 1, sh, in, 2, 0, 0, NULL), NC_ENCZARR);
    }
}

/* A sharded string array: 6 strings, inner chunks of 2; the inner chunk
 * all equal to the fill string is left out and decodes as copies of it;
 * a truncated shard leaves no string behind. */
static void
test_string_shards(void)
{
    ncz_pipe *p;
    ncz_shard s;
    size_t sh[1] = {6}, in[1] = {2};
    char *a[6] = {"one", NULL, "F", "F", "a much longer string than the others", "z"}, *b[6];
    char *fillstr = "F";
    void *out = NULL;
    size_t outlen = 0;
    OK(ncz_pipe_create(NULL, 0, 8, 0, 1, 1, in, NULL, &p));
    OK(ncz_shard_init(&s, 1, sh, in, sizeof(char *), 0, 1, p));
    CHECK(s.vlen, "string shard");
    OK(ncz_shard_encode(&s, a, &fillstr, NULL, &out, &outlen));
    if (out != NULL) {
        uint64_t pairs[6];
        OK(ncz_shard_index_decode(&s, (unsigned char *)out + outlen - ncz_shard_index_size(&s),
                                  ncz_shard_index_size(&s), outlen, pairs));
        CHECK(pairs[2] == NCZ_SHARD_EMPTY && pairs[0] != NCZ_SHARD_EMPTY, "all-fill inner chunk left out");
        OK(ncz_shard_decode(&s, out, outlen, b, &fillstr, ncf_pool_default()));
        CHECK(!strcmp(b[0], "one") && b[1] == NULL && !strcmp(b[2], "F") && !strcmp(b[3], "F") &&
                  b[2] != fillstr && b[2] != b[3] && !strcmp(b[4], a[4]) && !strcmp(b[5], "z"),
              "string shard round trip");
        ncz_strings_free(b, 6);
        memset(b, 1, sizeof(b));
        CHECK(ncz_shard_decode(&s, out, outlen - 1, b, &fillstr, NULL) != NC_NOERR, "truncated string shard");
        CHECK(b[0] == NULL && b[5] == NULL, "no string left after a bad shard");
    } else
        CHECK(0, "string shard made");
    free(out);
    ncz_pipe_free(p);
}

int
main(void)
{
    test_crc();
    test_keys();
    test_copy();
    test_pipes();
    test_shards();
    test_string_shards();
    return nct_summary("tst_zdata_units");
}
