#!/usr/bin/python3
"""tst_zdata_zarrpy.py: Zarr v2 data interop with zarr-python 2 (Debian's
python3-zarr with numcodecs: zlib, gzip, bz2, zstd, blosc, shuffle).

  zarr->ours  zarr-python writes arrays of every numeric dtype (both byte
              orders), C and F order, '.' and '/' separators, chunks larger
              than the array, partly written arrays (missing chunks = fill),
              fixed-width strings, each compressor and a filter chain; our
              library (through ctypes) reads them in mode=zarr.
  ours->zarr  our library writes NCZarr and pure Zarr stores with each
              filter (deflate, shuffle+deflate, zstd, bzip2, blosc) and
              edge chunks; zarr-python reads them back.
  missing     a store whose codec is unknown reads as NC_ENOFILTER, never
              as raw bytes.
Uses only our libnetcdf (never the reference library).  Exit 77 when zarr
or numpy is missing or the library carries a sanitizer runtime.
Usage: tst_zdata_zarrpy.py LIBNETCDF WORKDIR
"""
import ctypes, os, shutil, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
from nctst import check, finish, load_lib, read_var, skip  # noqa: E402

try:
    import numpy as np
    import zarr
    import numcodecs
except ImportError:
    skip("zarr-python or numpy missing")

LIB, WORK = sys.argv[1], sys.argv[2]
nc = load_lib(LIB)


NC_NAT, NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE = 0, 1, 2, 3, 4, 5, 6
NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64, NC_STRING = 7, 8, 9, 10, 11, 12
NP = {NC_BYTE: "i1", NC_CHAR: "S1", NC_SHORT: "i2", NC_INT: "i4", NC_FLOAT: "f4", NC_DOUBLE: "f8",
      NC_UBYTE: "u1", NC_USHORT: "u2", NC_UINT: "u4", NC_INT64: "i8", NC_UINT64: "u8"}
NCT = {np.dtype(v).newbyteorder("="): k for k, v in NP.items()}
NC_ENOFILTER = -136


def err(s):
    return nc.nc_strerror(s) and ctypes.string_at(nc.nc_strerror(ctypes.c_int(s))).decode()


nc.nc_strerror.restype = ctypes.c_void_p


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    return path


