/* daux.c: the helpers of netcdf_aux.h (except the plugin-path ones, which
 * live in dplugin.c beside the path they manage).
 *
 * Sections: wrappers of the instance calls; HDF5 filter-spec parsing;
 * whole-file read/write; alignment and compound building; _NCProperties
 * parsing.
 *
 * Filter-spec syntax (upstream's, see docs/filters.md): "id,p1,p2,..." with
 * specs joined by '|' and an optional "[format]" prefix on a list.  Each
 * parameter is a constant with an optional type tag: b/B byte, s/S short,
 * none or u/U 32-bit int, f/F float, d/D double, l/L 64-bit int, with a
 * leading u/U for unsigned (e.g. "23ub", "-25S", "93U", "789f",
 * "1.5d", "-9L", "18446744073709551615UL").  Bytes and shorts are masked to
 * 8/16 bits; doubles and 64-bit ints become two unsigned ints in
 * little-endian order (ncaux_h5filterspec_fix8).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "netcdf_aux.h"
#include "netcdf_filter.h"
#include "ncinstance.h"

/* ---- wrappers ------------------------------------------------------------- */

int
ncaux_reclaim_data(int ncid, int xtype, void *memory, size_t count)
{
    return nc_reclaim_data(ncid, xtype, memory, count);
}

int
ncaux_reclaim_data_all(int ncid, int xtype, void *memory, size_t count)
{
    return nc_reclaim_data_all(ncid, xtype, memory, count);
}

int
ncaux_copy_data(int ncid, int xtype, void *memory, size_t count, void *copy)
{
    return nc_copy_data(ncid, xtype, memory, count, copy);
}

int
ncaux_copy_data_all(int ncid, int xtype, void *memory, size_t count, void **copyp)
{
    return nc_copy_data_all(ncid, xtype, memory, count, copyp);
}

int
ncaux_dump_data(int ncid, nc_type xtypeid, void *memory, size_t count, char **buf)
{
    return nc_dump_data(ncid, xtypeid, memory, count, buf);
}

int
ncaux_inq_any_type(int ncid, nc_type typeid, char *name, size_t *size, nc_type *basetypep,
                   size_t *nfieldsp, int *classp)
{
    return NC_inq_any_type(ncid, typeid, name, size, basetypep, nfieldsp, classp);
}

/* ---- filter specs ----------------------------------------------------------- */

static int
host_is_big_endian(void)
{
    const unsigned int one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 0;
}

static void
swap_bytes(unsigned char *mem, size_t n)
{
    size_t i;
    for (i = 0; i < n / 2; i++) {
        unsigned char c = mem[i];
        mem[i] = mem[n - 1 - i];
        mem[n - 1 - i] = c;
    }
}

void
ncaux_h5filterspec_fix8(unsigned char *mem, int decode)
{
    if (mem == NULL || !host_is_big_endian())
        return; /* little-endian hosts already hold the stored form */
    if (decode) {
        swap_bytes(mem, 4);
        swap_bytes(mem + 4, 4);
        swap_bytes(mem, 8);
    } else {
        swap_bytes(mem, 8);
        swap_bytes(mem, 4);
        swap_bytes(mem + 4, 4);
    }
}

static int
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Convert one parameter constant (len bytes at p) into one or two unsigned
 * ints at out; *np gets how many. */
