#!/bin/sh
# Differential run: a program built against ours and against the reference,
# each run in its own empty directory; their outputs must be identical.
# Usage: run_diff.sh [-x EXCEPTIONS] NAME OURS REF [ARGS...]
#   (exit 77 without the reference).  EXCEPTIONS lists known differences,
#   one line tag (the text before ": <code>") a line, '#' comments: those
#   lines are left out of both outputs, and an exception that no longer
#   differs is reported so that the list shrinks as bugs are fixed.
exc=
if [ "$1" = "-x" ]; then exc=$2; shift 2; fi
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
if [ -n "$exc" ] && [ -f "$exc" ]; then
    grep -v '^#' "$exc" | sed '/^$/d' > "${name}.exc"
    # tags (text before the last ": <code>") of differing lines
    for f in ref ours; do
        awk -v X="${name}.exc" 'BEGIN { while ((getline l < X) > 0) ex[l] = 1 }
            { t = $0; sub(/: -?[0-9]+( .*)?$/, "", t); if (!(t in ex)) print }' \
            "${name}_$f.txt" > "${name}_$f.filtered"
    done
    while IFS= read -r tag; do
        r=$(grep -F "$tag: " "${name}_ref.txt" | head -1)
        o=$(grep -F "$tag: " "${name}_ours.txt" | head -1)
        [ "$r" = "$o" ] && echo "$name: exception no longer differs (remove it): $tag"
    done < "${name}.exc"
    mv "${name}_ref.filtered" "${name}_ref.txt"
    mv "${name}_ours.filtered" "${name}_ours.txt"
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
