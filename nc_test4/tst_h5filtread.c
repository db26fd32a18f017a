/* tst_h5filtread: every read of a filtered variable takes the library's
 * own chunk pipeline, whatever the call (nc_get_var1, vara, vars, varm,
 * var) and however few values it wants, so damaged or unreadable chunks
 * give the same answer everywhere:
 *  - a filter neither the library nor HDF5 has: NC_ENOFILTER;
 *  - a deflate chunk that inflates to 256 MiB (a decompression bomb) and
 *    one that inflates to less than a chunk: an error, with nothing
 *    allocated past the chunk and nothing read past the decoded bytes.
 * The file is written by the library, then damaged through HDF5 in a child
 * process (raw chunks with H5Dwrite_chunk; a dataset with a filter the
 * child alone registers). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hdf5.h>
#include <zlib.h>
#include <netcdf.h>
#include "nctst.h"

#define NROW 6
#define NCOL 1000
#define FILTER_ID 40000 /* no one's filter */
#define BOMB_BYTES ((size_t)256 << 20)

static const char *path = "tst_h5filtread.nc";

static float
value(int r, int c)
{
    return (float)(r * 10000 + c);
}

/* The netCDF-4 file: v(r, c) deflated, one row per chunk, every row
 * written. */
static int
make_file(void)
{
    int ncid, dims[2], varid;
    size_t chunks[2] = {1, NCOL};
    static float buf[NROW * NCOL];
    for (int r = 0; r < NROW; r++)
        for (int c = 0; c < NCOL; c++)
            buf[r * NCOL + c] = value(r, c);
    if (nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid) || nc_def_dim(ncid, "r", NROW, &dims[0]) ||
        nc_def_dim(ncid, "c", NCOL, &dims[1]) ||
        nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &varid) ||
        nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks) ||
        nc_def_var_deflate(ncid, varid, 0, 1, 1) || nc_enddef(ncid) ||
        nc_put_var_float(ncid, varid, buf) || nc_close(ncid))
        return 1;
    return 0;
}

static size_t
identity(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
         size_t *buf_size, void **buf)
{
    (void)flags, (void)cd_nelmts, (void)cd_values, (void)buf_size, (void)buf;
    return nbytes;
}

/* A zlib stream of n zero bytes, in *out. */
static int
zeros_stream(size_t n, unsigned char **out, size_t *outlen)
{
    static unsigned char in[1 << 16];
    z_stream z;
    size_t cap = n / 500 + 65536;
    unsigned char *o = malloc(cap);
    memset(&z, 0, sizeof z);
    if (o == NULL || deflateInit(&z, 9) != Z_OK) {
        free(o);
        return 1;
    }
    z.next_out = o;
    z.avail_out = (uInt)cap;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < sizeof in ? n - done : sizeof in;
        z.next_in = in;
        z.avail_in = (uInt)k;
        done += k;
        if (deflate(&z, done == n ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR || z.avail_in) {
            deflateEnd(&z);
            free(o);
            return 1;
        }
    }
    *outlen = z.total_out;
    deflateEnd(&z);
    *out = o;
    return 0;
}

/* Through HDF5: row 1 of v becomes a bomb, row 2 a short chunk; m(r, c)
 * is a new dataset under a filter only this process knows. */
