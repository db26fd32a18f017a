/* fuzz_zmeta.c: the Zarr metadata parsers (.zgroup/.zattrs/.zarray, v3
 * zarr.json, consolidated /.zmetadata) fed arbitrary bytes through the
 * public API: the input is written as a small store in a scratch directory,
 * opened, every variable's first element read, closed.
 * Input: byte 0 picks the layout, the rest is up to four objects split at
 * NUL bytes:
 *   0 NCZarr v2: /.zgroup /.zattrs /v/.zarray /v/.zattrs
 *   1 pure Zarr v2: the same keys, opened with mode=zarr
 *   2 Zarr v3: /zarr.json /v/zarr.json /g/zarr.json /g/w/zarr.json
 *   3 consolidated v2: /.zmetadata (with a plain /.zgroup)
 *   build-fuzz/fuzz/fuzz_zmeta -max_total_time=600 CORPUS_DIR fuzz/corpus_zmeta */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netcdf.h>

static char root[256];

static void
put(const char *key, const uint8_t *data, size_t len)
{
    char path[512], *p;
    FILE *f;
    snprintf(path, sizeof path, "%s%s", root, key);
    for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    if ((f = fopen(path, "wb")) == NULL)
        return;
    if (len)
        fwrite(data, 1, len, f);
    fclose(f);
}

static void
clear(void)
{
    static const char *const keys[] = {"/.zgroup", "/.zattrs", "/v/.zarray", "/v/.zattrs",
                                       "/zarr.json", "/v/zarr.json", "/g/zarr.json",
                                       "/g/w/zarr.json", "/.zmetadata"};
    char path[512];
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        snprintf(path, sizeof path, "%s%s", root, keys[i]);
        unlink(path);
    }
}

static void
read_all(int ncid, int depth)
{
    int nvars = 0, ngrps = 0, grps[16];
    if (depth > 4)
        return;
    if (nc_inq_nvars(ncid, &nvars) == NC_NOERR)
        for (int v = 0; v < nvars && v < 16; v++) {
            int nd = 0;
            size_t start[NC_MAX_VAR_DIMS] = {0}, count[NC_MAX_VAR_DIMS];
            double d[4];
            nc_type t;
            if (nc_inq_varndims(ncid, v, &nd) || nd > NC_MAX_VAR_DIMS || nc_inq_vartype(ncid, v, &t))
                continue;
            for (int i = 0; i < nd; i++)
                count[i] = 1;
            if (t == NC_STRING) {
                char *s[1] = {NULL};
                if (nc_get_vara_string(ncid, v, start, count, s) == NC_NOERR)
                    nc_free_string(1, s);
            } else if (t != NC_CHAR) {
                (void)nc_get_vara_double(ncid, v, start, count, d);
            }
        }
    if (nc_inq_grps(ncid, &ngrps, NULL) == NC_NOERR && ngrps <= 16 && nc_inq_grps(ncid, NULL, grps) == NC_NOERR)
        for (int i = 0; i < ngrps; i++)
            read_all(grps[i], depth + 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[4] = {0};
    size_t plen[4] = {0};
    int layout, ncid;
    char url[512];

    if (root[0] == '\0') {
        snprintf(root, sizeof root, "/tmp/fuzz_zmeta.%d", (int)getpid());
        mkdir(root, 0700);
    }
    if (size < 1)
        return 0;
    layout = data[0] % 4;
    {
        size_t k = 0, start = 1;
        for (size_t i = 1; i <= size && k < 4; i++)
            if (i == size || data[i] == 0) {
                part[k] = data + start;
                plen[k] = i - start;
                k++;
                start = i + 1;
            }
    }
    clear();
    switch (layout) {
    case 0:
    case 1:
        put("/.zgroup", part[0], plen[0]);
        if (part[1]) put("/.zattrs", part[1], plen[1]);
        if (part[2]) put("/v/.zarray", part[2], plen[2]);
        if (part[3]) put("/v/.zattrs", part[3], plen[3]);
        break;
    case 2:
        put("/zarr.json", part[0], plen[0]);
        if (part[1]) put("/v/zarr.json", part[1], plen[1]);
        if (part[2]) put("/g/zarr.json", part[2], plen[2]);
        if (part[3]) put("/g/w/zarr.json", part[3], plen[3]);
        break;
    default:
        put("/.zgroup", (const uint8_t *)"{\"zarr_format\": 2}", 18);
        put("/.zmetadata", part[0], plen[0]);
        break;
    }
    snprintf(url, sizeof url, "file://%s#mode=%s", root,
             layout == 1 ? "zarr,file" : layout == 2 ? "v3,file" : "nczarr,file");
    if (nc_open(url, NC_NOWRITE, &ncid) == NC_NOERR) {
        read_all(ncid, 0);
        nc_close(ncid);
    }
    return 0;
}
