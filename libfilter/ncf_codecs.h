/* ncf_codecs.h: the built-in codecs of libfilter, one source file each;
 * private to libfilter (formats use ncfilter.h).
 *
 * Each is an HDF5 filter function (H5Z_func_t semantics: *buf holds nbytes,
 * *buf_size allocated; on success the output replaces *buf and its length
 * is returned; on failure 0 is returned and *buf is left as it was), plus,
 * direct forms (into a caller's buffer, no allocation) and an encode
 * bound, which the chain uses.  The same files are
 * compiled into the HDF5 plugins of plugins/; there NCF_H5MEM makes buffers
 * come from HDF5's allocator, as HDF5 requires of plugins.
 */
#ifndef NCF_CODECS_H
#define NCF_CODECS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "ncfilter.h"
#include "ncbyteorder.h"

#ifdef NCF_H5MEM
#include <hdf5.h>
#define ncf_malloc(n) H5allocate_memory((n), 0)
#define ncf_free(p) H5free_memory(p)
#else
#define ncf_malloc(n) malloc(n)
#define ncf_free(p) free(p)
#endif

#define NCF_REVERSE 0x0100u   /* H5Z_FLAG_REVERSE */
#define NCF_SKIP_EDC 0x0200u  /* H5Z_FLAG_SKIP_EDC */

#define NCF_FILTER_PROTO(name)                                                           \
    size_t name(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],    \
                size_t nbytes, size_t *buf_size, void **buf)
/* Direct forms, for the chain: decode (NCF_REVERSE in flags) or encode src
 * into dst of cap bytes; *outlen the bytes produced.  NC_EFILTER on bad
 * data or when the result does not fit in cap.  src and dst distinct. */
#define NCF_INTO_PROTO(name)                                                             \
    int name(unsigned flags, size_t nparams, const unsigned *params, const void *src,   \
             size_t srclen, void *dst, size_t cap, size_t *outlen)
/* Largest encoded size of srclen bytes. */
#define NCF_BOUND_PROTO(name) size_t name(size_t nparams, const unsigned *params, size_t srclen)

NCF_FILTER_PROTO(ncf_deflate_filter);
NCF_INTO_PROTO(ncf_deflate_into);
NCF_BOUND_PROTO(ncf_deflate_bound);
NCF_FILTER_PROTO(ncf_shuffle_filter);
NCF_INTO_PROTO(ncf_shuffle_into);
NCF_BOUND_PROTO(ncf_shuffle_bound);
NCF_FILTER_PROTO(ncf_fletcher32_filter);
NCF_INTO_PROTO(ncf_fletcher32_into);
NCF_BOUND_PROTO(ncf_fletcher32_bound);
NCF_FILTER_PROTO(ncf_szip_filter);
NCF_INTO_PROTO(ncf_szip_into);
NCF_BOUND_PROTO(ncf_szip_bound);
NCF_FILTER_PROTO(ncf_zstd_filter);
NCF_INTO_PROTO(ncf_zstd_into);
NCF_BOUND_PROTO(ncf_zstd_bound);
NCF_FILTER_PROTO(ncf_bzip2_filter);
NCF_INTO_PROTO(ncf_bzip2_into);
NCF_BOUND_PROTO(ncf_bzip2_bound);
NCF_FILTER_PROTO(ncf_blosc_filter);
NCF_INTO_PROTO(ncf_blosc_into);
NCF_BOUND_PROTO(ncf_blosc_bound);
NCF_FILTER_PROTO(ncf_gzip_filter);
NCF_INTO_PROTO(ncf_gzip_into);
NCF_BOUND_PROTO(ncf_gzip_bound);
NCF_FILTER_PROTO(ncf_crc32c_filter);
NCF_INTO_PROTO(ncf_crc32c_into);
NCF_BOUND_PROTO(ncf_crc32c_bound);
/* Decode by checking: the decoded bytes are the first *outlen of src
 * (checksum codecs drop their trailer); NC_EFILTER on a mismatch. */
#define NCF_VERIFY_PROTO(name)                                                         \
    int name(unsigned flags, size_t nparams, const unsigned *params, const void *src, \
             size_t srclen, size_t *outlen)
NCF_VERIFY_PROTO(ncf_fletcher32_verify);
NCF_VERIFY_PROTO(ncf_crc32c_verify);

/* Any codec by id, the name-only ones (NCF_ID_GZIP...) included; the
 * chain resolves its filters with it.  ncf_codec_find answers for HDF5
 * filter ids only. */
int ncf_codec_lookup(unsigned int id, const ncf_codec **codecp);

/* Per-thread codec state (ncf_scratch.c): this thread's zeroed object of
 * size bytes for slot, made on first use; release(obj) runs when the
 * thread exits (then obj is freed).  NULL on ENOMEM. */
enum { NCF_STATE_DEFLATE, NCF_STATE_ZSTD, NCF_STATE_NSLOTS };
void *ncf_scratch_state(int slot, size_t size, void (*release)(void *));

/* Largest output a decode step may allocate.  The chain sets it around
 * each decode (ncf_chain_decode: twice the chunk size plus 1 MiB, as no
 * step of a real pipeline needs more; ncf_chain_decode_alloc: its caller's
 * limit), so a tiny hostile frame cannot claim gigabytes; in the plugins
 * HDF5 sets no limit.  A thread-local because the H5Z signature has no
 * room for it; only libfilter's own files touch it. */
#ifdef NCF_H5MEM
static inline size_t
ncf_decode_limit(void)
{
    return (size_t)1 << 40;
}
#else
extern _Thread_local size_t ncf_decode_limit_tl;
static inline size_t
ncf_decode_limit(void)
{
    return ncf_decode_limit_tl ? ncf_decode_limit_tl : (size_t)1 << 40;
}
#endif

/* Replace *buf by out (outlen allocated); returns n.  Shared helper. */
static inline size_t
ncf_replace(void **buf, size_t *buf_size, void *out, size_t outlen, size_t n)
{
    ncf_free(*buf);
    *buf = out;
    *buf_size = outlen;
    return n;
}

#endif /* NCF_CODECS_H */
