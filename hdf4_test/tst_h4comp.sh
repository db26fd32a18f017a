#!/bin/sh
# tst_h4comp.sh NCDUMP SRCDIR WORK: compressed and chunked HDF4 data sets.
# h4comp.cdl (every type ncgen-hdf writes) through ncgen-hdf, then hrepack
# compresses it (RLE, skipping Huffman with skip 1 and 4, deflate), plain and
# chunked; each file must hold the coder asked for (its compression headers)
# and dump exactly as the uncompressed original.  Then every integer data
# set of the original, a chunked file and files tst_h4write.py and
# tst_h4gdal.py left in WORK/w and WORK/g (the SD library's own writer with
# N-bit too, GDAL) is compared value for value with `hdp dumpsds`; the szip files (which
# Debian's hdp cannot decode) dump as the deflate files they were made from.
set -u
NCDUMP=$1 SRC=$2 WORK=$3
PY=${PYTHON:-python3}
for t in ncgen-hdf hrepack hdp; do
    command -v $t > /dev/null 2>&1 || { echo "SKIP: no $t (hdf4-tools)"; exit 77; }
done
mkdir -p "$WORK/c" || exit 1
cd "$WORK/c" || exit 1
fail=0
ncgen-hdf -o base.hdf "$SRC/h4comp.cdl" || exit 1
"$NCDUMP" base.hdf | sed 1d > base.cdl || fail=1
# name, hrepack -t, coder expected in every compressed header (0: none)
while read -r name how code; do
    how=$(echo "$how" | tr '_' ' ')
    for chunk in no 2x25; do
        out=${name}_$chunk.hdf
        if [ $chunk = no ]; then
            hrepack -m 1 -i base.hdf -o "$out" -t "*:$how" > /dev/null 2>&1 || { echo "hrepack $how"; fail=1; continue; }
        else
            hrepack -m 1 -i base.hdf -o "$out" -t "*:$how" -c "*:$chunk" > /dev/null 2>&1 || { echo "hrepack $how -c"; fail=1; continue; }
        fi
        codes=$($PY "$SRC/h4dds.py" "$out" | awk '{print $3}' | sort -u | tr '\n' ' ')
        n=$($PY "$SRC/h4dds.py" "$out" | wc -l)
        if [ "$code" != 0 ] && { [ "$codes" != "$code " ] || [ "$n" -lt 6 ]; }; then
            echo "$out: compression codes '$codes' ($n elements), expected $code"
            fail=1
        fi
        if "$NCDUMP" "$out" | sed 1d | cmp -s - base.cdl; then
            echo "$out: dumps as the original ($n compressed elements, coder $codes)"
        else
            echo "$out: differs from the original"
            "$NCDUMP" "$out" | sed 1d | diff base.cdl - | head -5
            fail=1
        fi
        if [ $chunk != no ] && ! "$NCDUMP" -hs "$out" | grep -q '_ChunkSizes = 2, 25'; then
            echo "$out: chunk sizes not 2, 25"
            fail=1
        fi
    done
done <<'EOF'
rle RLE 1
huff1 HUFF_1 3
huff4 HUFF_4 3
gzip GZIP_6 4
none NONE 0
EOF

# integers, one a line, from hdp and from ncdump (fill values as the
# data set's fill value)
values_hdp() { hdp dumpsds -n "$2" -d "$1" | tr -s ' \n' '\n\n' | grep -E '^-?[0-9]+$'; }
values_nc() {
    "$NCDUMP" -v "$2" "$1" | sed -n "/^ $2 =/,\$p" | sed "1s/^ $2 =//; s/_/$3/g" |
        tr -s ' ,;\n' '\n\n' | grep -E '^-?[0-9]+$'
}
compared=0
# (a file of each writer and coder: the others dump as these, or are
# checked value for value by the Python tests)
for f in c/base.hdf c/rle_2x25.hdf w/w_plain.hdf w/w_nbit.hdf w/w_huff.hdf w/w_chunk_gzip.hdf \
         g/g_UInt16_r3.hdf g/g_Int32_r2.hdf g/g_Byte_r2.hdf; do
    f=$WORK/$f
    [ -f "$f" ] || continue
    hdr=$("$NCDUMP" -h "$f")
    hdp dumpsds -h "$f" | sed -n 's/^Variable Name = //p' > names
    while IFS= read -r v; do
        type=$(echo "$hdr" | sed -n "s/^	\([a-z]*\) $v(.*/\1/p")
        # ncdump prints the fill value as _: the attribute, else the default
        fv=$(echo "$hdr" | sed -n "s/.*[^a-zA-Z_]$v:_FillValue = \(-*[0-9]*\).*/\1/p")
        case $type in
        char | float | double | "") continue ;;
        byte) dfv=-127 ;; ubyte) dfv=255 ;; short) dfv=-32767 ;; ushort) dfv=65535 ;;
        int) dfv=-2147483647 ;; uint) dfv=4294967295 ;; *) dfv=0 ;;
        esac
        [ -n "$fv" ] || fv=$dfv
        values_hdp "$f" "$v" > a.txt
        values_nc "$f" "$v" "$fv" > b.txt
        if ! cmp -s a.txt b.txt || [ ! -s a.txt ]; then
            echo "$f $v: values differ from hdp dumpsds"
            fail=1
        fi
        compared=$((compared + 1))
    done < names
done
echo "$compared integer data sets compared with hdp dumpsds"
[ $compared -ge 6 ] || { echo "too few data sets compared"; fail=1; }
# szip: as the deflate file each was made from
nsz=0
for f in "$WORK"/w/w_szip_*.hdf; do
    [ -f "$f" ] || continue
    t=${f##*_}
    src="$WORK/w/w_sz_${t%.hdf}.tmp"
    "$NCDUMP" "$f" | sed 1d > sz.a
    "$NCDUMP" "$src" | sed 1d > sz.b
    if [ -s sz.b ] && cmp -s sz.a sz.b; then
        nsz=$((nsz + 1))
    else
        echo "$f: differs from $src"
        fail=1
    fi
done
echo "$nsz szip files dump as their deflate originals"
exit $fail
