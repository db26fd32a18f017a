/* dinfermodel.c: decide which format serves a create or an open.
 *
 * Order of evidence, as upstream: a URL's scheme and "#mode=" keys first;
 * then, for create, the mode flags (falling back to the default format);
 * for open, the file's magic number, then the formats' sniffs (a Zarr
 * directory).  Every fact about a format comes from the registry's rows
 * (dformat.c); this file only walks them.  A format recognised but not
 * built into this library is NC_ENOTBUILT (dfile.c, through the row);
 * bytes that match nothing NC_ENOTNC.
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

#define MAGIC_LEN 8  /* longest magic number a row may have (HDF5 signature) */

/* Set *model from variant v of row f. */
static void
set_model(NCmodel *model, const NC_Format *f, int v)
{
    model->impl = f->model;
    model->format = f->variants[v].format;
    model->mode = f->variants[v].mode;
    model->fmt = f;
}

/* Does a magic number of a row match buf?  searched: only rows whose
 * magic may also sit at 512, 1024, ... */
static int
match_magic(const unsigned char *buf, size_t len, int searched, NCmodel *model)
{
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_Format *f = &NC_formats[i];
        if (searched && !f->magic_search)
            continue;
        for (int v = 0; v < NC_MAX_VARIANTS && f->variants[v].format != 0; v++) {
            const NC_Variant *var = &f->variants[v];
            if (var->magic != NULL && len >= var->magiclen
                && memcmp(buf, var->magic, var->magiclen) == 0) {
                set_model(model, f, v);
                return 1;
            }
        }
    }
    return 0;
}

/* Does a built layer's sniff claim path (see NC_FormatImpl.sniff)? */
static int
match_sniff(const char *path, int isdir, const unsigned char *head, size_t headlen,
            NCmodel *model)
{
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_FormatImpl *impl = NC_formats[i].impl;
        if (impl != NULL && impl->sniff != NULL && impl->sniff(path, isdir, head, headlen)) {
            set_model(model, &NC_formats[i], 0);
            return 1;
        }
    }
    return 0;
}

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
            model->fmt = NULL;
            return 1;
        }
    }
    return 0;
}

