/* tst_dap4_ce.c: the DAP4 constraint parser (libdap4/d4ce.c): normal forms
 * of good constraints (and that they parse back to themselves), what the
 * parse holds, and NC_EDAPCONSTRAINT with a message for bad ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "d4ce.h"

static int failures;

#define T(cond)                                                                         \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);            \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

/* text parses, its normal form is want, and the normal form parses to itself */
static void
good(const char *text, const char *want)
{
    D4ce *ce = NULL, *again = NULL;
    char *out = NULL, *out2 = NULL, msg[128];
    int stat = d4ce_parse(text, strlen(text), &ce, msg, sizeof msg);
    if (stat != NC_NOERR) {
        fprintf(stderr, "FAIL: %s: %d %s\n", text, stat, msg);
        failures++;
        return;
    }
    T(d4ce_format(ce, &out) == NC_NOERR);
    if (strcmp(out, want) != 0) {
        fprintf(stderr, "FAIL: %s: normal form %s, want %s\n", text, out, want);
        failures++;
    }
    T(d4ce_parse(out, strlen(out), &again, NULL, 0) == NC_NOERR);
    if (again) {
        T(d4ce_format(again, &out2) == NC_NOERR);
        T(out2 && strcmp(out, out2) == 0);
    }
    free(out);
    free(out2);
    d4ce_free(ce);
    d4ce_free(again);
}

static void
bad(const char *text, const char *where)
{
    D4ce *ce = (D4ce *)1;
    char msg[128];
    int stat = d4ce_parse(text, strlen(text), &ce, msg, sizeof msg);
    if (stat != NC_EDAPCONSTRAINT || ce != NULL || strstr(msg, where) == NULL) {
        fprintf(stderr, "FAIL: %s: stat %d, message '%s' (want '%s')\n", text, stat, msg, where);
        failures++;
    }
}

int
main(void)
{
    good("", "");
    good(" ; ;", "");
    good("/v", "/v");
    good("v", "/v");
    good("/g/h/v[1]", "/g/h/v[1:1:1]");
    good("/v[0:10][2:3:8]", "/v[0:1:10][2:3:8]");
    good(" /a [ 1 : 2 ] ; /b[]", "/a[1:1:2];/b[]");
    good("/v[3:]", "/v[3:1:]");
    good("/v[3:5:]", "/v[3:5:]");
    good("/v16[0:1,3]", "/v16[0:1:1,3:1:3]");
    good("/S{x;y[0:2]}", "/S{x;y[0:1:2]}");
    good("/S{T{a};b}", "/S{T{a};b}");
    good("/g/S.f[2]", "/g/S.f[2:1:2]");
    good("/seq|x<10,\"a\"==name", "/seq|x<10,\"a\"==name");
    good("/seq|0 < x <= 5.5e1 , y != -3", "/seq|0<x<=5.5e1,y!=-3");
    good("/d=[0:2:6];/v", "/d=[0:2:6];/v");
    good("/a\\;b[1]", "/a\\;b[1:1:1]");
    good("/a\\.b", "/a\\.b");
    good("/x%2Fy", "/x%2Fy");
    good("/a\\\x05b", "/a\\\x05b"); /* an escaped control character stays escaped */

    D4ce *ce = NULL;
    T(d4ce_parse("/v[1:2:9][4];/g/w;/d=[0:3]", 26, &ce, NULL, 0) == NC_NOERR);
    if (ce) {
        T(ce->n == 3);
        const D4ce_clause *c = d4ce_find(ce, "/v");
        T(c && c->ndims == 2 && c->dims[0].nranges == 1 && c->dims[0].ranges[0].first == 1
          && c->dims[0].ranges[0].stride == 2 && c->dims[0].ranges[0].last == 9);
        T(c && c->dims[1].ranges[0].first == 4 && c->dims[1].ranges[0].last == 4);
        T(d4ce_find(ce, "/g/w") && d4ce_find(ce, "/g/w")->ndims == 0);
        T(d4ce_find(ce, "/d") == NULL); /* a dimension, not a variable */
        T(!d4ce_is_simple(ce));
        d4ce_free(ce);
    }
    T(d4ce_parse("/v[1:2:9];/w[3:]", 16, &ce, NULL, 0) == NC_NOERR && d4ce_is_simple(ce));
    d4ce_free(ce);
    T(d4ce_parse("/v[1,3]", 7, &ce, NULL, 0) == NC_NOERR && !d4ce_is_simple(ce));
    d4ce_free(ce);
    T(d4ce_parse("/v|v>1", 6, &ce, NULL, 0) == NC_NOERR && !d4ce_is_simple(ce));
    d4ce_free(ce);

    bad("/v[5:2]", "offset 6: last index 2 before first 5");
    bad("/v[0:0:3]", "a stride of 0");
    bad("/v[", "an index expected");
    bad("/v[1", "',' or ']' expected");
    bad("/v[-1]", "an index expected");
    bad("/v[99999999999999999999]", "an index too large");
    bad("/v[1]x", "';' expected");
    bad("/v{", "'}' expected");
    bad("/v{}", "an empty projection");
    bad("/v|x<", "a name expected");
    bad("/v|x", "a comparison");
    bad("/v|x<\"abc", "an unterminated string");
    bad("/v|x<1e", "a bad number");
    bad("/", "a name expected");
    bad("//v", "a name expected");
    bad("/v/", "a name expected");
    bad("/d=[]", "a dimension takes one slice");
    bad("/d=[1,2]", "a dimension takes one slice");
    bad("/v\\", "'\\' at the end");
    bad("/v[1]]", "';' expected");
    {
        char deep[200] = "/a";
        for (int i = 0; i < 40; i++)
            strcat(deep, "{a");
        bad(deep, "nested deeper than 32");
    }
    {
        char nul[] = "/v\0w";
        D4ce *c2 = NULL;
        T(d4ce_parse(nul, 4, &c2, NULL, 0) == NC_EDAPCONSTRAINT && c2 == NULL);
    }
    if (failures) {
        printf("tst_dap4_ce: %d failures\n", failures);
        return 1;
    }
    printf("tst_dap4_ce: all passed\n");
    return 0;
}
