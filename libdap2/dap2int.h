/* dap2int.h: what the files of libdap2 share beyond dap2.h: the open
 * file's state, the variables of the mapping, URL parameters, fetching. */
#ifndef DAP2INT_H
#define DAP2INT_H

#include <pthread.h>
#include <stddef.h>
#include "dap2.h"
#include "ncdapurl.h"

struct nch_sessions;

/* One dimension of the classic view (upstream's CDF dimension nodes). */
typedef struct D2cdim {
    char *ocname;            /* DAP name; NULL: anonymous */
    size_t size;
    int isstring, isseq;     /* string length or sequence record dimension */
    struct D2cdim *base;     /* the dimension it was unified with */
    int index1;              /* anonymous: position in its variable + 1; else conflict index */
    struct D2node *array;    /* the variable (or container) it belongs to */
    char *ncname;            /* its netCDF name */
    int dimid;
    struct D2cdim *next;     /* every dimension made, for freeing */
} D2cdim;

/* One variable of the classic view. */
typedef struct D2var {
    D2node *node;            /* its atomic DDS node */
    int varid;
    nc_type type;            /* classic type (NC_CHAR for strings) */
    size_t ndims;            /* dimensions in the classic view, string dimension last */
    D2cdim **dims;
    int isstring;
    size_t strlen;           /* string variables: the last dimension's length */
    size_t nelems;           /* values excluding the string dimension */
    int inprefetch;          /* held whole by the prefetch response */
} D2var;

/* A response holding one variable whole (http(s) response cache). */
typedef struct D2cached {
    const D2node *var;       /* the variable's DDS node */
    D2node *resp;            /* the decoded response */
    size_t size;             /* its size in bytes */
} D2cached;

/* Per-node state of the mapping (D2node.map). */
typedef struct D2nm {
    char *basename;          /* legal name; a grid's array takes the grid's */
    char *fullname0;         /* dotted basenames when dimensions are named */
    D2cdim **dimset0;        /* declared dimensions */
    size_t nd0;
    D2cdim **dimsetall;      /* containers' (cloned), own, string, sequence */
    size_t ndall;
    size_t ndplus;           /* how many of the last of dimsetall are its own */
    D2cdim *stringdim, *seqdim;
    int usesequence;
    int invisible;
    int isvar;               /* in the list of variables */
    size_t maxstrlen;        /* DODS strlen attribute */
    char *dimname;           /* DODS dimName attribute */
    size_t userstrlen;       /* stringlength_VAR / maxstrlen_VAR parameter */
    struct D2node *basevar;  /* a variable with the same name and shape */
    size_t seqlimit;         /* http: the records a sequence is limited to ("limit"); 0: all */
} D2nm;

/* One projection of the user's constraint: a path of names, and the
 * hyperslab given on its last name ([first:stride:last] per dimension). */
typedef struct D2proj {
    char **names;
    size_t nnames;
    size_t nslab;            /* 0: the whole variable */
    size_t first[D2_MAX_RANK], stride[D2_MAX_RANK], last[D2_MAX_RANK];
} D2proj;

typedef NCDAP_param D2param; /* value "" when the key had none */

typedef struct D2file {
    int ncid;                /* our ncid */
    int subid;               /* the in-memory classic substrate */
    int isfile;              /* file:// URL: read NAME.dds/.das/.dods from disk */
    char *base;              /* file: the path without extension; http: the URL without query/fragment */
    char *query;             /* the user's constraint expression, or NULL */
    D2proj *projs;           /* its projections (http) */
    size_t nprojs;
    char *selection;         /* its selections ("&..."), passed on as they are, or NULL */
    D2param *params;         /* client parameters from the fragment and [..] prefixes */
    size_t nparams;
    D2node *dds;             /* the DDS the classic view was built from */
    D2das *das;
    D2node *data;            /* file: the tree of the .dods response, decoded */
    int dataloaded;
    unsigned char *dods;     /* file: the .dods bytes */
    size_t dodslen;
    D2var *vars;             /* by varid */
    size_t nvars;
    D2cdim *alldims;         /* every dimension made (list) */
    int recdimid;            /* -1 if none */
    size_t numrecs;
    size_t defaultstrlen;
    int fillmismatch;        /* a _FillValue takes its variable's type ("fillmismatch",
                              * default) or fails the open ("nofillmismatch") */
    /* Threads: reads on one handle may run at once.  lock guards the
     * prefetch, the response cache and the whole-.dods load (held across
     * the request only for the prefetch and the load, made once); other
     * requests run outside it, each on a session of its own from
     * sessions. */
    pthread_mutex_t lock;
    int haslock;
    struct nch_sessions *sessions; /* http(s): the idle sessions (nchttp.h); NULL for file:// */
    /* http(s): prefetch of small variables and the response cache */
    int prefetch;            /* prefetch at the first read ("prefetch", default on) */
    int prefetched;          /* the prefetch was made (or tried) */
    D2node *prefetchresp;    /* its response */
    size_t smalllimit;       /* prefetch variables of at most this many values */
    int cache;               /* keep whole-variable responses ("cache", default on) */
    D2cached *cached;        /* least recently used first */
    size_t ncached;
    size_t cachesize;        /* bytes held */
    size_t cachelimit;       /* "cachelimit", default 100 MiB */
    size_t cachecount;       /* "cachecount", default 100 */
    int showfetch;           /* "show=fetch" with logging on ("log" or NCLOGGING): each
                              * request's URL and time on stderr, as upstream's log */
    int wholevar;            /* "wholevar": a read fetches its whole variable (then cached) */
    int encode;              /* D2_ENCODE_*: which parts of a request URL are %XX-encoded
                              * ("encode=none|path|query|all", default query) */
} D2file;

