/* fuzz_nccopy_spec.c: libFuzzer target for nccopy's -c and -F parsers.
 *
 * The parsers (ncdump/chunkspec.c, ncdump/filteropt.c) read a spec against
 * an open input file.  The target makes one small netCDF-4 file in memory
 * (groups, fixed and unlimited dimensions, variables of rank 0 to 3, names
 * needing escapes), then feeds each input, split at NUL bytes, to the -c
 * parser (odd first byte) or the -F parser (even), querying every result
 * and freeing it.  Any crash, leak or sanitizer report is a parser bug.
 *   build-fuzz/fuzz/fuzz_nccopy_spec -max_total_time=600 CORPUS_DIR fuzz/corpus_nccopy_spec
 * Built without libFuzzer (NCCOPY_SPEC_MAIN), it runs the files named on
 * its command line once each: the corpus as a plain regression test. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netcdf.h"
#include "copyspec.h"

static int ncid = -1;

static int
make_file(void)
{
    int g, sub, d[4], v;
    if (nc_create("fuzz_nccopy_spec.nc", NC_NETCDF4 | NC_DISKLESS | NC_CLOBBER, &ncid))
        return 1;
    if (nc_def_dim(ncid, "x", 10, &d[0]) || nc_def_dim(ncid, "y", 4, &d[1]) ||
        nc_def_dim(ncid, "u", NC_UNLIMITED, &d[2]) || nc_def_dim(ncid, "a,b", 3, &d[3]))
        return 1;
    if (nc_def_var(ncid, "s", NC_INT, 0, NULL, &v) || nc_def_var(ncid, "v1", NC_FLOAT, 1, d, &v) ||
        nc_def_var(ncid, "v2", NC_DOUBLE, 2, d, &v) ||
        nc_def_var(ncid, "r", NC_SHORT, 3, (int[]){d[2], d[0], d[1]}, &v) ||
        nc_def_var(ncid, "1 odd&name", NC_BYTE, 1, &d[3], &v))
        return 1;
    if (nc_def_grp(ncid, "g", &g) || nc_def_grp(g, "sub", &sub) ||
        nc_def_dim(g, "gx", 5, &d[0]) || nc_def_var(g, "gv", NC_INT, 2, (int[]){d[0], d[1]}, &v) ||
        nc_def_var(sub, "sv", NC_UBYTE, 1, d, &v))
        return 1;
    return nc_enddef(ncid) != NC_NOERR;
}

static void
run_one(int which, const char *spec)
{
    if (which) {
        chunkspecs cs;
        size_t size;
        int dimid, v;
        memset(&cs, 0, sizeof cs);
        (void)chunkspec_parse(&cs, ncid, spec);
        (void)chunkspec_parse(&cs, ncid, spec);     /* a repeated -c */
        for (dimid = 0; dimid < 8; dimid++)
            (void)chunkspec_dim(&cs, dimid, &size);
        for (v = 0; v < 6; v++)
            (void)chunkspec_var_omit(&cs, ncid, v);
        chunkspec_free(&cs);
    } else {
        filteropts fo;
        int nc4;
        memset(&fo, 0, sizeof fo);
        (void)filteropt_parse(&fo, spec, &nc4);
        (void)filteropt_parse(&fo, spec, &nc4);
        filteropt_free(&fo);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf, *p;
    if (ncid < 0 && make_file())
        abort();
    if (size < 1)
        return 0;
    buf = malloc(size);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    /* several specs per input, separated by NUL bytes */
    for (p = buf;; p++) {
        run_one(data[0] & 1, p);
        p += strlen(p);
        if (p >= buf + size - 1)
            break;
    }
    free(buf);
    return 0;
}

#ifdef NCCOPY_SPEC_MAIN
int
main(int argc, char **argv)
{
    int i, n = 0;
    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        uint8_t *data;
        long len;
        if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        data = malloc((size_t)len + 1);
        if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(data, (size_t)len);
        free(data);
        n++;
    }
    if (ncid >= 0)
        nc_close(ncid);
    printf("%d inputs\n", n);
    return 0;
}
#endif
