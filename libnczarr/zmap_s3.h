/* zmap_s3.h: the pieces of the S3 store (private to zmap_s3*.c, the fuzz
 * target and the zmap tests).
 *   libdispatch/ds3url.c (ncs3.h)  URL forms, region and credentials (env,
 *                  ~/.aws profiles), shared with the byte-range reader
 *   zmap_s3list.c  the ListObjectsV2 XML answer (libxml2), and key encoding
 *   zmap_s3.c      the requests (libdispatch's HTTP layer, raw requests; SigV4
 *                  by curl) and the zmap ops */
#ifndef ZMAP_S3_H
#define ZMAP_S3_H

#include "zmap_impl.h"
#include "ncs3.h"

/* URLs, regions and credentials come from libdispatch's ncs3.h, shared
 * with the byte-range reader; the store keeps its own names for them. */
typedef NC_s3_cfg NCZ_s3_cfg;
#define ncz_s3_cfg_from_url NC_s3_cfg_from_url
#define ncz_s3_cfg_clear NC_s3_cfg_clear
#define ncz_s3_ini_lookup NC_s3_ini_lookup

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
