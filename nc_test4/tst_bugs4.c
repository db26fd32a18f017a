/* tst_bugs4.c: differences from the reference found by the netCDF-4 tests
 * and not fixed yet, one function each, so that `ctest -R tst_bugs4` (with
 * NCT_NC4_PENDING=ON) lists what is open.  Every check passes on the
 * reference (ref_tst_bugs4).  When one is fixed, move it to the test of its
 * topic. */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>
#include <netcdf_mem.h>

#define PATH "tst_bugs4.nc"

/* Quantize settings are read back after reopen. */
static void
quantize_reopen(void)
{
    int ncid, d, v, q = -1, nsd = -1;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 4, &d));
    MUST(nc_def_var(ncid, "f", NC_FLOAT, 1, &d, &v));
    OK(nc_def_var_quantize(ncid, v, NC_QUANTIZE_GRANULARBR, 3));
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_var_quantize(ncid, 0, &q, &nsd));
    CHECK(q == NC_QUANTIZE_GRANULARBR && nsd == 3, "quantize after reopen: %d %d", q, nsd);
    OK(nc_close(ncid));
}

/* nc_close_memio after nc_open_memio with NC_MEMIO_LOCKED hands back the
 * caller's own buffer (the reference does); ours returns a copy. */
static void
locked_memio(void)
{
    int ncid, m;
    NC_memio mio = {0, NULL, 0};
    MUST(nc_create_mem("mem", NC_NETCDF4, 0, &ncid));
    MUST(nc_def_dim(ncid, "x", 2, NULL));
    MUST(nc_close_memio(ncid, &mio));
    NC_memio lk = {mio.size, mio.memory, NC_MEMIO_LOCKED};
    MUST(nc_open_memio("m4", NC_NOWRITE, &lk, &m));
    NC_memio lout = {0, NULL, 0};
    OK(nc_close_memio(m, &lout));
    CHECK(lout.memory == mio.memory && lout.size == mio.size, "locked buffer handed back");
    if (lout.memory != mio.memory) free(lout.memory);
    free(mio.memory);
}

/* NC_SHARE: records a writer appends and syncs are seen by a reader after
 * its own nc_sync (the reference passes nc_test/tst_modes test_share on
 * NC4-classic files; ours shows numrecs 0). */
static void
share_numrecs(void)
{
    int w, r, d[2], v;
    size_t len = 99;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLASSIC_MODEL | NC_SHARE | NC_CLOBBER, &w));
    MUST(nc_def_dim(w, "t", NC_UNLIMITED, &d[0]));
    MUST(nc_def_dim(w, "x", 2, &d[1]));
    MUST(nc_def_var(w, "v", NC_INT, 2, d, &v));
    MUST(nc_enddef(w));
    MUST(nc_sync(w));
    MUST(nc_open(PATH, NC_NOWRITE | NC_SHARE, &r));
    int vals[2] = {1, 2}, back[2] = {0, 0};
    OK(nc_put_vara_int(w, v, (size_t[]){0, 0}, (size_t[]){1, 2}, vals));
    OK(nc_sync(w));
    OK(nc_sync(r));
    OK(nc_inq_dimlen(r, 0, &len));
    CHECK(len == 1, "reader sees numrecs %zu", len);
    OK(nc_get_vara_int(r, 0, (size_t[]){0, 0}, (size_t[]){1, 2}, back));
    CHECK(back[0] == 1 && back[1] == 2, "reader values %d %d", back[0], back[1]);
    nc_close(r);
    nc_close(w);
}

/* Two unlimited dimensions, the first renamed in data mode: after reopen
 * the reference lists the renamed one last (its HDF5 dataset is relinked):
 * nc_inq_unlimdims gives 1,0 and nc_inq's unlimdimid 1 (the listing
 * follows the order the datasets are met, the ids _Netcdf4Dimid). */
static void
unlimdims_after_rename(void)
{
    int ncid, d0, d1, u = -1, n = -1, ids[2] = {-1, -1};
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "u1", NC_UNLIMITED, &d0));
    MUST(nc_def_dim(ncid, "u2", NC_UNLIMITED, &d1));
    MUST(nc_enddef(ncid));
    OK(nc_rename_dim(ncid, d0, "u1_longer_name"));
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq(ncid, NULL, NULL, NULL, &u));
    OK(nc_inq_unlimdims(ncid, &n, ids));
    CHECK(u == 1 && n == 2 && ids[0] == 1 && ids[1] == 0, "unlimdim %d, unlimdims %d: %d,%d", u, n, ids[0], ids[1]);
    nc_close(ncid);
}

/* NC_DISKLESS together with NC_INMEMORY (nc_create_mem, or nc_open with
 * both): the reference says NC_EDISKLESS, ours NC_EINVAL (libdispatch's
 * mode check). */
static void
diskless_inmemory(void)
{
    int ncid;
    EXPECT(nc_create_mem("m", NC_NETCDF4 | NC_DISKLESS, 0, &ncid), NC_EDISKLESS);
    EXPECT(nc_create_mem("m", NC_DISKLESS, 0, &ncid), NC_EDISKLESS);
}

int
main(void)
{
    quantize_reopen();
    locked_memio();
    share_numrecs();
    unlimdims_after_rename();
    diskless_inmemory();
    return nct_summary("tst_bugs4");
}
