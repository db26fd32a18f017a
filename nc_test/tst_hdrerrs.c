/* tst_hdrerrs.c: nc_open's error code on specific corrupt classic headers
 * with the codes the reference (upstream 4.9.0) gives,
 * so they stay fixed without the reference installed.  The seed is the
 * CDF-1 file tst_hdrcodes also uses (same definitions, nc__enddef with
 * 4-byte alignment), whose layout the format fixes; each case patches one
 * word (checking the word it replaces) or truncates the file. */
#include "nctst.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static unsigned char seed[4096];
static size_t seedlen;

static void
make_seed(void)
{
    int ncid, d[3], v[4], rd[2];
    short s[6] = {1, 2, 3, 4, 5, 6};
    double dd[2] = {1.5, -2.5};
    size_t st[2] = {0, 0}, ct[2] = {2, 3}, fc[2] = {3, 2};
    FILE *f;
    MUST(nc_create("tst_hdrerrs_seed.nc", NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
    MUST(nc_def_dim(ncid, "x", 3, &d[1]));
    MUST(nc_def_dim(ncid, "y", 2, &d[2]));
    MUST(nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "hello"));
    MUST(nc_put_att_double(ncid, NC_GLOBAL, "d", NC_DOUBLE, 2, dd));
    MUST(nc_def_var(ncid, "fix", NC_SHORT, 2, &d[1], &v[0]));
    MUST(nc_put_att_text(ncid, v[0], "units", 1, "m"));
    MUST(nc_def_var(ncid, "sc", NC_DOUBLE, 0, NULL, &v[1]));
    MUST(nc_def_var(ncid, "rec", NC_SHORT, 2, d, &v[2]));
    MUST(nc_put_att_short(ncid, v[2], "_FillValue", NC_SHORT, 1, s));
    rd[0] = d[0]; rd[1] = d[2];
    MUST(nc_def_var(ncid, "rec2", NC_FLOAT, 2, rd, &v[3]));
    MUST(nc__enddef(ncid, 0, 4, 0, 4));
    MUST(nc_put_vara_short(ncid, v[0], st, fc, s));
    MUST(nc_put_var_double(ncid, v[1], dd));
    MUST(nc_put_vara_short(ncid, v[2], st, ct, s));
    MUST(nc_close(ncid));
    f = fopen("tst_hdrerrs_seed.nc", "rb");
    seedlen = f ? fread(seed, 1, sizeof seed, f) : 0;
    if (f) fclose(f);
    CHECK(seedlen == 384, "seed is %zu bytes, want 384", seedlen);
}

/* Patch the word at off (which must hold was) to val, or truncate to
 * off bytes when trunc; open and compare the code. */
static void
one(const char *what, size_t off, unsigned long was, unsigned long val, int trunc, int want)
{
    unsigned char b[4096];
    size_t n = seedlen;
    int ncid, stat;
    FILE *f;
    memcpy(b, seed, seedlen);
    if (trunc) {
        n = off;
    } else {
        unsigned long o = ((unsigned long)b[off] << 24) | ((unsigned long)b[off + 1] << 16)
                        | ((unsigned long)b[off + 2] << 8) | b[off + 3];
        CHECK(o == was, "%s: word at %zu is %lu, expected %lu (layout changed?)", what, off, o, was);
        b[off] = (unsigned char)(val >> 24); b[off + 1] = (unsigned char)(val >> 16);
        b[off + 2] = (unsigned char)(val >> 8); b[off + 3] = (unsigned char)val;
    }
    if ((f = fopen("tst_hdrerrs.nc", "wb")) == NULL || fwrite(b, 1, n, f) != n || fclose(f)) {
        CHECK(0, "cannot write tst_hdrerrs.nc");
        return;
    }
    stat = nc_open("tst_hdrerrs.nc", NC_NOWRITE, &ncid);
    if (stat == NC_NOERR)
        nc_close(ncid);
    CHECK(stat == want, "%s: nc_open gives %d (%s), upstream %d (%s)", what, stat,
          nc_strerror(stat), want, nc_strerror(want));
}

int
main(void)
{
    make_seed();
    if (seedlen != 384)
        return nct_summary("tst_hdrerrs");
    one("intact", 0, 0x43444601UL, 0x43444601UL, 0, NC_NOERR);
    one("dimension list tag wrong", 8, 0x0A, 0, 0, EINVAL);
    one("variable list tag wrong", 120, 0x0B, 0, 0, EINVAL);
    one("attribute type 0", 72, NC_CHAR, 0, 0, NC_EINVAL);
    one("attribute type 2^31", 96, NC_DOUBLE, 0x80000000UL, 0, NC_EINVAL);
    one("dimension id out of range", 140, 1, 12, 0, NC_EBADDIM);
    one("second unlimited dimension used not first", 36, 3, 0, 0, NC_EUNLIMPOS);
    one("record dimension made huge", 24, 0, 0xffffffffUL, 0, NC_EVARSIZE);
    one("CDF-1 begin >= 2^31 (negative)", 328, 0x168, 0x80000000UL, 0, NC_ENOTNC);
    one("name of NUL bytes", 20, 0x74696d65UL, 0, 0, NC_NOERR);
    one("truncated inside an attribute value", 100, 0, 0, 1, NC_NOERR);
    one("truncated before an attribute type", 64, 0, 0, 1, NC_EINVAL);
    one("bad magic", 0, 0x43444601UL, 0x43444603UL, 0, NC_ENOTNC);
    one("7-byte file", 7, 0, 0, 1, NC_ENOTNC);
    return nct_summary("tst_hdrerrs");
}
