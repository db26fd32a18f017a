/* dap2data.c: the XDR data of DAP2 ".dods" responses.
 *
 * A response is the DDS text, a "Data:" line, then the values in XDR
 * (big-endian, 4-byte units) in declaration order:
 *   - an atomic scalar: Byte, Int16, UInt16 in 4 bytes, Int32, UInt32,
 *     Float32 in 4, Float64 in 8, String/Url as a length and the bytes padded
 *     to a multiple of 4;
 *   - an atomic array: its element count twice (once for strings), then the
 *     values (Byte arrays packed, padded to 4 bytes; Int16/UInt16 in 4 bytes each);
 *   - a Structure array: its count once, then each element's members;
 *   - a Grid: its array, then its maps;
 *   - a Sequence: each record starts with 0x5A000000 and holds the members;
 *     0xA5000000 ends the sequence.
 * Decoding appends each atomic node's values to its column, so that a
 * member of a structure array or a sequence holds all its values in netCDF
 * order (container dimensions outermost).  Every count is checked against
 * the declaration and against the bytes that remain before anything is
 * allocated.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "dap2.h"

size_t
d2_atomsize(int atype)
{
    switch (atype) {
    case D2_BYTE: return 1;
    case D2_INT16: case D2_UINT16: return 2;
    case D2_INT32: case D2_UINT32: case D2_FLOAT32: return 4;
    case D2_FLOAT64: return 8;
    case D2_STRING: case D2_URL: return sizeof(char *);
    default: return 0;
    }
}

nc_type
d2_nctype(int atype)
{
    switch (atype) {
    case D2_BYTE: return NC_BYTE;
    case D2_INT16: case D2_UINT16: return NC_SHORT;
    case D2_INT32: case D2_UINT32: return NC_INT;
    case D2_FLOAT32: return NC_FLOAT;
    case D2_FLOAT64: return NC_DOUBLE;
    case D2_STRING: case D2_URL: return NC_CHAR;
    default: return NC_NAT;
    }
}

nc_type
d2_nativetype(int atype)
{
    switch (atype) {
    case D2_BYTE: return NC_UBYTE;
    case D2_INT16: return NC_SHORT;
    case D2_UINT16: return NC_USHORT;
    case D2_INT32: return NC_INT;
    case D2_UINT32: return NC_UINT;
    case D2_FLOAT32: return NC_FLOAT;
    case D2_FLOAT64: return NC_DOUBLE;
    case D2_STRING: case D2_URL: return NC_CHAR;
    default: return NC_NAT;
    }
}

int
d2_find_data(const unsigned char *buf, size_t len, size_t *offp)
{
    for (size_t i = 0; i + 6 <= len; i++) {
        if (buf[i] != 'D' || (i > 0 && buf[i - 1] != '\n') || memcmp(buf + i, "Data:", 5) != 0)
            continue;
        if (buf[i + 5] == '\n') {
            *offp = i + 6;
            return NC_NOERR;
        }
        if (buf[i + 5] == '\r' && i + 7 <= len && buf[i + 6] == '\n') {
            *offp = i + 7;
            return NC_NOERR;
        }
    }
    return NC_EDATADDS;
}

/* ---- reading XDR ----------------------------------------------------------------------- */

typedef struct X {
    const unsigned char *p;
    size_t len, pos;
} X;

static int
get4(X *x, uint32_t *v)
{
    if (x->len - x->pos < 4)
        return NC_EDATADDS;
    const unsigned char *b = x->p + x->pos;
    *v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    x->pos += 4;
    return NC_NOERR;
}

static uint32_t
be32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* n values of atomic type atype from XDR at src to native values at dst:
 * one loop per type, no call per value.  dst may be at or before src in
 * the same buffer (each value is read whole before it is written). */
static void
xdr_to_native(int atype, const unsigned char *src, unsigned char *dst, size_t n)
{
    switch (atype) {
    case D2_BYTE:
        memcpy(dst, src, n);
        break;
    case D2_INT16: case D2_UINT16:
        for (size_t i = 0; i < n; i++) {
            uint16_t h = (uint16_t)((unsigned)src[4 * i + 2] << 8 | src[4 * i + 3]);
            memcpy(dst + 2 * i, &h, 2);
        }
        break;
    case D2_FLOAT64:
        for (size_t i = 0; i < n; i++) {
            uint64_t w = (uint64_t)be32(src + 8 * i) << 32 | be32(src + 8 * i + 4);
            memcpy(dst + 8 * i, &w, 8);
        }
        break;
    default:
        for (size_t i = 0; i < n; i++) {
            uint32_t v = be32(src + 4 * i);
            memcpy(dst + 4 * i, &v, 4);
        }
        break;
    }
}

