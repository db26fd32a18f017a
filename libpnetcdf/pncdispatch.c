/* pncdispatch.c: the PnetCDF layer's dispatch table (pncint.h says what it
 * promises).  Each slot finds its file, converts the netCDF API's size_t
 * and ptrdiff_t vectors to MPI_Offset, and makes one ncmpi_* call; data
 * access goes through PnetCDF's flexible API with the memory type as an
 * MPI primitive datatype (bufcount -1), so one call serves every type, in
 * the independent or collective form the file's access mode selects.
 */
#include "config.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "pncint.h"
#include "netcdf_par.h"
#include <pnetcdf.h>

/* Mode flags each call accepts (as upstream); anything else is NC_EINVAL. */
#define NCP_CREATE_FLAGS (NC_WRITE | NC_NOCLOBBER | NC_64BIT_OFFSET | NC_CLASSIC_MODEL \
                          | NC_SHARE | NC_LOCK | NC_64BIT_DATA | NC_MPIIO)
#define NCP_OPEN_FLAGS (NC_WRITE | NC_NOCLOBBER | NC_SHARE | NC_LOCK | NC_CLASSIC_MODEL \
                        | NC_64BIT_OFFSET | NC_64BIT_DATA | NC_MPIIO)
/* The flags PnetCDF itself is given. */
#define NCP_PASS_CREATE (NC_NOCLOBBER | NC_64BIT_OFFSET | NC_64BIT_DATA | NC_SHARE)
#define NCP_PASS_OPEN (NC_WRITE | NC_SHARE)

static int
ncp_get(int ncid, NC **ncp, NCP_file **fp)
{
    NC *nc;
    int stat;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (nc->dispatchdata == NULL)
        return NC_EBADID;
    if (ncp) *ncp = nc;
    *fp = nc->dispatchdata;
    return NC_NOERR;
}

/* Shorthand for the slots that only need PnetCDF's id. */
#define PNCID(ncid)                                                     \
    NCP_file *f;                                                        \
    do {                                                                \
        int st_ = ncp_get((ncid), NULL, &f);                            \
        if (st_)                                                        \
            return st_;                                                 \
    } while (0)

/* ---- files --------------------------------------------------------------- */

/* Create (create != 0) or open path through PnetCDF for the record ncid;
 * the mode's flags outside allowed are NC_EINVAL, no MPI parameters are
 * NC_ENOPAR.  Both start with independent access, as upstream. */
static int
ncp_start(const char *path, int mode, int allowed, int pass, int create,
          const NC_MPI_INFO *mpi, int ncid)
{
    NCP_file *f;
    NC *nc;
    int stat;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (mode & ~allowed)
        return NC_EINVAL;
    if (mpi == NULL)
        return NC_ENOPAR;
    if ((f = calloc(1, sizeof *f)) == NULL)
        return NC_ENOMEM;
    stat = create ? ncmpi_create(mpi->comm, path, mode & pass, mpi->info, &f->pncid)
                  : ncmpi_open(mpi->comm, path, mode & pass, mpi->info, &f->pncid);
    if (stat) {
        free(f);
        return stat;
    }
    f->indep = 1;
    /* A created file is in define mode and enters independent data mode at
     * enddef; an open one is in data mode now. */
    if (!create) {
        f->indata = 1;
        if ((stat = ncmpi_begin_indep_data(f->pncid))) {
            ncmpi_close(f->pncid);
            free(f);
            return stat;
        }
    }
    nc->dispatchdata = f;
    return NC_NOERR;
}

static int
NCP_create(const char *path, int cmode, size_t initialsz, int basepe, size_t *chunksizehintp,
           void *parameters, const NC_Dispatch *table, int ncid)
{
    (void)initialsz; (void)basepe; (void)chunksizehintp; (void)table;
    return ncp_start(path, cmode, NCP_CREATE_FLAGS, NCP_PASS_CREATE, 1, parameters, ncid);
}

static int
NCP_open(const char *path, int omode, int basepe, size_t *chunksizehintp, void *parameters,
         const NC_Dispatch *table, int ncid)
{
    (void)basepe; (void)chunksizehintp; (void)table;
    return ncp_start(path, omode, NCP_OPEN_FLAGS, NCP_PASS_OPEN, 0, parameters, ncid);
}

