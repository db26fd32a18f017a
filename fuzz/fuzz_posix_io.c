/* fuzz_posix_io.c: libFuzzer target for the POSIX storage backend of the
 * classic formats, its read-ahead buffer and its write-behind buffer.
 *
 * Input: 4 control bytes, then a file image.  The image is written to a
 * real file (under $TMPDIR, default /dev/shm) and opened twice: through the
 * POSIX backend (nc_open or nc__open with an odd chunk hint, NC_SHARE or not)
 * and through the memory backend (nc_open_mem).  Every read is made on
 * both in an order that defeats read-ahead (last element first, backwards,
 * strided, transposed varm, converted to double) and the two results must
 * agree, status included.
 * Then a copy is opened NC_WRITE (NC_SHARE or not, fill or not): one
 * region per variable is written (records appended when they are small)
 * and read back at once; optionally redef/enddef grows the header, which
 * moves the data, and every small variable must read as before; after
 * close the file, reread through the memory backend, must hold what was
 * written.  A mismatch is __builtin_trap().
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include "netcdf.h"
#include "netcdf_mem.h"
#include "fuzz_lib_common.h"

#define MAXVARS 32          /* variables looked at */
#define WHOLE_MAX (1u << 18) /* bytes of a whole-variable read */
#define SNAP_MAX (1u << 21) /* bytes of all snapshots together */

static char path_r[256], path_w[256];

typedef struct {
    nc_type type;
    int ndims;
    int rec;                        /* first dim is the record dim */
    size_t shape[NC_MAX_VAR_DIMS];  /* record dim: numrecs */
    size_t nelems;                  /* saturating at SIZE_MAX */
    size_t es;                      /* element size */
} VInfo;

static int
var_info(int ncid, int varid, VInfo *vi)
{
    int dimids[NC_MAX_VAR_DIMS], unlim = -1;
    memset(vi, 0, sizeof *vi);
    if (nc_inq_var(ncid, varid, NULL, &vi->type, &vi->ndims, dimids, NULL))
        return -1;
    if (nc_inq_type(ncid, vi->type, NULL, &vi->es) || vi->es == 0 || vi->es > 8)
        return -1;
    (void)nc_inq_unlimdim(ncid, &unlim);
    vi->nelems = 1;
    for (int i = 0; i < vi->ndims; i++) {
        if (nc_inq_dimlen(ncid, dimids[i], &vi->shape[i]))
            return -1;
        if (i == 0 && dimids[0] == unlim)
            vi->rec = 1;
        if (vi->shape[i] && vi->nelems > SIZE_MAX / vi->shape[i])
            vi->nelems = SIZE_MAX;
        else
            vi->nelems *= vi->shape[i];
    }
    return 0;
}

/* One read on both datasets; results and statuses must agree.  form: 0
 * vara, 1 vars, 2 varm, 3 var1, 4 vara as double. */
static void
read_both(int np, int nm, int varid, const VInfo *vi, int form, const size_t *start,
          const size_t *count, const ptrdiff_t *stride, const ptrdiff_t *imap, size_t nel)
{
    size_t es = form == 4 ? sizeof(double) : vi->es, bytes = (nel ? nel : 1) * es;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    int ea, eb;
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return;
    }
    memset(a, 0x5A, bytes);
    memset(b, 0x5A, bytes);
    switch (form) {
    case 0:
        ea = nc_get_vara(np, varid, start, count, a);
        eb = nc_get_vara(nm, varid, start, count, b);
        break;
    case 1:
        ea = nc_get_vars(np, varid, start, count, stride, a);
        eb = nc_get_vars(nm, varid, start, count, stride, b);
        break;
    case 2:
        ea = nc_get_varm(np, varid, start, count, stride, imap, a);
        eb = nc_get_varm(nm, varid, start, count, stride, imap, b);
        break;
    case 3:
        ea = nc_get_var1(np, varid, start, a);
        eb = nc_get_var1(nm, varid, start, b);
        break;
    default:
        ea = nc_get_vara_double(np, varid, start, count, (double *)a);
        eb = nc_get_vara_double(nm, varid, start, count, (double *)b);
        break;
    }
    CHECK(ea == eb);
    if (ea == NC_NOERR || ea == NC_ERANGE)
        CHECK(memcmp(a, b, bytes) == 0);
    free(a);
    free(b);
}

