"""Write CDF-1 files that older writers produced and today's name rules refuse.

usage: mk_legacy.py OUTDIR
Writes, byte by byte (no netCDF library involved):
  latin1/legacy.nc  Latin-1 bytes (not UTF-8) in dimension, variable and
                    attribute names, e.g. b"h\\xe9ss"
  utf8/legacy.nc    its twin: the same names encoded in UTF-8, which today's
                    rules accept; a client's view of latin1/legacy.nc,
                    transcoded, should equal its view of this one
  dupdims.nc        two dimensions with the same name, used by different variables
All are well formed otherwise.
"""
import os
import struct
import sys

NC_DIMENSION, NC_VARIABLE, NC_ATTRIBUTE = 10, 11, 12
NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT = 2, 3, 4, 5
SIZES = {NC_CHAR: 1, NC_SHORT: 2, NC_INT: 4, NC_FLOAT: 4}
CODES = {NC_CHAR: "s", NC_SHORT: "h", NC_INT: "i", NC_FLOAT: "f"}


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def name(b):
    return struct.pack(">i", len(b)) + pad4(b)


def attrs(lst):
    if not lst:
        return struct.pack(">ii", 0, 0)
    out = struct.pack(">ii", NC_ATTRIBUTE, len(lst))
    for nm, typ, vals in lst:
        if typ == NC_CHAR:
            data, n = vals, len(vals)
        else:
            data, n = struct.pack(">%d%s" % (len(vals), CODES[typ]), *vals), len(vals)
        out += name(nm) + struct.pack(">ii", typ, n) + pad4(data)
    return out


def cdf1(dims, gatts, variables):
    """variables: (name, dimids, atts, type, values); fixed-size only."""
    def header(begins):
        out = b"CDF\x01" + struct.pack(">i", 0)
        out += struct.pack(">ii", NC_DIMENSION, len(dims))
        for nm, size in dims:
            out += name(nm) + struct.pack(">i", size)
        out += attrs(gatts)
        out += struct.pack(">ii", NC_VARIABLE, len(variables))
        for (nm, dimids, atts, typ, vals), begin in zip(variables, begins):
            vsize = len(pad4(b"\0" * (SIZES[typ] * len(vals))))
            out += name(nm) + struct.pack(">i", len(dimids))
            out += b"".join(struct.pack(">i", d) for d in dimids)
            out += attrs(atts) + struct.pack(">iii", typ, vsize, begin)
        return out
    hlen = len(header([0] * len(variables)))
    begins, data, off = [], b"", hlen
    for nm, dimids, atts, typ, vals in variables:
        blob = pad4(struct.pack(">%d%s" % (len(vals), CODES[typ]), *vals))
        begins.append(off)
        data += blob
        off += len(blob)
    return header(begins) + data


def legacy(enc):
    """The Latin-1 file, or its twin with names in UTF-8 (enc = 'utf-8')."""
    def n(text):
        return text.encode(enc)
    return cdf1(
        dims=[(n("h\xe9ss"), 3), (b"x", 2)],
        gatts=[(n("titre_\xe9t\xe9"), NC_CHAR, b"cafe"), (b"n", NC_INT, [7])],
        variables=[
            (n("temp\xe9rature"), [0], [(n("unit\xe9"), NC_CHAR, b"degC"),
                                        (b"scale", NC_FLOAT, [0.5])], NC_FLOAT, [1.5, -2.0, 3.25]),
            (b"plain", [1, 0], [], NC_SHORT, [1, 2, 3, 4, 5, 6]),
        ])


def main(out):
    dup = cdf1(
        dims=[(b"n", 2), (b"n", 3), (b"m", 1)],
        gatts=[],
        variables=[
            (b"a", [0], [], NC_INT, [10, 20]),
            (b"b", [1], [], NC_INT, [1, 2, 3]),
            (b"c", [2, 1], [], NC_SHORT, [4, 5, 6]),
        ])
    for enc, sub in (("latin-1", "latin1"), ("utf-8", "utf8")):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
        with open(os.path.join(out, sub, "legacy.nc"), "wb") as f:
            f.write(legacy(enc))
    with open(out + "/dupdims.nc", "wb") as f:
        f.write(dup)


if __name__ == "__main__":
    main(sys.argv[1])
