#!/usr/bin/python3
"""tst_zdata_zarrita.py: Zarr v3 data interop with zarrita (npm).

  zarrita->ours  zarrita writes v3 arrays (bytes little/big, transpose,
                 zstd with and without checksum, blosc, '.' separator); our
                 library (ctypes) reads them.
  ours->zarrita  we write v3 arrays with each filter (gzip, zstd, blosc,
                 numcodecs.shuffle + gzip, big-endian bytes) and sharded
                 arrays (mode "shard": index at the end with crc32c, empty
                 inner chunks left out); zarrita reads them.
zarrita is installed with npm into WORKDIR/npm; exit 77 when node/npm are
missing, the install fails, numpy is missing, or the library carries a
sanitizer runtime.
Usage: tst_zdata_zarrita.py LIBNETCDF WORKDIR SCRIPT.mjs
"""
import ctypes, json, os, shutil, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
from nctst import check, finish, load_lib, node, read_var, skip, zarrita  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("numpy missing")

LIB, WORK, MJS = sys.argv[1], sys.argv[2], sys.argv[3]
nc = load_lib(LIB)
NPM = zarrita(WORK, MJS)
if NPM is None:
    skip("zarrita not available")


NP = {1: "i1", 3: "i2", 4: "i4", 5: "f4", 6: "f8", 7: "u1", 8: "u2", 9: "u4", 10: "i8", 11: "u8"}
NCT = {"int8": 1, "int16": 3, "int32": 4, "float32": 5, "float64": 6, "uint8": 7, "uint16": 8,
       "uint32": 9, "int64": 10, "uint64": 11}


def formula(n, salt):
    return (np.arange(n) * 7 + salt) % 100


# ---- zarrita writes, we read ------------------------------------------------------------
path = os.path.join(WORK, "fromzarrita.zarr")
shutil.rmtree(path, ignore_errors=True)
names = node(NPM, "write", path)
check(names is not None, "zarrita write")
for salt, name in enumerate(names or []):
    s, a = read_var(nc, "file://" + path + "#mode=zarr,v3,file", name)
    ok = s == 0 and a is not None and a.shape == (13, 7) and np.array_equal(a.reshape(-1), formula(91, salt))
    check(ok, "zarrita->ours %s: status %d" % (name, s))

# ---- we write, zarrita reads -----------------------------------------------------------------
U = ctypes.c_uint


def ours(mode, tag):
    p = os.path.join(WORK, "tozarrita_%s.zarr" % tag)
    shutil.rmtree(p, ignore_errors=True)
    ncid = ctypes.c_int()
    s = nc.nc_create(("file://" + p + "#mode=" + mode).encode(), 0x1000, ctypes.byref(ncid))
    check(s == 0, "create %s: %d" % (mode, s))
    if s:
        return
    dims = (ctypes.c_int * 2)()
    nc.nc_def_dim(ncid, b"y", ctypes.c_size_t(29), ctypes.byref(dims, 0))
    nc.nc_def_dim(ncid, b"x", ctypes.c_size_t(17), ctypes.byref(dims, 4))
    chains = {"raw": [], "gzip": [(1, [3])], "zstd": [(32015, [4])], "blosc": [(32001, [0, 0, 0, 0, 5, 1, 1])],
              "shufgz": [(2, []), (1, [1])]}
    want, vid = {}, {}
    salt = 0
    for cname, chain in chains.items():
        for xt in (3, 4, 6, 11):
            name = "%s_%d" % (cname, xt)
            v = ctypes.c_int()
            s = nc.nc_def_var(ncid, name.encode(), xt, 2, dims, ctypes.byref(v))
            s = s or nc.nc_def_var_chunking(ncid, v, 0, (ctypes.c_size_t * 2)(6, 5))
            for fid, params in chain:
                arr = (U * max(1, len(params)))(*params)
                s = s or nc.nc_def_var_filter(ncid, v, U(fid), ctypes.c_size_t(len(params)), arr)
            if cname == "raw" and xt == 4:
                s = s or nc.nc_def_var_endian(ncid, v, 2)  # NC_ENDIAN_BIG
            check(s == 0, "define %s %s: %d" % (tag, name, s))
            a = formula(29 * 17, salt).astype(NP[xt]).reshape(29, 17)
            if cname == "raw" and xt == 3:
                a[0:12, 0:10] = -32767  # whole inner chunks of fill: left out of a shard
            want[name], vid[name] = a, v
            salt += 1
    nc.nc_enddef(ncid)
    for name, a in want.items():
        s = nc.nc_put_var(ncid, vid[name], np.ascontiguousarray(a).ctypes.data_as(ctypes.c_void_p))
        check(s == 0, "put %s %s: %d" % (tag, name, s))
    check(nc.nc_close(ncid) == 0, "close %s" % tag)
    got = node(NPM, "read", p, *want.keys()) or {}
    for name, a in want.items():
        g = got.get(name, {})
        try:
            ok = "data" in g and g["shape"] == [29, 17] and \
                np.array_equal(np.array(g["data"], dtype=a.dtype), a.reshape(-1))
        except (OverflowError, ValueError):
            ok = False
        check(ok, "ours->zarrita %s %s: %s" % (tag, name, g.get("error", "values differ")))
    # And we read our own store back.
    for name, a in list(want.items())[:6]:
        s, b = read_var(nc, "file://" + p + "#mode=" + mode, name)
        check(s == 0 and np.array_equal(a, b), "ours->ours %s %s: %d" % (tag, name, s))
    return p


ours("zarr,v3,file", "plain")
sp = ours("zarr,v3,file,shard", "sharded")
if sp:
    meta = json.load(open(os.path.join(sp, "raw_3", "zarr.json")))
    names = [c.get("name") for c in meta.get("codecs", [])]
    check(names == ["sharding_indexed"], "sharded array's codecs: %r" % (names,))
finish("tst_zdata_zarrita")
