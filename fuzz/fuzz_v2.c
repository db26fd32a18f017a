/* fuzz_v2.c: libFuzzer target for the netCDF-2 API (libdispatch/dv2i.c).
 *
 * ncopts is 0, so no call prints or exits; errors come back as -1.  The
 * input is a program as in fuzz_ops.c: one opcode byte, then its argument
 * bytes (0 when the input runs out).  Operations: nccreate (CDF-1/2/5,
 * NC_SHARE or not), ncopen (NC_WRITE or not), ncdimdef with any long
 * length, ncvardef, ncattput with any int length and the other attribute
 * calls, renames, ncsetfill, ncredef/ncendef, ncsync, ncclose, ncabort,
 * the inquiries, ncvarput1/get1, ncvarput/get, ncvarputs/gets, ncvarputg/
 * getg with byte imaps (odd, negative, not a multiple of the element
 * size) and ncrecput/ncrecget.
 * A shadow model (dims, vars, written values) checks, with __builtin_trap():
 * values read back equal those written, in the session, after ncendef moved
 * the data and after close/reopen; a get writes only where its map points;
 * an accepted request lies inside the variable; an attribute reads back as
 * written; after a clean close the header matches the model.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include "netcdf.h"
#include "fuzz_lib_common.h"

#define MAXD 5
#define MAXV 5
#define MAXR 3
#define MAXLEN 5
#define MAXREC 8
#define MAXEL (MAXREC * MAXLEN * MAXLEN)
#define MAXOPS 64
#define BIGBUF 4096



typedef struct {
    char name[NC_MAX_NAME + 1];
    long len;                   /* 0: the record dim */
} Dim;

typedef struct {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int ndims;
    int dimids[MAXR];
    unsigned char data[MAXEL * 8];
    unsigned char known[MAXEL];
} Var;

typedef struct {
    int ndims, nvars, unlimid;
    long numrecs;
    Dim d[MAXD];
    Var v[MAXV];
} Model;

static Model M, Tmp;
static int ncid = -1, indef, writable, uncertain, have_file, exact;
static char path[256];
static int trace;   /* FUZZ_TRACE=1: print each operation */

static size_t
tsize(nc_type t)
{
    int n = nctypelen(t);
    return n > 0 && n <= 8 ? (size_t)n : 0;
}

static void
gen_values(nc_type t, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        if (t == NC_FLOAT)
            ((float *)buf)[i] = (float)(int16_t)r;
        else if (t == NC_DOUBLE)
            ((double *)buf)[i] = (double)(int32_t)r / 8.0;
        else
            memcpy((char *)buf + i * tsize(t), &r, tsize(t));
    }
}

/* The v2 calls report only -1: an error has unknown effect unless the
 * call is one that checks before acting.  ncerr holds the status. */
static void
v2_failed(void)
{
    switch (ncerr) {
    case NC_EBADID: case NC_EINVAL: case NC_EPERM: case NC_ENOTINDEFINE: case NC_EINDEFINE:
    case NC_EINVALCOORDS: case NC_EMAXDIMS: case NC_ENAMEINUSE: case NC_ENOTATT:
    case NC_EMAXATTS: case NC_EBADTYPE: case NC_EBADDIM: case NC_EUNLIMPOS: case NC_EMAXVARS:
    case NC_ENOTVAR: case NC_EGLOBAL: case NC_EMAXNAME: case NC_EUNLIMIT: case NC_ENORECVARS:
    case NC_ECHAR: case NC_EEDGE: case NC_ESTRIDE: case NC_EBADNAME: case NC_EDIMSIZE:
    case NC_ERANGE: case NC_ESTRICTNC3:
        break;
    default:
        uncertain = 1;
    }
}

static int
var_shape(const Var *v, long *shp)
{
    for (int i = 0; i < v->ndims; i++)
        shp[i] = v->dimids[i] == M.unlimid ? MAXREC : M.d[v->dimids[i]].len;
    return v->ndims;
}

static int
is_rec(const Var *v)
{
    return v->ndims > 0 && v->dimids[0] == M.unlimid;
}

static void
model_clear(Model *m)
{
    memset(m, 0, sizeof *m);
    m->unlimid = -1;
}

