#!/bin/sh
# bench_par.sh BUILD [DIR] [MIB]: the parallel bench (docs/parallel.md).
# 4 ranks write a MIB MiB (default 1024) float variable, each its own
# block, collectively: our library, upstream's parallel build and plain
# MPI-IO (MPI_File_write_at_all); then with deflate level 1 + shuffle, one
# chunk per rank; then the files read back with 1, 2 and 4 ranks.  Median
# of 5 (the contiguous write) or 3 of each, seconds.  DIR (default /work/bench-par) must be on disk.
set -e
b=$1; dir=${2:-/work/bench-par}; mib=${3:-1024}
cmake --build "$b" --target bench_par bench_par_ref >/dev/null
ours=$b/nc_test_par/bench_par; ref=$b/nc_test_par/bench_par_ref
mkdir -p "$dir"
mpi="mpiexec --allow-run-as-root --oversubscribe -n"
med() { sort -n | sed -n 2p; }
run3() { for i in 1 2 3; do sync; "$@"; done | med; }
# The contiguous write: the three programs alternate run by run (the
# machine's load moves), median of 5 each.  bench_par removes the file and
# syncs before it starts the clock, so each starts from the same state.
for i in 1 2 3 4 5; do
    echo "o $($mpi 4 $ours write $dir/o.nc $mib)"
    echo "r $($mpi 4 $ref write $dir/r.nc $mib)"
    echo "m $($mpi 4 $ours mpiio $dir/m.bin $mib)"
done > "$dir/w.txt"
med5() { grep "^$1 " "$dir/w.txt" | cut -d' ' -f2 | sort -n | sed -n 3p; }
echo "what ours ref mpiio"
echo "write $(med5 o) $(med5 r) $(med5 m)"
echo "write_z $(run3 $mpi 4 $ours write $dir/oz.nc $mib z) $(run3 $mpi 4 $ref write $dir/rz.nc $mib z) -"
for n in 1 2 4; do
    echo "read_n$n $(run3 $mpi $n $ours read $dir/o.nc) $(run3 $mpi $n $ref read $dir/r.nc) -"
    echo "read_z_n$n $(run3 $mpi $n $ours read $dir/oz.nc) $(run3 $mpi $n $ref read $dir/rz.nc) -"
done
ls -l "$dir"
