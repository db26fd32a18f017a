/* fuzz_ops.c: libFuzzer target for the write paths of the classic formats.
 *
 * The input is a small program: each operation is one opcode byte followed
 * by the argument bytes it consumes (missing bytes read as 0).  Operations
 * create a dataset (CDF-1/2/5; a POSIX file with or without NC_SHARE,
 * NC_DISKLESS with or without NC_PERSIST, or nc_create_mem), define dims,
 * variables and attributes, rename and delete, set fill, redef/enddef and
 * __enddef with odd sizes, put and get through vara/vars/varm/var1/var with
 * odd start/count/stride/imap, sync, close and reopen in another mode
 * (POSIX, nc__open, NC_DISKLESS, nc_open_mem, nc_open_memio locked or not),
 * and abort.
 *
 * A shadow model holds the structure (dims, vars, attributes) and, per
 * variable, the values written and which elements are known.  The model
 * changes only when a call succeeds.  Checked, with __builtin_trap():
 *  - every value read back equals the value last written, in the same
 *    session, after redef/enddef moved the data, and after close/reopen;
 *  - a get writes only the buffer elements its map addresses;
 *  - an accepted request lies inside the variable;
 *  - a request inside the variable in data mode succeeds;
 *  - after a clean close the reopened header equals the model (names,
 *    types, shapes, attributes and their values, number of records).
 * Sizes are bounded (dims <= 5, <= 10 records, small attributes) so the
 * files stay tiny.  Files live under $TMPDIR (default /dev/shm) and are
 * removed after each input.
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
#include "netcdf_mem.h"
#include "fuzz_lib_common.h"

#define MAXD 6      /* dims in the model */
#define MAXV 6      /* vars */
#define MAXA 5      /* attributes per variable (and global) */
#define MAXR 4      /* rank */
#define MAXLEN 5    /* length of a usable fixed dim */
#define MAXREC 10   /* records ever written */
#define MAXEL (MAXREC * MAXLEN * MAXLEN * MAXLEN)
#define ATTB 64     /* bytes of one attribute value */
#define MAXOPS 80
#define BIGBUF (1 << 16) /* elements of a request buffer */


/* ---- input reader ---------------------------------------------------------- */


/* ---- model ------------------------------------------------------------------- */

typedef struct {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    size_t len;                 /* elements */
    unsigned char val[ATTB];    /* native values */
} Att;

typedef struct {
    int n;
    Att a[MAXA];
} AttList;

typedef struct {
    char name[NC_MAX_NAME + 1];
    size_t len;                 /* NC_UNLIMITED (0) for the record dim */
} Dim;

typedef struct {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int ndims;
    int dimids[MAXR];
    AttList atts;
    unsigned char data[MAXEL * 8];  /* native values, record dim sized MAXREC */
    unsigned char known[MAXEL];     /* 1: data holds what the file holds */
} Var;

typedef struct {
    int ndims, nvars;
    int unlimid;                /* -1: none */
    size_t numrecs;
    Dim d[MAXD];
    Var v[MAXV];
    AttList gatts;
} Model;

typedef struct {
    int open;           /* ncid is valid */
    int ncid;
    int indef;          /* in define mode */
    int writable;
    int persist;        /* in-session changes reach the image at close */
    int gone;           /* nothing remains at close (NC_DISKLESS create) */
    int memkind;        /* 0 path, 1 create_mem, 2 memio locked, 3 memio, 4 open_mem */
    int locked;         /* growing the memory must fail */
    int created;        /* session began with a create */
    void *membuf;       /* our buffer for memkind 2 and 4 */
    int uncertain;      /* an error of unknown effect happened */
    int have_image;     /* the file at path holds a dataset (when closed) */
    int exact;          /* the model describes the image exactly */
    int snap_exact;
    char path[256];
} Sess;

static Model M, Snap, Tmp;
static int trace;   /* FUZZ_TRACE=1: print each operation and status */
static Sess S;

static size_t
tsize(nc_type t)
{
    switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_DOUBLE: case NC_INT64: case NC_UINT64: return 8;
    default: return 0;
    }
}

/* Values that survive any representation: floats are small integers. */
static void
gen_values(nc_type t, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        switch (t) {
        case NC_FLOAT: ((float *)buf)[i] = (float)(int16_t)r; break;
        case NC_DOUBLE: ((double *)buf)[i] = (double)(int32_t)r / 4.0; break;
        default: memcpy((char *)buf + i * tsize(t), &r, tsize(t)); break;
        }
    }
}

/* Errors that a call returns before it changes anything. */
static int
clean_error(int e)
{
    switch (e) {
    case NC_NOERR: case NC_EBADID: case NC_EEXIST: case NC_EINVAL: case NC_EPERM:
    case NC_ENOTINDEFINE: case NC_EINDEFINE: case NC_EINVALCOORDS: case NC_EMAXDIMS:
    case NC_ENAMEINUSE: case NC_ENOTATT: case NC_EMAXATTS: case NC_EBADTYPE:
    case NC_EBADDIM: case NC_EUNLIMPOS: case NC_EMAXVARS: case NC_ENOTVAR:
    case NC_EGLOBAL: case NC_ENOTNC: case NC_ESTS: case NC_EMAXNAME: case NC_EUNLIMIT:
    case NC_ENORECVARS: case NC_ECHAR: case NC_EEDGE: case NC_ESTRIDE: case NC_EBADNAME:
    case NC_EDIMSIZE: case NC_ENOTNC4: case NC_ESTRICTNC3: case NC_EBADCHUNK:
    case NC_ENOTBUILT: case NC_EINMEMORY: case NC_EBADGRPID:
        return 1;
    default:
        return 0;
    }
}

static void
note(int e)
{
    if (trace)
        fprintf(stderr, "  -> %d %s\n", e, nc_strerror(e));
    if (!clean_error(e))
        S.uncertain = 1;
}

