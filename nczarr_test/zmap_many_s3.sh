#!/bin/sh
# zmap_many_s3.sh PYTHON PROXY ZMAP_MANY STATEFILE: run zmap_many on the local
# S3 server (NCZ_S3_ENDPOINT, NCZ_S3_BUCKET from s3server.sh) through the
# delaying proxy, then require that requests overlapped there: write_many and
# read_many must have had several requests in flight at once.
set -u
py=$1 proxy=$2 many=$3 state=$4
rm -f "$state"
"$py" "$proxy" "$NCZ_S3_ENDPOINT" "${NCZ_PROXY_DELAY_MS:-30}" "$state" -- \
    sh -c 'exec "$0" "$NCZ_S3_ENDPOINT/$1/many" s3 "$2" "$3" fail' \
    "$many" "$NCZ_S3_BUCKET" "${NCZ_MANY_N:-32}" "${NCZ_MANY_SIZE:-65536}" || exit 1
cat "$state"
max=$(sed -n 's/.*maxinflight=\([0-9]*\).*/\1/p' "$state")
[ -n "$max" ] && [ "$max" -ge 4 ] || { echo "zmap_many_s3: requests did not overlap (max $max in flight)" >&2; exit 1; }
echo "zmap_many_s3: 1 passed, 0 failed"
