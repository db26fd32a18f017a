#!/bin/sh
# Relative file:// URLs with the tools, in the form upstream's NCZarr test
# scripts use: ncgen -o 'file://x.file#mode=nczarr,file', ncdump and nccopy
# of such URLs (file://X is the relative path X), and the same store through
# the absolute file:///abs URL and a plain path.  JSON-valued text
# attributes come back as written (upstream's layout).
# usage: tst_zmeta_urls.sh NCGEN NCDUMP NCCOPY WORKDIR
GEN=$1 DUMP=$2 COPY=$3 WORK=$4
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
cd "$WORK" || exit 1
npass=0 nfail=0
ok() { npass=$((npass + 1)); }
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }

cat > x.cdl <<'EOF'
netcdf x {
dimensions:
	d = 3 ;
variables:
	int v(d) ;
		v:j = "{\"key1\": [1,2,3]}" ;
		v:units = "m" ;
data:

 v = 1, 0, 3 ;
}
EOF

# ncgen to a relative URL
if "$GEN" -4 -o 'file://x.file#mode=nczarr,file' x.cdl 2> gen.err && [ -f x.file/.zgroup ]; then
    ok
else
    bad "ncgen -o file://x.file: $(cat gen.err)"
fi

# ncdump of the relative URL prints the CDL back as written
"$DUMP" 'file://x.file#mode=nczarr,file' > rel.cdl 2> dump.err || bad "ncdump of file://x.file: $(cat dump.err)"
if cmp -s x.cdl rel.cdl; then ok; else bad "ncdump differs from the CDL"; diff x.cdl rel.cdl | head; fi

# absolute URL, and a plain path, print the same
"$DUMP" "file://$WORK/x.file#mode=nczarr,file" > abs.cdl 2>&1
if cmp -s rel.cdl abs.cdl; then ok; else bad "file:///abs dump differs"; diff rel.cdl abs.cdl | head; fi
"$DUMP" x.file > plain.cdl 2>&1
if cmp -s rel.cdl plain.cdl; then ok; else bad "plain path dump differs"; diff rel.cdl plain.cdl | head; fi

# nccopy between relative URLs (to pure Zarr and back to NCZarr)
if "$COPY" 'file://x.file#mode=nczarr,file' 'file://y.zarr#mode=zarr,file' 2> copy.err &&
   "$COPY" 'file://y.zarr#mode=zarr,file' 'file://z.file#mode=nczarr,file' 2>> copy.err; then
    ok
else
    bad "nccopy of relative URLs: $(cat copy.err)"
fi
"$DUMP" -n x 'file://z.file#mode=nczarr,file' > z.cdl 2>&1
if cmp -s x.cdl z.cdl; then ok; else bad "nccopy round trip differs"; diff x.cdl z.cdl | head; fi

# a relative directory part
mkdir -p sub
if "$GEN" -4 -o 'file://sub/w.file#mode=zarr,file' x.cdl 2> gen2.err && [ -f sub/w.file/.zgroup ]; then
    ok
else
    bad "ncgen -o file://sub/w.file: $(cat gen2.err)"
fi

echo "tst_zmeta_urls: $npass passed, $nfail failed"
[ $nfail = 0 ] && [ $npass -gt 0 ]
