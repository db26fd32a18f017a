#!/bin/sh
# Differential tests of our ncdump and nccopy against the reference tools.
# Usage: run_ncdump_tests.sh OUR_NCDUMP OUR_NCCOPY CDL_DIR [WORKDIR] [ncdump|nccopy|errors|all]
# Each CDL file is turned into a netCDF file with the reference ncgen; our
# ncdump's output (several option sets) must equal the reference ncdump's
# byte for byte, exit codes must agree on error cases, and our nccopy's
# output must dump like the reference nccopy's.  Exits 77 (skip) when the
# reference tools are missing.
set -u
OURDUMP=$1; OURCOPY=$2; CDLDIR=$3
WORK=${4:-$(mktemp -d "${TMPDIR:-/tmp}/ncdtest.XXXXXX")}
WHAT=${5:-all}
REFDUMP=${REF_NCDUMP:-/usr/bin/ncdump}
REFGEN=${REF_NCGEN:-/usr/bin/ncgen}
REFCOPY=${REF_NCCOPY:-/usr/bin/nccopy}
for t in "$REFDUMP" "$REFGEN" "$REFCOPY"; do
    [ -x "$t" ] || { echo "reference tool $t missing: skipping"; exit 77; }
done
mkdir -p "$WORK"
pass=0; fail=0
failed() { fail=$((fail+1)); echo "FAIL: $*"; }
# NCT_SANITIZE=1 (the sanitizer pass): the per-file sweeps run only every
# NCT_SAMPLE-th (file, options) case, so that each input still goes through
# our tools under several option sets; the cases left out are not counted.
SAMPLE=1
[ -n "${NCT_SANITIZE:-}" ] && [ "${NCT_SANITIZE:-}" != 0 ] && SAMPLE=${NCT_SAMPLE:-3}
ncase=0; nrun=0; sweep=0
# 0 when this sweep case is left out
take() {
    [ $sweep -eq 1 ] || return 0
    ncase=$((ncase+1))
    [ $((ncase % SAMPLE)) -eq 0 ] || [ $SAMPLE -eq 1 ] || return 1
    nrun=$((nrun+1))
}

# Builds WORK/<name>.nc (and a 64-bit offset copy) from each CDL file.
make_inputs() {
    : > "$WORK/inputs.list"
    for cdl in "$CDLDIR"/*.cdl; do
        b=$(basename "$cdl" .cdl)
        case $b in *cdf5*) k=cdf5 ;; *) k=classic ;; esac
        "$REFGEN" -k $k -o "$WORK/$b.nc" "$cdl" && echo "$b.nc" >> "$WORK/inputs.list" || failed "ncgen $b"
        if [ $k = classic ]; then
            "$REFGEN" -k 64-bit-offset -o "$WORK/${b}_64.nc" "$cdl" && echo "${b}_64.nc" >> "$WORK/inputs.list" || failed "ncgen -k 64 $b"
        fi
    done
}

# Compares stdout and exit status of both ncdumps for one option set.
cmp_dump() {
    f=$1; shift
    take || return 0
    ( cd "$WORK" && "$REFDUMP" "$@" "$f" ) > "$WORK/ref.out" 2> "$WORK/ref.err"; rs=$?
    ( cd "$WORK" && "$OURDUMP" "$@" "$f" ) > "$WORK/our.out" 2> "$WORK/our.err"; os=$?
    if [ $rs -ne $os ]; then
        failed "ncdump $* $f: exit $os, reference $rs"; return
    fi
    # Known difference: for a scalar under -f f the reference prints an
    # index read from outside its array (34 with glibc); ours prints 1.
    case "$*" in *"-f f"*)
        sed 's|^\( .* = .*[;,]  // .*\)(34)$|\1(1)|' "$WORK/ref.out" > "$WORK/ref.fix" && mv "$WORK/ref.fix" "$WORK/ref.out" ;;
    esac
    if ! cmp -s "$WORK/ref.out" "$WORK/our.out"; then
        failed "ncdump $* $f: output differs"
        diff "$WORK/ref.out" "$WORK/our.out" | head -10
        return
    fi
    pass=$((pass+1))
}

run_ncdump() {
    for f in $(cat "$WORK/inputs.list"); do
        nc="$WORK/$f"
        cmp_dump "$f"
        cmp_dump "$f" -h
        cmp_dump "$f" -c
        cmp_dump "$f" -b c
        cmp_dump "$f" -b f
        cmp_dump "$f" -f c
        cmp_dump "$f" -f f
        cmp_dump "$f" -p 3,5
        cmp_dump "$f" -p 9,17
        cmp_dump "$f" -l 40
        cmp_dump "$f" -l 10
        cmp_dump "$f" -t
        cmp_dump "$f" -i
        cmp_dump "$f" -x
        cmp_dump "$f" -x -h
        cmp_dump "$f" -k
        cmp_dump "$f" -w
        cmp_dump "$f" -n renamed
        cmp_dump "$f" -n "odd name{}"
        cmp_dump "$f" -Xm
        cmp_dump "$f" -F
        case $f in cdf5*) ;; *) cmp_dump "$f" -s ;; esac
        # -v with the first two variables of the file
        vars=$("$REFDUMP" -h "$nc" | awk '/^variables:/{v=1;next} /^$/{v=0} v && /^\t[a-z]/ {sub(/\(.*/,""); sub(/ ;$/,""); n=split($0,a," "); print a[n]}' | grep -v '\\' | head -2 | tr '\n' ',' | sed 's/,$//')
        if [ -n "$vars" ]; then
            cmp_dump "$f" -v "$vars"
            cmp_dump "$f" -v "$vars" -x
            cmp_dump "$f" -h -v "$vars"
        fi
    done
}

