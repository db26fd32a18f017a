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
#   --only LIST      comma list of W1..W11 (W3 runs inside the W1 64-bit job), L = limits,
#                    T = two threads on one handle (not in the default run)
#                    B = one nc_get_vara/vars of M MiB from a classic file
#                    (this project's copy adds W9: strided read, stride 4, of a chunked
#                    netCDF-4 variable of M/8 MiB; W10: 2000 nc_open+nc_close of a small
#                    netCDF-4 file; W11: W5's deflate variable of M/2 MiB written one
#                    row at a time, partial chunks on every call); Z: Zarr read-all, 512^3
#                    uint16, 128^3 chunks, zstd, v2 plain (and zarr-python 2 on the new
#                    library's store, impl=zarrpy; the table's last section gives ours/zarr-python, the
#                    sharded read against zarr-python's unsharded read) and v3 sharded (fixed size, not --mib);
#                    D2: DAP2 over a loopback server the bench starts (src/dap2serve.py) on datasets it
#                    generates (src/dap2gen.py): ncdump -h and ncdump of 20 variables, nc_get_vars
#                    stride 4 of a float variable of 100*M/128 MB, nc_get_var of one of 200*M/128 MB;
#                    requests per client run in a table of their own
#                    R: netCDF-4 over HTTP byte ranges from a loopback server the bench starts
#                    (remote_test/rangeserver.py, 5 ms added per request): read-all of M/2 MiB
#                    (shuffle + deflate 1) local, by #mode=bytes, and through a kerchunk
#                    reference store; ncdump -h of 20 variables; requests per client run
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

