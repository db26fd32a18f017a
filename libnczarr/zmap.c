/* zmap.c: the front of the object store (zmap.h): which backend a URL
 * names, key validation, key lists, the serial read_many, and the sniff that
 * lets a path open as Zarr without a #mode= fragment.
 *
 * Backend choice (ncz_map_open):
 *   s3://, http://, https://         -> S3 (NC_ENOTBUILT without S3)
 *   "zip" in the mode list           -> zip archive
 *   "file" in the mode list          -> directory tree
 *   "reference" in the mode list     -> kerchunk reference file (zmap_ref.c)
 *   neither: an existing regular file that is a zip -> zip; a directory or a
 *   path that does not exist         -> directory tree.
 * Storage words in the mode list other than file/zip/s3 are the metadata
 * layer's business and ignored here. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "zmap_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netcdf.h>

/* ---- keys ------------------------------------------------------------- */

void
ncz_keys_free(NCZ_keys *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    k->keys = NULL;
    k->n = k->cap = 0;
}

int
ncz_keys_add(NCZ_keys *k, const char *key)
{
    if (k->n == k->cap) {
        size_t ncap = k->cap ? 2 * k->cap : 16;
        char **nk = realloc(k->keys, ncap * sizeof *nk);
        if (!nk)
            return NC_ENOMEM;
        k->keys = nk;
        k->cap = ncap;
    }
    if (!(k->keys[k->n] = strdup(key)))
        return NC_ENOMEM;
    k->n++;
    return NC_NOERR;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void
ncz_keys_sort_unique(NCZ_keys *k)
{
    if (k->n < 2)
        return;
    qsort(k->keys, k->n, sizeof *k->keys, cmp_str);
    size_t w = 1;
    for (size_t r = 1; r < k->n; r++) {
        if (strcmp(k->keys[r], k->keys[w - 1]) == 0)
            free(k->keys[r]);
        else
            k->keys[w++] = k->keys[r];
    }
    k->n = w;
}

int
ncz_key_check(const char *key)
{
    if (!key || key[0] != '/')
        return NC_EINVAL;
    size_t len = strnlen(key, NCZ_MAX_KEY + 1);
    if (len > NCZ_MAX_KEY || len < 2 || key[len - 1] == '/')
        return NC_EINVAL;
    const char *c = key + 1; /* start of the current component */
    for (const char *p = c;; p++) {
        if (*p == '/' || *p == '\0') {
            size_t clen = (size_t)(p - c);
            if (clen == 0 || (clen == 1 && c[0] == '.') ||
                (clen == 2 && c[0] == '.' && c[1] == '.'))
                return NC_EINVAL;
            if (*p == '\0')
                break;
            c = p + 1;
        } else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            return NC_EINVAL;
        }
    }
    return NC_NOERR;
}

int
ncz_prefix_check(const char *prefix)
{
    if (prefix && strcmp(prefix, "/") == 0)
        return NC_NOERR;
    return ncz_key_check(prefix);
}

/* ---- what the backends share -------------------------------------------- */

char *
ncz_path_join(const char *base, size_t blen, const char *rest, int slash)
{
    size_t rl = strlen(rest);
    char *p = malloc(blen + rl + 2);
    if (p) {
        memcpy(p, base, blen);
        memcpy(p + blen, rest, rl);
        if (slash)
            p[blen + rl++] = '/';
        p[blen + rl] = '\0';
    }
    return p;
}

int
ncz_list_frame(NCZ_map *map, const char *prefix, int full, NCZ_keys *out, ncz_lister fn)
{
    int stat;
    if ((stat = ncz_prefix_check(prefix)))
        return stat;
    size_t before = out->n;
    stat = fn(map, prefix, full, out);
    if (!stat && out->n > before)
        ncz_keys_sort_unique(out);
    return stat;
}

int
ncz_keys_add_child(NCZ_keys *out, const char *c, size_t l)
{
    if (l == 0 || l > NCZ_MAX_KEY || memchr(c, '/', l) || (l == 1 && c[0] == '.') ||
        (l == 2 && c[0] == '.' && c[1] == '.'))
        return NC_NOERR;
    char buf[NCZ_MAX_KEY + 1];
    memcpy(buf, c, l);
    buf[l] = '\0';
    /* a child repeats once per object below it: skip the common case cheaply */
    if (out->n && strcmp(out->keys[out->n - 1], buf) == 0)
        return NC_NOERR;
    return ncz_keys_add(out, buf);
}

