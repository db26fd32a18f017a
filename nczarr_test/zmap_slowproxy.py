#!/usr/bin/env python3
"""zmap_slowproxy.py: an HTTP proxy on 127.0.0.1 that delays every request,
so that concurrency in the S3 store shows in wall time as it would against a
distant server, and that counts how many requests overlap.

    zmap_slowproxy.py UPSTREAM DELAY_MS STATEFILE -- CMD...

Starts on a free port, runs CMD with NCZ_S3_ENDPOINT pointing at the proxy,
then writes "requests=N maxinflight=M" to STATEFILE and exits with CMD's
status.  Requests are forwarded as received (same Host header, so signed
requests still verify) to UPSTREAM (http://127.0.0.1:PORT, only loopback);
a request whose path holds "zfail" is answered 503 instead (failure
injection for the tests)."""
import http.client
import http.server
import os
import subprocess
import sys
import threading
import time
import urllib.parse

upstream, delay, statefile = sys.argv[1], float(sys.argv[2]) / 1000.0, sys.argv[3]
cmd = sys.argv[sys.argv.index("--") + 1:]
up = urllib.parse.urlparse(upstream)
if up.hostname not in ("127.0.0.1", "localhost", "::1"):
    sys.exit("zmap_slowproxy: upstream must be on this machine")

lock = threading.Lock()
inflight = maxinflight = total = 0
HOP = {"connection", "keep-alive", "transfer-encoding", "expect", "proxy-connection"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def relay(self):
        global inflight, maxinflight, total
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        r = None
        with lock:
            inflight += 1
            total += 1
            maxinflight = max(maxinflight, inflight)
        try:
            time.sleep(delay)
            if "zfail" in self.path:  # an injected server failure
                r = None
                return
            c = http.client.HTTPConnection(up.hostname, up.port, timeout=60)
            hdrs = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
            c.request(self.command, self.path, body=body, headers=hdrs)
            r = c.getresponse()
            data = r.read()
            c.close()
        finally:
            with lock:
                inflight -= 1
            if r is None:
                self.send_response(503, "Slow Down")
                self.send_header("Content-Length", "0")
                self.end_headers()
        if r is None:
            return
        self.send_response(r.status, r.reason)
        for k, v in r.getheaders():
            if k.lower() not in HOP and k.lower() != "content-length":
                self.send_header(k, v)
        if self.command == "HEAD":
            self.send_header("Content-Length", r.getheader("Content-Length") or "0")
            self.end_headers()
        else:
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = relay


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 128  # the default 5 drops connects of a burst (1 s SYN retry)


srv = Server(("127.0.0.1", 0), Handler)
srv.daemon_threads = True
threading.Thread(target=srv.serve_forever, daemon=True).start()
env = dict(os.environ, NCZ_S3_ENDPOINT="http://127.0.0.1:%d" % srv.server_address[1])
try:
    rc = subprocess.call(cmd, env=env, timeout=120)
except subprocess.TimeoutExpired:
    rc = 1
srv.shutdown()
with open(statefile, "w") as f:
    f.write("requests=%d maxinflight=%d\n" % (total, maxinflight))
sys.exit(rc)
