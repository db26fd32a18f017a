#!/bin/sh
# nccopy: refusing to copy a file onto itself, and the size options.
# Usage: tst_nccopy_args.sh OUR_NCCOPY OUR_NCDUMP CDL_DIR WORKDIR
#  1. "nccopy IN IN" and other names of the same file (./IN, DIR/../IN, a
#     symbolic link, a hard link), with and without -r/-w, must fail with
#     the reference's message and exit status and leave IN byte for byte
#     intact; a copy to another file still works.
#  2. -m/-h/-e values: exit status and message as the reference where the
#     reference is well defined; sizes that do not fit in size_t (1e20,
#     2^64-1, inf, nan) are refused instead of looping on a 0-byte buffer
#     (every run has a time limit, so a regression fails, not hangs);
#     accepted values give a correct copy.
#  3. A header claiming 2^31-1 records with no record data to copy is
#     copied at once, as the reference copies it.
# Exits 77 without the reference tools.
set -u
OURCOPY=$1; OURDUMP=$2; CDLDIR=$3; WORK=$4
REFGEN=${REF_NCGEN:-/usr/bin/ncgen}
REFCOPY=${REF_NCCOPY:-/usr/bin/nccopy}
for t in "$REFGEN" "$REFCOPY"; do
    [ -x "$t" ] || { echo "reference tool $t missing: skipping"; exit 77; }
done
command -v timeout > /dev/null || { echo "timeout(1) missing: skipping"; exit 77; }
rm -rf "$WORK"; mkdir -p "$WORK/sub"
pass=0; fail=0
ok() { pass=$((pass+1)); }
failed() { fail=$((fail+1)); echo "FAIL: $*"; }

"$REFGEN" -o "$WORK/in.nc" "$CDLDIR/coords.cdl" || { echo "FAIL: ncgen"; exit 1; }
"$REFGEN" -k cdf5 -o "$WORK/big.nc" "$CDLDIR/alltypes.cdl" || { echo "FAIL: ncgen"; exit 1; }
"$OURDUMP" "$WORK/in.nc" | sed 1d > "$WORK/in.cdl"

# --- 1. same file -----------------------------------------------------------
cp "$WORK/in.nc" "$WORK/in.orig"
ln -s in.nc "$WORK/sym.nc"
ln "$WORK/in.nc" "$WORK/hard.nc"
( cd "$WORK" && "$REFCOPY" in.nc in.nc ) > /dev/null 2> "$WORK/ref.err"; rs=$?
sed 's|^[^:]*: ||' "$WORK/ref.err" > "$WORK/ref.msg"
for args in "in.nc in.nc" "in.nc ./in.nc" "./in.nc in.nc" "in.nc sub/../in.nc" \
            "in.nc sym.nc" "sym.nc in.nc" "in.nc hard.nc" "hard.nc sym.nc" \
            "-r in.nc ./in.nc" "-w in.nc ./in.nc" "-k cdf5 in.nc hard.nc" "-u in.nc sym.nc"; do
    # shellcheck disable=SC2086
    ( cd "$WORK" && timeout 20 "$OURCOPY" $args ) > /dev/null 2> "$WORK/our.err"; os=$?
    sed 's|^[^:]*: ||' "$WORK/our.err" > "$WORK/our.msg"
    if [ $os -ne $rs ]; then
        failed "nccopy $args: exit $os, reference (same name) $rs"
    elif ! cmp -s "$WORK/ref.msg" "$WORK/our.msg"; then
        failed "nccopy $args: message '$(cat "$WORK/our.err")', reference '$(cat "$WORK/ref.err")'"
    else
        ok
    fi
    if ! cmp -s "$WORK/in.orig" "$WORK/in.nc"; then
        failed "nccopy $args: input modified"
        cat "$WORK/in.orig" > "$WORK/in.nc"     # keeps the hard link
    fi
done
[ -L "$WORK/sym.nc" ] && ok || failed "symbolic link replaced"
# a different file, or a new name, still works
for out in other.nc sub/other.nc; do
    rm -f "$WORK/$out"
    if ( cd "$WORK" && timeout 20 "$OURCOPY" in.nc "$out" ) &&
       "$OURDUMP" "$WORK/$out" | sed 1d | cmp -s - "$WORK/in.cdl"; then ok; else failed "nccopy in.nc $out"; fi
done

