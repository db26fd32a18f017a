/* tst_memio.c: in-memory classic files: nc_create_mem + nc_close_memio,
 * nc_open_mem, nc_open_memio (locked and unlocked), NC_DISKLESS with and
 * without NC_PERSIST. The memory image of a file must equal the bytes the
 * same calls write to disk. */
#include "nctst.h"
#include <netcdf_mem.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned char *
slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!fp) return NULL;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) { free(buf); buf = NULL; }
        else *len = (size_t)n;
    }
    fclose(fp);
    return buf;
}

/* The same definitions and data, whatever the storage. */
static int
populate(int ncid)
{
    int stat, d[3], v, r;
    double vals[5] = {1, 2, 3, 4, 5};
    short rec[2][3] = {{1, 2, 3}, {4, 5, 6}};
    if ((stat = nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]))) return stat;
    if ((stat = nc_def_dim(ncid, "x", 5, &d[1]))) return stat;
    if ((stat = nc_def_var(ncid, "v", NC_DOUBLE, 1, &d[1], &v))) return stat;
    if ((stat = nc_def_dim(ncid, "y", 3, &d[2]))) return stat;
    int rd[2] = {d[0], d[2]};
    if ((stat = nc_def_var(ncid, "r", NC_SHORT, 2, rd, &r))) return stat;
    if ((stat = nc_put_att_text(ncid, NC_GLOBAL, "title", 6, "memory"))) return stat;
    if ((stat = nc_enddef(ncid))) return stat;
    if ((stat = nc_put_var_double(ncid, v, vals))) return stat;
    return nc_put_vara_short(ncid, r, (size_t[]){1, 0}, (size_t[]){2, 3}, &rec[0][0]);
}

static void
check_content(int ncid, const char *what)
{
    double vals[5] = {0};
    short rec[9] = {0};
    size_t len = 0;
    char title[8] = {0};
    OK(nc_get_var_double(ncid, 0, vals));
    CHECK(vals[0] == 1 && vals[4] == 5, "%s: fixed values", what);
    OK(nc_inq_dimlen(ncid, 0, &len));
    CHECK(len == 3, "%s: numrecs %zu", what, len);
    OK(nc_get_var_short(ncid, 1, rec));
    CHECK(rec[0] == NC_FILL_SHORT && rec[3] == 1 && rec[8] == 6, "%s: record values", what);
    OK(nc_get_att_text(ncid, NC_GLOBAL, "title", title));
    CHECK(strcmp(title, "memory") == 0, "%s: title", what);
}

