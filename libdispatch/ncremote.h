/* ncremote.h: the remote reader, a read-only file reached by HTTP byte
 * ranges (dremote.c, on the HTTP layer of nchttp.h).
 *
 * One handle per open remote file.  The first request fetches the head of
 * the file and learns its size from the answer's Content-Range (no HEAD
 * request).  Reads are served from an aligned block cache (LRU, bounded);
 * missing blocks next to each other are fetched by one request, and
 * independent runs concurrently (curl multi); a sequential reader gets the
 * next blocks ahead of time.  Failed transfers, dropped connections and 5xx
 * answers are retried with a growing pause.  The ETag and Last-Modified of
 * the first answer are checked on every later one: a file that changed
 * between requests is NC_EIO, never mixed data.
 *
 * Settings (environment first, then the .ncrc key for the URL):
 *   NETCDF_BYTERANGE_BLOCKSIZE   HTTP.BYTERANGE.BLOCKSIZE    block bytes (1 MiB)
 *   NETCDF_BYTERANGE_CACHESIZE   HTTP.BYTERANGE.CACHESIZE    cache bytes (64 MiB)
 *   NETCDF_BYTERANGE_CONNECTIONS HTTP.BYTERANGE.CONNECTIONS  concurrent requests (4)
 * docs/remote.md describes them.
 *
 * A handle is used by one thread at a time.  Every function returns an NC_*
 * code.  Without libcurl, NC_remote_open is NC_ENOTBUILT.
 */
#ifndef NCREMOTE_H
#define NCREMOTE_H

#include <stddef.h>

typedef struct NC_remote NC_remote;

/* One piece of a read_many: len bytes at off. */
typedef struct NC_remote_range {
    unsigned long long off;
    size_t len;
} NC_remote_range;

/* Counters of one handle. */
typedef struct NC_remote_stats {
    unsigned long long requests; /* HTTP requests sent (retries included) */
    unsigned long long bytes;    /* body bytes received */
    unsigned long long hits;     /* blocks served from the cache */
    unsigned long long misses;   /* blocks fetched */
    unsigned long long retries;  /* requests sent again after a failure */
} NC_remote_stats;

/* Does path name a URL ("scheme://...")? */
int NC_remote_is_url(const char *path);

/* Open url (http, https; the fragment is dropped from requests): one
 * request for the head of the file.  *rp is freed with NC_remote_close. */
int NC_remote_open(const char *url, NC_remote **rp);
/* Close, logging the counters when nc_set_log_level asked for it. */
void NC_remote_close(NC_remote *r);

/* Size of the file in bytes. */
unsigned long long NC_remote_size(const NC_remote *r);
/* The NC_FORMATX_* of the file's first bytes (NC_infer_bytes), NC_ENOTNC
 * when they match no format. */
int NC_remote_model(NC_remote *r, int *formatxp);

/* Read n bytes at off into buf.  NC_EINVAL when the range passes the end
 * of the file (nothing is read then). */
int NC_remote_read(NC_remote *r, unsigned long long off, size_t n, void *buf);
/* Read k ranges into bufs[i], fetching what is missing concurrently. */
int NC_remote_read_many(NC_remote *r, size_t k, const NC_remote_range *ranges, void *const *bufs);

void NC_remote_get_stats(const NC_remote *r, NC_remote_stats *st);

#endif /* NCREMOTE_H */
