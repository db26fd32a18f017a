/* nc3data.c: reading and writing classic variable data, and fill values.
 *
 * Access engine: a request (start, count, stride) is reduced to "rows":
 * inner dimensions read whole with stride 1 are merged with their outer
 * neighbour while the bytes stay contiguous, so a slab of full rows is one
 * row.  Each row is a run of n elements at a fixed element stride.
 *   - contiguous rows are converted from the backend's page-congruent
 *     read buffer (io->peek) into the caller's; backends without peek read
 *     straight into the caller's buffer and convert in place;
 *   - strided rows are gathered from a 1 MiB window of the file;
 *   - contiguous writes encode into the backend's write-behind space
 *     (io->reserve) or a 1 MiB staging buffer; strided writes
 *     read-modify-write the covered span.
 *
 * Deferred fill: in fill mode a fixed-size variable is not filled at
 * enddef.  It is marked fillpending and the byte ranges written to it are
 * recorded; only the never-written gaps are filled, when the variable is
 * read, written with a stride, when the range list grows long, and at
 * sync/redef/close.  The resulting file is identical to filling first.
 * Record variables are filled (file-wide fill mode, as upstream) when the
 * record count grows.
 */
#include <stdlib.h>
#include <string.h>
#include "nc3internal.h"
#include "ncfilter.h"
#include "ncx.h"

#define MAX_RANGES 64           /* written ranges tracked before filling early */
#define READ_PIECE (256u << 10) /* contiguous reads without peek: convert while still in cache */

/* ---- fill values ---------------------------------------------------------- */

/* External bytes of one fill element of var: its _FillValue or the default.
 * NC_EBADTYPE if _FillValue has the wrong type or not exactly one value. */
int
nc3_fill_value(const NC3_var *var, unsigned char xfill[8])
{
    const NC3_att *fa = nc3_find_att(&var->atts, _FillValue, NULL);
    unsigned char native[8];
    int stat;
    if (fa != NULL) {
        if (fa->type != var->type || fa->nelems != 1)
            return NC_EBADTYPE;
        memcpy(xfill, fa->xvalue, var->xsz);
        return NC_NOERR;
    }
    if ((stat = ncx_default_fill(var->type, native)))
        return stat;
    if (var->type == NC_CHAR) {
        xfill[0] = native[0];
        return NC_NOERR;
    }
    stat = ncx_putn(var->type, native, var->type, xfill, 1, NULL);
    return stat == NC_ERANGE ? NC_NOERR : stat;
}

/* Write the fill pattern of var over [off, off+n) of the file; off is at
 * an element boundary of the pattern. */
static int
write_fill(NC3_info *info, const NC3_var *var, unsigned long long off, unsigned long long n)
{
    unsigned char xfill[8], *buf;
    size_t i, blk;
    int stat;
    if (n == 0)
        return NC_NOERR;
    if ((stat = nc3_fill_value(var, xfill)) || (stat = nc3_iobuf(info, &buf)))
        return stat;
    blk = NC3_IOBUF;
    if (blk > n)
        blk = (size_t)((n + var->xsz - 1) / var->xsz * var->xsz);
    for (i = 0; i < blk; i += var->xsz)
        memcpy(buf + i, xfill, var->xsz);
    while (n > 0) {
        size_t w = n < NC3_IOBUF ? (size_t)n : NC3_IOBUF;
        if ((stat = info->io->write_at(info->io, (long long)off, buf, w)))
            return stat;
        off += w;
        n -= w;
    }
    return NC_NOERR;
}

/* Fill the never-written parts of a fillpending fixed variable. */
int
nc3_flush_fill(NC3_info *info, NC3_var *var)
{
    unsigned long long pos = 0;
    size_t i;
    int stat = NC_NOERR;
    if (!var->fillpending)
        return NC_NOERR;
    for (i = 0; i < var->nwritten && stat == NC_NOERR; i++) {
        if (var->written[i].lo > pos)
            stat = write_fill(info, var, (unsigned long long)var->begin + pos, var->written[i].lo - pos);
        pos = var->written[i].hi;
    }
    if (stat == NC_NOERR && pos < var->len)
        stat = write_fill(info, var, (unsigned long long)var->begin + pos, var->len - pos);
    if (stat == NC_NOERR) {
        var->fillpending = 0;
        free(var->written);
        var->written = NULL;
        var->nwritten = var->wcap = 0;
    }
    return stat;
}

int
nc3_flush_all_fill(NC3_info *info)
{
    size_t i;
    int stat;
    for (i = 0; i < info->nvars; i++)
        if ((stat = nc3_flush_fill(info, info->vars[i])))
            return stat;
    return NC_NOERR;
}

/* Record [lo, hi) (bytes from var->begin) as written. */
static int
note_written(NC3_info *info, NC3_var *var, unsigned long long lo, unsigned long long hi)
{
    size_t i, j;
    NC3_range *r;
    if (!var->fillpending || lo >= hi)
        return NC_NOERR;
    r = var->written;
    /* Common case: appending right after (or overlapping) the last range. */
    if (var->nwritten && lo >= r[var->nwritten - 1].lo) {
        NC3_range *last = &r[var->nwritten - 1];
        if (lo <= last->hi) {
            if (hi > last->hi)
                last->hi = hi;
            return NC_NOERR;
        }
    }
    if (var->nwritten == var->wcap) {
        size_t ncap = var->wcap ? 2 * var->wcap : 4;
        NC3_range *nr = realloc(var->written, ncap * sizeof *nr);
        if (nr == NULL)
            return NC_ENOMEM;
        var->written = r = nr;
        var->wcap = ncap;
    }
    /* Insert in order, then merge neighbours that touch. */
    for (i = var->nwritten; i > 0 && r[i - 1].lo > lo; i--)
        r[i] = r[i - 1];
    r[i].lo = lo;
    r[i].hi = hi;
    var->nwritten++;
    for (i = 0, j = 0; i < var->nwritten; i++) {
        if (j > 0 && r[i].lo <= r[j - 1].hi) {
            if (r[i].hi > r[j - 1].hi)
                r[j - 1].hi = r[i].hi;
        } else {
            r[j++] = r[i];
        }
    }
    var->nwritten = j;
    /* Too scattered: fill the rest now.  The new range is already in the
     * list, so the data just written is not overwritten by fill. */
    if (var->nwritten > MAX_RANGES)
        return nc3_flush_fill(info, var);
    return NC_NOERR;
}

