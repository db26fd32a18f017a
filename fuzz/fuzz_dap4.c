/* fuzz_dap4.c: libFuzzer target for the DAP4 client: the DMR parser (XML
 * into the enhanced model), the chunked data response decoder and the URL
 * parameters (dap4.ce, dap4.checksum, percent-decoding).
 *
 * The first byte picks what the rest is:
 *   0  a data response, written as NAME.dap (the DMR taken from its head)
 *   1  a DMR, the separator "\n\0DAP\0\n", then a data response: NAME.dmr
 *      and NAME.dap
 *   2  the query and fragment of a file:// URL opening a small valid
 *      dataset (its checksums verified when the text asks)
 * Every opened dataset has its attributes read, and its variables read
 * whole when small.  A crash, leak, sanitizer report or oversized
 * allocation is a bug in the library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "netcdf.h"

#define MAX_READ_BYTES (1u << 20)
static const char SEP[] = "\n\0DAP\0\n";
#define SEPLEN (sizeof SEP - 1)

static char dir[512];

/* A small valid dataset for mode 2: an Int32 vector and a String, each
 * followed by its CRC32. */
static const char DMR[] =
    "<Dataset name=\"f\" dapVersion=\"4.0\" xmlns=\"http://xml.opendap.org/ns/DAP/4.0#\">"
    "<Dimension name=\"d\" size=\"2\"/><Int32 name=\"v\"><Dim name=\"/d\"/></Int32>"
    "<String name=\"s\"/></Dataset>";

static void
write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return;
    if (n > 0)
        fwrite(b, 1, n, f);
    fclose(f);
}

static void
read_atts(int ncid, int varid, int natts)
{
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len;
        if (nc_inq_attname(ncid, varid, a, name) || nc_inq_att(ncid, varid, name, &t, &len))
            continue;
        if (len > MAX_READ_BYTES / 16)
            continue;
        void *buf = calloc(len + 1, 16);
        if (buf == NULL)
            continue;
        if (nc_get_att(ncid, varid, name, buf) == NC_NOERR)
            nc_reclaim_data(ncid, t, buf, len);
        free(buf);
    }
}

static void
read_group(int ncid, int depth)
{
    int nvars, natts, ngrps, grps[64];
    if (depth > 8 || nc_inq(ncid, NULL, &nvars, &natts, NULL))
        return;
    read_atts(ncid, NC_GLOBAL, natts);
    for (int v = 0; v < nvars; v++) {
        nc_type t;
        int ndims, dimids[NC_MAX_VAR_DIMS], vnatts;
        size_t n = 1, size = 0;
        if (nc_inq_var(ncid, v, NULL, &t, &ndims, dimids, &vnatts))
            continue;
        read_atts(ncid, v, vnatts);
        if (nc_inq_type(ncid, t, NULL, &size) || size == 0)
            continue;
        for (int i = 0; i < ndims; i++) {
            size_t len;
            if (nc_inq_dimlen(ncid, dimids[i], &len) || (len && n > MAX_READ_BYTES / len))
                n = MAX_READ_BYTES + 1;
            else
                n *= len;
        }
        if (n > MAX_READ_BYTES / size)
            continue;
        void *buf = calloc(n ? n : 1, size);
        if (buf == NULL)
            continue;
        if (nc_get_var(ncid, v, buf) == NC_NOERR)
            nc_reclaim_data(ncid, t, buf, n);
        free(buf);
    }
    if (nc_inq_grps(ncid, &ngrps, NULL) == NC_NOERR && ngrps <= 64
        && nc_inq_grps(ncid, &ngrps, grps) == NC_NOERR)
        for (int g = 0; g < ngrps; g++)
            read_group(grps[g], depth + 1);
}

static void
open_and_read(const char *url)
{
    int ncid;
    if (nc_open(url, NC_NOWRITE, &ncid) == NC_NOERR) {
        read_group(ncid, 0);
        nc_close(ncid);
    }
}

/* The chunked response of DMR with data (little-endian, a CRC32 after v). */
static void
write_valid(const char *path)
{
    uint8_t buf[1024];
    size_t n = sizeof DMR - 1, p = 0;
    const uint8_t data[] = {1, 0, 0, 0, 2, 0, 0, 0, 124, 23, 129, 3,
                            2, 0, 0, 0, 0, 0, 0, 0, 'h', 'i', 24, 128, 53, 126};
    buf[p++] = 4;
    buf[p++] = (uint8_t)(n >> 16);
    buf[p++] = (uint8_t)(n >> 8);
    buf[p++] = (uint8_t)n;
    memcpy(buf + p, DMR, n);
    p += n;
    buf[p++] = 5;
    buf[p++] = 0;
    buf[p++] = 0;
    buf[p++] = sizeof data;
    memcpy(buf + p, data, sizeof data);
    p += sizeof data;
    write_file(path, buf, p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[640], url[4096];
    if (dir[0] == '\0') {
        snprintf(dir, sizeof dir, "/tmp/fuzz_dap4.%d", (int)getpid());
        mkdir(dir, 0700);
        snprintf(path, sizeof path, "%s/ok.dap", dir);
        write_valid(path);
    }
    if (size < 1)
        return 0;
    int mode = data[0] % 3;
    data++;
    size--;
    snprintf(path, sizeof path, "%s/x.dmr", dir);
    unlink(path);
    if (mode == 0) {
        snprintf(path, sizeof path, "%s/x.dap", dir);
        write_file(path, data, size);
        snprintf(url, sizeof url, "file://%s/x#dap4", dir);
        open_and_read(url);
    } else if (mode == 1) {
        const uint8_t *sep = NULL;
        for (size_t i = 0; i + SEPLEN <= size; i++)
            if (memcmp(data + i, SEP, SEPLEN) == 0) {
                sep = data + i;
                break;
            }
        size_t dl = sep ? (size_t)(sep - data) : size;
        write_file(path, data, dl);
        snprintf(path, sizeof path, "%s/x.dap", dir);
        write_file(path, sep ? sep + SEPLEN : (const uint8_t *)"", sep ? size - dl - SEPLEN : 0);
        snprintf(url, sizeof url, "file://%s/x#dap4", dir);
        open_and_read(url);
    } else {
        size_t n = size < 2000 ? size : 2000;
        int l = snprintf(url, sizeof url, "file://%s/ok?", dir);
        for (size_t i = 0; i < n; i++)
            url[l++] = data[i] ? (char)data[i] : 'x';
        url[l] = '\0';
        if (strchr(url, '#') == NULL)
            strcat(url, "#dap4");
        open_and_read(url);
    }
    return 0;
}
