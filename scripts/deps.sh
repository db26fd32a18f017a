#!/bin/sh
# deps.sh [--test] [--parallel]: install the Debian packages the build
# (with --test, the test suite; with --parallel, the parallel variant:
# Open MPI, parallel HDF5, PnetCDF, and upstream's MPI builds as the parallel
# tests' reference) needs, if any are missing.  Runs apt-get only when
# something is missing; uses sudo when not root.  The serial build keeps
# the serial HDF5 (it asks pkg-config for hdf5-serial by name).
set -e
test=0
parallel=0
for a in "$@"; do
    case "$a" in
        --test) test=1 ;;
        --parallel) parallel=1 ;;
        *) echo "deps.sh: unknown option $a" >&2; exit 2 ;;
    esac
done
need="cmake make gcc pkg-config libutf8proc-dev libhdf5-dev libaec-dev zlib1g-dev libdeflate-dev libisal-dev libzstd-dev libbz2-dev libblosc-dev libjson-c-dev libzip-dev libcurl4-openssl-dev libxml2-dev libssl-dev"
if [ "$parallel" = 1 ]; then
    need="$need libopenmpi-dev openmpi-bin libhdf5-openmpi-dev libpnetcdf-dev libnetcdf-mpi-19 libnetcdf-pnetcdf-19"
fi
if [ "$test" = 1 ]; then
    # The reference tools and library are the oracle of the interop tests;
    # dpkg-dev gives dpkg-architecture for the reference prefix; hdf4-tools
    # (hdp, ncgen-hdf, hrepack), libhdf4-0-alt (the SD library, without its
    # netCDF-2 API) and GDAL (gdal-bin, python3-gdal: the HDF4Image driver)
    # write and check the HDF4 tests' files; none pulls libnetcdf-dev.
    need="$need netcdf-bin libnetcdf19 dpkg-dev valgrind python3-netcdf4 python3-xarray python3-dask nco hdf5-tools python3-h5py hdf5-filter-plugin hdf5-filter-plugin-blosc-serial python3-zarr python3-fsspec hdf4-tools libhdf4-0-alt gdal-bin python3-gdal"
fi
# node and npm (the Zarr tests' local S3 server and zarrita): Debian's
# packages only when no npm is on PATH (NodeSource's nodejs bundles npm and
# conflicts with Debian's npm package).
if [ "$test" = 1 ] && ! command -v npm >/dev/null 2>&1; then
    need="$need nodejs npm"
fi
missing=""
for p in $need; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