/* Fill records [from, to) of the record variables with index >= first_var
 * (only those with fill on, if per_var). */
static int
fill_recs(NC3_info *info, unsigned long long from, unsigned long long to, size_t first_var,
          int per_var)
{
    size_t i, nrec = 0;
    unsigned long long r;
    int stat;
    for (i = 0; i < info->nvars; i++)
        if (info->vars[i]->isrec)
            nrec++;
    for (r = from; r < to; r++)
        for (i = first_var; i < info->nvars; i++) {
            const NC3_var *var = info->vars[i];
            if (!var->isrec || (per_var && var->no_fill))
                continue;
            if ((stat = write_fill(info, var, (unsigned long long)var->begin + r * info->recsize,
                                   nrec == 1 ? info->recsize : var->len)))
                return stat;
        }
    return NC_NOERR;
}

/* Records of variables added by redef, each per its own fill mode.  Many
 * small records are filled in batches: read a run of records, lay the fill
 * values of the new variables into it, write it back (the other bytes are
 * written back unchanged), instead of one write per record and variable. */
int
nc3_fill_records(NC3_info *info, unsigned long long from, unsigned long long to, int only_new_from)
{
    size_t first = only_new_from > 0 ? (size_t)only_new_from : 0, i, nrec = 0;
    unsigned long long per, r0, r1, r;
    long long lo = -1, hi = -1;
    unsigned char *buf;
    int stat;
    for (i = 0; i < info->nvars; i++)
        if (info->vars[i]->isrec)
            nrec++;
    /* extent within a record of the variables to fill */
    for (i = first; i < info->nvars; i++) {
        const NC3_var *var = info->vars[i];
        long long end;
        if (!var->isrec || var->no_fill)
            continue;
        end = var->begin + (long long)(nrec == 1 ? info->recsize : var->len);
        if (lo < 0 || var->begin < lo)
            lo = var->begin;
        if (end > hi)
            hi = end;
    }
    if (lo < 0 || to <= from)
        return NC_NOERR;
    if (nrec == 1 || info->recsize == 0 || (unsigned long long)(hi - lo) > NC3_IOBUF / 2
        || to - from < 2)
        return fill_recs(info, from, to, first, 1);
    per = 1 + (NC3_IOBUF - (unsigned long long)(hi - lo)) / info->recsize;
    if ((stat = nc3_iobuf(info, &buf)))
        return stat;
    for (r0 = from; r0 < to; r0 = r1) {
        long long off = lo + (long long)(info->recsize * r0);
        size_t n;
        r1 = to - r0 > per ? r0 + per : to;
        n = (size_t)(info->recsize * (r1 - 1 - r0) + (unsigned long long)(hi - lo));
        if ((stat = info->io->read_at(info->io, off, buf, n)))
            return stat;
        for (i = first; i < info->nvars; i++) {
            const NC3_var *var = info->vars[i];
            unsigned char xfill[8];
            size_t k;
            if (!var->isrec || var->no_fill)
                continue;
            if ((stat = nc3_fill_value(var, xfill)))
                return stat;
            for (r = r0; r < r1; r++) {
                unsigned char *p = buf + (var->begin - lo) + info->recsize * (r - r0);
                for (k = 0; k + var->xsz <= var->len; k += var->xsz)
                    memcpy(p + k, xfill, var->xsz);
                if (k < var->len)       /* padding of a short element run */
                    memcpy(p + k, xfill, var->len - k);
            }
        }
        if ((stat = info->io->write_at(info->io, off, buf, n)))
            return stat;
    }
    return NC_NOERR;
}

/* Grow the record count to nrecs, filling new records in fill mode. */
int
nc3_set_numrecs(NC3_info *info, unsigned long long nrecs)
{
    int stat;
    if (nrecs <= info->numrecs)
        return NC_NOERR;
    if (!(info->flags & NC3_NOFILL) && (stat = fill_recs(info, info->numrecs, nrecs, 0, 0)))
        return stat;
    info->numrecs = nrecs;
    info->flags |= NC3_NDIRTY;
    if (info->flags & NC3_SHARE)
        return nc3_write_numrecs(info);
    return NC_NOERR;
}

/* Copy nbytes from 'from' to 'to' (to > from allowed to overlap), from the end. */
int
nc3_io_move(NC3_info *info, long long to, long long from, unsigned long long nbytes)
{
    unsigned char *buf;
    int stat;
    if (to == from || nbytes == 0)
        return NC_NOERR;
    if ((stat = nc3_iobuf(info, &buf)))
        return stat;
    while (nbytes > 0) {
        size_t n = nbytes < NC3_IOBUF ? (size_t)nbytes : NC3_IOBUF;
        unsigned long long at = to > from ? nbytes - n : 0;
        if ((stat = info->io->read_at(info->io, from + (long long)at, buf, n))
            || (stat = info->io->write_at(info->io, to + (long long)at, buf, n)))
            return stat;
        nbytes -= n;
        if (to < from) {
            to += (long long)n;
            from += (long long)n;
        }
    }
    return NC_NOERR;
}

/* ---- request checks ------------------------------------------------------- */

typedef struct req {
    NC3_info *info;
    NC3_var *var;
    nc_type memtype;            /* memory type */
    nc_type xtype;              /* external type used for conversion */
    size_t memlen, xlen;
    int stage;                  /* never convert in the caller's buffer */
    int shared;                 /* other readers may run at once (nc3_reads_shared) */
    int nd;                     /* dims after merging */
    unsigned long long start[NC_MAX_VAR_DIMS + 1];
    unsigned long long count[NC_MAX_VAR_DIMS + 1];
    unsigned long long stride[NC_MAX_VAR_DIMS + 1];   /* in elements of that dim */
    unsigned long long step[NC_MAX_VAR_DIMS + 1];     /* bytes per index of that dim */
} req;

