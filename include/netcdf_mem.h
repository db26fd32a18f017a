/* netcdf_mem.h: netCDF files held in memory instead of on disk.
 *
 * Include after netcdf.h.  nc_open_mem() reads (NC_NOWRITE) a caller's
 * buffer, which must stay valid until nc_close(); nc_create_mem() and
 * nc_open_memio() work on a library-owned copy that nc_close_memio() hands
 * back to the caller, who then frees it with free().
 */
#ifndef NETCDF_MEM_H
#define NETCDF_MEM_H 1

/* A memory image of a file: where, how big, and who may change it. */
typedef struct NC_memio {
    size_t size;   /* bytes at memory */
    void *memory;  /* the file image */
    int flags;     /* NC_MEMIO_LOCKED: the library must not realloc or free it */
#define NC_MEMIO_LOCKED 1
} NC_memio;

#if defined(__cplusplus)
extern "C" {
#endif

EXTERNL int nc_open_mem(const char *path, int mode, size_t size, void *memory, int *ncidp);
EXTERNL int nc_create_mem(const char *path, int mode, size_t initialsize, int *ncidp);
EXTERNL int nc_open_memio(const char *path, int mode, NC_memio *info, int *ncidp);
EXTERNL int nc_close_memio(int ncid, NC_memio *info);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_MEM_H */
