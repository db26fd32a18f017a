#!/bin/sh
# "ncgen -l f77" and "ncgen -l java" against the reference ncgen 4.9.0.
# For every CDL in cdl/ and lang/ (plain, and with -x), our program text must
# equal the reference's once both are put through normalize_lang.py, which
# undoes only the documented differences (ncgen.1, LANGUAGES). Where the
# reference crashes part way (it does on several inputs), what it printed
# before the crash must begin ours. Where "ncgen -b -k nc3" refuses the input
# (the languages write the classic format), ours must fail too, printing
# nothing. With gfortran, each
# f77 program must pass "gfortran -std=legacy -fsyntax-only" against the
# stand-in f77/netcdf.inc (the netCDF-Fortran library is not needed); programs
# holding NaN or infinities (no Fortran 77 literal exists) are skipped there.
# Java text is compared only (netCDF-Java is not available to compile).
# usage: run_lang_tests.sh NCGEN SRCDIR      Exit 77 (skip) without the
# reference ncgen or python3; skipped checks are counted apart from passes.
NCGEN=$1; SRC=$2
# the checks run in scratch directories: make the paths absolute
case $NCGEN in /*) ;; *) NCGEN=$(pwd)/$NCGEN ;; esac
SRC=$(cd "$SRC" && pwd) || exit 1
[ -x "$NCGEN" ] || { echo "no ncgen at $NCGEN"; exit 1; }
REFGEN=${REF_NCGEN:-/usr/bin/ncgen}
NORM="$SRC/normalize_lang.py"
[ -x "$REFGEN" ] || { echo "reference ncgen missing: skip"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 missing: skip"; exit 77; }
GFORTRAN=${GFORTRAN:-$(command -v gfortran)}
W=$(mktemp -d "${TMPDIR:-/tmp}/ncgenlang.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
fail=0; pass=0; skip=0
# NCT_SANITIZE=1 (the sanitizer pass): our ncgen still runs on every case,
# but the reference ncgen, the normalizer and gfortran (none of them ours,
# so nothing for the sanitizers to find) only on every NCT_SAMPLE-th case.
# The other cases check only that ours neither crashes nor trips a
# sanitizer and agrees with "-b -k nc3" on failing; they are not counted
# as passes.
SAMPLE=1
[ -n "$NCT_SANITIZE" ] && [ "$NCT_SANITIZE" != 0 ] && SAMPLE=${NCT_SAMPLE:-4}
ncase=0; nsampled=0
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
ok() { pass=$((pass+1)); }
skipped() { echo "skip: $*"; skip=$((skip+1)); }

# compare one program: $1 lang, $2 ext, $3 cdl, $4 label, rest: extra options
check() {
    lang=$1; ext=$2; cdl=$3; label=$4; shift 4
    d="$W/$label"; mkdir -p "$d"
    ncase=$((ncase+1))
    full=1; [ $((ncase % SAMPLE)) -eq 0 ] || full=0
    (cd "$d" && "$NCGEN" "$@" -l "$lang" "$cdl" > our.$ext 2> our.err); orc=$?
    if [ $orc -gt 128 ]; then bad "$label: our ncgen crashed (rc=$orc)"; return; fi
    if grep -Eq 'runtime error|Sanitizer' "$d/our.err"; then bad "$label: sanitizer report"; head -5 "$d/our.err"; return; fi
    if [ $full -eq 0 ]; then
        (cd "$d" && "$NCGEN" -b -k nc3 -o cls.nc "$cdl" > /dev/null 2>&1); crc=$?
        if [ $crc -gt 128 ]; then bad "$label: our ncgen -b crashed (rc=$crc)"
        elif [ $crc -ne 0 ] && { [ $orc -eq 0 ] || [ -s "$d/our.$ext" ]; }; then bad "$label: classic-incompatible input accepted"
        elif [ $crc -eq 0 ] && [ $orc -ne 0 ]; then bad "$label: our ncgen failed: $(head -2 "$d/our.err")"
        fi
        return
    fi
    nsampled=$((nsampled+1))
    (cd "$d" && "$REFGEN" "$@" -l "$lang" "$cdl" > ref.$ext 2> ref.err); rrc=$?
    # inputs the classic format cannot hold must fail, without output
    # (our -b is checked against the reference by run_ncgen_tests.sh)
    (cd "$d" && "$NCGEN" -b -k nc3 -o cls.nc "$cdl" > /dev/null 2>&1); crc=$?
    if [ $crc -ne 0 ]; then
        if [ $orc -ne 0 ] && [ ! -s "$d/our.$ext" ]; then ok; else bad "$label: classic-incompatible input accepted"; fi
        return
    fi
    if [ $orc -ne 0 ]; then bad "$label: our ncgen failed: $(head -2 "$d/our.err")"; return; fi
    python3 "$NORM" "$lang" our "$cdl" < "$d/our.$ext" > "$d/our.n" || { bad "$label: normalizer failed"; return; }
    if [ $rrc -eq 0 ]; then
        python3 "$NORM" "$lang" ref "$cdl" < "$d/ref.$ext" > "$d/ref.n"
        if cmp -s "$d/ref.n" "$d/our.n"; then ok
        else bad "$label: differs from the reference"; diff "$d/ref.n" "$d/our.n" | head -10; fi
    elif [ $rrc -gt 128 ] && [ -s "$d/ref.$ext" ]; then
        # the reference crashed: the lines it completed must begin ours
        python3 "$NORM" "$lang" ref "$cdl" < "$d/ref.$ext" | sed '$d' > "$d/ref.n"
        n=$(wc -l < "$d/ref.n")
        if head -n "$n" "$d/our.n" | cmp -s - "$d/ref.n"; then ok
        else bad "$label: differs from the reference's partial output"; head -n "$n" "$d/our.n" | diff "$d/ref.n" - | head -10; fi
    else
        skipped "$label: the reference fails on this input (rc=$rrc)"
    fi
    if [ "$lang" = f77 ]; then
        if [ -z "$GFORTRAN" ]; then skipped "$label: no gfortran"
        elif grep -Eiq '(^|[ /(=,])-?(nan|inf)([,/)]|$)' "$d/our.$ext"; then
            skipped "$label: NaN/infinity have no Fortran 77 literal"
        elif (cd "$d" && "$GFORTRAN" -std=legacy -fsyntax-only -I"$SRC/f77" -x f77 our.$ext > gf.err 2>&1); then ok
        else bad "$label: gfortran rejects the program"; head -10 "$d/gf.err"; fi
    fi
}

for cdl in "$SRC"/cdl/*.cdl "$SRC"/lang/*.cdl; do
    name=$(basename "$cdl" .cdl)
    # deliberate data differences from the reference (refbug files marked so)
    grep -q '^// nolang' "$cdl" && continue
    check f77 f "$cdl" "$name-f77"
    check java java "$cdl" "$name-java"
    check f77 f "$cdl" "$name-f77-x" -x
    check java java "$cdl" "$name-java-x" -x
done
check f77 f "$SRC/cdl/types.cdl" "types-f77-M" -M prog
check java java "$SRC/cdl/types.cdl" "types-java-M" -M Prog
check f77 f "$SRC/cdl/types.cdl" "types-f77-o" -o other.nc
check java java "$SRC/cdl/types.cdl" "types-java-o" -o other.nc
# the aliases upstream accepts for -l
for a in fortran77 Fortran77; do
    "$NCGEN" -l $a "$SRC/cdl/types.cdl" > "$W/alias.f" 2>/dev/null && "$NCGEN" -l f77 "$SRC/cdl/types.cdl" | cmp -s - "$W/alias.f" && ok || bad "-l $a"
done
"$NCGEN" -l j "$SRC/cdl/types.cdl" > "$W/alias.java" 2>/dev/null && "$NCGEN" -l java "$SRC/cdl/types.cdl" | cmp -s - "$W/alias.java" && ok || bad "-l j"
# bad input: clean failure, nothing printed
for cdl in "$SRC"/bad/*; do
    for l in f77 java; do
        "$NCGEN" -l $l "$cdl" > "$W/bad.out" 2> "$W/bad.err"; rc=$?
        if [ $rc -eq 0 ] || [ $rc -gt 128 ] || [ -s "$W/bad.out" ]; then bad "bad/$(basename "$cdl") -l $l: rc=$rc"; else ok; fi
    done
done
[ $SAMPLE -gt 1 ] && echo "sampled: $nsampled of $ncase cases under NCT_SANITIZE (the rest: our ncgen run alone, not counted)"
echo "ncgen language tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