static void
test_format(const nct_format *f)
{
    char path[64], what[96];
    int ncid;
    size_t dlen = 0;
    snprintf(path, sizeof path, "tst_memio_%s.nc", f->name);

    /* reference bytes from a disk file */
    MUST(nc_create(path, f->cmode, &ncid));
    OK(populate(ncid));
    OK(nc_close(ncid));
    unsigned char *disk = slurp(path, &dlen);
    CHECK(disk != NULL, "%s: read disk file", f->name);
    if (!disk) return;

    /* nc_create_mem + nc_close_memio */
    NC_memio info;
    memset(&info, 0, sizeof info);
    MUST(nc_create_mem("mem_create", f->cmode & ~NC_CLOBBER, 1024, &ncid));
    OK(populate(ncid));
    OK(nc_close_memio(ncid, &info));
    /* upstream hands back its whole buffer (here the initial 1024 bytes),
     * so the image may be longer than the file */
    CHECK(info.memory != NULL && info.size >= dlen, "%s: memio size %zu, disk %zu", f->name, info.size, dlen);
    if (info.memory && info.size >= dlen)
        CHECK(memcmp(info.memory, disk, dlen) == 0, "%s: memory image differs from the disk file", f->name);

    /* nc_open_mem: read-only view of the caller's buffer */
    if (info.memory) {
        MUST(nc_open_mem("mem_open", NC_NOWRITE, info.size, info.memory, &ncid));
        snprintf(what, sizeof what, "%s nc_open_mem", f->name);
        check_content(ncid, what);
        int fmt;
        OK(nc_inq_format(ncid, &fmt));
        CHECK(fmt == f->fmt, "%s: format of memory file %d", f->name, fmt);
        EXPECT(nc_put_var1_double(ncid, 0, (size_t[]){0}, (double[]){9}), NC_EPERM);
        OK(nc_close(ncid));
        free(info.memory);
    }

    /* nc_open_memio, unlocked and writable: the library may grow the
     * buffer and hands the final image back */
    {
        NC_memio io = {dlen, malloc(dlen), 0};
        memcpy(io.memory, disk, dlen);
        MUST(nc_open_memio("mem_rw", NC_WRITE, &io, &ncid));
        OK(nc_put_vara_short(ncid, 1, (size_t[]){3, 0}, (size_t[]){1, 3}, (short[]){7, 8, 9}));
        NC_memio out;
        memset(&out, 0, sizeof out);
        OK(nc_close_memio(ncid, &out));
        CHECK(out.memory != NULL && out.size > dlen, "%s: grown memio size %zu", f->name, out.size);
        if (out.memory) {
            MUST(nc_open_mem("mem_rw2", NC_NOWRITE, out.size, out.memory, &ncid));
            short s[3] = {0};
            OK(nc_get_vara_short(ncid, 1, (size_t[]){3, 0}, (size_t[]){1, 3}, s));
            CHECK(s[0] == 7 && s[2] == 9, "%s: appended record in memory", f->name);
            OK(nc_close(ncid));
            free(out.memory);
        }
    }

    /* nc_open_memio locked: changes happen in the caller's buffer */
    {
        unsigned char *copy = malloc(dlen);
        memcpy(copy, disk, dlen);
        NC_memio io = {dlen, copy, NC_MEMIO_LOCKED};
        MUST(nc_open_memio("mem_locked", NC_WRITE, &io, &ncid));
        OK(nc_put_var1_double(ncid, 0, (size_t[]){0}, (double[]){-1}));
        NC_memio out;
        memset(&out, 0, sizeof out);
        OK(nc_close_memio(ncid, &out));
        CHECK(out.memory == copy, "%s: locked memio returned another buffer", f->name);
        MUST(nc_open_mem("mem_locked2", NC_NOWRITE, dlen, copy, &ncid));
        double d0 = 0;
        OK(nc_get_var1_double(ncid, 0, (size_t[]){0}, &d0));
        CHECK(d0 == -1, "%s: locked buffer updated: %g", f->name, d0);
        OK(nc_close(ncid));
        free(copy);
    }

    /* NC_DISKLESS without NC_PERSIST leaves no file; with it, the file
     * written at close equals the disk reference */
    char dpath[64];
    snprintf(dpath, sizeof dpath, "tst_memio_diskless_%s.nc", f->name);
    remove(dpath);
    MUST(nc_create(dpath, f->cmode | NC_DISKLESS, &ncid));
    OK(populate(ncid));
    snprintf(what, sizeof what, "%s diskless", f->name);
    check_content(ncid, what);
    OK(nc_close(ncid));
    struct stat sb;
    CHECK(stat(dpath, &sb) != 0, "%s: NC_DISKLESS without NC_PERSIST wrote a file", f->name);

    MUST(nc_create(dpath, f->cmode | NC_DISKLESS | NC_PERSIST, &ncid));
    OK(populate(ncid));
    OK(nc_close(ncid));
    size_t plen = 0;
    unsigned char *pers = slurp(dpath, &plen);
    CHECK(pers && plen == dlen && memcmp(pers, disk, dlen) == 0, "%s: persisted diskless file differs (%zu vs %zu)",
          f->name, plen, dlen);
    free(pers);

    /* open diskless: modifications stay in memory unless NC_PERSIST */
    MUST(nc_open(path, NC_WRITE | NC_DISKLESS, &ncid));
    OK(nc_put_var1_double(ncid, 0, (size_t[]){1}, (double[]){42}));
    OK(nc_close(ncid));
    size_t alen = 0;
    unsigned char *after = slurp(path, &alen);
    CHECK(after && alen == dlen && memcmp(after, disk, dlen) == 0, "%s: diskless open changed the file", f->name);
    free(after);
    MUST(nc_open(path, NC_WRITE | NC_DISKLESS | NC_PERSIST, &ncid));
    OK(nc_put_var1_double(ncid, 0, (size_t[]){1}, (double[]){42}));
    OK(nc_close(ncid));
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    double d1 = 0;
    OK(nc_get_var1_double(ncid, 0, (size_t[]){1}, &d1));
    CHECK(d1 == 42, "%s: NC_PERSIST did not save: %g", f->name, d1);
    OK(nc_close(ncid));

    free(disk);
    remove(path);
    remove(dpath);
}

static void
test_bad_memory(void)
{
    unsigned char junk[64];
    int ncid;
    memset(junk, 'x', sizeof junk);
    EXPECT(nc_open_mem("junk", NC_NOWRITE, sizeof junk, junk, &ncid), NC_ENOTNC);
    EXPECT(nc_open_mem("null", NC_NOWRITE, 0, NULL, &ncid), NC_EINVAL);
    memcpy(junk, "CDF\001", 4);
    int stat = nc_open_mem("short", NC_NOWRITE, 6, junk, &ncid);
    CHECK(stat != NC_NOERR, "truncated header in memory accepted");
    if (stat == NC_NOERR) nc_close(ncid);
}

int
main(void)
{
    /* classic formats only: netCDF-4 memory files are tst_mem4's (HDF5
     * images are not byte-identical to disk files, locking differs) */
    for (int i = 0; i < 3; i++) test_format(&nct_formats[i]);
    test_bad_memory();
    return nct_summary("tst_memio");
}
