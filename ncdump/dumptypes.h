/* dumptypes.h: ncdump's view of user-defined types, and values of any
 * type as CDL text (internal to ncdump).
 *
 * The file's user-defined types are recorded once at open (init_types);
 * values are formatted into a growable string, because upstream places
 * them on a line only once their whole text is known.  Memory comes from
 * ncdump.c's run-scoped allocator, so a fatal error releases it. */
#ifndef DUMPTYPES_H
#define DUMPTYPES_H

#include <stddef.h>
#include "netcdf.h"

#define PRIM_LEN 100

/* Provided by ncdump.c. */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A library call that should not fail: on failure prints upstream's two
 * lines (the error text, then "Location: file F; line N" naming the
 * caller's source file and line) and ends the run. */
void check_at(int stat, const char *file, int line);
#define check(stat) check_at((stat), __FILE__, __LINE__)
void *xmalloc(size_t n);
void xfree(void *p);
void put_name(const char *name);
const char *type_name(nc_type t);
size_t type_size(nc_type t);
extern int float_digits, double_digits;

/* One field of a compound type. */
typedef struct {
    char name[NC_MAX_NAME + 1];
    size_t off;
    nc_type type;
    int rank;
    int sides[NC_MAX_VAR_DIMS];
    size_t nvals;            /* product of sides */
} field_t;

/* A user-defined type of the file, found once at open. */
typedef struct utype {
    nc_type tid;
    int ncid;                /* the group defining it */
    int cls;                 /* NC_VLEN, NC_OPAQUE, NC_ENUM, NC_COMPOUND */
    size_t size;             /* bytes of one value in memory */
    nc_type base;
    size_t nfields;
    char name[NC_MAX_NAME + 1];
    char *grp;               /* full name of the defining group */
    field_t *fields;
    struct utype *next;
} utype_t;
/* Growable string for values that are built before they are placed. */
typedef struct { char *s; size_t len, cap; } dstr;

int is_user_type(nc_type t);
utype_t *find_utype(nc_type t);        /* dies on an unknown id */
size_t elem_size(nc_type t);           /* bytes of one value in memory */
void init_types(int ncid);             /* records ncid's and its subgroups' types */
void types_reset(void);                /* forgets them (start of a run) */
void print_type_name(int locid, nc_type t);
void ds_cat(dstr *d, const char *s, size_t n);
void ds_puts(dstr *d, const char *s);
long long int_value(nc_type t, const void *p);
void ds_value(dstr *d, nc_type t, const void *vp);
int values_equal(nc_type t, const void *a, const void *b);

#endif
