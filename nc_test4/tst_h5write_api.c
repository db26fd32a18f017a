/* tst_h5write_api.c: the life of a netCDF-4/HDF5 file as the write side
 * handles it -- create modes, define mode, sync, abort, close, memory and
 * diskless files, HDF5's storage limits.  Built against ours and against
 * the reference (ref_tst_h5write_api): both must pass, so the expectations
 * are upstream's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netcdf.h>
#include <netcdf_mem.h>
#include <netcdf_filter.h>
#include "nctst.h"

#define F1 "h5w_api1.nc"
#define F2 "h5w_api2.nc"

static int
exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void
t_create_modes(void)
{
    int ncid, fmt, mode;
    remove(F1);
    MUST(nc_create(F1, NC_NETCDF4, &ncid));
    OK(nc_inq_format(ncid, &fmt));
    CHECK(fmt == NC_FORMAT_NETCDF4, "format %d", fmt);
    OK(nc_inq_format_extended(ncid, &fmt, &mode));
    CHECK(fmt == NC_FORMATX_NC_HDF5, "formatx %d", fmt);
    CHECK(mode & NC_NETCDF4, "mode 0x%x", mode);
    OK(nc_close(ncid));
    EXPECT(nc_create(F1, NC_NETCDF4 | NC_NOCLOBBER, &ncid), NC_EEXIST);
    MUST(nc_create(F1, NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER, &ncid));
    OK(nc_inq_format(ncid, &fmt));
    CHECK(fmt == NC_FORMAT_NETCDF4_CLASSIC, "format %d", fmt);
    OK(nc_close(ncid));
    EXPECT(nc_create("no_such_dir/x.nc", NC_NETCDF4, &ncid), EACCES);
}

static void
t_define_mode(void)
{
    int ncid, dim, v;
    /* Enhanced model. */
    MUST(nc_create(F1, NC_NETCDF4 | NC_CLOBBER, &ncid));
    OK(nc_redef(ncid));                      /* already in define mode: fine */
    OK(nc_def_dim(ncid, "x", 2, &dim));
    OK(nc_enddef(ncid));
    EXPECT(nc_enddef(ncid), NC_ENOTINDEFINE);
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dim, &v));   /* implicit redef */
    OK(nc_sync(ncid));                       /* leaves define mode */
    EXPECT(nc_enddef(ncid), NC_ENOTINDEFINE);
    OK(nc_redef(ncid));
    OK(nc_redef(ncid));
    OK(nc_close(ncid));
    /* Classic model. */
    MUST(nc_create(F1, NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER, &ncid));
    EXPECT(nc_redef(ncid), NC_EINDEFINE);
    EXPECT(nc_sync(ncid), NC_EINDEFINE);
    OK(nc_def_dim(ncid, "x", 2, &dim));
    OK(nc_enddef(ncid));
    EXPECT(nc_def_var(ncid, "v", NC_INT, 1, &dim, &v), NC_ENOTINDEFINE);
    OK(nc_sync(ncid));
    OK(nc_redef(ncid));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dim, &v));
    OK(nc_close(ncid));
    /* Read-only. */
    MUST(nc_open(F1, NC_NOWRITE, &ncid));
    EXPECT(nc_redef(ncid), NC_EPERM);
    EXPECT(nc_enddef(ncid), NC_ENOTINDEFINE);
    OK(nc_sync(ncid));
    OK(nc_close(ncid));
}

static void
t_abort(void)
{
    int ncid, dim, ndims = -1;
    /* A file still in its first define mode disappears. */
    remove(F2);
    MUST(nc_create(F2, NC_NETCDF4, &ncid));
    OK(nc_def_dim(ncid, "x", 2, &dim));
    OK(nc_abort(ncid));
    CHECK(!exists(F2), "aborted new file still exists");
    /* After enddef it stays, with what enddef wrote. */
    MUST(nc_create(F2, NC_NETCDF4, &ncid));
    OK(nc_def_dim(ncid, "x", 2, &dim));
    OK(nc_enddef(ncid));
    OK(nc_redef(ncid));
    OK(nc_def_dim(ncid, "y", 3, &dim));
    OK(nc_abort(ncid));
    CHECK(exists(F2), "aborted file after enddef is gone");
    MUST(nc_open(F2, NC_NOWRITE, &ncid));
    OK(nc_inq_ndims(ncid, &ndims));
    CHECK(ndims == 1, "ndims after abort %d", ndims);
    OK(nc_close(ncid));
    /* Opened, changed, aborted: unchanged. */
    MUST(nc_open(F2, NC_WRITE, &ncid));
    OK(nc_redef(ncid));
    OK(nc_def_dim(ncid, "z", 4, &dim));
    OK(nc_abort(ncid));
    MUST(nc_open(F2, NC_NOWRITE, &ncid));
    OK(nc_inq_ndims(ncid, &ndims));
    CHECK(ndims == 1, "ndims after abort of an open file %d", ndims);
    OK(nc_close(ncid));
}

