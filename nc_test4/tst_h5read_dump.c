/* tst_h5read_dump.c: print everything the netCDF API says about a file
 * (format, provenance, groups, user types, dims, vars with their storage
 * settings, attributes, whole and strided data, converted reads and their
 * return codes).  Built twice from this one source, against our library and
 * against the reference (ref_tst_h5read_dump), and run as two processes by
 * tst_h5read.sh, which diffs the outputs: the read side of netCDF-4/HDF5
 * must say exactly what upstream says.  Uses only the public API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_mem.h>

#define MAXDATA (1 << 20) /* values printed per variable, at most */

static void print_val(int ncid, nc_type xtype, const unsigned char *p);

static size_t
type_size(int ncid, nc_type xtype)
{
    size_t size = 0;
    if (nc_inq_type(ncid, xtype, NULL, &size))
        return 0;
    return size;
}

static int
type_class(int ncid, nc_type xtype)
{
    int cls = 0;
    if (xtype <= NC_STRING)
        return xtype;
    if (nc_inq_user_type(ncid, xtype, NULL, NULL, NULL, NULL, &cls))
        return -1;
    return cls;
}

static void
print_atomic(nc_type t, const unsigned char *p)
{
    switch (t) {
    case NC_BYTE: printf("%d", *(const signed char *)p); break;
    case NC_UBYTE: printf("%u", *(const unsigned char *)p); break;
    case NC_CHAR: {
        unsigned char c = *p;
        if (c >= 32 && c < 127 && c != '\\') printf("'%c'", c);
        else printf("'\\x%02x'", c);
        break;
    }
    case NC_SHORT: printf("%d", *(const short *)p); break;
    case NC_USHORT: printf("%u", *(const unsigned short *)p); break;
    case NC_INT: printf("%d", *(const int *)p); break;
    case NC_UINT: printf("%u", *(const unsigned int *)p); break;
    case NC_INT64: printf("%lld", *(const long long *)p); break;
    case NC_UINT64: printf("%llu", *(const unsigned long long *)p); break;
    case NC_FLOAT: printf("%.9g", *(const float *)p); break;
    case NC_DOUBLE: printf("%.17g", *(const double *)p); break;
    case NC_STRING: {
        const char *s = *(char *const *)p;
        if (s == NULL) printf("NULL");
        else printf("\"%s\"", s);
        break;
    }
    default: printf("?"); break;
    }
}

static void
print_val(int ncid, nc_type xtype, const unsigned char *p)
{
    int cls = type_class(ncid, xtype);
    size_t size = 0, nfields = 0;
    nc_type base = NC_NAT;

    if (xtype <= NC_STRING) {
        print_atomic(xtype, p);
        return;
    }
    if (nc_inq_user_type(ncid, xtype, NULL, &size, &base, &nfields, &cls)) {
        printf("<bad type>");
        return;
    }
    switch (cls) {
    case NC_COMPOUND:
        printf("{");
        for (size_t i = 0; i < nfields; i++) {
            size_t off = 0;
            nc_type ft;
            int nd = 0, dims[NC_MAX_VAR_DIMS];
            size_t n = 1, fs;
            nc_inq_compound_field(ncid, xtype, (int)i, NULL, &off, &ft, &nd, dims);
            for (int d = 0; d < nd; d++)
                n *= (size_t)dims[d];
            fs = type_size(ncid, ft);
            if (i) printf(", ");
            if (nd) printf("[");
            for (size_t k = 0; k < n; k++) {
                if (k) printf(" ");
                print_val(ncid, ft, p + off + k * fs);
            }
            if (nd) printf("]");
        }
        printf("}");
        break;
    case NC_VLEN: {
        const nc_vlen_t *v = (const nc_vlen_t *)p;
        size_t bs = type_size(ncid, base);
        printf("(%zu:", v->len);
        for (size_t k = 0; k < v->len; k++) {
            printf(" ");
            print_val(ncid, base, (const unsigned char *)v->p + k * bs);
        }
        printf(")");
        break;
    }
    case NC_OPAQUE:
        printf("0x");
        for (size_t k = 0; k < size; k++)
            printf("%02x", p[k]);
        break;
    case NC_ENUM:
        print_atomic(base, p);
        break;
    default:
        printf("<class %d>", cls);
    }
}

