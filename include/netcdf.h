/* netcdf.h: the public C interface of the netCDF library.
 *
 * Names, constant values and function signatures are those of netCDF-C
 * 4.10.1, so that programs compiled against upstream's header build and
 * link against this library unchanged.  Every function returns an int
 * status: NC_NOERR (0) on success, a negative NC_E* code on failure, or a
 * positive errno value for a failed system call.  Output arguments are
 * written only on success; a NULL output pointer means "not wanted".
 *
 * Sections: types and fill values; mode flags and formats; limits and
 * per-variable settings; error codes; library and file functions; groups
 * and user-defined types; variables, dimensions and attributes; the typed
 * data access families; netCDF-2 compatibility API.
 */
#ifndef _NETCDF_
#define _NETCDF_

#include <stddef.h>  /* size_t, ptrdiff_t */
#include <errno.h>   /* system errors are returned as positive errno values */

/* The type of an external (file) data type id. */
typedef int nc_type;

#if defined(__cplusplus)
extern "C" {
#endif

/* ---- Atomic and class type ids ---------------------------------------- */
#define NC_NAT 0
#define NC_BYTE 1
#define NC_CHAR 2
#define NC_SHORT 3
#define NC_INT 4
#define NC_LONG NC_INT
#define NC_FLOAT 5
#define NC_DOUBLE 6
#define NC_UBYTE 7
#define NC_USHORT 8
#define NC_UINT 9
#define NC_INT64 10
#define NC_UINT64 11
#define NC_STRING 12
#define NC_MAX_ATOMIC_TYPE NC_STRING
/* Classes of user-defined types; user type ids start at NC_FIRSTUSERTYPEID. */
#define NC_VLEN 13
#define NC_OPAQUE 14
#define NC_ENUM 15
#define NC_COMPOUND 16
#define NC_FIRSTUSERTYPEID 32

/* ---- Default fill values (used where no _FillValue attribute is set) -- */
#define NC_FILL_BYTE ((signed char)-127)
#define NC_FILL_CHAR ((char)0)
#define NC_FILL_SHORT ((short)-32767)
#define NC_FILL_INT (-2147483647)
#define NC_FILL_FLOAT (9.9692099683868690e+36f)
#define NC_FILL_DOUBLE (9.9692099683868690e+36)
#define NC_FILL_UBYTE (255)
#define NC_FILL_USHORT (65535)
#define NC_FILL_UINT (4294967295U)
#define NC_FILL_INT64 ((long long)-9223372036854775806LL)
#define NC_FILL_UINT64 ((unsigned long long)18446744073709551614ULL)
#define NC_FILL_STRING ((char *)"")

/* ---- Ranges of the external types ------------------------------------- */
#define NC_MAX_BYTE 127
#define NC_MIN_BYTE (-NC_MAX_BYTE-1)
#define NC_MAX_CHAR 255
#define NC_MAX_SHORT 32767
#define NC_MIN_SHORT (-NC_MAX_SHORT - 1)
#define NC_MAX_INT 2147483647
#define NC_MIN_INT (-NC_MAX_INT - 1)
#define NC_MAX_FLOAT 3.402823466e+38f
#define NC_MIN_FLOAT (-NC_MAX_FLOAT)
#define NC_MAX_DOUBLE 1.7976931348623157e+308
#define NC_MIN_DOUBLE (-NC_MAX_DOUBLE)
#define NC_MAX_UBYTE NC_MAX_CHAR
#define NC_MAX_USHORT 65535U
#define NC_MAX_UINT 4294967295U
#define NC_MAX_INT64 (9223372036854775807LL)
#define NC_MIN_INT64 (-9223372036854775807LL-1)
#define NC_MAX_UINT64 (18446744073709551615ULL)

/* Name of the attribute that overrides a variable's fill value. */
#define _FillValue "_FillValue"
#define NC_FillValue "_FillValue"
/* nc_set_fill() modes. */
#define NC_FILL 0
#define NC_NOFILL 0x100

/* ---- Mode flags for nc_create() and nc_open() -------------------------- */
#define NC_NOWRITE 0x0000
#define NC_WRITE 0x0001
#define NC_CLOBBER 0x0000
#define NC_NOCLOBBER 0x0004
#define NC_DISKLESS 0x0008
#define NC_MMAP 0x0010
#define NC_64BIT_DATA 0x0020
#define NC_CDF5 NC_64BIT_DATA
#define NC_UDF0 0x0040
#define NC_UDF1 0x0080
#define NC_UDF2 0x10000
#define NC_UDF3 0x80000
#define NC_UDF4 0x100000
#define NC_UDF5 0x200000
#define NC_UDF6 0x400000
#define NC_UDF7 0x800000
#define NC_UDF8 0x1000000
#define NC_UDF9 0x2000000
#define NC_CLASSIC_MODEL 0x0100
#define NC_64BIT_OFFSET 0x0200
#define NC_LOCK 0x0400
#define NC_SHARE 0x0800
#define NC_NETCDF4 0x1000
#define NC_MPIIO 0x2000
#define NC_MPIPOSIX NC_MPIIO
#define NC_PNETCDF (NC_MPIIO)
#define NC_PERSIST 0x4000
#define NC_INMEMORY 0x8000
#define NC_NOATTCREORD 0x20000
#define NC_NODIMSCALE_ATTACH 0x40000

/* User-defined formats: at most this many magic-number bytes, this many slots. */
#define NC_MAX_MAGIC_NUMBER_LEN 8
#define NC_MAX_UDF_FORMATS 10

/* ---- File formats, as reported by nc_inq_format() ---------------------- */
#define NC_FORMAT_CLASSIC (1)
#define NC_FORMAT_64BIT_OFFSET (2)
#define NC_FORMAT_64BIT (NC_FORMAT_64BIT_OFFSET)
#define NC_FORMAT_NETCDF4 (3)
#define NC_FORMAT_NETCDF4_CLASSIC (4)
#define NC_FORMAT_64BIT_DATA (5)
#define NC_FORMAT_CDF5 NC_FORMAT_64BIT_DATA
/* Every mode bit that selects a format. */
#define NC_FORMAT_ALL (NC_64BIT_OFFSET|NC_64BIT_DATA|NC_CLASSIC_MODEL|NC_NETCDF4|NC_UDF0|NC_UDF1|NC_UDF2|NC_UDF3|NC_UDF4|NC_UDF5|NC_UDF6|NC_UDF7|NC_UDF8|NC_UDF9)

/* Dispatch models, as reported by nc_inq_format_extended(). */
#define NC_FORMATX_NC3 (1)
#define NC_FORMATX_NC_HDF5 (2)
#define NC_FORMATX_NC4 NC_FORMATX_NC_HDF5
#define NC_FORMATX_NC_HDF4 (3)
#define NC_FORMATX_PNETCDF (4)
#define NC_FORMATX_DAP2 (5)
#define NC_FORMATX_DAP4 (6)
#define NC_FORMATX_UDF0 (8)
#define NC_FORMATX_UDF1 (9)
#define NC_FORMATX_NCZARR (10)
#define NC_FORMATX_ZARR NC_FORMATX_NCZARR
#define NC_FORMATX_UDF2 (11)
#define NC_FORMATX_UDF3 (12)
#define NC_FORMATX_UDF4 (13)
#define NC_FORMATX_UDF5 (14)
#define NC_FORMATX_UDF6 (15)
#define NC_FORMATX_UDF7 (16)
#define NC_FORMATX_UDF8 (17)
#define NC_FORMATX_UDF9 (18)
#define NC_FORMATX_UNDEFINED (0)
/* Older spellings of the dispatch models. */
#define NC_FORMAT_NC3 NC_FORMATX_NC3
#define NC_FORMAT_NC_HDF5 NC_FORMATX_NC_HDF5
#define NC_FORMAT_NC4 NC_FORMATX_NC4
#define NC_FORMAT_NC_HDF4 NC_FORMATX_NC_HDF4
#define NC_FORMAT_PNETCDF NC_FORMATX_PNETCDF
#define NC_FORMAT_DAP2 NC_FORMATX_DAP2
#define NC_FORMAT_DAP4 NC_FORMATX_DAP4
#define NC_FORMAT_UNDEFINED NC_FORMATX_UNDEFINED

/* ---- Sizes and limits -------------------------------------------------- */
#define NC_SIZEHINT_DEFAULT 0
#define NC_ALIGN_CHUNK ((size_t)(-1))
#define NC_UNLIMITED 0L
#define NC_GLOBAL -1
#define NC_MAX_DIMS 1024
#define NC_MAX_ATTRS 8192
#define NC_MAX_VARS 8192
#define NC_MAX_NAME 256
#define NC_MAX_VAR_DIMS 1024
#define NC_MAX_HDF4_NAME NC_MAX_NAME

/* ---- Per-variable settings (netCDF-4 and NCZarr) ------------------------ */
#define NC_ENDIAN_NATIVE 0
#define NC_ENDIAN_LITTLE 1
#define NC_ENDIAN_BIG 2
#define NC_CHUNKED 0
#define NC_CONTIGUOUS 1
#define NC_COMPACT 2
#define NC_UNKNOWN_STORAGE 3
#define NC_VIRTUAL 4
#define NC_NOCHECKSUM 0
#define NC_FLETCHER32 1
#define NC_NOSHUFFLE 0
#define NC_SHUFFLE 1
#define NC_MIN_DEFLATE_LEVEL 0
#define NC_MAX_DEFLATE_LEVEL 9
#define NC_SZIP_NN 32
#define NC_SZIP_EC 4
/* Lossy quantization modes and the attributes that record them. */
#define NC_NOQUANTIZE 0
#define NC_QUANTIZE_BITGROOM 1
#define NC_QUANTIZE_GRANULARBR 2
#define NC_QUANTIZE_BITROUND 3
#define NC_QUANTIZE_BITGROOM_ATT_NAME "_QuantizeBitGroomNumberOfSignificantDigits"
#define NC_QUANTIZE_GRANULARBR_ATT_NAME "_QuantizeGranularBitRoundNumberOfSignificantDigits"
#define NC_QUANTIZE_BITROUND_ATT_NAME "_QuantizeBitRoundNumberOfSignificantBits"
#define NC_QUANTIZE_MAX_FLOAT_NSD (6)
#define NC_QUANTIZE_MAX_FLOAT_NSB (23)
#define NC_QUANTIZE_MAX_DOUBLE_NSD (15)
#define NC_QUANTIZE_MAX_DOUBLE_NSB (52)

/* ---- Status codes ------------------------------------------------------ */
/* Positive values are system errno values. */
#define NC_ISSYSERR(err) ((err) > 0)
#define NC_NOERR 0
#define NC_ENUM 15
#define NC_ENDIAN_NATIVE 0
#define NC_ENDIAN_LITTLE 1
#define NC_ENDIAN_BIG 2
#define NC2_ERR (-1)
#define NC_EBADID (-33)
#define NC_ENFILE (-34)
#define NC_EEXIST (-35)
#define NC_EINVAL (-36)
#define NC_EPERM (-37)
#define NC_ENOTINDEFINE (-38)
#define NC_EINDEFINE (-39)
#define NC_EINVALCOORDS (-40)
#define NC_EMAXDIMS (-41)
#define NC_ENAMEINUSE (-42)
#define NC_ENOTATT (-43)
#define NC_EMAXATTS (-44)
#define NC_EBADTYPE (-45)
#define NC_EBADDIM (-46)
#define NC_EUNLIMPOS (-47)
#define NC_EMAXVARS (-48)
#define NC_ENOTVAR (-49)
#define NC_EGLOBAL (-50)
#define NC_ENOTNC (-51)
#define NC_ESTS (-52)
#define NC_EMAXNAME (-53)
#define NC_EUNLIMIT (-54)
#define NC_ENORECVARS (-55)
#define NC_ECHAR (-56)
#define NC_EEDGE (-57)
#define NC_ESTRIDE (-58)
#define NC_EBADNAME (-59)
#define NC_ERANGE (-60)
#define NC_ENOMEM (-61)
#define NC_EVARSIZE (-62)
#define NC_EDIMSIZE (-63)
#define NC_ETRUNC (-64)
#define NC_EAXISTYPE (-65)
#define NC_EDAP (-66)
#define NC_ECURL (-67)
#define NC_EIO (-68)
#define NC_ENODATA (-69)
#define NC_EDAPSVC (-70)
#define NC_EDAS (-71)
#define NC_EDDS (-72)
#define NC_EDMR NC_EDDS
#define NC_EDATADDS (-73)
#define NC_EDATADAP NC_EDATADDS
#define NC_EDAPURL (-74)
#define NC_EDAPCONSTRAINT (-75)
#define NC_ETRANSLATION (-76)
#define NC_EACCESS (-77)
#define NC_EAUTH (-78)
#define NC_ENOTFOUND (-90)
#define NC_ECANTREMOVE (-91)
#define NC_EINTERNAL (-92)
#define NC_EPNETCDF (-93)
#define NC_EHDFERR (-101)
#define NC_ECANTREAD (-102)
#define NC_ECANTWRITE (-103)
#define NC_ECANTCREATE (-104)
#define NC_EFILEMETA (-105)
#define NC_EDIMMETA (-106)
#define NC_EATTMETA (-107)
#define NC_EVARMETA (-108)
#define NC_ENOCOMPOUND (-109)
#define NC_EATTEXISTS (-110)
#define NC_ENOTNC4 (-111)
#define NC_ESTRICTNC3 (-112)
#define NC_ENOTNC3 (-113)
#define NC_ENOPAR (-114)
#define NC_EPARINIT (-115)
#define NC_EBADGRPID (-116)
#define NC_EBADTYPID (-117)
#define NC_ETYPDEFINED (-118)
#define NC_EBADFIELD (-119)
#define NC_EBADCLASS (-120)
#define NC_EMAPTYPE (-121)
#define NC_ELATEFILL (-122)
#define NC_ELATEDEF (-123)
#define NC_EDIMSCALE (-124)
#define NC_ENOGRP (-125)
#define NC_ESTORAGE (-126)
#define NC_EBADCHUNK (-127)
#define NC_ENOTBUILT (-128)
#define NC_EDISKLESS (-129)
#define NC_ECANTEXTEND (-130)
#define NC_EMPI (-131)
#define NC_EFILTER (-132)
#define NC_ERCFILE (-133)
#define NC_ENULLPAD (-134)
#define NC_EINMEMORY (-135)
#define NC_ENOFILTER (-136)
#define NC_ENCZARR (-137)
#define NC_ES3 (-138)
#define NC_EEMPTY (-139)
#define NC_EOBJECT (-140)
#define NC_ENOOBJECT (-141)
#define NC_EPLUGIN (-142)
#define NC_ENOTZARR (-143)
#define NC_EZARRMETA (-144)
/* Range of the codes that started with netCDF-4. */
#define NC4_FIRST_ERROR (-100)
#define NC4_LAST_ERROR (-144)
/* Generic URL spellings of two DAP codes. */
#define NC_EURL (NC_EDAPURL)
#define NC_ECONSTRAINT (NC_EDAPCONSTRAINT)

/* Value of the netCDF-4 "NAME" attribute of a dimension without a variable. */
#define DIM_WITHOUT_VARIABLE "This is a netCDF dimension but not a netCDF variable."
/* This library has nc_def_var_chunking() with a const size_t* argument. */
#define NC_HAVE_NEW_CHUNKING_API 1

/* Symbol visibility: only Windows DLL builds need decoration. */
#if defined(DLL_NETCDF)
# if defined(DLL_EXPORT)
#  define MSC_EXTRA __declspec(dllexport)
# else
#  define MSC_EXTRA __declspec(dllimport)
# endif
# include <io.h>
#else
# define MSC_EXTRA
#endif
#define EXTERNL MSC_EXTRA extern

/* ---- Library -------------------------------------------------------------- */
/* Version string; starts with the version number, e.g. "4.10.1 of ...". */
EXTERNL const char *nc_inq_libvers(void);
/* Text for any status code returned by this library; never NULL. */
EXTERNL const char *nc_strerror(int ncerr);

/* Dispatch table of a format (see netcdf_dispatch.h). */
typedef struct NC_Dispatch NC_Dispatch;
/* Register or query a user-defined format for mode flag NC_UDF0..NC_UDF9. */
EXTERNL int nc_def_user_format(int mode_flag, NC_Dispatch *dispatch_table, char *magic_number);
EXTERNL int nc_inq_user_format(int mode_flag, NC_Dispatch **dispatch_table, char *magic_number);
/* HDF5 alignment of objects of at least threshold bytes. */
EXTERNL int nc_set_alignment(int threshold, int alignment);
EXTERNL int nc_get_alignment(int*thresholdp, int*alignmentp);
/* HDF5 metadata block size used for new and opened files; 0: the default. */
EXTERNL int nc_set_meta_block_size(size_t size);
EXTERNL int nc_get_meta_block_size(size_t *sizep);

/* ---- Files ----------------------------------------------------------------- */
EXTERNL int nc__create(const char *path, int cmode, size_t initialsz, size_t *chunksizehintp, int *ncidp);
EXTERNL int nc_create(const char *path, int cmode, int *ncidp);
EXTERNL int nc__open(const char *path, int mode, size_t *chunksizehintp, int *ncidp);
EXTERNL int nc_open(const char *path, int mode, int *ncidp);
EXTERNL int nc_inq_path(int ncid, size_t *pathlen, char *path);

/* ---- Groups (enhanced model) ------------------------------------------------ */
EXTERNL int nc_inq_ncid(int ncid, const char *name, int *grp_ncid);
EXTERNL int nc_inq_grps(int ncid, int *numgrps, int *ncids);
EXTERNL int nc_inq_grpname(int ncid, char *name);
EXTERNL int nc_inq_grpname_full(int ncid, size_t *lenp, char *full_name);
EXTERNL int nc_inq_grpname_len(int ncid, size_t *lenp);
EXTERNL int nc_inq_grp_parent(int ncid, int *parent_ncid);
EXTERNL int nc_inq_grp_ncid(int ncid, const char *grp_name, int *grp_ncid);
EXTERNL int nc_inq_grp_full_ncid(int ncid, const char *full_name, int *grp_ncid);
EXTERNL int nc_inq_varids(int ncid, int *nvars, int *varids);
EXTERNL int nc_inq_dimids(int ncid, int *ndims, int *dimids, int include_parents);
EXTERNL int nc_inq_typeids(int ncid, int *ntypes, int *typeids);
EXTERNL int nc_inq_type_equal(int ncid1, nc_type typeid1, int ncid2, nc_type typeid2, int *equal);
EXTERNL int nc_def_grp(int parent_ncid, const char *name, int *new_ncid);
EXTERNL int nc_rename_grp(int grpid, const char *name);

/* ---- User-defined types (enhanced model) ------------------------------------ */
EXTERNL int nc_def_compound(int ncid, size_t size, const char *name, nc_type *typeidp);
EXTERNL int nc_insert_compound(int ncid, nc_type xtype, const char *name, size_t offset, nc_type field_typeid);
EXTERNL int nc_insert_array_compound(int ncid, nc_type xtype, const char *name, size_t offset, nc_type field_typeid, int ndims, const int *dim_sizes);
EXTERNL int nc_inq_type(int ncid, nc_type xtype, char *name, size_t *size);
EXTERNL int nc_inq_typeid(int ncid, const char *name, nc_type *typeidp);
EXTERNL int nc_inq_compound(int ncid, nc_type xtype, char *name, size_t *sizep, size_t *nfieldsp);
EXTERNL int nc_inq_compound_name(int ncid, nc_type xtype, char *name);
EXTERNL int nc_inq_compound_size(int ncid, nc_type xtype, size_t *sizep);
EXTERNL int nc_inq_compound_nfields(int ncid, nc_type xtype, size_t *nfieldsp);
EXTERNL int nc_inq_compound_field(int ncid, nc_type xtype, int fieldid, char *name, size_t *offsetp, nc_type *field_typeidp, int *ndimsp, int *dim_sizesp);
EXTERNL int nc_inq_compound_fieldname(int ncid, nc_type xtype, int fieldid, char *name);
EXTERNL int nc_inq_compound_fieldindex(int ncid, nc_type xtype, const char *name, int *fieldidp);
EXTERNL int nc_inq_compound_fieldoffset(int ncid, nc_type xtype, int fieldid, size_t *offsetp);
EXTERNL int nc_inq_compound_fieldtype(int ncid, nc_type xtype, int fieldid, nc_type *field_typeidp);
EXTERNL int nc_inq_compound_fieldndims(int ncid, nc_type xtype, int fieldid, int *ndimsp);
EXTERNL int nc_inq_compound_fielddim_sizes(int ncid, nc_type xtype, int fieldid, int *dim_sizes);

/* In-memory form of one variable-length array element. */
typedef struct {
    size_t len;  /* number of base-type elements at p */
    void *p;     /* the elements; owned by the library when read */
} nc_vlen_t;

/* Offset of member M in struct S, for nc_insert_compound(). */
#define NC_COMPOUND_OFFSET(S,M) (offsetof(S,M))

EXTERNL int nc_def_vlen(int ncid, const char *name, nc_type base_typeid, nc_type *xtypep);
EXTERNL int nc_inq_vlen(int ncid, nc_type xtype, char *name, size_t *datum_sizep, nc_type *base_nc_typep);
EXTERNL int nc_free_vlen(nc_vlen_t *vl);
EXTERNL int nc_free_vlens(size_t len, nc_vlen_t vlens[]);
EXTERNL int nc_put_vlen_element(int ncid, int typeid1, void *vlen_element, size_t len, const void *data);
EXTERNL int nc_get_vlen_element(int ncid, int typeid1, const void *vlen_element, size_t *len, void *data);
EXTERNL int nc_free_string(size_t len, char **data);
EXTERNL int nc_inq_user_type(int ncid, nc_type xtype, char *name, size_t *size, nc_type *base_nc_typep, size_t *nfieldsp, int *classp);
EXTERNL int nc_put_att(int ncid, int varid, const char *name, nc_type xtype, size_t len, const void *op);
EXTERNL int nc_get_att(int ncid, int varid, const char *name, void *ip);

/* Enums; a value with no member name reads back as this identifier. */
#define NC_UNDEFINED_ENUM_IDENT "_UNDEFINED"
EXTERNL int nc_def_enum(int ncid, nc_type base_typeid, const char *name, nc_type *typeidp);
EXTERNL int nc_insert_enum(int ncid, nc_type xtype, const char *name, const void *value);
EXTERNL int nc_inq_enum(int ncid, nc_type xtype, char *name, nc_type *base_nc_typep, size_t *base_sizep, size_t *num_membersp);
EXTERNL int nc_inq_enum_member(int ncid, nc_type xtype, int idx, char *name, void *value);
EXTERNL int nc_inq_enum_ident(int ncid, nc_type xtype, long long value, char *identifier);
EXTERNL int nc_def_opaque(int ncid, size_t size, const char *name, nc_type *xtypep);
EXTERNL int nc_inq_opaque(int ncid, nc_type xtype, char *name, size_t *sizep);

/* ---- Untyped data access: the memory type is the variable's own type ------- */
EXTERNL int nc_put_var(int ncid, int varid, const void *op);
EXTERNL int nc_get_var(int ncid, int varid, void *ip);
EXTERNL int nc_put_var1(int ncid, int varid, const size_t *indexp, const void *op);
EXTERNL int nc_get_var1(int ncid, int varid, const size_t *indexp, void *ip);
EXTERNL int nc_put_vara(int ncid, int varid, const size_t *startp, const size_t *countp, const void *op);
EXTERNL int nc_get_vara(int ncid, int varid, const size_t *startp, const size_t *countp, void *ip);
EXTERNL int nc_put_vars(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const void *op);
EXTERNL int nc_get_vars(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, void *ip);
EXTERNL int nc_put_varm(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const void *op);
EXTERNL int nc_get_varm(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, void *ip);

/* ---- Variable storage settings (enhanced model) ----------------------------- */
EXTERNL int nc_def_var_quantize(int ncid, int varid, int quantize_mode, int nsd);
EXTERNL int nc_inq_var_quantize(int ncid, int varid, int *quantize_modep, int *nsdp);
EXTERNL int nc_def_var_deflate(int ncid, int varid, int shuffle, int deflate, int deflate_level);
EXTERNL int nc_inq_var_deflate(int ncid, int varid, int *shufflep, int *deflatep, int *deflate_levelp);
EXTERNL int nc_def_var_szip(int ncid, int varid, int options_mask, int pixels_per_block);
EXTERNL int nc_inq_var_szip(int ncid, int varid, int *options_maskp, int *pixels_per_blockp);
EXTERNL int nc_def_var_fletcher32(int ncid, int varid, int fletcher32);
EXTERNL int nc_inq_var_fletcher32(int ncid, int varid, int *fletcher32p);
EXTERNL int nc_def_var_chunking(int ncid, int varid, int storage, const size_t *chunksizesp);
EXTERNL int nc_inq_var_chunking(int ncid, int varid, int *storagep, size_t *chunksizesp);
EXTERNL int nc_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value);
EXTERNL int nc_inq_var_fill(int ncid, int varid, int *no_fill, void *fill_valuep);
EXTERNL int nc_def_var_endian(int ncid, int varid, int endian);
EXTERNL int nc_inq_var_endian(int ncid, int varid, int *endianp);
EXTERNL int nc_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams, const unsigned int*parms);
EXTERNL int nc_inq_var_filter(int ncid, int varid, unsigned int*idp, size_t*nparams, unsigned int*params);