/* Room for n more values in a column. */
static int
col_reserve(D2node *n, size_t more)
{
    size_t es = d2_atomsize(n->atype);
    if (n->ncol + more <= n->colcap)
        return NC_NOERR;
    size_t ncap = n->colcap ? n->colcap : 16;
    while (ncap < n->ncol + more) {
        if (ncap > ((size_t)-1 / 2) / es)
            return NC_ENOMEM;
        ncap *= 2;
    }
    void *c = realloc(n->col, ncap * es);
    if (c == NULL)
        return NC_ENOMEM;
    n->col = c;
    n->colcap = ncap;
    return NC_NOERR;
}

static size_t
elems(const D2node *n)
{
    size_t total = 1;
    for (size_t i = 0; i < n->rank; i++)
        total *= n->dims[i].size;  /* bounded by the parser (D2_MAX_ELEMS) */
    return total;
}

/* count values of an atomic node. */
static int
decode_values(X *x, D2node *n, size_t count)
{
    int stat;
    size_t avail = x->len - x->pos;
    unsigned char *out;

    if (n->atype == D2_STRING || n->atype == D2_URL) {
        if (count > avail / 4)
            return NC_EDATADDS;
        if ((stat = col_reserve(n, count)))
            return stat;
        char **s = (char **)n->col + n->ncol;
        for (size_t i = 0; i < count; i++) {
            uint32_t slen;
            if ((stat = get4(x, &slen)))
                return stat;
            size_t padded = ((size_t)slen + 3) & ~(size_t)3;
            if (slen > x->len - x->pos || padded > x->len - x->pos)
                return NC_EDATADDS;
            if ((s[i] = malloc((size_t)slen + 1)) == NULL)
                return NC_ENOMEM;
            memcpy(s[i], x->p + x->pos, slen);
            s[i][slen] = '\0';
            n->ncol++;
            x->pos += padded;
        }
        return NC_NOERR;
    }
    size_t wire = n->atype == D2_FLOAT64 ? 8 : 4;
    if (n->atype == D2_BYTE && n->rank > 0) {
        size_t padded = (count + 3) & ~(size_t)3;
        if (count > avail || padded > avail)
            return NC_EDATADDS;
        if ((stat = col_reserve(n, count)))
            return stat;
        memcpy((unsigned char *)n->col + n->ncol, x->p + x->pos, count);
        n->ncol += count;
        x->pos += padded;
        return NC_NOERR;
    }
    if (count > avail / wire)
        return NC_EDATADDS;
    if ((stat = col_reserve(n, count)))
        return stat;
    out = (unsigned char *)n->col + n->ncol * d2_atomsize(n->atype);
    if (n->atype == D2_BYTE) {  /* a scalar Byte: the last byte of its 4 */
        for (size_t i = 0; i < count; i++)
            out[i] = x->p[x->pos + 4 * i + 3];
    } else {
        xdr_to_native(n->atype, x->p + x->pos, out, count);
    }
    n->ncol += count;
    x->pos += count * wire;
    return NC_NOERR;
}

static int
decode_node(X *x, D2node *n, int depth)
{
    int stat = NC_NOERR;
    uint32_t c;

    if (depth > D2_MAX_DEPTH + 2)
        return NC_EDATADDS;
    switch (n->kind) {
    case D2_ATOMIC: {
        size_t count = elems(n);
        if (n->rank > 0) {
            if ((stat = get4(x, &c)))
                return stat;
            if (c != count)
                return NC_EDATADDS;
            if (n->atype != D2_STRING && n->atype != D2_URL) {
                if ((stat = get4(x, &c)))
                    return stat;
                if (c != count)
                    return NC_EDATADDS;
            }
        }
        return decode_values(x, n, count);
    }
    case D2_STRUCTURE: {
        size_t count = elems(n);
        if (n->rank > 0) {
            if ((stat = get4(x, &c)))
                return stat;
            if (c != count)
                return NC_EDATADDS;
        }
        /* an element is at least 4 bytes when it has members */
        if (n->nfields > 0 && count > (x->len - x->pos) / 4)
            return NC_EDATADDS;
        for (size_t e = 0; e < count; e++)
            for (size_t i = 0; i < n->nfields; i++)
                if ((stat = decode_node(x, n->fields[i], depth + 1)))
                    return stat;
        return NC_NOERR;
    }
    case D2_SEQUENCE: {
        size_t nrec = 0;
        for (;;) {
            if ((stat = get4(x, &c)))
                return stat;
            if (c == 0xA5000000u)
                break;
            if (c != 0x5A000000u)
                return NC_EDATADDS;
            for (size_t i = 0; i < n->nfields; i++)
                if ((stat = decode_node(x, n->fields[i], depth + 1)))
                    return stat;
            nrec++;
        }
        n->nrecords = nrec;
        return NC_NOERR;
    }
    case D2_GRID:
    case D2_DATASET:
        for (size_t i = 0; i < n->nfields; i++)
            if ((stat = decode_node(x, n->fields[i], depth + 1)))
                return stat;
        return NC_NOERR;
    default:
        return NC_EDATADDS;
    }
}

