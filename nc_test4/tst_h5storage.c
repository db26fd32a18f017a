/* tst_h5storage: damaged dataset storage is NC_EHDFERR at the first read on
 * every open path (native reader, HDF5 on a file, nc_open_mem), never a
 * crash inside HDF5: a version-1 B-tree of chunks whose node points back at
 * itself (H5B_find recursed until the stack ran out, from
 * H5Dget_chunk_storage_size for filtered variables and H5Dread otherwise),
 * a node claiming 65535 entries, a compact dataset whose header stores
 * fewer bytes than its extent needs (H5Dread copied past them), and an
 * attribute message of a version-1 header whose dataspace outgrows it
 * (H5Aexists, asked for CLASS at open, copied past it), and a
 * variable-length _NCProperties whose heap object is damaged (read by the
 * text-attribute reader at open).  Each read of a damaged file runs in a
 * child process. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hdf5.h>
#include <netcdf.h>
#include <netcdf_mem.h>
#include "nctst.h"

#define CHUNKED "tst_h5storage_chunked.nc"
#define COMPACT "tst_h5storage_compact.h5"
#define BAD "tst_h5storage_bad.nc"

static void
make_chunked(void)
{
    int ncid, d[2], v;
    size_t ch[2] = {4, 4};
    static int data[32 * 32];
    for (int i = 0; i < 32 * 32; i++)
        data[i] = i;
    MUST(nc_create(CHUNKED, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "y", 32, &d[0]));
    MUST(nc_def_dim(ncid, "x", 32, &d[1]));
    MUST(nc_def_var(ncid, "deflated", NC_INT, 2, d, &v));   /* the parallel pipeline */
    MUST(nc_def_var_chunking(ncid, v, NC_CHUNKED, ch));
    MUST(nc_def_var_deflate(ncid, v, 0, 1, 1));
    MUST(nc_def_var(ncid, "plain", NC_INT, 2, d, &v));      /* H5Dread */
    MUST(nc_def_var_chunking(ncid, v, NC_CHUNKED, ch));
    MUST(nc_enddef(ncid));
    MUST(nc_put_var_int(ncid, 0, data));
    MUST(nc_put_var_int(ncid, 1, data));
    MUST(nc_close(ncid));
}

/* A compact dataset of 12 ints in a version-1 object header (no checksum),
 * as HDF5 writes with the earliest format. */
