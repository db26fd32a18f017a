/* dcopy.c: nc_copy_att and nc_copy_var: copy an attribute, or a variable's
 * definition, attributes and data, from one open file to another through
 * the public API only (the two files may be of different formats).
 *
 * A user-defined type cannot travel by id: each file numbers its own types.
 * The copy uses the type of the output file that is structurally equal to
 * the input's (same class, name and size; same fields, members or base
 * type), searched the way upstream searches: the target group, then its
 * ancestors, then the whole tree breadth first from the root.  None equal:
 * NC_EBADTYPE.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "ncapi.h"
#include "ncvario.h"

/* ---- equal types across files ---------------------------------------------------- */

static int types_equal(int nc1, nc_type t1, int nc2, nc_type t2, int depth, int *eq);

static int
fields_equal(int nc1, nc_type t1, int nc2, nc_type t2, size_t n, int depth, int *eq)
{
    for (size_t i = 0; i < n; i++) {
        nc_type f1, f2;
        int nd1, nd2, dims1[NC_MAX_VAR_DIMS], dims2[NC_MAX_VAR_DIMS], stat;
        char n1[NC_MAX_NAME + 1], n2[NC_MAX_NAME + 1];
        size_t o1, o2;
        if ((stat = nc_inq_compound_field(nc1, t1, (int)i, n1, &o1, &f1, &nd1, dims1)) ||
            (stat = nc_inq_compound_field(nc2, t2, (int)i, n2, &o2, &f2, &nd2, dims2)))
            return stat;
        if (strcmp(n1, n2) != 0 || o1 != o2 || nd1 != nd2 ||
            memcmp(dims1, dims2, (size_t)nd1 * sizeof(int)) != 0)
            return NC_NOERR;
        if ((stat = types_equal(nc1, f1, nc2, f2, depth + 1, eq)) || !*eq)
            return stat;
    }
    *eq = 1;
    return NC_NOERR;
}

static int
members_equal(int nc1, nc_type t1, int nc2, nc_type t2, size_t n, int *eq)
{
    long long v1, v2;  /* enum values are integers of at most 8 bytes */
    for (size_t i = 0; i < n; i++) {
        char n1[NC_MAX_NAME + 1], n2[NC_MAX_NAME + 1];
        int stat;
        v1 = v2 = 0;
        if ((stat = nc_inq_enum_member(nc1, t1, (int)i, n1, &v1)) ||
            (stat = nc_inq_enum_member(nc2, t2, (int)i, n2, &v2)))
            return stat;
        if (strcmp(n1, n2) != 0 || v1 != v2)
            return NC_NOERR;
    }
    *eq = 1;
    return NC_NOERR;
}

static int
types_equal(int nc1, nc_type t1, int nc2, nc_type t2, int depth, int *eq)
{
    char n1[NC_MAX_NAME + 1], n2[NC_MAX_NAME + 1];
    size_t s1, s2, k1, k2;
    nc_type b1, b2;
    int c1, c2, stat;

    *eq = 0;
    if (t1 <= NC_MAX_ATOMIC_TYPE || t2 <= NC_MAX_ATOMIC_TYPE) {
        *eq = (t1 == t2);
        return NC_NOERR;
    }
    if (depth > 64)
        return NC_EBADTYPE;  /* types nest finitely; a cycle means a broken file */
    if ((stat = nc_inq_user_type(nc1, t1, n1, &s1, &b1, &k1, &c1)) ||
        (stat = nc_inq_user_type(nc2, t2, n2, &s2, &b2, &k2, &c2)))
        return stat;
    if (c1 != c2 || s1 != s2 || strcmp(n1, n2) != 0)
        return NC_NOERR;
    switch (c1) {
    case NC_OPAQUE:
        *eq = 1;
        return NC_NOERR;
    case NC_VLEN:
        return types_equal(nc1, b1, nc2, b2, depth + 1, eq);
    case NC_ENUM:
        if (b1 != b2 || k1 != k2)
            return NC_NOERR;
        return members_equal(nc1, t1, nc2, t2, k1, eq);
    case NC_COMPOUND:
        if (k1 != k2)
            return NC_NOERR;
        return fields_equal(nc1, t1, nc2, t2, k1, depth, eq);
    default:
        return NC_EBADTYPE;
    }
}