static int
damage_file(void)
{
    H5Z_class2_t cls = {H5Z_CLASS_T_VERS, FILTER_ID, 1, 1, "identity", NULL, NULL, identity};
    hid_t fid, did, sid, dcpl;
    hsize_t off1[2] = {1, 0}, off2[2] = {2, 0}, dims[2] = {NROW, NCOL}, cd[2] = {1, NCOL};
    unsigned char *bomb, shortc[64];
    size_t bomblen;
    uLongf shortlen = sizeof shortc;
    static unsigned char ten[10];
    static float buf[NROW * NCOL];

    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (zeros_stream(BOMB_BYTES, &bomb, &bomblen))
        return 1;
    if (compress2(shortc, &shortlen, ten, sizeof ten, 9) != Z_OK)
        return 1;
    if ((fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) < 0 ||
        (did = H5Dopen2(fid, "v", H5P_DEFAULT)) < 0 ||
        H5Dwrite_chunk(did, H5P_DEFAULT, 0, off1, bomblen, bomb) < 0 ||
        H5Dwrite_chunk(did, H5P_DEFAULT, 0, off2, shortlen, shortc) < 0 || H5Dclose(did) < 0)
        return 1;
    free(bomb);
    if (H5Zregister(&cls) < 0 || (sid = H5Screate_simple(2, dims, NULL)) < 0 ||
        (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_chunk(dcpl, 2, cd) < 0 ||
        H5Pset_filter(dcpl, FILTER_ID, H5Z_FLAG_MANDATORY, 0, NULL) < 0 ||
        (did = H5Dcreate2(fid, "m", H5T_NATIVE_FLOAT, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0 ||
        H5Dwrite(did, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0 ||
        H5Dclose(did) < 0 || H5Pclose(dcpl) < 0 || H5Sclose(sid) < 0 || H5Fclose(fid) < 0)
        return 1;
    return 0;
}

/* Every kind of read of row `row` of varid returns want (checked) and,
 * when want is NC_NOERR, the row's values. */
static void
reads(int ncid, int varid, int row, int want, const char *what)
{
    static float buf[NROW * NCOL];
    size_t start[2] = {(size_t)row, 0}, count[2] = {1, NCOL}, one[2] = {(size_t)row, 17};
    size_t sstart[2] = {(size_t)row, 3}, scount[2] = {1, 5};
    ptrdiff_t stride[2] = {1, 97}, imap[2] = {NCOL, 1};
    float f = -1;
    int s;

    s = nc_get_var1_float(ncid, varid, one, &f);
    CHECK(s == want, "%s: nc_get_var1 of row %d: %d (%s), want %d (%s)", what, row, s,
          nc_strerror(s), want, nc_strerror(want));
    if (s == NC_NOERR && want == NC_NOERR)
        CHECK(f == value(row, 17), "%s: nc_get_var1 read %g", what, f);
    s = nc_get_vara_float(ncid, varid, start, count, buf);
    CHECK(s == want, "%s: nc_get_vara of row %d: %d (%s), want %d (%s)", what, row, s,
          nc_strerror(s), want, nc_strerror(want));
    if (s == NC_NOERR && want == NC_NOERR)
        CHECK(buf[999] == value(row, 999), "%s: nc_get_vara read %g", what, buf[999]);
    s = nc_get_vars_float(ncid, varid, sstart, scount, stride, buf);
    CHECK(s == want, "%s: nc_get_vars of row %d: %d (%s), want %d (%s)", what, row, s,
          nc_strerror(s), want, nc_strerror(want));
    if (s == NC_NOERR && want == NC_NOERR)
        CHECK(buf[4] == value(row, 3 + 4 * 97), "%s: nc_get_vars read %g", what, buf[4]);
    s = nc_get_varm_float(ncid, varid, sstart, scount, stride, imap, buf);
    CHECK(s == want, "%s: nc_get_varm of row %d: %d (%s), want %d (%s)", what, row, s,
          nc_strerror(s), want, nc_strerror(want));
}

int
main(void)
{
    int ncid, v, m, status, s;
    pid_t pid;
    static float all[NROW * NCOL];

    if (make_file()) {
        printf("cannot write %s\n", path);
        return 1;
    }
    /* HDF5's filter registry is per process: the child's stays its own. */
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(damage_file());
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("cannot damage %s through HDF5\n", path);
        return 1;
    }
    /* Both ways of opening (our metadata reader; HDF5 only). */
    for (int way = 0; way < 2; way++) {
        const char *what = way ? "HDF5 open" : "native open";
        setenv("NETCDF_HDF5_NATIVE_OPEN", way ? "0" : "1", 1);
        s = nc_open(path, NC_NOWRITE, &ncid);
        CHECK(s == NC_NOERR, "%s: nc_open: %s", what, nc_strerror(s));
        if (s)
            continue;
        OK(nc_inq_varid(ncid, "v", &v));
        OK(nc_inq_varid(ncid, "m", &m));
        reads(ncid, v, 0, NC_NOERR, what);   /* intact rows read */
        reads(ncid, v, 5, NC_NOERR, what);
        reads(ncid, v, 1, NC_EHDFERR, what); /* the bomb */
        reads(ncid, v, 2, NC_EHDFERR, what); /* short */
        reads(ncid, m, 0, NC_ENOFILTER, what);
        reads(ncid, m, 4, NC_ENOFILTER, what);
        s = nc_get_var_float(ncid, v, all);
        CHECK(s == NC_EHDFERR, "%s: nc_get_var of v: %s", what, nc_strerror(s));
        s = nc_get_var_float(ncid, m, all);
        CHECK(s == NC_ENOFILTER, "%s: nc_get_var of m: %s", what, nc_strerror(s));
        /* The intact rows still read after the failures. */
        reads(ncid, v, 3, NC_NOERR, what);
        OK(nc_close(ncid));
    }
    remove(path);
    return nct_summary("tst_h5filtread");
}