static int
NCP_redef(int ncid)
{
    int stat;
    PNCID(ncid);
    if ((stat = ncmpi_redef(f->pncid)) == NC_NOERR)
        f->indata = 0;
    return stat;
}

/* nc_enddef passes (0, 1, 0, 1): PnetCDF then aligns to 4 bytes (its
 * lower bound), which is where the classic layer puts the data too, so
 * both write the same layout.  NC_ALIGN_CHUNK becomes 0, PnetCDF's
 * "use the default alignment". */
static MPI_Offset
align_arg(size_t a)
{
    return a == NC_ALIGN_CHUNK ? 0 : a > (size_t)INT64_MAX ? INT64_MAX : (MPI_Offset)a;
}

static int
NCP__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align)
{
    int stat;
    PNCID(ncid);
    if ((stat = ncmpi__enddef(f->pncid, align_arg(h_minfree), align_arg(v_align),
                              align_arg(v_minfree), align_arg(r_align))))
        return stat;
    f->indata = 1;
    return f->indep ? ncmpi_begin_indep_data(f->pncid) : NC_NOERR;
}

static int
NCP_sync(int ncid)
{
    PNCID(ncid);
    return ncmpi_sync(f->pncid);
}

/* close and abort release the layer's state whatever PnetCDF answers. */
static int
ncp_release(int ncid, int abort)
{
    NC *nc;
    NCP_file *f;
    int stat;
    if ((stat = ncp_get(ncid, &nc, &f)))
        return stat;
    stat = abort ? ncmpi_abort(f->pncid) : ncmpi_close(f->pncid);
    free(f);
    nc->dispatchdata = NULL;
    return stat;
}

static int
NCP_abort(int ncid)
{
    return ncp_release(ncid, 1);
}

static int
NCP_close(int ncid, void *memio)
{
    (void)memio;
    return ncp_release(ncid, 0);
}

static int
NCP_set_fill(int ncid, int fillmode, int *old_modep)
{
    PNCID(ncid);
    return ncmpi_set_fill(f->pncid, fillmode, old_modep);
}

static int
NCP_inq_format(int ncid, int *formatp)
{
    PNCID(ncid);
    return ncmpi_inq_format(f->pncid, formatp);
}

static int
NCP_inq_format_extended(int ncid, int *formatp, int *modep)
{
    NC *nc;
    NCP_file *f;
    int stat;
    if ((stat = ncp_get(ncid, &nc, &f)))
        return stat;
    if (formatp) *formatp = NC_FORMATX_PNETCDF;
    if (modep) *modep = nc->mode;
    return NC_NOERR;
}

static int
NCP_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp)
{
    PNCID(ncid);
    return ncmpi_inq(f->pncid, ndimsp, nvarsp, nattsp, unlimdimidp);
}

/* ---- types: the atomic types of the classic formats ------------------------ */

static const char *const type_names[] = {
    "", "byte", "char", "short", "int", "float", "double",
    "ubyte", "ushort", "uint", "int64", "uint64",
};
#define NCP_LAST_TYPE NC_UINT64

static int
NCP_inq_type(int ncid, nc_type xtype, char *name, size_t *sizep)
{
    PNCID(ncid);
    (void)f;
    if (xtype < NC_BYTE || xtype > NCP_LAST_TYPE)
        return NC_EBADTYPE;
    if (name) strcpy(name, type_names[xtype]);
    if (sizep) *sizep = NC_atomictypelen(xtype);
    return NC_NOERR;
}

static int
NCP_inq_typeid(int ncid, const char *name, nc_type *typep)
{
    PNCID(ncid);
    (void)f;
    if (name == NULL)
        return NC_EINVAL;
    for (nc_type t = NC_BYTE; t <= NCP_LAST_TYPE; t++)
        if (strcmp(name, type_names[t]) == 0) {
            if (typep) *typep = t;
            return NC_NOERR;
        }
    return NC_ENOTNC4;
}

/* Atomic types are equal when they are the same; a classic file has no
 * other types.  Only the first ncid is checked, as upstream. */
static int
NCP_inq_type_equal(int ncid1, nc_type t1, int ncid2, nc_type t2, int *equalp)
{
    PNCID(ncid1);
    (void)f; (void)ncid2;
    if (t1 <= NC_NAT || t2 <= NC_NAT)
        return NC_EINVAL;
    if (equalp) *equalp = t1 == t2 && t1 <= NC_MAX_ATOMIC_TYPE;
    return NC_NOERR;
}

