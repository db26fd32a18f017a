/* tst_h5heap: variable-length data whose global-heap references are damaged
 * (a heap object's size, an element's object index or count) is refused
 * with NC_EHDFERR by every open path -- the native reader, HDF5 on a file,
 * nc_open_mem -- instead of crashing inside HDF5's H5Dread/H5Aread.  The
 * undamaged file, with strings and vlens in contiguous, chunked, compound
 * and nested layouts, reads back whole on each path.  Each damaged read
 * runs in a child process: a crash fails the test. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netcdf.h>
#include <netcdf_mem.h>
#include "nctst.h"

#define SEED "tst_h5heap_seed.nc"
#define BAD "tst_h5heap_bad.nc"

typedef struct {
    int i;
    char *s;
    double x;
} rec_t;

static const char *svals[3] = {"dataval1", "", "dataval3 longer"};
static const char *avals[2] = {"attval1", "attval2"};

static void
make_seed(void)
{
    int ncid, d, u, v, vl, cmp, vs, ws;
    int a1[3] = {7, 8, 9}, a2[1] = {10};
    nc_vlen_t vv[2] = {{3, a1}, {1, a2}};
    rec_t recs[2] = {{1, "rec one", 1.5}, {2, "rec two", 2.5}};
    const char *w1[2] = {"w-a", "w-b"}, *w2[1] = {"w-c"};
    nc_vlen_t wv[2] = {{2, (void *)w1}, {1, (void *)w2}};
    size_t start[1] = {0}, count[1] = {3};

    MUST(nc_create(SEED, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 3, &d));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &u));
    MUST(nc_def_vlen(ncid, "ivl", NC_INT, &vl));
    MUST(nc_def_compound(ncid, sizeof(rec_t), "rec", &cmp));
    MUST(nc_insert_compound(ncid, cmp, "i", offsetof(rec_t, i), NC_INT));
    MUST(nc_insert_compound(ncid, cmp, "s", offsetof(rec_t, s), NC_STRING));
    MUST(nc_insert_compound(ncid, cmp, "x", offsetof(rec_t, x), NC_DOUBLE));
    MUST(nc_def_vlen(ncid, "svl", NC_STRING, &vs));
    MUST(nc_def_var(ncid, "s", NC_STRING, 1, &d, &v));             /* contiguous */
    MUST(nc_put_att_string(ncid, v, "names", 2, avals));
    MUST(nc_def_var(ncid, "su", NC_STRING, 1, &u, &v));            /* chunked */
    MUST(nc_def_var(ncid, "vl", vl, 1, &d, &v));
    MUST(nc_def_var(ncid, "recs", cmp, 1, &d, &v));
    MUST(nc_def_var(ncid, "ws", vs, 1, &d, &ws));
    MUST(nc_enddef(ncid));
    MUST(nc_put_var_string(ncid, 0, svals));
    MUST(nc_put_vara_string(ncid, 1, start, count, svals));
    count[0] = 2;
    MUST(nc_put_vara(ncid, 2, start, count, vv));
    MUST(nc_put_vara(ncid, 3, start, count, recs));
    MUST(nc_put_vara(ncid, 4, start, count, wv));
    MUST(nc_close(ncid));
}

/* Read everything of ncid: NC_NOERR, or the first error. */
static int
read_all(int ncid, int verify)
{
    char *s[3] = {0}, *a[2] = {0};
    nc_vlen_t vv[3];
    rec_t recs[3];
    nc_vlen_t wv[3];
    size_t one[1] = {1};
    int st, bad = 0;

    if ((st = nc_get_att_string(ncid, 0, "names", a)))
        return st;
    if (verify)
        bad |= strcmp(a[0], avals[0]) || strcmp(a[1], avals[1]);
    nc_free_string(2, a);
    for (int v = 0; v < 2; v++) {
        if ((st = nc_get_var_string(ncid, v, s)))
            return st;
        for (int i = 0; verify && i < 3; i++)
            bad |= strcmp(s[i], svals[i]) != 0;
        nc_free_string(3, s);
        if ((st = nc_get_var1_string(ncid, v, one, s)))
            return st;
        bad |= verify && strcmp(s[0], svals[1]) != 0;
        nc_free_string(1, s);
    }
    if ((st = nc_get_var(ncid, 2, vv)))
        return st;
    if (verify)
        bad |= vv[0].len != 3 || ((int *)vv[0].p)[2] != 9 || vv[1].len != 1 || vv[2].len != 0;
    for (int i = 0; i < 3; i++)
        nc_free_vlen(&vv[i]);
    if ((st = nc_get_var(ncid, 3, recs)))
        return st;
    if (verify)
        bad |= recs[0].i != 1 || strcmp(recs[0].s, "rec one") || recs[1].x != 2.5 ||
               strcmp(recs[1].s, "rec two");
    for (int i = 0; i < 3; i++)
        free(recs[i].s);
    if ((st = nc_get_var(ncid, 4, wv)))
        return st;
    if (verify)
        bad |= wv[0].len != 2 || strcmp(((char **)wv[0].p)[1], "w-b") ||
               strcmp(((char **)wv[1].p)[0], "w-c");
    for (int i = 0; i < 3; i++) {
        nc_free_string(wv[i].len, wv[i].p);
        nc_free_vlen(&wv[i]);
    }
    return bad ? NC_EINVAL : NC_NOERR;
}

