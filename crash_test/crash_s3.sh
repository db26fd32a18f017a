#!/bin/sh
# crash_s3.sh SRVDIR PYTHON WRITER SHIM RUNS [tear]
#
# crash_run.sh's s3 format: a local s3rver (nczarr_test/s3server.sh, in
# SRVDIR; exit 77 without node/npm) behind crash_s3proxy.py, which gives it
# S3's all-or-nothing uploads, so that what the check sees after a kill is
# what S3 would hold.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srv=$1 py=$2
shift 2
if [ -z "${CRASH_S3_INNER:-}" ]; then
  CRASH_S3_INNER=1 exec sh "$here/../nczarr_test/s3server.sh" run "$srv" cs sh "$0" "$srv" "$py" "$@"
fi
mkdir -p "$srv" && srv=$(cd "$srv" && pwd)
exec "$py" "$here/crash_s3proxy.py" "$NCZ_S3_ENDPOINT" -- env CRASH_S3_DATA="$srv/data" \
  sh "$here/crash_run.sh" "$1" "$2" s3 "$3" ${4:+"$4"}