/* Reads of one variable through both backends. */
static void
read_var(int np, int nm, int varid)
{
    VInfo vi;
    size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    ptrdiff_t stride[NC_MAX_VAR_DIMS], imap[NC_MAX_VAR_DIMS];
    size_t nel;
    if (var_info(np, varid, &vi))
        return;
    if (vi.ndims > 8)
        return;
    /* Whole, when small. */
    if (vi.nelems != SIZE_MAX && vi.nelems * vi.es <= WHOLE_MAX) {
        for (int i = 0; i < vi.ndims; i++) {
            start[i] = 0;
            count[i] = vi.shape[i];
        }
        read_both(np, nm, varid, &vi, 0, start, count, NULL, NULL, vi.nelems);
        if (vi.type != NC_CHAR && vi.nelems * 8 <= WHOLE_MAX)
            read_both(np, nm, varid, &vi, 4, start, count, NULL, NULL, vi.nelems);
    }
    if (vi.nelems == 0)
        return;
    /* Single elements, backwards from the last, and a few at random. */
    for (int k = 0; k < 6; k++) {
        for (int i = 0; i < vi.ndims; i++) {
            size_t n = vi.shape[i];
            start[i] = k == 0 ? n - 1 : k == 1 ? n / 2 : k == 2 ? 0 : (size_t)(rnd() % n);
        }
        read_both(np, nm, varid, &vi, 3, start, NULL, NULL, NULL, 1);
    }
    /* Strided sample and its transposed varm, at most 512 elements. */
    nel = 1;
    for (int i = 0; i < vi.ndims; i++) {
        size_t n = vi.shape[i];
        start[i] = (size_t)(rnd() % n);
        stride[i] = 1 + (ptrdiff_t)(rnd() % (n > 3 ? n / 2 : 2));
        count[i] = (n - start[i] - 1) / (size_t)stride[i] + 1;
        if (count[i] > 4)
            count[i] = 1 + rnd() % 4;
        nel *= count[i];
    }
    if (nel <= 512) {
        read_both(np, nm, varid, &vi, 1, start, count, stride, NULL, nel);
        ptrdiff_t acc = 1;
        for (int i = 0; i < vi.ndims; i++) {
            imap[i] = acc;
            acc *= (ptrdiff_t)count[i];
        }
        read_both(np, nm, varid, &vi, 2, start, count, stride, imap, nel);
        read_both(np, nm, varid, &vi, 4, start, count, NULL, NULL, nel);
    }
}


/* ---- the write phase ---------------------------------------------------------- */

typedef struct {
    int varid;
    size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    size_t nel, es;
    unsigned char *data;
} Wr;

typedef struct {
    int varid;
    size_t bytes;
    unsigned char *data;
} Snapv;

static int
get_region(int ncid, const Wr *w, unsigned char *out)
{
    return nc_get_vara(ncid, w->varid, w->start, w->count, out);
}

