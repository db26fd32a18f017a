/* dnotnc.c: the shared slot implementations declared in netcdf_dispatch.h.
 *
 * A format points a slot here instead of writing its own refusal:
 * NC_RO_* (read-only formats) answer NC_EPERM, NC_NOTNC4_* (no enhanced
 * model) NC_ENOTNC4, NC_NOOP_* report "no filters".  NC_NOTNC3_get/put_varm
 * are the generic mapped access of dvarx.c.
 */
#include "config.h"
#include "ncdispatch.h"

/* ---- read-only formats ------------------------------------------------------ */

int NC_RO_create(const char *path, int cmode, size_t initialsz, int basepe,
                 size_t *chunksizehintp, void *parameters, const NC_Dispatch *table, int ncid)
{ (void)path; (void)cmode; (void)initialsz; (void)basepe; (void)chunksizehintp;
  (void)parameters; (void)table; (void)ncid; return NC_EPERM; }
int NC_RO_redef(int ncid) { (void)ncid; return NC_EPERM; }
int NC_RO__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align)
{ (void)ncid; (void)h_minfree; (void)v_align; (void)v_minfree; (void)r_align; return NC_EPERM; }
int NC_RO_sync(int ncid) { (void)ncid; return NC_EPERM; }
int NC_RO_def_var_fill(int ncid, int varid, int no_fill, const void *fill)
{ (void)ncid; (void)varid; (void)no_fill; (void)fill; return NC_EPERM; }
int NC_RO_rename_att(int ncid, int varid, const char *name, const char *newname)
{ (void)ncid; (void)varid; (void)name; (void)newname; return NC_EPERM; }
int NC_RO_del_att(int ncid, int varid, const char *name)
{ (void)ncid; (void)varid; (void)name; return NC_EPERM; }
int NC_RO_put_att(int ncid, int varid, const char *name, nc_type datatype, size_t len,
                  const void *value, nc_type memtype)
{ (void)ncid; (void)varid; (void)name; (void)datatype; (void)len; (void)value; (void)memtype;
  return NC_EPERM; }
int NC_RO_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp, int *varidp)
{ (void)ncid; (void)name; (void)xtype; (void)ndims; (void)dimidsp; (void)varidp; return NC_EPERM; }
int NC_RO_rename_var(int ncid, int varid, const char *name)
{ (void)ncid; (void)varid; (void)name; return NC_EPERM; }
int NC_RO_put_vara(int ncid, int varid, const size_t *start, const size_t *count,
                   const void *value, nc_type memtype)
{ (void)ncid; (void)varid; (void)start; (void)count; (void)value; (void)memtype; return NC_EPERM; }
int NC_RO_def_dim(int ncid, const char *name, size_t len, int *idp)
{ (void)ncid; (void)name; (void)len; (void)idp; return NC_EPERM; }
int NC_RO_rename_dim(int ncid, int dimid, const char *name)
{ (void)ncid; (void)dimid; (void)name; return NC_EPERM; }
int NC_RO_set_fill(int ncid, int fillmode, int *old_modep)
{ (void)ncid; (void)fillmode; (void)old_modep; return NC_EPERM; }

/* ---- formats without the enhanced model ---------------------------------------- */

