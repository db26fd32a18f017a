/* ncgen C sink (-l c): prints the C program upstream ncgen 4.9.0 prints for
 * the same CDL, text for text: the same sections, comments, blank lines,
 * identifiers ("DIGIT_1_", "_SPACE_", "_XC3"...), constants ("%.8g" floats,
 * "%.16g" doubles, "nan"/"nanf" and the #defines that make them compile) and
 * the same nc_put_vara slabs. Three reference bugs are fixed, each a line the
 * reference drops or gets wrong (test/run_lang_tests.sh undoes only these):
 *  - CDF-5 output creates the file with NC_64BIT_DATA (the reference prints
 *    "unknown cmode modifier" and creates a CDF-1 file);
 *  - -x prints the nc_set_fill call (the reference prints only its comment);
 *  - _NoFill prints nc_def_var_fill after the variable's nc_def_var (the
 *    reference drops it in the classic formats).
 * Data are captured per variable (genf77.c) and the program printed by
 * finish(), when the number of records is known. */
#include "ncgen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cgen {
    ncg_lang *g;
    FILE *f;
    char **vids, **dids;        /* identifiers of variables and dimensions */
} cgen;

static const char *
nctype(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "NC_BYTE";
    case NC_CHAR: return "NC_CHAR";
    case NC_SHORT: return "NC_SHORT";
    case NC_INT: return "NC_INT";
    case NC_FLOAT: return "NC_FLOAT";
    case NC_DOUBLE: return "NC_DOUBLE";
    case NC_UBYTE: return "NC_UBYTE";
    case NC_USHORT: return "NC_USHORT";
    case NC_UINT: return "NC_UINT";
    case NC_INT64: return "NC_INT64";
    default: return "NC_UINT64";
    }
}

static const char *
ctype(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "signed char";
    case NC_CHAR: return "char";
    case NC_SHORT: return "short";
    case NC_INT: return "int";
    case NC_FLOAT: return "float";
    case NC_DOUBLE: return "double";
    case NC_UBYTE: return "unsigned char";
    case NC_USHORT: return "unsigned short";
    case NC_UINT: return "unsigned int";
    case NC_INT64: return "signed long long";
    default: return "unsigned long long";
    }
}

/* suffix of the typed nc_put_att_ function */
static const char *
attsuffix(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "schar";
    case NC_SHORT: return "short";
    case NC_INT: return "int";
    case NC_FLOAT: return "float";
    case NC_DOUBLE: return "double";
    case NC_UBYTE: return "ubyte";
    case NC_USHORT: return "ushort";
    case NC_UINT: return "uint";
    case NC_INT64: return "longlong";
    default: return "ulonglong";
    }
}

/* One byte escaped as upstream does inside quote: backslash, the quote,
 * the usual control escapes, other controls and DEL in three-digit octal;
 * everything else, bytes >= 0x80 included, as it is. */
static void
escchar(FILE *f, unsigned char ch, int quote)
{
    if (ch == '\\') fputs("\\\\", f);
    else if (ch == quote) { fputc('\\', f); fputc(quote, f); }
    else if (ch >= ' ' && ch != 0x7f) fputc(ch, f);
    else switch (ch) {
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\v': fputs("\\v", f); break;
        default: fprintf(f, "\\%03o", ch); break;
    }
}

static void
cstring(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) escchar(f, (unsigned char)s[i], '"');
    fputc('"', f);
}

/* a name inside a C string literal */
static void
cname(FILE *f, const char *s)
{
    cstring(f, s, strlen(s));
}