static int
NCP_inq_typeids(int ncid, int *ntypesp, int *typeids)
{
    PNCID(ncid);
    (void)f; (void)typeids;
    if (ntypesp) *ntypesp = 0;
    return NC_NOERR;
}

/* ---- groups: one root group named "/" ---------------------------------------- */

static int
NCP_inq_ncid(int ncid, const char *name, int *grpidp)
{
    PNCID(ncid);
    (void)f; (void)name;
    if (grpidp) *grpidp = ncid;
    return NC_NOERR;
}

static int
NCP_inq_grps(int ncid, int *numgrpsp, int *grpids)
{
    PNCID(ncid);
    (void)f; (void)grpids;
    if (numgrpsp) *numgrpsp = 0;
    return NC_NOERR;
}

static int
NCP_inq_grpname(int ncid, char *name)
{
    PNCID(ncid);
    (void)f;
    if (name) strcpy(name, "/");
    return NC_NOERR;
}

static int
NCP_inq_grpname_full(int ncid, size_t *lenp, char *full)
{
    PNCID(ncid);
    (void)f;
    if (lenp) *lenp = 1;
    if (full) strcpy(full, "/");
    return NC_NOERR;
}

static int
NCP_inq_grp_parent(int ncid, int *parentp)
{
    PNCID(ncid);
    (void)f; (void)parentp;
    return NC_ENOGRP;
}

static int
NCP_inq_grp_full_ncid(int ncid, const char *full, int *grpidp)
{
    PNCID(ncid);
    (void)f; (void)full; (void)grpidp;
    return NC_ENOGRP;
}

static int
NCP_show_metadata(int ncid)
{
    PNCID(ncid);
    (void)f;
    return NC_NOERR;
}

/* ---- dimensions ------------------------------------------------------------------ */

static int
NCP_def_dim(int ncid, const char *name, size_t len, int *idp)
{
    PNCID(ncid);
    if (len > (size_t)INT64_MAX)
        return NC_EDIMSIZE;
    return ncmpi_def_dim(f->pncid, name, (MPI_Offset)len, idp);
}

static int
NCP_inq_dimid(int ncid, const char *name, int *idp)
{
    PNCID(ncid);
    return ncmpi_inq_dimid(f->pncid, name, idp);
}

static int
NCP_inq_dim(int ncid, int dimid, char *name, size_t *lenp)
{
    MPI_Offset len;
    int stat;
    PNCID(ncid);
    if ((stat = ncmpi_inq_dim(f->pncid, dimid, name, &len)) == NC_NOERR && lenp)
        *lenp = (size_t)len;
    return stat;
}

static int
NCP_inq_unlimdim(int ncid, int *unlimdimidp)
{
    PNCID(ncid);
    return ncmpi_inq_unlimdim(f->pncid, unlimdimidp);
}

static int
NCP_inq_unlimdims(int ncid, int *nunlimp, int *unlimids)
{
    int stat, id;
    PNCID(ncid);
    if ((stat = ncmpi_inq_unlimdim(f->pncid, &id)))
        return stat;
    if (nunlimp) *nunlimp = id >= 0;
    if (unlimids && id >= 0) unlimids[0] = id;
    return NC_NOERR;
}

static int
NCP_rename_dim(int ncid, int dimid, const char *name)
{
    PNCID(ncid);
    return ncmpi_rename_dim(f->pncid, dimid, name);
}

/* Classic files number their dimensions and variables 0..n-1. */
static int
NCP_inq_dimids(int ncid, int *ndimsp, int *dimids, int include_parents)
{
    int stat, n;
    PNCID(ncid);
    (void)include_parents;
    if ((stat = ncmpi_inq(f->pncid, &n, NULL, NULL, NULL)))
        return stat;
    if (ndimsp) *ndimsp = n;
    if (dimids)
        for (int i = 0; i < n; i++)
            dimids[i] = i;
    return NC_NOERR;
}

static int
NCP_inq_varids(int ncid, int *nvarsp, int *varids)
{
    int stat, n;
    PNCID(ncid);
    if ((stat = ncmpi_inq(f->pncid, NULL, &n, NULL, NULL)))
        return stat;
    if (nvarsp) *nvarsp = n;
    if (varids)
        for (int i = 0; i < n; i++)
            varids[i] = i;
    return NC_NOERR;
}

/* ---- attributes ----------------------------------------------------------------- */