# ---- zarr-python writes, we read ------------------------------------------------------
def zarr_to_ours():
    path = fresh(os.path.join(WORK, "frompy.zarr"))
    g = zarr.open_group(path, mode="w")
    rng = np.random.default_rng(5)
    cases = []
    comps = {
        "none": None,
        "zlib": numcodecs.Zlib(level=1),
        "gzip": numcodecs.GZip(level=5),
        "bz2": numcodecs.BZ2(level=9),
        "zstd": numcodecs.Zstd(level=3),
        "blosc_lz4": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
        "blosc_zstd_bit": numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.BITSHUFFLE),
        "blosc_auto": numcodecs.Blosc(cname="blosclz", clevel=1, shuffle=numcodecs.Blosc.AUTOSHUFFLE),
    }
    for dt in ["i1", "u1", "<i2", ">i2", "<u2", "<i4", ">i4", "<u4", "<i8", ">u8", "<f4", ">f4", "<f8", ">f8"]:
        for cname, comp in comps.items():
            name = "a_%s_%s" % (dt.replace("<", "le").replace(">", "be"), cname)
            a = (rng.integers(0, 100, size=(13, 7))).astype(dt)
            z = g.create_dataset(name, shape=a.shape, chunks=(5, 3), dtype=dt, compressor=comp)
            z[...] = a
            z.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
            cases.append((name, a))
    # F order, '/' separator, chunk > array, filters chain.
    a = np.arange(60, dtype="<f8").reshape(6, 10)
    z = g.create_dataset("forder", shape=a.shape, chunks=(4, 4), dtype="<f8", order="F",
                         compressor=numcodecs.Zlib(1))
    z[...] = a
    z.attrs["_ARRAY_DIMENSIONS"] = ["f0", "f1"]
    cases.append(("forder", a))
    z = g.create_dataset("slash", shape=a.shape, chunks=(4, 4), dtype="<f8", dimension_separator="/")
    z[...] = a
    z.attrs["_ARRAY_DIMENSIONS"] = ["f0", "f1"]
    cases.append(("slash", a))
    b = np.arange(12, dtype="<i4").reshape(3, 4)
    z = g.create_dataset("bigchunk", shape=b.shape, chunks=(10, 10), dtype="<i4")
    z[...] = b
    z.attrs["_ARRAY_DIMENSIONS"] = ["b0", "b1"]
    cases.append(("bigchunk", b))
    z = g.create_dataset("chain", shape=a.shape, chunks=(3, 5), dtype="<f8",
                         filters=[numcodecs.Shuffle(elementsize=8)], compressor=numcodecs.Zstd(1))
    z[...] = a
    z.attrs["_ARRAY_DIMENSIONS"] = ["f0", "f1"]
    cases.append(("chain", a))
    # Partly written: missing chunks read as the fill value.
    z = g.create_dataset("partial", shape=(10, 10), chunks=(4, 4), dtype="<i2", fill_value=-7,
                         compressor=numcodecs.Zlib(1))
    z[0:4, 0:4] = 5
    z.attrs["_ARRAY_DIMENSIONS"] = ["p0", "p1"]
    cases.append(("partial", z[...]))
    for name, want in cases:
        s, got = read_var(nc, "file://" + path + "#mode=zarr,file", name)
        check(s == 0 and got is not None and np.array_equal(got, want.astype(got.dtype if got is not None else want.dtype)),
              "zarr->ours %s: status %d" % (name, s))
    # Fixed-width strings.
    s_arr = np.array([b"ab", b"", b"xyz", b"q"], dtype="S3")
    z = g.create_dataset("strs", shape=(4,), chunks=(3,), dtype="S3", compressor=numcodecs.Zlib(1))
    z[...] = s_arr
    z.attrs["_ARRAY_DIMENSIONS"] = ["s0"]
    s, got = read_var(nc, "file://" + path + "#mode=zarr,file", "strs")
    if s == 0 and isinstance(got, list):
        check(got == ["ab", "", "xyz", "q"], "zarr->ours strings %r" % (got,))
    elif s == 0:
        check(got.tobytes().rstrip(b"\0") != b"", "zarr->ours strings as char")
    else:
        check(False, "zarr->ours strings: status %d" % s)
    # A codec we cannot run: an error, never raw bytes.
    z = g.create_dataset("lzma", shape=(8,), chunks=(4,), dtype="<i4", compressor=numcodecs.LZMA())
    z[...] = np.arange(8)
    z.attrs["_ARRAY_DIMENSIONS"] = ["l0"]
    s, got = read_var(nc, "file://" + path + "#mode=zarr,file", "lzma")
    check(s == NC_ENOFILTER, "unknown codec: status %d (want NC_ENOFILTER)" % s)


