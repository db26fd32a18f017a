/* zmap_s3.h: the pieces of the S3 store (private to zmap_s3*.c, the fuzz
 * target and the zmap tests).
 *   zmap_s3url.c   URL forms, region and credentials (env, ~/.aws profiles)
 *   zmap_s3list.c  the ListObjectsV2 XML answer (libxml2), and key encoding
 *   zmap_s3.c      the requests (libdispatch's HTTP layer, raw requests; SigV4
 *                  by curl) and the zmap ops */
#ifndef ZMAP_S3_H
#define ZMAP_S3_H

#include "zmap_impl.h"

/* Where a store lives and who we are. */
typedef struct NCZ_s3_cfg {
    char *endpoint;      /* "https://host[:port]", no trailing '/' */
    char *bucket;        /* bucket name */
    char *prefix;        /* key prefix of the store: "" or "a/b" (no '/' at either end) */
    int vhost;           /* 1: bucket is in the host name (virtual-host style) */
    char *region;        /* signing region */
    char *access_key;    /* NULL: anonymous (unsigned requests) */
    char *secret_key;    /* with access_key */
    char *session_token; /* optional (x-amz-security-token) */
} NCZ_s3_cfg;

/* Parse url (s3://bucket/prefix, http(s)://host[:port]/bucket/prefix, or
 * http(s)://bucket.s3[.region].amazonaws.com/prefix) and read region and
 * credentials: AWS_PROFILE (default "default"; "no" = anonymous),
 * AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE (default ~/.aws/config and
 * ~/.aws/credentials), AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
 * AWS_SESSION_TOKEN over the profile, region from the host name, else
 * AWS_REGION, AWS_DEFAULT_REGION, the profile, "us-east-1".  Each AWS_X
 * variable that is unset falls back to the .ncrc key AWS.X, looked up for
 * url ([url]-scoped entries first), as upstream 4.10.1 does.  s3:// URLs use
 * AWS_ENDPOINT_URL when set.  NC_EURL for a malformed URL. */
int ncz_s3_cfg_from_url(const char *url, NCZ_s3_cfg *cfg);
void ncz_s3_cfg_clear(NCZ_s3_cfg *cfg);

/* Look up key in section [section] of an INI-style AWS file (config files
 * name sections "profile NAME" except "default").  *valp malloc'ed or NULL. */
int ncz_s3_ini_lookup(const char *file, const char *section, const char *key, char **valp);

/* One page of a ListObjectsV2 answer. */
typedef struct NCZ_s3_listing {
    NCZ_keys keys;     /* <Contents><Key> values, as sent */
    NCZ_keys prefixes; /* <CommonPrefixes><Prefix> values, as sent */
    int truncated;     /* <IsTruncated>true */
    char *next_token;  /* <NextContinuationToken>, or NULL */
} NCZ_s3_listing;

/* Parse one answer (xml need not be NUL-terminated).  NC_ES3 if it is not a
 * well-formed ListBucketResult, or is truncated without a token. */
int ncz_s3_parse_list(const char *xml, size_t len, NCZ_s3_listing *out);
void ncz_s3_listing_clear(NCZ_s3_listing *l);

/* Percent-encode s as SigV4 and S3 want it: A-Z a-z 0-9 - _ . ~ stay, '/'
 * stays when keep_slash, every other byte becomes %XX (upper case). */
int ncz_s3_encode(const char *s, int keep_slash, char **outp);

#endif
