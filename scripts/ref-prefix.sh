#!/bin/sh
# ref-prefix.sh [DIR]: make an isolated prefix of the reference library
# (Debian's upstream netCDF-C) for the interop tests: its headers unpacked
# from the libnetcdf-dev package into DIR/include -- never into /usr/include,
# where they would shadow ours -- plus links to its runtime library and
# tools.  Prints DIR.  Default DIR: ${TMPDIR:-/tmp}/netcdf-ref.
set -e
dir=${1:-${TMPDIR:-/tmp}/netcdf-ref}
if [ -f "$dir/.ok" ]; then echo "$dir"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -qq libnetcdf-dev >/dev/null 2>&1)
dpkg -x "$work"/libnetcdf-dev_*.deb "$work/x"
rm -rf "$dir"
mkdir -p "$dir/include" "$dir/lib" "$dir/bin"
cp "$work"/x/usr/include/netcdf*.h "$dir/include/"
multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
so=$(ls /usr/lib/"$multi"/libnetcdf.so.19* | head -1)
ln -sf "$so" "$dir/lib/libnetcdf.so"
ln -sf "$so" "$dir/lib/libnetcdf.so.19"
for t in ncdump ncgen nccopy; do
    [ -e /usr/bin/$t ] && ln -sf /usr/bin/$t "$dir/bin/$t"
done
touch "$dir/.ok"
echo "$dir"