/* Free what values of xtype point to (strings, vlens, nested). */
static void
reclaim(int ncid, nc_type xtype, unsigned char *p, size_t n)
{
    int cls = type_class(ncid, xtype);
    size_t size = type_size(ncid, xtype);
    if (cls == NC_STRING) {
        for (size_t i = 0; i < n; i++)
            free(((char **)p)[i]);
    } else if (cls == NC_VLEN) {
        nc_type base;
        nc_inq_user_type(ncid, xtype, NULL, NULL, &base, NULL, NULL);
        for (size_t i = 0; i < n; i++) {
            nc_vlen_t *v = (nc_vlen_t *)(p + i * size);
            reclaim(ncid, base, v->p, v->len);
            free(v->p);
        }
    } else if (cls == NC_COMPOUND) {
        size_t nf = 0;
        nc_inq_user_type(ncid, xtype, NULL, NULL, NULL, &nf, NULL);
        for (size_t i = 0; i < n; i++)
            for (size_t f = 0; f < nf; f++) {
                size_t off, cnt = 1;
                nc_type ft;
                int nd, dims[NC_MAX_VAR_DIMS];
                nc_inq_compound_field(ncid, xtype, (int)f, NULL, &off, &ft, &nd, dims);
                for (int d = 0; d < nd; d++)
                    cnt *= (size_t)dims[d];
                reclaim(ncid, ft, p + i * size + off, cnt);
            }
    }
}

static void
print_vals(int ncid, nc_type xtype, const void *data, size_t n)
{
    size_t size = type_size(ncid, xtype);
    if (xtype == NC_CHAR) {
        printf("\"");
        for (size_t i = 0; i < n; i++) {
            unsigned char c = ((const unsigned char *)data)[i];
            if (c >= 32 && c < 127 && c != '\\' && c != '"') putchar(c);
            else printf("\\x%02x", c);
        }
        printf("\"");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (i) printf(", ");
        print_val(ncid, xtype, (const unsigned char *)data + i * size);
    }
}

static void
dump_att(int ncid, int varid, int i)
{
    char name[NC_MAX_NAME + 1];
    nc_type t;
    size_t len;
    int st;
    void *buf;

    if ((st = nc_inq_attname(ncid, varid, i, name))) {
        printf("    att %d: attname error %d\n", i, st);
        return;
    }
    if ((st = nc_inq_att(ncid, varid, name, &t, &len))) {
        printf("    att %s: inq error %d\n", name, st);
        return;
    }
    printf("    att %s type %d len %zu = ", name, t, len);
    buf = calloc(len ? len : 1, type_size(ncid, t) ? type_size(ncid, t) : 1);
    if ((st = nc_get_att(ncid, varid, name, buf)))
        printf("error %d", st);
    else
        print_vals(ncid, t, buf, len);
    printf("\n");
    if (!st)
        reclaim(ncid, t, buf, len);
    free(buf);
}

static void
dump_special_att(int ncid, const char *name)
{
    nc_type t;
    size_t len;
    int st = nc_inq_att(ncid, NC_GLOBAL, name, &t, &len);
    printf("special %s: ", name);
    if (st) {
        printf("error %d\n", st);
        return;
    }
    if (t == NC_CHAR) {
        char *s = calloc(1, len + 1);
        nc_get_att_text(ncid, NC_GLOBAL, name, s);
        printf("type %d len %zu \"%s\"\n", t, len, s);
        free(s);
    } else if (t == NC_INT && len == 1) {
        int v;
        nc_get_att_int(ncid, NC_GLOBAL, name, &v);
        printf("type %d = %d\n", t, v);
    } else {
        printf("type %d len %zu\n", t, len);
    }
}