static int
var_shape(const Model *m, const Var *v, size_t *shp)
{
    for (int i = 0; i < v->ndims; i++)
        shp[i] = v->dimids[i] == m->unlimid ? MAXREC : m->d[v->dimids[i]].len;
    return v->ndims;
}

static int
is_recvar(const Model *m, const Var *v)
{
    return v->ndims > 0 && v->dimids[0] == m->unlimid;
}

/* ---- loading and comparing the structure -------------------------------------- */

static int
load_atts(int ncid, int varid, int natts, AttList *al)
{
    if (natts > MAXA)
        return -1;
    al->n = natts;
    for (int a = 0; a < natts; a++) {
        Att *at = &al->a[a];
        memset(at, 0, sizeof *at);
        if (nc_inq_attname(ncid, varid, a, at->name))
            return -1;
        if (nc_inq_att(ncid, varid, at->name, &at->type, &at->len))
            return -1;
        if (tsize(at->type) == 0 || at->len * tsize(at->type) > ATTB)
            return -1;
        if (at->len && nc_get_att(ncid, varid, at->name, at->val))
            return -1;
    }
    return 0;
}

/* Read the structure of an open dataset into m; data unknown. */
static int
load_model(int ncid, Model *m)
{
    int ngatts;
    memset(m, 0, sizeof *m);
    if (nc_inq(ncid, &m->ndims, &m->nvars, &ngatts, &m->unlimid))
        return -1;
    if (m->ndims > MAXD || m->nvars > MAXV || m->ndims < 0 || m->nvars < 0)
        return -1;
    for (int d = 0; d < m->ndims; d++) {
        size_t len;
        if (nc_inq_dim(ncid, d, m->d[d].name, &len))
            return -1;
        m->d[d].len = d == m->unlimid ? NC_UNLIMITED : len;
        if (d == m->unlimid)
            m->numrecs = len;
    }
    if (m->numrecs > MAXREC)
        return -1;
    if (load_atts(ncid, NC_GLOBAL, ngatts, &m->gatts))
        return -1;
    for (int i = 0; i < m->nvars; i++) {
        Var *v = &m->v[i];
        int natts, dimids[NC_MAX_VAR_DIMS];
        if (nc_inq_var(ncid, i, v->name, &v->type, &v->ndims, dimids, &natts))
            return -1;
        if (v->ndims > MAXR)
            return -1;
        memcpy(v->dimids, dimids, sizeof(int) * (size_t)v->ndims);
        for (int k = 0; k < v->ndims; k++)
            if (v->dimids[k] != m->unlimid && m->d[v->dimids[k]].len > MAXLEN)
                return -1;
        if (load_atts(ncid, i, natts, &v->atts))
            return -1;
    }
    return 0;
}

static void
same_atts(const AttList *a, const AttList *b)
{
    CHECK(a->n == b->n);
    for (int i = 0; i < a->n; i++) {
        CHECK(strcmp(a->a[i].name, b->a[i].name) == 0);
        CHECK(a->a[i].type == b->a[i].type);
        CHECK(a->a[i].len == b->a[i].len);
        CHECK(memcmp(a->a[i].val, b->a[i].val, a->a[i].len * tsize(a->a[i].type)) == 0);
    }
}

/* The dataset must hold exactly the model's structure. */
static void
compare_model(int ncid)
{
    CHECK(load_model(ncid, &Tmp) == 0);
    CHECK(Tmp.ndims == M.ndims && Tmp.nvars == M.nvars && Tmp.unlimid == M.unlimid);
    CHECK(Tmp.numrecs == M.numrecs);
    for (int d = 0; d < M.ndims; d++) {
        CHECK(strcmp(Tmp.d[d].name, M.d[d].name) == 0);
        CHECK(Tmp.d[d].len == M.d[d].len);
    }
    same_atts(&Tmp.gatts, &M.gatts);
    for (int i = 0; i < M.nvars; i++) {
        if (trace)
            fprintf(stderr, "var %d: file \"%s\" model \"%s\"\n", i, Tmp.v[i].name, M.v[i].name);
        CHECK(strcmp(Tmp.v[i].name, M.v[i].name) == 0);
        CHECK(Tmp.v[i].type == M.v[i].type && Tmp.v[i].ndims == M.v[i].ndims);
        CHECK(memcmp(Tmp.v[i].dimids, M.v[i].dimids, sizeof(int) * (size_t)M.v[i].ndims) == 0);
        same_atts(&Tmp.v[i].atts, &M.v[i].atts);
    }
}

/* Read every variable whole; known elements must match. */
static void
verify_all(void)
{
    static unsigned char buf[MAXEL * 8];
    if (!S.open || S.indef || S.uncertain)
        return;
    for (int i = 0; i < M.nvars; i++) {
        Var *v = &M.v[i];
        size_t shp[MAXR], n = 1, es = tsize(v->type);
        var_shape(&M, v, shp);
        for (int k = 0; k < v->ndims; k++)
            n *= k == 0 && is_recvar(&M, v) ? M.numrecs : shp[k];
        memset(buf, 0xA5, sizeof buf);
        int e = nc_get_var(S.ncid, i, buf);
        if (trace && e)
            fprintf(stderr, "verify var %d: %d %s\n", i, e, nc_strerror(e));
        /* A locked NC_memio cannot grow: nc_enddef refuses a layout that
         * does not fit (tst_memio_locked), but records written past the
         * buffer's end fail, and a deferred fill with them. */
        if (e == NC_EINMEMORY && S.locked) {
            S.uncertain = 1;
            return;
        }
        CHECK(e == NC_NOERR);
        /* The rows of a record variable are contiguous in both. */
        for (size_t j = 0; j < n; j++)
            if (v->known[j])
                CHECK(memcmp(buf + j * es, v->data + j * es, es) == 0);
        for (size_t j = n * es; j < n * es + 8 && j < sizeof buf; j++)
            CHECK(buf[j] == 0xA5);
    }
}

