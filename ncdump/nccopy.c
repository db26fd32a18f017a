/* nccopy.c: copy a netCDF file, optionally converting its format.
 *
 * Classic data model: classic, 64-bit offset and CDF-5 in and out, -u
 * (unlimited to fixed), -v/-V variable subsets, -r (read the input into
 * memory), -w (write the output in memory, then to disk), -m copy buffer
 * size.  The output is written in NOFILL mode like upstream, so a copy is
 * byte-identical to upstream's.  Data move in slabs of at most the copy
 * buffer size: fixed variables by blocks of whole trailing sub-arrays,
 * record variables record by record, so memory stays bounded whatever the
 * file size.  Options that only concern netCDF-4 output (-d -s -c -F -M)
 * are accepted and have no effect on classic output, as upstream.
 * The tool is a function, nccopy_run() (nctools.h), so that a fuzz target
 * can run it in-process: a fatal error longjmps back to it, which aborts
 * the output (a file still being defined is removed), closes the input and
 * frees what the run allocated. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netcdf.h"
#include "nctools.h"

#define COPY_BUFFER_SIZE 5000000

static const char *progname = "nccopy";
static FILE *errf;                   /* diagnostics (stderr for the tool) */
static jmp_buf fail_jmp;             /* where a fatal error returns to */

typedef struct {
    int n;
    char **names;
} namelist;

/* What a run holds, released by end_run whichever way it ends. */
static struct {
    int in, out;                     /* open files, or -1 */
    void *buf;                       /* copy buffer */
    char *spec;                      /* copy of the -c argument */
    namelist vdata, vdef;            /* -v and -V lists */
} run = {-1, -1, NULL, NULL, {0, NULL}, {0, NULL}};

