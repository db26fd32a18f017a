/* ncgen command line: options as upstream ncgen, input read into memory,
 * then ncg_run() with the binary sink (-b, -k, -o, default output name
 * <dataset>.nc), a program generator (-l c, -l f77, -l java) or no sink
 * (syntax check only). */
#include "ncgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

int ncg_kind(const char *name);

static const char *progname = "ncgen";

static void
usage(void)
{
    fprintf(stderr, "Usage: %s [-1] [-3] [-4] [-5] [-6] [-7] [-b] [-d] [-D debuglevel] [-h] [-k kind ] "
            "[-l language=b|c|f77|java] [-M <name>] [-n] [-o outfile] [-P] [-x] [-N datasetname] [-L loglevel] "
            "[-H] [-W generate whole var upload] [file ... ]\n", progname);
    fprintf(stderr, "netcdf library version %s\n", nc_inq_libvers());
}

static char *
read_all(FILE *f, size_t *lenp)
{
    size_t cap = 1 << 16, len = 0, n;
    struct stat st;
    char *buf;
    /* a regular file is read in one exactly-sized buffer (peak memory) */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (unsigned long long)st.st_size < SIZE_MAX - 1)
        cap = (size_t)st.st_size + 1;
    buf = malloc(cap);
    if (!buf) return NULL;
    while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!nb) { free(buf); return NULL; }
            buf = nb;
            cap *= 2;
        }
    }
    if (ferror(f)) { free(buf); return NULL; }
    *lenp = len;
    return buf;
}

typedef struct outctx {
    int lang;                   /* 'b', 'c' or 0 (syntax only) */
    const char *oname;          /* -o */
    const char *ext;
    const char *input;          /* CDL file name, NULL for stdin */
    ncg_bin bin;
    ncg_lang lg;                /* -l c / -l f77 / -l java */
    char *path;
    const ncg_sink *inner;      /* the generator: ncg_bin_sink, ncg_c_sink, ... */
    void *innerctx;             /* its state: &bin, &c or &lg */
} outctx;

/* The output name is only known once the dataset name has been parsed: -o,
 * else (as upstream) the input file's base name without its extension, else
 * (standard input) the dataset name; plus ".nc" (".cdf" for -n). */
static int
set_outname(void *vctx, const char *dsname)
{
    outctx *o = vctx;
    const char *base = o->oname;
    if (base) o->path = strdup(base);
    else {
        size_t len = strlen(dsname);
        if (o->input) {
            const char *slash = strrchr(o->input, '/'), *dot;
            base = slash ? slash + 1 : o->input;
            dot = strrchr(base, '.');
            len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
        } else base = dsname;
        size_t n = len + strlen(o->ext) + 1;
        o->path = malloc(n);
        if (o->path) snprintf(o->path, n, "%.*s%s", (int)len, base, o->ext);
    }
    if (!o->path) return 1;
    o->bin.path = o->path;
    o->lg.path = o->path;
    return 0;
}


/* The output sink forwards to the generator chosen by -l, whose state lives
 * inside outctx (so set_outname can give it the output path). */
static int fw_define(void *v, ncg_model *m)
{
    outctx *o = v;
    /* upstream's C text covers the classic model; the enhanced one has its own generator */
    if (o->inner == &ncg_c_sink && ncg_enhanced(m)) o->inner = &ncg_c4_sink;
    return o->inner->define(o->innerctx, m);
}
static int fw_put(void *v, const ncg_model *m, int var, const size_t *s, const size_t *c, const void *b)
{ outctx *o = v; return o->inner->put(o->innerctx, m, var, s, c, b); }
static int fw_finish(void *v, const ncg_model *m)
{ outctx *o = v; return o->inner->finish(o->innerctx, m); }
static void fw_abort(void *v, const ncg_model *m)
{ outctx *o = v; o->inner->abort(o->innerctx, m); }
static const ncg_sink forward_sink = {.define = fw_define, .put = fw_put, .finish = fw_finish,
                                      .abort = fw_abort};

