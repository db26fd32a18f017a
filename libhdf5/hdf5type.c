/* hdf5type.c: netCDF types <-> HDF5 datatypes.
 *
 * The mapping is upstream's, as its files show it under h5dump:
 *   NC_BYTE/UBYTE/SHORT/...  H5T_STD_{I,U}{8,16,32,64}{LE,BE}; native order
 *                            uses the H5T_NATIVE_* type (LE on x86);
 *   NC_FLOAT/DOUBLE          H5T_IEEE_F{32,64}{LE,BE} / H5T_NATIVE_*;
 *   NC_CHAR                  H5T_C_S1, size 1, NULLTERM, ASCII;
 *   NC_STRING                H5T_C_S1, variable size, NULLTERM, UTF-8;
 *   compound                 H5T_COMPOUND of the model's size and offsets,
 *                            array fields as H5T_ARRAY;
 *   vlen / enum / opaque     H5Tvlen_create / H5Tenum_create / H5T_OPAQUE.
 * Datasets and attributes of a committed type embed a transient copy of it,
 * as upstream's files do; the committed object is only the type's definition.
 *
 * Reading (nc4h5_read_type): a committed type's in-memory size and compound
 * offsets are those of HDF5's native type for it (H5Tget_native_type), as
 * upstream reports them.  Types are matched to datasets/attributes with
 * H5Tequal on native types, first user type in id order, as upstream does. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "hdf5int.h"

/* The fmt state of t, created on first use. */
static NC4H5_type *
type_fmt(NC4_type *t)
{
    NC4H5_type *ht = (NC4H5_type *)t->fmt;
    if (ht == NULL) {
        if ((ht = calloc(1, sizeof(*ht))) == NULL)
            return NULL;
        ht->kind = NC4H5_KTYPE;
        ht->ftid = -1;
        ht->mtid = -1;
        t->fmt = ht;
    }
    return ht;
}

/* A new copy of an HDF5 predefined atomic type for xtype. */
static int
atomic_type(nc_type xtype, int endianness, int file, hid_t *tidp)
{
    hid_t base;
    int le = file && endianness == NC_ENDIAN_LITTLE;
    int be = file && endianness == NC_ENDIAN_BIG;
    hid_t tid;

    switch (xtype) {
    case NC_BYTE:   base = le ? H5T_STD_I8LE : be ? H5T_STD_I8BE : H5T_NATIVE_SCHAR; break;
    case NC_UBYTE:  base = le ? H5T_STD_U8LE : be ? H5T_STD_U8BE : H5T_NATIVE_UCHAR; break;
    case NC_SHORT:  base = le ? H5T_STD_I16LE : be ? H5T_STD_I16BE : H5T_NATIVE_SHORT; break;
    case NC_USHORT: base = le ? H5T_STD_U16LE : be ? H5T_STD_U16BE : H5T_NATIVE_USHORT; break;
    case NC_INT:    base = le ? H5T_STD_I32LE : be ? H5T_STD_I32BE : H5T_NATIVE_INT; break;
    case NC_UINT:   base = le ? H5T_STD_U32LE : be ? H5T_STD_U32BE : H5T_NATIVE_UINT; break;
    case NC_INT64:  base = le ? H5T_STD_I64LE : be ? H5T_STD_I64BE : H5T_NATIVE_LLONG; break;
    case NC_UINT64: base = le ? H5T_STD_U64LE : be ? H5T_STD_U64BE : H5T_NATIVE_ULLONG; break;
    case NC_FLOAT:  base = le ? H5T_IEEE_F32LE : be ? H5T_IEEE_F32BE : H5T_NATIVE_FLOAT; break;
    case NC_DOUBLE: base = le ? H5T_IEEE_F64LE : be ? H5T_IEEE_F64BE : H5T_NATIVE_DOUBLE; break;
    case NC_CHAR:
    case NC_STRING:
        if ((tid = H5Tcopy(H5T_C_S1)) < 0)
            return NC_EHDFERR;
        if (H5Tset_strpad(tid, H5T_STR_NULLTERM) < 0 ||
            H5Tset_cset(tid, xtype == NC_STRING ? H5T_CSET_UTF8 : H5T_CSET_ASCII) < 0 ||
            (xtype == NC_STRING && H5Tset_size(tid, H5T_VARIABLE) < 0)) {
            H5Tclose(tid);
            return NC_EHDFERR;
        }
        *tidp = tid;
        return NC_NOERR;
    default:
        return NC_EBADTYPE;
    }
    if ((tid = H5Tcopy(base)) < 0)
        return NC_EHDFERR;
    *tidp = tid;
    return NC_NOERR;
}