static void
free_list(namelist *l)
{
    int i;
    for (i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    l->n = 0;
    l->names = NULL;
}

/* Releases the run; failed != 0 aborts the output instead of closing it. */
static int
end_run(int failed)
{
    int stat = NC_NOERR, s2;
    if (run.out >= 0)
        stat = failed ? nc_abort(run.out) : nc_close(run.out);
    if (run.in >= 0 && (s2 = nc_close(run.in)) && !stat)
        stat = s2;
    run.in = run.out = -1;
    free(run.buf);
    run.buf = NULL;
    free(run.spec);
    run.spec = NULL;
    free_list(&run.vdata);
    free_list(&run.vdef);
    return stat;
}

static _Noreturn void
fail_out(void)
{
    fflush(errf);
    longjmp(fail_jmp, 1);
}

static void
usage(void)
{
    fprintf(errf,
        "%s: %s [-k kind] [-[3|4|6|7]] [-d n] [-s] [-c chunkspec] [-u] [-w] [-[v|V] varlist] [-[g|G] grplist] [-m n] [-h n] [-e n] [-r] [-F filterspec] [-Ln] [-Mn] infile outfile\n"
        "  [-k kind] specify kind of netCDF format for output file, default same as input\n"
        "\t    kind strings: 'classic', '64-bit offset', 'cdf5',\n"
        "                          'netCDF-4', 'netCDF-4 classic model'\n"
        "  [-3]      netCDF classic output (same as -k 'classic')\n"
        "  [-6]      64-bit-offset output (same as -k '64-bit offset')\n"
        "  [-4]      netCDF-4 output (same as -k 'netCDF-4')\n"
        "  [-7]      netCDF-4-classic output (same as -k 'netCDF-4 classic model')\n"
        "  [-5]      CDF5 output (same as -k 'cdf5)\n"
        "  [-d n]    set output deflation compression level, default same as input (0=none 9=max)\n"
        "  [-s]      add shuffle option to deflation compression\n"
        "  [-c chunkspec] specify chunking for variable and dimensions, e.g. \"var:N1,N2,...\" or \"dim1/N1,dim2/N2,...\"\n"
        "  [-u]      convert unlimited dimensions to fixed-size dimensions in output copy\n"
        "  [-w]      write whole output file from diskless netCDF on close\n"
        "  [-v var1,...] include data for only listed variables, but definitions for all variables\n"
        "  [-V var1,...] include definitions and data for only listed variables\n"
        "  [-g grp1,...] include data for only variables in listed groups, but all definitions\n"
        "  [-G grp1,...] include definitions and data only for variables in listed groups\n"
        "  [-m n]    set size in bytes of copy buffer, default is 5000000 bytes\n"
        "  [-h n]    set size in bytes of chunk_cache for chunked variables\n"
        "  [-e n]    set number of elements that chunk_cache can hold\n"
        "  [-r]      read whole input file into diskless file on open (classic or 64-bit offset or cdf5 formats only)\n"
        "  [-F filterspec] specify a compression algorithm to apply to an output variable (may be repeated).\n"
        "  [-Ln]     set log level to n (>= 0); ignored if logging isn't enabled.\n"
        "  [-Mn]     set minimum chunk size to n bytes (n >= 0)\n"
        "  infile    name of netCDF input file\n"
        "  outfile   name for netCDF output file\n"
        "\n"
        "netCDF library version %s\n",
        progname, progname, nc_inq_libvers());
}

static _Noreturn void
fail(const char *fmt, const char *arg)
{
    fprintf(errf, "%s: ", progname);
    fprintf(errf, fmt, arg);
    fputc('\n', errf);
    fail_out();
}

/* A library error: message and exit status as upstream's NC_CHECK. */
static void
check(int stat, int line)
{
    if (stat != NC_NOERR) {
        fprintf(errf, "%s\n", nc_strerror(stat));
        fprintf(errf, "Location: file nccopy.c; line %d\n", line);
        fail_out();
    }
}
#define CHECK(x) check((x), __LINE__)

static const struct { const char *name; int kind; } kinds[] = {
    {"classic", NC_FORMAT_CLASSIC}, {"nc3", NC_FORMAT_CLASSIC}, {"1", NC_FORMAT_CLASSIC},
    {"64-bit offset", NC_FORMAT_64BIT_OFFSET}, {"nc6", NC_FORMAT_64BIT_OFFSET},
    {"2", NC_FORMAT_64BIT_OFFSET}, {"64-bit-offset", NC_FORMAT_64BIT_OFFSET},
    {"netCDF-4", NC_FORMAT_NETCDF4}, {"nc4", NC_FORMAT_NETCDF4}, {"3", NC_FORMAT_NETCDF4},
    {"netCDF4", NC_FORMAT_NETCDF4}, {"hdf5", NC_FORMAT_NETCDF4}, {"enhanced", NC_FORMAT_NETCDF4},
    {"netcdf-4", NC_FORMAT_NETCDF4}, {"netcdf4", NC_FORMAT_NETCDF4},
    {"netCDF-4 classic model", NC_FORMAT_NETCDF4_CLASSIC}, {"nc7", NC_FORMAT_NETCDF4_CLASSIC},
    {"4", NC_FORMAT_NETCDF4_CLASSIC}, {"netCDF-4-classic", NC_FORMAT_NETCDF4_CLASSIC},
    {"netCDF-4_classic", NC_FORMAT_NETCDF4_CLASSIC}, {"netCDF4_classic", NC_FORMAT_NETCDF4_CLASSIC},
    {"hdf5-nc3", NC_FORMAT_NETCDF4_CLASSIC}, {"enhanced-nc3", NC_FORMAT_NETCDF4_CLASSIC},
    {"5", NC_FORMAT_CDF5}, {"64-bit-data", NC_FORMAT_CDF5}, {"64-bit data", NC_FORMAT_CDF5},
    {"nc5", NC_FORMAT_CDF5}, {"cdf5", NC_FORMAT_CDF5}, {"cdf-5", NC_FORMAT_CDF5},
};

/* The value of a size option (-m, -h, -e): a number with an optional
 * K, M, G, T or P suffix (powers of 1000; only the first character after
 * the number counts, so "1kb" is 1000).  As upstream, a negative number,
 * an unknown suffix or a strtod range error is fatal with upstream's
 * message; an empty string is 0.  Unlike upstream, a value that does not
 * fit in size_t (1e20, inf, nan) is fatal too: upstream's out-of-range
 * cast is undefined and made the copy loop on a 0-byte buffer. */
static size_t
size_arg(int opt, const char *s)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (v < 0 || errno != 0)
        v = -1;
    else if (*end) {
        switch (*end) {
        case 'k': case 'K': v *= 1e3; break;
        case 'm': case 'M': v *= 1e6; break;
        case 'g': case 'G': v *= 1e9; break;
        case 't': case 'T': v *= 1e12; break;
        case 'p': case 'P': v *= 1e15; break;
        default: v = -1; break;
        }
    }
    if (v < 0) {
        fprintf(errf, "%s: Suffix used for '-%c' option value must be K, M, G, T, or P\n",
                progname, opt);
        fail_out();
    }
    /* (double)SIZE_MAX rounds up to 2^64 (2^32), itself out of range */
    if (!(v < (double)SIZE_MAX)) {
        fprintf(errf, "%s: Value for '-%c' option out of range: %s\n", progname, opt, s);
        fail_out();
    }
    return (size_t)v;
}

