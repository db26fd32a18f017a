#!/bin/sh
# Byte identity of classic files written serially (the classic layer) and in
# parallel through PnetCDF on 4 ranks (and 1 for CDF-5), in collective and
# independent access, with and without fill; and the reference ncdump
# (4.9.0) and ours print every file the same.
# With fill, PnetCDF leaves the padding after a variable whose size is not a
# multiple of 4 as zero bytes where the classic layer (as upstream's) writes
# fill bytes (docs/differences.md): there the files must differ in exactly
# those bytes, the 2 after "odd" and 1 after each of the 4 records of "r1",
# the parallel file holding zeros.
# Usage: run_bytes.sh TST_PNC_BYTES OUR_NCDUMP "MPIEXEC FLAGS..."
prog=$1
ncdump=$2
mpiexec=$3   # the command and its flags, one word list
refdump=/usr/bin/ncdump
pass=0
fail=0
rm -rf bytes_out && mkdir bytes_out || exit 1
cd bytes_out || exit 1
for fmt in cdf1 cdf2 cdf5; do
    for fill in fill nofill; do
        base=$fmt.$fill
        "$prog" serial $fmt $fill indep $base.serial.nc || { echo "FAIL serial $base"; fail=$((fail + 1)); continue; }
        runs='"4 coll" "4 indep"'
        [ $fmt = cdf5 ] && runs="$runs \"1 coll\""
        eval "set -- $runs"
        for run in "$@"; do
            set -- $run
            out=$base.par$1.$2.nc
            if ! $mpiexec -n $1 "$prog" par $fmt $fill $2 $out; then
                echo "FAIL parallel $out"; fail=$((fail + 1)); continue
            fi
            if [ $fill = nofill ] && cmp $base.serial.nc $out >/dev/null 2>&1; then
                pass=$((pass + 1))
            elif [ $fill = fill ] && [ "$(cmp -l $base.serial.nc $out | awk '$3 == 0' | wc -l)" = 6 ] \
                && [ "$(cmp -l $base.serial.nc $out | wc -l)" = 6 ]; then
                pass=$((pass + 1))
            else
                echo "DIFFER $out: $(cmp $base.serial.nc $out 2>&1 | head -1), sizes $(wc -c <$base.serial.nc) (serial) $(wc -c <$out) (parallel)"
                fail=$((fail + 1))
            fi
            if [ -x "$refdump" ]; then
                "$refdump" $out >ref.cdl 2>&1
                "$ncdump" $out >our.cdl 2>&1
                if cmp ref.cdl our.cdl >/dev/null 2>&1 && grep -q '^data:' our.cdl; then
                    pass=$((pass + 1))
                else
                    echo "DUMPS DIFFER for $out:"; diff ref.cdl our.cdl | head -10
                    fail=$((fail + 1))
                fi
            fi
        done
    done
done
echo "tst_pnc_bytes_cmp: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
