#!/usr/bin/env python3
"""py_values.py DATADIR URLBASE NAME...: netCDF4-python (on whichever
libnetcdf.so.19 the loader finds) reads every variable of DATADIR/NAME.nc
and of URLBASE/NAME.nc#mode=bytes; prints one line per mismatch and the
library version, exits 1 on any mismatch."""
import os
import sys

import netCDF4
import numpy as np

data, base = sys.argv[1:3]
bad = 0
print("libversion", netCDF4.getlibversion().split()[0])
for name in sys.argv[3:]:
    with netCDF4.Dataset(os.path.join(data, name + ".nc")) as a, \
            netCDF4.Dataset("%s/%s.nc#mode=bytes" % (base, name)) as b:
        a.set_auto_maskandscale(False)
        b.set_auto_maskandscale(False)
        if a.data_model != b.data_model or list(a.variables) != list(b.variables):
            print("FAIL: %s: model or variables differ" % name)
            bad += 1
            continue
        for v in a.variables:
            x, y = a.variables[v][:], b.variables[v][:]
            if x.dtype != y.dtype or not np.array_equal(x, y):
                print("FAIL: %s.%s differs" % (name, v))
                bad += 1
        print("%s: %d variables equal" % (name, len(a.variables)))
sys.exit(1 if bad else 0)
