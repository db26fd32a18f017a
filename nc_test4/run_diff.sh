#!/bin/sh
# Differential run: a program built against ours and against the reference,
# each run in its own empty directory; their outputs must be identical.
# Usage: run_diff.sh NAME OURS REF [ARGS...]   (exit 77 without the reference)
name=$1; ours=$2; ref=$3; shift 3
if [ -z "$ref" ] || [ "$ref" = none ] || [ ! -x "$ref" ]; then
    echo "$name: reference build not available; skipping"
    exit 77
fi
rm -rf "${name}_ours" "${name}_ref"
mkdir "${name}_ours" "${name}_ref" || exit 1
(cd "${name}_ours" && "$ours" "$@" > "../${name}_ours.txt") || { echo "$name: our program failed"; exit 1; }
(cd "${name}_ref" && "$ref" "$@" > "../${name}_ref.txt") || { echo "$name: reference program failed"; exit 1; }
total=$(wc -l < "${name}_ref.txt")
if grep -q CRASHED "${name}_ours.txt"; then
    echo "$name: our library crashed:"; grep CRASHED "${name}_ours.txt"
    exit 1
fi
if [ "$total" -lt 50 ]; then
    echo "$name: the reference printed only $total lines"; exit 1
fi
if diff "${name}_ref.txt" "${name}_ours.txt" > "${name}.diff"; then
    echo "$name: $total lines, 0 differ"
    rm -rf "${name}_ours" "${name}_ref"
    exit 0
fi
ndiff=$(grep -c '^>' "${name}.diff")
echo "$name: $total lines, $ndiff differ (< reference, > ours):"
head -80 "${name}.diff"
exit 1
