"""dap2subset.py: constrained DAP2 responses for the loopback server.

dapserver.py calls subset(kind, base, query) for a request with a query:
kind is "dds", "das" or "dods", base the path of the recorded responses
without extension (base + ".dds" ...), query the constraint expression
(URL-decoded).  Projections only ("a.b[0:2:9][1],c"); selections ("&...")
and functions raise ValueError, which the server answers with 400.

What is returned, as DAP2 servers (Hyrax) do:
  - the DDS holding only the projected variables and their containers, with
    the sizes of the hyperslabs;
  - a Grid projected whole keeps its maps (sliced like the array); a Grid
    member projected alone comes back inside a Structure named after the grid;
  - the .dods: that DDS, "Data:", the XDR values of the selection;
  - a row range on a sequence (S[0:9].m) selects those records.
The DAS is returned whole.
"""
import re
import struct
import urllib.parse

KEYWORDS = {"byte", "int16", "uint16", "int32", "uint32", "float32", "float64", "string", "url",
            "structure", "sequence", "grid", "dataset"}
ATOMS = {"byte", "int16", "uint16", "int32", "uint32", "float32", "float64", "string", "url"}
CANON = {"byte": "Byte", "int16": "Int16", "uint16": "UInt16", "int32": "Int32", "uint32": "UInt32",
         "float32": "Float32", "float64": "Float64", "string": "String", "url": "Url"}

TOKEN = re.compile(r'\s+|#[^\n]*|([{}\[\]:;=,])|([A-Za-z0-9_/%\\.*+\-][A-Za-z0-9_/%\\.*+\-#]*)')


class Node:
    def __init__(self, kind, name, atype=None, dims=None, fields=None):
        self.kind = kind          # "atomic", "structure", "sequence", "grid", "dataset"
        self.name = name
        self.atype = atype        # lower-case atomic type
        self.dims = dims or []    # [(name or None, size)]
        self.fields = fields or []


def tokens(text):
    pos = 0
    out = []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ValueError("bad DDS at %d" % pos)
        pos = m.end()
        if m.group(1):
            out.append(m.group(1))
        elif m.group(2):
            out.append(m.group(2))
    return out


def parse_dds(text):
    toks = tokens(text)
    pos = [0]

    def nxt():
        t = toks[pos[0]]
        pos[0] += 1
        return t

    def peek():
        return toks[pos[0]]

    def dims():
        d = []
        while peek() == "[":
            nxt()
            a = nxt()
            if a == "=":
                name, size = None, nxt()
            elif peek() == "=":
                nxt()
                name, size = a, nxt()
            else:
                name, size = None, a
            if nxt() != "]":
                raise ValueError("bad dimension")
            d.append((name, int(size, 0)))
        return d

    def decl():
        t = nxt()
        lt = t.lower()
        if lt in ATOMS:
            n = Node("atomic", nxt(), atype=lt)
            n.dims = dims()
        elif lt in ("structure", "sequence"):
            nxt()  # {
            fields = decls()
            nxt()  # }
            n = Node(lt, nxt(), fields=fields)
            if lt == "structure":
                n.dims = dims()
        elif lt == "grid":
            nxt(); nxt(); nxt()  # { Array :
            arr = decl()
            nxt(); nxt()  # Maps :
            maps = decls()
            nxt()  # }
            n = Node("grid", nxt(), fields=[arr] + maps)
        else:
            raise ValueError("bad declaration %r" % t)
        if nxt() != ";":
            raise ValueError("missing ;")
        return n

    def decls():
        out = []
        while peek() != "}":
            out.append(decl())
        return out

    if nxt().lower() != "dataset" or nxt() != "{":
        raise ValueError("not a DDS")
    fields = decls()
    nxt()
    return Node("dataset", nxt(), fields=fields)


# ---- XDR ----

WIRE = {"byte": ">I", "int16": ">i", "uint16": ">I", "int32": ">i", "uint32": ">I",
        "float32": ">f", "float64": ">d"}


