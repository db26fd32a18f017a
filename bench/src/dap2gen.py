#!/usr/bin/env python3
"""dap2gen.py: the D2 workload's datasets, as netCDF classic files.

    dap2gen.py DIR MIB      writes DIR/d2meta.nc, DIR/d2stride.nc, DIR/d2big.nc

The files are CDF-2 (64-bit offset) classic files written here with numpy
(fixed-size variables only, so each variable's data is one contiguous,
big-endian block); read_classic() parses such a file back into its
dimensions, attributes and variables with their offsets, which is what
dap2serve.py serves over DAP2.

  d2meta    20 variables (coordinates, scalars, 2-D, 3-D and 4-D fields of
            byte, short, int, float and double) with attributes; its 4-D
            fields have MIB/128 time steps (at least 1)
  d2stride  one float variable s[z][250][1000], z = 100*MIB/128 (100 MB at
            --mib 128)
  d2big     one float variable b[z][250][1000], z = 200*MIB/128 (200 MB)

Values of s and b are pattern_value(i) = ((7i + 3) mod 1048573) / 4 of the
linear index i, the same formula as bench_common.h, so the reader can check
every value it gets.
"""
import struct
import sys

import numpy as np

NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE = 1, 2, 3, 4, 5, 6
DTYPE = {NC_BYTE: ">i1", NC_CHAR: "S1", NC_SHORT: ">i2", NC_INT: ">i4", NC_FLOAT: ">f4",
         NC_DOUBLE: ">f8"}
TAG_DIM, TAG_VAR, TAG_ATT = 0x0A, 0x0B, 0x0C
NX, NY = 1000, 250


def pattern(first, n):
    """pattern_value() of bench_common.h for indices [first, first+n)."""
    i = np.arange(first, first + n, dtype=np.int64)
    return (((i * 7 + 3) % 1048573).astype(np.float32) * np.float32(0.25)).astype(">f4")


# ---------------------------------------------------------------- writer
def _pad(b):
    return b + b"\0" * ((4 - len(b) % 4) % 4)


def _name(s):
    b = s.encode()
    return struct.pack(">I", len(b)) + _pad(b)


def _attr_value(v):
    """(nc_type, raw big-endian bytes, count) of an attribute value."""
    if isinstance(v, str):
        b = v.encode()
        return NC_CHAR, b, len(b)
    a = np.atleast_1d(v)
    t = {np.dtype("int8"): NC_BYTE, np.dtype("int16"): NC_SHORT, np.dtype("int32"): NC_INT,
         np.dtype("float32"): NC_FLOAT, np.dtype("float64"): NC_DOUBLE}[a.dtype]
    return t, a.astype(DTYPE[t]).tobytes(), a.size


def _atts(atts):
    if not atts:
        return struct.pack(">II", 0, 0)
    out = struct.pack(">II", TAG_ATT, len(atts))
    for k, v in atts:
        t, raw, n = _attr_value(v)
        out += _name(k) + struct.pack(">II", t, n) + _pad(raw)
    return out


def write_classic(path, dims, gatts, variables):
    """dims: [(name, len)]; gatts: [(name, value)]; variables:
    [(name, nc_type, [dimname...], [(att, value)], filler)] where filler(f, shape,
    dtype) writes the variable's values (big-endian) to the open file f."""
    dimid = {d[0]: i for i, d in enumerate(dims)}
    dlen = dict(dims)

    def header(begins):
        h = b"CDF\x02" + struct.pack(">I", 0)
        h += struct.pack(">II", TAG_DIM, len(dims)) if dims else struct.pack(">II", 0, 0)
        for name, n in dims:
            h += _name(name) + struct.pack(">I", n)
        h += _atts(gatts)
        h += struct.pack(">II", TAG_VAR, len(variables))
        for (name, t, vd, atts, _), begin in zip(variables, begins):
            h += _name(name) + struct.pack(">I", len(vd))
            h += b"".join(struct.pack(">I", dimid[d]) for d in vd)
            h += _atts(atts)
            h += struct.pack(">II", t, min(vsize(t, vd), 0xFFFFFFFF)) + struct.pack(">Q", begin)
        return h

    def vsize(t, vd):
        n = int(np.prod([dlen[d] for d in vd], dtype=np.int64)) * np.dtype(DTYPE[t]).itemsize
        return n + (4 - n % 4) % 4

    hlen = len(header([0] * len(variables)))
    begins, off = [], hlen
    for name, t, vd, _, _ in variables:
        begins.append(off)
        off += vsize(t, vd)
    with open(path, "wb") as f:
        f.write(header(begins))
        for (name, t, vd, _, filler), begin in zip(variables, begins):
            assert f.tell() == begin
            shape = tuple(dlen[d] for d in vd)
            filler(f, shape, DTYPE[t])
            n = int(np.prod(shape, dtype=np.int64)) * np.dtype(DTYPE[t]).itemsize
            f.write(b"\0" * ((4 - n % 4) % 4))


