#!/usr/bin/env bash
# Benchmark driver: builds the programs against one or two netCDF-C installs and
# runs every workload alternately (ref, new, ref, new, ...) for N repetitions,
# then prints medians, new/ref ratios and the ratio to the physical limits.
#
#   bench/run.sh --ref /usr [--new PREFIX] [-n 3] [--mib 512] [--only W1,W5,...]
#
# Options:
#   --ref PREFIX     reference install (headers in PREFIX/include, libnetcdf in PREFIX/lib*,
#                    tools in PREFIX/bin)                                   [/usr]
#   --new PREFIX     second install to compare (optional)
#   -n N             repetitions                                           [3]
#   --mib M          main size in MiB: W1/W3/W4 = M, W5/W6 = M/2, W2 = 5000*M/512 records,
#                    W8: ncdump M/8 (classic, and netCDF-4 deflate: W8_ncdump4), nccopy M/2
#                    (-d 1 -s; plain -k nc4: W8_nccopy4; to an NCZarr directory: W8_nccopyz),
#                    ncgen M/64 (classic, and -k nc4: W8_ncgen4)          [512]
#   --nvars N        W7 variable count                                     [10000]
#   --only LIST      comma list of W1..W11 (W3 runs inside the W1 64-bit job), L = limits
#                    (this project's copy adds W9: strided read, stride 4, of a chunked
#                    netCDF-4 variable of M/8 MiB; W10: 2000 nc_open+nc_close of a small
#                    netCDF-4 file; W11: W5's deflate variable of M/2 MiB written one
#                    row at a time, partial chunks on every call); Z: Zarr read-all, 512^3
#                    uint16, 128^3 chunks, zstd, v2 plain (and zarr-python 2 on the new
#                    library's store, impl=zarrpy; the table's last section gives ours/zarr-python, the
#                    sharded read against zarr-python's unsharded read) and v3 sharded (fixed size, not --mib)
#   --no-limits      skip the physical-limit measurements
#   --tmp DIR        parent of the scratch directory                       [$TMPDIR or /tmp]
#   --raw FILE       also save the raw per-run lines to FILE
#   --keep           keep the scratch directory
#   --timeout S      per-job time limit in seconds                          [900]
# Environment: CC, CFLAGS are passed to make; BENCH_NO_WARMUP=1 disables the
# untimed page-cache warm-up before write phases.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REF=/usr NEW= REPS=3 MIB=512 NVARS=10000 ONLY= LIMITS=1 TMPBASE=${TMPDIR:-/tmp} RAW= KEEP=0 JOBTO=900

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-1}"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ref) REF=$2; shift 2 ;;
        --new) NEW=$2; shift 2 ;;
        -n|--reps) REPS=$2; shift 2 ;;
        --mib) MIB=$2; shift 2 ;;
        --nvars) NVARS=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        --no-limits) LIMITS=0; shift ;;
        --tmp) TMPBASE=$2; shift 2 ;;
        --raw) RAW=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --timeout) JOBTO=$2; shift 2 ;;
        -h|--help) usage 0 ;;
        *) echo "unknown option: $1" >&2; usage ;;
    esac
done

want() {  # want W3 -> true if selected
    [ -z "$ONLY" ] && return 0
    case ",$ONLY," in *",$1,"*) return 0 ;; esac
    return 1
}