/* Structure of the open file through the v2 inquiries; data unknown. */
static int
load(Model *m)
{
    int natts;
    model_clear(m);
    if (ncinquire(ncid, &m->ndims, &m->nvars, &natts, &m->unlimid) < 0)
        return -1;
    if (m->ndims > MAXD || m->nvars > MAXV)
        return -1;
    for (int d = 0; d < m->ndims; d++) {
        long len;
        if (ncdiminq(ncid, d, m->d[d].name, &len) != d)
            return -1;
        if (d == m->unlimid) {
            m->numrecs = len;
            len = 0;
        }
        m->d[d].len = len;
    }
    if (m->numrecs > MAXREC)
        return -1;
    for (int v = 0; v < m->nvars; v++) {
        Var *x = &m->v[v];
        int dimids[NC_MAX_VAR_DIMS];
        if (ncvarinq(ncid, v, x->name, &x->type, &x->ndims, dimids, &natts) != v)
            return -1;
        if (x->ndims > MAXR || tsize(x->type) == 0)
            return -1;
        memcpy(x->dimids, dimids, sizeof(int) * (size_t)x->ndims);
        for (int i = 0; i < x->ndims; i++)
            if (dimids[i] != m->unlimid && m->d[dimids[i]].len > MAXLEN)
                return -1;
    }
    return 0;
}

static void
compare(void)
{
    CHECK(load(&Tmp) == 0);
    CHECK(Tmp.ndims == M.ndims && Tmp.nvars == M.nvars && Tmp.unlimid == M.unlimid);
    CHECK(Tmp.numrecs == M.numrecs);
    for (int d = 0; d < M.ndims; d++)
        CHECK(strcmp(Tmp.d[d].name, M.d[d].name) == 0 && Tmp.d[d].len == M.d[d].len);
    for (int v = 0; v < M.nvars; v++) {
        CHECK(strcmp(Tmp.v[v].name, M.v[v].name) == 0);
        CHECK(Tmp.v[v].type == M.v[v].type && Tmp.v[v].ndims == M.v[v].ndims);
        CHECK(memcmp(Tmp.v[v].dimids, M.v[v].dimids, sizeof(int) * (size_t)M.v[v].ndims) == 0);
    }
}

/* Whole variables through ncvarget; known values must match. */
static void
verify_all(void)
{
    static unsigned char buf[MAXEL * 8 + 16];
    if (ncid < 0 || indef || uncertain)
        return;
    for (int v = 0; v < M.nvars; v++) {
        Var *x = &M.v[v];
        long shp[MAXR], start[MAXR], count[MAXR];
        size_t n = 1, es = tsize(x->type);
        var_shape(x, shp);
        for (int i = 0; i < x->ndims; i++) {
            start[i] = 0;
            count[i] = i == 0 && is_rec(x) ? M.numrecs : shp[i];
            n *= (size_t)count[i];
        }
        memset(buf, 0xA5, sizeof buf);
        CHECK(ncvarget(ncid, v, start, count, buf) == 0);
        for (size_t j = 0; j < n; j++)
            if (x->known[j])
                CHECK(memcmp(buf + j * es, x->data + j * es, es) == 0);
        for (size_t j = n * es; j < n * es + 16; j++)
            CHECK(buf[j] == 0xA5);
    }
}

static void
rebuild(void)
{
    model_clear(&M);
    exact = 0;
    have_file = 0;
    ncid = ncopen(path, NC_NOWRITE);
    if (ncid < 0) {
        unlink(path);
        return;
    }
    if (load(&M) == 0) {
        have_file = 1;
        exact = 1;
    } else {
        model_clear(&M);
        unlink(path);
    }
    ncclose(ncid);
    ncid = -1;
}

static const char *const names[] = {
    "a", "b", "time", "x", "_FillValue", "units", "a b", "", "/", "long_name",
    "a_long_name_that_grows_the_header_0123456789_abcdefghijklmnopqrstuvwxyz", "y",
};

static void
pick_name(Rd *r, char *out)
{
    unsigned b = u8(r);
    if (b < 0xF0) {
        strcpy(out, names[b % (sizeof names / sizeof names[0])]);
    } else {
        unsigned n = b & 0x0F;
        for (unsigned i = 0; i < n; i++)
            out[i] = (char)u8(r);
        out[n] = 0;
    }
}

