/* hdf5par.c: netCDF-4 files on parallel HDF5 (nc_create_par, nc_open_par;
 * parallel builds only, NC_ENABLE_PARALLEL4).
 *
 * A file created or opened with a communicator (ncpar.h's NC_MPI_INFO in
 * the slot's parameters, NC_MPIIO in the mode) is opened by HDF5's MPI-IO
 * driver on a duplicate of that communicator, with collective metadata
 * reads and writes (every rank makes the same metadata calls, as HDF5
 * requires and upstream's programs do).  Its data calls come here from the
 * one branch at the top of hdf5data.c's read and write: one H5Dread /
 * H5Dwrite of the hyperslab with a transfer list per access mode
 * (independent by default, as upstream; nc_var_par_access switches a
 * variable).  The chunk pipeline of hdf5chunk.c (raw chunk reads and
 * writes) is never used on such a file: HDF5 applies filters collectively.
 *
 * Upstream's rules kept:
 *   - a variable with filters starts collective (HDF5 writes filtered data
 *     only collectively; an independent write of it is HDF5's refusal,
 *     NC_EHDFERR);
 *   - growing an unlimited dimension is collective: the ranks agree on the
 *     new extent (MPI_Allreduce, max) and all extend; in independent access
 *     it is NC_ECANTEXTEND;
 *   - a collective call with nothing to move on a rank still takes part
 *     (empty selections);
 *   - nc_var_par_access on a file not opened in parallel is NC_ENOPAR, a
 *     mode other than NC_INDEPENDENT / NC_COLLECTIVE NC_EINVAL;
 *   - no parallel open of memory or diskless files (NC_EINVAL).
 * Not supported in parallel (HDF5 cannot write them so): variable-length
 * data (strings, vlens) are NC_EINVAL on write; they are read as in a
 * serial file (hdf5data.c), each rank independently.
 */
#include "config.h"

#if NC_ENABLE_PARALLEL4

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hdf5int.h"
#include "netcdf_par.h"
#include "ncpar.h"
#include "ncx.h"
#include "ncfilter.h"
#include "ncchunk.h"
#include "hdf5chunk.h"

/* What a parallel file keeps (NC4H5_file's par). */
typedef struct nc4h5_par_mode {
    const NC4_var *var;
    int collective;
} nc4h5_par_mode;

typedef struct nc4h5_par {
    MPI_Comm comm;   /* a duplicate of the caller's */
    MPI_Info info;   /* a duplicate, or MPI_INFO_NULL */
    nc4h5_par_mode *modes; /* the variables nc_var_par_access has set */
    size_t nmodes, capmodes;
} nc4h5_par;

/* A variable's access mode: as nc_var_par_access set it; otherwise
 * collective when it has filters (upstream switches a variable to
 * collective when a filter is defined in a parallel file), independent
 * when it has none. */
static int
is_collective(const nc4h5_par *p, const NC4_var *var)
{
    for (size_t i = 0; i < p->nmodes; i++)
        if (p->modes[i].var == var)
            return p->modes[i].collective;
    return var->nfilters > 0;
}

static int
set_collective(nc4h5_par *p, const NC4_var *var, int on)
{
    for (size_t i = 0; i < p->nmodes; i++) {
        if (p->modes[i].var == var) {
            p->modes[i].collective = on;
            return NC_NOERR;
        }
    }
    if (p->nmodes == p->capmodes) {
        size_t cap = p->capmodes ? 2 * p->capmodes : 16;
        nc4h5_par_mode *m = realloc(p->modes, cap * sizeof *m);
        if (m == NULL)
            return NC_ENOMEM;
        p->modes = m;
        p->capmodes = cap;
    }
    p->modes[p->nmodes].var = var;
    p->modes[p->nmodes].collective = on;
    p->nmodes++;
    return NC_NOERR;
}

int
nc4h5_par_begin(void **parp, int mode, void *parameters, hid_t fapl)
{
    const NC_MPI_INFO *mpi = parameters;
    nc4h5_par *p;

    *parp = NULL;
    if (!(mode & NC_MPIIO) || mpi == NULL)
        return NC_NOERR;
    if (mode & (NC_INMEMORY | NC_DISKLESS))
        return NC_EINVAL;
    if ((p = calloc(1, sizeof *p)) == NULL)
        return NC_ENOMEM;
    p->info = MPI_INFO_NULL;
    if (MPI_Comm_dup(mpi->comm, &p->comm) != MPI_SUCCESS) {
        free(p);
        return NC_EMPI;
    }
    *parp = p;
    if (mpi->info != MPI_INFO_NULL && MPI_Info_dup(mpi->info, &p->info) != MPI_SUCCESS)
        return NC_EMPI;
    if (H5Pset_fapl_mpio(fapl, p->comm, p->info) < 0 ||
        H5Pset_all_coll_metadata_ops(fapl, 1) < 0 ||
        H5Pset_coll_metadata_write(fapl, 1) < 0)
        return NC_EPARINIT;
    return NC_NOERR;
}

