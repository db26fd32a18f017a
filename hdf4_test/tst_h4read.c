/* tst_h4read.c: HDF4 SD files through the native reader (libhdf4/).
 *
 * Usage: tst_h4read DATADIR WORKDIR
 * DATADIR holds upstream's ref_contiguous.hdf4 and ref_chunked.hdf4; the
 * expected values are what `hdp dumpsds` prints for them.  Hostile copies
 * of the contiguous file (truncated, DD offsets past the end, a DD loop,
 * absurd ranks and sizes) must open with a clean error or read cleanly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "netcdf_filter.h"

static int fails = 0;
#define CHECK(c)                                                             \
    do {                                                                     \
        if (!(c)) {                                                          \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c); \
            fails++;                                                         \
        }                                                                    \
    } while (0)

static unsigned char *
slurp(const char *path, size_t *lenp)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, fp) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(fp);
    *lenp = (size_t)n;
    return b;
}

static void
contiguous(const char *path)
{
    int ncid, fmt, mode, ndims, nvars, natts, unlim, varid, dimids[2];
    char name[NC_MAX_NAME + 1];
    size_t len;
    nc_type t;
    CHECK(nc_open(path, NC_WRITE, &ncid) == NC_EPERM);
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR);
    CHECK(nc_inq_format(ncid, &fmt) == NC_NOERR && fmt == NC_FORMAT_NETCDF4);
    CHECK(nc_inq_format_extended(ncid, &fmt, &mode) == NC_NOERR && fmt == NC_FORMATX_NC_HDF4);
    CHECK(nc_inq(ncid, &ndims, &nvars, &natts, &unlim) == NC_NOERR);
    CHECK(ndims == 2 && nvars == 1 && natts == 0 && unlim == -1);
    CHECK(nc_inq_varid(ncid, "pres", &varid) == NC_NOERR);
    CHECK(nc_inq_var(ncid, varid, name, &t, &ndims, dimids, &natts) == NC_NOERR);
    CHECK(t == NC_INT && ndims == 2 && natts == 0);
    CHECK(nc_inq_dim(ncid, dimids[0], name, &len) == NC_NOERR);
    CHECK(strcmp(name, "fakeDim0") == 0 && len == 3);
    CHECK(nc_inq_dim(ncid, dimids[1], name, &len) == NC_NOERR);
    CHECK(strcmp(name, "fakeDim1") == 0 && len == 2);
    int v[6] = {-1, -1, -1, -1, -1, -1}, want[6] = {0, 1, 0, 1, 0, 1};
    CHECK(nc_get_var_int(ncid, varid, v) == NC_NOERR && memcmp(v, want, sizeof v) == 0);
    double d[3];
    size_t start[2] = {0, 1}, count[2] = {3, 1};
    CHECK(nc_get_vara_double(ncid, varid, start, count, d) == NC_NOERR);
    CHECK(d[0] == 1 && d[1] == 1 && d[2] == 1);
    ptrdiff_t stride[2] = {2, 1};
    size_t count2[2] = {2, 2};
    start[1] = 0;
    CHECK(nc_get_vars_int(ncid, varid, start, count2, stride, v) == NC_NOERR);
    CHECK(v[0] == 0 && v[1] == 1 && v[2] == 0 && v[3] == 1);
    start[0] = 3;
    CHECK(nc_get_vara_int(ncid, varid, start, count, v) == NC_EINVALCOORDS);
    /* every write is NC_EPERM */
    CHECK(nc_redef(ncid) == NC_EPERM);
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 1, v) == NC_EPERM);
    CHECK(nc_put_var_int(ncid, varid, v) == NC_EPERM);
    CHECK(nc_def_dim(ncid, "x", 1, &dimids[0]) == NC_EPERM);
    CHECK(nc_close(ncid) == NC_NOERR);
}

/* The netCDF-4-only calls answer as upstream's HDF4 dispatch table: the
 * definitions NC_ENOTNC4, the inquiries of the enhanced model from the
 * (empty) metadata, the fill definition NC_EPERM (it modifies). */
