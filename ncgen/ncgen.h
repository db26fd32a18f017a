/* ncgen internal contract: the CDL model built by the parser (cdl.c) and the
 * "sink" interface through which it is emitted (genbin.c writes a netCDF file
 * through the public API, genc.c prints a C program doing the same calls).
 *
 * Flow: ncg_run() parses the header; on reaching "data:" (or the closing
 * brace) it fixes the format and fill values and calls sink->define(); each
 * variable's data is then converted into a typed native buffer and handed to
 * sink->put() in slabs of whole leading-dimension rows; at the end short
 * record variables are padded with fill records and sink->finish() closes.
 * On any error ncg_run() calls sink->abort(), which must remove any output.
 * Memory: the model belongs to the parser; sinks only borrow it. */
#ifndef NCGEN_H
#define NCGEN_H

#include <stddef.h>
#include <netcdf.h>

/* Model type codes: the atomic nc_type values, or NCG_UTYPE + i for the
 * user-defined type m->types[i] (the sink maps them to library type ids). */
#define NCG_UTYPE 0x10000

typedef struct ncg_group {
    char *name;
    int parent;                 /* index of the parent group, -1 for the root */
    int id;                     /* ncid given by the sink */
    const char *datap;          /* start of its data section (NULL: none) */
    int dataline;
} ncg_group;

typedef struct ncg_field {
    char *name;
    int type;                   /* model type code */
    int ndims;
    int dims[NC_MAX_VAR_DIMS];  /* array field sizes */
    size_t nelems;              /* product of dims (1 for a scalar field) */
    size_t offset;              /* in the native struct */
} ncg_field;

typedef struct ncg_econst {
    char *name;
    unsigned char val[8];       /* native value in the base type */
} ncg_econst;

typedef struct ncg_type {
    char *name;
    int grp;
    int cls;                    /* NC_COMPOUND, NC_VLEN, NC_ENUM, NC_OPAQUE */
    int base;                   /* vlen/enum base type code */
    size_t size, align;         /* native size (opaque: its size) and alignment */
    int hasptr;                 /* native values hold pointers (string, vlen) */
    ncg_field *fields; int nfields;
    ncg_econst *consts; int nconsts;
    int id;                     /* type id given by the sink */
} ncg_type;

typedef struct ncg_dim {
    char *name;
    int grp;
    size_t len;                 /* declared length; 0 for the unlimited one */
    int unlimited;
    int zero;                   /* declared "= 0", which is NC_UNLIMITED */
    size_t cur;                 /* unlimited: the most records data gave it */
    int id;                     /* id given by the sink */
} ncg_dim;

typedef struct ncg_att {
    char *name;
    int grp;
    int var;                    /* variable index, -1 for global */
    nc_type type;               /* model type code */
    size_t len;                 /* number of elements */
    void *data;                 /* native values (text for NC_CHAR; owned
                                 * strings and vlens for those types) */
    int empty;                  /* NC_CHAR written "": len is 1, data one NUL */
} ncg_att;

typedef struct ncg_var {
    char *name;
    int grp;
    int line;                   /* of its declaration, for messages */
    nc_type type;               /* model type code */
    int ndims;
    int dims[NC_MAX_VAR_DIMS];  /* indices into model dims */
    int id;
    int nofill;                 /* _NoFill attribute: -1 unset, 0/1 */
    unsigned char fill[8];      /* fill value in native form (atomic types) */
    void *ufill;                /* fill value of string and user types (owned) */
    /* netCDF-4 storage settings from special attributes; -1 when not given */
    int storage;                /* NC_CONTIGUOUS, NC_CHUNKED, NC_COMPACT */
    size_t *chunks; int nchunks;
    int deflate, shuffle, fletcher32, endian;
    char *filter;               /* _Filter text */
    int quantize, nsd;          /* NC_QUANTIZE_* (0: none) and its parameter */
    char cfill;                 /* pad character for char data */
    int has_data;
    size_t nrecs;               /* records written (record variables) */
} ncg_var;

typedef struct ncg_model {
    char *name;                 /* dataset name */
    ncg_group *groups; int ngroups;  /* [0] is the root, then preorder */
    ncg_type *types; int ntypes;
    int *typeorder;             /* order the types are defined in (upstream's) */
    ncg_dim *dims; int ndims;
    ncg_var *vars; int nvars;
    ncg_att *atts; int natts;   /* globals and per-variable, in CDL order */
    int format;                 /* NC_FORMAT_* finally chosen */
    int cmode;                  /* creation mode for nc_create */
    int nofill;                 /* -x */
    int unlimdim;               /* index of the unlimited dim or -1 */
    int specials;               /* the CDL used NaN or infinity words */
} ncg_model;

