/* test_udf.c: a user-defined format registered as UDF0 (and UDF5) and used
 * end to end through the public API: create, define, close, open by magic
 * number, inquire, and read a computed variable with vara/vars/varm (the
 * latter two through libdispatch's generic code on top of this format's vara).
 *
 * The format ("XUDF"): magic, then a count of dimensions and for each a
 * 32-byte name and a length.  It exposes one int variable "v" over the
 * first dimension whose value at i is 2*i.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "netcdf.h"
#include "netcdf_dispatch.h"
#include "ncdispatch.h" /* NCDEFAULT_get_vars: the generic strided read */

static int passed, failed;
#define CHECK(cond) do { if (cond) passed++; else { failed++; \
    printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define MAXF 8
#define MAXD 4
typedef struct xfile {
    int used;
    char path[256];
    int ndims;
    char names[MAXD][32];
    size_t lens[MAXD];
    int indef;
} xfile;
static xfile files[MAXF];

static xfile *
get(int ncid)
{
    int slot = (ncid >> 16) % MAXF;
    return files[slot].used ? &files[slot] : NULL;
}

static int
x_save(xfile *f)
{
    FILE *fp = fopen(f->path, "wb");
    int ok;
    if (fp == NULL)
        return NC_EIO;
    ok = fwrite("XUDF", 1, 4, fp) == 4 && fwrite(&f->ndims, sizeof f->ndims, 1, fp) == 1
         && fwrite(f->names, 32, (size_t)f->ndims, fp) == (size_t)f->ndims
         && fwrite(f->lens, sizeof(size_t), (size_t)f->ndims, fp) == (size_t)f->ndims;
    fclose(fp);
    return ok ? NC_NOERR : NC_EIO;
}

static int
x_create(const char *path, int cmode, size_t initialsz, int basepe, size_t *chunk,
         void *params, const NC_Dispatch *table, int ncid)
{
    xfile *f = &files[(ncid >> 16) % MAXF];
    (void)cmode; (void)initialsz; (void)basepe; (void)chunk; (void)params; (void)table;
    memset(f, 0, sizeof *f);
    f->used = 1;
    f->indef = 1;
    snprintf(f->path, sizeof f->path, "%s", path);
    return x_save(f);
}

static int
x_open(const char *path, int mode, int basepe, size_t *chunk, void *params,
       const NC_Dispatch *table, int ncid)
{
    xfile *f = &files[(ncid >> 16) % MAXF];
    FILE *fp = fopen(path, "rb");
    char magic[4];
    int ok;
    (void)mode; (void)basepe; (void)chunk; (void)params; (void)table;
    if (fp == NULL)
        return NC_ENOTNC;
    memset(f, 0, sizeof *f);
    ok = fread(magic, 1, 4, fp) == 4 && memcmp(magic + 1, "UDF", 3) == 0
         && fread(&f->ndims, sizeof f->ndims, 1, fp) == 1 && f->ndims >= 0 && f->ndims <= MAXD
         && fread(f->names, 32, (size_t)f->ndims, fp) == (size_t)f->ndims
         && fread(f->lens, sizeof(size_t), (size_t)f->ndims, fp) == (size_t)f->ndims;
    fclose(fp);
    if (!ok)
        return NC_ENOTNC;
    f->used = 1;
    snprintf(f->path, sizeof f->path, "%s", path);
    return NC_NOERR;
}

static int x_close(int ncid, void *memio)
{ xfile *f = get(ncid); int st; (void)memio; if (!f) return NC_EBADID; st = x_save(f); f->used = 0; return st; }
static int x_abort(int ncid) { xfile *f = get(ncid); if (f) f->used = 0; return NC_NOERR; }
static int x_redef(int ncid) { get(ncid)->indef = 1; return NC_NOERR; }
static int x_enddef(int ncid, size_t a, size_t b, size_t c, size_t d)
{ (void)a; (void)b; (void)c; (void)d; get(ncid)->indef = 0; return x_save(get(ncid)); }
static int x_sync(int ncid) { return x_save(get(ncid)); }
static int x_inq_format(int ncid, int *fp) { (void)ncid; if (fp) *fp = NC_FORMAT_CLASSIC; return NC_NOERR; }
static int x_inq_format_ext(int ncid, int *fp, int *mp)
{ (void)ncid; if (fp) *fp = NC_FORMATX_UDF0; if (mp) *mp = NC_UDF0; return NC_NOERR; }

