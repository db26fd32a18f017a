/* tst_dumpall.c: print a canonical, exact text dump of a classic file:
 * format, every dimension, attribute and variable with all values (floats
 * as their bit patterns). Built against our library and against the
 * reference; run_interop.sh compares the two dumps of the same file.
 * Usage: tst_dumpall FILE   (exit 1 and a message on any error) */
#include "nctst.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int
print_values(nc_type t, size_t n, const void *buf)
{
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0) printf("\n   ");
        switch (t) {
        case NC_BYTE: printf(" %d", ((const signed char *)buf)[i]); break;
        case NC_CHAR: printf(" %02x", ((const unsigned char *)buf)[i]); break;
        case NC_UBYTE: printf(" %u", ((const unsigned char *)buf)[i]); break;
        case NC_SHORT: printf(" %d", ((const short *)buf)[i]); break;
        case NC_USHORT: printf(" %u", ((const unsigned short *)buf)[i]); break;
        case NC_INT: printf(" %d", ((const int *)buf)[i]); break;
        case NC_UINT: printf(" %u", ((const unsigned int *)buf)[i]); break;
        case NC_INT64: printf(" %lld", ((const long long *)buf)[i]); break;
        case NC_UINT64: printf(" %llu", ((const unsigned long long *)buf)[i]); break;
        case NC_FLOAT: {
            uint32_t u;
            memcpy(&u, (const char *)buf + 4 * i, 4);
            printf(" f%08x", (unsigned)u);
            break;
        }
        case NC_DOUBLE: {
            uint64_t u;
            memcpy(&u, (const char *)buf + 8 * i, 8);
            printf(" d%016llx", (unsigned long long)u);
            break;
        }
        default: return NC_EBADTYPE;
        }
    }
    printf("\n");
    return NC_NOERR;
}

static int
dump_atts(int ncid, int varid, int natts)
{
    int stat = NC_NOERR;
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len;
        void *buf = NULL;
        if ((stat = nc_inq_attname(ncid, varid, a, name))) return stat;
        if ((stat = nc_inq_att(ncid, varid, name, &t, &len))) return stat;
        printf("  att %d \"%s\" type %d len %zu:", a, name, t, len);
        buf = malloc(len * 8 + 1);
        if (!buf) return NC_ENOMEM;
        if (!(stat = nc_get_att(ncid, varid, name, buf)))
            stat = print_values(t, len, buf);
        free(buf);
        if (stat) return stat;
    }
    return stat;
}

static int
dump(const char *path)
{
    int stat, ncid, ndims, nvars, natts, unlim, fmt, mode;
    if ((stat = nc_open(path, NC_NOWRITE, &ncid))) return stat;
    if ((stat = nc_inq(ncid, &ndims, &nvars, &natts, &unlim))) goto done;
    if ((stat = nc_inq_format(ncid, &fmt))) goto done;
    if ((stat = nc_inq_format_extended(ncid, &fmt, &mode))) goto done;
    if ((stat = nc_inq_format(ncid, &fmt))) goto done;
    printf("format %d ndims %d nvars %d natts %d unlimdim %d\n", fmt, ndims, nvars, natts, unlim);
    for (int d = 0; d < ndims; d++) {
        char name[NC_MAX_NAME + 1];
        size_t len;
        int id = -1;
        if ((stat = nc_inq_dim(ncid, d, name, &len))) goto done;
        if ((stat = nc_inq_dimid(ncid, name, &id))) goto done;
        printf("dim %d \"%s\" len %zu id %d\n", d, name, len, id);
    }
    if ((stat = dump_atts(ncid, NC_GLOBAL, natts))) goto done;
    for (int v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        int nd, dimids[NC_MAX_VAR_DIMS], na, id = -1, nofill = 0;
        size_t n = 1;
        unsigned char fill[8] = {0};
        if ((stat = nc_inq_var(ncid, v, name, &t, &nd, dimids, &na))) goto done;
        if ((stat = nc_inq_varid(ncid, name, &id))) goto done;
        if ((stat = nc_inq_var_fill(ncid, v, &nofill, fill))) goto done;
        printf("var %d \"%s\" type %d id %d dims", v, name, t, id);
        for (int i = 0; i < nd; i++) {
            size_t len;
            if ((stat = nc_inq_dimlen(ncid, dimids[i], &len))) goto done;
            n *= len;
            printf(" %d", dimids[i]);
        }
        printf(" natts %d nofill %d fill:", na, nofill);
        if ((stat = print_values(t, 1, fill))) goto done;
        if ((stat = dump_atts(ncid, v, na))) goto done;
        void *buf = malloc(n * 8 + 1);
        if (!buf) { stat = NC_ENOMEM; goto done; }
        stat = nc_get_var(ncid, v, buf);
        if (!stat) {
            printf("  data %zu:", n);
            stat = print_values(t, n, buf);
        }
        free(buf);
        if (stat) goto done;
    }
done:
    nc_close(ncid);
    return stat;
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    int stat = dump(argv[1]);
    if (stat) {
        fflush(stdout);
        fprintf(stderr, "tst_dumpall: %s: %s\n", argv[1], nc_strerror(stat));
        return 1;
    }
    return 0;
}
