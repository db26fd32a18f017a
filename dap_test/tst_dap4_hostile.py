#!/usr/bin/env python3
"""tst_dap4_hostile.py NCDUMP DATA WORK: hostile DAP4 responses read through
file:// URLs give clean errors (ncdump exits 1 with an NC_* message; no
signal, no sanitizer report), and well-formed edge cases still read.

Cases: truncated chunks, a chunk longer than the response, no last chunk,
an error chunk, huge string/opaque/sequence counts, a DMR that is not XML,
not a Dataset, deeply nested, with unknown types, missing or absurd
dimensions, duplicate names, an enum that is not declared.
"""
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
import nctst  # noqa: E402

NCDUMP, DATA, WORK = sys.argv[1:4]
RAW = os.path.join(DATA, "raw")


def chunk(flags, body):
    return struct.pack(">I", (flags << 24) | len(body)) + body


def response(dmr, data, flags=5):
    return chunk(4, dmr) + chunk(flags, data)


def dmr_of(body):
    return ('<Dataset name="h" dapVersion="4.0" xmlns="http://xml.opendap.org/ns/DAP/4.0#">%s'
            '</Dataset>' % body).encode()


def write(name, dmr, dap):
    base = os.path.join(WORK, name)
    for ext, b in ((".dmr", dmr), (".dap", dap)):
        if os.path.exists(base + ext):
            os.remove(base + ext)
        if b is not None:
            with open(base + ext, "wb") as f:
                f.write(b)
    return "file://%s#dap4" % base


def ncdump(url, *opts):
    r = subprocess.run([NCDUMP] + list(opts) + [url], capture_output=True, timeout=60)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def expect_error(name, dmr, dap, want=None):
    rc, out, err = ncdump(write(name, dmr, dap))
    nctst.check(rc == 1, "%s: exit %d (want 1) %s" % (name, rc, err[-300:]))
    if want:
        nctst.check(want in err, "%s: %r not in %r" % (name, want, err[-300:]))