static int
convert_param(const char *p, size_t len, size_t *np, unsigned int *out)
{
    char buf[128];
    char *end;
    char tag, last, prev;
    int isunsigned = 0, negative;
    size_t taglen = 0;
    unsigned char mem8[8];

    while (len > 0 && is_space(*p)) {
        p++;
        len--;
    }
    while (len > 0 && is_space(p[len - 1]))
        len--;
    if (len == 0 || len >= sizeof(buf))
        return NC_EINVAL;
    memcpy(buf, p, len);
    buf[len] = '\0';
    negative = (buf[0] == '-');

    /* The tag is the last character, possibly preceded by u/U. */
    last = buf[len - 1];
    prev = (len >= 3 ? buf[len - 2] : '\0');
    switch (last) {
    case 'f': case 'F': case '.': tag = 'f'; break;
    case 'd': case 'D': tag = 'd'; break;
    case 'b': case 'B': tag = 'b'; break;
    case 's': case 'S': tag = 's'; break;
    case 'l': case 'L': tag = 'l'; break;
    case 'u': case 'U': tag = 'i'; isunsigned = 1; break;
    default:
        if (last < '0' || last > '9')
            return NC_EINVAL;
        tag = 'i';
        break;
    }
    /* A trailing '.' ("1.5.") marks a float too, as upstream reads it. */
    if (last < '0' || last > '9')
        taglen = 1;
    if (taglen == 1 && (prev == 'u' || prev == 'U') && tag != 'i') {
        isunsigned = 1;
        taglen = 2;
    }
    buf[len - taglen] = '\0';
    if (buf[0] == '\0')
        return NC_EINVAL;

    errno = 0;
    switch (tag) {
    case 'b': case 's': case 'i': {
        unsigned int v;
        if (negative) {
            long long sv = strtoll(buf, &end, 10);
            if (*end != '\0' || errno || sv < INT_MIN)
                return NC_EINVAL;
            v = (unsigned int)(int)sv;
        } else {
            unsigned long long uv = strtoull(buf, &end, 10);
            if (*end != '\0' || errno || uv > UINT_MAX)
                return NC_EINVAL;
            v = (unsigned int)uv;
        }
        if (tag == 'b')
            v &= 0xFFu;
        else if (tag == 's')
            v &= 0xFFFFu;
        out[0] = v;
        *np = 1;
        return NC_NOERR;
    }
    case 'f': {
        double d = strtod(buf, &end);
        float f = (float)d;
        if (*end != '\0')
            return NC_EINVAL;
        memcpy(&out[0], &f, sizeof(float));
        *np = 1;
        return NC_NOERR;
    }
    case 'd': {
        double d = strtod(buf, &end);
        if (*end != '\0')
            return NC_EINVAL;
        memcpy(mem8, &d, 8);
        break;
    }
    default: { /* 'l' */
        if (isunsigned && !negative) {
            unsigned long long uv = strtoull(buf, &end, 10);
            if (*end != '\0' || errno)
                return NC_EINVAL;
            memcpy(mem8, &uv, 8);
        } else {
            long long sv = strtoll(buf, &end, 10);
            if (*end != '\0' || errno)
                return NC_EINVAL;
            memcpy(mem8, &sv, 8);
        }
        break;
    }
    }
    ncaux_h5filterspec_fix8(mem8, 0);
    memcpy(&out[0], mem8, 4);
    memcpy(&out[1], mem8 + 4, 4);
    *np = 2;
    return NC_NOERR;
}

int
ncaux_h5filterspec_parse_parameter(const char *txt, size_t *nuiparamsp, unsigned int *uiparams)
{
    int stat;
    size_t n = 0;
    unsigned int tmp[2];

    if (txt == NULL || uiparams == NULL)
        return NC_EINVAL;
    if ((stat = convert_param(txt, strlen(txt), &n, tmp)))
        return stat;
    memcpy(uiparams, tmp, n * sizeof(unsigned int));
    if (nuiparamsp)
        *nuiparamsp = n;
    return NC_NOERR;
}

/* Parse the spec in txt[0..len). */
static int
parse_spec(const char *txt, size_t len, unsigned int *idp, size_t *nparamsp, unsigned int **paramsp)
{
    int stat;
    size_t i, npieces = 1, nout = 0;
    const char *p, *q, *end = txt + len;
    unsigned int *params = NULL;
    unsigned int id;

    if (txt == NULL || len == 0)
        return NC_EINVAL;
    for (i = 0; i < len; i++)
        if (txt[i] == ',')
            npieces++;
    /* The id: a plain unsigned constant. */
    q = memchr(txt, ',', len);
    if (q == NULL)
        q = end;
    {
        size_t idn = 0;
        unsigned int tmp[2];
        char c;
        if ((stat = convert_param(txt, (size_t)(q - txt), &idn, tmp)))
            return stat;
        /* Only an untagged or U-tagged integer is an id. */
        for (p = q; p > txt && is_space(p[-1]); p--)
            ;
        c = p[-1];
        if (idn != 1 || !((c >= '0' && c <= '9') || c == 'u' || c == 'U'))
            return NC_EINVAL;
        id = tmp[0];
    }
    /* Worst case every parameter takes two unsigned ints; +1 keeps the
     * vector non-empty. */
    if ((params = calloc(2 * (npieces - 1) + 1, sizeof(unsigned int))) == NULL)
        return NC_ENOMEM;
    for (p = q; p < end;) {
        size_t n = 0;
        p++; /* past ',' */
        q = memchr(p, ',', (size_t)(end - p));
        if (q == NULL)
            q = end;
        if ((stat = convert_param(p, (size_t)(q - p), &n, params + nout))) {
            free(params);
            return stat;
        }
        nout += n;
        p = q;
    }
    if (idp)
        *idp = id;
    if (nparamsp)
        *nparamsp = nout;
    if (paramsp)
        *paramsp = params;
    else
        free(params);
    return NC_NOERR;
}

