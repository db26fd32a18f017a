#!/bin/sh
# run_hdrcodes.sh OURS REF EXCEPTIONS: nc_open codes on corrupt classic
# headers, ours against the reference.  Seeds are written
# by our build; both builds derive the same variants from them.  A variant
# counts when the reference answered with a meaningful code: not a crash,
# hang, E2BIG (7, its buffering), NC_ENOMEM or NC_ERANGE on absurd sizes.
# Those must agree except for the labels listed in EXCEPTIONS (each class
# explained there).  Exit 77 without the reference.
ours=$1 ref=$2 exc=$3
[ -x "$ref" ] || { echo "reference build missing: skipped"; exit 77; }
dir=hdrcodes.d
rm -rf $dir && mkdir -p $dir/seeds || exit 1
"$ours" seed $dir/seeds || exit 1
s=$(pwd)/$dir/seeds
seeds="$s/s1.nc $s/s5.nc $s/t_int64.nc $s/t_ubyte.nc $s/t_past.nc"
(cd $dir && "$ours" run -q $seeds > ours.txt) || exit 1
(cd $dir && "$ref" run -q $seeds > ref.txt) || exit 1
awk -v exc="$exc" '
  BEGIN { while ((getline l < exc) > 0) if (l !~ /^#/ && l != "") ok[l] = 1 }
  FNR == NR { o[$1" "$2" "$3" "$4] = $5; next }
  { k = $1" "$2" "$3" "$4; r = $5
    if (r == "CRASH" || r == "HANG" || r == "7" || r == "-61" || r == "-60") { skip++; next }
    n++
    if (o[k] == r) { same++; next }
    if (k in ok) { known++; next }
    bad++; print "DIFF " k ": reference " r ", ours " o[k] }
  END { printf "hdrcodes: %d variants compared, %d agree, %d known differences, %d unexpected; %d without expectation (reference crash/hang/artefact)\n", n, same, known, bad, skip
        exit bad > 0 || n < 1000 }' $dir/ours.txt $dir/ref.txt
