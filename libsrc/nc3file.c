/* nc3file.c: file-level operations of the classic layer and its dispatch
 * table: create, open, redef, enddef (data layout), sync, abort, close,
 * fill mode and format inquiries.
 *
 * Layout (as upstream nc__enddef): fixed-size variables start at begin_var,
 * the first multiple of v_align at or after the header plus h_minfree;
 * each var occupies its padded length; the record section starts at
 * begin_rec, a multiple of r_align at least v_minfree after the fixed
 * data; records are recsize bytes (unpadded when there is exactly one
 * record variable).  After redef nothing moves backwards: offsets only grow
 * and data are moved up (records first, from the last one) when they must.
 */
#include <stdlib.h>
#include <string.h>
#include "nc3internal.h"
#include "ncx.h"
#include "ncbyteorder.h"
#include "ncremote.h"

int
nc3_get(int ncid, NC **ncp, NC3_info **infop)
{
    NC *nc;
    int stat;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (nc->dispatchdata == NULL)
        return NC_EBADID;
    if (ncp) *ncp = nc;
    if (infop) *infop = nc->dispatchdata;
    return NC_NOERR;
}

int
nc3_iobuf(NC3_info *info, unsigned char **bufp)
{
    if (info->iobuf == NULL && (info->iobuf = malloc(NC3_IOBUF)) == NULL)
        return NC_ENOMEM;
    *bufp = info->iobuf;
    return NC_NOERR;
}

/* ---- numrecs and header I/O ------------------------------------------------- */

int
nc3_write_numrecs(NC3_info *info)
{
    unsigned char b[8];
    unsigned long long n = info->numrecs;
    int i, len = info->version == 5 ? 8 : 4, stat;
    for (i = len - 1; i >= 0; i--, n >>= 8)
        b[i] = (unsigned char)(n & 0xff);
    if ((stat = info->io->write_at(info->io, 4, b, (size_t)len)))
        return stat;
    info->flags &= ~NC3_NDIRTY;
    return NC_NOERR;
}

int
nc3_read_numrecs(NC3_info *info)
{
    unsigned char b[8];
    unsigned long long n;
    int len = info->version == 5 ? 8 : 4, stat;
    if ((stat = info->io->read_at(info->io, 4, b, (size_t)len)))
        return stat;
    n = nc_get_be(b, len);
    if (info->recsize && n > (unsigned long long)(INT64_MAX - info->begin_rec) / info->recsize)
        return NC_ENOTNC;
    info->numrecs = n;
    info->flags &= ~NC3_NDIRTY;
    return NC_NOERR;
}

/* Write what is dirty: pending fills, then the header or just numrecs. */
static int
sync_state(NC3_info *info)
{
    int stat;
    if ((stat = nc3_flush_all_fill(info)))
        return stat;
    if (info->flags & NC3_HDIRTY)
        return nc3_header_write(info);
    if (info->flags & NC3_NDIRTY)
        return nc3_write_numrecs(info);
    return NC_NOERR;
}

/* Replace the definitions by the header on disk (NC_SHARE, read-only sync). */
static int
reread_header(NC3_info *info)
{
    NC3_info *tmp = nc3_info_new();
    int stat;
    if (tmp == NULL)
        return NC_ENOMEM;
    tmp->io = info->io;
    tmp->chunk = info->chunk;
    if ((stat = nc3_header_read(tmp))) {
        tmp->io = NULL;
        nc3_info_free(tmp);
        return stat;
    }
    /* Swap the model parts; keep io, flags, buffers. */
    {
        NC3_info save = *info;
        info->dims = tmp->dims; info->ndims = tmp->ndims; info->dimcap = tmp->dimcap;
        info->dimidx = tmp->dimidx;
        info->gatts = tmp->gatts;
        info->vars = tmp->vars; info->nvars = tmp->nvars; info->varcap = tmp->varcap;
        info->varidx = tmp->varidx;
        info->xsz = tmp->xsz;
        info->begin_var = tmp->begin_var;
        info->begin_rec = tmp->begin_rec;
        info->recsize = tmp->recsize;
        info->numrecs = tmp->numrecs;
        tmp->dims = save.dims; tmp->ndims = save.ndims; tmp->dimidx = save.dimidx;
        tmp->gatts = save.gatts;
        tmp->vars = save.vars; tmp->nvars = save.nvars; tmp->varidx = save.varidx;
    }
    tmp->io = NULL;
    nc3_info_free(tmp);
    info->flags &= ~(NC3_HDIRTY | NC3_NDIRTY);
    return NC_NOERR;
}

/* ---- layout ----------------------------------------------------------------- */

static long long
rndup(long long x, size_t align)
{
    if (align <= 1)
        return x;
    return (x + (long long)align - 1) / (long long)align * (long long)align;
}