static void
t_memory(void)
{
    int ncid, dim, v, ndims = -1, vals[3] = {1, 2, 3}, back[3] = {0, 0, 0};
    NC_memio mem = {0, NULL, 0};
    size_t len = 0;
    /* Diskless, not persisted: nothing on disk. */
    remove(F2);
    MUST(nc_create(F2, NC_NETCDF4 | NC_DISKLESS, &ncid));
    OK(nc_def_dim(ncid, "x", 3, &dim));
    OK(nc_close(ncid));
    CHECK(!exists(F2), "diskless file written to disk");
    /* Persisted: written at close. */
    MUST(nc_create(F2, NC_NETCDF4 | NC_DISKLESS | NC_PERSIST, &ncid));
    OK(nc_def_dim(ncid, "x", 3, &dim));
    OK(nc_close(ncid));
    CHECK(exists(F2), "persisted diskless file missing");
    MUST(nc_open(F2, NC_NOWRITE, &ncid));
    OK(nc_inq_ndims(ncid, &ndims));
    CHECK(ndims == 1, "persisted ndims %d", ndims);
    OK(nc_close(ncid));
    /* In memory: the image comes back at close. */
    MUST(nc_create_mem("mem.nc", NC_NETCDF4, 0, &ncid));
    OK(nc_def_dim(ncid, "x", 3, &dim));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dim, &v));
    OK(nc_put_var_int(ncid, v, vals));
    OK(nc_close_memio(ncid, &mem));
    CHECK(mem.memory != NULL && mem.size > 0, "no image");
    if (mem.memory) {
        MUST(nc_open_mem("mem.nc", NC_NOWRITE, mem.size, mem.memory, &ncid));
        OK(nc_inq_dimlen(ncid, 0, &len));
        CHECK(len == 3, "image dim len %zu", len);
        OK(nc_get_var_int(ncid, 0, back));
        CHECK(back[0] == 1 && back[2] == 3, "image data %d %d", back[0], back[2]);
        OK(nc_close(ncid));
        free(mem.memory);
    }
}

/* An image opened for writing comes back changed at nc_close_memio. */
static void
t_memio_write(void)
{
    int ncid, dim, one = 1, got = 0;
    NC_memio in = {0, NULL, 0}, out = {0, NULL, 0};
    FILE *fp;
    long n;
    MUST(nc_create(F2, NC_NETCDF4 | NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 3, &dim));
    OK(nc_close(ncid));
    if (!(fp = fopen(F2, "rb")))
        return;
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    rewind(fp);
    in.size = (size_t)n;
    in.memory = malloc(in.size);
    CHECK(in.memory && fread(in.memory, 1, in.size, fp) == in.size, "read image");
    fclose(fp);
    MUST(nc_open_memio("img.nc", NC_WRITE, &in, &ncid));
    OK(nc_redef(ncid));
    OK(nc_put_att_int(ncid, NC_GLOBAL, "added", NC_INT, 1, &one));
    OK(nc_close_memio(ncid, &out));
    CHECK(out.memory != NULL && out.size > 0, "no image back");
    if (out.memory) {
        MUST(nc_open_mem("img2.nc", NC_NOWRITE, out.size, out.memory, &ncid));
        OK(nc_get_att_int(ncid, NC_GLOBAL, "added", &got));
        CHECK(got == 1, "attribute in the image: %d", got);
        OK(nc_close(ncid));
    }
    if (out.memory != in.memory)
        free(out.memory);
    free(in.memory);
}

