"""dap4serve.py: DAP4 answers of the loopback server (dapserver.py loads it).

respond(base, kind, query) answers GET BASE.dmr or BASE.dap when BASE is a
netCDF-4 file (made with ncgen by the tests) and no recorded BASE.dmr /
BASE.dap is there: the DMR (XML) or the chunked data response, encoded
from the file with netCDF4-python, for any constraint dap4.ce=/V[a:s:b]...
(';'-separated; an index list "a,b" per dimension too) and
dap4.checksum=true|false (CRC32 after each variable and the
_DAP4_Checksum_CRC32 attribute).  Data are little-endian, in chunks of at
most CHUNK bytes so that responses of a few KiB span several chunks.  An
unknown variable or a bad constraint is an error chunk.  Returns (body,
content type), or None for what it does not serve.

Types: the atomic ones, strings, chars and enums (what the tests' CDL
uses); groups, shared dimensions, attributes.

A file BASE.d4 beside BASE holds options of BASE's data responses, words
separated by blanks: "big" (big-endian data), "chunk=N" (chunks of N
bytes), and one fault: "trunc" (the response stops at 60 % of its bytes,
in a chunk), "badcrc" (a byte of the data in their middle flipped, the
checksums left as they were), "errmid" (an error chunk after half of the
data chunks).
"""
import os
import re
import struct
import threading
import zlib
from xml.sax.saxutils import quoteattr

CHUNK = 1024
_LAST = {}  # (file, mtime, ce, byte order) -> [(encoded values, CRC32)] per variable
ATOMIC = {"i1": "Int8", "u1": "UInt8", "i2": "Int16", "u2": "UInt16", "i4": "Int32",
          "u4": "UInt32", "i8": "Int64", "u8": "UInt64", "f4": "Float32", "f8": "Float64"}


def _params(query):
    out = {}
    for part in query.split("&"):
        if part:
            k, _, v = part.partition("=")
            out[k] = v
    return out


def _groups(g):
    yield g
    for sub in g.groups.values():
        yield from _groups(sub)


def _fqn(g, name):
    path = g.path if g.path != "/" else ""
    return path + "/" + name


def _typename(v):
    import netCDF4
    if isinstance(v.datatype, netCDF4.EnumType):
        return "Enum"
    if v.dtype == str:
        return "String"
    if v.dtype.kind == "S":
        return "Char"
    return ATOMIC["%s%d" % (v.dtype.kind, v.dtype.itemsize)]


def _attr_xml(name, val, ind):
    import numpy as np
    if isinstance(val, str):
        t, vals = "String", [val]
    else:
        a = np.atleast_1d(np.asarray(val))
        if a.dtype.kind in "US":
            t, vals = "String", [str(x) for x in a]
        else:
            t = ATOMIC["%s%d" % (a.dtype.kind, a.dtype.itemsize)]
            vals = [repr(float(x)) if a.dtype.kind == "f" else str(int(x)) for x in a]
    s = "%s<Attribute name=%s type=\"%s\">\n" % (ind, quoteattr(name), t)
    for x in vals:
        s += "%s    <Value value=%s/>\n" % (ind, quoteattr(x))
    return s + "%s</Attribute>\n" % ind


def _slices(spec, shape):
    """Index arrays per dimension of '[..][..]' or '[a:b,c]' forms."""
    import numpy as np
    dims = re.findall(r"\[([^\]]*)\]", spec)
    if len(dims) == 1 and len(shape) > 1 and "," in dims[0] and ":" in dims[0].split(",")[0] \
            and len(dims[0].split(",")) == len(shape):
        dims = dims[0].split(",")
    if dims and len(dims) != len(shape):
        raise ValueError("rank of %s" % spec)
    out = []
    for i, n in enumerate(shape):
        if not dims or dims[i] == "":
            out.append(np.arange(n))
            continue
        idx = []
        for piece in dims[i].split(","):
            f = [int(x) if x != "" or k == 0 else n - 1 for k, x in enumerate(piece.split(":"))]
            if len(f) == 1:
                a, s, b = f[0], 1, f[0]
            elif len(f) == 2:
                a, s, b = f[0], 1, f[1]
            else:
                a, s, b = f
            if a < 0 or s <= 0 or b >= n or a > b:
                raise ValueError("bad slice %s" % piece)
            idx.extend(range(a, b + 1, s))
        out.append(np.array(idx, dtype=np.int64))
    return out


