/* tst_pipeline: the parallel chunk pipeline (libhdf5/hdf5chunk.c) returns
 * and writes exactly what HDF5's own pipeline does.
 *
 * NETCDF_FILTER_PIPELINE=0 sends data calls to HDF5's pipeline; it is read
 * on every call, so one process writes each file twice (pipeline on, off)
 * and reads each both ways.  Every codec this build has, every atomic type,
 * chunk shapes with partial edge chunks, chunks larger than the variable
 * (along an unlimited dimension) and 1-element chunks; full, strided, partial and single-element
 * selections; chunks never written (fill value); writes that cover chunks
 * partly (read-modify-write) mixed with ones HDF5 takes; conversion with
 * NC_ERANGE; a corrupted fletcher32 chunk.
 *
 * usage: tst_pipeline [DIR]   (files are left in DIR for the reference
 * tools when NCT_KEEP is set). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_mem.h>
#include "nctst.h"

#define NY 37
#define NX 23
#define NTYPES 11

static const nc_type types[NTYPES] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE,
                                      NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64};
static const size_t tsize[NTYPES] = {1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
static const size_t shapes[][2] = {{8, 5}, {64, 23}, {1, 1}, {37, 23}};
#define NSHAPES 4

enum { C_DEFLATE, C_SHUF_DEFLATE, C_FLETCHER, C_FLET_SHUF_DEFLATE, C_ZSTD, C_SHUF_ZSTD, C_BZIP2,
       C_BLOSC, C_SZIP, NCODECS };
static const char *cname[NCODECS] = {"deflate", "shuffle_deflate", "fletcher32", "fletcher32_shuffle_deflate",
                                     "zstd", "shuffle_zstd", "bzip2", "blosc", "szip"};
static const unsigned cid[NCODECS] = {1, 1, 3, 1, 32015, 32015, 307, 32001, 4};

static const char *dir = ".";

static void
pipeline(int on)
{
    setenv("NETCDF_FILTER_PIPELINE", on ? "1" : "0", 1);
}

/* Set element i of buf (type index t) from an integer value. */
static void
setval(int t, void *buf, size_t i, long v)
{
    switch (types[t]) {
    case NC_BYTE: ((signed char *)buf)[i] = (signed char)v; break;
    case NC_CHAR: ((char *)buf)[i] = (char)('a' + v % 26); break;
    case NC_SHORT: ((short *)buf)[i] = (short)(v * 31); break;
    case NC_INT: ((int *)buf)[i] = (int)(v * 100003); break;
    case NC_FLOAT: ((float *)buf)[i] = (float)v + 0.25f; break;
    case NC_DOUBLE: ((double *)buf)[i] = (double)v * 1.5e10; break;
    case NC_UBYTE: ((unsigned char *)buf)[i] = (unsigned char)v; break;
    case NC_USHORT: ((unsigned short *)buf)[i] = (unsigned short)(v * 601); break;
    case NC_UINT: ((unsigned *)buf)[i] = (unsigned)v * 40000001u; break;
    case NC_INT64: ((long long *)buf)[i] = (long long)v * 90000000000LL; break;
    case NC_UINT64: ((unsigned long long *)buf)[i] = (unsigned long long)v * 180000000000ULL; break;
    }
}

static int
def_codec(int ncid, int varid, int c)
{
    switch (c) {
    case C_DEFLATE: return nc_def_var_deflate(ncid, varid, 0, 1, 1);
    case C_SHUF_DEFLATE: return nc_def_var_deflate(ncid, varid, 1, 1, 4);
    case C_FLETCHER: return nc_def_var_fletcher32(ncid, varid, 1);
    case C_FLET_SHUF_DEFLATE: {
        int s = nc_def_var_fletcher32(ncid, varid, 1);
        return s ? s : nc_def_var_deflate(ncid, varid, 1, 1, 1);
    }
    case C_ZSTD: return nc_def_var_zstandard(ncid, varid, 3);
    case C_SHUF_ZSTD: {
        int s = nc_def_var_deflate(ncid, varid, 1, 0, 0);
        return s ? s : nc_def_var_zstandard(ncid, varid, 1);
    }
    case C_BZIP2: return nc_def_var_bzip2(ncid, varid, 9);
    case C_BLOSC: return nc_def_var_blosc(ncid, varid, 1 /* lz4 */, 5, 0, 1);
    case C_SZIP: return nc_def_var_szip(ncid, varid, NC_SZIP_NN, 4);
    }
    return NC_EINVAL;
}