usage() { sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-1}"; }
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
D2PID= RPID=
cleanup() {
    if [ -n "$RPID" ]; then kill "$RPID" 2>/dev/null || true; wait "$RPID" 2>/dev/null || true; fi
    if [ -n "$D2PID" ]; then kill "$D2PID" 2>/dev/null || true; wait "$D2PID" 2>/dev/null || true; fi
    if [ "$KEEP" = 1 ]; then echo "scratch kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
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

# D2: the DAP2 datasets (netCDF classic files made by dap2gen.py) and one
# loopback server for every client run (dap2serve.py: 127.0.0.1, ephemeral
# port; it stops when this script ends, when its parent goes away, or after
# its lifetime).  Each request is one line of $D2LOG, so the lines a client
# run adds are its requests.  Before the timed runs, each side's ncdump of
# the served dataset must print the same data as its ncdump of the source
# file: on the reference side a difference means the server is wrong and
# the D2 jobs are not run; on the new side it is reported as a failure.
PY=${PYTHON:-/usr/bin/python3}
D2URL= D2LOG=$WORK/d2.log D2Z_S=$(( 100 * MIB / 128 > 4 ? 100 * MIB / 128 : 4 )) D2Z_B=$(( 200 * MIB / 128 > 4 ? 200 * MIB / 128 : 4 ))
d2_fail() {  # d2_fail REASON: every D2 row failed
    local im w
    for im in "${IMPLS[@]}"; do for w in "D2_dump_h header" "D2_dump full" "D2_stride get_vars" "D2_read get_var"; do
        echo "impl=$im rep=0 workload=${w% *} phase=${w#* } status=failed reason=$1" >>"$RAWF"
    done; done
}
d2_check() {  # d2_check IMPL: data section of ncdump URL = of ncdump FILE (with that side's ncdump)
    local im=$1 nd=${TOOLS[$1]}/ncdump o=$WORK/d2check-$1
    [ -x "$nd" ] || return 0
    LD_LIBRARY_PATH=${LIBDIR[$im]}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout "$JOBTO" "$nd" "$D2URL/d2meta" >"$o.url" 2>>"$LOG" || return 1
    LD_LIBRARY_PATH=${LIBDIR[$im]}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout "$JOBTO" "$nd" "$IN/dap2/d2meta.nc" >"$o.file" 2>>"$LOG" || return 1
    sed -n '/^data:/,$p' "$o.url" >"$o.url.data"; sed -n '/^data:/,$p' "$o.file" >"$o.file.data"
    [ -s "$o.file.data" ] && cmp -s "$o.url.data" "$o.file.data"
}
d2_run() {  # d2_run JOB IMPL REP: the job, then its requests (lines added to the log)
    local n0 n1
    n0=$(wc -l <"$D2LOG")
    job "$1" "$2" "$3"
    n1=$(wc -l <"$D2LOG")
    tail -n +"$(( n0 + 1 ))" "$D2LOG" | head -n "$(( n1 - n0 ))" | awk -v im="$2" -v rep="$3" -v w="$1" '
        { n++; if ($1 ~ /\.dods/) d++; b += $3 }
        END { printf "impl=%s rep=%s dap2job=%s requests=%d dods=%d served=%.0f\n", im, rep, w, n, d, b }' >>"$RAWF"
    # the floor of the read (libcurl alone makes its requests), once per
    # repetition, right after the clients' runs
    if [ "$2" = "${IMPLS[${#IMPLS[@]}-1]}" ] && [ -x "${BIN[ref]}/d2limit" ]; then
        case $1 in
            D2_stride) d2_floor "$3" -u "$D2URL/d2stride" -v s -z "$D2Z_S" -y 250 -x 1000 -k stride -s 4 ;;
            D2_read)   d2_floor "$3" -u "$D2URL/d2big" -v b -z "$D2Z_B" -y 250 -x 1000 -k full ;;
        esac
    fi
}
d2_floor() {  # d2_floor REP ARGS...: one d2limit run, as an impl=sys LIMIT line
    local rep=$1 out; shift
    out=$(timeout "$JOBTO" "${BIN[ref]}/d2limit" "$@" 2>>"$LOG") || { echo "!! d2limit failed" >&2; return 0; }
    printf '%s\n' "$out" | sed "s/^/impl=sys rep=$rep /" >>"$RAWF"
}
if want D2; then
    echo "== generating D2 inputs, starting the DAP2 server" >&2
    mkdir -p "$IN/dap2"; : >"$D2LOG"
    if ! "$PY" "$HERE/src/dap2gen.py" "$IN/dap2" "$MIB" >>"$LOG" 2>&1; then
        echo "!! D2: dap2gen.py failed (numpy?), see $LOG" >&2; d2_fail generator_failed
    else
        "$PY" "$HERE/src/dap2serve.py" --data "$IN/dap2" --portfile "$WORK/d2.port" --log "$D2LOG" \
            --lifetime $(( 120 + 8 * REPS * JOBTO )) 2>>"$LOG" &
        D2PID=$!
        for _ in $(seq 1 150); do [ -s "$WORK/d2.port" ] && break; kill -0 "$D2PID" 2>/dev/null || break; sleep 0.1; done
        if [ -s "$WORK/d2.port" ]; then D2URL=http://127.0.0.1:$(cat "$WORK/d2.port"); fi
        D2META=$(stat -c %s "$IN/dap2/d2meta.nc")
        if [ -z "$D2URL" ]; then
            echo "!! D2: the DAP2 server did not start, see $LOG" >&2; d2_fail server_failed
        elif ! d2_check ref; then
            echo "!! D2: ncdump (${PFX[ref]}) of $D2URL/d2meta does not print the data of d2meta.nc:" >&2
            echo "!!     the generated DAP2 responses are wrong; D2 not run (diff: $WORK/d2check-ref.*, --keep)" >&2
            d2_fail server_check_failed; D2URL=
        else
            echo "   D2: server at $D2URL, ncdump of the URL = ncdump of the file (${PFX[ref]})" >&2
            if [ -n "$NEW" ] && ! d2_check new; then
                echo "!! D2: ncdump (${PFX[new]}) of $D2URL/d2meta does not print the data of d2meta.nc" >&2
                echo "impl=new rep=0 workload=D2_dump phase=full status=failed reason=values_differ_from_file" >>"$RAWF"
            fi
        fi
        : >"$D2LOG"
    fi
fi

