/* hdf4int.h: the HDF4 layer's private declarations (libhdf4/). */
#ifndef HDF4INT_H
#define HDF4INT_H

#include <stddef.h>
#include <stdint.h>
#include "netcdf.h"

/* One data descriptor: an element of the file. */
typedef struct H4dd {
    uint16_t tag, ref;
    uint32_t off, len;
} H4dd;

/* One chunk of a chunked data set: its origin (in chunks) and element. */
typedef struct H4chunk {
    size_t origin[NC_MAX_VAR_DIMS];
    uint16_t tag, ref;
} H4chunk;

/* One data set (a Var0.0 vgroup) as the layer serves it. */
typedef struct H4var {
    int varid;
    nc_type type;
    size_t esize;             /* bytes per value in the file */
    int little;               /* values stored little-endian */
    int ndims;
    int isrec;                /* the first dimension is the record dimension */
    size_t shape[NC_MAX_VAR_DIMS];
    uint16_t sdref;           /* DFTAG_SD element holding the values; 0: none */
    unsigned char fill[8];    /* the fill value, native order */
    /* chunked data sets */
    int chunked;
    size_t chunkshape[NC_MAX_VAR_DIMS];
    H4chunk *chunks;
    size_t nchunks;
} H4var;

typedef struct H4file {
    int ncid, subid;
    int fd;
    uint64_t fsize;
    H4dd *dds;
    size_t ndds;
    H4var *vars;
    size_t nvars;
    int recdimid;
    size_t numrecs;
} H4file;

/* hdf4file.c */
int h4_open_file(const char *path, H4file *f);
int h4_build(H4file *f);
void h4_file_free(H4file *f);
int h4_read_vars(H4file *f, const H4var *v, const size_t *start, const size_t *count,
                 const ptrdiff_t *stride, void *out);

/* hdf4comp.c: a compressed element (header h of hl bytes, stored bytes
 * src) decoded into exactly total bytes of out. */
int h4_decompress(const unsigned char *h, size_t hl, const unsigned char *src, size_t slen,
                  unsigned char *out, size_t total);
/* Whether header h names a model and coder this reader decodes. */
int h4_coder_known(const unsigned char *h, size_t hl);
/* The most bytes slen stored bytes can decode to under header h. */
size_t h4_decompress_bound(const unsigned char *h, size_t hl, size_t slen);

#endif /* HDF4INT_H */