static void
value(FILE *f, nc_type t, const void *p)
{
    switch (t) {
    case NC_CHAR: {
        unsigned char ch = *(const unsigned char *)p;
        fputc('\'', f);
        escchar(f, ch, '\'');
        fputc('\'', f);
        break;
    }
    case NC_BYTE: fprintf(f, "%d", *(const signed char *)p); break;
    case NC_SHORT: fprintf(f, "%d", *(const short *)p); break;
    case NC_INT: fprintf(f, "%d", *(const int *)p); break;
    case NC_UBYTE: fprintf(f, "%uU", *(const unsigned char *)p); break;
    case NC_USHORT: fprintf(f, "%uU", *(const unsigned short *)p); break;
    case NC_UINT: fprintf(f, "%uU", *(const unsigned int *)p); break;
    case NC_INT64: fprintf(f, "%lldLL", *(const long long *)p); break;
    case NC_UINT64: fprintf(f, "%lluULL", *(const unsigned long long *)p); break;
    case NC_FLOAT: {
        float v = *(const float *)p;
        if (isnan(v)) fputs("nanf", f);
        else fprintf(f, "((float)%.8g)", (double)v);
        break;
    }
    default: {
        double v = *(const double *)p;
        if (isnan(v)) fputs("nan", f);
        else fprintf(f, "((double)%.16g)", v);
        break;
    }
    }
}

static void
values(FILE *f, nc_type t, const void *data, size_t n)
{
    size_t es = ncg_typesize(t);
    for (size_t i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        value(f, t, (const char *)data + i * es);
    }
}

static int
c_define(void *vctx, ncg_model *m)
{
    return ncg_lang_init(vctx, m, 0);
}

static void
c_att(cgen *x, const ncg_att *a, const char *attid)
{
    FILE *f = x->f;
    const char *var = a->var < 0 ? "NC_GLOBAL" : x->vids[a->var];
    fputs("\n    {\n", f);
    if (a->type == NC_CHAR) {
        fputs("    stat = nc_put_att_text(ncid, ", f);
        fprintf(f, "%s%s, ", var, a->var < 0 ? "" : "_id");
        cname(f, a->name);
        fprintf(f, ", %zu, ", a->len);
        cstring(f, a->data, a->empty ? 0 : a->len);
        fputs(");\n", f);
    } else {
        fprintf(f, "    static const %s %s_att[%zu] = {", ctype(a->type), attid, a->len);
        values(f, a->type, a->data, a->len);
        fputs("} ;\n", f);
        fprintf(f, "    stat = nc_put_att_%s(ncid, %s%s, ", attsuffix(a->type), var, a->var < 0 ? "" : "_id");
        cname(f, a->name);
        /* upstream ends the line only for the classic types */
        fprintf(f, ", %s, %zu, %s_att);%s", nctype(a->type), a->len, attid, a->type <= NC_DOUBLE ? "\n" : "");
    }
    fputs("    CHECK_ERR(stat);\n    }\n", f);
}

static int
c_slab(void *ctx, int var, const size_t *start, const size_t *count, const void *data, size_t n)
{
    cgen *x = ctx;
    FILE *f = x->f;
    const ncg_var *v = &x->g->m->vars[var];
    const char *id = x->vids[var];
    int rank = v->ndims;
    fputs("\n    {\n", f);
    if (rank == 0) {
        fputs("    size_t count = 0;\n", f);
        fprintf(f, "    static %s %s_data[1] = {", ctype(v->type), id);
        value(f, v->type, data);
        fputs("};\n", f);
        fprintf(f, "    stat = nc_put_var1(ncid, %s_id, &count, %s_data);\n", id, id);
    } else {
        if (v->type == NC_CHAR) {
            fprintf(f, "    char* %s_data = ", id);
            cstring(f, data, n);
            fputs(" ;\n", f);
        } else {
            fprintf(f, "    %s %s_data[%zu] = {", ctype(v->type), id, n);
            values(f, v->type, data, n);
            fputs("} ;\n", f);
        }
        fprintf(f, "    size_t %s_startset[%d] = {", id, rank);
        for (int i = 0; i < rank; i++) fprintf(f, "%s%zu", i ? ", " : "", start[i]);
        fputs("} ;\n", f);
        fprintf(f, "    size_t %s_countset[%d] = {", id, rank);
        for (int i = 0; i < rank; i++) fprintf(f, "%s%zu", i ? ", " : "", count[i]);
        fputs("};\n", f);
        fprintf(f, "    stat = nc_put_vara(ncid, %s_id, %s_startset, %s_countset, %s_data);\n", id, id, id, id);
    }
    fputs("    CHECK_ERR(stat);\n    }\n\n", f);
    return ferror(f) ? NC_EIO : NC_NOERR;
}