# R: netCDF-4 files (the reference's nc_remote writes them: M/2 MiB float
# in 1 MiB chunks, shuffle + deflate 1, and a 20-variable file), one
# loopback rangeserver.py (remote_test/; 127.0.0.1, ephemeral port, 5 ms
# added per request under /m/lat5/) for every client run, and a kerchunk
# reference file naming the big file's chunks as ranges of its URL
# (src/nc_remote_refs.py, h5py).  The server counts requests: it is reset
# before each client run and asked after.  A side whose netcdf_meta.h has
# no byte ranges (upstream 4.9.0 from Debian) runs only the local read.
RURL= RLAT=
declare -A HASBR
r_ctl() { curl -s --max-time 10 "$RURL/_$1"; }
r_run() {  # r_run JOB IMPL REP: the job, then its requests
    local n=0
    if [ "${HASBR[$2]}" != 1 ]; then job "$1" "$2" "$3"; return 0; fi
    r_ctl reset >/dev/null || true
    job "$1" "$2" "$3"
    n=$(r_ctl stats | sed -n 's/.*"requests": *\([0-9]*\).*/\1/p')
    echo "impl=$2 rep=$3 remotejob=$1 requests=${n:-0}" >>"$RAWF"
}
if want R; then
    echo "== generating R inputs, starting the range server" >&2
    mkdir -p "$IN/remote"
    for im in "${IMPLS[@]}"; do
        HASBR[$im]=0
        grep -q 'NC_HAS_BYTERANGE *1' "$(make -s -C "$HERE" PREFIX="${PFX[$im]}" print-incdir)/netcdf_meta.h" 2>/dev/null && HASBR[$im]=1
    done
    if ! "${BIN[ref]}/nc_remote" -k make -o "$IN/remote/big.nc" -m "$HALF" >>"$LOG" 2>&1 ||
       ! "${BIN[ref]}/nc_remote" -k make20 -o "$IN/remote/v20.nc" >>"$LOG" 2>&1; then
        echo "!! R: nc_remote could not write the inputs, see $LOG" >&2
    else
        "$PY" "$HERE/../remote_test/rangeserver.py" --data "$IN/remote" --portfile "$WORK/r.port" \
            --lifetime $(( 120 + 8 * REPS * JOBTO )) 2>>"$LOG" &
        RPID=$!
        for _ in $(seq 1 150); do [ -s "$WORK/r.port" ] && break; kill -0 "$RPID" 2>/dev/null || break; sleep 0.1; done
        if [ -s "$WORK/r.port" ]; then RURL=http://127.0.0.1:$(cat "$WORK/r.port"); RLAT=$RURL/m/lat5; fi
        if [ -z "$RURL" ]; then
            echo "!! R: the range server did not start, see $LOG" >&2
        elif ! "$PY" "$HERE/src/nc_remote_refs.py" "$IN/remote/big.nc" "$RLAT/big.nc" "$IN/remote/big.json" >>"$LOG" 2>&1; then
            echo "!! R: nc_remote_refs.py failed (h5py?), see $LOG: no reference-store read" >&2
        fi
        [ -n "$RURL" ] && echo "   R: server at $RURL, $(stat -c %s "$IN/remote/big.nc") bytes in the file; byte ranges: ref ${HASBR[ref]}${NEW:+, new ${HASBR[new]:-0}}" >&2
    fi
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
        T_classic)  run_prog "$im" "$rep" nc_threads -d "$d" -k classic -m "$MIB" -L ;;
        T_nc4z)     run_prog "$im" "$rep" nc_threads -d "$d" -k nc4z -m "$HALF" -L ;;
        T_zarr)     run_prog "$im" "$rep" nc_threads -d "$d" -k zarr -m "$HALF" -L ;;
        B_bigread)  run_prog "$im" "$rep" nc_bigread -d "$d" -m "$MIB" ;;
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
        R_local)    run_prog "$im" "$rep" nc_remote -k read -w R_local -u "$IN/remote/big.nc" -m "$HALF" ;;
        R_direct)   run_prog "$im" "$rep" nc_remote -k read -w R_direct -u "$RLAT/big.nc#mode=bytes" -m "$HALF" ;;
        R_refstore) if [ -s "$IN/remote/big.json" ]; then
                        run_prog "$im" "$rep" nc_remote -k read -w R_refstore -u "file://$IN/remote/big.json#mode=zarr,reference" -m "$HALF"
                    else
                        echo "impl=$im rep=$rep workload=R_refstore phase=read status=unavailable reason=no_reference_file" >>"$RAWF"
                    fi ;;
        R_dump_h)   if [ "${HASBR[$im]}" = 1 ]; then
                        run_tool "$im" "$rep" R_dump_h header 0 - ncdump -h "$RLAT/v20.nc#mode=bytes"
                    else
                        echo "impl=$im rep=$rep workload=R_dump_h phase=header status=unavailable reason=no_byterange" >>"$RAWF"
                    fi ;;
        D2_dump_h)  run_tool "$im" "$rep" D2_dump_h header 0 - ncdump -h "$D2URL/d2meta" ;;
        D2_dump)    run_tool "$im" "$rep" D2_dump full "$D2META" - ncdump "$D2URL/d2meta" ;;
        D2_stride)  run_prog "$im" "$rep" nc_dap2 -u "$D2URL/d2stride" -v s -z "$D2Z_S" -y 250 -x 1000 -k stride -s 4 ;;
        D2_read)    run_prog "$im" "$rep" nc_dap2 -u "$D2URL/d2big" -v b -z "$D2Z_B" -y 250 -x 1000 -k full ;;
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
[ -n "$ONLY" ] && want T && JOBS+=(T_classic T_nc4z T_zarr)
want B && JOBS+=(B_bigread)
[ -n "$D2URL" ] && JOBS+=(D2_dump_h D2_dump D2_stride D2_read)
[ -n "$RURL" ] && JOBS+=(R_local R_direct R_refstore R_dump_h)

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
            case $j in D2_*) d2_run "$j" "$im" "$rep" ;; R_local) job "$j" "$im" "$rep" ;;
                R_*) r_run "$j" "$im" "$rep" ;; *) job "$j" "$im" "$rep" ;; esac
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
if grep -q "^impl=[a-z]* rep=[0-9]* dap2job=" "$RAWF"; then
    echo
    echo "DAP2 requests per client run (median over repetitions): req = all requests, dods = data"
    echo "requests (.dods), kB = response bytes served (10^3)"
    awk '
    function med(key, n,    v, i, j, t) {
        for (i = 1; i <= n; i++) v[i] = val[key, i] + 0
        for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
        return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    / dap2job=/ {
        delete f
        for (i = 1; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
        w = f["dap2job"]; if (!(w in seen)) { seen[w] = 1; order[++nw] = w }
        if (f["impl"] == "new") hasnew = 1
        for (q = 1; q <= 3; q++) {
            m = (q == 1) ? "requests" : (q == 2 ? "dods" : "served")
            k = w SUBSEP f["impl"] SUBSEP m; c = ++cnt[k]; val[k, c] = f[m]
        }
    }
    END {
        printf "%-12s %8s %8s %10s", "workload", "ref_req", "ref_dods", "ref_kB"
        if (hasnew) printf " %8s %8s %10s", "new_req", "new_dods", "new_kB"
        printf "\n"
        for (r = 1; r <= nw; r++) {
            w = order[r]; printf "%-12s", w
            for (q = 1; q <= (hasnew ? 2 : 1); q++) {
                im = (q == 1) ? "ref" : "new"; k = w SUBSEP im SUBSEP "requests"
                if (cnt[k] > 0) printf " %8d %8d %10.1f", med(k, cnt[k]), med(w SUBSEP im SUBSEP "dods", cnt[k]),
                                       med(w SUBSEP im SUBSEP "served", cnt[k]) / 1e3
                else printf " %8s %8s %10s", "-", "-", "-"
            }
            printf "\n"
        }
    }' "$RAWF"
fi
if grep -q "^impl=[a-z]* rep=[0-9]* remotejob=" "$RAWF"; then
    echo
    echo "Remote (byte-range) requests per client run (median over repetitions)"
    awk '
    function med(k, n,    v, i, j, t) {
        for (i = 1; i <= n; i++) v[i] = val[k, i] + 0
        for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
        return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    / remotejob=/ {
        delete f
        for (i = 1; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
        w = f["remotejob"]; if (!(w in seen)) { seen[w] = 1; order[++nw] = w }
        if (f["impl"] == "new") hasnew = 1
        k = w SUBSEP f["impl"]; val[k, ++cnt[k]] = f["requests"]
    }
    END {
        printf "%-12s %8s", "workload", "ref_req"; if (hasnew) printf " %8s", "new_req"; printf "\n"
        for (r = 1; r <= nw; r++) {
            w = order[r]; printf "%-12s", w
            for (q = 1; q <= (hasnew ? 2 : 1); q++) {
                k = w SUBSEP (q == 1 ? "ref" : "new")
                if (cnt[k] > 0) printf " %8d", med(k, cnt[k]); else printf " %8s", "-"
            }
            printf "\n"
        }
    }' "$RAWF"
fi
if grep -q "status=failed" "$RAWF"; then echo; echo "FAILED jobs:"; grep "status=failed" "$RAWF" | sort -u; fi