static void
make_compact(void)
{
    hsize_t dims[1] = {12};
    int data[12];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fid, sid, dcpl, did;
    for (int i = 0; i < 12; i++)
        data[i] = 0x5a5a0000 + i;
    H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_LATEST);
    fid = H5Fcreate(COMPACT, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    sid = H5Screate_simple(1, dims, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(dcpl, H5D_COMPACT);
    did = H5Dcreate2(fid, "c", H5T_STD_I32LE, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(did >= 0 && H5Dwrite(did, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0,
          "cannot write %s", COMPACT);
    {
        /* an attribute of 3 ints 0x6b6b0000.. */
        hsize_t adims[1] = {3};
        int av[3] = {0x6b6b0000, 0x6b6b0001, 0x6b6b0002};
        hid_t asid = H5Screate_simple(1, adims, NULL);
        hid_t aid = H5Acreate2(did, "att", H5T_STD_I32LE, asid, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(aid >= 0 && H5Awrite(aid, H5T_NATIVE_INT, av) >= 0, "cannot write an attribute");
        H5Aclose(aid);
        H5Sclose(asid);
    }
    {
        /* _NCProperties as a variable-length string (other writers' way):
         * read by the library's text-attribute reader at open */
        const char *props = "version=2,netcdf=4.9.0,hdf5=1.10.8";
        hid_t tid = H5Tcopy(H5T_C_S1), asid = H5Screate(H5S_SCALAR), aid;
        H5Tset_size(tid, H5T_VARIABLE);
        aid = H5Acreate2(fid, "_NCProperties", tid, asid, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(aid >= 0 && H5Awrite(aid, tid, &props) >= 0, "cannot write _NCProperties");
        H5Aclose(aid);
        H5Sclose(asid);
        H5Tclose(tid);
    }
    H5Dclose(did);
    H5Pclose(dcpl);
    H5Sclose(sid);
    H5Fclose(fid);
    H5Pclose(fapl);
}

/* Open by way 0 (native reader), 1 (HDF5), 2 (nc_open_mem); read every
 * variable whole: the first error. */
static int
open_read(const char *path, int way)
{
    int ncid, nvars = 0, st, st2;
    unsigned char *img = NULL;
    size_t len = 0;
    static int buf[32 * 32];
    setenv("NETCDF_HDF5_NATIVE_OPEN", way == 0 ? "1" : "0", 1);
    if (way == 2) {
        if ((img = nct_slurp(path, &len)) == NULL)
            return NC_ENOMEM;
        st = nc_open_mem(path, NC_NOWRITE, len, img, &ncid);
    } else {
        st = nc_open(path, NC_NOWRITE, &ncid);
    }
    if (st == NC_NOERR) {
        st = nc_inq_nvars(ncid, &nvars);
        for (int v = 0; v < nvars && !st; v++)
            st = nc_get_var_int(ncid, v, buf);
        st2 = nc_close(ncid);
        if (!st)
            st = st2;
    }
    free(img);
    return st;
}

/* 0: refused with NC_EHDFERR; 1: not noticed; 2: another error; >= 100: crashed. */
static int
child_status(const char *path, int way)
{
    int status;
    pid_t pid;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        int st = open_read(path, way);
        _exit(st == NC_EHDFERR ? 0 : st == NC_NOERR ? 1 : 2);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    if (!WIFEXITED(status))
        return 100;
    return WEXITSTATUS(status);
}

static void
expect_refused(const unsigned char *m, size_t len, const char *what)
{
    static const char *ways[3] = {"native", "hdf5", "memory"};
    if (!nct_write_file(BAD, m, len)) {
        CHECK(0, "cannot write %s", BAD);
        return;
    }
    for (int w = 0; w < 3; w++) {
        int s = child_status(BAD, w);
        CHECK(s == 0, "%s, %s open: %s", what, ways[w],
              s == 1 ? "not noticed" : s == 2 ? "another error" : s >= 100 ? "crashed" : "wait failed");
    }
}

static size_t
find(const unsigned char *b, size_t len, const void *pat, size_t n, size_t from)
{
    for (size_t p = from; p + n <= len; p++)
        if (memcmp(b + p, pat, n) == 0)
            return p;
    return 0;
}

int
main(void)
{
    unsigned char *img, *m;
    size_t len, tree[2];

    make_chunked();
    make_compact();
    if (nct_fail)
        return nct_summary("tst_h5storage");
    for (int w = 0; w < 3; w++) {
        EXPECT(open_read(CHUNKED, w), NC_NOERR);
        EXPECT(open_read(COMPACT, w), NC_NOERR);
    }

    /* Chunk indexes: the two variables' B-trees ("TREE", type 1). */
    if ((img = nct_slurp(CHUNKED, &len)) == NULL || (m = malloc(len)) == NULL) {
        CHECK(0, "cannot read %s", CHUNKED);
        return nct_summary("tst_h5storage");
    }
    tree[0] = find(img, len, "TREE\001\000", 6, 0);
    tree[1] = tree[0] ? find(img, len, "TREE\001\000", 6, tree[0] + 1) : 0;
    CHECK(tree[0] && tree[1], "no chunk B-trees in %s", CHUNKED);
    for (int t = 0; t < 2 && tree[t]; t++) {
        size_t child0 = tree[t] + 24 + 8 + 3 * 8;   /* after the first key (rank 2 + 1) */
        char what[64];
        memcpy(m, img, len);
        m[tree[t] + 5] = 1;                        /* level 1: children are nodes ... */
        for (int i = 0; i < 8; i++)                /* ... and the first one is itself */
            m[child0 + i] = (unsigned char)((uint64_t)tree[t] >> (8 * i));
        snprintf(what, sizeof what, "B-tree cycle (variable %d)", t);
        expect_refused(m, len, what);
        memcpy(m, img, len);
        m[tree[t] + 6] = m[tree[t] + 7] = 0xff;    /* 65535 entries */
        snprintf(what, sizeof what, "B-tree entry count (variable %d)", t);
        expect_refused(m, len, what);
    }
    free(m);
    free(img);

    /* The compact dataset's stored size (layout message version 3, class
     * 0, 2-byte size 48, then the values) made 0. */
    if ((img = nct_slurp(COMPACT, &len)) != NULL) {
        static const unsigned char lay[8] = {3, 0, 48, 0, 0, 0, 0x5a, 0x5a};
        size_t at = find(img, len, lay, sizeof lay, 0);
        CHECK(at != 0, "no compact layout message in %s", COMPACT);
        if (at) {
            img[at + 2] = 0;
            expect_refused(img, len, "compact size");
        }
        free(img);
    }

    /* The attribute's dataspace (version-1 header, no checksum): its length
     * of 3 made 2^40 + 3 (HDF5 copied that many values out of the message
     * when H5Aexists decoded it). */
    if ((img = nct_slurp(COMPACT, &len)) != NULL) {
        static const unsigned char val[4] = {0, 0, 0x6b, 0x6b}, three[8] = {3};
        size_t data = find(img, len, val, sizeof val, 0), at = 0;
        for (size_t p = data > 48 ? data - 48 : 0; data && p < data && !at; p++)
            if (memcmp(img + p, three, 8) == 0)
                at = p;   /* the size (the maximum size follows) */
        CHECK(at != 0, "no attribute dataspace in %s", COMPACT);
        if (at) {
            img[at + 5] = 1;
            expect_refused(img, len, "attribute dataspace");
        }
        free(img);
    }
    /* The heap object of _NCProperties grown by 2^40 bytes. */
    if ((img = nct_slurp(COMPACT, &len)) != NULL) {
        size_t g = find(img, len, "GCOL", 4, 0);
        CHECK(g != 0, "no global heap in %s", COMPACT);
        if (g) {
            img[g + 16 + 8 + 5] ^= 1;
            expect_refused(img, len, "_NCProperties heap object");
        }
        free(img);
    }
    remove(CHUNKED);
    remove(COMPACT);
    remove(BAD);
    return nct_summary("tst_h5storage");
}
