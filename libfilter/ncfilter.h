/* ncfilter.h: the shared filter layer (libfilter/), the one header through
 * which libhdf5 and libnczarr use it (ncf_codecs.h is libfilter's own).  No
 * HDF5 header here or in libfilter: filters are HDF5-style (H5Z_class2_t,
 * through netcdf_filter_build.h), but HDF5 itself is never called.
 *
 * Parts:
 *   - ncf_pool      a thread pool: run N independent tasks, caller joins in.
 *   - registry      codec id <-> codec: built-in codecs (deflate via
 *                   libdeflate, shuffle, fletcher32, szip via libaec, zstd,
 *                   bzip2, blosc, and the Zarr-only gzip and crc32c) and
 *                   HDF5 filter plugins dlopen'ed from the plugin path
 *                   (nc_plugin_path_get) plus our installed plugin
 *                   directory (NCF_PLUGIN_DIR, compiled in).
 *   - ncf_chain     a codec pipeline on whole chunks: encode in order,
 *                   decode in reverse honouring HDF5's per-chunk filter mask
 *                   and H5Z_FLAG_OPTIONAL.
 *   - scratch       the library's per-thread grow-only buffers.
 *   - quantize      BitGroom, GranularBitRound, BitRound on float/double
 *                   arrays, as upstream's nc4_convert_type computes them.
 *
 * A format resolves a variable's filters once into a chain
 * (ncf_chain_create; NC_ENOFILTER: this process cannot run it; libhdf5 then
 * leaves the variable to HDF5's own pipeline) and runs its chunk tasks on
 * ncf_pool_default(): each task reads a raw chunk, decodes it with
 * ncf_chain_decode (straight into the caller's buffer when the chunk covers
 * it, else into scratch) and copies it out; writes encode whole chunks with
 * ncf_chain_encode.  Everything returns NC_* codes: NC_ENOFILTER (filter
 * missing), NC_EFILTER (a filter failed: corrupt data, checksum mismatch,
 * wrong decoded size).
 */
#ifndef NCFILTER_H
#define NCFILTER_H

#include <stddef.h>
#include <stdint.h>

/* ---- thread pool ----------------------------------------------------------- */

typedef struct ncf_pool ncf_pool;

/* One task: fn(arg, index) for index in [0, ntasks). */
typedef void (*ncf_task_fn)(void *arg, size_t index);

/* A pool that runs batches on nthreads threads in all: nthreads-1 workers
 * plus the calling thread, which always works on its own batch (so a batch
 * finishes even when the workers are busy with other callers' batches).
 * nthreads <= 0: ncf_default_threads(). */
int ncf_pool_create(int nthreads, ncf_pool **poolp);
/* Joins the workers; no batch may be running. */
void ncf_pool_free(ncf_pool *pool);
int ncf_pool_nthreads(const ncf_pool *pool);
/* Run fn(arg, i) for every i < ntasks; returns when all have returned.
 * Safe to call from several threads at once; no lock is held while fn
 * runs.  pool NULL: run serially in the caller. */
int ncf_pool_run(ncf_pool *pool, size_t ntasks, ncf_task_fn fn, void *arg);

/* Threads for the shared pool: environment NETCDF_FILTER_THREADS, else the
 * .ncrc key FILTER.THREADS, else the number of CPUs this process may use.
 * Values are clamped to 1..256. */
int ncf_default_threads(void);
/* The library's shared pool, created on first use with
 * ncf_default_threads() threads; NULL only if creation failed (callers
 * then run serially). */
ncf_pool *ncf_pool_default(void);

/* ---- codecs and registry ----------------------------------------------------- */

/* Codec ids: HDF5 filter ids (1..65535), and above them the codecs that
 * have none (Zarr's gzip and crc32c), which only a chain reaches. */
#define NCF_ID_DEFLATE 1u
#define NCF_ID_SHUFFLE 2u
#define NCF_ID_FLETCHER32 3u
#define NCF_ID_SZIP 4u
#define NCF_ID_BZIP2 307u
#define NCF_ID_ZSTD 32015u
#define NCF_ID_BLOSC 32001u
#define NCF_ID_GZIP 0x10001u   /* deflate in a gzip member (RFC 1952); [level] */
#define NCF_ID_CRC32C 0x10002u /* CRC-32C appended, 4 bytes little-endian */

