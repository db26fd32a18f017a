/* hdf5stubs.c: weak placeholders so the library links while libsrc4 and
 * libhdf5 are written; every real definition overrides its stub.
 * TEMPORARY: removed once every function has its definition. */
#include "config.h"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "hdf5int.h"

__attribute__((weak)) void nc4_index_init(NC4_index *ix)
{ }
__attribute__((weak)) int nc4_index_add(NC4_index *ix, NC4_obj *obj)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_index_rename(NC4_index *ix, NC4_obj *obj, const char *newname)
{ return NC_ENOTBUILT; }
__attribute__((weak)) void nc4_index_remove(NC4_index *ix, size_t pos, int renumber)
{ }
__attribute__((weak)) void nc4_index_clear(NC4_index *ix)
{ }
__attribute__((weak)) int nc4_file_new(struct NC *nc, int ext_ncid, int cmode, int formatx, const NC4_storage_ops *ops, NC4_file **fp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) void nc4_file_free(NC4_file *f)
{ }
__attribute__((weak)) int nc4_new_grp(NC4_grp *parent, const char *name, NC4_grp **gp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_new_dim(NC4_grp *g, const char *name, size_t len, int unlimited, NC4_dim **dp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_new_var(NC4_grp *g, const char *name, nc_type xtype, int ndims, const int *dimids, NC4_var **vp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_new_type(NC4_grp *g, const char *name, int tclass, size_t size, nc_type base, NC4_type **tp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_new_field(NC4_type *t, const char *name, size_t offset, nc_type xtype, int ndims, const int *dimsizes)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_new_member(NC4_type *t, const char *name, long long value)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_set_att(NC4_grp *g, NC4_var *var, const char *name, nc_type xtype, size_t len, const void *data, NC4_att **ap)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_find_grp(int ncid, NC4_file **fp, NC4_grp **gp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_find_var(int ncid, int varid, NC4_file **fp, NC4_grp **gp, NC4_var **vp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_find_dim(NC4_file *f, int dimid, NC4_dim **dp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_find_type(NC4_file *f, nc_type xtype, NC4_type **tp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_att_list(NC4_grp *g, int varid, NC4_index **listp, NC4_var **varp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) size_t nc4_type_size(NC4_file *f, nc_type xtype)
{ return 0; }
__attribute__((weak)) int nc4_type_has_pointers(NC4_file *f, nc_type xtype)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4_copy_values(NC4_file *f, nc_type xtype, const void *src, void *dst, size_t n)
{ return NC_ENOTBUILT; }
__attribute__((weak)) void nc4_reclaim_values(NC4_file *f, nc_type xtype, void *data, size_t n)
{ }
__attribute__((weak)) int nc4_default_chunks(NC4_file *f, NC4_var *var)
{ return NC_ENOTBUILT; }
__attribute__((weak)) void nc4_var_shape(const NC4_var *var, size_t *shape)
{ }
__attribute__((weak)) int nc4_check_define(NC4_file *f)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq(int p0, int * p1, int * p2, int * p3, int * p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_type(int p0, nc_type p1, char * p2, size_t * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_dim(int p0, const char * p1, size_t p2, int * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_dimid(int p0, const char * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_dim(int p0, int p1, char * p2, size_t * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_unlimdim(int p0, int * p1)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_rename_dim(int p0, int p1, const char * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_att(int p0, int p1, const char * p2, nc_type * p3, size_t * p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_attid(int p0, int p1, const char * p2, int * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_attname(int p0, int p1, int p2, char * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_rename_att(int p0, int p1, const char * p2, const char * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_del_att(int p0, int p1, const char * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_get_att(int p0, int p1, const char * p2, void * p3, nc_type p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_put_att(int p0, int p1, const char * p2, nc_type p3, size_t p4, const void * p5, nc_type p6)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_var(int p0, const char * p1, nc_type p2, int p3, const int * p4, int * p5)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_varid(int p0, const char * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_rename_var(int p0, int p1, const char * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_var_all(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp, int *nattsp, int *shufflep, int *deflatep, int *deflate_levelp, int *fletcher32p, int *contiguousp, size_t *chunksizesp, int *no_fill, void *fill_valuep, int *endiannessp, unsigned int *idp, size_t *nparamsp, unsigned int *params)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_var_fill(int p0, int p1, int p2, const void * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_unlimdims(int p0, int * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_ncid(int p0, const char * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_grps(int p0, int * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_grpname(int p0, char * p1)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_grpname_full(int p0, size_t * p1, char * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_grp_parent(int p0, int * p1)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_grp_full_ncid(int p0, const char * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_varids(int p0, int * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_dimids(int p0, int * p1, int * p2, int p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_typeids(int p0, int * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_type_equal(int p0, nc_type p1, int p2, nc_type p3, int * p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_grp(int p0, const char * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_rename_grp(int p0, const char * p1)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_user_type(int p0, nc_type p1, char * p2, size_t * p3, nc_type * p4, size_t * p5, int * p6)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_typeid(int p0, const char * p1, nc_type * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_compound(int p0, size_t p1, const char * p2, nc_type * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_insert_compound(int p0, nc_type p1, const char * p2, size_t p3, nc_type p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_insert_array_compound(int p0, nc_type p1, const char * p2, size_t p3, nc_type p4, int p5, const int * p6)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_compound_field(int p0, nc_type p1, int p2, char * p3, size_t * p4, nc_type * p5, int * p6, int * p7)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_compound_fieldindex(int p0, nc_type p1, const char * p2, int * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_vlen(int p0, const char * p1, nc_type p2, nc_type * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_put_vlen_element(int p0, int p1, void * p2, size_t p3, const void * p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_get_vlen_element(int p0, int p1, const void * p2, size_t * p3, void * p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_enum(int p0, nc_type p1, const char * p2, nc_type * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_insert_enum(int p0, nc_type p1, const char * p2, const void * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_enum_member(int p0, nc_type p1, int p2, char * p3, void * p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_enum_ident(int p0, nc_type p1, long long p2, char * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_opaque(int p0, size_t p1, const char * p2, nc_type * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_var_deflate(int p0, int p1, int p2, int p3, int p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_var_fletcher32(int p0, int p1, int p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_var_chunking(int p0, int p1, int p2, const size_t * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_var_endian(int p0, int p1, int p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_var_filter(int p0, int p1, unsigned int p2, size_t p3, const unsigned int * p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_set_var_chunk_cache(int p0, int p1, size_t p2, size_t p3, float p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_get_var_chunk_cache(int p0, int p1, size_t * p2, size_t * p3, float * p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_var_filter_ids(int p0, int p1, size_t * p2, unsigned int * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_var_filter_info(int p0, int p1, unsigned int p2, size_t * p3, unsigned int * p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_def_var_quantize(int p0, int p1, int p2, int p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_var_quantize(int p0, int p1, int * p2, int * p3)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_set_fill(int p0, int p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_inq_format(int p0, int * p1)
{ return NC_ENOTBUILT; }
__attribute__((weak)) void nc4_get_default_cache(size_t *size, size_t *nelems, float *preemption)
{ }
__attribute__((weak)) void nc4h5_free_fmt(NC4_file *f, void *fmt)
{ }
__attribute__((weak)) int nc4h5_hdf5_type(NC4_file *f, nc_type xtype, int endianness, int file, hid_t *tidp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_atomic_from_hdf5(hid_t tid, nc_type *xtypep, int *endiannessp)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_find_type_for(NC4_file *f, NC4_grp *g, hid_t tid, nc_type *xtypep)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_read_type(NC4_file *f, NC4_grp *g, const char *name, hid_t tid)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_commit_type(NC4_file *f, NC4_type *t)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_read_atts(NC4_file *f, NC4_grp *g, NC4_var *var, hid_t obj)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_write_att(NC4_file *f, hid_t obj, const NC4_att *att)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_delete_att(hid_t obj, const char *name)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_write_int_att(hid_t obj, const char *name, int n, const int *values)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_write_text_att(hid_t obj, const char *name, const char *text)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_get_vara(int p0, int p1, const size_t * p2, const size_t * p3, void * p4, nc_type p5)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_put_vara(int p0, int p1, const size_t * p2, const size_t * p3, const void * p4, nc_type p5)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_get_vars(int p0, int p1, const size_t * p2, const size_t * p3, const ptrdiff_t * p4, void * p5, nc_type p6)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_put_vars(int p0, int p1, const size_t * p2, const size_t * p3, const ptrdiff_t * p4, const void * p5, nc_type p6)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_open(const char *path, int mode, int basepe, size_t *chunksizehintp, void *parameters, const NC_Dispatch *table, int ncid)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_create(const char *path, int cmode, size_t initialsz, int basepe, size_t *chunksizehintp, void *parameters, const NC_Dispatch *table, int ncid)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_flush(NC4_file *f)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int nc4h5_enddef(NC4_file *f)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_redef(int p0)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5__enddef(int p0, size_t p1, size_t p2, size_t p3, size_t p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_sync(int p0)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_abort(int p0)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_close(int p0, void * p1)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_inq_format_extended(int p0, int * p1, int * p2)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_set_var_chunk_cache(int p0, int p1, size_t p2, size_t p3, float p4)
{ return NC_ENOTBUILT; }
__attribute__((weak)) int NC4_HDF5_inq_filter_avail(int p0, unsigned int p1)
{ return NC_ENOTBUILT; }
__attribute__((weak)) const NC4_storage_ops nc4h5_ops;
