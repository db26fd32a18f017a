#!/bin/sh
# ncdump's diagnostics on stderr against the reference ncdump's.
# Usage: tst_ncdump_messages.sh OUR_NCDUMP OUR_NCGEN WORKDIR
# For each failing run (missing file, a file that is not netCDF, bad -v, -g,
# -l, -b, -f, -p, -X values, -x on a netCDF-4 file, a variable whose filter
# is not available) the exit status, stdout and stderr must be the
# reference's, the program name aside.  After a failed library call both
# print upstream's "Location: file F; line N": the line must name a source
# file and a real line (N > 0), not necessarily the reference's.
# Exits 77 without the reference ncdump.
set -u
OURDUMP=$1; OURGEN=$2; WORK=$3
REFDUMP=${REF_NCDUMP:-/usr/bin/ncdump}
[ -x "$REFDUMP" ] || { echo "reference ncdump missing: skipping"; exit 77; }
mkdir -p "$WORK"
cd "$WORK" || exit 1
pass=0; fail=0
failed() { fail=$((fail+1)); echo "FAIL: $*"; }

# Stderr with the program name (argv[0]) made neutral and the location
# line reduced to its form (the reference prints an empty file name).
normalize() {
    sed -e "s|^$2: |ncdump: |" \
        -e 's|^Location: file [^;]*; line [0-9]*$|Location: file F; line N|' "$1"
}

cmp_err() {
    ( "$REFDUMP" "$@" ) > ref.out 2> ref.err; rs=$?
    ( "$OURDUMP" "$@" ) > our.out 2> our.err; os=$?
    normalize ref.err "$REFDUMP" > ref.norm
    normalize our.err "$OURDUMP" > our.norm
    if [ $rs -ne $os ]; then
        failed "ncdump $*: exit $os, reference $rs"
    elif ! cmp -s ref.out our.out; then
        failed "ncdump $*: stdout differs"; diff ref.out our.out | head -5
    elif ! cmp -s ref.norm our.norm; then
        failed "ncdump $*: stderr differs"; diff ref.err our.err | head -6
    else
        pass=$((pass+1))
    fi
}

cat > c.cdl <<'CDL'
netcdf c {
dimensions:
	x = 2 ;
variables:
	int v(x) ;
data:
 v = 1, 2 ;
}
CDL
"$OURGEN" -o c.nc c.cdl || failed "ncgen c.cdl"
printf 'not a netcdf file\n' > garbage.dat
rm -f nosuch.nc

cmp_err nosuch.nc
cmp_err garbage.dat
cmp_err -h garbage.dat
cmp_err -v nosuch c.nc
cmp_err -v v,nosuch c.nc
cmp_err -l 5 c.nc
cmp_err -b x c.nc
cmp_err -f x c.nc
cmp_err -p 0 c.nc
cmp_err -p 3,x c.nc
cmp_err -X z c.nc
cmp_err -g g c.nc
rm -f c4.nc
if "$OURGEN" -k nc4 -o c4.nc c.cdl 2>/dev/null; then
    cmp_err -x c4.nc
    cmp_err -g nosuch c4.nc
    cmp_err -v /nosuch/v c4.nc
fi

# A library call that fails in the middle of the dump: a variable whose
# filter (h5py's LZF, id 32000) neither library has.
# (needs a build that reads HDF5 files: c4.nc was written)
PY=${PYTHON:-/usr/bin/python3}
if [ -f c4.nc ] && [ -x "$PY" ] && "$PY" -c 'import h5py, numpy' 2>/dev/null; then
    "$PY" - <<'PYEOF'
import h5py, numpy as np
with h5py.File("lzf.h5", "w") as f:
    f.create_dataset("v", data=np.arange(100, dtype="i4"), chunks=(10,), compression="lzf")
PYEOF
    cmp_err lzf.h5
    cmp_err -v v lzf.h5
    # the location is a real one
    if grep -q '^Location: file [A-Za-z0-9_]*\.c; line [1-9][0-9]*$' our.err; then
        pass=$((pass+1))
    else
        failed "location line: $(tail -1 our.err)"
    fi
else
    echo "h5py or HDF5 missing: the failing library call is not tried"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
