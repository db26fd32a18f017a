/* tst_chunks_reopen4.c: default chunk sizes of record variables defined in
 * a reopened file.  As upstream, a record dimension whose coordinate
 * variable was read from the file counts with its current length when the
 * overhang of the last chunk is spread (1000 records: a 1-D float variable
 * gets 1000, not 1024); one without a coordinate variable, or in the
 * session that wrote the records, counts as 0.  Also passes against the
 * reference. */
#include "nctst.h"

#define PATH "tst_chunks_reopen4.nc"
#define NREC 1000

static void
chunks(int ncid, const char *name, size_t c0, size_t c1)
{
    int v, nd = 0, storage = -1;
    size_t cs[2] = {0, 0};
    MUST(nc_inq_varid(ncid, name, &v));
    OK(nc_inq_varndims(ncid, v, &nd));
    OK(nc_inq_var_chunking(ncid, v, &storage, cs));
    CHECK(storage == NC_CHUNKED && cs[0] == c0 && (nd < 2 || cs[1] == c1),
          "%s: storage %d, chunks %zu %zu, expected %zu %zu", name, storage, cs[0], cs[1], c0,
          c1);
}

static void
reopened(void)
{
    int ncid, t, t2, x, v, d[2];
    static float data[NREC * 7];
    static double times[NREC];
    size_t start[2] = {0, 0}, count[2] = {NREC, 7};

    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "time", NC_UNLIMITED, &t));
    MUST(nc_def_dim(ncid, "t2", NC_UNLIMITED, &t2));
    MUST(nc_def_dim(ncid, "x", 7, &x));
    MUST(nc_def_var(ncid, "time", NC_DOUBLE, 1, &t, &v));
    d[0] = t2;
    d[1] = x;
    MUST(nc_def_var(ncid, "u", NC_FLOAT, 2, d, &v));
    OK(nc_put_vara_double(ncid, 0, start, count, times));
    OK(nc_put_vara_float(ncid, 1, start, count, data));
    /* The same session: records do not count. */
    OK(nc_redef(ncid));
    MUST(nc_def_var(ncid, "s0", NC_FLOAT, 1, &t, &v));
    OK(nc_enddef(ncid));
    chunks(ncid, "s0", 1024, 0);
    OK(nc_close(ncid));

    MUST(nc_open(PATH, NC_WRITE, &ncid));
    OK(nc_redef(ncid));
    MUST(nc_def_var(ncid, "s", NC_FLOAT, 1, &t, &v));
    MUST(nc_def_var(ncid, "s2", NC_FLOAT, 1, &t2, &v));
    d[0] = t;
    d[1] = t2;
    MUST(nc_def_var(ncid, "tt", NC_FLOAT, 2, d, &v));
    d[0] = x;
    d[1] = t;
    MUST(nc_def_var(ncid, "xt", NC_FLOAT, 2, d, &v));
    OK(nc_enddef(ncid));
    chunks(ncid, "s", 1000, 0);
    chunks(ncid, "s2", 1024, 0);
    chunks(ncid, "tt", 1000, 2048);
    chunks(ncid, "xt", 7, 1);
    OK(nc_close(ncid));
    /* As stored. */
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    chunks(ncid, "s", 1000, 0);
    chunks(ncid, "tt", 1000, 2048);
    OK(nc_close(ncid));
}

int
main(void)
{
    reopened();
    return nct_summary("tst_chunks_reopen4");
}
