/* tst_hdrcodes.c: the error code of nc_open on corrupt classic headers.
 * Built twice, against our library and against the reference
 * (NCT_REFERENCE_BUILD), and run by run_hdrcodes.sh, which diffs the two
 * tables.
 *
 *   tst_hdrcodes seed DIR        writes the seed files (run with ours)
 *   tst_hdrcodes run [-q] FILE...  for each seed file, derives corrupt
 *                                variants and prints one line per variant:
 *                                "seed kind pos value code"
 *
 * Variants: every aligned 4-byte word of the header set to boundary values
 * (0, 1, 2, 3, 10, 11, 12, original +-1, 2^31-1, 2^31, 2^32-1, 2^32-2,
 * 2^20), truncation at every length, and every bit of the header flipped.
 * Each variant is written to a scratch file and opened in a child process
 * with a time limit, so a crash or hang prints CRASH or HANG instead of a
 * code (the reference crashes on some: no expectation there).  Opened
 * files are also inquired and read a little, and nc_close's code is added
 * as "code/closecode" when it is not 0. */
#define _XOPEN_SOURCE 700
#include <netcdf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *scratch = "tst_hdrcodes.tmp.nc";
static int quick;       /* -q: a subset of the variants (for CTest) */

static int
check(int stat, const char *what)
{
    if (stat) {
        fprintf(stderr, "%s: %s\n", what, nc_strerror(stat));
        exit(2);
    }
    return 0;
}

/* ---- seeds ---------------------------------------------------------------- */

static void
seed_api(const char *dir, const char *name, int cmode)
{
    char path[4096];
    int ncid, d[3], v[4];
    short s[6] = {1, 2, 3, 4, 5, 6};
    double dd[2] = {1.5, -2.5};
    size_t st[2] = {0, 0}, ct[2] = {2, 3};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    check(nc_create(path, cmode | NC_CLOBBER, &ncid), path);
    check(nc_def_dim(ncid, "time", NC_UNLIMITED, &d[0]), "dim");
    check(nc_def_dim(ncid, "x", 3, &d[1]), "dim");
    check(nc_def_dim(ncid, "y", 2, &d[2]), "dim");
    check(nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "hello"), "att");
    check(nc_put_att_double(ncid, NC_GLOBAL, "d", NC_DOUBLE, 2, dd), "att");
    check(nc_def_var(ncid, "fix", NC_SHORT, 2, &d[1], &v[0]), "var");
    check(nc_put_att_text(ncid, v[0], "units", 1, "m"), "att");
    check(nc_def_var(ncid, "sc", NC_DOUBLE, 0, NULL, &v[1]), "var");
    check(nc_def_var(ncid, "rec", NC_SHORT, 2, d, &v[2]), "var");
    check(nc_put_att_short(ncid, v[2], "_FillValue", NC_SHORT, 1, s), "att");
    {
        int rd[2] = {d[0], d[2]};
        check(nc_def_var(ncid, "rec2", NC_FLOAT, 2, rd, &v[3]), "var");
    }
    check(nc__enddef(ncid, 0, 4, 0, 4), "enddef");
    {
        size_t fc[2] = {3, 2};
        check(nc_put_vara_short(ncid, v[0], st, fc, s), "put");
    }
    check(nc_put_var_double(ncid, v[1], dd), "put");
    check(nc_put_vara_short(ncid, v[2], st, ct, s), "put");
    check(nc_close(ncid), "close");
}

/* A CDF-1 header by hand: one record var "v" of the given type whose begin
 * and numrecs are given (e.g. past the end of the file). */
static void
seed_raw(const char *dir, const char *name, int type, unsigned begin, unsigned numrecs, size_t pad)
{
    unsigned char b[256];
    size_t n = 0, i;
    char path[4096];
    FILE *f;
#define W32(x) do { unsigned x_ = (x); b[n++] = (unsigned char)(x_ >> 24); \
        b[n++] = (unsigned char)(x_ >> 16); b[n++] = (unsigned char)(x_ >> 8); \
        b[n++] = (unsigned char)x_; } while (0)
    memcpy(b, "CDF\001", 4); n = 4;
    W32(numrecs);
    W32(0x0A); W32(1); W32(1); memcpy(b + n, "r\0\0\0", 4); n += 4; W32(0);
    W32(0x0C); W32(1); W32(1); memcpy(b + n, "a\0\0\0", 4); n += 4; W32((unsigned)type); W32(1);
    W32(0); W32(0);                           /* value (8 bytes covers any type) */
    W32(0x0B); W32(1); W32(1); memcpy(b + n, "v\0\0\0", 4); n += 4;
    W32(1); W32(0); W32(0); W32(0); W32((unsigned)type); W32(8);
    W32(begin ? begin : (unsigned)(n + 4));
    for (i = 0; i < pad; i++) b[n++] = 0;
