/* tst_move.c: nc_enddef after a redef that grows the header or a section
 * moves existing data in large runs, and correctly for
 * every overlap.  The system-call count of the move comes from
 * /proc/self/io (syscr + syscw); the data are checked value by value. */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>

#define NV 20
#define NR 10000

static long long
syscalls(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    long long n = 0, x;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "syscr: %lld", &x) == 1 || sscanf(line, "syscw: %lld", &x) == 1)
            n += x;
    fclose(f);
    return n;
}

static int
value(int v, size_t r)
{
    return v * 1000003 + (int)r;
}

static void
make(const char *path, int cmode, int fixed)
{
    int ncid, d[2], v[NV], i, *buf = malloc(NR * sizeof *buf);
    size_t r, start[1] = {0}, count[1] = {NR};
    char name[16];
    if (buf == NULL) { CHECK(0, "no memory"); return; }
    MUST(nc_create(path, cmode | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    MUST(nc_def_dim(ncid, "x", 1000, &d[1]));
    for (i = 0; i < NV; i++) {
        snprintf(name, sizeof name, "v%d", i);
        MUST(nc_def_var(ncid, name, NC_INT, 1, d, &v[i]));
    }
    if (fixed) {
        int fv;
        MUST(nc_def_var(ncid, "f1", NC_INT, 1, &d[1], &fv));
        MUST(nc_def_var(ncid, "f2", NC_SHORT, 1, &d[1], &fv));
    }
    MUST(nc_enddef(ncid));
    for (i = 0; i < NV; i++) {
        for (r = 0; r < NR; r++)
            buf[r] = value(i, r);
        OK(nc_put_vara_int(ncid, v[i], start, count, buf));
    }
    if (fixed) {
        for (r = 0; r < 1000; r++)
            buf[r] = value(99, r);
        OK(nc_put_var_int(ncid, NV, buf));
        for (r = 0; r < 1000; r++)
            buf[r] = (int)r;
        OK(nc_put_var_int(ncid, NV + 1, buf));
    }
    OK(nc_close(ncid));
    free(buf);
}

static void
verify(const char *path, const char *what, int fixed)
{
    int ncid, i, *buf = malloc(NR * sizeof *buf), bad = 0, f1, f2;
    size_t r, start[1] = {0}, count[1] = {NR};
    if (buf == NULL) { CHECK(0, "no memory"); return; }
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    for (i = 0; i < NV; i++) {
        OK(nc_get_vara_int(ncid, i, start, count, buf));
        for (r = 0; r < NR; r++)
            bad += buf[r] != value(i, r);
    }
    if (fixed) {
        OK(nc_inq_varid(ncid, "f1", &f1));
        OK(nc_inq_varid(ncid, "f2", &f2));
        OK(nc_get_var_int(ncid, f1, buf));
        for (r = 0; r < 1000; r++)
            bad += buf[r] != value(99, r);
        OK(nc_get_var_int(ncid, f2, buf));
        for (r = 0; r < 1000; r++)
            bad += buf[r] != (int)r;
    }
    OK(nc_close(ncid));
    CHECK(bad == 0, "%s: %d values wrong after the move", what, bad);
    free(buf);
}

/* kind 0: header grows (big attribute); 1: a record var is added (records
 * grow); 2: a fixed var is added in front of the records; 3: small header
 * growth (overlapping move by a few bytes). */
static void
redef_case(int cmode, int kind, int fixed, long long maxcalls)
{
    const char *path = "tst_move.nc";
    int ncid, d, v;
    long long before, calls;
    char *att = calloc(1, 70000);
    char what[96];
    snprintf(what, sizeof what, "cmode %#x kind %d fixed %d", cmode, kind, fixed);
    make(path, cmode, fixed);
    MUST(nc_open(path, NC_WRITE, &ncid));
    MUST(nc_redef(ncid));
    if (kind == 0 && att) {
        memset(att, 'a', 69999);
        OK(nc_put_att_text(ncid, NC_GLOBAL, "big", 69999, att));
    } else if (kind == 1) {
        OK(nc_inq_unlimdim(ncid, &d));
        OK(nc_def_var(ncid, "new", NC_DOUBLE, 1, &d, &v));
    } else if (kind == 2) {
        OK(nc_inq_dimid(ncid, "x", &d));
        OK(nc_def_var(ncid, "newfix", NC_DOUBLE, 1, &d, &v));
    } else {
        OK(nc_put_att_text(ncid, NC_GLOBAL, "s", 3, "abc"));
    }
    before = syscalls();
    OK(nc_enddef(ncid));
    calls = syscalls() - before;
    if (kind == 1) {
        double *dv = malloc(NR * sizeof *dv);
        size_t r, st[1] = {0}, ct[1] = {NR};
        int bad = 0;
        if (dv && nc_get_vara_double(ncid, v, st, ct, dv) == NC_NOERR)
            for (r = 0; r < NR; r++)
                bad += dv[r] != NC_FILL_DOUBLE;
        CHECK(dv && bad == 0, "%s: %d fill values of the new variable wrong", what, bad);
        free(dv);
    }
    OK(nc_close(ncid));
    verify(path, what, fixed);
    if (before >= 0 && maxcalls > 0) {
        printf("%s: %lld read/write calls in nc_enddef\n", what, calls);
        CHECK(calls <= maxcalls, "%s: nc_enddef made %lld read/write calls, want <= %lld",
              what, calls, maxcalls);
    }
    free(att);
}

int
main(void)
{
    /* Records: 20 vars x 10,000 records x 4 bytes = 800 KB. Before: one
     * read and one write per record per variable (400,000 calls). */
    redef_case(0, 0, 0, 200);
    redef_case(NC_64BIT_OFFSET, 0, 1, 200);
    redef_case(NC_64BIT_DATA, 3, 1, 200);
    redef_case(0, 2, 1, 200);
    /* A new record variable changes the record size: records move in
     * batches and the new variable is filled in batches (before: a read
     * and a write per record per variable, plus a write per record). */
    redef_case(0, 1, 0, 200);
    redef_case(NC_64BIT_DATA, 1, 1, 200);
    return nct_summary("tst_move");
}
