/* ncinstance.h: type helpers shared by dinstance.c, dfilter.c and daux.c.
 *
 * They work for atomic types without looking at the file, and for user
 * types through the public nc_inq_user_type()/nc_inq_compound_field()
 * calls, so they serve every format.
 */
#ifndef NCINSTANCE_H
#define NCINSTANCE_H

#include <stddef.h>
#include "netcdf.h"

/* nc_inq_user_type() that also answers for atomic types (class = the type
 * id, base type NC_NAT, no fields).  NC_EBADTYPE for NC_NAT or an id that
 * is neither atomic nor a user type of ncid. */
int NC_inq_any_type(int ncid, nc_type xtype, char *name, size_t *sizep, nc_type *basetypep,
                    size_t *nfieldsp, int *classp);

/* *fixedp = 1 when values of xtype hold no pointers (no strings, no vlens). */
int NC_type_fixed_size(int ncid, nc_type xtype, int *fixedp);

/* Memory alignment of xtype as a C compiler lays it out. */
int NC_type_alignment(int ncid, nc_type xtype, size_t *alignp);

#endif /* NCINSTANCE_H */