int NC_NOTNC4_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams, const unsigned int *parms)
{ (void)ncid; (void)varid; (void)id; (void)nparams; (void)parms; return NC_ENOTNC4; }
int NC_NOTNC4_inq_var_filter_ids(int ncid, int varid, size_t *nfilters, unsigned int *filterids)
{ (void)ncid; (void)varid; (void)nfilters; (void)filterids; return NC_ENOTNC4; }
int NC_NOTNC4_inq_var_filter_info(int ncid, int varid, unsigned int id, size_t *nparams, unsigned int *params)
{ (void)ncid; (void)varid; (void)id; (void)nparams; (void)params; return NC_ENOTNC4; }
int NC_NOTNC4_def_grp(int ncid, const char *name, int *idp)
{ (void)ncid; (void)name; (void)idp; return NC_ENOTNC4; }
int NC_NOTNC4_rename_grp(int ncid, const char *name)
{ (void)ncid; (void)name; return NC_ENOTNC4; }
int NC_NOTNC4_def_compound(int ncid, size_t size, const char *name, nc_type *idp)
{ (void)ncid; (void)size; (void)name; (void)idp; return NC_ENOTNC4; }
int NC_NOTNC4_insert_compound(int ncid, nc_type xtype, const char *name, size_t offset, nc_type field)
{ (void)ncid; (void)xtype; (void)name; (void)offset; (void)field; return NC_ENOTNC4; }
int NC_NOTNC4_insert_array_compound(int ncid, nc_type xtype, const char *name, size_t offset,
                                    nc_type field, int ndims, const int *sizes)
{ (void)ncid; (void)xtype; (void)name; (void)offset; (void)field; (void)ndims; (void)sizes;
  return NC_ENOTNC4; }
int NC_NOTNC4_inq_typeid(int ncid, const char *name, nc_type *idp)
{ (void)ncid; (void)name; (void)idp; return NC_ENOTNC4; }
int NC_NOTNC4_inq_compound_field(int ncid, nc_type xtype, int fieldid, char *name, size_t *offsetp,
                                 nc_type *fieldtypep, int *ndimsp, int *sizesp)
{ (void)ncid; (void)xtype; (void)fieldid; (void)name; (void)offsetp; (void)fieldtypep;
  (void)ndimsp; (void)sizesp; return NC_ENOTNC4; }
