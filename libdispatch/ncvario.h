/* ncvario.h: libdispatch's internal data-access core (dvario.c), used by the
 * typed families, the v2 API and the generic vars/varm code. */
#ifndef NCVARIO_H
#define NCVARIO_H

#include "ncdispatch.h"

extern const size_t NC_ones[NC_MAX_VAR_DIMS];
extern const ptrdiff_t NC_stride_ones[NC_MAX_VAR_DIMS];
extern const size_t NC_zeros[NC_MAX_VAR_DIMS];

/* Type and rank of a variable. */
int NC_var_info(NC *nc, int ncid, int varid, nc_type *xtypep, int *ndimsp);
/* Current lengths of a variable's dimensions (records: the current count). */
int NC_var_shape(NC *nc, int ncid, int varid, int ndims, size_t *shape);

/* memtype NC_NAT means the variable's own type. */
int NC_get_var(int ncid, int varid, void *value, nc_type memtype);
int NC_get_var1(int ncid, int varid, const size_t *index, void *value, nc_type memtype);
int NC_get_vara(int ncid, int varid, const size_t *start, const size_t *count,
                void *value, nc_type memtype);
int NC_get_vars(int ncid, int varid, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, void *value, nc_type memtype);
int NC_get_varm(int ncid, int varid, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, const ptrdiff_t *imap, void *value, nc_type memtype);
int NC_put_var(int ncid, int varid, const void *value, nc_type memtype);
int NC_put_var1(int ncid, int varid, const size_t *index, const void *value, nc_type memtype);
int NC_put_vara(int ncid, int varid, const size_t *start, const size_t *count,
                const void *value, nc_type memtype);
int NC_put_vars(int ncid, int varid, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, const void *value, nc_type memtype);
int NC_put_varm(int ncid, int varid, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, const ptrdiff_t *imap, const void *value,
                nc_type memtype);

#endif /* NCVARIO_H */
