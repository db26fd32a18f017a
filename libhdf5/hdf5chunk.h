/* hdf5chunk.h: the parallel chunk pipeline for filtered netCDF-4 variables
 * (hdf5chunk.c, the chunk engine's HDF5 adapter), used by hdf5data.c.
 *
 * Reads and writes of a filtered chunked dataset go by whole chunks
 * through the chunk engine (libchunk/ncchunk.h: ncc_read / ncc_write, its
 * write-back cache with HDF5's policy, lru): raw chunks move with
 * H5Dread_chunk / H5Dwrite_chunk under the HDF5 lock (reads of a read-only
 * file on disk: pread outside it, at addresses HDF5 gives once per chunk), and libfilter's
 * chain decodes / encodes them on the shared pool without it (tasks take
 * the lock for their own raw read and write only when the calling thread
 * holds none; see hdf5chunk.c).  HDF5 keeps every piece of metadata (chunk index, filter masks,
 * extents), so files stay plain HDF5.  HDF5's chunk cache stays coherent:
 * H5Dread_chunk and H5Dget_chunk_storage_size flush a dirty cached chunk
 * first, H5Dwrite_chunk evicts it, so calls that fall back to HDF5's own
 * pipeline may mix freely with pipelined ones.
 *
 * Both entry points are called without a hold of the HDF5 lock of the data
 * call's own (they take it for their HDF5 calls) and set *done = 0 when the request is not
 * theirs (no filters, a type or layout they leave to HDF5, a chain this
 * process cannot run, a request too sparse in its chunks, or
 * NETCDF_FILTER_PIPELINE=0 in the environment when the variable's state
 * was made): the caller then uses HDF5's path.  Values are in the file
 * type, which must equal the memory type (mtid); element size `size`; ext
 * is the dataset's extent.  No request here lies past it (reads past an
 * unlimited extent and extending writes are handled by the caller first).
 *
 * A variable's state (what HDF5 says of its filters, chunks, fill value and
 * the file's intent; the codec chain; the write-back cache) is made on its
 * first request after its dataset was created or opened, hangs on its
 * NC4H5_var, and goes with the variable, when its dataset is remade, and at
 * every nc4h5_chunk_cache_flush_file (enddef, sync, close), after which the
 * next request makes it again. */
#ifndef HDF5CHUNK_H
#define HDF5CHUNK_H

#include <pthread.h>
#include "hdf5int.h"
#include "ncfilter.h"
#include "ncchunk.h"

/* The environment switch: "0" sends every request to HDF5's own pipeline. */
#define NC4H5_PIPELINE_ENV "NETCDF_FILTER_PIPELINE"

/* A chunked dataset's stored filter chain, in the form libfilter takes it. */
#define NC4H5_MAX_FILTERS 32   /* H5Z_MAX_NFILTERS */
#define NC4H5_MAX_PARAMS 64    /* more cd_values: HDF5's own pipeline */
typedef struct nc4h5_chain_spec {
    size_t nf;
    ncf_filter_spec specs[NC4H5_MAX_FILTERS];
    unsigned params[NC4H5_MAX_FILTERS][NC4H5_MAX_PARAMS];
} nc4h5_chain_spec;

/* The chunk shape (nd values into cd) and filter chain of the dataset whose
 * creation property list is dcpl.  1 when it is chunked with at least one
 * filter and everything fits in cs, else 0 (HDF5's pipeline then). */
int nc4h5_dcpl_chain(hid_t dcpl, int nd, hsize_t *cd, nc4h5_chain_spec *cs);

/* Read the selection (start/count/stride, nd dims) into out (count box,
 * C order).  A chunk never written reads as the dataset's fill value (left
 * untouched when the fill time is "never", as HDF5 does).  Errors:
 * NC_ENOFILTER when a filter is missing here and in HDF5 (no raw bytes are
 * returned), NC_EHDFERR when a chunk fails to decode (corrupt data, a
 * checksum mismatch, a chunk that decodes to more or less than a chunk),
 * as HDF5's own read reports it.  A sparse request (a value, a row of a tall
 * chunk) runs on the calling thread and keeps the chunks it decodes in
 * var's cache (bounded by its chunk-cache settings, as HDF5's cache is), so
 * that a run of nc_get_var1 decodes each chunk once: every read of a
 * filtered variable goes through here, never HDF5's pipeline, except for
 * conversions HDF5 must make (another byte order, user types) and filters
 * only HDF5 has (a plugin on HDF5_PLUGIN_PATH). */
int nc4h5_chunk_read(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start,
                     const hsize_t *count, const hsize_t *stride, const hsize_t *ext, size_t size,
                     void *out, int *done);

