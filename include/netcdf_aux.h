/* netcdf_aux.h: helpers built on the public API.
 *
 * Include after netcdf.h.  Compound types with C alignment, filter-spec
 * parsing, whole-file read/write, plugin-path lists, _NCProperties parsing.
 * Memory returned through a pointer-to-pointer belongs to the caller.
 */
#ifndef NCAUX_H
#define NCAUX_H

/* Field placement for ncaux_begin_compound(). */
#define NCAUX_ALIGN_C 0        /* as a C compiler lays out a struct */
#define NCAUX_ALIGN_UNIFORM 1  /* packed, no padding */

#if defined(__cplusplus)
extern "C" {
#endif

/* Older names of nc_reclaim_data(_all) and nc_copy_data(_all). */
EXTERNL int ncaux_reclaim_data(int ncid, int xtype, void *memory, size_t count);
EXTERNL int ncaux_reclaim_data_all(int ncid, int xtype, void *memory, size_t count);
EXTERNL int ncaux_copy_data(int ncid, int xtype, void *memory, size_t count, void *copy);
EXTERNL int ncaux_copy_data_all(int ncid, int xtype, void *memory, size_t count, void **copyp);
EXTERNL int ncaux_dump_data(int ncid, nc_type xtypeid, void *memory, size_t count, char **buf);

/* nc_inq_user_type() that also answers for atomic types. */
EXTERNL int ncaux_inq_any_type(int ncid, nc_type typeid, char *name, size_t *size, nc_type *basetypep, size_t *nfieldsp, int *classp);

/* One filter in HDF5 form: id and unsigned-int parameters. */
typedef struct NC_H5_Filterspec {
    unsigned int filterid;  /* HDF5 filter id */
    size_t nparams;         /* entries in params */
    unsigned int *params;   /* parameters */
} NC_H5_Filterspec;

/* Parse "id,p1,p2,..." (and lists separated by '|') into HDF5 form. */
EXTERNL int ncaux_h5filterspec_parse(const char *txt, unsigned int *idp, size_t *nparamsp, unsigned int **paramsp);
EXTERNL int ncaux_h5filterspec_parselist(const char *txt0, int *formatp, size_t *nspecsp, struct NC_H5_Filterspec ***vectorp);
EXTERNL int ncaux_h5filterspec_parse_parameter(const char *txt, size_t *nuiparamsp, unsigned int *uiparams);
EXTERNL void ncaux_h5filterspec_free(struct NC_H5_Filterspec *f);
/* Swap the two halves of an 8-byte parameter on big-endian machines. */
EXTERNL void ncaux_h5filterspec_fix8(unsigned char *mem, int decode);

/* Read a whole file into a new buffer; write a buffer to a file. */
EXTERNL int ncaux_readfile(const char *filename, size_t *sizep, void **content);
EXTERNL int ncaux_writefile(const char *filename, size_t size, void *content);

/* Alignment in memory of a type, or of a class of types. */
EXTERNL int ncaux_type_alignment(int xtype, int ncid, size_t *alignp);
EXTERNL int ncaux_class_alignment(int ncclass, size_t *alignp);

/* Build a compound type field by field; offsets follow alignmode. */
EXTERNL int ncaux_begin_compound(int ncid, const char *name, int alignmode, void **tag);
EXTERNL int ncaux_end_compound(void *tag, nc_type *xtypeid);
EXTERNL int ncaux_abort_compound(void *tag);
EXTERNL int ncaux_add_field(void *tag, const char *name, nc_type field_type, int ndims, const int *dimsizes);

/* Directory lists (see NCPluginList in netcdf_filter.h).  A separator of
 * '\0' means the platform's own (':' here); ';' is always accepted. */
struct NCPluginList;
EXTERNL int ncaux_plugin_path_parsen(size_t pathlen, const char *pathlist, char sep, struct NCPluginList *dirs);
EXTERNL int ncaux_plugin_path_parse(const char *pathlist, char sep, struct NCPluginList *dirs);
EXTERNL int ncaux_plugin_path_tostring(const struct NCPluginList *dirs, char sep, char **catp);
EXTERNL int ncaux_plugin_path_clear(struct NCPluginList *dirs);
EXTERNL int ncaux_plugin_path_reclaim(struct NCPluginList *dirs);
EXTERNL int ncaux_plugin_path_append(struct NCPluginList *dirs, const char *dir);
EXTERNL int ncaux_plugin_path_prepend(struct NCPluginList *dirs, const char *dir);

/* The global plugin path as one ';'-separated string (for Fortran). */
EXTERNL int ncaux_plugin_path_stringlen(void);
EXTERNL int ncaux_plugin_path_stringget(int pathlen, char *path);
EXTERNL int ncaux_plugin_path_stringset(int pathlen, const char *path);

/* Split an _NCProperties value into a NULL-terminated key,value,... vector. */
EXTERNL int ncaux_parse_provenance(const char *ncprop, char ***pairsp);

#if defined(__cplusplus)
}
#endif

#endif /* NCAUX_H */