static void
write_phase(const uint8_t *ctl, const uint8_t *img, size_t n)
{
    int ncid, nvars, e, mode = NC_WRITE | ((ctl[1] & 1) ? NC_SHARE : 0);
    Wr wr[8];
    int nwr = 0, io_error = 0;
    Snapv snap[MAXVARS];
    int nsnap = 0;
    size_t snapbytes = 0, recsize = 0;
    if (write_file(path_w, img, n))
        return;
    if (nc_open(path_w, mode, &ncid) != NC_NOERR)
        return;
    if (ctl[1] & 2)
        (void)nc_set_fill(ncid, NC_NOFILL, NULL);
    if (nc_inq_nvars(ncid, &nvars))
        goto out;
    if (nvars > MAXVARS)
        nvars = MAXVARS;
    /* Bytes of one record of all record variables: appending costs that. */
    for (int v = 0; v < nvars; v++) {
        VInfo vi;
        if (var_info(ncid, v, &vi) || !vi.rec)
            continue;
        size_t r = vi.es;
        for (int i = 1; i < vi.ndims; i++)
            r = vi.shape[i] && r > SIZE_MAX / vi.shape[i] ? SIZE_MAX : r * vi.shape[i];
        recsize = recsize > SIZE_MAX - r ? SIZE_MAX : recsize + r;
    }
    for (int v = 0; v < nvars && nwr < 8; v++) {
        VInfo vi;
        Wr *w = &wr[nwr];
        if (var_info(ncid, v, &vi) || vi.ndims > 8 || !(ctl[2] & (1u << (v % 8))))
            continue;
        w->varid = v;
        w->es = vi.es;
        w->nel = 1;
        for (int i = 0; i < vi.ndims; i++) {
            size_t len = vi.shape[i];
            if (i == 0 && vi.rec && (rnd() & 1) && recsize <= (1u << 16) && len < 1000)
                len++;      /* append a record */
            if (len == 0)
                goto next;
            w->start[i] = (size_t)(rnd() % len);
            w->count[i] = 1 + (size_t)(rnd() % (len - w->start[i] < 5 ? len - w->start[i] : 5));
            w->nel *= w->count[i];
        }
        w->data = malloc(w->nel * w->es);
        if (w->data == NULL)
            goto next;
        for (size_t j = 0; j < w->nel * w->es; j++)
            w->data[j] = (unsigned char)rnd();
        if (vi.type == NC_FLOAT || vi.type == NC_DOUBLE)     /* no NaNs */
            for (size_t j = 0; j < w->nel; j++)
                w->data[j * w->es] &= 0x3F;
        e = nc_put_vara(ncid, v, w->start, w->count, w->data);
        if (e != NC_NOERR) {
            /* A write-behind flush may report an earlier write's failure
             * (EFBIG past FILE_LIMIT): nothing written is certain now. */
            io_error = 1;
            free(w->data);
            goto next;
        }
        {
            unsigned char *back = malloc(w->nel * w->es);
            CHECK(back != NULL);
            e = get_region(ncid, w, back);
            if (e != NC_NOERR)
                io_error = 1;
            else if (!io_error)
                CHECK(memcmp(back, w->data, w->nel * w->es) == 0);
            free(back);
        }
        nwr++;
    next:;
    }
    if ((ctl[1] & 4) && nc_sync(ncid) != NC_NOERR)
        io_error = 1;
    /* Grow the header: data moves, and must read as before.  Only when all
     * the data the header declares is small: the move copies all of it,
     * even what lies past the end of the file. */
    size_t declared = 0;
    for (int v = 0; v < nvars && declared <= SNAP_MAX; v++) {
        VInfo vi;
        if (var_info(ncid, v, &vi) || vi.nelems > SNAP_MAX)
            declared = SIZE_MAX;
        else
            declared += vi.nelems * vi.es;
    }
    if ((ctl[1] & 8) && declared <= SNAP_MAX) {
        for (int v = 0; v < nvars; v++) {
            VInfo vi;
            if (var_info(ncid, v, &vi) || vi.nelems == SIZE_MAX || vi.nelems * vi.es > WHOLE_MAX
                || snapbytes + vi.nelems * vi.es > SNAP_MAX)
                continue;
            Snapv *s = &snap[nsnap];
            s->varid = v;
            s->bytes = vi.nelems * vi.es;
            if ((s->data = malloc(s->bytes ? s->bytes : 1)) == NULL)
                continue;
            if (nc_get_var(ncid, v, s->data) != NC_NOERR) {
                free(s->data);
                continue;
            }
            snapbytes += s->bytes;
            nsnap++;
        }
        if (nc_redef(ncid) == NC_NOERR) {
            static char pad[1024];
            size_t len = (size_t)ctl[3] * 4;
            memset(pad, 'x', sizeof pad);
            (void)nc_put_att_text(ncid, NC_GLOBAL, "fuzz_header_growth", len, pad);
            e = (ctl[1] & 16) ? nc__enddef(ncid, (size_t)ctl[3], 4, 0, 4) : nc_enddef(ncid);
            if (e == NC_NOERR && !io_error) {
                for (int k = 0; k < nsnap; k++) {
                    unsigned char *now = malloc(snap[k].bytes ? snap[k].bytes : 1);
                    CHECK(now != NULL);
                    e = nc_get_var(ncid, snap[k].varid, now);
                    if (e != NC_NOERR)
                        io_error = 1;
                    else if (!io_error)
                        CHECK(memcmp(now, snap[k].data, snap[k].bytes) == 0);
                    free(now);
                }
            } else {
                io_error = 1;   /* header and data may be anywhere now */
            }
        }
    }
out:
    e = nc_close(ncid);
    /* Reread through the memory backend. */
    if (e == NC_NOERR && !io_error && (nwr > 0 || nsnap > 0)) {
        size_t fn = 0;
        void *fb = read_file(path_w, &fn, 16L << 20);
        int nm;
        if (fb != NULL && nc_open_mem("w.nc", NC_NOWRITE, fn, fb, &nm) == NC_NOERR) {
            for (int k = 0; k < nwr; k++) {
                unsigned char *back = malloc(wr[k].nel * wr[k].es);
                CHECK(back != NULL);
                CHECK(get_region(nm, &wr[k], back) == NC_NOERR);
                CHECK(memcmp(back, wr[k].data, wr[k].nel * wr[k].es) == 0);
                free(back);
            }
            nc_close(nm);
        } else if (fb != NULL) {
            CHECK(0);   /* a file we wrote and closed must open */
        }
        free(fb);
    }
    for (int k = 0; k < nwr; k++)
        free(wr[k].data);
    for (int k = 0; k < nsnap; k++)
        free(snap[k].data);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t hints[] = {0, 1, 7, 512, 4096, 8193, 65536, 1 << 20};
    const uint8_t *ctl = data;
    const uint8_t *img = data + 4;
    size_t n;
    int np, nm, nvars, mode, e;
    void *copy;
    if (size < 4 + 4)
        return 0;
    n = size - 4;
    if (path_r[0] == 0) {
        const char *dir = fuzz_scratch_dir();
        snprintf(path_r, sizeof path_r, "%s/fuzz_posix_io-%ld-r.nc", dir, (long)getpid());
        snprintf(path_w, sizeof path_w, "%s/fuzz_posix_io-%ld-w.nc", dir, (long)getpid());
    }
    rng = ((uint64_t)ctl[0] << 32 | ctl[3] << 8 | 1) * 0x9E3779B97F4A7C15ull;
    if (write_file(path_r, img, n))
        return 0;
    mode = NC_NOWRITE | ((ctl[0] & 1) ? NC_SHARE : 0);
    if (ctl[0] & 2) {
        size_t hint = hints[(ctl[0] >> 2) % 8];
        e = nc__open(path_r, mode, &hint, &np);
    } else {
        e = nc_open(path_r, mode, &np);
    }
    copy = malloc(n);
    if (copy == NULL) {
        if (e == NC_NOERR)
            nc_close(np);
        unlink(path_r);
        return 0;
    }
    memcpy(copy, img, n);
    int em = nc_open_mem("m.nc", NC_NOWRITE, n, copy, &nm);
    CHECK((e == NC_NOERR) == (em == NC_NOERR));  /* both backends accept the same files */
    if (e == NC_NOERR) {
        if (nc_inq_nvars(np, &nvars) == NC_NOERR) {
            if (nvars > MAXVARS)
                nvars = MAXVARS;
            for (int v = 0; v < nvars; v++)
                read_var(np, nm, v);
        }
        nc_close(np);
        nc_close(nm);
        write_phase(ctl, img, n);
    }
    free(copy);
    unlink(path_r);
    unlink(path_w);
    return 0;
}
