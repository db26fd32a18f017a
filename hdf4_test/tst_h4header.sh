#!/bin/sh
# tst_h4header.sh BUILDDIR: no object of the build was compiled against a
# system netCDF header.  The HDF4 tests' packages may bring Debian's
# libnetcdf19 (and a system could have libnetcdf-dev, whose
# /usr/include/netcdf.h is upstream 4.9.0's): every compiler dependency
# file (*.o.d, written beside each object) must name our include/netcdf.h
# and none under /usr/include or /usr/local/include.
set -u
B=$1
list=$(find "$B" -name '*.o.d' 2>/dev/null)
[ -n "$list" ] || { echo "SKIP: no dependency files (not a Makefile build)"; exit 77; }
n=$(echo "$list" | wc -l)
bad=$(echo "$list" | xargs grep -l -E '/usr(/local)?/include/netcdf[a-z_]*\.h' 2>/dev/null)
if [ -n "$bad" ]; then
    echo "compiled against a system netCDF header:"
    echo "$bad" | head
    exit 1
fi
# ours is what the HDF4 layer and the library's front door include
for o in libhdf4/hdf4file.c libhdf4/hdf4dispatch.c libdispatch/dfile.c; do
    d=$(echo "$list" | grep "/$o.o.d\$" | head -1)
    [ -n "$d" ] || { echo "no dependency file for $o"; exit 1; }
    grep -q 'include/netcdf\.h' "$d" || { echo "$o: our netcdf.h not among its headers"; exit 1; }
done
[ -f /usr/include/netcdf.h ] && sys="present" || sys="absent"
echo "$n objects, none compiled against a system netCDF header ($sys here: /usr/include/netcdf.h)"