static int
NCP_inq_att(int ncid, int varid, const char *name, nc_type *xtypep, size_t *lenp)
{
    MPI_Offset len;
    int stat;
    PNCID(ncid);
    if ((stat = ncmpi_inq_att(f->pncid, varid, name, xtypep, &len)) == NC_NOERR && lenp)
        *lenp = (size_t)len;
    return stat;
}

static int
NCP_inq_attid(int ncid, int varid, const char *name, int *idp)
{
    PNCID(ncid);
    return ncmpi_inq_attid(f->pncid, varid, name, idp);
}

static int
NCP_inq_attname(int ncid, int varid, int attnum, char *name)
{
    PNCID(ncid);
    return ncmpi_inq_attname(f->pncid, varid, attnum, name);
}

static int
NCP_rename_att(int ncid, int varid, const char *name, const char *newname)
{
    PNCID(ncid);
    return ncmpi_rename_att(f->pncid, varid, name, newname);
}

static int
NCP_del_att(int ncid, int varid, const char *name)
{
    PNCID(ncid);
    return ncmpi_del_att(f->pncid, varid, name);
}

static int
NCP_get_att(int ncid, int varid, const char *name, void *value, nc_type memtype)
{
    int stat, p;
    PNCID(ncid);
    p = f->pncid;
    if (memtype == NC_NAT && (stat = ncmpi_inq_atttype(p, varid, name, &memtype)))
        return stat;
    switch (memtype) {
    case NC_CHAR: return ncmpi_get_att_text(p, varid, name, value);
    case NC_BYTE: return ncmpi_get_att_schar(p, varid, name, value);
    case NC_SHORT: return ncmpi_get_att_short(p, varid, name, value);
    case NC_INT: return ncmpi_get_att_int(p, varid, name, value);
    case NC_FLOAT: return ncmpi_get_att_float(p, varid, name, value);
    case NC_DOUBLE: return ncmpi_get_att_double(p, varid, name, value);
    case NC_UBYTE: return ncmpi_get_att_uchar(p, varid, name, value);
    case NC_USHORT: return ncmpi_get_att_ushort(p, varid, name, value);
    case NC_UINT: return ncmpi_get_att_uint(p, varid, name, value);
    case NC_INT64: return ncmpi_get_att_longlong(p, varid, name, value);
    case NC_UINT64: return ncmpi_get_att_ulonglong(p, varid, name, value);
    default: return NC_EBADTYPE;
    }
}

static int
NCP_put_att(int ncid, int varid, const char *name, nc_type xtype, size_t len,
            const void *value, nc_type memtype)
{
    int stat, p;
    MPI_Offset n;
    PNCID(ncid);
    p = f->pncid;
    /* As upstream: the variable first, then the name, then the length. */
    if ((stat = ncmpi_inq_varnatts(p, varid, NULL)))
        return stat;
    if (name == NULL || strlen(name) > NC_MAX_NAME)
        return NC_EBADNAME;
    if (len > INT_MAX)
        return NC_EINVAL;
    n = (MPI_Offset)len;
    switch (memtype) {
    case NC_CHAR: return ncmpi_put_att_text(p, varid, name, n, value);
    case NC_BYTE: return ncmpi_put_att_schar(p, varid, name, xtype, n, value);
    case NC_SHORT: return ncmpi_put_att_short(p, varid, name, xtype, n, value);
    case NC_INT: return ncmpi_put_att_int(p, varid, name, xtype, n, value);
    case NC_FLOAT: return ncmpi_put_att_float(p, varid, name, xtype, n, value);
    case NC_DOUBLE: return ncmpi_put_att_double(p, varid, name, xtype, n, value);
    case NC_UBYTE: return ncmpi_put_att_uchar(p, varid, name, xtype, n, value);
    case NC_USHORT: return ncmpi_put_att_ushort(p, varid, name, xtype, n, value);
    case NC_UINT: return ncmpi_put_att_uint(p, varid, name, xtype, n, value);
    case NC_INT64: return ncmpi_put_att_longlong(p, varid, name, xtype, n, value);
    case NC_UINT64: return ncmpi_put_att_ulonglong(p, varid, name, xtype, n, value);
    default: return NC_EBADTYPE;
    }
}

/* ---- variables --------------------------------------------------------------------- */

static int
NCP_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp,
            int *varidp)
{
    PNCID(ncid);
    return ncmpi_def_var(f->pncid, name, xtype, ndims, dimidsp, varidp);
}

