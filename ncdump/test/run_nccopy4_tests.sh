#!/bin/sh
# Differential tests of our nccopy on netCDF-4 (and classic) inputs.
# Usage: run_nccopy4_tests.sh OUR_NCCOPY WORKDIR core|cases CDL_DIR...
# Each CDL file is turned into an input file by the reference ncgen
# (netCDF-4, or netCDF-4 classic model for names containing "classic"; the
# CDL files that are classic-compatible also as classic files); each input
# is copied by our nccopy and by the reference nccopy with every option set
# below, and the two copies, dumped by the REFERENCE ncdump -s, must be
# byte-identical (the _NCProperties line, which names the library version,
# is left out), as must the exit status.  Known differences are listed in
# copy4/exceptions.txt ("<option set>|<input>|<reason>", option set "*" for
# all of an input's cases): such a case must still differ (for "*", some
# case of the input), so the test fails once it is fixed.  Prints a count per
# option set and "passed: N failed: M".  Exits 77 without the reference.
set -u
OURCOPY=$1; WORK=$2; MODE=$3; shift 3
REFDUMP=${REF_NCDUMP:-/usr/bin/ncdump}
REFGEN=${REF_NCGEN:-/usr/bin/ncgen}
REFCOPY=${REF_NCCOPY:-/usr/bin/nccopy}
HERE=$(cd "$(dirname "$0")" && pwd)
EXC=$HERE/copy4/exceptions.txt
for t in "$REFDUMP" "$REFGEN" "$REFCOPY"; do
    [ -x "$t" ] || { echo "reference tool $t missing: skipping"; exit 77; }
done
rm -rf "$WORK"; mkdir -p "$WORK/in" "$WORK/ref" "$WORK/our"
pass=0; fail=0
: > "$WORK/counts"

