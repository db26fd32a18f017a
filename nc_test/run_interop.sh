#!/bin/sh
# Interop of the classic formats with the reference netCDF-C.
# For each nc_test/cdl/*.cdl and each format its "// formats:" line lists
# (ncgen -k names nc3, nc6, nc5):
#   1. the reference ncgen writes ref/NAME.nc;
#   2. tst_dumpall built against our library and against the reference must
#      print the same canonical dump of it;
#   3. tst_copy (our library) copies it to ours/NAME.nc, which must give the
#      same ncdump output and be byte-identical to the reference file, and
#      our dump of the copy must equal the reference dump of the original.
# Usage: run_interop.sh CDLDIR OUR_DUMPALL OUR_COPY REF_DUMPALL
# Exits 77 when ncgen, ncdump or the reference build is missing.
cdldir=$1
ours_dump=$2
ours_copy=$3
ref_dump=$4
NCGEN=${NCGEN:-/usr/bin/ncgen}
NCDUMP=${NCDUMP:-/usr/bin/ncdump}
for t in "$NCGEN" "$NCDUMP"; do
    [ -x "$t" ] || { echo "run_interop: $t not found; skipping"; exit 77; }
done
if [ -z "$ref_dump" ] || [ "$ref_dump" = none ] || [ ! -x "$ref_dump" ]; then
    echo "run_interop: reference build of tst_dumpall not available; skipping"
    exit 77
fi
rm -rf interop && mkdir -p interop/ref interop/ours interop/dumps || exit 1
pass=0
fail=0
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
for cdl in "$cdldir"/*.cdl; do
    base=$(basename "$cdl" .cdl)
    kinds=$(sed -n 's,^// formats:,,p' "$cdl" | head -1)
    [ -n "$kinds" ] || kinds="nc3 nc6 nc5"
    for k in $kinds; do
        name=${base}_$k
        ref=interop/ref/$name.nc
        out=interop/ours/$name.nc
        d=interop/dumps/$name
        if ! "$NCGEN" -b -k "$k" -o "$ref" "$cdl" 2>"$d.ncgen.err"; then
            bad "$name: reference ncgen failed: $(head -1 "$d.ncgen.err")"; continue
        fi
        "$ref_dump" "$ref" >"$d.refdump" 2>&1 || { bad "$name: reference tst_dumpall failed"; continue; }
        if ! "$ours_dump" "$ref" >"$d.ourdump" 2>&1; then
            bad "$name: our tst_dumpall failed: $(tail -1 "$d.ourdump")"
        elif ! cmp -s "$d.refdump" "$d.ourdump"; then
            bad "$name: dump differs: $(diff "$d.refdump" "$d.ourdump" | sed -n 2,3p | tr '\n' ' ')"
        else
            pass=$((pass + 1))
        fi
        if ! "$ours_copy" "$ref" "$out" 2>"$d.copy.err"; then
            bad "$name: our tst_copy failed: $(head -1 "$d.copy.err")"; continue
        fi
        # same basename so ncdump's first line agrees
        (cd interop/ref && "$NCDUMP" "$name.nc") >"$d.ncdump.ref" 2>&1
        (cd interop/ours && "$NCDUMP" "$name.nc") >"$d.ncdump.ours" 2>&1
        if cmp -s "$d.ncdump.ref" "$d.ncdump.ours"; then pass=$((pass + 1))
        else bad "$name: ncdump of our copy differs: $(diff "$d.ncdump.ref" "$d.ncdump.ours" | sed -n 2,3p | tr '\n' ' ')"; fi
        if cmp -s "$ref" "$out"; then pass=$((pass + 1))
        else bad "$name: our copy is not byte-identical: $(cmp "$ref" "$out" 2>&1 | head -1)"; fi
        if "$ours_dump" "$out" >"$d.ourcopydump" 2>&1 && cmp -s "$d.refdump" "$d.ourcopydump"; then
            pass=$((pass + 1))
        else bad "$name: our dump of our copy differs from the reference dump"; fi
    done
done
echo "tst_interop: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