/* ---- Library-wide settings -------------------------------------------------- */
EXTERNL int nc_set_fill(int ncid, int fillmode, int *old_modep);
EXTERNL int nc_set_default_format(int format, int *old_formatp);
EXTERNL int nc_set_chunk_cache(size_t size, size_t nelems, float preemption);
EXTERNL int nc_get_chunk_cache(size_t *sizep, size_t *nelemsp, float *preemptionp);
EXTERNL int nc_set_var_chunk_cache(int ncid, int varid, size_t size, size_t nelems, float preemption);
EXTERNL int nc_get_var_chunk_cache(int ncid, int varid, size_t *sizep, size_t *nelemsp, float *preemptionp);

/* ---- Define mode, data mode, close ------------------------------------------ */
EXTERNL int nc_redef(int ncid);
EXTERNL int nc__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align);
EXTERNL int nc_enddef(int ncid);
EXTERNL int nc_sync(int ncid);
EXTERNL int nc_abort(int ncid);
EXTERNL int nc_close(int ncid);

/* ---- Inquiry ---------------------------------------------------------------- */
EXTERNL int nc_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp);
EXTERNL int nc_inq_ndims(int ncid, int *ndimsp);
EXTERNL int nc_inq_nvars(int ncid, int *nvarsp);
EXTERNL int nc_inq_natts(int ncid, int *nattsp);
EXTERNL int nc_inq_unlimdim(int ncid, int *unlimdimidp);
EXTERNL int nc_inq_unlimdims(int ncid, int *nunlimdimsp, int *unlimdimidsp);
EXTERNL int nc_inq_format(int ncid, int *formatp);
EXTERNL int nc_inq_format_extended(int ncid, int *formatp, int*modep);

