/* tst_nc4model.c: white-box tests of the enhanced data model (libsrc4)
 * without any storage: the hashed index at 100,000 names, the tree and its
 * finders, deep copy/reclaim of nested values, and the NC4_* slots on a
 * file record registered by hand with the HDF5 dispatch table (whose model
 * slots never touch HDF5 for the calls made here).  Run it under valgrind
 * or ASan to check that nothing leaks. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "nctst.h"
#include "ncdispatch.h"
#include "ncstate.h"
#include "nc4model.h"

#define NBIG 100000

/* ---- the index ---------------------------------------------------------------- */

static void
test_index(void)
{
    NC4_index ix;
    NC4_obj *objs = calloc(NBIG, sizeof(NC4_obj));
    char name[64];
    int bad = 0;

    nc4_index_init(&ix);
    for (int i = 0; i < NBIG; i++) {
        snprintf(name, sizeof name, "v%d", i);
        objs[i].name = strdup(name);
        objs[i].id = i;
        if (nc4_index_add(&ix, &objs[i]))
            bad++;
    }
    CHECK(bad == 0 && ix.n == NBIG, "index add: %d failures, n %zu", bad, ix.n);
    bad = 0;
    for (int i = 0; i < NBIG; i++) {
        snprintf(name, sizeof name, "v%d", i);
        NC4_obj *o = nc4_index_find(&ix, name);
        if (o != &objs[i] || ix.items[i] != &objs[i])
            bad++;
    }
    CHECK(bad == 0, "index find: %d wrong", bad);
    CHECK(nc4_index_find(&ix, "nope") == NULL, "index find absent");
    CHECK(nc4_index_find(&ix, "") == NULL, "index find empty name");

    /* Rename every third item; old names vanish, new ones resolve. */
    bad = 0;
    for (int i = 0; i < NBIG; i += 3) {
        snprintf(name, sizeof name, "renamed_%d", i);
        if (nc4_index_rename(&ix, &objs[i], name))
            bad++;
    }
    for (int i = 0; i < NBIG; i++) {
        char old[64];
        snprintf(old, sizeof old, "v%d", i);
        snprintf(name, sizeof name, "renamed_%d", i);
        if (i % 3 == 0) {
            if (nc4_index_find(&ix, old) != NULL || nc4_index_find(&ix, name) != &objs[i])
                bad++;
        } else if (nc4_index_find(&ix, old) != &objs[i]) {
            bad++;
        }
    }
    CHECK(bad == 0, "index rename: %d wrong", bad);

    /* Remove a few items with renumbering: ids close up, look-ups stay right. */
    for (int k = 0; k < 5; k++)
        nc4_index_remove(&ix, 10, 1);
    CHECK(ix.n == NBIG - 5, "index remove count %zu", ix.n);
    bad = 0;
    for (size_t i = 0; i < ix.n; i++) {
        if (ix.items[i]->id != (int)i)
            bad++;
        if (nc4_index_find(&ix, ix.items[i]->name) != ix.items[i])
            bad++;
    }
    CHECK(bad == 0, "index after remove: %d wrong", bad);
    CHECK(nc4_index_find(&ix, "v11") == NULL, "removed name gone");
    NC4_obj *first = ix.items[0], *last = ix.items[ix.n - 1];
    nc4_index_move(&ix, 0, ix.n - 1);
    nc4_index_move(&ix, ix.n - 2, 0);
    CHECK(ix.items[ix.n - 1] == first && ix.items[0] == last &&
          nc4_index_find(&ix, first->name) == first && nc4_index_find(&ix, last->name) == last,
          "index move");
    nc4_index_clear(&ix);
    CHECK(ix.n == 0 && ix.items == NULL, "index clear");
    for (int i = 0; i < NBIG; i++)
        free(objs[i].name);
    free(objs);
}

/* ---- values ------------------------------------------------------------------------ */

struct inner { int n; char *s; };
struct outer { double d; struct inner in[2]; nc_vlen_t v; };