static int
check_types(NC3_info *info, NC3_var *var, nc_type *memtypep, req *rq)
{
    nc_type memtype = *memtypep;
    if (memtype == NC_NAT)
        memtype = var->type;
    if (memtype < NC_BYTE || memtype > NC_UINT64)
        return (memtype == NC_STRING) ? NC_ECHAR : NC_EBADTYPE;
    if ((memtype == NC_CHAR) != (var->type == NC_CHAR))
        return NC_ECHAR;
    rq->info = info;
    rq->var = var;
    rq->memtype = memtype;
    rq->xtype = (info->version != 5 && var->type == NC_BYTE && memtype == NC_UBYTE) ? NC_UBYTE : var->type;
    rq->memlen = ncx_memlen(memtype);
    rq->xlen = var->xsz;
    /* Convert from a separate buffer, not in place, when the caller's
     * buffer is smaller than the external data, or when an out-of-range
     * float/double -> integer value must leave its element untouched. */
    rq->stage = rq->memlen < rq->xlen
                || ((var->type == NC_FLOAT || var->type == NC_DOUBLE)
                    && memtype != NC_FLOAT && memtype != NC_DOUBLE);
    *memtypep = memtype;
    return NC_NOERR;
}

static int
check_mode(const NC3_info *info, int forwrite)
{
    if (forwrite && NC3_ISREADONLY(info))
        return NC_EPERM;
    if (NC3_INDEFINE(info))
        return NC_EINDEFINE;
    return NC_NOERR;
}

/* vara checks the mode first; strided access (upstream's generic vars in
 * libdispatch) checks the coordinates first, then the mode. */
static int
lookup(int ncid, int varid, int forwrite, int strided, NC3_info **infop, NC3_var **varp)
{
    NC3_info *info;
    int stat;
    if ((stat = nc3_get(ncid, NULL, &info)))
        return stat;
    if (!strided && (stat = check_mode(info, forwrite)))
        return stat;
    /* Upstream's classic vara (and so var1) names the global pseudo
     * variable NC_EGLOBAL; its generic strided code says NC_ENOTVAR. */
    if (!strided && varid == NC_GLOBAL)
        return NC_EGLOBAL;
    if (varid < 0 || (size_t)varid >= info->nvars)
        return NC_ENOTVAR;
    *infop = info;
    *varp = info->vars[varid];
    return NC_NOERR;
}

/* NC_SHARE readers re-read numrecs before judging a record index. */
static int
refresh_numrecs(NC3_info *info, unsigned long long need)
{
    if ((info->flags & NC3_SHARE) && NC3_ISREADONLY(info) && need > info->numrecs)
        return nc3_read_numrecs(info);
    return NC_NOERR;
}

/* Upstream's vara rules (RELAX_COORD_BOUND): start == dimlen is accepted
 * with count 0; start == dimlen with count > 0 is NC_EINVALCOORDS. */
static int
check_vara(NC3_info *info, NC3_var *var, const size_t *start, const size_t *count, int forwrite)
{
    size_t i = 0;
    int stat;
    if (var->ndims == 0)
        return NC_NOERR;
    if (var->isrec) {
        if (start[0] > NC3_XUINT_MAX && info->version != 5)
            return NC_EINVALCOORDS;
        if (NC3_ISREADONLY(info)) {
            if ((stat = refresh_numrecs(info, (unsigned long long)start[0] + (count[0] > 0))))
                return stat;
            if (start[0] > info->numrecs)
                return NC_EINVALCOORDS;
        }
        i = 1;
    }
    for (; i < var->ndims; i++)
        if (start[i] > var->shape[i])
            return NC_EINVALCOORDS;
    i = 0;
    if (var->isrec) {
        if (NC3_ISREADONLY(info) && start[0] == info->numrecs && count[0] > 0)
            return NC_EINVALCOORDS;
        i = 1;
    }
    for (; i < var->ndims; i++) {
        if (start[i] == var->shape[i] && count[i] > 0)
            return NC_EINVALCOORDS;
        if (count[i] > var->shape[i] || start[i] + count[i] > var->shape[i])
            return NC_EEDGE;
    }
    if (var->isrec && !forwrite && start[0] + count[0] > info->numrecs)
        return NC_EEDGE;
    return NC_NOERR;
}

/* Upstream's generic strided rules: per dimension (the record dimension
 * bounded by numrecs when reading, unbounded when writing). */
static int
check_vars(NC3_info *info, NC3_var *var, const size_t *start, const size_t *count,
           const ptrdiff_t *stride, int forwrite)
{
    size_t i;
    int stat;
    if (var->isrec && !forwrite && (stat = refresh_numrecs(info, (unsigned long long)start[0] + 1)))
        return stat;
    for (i = 0; i < var->ndims; i++) {
        int recdim = var->isrec && i == 0;
        unsigned long long dimlen = recdim ? info->numrecs : var->shape[i];
        if (!(recdim && forwrite)) {
            if (start[i] > dimlen)
                return NC_EINVALCOORDS;
            if (start[i] == dimlen && count[i] > 0)
                return NC_EINVALCOORDS;
            if (count[i] > dimlen || start[i] + count[i] > dimlen)
                return NC_EEDGE;
        }
        if (stride[i] <= 0 || (unsigned long long)stride[i] >= (unsigned long long)NC3_XINT_MAX)
            return NC_ESTRIDE;
    }
    return NC_NOERR;
}

/* Upstream moves strided data one element at a time and does not stop at
 * elements outside the variable: every element inside is moved, and the
 * call returns the last element's error, NC_EINVALCOORDS.  The elements
 * inside form a box (a leading run of each dimension).  Returns 0 if every
 * element is inside, else 1 with box[] set (*emptyp if it has no element). */
static int
valid_box(const NC3_info *info, const NC3_var *var, const size_t *start, const size_t *count,
          const ptrdiff_t *stride, int forwrite, size_t *box, int *emptyp)
{
    size_t i;
    int partial = 0;
    *emptyp = 0;
    for (i = 0; i < var->ndims; i++) {
        int recdim = var->isrec && i == 0;
        unsigned long long dimlen = recdim ? info->numrecs : var->shape[i], v;
        if (recdim && forwrite)
            v = count[i];
        else if (start[i] >= dimlen)
            v = 0;
        else {
            v = (dimlen - 1 - start[i]) / (unsigned long long)stride[i] + 1;
            if (v > count[i])
                v = count[i];
        }
        if (v < count[i])
            partial = 1;
        if (v == 0)
            *emptyp = 1;
        box[i] = (size_t)v;
    }
    return partial;
}

/* Move the elements of the box one by one, each at its place in the
 * caller's full count[] layout (upstream's element loop). */
