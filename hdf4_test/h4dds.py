"""h4dds.py: the data descriptors of an HDF4 file and its compressed
elements (the HDF4 file format: a magic number, then linked blocks of
12-byte descriptors tag, ref, offset, length, big-endian).

As a module: dds(path) -> list of [tag, ref, offset, length, index of the
descriptor's bytes in the file]; comp_codes(path) -> the coder of every
compressed element.  As a script: prints the coders, one a line.
"""
import struct
import sys

SPECIAL = 0x4000
SP_COMP = 3


def dds(data):
    out = []
    off = 4
    seen = set()
    while off and off not in seen:
        seen.add(off)
        n, nxt = struct.unpack(">HI", data[off:off + 6])
        for i in range(n):
            p = off + 6 + 12 * i
            tag, ref, o, ln = struct.unpack(">HHII", data[p:p + 12])
            if tag not in (0, 1):
                out.append([tag, ref, o, ln, p])
        off = nxt
    return out


def comp_codes(data):
    """(tag, ref, coder) of each compressed special element."""
    res = []
    for tag, ref, o, ln, _ in dds(data):
        if tag & SPECIAL and ln >= 14:
            sp, = struct.unpack(">H", data[o:o + 2])
            if sp == SP_COMP:
                res.append((tag & ~SPECIAL, ref, struct.unpack(">H", data[o + 12:o + 14])[0]))
    return res


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as fh:
        for t, r, c in comp_codes(fh.read()):
            print(t, r, c)
