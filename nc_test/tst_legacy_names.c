/* tst_legacy_names.c: legacy classic files that upstream opens must open
 * here too.  Names holding bytes that are not UTF-8
 * (Latin-1 "h\xe9ss") in dimension, variable and attribute names, and
 * duplicate dimension, variable and attribute names.  Name rules apply to
 * names being created, not to files being read.  Expected values are
 * upstream 4.9.0's: nc_inq_dimid/nc_inq_varid with a duplicated name return
 * the last id, attribute look-ups the first; new names are still checked.
 * One deliberate difference: after renaming one of two variables called
 * "a", upstream loses the look-up of the other; here it still finds it. */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>

#define LAT "h\xe9ss"

/* ---- a tiny CDF-1 header writer ------------------------------------------ */
typedef struct { unsigned char b[4096]; size_t n; } hbuf;

static void be32(hbuf *h, unsigned long v)
{
    h->b[h->n++] = (unsigned char)(v >> 24); h->b[h->n++] = (unsigned char)(v >> 16);
    h->b[h->n++] = (unsigned char)(v >> 8); h->b[h->n++] = (unsigned char)v;
}
static void name(hbuf *h, const char *s)
{
    size_t l = strlen(s);
    be32(h, l);
    memcpy(h->b + h->n, s, l);
    h->n += l;
    while (h->n % 4) h->b[h->n++] = 0;
}
/* one NC_CHAR attribute list entry with a one-character value */
static void att1(hbuf *h, const char *nm, char c)
{
    name(h, nm); be32(h, NC_CHAR); be32(h, 1);
    h->b[h->n++] = (unsigned char)c; h->b[h->n++] = 0; h->b[h->n++] = 0; h->b[h->n++] = 0;
}

typedef struct { const char *name; int dim; const char *a1, *a2; } vdef;

/* dims: names and sizes; gatt names (NULL: none); vars of type short over one
 * dim each, data 1,2,3,... in order.  Writes path; returns 0 on success. */
static int
write_file(const char *path, int nd, const char *const *dn, const int *ds,
           const char *g1, const char *g2, int nv, const vdef *v)
{
    hbuf h;
    size_t beginpos[8], i, dl[8];
    int k, val = 1;
    FILE *f;
    memset(&h, 0, sizeof h);
    memcpy(h.b, "CDF\001", 4); h.n = 4;
    be32(&h, 0);
    be32(&h, 0x0A); be32(&h, (unsigned long)nd);
    for (k = 0; k < nd; k++) { name(&h, dn[k]); be32(&h, (unsigned long)ds[k]); }
    if (g1) {
        be32(&h, 0x0C); be32(&h, g2 ? 2 : 1);
        att1(&h, g1, 'x');
        if (g2) att1(&h, g2, 'y');
    } else {
        be32(&h, 0); be32(&h, 0);
    }
    be32(&h, 0x0B); be32(&h, (unsigned long)nv);
    for (k = 0; k < nv; k++) {
        name(&h, v[k].name); be32(&h, 1); be32(&h, (unsigned long)v[k].dim);
        if (v[k].a1) {
            be32(&h, 0x0C); be32(&h, v[k].a2 ? 2 : 1);
            att1(&h, v[k].a1, 'p');
            if (v[k].a2) att1(&h, v[k].a2, 'q');
        } else {
            be32(&h, 0); be32(&h, 0);
        }
        dl[k] = ((size_t)ds[v[k].dim] * 2 + 3) & ~(size_t)3;
        be32(&h, NC_SHORT); be32(&h, (unsigned long)dl[k]);
        beginpos[k] = h.n;
        be32(&h, 0);
    }
    for (k = 0, i = h.n; k < nv; k++) {
        size_t p = beginpos[k];
        h.b[p] = (unsigned char)(i >> 24); h.b[p + 1] = (unsigned char)(i >> 16);
        h.b[p + 2] = (unsigned char)(i >> 8); h.b[p + 3] = (unsigned char)i;
        i += dl[k];
    }
    for (k = 0; k < nv; k++) {
        size_t e, start = h.n;
        for (e = 0; e < (size_t)ds[v[k].dim]; e++, val++) {
            h.b[h.n++] = (unsigned char)(val >> 8);
            h.b[h.n++] = (unsigned char)val;
        }
        while (h.n < start + dl[k]) h.b[h.n++] = 0;
    }
    if ((f = fopen(path, "wb")) == NULL) return -1;
    if (fwrite(h.b, 1, h.n, f) != h.n) { fclose(f); return -1; }
    return fclose(f);
}