# Inputs: WORK/in/<name>.nc
for dir in "$@"; do
    for cdl in "$dir"/*.cdl; do
        [ -f "$cdl" ] || continue
        b=$(basename "$cdl" .cdl)
        case $b in *classic*) k=nc7 ;; *) k=nc4 ;; esac
        if ! "$REFGEN" -k $k -o "$WORK/in/$b.nc" "$cdl" 2> "$WORK/gen.err"; then
            echo "FAIL: reference ncgen -k $k $b"; fail=$((fail+1)); continue
        fi
        # classic-compatible CDL: also a classic input
        "$REFGEN" -k classic -o "$WORK/in/${b}_c.nc" "$cdl" 2> /dev/null || rm -f "$WORK/in/${b}_c.nc"
    done
done

# Files of the other netCDF-4 writers: netCDF4-python (the reference
# library underneath) and h5py (HDF5 alone: no dimension scales).
PY=${PYTHON:-/usr/bin/python3}
if [ -x "$PY" ] && "$PY" -c 'import netCDF4, numpy' 2>/dev/null; then
    "$PY" - "$WORK/in/py_netcdf4.nc" <<'PYEOF' || { echo "FAIL: netCDF4-python input"; fail=$((fail+1)); }
import sys, warnings, numpy as np, netCDF4
warnings.simplefilter("ignore")
ds = netCDF4.Dataset(sys.argv[1], "w", format="NETCDF4")
ds.history = "made by netCDF4-python"
ds.createDimension("t", None)
ds.createDimension("x", 4)
v = ds.createVariable("temp", "f4", ("t", "x"), zlib=True, complevel=3, shuffle=True,
                      fill_value=-1.0, chunksizes=(1, 2))
v[0:3, :] = np.arange(12, dtype="f4").reshape(3, 4)
s = ds.createVariable("label", str, ("x",))
for i, w in enumerate(["one", "two", "", "f\u00fcnf"]):
    s[i] = w
ct = ds.createCompoundType(np.dtype([("i", "i2"), ("d", "f8")]), "id_t")
c = ds.createVariable("rec", ct, ("x",))
d = np.zeros(4, dtype=[("i", "i2"), ("d", "f8")]); d["i"] = [1, 2, 3, 4]; d["d"] = [0.25, 0.5, 1, 2]
c[:] = d
vl = ds.createVLType("i4", "list_t")
r = ds.createVariable("lists", vl, ("x",))
for i in range(4):
    r[i] = np.arange(i, dtype="i4")
g = ds.createGroup("sub")
g.createDimension("n", 3)
gv = g.createVariable("big", "u8", ("n",), endian="big")
gv[:] = [1, 2, 3]
ds.close()
PYEOF
fi
if [ -x "$PY" ] && "$PY" -c 'import h5py, numpy' 2>/dev/null; then
    "$PY" - "$WORK/in/py_h5py.nc" <<'PYEOF' || { echo "FAIL: h5py input"; fail=$((fail+1)); }
import sys, numpy as np, h5py
with h5py.File(sys.argv[1], "w") as f:
    f.attrs["origin"] = np.bytes_("h5py")
    f.create_dataset("grid", data=np.arange(20, dtype="i4").reshape(4, 5))
    f.create_dataset("z", data=np.linspace(0, 1, 16), chunks=(4,), compression="gzip", shuffle=True)
    f.create_group("g").create_dataset("b", data=np.array([1, 2, 250], dtype="u1"))
PYEOF
fi

known() {   # known OPTS INPUT: prints the reason if listed ("*": any options)
    [ -f "$EXC" ] || return 1
    awk -F'|' -v o="$1" -v i="$2" '($1 == o || $1 == "*") && $2 == i { print $3; found = 1; exit } END { exit !found }' "$EXC"
}
wildcard() { [ -f "$EXC" ] && awk -F'|' -v i="$1" '$1 == "*" && $2 == i { f = 1 } END { exit !f }' "$EXC"; }
: > "$WORK/wild_used"

# cmp_copy TAG INPUT OPTIONS...
cmp_copy() {
    tag=$1; f=$2; shift 2
    rm -f "$WORK/ref/c.nc" "$WORK/our/c.nc"
    "$REFCOPY" "$@" "$WORK/in/$f" "$WORK/ref/c.nc" > "$WORK/ref.err" 2>&1; rs=$?
    "$OURCOPY" "$@" "$WORK/in/$f" "$WORK/our/c.nc" > "$WORK/our.err" 2>&1; os=$?
    what=""
    if [ $rs -ne $os ]; then
        what="exit $os, reference $rs"
    elif [ $rs -eq 0 ]; then
        # -v/-g/-G leave variables unwritten (NOFILL: undefined values)
        case $tag in -v|-g|-G) h=-h ;; *) h= ;; esac
        "$REFDUMP" -s $h "$WORK/ref/c.nc" 2>&1 | grep -v '_NCProperties = ' > "$WORK/ref.cdl"
        "$REFDUMP" -s $h "$WORK/our/c.nc" 2>&1 | grep -v '_NCProperties = ' > "$WORK/our.cdl"
        cmp -s "$WORK/ref.cdl" "$WORK/our.cdl" || what="dumps differ"
    fi
    why=$(known "$*" "$f")
    if [ -n "$what" ] && [ -n "$why" ]; then
        echo "known: nccopy $* $f: $what ($why)"; ok=1
        echo "$f" >> "$WORK/wild_used"
    elif [ -n "$why" ] && wildcard "$f"; then
        ok=1    # a whole-file entry: only needs some case still differing
    elif [ -n "$what" ]; then
        echo "FAIL: nccopy $* $f: $what"
        if [ "$what" = "dumps differ" ]; then diff "$WORK/ref.cdl" "$WORK/our.cdl" | head -10
        else head -3 "$WORK/our.err" "$WORK/ref.err"; fi
        ok=0
    elif [ -n "$why" ]; then
        echo "FAIL: nccopy $* $f: listed as known ($why) but now agrees"; ok=0
    else
        ok=1
    fi
    if [ $ok = 1 ]; then pass=$((pass+1)); echo "$tag 1" >> "$WORK/counts"
    else fail=$((fail+1)); echo "$tag 0" >> "$WORK/counts"; fi
}

# core: a few option sets for every input; cases: the list in copy4/cases.txt
[ "$MODE" = core ] && for nc in "$WORK"/in/*.nc; do
    f=$(basename "$nc")
    cmp_copy plain "$f"
    for k in nc4 nc7 classic; do cmp_copy "-k" "$f" -k $k; done
    cmp_copy "-s" "$f" -d 1 -s
    cmp_copy "-F" "$f" -F '*,307,9'
done
if [ "$MODE" = cases ] && [ -f "$HERE/copy4/cases.txt" ]; then
    # per-file cases: "<input file>|<tag>|<options>" (options split on blanks)
    while IFS='|' read -r f tag opts; do
        case $f in ''|'#'*) continue ;; esac
        [ -f "$WORK/in/$f" ] || { echo "FAIL: case input $f missing"; fail=$((fail+1)); continue; }
        eval "set -- $opts"
        cmp_copy "$tag" "$f" "$@"
    done < "$HERE/copy4/cases.txt"
fi
# a whole-file entry no case of the file needed any more: fixed
if [ -f "$EXC" ]; then
    [ "$MODE" = core ] && for f in $(awk -F'|' '$1 == "*" { print $2 }' "$EXC"); do
        [ -f "$WORK/in/$f" ] || continue
        grep -qx "$f" "$WORK/wild_used" || { echo "FAIL: $f listed as known for all options but now agrees"; fail=$((fail+1)); }
    done
fi
echo "per option set (passed/total):"
awk '{ t[$1]++; p[$1] += $2 } END { for (k in t) printf "  %-8s %d/%d\n", k, p[k], t[k] }' "$WORK/counts" | sort
echo "passed: $pass failed: $fail"
[ $fail -eq 0 ]
