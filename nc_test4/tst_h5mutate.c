/* tst_h5mutate: a deterministic mutation campaign on netCDF-4 files.
 * Three seed files are written (groups, attributes, strings; user types
 * with data; filtered and chunked variables), then N mutants are made from
 * them (seeded byte changes, or a truncation) and each is opened and dumped
 * (every group, dimension, attribute and variable; data read) by both
 * readers -- the native metadata reader and HDF5 -- and through both open
 * paths -- the file and nc_open_mem -- in a child process with a time
 * limit.  Any crash, hang or sanitizer report (the child dies) fails
 * the test; error codes are fine.  Usage: tst_h5mutate [N [first]]. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netcdf.h>
#include <netcdf_mem.h>
#include "nctst.h"

#define NSEED 3
static const char *seeds[NSEED] = {"tst_h5mutate_s0.nc", "tst_h5mutate_s1.nc",
                                   "tst_h5mutate_s2.nc"};
static const char *mutant = "tst_h5mutate_m.nc";

static int
seed_groups(const char *path)
{
    int ncid, g1, g2, d[3], v, sv;
    const char *str[3] = {"alpha", "", "a longer string value"};
    double dv[6] = {1, 2, 3, 4, 5, 6};
    int st = nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid);
    if (st) return st;
    nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "seeds");
    nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]);
    nc_def_dim(ncid, "x", 3, &d[1]);
    nc_def_grp(ncid, "g1", &g1);
    nc_def_grp(g1, "g2", &g2);
    nc_def_dim(g1, "y", 2, &d[2]);
    nc_def_var(ncid, "x", NC_INT, 1, &d[1], &v);
    nc_def_var(g1, "v", NC_DOUBLE, 2, (int[]){d[2], d[1]}, &v);
    nc_put_att_double(g1, v, "scale", NC_DOUBLE, 1, dv);
    nc_put_att_string(g1, v, "names", 3, str);
    nc_def_var(g2, "s", NC_STRING, 1, &d[1], &sv);
    nc_def_var(ncid, "rec", NC_FLOAT, 2, (int[]){d[0], d[1]}, &v);
    nc_enddef(ncid);
    nc_put_var_double(g1, 0, dv);
    nc_put_var_string(g2, sv, str);
    for (size_t r = 0; r < 4; r++) {
        float f[3] = {(float)r, 1, 2};
        size_t start[2] = {r, 0}, count[2] = {1, 3};
        nc_put_vara_float(ncid, v, start, count, f);
    }
    return nc_close(ncid);
}

static int
seed_types(const char *path)
{
    int ncid, d, v, cmp, vl, en, op;
    struct { int i; double x; } c[2] = {{1, 2.5}, {3, 4.5}};
    int a1[2] = {1, 2}, a2[1] = {3};
    nc_vlen_t vv[2] = {{2, a1}, {1, a2}};
    signed char e[16] = {0, 1}, one = 1;
    unsigned char o[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
    int st = nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid);
    if (st) return st;
    nc_def_dim(ncid, "n", 2, &d);
    nc_def_compound(ncid, 16, "cmp", &cmp);
    nc_insert_compound(ncid, cmp, "i", 0, NC_INT);
    nc_insert_compound(ncid, cmp, "x", 8, NC_DOUBLE);
    nc_def_vlen(ncid, "vl", NC_INT, &vl);
    nc_def_enum(ncid, NC_BYTE, "en", &en);
    nc_insert_enum(ncid, en, "zero", &e[0]);
    nc_insert_enum(ncid, en, "one", &one);
    nc_def_opaque(ncid, 4, "op", &op);
    nc_def_var(ncid, "c", cmp, 1, &d, &v);
    nc_def_var(ncid, "vl", vl, 1, &d, &v);
    nc_def_var(ncid, "e", en, 1, &d, &v);
    nc_def_var(ncid, "o", op, 1, &d, &v);
    nc_put_att(ncid, NC_GLOBAL, "catt", cmp, 1, c);
    nc_put_att(ncid, NC_GLOBAL, "vatt", vl, 2, vv);
    nc_enddef(ncid);
    nc_put_var(ncid, 0, c);
    nc_put_var(ncid, 1, vv);
    nc_put_var(ncid, 2, e);
    nc_put_var(ncid, 3, o);
    return nc_close(ncid);
}

static int
seed_filters(const char *path)
{
    int ncid, d[2], v, w;
    size_t ch[2] = {8, 16};
    static float data[64 * 64];
    for (int i = 0; i < 64 * 64; i++)
        data[i] = (float)(i % 91) * 0.5f;
    int st = nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid);
    if (st) return st;
    nc_def_dim(ncid, "y", 64, &d[0]);
    nc_def_dim(ncid, "x", 64, &d[1]);
    nc_def_var(ncid, "v", NC_FLOAT, 2, d, &v);
    nc_def_var_chunking(ncid, v, NC_CHUNKED, ch);
    nc_def_var_deflate(ncid, v, 1, 1, 4);
    nc_def_var_fletcher32(ncid, v, 1);
    nc_def_var(ncid, "w", NC_FLOAT, 2, d, &w);
    nc_def_var_chunking(ncid, w, NC_CHUNKED, ch);
    nc_def_var_deflate(ncid, w, 0, 1, 1);
    nc_enddef(ncid);
    nc_put_var_float(ncid, v, data);
    nc_put_var_float(ncid, w, data);
    return nc_close(ncid);
}

/* Everything in group grp, data included (bounded). */
static void
dump_group(int grp, int depth)
{
    int nvars = 0, natts = 0, ngrps = 0, grps[64];
    if (depth > 8)
        return;
    nc_inq_varids(grp, &nvars, NULL);
    for (int v = -1; v < nvars; v++) {
        natts = 0;
        if (nc_inq_varnatts(grp, v, &natts))
            continue;
        for (int a = 0; a < natts && a < 64; a++) {
            char name[NC_MAX_NAME + 1];
            nc_type t;
            size_t len, tsize = 0;
            if (nc_inq_attname(grp, v, a, name) || nc_inq_att(grp, v, name, &t, &len) ||
                nc_inq_type(grp, t, NULL, &tsize) || tsize == 0 || len > (1 << 20) / tsize)
                continue;
            void *buf = calloc(len ? len : 1, tsize);
            if (buf && nc_get_att(grp, v, name, buf) == NC_NOERR)
                nc_reclaim_data(grp, t, buf, len);
            free(buf);
        }
        if (v < 0)
            continue;
        nc_type t;
        int ndims, dimids[NC_MAX_VAR_DIMS];
        size_t n = 1, tsize = 0;
        if (nc_inq_var(grp, v, NULL, &t, &ndims, dimids, NULL) || ndims > NC_MAX_VAR_DIMS ||
            nc_inq_type(grp, t, NULL, &tsize) || tsize == 0)
            continue;
        for (int d = 0; d < ndims; d++) {
            size_t len = 0;
            if (nc_inq_dimlen(grp, dimids[d], &len) || (len && n > ((size_t)1 << 22) / len)) {
                n = 0;
                break;
            }
            n *= len;
        }
        if (n == 0 || n > ((size_t)16 << 20) / tsize)
            continue;
        int storage;
        size_t chunks[NC_MAX_VAR_DIMS];
        nc_inq_var_chunking(grp, v, &storage, chunks);
        void *buf = calloc(n, tsize);
        if (buf && nc_get_var(grp, v, buf) == NC_NOERR)
            nc_reclaim_data(grp, t, buf, n);
        if (buf && ndims > 0) {
            size_t idx[NC_MAX_VAR_DIMS] = {0};
            if (nc_get_var1(grp, v, idx, buf) == NC_NOERR)
                nc_reclaim_data(grp, t, buf, 1);
        }
        free(buf);
    }
    if (nc_inq_grps(grp, &ngrps, NULL) == NC_NOERR && ngrps > 0 && ngrps <= 64 &&
        nc_inq_grps(grp, NULL, grps) == NC_NOERR)
        for (int i = 0; i < ngrps; i++)
            dump_group(grps[i], depth + 1);
}