/* Upstream's NC_begins. */
static int
compute_begins(NC3_info *info, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align)
{
    NC3_info *old = info->old;
    NC3_var *last = NULL, *first_var = NULL;
    long long index, old_begin_var = info->begin_var;
    size_t i, j;
    int small_off = info->version == 1;
    if (v_align == NC_ALIGN_CHUNK)
        v_align = info->chunk;
    if (r_align == NC_ALIGN_CHUNK)
        r_align = info->chunk;
    if (v_align == 0)
        v_align = 1;
    if (r_align == 0)
        r_align = 1;
    info->xsz = nc3_header_len(info);
    if (info->nvars == 0)
        return NC_NOERR;
    if (info->begin_var < (long long)(info->xsz + h_minfree)
        || info->begin_var != rndup(info->begin_var, v_align)) {
        index = (long long)info->xsz;
        info->begin_var = rndup(index, v_align);
        if (info->begin_var < index + (long long)h_minfree)
            info->begin_var = rndup(index + (long long)h_minfree, v_align);
    }
    if (old != NULL && info->begin_var < old->begin_var)
        info->begin_var = old->begin_var;
    index = info->begin_var;
    for (i = 0, j = 0; i < info->nvars; i++) {
        NC3_var *var = info->vars[i];
        if (var->isrec)
            continue;
        if (first_var == NULL)
            first_var = var;
        if (small_off && (index > NC3_XINT_MAX || index < 0)) {
            info->begin_var = old_begin_var;
            return NC_EVARSIZE;
        }
        var->begin = index;
        if (old != NULL) {
            for (; j < old->nvars; j++)
                if (!old->vars[j]->isrec)
                    break;
            if (j < old->nvars) {
                if (var->begin < old->vars[j]->begin) {
                    var->begin = old->vars[j]->begin;
                    index = var->begin;
                }
                j++;
            }
        }
        index += (long long)var->len;
    }
    if (old != NULL && info->begin_rec < old->begin_rec)
        info->begin_rec = old->begin_rec;
    if (info->begin_rec < index + (long long)v_minfree
        || info->begin_rec != rndup(info->begin_rec, r_align)) {
        info->begin_rec = rndup(index, r_align);
        if (info->begin_rec < index + (long long)v_minfree)
            info->begin_rec = rndup(index + (long long)v_minfree, r_align);
    }
    info->begin_var = first_var != NULL ? first_var->begin : info->begin_rec;
    index = info->begin_rec;
    info->recsize = 0;
    for (i = 0, j = 0; i < info->nvars; i++) {
        NC3_var *var = info->vars[i];
        if (!var->isrec)
            continue;
        if (small_off && (index > NC3_XINT_MAX || index < 0)) {
            info->begin_var = old_begin_var;
            return NC_EVARSIZE;
        }
        var->begin = index;
        if (old != NULL) {
            for (; j < old->nvars; j++)
                if (old->vars[j]->isrec)
                    break;
            if (j < old->nvars) {
                if (var->begin < old->vars[j]->begin)
                    var->begin = old->vars[j]->begin;
                j++;
            }
        }
        index += (long long)var->len;
        info->recsize += var->len;
        last = var;
    }
    if (last != NULL && info->recsize == last->len)
        info->recsize = (last->ndims ? last->dsizes[0] : 1) * last->xsz;
    if (info->flags & NC3_CREAT)
        info->numrecs = 0;
    return NC_NOERR;
}

/* Upstream's NC_check_voffs: data regions in order and not overlapping.
 * Shared with the header reader, which adds its own record bound. */
int
nc3_check_voffs(const NC3_info *info)
{
    long long prev;
    size_t i;
    if (info->nvars == 0)
        return NC_NOERR;
    prev = info->begin_var;
    for (i = 0; i < info->nvars; i++) {
        const NC3_var *var = info->vars[i];
        if (var->isrec)
            continue;
        if (var->begin < prev)
            return NC_ENOTNC;
        prev = var->begin + (long long)var->len;
    }
    if (info->begin_rec < prev)
        return NC_ENOTNC;
    prev = info->begin_rec;
    for (i = 0; i < info->nvars; i++) {
        const NC3_var *var = info->vars[i];
        if (!var->isrec)
            continue;
        if (var->begin < prev)
            return NC_ENOTNC;
        prev = var->begin + (long long)var->len;
    }
    return NC_NOERR;
}

/* Move existing data up after the header or a section grew (upstream's
 * move_recs_r then move_vars_r), in large runs: old variables of one kind
 * that lie back to back and move by the same distance go together, so when
 * only the header grew the whole record section (and the whole fixed
 * section) is one move.  Everything goes from the highest offset down
 * (nc3_io_move copies each run from its end), so with destinations never
 * below sources no byte is overwritten before it is copied, whatever the
 * overlap.  The same code moves data down from a staging copy (see
 * staged_move), where sources and destinations never overlap.  Alone it is
 * not crash-safe: see docs/classic-safety.md. */

/* The runs of old variables of kind isrec: runs[2i] is the first member,
 * runs[2i+1] the last; members lie back to back in the old layout and move
 * by the same distance.  Returns the number of runs. */
static size_t
find_runs(const NC3_info *info, int isrec, size_t *runs)
{
    const NC3_info *old = info->old;
    size_t v, n = 0, first = 0, last = 0;
    int open = 0;
    long long delta = 0, next = 0;
    for (v = 0; v < old->nvars; v++) {
        const NC3_var *ov = old->vars[v];
        if (ov->isrec != isrec)
            continue;
        if (open && ov->begin == next && info->vars[v]->begin - ov->begin == delta) {
            last = v;
        } else {
            if (open) {
                runs[2 * n] = first;
                runs[2 * n + 1] = last;
                n++;
            }
            open = 1;
            first = last = v;
            delta = info->vars[v]->begin - ov->begin;
        }
        next = ov->begin + (long long)ov->len;
    }
    if (open) {
        runs[2 * n] = first;
        runs[2 * n + 1] = last;
        n++;
    }
    return n;
}