static void
dump_type(int ncid, nc_type t)
{
    char name[NC_MAX_NAME + 1];
    size_t size, nf;
    nc_type base;
    int cls;

    if (nc_inq_user_type(ncid, t, name, &size, &base, &nf, &cls)) {
        printf("  type %d: error\n", t);
        return;
    }
    printf("  type %d %s class %d size %zu base %d n %zu\n", t, name, cls, size, base, nf);
    for (size_t i = 0; i < nf; i++) {
        if (cls == NC_COMPOUND) {
            char fn[NC_MAX_NAME + 1];
            size_t off;
            nc_type ft;
            int nd, dims[NC_MAX_VAR_DIMS];
            nc_inq_compound_field(ncid, t, (int)i, fn, &off, &ft, &nd, dims);
            printf("    field %s off %zu type %d ndims %d", fn, off, ft, nd);
            for (int d = 0; d < nd; d++)
                printf(" %d", dims[d]);
            printf("\n");
        } else if (cls == NC_ENUM) {
            char mn[NC_MAX_NAME + 1];
            long long v = 0;
            unsigned char raw[8] = {0};
            nc_inq_enum_member(ncid, t, (int)i, mn, raw);
            switch (base) {
            case NC_BYTE: v = *(signed char *)raw; break;
            case NC_UBYTE: v = *(unsigned char *)raw; break;
            case NC_SHORT: v = *(short *)raw; break;
            case NC_USHORT: v = *(unsigned short *)raw; break;
            case NC_INT: v = *(int *)raw; break;
            case NC_UINT: v = *(unsigned int *)raw; break;
            default: memcpy(&v, raw, 8); break;
            }
            printf("    member %s = %lld\n", mn, v);
        }
    }
}

