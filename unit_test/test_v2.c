/* test_v2.c: the netCDF-2 API (dv2i.c).
 *
 * Error reporting (ncerr, ncopts, nc_advise's message and exit status) is
 * tested without any file.  The data calls need the classic format: those
 * parts exit 77 (skip) only while nc_create() answers NC_ENOTBUILT.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "netcdf.h"

static int npass, nfail;

#define CHECK(cond) do { if (cond) npass++; else { nfail++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* Run ncclose(badid) in a child with the given ncopts; capture stderr and
 * the exit status. */
static void
child_close(int opts, int badid, char *msg, size_t msglen, int *exited, int *status)
{
    int fds[2];
    pid_t pid;
    ssize_t n, total = 0;
    int ws = 0;

    memset(msg, 0, msglen);
    *exited = 0;
    *status = -1;
    if (pipe(fds) != 0)
        return;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        return;
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        ncopts = opts;
        ncclose(badid);
        _exit(100); /* reached only when ncopts lacks NC_FATAL */
    }
    close(fds[1]);
    while (total < (ssize_t)msglen - 1 && (n = read(fds[0], msg + total, msglen - 1 - (size_t)total)) > 0)
        total += n;
    close(fds[0]);
    waitpid(pid, &ws, 0);
    if (WIFEXITED(ws)) {
        *exited = 1;
        *status = WEXITSTATUS(ws);
    }
}

static void
test_errors(void)
{
    char msg[512], want[512];
    int exited, status;
    int badid = 0x7ff00000;

    CHECK(ncopts == (NC_FATAL | NC_VERBOSE));
    CHECK(ncerr == NC_NOERR);

    /* Default options: message on stderr, exit status = ncopts. */
    child_close(NC_FATAL | NC_VERBOSE, badid, msg, sizeof(msg), &exited, &status);
    snprintf(want, sizeof(want), "ncclose: ncid %d: %s\n", badid, nc_strerror(NC_EBADID));
    CHECK(exited && status == (NC_FATAL | NC_VERBOSE));
    CHECK(strcmp(msg, want) == 0);

    /* Fatal only: silent, exit status 1. */
    child_close(NC_FATAL, badid, msg, sizeof(msg), &exited, &status);
    CHECK(exited && status == NC_FATAL && msg[0] == '\0');

    /* Verbose only: message, no exit. */
    child_close(NC_VERBOSE, badid, msg, sizeof(msg), &exited, &status);
    CHECK(exited && status == 100 && strcmp(msg, want) == 0);

    /* Quiet: ncerr records the status, system errors as NC_SYSERR. */
    ncopts = 0;
    CHECK(ncclose(badid) == -1 && ncerr == NC_EBADID);
    nc_advise("test", ENOENT, "x");
    CHECK(ncerr == NC_SYSERR);
    nc_advise("test", NC_NOERR, "x");
    CHECK(ncerr == NC_NOERR);
    CHECK(ncopen("/nonexistent/dir/x.nc", NC_NOWRITE) == -1 && ncerr == NC_SYSERR);

    CHECK(nctypelen(NC_BYTE) == 1 && nctypelen(NC_CHAR) == 1 && nctypelen(NC_SHORT) == 2
          && nctypelen(NC_INT) == 4 && nctypelen(NC_FLOAT) == 4 && nctypelen(NC_DOUBLE) == 8);
    CHECK(nctypelen(NC_UBYTE) == 1 && nctypelen(NC_USHORT) == 2 && nctypelen(NC_UINT) == 4
          && nctypelen(NC_INT64) == 8 && nctypelen(NC_UINT64) == 8
          && nctypelen(NC_STRING) == (int)sizeof(char *));
    CHECK(nctypelen(NC_NAT) == -1 && nctypelen(NC_VLEN) == -1 && nctypelen(99) == -1);
}

