#!/bin/sh
# Files written by the chunk pipeline and by HDF5's own pipeline
# (tst_pipeline, NCT_KEEP) read the same through the reference ncdump
# (Debian's netCDF 4.9.0) and h5dump, for every codec: the pipeline writes
# plain HDF5.  Our plugins are on HDF5_PLUGIN_PATH for the tools.
# usage: tst_pipeline_interop.sh TST_PIPELINE PLUGIN_DIR WORKDIR
set -u
prog=$1 plugdir=$2 work=$3
for t in /usr/bin/ncdump /usr/bin/h5dump; do
    [ -x "$t" ] || { echo "SKIP: no $t"; exit 77; }
done
# The reference tools cannot load plugins built with sanitizers (the ASan
# runtime must come first); the optimised pass runs this test.
for p in "$plugdir"/lib__nch5*.so; do
    if ldd "$p" 2>/dev/null | grep -q libasan; then
        echo "SKIP: plugins built with sanitizers"; exit 77
    fi
done
rm -rf "$work" && mkdir -p "$work" || exit 1
NCT_KEEP=1 "$prog" "$work" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
HDF5_PLUGIN_PATH=$plugdir
export HDF5_PLUGIN_PATH
fail=0 n=0
for a in "$work"/pipe_*_hdf5.nc; do
    b=${a%_hdf5.nc}_ours.nc
    c=$(basename "${a%_hdf5.nc}")
    /usr/bin/ncdump "$a" | sed 1d >"$work/a.cdl" 2>&1
    /usr/bin/ncdump "$b" | sed 1d >"$work/b.cdl" 2>&1
    if ! grep -q "v0_0 =" "$work/b.cdl" || ! cmp -s "$work/a.cdl" "$work/b.cdl"; then
        echo "FAIL: reference ncdump differs for $c"; diff "$work/a.cdl" "$work/b.cdl" | head -5; fail=1
    fi
    for v in v0_0 v3_1 v5_2 v9_3; do
        /usr/bin/h5dump -d "/$v" "$a" 2>&1 | sed 1d >"$work/a.h5"
        /usr/bin/h5dump -d "/$v" "$b" 2>&1 | sed 1d >"$work/b.h5"
        if grep -q "h5dump error" "$work/b.h5" && ! grep -q "h5dump error" "$work/a.h5"; then
            echo "FAIL: h5dump cannot read $v of $c"; fail=1
        elif ! cmp -s "$work/a.h5" "$work/b.h5"; then
            echo "FAIL: h5dump differs for $v of $c"; diff "$work/a.h5" "$work/b.h5" | head -5; fail=1
        fi
    done
    n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no files"; exit 1; }
echo "tst_pipeline_interop: $n codecs, fail=$fail"
exit $fail