/* Store v as one native integer of type base at val. */
static int
store_enum_value(nc_type base, long long v, void *val)
{
    switch (base) {
    case NC_BYTE:   *(signed char *)val = (signed char)v; break;
    case NC_UBYTE:  *(unsigned char *)val = (unsigned char)v; break;
    case NC_SHORT:  *(short *)val = (short)v; break;
    case NC_USHORT: *(unsigned short *)val = (unsigned short)v; break;
    case NC_INT:    *(int *)val = (int)v; break;
    case NC_UINT:   *(unsigned int *)val = (unsigned int)v; break;
    case NC_INT64:  *(long long *)val = v; break;
    case NC_UINT64: *(unsigned long long *)val = (unsigned long long)v; break;
    default:        return NC_EBADTYPE;
    }
    return NC_NOERR;
}

/* Build (not commit) the HDF5 type of user type t from the model. */
static int
build_user_type(NC4_file *f, NC4_type *t, int file, hid_t *tidp)
{
    hid_t tid = -1, sub = -1, arr = -1;
    int stat = NC_NOERR;

    switch (t->tclass) {
    case NC_COMPOUND:
        if (t->size == 0)
            return NC_EBADTYPE;
        if ((tid = H5Tcreate(H5T_COMPOUND, t->size)) < 0)
            return NC_EHDFERR;
        for (size_t i = 0; i < t->fields.n; i++) {
            NC4_field *fl = (NC4_field *)t->fields.items[i];
            if ((stat = nc4h5_hdf5_type(f, fl->xtype, t->endianness, file, &sub)))
                goto done;
            if (fl->ndims > 0) {
                hsize_t dims[NC_MAX_VAR_DIMS];
                if (fl->ndims > NC_MAX_VAR_DIMS) {
                    stat = NC_EBADTYPE;
                    goto done;
                }
                for (int d = 0; d < fl->ndims; d++)
                    dims[d] = (hsize_t)fl->dimsizes[d];
                if ((arr = H5Tarray_create2(sub, (unsigned)fl->ndims, dims)) < 0) {
                    stat = NC_EHDFERR;
                    goto done;
                }
                H5Tclose(sub);
                sub = arr;
                arr = -1;
            }
            if (H5Tinsert(tid, fl->hdr.name, fl->offset, sub) < 0) {
                stat = NC_EHDFERR;
                goto done;
            }
            H5Tclose(sub);
            sub = -1;
        }
        break;
    case NC_VLEN:
        if ((stat = nc4h5_hdf5_type(f, t->base, t->endianness, file, &sub)))
            goto done;
        if ((tid = H5Tvlen_create(sub)) < 0)
            stat = NC_EHDFERR;
        break;
    case NC_OPAQUE:
        if (t->size == 0)
            return NC_EBADTYPE;
        if ((tid = H5Tcreate(H5T_OPAQUE, t->size)) < 0)
            stat = NC_EHDFERR;
        break;
    case NC_ENUM: {
        /* Values are given to HDF5 in the native base type; user types are
         * always stored in native order. */
        long long val[1]; /* aligned room for any integer base */
        /* HDF5 cannot store an enum without members: upstream's NC_EINVAL. */
        if (t->members.n == 0)
            return NC_EINVAL;
        if ((stat = atomic_type(t->base, NC_ENDIAN_NATIVE, 0, &sub)))
            goto done;
        if ((tid = H5Tenum_create(sub)) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        for (size_t i = 0; i < t->members.n; i++) {
            NC4_member *m = (NC4_member *)t->members.items[i];
            long long v = m->value;
            if ((stat = store_enum_value(t->base, v, val)))
                goto done;
            if (H5Tenum_insert(tid, m->hdr.name, val) < 0) {
                stat = NC_EHDFERR;
                goto done;
            }
        }
        break;
    }
    default:
        stat = NC_EBADTYPE;
    }
done:
    if (sub >= 0)
        H5Tclose(sub);
    if (arr >= 0)
        H5Tclose(arr);
    if (stat) {
        if (tid >= 0)
            H5Tclose(tid);
        return stat;
    }
    if (tid < 0)
        return NC_EHDFERR;
    *tidp = tid;
    return NC_NOERR;
}

int
nc4h5_hdf5_type(NC4_file *f, nc_type xtype, int endianness, int file, hid_t *tidp)
{
    NC4_type *t = NULL;
    NC4H5_type *ht;
    int stat;

    if (xtype <= NC_STRING)
        return atomic_type(xtype, endianness, file, tidp);
    if ((stat = nc4_find_type(f, xtype, &t)))
        return stat;
    if (t == NULL)
        return NC_EBADTYPE;
    ht = (NC4H5_type *)t->fmt;
    /* Datasets and attributes get a transient copy of a committed type, so
     * they carry the type in their own header as upstream's do (h5dump shows
     * H5T_COMPOUND {...}, not "/name"). */
    if (file && ht != NULL && ht->ftid >= 0) {
        hid_t t2 = H5Tcopy(ht->ftid);
        if (t2 < 0)
            return NC_EHDFERR;
        *tidp = t2;
        return NC_NOERR;
    }
    if (!file && ht != NULL && ht->mtid >= 0) {
        if (H5Iinc_ref(ht->mtid) < 0)
            return NC_EHDFERR;
        *tidp = ht->mtid;
        return NC_NOERR;
    }
    if ((stat = build_user_type(f, t, file, tidp)))
        return stat;
    /* A committed type no longer changes: keep its memory type. */
    if (!file && t->committed && (ht = type_fmt(t)) != NULL) {
        if (H5Iinc_ref(*tidp) >= 0)
            ht->mtid = *tidp;
    }
    return NC_NOERR;
}

/* NC_ENDIAN_LITTLE or NC_ENDIAN_BIG for tid's byte order; NC_ENDIAN_NATIVE
 * when it is neither (VAX or mixed order: not a netCDF type). */
static int
order_endianness(hid_t tid)
{
    switch (H5Tget_order(tid)) {
    case H5T_ORDER_LE: return NC_ENDIAN_LITTLE;
    case H5T_ORDER_BE: return NC_ENDIAN_BIG;
    default: return NC_ENDIAN_NATIVE;
    }
}

/* netCDF type of an integer or float type laid out exactly like a C type
 * (full precision, no offset or padding; IEEE single/double fields), which
 * is what H5Tget_native_type maps to it; NC_NAT for anything else. */
static nc_type
plain_atomic(hid_t tid, H5T_class_t cls)
{
    size_t size = H5Tget_size(tid), spos, epos, esize, mpos, msize;

    if ((cls != H5T_INTEGER && cls != H5T_FLOAT) || H5Tget_offset(tid) != 0 ||
        H5Tget_precision(tid) != 8 * size)
        return NC_NAT;
    if (cls == H5T_INTEGER) {
        H5T_sign_t sg = H5Tget_sign(tid);
        int sgn;
        if (sg != H5T_SGN_2 && sg != H5T_SGN_NONE)
            return NC_NAT;
        sgn = sg == H5T_SGN_2;
        switch (size) {
        case 1: return sgn ? NC_BYTE : NC_UBYTE;
        case 2: return sgn ? NC_SHORT : NC_USHORT;
        case 4: return sgn ? NC_INT : NC_UINT;
        case 8: return sgn ? NC_INT64 : NC_UINT64;
        default: return NC_NAT;
        }
    }
    if (H5Tget_fields(tid, &spos, &epos, &esize, &mpos, &msize) < 0 ||
        H5Tget_norm(tid) != H5T_NORM_IMPLIED || mpos != 0)
        return NC_NAT;
    if (size == 4 && spos == 31 && epos == 23 && esize == 8 && msize == 23 &&
        H5Tget_ebias(tid) == 127)
        return NC_FLOAT;
    if (size == 8 && spos == 63 && epos == 52 && esize == 11 && msize == 52 &&
        H5Tget_ebias(tid) == 1023)
        return NC_DOUBLE;
    return NC_NAT;
}

int
nc4h5_atomic_from_hdf5(hid_t tid, nc_type *xtypep, int *endiannessp)
{
    H5T_class_t cls = H5Tget_class(tid);
    int endianness = NC_ENDIAN_NATIVE;
    nc_type xtype = NC_NAT;
    size_t size;

    if (cls == H5T_STRING) {
        htri_t var = H5Tis_variable_str(tid);
        if (var < 0)
            return NC_EHDFERR;
        /* Fixed-size strings of more than one byte read as strings (upstream). */
        xtype = (var || H5Tget_size(tid) > 1) ? NC_STRING : NC_CHAR;
    } else if ((xtype = plain_atomic(tid, cls)) != NC_NAT) {
        /* The common case, told without building HDF5's native type. */
        if ((endianness = order_endianness(tid)) == NC_ENDIAN_NATIVE)
            return NC_EBADTYPE;
    } else if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        hid_t native = H5Tget_native_type(tid, H5T_DIR_DEFAULT);
        if (native < 0)
            return NC_EHDFERR;
        size = H5Tget_size(native);
        if (cls == H5T_INTEGER) {
            int sgn = H5Tget_sign(native) == H5T_SGN_2;
            switch (size) {
            case 1: xtype = sgn ? NC_BYTE : NC_UBYTE; break;
            case 2: xtype = sgn ? NC_SHORT : NC_USHORT; break;
            case 4: xtype = sgn ? NC_INT : NC_UINT; break;
            case 8: xtype = sgn ? NC_INT64 : NC_UINT64; break;
            default: break;
            }
        } else if (H5Tequal(native, H5T_NATIVE_FLOAT) > 0) {
            xtype = NC_FLOAT;
        } else if (H5Tequal(native, H5T_NATIVE_DOUBLE) > 0) {
            xtype = NC_DOUBLE;
        }
        H5Tclose(native);
        if (xtype == NC_NAT)
            return NC_EBADTYPE;
        if ((endianness = order_endianness(tid)) == NC_ENDIAN_NATIVE)
            return NC_EBADTYPE;
    } else {
        return NC_EBADTYPE;
    }
    if (xtypep)
        *xtypep = xtype;
    if (endiannessp)
        *endiannessp = endianness;
    return NC_NOERR;
}