static int
move_box(int ncid, int varid, const NC3_var *var, const size_t *start, const size_t *count,
         const ptrdiff_t *stride, const size_t *box, int forwrite, void *value,
         const void *cvalue, nc_type memtype, size_t memlen)
{
    size_t idx[NC_MAX_VAR_DIMS], at[NC_MAX_VAR_DIMS], ones[NC_MAX_VAR_DIMS], i;
    int k, stat = NC_NOERR;
    for (i = 0; i < var->ndims; i++) {
        idx[i] = 0;
        ones[i] = 1;
    }
    for (;;) {
        size_t off = 0;
        for (i = 0; i < var->ndims; i++) {
            at[i] = start[i] + idx[i] * (size_t)stride[i];
            off = off * count[i] + idx[i];
        }
        if (forwrite)
            stat = NC3_put_vara(ncid, varid, at, ones, (const char *)cvalue + off * memlen, memtype);
        else
            stat = NC3_get_vara(ncid, varid, at, ones, (char *)value + off * memlen, memtype);
        (void)stat;
        for (k = (int)var->ndims - 1; k >= 0; k--) {
            if (++idx[k] < box[k])
                break;
            idx[k] = 0;
        }
        if (k < 0)
            break;
    }
    return NC_EINVALCOORDS;
}

/* Fill rq's dims from the request and merge contiguous inner dims. */
static void
plan(req *rq, const size_t *start, const size_t *count, const ptrdiff_t *stride)
{
    NC3_var *var = rq->var;
    int nd = (int)var->ndims, k;
    if (nd == 0) {
        rq->nd = 1;
        rq->start[0] = 0;
        rq->count[0] = 1;
        rq->stride[0] = 1;
        rq->step[0] = var->xsz;
        return;
    }
    for (k = 0; k < nd; k++) {
        rq->start[k] = start[k];
        rq->count[k] = count[k];
        rq->stride[k] = stride ? (unsigned long long)stride[k] : 1;
        if (k == 0 && var->isrec)
            rq->step[k] = rq->info->recsize;
        else
            rq->step[k] = (k + 1 < nd ? var->dsizes[k + 1] : 1) * var->xsz;
    }
    /* Merge dim k into k-1 while dim k is read whole and contiguously;
     * full[k] is the extent of (merged) dim k. */
    {
        unsigned long long full[NC_MAX_VAR_DIMS];
        for (k = 0; k < nd; k++)
            full[k] = var->shape[k];
        while (nd >= 2) {
            k = nd - 1;
            if (rq->stride[k] != 1 || rq->stride[k - 1] != 1 || rq->start[k] != 0
                || rq->count[k] != full[k] || rq->step[k - 1] != rq->count[k] * rq->step[k])
                break;
            rq->count[k - 1] *= rq->count[k];
            rq->start[k - 1] *= rq->count[k];
            full[k - 1] *= full[k];
            rq->step[k - 1] = rq->step[k];
            nd--;
        }
    }
    /* Rows are runs of elements xsz apart; a 1-D record variable among
     * several is not, so each of its records becomes a row of one. */
    if (rq->step[nd - 1] != var->xsz) {
        rq->start[nd] = 0;
        rq->count[nd] = 1;
        rq->stride[nd] = 1;
        rq->step[nd] = var->xsz;
        nd++;
    }
    rq->nd = nd;
}

/* ---- read engine ---------------------------------------------------------- */

/* Several threads may read a handle at once (nc3file.c takes its lock
 * shared) when nothing can change it: opened read-only, without NC_SHARE
 * (whose reads refresh the record count), on a backend whose reads are
 * thread-safe; the backend says so by having peek_shared, which it sets at
 * open (the test reads nothing a locked call may be changing).  Such reads
 * use only per-thread buffers: the backend's peek_shared and the window
 * below. */
int
nc3_reads_shared(const NC3_info *info)
{
    return info->io->peek_shared != NULL;
}

static pthread_key_t win_key;
static pthread_once_t win_once = PTHREAD_ONCE_INIT;
static _Thread_local unsigned char *win_buf;   /* NC3_IOBUF bytes, freed at thread exit */

static void
win_init(void)
{
    (void)pthread_key_create(&win_key, free);
}

/* The window buffer of a read: the handle's own, or this thread's when
 * other readers share the handle. */
static int
window_buffer(const req *rq, unsigned char **bufp)
{
    if (!rq->shared)
        return nc3_iobuf(rq->info, bufp);
    if (win_buf == NULL) {
        unsigned char *b = malloc(NC3_IOBUF);
        pthread_once(&win_once, win_init);
        if (b == NULL)
            return NC_ENOMEM;
        if (pthread_setspecific(win_key, b) != 0) {
            free(b);
            return NC_ENOMEM;
        }
        win_buf = b;
    }
    *bufp = win_buf;
    return NC_NOERR;
}

typedef struct window {
    unsigned char *buf;         /* NC3_IOBUF bytes */
    long long off;              /* file offset of buf[0] */
    size_t len;                 /* valid bytes, 0 if none */
} window;

/* Make [off, off+n) available in the window (n <= NC3_IOBUF); prefetch up
 * to 'ahead' bytes when the access pattern is dense. */
static int
window_get(NC3_info *info, window *w, long long off, size_t n, unsigned long long ahead,
           const unsigned char **pp)
{
    int stat;
    size_t len;
    if (w->len && off >= w->off && off + (long long)n <= w->off + (long long)w->len) {
        *pp = w->buf + (off - w->off);
        return NC_NOERR;
    }
    len = n;
    if (ahead > len)
        len = ahead > NC3_IOBUF ? NC3_IOBUF : (size_t)ahead;
    if ((stat = info->io->read_at(info->io, off, w->buf, len)))
        return stat;
    w->off = off;
    w->len = len;
    *pp = w->buf + 0;
    return NC_NOERR;
}

/* Copy n elements of size sz, src element stride s (elements), to dst. */
static void
gather(unsigned char *dst, const unsigned char *src, size_t n, size_t sz, size_t s)
{
    size_t j;
    if (s == 1) {
        memcpy(dst, src, n * sz);
        return;
    }
    switch (sz) {
    case 1: for (j = 0; j < n; j++) dst[j] = src[j * s]; break;
    case 2: for (j = 0; j < n; j++) memcpy(dst + 2 * j, src + 2 * j * s, 2); break;
    case 4: for (j = 0; j < n; j++) memcpy(dst + 4 * j, src + 4 * j * s, 4); break;
    default: for (j = 0; j < n; j++) memcpy(dst + 8 * j, src + 8 * j * s, 8); break;
    }
}

