/* tst_h5read_strided.c: strided reads of netCDF-4 variables (hdf5data.c reads
 * the enclosing box and gathers, or lets HDF5 stride when the box would be
 * too wasteful) checked against values computed from the element index:
 * 1-D to 4-D, element sizes 1, 2, 8 and a 12-byte compound, chunked and
 * contiguous, converted and not, random starts/counts/strides. */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <netcdf.h>
#include "nctst.h"

#define FILE_NAME "tst_h5read_strided.nc"

typedef struct { int a; float b; int c; } cmp_t;

static unsigned long long rng = 88172645463325252ULL;
static size_t
rnd(size_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (size_t)(rng % n) : 0;
}

/* Value stored at linear index i of each variable. */
static double val(int v, size_t i) { return v == 0 ? (double)(signed char)(i % 251) : (double)(i % 30000) + v; }

int
main(void)
{
    const size_t shape[4] = {37, 23, 11, 6};
    int ncid, dims[4], varids[8], nv = 0;
    static const struct { nc_type t; int nd; int chunked; } vars[] = {
        {NC_BYTE, 1, 0}, {NC_SHORT, 2, 1}, {NC_DOUBLE, 3, 1}, {NC_INT, 4, 0},
        {NC_DOUBLE, 2, 0}, {NC_SHORT, 3, 0},
    };
    const int nvars = 6;
    nc_type ct;

    OK(nc_create(FILE_NAME, NC_NETCDF4 | NC_CLOBBER, &ncid));
    for (int d = 0; d < 4; d++) {
        char name[8];
        snprintf(name, sizeof(name), "d%d", d);
        OK(nc_def_dim(ncid, name, d == 0 ? NC_UNLIMITED : shape[d], &dims[d]));
    }
    OK(nc_def_compound(ncid, sizeof(cmp_t), "cmp_t", &ct));
    OK(nc_insert_compound(ncid, ct, "a", offsetof(cmp_t, a), NC_INT));
    OK(nc_insert_compound(ncid, ct, "b", offsetof(cmp_t, b), NC_FLOAT));
    OK(nc_insert_compound(ncid, ct, "c", offsetof(cmp_t, c), NC_INT));
    for (int v = 0; v < nvars; v++) {
        char name[8];
        int vd[4];
        snprintf(name, sizeof(name), "v%d", v);
        for (int d = 0; d < vars[v].nd; d++)
            vd[d] = dims[4 - vars[v].nd + d];
        /* v4 and v5 start at d0 (unlimited) */
        if (v >= 4)
            for (int d = 0; d < vars[v].nd; d++)
                vd[d] = dims[d];
        OK(nc_def_var(ncid, name, vars[v].t, vars[v].nd, vd, &varids[nv++]));
        if (vars[v].chunked) {
            size_t ch[4] = {5, 4, 3, 2};
            OK(nc_def_var_chunking(ncid, varids[v], NC_CHUNKED, ch));
        }
    }
    {
        int vd[2] = {dims[1], dims[2]};
        OK(nc_def_var(ncid, "cmp", ct, 2, vd, &varids[nv++]));
    }
    OK(nc_enddef(ncid));

    /* Write every variable whole. */
    for (int v = 0; v <= nvars; v++) {
        int ndims, vd[4];
        size_t n = 1, len[4], st[4] = {0, 0, 0, 0};
        OK(nc_inq_var(ncid, varids[v], NULL, NULL, &ndims, vd, NULL));
        for (int d = 0; d < ndims; d++) {
            len[d] = vd[d] == dims[0] ? shape[0] : shape[vd[d]];
            n *= len[d];
        }
        if (v == nvars) {
            cmp_t *c = malloc(n * sizeof(cmp_t));
            for (size_t i = 0; i < n; i++) {
                c[i].a = (int)i;
                c[i].b = (float)i / 2;
                c[i].c = -(int)i;
            }
            OK(nc_put_vara(ncid, varids[v], st, len, c));
            free(c);
        } else {
            double *d = malloc(n * sizeof(double));
            for (size_t i = 0; i < n; i++)
                d[i] = val(v, i);
            OK(nc_put_vara_double(ncid, varids[v], st, len, d));
            free(d);
        }
    }
    OK(nc_close(ncid));
    OK(nc_open(FILE_NAME, NC_NOWRITE, &ncid));

    for (int iter = 0; iter < 600; iter++) {
        int v = (int)rnd((size_t)nvars + 1), ndims, vd[4];
        size_t len[4], st[4], cnt[4], n = 1;
        ptrdiff_t sd[4];
        int bad = 0;
        OK(nc_inq_var(ncid, varids[v], NULL, NULL, &ndims, vd, NULL));
        for (int d = 0; d < ndims; d++) {
            len[d] = vd[d] == dims[0] ? shape[0] : shape[vd[d]];
            /* strides up to the length, so some reads exceed the waste limit */
            sd[d] = (ptrdiff_t)(1 + (iter % 7 == 0 ? rnd(len[d]) : rnd(5)));
            st[d] = rnd(len[d]);
            cnt[d] = 1 + rnd((len[d] - 1 - st[d]) / (size_t)sd[d] + 1);
            n *= cnt[d];
        }
        if (v == nvars) {
            cmp_t *c = calloc(n, sizeof(cmp_t));
            OK(nc_get_vars(ncid, varids[v], st, cnt, sd, c));
            for (size_t i = 0; i < n && !bad; i++) {
                size_t i0 = i / cnt[1], i1 = i % cnt[1];
                size_t lin = (st[0] + i0 * (size_t)sd[0]) * len[1] + st[1] + i1 * (size_t)sd[1];
                if (c[i].a != (int)lin || c[i].b != (float)lin / 2 || c[i].c != -(int)lin)
                    bad = 1;
            }
            CHECK(!bad, "compound strided read, iteration %d", iter);
            free(c);
            continue;
        }
        {
            double *d = calloc(n, sizeof(double));
            void *raw = calloc(n, 8);
            size_t esz;
            nc_type t;
            OK(nc_inq_vartype(ncid, varids[v], &t));
            OK(nc_inq_type(ncid, t, NULL, &esz));
            OK(nc_get_vars_double(ncid, varids[v], st, cnt, sd, d));
            OK(nc_get_vars(ncid, varids[v], st, cnt, sd, raw));
            for (size_t i = 0; i < n && !bad; i++) {
                size_t rem = i, lin = 0, idx[4];
                for (int k = ndims - 1; k >= 0; k--) {
                    idx[k] = rem % cnt[k];
                    rem /= cnt[k];
                }
                for (int k = 0; k < ndims; k++)
                    lin = lin * len[k] + st[k] + idx[k] * (size_t)sd[k];
                double want = val(v, lin), got;
                switch (t) {
                case NC_BYTE: got = ((signed char *)raw)[i]; break;
                case NC_SHORT: got = ((short *)raw)[i]; break;
                case NC_INT: got = ((int *)raw)[i]; break;
                default: got = ((double *)raw)[i]; break;
                }
                if (d[i] != want || got != want)
                    bad = 1;
            }
            CHECK(!bad, "var v%d strided read, iteration %d", v, iter);
            free(d);
            free(raw);
        }
    }
    OK(nc_close(ncid));
    return nct_summary("tst_h5read_strided");
}