#undef W32
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((f = fopen(path, "wb")) == NULL || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

/* ---- running -------------------------------------------------------------- */

static void
exercise(int ncid)
{
    int nd = 0, nv = 0, na = 0, ul = -1, i;
    char nm[NC_MAX_NAME + 1];
    size_t len;
    if (nc_inq(ncid, &nd, &nv, &na, &ul))
        return;
    for (i = 0; i < nd && i < 64; i++)
        (void)nc_inq_dim(ncid, i, nm, &len);
    for (i = 0; i < nv && i < 64; i++) {
        double buf[8];
        size_t start[NC_MAX_VAR_DIMS] = {0}, count[NC_MAX_VAR_DIMS];
        int k, vnd = 0, dims[NC_MAX_VAR_DIMS];
        if (nc_inq_var(ncid, i, nm, NULL, &vnd, dims, NULL) || vnd > NC_MAX_VAR_DIMS)
            continue;
        for (k = 0; k < vnd; k++)
            count[k] = 1;
        (void)nc_get_vara_double(ncid, i, start, count, buf);
    }
}

/* Open path in a child; print the code (or CRASH / HANG). */
static void
probe(const char *label)
{
    int pfd[2], ws = 0, res[2] = {0, 0};
    ssize_t got;
    pid_t pid;
    fflush(stdout);
    if (pipe(pfd) != 0) {
        perror("pipe");
        exit(2);
    }
    pid = fork();
    if (pid == 0) {
        int ncid;
        close(pfd[0]);
        alarm(quick ? 3 : 10);
        res[0] = nc_open(scratch, NC_NOWRITE, &ncid);
        if (res[0] == NC_NOERR) {
            exercise(ncid);
            res[1] = nc_close(ncid);
        }
        if (write(pfd[1], res, sizeof res) != (ssize_t)sizeof res)
            _exit(3);
        _exit(0);
    }
    close(pfd[1]);
    got = read(pfd[0], res, sizeof res);
    close(pfd[0]);
    waitpid(pid, &ws, 0);
    if (got == (ssize_t)sizeof res) {
        if (res[1])
            printf("%s %d/%d\n", label, res[0], res[1]);
        else
            printf("%s %d\n", label, res[0]);
    } else if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGALRM) {
        printf("%s HANG\n", label);
    } else {
        printf("%s CRASH\n", label);
    }
}

static void
put_scratch(const unsigned char *b, size_t n)
{
    FILE *f = fopen(scratch, "wb");
    if (f == NULL || (n && fwrite(b, 1, n, f) != n) || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", scratch);
        exit(2);
    }
}

static void
run_seed(const char *path)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    unsigned char *orig, *b;
    size_t n, hdr, i;
    long sz;
    char label[512];
    FILE *f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    n = (size_t)sz;
    orig = malloc(n + 1);
    b = malloc(n + 1);
    if (!orig || !b || fread(orig, 1, n, f) != n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    hdr = n < 512 ? n : 512;        /* seeds are small: mutate all of them */

    snprintf(label, sizeof label, "%s orig 0 0", base);
    put_scratch(orig, n);
    probe(label);
    /* boundary values in each aligned word */
    for (i = 0; i + 4 <= hdr; i += 4) {
        unsigned long o = ((unsigned long)orig[i] << 24) | ((unsigned long)orig[i + 1] << 16)
                        | ((unsigned long)orig[i + 2] << 8) | orig[i + 3];
        const unsigned long vals[] = {0, 1, 2, 3, 10, 11, 12, (o + 1) & 0xffffffffUL,
                                      (o - 1) & 0xffffffffUL, 0x7fffffffUL, 0x80000000UL,
                                      0xffffffffUL, 0xfffffffeUL, 0x100000UL};
        size_t k;
        for (k = 0; k < sizeof vals / sizeof vals[0]; k++) {
            unsigned long v = vals[k];
            /* quick: 0, 1, 12, o+1, 2^31, 2^32-1, 2^20 */
            if (v == o || (quick && (k == 2 || k == 3 || k == 4 || k == 5 || k == 8
                                     || k == 9 || k == 12)))
                continue;
            memcpy(b, orig, n);
            b[i] = (unsigned char)(v >> 24); b[i + 1] = (unsigned char)(v >> 16);
            b[i + 2] = (unsigned char)(v >> 8); b[i + 3] = (unsigned char)v;
            snprintf(label, sizeof label, "%s word %zu %lu", base, i, v);
            put_scratch(b, n);
            probe(label);
        }
    }
    /* truncations */
    for (i = 0; i < n; i += quick ? 8 : 1) {
        snprintf(label, sizeof label, "%s trunc %zu 0", base, i);
        put_scratch(orig, i);
        probe(label);
    }
    /* bit flips */
    for (i = 0; i < hdr * 8; i += quick ? 25 : 1) {
        memcpy(b, orig, n);
        b[i / 8] ^= (unsigned char)(1u << (i % 8));
        snprintf(label, sizeof label, "%s flip %zu %zu", base, i / 8, i % 8);
        put_scratch(b, n);
        probe(label);
    }
    free(orig);
    free(b);
}

int
main(int argc, char **argv)
{
    int i;
    if (argc >= 3 && strcmp(argv[1], "seed") == 0) {
        seed_api(argv[2], "s1.nc", 0);
        seed_api(argv[2], "s2.nc", NC_64BIT_OFFSET);
        seed_api(argv[2], "s5.nc", NC_64BIT_DATA);
        /* CDF-5 types in a CDF-1 header, begin past the end */
        seed_raw(argv[2], "t_int64.nc", NC_INT64, 0, 0, 0);
        seed_raw(argv[2], "t_ubyte.nc", NC_UBYTE, 0, 1, 8);
        seed_raw(argv[2], "t_past.nc", NC_INT, 0x7ffffff0u, 1, 0);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "run") == 0) {
        i = 2;
        if (argc > 2 && strcmp(argv[2], "-q") == 0) {
            quick = 1;
            i = 3;
        }
        for (; i < argc; i++)
            run_seed(argv[i]);
        unlink(scratch);
        return 0;
    }
    fprintf(stderr, "usage: %s seed DIR | run FILE...\n", argv[0]);
    return 2;
}
