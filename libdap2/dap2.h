/* dap2.h: the DAP2 (OPeNDAP) client layer, NC_FORMATX_DAP2, read-only.
 *
 * What the layer owns: URLs naming a DAP2 dataset (http(s)://..., or
 * file:///abs/path/NAME, which reads NAME.dds, NAME.das and NAME.dods from
 * disk as upstream's test mode does), the parse of the DDS and DAS texts
 * (hand-written recursive descent, every size checked, nesting limited),
 * the decoding of the XDR data of .dods responses, and upstream's mapping of
 * DAP2 into the netCDF classic model (grids, flattened structures and
 * sequences, string dimensions, anonymous dimension names, attribute
 * containers as dotted names, DODS_EXTRA unlimited dimension).
 *
 * Metadata lives in an in-memory classic file (the "substrate", as upstream
 * does it) created with NC_DISKLESS through the public API; every inquiry
 * slot forwards to it.  Data reads are served here: from the whole .dods
 * for file:// URLs, from constrained requests (one per read, small
 * variables prefetched together, a bounded response cache) for http(s).
 *
 * Errors: NC_EDDS / NC_EDAS for malformed texts, NC_EDATADDS for a
 * malformed or truncated .dods, NC_EDAPSVC for a server error response,
 * NC_ENOMEM, NC_EURL, NC_EPERM for every modifying call, ENOENT when a
 * file:// dataset has no .dds or .dods.  Memory: everything hangs on the
 * per-file D2file and is freed at close.  Threads: any thread may read
 * an open file while others do (docs/threads.md): what reads fill in is
 * behind the file's mutex, requests run outside it on sessions of their
 * own.
 */
#ifndef DAP2_H
#define DAP2_H

#include <stddef.h>
#include <stdint.h>
#include "netcdf.h"

/* ---- limits on hostile input --------------------------------------------- */

#define D2_MAX_DEPTH 64             /* nesting of DDS/DAS containers */
#define D2_MAX_RANK 64              /* dimensions of one declaration */
#define D2_MAX_NODES 1000000        /* nodes of one DDS or DAS */
#define D2_MAX_ELEMS ((size_t)1 << 40) /* elements of one declared array */

/* ---- the DDS tree ----------------------------------------------------------- */

enum { D2_NAT = 0, D2_BYTE, D2_INT16, D2_UINT16, D2_INT32, D2_UINT32, D2_FLOAT32,
       D2_FLOAT64, D2_STRING, D2_URL };
enum { D2_ATOMIC = 1, D2_STRUCTURE, D2_SEQUENCE, D2_GRID, D2_DATASET };

typedef struct D2dim {
    char *name;          /* NULL: anonymous */
    size_t size;
} D2dim;

typedef struct D2att {
    char *name;
    int atype;           /* D2_* */
    size_t nvalues;
    char **values;       /* the values as written in the DAS */
} D2att;

typedef struct D2node {
    int kind;                    /* D2_ATOMIC ... D2_DATASET */
    int atype;                   /* D2_* for atomic nodes */
    char *name;
    size_t rank;
    D2dim *dims;
    struct D2node **fields;      /* members; a grid's array first, then its maps */
    size_t nfields;
    struct D2node *parent;
    D2att *atts;                 /* attributes merged from the DAS */
    size_t natts, attcap;
    /* data of one decoded response (d2_decode) */
    void *col;                   /* values in netCDF order: native type, char* for strings */
    size_t ncol, colcap;         /* elements held / allocated */
    size_t nrecords;             /* sequences: records of the last instance */
    int bad;                     /* decode: column of a nested sequence (ragged) */
    void *map;                   /* the mapping's per-node state (dap2meta.c) */
} D2node;

/* ---- the DAS tree ------------------------------------------------------------ */

typedef struct D2das {
    char *name;                  /* NULL for the root */
    int isset;                   /* container, else attribute */
    int atype;
    char **values;
    size_t nvalues;
    struct D2das **subs;
    size_t nsubs;
    struct D2das *parent;
    int bound;                   /* attribute given to a variable by the merge */
} D2das;

/* Parse a DDS (or the DDS part of a .dods: text up to "Data:").  *rootp
 * gets the tree (free with d2_node_free).  NC_EDDS on malformed text,
 * NC_EDAPSVC when the text is a server "Error {...}" (message in *errmsg
 * when errmsg is not NULL, caller frees). */
int d2_parse_dds(const char *text, size_t len, D2node **rootp, char **errmsg);
int d2_parse_das(const char *text, size_t len, D2das **rootp, char **errmsg);
void d2_node_free(D2node *n);
void d2_das_free(D2das *d);

/* Where the XDR data of a .dods starts: the offset after the "Data:" line,
 * or NC_EDATADDS when there is none. */
int d2_find_data(const unsigned char *buf, size_t len, size_t *offp);

/* Decode the XDR data of a response whose DDS is root, appending each
 * atomic node's values to its column (cleared first).  NC_EDATADDS on
 * truncated or inconsistent data. */
int d2_decode(D2node *root, const unsigned char *xdr, size_t len);
/* As d2_decode for the XDR at buf + off (len bytes in all), but a response
 * holding one numeric array is decoded in place: buf becomes that array's
 * column (*tookp = 1; the caller no longer frees it) and the response text
 * is overwritten.  Otherwise *tookp = 0 and buf is left as it was. */
int d2_decode_owned(D2node *root, unsigned char *buf, size_t off, size_t len, int *tookp);
void d2_clear_columns(D2node *root);

/* A .dods response holding one numeric array (a read of part of one
 * variable) decoded as it arrives straight into the caller's buffer: the
 * DDS text is parsed when its "Data:" line has come; when it is the
 * variable var alone with count values, the values go to out (native
 * values of var's DAP type) piece by piece; otherwise the whole body is
 * kept in body for the usual decoding. */
typedef struct D2direct {
    const D2node *var;           /* the variable expected (its DDS node) */
    void *out;
    size_t count, es, wire;
    int phase;                   /* 0 DDS text, 1 counts, 2 values, 3 done; -1 whole body */
    unsigned char carry[8];      /* a value split between two pieces */
    size_t ncarry, got;
    struct { unsigned char *data; size_t len, cap; } body; /* NUL-terminated */
} D2direct;
void d2_direct_init(D2direct *d, const D2node *var, void *out, size_t count);
/* The sink for the body's pieces: NC_EDATADDS when the counts are wrong. */
int d2_direct_sink(void *arg, const void *bytes, size_t n);
/* After the transfer: 1 when every value went to out, 0 when the body was
 * kept for the usual decoding, -1 when the response ended short. */
int d2_direct_done(const D2direct *d);

/* Merge the DAS into the DDS as upstream's client does: attributes of
 * variables, globals, DODS_* containers and orphans as dotted globals. */
int d2_merge_das(D2node *dds, D2das *das);

/* Size in memory of one value of an atomic DAP2 type (char* for strings). */
size_t d2_atomsize(int atype);
/* The classic type a DAP2 atomic type maps to (NC_BYTE for Byte, ...). */
nc_type d2_nctype(int atype);
/* The netCDF type of a DAP2 atomic type's values (NC_UBYTE for Byte,
 * NC_USHORT for UInt16, ...): reads in another type convert from it. */
nc_type d2_nativetype(int atype);
/* Full name of a node: names from the dataset down, joined by '.'. */
char *d2_fullname(const D2node *n);

#endif /* DAP2_H */