# ---- hostile chunks: truncated, garbage, wrong size -> clean errors -----------------------
def hostile():
    path = fresh(os.path.join(WORK, "hostile.zarr"))
    g = zarr.open_group(path, mode="w")
    for name, comp in (("raw", None), ("zlib", numcodecs.Zlib(1)), ("zstd", numcodecs.Zstd(1)),
                       ("blosc", numcodecs.Blosc()), ("bz2", numcodecs.BZ2(1))):
        z = g.create_dataset(name, shape=(64,), chunks=(32,), dtype="<i4", compressor=comp)
        z[...] = np.arange(64)
        z.attrs["_ARRAY_DIMENSIONS"] = ["h_" + name]
        chunk = os.path.join(path, name, "0")
        data = open(chunk, "rb").read()
        # Truncated and garbage chunks must fail.  (Trailing bytes after a
        # complete zlib/bz2 stream are ignored, as zlib itself does; a raw
        # chunk of the right size is data whatever its bytes.)
        bads = [data[: len(data) // 2], b"\0" * 7]
        if comp is None:
            bads.append(data + b"xyz")
        else:
            bads.append(bytes(reversed(data)))
        for i, bad in enumerate(bads):
            open(chunk, "wb").write(bad)
            s, got = read_var(nc, "file://" + path + "#mode=zarr,file", name)
            check(s != 0, "hostile %s case %d: status %d (want an error)" % (name, i, s))
    # A huge declared shape with one small chunk: reading a slice works, no huge allocation.
    z = g.create_dataset("huge", shape=(1 << 40,), chunks=(16,), dtype="<i2", fill_value=3)
    z[0:16] = np.arange(16)
    z.attrs["_ARRAY_DIMENSIONS"] = ["h_huge"]
    ncid, varid = ctypes.c_int(), ctypes.c_int()
    s = nc.nc_open(("file://" + path + "#mode=zarr,file").encode(), 0, ctypes.byref(ncid))
    check(s == 0, "open hostile store: %d" % s)
    if s == 0:
        nc.nc_inq_varid(ncid, b"huge", ctypes.byref(varid))
        buf = np.zeros(20, dtype="<i2")
        st, ct = (ctypes.c_size_t * 1)(0), (ctypes.c_size_t * 1)(20)
        s = nc.nc_get_vara(ncid, varid, st, ct, buf.ctypes.data_as(ctypes.c_void_p))
        check(s == 0 and list(buf[:16]) == list(range(16)) and buf[16] == 3, "huge array slice: %d" % s)
        nc.nc_close(ncid)


# ---- we write, zarr-python reads -----------------------------------------------------------
def ours_to_zarr(mode):
    path = fresh(os.path.join(WORK, "topy_%s.zarr" % mode.replace(",", "_")))
    url = ("file://" + path + "#mode=" + mode).encode()
    ncid = ctypes.c_int()
    s = nc.nc_create(url, 0x1000 | 0, ctypes.byref(ncid))  # NC_NETCDF4
    check(s == 0, "create %s: %d" % (mode, s))
    if s:
        return
    dims = (ctypes.c_int * 2)()
    nc.nc_def_dim(ncid, b"y", ctypes.c_size_t(37), ctypes.byref(dims, 0))
    nc.nc_def_dim(ncid, b"x", ctypes.c_size_t(21), ctypes.byref(dims, ctypes.sizeof(ctypes.c_int)))
    U = ctypes.c_uint
    filters = {
        "raw": [],
        "deflate": [(1, [4])],
        "shuf_deflate": [(2, []), (1, [1])],
        "zstd": [(32015, [5])],
        "bzip2": [(307, [9])],
        "blosc": [(32001, [0, 0, 0, 0, 5, 1, 1])],
    }
    want = {}
    rng = np.random.default_rng(9)
    vid = {}
    for fname, chain in filters.items():
        for xt in (NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE, NC_UBYTE, NC_INT64):
            name = "%s_%d" % (fname, xt)
            v = ctypes.c_int()
            nc.nc_def_var(ncid, name.encode(), xt, 2, dims, ctypes.byref(v))
            ch = (ctypes.c_size_t * 2)(10, 8)
            s = nc.nc_def_var_chunking(ncid, v, 0, ch)
            for fid, params in chain:
                arr = (U * max(1, len(params)))(*params)
                s = s or nc.nc_def_var_filter(ncid, v, U(fid), ctypes.c_size_t(len(params)), arr)
            check(s == 0, "define %s: %d" % (name, s))
            vid[name] = v
            want[name] = rng.integers(0, 120, size=(37, 21)).astype(NP[xt])
    nc.nc_enddef(ncid)
    for name, a in want.items():
        s = nc.nc_put_var(ncid, vid[name], np.ascontiguousarray(a).ctypes.data_as(ctypes.c_void_p))
        check(s == 0, "put %s: %d" % (name, s))
    s = nc.nc_close(ncid)
    check(s == 0, "close %s: %d" % (mode, s))
    g = zarr.open_group(path, mode="r")
    for name, a in want.items():
        try:
            got = g[name][...]
            check(np.array_equal(got, a), "ours->zarr %s %s values" % (mode, name))
        except Exception as e:  # noqa
            check(False, "ours->zarr %s %s: %s" % (mode, name, e))
    comp = g["deflate_%d" % NC_INT].compressor
    check(comp is not None and comp.codec_id == "zlib", "deflate stored as zlib (%r)" % (comp,))
    z = g["shuf_deflate_%d" % NC_FLOAT]
    check(z.filters is not None and z.filters[0].codec_id == "shuffle", "shuffle stored as a filter")


zarr_to_ours()
hostile()
ours_to_zarr("nczarr,file")
ours_to_zarr("zarr,file")
finish("tst_zdata_zarrpy")
