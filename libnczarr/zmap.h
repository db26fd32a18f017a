/* zmap.h: the object store under Zarr.
 *
 * Promises: a store is a flat map from keys to byte objects.  The Zarr layer
 * above sees only this table, whatever the storage: a directory tree
 * (zmap_file.c), a zip archive (zmap_zip.c, libzip) or S3 (zmap_s3.c,
 * libcurl with its SigV4 signing, libxml2 for listings).
 *
 * Keys.  '/'-separated, always starting with '/', relative to the store's
 * root, never ending in '/' (except the root "/" itself in listings):
 * "/.zgroup", "/grp/var/.zarray", "/var/0.1", "/var/c/0/1", "/zarr.json".
 * A key component is never "", "." or ".."; ops reject such keys with
 * NC_EINVAL (a key comes from metadata, which may be hostile).
 *
 * Errors.  NC_NOERR; NC_EEMPTY when a key holds no object (the normal answer
 * of a probe: callers test for it, no message is printed); NC_ENOOBJECT when
 * the store itself does not exist on open; NC_EPERM for writes to a store
 * opened read-only; NC_ES3 / NC_EIO / NC_EAUTH for transport failures;
 * NC_ENOMEM.
 *
 * Threads.  One store is used by one thread at a time except read_many and
 * write_many, which may run their transfers concurrently inside (curl multi
 * for S3).
 * Distinct stores share nothing but process-wide init (curl_global_init).
 */
#ifndef ZMAP_H
#define ZMAP_H

#include <stddef.h>
#include <stdint.h>

#define NCZ_MAP_VERSION 1

typedef enum NCZ_map_impl {
    NCZ_MAP_FILE = 1, /* directory tree */
    NCZ_MAP_ZIP = 2,  /* zip archive */
    NCZ_MAP_S3 = 3,   /* S3 or S3-compatible server */
    NCZ_MAP_REF = 4   /* reference file (kerchunk JSON), read-only: zmap_ref.c */
} NCZ_map_impl;

/* Open modes (bits). */
#define NCZ_MAP_READ 0x0     /* read-only */
#define NCZ_MAP_WRITE 0x1    /* read-write */
#define NCZ_MAP_CREATE 0x2   /* create; with NCZ_MAP_CLOBBER delete an old one first */
#define NCZ_MAP_CLOBBER 0x4

/* A list of keys returned by list/list_all; free with ncz_keys_free. */
typedef struct NCZ_keys {
    char **keys;
    size_t n, cap;
} NCZ_keys;
void ncz_keys_free(NCZ_keys *k);
int ncz_keys_add(NCZ_keys *k, const char *key); /* copies key; NC_ENOMEM */

/* One read in a batch (read_many).  The caller fills key and, for a ranged
 * read, start/count (count == (uint64_t)-1: the whole object); the store sets
 * data (malloc'ed, caller frees), len and status (NC_NOERR, NC_EEMPTY, ...). */
typedef struct NCZ_read_req {
    const char *key;
    uint64_t start, count;
    void *data;
    size_t len;
    int status;
} NCZ_read_req;

/* One write in a batch (write_many).  The caller fills key, count and
 * content (kept alive until write_many returns); the store sets status. */
typedef struct NCZ_write_req {
    const char *key;
    uint64_t count;
    const void *content;
    int status;
} NCZ_write_req;

/* One run of bytes written into an object in place (write_runs). */
typedef struct NCZ_run {
    uint64_t off;
    const void *buf;
    size_t len;
} NCZ_run;

typedef struct NCZ_map NCZ_map;

