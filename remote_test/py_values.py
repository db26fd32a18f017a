#!/usr/bin/env python3
"""py_values.py DATADIR URLBASE NAME...: netCDF4-python (on whichever
libnetcdf.so.19 the loader finds) reads every variable and attribute of
every group of DATADIR/NAME.nc and of URLBASE/NAME.nc#mode=bytes; prints
one line per mismatch and the library version, exits 1 on any mismatch."""
import os
import sys

import netCDF4
import numpy as np


def same(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype == object:  # strings, variable-length sequences
        return all(same(p, q) if isinstance(p, np.ndarray) else p == q
                   for p, q in zip(x.flat, y.flat))
    return np.array_equal(x, y)


def groups(g):
    yield g
    for h in g.groups.values():
        yield from groups(h)


data, base = sys.argv[1:3]
bad = 0
print("libversion", netCDF4.getlibversion().split()[0])
for name in sys.argv[3:]:
    with netCDF4.Dataset(os.path.join(data, name + ".nc")) as a, \
            netCDF4.Dataset("%s/%s.nc#mode=bytes" % (base, name)) as b:
        a.set_auto_maskandscale(False)
        b.set_auto_maskandscale(False)
        if a.data_model != b.data_model:
            print("FAIL: %s: data model differs" % name)
            bad += 1
            continue
        n = 0
        for ga, gb in zip(groups(a), groups(b)):
            if ga.path != gb.path or list(ga.variables) != list(gb.variables) or \
                    ga.ncattrs() != gb.ncattrs():
                print("FAIL: %s%s: groups, variables or attributes differ" % (name, ga.path))
                bad += 1
                continue
            for k in ga.ncattrs():
                if not same(ga.getncattr(k), gb.getncattr(k)):
                    print("FAIL: %s%s:%s differs" % (name, ga.path, k))
                    bad += 1
            for v in ga.variables:
                va, vb = ga.variables[v], gb.variables[v]
                if not same(va[...], vb[...]) or va.ncattrs() != vb.ncattrs():
                    print("FAIL: %s%s/%s differs" % (name, ga.path, v))
                    bad += 1
                n += 1
        print("%s: %d variables equal" % (name, n))
sys.exit(1 if bad else 0)
