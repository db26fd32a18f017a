/* hdf5format.c: the netCDF-4/HDF5 layer's entry in the format registry
 * (libdispatch/ncformat.h): its dispatch table and start-up (nothing to
 * shut down).  HDF5 files are recognised by the registry's row (the
 * superblock signature at 0, 512, 1024, ...), so no sniff. */
#include "config.h"
#include "ncdispatch.h"
#include "ncformat.h"

const NC_FormatImpl NC4_HDF5_format_impl = {
    .model = NC_FORMATX_NC_HDF5,
    .name = "HDF5",
    .dispatch = &NC4_HDF5_dispatch_table,
    .initialize = NC4_HDF5_initialize,
#if NC_ENABLE_PARALLEL4
    .flags = NC_IMPL_PARALLEL,  /* nc_create_par / nc_open_par (hdf5par.c) */
#endif
};
