/* ncgen C sink (-l c): prints a C program that makes the same netCDF API
 * calls, in the same order and with the same values, as the binary sink, so
 * compiling and running it rebuilds a byte-identical file. Values are printed
 * exactly (C99 hexadecimal floating constants, NAN/INFINITY for specials). */
#include "ncgen.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *
tname(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "NC_BYTE";
    case NC_CHAR: return "NC_CHAR";
    case NC_UBYTE: return "NC_UBYTE";
    case NC_SHORT: return "NC_SHORT";
    case NC_USHORT: return "NC_USHORT";
    case NC_INT: return "NC_INT";
    case NC_UINT: return "NC_UINT";
    case NC_INT64: return "NC_INT64";
    case NC_UINT64: return "NC_UINT64";
    case NC_FLOAT: return "NC_FLOAT";
    default: return "NC_DOUBLE";
    }
}

static const char *
ctype(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "signed char";
    case NC_CHAR: return "char";
    case NC_UBYTE: return "unsigned char";
    case NC_SHORT: return "short";
    case NC_USHORT: return "unsigned short";
    case NC_INT: return "int";
    case NC_UINT: return "unsigned int";
    case NC_INT64: return "long long";
    case NC_UINT64: return "unsigned long long";
    case NC_FLOAT: return "float";
    default: return "double";
    }
}

/* a C string literal; octal escapes are always three digits */
static void
cstring(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < ' ' || ch >= 0x7f || ch == '?') fprintf(f, "\\%03o", ch);
        else fputc(ch, f);
        if (i % 64 == 63 && i + 1 < n) fputs("\"\n    \"", f);
    }
    fputc('"', f);
}

static void
value(FILE *f, nc_type t, const void *p)
{
    switch (t) {
    case NC_BYTE: fprintf(f, "%d", *(const signed char *)p); break;
    case NC_CHAR: case NC_UBYTE: fprintf(f, "%u", *(const unsigned char *)p); break;
    case NC_SHORT: fprintf(f, "%d", *(const short *)p); break;
    case NC_USHORT: fprintf(f, "%u", *(const unsigned short *)p); break;
    case NC_INT: {
        int v = *(const int *)p;
        if (v == INT32_MIN) fputs("(-2147483647-1)", f); else fprintf(f, "%d", v);
        break;
    }
    case NC_UINT: fprintf(f, "%uU", *(const unsigned int *)p); break;
    case NC_INT64: {
        long long v = *(const long long *)p;
        if (v == INT64_MIN) fputs("(-9223372036854775807LL-1)", f); else fprintf(f, "%lldLL", v);
        break;
    }
    case NC_UINT64: fprintf(f, "%lluULL", *(const unsigned long long *)p); break;
    case NC_FLOAT: {
        float v = *(const float *)p;
        if (isnan(v)) fputs(signbit(v) ? "-NAN" : "NAN", f);
        else if (isinf(v)) fputs(v < 0 ? "-INFINITY" : "INFINITY", f);
        else fprintf(f, "%af", (double)v);
        break;
    }
    default: {
        double v = *(const double *)p;
        if (isnan(v)) fputs(signbit(v) ? "-(double)NAN" : "(double)NAN", f);
        else if (isinf(v)) fputs(v < 0 ? "-(double)INFINITY" : "(double)INFINITY", f);
        else fprintf(f, "%a", v);
        break;
    }
    }
}

static void
array(FILE *f, const char *name, nc_type t, const void *data, size_t n)
{
    size_t es = ncg_typesize(t);
    fprintf(f, "    static const %s %s[%zu] = {", ctype(t), name, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0) fputs("\n        ", f);
        value(f, t, (const char *)data + i * es);
        if (i + 1 < n) fputs(", ", f);
    }
    if (!n) fputs("0", f);
    fputs("};\n", f);
}