/* Open path by way 0 (native reader), 1 (HDF5), 2 (nc_open_mem) and read
 * everything: the first error. */
static int
open_read(const char *path, int way, int verify)
{
    int ncid, st, st2;
    unsigned char *img = NULL;
    size_t len = 0;
    setenv("NETCDF_HDF5_NATIVE_OPEN", way == 0 ? "1" : "0", 1);
    if (way == 2) {
        if ((img = nct_slurp(path, &len)) == NULL)
            return NC_ENOMEM;
        st = nc_open_mem(path, NC_NOWRITE, len, img, &ncid);
    } else {
        st = nc_open(path, NC_NOWRITE, &ncid);
    }
    if (st == NC_NOERR) {
        st = read_all(ncid, verify);
        st2 = nc_close(ncid);
        if (!st)
            st = st2;
    }
    free(img);
    return st;
}

/* In a child: 0 when the damage was refused with NC_EHDFERR, 1 when it was
 * not noticed, 2 another error; a crash is a signal. */
static int
child_status(const char *path, int way)
{
    int status;
    pid_t pid;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        int st = open_read(path, way, 0);
        _exit(st == NC_EHDFERR ? 0 : st == NC_NOERR ? 1 : 2);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    if (!WIFEXITED(status))
        return 100 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return WEXITSTATUS(status);
}

static void
put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t
get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The first 16-byte element (count, address of a collection, index) with
 * this count whose address holds "GCOL": its offset, or 0. */
static size_t
find_elem(const unsigned char *b, size_t len, uint32_t count)
{
    for (size_t p = 0; p + 16 <= len; p++) {
        uint64_t addr = get64(b + p + 4);
        if (b[p] == (count & 0xff) && b[p + 1] == 0 && b[p + 2] == 0 && b[p + 3] == 0 &&
            addr >= 16 && addr + 16 <= len && memcmp(b + addr, "GCOL", 4) == 0 &&
            b[p + 12] != 0 && b[p + 14] == 0 && b[p + 15] == 0)
            return p;
    }
    return 0;
}

int
main(void)
{
    static const char *ways[3] = {"native", "hdf5", "memory"};
    unsigned char *img, *m;
    size_t len, gcol = 0, p;

    make_seed();
    if (nct_fail)
        return nct_summary("tst_h5heap");
    for (int w = 0; w < 3; w++)
        EXPECT(open_read(SEED, w, 1), NC_NOERR);
    if ((img = nct_slurp(SEED, &len)) == NULL || (m = malloc(len)) == NULL) {
        CHECK(0, "cannot read %s", SEED);
        return nct_summary("tst_h5heap");
    }
    for (p = 0; p + 4 <= len; p++)
        if (memcmp(img + p, "GCOL", 4) == 0) {
            gcol = p;
            break;
        }
    CHECK(gcol != 0, "no global heap collection in the seed");

    /* Damages, each in its own copy of the seed. */
    for (int k = 0; k < 6 && gcol; k++) {
        const char *what = "";
        size_t at;
        memcpy(m, img, len);
        switch (k) {
        case 0: /* the first object's size grows by 2^40 (a mutant's damage) */
            what = "object size";
            m[gcol + 16 + 8 + 5] ^= 1;
            break;
        case 1: /* the collection's size beyond the file */
            what = "collection size";
            m[gcol + 8 + 4] ^= 0x10;
            break;
        case 2: /* a string variable element's index names no object */
            what = "data index";
            at = find_elem(m, len, (uint32_t)strlen(svals[0]));
            CHECK(at != 0, "no element of %s", svals[0]);
            put32(m + at + 12, 0x7fff);
            break;
        case 3: /* its count: 2^31 characters */
            what = "data count";
            at = find_elem(m, len, (uint32_t)strlen(svals[0]));
            put32(m + at, 0x80000000u);
            break;
        case 4: /* an attribute's string count one too long */
            what = "attribute count";
            at = find_elem(m, len, (uint32_t)strlen(avals[0]));
            CHECK(at != 0, "no element of %s", avals[0]);
            put32(m + at, (uint32_t)strlen(avals[0]) + 1);
            break;
        case 5: /* a vlen variable's element count (3 ints) one too long */
            what = "vlen count";
            at = find_elem(m, len, 3);
            CHECK(at != 0, "no vlen element of 3");
            put32(m + at, 4);
            break;
        }
        if (!nct_write_file(BAD, m, len)) {
            CHECK(0, "cannot write %s", BAD);
            break;
        }
        for (int w = 0; w < 3; w++) {
            int s = child_status(BAD, w);
            CHECK(s == 0, "%s, %s open: %s", what, ways[w],
                  s == 1 ? "not noticed" : s == 2 ? "another error" : s >= 100 ? "crashed"
                                                                            : "wait failed");
        }
    }
    free(m);
    free(img);
    remove(SEED);
    remove(BAD);
    return nct_summary("tst_h5heap");
}