def main():
    os.makedirs(WORK, exist_ok=True)
    if not os.path.isdir(RAW):
        nctst.skip("no recorded DAP4 responses")
    full = open(os.path.join(RAW, "test_atomic_array.nc.dap"), "rb").read()
    fdmr = open(os.path.join(RAW, "test_atomic_array.nc.dmr"), "rb").read()
    n0 = struct.unpack(">I", full[:4])[0] & 0xffffff
    # the data response cut anywhere inside the data: an error, never a crash
    for cut in (3, n0 + 4, n0 + 7, n0 + 9, n0 + 40, len(full) - 1):
        expect_error("cut%d" % cut, fdmr, full[:cut], "DAP")
    # no .dmr: the DMR comes from the head of the .dap, and the open reads
    # its chunks to the last one, so a cut in the data fails the header too
    for cut in (n0 + 7, len(full) - 1):
        rc, out, err = ncdump(write("cutnodmr%d" % cut, None, full[:cut]), "-h")
        nctst.check(rc == 1 and "DAP" in err, "cutnodmr%d -h: exit %d %s" % (cut, rc, err[-300:]))
    # a chunk claiming more bytes than there are; no last chunk
    bad = bytearray(full)
    bad[n0 + 4:n0 + 8] = struct.pack(">I", (1 << 24) | 0xffffff)
    expect_error("longchunk", fdmr, bytes(bad), "DAP")
    bad = bytearray(full)
    bad[n0 + 4] = 0
    expect_error("nolast", fdmr, bytes(bad), "DAP")
    # an error chunk after the DMR
    expect_error("errchunk", fdmr, full[:n0 + 4] + chunk(3, b"<Error>no</Error>"), "server error")
    # huge counts: a string, an opaque, a sequence
    s = dmr_of('<String name="s"/>')
    expect_error("bigstring", s, response(s, struct.pack("<Q", 1 << 62) + b"ab"), "DAP")
    o = dmr_of('<Opaque name="o"/>')
    expect_error("bigopaque", o, response(o, struct.pack("<Q", (1 << 64) - 1)), "DAP")
    q = dmr_of('<Sequence name="q"><Int32 name="x"/><Float64 name="y"/></Sequence>')
    expect_error("bigseq", q, response(q, struct.pack("<Q", 1 << 40) + b"\0" * 16), "DAP")
    # DMRs that are not: not XML, not a Dataset, unknown type, missing and
    # absurd dimensions, duplicates, undeclared enum, deep nesting
    garbage = [
        ("notxml", b"garbage <<< >"),
        ("notdataset", b"<Group name='x'/>"),
        ("unknown", dmr_of('<Int33 name="x"/><Bogus name="y"><Dim size="2"/></Bogus>')),
        ("nodim", dmr_of('<Int32 name="x"><Dim name="/nosuch"/></Int32>')),
        ("hugedim", dmr_of('<Int32 name="x"><Dim size="99999999999999999999999"/></Int32>')),
        ("negdim", dmr_of('<Dimension name="d" size="-3"/>')),
        ("dupvar", dmr_of('<Int32 name="x"/><Float32 name="x"/>')),
        ("noenum", dmr_of('<Enum name="e" enum="/nosuch"/>')),
        ("emptystruct", dmr_of('<Structure name="s"/>')),
        ("deep", dmr_of('<Structure name="s">' * 200 + '<Int32 name="x"/>' + '</Structure>' * 200)),
        ("deepgroups", dmr_of('<Group name="g">' * 200 + '</Group>' * 200)),
        ("badattr", dmr_of('<Int32 name="x"><Attribute name="a" type="Int77"><Value value="1"/>'
                           '</Attribute></Int32>')),
    ]
    for name, d in garbage:
        expect_error(name, d, None, "DMR")
    # a huge dimension with little data: the read fails, the header is fine
    h = dmr_of('<Dimension name="d" size="4000000000"/><Int32 name="x"><Dim name="/d"/></Int32>')
    url = write("bigvar", h, response(h, b"\0" * 16))
    rc, out, err = ncdump(url, "-h")
    nctst.check(rc == 0 and "d = 4000000000" in out, "bigvar -h: %d %s" % (rc, err[-200:]))
    rc, out, err = ncdump(url)
    nctst.check(rc == 1 and "DAP" in err, "bigvar read: %d %s" % (rc, err[-200:]))
    # edge cases that are fine: an empty sequence, a zero-length string
    # (the string fill, shown "_"),
    # big-endian data, data split over many chunks
    e = dmr_of('<Sequence name="q"><Int32 name="x"/></Sequence><String name="s"/>')
    rc, out, err = ncdump(write("emptyseq", e, response(e, struct.pack("<Q", 0) * 2)))
    nctst.check(rc == 0 and 'q = {}' in out.replace(" ", "").replace("q={}", "q = {}")
                and 's = _' in out, "emptyseq: %d %s %s" % (rc, out[-200:], err[-200:]))
    b = dmr_of('<Dimension name="d" size="3"/><Int32 name="v"><Dim name="/d"/></Int32>'
               '<Float64 name="w"/>')
    data = struct.pack(">iiid", 1, -2, 70000, 2.5)
    rc, out, err = ncdump(write("bigendian", b, chunk(0, b) + chunk(1, data)))
    nctst.check(rc == 0 and "v = 1, -2, 70000" in out and "w = 2.5" in out,
                "bigendian: %d %s %s" % (rc, out[-200:], err[-200:]))
    data = struct.pack("<iiid", 1, -2, 70000, 2.5)
    many = chunk(4, b) + b"".join(chunk(4, data[i:i + 1]) for i in range(len(data) - 1)) + \
        chunk(5, data[-1:])
    rc, out, err = ncdump(write("manychunks", b, many))
    nctst.check(rc == 0 and "v = 1, -2, 70000" in out and "w = 2.5" in out,
                "manychunks: %d %s %s" % (rc, out[-200:], err[-200:]))
    nctst.finish("tst_dap4_hostile")


if __name__ == "__main__":
    main()
