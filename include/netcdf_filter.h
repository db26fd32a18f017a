/* netcdf_filter.h: compression and other filters on variables, and the
 * search path for filter plugins.
 *
 * Include after netcdf.h.  Filter ids are HDF5's registered filter ids;
 * parameters are HDF5's unsigned-int vectors.  Plugins are shared libraries
 * found through the plugin path, which starts as HDF5_PLUGIN_PATH.
 */
#ifndef NETCDF_FILTER_H
#define NETCDF_FILTER_H 1

/* Filter ids built into HDF5 (values fixed by H5Zpublic.h). */
#ifndef H5Z_FILTER_DEFLATE
#define H5Z_FILTER_DEFLATE 1
#define H5Z_FILTER_SHUFFLE 2
#define H5Z_FILTER_FLETCHER32 3
#endif

#ifndef H5Z_FILTER_SZIP
#define H5Z_FILTER_SZIP 4
/* szip option-mask bits, as in H5Zpublic.h. */
#define H5_SZIP_ALLOW_K13_OPTION_MASK 1
#define H5_SZIP_CHIP_OPTION_MASK 2
#define H5_SZIP_EC_OPTION_MASK 4
#define H5_SZIP_LSB_OPTION_MASK 8
#define H5_SZIP_MSB_OPTION_MASK 16
#define H5_SZIP_NN_OPTION_MASK 32
#define H5_SZIP_MAX_PIXELS_PER_BLOCK 32
#define H5_SZIP_RAW_OPTION_MASK 128
/* The two coding methods nc_def_var_szip() accepts. */
#define NC_SZIP_EC 4
#define NC_SZIP_NN 32
#endif

#define H5_SZIP_ALL_MASKS (H5_SZIP_CHIP_OPTION_MASK|H5_SZIP_EC_OPTION_MASK|H5_SZIP_NN_OPTION_MASK)

/* Largest pixels_per_block nc_def_var_szip() accepts. */
#define NC_MAX_PIXELS_PER_BLOCK 32

/* Registered ids of the other standard filters. */
#ifndef H5Z_FILTER_ZSTD
#define H5Z_FILTER_ZSTD 32015
#endif
#ifndef H5Z_FILTER_BZIP2
#define H5Z_FILTER_BZIP2 307
#endif
#ifndef H5Z_FILTER_BLOSC
#define H5Z_FILTER_BLOSC 32001
#endif

/* Blosc shuffle modes and sub-compressors (values of the c-blosc library). */
#ifndef BLOSC_SHUFFLE
enum BLOSC_SHUFFLE {
    BLOSC_NOSHUFFLE = 0,
    BLOSC_SHUFFLE = 1,
    BLOSC_BITSHUFFLE = 2
};
#endif
#ifndef BLOSC_BLOSCLZ
enum BLOSC_SUBCOMPRESSORS {
    BLOSC_LZ = 0, BLOSC_LZ4 = 1, BLOSC_LZ4HC = 2,
    BLOSC_SNAPPY = 3, BLOSC_ZLIB = 4, BLOSC_ZSTD = 5
};
#endif

/* Ids from HDF5's private range that NCZarr uses for its own codecs. */
#define H5Z_FILTER_RAW (65535)
#define H5Z_CODEC_RAW "_hdf5raw_"
#define H5Z_FILTER_BYTES (65534)
#define H5Z_CODEC_BYTES "bytes"
#define H5Z_FILTER_STRINGN (65533)
#define H5Z_CODEC_STRINGN "fixedsizestrings"

#if defined(__cplusplus)
extern "C" {
#endif

/* Add a filter to a variable's pipeline (define mode, before data). */
EXTERNL int nc_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams, const unsigned int *parms);
/* The first filter of a variable; id 0 if it has none. */
EXTERNL int nc_inq_var_filter(int ncid, int varid, unsigned int *idp, size_t *nparams, unsigned int *params);
/* All filter ids of a variable, in pipeline order (call once for the count). */
EXTERNL int nc_inq_var_filter_ids(int ncid, int varid, size_t *nfilters, unsigned int *filterids);
/* Parameters of one filter of a variable; NC_ENOFILTER if it is not there. */
EXTERNL int nc_inq_var_filter_info(int ncid, int varid, unsigned int id, size_t *nparams, unsigned int *params);
/* NC_NOERR if filter id can be used with this file, else NC_ENOFILTER. */
EXTERNL int nc_inq_filter_avail(int ncid, unsigned int id);

/* Shorthands for the standard filters. */
EXTERNL int nc_def_var_bzip2(int ncid, int varid, int level);
EXTERNL int nc_inq_var_bzip2(int ncid, int varid, int *hasfilterp, int *levelp);
EXTERNL int nc_def_var_zstandard(int ncid, int varid, int level);
EXTERNL int nc_inq_var_zstandard(int ncid, int varid, int *hasfilterp, int *levelp);
EXTERNL int nc_def_var_blosc(int ncid, int varid, unsigned subcompressor, unsigned level, unsigned blocksize, unsigned addshuffle);
EXTERNL int nc_inq_var_blosc(int ncid, int varid, int *hasfilterp, unsigned *subcompressorp, unsigned *levelp, unsigned *blocksizep, unsigned *addshufflep);

/* NC_NOERR if a plugin for filter id is found on the plugin path. */
EXTERNL int nc_filter_path_query(int id);

#if defined(__cplusplus)
}
#endif

/* A counted list of directories: the plugin search path. */
typedef struct NCPluginList {
    size_t ndirs;  /* entries in dirs */
    char **dirs;   /* directory names */
} NCPluginList;

#if defined(__cplusplus)
extern "C" {
#endif

/* Number of directories on the plugin path. */
EXTERNL int nc_plugin_path_ndirs(size_t *ndirsp);
/* Copy the plugin path into dirs; dirs->dirs NULL: the library allocates
 * the vector and the strings (free with ncaux_plugin_path_clear). */
EXTERNL int nc_plugin_path_get(NCPluginList *dirs);
/* Replace the plugin path; NULL or an empty list clears it. */
EXTERNL int nc_plugin_path_set(NCPluginList *dirs);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_FILTER_H */