def _select(ds, ce):
    """[(group, var, index arrays or None)] in serialization order."""
    allvars = [(g, v) for g in _groups(ds) for v in g.variables.values()]
    if not ce:
        return [(g, v, None) for g, v in allvars]
    want = {}
    for clause in ce.split(";"):
        clause = clause.strip()
        m = re.match(r"^(/[^\[]+)(.*)$", clause)
        if not m:
            raise ValueError("bad constraint " + clause)
        want[m.group(1)] = m.group(2)
    out = []
    for g, v in allvars:
        f = _fqn(g, v.name)
        if f in want:
            out.append((g, v, _slices(want.pop(f), v.shape)))
    if want:
        raise ValueError("no such variable: " + ", ".join(sorted(want)))
    return out


def _as_slice(ix):
    """The slice an increasing arithmetic index array is, or None."""
    if len(ix) == 0:
        return None
    step = int(ix[1] - ix[0]) if len(ix) > 1 else 1
    if step <= 0 or any(int(ix[k + 1] - ix[k]) != step for k in range(len(ix) - 1)):
        return None
    return slice(int(ix[0]), int(ix[-1]) + 1, step)


def _values(v, idx):
    import numpy as np
    v.set_auto_maskandscale(False)
    a = np.asarray(v[...])
    if idx is not None and v.ndim > 0:
        sl = [_as_slice(ix) for ix in idx]
        a = a[tuple(sl)] if all(x is not None for x in sl) else a[np.ix_(*idx)]
    return a


def _encode(v, a, order="<"):
    import numpy as np
    if v.dtype == str:
        out = b""
        for s in a.reshape(-1):
            b = str(s).encode()
            out += struct.pack(order + "Q", len(b)) + b
        return out
    if v.dtype.kind == "S":
        return b"".join(bytes(x)[:1].ljust(1, b"\0") for x in a.reshape(-1))
    return np.ascontiguousarray(a, dtype=v.dtype.newbyteorder(order)).tobytes()


def _dmr(ds, sel, crcs, name, little=True):
    import netCDF4
    chosen = {id(v): (idx, crcs.get(id(v))) for _g, v, idx in sel}

    def group(g, ind):
        s = ""
        for d in g.dimensions.values():
            s += "%s<Dimension name=%s size=\"%d\"%s/>\n" % (
                ind, quoteattr(d.name), len(d), ' _edu.ucar.isunlimited="1"' if d.isunlimited() else "")
        for t in g.enumtypes.values():
            base = ATOMIC["%s%d" % (t.dtype.kind, t.dtype.itemsize)]
            s += "%s<Enumeration name=%s basetype=\"%s\">\n" % (ind, quoteattr(t.name), base)
            for k, val in t.enum_dict.items():
                s += "%s    <EnumConst name=%s value=\"%d\"/>\n" % (ind, quoteattr(k), val)
            s += "%s</Enumeration>\n" % ind
        for v in g.variables.values():
            if id(v) not in chosen:
                continue
            idx, crc = chosen[id(v)]
            t = _typename(v)
            extra = ""
            if t == "Enum":
                et = v.datatype
                home = g
                while et.name not in home.enumtypes and home.parent is not None:
                    home = home.parent
                extra = " enum=%s" % quoteattr(_fqn(home, et.name))
            s += "%s<%s name=%s%s>\n" % (ind, t, quoteattr(v.name), extra)
            for i, dn in enumerate(v.dimensions):
                full = len(v.get_dims()[i])
                if idx is None or len(idx[i]) == full and list(idx[i]) == list(range(full)):
                    dg = v.get_dims()[i].group()
                    s += "%s    <Dim name=%s/>\n" % (ind, quoteattr(_fqn(dg, dn)))
                else:
                    s += "%s    <Dim size=\"%d\"/>\n" % (ind, len(idx[i]))
            for a in v.ncattrs():
                s += _attr_xml(a, v.getncattr(a), ind + "    ")
            if crc is not None:
                s += _attr_xml("_DAP4_Checksum_CRC32", __import__("numpy").uint32(crc), ind + "    ")
            s += "%s</%s>\n" % (ind, t)
        for a in g.ncattrs():
            s += _attr_xml(a, g.getncattr(a), ind)
        for sub in g.groups.values():
            s += "%s<Group name=%s>\n" % (ind, quoteattr(sub.name))
            s += group(sub, ind + "    ")
            s += "%s</Group>\n" % ind
        return s

    head = ('<?xml version="1.0" encoding="UTF-8"?>\n<Dataset name=%s dapVersion="4.0" '
            'dmrVersion="1.0" xmlns="http://xml.opendap.org/ns/DAP/4.0#">\n' % quoteattr(name))
    le = _attr_xml("_DAP4_Little_Endian", __import__("numpy").uint8(1 if little else 0), "    ")
    return head + group(ds, "    ") + le + "</Dataset>\n"