static void
test_values(void)
{
    NC4_file *f = NULL;
    NC4_type *ti, *tv, *to;
    int dims1[1] = {2};

    if (nc4_file_new(NULL, 0, NC_NETCDF4, NC_FORMATX_NC_HDF5, NULL, &f)) {
        CHECK(0, "nc4_file_new");
        return;
    }
    CHECK(nc4_new_type(f->root, "inner", NC_COMPOUND, sizeof(struct inner), NC_NAT, &ti) == 0, "inner");
    nc4_new_field(ti, "n", offsetof(struct inner, n), NC_INT, 0, NULL);
    nc4_new_field(ti, "s", offsetof(struct inner, s), NC_STRING, 0, NULL);
    CHECK(nc4_new_field(ti, "s", 0, NC_INT, 0, NULL) == NC_ENAMEINUSE, "dup field");
    CHECK(nc4_new_type(f->root, "vin", NC_VLEN, sizeof(nc_vlen_t), ti->hdr.id, &tv) == 0, "vlen");
    CHECK(nc4_new_type(f->root, "outer", NC_COMPOUND, sizeof(struct outer), NC_NAT, &to) == 0, "outer");
    nc4_new_field(to, "d", offsetof(struct outer, d), NC_DOUBLE, 0, NULL);
    nc4_new_field(to, "in", offsetof(struct outer, in), ti->hdr.id, 1, dims1);
    nc4_new_field(to, "v", offsetof(struct outer, v), tv->hdr.id, 0, NULL);
    CHECK(ti->hdr.id == NC_FIRSTUSERTYPEID && to->hdr.id == NC_FIRSTUSERTYPEID + 2, "type ids");
    CHECK(nc4_type_has_pointers(f, to->hdr.id) && nc4_type_has_pointers(f, tv->hdr.id) &&
          !nc4_type_has_pointers(f, NC_INT) && nc4_type_has_pointers(f, NC_STRING), "has pointers");
    CHECK(nc4_type_size(f, to->hdr.id) == sizeof(struct outer) && nc4_type_size(f, NC_INT64) == 8 &&
          nc4_type_size(f, 999) == 0, "type sizes");

    struct inner vin[3] = {{1, "a"}, {2, NULL}, {3, "ccc"}};
    struct outer src[2] = {
        {1.5, {{10, "x"}, {11, "yy"}}, {3, vin}},
        {2.5, {{20, NULL}, {21, "z"}}, {0, NULL}},
    };
    struct outer dst[2];
    CHECK(nc4_copy_values(f, to->hdr.id, src, dst, 2) == 0, "deep copy");
    CHECK(dst[0].in[1].s != src[0].in[1].s && strcmp(dst[0].in[1].s, "yy") == 0, "copied string");
    CHECK(dst[1].in[0].s == NULL, "NULL string stays NULL");
    CHECK(dst[0].v.len == 3 && dst[0].v.p != src[0].v.p, "copied vlen");
    struct inner *cv = dst[0].v.p;
    CHECK(cv[2].n == 3 && strcmp(cv[2].s, "ccc") == 0 && cv[2].s != vin[2].s && cv[1].s == NULL,
          "vlen of compound deep");
    nc4_reclaim_values(f, to->hdr.id, dst, 2);
    CHECK(dst[0].v.p == NULL && dst[0].in[0].s == NULL, "reclaim clears pointers");

    /* Attributes keep deep copies. */
    NC4_att *att;
    const char *strs[3] = {"one", NULL, "three"};
    CHECK(nc4_set_att(f->root, NULL, "s", NC_STRING, 3, strs, &att) == 0, "set string att");
    CHECK(((char **)att->data)[0] != strs[0] && ((char **)att->data)[1] == NULL, "string att copy");
    CHECK(nc4_set_att(f->root, NULL, "o", to->hdr.id, 2, src, &att) == 0, "set compound att");
    CHECK(nc4_set_att(f->root, NULL, "s", NC_INT, 1, (int[]){5}, &att) == 0 && att->hdr.id == 0,
          "replace att keeps its number");
    CHECK(nc4_set_att(f->root, NULL, "x", NC_INT, 1, NULL, NULL) == NC_EINVAL, "len>0 NULL data");
    nc4_file_free(f);
}