int
ncz_keys_add_full(NCZ_keys *out, const char *head, const char *rest, size_t l)
{
    size_t hl = strlen(head);
    if (hl + l + 1 > NCZ_MAX_KEY)
        return NC_NOERR;
    char buf[NCZ_MAX_KEY + 1];
    memcpy(buf, head, hl);
    buf[hl] = '/';
    memcpy(buf + hl + 1, rest, l);
    buf[hl + 1 + l] = '\0';
    if (ncz_key_check(buf))
        return NC_NOERR; /* hostile name ("a//b", "../x", "d/"): not a key */
    return ncz_keys_add(out, buf);
}

uint64_t
ncz_nrequests_none(NCZ_map *map)
{
    (void)map;
    return 0;
}

/* ---- serial read_many --------------------------------------------------- */

int
ncz_read_many_serial(NCZ_map *map, size_t n, NCZ_read_req *reqs)
{
    int first = NC_NOERR;
    for (size_t i = 0; i < n; i++) {
        NCZ_read_req *r = &reqs[i];
        r->data = NULL;
        r->len = 0;
        if (r->start == 0 && r->count == (uint64_t)-1) {
            r->status = map->ops->read_all(map, r->key, &r->data, &r->len);
        } else {
            uint64_t count = r->count;
            if (count == (uint64_t)-1) {
                uint64_t total = 0;
                if ((r->status = map->ops->len(map, r->key, &total)))
                    goto next;
                if (r->start > total) {
                    r->status = NC_EINVAL;
                    goto next;
                }
                count = total - r->start;
            }
            if (count > SIZE_MAX - 1) {
                r->status = NC_ENOMEM;
                goto next;
            }
            if (!(r->data = malloc(count ? (size_t)count : 1))) {
                r->status = NC_ENOMEM;
                goto next;
            }
            r->status = map->ops->read(map, r->key, r->start, count, r->data);
            if (r->status) {
                free(r->data);
                r->data = NULL;
            } else {
                r->len = (size_t)count;
            }
        }
    next:
        /* NC_EEMPTY and a bad range are answers about one object, not
         * failures of the store. */
        if (r->status && r->status != NC_EEMPTY && r->status != NC_EINVAL &&
            first == NC_NOERR)
            first = r->status;
    }
    return first;
}

int
ncz_write_many_serial(NCZ_map *map, size_t n, NCZ_write_req *reqs)
{
    int first = NC_NOERR;
    /* every request is tried, so the caller learns each one's fate */
    for (size_t i = 0; i < n; i++) {
        reqs[i].status = map->ops->write(map, reqs[i].key, reqs[i].count, reqs[i].content);
        if (reqs[i].status && first == NC_NOERR)
            first = reqs[i].status;
    }
    return first;
}

/* ---- sniffing ------------------------------------------------------------ */

int
ncz_is_zip_file(const char *path)
{
    unsigned char sig[4];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, sig, sizeof sig);
    close(fd);
    if (got != 4 || sig[0] != 'P' || sig[1] != 'K')
        return 0;
    /* local file header (PK\3\4) or an empty archive's end record (PK\5\6) */
    return (sig[2] == 3 && sig[3] == 4) || (sig[2] == 5 && sig[3] == 6);
}

/* The part of a file:// URL that is a local path (NULL if not file://).
 * "file:///abs", "file://localhost/abs" -> "/abs"; "file://rel/x" -> the
 * relative path "rel/x", as upstream's URL parser reads it (its NCZarr
 * scripts name stores that way); an empty path is rejected. */
static const char *
file_url_path(const char *url, int *bad)
{
    *bad = 0;
    if (strncasecmp(url, "file://", 7) != 0)
        return NULL;
    const char *p = url + 7;
    if (*p == '/')
        return p;
    if (strncasecmp(p, "localhost/", 10) == 0)
        return p + 9;
    if (*p == '\0') {
        *bad = 1;
        return NULL;
    }
    return p;
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 32);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decode %XX escapes of a file URL's path into a new string (%00 is left
 * as it is: a path cannot hold a NUL). */
