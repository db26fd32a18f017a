/* tst_h5bigsize: sizes read from a damaged netCDF-4 file are checked
 * before anything is allocated from them.  Files are written here, then
 * copies get one field each patched:
 *  - the length of a DIMENSION_LIST element in a version-1 object header
 *    (HDF5's default format, as h5py writes it: no checksum) set to 2^31:
 *    HDF5's H5Aread would allocate 16 GiB for it; the open must fail with
 *    NC_EHDFERR, by either reader;
 *  - the stored size of a chunk in the chunk index (a version-1 B-tree,
 *    no checksum) set to ~4 GiB: a read of that chunk must fail with
 *    NC_EHDFERR without allocating it; other chunks still read.
 * The opens run in a child process under a 2 GiB address-space limit
 * (not under a sanitizer, whose shadow memory needs more), so an
 * allocation of the damaged size fails there instead of succeeding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hdf5.h>
#include <netcdf.h>
#include "nctst.h"

#define N 4000
#define CHUNK 1000

static const char *orig = "tst_h5bigsize.nc", *orig_h5 = "tst_h5bigsize_v1.h5", *bad_dimlist = "tst_h5bigsize_dimlist.nc",
                  *bad_chunk = "tst_h5bigsize_chunk.nc";

static int
make_file(void)
{
    int ncid, dim, varid;
    size_t chunk = CHUNK;
    static int data[N];
    for (int i = 0; i < N; i++)
        data[i] = i * 7;
    if (nc_create(orig, NC_NETCDF4 | NC_CLOBBER, &ncid) || nc_def_dim(ncid, "x", N, &dim) ||
        nc_def_var(ncid, "v", NC_INT, 1, &dim, &varid) ||
        nc_def_var_chunking(ncid, varid, NC_CHUNKED, &chunk) ||
        nc_def_var_deflate(ncid, varid, 0, 1, 1))
        return 1;
    /* More attributes than fit in the header: dense storage. */
    for (int i = 0; i < 12; i++) {
        char name[16];
        snprintf(name, sizeof name, "att%02d", i);
        if (nc_put_att_int(ncid, varid, name, NC_INT, 1, &i))
            return 1;
    }
    if (nc_enddef(ncid) || nc_put_var_int(ncid, varid, data) || nc_close(ncid))
        return 1;
    return 0;
}

static int
spit(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : 1;
}

static void
put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static unsigned
get16(const unsigned char *p)
{
    return p[0] | (unsigned)p[1] << 8;
}

/* The element data of the (one) DIMENSION_LIST attribute message, version
 * 1: version, reserved, name/datatype/dataspace sizes (2 bytes each), then
 * the name, datatype and dataspace each padded to 8 bytes, then the data. */
static unsigned char *
find_dimlist(unsigned char *b, size_t len)
{
    static const char name[] = "DIMENSION_LIST";
    for (size_t i = 8; i + sizeof name < len; i++) {
        if (memcmp(b + i, name, sizeof name) != 0 || b[i - 8] != 1)
            continue;
        size_t nsz = get16(b + i - 6), tsz = get16(b + i - 4), ssz = get16(b + i - 2);
        size_t at = i + ((nsz + 7) & ~(size_t)7) + ((tsz + 7) & ~(size_t)7) + ((ssz + 7) & ~(size_t)7);
        if (nsz == sizeof name && at + 16 <= len)
            return b + at;
    }
    return NULL;
}

/* A file in HDF5's default (oldest) format: dataset x a dimension scale,
 * v(x) with a DIMENSION_LIST naming it, written by hand as H5DS would. */
