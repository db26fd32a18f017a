/* nccopy.c: copy a netCDF file, optionally converting its format.
 *
 * Every format this library writes, in and out: classic, 64-bit offset,
 * CDF-5, netCDF-4 and netCDF-4 classic model.  The copy follows upstream
 * nccopy's rules and its order of library calls, so the output is what
 * upstream writes: groups first (preorder), then user-defined types group
 * by group, then per group dimensions, attributes and variables (with
 * chunking, compression, checksums, endianness and filters chosen as
 * upstream: copy_var_specials and copy_chunking below), then the data.
 * The output is written in NOFILL mode like upstream.
 *
 * Data move in slabs aligned to the output variable's chunks, so that each
 * nc_put_vara writes whole chunks (the library then compresses the chunks
 * of one call in parallel).  A slab is at most the -m copy buffer size, or
 * one chunk if a chunk is larger; for a filtered output variable at least
 * a few chunks per core (COPY_CHUNKS_PER_CORE), so that every core has a
 * chunk to compress.  netCDF-3 files with record variables are copied
 * record by record, as upstream.
 *
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
#include "netcdf_filter.h"
#include "nctools.h"
#include "copyspec.h"

#define COPY_BUFFER_SIZE 5000000
#define SAME_AS_INPUT (-1)
#define CHUNK_THRESHOLD 8192          /* smaller fixed variables stay contiguous */
#define DFALT_UNLIM_BYTES (4 << 20)   /* unlimited dims: chunk of at most 4 MiB */
#define COPY_CHUNKS_PER_CORE 2
#define MAX_PARALLEL_SLAB ((size_t)256 << 20)

static const char *progname = "nccopy";
static FILE *errf;                   /* diagnostics (stderr for the tool) */
static jmp_buf fail_jmp;             /* where a fatal error returns to */

typedef struct {
    int given;                       /* the option was given (even empty) */
    int n;
    char **names;
} namelist;

/* Command-line choices. */
static struct {
    int kind;                        /* output format or SAME_AS_INPUT */
    int deflate;                     /* -1: as the input */
    int shuffle;
    int fix_unlim;
    int read_mem, write_mem;
    size_t bufsize;
    size_t cache_size, cache_nelems;
    int set_cache;                   /* -h or -e given */
    size_t min_chunk;
    int grpstruct, varstruct;        /* -g / -v: definitions of all */
} opt;

/* What a run holds, released by end_run whichever way it ends. */
static struct {
    int in, out;                     /* open files, or -1 */
    int inkind, outkind, innc4, outnc4;
    void *buf;                       /* copy buffer */
    size_t bufcap;
    namelist vars, grps;             /* -v/-V and -g/-G lists */
    int *grpids;                     /* input groups matching the -g list */
    size_t ngrpids, grpcap;
    char **cspecs;                   /* -c arguments, parsed once the input is open */
    int ncspecs;
    chunkspecs cs;
    filteropts fo;
    int *odim;                       /* input dimid -> output dimid (-1 none) */
    unsigned char *ounlim;           /* output dimension is unlimited */
    size_t ndimmap;
    void **owned;                    /* temporaries of the recursive walks */
    size_t nowned, ownedcap;
} run = {-1, -1, 0, 0, 0, 0, NULL, 0, {0, 0, NULL}, {0, 0, NULL}, NULL, 0, 0, NULL, 0,
         {0, 0, NULL, NULL, 0, 0, NULL}, {0, 0, 0, NULL}, NULL, NULL, 0, NULL, 0, 0};

