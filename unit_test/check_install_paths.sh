#!/bin/sh
# check_install_paths.sh BUILD_DIR SOURCE_DIR: install one build into two
# different prefixes (as `cmake --install --prefix P` in run.sh does) and
# check, for each, that every path the installation describes itself with
# names a directory or file that exists under that prefix: nc-config --all
# (prefix, includedir, libdir, plugindir, the -I of --cflags, the -L of
# --libs), netcdf.pc's variables, netCDFConfig.cmake's variables and
# imported target, and libnetcdf.settings' install prefix.  The plugin
# directory must hold the installed plugins when plugins are built.
set -u
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
check() {   # check DESCRIPTION PATH PREFIX: PATH exists and lies under PREFIX
    case "$2" in
    "$3"|"$3"/*) if [ -e "$2" ]; then pass=$((pass + 1)); return; fi ;;
    esac
    fail=$((fail + 1))
    echo "FAILED: $1: '$2' is not an existing path under $3"
}

for name in one two; do
    prefix=$work/$name/prefix
    if ! cmake --install "$build" --prefix "$prefix" > "$work/$name.install.log" 2>&1; then
        fail=$((fail + 1)); echo "FAILED: cmake --install --prefix $prefix"; continue
    fi
    prefix=$(cd "$prefix" && pwd -P)
    ncc="$prefix/bin/nc-config"
    for opt in prefix includedir libdir plugindir; do
        check "nc-config --$opt" "$("$ncc" --$opt)" "$prefix"
    done
    # the same values as printed by --all
    "$ncc" --all > "$work/all.txt"
    for opt in prefix includedir libdir plugindir; do
        v=$(sed -n "s|^  --$opt *-> ||p" "$work/all.txt")
        check "nc-config --all --$opt" "$v" "$prefix"
    done
    check "nc-config --cflags" "$("$ncc" --cflags | sed -n 's|^-I\([^ ]*\).*|\1|p')" "$prefix"
    check "nc-config --libs" "$("$ncc" --libs | sed -n 's|^-L\([^ ]*\).*|\1|p')" "$prefix"
    check "nc-config --libs: libnetcdf.so" "$("$ncc" --libdir)/libnetcdf.so" "$prefix"
    check "nc-config --includedir: netcdf.h" "$("$ncc" --includedir)/netcdf.h" "$prefix"
    if [ "$("$ncc" --has-nc4)" = yes ] || [ "$("$ncc" --has-nczarr)" = yes ]; then
        if ls "$("$ncc" --plugindir)"/lib__nc*.so > /dev/null 2>&1; then pass=$((pass + 1))
        else fail=$((fail + 1)); echo "FAILED: no plugins in $("$ncc" --plugindir)"; fi
    fi

    pcdir=$(ls -d "$prefix"/lib*/pkgconfig | head -1)
    for var in prefix exec_prefix libdir includedir; do
        v=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=$var netcdf)
        v=$(cd "$v" 2>/dev/null && pwd -P || echo "$v")
        check "netcdf.pc $var" "$v" "$prefix"
    done

    settings=$(ls "$prefix"/lib*/libnetcdf.settings | head -1)
    check "libnetcdf.settings Install Prefix" "$(sed -n 's|^Install Prefix: *||p' "$settings")" "$prefix"

    if cmake -S "$src/consumer" -B "$work/$name.cm" -DCMAKE_PREFIX_PATH="$prefix" > "$work/$name.cm.log" 2>&1; then
        for v in netCDF_INSTALL_PREFIX netCDF_INCLUDE_DIR netCDF_LIB_DIR target-location target-include; do
            # a list (the include directories) is checked entry by entry
            for p in $(sed -n "s|^-- nc-path $v=||p" "$work/$name.cm.log" | tr ';' ' '); do
                p=$( (cd "$(dirname "$p")" 2>/dev/null && echo "$(pwd -P)/$(basename "$p")") || echo "$p")
                check "netCDFConfig.cmake $v" "$p" "$prefix"
            done
        done
    else
        fail=$((fail + 1)); echo "FAILED: find_package(netCDF) with $prefix"
    fi
done

echo "install paths: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
