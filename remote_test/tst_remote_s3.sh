#!/bin/sh
# tst_remote_s3.sh NCDUMP WORKDIR: a classic file stored in a local S3
# server (s3rver, started and stopped by nczarr_test/s3server.sh) is read
# by s3://BUCKET/KEY#mode=bytes (signed and anonymous, the aws.region
# fragment key) and by its path-style http URL, and dumps as the local file
# does; a missing key and a bare bucket are clean errors.  Exit 77 when
# s3rver or the reference ncgen is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = body ]; then
    ncdump=$2 work=$3
    ep=$NCZ_S3_ENDPOINT b=$NCZ_S3_BUCKET
    pass=0 fail=0
    ok() { pass=$((pass + 1)); }
    bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
    code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$work/f.nc" "$ep/$b/dir/f.nc")
    [ "$code" = 200 ] && ok || bad "PUT: $code"
    "$ncdump" "$work/f.nc" > "$work/want.cdl"
    export AWS_ENDPOINT_URL=$ep AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
    export NCRCENV_IGNORE=1
    check() { # name, lines to skip (1: the first, the dataset name), env..., URL last
        what=$1 from=$(($2 + 1)); shift 2
        rm -f "$work/got.cdl"
        if env "$@" > "$work/got.cdl" 2> "$work/err.txt" &&
            tail -n +$from "$work/got.cdl" > "$work/got.tail" &&
            tail -n +$from "$work/want.cdl" | cmp -s - "$work/got.tail"; then ok; else
            bad "$what: $(cat "$work/err.txt")"; diff "$work/want.cdl" "$work/got.cdl" | head -5; fi
    }
    check signed 0 AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1 \
        "$ncdump" "s3://$b/dir/f.nc#mode=bytes"
    check anonymous 0 AWS_PROFILE=no "$ncdump" "s3://$b/dir/f.nc#mode=bytes"
    # ncdump names this dataset from the URL's fragment ("f.nc#mode=bytes&aws"):
    # the data are compared
    check region-key 1 AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER \
        "$ncdump" "s3://$b/dir/f.nc#mode=bytes&aws.region=eu-west-1"
    check path-style 0 "$ncdump" "$ep/$b/dir/f.nc#mode=bytes"
    AWS_PROFILE=no "$ncdump" -h "s3://$b/dir/nope.nc#mode=bytes" > /dev/null 2> "$work/err.txt"
    [ $? -eq 1 ] && grep -q "not found\|No such" "$work/err.txt" && ok || bad "missing key: $(cat "$work/err.txt")"
    AWS_PROFILE=no "$ncdump" -h "s3://$b#mode=bytes" > /dev/null 2> "$work/err.txt"
    [ $? -eq 1 ] && ok || bad "bare bucket: $(cat "$work/err.txt")"
    echo "tst_remote_s3: $pass passed, $fail failed"
    [ $fail -eq 0 ] && [ $pass -gt 0 ]
    exit $?
fi
ncdump=$1 work=$2
[ -x /usr/bin/ncgen ] || { echo "reference ncgen missing"; exit 77; }
command -v curl > /dev/null || { echo "curl missing"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
cat > "$work/f.cdl" <<'CDL'
netcdf f {
dimensions:
  t = UNLIMITED ; x = 3 ;
variables:
  double v(t, x) ; v:units = "K" ;
  uint64 u(x) ; char s(x) ;
  :title = "on s3" ;
data:
  v = 1, 2, 3, 4, 5, 6 ; u = 1, 18446744073709551615, 3 ; s = "abc" ;
}
CDL
/usr/bin/ncgen -k nc5 -o "$work/f.nc" "$work/f.cdl" || exit 1
exec sh "$here/../nczarr_test/s3server.sh" run "$work/s3" rbucket sh "$here/tst_remote_s3.sh" body "$ncdump" "$work"
