/* h5n_fmt.c: the file side of the native HDF5 reader (h5n.h): bounded
 * reads, the superblock, global heap collections.  Object headers are
 * h5n_obj.c's, B-trees and fractal heaps h5n_heap.c's.
 *
 * Layouts follow the HDF5 File Format Specification (version 3).  Only 8-byte
 * offsets and lengths are accepted (what HDF5 writes by default); every
 * checksum is verified; every size read from the file is bounded by the file
 * size before anything is allocated or read. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "h5n_priv.h"

/* ---- low-level reading ------------------------------------------------------- */

uint32_t
h5n_lookup3(const unsigned char *k, size_t length)
{
#define ROT(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)length;
    while (length > 12) {
        a += k[0] + ((uint32_t)k[1] << 8) + ((uint32_t)k[2] << 16) + ((uint32_t)k[3] << 24);
        b += k[4] + ((uint32_t)k[5] << 8) + ((uint32_t)k[6] << 16) + ((uint32_t)k[7] << 24);
        c += k[8] + ((uint32_t)k[9] << 8) + ((uint32_t)k[10] << 16) + ((uint32_t)k[11] << 24);
        a -= c; a ^= ROT(c, 4);  c += b;
        b -= a; b ^= ROT(a, 6);  a += c;
        c -= b; c ^= ROT(b, 8);  b += a;
        a -= c; a ^= ROT(c, 16); c += b;
        b -= a; b ^= ROT(a, 19); a += c;
        c -= b; c ^= ROT(b, 4);  b += a;
        length -= 12;
        k += 12;
    }
    if (length == 0)
        return c;
    {
        unsigned char t[12] = {0};
        memcpy(t, k, length);
        c += t[8] + ((uint32_t)t[9] << 8) + ((uint32_t)t[10] << 16) + ((uint32_t)t[11] << 24);
        b += t[4] + ((uint32_t)t[5] << 8) + ((uint32_t)t[6] << 16) + ((uint32_t)t[7] << 24);
        a += t[0] + ((uint32_t)t[1] << 8) + ((uint32_t)t[2] << 16) + ((uint32_t)t[3] << 24);
    }
    c ^= b; c -= ROT(b, 14);
    a ^= c; a -= ROT(c, 11);
    b ^= a; b -= ROT(a, 25);
    c ^= b; c -= ROT(b, 16);
    a ^= c; a -= ROT(c, 4);
    b ^= a; b -= ROT(a, 14);
    c ^= b; c -= ROT(b, 24);
    return c;
#undef ROT
}

/* Whether [addr, addr+len) lies in the file (relative addresses). */
int
h5n_in_file(const h5n_file *f, uint64_t addr, uint64_t len)
{
    uint64_t abs;
    if (addr == H5N_UNDEF || addr > f->size || f->base > f->size - addr)
        return 0;
    abs = f->base + addr;
    return len <= f->size - abs;
}