static void
t_storage_limits(void)
{
    int ncid, d[2], v;
    size_t big[2] = {70000, 70000};
    size_t cs = 0, ce = 0;
    float cp = 0;
    MUST(nc_create(F1, NC_NETCDF4 | NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "a", 100000, &d[0]));
    OK(nc_def_dim(ncid, "b", 100000, &d[1]));
    OK(nc_def_var(ncid, "v", NC_DOUBLE, 2, d, &v));
    /* 70000^2 doubles is more than HDF5's 4 GiB chunk limit. */
    EXPECT(nc_def_var_chunking(ncid, v, NC_CHUNKED, big), NC_EBADCHUNK);
    /* szip: pixels per block must be even and at most 32. */
    EXPECT(nc_def_var_szip(ncid, v, NC_SZIP_NN, 7), NC_EINVAL);
    EXPECT(nc_def_var_szip(ncid, v, NC_SZIP_NN, 64), NC_EINVAL);
    OK(nc_inq_filter_avail(ncid, H5Z_FILTER_DEFLATE));
    EXPECT(nc_inq_filter_avail(ncid, 31999), NC_ENOFILTER);
    OK(nc_set_var_chunk_cache(ncid, v, 1 << 20, 101, 0.5f));
    OK(nc_get_var_chunk_cache(ncid, v, &cs, &ce, &cp));
    CHECK(cs == 1 << 20 && ce == 101 && cp == 0.5f, "cache %zu %zu %g", cs, ce, cp);
    OK(nc_enddef(ncid));
    OK(nc_set_var_chunk_cache(ncid, v, 2 << 20, 103, 0.25f));
    OK(nc_get_var_chunk_cache(ncid, v, &cs, &ce, &cp));
    CHECK(cs == 2 << 20 && ce == 103 && cp == 0.25f, "cache %zu %zu %g", cs, ce, cp);
    OK(nc_close(ncid));
}

/* Data written in the enhanced model's define mode (implicit enddef). */
static void
t_implicit_enddef(void)
{
    int ncid, dim, v, w, vals[2] = {5, 6}, back[2] = {0, 0};
    MUST(nc_create(F1, NC_NETCDF4 | NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 2, &dim));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dim, &v));
    OK(nc_put_var_int(ncid, v, vals));
    OK(nc_def_var(ncid, "w", NC_INT, 1, &dim, &w));  /* implicit redef */
    OK(nc_put_var_int(ncid, w, vals));
    OK(nc_close(ncid));
    MUST(nc_open(F1, NC_NOWRITE, &ncid));
    OK(nc_get_var_int(ncid, 1, back));
    CHECK(back[0] == 5 && back[1] == 6, "w %d %d", back[0], back[1]);
    OK(nc_close(ncid));
}

/* A dim renamed onto the name of a variable that does not use it: the
 * variable moves to _nc4_non_coord_<name> and keeps its data.  (The
 * reference fails the close with NC_EHDFERR: ours only.) */
static void
t_rename_clash(void)
{
#ifndef NCT_REFERENCE_BUILD
    int ncid, a, c, w, vals[2] = {4, 5}, back[2] = {0, 0}, varid = -1;
    size_t len = 0;
    MUST(nc_create(F1, NC_NETCDF4 | NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "a", 2, &a));
    OK(nc_def_dim(ncid, "c", 3, &c));
    OK(nc_def_var(ncid, "w", NC_INT, 1, &a, &w));
    OK(nc_put_var_int(ncid, w, vals));
    OK(nc_rename_dim(ncid, c, "w"));
    OK(nc_close(ncid));
    MUST(nc_open(F1, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "w", &varid));
    OK(nc_get_var_int(ncid, varid, back));
    CHECK(back[0] == 4 && back[1] == 5, "data %d %d", back[0], back[1]);
    OK(nc_inq_dimid(ncid, "w", &c));
    OK(nc_inq_dimlen(ncid, c, &len));
    CHECK(len == 3, "dim w length %zu", len);
    OK(nc_close(ncid));
#endif
}

int
main(void)
{
    t_create_modes();
    t_define_mode();
    t_abort();
    t_memory();
    t_memio_write();
    t_storage_limits();
    t_implicit_enddef();
    t_rename_clash();
    remove(F1);
    remove(F2);
    return nct_summary("tst_h5write_api");
}