static void
scatter(unsigned char *dst, const unsigned char *src, size_t n, size_t sz, size_t s)
{
    size_t j;
    switch (sz) {
    case 1: for (j = 0; j < n; j++) dst[j * s] = src[j]; break;
    case 2: for (j = 0; j < n; j++) memcpy(dst + 2 * j * s, src + 2 * j, 2); break;
    case 4: for (j = 0; j < n; j++) memcpy(dst + 4 * j * s, src + 4 * j, 4); break;
    default: for (j = 0; j < n; j++) memcpy(dst + 8 * j * s, src + 8 * j, 8); break;
    }
}

/* Convert n external elements already at their in-place position for dst. */
static int
convert_in(const req *rq, unsigned char *dst, size_t n)
{
    unsigned char *xp = rq->memlen > rq->xlen ? dst + n * (rq->memlen - rq->xlen) : dst;
    return ncx_getn(rq->xtype, xp, rq->memtype, dst, n);
}

/* Where the external bytes of n elements destined for dst must be put. */
static unsigned char *
xdest(const req *rq, unsigned char *dst, size_t n)
{
    return rq->memlen > rq->xlen ? dst + n * (rq->memlen - rq->xlen) : dst;
}

static int
merge_stat(int acc, int stat)
{
    return acc != NC_NOERR ? acc : stat;
}

/* Offset of the first element of the row with outer index idx[0..nd-2]. */
static unsigned long long
row_offset(const req *rq, const unsigned long long *idx)
{
    unsigned long long off = (unsigned long long)rq->var->begin;
    int k;
    for (k = 0; k < rq->nd; k++)
        off += (rq->start[k] + idx[k] * rq->stride[k]) * rq->step[k];
    return off;
}

/* Advance the odometer over dims [0, nd-1); 0 when done. */
static int
next_row(const req *rq, unsigned long long *idx)
{
    int k;
    for (k = rq->nd - 2; k >= 0; k--) {
        if (++idx[k] < rq->count[k])
            return 1;
        idx[k] = 0;
    }
    return 0;
}

/* A contiguous row through the backend's buffer: pieces end on multiples
 * of peekmax in the file (page-aligned reads), each converted straight
 * from that buffer into the caller's, while it is still in cache. */
static int
read_peek(req *rq, unsigned long long off, unsigned long long n, unsigned char *out, int *accp)
{
    ncio *io = rq->info->io;
    size_t xs = rq->xlen, ml = rq->memlen, max = io->peekmax;
    unsigned long long done = 0;
    while (done < n) {
        unsigned long long at = off + done * xs, m = (max - at % max) / xs;
        const unsigned char *src;
        int stat;
        if (m == 0)
            m = max / xs;
        if (m > n - done)
            m = n - done;
        if ((stat = (rq->shared ? io->peek_shared : io->peek)(io, (long long)at,
                                                               (size_t)(m * xs), &src)))
            return stat;
        stat = ncx_getn(rq->xtype, src, rq->memtype, out + done * ml, (size_t)m);
        if (stat != NC_NOERR && stat != NC_ERANGE)
            return stat;
        *accp = merge_stat(*accp, stat);
        done += m;
    }
    return NC_NOERR;
}

/* One row piece: n elements from file offset off, element stride
 * rq->stride[in], into out.  A conversion's NC_ERANGE is merged into
 * *accp; returns NC_NOERR, NC_ERANGE or an error that ends the read.
 * ahead: window prefetch for dense rows (0: up to the end of this piece
 * when the request is one row).  The window and stage buffers live across
 * the calls of one read (or one task of a split read). */
static int
read_row(req *rq, unsigned long long off, unsigned long long n, unsigned char *out,
         window *w, unsigned char **stagep, unsigned long long ahead, int *accp)
{
    NC3_info *info = rq->info;
    int in = rq->nd - 1, stat = NC_NOERR;
    unsigned long long s = rq->stride[in];
    size_t xs = rq->xlen;
    unsigned long long span = ((n - 1) * s + 1) * xs;
    if (s == 1 && info->io->peek != NULL && info->io->peekmax >= 8)
        return read_peek(rq, off, n, out, accp);
    if (s == 1 && !rq->stage && (span >= 65536 || in == 0)) {
        /* Contiguous: straight into the caller's buffer.  Same-size
         * types are read and converted in cache-sized pieces. */
        if (rq->memlen == rq->xlen && span > READ_PIECE) {
            unsigned long long done = 0, per = READ_PIECE / xs;
            while (done < n) {
                unsigned long long m = n - done < per ? n - done : per;
                int cst;
                if ((stat = info->io->read_at(info->io, (long long)(off + done * xs),
                                              out + done * xs, (size_t)(m * xs))))
                    return stat;
                cst = ncx_getn(rq->xtype, out + done * xs, rq->memtype, out + done * xs, (size_t)m);
                if (cst != NC_NOERR && cst != NC_ERANGE)
                    return cst;
                *accp = merge_stat(*accp, cst);
                done += m;
            }
            return NC_NOERR;
        }
        {
            unsigned char *xp = xdest(rq, out, (size_t)n);
            if ((stat = info->io->read_at(info->io, (long long)off, xp, (size_t)span)))
                return stat;
            return convert_in(rq, out, (size_t)n);
        }
    }
    /* Gather from the window, in pieces whose span fits it. */
    {
        unsigned long long done = 0;
        if (w->buf == NULL && (stat = window_buffer(rq, &w->buf)))
            return stat;
        while (done < n) {
            unsigned long long m = n - done, pspan;
            unsigned long long maxm = (NC3_IOBUF - xs) / (s * xs) + 1;
            const unsigned char *src;
            unsigned char *dst = out + done * rq->memlen;
            long long poff = (long long)(off + done * s * xs);
            if (m > maxm)
                m = maxm;
            pspan = ((m - 1) * s + 1) * xs;
            if ((stat = window_get(info, w, poff, (size_t)pspan,
                                   ahead ? ahead : (in == 0 ? span - done * s * xs : 0), &src)))
                return stat;
            if (rq->stage) {
                /* Out-of-range values must leave the caller's element
                 * untouched, as upstream: convert from a copy. */
                if (s != 1) {
                    if (*stagep == NULL && (*stagep = malloc(NC3_IOBUF)) == NULL)
                        return NC_ENOMEM;
                    gather(*stagep, src, (size_t)m, xs, (size_t)s);
                    src = *stagep;
                }
                *accp = merge_stat(*accp, ncx_getn(rq->xtype, src, rq->memtype, dst, (size_t)m));
            } else {
                gather(xdest(rq, dst, (size_t)m), src, (size_t)m, xs, (size_t)s);
                *accp = merge_stat(*accp, convert_in(rq, dst, (size_t)m));
            }
            done += m;
        }
    }
    return NC_NOERR;
}