int
h5n_read_at(const h5n_file *f, uint64_t addr, void *buf, size_t len)
{
    unsigned char *p = buf;
    off_t at;
    if (!h5n_in_file(f, addr, len))
        return GIVEUP;
    at = (off_t)(f->base + addr);
    if (f->mem != NULL) {
        memcpy(p, f->mem + at, len);
        return NC_NOERR;
    }
    if (f->readfn != NULL)
        return len == 0 || f->readfn(f->rctx, (uint64_t)at, len, p) == NC_NOERR ? NC_NOERR : GIVEUP;
    while (len > 0) {
        ssize_t n = pread(f->fd, p, len, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return GIVEUP;
        p += n;
        at += n;
        len -= (size_t)n;
    }
    return NC_NOERR;
}

/* Bytes available from addr to the end of the file (0 if outside). */
uint64_t
h5n_avail(const h5n_file *f, uint64_t addr)
{
    if (!h5n_in_file(f, addr, 0))
        return 0;
    return f->size - (f->base + addr);
}

int
h5n_keep_buf(h5n_obj *o, unsigned char *b)
{
    if (o->nbufs == o->bufcap) {
        size_t cap = o->bufcap ? 2 * o->bufcap : 8;
        unsigned char **p = realloc(o->bufs, cap * sizeof(*p));
        if (p == NULL) {
            free(b);
            return NC_ENOMEM;
        }
        o->bufs = p;
        o->bufcap = cap;
    }
    o->bufs[o->nbufs++] = b;
    return NC_NOERR;
}

/* Read len bytes at addr into a buffer owned by o. */
int
h5n_read_owned(h5n_file *f, h5n_obj *o, uint64_t addr, size_t len, unsigned char **bp)
{
    unsigned char *b;
    int stat;
    if (!h5n_in_file(f, addr, len))
        return GIVEUP;
    if ((b = malloc(len ? len : 1)) == NULL)
        return NC_ENOMEM;
    if ((stat = h5n_read_at(f, addr, b, len))) {
        free(b);
        return stat;
    }
    if ((stat = h5n_keep_buf(o, b)))
        return stat;
    *bp = b;
    return NC_NOERR;
}

void *
h5n_grow(void *arr, size_t *cap, size_t n, size_t sz, size_t first)
{
    size_t c;
    void *p;
    if (n < *cap)
        return arr;
    c = *cap ? 2 * *cap : first;
    if (c > SIZE_MAX / sz || (p = realloc(arr, c * sz)) == NULL)
        return NULL;
    *cap = c;
    return p;
}

int
h5n_check_sum(const unsigned char *p, size_t n)
{
    return h5n_lookup3(p, n) == (uint32_t)le(p + n, 4);
}

/* ---- the superblock ------------------------------------------------------------ */

/* Find and check the superblock of f (fd or mem and size set).  any: a
 * version-0/1 superblock is accepted too, with the base at the signature
 * (such an h5n_file serves global-heap reads and h5n_v1_msg only). */
static int
find_superblock(h5n_file *f, int any)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char sb[48];
    uint64_t at;

    if (f->size < 48)
        return GIVEUP;
    /* At 0 or after a user block of 512 * 2^k bytes. */
    for (at = 0; at + 48 <= f->size; at = at ? 2 * at : 512) {
        if (h5n_read_at(f, at, sb, 8))
            return GIVEUP;
        if (memcmp(sb, sig, 8) == 0)
            break;
    }
    if (at + 48 > f->size || h5n_read_at(f, at, sb, 48))
        return GIVEUP;
    if (any && sb[8] < 2) {
        if (sb[13] != 8 || sb[14] != 8)     /* sizes of offsets and lengths */
            return GIVEUP;
        f->sbver = sb[8];
        f->base = at;
        return NC_NOERR;
    }
    /* Version 2/3 with 8-byte offsets and lengths, no extension, not marked
     * open for writing (HDF5 decides what to do with such a file). */
    if ((sb[8] != 2 && sb[8] != 3) || sb[9] != 8 || sb[10] != 8 || sb[11] != 0 ||
        !h5n_check_sum(sb, 44))
        return GIVEUP;
    f->sbver = sb[8];
    f->base = le(sb + 12, 8);
    if (le(sb + 20, 8) != H5N_UNDEF)
        return GIVEUP;
    f->root = le(sb + 36, 8);
    /* A file shorter than its end-of-file address is HDF5's to refuse. */
    if (f->base != at || !h5n_in_file(f, f->root, 16) || !h5n_in_file(f, le(sb + 28, 8), 0))
        return GIVEUP;
    return NC_NOERR;
}

