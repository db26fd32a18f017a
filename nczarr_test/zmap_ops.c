/* zmap_ops.c: every zmap.h operation on one store, the same checks for each
 * backend.  Usage: zmap_ops URL MODELIST   (MODELIST "file", "zip", "s3").
 * The store at URL is created (clobbered), filled, listed, read back, reopened
 * read-only, and deleted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nctst.h"
#include "zmap.h"

static const char *url, *modes;

static int
keys_are(const NCZ_keys *k, const char *const *want, size_t n)
{
    if (k->n != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(k->keys[i], want[i]) != 0)
            return 0;
    return 1;
}

static void
print_keys(const char *what, const NCZ_keys *k)
{
    fprintf(stderr, "%s (%zu):", what, k->n);
    for (size_t i = 0; i < k->n; i++)
        fprintf(stderr, " %s", k->keys[i]);
    fprintf(stderr, "\n");
}

static int
put(NCZ_map *m, const char *key, const char *s)
{
    return m->ops->write(m, key, strlen(s), s);
}

static void
fill_store(void)
{
    NCZ_map *m = NULL;
    MUST(ncz_map_open(url, modes, NCZ_MAP_CREATE | NCZ_MAP_CLOBBER, &m));
    CHECK(m->ops->version == NCZ_MAP_VERSION, "ops version");
    OK(put(m, "/.zgroup", "{\"zarr_format\": 2}"));
    OK(put(m, "/a/.zarray", "{\"shape\": [4]}"));
    OK(put(m, "/a/0.0", "chunk-00"));
    OK(put(m, "/a/0.1", "chunk-01"));
    OK(put(m, "/b/c/d", "deep"));
    /* "/b" also holds an object directly: s3rver (the local test server)
     * drops common prefixes that hold only deeper keys */
    OK(put(m, "/b/x", "bx"));
    OK(m->ops->write(m, "/e", 0, NULL)); /* an empty object is an object */
    OK(put(m, "/a/0.1", "chunk-01-rewritten")); /* replace */

    EXPECT(m->ops->exists(m, "/.zgroup"), NC_NOERR);
    EXPECT(m->ops->exists(m, "/e"), NC_NOERR);
    EXPECT(m->ops->exists(m, "/nope"), NC_EEMPTY);
    EXPECT(m->ops->exists(m, "/a"), NC_EEMPTY); /* a "directory" is not an object */
    EXPECT(m->ops->exists(m, "/b/c"), NC_EEMPTY);

    uint64_t len = 99;
    OK(m->ops->len(m, "/a/0.1", &len));
    CHECK(len == strlen("chunk-01-rewritten"), "len %llu", (unsigned long long)len);
    OK(m->ops->len(m, "/e", &len));
    CHECK(len == 0, "empty len %llu", (unsigned long long)len);
    EXPECT(m->ops->len(m, "/nope", &len), NC_EEMPTY);

    char buf[64] = {0};
    OK(m->ops->read(m, "/a/0.1", 6, 2, buf));
    CHECK(memcmp(buf, "01", 2) == 0, "ranged read '%.2s'", buf);
    OK(m->ops->read(m, "/a/0.1", 0, 0, buf));
    EXPECT(m->ops->read(m, "/a/0.1", 10, 100, buf), NC_EINVAL);
    EXPECT(m->ops->read(m, "/a/0.1", UINT64_MAX, 2, buf), NC_EINVAL);
    EXPECT(m->ops->read(m, "/nope", 0, 1, buf), NC_EEMPTY);

    void *data = NULL;
    size_t dlen = 0;
    OK(m->ops->read_all(m, "/b/c/d", &data, &dlen));
    CHECK(data && dlen == 4 && memcmp(data, "deep", 4) == 0, "read_all");
    free(data);
    data = NULL;
    OK(m->ops->read_all(m, "/e", &data, &dlen));
    CHECK(dlen == 0, "empty read_all %zu", dlen);
    free(data);
    data = NULL;
    EXPECT(m->ops->read_all(m, "/nope", &data, &dlen), NC_EEMPTY);
    CHECK(data == NULL, "no data for a missing key");

    /* hostile keys */
    static const char *const bad[] = {"", "a", "/", "/a/", "//a", "/a//b", "/..", "/../x",
                                      "/a/../b", "/a/./b", "/.", "/a\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        EXPECT(m->ops->exists(m, bad[i]), NC_EINVAL);
        EXPECT(put(m, bad[i], "x"), NC_EINVAL);
        EXPECT(m->ops->read_all(m, bad[i], &data, &dlen), NC_EINVAL);
        EXPECT(m->ops->del(m, bad[i]), NC_EINVAL);
    }
    EXPECT(m->ops->exists(m, NULL), NC_EINVAL);
    size_t biglen = 100000;
    char *big = malloc(biglen + 1);
    if (big) {
        big[0] = '/';
        memset(big + 1, 'k', biglen - 1);
        big[biglen] = '\0';
        EXPECT(put(m, big, "x"), NC_EINVAL);
        EXPECT(m->ops->exists(m, big), NC_EINVAL);
        free(big);
    }

    /* a large object, several MiB, with a pattern */
    size_t n = 3u << 20;
    unsigned char *blob = malloc(n);
    if (blob) {
        for (size_t i = 0; i < n; i++)
            blob[i] = (unsigned char)(i * 7 + (i >> 11));
        OK(m->ops->write(m, "/big/0", n, blob));
        OK(m->ops->read_all(m, "/big/0", &data, &dlen));
        CHECK(dlen == n && data && memcmp(data, blob, n) == 0, "big roundtrip");
        free(data);
        data = NULL;
        unsigned char part[100];
        OK(m->ops->read(m, "/big/0", n - 100, 100, part));
        CHECK(memcmp(part, blob + n - 100, 100) == 0, "big tail");
        free(blob);
    }

    /* an object written in pieces, out of order (directory trees) */
    if (m->ops->wbegin != NULL) {
        void *h = NULL;
        OK(m->ops->wbegin(m, "/p/0", &h));
        OK(m->ops->wpart(m, h, 6, "world", 5));
        EXPECT(m->ops->exists(m, "/p/0"), NC_EEMPTY); /* not visible before commit */
        OK(m->ops->wpart(m, h, 0, "hello ", 6));
        OK(m->ops->wend(m, h, 1));
        OK(m->ops->read_all(m, "/p/0", &data, &dlen));
        CHECK(dlen == 11 && data && memcmp(data, "hello world", 11) == 0, "pieced write");
        free(data);
        data = NULL;
        OK(m->ops->wbegin(m, "/p/0", &h)); /* replace, then discard: the old object stays */
        OK(m->ops->wpart(m, h, 0, "xx", 2));
        OK(m->ops->wend(m, h, 0));
        OK(m->ops->len(m, "/p/0", &len));
        CHECK(len == 11, "discarded write left the object (%llu)", (unsigned long long)len);
        OK(m->ops->del(m, "/p/0"));
        EXPECT(m->ops->wbegin(m, "/a/../b", &h), NC_EINVAL);
        CHECK(h == NULL, "no handle on a bad key");
    }

    /* listings */
    NCZ_keys k = {0};
    OK(m->ops->list(m, "/", &k));
    static const char *const root[] = {".zgroup", "a", "b", "big", "e"};
    CHECK(keys_are(&k, root, 5), "list /");
    if (!keys_are(&k, root, 5))
        print_keys("list /", &k);
    ncz_keys_free(&k);
    OK(m->ops->list(m, "/a", &k));
    static const char *const la[] = {".zarray", "0.0", "0.1"};
    CHECK(keys_are(&k, la, 3), "list /a");
    ncz_keys_free(&k);
    OK(m->ops->list(m, "/nope", &k));
    CHECK(k.n == 0, "list of nothing");
    ncz_keys_free(&k);
    EXPECT(m->ops->list(m, "a/", &k), NC_EINVAL);
    OK(m->ops->list_all(m, "/", &k));
    static const char *const all[] = {"/.zgroup", "/a/.zarray", "/a/0.0", "/a/0.1",
                                      "/b/c/d",   "/b/x",       "/big/0", "/e"};
    CHECK(keys_are(&k, all, 8), "list_all /");
    if (!keys_are(&k, all, 8))
        print_keys("list_all /", &k);
    ncz_keys_free(&k);
    OK(m->ops->list_all(m, "/b", &k));
    static const char *const lb[] = {"/b/c/d", "/b/x"};
    CHECK(keys_are(&k, lb, 2), "list_all /b");
    ncz_keys_free(&k);

    /* read_many: present, missing, ranged, whole */
    NCZ_read_req rq[4] = {
        {.key = "/a/0.0", .start = 0, .count = (uint64_t)-1},
        {.key = "/missing", .start = 0, .count = (uint64_t)-1},
        {.key = "/a/0.1", .start = 6, .count = 2},
        {.key = "/b/c/d", .start = 1, .count = (uint64_t)-1},
    };
    OK(m->ops->read_many(m, 4, rq));
    CHECK(rq[0].status == NC_NOERR && rq[0].len == 8 && memcmp(rq[0].data, "chunk-00", 8) == 0,
          "read_many 0");
    CHECK(rq[1].status == NC_EEMPTY && rq[1].data == NULL, "read_many missing %d", rq[1].status);
    CHECK(rq[2].status == NC_NOERR && rq[2].len == 2 && memcmp(rq[2].data, "01", 2) == 0,
          "read_many ranged");
    CHECK(rq[3].status == NC_NOERR && rq[3].len == 3 && memcmp(rq[3].data, "eep", 3) == 0,
          "read_many tail");
    for (int i = 0; i < 4; i++)
        free(rq[i].data);

    /* deletes */
    OK(m->ops->del(m, "/b/c/d"));
    EXPECT(m->ops->del(m, "/b/c/d"), NC_EEMPTY);
    EXPECT(m->ops->exists(m, "/b/c/d"), NC_EEMPTY);
    OK(m->ops->list(m, "/", &k));
    static const char *const root2[] = {".zgroup", "a", "b", "big", "e"};
    CHECK(keys_are(&k, root2, 5), "list / after delete");
    if (!keys_are(&k, root2, 5))
        print_keys("list / after delete", &k);
    ncz_keys_free(&k);
    OK(m->ops->list(m, "/b", &k));
    static const char *const lb2[] = {"x"};
    CHECK(keys_are(&k, lb2, 1), "list /b after delete");
    if (!keys_are(&k, lb2, 1))
        print_keys("list /b after delete", &k);
    ncz_keys_free(&k);
    OK(m->ops->close(m, 0));
}

