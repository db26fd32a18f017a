"""Print what a Python user sees of netCDF files, through netCDF4 and xarray.

usage: py_describe.py FILE...

Run once on our library and once on the reference (same files, same
interpreter); the two outputs must be identical.  Everything a user can
observe goes in: numpy dtypes and their byte order, masks and fill values,
attribute value types, chunking/endian/filter inquiries, the errors they
raise, and xarray's decoded values and encoding.  Paths are printed by
basename so the two runs can live in different directories.
"""
import os
import sys
import warnings

import numpy as np
import netCDF4

try:
    import xarray as xr
except ImportError:          # xarray is optional; the netCDF4 view still runs
    xr = None

warnings.simplefilter("ignore")


def show(value):
    """A stable text form of any value a Python user gets back."""
    if isinstance(value, np.ma.MaskedArray):
        return "masked(dtype=%s, data=%r, mask=%r, fill=%r)" % (
            value.dtype.str, value.data.tolist(), np.ma.getmaskarray(value).tolist(),
            value.fill_value.item() if np.ndim(value.fill_value) == 0 else value.fill_value)
    if isinstance(value, np.ndarray):
        return "ndarray(dtype=%s, shape=%s, %r)" % (value.dtype.str, value.shape, value.tolist())
    if isinstance(value, np.generic):
        return "%s(%r)" % (value.dtype.str, value.item())
    return "%s(%r)" % (type(value).__name__, value)


def attempt(label, fn):
    """Call fn and print its result or the exception a user would see."""
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001 -- the exception itself is the output
        print("  %s -> %s: %s" % (label, type(exc).__name__, exc))
        return None
    print("  %s -> %s" % (label, show(result)))
    return result


def describe_attrs(prefix, obj):
    for name in obj.ncattrs():
        attempt("%sattr %s" % (prefix, name), lambda n=name: obj.getncattr(n))


def describe_var(var):
    print(" variable %s" % var.name)
    print("  dtype %s native=%s datatype=%s shape=%s dims=%s" % (
        var.dtype.str if hasattr(var.dtype, "str") else var.dtype,
        getattr(var.dtype, "isnative", None), var.datatype, var.shape, var.dimensions))
    for what in ("chunking", "endian", "filters", "quantization", "get_var_chunk_cache",
                 "get_dims", "ncattrs"):
        fn = getattr(var, what, None)
        if fn is not None:
            attempt(what, lambda f=fn: [d.name for d in f()] if what == "get_dims" else f())
    describe_attrs("  ", var)
    attempt("data masked", lambda: var[...])
    var.set_auto_maskandscale(False)
    attempt("data raw", lambda: var[...])
    var.set_auto_maskandscale(True)
    if var.ndim > 0 and var.shape[0] > 1:
        attempt("stride read", lambda: var[::2])


def describe_netcdf4(path):
    with netCDF4.Dataset(path) as ds:
        print(" data_model %s file_format %s disk_format %s" % (
            ds.data_model, ds.file_format, ds.disk_format))
        print(" groups %s" % list(ds.groups))
        for name, dim in ds.dimensions.items():
            print(" dim %s size=%d unlimited=%s" % (name, len(dim), dim.isunlimited()))
        describe_attrs(" global ", ds)
        attempt(" ncattrs", ds.ncattrs)
        for var in ds.variables.values():
            describe_var(var)


def describe_xarray(path):
    if xr is None:
        return
    try:
        ds = xr.open_dataset(path, engine="netcdf4")
    except Exception as exc:  # noqa: BLE001
        print(" xarray open -> %s: %s" % (type(exc).__name__, exc))
        return
    with ds:
        print(" xarray dims %s" % dict(sorted(ds.sizes.items())))
        for name in sorted(ds.variables):
            var = ds.variables[name]
            enc = {k: v for k, v in var.encoding.items() if k != "source"}
            print(" xarray %s dtype=%s encoding=%s" % (name, var.dtype.str, sorted(
                (k, show(v)) for k, v in enc.items())))
            print("  values %s" % show(var.values))
            print("  attrs %s" % sorted((k, show(v)) for k, v in var.attrs.items()))
        print(" xarray global attrs %s" % sorted((k, show(v)) for k, v in ds.attrs.items()))


def main(paths):
    # to stderr: the caller checks which library ran; stdout must not differ by it
    print("libversion", netCDF4.__netcdf4libversion__, file=sys.stderr)
    for path in paths:
        print("file %s" % os.path.basename(path))
        try:
            describe_netcdf4(path)
        except Exception as exc:  # noqa: BLE001
            print(" open -> %s: %s" % (type(exc).__name__, exc))
            continue
        describe_xarray(path)


if __name__ == "__main__":
    main(sys.argv[1:])