/* ---- Dimensions ------------------------------------------------------------- */
EXTERNL int nc_def_dim(int ncid, const char *name, size_t len, int *idp);
EXTERNL int nc_inq_dimid(int ncid, const char *name, int *idp);
EXTERNL int nc_inq_dim(int ncid, int dimid, char *name, size_t *lenp);
EXTERNL int nc_inq_dimname(int ncid, int dimid, char *name);
EXTERNL int nc_inq_dimlen(int ncid, int dimid, size_t *lenp);
EXTERNL int nc_rename_dim(int ncid, int dimid, const char *name);

/* ---- Attributes ------------------------------------------------------------- */
EXTERNL int nc_inq_att(int ncid, int varid, const char *name, nc_type *xtypep, size_t *lenp);
EXTERNL int nc_inq_attid(int ncid, int varid, const char *name, int *idp);
EXTERNL int nc_inq_atttype(int ncid, int varid, const char *name, nc_type *xtypep);
EXTERNL int nc_inq_attlen(int ncid, int varid, const char *name, size_t *lenp);
EXTERNL int nc_inq_attname(int ncid, int varid, int attnum, char *name);
EXTERNL int nc_copy_att(int ncid_in, int varid_in, const char *name, int ncid_out, int varid_out);
EXTERNL int nc_rename_att(int ncid, int varid, const char *name, const char *newname);
EXTERNL int nc_del_att(int ncid, int varid, const char *name);
EXTERNL int nc_put_att_text(int ncid, int varid, const char *name, size_t len, const char *op);
EXTERNL int nc_get_att_text(int ncid, int varid, const char *name, char *ip);
EXTERNL int nc_put_att_uchar(int ncid, int varid, const char *name, nc_type xtype, size_t len, const unsigned char *op);
EXTERNL int nc_get_att_uchar(int ncid, int varid, const char *name, unsigned char *ip);
EXTERNL int nc_put_att_schar(int ncid, int varid, const char *name, nc_type xtype, size_t len, const signed char *op);
EXTERNL int nc_get_att_schar(int ncid, int varid, const char *name, signed char *ip);
EXTERNL int nc_put_att_short(int ncid, int varid, const char *name, nc_type xtype, size_t len, const short *op);
EXTERNL int nc_get_att_short(int ncid, int varid, const char *name, short *ip);
EXTERNL int nc_put_att_int(int ncid, int varid, const char *name, nc_type xtype, size_t len, const int *op);
EXTERNL int nc_get_att_int(int ncid, int varid, const char *name, int *ip);
EXTERNL int nc_put_att_long(int ncid, int varid, const char *name, nc_type xtype, size_t len, const long *op);
EXTERNL int nc_get_att_long(int ncid, int varid, const char *name, long *ip);
EXTERNL int nc_put_att_float(int ncid, int varid, const char *name, nc_type xtype, size_t len, const float *op);
EXTERNL int nc_get_att_float(int ncid, int varid, const char *name, float *ip);
EXTERNL int nc_put_att_double(int ncid, int varid, const char *name, nc_type xtype, size_t len, const double *op);
EXTERNL int nc_get_att_double(int ncid, int varid, const char *name, double *ip);
EXTERNL int nc_put_att_ubyte(int ncid, int varid, const char *name, nc_type xtype, size_t len, const unsigned char *op);
EXTERNL int nc_get_att_ubyte(int ncid, int varid, const char *name, unsigned char *ip);
EXTERNL int nc_put_att_ushort(int ncid, int varid, const char *name, nc_type xtype, size_t len, const unsigned short *op);
EXTERNL int nc_get_att_ushort(int ncid, int varid, const char *name, unsigned short *ip);
EXTERNL int nc_put_att_uint(int ncid, int varid, const char *name, nc_type xtype, size_t len, const unsigned int *op);
EXTERNL int nc_get_att_uint(int ncid, int varid, const char *name, unsigned int *ip);
EXTERNL int nc_put_att_longlong(int ncid, int varid, const char *name, nc_type xtype, size_t len, const long long *op);
EXTERNL int nc_get_att_longlong(int ncid, int varid, const char *name, long long *ip);
EXTERNL int nc_put_att_ulonglong(int ncid, int varid, const char *name, nc_type xtype, size_t len, const unsigned long long *op);
EXTERNL int nc_get_att_ulonglong(int ncid, int varid, const char *name, unsigned long long *ip);
EXTERNL int nc_put_att_string(int ncid, int varid, const char *name, size_t len, const char **op);
EXTERNL int nc_get_att_string(int ncid, int varid, const char *name, char **ip);

