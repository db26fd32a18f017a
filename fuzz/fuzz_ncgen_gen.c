/* libFuzzer target for ncgen's generators: arbitrary CDL goes through the
 * parser and then through one of the sinks ncgen itself uses, chosen by the
 * first input byte:
 *   bits 0-1  0 "-l c", 1 "-l f77", 2 "-l java", 3 "-b" (a file in a private
 *             temporary directory, removed again)
 *   bit 2     -x (no fill)
 *   bits 3-4  -k: none, classic, 64-bit offset, 64-bit data
 *   bit 5     -H (header only)
 * The rest is the CDL. Program text goes to /dev/null (every value is still
 * formatted). Models whose data could not be held in a few megabytes are
 * refused at define time, as the library would refuse most of them anyway:
 * the target is after wrong output and memory errors, not the cost of
 * padding gigabytes with fill values.
 *   cmake -S . -B build-fuzz-ncgen -DNETCDF_ENABLE_FUZZ=ON -DCMAKE_C_COMPILER=clang
 *   build-fuzz-ncgen/fuzz/fuzz_ncgen_gen -max_total_time=600 CORPUS fuzz/corpus_ncgen_gen */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ncgen.h"

#define MAX_VAR_BYTES ((size_t)16 << 20)    /* a fixed variable */
#define MAX_ROW_BYTES ((size_t)64 << 10)    /* one record, or one '_' of char data */
#define MAX_PUT_BYTES ((size_t)64 << 20)    /* all data of one input */

typedef struct guard {
    const ncg_sink *inner;
    void *ctx;
    size_t put;                 /* bytes handed to the sink so far */
} guard;

static int
g_define(void *v, ncg_model *m)
{
    guard *g = v;
    for (int i = 0; i < m->nvars; i++) {
        const ncg_var *var = &m->vars[i];
        size_t n = ncg_typesize(var->type);     /* bytes of a fixed variable, or of one record */
        for (int d = 0; d < var->ndims; d++) {
            size_t len = m->dims[var->dims[d]].len;
            if (m->dims[var->dims[d]].unlimited) continue;
            if (len && n > MAX_VAR_BYTES / len) return NC_EVARSIZE;
            n *= len;
        }
        if (n > MAX_VAR_BYTES) return NC_EVARSIZE;
        if (var->ndims && m->dims[var->dims[0]].unlimited && n > MAX_ROW_BYTES) return NC_EVARSIZE;
        /* each '_' in char data pads up to the last dimension */
        if (var->ndims && m->dims[var->dims[var->ndims - 1]].len > MAX_ROW_BYTES) return NC_EVARSIZE;
    }
    return g->inner->define(g->ctx, m);
}

static int
g_put(void *v, const ncg_model *m, int var, const size_t *start, const size_t *count, const void *buf)
{
    guard *g = v;
    size_t n = ncg_typesize(m->vars[var].type);
    for (int i = 0; i < m->vars[var].ndims; i++) n *= count[i];
    g->put += n;
    if (g->put > MAX_PUT_BYTES) return NC_ENOMEM;
    return g->inner->put(g->ctx, m, var, start, count, buf);
}

static int g_finish(void *v, const ncg_model *m) { guard *g = v; return g->inner->finish(g->ctx, m); }
static void g_abort(void *v, const ncg_model *m) { guard *g = v; g->inner->abort(g->ctx, m); }

static const ncg_sink guard_sink = {.define = g_define, .put = g_put, .finish = g_finish, .abort = g_abort};

static FILE *devnull;
static char binpath[4096];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char dir[] = "/tmp/fuzz_ncgen_gen.XXXXXX";
    devnull = fopen("/dev/null", "w");
    if (!devnull || !mkdtemp(dir)) abort();
    snprintf(binpath, sizeof binpath, "%s/out.nc", dir);
    /* the generators' dry run writes its scratch file there too */
    setenv("TMPDIR", dir, 1);
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int kinds[4] = {0, NC_FORMAT_CLASSIC, NC_FORMAT_64BIT_OFFSET, NC_FORMAT_64BIT_DATA};
    ncg_options opt;
    ncg_lang lg;
    ncg_bin bin;
    guard g;
    if (size < 1) return 0;
    unsigned sel = data[0];
    memset(&opt, 0, sizeof opt);
    memset(&lg, 0, sizeof lg);
    memset(&bin, 0, sizeof bin);
    opt.cdlname = "fuzz.cdl";
    opt.quiet = 1;
    opt.nofill = (sel >> 2) & 1;
    opt.kflag = kinds[(sel >> 3) & 3];
    opt.header_only = (sel >> 5) & 1;
    lg.out = devnull;
    lg.path = "fuzz.nc";
    lg.mainname = "main";
    lg.header_only = opt.header_only;
    g.put = 0;
    switch (sel & 3) {
    case 0: g.inner = &ncg_c_sink; g.ctx = &lg; break;
    case 1: g.inner = &ncg_f77_sink; g.ctx = &lg; opt.lang_classic_only = 1; break;
    case 2: g.inner = &ncg_java_sink; g.ctx = &lg; opt.lang_classic_only = 1; break;
    default: g.inner = &ncg_bin_sink; g.ctx = &bin; bin.path = binpath; break;
    }
    (void)ncg_run((const char *)data + 1, size - 1, &opt, &guard_sink, &g, NULL);
    if ((sel & 3) == 3) {
        unlink(binpath);
        free(bin.tmp);
    }
    return 0;
}
