#!/bin/sh
# tst_h5native.sh DUMP NCDUMP NCGEN SRCROOT: the native metadata reader
# (libhdf5/h5n*.c) against the HDF5 path.  Every file of a corpus (the CDL
# of ncdump/test/cdl4, ncdump/test/cdl and nc_test4 through the reference's
# ncgen -k nc4/nc7, or ours without it; files made by the netCDF4 module and
# h5py when Python has them) is read both ways (NETCDF_HDF5_NATIVE_OPEN=0:
# HDF5 only; default: native first) and the full tst_h5read_dump output
# (every inquiry and all data) and `ncdump -s` must be identical.  Files the
# reader must take itself are checked with NETCDF_HDF5_NATIVE_OPEN=2, which
# fails the open instead of falling back.  Then bad input: truncations and
# byte flips of native-readable files must never crash either way.
dump=$1; ncdump=$2; ncgen=$3; root=$4
fail=0
dir=tst_h5native_files
rm -rf "$dir" && mkdir "$dir" || exit 1
gen=/usr/bin/ncgen
[ -x "$gen" ] || gen=$ncgen
# enhanced CDL as nc4, classic CDL as nc7 (the classic model), nc_test4's both
for cdl in "$root"/ncdump/test/cdl4/*.cdl "$root"/ncdump/test/cdl/*.cdl "$root"/nc_test4/*.cdl; do
    [ -f "$cdl" ] || continue
    b=$(basename "$cdl" .cdl)
    case $cdl in */cdl/*) ;; *) "$gen" -k nc4 -o "$dir/$b.nc4" "$cdl" 2>/dev/null || rm -f "$dir/$b.nc4" ;; esac
    case $cdl in */cdl4/*) ;; *) "$gen" -k nc7 -o "$dir/$b.nc7" "$cdl" 2>/dev/null || rm -f "$dir/$b.nc7" ;; esac
done
# and written by our library
for cdl in "$root"/ncdump/test/cdl4/*.cdl; do
    b=$(basename "$cdl" .cdl)
    "$ncgen" -k nc4 -o "$dir/ours_$b.nc4" "$cdl" 2>/dev/null || rm -f "$dir/ours_$b.nc4"
done
# W7's shape, written by ours: 2,000 variables on one dimension (dense links,
# and a REFERENCE_LIST stored as a 'huge' heap object)
awk 'BEGIN { print "netcdf w7 {\ndimensions:\n n = 4 ;\nvariables:";
             for (v = 0; v < 2000; v++) {
                 printf " float var_%05d(n) ;\n  var_%05d:units = \"m s-1\" ;\n", v, v;
                 printf "  var_%05d:scale_factor = %d. ;\n  var_%05d:index = %d ;\n", v, v, v, v }
             print "}" }' > "$dir/w7.txt"
"$ncgen" -k nc4 -o "$dir/ours_w7.nc4" "$dir/w7.txt" || { echo "ncgen of w7 failed"; fail=1; }
must="atomic.nc4 ours_atomic.nc4 groups.nc4 ours_groups.nc4 tst_h5read_classic.nc7 ours_w7.nc4"
if /usr/bin/python3 -c "import netCDF4, numpy" 2>/dev/null &&
   /usr/bin/python3 "$root/nc_test4/tst_h5native_mk.py" "$dir"; then
    must="$must native_dense.nc native_later.nc"
else
    echo "tst_h5native: no netCDF4 module; dense-storage files not tested"
fi
if /usr/bin/python3 -c "import h5py" 2>/dev/null; then
    /usr/bin/python3 "$root/nc_test4/tst_h5read_h5py.py" "$dir" >/dev/null 2>&1 || true
fi

n=0; nnative=0
for f in "$dir"/*; do
    case $f in *.txt) continue ;; esac
    n=$((n + 1))
    b=$(basename "$f")
    NETCDF_HDF5_NATIVE_OPEN=0 "$dump" "$f" > "$dir/$b.h5.txt" 2>&1
    NETCDF_HDF5_NATIVE_OPEN=1 "$dump" "$f" > "$dir/$b.nat.txt" 2>&1
    if ! cmp -s "$dir/$b.h5.txt" "$dir/$b.nat.txt"; then
        echo "$b: dump differs (< HDF5, > native):"; diff "$dir/$b.h5.txt" "$dir/$b.nat.txt" | head -20; fail=1
    fi
    # the special attributes ncdump -s asks for
    NETCDF_HDF5_NATIVE_OPEN=0 "$ncdump" -hs "$f" > "$dir/$b.h5s.txt" 2>&1
    if NETCDF_HDF5_NATIVE_OPEN=2 "$ncdump" -hs "$f" > "$dir/$b.nats.txt" 2>&1; then
        nnative=$((nnative + 1))
        if ! cmp -s "$dir/$b.h5s.txt" "$dir/$b.nats.txt"; then
            echo "$b: ncdump -hs differs (< HDF5, > native):"; diff "$dir/$b.h5s.txt" "$dir/$b.nats.txt" | head -20; fail=1
        fi
    fi
done
echo "tst_h5native: $n files, $nnative read natively, both ways compared"
for b in $must; do
    if ! NETCDF_HDF5_NATIVE_OPEN=2 "$ncdump" -h "$dir/$b" > /dev/null 2>&1; then
        echo "$b: the native reader gave up on it"; fail=1
    fi
done

# Bad input: never a crash (exit codes >= 128 are signals).
i=0
for src in groups.nc4 native_later.nc; do
    [ -f "$dir/$src" ] || continue
    size=$(wc -c < "$dir/$src")
    for cut in 47 300 1500 6000; do
        [ $cut -lt "$size" ] || continue
        head -c $cut "$dir/$src" > "$dir/bad.txt.nc"
        "$dump" "$dir/bad.txt.nc" > /dev/null 2>&1
        st=$?; [ $st -lt 128 ] || { echo "$src cut at $cut: crashed ($st)"; fail=1; }
    done
    for at in 60 200 480 900 2100 4000; do
        [ $at -lt "$size" ] || continue
        i=$((i + 1))
        /usr/bin/python3 -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[int(sys.argv[2])] ^= 0x5a if int(sys.argv[3]) % 2 else 0xff
open(sys.argv[4], 'wb').write(b)" "$dir/$src" $at $i "$dir/bad.txt.nc" 2>/dev/null || continue
        NETCDF_HDF5_NATIVE_OPEN=1 "$dump" "$dir/bad.txt.nc" > /dev/null 2>&1
        st=$?; [ $st -lt 128 ] || { echo "$src byte $at flipped: crashed ($st)"; fail=1; }
    done
done
exit $fail
