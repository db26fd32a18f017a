/* tst_fill_ranges.c: regression test for deferred fill losing data.
 *
 * In fill mode the classic layer does not fill a fixed variable up front;
 * it records the ranges written and fills only the gaps.  After 64 ranges
 * it filled the gaps early, but before recording the range just written,
 * so that range was overwritten with fill values.  Here many scattered
 * slabs are written to a fixed variable in fill mode (with and without a
 * _FillValue, every classic format), and every element must read back as
 * written or as the fill value -- in the same process, after nc_sync, and
 * after reopening.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "nctst.h"

#define N 4096        /* elements of the variable */
#define NSLABS 300    /* scattered writes: well past the 64-range threshold */

/* Deterministic pseudo-random numbers (xorshift). */
static unsigned
next(unsigned *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void
check_all(int ncid, int varid, const int *model, const char *when, int cmode)
{
    int *got = malloc(N * sizeof(int));
    size_t start = 0, count = N;
    int bad = 0;
    OK(nc_get_vara_int(ncid, varid, &start, &count, got));
    for (int i = 0; i < N; i++)
        if (got[i] != model[i])
            bad++;
    CHECK(bad == 0, "cmode %#x %s: %d of %d elements wrong", cmode, when, bad, N);
    free(got);
}

static void
run(int cmode, int explicit_fill)
{
    const char *path = "tst_fill_ranges.nc";
    int ncid, dimid, varid, fill = explicit_fill ? -7 : NC_FILL_INT;
    int *model = malloc(N * sizeof(int));
    unsigned seed = 12345u + (unsigned)cmode + (unsigned)explicit_fill;

    for (int i = 0; i < N; i++)
        model[i] = fill;
    MUST(nc_create(path, cmode | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "x", N, &dimid));
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    if (explicit_fill)
        OK(nc_put_att_int(ncid, varid, _FillValue, NC_INT, 1, &fill));
    MUST(nc_enddef(ncid));
    for (int s = 0; s < NSLABS; s++) {
        size_t start = next(&seed) % N, count = 1 + next(&seed) % 7;
        int vals[8];
        if (start + count > N)
            count = N - start;
        for (size_t k = 0; k < count; k++) {
            vals[k] = s * 10 + (int)k;
            model[start + k] = vals[k];
        }
        OK(nc_put_vara_int(ncid, varid, &start, &count, vals));
    }
    check_all(ncid, varid, model, "before sync", cmode);
    OK(nc_sync(ncid));
    check_all(ncid, varid, model, "after sync", cmode);
    OK(nc_close(ncid));
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    check_all(ncid, 0, model, "after reopen", cmode);
    OK(nc_close(ncid));
    remove(path);
    free(model);
}

int
main(void)
{
    const int cmodes[] = {0, NC_64BIT_OFFSET, NC_64BIT_DATA, NC_NETCDF4 | NC_CLASSIC_MODEL};
    for (int f = 0; f < NCT_NFORMATS4; f++) {
        run(cmodes[f], 0);
        run(cmodes[f], 1);
    }
    return nct_summary("tst_fill_ranges");
}
