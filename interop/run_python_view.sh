#!/bin/sh
# run_python_view.sh LIBDIR CDLDIR...: what a Python user sees must not depend
# on which library is loaded.  Files are made by the reference ncgen from the
# bundled CDL (in each classic kind it accepts) and by Python on the reference
# library; py_describe.py then prints, per file, the netCDF4 and xarray view
# (numpy dtypes and byte order, masks, attribute types, inquiries, errors,
# decoded values, encodings) once on our library and once on the reference.
# Each file is one check: the two descriptions must be identical.
# Exits 77 when python3-netcdf4 or the reference tools are missing.
set -u
libdir=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
$py -c "import netCDF4" 2>/dev/null || { echo "python3-netcdf4 missing"; exit 77; }
[ -x /usr/bin/ncgen ] || { echo "reference ncgen missing"; exit 77; }
if ldd "$libdir/libnetcdf.so.22" | grep -q libasan; then
    echo "library built with sanitizers: skipped (Python cannot load the ASan runtime)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/files" "$work/lib" "$work/ours" "$work/ref"
ln -s "$libdir/libnetcdf.so.22" "$work/lib/libnetcdf.so.19"

for dir in "$@"; do
    for cdl in "$dir"/*.cdl; do
        b=$(basename "$cdl" .cdl)
        for k in 1 2 5; do
            /usr/bin/ncgen -k $k -b -o "$work/files/${b}_k$k.nc" "$cdl" >/dev/null 2>&1 ||
                rm -f "$work/files/${b}_k$k.nc"
        done
    done
done
$py "$here/py_write_read.py" "$work/files" >/dev/null 2>&1 || { echo "reference python run failed"; exit 1; }

# One interpreter per library (xarray's import is slow); the description is
# then split per file ("file NAME" lines start each one).
$py "$here/py_describe.py" "$work"/files/*.nc > "$work/ref.txt" 2>/dev/null ||
    { echo "reference describe run failed"; exit 1; }
LD_LIBRARY_PATH=$work/lib $py "$here/py_describe.py" "$work"/files/*.nc \
    > "$work/ours.txt" 2> "$work/ours.err"
grep -q "^libversion 4.10.1" "$work/ours.err" ||
    { echo "FAIL: python did not run on our library"; cat "$work/ours.err"; exit 1; }
(cd "$work/ref" && awk '/^file /{out=$2".txt"} {print > out}' ../ref.txt)
(cd "$work/ours" && awk '/^file /{out=$2".txt"} {print > out}' ../ours.txt)

pass=0
fail=0
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
echo "python view: $pass passed, $fail failed"
[ $pass -gt 0 ] && [ $fail -eq 0 ]
