/* h5n.h: a read-only reader of HDF5 file metadata, without the HDF5 library.
 *
 * Opening a netCDF-4 file through HDF5 costs most of its time in HDF5's own
 * per-call machinery (metadata cache, locks, error stacks, B-tree walks per
 * H5Oopen/H5Aread).  For the files netCDF-4 writes, the metadata is a small
 * set of structures that this module parses straight from the file with
 * pread (or a read callback, h5n_open_reader): superblock v2/v3, version-2 object headers ("OHDR"/"OCHK"), links
 * (compact and dense: fractal heap + v2 B-tree name index), attributes
 * (compact and dense), datatypes, dataspaces, layout, filter pipeline, fill
 * value, and global heap collections for variable-length data.
 *
 * It understands only what it can read exactly: anything else (superblock
 * v0/v1, v1 object headers, shared messages, old-style groups, soft or
 * external links, huge heap objects, unknown messages, a checksum mismatch,
 * an offset or length outside the file) makes a call return H5N_GIVEUP, and
 * the caller opens the file with HDF5 instead.  Every length and offset read
 * from the file is checked against the file size before it is used.
 *
 * Pure format parsing: no hdf5.h, no netCDF model.  Addresses are relative
 * to the superblock's base address, as HDF5's own (object references use
 * the same).  One h5n_file is used by one thread. */
#ifndef H5N_H
#define H5N_H

#include <stddef.h>
#include <stdint.h>

/* Returned (besides NC_NOERR / NC_ENOMEM) when the file holds something this
 * reader does not handle: fall back to HDF5. */
#define H5N_GIVEUP (-1000)

#define H5N_UNDEF UINT64_MAX
#define H5N_MAX_RANK 32

typedef struct h5n_file h5n_file;

/* Datatype classes (the file format's numbering). */
enum { H5N_FIXED = 0, H5N_FLOAT = 1, H5N_STRING = 3, H5N_REFERENCE = 7, H5N_VLEN = 9 };

typedef struct h5n_type {
    int cls;           /* H5N_* above, or the format's class number for others */
    size_t size;       /* bytes of one value in the file */
    int big_endian;    /* fixed/float */
    int is_signed;     /* fixed */
    int plain;         /* fixed/float laid out as a C integer / IEEE float/double */
    int strpad, cset;  /* string, vlen string */
    int vlen_string;   /* vlen of characters */
    int vlen_objref;   /* vlen sequence of object references (DIMENSION_LIST) */
    int ref_obj;       /* reference class: object reference */
} h5n_type;

enum { H5N_SCALAR = 0, H5N_SIMPLE = 1, H5N_NULL = 2 };

typedef struct h5n_space {
    int kind;                      /* H5N_SCALAR / H5N_SIMPLE / H5N_NULL */
    int ndims;
    uint64_t dims[H5N_MAX_RANK];
    uint64_t maxdims[H5N_MAX_RANK]; /* H5N_UNDEF = unlimited */
    uint64_t npoints;              /* 1 scalar, 0 null */
} h5n_space;

/* An attribute's dataspace: what readers of attributes need (kept small:
 * a file may hold a great many attributes). */
typedef struct h5n_extent {
    int kind, ndims;
    uint64_t npoints;
} h5n_extent;

typedef struct h5n_att {
    char *name;                    /* NUL-terminated copy */
    h5n_type type;
    h5n_extent space;
    const unsigned char *data;     /* npoints * type.size bytes (in the object's buffers) */
    size_t datalen;
    uint64_t crt;                  /* creation order */
} h5n_att;

typedef struct h5n_link {
    char *name;
    uint64_t addr;                 /* object header address */
    uint64_t crt;
} h5n_link;

typedef struct h5n_filter {
    unsigned id;
    unsigned flags;
    size_t nparams;
    unsigned *params;
} h5n_filter;

enum { H5N_OBJ_OTHER = 0, H5N_OBJ_GROUP, H5N_OBJ_DATASET, H5N_OBJ_DATATYPE };
enum { H5N_COMPACT = 0, H5N_CONTIGUOUS = 1, H5N_CHUNKED = 2 };
/* Fill-value states as HDF5's H5Pfill_value_defined reports them. */
enum { H5N_FILL_UNDEFINED = 0, H5N_FILL_DEFAULT = 1, H5N_FILL_USER = 2 };

typedef struct h5n_obj {
    int kind;                      /* H5N_OBJ_* */
    uint64_t addr;
    /* dataset */
    h5n_space space;
    h5n_type type;
    int layout;                    /* H5N_COMPACT / CONTIGUOUS / CHUNKED */
    int chunk_ndims;               /* chunked: rank (the element-size dim left out) */
    uint64_t chunk_btree;          /* chunked, layout version 3: root of its version-1
                                    * B-tree of chunks (H5N_UNDEF: none) */
    uint64_t chunk[H5N_MAX_RANK];
    h5n_filter *filters;
    size_t nfilters;
    int fill_state;                /* H5N_FILL_* */
    int fill_time;                 /* 0 alloc, 1 never, 2 if set (HDF5's numbers) */
    const unsigned char *fill;     /* fill value in the file type (fill_state USER) */
    size_t fill_size;
    /* attributes in HDF5's creation-order iteration */
    h5n_att *atts;
    size_t natts;
    /* group: hard links in iteration order (creation order when tracked,
     * else name order) */
    h5n_link *links;
    size_t nlinks;
    int links_crt_tracked;
    /* owned memory */
    unsigned char **bufs;
    size_t nbufs, bufcap;
} h5n_obj;