/* Both open paths: the file (native reader, then HDF5) and its image in
 * memory (nc_open_mem: HDF5). */
static void
child(const unsigned char *img, size_t len)
{
    alarm(60);
    for (int way = 0; way < 3; way++) {
        int ncid, st;
        setenv("NETCDF_HDF5_NATIVE_OPEN", way ? "0" : "1", 1);
        if (way < 2) {
            st = nc_open(mutant, NC_NOWRITE, &ncid);
        } else {
            void *copy = malloc(len);
            if (copy == NULL)
                _exit(0);
            memcpy(copy, img, len);
            st = nc_open_mem(mutant, NC_NOWRITE, len, copy, &ncid);
            if (st != NC_NOERR)
                free(copy);
            else
                img = copy;   /* freed after the close */
        }
        if (st == NC_NOERR) {
            dump_group(ncid, 0);
            nc_close(ncid);
            if (way == 2)
                free((void *)img);
        }
    }
    _exit(0);
}

static uint64_t
rnd(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ULL;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int
main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 150, first = argc > 2 ? atol(argv[2]) : 0;
    unsigned char *img[NSEED];
    size_t len[NSEED];
    long crashes = 0;

    if (seed_groups(seeds[0]) || seed_types(seeds[1]) || seed_filters(seeds[2])) {
        printf("cannot write the seed files\n");
        return 1;
    }
    for (int s = 0; s < NSEED; s++) {
        FILE *f = fopen(seeds[s], "rb");
        long l;
        if (!f || fseek(f, 0, SEEK_END) || (l = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
            !(img[s] = malloc((size_t)l)) || fread(img[s], 1, (size_t)l, f) != (size_t)l) {
            printf("cannot read %s\n", seeds[s]);
            return 1;
        }
        len[s] = (size_t)l;
        fclose(f);
    }
    for (long i = first; i < first + n; i++) {
        uint64_t st = (uint64_t)i * 7919 + 1;
        int s = (int)(i % NSEED), status;
        size_t l = len[s];
        unsigned char *m = malloc(l);
        FILE *f;
        pid_t pid;
        memcpy(m, img[s], l);
        if (rnd(&st) % 5 == 0) {
            l = 48 + (size_t)(rnd(&st) % (l - 48)); /* truncated past the superblock */
        } else {
            int k = 1 + (int)(rnd(&st) % 8);
            for (int j = 0; j < k; j++) {
                size_t at = (size_t)(rnd(&st) % l);
                uint64_t r = rnd(&st);
                m[at] = r % 3 == 0 ? (unsigned char)(r >> 8) : (unsigned char)(m[at] ^ (1u << (r >> 8) % 8));
            }
        }
        f = fopen(mutant, "wb");
        if (!f || fwrite(m, 1, l, f) != l || fclose(f)) {
            printf("cannot write %s\n", mutant);
            return 1;
        }
        fflush(stdout);
        if ((pid = fork()) == 0)
            child(m, l);
        free(m);
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            crashes++;
            CHECK(0, "mutant %ld (seed %s): %s %d", i, seeds[s],
                  WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status)
                                                                            : WEXITSTATUS(status));
            if (getenv("NCT_KEEP")) {
                char keep[64];
                snprintf(keep, sizeof keep, "tst_h5mutate_crash_%ld.nc", i);
                rename(mutant, keep);
            }
        } else {
            nct_pass++;
        }
    }
    printf("%ld mutants (%ld..%ld), %ld crashed or hung\n", n, first, first + n - 1, crashes);
    for (int s = 0; s < NSEED; s++) {
        free(img[s]);
        remove(seeds[s]);
    }
    remove(mutant);
    return nct_summary("tst_h5mutate");
}
