/* copyspec.h: nccopy's -c (chunking) and -F (filter) specifications.
 *
 * Both parsers follow upstream nccopy's syntax and its quirks (see the
 * comments in chunkspec.c and filteropt.c).  They never exit: they return
 * an NC_* code, and everything they allocate is released by the matching
 * _free function, so a fuzz target can call them in a loop. */
#ifndef COPYSPEC_H
#define COPYSPEC_H

#include <stddef.h>
#include "netcdf.h"

/* One "-c var:..." entry, keyed by the input variable. */
typedef struct {
    int igrp, ivar;             /* the input variable */
    int omit;                   /* "var:" (no sizes): not chunked */
    int kind;                   /* NC_CHUNKED, NC_CONTIGUOUS or NC_COMPACT */
    size_t rank;
    size_t sizes[NC_MAX_VAR_DIMS];
} cs_var;

/* Every -c given, parsed against the open input file. */
typedef struct {
    int dim_omit;               /* "-c /": no chunking from dimensions */
    size_t ndims;               /* last "dim/n,..." spec: ids and sizes */
    int *dimids;
    size_t *dimsizes;
    size_t nvars, cap;          /* "var:..." specs, first one for a var wins */
    cs_var *vars;
} chunkspecs;

/* Parses one -c argument; "var:..." when it has a ':', else dimensions
 * (a later dimension spec replaces an earlier one, as upstream).
 * NC_EINVAL for a malformed spec, NC_EBADCHUNK for a size larger than its
 * dimension, a lookup error for an unknown name. */
int chunkspec_parse(chunkspecs *cs, int igrp, const char *spec);
void chunkspec_free(chunkspecs *cs);

const cs_var *chunkspec_var(const chunkspecs *cs, int igrp, int ivar);
int chunkspec_var_omit(const chunkspecs *cs, int igrp, int ivar);
/* 1 and *sizep if a dimension spec names the dimension */
int chunkspec_dim(const chunkspecs *cs, int dimid, size_t *sizep);

/* One -F entry: a variable (full name with CDL escapes, or "*") and one
 * filter, or "none" for that variable. */
typedef struct {
    char *fqn;
    int nofilter;
    unsigned int id;
    size_t nparams;
    unsigned int *params;
} filteropt;

typedef struct {
    int suppress;               /* "-F none" or "-F *,none" */
    size_t n, cap;
    filteropt *opts;
} filteropts;

/* Parses one -F argument "vars,filters" where vars is "*" or names joined
 * by '&' and filters is "none" or "id,params|id,params...".  Returns
 * 1 in *nc4 when the argument asks for netCDF-4 output (all but the
 * global "none"). */
int filteropt_parse(filteropts *fo, const char *arg, int *nc4);
void filteropt_free(filteropts *fo);

#endif
