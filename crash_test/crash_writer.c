/* crash_writer.c: the writer and the checker of the crash harness.
 *
 *   crash_writer write FORMAT PATH LOG   writes, syncs, and after each
 *                                        sync appends what it synced to LOG
 *   crash_writer check FORMAT PATH LOG   opens PATH and checks everything
 *                                        LOG says was synced
 *
 * FORMAT is classic, cdf5, nc4, zarr (NCZarr directory store), zarrnf (the
 * same without fill: partial chunk writes go into the chunk files in
 * place), zip or s3 (NCZarr on an S3 server; PATH its URL).  In netCDF-4 and Zarr a chunk holds 4 records.  The
 * writer appends records of 64 KiB, each followed by nc_sync; every third
 * record a redef adds a global attribute (the classic header grows, so
 * nc_enddef moves all data), every sixth also a fixed variable (the
 * records move again) or a record variable (every record is spread).
 * The checker also reads every variable whole: a read that fails (metadata
 * naming a chunk that is not there or is cut short) is damage too.
 * The checker exits 0 when every synced value is there, 1 when something
 * synced is lost or altered or the file does not open (4 when so after a
 * kill inside nc_sync, nc_redef or nc_enddef), 2 on usage errors.
 * Built against our library and, separately, against the reference. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <netcdf.h>

#define NX 16384
#define NSTEP 24
#define ATTLEN 300

static int logfd = -1;
static char last_kind;  /* the last entry of the log: 'B' while in a sync or redef */

static void
logline(const char *fmt, int v)
{
    char b[64];
    int n = snprintf(b, sizeof b, fmt, v);
    /* a raw system call: the shim counts only the library's writes */
    (void)syscall(SYS_write, logfd, b, (size_t)n);
}

static int
val(int rec, int i)
{
    return rec * 1000003 + i;
}

static void
attval(int s, char *buf)
{
    int i;
    for (i = 0; i < ATTLEN; i++)
        buf[i] = (char)('a' + (s * 7 + i) % 26);
}

#define TRY(e) do { int st_ = (e); if (st_) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #e, nc_strerror(st_)); \
    exit(3); } } while (0)

static int
cmode_of(const char *fmt)
{
    if (!strcmp(fmt, "classic")) return NC_CLOBBER;
    if (!strcmp(fmt, "cdf5")) return NC_CLOBBER | NC_64BIT_DATA;
    return NC_CLOBBER | NC_NETCDF4;
}

static int
do_write(const char *fmt, const char *path)
{
    int ncid, dt, dx, vrec, vfix, v, s, i;
    int *buf = malloc(NX * sizeof *buf);
    char att[ATTLEN], name[32];
    size_t start[2] = {0, 0}, count[2] = {1, NX};
    if (buf == NULL)
        return 3;
    TRY(nc_create(path, cmode_of(fmt), &ncid));
    if (!strcmp(fmt, "zarrnf"))   /* before the variables it applies to */
        TRY(nc_set_fill(ncid, NC_NOFILL, NULL));
    TRY(nc_def_dim(ncid, "time", NC_UNLIMITED, &dt));
    TRY(nc_def_dim(ncid, "x", NX, &dx));
    {
        int d2[2] = {dt, dx};
        size_t ch[2] = {4, NX};
        TRY(nc_def_var(ncid, "rec", NC_INT, 2, d2, &vrec));
        if (cmode_of(fmt) & NC_NETCDF4)
            TRY(nc_def_var_chunking(ncid, vrec, NC_CHUNKED, ch));
    }
    if (!strcmp(fmt, "zarrnf"))
        TRY(nc_set_var_chunk_cache(ncid, vrec, 0, 0, 0.0f));
    TRY(nc_def_var(ncid, "fix", NC_INT, 1, &dx, &vfix));
    TRY(nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "crash"));
    TRY(nc_enddef(ncid));
    for (i = 0; i < NX; i++)
        buf[i] = val(-1, i);
    TRY(nc_put_var_int(ncid, vfix, buf));
    TRY(nc_sync(ncid));
    logline("F %d\n", 0);
    for (s = 0; s < NSTEP; s++) {
        for (i = 0; i < NX; i++)
            buf[i] = val(s, i);
        start[0] = (size_t)s;
        TRY(nc_put_vara_int(ncid, vrec, start, count, buf));
        logline("B %d\n", s);
        TRY(nc_sync(ncid));
        logline("R %d\n", s);
        if (s % 3 != 2)
            continue;
        logline("B %d\n", s);
        TRY(nc_redef(ncid));
        snprintf(name, sizeof name, "a%d", s);
        attval(s, att);
        TRY(nc_put_att_text(ncid, NC_GLOBAL, name, ATTLEN, att));
        if (s % 6 == 5) {
            snprintf(name, sizeof name, "e%d", s);
            TRY(nc_def_var(ncid, name, NC_INT, 1, &dx, &v));
        } else if (s % 12 == 2 && s > 2) {
            snprintf(name, sizeof name, "r%d", s);
            TRY(nc_def_var(ncid, name, NC_SHORT, 1, &dt, &v));
        }
        TRY(nc_enddef(ncid));
        logline("E %d\n", s);
        if (s % 6 == 5) {
            for (i = 0; i < NX; i++)
                buf[i] = val(1000 + s, i);
            TRY(nc_put_var_int(ncid, v, buf));
        }
        logline("B %d\n", s);
        TRY(nc_sync(ncid));
        logline("D %d\n", s);
    }
    TRY(nc_close(ncid));
    logline("C %d\n", 0);
    free(buf);
    return 0;
}