#define D2_ENCODE_PATH 1
#define D2_ENCODE_QUERY 2

/* dap2url.c */
int d2_url_parse(const char *url, D2file *f);
const char *d2_param(const D2file *f, const char *key);
/* Parses f->query into f->projs and f->selection; NC_EDAPCONSTRAINT when
 * malformed. */
int d2_parse_constraint(D2file *f);
void d2_projs_free(D2file *f);
/* The user's projection of variable v, or NULL. */
const D2proj *d2_user_proj(const D2file *f, const D2node *v);
int d2_param_check(const D2file *f, const char *key, const char *sub);
/* The D2_ENCODE_* flags of the "encode" parameter, as upstream reads it: a
 * comma-separated list of none, path, query, all applied in order to no
 * flags; without the parameter, D2_ENCODE_QUERY. */
int d2_encode_flags(const D2file *f);
/* The request URL sent for url (scheme://authority/path.ext?query, as built
 * unencoded): the path and the query %XX-encoded as flags say (every byte
 * outside letters, digits and !#$&'()*+,-./:;=?@_~ as upstream, lowercase
 * hex; a '%' starting a valid %XX escape is kept), a part not encoded sent
 * as given but for space and control bytes, which no request line can
 * carry.  NULL when out of memory. */
char *d2_wire_url(const char *url, int flags);
void d2_params_free(D2file *f);

/* dap2meta.c: builds the classic view into the substrate. */
int d2_build(D2file *f);
void d2_meta_free(D2file *f);
/* The record count of a sequence node from the decoded data, NC_EDDS when
 * the sequence sits in an array. */

/* dap2fetch.c */
int d2_read_file(const char *path, unsigned char **bufp, size_t *lenp);
int d2_fetch_text(D2file *f, const char *ext, char **textp, size_t *lenp);
int d2_load_data(D2file *f);
/* http(s): the session (at open) and its end (at close). */
int d2_remote_open(D2file *f);
void d2_remote_close(D2file *f);
/* http(s): one request URL.dods?PROJECTIONS for the variables vars (whole),
 * or for one variable with the hyperslab start/count/stride over its nd
 * dimensions (those of the structure arrays above it first, as the classic
 * view orders them) when nvars is 1 and start is not NULL.  *respp gets the
 * decoded response (free with d2_node_free), *sizep its size in bytes. */
int d2_fetch_vars(D2file *f, const D2node *const *vars, size_t nvars, size_t nd,
                  const size_t *start, const size_t *count, const ptrdiff_t *stride,
                  D2node **respp, size_t *sizep);

/* http(s): the request of d2_fetch_vars for part of one variable, its
 * values (nvalues of them, native values of its DAP type) decoded straight
 * into out as the body arrives (*respp NULL); when the response is not that
 * array alone (or holds strings), *respp gets it decoded as d2_fetch_vars
 * does. */
int d2_fetch_direct(D2file *f, const D2node *var, size_t nd, const size_t *start,
                    const size_t *count, const ptrdiff_t *stride, void *out, size_t nvalues,
                    D2node **respp);

/* dap2dispatch.c: keeps resp, the response holding variable var whole
 * (size bytes), in the response cache, dropping the least recently used
 * to stay within its bounds; the cache owns resp (freed on failure). */
int d2_cache_put(D2file *f, const D2node *var, D2node *resp, size_t size);

#endif /* DAP2INT_H */