# ---------------------------------------------------------------- reader
class Var:
    def __init__(self, name, nctype, dims, shape, atts, begin):
        self.name, self.nctype, self.dims, self.shape = name, nctype, dims, shape
        self.atts, self.begin = atts, begin


def read_classic(path):
    """(dims [(name, len)], global atts [(name, value)], [Var]) of a CDF-1/2
    file without record variables."""
    with open(path, "rb") as f:
        head = f.read(1 << 20)
    p = [0]

    def u32():
        v = struct.unpack_from(">I", head, p[0])[0]
        p[0] += 4
        return v

    def name():
        n = u32()
        s = head[p[0]:p[0] + n].decode()
        p[0] += n + (4 - n % 4) % 4
        return s

    def atts():
        tag, n = u32(), u32()
        out = []
        for _ in range(n if tag == TAG_ATT else 0):
            k = name()
            t, cnt = u32(), u32()
            size = cnt * np.dtype(DTYPE[t]).itemsize
            raw = head[p[0]:p[0] + size]
            p[0] += size + (4 - size % 4) % 4
            out.append((k, raw.decode() if t == NC_CHAR else np.frombuffer(raw, DTYPE[t]).copy()))
        return out

    if head[:3] != b"CDF" or head[3] not in (1, 2):
        raise ValueError("%s: not a CDF-1/2 file" % path)
    wide = head[3] == 2
    p[0] = 4
    if u32() != 0:
        raise ValueError("%s: record variables are not supported" % path)
    tag, n = u32(), u32()
    dims = [(name(), u32()) for _ in range(n if tag == TAG_DIM else 0)]
    gatts = atts()
    tag, n = u32(), u32()
    variables = []
    for _ in range(n if tag == TAG_VAR else 0):
        vname = name()
        ids = [u32() for _ in range(u32())]
        vatts = atts()
        t, _vsize = u32(), u32()
        if wide:
            begin = struct.unpack_from(">Q", head, p[0])[0]
            p[0] += 8
        else:
            begin = u32()
        vd = [dims[i][0] for i in ids]
        if any(dims[i][1] == 0 for i in ids):
            raise ValueError("%s: record variables are not supported" % path)
        variables.append(Var(vname, t, vd, tuple(dims[i][1] for i in ids), vatts, begin))
    return dims, gatts, variables


# ---------------------------------------------------------------- datasets
def fill_pattern(f, shape, dtype):
    plane = int(np.prod(shape[1:], dtype=np.int64))
    for k in range(shape[0]):
        f.write(pattern(k * plane, plane).tobytes())


def fill_formula(kind, seed):
    """A filler with values of the variable's type that never equal the
    default fill values (ncdump would print them as _)."""
    def filler(f, shape, dtype):
        n = int(np.prod(shape, dtype=np.int64))
        i = np.arange(n, dtype=np.int64)
        if kind == "byte":
            a = (i * 5 + seed) % 200 - 100
        elif kind == "short":
            a = (i * 13 + seed) % 60001 - 30000
        elif kind == "int":
            a = (i * 7919 + seed) % 2000003 - 1000000
        elif kind == "float":
            a = ((i * 7 + 3 + seed) % 1048573).astype(np.float64) * 0.25 - 1000.0
        else:
            a = np.sin((i + seed) * 0.001) * 1000.0 + (i % 97) * 1e-9
        f.write(np.asarray(a).astype(dtype).tobytes())
    return filler


