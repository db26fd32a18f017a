#!/bin/sh
# Return codes and out-parameters of the API, ours against the reference:
# run tst_apicodes built against each library in its own directory and diff
# the two outputs line by line.
# Usage: run_apicodes.sh OUR_TST_APICODES REF_TST_APICODES [nc4]
#   (exit 77 without the reference).  "nc4" runs the netCDF-4 passes; its
#   files and outputs carry the suffix 4 so both comparisons can run at once.
ours=$1
ref=$2
set_=${3:-}
sfx=
[ -n "$set_" ] && sfx=4
if [ -z "$ref" ] || [ "$ref" = none ] || [ ! -x "$ref" ]; then
    echo "run_apicodes: reference build of tst_apicodes not available; skipping"
    exit 77
fi
name=tst_apicodes${sfx}_cmp
rm -rf apicodes${sfx}_ours apicodes${sfx}_ref
mkdir apicodes${sfx}_ours apicodes${sfx}_ref || exit 1
(cd apicodes${sfx}_ours && "$ours" $set_ > ../apicodes${sfx}_ours.txt) || { echo "run_apicodes: our tst_apicodes failed"; exit 1; }
(cd apicodes${sfx}_ref && "$ref" $set_ > ../apicodes${sfx}_ref.txt) || { echo "run_apicodes: reference tst_apicodes failed"; exit 1; }
total=$(wc -l < apicodes${sfx}_ref.txt)
if grep -q CRASHED apicodes${sfx}_ours.txt; then
    echo "run_apicodes: our library crashed:"; grep CRASHED apicodes${sfx}_ours.txt
    exit 1
fi
if [ "$total" -lt 1000 ]; then
    echo "run_apicodes: the reference printed only $total lines"; exit 1
fi
if diff apicodes${sfx}_ref.txt apicodes${sfx}_ours.txt > apicodes${sfx}.diff; then
    echo "$name: $total calls, 0 differ"
    rm -rf apicodes${sfx}_ours apicodes${sfx}_ref
    exit 0
fi
ndiff=$(grep -c '^>' apicodes${sfx}.diff)
echo "$name: $total calls, $ndiff differ (< reference, > ours):"
head -60 apicodes${sfx}.diff
exit 1
