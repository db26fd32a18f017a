/* tst_memio_locked.c: a locked NC_memio image (the caller's buffer, never
 * reallocated) that a redef outgrows.  nc_enddef must fail with
 * NC_EINMEMORY and leave the file in define mode, as upstream does; it used
 * to succeed, and the next access and nc_close_memio failed instead.  Found
 * by fuzz_ops (input fuzz/regress_lib/ops-locked-memio-einmemory-after-enddef). */
#include "nctst.h"
#include <netcdf_mem.h>

#include <stdlib.h>
#include <string.h>

#define SLACK 170   /* free bytes after the image in the caller's buffer */

/* A CDF-1 file: dims x=3, y=2; byte c; short a(x,y) = 1..6.  Returns its
 * image in a buffer SLACK bytes larger, or NULL. */
static unsigned char *
make_image(size_t *lenp)
{
    int ncid, dx, dy, dims[2], c, a;
    short v[6] = {1, 2, 3, 4, 5, 6};
    NC_memio mem;
    unsigned char *buf;
    if (nc_create_mem("tst_memio_locked", NC_CLASSIC_MODEL, 0, &ncid)) return NULL;
    if (nc_def_dim(ncid, "x", 3, &dx) || nc_def_dim(ncid, "y", 2, &dy)) return NULL;
    dims[0] = dx; dims[1] = dy;
    if (nc_def_var(ncid, "c", NC_BYTE, 0, NULL, &c)
        || nc_def_var(ncid, "a", NC_SHORT, 2, dims, &a) || nc_enddef(ncid)
        || nc_put_var_short(ncid, a, v) || nc_close_memio(ncid, &mem))
        return NULL;
    if ((buf = calloc(1, mem.size + SLACK)) != NULL)
        memcpy(buf, mem.memory, mem.size);
    *lenp = mem.size;
    free(mem.memory);
    return buf;
}

static void
run(unsigned char *buf, size_t len)
{
    NC_memio mem;
    int ncid, b, x, a, nvars;
    short got[6];
    char name[72], text[31];

    mem.memory = buf;
    mem.size = len + SLACK;
    mem.flags = NC_MEMIO_LOCKED;
    MUST(nc_open_memio("tst_memio_locked", NC_WRITE, &mem, &ncid));
    OK(nc_redef(ncid));
    OK(nc_inq_dimid(ncid, "x", &x));
    OK(nc_def_var(ncid, "b", NC_DOUBLE, 1, &x, &b));
    memset(name, 'n', 71); name[71] = '\0';
    memset(text, 't', 30); text[30] = '\0';
    OK(nc_put_att_text(ncid, NC_GLOBAL, name, 30, text));
    /* The new layout needs more than the buffer holds. */
    EXPECT(nc_enddef(ncid), NC_EINMEMORY);
    /* Still in define mode, and nothing stored was lost: dropping the new
     * definitions lets the file end cleanly with its data. */
    EXPECT(nc_get_var_short(ncid, 1, got), NC_EINDEFINE);
    OK(nc_inq_nvars(ncid, &nvars));
    CHECK(nvars == 3, "nvars %d, want 3 in define mode", nvars);
    OK(nc_abort(ncid));
    MUST(nc_open_memio("tst_memio_locked", NC_NOWRITE, &mem, &ncid));
    OK(nc_inq_nvars(ncid, &nvars));
    CHECK(nvars == 2, "after abort nvars %d, want 2", nvars);
    OK(nc_inq_varid(ncid, "a", &a));
    OK(nc_get_var_short(ncid, a, got));
    for (int i = 0; i < 6; i++)
        CHECK(got[i] == i + 1, "a[%d] = %d after the failed enddef", i, got[i]);
    OK(nc_close_memio(ncid, &mem));
    /* A growth that fits the buffer still works. */
    MUST(nc_open_memio("tst_memio_locked", NC_WRITE, &mem, &ncid));
    OK(nc_redef(ncid));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "t", 4, "abcd"));
    OK(nc_enddef(ncid));
    OK(nc_get_var_short(ncid, 1, got));
    CHECK(got[5] == 6, "a[5] = %d after a fitting redef", got[5]);
    OK(nc_close_memio(ncid, &mem));
}

int
main(void)
{
    size_t len = 0;
    unsigned char *buf = make_image(&len);
    CHECK(buf != NULL, "could not make the image");
    if (buf != NULL)
        run(buf, len);
    free(buf);
    return nct_summary("tst_memio_locked");
}
