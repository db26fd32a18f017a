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
    const unsigned char *b = x->p + x->pos;
    for (size_t i = 0; i < count; i++, b += wire) {
        uint32_t v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        switch (n->atype) {
        case D2_BYTE: out[i] = (unsigned char)v; break;
        case D2_INT16: case D2_UINT16: {
            uint16_t h = (uint16_t)v;
            memcpy(out + 2 * i, &h, 2);
            break;
        }
        case D2_FLOAT64: {
            uint64_t w = (uint64_t)v << 32 | ((uint32_t)b[4] << 24 | (uint32_t)b[5] << 16
                                              | (uint32_t)b[6] << 8 | b[7]);
            memcpy(out + 8 * i, &w, 8);
            break;
        }
        default:
            memcpy(out + 4 * i, &v, 4);
            break;
        }
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
        for (size_t i = 0; i < count; i++, src += wire) {
            uint32_t v = (uint32_t)src[0] << 24 | (uint32_t)src[1] << 16
                         | (uint32_t)src[2] << 8 | src[3];
            switch (n->atype) {
            case D2_INT16: case D2_UINT16: {
                uint16_t h = (uint16_t)v;
                memcpy(buf + 2 * i, &h, 2);
                break;
            }
            case D2_FLOAT64: {
                uint64_t w = (uint64_t)v << 32 | ((uint32_t)src[4] << 24 | (uint32_t)src[5] << 16
                                                  | (uint32_t)src[6] << 8 | src[7]);
                memcpy(buf + 8 * i, &w, 8);
                break;
            }
            default:
                memcpy(buf + 4 * i, &v, 4);
                break;
            }
        }
    }
    /* the buffer becomes the column, shrunk to the values */
    col = realloc(buf, count * es > 0 ? count * es : 1);
    n->col = col ? col : buf;
    n->ncol = n->colcap = count;
    *tookp = 1;
    return NC_NOERR;
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
