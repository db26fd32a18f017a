/* tst_h5access.c: the HDF5 file access settings of netCDF-4 files, seen
 * through HDF5 itself in the same process.
 *  - nc_set_alignment reaches HDF5: the data of every dataset of at least
 *    the threshold's size starts at a multiple of the alignment, in a new
 *    file and in one reopened for writing;
 *  - the file is open with HDF5's default close degree (WEAK), so that a
 *    program may H5Fopen the same file while netCDF holds it: after
 *    nc_create, nc_open(NC_WRITE), a read-only open before and after its
 *    first data read, and a plain HDF5 file.
 * Built against ours and the reference (ref_tst_h5access); both must pass. */
#include "nctst.h"

#include <hdf5.h>

#define PATH "tst_h5access.nc"
#define PLAIN "tst_h5access_plain.h5"
#define ALIGN 4096
#define N 100

/* The file address of dataset name's data, or HADDR_UNDEF. */
static haddr_t
data_offset(hid_t fid, const char *name)
{
    haddr_t off = HADDR_UNDEF;
    hid_t did = H5Dopen2(fid, name, H5P_DEFAULT);
    if (did >= 0) {
        off = H5Dget_offset(did);
        H5Dclose(did);
    }
    return off;
}

static void
check_aligned(const char *path, const char *const *names, int n)
{
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(fid >= 0, "H5Fopen %s", path);
    if (fid < 0)
        return;
    for (int i = 0; i < n; i++) {
        haddr_t off = data_offset(fid, names[i]);
        CHECK(off != HADDR_UNDEF && off % ALIGN == 0, "%s: data at %llu, not a multiple of %d",
              names[i], (unsigned long long)off, ALIGN);
    }
    H5Fclose(fid);
}

/* Contiguous variables of 400 bytes, above the threshold of 100. */
static void
alignment(void)
{
    int ncid, d, v[3], th = -1, al = -1, data[N];
    static const char *const names[] = {"a", "b", "c"};
    for (int i = 0; i < N; i++)
        data[i] = i;
    OK(nc_set_alignment(100, ALIGN));
    OK(nc_get_alignment(&th, &al));
    CHECK(th == 100 && al == ALIGN, "nc_get_alignment: %d %d", th, al);
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", N, &d));
    for (int i = 0; i < 2; i++) {
        MUST(nc_def_var(ncid, names[i], NC_INT, 1, &d, &v[i]));
        MUST(nc_def_var_chunking(ncid, v[i], NC_CONTIGUOUS, NULL));
    }
    MUST(nc_enddef(ncid));
    for (int i = 0; i < 2; i++)
        OK(nc_put_var_int(ncid, v[i], data));
    OK(nc_close(ncid));
    check_aligned(PATH, names, 2);
    /* A file reopened for writing gets the setting too. */
    MUST(nc_open(PATH, NC_WRITE, &ncid));
    MUST(nc_redef(ncid));
    MUST(nc_def_var(ncid, "c", NC_INT, 1, &d, &v[2]));
    MUST(nc_def_var_chunking(ncid, v[2], NC_CONTIGUOUS, NULL));
    MUST(nc_enddef(ncid));
    OK(nc_put_var_int(ncid, v[2], data));
    OK(nc_close(ncid));
    check_aligned(PATH, names, 3);
    /* HDF5's own default again (threshold 1, alignment 1). */
    OK(nc_set_alignment(1, 1));
}

/* H5Fopen of the file netCDF holds, read-only, with the default access
 * properties; the dataset "v" (when given) reads 0..N-1. */
static void
h5_peek(const char *path, const char *var, const char *when)
{
    int buf[N];
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(fid >= 0, "H5Fopen while netCDF holds the file (%s)", when);
    if (fid < 0)
        return;
    if (var) {
        hid_t did = H5Dopen2(fid, var, H5P_DEFAULT);
        CHECK(did >= 0 && H5Dread(did, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 &&
              buf[0] == 0 && buf[N - 1] == N - 1, "H5Dread of %s (%s)", var, when);
        if (did >= 0)
            H5Dclose(did);
    }
    CHECK(H5Fclose(fid) >= 0, "H5Fclose (%s)", when);
}

static void
nc_read_check(int ncid, const char *when)
{
    int varid, buf[N];
    OK(nc_inq_varid(ncid, "v", &varid));
    OK(nc_get_var_int(ncid, varid, buf));
    CHECK(buf[0] == 0 && buf[N - 1] == N - 1, "nc_get_var (%s)", when);
}

static void
close_degree(void)
{
    int ncid, d, v, data[N];
    hid_t fid, sid, did;
    hsize_t dim = N;
    for (int i = 0; i < N; i++)
        data[i] = i;

    /* Right after nc_create, and in data mode. */
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    h5_peek(PATH, NULL, "after nc_create");
    MUST(nc_def_dim(ncid, "n", N, &d));
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    OK(nc_put_var_int(ncid, v, data));
    OK(nc_sync(ncid));
    h5_peek(PATH, "v", "after a write");
    OK(nc_close(ncid));

    /* nc_open(NC_WRITE). */
    MUST(nc_open(PATH, NC_WRITE, &ncid));
    h5_peek(PATH, "v", "after nc_open(NC_WRITE)");
    nc_read_check(ncid, "NC_WRITE open");
    OK(nc_close(ncid));

    /* Read-only: before and after the first data read, and HDF5 holding the
     * file first while netCDF reads. */
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    h5_peek(PATH, "v", "after nc_open(NC_NOWRITE)");
    nc_read_check(ncid, "read-only open");
    h5_peek(PATH, "v", "after the first data read");
    OK(nc_close(ncid));
    fid = H5Fopen(PATH, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(fid >= 0, "H5Fopen before nc_open");
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    nc_read_check(ncid, "HDF5 holding the file first");
    OK(nc_close(ncid));
    if (fid >= 0)
        H5Fclose(fid);

    /* A plain HDF5 file. */
    fid = H5Fcreate(PLAIN, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    MUST(fid >= 0 ? NC_NOERR : NC_EHDFERR);
    sid = H5Screate_simple(1, &dim, NULL);
    did = H5Dcreate2(fid, "v", H5T_NATIVE_INT, sid, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(did >= 0 && H5Dwrite(did, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0,
          "write the plain HDF5 file");
    H5Dclose(did);
    H5Sclose(sid);
    H5Fclose(fid);
    MUST(nc_open(PLAIN, NC_NOWRITE, &ncid));
    h5_peek(PLAIN, "v", "plain HDF5 file, after nc_open");
    nc_read_check(ncid, "plain HDF5 file");
    h5_peek(PLAIN, "v", "plain HDF5 file, after a read");
    OK(nc_close(ncid));
}

int
main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    alignment();
    close_degree();
    return nct_summary("tst_h5access");
}