/* A look-up by a non-UTF-8 name must find the object: libdispatch passes
 * the raw bytes on when NFC normalisation fails (upstream answers
 * NC_ENOTVAR/NC_EBADDIM here, so NCO cannot read such a file). */
static void
lookup_latin1(int stat, int id, int want, const char *what)
{
    CHECK(stat == NC_NOERR && id == want, "%s: stat %d id %d, want id %d", what, stat, id, want);
}

static void
latin1(void)
{
    const char *dn[] = {LAT, "x"};
    const int ds[] = {2, 3};
    const vdef v[] = {{LAT, 0, LAT, NULL}, {"v", 1, NULL, NULL}};
    int ncid, id = -1, nd, nv, na, st;
    char nm[NC_MAX_NAME + 1];
    short d[3];
    MUST(write_file("tst_legacy_latin1.nc", 2, dn, ds, LAT, NULL, 2, v));
    MUST(nc_open("tst_legacy_latin1.nc", NC_NOWRITE, &ncid));
    OK(nc_inq(ncid, &nd, &nv, &na, NULL));
    CHECK(nd == 2 && nv == 2 && na == 1, "counts %d %d %d", nd, nv, na);
    OK(nc_inq_dimname(ncid, 0, nm));
    CHECK(strcmp(nm, LAT) == 0, "dim name bytes");
    OK(nc_inq_varname(ncid, 0, nm));
    CHECK(strcmp(nm, LAT) == 0, "var name bytes");
    OK(nc_inq_attname(ncid, NC_GLOBAL, 0, nm));
    CHECK(strcmp(nm, LAT) == 0, "global att name bytes");
    OK(nc_inq_attname(ncid, 0, 0, nm));
    CHECK(strcmp(nm, LAT) == 0, "var att name bytes");
    OK(nc_get_var_short(ncid, 0, d));
    CHECK(d[0] == 1 && d[1] == 2, "data of var 0: %d %d", d[0], d[1]);
    OK(nc_get_var_short(ncid, 1, d));
    CHECK(d[0] == 3 && d[2] == 5, "data of var 1: %d %d", d[0], d[2]);
    st = nc_inq_varid(ncid, LAT, &id);
    lookup_latin1(st, id, 0, "nc_inq_varid");
    id = -1; st = nc_inq_dimid(ncid, LAT, &id);
    lookup_latin1(st, id, 0, "nc_inq_dimid");
    id = -1; st = nc_inq_attid(ncid, NC_GLOBAL, LAT, &id);
    lookup_latin1(st, id, 0, "nc_inq_attid");
    OK(nc_close(ncid));

    /* Writable: redef/enddef rewrites the header with the same bytes; new
     * names must still be valid UTF-8. */
    MUST(nc_open("tst_legacy_latin1.nc", NC_WRITE, &ncid));
    OK(nc_redef(ncid));
    EXPECT(nc_def_dim(ncid, "h\xe9ss2", 4, &id), NC_EBADNAME);
    EXPECT(nc_put_att_text(ncid, NC_GLOBAL, "g\xe9", 1, "z"), NC_EBADNAME);
    OK(nc_def_dim(ncid, "new", 4, &id));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "hello"));
    OK(nc_enddef(ncid));
    OK(nc_close(ncid));
    MUST(nc_open("tst_legacy_latin1.nc", NC_NOWRITE, &ncid));
    OK(nc_inq(ncid, &nd, &nv, &na, NULL));
    CHECK(nd == 3 && nv == 2 && na == 2, "counts after redef %d %d %d", nd, nv, na);
    OK(nc_inq_varname(ncid, 0, nm));
    CHECK(strcmp(nm, LAT) == 0, "var name bytes after redef");
    OK(nc_get_var_short(ncid, 1, d));
    CHECK(d[0] == 3 && d[2] == 5, "data after redef: %d %d", d[0], d[2]);
    OK(nc_close(ncid));
}