static long
pick_long(Rd *r, long L)
{
    unsigned b = u8(r);
    switch (b >> 5) {
    case 6: return b & 1 ? -1 : L;
    case 7: return b & 1 ? L + 1 : (b & 2 ? -2147483647L - 1 : 0x7FFFFFFFL);
    default: return (long)(b % (unsigned)(L + 1));
    }
}

/* ---- data --------------------------------------------------------------------- */

static long Fidx[BIGBUF];
static long Moff[BIGBUF];

/* form: 0 put1/get1, 1 vara, 2 vars, 3 varm (byte imap) */
static void
op_data(Rd *r, int put, int form)
{
    int varid = M.nvars ? (int)(u8(r) % (unsigned)M.nvars) : 0, ok;
    long start[MAXR], count[MAXR], stride[MAXR], imapb[MAXR], imap[MAXR], shp[MAXR], lim[MAXR];
    if (varid >= M.nvars)
        return;
    Var *x = &M.v[varid];
    size_t es = tsize(x->type), nel = 1;
    int nd = var_shape(x, shp);
    rng = (uint64_t)u8(r) * 0x9E3779B97F4A7C15ull + 3;
    for (int i = 0; i < nd; i++) {
        lim[i] = i == 0 && is_rec(x) ? (put ? MAXREC : M.numrecs) : shp[i];
        start[i] = pick_long(r, lim[i]);
        count[i] = form == 0 ? 1 : pick_long(r, lim[i] - (start[i] >= 0 && start[i] <= lim[i] ? start[i] : 0));
        stride[i] = form >= 2 ? (long)(u8(r) % 5) - 1 : 1;
        if (i == 0 && is_rec(x) && put) {
            /* Never past MAXREC: clamp the record dim of a put. */
            if (start[i] >= MAXREC)
                start[i] = MAXREC - 1;  /* ncvarput1 ignores the count */
            if (count[i] > MAXREC)
                count[i] = 1;
            if (stride[i] > 1 && count[i] > 1 && start[i] + (count[i] - 1) * stride[i] >= MAXREC)
                count[i] = 1;
            if (start[i] >= 0 && count[i] > MAXREC - start[i])
                count[i] = MAXREC - start[i];
        }
        if (count[i] < 0 || count[i] > BIGBUF || nel * (size_t)(count[i] < 0 ? 0 : count[i]) > BIGBUF)
            nel = BIGBUF + 1;
        else
            nel *= (size_t)count[i];
    }
    if (nel > BIGBUF)
        return;         /* odd sizes are covered by fuzz_ops; here the v2 layer */
    /* Memory map in elements; varm gets a byte map. */
    long acc = 1;
    for (int i = nd - 1; i >= 0; i--) {
        imap[i] = acc;
        acc *= count[i] ? count[i] : 1;
    }
    if (form == 3) {
        unsigned sel = u8(r);
        for (int i = 0; i < nd; i++) {
            imapb[i] = imap[i] * (long)es;
            if (sel % 4 == 1)
                imapb[i] = -imapb[i];
            else if (sel % 4 == 2)
                imapb[i] += (long)((sel >> 2) % es);   /* rounds down to elements */
            else if (sel % 4 == 3 && i == 0)
                imapb[i] *= 2;
            imap[i] = imapb[i] / (long)es;
        }
    }
    long lo = 0, hi = 0;
    for (int i = 0; i < nd; i++) {
        long ext = (count[i] > 0 ? count[i] - 1 : 0) * imap[i];
        if (ext < 0)
            lo += ext;
        else
            hi += ext;
    }
    size_t blen = (size_t)(hi - lo) + 1;
    if (blen > BIGBUF)
        return;
    unsigned char *buf = malloc(blen * es + 1), *touched = calloc(blen, 1);
    if (buf == NULL || touched == NULL)
        goto out;
    /* Walk the request. */
    long n = (long)nel;
    int inside = 1, aliased = 0;
    {
        long k[MAXR] = {0};
        for (long e = 0; e < n; e++) {
            long f = 0, m = 0;
            for (int i = 0; i < nd; i++) {
                long pos = start[i] + k[i] * stride[i];
                if (start[i] < 0 || pos < 0 || pos >= lim[i])
                    inside = 0;
                f = f * shp[i] + pos;
                m += k[i] * imap[i];
            }
            Fidx[e] = f;
            Moff[e] = m - lo;
            if (touched[Moff[e]])
                aliased = 1;
            touched[Moff[e]] = 1;
            for (int i = nd - 1; i >= 0; i--) {
                if (++k[i] < count[i])
                    break;
                k[i] = 0;
            }
        }
    }
    for (int i = 0; i < nd; i++)
        if (count[i] < 0 || start[i] < 0)
            inside = 0;
    if (put)
        gen_values(x->type, buf, blen);
    else
        memset(buf, 0xA5, blen * es);
    void *p = buf + (size_t)(-lo) * es;
    switch (form) {
    case 0: ok = put ? ncvarput1(ncid, varid, start, p) : ncvarget1(ncid, varid, start, p); break;
    case 1: ok = put ? ncvarput(ncid, varid, start, count, p) : ncvarget(ncid, varid, start, count, p); break;
    case 2: ok = put ? ncvarputs(ncid, varid, start, count, stride, p)
                     : ncvargets(ncid, varid, start, count, stride, p); break;
    default: ok = put ? ncvarputg(ncid, varid, start, count, stride, imapb, p)
                      : ncvargetg(ncid, varid, start, count, stride, imapb, p); break;
    }
    if (trace) {
        fprintf(stderr, "%s form %d var %d type %d ok %d ncerr %d n %ld inside %d:", put ? "put" : "get",
                form, varid, (int)x->type, ok, ncerr, n, inside);
        for (int i = 0; i < nd; i++)
            fprintf(stderr, " [%ld %ld %ld %ld]", start[i], count[i], stride[i], imap[i]);
        fprintf(stderr, "\n");
    }
    if (is_rec(x) && put && !indef) {
        /* Even a put of nothing moves the record count to start + count,
         * as upstream does. */
        char nm[NC_MAX_NAME + 1];
        long nr;
        if (ncdiminq(ncid, M.unlimid, nm, &nr) == M.unlimid) {
            CHECK(nr >= 0 && nr <= MAXREC);
            M.numrecs = nr;
        }
    }
    if (ok != 0) {
        v2_failed();
        /* A strided put that fails on a bad coordinate has written the
         * elements before it, as upstream. */
        if (put && (uncertain || form >= 2))
            memset(x->known, 0, sizeof x->known);
        int good_stride = 1;
        for (int i = 0; i < nd; i++)
            if (stride[i] <= 0)
                good_stride = 0;
        CHECK(!(inside && n > 0 && good_stride && !indef && !uncertain && (writable || !put))
              || ncerr == NC_EBADTYPE);
        goto out;
    }
    if (n == 0)
        goto out;
    CHECK(inside || n == 0);
    CHECK(!indef);
    if (put) {
        CHECK(writable);
        for (long e = 0; e < n; e++) {
            memcpy(x->data + (size_t)Fidx[e] * es, buf + (size_t)Moff[e] * es, es);
            x->known[Fidx[e]] = 1;
        }
        if (is_rec(x)) {
            long inner = 1, last = 0, nr;
            char nm[NC_MAX_NAME + 1];
            for (int i = 1; i < nd; i++)
                inner *= shp[i];
            for (long e = 0; e < n; e++)
                if (Fidx[e] / inner + 1 > last)
                    last = Fidx[e] / inner + 1;
            CHECK(ncdiminq(ncid, M.unlimid, nm, &nr) == M.unlimid);
            CHECK(nr >= last && nr <= MAXREC);
            M.numrecs = nr;
        }
    } else {
        for (long e = 0; e < n; e++)
            if (x->known[Fidx[e]] && !aliased)
                CHECK(memcmp(buf + (size_t)Moff[e] * es, x->data + (size_t)Fidx[e] * es, es) == 0);
        for (size_t o = 0; o < blen; o++)
            if (!touched[o])
                for (size_t b = 0; b < es; b++)
                    CHECK(buf[o * es + b] == 0xA5);
    }
out:
    free(buf);
    free(touched);
}

