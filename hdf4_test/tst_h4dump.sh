#!/bin/sh
# tst_h4dump.sh NCDUMP DATADIR SRCDIR WORKDIR: ncdump of HDF4 files.
# Upstream's contiguous file against its expected CDL; every data set of
# upstream's two files value for value against `hdp dumpsds` (hdf4-tools)
# when it is installed; h4all.cdl (every type the SD CDL writer has, named,
# shared and unlimited dimensions, dimension scales, attributes, a fill
# value) through ncgen-hdf against h4all.expect (checked against hdp).
set -u
NCDUMP=$1 DATA=$2 SRC=$3 WORK=$4
[ -f "$DATA/ref_contiguous.hdf4" ] || { echo "SKIP: no $DATA"; exit 77; }
mkdir -p "$WORK" || exit 1
fail=0
"$NCDUMP" "$DATA/ref_contiguous.hdf4" > "$WORK/contiguous.cdl" || fail=1
cat > "$WORK/contiguous.expect" <<'CDL'
netcdf ref_contiguous {
dimensions:
	fakeDim0 = 3 ;
	fakeDim1 = 2 ;
variables:
	int pres(fakeDim0, fakeDim1) ;
data:

 pres =
  0, 1,
  0, 1,
  0, 1 ;
}
CDL
diff "$WORK/contiguous.expect" "$WORK/contiguous.cdl" || fail=1
"$NCDUMP" -s -h "$DATA/ref_contiguous.hdf4" | grep -q '_Format = "netCDF-4"' || { echo "_Format"; fail=1; }
if command -v ncgen-hdf > /dev/null 2>&1; then
    ncgen-hdf -o "$WORK/h4all.hdf" "$SRC/h4all.cdl" || fail=1
    "$NCDUMP" "$WORK/h4all.hdf" | diff "$SRC/h4all.expect" - || fail=1
fi
if ! command -v hdp > /dev/null 2>&1; then
    [ $fail = 0 ] && echo "hdp not installed: values not compared with it"
    exit $fail
fi
# numbers only, one a line; fill values printed as ncdump's _ become the
# data set's fill value
values_hdp() { hdp dumpsds -n "$2" -d "$1" | tr -s ' \n' '\n\n' | grep -E '^-?[0-9]+$'; }
values_nc() {
    "$NCDUMP" -v "$2" "$1" | sed -n "/^ $2 =/,\$p" | sed "1s/^ $2 =//; s/_/$3/g" |
        tr -s ' ,;\n' '\n\n' | grep -E '^-?[0-9]+$'
}
cp "$DATA/ref_contiguous.hdf4" "$DATA/ref_chunked.hdf4" "$WORK/"
[ -f "$WORK/h4all.hdf" ] && cp "$WORK/h4all.hdf" "$WORK/h4all.hdf4"
DATA=$WORK
for f in ref_contiguous ref_chunked h4all; do
    [ -f "$DATA/$f.hdf4" ] || continue
    for v in $(hdp dumpsds -h "$DATA/$f.hdf4" | sed -n 's/^Variable Name = //p'); do
        # integers only (text and floats print differently; h4all.expect has them)
        "$NCDUMP" -h "$DATA/$f.hdf4" | grep -Eq "^	(char|float|double) $v\(" && continue
        fv=$("$NCDUMP" -h "$DATA/$f.hdf4" | sed -n "s/.*[^a-zA-Z]$v:_FillValue = \(-*[0-9]*\).*/\1/p")
        [ -n "$fv" ] || fv=0
        a=$(values_hdp "$DATA/$f.hdf4" "$v" | md5sum)
        b=$(values_nc "$DATA/$f.hdf4" "$v" "$fv" | md5sum)
        n=$(values_hdp "$DATA/$f.hdf4" "$v" | wc -l)
        if [ "$a" != "$b" ] || [ "$n" = 0 ]; then
            echo "$f $v: values differ from hdp dumpsds"
            fail=1
        else
            echo "$f $v: $n values as hdp"
        fi
    done
done
exit $fail
