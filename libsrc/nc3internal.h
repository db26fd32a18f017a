/* nc3internal.h: private declarations of the classic-format layer (libsrc/).
 *
 * The layer implements CDF-1 (classic), CDF-2 (64-bit offset) and CDF-5
 * (64-bit data) behind NC3_dispatch_table.  Per open file it keeps one
 * NC3_info on nc->dispatchdata: the header model (dims, attributes,
 * variables, all in external layout order), the computed data layout
 * (begin offsets, record size), the record count and the storage (ncio).
 *
 * Files:
 *   nc3file.c    create/open/enddef/redef/sync/close, layout, the table
 *   nc3header.c  header length, encoding and validating decoder
 *   nc3meta.c    dimensions, attributes, variables and inquiries
 *   nc3data.c    get/put of data (vara, vars), fill values
 *   nc3io.h, nc3io_posix.c, nc3io_mem.c   storage backends
 *
 * Invariants: attribute values are kept in external (big-endian, padded)
 * form; var->len is the padded byte size of the variable (of one record
 * for record variables); numrecs is authoritative in memory and written to
 * the header lazily (NC3_NDIRTY) unless NC_SHARE is set.
 */
#ifndef NC3INTERNAL_H
#define NC3INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "netcdf.h"
#include "ncdispatch.h"
#include "nc3io.h"

#define NC3_ALIGN 4                 /* external alignment of header items and vars */
#define NC3_MIN_XSZ 32              /* empty CDF-1/2 header */
#define NC3_MIN_XSZ5 48             /* empty CDF-5 header */
#define NC3_XINT_MAX 2147483647LL
#define NC3_XUINT_MAX 4294967295ULL
#define NC3_IOBUF (1u << 20)        /* bounded staging buffer for conversions */

/* NC3_info.flags */
#define NC3_INDEF   0x01   /* in define mode */
#define NC3_CREAT   0x02   /* created and not yet ended define mode once */
#define NC3_NOFILL  0x04   /* file-wide fill mode is off */
#define NC3_HDIRTY  0x08   /* header must be rewritten */
#define NC3_NDIRTY  0x10   /* numrecs must be rewritten */
#define NC3_RDONLY  0x20   /* opened without NC_WRITE */
#define NC3_SHARE   0x40   /* NC_SHARE: numrecs not cached */

typedef struct NC3_dim {
    char *name;             /* NUL-terminated; NFC UTF-8 if defined here, any bytes if read */
    size_t namelen;         /* strlen(name) */
    unsigned long long size;/* 0 for the unlimited dimension */
} NC3_dim;

typedef struct NC3_att {
    char *name;             /* NFC UTF-8 */
    size_t namelen;         /* strlen(name) */
    nc_type type;           /* external type */
    size_t nelems;          /* number of values */
    size_t xsz;             /* bytes of xvalue, padded to 4 */
    unsigned char *xvalue;  /* external values, zero padded; NULL if xsz == 0 */
} NC3_att;

typedef struct NC3_attarray {
    size_t n;               /* attributes in use */
    size_t cap;             /* allocated slots */
    NC3_att **v;            /* in definition order */
} NC3_attarray;

/* A written byte range [lo, hi) of a variable still waiting for its fill. */
typedef struct NC3_range {
    unsigned long long lo, hi;
} NC3_range;

typedef struct NC3_var {
    char *name;             /* NFC UTF-8 */
    size_t namelen;         /* strlen(name) */
    nc_type type;           /* external type */
    size_t ndims;           /* rank */
    int *dimids;            /* ndims dimension ids */
    unsigned long long *shape;  /* dim lengths; shape[0] == 0 for a record var */
    unsigned long long *dsizes; /* dsizes[i]: elements in one step of dim i-1 (rec dim excluded) */
    size_t xsz;             /* external bytes per element */
    unsigned long long len; /* padded bytes of the var (of one record if isrec) */
    long long begin;        /* file offset of the data (of record 0) */
    NC3_attarray atts;      /* variable attributes */
    int isrec;              /* first dimension is the unlimited one */
    int no_fill;            /* per-variable fill mode (fixed-size vars) */
    int fillpending;        /* fixed var whose fill is deferred (see nc3data.c) */
    size_t nwritten;        /* ranges in 'written' */
    size_t wcap;            /* allocated ranges */
    NC3_range *written;     /* sorted, disjoint written ranges while fillpending */
} NC3_var;

/* Open-addressing name index: slot holds index+1, 0 is empty. */
typedef struct NC3_index {
    size_t cap;             /* power of two, 0 when unused */
    uint32_t *slot;         /* cap entries */
} NC3_index;

typedef struct NC3_info {
    int version;            /* 1, 2 or 5 */
    int flags;              /* NC3_* */
    ncio *io;               /* storage */
    size_t chunk;           /* preferred I/O block (NC_ALIGN_CHUNK, hints) */
    NC3_dim **dims; size_t ndims, dimcap;   /* dimensions by id */
    NC3_index dimidx;       /* name -> dimid */
    NC3_attarray gatts;     /* global attributes */
    NC3_var **vars; size_t nvars, varcap;   /* variables by id */
    NC3_index varidx;       /* name -> varid */
    size_t xsz;             /* current header length */
    long long begin_var;    /* offset of the first fixed var's data */
    long long begin_rec;    /* offset of the record section */
    unsigned long long recsize; /* bytes per record */
    unsigned long long numrecs; /* records in the file */
    struct NC3_info *old;   /* definitions before redef (NULL otherwise) */
    unsigned char *iobuf;   /* NC3_IOBUF bytes of staging, allocated on demand */
    pthread_rwlock_t lock;  /* the dispatch slots on this handle (nc3file.c): shared
                             * by readers when nc3_reads_shared, else exclusive */
} NC3_info;

