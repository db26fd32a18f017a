#!/bin/sh
# Interop of netCDF-4 files with the reference netCDF-C.
# Inputs: every nc_test4/cdl/*.cdl in each format its "// formats:" line
# lists (ncgen -k nc4 / nc7), written by the reference ncgen, plus the files
# interop/py_write4.py writes with netCDF4-python on the system library.
# For each input file:
#   1. tst_dump4 built against ours and against the reference print the same
#      canonical dump;
#   2. tst_copy4 (ours) copies it: the reference ncdump -s of the copy equals
#      that of the original (same basename; _NCProperties left out), and the
#      reference tst_dump4 of the copy equals its dump of the original.
# Usage: run_interop4.sh CDLDIR PYWRITER OUR_DUMP4 OUR_COPY4 REF_DUMP4
# Exits 77 when ncgen, ncdump or the reference build is missing.
cdldir=$1; pywriter=$2; ours_dump=$3; ours_copy=$4; ref_dump=$5
NCGEN=${NCGEN:-/usr/bin/ncgen}
NCDUMP=${NCDUMP:-/usr/bin/ncdump}
PYTHON=${PYTHON:-/usr/bin/python3}
for t in "$NCGEN" "$NCDUMP"; do
    [ -x "$t" ] || { echo "run_interop4: $t not found; skipping"; exit 77; }
done
if [ -z "$ref_dump" ] || [ "$ref_dump" = none ] || [ ! -x "$ref_dump" ]; then
    echo "run_interop4: reference build of tst_dump4 not available; skipping"
    exit 77
fi
rm -rf interop4 && mkdir -p interop4/ref interop4/ours interop4/dumps || exit 1
pass=0; fail=0
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
for cdl in "$cdldir"/*.cdl; do
    base=$(basename "$cdl" .cdl)
    kinds=$(sed -n 's,^// formats:,,p' "$cdl" | head -1)
    [ -n "$kinds" ] || kinds="nc4"
    for k in $kinds; do
        if ! "$NCGEN" -k "$k" -o "interop4/ref/${base}_$k.nc" "$cdl" 2>"interop4/dumps/${base}_$k.ncgen.err"; then
            bad "${base}_$k: reference ncgen failed: $(head -1 "interop4/dumps/${base}_$k.ncgen.err")"
        fi
    done
done
# netCDF4-python on the system (reference) library
if [ -f "$pywriter" ] && "$PYTHON" -c "import netCDF4" 2>/dev/null; then
    (cd interop4/ref && "$PYTHON" "$pywriter" py4) || bad "py_write4.py failed"
else
    echo "run_interop4: netCDF4-python not available; python files left out"
fi
for ref in interop4/ref/*.nc; do
    name=$(basename "$ref" .nc)
    out=interop4/ours/$name.nc
    d=interop4/dumps/$name
    "$ref_dump" "$ref" >"$d.refdump" 2>&1 || { bad "$name: reference tst_dump4 failed: $(tail -1 "$d.refdump")"; continue; }
    if ! "$ours_dump" "$ref" >"$d.ourdump" 2>&1; then
        bad "$name: our tst_dump4 failed: $(tail -1 "$d.ourdump")"
    elif ! cmp -s "$d.refdump" "$d.ourdump"; then
        bad "$name: dump differs: $(diff "$d.refdump" "$d.ourdump" | sed -n 2,4p | tr '\n' ' ')"
    else
        pass=$((pass + 1))
    fi
    if ! "$ours_copy" "$ref" "$out" 2>"$d.copy.err"; then
        bad "$name: our tst_copy4 failed: $(head -1 "$d.copy.err")"; continue
    fi
    (cd interop4/ref && "$NCDUMP" -s "$name.nc") 2>&1 | grep -v '_NCProperties = ' >"$d.ncdump.ref"
    (cd interop4/ours && "$NCDUMP" -s "$name.nc") 2>&1 | grep -v '_NCProperties = ' >"$d.ncdump.ours"
    if cmp -s "$d.ncdump.ref" "$d.ncdump.ours"; then pass=$((pass + 1))
    else bad "$name: reference ncdump -s of our copy differs: $(diff "$d.ncdump.ref" "$d.ncdump.ours" | sed -n 2,4p | tr '\n' ' ')"; fi
    if "$ref_dump" "$out" >"$d.refcopydump" 2>&1 && cmp -s "$d.refdump" "$d.refcopydump"; then
        pass=$((pass + 1))
    else
        bad "$name: reference dump of our copy differs: $(diff "$d.refdump" "$d.refcopydump" | sed -n 2,4p | tr '\n' ' ')"
    fi
done
echo "run_interop4: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
