/* test_aux.c: netcdf_aux.h helpers and the instance calls (dinstance.c).
 *
 * Filter-spec cases follow upstream's documented syntax (docs/filters.md):
 * the expected parameter words are computed here from the C values.
 * Compound building needs netCDF-4 and is skipped while it is not built.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <unistd.h>
#include "netcdf.h"
#include "netcdf_aux.h"
#include "netcdf_filter.h"

static int npass, nfail;

#define CHECK(cond) do { if (cond) npass++; else { nfail++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* Parse spec; 1 if id and params are as given. */
static int
spec_is(const char *txt, unsigned id, size_t n, const unsigned *want)
{
    unsigned gid = 0, *params = NULL;
    size_t gn = 0;
    int ok;
    if (ncaux_h5filterspec_parse(txt, &gid, &gn, &params) != NC_NOERR)
        return 0;
    ok = (gid == id && gn == n && (n == 0 || memcmp(params, want, n * sizeof(unsigned)) == 0));
    free(params);
    return ok;
}

static void
words8(const void *v, unsigned out[2])
{
    memcpy(out, v, 8); /* little-endian hosts store 8-byte values as is */
}

static void
test_filterspec(void)
{
    unsigned w[4], *params = NULL, id = 0;
    size_t n = 0;
    int fmt = -1;
    NC_H5_Filterspec **vec = NULL;

    w[0] = 9;
    CHECK(spec_is("307,9", 307, 1, w));
    CHECK(spec_is("307", 307, 0, w));
    CHECK(spec_is(" 307 , 9 ", 307, 1, w));
    w[0] = (unsigned)-3;
    CHECK(spec_is("32015,-3", 32015, 1, w));
    w[0] = (unsigned)(-17) & 0xFFu;
    CHECK(spec_is("1,-17b", 1, 1, w));
    w[0] = 23;
    CHECK(spec_is("1,23ub", 1, 1, w));
    w[0] = (unsigned)(-25) & 0xFFFFu;
    CHECK(spec_is("1,-25S", 1, 1, w));
    w[0] = 27;
    CHECK(spec_is("1,27US", 1, 1, w));
    w[0] = 93;
    CHECK(spec_is("1,93U", 1, 1, w));
    w[0] = 77;
    CHECK(spec_is("1,77", 1, 1, w));
    {
        float f = 789.0f;
        memcpy(&w[0], &f, 4);
        CHECK(spec_is("1,789f", 1, 1, w));
    }
    {
        double d = 12345678.12345678;
        words8(&d, w);
        CHECK(spec_is("1,12345678.12345678d", 1, 2, w));
    }
    {
        long long ll = -9223372036854775807LL;
        unsigned long long ull = 18446744073709551615ULL;
        words8(&ll, w);
        words8(&ull, w + 2);
        CHECK(spec_is("1,-9223372036854775807L,18446744073709551615UL", 1, 4, w));
    }
    /* Malformed specs are errors, never crashes. */
    CHECK(ncaux_h5filterspec_parse("", &id, &n, &params) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parse(NULL, &id, &n, &params) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parse("abc", &id, &n, &params) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parse("307,", &id, &n, &params) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parse("307,,1", &id, &n, &params) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parse("307,1x", &id, &n, &params) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parse("307,99999999999", &id, &n, &params) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parse("1.5f,1", &id, &n, &params) == NC_EINVAL);

    /* one parameter at a time */
    CHECK(ncaux_h5filterspec_parse_parameter("-1L", &n, w) == NC_NOERR && n == 2
          && w[0] == 0xFFFFFFFFu && w[1] == 0xFFFFFFFFu);
    CHECK(ncaux_h5filterspec_parse_parameter("5", &n, w) == NC_NOERR && n == 1 && w[0] == 5);
    CHECK(ncaux_h5filterspec_parse_parameter("", &n, w) == NC_EINVAL);

    /* lists */
    CHECK(ncaux_h5filterspec_parselist("[1]307,9|4,32,32", &fmt, &n, &vec) == NC_NOERR);
    CHECK(fmt == 1 && n == 2 && vec != NULL);
    if (vec != NULL && n == 2) {
        CHECK(vec[0]->filterid == 307 && vec[0]->nparams == 1 && vec[0]->params[0] == 9);
        CHECK(vec[1]->filterid == 4 && vec[1]->nparams == 2 && vec[1]->params[1] == 32);
        ncaux_h5filterspec_free(vec[0]);
        ncaux_h5filterspec_free(vec[1]);
    }
    free(vec);
    vec = NULL;
    CHECK(ncaux_h5filterspec_parselist("307,9", &fmt, &n, &vec) == NC_NOERR && fmt == 0 && n == 1);
    if (vec) {
        ncaux_h5filterspec_free(vec[0]);
        free(vec);
        vec = NULL;
    }
    CHECK(ncaux_h5filterspec_parselist("307,9|x", &fmt, &n, &vec) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parselist("[x]307", &fmt, &n, &vec) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parselist("[1307", &fmt, &n, &vec) == NC_EINVAL);
    CHECK(ncaux_h5filterspec_parselist(NULL, &fmt, &n, &vec) == NC_EINVAL);
    ncaux_h5filterspec_free(NULL);

    /* fix8: encode then decode is the identity on every host */
    {
        unsigned char m[8] = {1, 2, 3, 4, 5, 6, 7, 8}, o[8];
        memcpy(o, m, 8);
        ncaux_h5filterspec_fix8(m, 0);
        ncaux_h5filterspec_fix8(m, 1);
        CHECK(memcmp(m, o, 8) == 0);
    }
}

