#!/bin/sh
# s3server.sh: a local S3 server (the npm package s3rver) for the Zarr tests.
#
#   s3server.sh start WORKDIR BUCKET   install s3rver if needed, start it on a
#                                      free 127.0.0.1 port with BUCKET, print
#                                      its endpoint (http://127.0.0.1:PORT)
#   s3server.sh stop WORKDIR           stop the server started in WORKDIR
#   s3server.sh run WORKDIR BUCKET CMD...
#                                      start, run CMD with NCZ_S3_ENDPOINT and
#                                      NCZ_S3_BUCKET set, stop (even when CMD
#                                      fails); exit with CMD's status
#
# Exit 77 (the test-skip code) when node or npm is missing or the install
# fails.  s3rver is installed once into $NCZ_S3RVER_CACHE (default
# WORKDIR/../s3rver-npm) and reused.  s3rver does not check signatures, and
# its delimiter listings omit common prefixes that hold only deeper keys.
set -u
cmd=${1:-}
work=${2:-}
[ -n "$cmd" ] && [ -n "$work" ] || { echo "usage: $0 start|stop|run WORKDIR [BUCKET [CMD...]]" >&2; exit 2; }
mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)
cache=${NCZ_S3RVER_CACHE:-$(dirname "$work")/s3rver-npm}

install_s3rver() {
    command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || {
        echo "s3server: node/npm not found" >&2; return 77; }
    [ -x "$cache/node_modules/.bin/s3rver" ] && return 0
    mkdir -p "$cache" || return 77
    # one installer at a time (tests run in parallel)
    ( flock 9
      [ -x "$cache/node_modules/.bin/s3rver" ] ||
        (cd "$cache" && timeout 300 npm install s3rver@3 --no-audit --no-fund \
            --loglevel=error >"$cache/npm.log" 2>&1)
    ) 9>"$cache/.lock"
    [ -x "$cache/node_modules/.bin/s3rver" ] || {
        echo "s3server: npm install s3rver failed (see $cache/npm.log)" >&2; return 77; }
}

free_port() {
    node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

start() {
    bucket=$1
    install_s3rver || return $?
    stop_server 2>/dev/null
    rm -rf "$work/data" && mkdir -p "$work/data"
    tries=0
    while [ $tries -lt 5 ]; do
        tries=$((tries + 1))
        port=$(free_port) || return 77
        NODE_OPTIONS=--openssl-legacy-provider node "$cache/node_modules/.bin/s3rver" \
            -d "$work/data" -a 127.0.0.1 -p "$port" --configure-bucket "$bucket" \
            --silent >"$work/s3rver.log" 2>&1 &
        echo $! >"$work/s3rver.pid"
        i=0
        while [ $i -lt 100 ]; do
            if curl -s -o /dev/null "http://127.0.0.1:$port/$bucket" 2>/dev/null; then
                echo "http://127.0.0.1:$port" >"$work/s3rver.endpoint"
                echo "http://127.0.0.1:$port"
                return 0
            fi
            kill -0 "$(cat "$work/s3rver.pid")" 2>/dev/null || break
            sleep 0.1
            i=$((i + 1))
        done
        stop_server
    done
    echo "s3server: s3rver did not start (see $work/s3rver.log)" >&2
    return 77
}

stop_server() {
    [ -f "$work/s3rver.pid" ] || return 0
    pid=$(cat "$work/s3rver.pid")
    kill "$pid" 2>/dev/null
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null
    rm -f "$work/s3rver.pid" "$work/s3rver.endpoint"
}

case "$cmd" in
start)
    start "${3:?bucket}"
    ;;
stop)
    stop_server
    ;;
run)
    bucket=${3:?bucket}
    shift 3
    ep=$(start "$bucket") || exit $?
    trap stop_server EXIT INT TERM HUP
    NCZ_S3_ENDPOINT=$ep NCZ_S3_BUCKET=$bucket "$@"
    rc=$?
    stop_server
    trap - EXIT
    exit $rc
    ;;
*)
    echo "usage: $0 start|stop|run WORKDIR [BUCKET [CMD...]]" >&2
    exit 2
    ;;
esac
