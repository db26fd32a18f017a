/* tst_h5read_atts.c: writes attributes of every kind (char of length 0/1/5,
 * strings, numbers of several types, zero length, compound, vlen, enum, opaque
 * of committed user types) to the file named by argv[1]; built against ours
 * and the reference, tst_h5read_atts.sh compares the two files under h5dump -A:
 * the attributes must be laid out as upstream lays them out. */
#include <netcdf.h>
#include <stdio.h>
#include <stddef.h>
int main(int argc, char **argv) { (void)argc; int ncid, v, d; nc_type tc, tv, te, to;
 typedef struct { int i; double x; } c_t;
 nc_create(argv[1], NC_NETCDF4|NC_CLOBBER, &ncid);
 nc_def_dim(ncid, "x", 2, &d); nc_def_var(ncid, "v", NC_INT, 1, &d, &v);
 nc_def_compound(ncid, sizeof(c_t), "c_t", &tc); nc_insert_compound(ncid, tc, "i", offsetof(c_t,i), NC_INT); nc_insert_compound(ncid, tc, "x", offsetof(c_t,x), NC_DOUBLE);
 nc_def_vlen(ncid, "v_t", NC_SHORT, &tv); nc_def_enum(ncid, NC_UBYTE, "e_t", &te); unsigned char one=1; nc_insert_enum(ncid, te, "ONE", &one);
 nc_def_opaque(ncid, 2, "o_t", &to);
 nc_put_att_text(ncid, NC_GLOBAL, "t0", 0, ""); nc_put_att_text(ncid, NC_GLOBAL, "t1", 1, "a"); nc_put_att_text(ncid, NC_GLOBAL, "t5", 5, "hello");
 const char *ss[2] = {"x", "yz"}; nc_put_att_string(ncid, NC_GLOBAL, "s2", 2, ss); nc_put_att_string(ncid, NC_GLOBAL, "s1", 1, ss); nc_put_att_string(ncid, NC_GLOBAL, "s0", 0, ss);
 int iv[3]={1,2,3}; nc_put_att_int(ncid, v, "i1", NC_INT, 1, iv); nc_put_att_int(ncid, v, "i3", NC_INT, 3, iv); nc_put_att_int(ncid, v, "i0", NC_INT, 0, iv);
 nc_put_att_int(ncid, v, "b3", NC_BYTE, 3, iv); nc_put_att_int(ncid, v, "u3", NC_UINT64, 3, iv); nc_put_att_int(ncid, v, "f3", NC_FLOAT, 3, iv); nc_put_att_int(ncid, v, "us", NC_USHORT, 3, iv);
 c_t cv = {7, 1.5}; nc_put_att(ncid, v, "c", tc, 1, &cv);
 short sh[2] = {4,5}; nc_vlen_t vl[2] = {{2, sh}, {0, NULL}}; nc_put_att(ncid, v, "vl", tv, 2, vl);
 nc_put_att(ncid, v, "e", te, 1, &one); nc_put_att(ncid, v, "o", to, 1, "ab");
 nc_put_att_int(ncid, v, "_FillValue", NC_INT, 1, iv);
 return nc_close(ncid); }