static void
test_provenance(void)
{
    char **pairs = NULL;
    size_t i;

    CHECK(ncaux_parse_provenance("version=2,netcdf=4.10.1,hdf5=1.10.8", &pairs) == NC_NOERR);
    CHECK(pairs != NULL && strcmp(pairs[0], "version") == 0 && strcmp(pairs[1], "2") == 0
          && strcmp(pairs[2], "netcdf") == 0 && strcmp(pairs[3], "4.10.1") == 0
          && strcmp(pairs[4], "hdf5") == 0 && strcmp(pairs[5], "1.10.8") == 0
          && pairs[6] == NULL && pairs[7] == NULL);
    for (i = 0; pairs && pairs[i]; i++)
        free(pairs[i]);
    free(pairs);
    pairs = NULL;
    /* version-1 separator, escapes, a key without value */
    CHECK(ncaux_parse_provenance("a=x\\,y|b|c\\==1", &pairs) == NC_NOERR);
    CHECK(pairs != NULL && strcmp(pairs[0], "a") == 0 && strcmp(pairs[1], "x,y") == 0
          && strcmp(pairs[2], "b") == 0 && strcmp(pairs[3], "") == 0
          && strcmp(pairs[4], "c=") == 0 && strcmp(pairs[5], "1") == 0 && pairs[6] == NULL);
    for (i = 0; pairs && pairs[i]; i++)
        free(pairs[i]);
    free(pairs);
    pairs = (char **)1;
    CHECK(ncaux_parse_provenance("", &pairs) == NC_NOERR && pairs == NULL);
    CHECK(ncaux_parse_provenance("a=1,,b=2", &pairs) == NC_EINVAL);
    CHECK(ncaux_parse_provenance("=1", &pairs) == NC_EINVAL);
}

static void
test_files(void)
{
    char path[64];
    const char text[] = "hello\0world";
    void *data = NULL;
    size_t size = 0;

    snprintf(path, sizeof(path), "test_aux_%ld.tmp", (long)getpid());
    CHECK(ncaux_writefile(path, sizeof(text), (void *)text) == NC_NOERR);
    CHECK(ncaux_readfile(path, &size, &data) == NC_NOERR && size == sizeof(text)
          && memcmp(data, text, sizeof(text)) == 0);
    free(data);
    CHECK(ncaux_writefile(path, 0, NULL) == NC_NOERR);
    data = NULL;
    CHECK(ncaux_readfile(path, &size, &data) == NC_NOERR && size == 0 && data != NULL);
    free(data);
    remove(path);
    CHECK(ncaux_readfile("/nonexistent/dir/file", &size, &data) > 0); /* errno */
}