/* Window prefetch of a request's rows: dense rows (little gap between
 * them) are read through big windows. */
static unsigned long long
rows_ahead(const req *rq)
{
    int in = rq->nd - 1;
    unsigned long long span = ((rq->count[in] - 1) * rq->stride[in] + 1) * rq->xlen;
    if (in > 0 && rq->stride[in - 1] * rq->step[in - 1] <= 2 * span)
        return NC3_IOBUF;
    return 0;
}

static int
read_rows(req *rq, unsigned char *out)
{
    unsigned long long idx[NC_MAX_VAR_DIMS + 1];
    int in = rq->nd - 1, stat, acc = NC_NOERR;
    unsigned long long n = rq->count[in], ahead = rows_ahead(rq);
    size_t rowmem = (size_t)(n * rq->memlen);
    window w = {NULL, 0, 0};
    unsigned char *stage = NULL;
    memset(idx, 0, sizeof idx);
    do {
        stat = read_row(rq, row_offset(rq, idx), n, out, &w, &stage, ahead, &acc);
        if (stat != NC_NOERR && stat != NC_ERANGE)
            goto done;
        acc = merge_stat(acc, stat);
        out += rowmem;
    } while (next_row(rq, idx));
    stat = acc;
done:
    free(stage);
    return stat;
}

/* ---- split reads ---------------------------------------------------------- */

/* A large read on a handle whose reads may run at once (rq->shared: a
 * read-only file on disk) is cut into pieces of whole elements, read and
 * converted straight into the caller's buffer in parallel on libfilter's
 * pool.  Each piece uses only per-thread buffers (peek_shared, the
 * window), as concurrent readers of the handle do; the calling thread
 * holds the handle's lock (shared) until every piece is done.  The result
 * equals the serial read's: every value converted, then the first error by
 * position in the request, else NC_ERANGE if any value was out of range.
 * Smaller requests, and every other handle, take read_rows alone. */
#define SPLIT_MIN_DEFAULT (16ull << 20) /* bytes of external data */
#define SPLIT_MAX_TASKS 64
#define SPLIT_ENV "NETCDF_CLASSIC_SPLIT_MIN"

static unsigned long long split_min = SPLIT_MIN_DEFAULT;
static pthread_once_t split_once = PTHREAD_ONCE_INIT;

/* The threshold: environment NETCDF_CLASSIC_SPLIT_MIN (bytes, > 0), read
 * once per process, else 16 MiB. */
static void
split_init(void)
{
    const char *s = getenv(SPLIT_ENV);
    char *end;
    unsigned long long v;
    if (s == NULL || *s == '\0')
        return;
    v = strtoull(s, &end, 10);
    if (*end == '\0' && v > 0)
        split_min = v;
}

typedef struct split {
    req *rq;
    unsigned char *out;
    unsigned long long total;   /* elements of the request */
    unsigned long long per;     /* elements per task */
    unsigned long long ahead;   /* rows_ahead of the request */
    int stat[SPLIT_MAX_TASKS];
} split;

/* Row index (odometer over dims [0, nd-1), the row's own index 0) of row r. */
static void
row_index(const req *rq, unsigned long long r, unsigned long long *idx)
{
    int k;
    idx[rq->nd - 1] = 0;
    for (k = rq->nd - 2; k >= 0; k--) {
        idx[k] = r % rq->count[k];
        r /= rq->count[k];
    }
}

static void
split_task(void *arg, size_t i)
{
    split *sp = arg;
    req *rq = sp->rq;
    int in = rq->nd - 1, stat = NC_NOERR, acc = NC_NOERR;
    unsigned long long n = rq->count[in], e = i * sp->per, end = e + sp->per;
    unsigned long long idx[NC_MAX_VAR_DIMS + 1];
    window w = {NULL, 0, 0};
    unsigned char *stage = NULL;
    if (end > sp->total)
        end = sp->total;
    while (e < end) {
        unsigned long long j = e % n, m = n - j;
        if (m > end - e)
            m = end - e;
        row_index(rq, e / n, idx);
        stat = read_row(rq, row_offset(rq, idx) + j * rq->stride[in] * rq->xlen, m,
                        sp->out + e * rq->memlen, &w, &stage, sp->ahead, &acc);
        if (stat != NC_NOERR && stat != NC_ERANGE)
            break;
        acc = merge_stat(acc, stat);
        stat = NC_NOERR;
        e += m;
    }
    free(stage);
    sp->stat[i] = stat != NC_NOERR ? stat : acc;
}

/* Read rq into out, split across the pool when it is large enough. */
static int
read_request(req *rq, unsigned char *out)
{
    unsigned long long total = 1, bytes, piece;
    ncf_pool *pool;
    split sp;
    size_t ntasks, i;
    int k, nthreads, acc = NC_NOERR;
    if (!rq->shared)
        return read_rows(rq, out);
    for (k = 0; k < rq->nd; k++)
        total *= rq->count[k];
    bytes = total * rq->xlen;
    pthread_once(&split_once, split_init);
    if (bytes < split_min || total < 2)
        return read_rows(rq, out);
    pool = ncf_pool_default();
    nthreads = ncf_pool_nthreads(pool);
    if (pool == NULL || nthreads < 2)
        return read_rows(rq, out);
    /* Pieces of a quarter of the threshold (4 MiB by default), many per
     * thread: a thread held up by other work on the machine delays the
     * end of the call by one small piece at most. */
    piece = split_min / 4;
    sp.per = (piece + rq->xlen - 1) / rq->xlen;
    if (sp.per == 0)
        sp.per = 1;
    if ((total + sp.per - 1) / sp.per > SPLIT_MAX_TASKS)
        sp.per = (total + SPLIT_MAX_TASKS - 1) / SPLIT_MAX_TASKS;
    ntasks = (size_t)((total + sp.per - 1) / sp.per);
    sp.rq = rq;
    sp.out = out;
    sp.total = total;
    sp.ahead = rows_ahead(rq);
    if (ncf_pool_run(pool, ntasks, split_task, &sp) != NC_NOERR)
        return read_rows(rq, out);
    for (i = 0; i < ntasks; i++) {
        if (sp.stat[i] != NC_NOERR && sp.stat[i] != NC_ERANGE)
            return sp.stat[i];
        acc = merge_stat(acc, sp.stat[i]);
    }
    return acc;
}