/* ---- Variables -------------------------------------------------------------- */
EXTERNL int nc_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp, int *varidp);
EXTERNL int nc_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp, int *nattsp);
EXTERNL int nc_inq_varid(int ncid, const char *name, int *varidp);
EXTERNL int nc_inq_varname(int ncid, int varid, char *name);
EXTERNL int nc_inq_vartype(int ncid, int varid, nc_type *xtypep);
EXTERNL int nc_inq_varndims(int ncid, int varid, int *ndimsp);
EXTERNL int nc_inq_vardimid(int ncid, int varid, int *dimidsp);
EXTERNL int nc_inq_varnatts(int ncid, int varid, int *nattsp);
EXTERNL int nc_rename_var(int ncid, int varid, const char *name);
EXTERNL int nc_copy_var(int ncid_in, int varid, int ncid_out);
#ifndef ncvarcpy
#define ncvarcpy(ncid_in, varid, ncid_out) ncvarcopy((ncid_in), (varid), (ncid_out))
#endif

/* ---- Typed data access: one element (var1) ---------------------------------- */
EXTERNL int nc_put_var1_text(int ncid, int varid, const size_t *indexp, const char *op);
EXTERNL int nc_get_var1_text(int ncid, int varid, const size_t *indexp, char *ip);
EXTERNL int nc_put_var1_uchar(int ncid, int varid, const size_t *indexp, const unsigned char *op);
EXTERNL int nc_get_var1_uchar(int ncid, int varid, const size_t *indexp, unsigned char *ip);
EXTERNL int nc_put_var1_schar(int ncid, int varid, const size_t *indexp, const signed char *op);
EXTERNL int nc_get_var1_schar(int ncid, int varid, const size_t *indexp, signed char *ip);
EXTERNL int nc_put_var1_short(int ncid, int varid, const size_t *indexp, const short *op);
EXTERNL int nc_get_var1_short(int ncid, int varid, const size_t *indexp, short *ip);
EXTERNL int nc_put_var1_int(int ncid, int varid, const size_t *indexp, const int *op);
EXTERNL int nc_get_var1_int(int ncid, int varid, const size_t *indexp, int *ip);
EXTERNL int nc_put_var1_long(int ncid, int varid, const size_t *indexp, const long *op);
EXTERNL int nc_get_var1_long(int ncid, int varid, const size_t *indexp, long *ip);
EXTERNL int nc_put_var1_float(int ncid, int varid, const size_t *indexp, const float *op);
EXTERNL int nc_get_var1_float(int ncid, int varid, const size_t *indexp, float *ip);
EXTERNL int nc_put_var1_double(int ncid, int varid, const size_t *indexp, const double *op);
EXTERNL int nc_get_var1_double(int ncid, int varid, const size_t *indexp, double *ip);
EXTERNL int nc_put_var1_ubyte(int ncid, int varid, const size_t *indexp, const unsigned char *op);
EXTERNL int nc_get_var1_ubyte(int ncid, int varid, const size_t *indexp, unsigned char *ip);
EXTERNL int nc_put_var1_ushort(int ncid, int varid, const size_t *indexp, const unsigned short *op);
EXTERNL int nc_get_var1_ushort(int ncid, int varid, const size_t *indexp, unsigned short *ip);
EXTERNL int nc_put_var1_uint(int ncid, int varid, const size_t *indexp, const unsigned int *op);
EXTERNL int nc_get_var1_uint(int ncid, int varid, const size_t *indexp, unsigned int *ip);
EXTERNL int nc_put_var1_longlong(int ncid, int varid, const size_t *indexp, const long long *op);
EXTERNL int nc_get_var1_longlong(int ncid, int varid, const size_t *indexp, long long *ip);
EXTERNL int nc_put_var1_ulonglong(int ncid, int varid, const size_t *indexp, const unsigned long long *op);
EXTERNL int nc_get_var1_ulonglong(int ncid, int varid, const size_t *indexp, unsigned long long *ip);
EXTERNL int nc_put_var1_string(int ncid, int varid, const size_t *indexp, const char **op);
EXTERNL int nc_get_var1_string(int ncid, int varid, const size_t *indexp, char **ip);