/* ---- the slots on a registered record -------------------------------------------- */

static int
open_fake(NC **ncp, NC4_file **fp, int cmode)
{
    NC *nc;
    int stat;
    if ((stat = NC_new("fake.nc", cmode, NC_FORMATX_NC_HDF5, NC4_HDF5_dispatch_table, &nc)))
        return stat;
    if ((stat = NC_registry_add(nc))) {
        NC_free(nc);
        return stat;
    }
    if ((stat = nc4_file_new(nc, nc->ext_ncid, cmode, NC_FORMATX_NC_HDF5, NULL, fp))) {
        NC_registry_remove(nc); /* frees the record */
        return stat;
    }
    (*fp)->indef = 1;
    *ncp = nc;
    return NC_NOERR;
}

static void
close_fake(NC *nc, NC4_file *f)
{
    nc4_file_free(f);
    NC_registry_remove(nc); /* frees the record */
}

static void
test_slots(void)
{
    NC *nc;
    NC4_file *f;
    int ncid, g, x, t, u, v, vx, n, ids[8];
    char name[NC_MAX_NAME + 1];

    if (open_fake(&nc, &f, NC_NETCDF4)) {
        CHECK(0, "open_fake");
        return;
    }
    ncid = nc->ext_ncid;
    OK(NC4_def_dim(ncid, "x", 10, &x));
    OK(NC4_def_dim(ncid, "t", NC_UNLIMITED, &t));
    OK(NC4_def_grp(ncid, "g", &g));
    OK(NC4_def_dim(g, "u", NC_UNLIMITED, &u));
    CHECK(x == 0 && t == 1 && u == 2 && (g & NC_GRP_MASK) == 1, "ids: dims file-wide, group 1");
    EXPECT(NC4_def_dim(ncid, "x", 3, NULL), NC_ENAMEINUSE);
    EXPECT(NC4_def_grp(ncid, "g", NULL), NC_ENAMEINUSE);
    OK(NC4_inq_dimid(g, "x", &n));
    CHECK(n == x, "dim visible from child");
    EXPECT(NC4_inq_dimid(ncid, "u", &n), NC_EBADDIM);
    OK(NC4_inq_dimids(g, &n, ids, 1));
    CHECK(n == 3 && ids[0] == 0 && ids[2] == 2, "dimids with parents");
    OK(NC4_inq_grpname_full(g, NULL, name));
    CHECK(strcmp(name, "/g") == 0, "full name %s", name);
    OK(NC4_inq_grp_full_ncid(ncid, "/g", &n));
    CHECK(n == g, "full ncid");
    EXPECT(NC4_inq_grp_parent(ncid, &n), NC_ENOGRP);

    /* Coordinate variables and renames. */
    OK(NC4_def_var(ncid, "x", NC_FLOAT, 1, &x, &vx));
    NC4_var *var;
    nc4_find_var(ncid, vx, NULL, NULL, &var);
    CHECK(var->is_coord && f->dims[x]->coord_var == var, "coordinate var");
    CHECK(var->storage == NC_CONTIGUOUS && var->chunksizes == NULL, "fixed var contiguous");
    OK(NC4_rename_var(ncid, vx, "xx"));
    CHECK(!var->is_coord && var->was_coord && f->dims[x]->coord_var == NULL, "rename breaks coord");
    OK(NC4_rename_dim(ncid, x, "xx"));
    CHECK(var->is_coord && f->dims[x]->coord_var == var, "dim rename reforms coord");
    OK(NC4_def_var(ncid, "rec", NC_INT, 2, (int[]){t, x}, &v));
    nc4_find_var(ncid, v, NULL, NULL, &var);
    CHECK(var->storage == NC_CHUNKED && var->chunksizes && var->chunksizes[0] == 1 &&
          var->chunksizes[1] == 10, "record var default chunks %zu %zu",
          var->chunksizes ? var->chunksizes[0] : 0, var->chunksizes ? var->chunksizes[1] : 0);

    /* Attributes: conversion, NC_ERANGE still stores, renumbering on delete. */
    int big = 300;
    unsigned char got = 0;
    EXPECT(NC4_put_att(ncid, v, "a", NC_UBYTE, 1, &big, NC_INT), NC_ERANGE);
    OK(NC4_get_att(ncid, v, "a", &got, NC_UBYTE));
    CHECK(got == 44, "stored converted value %d", got);
    OK(NC4_put_att(ncid, v, "b", NC_CHAR, 3, "abc", NC_CHAR));
    EXPECT(NC4_get_att(ncid, v, "b", &big, NC_INT), NC_ECHAR);
    EXPECT(NC4_put_att(ncid, v, "_Netcdf4Dimid", NC_INT, 1, &big, NC_INT), NC_ENAMEINUSE);
    EXPECT(NC4_put_att(ncid, NC_GLOBAL, "_NCProperties", NC_CHAR, 1, "x", NC_CHAR), NC_ENAMEINUSE);
    OK(NC4_put_att(g, NC_GLOBAL, "_Format", NC_CHAR, 1, "x", NC_CHAR));
    NC4_att *a0 = (NC4_att *)var->atts.items[0];
    a0->hdr.stored_name = strdup("a");  /* pretend it is stored */
    OK(NC4_del_att(ncid, v, "a"));
    CHECK(var->ndeleted_atts == 1 && strcmp(var->deleted_atts[0], "a") == 0, "deleted_atts");
    OK(NC4_inq_attid(ncid, v, "b", &n));
    CHECK(n == 0, "attnum closes up");
    OK(NC4_inq(ncid, NULL, NULL, &n, NULL));
    CHECK(n == 0, "natts root %d", n);
    f->is_netcdf4 = 1;
    n = -1;
    OK(NC4_get_att(g, NC_GLOBAL, "_IsNetcdf4", &n, NC_INT));
    CHECK(n == 1, "virtual _IsNetcdf4");

    /* _FillValue and def_var_fill. */
    int fv = 7, fill = 0, nofill = -1;
    OK(NC4_def_var_fill(ncid, v, 0, &fv));
    OK(NC4_inq_var_all(ncid, v, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                       &nofill, &fill, NULL, NULL, NULL, NULL));
    CHECK(nofill == 0 && fill == 7, "fill %d %d", nofill, fill);
    OK(NC4_del_att(ncid, v, "_FillValue"));
    OK(NC4_inq_var_all(ncid, v, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                       NULL, &fill, NULL, NULL, NULL, NULL));
    CHECK(fill == NC_FILL_INT, "default fill after delete");

    /* Storage settings. */
    size_t cs[2] = {0, 0};
    EXPECT(NC4_def_var_chunking(ncid, v, NC_CONTIGUOUS, NULL), NC_EINVAL);
    EXPECT(NC4_def_var_chunking(ncid, v, NC_CHUNKED, (size_t[]){1, 11}), NC_EBADCHUNK);
    OK(NC4_def_var_deflate(ncid, v, 1, 1, 4));
    int sh, de, lvl;
    OK(NC4_inq_var_all(ncid, v, NULL, NULL, NULL, NULL, NULL, &sh, &de, &lvl, NULL, NULL, cs,
                       NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(sh == 1 && de == 1 && lvl == 4 && cs[1] == 10, "deflate %d %d %d", sh, de, lvl);
    var->created = 1;
    EXPECT(NC4_def_var_deflate(ncid, v, 0, 1, 1), NC_ELATEDEF);
    var->created = 0;

    /* User types. */
    nc_type ct, et;
    short one = 1;
    OK(NC4_def_compound(g, 8, "pt", &ct));
    OK(NC4_insert_compound(g, ct, "x", 0, NC_INT));
    EXPECT(NC4_insert_compound(g, NC_INT, "y", 4, NC_INT), NC_EBADTYPE);
    OK(NC4_def_enum(ncid, NC_SHORT, "e", &et));
    OK(NC4_insert_enum(ncid, et, "one", &one));
    OK(NC4_inq_enum_ident(ncid, et, 1, name));
    CHECK(strcmp(name, "one") == 0, "enum ident");
    EXPECT(NC4_inq_enum_ident(ncid, et, 2, name), NC_EINVAL);
    OK(NC4_inq_typeid(g, "e", &n));
    CHECK(n == et, "typeid from ancestor");
    OK(NC4_inq_typeid(ncid, "pt", &n));
    CHECK(n == ct, "typeid found in subgroup");
    EXPECT(NC4_def_var(ncid, "pt", ct, 0, NULL, NULL), NC_NOERR);
    EXPECT(NC4_def_var(g, "pt", ct, 0, NULL, NULL), NC_ENAMEINUSE);

    /* Read-only and classic rules. */
    f->readonly = 1;
    f->indef = 0;
    EXPECT(NC4_def_dim(ncid, "z", 1, NULL), NC_EPERM);
    EXPECT(NC4_put_att(ncid, NC_GLOBAL, "z", NC_INT, 1, &fv, NC_INT), NC_EPERM);
    close_fake(nc, f);

    if (open_fake(&nc, &f, NC_NETCDF4 | NC_CLASSIC_MODEL) == 0) {
        ncid = nc->ext_ncid;
        OK(NC4_def_dim(ncid, "t", NC_UNLIMITED, NULL));
        EXPECT(NC4_def_dim(ncid, "t2", NC_UNLIMITED, NULL), NC_EUNLIMIT);
        EXPECT(NC4_def_grp(ncid, "g", NULL), NC_ESTRICTNC3);
        EXPECT(NC4_def_var(ncid, "s", NC_STRING, 0, NULL, NULL), NC_ESTRICTNC3);
        EXPECT(NC4_def_compound(ncid, 4, "c", NULL), NC_ESTRICTNC3);
        f->indef = 0;
        EXPECT(NC4_def_dim(ncid, "x", 1, NULL), NC_ENOTINDEFINE);
        close_fake(nc, f);
    }
}

/* 100,000 variables: definition and look-up stay fast (the test would time
 * out if they were linear), and every id resolves. */
static void
test_many_vars(void)
{
    NC *nc;
    NC4_file *f;
    char name[32];
    int bad = 0, id;

    if (open_fake(&nc, &f, NC_NETCDF4)) {
        CHECK(0, "open_fake");
        return;
    }
    for (int i = 0; i < NBIG; i++) {
        snprintf(name, sizeof name, "var_%d", i);
        if (NC4_def_var(nc->ext_ncid, name, NC_INT, 0, NULL, &id) || id != i)
            bad++;
    }
    for (int i = NBIG - 1; i >= 0; i--) {
        snprintf(name, sizeof name, "var_%d", i);
        if (NC4_inq_varid(nc->ext_ncid, name, &id) || id != i)
            bad++;
        if (NC4_put_att(nc->ext_ncid, NC_GLOBAL, name, NC_INT, 1, &i, NC_INT))
            bad++;
    }
    CHECK(bad == 0, "100000 vars/atts: %d failures", bad);
    OK(NC4_inq_attid(nc->ext_ncid, NC_GLOBAL, "var_0", &id));
    CHECK(id == NBIG - 1, "last att id %d", id);
    close_fake(nc, f);
}

int
main(void)
{
    nc_initialize();
    test_index();
    test_values();
    test_slots();
    test_many_vars();
    return nct_summary("tst_nc4model");
}