static char *
percent_decode(const char *s)
{
    char *out = malloc(strlen(s) + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *p = s; *p; p++) {
        int hi, lo;
        if (p[0] == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0 &&
            (hi | lo) != 0) {
            *w++ = (char)(hi * 16 + lo);
            p += 2;
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
    return out;
}

static int
is_remote_url(const char *url)
{
    return strncasecmp(url, "s3://", 5) == 0 || strncasecmp(url, "http://", 7) == 0 ||
           strncasecmp(url, "https://", 8) == 0;
}

/* Is word one of the comma-separated items of list? */
static int
mode_has(const char *list, const char *word)
{
    if (!list)
        return 0;
    size_t wl = strlen(word);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == wl && strncasecmp(p, word, wl) == 0)
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* ---- store kinds ---------------------------------------------------------- */

/* Backend opens with one signature: path is the local path (NULL for a
 * remote URL), url what ncz_map_open received. */
static int
open_file(const char *path, const char *url, const char *modelist, int mode, NCZ_map **mapp)
{
    (void)modelist;
    return ncz_map_file_open(path, url, mode, mapp);
}

#ifdef NCZ_HAVE_ZIP
static int
open_zip(const char *path, const char *url, const char *modelist, int mode, NCZ_map **mapp)
{
    /* pure Zarr (and v3) stores keep their keys at the archive's root,
     * as zarr-python's ZipStore does; NCZarr uses upstream's layout */
    int rootlayout = mode_has(modelist, "zarr") || mode_has(modelist, "v3");
    return ncz_map_zip_open(path, url, mode, rootlayout, mapp);
}
#define OPEN_ZIP open_zip
#else
#define OPEN_ZIP NULL
#endif

#ifdef NCZ_HAVE_S3
static int
open_s3(const char *path, const char *url, const char *modelist, int mode, NCZ_map **mapp)
{
    (void)path;
    (void)modelist;
    return ncz_map_s3_open(url, mode, mapp);
}
#define OPEN_S3 open_s3
#else
#define OPEN_S3 NULL
#endif

/* The storages a mode list may name.  The first remote one serves remote
 * URLs named by no word; the first local one local paths that are not a zip
 * archive. */
static const struct store_kind {
    const char *word; /* mode word naming it */
    int remote;       /* 1: s3://, http://, https:// URLs; 0: local paths */
    int (*open)(const char *path, const char *url, const char *modelist, int mode,
                NCZ_map **mapp); /* NULL: not built (NC_ENOTBUILT) */
} store_kinds[] = {
    {"file", 0, open_file},
    {"zip", 0, OPEN_ZIP},
    {"s3", 1, OPEN_S3},
};
#define NKINDS (sizeof store_kinds / sizeof store_kinds[0])

static const struct store_kind *
kind_named(const char *word)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(store_kinds[i].word, word) == 0)
            return &store_kinds[i];
    return NULL;
}

int
ncz_map_open(const char *url, const char *modelist, int mode, NCZ_map **mapp)
{
    int st = NC_NOERR;
    char *path = NULL;
    const struct store_kind *kind = NULL;

    if (!url || !*url || !mapp)
        return NC_EINVAL;
    if (mode & NCZ_MAP_CREATE)
        mode |= NCZ_MAP_WRITE;
    /* a reference file, local or remote (zmap_ref.c) */
    if (mode_has(modelist, "reference"))
        return ncz_map_ref_open(url, mode, mapp);

    for (size_t i = 0; i < NKINDS; i++) {
        if (!mode_has(modelist, store_kinds[i].word))
            continue;
        if (kind)
            return NC_EINVAL; /* two storages named at once */
        kind = &store_kinds[i];
    }

    if (is_remote_url(url)) {
        if (kind && !kind->remote)
            return NC_EURL;
        if (!kind)
            kind = kind_named("s3");
        return kind->open ? kind->open(NULL, url, modelist, mode, mapp) : NC_ENOTBUILT;
    }
    if (kind && kind->remote)
        return NC_EURL; /* S3 needs an s3:// or http(s):// URL */

    int bad = 0;
    const char *fp = file_url_path(url, &bad);
    if (bad)
        return NC_EURL;
    if (fp) {
        if (!(path = percent_decode(fp)))
            return NC_ENOMEM;
    } else if (!(path = strdup(url))) {
        return NC_ENOMEM;
    }
    /* a trailing '/' names the same directory */
    for (size_t l = strlen(path); l > 1 && path[l - 1] == '/'; l--)
        path[l - 1] = '\0';

    if (!kind) {
        /* an existing regular file that is a zip is an archive; anything
         * else (a directory, a path not yet there) a directory tree */
        struct stat sb;
        int zip = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && ncz_is_zip_file(path);
        kind = kind_named(zip ? "zip" : "file");
    }
    st = kind->open ? kind->open(path, url, modelist, mode, mapp) : NC_ENOTBUILT;
    free(path);
    return st;
}

/* ---- sniff --------------------------------------------------------------- */

static const char *const sniff_keys[] = {"/.zgroup", "/.zarray", "/zarr.json", "/.zmetadata",
                                          "/.nczarr"};

int
ncz_map_sniff(const char *url)
{
    NCZ_map *map = NULL;
    int yes = 0;

    if (!url || is_remote_url(url))
        return 0;
    if (ncz_map_open(url, NULL, NCZ_MAP_READ, &map))
        return 0;
    for (size_t i = 0; i < sizeof sniff_keys / sizeof *sniff_keys && !yes; i++)
        yes = map->ops->exists(map, sniff_keys[i]) == NC_NOERR;
    map->ops->close(map, 0);
    return yes;
}