static void
reopen_store(void)
{
    NCZ_map *m = NULL;
    MUST(ncz_map_open(url, modes, NCZ_MAP_READ, &m));
    void *data = NULL;
    size_t dlen = 0;
    OK(m->ops->read_all(m, "/a/0.1", &data, &dlen));
    CHECK(dlen == 18 && data && memcmp(data, "chunk-01-rewritten", 18) == 0, "persisted");
    free(data);
    EXPECT(put(m, "/x", "y"), NC_EPERM);
    EXPECT(m->ops->del(m, "/a/0.0"), NC_EPERM);
    EXPECT(m->ops->exists(m, "/a/0.0"), NC_NOERR);
    OK(m->ops->close(m, 0));

    /* an existing store is not silently replaced */
    m = NULL;
    EXPECT(ncz_map_open(url, modes, NCZ_MAP_CREATE, &m), NC_EEXIST);
    CHECK(m == NULL, "no map on failure");

    /* write mode: add, then delete the whole store */
    MUST(ncz_map_open(url, modes, NCZ_MAP_WRITE, &m));
    OK(put(m, "/later", "z"));
    EXPECT(m->ops->exists(m, "/later"), NC_NOERR);
    OK(m->ops->close(m, 1));
    m = NULL;
    EXPECT(ncz_map_open(url, modes, NCZ_MAP_READ, &m), NC_ENOOBJECT);
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: zmap_ops URL MODELIST\n");
        return 2;
    }
    url = argv[1];
    modes = argv[2];
    fill_store();
    reopen_store();
    return nct_summary(argv[0]);
}