/* Write the selection from in (var's dataset did).  Chunks wholly covered
 * are built from in (encoded straight from it when they are contiguous
 * there) and written at once; partly covered ones are merged into the
 * variable's write-back cache of decoded chunks (read and decoded first
 * when new to it; never written before: the fill value).  The cache holds
 * what the variable's chunk-cache settings allow (nc_set_var_chunk_cache:
 * bytes and slots); the least recently used chunks go out, encoded on the
 * pool several at a time, when it is full.  No cache (settings too small
 * for one chunk) or a request with more partly covered chunks than it
 * holds: read-modify-write of each chunk.  Sparse requests are taken only
 * when there is a cache; otherwise they are HDF5's. */
int nc4h5_chunk_write(NC4_var *var, hid_t did, hid_t mtid, int nd, const hsize_t *start,
                      const hsize_t *count, const hsize_t *stride, const hsize_t *ext, size_t size,
                      const void *in, int *done);

/* Write var's dirty cached chunks to the file (batched on the pool); drop:
 * empty its cache too.  Callers: every read of var (drop 0; reads go to the
 * file), every write HDF5's pipeline takes and chunk-cache changes (drop 1).
 * Growing the dataset (H5Dset_extent) needs none: cached chunks lie inside
 * the old extent and keep their fill padding.  Takes the lock for its
 * HDF5 calls (callers may hold it: the pool's tasks do not need it). */
int nc4h5_chunk_cache_flush(NC4_var *var, int drop);
/* Write and drop the caches, and the states, of every variable of f
 * (nc4h5_flush: sync, enddef, close, and nc_abort of a file that stays, as
 * upstream's abort writes HDF5's chunk cache).  A state made for another
 * dataset id (a remade dataset) is dropped unwritten;
 * nc4h5_chunk_cache_drop (hdf5int.h) discards what is left as the vars are
 * freed.  Callers may hold the lock. */
int nc4h5_chunk_cache_flush_file(NC4_file *f);

/* Unfiltered chunked datasets of read-only files, read straight from the
 * file by the chunk engine (hdf5data.c, ncc_plain_read): where each chunk
 * of a request lies and its stored bytes.  On disk (HDF5's POSIX driver,
 * no user block, at most 2^20 chunks, the file unchanged since the
 * variable's state was made) every chunk's address is asked of HDF5 once
 * per variable (one walk of a version-1 B-tree index by the native
 * reader, else H5Dget_chunk_info_by_coord for each chunk a request needs,
 * all under one hold of the lock) and kept in the variable's table, and
 * the bytes are read by pread on HDF5's descriptor outside every lock, on
 * the pool.  Otherwise (an image in memory, a remote file, a changed file,
 * a caller already holding the lock) each chunk is asked of HDF5
 * (H5Dget_chunk_info_by_coord) and read with H5Dread_chunk, on the calling
 * thread, the whole request under one hold of the lock.  A chunk stored
 * at another size than a whole chunk, or outside the file, fails the read
 * (NC_EHDFERR: the caller then reads through HDF5). */
typedef struct nc4h5_plain_chunks {
    hid_t did;
    int nd;
    hsize_t cd[H5S_MAX_RANK];        /* chunk shape */
    uint64_t nchunks[H5S_MAX_RANK];  /* chunks along each axis */
    size_t celems, cbytes;           /* a chunk's elements and stored bytes */
    void *vc;                        /* the variable's state (pread), else NULL */
    pthread_mutex_t *m;              /* the variable's lock, held until the end */
    int held;                        /* HDF5's path: the HDF5 lock is held until the end */
} nc4h5_plain_chunks;

/* Set p->where, p->read, p->src and p->serial for a read of selection s
 * (grid g: the chunk shape) of the unfiltered
 * chunked dataset did of var (memory type mtid, element size size, as for
 * nc4h5_chunk_read) of a read-only file.  Called without a hold of the
 * data call's own; nc4h5_plain_end(pc) after the read, also on error.
 * Errors: NC_EHDFERR when HDF5 refuses a chunk's place. */
int nc4h5_plain_begin(NC4_var *var, hid_t did, hid_t mtid, size_t size, const ncc_grid *g, const ncc_sel *s,
                      nc4h5_plain_chunks *pc, ncc_plain *p);
void nc4h5_plain_end(nc4h5_plain_chunks *pc);

/* Chunks read so far in this process by pread outside the HDF5 lock
 * (read-only files on disk) and through HDF5 (H5Dread_chunk), filtered
 * and unfiltered (nc4h5_plain_begin): for tests of which path a handle
 * takes.  Either pointer may be NULL. */
void nc4h5_chunk_read_counts(size_t *pread_chunks, size_t *hdf5_chunks);

/* (hdf5var.c) Make filter id usable by HDF5 itself: when HDF5 has no such
 * filter (not built in, no plugin on HDF5_PLUGIN_PATH) but libfilter has
 * the codec (built in, or a plugin in our own plugin directory), register
 * it with HDF5 (with blosc's set_local), so datasets can be created with it
 * and HDF5's own pipeline can run it.  NC_ENOFILTER when neither has it.
 * Locked. */
int nc4h5_filter_register(unsigned int id);

#endif /* HDF5CHUNK_H */
