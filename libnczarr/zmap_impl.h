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

/* base[0..blen) + rest (+ "/" when slash) in a new string; NULL: no memory.
 * How a backend maps a key or listing prefix to its path or entry name. */
char *ncz_path_join(const char *base, size_t blen, const char *rest, int slash);

/* The frame of every list/list_all: check prefix (NC_EINVAL), let fn add
 * names (full 0: immediate children, 1: full keys) to out, then sort and
 * de-duplicate what it added. */
typedef int (*ncz_lister)(NCZ_map *map, const char *prefix, int full, NCZ_keys *out);
int ncz_list_frame(NCZ_map *map, const char *prefix, int full, NCZ_keys *out, ncz_lister fn);
/* Add the child name c[0..l) to a listing; names that cannot be a key
 * component ("", ".", "..", with '/') and a repeat of the last name added
 * are skipped.  NC_ENOMEM only. */
int ncz_keys_add_child(NCZ_keys *out, const char *c, size_t l);
/* Add the key head + "/" + rest[0..l) (head "" or a key) to a listing,
 * unless it is not a valid key (skipped).  NC_ENOMEM only. */
int ncz_keys_add_full(NCZ_keys *out, const char *head, const char *rest, size_t l);

/* nrequests of the stores that make no requests. */
uint64_t ncz_nrequests_none(NCZ_map *map);

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
/* A kerchunk reference file (local path, file:// or http(s)/s3 URL) as a
 * read-only store ("reference" in the mode list). */
int ncz_map_ref_open(const char *url, int mode, NCZ_map **mapp);

#endif
