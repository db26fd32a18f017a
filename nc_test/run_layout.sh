#!/bin/sh
# Byte-identity of classic files: run tst_layout built against our library
# and against the reference library in two directories, then cmp every file.
# Usage: run_layout.sh OUR_TST_LAYOUT REF_TST_LAYOUT   (exit 77 without the reference)
ours=$1
ref=$2
if [ -z "$ref" ] || [ "$ref" = none ] || [ ! -x "$ref" ]; then
    echo "run_layout: reference build of tst_layout not available; skipping"
    exit 77
fi
rm -rf layout_ours layout_ref
mkdir layout_ours layout_ref || exit 1
(cd layout_ours && "$ours") || { echo "run_layout: our tst_layout failed"; exit 1; }
(cd layout_ref && "$ref") || { echo "run_layout: reference tst_layout failed"; exit 1; }
pass=0
fail=0
for f in layout_ref/*.nc; do
    b=$(basename "$f")
    if [ ! -f "layout_ours/$b" ]; then
        echo "MISSING layout_ours/$b"; fail=$((fail + 1)); continue
    fi
    if cmp "layout_ref/$b" "layout_ours/$b" >/dev/null 2>&1; then
        pass=$((pass + 1))
    else
        echo "DIFFER $b: $(cmp "layout_ref/$b" "layout_ours/$b" 2>&1 | head -1), sizes $(wc -c <"layout_ref/$b") (ref) $(wc -c <"layout_ours/$b") (ours)"
        fail=$((fail + 1))
    fi
done
echo "tst_layout_cmp: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
