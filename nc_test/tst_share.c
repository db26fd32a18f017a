/* tst_share.c: two handles of one classic file in one process (see
 * docs/classic-safety.md).  With NC_SHARE a writer's data and
 * record count are visible to a reader at once; without it, after the
 * writer's nc_sync and the reader's nc_sync.  Also threads each using their
 * own handle of one file (one handle shared by threads is not supported,
 * as upstream). */
#include "nctst.h"

#include <pthread.h>
#include <string.h>

#define PATH "tst_share.nc"
#define NX 64

static void
make(void)
{
    int ncid, d[2], v;
    MUST(nc_create(PATH, NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    MUST(nc_def_dim(ncid, "x", NX, &d[1]));
    MUST(nc_def_var(ncid, "v", NC_INT, 2, d, &v));
    MUST(nc_close(ncid));
}

static void
put_rec(int ncid, size_t r, int base)
{
    int buf[NX], i;
    size_t st[2] = {r, 0}, ct[2] = {1, NX};
    for (i = 0; i < NX; i++) buf[i] = base + i;
    OK(nc_put_vara_int(ncid, 0, st, ct, buf));
}

static int
rec_ok(int ncid, size_t r, int base)
{
    int buf[NX], i;
    size_t st[2] = {r, 0}, ct[2] = {1, NX};
    if (nc_get_vara_int(ncid, 0, st, ct, buf)) return 0;
    for (i = 0; i < NX; i++) if (buf[i] != base + i) return 0;
    return 1;
}

static size_t
nrecs(int ncid)
{
    size_t n = 0;
    (void)nc_inq_dimlen(ncid, 0, &n);
    return n;
}

static void
two_handles(int share)
{
    int w, r;
    size_t k;
    make();
    MUST(nc_open(PATH, NC_WRITE | share, &w));
    MUST(nc_open(PATH, NC_NOWRITE | share, &r));
    CHECK(nrecs(r) == 0, "share=%d: reader starts with %zu records", share, nrecs(r));
    for (k = 0; k < 5; k++)
        put_rec(w, k, 100 * (int)k);
    if (!share) {
        OK(nc_sync(w));
        OK(nc_sync(r));
    }
    CHECK(nrecs(r) == 5, "share=%d: reader sees %zu records, want 5", share, nrecs(r));
    for (k = 0; k < 5; k++)
        CHECK(rec_ok(r, k, 100 * (int)k), "share=%d: reader record %zu wrong", share, k);
    put_rec(w, 2, 7000);               /* overwrite */
    if (!share) {
        OK(nc_sync(w));
        OK(nc_sync(r));
    }
    CHECK(rec_ok(r, 2, 7000), "share=%d: reader does not see the overwrite", share);
    OK(nc_close(w));
    OK(nc_close(r));
}

typedef struct { int id; int ok; } job;

static void *
worker(void *arg)
{
    job *j = arg;
    int ncid, k;
    j->ok = nc_open(PATH, NC_NOWRITE, &ncid) == NC_NOERR;
    for (k = 0; j->ok && k < 200; k++)
        j->ok = rec_ok(ncid, (size_t)((k + j->id) % 5), 100 * ((k + j->id) % 5)) || ((k + j->id) % 5 == 2 && rec_ok(ncid, 2, 7000));
    if (j->ok)
        j->ok = nc_close(ncid) == NC_NOERR;
    return NULL;
}

static void
threads_own_handles(void)
{
    pthread_t t[4];
    job j[4];
    int i;
    for (i = 0; i < 4; i++) {
        j[i].id = i;
        j[i].ok = 0;
        CHECK(pthread_create(&t[i], NULL, worker, &j[i]) == 0, "pthread_create");
    }
    for (i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(j[i].ok, "thread %d read wrong data with its own handle", i);
    }
}

int
main(void)
{
    two_handles(NC_SHARE);
    two_handles(0);
    threads_own_handles();
    return nct_summary("tst_share");
}
