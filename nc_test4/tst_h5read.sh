#!/bin/sh
# tst_h5read.sh OURS REF SRCDIR: the read side of netCDF-4/HDF5 against the
# reference.  Makes a corpus with the reference's ncgen (-k nc4 / nc7 from the
# tst_h5read_*.cdl files) and with h5py (tst_h5read_h5py.py: pure HDF5), dumps
# each file with tst_h5read_dump built against ours (nc_open, nc_open_mem and
# NC_DISKLESS) and against the reference, and diffs.  Then bad input: every
# truncation and some corruptions of a netCDF-4 file must open with an error
# or succeed, never crash.  Exit 77 without the reference tools.
ours=$1; ref=$2; src=$3
fail=0
if [ -z "$ref" ] || [ "$ref" = none ] || [ ! -x "$ref" ] || [ ! -x /usr/bin/ncgen ]; then
    echo "tst_h5read: reference not available; skipping"
    exit 77
fi
dir=tst_h5read_files
rm -rf "$dir" && mkdir "$dir" || exit 1
for f in all groups; do
    /usr/bin/ncgen -k nc4 -o "$dir/tst_h5read_$f.nc" "$src/tst_h5read_$f.cdl" || { echo "ncgen $f failed"; exit 1; }
done
/usr/bin/ncgen -k nc7 -o "$dir/tst_h5read_classic.nc" "$src/tst_h5read_classic.cdl" || exit 1
have_py=0
if /usr/bin/python3 -c "import h5py" 2>/dev/null; then
    /usr/bin/python3 "$src/tst_h5read_h5py.py" "$dir" && have_py=1
fi
[ $have_py = 1 ] || echo "tst_h5read: no h5py; pure HDF5 files not tested"

for f in "$dir"/*.nc "$dir"/tst_h5read_py_*.h5; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    "$ref" "$f" > "$dir/$b.ref" || { echo "$b: reference dumper failed"; fail=1; continue; }
    for how in "" -mem -diskless; do
        "$ours" $how "$f" > "$dir/$b$how.ours" 2>&1
        st=$?
        if [ $st -ne 0 ]; then
            echo "$b $how: our dumper exited $st"; fail=1; continue
        fi
        if diff "$dir/$b.ref" "$dir/$b$how.ours" > "$dir/$b$how.diff"; then
            echo "$b $how: $(wc -l < "$dir/$b.ref") lines, same"
        else
            echo "$b $how: differs (< reference, > ours):"; head -40 "$dir/$b$how.diff"; fail=1
        fi
    done
done

# Fixed-size string datasets: upstream returns only the first string (it
# reads the whole selection into one string's buffer); ours all of them.
if [ $have_py = 1 ]; then
    if "$ours" "$dir/tst_h5read_fixstr.h5" | grep -q 'data (0): "ab", "cdefg", ""'; then
        echo "fixstr: same as expected"
    else
        echo "fixstr: wrong"; "$ours" "$dir/tst_h5read_fixstr.h5"; fail=1
    fi
fi

# Files only ours opens: they must open and read without error.
if [ $have_py = 1 ]; then
    "$ours" "$dir/tst_h5read_noref.h5" > "$dir/noref.ours" 2>&1
    st=$?
    if [ $st -ne 0 ] || grep -q "open error" "$dir/noref.ours" || ! grep -q "var 2 usesother" "$dir/noref.ours" || ! grep -q "group deep (/g/deep)" "$dir/noref.ours" ||
       [ "$(grep -c '^group' "$dir/noref.ours")" != 3 ]; then
        echo "noref: failed ($st)"; head -20 "$dir/noref.ours"; fail=1
    else
        echo "noref: opens"
    fi
fi

# Bad input: truncations and byte flips must give errors, not crashes.
good="$dir/tst_h5read_groups.nc"
size=$(wc -c < "$good")
n=0
for cut in 0 8 16 40 48 96 200 400 800 1200 2000 3000 4000 6000 8000 10000 12000; do
    [ $cut -lt $size ] || continue
    head -c $cut "$good" > "$dir/bad.nc"
    "$ours" "$dir/bad.nc" > /dev/null 2>&1
    st=$?
    if [ $st -ge 128 ]; then echo "truncated at $cut: crashed ($st)"; fail=1; fi
    n=$((n + 1))
done
for off in 300 700 1100 1500 1900 2500 3300 4100 5000 6100 7000; do
    [ $off -lt $size ] || continue
    /usr/bin/python3 -c "
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
o = int(sys.argv[3])
for i in range(o, min(o + 16, len(d))):
    d[i] ^= 0x5a
open(sys.argv[2], 'wb').write(d)" "$good" "$dir/bad.nc" "$off" || continue
    "$ours" "$dir/bad.nc" > /dev/null 2>&1
    st=$?
    if [ $st -ge 128 ]; then echo "corrupted at $off: crashed ($st)"; fail=1; fi
    n=$((n + 1))
done
echo "bad input: $n files, no crash expected"
exit $fail