static void
free_list(namelist *l)
{
    int i;
    for (i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    l->n = 0;
    l->given = 0;
    l->names = NULL;
}

/* Releases the run; failed != 0 aborts the output instead of closing it. */
static int
end_run(int failed)
{
    int stat = NC_NOERR, s2, i;
    if (run.out >= 0)
        stat = failed ? nc_abort(run.out) : nc_close(run.out);
    if (run.in >= 0 && (s2 = nc_close(run.in)) && !stat)
        stat = s2;
    run.in = run.out = -1;
    free(run.buf);
    run.buf = NULL;
    run.bufcap = 0;
    free_list(&run.vars);
    free_list(&run.grps);
    free(run.grpids);
    run.grpids = NULL;
    run.ngrpids = run.grpcap = 0;
    for (i = 0; i < run.ncspecs; i++)
        free(run.cspecs[i]);
    free(run.cspecs);
    run.cspecs = NULL;
    run.ncspecs = 0;
    chunkspec_free(&run.cs);
    filteropt_free(&run.fo);
    free(run.odim);
    free(run.ounlim);
    run.odim = NULL;
    run.ounlim = NULL;
    run.ndimmap = 0;
    while (run.nowned > 0)
        free(run.owned[--run.nowned]);
    free(run.owned);
    run.owned = NULL;
    run.ownedcap = 0;
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
static _Noreturn void
check_fail(int stat, int line)
{
    fprintf(errf, "%s\n", nc_strerror(stat));
    fprintf(errf, "Location: file nccopy.c; line %d\n", line);
    fail_out();
}
#define CHECK(x) do { int check_s_ = (x); if (check_s_ != NC_NOERR) check_fail(check_s_, __LINE__); } while (0)

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

static void *
xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        fail("%s", "out of memory");
    return p;
}

/* A temporary that a fatal error deep in a recursive walk must not leak:
 * end_run frees what is still owned. */
static void *
xmalloc_owned(size_t n)
{
    void *p;
    if (run.nowned == run.ownedcap) {
        size_t cap = run.ownedcap ? 2 * run.ownedcap : 16;
        void **o = realloc(run.owned, cap * sizeof *o);
        if (!o)
            fail("%s", "out of memory");
        run.owned = o;
        run.ownedcap = cap;
    }
    p = xmalloc(n);
    run.owned[run.nowned++] = p;
    return p;
}

static void
release(void *p)
{
    size_t i;
    if (!p)
        return;
    for (i = run.nowned; i-- > 0;)
        if (run.owned[i] == p) {
            run.owned[i] = run.owned[--run.nowned];
            break;
        }
    free(p);
}

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
    l->given = 1;
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

/* ------------------------------------------------------------ names */

/* Upstream's nc_inq_gvarid: "v" in grp; "a/b/v" if grp's full name ends
 * in "a/b"; "/a/b/v" if it is exactly "/a/b". */
static int
gvarid(int grp, const char *name, int *varidp)
{
    const char *slash = strrchr(name, '/');
    char *full;
    size_t len, glen;
    int stat;

    if (!*name)
        return NC_ENOTVAR;
    if (!slash)
        return nc_inq_varid(grp, name, varidp);
    if ((stat = nc_inq_grpname_full(grp, &len, NULL)))
        return stat;
    full = xmalloc(len + 1);
    if ((stat = nc_inq_grpname_full(grp, &len, full))) {
        free(full);
        return stat;
    }
    full[len] = '\0';
    glen = (size_t)(slash - name);
    if (name[0] == '/')
        stat = (strlen(full) == glen && !strncmp(full, name, glen)) ? NC_NOERR : NC_ENOTVAR;
    else
        stat = (strlen(full) >= glen && !strncmp(full + strlen(full) - glen, name, glen))
                   ? NC_NOERR : NC_ENOTVAR;
    free(full);
    return stat ? stat : nc_inq_varid(grp, slash + 1, varidp);
}

/* Subgroups of grp (caller frees). */
static int *
subgroups(int grp, int *np)
{
    int *ids;
    *np = 0;
    if (!run.innc4 && grp == run.in)
        return NULL;
    CHECK(nc_inq_grps(grp, np, NULL));
    if (*np <= 0)
        return NULL;
    ids = xmalloc_owned(sizeof(int) * (size_t)*np);
    CHECK(nc_inq_grps(grp, NULL, ids));
    return ids;
}

/* How many groups have a variable of this (relative or absolute) name. */
static size_t
count_var(int grp, const char *name)
{
    int varid, n, i, *g;
    size_t count = gvarid(grp, name, &varid) == NC_NOERR;
    g = subgroups(grp, &n);
    for (i = 0; i < n; i++)
        count += count_var(g[i], name);
    release(g);
    return count;
}

static void
add_grpid(int id)
{
    if (run.ngrpids == run.grpcap) {
        size_t cap = run.grpcap ? 2 * run.grpcap : 8;
        int *n = realloc(run.grpids, cap * sizeof *n);
        if (!n)
            fail("%s", "out of memory");
        run.grpids = n;
        run.grpcap = cap;
    }
    run.grpids[run.ngrpids++] = id;
}

/* Groups matching a -g name: "" or "/" the root, "/a/b" that group, a
 * relative name every group of that name below grp (upstream's rules). */
static size_t
match_groups(int grp, const char *name)
{
    int id, n, i, *g, stat;
    size_t count = 0;

    if (!*name || !strcmp(name, "/")) {
        add_grpid(grp);
        return 1;
    }
    if (name[0] == '/') {
        stat = nc_inq_grp_full_ncid(grp, name, &id);
        if (stat == NC_NOERR) {
            add_grpid(id);
            return 1;
        }
        if (stat != NC_ENOGRP) {
            fprintf(errf, "%s: when looking up group %s: %s \n", progname, name, nc_strerror(stat));
            fail_out();
        }
        return 0;
    }
    if (nc_inq_grp_ncid(grp, name, &id) == NC_NOERR) {
        add_grpid(id);
        count++;
    }
    g = subgroups(grp, &n);
    for (i = 0; i < n; i++)
        count += match_groups(g[i], name);
    release(g);
    return count;
}

static int
group_wanted(int grp)
{
    size_t i;
    if (!run.grps.given)
        return 1;
    for (i = 0; i < run.ngrpids; i++)
        if (run.grpids[i] == grp)
            return 1;
    return 0;
}

/* 1 if varid of grp is named by the -v/-V list (relative to grp). */
static int
var_listed(int grp, int varid)
{
    int i, id;
    for (i = 0; i < run.vars.n; i++)
        if (gvarid(grp, run.vars.names[i], &id) == NC_NOERR && id == varid)
            return 1;
    return 0;
}

/* The output group of input group igrp, whose parent maps to oparent. */
static int
out_group(int igrp, int oparent)
{
    char name[NC_MAX_NAME + 1];
    int ogid;
    if (igrp == run.in)
        return oparent;
    CHECK(nc_inq_grpname(igrp, name));
    CHECK(nc_inq_grp_ncid(oparent, name, &ogid));
    return ogid;
}

/* Full name of a variable with CDL escapes, as -F names it (caller frees). */
static char *
var_fqn(int grp, int varid)
{
    static const char esc[] = " !\"#$%&'()*,:;<=>?[]\\^`{|}~";
    char vname[NC_MAX_NAME + 1], *fqn, *q;
    const char *p;
    size_t len;

    CHECK(nc_inq_grpname_full(grp, &len, NULL));
    fqn = xmalloc(len + 2 + 2 * NC_MAX_NAME + 1);
    CHECK(nc_inq_grpname_full(grp, &len, fqn));
    fqn[len] = '\0';
    CHECK(nc_inq_varname(grp, varid, vname));
    q = fqn + len;
    if (len > 1)
        *q++ = '/';
    for (p = vname; *p; p++) {
        if ((p == vname && isdigit((unsigned char)*p)) || strchr(esc, *p))
            *q++ = '\\';
        *q++ = *p;
    }
    *q = '\0';
    return fqn;
}

/* ------------------------------------------------------------ filters */

static int
fo_matches(const filteropt *f, const char *fqn)
{
    return !strcmp(f->fqn, "*") || !strcmp(f->fqn, fqn);
}

/* "none" given for this variable, or globally. */
static int
filters_suppressed(const char *fqn)
{
    size_t i;
    for (i = 0; i < run.fo.n; i++)
        if (fo_matches(&run.fo.opts[i], fqn) && run.fo.opts[i].nofilter)
            return 1;
    return run.fo.suppress;
}

/* Upstream's test of "active filters" for a variable: true when no "none"
 * applies to it and some -F entry does NOT name it (upstream's braces make
 * any other variable's filter count; copied since it decides chunking). */
static int
filters_active(const char *fqn)
{
    int none = 0, active = 0;
    size_t i;
    for (i = 0; i < run.fo.n; i++) {
        if (fo_matches(&run.fo.opts[i], fqn)) {
            if (run.fo.opts[i].nofilter)
                none = 1;
        } else
            active = 1;
    }
    return active && !none;
}

/* The output variable's filters, from -F or the input (upstream's table:
 * -F for the variable wins, else the input's filters, "none" or -d 0
 * removes them all). */
static void
copy_var_filter(int igrp, int varid, int ogrp, int ovarid)
{
    char *fqn = var_fqn(ogrp, ovarid);
    int suppress = filters_suppressed(fqn) || opt.deflate == 0;
    size_t i, nout = 0, nin = 0;
    unsigned int *ids = NULL;

    for (i = 0; i < run.fo.n; i++)
        if (fo_matches(&run.fo.opts[i], fqn) && !run.fo.opts[i].nofilter)
            nout++;
    if (suppress || run.fo.suppress) {
        free(fqn);
        return;
    }
    if (nout > 0) {
        for (i = 0; i < run.fo.n; i++) {
            const filteropt *f = &run.fo.opts[i];
            if (fo_matches(f, fqn) && !f->nofilter) {
                int stat = nc_def_var_filter(ogrp, ovarid, f->id, f->nparams, f->params);
                if (stat) {
                    free(fqn);
                    CHECK(stat);
                }
            }
        }
        free(fqn);
        return;
    }
    free(fqn);
    if (!run.innc4)
        return;
    CHECK(nc_inq_var_filter_ids(igrp, varid, &nin, NULL));
    if (nin == 0)
        return;
    ids = xmalloc(nin * sizeof *ids);
    {
        int stat = nc_inq_var_filter_ids(igrp, varid, &nin, ids);
        for (i = 0; i < nin && !stat; i++) {
            size_t np = 0;
            unsigned int *params = NULL;
            stat = nc_inq_var_filter_info(igrp, varid, ids[i], &np, NULL);
            if (stat == NC_ENOFILTER) {
                stat = NC_NOERR;
                np = 0;
            }
            if (stat)
                break;
            if (np > 0) {
                params = malloc(np * sizeof *params);
                if (!params)
                    stat = NC_ENOMEM;
                else
                    stat = nc_inq_var_filter_info(igrp, varid, ids[i], NULL, params);
            }
            if (!stat)
                stat = nc_def_var_filter(ogrp, ovarid, ids[i], np, params);
            free(params);
        }
        free(ids);
        CHECK(stat);
    }
}

/* ------------------------------------------------------------ schema */

static size_t
type_size(int grp, nc_type type)
{
    size_t size;
    CHECK(nc_inq_type(grp, type, NULL, &size));
    return size;
}

static void
dimmap_store(int idim, int odim, int ounlim)
{
    if (idim < 0)
        fail("%s", "bad dimension id");
    if ((size_t)idim >= run.ndimmap) {
        size_t n = (size_t)idim + 16, i;
        int *od = realloc(run.odim, n * sizeof *od);
        unsigned char *ou;
        if (!od)
            fail("%s", "out of memory");
        run.odim = od;
        ou = realloc(run.ounlim, n);
        if (!ou)
            fail("%s", "out of memory");
        run.ounlim = ou;
        for (i = run.ndimmap; i < n; i++) {
            run.odim[i] = -1;
            run.ounlim[i] = 0;
        }
        run.ndimmap = n;
    }
    run.odim[idim] = odim;
    run.ounlim[idim] = (unsigned char)ounlim;
}

static int
dimmap_odim(int idim)
{
    return (idim >= 0 && (size_t)idim < run.ndimmap) ? run.odim[idim] : -1;
}

static void
copy_dims(int igrp, int ogrp)
{
    int ndims, nunlim, *dimids, *unlims, d, u;

    CHECK(nc_inq_dimids(igrp, &ndims, NULL, 0));
    CHECK(nc_inq_unlimdims(igrp, &nunlim, NULL));
    dimids = xmalloc(sizeof(int) * (size_t)(ndims + 1));
    unlims = malloc(sizeof(int) * (size_t)(nunlim + 1));
    if (!unlims) {
        free(dimids);
        fail("%s", "out of memory");
    }
    if (nc_inq_dimids(igrp, NULL, dimids, 0) || nc_inq_unlimdims(igrp, NULL, unlims)) {
        free(dimids);
        free(unlims);
        CHECK(NC_EBADDIM);
    }
    for (d = 0; d < ndims; d++) {
        char name[NC_MAX_NAME + 1];
        size_t len;
        int is_unlim = 0, odim = -1, stat;
        for (u = 0; u < nunlim; u++)
            if (unlims[u] == dimids[d])
                is_unlim = 1;
        stat = nc_inq_dim(igrp, dimids[d], name, &len);
        if (!stat)
            stat = nc_def_dim(ogrp, name, (is_unlim && !opt.fix_unlim) ? NC_UNLIMITED : len, &odim);
        if (stat) {
            free(dimids);
            free(unlims);
            CHECK(stat);
        }
        dimmap_store(dimids[d], odim, is_unlim && !opt.fix_unlim);
    }
    free(dimids);
    free(unlims);
}

/* As upstream, the copy of a variable's attributes stops at _NCProperties. */
static void
copy_atts(int igrp, int ivar, int ogrp, int ovar)
{
    int natts, a;
    CHECK(nc_inq_varnatts(igrp, ivar, &natts));
    for (a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        CHECK(nc_inq_attname(igrp, ivar, a, name));
        if (!strcmp(name, "_NCProperties"))
            return;
        CHECK(nc_copy_att(igrp, ivar, name, ogrp, ovar));
    }
}

/* Output chunking, as upstream's copy_chunking: a -c var: spec wins, then
 * the input's storage; any filter or -d, an unlimited or a -c dim/n
 * dimension forces chunking; the chunk lengths come from -c var:, -c dim/n,
 * the input, the library's default, the dimension length in that order;
 * a fixed-size variable whose chunk is under -M bytes stays contiguous. */
static void
copy_chunking(int igrp, int ivar, int ogrp, int ovar, int ndims)
{
    int icontig = NC_CONTIGUOUS, ocontig, j, dimids[NC_MAX_VAR_DIMS], is_unlim = 0;
    size_t ichunk[NC_MAX_VAR_DIMS], ochunk[NC_MAX_VAR_DIMS], lens[NC_MAX_VAR_DIMS];
    size_t perdim[NC_MAX_VAR_DIMS], dflt[NC_MAX_VAR_DIMS], esize, prod;
    const cs_var *vs = chunkspec_var(&run.cs, igrp, ivar);
    char *fqn;

    memset(ichunk, 0, sizeof ichunk);
    memset(ochunk, 0, sizeof ochunk);
    memset(lens, 0, sizeof lens);
    memset(perdim, 0, sizeof perdim);
    memset(dflt, 0, sizeof dflt);
    if (run.innc4)
        CHECK(nc_inq_var_chunking(igrp, ivar, &icontig, ichunk));
    if (chunkspec_var_omit(&run.cs, igrp, ivar))
        ocontig = NC_CONTIGUOUS;
    else if (vs)
        ocontig = vs->kind;
    else
        ocontig = icontig;
    if (vs && vs->kind == NC_CHUNKED)
        memcpy(ochunk, vs->sizes, (size_t)ndims * sizeof(size_t));
    fqn = var_fqn(ogrp, ovar);
    if (!filters_suppressed(fqn) && (opt.deflate > 0 || filters_active(fqn)))
        ocontig = NC_CHUNKED;
    free(fqn);

    if (run.cs.dim_omit) {
        ocontig = NC_CONTIGUOUS;
    } else {
        nc_type t;
        CHECK(nc_inq_vartype(igrp, ivar, &t));
        esize = type_size(igrp, t);
        prod = esize;
        CHECK(nc_inq_vardimid(igrp, ivar, dimids));
        for (j = 0; j < ndims; j++) {
            int od = dimmap_odim(dimids[j]);
            CHECK(nc_inq_dimlen(igrp, dimids[j], &lens[j]));
            if (od >= 0 && run.ounlim[dimids[j]]) {
                is_unlim = 1;
                ocontig = NC_CHUNKED;
            }
            if (chunkspec_dim(&run.cs, dimids[j], &perdim[j]))
                ocontig = NC_CHUNKED;
            /* (as upstream, every dimension after an unlimited one is capped too) */
            if (is_unlim && lens[j] > DFALT_UNLIM_BYTES / esize)
                lens[j] = DFALT_UNLIM_BYTES / esize;
        }
        if (ocontig == NC_CHUNKED &&
            nc_def_var_chunking(ogrp, ovar, NC_CHUNKED, dflt) == NC_NOERR) {
            int storage;
            CHECK(nc_inq_var_chunking(ogrp, ovar, &storage, dflt));
            if (storage != NC_CHUNKED)
                CHECK(NC_EINTERNAL);
        }
        for (j = 0; j < ndims; j++) {
            if (!ochunk[j])
                ochunk[j] = perdim[j];
            if (!ochunk[j])
                ochunk[j] = ichunk[j];
            if (!ochunk[j])
                ochunk[j] = dflt[j];
            if (!ochunk[j])
                ochunk[j] = lens[j];
            if (!ochunk[j])
                CHECK(NC_EINTERNAL);
            prod = (prod > SIZE_MAX / ochunk[j]) ? SIZE_MAX : prod * ochunk[j];
        }
        if (prod < opt.min_chunk && !is_unlim)
            ocontig = NC_CONTIGUOUS;
    }
    switch (ocontig) {
    case NC_CHUNKED: CHECK(nc_def_var_chunking(ogrp, ovar, NC_CHUNKED, ochunk)); break;
    case NC_CONTIGUOUS: case NC_COMPACT: CHECK(nc_def_var_chunking(ogrp, ovar, ocontig, NULL)); break;
    default: CHECK(NC_EINVAL);
    }
}

/* Storage and filter properties of a netCDF-4 output variable (upstream's
 * copy_var_specials: chunking, deflate and shuffle from -d/-s or the
 * input, Fletcher32 and endianness from the input, then other filters
 * unless the variable is deflated). */
static void
copy_var_specials(int igrp, int ivar, int ogrp, int ovar)
{
    int ndims, nofilters, deflated = 0;
    char *fqn;

    if (!run.outnc4)
        return;
    CHECK(nc_inq_varndims(igrp, ivar, &ndims));
    if (ndims > 0)
        copy_chunking(igrp, ivar, ogrp, ovar, ndims);
    fqn = var_fqn(ogrp, ovar);
    nofilters = filters_suppressed(fqn);
    free(fqn);
    if (ndims > 0 && !nofilters) {
        int sh_in = 0, df_in = 0, lv_in = 0, sh = 0, df = 0, lv = 0;
        if (run.innc4)
            CHECK(nc_inq_var_deflate(igrp, ivar, &sh_in, &df_in, &lv_in));
        if (opt.deflate == -1) {
            sh = sh_in;
            df = df_in;
            lv = lv_in;
        } else if (opt.deflate > 0) {
            sh = opt.shuffle;
            df = 1;
            lv = opt.deflate;
        }
        if (sh || df)
            CHECK(nc_def_var_deflate(ogrp, ovar, sh, df, lv));
        deflated = df;
    }
    if (!nofilters && run.innc4 && ndims > 0) {
        int f32 = 0;
        CHECK(nc_inq_var_fletcher32(igrp, ivar, &f32));
        if (f32)
            CHECK(nc_def_var_fletcher32(ogrp, ovar, f32));
    }
    if (run.innc4) {
        int endian = 0;
        CHECK(nc_inq_var_endian(igrp, ivar, &endian));
        if (endian != NC_ENDIAN_NATIVE)
            CHECK(nc_def_var_endian(ogrp, ovar, endian));
    }
    if (!nofilters && !deflated && ndims > 0)
        copy_var_filter(igrp, ivar, ogrp, ovar);
}

static void
copy_var(int igrp, int ivar, int ogrp)
{
    char name[NC_MAX_NAME + 1];
    nc_type type, otype;
    int ndims, idims[NC_MAX_VAR_DIMS], odims[NC_MAX_VAR_DIMS], j, ovar;

    CHECK(nc_inq_varndims(igrp, ivar, &ndims));
    if (ndims < 0 || ndims > NC_MAX_VAR_DIMS)
        CHECK(NC_EMAXDIMS);
    CHECK(nc_inq_var(igrp, ivar, name, &type, NULL, idims, NULL));
    otype = type;
    if (type > NC_STRING) {
        /* type ids differ between files: find the output type by name */
        char tname[NC_MAX_NAME + 1];
        CHECK(nc_inq_type(igrp, type, tname, NULL));
        CHECK(nc_inq_typeid(ogrp, tname, &otype));
    }
    for (j = 0; j < ndims; j++) {
        odims[j] = dimmap_odim(idims[j]);
        if (odims[j] < 0) {
            fprintf(errf, "%s: Oops, no dimension in output associated with input dimid %d\n",
                    progname, idims[j]);
            fail_out();
        }
    }
    CHECK(nc_def_var(ogrp, name, otype, ndims, odims, &ovar));
    copy_atts(igrp, ivar, ogrp, ovar);
    copy_var_specials(igrp, ivar, ogrp, ovar);
}

static void
copy_vars(int igrp, int ogrp)
{
    int nvars, v;
    CHECK(nc_inq_nvars(igrp, &nvars));
    for (v = 0; v < nvars; v++) {
        if (!opt.varstruct && run.vars.given && !var_listed(igrp, v))
            continue;
        copy_var(igrp, v, ogrp);
    }
}

static void
copy_schema(int igrp, int oparent)
{
    int ogrp = out_group(igrp, oparent), n, i, *g;
    copy_dims(igrp, ogrp);
    copy_atts(igrp, NC_GLOBAL, ogrp, NC_GLOBAL);
    copy_vars(igrp, ogrp);
    g = subgroups(igrp, &n);
    for (i = 0; i < n; i++)
        if (opt.grpstruct || group_wanted(g[i]))
            copy_schema(g[i], ogrp);
    release(g);
}

/* Creates the output groups, in preorder, before any type (a type may use
 * one of another group). */
static void
copy_groups(int igrp, int ogrp)
{
    int n, i, *g = subgroups(igrp, &n);
    for (i = 0; i < n; i++) {
        char name[NC_MAX_NAME + 1];
        int og = -1, stat;
        if (opt.grpstruct || group_wanted(g[i])) {
            if (!opt.grpstruct && !group_wanted(igrp) && igrp != run.in) {
                size_t len;
                char *full;
                stat = nc_inq_grpname_full(g[i], &len, NULL);
                full = stat ? NULL : malloc(len + 1);
                if (full && !nc_inq_grpname_full(g[i], &len, full)) {
                    full[len] = '\0';
                    fprintf(errf, "%s: ERROR: trying to copy a group but not the parent: %s\n",
                            progname, full);
                }
                free(full);
                fail_out();
            }
            stat = nc_inq_grpname(g[i], name);
            if (!stat)
                stat = nc_def_grp(ogrp, name, &og);
            CHECK(stat);
        }
        copy_groups(g[i], og);
    }
    release(g);
}

static void copy_type(int igrp, nc_type type, int ogrp);

static nc_type
out_type_named(int igrp, nc_type itype, int ogrp, int create)
{
    char name[NC_MAX_NAME + 1];
    nc_type otype;
    int stat;
    CHECK(nc_inq_type(igrp, itype, name, NULL));
    stat = nc_inq_typeid(ogrp, name, &otype);
    if (stat == NC_EBADTYPE && create) {
        copy_type(igrp, itype, ogrp);
        stat = nc_inq_typeid(ogrp, name, &otype);
    }
    CHECK(stat);
    return otype;
}

static void
copy_type(int igrp, nc_type type, int ogrp)
{
    char name[NC_MAX_NAME + 1];
    size_t size, nfields;
    nc_type base, otype;
    int cls;

    CHECK(nc_inq_user_type(igrp, type, name, &size, &base, &nfields, &cls));
    switch (cls) {
    case NC_VLEN:
        CHECK(nc_def_vlen(ogrp, name, out_type_named(igrp, base, ogrp, 1), &otype));
        break;
    case NC_OPAQUE:
        CHECK(nc_def_opaque(ogrp, size, name, &otype));
        break;
    case NC_ENUM: {
        size_t i;
        CHECK(nc_def_enum(ogrp, base, name, &otype));
        for (i = 0; i < nfields; i++) {
            char mname[NC_MAX_NAME + 1];
            long long val = 0;      /* big enough for any base type */
            CHECK(nc_inq_enum_member(igrp, type, (int)i, mname, &val));
            CHECK(nc_insert_enum(ogrp, otype, mname, &val));
        }
        break;
    }
    case NC_COMPOUND: {
        size_t i;
        CHECK(nc_def_compound(ogrp, size, name, &otype));
        for (i = 0; i < nfields; i++) {
            char fname[NC_MAX_NAME + 1];
            size_t off;
            nc_type ft;
            int fnd, fdims[NC_MAX_VAR_DIMS];
            CHECK(nc_inq_compound_field(igrp, type, (int)i, fname, &off, &ft, &fnd, NULL));
            if (fnd < 0 || fnd > NC_MAX_VAR_DIMS)
                CHECK(NC_EINVAL);
            ft = out_type_named(igrp, ft, ogrp, 0);
            if (fnd == 0) {
                CHECK(nc_insert_compound(ogrp, otype, fname, off, ft));
            } else {
                CHECK(nc_inq_compound_field(igrp, type, (int)i, NULL, NULL, NULL, NULL, fdims));
                CHECK(nc_insert_array_compound(ogrp, otype, fname, off, ft, fnd, fdims));
            }
        }
        break;
    }
    default:
        CHECK(NC_EBADTYPE);
    }
}

static void
copy_types(int igrp, int ogrp)
{
    int ntypes, i, n, *g;
    nc_type *types;

    CHECK(nc_inq_typeids(igrp, &ntypes, NULL));
    if (ntypes > 0) {
        types = xmalloc_owned(sizeof(nc_type) * (size_t)ntypes);
        CHECK(nc_inq_typeids(igrp, NULL, types));
        for (i = 0; i < ntypes; i++)
            copy_type(igrp, types[i], ogrp);
        release(types);
    }
    g = subgroups(igrp, &n);
    for (i = 0; i < n; i++)
        if (opt.grpstruct || group_wanted(g[i]))
            copy_types(g[i], out_group(g[i], ogrp));
    release(g);
}

/* ------------------------------------------------------------ data */

/* Values of this type own memory (strings, vlens) to be reclaimed. */
static int
type_owns_memory(int grp, nc_type type)
{
    size_t nfields, i;
    nc_type base;
    int cls;
    if (type == NC_STRING)
        return 1;
    if (type <= NC_MAX_ATOMIC_TYPE)
        return 0;
    CHECK(nc_inq_user_type(grp, type, NULL, NULL, &base, &nfields, &cls));
    if (cls == NC_VLEN)
        return 1;
    if (cls != NC_COMPOUND)
        return 0;
    for (i = 0; i < nfields; i++) {
        nc_type ft;
        CHECK(nc_inq_compound_fieldtype(grp, type, (int)i, &ft));
        if (type_owns_memory(grp, ft))
            return 1;
    }
    return 0;
}

static void
ensure_buf(size_t bytes)
{
    if (bytes > run.bufcap) {
        free(run.buf);
        run.buf = NULL;
        run.bufcap = 0;
        run.buf = xmalloc(bytes);
        run.bufcap = bytes;
    }
}

/* One variable's copy: its ids, element size and slab limits. */
typedef struct {
    int igrp, ivar, ogrp, ovar, rank, owns;
    nc_type type;
    size_t esize, cap;
    size_t grain[NC_MAX_VAR_DIMS];
} varcopy;

/* Copies the box [base, base+ext) in slabs aligned to vc->grain: whole
 * trailing dimensions while they fit in vc->cap bytes, then as many grains
 * of the next dimension as fit (at least one). */
static void
copy_box(const varcopy *vc, const size_t *base, const size_t *ext)
{
    size_t s[NC_MAX_VAR_DIMS], idx[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    size_t bytes = vc->esize, n;
    int j, r = vc->rank, stat;

    for (j = 0; j < r; j++) {
        if (ext[j] == 0)
            return;
        s[j] = vc->grain[j] < ext[j] ? vc->grain[j] : ext[j];
        if (bytes > SIZE_MAX / s[j])
            fail("%s", "out of memory");
        bytes *= s[j];
    }
    for (j = r - 1; j >= 0; j--) {
        size_t per = bytes / s[j], m;
        if (ext[j] <= vc->cap / per) {
            s[j] = ext[j];
            bytes = per * ext[j];
            continue;
        }
        m = vc->cap / per / vc->grain[j] * vc->grain[j];
        if (m > s[j]) {
            s[j] = m;
            bytes = per * m;
        }
        break;
    }
    ensure_buf(bytes);
    for (j = 0; j < r; j++)
        idx[j] = 0;
    for (;;) {
        n = 1;
        for (j = 0; j < r; j++) {
            start[j] = base[j] + idx[j];
            count[j] = ext[j] - idx[j] < s[j] ? ext[j] - idx[j] : s[j];
            n *= count[j];
        }
        CHECK(nc_get_vara(vc->igrp, vc->ivar, start, count, run.buf));
        stat = nc_put_vara(vc->ogrp, vc->ovar, start, count, run.buf);
        if (vc->owns) {
            int s2 = nc_reclaim_data(vc->igrp, vc->type, run.buf, n);
            if (!stat)
                stat = s2;
        }
        CHECK(stat);
        for (j = r - 1; j >= 0; j--) {
            idx[j] += s[j];
            if (idx[j] < ext[j])
                break;
            idx[j] = 0;
        }
        if (j < 0)
            return;
    }
}

static int
filter_threads(void)
{
    const char *e = getenv("NETCDF_FILTER_THREADS");
    long n = e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

/* Sets up the copy of input variable ivar to the output variable of the
 * same name in ogrp. */
static void
setup_varcopy(varcopy *vc, int igrp, int ivar, int ogrp)
{
    char name[NC_MAX_NAME + 1];
    int j;

    memset(vc, 0, sizeof *vc);
    vc->igrp = igrp;
    vc->ivar = ivar;
    vc->ogrp = ogrp;
    CHECK(nc_inq_var(igrp, ivar, name, &vc->type, &vc->rank, NULL, NULL));
    CHECK(nc_inq_varid(ogrp, name, &vc->ovar));
    vc->esize = type_size(igrp, vc->type);
    vc->owns = type_owns_memory(igrp, vc->type);
    vc->cap = opt.bufsize < 8 ? 8 : opt.bufsize;   /* at least one 8-byte value, as before */
    for (j = 0; j < vc->rank; j++)
        vc->grain[j] = 1;
    if (run.outnc4 && vc->rank > 0) {
        int storage = NC_CONTIGUOUS;
        CHECK(nc_inq_var_chunking(ogrp, vc->ovar, &storage, NULL));
        if (storage == NC_CHUNKED) {
            size_t chunk = vc->esize, nf = 0;
            CHECK(nc_inq_var_chunking(ogrp, vc->ovar, &storage, vc->grain));
            for (j = 0; j < vc->rank; j++) {
                if (vc->grain[j] == 0)
                    vc->grain[j] = 1;
                chunk = chunk > SIZE_MAX / vc->grain[j] ? SIZE_MAX : chunk * vc->grain[j];
            }
            if (opt.set_cache)
                CHECK(nc_set_var_chunk_cache(ogrp, vc->ovar, opt.cache_size, opt.cache_nelems, 1.0f));
            /* a filtered variable: enough chunks per call for every core */
            CHECK(nc_inq_var_filter_ids(ogrp, vc->ovar, &nf, NULL));
            if (nf > 0) {
                size_t want = MAX_PARALLEL_SLAB / chunk;
                size_t per = COPY_CHUNKS_PER_CORE * (size_t)filter_threads();
                want = (want < per ? want : per) * chunk;   /* 0 if a chunk is larger */
                if (want > vc->cap)
                    vc->cap = want;
            }
        }
    }
    if (vc->cap < vc->esize)
        vc->cap = vc->esize;
}

static void
copy_var_data(int igrp, int ivar, int ogrp)
{
    varcopy vc;
    int dimids[NC_MAX_VAR_DIMS], j;
    size_t base[NC_MAX_VAR_DIMS], ext[NC_MAX_VAR_DIMS];

    setup_varcopy(&vc, igrp, ivar, ogrp);
    CHECK(nc_inq_vardimid(igrp, ivar, dimids));
    for (j = 0; j < vc.rank; j++) {
        base[j] = 0;
        CHECK(nc_inq_dimlen(igrp, dimids[j], &ext[j]));
        if (ext[j] == 0)
            return;
    }
    if (vc.rank == 0) {
        ensure_buf(vc.esize);
        CHECK(nc_get_var(igrp, ivar, run.buf));
        {
            int stat = nc_put_var(ogrp, vc.ovar, run.buf);
            if (vc.owns) {
                int s2 = nc_reclaim_data(igrp, vc.type, run.buf, 1);
                if (!stat)
                    stat = s2;
            }
            CHECK(stat);
        }
        return;
    }
    copy_box(&vc, base, ext);
}

static void
copy_data(int igrp, int oparent)
{
    int ogrp = out_group(igrp, oparent), nvars, v, n, i, *g;
    CHECK(nc_inq_nvars(igrp, &nvars));
    for (v = 0; v < nvars; v++) {
        if (run.vars.given && !var_listed(igrp, v))
            continue;
        if (!group_wanted(igrp))
            continue;
        copy_var_data(igrp, v, ogrp);
    }
    g = subgroups(igrp, &n);
    for (i = 0; i < n; i++) {
        int sub = g[i];
        if (!opt.grpstruct && !group_wanted(sub))
            continue;
        copy_data(sub, ogrp);
    }
    release(g);
}

/* netCDF-3 input or output with a record variable: fixed variables first,
 * then record by record (upstream's special case).  Variables are those of
 * the -v/-V list, else all of `ncid` (the input, or the output). */
static void
copy_nc3_records(int ncid)
{
    int nvars, v, unlimid, *ivars, nsel = 0, i;
    size_t nrecs = 0, r;
    varcopy *rec = NULL;
    int nrec = 0;

    CHECK(nc_inq_nvars(ncid, &nvars));
    CHECK(nc_inq_unlimdim(run.in, &unlimid));
    ivars = xmalloc_owned(sizeof(int) * (size_t)(nvars > 0 ? nvars : 1) +
                    sizeof(int) * (size_t)(run.vars.n + 1));
    if (run.vars.given) {
        for (i = 0; i < run.vars.n; i++)
            if (nc_inq_varid(run.in, run.vars.names[i], &v) == NC_NOERR)
                ivars[nsel++] = v;
    } else {
        for (v = 0; v < nvars; v++) {
            char name[NC_MAX_NAME + 1];
            int iv = -1;
            if (nc_inq_varname(ncid, v, name) || nc_inq_varid(run.in, name, &iv))
                CHECK(NC_ENOTVAR);
            ivars[nsel++] = iv;
        }
    }
    /* fixed-size variables */
    for (i = 0; i < nsel; i++) {
        int nd, dims[NC_MAX_VAR_DIMS];
        if (nc_inq_varndims(run.in, ivars[i], &nd) || nd < 0 || nd > NC_MAX_VAR_DIMS ||
            nc_inq_vardimid(run.in, ivars[i], dims))
            CHECK(NC_ENOTVAR);
        if (nd > 0 && dims[0] == unlimid)
            continue;
        {
            int iv = ivars[i];
            copy_var_data(run.in, iv, run.out);
        }
    }
    /* record variables with data in a record */
    rec = xmalloc_owned(sizeof *rec * (size_t)(nsel > 0 ? nsel : 1));
    for (i = 0; i < nsel; i++) {
        int nd, dims[NC_MAX_VAR_DIMS], j, empty = 0;
        if (nc_inq_varndims(run.in, ivars[i], &nd) || nc_inq_vardimid(run.in, ivars[i], dims))
            nd = 0;
        if (!(nd > 0 && dims[0] == unlimid))
            continue;
        for (j = 1; j < nd; j++) {
            size_t len = 0;
            nc_inq_dimlen(run.in, dims[j], &len);
            if (len == 0)
                empty = 1;
        }
        if (!empty)
            setup_varcopy(&rec[nrec++], run.in, ivars[i], run.out);
    }
    release(ivars);
    if (nrec > 0)
        CHECK(nc_inq_dimlen(run.in, unlimid, &nrecs));
    for (r = 0; r < nrecs; r++)
        for (i = 0; i < nrec; i++) {
            size_t base[NC_MAX_VAR_DIMS], ext[NC_MAX_VAR_DIMS];
            int dims[NC_MAX_VAR_DIMS], j;
            varcopy vc = rec[i];
            CHECK(nc_inq_vardimid(run.in, vc.ivar, dims));
            base[0] = r;
            ext[0] = 1;
            for (j = 1; j < vc.rank; j++) {
                base[j] = 0;
                CHECK(nc_inq_dimlen(run.in, dims[j], &ext[j]));
            }
            copy_box(&vc, base, ext);
        }
    release(rec);
}

/* A netCDF-3 file with a record variable. */
static int
nc3_with_records(int ncid, int kind)
{
    int unlimid, nvars, v;
    if (kind != NC_FORMAT_CLASSIC && kind != NC_FORMAT_64BIT_OFFSET && kind != NC_FORMAT_CDF5)
        return 0;
    CHECK(nc_inq_unlimdim(ncid, &unlimid));
    if (unlimid < 0)
        return 0;
    CHECK(nc_inq_nvars(ncid, &nvars));
    for (v = 0; v < nvars; v++) {
        int nd, dims[NC_MAX_VAR_DIMS];
        CHECK(nc_inq_varndims(ncid, v, &nd));
        if (nd > 0) {
            CHECK(nc_inq_vardimid(ncid, v, dims));
            if (dims[0] == unlimid)
                return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ main */

/* The tool proper; a fatal error longjmps out of it to nccopy_run. */
static int
copy_main(int argc, char *argv[])
{
    int c, stat, cmode, id, i;

#ifdef __GLIBC__
    optind = 0;                      /* full re-initialisation of getopt */
#else
    optind = 1;
#endif
    opterr = (errf == stderr);
    memset(&opt, 0, sizeof opt);
    opt.kind = SAME_AS_INPUT;
    opt.deflate = -1;
    opt.shuffle = NC_NOSHUFFLE;
    opt.bufsize = COPY_BUFFER_SIZE;
    opt.min_chunk = CHUNK_THRESHOLD;
    if (argc <= 1) {
        usage();
        return EXIT_FAILURE;
    }
    while ((c = getopt(argc, argv, "k:3467d:sum:c:h:e:rwxg:G:v:V:F:L:M:")) != -1) {
        switch (c) {
        case 'k': {
            size_t k;
            for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
                if (!strcmp(optarg, kinds[k].name))
                    break;
            if (k == sizeof kinds / sizeof kinds[0])
                fail("invalid output format: %s", optarg);
            opt.kind = kinds[k].kind;
            break;
        }
        case '3': opt.kind = NC_FORMAT_CLASSIC; break;
        case '6': opt.kind = NC_FORMAT_64BIT_OFFSET; break;
        case '4': opt.kind = NC_FORMAT_NETCDF4; break;
        case '7': opt.kind = NC_FORMAT_NETCDF4_CLASSIC; break;
        case 'd':
            /* strtol and a narrowing cast, as upstream (which prints the
             * truncated number) */
            opt.deflate = (int)strtol(optarg, NULL, 10);
            if (opt.deflate < 0 || opt.deflate > 9) {
                fprintf(errf, "%s: invalid deflation level: %d\n", progname, opt.deflate);
                fail_out();
            }
            break;
        case 's': opt.shuffle = NC_SHUFFLE; break;
        case 'u': opt.fix_unlim = 1; break;
        case 'm': opt.bufsize = size_arg(c, optarg); break;
        case 'h': opt.cache_size = size_arg(c, optarg); opt.set_cache = 1; break;
        case 'e': opt.cache_nelems = size_arg(c, optarg); opt.set_cache = 1; break;
        case 'c': {
            char **n = realloc(run.cspecs, sizeof(char *) * (size_t)(run.ncspecs + 1));
            if (!n)
                fail("%s", "out of memory");
            run.cspecs = n;
            if (!(run.cspecs[run.ncspecs] = strdup(optarg)))
                fail("%s", "out of memory");
            run.ncspecs++;
            break;
        }
        case 'F': {
            int nc4 = 0;
            CHECK(filteropt_parse(&run.fo, optarg, &nc4));
            if (nc4)
                opt.kind = NC_FORMAT_NETCDF4;
            break;
        }
        case 'M': opt.min_chunk = (size_t)atol(optarg); break;
        case 'x': break;                 /* upstream's experimental chunk caches */
        case 'r': opt.read_mem = 1; break;
        case 'w': opt.write_mem = 1; break;
        case 'g': make_list(optarg, &run.grps); opt.grpstruct = 1; break;
        case 'G': make_list(optarg, &run.grps); opt.grpstruct = 0; break;
        case 'v': make_list(optarg, &run.vars); opt.varstruct = 1; break;
        case 'V': make_list(optarg, &run.vars); opt.varstruct = 0; break;
        case 'L': fail("%s", "-L specified, but logging support not enabled"); break;
        default:
            usage();
            end_run(1);
            return EXIT_FAILURE;
        }
    }
    argc -= optind;
    argv += optind;
    if (argc != 2)
        fail("%s", "one input file and one output file required");
    check_not_same_file(argv[0], argv[1]);
    stat = nc_open(argv[0], opt.read_mem ? (NC_DISKLESS | NC_NOWRITE) : NC_NOWRITE, &id);
    CHECK(stat);
    run.in = id;
    CHECK(nc_inq_format(run.in, &run.inkind));
    run.innc4 = run.inkind == NC_FORMAT_NETCDF4 || run.inkind == NC_FORMAT_NETCDF4_CLASSIC;
    /* As upstream: compression, shuffling or chunking of a netCDF-3 input
     * without -k asks for netCDF-4 classic model output. */
    run.outkind = opt.kind;
    if (opt.kind == SAME_AS_INPUT) {
        run.outkind = run.inkind;
        if (!run.innc4 && (opt.deflate > 0 || opt.shuffle == NC_SHUFFLE || run.ncspecs > 0))
            run.outkind = NC_FORMAT_NETCDF4_CLASSIC;
    }
    run.outnc4 = run.outkind == NC_FORMAT_NETCDF4 || run.outkind == NC_FORMAT_NETCDF4_CLASSIC;
    for (i = 0; i < run.ncspecs; i++)
        CHECK(chunkspec_parse(&run.cs, run.in, run.cspecs[i]));
    for (i = 0; i < run.vars.n; i++)
        if (count_var(run.in, run.vars.names[i]) == 0)
            fail("%s: No such variable", run.vars.names[i]);
    if (run.grps.given) {
        if (run.inkind != NC_FORMAT_NETCDF4)
            fail("%s", "Group list (-g ...) only permitted for netCDF-4 file");
        for (i = 0; i < run.grps.n; i++)
            if (match_groups(run.in, run.grps.names[i]) == 0)
                fail("%s: No such group", run.grps.names[i]);
    }
    switch (run.outkind) {
    case NC_FORMAT_CLASSIC: cmode = 0; break;
    case NC_FORMAT_64BIT_OFFSET: cmode = NC_64BIT_OFFSET; break;
    case NC_FORMAT_CDF5: cmode = NC_64BIT_DATA; break;
    case NC_FORMAT_NETCDF4: cmode = NC_NETCDF4; break;
    case NC_FORMAT_NETCDF4_CLASSIC: cmode = NC_NETCDF4 | NC_CLASSIC_MODEL; break;
    default: fail("%s", "bad value for option specifying desired output format, see usage\n");
    }
    cmode |= NC_CLOBBER;
    if (opt.write_mem)
        cmode |= NC_DISKLESS | NC_PERSIST;
    CHECK(nc_create(argv[1], cmode, &id));
    run.out = id;
    CHECK(nc_set_fill(run.out, NC_NOFILL, NULL));
    if (run.inkind == NC_FORMAT_NETCDF4) {
        copy_groups(run.in, run.out);
        copy_types(run.in, run.out);
    }
    copy_schema(run.in, run.out);
    CHECK(nc_enddef(run.out));
    if (nc3_with_records(run.in, run.inkind))
        copy_nc3_records(run.in);
    else if (nc3_with_records(run.out, run.outkind))
        copy_nc3_records(run.out);
    else
        copy_data(run.in, run.out);
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