static int
make_v1_file(void)
{
    hsize_t n = 10;
    hid_t fid, sid, xid, vid, strt, vlt, asid, aid;
    hobj_ref_t ref;
    hvl_t vl;
    int data[10] = {0};
    int bad = 0;
    char cls[16] = "DIMENSION_SCALE", xname[16] = "x";

    if ((fid = H5Fcreate(orig_h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        return 1;
    sid = H5Screate_simple(1, &n, NULL);
    asid = H5Screate(H5S_SCALAR);
    xid = H5Dcreate2(fid, "x", H5T_NATIVE_INT, sid, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    vid = H5Dcreate2(fid, "v", H5T_NATIVE_INT, sid, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bad |= xid < 0 || vid < 0;
    bad |= H5Dwrite(xid, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0;
    bad |= H5Dwrite(vid, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0;
    strt = H5Tcopy(H5T_C_S1);
    H5Tset_size(strt, 16);
    aid = H5Acreate2(xid, "CLASS", strt, asid, H5P_DEFAULT, H5P_DEFAULT);
    bad |= aid < 0 || H5Awrite(aid, strt, cls) < 0;
    H5Aclose(aid);
    aid = H5Acreate2(xid, "NAME", strt, asid, H5P_DEFAULT, H5P_DEFAULT);
    bad |= aid < 0 || H5Awrite(aid, strt, xname) < 0;
    H5Aclose(aid);
    bad |= H5Rcreate(&ref, fid, "x", H5R_OBJECT, -1) < 0;
    vlt = H5Tvlen_create(H5T_STD_REF_OBJ);
    vl.len = 1;
    vl.p = &ref;
    n = 1;
    H5Sclose(asid);
    asid = H5Screate_simple(1, &n, NULL);
    aid = H5Acreate2(vid, "DIMENSION_LIST", vlt, asid, H5P_DEFAULT, H5P_DEFAULT);
    bad |= aid < 0 || H5Awrite(aid, vlt, &vl) < 0;
    H5Aclose(aid);
    H5Tclose(vlt);
    H5Tclose(strt);
    H5Sclose(asid);
    H5Sclose(sid);
    H5Dclose(xid);
    H5Dclose(vid);
    bad |= H5Fclose(fid) < 0;
    return bad;
}

/* The first key of the first raw-data chunk B-tree node (version 1:
 * "TREE", type 1, level, entries, two sibling addresses; then keys of
 * chunk size, filter mask and offsets, and child addresses). */
static unsigned char *
find_chunk_key(unsigned char *b, size_t len)
{
    for (size_t i = 0; i + 24 + 8 <= len; i++)
        if (memcmp(b + i, "TREE", 4) == 0 && b[i + 4] == 1 && b[i + 5] == 0)
            return b + i + 24;
    return NULL;
}

static void
child(void)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    if (getenv("NCT_SANITIZE") == NULL) {
        struct rlimit rl = {(rlim_t)2 << 30, (rlim_t)2 << 30};
        setrlimit(RLIMIT_AS, &rl);
    }
#endif
    for (int way = 0; way < 2; way++) {
        const char *what = way ? "HDF5 open" : "native open";
        int ncid, varid, s, v[N];
        size_t idx;
        setenv("NETCDF_HDF5_NATIVE_OPEN", way ? "0" : "1", 1);

        s = nc_open(bad_dimlist, NC_NOWRITE, &ncid);
        CHECK(s == NC_EHDFERR, "%s of a DIMENSION_LIST length of 2^31: %d (%s), want NC_EHDFERR",
              what, s, nc_strerror(s));
        if (s == NC_NOERR)
            nc_close(ncid);
        s = nc_open(bad_chunk, NC_NOWRITE, &ncid);
        CHECK(s == NC_NOERR, "%s of a damaged chunk size: %s", what, nc_strerror(s));
        if (s != NC_NOERR)
            continue;
        OK(nc_inq_varid(ncid, "v", &varid));
        s = nc_get_var_int(ncid, varid, v);
        CHECK(s == NC_EHDFERR, "%s: nc_get_var of a 4 GiB chunk: %d (%s), want NC_EHDFERR", what, s,
              nc_strerror(s));
        idx = 3;
        s = nc_get_var1_int(ncid, varid, &idx, v);
        CHECK(s == NC_EHDFERR, "%s: nc_get_var1 of a 4 GiB chunk: %d (%s), want NC_EHDFERR", what,
              s, nc_strerror(s));
        idx = CHUNK + 5;
        s = nc_get_var1_int(ncid, varid, &idx, v);
        CHECK(s == NC_NOERR && v[0] == (CHUNK + 5) * 7, "%s: an intact chunk: %s, %d", what,
              nc_strerror(s), v[0]);
        OK(nc_close(ncid));
    }
    fflush(stdout);
    fflush(stderr);
    _exit(nct_summary("tst_h5bigsize child") ? 1 : 0);
}

int
main(void)
{
    unsigned char *b, *p;
    size_t len;
    int status;
    pid_t pid;

    if (make_file() || (b = nct_slurp(orig, &len)) == NULL) {
        printf("cannot write %s\n", orig);
        return 1;
    }
    p = find_chunk_key(b, len);
    CHECK(p != NULL, "no raw-data chunk B-tree node found");
    if (p) {
        put32(p, 0xfffffff0u);
        CHECK(spit(bad_chunk, b, len) == 0, "write %s", bad_chunk);
    }
    free(b);
    if (make_v1_file() || (b = nct_slurp(orig_h5, &len)) == NULL) {
        printf("cannot write %s\n", orig_h5);
        return 1;
    }
    /* The intact file opens. */
    {
        int ncid, s = nc_open(orig_h5, NC_NOWRITE, &ncid);
        CHECK(s == NC_NOERR, "open of the intact %s: %s", orig_h5, nc_strerror(s));
        if (s == NC_NOERR)
            nc_close(ncid);
    }
    p = find_dimlist(b, len);
    CHECK(p != NULL, "no DIMENSION_LIST message found");
    if (p) {
        put32(p, 0x80000000u);
        CHECK(spit(bad_dimlist, b, len) == 0, "write %s", bad_dimlist);
    }
    free(b);
    if (nct_fail)
        return nct_summary("tst_h5bigsize");
    fflush(stdout);
    if ((pid = fork()) == 0)
        child();
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %#x", status);
    remove(orig);
    remove(orig_h5);
    if (!getenv("KEEP")) remove(bad_dimlist);
    if (!getenv("KEEP")) remove(bad_chunk);
    return nct_summary("tst_h5bigsize");
}
