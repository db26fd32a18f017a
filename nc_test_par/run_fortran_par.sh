#!/bin/sh
# run_fortran_par.sh LIBNETCDF MPIEXEC [MPIEXEC FLAGS...]
#
# netcdf-fortran's parallel tests (the F77 programs of nf_test4 and the
# F90 ones of nf03_test4, with the rank counts of upstream's
# run_f77_par_test.sh and run_f90_par_test.sh) on Debian's libnetcdff,
# run once with our parallel library (LIBNETCDF) in the place of the
# libnetcdf.so.19 it was linked with, and once with upstream's parallel
# build (Debian's libnetcdf_mpi.so.19, 4.9.0) when it is installed.
#
# Nothing of netcdf-fortran is kept in this repository: the test sources
# come from `apt-get source netcdf-fortran` (Debian's orig tarball; a
# private apt configuration with the deb-src line, so the system's is not
# touched) and the library from `apt-get download libnetcdff7
# libnetcdff-dev`, extracted into a private prefix (libnetcdff-dev itself
# would install upstream's C headers into /usr/include).  All of it lives in
# $NCF_WORK (default /tmp/ncf-par) and is reused by later runs.
#
# Prints one line per program: name, ranks, ours, upstream's.  Exit 0 when
# every program that passes with upstream's library passes with ours; 77
# when the sources, the library or a Fortran MPI compiler cannot be had.
ourlib=$1
shift
mpi="$*"
work=${NCF_WORK:-/tmp/ncf-par}
arch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
reflib=/usr/lib/$arch/libnetcdf_mpi.so.19

skip() { echo "skipped: $*"; exit 77; }
command -v mpif90 >/dev/null 2>&1 || skip "no mpif90"
[ -f "$ourlib" ] || skip "no library $ourlib"
mkdir -p "$work" || skip "cannot make $work"
cd "$work" || exit 1

# The test sources.
src=$(ls -d "$work"/src/netcdf-fortran-*/ 2>/dev/null | head -n 1)
if [ -z "$src" ]; then
    mkdir -p apt/lists/partial apt/cache src
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" >apt/sources.list
    a="-o Dir::Etc::SourceList=$work/apt/sources.list -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists=$work/apt/lists -o Dir::Cache=$work/apt/cache"
    apt-get $a -q update >apt/update.log 2>&1 || skip "apt-get update of the deb-src index failed"
    (cd src && apt-get $a -q source --download-only netcdf-fortran >../apt/source.log 2>&1)
    orig=$(ls src/netcdf-fortran_*.orig.tar.* 2>/dev/null | head -n 1)
    [ -n "$orig" ] || skip "apt-get source netcdf-fortran failed"
    (cd src && tar xf "$(basename "$orig")") || skip "cannot unpack $orig"
    src=$(ls -d "$work"/src/netcdf-fortran-*/ 2>/dev/null | head -n 1)
    [ -n "$src" ] || skip "no netcdf-fortran tree"
fi

# Debian's libnetcdff, outside /usr.
root=$work/root
if [ ! -f "$root/usr/include/netcdf.mod" ]; then
    mkdir -p deb "$root"
    (cd deb && apt-get -q download libnetcdff7 libnetcdff-dev >download.log 2>&1) ||
        skip "apt-get download libnetcdff7 libnetcdff-dev failed"
    for d in deb/*.deb; do dpkg-deb -x "$d" "$root" || skip "cannot unpack $d"; done
fi
inc=$root/usr/include
flib=$root/usr/lib/$arch
[ -f "$flib/libnetcdff.so.7" ] || skip "no libnetcdff.so.7 in the package"

# The programs, linked with libnetcdff only: which libnetcdf.so.19 they
# get is the run's choice (LD_LIBRARY_PATH).
progs="nf_test4/ftst_parallel.F:4 nf_test4/ftst_parallel_nasa.F:4
nf03_test4/f90tst_parallel.F90:4 nf03_test4/f90tst_parallel2.F90:4
nf03_test4/f90tst_parallel3.F90:4 nf03_test4/f90tst_nc4_par.F90:8
nf03_test4/f90tst_parallel_fill.f90:4 nf03_test4/f90tst_parallel_compressed.F90:4"
mkdir -p bin lib-ours lib-ref run
for p in $progs; do
    f=${p%%:*}
    name=$(basename "${f%.*}")
    [ -f "$src/$f" ] || continue
    if [ ! -x "bin/$name" ] || [ "$src/$f" -nt "bin/$name" ]; then
        mpif90 -O1 -I"$inc" -o "bin/$name" "$src/$f" -L"$flib" -lnetcdff \
            -Wl,--allow-shlib-undefined >"bin/$name.log" 2>&1 || echo "$name: build failed (bin/$name.log)"
    fi
done
ln -sf "$ourlib" lib-ours/libnetcdf.so.19
ln -sf "$flib/libnetcdff.so.7" lib-ours/libnetcdff.so.7
ln -sf "$flib/libnetcdff.so.7" lib-ref/libnetcdff.so.7
haveref=no
if [ -f "$reflib" ]; then
    ln -sf "$reflib" lib-ref/libnetcdf.so.19
    haveref=yes
fi

# One run: ok or FAIL (its output kept in run/NAME.WHICH.log).
runone() {
    name=$1 n=$2 which=$3
    rm -rf "run/$name.$which" && mkdir -p "run/$name.$which"
    if (cd "run/$name.$which" &&
        LD_LIBRARY_PATH="$work/lib-$which${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            timeout 300 $mpi "$n" -x LD_LIBRARY_PATH "$work/bin/$name") >"run/$name.$which.log" 2>&1; then
        echo ok
    else
        echo FAIL
    fi
}

status=0
printf '%-28s %5s %6s %6s\n' program ranks ours 4.9.0
for p in $progs; do
    f=${p%%:*}
    n=${p##*:}
    name=$(basename "${f%.*}")
    if [ ! -x "bin/$name" ]; then
        printf '%-28s %5s %6s %6s\n' "$name" "$n" build build
        continue
    fi
    o=$(runone "$name" "$n" ours)
    r=-
    [ $haveref = yes ] && r=$(runone "$name" "$n" ref)
    printf '%-28s %5s %6s %6s\n' "$name" "$n" "$o" "$r"
    if [ "$o" != ok ] && [ "$r" != FAIL ]; then
        status=1
        sed 's/^/    /' "run/$name.ours.log" | tail -n 20
    fi
done
exit $status