def fill_values(values):
    def filler(f, shape, dtype):
        f.write(np.asarray(values).reshape(shape).astype(dtype).tobytes())
    return filler


def make_meta(path, mib):
    nt = max(1, mib // 128)
    dims = [("time", nt), ("lev", 8), ("lat", 90), ("lon", 180), ("nv", 2)]
    lat = -89.0 + 2.0 * np.arange(90)
    lon = 1.0 + 2.0 * np.arange(180)
    F, D, I, S, B = NC_FLOAT, NC_DOUBLE, NC_INT, NC_SHORT, NC_BYTE

    def units(u, ln):
        return [("units", u), ("long_name", ln)]
    variables = [
        ("time", D, ["time"], units("days since 2000-01-01", "time") + [("calendar", "standard")],
         fill_values(0.5 + np.arange(nt))),
        ("lev", F, ["lev"], units("hPa", "pressure level") + [("positive", "down")],
         fill_values([1000, 925, 850, 700, 500, 300, 200, 100])),
        ("lat", F, ["lat"], units("degrees_north", "latitude"), fill_values(lat)),
        ("lon", F, ["lon"], units("degrees_east", "longitude"), fill_values(lon)),
        ("lat_bnds", D, ["lat", "nv"], [], fill_values(np.stack([lat - 1, lat + 1], 1))),
        ("lon_bnds", D, ["lon", "nv"], [], fill_values(np.stack([lon - 1, lon + 1], 1))),
        ("crs", I, [], [("grid_mapping_name", "latitude_longitude"),
                        ("semi_major_axis", np.array([6371000.0]))], fill_values([0])),
        ("ref_level", S, [], units("m", "reference height"), fill_values([2])),
        ("mask", B, ["lat", "lon"], [("flag_values", np.array([0, 1], np.int8))],
         fill_formula("byte", 1)),
        ("orog", F, ["lat", "lon"], units("m", "surface altitude"), fill_formula("float", 2)),
        ("area", D, ["lat", "lon"], units("m2", "cell area"), fill_formula("double", 3)),
        ("landcode", S, ["lat", "lon"], [("long_name", "land class")], fill_formula("short", 4)),
        ("tas", F, ["time", "lat", "lon"], units("K", "air temperature") +
         [("valid_range", np.array([100.0, 400.0], np.float32))], fill_formula("float", 5)),
        ("pr", F, ["time", "lat", "lon"], units("kg m-2 s-1", "precipitation"), fill_formula("float", 6)),
        ("ps", F, ["time", "lat", "lon"], units("Pa", "surface pressure"), fill_formula("float", 7)),
        ("nobs", I, ["time", "lat", "lon"], [("long_name", "observation count")], fill_formula("int", 8)),
        ("ta", F, ["time", "lev", "lat", "lon"], units("K", "temperature"), fill_formula("float", 9)),
        ("ua", F, ["time", "lev", "lat", "lon"], units("m s-1", "eastward wind"), fill_formula("float", 10)),
        ("va", D, ["time", "lev", "lat", "lon"], units("m s-1", "northward wind"), fill_formula("double", 11)),
        ("qual", S, ["time", "lev", "lat", "lon"], [("long_name", "quality flag"),
                                                    ("scale", np.array([3], np.int16))],
         fill_formula("short", 12)),
    ]
    gatts = [("title", "D2 bench dataset"), ("Conventions", "CF-1.8"),
             ("history", "made by bench/src/dap2gen.py"), ("version", np.array([3], np.int32)),
             ("scale_ref", np.array([0.5, 1.5]))]
    write_classic(path, dims, gatts, variables)


def make_one(path, vname, nz):
    dims = [("z", nz), ("y", NY), ("x", NX)]
    write_classic(path, dims, [("title", "D2 " + vname)],
                  [(vname, NC_FLOAT, ["z", "y", "x"], [("units", "1")], fill_pattern)])


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: dap2gen.py DIR MIB\n")
        return 1
    d, mib = sys.argv[1], max(1, int(sys.argv[2]))
    make_meta(d + "/d2meta.nc", mib)
    make_one(d + "/d2stride.nc", "s", max(4, 100 * mib // 128))
    make_one(d + "/d2big.nc", "b", max(4, 200 * mib // 128))
    return 0


if __name__ == "__main__":
    sys.exit(main())
