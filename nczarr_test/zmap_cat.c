/* zmap_cat.c: a command-line window on zmap.h stores, for the interop tests
 * (and for looking inside a store by hand).
 *   zmap_cat list URL MODES [PREFIX]     full keys under PREFIX, one a line
 *   zmap_cat get URL MODES KEY           the object's bytes on stdout
 *   zmap_cat copy SRC SMODES DST DMODES  every object of SRC into a new DST
 *   zmap_cat sniff PATH                  "yes" or "no" (ncz_map_sniff)
 * Exit 0 on success, 1 with the NC_* message on stderr otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netcdf.h>

#include "zmap.h"

static int
fail(const char *what, int stat)
{
    fprintf(stderr, "zmap_cat: %s: %s\n", what, nc_strerror(stat));
    return 1;
}

static int
cmd_list(const char *url, const char *modes, const char *prefix)
{
    NCZ_map *m = NULL;
    NCZ_keys k = {0};
    int stat = ncz_map_open(url, modes, NCZ_MAP_READ, &m);
    if (stat)
        return fail(url, stat);
    if ((stat = m->ops->list_all(m, prefix, &k)) == NC_NOERR)
        for (size_t i = 0; i < k.n; i++)
            printf("%s\n", k.keys[i]);
    ncz_keys_free(&k);
    m->ops->close(m, 0);
    return stat ? fail(prefix, stat) : 0;
}

static int
cmd_get(const char *url, const char *modes, const char *key)
{
    NCZ_map *m = NULL;
    void *data = NULL;
    size_t len = 0;
    int stat = ncz_map_open(url, modes, NCZ_MAP_READ, &m);
    if (stat)
        return fail(url, stat);
    if ((stat = m->ops->read_all(m, key, &data, &len)) == NC_NOERR)
        fwrite(data, 1, len, stdout);
    free(data);
    m->ops->close(m, 0);
    return stat ? fail(key, stat) : 0;
}

static int
cmd_copy(const char *src, const char *smodes, const char *dst, const char *dmodes)
{
    NCZ_map *s = NULL, *d = NULL;
    NCZ_keys k = {0};
    int stat;
    if ((stat = ncz_map_open(src, smodes, NCZ_MAP_READ, &s)))
        return fail(src, stat);
    if ((stat = ncz_map_open(dst, dmodes, NCZ_MAP_CREATE | NCZ_MAP_CLOBBER, &d))) {
        s->ops->close(s, 0);
        return fail(dst, stat);
    }
    stat = s->ops->list_all(s, "/", &k);
    for (size_t i = 0; i < k.n && !stat; i++) {
        void *data = NULL;
        size_t len = 0;
        if (!(stat = s->ops->read_all(s, k.keys[i], &data, &len)))
            stat = d->ops->write(d, k.keys[i], len, data);
        free(data);
    }
    ncz_keys_free(&k);
    s->ops->close(s, 0);
    int cstat = d->ops->close(d, stat != NC_NOERR);
    if (!stat)
        stat = cstat;
    return stat ? fail("copy", stat) : 0;
}

int
main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "list") == 0)
        return cmd_list(argv[2], argv[3], argc > 4 ? argv[4] : "/");
    if (argc == 5 && strcmp(argv[1], "get") == 0)
        return cmd_get(argv[2], argv[3], argv[4]);
    if (argc == 6 && strcmp(argv[1], "copy") == 0)
        return cmd_copy(argv[2], argv[3], argv[4], argv[5]);
    if (argc == 3 && strcmp(argv[1], "sniff") == 0) {
        printf("%s\n", ncz_map_sniff(argv[2]) ? "yes" : "no");
        return 0;
    }
    fprintf(stderr, "usage: zmap_cat list URL MODES [PREFIX] | get URL MODES KEY |"
                    " copy SRC SMODES DST DMODES | sniff PATH\n");
    return 2;
}
