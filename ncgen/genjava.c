/* ncgen Java sink (-l java): prints a program for the netCDF-Java 4
 * NetcdfFileWriteable API with the layout of upstream ncgen's generator
 * (same sections, comments, blocks and write slabs). Where upstream 4.9.0's
 * text does not compile or cannot run, this one differs: the unlimited
 * dimension stays unlimited, each Array has the shape of the slab it writes,
 * char data keep their NULs, strings escape backslashes, scalar chars are
 * one quoted char and infinities use Float/Double.*_INFINITY. The data
 * capture and slab order are shared with the Fortran sink (genf77.c). */
#include "ncgen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jv {
    ncg_lang *g;
    ncg_sb b;
    char **ids;
    char **dids;
} jv;

static const char *
jcaps(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "BYTE";
    case NC_CHAR: return "CHAR";
    case NC_SHORT: return "SHORT";
    case NC_INT: return "INT";
    case NC_FLOAT: return "FLOAT";
    default: return "DOUBLE";
    }
}

static const char *
jcap(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "Byte";
    case NC_CHAR: return "Char";
    case NC_SHORT: return "Short";
    case NC_INT: return "Int";
    case NC_FLOAT: return "Float";
    default: return "Double";
    }
}

static const char *
jtype(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "byte";
    case NC_CHAR: return "char";
    case NC_SHORT: return "short";
    case NC_INT: return "int";
    case NC_FLOAT: return "float";
    default: return "double";
    }
}

/* one UTF-16 unit inside a Java literal delimited by quote */
static void
junit(ncg_sb *b, unsigned c, int quote)
{
    if (c >= ' ' && c < 0x7f) {
        if ((int)c == quote || c == '\\') ncg_sb_puts(b, "\\");
        char ch = (char)c;
        ncg_sb_add(b, &ch, 1);
        return;
    }
    switch (c) {
    case '\t': ncg_sb_puts(b, "\\t"); return;
    case '\b': ncg_sb_puts(b, "\\b"); return;
    case '\n': ncg_sb_puts(b, "\\n"); return;
    case '\r': ncg_sb_puts(b, "\\r"); return;
    case '\f': ncg_sb_puts(b, "\\f"); return;
    default: ncg_sb_printf(b, "\\u%04X", c); return;
    }
}

/* Text that Java writes as UTF-8 (names, text attributes): decoded to
 * UTF-16; a byte that is not part of valid UTF-8 stands for itself. */
static void
jtext(ncg_sb *b, const char *s0, size_t n)
{
    const unsigned char *s = (const unsigned char *)s0;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], cp = 0;
        size_t k = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 1;
        if (c < 0x80 || k == 1 || i + k > n) k = 1;
        else {
            cp = c & (0xFF >> (k + 1));
            for (size_t j = 1; j < k; j++) {
                if ((s[i + j] & 0xC0) != 0x80) { k = 1; break; }
                cp = cp << 6 | (s[i + j] & 0x3F);
            }
            if (k == 3 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) k = 1;
            if (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) k = 1;
        }
        if (k == 1) junit(b, c, '"');
        else if (cp >= 0x10000) {
            junit(b, 0xD800 + ((cp - 0x10000) >> 10), '"');
            junit(b, 0xDC00 + ((cp - 0x10000) & 0x3FF), '"');
        } else junit(b, cp, '"');
        i += k;
    }
}

static void
jquoted(ncg_sb *b, const char *s)
{
    ncg_sb_puts(b, "\"");
    jtext(b, s, strlen(s));
    ncg_sb_puts(b, "\"");
}

static void
jvalue(ncg_sb *b, nc_type t, const void *p)
{
    switch (t) {
    case NC_BYTE: ncg_sb_printf(b, "%d", *(const signed char *)p); return;
    case NC_CHAR: ncg_sb_printf(b, "%d", *(const signed char *)p); return;
    case NC_SHORT: ncg_sb_printf(b, "%d", *(const short *)p); return;
    case NC_INT: ncg_sb_printf(b, "%d", *(const int *)p); return;
    case NC_FLOAT: {
        float v = *(const float *)p;
        if (isnan(v)) ncg_sb_puts(b, "Float.NaN");
        else if (isinf(v)) ncg_sb_puts(b, v < 0 ? "Float.NEGATIVE_INFINITY" : "Float.POSITIVE_INFINITY");
        else ncg_sb_printf(b, "((float)%.8g)", (double)v);
        return;
    }
    default: {
        double v = *(const double *)p;
        if (isnan(v)) ncg_sb_puts(b, "Double.NaN");
        else if (isinf(v)) ncg_sb_puts(b, v < 0 ? "Double.NEGATIVE_INFINITY" : "Double.POSITIVE_INFINITY");
        else ncg_sb_printf(b, "((double)%.16g)", v);
        return;
    }
    }
}

