/* zmap_impl.h: what the storage backends of zmap.h share (private to zmap*.c
 * and the zmap white-box tests).
 *
 * zmap.c parses the URL and mode list, checks keys, and calls one backend's
 * open; each backend fills an NCZ_map head and its ops table.  Foreign errors
 * (errno, libzip, curl, HTTP status) are translated to NC_* codes inside the
 * backend that sees them, once. */
#ifndef ZMAP_IMPL_H
#define ZMAP_IMPL_H

#include "zmap.h"

/* Longest key accepted (bytes, without the NUL).  Keys come from metadata,
 * which may be hostile; nothing Zarr writes comes near this. */
#define NCZ_MAX_KEY 4096

/* NC_NOERR if key is a valid object key ("/a/b", no "", ".", ".."
 * component, no trailing '/', no control character); NC_EINVAL if not. */
int ncz_key_check(const char *key);
/* Same for a listing prefix, which may also be "/" (the root). */
int ncz_prefix_check(const char *prefix);

/* Sort keys bytewise and drop duplicates (listings promise both). */
void ncz_keys_sort_unique(NCZ_keys *k);

/* read_many done one request after another through map->ops->read_all or
 * ->read; backends without concurrency use it as their read_many. */
int ncz_read_many_serial(NCZ_map *map, size_t n, NCZ_read_req *reqs);
/* write_many as a loop over map->ops->write (directory and zip stores). */
int ncz_write_many_serial(NCZ_map *map, size_t n, NCZ_write_req *reqs);

/* 1 if the file at path starts with a zip local-file or end-of-central-
 * directory signature. */
int ncz_is_zip_file(const char *path);

/* Backend opens.  path/url as ncz_map_open received it, after the file://
 * prefix is removed for local stores; mode NCZ_MAP_* bits. */
int ncz_map_file_open(const char *path, const char *url, int mode, NCZ_map **mapp);
/* rootlayout: 1 = keys at the archive's root (zarr-python's ZipStore),
 * 0 = under one directory named after the archive (upstream NCZarr's
 * layout); on open the layout found in the archive wins. */
int ncz_map_zip_open(const char *path, const char *url, int mode, int rootlayout,
                     NCZ_map **mapp);
int ncz_map_s3_open(const char *url, int mode, NCZ_map **mapp);

#endif