# --- 2. size options ----------------------------------------------------------
# values the reference handles in a defined way: same exit status and message
for o in m h e; do
    for v in 0 1 7 1.5 0.5 1k 1K 1kb 2M 1e3 0x10 " 5" "" -1 1E 1x abc 1e400 1e-400; do
        for f in in.nc big.nc; do
            rm -f "$WORK/o_ref.nc" "$WORK/o_our.nc"
            timeout 20 "$REFCOPY" -$o "$v" "$WORK/$f" "$WORK/o_ref.nc" > /dev/null 2> "$WORK/ref.err"; rs=$?
            timeout 20 "$OURCOPY" -$o "$v" "$WORK/$f" "$WORK/o_our.nc" > /dev/null 2> "$WORK/our.err"; os=$?
            sed 's|^[^:]*: ||' "$WORK/ref.err" > "$WORK/ref.msg"
            sed 's|^[^:]*: ||' "$WORK/our.err" > "$WORK/our.msg"
            if [ $os -ne $rs ]; then
                failed "nccopy -$o '$v' $f: exit $os, reference $rs"
            elif ! cmp -s "$WORK/ref.msg" "$WORK/our.msg"; then
                failed "nccopy -$o '$v' $f: message '$(cat "$WORK/our.err")', reference '$(cat "$WORK/ref.err")'"
            elif [ $os -eq 0 ] && ! cmp -s "$WORK/o_ref.nc" "$WORK/o_our.nc"; then
                failed "nccopy -$o '$v' $f: output differs from the reference's"
            else
                ok
            fi
        done
    done
    # beyond size_t: refused with a message (the reference's cast is undefined)
    for v in 1e20 18446744073709551615 18446744073709551616 1e308 inf nan 2e4P; do
        rm -f "$WORK/o_our.nc"
        timeout 20 "$OURCOPY" -$o "$v" "$WORK/in.nc" "$WORK/o_our.nc" > /dev/null 2> "$WORK/our.err"; os=$?
        if [ $os -eq 1 ] && grep -q "Value for '-$o' option out of range: $v\$" "$WORK/our.err"; then
            ok
        else
            failed "nccopy -$o '$v': exit $os ($(cat "$WORK/our.err")), expected refusal"
        fi
    done
    # large but representable: a correct copy (the buffer is never larger
    # than the largest variable), where the reference may run out of memory
    for v in 1e19 1P 1G 4294967296; do
        rm -f "$WORK/o_our.nc"
        if timeout 20 "$OURCOPY" -$o "$v" "$WORK/in.nc" "$WORK/o_our.nc" &&
           "$OURDUMP" "$WORK/o_our.nc" | sed 1d | cmp -s - "$WORK/in.cdl"; then
            ok
        else
            failed "nccopy -$o '$v': no correct copy"
        fi
    done
done
# -d takes an integer as upstream (strtol, truncated to int in the message)
for v in 0 10 -1 99999999999 abc; do
    timeout 20 "$REFCOPY" -d "$v" -k classic "$WORK/in.nc" "$WORK/o_ref.nc" > /dev/null 2> "$WORK/ref.err"; rs=$?
    timeout 20 "$OURCOPY" -d "$v" -k classic "$WORK/in.nc" "$WORK/o_our.nc" > /dev/null 2> "$WORK/our.err"; os=$?
    sed 's|^[^:]*: ||' "$WORK/ref.err" > "$WORK/ref.msg"
    sed 's|^[^:]*: ||' "$WORK/our.err" > "$WORK/our.msg"
    if [ $os -eq $rs ] && cmp -s "$WORK/ref.msg" "$WORK/our.msg"; then ok; else
        failed "nccopy -d '$v': exit $os ($(cat "$WORK/our.err")), reference $rs ($(cat "$WORK/ref.err"))"
    fi
done
# --- 3. a header claiming 2^31-1 records, none of them to copy -------------------
# (no record variable selected): the copy must not walk the records; output
# byte-identical to the reference's.
printf 'netcdf nr {\ndimensions:\n t = UNLIMITED ;\n n = 2 ;\nvariables:\n int x(n) ;\n int r(t, n) ;\ndata:\n x = 1, 2 ;\n}\n' > "$WORK/nr.cdl"
"$REFGEN" -o "$WORK/nr.nc" "$WORK/nr.cdl" || { echo "FAIL: ncgen"; exit 1; }
printf '\177\377\377\377' | dd of="$WORK/nr.nc" bs=1 seek=4 conv=notrunc 2> /dev/null
for args in "-V x" "-v x" "-k cdf5 -v x" "-u -V x"; do
    rm -f "$WORK/o_ref.nc" "$WORK/o_our.nc"
    # shellcheck disable=SC2086
    timeout 60 "$REFCOPY" $args "$WORK/nr.nc" "$WORK/o_ref.nc" > /dev/null 2>&1; rs=$?
    # shellcheck disable=SC2086
    timeout 10 "$OURCOPY" $args "$WORK/nr.nc" "$WORK/o_our.nc" > /dev/null 2>&1; os=$?
    if [ $os -ne $rs ]; then
        failed "nccopy $args (2^31-1 records): exit $os, reference $rs"
    elif [ $rs -eq 0 ] && ! cmp -s "$WORK/o_ref.nc" "$WORK/o_our.nc"; then
        failed "nccopy $args (2^31-1 records): output differs from the reference's"
    else
        ok
    fi
done
echo "passed: $pass failed: $fail"
[ $fail -eq 0 ]
