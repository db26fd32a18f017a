/* ncchunk.h: the chunk engine (libchunk/), shared by every chunked format
 * (Zarr in libnczarr/, netCDF-4 in libhdf5/).
 *
 * What the engine does, for one variable stored as a grid of equal chunks:
 *   - cuts a selection (start/count/stride) into the chunks it touches and,
 *     per chunk, the part selected (edge chunks included);
 *   - reads: fetches the raw bytes of those chunks a batch at a time
 *     (through the format's table), decodes each on libfilter's pool and
 *     copies the selected elements into the caller's buffer -- or decodes
 *     straight into the caller's buffer when the chunk is covered whole and
 *     lies there in one run; a chunk that is not stored reads as fill;
 *   - writes: chunks covered whole and not cached are encoded straight from
 *     the caller's data a batch at a time on the pool; a part of a chunk not
 *     cached, stored as it is in memory with fill of zero bytes, is written
 *     into the stored chunk in place when the format can (write_runs: rows
 *     of the caller's buffer, no chunk assembled); the others are merged
 *     into a bounded LRU write-back cache of decoded chunks (a partly
 *     written chunk is first read and decoded, or filled); when the cache is
 *     full, every dirty chunk is encoded in one batch on the pool and the
 *     older half dropped (eviction in batches, so the pool has work);
 *   - a chunk whose every element is the fill value is not stored (deleted
 *     if it was), unless the variable keeps every chunk (NOFILL);
 *   - for HDF5's rules: chunks not stored may read as nothing (fill time
 *     "never"), sparse reads may keep the chunks they decode in the cache,
 *     and edge chunks may be stored at full size, padded with fill;
 *   - elements are either fixed-size bytes or owned C strings (one char *
 *     per element, NULL meaning ""): a chunk owns its strings, a read hands
 *     out copies, a write stores copies;
 *   - per-thread grow-only scratch buffers (libfilter's), so steady-state
 *     requests touch no fresh pages;
 *   - type conversion with NC_ERANGE after decode / before encode
 *     (ncc_convert_get / ncc_convert_put, ncx_convert's rules, the classic
 *     model's byte exception).
 *
 * What a format gives it (ncc_ops): where a chunk's bytes are (locate; a
 * key and a byte range), how to fetch them (several at once, or one at a
 * time from pool tasks), how to store / delete encoded chunks (several at
 * once, or one from a task), and the variable's codec chain (decode /
 * encode one chunk, thread-safe).  Optional hooks let a format own the
 * layout of what it stores (Zarr shards: a cache entry brought in by inner
 * chunk, a shard encoded from its entry or straight from the caller).
 *
 * Promises:
 *   - values only ever move between the caller's buffer, the cache and the
 *     format's table; the bytes stored for a given sequence of calls do not
 *     depend on the number of pool threads;
 *   - memory: a read batch holds at most NCC_BATCH_BYTES of decoded chunks
 *     (at least two per pool thread); a write holds the cache's bound plus
 *     NCC_DIRECT_BATCH encoded chunks; scratch is a few chunks per thread;
 *   - every failure is an NC_* code; a failed write-back leaves the chunk
 *     dirty in the cache (it is written again on the next flush); a failed
 *     write from the caller's buffer (whole chunk, or part in place) is
 *     that call's error;
 *   - calls on one ncc_var are not concurrent (the caller serialises them),
 *     except ncc_read_shared calls, and ncc_read calls of a variable
 *     without keep_sparse, which may run together (the caller holds its
 *     lock shared; every other call holds it alone); the table's
 *     decode/encode/fetch_one/store_one run on pool threads at once and
 *     must be thread-safe.
 */
#ifndef NCCHUNK_H
#define NCCHUNK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "netcdf.h"
#include "ncfilter.h"

#define NCC_BATCH_BYTES ((size_t)256 << 20) /* decoded bytes per read batch */
#define NCC_DIRECT_BATCH 64                 /* chunks encoded from the caller at once */
#define NCC_SPARE_MAX 16                    /* chunk buffers kept for reuse */

/* ---- the chunk grid and a selection over it ---------------------------------------- */

typedef struct ncc_grid {
    int rank;
    size_t chunk[NC_MAX_VAR_DIMS];
    size_t cstr[NC_MAX_VAR_DIMS]; /* C strides of a chunk, in elements */
    size_t esize;                 /* bytes of an element in memory */
    size_t chunkelems, chunkbytes;
} ncc_grid;

