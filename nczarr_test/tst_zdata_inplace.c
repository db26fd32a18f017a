/* tst_zdata_inplace.c: parts of uncompressed chunks written into their
 * files in place on a directory store, against the cache path.
 *   bytes    the same writes (rows, strided rows and columns, single
 *            elements, zeros, overwrites, edge chunks) go to variables that
 *            take the in-place path (NOFILL; fill value 0) and ones that do
 *            not (fill value 7; big-endian); every chunk file holds exactly
 *            the bytes a model computed here expects, and a chunk of fill
 *            is not stored (unless NOFILL).  A NOFILL part is in its file
 *            as soon as nc_put_vara returns.
 *   reads    a chunk read before a write of part of it reads the new
 *            values after (same handle, and after reopening); a chunk the
 *            cache holds (a strided write) takes the cache path for the
 *            next part, so nothing goes stale.
 *   link     a chunk file with a second name (hard link) is not written in
 *            place: the other name keeps its bytes.
 *   fail     a write past RLIMIT_FSIZE (in a child) is NC_EIO, with no
 *            chunk and no temporary left for a new chunk.
 * Usage: tst_zdata_inplace DIR MODE (MODE: zarr,file | nczarr,file | zarr,v3,file) */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "netcdf.h"
#include "nctst.h"

#define NY 10
#define NX 7
#define CY 4
#define CX 3
#define GY ((NY + CY - 1) / CY)
#define GX ((NX + CX - 1) / CX)

enum { V_NOFILL, V_ZERO, V_FILL, V_BIG, NVARS };
static const char *names[NVARS] = {"nofill", "zero", "fill", "big"};
static const int fills[NVARS] = {0, 0, 7, 0};

static const char *dir, *mode;
static int v3;
static char store[4096];

/* The model: every chunk's elements (edges included), and whether a write
 * touched it. */
static int model[NVARS][GY][GX][CY * CX];
static int touched[NVARS][GY][GX];

static void
chunk_path(const char *var, int cy, int cx, char *p, size_t n)
{
    if (v3)
        snprintf(p, n, "%s/%s/c/%d/%d", store, var, cy, cx);
    else
        snprintf(p, n, "%s/%s/%d.%d", store, var, cy, cx);
}

static void
model_init(void)
{
    for (int v = 0; v < NVARS; v++)
        for (int cy = 0; cy < GY; cy++)
            for (int cx = 0; cx < GX; cx++) {
                touched[v][cy][cx] = 0;
                for (int i = 0; i < CY * CX; i++)
                    model[v][cy][cx][i] = fills[v];
            }
}

static int
model_get(int v, size_t y, size_t x)
{
    return model[v][y / CY][x / CX][(y % CY) * CX + x % CX];
}

/* Write st/ct/sd of values base+i to every variable, and to the model. */
static void
put_all(int ncid, const int *varids, size_t y0, size_t x0, size_t ny, size_t nx, ptrdiff_t sy, ptrdiff_t sx,
        int base)
{
    size_t st[2] = {y0, x0}, ct[2] = {ny, nx};
    ptrdiff_t sd[2] = {sy, sx};
    int buf[NY * NX];
    for (size_t i = 0; i < ny * nx; i++)
        buf[i] = base == 0 ? 0 : base + (int)i;
    for (int v = 0; v < NVARS; v++) {
        OK(nc_put_vars_int(ncid, varids[v], st, ct, sd, buf));
        for (size_t a = 0; a < ny; a++)
            for (size_t b = 0; b < nx; b++) {
                size_t y = y0 + a * (size_t)sy, x = x0 + b * (size_t)sx;
                model[v][y / CY][x / CX][(y % CY) * CX + x % CX] = buf[a * nx + b];
                touched[v][y / CY][x / CX] = 1;
            }
    }
}

/* The chunk files of variable v hold the model's bytes (little-endian, or
 * big-endian for V_BIG); absent exactly when the model says so. */
static void
check_files(int v, const char *when)
{
    for (int cy = 0; cy < GY; cy++)
        for (int cx = 0; cx < GX; cx++) {
            char p[4200];
            size_t len = 0;
            unsigned char *got, want[CY * CX * 4];
            int allfill = 1, expect;
            for (int i = 0; i < CY * CX; i++) {
                uint32_t u = (uint32_t)model[v][cy][cx][i];
                allfill &= model[v][cy][cx][i] == fills[v];
                for (int b = 0; b < 4; b++)
                    want[i * 4 + b] = (unsigned char)(u >> (v == V_BIG ? 24 - 8 * b : 8 * b));
            }
            expect = v == V_NOFILL || v == V_BIG ? touched[v][cy][cx] : !allfill;
            chunk_path(names[v], cy, cx, p, sizeof p);
            got = nct_slurp(p, &len);
            CHECK((got != NULL) == expect, "%s %s: chunk %d.%d %s", when, names[v], cy, cx,
                  expect ? "stored" : "not stored");
            if (got && expect)
                CHECK(len == sizeof want && memcmp(got, want, sizeof want) == 0, "%s %s: chunk %d.%d bytes", when,
                      names[v], cy, cx);
            free(got);
        }
}

