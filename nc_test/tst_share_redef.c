/* tst_share_redef.c: regression test for header changes lost by nc_redef
 * under NC_SHARE (found by fuzz/fuzz_ops).
 *
 * In data mode a variable, a dimension and an attribute may be renamed, and
 * an attribute rewritten in place; the header is then dirty in memory and
 * written at the next sync or close.  Under NC_SHARE, nc_redef re-reads the
 * header from disk (to see other writers' changes) -- and did so before
 * writing the dirty header, so these successful changes vanished.
 * (Upstream 4.9.0 has the same defect; ours writes first.)  Every format,
 * NC_SHARE and not; checked inside redef, after enddef and after reopen.
 */
#include <stdio.h>
#include <string.h>
#include "netcdf.h"
#include "nctst.h"

static void
check_names(int ncid, const char *when, const char *fmt, int share)
{
    char name[NC_MAX_NAME + 1] = "";
    char text[8] = "";
    size_t len = 0;
    OK(nc_inq_varname(ncid, 0, name));
    CHECK(strcmp(name, "b") == 0, "%s %s share=%d: variable is \"%s\", want \"b\"", fmt, when,
          share, name);
    OK(nc_inq_dimname(ncid, 0, name));
    CHECK(strcmp(name, "y") == 0, "%s %s share=%d: dimension is \"%s\", want \"y\"", fmt, when,
          share, name);
    OK(nc_inq_attlen(ncid, NC_GLOBAL, "t", &len));
    CHECK(len == 3, "%s %s share=%d: attribute t has length %zu, want 3", fmt, when, share, len);
    if (len == 3) {
        OK(nc_get_att_text(ncid, NC_GLOBAL, "t", text));
        CHECK(memcmp(text, "abc", 3) == 0, "%s %s share=%d: attribute t is \"%.3s\"", fmt, when,
              share, text);
    }
}

static void
one(const nct_format *f, int share)
{
    const char *path = "tst_share_redef.nc";
    int ncid, dimid, varid, v2;
    MUST(nc_create(path, NC_CLOBBER | f->cmode | (share ? NC_SHARE : 0), &ncid));
    MUST(nc_def_dim(ncid, "xx", 2, &dimid));
    MUST(nc_def_var(ncid, "long_name", NC_INT, 1, &dimid, &varid));
    MUST(nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "hello"));
    MUST(nc_enddef(ncid));
    /* Data mode: changes that keep the header the same size or smaller. */
    OK(nc_rename_var(ncid, varid, "b"));
    OK(nc_rename_dim(ncid, dimid, "y"));
    OK(nc_rename_att(ncid, NC_GLOBAL, "title", "t"));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "t", 3, "abc"));
    OK(nc_redef(ncid));
    check_names(ncid, "in redef", f->name, share);
    OK(nc_def_var(ncid, "c", NC_SHORT, 1, &dimid, &v2));
    OK(nc_enddef(ncid));
    check_names(ncid, "after enddef", f->name, share);
    OK(nc_close(ncid));
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    check_names(ncid, "after reopen", f->name, share);
    OK(nc_close(ncid));
    remove(path);
}

int
main(void)
{
    for (int i = 0; i < 3; i++)
        for (int share = 0; share < 2; share++)
            one(&nct_formats[i], share);
    return nct_summary("tst_share_redef");
}
