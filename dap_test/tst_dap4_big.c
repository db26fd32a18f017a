/* tst_dap4_big.c: a DAP4 read larger than the slice cache (64 MiB), run by
 * tst_dap4_big.py against the loopback server.
 *
 *   tst_dap4_big URL ok         every value of big, s and d is the pattern
 *                               below, and the read of big grew the peak
 *                               RSS by less than half of big's size
 *   tst_dap4_big URL ERRNUM     the read of big fails with that NC_* code
 *
 * The dataset (made by tst_dap4_big.py): float big(z, y, x) with value
 * (i * 7) % 65521 at linear index i, short s(n) = (i * 13) % 30011 - 15000,
 * double d(n) = i * 0.5 + 1e9.  Exit 0 when the checks hold, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <netcdf.h>

/* The peak RSS of this program in KiB: VmHWM (getrusage's maximum would
 * also count the process this one was exec'ed from). */
static long
peak_kib(void)
{
    char line[256];
    long v = -1;
    FILE *fp = fopen("/proc/self/status", "r");
    while (fp && fgets(line, sizeof line, fp))
        if (strncmp(line, "VmHWM:", 6) == 0)
            v = atol(line + 6);
    if (fp)
        fclose(fp);
    if (v < 0) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        v = ru.ru_maxrss;
    }
    return v;
}

/* The values of a variable, read whole into a buffer touched beforehand. */
static int
read_var(int ncid, const char *name, nc_type t, void **bufp, size_t *np, long *growp)
{
    int varid, ndims, dimids[NC_MAX_VAR_DIMS], stat;
    size_t n = 1, len, size = t == NC_FLOAT ? 4 : t == NC_SHORT ? 2 : 8;
    if ((stat = nc_inq_varid(ncid, name, &varid)) || (stat = nc_inq_varndims(ncid, varid, &ndims))
        || (stat = nc_inq_vardimid(ncid, varid, dimids)))
        return stat;
    for (int i = 0; i < ndims; i++) {
        if ((stat = nc_inq_dimlen(ncid, dimids[i], &len)))
            return stat;
        n *= len;
    }
    unsigned char *buf = malloc(n * size);
    if (buf == NULL)
        return NC_ENOMEM;
    memset(buf, 0xee, n * size);
    long before = peak_kib();
    stat = nc_get_var(ncid, varid, buf);
    *growp = peak_kib() - before;
    if (stat) {
        free(buf);
        return stat;
    }
    *bufp = buf;
    *np = n;
    return NC_NOERR;
}

int
main(int argc, char **argv)
{
    int ncid, stat, fails = 0;
    void *buf = NULL;
    size_t n = 0, bad = 0;
    long grow = 0;
    if (argc != 3) {
        fprintf(stderr, "usage: tst_dap4_big URL ok|ERRNUM\n");
        return 1;
    }
    int want = strcmp(argv[2], "ok") == 0 ? NC_NOERR : atoi(argv[2]);
    if ((stat = nc_open(argv[1], NC_NOWRITE, &ncid))) {
        fprintf(stderr, "open %s: %s\n", argv[1], nc_strerror(stat));
        return 1;
    }
    stat = read_var(ncid, "big", NC_FLOAT, &buf, &n, &grow);
    if (stat != want) {
        fprintf(stderr, "FAIL %s: big read gave %d (%s), want %d\n", argv[1], stat, nc_strerror(stat), want);
        fails++;
    }
    if (stat == NC_NOERR) {
        const float *f = buf;
        for (size_t i = 0; i < n; i++)
            if (f[i] != (float)((i * 7) % 65521))
                bad++;
        if (bad) {
            fprintf(stderr, "FAIL %s: %zu of %zu values of big differ\n", argv[1], bad, n);
            fails++;
        }
        /* straight into the caller's buffer: no copy of the response */
        if (getenv("NCT_SANITIZE") == NULL && grow * 1024.0 > n * 4 / 2) {
            fprintf(stderr, "FAIL %s: the read of big (%zu bytes) grew the peak RSS by %ld KiB\n",
                    argv[1], n * 4, grow);
            fails++;
        }
        printf("%s: big %zu values, peak RSS +%ld KiB\n", argv[1], n, grow);
        free(buf);
        buf = NULL;
    }
    if (want == NC_NOERR) {
        /* smaller variables (through the slice cache), 2- and 8-byte values */
        if ((stat = read_var(ncid, "s", NC_SHORT, &buf, &n, &grow))) {
            fprintf(stderr, "FAIL %s: s: %s\n", argv[1], nc_strerror(stat));
            fails++;
        } else {
            const short *s = buf;
            bad = 0;
            for (size_t i = 0; i < n; i++)
                if (s[i] != (short)((i * 13) % 30011) - 15000)
                    bad++;
            if (bad) {
                fprintf(stderr, "FAIL %s: %zu of %zu values of s differ\n", argv[1], bad, n);
                fails++;
            }
            free(buf);
        }
        if ((stat = read_var(ncid, "d", NC_DOUBLE, &buf, &n, &grow))) {
            fprintf(stderr, "FAIL %s: d: %s\n", argv[1], nc_strerror(stat));
            fails++;
        } else {
            const double *d = buf;
            bad = 0;
            for (size_t i = 0; i < n; i++)
                if (d[i] != (double)i * 0.5 + 1e9)
                    bad++;
            if (bad) {
                fprintf(stderr, "FAIL %s: %zu of %zu values of d differ\n", argv[1], bad, n);
                fails++;
            }
            free(buf);
        }
    }
    if ((stat = nc_close(ncid))) {
        fprintf(stderr, "FAIL close: %s\n", nc_strerror(stat));
        fails++;
    }
    return fails ? 1 : 0;
}