void
d2_clear_columns(D2node *n)
{
    if (n->col != NULL && (n->atype == D2_STRING || n->atype == D2_URL)) {
        char **s = n->col;
        for (size_t i = 0; i < n->ncol; i++)
            free(s[i]);
    }
    free(n->col);
    n->col = NULL;
    n->ncol = n->colcap = 0;
    n->nrecords = 0;
    for (size_t i = 0; i < n->nfields; i++)
        d2_clear_columns(n->fields[i]);
}

int
d2_decode(D2node *root, const unsigned char *xdr, size_t len)
{
    X x = {xdr, len, 0};
    d2_clear_columns(root);
    return decode_node(&x, root, 0);
}

/* The one numeric array a response holds when the dataset's members form
 * a single path of scalar containers ending in it (a projection of one
 * whole array); NULL otherwise.  Its XDR is then just that array's. */
static D2node *
single_array(D2node *root)
{
    D2node *n = root;
    for (int depth = 0; depth <= D2_MAX_DEPTH + 2; depth++) {
        if (n->kind == D2_ATOMIC)
            return n->rank > 0 && n->atype != D2_STRING && n->atype != D2_URL ? n : NULL;
        if (n->kind == D2_SEQUENCE || n->nfields != 1 || (n->kind == D2_STRUCTURE && n->rank > 0))
            return NULL;
        n = n->fields[0];
    }
    return NULL;
}

int
d2_decode_owned(D2node *root, unsigned char *buf, size_t off, size_t len, int *tookp)
{
    D2node *n = single_array(root);
    X x = {buf + off, len - off, 0};
    uint32_t c1, c2;
    size_t count, es, wire, avail;
    const unsigned char *src;
    unsigned char *col;

    *tookp = 0;
    if (n == NULL)
        return d2_decode(root, buf + off, len - off);
    d2_clear_columns(root);
    count = elems(n);
    es = d2_atomsize(n->atype);
    wire = n->atype == D2_FLOAT64 ? 8 : 4;
    if (get4(&x, &c1) || get4(&x, &c2) || c1 != count || c2 != count)
        return NC_EDATADDS;
    avail = x.len - x.pos;
    src = x.p + x.pos;
    /* Every value is written at or before where it was read (a native value
     * is never wider than its XDR form and the header comes first), and is
     * read whole before it is written, so the conversion runs in place. */
    if (n->atype == D2_BYTE) {
        size_t padded = (count + 3) & ~(size_t)3;
        if (count > avail || padded > avail)
            return NC_EDATADDS;
        memmove(buf, src, count);
    } else {
        if (count > avail / wire)
            return NC_EDATADDS;
        xdr_to_native(n->atype, src, buf, count);
    }
    /* the buffer becomes the column, shrunk to the values */
    col = realloc(buf, count * es > 0 ? count * es : 1);
    n->col = col ? col : buf;
    n->ncol = n->colcap = count;
    *tookp = 1;
    return NC_NOERR;
}

/* ---- a response streamed into the caller's buffer --------------------------------------- */

#define D2_DIRECT_HEAD_MAX ((size_t)1 << 20) /* DDS text looked at before giving up streaming */

void
d2_direct_init(D2direct *d, const D2node *var, void *out, size_t count)
{
    memset(d, 0, sizeof *d);
    d->var = var;
    d->out = out;
    d->count = count;
    d->es = d2_atomsize(var->atype);
    d->wire = var->atype == D2_BYTE ? 1 : var->atype == D2_FLOAT64 ? 8 : 4;
}

/* Is the response's one array (n) the variable expected, with its count? */
static int
direct_match(const D2direct *d, const D2node *n)
{
    int ok = 0;
    if (n == NULL || n->atype != d->var->atype || elems(n) != d->count)
        return 0;
    char *a = d2_fullname(n), *b = d2_fullname(d->var);
    ok = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    return ok;
}

