#!/bin/sh
# run_filterspec.sh OURS_BIN SOURCE SPECFILE REFPREFIX: the filter-spec
# parser (ncaux_h5filterspec_*) line by line, ours against the reference
# library (tst_filterspec.c compiled against each, separate processes).
# Lines marked '~' may differ (ours refuses what the reference silently
# truncates, or the reference crashes); ours must never crash.  Exit 77
# without the reference prefix (scripts/ref-prefix.sh).
ours=$1 src=$2 specs=$3 ref=$4
[ -f "$ref/include/netcdf_aux.h" ] && [ -e "$ref/lib/libnetcdf.so" ] || exit 77
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cc -o "$tmp/fs_ref" "$src" -I"$ref/include" -L"$ref/lib" -lnetcdf -Wl,-rpath,"$ref/lib" || exit 77
fail=0 pass=0
while IFS= read -r line; do
    case "$line" in '#'*|'') continue ;; esac
    printf '%s\n' "$line" > "$tmp/one"
    o=$("$ours" "$tmp/one" 2>&1); orc=$?
    if [ $orc -ne 0 ]; then
        echo "FAIL ours exit $orc on: $line: $o"; fail=$((fail + 1)); continue
    fi
    case "$line" in '~'*) pass=$((pass + 1)); continue ;; esac
    r=$("$tmp/fs_ref" "$tmp/one" 2>&1)
    if [ "$r" != "$o" ]; then
        echo "FAIL differs: ours [$o] reference [$r]"; fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done < "$specs"
echo "run_filterspec: $pass passed, $fail failed"
[ $fail -eq 0 ]