/* The whole variable reads back as the model. */
static void
check_read(int ncid, int varid, int v, const char *when)
{
    int back[NY][NX], bad = 0;
    OK(nc_get_var_int(ncid, varid, &back[0][0]));
    for (size_t y = 0; y < NY && !bad; y++)
        for (size_t x = 0; x < NX && !bad; x++)
            if (back[y][x] != model_get(v, y, x)) {
                CHECK(0, "%s %s: [%zu][%zu] reads %d, not %d", when, names[v], y, x, back[y][x], model_get(v, y, x));
                bad = 1;
            }
}

static void
define(int ncid, int *varids, size_t cy, size_t cx)
{
    int dims[2];
    size_t ch[2] = {cy, cx};
    MUST(nc_def_dim(ncid, "y", NY, &dims[0]));
    MUST(nc_def_dim(ncid, "x", NX, &dims[1]));
    for (int v = 0; v < NVARS; v++) {
        MUST(nc_def_var(ncid, names[v], NC_INT, 2, dims, &varids[v]));
        MUST(nc_def_var_chunking(ncid, varids[v], NC_CHUNKED, ch));
        if (v == V_NOFILL || v == V_BIG)
            MUST(nc_def_var_fill(ncid, varids[v], NC_NOFILL, NULL));
        else
            MUST(nc_def_var_fill(ncid, varids[v], NC_FILL, &fills[v]));
        if (v == V_BIG)
            MUST(nc_def_var_endian(ncid, varids[v], NC_ENDIAN_BIG));
    }
}

static void
test_bytes(void)
{
    char url[4400];
    int ncid, varids[NVARS];
    snprintf(store, sizeof store, "%s/inplace_%s.zarr", dir, v3 ? "v3" : mode[0] == 'n' ? "nczarr" : "v2");
    snprintf(url, sizeof url, "file://%s#mode=%s", store, mode);
    model_init();
    MUST(nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid));
    define(ncid, varids, CY, CX);
    MUST(nc_enddef(ncid));
    /* Rows across every chunk column (edge chunk included). */
    put_all(ncid, varids, 1, 0, 2, NX, 1, 1, 100);
    /* In its file at once: no cache between the write and the store. */
    {
        char p[4200];
        size_t len = 0;
        unsigned char *got;
        chunk_path(names[V_NOFILL], 0, 2, p, sizeof p);
        got = nct_slurp(p, &len);
        CHECK(got != NULL && len == CY * CX * 4, "a NOFILL part is in its chunk file when the put returns");
        if (got && len == CY * CX * 4)
            CHECK(memcmp(got + (1 * CX) * 4, &model[V_NOFILL][0][2][CX], 4) == 0 &&
                      got[(0 * CX) * 4] == 0 && got[(3 * CX + 2) * 4] == 0,
                  "written bytes in place, zeros around them");
        free(got);
    }
    for (int v = 0; v < NVARS; v++)
        check_read(ncid, varids[v], v, "rows");
    /* Strided rows (each row a run), strided columns (cache path), a
     * single element of the corner chunk, zeros into an untouched chunk,
     * an overwrite of part of a stored chunk. */
    put_all(ncid, varids, 4, 0, 2, 5, 3, 1, 200);
    put_all(ncid, varids, 4, 1, 3, 3, 2, 2, 300);
    put_all(ncid, varids, 9, 6, 1, 1, 1, 1, 400);
    put_all(ncid, varids, 8, 0, 1, 3, 1, 1, 0);
    put_all(ncid, varids, 1, 1, 1, 2, 1, 1, 500);
    /* Chunk 1.1 is in the cache now (strided columns, fill variables):
     * a row over it and its neighbours takes the cache path there. */
    put_all(ncid, varids, 5, 2, 1, 5, 1, 1, 600);
    for (int v = 0; v < NVARS; v++)
        check_read(ncid, varids[v], v, "mixed");
    MUST(nc_close(ncid));
    for (int v = 0; v < NVARS; v++)
        check_files(v, "closed");
    /* Reopened: read, write part of a stored chunk, read again. */
    MUST(nc_open(url, NC_WRITE, &ncid));
    for (int v = 0; v < NVARS; v++) {
        MUST(nc_inq_varid(ncid, names[v], &varids[v]));
        check_read(ncid, varids[v], v, "reopened");
    }
    put_all(ncid, varids, 2, 2, 2, 3, 1, 1, 700);
    put_all(ncid, varids, 8, 1, 2, 2, 1, 1, 0);
    for (int v = 0; v < NVARS; v++)
        check_read(ncid, varids[v], v, "read after write");
    MUST(nc_close(ncid));
    for (int v = 0; v < NVARS; v++)
        check_files(v, "rewritten");
    MUST(nc_open(url, NC_NOWRITE, &ncid));
    for (int v = 0; v < NVARS; v++) {
        MUST(nc_inq_varid(ncid, names[v], &varids[v]));
        check_read(ncid, varids[v], v, "final");
    }
    MUST(nc_close(ncid));
}

