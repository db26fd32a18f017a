/* ncgen C sink for the enhanced model (-l c on CDL with groups, user-defined
 * types, strings, inner unlimited dimensions or storage settings). Upstream's text for these is
 * not reproduced: the program makes the same library calls as the binary
 * sink (genbin.c), in the same order, so it rebuilds the same file.
 *
 * The definitions are printed at define(), each data slab at put() (no copy
 * of the data is kept). Values are printed as the bytes of their native
 * image (the program runs on the machine that generated it: same layout and
 * byte order); strings and vlens, which hold pointers, are then set by
 * statements, recursively. Every block the program allocates is freed
 * before it exits. */
#include "ncgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netcdf_aux.h>

static void
cstr(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\\' || ch == '"') fprintf(f, "\\%c", ch);
        else if (ch >= ' ' && ch < 0x7f) fputc(ch, f);
        else fprintf(f, "\\%03o", ch);      /* octal: never swallows a following digit */
    }
    fputc('"', f);
}

/* the bytes of a native image as a static array named nm */
static void
image(FILE *f, const char *nm, const void *p, size_t n)
{
    const unsigned char *b = p;
    fprintf(f, "    static const unsigned char %s[%zu] = {", nm, n ? n : 1);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%s0x%02x", i ? "," : "", i % 24 ? "" : "\n        ", b[i]);
    if (!n) fputs("0", f);
    fputs("};\n", f);
}

static int
hasptr(const ncg_model *m, int t)
{
    return t == NC_STRING || (t >= NCG_UTYPE && m->types[t - NCG_UTYPE].hasptr);
}

/* statements setting the pointers inside n values of type t at address
 * expression addr (an unsigned char *), from the parsed values at p */
static void
pointers(FILE *f, const ncg_model *m, int t, const unsigned char *p, size_t n, const char *addr, int depth)
{
    size_t es = ncg_size(m, t);
    if (!hasptr(m, t)) return;
    for (size_t i = 0; i < n; i++, p += es) {
        if (t == NC_STRING) {
            const char *s = *(char *const *)p;
            fprintf(f, "%*s*(char **)(%s + %zu) = ", 4 + 4 * depth, "", addr, i * es);
            if (s) { fputs("(char *)", f); cstr(f, s, strlen(s)); } else fputs("NULL", f);
            fputs(";\n", f);
            continue;
        }
        const ncg_type *ty = &m->types[t - NCG_UTYPE];
        if (ty->cls == NC_VLEN) {
            const nc_vlen_t *vl = (const nc_vlen_t *)p;
            size_t bes = ncg_size(m, ty->base);
            char sub[32], nm[32];
            snprintf(sub, sizeof sub, "q%d", depth);
            snprintf(nm, sizeof nm, "im%d", depth);
            fprintf(f, "%*s{\n", 4 + 4 * depth, "");
            image(f, nm, vl->p, vl->len * bes);
            fprintf(f, "%*sunsigned char *%s = keep(malloc(%zu));\n", 8 + 4 * depth, "", sub,
                    vl->len * bes > 0 ? vl->len * bes : (size_t)1);
            fprintf(f, "%*smemcpy(%s, %s, %zu);\n", 8 + 4 * depth, "", sub, nm, vl->len * bes);
            pointers(f, m, ty->base, vl->p, vl->len, sub, depth + 1);
            fprintf(f, "%*s((nc_vlen_t *)(%s + %zu))->len = %zu;\n", 8 + 4 * depth, "", addr, i * es, vl->len);
            fprintf(f, "%*s((nc_vlen_t *)(%s + %zu))->p = %s;\n", 8 + 4 * depth, "", addr, i * es, sub);
            fprintf(f, "%*s}\n", 4 + 4 * depth, "");
        } else if (ty->cls == NC_COMPOUND) {
            for (int k = 0; k < ty->nfields; k++) {
                const ncg_field *fl = &ty->fields[k];
                char sub[256];
                if (!hasptr(m, fl->type)) continue;
                snprintf(sub, sizeof sub, "(%s + %zu)", addr, i * es + fl->offset);
                if (strlen(sub) > 200) {
                    /* keep expressions short on deep nesting */
                    fprintf(f, "%*s{ unsigned char *r%d = %s;\n", 4 + 4 * depth, "", depth, sub);
                    snprintf(sub, sizeof sub, "r%d", depth);
                    pointers(f, m, fl->type, p + fl->offset, fl->nelems, sub, depth + 1);
                    fprintf(f, "%*s}\n", 4 + 4 * depth, "");
                } else pointers(f, m, fl->type, p + fl->offset, fl->nelems, sub, depth);
            }
        }
    }
}