/* Refuses to copy a file onto itself: the same name (upstream's check),
 * or, unlike upstream, another name of the same file (./IN, a symbolic or
 * hard link): creating the output would truncate the input before it is
 * read. */
static void
check_not_same_file(const char *in, const char *out)
{
    struct stat si, so;

    if (strcmp(in, out) == 0 ||
        (stat(in, &si) == 0 && stat(out, &so) == 0 &&
         si.st_dev == so.st_dev && si.st_ino == so.st_ino))
        fail("%s", "output would overwrite input");
}

/* Splits a comma-separated list (a repeated option replaces the list). */
static void
make_list(const char *arg, namelist *l)
{
    char *copy, *tok, *save = NULL;
    int cap = 1;
    const char *c;
    free_list(l);
    for (c = arg; *c; c++)
        if (*c == ',')
            cap++;
    copy = strdup(arg);
    l->names = malloc(sizeof(char *) * (size_t)cap);
    if (!copy || !l->names) {
        free(copy);
        fail("%s", "out of memory");
    }
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!(l->names[l->n] = strdup(tok))) {
            free(copy);
            fail("%s", "out of memory");
        }
        l->n++;
    }
    free(copy);
}

static int
in_list(const namelist *l, const char *name)
{
    int i;
    for (i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], name))
            return 1;
    return 0;
}

static size_t
type_size(nc_type t)
{
    switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    default: return 8;
    }
}

/* Copies elements [start, start+count) of a hyperslab whose leading `lead`
 * dimensions are fixed at start[], in pieces fitting buf. */
static void
copy_block(int in, int ivar, int out, int ovar, int rank, size_t *start, size_t *count,
           const size_t *shape, int first, void *buf, size_t bufelems)
{
    /* Find the smallest k >= first whose trailing block shape[k..] fits. */
    size_t inner = 1, m, idx[NC_MAX_VAR_DIMS];
    int k = rank, j;

    while (k > first && shape[k - 1] <= bufelems / inner) {
        inner *= shape[k - 1];
        k--;
    }
    if (rank == 0) {
        CHECK(nc_get_var(in, ivar, buf));
        CHECK(nc_put_var(out, ovar, buf));
        return;
    }
    if (first >= rank) {     /* one element: a record of a 1-D record variable */
        CHECK(nc_get_vara(in, ivar, start, count, buf));
        CHECK(nc_put_vara(out, ovar, start, count, buf));
        return;
    }
    if (k == rank) {
        /* even one row is too big: copy each row in pieces */
        size_t c0, nn;
        for (j = first; j < rank - 1; j++)
            idx[j] = 0;
        for (;;) {
            for (j = first; j < rank - 1; j++) {
                start[j] = idx[j];
                count[j] = 1;
            }
            for (c0 = 0; c0 < shape[rank - 1]; c0 += nn) {
                nn = shape[rank - 1] - c0 < bufelems ? shape[rank - 1] - c0 : bufelems;
                start[rank - 1] = c0;
                count[rank - 1] = nn;
                CHECK(nc_get_vara(in, ivar, start, count, buf));
                CHECK(nc_put_vara(out, ovar, start, count, buf));
            }
            for (j = rank - 2; j >= first; j--) {
                if (++idx[j] < shape[j])
                    break;
                idx[j] = 0;
            }
            if (j < first)
                return;
        }
    }
    m = k > first ? bufelems / inner : 1;
    if (k > first && m > shape[k - 1])
        m = shape[k - 1];
    if (m < 1)
        m = 1;
    for (j = first; j < rank; j++)
        idx[j] = 0;
    for (;;) {
        for (j = first; j < rank; j++) {
            if (j < k - 1) {
                start[j] = idx[j];
                count[j] = 1;
            } else if (j == k - 1) {
                start[j] = idx[j];
                count[j] = shape[j] - idx[j] < m ? shape[j] - idx[j] : m;
            } else {
                start[j] = 0;
                count[j] = shape[j];
            }
        }
        CHECK(nc_get_vara(in, ivar, start, count, buf));
        CHECK(nc_put_vara(out, ovar, start, count, buf));
        if (k <= first)
            return;
        idx[k - 1] += count[k - 1];
        for (j = k - 1; j >= first && idx[j] >= shape[j]; j--) {
            idx[j] = 0;
            if (j > first)
                idx[j - 1]++;
        }
        if (j < first)
            return;
    }
}

