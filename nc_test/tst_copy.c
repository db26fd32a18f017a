/* tst_copy.c: copy a classic file through the public API into a new file
 * of the same format, with the plain call sequence a writer would use
 * (dims, global attributes, variables with their attributes, nc_enddef,
 * data). run_interop.sh checks that the copy made by our library matches
 * the reference-written original byte for byte and under ncdump.
 * Usage: tst_copy IN OUT */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>

static int
copy_atts(int in, int out, int varid, int natts)
{
    int stat = NC_NOERR;
    for (int a = 0; a < natts && !stat; a++) {
        char name[NC_MAX_NAME + 1];
        if ((stat = nc_inq_attname(in, varid, a, name))) break;
        stat = nc_copy_att(in, varid, name, out, varid);
    }
    return stat;
}

static int
copy(const char *from, const char *to)
{
    int stat, in = -1, out = -1, fmt, ndims, nvars, natts, unlim;
    int cmode = NC_CLOBBER;

    if ((stat = nc_open(from, NC_NOWRITE, &in))) return stat;
    if ((stat = nc_inq_format(in, &fmt))) goto done;
    if (fmt == NC_FORMAT_64BIT_OFFSET) cmode |= NC_64BIT_OFFSET;
    else if (fmt == NC_FORMAT_64BIT_DATA) cmode |= NC_64BIT_DATA;
    else if (fmt != NC_FORMAT_CLASSIC) { stat = NC_ENOTNC; goto done; }
    if ((stat = nc_create(to, cmode, &out))) goto done;
    if ((stat = nc_inq(in, &ndims, &nvars, &natts, &unlim))) goto done;
    for (int d = 0; d < ndims; d++) {
        char name[NC_MAX_NAME + 1];
        size_t len;
        int id;
        if ((stat = nc_inq_dim(in, d, name, &len))) goto done;
        if ((stat = nc_def_dim(out, name, d == unlim ? NC_UNLIMITED : len, &id))) goto done;
    }
    if ((stat = copy_atts(in, out, NC_GLOBAL, natts))) goto done;
    for (int v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        int nd, dimids[NC_MAX_VAR_DIMS], na, id;
        if ((stat = nc_inq_var(in, v, name, &t, &nd, dimids, &na))) goto done;
        if ((stat = nc_def_var(out, name, t, nd, dimids, &id))) goto done;
        if ((stat = copy_atts(in, out, v, na))) goto done;
    }
    if ((stat = nc_enddef(out))) goto done;
    for (int v = 0; v < nvars; v++) {
        int nd, dimids[NC_MAX_VAR_DIMS];
        size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], n = 1;
        if ((stat = nc_inq_varndims(in, v, &nd))) goto done;
        if ((stat = nc_inq_vardimid(in, v, dimids))) goto done;
        for (int i = 0; i < nd; i++) {
            start[i] = 0;
            if ((stat = nc_inq_dimlen(in, dimids[i], &count[i]))) goto done;
            n *= count[i];
        }
        if (n == 0) continue;
        void *buf = malloc(n * 8);
        if (!buf) { stat = NC_ENOMEM; goto done; }
        stat = nc_get_vara(in, v, start, count, buf);
        if (!stat) stat = nc_put_vara(out, v, start, count, buf);
        free(buf);
        if (stat) goto done;
    }
done:
    if (out >= 0) {
        int s2 = nc_close(out);
        if (!stat) stat = s2;
    }
    if (in >= 0) nc_close(in);
    return stat;
}

int
main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
        return 2;
    }
    int stat = copy(argv[1], argv[2]);
    if (stat) {
        fprintf(stderr, "tst_copy: %s -> %s: %s\n", argv[1], argv[2], nc_strerror(stat));
        return 1;
    }
    return 0;
}