static int
NCP_inq_varid(int ncid, const char *name, int *varidp)
{
    PNCID(ncid);
    return ncmpi_inq_varid(f->pncid, name, varidp);
}

static int
NCP_rename_var(int ncid, int varid, const char *name)
{
    PNCID(ncid);
    return ncmpi_rename_var(f->pncid, varid, name);
}

static int
NCP_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value)
{
    PNCID(ncid);
    return ncmpi_def_var_fill(f->pncid, varid, no_fill, fill_value);
}

/* The storage settings of a classic variable: contiguous, unfiltered.
 * Endianness and filter parameters are netCDF-4 questions (NC_ENOTNC4),
 * as upstream's table answers. */
static int
NCP_inq_var_all(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp,
                int *nattsp, int *shufflep, int *deflatep, int *deflate_levelp,
                int *fletcher32p, int *contiguousp, size_t *chunksizesp, int *no_fill,
                void *fill_valuep, int *endiannessp, unsigned int *idp, size_t *nparamsp,
                unsigned int *params)
{
    int stat, nofill;
    PNCID(ncid);
    (void)chunksizesp;
    if ((stat = ncmpi_inq_var(f->pncid, varid, name, xtypep, ndimsp, dimidsp, nattsp)))
        return stat;
    if ((no_fill || fill_valuep)
        && (stat = ncmpi_inq_var_fill(f->pncid, varid, &nofill, fill_valuep)))
        return stat;
    if (no_fill) *no_fill = nofill;
    if (shufflep) *shufflep = 0;
    if (deflatep) *deflatep = 0;
    if (deflate_levelp) *deflate_levelp = 0;
    if (fletcher32p) *fletcher32p = 0;
    if (contiguousp) *contiguousp = NC_CONTIGUOUS;
    if (endiannessp || idp || nparamsp || params)
        return NC_ENOTNC4;
    return NC_NOERR;
}

static int
NCP_var_par_access(int ncid, int varid, int par_access)
{
    (void)varid;  /* PnetCDF's access mode belongs to the whole file */
    if (par_access != NC_INDEPENDENT && par_access != NC_COLLECTIVE)
        return NC_EINVAL;
    PNCID(ncid);
    int indep = par_access == NC_INDEPENDENT;
    if (indep == f->indep)
        return NC_NOERR;
    if (f->indata) {
        int stat = indep ? ncmpi_begin_indep_data(f->pncid) : ncmpi_end_indep_data(f->pncid);
        if (stat)
            return stat;
    }
    f->indep = indep;
    return NC_NOERR;
}

/* ---- data ---------------------------------------------------------------------------- */

/* The MPI primitive type of a memory type (MPI_DATATYPE_NULL: none). */
static MPI_Datatype
mpi_type(nc_type memtype)
{
    switch (memtype) {
    case NC_BYTE: return MPI_SIGNED_CHAR;
    case NC_CHAR: return MPI_CHAR;
    case NC_SHORT: return MPI_SHORT;
    case NC_INT: return MPI_INT;
    case NC_FLOAT: return MPI_FLOAT;
    case NC_DOUBLE: return MPI_DOUBLE;
    case NC_UBYTE: return MPI_UNSIGNED_CHAR;
    case NC_USHORT: return MPI_UNSIGNED_SHORT;
    case NC_UINT: return MPI_UNSIGNED;
    case NC_INT64: return MPI_LONG_LONG_INT;
    case NC_UINT64: return MPI_UNSIGNED_LONG_LONG;
    default: return MPI_DATATYPE_NULL;
    }
}

/* One request: the vectors in PnetCDF's type, and the memory type. */
typedef struct ncp_req {
    int pncid;
    int charmix; /* text memory for a numeric variable, or the reverse */
    int memtext; /* the memory type is NC_CHAR */
    MPI_Offset start[NC_MAX_VAR_DIMS];
    MPI_Offset count[NC_MAX_VAR_DIMS];
    MPI_Offset stride[NC_MAX_VAR_DIMS];
    MPI_Offset imap[NC_MAX_VAR_DIMS];
    MPI_Datatype type;
    int indep;
} ncp_req;