int NC_NOTNC4_inq_compound_fieldindex(int ncid, nc_type xtype, const char *name, int *idp)
{ (void)ncid; (void)xtype; (void)name; (void)idp; return NC_ENOTNC4; }
int NC_NOTNC4_def_vlen(int ncid, const char *name, nc_type base, nc_type *idp)
{ (void)ncid; (void)name; (void)base; (void)idp; return NC_ENOTNC4; }
int NC_NOTNC4_put_vlen_element(int ncid, int typeid1, void *elem, size_t len, const void *data)
{ (void)ncid; (void)typeid1; (void)elem; (void)len; (void)data; return NC_ENOTNC4; }
int NC_NOTNC4_get_vlen_element(int ncid, int typeid1, const void *elem, size_t *lenp, void *data)
{ (void)ncid; (void)typeid1; (void)elem; (void)lenp; (void)data; return NC_ENOTNC4; }
int NC_NOTNC4_def_enum(int ncid, nc_type base, const char *name, nc_type *idp)
{ (void)ncid; (void)base; (void)name; (void)idp; return NC_ENOTNC4; }
int NC_NOTNC4_insert_enum(int ncid, nc_type xtype, const char *name, const void *value)
{ (void)ncid; (void)xtype; (void)name; (void)value; return NC_ENOTNC4; }
int NC_NOTNC4_inq_enum_member(int ncid, nc_type xtype, int idx, char *name, void *value)
{ (void)ncid; (void)xtype; (void)idx; (void)name; (void)value; return NC_ENOTNC4; }
int NC_NOTNC4_inq_enum_ident(int ncid, nc_type xtype, long long value, char *ident)
{ (void)ncid; (void)xtype; (void)value; (void)ident; return NC_ENOTNC4; }
int NC_NOTNC4_def_opaque(int ncid, size_t size, const char *name, nc_type *idp)
{ (void)ncid; (void)size; (void)name; (void)idp; return NC_ENOTNC4; }
int NC_NOTNC4_def_var_deflate(int ncid, int varid, int shuffle, int deflate, int level)
{ (void)ncid; (void)varid; (void)shuffle; (void)deflate; (void)level; return NC_ENOTNC4; }
int NC_NOTNC4_def_var_fletcher32(int ncid, int varid, int fletcher32)
{ (void)ncid; (void)varid; (void)fletcher32; return NC_ENOTNC4; }
int NC_NOTNC4_def_var_chunking(int ncid, int varid, int storage, const size_t *sizes)
{ (void)ncid; (void)varid; (void)storage; (void)sizes; return NC_ENOTNC4; }
int NC_NOTNC4_def_var_endian(int ncid, int varid, int endian)
{ (void)ncid; (void)varid; (void)endian; return NC_ENOTNC4; }
int NC_NOTNC4_set_var_chunk_cache(int ncid, int varid, size_t size, size_t nelems, float preemption)
{ (void)ncid; (void)varid; (void)size; (void)nelems; (void)preemption; return NC_ENOTNC4; }
int NC_NOTNC4_get_var_chunk_cache(int ncid, int varid, size_t *sizep, size_t *nelemsp, float *preemptionp)
{ (void)ncid; (void)varid; (void)sizep; (void)nelemsp; (void)preemptionp; return NC_ENOTNC4; }
int NC_NOTNC4_var_par_access(int ncid, int varid, int par_access)
{ (void)ncid; (void)varid; (void)par_access; return NC_ENOTNC4; }
int NC_NOTNC4_inq_ncid(int ncid, const char *name, int *grp_ncid)
{ (void)ncid; (void)name; (void)grp_ncid; return NC_ENOTNC4; }
int NC_NOTNC4_inq_grps(int ncid, int *numgrps, int *ncids)
{ (void)ncid; (void)numgrps; (void)ncids; return NC_ENOTNC4; }
int NC_NOTNC4_inq_grpname(int ncid, char *name)
{ (void)ncid; (void)name; return NC_ENOTNC4; }
int NC_NOTNC4_inq_grpname_full(int ncid, size_t *lenp, char *name)
{ (void)ncid; (void)lenp; (void)name; return NC_ENOTNC4; }
int NC_NOTNC4_inq_grp_parent(int ncid, int *parent)
{ (void)ncid; (void)parent; return NC_ENOTNC4; }
int NC_NOTNC4_inq_grp_full_ncid(int ncid, const char *name, int *grp_ncid)
{ (void)ncid; (void)name; (void)grp_ncid; return NC_ENOTNC4; }
int NC_NOTNC4_inq_varids(int ncid, int *nvars, int *varids)
{ (void)ncid; (void)nvars; (void)varids; return NC_ENOTNC4; }
int NC_NOTNC4_inq_dimids(int ncid, int *ndims, int *dimids, int include_parents)
{ (void)ncid; (void)ndims; (void)dimids; (void)include_parents; return NC_ENOTNC4; }
int NC_NOTNC4_inq_typeids(int ncid, int *ntypes, int *typeids)
{ (void)ncid; (void)ntypes; (void)typeids; return NC_ENOTNC4; }
int NC_NOTNC4_inq_user_type(int ncid, nc_type xtype, char *name, size_t *size, nc_type *base,
                            size_t *nfields, int *classp)
{ (void)ncid; (void)xtype; (void)name; (void)size; (void)base; (void)nfields; (void)classp;
  return NC_ENOTNC4; }
int NC_NOTNC4_def_var_quantize(int ncid, int varid, int mode, int nsd)
{ (void)ncid; (void)varid; (void)mode; (void)nsd; return NC_ENOTNC4; }
int NC_NOTNC4_inq_var_quantize(int ncid, int varid, int *modep, int *nsdp)
{ (void)ncid; (void)varid; (void)modep; (void)nsdp; return NC_ENOTNC4; }

/* ---- formats without filters ----------------------------------------------------- */

int NC_NOOP_inq_var_filter_ids(int ncid, int varid, size_t *nfilters, unsigned int *filterids)
{ (void)ncid; (void)varid; (void)filterids; if (nfilters) *nfilters = 0; return NC_NOERR; }
int NC_NOOP_inq_var_filter_info(int ncid, int varid, unsigned int id, size_t *nparams, unsigned int *params)
{ (void)ncid; (void)varid; (void)id; (void)nparams; (void)params; return NC_ENOFILTER; }
int NC_NOOP_inq_filter_avail(int ncid, unsigned id)
{ (void)ncid; (void)id; return NC_ENOFILTER; }