int
main(int argc, char **argv)
{
    ncg_options opt;
    outctx o;
    int ch, lang = 0, kflag = 0, ret = 1;
    char *text = NULL;
    size_t len = 0;
    FILE *in = stdin, *ctmp = NULL;
    const char *mainname = "main";

    memset(&opt, 0, sizeof opt);
    memset(&o, 0, sizeof o);
    o.ext = ".nc";
    if (argv[0]) {
        const char *s = strrchr(argv[0], '/');
        progname = s ? s + 1 : argv[0];
    }
    while ((ch = getopt(argc, argv, "134567bB:cdD:fhHk:l:M:no:Pv:xL:N:W")) != -1) {
        switch (ch) {
        case 'b': case 'n':
            if (lang) { fprintf(stderr, "Please specify only one language\n"); return 1; }
            lang = 'b';
            if (ch == 'n') o.ext = ".cdf";
            break;
        case 'c': case 'f':
            if (lang) { fprintf(stderr, "Please specify only one language\n"); return 1; }
            lang = ch == 'c' ? 'c' : 'F';
            fprintf(stderr, ch == 'c' ? "-c is deprecated: please use -lc\n" : "-f is deprecated: please use -lf77\n");
            break;
        case 'l':
            if (lang) { fprintf(stderr, "Please specify only one language\n"); return 1; }
            if (!strcmp(optarg, "b")) lang = 'b';
            else if (!strcmp(optarg, "c") || !strcmp(optarg, "C")) lang = 'c';
            else if (!strcmp(optarg, "f77") || !strcmp(optarg, "fortran77") || !strcmp(optarg, "Fortran77")) lang = 'F';
            else if (!strcmp(optarg, "j") || !strcmp(optarg, "java")) lang = 'j';
            else { fprintf(stderr, "%s: output language %s not implemented\n", progname, optarg); return 1; }
            break;
        case 'k': case 'v':
            if (!(kflag = ncg_kind(optarg))) { fprintf(stderr, "Invalid format: %s\n", optarg); return 2; }
            break;
        case '1': case '3': kflag = NC_FORMAT_CLASSIC; break;
        case '6': kflag = NC_FORMAT_64BIT_OFFSET; break;
        case '4': kflag = NC_FORMAT_NETCDF4; break;
        case '5': kflag = NC_FORMAT_64BIT_DATA; break;
        case '7': kflag = NC_FORMAT_NETCDF4_CLASSIC; break;
        case 'h': usage(); return 0;
        case 'H': opt.header_only = 1; break;
        case 'o': o.oname = optarg; break;
        case 'x': opt.nofill = 1; break;
        case 'N': opt.dataset_name = optarg; break;
        case 'M': mainname = optarg; break;
        case 'd': case 'D': case 'B': case 'L': case 'P': case 'W': break;
        default: usage(); return 1;
        }
    }
    /* as upstream: these languages write the classic format only */
    if (lang == 'F' || lang == 'j') opt.lang_classic_only = 1;
    if (!lang && (kflag || o.oname)) lang = 'b';
    opt.kflag = kflag;
    argc -= optind;
    argv += optind;
    if (argc > 1) { fprintf(stderr, "%s: only one input file argument permitted\n", progname); return 6; }
    if (argc == 1 && strcmp(argv[0], "-")) {
        if (!(in = fopen(argv[0], "rb"))) {
            fprintf(stderr, "%s: can't open file %s for reading: ", progname, argv[0]);
            perror("");
            return 7;
        }
        opt.cdlname = argv[0];
        o.input = argv[0];
    }
    text = read_all(in, &len);
    if (in != stdin) fclose(in);
    if (!text) { fprintf(stderr, "%s: cannot read input\n", progname); return 1; }
    if (lang == 'b') {
        o.inner = &ncg_bin_sink;
        o.innerctx = &o.bin;
        ret = ncg_run(text, len, &opt, &forward_sink, &o, set_outname);
    } else if (lang == 'c' || lang == 'F' || lang == 'j') {
        /* the program reaches stdout only when the whole input was good */
        if (!(ctmp = tmpfile())) { perror("tmpfile"); goto done; }
        o.lg.out = ctmp;
        o.lg.mainname = mainname;
        o.lg.header_only = opt.header_only;
        o.inner = lang == 'c' ? &ncg_c_sink : lang == 'F' ? &ncg_f77_sink : &ncg_java_sink;
        o.innerctx = &o.lg;
        ret = ncg_run(text, len, &opt, &forward_sink, &o, set_outname);
        if (!ret) {
            char buf[65536];
            size_t n;
            rewind(ctmp);
            while ((n = fread(buf, 1, sizeof buf, ctmp)) > 0)
                if (fwrite(buf, 1, n, stdout) != n) { ret = 1; break; }
            if (fflush(stdout)) ret = 1;
        }
        fclose(ctmp);
    } else {
        ret = ncg_run(text, len, &opt, NULL, NULL, NULL);
    }
done:
    free(text);
    free(o.path);
    free(o.bin.tmp);
    return ret ? 1 : 0;
}