/* ncrecput / ncrecget of one record. */
static void
op_rec(Rd *r, int put)
{
    void *ptrs[MAXV];
    int ids[MAXV], nrv = 0, got;
    long sizes[MAXV], recnum = (long)(u8(r) % (MAXREC + 2)) - 1;
    unsigned mask = u8(r);
    rng = (uint64_t)mask * 77 + 1;
    if (ncid < 0)
        return;
    for (int v = 0; v < M.nvars; v++)
        if (is_rec(&M.v[v]))
            ids[nrv++] = v;
    got = ncrecinq(ncid, NULL, NULL, NULL);
    if (got >= 0 && !uncertain) {
        int gids[NC_MAX_VARS > 64 ? 64 : NC_MAX_VARS];
        CHECK(got == nrv);
        CHECK(ncrecinq(ncid, NULL, gids, sizes) == nrv);
        for (int i = 0; i < nrv; i++) {
            long shp[MAXR], inner = (long)tsize(M.v[ids[i]].type);
            var_shape(&M.v[ids[i]], shp);
            for (int k = 1; k < M.v[ids[i]].ndims; k++)
                inner *= shp[k];
            CHECK(gids[i] == ids[i] && sizes[i] == inner);
        }
    }
    if (put && recnum >= MAXREC)
        return;
    for (int i = 0; i < nrv; i++) {
        long shp[MAXR], inner = 1;
        Var *x = &M.v[ids[i]];
        var_shape(x, shp);
        for (int k = 1; k < x->ndims; k++)
            inner *= shp[k];
        ptrs[i] = NULL;
        if (mask & (1u << i)) {
            ptrs[i] = malloc((size_t)inner * tsize(x->type));
            if (put && ptrs[i])
                gen_values(x->type, ptrs[i], (size_t)inner);
        }
    }
    got = put ? ncrecput(ncid, recnum, ptrs) : ncrecget(ncid, recnum, ptrs);
    int inside = recnum >= 0 && (put ? recnum < MAXREC : recnum < M.numrecs), any = 0;
    for (int i = 0; i < nrv; i++)
        if (ptrs[i] != NULL)
            any = 1;
    if (trace)
        fprintf(stderr, "rec%s %ld mask %x nrv %d -> %d (%d)\n", put ? "put" : "get", recnum, mask,
                nrv, got, ncerr);
    if (got != 0) {
        v2_failed();
        if (put)
            for (int i = 0; i < nrv; i++)
                if (ptrs[i])
                    memset(M.v[ids[i]].known, 0, sizeof M.v[ids[i]].known);
        /* NC_EBADTYPE: a _FillValue rewritten in data mode with another
         * type makes every fill fail, as upstream. */
        CHECK(!(inside && any && !indef && !uncertain && (writable || !put)) || ncerr == NC_EBADTYPE);
    } else if (any) {
        CHECK(!indef && inside);
        for (int i = 0; i < nrv; i++) {
            long shp[MAXR], inner = 1;
            Var *x = &M.v[ids[i]];
            size_t es = tsize(x->type);
            if (ptrs[i] == NULL)
                continue;
            var_shape(x, shp);
            for (int k = 1; k < x->ndims; k++)
                inner *= shp[k];
            for (long j = 0; j < inner; j++) {
                size_t f = (size_t)(recnum * inner + j);
                if (put) {
                    memcpy(x->data + f * es, (char *)ptrs[i] + (size_t)j * es, es);
                    x->known[f] = 1;
                } else if (x->known[f]) {
                    CHECK(memcmp(x->data + f * es, (char *)ptrs[i] + (size_t)j * es, es) == 0);
                }
            }
        }
        if (put) {
            char nm[NC_MAX_NAME + 1];
            long nr;
            CHECK(ncdiminq(ncid, M.unlimid, nm, &nr) == M.unlimid && nr > recnum);
            M.numrecs = nr;
        }
    }
    for (int i = 0; i < nrv; i++)
        free(ptrs[i]);
}

