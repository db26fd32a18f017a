#!/usr/bin/env python3
"""dap2serve.py: the D2 workload's loopback DAP2 server.

    dap2serve.py --data DIR --portfile FILE --log FILE [--lifetime SECONDS]

Serves every classic file DIR/NAME.nc (fixed-size variables only, as
dap2gen.py writes them) as the DAP2 dataset http://127.0.0.1:PORT/NAME:
NAME.dds, NAME.das and NAME.dods, each with an optional constraint
expression made of projections (NAME.dods?a,b[0:4:99][3][0:9]): a hyperslab
is [i], [start:stop] or [start:stride:stop] (stop included), missing
trailing hyperslabs take the whole dimension; selections and functions are
answered 400.  The variables of a response come in the dataset's order, as
DAP2 servers send them.  Data are encoded as DAP2 puts XDR on the wire:
scalars as one value, arrays as their count twice then the values; Byte
arrays packed and padded to 4 bytes, Int16 as 4-byte integers, floats and
Int32 big-endian as in the classic file, which is mapped into memory so that
a large response is streamed from it without a whole copy.

The same files are DAP4 datasets too: NAME.dmr and NAME.dap, with
dap4.ce=/a;/b[0:4:99][3][0:9] (the same projections, '/' before each name,
';' between them) and dap4.checksum=true|false.  The data response is
chunked (at most 8 MiB each), big-endian as the classic file holds it, each
variable followed by its CRC32 when asked (the checksums of a selection are
computed once and kept).

The bytes of a strided or partial .dods response (at most RESP_MAX) are
computed once per constraint and kept (RESP_KEEP bytes in all, least
recently used dropped), so that a client's time is not the server's numpy
gather repeated at every request: every client asking the same thing gets
the same bytes sent in one write.  A response holding whole variables only
is sent from the mapped file as it lies (os.sendfile when the bytes are
already in their wire form).

Each request appends "PATH?QUERY STATUS BYTES" to --log (flushed before the
answer is sent), so a caller counts the requests of a client run from the
lines added.  It listens on 127.0.0.1 at an ephemeral port written to
--portfile, and stops after --lifetime seconds (default 600), when its parent
process goes away, or at GET /_stop.
"""
import argparse
import collections
import os
import re
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dap2gen  # noqa: E402

DAPTYPE = {dap2gen.NC_BYTE: "Byte", dap2gen.NC_SHORT: "Int16", dap2gen.NC_INT: "Int32",
           dap2gen.NC_FLOAT: "Float32", dap2gen.NC_DOUBLE: "Float64"}
WIRE = {dap2gen.NC_SHORT: ">i4", dap2gen.NC_INT: ">i4", dap2gen.NC_FLOAT: ">f4",
        dap2gen.NC_DOUBLE: ">f8"}
BLOCK = 8 << 20          # bytes of values sent per write
RESP_MAX = 64 << 20      # largest .dods response kept whole
RESP_KEEP = 256 << 20    # bytes of kept responses
HYPER = re.compile(r"\[\s*(\d+)\s*(?::\s*(\d+)\s*)?(?::\s*(\d+)\s*)?\]")


class Dataset:
    """One classic file: its metadata and a read-only map of its bytes."""

    def __init__(self, path, name):
        self.name = name
        self.path = path
        self.dims, self.gatts, self.vars = dap2gen.read_classic(path)
        self.map = np.memmap(path, dtype=np.uint8, mode="r")
        self.byname = {v.name: v for v in self.vars}

    def array(self, v):
        n = int(np.prod(v.shape, dtype=np.int64))
        dt = np.dtype(dap2gen.DTYPE[v.nctype])
        return self.map[v.begin:v.begin + n * dt.itemsize].view(dt).reshape(v.shape)


