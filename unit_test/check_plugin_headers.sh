#!/bin/sh
# check_plugin_headers.sh BUILD_DIR SOURCE_DIR [CFLAGS]: install the build
# into a scratch prefix; build plugin_headers/plugin.c as a shared library
# from the installed netcdf_json.h, netcdf_proplist.h and netcdf_vutils.h
# alone (warning-free, and without any undefined NCJ* or ncplist* symbol:
# a plugin gets its own copies); build plugin_headers/host.c against the
# installed library; the host loads the plugin, passes it a property list
# made with libnetcdf's exported functions and checks what it computes.
set -u
build=$1
src=$2
cflags=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail=0
cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 || { echo "FAILED: cmake --install"; exit 1; }
libdir=$(ls -d "$prefix"/lib*/ | head -1)
for h in netcdf_json.h netcdf_proplist.h netcdf_vutils.h; do
    [ -f "$prefix/include/$h" ] || { echo "FAILED: $h not installed"; fail=1; }
done
# shellcheck disable=SC2086
if ! cc -std=c11 -Wall -Wextra -Werror $cflags -fPIC -shared -I"$prefix/include" \
        -o "$work/plugin.so" "$src/plugin_headers/plugin.c" 2> "$work/plugin.err"; then
    echo "FAILED: the plugin does not build from the installed headers"; cat "$work/plugin.err"; exit 1
fi
if nm -D --undefined-only "$work/plugin.so" | grep -E ' (NCJ|ncplist|vlist|vs)[a-z]' ; then
    echo "FAILED: the plugin needs the functions above from elsewhere"; fail=1
fi
# shellcheck disable=SC2086
if ! cc -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra $cflags -I"$prefix/include" -o "$work/host" \
        "$src/plugin_headers/host.c" -L"$libdir" -lnetcdf -ldl 2> "$work/host.err"; then
    echo "FAILED: the host does not build"; cat "$work/host.err"; exit 1
fi
LD_LIBRARY_PATH=$libdir "$work/host" "$work/plugin.so" || fail=1
[ "$fail" -eq 0 ] && echo "plugin headers: passed" || echo "plugin headers: FAILED"
[ "$fail" -eq 0 ]
