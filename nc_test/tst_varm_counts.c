/* tst_varm_counts.c: regression test for nc_get_varm/nc_put_varm with
 * absurd counts (found by fuzz/fuzz_ops).
 *
 * A mapped access that is not the natural layout moves its data row by row
 * through a buffer sized count[last] * element size.  That product was
 * taken before the count was checked: a count of 2^40 asked for terabytes,
 * and 2^61 + 1 doubles wrapped to 8 bytes, after which the rows were copied
 * past the buffer (heap overflow in nc_put_varm).  The reference returns
 * NC_EEDGE (a start beyond the dimension: NC_EINVALCOORDS).  Every format,
 * a fixed and a record variable; a valid transposed varm still works.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "netcdf.h"
#include "nctst.h"

static void
one(const nct_format *f)
{
    const char *path = "tst_varm_counts.nc";
    int ncid, d[3], v, vr;
    double buf[64] = {0}, in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {0};
    const size_t huge[] = {(size_t)1 << 40, SIZE_MAX, ((size_t)1 << 61) + 1, 4};
    size_t start[2] = {0, 0}, count[2];
    ptrdiff_t stride[2] = {1, 1}, imap[2] = {1, 2};     /* transposed: not natural */
    MUST(nc_create(path, NC_CLOBBER | f->cmode, &ncid));
    MUST(nc_def_dim(ncid, "x", 2, &d[0]));
    MUST(nc_def_dim(ncid, "y", 3, &d[1]));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[2]));
    MUST(nc_def_var(ncid, "v", NC_DOUBLE, 2, d, &v));
    {
        int rd[2] = {d[2], d[1]};
        MUST(nc_def_var(ncid, "r", NC_DOUBLE, 2, rd, &vr));
    }
    MUST(nc_enddef(ncid));
    for (int k = 0; k < 4; k++) {
        count[0] = 2;
        count[1] = huge[k];
        EXPECT(nc_get_varm_double(ncid, v, start, count, stride, imap, buf), NC_EEDGE);
        EXPECT(nc_put_varm_double(ncid, v, start, count, stride, imap, buf), NC_EEDGE);
        EXPECT(nc_put_varm_double(ncid, vr, start, count, stride, imap, buf), NC_EEDGE);
    }
    /* A start beyond the last dimension comes first. */
    start[1] = 4;
    count[1] = huge[0];
    EXPECT(nc_get_varm_double(ncid, v, start, count, stride, imap, buf), NC_EINVALCOORDS);
    /* The valid transposed access still works. */
    start[1] = 0;
    count[0] = 2;
    count[1] = 3;
    OK(nc_put_varm_double(ncid, v, start, count, stride, imap, in));
    OK(nc_get_varm_double(ncid, v, start, count, stride, imap, out));
    CHECK(memcmp(in, out, sizeof in) == 0, "%s: transposed varm did not read back", f->name);
    OK(nc_close(ncid));
    remove(path);
}

int
main(void)
{
    for (int i = 0; i < NCT_NFORMATS4; i++)
        one(&nct_formats4[i]);
    return nct_summary("tst_varm_counts");
}