/* Values (and first the two counts) of the bytes p[0..len). */
static int
direct_values(D2direct *d, const unsigned char *p, size_t len)
{
    unsigned char *out = d->out;
    while (len > 0 && d->phase == 1) {  /* the count, twice */
        size_t take = 8 - d->ncarry < len ? 8 - d->ncarry : len;
        memcpy(d->carry + d->ncarry, p, take);
        d->ncarry += take;
        p += take;
        len -= take;
        if (d->ncarry == 8) {
            if (be32(d->carry) != d->count || be32(d->carry + 4) != d->count)
                return NC_EDATADDS;
            d->ncarry = 0;
            d->phase = 2;
        }
    }
    if (d->phase != 2)
        return NC_NOERR;
    if (d->ncarry > 0 && len > 0) {  /* a value split between two pieces */
        size_t take = d->wire - d->ncarry < len ? d->wire - d->ncarry : len;
        memcpy(d->carry + d->ncarry, p, take);
        d->ncarry += take;
        p += take;
        len -= take;
        if (d->ncarry == d->wire) {
            xdr_to_native(d->var->atype, d->carry, out + d->got * d->es, 1);
            d->got++;
            d->ncarry = 0;
        }
    }
    size_t n = len / d->wire;
    if (n > d->count - d->got)
        n = d->count - d->got;
    xdr_to_native(d->var->atype, p, out + d->got * d->es, n);
    d->got += n;
    p += n * d->wire;
    len -= n * d->wire;
    if (d->got < d->count && len > 0) {
        memcpy(d->carry, p, len);  /* less than one value */
        d->ncarry = len;
    }
    if (d->got == d->count)
        d->phase = 3;  /* what follows (padding) is ignored */
    return NC_NOERR;
}

int
d2_direct_sink(void *arg, const void *bytes, size_t n)
{
    D2direct *d = arg;
    const unsigned char *p = bytes;
    size_t off;
    int stat;

    if (d->phase == 2 || d->phase == 1)
        return direct_values(d, p, n);
    if (d->phase == 3)
        return NC_NOERR;
    /* the DDS part, then (phase -1) the whole body when it is not the
     * expected array alone */
    if (d->body.len + n + 1 > d->body.cap) {
        size_t ncap = d->body.cap ? d->body.cap : 4096;
        while (ncap < d->body.len + n + 1) {
            if (ncap > SIZE_MAX / 2)
                return NC_ENOMEM;
            ncap *= 2;
        }
        unsigned char *nb = realloc(d->body.data, ncap);
        if (nb == NULL)
            return NC_ENOMEM;
        d->body.data = nb;
        d->body.cap = ncap;
    }
    memcpy(d->body.data + d->body.len, p, n);
    d->body.len += n;
    d->body.data[d->body.len] = '\0';
    if (d->phase < 0)
        return NC_NOERR;
    if (d2_find_data(d->body.data, d->body.len, &off) != NC_NOERR) {
        if (d->body.len > D2_DIRECT_HEAD_MAX)
            d->phase = -1;
        return NC_NOERR;
    }
    D2node *root = NULL;
    if (d2_parse_dds((const char *)d->body.data, off, &root, NULL) != NC_NOERR
        || !direct_match(d, single_array(root))) {
        d2_node_free(root);
        d->phase = -1;  /* decoded the usual way at the end */
        return NC_NOERR;
    }
    d2_node_free(root);
    d->phase = 1;
    stat = direct_values(d, d->body.data + off, d->body.len - off);
    d->body.len = 0;  /* only the text was needed */
    return stat;
}

int
d2_direct_done(const D2direct *d)
{
    if (d->phase < 0)
        return 0;
    return d->phase == 3 ? 1 : -1;
}

char *
d2_fullname(const D2node *n)
{
    size_t len = 0;
    const D2node *p;
    char *s;
    for (p = n; p != NULL && p->kind != D2_DATASET; p = p->parent)
        len += strlen(p->name) + 1;
    if (len == 0)
        return strdup(n->name ? n->name : "");
    if ((s = malloc(len)) == NULL)
        return NULL;
    s[len - 1] = '\0';
    for (p = n; p != NULL && p->kind != D2_DATASET; p = p->parent) {
        size_t l = strlen(p->name);
        len -= l + 1;
        memcpy(s + len, p->name, l);
        if (len > 0)
            s[len - 1] = '.';
    }
    return s;
}