static int
bad(const char *what, int s, int st)
{
    printf("DAMAGE: %s %d (%s)\n", what, s, st ? nc_strerror(st) : "wrong values");
    return 1;
}

static int
check_ints(int ncid, const char *name, int rec, int at, int isrec)
{
    int v, i, st;
    int *buf = malloc(NX * sizeof *buf);
    size_t start[2] = {(size_t)at, 0}, count[2] = {1, NX};
    if (buf == NULL)
        return 3;
    if ((st = nc_inq_varid(ncid, name, &v))) {
        free(buf);
        return bad(name, at, st);
    }
    st = isrec ? nc_get_vara_int(ncid, v, start, count, buf) : nc_get_var_int(ncid, v, buf);
    if (st) {
        free(buf);
        return bad(name, at, st);
    }
    for (i = 0; i < NX; i++)
        if (buf[i] != val(rec, i)) {
            free(buf);
            return bad(name, at, 0);
        }
    free(buf);
    return 0;
}

/* Every variable read whole, as its own type. */
static int
read_all_vars(int ncid)
{
    int nvars, v, st, ndims, dimids[NC_MAX_VAR_DIMS], d;
    size_t n, len, tsize;
    nc_type xtype;
    void *buf;
    if ((st = nc_inq_nvars(ncid, &nvars)))
        return bad("nvars", 0, st);
    for (v = 0; v < nvars; v++) {
        if ((st = nc_inq_var(ncid, v, NULL, &xtype, &ndims, dimids, NULL)) ||
            (st = nc_inq_type(ncid, xtype, NULL, &tsize)))
            return bad("inq_var", v, st);
        for (n = 1, d = 0; d < ndims; d++) {
            if ((st = nc_inq_dimlen(ncid, dimids[d], &len)))
                return bad("dimlen", v, st);
            n *= len;
        }
        if ((buf = malloc(n ? n * tsize : 1)) == NULL)
            return 3;
        st = nc_get_var(ncid, v, buf);
        free(buf);
        if (st)
            return bad("whole variable", v, st);
    }
    return 0;
}

static int
do_check(const char *path, const char *logpath)
{
    FILE *f = fopen(logpath, "r");
    char kind, name[32], att[ATTLEN], got[ATTLEN];
    int n, s, nrec = 0, created = 0, ncid, st, rc = 0, dt;
    int defs[NSTEP] = {0};
    size_t len;
    if (f != NULL) {
        while (fscanf(f, " %c %d", &kind, &n) == 2) {
            last_kind = kind;
            if (kind == 'F')
                created = 1;
            else if (kind == 'R' && n >= 0 && n < NSTEP)
                nrec = n + 1;
            else if (kind == 'D' && n >= 0 && n < NSTEP)
                defs[n] = 1;
        }
        fclose(f);
    }
    if (!created)
        return 0;   /* nothing was synced: any state is fine */
    if ((st = nc_open(path, NC_NOWRITE, &ncid)))
        return bad("open", 0, st);
    if ((st = nc_inq_dimid(ncid, "time", &dt)) || (st = nc_inq_dimlen(ncid, dt, &len)))
        rc = bad("time", 0, st);
    else if ((int)len < nrec)
        rc = bad("numrecs below synced count", (int)len, 0);
    if (rc == 0)
        rc = check_ints(ncid, "fix", -1, 0, 0);
    for (s = 0; s < nrec && rc == 0; s++)
        rc = check_ints(ncid, "rec", s, s, 1);
    for (s = 0; s < NSTEP && rc == 0; s++) {
        if (!defs[s])
            continue;
        snprintf(name, sizeof name, "a%d", s);
        attval(s, att);
        if ((st = nc_get_att_text(ncid, NC_GLOBAL, name, got)) || memcmp(got, att, ATTLEN))
            rc = bad(name, s, st);
        if (rc == 0 && s % 6 == 5) {
            snprintf(name, sizeof name, "e%d", s);
            rc = check_ints(ncid, name, 1000 + s, 0, 0);
        }
    }
    if (rc == 0)
        rc = read_all_vars(ncid);
    if ((st = nc_close(ncid)) && rc == 0)
        rc = bad("close", 0, st);
    return rc;
}

int
main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    if (!strcmp(argv[1], "write")) {
        logfd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
        if (logfd < 0)
            return 2;
        return do_write(argv[2], argv[3]);
    }
    if (!strcmp(argv[1], "check")) {
        int rc = do_check(argv[3], argv[4]);
        /* 4: the damage came from a kill inside nc_sync, nc_redef or
         * nc_enddef (told apart for formats that are not crash-safe) */
        return rc == 1 && last_kind == 'B' ? 4 : rc;
    }
    return 2;
}