/* NC_EINVAL when a chunk extent is 0 or the chunk would exceed maxbytes. */
int ncc_grid_init(ncc_grid *g, int rank, const size_t *chunk, size_t esize, size_t maxbytes);

typedef struct ncc_sel {
    int rank;
    size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], stride[NC_MAX_VAR_DIMS];
    size_t ustr[NC_MAX_VAR_DIMS]; /* C strides of the caller's buffer */
    size_t n;                     /* elements selected (0: some count is 0) */
    size_t len[NC_MAX_VAR_DIMS];  /* the variable's extent (dimlen given) */
    uint64_t clo[NC_MAX_VAR_DIMS], chi[NC_MAX_VAR_DIMS]; /* chunk box touched */
} ncc_sel;

/* netCDF's bound rule for one axis of length len: start past the end (or at
 * it with count > 0) NC_EINVALCOORDS; the last index past the end
 * NC_EEDGE, unless some count of the request is 0 (zero). */
int ncc_check_bound(size_t start, size_t count, size_t stride, size_t len, int zero);

/* The selection of start/count/stride (NULL: 0 / dimlen / 1) over grid g,
 * every axis checked against dimlen except those with unbounded[k] set
 * (NULL: none).  NC_ESTRIDE, NC_EINVALCOORDS, NC_EEDGE, NC_ENOMEM. */
int ncc_sel_init(ncc_sel *s, const ncc_grid *g, const size_t *start, const size_t *count, const ptrdiff_t *stride,
                 const size_t *dimlen, const unsigned char *unbounded);
/* Recompute the chunk box of s for grid g (the same selection, another
 * chunk shape). */
void ncc_sel_regrid(ncc_sel *s, const ncc_grid *g);
/* The part of s in chunk idx: per axis the first selected index k0 (in the
 * caller's buffer), the count nk and the offset in the chunk l0.  0 when
 * the chunk holds no selected element. */
int ncc_sel_part(const ncc_grid *g, const ncc_sel *s, const uint64_t *idx, size_t *k0, size_t *nk, size_t *l0);
/* Advance idx over the chunk box of s (C order); 0 when done. */
int ncc_sel_next(const ncc_sel *s, uint64_t *idx);
/* Advance c over the box lo..hi (bounds included, C order); 0 when done
 * (c is back at lo). */
int ncc_box_next(int rank, size_t *c, const size_t *lo, const size_t *hi);
/* Element offset of k0 in the caller's buffer. */
size_t ncc_sel_uoff(const ncc_sel *s, const size_t *k0);
/* A whole chunk that is one run of the caller's buffer. */
int ncc_part_direct(const ncc_grid *g, const ncc_sel *s, const size_t *nk);
/* Every chunk covered whole by s is one run of the caller's buffer. */
int ncc_sel_contiguous(const ncc_grid *g, const ncc_sel *s);

/* The small-read rule shared by every format: a request selecting fewer
 * than 1/ratio of the elements of the chunks it touches (a value, a row of
 * a tall chunk) is small; both formats use ratio NCC_SMALL_READ.  Reads
 * that are small keep the chunks they decode in the variable's cache
 * (ncc_read_keeps); larger ones add nothing to it. */
#define NCC_SMALL_READ 4
/* Whether s is small over grid g: s->n * ratio is under the element count
 * of the box of chunks s touches. */
int ncc_sel_small(const ncc_grid *g, const ncc_sel *s, size_t ratio);

/* ---- copies, fill, strings, scratch ------------------------------------------------- */

/* Copy a rank-dimensional box of count[] elements of esize bytes: element
 * (i_0..i_r-1) is read at src + sum(i_d * sstr[d]) * esize and written at
 * dst + sum(i_d * dstr[d]) * esize (strides in elements).  rank 0: one. */
void ncc_copy_strided(int rank, size_t esize, const size_t *count, const void *src, const size_t *sstr, void *dst,
                      const size_t *dstr);
/* Is every element of buf (n of esize bytes) equal to fill? */
int ncc_all_fill(const void *buf, size_t n, size_t esize, const void *fill);
/* n copies of the element fill (esize bytes) at dst. */
void ncc_fill_elems(void *dst, size_t n, size_t esize, const void *fill);