/* The first type of group grp equal to (ncin, tin); *found 0 if none. */
static int
search_group(int ncin, nc_type tin, int grp, nc_type *found)
{
    int n = 0, stat, *ids = NULL;

    *found = NC_NAT;
    if ((stat = nc_inq_typeids(grp, &n, NULL)) || n == 0)
        return stat;
    if ((ids = malloc((size_t)n * sizeof *ids)) == NULL)
        return NC_ENOMEM;
    if ((stat = nc_inq_typeids(grp, &n, ids)) == NC_NOERR) {
        for (int i = 0; i < n; i++) {
            int eq = 0;
            if ((stat = types_equal(ncin, tin, grp, ids[i], 0, &eq)))
                break;
            if (eq) {
                *found = ids[i];
                break;
            }
        }
    }
    free(ids);
    return stat;
}

static int
search_tree(int ncin, nc_type tin, int root, nc_type *found)
{
    size_t head = 0, tail = 0, cap = 16;
    int *queue = malloc(cap * sizeof *queue), stat = NC_NOERR;

    if (queue == NULL)
        return NC_ENOMEM;
    queue[tail++] = root;
    *found = NC_NAT;
    while (head < tail) {
        int g = queue[head++], n = 0;
        if ((stat = search_group(ncin, tin, g, found)) || *found != NC_NAT)
            break;
        if ((stat = nc_inq_grps(g, &n, NULL)))
            break;
        if (tail + (size_t)n > cap) {
            size_t ncap = (tail + (size_t)n) * 2;
            int *q = realloc(queue, ncap * sizeof *q);
            if (q == NULL) { stat = NC_ENOMEM; break; }
            queue = q;
            cap = ncap;
        }
        if ((stat = nc_inq_grps(g, &n, queue + tail)))
            break;
        tail += (size_t)n;
    }
    free(queue);
    return stat;
}

/* The type of the output file to use for values of type tin of ncin. */
static int
equal_type(int ncin, nc_type tin, int ncout, nc_type *tout)
{
    int grp = ncout, parent, stat;

    if (tin <= NC_NAT)
        return NC_EBADTYPE;
    if (tin <= NC_MAX_ATOMIC_TYPE) {
        *tout = tin;
        return NC_NOERR;
    }
    for (;;) {
        if ((stat = search_group(ncin, tin, grp, tout)) || *tout != NC_NAT)
            return stat;
        stat = nc_inq_grp_parent(grp, &parent);
        if (stat == NC_ENOGRP)
            break;  /* grp is the root */
        if (stat)
            return stat;
        grp = parent;
    }
    if ((stat = search_tree(ncin, tin, grp, tout)))
        return stat;
    return *tout == NC_NAT ? NC_EBADTYPE : NC_NOERR;
}

/* ---- nc_copy_att ------------------------------------------------------------------ */

int
nc_copy_att(int ncid_in, int varid_in, const char *name, int ncid_out, int varid_out)
{
    nc_type xtype, xout;
    size_t len, size;
    void *buf = NULL;
    int stat, format;

    /* As upstream: the target file first; copying onto itself is a no-op. */
    if ((stat = nc_inq_format(ncid_out, &format)))
        return stat;
    if (ncid_in == ncid_out && varid_in == varid_out)
        return NC_NOERR;
    if ((stat = nc_inq_att(ncid_in, varid_in, name, &xtype, &len)))
        return stat;
    if ((stat = nc_inq_type(ncid_in, xtype, NULL, &size)))
        return stat;
    if ((stat = equal_type(ncid_in, xtype, ncid_out, &xout)))
        return stat;
    if (len > ((size_t)-1) / (size ? size : 1))
        return NC_ENOMEM;
    if ((buf = malloc(len ? len * size : 1)) == NULL)
        return NC_ENOMEM;
    if ((stat = nc_get_att(ncid_in, varid_in, name, buf)) == NC_NOERR) {
        stat = nc_put_att(ncid_out, varid_out, name, xout, len, buf);
        /* strings, vlens and what holds them own memory the get allocated */
        (void)nc_reclaim_data(ncid_in, xtype, buf, len);
    }
    free(buf);
    return stat;
}