/* The expected contents of each variable, fill values where unwritten. */
static unsigned char *expect[NTYPES][NSHAPES];
static int have[NTYPES][NSHAPES];

/* Write file `path` for codec c with the pipeline on or off. */
static void
write_file(const char *path, int c, int on)
{
    int ncid, dims[2], varid;
    size_t big = (size_t)NY * NX * 8;
    unsigned char *buf = malloc(big), *buf2 = malloc(big);
    pipeline(on);
    MUST(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "y", NC_UNLIMITED, &dims[0])); /* chunks may be longer */
    MUST(nc_def_dim(ncid, "x", NX, &dims[1]));
    for (int t = 0; t < NTYPES; t++)
        for (int s = 0; s < NSHAPES; s++) {
            char name[32];
            snprintf(name, sizeof name, "v%d_%d", t, s);
            MUST(nc_def_var(ncid, name, types[t], 2, dims, &varid));
            MUST(nc_def_var_chunking(ncid, varid, NC_CHUNKED, shapes[s]));
            /* szip: HDF5 refuses samples over 32 bits and blocks larger
             * than a chunk, and strings. */
            /* 1-element chunks cost a chunk per value: two types are enough. */
            have[t][s] = !(s == 2 && types[t] != NC_BYTE && types[t] != NC_DOUBLE) &&
                         !(c == C_SZIP && (shapes[s][0] * shapes[s][1] < 32 || tsize[t] > 4 || types[t] == NC_CHAR)) &&
                         def_codec(ncid, varid, c) == NC_NOERR;
            if (!have[t][s])
                continue;
            if (expect[t][s] == NULL) {
                /* The fill value, everywhere, then the writes below. */
                unsigned char fill[8];
                MUST(nc_inq_var_fill(ncid, varid, NULL, fill));
                expect[t][s] = malloc(big);
                for (size_t i = 0; i < (size_t)NY * NX; i++)
                    memcpy(expect[t][s] + i * tsize[t], fill, tsize[t]);
            }
        }
    MUST(nc_enddef(ncid));
    for (int t = 0; t < NTYPES; t++)
        for (int s = 0; s < NSHAPES; s++) {
            size_t z = tsize[t];
            unsigned char *e = expect[t][s];
            varid = t * NSHAPES + s;
            if (!have[t][s])
                continue;
            /* Rows 0..19: whole chunks and a partly covered row of chunks
             * (rows 16..23 in 8-row chunks), never written before. */
            size_t st[2] = {0, 0}, ct[2] = {20, NX};
            for (size_t i = 0; i < 20 * NX; i++) {
                setval(t, buf, i, (long)(i * 7 + (size_t)varid) % 97);
                memcpy(e + i * z, buf + i * z, z);
            }
            OK(nc_put_vara(ncid, varid, st, ct, buf));
            /* A strided overwrite (read-modify-write of allocated chunks). */
            size_t st2[2] = {1, 1}, ct2[2] = {6, 10};
            ptrdiff_t sd2[2] = {3, 2};
            for (size_t i = 0; i < 60; i++) {
                size_t y = 1 + (i / 10) * 3, x = 1 + (i % 10) * 2;
                setval(t, buf2, i, (long)(100 - i));
                memcpy(e + (y * NX + x) * z, buf2 + i * z, z);
            }
            OK(nc_put_vars(ncid, varid, st2, ct2, sd2, buf2));
            /* One value far away: HDF5's path (too sparse for the pipeline). */
            size_t p1[2] = {NY - 1, 22};
            setval(t, buf2, 0, 42);
            memcpy(e + ((NY - 1) * NX + 22) * z, buf2, z);
            OK(nc_put_var1(ncid, varid, p1, buf2));
            /* A box that straddles chunk edges in both dimensions. */
            size_t st3[2] = {21, 3}, ct3[2] = {14, 17};
            for (size_t i = 0; i < 14 * 17; i++) {
                size_t y = 21 + i / 17, x = 3 + i % 17;
                setval(t, buf2, i, (long)(i % 50));
                memcpy(e + (y * NX + x) * z, buf2 + i * z, z);
            }
            OK(nc_put_vara(ncid, varid, st3, ct3, buf2));
        }
    OK(nc_close(ncid));
    free(buf);
    free(buf2);
}