int
NC_infer_bytes(const unsigned char *buf, size_t len, NCmodel *model)
{
    NCmodel m = {0, 0, 0, NULL};
    if (buf == NULL || model == NULL)
        return NC_EINVAL;
    if (match_udf(buf, len, &m) || match_magic(buf, len, 0, &m)) {
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
frag_has_mode(const char *frag, const char *key, size_t klen)
{
    const char *p = frag;
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

/* Calls fn(word, wordlen, arg) for each word of a comma-separated list until
 * one returns nonzero; returns that. */
static int
any_word(const char *list, int (*fn)(const char *, size_t, const void *), const void *arg)
{
    for (const char *p = list; p != NULL && *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (fn(p, n, arg))
            return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

static int
is_frag_key(const char *w, size_t n, const void *frag)
{
    return frag_has_mode(frag, w, n);
}

static int
is_scheme(const char *w, size_t n, const void *scheme)
{
    return strlen(scheme) == n && strncmp(w, scheme, n) == 0;
}

/* The built row whose sniff recognises a local path where nothing is
 * (called with no bytes), or NULL. */
static const NC_Format *
file_sniff(const char *local)
{
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_FormatImpl *impl = NC_formats[i].impl;
        if (impl != NULL && impl->sniff != NULL && impl->sniff(local, 0, NULL, 0))
            return &NC_formats[i];
    }
    return NULL;
}

int
NC_infer_url(const char *path, int *isurl, NCmodel *model, char **pathp)
{
    size_t slen = 0;
    const char *frag;
    char scheme[32];
    const NC_Format *found = NULL;

    const char *url = path;

    *isurl = 0;
    *pathp = NULL;
    /* DAP client parameters may come first: "[key=value][key]http://..." */
    while (*url == '[') {
        const char *close = strchr(url, ']');
        if (close == NULL)
            break;
        url = close + 1;
    }
    if (!url_scheme(url, &slen))
        return NC_NOERR;
    *isurl = 1;
    if (slen >= sizeof scheme)
        return NC_EURL;
    for (size_t i = 0; i < slen; i++)
        scheme[i] = (char)tolower((unsigned char)url[i]);
    scheme[slen] = '\0';
    if (url[slen + 3] == '\0')
        return NC_EURL;
    frag = strchr(url, '#');
    frag = frag ? frag + 1 : "";

    /* A "#mode=" key, or a scheme that is as good as one, in row order. */
    for (size_t i = 0; i < NC_nformats && found == NULL; i++) {
        if (any_word(NC_formats[i].modekeys, is_frag_key, frag)
            || any_word(NC_formats[i].schemes, is_scheme, scheme))
            found = &NC_formats[i];
    }
    if (found == NULL && strcmp(scheme, "file") == 0) {
        /* file:///path without a storage mode is a local path, unless
         * nothing is there and a layer's sniff recognises it (DAP2's test
         * mode: NAME.dds, NAME.das, NAME.dods). */
        const char *p = url + slen + 3;
        size_t n = strcspn(p, "#?");
        struct stat st;
        char *local = malloc(n + 1);
        if (local == NULL)
            return NC_ENOMEM;
        memcpy(local, p, n);
        local[n] = '\0';
        if (stat(local, &st) == 0 || (found = file_sniff(local)) == NULL) {
            *isurl = 0;
            *pathp = local;
            return NC_NOERR;
        }
        free(local);
    }
    /* A bare URL: the row claiming its scheme by default. */
    for (size_t i = 0; i < NC_nformats && found == NULL; i++) {
        if (any_word(NC_formats[i].fallback_schemes, is_scheme, scheme))
            found = &NC_formats[i];
    }
    if (found == NULL)
        return NC_EURL;
    if ((*pathp = strdup(path)) == NULL)
        return NC_ENOMEM;
    set_model(model, found, 0);
    return NC_NOERR;
}

/* ---- create and open ------------------------------------------------------------ */

/* The create-by-mode variant that mode asks for: the one whose mode bits
 * are all in mode, the most specific winning (netCDF-4 classic model over
 * netCDF-4).  0 if none; NC_EINVAL if two of the same weight (CDF-2 and
 * CDF-5, or netCDF-4 and CDF-5). */
static int
variant_for_mode(int mode, NCmodel *model)
{
    int best = 0, tie = 0;
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_Format *f = &NC_formats[i];
        if (!f->create_by_mode)
            continue;
        for (int v = 0; v < NC_MAX_VARIANTS && f->variants[v].format != 0; v++) {
            int vm = f->variants[v].mode;
            int weight = 0;
            for (unsigned b = (unsigned)vm; b != 0; b &= b - 1)
                weight++;
            if (vm == 0 || (mode & vm) != vm || weight < best)
                continue;
            tie = weight == best;
            best = weight;
            set_model(model, f, v);
        }
    }
    return tie ? NC_EINVAL : best > 0;
}

/* The create-by-mode variant that is format (the default format). */
static int
variant_for_format(int format, NCmodel *model)
{
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_Format *f = &NC_formats[i];
        for (int v = 0; f->create_by_mode && v < NC_MAX_VARIANTS && f->variants[v].format != 0; v++) {
            if (f->variants[v].format == format) {
                set_model(model, f, v);
                return 1;
            }
        }
    }
    return 0;
}

int
NC_infer_create(int cmode, int default_format, NCmodel *model)
{
    NCmodel m = {0, 0, 0, NULL};
    int udf = NC_udf_slot(cmode), found;

    if ((cmode & NC_64BIT_OFFSET) && (cmode & NC_64BIT_DATA))
        return NC_EINVAL;
    if (udf >= 0) {
        m.impl = NC_udf_formatx(udf);
        *model = m;
        return NC_NOERR;
    }
    if ((found = variant_for_mode(cmode, &m)) == NC_EINVAL)
        return NC_EINVAL;
    /* No format flag: the default format, else the first row's first
     * variant (CDF-1). */
    if (!found && !variant_for_format(default_format, &m))
        set_model(&m, &NC_formats[0], 0);
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
        /* A directory is a store only if a layer's sniff says so (Zarr
         * metadata opens with no "#mode="). */
        close(fd);
        return match_sniff(path, 1, NULL, 0, model) ? NC_NOERR : NC_ENOTNC;
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
        if (got == (ssize_t)MAGIC_LEN && match_magic(buf, MAGIC_LEN, 1, model))
            stat = NC_NOERR;
    }
    close(fd);
    /* The sniffs see the bytes of the last read: those at offset 0 for a
     * file shorter than 520 bytes, else those at the last search offset, so
     * a larger zip archive is opened by "#mode=zip" only, as by the 4.9.0
     * reference. */
    if (stat == NC_ENOTNC && match_sniff(path, 0, buf, got > 0 ? (size_t)got : 0, model))
        stat = NC_NOERR;
    return stat;
}