def count(dims):
    n = 1
    for _, s in dims:
        n *= s
    return n


class Reader:
    def __init__(self, data):
        self.d = data
        self.p = 0

    def u32(self):
        v = struct.unpack_from(">I", self.d, self.p)[0]
        self.p += 4
        return v

    def take(self, n):
        b = self.d[self.p:self.p + n]
        if len(b) != n:
            raise ValueError("truncated data")
        self.p += n
        return b


def read_atoms(r, n, atype, isarray):
    if atype in ("string", "url"):
        out = []
        for _ in range(n):
            ln = r.u32()
            out.append(r.take(ln))
            r.take((4 - ln % 4) % 4)
        return out
    if atype == "byte" and isarray:
        b = r.take(n)
        r.take((4 - n % 4) % 4)
        return list(b)
    size = 8 if atype == "float64" else 4
    vals = []
    for _ in range(n):
        raw = r.take(size)
        v = struct.unpack(WIRE[atype], raw)[0]
        if atype == "byte":
            v &= 0xFF
        elif atype == "int16":
            v = ((v & 0xFFFF) ^ 0x8000) - 0x8000
        elif atype == "uint16":
            v &= 0xFFFF
        vals.append(v)
    return vals


def read(r, node):
    """Decoded value of node: atomic -> flat list; structure -> list of
    elements (each a list of field values); sequence -> list of records;
    grid/dataset -> list of field values."""
    if node.kind == "atomic":
        n = count(node.dims)
        if node.dims:
            r.u32()
            if node.atype not in ("string", "url"):
                r.u32()
        return read_atoms(r, n, node.atype, bool(node.dims))
    if node.kind == "structure":
        n = count(node.dims)
        if node.dims:
            r.u32()
        return [[read(r, f) for f in node.fields] for _ in range(n)]
    if node.kind == "sequence":
        recs = []
        while True:
            m = r.u32()
            if m == 0xA5000000:
                return recs
            if m != 0x5A000000:
                raise ValueError("bad sequence marker")
            recs.append([read(r, f) for f in node.fields])
    return [read(r, f) for f in node.fields]


def write_atoms(out, vals, atype, isarray):
    if atype in ("string", "url"):
        for s in vals:
            out += struct.pack(">I", len(s)) + s + b"\0" * ((4 - len(s) % 4) % 4)
        return
    if atype == "byte" and isarray:
        out += bytes(vals) + b"\0" * ((4 - len(vals) % 4) % 4)
        return
    for v in vals:
        if atype in ("int16", "int32"):
            out += struct.pack(">i", v)
        elif atype in ("byte", "uint16", "uint32"):
            out += struct.pack(">I", v)
        else:
            out += struct.pack(WIRE[atype], v)


def write(out, node, value):
    if node.kind == "atomic":
        if node.dims:
            n = count(node.dims)
            out += struct.pack(">I", n)
            if node.atype not in ("string", "url"):
                out += struct.pack(">I", n)
        write_atoms(out, value, node.atype, bool(node.dims))
    elif node.kind == "structure":
        if node.dims:
            out += struct.pack(">I", len(value))
        for elem in value:
            for f, v in zip(node.fields, elem):
                write(out, f, v)
    elif node.kind == "sequence":
        for rec in value:
            out += struct.pack(">I", 0x5A000000)
            for f, v in zip(node.fields, rec):
                write(out, f, v)
        out += struct.pack(">I", 0xA5000000)
    else:
        for f, v in zip(node.fields, value):
            write(out, f, v)


# ---- constraints ----

SEG = re.compile(r"([^.\[\]]+)((?:\[[^\]]*\])*)")


