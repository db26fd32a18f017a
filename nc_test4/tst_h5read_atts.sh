#!/bin/sh
# tst_h5read_atts.sh OURS REF: the HDF5 layout of attributes written by ours
# and by the reference (h5dump -A), which must be the same except for the
# _NCProperties text.  Exit 77 without the reference or h5dump.
ours=$1; ref=$2
if [ -z "$ref" ] || [ "$ref" = none ] || [ ! -x "$ref" ] || ! command -v h5dump > /dev/null; then
    echo "tst_h5read_atts: reference or h5dump not available; skipping"; exit 77
fi
"$ours" tst_h5read_atts_ours.nc || { echo "ours failed"; exit 1; }
"$ref" tst_h5read_atts_ref.nc || { echo "reference failed"; exit 1; }
h5dump -A tst_h5read_atts_ours.nc | sed 1d | grep -v 'STRSIZE 3[0-9];\|version=2,' > tst_h5read_atts_ours.txt
h5dump -A tst_h5read_atts_ref.nc | sed 1d | grep -v 'STRSIZE 3[0-9];\|version=2,' > tst_h5read_atts_ref.txt
if diff tst_h5read_atts_ref.txt tst_h5read_atts_ours.txt; then
    echo "tst_h5read_atts: $(wc -l < tst_h5read_atts_ref.txt) lines, same"; exit 0
fi
exit 1