/* Bytes of a run: from its first member's start to its last member's end. */
static unsigned long long
run_bytes(const NC3_info *old, const size_t *run)
{
    const NC3_var *a = old->vars[run[0]], *b = old->vars[run[1]];
    return (unsigned long long)(b->begin - a->begin) + b->len;
}

/* Records change size: move batches of records, from the last, each with
 * one read of the old records, one read of their new place and one write
 * of it.  The new place is read first so that the bytes between the old
 * variables' new positions (the new variables' space) keep what the file
 * held there, exactly as moving each variable on its own leaves them; no
 * batch's new place overlaps a higher batch's, and each batch's old records
 * are read before anything is written over them.  NC_EINTERNAL if one
 * record does not fit the staging buffer (the caller moves run by run). */
static int
move_records(NC3_info *info, const size_t *runs, size_t nrun)
{
    const NC3_info *old = info->old;
    const size_t half = NC3_IOBUF / 2;
    unsigned char *buf, *src, *dst;
    unsigned long long nr = old->numrecs, r0, r1, r, per;
    const NC3_var *fo = old->vars[runs[0]], *fn = info->vars[runs[0]];
    const NC3_var *lo = old->vars[runs[2 * nrun - 2]];
    unsigned long long lastbytes = run_bytes(old, runs + 2 * (nrun - 1));
    /* extent of one record's runs, old and new */
    unsigned long long oext = (unsigned long long)(lo->begin - fo->begin) + lastbytes;
    unsigned long long next = (unsigned long long)(info->vars[runs[2 * nrun - 2]]->begin - fn->begin) + lastbytes;
    int stat;
    size_t i;
    if (nr == 0)
        return NC_NOERR;
    if (oext > half || next > half)
        return NC_EINTERNAL;
    per = 1 + (half - (oext > next ? oext : next)) / info->recsize;
    if ((stat = nc3_iobuf(info, &buf)))
        return stat;
    src = buf;
    dst = buf + half;
    for (r1 = nr; r1 > 0; r1 = r0) {
        long long slo, dlo;
        size_t sn, dn;
        r0 = r1 > per ? r1 - per : 0;
        slo = fo->begin + (long long)(old->recsize * r0);
        dlo = fn->begin + (long long)(info->recsize * r0);
        sn = (size_t)(old->recsize * (r1 - 1 - r0) + oext);
        dn = (size_t)(info->recsize * (r1 - 1 - r0) + next);
        if ((stat = info->io->read_at(info->io, slo, src, sn))
            || (stat = info->io->read_at(info->io, dlo, dst, dn)))
            return stat;
        for (r = r0; r < r1; r++)
            for (i = 0; i < nrun; i++) {
                const NC3_var *ov = old->vars[runs[2 * i]], *nv = info->vars[runs[2 * i]];
                long long from = ov->begin + (long long)(old->recsize * r);
                long long to = nv->begin + (long long)(info->recsize * r);
                memcpy(dst + (to - dlo), src + (from - slo), (size_t)run_bytes(old, runs + 2 * i));
            }
        if ((stat = info->io->write_at(info->io, dlo, dst, dn)))
            return stat;
    }
    return NC_NOERR;
}

static int
move_data(NC3_info *info)
{
    NC3_info *old = info->old;
    int stat = NC_NOERR;
    size_t nrun, i;
    size_t *runs = NULL;
    unsigned long long r;
    if (info->nvars == 0 || old->nvars == 0)
        return NC_NOERR;
    if ((runs = malloc(2 * old->nvars * sizeof *runs)) == NULL)
        return NC_ENOMEM;
    if (info->begin_rec != old->begin_rec || info->recsize != old->recsize) {
        nrun = find_runs(info, 1, runs);
        if (nrun == 1 && info->recsize == old->recsize && old->numrecs > 0
            && (run_bytes(old, runs) >= old->recsize || old->numrecs == 1)) {
            /* Record layout unchanged (the run is the whole record): the
             * whole section is one move. */
            const NC3_var *nv = info->vars[runs[0]], *ov = old->vars[runs[0]];
            stat = nc3_io_move(info, nv->begin, ov->begin,
                               old->recsize * (old->numrecs - 1) + run_bytes(old, runs));
        } else if (nrun > 0 && (stat = move_records(info, runs, nrun)) != NC_EINTERNAL) {
            ;   /* batched: done, or failed with stat */
        } else {
            stat = NC_NOERR;
            for (r = old->numrecs; r-- > 0 && stat == NC_NOERR;)
                for (i = nrun; i-- > 0;) {
                    const NC3_var *nv = info->vars[runs[2 * i]], *ov = old->vars[runs[2 * i]];
                    long long to = nv->begin + (long long)(info->recsize * r);
                    long long from = ov->begin + (long long)(old->recsize * r);
                    if (to != from && (stat = nc3_io_move(info, to, from, run_bytes(old, runs + 2 * i))))
                        break;
                }
        }
        if (stat)
            goto done;
        info->numrecs = old->numrecs;
    }
    if (info->begin_var != old->begin_var) {
        nrun = find_runs(info, 0, runs);
        for (i = nrun; i-- > 0;) {
            const NC3_var *nv = info->vars[runs[2 * i]], *ov = old->vars[runs[2 * i]];
            if (nv->begin != ov->begin
                && (stat = nc3_io_move(info, nv->begin, ov->begin, run_bytes(old, runs + 2 * i))))
                goto done;
        }
    }
done:
    free(runs);
    return stat;
}