/* ---- the rest --------------------------------------------------------------------- */

static void
op_att(Rd *r)
{
    char name[NC_MAX_NAME + 1], name2[NC_MAX_NAME + 1];
    unsigned char val[320], back[320 + 8];
    unsigned sel = u8(r) % 7, b = u8(r);
    int varid = (b & 0x80) || M.nvars == 0 ? NC_GLOBAL : (int)(b % (unsigned)M.nvars);
    nc_type t = (nc_type)(u8(r) % 12);
    int len = (int)(u8(r) % 40) - 2;
    pick_name(r, name);
    switch (sel) {
    case 0: case 1: {
        size_t es = tsize(t);
        rng = (uint64_t)b * 31 + 7;
        if (es && len > 0)
            gen_values(t, val, (size_t)len);
        if (ncattput(ncid, varid, name, t, len, val) == 0) {
            nc_type t2;
            int len2;
            CHECK(es != 0 && len >= 0);
            CHECK(ncattinq(ncid, varid, name, &t2, &len2) == 1);
            CHECK(t2 == t && len2 == len);
            memset(back, 0xA5, sizeof back);
            CHECK(ncattget(ncid, varid, name, back) == 1);
            CHECK(memcmp(back, val, (size_t)len * es) == 0);
            CHECK(back[(size_t)len * es] == 0xA5);
        } else {
            v2_failed();
        }
        break;
    }
    case 2: {
        nc_type t2;
        int len2;
        int k = ncattname(ncid, varid, len, name2);
        if (k >= 0 && ncattinq(ncid, varid, name2, &t2, &len2) == 1 && len2 >= 0
            && (size_t)len2 * tsize(t2) <= 256) {
            memset(back, 0xA5, sizeof back);
            CHECK(ncattget(ncid, varid, name2, back) == 1);
            CHECK(back[(size_t)len2 * tsize(t2)] == 0xA5);
        }
        break;
    }
    case 3:
        pick_name(r, name2);
        if (ncattrename(ncid, varid, name, name2) < 0)
            v2_failed();
        break;
    case 4:
        if (ncattdel(ncid, varid, name) < 0)
            v2_failed();
        break;
    default: {
        int vout = M.nvars ? (int)(u8(r) % (unsigned)M.nvars) : NC_GLOBAL;
        if (ncattcopy(ncid, varid, name, ncid, vout) < 0)
            v2_failed();
        break;
    }
    }
}

