#!/usr/bin/env python3
"""rangeserver.py: a loopback HTTP server of files by byte ranges, for the
remote reader's tests.

    rangeserver.py --data DIR --portfile FILE [--lifetime SECONDS]

Serves DIR on 127.0.0.1 (a free port, written to FILE) with HTTP/1.1
keep-alive, Range (206, 416 with "bytes */SIZE", multi-range not
supported), ETag and Last-Modified.  The first path word may name fault
modes, joined by '+': /m/MODES/FILE

  slow      50 ms pause before each answer
  lat5      5 ms pause before each answer (a distant server's latency)
  close     the first ranged request of each range: the connection is
            closed before any answer
  fail500   the first ranged request of each range: 500
  short     every ranged answer announces its length and sends half of it
  changed   after the first answer, the ETag and Last-Modified change
  norange   Range ignored: 200 with the whole file

GET /_stats answers {"requests": N, "ranges": [...], "connections": C}
(requests to files, and connections accepted since the last reset, the one
asking included); GET /_reset sets them to zero.  The
server stops itself after --lifetime seconds.
"""
import argparse
import json
import os
import re
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, data):
        self.data = data
        self.lock = threading.Lock()
        self.requests = 0
        self.ranges = []
        self.seen = set()   # (mode, path, range) already failed once
        self.answers = 0
        self.connections = 0  # TCP connections accepted


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None

    def log_message(self, fmt, *a):
        pass

    def setup(self):
        super().setup()
        with self.state.lock:
            self.state.connections += 1

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        st = self.state
        path = self.path.split("?", 1)[0]
        if path == "/_stats":
            with st.lock:
                body = json.dumps({"requests": st.requests, "ranges": st.ranges,
                                   "connections": st.connections}).encode()
            return self.answer(200, body)
        if path == "/_reset":
            with st.lock:
                st.requests, st.ranges, st.seen, st.answers = 0, [], set(), 0
                st.connections = 0
            return self.answer(200, b"ok")
        modes = set()
        m = re.match(r"^/m/([a-z0-9+]+)(/.*)$", path)
        if m:
            modes = set(m.group(1).split("+"))
            path = m.group(2)
        rel = os.path.normpath(path.lstrip("/"))
        full = os.path.join(st.data, rel)
        if rel.startswith("..") or not os.path.isfile(full):
            return self.answer(404, b"not found\n")
        size = os.path.getsize(full)
        rng = self.headers.get("Range")
        with st.lock:
            st.requests += 1
            st.ranges.append(rng or "")
            first_answer = st.answers == 0
            st.answers += 1
            key = (path, rng)
            first_of_range = key not in st.seen
            st.seen.add(key)
        if "slow" in modes:
            time.sleep(0.05)
        if "lat5" in modes:
            time.sleep(0.005)
        stamp = os.path.getmtime(full)
        if "changed" in modes and not first_answer:
            stamp += 3600
        etag = '"%x-%x"' % (int(stamp * 1000), size)
        vh = [("ETag", etag), ("Last-Modified", formatdate(stamp, usegmt=True)),
              ("Accept-Ranges", "bytes")]
        if rng and "norange" not in modes:
            if "close" in modes and first_of_range:
                self.close_connection = True
                self.wfile.flush()
                self.connection.shutdown(2)
                return
            if "fail500" in modes and first_of_range:
                return self.answer(500, b"try again\n")
            m = re.match(r"^bytes=(\d+)-(\d*)$", rng)
            if not m:
                return self.answer(400, b"bad range\n")
            a = int(m.group(1))
            z = int(m.group(2)) if m.group(2) else size - 1
            if a >= size:
                return self.answer(416, b"", vh + [("Content-Range", "bytes */%d" % size)])
            z = min(z, size - 1)
            with open(full, "rb") as f:
                f.seek(a)
                body = f.read(z - a + 1)
            hdr = vh + [("Content-Range", "bytes %d-%d/%d" % (a, z, size))]
            if "short" in modes:
                self.send_response(206)
                for k, v in hdr:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[:len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            return self.answer(206, body, hdr)
        with open(full, "rb") as f:
            body = f.read()
        return self.answer(200, body, vh)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--portfile", required=True)
    ap.add_argument("--lifetime", type=float, default=120)
    args = ap.parse_args()
    Handler.state = State(args.data)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.handle_error = lambda req, addr: None   # clients that hang up early
    threading.Timer(args.lifetime, srv.shutdown).start()
    tmp = args.portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.portfile)
    srv.serve_forever()
    os._exit(0)


if __name__ == "__main__":
    main()