WORK=$(mktemp -d "$TMPBASE/ncbench.XXXXXX")
cleanup() { if [ "$KEEP" = 1 ]; then echo "scratch kept: $WORK" >&2; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
RAWF=$WORK/raw.txt
LOG=$WORK/log.txt
: > "$RAWF"; : > "$LOG"

IMPLS=(ref)
declare -A PFX BIN LIBDIR TOOLS
PFX[ref]=$REF
[ -n "$NEW" ] && { IMPLS+=(new); PFX[new]=$NEW; }

# ---------------------------------------------------------------- build
for im in "${IMPLS[@]}"; do
    p=${PFX[$im]}
    BIN[$im]=$WORK/build-$im
    echo "== building against $p" >&2
    if ! make -k -C "$HERE" PREFIX="$p" BUILDDIR="${BIN[$im]}" all >>"$LOG" 2>&1; then
        echo "   (some programs failed to build, see below)" >&2
        tail -n 20 "$LOG" >&2
    fi
    LIBDIR[$im]=$(make -s -C "$HERE" PREFIX="$p" print-libdir)
    TOOLS[$im]=$p/bin
    if [ -x "${BIN[$im]}/nc_info" ]; then
        echo "   $im: $(LD_LIBRARY_PATH=${LIBDIR[$im]} "${BIN[$im]}/nc_info" "$WORK" | tr '\n' ' ')" >&2
        hdr=$(grep -o '[^ ]*/netcdf\.h' "${BIN[$im]}/nc_info.d" | head -n1)
        echo "   $im: compiled with $hdr" >&2
    fi
done

run_prog() {  # run_prog IMPL REP PROG ARGS... ; output lines prefixed
    local im=$1 rep=$2 prog=$3; shift 3
    local exe=${BIN[$im]}/$prog
    local data=$WORK/data-$im
    mkdir -p "$data"
    if [ ! -x "$exe" ]; then
        echo "impl=$im rep=$rep workload=$prog phase=all status=failed reason=not_built" >>"$RAWF"
        return 0
    fi
    local out rc=0
    out=$(LD_LIBRARY_PATH=${LIBDIR[$im]}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
          timeout "$JOBTO" "$exe" "$@" 2>>"$LOG") || rc=$?
    [ -n "$out" ] && printf '%s\n' "$out" | sed "s/^/impl=$im rep=$rep /" >>"$RAWF"
    if [ $rc -ne 0 ]; then
        echo "impl=$im rep=$rep workload=$prog:$* phase=exit status=failed reason=exit_$rc" >>"$RAWF"
        echo "!! $im $prog $* exited $rc" >&2
    fi
    [ "${KEEPDATA:-0}" = 1 ] || rm -rf "${data:?}"/*
}

run_tool() {  # run_tool IMPL REP WORKLOAD PHASE BYTES LIMIT TOOL ARGS...
    local im=$1 rep=$2 wl=$3 ph=$4 by=$5 li=$6 tool=$7; shift 7
    local exe=${TOOLS[$im]}/$tool
    if [ ! -x "$exe" ]; then
        echo "impl=$im rep=$rep workload=$wl phase=$ph status=unavailable reason=no_$tool" >>"$RAWF"
        return 0
    fi
    local data=$WORK/data-$im lopt=()
    mkdir -p "$data"
    [ "$li" != "-" ] && lopt=(-l "$li")
    local out rc=0
    out=$(cd "$data" && LD_LIBRARY_PATH=${LIBDIR[$im]}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
          timeout "$JOBTO" "${BIN[ref]}/timed_exec" -w "$wl" -p "$ph" -b "$by" "${lopt[@]}" -- "$exe" "$@" 2>>"$LOG") || rc=$?
    [ -n "$out" ] && printf '%s\n' "$out" | sed "s/^/impl=$im rep=$rep /" >>"$RAWF"
    [ $rc -ne 0 ] && echo "!! $im $tool exited $rc" >&2
    rm -rf "${data:?}"/*
}

# ---------------------------------------------------------------- inputs (untimed)
HALF=$(( MIB / 2 > 0 ? MIB / 2 : 1 ))
RECS=$(( 5000 * MIB / 512 > 0 ? 5000 * MIB / 512 : 1 ))
DUMPM=$(( MIB / 8 > 0 ? MIB / 8 : 1 ))
GENM=$(( MIB / 64 > 0 ? MIB / 64 : 1 ))
LIMZ=$(( MIB / 8 > 0 ? MIB / 8 : 1 ))
IN=$WORK/inputs
mkdir -p "$IN"
if want W8; then
    echo "== generating W8 inputs" >&2
    "${BIN[ref]}/nc_mkinput" -o "$IN/dump.nc" -m "$DUMPM" >>"$LOG" 2>&1
    "${BIN[ref]}/nc_mkinput" -o "$IN/copy.nc" -m "$HALF" >>"$LOG" 2>&1
    "${BIN[ref]}/nc_mkinput" -c "$IN/gen.cdl" -m "$GENM" >>"$LOG" 2>&1
    # W8_ncdump4: the same data as dump.nc in a netCDF-4 file (512x512
    # chunks, shuffle + deflate 1); its MB/s count the uncompressed bytes.
    "${BIN[ref]}/nc_mkinput" -o "$IN/dump4.nc" -m "$DUMPM" -f nc4 >>"$LOG" 2>&1
    DUMPB=$(stat -c %s "$IN/dump.nc"); COPYB=$(stat -c %s "$IN/copy.nc"); GENB=$(stat -c %s "$IN/gen.cdl")
fi

# ---------------------------------------------------------------- jobs
W3OPT=(); want W3 && W3OPT=(-S 4)
job() {  # job NAME IMPL REP
    local j=$1 im=$2 rep=$3 d=$WORK/data-$2
    case $j in
        W1_64bit)   run_prog "$im" "$rep" nc_classic -d "$d" -m "$MIB" -f 64bit -F "${W3OPT[@]}" ;;
        W1_cdf5)    run_prog "$im" "$rep" nc_classic -d "$d" -m "$MIB" -f cdf5 ;;
        W2)         run_prog "$im" "$rep" nc_record -d "$d" -r "$RECS" ;;
        W4)         run_prog "$im" "$rep" nc4_bench -d "$d" -k contig -m "$MIB" -F ;;
        W5_deflate) run_prog "$im" "$rep" nc4_bench -d "$d" -k deflate -m "$HALF" ;;
        W5_zstd)    run_prog "$im" "$rep" nc4_bench -d "$d" -k zstd -m "$HALF" ;;
        W11)        run_prog "$im" "$rep" nc4_bench -d "$d" -k rows -m "$HALF" ;;
        Z_plain)    KEEPDATA=1 run_prog "$im" "$rep" nc_zarr -d "$d" -k plain -K
                    # zarr-python 2 reads the store ours wrote (the new library's, or the
                    # reference's without --new), once per rep; summarize.awk compares.
                    if [ "$im" = "${IMPLS[${#IMPLS[@]}-1]}" ] && [ -d "$d/z_plain.zarr" ]; then
                        /usr/bin/python3 "$HERE/src/nc_zarr_py.py" "$d/z_plain.zarr" 1 2>>"$LOG" \
                            | sed "s/^/impl=zarrpy rep=$rep /" >>"$RAWF" || true
                    fi
                    rm -rf "${d:?}"/* ;;
        Z_shard)    run_prog "$im" "$rep" nc_zarr -d "$d" -k shard ;;
        W6_none)    run_prog "$im" "$rep" nc4_bench -d "$d" -k zarr -m "$HALF" ;;
        W6_deflate) run_prog "$im" "$rep" nc4_bench -d "$d" -k zarr_deflate -m "$HALF" ;;
        W7_nc4)     run_prog "$im" "$rep" nc_meta -d "$d" -f nc4 -n "$NVARS" ;;
        W7_classic) run_prog "$im" "$rep" nc_meta -d "$d" -f classic -n "$NVARS" -i 5 ;;
        W9)         run_prog "$im" "$rep" nc4_access -d "$d" -k strided -m "$(( MIB / 8 > 0 ? MIB / 8 : 1 ))" ;;
        W10)        run_prog "$im" "$rep" nc4_access -d "$d" -k open -i 2000 ;;
        W8_ncdump)  run_tool "$im" "$rep" W8_ncdump dump "$DUMPB" fmt_g7 ncdump "$IN/dump.nc" ;;
        W8_nccopy)  run_tool "$im" "$rep" W8_nccopy nc4_d1_s "$COPYB" shuf_deflate1 nccopy -k nc4 -d 1 -s "$IN/copy.nc" out.nc ;;
        W8_nccopy4) run_tool "$im" "$rep" W8_nccopy4 nc4_plain "$COPYB" - nccopy -k nc4 "$IN/copy.nc" out.nc ;;
        W8_nccopyz) run_tool "$im" "$rep" W8_nccopyz nczarr_dir "$COPYB" - nccopy "$IN/copy.nc" "file://$WORK/data-$im/out.zarr#mode=nczarr,file" ;;
        W8_ncgen)   run_tool "$im" "$rep" W8_ncgen cdl_to_nc "$GENB" parse_strtof ncgen -b -o out.nc "$IN/gen.cdl" ;;
        W8_ncdump4) run_tool "$im" "$rep" W8_ncdump4 dump "$DUMPB" fmt_g7 ncdump "$IN/dump4.nc" ;;
        W8_ncgen4)  run_tool "$im" "$rep" W8_ncgen4 cdl_to_nc4 "$GENB" parse_strtof ncgen -b -k nc4 -o out.nc "$IN/gen.cdl" ;;
    esac
}
JOBS=()
{ want W1 || want W3; } && JOBS+=(W1_64bit)
want W1 && JOBS+=(W1_cdf5)
want W2 && JOBS+=(W2)
want W4 && JOBS+=(W4)
want W5 && JOBS+=(W5_deflate W5_zstd)
want W6 && JOBS+=(W6_none W6_deflate)
want W7 && JOBS+=(W7_nc4 W7_classic)
want W8 && JOBS+=(W8_ncdump W8_nccopy W8_nccopy4 W8_nccopyz W8_ncgen W8_ncdump4 W8_ncgen4)
want W9 && JOBS+=(W9)
want W10 && JOBS+=(W10)
want W11 && JOBS+=(W11)
want Z && JOBS+=(Z_plain Z_shard)

T0=$(date +%s)
for rep in $(seq 1 "$REPS"); do
    echo "== repetition $rep/$REPS" >&2
    if [ "$LIMITS" = 1 ] && want L; then
        mkdir -p "$WORK/data-sys"
        out=$(timeout "$JOBTO" "${BIN[ref]}/limits" -d "$WORK/data-sys" -m "$MIB" -z "$LIMZ" -r 3 2>>"$LOG") || echo "!! limits failed" >&2
        printf '%s\n' "$out" | sed "s/^/impl=sys rep=$rep /" >>"$RAWF"
    fi
    for j in "${JOBS[@]}"; do
        for im in "${IMPLS[@]}"; do
            echo "   $j [$im]" >&2
            job "$j" "$im" "$rep"
        done
    done
done
echo "== done in $(( $(date +%s) - T0 )) s" >&2

[ -n "$RAW" ] && cp "$RAWF" "$RAW"
echo "netCDF benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, reps=$REPS, mib=$MIB"
for im in "${IMPLS[@]}"; do
    echo "$im: ${PFX[$im]} -> $(LD_LIBRARY_PATH=${LIBDIR[$im]} "${BIN[$im]}/nc_info" 2>/dev/null | head -n1)"
done
echo
awk -f "$HERE/summarize.awk" "$RAWF"
if grep -q "status=failed" "$RAWF"; then echo; echo "FAILED jobs:"; grep "status=failed" "$RAWF" | sort -u; fi
