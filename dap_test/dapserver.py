#!/usr/bin/env python3
"""dapserver.py: a loopback OPeNDAP (DAP2) server for the tests.

    dapserver.py --data DIR --portfile FILE [--lifetime SECONDS]
                 [--user U --password P] [--log FILE] [--tls CERT KEY]

Serves DIR/NAME.dds, DIR/NAME.das and DIR/NAME.dods (recorded DAP2
responses) at http://127.0.0.1:PORT/NAME.dds etc., and any other file of DIR
byte for byte (with Range and HEAD), from a data host and a second "login
host" (another port, reached as http://localhost:LOGINPORT) for the
Earthdata-style flow.  With --tls, a third listener serves the data host
over https with that certificate.  It writes "PORT LOGINPORT TLSPORT" (0
without --tls) to FILE once it listens and stops by itself after --lifetime
seconds (default 120), or at GET /_stop.

Switches are leading path words, consumed left to right, any combination:
  gzip, deflate     content-encode the body (when the client accepts it)
  r301 r302 r307    redirect to the same URL without this word
  auth              ask for basic auth (401 + challenge) with U:P
  setcookie         set cookie dapsess=1 on the response
  needcookie        answer 403 unless cookie dapsess=1 came with the request
  edl               Earthdata-style login: without cookie edlsess, 302 to the
                    login host, which asks basic auth (U:P; .netrc of the
                    client), then 302 back to /_edlcallback?code=..., which
                    sets the cookie and 302s to the original URL
  e400 e401 e403 e404 e500 e503   answer that status with a text body
  daperr            200 with a DAP2 error body (Error { code = ...; ... };)
  daperr500         500 with a DAP2 error body
  stall             wait 10 s before answering (client timeouts)
  stallbody         send the headers and half the body, then wait 10 s
  cut               announce the whole length, send half, close
  cutchunked        chunked body that stops without its last chunk
  nolength          no Content-Length: the body ends when the connection does
  badgzip           say Content-Encoding: gzip and send bytes that are not gzip
  liar              announce a Content-Length of 8 GiB, send the body, close
  norange           ignore Range (answer 200 with the whole body)
  k-ANYTHING        nothing: lets a test scope .ncrc settings by path
Endpoints: /_count (JSON {path: n, "total": n} of the requests so far, the
path without query; ?path=P gives one number), /_requests (JSON list of the
request targets, the request lines' paths with their queries, byte for byte
as sent; a path's %XX escapes are decoded only to find the file), /_reset, /_echo (the request
headers as JSON, and "_path": the request line's path as sent), /_stop.

Constraints (a query on .dds/.das/.dods) go to the module dap2subset.py
beside this file, when it exists: dap2subset.subset(kind, base, query)
returns the response bytes for kind ("dds", "das" or "dods") of the dataset
whose files are base + ".dds" etc., or raises ValueError (answered 400 with
a DAP2 error body).  Without that module only the empty query is served and
any other is answered 400.
"""
import argparse
import base64
import gzip
import importlib.util
import json
import os
import sys
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
STALL = 10.0

REDIRECTS = {"r301": 301, "r302": 302, "r307": 307}
STATUSES = {"e400": 400, "e401": 401, "e403": 403, "e404": 404, "e500": 500, "e503": 503}
SWITCHES = set(REDIRECTS) | set(STATUSES) | {
    "gzip", "deflate", "auth", "setcookie", "needcookie", "edl", "daperr", "daperr500",
    "stall", "stallbody", "cut", "cutchunked", "nolength", "norange", "badgzip", "liar"}
KINDS = {".dds": ("dds", "text/plain", "dods-dds"),
         ".das": ("das", "text/plain", "dods-das"),
         ".dods": ("dods", "application/octet-stream", "dods-data")}


