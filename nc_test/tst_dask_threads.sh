#!/bin/sh
# tst_dask_threads.sh LIBDIR: run tst_dask_threads.py (xarray + dask threads,
# lock=False) with netCDF4-python on our library.  Skips (77) without
# python3-netcdf4, xarray or dask (python3-dask), or on a sanitizer build
# (Python does not run under a sanitizer runtime loaded behind its back).
set -u
libdir=$1
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
$py -c "import netCDF4, xarray, dask" 2>/dev/null || { echo "python3-netcdf4, xarray or dask missing"; exit 77; }
if ldd "$libdir/libnetcdf.so.22" | grep -q 'lib[at]san'; then
    echo "library built with sanitizers: skipped"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib"
# Upstream 4.9 clients look for libnetcdf.so.19: point that name at ours.
ln -s "$libdir/libnetcdf.so.22" "$work/lib/libnetcdf.so.19"
LD_LIBRARY_PATH=$work/lib $py "$here/tst_dask_threads.py" "$work"
