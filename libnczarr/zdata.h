/* zdata.h: the data path's own calls: codec pipes, shards; the chunk
 * engine (libchunk/) does the rest.  The calls the metadata side makes into
 * the data path are in zinternal.h. */
#ifndef ZDATA_H
#define ZDATA_H

#include <stddef.h>
#include <stdint.h>
#include "zinternal.h"
#include "ncchunk.h"

/* ---- zcodecs_pipe.c: run a codec list on one chunk ------------------------- */

typedef struct ncz_pipe ncz_pipe;
/* codecs: the bytes->bytes codecs in order of application on write;
 * typesize: bytes per element; swap: the stored byte order is not the
 * machine's (applied to 2/4/8-byte elements); rank/shape/perm: the chunk's
 * shape and a transpose order (NULL: none; v2 order F is the reversed
 * axes).  vlen: the chunk holds one char * per element (NULL: the empty
 * string), stored with the vlen-utf8 codec (u32 count, then u32 length +
 * bytes per item); decode allocates the strings (the caller owns them),
 * encode reads them.  typesize then only parametrises the byte codecs.
 * NC_ENOFILTER if some codec cannot run here. */
int ncz_pipe_create(const NCZ_codec_spec *codecs, size_t n, size_t typesize, int swap, int vlen, int rank,
                    const size_t *shape, const int *perm, ncz_pipe **pp);
void ncz_pipe_free(ncz_pipe *p);
/* 1 when the chunk holds char * strings (vlen-utf8). */
int ncz_pipe_is_vlen(const ncz_pipe *p);
/* 1 when stored bytes are the chunk as it is in memory (no codec at all). */
int ncz_pipe_is_raw(const ncz_pipe *p);
/* Stored bytes -> the chunk in C order, exactly dstlen bytes (NC_EFILTER
 * otherwise, or on corrupt data / checksum mismatch).  Thread-safe. */
int ncz_pipe_decode(const ncz_pipe *p, const void *src, size_t srclen, void *dst, size_t dstlen);
/* The chunk -> stored bytes (*outp malloc'ed).  Thread-safe. */
int ncz_pipe_encode(const ncz_pipe *p, const void *src, size_t srclen, void **outp, size_t *outlenp);

/* ---- zshard.c: sharding_indexed ----------------------------------------------- */

#define NCZ_SHARD_EMPTY UINT64_MAX

typedef struct ncz_shard {
    int rank;
    size_t shape[NC_MAX_VAR_DIMS];   /* the shard (outer chunk) shape */
    size_t inner[NC_MAX_VAR_DIMS];   /* the inner chunk shape */
    size_t nper[NC_MAX_VAR_DIMS];    /* inner chunks per shard along each axis */
    size_t ninner;                   /* inner chunks per shard */
    size_t typesize;
    int at_start;                    /* index_location "start" */
    int crc;                         /* index_codecs end with crc32c */
    int vlen;                        /* elements are owned char * strings */
    const ncz_pipe *pipe;            /* the inner chunks' codecs (borrowed) */
} ncz_shard;

/* Geometry from shard/inner shapes: NC_ENCZARR when an inner chunk does not
 * divide the shard or the index would be absurd (> 2^26 inner chunks). */
int ncz_shard_init(ncz_shard *s, int rank, const size_t *shape, const size_t *inner, size_t typesize,
                   int at_start, int crc, const ncz_pipe *pipe);
/* Bytes of the index (16 per inner chunk, + 4 with crc32c). */
size_t ncz_shard_index_size(const ncz_shard *s);
/* Decode the index bytes of a shard of shardlen bytes into pairs
 * (2*ninner: offset, nbytes); every non-empty entry is checked to lie in
 * the shard and outside the index.  NC_ENCZARR on a bad index or crc. */
int ncz_shard_index_decode(const ncz_shard *s, const void *idx, size_t idxlen, uint64_t shardlen,
                           uint64_t *pairs);
/* Decode a whole shard (len bytes) into dst (the shard's elements, C
 * order); inner chunks absent from the index get fill (typesize bytes;
 * strings: a char * whose copies are made).  Strings: on error dst holds
 * no string (all NULL).
 * Inner chunks decode in parallel on pool (NULL: serially). */
int ncz_shard_decode(const ncz_shard *s, const void *shard, size_t len, void *dst, const void *fill,
                     void *pool);
/* Encode a shard from src (the shard's elements): inner chunks equal to
 * fill everywhere are left out (fill NULL: none left out).  *outp NULL and
 * *outlenp 0 when every inner chunk was left out (write nothing). */
int ncz_shard_encode(const ncz_shard *s, const void *src, const void *fill, void *pool, void **outp,
                     size_t *outlenp);
/* As ncz_shard_encode_mixed, but the shard goes out in pieces through put
 * (offset, bytes) as its inner chunks are encoded: each inner chunk in
 * index order as soon as those before it have gone, then the index; it is
 * never whole in memory.  put runs on one thread at a time.  *anyp 0 when
 * every inner chunk was left out (nothing was put). */
typedef int (*ncz_shard_put_fn)(void *arg, uint64_t off, const void *buf, size_t n);
int ncz_shard_encode_to(const ncz_shard *s, const void *src, const unsigned char *valid, const void *old,
                        const uint64_t *oldpairs, const void *fill, void *pool, ncz_shard_put_fn put, void *putarg,
                        int *anyp);
/* Writes by inner chunk: src holds only the inner chunks i with valid[i];
 * the others keep their encoded bytes from the stored shard old (index
 * oldpairs, as ncz_shard_index_decode gives; old NULL: they are absent),
 * never decoded.  Otherwise as ncz_shard_encode. */
int ncz_shard_encode_mixed(const ncz_shard *s, const void *src, const unsigned char *valid, const void *old,
                           const uint64_t *oldpairs, const void *fill, void *pool, void **outp,
                           size_t *outlenp);
/* Decode inner chunk i of a stored shard (index pairs; NULL: absent) into
 * its place in dst (the shard's elements); absent: fill. */
int ncz_shard_decode_one(const ncz_shard *s, const void *shard, const uint64_t *pairs, size_t i, void *dst,
                         const void *fill);

/* ---- the chunk engine's copies, strings and scratch (libchunk/ncchunk.h),
 * under the names zshard.c and zcodecs_pipe.c use ------------------------------ */

static inline void
ncz_copy_strided(int rank, size_t esize, const size_t *count, const void *src, const size_t *sstr, void *dst,
                 const size_t *dstr)
{
    ncc_copy_strided(rank, esize, count, src, sstr, dst, dstr);
}
static inline int
ncz_all_fill(const void *buf, size_t n, size_t esize, const void *fill)
{
    return ncc_all_fill(buf, n, esize, fill);
}
static inline void
ncz_strings_free(char **v, size_t n)
{
    ncc_strings_free(v, n);
}
static inline int
ncz_strings_copy_strided(int rank, const size_t *count, char *const *src, const size_t *sstr, char **dst,
                         const size_t *dstr)
{
    return ncc_strings_copy_strided(rank, count, src, sstr, dst, dstr);
}
static inline int
ncz_strings_all_fill(char *const *v, size_t n, const char *fill)
{
    return ncc_strings_all_fill(v, n, fill);
}
static inline int
ncz_strings_fill(char **v, size_t n, const char *fill)
{
    return ncc_strings_fill(v, n, fill);
}
/* Slot 2 (NCC_SCRATCH_INNER): an inner chunk of a shard (zshard.c). */
static inline unsigned char *
ncz_scratch(int which, size_t n)
{
    return ncc_scratch(which, n);
}

#endif