static long long calc_size(const NC3_info *info);

/* An ordering point of crash-safe updates: everything written before it is
 * in the file, and on the disk when the backend is a file, before anything
 * written after it. */
static int
barrier(NC3_info *info)
{
    int stat = info->io->sync(info->io);
    if (stat == NC_NOERR && info->io->fsync != NULL)
        stat = info->io->fsync(info->io);
    return stat;
}

/* Does nc_enddef have existing data to move? */
static int
data_moves(const NC3_info *info)
{
    const NC3_info *old = info->old;
    size_t v;
    for (v = 0; v < old->nvars && v < info->nvars; v++) {
        const NC3_var *ov = old->vars[v], *nv = info->vars[v];
        if (!ov->isrec ? nv->begin != ov->begin
            : old->numrecs > 0 && (nv->begin != ov->begin || info->recsize != old->recsize))
            return 1;
    }
    return 0;
}

static void
shift_layout(NC3_info *info, long long k)
{
    size_t v;
    for (v = 0; v < info->nvars; v++)
        info->vars[v]->begin += k;
    info->begin_var += k;
    info->begin_rec += k;
}

/* The data move of nc_enddef made crash-safe.  A move in place overwrites
 * old data the old header still points at, so a kill in the middle loses
 * synced data.  Instead:
 *   1. the data are copied to a staging copy of the new layout shifted up
 *      by k, wholly above the old and the new data (nothing live is
 *      written), then a barrier;
 *   2. the new header with the staging offsets is written (the file is now
 *      the new layout at +k), barrier;
 *   3. the old variables' data are copied down to their final places
 *      (only their bytes: everything else keeps what the file held there,
 *      exactly as a move in place leaves it), barrier;
 *   4. the final header is written, and the file cut back to its size.
 * A kill at any point leaves a header (old, staging or final) whose data
 * are all in place.  Headers are written in one call from offset 0; when
 * the final header spans more than a page it goes in two passes (fixed
 * variables first, then record variables), so that a header cut at a page
 * boundary still has valid offsets: every mix of staging and final offsets
 * it can hold is ordered and points at data.  Costs twice the copying of a
 * move in place and, for the time of the call, disk space for the moved
 * data.  CDF-1 files whose staging offsets would not fit in 32 bits move in
 * place as upstream does. */
static int
staged_move(NC3_info *info, int *wrote_header)
{
    NC3_info *old = info->old, *mid;
    long long fsize, top, k, newend = calc_size(info);
    size_t v, nvars;
    int stat;
    if ((stat = info->io->get_size(info->io, &fsize)))
        return stat;
    top = fsize > newend ? fsize : newend;
    if (calc_size(old) > top)
        top = calc_size(old);
    k = rndup(top - info->begin_var, 4096);
    if (info->version == 1)
        for (v = 0; v < info->nvars; v++)
            if (info->vars[v]->begin + k > NC3_XINT_MAX)
                return move_data(info);
    shift_layout(info, k);
    stat = move_data(info);
    if (stat == NC_NOERR)
        stat = barrier(info);
    if (stat == NC_NOERR)
        stat = nc3_header_write(info);
    if (stat) {
        /* the old header still holds: drop the staging copy */
        shift_layout(info, -k);
        (void)info->io->set_size(info->io, fsize);
        return stat;
    }
    if ((stat = barrier(info)) || (mid = nc3_info_dup(info)) == NULL) {
        shift_layout(info, -k);
        return stat ? stat : NC_ENOMEM;
    }
    shift_layout(info, -k);
    nvars = mid->nvars;
    mid->nvars = old->nvars;    /* only the old variables have data */
    info->old = mid;
    stat = move_data(info);
    mid->nvars = nvars;
    if (stat == NC_NOERR)
        stat = barrier(info);
    if (stat == NC_NOERR && info->xsz > 4096) {
        for (v = 0; v < info->nvars; v++)
            if (info->vars[v]->isrec)
                info->vars[v]->begin += k;
        stat = nc3_header_write(info);
        for (v = 0; v < info->nvars; v++)
            if (info->vars[v]->isrec)
                info->vars[v]->begin -= k;
        if (stat == NC_NOERR)
            stat = info->io->sync(info->io);
    }
    if (stat == NC_NOERR)
        stat = nc3_header_write(info);
    if (stat == NC_NOERR)
        stat = barrier(info);
    if (stat) {
        /* The file holds the staging layout (or a mix of staging and final
         * offsets, each with its data): a second enddef moves from there. */
        nc3_info_free(old);
        return stat;
    }
    info->old = old;
    nc3_info_free(mid);
    *wrote_header = 1;
    return info->io->set_size(info->io, newend > fsize ? newend : fsize);
}

