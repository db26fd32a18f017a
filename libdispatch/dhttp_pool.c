/* dhttp_pool.c: connection sharing between raw requests (contract:
 * nchttp.h, "shared connections").
 *
 * A pool is curl's share object holding a connection cache, DNS cache and
 * TLS sessions.  Raw requests that name it (nch_rawreq.pool) reuse its
 * open connections whether they run one at a time (nch_raw_perform) or in
 * batches on curl multi (nch_raw_perform_many), so a reader that mixes both
 * keeps its connections alive across batches.  A pool is used by one
 * thread at a time, so it takes no locks.
 */
#include "config.h"
#include <stdlib.h>
#include <curl/curl.h>
#include "netcdf.h"
#include "nchttp.h"

struct nch_pool {
    CURLSH *sh;
};

int
nch_pool_open(nch_pool **sp)
{
    nch_pool *s;
    int stat;
    if (sp == NULL)
        return NC_EINVAL;
    *sp = NULL;
    if ((stat = nch_global_start()))
        return stat;
    if ((s = calloc(1, sizeof(*s))) == NULL)
        return NC_ENOMEM;
    if ((s->sh = curl_share_init()) == NULL) {
        free(s);
        return NC_ENOMEM;
    }
    curl_share_setopt(s->sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(s->sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(s->sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    *sp = s;
    return NC_NOERR;
}

void
nch_pool_close(nch_pool *s)
{
    if (s == NULL)
        return;
    curl_share_cleanup(s->sh);
    free(s);
}

void *
nch_pool_handle(const nch_pool *s)
{
    return s ? s->sh : NULL;
}
