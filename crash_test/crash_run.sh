#!/bin/sh
# crash_run.sh WRITER SHIM FORMAT RUNS [tear] [report]
#
# Runs WRITER (crash_writer, built against some library) once to count its
# file-changing calls, then RUNS times (or at every point when RUNS is
# "all") killed with SIGKILL at one of those calls by the LD_PRELOAD SHIM,
# and checks after each kill that everything the writer had synced is
# still in the file.  "tear" makes a killed long write leave a prefix of
# its pages.  Prints runs and failures (and how many of them followed a
# kill inside nc_sync, nc_redef or nc_enddef); exits 1 on any failure
# unless "report" is given (measurements of a library that is not
# crash-safe), or with "outside" on failures after kills outside those;
# with "damage" it exits 1 when there is none (a library known to lose
# synced data: shows that the harness sees it).
set -u
W=$1; SHIM=$2; FMT=$3; RUNS=$4; shift 4
TEAR=0; REPORT=0; OUTSIDE=0; DAMAGE=0
for a in "$@"; do
  case $a in tear) TEAR=1 ;; report) REPORT=1 ;; outside) OUTSIDE=1 ;; damage) DAMAGE=1 ;; esac
done
D=$(pwd)/crash_${FMT}_$$
rm -rf "$D"; mkdir -p "$D"
trap 'rm -rf "$D"' EXIT
case $FMT in
  classic|cdf5|nc4) P="$D/f.nc" ;;
  zarr|zarrnf) P="file://$D/f.zarr#mode=nczarr,file" ;;
  zip) P="file://$D/f.zip#mode=nczarr,zip" ;;
  # s3: under nczarr_test/s3server.sh run (NCZ_S3_ENDPOINT, NCZ_S3_BUCKET);
  # each run writes its own prefix, removed from the server's directory
  # CRASH_S3_DATA after the check
  s3) [ -n "${NCZ_S3_ENDPOINT:-}" ] && [ -n "${NCZ_S3_BUCKET:-}" ] || {
        echo "s3 needs NCZ_S3_ENDPOINT and NCZ_S3_BUCKET"; exit 2; }
      S3N=0; P="" ;;
  *) echo "unknown format $FMT"; exit 2 ;;
esac
# sanitizer builds: the shim is preloaded beside the runtime linked in,
# and a killed writer's memory is not a leak (the checker is checked)
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
export ASAN_OPTIONS
WASAN="$ASAN_OPTIONS:detect_leaks=0"
clean() {
  rm -rf "$D/f.nc" "$D/f.zarr" "$D/f.zip" "$D"/f.zip.* "$D/log"
  if [ "$FMT" = s3 ]; then
    [ -n "$P" ] && [ -n "${CRASH_S3_DATA:-}" ] && rm -rf "$CRASH_S3_DATA/$NCZ_S3_BUCKET/crash$$-$S3N"
    S3N=$((S3N + 1))
    P="$NCZ_S3_ENDPOINT/$NCZ_S3_BUCKET/crash$$-$S3N#mode=nczarr,s3"
  fi
}

clean
CRASH_COUNT="$D/count" LD_PRELOAD="$SHIM" "$W" write "$FMT" "$P" "$D/log" || {
  echo "writer failed without a crash"; exit 1; }
"$W" check "$FMT" "$P" "$D/log" || { echo "check failed without a crash"; exit 1; }
T=$(cat "$D/count")
if [ "$RUNS" = all ] || [ "$RUNS" -ge "$T" ]; then
  POINTS=$(seq 1 "$T")
else
  # evenly spread over the run, from a seed-dependent start
  SEED=${CRASH_SEED:-$$}
  POINTS=$(awk -v t="$T" -v n="$RUNS" -v s="$SEED" 'BEGIN { srand(s); o = rand() * t / n;
    for (k = 0; k < n; k++) { p = int(1 + o + k * t / n); if (p > t) p = t; print p } }')
fi
runs=0; fails=0; insync=0; list=""
for n in $POINTS; do
  clean
  ASAN_OPTIONS=$WASAN CRASH_AT=$n CRASH_TEAR=$TEAR LD_PRELOAD="$SHIM" "$W" write "$FMT" "$P" "$D/log" >/dev/null 2>&1
  runs=$((runs + 1))
  out=$("$W" check "$FMT" "$P" "$D/log" 2>&1); rc=$?
  if [ $rc -ne 0 ]; then
    fails=$((fails + 1))
    [ $rc -eq 4 ] && insync=$((insync + 1))
    [ $fails -le 5 ] && list="$list
  kill at write $n: $out"
  fi
done
clean
echo "crash $FMT: $runs runs, $fails failures, $insync of them inside a sync ($T write points, tear=$TEAR)$list"
[ $REPORT = 1 ] && exit 0
[ $DAMAGE = 1 ] && { [ $fails -gt 0 ]; exit; }
[ $OUTSIDE = 1 ] && { [ $fails -eq $insync ]; exit; }
[ $fails -eq 0 ]