typedef struct NCZ_map_ops {
    int version; /* NCZ_MAP_VERSION */
    /* Close; with deleteit, remove the whole store (used by NC_CLOBBER and
     * failed creates). Frees map. */
    int (*close)(NCZ_map *map, int deleteit);
    /* NC_NOERR if key holds an object, NC_EEMPTY if not. */
    int (*exists)(NCZ_map *map, const char *key);
    /* Size of the object at key. */
    int (*len)(NCZ_map *map, const char *key, uint64_t *lenp);
    /* Read count bytes from offset start of the object into buf (caller's
     * buffer). NC_EEMPTY if absent; NC_EINVAL if the range passes its end. */
    int (*read)(NCZ_map *map, const char *key, uint64_t start, uint64_t count, void *buf);
    /* Read the whole object: *datap malloc'ed (caller frees), *lenp its size. */
    int (*read_all)(NCZ_map *map, const char *key, void **datap, size_t *lenp);
    /* Create or replace the object at key with count bytes (parents implied). */
    int (*write)(NCZ_map *map, const char *key, uint64_t count, const void *content);
    /* Delete the object at key (NC_EEMPTY if absent). */
    int (*del)(NCZ_map *map, const char *key);
    /* Immediate children of prefix ("/" for the root): the last key component
     * of every object or "directory" directly under it, each once, sorted. */
    int (*list)(NCZ_map *map, const char *prefix, NCZ_keys *out);
    /* Every object key under prefix, full keys, sorted. */
    int (*list_all)(NCZ_map *map, const char *prefix, NCZ_keys *out);
    /* Several reads at once (concurrent where the store can); returns the
     * first transport error, per-request status in reqs[i].status. */
    int (*read_many)(NCZ_map *map, size_t n, NCZ_read_req *reqs);
    /* Requests issued so far (S3: HTTP requests; others: 0) - for tests and the bench. */
    uint64_t (*nrequests)(NCZ_map *map);
    /* Several writes at once (concurrent PUTs on S3, bounded; a loop over
     * write elsewhere).  Every request is attempted; per-request status in
     * reqs[i].status; returns the first error of any request (a failed
     * write is never silent). */
    int (*write_many)(NCZ_map *map, size_t n, NCZ_write_req *reqs);
    /* An object written in pieces, never whole in memory (optional: NULL
     * where the store cannot; directory trees can).  wbegin starts an
     * object at key that no reader sees yet; wpart writes n bytes at offset
     * off of it (pieces may come in any order; one thread at a time);
     * wend with commit replaces key with it, without commit discards it.
     * wend is always called once after a successful wbegin. */
    int (*wbegin)(NCZ_map *map, const char *key, void **hp);
    int (*wpart)(NCZ_map *map, void *h, uint64_t off, const void *buf, size_t n);
    int (*wend)(NCZ_map *map, void *h, int commit);
    /* Make everything written so far durable (nc_sync), optional: NULL where
     * each write already is (directory trees, S3).  A zip archive is
     * written out and reopened. */
    int (*sync)(NCZ_map *map);
    /* Write n runs of bytes (ascending, not overlapping, inside size) into
     * the object at key in place; an object not there is made first, size
     * zero bytes, and appears with the runs in it (optional: NULL where
     * the store cannot update an object in place; directory trees can).
     * NC_EEXIST: nothing written, the object is to be written whole
     * instead (it is not a plain object of size bytes, or cannot be opened
     * or made here; the whole write reports what is wrong).  A failure
     * part way through an existing object leaves the runs before it
     * written. */
    int (*write_runs)(NCZ_map *map, const char *key, uint64_t size, size_t n, const NCZ_run *runs);
} NCZ_map_ops;

/* Every store starts with this head. */
struct NCZ_map {
    const NCZ_map_ops *ops;
    NCZ_map_impl impl;
    int mode;   /* NCZ_MAP_* bits */
    char *url;  /* as given (without the #fragment) */
};

/* Open or create the store that url names:
 *   a plain path or file:// URL -> directory tree ("file" in the mode list,
 *     or no storage named and the path is a directory or does not exist);
 *   ...with "zip" in the mode list, or a path to an existing zip file -> zip;
 *   s3://bucket/prefix, https://host/bucket/prefix (path style),
 *   https://bucket.s3.region.amazonaws.com/prefix (virtual host) or "s3" in
 *   the mode list -> S3.
 * url carries no fragment; modelist is the comma-separated #mode= value
 * (may be NULL). Credentials/region for S3 come from the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
 * AWS_DEFAULT_REGION, AWS_PROFILE) and ~/.aws/config, ~/.aws/credentials
 * (AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE) as upstream reads them. */
int ncz_map_open(const char *url, const char *modelist, int mode, NCZ_map **mapp);

/* Does url (no fragment) name something that looks like a Zarr store: a
 * directory or zip archive holding /.zgroup, /.zarray or /zarr.json?  Local
 * paths only (an S3 URL is never probed here); 1 yes, 0 no. */
int ncz_map_sniff(const char *path);

#endif
