/* tst_zcore_s3count.c: requests an open costs on S3.  A store of 100
 * variables is written with consolidated metadata, then opened read-only:
 * the open must cost at most 3 requests (the zarr.json probe and
 * /.zmetadata), whatever the number of variables; without consolidated
 * metadata the count grows with the variables (20 here; reported, not
 * bounded).
 * White-box: the request counter of the store (zmap.h) through the model.
 * Usage: tst_zcore_s3count URLPREFIX   (http://127.0.0.1:PORT/bucket) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include "nctst.h"
#include "zinternal.h"

static unsigned long long
requests(int ncid)
{
    NC4_file *f;
    if (nc4_find_grp(ncid, &f, NULL) || !ncz_file(f) || !ncz_file(f)->map)
        return 0;
    return (unsigned long long)ncz_file(f)->map->ops->nrequests(ncz_file(f)->map);
}

static void
make(const char *url, int nv)
{
    int ncid, d, v;
    char name[32];
    MUST(nc_create(url, NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "x", 10, &d));
    for (int i = 0; i < nv; i++) {
        snprintf(name, sizeof name, "var%03d", i);
        MUST(nc_def_var(ncid, name, NC_FLOAT, 1, &d, &v));
        OK(nc_put_att_text(ncid, v, "units", 1, "m"));
    }
    OK(nc_close(ncid));
}

int
main(int argc, char **argv)
{
    char url[2048], url2[2048];
    int ncid, nvars = 0;
    unsigned long long n1, n2;
    if (argc < 2) {
        fprintf(stderr, "usage: %s URLPREFIX\n", argv[0]);
        return 2;
    }
    snprintf(url, sizeof url, "%s/cons.zarr#mode=nczarr,s3,consolidated", argv[1]);
    make(url, 100);
    snprintf(url2, sizeof url2, "%s/cons.zarr#mode=nczarr,s3", argv[1]);
    OK(nc_open(url2, NC_NOWRITE, &ncid));
    n1 = requests(ncid);
    OK(nc_inq_nvars(ncid, &nvars));
    CHECK(nvars == 100, "variables %d", nvars);
    CHECK(n1 >= 1 && n1 <= 3, "open of a consolidated 100-variable store: %llu requests", n1);
    OK(nc_close(ncid));

    snprintf(url, sizeof url, "%s/plain.zarr#mode=nczarr,s3", argv[1]);
    make(url, 20);
    OK(nc_open(url, NC_NOWRITE, &ncid));
    n2 = requests(ncid);
    OK(nc_close(ncid));
    printf("open requests: consolidated %llu (100 variables), not consolidated %llu (20 variables)\n", n1, n2);
    return nct_summary("tst_zcore_s3count");
}