/* Fill r from the API's arguments (stride and imap may be NULL). */
static int
ncp_request(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, nc_type memtype, ncp_req *r)
{
    int stat, ndims;
    nc_type xtype;
    NCP_file *f;
    if ((stat = ncp_get(ncid, NULL, &f)))
        return stat;
    r->pncid = f->pncid;
    r->indep = f->indep;
    if ((stat = ncmpi_inq_varndims(f->pncid, varid, &ndims)))
        return stat;
    if (memtype == NC_NAT && (stat = ncmpi_inq_vartype(f->pncid, varid, &memtype)))
        return stat;
    if ((r->type = mpi_type(memtype)) == MPI_DATATYPE_NULL)
        return NC_EBADTYPE;
    if ((stat = ncmpi_inq_vartype(f->pncid, varid, &xtype)))
        return stat;
    r->memtext = memtype == NC_CHAR;
    r->charmix = (xtype == NC_CHAR) != r->memtext;
    if (ndims > 0 && (start == NULL || count == NULL))
        return NC_EINVALCOORDS;
    for (int d = 0; d < ndims; d++) {
        if (start[d] > (size_t)INT64_MAX)
            return NC_EINVALCOORDS;
        if (count[d] > (size_t)INT64_MAX)
            return NC_EEDGE;
        r->start[d] = (MPI_Offset)start[d];
        r->count[d] = (MPI_Offset)count[d];
        r->stride[d] = stride ? (MPI_Offset)stride[d] : 1;
        if (imap)
            r->imap[d] = (MPI_Offset)imap[d];
    }
    return NC_NOERR;
}

/* Text memory for a numeric variable or numbers for a text variable:
 * PnetCDF's flexible calls assert on it, its typed calls answer NC_ECHAR
 * (after their own earlier checks, and collectively in collective
 * access), which is upstream's answer; so such a request goes to the typed
 * call of the same form (text, or int for any numeric memory type). */
typedef enum { NCP_VARA, NCP_VARS, NCP_VARM } ncp_form;