run_errors() {
    cmp_dump nosuchfile.nc
    cmp_dump alltypes.nc -v nosuchvar
    cmp_dump alltypes.nc -Z
    cmp_dump alltypes.nc -l 5
    cmp_dump alltypes.nc -b x
    cmp_dump alltypes.nc -p 0
    cmp_dump alltypes.nc -p 3,x
    cmp_dump alltypes.nc -X z
    cmp_dump alltypes.nc -g grp
    # Known difference: the reference fails on -s for CDF-5 files with
    # variables; ours prints the header and _Format = "cdf5".
    ( cd "$WORK" && "$OURDUMP" -s -h cdf5.nc ) > "$WORK/our.out" 2>&1; os=$?
    if [ $os -eq 0 ] && grep -q '^		:_Format = "cdf5" ;$' "$WORK/our.out"; then
        pass=$((pass+1))
    else
        failed "ncdump -s on CDF-5 (exit $os)"
    fi
    printf 'not a netcdf file\n' > "$WORK/garbage.dat"
    cmp_dump garbage.dat
    ( "$REFDUMP" > /dev/null 2>&1 ); rs=$?
    ( "$OURDUMP" > /dev/null 2>&1 ); os=$?
    [ $rs -eq $os ] && pass=$((pass+1)) || failed "ncdump without arguments: exit $os, reference $rs"
    ( cd "$WORK" && "$REFDUMP" alltypes.nc alltypes.nc > /dev/null 2>&1 ); rs=$?
    ( cd "$WORK" && "$OURDUMP" alltypes.nc alltypes.nc > /dev/null 2>&1 ); os=$?
    [ $rs -eq $os ] && pass=$((pass+1)) || failed "ncdump with two files: exit $os, reference $rs"
}

# nccopy: our copy dumped must equal the reference copy dumped; files must
# be byte-identical (both tools write deterministic classic files).
cmp_copy() {
    f=$1; shift
    take || return 0
    rm -f "$WORK/copy_ref.nc" "$WORK/copy_our.nc"
    "$REFCOPY" "$@" "$WORK/$f" "$WORK/copy_ref.nc" > "$WORK/ref.err" 2>&1; rs=$?
    "$OURCOPY" "$@" "$WORK/$f" "$WORK/copy_our.nc" > "$WORK/our.err" 2>&1; os=$?
    if [ $rs -ne $os ]; then
        failed "nccopy $* $f: exit $os, reference $rs"; cat "$WORK/our.err" "$WORK/ref.err" | head -4; return
    fi
    if [ $rs -ne 0 ]; then pass=$((pass+1)); return; fi
    "$REFDUMP" -n x "$WORK/copy_ref.nc" > "$WORK/ref.cdl" 2>&1
    "$REFDUMP" -n x "$WORK/copy_our.nc" > "$WORK/our.cdl" 2>&1
    if ! cmp -s "$WORK/ref.cdl" "$WORK/our.cdl"; then
        failed "nccopy $* $f: dumps differ"; diff "$WORK/ref.cdl" "$WORK/our.cdl" | head -10; return
    fi
    if ! cmp -s "$WORK/copy_ref.nc" "$WORK/copy_our.nc"; then
        failed "nccopy $* $f: files not byte-identical"; return
    fi
    pass=$((pass+1))
}

run_nccopy() {
    for f in $(cat "$WORK/inputs.list"); do
        nc="$WORK/$f"
        cmp_copy "$f"
        for k in classic 64-bit-offset cdf5 1 2 5 nc3 nc6 nc5 64-bit-data; do
            cmp_copy "$f" -k $k
        done
        cmp_copy "$f" -u
        cmp_copy "$f" -k cdf5 -u
        cmp_copy "$f" -r
        cmp_copy "$f" -m 1k
        cmp_copy "$f" -w
        cmp_copy "$f" -h 1M
    done
    cmp_copy alltypes.nc -V b,s,r
    cmp_copy alltypes.nc -V f -G title
    cmp_copy coords.nc -V temp
    cmp_copy coords.nc -G Conventions
    # netCDF-4-only options with classic output are accepted and ignored
    cmp_copy coords.nc -k classic -d 1
    cmp_copy coords.nc -k cdf5 -s
    cmp_copy coords.nc -6 -d 0
    cmp_copy coords.nc -d 0
    cmp_copy coords.nc -3 -c temp:1,2,2
    cmp_copy coords.nc -c temp/1,2,2
    cmp_copy coords.nc -k bogus
    cmp_copy coords.nc -V nosuch
    cmp_copy nosuchfile.nc
}

make_inputs
case $WHAT in
    ncdump) sweep=1; run_ncdump ;;
    errors) run_errors ;;
    nccopy) sweep=1; run_nccopy ;;
    *) sweep=1; run_ncdump; sweep=0; run_errors; sweep=1; run_nccopy ;;
esac
[ $SAMPLE -gt 1 ] && [ $ncase -gt 0 ] && echo "sampled: $nrun of $ncase cases under NCT_SANITIZE"
echo "passed: $pass failed: $fail"
[ $fail -eq 0 ]
