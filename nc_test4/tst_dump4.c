/* tst_dump4.c: a canonical, exact text dump of a netCDF-4 file through the
 * public API: format, every group (depth first, in the library's order),
 * user-defined types with their fields/members, dimensions, attributes with
 * values, variables with their storage settings (chunking, filters, endian,
 * fill) and all their values (floats as bit patterns, strings escaped, user
 * types recursively).  Built against our library and against the reference
 * (ref_tst_dump4); run_interop4.sh compares the two dumps of one file.
 *
 * Usage: tst_dump4 [-n] FILE   (-n: leave out the storage settings, for a
 * file rewritten with different ones).  Exit 1 with a message on any error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <netcdf.h>
#include <netcdf_filter.h>

static int no_specials;

#define CK(call)                                                                 \
    do {                                                                         \
        int ck_ = (call);                                                        \
        if (ck_) {                                                               \
            fflush(stdout);                                                      \
            fprintf(stderr, "tst_dump4: %s: %d (%s)\n", #call, ck_, nc_strerror(ck_)); \
            return ck_;                                                          \
        }                                                                        \
    } while (0)

static void
print_string(const char *s)
{
    if (!s) { printf("NULL"); return; }
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 32 && c < 127 && c != '"' && c != '\\') putchar(c);
        else printf("\\%03o", c);
    }
    putchar('"');
}

/* Size of one value of type t in memory. */
static int
type_size(int ncid, nc_type t, size_t *sizep)
{
    return nc_inq_type(ncid, t, NULL, sizep);
}

/* Print one value of type t at p; ncid locates user types. */
static int
print_value(int ncid, nc_type t, const void *p)
{
    switch (t) {
    case NC_BYTE: printf("%d", *(const signed char *)p); return 0;
    case NC_CHAR: printf("c%02x", *(const unsigned char *)p); return 0;
    case NC_UBYTE: printf("%u", *(const unsigned char *)p); return 0;
    case NC_SHORT: printf("%d", *(const short *)p); return 0;
    case NC_USHORT: printf("%u", *(const unsigned short *)p); return 0;
    case NC_INT: printf("%d", *(const int *)p); return 0;
    case NC_UINT: printf("%u", *(const unsigned *)p); return 0;
    case NC_INT64: printf("%lld", *(const long long *)p); return 0;
    case NC_UINT64: printf("%llu", *(const unsigned long long *)p); return 0;
    case NC_FLOAT: {
        uint32_t u;
        memcpy(&u, p, 4);
        printf("f%08x", (unsigned)u);
        return 0;
    }
    case NC_DOUBLE: {
        uint64_t u;
        memcpy(&u, p, 8);
        printf("d%016llx", (unsigned long long)u);
        return 0;
    }
    case NC_STRING: print_string(*(char *const *)p); return 0;
    default: break;
    }
    size_t size, nf;
    nc_type base;
    int cls;
    CK(nc_inq_user_type(ncid, t, NULL, &size, &base, &nf, &cls));
    switch (cls) {
    case NC_OPAQUE:
        printf("0x");
        for (size_t i = 0; i < size; i++) printf("%02x", ((const unsigned char *)p)[i]);
        return 0;
    case NC_ENUM: {
        long long v = 0;
        char ident[NC_MAX_NAME + 1];
        switch (base) {
        case NC_BYTE: v = *(const signed char *)p; break;
        case NC_UBYTE: v = *(const unsigned char *)p; break;
        case NC_SHORT: v = *(const short *)p; break;
        case NC_USHORT: v = *(const unsigned short *)p; break;
        case NC_INT: v = *(const int *)p; break;
        case NC_UINT: v = *(const unsigned *)p; break;
        default: memcpy(&v, p, 8); break;
        }
        if (base == NC_UINT64) printf("%llu", (unsigned long long)v);
        else printf("%lld", v);
        if (nc_inq_enum_ident(ncid, t, v, ident) == NC_NOERR) printf("=%s", ident);
        else printf("=?");
        return 0;
    }
    case NC_VLEN: {
        const nc_vlen_t *vl = p;
        size_t bs;
        CK(type_size(ncid, base, &bs));
        printf("(%zu:", vl->len);
        for (size_t i = 0; i < vl->len; i++) {
            putchar(' ');
            CK(print_value(ncid, base, (const char *)vl->p + i * bs));
        }
        putchar(')');
        return 0;
    }
    case NC_COMPOUND:
        putchar('{');
        for (size_t f = 0; f < nf; f++) {
            char fname[NC_MAX_NAME + 1];
            size_t off, fs;
            nc_type ft;
            int nd, dims[NC_MAX_VAR_DIMS];
            CK(nc_inq_compound_field(ncid, t, (int)f, fname, &off, &ft, &nd, dims));
            CK(type_size(ncid, ft, &fs));
            size_t n = 1;
            for (int d = 0; d < nd; d++) n *= (size_t)dims[d];
            printf("%s%s=", f ? " " : "", fname);
            if (nd) putchar('[');
            for (size_t i = 0; i < n; i++) {
                if (i) putchar(' ');
                CK(print_value(ncid, ft, (const char *)p + off + i * fs));
            }
            if (nd) putchar(']');
        }
        putchar('}');
        return 0;
    default:
        printf("<class %d>", cls);
        return NC_EBADTYPE;
    }
}