void
nc4h5_par_end(void **parp)
{
    nc4h5_par *p = *parp;
    if (p == NULL)
        return;
    if (p->info != MPI_INFO_NULL)
        MPI_Info_free(&p->info);
    MPI_Comm_free(&p->comm);
    free(p->modes);
    free(p);
    *parp = NULL;
}

/* The file of ncid when it was opened in parallel, else NULL. */
static NC4H5_file *
par_file(int ncid, NC4_file **fp)
{
    NC4_file *f;
    if (nc4_find_grp(ncid, &f, NULL) || f->fmt == NULL)
        return NULL;
    if (fp)
        *fp = f;
    return ((NC4H5_file *)f->fmt)->par != NULL ? f->fmt : NULL;
}

int
nc4h5_par_file(int ncid)
{
    return par_file(ncid, NULL) != NULL;
}

int
nc4h5_par_vlen(int ncid, int varid)
{
    NC4_file *f;
    NC4_var *var;
    if (par_file(ncid, &f) == NULL || nc4_find_var(ncid, varid, NULL, NULL, &var) != NC_NOERR)
        return 0;
    return var->xtype == NC_STRING || nc4_type_has_pointers(f, var->xtype);
}

int
NC4_HDF5_var_par_access(int ncid, int varid, int par_access)
{
    NC4_file *f;
    NC4_var *var;
    int stat;

    if (par_access != NC_INDEPENDENT && par_access != NC_COLLECTIVE)
        return NC_EINVAL;
    if ((stat = nc4_find_grp(ncid, &f, NULL)))
        return stat;
    if (f->fmt == NULL || ((NC4H5_file *)f->fmt)->par == NULL)
        return NC_ENOPAR;
    if ((stat = nc4_find_var(ncid, varid, NULL, NULL, &var)))
        return stat;
    return set_collective(((NC4H5_file *)f->fmt)->par, var, par_access == NC_COLLECTIVE);
}

/* ---- data ---------------------------------------------------------------------- */

typedef struct {
    NC4_file *f;
    NC4_var *var;
    NC4H5_var *hv;
    MPI_Comm comm;
    nc_type memtype;
    int convert;
    int collective;
    int nd;
    hsize_t start[H5S_MAX_RANK], count[H5S_MAX_RANK], stride[H5S_MAX_RANK];
    size_t n;
    hid_t fsid;                   /* the dataset's file space (the caller closes it) */
    hsize_t fdims[H5S_MAX_RANK];  /* and its extent */
} par_access_t;

static int
par_prepare(int ncid, int varid, const size_t *startp, const size_t *countp,
            const ptrdiff_t *stridep, nc_type memtype, par_access_t *a)
{
    NC4H5_file *hf;
    int stat, zero = 0;

    memset(a, 0, sizeof *a);
    a->fsid = -1;
    if ((hf = par_file(ncid, &a->f)) == NULL)
        return NC_EBADID;
    a->comm = ((nc4h5_par *)hf->par)->comm;
    if ((stat = nc4_find_var(ncid, varid, NULL, NULL, &a->var)))
        return stat;
    if (memtype >= NC_FIRSTUSERTYPEID || memtype == NC_NAT)
        memtype = a->var->xtype;
    if (memtype != a->var->xtype && (memtype == NC_CHAR || a->var->xtype == NC_CHAR))
        return NC_ECHAR;
    a->memtype = memtype;
    a->convert = memtype != a->var->xtype;
    if ((stat = nc4_data_define(a->f, a->var)))
        return stat;
    if (!a->var->created)
        return NC_EHDFERR;
    if ((stat = nc4h5_var_open_dataset(a->var)))
        return stat;
    a->hv = a->var->fmt;
    if (a->hv == NULL || a->hv->did < 0)
        return NC_EHDFERR;
    if (a->var->ndims > H5S_MAX_RANK)
        return NC_EMAXDIMS;
    a->collective = is_collective(hf->par, a->var);
    a->nd = a->var->ndims;
    a->n = 1;
    for (int d = 0; d < a->nd; d++) {
        if (stridep && stridep[d] <= 0)
            return NC_ESTRIDE;
        a->start[d] = startp ? startp[d] : 0;
        a->count[d] = countp ? countp[d] : a->var->dims[d]->len;
        a->stride[d] = stridep ? (hsize_t)stridep[d] : 1;
        if (a->count[d] == 0)
            zero = 1;
        a->n *= (size_t)a->count[d];
    }
    if (zero)
        a->n = 0;
    /* Variable-length data cannot go through MPI-IO here. */
    if (a->var->xtype == NC_STRING || nc4_type_has_pointers(a->f, a->var->xtype))
        return NC_EINVAL;
    if ((a->fsid = H5Dget_space(a->hv->did)) < 0 ||
        (a->nd > 0 && H5Sget_simple_extent_dims(a->fsid, a->fdims, NULL) != a->nd))
        return NC_EHDFERR;
    return NC_NOERR;
}