/* ---- Typed data access: a hyperslab (vara) ---------------------------------- */
EXTERNL int nc_put_vara_text(int ncid, int varid, const size_t *startp, const size_t *countp, const char *op);
EXTERNL int nc_get_vara_text(int ncid, int varid, const size_t *startp, const size_t *countp, char *ip);
EXTERNL int nc_put_vara_uchar(int ncid, int varid, const size_t *startp, const size_t *countp, const unsigned char *op);
EXTERNL int nc_get_vara_uchar(int ncid, int varid, const size_t *startp, const size_t *countp, unsigned char *ip);
EXTERNL int nc_put_vara_schar(int ncid, int varid, const size_t *startp, const size_t *countp, const signed char *op);
EXTERNL int nc_get_vara_schar(int ncid, int varid, const size_t *startp, const size_t *countp, signed char *ip);
EXTERNL int nc_put_vara_short(int ncid, int varid, const size_t *startp, const size_t *countp, const short *op);
EXTERNL int nc_get_vara_short(int ncid, int varid, const size_t *startp, const size_t *countp, short *ip);
EXTERNL int nc_put_vara_int(int ncid, int varid, const size_t *startp, const size_t *countp, const int *op);
EXTERNL int nc_get_vara_int(int ncid, int varid, const size_t *startp, const size_t *countp, int *ip);
EXTERNL int nc_put_vara_long(int ncid, int varid, const size_t *startp, const size_t *countp, const long *op);
EXTERNL int nc_get_vara_long(int ncid, int varid, const size_t *startp, const size_t *countp, long *ip);
EXTERNL int nc_put_vara_float(int ncid, int varid, const size_t *startp, const size_t *countp, const float *op);
EXTERNL int nc_get_vara_float(int ncid, int varid, const size_t *startp, const size_t *countp, float *ip);
EXTERNL int nc_put_vara_double(int ncid, int varid, const size_t *startp, const size_t *countp, const double *op);
EXTERNL int nc_get_vara_double(int ncid, int varid, const size_t *startp, const size_t *countp, double *ip);
EXTERNL int nc_put_vara_ubyte(int ncid, int varid, const size_t *startp, const size_t *countp, const unsigned char *op);
EXTERNL int nc_get_vara_ubyte(int ncid, int varid, const size_t *startp, const size_t *countp, unsigned char *ip);
EXTERNL int nc_put_vara_ushort(int ncid, int varid, const size_t *startp, const size_t *countp, const unsigned short *op);
EXTERNL int nc_get_vara_ushort(int ncid, int varid, const size_t *startp, const size_t *countp, unsigned short *ip);
EXTERNL int nc_put_vara_uint(int ncid, int varid, const size_t *startp, const size_t *countp, const unsigned int *op);
EXTERNL int nc_get_vara_uint(int ncid, int varid, const size_t *startp, const size_t *countp, unsigned int *ip);
EXTERNL int nc_put_vara_longlong(int ncid, int varid, const size_t *startp, const size_t *countp, const long long *op);
EXTERNL int nc_get_vara_longlong(int ncid, int varid, const size_t *startp, const size_t *countp, long long *ip);
EXTERNL int nc_put_vara_ulonglong(int ncid, int varid, const size_t *startp, const size_t *countp, const unsigned long long *op);
EXTERNL int nc_get_vara_ulonglong(int ncid, int varid, const size_t *startp, const size_t *countp, unsigned long long *ip);
EXTERNL int nc_put_vara_string(int ncid, int varid, const size_t *startp, const size_t *countp, const char **op);
EXTERNL int nc_get_vara_string(int ncid, int varid, const size_t *startp, const size_t *countp, char **ip);

