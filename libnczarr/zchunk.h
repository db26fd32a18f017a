/* zchunk.h: chunk keys and chunk-grid arithmetic of a Zarr array.
 *
 * Keys, as zarr-python 2 and zarrita write them, relative to the array's
 * own key (e.g. "/grp/var"):
 *   v2:                 "i.j.k" (dimension_separator "." default) or "i/j/k";
 *                       a 0-d array's one chunk is "0".
 *   v3 "default":       "c/i/j/k" (separator "/" default) or "c.i.j.k";
 *                       a 0-d array's chunk is "c".
 *   v3 "v2":            as v2 ("." default); 0-d: "0".
 */
#ifndef ZCHUNK_H
#define ZCHUNK_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

#define NCZ_MAX_RANK 1024 /* NC_MAX_VAR_DIMS */

typedef struct ncz_keyenc {
    int v3default; /* 1: "c" prefix (v3 default encoding); 0: v2 style */
    char sep;      /* '.' or '/' */
} ncz_keyenc;

/* v2 encoding from a .zarray "dimension_separator" value (NULL: "."). */
int ncz_keyenc_v2(const char *dimsep, ncz_keyenc *enc);
/* v3 encoding from the "chunk_key_encoding" object of zarr.json (NULL:
 * default with "/").  NC_ENOTZARR-like errors come back as NC_EINVAL. */
int ncz_keyenc_v3(const struct json_object *cke, ncz_keyenc *enc);
/* The JSON of enc for zarr.json (caller owns the new object). */
struct json_object *ncz_keyenc_v3_json(const ncz_keyenc *enc);

/* Full key of the chunk at grid index idx (rank entries): prefix + "/" +
 * chunk key into buf of cap bytes.  prefix is the array's key ("" or "/"
 * for an array at the root).  NC_EINVAL if it does not fit. */
int ncz_chunk_key(const ncz_keyenc *enc, const char *prefix, int rank, const uint64_t *idx,
                  char *buf, size_t cap);

#endif