/* A transfer list for the variable's access mode.  individual: a
 * collective call whose I/O every rank makes on its own (see
 * par_one_run; reads likewise). */
static hid_t
par_dxpl(int collective, int individual)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (dxpl >= 0 &&
        (H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT) < 0 ||
         (collective && individual &&
          H5Pset_dxpl_mpio_collective_opt(dxpl, H5FD_MPIO_INDIVIDUAL_IO) < 0))) {
        H5Pclose(dxpl);
        dxpl = -1;
    }
    return dxpl;
}

/* 1 when this rank's selection of a contiguous dataset is one run of
 * consecutive elements in the file (or nothing): every dimension after
 * the first with more than one index is whole.  When every rank's is, a
 * collective write has nothing to gain from MPI-IO's collective buffering
 * (the runs do not interleave: each rank's bytes go to the file in one
 * piece), and its cost is real: the two-phase exchange copies every rank's
 * bytes to the aggregators through the MPI transport before they are
 * written (Open MPI's ompio gathers all of a 1 GiB write to one rank on
 * one node).  ROMIO's default (romio_cb_write automatic) makes the same
 * choice for accesses that do not interleave. */
static int
par_one_run(const par_access_t *a)
{
    int d = 0;
    if (a->n == 0)
        return 1;
    while (d < a->nd && a->count[d] == 1)
        d++;
    if (d < a->nd && a->stride[d] != 1)
        return 0;
    for (int k = d + 1; k < a->nd; k++)
        if (a->start[k] != 0 || a->count[k] != a->fdims[k])
            return 0;
    return 1;
}

/* *individual = 1 when a collective access of a contiguous, unfiltered
 * variable is one run on every rank (par_one_run); all ranks compute it,
 * as HDF5 needs the same transfer mode on all. */
static int
par_agree_one_run(const par_access_t *a, int *individual)
{
    *individual = 0;
    if (!a->collective || a->var->storage != NC_CONTIGUOUS || a->var->nfilters != 0)
        return NC_NOERR;
    *individual = par_one_run(a);
    if (MPI_Allreduce(MPI_IN_PLACE, individual, 1, MPI_INT, MPI_LAND, a->comm) != MPI_SUCCESS)
        return NC_EMPI;
    return NC_NOERR;
}

static int
par_mem_type(par_access_t *a, hid_t *tidp)
{
    if (a->var->xtype == NC_CHAR) {
        hid_t t = H5Dget_type(a->hv->did);
        if (t < 0)
            return NC_EHDFERR;
        *tidp = t;
        return NC_NOERR;
    }
    return nc4h5_hdf5_type(a->f, a->var->xtype, NC_ENDIAN_NATIVE, 0, tidp);
}

/* ---- collective writes of filtered chunks ------------------------------------------- */

/* A collective write that covers whole chunks of a filtered variable does
 * not go through HDF5's filter pipeline: HDF5 would deflate with zlib
 * (it keeps its predefined deflate filter for itself, so libfilter's faster
 * coders cannot be registered in its place).  Instead every rank encodes
 * its own chunks with libfilter's chain (the filters and parameters HDF5
 * stored for the dataset, in its order, so the chunks are the ones any
 * HDF5 reads with the same filter ids) on the shared pool, and the chunks
 * are stored with H5Dwrite_chunk.  HDF5 allocates a chunk's file space in
 * that call and, in a file opened by the MPI-IO driver, every rank must
 * make the same allocations in the same order: so every rank stores every
 * chunk of the call, in rank order, each chunk's bytes broadcast by its
 * owner.  The ranks write the same bytes to the same places (no race); on
 * one node it costs a copy into the page cache per rank.
 *
 * Taken only when every rank agrees (one MPI_Allreduce): collective
 * access, a chunked dataset whose filters libfilter runs, values already in
 * the file type (no conversion by HDF5), unit strides, a selection of whole
 * chunks (a chunk that reaches past the extent is padded with the fill
 * value, as HDF5 pads it), chunks of at most 1 GiB (one MPI message), and
 * the environment not turning the pipeline off (NETCDF_FILTER_PIPELINE=0).
 * Otherwise HDF5's own collective write (the caller). */

