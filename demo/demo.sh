#!/bin/sh
# demo.sh: the tools on bundled data -- CDL -> ncgen -> ncdump -> nccopy -> ncdump.
# Uses the ncgen, ncdump and nccopy found first on PATH (run.sh puts ours there).
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { printf '\n$ %s\n' "$*"; "$@"; }
step ncgen -b -k classic -o "$work/example.nc" "$here/example.cdl"
step ncdump -h "$work/example.nc"
step ncdump -v temp,station "$work/example.nc"
step nccopy -k cdf5 "$work/example.nc" "$work/example5.nc"
step ncdump -k "$work/example5.nc"
step ncdump -t -v time "$work/example5.nc"
printf '\n$ ncdump example.nc | diff - <(ncdump example5.nc)   # same data, other format\n'
ncdump "$work/example.nc" | sed 1d > "$work/a.cdl"
ncdump "$work/example5.nc" | sed 1d > "$work/b.cdl"
if cmp -s "$work/a.cdl" "$work/b.cdl"; then echo "identical"; else diff "$work/a.cdl" "$work/b.cdl"; exit 1; fi
