/* zchunk_key.c: chunk keys of a Zarr array (see zchunk.h). */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "netcdf.h"
#include "zchunk.h"

int
ncz_keyenc_v2(const char *dimsep, ncz_keyenc *enc)
{
    enc->v3default = 0;
    enc->sep = '.';
    if (dimsep == NULL)
        return NC_NOERR;
    if (strcmp(dimsep, ".") != 0 && strcmp(dimsep, "/") != 0)
        return NC_EINVAL;
    enc->sep = dimsep[0];
    return NC_NOERR;
}

int
ncz_keyenc_v3(const struct json_object *cke, ncz_keyenc *enc)
{
    struct json_object *name, *conf, *sep;
    const char *n;
    enc->v3default = 1;
    enc->sep = '/';
    if (cke == NULL)
        return NC_NOERR;
    if (!json_object_is_type(cke, json_type_object) ||
        !json_object_object_get_ex(cke, "name", &name) || !json_object_is_type(name, json_type_string))
        return NC_EINVAL;
    n = json_object_get_string(name);
    if (strcmp(n, "default") == 0) {
        enc->v3default = 1;
        enc->sep = '/';
    } else if (strcmp(n, "v2") == 0) {
        enc->v3default = 0;
        enc->sep = '.';
    } else {
        return NC_EINVAL;
    }
    if (json_object_object_get_ex(cke, "configuration", &conf) && conf != NULL) {
        if (!json_object_is_type(conf, json_type_object))
            return NC_EINVAL;
        if (json_object_object_get_ex(conf, "separator", &sep) && sep != NULL) {
            const char *s = json_object_get_string(sep);
            if (!json_object_is_type(sep, json_type_string) || (strcmp(s, ".") && strcmp(s, "/")))
                return NC_EINVAL;
            enc->sep = s[0];
        }
    }
    return NC_NOERR;
}

struct json_object *
ncz_keyenc_v3_json(const ncz_keyenc *enc)
{
    struct json_object *o = json_object_new_object(), *conf = json_object_new_object();
    char sep[2] = {enc->sep, '\0'};
    if (o == NULL || conf == NULL) {
        json_object_put(o);
        json_object_put(conf);
        return NULL;
    }
    json_object_object_add(o, "name", json_object_new_string(enc->v3default ? "default" : "v2"));
    json_object_object_add(conf, "separator", json_object_new_string(sep));
    json_object_object_add(o, "configuration", conf);
    return o;
}

int
ncz_chunk_key(const ncz_keyenc *enc, const char *prefix, int rank, const uint64_t *idx, char *buf,
              size_t cap)
{
    size_t n;
    int k;
    if (prefix == NULL || strcmp(prefix, "/") == 0)
        prefix = "";
    k = snprintf(buf, cap, "%s/%s", prefix, enc->v3default ? "c" : "");
    if (k < 0 || (size_t)k >= cap)
        return NC_EINVAL;
    n = (size_t)k;
    if (rank == 0) {
        /* v3 default: just "c"; v2 style: "0". */
        if (!enc->v3default) {
            if (n + 2 > cap)
                return NC_EINVAL;
            buf[n++] = '0';
            buf[n] = '\0';
        }
        return NC_NOERR;
    }
    for (int d = 0; d < rank; d++) {
        int need_sep = d > 0 || enc->v3default;
        if (need_sep)
            k = snprintf(buf + n, cap - n, "%c%llu", enc->sep, (unsigned long long)idx[d]);
        else
            k = snprintf(buf + n, cap - n, "%llu", (unsigned long long)idx[d]);
        if (k < 0 || (size_t)k >= cap - n)
            return NC_EINVAL;
        n += (size_t)k;
    }
    return NC_NOERR;
}