/* ---- sessions ------------------------------------------------------------------ */

static void
session_reset(void)
{
    S.open = 0;
    S.indef = 0;
    S.uncertain = 0;
    free(S.membuf);
    S.membuf = NULL;
}

/* After an event of unknown effect: take the structure from the image. */
static void
rebuild(void)
{
    int ncid;
    memset(&M, 0, sizeof M);
    M.unlimid = -1;
    S.exact = 0;
    S.have_image = 0;
    if (nc_open(S.path, NC_NOWRITE, &ncid) != NC_NOERR) {
        unlink(S.path);
        return;
    }
    if (load_model(ncid, &M) == 0) {
        S.have_image = 1;
        S.exact = 1;    /* structure exact from now on, data unknown */
    } else {
        memset(&M, 0, sizeof M);
        M.unlimid = -1;
    }
    nc_close(ncid);
    if (!S.have_image)
        unlink(S.path);
}


static void
do_create(Rd *r)
{
    static const int fmts[] = {0, NC_64BIT_OFFSET, NC_64BIT_DATA};
    static const size_t hints[] = {0, 1, 3, 512, 4097, 65536};
    unsigned b = u8(r), st = (b >> 2) % 6;
    int mode = fmts[b % 3] | ((b & 0x80) ? NC_SHARE : 0), e;
    size_t hint = hints[u8(r) % 6];
    session_reset();
    unlink(S.path);
    memset(&M, 0, sizeof M);
    M.unlimid = -1;
    S.have_image = 0;
    S.persist = 1;
    S.gone = 0;
    S.memkind = 0;
    S.locked = 0;
    switch (st) {
    case 0: e = nc_create(S.path, mode | NC_CLOBBER, &S.ncid); break;
    case 1: e = nc__create(S.path, mode, hint, &hint, &S.ncid); break;
    case 2: e = nc_create(S.path, mode | NC_DISKLESS, &S.ncid); S.gone = 1; break;
    case 3: e = nc_create(S.path, mode | NC_DISKLESS | NC_PERSIST, &S.ncid); break;
    case 4: e = nc_create_mem(S.path, mode, hint, &S.ncid); S.memkind = 1; break;
    default: e = nc_create(S.path, mode | NC_NOCLOBBER, &S.ncid); break;
    }
    if (trace)
        fprintf(stderr, "create storage %u mode %x -> %d\n", st, (unsigned)mode, e);
    if (e != NC_NOERR)
        return;
    S.open = 1;
    S.indef = 1;
    S.writable = 1;
    S.created = 1;
    S.exact = 1;
    Snap = M;
    S.snap_exact = 1;
}

static void
after_open(void)
{
    if (S.exact) {
        compare_model(S.ncid);
        verify_all();
    } else if (load_model(S.ncid, &M) == 0) {
        S.exact = 1;
    } else {
        S.uncertain = 1;
    }
    Snap = M;
    S.snap_exact = 1;
}

static void
do_open(Rd *r)
{
    unsigned b = u8(r), kind = b % 12;
    int e;
    size_t hint = (size_t)u8(r) * 97;
    NC_memio mio;
    if (S.open || !S.have_image)
        return;
    session_reset();
    S.persist = 1;
    S.gone = 0;
    S.memkind = 0;
    S.locked = 0;
    S.created = 0;
    S.writable = 0;
    switch (kind) {
    case 0: e = nc_open(S.path, NC_NOWRITE, &S.ncid); S.persist = 0; break;
    case 1: e = nc_open(S.path, NC_WRITE, &S.ncid); S.writable = 1; break;
    case 2: e = nc_open(S.path, NC_WRITE | NC_SHARE, &S.ncid); S.writable = 1; break;
    case 3: e = nc__open(S.path, NC_WRITE | ((b & 0x80) ? NC_SHARE : 0), &hint, &S.ncid); S.writable = 1; break;
    case 4: e = nc_open(S.path, NC_DISKLESS, &S.ncid); S.persist = 0; break;
    case 5: e = nc_open(S.path, NC_DISKLESS | NC_WRITE, &S.ncid); S.persist = 0; S.writable = 1; break;
    case 6: e = nc_open(S.path, NC_DISKLESS | NC_WRITE | NC_PERSIST, &S.ncid); S.writable = 1; break;
    case 7: case 8: case 9: case 10: {
        size_t n = 0;
        void *p = read_file(S.path, &n, 8L << 20);
        if (p == NULL)
            return;
        if (kind == 7) {
            S.memkind = 4;
            S.membuf = p;
            S.persist = 0;
            e = nc_open_mem(S.path, NC_NOWRITE, n, p, &S.ncid);
        } else {
            /* Room to grow in a locked buffer half of the time. */
            size_t cap = kind == 8 && (b & 0x80) ? n + 4096 : n;
            if (cap != n) {
                void *q = realloc(p, cap);
                if (q == NULL) {
                    free(p);
                    return;
                }
                p = q;
                memset((char *)p + n, 0, cap - n);
            }
            mio.memory = p;
            mio.size = cap;
            mio.flags = kind == 8 ? NC_MEMIO_LOCKED : 0;
            S.memkind = kind == 8 ? 2 : 3;
            S.locked = kind == 8;
            if (kind == 8)
                S.membuf = p;
            S.writable = kind != 10;
            e = nc_open_memio(S.path, kind == 10 ? NC_NOWRITE : NC_WRITE, &mio, &S.ncid);
            if (e != NC_NOERR && kind != 8)
                free(p);    /* not taken over on failure */
        }
        break;
    }
    default: e = nc_open(S.path, NC_NOWRITE | NC_SHARE, &S.ncid); S.persist = 0; break;
    }
    if (trace)
        fprintf(stderr, "open kind %u -> %d\n", kind, e);
    if (e != NC_NOERR) {
        free(S.membuf);
        S.membuf = NULL;
        /* An image we wrote must open. */
        CHECK(!S.exact || (kind >= 7 && kind <= 10 && e == NC_ENOMEM));
        return;
    }
    S.open = 1;
    after_open();
}