/* Owned strings: one char * per element, NULL is "".  free: each non-NULL
 * freed and set NULL.  copy_strided: as ncc_copy_strided, each destination's
 * old string replaced by a copy of the source's (NC_ENOMEM: partly copied,
 * still consistent).  all_fill: every string equals fill (NULL and ""
 * equal).  fill: n copies of fill (old values not freed). */
void ncc_strings_free(char **v, size_t n);
int ncc_strings_copy_strided(int rank, const size_t *count, char *const *src, const size_t *sstr, char **dst,
                             const size_t *dstr);
int ncc_strings_all_fill(char *const *v, size_t n, const char *fill);
int ncc_strings_fill(char **v, size_t n, const char *fill);

/* A per-thread grow-only buffer of at least n bytes, contents undefined
 * (NULL on ENOMEM); freed when the thread exits (libfilter's scratch, slots
 * NCF_SCRATCH_ENGINE and after).  Slots: NCC_SCRATCH_RAW
 * raw chunk bytes, NCC_SCRATCH_CHUNK a decoded chunk, NCC_SCRATCH_INNER a
 * format's own (Zarr: an inner chunk of a shard). */
enum { NCC_SCRATCH_RAW, NCC_SCRATCH_CHUNK, NCC_SCRATCH_INNER, NCC_NSCRATCH };
unsigned char *ncc_scratch(int which, size_t n);

/* ---- the write-back cache -------------------------------------------------------------- */

typedef struct ncc_entry {
    uint64_t *idx;           /* the chunk's grid index (rank entries) */
    unsigned char *data;     /* the chunk, decoded */
    int dirty;
    void *aux;               /* the format's (entry_free releases it) */
    int loading;             /* contents still to be brought in (a format's use) */
    unsigned long stamp;     /* the last request that used it (a format's use) */
    struct ncc_entry *prev, *next; /* LRU list, most recent first */
    struct ncc_entry *hnext;
} ncc_entry;

typedef struct ncc_cache {
    int rank;
    ncc_entry *head, *tail;
    ncc_entry **buckets;
    size_t nbuckets, n, max;
    unsigned char *spare[NCC_SPARE_MAX]; /* free chunk buffers */
    size_t nspare;
} ncc_cache;

int ncc_cache_init(ncc_cache *c, int rank, size_t max);
ncc_entry *ncc_cache_find(const ncc_cache *c, const uint64_t *idx);
/* Move e to the most recent end. */
void ncc_cache_touch(ncc_cache *c, ncc_entry *e);
/* A new most recent entry owning data (freed by the caller on error). */
int ncc_cache_insert(ncc_cache *c, const uint64_t *idx, unsigned char *data, ncc_entry **ep);
/* Take e out; its data buffer is returned (the caller keeps or frees it). */
unsigned char *ncc_cache_unlink(ncc_cache *c, ncc_entry *e);
/* Take e out but keep it (idx, data) for the caller, who frees it with
 * free(e) after its data. */
void ncc_cache_detach(ncc_cache *c, ncc_entry *e);

/* Cache budget: entries of chunkbytes a cache of size bytes holds; at
 * least 4 (so a flush encodes in parallel) unless a chunk is over 64 MiB. */
size_t ncc_cache_budget(size_t size, size_t chunkbytes);

/* ---- a variable and its format's table ----------------------------------------------- */

/* Where a stored chunk's bytes are, and the bytes once fetched. */
typedef struct ncc_raw {
    char *key;               /* the object holding them (malloc'ed; the engine frees) */
    uint64_t start, count;   /* byte range in it; count UINT64_MAX: all of it */
    void *data;              /* fetched bytes */
    size_t len;
    int owned;               /* data malloc'ed (the engine frees), else scratch */
    unsigned mask;           /* filters skipped (HDF5's chunk filter mask) */
    int status;              /* NC_EEMPTY: not stored (reads as fill) */
} ncc_raw;

/* One object to store (empty: delete it). */
typedef struct ncc_put {
    const char *key;
    const void *out;
    size_t outlen;
    unsigned mask;
    int empty;
    int *status;             /* where its result goes */
} ncc_put;

/* One chunk to encode and store, from a cache entry or the caller. */
typedef struct ncc_enc {
    ncc_entry *e;            /* cache entry (NULL: from the caller's buffer) */
    char *key;
    void *out;               /* encoded bytes; owned unless borrowed */
    size_t outlen;
    unsigned mask;
    int borrowed;            /* out points at the chunk itself (no codec) */
    const size_t *nk;        /* from the caller, an edge chunk (pad_edges): the
                              * part inside the variable (NULL: whole chunk) */
    int empty;               /* all fill: delete instead */
    int status;
    size_t soff;             /* from the caller: element offset of the chunk's origin */
} ncc_enc;

