/* dformat.c: the format registry.
 *
 * One row per format the library knows of, built or not: its model id,
 * name, how it is recognised (magic numbers, URL schemes and "#mode=" keys,
 * create flags), the model serving a parallel open of its files, and the
 * layer's entry (dispatch table, start-up, shutdown, sniff) when the build
 * includes it.  This is the only file of libdispatch that knows which
 * formats the build has: every build flag of a format is read here.
 * Inference (dinfermodel.c), create/open (dfile.c) and start-up/shutdown
 * (dglobal.c) walk the rows through ncinfer.h.
 *
 * Row order matters twice: layers start and stop in it (classic, HDF5,
 * Zarr, as upstream), and the first row naming a URL's "#mode=" key wins
 * (Zarr before DAP4 before DAP2 before byte ranges, as upstream).
 */
#include "config.h"
#include <string.h>
#include "ncinfer.h"
#include "ncstate.h"

/* ---- build flags ------------------------------------------------------------ */

#if NC_ENABLE_HDF5
#define HDF5_IMPL (&NC4_HDF5_format_impl)
#else
#define HDF5_IMPL NULL
#endif
#if NC_ENABLE_NCZARR
#define NCZARR_IMPL (&NCZ_format_impl)
#else
#define NCZARR_IMPL NULL
#endif
#if NC_ENABLE_DAP2
#define DAP2_IMPL (&NCD2_format_impl)
#else
#define DAP2_IMPL NULL
#endif
#if NC_ENABLE_DAP4
#define DAP4_IMPL (&NCD4_format_impl)
#else
#define DAP4_IMPL NULL
#endif
#if NC_ENABLE_BYTERANGE
#define BYTERANGE_IMPL (&NC_remote_format_impl)
#else
#define BYTERANGE_IMPL NULL
#endif
#if NC_ENABLE_HDF4
#define HDF4_IMPL (&NCH4_format_impl)
#else
#define HDF4_IMPL NULL
#endif
#if NC_ENABLE_PNETCDF
#define PNETCDF_IMPL (&NCP_format_impl)
#else
#define PNETCDF_IMPL NULL
#endif
#define CDF5_OFF (!NC_ENABLE_CDF5)

/* ---- magic numbers ------------------------------------------------------------ */

#define MAGIC(s) (s), (sizeof(s) - 1)
#define HDF5_MAGIC MAGIC("\211HDF\r\n\032\n")   /* superblock signature */
#define HDF4_MAGIC MAGIC("\016\003\023\001")    /* 0x0e031301 */

/* ---- the rows ------------------------------------------------------------------- */

const NC_Format NC_formats[] = {
    {
        .model = NC_FORMATX_NC3,
        .name = "classic",
        .variants = {
            {NC_FORMAT_CLASSIC, 0, MAGIC("CDF\001"), 0},
            {NC_FORMAT_64BIT_OFFSET, NC_64BIT_OFFSET, MAGIC("CDF\002"), 0},
            {NC_FORMAT_64BIT_DATA, NC_64BIT_DATA, MAGIC("CDF\005"), CDF5_OFF},
        },
        .create_by_mode = 1,
        .par_model = NC_FORMATX_PNETCDF,
        .impl = &NC3_format_impl,
    },
    {
        .model = NC_FORMATX_NC_HDF5,
        .name = "HDF5",
        .variants = {
            {NC_FORMAT_NETCDF4, NC_NETCDF4, HDF5_MAGIC, 0},
            {NC_FORMAT_NETCDF4_CLASSIC, NC_NETCDF4 | NC_CLASSIC_MODEL, NULL, 0, 0},
        },
        .magic_search = 1,
        .create_by_mode = 1,
        .par_model = NC_FORMATX_NC_HDF5,
        .impl = HDF5_IMPL,
    },
    {
        /* Stores carry no magic number: a directory or zip archive holding
         * Zarr metadata is found by the layer's sniff. */
        .model = NC_FORMATX_NCZARR,
        .name = "NCZarr",
        .variants = {
            {NC_FORMAT_NETCDF4, NC_NETCDF4, NULL, 0, 0},
            {NC_FORMAT_NETCDF4_CLASSIC, NC_NETCDF4 | NC_CLASSIC_MODEL, NULL, 0, 0},
        },
        .modekeys = "nczarr,zarr,zip,s3,xarray,noxarray",
        .fallback_schemes = "s3",
        .impl = NCZARR_IMPL,
    },
    {
        .model = NC_FORMATX_DAP4,
        .name = "DAP4",
        .variants = {{NC_FORMAT_NETCDF4, 0, NULL, 0, 0}},
        .modekeys = "dap4",
        .schemes = "dap4",
        .impl = DAP4_IMPL,
    },
    {
        .model = NC_FORMATX_DAP2,
        .name = "DAP2",
        .variants = {{NC_FORMAT_CLASSIC, 0, NULL, 0, 0}},
        .modekeys = "dap2",
        .schemes = "dap2",
        /* upstream's default for a bare URL; a file:// URL with nothing
         * at its path is DAP2 when the layer's sniff finds NAME.dds */
        .fallback_schemes = "http,https",
        .impl = DAP2_IMPL,
    },
    {
        /* A remote file read by byte ranges (libdispatch/dremote.c): its
         * first block names the layer (classic on its remote ncio backend,
         * or netCDF-4 on HDF5's remote driver); any other format found in
         * the file's bytes is NC_ENOTBUILT. */
        .model = NC_FORMATX_NC3,
        .name = "HTTP byte ranges",
        .variants = {{NC_FORMAT_CLASSIC, 0, NULL, 0, 0}},
        .modekeys = "bytes",
        .impl = BYTERANGE_IMPL,
    },
    {
        .model = NC_FORMATX_NC_HDF4,
        .name = "HDF4",
        .variants = {{NC_FORMAT_NETCDF4, 0, HDF4_MAGIC, 0}},
        .impl = HDF4_IMPL,
    },
    {
        /* Reached only as the classic row's parallel model. */
        .model = NC_FORMATX_PNETCDF,
        .name = "PnetCDF",
        .variants = {{NC_FORMAT_CLASSIC, 0, NULL, 0, 0}},
        .impl = PNETCDF_IMPL,
    },
};