/* "ncfile.add...Attribute(" naming the target variable, then the attribute's name. */
static void
jatt_target(ncg_sb *b, const ncg_model *m, const ncg_att *a)
{
    if (a->var < 0) ncg_sb_puts(b, "    ncfile.addGlobalAttribute(");
    else {
        ncg_sb_puts(b, "    ncfile.addVariableAttribute(");
        jquoted(b, m->vars[a->var].name);
        ncg_sb_puts(b, ",");
    }
    jquoted(b, a->name);
}

static void
jatt(jv *x, const ncg_att *a)
{
    ncg_sb *b = &x->b;
    const ncg_model *m = x->g->m;
    ncg_sb_printf(b, "    /* attribute: %s */\n", a->name);
    if (a->type == NC_CHAR) {
        jatt_target(b, m, a);
        ncg_sb_puts(b, ",\"");
        /* the NUL that stands for "" is left to the Java library, as upstream */
        if (!(a->len == 1 && !*(const char *)a->data)) jtext(b, a->data, a->len);
        ncg_sb_puts(b, "\");\n");
        return;
    }
    size_t es = ncg_typesize(a->type);
    ncg_sb_puts(b, "    {\n");
    ncg_sb_printf(b, "    Array data = Array.factory(%s.class, new int[]{%zu}, new %s[]{", jtype(a->type), a->len,
                  jtype(a->type));
    for (size_t i = 0; i < a->len; i++) {
        if (i) ncg_sb_puts(b, ", ");
        jvalue(b, a->type, (const char *)a->data + i * es);
    }
    ncg_sb_puts(b, "});\n");
    jatt_target(b, m, a);
    ncg_sb_puts(b, ",data);\n    }\n");
}

static int
jslab(void *ctx, int var, const size_t *start, const size_t *count, const void *data, size_t n)
{
    jv *x = ctx;
    const ncg_var *v = &x->g->m->vars[var];
    ncg_sb *b = &x->b;
    nc_type t = v->type;
    size_t es = ncg_typesize(t);

    ncg_sb_puts(b, "\n    {\n");
    if (v->ndims == 0) {
        ncg_sb_printf(b, "    Array%s.D0 data = new Array%s.D0();\n", jcap(t), jcap(t));
        if (t == NC_CHAR) {
            ncg_sb_puts(b, "    data.set((char)'");
            junit(b, *(const unsigned char *)data, '\'');
            ncg_sb_puts(b, "');\n");
        } else {
            ncg_sb_printf(b, "    data.set((%s)", jtype(t));
            jvalue(b, t, data);
            ncg_sb_puts(b, ");\n");
        }
        ncg_sb_puts(b, "    ncfile.write(");
        jquoted(b, v->name);
        ncg_sb_puts(b, ",data);\n    }\n");
        return b->err ? NC_ENOMEM : NC_NOERR;
    }
    if (t == NC_CHAR) {
        /* each Java char is written as one byte: escape byte by byte */
        ncg_sb_puts(b, "    String contents = \"");
        for (size_t i = 0; i < n; i++) junit(b, ((const unsigned char *)data)[i], '"');
        ncg_sb_puts(b, "\";\n");
    } else {
        ncg_sb_printf(b, "    %s[] contents = new %s[] {", jtype(t), jtype(t));
        for (size_t i = 0; i < n; i++) {
            if (i) ncg_sb_puts(b, ", ");
            jvalue(b, t, (const char *)data + i * es);
        }
        ncg_sb_puts(b, "};\n");
    }
    ncg_sb_printf(b, "    Array%s data = new Array%s(new int[]{", jcap(t), jcap(t));
    for (int i = 0; i < v->ndims; i++) ncg_sb_printf(b, "%s%zu", i ? ", " : "", count[i]);
    ncg_sb_puts(b, "});\n");
    ncg_sb_puts(b, "    IndexIterator iter = data.getIndexIterator();\n"
                   "    int count = 0;\n"
                   "    while(iter.hasNext())\n");
    if (t == NC_CHAR) ncg_sb_puts(b, "        iter.setCharNext(contents.charAt(count++));\n");
    else ncg_sb_printf(b, "        iter.set%sNext(contents[count++]);\n", jcap(t));
    ncg_sb_puts(b, "    int[] origin = new int[]{");
    for (int i = 0; i < v->ndims; i++) ncg_sb_printf(b, "%s%zu", i ? ", " : "", start[i]);
    ncg_sb_puts(b, "};\n    ncfile.write(");
    jquoted(b, v->name);
    ncg_sb_puts(b, ",origin,data);\n    }\n");
    return b->err ? NC_ENOMEM : NC_NOERR;
}