static int par_fill(par_access_t *a, void *fill);

#define PAR_DIRECT_MAX_CHUNK ((size_t)1 << 30)

typedef struct {
    par_access_t *a;
    const unsigned char *src;     /* the request's values (count box, C order) */
    size_t size;                  /* element size */
    hsize_t cd[H5S_MAX_RANK];     /* chunk shape */
    hsize_t per[H5S_MAX_RANK];    /* chunks of the request along each dim */
    size_t celems;
    const unsigned char *fill;    /* one fill value, or NULL: zeros */
    ncf_chain *chain;
    void **out;                   /* per chunk: encoded bytes (malloc'ed) */
    unsigned long long *rec;      /* per chunk: nd offsets, size, mask */
    int *status;
} par_direct_t;

/* The start (in the dataset) and the part inside the request of local
 * chunk k. */
static void
direct_box(const par_direct_t *c, size_t k, hsize_t *off, hsize_t *len)
{
    const par_access_t *a = c->a;
    for (int d = a->nd - 1; d >= 0; d--) {
        hsize_t i = k % c->per[d];
        k /= c->per[d];
        off[d] = a->start[d] + i * c->cd[d];
        len[d] = a->start[d] + a->count[d] - off[d];
        if (len[d] > c->cd[d])
            len[d] = c->cd[d];
    }
}

/* Encode local chunk k: straight from the request when the chunk is one
 * contiguous run of it, else gathered row by row into a chunk buffer. */
static void
direct_task(void *arg, size_t k)
{
    par_direct_t *c = arg;
    const par_access_t *a = c->a;
    hsize_t off[H5S_MAX_RANK], len[H5S_MAX_RANK];
    size_t cbytes = c->celems * c->size, outlen = 0;
    unsigned mask = 0;
    unsigned char *tmp = NULL;
    const unsigned char *in;
    int nd = a->nd, padded = 0, contiguous = 1, outer = 0;
    size_t base = 0;

    direct_box(c, k, off, len);
    for (int d = 0; d < nd; d++)
        if (len[d] != c->cd[d])
            padded = 1;
    /* Contiguous in the request: inner dims whole, outer dims of one. */
    for (int d = nd - 1; d >= 0; d--) {
        if (outer && len[d] != 1)
            contiguous = 0;
        if (len[d] != a->count[d])
            outer = 1;
    }
    for (int d = 0; d < nd; d++)
        base = base * (size_t)a->count[d] + (size_t)(off[d] - a->start[d]);
    if (!padded && contiguous) {
        in = c->src + base * c->size;
    } else {
        size_t row = (size_t)len[nd - 1] * c->size, nrows = 1;
        hsize_t idx[H5S_MAX_RANK] = {0};
        if ((tmp = malloc(cbytes)) == NULL) {
            c->status[k] = NC_ENOMEM;
            return;
        }
        if (padded) {
            if (c->fill == NULL)
                memset(tmp, 0, cbytes);
            else
                for (size_t i = 0; i < c->celems; i++)
                    memcpy(tmp + i * c->size, c->fill, c->size);
        }
        for (int d = 0; d < nd - 1; d++)
            nrows *= (size_t)len[d];
        for (size_t r = 0; r < nrows; r++) {
            size_t s = 0, t = 0;
            for (int d = 0; d < nd; d++) {
                s = s * (size_t)a->count[d] + (size_t)(off[d] - a->start[d] + idx[d]);
                t = t * (size_t)c->cd[d] + (size_t)idx[d];
            }
            memcpy(tmp + t * c->size, c->src + s * c->size, row);
            for (int d = nd - 2; d >= 0; d--) {
                if (++idx[d] < len[d])
                    break;
                idx[d] = 0;
            }
        }
        in = tmp;
    }
    c->status[k] = ncf_chain_encode(c->chain, in, cbytes, &c->out[k], &outlen, &mask);
    free(tmp);
    if (c->status[k] == NC_NOERR && outlen > PAR_DIRECT_MAX_CHUNK + PAR_DIRECT_MAX_CHUNK / 8)
        c->status[k] = NC_EFILTER;
    unsigned long long *rec = c->rec + k * (size_t)(nd + 2);
    for (int d = 0; d < nd; d++)
        rec[d] = off[d];
    rec[nd] = outlen;
    rec[nd + 1] = mask;
}

/* This rank's view of whether the request can go by whole chunks; on yes,
 * c->chain and c->cd are set. */
