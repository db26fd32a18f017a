/* tst_dap4_url.c: the DAP URL parts both clients can share
 * (libdispatch/ncdapurl.h): schemes, client parameters from "[...]"
 * prefixes, the fragment and the query, %XX decoded once and encoded once,
 * upstream's word check; bad URLs are NC_EURL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "ncdapurl.h"
#include "nctst.h"

#define T(cond) CHECK((cond), "%s", #cond)

static void
check_url(const char *url, int isfile, const char *base, const char *query)
{
    NCDAP_url u = {0};
    int stat = ncdap_url_parse(url, &u);
    CHECK(stat == NC_NOERR, "%s: %d", url, stat);
    if (stat)
        return;
    CHECK(u.isfile == isfile, "%s: isfile %d", url, u.isfile);
    CHECK(strcmp(u.base, base) == 0, "%s: base %s", url, u.base);
    CHECK(query ? (u.query && strcmp(u.query, query) == 0) : u.query == NULL, "%s: query %s", url,
          u.query ? u.query : "(none)");
    ncdap_url_clear(&u);
}

int
main(void)
{
    NCDAP_url u = {0};
    char *s;

    check_url("file:///a/b/x.nc?dap4.checksum=false#dap4", 1, "/a/b/x.nc", "dap4.checksum=false");
    check_url("file:///a/my%20dir/x.nc#dap4", 1, "/a/my dir/x.nc", NULL);
    check_url("dap4://h:8080/p/x.nc", 0, "http://h:8080/p/x.nc", NULL);
    check_url("dap2://h/p", 0, "http://h/p", NULL);
    check_url("https://h/p?v[0:1]#mode=dap2", 0, "https://h/p", "v[0:1]");
    T(ncdap_url_parse("ftp://h/p", &u) == NC_EURL);
    T(ncdap_url_parse("file:///a/b/", &u) == NC_EURL);
    T(ncdap_url_parse("[unclosed http://h/p", &u) == NC_EURL);
    T(u.base == NULL && u.nparams == 0);

    /* parameters: prefixes, fragment, then the query's pairs; decoded once */
    T(ncdap_url_parse("[log][cache=1]http://h/p?dap4.ce=%2Fv%5B0%5D%3B%2Fw&x=%2541"
                      "#dap4&encode=none&show=fetch+cache",
                      &u) == NC_NOERR);
    T(u.query != NULL && ncdap_params_add(&u, u.query, strlen(u.query)) == NC_NOERR);
    T(ncdap_param(&u, "LOG") != NULL && strcmp(ncdap_param(&u, "log"), "") == 0);
    T(ncdap_param(&u, "cache") && strcmp(ncdap_param(&u, "cache"), "1") == 0);
    T(ncdap_param(&u, "dap4.ce") && strcmp(ncdap_param(&u, "dap4.ce"), "/v[0];/w") == 0);
    /* once, never twice */
    T(ncdap_param(&u, "x") && strcmp(ncdap_param(&u, "x"), "%41") == 0);
    T(ncdap_param(&u, "dap4") != NULL && ncdap_param(&u, "mode") == NULL);
    T(ncdap_param_has(&u, "show", "cache") && ncdap_param_has(&u, "show", "fetch"));
    T(!ncdap_param_has(&u, "show", "cach") && !ncdap_param_has(&u, "nosuch", NULL));
    ncdap_url_clear(&u);
    T(ncdap_url_parse("http://h/p#k=1&k=2", &u) == NC_NOERR);
    /* the last one wins */
    T(ncdap_param(&u, "k") && strcmp(ncdap_param(&u, "k"), "2") == 0);
    ncdap_url_clear(&u);

    /* encoding: once; a malformed escape decodes as itself */
    s = ncdap_pct_encode("/v[0:2:9];/g/w 1%", "/");
    CHECK(s && strcmp(s, "/v%5B0%3A2%3A9%5D%3B/g/w%201%25") == 0, "encoded %s", s ? s : "NULL");
    free(s);
    s = ncdap_pct_decode("a%2x%41%", 8);
    CHECK(s && strcmp(s, "a%2xA%") == 0, "decoded %s", s ? s : "NULL");
    free(s);
    return nct_summary("tst_dap4_url");
}
