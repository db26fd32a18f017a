#!/bin/sh
# run_par_interop.sh OURS REF MPIEXEC...: the interop test of the parallel
# variant.  OURS and REF are tst_par_interop built against our library and
# against upstream's parallel build (libnetcdf_mpi.so.19); each writes a
# file with 2 ranks, the reference ncdump dumps both the same, and each
# build reads the other's file.  77 (skip) without the reference.
set -e
ours=$1; ref=$2; shift 2
[ -x "$ref" ] && [ -x /usr/bin/ncdump ] || exit 77
"$@" 2 "$ours" write par_ours.nc
"$@" 2 "$ref" write par_ref.nc
# The dumps differ only in the dataset name (first line).
/usr/bin/ncdump par_ours.nc | tail -n +2 > par_ours.cdl
/usr/bin/ncdump par_ref.nc | tail -n +2 > par_ref.cdl
cmp par_ours.cdl par_ref.cdl
/usr/bin/ncdump -s -h par_ours.nc | grep -v '_NCProperties\|^netcdf' > par_ours.s.cdl
/usr/bin/ncdump -s -h par_ref.nc | grep -v '_NCProperties\|^netcdf' > par_ref.s.cdl
cmp par_ours.s.cdl par_ref.s.cdl
"$@" 2 "$ours" read par_ref.nc
"$@" 2 "$ref" read par_ours.nc
echo "interop: both builds write the same file and read each other's"