static int
direct_usable(par_access_t *a, hid_t mtid, par_direct_t *c)
{
    const char *env = getenv(NC4H5_PIPELINE_ENV);
    nc4h5_chain_spec cs;
    hid_t dcpl = -1, ftid = -1;
    int ok = 0;

    if ((env != NULL && strcmp(env, "0") == 0) || !a->collective || a->nd < 1 ||
        a->var->nfilters == 0 || c->size == 0)
        return 0;
    if ((dcpl = H5Dget_create_plist(a->hv->did)) < 0)
        return 0;
    if (!nc4h5_dcpl_chain(dcpl, a->nd, c->cd, &cs))
        goto done;
    /* Bytes as stored: no conversion left for HDF5 to make. */
    if ((ftid = H5Dget_type(a->hv->did)) < 0 || H5Tequal(ftid, mtid) <= 0)
        goto done;
    c->celems = 1;
    for (int d = 0; d < a->nd; d++) {
        if (c->cd[d] == 0 || (double)c->celems * (double)c->cd[d] * (double)c->size >
                                 (double)PAR_DIRECT_MAX_CHUNK)
            goto done;
        c->celems *= (size_t)c->cd[d];
    }
    if (a->n > 0) {
        for (int d = 0; d < a->nd; d++) {
            hsize_t end = a->start[d] + a->count[d];
            /* Whole chunks; the last may reach past the extent. */
            if (a->stride[d] != 1 || a->start[d] % c->cd[d] != 0 ||
                (end % c->cd[d] != 0 && end != a->fdims[d]))
                goto done;
        }
    }
    if (ncf_chain_create(cs.nf, cs.specs, c->size, &c->chain) != NC_NOERR)
        goto done;
    ok = 1;
done:
    if (ftid >= 0) H5Tclose(ftid);
    H5Pclose(dcpl);
    return ok;
}

/* Write the request (values src in the file type) by whole chunks when
 * every rank can; *done = 0 leaves it to HDF5's collective write. */
static int
par_direct_write(par_access_t *a, const void *src, size_t size, hid_t mtid, int *done)
{
    par_direct_t c;
    int me, nranks, ok, stat = NC_NOERR, nd = a->nd;
    size_t nloc = 0, nrec = (size_t)nd + 2, total = 0;
    int *counts = NULL, *displs = NULL;
    unsigned long long *all = NULL;
    unsigned char *scratch = NULL, fill[64];
    size_t scratch_size = 0;
    hid_t dxpl = -1;

    *done = 0;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.src = src;
    c.size = size;
    ok = direct_usable(a, mtid, &c);
    if (MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, a->comm) != MPI_SUCCESS)
        stat = NC_EMPI;
    if (stat || !ok)
        goto done;
    *done = 1;
    if (MPI_Comm_rank(a->comm, &me) != MPI_SUCCESS || MPI_Comm_size(a->comm, &nranks) != MPI_SUCCESS) {
        stat = NC_EMPI;
        goto done;
    }
    if (a->n > 0) {
        nloc = 1;
        for (int d = 0; d < nd; d++) {
            c.per[d] = (a->count[d] + c.cd[d] - 1) / c.cd[d];
            nloc *= (size_t)c.per[d];
        }
        if (par_fill(a, fill) == NC_NOERR && !a->var->no_fill && size <= sizeof fill)
            c.fill = fill;
    }
    /* Encode this rank's chunks (local errors are agreed on below, so that
     * every rank leaves together). */
    if (nloc > (size_t)INT_MAX / nrec ||
        (nloc > 0 && ((c.out = calloc(nloc, sizeof *c.out)) == NULL ||
                      (c.rec = calloc(nloc * nrec, sizeof *c.rec)) == NULL ||
                      (c.status = calloc(nloc, sizeof *c.status)) == NULL)))
        stat = NC_ENOMEM;
    if (stat == NC_NOERR && nloc > 0)
        ncf_pool_run(nloc > 1 ? ncf_pool_default() : NULL, nloc, direct_task, &c);
    for (size_t k = 0; stat == NC_NOERR && k < nloc; k++)
        stat = c.status[k];
    /* Every rank learns every chunk: where, how long, which filters. */
    int mine = stat ? -1 : (int)(nloc * nrec);
    if ((counts = malloc((size_t)nranks * sizeof *counts)) == NULL ||
        (displs = malloc((size_t)nranks * sizeof *displs)) == NULL) {
        stat = NC_ENOMEM;
        mine = -1;
    }
    {
        int bad = mine < 0, anybad = 0;
        if (MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, a->comm) != MPI_SUCCESS)
            anybad = 1;
        if (anybad) {
            if (stat == NC_NOERR)
                stat = NC_EFILTER;
            goto done;
        }
    }
    if (MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, a->comm) != MPI_SUCCESS) {
        stat = NC_EMPI;
        goto done;
    }
    for (int r = 0; r < nranks; r++) {
        if ((size_t)counts[r] > (size_t)INT_MAX - total) {
            stat = NC_ENOMEM;
            break;
        }
        displs[r] = (int)total;
        total += (size_t)counts[r];
    }
    if (stat == NC_NOERR && (all = malloc((total ? total : 1) * sizeof *all)) == NULL)
        stat = NC_ENOMEM;
    /* The counts are the same everywhere, so every rank stops here alike. */
    if (stat)
        goto done;
    if (MPI_Allgatherv(c.rec, mine, MPI_UNSIGNED_LONG_LONG, all, counts, displs,
                       MPI_UNSIGNED_LONG_LONG, a->comm) != MPI_SUCCESS) {
        stat = NC_EMPI;
        goto done;
    }
    /* One receive buffer for the largest chunk of the other ranks; every
     * rank learns whether all have theirs before the broadcasts. */
    for (int r = 0; r < nranks; r++) {
        if (r == me)
            continue;
        for (int i = displs[r]; i < displs[r] + counts[r]; i += (int)nrec)
            if (all[i + nd] > scratch_size)
                scratch_size = (size_t)all[i + nd];
    }
    {
        int bad = (scratch_size > 0 && (scratch = malloc(scratch_size)) == NULL) ||
                  (dxpl = par_dxpl(0, 0)) < 0;
        int anybad = 0;
        if (MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, a->comm) != MPI_SUCCESS || anybad) {
            stat = bad ? NC_ENOMEM : NC_EMPI;
            goto done;
        }
    }
    /* Store every chunk on every rank, in rank order.  A failure stops the
     * stores but not the broadcasts, so no rank waits for another. */
    for (int r = 0; r < nranks; r++) {
        size_t n = (size_t)counts[r] / nrec;
        for (size_t k = 0; k < n; k++) {
            const unsigned long long *rec = all + displs[r] + k * nrec;
            size_t len = (size_t)rec[nd];
            hsize_t off[H5S_MAX_RANK];
            void *buf = r == me ? c.out[k] : scratch;
            if (MPI_Bcast(buf, (int)len, MPI_BYTE, r, a->comm) != MPI_SUCCESS && stat == NC_NOERR)
                stat = NC_EMPI;
            for (int d = 0; d < nd; d++)
                off[d] = (hsize_t)rec[d];
            if (stat == NC_NOERR &&
                H5Dwrite_chunk(a->hv->did, dxpl, (uint32_t)rec[nd + 1], off, len, buf) < 0)
                stat = NC_EHDFERR;
        }
    }
