/* ncdapurl.h: the parts of an OPeNDAP dataset URL, for the DAP clients
 * (ncdapurl.c).
 *
 *   [key=value][key]...scheme://host/path?query#key=value&key&...
 *
 * Client parameters come from "[...]" prefixes and from the fragment (as
 * upstream accepts both); a client may add the "key=value&..." pairs of
 * the query too (DAP4's dap4.ce and dap4.checksum), while DAP2's query is
 * a constraint expression kept whole.  Parameter values are %XX-decoded
 * exactly once here; ncdap_pct_encode encodes once for a request.
 *
 * file:// URLs give the decoded path (upstream's test mode: recorded
 * responses beside it); http(s):// URLs are kept as they are; dap2:// and
 * dap4:// are read as http://.  Errors: NC_EURL for another scheme or a
 * URL without a dataset name, NC_ENOMEM.
 */
#ifndef NCDAPURL_H
#define NCDAPURL_H

#include <stddef.h>

typedef struct NCDAP_param {
    char *key;
    char *value;   /* "" for a bare key */
} NCDAP_param;

typedef struct NCDAP_url {
    int isfile;           /* file:// */
    char *base;           /* decoded path, or http(s) URL without query/fragment */
    char *query;          /* the query as written (not decoded), NULL if none */
    NCDAP_param *params;  /* in order of appearance; a later key wins */
    size_t nparams;
} NCDAP_url;

/* Parse url into u (zeroed by the caller); on failure u is cleared. */
int ncdap_url_parse(const char *url, NCDAP_url *u);
/* DAP2's form, as upstream's DAP2 client reads it: nothing %XX-decoded
 * (parameter keys and values, the file:// path are kept as written), and
 * only a file:// URL needs a dataset name. */
int ncdap_url_parse_raw(const char *url, NCDAP_url *u);
/* Append the "key=value&key..." pairs of n bytes of text (values decoded). */
int ncdap_params_add(NCDAP_url *u, const char *text, size_t n);
/* The value of key (case-insensitive; the last one given), NULL if absent. */
const char *ncdap_param(const NCDAP_url *u, const char *key);
/* The same, the first one given (DAP2's rule). */
const char *ncdap_param_first(const NCDAP_url *u, const char *key);
/* Upstream's parameter check: is key set, and (word != NULL) is word one
 * of the words of its value (separated by "+,:;")? */
int ncdap_param_has(const NCDAP_url *u, const char *key, const char *word);
void ncdap_url_clear(NCDAP_url *u);

/* n bytes of s with %XX decoded once (a malformed escape kept as it is);
 * NULL when out of memory. */
char *ncdap_pct_decode(const char *s, size_t n);
/* s with every byte but letters, digits, "-._~" and those of keep as %XX;
 * NULL when out of memory. */
char *ncdap_pct_encode(const char *s, const char *keep);

#endif /* NCDAPURL_H */