/* A run of bytes written into a stored chunk in place (write_runs). */
typedef struct ncc_run {
    size_t off;              /* byte offset in the stored chunk */
    const void *buf;
    size_t len;
} ncc_run;

/* write_runs's answer when it wrote nothing and the chunk is to go
 * through the cache instead (not an NC_* code: those are <= 0). */
#define NCC_DECLINED 1

struct ncc_var;

typedef struct ncc_ops {
    /* The key of chunk idx (for stores and cache write-back). */
    int (*key)(void *fmt, const uint64_t *idx, char **keyp);
    /* Where chunk idx's bytes are: r->key, r->start, r->count.  NC_EEMPTY:
     * known absent (reads as fill).  Called on the caller's thread. */
    int (*locate)(void *fmt, const uint64_t *idx, ncc_raw *r);
    /* Fetch n located chunks at once (data malloc'ed, per-item status);
     * NULL: fetch_one runs in the pool tasks instead. */
    int (*fetch_many)(void *fmt, size_t n, ncc_raw *r);
    /* Fetch one located chunk into r->data (thread-safe; may use
     * NCC_SCRATCH_RAW); r->status NC_EEMPTY when not stored. */
    int (*fetch_one)(void *fmt, ncc_raw *r);
    /* The whole stored chunk r->key into r->data (malloc'ed, owned),
     * r->len, r->mask; NC_EEMPTY when absent.  Called on the caller's
     * thread for a read-modify-write. */
    int (*fetch_whole)(void *fmt, ncc_raw *r);
    /* Raw bytes -> exactly dstlen decoded bytes (thread-safe); inner: a
     * pool the codec may use itself (NULL: none). */
    int (*decode)(void *fmt, const ncc_raw *r, void *dst, size_t dstlen, ncf_pool *inner);
    /* A decoded chunk -> encoded bytes (*outp malloc'ed), thread-safe
     * (not called when the variable is stored_raw). */
    int (*encode)(void *fmt, const void *src, size_t len, void **outp, size_t *outlenp, unsigned *maskp);
    /* Store several (writes and deletes; per-item status).  Caller's thread. */
    int (*store_many)(void *fmt, size_t n, ncc_put *p);
    /* Store or delete one, from a pool task (thread-safe); NULL: store_many. */
    int (*store_one)(void *fmt, const ncc_put *p);
    /* Optional hooks for a format that stores more than one decoded chunk
     * per object (Zarr shards). */
    /* A cache entry for a partial write of chunk idx: e->data (chunkbytes)
     * is to be set up (and e->aux with it); replaces read-and-decode. */
    int (*entry_load)(void *fmt, const char *key, ncc_entry *e);
    /* Before the part (l0, nk, stride) of entry e is overwritten. */
    int (*entry_prepare)(void *fmt, ncc_entry *e, const size_t *l0, const size_t *nk, const size_t *stride);
    void (*entry_free)(void *fmt, ncc_entry *e);
    /* Encode (and with store, store) job j from its entry or src; replaces
     * the engine's fill check, encode and store. */
    int (*entry_flush)(void *fmt, ncc_enc *j, const void *src, ncf_pool *inner, int store);
    /* A whole chunk not cached, one run of the caller's buffer at src:
     * encode and store it (replaces the batch path). */
    int (*put_whole)(void *fmt, const char *key, const void *src);
    /* Optional: write n runs of raw bytes (ascending, not overlapping,
     * inside the chunk) into the stored chunk key in place; a chunk not
     * stored is first made at its full size (chunkbytes) of zero bytes.
     * Used for a part of a chunk the cache does not hold, when the
     * variable is stored_raw, not vstr, its fill is zero bytes, and the
     * part is not all zero unless keepall: the bytes stored are then those
     * the cache path would store.  May be called several times for one
     * part (runs in order); from pool tasks, several chunks at once, when
     * runs_in_task (thread-safe then).  NCC_DECLINED: nothing written by
     * this call (the whole part then goes through the cache). */
    int (*write_runs)(void *fmt, const char *key, size_t n, const ncc_run *runs);
} ncc_ops;

