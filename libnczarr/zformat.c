/* zformat.c: the Zarr layer's entry in the format registry
 * (libdispatch/ncformat.h): its dispatch table (nothing to start up or
 * shut down) and the sniff that opens a store named by a plain path.  A
 * store has no magic number of its own: a directory, or a zip archive (its
 * "PK" local-file header), is Zarr when the object store finds Zarr
 * metadata at its root (ncz_map_sniff). */
#include "ncdispatch.h"
#include "ncformat.h"
#include "zinternal.h"
#include "zmap.h"

static int
ncz_sniff(const char *path, int isdir, const unsigned char *head, size_t headlen)
{
    if (!isdir && (headlen < 4 || head[0] != 'P' || head[1] != 'K'))
        return 0;
    return ncz_map_sniff(path);
}

const NC_FormatImpl NCZ_format_impl = {
    .model = NC_FORMATX_NCZARR,
    .name = "NCZarr",
    .dispatch = &NCZ_dispatch_table,
    .sniff = ncz_sniff,
};
