#!/bin/sh
# check_exports.sh LIB LIST...: every name in the lists must be a defined
# dynamic symbol of LIB.  Lists hold one name per line; '#' lines are
# comments and a trailing " (variable)" is dropped.  The word "defined"
# in public-api-4.10.1.txt is an artifact of how that list was extracted
# from the headers (the preprocessor operator), not a function.
lib=$1
shift
[ -f "$lib" ] || { echo "no library at $lib"; exit 1; }
syms=$(mktemp)
trap 'rm -f "$syms"' EXIT
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u > "$syms"
pass=0
fail=0
for list in "$@"; do
    for name in $(grep -v '^#' "$list" | sed 's/ (variable)$//' | grep -v '^defined$' | sort -u); do
        if grep -qx "$name" "$syms"; then
            pass=$((pass + 1))
        else
            echo "missing export: $name (from $(basename "$list"))"
            fail=$((fail + 1))
        fi
    done
done
echo "exports: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
