"""Write netCDF-4 files with netCDF4-python and xarray: groups, every atomic
type, strings, compound (nested, with array fields), vlen, enum and opaque-free
user types, masks, fill values, chunking, compression, endianness.

usage: py_write4.py OUTDIR_OR_PREFIX

Writes PREFIX_*.nc (PREFIX may be a directory: then DIR/py4_*.nc).  Run on
the reference library and on ours, the files must dump identically with the
reference ncdump -s; read by ours they must describe identically
(py_describe4.py).
"""
import os
import sys

import numpy as np
import netCDF4

try:
    import xarray as xr
except ImportError:
    xr = None


def out(prefix, name):
    if os.path.isdir(prefix):
        return os.path.join(prefix, "py4_%s.nc" % name)
    return "%s_%s.nc" % (prefix, name)


def write_types(path, fmt="NETCDF4"):
    with netCDF4.Dataset(path, "w", format=fmt) as ds:
        ds.title = "every atomic type"
        ds.createDimension("n", 4)
        ds.createDimension("t", None)
        types = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]
        if fmt == "NETCDF4_CLASSIC":
            types = ["i1", "i2", "i4", "f4", "f8"]
        for t in types:
            v = ds.createVariable("v_" + t, t, ("t", "n"), fill_value=False if t == "i2" else None)
            info = np.iinfo(t) if t[0] in "iu" else np.finfo(t)
            v[0, :] = np.array([info.min, 0, 1, info.max], dtype=t)
            v[1, :2] = np.array([2, 3], dtype=t)
            v.setncattr("a_" + t, np.array([info.min, info.max], dtype=t))
        c = ds.createVariable("chars", "S1", ("n",))
        c[:] = np.array([b"a", b"b", b"", b"d"])
        m = ds.createVariable("masked", "f4", ("n",), fill_value=-1.0)
        m[:] = np.ma.masked_array([1.5, 2.5, 0, 4.5], mask=[0, 0, 1, 0])
        m.scale_factor = np.float32(0.5)
        m.add_offset = np.float32(1.0)
        if fmt == "NETCDF4":
            s = ds.createVariable("strs", str, ("n",))
            s[0] = "alpha"
            s[1] = ""
            s[3] = "d\u00e9lta"
            ds.setncattr_string("sattr", ["x", "yy"])
            ds.u64attr = np.uint64(18446744073709551615)


def write_groups(path):
    with netCDF4.Dataset(path, "w") as ds:
        ds.createDimension("x", 3)
        ds.createVariable("x", "f8", ("x",))[:] = [0.5, 1.5, 2.5]
        g = ds.createGroup("forecast")
        g.model = "m1"
        g.createDimension("time", None)
        v = g.createVariable("temp", "f4", ("time", "x"), zlib=True, complevel=3, shuffle=True,
                             chunksizes=(1, 3))
        v[0:2, :] = np.arange(6, dtype="f4").reshape(2, 3)
        h = g.createGroup("member_1")
        w = h.createVariable("w", ">i2", ("time",), endian="big", fletcher32=True)
        w[:] = [5, 6, 7]
        h2 = ds.createGroup("analysis")
        h2.createVariable("scalar", "i4")[...] = 7
        h2.createVariable("contig", "i4", ("x",), contiguous=True)[:] = [1, 2, 3]


def write_user(path):
    with netCDF4.Dataset(path, "w") as ds:
        ds.createDimension("n", 3)
        inner = np.dtype([("a", "i4"), ("b", "f8")], align=True)
        inner_t = ds.createCompoundType(inner, "inner_t")
        outer = np.dtype([("id", "i2"), ("pos", inner), ("arr", "f4", (2,))], align=True)
        outer_t = ds.createCompoundType(outer, "outer_t")
        v = ds.createVariable("cmp", outer_t, ("n",))
        data = np.zeros(3, dtype=outer)
        data["id"] = [1, 2, 3]
        data["pos"]["a"] = [10, 20, 30]
        data["pos"]["b"] = [0.5, 1.5, 2.5]
        data["arr"] = [[1, 2], [3, 4], [5, 6]]
        v[:] = data
        ds.createVariable("inner", inner_t, ())[...] = np.array((7, 8.5), dtype=inner)
        vl_t = ds.createVLType("i4", "ragged_t")
        rv = ds.createVariable("ragged", vl_t, ("n",))
        arr = np.empty(3, object)
        arr[0] = np.array([1, 2, 3], "i4")
        arr[1] = np.array([], "i4")
        arr[2] = np.array([4], "i4")
        rv[:] = arr
        en_t = ds.createEnumType("u1", "cloud_t", {"clear": 0, "cumulus": 1, "missing": 255})
        ev = ds.createVariable("cloud", en_t, ("n",), fill_value=255)
        ev[:] = np.array([0, 1, 255], "u1")
        g = ds.createGroup("sub")
        g.createVariable("inner_in_sub", inner_t, ("n",))[:] = np.zeros(3, dtype=inner)
        ds.setncattr("cloud_kind", 1)


def write_xarray(path):
    if xr is None:
        return
    t = np.array(["2000-01-01", "2000-01-02", "2000-01-04", "2000-02-01"], dtype="datetime64[ns]")
    ds = xr.Dataset(
        {"temp": (("time", "x"), np.arange(8, dtype="f4").reshape(4, 2), {"units": "K"}),
         "flag": (("time",), np.array([1, 0, 1, 1], dtype="i1")),
         "name": (("x",), np.array(["ab", "c"], dtype=object))},
        coords={"time": t, "x": [10.0, 20.0]},
        attrs={"history": "xarray"})
    ds.to_netcdf(path, engine="netcdf4", format="NETCDF4",
                 encoding={"temp": {"zlib": True, "complevel": 2, "_FillValue": -9.0}})


def main(prefix):
    print("libversion", netCDF4.__netcdf4libversion__, file=sys.stderr)
    write_types(out(prefix, "types"))
    write_types(out(prefix, "types_classic"), "NETCDF4_CLASSIC")
    write_groups(out(prefix, "groups"))
    write_user(out(prefix, "user"))
    write_xarray(out(prefix, "xarray"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