def _chunks(dmr, data, opts=None):
    opts = opts or {}
    size = int(opts.get("chunk", CHUNK))
    le = 0 if "big" in opts else 0x04
    out = [struct.pack(">I", (le << 24) | len(dmr)), dmr]
    view = memoryview(data)
    nchunks = max(1, (len(data) + size - 1) // size)
    for k in range(nchunks):
        piece = view[k * size:(k + 1) * size]
        if "errmid" in opts and k == nchunks // 2:
            out.append(error_chunk("stopped in the middle"))
            break
        last = k == nchunks - 1
        out += [struct.pack(">I", ((le | (1 if last else 0)) << 24) | len(piece)), piece]
    body = b"".join(out)
    if "trunc" in opts:
        body = body[: len(body) * 6 // 10]
    return body


def _options(base):
    """The options of BASE.d4 (see above): {word: value or True}."""
    try:
        words = open(base + ".d4").read().split()
    except OSError:
        return {}
    return dict((w.split("=", 1) + [True])[:2] for w in words)


def error_chunk(message):
    body = ("<Error httpcode=\"400\"><Message>%s</Message></Error>" % message).encode()
    return struct.pack(">I", (0x07 << 24) | len(body)) + body


# The server answers each request on a thread of its own; the netCDF
# library under netCDF4-python must not be entered by two at once.
_LOCK = threading.Lock()


def respond(base, kind, query):
    with _LOCK:
        return _respond(base, kind, query)


def _respond(base, kind, query):
    import netCDF4
    if not os.path.isfile(base) or os.path.exists(base + "." + kind):
        return None
    p = _params(query)
    opts = _options(base)
    order = ">" if "big" in opts else "<"
    ce = p.get("dap4.ce") or p.get("dap4.constraint") or ""
    csum = p.get("dap4.checksum", "false").lower() == "true"
    with netCDF4.Dataset(base) as ds:
        try:
            sel = _select(ds, ce)
        except (ValueError, IndexError) as e:
            if kind == "dap":
                return error_chunk(str(e)), "application/vnd.opendap.dap4.data"
            raise ValueError(str(e))
        parts, crcs = [], {}
        if kind == "dap":
            # the encoded values of the last data response are kept: the
            # tests ask for the same large one several times
            key = (os.path.realpath(base), os.stat(base).st_mtime_ns, ce, order)
            enc = _LAST.get(key)
            if enc is None:
                enc = [_encode(v, _values(v, idx), order) for _g, v, idx in sel]
                enc = [(b, zlib.crc32(b) & 0xffffffff) for b in enc]
                _LAST.clear()
                _LAST[key] = enc
            for (_g, v, _idx), (b, c) in zip(sel, enc):
                if csum:
                    crcs[id(v)] = c
                    if "badcrc" in opts and len(b) > 0:
                        b = bytearray(b)
                        b[len(b) // 2] ^= 0xff
                    parts += [b, struct.pack(order + "I", c)]
                else:
                    parts.append(b)
        dmr = _dmr(ds, sel, crcs, os.path.basename(base), order == "<").encode()
    if kind == "dmr":
        return dmr, "application/vnd.opendap.dap4.dataset-metadata+xml"
    return _chunks(dmr, b"".join(parts), opts), "application/vnd.opendap.dap4.data"
