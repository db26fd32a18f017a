#!/bin/sh
# run_python.sh LIBDIR: run Python's netCDF4 module (built against upstream's
# libnetcdf.so.19) on our library, and again on the reference library; the
# files each writes must be byte-identical and dump identically with the
# reference ncdump.  Exits 77 when python3-netcdf4 or ncdump is missing.
set -u
libdir=$1
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
$py -c "import netCDF4" 2>/dev/null || { echo "python3-netcdf4 missing"; exit 77; }
[ -x /usr/bin/ncdump ] || { echo "reference ncdump missing"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ours" "$work/ref" "$work/lib"
# Upstream 4.9 clients look for libnetcdf.so.19: point that name at ours.
ln -s "$libdir/libnetcdf.so.22" "$work/lib/libnetcdf.so.19"

# Python does not run under a sanitizer runtime loaded behind its back (it
# hangs in ASan's start-up); the optimised build runs this test.
if ldd "$libdir/libnetcdf.so.22" | grep -q libasan; then
    echo "library built with sanitizers: skipped"
    exit 77
fi

fail=0
pass=0
LD_LIBRARY_PATH=$work/lib $py "$here/py_write_read.py" "$work/ours" > "$work/ours.log" 2>&1
rc=$?
cat "$work/ours.log"
if [ $rc -ne 0 ]; then fail=$((fail + 1)); else pass=$((pass + 1)); fi
grep -q "^libversion 4.10.1" "$work/ours.log" || { echo "FAIL: python did not load our library"; fail=$((fail + 1)); }
$py "$here/py_write_read.py" "$work/ref" > "$work/ref.log" 2>&1 || { echo "reference run failed"; cat "$work/ref.log"; exit 1; }
for f in "$work"/ref/*.nc; do
    b=$(basename "$f")
    if cmp -s "$f" "$work/ours/$b"; then pass=$((pass + 1)); else
        echo "FAIL: $b differs from the reference library's file"; fail=$((fail + 1)); fi
    /usr/bin/ncdump "$f" | sed 1d > "$work/ref.cdl"
    /usr/bin/ncdump "$work/ours/$b" | sed 1d > "$work/ours.cdl"
    if cmp -s "$work/ref.cdl" "$work/ours.cdl"; then pass=$((pass + 1)); else
        echo "FAIL: ncdump of $b differs"; diff "$work/ref.cdl" "$work/ours.cdl" | head; fail=$((fail + 1)); fi
done
echo "python interop: $pass passed, $fail failed"
[ $fail -eq 0 ]