/* "buf" holding n values of type t from p, declared in a new block */
static void
buffer(FILE *f, const ncg_model *m, int t, const void *p, size_t n)
{
    size_t bytes = n * ncg_size(m, t);
    image(f, "img", p, bytes);
    fprintf(f, "    unsigned char *buf = keep(malloc(%zu));\n", bytes ? bytes : 1);
    fprintf(f, "    memcpy(buf, img, %zu);\n", bytes);
    pointers(f, m, t, p, n, "buf", 0);
}

static int
c4_define(void *ctx, ncg_model *m)
{
    ncg_lang *g = ctx;
    FILE *f = g->out;
    int stat;
    /* the library's verdict on the definitions, as -b would give it */
    {
        const char *dir = getenv("TMPDIR");
        char path[4096];
        ncg_bin b;
        memset(&b, 0, sizeof b);
        snprintf(path, sizeof path, "%s/ncgen-check", dir && *dir && strlen(dir) < 4000 ? dir : "/tmp");
        b.path = path;
        stat = ncg_bin_sink.define(&b, m);
        ncg_bin_sink.abort(&b, m);
        free(b.tmp);
        if (stat) return stat;
    }
    g->m = m;
    fputs("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <netcdf.h>\n\n", f);
    fputs("/* every block allocated for the data, freed at the end */\n"
          "static void **kept;\nstatic size_t nkept;\n\n"
          "static void *\nkeep(void *p)\n{\n"
          "    void **k = realloc(kept, (nkept + 1) * sizeof *kept);\n"
          "    if (!p || !k) { fprintf(stderr, \"out of memory\\n\"); exit(1); }\n"
          "    kept = k;\n    kept[nkept++] = p;\n    return p;\n}\n\n"
          "static void\ncheck_err(const int stat, const int line, const char *file)\n{\n"
          "    if (stat != NC_NOERR) {\n"
          "        (void)fprintf(stderr, \"line %d of %s: %s\\n\", line, file, nc_strerror(stat));\n"
          "        fflush(stderr);\n        exit(1);\n    }\n}\n\n"
          "#define CHECK(x) check_err((x), __LINE__, __FILE__)\n\n", f);
    fprintf(f, "int\n%s(void)\n{\n", g->mainname ? g->mainname : "main");
    fprintf(f, "    int grp[%d], typ[%d], dim[%d], var[%d];\n", m->ngroups, m->ntypes ? m->ntypes : 1,
            m->ndims ? m->ndims : 1, m->nvars ? m->nvars : 1);
    fprintf(f, "    int dims[%d];\n", NC_MAX_VAR_DIMS);
    fputs("    (void)typ; (void)dim; (void)var; (void)dims;\n\n    CHECK(nc_create(", f);
    cstr(f, g->path, strlen(g->path));
    fprintf(f, ", %d | NC_CLOBBER, &grp[0]));\n", m->cmode);
    if (m->nofill) fputs("    {\n    int old;\n    CHECK(nc_set_fill(grp[0], NC_NOFILL, &old));\n    }\n", f);
    for (int i = 1; i < m->ngroups; i++) {
        fprintf(f, "    CHECK(nc_def_grp(grp[%d], ", m->groups[i].parent);
        cstr(f, m->groups[i].name, strlen(m->groups[i].name));
        fprintf(f, ", &grp[%d]));\n", i);
    }
#define TID(t) ((t) >= NCG_UTYPE ? "typ[" : ""), ((t) >= NCG_UTYPE ? (t) - NCG_UTYPE : (t)), ((t) >= NCG_UTYPE ? "]" : "")
    for (int k = 0; k < m->ntypes; k++) {
        int i = m->typeorder[k];
        const ncg_type *t = &m->types[i];
        switch (t->cls) {
        case NC_OPAQUE:
            fprintf(f, "    CHECK(nc_def_opaque(grp[%d], %zu, ", t->grp, t->size);
            cstr(f, t->name, strlen(t->name));
            fprintf(f, ", &typ[%d]));\n", i);
            break;
        case NC_VLEN:
            fprintf(f, "    CHECK(nc_def_vlen(grp[%d], ", t->grp);
            cstr(f, t->name, strlen(t->name));
            fprintf(f, ", %s%d%s, &typ[%d]));\n", TID(t->base), i);
            break;
        case NC_ENUM:
            fprintf(f, "    CHECK(nc_def_enum(grp[%d], %d, ", t->grp, t->base);
            cstr(f, t->name, strlen(t->name));
            fprintf(f, ", &typ[%d]));\n", i);
            for (int e = 0; e < t->nconsts; e++) {
                fputs("    {\n", f);
                image(f, "img", t->consts[e].val, t->size);
                fprintf(f, "    CHECK(nc_insert_enum(grp[%d], typ[%d], ", t->grp, i);
                cstr(f, t->consts[e].name, strlen(t->consts[e].name));
                fputs(", img));\n    }\n", f);
            }
            break;
        default:
            fprintf(f, "    CHECK(nc_def_compound(grp[%d], %zu, ", t->grp, t->size);
            cstr(f, t->name, strlen(t->name));
            fprintf(f, ", &typ[%d]));\n", i);
            for (int k2 = 0; k2 < t->nfields; k2++) {
                const ncg_field *fl = &t->fields[k2];
                if (fl->ndims == 0) {
                    fprintf(f, "    CHECK(nc_insert_compound(grp[%d], typ[%d], ", t->grp, i);
                    cstr(f, fl->name, strlen(fl->name));
                    fprintf(f, ", %zu, %s%d%s));\n", fl->offset, TID(fl->type));
                } else {
                    fprintf(f, "    {\n    static const int fd[] = {");
                    for (int d = 0; d < fl->ndims; d++) fprintf(f, "%s%d", d ? ", " : "", fl->dims[d]);
                    fprintf(f, "};\n    CHECK(nc_insert_array_compound(grp[%d], typ[%d], ", t->grp, i);
                    cstr(f, fl->name, strlen(fl->name));
                    fprintf(f, ", %zu, %s%d%s, %d, fd));\n    }\n", fl->offset, TID(fl->type), fl->ndims);
                }
            }
            break;
        }
    }
    for (int i = 0; i < m->ndims; i++) {
        fprintf(f, "    CHECK(nc_def_dim(grp[%d], ", m->dims[i].grp);
        cstr(f, m->dims[i].name, strlen(m->dims[i].name));
        if (m->dims[i].unlimited) fprintf(f, ", NC_UNLIMITED, &dim[%d]));\n", i);
        else fprintf(f, ", %zu, &dim[%d]));\n", m->dims[i].len, i);
    }
    for (int i = 0; i < m->nvars; i++) {
        const ncg_var *v = &m->vars[i];
        for (int d = 0; d < v->ndims; d++) fprintf(f, "    dims[%d] = dim[%d];\n", d, v->dims[d]);
        fprintf(f, "    CHECK(nc_def_var(grp[%d], ", v->grp);
        cstr(f, v->name, strlen(v->name));
        fprintf(f, ", %s%d%s, %d, dims, &var[%d]));\n", TID(v->type), v->ndims, i);
    }
    for (int i = 0; i < m->nvars; i++) {
        const ncg_var *v = &m->vars[i];
        int gi = v->grp;
        if (v->storage >= 0) {
            if (v->storage == NC_CHUNKED && v->nchunks) {
                fputs("    {\n    static const size_t cs[] = {", f);
                for (int k = 0; k < v->nchunks; k++) fprintf(f, "%s%zu", k ? ", " : "", v->chunks[k]);
                fprintf(f, "};\n    CHECK(nc_def_var_chunking(grp[%d], var[%d], NC_CHUNKED, cs));\n    }\n", gi, i);
            } else fprintf(f, "    CHECK(nc_def_var_chunking(grp[%d], var[%d], %d, NULL));\n", gi, i, v->storage);
        }
        if (v->fletcher32 >= 0) fprintf(f, "    CHECK(nc_def_var_fletcher32(grp[%d], var[%d], %d));\n", gi, i, v->fletcher32);
        if (v->deflate >= 0 || v->shuffle >= 0)
            fprintf(f, "    CHECK(nc_def_var_deflate(grp[%d], var[%d], %d, %d, %d));\n", gi, i, v->shuffle == 1,
                    v->deflate >= 0, v->deflate >= 0 ? v->deflate : 0);
        if (v->endian >= 0) fprintf(f, "    CHECK(nc_def_var_endian(grp[%d], var[%d], %d));\n", gi, i, v->endian);
        if (v->nofill >= 0) fprintf(f, "    CHECK(nc_def_var_fill(grp[%d], var[%d], %d, NULL));\n", gi, i, v->nofill);
        if (v->filter) {
            size_t n = 0;
            NC_H5_Filterspec **specs = NULL;
            int fmt = 0;
            if ((stat = ncaux_h5filterspec_parselist(v->filter, &fmt, &n, &specs))) return stat;
            for (size_t k = 0; k < n; k++) {
                fputs("    {\n    static const unsigned int fp[] = {", f);
                for (size_t q = 0; q < specs[k]->nparams; q++) fprintf(f, "%s%uU", q ? ", " : "", specs[k]->params[q]);
                if (!specs[k]->nparams) fputs("0", f);
                fprintf(f, "};\n    CHECK(nc_def_var_filter(grp[%d], var[%d], %uU, %zu, fp));\n    }\n", gi, i,
                        specs[k]->filterid, specs[k]->nparams);
            }
            for (size_t k = 0; k < n; k++) ncaux_h5filterspec_free(specs[k]);
            free(specs);
        }
        if (v->quantize > 0)
            fprintf(f, "    CHECK(nc_def_var_quantize(grp[%d], var[%d], %d, %d));\n", gi, i, v->quantize, v->nsd);
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < m->natts; i++) {
            const ncg_att *a = &m->atts[i];
            if ((a->var < 0) != (pass == 0)) continue;
            char vid[32];
            if (a->var < 0) snprintf(vid, sizeof vid, "NC_GLOBAL");
            else snprintf(vid, sizeof vid, "var[%d]", a->var);
            fputs("    {\n", f);
            if (a->type == NC_CHAR) {
                fprintf(f, "    static const char txt[] = ");
                cstr(f, a->data, a->len);
                fprintf(f, ";\n    CHECK(nc_put_att_text(grp[%d], %s, ", a->grp, vid);
                cstr(f, a->name, strlen(a->name));
                fprintf(f, ", %zu, txt));\n", a->len);
            } else {
                buffer(f, m, a->type, a->data, a->len);
                fprintf(f, "    CHECK(nc_put_att(grp[%d], %s, ", a->grp, vid);
                cstr(f, a->name, strlen(a->name));
                fprintf(f, ", %s%d%s, %zu, buf));\n", TID(a->type), a->len);
            }
            fputs("    }\n", f);
        }
    fputs("    CHECK(nc_enddef(grp[0]));\n", f);
    return ferror(f) ? NC_EIO : NC_NOERR;
#undef TID
}

