/* dinfermodel.c: decide which format layer serves a create or an open.
 *
 * Order of evidence, as upstream: a URL's scheme and "#mode=" keys first;
 * then, for create, the mode flags (falling back to the default format);
 * for open, the file's magic number.  A format recognised but not built
 * into this library is NC_ENOTBUILT; bytes that match nothing NC_ENOTNC.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ncinfer.h"
#include "ncstate.h"
#if NC_ENABLE_NCZARR
#include "zmap.h"
#endif

#define MAGIC_LEN 8  /* longest magic number we test (HDF5 signature) */

static const unsigned char hdf5_sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
static const unsigned char hdf4_sig[4] = {0x0e, 0x03, 0x13, 0x01};

/* Does a registered user-defined format claim these bytes? */
static int
match_udf(const unsigned char *buf, size_t len, NCmodel *model)
{
    for (int i = 0; i < NC_MAX_UDF_FORMATS; i++) {
        NC_UDF u = NC_udf_get(i);
        size_t mlen = strlen(u.magic);
        if (u.table == NULL || mlen == 0 || mlen > len)
            continue;
        if (memcmp(buf, u.magic, mlen) == 0) {
            model->impl = NC_udf_formatx(i);
            model->format = 0;
            model->mode = 0;
            return 1;
        }
    }
    return 0;
}

int
NC_infer_bytes(const unsigned char *buf, size_t len, NCmodel *model)
{
    NCmodel m = {0, 0, 0};
    if (buf == NULL || model == NULL)
        return NC_EINVAL;
    if (match_udf(buf, len, &m)) {
        *model = m;
        return NC_NOERR;
    }
    if (len >= 4 && buf[0] == 'C' && buf[1] == 'D' && buf[2] == 'F') {
        switch (buf[3]) {
        case 1: m.format = NC_FORMAT_CLASSIC; break;
        case 2: m.format = NC_FORMAT_64BIT_OFFSET; m.mode = NC_64BIT_OFFSET; break;
        case 5: m.format = NC_FORMAT_64BIT_DATA; m.mode = NC_64BIT_DATA; break;
        default: return NC_ENOTNC;
        }
        m.impl = NC_FORMATX_NC3;
        *model = m;
        return NC_NOERR;
    }
    if (len >= sizeof hdf5_sig && memcmp(buf, hdf5_sig, sizeof hdf5_sig) == 0) {
        m.impl = NC_FORMATX_NC_HDF5;
        m.format = NC_FORMAT_NETCDF4;
        m.mode = NC_NETCDF4;
        *model = m;
        return NC_NOERR;
    }
    if (len >= sizeof hdf4_sig && memcmp(buf, hdf4_sig, sizeof hdf4_sig) == 0) {
        m.impl = NC_FORMATX_NC_HDF4;
        m.format = NC_FORMAT_NETCDF4;
        *model = m;
        return NC_NOERR;
    }
    return NC_ENOTNC;
}

/* ---- URLs ---------------------------------------------------------------------- */

/* Is there a "scheme://" prefix?  Scheme: letter then letters, digits, + - . */
static int
url_scheme(const char *path, size_t *schemelen)
{
    size_t i = 0;
    if (!isalpha((unsigned char)path[0]))
        return 0;
    while (isalnum((unsigned char)path[i]) || path[i] == '+' || path[i] == '-' || path[i] == '.')
        i++;
    if (i < 2 || strncmp(path + i, "://", 3) != 0)  /* i >= 2 keeps "C:/" a path */
        return 0;
    *schemelen = i;
    return 1;
}

/* Is key one of the comma-separated values of "mode=" in the fragment? */
static int
frag_has_mode(const char *frag, const char *key)
{
    const char *p = frag;
    size_t klen = strlen(key);
    while (p != NULL && *p) {
        const char *amp = strchr(p, '&');
        size_t plen = amp ? (size_t)(amp - p) : strlen(p);
        if (plen > 5 && strncmp(p, "mode=", 5) == 0) {
            const char *v = p + 5, *end = p + plen;
            while (v < end) {
                const char *c = memchr(v, ',', (size_t)(end - v));
                size_t vlen = c ? (size_t)(c - v) : (size_t)(end - v);
                if (vlen == klen && strncasecmp(v, key, klen) == 0)
                    return 1;
                v += vlen + 1;
            }
        } else if (plen == klen && strncasecmp(p, key, klen) == 0) {
            return 1;  /* a bare "#dap4" style key */
        }
        p = amp ? amp + 1 : NULL;
    }
    return 0;
}