static void
dups(void)
{
    const char *dn[] = {"d", "d"};
    const int ds[] = {2, 3};
    const vdef v[] = {{"a", 0, "u", "u"}, {"b", 1, NULL, NULL}};
    const vdef vv[] = {{"a", 0, NULL, NULL}, {"a", 0, NULL, NULL}};
    int ncid, id = -1, na = -1;
    char c = 0;
    short d[3];

    /* Duplicate dimensions and attributes. */
    MUST(write_file("tst_legacy_dups.nc", 2, dn, ds, "g", "g", 2, v));
    MUST(nc_open("tst_legacy_dups.nc", NC_WRITE, &ncid));
    OK(nc_inq_dimid(ncid, "d", &id));
    CHECK(id == 1, "nc_inq_dimid of a duplicated name gives %d, upstream 1", id);
    OK(nc_inq_natts(ncid, &na));
    CHECK(na == 2, "natts %d", na);
    id = -1;
    OK(nc_inq_attid(ncid, NC_GLOBAL, "g", &id));
    CHECK(id == 0, "attid of a duplicated name %d, upstream 0", id);
    OK(nc_get_att_text(ncid, NC_GLOBAL, "g", &c));
    CHECK(c == 'x', "first attribute's value, got %c", c);
    OK(nc_get_att_text(ncid, 0, "u", &c));
    CHECK(c == 'p', "first var attribute's value, got %c", c);
    OK(nc_get_var_short(ncid, 1, d));
    CHECK(d[0] == 3 && d[2] == 5, "data %d %d", d[0], d[2]);
    OK(nc_redef(ncid));
    EXPECT(nc_def_dim(ncid, "d", 5, &id), NC_ENAMEINUSE);
    OK(nc_del_att(ncid, NC_GLOBAL, "g"));
    OK(nc_inq_natts(ncid, &na));
    CHECK(na == 1, "natts after del %d", na);
    OK(nc_get_att_text(ncid, NC_GLOBAL, "g", &c));
    CHECK(c == 'y', "second attribute remains, got %c", c);
    OK(nc_enddef(ncid));
    OK(nc_close(ncid));
    MUST(nc_open("tst_legacy_dups.nc", NC_NOWRITE, &ncid));
    OK(nc_inq_dimid(ncid, "d", &id));
    CHECK(id == 1, "dimid after rewrite %d", id);
    OK(nc_close(ncid));

    /* Duplicate variables. */
    MUST(write_file("tst_legacy_dupvar.nc", 1, dn, ds, NULL, NULL, 2, vv));
    MUST(nc_open("tst_legacy_dupvar.nc", NC_WRITE, &ncid));
    id = -1;
    OK(nc_inq_varid(ncid, "a", &id));
    CHECK(id == 1, "nc_inq_varid of a duplicated name gives %d, upstream 1", id);
    OK(nc_get_var_short(ncid, 1, d));
    CHECK(d[0] == 3 && d[1] == 4, "data %d %d", d[0], d[1]);
    OK(nc_redef(ncid));
    EXPECT(nc_def_var(ncid, "a", NC_INT, 0, NULL, &id), NC_ENAMEINUSE);
    OK(nc_rename_var(ncid, 0, "b"));
    id = -1;
    OK(nc_inq_varid(ncid, "a", &id));       /* upstream: NC_ENOTVAR (lost) */
    CHECK(id == 1, "varid of the remaining 'a' %d", id);
    OK(nc_inq_varid(ncid, "b", &id));
    CHECK(id == 0, "varid of renamed 'b' %d", id);
    OK(nc_close(ncid));
}

int
main(void)
{
    latin1();
    dups();
    return nct_summary("tst_legacy_names");
}