static int
print_values(int ncid, nc_type t, size_t n, const void *buf)
{
    size_t size;
    CK(type_size(ncid, t, &size));
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0) printf("\n    ");
        putchar(' ');
        CK(print_value(ncid, t, (const char *)buf + i * size));
    }
    printf("\n");
    return 0;
}

static int
dump_atts(int ncid, int varid, int natts)
{
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len, size;
        CK(nc_inq_attname(ncid, varid, a, name));
        CK(nc_inq_att(ncid, varid, name, &t, &len));
        CK(type_size(ncid, t, &size));
        printf("  att %d \"%s\" type %d len %zu:", a, name, t, len);
        void *buf = calloc(len ? len : 1, size);
        if (!buf) return NC_ENOMEM;
        int stat = nc_get_att(ncid, varid, name, buf);
        if (!stat) stat = print_values(ncid, t, len, buf);
        if (len) nc_reclaim_data(ncid, t, buf, len);
        free(buf);
        CK(stat);
    }
    return 0;
}

static int
dump_type(int ncid, nc_type t)
{
    char name[NC_MAX_NAME + 1];
    size_t size, nf;
    nc_type base;
    int cls;
    CK(nc_inq_user_type(ncid, t, name, &size, &base, &nf, &cls));
    printf(" type %d \"%s\" class %d size %zu base %d n %zu\n", t, name, cls, size, base, nf);
    for (size_t i = 0; i < nf; i++) {
        char fname[NC_MAX_NAME + 1];
        if (cls == NC_COMPOUND) {
            size_t off;
            nc_type ft;
            int nd, dims[NC_MAX_VAR_DIMS];
            CK(nc_inq_compound_field(ncid, t, (int)i, fname, &off, &ft, &nd, dims));
            printf("  field \"%s\" offset %zu type %d dims", fname, off, ft);
            for (int d = 0; d < nd; d++) printf(" %d", dims[d]);
            printf("\n");
        } else if (cls == NC_ENUM) {
            long long v = 0;
            unsigned char raw[8] = {0};
            CK(nc_inq_enum_member(ncid, t, (int)i, fname, raw));
            size_t bs;
            CK(type_size(ncid, base, &bs));
            switch (base) {
            case NC_BYTE: v = *(signed char *)raw; break;
            case NC_UBYTE: v = *(unsigned char *)raw; break;
            case NC_SHORT: { short s; memcpy(&s, raw, 2); v = s; break; }
            case NC_USHORT: { unsigned short s; memcpy(&s, raw, 2); v = s; break; }
            case NC_INT: { int s; memcpy(&s, raw, 4); v = s; break; }
            case NC_UINT: { unsigned s; memcpy(&s, raw, 4); v = s; break; }
            default: memcpy(&v, raw, 8); break;
            }
            if (base == NC_UINT64) printf("  member \"%s\" = %llu\n", fname, (unsigned long long)v);
            else printf("  member \"%s\" = %lld\n", fname, v);
        }
    }
    return 0;
}

static int
dump_var(int ncid, int v)
{
    char name[NC_MAX_NAME + 1];
    nc_type t;
    int nd, dims[NC_MAX_VAR_DIMS], na;
    size_t size;
    CK(nc_inq_var(ncid, v, name, &t, &nd, dims, &na));
    CK(type_size(ncid, t, &size));
    printf(" var %d \"%s\" type %d dims", v, name, t);
    for (int d = 0; d < nd; d++) printf(" %d", dims[d]);
    printf(" natts %d\n", na);
    if (!no_specials) {
        int st = -1, sh = -1, de = -1, lv = -1, fl = -1, en = -1, nofill = -1;
        size_t cs[NC_MAX_VAR_DIMS];
        CK(nc_inq_var_chunking(ncid, v, &st, cs));
        printf("  storage %d", st);
        if (st == NC_CHUNKED) {
            printf(" chunks");
            for (int d = 0; d < nd; d++) printf(" %zu", cs[d]);
        }
        CK(nc_inq_var_deflate(ncid, v, &sh, &de, &lv));
        CK(nc_inq_var_fletcher32(ncid, v, &fl));
        CK(nc_inq_var_endian(ncid, v, &en));
        printf(" shuffle %d deflate %d level %d fletcher32 %d endian %d", sh, de, lv, fl, en);
        size_t nfil = 0;
        unsigned ids[16];
        CK(nc_inq_var_filter_ids(ncid, v, &nfil, NULL));
        if (nfil > 16) nfil = 16;
        if (nfil) CK(nc_inq_var_filter_ids(ncid, v, &nfil, ids));
        printf(" filters");
        for (size_t i = 0; i < nfil; i++) {
            size_t np = 0;
            unsigned params[32];
            printf(" %u(", ids[i]);
            if (nc_inq_var_filter_info(ncid, v, ids[i], &np, NULL) == NC_NOERR && np <= 32 &&
                nc_inq_var_filter_info(ncid, v, ids[i], &np, params) == NC_NOERR)
                for (size_t j = 0; j < np; j++) printf("%s%u", j ? "," : "", params[j]);
            printf(")");
        }
        void *fv = calloc(1, size);
        if (!fv) return NC_ENOMEM;
        int stat = nc_inq_var_fill(ncid, v, &nofill, fv);
        if (!stat) {
            printf(" nofill %d fill ", nofill);
            stat = print_value(ncid, t, fv);
            nc_reclaim_data(ncid, t, fv, 1);
        }
        free(fv);
        CK(stat);
        printf("\n");
    }
    CK(dump_atts(ncid, v, na));
    size_t n = 1;
    for (int d = 0; d < nd; d++) {
        size_t len;
        CK(nc_inq_dimlen(ncid, dims[d], &len));
        n *= len;
    }
    printf("  data %zu:", n);
    if (n == 0) { printf("\n"); return 0; }
    void *buf = calloc(n, size);
    if (!buf) return NC_ENOMEM;
    int stat = nc_get_var(ncid, v, buf);
    if (!stat) stat = print_values(ncid, t, n, buf);
    if (!stat) nc_reclaim_data(ncid, t, buf, n);
    free(buf);
    CK(stat);
    return 0;
}