static int
x_inq(int ncid, int *nd, int *nv, int *na, int *ud)
{
    xfile *f = get(ncid);
    if (nd) *nd = f->ndims;
    if (nv) *nv = f->ndims > 0;
    if (na) *na = 0;
    if (ud) *ud = -1;
    return NC_NOERR;
}

static int
x_def_dim(int ncid, const char *name, size_t len, int *idp)
{
    xfile *f = get(ncid);
    if (!f->indef) return NC_ENOTINDEFINE;
    if (f->ndims == MAXD) return NC_EMAXDIMS;
    snprintf(f->names[f->ndims], 32, "%s", name);
    f->lens[f->ndims] = len;
    if (idp) *idp = f->ndims;
    f->ndims++;
    return NC_NOERR;
}

static int
x_inq_dimid(int ncid, const char *name, int *idp)
{
    xfile *f = get(ncid);
    for (int i = 0; i < f->ndims; i++)
        if (strcmp(f->names[i], name) == 0) { if (idp) *idp = i; return NC_NOERR; }
    return NC_EBADDIM;
}

static int
x_inq_dim(int ncid, int id, char *name, size_t *lenp)
{
    xfile *f = get(ncid);
    if (id < 0 || id >= f->ndims) return NC_EBADDIM;
    if (name) strcpy(name, f->names[id]);
    if (lenp) *lenp = f->lens[id];
    return NC_NOERR;
}

static int
x_inq_var_all(int ncid, int varid, char *name, nc_type *xt, int *nd, int *dims, int *na,
              int *a, int *b, int *c, int *d, int *e, size_t *g, int *h, void *i, int *j,
              unsigned int *k, size_t *l, unsigned int *m)
{
    xfile *f = get(ncid);
    (void)a; (void)b; (void)c; (void)d; (void)e; (void)g; (void)h; (void)i; (void)j;
    (void)k; (void)l; (void)m;
    if (varid != 0 || f->ndims == 0) return NC_ENOTVAR;
    if (name) strcpy(name, "v");
    if (xt) *xt = NC_INT;
    if (nd) *nd = 1;
    if (dims) dims[0] = 0;
    if (na) *na = 0;
    return NC_NOERR;
}

static int
x_get_vara(int ncid, int varid, const size_t *start, const size_t *count, void *value, nc_type mt)
{
    xfile *f = get(ncid);
    if (varid != 0 || f->ndims == 0) return NC_ENOTVAR;
    if (start[0] > f->lens[0]) return NC_EINVALCOORDS;
    if (count[0] > f->lens[0] - start[0]) return NC_EEDGE;
    for (size_t n = 0; n < count[0]; n++) {
        int v = (int)(2 * (start[0] + n));
        if (mt == NC_INT) ((int *)value)[n] = v;
        else if (mt == NC_DOUBLE) ((double *)value)[n] = v;
        else return NC_EBADTYPE;
    }
    return NC_NOERR;
}

static NC_Dispatch xudf = {
    .model = NC_FORMATX_UDF0,
    .dispatch_version = NC_DISPATCH_VERSION,
    .create = x_create, .open = x_open, .redef = x_redef, ._enddef = x_enddef,
    .sync = x_sync, .abort = x_abort, .close = x_close,
    .set_fill = NC_RO_set_fill, .inq_format = x_inq_format,
    .inq_format_extended = x_inq_format_ext, .inq = x_inq,
    .def_dim = x_def_dim, .inq_dimid = x_inq_dimid, .inq_dim = x_inq_dim,
    .rename_dim = NC_RO_rename_dim, .def_var = NC_RO_def_var,
    .put_vara = NC_RO_put_vara, .get_vara = x_get_vara,
    .get_vars = NCDEFAULT_get_vars, .get_varm = NC_NOTNC3_get_varm,
    .inq_var_all = x_inq_var_all,
    .def_grp = NC_NOTNC4_def_grp,
    .inq_var_filter_ids = NC_NOOP_inq_var_filter_ids,
    .inq_filter_avail = NC_NOOP_inq_filter_avail,
};

