/* test_plugin_path.c: the plugin search path and the ncaux_plugin_path_* helpers.
 *
 * HDF5_PLUGIN_PATH is set before the library's first use of the path, so
 * the initial path must be exactly its pieces.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "netcdf_filter.h"
#include "netcdf_aux.h"
#include "ncplugins.h"

static int npass, nfail;

#define CHECK(cond) do { if (cond) npass++; else { nfail++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* 1 if l holds exactly the n strings of want. */
static int
list_is(const NCPluginList *l, size_t n, const char *const *want)
{
    size_t i;
    if (l->ndirs != n)
        return 0;
    for (i = 0; i < n; i++)
        if (l->dirs == NULL || l->dirs[i] == NULL || strcmp(l->dirs[i], want[i]) != 0)
            return 0;
    return 1;
}

static int listener_calls;
static size_t listener_last_n;
static int
listener(const NCPluginList *dirs)
{
    listener_calls++;
    listener_last_n = dirs->ndirs;
    return NC_NOERR;
}

static void *
hammer(void *arg)
{
    int i;
    (void)arg;
    for (i = 0; i < 200; i++) {
        NCPluginList l = {0, NULL};
        size_t n = 0;
        if (nc_plugin_path_get(&l) != NC_NOERR || (l.ndirs != 1 && l.ndirs != 2))
            return (void *)1;
        ncaux_plugin_path_clear(&l);
        if (nc_plugin_path_ndirs(&n) != NC_NOERR || (n != 1 && n != 2))
            return (void *)1;
    }
    return NULL;
}

static void *
setter(void *arg)
{
    int i;
    const char *one[] = {"/t/one"};
    const char *two[] = {"/t/a", "/t/b"};
    (void)arg;
    for (i = 0; i < 200; i++) {
        NCPluginList l;
        l.ndirs = (i % 2) ? 2 : 1;
        l.dirs = (char **)((i % 2) ? two : one);
        if (nc_plugin_path_set(&l) != NC_NOERR)
            return (void *)1;
    }
    return NULL;
}