static void
enhanced_calls(const char *path)
{
    int ncid, varid, grp, n = -1, ids[4];
    nc_type t;
    size_t sz, nelems;
    float pre;
    char name[NC_MAX_NAME + 1];
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR);
    CHECK(nc_inq_varid(ncid, "pres", &varid) == NC_NOERR);
    CHECK(nc_def_grp(ncid, "g", &grp) == NC_ENOTNC4);
    CHECK(nc_rename_grp(ncid, "g") == NC_ENOTNC4);
    CHECK(nc_def_compound(ncid, 8, "c", &t) == NC_ENOTNC4);
    CHECK(nc_insert_compound(ncid, 32, "f", 0, NC_INT) == NC_ENOTNC4);
    CHECK(nc_def_vlen(ncid, "v", NC_INT, &t) == NC_ENOTNC4);
    CHECK(nc_def_enum(ncid, NC_INT, "e", &t) == NC_ENOTNC4);
    CHECK(nc_def_opaque(ncid, 4, "o", &t) == NC_ENOTNC4);
    CHECK(nc_def_var_deflate(ncid, varid, 0, 1, 1) == NC_ENOTNC4);
    CHECK(nc_def_var_fletcher32(ncid, varid, 1) == NC_ENOTNC4);
    CHECK(nc_def_var_chunking(ncid, varid, NC_CONTIGUOUS, NULL) == NC_ENOTNC4);
    CHECK(nc_def_var_endian(ncid, varid, NC_ENDIAN_BIG) == NC_ENOTNC4);
    CHECK(nc_def_var_quantize(ncid, varid, NC_QUANTIZE_BITGROOM, 3) == NC_ENOTNC4);
    CHECK(nc_set_var_chunk_cache(ncid, varid, 1024, 7, 0.5f) == NC_ENOTNC4);
    CHECK(nc_get_var_chunk_cache(ncid, varid, &sz, &nelems, &pre) == NC_ENOTNC4);
    CHECK(nc_def_var_fill(ncid, varid, 1, NULL) == NC_EPERM);
    /* no user-defined types: NC_EBADTYPE, as upstream's NC4_inq_user_type */
    CHECK(nc_inq_user_type(ncid, 32, name, &sz, &t, &nelems, &n) == NC_EBADTYPE);
    CHECK(nc_inq_user_type(ncid, NC_INT, name, &sz, &t, &nelems, &n) == NC_EBADTYPE);
    CHECK(nc_inq_compound(ncid, 32, name, &sz, &nelems) == NC_EBADTYPE);
    CHECK(nc_inq_enum(ncid, 32, name, &t, &sz, &nelems) == NC_EBADTYPE);
    CHECK(nc_inq_typeids(ncid, &n, ids) == NC_NOERR && n == 0);
    CHECK(nc_inq_grps(ncid, &n, ids) == NC_NOERR && n == 0);
    CHECK(nc_inq_var_filter_ids(ncid, varid, &sz, NULL) == NC_NOERR && sz == 0);
    CHECK(nc_close(ncid) == NC_NOERR);
}

static void
chunked(const char *path)
{
    int ncid, ndims, nvars, natts, unlim, varid, dimids[2];
    size_t len;
    char text[64];
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR);
    CHECK(nc_inq(ncid, &ndims, &nvars, &natts, &unlim) == NC_NOERR);
    CHECK(ndims == 4 && nvars == 14 && natts == 6 && unlim == -1);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "HDFEOSVersion", text) == NC_NOERR);
    CHECK(memcmp(text, "HDFEOS_V2.18", 12) == 0);
    int nlw[9], wantnlw[9] = {0, 0, 4, 0, 0, 0, 76, 1309085, 130835};
    CHECK(nc_get_att_int(ncid, NC_GLOBAL, "NumberLandWater", nlw) == NC_NOERR);
    CHECK(memcmp(nlw, wantnlw, sizeof nlw) == 0);
    CHECK(nc_inq_varid(ncid, "Elevation", &varid) == NC_NOERR);
    CHECK(nc_inq_vardimid(ncid, varid, dimids) == NC_NOERR);
    CHECK(nc_inq_dimlen(ncid, dimids[0], &len) == NC_NOERR && len == 1200);
    short fill;
    CHECK(nc_get_att_short(ncid, varid, "_FillValue", &fill) == NC_NOERR && fill == -9999);
    CHECK(nc_get_att_text(ncid, varid, "units", text) == NC_NOERR && memcmp(text, "meter", 5) == 0);
    /* the whole variable (1200 deflated chunks) against its sum and a few
     * values `hdp dumpsds -n Elevation -d` prints */
    short *e = malloc(1200 * 1200 * sizeof *e);
    CHECK(e != NULL && nc_get_var_short(ncid, varid, e) == NC_NOERR);
    long long nfill = 0, sum = 0;
    for (size_t i = 0; e && i < 1200 * 1200; i++) {
        if (e[i] == -9999)
            nfill++;
        else
            sum += e[i];
    }
    free(e);
    size_t start[2] = {0, 0}, count[2] = {1, 1};
    short one;
    CHECK(nc_get_vara_short(ncid, varid, start, count, &one) == NC_NOERR);
    printf("Elevation: %lld fill, sum %lld, [0][0] %d\n", nfill, sum, one);
    CHECK(nfill == 130835 && sum == 23 && one == -9999);
    CHECK(nc_close(ncid) == NC_NOERR);
}