/* Open path and read its superblock: NC_NOERR, H5N_GIVEUP, NC_ENOMEM. */
int h5n_open(const char *path, h5n_file **fp);

/* How a file reached otherwise than by a descriptor (a remote file) is
 * read: len bytes at absolute offset off into buf, all of them; NC_NOERR
 * or an NC_* error. */
typedef int (*h5n_readfn)(void *ctx, uint64_t off, size_t len, void *buf);
/* Open a file of size bytes read through fn(ctx, ...) (ctx borrowed: it
 * must outlive the h5n_file).  any: as h5n_open_guard (any superblock
 * version), else as h5n_open.  NC_NOERR, H5N_GIVEUP, NC_ENOMEM. */
int h5n_open_reader(h5n_readfn fn, void *ctx, uint64_t size, int any, h5n_file **fp);
void h5n_close(h5n_file *f);
int h5n_superblock_version(const h5n_file *f);
uint64_t h5n_root_addr(const h5n_file *f);
uint64_t h5n_file_size(const h5n_file *f);

/* Parse the object header at addr with everything above. */
int h5n_read_obj(h5n_file *f, uint64_t addr, h5n_obj *o);
void h5n_obj_free(h5n_obj *o);

/* The heap object a variable-length element (16 bytes in the file: count,
 * collection address, index) points at: *datap and *lenp (len bytes, valid
 * until h5n_close), *countp the element count it records.  A nil element
 * (address 0) gives *datap NULL. */
int h5n_vlen(h5n_file *f, const unsigned char *elem, const unsigned char **datap,
             size_t *lenp, uint32_t *countp);

/* For the checks made before HDF5 reads variable-length data (hdf5heap.c):
 * read the open file descriptor fd (borrowed: not closed), else the file at
 * path, else the image mem of size bytes (not copied; it must outlive the
 * h5n_file), with any superblock version.  Version 0/1
 * (base at the signature) serves h5n_vlen_check and h5n_v1_msg only.
 * NC_NOERR, H5N_GIVEUP (no HDF5 signature), NC_ENOMEM. */
int h5n_open_guard(const char *path, int fd, const void *mem, size_t size, h5n_file **fp);

/* Whether HDF5 can read the variable-length element elem (count, collection
 * address, index) of a sequence of base_size-byte values without trusting
 * damaged bytes: NC_NOERR when it is nil (*datap NULL) or names an object
 * of exactly count * base_size bytes (*datap: them, valid until h5n_close)
 * in a sane collection (signature, version, size inside the file, objects
 * tiling it; parsed once per collection); H5N_GIVEUP otherwise. */
int h5n_vlen_check(h5n_file *f, const unsigned char *elem, uint64_t base_size,
                   const unsigned char **datap);

/* len bytes at addr (relative to the base) into buf, when they lie in the
 * file: NC_NOERR, else H5N_GIVEUP. */
int h5n_read_at(const h5n_file *f, uint64_t addr, void *buf, size_t len);

/* A message of the version-1 object header at addr (its continuation
 * blocks followed): of type mtype, the first one; of type 0x0C (attribute),
 * the data of attribute `name`.  *datap (malloc'd, the caller frees) and
 * *lenp; *datap NULL when absent or unreadable this way (dense storage,
 * shared messages). */
int h5n_v1_msg(h5n_file *f, uint64_t addr, unsigned mtype, const char *name,
               unsigned char **datap, size_t *lenp);

/* Whether the attribute messages of the version-1 object header at addr
 * (no checksum) can be decoded by HDF5 without reading past them: each
 * name terminated, each value as long as its dataspace and datatype say.
 * NC_NOERR also for a header of another version; H5N_GIVEUP when damaged. */
int h5n_v1_atts_check(h5n_file *f, uint64_t addr);

/* Whether the version-1 B-tree of chunks of the dataset at addr (o: its
 * parsed version-2 header, or NULL for a version-1 header read here) can be
 * walked without trusting damaged bytes: every node a "TREE" node of chunks
 * one level below its parent (no cycle), inside the file (chunks are
 * bounded where they are read).  NC_NOERR also when the dataset has no such
 * B-tree; H5N_GIVEUP when damaged. */
int h5n_chunk_index_check(h5n_file *f, const struct h5n_obj *o, uint64_t addr);

/* The same walk, fn called for every chunk the B-tree lists: origin (the
 * chunk rank's offsets, then the element-size dimension's, normally 0),
 * stored size, filter mask, address; fn's nonzero answer stops the walk
 * (H5N_GIVEUP).  *walked 1 when the dataset has such a B-tree (0: another
 * index, or no chunk written, and fn was never called). */
typedef int (*h5n_chunk_fn)(void *ctx, const uint64_t *origin, uint32_t size, uint32_t mask, uint64_t addr);
int h5n_chunk_index_walk(h5n_file *f, const struct h5n_obj *o, uint64_t addr, h5n_chunk_fn fn, void *ctx,
                         int *walked);

/* Bob Jenkins' lookup3 hash, HDF5's metadata checksum. */
uint32_t h5n_lookup3(const unsigned char *k, size_t length);

#endif /* H5N_H */