int
ncaux_h5filterspec_parse(const char *txt, unsigned int *idp, size_t *nparamsp, unsigned int **paramsp)
{
    if (txt == NULL)
        return NC_EINVAL;
    return parse_spec(txt, strlen(txt), idp, nparamsp, paramsp);
}

void
ncaux_h5filterspec_free(struct NC_H5_Filterspec *f)
{
    if (f == NULL)
        return;
    free(f->params);
    free(f);
}

int
ncaux_h5filterspec_parselist(const char *txt0, int *formatp, size_t *nspecsp, struct NC_H5_Filterspec ***vectorp)
{
    int stat = NC_NOERR;
    int format = 0;
    const char *p, *q, *end;
    size_t nspecs = 0, i;
    NC_H5_Filterspec **vec = NULL;

    if (txt0 == NULL)
        return NC_EINVAL;
    p = txt0;
    end = txt0 + strlen(txt0);
    if (*p == '[') {
        char *e;
        long f;
        q = strchr(p, ']');
        if (q == NULL)
            return NC_EINVAL;
        errno = 0;
        f = strtol(p + 1, &e, 10);
        if (e == p + 1 || e != q || errno || f < INT_MIN || f > INT_MAX)
            return NC_EINVAL;
        format = (int)f;
        p = q + 1;
    }
    /* Count specs: a trailing '|' does not start another one (as upstream). */
    for (q = p; *q;) {
        const char *bar = strchr(q, '|');
        nspecs++;
        if (bar == NULL)
            break;
        q = bar + 1;
    }
    if (nspecs > 0) {
        if ((vec = calloc(nspecs, sizeof(NC_H5_Filterspec *))) == NULL)
            return NC_ENOMEM;
        for (i = 0; i < nspecs; i++) {
            const char *bar = strchr(p, '|');
            if (bar == NULL)
                bar = end;
            if ((vec[i] = calloc(1, sizeof(NC_H5_Filterspec))) == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            if ((stat = parse_spec(p, (size_t)(bar - p), &vec[i]->filterid, &vec[i]->nparams,
                                   &vec[i]->params)))
                goto done;
            p = (bar == end ? end : bar + 1);
        }
    }
done:
    if (stat) {
        for (i = 0; i < nspecs; i++)
            ncaux_h5filterspec_free(vec[i]);
        free(vec);
        return stat;
    }
    if (formatp)
        *formatp = format;
    if (nspecsp)
        *nspecsp = nspecs;
    if (vectorp) {
        *vectorp = vec;
    } else {
        for (i = 0; i < nspecs; i++)
            ncaux_h5filterspec_free(vec[i]);
        free(vec);
    }
    return NC_NOERR;
}

/* ---- whole files ---------------------------------------------------------------- */

/* Errors are the errno of the failed call (positive), as upstream. */
int
ncaux_readfile(const char *filename, size_t *sizep, void **content)
{
    int stat = NC_NOERR;
    FILE *f = NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;

    if (filename == NULL)
        return NC_EINVAL;
    if ((f = fopen(filename, "rb")) == NULL)
        return errno ? errno : NC_EIO;
    /* Read in growing blocks: works for pipes and files alike. */
    for (;;) {
        size_t got;
        if (cap - len < 4096) {
            size_t ncap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, ncap + 1);
            if (nb == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                stat = errno ? errno : NC_EIO;
            break;
        }
    }
done:
    fclose(f);
    if (stat) {
        free(buf);
        return stat;
    }
    if (buf == NULL && (buf = malloc(1)) == NULL)
        return NC_ENOMEM;
    buf[len] = '\0'; /* convenience terminator, not counted */
    if (sizep)
        *sizep = len;
    if (content)
        *content = buf;
    else
        free(buf);
    return NC_NOERR;
}

int
ncaux_writefile(const char *filename, size_t size, void *content)
{
    int stat = NC_NOERR;
    FILE *f;

    if (filename == NULL || (content == NULL && size > 0))
        return NC_EINVAL;
    if ((f = fopen(filename, "wb")) == NULL)
        return errno ? errno : NC_EIO;
    if (size > 0 && fwrite(content, 1, size, f) != size)
        stat = errno ? errno : NC_EIO;
    if (fclose(f) != 0 && stat == NC_NOERR)
        stat = errno ? errno : NC_EIO;
    return stat;
}

/* ---- alignment and compounds ------------------------------------------------------ */

int
ncaux_type_alignment(int xtype, int ncid, size_t *alignp)
{
    return NC_type_alignment(ncid, xtype, alignp);
}

int
ncaux_class_alignment(int ncclass, size_t *alignp)
{
    /* Enums and compounds depend on their members: ask ncaux_type_alignment. */
    if ((ncclass > NC_NAT && ncclass <= NC_MAX_ATOMIC_TYPE) || ncclass == NC_VLEN
        || ncclass == NC_OPAQUE) {
        size_t align = 1;
        if (ncclass == NC_VLEN)
            align = _Alignof(nc_vlen_t);
        else if (ncclass != NC_OPAQUE)
            (void)NC_type_alignment(0, ncclass, &align);
        if (alignp)
            *alignp = align;
        return NC_NOERR;
    }
    return NC_EINVAL;
}

/* A compound type under construction (the opaque tag). */
typedef struct AuxField {
    char *name;                   /* field name */
    nc_type type;                 /* field type */
    int ndims;                    /* 0 for a scalar field */
    int dims[NC_MAX_VAR_DIMS];    /* array shape */
} AuxField;

typedef struct AuxCompound {
    int ncid;          /* where the type is defined */
    int mode;          /* NCAUX_ALIGN_C or NCAUX_ALIGN_UNIFORM */
    char *name;        /* type name */
    size_t nfields;    /* entries used in fields */
    size_t cap;        /* entries allocated */
    AuxField *fields;  /* in order of addition */
} AuxCompound;

int
ncaux_begin_compound(int ncid, const char *name, int alignmode, void **tag)
{
    AuxCompound *c;

    if (tag == NULL || name == NULL)
        return NC_EINVAL;
    if (alignmode != NCAUX_ALIGN_C && alignmode != NCAUX_ALIGN_UNIFORM)
        return NC_EINVAL;
    if ((c = calloc(1, sizeof(*c))) == NULL)
        return NC_ENOMEM;
    if ((c->name = strdup(name)) == NULL) {
        free(c);
        return NC_ENOMEM;
    }
    c->ncid = ncid;
    c->mode = alignmode;
    *tag = c;
    return NC_NOERR;
}

int
ncaux_abort_compound(void *tag)
{
    AuxCompound *c = tag;
    size_t i;
    if (c == NULL)
        return NC_NOERR;
    for (i = 0; i < c->nfields; i++)
        free(c->fields[i].name);
    free(c->fields);
    free(c->name);
    free(c);
    return NC_NOERR;
}

int
ncaux_add_field(void *tag, const char *name, nc_type field_type, int ndims, const int *dimsizes)
{
    AuxCompound *c = tag;
    AuxField *f;
    int i;

    if (c == NULL || name == NULL || ndims < 0 || ndims > NC_MAX_VAR_DIMS)
        return NC_EINVAL;
    if (ndims > 0 && dimsizes == NULL)
        return NC_EINVAL;
    for (i = 0; i < ndims; i++)
        if (dimsizes[i] <= 0)
            return NC_EINVAL;
    if (c->nfields == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 8;
        AuxField *nf = realloc(c->fields, ncap * sizeof(AuxField));
        if (nf == NULL)
            return NC_ENOMEM;
        c->fields = nf;
        c->cap = ncap;
    }
    f = &c->fields[c->nfields];
    if ((f->name = strdup(name)) == NULL)
        return NC_ENOMEM;
    f->type = field_type;
    f->ndims = ndims;
    for (i = 0; i < ndims; i++)
        f->dims[i] = dimsizes[i];
    c->nfields++;
    return NC_NOERR;
}

static size_t
round_up(size_t offset, size_t align)
{
    size_t rem = (align <= 1 ? 0 : offset % align);
    return rem == 0 ? offset : offset + (align - rem);
}

/* Defines the type; the tag stays valid until ncaux_abort_compound(). */
int
ncaux_end_compound(void *tag, nc_type *xtypeid)
{
    int stat;
    AuxCompound *c = tag;
    size_t i, offset = 0, maxalign = 1;
    size_t *offsets = NULL;
    nc_type id;

    if (c == NULL)
        return NC_EINVAL;
    if ((offsets = calloc(c->nfields + 1, sizeof(size_t))) == NULL)
        return NC_ENOMEM;
    for (i = 0; i < c->nfields; i++) {
        AuxField *f = &c->fields[i];
        size_t size = 0, align = 1, n = 1;
        int d;
        if ((stat = NC_inq_any_type(c->ncid, f->type, NULL, &size, NULL, NULL, NULL)))
            goto done;
        if (c->mode == NCAUX_ALIGN_C && (stat = NC_type_alignment(c->ncid, f->type, &align)))
            goto done;
        for (d = 0; d < f->ndims; d++) {
            if ((size_t)f->dims[d] > SIZE_MAX / n) {
                stat = NC_EINVAL;
                goto done;
            }
            n *= (size_t)f->dims[d];
        }
        if (size != 0 && n > SIZE_MAX / size) {
            stat = NC_EINVAL;
            goto done;
        }
        offset = round_up(offset, align);
        offsets[i] = offset;
        offset += size * n;
        if (align > maxalign)
            maxalign = align;
    }
    /* A C struct's size is a multiple of its alignment. */
    if (c->mode == NCAUX_ALIGN_C)
        offset = round_up(offset, maxalign);
    if ((stat = nc_def_compound(c->ncid, offset, c->name, &id)))
        goto done;
    for (i = 0; i < c->nfields; i++) {
        AuxField *f = &c->fields[i];
        if (f->ndims == 0)
            stat = nc_insert_compound(c->ncid, id, f->name, offsets[i], f->type);
        else
            stat = nc_insert_array_compound(c->ncid, id, f->name, offsets[i], f->type, f->ndims,
                                            f->dims);
        if (stat)
            goto done;
    }
    if (xtypeid)
        *xtypeid = id;
done:
    free(offsets);
    return stat;
}

/* ---- _NCProperties ------------------------------------------------------------------ */

/* Copy s[0..n) removing backslash escapes. */
static char *
unescape(const char *s, size_t n)
{
    char *out, *q;
    size_t i;
    if (n >= PTRDIFF_MAX)  /* a pointer difference that went negative */
        return NULL;
    if ((out = malloc(n + 1)) == NULL)
        return NULL;
    q = out;
    for (i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n)
            i++;
        *q++ = s[i];
    }
    *q = '\0';
    return out;
}