static int
enddef(NC3_info *info, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align)
{
    int stat;
    size_t i, first_new = info->old ? info->old->nvars : 0;
    if ((stat = nc3_check_vlens(info)))
        return stat;
    if ((stat = compute_begins(info, h_minfree, v_align, v_minfree, r_align)))
        return stat;
    if ((stat = nc3_check_voffs(info)))
        return stat;
    /* A store that cannot grow (a locked NC_memio) must fail here, still in
     * define mode, not at the first access or at close (as upstream). */
    if (info->io->can_grow != NULL && (stat = info->io->can_grow(info->io, calc_size(info))))
        return stat;
    if (info->old != NULL && data_moves(info)) {
        int wrote = 0;
        /* files on disk: crash-safe; memory images: in place */
        stat = info->io->fsync != NULL ? staged_move(info, &wrote) : move_data(info);
        if (stat)
            return stat;
        if (!wrote && (stat = nc3_header_write(info)))
            return stat;
    } else if ((stat = nc3_header_write(info))) {
        return stat;
    }
    /* Fill: fixed vars per their own fill mode (deferred, see nc3data.c);
     * new record vars in existing records per the file's fill mode. */
    for (i = first_new; i < info->nvars; i++) {
        NC3_var *var = info->vars[i];
        unsigned char xfill[8];
        if (var->isrec || var->no_fill)
            continue;
        if ((stat = nc3_fill_value(var, xfill))) {
            /* Upstream fills in order and stops at a bad _FillValue: the
             * variables before it are filled, the define mode stays. */
            (void)nc3_flush_all_fill(info);
            return stat;
        }
        var->fillpending = 1;
        var->nwritten = 0;
    }
    if (info->old != NULL && first_new < info->nvars
        && (stat = nc3_fill_records(info, 0, info->old->numrecs, (int)first_new)))
        return stat;
    if (info->flags & NC3_SHARE && (stat = nc3_flush_all_fill(info)))
        return stat;
    nc3_info_free(info->old);
    info->old = NULL;
    info->flags &= ~(NC3_CREAT | NC3_INDEF);
    return info->io->sync(info->io);
}

/* ---- create / open ------------------------------------------------------------ */

static void
discard(NC *nc, NC3_info *info, int delete_it)
{
    if (info->io != NULL) {
        NC_memio keep;   /* never free a caller's (NC_INMEMORY) buffer on a failed open */
        int callers = (nc->mode & NC_INMEMORY) && !delete_it;
        (void)info->io->close(info->io, delete_it, callers ? &keep : NULL);
        info->io = NULL;
    }
    nc3_info_free(info);
    nc->dispatchdata = NULL;
}

static int
NC3_create(const char *path, int cmode, size_t initialsz, int basepe, size_t *chunksizehintp,
           void *parameters, const NC_Dispatch *table, int ncid)
{
    NC *nc;
    NC3_info *info;
    int stat;
    (void)parameters; (void)table;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (basepe != 0)
        return NC_EINVAL;
    if ((info = nc3_info_new()) == NULL)
        return NC_ENOMEM;
    if (cmode & NC_64BIT_DATA)
        info->version = 5;
    else if (cmode & NC_64BIT_OFFSET)
        info->version = 2;
    else if (NC_get_default_format() == NC_FORMAT_64BIT_OFFSET)
        info->version = 2;
    else if (NC_get_default_format() == NC_FORMAT_CDF5)
        info->version = 5;
    else
        info->version = 1;
    if (cmode & (NC_DISKLESS | NC_INMEMORY | NC_MMAP))
        stat = nc3io_mem_create(path, cmode | ((cmode & NC_MMAP) ? NC_DISKLESS | NC_PERSIST : 0),
                                initialsz, &info->io);
    else
        stat = nc3io_posix_create(path, cmode, &info->io);
    if (stat) {
        nc3_info_free(info);
        return stat;
    }
    info->chunk = info->io->chunk;
    if (chunksizehintp != NULL && *chunksizehintp >= 8)
        info->chunk = *chunksizehintp & ~(size_t)7;
    if (chunksizehintp != NULL)
        *chunksizehintp = info->chunk;
    info->flags = NC3_INDEF | NC3_CREAT | ((cmode & NC_SHARE) ? NC3_SHARE : 0);
    info->xsz = info->version == 5 ? NC3_MIN_XSZ5 : NC3_MIN_XSZ;
    nc->dispatchdata = info;
    return NC_NOERR;
}

static int
NC3_open(const char *path, int mode, int basepe, size_t *chunksizehintp, void *parameters,
         const NC_Dispatch *table, int ncid)
{
    NC *nc;
    NC3_info *info;
    int stat;
    (void)table;
    if ((stat = NC_check_id(ncid, &nc)))
        return stat;
    if (basepe != 0)
        return NC_EINVAL;
    if ((info = nc3_info_new()) == NULL)
        return NC_ENOMEM;
    if (mode & (NC_INMEMORY | NC_DISKLESS | NC_MMAP))
        stat = nc3io_mem_open(path, mode, parameters, &info->io);
    else if (NC_remote_is_url(path)) /* the registry's byte-range row */
        stat = nc3io_remote_open(path, mode, &info->io);
    else
        stat = nc3io_posix_open(path, mode, &info->io);
    if (stat) {
        nc3_info_free(info);
        return stat;
    }
    info->chunk = info->io->chunk;
    if (chunksizehintp != NULL && *chunksizehintp >= 8)
        info->chunk = *chunksizehintp & ~(size_t)7;
    if (chunksizehintp != NULL)
        *chunksizehintp = info->chunk;
    info->flags = ((mode & NC_WRITE) ? 0 : NC3_RDONLY) | ((mode & NC_SHARE) ? NC3_SHARE : 0);
    nc->dispatchdata = info;
    if ((stat = nc3_header_read(info))) {
        discard(nc, info, 0);
        return stat;
    }
    return NC_NOERR;
}

