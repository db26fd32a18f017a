/* tst_pnc_bytes.c: one define/put sequence, written serially (nc_create,
 * the classic layer) or in parallel (nc_create_par, PnetCDF, each rank its
 * share of every variable), so that run_bytes.sh can compare the files
 * byte for byte.
 *
 * usage: tst_pnc_bytes serial|par cdf1|cdf2|cdf5 fill|nofill indep|coll OUT
 *
 * The layout has what makes classic files differ when writers disagree:
 * padded fixed variables (3 shorts), padded record variables (3 bytes a
 * record), two record variables, records written past the first one, a
 * redef that adds a variable and an attribute after data were written. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_par.h>

#define NX 24
#define NY 3
#define NREC 4

#define CK(call)                                                                         \
    do {                                                                                 \
        int e_ = (call);                                                                 \
        if (e_) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(e_)); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                \
        }                                                                                \
    } while (0)

int
main(int argc, char **argv)
{
    int rank = 0, nranks = 1, par, ncid, cmode, dx, dy, dt, va, vodd, vr1, vr2, vlate, old;
    int dims[2];
    MPI_Init(&argc, &argv);
    if (argc != 6) {
        fprintf(stderr, "usage: %s serial|par cdf1|cdf2|cdf5 fill|nofill indep|coll OUT\n",
                argv[0]);
        return 2;
    }
    par = strcmp(argv[1], "par") == 0;
    cmode = strcmp(argv[2], "cdf2") == 0 ? NC_64BIT_OFFSET
          : strcmp(argv[2], "cdf5") == 0 ? NC_64BIT_DATA : 0;
    if (par) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &nranks);
        CK(nc_create_par(argv[5], cmode | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    } else {
        CK(nc_create(argv[5], cmode | NC_CLOBBER, &ncid));
    }
    CK(nc_set_fill(ncid, strcmp(argv[3], "fill") == 0 ? NC_FILL : NC_NOFILL, &old));
    CK(nc_def_dim(ncid, "time", NC_UNLIMITED, &dt));
    CK(nc_def_dim(ncid, "x", NX, &dx));
    CK(nc_def_dim(ncid, "y", NY, &dy));
    CK(nc_put_att_text(ncid, NC_GLOBAL, "title", 7, "byte eq"));
    CK(nc_def_var(ncid, "a", NC_FLOAT, 1, &dx, &va));
    CK(nc_def_var(ncid, "odd", NC_SHORT, 1, &dy, &vodd));
    dims[0] = dt;
    dims[1] = dy;
    CK(nc_def_var(ncid, "r1", NC_BYTE, 2, dims, &vr1));
    dims[1] = dx;
    CK(nc_def_var(ncid, "r2", NC_INT, 2, dims, &vr2));
    {
        double sc = 0.5;
        CK(nc_put_att_double(ncid, va, "scale", NC_DOUBLE, 1, &sc));
    }
    if (par && strcmp(argv[4], "coll") == 0)
        CK(nc_var_par_access(ncid, NC_GLOBAL, NC_COLLECTIVE));
    CK(nc_enddef(ncid));

    /* this rank's share of x, and whether it writes the small variables */
    int share = NX / nranks, x0 = rank * share, small = rank == 0;
    size_t st[2], ct[2];
    float a[NX];
    int r2[NX];
    short odd[NY] = {-1, 2, -3};
    signed char r1[NY];
    for (int i = 0; i < NX; i++) a[i] = (float)i * 1.25f;
    st[0] = (size_t)x0; ct[0] = (size_t)share;
    CK(nc_put_vara_float(ncid, va, st, ct, a + x0));
    st[0] = 0; ct[0] = small ? NY : 0;
    CK(nc_put_vara_short(ncid, vodd, st, ct, odd));
    for (int r = 0; r < NREC; r++) {
        for (int i = 0; i < NX; i++) r2[i] = r * 100 + i;
        for (int i = 0; i < NY; i++) r1[i] = (signed char)(r * 10 + i);
        st[0] = (size_t)r; st[1] = (size_t)x0; ct[0] = 1; ct[1] = (size_t)share;
        CK(nc_put_vara_int(ncid, vr2, st, ct, r2 + x0));
        st[1] = 0; ct[1] = small ? NY : 0;
        CK(nc_put_vara_schar(ncid, vr1, st, ct, r1));
    }
    /* redef: a new fixed variable and attribute move the data */
    CK(nc_redef(ncid));
    CK(nc_put_att_text(ncid, NC_GLOBAL, "history", 21, "a redef after writing"));
    CK(nc_def_var(ncid, "late", NC_DOUBLE, 1, &dy, &vlate));
    CK(nc_enddef(ncid));
    {
        double late[NY] = {1.5, 2.5, 3.5};
        st[0] = 0; ct[0] = small ? NY : 0;
        CK(nc_put_vara_double(ncid, vlate, st, ct, late));
    }
    CK(nc_close(ncid));
    MPI_Finalize();
    return 0;
}