/* Read path both ways and compare with the expected values. */
static void
check_file(const char *path, int c, const char *what)
{
    int ncid;
    size_t big = (size_t)NY * NX * 8;
    unsigned char *got = malloc(big), *sub = malloc(big);
    for (int on = 0; on < 2; on++) {
        pipeline(on);
        MUST(nc_open(path, NC_NOWRITE, &ncid));
        for (int t = 0; t < NTYPES; t++)
            for (int s = 0; s < NSHAPES; s++) {
                int varid = t * NSHAPES + s;
                size_t z = tsize[t];
                const unsigned char *e = expect[t][s];
                if (!have[t][s])
                    continue;
                memset(got, 0xEE, big);
                OK(nc_get_var(ncid, varid, got));
                CHECK(memcmp(got, e, (size_t)NY * NX * z) == 0, "%s %s pipeline=%d var %d: whole read differs",
                      cname[c], what, on, varid);
                /* Strided. */
                size_t st[2] = {1, 0}, ct[2] = {18, 8}, n = 0;
                ptrdiff_t sd[2] = {2, 3};
                OK(nc_get_vars(ncid, varid, st, ct, sd, got));
                for (size_t y = 0; y < 18; y++)
                    for (size_t x = 0; x < 8; x++, n++)
                        memcpy(sub + n * z, e + ((1 + 2 * y) * NX + 3 * x) * z, z);
                CHECK(memcmp(got, sub, n * z) == 0, "%s %s pipeline=%d var %d: strided read differs", cname[c],
                      what, on, varid);
                /* A box. */
                size_t st2[2] = {5, 5}, ct2[2] = {20, 10};
                n = 0;
                OK(nc_get_vara(ncid, varid, st2, ct2, got));
                for (size_t y = 0; y < 20; y++)
                    for (size_t x = 0; x < 10; x++, n++)
                        memcpy(sub + n * z, e + ((5 + y) * NX + 5 + x) * z, z);
                CHECK(memcmp(got, sub, n * z) == 0, "%s %s pipeline=%d var %d: box read differs", cname[c], what,
                      on, varid);
                /* One value in a chunk never written. */
                size_t p1[2] = {36, 0};
                OK(nc_get_var1(ncid, varid, p1, got));
                CHECK(memcmp(got, e + (36 * NX) * z, z) == 0, "%s %s pipeline=%d var %d: fill differs", cname[c],
                      what, on, varid);
                /* Conversion with NC_ERANGE: both paths agree. */
                if (types[t] == NC_INT || types[t] == NC_DOUBLE || types[t] == NC_USHORT) {
                    signed char sc[2][NY * NX];
                    int r[2];
                    for (int k = 0; k < 2; k++) {
                        pipeline(k);
                        r[k] = nc_get_var_schar(ncid, varid, sc[k]);
                    }
                    pipeline(on);
                    CHECK(r[0] == r[1] && r[0] == NC_ERANGE, "%s var %d: schar read gives %d / %d", cname[c],
                          varid, r[0], r[1]);
                    CHECK(memcmp(sc[0], sc[1], sizeof sc[0]) == 0, "%s var %d: converted values differ",
                          cname[c], varid);
                }
            }
        OK(nc_close(ncid));
    }
    free(got);
    free(sub);
}