/* ---- define mode ---------------------------------------------------------------- */

static int
NC3_redef(int ncid)
{
    NC3_info *info;
    int stat;
    if ((stat = nc3_get(ncid, NULL, &info)))
        return stat;
    if (NC3_ISREADONLY(info))
        return NC_EPERM;
    if (NC3_INDEFINE(info))
        return NC_EINDEFINE;
    /* Data must be complete on disk before enddef may move it.  Our own
     * header changes made in data mode (renames, attribute rewrites) go to
     * disk before NC_SHARE re-reads the header: upstream re-reads first
     * and silently loses them. */
    if ((stat = sync_state(info)))
        return stat;
    if ((info->flags & NC3_SHARE) && (stat = reread_header(info)))
        return stat;
    if ((info->old = nc3_info_dup(info)) == NULL)
        return NC_ENOMEM;
    info->flags |= NC3_INDEF;
    return NC_NOERR;
}

static int
NC3__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align)
{
    NC3_info *info;
    int stat;
    if ((stat = nc3_get(ncid, NULL, &info)))
        return stat;
    if (!NC3_INDEFINE(info))
        return NC_ENOTINDEFINE;
    return enddef(info, h_minfree, v_align, v_minfree, r_align);
}

static int
NC3_sync(int ncid)
{
    NC3_info *info;
    int stat;
    if ((stat = nc3_get(ncid, NULL, &info)))
        return stat;
    if (NC3_INDEFINE(info))
        return NC_EINDEFINE;
    if (NC3_ISREADONLY(info)) {
        /* Forget cached reads first: others' writes must become visible. */
        if ((stat = info->io->sync(info->io)))
            return stat;
        return reread_header(info);
    }
    /* Durable: data, then the record count or header (written after the
     * data they claim), then one fdatasync.  A power cut during it can
     * leave the new count with some of the new records unwritten, never
     * touch what an earlier sync made durable. */
    if ((stat = sync_state(info)))
        return stat;
    if ((stat = info->io->sync(info->io)))
        return stat;
    return info->io->fsync != NULL ? info->io->fsync(info->io) : NC_NOERR;
}

/* Upstream's NC_calcsize: where the file must end. */
static long long
calc_size(const NC3_info *info)
{
    const NC3_var *last_fix = NULL;
    size_t i, nrec = 0;
    if (info->nvars == 0)
        return (long long)info->xsz;
    for (i = 0; i < info->nvars; i++) {
        if (info->vars[i]->isrec)
            nrec++;
        else
            last_fix = info->vars[i];
    }
    if (nrec == 0)
        return last_fix->begin + (long long)last_fix->len;
    return info->begin_rec + (long long)(info->numrecs * info->recsize);
}

static int
NC3_abort(int ncid)
{
    NC *nc;
    NC3_info *info;
    int stat, delete_it;
    if ((stat = nc3_get(ncid, &nc, &info)))
        return stat;
    delete_it = (info->flags & NC3_CREAT) != 0;
    if (info->old != NULL) {
        /* Discard the new definitions: the file still holds the old ones. */
        nc3_info_free(info->old);
        info->old = NULL;
        info->flags &= ~NC3_INDEF;
    } else if (!NC3_ISREADONLY(info) && !delete_it) {
        stat = sync_state(info);
    }
    {
        int cstat = info->io->close(info->io, delete_it, NULL);
        info->io = NULL;
        if (stat == NC_NOERR)
            stat = cstat;
    }
    nc3_info_free(info);
    nc->dispatchdata = NULL;
    return stat;
}

static int
NC3_close(int ncid, void *memio)
{
    NC *nc;
    NC3_info *info;
    int stat = NC_NOERR, cstat;
    if ((stat = nc3_get(ncid, &nc, &info)))
        return stat;
    if (NC3_INDEFINE(info)) {
        if ((stat = enddef(info, 0, 1, 0, 1))) {
            (void)NC3_abort(ncid);
            return stat;
        }
    }
    if (!NC3_ISREADONLY(info))
        stat = sync_state(info);
    if (stat == NC_NOERR && !NC3_ISREADONLY(info)) {
        long long fsize, want = calc_size(info);
        stat = info->io->get_size(info->io, &fsize);
        if (stat == NC_NOERR && fsize < want)
            stat = info->io->set_size(info->io, want);
    }
    cstat = info->io->close(info->io, 0, memio);
    info->io = NULL;
    nc3_info_free(info);
    nc->dispatchdata = NULL;
    return stat ? stat : cstat;
}