int
nc4h5_find_type_for(NC4_file *f, NC4_grp *g, hid_t tid, nc_type *xtypep)
{
    H5T_class_t cls;
    hid_t native;
    int stat = NC_EBADTYPE;

    (void)g;
    if ((cls = H5Tget_class(tid)) < 0)
        return NC_EHDFERR;
    if (cls == H5T_STRING || cls == H5T_INTEGER || cls == H5T_FLOAT)
        return nc4h5_atomic_from_hdf5(tid, xtypep, NULL);
    if (cls != H5T_COMPOUND && cls != H5T_VLEN && cls != H5T_ENUM && cls != H5T_OPAQUE)
        return NC_EBADTYPE;
    /* A user type is one of the committed types read before, found by
     * structure; uncommitted compounds etc. are not netCDF types (upstream
     * skips such datasets and attributes). */
    if ((native = H5Tget_native_type(tid, H5T_DIR_DEFAULT)) < 0)
        return NC_EHDFERR;
    for (size_t i = 0; i < f->ntypes; i++) {
        NC4_type *t = f->types[i];
        NC4H5_type *ht = (NC4H5_type *)t->fmt;
        hid_t mt = -1;
        htri_t eq;
        if (ht != NULL && ht->mtid >= 0) {
            mt = ht->mtid;
            if (H5Iinc_ref(mt) < 0)
                continue;
        } else if (nc4h5_hdf5_type(f, t->hdr.id, NC_ENDIAN_NATIVE, 0, &mt)) {
            continue;
        }
        eq = H5Tequal(native, mt);
        H5Tclose(mt);
        if (eq > 0) {
            *xtypep = t->hdr.id;
            stat = NC_NOERR;
            break;
        }
    }
    H5Tclose(native);
    return stat;
}

