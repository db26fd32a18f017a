#!/bin/sh
# Default chunk sizes of Zarr arrays: a variable defined without chunking
# gets upstream's default chunks (about 16 MiB, the overhang spread over the
# chunks), as the reference ncgen and nccopy write them, not one chunk of
# the whole array; an explicit contiguous request is one chunk.  Each store
# written by our tools and by the reference's (when installed) must name the
# same "chunks".
# usage: tst_zmeta_chunks.sh NCGEN NCCOPY WORKDIR [REF_BINDIR]
GEN=$1 COPY=$2 WORK=$3 REFBIN=${4:-/usr/bin}
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
cd "$WORK" || exit 1
npass=0 nfail=0
ok() { npass=$((npass + 1)); }
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }

# The "chunks" list of one array of a store, spaces removed.
chunks_of() {
    tr -d ' \n' < "$1/.zarray" | sed -n 's/.*"chunks":\[\([0-9,]*\)\].*/\1/p'
}

cat > big.cdl <<'CDL'
netcdf big {
dimensions:
	y = 8192 ;
	x = 4096 ;
	z = 300 ;
	s = 100 ;
variables:
	float big(y, x) ;
	short small(s, s) ;
	int one(z) ;
}
CDL
# A record variable (the reference 4.9.0 has no unlimited Zarr dimensions).
cat > rec.cdl <<'CDL'
netcdf rec {
dimensions:
	t = UNLIMITED ;
	z = 300 ;
variables:
	double rec(t, z, z) ;
}
CDL
# The same variables in a classic file (no data: nccopy defines and copies).
cat > contig.cdl <<'CDL'
netcdf contig {
dimensions:
	y = 8192 ;
	x = 4096 ;
variables:
	float big(y, x) ;
		big:_Storage = "contiguous" ;
}
CDL

# Expected values where no reference is installed: upstream's rule worked by
# hand for these shapes (16 MiB target, overhang spread).
expect_big=2731,1366 expect_rec=1,300,300 expect_small=100,100 expect_one=300
have_ref=0
if [ -x "$REFBIN/ncgen" ] && [ -x "$REFBIN/nccopy" ]; then have_ref=1; fi

if "$GEN" -4 -o 'file://ours.zarr#mode=nczarr,file' big.cdl 2> gen.err; then ok; else bad "ncgen: $(cat gen.err)"; fi
if [ $have_ref = 1 ]; then
    "$REFBIN/ncgen" -4 -o 'file://ref.zarr#mode=nczarr,file' big.cdl 2> refgen.err ||
        bad "reference ncgen: $(cat refgen.err)"
fi
for v in big small one; do
    got=$(chunks_of "ours.zarr/$v")
    eval want=\$expect_$v
    [ "$got" = "$want" ] && ok || bad "ncgen $v: chunks [$got], upstream's rule gives [$want]"
    if [ $have_ref = 1 ]; then
        ref=$(chunks_of "ref.zarr/$v")
        [ "$got" = "$ref" ] && ok || bad "ncgen $v: chunks [$got], the reference [$ref]"
    fi
done

if "$GEN" -4 -o 'file://rec.zarr#mode=nczarr,file' rec.cdl 2> gen3.err; then ok; else bad "ncgen rec: $(cat gen3.err)"; fi
got=$(chunks_of rec.zarr/rec)
[ "$got" = "$expect_rec" ] && ok || bad "ncgen rec: chunks [$got], upstream's rule gives [$expect_rec]"

# nccopy of a classic file to a store: the library's default chunks (nccopy
# sets no chunking for a netCDF-3 output kind).
"$GEN" -b -o in.nc big.cdl 2>/dev/null || "$GEN" -k nc4 -o in.nc big.cdl
if "$COPY" in.nc 'file://copy.zarr#mode=nczarr,file' 2> copy.err; then ok; else bad "nccopy: $(cat copy.err)"; fi
got=$(chunks_of copy.zarr/big)
[ "$got" = "$expect_big" ] && ok || bad "nccopy big: chunks [$got], upstream's rule gives [$expect_big]"
if [ $have_ref = 1 ]; then
    "$REFBIN/nccopy" in.nc 'file://refcopy.zarr#mode=nczarr,file' 2>/dev/null
    ref=$(chunks_of refcopy.zarr/big)
    [ "$got" = "$ref" ] && ok || bad "nccopy big: chunks [$got], the reference [$ref]"
fi

# An explicit contiguous variable is one chunk of the whole array.
if "$GEN" -4 -o 'file://contig.zarr#mode=nczarr,file' contig.cdl 2> gen2.err; then ok; else bad "ncgen contiguous: $(cat gen2.err)"; fi
got=$(chunks_of contig.zarr/big)
[ "$got" = "8192,4096" ] && ok || bad "contiguous: chunks [$got], want one chunk [8192,4096]"

echo "tst_zmeta_chunks: $npass passed, $nfail failed"
[ $nfail = 0 ]
