/* fuzz_ncdump.c: libFuzzer target for ncdump's whole output path.
 *
 * Each input is a (usually hostile) classic or netCDF-4 file, written to a temporary
 * file and dumped in-process by ncdump_run() (nctools.h): with -h, then
 * with three of these option sets, chosen by a hash of the input: header
 * forms (-k, -s, -x NcML, -t attribute times, -n, -v, -s -F) and data
 * forms (default, -c, -b c, -f f, -t, -i, -v first variable, -l/-p, -Xm,
 * -g / -s); data
 * forms only when the file declares little data, since ncdump prints all
 * of it.  Output and messages go to /dev/null.  Any crash, leak or sanitizer
 * report is a bug in ncdump (ncdump/) or, when the stack says so, in the
 * library (kept under fuzz/regress_tools/, not fixed here).
 *   build-fuzz/fuzz/fuzz_ncdump -max_total_time=600 CORPUS_DIR fuzz/corpus_tools
 */
#include "fuzz_tools_common.h"
#include "nctools.h"

#define MAX_DATA_BYTES (256.0 * 1024)   /* data option sets up to this size */

static char path[64];
static FILE *devnull;

/* Option sets after the always-run "-h"; "V" stands for the first
 * variable's name.  Sets with data = 1 print data. */
static const struct { int data; const char *a[5]; } sets[] = {
    {0, {"-k"}}, {0, {"-s", "-h"}}, {0, {"-x"}}, {0, {"-t", "-h", "-n", "renamed"}},
    {0, {"-h", "-v", "V"}}, {0, {"-x", "-v", "V"}}, {1, {NULL}}, {1, {"-c"}},
    {1, {"-b", "c", "-l", "10"}}, {1, {"-f", "f", "-p", "3,5"}}, {1, {"-t", "-f", "c"}},
    {1, {"-i", "-s", "-p", "9,17"}}, {1, {"-Xm", "-b", "f"}}, {1, {"-v", "V", "-f", "c", "-t"}},
    {0, {"-s", "-F", "-h"}}, {1, {"-g", "/", "-s"}},
};
#define NSETS (sizeof sets / sizeof sets[0])

static void
dump(const char *const *a, const char *var)
{
    char *argv[8];
    int argc = 0, i;
    argv[argc++] = strdup("ncdump");
    for (i = 0; i < 5 && a[i]; i++)     /* the tool may modify its argv */
        argv[argc++] = strdup(strcmp(a[i], "V") ? a[i] : var);
    argv[argc++] = strdup(path);
    argv[argc] = NULL;
    (void)ncdump_run(argc, argv, devnull, devnull);
    for (i = 0; i < argc; i++)
        free(argv[i]);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_init_dir();
    snprintf(path, sizeof path, "%s/fuzz_ncdump.%ld.nc", fz_dir, (long)getpid());
    devnull = fopen("/dev/null", "w");
    return devnull ? 0 : 1;
}

/* "-h", then three more option sets chosen by a hash of the input (each
 * run reopens the file, which is the slow part on hostile headers). */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const header[] = {"-h", NULL};
    fz_info info;
    size_t k, n;

    if (fz_write(path, data, size))
        return 0;
    info = fz_inspect(data, size);
    dump(header, info.var0);
    if (info.opened) {
        k = fz_hash(data, size);
        for (n = 0; n < 3; n++, k += 5) {
            size_t i = k % NSETS;
            if (sets[i].data && info.data_bytes > MAX_DATA_BYTES)
                i %= 6;                 /* a header set instead */
            if (!info.var0[0] && (i == 4 || i == 5 || i == 13))
                i = 0;
            dump(sets[i].a, info.var0);
        }
    }
    unlink(path);
    return 0;
}