/* The enum member value at val (native integer of base) as long long. */
static long long
enum_value(nc_type base, const void *val)
{
    switch (base) {
    case NC_BYTE:   return *(const signed char *)val;
    case NC_UBYTE:  return *(const unsigned char *)val;
    case NC_SHORT:  return *(const short *)val;
    case NC_USHORT: return *(const unsigned short *)val;
    case NC_INT:    return *(const int *)val;
    case NC_UINT:   return *(const unsigned int *)val;
    case NC_INT64:  return *(const long long *)val;
    case NC_UINT64: return (long long)*(const unsigned long long *)val;
    default:        return 0;
    }
}

/* Read the fields of compound native type nt into t. */
static int
read_fields(NC4_file *f, NC4_grp *g, NC4_type *t, hid_t nt)
{
    int n = H5Tget_nmembers(nt);
    int stat = NC_NOERR;

    if (n < 0)
        return NC_EHDFERR;
    for (int m = 0; m < n && !stat; m++) {
        char *name = H5Tget_member_name(nt, (unsigned)m);
        hid_t mt = H5Tget_member_type(nt, (unsigned)m);
        size_t off = H5Tget_member_offset(nt, (unsigned)m);
        int dimsizes[NC_MAX_VAR_DIMS];
        int ndims = 0;
        nc_type xt = NC_NAT;

        if (name == NULL || mt < 0)
            stat = NC_EHDFERR;
        else if (strlen(name) > NC_MAX_NAME)
            stat = NC_EBADNAME;
        else if (H5Tget_class(mt) == H5T_ARRAY) {
            hsize_t dims[H5S_MAX_RANK];
            hid_t super;
            ndims = H5Tget_array_ndims(mt);
            if (ndims <= 0 || ndims > NC_MAX_VAR_DIMS || ndims > H5S_MAX_RANK ||
                H5Tget_array_dims2(mt, dims) != ndims) {
                stat = NC_EBADTYPE;
            } else {
                for (int d = 0; d < ndims && !stat; d++) {
                    if (dims[d] > (hsize_t)NC_MAX_INT)
                        stat = NC_EBADTYPE;
                    dimsizes[d] = (int)dims[d];
                }
                if (!stat) {
                    if ((super = H5Tget_super(mt)) < 0)
                        stat = NC_EHDFERR;
                    else {
                        stat = nc4h5_find_type_for(f, g, super, &xt);
                        H5Tclose(super);
                    }
                }
            }
        } else {
            stat = nc4h5_find_type_for(f, g, mt, &xt);
        }
        if (!stat)
            stat = nc4_new_field(t, name, off, xt, ndims, ndims ? dimsizes : NULL);
        if (mt >= 0)
            H5Tclose(mt);
        if (name)
            H5free_memory(name);
    }
    return stat;
}