int
main(void)
{
    NCPluginList l = {0, NULL};
    size_t n = 99;
    char *s = NULL;
    char buf[256];

    if (setenv("HDF5_PLUGIN_PATH", "/x/p1:/x/p2;/x/p3", 1) != 0)
        return 77;

    /* ---- initial path from the environment */
    CHECK(nc_plugin_path_ndirs(&n) == NC_NOERR && n == 3);
    CHECK(nc_plugin_path_get(&l) == NC_NOERR);
    {
        const char *w[] = {"/x/p1", "/x/p2", "/x/p3"};
        CHECK(list_is(&l, 3, w));
    }
    CHECK(ncaux_plugin_path_clear(&l) == NC_NOERR && l.ndirs == 0 && l.dirs == NULL);
    CHECK(nc_plugin_path_get(NULL) == NC_NOERR);

    /* caller-supplied vector */
    {
        char *space[3] = {NULL, NULL, NULL};
        NCPluginList cl = {3, space};
        CHECK(nc_plugin_path_get(&cl) == NC_NOERR && cl.ndirs == 3 && strcmp(space[1], "/x/p2") == 0);
        free(space[0]); free(space[1]); free(space[2]);
    }

    /* ---- set */
    CHECK(nc_plugin_path_set(NULL) == NC_EINVAL);
    {
        const char *w[] = {"/y/a", "/y/b"};
        NCPluginList in = {2, (char **)w};
        CHECK(nc_plugin_path_set(&in) == NC_NOERR);
        CHECK(nc_plugin_path_ndirs(&n) == NC_NOERR && n == 2);
        CHECK(nc_plugin_path_get(&l) == NC_NOERR && list_is(&l, 2, w));
        ncaux_plugin_path_clear(&l);
    }
    {
        NCPluginList empty = {0, NULL};
        CHECK(nc_plugin_path_set(&empty) == NC_NOERR);
        CHECK(nc_plugin_path_ndirs(&n) == NC_NOERR && n == 0);
        CHECK(ncaux_plugin_path_stringlen() == 0);
    }

    /* ---- the one-string forms use ';' */
    CHECK(ncaux_plugin_path_stringset(0, "x") == NC_EINVAL);
    CHECK(ncaux_plugin_path_stringset((int)strlen("/s/1;/s/2"), "/s/1;/s/2") == NC_NOERR);
    CHECK(ncaux_plugin_path_stringlen() == (int)strlen("/s/1;/s/2"));
    memset(buf, 'Z', sizeof(buf));
    CHECK(ncaux_plugin_path_stringget((int)sizeof(buf), buf) == NC_NOERR && strcmp(buf, "/s/1;/s/2") == 0);
    CHECK(ncaux_plugin_path_stringget(0, buf) == NC_EINVAL);
    /* only the first pathlen bytes count */
    CHECK(ncaux_plugin_path_stringset(4, "/s/1;/s/2") == NC_NOERR);
    CHECK(nc_plugin_path_ndirs(&n) == NC_NOERR && n == 1);

    /* ---- parse */
    CHECK(ncaux_plugin_path_parse("a:b;c", '\0', &l) == NC_NOERR);
    {
        const char *w[] = {"a", "b", "c"};
        CHECK(list_is(&l, 3, w));
    }
    ncaux_plugin_path_clear(&l);
    CHECK(ncaux_plugin_path_parse("a:b;c", ';', &l) == NC_NOERR);
    {
        const char *w[] = {"a:b", "c"};
        CHECK(list_is(&l, 2, w));
    }
    ncaux_plugin_path_clear(&l);
    CHECK(ncaux_plugin_path_parse("a::b", ':', &l) == NC_NOERR);
    {
        const char *w[] = {"a", "", "b"};
        CHECK(list_is(&l, 3, w));
    }
    ncaux_plugin_path_clear(&l);
    CHECK(ncaux_plugin_path_parse("", ':', &l) == NC_NOERR && l.ndirs == 0);
    CHECK(ncaux_plugin_path_parse(NULL, ':', &l) == NC_NOERR && l.ndirs == 0);
    CHECK(ncaux_plugin_path_parse("a", ':', NULL) == NC_EINVAL);
    CHECK(ncaux_plugin_path_parsen(3, "abc:def", ':', &l) == NC_NOERR && l.ndirs == 1
          && strcmp(l.dirs[0], "abc") == 0);
    ncaux_plugin_path_clear(&l);

    /* ---- tostring, append, prepend */
    CHECK(ncaux_plugin_path_append(&l, "/m") == NC_NOERR);
    CHECK(ncaux_plugin_path_prepend(&l, "/f") == NC_NOERR);
    CHECK(ncaux_plugin_path_append(&l, "/e") == NC_NOERR);
    CHECK(ncaux_plugin_path_append(NULL, "/e") == NC_EINVAL);
    CHECK(ncaux_plugin_path_append(&l, NULL) == NC_EINVAL);
    {
        const char *w[] = {"/f", "/m", "/e"};
        CHECK(list_is(&l, 3, w));
    }
    CHECK(ncaux_plugin_path_tostring(&l, '\0', &s) == NC_NOERR && strcmp(s, "/f:/m:/e") == 0);
    free(s);
    CHECK(ncaux_plugin_path_tostring(&l, ';', &s) == NC_NOERR && strcmp(s, "/f;/m;/e") == 0);
    free(s);
    CHECK(ncaux_plugin_path_tostring(NULL, ';', &s) == NC_EINVAL);
    ncaux_plugin_path_clear(&l);
    CHECK(ncaux_plugin_path_tostring(&l, ';', &s) == NC_NOERR && strcmp(s, "") == 0);
    free(s);
    {
        NCPluginList *hl = calloc(1, sizeof(NCPluginList));
        CHECK(hl != NULL && ncaux_plugin_path_append(hl, "/h") == NC_NOERR);
        CHECK(ncaux_plugin_path_reclaim(hl) == NC_NOERR);
    }

    /* ---- listeners hear about every change */
    CHECK(NC_plugin_path_add_listener(NULL) == NC_EINVAL);
    CHECK(NC_plugin_path_add_listener(listener) == NC_NOERR && listener_calls == 1);
    {
        const char *w[] = {"/l/1", "/l/2", "/l/3", "/l/4"};
        NCPluginList in = {4, (char **)w};
        CHECK(nc_plugin_path_set(&in) == NC_NOERR && listener_calls == 2 && listener_last_n == 4);
    }

    /* ---- finalize forgets everything; the next use reads the environment again */
    CHECK(NC_plugin_path_finalize() == NC_NOERR);
    setenv("HDF5_PLUGIN_PATH", "/z", 1);
    CHECK(nc_plugin_path_ndirs(&n) == NC_NOERR && n == 1);
    unsetenv("HDF5_PLUGIN_PATH");
    NC_plugin_path_finalize();
    CHECK(nc_plugin_path_ndirs(&n) == NC_NOERR && n >= 1); /* the built-in default */

    /* ---- concurrent readers and a writer see whole lists only */
    {
        pthread_t t[3];
        void *r0 = (void *)1, *r1 = (void *)1, *r2 = (void *)1;
        const char *one[] = {"/t/one"};
        NCPluginList in = {1, (char **)one};
        nc_plugin_path_set(&in);
        pthread_create(&t[0], NULL, hammer, NULL);
        pthread_create(&t[1], NULL, hammer, NULL);
        pthread_create(&t[2], NULL, setter, NULL);
        pthread_join(t[0], &r0);
        pthread_join(t[1], &r1);
        pthread_join(t[2], &r2);
        CHECK(r0 == NULL && r1 == NULL && r2 == NULL);
    }

    /* ---- plugin lookup: nothing on an empty path */
    {
        NCPluginList empty = {0, NULL};
        nc_plugin_path_set(&empty);
        CHECK(nc_filter_path_query(307) == NC_ENOFILTER);
        CHECK(nc_filter_path_query(0) == NC_EINVAL);
        CHECK(nc_filter_path_query(70000) == NC_EINVAL);
    }

    NC_plugin_path_finalize();
    printf("test_plugin_path: %d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
