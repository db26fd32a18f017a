/* d4int.h: the DAP4 client's private state (docs/dap4.md).
 *
 * Owns: one D4file per open dataset, hung on the model's NC4_file->fmt; the
 * DMR parser (d4meta.c: XML -> the enhanced model), the chunked data
 * response decoder (d4data.c) and the dispatch table (d4dispatch.c).
 * The metadata is the model's (libsrc4): every inquiry is answered there;
 * reads are served here.  Read-only: every modifying call is NC_EPERM.
 *
 * Errors: NC_EDMR for a DMR that is not one, NC_EDAP for data that does
 * not match its DMR (short, inconsistent, a count too large), NC_EDAPSVC
 * for a server's error chunk, NC_EDATADAP for a checksum mismatch.
 * Sizes read from a response are checked against the bytes left before
 * anything is allocated for them.
 */
#ifndef D4INT_H
#define D4INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "nc4model.h"

struct nch_session;
struct nch_sessions;

/* Limits on what a response may ask of us. */
#define D4_MAX_DEPTH 64          /* nesting of groups, structures, sequences */
#define D4_CACHE_BYTES (64u << 20) /* decoded slices kept per open dataset */
#define D4_CACHE_ENTRIES 32

/* One top-level variable: what serves its reads. */
typedef struct D4var {
    NC4_var *var;
    char *fqn;          /* "/g/v", escaped as a DAP4 constraint needs */
    size_t index;       /* position among the top-level variables */
    void *whole;        /* file:// : every value, decoded (memory form) */
    size_t nwhole;
} D4var;

/* A decoded slice kept for later reads (http only). */
typedef struct D4slice {
    char *ce;           /* the constraint that fetched it */
    D4var *dv;
    void *data;         /* nvals values of the variable's type, memory form */
    size_t nvals, bytes;
    unsigned long stamp;
} D4slice;

typedef struct D4file {
    NC4_file *f;
    int isfile;          /* file:// : NAME.dmr and NAME.dap on disk */
    char *base;          /* path (file) or URL (http) without query/fragment */
    char *ce;            /* the user's dap4.ce constraint in normal form; NULL = none */
    struct D4ce *cep;    /* the same, parsed (d4ce.h) */
    int checksum;        /* dap4.checksum (default true): ask for and verify CRC32s */
    int crc_ignore;      /* #hyrax: the data carry CRC32s, not checked */
    struct nch_session *http; /* the open's session, taken from sessions */
    struct nch_sessions *sessions; /* http: the idle sessions (nchttp.h) */
    D4var *vars;         /* top-level variables, in serialization order */
    size_t nvars;
    /* Threads share the handle: lock guards what reads fill in (loaded,
     * prefetched, every D4var's whole until it is set, the slice cache).
     * A variable's whole, once set, stays until close. */
    pthread_mutex_t lock;
    int haslock;
    int loaded;          /* file:// : the whole response decoded */
    int prefetched;      /* http: the small variables were fetched together */
    D4slice cache[D4_CACHE_ENTRIES];
    size_t cachebytes;
    unsigned long clock;
} D4file;

/* ---- d4meta.c: the DMR ---- */
/* Parse the DMR text (len bytes) into the model of f (root group empty);
 * fills d->vars.  NC_EDMR for what is not a DMR, NC_ENOMEM. */
int d4_build(D4file *d, const char *dmr, size_t len);
/* Parse a DMR only to list its top-level variables' names (fqn, in
 * serialization order) and whether any carries _DAP4_Checksum_CRC32; for
 * the DMR at the head of a data response.  *names freed by the caller
 * (each, then the array). */
int d4_dmr_vars(const char *dmr, size_t len, char ***namesp, size_t *np, int *hascrcp);

/* ---- d4data.c: the chunked data response ---- */
/* CRC32 (IEEE) of n bytes, continuing from crc (0 to start). */
uint32_t d4_crc32(uint32_t crc, const unsigned char *p, size_t n);
/* Values in one top-level variable (the product of its dimensions). */
size_t d4_var_nvals(const NC4_var *var);
/* The top-level variable "/g/h/v" of d, or NULL. */
D4var *d4_find_fqn(D4file *d, const char *fqn);