static void
do_close(int abort_it)
{
    int rc = abort_it ? ncabort(ncid) : ncclose(ncid);
    if (rc < 0)
        uncertain = 1;
    ncid = -1;
    indef = 0;
    if (abort_it || uncertain)
        rebuild();
    else
        have_file = 1;
    uncertain = 0;
}

static void
run(Rd *r)
{
    for (int ops = 0; ops < MAXOPS && r->i < r->n; ops++) {
        unsigned op = u8(r) % 24;
        if (trace)
            fprintf(stderr, "op %u ncid=%d indef=%d nvars=%d numrecs=%ld unc=%d ncerr=%d\n", op,
                    ncid, indef, M.nvars, M.numrecs, uncertain, ncerr);
        if (ncid < 0) {
            unsigned b = u8(r);
            if (op % 3 == 0 || !have_file) {
                static const int fmts[] = {0, NC_64BIT_OFFSET, NC_64BIT_DATA};
                model_clear(&M);
                unlink(path);
                have_file = 0;
                ncid = nccreate(path, fmts[b % 3] | (b & 4 ? NC_SHARE : 0) | NC_CLOBBER);
                if (ncid >= 0) {
                    indef = 1;
                    writable = 1;
                    exact = 1;
                }
            } else {
                writable = b & 1;
                ncid = ncopen(path, (writable ? NC_WRITE : NC_NOWRITE) | (b & 2 ? NC_SHARE : 0));
                if (ncid < 0) {
                    CHECK(!exact);
                    continue;
                }
                indef = 0;
                if (exact) {
                    compare();
                    verify_all();
                } else if (load(&M) == 0) {
                    exact = 1;
                } else {
                    uncertain = 1;
                }
            }
            continue;
        }
        switch (op) {
        case 0: {
            char name[NC_MAX_NAME + 1];
            unsigned b = u8(r);
            long len = b < 200 ? (long)(b % (MAXLEN + 1)) : b < 230 ? -(long)(b & 7) - 1
                       : (long)0x7FFFFFFF + (long)(b & 7);
            pick_name(r, name);
            if (M.ndims >= MAXD)
                break;
            int id = ncdimdef(ncid, name, len);
            if (id < 0) {
                v2_failed();
                break;
            }
            CHECK(id == M.ndims && len >= 0);
            Dim *d = &M.d[M.ndims++];
            CHECK(ncdiminq(ncid, id, d->name, NULL) == id);
            d->len = len;
            if (len == 0) {
                CHECK(M.unlimid < 0);
                M.unlimid = id;
                M.numrecs = 0;
            }
            break;
        }
        case 1: case 2: {
            char name[NC_MAX_NAME + 1];
            nc_type t = (nc_type)(u8(r) % 13);
            int nd = (int)(u8(r) % (MAXR + 1)), dimids[MAXR], ok = 1;
            for (int i = 0; i < nd; i++) {
                unsigned c = u8(r);
                dimids[i] = c == 0xFF ? -1 : M.ndims ? (int)(c % (unsigned)M.ndims) : 0;
                if (dimids[i] >= 0 && dimids[i] < M.ndims && dimids[i] != M.unlimid
                    && M.d[dimids[i]].len > MAXLEN)
                    ok = 0;
            }
            pick_name(r, name);
            if (M.nvars >= MAXV || !ok)
                break;
            int id = ncvardef(ncid, name, t, nd, dimids);
            if (id < 0) {
                v2_failed();
                break;
            }
            CHECK(id == M.nvars && tsize(t) != 0);
            Var *x = &M.v[M.nvars++];
            memset(x, 0, sizeof *x);
            CHECK(ncvarinq(ncid, id, x->name, NULL, NULL, NULL, NULL) == id);
            x->type = t;
            x->ndims = nd;
            memcpy(x->dimids, dimids, sizeof(int) * (size_t)nd);
            break;
        }
        case 3: case 4: op_att(r); break;
        case 5: {
            char name[NC_MAX_NAME + 1];
            unsigned b = u8(r);
            pick_name(r, name);
            if (b & 1) {
                int id = M.ndims ? (int)(b / 2 % (unsigned)M.ndims) : 0;
                if (ncdimrename(ncid, id, name) == id)
                    CHECK(ncdiminq(ncid, id, M.d[id].name, NULL) == id);
                else
                    v2_failed();
            } else {
                int id = M.nvars ? (int)(b / 2 % (unsigned)M.nvars) : 0;
                if (ncvarrename(ncid, id, name) == id)
                    CHECK(ncvarinq(ncid, id, M.v[id].name, NULL, NULL, NULL, NULL) == id);
                else
                    v2_failed();
            }
            break;
        }
        case 6: if (ncsetfill(ncid, (int)(u8(r) % 3) * 0x100) < 0) v2_failed(); break;
        case 7: if (ncredef(ncid) == 0) indef = 1; else v2_failed(); break;
        case 8:
            if (ncendef(ncid) == 0) {
                indef = 0;
                verify_all();
            } else {
                v2_failed();
                if (ncredef(ncid) == 0 || ncerr == NC_EINDEFINE)
                    indef = 1;
            }
            break;
        case 9: case 10: op_data(r, 1, u8(r) % 4); break;
        case 11: case 12: op_data(r, 0, u8(r) % 4); break;
        case 13: op_rec(r, 1); break;
        case 14: op_rec(r, 0); break;
        case 15: if (ncsync(ncid) < 0) v2_failed(); break;
        case 16: do_close(0); break;
        case 17: if (u8(r) % 4 == 0) do_close(1); else if (!indef && !uncertain) compare(); break;
        case 18: {
            char name[NC_MAX_NAME + 1];
            pick_name(r, name);
            (void)ncdimid(ncid, name);
            (void)ncvarid(ncid, name);
            break;
        }
        default: verify_all(); break;
        }
    }
    if (ncid >= 0)
        do_close(0);
    if (have_file && exact) {
        ncid = ncopen(path, NC_NOWRITE);
        CHECK(ncid >= 0);
        compare();
        verify_all();
        ncclose(ncid);
        ncid = -1;
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Rd r = {data, size, 0};
    if (path[0] == 0) {
        const char *dir = fuzz_scratch_dir();
        snprintf(path, sizeof path, "%s/fuzz_v2-%ld.nc", dir, (long)getpid());
    }
    ncopts = 0;
    trace = getenv("FUZZ_TRACE") != NULL;
    model_clear(&M);
    ncid = -1;
    indef = writable = uncertain = have_file = exact = 0;
    run(&r);
    if (ncid >= 0)
        ncabort(ncid);
    ncid = -1;
    unlink(path);
    return 0;
}