/* ---- Typed data access: a strided hyperslab (vars) -------------------------- */
EXTERNL int nc_put_vars_text(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const char *op);
EXTERNL int nc_get_vars_text(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, char *ip);
EXTERNL int nc_put_vars_uchar(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const unsigned char *op);
EXTERNL int nc_get_vars_uchar(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, unsigned char *ip);
EXTERNL int nc_put_vars_schar(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const signed char *op);
EXTERNL int nc_get_vars_schar(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, signed char *ip);
EXTERNL int nc_put_vars_short(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const short *op);
EXTERNL int nc_get_vars_short(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, short *ip);
EXTERNL int nc_put_vars_int(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const int *op);
EXTERNL int nc_get_vars_int(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, int *ip);
EXTERNL int nc_put_vars_long(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const long *op);
EXTERNL int nc_get_vars_long(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, long *ip);
EXTERNL int nc_put_vars_float(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const float *op);
EXTERNL int nc_get_vars_float(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, float *ip);
EXTERNL int nc_put_vars_double(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const double *op);
EXTERNL int nc_get_vars_double(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, double *ip);
EXTERNL int nc_put_vars_ubyte(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const unsigned char *op);
EXTERNL int nc_get_vars_ubyte(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, unsigned char *ip);
EXTERNL int nc_put_vars_ushort(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const unsigned short *op);
EXTERNL int nc_get_vars_ushort(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, unsigned short *ip);
EXTERNL int nc_put_vars_uint(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const unsigned int *op);
EXTERNL int nc_get_vars_uint(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, unsigned int *ip);
EXTERNL int nc_put_vars_longlong(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const long long *op);
EXTERNL int nc_get_vars_longlong(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, long long *ip);
EXTERNL int nc_put_vars_ulonglong(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const unsigned long long *op);
EXTERNL int nc_get_vars_ulonglong(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, unsigned long long *ip);
EXTERNL int nc_put_vars_string(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const char **op);
EXTERNL int nc_get_vars_string(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, char **ip);