def parse_ce(ds, query):
    """[(Var, [slice per dimension])] in the dataset's order for a
    projection-only constraint; ValueError for anything else."""
    if "&" in query or "(" in query:
        raise ValueError("only projections are supported")
    picked = {}
    for item in filter(None, (s.strip() for s in query.split(","))):
        m = re.match(r'^"?([A-Za-z_][A-Za-z0-9_.]*)"?', item)
        if not m or m.group(1) not in ds.byname:
            raise ValueError("no such variable: %s" % item)
        v = ds.byname[m.group(1)]
        rest = item[m.end():]
        slabs = []
        while rest:
            h = HYPER.match(rest)
            if not h:
                raise ValueError("bad hyperslab: %s" % item)
            a, b, c = (int(x) if x is not None else None for x in h.groups())
            if c is not None:
                start, stride, stop = a, b, c
            elif b is not None:
                start, stride, stop = a, 1, b
            else:
                start, stride, stop = a, 1, a
            slabs.append((start, stride, stop))
            rest = rest[h.end():]
        if len(slabs) > len(v.shape):
            raise ValueError("too many hyperslabs: %s" % item)
        sl = []
        for k, n in enumerate(v.shape):
            start, stride, stop = slabs[k] if k < len(slabs) else (0, 1, n - 1)
            if stride < 1 or start > stop or stop >= n:
                raise ValueError("hyperslab out of range: %s" % item)
            sl.append(slice(start, stop + 1, stride))
        picked[v.name] = sl
    if not picked:
        return [(v, [slice(0, n, 1) for n in v.shape]) for v in ds.vars]
    return [(v, picked[v.name]) for v in ds.vars if v.name in picked]


def slab_shape(sl):
    return tuple(len(range(s.start, s.stop, s.step)) for s in sl)


def dds_text(ds, sel):
    lines = ["Dataset {"]
    for v, sl in sel:
        dims = "".join("[%s = %d]" % (d, n) for d, n in zip(v.dims, slab_shape(sl)))
        lines.append("    %s %s%s;" % (DAPTYPE[v.nctype], v.name, dims))
    lines.append("} %s;" % ds.name)
    return "\n".join(lines) + "\n"


def att_text(name, value):
    if isinstance(value, str):
        esc = value.replace("\\", "\\\\").replace('"', '\\"')
        return 'String %s "%s";' % (name, esc)
    t = {np.dtype(">i1"): dap2gen.NC_BYTE, np.dtype(">i2"): dap2gen.NC_SHORT,
         np.dtype(">i4"): dap2gen.NC_INT, np.dtype(">f4"): dap2gen.NC_FLOAT,
         np.dtype(">f8"): dap2gen.NC_DOUBLE}[value.dtype]
    if t in (dap2gen.NC_FLOAT, dap2gen.NC_DOUBLE):
        fmt = "%.9g" if t == dap2gen.NC_FLOAT else "%.17g"
        vals = ", ".join(fmt % x for x in value.tolist())
    else:
        vals = ", ".join(str(x) for x in value.tolist())
    return "%s %s %s;" % (DAPTYPE[t], name, vals)


def das_text(ds):
    out = ["Attributes {", "    NC_GLOBAL {"]
    out += ["        " + att_text(k, v) for k, v in ds.gatts]
    out.append("    }")
    for v in ds.vars:
        out.append("    %s {" % v.name)
        out += ["        " + att_text(k, a) for k, a in v.atts]
        out.append("    }")
    out.append("}")
    return "\n".join(out) + "\n"


def value_bytes(v, n):
    """Bytes on the wire of n values of v (with the counts of an array)."""
    if not v.shape:
        return 8 if v.nctype == dap2gen.NC_DOUBLE else 4
    if v.nctype == dap2gen.NC_BYTE:
        return 8 + n + (4 - n % 4) % 4
    return 8 + n * np.dtype(WIRE[v.nctype]).itemsize