static const char *
cmode(const ncg_model *m)
{
    switch (m->format) {
    case NC_FORMAT_64BIT_OFFSET: return "NC_CLOBBER|NC_64BIT_OFFSET";
    case NC_FORMAT_64BIT_DATA: return "NC_CLOBBER|NC_64BIT_DATA";
    case NC_FORMAT_NETCDF4: return "NC_CLOBBER|NC_NETCDF4";
    case NC_FORMAT_NETCDF4_CLASSIC: return "NC_CLOBBER|NC_NETCDF4|NC_CLASSIC_MODEL";
    default: return "NC_CLOBBER";
    }
}

static int
c_program(cgen *x)
{
    ncg_lang *g = x->g;
    const ncg_model *m = g->m;
    FILE *f = x->f;
    int maxdims = 0, ngatts = 0, nvatts = 0, stat;

    fputs("#include <stdio.h>\n#include <stdlib.h>\n#include <netcdf.h>\n\n", f);
    if (m->specials)
        fputs("\n#define nanf (0.0f/0.0f)\n#define nan  (0.0/0.0)\n#define inff (1.0f/0.0f)\n"
              "#define inf  (1.0/0.0)\n#define infinityf inff\n#define infinity  inf\n\n", f);
    fputs("\nvoid\ncheck_err(const int stat, int line, const char* file, const char* func) {\n"
          "    if (stat != NC_NOERR) {\n"
          "        (void)fprintf(stderr,\"line %d of %s.%s: %s\\n\", line, file, func, nc_strerror(stat));\n"
          "        fflush(stderr);\n        exit(1);\n    }\n}\n\n"
          "#define CHECK_ERR(err) check_err(err, __LINE__, __FILE__, __func__)\n\nint\n", f);
    fprintf(f, "%s() {/* create %s */\n\n", g->mainname ? g->mainname : "main", g->path);
    fputs("    int  stat;  /* return status */\n    int  ncid;  /* netCDF id */\n", f);
    if (m->ndims) {
        fputs("\n    /* dimension ids */\n", f);
        for (int i = 0; i < m->ndims; i++) fprintf(f, "    int %s_dim;\n", x->dids[i]);
        fputs("\n    /* dimension lengths */\n", f);
        for (int i = 0; i < m->ndims; i++)
            if (m->dims[i].zero) fprintf(f, "    size_t %s_len = 0;\n", x->dids[i]);
            else if (m->dims[i].unlimited) fprintf(f, "    size_t %s_len = NC_UNLIMITED;\n", x->dids[i]);
            else fprintf(f, "    size_t %s_len = %zu;\n", x->dids[i], m->dims[i].len);
    }
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].ndims > maxdims) maxdims = m->vars[i].ndims;
    if (m->nvars) {
        fputs("\n    /* variable ids */\n", f);
        for (int i = 0; i < m->nvars; i++) fprintf(f, "    int %s_id;\n", x->vids[i]);
        fputs("\n    /* rank (number of dimensions) for each variable */\n", f);
        for (int i = 0; i < m->nvars; i++) fprintf(f, "#   define RANK_%s %d\n", x->vids[i], m->vars[i].ndims);
        if (maxdims > 0) {
            fputs("\n    /* variable shapes */\n", f);
            for (int i = 0; i < m->nvars; i++)
                if (m->vars[i].ndims > 0) fprintf(f, "    int %s_dims[RANK_%s];\n", x->vids[i], x->vids[i]);
        }
    }
    fputs("\n    /* enter define mode */\n    stat = nc_create(", f);
    cname(f, g->path);
    fprintf(f, ", %s, &ncid);\n    CHECK_ERR(stat);\n", cmode(m));
    if (m->ndims) {
        fputs("\n    /* define dimensions */\n", f);
        for (int i = 0; i < m->ndims; i++) {
            fputs("    stat = nc_def_dim(ncid, ", f);
            cname(f, m->dims[i].name);
            fprintf(f, ", %s_len, &%s_dim);\n    CHECK_ERR(stat);\n", x->dids[i], x->dids[i]);
        }
    }
    if (m->nvars) {
        fputs("\n    /* define variables */\n", f);
        for (int i = 0; i < m->nvars; i++) {
            const ncg_var *v = &m->vars[i];
            fputs("\n", f);
            for (int d = 0; d < v->ndims; d++) fprintf(f, "    %s_dims[%d] = %s_dim;\n", x->vids[i], d, x->dids[v->dims[d]]);
            fputs("    stat = nc_def_var(ncid, ", f);
            cname(f, v->name);
            fprintf(f, ", %s, RANK_%s, ", nctype(v->type), x->vids[i]);
            if (v->ndims) fprintf(f, "%s_dims", x->vids[i]);
            else fputs("0", f);
            fprintf(f, ", &%s_id);\n    CHECK_ERR(stat);\n", x->vids[i]);
            if (v->nofill >= 0)
                fprintf(f, "    stat = nc_def_var_fill(ncid, %s_id, %s, NULL);\n    CHECK_ERR(stat);\n", x->vids[i],
                        v->nofill ? "NC_NOFILL" : "NC_FILL");
        }
    }
    for (int i = 0; i < m->natts; i++) {
        if (m->atts[i].var < 0) ngatts++;
        else nvatts++;
    }
    for (int pass = 0; pass < 2; pass++) {
        if (!(pass ? nvatts : ngatts)) continue;
        fputs(pass ? "\n    /* assign per-variable attributes */\n" : "\n    /* assign global attributes */\n", f);
        for (int i = 0; i < m->natts; i++) {
            const ncg_att *a = &m->atts[i];
            if ((a->var < 0) != (pass == 0)) continue;
            /* The array is named after the dataset and the attribute; as
             * upstream, each '.' of the attribute's name is first spelled
             * "_DOT_" (its escape for name segments), the rest as other
             * identifiers ("_PERIOD_" elsewhere). */
            size_t n = strlen(m->name) + 5 * strlen(a->name) + 2, k;
            char *full = malloc(n), *id;
            if (!full) return NC_ENOMEM;
            k = (size_t)snprintf(full, n, "%s_", m->name);
            for (const char *q = a->name; *q; q++) {
                if (*q == '.') { memcpy(full + k, "_DOT_", 5); k += 5; }
                else full[k++] = *q;
            }
            full[k] = '\0';
            id = ncg_lang_ident(full);
            free(full);
            if (!id) return NC_ENOMEM;
            c_att(x, a, id);
            free(id);
        }
        fputs("\n", f);
    }
    if (m->nofill)
        fputs("    /* don't initialize variables with fill values */\n"
              "    stat = nc_set_fill(ncid, NC_NOFILL, 0);\n    CHECK_ERR(stat);\n", f);
    fputs("\n    /* leave define mode */\n    stat = nc_enddef (ncid);\n    CHECK_ERR(stat);\n", f);
    if (!g->header_only && m->nvars) {
        fputs("\n    /* assign variable data */\n", f);
        for (int i = 0; i < m->nvars; i++)
            if ((stat = ncg_lang_slabs(g, i, c_slab, x))) return stat;
        fputs("\n", f);
    }
    fputs("    stat = nc_close(ncid);\n    CHECK_ERR(stat);\n    return 0;\n}\n", f);
    return NC_NOERR;
}

static int
c_finish(void *vctx, const ncg_model *m)
{
    cgen x;
    int stat;
    memset(&x, 0, sizeof x);
    x.g = vctx;
    x.f = x.g->out;
    if (!(stat = ncg_lang_idents(m, &x.vids, &x.dids))) stat = c_program(&x);
    ncg_lang_free_idents(m, x.vids, x.dids);
    ncg_lang_free(x.g);
    if (!stat && (fflush(x.f) || ferror(x.f))) stat = NC_EIO;
    return stat;
}

const ncg_sink ncg_c_sink = {
    .define = c_define,
    .put = ncg_lang_put,
    .finish = c_finish,
    .abort = ncg_lang_abort,
};