/* ---- Typed data access: a mapped strided hyperslab (varm) ------------------- */
EXTERNL int nc_put_varm_text(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const char *op);
EXTERNL int nc_get_varm_text(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, char *ip);
EXTERNL int nc_put_varm_uchar(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const unsigned char *op);
EXTERNL int nc_get_varm_uchar(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, unsigned char *ip);
EXTERNL int nc_put_varm_schar(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const signed char *op);
EXTERNL int nc_get_varm_schar(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, signed char *ip);
EXTERNL int nc_put_varm_short(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const short *op);
EXTERNL int nc_get_varm_short(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, short *ip);
EXTERNL int nc_put_varm_int(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const int *op);
EXTERNL int nc_get_varm_int(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, int *ip);
EXTERNL int nc_put_varm_long(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const long *op);
EXTERNL int nc_get_varm_long(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, long *ip);
EXTERNL int nc_put_varm_float(int ncid, int varid,const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const float *op);
EXTERNL int nc_get_varm_float(int ncid, int varid,const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, float *ip);
EXTERNL int nc_put_varm_double(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const double *op);
EXTERNL int nc_get_varm_double(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, double *ip);
EXTERNL int nc_put_varm_ubyte(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const unsigned char *op);
EXTERNL int nc_get_varm_ubyte(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, unsigned char *ip);
EXTERNL int nc_put_varm_ushort(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const unsigned short *op);
EXTERNL int nc_get_varm_ushort(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, unsigned short *ip);
EXTERNL int nc_put_varm_uint(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const unsigned int *op);
EXTERNL int nc_get_varm_uint(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, unsigned int *ip);
EXTERNL int nc_put_varm_longlong(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const long long *op);
EXTERNL int nc_get_varm_longlong(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, long long *ip);
EXTERNL int nc_put_varm_ulonglong(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const unsigned long long *op);
EXTERNL int nc_get_varm_ulonglong(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, unsigned long long *ip);
EXTERNL int nc_put_varm_string(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, const char **op);
EXTERNL int nc_get_varm_string(int ncid, int varid, const size_t *startp, const size_t *countp, const ptrdiff_t *stridep, const ptrdiff_t *imapp, char **ip);

/* ---- Typed data access: the whole variable (var) ---------------------------- */
EXTERNL int nc_put_var_text(int ncid, int varid, const char *op);
EXTERNL int nc_get_var_text(int ncid, int varid, char *ip);
EXTERNL int nc_put_var_uchar(int ncid, int varid, const unsigned char *op);
EXTERNL int nc_get_var_uchar(int ncid, int varid, unsigned char *ip);
EXTERNL int nc_put_var_schar(int ncid, int varid, const signed char *op);
EXTERNL int nc_get_var_schar(int ncid, int varid, signed char *ip);
EXTERNL int nc_put_var_short(int ncid, int varid, const short *op);
EXTERNL int nc_get_var_short(int ncid, int varid, short *ip);
EXTERNL int nc_put_var_int(int ncid, int varid, const int *op);
EXTERNL int nc_get_var_int(int ncid, int varid, int *ip);
EXTERNL int nc_put_var_long(int ncid, int varid, const long *op);
EXTERNL int nc_get_var_long(int ncid, int varid, long *ip);
EXTERNL int nc_put_var_float(int ncid, int varid, const float *op);
EXTERNL int nc_get_var_float(int ncid, int varid, float *ip);
EXTERNL int nc_put_var_double(int ncid, int varid, const double *op);
EXTERNL int nc_get_var_double(int ncid, int varid, double *ip);
EXTERNL int nc_put_var_ubyte(int ncid, int varid, const unsigned char *op);
EXTERNL int nc_get_var_ubyte(int ncid, int varid, unsigned char *ip);
EXTERNL int nc_put_var_ushort(int ncid, int varid, const unsigned short *op);
EXTERNL int nc_get_var_ushort(int ncid, int varid, unsigned short *ip);
EXTERNL int nc_put_var_uint(int ncid, int varid, const unsigned int *op);
EXTERNL int nc_get_var_uint(int ncid, int varid, unsigned int *ip);
EXTERNL int nc_put_var_longlong(int ncid, int varid, const long long *op);
EXTERNL int nc_get_var_longlong(int ncid, int varid, long long *ip);
EXTERNL int nc_put_var_ulonglong(int ncid, int varid, const unsigned long long *op);
EXTERNL int nc_get_var_ulonglong(int ncid, int varid, unsigned long long *ip);
EXTERNL int nc_put_var_string(int ncid, int varid, const char **op);
EXTERNL int nc_get_var_string(int ncid, int varid, char **ip);