/* ---- nc_copy_var ------------------------------------------------------------------ */

int
nc_copy_var(int ncid_in, int varid_in, int ncid_out)
{
    char name[NC_MAX_NAME + 1], dname[NC_MAX_NAME + 1];
    int dimids_in[NC_MAX_VAR_DIMS], dimids_out[NC_MAX_VAR_DIMS];
    size_t shape[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS] = {0}, count[NC_MAX_VAR_DIMS];
    int ndims, natts, varid_out, stat, fin, fout;
    nc_type xtype, xout;
    size_t slice = 1, elsize;
    void *buf = NULL;

    if ((stat = nc_inq_var(ncid_in, varid_in, name, &xtype, &ndims, dimids_in, &natts)))
        return stat;
    for (int i = 0; i < ndims; i++) {
        if ((stat = nc_inq_dim(ncid_in, dimids_in[i], dname, &shape[i])))
            return stat;
        if ((stat = nc_inq_dimid(ncid_out, dname, &dimids_out[i])))
            return stat;
    }
    /* As upstream: an enhanced-model type cannot go into a classic file. */
    if ((stat = nc_inq_format(ncid_in, &fin)) || (stat = nc_inq_format(ncid_out, &fout)))
        return stat;
    if ((fout == NC_FORMAT_CLASSIC || fout == NC_FORMAT_64BIT_OFFSET ||
         fout == NC_FORMAT_64BIT_DATA) && fin == NC_FORMAT_NETCDF4 && xtype > NC_DOUBLE)
        return NC_ENOTNC4;
    if ((stat = nc_inq_type(ncid_in, xtype, NULL, &elsize)))
        return stat;
    if ((stat = equal_type(ncid_in, xtype, ncid_out, &xout)))
        return stat;
    stat = nc_redef(ncid_out);
    if (stat != NC_NOERR && stat != NC_EINDEFINE)
        return stat;
    if ((stat = nc_def_var(ncid_out, name, xout, ndims, dimids_out, &varid_out)))
        return stat;
    for (int a = 0; a < natts; a++) {
        char aname[NC_MAX_NAME + 1];
        if ((stat = nc_inq_attname(ncid_in, varid_in, a, aname)))
            return stat;
        if ((stat = nc_copy_att(ncid_in, varid_in, aname, ncid_out, varid_out)))
            return stat;
    }
    stat = nc_enddef(ncid_out);
    if (stat != NC_NOERR && stat != NC_ENOTINDEFINE)
        return stat;

    /* One outermost slice at a time keeps memory bounded. */
    for (int i = 1; i < ndims; i++)
        slice *= shape[i];
    if (ndims > 0 && (shape[0] == 0 || slice == 0))
        return NC_NOERR;  /* nothing stored */
    if (slice > ((size_t)-1) / elsize)
        return NC_ENOMEM;
    if ((buf = malloc(slice * elsize)) == NULL)
        return NC_ENOMEM;
    count[0] = 1;
    for (int i = 1; i < ndims; i++)
        count[i] = shape[i];
    size_t nslices = ndims == 0 ? 1 : shape[0];
    for (size_t r = 0; r < nslices && stat == NC_NOERR; r++) {
        start[0] = r;
        if ((stat = nc_get_vara(ncid_in, varid_in, start, count, buf)))
            break;
        stat = nc_put_vara(ncid_out, varid_out, start, count, buf);
        (void)nc_reclaim_data(ncid_in, xtype, buf, slice);
    }
    free(buf);
    return stat;
}