int
NC_infer_url(const char *path, int *isurl, NCmodel *model, char **pathp)
{
    size_t slen = 0;
    const char *frag;
    char scheme[32];
    NCmodel m = {0, 0, 0};

    *isurl = 0;
    *pathp = NULL;
    if (!url_scheme(path, &slen))
        return NC_NOERR;
    *isurl = 1;
    if (slen >= sizeof scheme)
        return NC_EURL;
    for (size_t i = 0; i < slen; i++)
        scheme[i] = (char)tolower((unsigned char)path[i]);
    scheme[slen] = '\0';
    if (path[slen + 3] == '\0')
        return NC_EURL;
    frag = strchr(path, '#');
    frag = frag ? frag + 1 : "";

    if (frag_has_mode(frag, "nczarr") || frag_has_mode(frag, "zarr")
        || frag_has_mode(frag, "zip") || frag_has_mode(frag, "s3")
        || frag_has_mode(frag, "xarray") || frag_has_mode(frag, "noxarray")) {
        m.impl = NC_FORMATX_NCZARR;
    } else if (frag_has_mode(frag, "dap4") || strcmp(scheme, "dap4") == 0) {
        m.impl = NC_FORMATX_DAP4;
    } else if (frag_has_mode(frag, "dap2") || strcmp(scheme, "dap2") == 0) {
        m.impl = NC_FORMATX_DAP2;
    } else if (frag_has_mode(frag, "bytes")) {
        m.impl = NC_FORMATX_NC3;  /* byte ranges: the bytes decide later */
    } else if (strcmp(scheme, "file") == 0) {
        /* file:///path without a storage mode is just a local path */
        const char *p = path + slen + 3;
        size_t n = strcspn(p, "#?");
        char *local = malloc(n + 1);
        if (local == NULL)
            return NC_ENOMEM;
        memcpy(local, p, n);
        local[n] = '\0';
        *isurl = 0;
        *pathp = local;
        return NC_NOERR;
    } else if (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0) {
        m.impl = NC_FORMATX_DAP2;  /* upstream's default for a bare http URL */
    } else if (strcmp(scheme, "s3") == 0) {
        m.impl = NC_FORMATX_NCZARR;
    } else {
        return NC_EURL;
    }
    if ((*pathp = strdup(path)) == NULL)
        return NC_ENOMEM;
    *model = m;
    return NC_NOERR;
}

/* ---- create and open ------------------------------------------------------------ */

int
NC_infer_create(int cmode, int default_format, NCmodel *model)
{
    NCmodel m = {NC_FORMATX_NC3, NC_FORMAT_CLASSIC, 0};
    int udf = NC_udf_slot(cmode);

    if ((cmode & NC_64BIT_OFFSET) && (cmode & NC_64BIT_DATA))
        return NC_EINVAL;
    if (udf >= 0) {
        m.impl = NC_udf_formatx(udf);
        m.format = 0;
    } else if (cmode & NC_NETCDF4) {
        m.impl = NC_FORMATX_NC_HDF5;
        m.format = (cmode & NC_CLASSIC_MODEL) ? NC_FORMAT_NETCDF4_CLASSIC : NC_FORMAT_NETCDF4;
    } else if (cmode & NC_64BIT_DATA) {
        m.format = NC_FORMAT_64BIT_DATA;
    } else if (cmode & NC_64BIT_OFFSET) {
        m.format = NC_FORMAT_64BIT_OFFSET;
    } else {
        switch (default_format) {
        case NC_FORMAT_64BIT_OFFSET: m.format = default_format; m.mode = NC_64BIT_OFFSET; break;
        case NC_FORMAT_64BIT_DATA: m.format = default_format; m.mode = NC_64BIT_DATA; break;
        case NC_FORMAT_NETCDF4:
            m.impl = NC_FORMATX_NC_HDF5; m.format = default_format; m.mode = NC_NETCDF4; break;
        case NC_FORMAT_NETCDF4_CLASSIC:
            m.impl = NC_FORMATX_NC_HDF5; m.format = default_format;
            m.mode = NC_NETCDF4 | NC_CLASSIC_MODEL; break;
        default: break;
        }
    }
    *model = m;
    return NC_NOERR;
}

int
NC_infer_open(const char *path, NCmodel *model)
{
    unsigned char buf[MAGIC_LEN];
    struct stat st;
    ssize_t got;
    int fd, stat;

    fd = open(path, O_RDONLY);
    if (fd < 0)
        return errno;
    if (fstat(fd, &st) != 0) {
        stat = errno;
        close(fd);
        return stat;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
#if NC_ENABLE_NCZARR
        /* A directory holding Zarr metadata opens with no "#mode=". */
        if (ncz_map_sniff(path)) {
            model->impl = NC_FORMATX_NCZARR;
            model->format = NC_FORMAT_NETCDF4;
            model->mode = NC_NETCDF4;
            return NC_NOERR;
        }
#endif
        return NC_ENOTNC;
    }
    got = pread(fd, buf, sizeof buf, 0);
    if (got < 0) {
        stat = errno;
        close(fd);
        return stat;
    }
    stat = NC_infer_bytes(buf, (size_t)got, model);
    /* HDF5 may put its superblock at 512, 1024, 2048, ... (user block). */
    for (off_t off = 512; stat == NC_ENOTNC && off + (off_t)MAGIC_LEN <= st.st_size; off *= 2) {
        got = pread(fd, buf, sizeof buf, off);
        if (got == (ssize_t)MAGIC_LEN && memcmp(buf, hdf5_sig, MAGIC_LEN) == 0) {
            model->impl = NC_FORMATX_NC_HDF5;
            model->format = NC_FORMAT_NETCDF4;
            model->mode = NC_NETCDF4;
            stat = NC_NOERR;
        }
    }
    close(fd);
#if NC_ENABLE_NCZARR
    /* A zip archive of a Zarr store ("PK" local-file header). */
    if (stat == NC_ENOTNC && got >= 4 && buf[0] == 'P' && buf[1] == 'K' && ncz_map_sniff(path)) {
        model->impl = NC_FORMATX_NCZARR;
        model->format = NC_FORMAT_NETCDF4;
        model->mode = NC_NETCDF4;
        stat = NC_NOERR;
    }
#endif
    return stat;
}