static void
test_instances(void)
{
    char *s = NULL;
    int ints[3] = {1, -2, 3};
    int *icopy = NULL;
    char *strs[3];
    char **scopy = NULL;
    size_t align = 0;
    char name[NC_MAX_NAME + 1];
    size_t size = 0;
    int klass = 0;

    /* atomic types need no open file */
    CHECK(nc_dump_data(0, NC_INT, ints, 3, &s) == NC_NOERR && s && strcmp(s, "1 -2 3") == 0);
    free(s);
    s = NULL;
    CHECK(nc_copy_data_all(0, NC_INT, ints, 3, (void **)&icopy) == NC_NOERR && icopy
          && memcmp(icopy, ints, sizeof(ints)) == 0);
    CHECK(nc_reclaim_data_all(0, NC_INT, icopy, 3) == NC_NOERR);

    strs[0] = strdup("alpha");
    strs[1] = NULL;
    strs[2] = strdup("gamma");
    CHECK(nc_copy_data_all(0, NC_STRING, strs, 3, (void **)&scopy) == NC_NOERR && scopy);
    if (scopy) {
        CHECK(scopy[0] != strs[0] && strcmp(scopy[0], "alpha") == 0 && scopy[1] == NULL
              && strcmp(scopy[2], "gamma") == 0);
        CHECK(nc_dump_data(0, NC_STRING, scopy, 3, &s) == NC_NOERR && s
              && strcmp(s, "\"alpha\" \"\" \"gamma\"") == 0);
        free(s);
        CHECK(ncaux_reclaim_data_all(0, NC_STRING, scopy, 3) == NC_NOERR);
    }
    CHECK(nc_reclaim_data(0, NC_STRING, strs, 3) == NC_NOERR);
    CHECK(nc_reclaim_data(-1, NC_INT, ints, 3) == NC_EINVAL);
    CHECK(nc_reclaim_data(0, NC_NAT, ints, 3) == NC_EINVAL);
    CHECK(nc_reclaim_data(0, NC_INT, NULL, 3) == NC_EINVAL);
    CHECK(nc_reclaim_data(0, NC_INT, NULL, 0) == NC_NOERR);
    CHECK(nc_copy_data(0, NC_INT, ints, 3, NULL) == NC_EINVAL);

    {
        char *fs[2];
        fs[0] = strdup("x");
        fs[1] = strdup("y");
        CHECK(nc_free_string(2, fs) == NC_NOERR);
        nc_vlen_t vl[2];
        vl[0].len = 2;
        vl[0].p = malloc(8);
        vl[1].len = 0;
        vl[1].p = NULL;
        CHECK(nc_free_vlens(2, vl) == NC_NOERR);
    }

    /* any-type inquiry and alignments */
    CHECK(ncaux_inq_any_type(0, NC_UINT64, name, &size, NULL, NULL, &klass) == NC_NOERR
          && strcmp(name, "uint64") == 0 && size == 8 && klass == NC_UINT64);
    CHECK(ncaux_inq_any_type(0, NC_NAT, name, &size, NULL, NULL, &klass) == NC_EBADTYPE);
    CHECK(ncaux_type_alignment(NC_DOUBLE, 0, &align) == NC_NOERR && align == offsetof(struct { char c; double d; }, d));
    CHECK(ncaux_type_alignment(NC_SHORT, 0, &align) == NC_NOERR && align == offsetof(struct { char c; short d; }, d));
    CHECK(ncaux_class_alignment(NC_VLEN, &align) == NC_NOERR && align == offsetof(struct { char c; nc_vlen_t d; }, d));
    CHECK(ncaux_class_alignment(NC_OPAQUE, &align) == NC_NOERR && align == 1);
    CHECK(ncaux_class_alignment(NC_COMPOUND, &align) == NC_EINVAL);
}

