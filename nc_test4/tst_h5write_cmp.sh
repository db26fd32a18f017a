#!/bin/sh
# Files written by our library must have the HDF5 structure upstream's have.
# Runs tst_h5write_cmp built against ours and against the reference, each in
# its own directory, then compares every file pair: h5dump -A -p (object
# addresses filtered out; the _NCProperties version text normalised) and the
# reference ncdump -s.  Usage: tst_h5write_cmp.sh OURS REF [case ...]
ours=$1; ref=$2; shift 2
if [ -z "$ref" ] || [ "$ref" = none ] || [ ! -x "$ref" ]; then
    echo "tst_h5write_cmp: reference build not available; skipping"; exit 77
fi
for tool in h5dump /usr/bin/ncdump; do
    command -v "$tool" > /dev/null 2>&1 || { echo "tst_h5write_cmp: no $tool; skipping"; exit 77; }
done
rm -rf h5w_ours h5w_ref
mkdir h5w_ours h5w_ref || exit 1
(cd h5w_ours && "$ours" "$@") || { echo "tst_h5write_cmp: our program failed"; exit 1; }
(cd h5w_ref && "$ref" "$@") > /dev/null || { echo "tst_h5write_cmp: reference program failed"; exit 1; }

# Object addresses differ with allocation; the provenance names the version.
filt() {
    sed -E -e 's/DATASET [0-9]+ /DATASET /g' -e 's/OFFSET [0-9]+/OFFSET X/g' \
        -e 's/^HDF5 "[^"]*"/HDF5 F/' -e 's/netcdf=[0-9.]+/netcdf=V/' \
        -e '/ATTRIBUTE "_NCProperties"/,/STRSIZE/s/STRSIZE [0-9]+/STRSIZE N/'
}
fail=0; n=0
for f in h5w_ref/*.nc; do
    b=$(basename "$f"); n=$((n + 1))
    if [ ! -f "h5w_ours/$b" ]; then echo "$b: we wrote no file"; fail=1; continue; fi
    opts='-A -p|-A -p -q creation_order|-B -H'
    # Upstream creates in-memory files without creation order on the root
    # group; ours keep it (variable ids survive a reopen): not compared.
    # The reference (4.9.0) does not track attribute creation order on
    # objects it creates in a file it opened (4.10.1 does, as ours): the
    # reopened file's creation-order view is not compared either.
    case $b in h5w_memory.nc|h5w_reopen*.nc) opts='-A -p|-B -H' ;; esac
    IFS='|'; set -f
    for opt in $opts; do
        unset IFS
        h5dump $opt "$f" 2>&1 | filt > "h5w_ref/$b.h5"
        h5dump $opt "h5w_ours/$b" 2>&1 | filt > "h5w_ours/$b.h5"
        if ! diff "h5w_ref/$b.h5" "h5w_ours/$b.h5" > "h5w_$b.h5.diff"; then
            echo "$b: h5dump $opt differs (< reference, > ours):"; head -40 "h5w_$b.h5.diff"; fail=1
            break
        fi
    done
    unset IFS; set +f
    # Variables without fill hold whatever was on disk: headers only there.
    hflag=
    case $b in *nofill*|h5w_storage.nc) hflag=-h ;; esac
    /usr/bin/ncdump -s $hflag "$f" 2>&1 | sed 1d | sed -E 's/netcdf=[0-9.]+/netcdf=V/' > "h5w_ref/$b.cdl"
    /usr/bin/ncdump -s $hflag "h5w_ours/$b" 2>&1 | sed 1d | sed -E 's/netcdf=[0-9.]+/netcdf=V/' > "h5w_ours/$b.cdl"
    if ! diff "h5w_ref/$b.cdl" "h5w_ours/$b.cdl" > "h5w_$b.cdl.diff"; then
        echo "$b: ncdump -s differs (< reference, > ours):"; head -40 "h5w_$b.cdl.diff"; fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "tst_h5write_cmp: the reference wrote no files"; exit 1; }
[ $fail = 0 ] && echo "tst_h5write_cmp: $n files, same structure"
exit $fail
