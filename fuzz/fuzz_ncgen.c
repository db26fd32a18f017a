/* libFuzzer target for the ncgen CDL front end (classic and enhanced
 * grammar: groups, types, user-typed data): the input bytes are parsed
 * and checked (semantic pass included) and the model is emitted through a
 * sink that converts every data slab but writes nothing, so the whole
 * lexer/parser/converter path runs without touching the disk. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ncgen.h"

static int
null_define(void *ctx, ncg_model *m)
{
    (void)ctx;
    for (int i = 0; i < m->ndims; i++) m->dims[i].id = i;
    for (int i = 0; i < m->nvars; i++) {
        /* a real file would be refused by the library long before: keep
         * the fuzzer from spending its time padding gigabytes of fill */
        size_t n = ncg_size(m, m->vars[i].type);
        for (int d = 0; d < m->vars[i].ndims; d++) {
            size_t len = m->dims[m->vars[i].dims[d]].len;
            if (len && n > ((size_t)64 << 20) / len) return NC_EVARSIZE;
            n *= len ? len : 1;
        }
        m->vars[i].id = i;
    }
    return NC_NOERR;
}

static int
null_put(void *ctx, const ncg_model *m, int var, const size_t *start, const size_t *count, const void *buf)
{
    /* touch the buffer so sanitizers see every converted element */
    const ncg_var *v = &m->vars[var];
    size_t n = ncg_size(m, v->type);
    volatile unsigned char sink = 0;
    (void)ctx;
    (void)start;
    for (int i = 0; i < v->ndims; i++) n *= count[i];
    for (size_t i = 0; i < n; i += 61) sink ^= ((const unsigned char *)buf)[i];
    /* strings and vlens: every pointer the parser made must be readable */
    if (v->type == NC_STRING)
        for (size_t i = 0; i < n / sizeof(char *); i++) {
            const char *s = ((char *const *)buf)[i];
            if (s) sink ^= (unsigned char)s[0];
        }
    (void)sink;
    return NC_NOERR;
}

static int null_finish(void *ctx, const ncg_model *m) { (void)ctx; (void)m; return NC_NOERR; }
static void null_abort(void *ctx, const ncg_model *m) { (void)ctx; (void)m; }

static const ncg_sink null_sink = {
    .define = null_define, .put = null_put, .finish = null_finish, .abort = null_abort,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ncg_options opt;
    memset(&opt, 0, sizeof opt);
    opt.cdlname = "fuzz.cdl";
    opt.quiet = 1;
    /* the enhanced grammar: inputs starting with an odd byte are read as
     * netCDF-4 (the type keywords and "string" then lex as keywords) */
    if (size > 0 && (data[0] & 1)) opt.kflag = NC_FORMAT_NETCDF4;
    (void)ncg_run((const char *)data, size, &opt, &null_sink, NULL, NULL);
    return 0;
}
