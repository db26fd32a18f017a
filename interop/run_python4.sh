#!/bin/sh
# run_python4.sh LIBDIR CDLDIR: netCDF4-python and xarray on netCDF-4 files,
# our library against the reference.
#  1. Files: the reference ncgen's nc4/nc7 builds of CDLDIR/*.cdl and the
#     files py_write4.py writes on the reference library.  py_describe4.py
#     (groups, user types, dtypes, masks, attribute types, xarray) must print
#     the same on ours as on the reference.
#  2. py_write4.py run on ours: each file must dump with the reference
#     ncdump -s as the reference library's twin does (_NCProperties aside).
# Exits 77 when python3-netcdf4 or the reference tools are missing.
set -u
libdir=$1; cdldir=$2
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
$py -c "import netCDF4" 2>/dev/null || { echo "python3-netcdf4 missing"; exit 77; }
[ -x /usr/bin/ncgen ] && [ -x /usr/bin/ncdump ] || { echo "reference ncgen/ncdump missing"; exit 77; }
if ldd "$libdir/libnetcdf.so.22" | grep -q libasan; then
    echo "library built with sanitizers: skipped (Python cannot load the ASan runtime)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/files" "$work/lib" "$work/ours" "$work/ref" "$work/wours" "$work/wref"
ln -s "$libdir/libnetcdf.so.22" "$work/lib/libnetcdf.so.19"
pass=0; fail=0
for cdl in "$cdldir"/*.cdl; do
    b=$(basename "$cdl" .cdl)
    for k in $(sed -n 's,^// formats:,,p' "$cdl" | head -1); do
        /usr/bin/ncgen -k "$k" -o "$work/files/${b}_$k.nc" "$cdl" >/dev/null 2>&1 ||
            { echo "FAIL: reference ncgen -k $k $b"; fail=$((fail + 1)); }
    done
done
$py "$here/py_write4.py" "$work/files" >/dev/null 2>&1 || { echo "reference python writer failed"; exit 1; }

$py "$here/py_describe4.py" "$work"/files/*.nc > "$work/ref.txt" 2>/dev/null ||
    { echo "reference describe run failed"; exit 1; }
LD_LIBRARY_PATH=$work/lib $py "$here/py_describe4.py" "$work"/files/*.nc \
    > "$work/ours.txt" 2> "$work/ours.err"
grep -q "^libversion 4.10.1" "$work/ours.err" ||
    { echo "FAIL: python did not run on our library"; cat "$work/ours.err"; exit 1; }
(cd "$work/ref" && awk '/^file /{out=$2".txt"} {print > out}' ../ref.txt)
(cd "$work/ours" && awk '/^file /{out=$2".txt"} {print > out}' ../ours.txt)
for f in "$work"/files/*.nc; do
    b=$(basename "$f").txt
    if [ ! -s "$work/ref/$b" ]; then
        echo "FAIL: $b: no reference description"; fail=$((fail + 1))
    elif cmp -s "$work/ref/$b" "$work/ours/$b"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $b: the Python view differs (< reference, > ours)"
        diff "$work/ref/$b" "$work/ours/$b" | head -20
        fail=$((fail + 1))
    fi
done

# 2. files written by Python on ours
$py "$here/py_write4.py" "$work/wref" >/dev/null 2>&1 || { echo "reference python writer failed"; exit 1; }
if ! LD_LIBRARY_PATH=$work/lib $py "$here/py_write4.py" "$work/wours" > "$work/wours.log" 2>&1; then
    echo "FAIL: py_write4.py on our library:"; tail -5 "$work/wours.log"; fail=$((fail + 1))
fi
for f in "$work"/wref/*.nc; do
    b=$(basename "$f")
    (cd "$work/wref" && /usr/bin/ncdump -s "$b") 2>&1 | grep -v '_NCProperties = ' > "$work/wref.cdl"
    (cd "$work/wours" && /usr/bin/ncdump -s "$b") 2>&1 | grep -v '_NCProperties = ' > "$work/wours.cdl"
    if cmp -s "$work/wref.cdl" "$work/wours.cdl"; then pass=$((pass + 1)); else
        echo "FAIL: $b written on ours dumps differently (< reference, > ours)"
        diff "$work/wref.cdl" "$work/wours.cdl" | head -10; fail=$((fail + 1)); fi
done
echo "python4: $pass passed, $fail failed"
[ $pass -gt 0 ] && [ $fail -eq 0 ]