/* Opens (and on success reads everything of) a hostile file: any error
 * is fine, a crash or a sanitizer report is not. */
static int
hostile(const char *path, const unsigned char *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (fp == NULL || fwrite(b, 1, n, fp) != n) {
        if (fp)
            fclose(fp);
        return -1;
    }
    fclose(fp);
    int ncid, nvars = 0;
    int stat = nc_open(path, NC_NOWRITE, &ncid);
    if (stat != NC_NOERR)
        return stat;
    nc_inq_nvars(ncid, &nvars);
    for (int v = 0; v < nvars; v++) {
        size_t total = 1, len;
        int nd, dims[NC_MAX_VAR_DIMS];
        nc_inq_varndims(ncid, v, &nd);
        nc_inq_vardimid(ncid, v, dims);
        for (int i = 0; i < nd; i++) {
            nc_inq_dimlen(ncid, dims[i], &len);
            total *= len;
        }
        if (total <= 1 << 20) {
            double *d = malloc(total * sizeof *d + 1);
            if (d) {
                (void)nc_get_var_double(ncid, v, d);
                free(d);
            }
        }
    }
    nc_close(ncid);
    return NC_NOERR;
}

static void
put32(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void
hostiles(const char *src, const char *work)
{
    size_t n;
    unsigned char *b = slurp(src, &n), *c;
    char path[4096];
    CHECK(b != NULL && n > 100);
    if (b == NULL)
        return;
    snprintf(path, sizeof path, "%s/hostile.hdf", work);
    c = malloc(n);
    /* truncated at many lengths (all within the DD block) */
    int errs = 0;
    for (size_t k = 0; k < n; k += k < 300 ? 1 : 13)
        if (hostile(path, b, k) != NC_NOERR)
            errs++;
    CHECK(errs > 0);
    /* a DD offset past the end of the file: NC_EHDFERR */
    memcpy(c, b, n);
    put32(c + 4 + 6 + 4, (unsigned)n + 10);
    CHECK(hostile(path, c, n) == NC_EHDFERR);
    /* a DD block pointing at itself */
    memcpy(c, b, n);
    put32(c + 6, 4);
    CHECK(hostile(path, c, n) == NC_EHDFERR);
    /* a DD count larger than the file */
    memcpy(c, b, n);
    c[4] = 0x7f;
    c[5] = 0xff;
    CHECK(hostile(path, c, n) == NC_EHDFERR);
    /* bytes of the file flipped, or set to 0, in turn: the DD block, the
     * SDD (rank, sizes), NT, vgroups and vdata headers */
    for (size_t k = 4; k < n; k += k < 300 || k > 2400 ? 1 : 7) {
        memcpy(c, b, n);
        c[k] ^= 0xff;
        (void)hostile(path, c, n);
        c[k] = 0x00;
        (void)hostile(path, c, n);
    }
    free(c);
    free(b);
    remove(path);
}

/* The first value of every variable read as double: the first error, or
 * NC_NOERR; an open that fails is its error. */
static int
read_status(const char *path, const unsigned char *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (fp == NULL || fwrite(b, 1, n, fp) != n) {
        if (fp)
            fclose(fp);
        return -1;
    }
    fclose(fp);
    int ncid, nvars = 0, stat = nc_open(path, NC_NOWRITE, &ncid);
    if (stat != NC_NOERR)
        return stat;
    nc_inq_nvars(ncid, &nvars);
    for (int v = 0; v < nvars && stat == NC_NOERR; v++) {
        size_t start[NC_MAX_VAR_DIMS] = {0}, count[NC_MAX_VAR_DIMS];
        int nd = 0;
        double d;
        nc_inq_varndims(ncid, v, &nd);
        for (int i = 0; i < nd; i++)
            count[i] = 1;
        stat = nc_get_vara(ncid, v, start, count, &d);
    }
    nc_close(ncid);
    return stat;
}

static unsigned
get16(const unsigned char *p)
{
    return (unsigned)(p[0] << 8 | p[1]);
}

static unsigned
get32(const unsigned char *p)
{
    return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

/* In an HDF4 file b of n bytes: the offset of the first compressed special
 * element's header (*hoff) and of the descriptor of its stored bytes
 * (*ddoff, 0 when they are not one plain element); 0 when there is no
 * compressed element. */
static int
find_comp(const unsigned char *b, size_t n, size_t *hoff, size_t *ddoff)
{
    size_t blk = 4;
    unsigned cref = 0;
    *hoff = *ddoff = 0;
    for (int pass = 0; pass < 2; pass++, blk = 4) {
        for (int nb = 0; blk != 0 && blk + 6 <= n && nb < 64; nb++) {
            unsigned cnt = get16(b + blk);
            for (unsigned i = 0; i < cnt && blk + 6 + 12 * (i + 1) <= n; i++) {
                const unsigned char *d = b + blk + 6 + 12 * i;
                unsigned tag = get16(d), ref = get16(d + 2), off = get32(d + 4);
                if (pass == 0 && *hoff == 0 && (tag & 0x4000) && off + 14 <= n
                    && get16(b + off) == 3) {
                    *hoff = off;
                    cref = get16(b + off + 8);
                } else if (pass == 1 && tag == 40 && ref == cref) {
                    *ddoff = (size_t)(d - b);
                    return 1;
                }
            }
            blk = get32(b + blk + 2);
        }
    }
    return *hoff != 0;
}

/* Compressed data sets (the fuzz seeds of each coder) made hostile: a
 * decoded size no stream of that size gives, stored bytes cut short,
 * bad coder fields, an unknown coder; then bytes flipped everywhere. */
static void
comp_hostiles(const char *seeds, const char *work)
{
    static const char *names[] = {"h4_rle.hdf", "h4_huff.hdf", "h4_nbit.hdf", "h4_szip.hdf",
                                  "h4_szip_old.hdf", "h4_chunk_rle.hdf"};
    char src[4096], path[4096];
    snprintf(path, sizeof path, "%s/comphostile.hdf", work);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        size_t n, hoff, ddoff;
        snprintf(src, sizeof src, "%s/%s", seeds, names[k]);
        unsigned char *b = slurp(src, &n), *c;
        CHECK(b != NULL);
        if (b == NULL)
            continue;
        if (!find_comp(b, n, &hoff, &ddoff) || read_status(path, b, n) != NC_NOERR) {
            printf("%s: no compressed element, or not read\n", names[k]);
            fails++;
            free(b);
            continue;
        }
        c = malloc(n);
        unsigned code = get16(b + hoff + 12);
        /* a decoded size of 2 GiB from a few bytes: refused before allocating */
        memcpy(c, b, n);
        put32(c + hoff + 4, 0x7ffffff0u);
        CHECK(read_status(path, c, n) == NC_EHDFERR);
        /* the stored stream cut to 2 bytes */
        memcpy(c, b, n);
        if (ddoff != 0) {
            put32(c + ddoff + 8, 2);
            CHECK(read_status(path, c, n) == NC_EHDFERR);
        }
        /* coder fields: skip size 0, an N-bit field of 0 bits, szip of 0
         * bits per pixel */
        memcpy(c, b, n);
        if (code == 3)
            put32(c + hoff + 14, 0);
        else if (code == 2)
            put32(c + hoff + 26, 0);
        else if (code == 5)
            c[hoff + 26] = 0;
        if (code == 2 || code == 3 || code == 5)
            CHECK(read_status(path, c, n) == NC_EHDFERR);
        /* a coder this reader does not know (JPEG's is 7) */
        memcpy(c, b, n);
        c[hoff + 12] = 0;
        c[hoff + 13] = 7;
        int st = read_status(path, c, n);
        if (st != NC_ENOFILTER)
            printf("%s: unknown coder: %d\n", names[k], st);
        CHECK(st == NC_ENOFILTER);
        /* bytes flipped or zeroed across the file: any error, no crash */
        for (size_t i = 4; i < n; i += i < hoff + 40 && i >= hoff ? 1 : 11) {
            memcpy(c, b, n);
            c[i] ^= 0xff;
            (void)hostile(path, c, n);
            c[i] = 0;
            (void)hostile(path, c, n);
        }
        free(c);
        free(b);
    }
    remove(path);
}

int
main(int argc, char **argv)
{
    char p[4096];
    if (argc < 3) {
        fprintf(stderr, "usage: tst_h4read DATADIR WORKDIR [SEEDDIR]\n");
        return 2;
    }
    snprintf(p, sizeof p, "%s/ref_contiguous.hdf4", argv[1]);
    FILE *probe = fopen(p, "rb");
    if (probe == NULL) {
        printf("SKIP: no %s\n", p);
        return 77;
    }
    fclose(probe);
    contiguous(p);
    enhanced_calls(p);
    hostiles(p, argv[2]);
    snprintf(p, sizeof p, "%s/ref_chunked.hdf4", argv[1]);
    chunked(p);
    if (argc > 3)
        comp_hostiles(argv[3], argv[2]);
    if (fails)
        fprintf(stderr, "%d checks failed\n", fails);
    else
        printf("all passed\n");
    return fails ? 1 : 0;
}
