#!/bin/sh
# run_nco.sh LIBDIR CDLDIR...: NCO (Debian's, built for upstream's
# libnetcdf.so.19) as a real client of our library.  Every NCO command below
# runs once on the reference library and once on ours; stdout and the exit
# status must be identical, and files NCO writes must dump identically with
# the reference ncdump.  Inputs: files the reference ncgen makes from the CDL
# dirs, and legacy files (mk_legacy.py) with duplicate dimension names and
# with Latin-1 names.  The reference cannot read the Latin-1 names back by
# name, so for that file ours is held to the reference's view of its UTF-8
# twin instead: our output, transcoded from Latin-1, must equal it.
# Exits 77 when NCO or the reference tools are missing.
set -u
libdir=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
command -v ncks >/dev/null 2>&1 || { echo "nco missing"; exit 77; }
[ -x /usr/bin/ncgen ] && [ -x /usr/bin/ncdump ] || { echo "reference tools missing"; exit 77; }
if ldd "$libdir/libnetcdf.so.22" | grep -q libasan; then
    echo "library built with sanitizers: skipped (NCO is not built with the ASan runtime)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/files" "$work/lib"
ln -s "$libdir/libnetcdf.so.22" "$work/lib/libnetcdf.so.19"
ours() { LD_LIBRARY_PATH=$work/lib "$@"; }

for dir in "$@"; do
    for cdl in "$dir"/*.cdl; do
        b=$(basename "$cdl" .cdl)
        /usr/bin/ncgen -k 1 -b -o "$work/files/$b.nc" "$cdl" >/dev/null 2>&1 || rm -f "$work/files/$b.nc"
    done
done
/usr/bin/python3 "$here/mk_legacy.py" "$work/legacy" || exit 1
cp "$work/legacy/dupdims.nc" "$work/files/"

pass=0
fail=0
# cmp_run LABEL CMD...: run CMD on both libraries, compare stdout and status.
cmp_run() {
    label=$1; shift
    "$@" > "$work/ref.out" 2>/dev/null; rs=$?
    ours "$@" > "$work/ours.out" 2>/dev/null; os=$?
    if [ $rs -eq $os ] && cmp -s "$work/ref.out" "$work/ours.out"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $label: status ref $rs ours $os (< reference, > ours)"
        diff "$work/ref.out" "$work/ours.out" | head -10
        fail=$((fail + 1))
    fi
}

for f in "$work"/files/*.nc; do
    b=$(basename "$f" .nc)
    cmp_run "$b ncks" ncks "$f"
    cmp_run "$b ncks -m" ncks -m "$f"
    cmp_run "$b ncks --cdl -H" ncks --cdl -H "$f"
    cmp_run "$b ncks --json" ncks --json "$f"
    # a copy through NCO's writer, in two classic kinds
    for k in 3 5; do
        rm -f "$work/r.nc" "$work/o.nc"
        ncks -O -h -$k "$f" "$work/r.nc" >/dev/null 2>&1; rs=$?
        ours ncks -O -h -$k "$f" "$work/o.nc" >/dev/null 2>&1; os=$?
        if [ $rs -ne $os ]; then
            echo "FAIL: $b ncks -$k copy: status ref $rs ours $os"; fail=$((fail + 1))
        elif [ $rs -eq 0 ] && ! /usr/bin/ncdump "$work/r.nc" | sed 1d > "$work/r.cdl"; then
            echo "FAIL: $b ncks -$k copy: reference copy unreadable"; fail=$((fail + 1))
        elif [ $rs -eq 0 ] && ! { /usr/bin/ncdump "$work/o.nc" | sed 1d | cmp -s - "$work/r.cdl"; }; then
            echo "FAIL: $b ncks -$k copy: our copy dumps differently"; fail=$((fail + 1))
        else
            pass=$((pass + 1))
        fi
    done
done

# Latin-1 names: ours on the Latin-1 file, transcoded, against the reference
# on the UTF-8 twin.
for opt in "" "-m" "--cdl -H" "--json"; do
    # shellcheck disable=SC2086
    ncks $opt "$work/legacy/utf8/legacy.nc" > "$work/ref.out" 2>/dev/null; rs=$?
    # shellcheck disable=SC2086
    ours ncks $opt "$work/legacy/latin1/legacy.nc" 2>/dev/null | iconv -f latin1 -t utf-8 > "$work/ours.out"
    if [ $rs -eq 0 ] && cmp -s "$work/ref.out" "$work/ours.out"; then
        pass=$((pass + 1))
    else
        echo "FAIL: Latin-1 names, ncks $opt (< reference on the UTF-8 twin, > ours transcoded)"
        diff "$work/ref.out" "$work/ours.out" | head -10
        fail=$((fail + 1))
    fi
done
echo "nco interop: $pass passed, $fail failed"
[ $pass -gt 0 ] && [ $fail -eq 0 ]