/* Read the members of enum type tid (native nt, base xtype) into t. */
static int
read_members(NC4_type *t, hid_t nt)
{
    int n = H5Tget_nmembers(nt);
    long long val[2]; /* aligned room for any integer base */
    int stat = NC_NOERR;

    if (n < 0)
        return NC_EHDFERR;
    if (H5Tget_size(nt) > sizeof(val))
        return NC_EBADTYPE;
    for (int m = 0; m < n && !stat; m++) {
        char *name = H5Tget_member_name(nt, (unsigned)m);
        memset(val, 0, sizeof(val));
        if (name == NULL)
            return NC_EHDFERR;
        if (strlen(name) > NC_MAX_NAME)
            stat = NC_EBADNAME;
        else if (H5Tget_member_value(nt, (unsigned)m, val) < 0)
            stat = NC_EHDFERR;
        else
            stat = nc4_new_member(t, name, enum_value(t->base, val));
        H5free_memory(name);
    }
    return stat;
}

int
nc4h5_read_type(NC4_file *f, NC4_grp *g, const char *name, hid_t tid)
{
    H5T_class_t cls;
    hid_t nt = -1, super = -1;
    NC4_type *t = NULL;
    NC4H5_type *ht;
    nc_type base = NC_NAT;
    int tclass, endianness = NC_ENDIAN_NATIVE;
    size_t size;
    int stat = NC_NOERR;

    if ((cls = H5Tget_class(tid)) < 0)
        return NC_EHDFERR;
    switch (cls) {
    case H5T_COMPOUND: tclass = NC_COMPOUND; break;
    case H5T_OPAQUE:   tclass = NC_OPAQUE; break;
    case H5T_ENUM:     tclass = NC_ENUM; break;
    case H5T_VLEN:
        if (H5Tis_variable_str(tid) > 0)
            return NC_EBADTYPE;
        tclass = NC_VLEN;
        break;
    default:
        /* Named atomic/string/reference types are no netCDF user type. */
        return NC_EBADTYPE;
    }
    if ((nt = H5Tget_native_type(tid, H5T_DIR_DEFAULT)) < 0)
        return NC_EHDFERR;
    if ((size = H5Tget_size(nt)) == 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    if (tclass == NC_VLEN || tclass == NC_ENUM) {
        if ((super = H5Tget_super(nt)) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        if ((stat = nc4h5_find_type_for(f, g, super, &base)))
            goto done;
        if (tclass == NC_ENUM) {
            hid_t fsuper = H5Tget_super(tid);
            if (base < NC_BYTE || base > NC_UINT64 || base == NC_CHAR ||
                base == NC_FLOAT || base == NC_DOUBLE) {
                if (fsuper >= 0)
                    H5Tclose(fsuper);
                stat = NC_EBADTYPE;
                goto done;
            }
            if (fsuper >= 0) {
                H5T_order_t o = H5Tget_order(fsuper);
                endianness = o == H5T_ORDER_BE ? NC_ENDIAN_BIG : NC_ENDIAN_LITTLE;
                H5Tclose(fsuper);
            }
        }
        if (tclass == NC_VLEN)
            size = sizeof(nc_vlen_t);
    }
    if ((stat = nc4_new_type(g, name, tclass, size, base, &t)))
        goto done;
    if ((t->hdr.stored_name = strdup(name)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    t->committed = 1;
    t->endianness = endianness;
    if ((ht = type_fmt(t)) == NULL) {
        stat = NC_ENOMEM;
        goto done;
    }
    if (H5Iinc_ref(tid) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    ht->ftid = tid;
    ht->mtid = nt;
    nt = -1;
    if (tclass == NC_COMPOUND)
        stat = read_fields(f, g, t, ht->mtid);
    else if (tclass == NC_ENUM)
        stat = read_members(t, ht->mtid);
done:
    if (super >= 0)
        H5Tclose(super);
    if (nt >= 0)
        H5Tclose(nt);
    return stat;
}

int
nc4h5_commit_type(NC4_file *f, NC4_type *t)
{
    NC4H5_type *ht;
    NC4H5_grp *hg = (NC4H5_grp *)t->grp->fmt;
    NC4_type *sub;
    hid_t tid = -1;
    int stat = NC_NOERR;

    if (t->committed && t->fmt && ((NC4H5_type *)t->fmt)->ftid >= 0)
        return NC_NOERR;
    if (hg == NULL || hg->gid < 0)
        return NC_EHDFERR;
    /* The user types t is made of are committed first. */
    if (t->tclass == NC_COMPOUND) {
        for (size_t i = 0; i < t->fields.n; i++) {
            NC4_field *fl = (NC4_field *)t->fields.items[i];
            if (fl->xtype > NC_STRING) {
                if ((stat = nc4_find_type(f, fl->xtype, &sub)))
                    return stat;
                if (sub && (stat = nc4h5_commit_type(f, sub)))
                    return stat;
            }
        }
    } else if (t->tclass == NC_VLEN && t->base > NC_STRING) {
        if ((stat = nc4_find_type(f, t->base, &sub)))
            return stat;
        if (sub && (stat = nc4h5_commit_type(f, sub)))
            return stat;
    }
    if ((ht = type_fmt(t)) == NULL)
        return NC_ENOMEM;
    nc4h5_lock();
    if ((stat = build_user_type(f, t, 1, &tid)))
        goto done;
    if (H5Tcommit2(hg->gid, t->hdr.name, tid, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    ht->ftid = tid;
    tid = -1;
    t->committed = 1;
    if (t->hdr.stored_name == NULL || strcmp(t->hdr.stored_name, t->hdr.name)) {
        char *s = strdup(t->hdr.name);
        if (s == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        free(t->hdr.stored_name);
        t->hdr.stored_name = s;
    }
done:
    if (tid >= 0)
        H5Tclose(tid);
    nc4h5_unlock();
    return stat;
}