def load_subsetter():
    """The pluggable constraint module, or None."""
    path = os.path.join(HERE, "dap2subset.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("dap2subset", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_dap4():
    """dap4serve.py beside this file: DAP4 (.dmr, .dap) answers for netCDF
    files of DIR (respond(base, kind, query) -> (body, ctype) or None)."""
    path = os.path.join(HERE, "dap4serve.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("dap4serve", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def dap_error(code, message):
    msg = message.replace('"', "'")
    return ('Error {\n    code = %d;\n    message = "%s";\n};\n' % (code, msg)).encode()


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.counts = {}
        self.total = 0
        self.requests = []     # the request lines' paths with their queries, as sent
        self.codes = {}        # Earthdata codes handed out by the login host
        self.subsetter = load_subsetter()
        self.dap4 = load_dap4()  # DAP4 answers (dap4serve.py), or None
        self.login_port = 0
        self.data_port = 0
        self.log = open(args.log, "a") if args.log else None

    def count(self, path, full=None):
        with self.lock:
            self.counts[path] = self.counts.get(path, 0) + 1
            self.total += 1
            if len(self.requests) < 10000:
                self.requests.append(full or path)
            if self.log:
                self.log.write(path + "\n")
                self.log.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "dapserver/1"
    state = None           # set on the class made for each listener
    login = False          # this listener is the login host

    def log_message(self, fmt, *a):
        pass

    # ---- small helpers ----
    def send(self, status, body=b"", ctype="text/plain", headers=(), head=False):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def cookies(self):
        out = {}
        for part in self.headers.get("Cookie", "").split(";"):
            if "=" in part:
                k, v = part.strip().split("=", 1)
                out[k] = v
        return out

    def basic_ok(self):
        a = self.headers.get("Authorization", "")
        if not a.startswith("Basic "):
            return False
        try:
            user, _, pwd = base64.b64decode(a[6:]).decode().partition(":")
        except Exception:
            return False
        return user == self.state.args.user and pwd == self.state.args.password

    def challenge(self, realm):
        self.send(401, b"authorization required\n",
                  headers=[("WWW-Authenticate", 'Basic realm="%s"' % realm)],
                  head=self.command == "HEAD")

    # ---- request entry points ----
    def do_HEAD(self):
        self.route(head=True)

    def do_GET(self):
        self.route(head=False)

    def route(self, head):
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, urllib.parse.unquote(url.query)
        if path.startswith("/_"):
            return self.control(path, url.query, head)
        self.state.count(path, self.path)
        if self.login:
            return self.login_host(path, url.query, head)
        words = path.strip("/").split("/")
        sw = []
        while words and (words[0] in SWITCHES or words[0].startswith("k-")):
            sw.append(words.pop(0))
        rest = "/" + "/".join(words)
        for i, w in enumerate(sw):
            if w in REDIRECTS:
                loc = "/" + "/".join(sw[:i] + sw[i + 1:] + words)
                if url.query:
                    loc += "?" + url.query
                return self.send(REDIRECTS[w], b"moved\n", headers=[("Location", loc)], head=head)
        if "auth" in sw and not self.basic_ok():
            return self.challenge("dap")
        if "needcookie" in sw and self.cookies().get("dapsess") != "1":
            return self.send(403, b"cookie required\n", head=head)
        if "edl" in sw and self.cookies().get("edlsess") != "ok":
            back = "http://127.0.0.1:%d/_edlcallback" % self.state.data_port
            orig = self.path
            loc = "http://localhost:%d/oauth/authorize?%s" % (
                self.state.login_port,
                urllib.parse.urlencode({"redirect_uri": back, "state": orig}))
            return self.send(302, b"login first\n", headers=[("Location", loc)], head=head)
        for w in sw:
            if w in STATUSES:
                return self.send(STATUSES[w], ("status %d for %s\n" % (STATUSES[w], rest)).encode(),
                                 head=head)
        if "daperr" in sw or "daperr500" in sw:
            body = dap_error(1005, "no such variable in " + rest)
            return self.send(500 if "daperr500" in sw else 200, body,
                             headers=[("Content-Description", "dods-error")], head=head)
        if "stall" in sw:
            time.sleep(STALL)
        return self.serve_file(rest, query, sw, head)

    def control(self, path, rawquery, head):
        st = self.state
        q = urllib.parse.parse_qs(rawquery)
        if path == "/_count":
            with st.lock:
                if "path" in q:
                    body = str(st.counts.get(q["path"][0], 0)).encode()
                else:
                    d = dict(st.counts)
                    d["total"] = st.total
                    body = json.dumps(d).encode()
            return self.send(200, body, "application/json", head=head)
        if path == "/_requests":
            with st.lock:
                body = json.dumps(st.requests).encode()
            return self.send(200, body, "application/json", head=head)
        if path == "/_reset":
            with st.lock:
                st.counts.clear()
                st.total = 0
                st.requests.clear()
            return self.send(200, b"ok\n", head=head)
        if path == "/_echo":
            st.count(path)
            d = {k: v for k, v in self.headers.items()}
            d["_path"] = self.path
            body = json.dumps(d).encode()
            return self.send(200, body, "application/json", head=head)
        if path == "/_stop":
            self.send(200, b"bye\n", head=head)
            threading.Thread(target=stop_all, daemon=True).start()
            return None
        if path == "/_edlcallback":
            st.count(path)
            code = q.get("code", [""])[0]
            with st.lock:
                ok = st.codes.pop(code, False)
            if not ok:
                return self.send(403, b"bad login code\n", head=head)
            orig = q.get("state", ["/"])[0]
            return self.send(302, b"logged in\n",
                             headers=[("Set-Cookie", "edlsess=ok; Path=/"), ("Location", orig)],
                             head=head)
        return self.send(404, b"no such control path\n", head=head)

    def login_host(self, path, rawquery, head):
        if path != "/oauth/authorize":
            return self.send(404, b"login host: no such path\n", head=head)
        if not self.basic_ok():
            return self.challenge("Earthdata Login")
        q = urllib.parse.parse_qs(rawquery)
        back = q.get("redirect_uri", [""])[0]
        if not back.startswith("http://127.0.0.1:"):
            return self.send(400, b"bad redirect_uri\n", head=head)
        code = base64.b16encode(os.urandom(8)).decode()
        with self.state.lock:
            self.state.codes[code] = True
        loc = back + "?" + urllib.parse.urlencode({"code": code, "state": q.get("state", ["/"])[0]})
        return self.send(302, b"back to the data host\n", headers=[("Location", loc)], head=head)

    # ---- files ----
    def serve_file(self, rest, query, sw, head):
        data = self.state.args.data
        # the path as a server reads it: %XX escapes decoded
        rel = os.path.normpath(urllib.parse.unquote(rest).lstrip("/"))
        if rel.startswith("..") or os.path.isabs(rel):
            return self.send(400, dap_error(400, "bad path"), head=head)
        fpath = os.path.join(data, rel)
        ext = os.path.splitext(rel)[1]
        # DAP4: NAME.dmr / NAME.dap of a netCDF file NAME, from dap4serve.py
        # (recorded NAME.dmr / NAME.dap files are served as they are).
        if ext in (".dmr", ".dap") and self.state.dap4 is not None:
            try:
                answer = self.state.dap4.respond(fpath[: -len(ext)], ext[1:], query)
            except ValueError as e:
                return self.send(400, ("%s\n" % e).encode(), head=head)
            if answer is not None:
                return self.send_body(200, answer[0], answer[1], [], sw, head)
        kind = KINDS.get(ext)
        headers = []
        if kind is not None:
            base = fpath[: -len(ext)]
            headers = [("Content-Description", kind[2]), ("XDODS-Server", "dods/3.2"),
                       ("XOPeNDAP-Server", "dapserver/1")]
            if not os.path.isfile(base + ext):
                return self.send(404, dap_error(404, "no such dataset: " + rest),
                                 headers=[("Content-Description", "dods-error")], head=head)
            if query:
                sub = self.state.subsetter
                if sub is None:
                    return self.send(400, dap_error(1003, "constraints are not supported here"),
                                     headers=[("Content-Description", "dods-error")], head=head)
                try:
                    body = sub.subset(kind[0], base, query)
                except ValueError as e:
                    return self.send(400, dap_error(1003, str(e)),
                                     headers=[("Content-Description", "dods-error")], head=head)
            else:
                with open(fpath, "rb") as f:
                    body = f.read()
            ctype = kind[1]
        else:
            if not os.path.isfile(fpath):
                return self.send(404, ("no such file: %s\n" % rest).encode(), head=head)
            with open(fpath, "rb") as f:
                body = f.read()
            ctype = "application/octet-stream"
        if "setcookie" in sw:
            headers.append(("Set-Cookie", "dapsess=1; Path=/"))
        status = 200
        rng = self.headers.get("Range")
        if rng and "norange" not in sw and rng.startswith("bytes="):
            first, _, last = rng[6:].partition("-")
            size = len(body)
            try:
                first = int(first)
                last = int(last) if last else size - 1
            except ValueError:
                return self.send(400, b"bad range\n", head=head)
            if first >= size:
                return self.send(416, b"", headers=[("Content-Range", "bytes */%d" % size)], head=head)
            last = min(last, size - 1)
            body = body[first:last + 1]
            status = 206
            headers.append(("Content-Range", "bytes %d-%d/%d" % (first, last, size)))
        else:
            headers.append(("Accept-Ranges", "bytes"))
        accept = self.headers.get("Accept-Encoding", "")
        if "badgzip" in sw:
            body = b"\x1f\x8b\x08\x00 this is not a gzip stream " + body[:64]
            headers.append(("Content-Encoding", "gzip"))
        elif "gzip" in sw and "gzip" in accept and status == 200:
            body = gzip.compress(body)
            headers.append(("Content-Encoding", "gzip"))
        elif "deflate" in sw and "deflate" in accept and status == 200:
            body = zlib.compress(body)
            headers.append(("Content-Encoding", "deflate"))
        return self.send_body(status, body, ctype, headers, sw, head)

    def start(self, status, ctype, headers, *extra):
        """Status line and headers of a body sent by hand."""
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for k, v in list(extra) + list(headers):
            self.send_header(k, v)
        self.end_headers()

    def send_body(self, status, body, ctype, headers, sw, head):
        if "cutchunked" in sw:
            self.start(status, ctype, headers, ("Transfer-Encoding", "chunked"))
            half = body[: len(body) // 2]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(half), half))
            self.wfile.flush()
            self.close_connection = True
            return None
        if "nolength" in sw or "liar" in sw:
            length = ("Content-Length", str(8 << 30)) if "liar" in sw else ("Connection", "close")
            self.start(status, ctype, headers, length)
            if not head:
                self.wfile.write(body)
                self.wfile.flush()
            self.close_connection = True
            return None
        if "cut" in sw or "stallbody" in sw:
            self.start(status, ctype, headers, ("Content-Length", str(len(body))))
            if head:
                return None
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            if "stallbody" in sw:
                time.sleep(STALL)
                try:
                    self.wfile.write(body[len(body) // 2:])
                except OSError:
                    pass
            self.close_connection = True
            return None
        return self.send(status, body, ctype, headers, head=head)


servers = []


def quiet_errors(srv):
    """A client that hangs up early (a timeout test) is not worth a traceback."""
    plain = srv.handle_error

    def handle_error(request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        plain(request, client_address)
    srv.handle_error = handle_error


def stop_all():
    for s in servers:
        s.shutdown()


def listener(state, login):
    cls = type("H", (Handler,), {"state": state, "login": login})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), cls)
    srv.daemon_threads = True
    quiet_errors(srv)
    servers.append(srv)
    return srv


def main():
    ap = argparse.ArgumentParser(description="loopback DAP2 server for tests")
    ap.add_argument("--data", required=True)
    ap.add_argument("--portfile", required=True)
    ap.add_argument("--lifetime", type=float, default=120.0)
    ap.add_argument("--user", default="tiggeruser")
    ap.add_argument("--password", default="tigger")
    ap.add_argument("--log")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = ap.parse_args()
    state = State(args)
    data = listener(state, False)
    login = listener(state, True)
    state.data_port = data.server_address[1]
    state.login_port = login.server_address[1]
    tls_port = 0
    if args.tls:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        tls = listener(state, False)
        tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
        tls_port = tls.server_address[1]
        threading.Thread(target=tls.serve_forever, daemon=True).start()
    tmp = args.portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d %d %d\n" % (state.data_port, state.login_port, tls_port))
    os.replace(tmp, args.portfile)
    timer = threading.Timer(args.lifetime, stop_all)
    timer.daemon = True
    timer.start()
    t = threading.Thread(target=login.serve_forever, daemon=True)
    t.start()
    data.serve_forever()
    login.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