/* The classic-format part; returns 77 to skip. */
static int
test_files(void)
{
    char path[64];
    int ncid, d_rec, d_x, d_y, v_short, v_dbl, v_char, dims[3], i, j;
    int nd, nv, na, ud, nrv, rvids[4];
    long recsz[4], len;
    char name[NC_MAX_NAME + 1];
    nc_type t;
    int tl;

    snprintf(path, sizeof(path), "test_v2_%ld.nc", (long)getpid());
    ncopts = 0;
    ncid = nccreate(path, NC_CLOBBER);
    if (ncid == -1 && ncerr == NC_ENOTBUILT)
        return 77;
    CHECK(ncid >= 0);
    if (ncid < 0)
        return 1;

    CHECK(ncdimdef(ncid, "bad", -1) == -1 && ncerr == NC_EDIMSIZE);
    CHECK((d_rec = ncdimdef(ncid, "rec", NC_UNLIMITED)) >= 0);
    CHECK((d_x = ncdimdef(ncid, "x", 3)) >= 0);
    CHECK((d_y = ncdimdef(ncid, "y", 4)) >= 0);
    dims[0] = d_rec; dims[1] = d_x; dims[2] = d_y;
    CHECK((v_short = ncvardef(ncid, "s", NC_SHORT, 3, dims)) >= 0);
    CHECK((v_dbl = ncvardef(ncid, "d", NC_DOUBLE, 1, dims)) >= 0);
    dims[0] = d_x; dims[1] = d_y;
    CHECK((v_char = ncvardef(ncid, "grid", NC_INT, 2, dims)) >= 0);
    CHECK(ncattput(ncid, NC_GLOBAL, "title", NC_CHAR, 5, "hello") == 0);
    CHECK(ncattput(ncid, v_short, "range", NC_INT, 2, (int[]){-5, 5}) == 0);
    CHECK(ncsetfill(ncid, NC_NOFILL) == NC_FILL);
    CHECK(ncendef(ncid) == 0);

    CHECK(ncinquire(ncid, &nd, &nv, &na, &ud) == ncid && nd == 3 && nv == 3 && na == 1 && ud == d_rec);
    CHECK(ncdiminq(ncid, d_y, name, &len) == d_y && strcmp(name, "y") == 0 && len == 4);
    CHECK(ncdimid(ncid, "x") == d_x);
    CHECK(ncvarid(ncid, "d") == v_dbl);
    CHECK(ncvarid(ncid, "nope") == -1 && ncerr == NC_ENOTVAR);
    CHECK(ncvarinq(ncid, v_short, name, &t, &nd, dims, &na) == v_short && strcmp(name, "s") == 0
          && t == NC_SHORT && nd == 3 && dims[0] == d_rec && na == 1);
    CHECK(ncattinq(ncid, v_short, "range", &t, &tl) == 1 && t == NC_INT && tl == 2);
    {
        int r[2] = {0, 0};
        char txt[6] = {0};
        CHECK(ncattget(ncid, v_short, "range", r) == 1 && r[0] == -5 && r[1] == 5);
        CHECK(ncattget(ncid, NC_GLOBAL, "title", txt) == 1 && strcmp(txt, "hello") == 0);
        CHECK(ncattname(ncid, NC_GLOBAL, 0, name) == 0 && strcmp(name, "title") == 0);
    }
    CHECK(ncattinq(ncid, v_short, "nope", &t, &tl) == -1 && ncerr == NC_ENOTATT);

    /* whole-grid put/get */
    {
        int g[12], back[12];
        long st[2] = {0, 0}, ct[2] = {3, 4};
        for (i = 0; i < 12; i++)
            g[i] = 10 * i + 1;
        CHECK(ncvarput(ncid, v_char, st, ct, g) == 0);
        memset(back, 0, sizeof(back));
        CHECK(ncvarget(ncid, v_char, st, ct, back) == 0 && memcmp(g, back, sizeof(g)) == 0);
        /* one value */
        {
            long ix[2] = {2, 1};
            int one = 0, val = -77;
            CHECK(ncvarget1(ncid, v_char, ix, &one) == 0 && one == g[2 * 4 + 1]);
            CHECK(ncvarput1(ncid, v_char, ix, &val) == 0);
            CHECK(ncvarget1(ncid, v_char, ix, &one) == 0 && one == -77);
            ix[0] = -1;
            CHECK(ncvarget1(ncid, v_char, ix, &one) == -1 && ncerr == NC_EINVALCOORDS);
        }
        /* strided: every other column */
        {
            long sst[2] = {0, 0}, sct[2] = {3, 2}, str[2] = {1, 2};
            int sub[6];
            CHECK(ncvargets(ncid, v_char, sst, sct, str, sub) == 0);
            CHECK(sub[0] == g[0] && sub[1] == g[2] && sub[2] == g[4] && sub[5] == g[10]);
        }
        /* mapped with a byte imap: read the transpose */
        {
            long mst[2] = {0, 0}, mct[2] = {3, 4};
            long imap[2] = {(long)sizeof(int), (long)(3 * sizeof(int))};
            int tr[12];
            CHECK(ncvargetg(ncid, v_char, mst, mct, NULL, imap, tr) == 0);
            for (i = 0; i < 3; i++)
                for (j = 0; j < 4; j++)
                    if (!(i == 2 && j == 1))
                        CHECK(tr[j * 3 + i] == g[i * 4 + j]);
            /* write the transpose back through putg and check the layout */
            for (i = 0; i < 12; i++)
                tr[i] = 1000 + i;
            CHECK(ncvarputg(ncid, v_char, mst, mct, NULL, imap, tr) == 0);
            CHECK(ncvarget(ncid, v_char, mst, mct, back) == 0);
            for (i = 0; i < 3; i++)
                for (j = 0; j < 4; j++)
                    CHECK(back[i * 4 + j] == 1000 + j * 3 + i);
        }
    }

    /* records */
    CHECK((nrv = ncrecinq(ncid, &nrv, rvids, recsz)) == 2);
    CHECK(rvids[0] == v_short && rvids[1] == v_dbl);
    CHECK(recsz[0] == (long)(3 * 4 * sizeof(short)) && recsz[1] == (long)sizeof(double));
    {
        short srec[12], sback[12];
        double drec = 2.5, dback = 0;
        void *out[2], *in[2];
        for (i = 0; i < 12; i++)
            srec[i] = (short)(i - 6);
        out[0] = srec;
        out[1] = &drec;
        CHECK(ncrecput(ncid, 1, out) == 0);
        in[0] = sback;
        in[1] = &dback;
        CHECK(ncrecget(ncid, 1, in) == 0 && memcmp(srec, sback, sizeof(srec)) == 0 && dback == 2.5);
        in[0] = NULL; /* skipped variable */
        dback = 0;
        CHECK(ncrecget(ncid, 1, in) == 0 && dback == 2.5);
        CHECK(ncrecget(ncid, -1, in) == -1);
        CHECK(ncdiminq(ncid, d_rec, NULL, &len) == d_rec && len == 2);
    }

    /* renames, copies, deletes */
    CHECK(ncredef(ncid) == 0);
    CHECK(ncdimrename(ncid, d_x, "xx") == d_x && ncdimid(ncid, "xx") == d_x);
    CHECK(ncvarrename(ncid, v_dbl, "dd") == v_dbl && ncvarid(ncid, "dd") == v_dbl);
    CHECK(ncattrename(ncid, NC_GLOBAL, "title", "name") == 1);
    CHECK(ncattcopy(ncid, NC_GLOBAL, "name", ncid, v_dbl) == 0);
    CHECK(ncattinq(ncid, v_dbl, "name", &t, &tl) == 1 && t == NC_CHAR && tl == 5);
    CHECK(ncattdel(ncid, NC_GLOBAL, "name") == 1);
    CHECK(ncattinq(ncid, NC_GLOBAL, "name", &t, &tl) == -1);
    CHECK(ncendef(ncid) == 0);
    CHECK(ncsync(ncid) == 0);
    CHECK(ncclose(ncid) == 0);
    CHECK(ncclose(ncid) == -1 && ncerr == NC_EBADID);

    /* reopen read-only and check what was written survived */
    CHECK((ncid = ncopen(path, NC_NOWRITE)) >= 0);
    if (ncid >= 0) {
        double dback = 0;
        long ix[1] = {1};
        CHECK(ncvarget1(ncid, ncvarid(ncid, "dd"), ix, &dback) == 0 && dback == 2.5);
        CHECK(ncattput(ncid, NC_GLOBAL, "z", NC_INT, 1, (int[]){1}) == -1);
        CHECK(ncabort(ncid) == 0);
    }
    remove(path);
    return 0;
}

int
main(void)
{
    int rc;
    test_errors();
    rc = test_files();
    printf("test_v2: %d passed, %d failed%s\n", npass, nfail, rc == 77 ? " (file tests skipped: classic format not built)" : "");
    if (nfail)
        return 1;
    return rc;
}