typedef struct ncg_sink {
    /* create, define everything, leave define mode */
    int (*define)(void *ctx, ncg_model *m);
    /* write count elements at start (rank = var ndims) from native buf */
    int (*put)(void *ctx, const ncg_model *m, int var, const size_t *start,
               const size_t *count, const void *buf);
    int (*finish)(void *ctx, const ncg_model *m);
    void (*abort)(void *ctx, const ncg_model *m);
} ncg_sink;

typedef struct ncg_options {
    const char *cdlname;        /* for messages */
    int kflag;                  /* NC_FORMAT_* from -k etc., 0 if none */
    int nofill;
    int header_only;            /* -h: define only, no data */
    int quiet;                  /* no messages (fuzzing) */
    const char *dataset_name;   /* -N */
    int lang_classic_only;      /* -l f77/java: force classic */
} ncg_options;

/* Parse CDL text of len bytes (need not be NUL-terminated) and emit it through
 * sink (may be NULL: syntax and semantic check only). Returns 0 on success,
 * non-zero after printing a message. The model is freed before return;
 * on success *dsname (if not NULL) receives a malloc'd copy of the dataset
 * name when it is needed before define (see outname callback). */
typedef int (*ncg_outname_fn)(void *ctx, const char *dataset_name);
int ncg_run(const char *text, size_t len, const ncg_options *opt,
            const ncg_sink *sink, void *ctx, ncg_outname_fn outname);

/* Sinks */
typedef struct ncg_bin {
    char *path;                 /* final output name */
    char *tmp;                  /* name written until success */
    int ncid;
    int created;                /* file open */
    int made;                   /* file exists on disk and is ours */
} ncg_bin;
extern const ncg_sink ncg_bin_sink;
/* -l c, -l f77 and -l java: data are captured per variable, the program is
 * printed at finish() (genf77.c holds the shared part) */
typedef struct ncg_lang {
    void *out;                  /* FILE* the program is printed to */
    const char *path;           /* netCDF file the program creates */
    const char *mainname;       /* -M: program / class name */
    int header_only;            /* -h: no data section */
    ncg_model *m;               /* borrowed from define() to finish() */
    unsigned char **data;       /* per variable: every value, native, row-major */
    size_t *cap, *len;          /* bytes allocated / valid */
    int nvars;
} ncg_lang;
extern const ncg_sink ncg_c_sink;
/* -l c for the enhanced model (genc4.c): the program is printed as the model
 * is emitted; ctx is the same ncg_lang */
extern const ncg_sink ncg_c4_sink;
/* the model uses groups, user types, strings, inner unlimited dimensions or
 * storage settings (chunking, filters, endianness, quantize) */
int ncg_enhanced(const ncg_model *m);
extern const ncg_sink ncg_f77_sink;
extern const ncg_sink ncg_java_sink;
/* sink methods shared by the text generators (ctx is an ncg_lang) */
int ncg_lang_define(void *ctx, ncg_model *m);
/* checks the model against the library and starts the capture; with
 * classic_types only the six classic types are accepted */
int ncg_lang_init(void *ctx, ncg_model *m, int classic_types);
int ncg_lang_put(void *ctx, const ncg_model *m, int var, const size_t *start,
                 const size_t *count, const void *buf);
void ncg_lang_free(ncg_lang *g);
size_t ncg_lang_nrecs(const ncg_lang *g);
size_t ncg_lang_dimlen(const ncg_lang *g, int dim);
/* data slabs of one variable in upstream ncgen's write order */
typedef int (*ncg_slab_fn)(void *ctx, int var, const size_t *start, const size_t *count,
                           const void *data, size_t n);
int ncg_lang_slabs(const ncg_lang *g, int var, ncg_slab_fn fn, void *ctx);
/* identifier made from a name (malloc'd, NULL when out of memory) */
char *ncg_lang_ident(const char *name);
/* identifiers of every variable and dimension of m; NC_ENOMEM on failure
 * (what was made is still freed by ncg_lang_free_idents) */
int ncg_lang_idents(const ncg_model *m, char ***vids, char ***dids);
void ncg_lang_free_idents(const ncg_model *m, char **vids, char **dids);
/* the abort method shared by the text generators */
void ncg_lang_abort(void *vctx, const ncg_model *m);
/* growable text; err is set on allocation failure and later calls do nothing */
typedef struct ncg_sb { char *p; size_t len, cap; int err; } ncg_sb;
int ncg_sb_add(ncg_sb *b, const char *s, size_t n);
int ncg_sb_puts(ncg_sb *b, const char *s);
int ncg_sb_printf(ncg_sb *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* size of one element of a classic type, 0 if not one */
size_t ncg_typesize(nc_type t);
/* native size of one element of any model type code */
size_t ncg_size(const ncg_model *m, int t);
/* library type id of a model type code (after define) */
int ncg_typeid(const ncg_model *m, int t);

#endif