/* 1 if some record variable selected by the -V and -v lists (NULL: all)
 * has data to copy (no other dimension of length 0). */
static int
copy_any_record_var(int in, int nvars, int unlimid, const namelist *vdef, const namelist *vdata)
{
    int v, j;
    for (v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1];
        int nd, dimids[NC_MAX_VAR_DIMS];
        size_t len = 1;
        CHECK(nc_inq_var(in, v, name, NULL, &nd, dimids, NULL));
        if (!(nd > 0 && dimids[0] == unlimid) || (vdef && !in_list(vdef, name)) ||
            (vdata && !in_list(vdata, name)))
            continue;
        for (j = 1; j < nd && len > 0; j++)
            CHECK(nc_inq_dimlen(in, dimids[j], &len));
        if (len > 0)
            return 1;
    }
    return 0;
}

/* Bytes of copy buffer to allocate: the -m size, but never less than one
 * value (8 bytes) nor more than the largest slab a copy can use (a whole
 * fixed variable, one record of a record variable), so "-m 1P" on a small
 * file allocates little.  Copying is the same as with the full size. */
static size_t
copy_buffer_bytes(int in, int nvars, int unlimid, size_t bufsize)
{
    size_t need = 8;
    int v, j;

    for (v = 0; v < nvars && need < bufsize; v++) {
        nc_type type;
        int nd, dimids[NC_MAX_VAR_DIMS];
        size_t bytes, len;
        CHECK(nc_inq_var(in, v, NULL, &type, &nd, dimids, NULL));
        bytes = type_size(type);
        for (j = 0; j < nd; j++) {
            if (j == 0 && dimids[0] == unlimid)
                continue;
            CHECK(nc_inq_dimlen(in, dimids[j], &len));
            bytes = (len != 0 && bytes > SIZE_MAX / len) ? SIZE_MAX : bytes * len;
        }
        if (bytes > need)
            need = bytes;
    }
    return bufsize < 8 ? 8 : bufsize < need ? bufsize : need;
}

