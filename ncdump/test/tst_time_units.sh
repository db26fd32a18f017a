#!/bin/sh
# ncdump -t / -i: which "units" spellings are decoded as times.
# Usage: tst_time_units.sh OUR_NCDUMP WORKDIR
# Builds one file with a variable per unit spelling (case variants,
# abbreviations, prefixes, "since" forms, base-time forms) and per calendar
# spelling, with the reference ncgen, and requires our ncdump -t and -i to
# print exactly what the reference ncdump prints (decoded data, the decoded
# attribute comments, bounds variables); far dates must agree too, and
# absurd ones (where the reference hangs or prints garbage) must print ""
# at once.  Exits 77 without the reference.
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
# Far dates, where the reference is still right (day numbers within an int,
# month offsets within 5 million years): the same strings.
{
    echo 'netcdf time_range {'
    echo 'dimensions:'
    echo '	n = 8 ;'
    echo 'variables:'
    i=0
    for cal in standard proleptic_gregorian julian noleap all_leap 360_day none; do
        for u in "months since -4000-03-01" "years since 1-01-01" "weeks since 1970-01-01" \
                 "days since 2000-01-01" "hours since 1582-10-10 12:00"; do
            i=$((i+1))
            echo "	double r$i(n) ; r$i:units = \"$u\" ; r$i:calendar = \"$cal\" ;"
        done
    done
    # no year in a climatological calendar: huge month counts are fine
    echo '	double rc(n) ; rc:units = "months since 2000-01-01" ; rc:calendar = "none" ;'
    echo 'data:'
    j=0
    while [ $j -lt $i ]; do
        j=$((j+1))
        case $((j % 5)) in
        1|2|3) echo " r$j = 4e6, -4e6, 2e6, -2e6, 1e6, 123456.75, -98765.5, 1e5 ;" ;;
        *) echo " r$j = 5e8, -5e8, 1e8, -1e8, 2e9, 123456.75, -98765.5, 1e5 ;" ;;
        esac
    done
    echo ' rc = 1e8, -1e8, 1e15, -1e15, 12345678901, 7, -7, 13 ;'
    echo '}'
} > "$WORK/time_range.cdl"
"$REFGEN" -o "$WORK/time_range.nc" "$WORK/time_range.cdl" || { echo "FAIL: reference ncgen"; exit 1; }
( cd "$WORK" && timeout 300 "$REFDUMP" -t time_range.nc ) > "$WORK/ref.out" 2> /dev/null
( cd "$WORK" && timeout 300 "$OURDUMP" -t time_range.nc ) > "$WORK/our.out" 2> /dev/null
if cmp -s "$WORK/ref.out" "$WORK/our.out"; then
    pass=$((pass+1))
else
    fail=$((fail+1)); echo "FAIL: ncdump -t on far dates differs"
    diff "$WORK/ref.out" "$WORK/our.out" | head -10
fi

# Absurd values (the reference prints stack garbage or loops for hours):
# ours must finish at once and print "" for each.
{
    echo 'netcdf time_absurd {'
    echo 'dimensions:'
    echo '	n = 6 ;'
    echo 'variables:'
    echo '	double a(n) ; a:units = "months since 2000-01-01" ;'
    echo '	double b(n) ; b:units = "years since 2000-01-01" ; b:calendar = "noleap" ;'
    echo '	double c(n) ; c:units = "days since 2000-01-01" ;'
    echo '	double d(n) ; d:units = "hours since 2000-01-01" ; d:calendar = "360_day" ;'
    echo '	double e(n) ; e:units = "days since 999999999999-01-01" ;'
    echo '	double f(n) ; f:units = "seasons since -999999999999-01-01" ; f:calendar = "julian" ;'
    echo 'data:'
    for v in a b c d e f; do
        echo " $v = 1e160, -1e160, 1e15, -1e15, 3e18, 1e300 ;"
    done
    echo '}'
} > "$WORK/time_absurd.cdl"
"$REFGEN" -o "$WORK/time_absurd.nc" "$WORK/time_absurd.cdl" || { echo "FAIL: reference ncgen"; exit 1; }
( cd "$WORK" && timeout 20 "$OURDUMP" -t time_absurd.nc ) > "$WORK/our.out" 2> /dev/null; os=$?
n=$(grep -c '^ [a-f] = "", "", "", "", "", "" ;$' "$WORK/our.out")
if [ $os -eq 0 ] && [ "$n" -eq 6 ]; then
    pass=$((pass+1))
else
    fail=$((fail+1)); echo "FAIL: ncdump -t on absurd times: exit $os, $n of 6 variables as \"\""
fi
echo "passed: $pass failed: $fail"
[ $fail -eq 0 ]