#define NCP_TYPED(op, form, T, ...)                                                     \
    (r->indep ? ncmpi_##op##_##form##_##T(r->pncid, varid, __VA_ARGS__)                  \
              : ncmpi_##op##_##form##_##T##_all(r->pncid, varid, __VA_ARGS__))
#define NCP_BY_FORM(op, T, buf)                                                         \
    (form == NCP_VARA   ? NCP_TYPED(op, vara, T, r->start, r->count, buf)               \
     : form == NCP_VARS ? NCP_TYPED(op, vars, T, r->start, r->count, r->stride, buf)    \
                        : NCP_TYPED(op, varm, T, r->start, r->count, r->stride, r->imap, buf))

static int
ncp_charmix_put(const ncp_req *r, int varid, ncp_form form, const void *value)
{
    return r->memtext ? NCP_BY_FORM(put, text, value) : NCP_BY_FORM(put, int, value);
}

static int
ncp_charmix_get(const ncp_req *r, int varid, ncp_form form, void *value)
{
    return r->memtext ? NCP_BY_FORM(get, text, value) : NCP_BY_FORM(get, int, value);
}

static int
NCP_get_vara(int ncid, int varid, const size_t *start, const size_t *count, void *value,
             nc_type memtype)
{
    ncp_req r;
    int stat;
    if ((stat = ncp_request(ncid, varid, start, count, NULL, NULL, memtype, &r)))
        return stat;
    if (r.charmix)
        return ncp_charmix_get(&r, varid, NCP_VARA, value);
    return r.indep ? ncmpi_get_vara(r.pncid, varid, r.start, r.count, value, -1, r.type)
                   : ncmpi_get_vara_all(r.pncid, varid, r.start, r.count, value, -1, r.type);
}

static int
NCP_put_vara(int ncid, int varid, const size_t *start, const size_t *count, const void *value,
             nc_type memtype)
{
    ncp_req r;
    int stat;
    if ((stat = ncp_request(ncid, varid, start, count, NULL, NULL, memtype, &r)))
        return stat;
    if (r.charmix)
        return ncp_charmix_put(&r, varid, NCP_VARA, value);
    return r.indep ? ncmpi_put_vara(r.pncid, varid, r.start, r.count, value, -1, r.type)
                   : ncmpi_put_vara_all(r.pncid, varid, r.start, r.count, value, -1, r.type);
}

static int
NCP_get_vars(int ncid, int varid, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, void *value, nc_type memtype)
{
    ncp_req r;
    int stat;
    if ((stat = ncp_request(ncid, varid, start, count, stride, NULL, memtype, &r)))
        return stat;
    if (r.charmix)
        return ncp_charmix_get(&r, varid, NCP_VARS, value);
    return r.indep
        ? ncmpi_get_vars(r.pncid, varid, r.start, r.count, r.stride, value, -1, r.type)
        : ncmpi_get_vars_all(r.pncid, varid, r.start, r.count, r.stride, value, -1, r.type);
}

static int
NCP_put_vars(int ncid, int varid, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, const void *value, nc_type memtype)
{
    ncp_req r;
    int stat;
    if ((stat = ncp_request(ncid, varid, start, count, stride, NULL, memtype, &r)))
        return stat;
    if (r.charmix)
        return ncp_charmix_put(&r, varid, NCP_VARS, value);
    return r.indep
        ? ncmpi_put_vars(r.pncid, varid, r.start, r.count, r.stride, value, -1, r.type)
        : ncmpi_put_vars_all(r.pncid, varid, r.start, r.count, r.stride, value, -1, r.type);
}

/* A map with a negative step (the last element first): PnetCDF's varm
 * calls answer NC_NOERR with the values misplaced, so such a request moves
 * the values through a buffer in the variable's order, filled or spread by
 * the map here, around one strided call (still one call per rank, so
 * collective access stays collective). */
static int
has_negative_map(int ncid, int varid, const ptrdiff_t *imap, int *ndimsp)
{
    NCP_file *f;
    if (ncp_get(ncid, NULL, &f) || ncmpi_inq_varndims(f->pncid, varid, ndimsp))
        return 0;  /* the real call reports the error */
    for (int d = 0; d < *ndimsp; d++)
        if (imap[d] < 0)
            return 1;
    return 0;
}

/* Copy between buf (the variable's order) and the caller's mapped memory
 * at base: to_map 1 spreads buf into the map, 0 gathers from it. */
static void
remap(int ndims, const size_t *count, const ptrdiff_t *imap, size_t esz, unsigned char *base,
      unsigned char *buf, size_t n, int to_map)
{
    size_t idx[NC_MAX_VAR_DIMS] = {0};
    ptrdiff_t off = 0;  /* element offset of idx in the map */
    for (size_t i = 0; i < n; i++) {
        unsigned char *m = base + off * (ptrdiff_t)esz;
        if (to_map)
            memcpy(m, buf + i * esz, esz);
        else
            memcpy(buf + i * esz, m, esz);
        for (int d = ndims - 1; d >= 0; d--) {
            if (++idx[d] < count[d]) {
                off += imap[d];
                break;
            }
            off -= imap[d] * (ptrdiff_t)(count[d] - 1);
            idx[d] = 0;
        }
    }
}

static int
varm_by_buffer(int isput, int ncid, int varid, int ndims, const size_t *start,
               const size_t *count, const ptrdiff_t *stride, const ptrdiff_t *imap,
               void *value, nc_type memtype)
{
    NCP_file *f;
    size_t n = 1, esz;
    unsigned char *buf;
    int stat;
    if ((stat = ncp_get(ncid, NULL, &f)))
        return stat;
    if (memtype == NC_NAT && (stat = ncmpi_inq_vartype(f->pncid, varid, &memtype)))
        return stat;
    if ((esz = NC_atomictypelen(memtype)) == 0 || memtype == NC_STRING)
        return NC_EBADTYPE;
    for (int d = 0; d < ndims; d++) {
        if (count[d] != 0 && n > SIZE_MAX / esz / count[d])
            return NC_EEDGE;
        n *= count[d];
    }
    if ((buf = malloc(n ? n * esz : 1)) == NULL)
        return NC_ENOMEM;
    if (isput) {
        remap(ndims, count, imap, esz, value, buf, n, 0);
        stat = NCP_put_vars(ncid, varid, start, count, stride, buf, memtype);
    } else {
        stat = NCP_get_vars(ncid, varid, start, count, stride, buf, memtype);
        /* NC_ERANGE still delivers every value */
        if (stat == NC_NOERR || stat == NC_ERANGE)
            remap(ndims, count, imap, esz, value, buf, n, 1);
    }
    free(buf);
    return stat;
}

static int
NCP_get_varm(int ncid, int varid, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, const ptrdiff_t *imap, void *value, nc_type memtype)
{
    ncp_req r;
    int stat, ndims;
    if (imap == NULL)
        return NCP_get_vars(ncid, varid, start, count, stride, value, memtype);
    if (has_negative_map(ncid, varid, imap, &ndims))
        return varm_by_buffer(0, ncid, varid, ndims, start, count, stride, imap, value,
                              memtype);
    if ((stat = ncp_request(ncid, varid, start, count, stride, imap, memtype, &r)))
        return stat;
    if (r.charmix)
        return ncp_charmix_get(&r, varid, NCP_VARM, value);
    return r.indep ? ncmpi_get_varm(r.pncid, varid, r.start, r.count, r.stride, r.imap, value,
                                    -1, r.type)
                   : ncmpi_get_varm_all(r.pncid, varid, r.start, r.count, r.stride, r.imap,
                                        value, -1, r.type);
}

static int
NCP_put_varm(int ncid, int varid, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, const ptrdiff_t *imap, const void *value, nc_type memtype)
{
    ncp_req r;
    int stat, ndims;
    if (imap == NULL)
        return NCP_put_vars(ncid, varid, start, count, stride, value, memtype);
    if (has_negative_map(ncid, varid, imap, &ndims))
        return varm_by_buffer(1, ncid, varid, ndims, start, count, stride, imap,
                              (void *)(uintptr_t)value, memtype);
    if ((stat = ncp_request(ncid, varid, start, count, stride, imap, memtype, &r)))
        return stat;
    if (r.charmix)
        return ncp_charmix_put(&r, varid, NCP_VARM, value);
    return r.indep ? ncmpi_put_varm(r.pncid, varid, r.start, r.count, r.stride, r.imap, value,
                                    -1, r.type)
                   : ncmpi_put_varm_all(r.pncid, varid, r.start, r.count, r.stride, r.imap,
                                        value, -1, r.type);
}

/* ---- the table ------------------------------------------------------------------------ */

static const NC_Dispatch NCP_table = {
    .model = NC_FORMATX_PNETCDF,
    .dispatch_version = NC_DISPATCH_VERSION,
    .create = NCP_create,
    .open = NCP_open,
    .redef = NCP_redef,
    ._enddef = NCP__enddef,
    .sync = NCP_sync,
    .abort = NCP_abort,
    .close = NCP_close,
    .set_fill = NCP_set_fill,
    .inq_format = NCP_inq_format,
    .inq_format_extended = NCP_inq_format_extended,
    .inq = NCP_inq,
    .inq_type = NCP_inq_type,
    .def_dim = NCP_def_dim,
    .inq_dimid = NCP_inq_dimid,
    .inq_dim = NCP_inq_dim,
    .inq_unlimdim = NCP_inq_unlimdim,
    .rename_dim = NCP_rename_dim,
    .inq_att = NCP_inq_att,
    .inq_attid = NCP_inq_attid,
    .inq_attname = NCP_inq_attname,
    .rename_att = NCP_rename_att,
    .del_att = NCP_del_att,
    .get_att = NCP_get_att,
    .put_att = NCP_put_att,
    .def_var = NCP_def_var,
    .inq_varid = NCP_inq_varid,
    .rename_var = NCP_rename_var,
    .get_vara = NCP_get_vara,
    .put_vara = NCP_put_vara,
    .get_vars = NCP_get_vars,
    .put_vars = NCP_put_vars,
    .get_varm = NCP_get_varm,
    .put_varm = NCP_put_varm,
    .inq_var_all = NCP_inq_var_all,
    .var_par_access = NCP_var_par_access,
    .def_var_fill = NCP_def_var_fill,
    .show_metadata = NCP_show_metadata,
    .inq_unlimdims = NCP_inq_unlimdims,
    .inq_ncid = NCP_inq_ncid,
    .inq_grps = NCP_inq_grps,
    .inq_grpname = NCP_inq_grpname,
    .inq_grpname_full = NCP_inq_grpname_full,
    .inq_grp_parent = NCP_inq_grp_parent,
    .inq_grp_full_ncid = NCP_inq_grp_full_ncid,
    .inq_varids = NCP_inq_varids,
    .inq_dimids = NCP_inq_dimids,
    .inq_typeids = NCP_inq_typeids,
    .inq_type_equal = NCP_inq_type_equal,
    .inq_typeid = NCP_inq_typeid,
    NC_CLASSIC_MODEL_SLOTS,
};

const NC_Dispatch *NCP_dispatch_table = &NCP_table;