static int
c_define(void *vctx, ncg_model *m)
{
    ncg_c *g = vctx;
    FILE *f = g->out;
    fputs("#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n#include <netcdf.h>\n\n"
          "static void\ncheck_err(int stat, int line)\n{\n"
          "    if (stat != NC_NOERR) {\n"
          "        fprintf(stderr, \"line %d: %s\\n\", line, nc_strerror(stat));\n"
          "        exit(1);\n    }\n}\n#define CHECK(e) check_err((e), __LINE__)\n\n", f);
    fprintf(f, "int\n%s(void)\n{\n    int ncid, old_fill_mode;\n", g->mainname ? g->mainname : "main");
    fprintf(f, "    int dimids[%d];\n    int varids[%d];\n", m->ndims ? m->ndims : 1, m->nvars ? m->nvars : 1);
    fputs("    (void)old_fill_mode; (void)dimids; (void)varids;\n\n    CHECK(nc_create(", f);
    cstring(f, g->path, strlen(g->path));
    fprintf(f, ", %d | NC_CLOBBER, &ncid));\n\n", m->cmode);
    for (int i = 0; i < m->ndims; i++) {
        fputs("    CHECK(nc_def_dim(ncid, ", f);
        cstring(f, m->dims[i].name, strlen(m->dims[i].name));
        if (m->dims[i].unlimited) fprintf(f, ", NC_UNLIMITED, &dimids[%d]));\n", i);
        else fprintf(f, ", %zuUL, &dimids[%d]));\n", m->dims[i].len, i);
        m->dims[i].id = i;
    }
    for (int i = 0; i < m->nvars; i++) {
        ncg_var *v = &m->vars[i];
        fputs("    {\n", f);
        fprintf(f, "        int d[%d] = {", v->ndims ? v->ndims : 1);
        for (int d = 0; d < v->ndims; d++) fprintf(f, "%sdimids[%d]", d ? ", " : "", v->dims[d]);
        if (!v->ndims) fputs("0", f);
        fputs("};\n        CHECK(nc_def_var(ncid, ", f);
        cstring(f, v->name, strlen(v->name));
        fprintf(f, ", %s, %d, d, &varids[%d]));\n    }\n", tname(v->type), v->ndims, i);
        v->id = i;
    }
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].nofill >= 0)
            fprintf(f, "    CHECK(nc_def_var_fill(ncid, varids[%d], %d, NULL));\n", i, m->vars[i].nofill);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < m->natts; i++) {
            ncg_att *a = &m->atts[i];
            if ((a->var < 0) != (pass == 0)) continue;
            char vid[32];
            if (a->var < 0) strcpy(vid, "NC_GLOBAL");
            else snprintf(vid, sizeof vid, "varids[%d]", a->var);
            if (a->type == NC_CHAR) {
                fprintf(f, "    CHECK(nc_put_att_text(ncid, %s, ", vid);
                cstring(f, a->name, strlen(a->name));
                fprintf(f, ", %zuUL, ", a->len);
                cstring(f, a->data, a->len);
                fputs("));\n", f);
            } else {
                fputs("    {\n    ", f);
                array(f, "a", a->type, a->data, a->len);
                fprintf(f, "        CHECK(nc_put_att(ncid, %s, ", vid);
                cstring(f, a->name, strlen(a->name));
                fprintf(f, ", %s, %zuUL, a));\n    }\n", tname(a->type), a->len);
            }
        }
    if (m->nofill) fputs("    CHECK(nc_set_fill(ncid, NC_NOFILL, &old_fill_mode));\n", f);
    fputs("    CHECK(nc_enddef(ncid));\n\n", f);
    return ferror(f) ? NC_EIO : NC_NOERR;
}

static int
c_put(void *vctx, const ncg_model *m, int var, const size_t *start, const size_t *count, const void *buf)
{
    ncg_c *g = vctx;
    FILE *f = g->out;
    const ncg_var *v = &m->vars[var];
    size_t n = 1;
    char name[48];
    for (int i = 0; i < v->ndims; i++) n *= count[i];
    snprintf(name, sizeof name, "data%lu", g->nslab++);
    fputs("    {\n", f);
    fprintf(f, "        static const size_t s[%d] = {", v->ndims ? v->ndims : 1);
    for (int i = 0; i < v->ndims; i++) fprintf(f, "%s%zu", i ? ", " : "", start[i]);
    if (!v->ndims) fputs("0", f);
    fprintf(f, "}, c[%d] = {", v->ndims ? v->ndims : 1);
    for (int i = 0; i < v->ndims; i++) fprintf(f, "%s%zu", i ? ", " : "", count[i]);
    if (!v->ndims) fputs("1", f);
    fputs("};\n    ", f);
    if (v->type == NC_CHAR) {
        fprintf(f, "    static const char %s[] = ", name);
        cstring(f, buf, n);
        fprintf(f, ";\n        CHECK(nc_put_vara_text(ncid, varids[%d], s, c, %s));\n    }\n", var, name);
    } else {
        array(f, name, v->type, buf, n);
        fprintf(f, "        CHECK(nc_put_vara(ncid, varids[%d], s, c, %s));\n    }\n", var, name);
    }
    return ferror(f) ? NC_EIO : NC_NOERR;
}

static int
c_finish(void *vctx, const ncg_model *m)
{
    ncg_c *g = vctx;
    (void)m;
    fputs("    CHECK(nc_close(ncid));\n    return 0;\n}\n", g->out);
    return fflush(g->out) || ferror(g->out) ? NC_EIO : NC_NOERR;
}

static void
c_abort(void *vctx, const ncg_model *m)
{
    (void)vctx;
    (void)m;
}

const ncg_sink ncg_c_sink = {
    .define = c_define,
    .put = c_put,
    .finish = c_finish,
    .abort = c_abort,
};