static void
do_close(void)
{
    int e;
    if (!S.open)
        return;
    if (S.memkind != 0) {
        NC_memio mio = {0, NULL, 0};
        if (S.memkind == 4) {
            e = nc_close(S.ncid);
        } else {
            e = nc_close_memio(S.ncid, &mio);
            if (e == NC_NOERR && mio.memory && S.persist && S.writable)
                CHECK(write_file(S.path, mio.memory, mio.size) == 0);
            if (mio.memory != S.membuf)
                free(mio.memory);
        }
    } else {
        e = nc_close(S.ncid);
    }
    note(e);
    if (e != NC_NOERR)
        S.uncertain = 1;    /* e.g. the implicit enddef refused a _FillValue */
    S.open = 0;
    if (S.gone) {
        memset(&M, 0, sizeof M);
        M.unlimid = -1;
        S.have_image = 0;
        S.exact = 0;
    } else if (!S.persist || !S.writable) {
        M = Snap;
        S.exact = S.snap_exact;
        S.have_image = !S.created || S.memkind == 0;
        if (S.created)
            rebuild();
    } else if (S.uncertain || (S.memkind != 0 && e != NC_NOERR)) {
        rebuild();
    } else {
        S.have_image = 1;
    }
    session_reset();
}

static void
do_abort(void)
{
    int e;
    if (!S.open)
        return;
    e = nc_abort(S.ncid);
    (void)e;
    S.open = 0;
    if (S.gone || S.memkind == 1) {
        memset(&M, 0, sizeof M);
        M.unlimid = -1;
        S.have_image = 0;
        S.exact = 0;
    } else if (!S.created && (!S.persist || !S.writable || S.memkind != 0)) {
        /* The image on disk was never touched. */
        M = Snap;
        S.exact = S.snap_exact;
        S.have_image = 1;
    } else {
        rebuild();
    }
    session_reset();
}

/* After a failed enddef: are we still in define mode?  nc_redef tells. */
static void
probe_define_mode(void)
{
    int e = nc_redef(S.ncid);
    if (e == NC_NOERR || e == NC_EINDEFINE)
        S.indef = 1;
    else
        S.uncertain = 1;
}

/* ---- names and the model's bookkeeping ---------------------------------------- */

