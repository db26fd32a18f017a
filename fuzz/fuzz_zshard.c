/* fuzz_zshard.c: libFuzzer target for the Zarr v3 codec chain JSON and the
 * sharding_indexed decoder (libnczarr/zshard.c).
 *
 * Input: a v3 "codecs" JSON array, a NUL byte, then the bytes of one shard
 * (or of one plain chunk when the chain is not sharded).  The array is
 * 2-D, shard/chunk shape 8x6, int16.  Everything must end in a clean NC_*
 * code: no crash, no leak, no read outside the input.
 *   build-fuzz/fuzz/fuzz_zshard -max_total_time=600 CORPUS_DIR fuzz/corpus_zshard
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "zdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    NC4_var var;
    NCZ_var zv;
    NC4_dim d0, d1, *dims[2] = {&d0, &d1};
    size_t chunks[2] = {8, 6};
    json_object *codecs;
    ncz_pipe *pipe = NULL;
    short out[48], fill = -1;
    if (nul == NULL || nul - data > 4096)
        return 0;
    {
        char *text = malloc((size_t)(nul - data) + 1);
        if (text == NULL)
            return 0;
        memcpy(text, data, (size_t)(nul - data));
        text[nul - data] = '\0';
        codecs = json_tokener_parse(text);
        free(text);
    }
    if (codecs == NULL)
        return 0;
    memset(&var, 0, sizeof(var));
    memset(&zv, 0, sizeof(zv));
    memset(&d0, 0, sizeof(d0));
    memset(&d1, 0, sizeof(d1));
    d0.len = 8;
    d1.len = 6;
    var.xtype = NC_SHORT;
    var.ndims = 2;
    var.dims = dims;
    var.chunksizes = chunks;
    var.fmt = &zv;
    zv.typesize = sizeof(short);
    if (ncz_codecs_from_json_v3(NULL, &var, codecs) == NC_NOERR) {
        const NCZ_codec_spec *c = zv.sharded ? zv.inner_codecs : zv.codecs;
        size_t n = zv.sharded ? zv.ninner_codecs : zv.ncodecs;
        const size_t *shape = zv.sharded ? zv.inner_chunks : chunks;
        if (ncz_pipe_create(c, n, sizeof(short), zv.bigendian, 0, 2, shape, zv.transpose, &pipe) == NC_NOERR) {
            const uint8_t *body = nul + 1;
            size_t blen = size - (size_t)(nul + 1 - data);
            if (zv.sharded) {
                ncz_shard s;
                if (ncz_shard_init(&s, 2, chunks, zv.inner_chunks, sizeof(short), zv.index_at_start,
                                   zv.nindex_codecs > 0, pipe) == NC_NOERR)
                    (void)ncz_shard_decode(&s, body, blen, out, &fill, NULL);
            } else {
                (void)ncz_pipe_decode(pipe, body, blen, out, sizeof(out));
            }
            ncz_pipe_free(pipe);
        }
    }
    ncz_codec_specs_free(&zv.codecs, &zv.ncodecs);
    ncz_codec_specs_free(&zv.inner_codecs, &zv.ninner_codecs);
    ncz_codec_specs_free(&zv.index_codecs, &zv.nindex_codecs);
    free(zv.inner_chunks);
    free(zv.transpose);
    for (size_t i = 0; i < var.nfilters; i++)
        free(var.filters[i].params);
    free(var.filters);
    json_object_put(codecs);
    return 0;
}