static int
dump_group(int ncid)
{
    char full[4096];
    size_t len;
    int n, *ids;
    CK(nc_inq_grpname_full(ncid, &len, NULL));
    if (len >= sizeof full) return NC_EMAXNAME;
    CK(nc_inq_grpname_full(ncid, &len, full));
    printf("group \"%s\"\n", full);
    /* types */
    CK(nc_inq_typeids(ncid, &n, NULL));
    ids = malloc(sizeof(int) * (size_t)(n + 1));
    if (!ids) return NC_ENOMEM;
    if (n) CK(nc_inq_typeids(ncid, &n, ids));
    for (int i = 0; i < n; i++) {
        int stat = dump_type(ncid, ids[i]);
        if (stat) { free(ids); return stat; }
    }
    free(ids);
    /* dimensions of this group */
    CK(nc_inq_dimids(ncid, &n, NULL, 0));
    ids = malloc(sizeof(int) * (size_t)(n + 1));
    if (!ids) return NC_ENOMEM;
    if (n) CK(nc_inq_dimids(ncid, &n, ids, 0));
    int nu = 0, uids[NC_MAX_DIMS];
    CK(nc_inq_unlimdims(ncid, &nu, NULL));
    if (nu > NC_MAX_DIMS) nu = NC_MAX_DIMS;
    if (nu) CK(nc_inq_unlimdims(ncid, &nu, uids));
    for (int i = 0; i < n; i++) {
        char name[NC_MAX_NAME + 1];
        size_t dl;
        int unl = 0;
        CK(nc_inq_dim(ncid, ids[i], name, &dl));
        for (int u = 0; u < nu; u++) unl |= uids[u] == ids[i];
        printf(" dim %d \"%s\" len %zu%s\n", ids[i], name, dl, unl ? " unlimited" : "");
    }
    free(ids);
    int natts, nvars;
    CK(nc_inq_natts(ncid, &natts));
    printf(" global atts %d\n", natts);
    CK(dump_atts(ncid, NC_GLOBAL, natts));
    CK(nc_inq_nvars(ncid, &nvars));
    for (int v = 0; v < nvars; v++) CK(dump_var(ncid, v));
    CK(nc_inq_grps(ncid, &n, NULL));
    ids = malloc(sizeof(int) * (size_t)(n + 1));
    if (!ids) return NC_ENOMEM;
    if (n) CK(nc_inq_grps(ncid, &n, ids));
    for (int i = 0; i < n; i++) {
        int stat = dump_group(ids[i]);
        if (stat) { free(ids); return stat; }
    }
    free(ids);
    return 0;
}

int
main(int argc, char **argv)
{
    int ncid, fmt, mode;
    int a = 1;
    if (a < argc && strcmp(argv[a], "-n") == 0) { no_specials = 1; a++; }
    if (a != argc - 1) {
        fprintf(stderr, "usage: tst_dump4 [-n] FILE\n");
        return 2;
    }
    int stat = nc_open(argv[a], NC_NOWRITE, &ncid);
    if (stat) {
        fprintf(stderr, "tst_dump4: open %s: %s\n", argv[a], nc_strerror(stat));
        return 1;
    }
    if ((stat = nc_inq_format(ncid, &fmt)) || (stat = nc_inq_format_extended(ncid, &mode, NULL))) {
        fprintf(stderr, "tst_dump4: format: %s\n", nc_strerror(stat));
        return 1;
    }
    printf("format %d extended %d\n", fmt, mode);
    stat = dump_group(ncid);
    nc_close(ncid);
    fflush(stdout);
    return stat ? 1 : 0;
}
