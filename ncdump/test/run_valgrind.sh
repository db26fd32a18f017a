#!/bin/sh
# run_valgrind.sh NCGEN NCDUMP NCCOPY CDL: the three tools under valgrind
# (memcheck, full leak check) on one CDL file, with the usual options; any
# memory error or leak fails.  Skips (77) without valgrind, or when the
# library was built with sanitizers (valgrind cannot run those).
ncgen=$1; ncdump=$2; nccopy=$3; cdl=$4
command -v valgrind >/dev/null 2>&1 || { echo "valgrind missing"; exit 77; }
if ldd "$ncdump" | grep -q libasan; then echo "sanitizer build: skipped"; exit 77; fi
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
vg() {
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$@" > "$w/out" 2> "$w/err"
    rc=$?
    if [ $rc -eq 99 ]; then echo "FAIL (valgrind): $*"; cat "$w/err"; fail=$((fail + 1)); 
    elif [ $rc -ne 0 ]; then echo "FAIL (exit $rc): $*"; cat "$w/err"; fail=$((fail + 1));
    else pass=$((pass + 1)); fi
}
pass=0; fail=0
vg "$ncgen" -b -k classic -o "$w/a.nc" "$cdl"
vg "$ncgen" -l c "$cdl"
vg "$ncgen" -l f77 "$cdl"
vg "$ncgen" -l java "$cdl"
vg "$ncdump" "$w/a.nc"
vg "$ncdump" -h -s "$w/a.nc"
vg "$ncdump" -t -v time "$w/a.nc"
vg "$ncdump" -x "$w/a.nc"
vg "$ncdump" -b c -p 3,5 "$w/a.nc"
vg "$nccopy" -k cdf5 "$w/a.nc" "$w/b.nc"
vg "$nccopy" -u -V temp,time "$w/a.nc" "$w/c.nc"
vg "$ncdump" "$w/b.nc"
# Deflate level 1 (igzip when built with ISA-L) and 5 (libdeflate), netCDF-4
# and Zarr, and reading them back.
if "$ncdump" -k "$w/a.nc" >/dev/null 2>&1 && "$nccopy" -k nc4 "$w/a.nc" "$w/probe.nc" 2>/dev/null; then
    vg "$nccopy" -k nc4 -d 1 -s "$w/a.nc" "$w/d1.nc"
    vg "$nccopy" -k nc4 -d 5 "$w/a.nc" "$w/d5.nc"
    vg "$ncdump" -s "$w/d1.nc"
    vg "$nccopy" -d 1 -s "$w/a.nc" "file://$w/d1.zarr#mode=nczarr,file"
    vg "$ncdump" "file://$w/d1.zarr#mode=nczarr,file"
fi
echo "valgrind: $pass passed, $fail failed"
[ $fail -eq 0 ]
