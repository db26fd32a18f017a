/* h5n_priv.h: what the parts of the native HDF5 reader share (h5n_fmt.c:
 * the file, bounded reads, superblock, global heaps; h5n_heap.c: v2
 * B-trees and fractal heaps; h5n_obj.c: object headers, messages, links,
 * attributes).  Private to them: the public face is h5n.h. */
#ifndef H5N_PRIV_H
#define H5N_PRIV_H

#include <stdint.h>
#include "netcdf.h"
#include "h5n.h"

#define GIVEUP H5N_GIVEUP
#define MAX_CHUNKS 4096          /* continuation chunks of one object header */
#define MAX_DEPTH 16             /* B-tree / heap nesting */

typedef struct gcol {
    uint64_t addr;
    unsigned char *buf;
    size_t size;
    uint32_t *index;             /* object number -> offset of its header, 0 = none */
    size_t nindex;
    int sane;                    /* the objects tile the collection exactly as HDF5
                                  * writes them (h5n_vlen_check's condition) */
} gcol;

struct h5n_file {
    int fd;                      /* -1 for an image in memory */
    int borrowed;                /* fd is someone else's: not closed */
    const unsigned char *mem;    /* the image (not owned), or NULL */
    h5n_readfn readfn;           /* reads of a file reached otherwise (remote), or NULL */
    void *rctx;                  /* its context (not owned) */
    uint64_t size;               /* file size */
    uint64_t base;               /* absolute address of relative 0 */
    int sbver;
    uint64_t root;
    gcol *gcols;
    size_t ngcols, gcap;
};

/* Little-endian integer of n bytes. */
static inline uint64_t
le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* A bounded cursor: reading past end sets bad and yields zeros. */
typedef struct {
    const unsigned char *p, *end;
    int bad;
} rd;

static inline uint64_t
u(rd *r, int n)
{
    uint64_t v;
    if (r->bad || r->end - r->p < n) {
        r->bad = 1;
        return 0;
    }
    v = le(r->p, n);
    r->p += n;
    return v;
}

static inline const unsigned char *
take(rd *r, uint64_t n)
{
    const unsigned char *q = r->p;
    if (r->bad || (uint64_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    r->p += n;
    return q;
}

/* ---- h5n_fmt.c: bounded reads of the file ---- */
/* Whether [addr, addr+len) lies in the file (relative addresses). */
int h5n_in_file(const h5n_file *f, uint64_t addr, uint64_t len);
/* Bytes available from addr to the end of the file (0 if outside). */
uint64_t h5n_avail(const h5n_file *f, uint64_t addr);
/* Hand buffer b to o (freed with it; freed at once on NC_ENOMEM). */
int h5n_keep_buf(h5n_obj *o, unsigned char *b);
/* Read len bytes at addr into a buffer owned by o. */
int h5n_read_owned(h5n_file *f, h5n_obj *o, uint64_t addr, size_t len, unsigned char **bp);
/* arr (n elements of size sz used, room for *cap) with room for one more:
 * arr itself, or reallocated to twice (first when empty), *cap updated;
 * NULL (arr untouched) when out of memory. */
void *h5n_grow(void *arr, size_t *cap, size_t n, size_t sz, size_t first);
/* Whether the 4 bytes after p[0..n) are the lookup3 checksum of them. */
int h5n_check_sum(const unsigned char *p, size_t n);

/* ---- h5n_heap.c: v2 B-trees and fractal heaps ---- */
typedef struct {
    uint64_t off, size;
    unsigned char *buf;          /* owned by the object (keep_buf) */
} dblock;

typedef struct {
    h5n_file *f;
    h5n_obj *o;
    uint64_t addr;
    unsigned idlen, offsize, lensize;
    unsigned width, maxbits, maxdirrows;
    uint64_t start, maxdirect;
    int csum;
    dblock *blocks;
    size_t nblocks, cap, nindirect;
    uint64_t huge_bt;            /* v2 B-tree of 'huge' objects, H5N_UNDEF if none */
    unsigned char *huge;         /* its records (address, length, id), read on demand */
    size_t nhuge;
} fheap;

/* All records of the v2 B-tree at addr (record type type) in one malloc'ed
 * array of *nrecp records of *recsizep bytes. */
int h5n_bt2_records(h5n_file *f, uint64_t addr, unsigned type, unsigned char **recsp,
                    size_t *nrecp, unsigned *recsizep);
/* Open the fractal heap at addr (its direct blocks owned by o). */
int h5n_fh_open(h5n_file *f, h5n_obj *o, uint64_t addr, fheap *h);
/* The object a heap id names: pp and lenp (inside a block or the id). */
int h5n_fh_get(fheap *h, const unsigned char *id, const unsigned char **pp, size_t *lenp);
void h5n_fh_close(fheap *h);

#endif /* H5N_PRIV_H */
