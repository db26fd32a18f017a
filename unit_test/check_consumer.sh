#!/bin/sh
# check_consumer.sh BUILD_DIR SOURCE_DIR [CFLAGS]: install the build into a scratch
# prefix, then build a small client three ways — find_package(netCDF),
# pkg-config netcdf, and nc-config --cflags/--libs — and run each.  CFLAGS
# (e.g. the sanitizer flags of the build) are used for the clients too.
set -u
build=$1
src=$2
cflags=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
pass=0
fail=0
result() {
    if [ "$1" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $2"; fi
}
cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1
result $? "cmake --install"
libdir=$(ls -d "$prefix"/lib*/ | head -1)

# 1. find_package(netCDF)
cmake -S "$src/consumer" -B "$work/cm" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$cflags" > "$work/cm.log" 2>&1 &&
    cmake --build "$work/cm" > "$work/cmb.log" 2>&1 &&
    LD_LIBRARY_PATH=$libdir "$work/cm/consumer"
result $? "find_package(netCDF) client"

# 2. pkg-config netcdf
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
cc $cflags -o "$work/pc" "$src/consumer/consumer.c" $(pkg-config --cflags netcdf) $(pkg-config --libs netcdf) &&
    LD_LIBRARY_PATH=$libdir "$work/pc"
result $? "pkg-config client"

# 3. nc-config
cc $cflags -o "$work/ncc" "$src/consumer/consumer.c" $("$prefix/bin/nc-config" --cflags) $("$prefix/bin/nc-config" --libs) &&
    LD_LIBRARY_PATH=$libdir "$work/ncc"
result $? "nc-config client"

# 4. nc-config --static / pkg-config --static: every library named exists
# (linked here beside the shared library; no static libnetcdf is installed).
cc $cflags -o "$work/st" "$src/consumer/consumer.c" $("$prefix/bin/nc-config" --cflags) $("$prefix/bin/nc-config" --libs) \
    $("$prefix/bin/nc-config" --static) $(pkg-config --static --libs-only-l netcdf) &&
    LD_LIBRARY_PATH=$libdir "$work/st"
result $? "nc-config --static and pkg-config --static libraries resolve"

# The installed library carries upstream's SONAME.
soname=$(objdump -p "$libdir/libnetcdf.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "libnetcdf.so.22" ]
result $? "SONAME is libnetcdf.so.22 (got $soname)"
[ "$("$prefix/bin/nc-config" --version)" = "netCDF 4.10.1" ]
result $? "nc-config --version"

echo "consumer: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
