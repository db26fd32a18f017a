/* tst_par_vlen: variable-length values in a netCDF-4 file opened for
 * parallel I/O.  Rank 0 writes strings, a vlen of ints and a compound
 * holding a string with the serial library; then every rank opens the file
 * with nc_open_par and reads its own rows of each (collective and
 * independent access, strided), every value checked.  Writing such values
 * in parallel is NC_EINVAL (HDF5 cannot), and the file is unchanged. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "netcdf.h"
#include "netcdf_par.h"
#include "partest.h"

#define NR 8    /* rows */
#define NC 3    /* columns */

static int rank, nranks;

typedef struct {
    int id;
    char *name;
} rec_t;

static void
text_of(char *out, size_t n, int r, int c)
{
    snprintf(out, n, "row %d col %d%s", r, c, (r + c) % 3 == 0 ? " (longer text here)" : "");
}

static void
write_serial(const char *path)
{
    int ncid, dims[2], vs, vv, vc, tv, tc;
    char text[64];
    char *strs[NR * NC];
    nc_vlen_t vl[NR];
    rec_t recs[NR];
    ERR(nc_create(path, NC_CLOBBER | NC_NETCDF4, &ncid));
    ERR(nc_def_dim(ncid, "r", NR, &dims[0]));
    ERR(nc_def_dim(ncid, "c", NC, &dims[1]));
    ERR(nc_def_vlen(ncid, "ivl", NC_INT, &tv));
    ERR(nc_def_compound(ncid, sizeof(rec_t), "rec", &tc));
    ERR(nc_insert_compound(ncid, tc, "id", offsetof(rec_t, id), NC_INT));
    ERR(nc_insert_compound(ncid, tc, "name", offsetof(rec_t, name), NC_STRING));
    ERR(nc_def_var(ncid, "s", NC_STRING, 2, dims, &vs));
    ERR(nc_def_var(ncid, "v", tv, 1, dims, &vv));
    ERR(nc_def_var(ncid, "k", tc, 1, dims, &vc));
    ERR(nc_enddef(ncid));
    for (int r = 0; r < NR; r++) {
        for (int c = 0; c < NC; c++) {
            text_of(text, sizeof text, r, c);
            strs[r * NC + c] = strdup(text);
        }
        vl[r].len = (size_t)r + 1;
        vl[r].p = malloc(vl[r].len * sizeof(int));
        for (size_t i = 0; i < vl[r].len; i++)
            ((int *)vl[r].p)[i] = r * 100 + (int)i;
        recs[r].id = -r;
        text_of(text, sizeof text, r, -1);
        recs[r].name = strdup(text);
    }
    ERR(nc_put_var_string(ncid, vs, (const char **)strs));
    ERR(nc_put_var(ncid, vv, vl));
    ERR(nc_put_var(ncid, vc, recs));
    ERR(nc_close(ncid));
    for (int i = 0; i < NR * NC; i++)
        free(strs[i]);
    for (int r = 0; r < NR; r++) {
        free(vl[r].p);
        free(recs[r].name);
    }
}

/* Rows rank, rank + nranks, ... of every variable, in the given access. */
static int
read_rows(int ncid, int access)
{
    int vs, vv, vc, bad = 0;
    char text[64];
    ERR(nc_inq_varid(ncid, "s", &vs));
    ERR(nc_inq_varid(ncid, "v", &vv));
    ERR(nc_inq_varid(ncid, "k", &vc));
    ERR(nc_var_par_access(ncid, vs, access));
    ERR(nc_var_par_access(ncid, vv, access));
    ERR(nc_var_par_access(ncid, vc, access));
    for (int r = rank; r < NR; r += nranks) {
        size_t start[2] = {(size_t)r, 0}, count[2] = {1, NC};
        char *row[NC];
        nc_vlen_t vl;
        rec_t rec;
        ERR(nc_get_vara_string(ncid, vs, start, count, row));
        for (int c = 0; c < NC; c++) {
            text_of(text, sizeof text, r, c);
            if (row[c] == NULL || strcmp(row[c], text) != 0) {
                fprintf(stderr, "rank %d: s[%d][%d] is \"%s\"\n", rank, r, c, row[c] ? row[c] : "(null)");
                bad++;
            }
        }
        ERR(nc_free_string(NC, row));
        ERR(nc_get_vara(ncid, vv, start, count, &vl));
        if (vl.len != (size_t)r + 1) {
            bad++;
        } else {
            for (size_t i = 0; i < vl.len; i++)
                bad += ((int *)vl.p)[i] != r * 100 + (int)i;
        }
        ERR(nc_free_vlen(&vl));
        ERR(nc_get_vara(ncid, vc, start, count, &rec));
        text_of(text, sizeof text, r, -1);
        if (rec.id != -r || rec.name == NULL || strcmp(rec.name, text) != 0) {
            fprintf(stderr, "rank %d: k[%d] is {%d, \"%s\"}\n", rank, r, rec.id, rec.name ? rec.name : "(null)");
            bad++;
        }
        free(rec.name);
    }
    /* A strided column: rows 0, 2, 4, ... of column 1, on every rank. */
    {
        size_t start[2] = {0, 1}, count[2] = {NR / 2, 1};
        ptrdiff_t stride[2] = {2, 1};
        char *col[NR / 2];
        ERR(nc_get_vars_string(ncid, vs, start, count, stride, col));
        for (int i = 0; i < NR / 2; i++) {
            text_of(text, sizeof text, 2 * i, 1);
            if (strcmp(col[i], text) != 0)
                bad++;
        }
        ERR(nc_free_string(NR / 2, col));
    }
    return bad;
}

int
main(int argc, char **argv)
{
    const char *path = "tst_par_vlen.nc";
    int ncid, vs, bad = 0, allbad = 0, stat;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (rank == 0)
        write_serial(path);
    MPI_Barrier(MPI_COMM_WORLD);

    ERR(nc_open_par(path, NC_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    bad += read_rows(ncid, NC_COLLECTIVE);
    bad += read_rows(ncid, NC_INDEPENDENT);
    /* Writing variable-length values in parallel: refused, nothing changed. */
    {
        const char *one[1] = {"changed"};
        size_t start[2] = {0, 0}, count[2] = {1, 1};
        ERR(nc_inq_varid(ncid, "s", &vs));
        if ((stat = nc_put_vara_string(ncid, vs, start, count, one)) != NC_EINVAL) {
            fprintf(stderr, "rank %d: parallel string write gave %d, expected NC_EINVAL\n", rank, stat);
            bad++;
        }
    }
    ERR(nc_close(ncid));
    MPI_Barrier(MPI_COMM_WORLD);
    ERR(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    bad += read_rows(ncid, NC_INDEPENDENT);
    ERR(nc_close(ncid));

    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("tst_par_vlen: %d ranks, %d bad values\n", nranks, allbad);
        remove(path);
    }
    MPI_Finalize();
    return allbad != 0;
}