def parse_projection(p):
    segs = []
    for name, slabs in SEG.findall(p):
        ranges = []
        for s in re.findall(r"\[([^\]]*)\]", slabs):
            parts = [int(x) for x in s.split(":")]
            if len(parts) == 1:
                a, st, b = parts[0], 1, parts[0]
            elif len(parts) == 2:
                a, st, b = parts[0], 1, parts[1]
            elif len(parts) == 3:
                a, st, b = parts
            else:
                raise ValueError("bad hyperslab %s" % s)
            if st <= 0 or b < a or a < 0:
                raise ValueError("bad hyperslab %s" % s)
            ranges.append((a, st, b))
        segs.append((name, ranges))
    return segs


def indices(dims, ranges):
    """Per dimension, the selected indices."""
    if not ranges:
        return [list(range(s)) for _, s in dims]
    if len(ranges) != len(dims):
        raise ValueError("hyperslab rank")
    out = []
    for (_, s), (a, st, b) in zip(dims, ranges):
        if b >= s:
            raise ValueError("hyperslab beyond the dimension")
        out.append(list(range(a, b + 1, st)))
    return out


def slice_flat(vals, dims, sel):
    """Elements of a row-major array (dims) at the index lists sel."""
    strides = []
    acc = 1
    for _, s in reversed(dims):
        strides.insert(0, acc)
        acc *= s
    out = []

    def rec(d, off):
        if d == len(sel):
            out.append(vals[off])
            return
        for i in sel[d]:
            rec(d + 1, off + i * strides[d])
    rec(0, 0)
    return out


def newdims(dims, sel):
    return [(n, len(s)) for (n, _), s in zip(dims, sel)]


class Sel:
    """A projected node: which fields, which hyperslab."""
    def __init__(self, node):
        self.node = node
        self.ranges = None
        self.whole = False
        self.fields = {}   # name -> Sel


def apply(sel, node, value):
    """(new node, new value) for the selection."""
    if node.kind == "atomic":
        s = indices(node.dims, sel.ranges)
        return Node("atomic", node.name, node.atype, newdims(node.dims, s)), slice_flat(value, node.dims, s)
    if node.kind == "grid":
        arr = node.fields[0]
        if sel.whole or not sel.fields:
            s = indices(arr.dims, sel.ranges)
            fields, vals = [], []
            a = Node("atomic", arr.name, arr.atype, newdims(arr.dims, s))
            fields.append(a)
            vals.append(slice_flat(value[0], arr.dims, s))
            for i, m in enumerate(node.fields[1:]):
                fields.append(Node("atomic", m.name, m.atype, newdims(m.dims, [s[i]])))
                vals.append(slice_flat(value[i + 1], m.dims, [s[i]]))
            return Node("grid", node.name, fields=fields), vals
        fields, vals = [], []
        for f, v in zip(node.fields, value):
            if f.name in sel.fields:
                nf, nv = apply(sel.fields[f.name], f, v)
                fields.append(nf)
                vals.append(nv)
        return Node("structure", node.name, fields=fields), [vals]
    if node.kind == "structure":
        s = indices(node.dims, sel.ranges)
        elems = slice_flat(value, node.dims, s) if node.dims else value
        keep = [f for f in node.fields if sel.whole or f.name in sel.fields]
        nfields = None
        nelems = []
        for e in elems:
            row = []
            nf_list = []
            for f, v in zip(node.fields, e):
                if f not in keep:
                    continue
                fs = sel.fields.get(f.name) or whole_sel(f)
                nf, nv = apply(fs, f, v)
                nf_list.append(nf)
                row.append(nv)
            nfields = nf_list
            nelems.append(row)
        if nfields is None:
            nfields = [apply(sel.fields.get(f.name) or whole_sel(f), f, empty(f))[0] for f in keep]
        return Node("structure", node.name, dims=newdims(node.dims, s), fields=nfields), nelems
    if node.kind == "sequence":
        keep = [i for i, f in enumerate(node.fields) if sel.whole or f.name in sel.fields]
        fields = [node.fields[i] for i in keep]
        recs = value
        if sel.ranges:  # rows [first:stride:last], as Hyrax selects them (last may be past the end)
            if len(sel.ranges) != 1:
                raise ValueError("a sequence takes one row range")
            a, st, b = sel.ranges[0]
            recs = value[a:b + 1:st]
        return Node("sequence", node.name, fields=fields), [[r[i] for i in keep] for r in recs]
    raise ValueError("unexpected node")