static int
jprogram(jv *x)
{
    ncg_lang *g = x->g;
    const ncg_model *m = g->m;
    ncg_sb *b = &x->b;
    int ngatts = 0, nvatts = 0, stat;
    const char *cls = g->mainname && strcmp(g->mainname, "main") ? g->mainname : "Main";

    for (int i = 0; i < m->natts; i++)
        if (m->atts[i].var < 0) ngatts++; else nvatts++;
    ncg_sb_printf(b, "import java.util.*;\nimport ucar.ma2.*;\nimport ucar.nc2.*;\nimport ucar.nc2.NetcdfFile.*;\n\n"
                  "public class %s\n{\n\nstatic public void main(String[] argv) throws Exception\n{\n", cls);
    if (m->ndims) {
        ncg_sb_puts(b, "\n    /* dimension lengths */\n");
        for (int i = 0; i < m->ndims; i++)
            ncg_sb_printf(b, "    final int %s_len = %zu;\n", x->dids[i], m->dims[i].unlimited ? 0 : m->dims[i].len);
    }
    ncg_sb_puts(b, "\n\n    /* enter define mode */\n"
                   "    NetcdfFileWriteable ncfile = NetcdfFileWriteable.createNew(");
    jquoted(b, g->path);
    ncg_sb_printf(b, ", %s);\n", m->nofill ? "false" : "true");
    if (m->ndims) {
        ncg_sb_puts(b, "\n    /* define dimensions */\n");
        for (int i = 0; i < m->ndims; i++) {
            ncg_sb_printf(b, "    Dimension %s_dim = ncfile.", x->dids[i]);
            ncg_sb_puts(b, m->dims[i].unlimited ? "addUnlimitedDimension(" : "addDimension(");
            jquoted(b, m->dims[i].name);
            if (m->dims[i].unlimited) ncg_sb_puts(b, ");\n");
            else ncg_sb_printf(b, ", %s_len);\n", x->dids[i]);
        }
    }
    if (m->nvars) {
        ncg_sb_puts(b, "\n    /* define variables */\n");
        for (int i = 0; i < m->nvars; i++) {
            const ncg_var *v = &m->vars[i];
            ncg_sb_printf(b, "\n    ArrayList %s_dimlist = new ArrayList();\n", x->ids[i]);
            for (int d = 0; d < v->ndims; d++)
                ncg_sb_printf(b, "    %s_dimlist.add(%s_dim);\n", x->ids[i], x->dids[v->dims[d]]);
            ncg_sb_puts(b, "    ncfile.addVariable(");
            jquoted(b, v->name);
            ncg_sb_printf(b, ", DataType.%s, %s_dimlist);\n", jcaps(v->type), x->ids[i]);
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        if (!(pass ? nvatts : ngatts)) continue;
        ncg_sb_puts(b, pass ? "\n    /* assign per-variable attributes */\n" : "\n    /* assign global attributes */\n");
        for (int i = 0; i < m->natts; i++)
            if ((m->atts[i].var >= 0) == pass) jatt(x, &m->atts[i]);
        ncg_sb_puts(b, "\n");
    }
    ncg_sb_puts(b, "    ncfile.create();\n");
    if (m->nvars && !g->header_only) {
        ncg_sb_puts(b, "\n    /* assign variable data */\n");
        for (int i = 0; i < m->nvars; i++)
            if ((stat = ncg_lang_slabs(g, i, jslab, x))) return stat;
        ncg_sb_puts(b, "\n");
    }
    ncg_sb_puts(b, "    ncfile.close();\n\n    }\n}\n");
    return b->err ? NC_ENOMEM : NC_NOERR;
}

static int
j_finish(void *vctx, const ncg_model *m)
{
    ncg_lang *g = vctx;
    FILE *f = g->out;
    jv x;
    int stat = NC_ENOMEM;
    memset(&x, 0, sizeof x);
    x.g = g;
    if ((stat = ncg_lang_idents(m, &x.ids, &x.dids))) goto done;
    if ((stat = jprogram(&x))) goto done;
    if (fwrite(x.b.p, 1, x.b.len, f) != x.b.len || fflush(f) || ferror(f)) stat = NC_EIO;
done:
    ncg_lang_free_idents(m, x.ids, x.dids);
    free(x.b.p);
    ncg_lang_free(g);
    return stat;
}

const ncg_sink ncg_java_sink = {
    .define = ncg_lang_define,
    .put = ncg_lang_put,
    .finish = j_finish,
    .abort = ncg_lang_abort,
};