#define NC3_ISREADONLY(p) (((p)->flags & NC3_RDONLY) != 0)
#define NC3_INDEFINE(p) (((p)->flags & NC3_INDEF) != 0)

/* nc3data.c: whether reads of this handle may run in parallel. */
int nc3_reads_shared(const NC3_info *info);

/* nc3file.c */
int nc3_get(int ncid, NC **ncp, NC3_info **infop);
int nc3_iobuf(NC3_info *info, unsigned char **bufp);
int nc3_write_numrecs(NC3_info *info);
int nc3_read_numrecs(NC3_info *info);

/* nc3header.c */
size_t nc3_header_len(const NC3_info *info);
int nc3_header_write(NC3_info *info);
int nc3_header_read(NC3_info *info);
int nc3_var_shape(NC3_info *info, NC3_var *var);
int nc3_check_vlens(const NC3_info *info);

/* nc3meta.c */
NC3_info *nc3_info_new(void);
void nc3_info_free(NC3_info *info);
NC3_info *nc3_info_dup(const NC3_info *ref);
void nc3_var_free(NC3_var *var);
void nc3_att_free(NC3_att *att);
void nc3_attarray_free(NC3_attarray *a);
int nc3_dim_index_rebuild(NC3_info *info);
int nc3_var_index_rebuild(NC3_info *info);
int nc3_find_dim(const NC3_info *info, const char *name);
int nc3_find_var(const NC3_info *info, const char *name);
NC3_att *nc3_find_att(const NC3_attarray *a, const char *name, size_t *indexp);
int nc3_cktype(int version, nc_type type);
int nc3_unlimdim(const NC3_info *info);

/* nc3data.c */
int nc3_fill_value(const NC3_var *var, unsigned char xfill[8]);
int nc3_flush_fill(NC3_info *info, NC3_var *var);
int nc3_flush_all_fill(NC3_info *info);
int nc3_fill_records(NC3_info *info, unsigned long long from, unsigned long long to,
                     int only_new_from);
int nc3_set_numrecs(NC3_info *info, unsigned long long nrecs);
/* Data regions in order and not overlapping (nc3file.c): NC_ENOTNC if not. */
int nc3_check_voffs(const NC3_info *info);
int nc3_io_move(NC3_info *info, long long to, long long from, unsigned long long nbytes);

/* Slots implemented in nc3meta.c / nc3data.c, referenced by the table. */
int NC3_inq(int, int *, int *, int *, int *);
int NC3_inq_type(int, nc_type, char *, size_t *);
int NC3_def_dim(int, const char *, size_t, int *);
int NC3_inq_dimid(int, const char *, int *);
int NC3_inq_dim(int, int, char *, size_t *);
int NC3_inq_unlimdim(int, int *);
int NC3_rename_dim(int, int, const char *);
int NC3_inq_att(int, int, const char *, nc_type *, size_t *);
int NC3_inq_attid(int, int, const char *, int *);
int NC3_inq_attname(int, int, int, char *);
int NC3_rename_att(int, int, const char *, const char *);
int NC3_del_att(int, int, const char *);
int NC3_get_att(int, int, const char *, void *, nc_type);
int NC3_put_att(int, int, const char *, nc_type, size_t, const void *, nc_type);
int NC3_def_var(int, const char *, nc_type, int, const int *, int *);
int NC3_inq_varid(int, const char *, int *);
int NC3_rename_var(int, int, const char *);
int NC3_inq_var_all(int, int, char *, nc_type *, int *, int *, int *, int *, int *, int *,
                    int *, int *, size_t *, int *, void *, int *, unsigned int *, size_t *,
                    unsigned int *);
int NC3_def_var_fill(int, int, int, const void *);
int NC3_inq_unlimdims(int, int *, int *);
int NC3_inq_ncid(int, const char *, int *);
int NC3_inq_grps(int, int *, int *);
int NC3_inq_grpname(int, char *);
int NC3_inq_grpname_full(int, size_t *, char *);
int NC3_inq_grp_parent(int, int *);
int NC3_inq_grp_full_ncid(int, const char *, int *);
int NC3_inq_varids(int, int *, int *);
int NC3_inq_dimids(int, int *, int *, int);
int NC3_inq_typeids(int, int *, int *);
int NC3_inq_type_equal(int, nc_type, int, nc_type, int *);
int NC3_inq_typeid(int, const char *, nc_type *);
int NC3_get_vara(int, int, const size_t *, const size_t *, void *, nc_type);
int NC3_put_vara(int, int, const size_t *, const size_t *, const void *, nc_type);
int NC3_get_vars(int, int, const size_t *, const size_t *, const ptrdiff_t *, void *, nc_type);
int NC3_put_vars(int, int, const size_t *, const size_t *, const ptrdiff_t *, const void *, nc_type);

#endif /* NC3INTERNAL_H */