typedef struct ncc_var {
    ncc_grid g;
    const ncc_ops *ops;
    void *fmt;
    int vstr;                /* elements are owned char * */
    const unsigned char *fill; /* one element (the format's; strings: a char *) */
    int zerofill;            /* fill is all zero bytes */
    int keepall;             /* store every chunk, fill or not (NOFILL) */
    int stored_raw;          /* chunks are stored as they are in memory (no codec) */
    int fetch_in_task;       /* fetch_one from tasks (else fetch_many) */
    int read_serial;         /* a read's tasks run on the caller's thread (the
                              * format's reads take one lock each: the pool
                              * would only add hand-offs) */
    int store_in_task;       /* store_one from tasks (else store_many) */
    int runs_in_task;        /* write_runs from tasks, several chunks at once
                              * (else one after another on the caller's thread) */
    int fill_never;          /* a chunk not stored reads as nothing: the caller's
                              * elements there are left as they were (HDF5's fill
                              * time "never"; writes still start such a chunk
                              * from fill) */
    size_t keep_sparse;      /* > 0: reads small by this ratio (ncc_read_keeps;
                              * the formats' is NCC_SMALL_READ) keep the chunks
                              * they decode in the cache, clean, evicting clean
                              * ones over the bound (a run of small reads
                              * decodes each chunk once) */
    int pad_edges;           /* chunks are stored at full size past the
                              * variable's extent (the selection's len): a
                              * write covering every element of a chunk inside
                              * the extent writes it whole, the rest fill
                              * (not with vstr) */
    int lru;                 /* HDF5's write-back policy and order (ncc_lru.c; not
                              * with vstr): a write first indexes its chunks in C
                              * order -- whole ones leave the cache (written from the
                              * caller's data), parts enter it or move to the front
                              * -- then, over the bound, the least recently used
                              * entries not of this request go, down to 3/4 of it
                              * (at least the request's parts); the evicted dirty
                              * ones are written first, least recent first, then the
                              * request's whole chunks in C order.  A request with
                              * more parts than the cache holds (or no cache) writes
                              * the cache back, empties it, and read-modify-writes
                              * every chunk in C order.  Stores are in that order
                              * whatever the pool (in order from tasks when
                              * store_in_task), a batch of one chunk per thread at a
                              * time; a flush writes the most recent first.  An
                              * evicted chunk that fails to store is dropped and
                              * sets lost.  keep_sparse reads keep every chunk the
                              * request uses (stamp), not only the newest. */
    int lost;                /* lru: dirty data dropped unwritten (the caller clears) */
    unsigned long stamp;     /* lru: requests served */
    unsigned long gen;       /* changes of the stored chunks or the cache:
                              * every ncc_write, ncc_flush, ncc_set_cache,
                              * ncc_cache_clear (a format changing its stored
                              * chunks by other means adds one too) */
    unsigned char *fillchunk;/* a chunk of fill, made on first need */
    pthread_mutex_t filllock;
    pthread_mutex_t lrulock; /* ncc_read_shared: the cache's LRU order, stamp
                              * and spare buffers */
    ncc_cache cache;
} ncc_var;

/* Chunks a small ncc_read_shared decoded, for ncc_keep_insert: their grid
 * indexes (rank each) and decoded buffers, and v->gen when read. */
typedef struct ncc_kept {
    size_t n, cap;
    uint64_t *idx;
    unsigned char **data;
    unsigned long gen;
} ncc_kept;

/* Set up v over grid g (copied) with the format's table; fill is borrowed
 * (it must outlive v).  max: cache entries (0: no cache). */
int ncc_var_init(ncc_var *v, const ncc_grid *g, int vstr, const void *fill, int keepall, size_t max,
                 const ncc_ops *ops, void *fmt);
/* Free everything v holds, dirty chunks dropped unwritten. */
void ncc_var_fini(ncc_var *v);
/* A chunk of fill (made once; read-only).  NULL on ENOMEM. */
const unsigned char *ncc_fill_chunk(ncc_var *v);

/* Whether a read of s on v keeps the chunks it decodes in v's cache:
 * v->keep_sparse is set, v has a cache, and s is not empty and small
 * (ncc_sel_small with ratio keep_sparse).  The one place the rule is applied: ncc_read and every
 * format asking whether a read will change the cache call it. */
int ncc_read_keeps(const ncc_var *v, const ncc_sel *s);
/* Read selection s into out (memory form, esize per element; strings:
 * NULLs that become copies). */
