#!/usr/bin/env python3
"""crash_s3proxy.py: S3's all-or-nothing uploads in front of s3rver.

    crash_s3proxy.py UPSTREAM -- CMD...

S3 stores an object only when its PUT arrived whole: a client killed in the
middle of an upload leaves the object as it was.  s3rver streams a body into
the object's file as it arrives, so a cut upload leaves a truncated object
there (and truncates one that existed), which no S3 client can guard
against.  This proxy (on a free 127.0.0.1 port; CMD runs with
NCZ_S3_ENDPOINT pointing at it) reads each request whole, forwards it to
UPSTREAM (loopback only) when its body is complete and drops it when the
connection closes first.  At the end it prints how many requests it
forwarded and how many it dropped, and exits with CMD's status."""
import http.client
import http.server
import os
import subprocess
import sys
import threading
import urllib.parse

if len(sys.argv) < 4 or sys.argv[2] != "--":
    sys.exit("usage: crash_s3proxy.py UPSTREAM -- CMD...")
target = urllib.parse.urlparse(sys.argv[1])
if target.hostname not in ("127.0.0.1", "localhost"):
    sys.exit("crash_s3proxy: the upstream must be on this machine")
counts = {"forwarded": 0, "dropped": 0}
counts_lock = threading.Lock()
# per-request headers of the connection, not of the request
SKIP = {"connection", "keep-alive", "proxy-connection", "expect", "transfer-encoding"}


def read_body(stream, n):
    """n bytes from stream, or None when it ends first."""
    parts, got = [], 0
    while got < n:
        b = stream.read(min(n - got, 1 << 20))
        if not b:
            return None
        parts.append(b)
        got += len(b)
    return b"".join(parts)


class Whole(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = read_body(self.rfile, length) if length else b""
        if body is None:
            with counts_lock:
                counts["dropped"] += 1
            self.close_connection = True
            return
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
        try:
            conn.request(self.command, self.path, body=body if length else None,
                         headers={k: v for k, v in self.headers.items() if k.lower() not in SKIP})
            resp = conn.getresponse()
            payload = resp.read()
            status, reason, headers = resp.status, resp.reason, resp.getheaders()
        finally:
            conn.close()
        with counts_lock:
            counts["forwarded"] += 1
        self.send_response(status, reason)
        for k, v in headers:
            if k.lower() not in SKIP and k.lower() != "content-length":
                self.send_header(k, v)
        if self.command == "HEAD":
            self.send_header("Content-Length", dict((k.lower(), v) for k, v in headers).get(
                "content-length", "0"))
            self.end_headers()
            return
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = forward


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64


server = Server(("127.0.0.1", 0), Whole)
threading.Thread(target=server.serve_forever, daemon=True).start()
env = dict(os.environ, NCZ_S3_ENDPOINT="http://127.0.0.1:%d" % server.server_address[1])
rc = subprocess.call(sys.argv[3:], env=env)
server.shutdown()
print("crash_s3proxy: %d requests forwarded, %d cut short and dropped"
      % (counts["forwarded"], counts["dropped"]))
sys.exit(rc)
