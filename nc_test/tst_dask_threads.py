"""tst_dask_threads.py: xarray with dask's threaded scheduler and lock=False
on this library (docs/threads.md): several threads read chunks of the same
and of different variables through netCDF4-python's shared handle at once.
The values must equal a serial (synchronous) run and the data written.
Files: classic (CDF-2), netCDF-4 contiguous and netCDF-4 deflated chunks.
usage: tst_dask_threads.py WORKDIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nctst  # noqa: E402

try:
    import numpy as np
    import netCDF4
    import xarray as xr
    import dask
except ImportError as e:
    nctst.skip("missing python module: %s" % e)

work = sys.argv[1]
lib = netCDF4.getlibversion()
if not lib.startswith("4.10"):
    print("FAIL: netCDF4-python runs on %s, not this library" % lib)
    sys.exit(1)
NT, NY, NX = 24, 60, 90


def expected(k):
    i = np.arange(NT * NY * NX, dtype=np.float64).reshape(NT, NY, NX)
    return (np.sin(i * 0.001 * (k + 1)) * 100 + k).astype(np.float32)


kinds = {"classic": ("NETCDF3_64BIT_OFFSET", {}),
         "nc4": ("NETCDF4", {}),
         "nc4z": ("NETCDF4", {"zlib": True, "complevel": 1, "shuffle": True,
                              "chunksizes": (4, NY, NX)})}
for tag, (fmt, opts) in kinds.items():
    path = os.path.join(work, "dask_%s.nc" % tag)
    with netCDF4.Dataset(path, "w", format=fmt) as ds:
        ds.createDimension("t", NT)
        ds.createDimension("y", NY)
        ds.createDimension("x", NX)
        for k in range(4):
            v = ds.createVariable("v%d" % k, "f4", ("t", "y", "x"), **opts)
            v[:] = expected(k)
    with xr.open_dataset(path, engine="netcdf4", chunks={"t": 3, "y": 30},
                         lock=False, mask_and_scale=False) as ds:
        with dask.config.set(scheduler="threads", num_workers=4):
            par = {k: ds[k].data.compute() for k in ds.data_vars}
            both = dask.compute(*[ds[k].data for k in sorted(ds.data_vars)])
            sums = dask.compute(*[(ds[k] * 2).sum() for k in sorted(ds.data_vars)])
        with dask.config.set(scheduler="synchronous"):
            ser = {k: ds[k].data.compute() for k in ds.data_vars}
            sums_ser = dask.compute(*[(ds[k] * 2).sum() for k in sorted(ds.data_vars)])
    for k in range(4):
        name = "v%d" % k
        nctst.check(np.array_equal(par[name], expected(k)),
                    "%s %s: threaded read differs from the data written" % (tag, name))
        nctst.check(np.array_equal(par[name], ser[name]),
                    "%s %s: threaded read differs from the serial read" % (tag, name))
        nctst.check(np.array_equal(both[k], expected(k)),
                    "%s %s: four variables at once differ" % (tag, name))
        nctst.check(float(sums[k]) == float(sums_ser[k]),
                    "%s %s: threaded sum %r, serial %r" % (tag, name, float(sums[k]),
                                                          float(sums_ser[k])))
nctst.finish("tst_dask_threads")
