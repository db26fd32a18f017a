#!/bin/sh
# ncgen on the enhanced model, differential against the reference ncgen:
#  - every CDL of the corpus directories, with -k nc4 and -k nc7: when the
#    reference makes a file, ours must too and "ncdump -s" (the reference's)
#    of both must be equal, minus the _NCProperties line (it names the
#    library version); when the reference refuses the input, ours must fail
#    and leave no file;
#  - random enhanced CDL from gen_cdl4.py (seed SEED, N files) with -k nc4;
#    inputs the reference itself rejects or crashes on are counted, not compared;
#  - every bad4/*.cdl fails with a message line the reference also prints.
# Differences listed in ncgen4_exceptions.txt ("name kind reason") are
# expected; a listed difference that disappears fails, so the list stays true.
# usage: run_ncgen4_tests.sh NCGEN SRCDIR N SEED CDLDIR...   (77: no reference)
NCGEN=$1; SRC=$2; N=${3:-40}; SEED=${4:-1}
shift 4
REFGEN=${REF_NCGEN:-/usr/bin/ncgen}; REFDUMP=${REF_NCDUMP:-/usr/bin/ncdump}
[ -x "$REFGEN" ] && [ -x "$REFDUMP" ] || { echo "reference ncgen/ncdump missing: skip"; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ncgen4test.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
EXC="$SRC/ncgen4_exceptions.txt"
pass=0; fail=0; refrej=0; listed=0
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
# is "name kind" a listed difference?
known() { grep -q "^$1 $2 " "$EXC" 2>/dev/null; }
dumpof() { "$REFDUMP" -s "$1" 2>&1 | grep -v '^		:_NCProperties = '; }

# compare NAME KIND CDL: 0 equal, 1 different (message printed), 2 reference rejects
compare() {
    name=$1; k=$2; cdl=$3; d="$W/$name-$k"
    mkdir -p "$d/ref" "$d/our"
    (cd "$d/ref" && "$REFGEN" -b -k "$k" -o "$name.nc" "$cdl" >/dev/null 2>"$d/ref.err")
    rr=$?
    (cd "$d/our" && "$NCGEN" -b -k "$k" -o "$name.nc" "$cdl" >/dev/null 2>"$d/our.err")
    ro=$?
    if [ $ro -gt 128 ]; then echo "$name -k $k: our ncgen crashed"; return 1; fi
    if [ $rr -ne 0 ] || [ ! -f "$d/ref/$name.nc" ]; then
        if [ $ro -eq 0 ] || [ -f "$d/our/$name.nc" ]; then
            [ "$RANDOMCASE" = 1 ] && return 2
            echo "$name -k $k: the reference refuses ($(head -1 "$d/ref.err")), ours does not"; return 1
        fi
        return 2
    fi
    if [ $ro -ne 0 ]; then echo "$name -k $k: our ncgen failed: $(head -2 "$d/our.err")"; return 1; fi
    dumpof "$d/ref/$name.nc" > "$d/ref.cdl"
    dumpof "$d/our/$name.nc" > "$d/our.cdl"
    if cmp -s "$d/ref.cdl" "$d/our.cdl"; then return 0; fi
    echo "$name -k $k: ncdump -s differs"; diff "$d/ref.cdl" "$d/our.cdl" | head -8
    return 1
}

check() {
    compare "$@" > "$W/msg" 2>&1
    r=$?
    if known "$1" "$2"; then
        if [ $r -eq 1 ]; then listed=$((listed+1)); else bad "$1 -k $2: listed in ncgen4_exceptions.txt but now equal"; fi
    elif [ $r -eq 1 ]; then bad "$(cat "$W/msg")"
    elif [ $r -eq 2 ]; then refrej=$((refrej+1))
    else pass=$((pass+1)); fi
}

# "-l c": the program, built against this library (NCGEN4_CC, NCGEN4_CFLAGS,
# NCGEN4_LIBS), must rebuild a file that dumps like ours from -b
lcpass=0
lc() {
    name=$1; k=$2; cdl=$3; d="$W/$name-$k/c"
    [ -n "$NCGEN4_CC" ] && [ -f "$W/$name-$k/our/$name.nc" ] || return 0
    mkdir -p "$d"
    # shellcheck disable=SC2086
    if (cd "$d" && "$NCGEN" -l c -k "$k" -o "$name.nc" "$cdl" > gen.c 2>gen.err) &&
       $NCGEN4_CC $NCGEN4_CFLAGS -o "$d/gen" "$d/gen.c" $NCGEN4_LIBS -lm 2>"$d/cc.err" &&
       (cd "$d" && ./gen) &&
       dumpof "$d/$name.nc" > "$d/c.cdl" && dumpof "$W/$name-$k/our/$name.nc" > "$d/b.cdl" &&
       cmp -s "$d/b.cdl" "$d/c.cdl"; then
        lcpass=$((lcpass+1)); pass=$((pass+1))
    else
        bad "$name -k $k: the -l c program does not rebuild the file: $(head -3 "$d/gen.err" "$d/cc.err" 2>/dev/null | tr '\n' ' ')"
        diff "$d/b.cdl" "$d/c.cdl" 2>/dev/null | head -6
    fi
}

RANDOMCASE=0
for dir in "$@"; do
    for cdl in "$dir"/*.cdl; do
        [ -f "$cdl" ] || continue
        name=$(basename "$cdl" .cdl)
        for k in nc4 nc7; do check "$name" "$k" "$cdl"; lc "$name" "$k" "$cdl"; done
    done
done
corpus="$((pass-lcpass)) passed, $refrej refused by both, $listed listed, $lcpass -l c programs rebuild the file"

# random enhanced CDL
RANDOMCASE=1
p0=$pass; r0=$refrej; l0=$listed
PY=${PYTHON:-/usr/bin/python3}
if [ "$N" -gt 0 ] && [ -x "$PY" ]; then
    mkdir -p "$W/rnd"
    "$PY" "$SRC/gen_cdl4.py" "$SEED" "$N" "$W/rnd" || bad "gen_cdl4.py failed"
    for cdl in "$W"/rnd/*.cdl; do
        [ -f "$cdl" ] || continue
        check "$(basename "$cdl" .cdl)" nc4 "$cdl"
        [ "$LCRANDOM" = 1 ] && lc "$(basename "$cdl" .cdl)" nc4 "$cdl"
    done
else
    echo "python3 missing or N=0: no random CDL"
fi
random="$((pass-p0)) passed, $((refrej-r0)) rejected by the reference, $((listed-l0)) listed"

# errors: our message must be one the reference prints
for cdl in "$SRC"/bad4/*.cdl; do
    [ -f "$cdl" ] || continue
    name=$(basename "$cdl" .cdl)
    kinds=$(sed -n 's|^// kinds: *||p' "$cdl" | head -1)
    for k in ${kinds:-nc4}; do
        d="$W/bad4-$name-$k"; mkdir -p "$d/ref" "$d/our"
        (cd "$d/ref" && "$REFGEN" -b -k "$k" -o x.nc "$cdl" >/dev/null 2>"$d/ref.err")
        (cd "$d/our" && "$NCGEN" -b -k "$k" -o x.nc "$cdl" >/dev/null 2>"$d/our.err")
        rc=$?
        msg=$(head -1 "$d/our.err")
        if [ $rc -eq 0 ] || [ $rc -gt 128 ]; then bad "bad4/$name -k $k: rc=$rc"
        elif [ -n "$(ls "$d/our")" ]; then bad "bad4/$name -k $k: output left behind"
        elif [ -z "$msg" ] || ! grep -qxF -- "$msg" "$d/ref.err"; then
            bad "bad4/$name -k $k: message '$msg' not among the reference's: $(head -2 "$d/ref.err" | tr '\n' ' ')"
        else pass=$((pass+1)); fi
    done
done

echo "corpus: $corpus"
echo "random (seed $SEED, $N files): $random"
echo "ncgen4 tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
