#!/bin/sh
# Return codes and out-parameters of the API on classic files, ours against
# the reference: run tst_apicodes built against each library in its own
# directory and diff the two outputs line by line.
# Usage: run_apicodes.sh OUR_TST_APICODES REF_TST_APICODES   (exit 77 without the reference)
ours=$1
ref=$2
if [ -z "$ref" ] || [ "$ref" = none ] || [ ! -x "$ref" ]; then
    echo "run_apicodes: reference build of tst_apicodes not available; skipping"
    exit 77
fi
rm -rf apicodes_ours apicodes_ref
mkdir apicodes_ours apicodes_ref || exit 1
(cd apicodes_ours && "$ours" > ../apicodes_ours.txt) || { echo "run_apicodes: our tst_apicodes failed"; exit 1; }
(cd apicodes_ref && "$ref" > ../apicodes_ref.txt) || { echo "run_apicodes: reference tst_apicodes failed"; exit 1; }
total=$(wc -l < apicodes_ref.txt)
if grep -q CRASHED apicodes_ours.txt; then
    echo "run_apicodes: our library crashed:"; grep CRASHED apicodes_ours.txt
    exit 1
fi
if [ "$total" -lt 1000 ]; then
    echo "run_apicodes: the reference printed only $total lines"; exit 1
fi
if diff apicodes_ref.txt apicodes_ours.txt > apicodes.diff; then
    echo "tst_apicodes_cmp: $total calls, 0 differ"
    rm -rf apicodes_ours apicodes_ref
    exit 0
fi
ndiff=$(grep -c '^>' apicodes.diff)
echo "tst_apicodes_cmp: $total calls, $ndiff differ (< reference, > ours):"
head -60 apicodes.diff
exit 1