/* ---- write engine --------------------------------------------------------- */

static int
fill_native(const NC3_var *var, unsigned char native[8], const void **xfillp)
{
    const NC3_att *fa = nc3_find_att(&var->atts, _FillValue, NULL);
    *xfillp = NULL;
    if (fa != NULL && fa->type == var->type && fa->nelems == 1 && var->type != NC_CHAR) {
        if (ncx_getn(var->type, fa->xvalue, var->type, native, 1) == NC_NOERR)
            *xfillp = native;
    }
    return NC_NOERR;
}

static int
encode(const req *rq, const unsigned char *in, unsigned char *xp, size_t n, const void *xfill)
{
    if (rq->memtype == NC_CHAR) {
        memcpy(xp, in, n);
        return NC_NOERR;
    }
    return ncx_putn(rq->memtype, in, rq->xtype, xp, n, xfill);
}

static int
write_rows(req *rq, const unsigned char *in)
{
    NC3_info *info = rq->info;
    NC3_var *var = rq->var;
    unsigned long long idx[NC_MAX_VAR_DIMS + 1];
    int in_d = rq->nd - 1, stat, acc = NC_NOERR;
    unsigned long long n = rq->count[in_d], s = rq->stride[in_d];
    size_t xs = rq->xlen, ml = rq->memlen;
    unsigned char *buf, native[8];
    const void *xfill;
    memset(idx, 0, sizeof idx);
    fill_native(var, native, &xfill);
    if ((stat = nc3_iobuf(info, &buf)))
        return stat;
    if (s != 1 && var->fillpending && (stat = nc3_flush_fill(info, var)))
        return stat;
    do {
        unsigned long long off = row_offset(rq, idx), done = 0;
        if (s == 1) {
            ncio *io = info->io;
            size_t per = NC3_IOBUF / xs;
            if (io->reserve != NULL && io->peekmax / xs < per)
                per = io->peekmax / xs;
            while (done < n) {
                size_t m = (n - done) > per ? per : (size_t)(n - done);
                long long at = (long long)(off + done * xs);
                unsigned char *dst = NULL;
                /* Encode straight into the backend's write-behind space
                 * when it offers some; write_at then commits it. */
                if (io->reserve != NULL && (stat = io->reserve(io, at, m * xs, &dst)))
                    return stat;
                if (dst == NULL)
                    dst = buf;
                stat = encode(rq, in + done * ml, dst, m, xfill);
                if (stat != NC_NOERR && stat != NC_ERANGE)
                    return stat;
                acc = merge_stat(acc, stat);
                if ((stat = io->write_at(io, at, dst, m * xs)))
                    return stat;
                done += m;
            }
            if (var->fillpending
                && (stat = note_written(info, var, off - (unsigned long long)var->begin,
                                        off - (unsigned long long)var->begin + n * xs)))
                return stat;
        } else if (s * xs >= 4096) {
            /* Sparse: one element at a time. */
            for (; done < n; done++) {
                stat = encode(rq, in + done * ml, buf, 1, xfill);
                if (stat != NC_NOERR && stat != NC_ERANGE)
                    return stat;
                acc = merge_stat(acc, stat);
                if ((stat = info->io->write_at(info->io, (long long)(off + done * s * xs), buf, xs)))
                    return stat;
            }
        } else {
            /* Read-modify-write of the span, half the buffer each. */
            size_t half = NC3_IOBUF / 2;
            unsigned long long maxm = (half - xs) / (s * xs) + 1;
            while (done < n) {
                unsigned long long m = n - done;
                size_t pspan;
                long long poff = (long long)(off + done * s * xs);
                if (m > maxm)
                    m = maxm;
                pspan = (size_t)(((m - 1) * s + 1) * xs);
                stat = encode(rq, in + done * ml, buf + half, (size_t)m, xfill);
                if (stat != NC_NOERR && stat != NC_ERANGE)
                    return stat;
                acc = merge_stat(acc, stat);
                if ((stat = info->io->read_at(info->io, poff, buf, pspan)))
                    return stat;
                scatter(buf, buf + half, (size_t)m, xs, (size_t)s);
                if ((stat = info->io->write_at(info->io, poff, buf, pspan)))
                    return stat;
                done += m;
            }
        }
        in += n * ml;
    } while (next_row(rq, idx));
    return acc;
}

/* ---- slots ---------------------------------------------------------------- */

static int
any_zero(const NC3_var *var, const size_t *count)
{
    size_t i;
    for (i = 0; i < var->ndims; i++)
        if (count[i] == 0)
            return 1;
    return 0;
}

static int
do_get(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
       void *value, nc_type memtype)
{
    NC3_info *info;
    NC3_var *var;
    req rq;
    int stat;
    size_t zero[1] = {0}, full[NC_MAX_VAR_DIMS], pcount[NC_MAX_VAR_DIMS];
    int empty = 0;
    if ((stat = lookup(ncid, varid, 0, stride != NULL, &info, &var))
        || (stat = check_types(info, var, &memtype, &rq)))
        return stat;
    if (var->ndims == 0) {
        start = count = zero;
    } else if (start == NULL) {
        return NC_EINVALCOORDS;
    }
    if (var->ndims && count == NULL) {
        /* No count: the whole shape, as upstream's NC3 layer does. */
        size_t i;
        for (i = 0; i < var->ndims; i++)
            full[i] = (i == 0 && var->isrec) ? (size_t)info->numrecs : (size_t)var->shape[i];
        count = full;
    }
    stat = stride ? check_vars(info, var, start, count, stride, 0)
                  : check_vara(info, var, start, count, 0);
    if (stat || (stride && (stat = check_mode(info, 0))))
        return stat;
    if (var->ndims && any_zero(var, count))
        return NC_NOERR;
    if (stride && valid_box(info, var, start, count, stride, 0, pcount, &empty)) {
        if (empty || value == NULL)
            return NC_EINVALCOORDS;
        return move_box(ncid, varid, var, start, count, stride, pcount, 0, value, NULL,
                        memtype, rq.memlen);
    }
    if (value == NULL)
        return NC_EINVAL;
    if (var->fillpending && (stat = nc3_flush_fill(info, var)))
        return stat;
    plan(&rq, start, count, stride);
    rq.shared = nc3_reads_shared(info);
    return read_request(&rq, value);
}