/* Whole, strided and converted reads of one variable. */
static void
dump_data(int ncid, int varid, nc_type t, int ndims, const int *dimids)
{
    size_t shape[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    ptrdiff_t stride[NC_MAX_VAR_DIMS];
    size_t n = 1, ns = 1, size = type_size(ncid, t);
    void *buf;
    int st;

    for (int d = 0; d < ndims; d++) {
        nc_inq_dimlen(ncid, dimids[d], &shape[d]);
        n *= shape[d];
        start[d] = 0;
        stride[d] = 2;
        count[d] = (shape[d] + 1) / 2;
        ns *= count[d];
    }
    if (n > MAXDATA || size == 0) {
        printf("    data: %zu values, not printed\n", n);
        return;
    }
    buf = calloc(n ? n : 1, size);
    st = nc_get_var(ncid, varid, buf);
    printf("    data (%d): ", st);
    if (!st) {
        print_vals(ncid, t, buf, n);
        reclaim(ncid, t, buf, n);
    }
    printf("\n");
    memset(buf, 0, (n ? n : 1) * size);
    st = nc_get_vars(ncid, varid, start, count, stride, buf);
    printf("    strided (%d): ", st);
    if (!st) {
        print_vals(ncid, t, buf, ns);
        reclaim(ncid, t, buf, ns);
    }
    printf("\n");
    free(buf);
    if (t <= NC_UINT64 && t != NC_CHAR) {
        double *d = calloc(n ? n : 1, sizeof(double));
        signed char *b = calloc(n ? n : 1, 1);
        st = nc_get_var_double(ncid, varid, d);
        printf("    as double (%d):", st);
        for (size_t i = 0; i < n && st == 0; i++)
            printf(" %.17g", d[i]);
        printf("\n");
        st = nc_get_var_schar(ncid, varid, b);
        printf("    as schar (%d):", st);
        for (size_t i = 0; i < n && (st == 0 || st == NC_ERANGE); i++)
            printf(" %d", b[i]);
        printf("\n");
        free(d);
        free(b);
    }
    if (t == NC_CHAR) {
        int v;
        printf("    char as int: %d\n", nc_get_var_int(ncid, varid, &v));
    }
}

static void
dump_var(int ncid, int varid)
{
    char name[NC_MAX_NAME + 1];
    nc_type t;
    int ndims, natts, dimids[NC_MAX_VAR_DIMS];
    int storage = -1, shuffle = -1, deflate = -1, level = -1, fl32 = -1, endian = -1, nofill = -1;
    size_t chunks[NC_MAX_VAR_DIMS], nfilt = 0, csize = 0, cnelems = 0;
    float cpre = 0;
    unsigned int ids[32];
    void *fill;
    int st;

    nc_inq_var(ncid, varid, name, &t, &ndims, dimids, &natts);
    printf("  var %d %s type %d dims", varid, name, t);
    for (int d = 0; d < ndims; d++)
        printf(" %d", dimids[d]);
    printf(" natts %d\n", natts);
    st = nc_inq_var_chunking(ncid, varid, &storage, chunks);
    printf("    storage (%d) %d", st, storage);
    if (storage == NC_CHUNKED)
        for (int d = 0; d < ndims; d++)
            printf(" %zu", chunks[d]);
    printf("\n");
    st = nc_inq_var_deflate(ncid, varid, &shuffle, &deflate, &level);
    printf("    deflate (%d) shuffle %d deflate %d level %d\n", st, shuffle, deflate, level);
    st = nc_inq_var_fletcher32(ncid, varid, &fl32);
    printf("    fletcher32 (%d) %d\n", st, fl32);
    st = nc_inq_var_endian(ncid, varid, &endian);
    printf("    endian (%d) %d\n", st, endian);
    st = nc_inq_var_filter_ids(ncid, varid, &nfilt, NULL);
    printf("    filters (%d) %zu:", st, nfilt);
    if (!st && nfilt <= 32 && nc_inq_var_filter_ids(ncid, varid, &nfilt, ids) == 0) {
        for (size_t i = 0; i < nfilt; i++) {
            size_t np = 0;
            unsigned int params[64];
            nc_inq_var_filter_info(ncid, varid, ids[i], &np, NULL);
            printf(" %u(", ids[i]);
            if (np <= 64 && nc_inq_var_filter_info(ncid, varid, ids[i], &np, params) == 0)
                for (size_t k = 0; k < np; k++)
                    printf("%s%u", k ? "," : "", params[k]);
            printf(")");
        }
    }
    printf("\n");
    st = nc_get_var_chunk_cache(ncid, varid, &csize, &cnelems, &cpre);
    printf("    cache (%d) %zu %zu %g\n", st, csize, cnelems, cpre);
    fill = calloc(1, type_size(ncid, t) ? type_size(ncid, t) : 8);
    st = nc_inq_var_fill(ncid, varid, &nofill, fill);
    printf("    fill (%d) nofill %d value ", st, nofill);
    if (!st) {
        print_vals(ncid, t, fill, 1);
        reclaim(ncid, t, fill, 1);
    }
    printf("\n");
    free(fill);
    for (int i = 0; i < natts; i++)
        dump_att(ncid, varid, i);
    dump_data(ncid, varid, t, ndims, dimids);
}

static void
dump_group(int ncid)
{
    char name[NC_MAX_NAME + 1];
    size_t flen = 0;
    char *full;
    int ndims, nvars, natts, nunl, ntypes, ngrps;
    int *ids;

    nc_inq_grpname(ncid, name);
    nc_inq_grpname_full(ncid, &flen, NULL);
    full = calloc(1, flen + 1);
    nc_inq_grpname_full(ncid, &flen, full);
    nc_inq(ncid, &ndims, &nvars, &natts, NULL);
    printf("group %s (%s) ndims %d nvars %d natts %d\n", name, full, ndims, nvars, natts);
    free(full);

    nc_inq_typeids(ncid, &ntypes, NULL);
    ids = calloc((size_t)ntypes + 1, sizeof(int));
    nc_inq_typeids(ncid, &ntypes, ids);
    for (int i = 0; i < ntypes; i++)
        dump_type(ncid, ids[i]);
    free(ids);

    nc_inq_dimids(ncid, &ndims, NULL, 0);
    ids = calloc((size_t)ndims + 1, sizeof(int));
    nc_inq_dimids(ncid, &ndims, ids, 0);
    for (int i = 0; i < ndims; i++) {
        size_t len;
        nc_inq_dim(ncid, ids[i], name, &len);
        printf("  dim %d %s len %zu\n", ids[i], name, len);
    }
    free(ids);
    nc_inq_unlimdims(ncid, &nunl, NULL);
    ids = calloc((size_t)nunl + 1, sizeof(int));
    nc_inq_unlimdims(ncid, &nunl, ids);
    printf("  unlimdims %d:", nunl);
    for (int i = 0; i < nunl; i++)
        printf(" %d", ids[i]);
    printf("\n");
    free(ids);
    {
        int u = -2;
        printf("  unlimdim (%d) %d\n", nc_inq_unlimdim(ncid, &u), u);
    }
    for (int i = 0; i < natts; i++)
        dump_att(ncid, NC_GLOBAL, i);

    nc_inq_varids(ncid, &nvars, NULL);
    ids = calloc((size_t)nvars + 1, sizeof(int));
    nc_inq_varids(ncid, &nvars, ids);
    for (int i = 0; i < nvars; i++)
        dump_var(ncid, ids[i]);
    free(ids);

    nc_inq_grps(ncid, &ngrps, NULL);
    ids = calloc((size_t)ngrps + 1, sizeof(int));
    nc_inq_grps(ncid, &ngrps, ids);
    for (int i = 0; i < ngrps; i++)
        dump_group(ids[i]);
    free(ids);
}

/* Open path as asked: "-mem" through nc_open_mem, "-diskless" with
 * NC_DISKLESS, else nc_open. */
static int
open_as(const char *how, const char *path, int *ncidp, void **memp)
{
    *memp = NULL;
    if (strcmp(how, "-mem") == 0) {
        FILE *fp = fopen(path, "rb");
        long size;
        void *mem;
        int st;
        if (fp == NULL)
            return NC_EIO;
        fseek(fp, 0, SEEK_END);
        size = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        mem = malloc(size > 0 ? (size_t)size : 1);
        if (mem == NULL || fread(mem, 1, (size_t)size, fp) != (size_t)size) {
            fclose(fp);
            free(mem);
            return NC_EIO;
        }
        fclose(fp);
        st = nc_open_mem(path, NC_NOWRITE, (size_t)size, mem, ncidp);
        if (st)
            free(mem);
        else
            *memp = mem;
        return st;
    }
    if (strcmp(how, "-diskless") == 0)
        return nc_open(path, NC_NOWRITE | NC_DISKLESS, ncidp);
    return nc_open(path, NC_NOWRITE, ncidp);
}

int
main(int argc, char **argv)
{
    const char *how = "";
    for (int a = 1; a < argc; a++) {
        int ncid, fmt = -1, fx = -1, mode = -1, st;
        void *mem = NULL;
        if (argv[a][0] == '-') {
            how = argv[a];
            continue;
        }
        printf("== %s\n", strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a]);
        if ((st = open_as(how, argv[a], &ncid, &mem))) {
            printf("open error %d\n", st);
            continue;
        }
        nc_inq_format(ncid, &fmt);
        nc_inq_format_extended(ncid, &fx, &mode);
        printf("format %d extended %d\n", fmt, fx);
        dump_special_att(ncid, "_NCProperties");
        dump_special_att(ncid, "_IsNetcdf4");
        dump_special_att(ncid, "_SuperblockVersion");
        dump_special_att(ncid, "_Format");
        dump_group(ncid);
        printf("close %d\n", nc_close(ncid));
        free(mem);
    }
    return 0;
}