static int
open_any(const char *path, int fd, const void *mem, size_t size, int any, h5n_file **fp)
{
    struct stat st;
    h5n_file *f;

    *fp = NULL;
    if ((f = calloc(1, sizeof(*f))) == NULL)
        return NC_ENOMEM;
    f->fd = -1;
    if (fd >= 0) {
        f->fd = fd;   /* borrowed: left open by h5n_close */
        f->borrowed = 1;
    } else if (path == NULL) {
        f->mem = mem;
        f->size = size;
    } else if ((f->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        h5n_close(f);
        return GIVEUP;
    }
    if (f->fd >= 0) {
        if (fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
            h5n_close(f);
            return GIVEUP;
        }
        f->size = (uint64_t)st.st_size;
    }
    if (find_superblock(f, any)) {
        h5n_close(f);
        return GIVEUP;
    }
    *fp = f;
    return NC_NOERR;
}

int
h5n_open(const char *path, h5n_file **fp)
{
    return open_any(path, -1, NULL, 0, 0, fp);
}

int
h5n_open_reader(h5n_readfn fn, void *ctx, uint64_t size, int any, h5n_file **fp)
{
    h5n_file *f;
    *fp = NULL;
    if (fn == NULL)
        return GIVEUP;
    if ((f = calloc(1, sizeof(*f))) == NULL)
        return NC_ENOMEM;
    f->fd = -1;
    f->readfn = fn;
    f->rctx = ctx;
    f->size = size;
    if (find_superblock(f, any)) {
        h5n_close(f);
        return GIVEUP;
    }
    *fp = f;
    return NC_NOERR;
}

int
h5n_open_guard(const char *path, int fd, const void *mem, size_t size, h5n_file **fp)
{
    if (path == NULL && fd < 0 && mem == NULL)
        return GIVEUP;
    return open_any(path, fd, mem, size, 1, fp);
}

void
h5n_close(h5n_file *f)
{
    if (f == NULL)
        return;
    for (size_t i = 0; i < f->ngcols; i++) {
        free(f->gcols[i].buf);
        free(f->gcols[i].index);
    }
    free(f->gcols);
    if (f->fd >= 0 && !f->borrowed)
        close(f->fd);
    free(f);
}

int
h5n_superblock_version(const h5n_file *f)
{
    return f->sbver;
}

uint64_t
h5n_file_size(const h5n_file *f)
{
    return f->size;
}

uint64_t
h5n_root_addr(const h5n_file *f)
{
    return f->root;
}

/* ---- global heap ---------------------------------------------------------------- */

static int
load_gcol(h5n_file *f, uint64_t addr, gcol **gp)
{
    unsigned char h[16];
    gcol *g, *p;
    uint64_t size;
    size_t pos, maxidx = 0;

    for (size_t i = 0; i < f->ngcols; i++)
        if (f->gcols[i].addr == addr) {
            *gp = &f->gcols[i];
            return NC_NOERR;
        }
    if (h5n_read_at(f, addr, h, 16) || memcmp(h, "GCOL", 4) != 0 || h[4] != 1)
        return GIVEUP;
    size = le(h + 8, 8);
    if (size < 16 || size > h5n_avail(f, addr))
        return GIVEUP;
    if ((p = h5n_grow(f->gcols, &f->gcap, f->ngcols, sizeof(*p), 4)) == NULL)
        return NC_ENOMEM;
    f->gcols = p;
    g = &f->gcols[f->ngcols];
    memset(g, 0, sizeof(*g));
    g->addr = addr;
    g->size = (size_t)size;
    if ((g->buf = malloc(g->size)) == NULL)
        return NC_ENOMEM;
    if (h5n_read_at(f, addr, g->buf, g->size)) {
        free(g->buf);
        return GIVEUP;
    }
    /* Index the objects by number (0 ends the list: free space).  The
     * collection is sane when its objects, each padded to 8 bytes, are
     * followed by one free-space object reaching exactly its end (or by
     * fewer than 16 bytes, or nothing), with no number twice. */
    g->sane = 1;
    for (pos = 16; pos + 16 <= g->size;) {
        unsigned idx = (unsigned)le(g->buf + pos, 2);
        uint64_t osz = le(g->buf + pos + 8, 8);
        if (idx == 0) {
            if (osz != g->size - pos)
                g->sane = 0;
            break;
        }
        if (osz > g->size - pos - 16 || (osz + 7) / 8 * 8 > g->size - pos - 16) {
            g->sane = 0;
            break;
        }
        if (idx > maxidx)
            maxidx = idx;
        pos += 16 + (size_t)((osz + 7) / 8 * 8);
    }
    if ((g->index = calloc(maxidx + 1, sizeof(uint32_t))) == NULL) {
        free(g->buf);
        return NC_ENOMEM;
    }
    g->nindex = maxidx + 1;
    for (pos = 16; pos + 16 <= g->size;) {
        unsigned idx = (unsigned)le(g->buf + pos, 2);
        uint64_t osz = le(g->buf + pos + 8, 8);
        if (idx == 0 || osz > g->size - pos - 16)
            break;
        if (g->index[idx] == 0)
            g->index[idx] = (uint32_t)pos;
        else
            g->sane = 0;
        pos += 16 + (size_t)((osz + 7) / 8 * 8);
    }
    f->ngcols++;
    *gp = g;
    return NC_NOERR;
}

/* The global-heap object a 16-byte heap reference (length, collection
 * address, index) names: *objp at its header, NULL for the null reference;
 * GIVEUP when the index names no object (or, with need_sane, when the
 * collection failed its checks). */
static int
heap_object(h5n_file *f, const unsigned char *elem, int need_sane, const unsigned char **objp)
{
    uint64_t addr = le(elem + 4, 8);
    uint32_t idx = (uint32_t)le(elem + 12, 4);
    gcol *g;
    size_t pos;
    int stat;

    *objp = NULL;
    if (addr == 0)
        return NC_NOERR;
    if ((stat = load_gcol(f, addr, &g)))
        return stat;
    if ((need_sane && !g->sane) || idx == 0 || idx >= g->nindex || (pos = g->index[idx]) == 0)
        return GIVEUP;
    *objp = g->buf + pos;
    return NC_NOERR;
}

int
h5n_vlen(h5n_file *f, const unsigned char *elem, const unsigned char **datap, size_t *lenp,
         uint32_t *countp)
{
    const unsigned char *obj;
    int stat;

    *countp = (uint32_t)le(elem, 4);
    *datap = NULL;
    *lenp = 0;
    if ((stat = heap_object(f, elem, 0, &obj)) || obj == NULL)
        return stat;
    *lenp = (size_t)le(obj + 8, 8);
    *datap = obj + 16;
    return NC_NOERR;
}

int
h5n_vlen_check(h5n_file *f, const unsigned char *elem, uint64_t base_size,
               const unsigned char **datap)
{
    uint64_t count = le(elem, 4), osz;
    const unsigned char *obj;
    int stat;

    *datap = NULL;
    if ((stat = heap_object(f, elem, 1, &obj)) || obj == NULL)
        return stat;
    /* HDF5 copies the object into a buffer of count elements. */
    osz = le(obj + 8, 8);
    if (base_size == 0 || count > osz / base_size || count * base_size != osz)
        return GIVEUP;
    *datap = obj + 16;
    return NC_NOERR;
}