/* Needs netCDF-4 (user-defined types); skipped when not built. */
static void
test_compound(void)
{
    int ncid, stat;
    void *tag = NULL;
    nc_type tid;
    size_t size = 0, off = 0;
    int dims[1] = {3};
    struct want { char c; double d; short s[3]; };

    stat = nc_create("test_aux_cmpd.nc", NC_NETCDF4 | NC_CLOBBER | NC_DISKLESS, &ncid);
    if (stat != NC_NOERR) {
        printf("test_aux: compound tests skipped (%s)\n", nc_strerror(stat));
        return;
    }
    CHECK(ncaux_begin_compound(ncid, "cmp", NCAUX_ALIGN_C, &tag) == NC_NOERR);
    CHECK(ncaux_add_field(tag, "c", NC_CHAR, 0, NULL) == NC_NOERR);
    CHECK(ncaux_add_field(tag, "d", NC_DOUBLE, 0, NULL) == NC_NOERR);
    CHECK(ncaux_add_field(tag, "s", NC_SHORT, 1, dims) == NC_NOERR);
    CHECK(ncaux_add_field(tag, "bad", NC_SHORT, -1, dims) == NC_EINVAL);
    CHECK(ncaux_end_compound(tag, &tid) == NC_NOERR);
    CHECK(ncaux_abort_compound(tag) == NC_NOERR);
    CHECK(nc_inq_compound_size(ncid, tid, &size) == NC_NOERR && size == sizeof(struct want));
    CHECK(nc_inq_compound_fieldoffset(ncid, tid, 1, &off) == NC_NOERR && off == offsetof(struct want, d));
    CHECK(nc_inq_compound_fieldoffset(ncid, tid, 2, &off) == NC_NOERR && off == offsetof(struct want, s));
    nc_abort(ncid);
}

/* The filter API on a classic file: no filters, none can be added. */
static void
test_filter_api(void)
{
    int ncid, dimid, varid, stat, mask = -1, ppb = -1, has = -1, level = -1;
    unsigned id = 99, one = 1;
    size_t n = 99;

    stat = nc_create("test_aux_filter.nc", NC_CLOBBER | NC_DISKLESS, &ncid);
    if (stat != NC_NOERR) {
        printf("test_aux: filter API tests skipped (%s)\n", nc_strerror(stat));
        return;
    }
    CHECK(nc_def_dim(ncid, "d", 4, &dimid) == NC_NOERR);
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid) == NC_NOERR);
    CHECK(nc_inq_var_filter(ncid, varid, &id, &n, NULL) == NC_NOERR && id == 0);
    CHECK(nc_inq_var_filter_ids(ncid, varid, &n, NULL) == NC_NOERR && n == 0);
    CHECK(nc_inq_var_filter_info(ncid, varid, 307, &n, NULL) == NC_ENOFILTER);
    CHECK(nc_def_var_filter(ncid, varid, 307, 1, &one) == NC_ENOTNC4);
    CHECK(nc_def_var_szip(ncid, varid, NC_SZIP_NN, 8) == NC_ENOTNC4);
    CHECK(nc_def_var_szip(ncid, varid, NC_SZIP_NN, 7) == NC_EINVAL);
    CHECK(nc_inq_var_szip(ncid, varid, &mask, &ppb) == NC_NOERR && mask == 0 && ppb == 0);
    CHECK(nc_inq_filter_avail(ncid, 307) == NC_ENOFILTER);
    CHECK(nc_def_var_bzip2(ncid, varid, 5) == NC_ENOFILTER);
    CHECK(nc_def_var_zstandard(ncid, varid, 5) == NC_ENOFILTER);
    CHECK(nc_inq_var_zstandard(ncid, varid, &has, &level) == NC_ENOFILTER);
    CHECK(nc_def_var_blosc(ncid, varid, 1, 5, 0, 1) == NC_ENOFILTER);
    CHECK(nc_inq_var_filter(ncid + 0x10000 * 999, varid, &id, &n, NULL) == NC_EBADID);
    nc_abort(ncid);
}

int
main(void)
{
    test_filterspec();
    test_provenance();
    test_files();
    test_instances();
    test_compound();
    test_filter_api();
    printf("test_aux: %d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