/* Flip one byte of the stored data of the second chunk: both paths must
 * refuse the chunk (HDF5's read error, NC_EHDFERR as upstream), and still
 * read the intact chunk. */
static void
fletcher_corruption(void)
{
    char path[4200];
    int ncid, dim, varid, vals[1000], got[1000];
    size_t chunk = 100, st = 0, ct = 100;
    snprintf(path, sizeof path, "%s/pipe_fletcher.nc", dir);
    for (int i = 0; i < 1000; i++)
        vals[i] = 0x5A5A0000 + i;
    pipeline(1);
    MUST(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 1000, &dim));
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &dim, &varid));
    MUST(nc_def_var_chunking(ncid, varid, NC_CHUNKED, &chunk));
    MUST(nc_def_var_fletcher32(ncid, varid, 1));
    MUST(nc_put_var_int(ncid, varid, vals));
    MUST(nc_close(ncid));
    FILE *fp = fopen(path, "r+b");
    CHECK(fp != NULL, "reopen %s", path);
    if (!fp)
        return;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    unsigned char *img = malloc((size_t)len);
    fseek(fp, 0, SEEK_SET);
    CHECK(fread(img, 1, (size_t)len, fp) == (size_t)len, "read image");
    long at = -1;
    for (long i = 0; i + 4 <= len && at < 0; i++)
        if (memcmp(img + i, &vals[150], 4) == 0)
            at = i;
    CHECK(at >= 0, "value 150 not found in the file");
    if (at >= 0) {
        img[at] ^= 0x10;
        fseek(fp, at, SEEK_SET);
        fwrite(img + at, 1, 1, fp);
    }
    fclose(fp);
    free(img);
    for (int on = 0; on < 2; on++) {
        pipeline(on);
        MUST(nc_open(path, NC_NOWRITE, &ncid));
        EXPECT(nc_get_var_int(ncid, 0, got), NC_EHDFERR);
        OK(nc_get_vara_int(ncid, 0, &st, &ct, got));
        CHECK(memcmp(got, vals, sizeof(int) * 100) == 0, "pipeline=%d: intact chunk differs", on);
        OK(nc_close(ncid));
    }
}

int
main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    for (int c = 0; c < NCODECS; c++) {
        char p0[4200], p1[4200];
        int ncid;
        /* Skip codecs this build lacks (szip without libaec, ...). */
        if (nc_create_mem("probe", NC_NETCDF4, 0, &ncid)) {
            CHECK(0, "nc_create_mem");
            break;
        }
        int avail = nc_inq_filter_avail(ncid, cid[c]) == NC_NOERR;
        nc_abort(ncid);
        if (!avail) {
            printf("tst_pipeline: %s not available, skipped\n", cname[c]);
            continue;
        }
        printf("tst_pipeline: %s\n", cname[c]);
        snprintf(p0, sizeof p0, "%s/pipe_%s_hdf5.nc", dir, cname[c]);
        snprintf(p1, sizeof p1, "%s/pipe_%s_ours.nc", dir, cname[c]);
        write_file(p0, c, 0);
        write_file(p1, c, 1);
        check_file(p0, c, "hdf5-written");
        check_file(p1, c, "pipeline-written");
        for (int t = 0; t < NTYPES; t++)
            for (int s = 0; s < NSHAPES; s++) {
                free(expect[t][s]);
                expect[t][s] = NULL;
            }
        if (!getenv("NCT_KEEP")) {
            remove(p0);
            remove(p1);
        }
    }
    fletcher_corruption();
    return nct_summary("tst_pipeline");
}