/* Signature of an HDF5 filter function (H5Z_func_t): filters *buf (nbytes
 * valid, *buf_size allocated, malloc'ed) into a new or the same buffer,
 * returns the valid output size, 0 on failure. */
typedef size_t (*ncf_h5z_func)(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                               size_t nbytes, size_t *buf_size, void **buf);

/* A filter this process can run. */
typedef struct ncf_codec {
    unsigned int id;           /* HDF5 filter id */
    const char *name;          /* HDF5 name ("deflate") */
    const char *codec;         /* numcodecs name ("zlib"), NULL if unknown */
    ncf_h5z_func filter;       /* both directions (H5Z_FLAG_REVERSE: decode) */
    /* Optional direct forms (built-ins): decode (flags has H5Z_FLAG_REVERSE)
     * or encode src into dst of cap bytes, *outlen the size produced;
     * NC_EFILTER on bad data or when it does not fit.  With them the chain
     * works in per-thread scratch buffers and the caller's buffer, with no
     * allocation per chunk. */
    int (*into)(unsigned flags, size_t nparams, const unsigned *params, const void *src, size_t srclen,
                void *dst, size_t cap, size_t *outlen);
    size_t (*encode_bound)(size_t nparams, const unsigned *params, size_t srclen);
    int can_encode;            /* H5Z_class2_t encoder_present */
    int can_decode;            /* H5Z_class2_t decoder_present */
    int builtin;               /* 1: compiled in; 0: from a plugin */
    const char *source;        /* plugin path, or "builtin" */
    /* Optional: decode by checking (checksums): the decoded bytes are the
     * first *outlen bytes of src, so the chain decodes with no copy. */
    int (*verify)(unsigned flags, size_t nparams, const unsigned *params, const void *src, size_t srclen,
                  size_t *outlen);
} ncf_codec;

/* The codec for HDF5 filter id (built-ins first, then plugins on the
 * current plugin path); NC_ENOFILTER if none (and for ids above 65535).  *codecp stays valid until ncf_finalize. */
int ncf_codec_find(unsigned int id, const ncf_codec **codecp);
/* Same, by numcodecs name ("zlib", "bz2", ...) or HDF5 name. */
int ncf_codec_find_name(const char *name, const ncf_codec **codecp);
/* NC_NOERR if id can be run here, else NC_ENOFILTER. */
int ncf_filter_avail(unsigned int id);
/* Directories searched for plugins, ':'-separated (caller frees). */
int ncf_plugin_dirs(char **dirsp);
/* Forget plugins (dlclose) and the shared pool.  Safe to call repeatedly. */
void ncf_finalize(void);

/* ---- the chunk pipeline ---------------------------------------------------------- */

/* Filter flags (values of HDF5's H5Z_FLAG_*). */
#define NCF_FLAG_OPTIONAL 0x0001u  /* may fail on encode; chunk keeps it unapplied */
#define NCF_FLAG_SKIP_EDC 0x0200u  /* do not verify checksums on decode */

/* One filter of a variable, as HDF5 stores it (after set_local). */
typedef struct ncf_filter_spec {
    unsigned int id;
    unsigned int flags;       /* NCF_FLAG_OPTIONAL from H5Pget_filter2 */
    size_t nparams;
    const unsigned int *params;
} ncf_filter_spec;

typedef struct ncf_chain ncf_chain;

/* Resolve a pipeline (filters in order of application on write).  The
 * specs are copied.  typesize: element size in bytes (used only by codecs
 * that need it and have no stored parameter for it).  NC_ENOFILTER if some
 * filter cannot be run here (*chainp NULL). */
int ncf_chain_create(size_t nfilters, const ncf_filter_spec *specs, size_t typesize,
                     ncf_chain **chainp);
void ncf_chain_free(ncf_chain *chain);
size_t ncf_chain_nfilters(const ncf_chain *chain);

/* Decode one raw chunk: filters in reverse order, skipping filter i when
 * bit i of mask is set (HDF5's chunk filter mask).  The result must be
 * exactly dstlen bytes (the chunk size), else NC_EFILTER.  src is not
 * modified. */
int ncf_chain_decode(const ncf_chain *chain, unsigned int mask, const void *src, size_t srclen,
                     void *dst, size_t dstlen);
/* Encode one chunk: *outp is malloc'ed (caller frees), *outlenp its size,
 * *maskp the filters skipped (optional filters that failed). */
int ncf_chain_encode(const ncf_chain *chain, const void *src, size_t srclen, void **outp,
                     size_t *outlenp, unsigned int *maskp);

