"""Python's netCDF4 module as a real client of whichever libnetcdf it loads.

usage: py_write_read.py OUTDIR
Writes one file per classic format with every classic feature netCDF4-python
exposes, reads each back, checks the values, and prints the library version
it ran on (so the caller can tell which library was loaded).
"""
import sys
import numpy as np
import netCDF4

out = sys.argv[1]
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


formats = {"classic": "NETCDF3_CLASSIC", "offset": "NETCDF3_64BIT_OFFSET",
           "cdf5": "NETCDF3_64BIT_DATA"}
for tag, fmt in formats.items():
    path = "%s/py_%s.nc" % (out, tag)
    with netCDF4.Dataset(path, "w", format=fmt) as ds:
        ds.set_auto_mask(False)
        ds.title = "written by netCDF4-python"
        ds.setncattr("answer", np.int32(42))
        ds.setncattr("scale", np.float64(0.125))
        ds.createDimension("time", None)
        ds.createDimension("lat", 3)
        ds.createDimension("lon", 4)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        v = ds.createVariable("temp", "f4", ("time", "lat", "lon"), fill_value=-999.0)
        v.long_name = "temperature"
        s = ds.createVariable("code", "i2", ("lat",))
        c = ds.createVariable("name", "S1", ("lat", "lon"))
        b = ds.createVariable("flag", "i1", ("lon",))
        if tag == "cdf5":
            u = ds.createVariable("big", "u8", ("lon",))
            u[:] = np.array([0, 1, 2**63, 2**64 - 2], dtype=np.uint64)
            i8 = ds.createVariable("i64", "i8", ("lon",))
            i8[:] = np.array([-2**63, -1, 0, 2**63 - 1], dtype=np.int64)
        t[0:2] = [0.5, 1.5]
        v[0] = np.arange(12, dtype=np.float32).reshape(3, 4)
        v[1, 1, :] = [1e30, -1e-30, np.inf, -np.inf]
        s[:] = [-32768, 0, 32767]
        c[:] = netCDF4.stringtochar(np.array(["ab", "cde", "f"], dtype="S4"))
        b[:] = [-128, -1, 0, 127]
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        check(ds.data_model == fmt, "%s data_model %s" % (tag, ds.data_model))
        check(ds.title == "written by netCDF4-python", "title")
        check(int(ds.answer) == 42 and float(ds.scale) == 0.125, "global attrs")
        check(len(ds.dimensions["time"]) == 2 and ds.dimensions["time"].isunlimited(), "records")
        temp = ds["temp"][:]
        check(temp.shape == (2, 3, 4), "temp shape")
        check(np.array_equal(temp[0], np.arange(12, dtype=np.float32).reshape(3, 4)), "temp rec 0")
        check(temp[1, 0, 0] == -999.0, "fill value in unwritten record data")
        check(temp[1, 1, 2] == np.inf and temp[1, 1, 3] == -np.inf, "infinities")
        check(list(ds["code"][:]) == [-32768, 0, 32767], "shorts")
        check(list(ds["flag"][:]) == [-128, -1, 0, 127], "bytes")
        names = netCDF4.chartostring(ds["name"][:])
        check(list(names) == ["ab", "cde", "f"], "chars %r" % (list(names),))
        if tag == "cdf5":
            check(list(ds["big"][:]) == [0, 1, 2**63, 2**64 - 2], "uint64")
            check(list(ds["i64"][:]) == [-2**63, -1, 0, 2**63 - 1], "int64")
        check(ds["temp"].long_name == "temperature", "var attr")

print("libversion", netCDF4.__netcdf4libversion__)
print("python: %d passed, %d failed" % (1 if failures == 0 else 0, failures))
sys.exit(1 if failures else 0)
