#!/bin/sh
# h5wb_bytes.sh BEFORE_PREFIX NEW_LIBDIR [THREADS...]: build tst_h5wb_order
# against an installed netCDF-C (BEFORE_PREFIX: include/, lib/) and against
# the library in NEW_LIBDIR, run both with each pool size (default 1 2 4)
# and cmp every file they leave.  Exit 1 on the first difference.
set -e
before=$1 new=$2
shift 2 || { echo "usage: $0 BEFORE_PREFIX NEW_LIBDIR [THREADS...]" >&2; exit 2; }
src=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$src")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
$cc -O1 -o "$work/drv_before" "$src/tst_h5wb_order.c" -I"$before/include" -L"$before/lib" \
    -Wl,-rpath,"$before/lib" -lnetcdf
$cc -O1 -o "$work/drv_new" "$src/tst_h5wb_order.c" -I"$top/include" -I"$new/include" -L"$new" \
    -Wl,-rpath,"$new" -lnetcdf
mkdir "$work/b" "$work/n"
status=0
for th in ${*:-1 2 4}; do
    rm -f "$work"/b/*.nc "$work"/n/*.nc
    NETCDF_FILTER_THREADS=$th "$work/drv_before" "$work/b" >/dev/null
    NETCDF_FILTER_THREADS=$th "$work/drv_new" "$work/n" >/dev/null
    for f in "$work"/b/*.nc; do
        if cmp "$f" "$work/n/$(basename "$f")"; then
            echo "threads=$th identical $(basename "$f")"
        else
            status=1
        fi
    done
done
exit $status