static int
c4_put(void *ctx, const ncg_model *m, int var, const size_t *start, const size_t *count, const void *data)
{
    ncg_lang *g = ctx;
    FILE *f = g->out;
    const ncg_var *v = &m->vars[var];
    size_t n = 1;
    if (g->header_only) return NC_NOERR;
    for (int d = 0; d < v->ndims; d++) n *= count[d];
    fputs("    {\n", f);
    int nd = v->ndims ? v->ndims : 1;
    fputs("    static const size_t st[] = {", f);
    for (int d = 0; d < nd; d++) fprintf(f, "%s%zu", d ? ", " : "", v->ndims ? start[d] : 0);
    fputs("}, ct[] = {", f);
    for (int d = 0; d < nd; d++) fprintf(f, "%s%zu", d ? ", " : "", v->ndims ? count[d] : 1);
    fputs("};\n", f);
    buffer(f, m, v->type, data, n);
    fprintf(f, "    CHECK(nc_put_vara(grp[%d], var[%d], st, ct, buf));\n    }\n", v->grp, var);
    return ferror(f) ? NC_EIO : NC_NOERR;
}

static int
c4_finish(void *ctx, const ncg_model *m)
{
    ncg_lang *g = ctx;
    FILE *f = g->out;
    (void)m;
    fputs("    CHECK(nc_close(grp[0]));\n"
          "    for (size_t i = 0; i < nkept; i++) free(kept[i]);\n"
          "    free(kept);\n    return 0;\n}\n", f);
    g->m = NULL;
    return ferror(f) ? NC_EIO : NC_NOERR;
}

static void
c4_abort(void *ctx, const ncg_model *m)
{
    (void)m;
    ((ncg_lang *)ctx)->m = NULL;
}

const ncg_sink ncg_c4_sink = {
    .define = c4_define,
    .put = c4_put,
    .finish = c4_finish,
    .abort = c4_abort,
};

int
ncg_enhanced(const ncg_model *m)
{
    if (m->ngroups > 1 || m->ntypes > 0) return 1;
    for (int i = 0; i < m->nvars; i++) {
        const ncg_var *v = &m->vars[i];
        if (v->type == NC_STRING) return 1;
        /* storage settings: upstream's classic text has no place for them */
        if (v->storage >= 0 || v->deflate >= 0 || v->shuffle >= 0 || v->fletcher32 >= 0 || v->endian >= 0 ||
            v->filter || v->quantize > 0)
            return 1;
        for (int d = 1; d < m->vars[i].ndims; d++)
            if (m->dims[m->vars[i].dims[d]].unlimited) return 1;
    }
    for (int i = 0; i < m->natts; i++)
        if (m->atts[i].type == NC_STRING) return 1;
    return 0;
}