/* Decode one raw chunk whose decoded size is not known beforehand (Zarr's
 * vlen-utf8 strings): *outp malloc'ed (caller frees), *outlenp its size.
 * No step may produce more than limit bytes (NC_EFILTER). */
int ncf_chain_decode_alloc(const ncf_chain *chain, unsigned int mask, const void *src, size_t srclen,
                           size_t limit, void **outp, size_t *outlenp);

/* ---- per-thread scratch ------------------------------------------------------------ */

/* Grow-only byte buffers, one set per thread, freed when the thread exits:
 * chunk work reuses them instead of allocating per chunk.  Each slot has
 * one user, so nested users never share a buffer. */
enum {
    NCF_SCRATCH_CHAIN = 0,  /* 0, 1: ncf_chain's intermediate steps */
    NCF_SCRATCH_ENGINE = 2, /* 2, 3, 4: the chunk engine's raw chunk, decoded
                             * chunk and a format's own (Zarr's ncz_scratch) */
    NCF_SCRATCH_HDF5 = 5,   /* 5, 6: libhdf5's raw and decoded chunks */
    NCF_SCRATCH_NSLOTS = 7
};
/* This thread's buffer of slot with at least n bytes (contents undefined);
 * when it must grow it is made n + slack bytes, so that chunks of varying
 * size do not regrow it each time.  NULL on ENOMEM or a bad slot. */
unsigned char *ncf_scratch_get(int slot, size_t n, size_t slack);

/* CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and
 * final xor 0xFFFFFFFF) of len bytes, as Zarr's crc32c codec and shard
 * indexes store it; crc32c("123456789") = 0xE3069283. */
uint32_t ncf_crc32c(const void *data, size_t len);

/* ---- helpers for set_local-like parameters --------------------------------------- */

/* HDF5's stored szip parameters [mask, ppb, bpp, pps] from the user's two
 * (options_mask, pixels_per_block), as H5Pset_szip + set_local compute
 * them: K13 and RAW added, CHIP removed, LSB/MSB from the byte order.
 * chunkdims: the chunk's shape.  NC_EINVAL when HDF5 would refuse. */
int ncf_szip_params(unsigned int options_mask, unsigned int ppb, size_t typesize, int bigendian,
                    size_t ndims, const size_t *chunkdims, unsigned int out[4]);
/* A raw szip stream (no length prefix) of srclen bytes decoded by libaec
 * into exactly dstlen bytes: the szlib parameters as they are (HDF4's
 * compressed elements store them).  NC_EFILTER when the stream does not
 * decode to dstlen bytes. */
int ncf_szip_decode(unsigned int options_mask, unsigned int ppb, unsigned int bpp,
                    unsigned int pps, const void *src, size_t srclen, void *dst, size_t dstlen);
/* HDF5's blosc set_local: params[2] = typesize (1 if > 255), params[3] =
 * chunk bytes; params[0..1] zero as upstream's plugin leaves them.  params
 * must hold 7 entries. */
void ncf_blosc_params(size_t typesize, size_t chunkbytes, unsigned int params[7]);

/* HDF5's fletcher32 over len bytes (H5_checksum_fletcher32). */
unsigned int ncf_fletcher32(const void *data, size_t len);
/* HDF5's byte shuffle / unshuffle of n bytes with element size esize
 * (trailing n % esize bytes copied as they are).  src and dst distinct. */
void ncf_shuffle(size_t esize, size_t n, const void *src, void *dst);
void ncf_unshuffle(size_t esize, size_t n, const void *src, void *dst);

/* ---- quantize ------------------------------------------------------------------------ */

/* Quantize in place, as upstream does after converting to the file type:
 * mode NC_QUANTIZE_BITGROOM / NC_QUANTIZE_GRANULARBR (nsd = significant
 * decimal digits) or NC_QUANTIZE_BITROUND (nsd = significant bits).
 * Values equal to the fill value (fill NULL: NC_FILL_FLOAT/DOUBLE), +-0,
 * NaN and +-Inf are left as they are.  NC_EINVAL for a bad mode or nsd
 * (<1, or above NC_QUANTIZE_MAX_*). */
int ncf_quantize_float(int mode, int nsd, const float *fill, float *data, size_t n);
int ncf_quantize_double(int mode, int nsd, const double *fill, double *data, size_t n);

#endif /* NCFILTER_H */
