/* zmeta.h: what the metadata parts of libnczarr (zfile.c, zmeta_*.c,
 * zjson.c, zutil.c) share; private to them (the data path uses zinternal.h). */
#ifndef ZMETA_H
#define ZMETA_H

#include "zinternal.h"

/* Reserved attribute names of the NCZarr v2 layout (upstream 4.10.1 puts
 * them in .zattrs; 4.8/4.9.0 put the first three in .zgroup/.zarray,
 * upper-case before 4.9). */
#define NCZ_SUPERBLOCK "_nczarr_superblock"
#define NCZ_GROUP "_nczarr_group"
#define NCZ_ARRAY "_nczarr_array"
#define NCZ_ATTR "_nczarr_attr"
#define NCZ_ATTRS_NEW "_nczarr_attrs" /* later upstream spelling, read */
#define NCZ_MAXSTRLEN_ATT "_nczarr_maxstrlen"
#define NCZ_DFLT_MAXSTRLEN_ATT "_nczarr_default_maxstrlen"
#define NCZ_XARRAY_DIMS "_ARRAY_DIMENSIONS"
#define NCZ_XARRAY_SCALAR "_scalar_"
#define NCZ_JSON_DTYPE "|J0"   /* attribute type: an NC_CHAR holding JSON */
#define NCZ_ANON_DIM "_Anonymous_Dim" /* pure Zarr arrays without dim names */

/* ---- JSON helpers (zjson.c) ---- */
const char *ncz_json_text(json_object *obj);
/* obj as the text a JSON-valued attribute reads as, upstream's layout:
 * `{"k": v, "k2": v2}`, arrays `[1,2]`, numbers as they were written.
 * A new string in *textp (NC_ENOMEM). */
int ncz_json_attr_text(json_object *obj, char **textp);
/* Member of a dict, NULL if absent or not a dict. */
json_object *ncz_json_get(json_object *dict, const char *key);
/* String member, NULL if absent or not a string. */
const char *ncz_json_string(json_object *dict, const char *key);
/* Add/append taking ownership of val (released on failure): NC_ENOMEM. */
int ncz_json_add(json_object *dict, const char *key, json_object *val);
int ncz_json_append(json_object *arr, json_object *val);

/* ---- the metadata store (zmeta_store.c): reads go through the
 * consolidated metadata when the file was opened with it; writes go to the
 * store and, when consolidating, into the collected dict. ---- */
int ncz_meta_read(NC4_file *f, const char *key, json_object **objp); /* NC_EEMPTY */
int ncz_meta_write(NC4_file *f, const char *key, json_object *obj);
int ncz_meta_exists(NC4_file *f, const char *key);
/* Immediate children names under prefix (a group key, "" = root). */
int ncz_meta_list(NC4_file *f, const char *prefix, NCZ_keys *out);
/* Which Zarr format the first metadata object found below the root
 * belongs to (2: .zgroup/.zarray/.zattrs/.zmetadata, 3: zarr.json; 0: none),
 * for a store without root group metadata.  Walks directories breadth
 * first and stops at the first find. */
int ncz_meta_find_format(NC4_file *f, int *formatp);
/* Load /.zmetadata (v2) or the root zarr.json's consolidated_metadata (v3)
 * if present; sets zf->consolidated. */
int ncz_meta_load_consolidated(NC4_file *f, json_object *root_v3);
/* Write /.zmetadata (v2) from everything written/read (when asked). */
int ncz_meta_write_consolidated(NC4_file *f);
void ncz_meta_free(NCZ_file *zf);

/* ---- types and keys (zutil.c) ---- */
/* "/g1/g2" key of a group ("" for the root); malloc'ed. */
int ncz_grp_key(const NC4_grp *g, char **keyp);
/* key + "/" + name (key may be ""). */
int ncz_key_join(const char *key, const char *name, char **outp);
/* Zarr v2 dtype <-> nc_type.  endian: NC_ENDIAN_LITTLE/BIG/NATIVE; width:
 * bytes of one element ("|S5": 5).  NC_ENCZARR / NC_EBADTYPE. */
int ncz_dtype_v2_parse(const char *dtype, nc_type *xtypep, int *endianp, size_t *widthp);
void ncz_dtype_v2_make(nc_type xtype, int endian, size_t width, char buf[32]);
/* Zarr v3 data_type <-> nc_type. */
int ncz_dtype_v3_parse(const char *dtype, nc_type *xtypep, size_t *widthp);
const char *ncz_dtype_v3_name(nc_type xtype);
/* Can name be a netCDF name read from a store (NC_EBADNAME if not). */
int ncz_check_name(const char *name);
/* Fresh NCZ_var / NCZ_grp with defaults. */
NCZ_var *ncz_var_state_new(NC4_file *f, NC4_var *var);
NCZ_grp *ncz_grp_state_new(void);
/* Base64 (zarr v2 fill values of "S" dtypes). */
int ncz_base64_decode(const char *in, unsigned char **outp, size_t *lenp);
char *ncz_base64_encode(const unsigned char *in, size_t len);

/* ---- attributes and fill values (zmeta_attr.c) ---- */
/* Define the attributes of attrs (a dict) on var (NULL: group g).  types:
 * the NCZarr type dict (or NULL: infer from the JSON as upstream). Reserved
 * NCZarr keys and _ARRAY_DIMENSIONS are skipped. */
int ncz_atts_decode(NC4_file *f, NC4_grp *g, NC4_var *var, json_object *attrs,
                    json_object *types);
/* All attributes of var/g as a new dict; *typesp (if not NULL) the NCZarr
 * type dict. */
int ncz_atts_encode(NC4_file *f, NC4_grp *g, NC4_var *var, json_object **attrsp,
                    json_object **typesp);
/* Zarr fill_value (v2 and v3 share the special strings; v3 also takes
 * "0x..." bit patterns) -> var->fill_value / var->no_fill. */
int ncz_fill_decode(NC4_file *f, NC4_var *var, json_object *jfill, int v3);
/* var's fill as a new JSON value (NULL object = JSON null). */
int ncz_fill_encode(NC4_file *f, NC4_var *var, int v3, json_object **jfillp);

/* ---- the formats ---- */
int ncz_v2_read(NC4_file *f);
int ncz_v2_write(NC4_file *f);
int ncz_v3_read(NC4_file *f, json_object *root);
int ncz_v3_write(NC4_file *f);

/* ---- dimensions of arrays being read (zmeta_dims.c) ---- */
/* The dim called name in g, made (checked name, NC_ENCZARR) if absent. */
int ncz_find_or_make_dim(NC4_file *f, NC4_grp *g, const char *name, size_t len, int unlim,
                         NC4_dim **dp);
/* The dim of axis i (length len): by the FQN refs[i] when refs (an array)
 * is given, NC_ENCZARR if that is not a string or its group is missing;
 * else by the name names[i] (names an array or NULL) in the root when it
 * is usable and fits len; else the anonymous dim of length len.  Grows an
 * unlimited dim to len; NC_ENCZARR if a fixed one has another length. */
int ncz_axis_dim(NC4_file *f, json_object *refs, json_object *names, size_t i, size_t len,
                 NC4_dim **dp);

#endif /* ZMETA_H */