def empty(node):
    return [] if node.kind != "atomic" else [0] * count(node.dims)


def whole_sel(node):
    s = Sel(node)
    s.whole = True
    return s


def select(root, query):
    if "&" in query:
        raise ValueError("selections are not supported")
    top = Sel(root)
    for proj in [p for p in query.split(",") if p]:
        node, sel = root, top
        segs = parse_projection(proj)
        if not segs:
            raise ValueError("empty projection")
        for k, (name, ranges) in enumerate(segs):
            # DDS names may carry %XX escapes, and so may the names of the
            # (already URL-decoded) query: compare both decoded, as servers do
            want = urllib.parse.unquote(name)
            match = [f for f in node.fields if urllib.parse.unquote(f.name) == want]
            if not match:
                raise ValueError("no variable %s" % name)
            node = match[0]
            sel = sel.fields.setdefault(node.name, Sel(node))
            if ranges:
                sel.ranges = ranges
            if k == len(segs) - 1:
                sel.whole = True
    return top


def dds_text(node, indent=0):
    pad = "    " * indent
    if node.kind == "dataset":
        return "Dataset {\n" + "".join(dds_text(f, 1) for f in node.fields) + "} %s;\n" % node.name

    def dimtext(dims):
        return "".join("[%s = %d]" % (n, s) if n else "[%d]" % s for n, s in dims)
    if node.kind == "atomic":
        return "%s%s %s%s;\n" % (pad, CANON[node.atype], node.name, dimtext(node.dims))
    if node.kind == "grid":
        return (pad + "Grid {\n" + pad + "  Array:\n" + dds_text(node.fields[0], indent + 1)
                + pad + "  Maps:\n" + "".join(dds_text(m, indent + 1) for m in node.fields[1:])
                + pad + "} %s;\n" % node.name)
    head = "Structure" if node.kind == "structure" else "Sequence"
    return (pad + head + " {\n" + "".join(dds_text(f, indent + 1) for f in node.fields)
            + pad + "} %s%s;\n" % (node.name, dimtext(node.dims)))


def subset(kind, base, query):
    if kind == "das":
        with open(base + ".das", "rb") as f:
            return f.read()
    with open(base + ".dods", "rb") as f:
        dods = f.read()
    m = re.search(rb"\nData:\r?\n", dods)
    if not m:
        raise ValueError("no data in %s.dods" % base)
    root = parse_dds(dods[:m.start() + 1].decode("latin-1"))
    values = read(Reader(dods[m.end():]), root) if kind == "dods" else None
    sel = select(root, query)
    fields, vals = [], []
    for i, f in enumerate(root.fields):
        if f.name not in sel.fields:
            continue
        v = values[i] if values is not None else empty_value(f)
        nf, nv = apply(sel.fields[f.name], f, v)
        fields.append(nf)
        vals.append(nv)
    out_root = Node("dataset", root.name, fields=fields)
    text = dds_text(out_root).encode("latin-1")
    if kind == "dds":
        return text
    out = bytearray(text + b"\nData:\n")
    write(out, out_root, vals)
    return bytes(out)


def empty_value(node):
    """A stand-in value of the right shape (DDS requests carry no data)."""
    if node.kind == "atomic":
        return [b"" if node.atype in ("string", "url") else 0] * count(node.dims)
    if node.kind == "structure":
        return [[empty_value(f) for f in node.fields] for _ in range(count(node.dims))]
    if node.kind == "sequence":
        return []
    return [empty_value(f) for f in node.fields]