const size_t NC_nformats = sizeof NC_formats / sizeof NC_formats[0];

/* Layers that serve no format but keep library-wide state (always built). */
static const NC_FormatImpl *const services[] = {&NCF_layer_impl};

/* ---- walks ------------------------------------------------------------------------ */

int
NC_format_dispatch(const NCmodel *m, const NC_Dispatch **tablep)
{
    if (m->fmt != NULL) {
        const NC_FormatImpl *impl = m->fmt->impl;
        if (impl == NULL || impl->dispatch == NULL || *impl->dispatch == NULL)
            return NC_ENOTBUILT;
        *tablep = *impl->dispatch;
        return NC_NOERR;
    }
    /* User-defined formats: the slot's table as nc_def_user_format set it. */
    for (int i = 0; i < NC_MAX_UDF_FORMATS; i++) {
        if (m->impl == NC_udf_formatx(i)) {
            NC_UDF u = NC_udf_get(i);
            if (u.table == NULL)
                return NC_ENOTBUILT;
            *tablep = u.table;
            return NC_NOERR;
        }
    }
    return NC_ENOTBUILT;
}

int
NC_formats_initialize(void)
{
    int stat = NC_NOERR;
    for (size_t i = 0; i < NC_nformats && stat == NC_NOERR; i++) {
        const NC_FormatImpl *impl = NC_formats[i].impl;
        if (impl != NULL && impl->initialize != NULL)
            stat = impl->initialize();
    }
    return stat;
}

int
NC_formats_finalize(void)
{
    int stat = NC_NOERR;
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_FormatImpl *impl = NC_formats[i].impl;
        if (impl != NULL && impl->finalize != NULL) {
            int s = impl->finalize();
            if (stat == NC_NOERR)
                stat = s;
        }
    }
    return stat;
}

int
NC_services_finalize(void)
{
    int stat = NC_NOERR;
    for (size_t i = 0; i < sizeof services / sizeof services[0]; i++) {
        if (services[i]->finalize != NULL) {
            int s = services[i]->finalize();
            if (stat == NC_NOERR)
                stat = s;
        }
    }
    return stat;
}

int
NC_format_check_default(int format)
{
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_Format *f = &NC_formats[i];
        if (!f->create_by_mode)
            continue;
        for (int v = 0; v < NC_MAX_VARIANTS && f->variants[v].format != 0; v++) {
            if (f->variants[v].format == format)
                return (f->impl == NULL || f->variants[v].off) ? NC_ENOTBUILT : NC_NOERR;
        }
    }
    return NC_EINVAL;
}

const char *
NC_format_strerror(int code)
{
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_FormatImpl *impl = NC_formats[i].impl;
        const char *msg = impl != NULL && impl->strerror != NULL ? impl->strerror(code) : NULL;
        if (msg != NULL)
            return msg;
    }
    return NULL;
}

int
NC_format_parallel(void)
{
    for (size_t i = 0; i < NC_nformats; i++) {
        int pm = NC_formats[i].par_model;
        for (size_t j = 0; pm != 0 && j < NC_nformats; j++) {
            const NC_FormatImpl *impl = NC_formats[j].impl;
            if (NC_formats[j].model == pm && impl != NULL && (impl->flags & NC_IMPL_PARALLEL))
                return 1;
        }
    }
    return 0;
}
