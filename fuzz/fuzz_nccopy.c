/* fuzz_nccopy.c: libFuzzer target for nccopy.
 *
 * Each input is a (usually hostile) classic file, written to a temporary
 * file and copied in-process by nccopy_run() (nctools.h) to another
 * temporary file, removed after each run, with three option sets chosen by
 * a hash of the input among: every output kind, -u, -r, -w, -v/-V with the
 * first variable, a 1-byte copy buffer.  Files declaring much data (nccopy would read and write all of
 * it) are copied with "-V ''" only (dimensions and attributes).  Messages
 * go to /dev/null.  Any crash, leak or sanitizer report is a bug in nccopy
 * or, when the stack says so, in the library (kept under
 * fuzz/regress_tools/, not fixed here).
 *   build-fuzz/fuzz/fuzz_nccopy -max_total_time=600 CORPUS_DIR fuzz/corpus_tools
 */
#include "fuzz_tools_common.h"
#include "nctools.h"

#define MAX_DATA_BYTES (256.0 * 1024)   /* data copies up to this size */
#define MAX_SMALLBUF_BYTES (16.0 * 1024) /* "-m 1" copies up to this size */

static char inpath[64], outpath[64];
static FILE *devnull;

static void
copy(const char *a0, const char *a1, const char *a2)
{
    const char *in[] = {"nccopy", a0, a1, a2};
    char *argv[8];
    int argc = 0, i;
    for (i = 0; i < 4 && in[i]; i++)
        argv[argc++] = strdup(in[i]);   /* the tool may modify its argv */
    argv[argc++] = strdup(inpath);
    argv[argc++] = strdup(outpath);
    argv[argc] = NULL;
    (void)nccopy_run(argc, argv, devnull);
    for (i = 0; i < argc; i++)
        free(argv[i]);
    unlink(outpath);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_init_dir();
    snprintf(inpath, sizeof inpath, "%s/fuzz_nccopy_in.%ld.nc", fz_dir, (long)getpid());
    snprintf(outpath, sizeof outpath, "%s/fuzz_nccopy_out.%ld.nc", fz_dir, (long)getpid());
    devnull = fopen("/dev/null", "w");
    return devnull ? 0 : 1;
}

/* Three option sets chosen by a hash of the input (each run reopens the
 * input, which is the slow part on hostile headers). */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_info info;
    size_t k, n;

    if (fz_write(inpath, data, size))
        return 0;
    info = fz_inspect(data, size);
    if (!info.opened || info.data_bytes > MAX_DATA_BYTES) {
        copy("-V", "", NULL);
    } else {
        k = fz_hash(data, size);
        for (n = 0; n < 3; n++, k += 3) {
            switch (k % 8) {
            case 0: copy(NULL, NULL, NULL); break;
            case 1: copy("-k", "cdf5", NULL); break;
            case 2: copy("-3", "-u", NULL); break;
            case 3: copy("-6", "-r", NULL); break;
            case 4: copy("-w", NULL, NULL); break;
            case 5: copy("-V", info.var0[0] ? info.var0 : "", NULL); break;
            case 6: copy("-v", info.var0[0] ? info.var0 : "x,y", "-u"); break;
            default:
                if (info.data_bytes <= MAX_SMALLBUF_BYTES)
                    copy("-m", "1", NULL);
                else
                    copy("-m", "1k", NULL);
                break;
            }
        }
    }
    unlink(inpath);
    return 0;
}
