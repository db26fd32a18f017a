/* ncs3.h: S3 URLs, regions and credentials (ds3url.c), shared by the Zarr
 * S3 store (libnczarr/zmap_s3.c) and the byte-range reader (dremote.c).
 * Pure configuration: no request is made here. */
#ifndef NCS3_H
#define NCS3_H

#define NC_S3_MAX_KEY 4096 /* longest object key accepted ("/" + prefix) */

/* Where an object or a store lives and who we are. */
typedef struct NC_s3_cfg {
    char *endpoint;      /* "https://host[:port]", no trailing '/' */
    char *bucket;        /* bucket name */
    char *prefix;        /* key (prefix of a store): "" or "a/b" (no '/' at either end) */
    int vhost;           /* 1: bucket is in the host name (virtual-host style) */
    char *region;        /* signing region */
    char *access_key;    /* NULL: anonymous (unsigned requests) */
    char *secret_key;    /* with access_key */
    char *session_token; /* optional (x-amz-security-token) */
} NC_s3_cfg;

/* Parse url (s3://bucket/prefix, http(s)://host[:port]/bucket/prefix, or
 * http(s)://bucket.s3[.region].amazonaws.com/prefix; no query or fragment)
 * and read region and credentials: AWS_PROFILE (default "default"; "no" =
 * anonymous), AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE (default
 * ~/.aws/config and ~/.aws/credentials), AWS_ACCESS_KEY_ID /
 * AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN over the profile, region from
 * the host name, else AWS_REGION, AWS_DEFAULT_REGION, the profile,
 * "us-east-1".  Each AWS_X variable that is unset falls back to the .ncrc
 * key AWS.X, looked up for url ([url]-scoped entries first), as upstream
 * 4.10.1 does.  s3:// URLs use AWS_ENDPOINT_URL when set.  NC_EURL for a
 * malformed URL.  cfg is cleared first; free it with NC_s3_cfg_clear. */
int NC_s3_cfg_from_url(const char *url, NC_s3_cfg *cfg);
void NC_s3_cfg_clear(NC_s3_cfg *cfg);

/* Look up key in section [section] of an INI-style AWS file (config files
 * name sections "profile NAME" except "default").  *valp malloc'ed or NULL. */
int NC_s3_ini_lookup(const char *file, const char *section, const char *key, char **valp);

#endif /* NCS3_H */