/* A write that failed must not grow the record count: put back the count
 * (and, under NC_SHARE, the one on disk) from before the call. */
static int
undo_numrecs(NC3_info *info, unsigned long long numrecs, int ndirty, int stat)
{
    if (info->numrecs == numrecs)
        return stat;
    info->numrecs = numrecs;
    info->flags = (info->flags & ~NC3_NDIRTY) | ndirty;
    if (info->flags & NC3_SHARE)
        (void)nc3_write_numrecs(info);
    return stat;
}

static int
do_put(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
       const void *value, nc_type memtype)
{
    NC3_info *info;
    NC3_var *var;
    req rq;
    int stat, empty = 0, ndirty;
    size_t zero[1] = {0}, pcount[NC_MAX_VAR_DIMS];
    unsigned long long numrecs;
    if ((stat = lookup(ncid, varid, 1, stride != NULL, &info, &var))
        || (stat = check_types(info, var, &memtype, &rq)))
        return stat;
    if (var->ndims == 0) {
        start = count = zero;
    } else if (start == NULL || count == NULL) {
        return NC_EINVAL;
    }
    stat = stride ? check_vars(info, var, start, count, stride, 1)
                  : check_vara(info, var, start, count, 1);
    if (stat || (stride && (stat = check_mode(info, 1))))
        return stat;
    /* Record indexes must stay addressable (63-bit offsets). */
    if (var->isrec) {
        unsigned long long lim = info->recsize ? (unsigned long long)(INT64_MAX - info->begin_rec) / info->recsize : (unsigned long long)INT64_MAX;
        unsigned long long st = stride ? (unsigned long long)stride[0] : 1;
        if (start[0] > lim || (count[0] > 0 && (count[0] - 1) > (lim - start[0]) / st))
            return NC_EEDGE;
    }
    /* Upstream's vara grows the record count to start+count even when
     * nothing is written; strided access does not.  From here on a
     * failure puts the count back. */
    numrecs = info->numrecs;
    ndirty = info->flags & NC3_NDIRTY;
    if (var->isrec && stride == NULL && (stat = nc3_set_numrecs(info, (unsigned long long)start[0] + count[0])))
        return undo_numrecs(info, numrecs, ndirty, stat);
    if (var->ndims && any_zero(var, count))
        return NC_NOERR;
    if (stride && valid_box(info, var, start, count, stride, 1, pcount, &empty)) {
        if (empty || value == NULL)
            return NC_EINVALCOORDS;
        stat = move_box(ncid, varid, var, start, count, stride, pcount, 1, NULL, value,
                        memtype, rq.memlen);
        return stat && stat != NC_ERANGE ? undo_numrecs(info, numrecs, ndirty, stat) : stat;
    }
    if (value == NULL)
        return NC_EINVAL;
    if (var->isrec) {
        unsigned long long last = start[0] + (count[0] - 1) * (stride ? (unsigned long long)stride[0] : 1);
        if (info->version != 5 && last >= NC3_XUINT_MAX)
            return NC_EINVALCOORDS;
        if ((stat = nc3_set_numrecs(info, last + 1)))
            return undo_numrecs(info, numrecs, ndirty, stat);
    }
    plan(&rq, start, count, stride);
    stat = write_rows(&rq, value);
    /* NC_ERANGE: the data were written (with conversion losses). */
    return stat && stat != NC_ERANGE ? undo_numrecs(info, numrecs, ndirty, stat) : stat;
}

int
NC3_get_vara(int ncid, int varid, const size_t *start, const size_t *count, void *value, nc_type memtype)
{
    return do_get(ncid, varid, start, count, NULL, value, memtype);
}

int
NC3_put_vara(int ncid, int varid, const size_t *start, const size_t *count, const void *value, nc_type memtype)
{
    return do_put(ncid, varid, start, count, NULL, value, memtype);
}

#define NOTHING_TO_DO 1   /* positive: never an NC_ error code */

/* Upstream's generic strided access: coordinates first (a count of zero
 * succeeds even in define mode), then unit strides take the vara path. */
static int
vars_front(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
           int forwrite, nc_type memtype, const ptrdiff_t **stridep)
{
    NC3_info *info;
    NC3_var *var;
    req rq;
    int stat;
    size_t i;
    if ((stat = lookup(ncid, varid, forwrite, 1, &info, &var))
        || (stat = check_types(info, var, &memtype, &rq)))
        return stat;
    *stridep = NULL;
    if (var->ndims == 0)
        return NC_NOERR;
    if (start == NULL || count == NULL)
        return NC_EINVAL;
    if (stride == NULL)
        return NC_NOERR;       /* unit strides: the vara path */
    if ((stat = check_vars(info, var, start, count, stride, forwrite)))
        return stat;
    for (i = 0; i < var->ndims; i++)
        if (stride[i] != 1) {
            *stridep = stride;
            break;
        }
    /* Unit-stride writes go to vara even with a zero count (which grows
     * the record count there); anything else with a zero count is done. */
    if (any_zero(var, count) && !(forwrite && *stridep == NULL))
        return NOTHING_TO_DO;
    return NC_NOERR;
}

int
NC3_get_vars(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
             void *value, nc_type memtype)
{
    int stat = vars_front(ncid, varid, start, count, stride, 0, memtype, &stride);
    if (stat)
        return stat == NOTHING_TO_DO ? NC_NOERR : stat;
    return do_get(ncid, varid, start, count, stride, value, memtype);
}

int
NC3_put_vars(int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride,
             const void *value, nc_type memtype)
{
    int stat = vars_front(ncid, varid, start, count, stride, 1, memtype, &stride);
    if (stat)
        return stat == NOTHING_TO_DO ? NC_NOERR : stat;
    return do_put(ncid, varid, start, count, stride, value, memtype);
}