def encode_pieces(ds, sel):
    """The XDR values of a selection, as a sequence of buffers."""
    for v, sl in sel:
        sub = ds.array(v)[tuple(sl)]
        n = int(sub.size)
        if v.shape:
            yield struct.pack(">II", n, n)
        if v.nctype == dap2gen.NC_BYTE:
            raw = np.ascontiguousarray(sub).view(np.uint8).tobytes()
            if not v.shape:
                yield raw + b"\0\0\0"
            else:
                yield raw + b"\0" * ((4 - n % 4) % 4)
            continue
        wire = np.dtype(WIRE[v.nctype])
        if sub.ndim == 0:
            yield np.asarray(sub).astype(wire).tobytes()
            continue
        rows = max(1, BLOCK // max(1, (n // max(1, sub.shape[0])) * wire.itemsize))
        for i in range(0, sub.shape[0], rows):
            part = sub[i:i + rows]
            if part.dtype != wire:
                part = part.astype(wire)
            yield memoryview(np.ascontiguousarray(part)).cast("B")


D4TYPE = {dap2gen.NC_BYTE: "Int8", dap2gen.NC_SHORT: "Int16", dap2gen.NC_INT: "Int32",
          dap2gen.NC_FLOAT: "Float32", dap2gen.NC_DOUBLE: "Float64"}


def d4_query(query):
    """(DAP2 projection text, checksum) of a DAP4 query."""
    q = urllib.parse.parse_qs(query, keep_blank_values=True)
    ce = (q.get("dap4.ce") or q.get("dap4.constraint") or [""])[0]
    csum = (q.get("dap4.checksum") or ["false"])[0].lower() == "true"
    parts = []
    for clause in filter(None, (c.strip() for c in ce.split(";"))):
        parts.append(clause[1:] if clause.startswith("/") else clause)
    return ",".join(parts), csum


def dmr_text(ds, sel, crcs):
    out = ['<?xml version="1.0" encoding="ISO-8859-1"?>',
           '<Dataset name="%s.nc" dapVersion="4.0" dmrVersion="1.0" '
           'xmlns="http://xml.opendap.org/ns/DAP/4.0#">' % ds.name]
    out += ['    <Dimension name="%s" size="%d"/>' % (d, n) for d, n in ds.dims]
    for v, sl in sel:
        out.append('    <%s name="%s">' % (D4TYPE[v.nctype], v.name))
        for d, k in zip(v.dims, slab_shape(sl)):
            full = dict(ds.dims).get(d)
            out.append('        <Dim name="/%s"/>' % d if full == k else '        <Dim size="%d"/>' % k)
        if v.name in crcs:
            out.append('        <Attribute name="_DAP4_Checksum_CRC32" type="UInt32">'
                       '<Value>%d</Value></Attribute>' % crcs[v.name])
        out.append('    </%s>' % D4TYPE[v.nctype])
    out.append("</Dataset>")
    return ("\n".join(out) + "\n").encode()


def d4_pieces(ds, sel, crcs):
    """The DAP4 values of a selection (native sizes, big-endian), each
    variable's CRC32 after it when crcs has it."""
    for v, sl in sel:
        sub = ds.array(v)[tuple(sl)]
        if sub.ndim == 0:
            yield np.asarray(sub).tobytes()
        else:
            n = int(sub.size)
            rows = max(1, BLOCK // max(1, (n // max(1, sub.shape[0])) * sub.dtype.itemsize))
            for i in range(0, sub.shape[0], rows):
                yield memoryview(np.ascontiguousarray(sub[i:i + rows])).cast("B")
        if v.name in crcs:
            yield struct.pack(">I", crcs[v.name])


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.datasets = {}
        self.resp = collections.OrderedDict()   # (dataset, query) -> bytes
        self.resp_bytes = 0
        self.crcs = {}         # (dataset, variable, selection) -> CRC32
        self.log = open(args.log, "a")

    def dataset(self, name):
        with self.lock:
            if name not in self.datasets:
                path = os.path.join(self.args.data, name + ".nc")
                if not re.match(r"^[A-Za-z0-9_]+$", name) or not os.path.isfile(path):
                    return None
                self.datasets[name] = Dataset(path, name)
            return self.datasets[name]

    def crc(self, ds, v, sl):
        import zlib
        key = (ds.name, v.name, tuple((x.start, x.stop, x.step) for x in sl))
        with self.lock:
            if key in self.crcs:
                return self.crcs[key]
        c = 0
        for piece in d4_pieces(ds, [(v, sl)], {}):
            c = zlib.crc32(piece, c)
        with self.lock:
            self.crcs[key] = c & 0xffffffff
        return c & 0xffffffff

    def response(self, key, make):
        """The bytes of a kept response, made by make() the first time."""
        with self.lock:
            body = self.resp.get(key)
            if body is not None:
                self.resp.move_to_end(key)
                return body
        body = make()
        with self.lock:
            if key not in self.resp:
                self.resp[key] = body
                self.resp_bytes += len(body)
                while self.resp_bytes > RESP_KEEP and len(self.resp) > 1:
                    _, old = self.resp.popitem(last=False)
                    self.resp_bytes -= len(old)
        return body

    def record(self, line):
        with self.lock:
            self.log.write(line + "\n")
            self.log.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "dap2serve/1"
    state = None

    def log_message(self, fmt, *a):
        pass

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def answer(self, status, body, ctype="text/plain", desc=None):
        self.state.record("%s %d %d" % (self.path, status, len(body)))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if desc:
            self.send_header("Content-Description", desc)
            self.send_header("XDODS-Server", "dods/3.2")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, msg):
        body = ('Error {\n    code = %d;\n    message = "%s";\n};\n'
                % (status, msg.replace('"', "'"))).encode()
        self.answer(status, body, desc="dods-error")

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_stop":
            self.answer(200, b"bye\n")
            threading.Thread(target=self.server.shutdown, daemon=True).start()
            return
        base, ext = os.path.splitext(url.path.lstrip("/"))
        if ext in (".dmr", ".dap") and base.endswith(".nc"):
            base = base[:-3]
        ds = self.state.dataset(base) if ext in (".dds", ".das", ".dods", ".dmr", ".dap") else None
        if ds is None:
            return self.error(404, "no such dataset: " + url.path)
        if ext in (".dmr", ".dap"):
            return self.dap4(ds, ext, url.query)
        try:
            sel = parse_ce(ds, urllib.parse.unquote(url.query))
        except ValueError as e:
            return self.error(400, str(e))
        if ext == ".das":
            return self.answer(200, das_text(ds).encode(), desc="dods-das")
        text = dds_text(ds, sel).encode()
        if ext == ".dds":
            return self.answer(200, text, desc="dods-dds")
        head = text + b"Data:\n"
        total = len(head) + sum(value_bytes(v, int(np.prod(slab_shape(sl), dtype=np.int64)))
                                for v, sl in sel)
        whole = all(all(x.start == 0 and x.step == 1 and x.stop == n for x, n in zip(sl, v.shape))
                    for v, sl in sel)
        body = None
        if not whole and total <= RESP_MAX:
            body = self.state.response((ds.name, url.query),
                                       lambda: head + b"".join(encode_pieces(ds, sel)))
        self.state.record("%s 200 %d" % (self.path, total))
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(total))
        self.send_header("Content-Description", "dods-data")
        self.send_header("XDODS-Server", "dods/3.2")
        self.end_headers()
        if self.command == "HEAD":
            return
        if body is not None:
            self.wfile.write(body)
            return
        self.wfile.write(head)
        for v, sl in sel:
            if v.shape and v.nctype in (dap2gen.NC_FLOAT, dap2gen.NC_INT, dap2gen.NC_DOUBLE):
                # a whole array already in its wire form: from the file as it lies
                n = int(np.prod(v.shape, dtype=np.int64))
                self.wfile.write(struct.pack(">II", n, n))
                self.send_file(ds, v.begin, n * np.dtype(WIRE[v.nctype]).itemsize)
                continue
            for piece in encode_pieces(ds, [(v, sl)]):
                self.wfile.write(piece)

    def send_file(self, ds, offset, count):
        """count bytes of the dataset's file from offset, by sendfile."""
        with open(ds.path, "rb") as f:
            sock = self.connection
            while count > 0:
                sent = os.sendfile(sock.fileno(), f.fileno(), offset, min(count, 1 << 30))
                if sent <= 0:
                    raise OSError("sendfile sent nothing")
                offset += sent
                count -= sent


    def dap4(self, ds, ext, query):
        try:
            proj, csum = d4_query(query)
            sel = parse_ce(ds, proj)
        except ValueError as e:
            return self.error(400, str(e))
        crcs = {v.name: self.state.crc(ds, v, sl) for v, sl in sel} if csum else {}
        dmr = dmr_text(ds, sel, crcs)
        if ext == ".dmr":
            return self.answer(200, dmr, "application/vnd.opendap.dap4.dataset-metadata+xml")
        # each piece (at most BLOCK bytes, no copy of the file's map) is one chunk
        pieces = list(d4_pieces(ds, sel, crcs)) or [b""]
        total = 4 + len(dmr) + sum(4 + len(p) for p in pieces)
        self.state.record("%s 200 %d" % (self.path, total))
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.opendap.dap4.data")
        self.send_header("Content-Length", str(total))
        self.end_headers()
        if self.command == "HEAD":
            return
        self.wfile.write(struct.pack(">I", len(dmr)) + dmr)
        for i, piece in enumerate(pieces):
            last = 1 if i == len(pieces) - 1 else 0
            self.wfile.write(struct.pack(">I", (last << 24) | len(piece)))
            self.wfile.write(piece)


def quiet(srv):
    plain = srv.handle_error

    def handle_error(request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        plain(request, client_address)
    srv.handle_error = handle_error


def main():
    ap = argparse.ArgumentParser(description="loopback DAP2 server of the D2 workload")
    ap.add_argument("--data", required=True)
    ap.add_argument("--portfile", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--lifetime", type=float, default=600.0)
    args = ap.parse_args()
    cls = type("H", (Handler,), {"state": State(args)})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), cls)
    srv.daemon_threads = True
    quiet(srv)
    parent = os.getppid()

    def watch():
        end = time.time() + args.lifetime
        while time.time() < end and os.getppid() == parent:
            time.sleep(0.5)
        srv.shutdown()
    threading.Thread(target=watch, daemon=True).start()
    tmp = args.portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.replace(tmp, args.portfile)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
