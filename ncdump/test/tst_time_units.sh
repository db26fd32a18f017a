#!/bin/sh
# ncdump -t / -i: which "units" spellings are decoded as times.
# Usage: tst_time_units.sh OUR_NCDUMP WORKDIR
# Builds one file with a variable per unit spelling (case variants,
# abbreviations, prefixes, "since" forms, base-time forms) and per calendar
# spelling, with the reference ncgen, and requires our ncdump -t and -i to
# print exactly what the reference ncdump prints (decoded data, the decoded
# attribute comments, bounds variables).  Exits 77 without the reference.
set -u
OURDUMP=$1; WORK=$2
REFDUMP=${REF_NCDUMP:-/usr/bin/ncdump}
REFGEN=${REF_NCGEN:-/usr/bin/ncgen}
for t in "$REFDUMP" "$REFGEN"; do
    [ -x "$t" ] || { echo "reference tool $t missing: skipping"; exit 77; }
done
mkdir -p "$WORK"
pass=0; fail=0

words="s S sec Sec SEC secs second seconds Seconds SECONDS se seco sEcOnDs
m mn MN Mn min Min MIN mins minute minutes Minutes MINUTES mi
h H hr HR Hr hrs hour Hour HOUR hours Hours HOURS hou ho
d D dy DY Dy day Day DAY days Days DAYS DaYs daYs da dys
w W wk WK Wk week Week WEEK weeks Weeks WEEKS wee
mo MO Mo mon month Month MONTH months Months MONTHS mont
season Season SEASON seasons Seasons seas
y Y yr YR Yr yrs year Year YEAR years Years YEARS yea
dayss dayfoo secondsfoo minx hourly daily yearly monthly weekly seasonal
ms msec milliseconds us ns fortnight a common_years julian_day"
sinces="since@2000-01-01 since@2000-01-01T06:00:00 since@2000-01-01@06:30:00
since@2000-01-01@06:00:00@UTC since@2000-01-01T06:00:00Z since@2000-1-1
SINCE@2000-01-01 Since@2000-01-01 after@2000-01-01 from@2000-01-01 since
since2000-01-01 since@2000 since@2000-06 since@0001-01-01 since@1582-10-10
since@-0100-01-01"
cals="gregorian Gregorian GREGORIAN standard Standard proleptic_gregorian
Proleptic_Gregorian noleap NoLeap NOLEAP no_leap 365_day all_leap allleap
ALL_LEAP 366_day 360_day 360_DAY julian Julian JULIAN none None NONE no n 3 36
360 360_ 360_day_x noleapx j ju a al p pr s st g bogus"

cdl=$WORK/time_units.cdl
{
    echo 'netcdf time_units {'
    echo 'dimensions:'
    echo '	n = 3 ;'
    echo '	nb = 2 ;'
    echo '	nc = 5 ;'
    echo 'variables:'
    i=0
    for w in $words; do
        for u in "$w since 2000-01-01" "$w since 1999-12-31 18:00"; do
            i=$((i+1))
            echo "	double v$i(n) ; v$i:units = \"$u\" ; v$i:actual_range = 0., 1.5 ;"
        done
    done
    for w in days Days HOURS seconds Months yEaRs min; do
        for s in $sinces; do
            i=$((i+1))
            echo "	double v$i(n) ; v$i:units = \"$w $(echo "$s" | tr @ ' ')\" ;"
        done
    done
    for u in "days" "Days since" " days since 2000-01-01" "days  since 2000-01-01" \
             "days\\tsince 2000-01-01" "DAYS since\\t2000-01-01" "days since 2000-01-01\\n"; do
        i=$((i+1))
        echo "	double v$i(n) ; v$i:units = \"$u\" ;"
    done
    # calendars: case-insensitive prefixes, first match in table order
    k=0
    for c in $cals "noleap " " noleap" ""; do
        for w in days DaYs; do
            k=$((k+1))
            echo "	double c$k(nc) ; c$k:units = \"$w since 1500-02-27\" ; c$k:calendar = \"$c\" ;"
        done
    done
    echo '	double tb(n) ; tb:units = "DaYs since 2000-01-01" ; tb:bounds = "tb_bnds" ;'
    echo '	double tb_bnds(n, nb) ;'
    echo '	int it(n) ; it:units = "HOURS since 2000-01-01" ; it:valid_range = 0, 48 ;'
    echo 'data:'
    j=0
    while [ $j -lt $i ]; do
        j=$((j+1))
        echo " v$j = 1, 2.5, -40 ;"
    done
    j=0
    while [ $j -lt $k ]; do
        j=$((j+1))
        echo " c$j = 1, 2.5, -40, 40000, 200000 ;"
    done
    echo ' tb = 0.5, 1.5, 2.5 ;'
    echo ' tb_bnds = 0, 1, 1, 2, 2, 3 ;'
    echo ' it = 1, 25, 49 ;'
    echo '}'
} > "$cdl"

if ! "$REFGEN" -o "$WORK/time_units.nc" "$cdl"; then
    echo "FAIL: reference ncgen"; exit 1
fi
for opts in "-t" "-i" "-t -h" "-i -h" "-t -v tb,tb_bnds" "-i -x"; do
    # shellcheck disable=SC2086
    ( cd "$WORK" && "$REFDUMP" $opts time_units.nc ) > "$WORK/ref.out" 2> /dev/null; rs=$?
    # shellcheck disable=SC2086
    ( cd "$WORK" && "$OURDUMP" $opts time_units.nc ) > "$WORK/our.out" 2> /dev/null; os=$?
    if [ $rs -ne $os ]; then
        fail=$((fail+1)); echo "FAIL: ncdump $opts: exit $os, reference $rs"
    elif ! cmp -s "$WORK/ref.out" "$WORK/our.out"; then
        fail=$((fail+1)); echo "FAIL: ncdump $opts: output differs"
        diff "$WORK/ref.out" "$WORK/our.out" | head -20
    else
        pass=$((pass+1))
    fi
done
echo "passed: $pass failed: $fail"
[ $fail -eq 0 ]