/* The tool proper; a fatal error longjmps out of it to nccopy_run. */
static int
copy_main(int argc, char *argv[])
{
    int c, kind = -1, stat, cmode, informat, id;
    int unlim_to_fixed = 0, in_memory = 0, out_memory = 0;
    size_t bufsize = COPY_BUFFER_SIZE;
    int have_v = 0, have_V = 0, have_g = 0;
    int want_nc4 = 0, filters = 0;     /* -d/-s and -F imply netCDF-4 output */
    const char *chunkspec = NULL;
    int ndims, nvars, ngatts, unlimid, d, v, a;
    size_t bufelems_bytes;

#ifdef __GLIBC__
    optind = 0;                      /* full re-initialisation of getopt */
#else
    optind = 1;
#endif
    opterr = (errf == stderr);
    if (argc <= 1) {
        usage();
        return EXIT_FAILURE;
    }
    while ((c = getopt(argc, argv, "k:34567d:sum:c:h:e:rwxg:G:v:V:F:L:M:")) != -1) {
        switch (c) {
        case 'k': {
            size_t i;
            for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
                if (!strcmp(optarg, kinds[i].name))
                    break;
            if (i == sizeof kinds / sizeof kinds[0])
                fail("invalid output format: %s", optarg);
            kind = kinds[i].kind;
            break;
        }
        case '3': kind = NC_FORMAT_CLASSIC; break;
        case '6': kind = NC_FORMAT_64BIT_OFFSET; break;
        case '4': kind = NC_FORMAT_NETCDF4; break;
        case '7': kind = NC_FORMAT_NETCDF4_CLASSIC; break;
        case '5': kind = NC_FORMAT_CDF5; break;
        case 'd': {
            /* strtol and a narrowing cast, as upstream (which prints the
             * truncated number) */
            int level = (int)strtol(optarg, NULL, 10);
            if (level < 0 || level > 9) {
                fprintf(errf, "%s: invalid deflation level: %d\n", progname, level);
                fail_out();
            }
            if (level > 0)
                want_nc4 = NC_FORMAT_NETCDF4_CLASSIC;
            break;
        }
        case 's': want_nc4 = NC_FORMAT_NETCDF4_CLASSIC; break;
        case 'u': unlim_to_fixed = 1; break;
        case 'm': bufsize = size_arg(c, optarg); break;
        case 'h': case 'e': (void)size_arg(c, optarg); break;
        case 'c': chunkspec = optarg; break;
        case 'F': filters = 1; break;
        case 'M': case 'x': break;
        case 'r': in_memory = 1; break;
        case 'w': out_memory = 1; break;
        case 'g': case 'G': have_g = 1; break;
        case 'v': make_list(optarg, &run.vdata); have_v = 1; break;
        case 'V': make_list(optarg, &run.vdef); have_V = 1; break;
        case 'L': fail("%s", "-L specified, but logging support not enabled"); break;
        default:
            usage();
            end_run(1);
            return EXIT_FAILURE;
        }
    }
    argc -= optind;
    argv += optind;
    if (argc != 2) {
        usage();
        end_run(1);
        return EXIT_FAILURE;
    }
    check_not_same_file(argv[0], argv[1]);
    stat = nc_open(argv[0], in_memory ? (NC_DISKLESS | NC_NOWRITE) : NC_NOWRITE, &id);
    CHECK(stat);
    run.in = id;
    CHECK(nc_inq_format(run.in, &informat));
    if (have_g && informat != NC_FORMAT_NETCDF4)
        fail("%s", "Group list (-g ...) only permitted for netCDF-4 file");
    {
        int i;
        for (i = 0; i < run.vdata.n; i++)
            if (nc_inq_varid(run.in, run.vdata.names[i], &id))
                fail("%s: No such variable", run.vdata.names[i]);
        for (i = 0; i < run.vdef.n; i++)
            if (nc_inq_varid(run.in, run.vdef.names[i], &id))
                fail("%s: No such variable", run.vdef.names[i]);
    }
    if (chunkspec) {
        /* only the dimension form names objects that must exist */
        char *tok, *save = NULL;
        run.spec = strdup(chunkspec);
        for (tok = run.spec ? strtok_r(run.spec, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
            char *slash = strchr(tok, '/');
            if (strchr(tok, ':'))
                break;
            if (slash) {
                *slash = '\0';
                CHECK(nc_inq_dimid(run.in, tok, &id));
            }
        }
        free(run.spec);
        run.spec = NULL;
    }
    /* As upstream: compression without -k asks for netCDF-4 classic model
     * output, and a filter always for netCDF-4. */
    if (kind < 0)
        kind = want_nc4 ? want_nc4 : informat;
    if (filters)
        kind = NC_FORMAT_NETCDF4;
    switch (kind) {
    case NC_FORMAT_CLASSIC: cmode = 0; break;
    case NC_FORMAT_64BIT_OFFSET: cmode = NC_64BIT_OFFSET; break;
    case NC_FORMAT_CDF5: cmode = NC_64BIT_DATA; break;
    case NC_FORMAT_NETCDF4: cmode = NC_NETCDF4; break;
    default: cmode = NC_NETCDF4 | NC_CLASSIC_MODEL; break;
    }
    cmode |= NC_CLOBBER;
    if (out_memory)
        cmode |= NC_DISKLESS | NC_PERSIST;
    CHECK(nc_create(argv[1], cmode, &id));
    run.out = id;
    CHECK(nc_set_fill(run.out, NC_NOFILL, NULL));

    /* definitions */
    CHECK(nc_inq(run.in, &ndims, &nvars, &ngatts, &unlimid));
    for (d = 0; d < ndims; d++) {
        char name[NC_MAX_NAME + 1];
        size_t len;
        int od;
        CHECK(nc_inq_dim(run.in, d, name, &len));
        CHECK(nc_def_dim(run.out, name, (d == unlimid && !unlim_to_fixed) ? NC_UNLIMITED : len, &od));
    }
    for (a = 0; a < ngatts; a++) {
        char name[NC_MAX_NAME + 1];
        CHECK(nc_inq_attname(run.in, NC_GLOBAL, a, name));
        CHECK(nc_copy_att(run.in, NC_GLOBAL, name, run.out, NC_GLOBAL));
    }
    for (v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1];
        nc_type type;
        int nd, dimids[NC_MAX_VAR_DIMS], natts, ov;
        CHECK(nc_inq_var(run.in, v, name, &type, &nd, dimids, &natts));
        if (have_V && !in_list(&run.vdef, name))
            continue;
        CHECK(nc_def_var(run.out, name, type, nd, dimids, &ov));
        for (a = 0; a < natts; a++) {
            char aname[NC_MAX_NAME + 1];
            CHECK(nc_inq_attname(run.in, v, a, aname));
            CHECK(nc_copy_att(run.in, v, aname, run.out, ov));
        }
    }
    CHECK(nc_enddef(run.out));

    /* data: fixed variables, then record variables record by record */
    bufelems_bytes = copy_buffer_bytes(run.in, nvars, unlimid, bufsize);
    run.buf = malloc(bufelems_bytes);
    if (!run.buf)
        fail("%s", "out of memory");
    {
        size_t nrecs = 0, r;
        if (unlimid >= 0)
            CHECK(nc_inq_dimlen(run.in, unlimid, &nrecs));
        for (v = 0; v < nvars; v++) {
            char name[NC_MAX_NAME + 1];
            nc_type type;
            int nd, dimids[NC_MAX_VAR_DIMS], ov, j;
            size_t shape[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
            CHECK(nc_inq_var(run.in, v, name, &type, &nd, dimids, NULL));
            if ((have_V && !in_list(&run.vdef, name)) || (have_v && !in_list(&run.vdata, name)))
                continue;
            if (nd > 0 && dimids[0] == unlimid)
                continue;
            CHECK(nc_inq_varid(run.out, name, &ov));
            for (j = 0; j < nd; j++) {
                CHECK(nc_inq_dimlen(run.in, dimids[j], &shape[j]));
                if (shape[j] == 0)
                    break;
            }
            if (j < nd)
                continue;
            copy_block(run.in, v, run.out, ov, nd, start, count, shape, 0, run.buf, bufelems_bytes / type_size(type));
        }
        /* No record variable to copy: do not walk the records at all (a
         * hostile header may claim billions of them). */
        if (!copy_any_record_var(run.in, nvars, unlimid, have_V ? &run.vdef : NULL,
                                 have_v ? &run.vdata : NULL))
            nrecs = 0;
        for (r = 0; r < nrecs; r++) {
            for (v = 0; v < nvars; v++) {
                char name[NC_MAX_NAME + 1];
                nc_type type;
                int nd, dimids[NC_MAX_VAR_DIMS], ov, j;
                size_t shape[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
                CHECK(nc_inq_var(run.in, v, name, &type, &nd, dimids, NULL));
                if ((have_V && !in_list(&run.vdef, name)) || (have_v && !in_list(&run.vdata, name)))
                    continue;
                if (!(nd > 0 && dimids[0] == unlimid))
                    continue;
                CHECK(nc_inq_varid(run.out, name, &ov));
                shape[0] = 1;
                for (j = 1; j < nd; j++) {
                    CHECK(nc_inq_dimlen(run.in, dimids[j], &shape[j]));
                    if (shape[j] == 0)
                        break;
                }
                if (j < nd)
                    continue;
                start[0] = r;
                count[0] = 1;
                copy_block(run.in, v, run.out, ov, nd, start, count, shape, 1, run.buf, bufelems_bytes / type_size(type));
            }
        }
    }
    CHECK(end_run(0));
    return EXIT_SUCCESS;
}

int
nccopy_run(int argc, char *argv[], FILE *err)
{
    errf = err ? err : stderr;
    progname = argv[0];
    end_run(1);
    if (setjmp(fail_jmp)) {
        end_run(1);
        return EXIT_FAILURE;
    }
    return copy_main(argc, argv);
}