int
main(void)
{
    char path[] = "/tmp/tst_udfXXXXXX";
    char magic[NC_MAX_MAGIC_NUMBER_LEN + 1] = "";
    NC_Dispatch *got = NULL;
    int ncid, dimid, fmt, mode, ndims, nvars, ival[10];
    size_t len, start[1] = {1}, count[1] = {4};
    ptrdiff_t stride[1] = {2}, imap[1] = {-1};
    char name[NC_MAX_NAME + 1];
    int fd = mkstemp(path);

    if (fd < 0) { perror("mkstemp"); return 2; }
    close(fd);

    /* Registration and its checks. */
    CHECK(nc_def_user_format(NC_UDF0, &xudf, "XUDF") == NC_NOERR);
    CHECK(nc_inq_user_format(NC_UDF0, &got, magic) == NC_NOERR && got == &xudf
          && strcmp(magic, "XUDF") == 0);
    CHECK(nc_def_user_format(NC_UDF0 | NC_UDF1, &xudf, "XUDF") == NC_EINVAL);
    CHECK(nc_def_user_format(NC_UDF5, &xudf, "TOOLONGMAGIC") == NC_EINVAL);
    CHECK(nc_def_user_format(NC_UDF5, &xudf, "YUDF") == NC_NOERR);
    CHECK(nc_inq_user_format(NC_UDF5, &got, magic) == NC_NOERR && strcmp(magic, "YUDF") == 0);

    /* Create through the mode flag. */
    CHECK(nc_create(path, NC_UDF0 | NC_CLOBBER, &ncid) == NC_NOERR);
    CHECK(nc_def_dim(ncid, "x", 10, &dimid) == NC_NOERR && dimid == 0);
    CHECK(nc_def_dim(ncid, "bad/name", 3, &dimid) == NC_EBADNAME);  /* checked before the format */
    CHECK(nc_enddef(ncid) == NC_NOERR);
    CHECK(nc_def_dim(ncid, "y", 3, &dimid) == NC_ENOTINDEFINE);
    CHECK(nc_close(ncid) == NC_NOERR);
    CHECK(nc_inq(ncid, &ndims, NULL, NULL, NULL) == NC_EBADID);

    /* Open recognises the magic number. */
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR);
    CHECK(nc_inq_format_extended(ncid, &fmt, &mode) == NC_NOERR && fmt == NC_FORMATX_UDF0);
    CHECK(nc_inq(ncid, &ndims, &nvars, NULL, NULL) == NC_NOERR && ndims == 1 && nvars == 1);
    CHECK(nc_inq_dim(ncid, 0, name, &len) == NC_NOERR && strcmp(name, "x") == 0 && len == 10);
    CHECK(nc_inq_dimid(ncid, "x", &dimid) == NC_NOERR && dimid == 0);
    CHECK(nc_inq_path(ncid, &len, name) == NC_NOERR && strcmp(name, path) == 0);
    CHECK(nc_get_vara_int(ncid, 0, start, count, ival) == NC_NOERR
          && ival[0] == 2 && ival[3] == 8);
    CHECK(nc_get_var_int(ncid, 0, ival) == NC_NOERR && ival[9] == 18);
    CHECK(nc_get_vars_int(ncid, 0, start, count, stride, ival) == NC_NOERR
          && ival[0] == 2 && ival[1] == 6 && ival[2] == 10 && ival[3] == 14);
    /* A reversing map: the last element lands first. */
    CHECK(nc_get_varm_int(ncid, 0, start, count, NULL, imap, ival + 3) == NC_NOERR
          && ival[3] == 2 && ival[0] == 8);
    count[0] = 20;
    CHECK(nc_get_vara_int(ncid, 0, start, count, ival) == NC_EEDGE);
    CHECK(nc_def_grp(ncid, "g", &dimid) == NC_ENOTNC4);
    CHECK(nc_close(ncid) == NC_NOERR);

    /* A file with another magic number is not claimed by UDF0. */
    {
        FILE *fp = fopen(path, "r+b");
        fwrite("YUDF", 1, 4, fp);
        fclose(fp);
    }
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR);
    CHECK(nc_close(ncid) == NC_NOERR);
    {
        FILE *fp = fopen(path, "r+b");
        fwrite("ZUDF", 1, 4, fp);
        fclose(fp);
    }
    CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_ENOTNC);
    remove(path);
    printf("udf: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