/* A data response read as it arrives, in pieces of any size: the chunk
 * headers parsed as they come, the first chunk (the DMR) kept until it is
 * complete, then the values of its variables.  Those of atomic and enum
 * types are copied to their buffer (byte-swapped when the data's order is
 * not ours) and their CRC32 computed on the way; from the first variable
 * of another type on, the rest of the data is gathered and decoded at the
 * end.  The first error of a variable stops decoding but not the reading
 * of the chunks, so that an error chunk or a truncation after it is still
 * what is reported, as when the response is read whole. */
typedef int (*d4_take_fn)(D4file *d, D4var *dv, void *vals, size_t nvals, void *arg);
typedef struct D4resp {
    /* set by d4_resp_init */
    D4file *d;
    size_t nvals;        /* values per variable (the response holds one slice); 0: whole shapes */
    d4_take_fn take;     /* gets each variable's values, owns them after; NULL: the DMR
                          * only (the chunks still checked to the last) */
    void *arg;
    D4var *destvar;      /* its values go to dest (nvals of them, the caller's buffer) */
    void *dest;
    /* the chunks */
    unsigned char hdr[4];
    unsigned nhdr;
    int inchunk;         /* hdr complete, payload of left bytes follows */
    unsigned flags;
    size_t left;
    unsigned long chunk; /* index of the current chunk; 0 is the DMR's */
    int ended;           /* the last chunk is complete: anything after it is ignored */
    int error;           /* a complete error chunk: its text in text */
    unsigned char *text; /* the DMR, or an error chunk's text */
    size_t ntext, captext;
    int little;          /* the first chunk's byte order flag */
    int nomem;
    /* the variables, once the DMR is known */
    char **names;
    size_t nnames, cur;
    int crc, verify, swap;
    int stat;            /* the first error met in the values */
    /* the current variable (atomic or enum values) */
    D4var *dv;
    size_t n, size, need, got, cap;
    unsigned char *out;
    int own;             /* out is ours (not dest) */
    int incrc;
    unsigned ncrc;
    unsigned char crcb[4];
    uint32_t crcv;
    /* the rest of the data, from the first variable of another type */
    int gather;
    unsigned char *rest;
    size_t nrest, caprest;
} D4resp;
void d4_resp_init(D4resp *r, D4file *d, size_t nvals, d4_take_fn take, void *arg, D4var *destvar,
                  void *dest);
/* Feed the next n bytes (an nch_sink): NC_ENOMEM stops, decoding errors
 * are kept for d4_resp_finish. */
int d4_resp_feed(void *r, const void *bytes, size_t n);
/* The outcome once the bytes are all fed (tstat: the transfer's own
 * error, which wins); frees what r holds.  An error chunk is NC_EDAPSVC
 * (its text on stderr), a response that ends early NC_EDAP.  With take
 * NULL, *dmrp gets the DMR text (NUL-terminated, the caller frees). */
int d4_resp_finish(D4resp *r, int tstat, char **dmrp, size_t *dmrlenp);
/* Decoder over serialized data. */
typedef struct D4dec {
    const unsigned char *p, *end;
    int swap;            /* data byte order differs from ours */
    NC4_file *f;
    int depth;
} D4dec;
/* Decode n values of xtype into out (zeroed, n * size bytes, memory form).
 * On error what was decoded is reclaimed. */
int d4_decode(D4dec *dec, nc_type xtype, size_t n, void *out);
/* Decode one top-level variable of nvals values (its checksum after it
 * when crc; verified when verify) into a new buffer, or into *outp when it
 * is not NULL (nvals values of a type without pointers: the caller's). */
int d4_decode_var(D4dec *dec, NC4_var *var, size_t nvals, int crc, int verify, void **outp);

/* ---- d4dispatch.c ---- */
void d4_cache_clear(D4file *d);

#endif /* D4INT_H */
