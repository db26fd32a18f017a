/* test_formats.c: the format registry is consistent: each row's layer serves
 * the row's model through a current dispatch table, magic numbers are
 * unambiguous and short enough for inference to read, every "#mode=" key
 * and URL scheme leads inference to its own row, and what the rows say is
 * built agrees with netcdf_meta.h and nc_set_default_format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "netcdf_meta.h"
#include "ncinfer.h"

static int passed, failed;
#define CHECK(cond) do { if (cond) passed++; else { failed++; \
    printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define INFER_READS 8  /* bytes NC_infer_open reads at each offset */

static const NC_Format *
row_of(int model)
{
    for (size_t i = 0; i < NC_nformats; i++)
        if (NC_formats[i].model == model)
            return &NC_formats[i];
    return NULL;
}

static void
test_rows(void)
{
    CHECK(NC_nformats > 0 && NC_formats[0].model == NC_FORMATX_NC3 && NC_formats[0].impl != NULL);
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_Format *f = &NC_formats[i];
        const NC_FormatImpl *impl = f->impl;
        CHECK(f->model != 0 && f->name != NULL && f->variants[0].format != 0);
        if (impl != NULL) {
            CHECK(impl->model == f->model);
            CHECK(impl->dispatch != NULL && *impl->dispatch != NULL
                  && (*impl->dispatch)->dispatch_version == NC_DISPATCH_VERSION
                  && (*impl->dispatch)->model == f->model);
        }
        for (int v = 0; v < NC_MAX_VARIANTS && f->variants[v].format != 0; v++) {
            const NC_Variant *a = &f->variants[v];
            if (a->magic == NULL)
                continue;
            CHECK(a->magiclen > 0 && a->magiclen <= INFER_READS);
            /* No magic number is a prefix of another's. */
            for (size_t j = 0; j < NC_nformats; j++) {
                for (int w = 0; w < NC_MAX_VARIANTS && NC_formats[j].variants[w].format != 0; w++) {
                    const NC_Variant *b = &NC_formats[j].variants[w];
                    size_t n = a->magiclen < b->magiclen ? a->magiclen : b->magiclen;
                    if (b == a || b->magic == NULL)
                        continue;
                    CHECK(memcmp(a->magic, b->magic, n) != 0);
                }
            }
        }
    }
}

/* Each word of a row's list, put in a URL, is recognised as that row. */
static void
check_words(const NC_Format *f, const char *list, const char *fmt)
{
    char url[128], word[32];
    for (const char *p = list; p != NULL && *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        int isurl = 0;
        char *out = NULL;
        NCmodel m = {0, 0, 0, NULL};
        CHECK(n < sizeof word);
        memcpy(word, p, n);
        word[n] = '\0';
        snprintf(url, sizeof url, fmt, word);
        CHECK(NC_infer_url(url, &isurl, &m, &out) == NC_NOERR && isurl && m.fmt == f
              && m.impl == f->model);
        free(out);
        p = c ? c + 1 : NULL;
    }
}

static void
test_urls(void)
{
    for (size_t i = 0; i < NC_nformats; i++) {
        const NC_Format *f = &NC_formats[i];
        check_words(f, f->modekeys, "gopher://host/x#mode=%s");
        check_words(f, f->schemes, "%s://host/x");
        check_words(f, f->fallback_schemes, "%s://host/x");
    }
}

static void
test_built(void)
{
    const NC_Format *hdf5 = row_of(NC_FORMATX_NC_HDF5);
    int old;
    CHECK(hdf5 != NULL && (hdf5->impl != NULL) == (NC_HAS_HDF5 != 0));
    CHECK(row_of(NC_FORMATX_NC_HDF4) != NULL
          && (row_of(NC_FORMATX_NC_HDF4)->impl != NULL) == (NC_HAS_HDF4 != 0));
    CHECK(nc_set_default_format(NC_FORMAT_NETCDF4, &old) == (NC_HAS_HDF5 ? NC_NOERR : NC_ENOTBUILT));
    CHECK(nc_set_default_format(NC_FORMAT_64BIT_DATA, NULL) == (NC_HAS_CDF5 ? NC_NOERR : NC_ENOTBUILT));
    CHECK(nc_set_default_format(NC_FORMATX_NC_HDF4 + 100, NULL) == NC_EINVAL);
    CHECK(nc_set_default_format(NC_FORMAT_CLASSIC, NULL) == NC_NOERR);
    /* A parallel layer is in the table exactly when the build has one; without
     * one, parallel opens are NC_ENOPAR. */
    CHECK(NC_format_parallel() == (NC_HAS_PARALLEL != 0));
#if !NC_HAS_PARALLEL
    CHECK(nc_open("any.nc", NC_MPIIO, &old) == NC_ENOPAR);
#endif
}

int
main(void)
{
    test_rows();
    test_urls();
    test_built();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
