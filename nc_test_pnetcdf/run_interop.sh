#!/bin/sh
# Interop with Debian's upstream 4.9.0 built with PnetCDF: the same program
# built against each library writes a file (4 ranks; CDF-1/2/5 collective,
# CDF-5 independent) that the other build reads; both files dump the same
# with our ncdump, and they are compared byte for byte.
# Usage: run_interop.sh OUR_PROG REF_PROG OUR_NCDUMP "MPIEXEC FLAGS..."
ours=$1
ref=$2
ncdump=$3
mpiexec=$4   # the command and its flags, one word list
if [ -z "$ref" ] || [ "$ref" = none ] || [ ! -x "$ref" ]; then
    echo "run_interop: no build against libnetcdf_pnetcdf; skipping"
    exit 77
fi
pass=0
fail=0
rm -rf interop_out && mkdir interop_out || exit 1
cd interop_out || exit 1
step() { # label command...
    label=$1; shift
    if "$@" >log 2>&1; then pass=$((pass + 1)); else echo "FAIL $label"; cat log; fail=$((fail + 1)); fi
}
for fa in cdf1.coll cdf2.coll cdf5.coll cdf5.indep; do
    fmt=${fa%.*}
    for acc in ${fa#*.}; do
        o=ours.$fmt.$acc.nc
        r=ref.$fmt.$acc.nc
        step "ours writes $o" $mpiexec -n 4 "$ours" write $fmt $acc $o
        step "ref writes $r" $mpiexec -n 4 "$ref" write $fmt $acc $r
        step "ref reads $o" $mpiexec -n 4 "$ref" read $fmt $acc $o
        step "ours reads $r" $mpiexec -n 4 "$ours" read $fmt $acc $r
        "$ncdump" $o >o.cdl 2>&1
        "$ncdump" $r >r.cdl 2>&1
        sed -i '1s/^netcdf [^ ]* /netcdf X /' o.cdl r.cdl
        if cmp o.cdl r.cdl >/dev/null 2>&1 && grep -q '^data:' o.cdl; then
            pass=$((pass + 1))
        else
            echo "DUMPS DIFFER $o $r"; diff o.cdl r.cdl | head; fail=$((fail + 1))
        fi
        if cmp $o $r >/dev/null 2>&1; then
            pass=$((pass + 1))
        else
            echo "BYTES DIFFER $o $r: $(cmp $o $r 2>&1 | head -1)"; fail=$((fail + 1))
        fi
    done
done
echo "tst_pnc_interop: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
