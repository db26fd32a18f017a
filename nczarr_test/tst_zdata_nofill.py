#!/usr/bin/python3
"""tst_zdata_nofill.py: NOFILL variables keep their all-zero chunks.

A NOFILL variable (nc_def_var_fill(NC_NOFILL), nc_set_fill(NC_NOFILL), what
nccopy writes) names no fill value in its metadata (v2 "fill_value": null)
or one that is not zero (v3), so a chunk of zeros left out of the store
would read as garbage or as that fill elsewhere.  We write such variables
(whole-chunk writes, partial writes through the cache, a sharded v3 array)
on directory and zip stores, v2 and v3, then check that every chunk is
stored and that zarr-python (v2) and zarrita (v3, npm) read exactly what was
written.  Usage: tst_zdata_nofill.py LIBNETCDF WORKDIR SCRIPT.mjs
"""
import ctypes, os, shutil, sys, zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
from nctst import check, finish, load_lib, node, read_var, skip, zarrita  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("numpy missing")

LIB, WORK, MJS = sys.argv[1], sys.argv[2], sys.argv[3]
nc = load_lib(LIB)
NC_NOFILL, NC_FLOAT, NC_DOUBLE, NC_INT = 0x100, 5, 6, 4
NY, NX, CY = 8, 6, 2


def data(salt):
    """Rows 0-1 and 4-5 (two chunks) zero, the rest not."""
    a = (np.arange(NY * NX).reshape(NY, NX) + 1.0 + salt)
    a[0:2] = 0
    a[4:6] = 0
    return a


VARS = {"f": (NC_FLOAT, "f4", 0), "d": (NC_DOUBLE, "f8", 1), "i": (NC_INT, "i4", 2)}


def write(url):
    ncid = ctypes.c_int()
    s = nc.nc_create(url.encode(), 0x1000, ctypes.byref(ncid))
    check(s == 0, "create %s: %d" % (url, s))
    if s:
        return {}
    old = ctypes.c_int()
    nc.nc_set_fill(ncid, NC_NOFILL, ctypes.byref(old))  # the file's default: every variable
    dims = (ctypes.c_int * 2)()
    nc.nc_def_dim(ncid, b"y", ctypes.c_size_t(NY), ctypes.byref(dims, 0))
    nc.nc_def_dim(ncid, b"x", ctypes.c_size_t(NX), ctypes.byref(dims, 4))
    want, vid = {}, {}
    for name, (xt, np_t, salt) in VARS.items():
        v = ctypes.c_int()
        s = nc.nc_def_var(ncid, name.encode(), xt, 2, dims, ctypes.byref(v))
        s = s or nc.nc_def_var_chunking(ncid, v, 0, (ctypes.c_size_t * 2)(CY, NX))
        if name == "d":
            s = s or nc.nc_def_var_fill(ncid, v, 1, None)  # and per variable
        check(s == 0, "define %s: %d" % (name, s))
        want[name], vid[name] = data(salt).astype(np_t), v
    nc.nc_enddef(ncid)
    for name, a in want.items():
        if name == "i":
            # Row by row: each chunk goes through the write cache.
            for r in range(NY):
                row = np.ascontiguousarray(a[r])
                s = nc.nc_put_vara(ncid, vid[name], (ctypes.c_size_t * 2)(r, 0), (ctypes.c_size_t * 2)(1, NX),
                                   row.ctypes.data_as(ctypes.c_void_p))
                if s:
                    break
        else:
            s = nc.nc_put_var(ncid, vid[name], np.ascontiguousarray(a).ctypes.data_as(ctypes.c_void_p))
        check(s == 0, "put %s: %d" % (name, s))
    check(nc.nc_close(ncid) == 0, "close %s" % url)
    return want


def ours_back(url, want, tag):
    for name, a in want.items():
        s, b = read_var(nc, url, name)
        check(s == 0 and b is not None and np.array_equal(a, b), "%s: ours reads %s back: %d" % (tag, name, s))


# ---- v2 on a directory and in a zip, read by zarr-python ------------------------------------
try:
    import zarr
except ImportError:
    zarr = None

for mode, tag in (("nczarr,file", "v2dir"), ("zarr,file", "v2pure"), ("nczarr,zip", "v2zip")):
    p = os.path.join(WORK, "nofill_%s.%s" % (tag, "zip" if "zip" in mode else "zarr"))
    shutil.rmtree(p, ignore_errors=True)
    if os.path.exists(p):
        os.unlink(p)
    url = "file://" + p + "#mode=" + mode
    want = write(url)
    if not want:
        continue
    ours_back(url, want, tag)
    if "zip" in mode:
        names = set(zipfile.ZipFile(p).namelist())
        prefix = os.path.splitext(os.path.basename(p))[0] + "/"
        chunk = lambda v, c: prefix + "%s/%d.0" % (v, c)  # noqa: E731
        exists = lambda k: k in names  # noqa: E731
    else:
        chunk = lambda v, c: os.path.join(p, v, "%d.0" % c)  # noqa: E731
        exists = os.path.exists
    for name in want:
        missing = [c for c in range(NY // CY) if not exists(chunk(name, c))]
        check(not missing, "%s: %s chunks stored (missing %r)" % (tag, name, missing))
    if zarr is None:
        continue
    if "zip" in mode:
        store = zarr.ZipStore(p, mode="r")
        root = zarr.open_group(store, mode="r", path=os.path.splitext(os.path.basename(p))[0])
    else:
        store = None
        root = zarr.open_group(p, mode="r")
    for name, a in want.items():
        arr = root[name]
        check(arr.fill_value is None, "%s: %s fill_value is %r (NOFILL: null)" % (tag, name, arr.fill_value))
        check(np.array_equal(arr[:], a), "%s: zarr-python reads %s as written" % (tag, name))
    if store is not None:
        store.close()

# ---- v3 (plain and sharded), read by zarrita -------------------------------------------------
NPM = zarrita(WORK, MJS)
for mode, tag in (("zarr,v3,file", "v3"), ("zarr,v3,file,shard", "v3shard")):
    p = os.path.join(WORK, "nofill_%s.zarr" % tag)
    shutil.rmtree(p, ignore_errors=True)
    url = "file://" + p + "#mode=" + mode
    want = write(url)
    if not want:
        continue
    ours_back(url, want, tag)
    if tag == "v3":
        for name in want:
            missing = [c for c in range(NY // CY) if not os.path.exists(os.path.join(p, name, "c", str(c), "0"))]
            check(not missing, "%s: %s chunks stored (missing %r)" % (tag, name, missing))
    if NPM is None:
        continue
    got = node(NPM, "read", p, *want.keys()) or {}
    for name, a in want.items():
        g = got.get(name, {})
        ok = "data" in g and np.array_equal(np.array(g["data"], dtype=a.dtype), a.reshape(-1))
        check(ok, "%s: zarrita reads %s as written: %s" % (tag, name, g.get("error", "values differ")))

finish("tst_zdata_nofill")