static int
NC3_set_fill(int ncid, int fillmode, int *old_modep)
{
    NC3_info *info;
    int stat, oldmode;
    size_t i;
    if ((stat = nc3_get(ncid, NULL, &info)))
        return stat;
    if (NC3_ISREADONLY(info))
        return NC_EPERM;
    oldmode = (info->flags & NC3_NOFILL) ? NC_NOFILL : NC_FILL;
    if (fillmode == NC_NOFILL) {
        info->flags |= NC3_NOFILL;
    } else if (fillmode == NC_FILL) {
        if ((info->flags & NC3_NOFILL) && !NC3_INDEFINE(info) && (stat = sync_state(info)))
            return stat;
        info->flags &= ~NC3_NOFILL;
    } else {
        return NC_EINVAL;
    }
    for (i = 0; i < info->nvars; i++)
        info->vars[i]->no_fill = fillmode == NC_NOFILL;
    if (old_modep) *old_modep = oldmode;
    return NC_NOERR;
}

static int
NC3_inq_format(int ncid, int *formatp)
{
    NC3_info *info;
    int stat;
    if ((stat = nc3_get(ncid, NULL, &info)))
        return stat;
    if (formatp)
        *formatp = info->version == 5 ? NC_FORMAT_CDF5
                 : info->version == 2 ? NC_FORMAT_64BIT_OFFSET : NC_FORMAT_CLASSIC;
    return NC_NOERR;
}

static int
NC3_inq_format_extended(int ncid, int *formatp, int *modep)
{
    NC *nc;
    int stat;
    if ((stat = nc3_get(ncid, &nc, NULL)))
        return stat;
    if (formatp) *formatp = NC_FORMATX_NC3;
    if (modep) *modep = nc->mode;
    return NC_NOERR;
}

static int
NC3_show_metadata(int ncid)
{
    return nc3_get(ncid, NULL, NULL);
}

/* ---- one handle, several threads -------------------------------------------- */

/* Every slot that reads or changes a handle's state runs under the handle's
 * lock (NC3_info.lock): calls that change it hold the lock alone, so calls
 * on one handle from several threads are serialised; reads and inquiries
 * (READ_LOCKED) share it when the handle cannot change (nc3_reads_shared:
 * read-only, no NC_SHARE), and then run in parallel.  The slots below call
 * each other only directly (never through the table or the public API), so
 * the lock is never taken twice; varm is libdispatch's generic code, which
 * calls the locked vars slot per piece. */
#define LOCK_SLOT(name, params, args, shared)                                   \
    static int L_##name params                                                  \
    {                                                                           \
        NC3_info *li_;                                                          \
        int st_ = nc3_get(ncid, NULL, &li_);                                    \
        if (st_)                                                                \
            return st_;                                                         \
        if ((shared) && nc3_reads_shared(li_))                                  \
            pthread_rwlock_rdlock(&li_->lock);                                  \
        else                                                                    \
            pthread_rwlock_wrlock(&li_->lock);                                  \
        st_ = name args;                                                        \
        pthread_rwlock_unlock(&li_->lock);                                      \
        return st_;                                                             \
    }
#define LOCKED(name, params, args) LOCK_SLOT(name, params, args, 0)
#define READ_LOCKED(name, params, args) LOCK_SLOT(name, params, args, 1)

LOCKED(NC3_redef, (int ncid), (ncid))
LOCKED(NC3__enddef, (int ncid, size_t a, size_t b, size_t c, size_t d), (ncid, a, b, c, d))
LOCKED(NC3_sync, (int ncid), (ncid))
LOCKED(NC3_set_fill, (int ncid, int m, int *o), (ncid, m, o))
READ_LOCKED(NC3_inq, (int ncid, int *a, int *b, int *c, int *d), (ncid, a, b, c, d))
LOCKED(NC3_def_dim, (int ncid, const char *n, size_t l, int *id), (ncid, n, l, id))
READ_LOCKED(NC3_inq_dimid, (int ncid, const char *n, int *id), (ncid, n, id))
READ_LOCKED(NC3_inq_dim, (int ncid, int id, char *n, size_t *l), (ncid, id, n, l))
READ_LOCKED(NC3_inq_unlimdim, (int ncid, int *id), (ncid, id))
LOCKED(NC3_rename_dim, (int ncid, int id, const char *n), (ncid, id, n))
READ_LOCKED(NC3_inq_att, (int ncid, int v, const char *n, nc_type *t, size_t *l), (ncid, v, n, t, l))
READ_LOCKED(NC3_inq_attid, (int ncid, int v, const char *n, int *id), (ncid, v, n, id))
READ_LOCKED(NC3_inq_attname, (int ncid, int v, int id, char *n), (ncid, v, id, n))
LOCKED(NC3_rename_att, (int ncid, int v, const char *n, const char *nn), (ncid, v, n, nn))
LOCKED(NC3_del_att, (int ncid, int v, const char *n), (ncid, v, n))
READ_LOCKED(NC3_get_att, (int ncid, int v, const char *n, void *p, nc_type t), (ncid, v, n, p, t))
LOCKED(NC3_put_att, (int ncid, int v, const char *n, nc_type t, size_t l, const void *p, nc_type mt),
       (ncid, v, n, t, l, p, mt))
LOCKED(NC3_def_var, (int ncid, const char *n, nc_type t, int nd, const int *d, int *id),
       (ncid, n, t, nd, d, id))
READ_LOCKED(NC3_inq_varid, (int ncid, const char *n, int *id), (ncid, n, id))
LOCKED(NC3_rename_var, (int ncid, int v, const char *n), (ncid, v, n))
READ_LOCKED(NC3_get_vara, (int ncid, int v, const size_t *s, const size_t *c, void *p, nc_type t),
       (ncid, v, s, c, p, t))