static const char *const names[] = {
    "a", "b", "c", "time", "lat", "x_y", "_FillValue", "valid_range", "long_name",
    "\xc3\xa9t\xc3\xa9", "e\xcc\x81t", "a b", "0bad", "/x", "", "units",
    "a_rather_long_name_that_makes_the_header_grow_by_many_bytes_0123456789",
    "scale_factor",
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

static AttList *
att_list(int varid)
{
    return varid == NC_GLOBAL ? &M.gatts : &M.v[varid].atts;
}

static int
find_att(const AttList *al, const char *name)
{
    for (int i = 0; i < al->n; i++)
        if (strcmp(al->a[i].name, name) == 0)
            return i;
    return -1;
}

/* Reload a variable's attributes from the library (after calls whose
 * effect on them is the library's choice, e.g. nc_def_var_fill). */
static void
reload_atts(int varid)
{
    int natts;
    AttList al;
    if (nc_inq_varnatts(S.ncid, varid, &natts) || load_atts(S.ncid, varid, natts, &al))
        S.uncertain = 1;
    else
        *att_list(varid) = al;
}

static int
pick_varid(Rd *r, int allow_global)
{
    unsigned b = u8(r);
    if (b == 0xFF)
        return 99;              /* not a variable */
    if (allow_global && (b & 0x80))
        return NC_GLOBAL;
    return M.nvars ? (int)(b % (unsigned)M.nvars) : (allow_global ? NC_GLOBAL : 0);
}

static nc_type
pick_type(Rd *r)
{
    unsigned b = u8(r);
    if (b >= 250)
        return (nc_type)(b == 250 ? 0 : b == 251 ? NC_STRING : b == 252 ? 13 : -1);
    return (nc_type)(1 + b % 11);
}

/* ---- define-mode operations ---------------------------------------------------- */

static void
op_def_dim(Rd *r)
{
    static const size_t odd[] = {(size_t)1 << 31, 0x7FFFFFFFu, 0xFFFFFFFCu, 0xFFFFFFFFu,
                                 (size_t)1 << 32, (size_t)-1};
    char name[NC_MAX_NAME + 1];
    unsigned b = u8(r);
    size_t len = b < 240 ? b % (MAXLEN + 1) : odd[b % 6];
    int dimid, e;
    pick_name(r, name);
    if (M.ndims >= MAXD)
        return;
    e = nc_def_dim(S.ncid, name, len, &dimid);
    note(e);
    if (e)
        return;
    CHECK(dimid == M.ndims);
    Dim *d = &M.d[M.ndims++];
    CHECK(nc_inq_dimname(S.ncid, dimid, d->name) == 0);
    d->len = len;
    if (len == NC_UNLIMITED) {
        CHECK(M.unlimid == -1);
        M.unlimid = dimid;
        M.numrecs = 0;
    }
}

static void
op_def_var(Rd *r)
{
    char name[NC_MAX_NAME + 1];
    nc_type t = pick_type(r);
    unsigned b = u8(r);
    int ndims = (int)(b % (MAXR + 1)), dimids[MAXR], varid, e;
    for (int i = 0; i < ndims; i++) {
        unsigned c = u8(r);
        dimids[i] = c == 0xFF ? -1 : c == 0xFE ? 77 : M.ndims ? (int)(c % (unsigned)M.ndims) : 0;
    }
    pick_name(r, name);
    if (M.nvars >= MAXV)
        return;
    for (int i = 0; i < ndims; i++)
        if (dimids[i] >= 0 && dimids[i] < M.ndims && dimids[i] != M.unlimid
            && M.d[dimids[i]].len > MAXLEN)
            return;             /* too big for the model */
    if (trace)
        fprintf(stderr, "def_var \"%s\" type %d ndims %d\n", name, (int)t, ndims);
    e = nc_def_var(S.ncid, name, t, (b & 0x80) ? -1 : ndims, dimids, &varid);
    note(e);
    if (e)
        return;
    CHECK(varid == M.nvars && !(b & 0x80));
    CHECK(tsize(t) != 0);
    for (int i = 0; i < ndims; i++) {
        CHECK(dimids[i] >= 0 && dimids[i] < M.ndims);
        CHECK(i == 0 || dimids[i] != M.unlimid);
    }
    Var *v = &M.v[M.nvars++];
    memset(v, 0, sizeof *v);
    CHECK(nc_inq_varname(S.ncid, varid, v->name) == 0);
    v->type = t;
    v->ndims = ndims;
    memcpy(v->dimids, dimids, sizeof(int) * (size_t)ndims);
}

static void
op_put_att(Rd *r)
{
    char name[NC_MAX_NAME + 1];
    unsigned char val[ATTB + 8];
    int varid = pick_varid(r, 1), e;
    nc_type t = pick_type(r);
    unsigned b = u8(r);
    size_t es = tsize(t), len = es ? b % (ATTB / es + 1) : b % 4;
    pick_name(r, name);
    gen_values(es ? t : NC_BYTE, val, es ? len : 0);
    if (varid != NC_GLOBAL && varid >= M.nvars)
        varid = varid == 99 ? 99 : NC_GLOBAL;
    if (varid != 99 && find_att(att_list(varid), name) < 0 && att_list(varid)->n >= MAXA)
        return;
    if (trace)
        fprintf(stderr, "put_att var %d \"%s\" type %d len %zu\n", varid, name, (int)t, len);
    if (t == NC_CHAR && (b & 1))
        e = nc_put_att_text(S.ncid, varid, name, len, (const char *)val);
    else
        e = nc_put_att(S.ncid, varid, name, t, len, val);
    note(e);
    if (e)
        return;
    CHECK(varid != 99 && es != 0);
    AttList *al = att_list(varid);
    int attid;
    CHECK(nc_inq_attid(S.ncid, varid, name, &attid) == 0);
    CHECK(attid >= 0 && attid <= al->n && attid < MAXA);
    Att *at = &al->a[attid];
    if (attid == al->n)
        al->n++;
    memset(at, 0, sizeof *at);
    CHECK(nc_inq_attname(S.ncid, varid, attid, at->name) == 0);
    at->type = t;
    at->len = len;
    memcpy(at->val, val, len * es);
}

static void
op_del_att(Rd *r)
{
    char name[NC_MAX_NAME + 1];
    int varid = pick_varid(r, 1), e, i;
    AttList *al;
    if (varid == 99 || (varid != NC_GLOBAL && varid >= M.nvars))
        return;
    al = att_list(varid);
    if (al->n && (u8(r) & 1))
        strcpy(name, al->a[u8(r) % (unsigned)al->n].name);
    else
        pick_name(r, name);
    e = nc_del_att(S.ncid, varid, name);
    note(e);
    if (e)
        return;
    i = find_att(al, name);
    if (i < 0) {
        reload_atts(varid);     /* the name normalized to one we hold */
        return;
    }
    memmove(&al->a[i], &al->a[i + 1], sizeof(Att) * (size_t)(al->n - i - 1));
    al->n--;
}

static void
op_rename_att(Rd *r)
{
    char name[NC_MAX_NAME + 1], newname[NC_MAX_NAME + 1];
    int varid = pick_varid(r, 1), e;
    AttList *al;
    if (varid == 99 || (varid != NC_GLOBAL && varid >= M.nvars))
        return;
    al = att_list(varid);
    if (al->n && (u8(r) & 1))
        strcpy(name, al->a[u8(r) % (unsigned)al->n].name);
    else
        pick_name(r, name);
    pick_name(r, newname);
    e = nc_rename_att(S.ncid, varid, name, newname);
    note(e);
    if (e == NC_NOERR)
        reload_atts(varid);
}

static void
op_copy_att(Rd *r)
{
    char name[NC_MAX_NAME + 1];
    int vin = pick_varid(r, 1), vout = pick_varid(r, 1), e;
    AttList *al;
    if (vin == 99 || (vin != NC_GLOBAL && vin >= M.nvars) || vout == 99
        || (vout != NC_GLOBAL && vout >= M.nvars))
        return;
    al = att_list(vin);
    if (al->n == 0)
        return;
    strcpy(name, al->a[u8(r) % (unsigned)al->n].name);
    if (find_att(att_list(vout), name) < 0 && att_list(vout)->n >= MAXA)
        return;
    e = nc_copy_att(S.ncid, vin, name, S.ncid, vout);
    note(e);
    if (e == NC_NOERR)
        reload_atts(vout);
}

static void
op_rename(Rd *r, int what)
{
    char name[NC_MAX_NAME + 1];
    unsigned b = u8(r);
    int id, e;
    pick_name(r, name);
    if (what == 0) {
        id = M.nvars ? (int)(b % (unsigned)M.nvars) : 0;
        e = nc_rename_var(S.ncid, id, name);
        note(e);
        if (e == NC_NOERR)
            CHECK(nc_inq_varname(S.ncid, id, M.v[id].name) == 0);
    } else {
        id = M.ndims ? (int)(b % (unsigned)M.ndims) : 0;
        e = nc_rename_dim(S.ncid, id, name);
        note(e);
        if (e == NC_NOERR)
            CHECK(nc_inq_dimname(S.ncid, id, M.d[id].name) == 0);
    }
}

static void
op_var_fill(Rd *r)
{
    unsigned char fill[16];
    int varid = pick_varid(r, 0), nofill = u8(r) % 3, e;
    if (varid >= M.nvars)
        return;
    gen_values(M.v[varid].type, fill, 1);
    e = nc_def_var_fill(S.ncid, varid, nofill == 2 ? 7 : nofill, (u8(r) & 1) ? fill : NULL);
    note(e);
    if (e == NC_NOERR)
        reload_atts(varid);
    (void)nc_inq_var_fill(S.ncid, varid, &nofill, fill);
}

static void
op_enddef(Rd *r, int odd)
{
    static const size_t vals[] = {0, 1, 2, 3, 4, 5, 7, 8, 100, 511, 512, 4095, 4096, 65536,
                                  (size_t)-1, 9999};
    int e;
    size_t a = vals[u8(r) % 16], b = vals[u8(r) % 16], c = vals[u8(r) % 16], d = vals[u8(r) % 16];
    if (a == (size_t)-1)
        a = 13;     /* h_minfree of SIZE_MAX is a user asking for the impossible */
    if (c == (size_t)-1)
        c = 17;
    e = odd ? nc__enddef(S.ncid, a, b, c, d) : nc_enddef(S.ncid);
    note(e);
    if (e == NC_NOERR) {
        S.indef = 0;
        S.created = 0;
        verify_all();
    } else {
        probe_define_mode();
    }
}

/* ---- data ----------------------------------------------------------------------- */

typedef struct {
    int ndims;
    size_t start[MAXR], count[MAXR];
    ptrdiff_t stride[MAXR], imap[MAXR];
} Req;

/* One dim of a request: mostly inside [0, L), sometimes odd. */
static void
gen_dim(Rd *r, Req *q, int i, size_t L, int strided, int put_rec)
{
    unsigned sel = u8(r) % 16;
    size_t start, count;
    ptrdiff_t stride = strided ? 1 + (ptrdiff_t)(u8(r) % 3) : 1;
    if (put_rec && (sel == 12 || sel == 13))
        sel = 0;
    if (sel <= 10) {
        start = u8(r) % (L + 1);
        count = start < L ? 1 + u8(r) % (L - start) : 0;
        if (count > 0 && start + (count - 1) * (size_t)stride >= L)
            count = (L - start - 1) / (size_t)stride + 1;
    } else if (sel == 11) {
        start = L;
        count = 0;
    } else if (sel == 12) {
        static const size_t big[] = {(size_t)1 << 40, (size_t)-1, 0x80000000u};
        start = 0;
        count = L + 1 + (u8(r) % 2 ? big[u8(r) % 3] - L - 1 : 0);
    } else if (sel == 13) {
        start = u8(r) % 2 ? L + 1 : (size_t)-1 / 2;
        count = 1;
    } else if (sel == 14) {
        static const ptrdiff_t bad[] = {0, -1, -2, PTRDIFF_MIN};
        start = 0;
        count = L ? 1 + u8(r) % L : 1;
        stride = bad[u8(r) % 4];
    } else {
        start = 0;
        count = L ? 1 : 0;
        stride = put_rec ? MAXREC : (ptrdiff_t)1 << 40;
    }
    q->start[i] = start;
    q->count[i] = count;
    q->stride[i] = stride;
}

/* Elements of a request, saturating at BIGBUF + 1. */
static size_t
req_nelems(const Req *q)
{
    size_t n = 1;
    for (int i = 0; i < q->ndims; i++) {
        if (q->count[i] == 0)
            return 0;
        if (q->count[i] > BIGBUF || n * q->count[i] > BIGBUF)
            n = BIGBUF + 1;
        else
            n *= q->count[i];
    }
    return n;
}

/* Map each element of the request to (file index in the model, memory
 * offset).  Returns the number of elements, -1 if one lies outside
 * [0, lim) in some dim, -2 if too many. */
static long
walk(const Req *q, const size_t *shp, const size_t *lim, long *fidx, ptrdiff_t *moff)
{
    size_t k[MAXR] = {0};
    size_t n = req_nelems(q);
    if (n > BIGBUF)
        return -2;
    for (size_t e = 0; e < n; e++) {
        long f = 0;
        ptrdiff_t m = 0;
        for (int i = 0; i < q->ndims; i++) {
            long long pos;
            if (__builtin_mul_overflow((long long)k[i], (long long)q->stride[i], &pos)
                || __builtin_add_overflow(pos, (long long)q->start[i], &pos)
                || q->start[i] > (size_t)1 << 62 || pos < 0 || (size_t)pos >= lim[i])
                return -1;
            f = f * (long)shp[i] + (long)pos;
            m += (ptrdiff_t)k[i] * q->imap[i];
        }
        fidx[e] = f;
        moff[e] = m;
        for (int i = q->ndims - 1; i >= 0; i--) {
            if (++k[i] < q->count[i])
                break;
            k[i] = 0;
        }
    }
    return (long)n;
}

static long Fidx[BIGBUF];
static ptrdiff_t Moff[BIGBUF];

/* form: 0 vara, 1 vars, 2 varm, 3 var1, 4 var (whole, put only via vara shape) */
static void
op_data(Rd *r, int put, int form)
{
    Req q;
    size_t shp[MAXR], lim[MAXR], es, nel;
    int varid = pick_varid(r, 0), e, rec;
    Var *v;
    unsigned seed = u16(r), mapsel = u8(r);
    if (varid >= M.nvars)
        return;
    v = &M.v[varid];
    es = tsize(v->type);
    q.ndims = var_shape(&M, v, shp);
    rec = is_recvar(&M, v);
    for (int i = 0; i < q.ndims; i++) {
        lim[i] = shp[i];
        if (i == 0 && rec && !put)
            lim[i] = M.numrecs;
        gen_dim(r, &q, i, lim[i], form == 1 || form == 2, put && i == 0 && rec);
        if (form == 3)
            q.count[i] = 1;
        if (form == 0 || form == 3)
            q.stride[i] = 1;
    }
    nel = req_nelems(&q);
    /* The memory map. */
    {
        ptrdiff_t acc = 1;
        for (int i = q.ndims - 1; i >= 0; i--) {
            q.imap[i] = acc;
            if (nel <= BIGBUF)
                acc *= (ptrdiff_t)(q.count[i] ? q.count[i] : 1);
        }
    }
    if (form == 2 && q.ndims > 0 && nel <= BIGBUF) {
        switch (mapsel % 6) {
        case 0: break;
        case 1: {   /* transposed */
            ptrdiff_t acc = 1;
            for (int i = 0; i < q.ndims; i++) {
                q.imap[i] = acc;
                acc *= (ptrdiff_t)(q.count[i] && q.count[i] <= BIGBUF ? q.count[i] : 1);
            }
            break;
        }
        case 2:     /* gaps */
            for (int i = 0; i < q.ndims; i++)
                q.imap[i] *= 2;
            break;
        case 3:     /* one dim reversed */
            q.imap[mapsel / 6 % (unsigned)q.ndims] *= -1;
            break;
        case 4:     /* aliasing */
            q.imap[mapsel / 6 % (unsigned)q.ndims] = 0;
            break;
        default:
            for (int i = 0; i < q.ndims; i++)
                q.imap[i] = (ptrdiff_t)(u8(r) % 9) - 4;
            break;
        }
    }
    /* Buffer: every offset the map can reach, base at the lowest. */
    ptrdiff_t lo = 0, hi = 0;
    if (nel > 0 && nel <= BIGBUF) {
        for (int i = 0; i < q.ndims; i++) {
            ptrdiff_t ext = (ptrdiff_t)(q.count[i] - 1) * q.imap[i];
            if (ext < 0)
                lo += ext;
            else
                hi += ext;
        }
    }
    size_t blen = (size_t)(hi - lo) + 1;
    if (blen > BIGBUF)
        return;
    if (nel > BIGBUF)
        blen = 64;      /* the call must fail */
    unsigned char *buf = malloc(blen * (es ? es : 1));
    unsigned char *touched = calloc(blen, 1);
    if (buf == NULL || touched == NULL) {
        free(buf);
        free(touched);
        return;
    }
    long n = walk(&q, shp, lim, Fidx, Moff);
    int inside = n >= 0 && nel <= BIGBUF;
    int aliased = 0;
    if (n > 0)
        for (long j = 0; j < n; j++) {
            size_t o = (size_t)(Moff[j] - lo);
            if (touched[o])
                aliased = 1;
            touched[o] = 1;
        }
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    if (put)
        gen_values(v->type, buf, blen);
    else
        memset(buf, 0xA5, blen * es);
    void *p = buf + (size_t)(-lo) * es;
    switch (form) {
    case 0: e = put ? nc_put_vara(S.ncid, varid, q.start, q.count, p)
                    : nc_get_vara(S.ncid, varid, q.start, q.count, p); break;
    case 1: e = put ? nc_put_vars(S.ncid, varid, q.start, q.count, q.stride, p)
                    : nc_get_vars(S.ncid, varid, q.start, q.count, q.stride, p); break;
    case 2: e = put ? nc_put_varm(S.ncid, varid, q.start, q.count, q.stride, q.imap, p)
                    : nc_get_varm(S.ncid, varid, q.start, q.count, q.stride, q.imap, p); break;
    default: e = put ? nc_put_var1(S.ncid, varid, q.start, p)
                     : nc_get_var1(S.ncid, varid, q.start, p); break;
    }
    note(e);
    if (!S.indef && !S.uncertain && inside && nel > 0 && (S.writable || !put)
        && !(put && S.locked)) {
        int stride_ok = 1;
        for (int i = 0; i < q.ndims; i++)
            if (form >= 1 && form <= 2 && (q.stride[i] <= 0 || q.stride[i] >= 0x7FFFFFFF))
                stride_ok = 0;
        /* Inside the variable: must work.  NC_EBADTYPE: a _FillValue
         * rewritten in data mode with another type makes every fill fail,
         * as upstream. */
        if (stride_ok)
            CHECK(e == NC_NOERR || (put && e == NC_EBADTYPE) || (S.locked && e == NC_EINMEMORY));
    }
    if (e == NC_NOERR && nel > 0) {
        CHECK(n >= 0);              /* accepted: must lie inside */
        CHECK(!S.indef);
        if (put) {
            CHECK(S.writable);
            size_t lastrec = 0;
            for (long j = 0; j < n; j++) {
                memcpy(v->data + (size_t)Fidx[j] * es, buf + (size_t)(Moff[j] - lo) * es, es);
                v->known[Fidx[j]] = 1;
            }
            if (rec) {
                size_t inner = 1;
                for (int i = 1; i < q.ndims; i++)
                    inner *= shp[i];
                for (long j = 0; j < n; j++)
                    if ((size_t)Fidx[j] / inner + 1 > lastrec)
                        lastrec = (size_t)Fidx[j] / inner + 1;
                size_t nr;
                CHECK(nc_inq_dimlen(S.ncid, M.unlimid, &nr) == 0);
                CHECK(nr >= lastrec && nr <= MAXREC);
                M.numrecs = nr;
            }
        } else {
            for (long j = 0; j < n; j++)
                if (v->known[Fidx[j]] && !aliased)
                    CHECK(memcmp(buf + (size_t)(Moff[j] - lo) * es,
                                 v->data + (size_t)Fidx[j] * es, es) == 0);
            for (size_t o = 0; o < blen; o++)
                if (!touched[o])
                    for (size_t b = 0; b < es; b++)
                        CHECK(buf[o * es + b] == 0xA5);
        }
    } else if (e != NC_NOERR && put && (!clean_error(e) || form == 1 || form == 2)) {
        /* A strided put that fails on a bad coordinate has written the
         * elements before it, as upstream. */
        memset(v->known, 0, sizeof v->known);
    }
    /* Even a put of nothing moves the record count to start + count, as
     * upstream does. */
    if (put && rec && S.open && !S.indef) {
        size_t nr;
        if (nc_inq_dimlen(S.ncid, M.unlimid, &nr) == 0) {
            CHECK(nr <= MAXREC);
            M.numrecs = nr;
        }
    }
    free(buf);
    free(touched);
}

/* nc_put_var / nc_get_var on a fixed-size variable, and typed reads. */
static void
op_whole(Rd *r)
{
    int varid = pick_varid(r, 0);
    unsigned b = u8(r);
    if (varid >= M.nvars || S.indef)
        return;
    Var *v = &M.v[varid];
    size_t shp[MAXR], n = 1, es = tsize(v->type);
    var_shape(&M, v, shp);
    for (int i = 0; i < v->ndims; i++)
        n *= i == 0 && is_recvar(&M, v) ? M.numrecs : shp[i];
    double *d = malloc((n ? n : 1) * sizeof(double));
    unsigned char *buf = malloc((n ? n : 1) * es);
    if (d && buf) {
        if ((b & 1) && !is_recvar(&M, v)) {
            rng = b * 77u + 5;
            gen_values(v->type, buf, n);
            int e = nc_put_var(S.ncid, varid, buf);
            note(e);
            if (e == NC_NOERR) {
                memcpy(v->data, buf, n * es);
                memset(v->known, 1, n);
            }
        } else if (v->type != NC_CHAR) {
            int e = nc_get_var_double(S.ncid, varid, d);
            CHECK(e == NC_NOERR || e == NC_ERANGE || S.uncertain);
            (void)nc_get_var_longlong(S.ncid, varid, (long long *)d);
        } else {
            (void)nc_get_var_text(S.ncid, varid, (char *)buf);
        }
    }
    free(d);
    free(buf);
}

static void
op_inq(void)
{
    int ndims, nvars, natts, unlim, fmt;
    if (!S.uncertain && (nc_inq(S.ncid, &ndims, &nvars, &natts, &unlim) == 0)) {
        CHECK(ndims == M.ndims && nvars == M.nvars && unlim == M.unlimid);
        CHECK(natts == M.gatts.n);
    }
    (void)nc_inq_format(S.ncid, &fmt);
    if (!S.indef && !S.uncertain)
        compare_model(S.ncid);
}

/* ---- the program ----------------------------------------------------------------- */

static void
run(Rd *r)
{
    for (int ops = 0; ops < MAXOPS && r->i < r->n; ops++) {
        unsigned op = u8(r) % 26;
        if (trace)
            fprintf(stderr, "op %u open=%d indef=%d nvars=%d numrecs=%zu unc=%d\n", op, S.open,
                    S.indef, M.nvars, M.numrecs, S.uncertain);
        if (!S.open) {
            if (op % 3 == 0 || !S.have_image)
                do_create(r);
            else
                do_open(r);
            continue;
        }
        switch (op) {
        case 0: op_def_dim(r); break;
        case 1: case 2: op_def_var(r); break;
        case 3: case 4: op_put_att(r); break;
        case 5: op_del_att(r); break;
        case 6: op_rename_att(r); break;
        case 7: op_rename(r, 0); break;
        case 8: op_rename(r, 1); break;
        case 9: op_copy_att(r); break;
        case 10: {
            int old, mode = u8(r) % 3;
            int e = nc_set_fill(S.ncid, mode == 2 ? 0x55 : mode ? NC_NOFILL : NC_FILL, &old);
            note(e);
            break;
        }
        case 11: {
            int e = nc_redef(S.ncid);
            note(e);
            if (e == NC_NOERR)
                S.indef = 1;
            break;
        }
        case 12: op_enddef(r, 0); break;
        case 13: op_enddef(r, 1); break;
        case 14: op_data(r, 1, 0); break;
        case 15: op_data(r, 1, 1); break;
        case 16: op_data(r, 1, 2); break;
        case 17: op_data(r, 0, 0); break;
        case 18: op_data(r, 0, 1); break;
        case 19: op_data(r, 0, 2); break;
        case 20: op_data(r, u8(r) & 1, 3); break;
        case 21: note(nc_sync(S.ncid)); break;
        case 22: do_close(); break;
        case 23: if (u8(r) % 4 == 0) do_abort(); else op_inq(); break;
        case 24: op_whole(r); break;
        default: op_var_fill(r); break;
        }
    }
    if (S.open)
        do_close();
    /* A clean image must reopen as the model says. */
    if (S.have_image && S.exact) {
        int ncid;
        CHECK(nc_open(S.path, NC_NOWRITE, &ncid) == NC_NOERR);
        S.ncid = ncid;
        S.open = 1;
        compare_model(ncid);
        verify_all();
        nc_close(ncid);
        S.open = 0;
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Rd r = {data, size, 0};
    if (S.path[0] == 0) {
        const char *dir = fuzz_scratch_dir();
        trace = getenv("FUZZ_TRACE") != NULL;
        snprintf(S.path, sizeof S.path, "%s/fuzz_ops-%ld.nc", dir, (long)getpid());
    }
    memset(&M, 0, sizeof M);
    M.unlimid = -1;
    S.have_image = 0;
    S.exact = 0;
    session_reset();
    run(&r);
    if (S.open)
        nc_abort(S.ncid);
    session_reset();
    unlink(S.path);
    return 0;
}
