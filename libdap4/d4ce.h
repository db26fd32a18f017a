/* d4ce.h: the DAP4 constraint expression (dap4.ce) parser.
 *
 * A constraint is a list of clauses separated by ';':
 *   /g/v[0:2:10][3]      a variable (its fully qualified name) and one
 *                        slice list per dimension: [i], [first:last],
 *                        [first:stride:last], [first:] / [first:stride:]
 *                        (to the end), [] (whole), or several slices
 *                        separated by ',' ([0:1,3])
 *   /S{a;b[1:2]}         a structure with only some of its fields
 *   /seq|x<10,"a"==y     a filter: predicates joined by ',' (and), each
 *                        two or three operands with < <= > >= == != ~=
 *   /d=[0:3]             a shared dimension redefined as a slice of itself
 * Names are separated by '/' (groups) and '.' (fields); a '\' escapes the
 * next character.  Parsing checks the syntax and the numbers (stride >= 1,
 * first <= last, values below 2^62), never the dataset; the errors are
 * NC_EDAPCONSTRAINT (with a message) and NC_ENOMEM.
 *
 * Self-contained (libc and netcdf.h only), so that the fuzz target and unit
 * tests compile it on its own.
 */
#ifndef D4CE_H
#define D4CE_H

#include <stddef.h>
#include <stdint.h>

#define D4CE_MAX_DEPTH 32    /* nesting of { } projections */
#define D4CE_MAX_DIMS 1024   /* slice lists on one variable (NC_MAX_VAR_DIMS) */
#define D4CE_TOEND UINT64_MAX /* last of "[first:]" */

typedef struct D4ce_range {
    uint64_t first, stride, last; /* last D4CE_TOEND: up to the end */
} D4ce_range;

typedef struct D4ce_dim {
    size_t nranges;      /* 0: "[]", the whole dimension */
    D4ce_range *ranges;
} D4ce_dim;

typedef struct D4ce D4ce;

typedef struct D4ce_clause {
    char *fqn;           /* "/g/v" or "/g/S.f": names unescaped, a leading '/' added */
    int isdim;           /* "/d=[..]": fqn names a dimension, dims[0] its slice */
    size_t ndims;
    D4ce_dim *dims;
    D4ce *fields;        /* "{...}" projection of a structure, or NULL */
    char *filter;        /* "|..." in normal form (no '|'), or NULL */
} D4ce_clause;

struct D4ce {
    size_t n;
    D4ce_clause *c;
};

/* Parse text (len bytes, already percent-decoded) into *cep.  An empty or
 * blank text gives an empty list.  On NC_EDAPCONSTRAINT msg (msglen
 * bytes, may be NULL) says what is wrong and where. */
int d4ce_parse(const char *text, size_t len, D4ce **cep, char *msg, size_t msglen);
void d4ce_free(D4ce *ce);
/* The normal form: clauses joined by ';', names escaped, every slice
 * "[first:stride:last]" (or "[first:stride:]", "[]"), filters with no
 * blanks.  Parsing the normal form gives the same normal form. */
int d4ce_format(const D4ce *ce, char **outp);
/* The clause naming the variable fqn (not a dimension), or NULL. */
const D4ce_clause *d4ce_find(const D4ce *ce, const char *fqn);
/* Whether the constraint only picks variables and strided slices of them
 * (no dimension redefinition, projection, filter or slice list): then a
 * variable of the constrained response is exactly the strided slice of the
 * variable in the full dataset. */
int d4ce_is_simple(const D4ce *ce);
/* Escape a name for a constraint (the characters the grammar uses get a
 * '\'), into out (cap bytes); the length, or what it would be. */
size_t d4ce_escape(const char *name, char *out, size_t cap);

#endif /* D4CE_H */