LOCKED(NC3_put_vara, (int ncid, int v, const size_t *s, const size_t *c, const void *p, nc_type t),
       (ncid, v, s, c, p, t))
READ_LOCKED(NC3_get_vars, (int ncid, int v, const size_t *s, const size_t *c, const ptrdiff_t *st,
                      void *p, nc_type t), (ncid, v, s, c, st, p, t))
LOCKED(NC3_put_vars, (int ncid, int v, const size_t *s, const size_t *c, const ptrdiff_t *st,
                      const void *p, nc_type t), (ncid, v, s, c, st, p, t))
READ_LOCKED(NC3_inq_var_all, (int ncid, int v, char *n, nc_type *t, int *nd, int *d, int *na, int *sh,
                         int *df, int *dl, int *fl, int *ct, size_t *cs, int *nf, void *fv,
                         int *en, unsigned int *id, size_t *np, unsigned int *pa),
       (ncid, v, n, t, nd, d, na, sh, df, dl, fl, ct, cs, nf, fv, en, id, np, pa))
LOCKED(NC3_def_var_fill, (int ncid, int v, int m, const void *f), (ncid, v, m, f))
READ_LOCKED(NC3_inq_unlimdims, (int ncid, int *n, int *ids), (ncid, n, ids))
READ_LOCKED(NC3_inq_varids, (int ncid, int *n, int *ids), (ncid, n, ids))
READ_LOCKED(NC3_inq_dimids, (int ncid, int *n, int *ids, int inc), (ncid, n, ids, inc))

/* close and abort free the handle's state, lock included: they wait for
 * the calls running on the handle, then run unlocked.  A call that starts
 * on a handle while it is being closed is the caller's error. */
static int
L_NC3_abort(int ncid)
{
    NC3_info *li;
    int st = nc3_get(ncid, NULL, &li);
    if (st)
        return st;
    pthread_rwlock_wrlock(&li->lock);
    pthread_rwlock_unlock(&li->lock);
    return NC3_abort(ncid);
}

static int
L_NC3_close(int ncid, void *memio)
{
    NC3_info *li;
    int st = nc3_get(ncid, NULL, &li);
    if (st)
        return st;
    pthread_rwlock_wrlock(&li->lock);
    pthread_rwlock_unlock(&li->lock);
    return NC3_close(ncid, memio);
}

int NC3_initialize(void) { return NC_NOERR; }
int NC3_finalize(void) { return NC_NOERR; }

static const NC_Dispatch NC3_table = {
    .model = NC_FORMATX_NC3,
    .dispatch_version = NC_DISPATCH_VERSION,
    .create = NC3_create,
    .open = NC3_open,
    .redef = L_NC3_redef,
    ._enddef = L_NC3__enddef,
    .sync = L_NC3_sync,
    .abort = L_NC3_abort,
    .close = L_NC3_close,
    .set_fill = L_NC3_set_fill,
    .inq_format = NC3_inq_format,
    .inq_format_extended = NC3_inq_format_extended,
    .inq = L_NC3_inq,
    .inq_type = NC3_inq_type,
    .def_dim = L_NC3_def_dim,
    .inq_dimid = L_NC3_inq_dimid,
    .inq_dim = L_NC3_inq_dim,
    .inq_unlimdim = L_NC3_inq_unlimdim,
    .rename_dim = L_NC3_rename_dim,
    .inq_att = L_NC3_inq_att,
    .inq_attid = L_NC3_inq_attid,
    .inq_attname = L_NC3_inq_attname,
    .rename_att = L_NC3_rename_att,
    .del_att = L_NC3_del_att,
    .get_att = L_NC3_get_att,
    .put_att = L_NC3_put_att,
    .def_var = L_NC3_def_var,
    .inq_varid = L_NC3_inq_varid,
    .rename_var = L_NC3_rename_var,
    .get_vara = L_NC3_get_vara,
    .put_vara = L_NC3_put_vara,
    .get_vars = L_NC3_get_vars,
    .put_vars = L_NC3_put_vars,
    .get_varm = NCDEFAULT_get_varm,
    .put_varm = NCDEFAULT_put_varm,
    .inq_var_all = L_NC3_inq_var_all,
    .var_par_access = NC_NOTNC4_var_par_access,
    .def_var_fill = L_NC3_def_var_fill,
    .show_metadata = NC3_show_metadata,
    .inq_unlimdims = L_NC3_inq_unlimdims,
    .inq_ncid = NC3_inq_ncid,
    .inq_grps = NC3_inq_grps,
    .inq_grpname = NC3_inq_grpname,
    .inq_grpname_full = NC3_inq_grpname_full,
    .inq_grp_parent = NC3_inq_grp_parent,
    .inq_grp_full_ncid = NC3_inq_grp_full_ncid,
    .inq_varids = L_NC3_inq_varids,
    .inq_dimids = L_NC3_inq_dimids,
    .inq_typeids = NC3_inq_typeids,
    .inq_type_equal = NC3_inq_type_equal,
    .inq_typeid = NC3_inq_typeid,
    NC_CLASSIC_MODEL_SLOTS,
};

const NC_Dispatch *NC3_dispatch_table = &NC3_table;
