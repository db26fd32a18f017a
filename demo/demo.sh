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

# The enhanced model: groups, user-defined types, strings, chunking and filters.
step ncgen -b -k nc4 -o "$work/enhanced.nc" "$here/enhanced.cdl"
step ncdump "$work/enhanced.nc"
step ncdump -h -s -g forecast "$work/enhanced.nc"
step nccopy -c time/2,site/3 "$work/enhanced.nc" "$work/enhanced_rechunked.nc"
step ncdump -h -s -v obs "$work/enhanced_rechunked.nc"
printf '\n$ ncdump enhanced.nc | diff - <(ncdump enhanced_rechunked.nc)   # same data, other chunks\n'
ncdump "$work/enhanced.nc" | sed 1d > "$work/c.cdl"
ncdump "$work/enhanced_rechunked.nc" | sed 1d > "$work/d.cdl"
if cmp -s "$work/c.cdl" "$work/d.cdl"; then echo "identical"; else diff "$work/c.cdl" "$work/d.cdl"; exit 1; fi
step nccopy -k nc4 -d 5 -s "$work/example.nc" "$work/example4.nc"
step ncdump -h -s -v temp "$work/example4.nc"