/* A chunk file with a second name is replaced, not written through. */
static void
test_link(void)
{
    char url[4400], p[4200], other[4200];
    int ncid, varids[NVARS];
    size_t len = 0;
    unsigned char *before, *after, *mine;
    snprintf(url, sizeof url, "file://%s#mode=%s", store, mode);
    chunk_path(names[V_NOFILL], 0, 0, p, sizeof p);
    snprintf(other, sizeof other, "%s/inplace_link_%s", dir, v3 ? "v3" : mode[0] == 'n' ? "nczarr" : "v2");
    unlink(other);
    MUST(link(p, other) == 0 ? NC_NOERR : NC_EIO);
    before = nct_slurp(other, &len);
    MUST(nc_open(url, NC_WRITE, &ncid));
    for (int v = 0; v < NVARS; v++)
        MUST(nc_inq_varid(ncid, names[v], &varids[v]));
    put_all(ncid, varids, 0, 0, 1, 3, 1, 1, 800);
    MUST(nc_close(ncid));
    after = nct_slurp(other, &len);
    mine = nct_slurp(p, &len);
    CHECK(before && after && memcmp(before, after, CY * CX * 4) == 0, "the other name keeps its bytes");
    CHECK(mine && memcmp(mine, &model[V_NOFILL][0][0][0], CY * CX * 4) == 0, "the chunk holds the write");
    free(before);
    free(after);
    free(mine);
    unlink(other);
}

static int ntmp;

static int
count_tmp(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    ntmp += strstr(path + ftw->base, ".ncz-tmp.") != NULL;
    return 0;
}

/* In a child limited to 64 KiB files: a new chunk of 128 KiB fails clean,
 * and a write past the limit into an existing one is an error. */
static void
test_fail(void)
{
    char url[4400], p[4200], fstore[sizeof store];
    pid_t pid;
    int status;
    snprintf(fstore, sizeof fstore, "%s/inplace_fail_%s.zarr", dir, v3 ? "v3" : mode[0] == 'n' ? "nczarr" : "v2");
    snprintf(url, sizeof url, "file://%s#mode=%s", fstore, mode);
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        int ncid, dims[2], v, buf[256] = {1};
        size_t ch[2] = {128, 256}, st[2] = {0, 0}, ct[2] = {1, 256};
        struct rlimit rl = {65536, 65536};
        int e1, e2;
        signal(SIGXFSZ, SIG_IGN);
        if (nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid) || nc_def_dim(ncid, "y", 256, &dims[0]) ||
            nc_def_dim(ncid, "x", 256, &dims[1]) || nc_def_var(ncid, "v", NC_INT, 2, dims, &v) ||
            nc_def_var_chunking(ncid, v, NC_CHUNKED, ch) || nc_def_var_fill(ncid, v, NC_NOFILL, NULL) ||
            nc_enddef(ncid))
            _exit(2);
        /* Chunk 1.0 exists (made before the limit), 0.0 does not. */
        st[0] = 128;
        if (nc_put_vara_int(ncid, v, st, ct, buf))
            _exit(3);
        if (setrlimit(RLIMIT_FSIZE, &rl))
            _exit(4);
        st[0] = 0;
        e1 = nc_put_vara_int(ncid, v, st, ct, buf);
        st[0] = 255;
        e2 = nc_put_vara_int(ncid, v, st, ct, buf);
        snprintf(store, sizeof store, "%s", fstore);
        ntmp = 0;
        nftw(fstore, count_tmp, 16, FTW_PHYS);
        chunk_path("v", 0, 0, p, sizeof p);
        printf("fail: new chunk %d, existing chunk %d, new chunk file %s, %d temporaries\n", e1, e2,
               access(p, F_OK) == 0 ? "present" : "absent", ntmp);
        fflush(stdout);
        _exit(e1 == NC_EIO && e2 == NC_EIO && access(p, F_OK) != 0 && ntmp == 0 ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "a write past the file size limit fails clean");
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tst_zdata_inplace DIR MODE\n");
        return 2;
    }
    dir = argv[1];
    mode = argv[2];
    v3 = strstr(mode, "v3") != NULL;
    test_bytes();
    test_link();
    test_fail();
    return nct_summary("tst_zdata_inplace");
}