int ncc_read(ncc_var *v, const ncc_sel *s, unsigned char *out);
/* ncc_read beside other ncc_read_shared calls on v (the caller holds its
 * lock shared): the cache is looked up, never changed (hits move to the
 * recent end, under v->lrulock).  A small read (ncc_read_keeps) hands the
 * chunks it decoded to k instead of the cache (k zeroed by the caller,
 * emptied by ncc_kept_free), for ncc_keep_insert.  NCC_DECLINED, nothing
 * read: a small read touching more chunks than one read batch; the caller
 * holds the lock alone and calls ncc_read. */
int ncc_read_shared(ncc_var *v, const ncc_sel *s, unsigned char *out, ncc_kept *k);
/* With the lock held alone: the chunks of k go into the cache as a small
 * ncc_read keeps them (a chunk the cache holds by now is kept, k's copy
 * freed), unless v changed since the read (v->gen): then none do.  k is
 * emptied. */
void ncc_keep_insert(ncc_var *v, ncc_kept *k);
/* Free what k holds (no lock needed). */
void ncc_kept_free(const ncc_var *v, ncc_kept *k);
/* Write selection s from src.  direct: chunks covered whole may be encoded
 * straight from src (else they go through the cache too). */
int ncc_write(ncc_var *v, const ncc_sel *s, const unsigned char *src, int direct);
/* Write every dirty chunk, then drop clean entries from the cold end down to keep. */
int ncc_flush(ncc_var *v, size_t keep);
/* Drop every cache entry, dirty ones unwritten. */
void ncc_cache_clear(ncc_var *v);
/* A new cache bound; entries over it written and dropped. */
int ncc_set_cache(ncc_var *v, size_t max);
/* Any dirty chunk in the cache? */
int ncc_has_dirty(const ncc_var *v);
/* The lru policy's write, and its write-back of every dirty chunk (most
 * recent first, clean ones kept); ncc_write and ncc_flush call them. */
int ncc_lru_write(ncc_var *v, const ncc_sel *s, const unsigned char *src);
int ncc_lru_flush(ncc_var *v);

/* ---- variables stored as they are, read at byte offsets (ncc_plain.c) ------------------ */

/* A variable whose chunks are stored as they are in memory (no codec), in
 * a byte source read at offsets: a dataset without filters read straight
 * from its file.  A contiguous one is a grid of pieces (each one run of
 * the source; the last of an axis may be shorter). */
typedef struct ncc_plain {
    /* Where chunk idx's bytes are (*offp: a byte offset, or any position
     * read understands) and how many of its elements are stored there
     * (*nelemsp, at most a chunk: the rest lies outside the variable).
     * NC_EEMPTY: not stored (reads as fill).  Caller's thread. */
    int (*where)(void *src, const uint64_t *idx, uint64_t *offp, size_t *nelemsp);
    /* len bytes at position off into buf (thread-safe: pool tasks). */
    int (*read)(void *src, uint64_t off, void *buf, size_t len);
    void *src;
    size_t fsize;           /* bytes of a stored element */
    int swap;               /* stored in the other byte order (fsize 2, 4, 8) */
    nc_type ftype, mtype;   /* stored as ftype, given to the caller as mtype
                             * (numbers, converted in the tasks; equal: none) */
    int classic;            /* ncc_convert's classic model rule */
    const void *fill;       /* one element in the caller's type for chunks not
                             * stored; NULL: the caller's elements there are
                             * left as they are */
    int range;              /* set when some value did not fit */
    int serial;             /* read takes a lock of the format's: one thread */
} ncc_plain;

/* Read selection s of p's variable over grid g (esize: the caller's
 * element size) into out, a pool task per chunk (all on the caller's
 * thread when p->serial).  NC_ERANGE once every
 * value is in when some did not fit; the source's errors; NC_EINVAL for
 * sizes that do not agree. */
int ncc_plain_read(ncc_plain *p, const ncc_grid *g, const ncc_sel *s, unsigned char *out);

/* ---- conversion ------------------------------------------------------------------------- */

/* Values in the variable's type -> the memory type (n elements); NC_ERANGE
 * after converting every value when some did not fit, unless ignored
 * (the classic model between NC_BYTE and NC_UBYTE). */
int ncc_convert(nc_type from, const void *src, nc_type to, void *dst, size_t n, int classic);

#endif /* NCCHUNK_H */