done:
    if (dxpl >= 0) H5Pclose(dxpl);
    for (size_t k = 0; c.out && k < nloc; k++)
        free(c.out[k]);
    free(c.out);
    free(c.rec);
    free(c.status);
    free(counts);
    free(displs);
    free(all);
    free(scratch);
    if (c.chain)
        ncf_chain_free(c.chain);
    return stat;
}

int
nc4h5_par_put_vars(int ncid, int varid, const size_t *startp, const size_t *countp,
                   const ptrdiff_t *stridep, const void *value, nc_type memtype)
{
    par_access_t a;
    hid_t msid = -1, mtid = -1, dxpl = -1;
    unsigned long long ext[H5S_MAX_RANK];
    int extend = 0, range = 0, individual = 0, stat;
    size_t size = 0;
    void *buf = NULL;
    const void *src = value;

    nc4h5_lock();
    if ((stat = par_prepare(ncid, varid, startp, countp, stridep, memtype, &a)))
        goto done;
    for (int d = 0; d < a.nd; d++) {
        hsize_t last = a.count[d] ? a.start[d] + a.stride[d] * (a.count[d] - 1) : a.start[d];
        ext[d] = a.fdims[d];
        if (!a.var->dims[d]->unlimited) {
            if ((stat = ncc_check_bound(a.start[d], a.count[d], a.stride[d], a.fdims[d], a.n == 0)))
                goto done;
        } else if (a.n > 0 && last >= a.fdims[d]) {
            ext[d] = last + 1;
            extend = 1;
        }
    }
    /* Growing is collective: every rank learns whether one grows, and to
     * what extent (upstream's rule). */
    if (a.collective && a.nd > 0) {
        if (MPI_Allreduce(MPI_IN_PLACE, &extend, 1, MPI_INT, MPI_LOR, a.comm) != MPI_SUCCESS ||
            (extend && MPI_Allreduce(MPI_IN_PLACE, ext, a.nd, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                                     a.comm) != MPI_SUCCESS)) {
            stat = NC_EMPI;
            goto done;
        }
    }
    /* One run per rank: every rank writes its own. */
    if ((stat = par_agree_one_run(&a, &individual)) != NC_NOERR)
        goto done;
    if (extend) {
        hsize_t hext[H5S_MAX_RANK];
        if (!a.collective) {
            stat = NC_ECANTEXTEND;
            goto done;
        }
        for (int d = 0; d < a.nd; d++)
            a.fdims[d] = hext[d] = (hsize_t)ext[d];
        if (H5Dset_extent(a.hv->did, hext) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        H5Sclose(a.fsid);
        if ((a.fsid = H5Dget_space(a.hv->did)) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        for (int d = 0; d < a.nd; d++)
            if (a.var->dims[d]->unlimited && a.var->dims[d]->len < (size_t)ext[d])
                a.var->dims[d]->len = (size_t)ext[d];
    }
    if (a.n > 0 && value == NULL) {
        stat = NC_EHDFERR;
        goto done;
    }
    if ((size = nc4_type_size(a.f, a.var->xtype)) == 0) {
        stat = NC_EBADTYPE;
        goto done;
    }
    if (a.n > 0 && a.convert) {
        if (a.n > SIZE_MAX / size || (buf = malloc(a.n * size)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        stat = ncx_convert(a.memtype, value, a.var->xtype, buf, a.n);
        if (stat == NC_ERANGE) {
            stat = NC_NOERR;
            range = !(a.f->classic_model &&
                      (a.var->xtype == NC_BYTE || a.var->xtype == NC_UBYTE) &&
                      (a.memtype == NC_BYTE || a.memtype == NC_UBYTE));
        }
        if (stat)
            goto done;
        src = buf;
    }
    if (a.n > 0 && a.var->quantize_mode &&
        (a.var->xtype == NC_FLOAT || a.var->xtype == NC_DOUBLE)) {
        if (buf == NULL) {
            if (a.n > SIZE_MAX / size || (buf = malloc(a.n * size)) == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            memcpy(buf, value, a.n * size);
            src = buf;
        }
        stat = a.var->xtype == NC_FLOAT
                   ? ncf_quantize_float(a.var->quantize_mode, a.var->nsd, a.var->fill_value, buf, a.n)
                   : ncf_quantize_double(a.var->quantize_mode, a.var->nsd, a.var->fill_value, buf,
                                         a.n);
        if (stat)
            goto done;
    }
    if ((stat = par_mem_type(&a, &mtid)))
        goto done;
    if (a.collective && a.var->nfilters > 0) {
        int direct = 0;
        if ((stat = par_direct_write(&a, src, size, mtid, &direct)) || direct)
            goto done;
    }
    if (a.nd == 0) {
        msid = H5Screate(H5S_SCALAR);
    } else if (a.n == 0) {
        /* Nothing here: empty selections, so that a collective call still
         * has this rank. */
        /* (A memory space of one element, none selected: a null space
         * makes HDF5 1.10.8's collective write store one element.) */
        hsize_t one = 1;
        if (!a.collective)
            goto done;
        msid = H5Screate_simple(1, &one, NULL);
        if (msid >= 0 && (H5Sselect_none(msid) < 0 || H5Sselect_none(a.fsid) < 0))
            stat = NC_EHDFERR;
    } else {
        if (H5Sselect_hyperslab(a.fsid, H5S_SELECT_SET, a.start, a.stride, a.count, NULL) < 0)
            stat = NC_EHDFERR;
        msid = H5Screate_simple(a.nd, a.count, NULL);
    }
    if (stat == NC_NOERR && (msid < 0 || (dxpl = par_dxpl(a.collective, individual)) < 0))
        stat = NC_EHDFERR;
    if (stat == NC_NOERR && H5Dwrite(a.hv->did, mtid, msid, a.fsid, dxpl, src) < 0)
        stat = NC_EHDFERR;
done:
    free(buf);
    if (dxpl >= 0) H5Pclose(dxpl);
    if (msid >= 0) H5Sclose(msid);
    if (a.fsid >= 0) H5Sclose(a.fsid);
    if (mtid >= 0) H5Tclose(mtid);
    nc4h5_unlock();
    if (stat)
        return stat;
    return range ? NC_ERANGE : NC_NOERR;
}

/* One value of the variable's fill (its own or the default) into fill. */
static int
par_fill(par_access_t *a, void *fill)
{
    if (a->var->fill_value != NULL)
        return nc4_copy_values(a->f, a->var->xtype, a->var->fill_value, fill, 1);
    return nc4_default_fill(a->f, a->var->xtype, fill);
}

int
nc4h5_par_get_vars(int ncid, int varid, const size_t *startp, const size_t *countp,
                   const ptrdiff_t *stridep, void *value, nc_type memtype)
{
    par_access_t a;
    hid_t msid = -1, mtid = -1, dxpl = -1;
    hsize_t incount[H5S_MAX_RANK], zeros[H5S_MAX_RANK] = {0};
    size_t size = 0, nin = 1;
    int partial = 0, range = 0, individual = 0, stat;
    unsigned char *buf = NULL;

    nc4h5_lock();
    if ((stat = par_prepare(ncid, varid, startp, countp, stridep, memtype, &a)))
        goto done;
    for (int d = 0; d < a.nd; d++) {
        hsize_t len = a.fdims[d];
        if (a.var->dims[d]->unlimited && (hsize_t)a.var->dims[d]->len > len)
            len = a.var->dims[d]->len;
        if ((stat = ncc_check_bound(a.start[d], a.count[d], a.stride[d], len, a.n == 0)))
            goto done;
        /* The part of the request inside this dataset's extent; the rest
         * (an unlimited dimension another variable grew) reads as fill. */
        incount[d] = a.count[d];
        if (a.count[d] && a.start[d] + a.stride[d] * (a.count[d] - 1) >= a.fdims[d]) {
            incount[d] = a.start[d] >= a.fdims[d]
                             ? 0
                             : (a.fdims[d] - a.start[d] + a.stride[d] - 1) / a.stride[d];
            partial = 1;
        }
        nin *= (size_t)incount[d];
    }
    if (a.n == 0)
        nin = 0;
    /* One run per rank: every rank reads its own (as a write does). */
    if ((stat = par_agree_one_run(&a, &individual)) != NC_NOERR)
        goto done;
    if (a.n > 0 && value == NULL) {
        stat = NC_EHDFERR;
        goto done;
    }
    if ((size = nc4_type_size(a.f, a.var->xtype)) == 0) {
        stat = NC_EBADTYPE;
        goto done;
    }
    if (a.n > 0) {
        buf = value;
        if (a.convert && (a.n > SIZE_MAX / size || (buf = malloc(a.n * size)) == NULL)) {
            stat = NC_ENOMEM;
            goto done;
        }
        if (partial) {
            unsigned char fill[64];
            if (size > sizeof fill || (stat = par_fill(&a, fill)))
                goto done;
            for (size_t i = 0; i < a.n; i++)
                memcpy(buf + i * size, fill, size);
        }
    }
    if ((stat = par_mem_type(&a, &mtid)))
        goto done;
    if (a.nd == 0) {
        msid = H5Screate(H5S_SCALAR);
    } else if (nin == 0) {
        hsize_t one = 1;
        if (!a.collective)
            goto convert;
        msid = H5Screate_simple(1, &one, NULL);
        if (msid >= 0 && (H5Sselect_none(msid) < 0 || H5Sselect_none(a.fsid) < 0))
            stat = NC_EHDFERR;
    } else {
        if (H5Sselect_hyperslab(a.fsid, H5S_SELECT_SET, a.start, a.stride, incount, NULL) < 0)
            stat = NC_EHDFERR;
        msid = H5Screate_simple(a.nd, a.count, NULL);
        if (msid >= 0 && partial &&
            H5Sselect_hyperslab(msid, H5S_SELECT_SET, zeros, NULL, incount, NULL) < 0)
            stat = NC_EHDFERR;
    }
    if (stat == NC_NOERR && (msid < 0 || (dxpl = par_dxpl(a.collective, individual)) < 0))
        stat = NC_EHDFERR;
    if (stat == NC_NOERR && H5Dread(a.hv->did, mtid, msid, a.fsid, dxpl, buf) < 0)
        stat = NC_EHDFERR;
    if (stat)
        goto done;
convert:
    if (a.n > 0 && a.convert) {
        stat = ncx_convert(a.var->xtype, buf, a.memtype, value, a.n);
        if (stat == NC_ERANGE) {
            stat = NC_NOERR;
            range = !(a.f->classic_model &&
                      (a.var->xtype == NC_BYTE || a.var->xtype == NC_UBYTE) &&
                      (a.memtype == NC_BYTE || a.memtype == NC_UBYTE));
        }
    }
done:
    if (buf != NULL && buf != value)
        free(buf);
    if (dxpl >= 0) H5Pclose(dxpl);
    if (msid >= 0) H5Sclose(msid);
    if (a.fsid >= 0) H5Sclose(a.fsid);
    if (mtid >= 0) H5Tclose(mtid);
    nc4h5_unlock();
    if (stat)
        return stat;
    return range ? NC_ERANGE : NC_NOERR;
}

#endif /* NC_ENABLE_PARALLEL4 */