/* ---- Memory of variable-length data ----------------------------------------- */
/* Free nested data (strings, vlens) of count instances of xtypeid; the _all
 * forms also free the top-level block. */
EXTERNL int nc_reclaim_data(int ncid, nc_type xtypeid, void*memory, size_t count);
EXTERNL int nc_reclaim_data_all(int ncid, nc_type xtypeid, void*memory, size_t count);
EXTERNL int nc_copy_data(int ncid, nc_type xtypeid, const void*memory, size_t count, void*copy);
EXTERNL int nc_copy_data_all(int ncid, nc_type xtypeid, const void*memory, size_t count, void**copyp);
EXTERNL int nc_dump_data(int ncid, nc_type xtypeid, void*memory, size_t count, char**buf);

/* ---- Diagnostics and multi-processor stubs ---------------------------------- */
EXTERNL int nc_set_log_level(int new_level);
#define NC_TURN_OFF_LOGGING (-1)
EXTERNL int nc_show_metadata(int ncid);
EXTERNL int nc_delete(const char *path);
EXTERNL int nc__create_mp(const char *path, int cmode, size_t initialsz, int basepe, size_t *chunksizehintp, int *ncidp);
EXTERNL int nc__open_mp(const char *path, int mode, int basepe, size_t *chunksizehintp, int *ncidp);
EXTERNL int nc_delete_mp(const char *path, int basepe);
EXTERNL int nc_set_base_pe(int ncid, int pe);
EXTERNL int nc_inq_base_pe(int ncid, int *pe);

/* ---- netCDF-2 compatibility API --------------------------------------------- */
EXTERNL int nctypelen(nc_type datatype);
#define FILL_BYTE NC_FILL_BYTE
#define FILL_CHAR NC_FILL_CHAR
#define FILL_SHORT NC_FILL_SHORT
#define FILL_LONG NC_FILL_INT
#define FILL_FLOAT NC_FILL_FLOAT
#define FILL_DOUBLE NC_FILL_DOUBLE
#define MAX_NC_DIMS NC_MAX_DIMS
#define MAX_NC_ATTRS NC_MAX_ATTRS
#define MAX_NC_VARS NC_MAX_VARS
#define MAX_NC_NAME NC_MAX_NAME
#define MAX_VAR_DIMS NC_MAX_VAR_DIMS
/* Status of the last failed netCDF-2 call. */
EXTERNL int ncerr;
#define NC_ENTOOL NC_EMAXNAME
#define NC_EXDR (-32)
#define NC_SYSERR (-31)
/* Bits of ncopts: exit on error, print errors.  Default: both. */
#define NC_FATAL 1
#define NC_VERBOSE 2
EXTERNL int ncopts;
EXTERNL void nc_advise(const char *cdf_routine_name, int err, const char *fmt,...);
typedef int nclong;
EXTERNL int nccreate(const char*path, int cmode);
EXTERNL int ncopen(const char*path, int mode);
EXTERNL int ncsetfill(int ncid, int fillmode);
EXTERNL int ncredef(int ncid);
EXTERNL int ncendef(int ncid);
EXTERNL int ncsync(int ncid);
EXTERNL int ncabort(int ncid);
EXTERNL int ncclose(int ncid);
EXTERNL int ncinquire(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimp);
EXTERNL int ncdimdef(int ncid, const char *name, long len);
EXTERNL int ncdimid(int ncid, const char *name);
EXTERNL int ncdiminq(int ncid, int dimid, char *name, long *lenp);
EXTERNL int ncdimrename(int ncid, int dimid, const char *name);
EXTERNL int ncattput(int ncid, int varid, const char *name, nc_type xtype, int len, const void *op);
EXTERNL int ncattinq(int ncid, int varid, const char *name, nc_type *xtypep, int *lenp);
EXTERNL int ncattget(int ncid, int varid, const char *name, void *ip);
EXTERNL int ncattcopy(int ncid_in, int varid_in, const char *name, int ncid_out, int varid_out);
EXTERNL int ncattname(int ncid, int varid, int attnum, char *name);
EXTERNL int ncattrename(int ncid, int varid, const char *name, const char *newname);
EXTERNL int ncattdel(int ncid, int varid, const char *name);
EXTERNL int ncvardef(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp);
EXTERNL int ncvarid(int ncid, const char *name);
EXTERNL int ncvarinq(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp, int *nattsp);
EXTERNL int ncvarput1(int ncid, int varid, const long *indexp, const void *op);
EXTERNL int ncvarget1(int ncid, int varid, const long *indexp, void *ip);
EXTERNL int ncvarput(int ncid, int varid, const long *startp, const long *countp, const void *op);
EXTERNL int ncvarget(int ncid, int varid, const long *startp, const long *countp, void *ip);
EXTERNL int ncvarputs(int ncid, int varid, const long *startp, const long *countp, const long *stridep, const void *op);
EXTERNL int ncvargets(int ncid, int varid, const long *startp, const long *countp, const long *stridep, void *ip);
EXTERNL int ncvarputg(int ncid, int varid, const long *startp, const long *countp, const long *stridep, const long *imapp, const void *op);
EXTERNL int ncvargetg(int ncid, int varid, const long *startp, const long *countp, const long *stridep, const long *imapp, void *ip);
EXTERNL int ncvarrename(int ncid, int varid, const char *name);
EXTERNL int ncrecinq(int ncid, int *nrecvarsp, int *recvaridsp, long *recsizesp);
EXTERNL int ncrecget(int ncid, long recnum, void **datap);
EXTERNL int ncrecput(int ncid, long recnum, void *const *datap);

/* ---- Library start-up and shutdown; run-time configuration ------------------ */
/* Both are optional: the library initialises itself on first use. */
EXTERNL int nc_initialize(void);
EXTERNL int nc_finalize(void);
/* Value of a .ncrc key (caller frees), or NULL; set or overwrite a key. */
EXTERNL char *nc_rc_get(const char *key);
EXTERNL int nc_rc_set(const char *key, const char *value);

#if defined(__cplusplus)
}
#endif

/* Feature macros that client code tests for. */
#ifndef NC_HAVE_RENAME_GRP
#define NC_HAVE_RENAME_GRP
#endif
#ifndef NC_HAVE_INQ_FORMAT_EXTENDED
#define NC_HAVE_INQ_FORMAT_EXTENDED
#endif
#define NC_HAVE_META_H

#endif /* _NETCDF_ */