/* "k1=v1,k2=v2" (or '|' between pairs, the version-1 form) into
 * {k1,v1,k2,v2,NULL,NULL}; a pair without '=' has value "".  Empty input
 * gives *pairsp = NULL.  NC_EINVAL for an empty key. */
int
ncaux_parse_provenance(const char *ncprop, char ***pairsp)
{
    size_t len, npairs = 1, i, k = 0;
    char **pairs = NULL;
    const char *p, *start;

    if (pairsp == NULL)
        return NC_NOERR;
    len = (ncprop == NULL ? 0 : strlen(ncprop));
    if (len == 0) {
        *pairsp = NULL;
        return NC_NOERR;
    }
    for (i = 0; i < len; i++) {
        if (ncprop[i] == '\\' && i + 1 < len)
            i++;
        else if (ncprop[i] == ',' || ncprop[i] == '|')
            npairs++;
    }
    if ((pairs = calloc(2 * npairs + 2, sizeof(char *))) == NULL)
        return NC_ENOMEM;
    for (start = p = ncprop;; p++) {
        if (*p == '\\' && p[1] != '\0') {
            p++;
            continue;
        }
        if (*p == ',' || *p == '|' || *p == '\0') {
            const char *eq = NULL, *s;
            if (p == start)
                goto fail; /* empty key */
            for (s = start; s < p; s++) {
                if (*s == '\\' && s + 1 < p) {
                    s++;
                    continue;
                }
                if (*s == '=') {
                    eq = s;
                    break;
                }
            }
            if (eq == start)
                goto fail;
            if ((pairs[k++] = unescape(start, (size_t)((eq ? eq : p) - start))) == NULL)
                goto nomem;
            if ((pairs[k++] = eq ? unescape(eq + 1, (size_t)(p - eq - 1)) : strdup("")) == NULL)
                goto nomem;
            if (*p == '\0')
                break;
            start = p + 1;
        }
    }
    *pairsp = pairs;
    return NC_NOERR;
fail:
    for (i = 0; i < k; i++)
        free(pairs[i]);
    free(pairs);
    return NC_EINVAL;
nomem:
    for (i = 0; i < k; i++)
        free(pairs[i]);
    free(pairs);
    return NC_ENOMEM;
}
