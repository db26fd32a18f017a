#!/bin/sh
# ncgen interop tests: for every CDL in cdl/, our "ncgen -b" output must be
# byte-identical to the reference ncgen's for each format listed in the file's
# "// kinds:" line, our file must dump (reference ncdump) like the reference's,
# and "ncgen -l c" must give a program that rebuilds the same bytes (files
# marked "// nolcbytes:" only build and run it).
# Files marked "// refbug:" show a reference bug: only ncdump of ours is
# checked against the expected dump in expected/<name>.cdl.
# Every file in bad/ must fail cleanly: non-zero exit, no output file.
# usage: run_ncgen_tests.sh NCGEN SRCDIR [CC CFLAGS LIBS]
# Exit 77 (skip) without the reference tools.
NCGEN=$1; SRC=$2; CC=${3:-}; CINC=${4:-}; CLIB=${5:-}
REFGEN=${REF_NCGEN:-/usr/bin/ncgen}; REFDUMP=${REF_NCDUMP:-/usr/bin/ncdump}
[ -x "$REFGEN" ] && [ -x "$REFDUMP" ] || { echo "reference ncgen/ncdump missing: skip"; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ncgentest.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
fail=0; pass=0
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
ok() { pass=$((pass+1)); }
kflag() { case $1 in default) echo "";; *) echo "-k $1";; esac; }
for cdl in "$SRC"/cdl/*.cdl; do
    name=$(basename "$cdl" .cdl)
    kinds=$(sed -n 's|^// kinds: *||p' "$cdl" | head -1)
    refbug=$(grep -c '^// refbug' "$cdl")
    # "-l c" prints values as upstream does, which loses a NaN's sign and -0:
    # such programs must build and run but cannot rebuild the same bytes
    nolcbytes=$(grep -c '^// nolcbytes' "$cdl")
    for k in ${kinds:-nc3}; do
        kf=$(kflag "$k")
        d="$W/$name-$k"; mkdir -p "$d/ref" "$d/our" "$d/c"
        # shellcheck disable=SC2086
        if ! "$NCGEN" -b $kf -o "$d/our/$name.nc" "$cdl" 2>"$d/our.err"; then
            bad "$name -k $k: our ncgen failed: $(head -3 "$d/our.err")"; continue
        fi
        if [ "$refbug" -gt 0 ]; then
            exp="$SRC/expected/$name.cdl"
            "$REFDUMP" "$d/our/$name.nc" > "$d/our.cdl" 2>&1
            if [ -f "$exp" ] && cmp -s "$exp" "$d/our.cdl"; then ok; else bad "$name -k $k: dump differs from expected/$name.cdl"; diff "$exp" "$d/our.cdl" | head -10; fi
        else
            # shellcheck disable=SC2086
            (cd "$d/ref" && "$REFGEN" -b $kf -o "$name.nc" "$cdl" >/dev/null 2>&1)
            if cmp "$d/ref/$name.nc" "$d/our/$name.nc" >/dev/null 2>&1; then ok; else bad "$name -k $k: binary differs from reference"; fi
            "$REFDUMP" "$d/ref/$name.nc" > "$d/ref.cdl" 2>&1
            "$REFDUMP" "$d/our/$name.nc" > "$d/our.cdl" 2>&1
            if cmp -s "$d/ref.cdl" "$d/our.cdl"; then ok; else bad "$name -k $k: ncdump differs"; diff "$d/ref.cdl" "$d/our.cdl" | head -10; fi
        fi
        # -x (no fill) must match too
        if [ "$refbug" -eq 0 ]; then
            # shellcheck disable=SC2086
            "$NCGEN" -x -b $kf -o "$d/our/x.nc" "$cdl" 2>/dev/null
            # shellcheck disable=SC2086
            (cd "$d/ref" && "$REFGEN" -x -b $kf -o "x.nc" "$cdl" >/dev/null 2>&1)
            if cmp "$d/ref/x.nc" "$d/our/x.nc" >/dev/null 2>&1; then ok; else bad "$name -k $k -x: binary differs from reference"; fi
        fi
        if [ -n "$CC" ]; then
            # shellcheck disable=SC2086
            if "$NCGEN" -l c $kf -o "$d/c/$name.nc" "$cdl" > "$d/c/gen.c" 2>"$d/c.err" &&
               $CC $CINC -o "$d/c/gen" "$d/c/gen.c" $CLIB -lm 2>"$d/cc.err" &&
               (cd "$d/c" && ./gen) &&
               { [ "$nolcbytes" -gt 0 ] || cmp "$d/c/$name.nc" "$d/our/$name.nc" >/dev/null 2>&1; }; then ok
            else bad "$name -k $k: -l c program does not rebuild the file"; head -5 "$d/cc.err" "$d/c.err"; fi
        fi
    done
done
for cdl in "$SRC"/bad/*; do
    name=$(basename "$cdl")
    d="$W/bad-$name"; mkdir -p "$d"
    out="$d/out.nc"
    (cd "$d" && "$NCGEN" -b -o "$out" "$cdl" > "$d/stdout" 2> "$d/stderr")
    rc=$?
    if [ $rc -eq 0 ]; then bad "bad/$name: exit 0"
    elif [ $rc -gt 128 ]; then bad "bad/$name: crashed (rc=$rc)"
    elif [ -e "$out" ] || [ "$(ls "$d" | grep -v '^std' | wc -l)" -ne 0 ]; then bad "bad/$name: output left behind"
    elif ! grep -q 'ncgen\|syntax\|must\|Input' "$d/stderr"; then bad "bad/$name: no error message"
    else ok; fi
done
# without -o the file is named after the input file (not the dataset), as upstream
d="$W/names"; mkdir -p "$d/ref" "$d/our" "$d/refin" "$d/ourin"
cp "$SRC/cdl/types.cdl" "$d/other.name.cdl"
(cd "$d/ref" && "$REFGEN" -b "$d/other.name.cdl" >/dev/null 2>&1)
(cd "$d/our" && "$NCGEN" -b "$d/other.name.cdl" >/dev/null 2>&1)
(cd "$d/refin" && "$REFGEN" -b < "$d/other.name.cdl" >/dev/null 2>&1)
(cd "$d/ourin" && "$NCGEN" -b < "$d/other.name.cdl" >/dev/null 2>&1)
if [ "$(ls "$d/ref")" = "$(ls "$d/our")" ] && [ "$(ls "$d/refin")" = "$(ls "$d/ourin")" ] && [ -n "$(ls "$d/our")" ]; then ok
else bad "default output names: ref $(ls "$d/ref") $(ls "$d/refin"), ours $(ls "$d/our") $(ls "$d/ourin")"; fi
# a bad token of 10 MB: the message must stay short (upstream overflows a buffer)
d="$W/hugetoken"; mkdir -p "$d"
{ printf 'netcdf h {\nvariables:\n int v ;\ndata:\n v = '; head -c 10000000 /dev/zero | tr '\0' '9'; printf ' ;\n}\n'; } > "$d/h.cdl"
(cd "$d" && "$NCGEN" -b -o "$d/out.nc" "$d/h.cdl" > "$d/stdout" 2> "$d/stderr")
rc=$?
size=$(wc -c < "$d/stderr")
if [ $rc -ne 1 ] || [ "$size" -gt 2000 ] || ! grep -q 'out of range' "$d/stderr"; then
    bad "huge token: rc=$rc, $size bytes of message"
else ok; fi
echo "ncgen tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
