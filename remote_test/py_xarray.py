#!/usr/bin/env python3
"""py_xarray.py DATADIR URLBASE NAME...: xarray (netcdf4 engine, on
whichever libnetcdf.so.19 the loader finds) opens DATADIR/NAME.nc and
URLBASE/NAME.nc#mode=bytes and compares them (values, coordinates, decoded
times, attributes: Dataset.identical).  Files xarray cannot open locally
(user-defined types) are left out; exits 1 on any mismatch."""
import os
import sys

import netCDF4
import numpy as np
import xarray as xr


def attrs_equal(p, q):
    return p.keys() == q.keys() and all(np.array_equal(p[k], q[k]) for k in p)


def same(x, y):
    """Variables x and y identical; variable-length sequences (object
    arrays of arrays, which xarray cannot compare) element by element."""
    vx, vy = x.values, y.values
    if vx.dtype == object and any(isinstance(e, np.ndarray) for e in vx.flat):
        return (x.dims == y.dims and attrs_equal(x.attrs, y.attrs) and vx.shape == vy.shape and
                all(np.array_equal(p, q) for p, q in zip(vx.flat, vy.flat)))
    return x.identical(y)


data, base = sys.argv[1:3]
bad = 0
print("libversion", netCDF4.getlibversion().split()[0])
for name in sys.argv[3:]:
    try:
        a = xr.open_dataset(os.path.join(data, name + ".nc"), engine="netcdf4").load()
    except Exception as e:  # noqa: BLE001 - what xarray cannot show locally
        print("%s: not opened by xarray locally (%s)" % (name, type(e).__name__))
        continue
    b = xr.open_dataset("%s/%s.nc#mode=bytes" % (base, name), engine="netcdf4").load()
    if list(a.variables) != list(b.variables) or not attrs_equal(a.attrs, b.attrs) or \
            not all(same(a[v], b[v]) for v in a.variables):
        print("FAIL: %s differs through xarray" % name)
        bad += 1
    else:
        print("%s: %d variables identical" % (name, len(a.variables)))
    a.close()
    b.close()
sys.exit(1 if bad else 0)
