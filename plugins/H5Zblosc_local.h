/* H5Zblosc_local.h: blosc's HDF5 set_local, as the HDF5 blosc plugin
 * computes it: slots 0-1 zero, 2 the (base) type size (1 above 255), 3 the
 * chunk bytes; the user's level, shuffle and compressor (4-6) kept, the
 * defaults (level 5, byte shuffle, blosclz) where left out.
 *
 * One definition for the two places that hand blosc to HDF5: the h5blosc
 * plugin (plugins/H5Zncf.c), which must load into any HDF5 program and so
 * links no libnetcdf, and libnetcdf's own registration (libhdf5/hdf5var.c).
 * Hence a header each includes after hdf5.h and ncfilter.h (whose
 * ncf_blosc_params both have: libfilter/ncf_blosc.c is in both). */
#ifndef H5ZBLOSC_LOCAL_H
#define H5ZBLOSC_LOCAL_H

#define NCF_H5_BLOSC_ID 32001

static herr_t
ncf_h5_blosc_set_local(hid_t dcpl, hid_t type, hid_t space)
{
    unsigned flags = 0, values[7] = {0, 0, 0, 0, 5, 1, 0};
    size_t n = 7, typesize, base, chunkbytes;
    hsize_t dims[H5S_MAX_RANK];
    int ndims;
    (void)space;
    if (H5Pget_filter_by_id2(dcpl, NCF_H5_BLOSC_ID, &flags, &n, values, 0, NULL, NULL) < 0)
        return -1;
    if ((ndims = H5Pget_chunk(dcpl, H5S_MAX_RANK, dims)) < 0 || ndims > H5S_MAX_RANK)
        return -1;
    if ((typesize = H5Tget_size(type)) == 0)
        return -1;
    base = typesize;
    if (H5Tget_class(type) == H5T_ARRAY) {
        hid_t super = H5Tget_super(type);
        if (super < 0)
            return -1;
        base = H5Tget_size(super);
        H5Tclose(super);
    }
    chunkbytes = typesize;
    for (int i = 0; i < ndims; i++)
        chunkbytes *= (size_t)dims[i];
    ncf_blosc_params(base, chunkbytes, values);
    if (H5Pmodify_filter(dcpl, NCF_H5_BLOSC_ID, flags, 7, values) < 0)
        return -1;
    return 1;
}

#endif /* H5ZBLOSC_LOCAL_H */
