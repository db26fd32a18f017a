/* nc4priv.h: helpers shared by the libsrc4 files, not part of the model's
 * contract (nc4model.h).  Each is defined in the file named beside it. */
#ifndef NC4PRIV_H
#define NC4PRIV_H

#include "nc4model.h"

/* nc4file.c: the root group of a file's ncid is ext_ncid | 0. */
#define NC4_GRP_NCID(f, g) ((f)->ext_ncid | (g)->hdr.id)

/* nc4file.c: find the group and check the file is writable (NC_EPERM). */
int nc4_find_grp_w(int ncid, NC4_file **fp, NC4_grp **gp);

/* nc4grp.c: NC_ENAMEINUSE if name is a variable, subgroup or user type
 * of g (the namespace upstream checks for vars, groups and types). */
int nc4_check_dup_name(NC4_grp *g, const char *name);
/* nc4grp.c: a new object's name, as upstream's nc4_check_name: NULL is
 * NC_EINVAL, then NC_check_name (NC_EBADNAME, NC_EMAXNAME).  libdispatch
 * leaves these checks to this layer so that they come in upstream's order. */
int nc4_check_name(const char *name);

/* nc4dim.c: recompute the coordinate-variable link of var after a rename or
 * a definition (var becomes/stops being the coordinate var of its first dim). */
void nc4_update_coord(NC4_var *var);

/* nc4att.c: reserved attribute names (upstream's NC_reservedatt table). */
enum { NC4_RES_READONLY = 1, NC4_RES_NAMEONLY = 2, NC4_RES_HIDDEN = 4 };
int nc4_reserved_att_flags(const char *name);
/* Delete attribute `name` of var (NULL = group) if present. */
int nc4_del_att_by_name(NC4_grp *g, NC4_var *var, const char *name);

/* nc4values.c */
/* Class of a type: the atomic id itself for atomic types, else tclass. */
int nc4_type_class(NC4_file *f, nc_type xtype);
/* Copy n values of xtype into a new buffer (*copyp, NULL for n == 0). */
int nc4_dup_values(NC4_file *f, nc_type xtype, const void *src, size_t n, void **copyp);

/* nc4type.c: atomic type name and size (NC_EBADTYPE). */
int nc4_atomic_name(nc_type xtype, const char **namep, size_t *sizep);

#endif /* NC4PRIV_H */
