"""Print what a Python user sees of netCDF-4 files: py_describe.py's view of
every group (recursively), plus the user-defined types (compound, vlen, enum)
with their numpy dtypes, and xarray's view of each group.

usage: py_describe4.py FILE...

Run once on our library and once on the reference; the outputs must match.
"""
import os
import sys
import warnings

import netCDF4

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import py_describe as pd  # noqa: E402

warnings.simplefilter("ignore")


def describe_types(grp):
    for name, t in grp.cmptypes.items():
        print(" compound %s dtype=%s" % (name, t.dtype.descr))
    for name, t in grp.vltypes.items():
        print(" vlen %s dtype=%s" % (name, t.dtype))
    for name, t in grp.enumtypes.items():
        print(" enum %s dtype=%s members=%s" % (name, t.dtype.str, sorted(t.enum_dict.items())))


def describe_var_nostride(var):
    print(" variable %s" % var.name)
    print("  dtype %s shape=%s dims=%s" % (var.dtype, var.shape, var.dimensions))
    for what in ("chunking", "endian", "filters", "get_var_chunk_cache", "ncattrs"):
        fn = getattr(var, what, None)
        if fn is not None:
            pd.attempt(what, fn)
    pd.describe_attrs("  ", var)
    pd.attempt("data masked", lambda: var[...])
    var.set_auto_maskandscale(False)
    pd.attempt("data raw", lambda: var[...])
    var.set_auto_maskandscale(True)


def describe_group(grp):
    print(" group %s" % grp.path)
    describe_types(grp)
    for name, dim in grp.dimensions.items():
        print(" dim %s size=%d unlimited=%s" % (name, len(dim), dim.isunlimited()))
    pd.describe_attrs(" group ", grp)
    for var in grp.variables.values():
        if var.dtype == str or getattr(var, "_isvlen", False):
            # netCDF4-python allows strided reads of vlen and string
            # variables only from library version 4.9.1 on: the answer
            # depends on the version number, not on the library.
            describe_var_nostride(var)
        else:
            pd.describe_var(var)
        print("  datatype %s" % (var.datatype.name if hasattr(var.datatype, "name") else var.datatype))
    for sub in grp.groups.values():
        describe_group(sub)


def describe_xarray_groups(path, grp, prefix=""):
    if pd.xr is None:
        return
    for name, sub in grp.groups.items():
        gpath = prefix + "/" + name
        try:
            ds = pd.xr.open_dataset(path, engine="netcdf4", group=gpath)
        except Exception as exc:  # noqa: BLE001
            print(" xarray group %s -> %s: %s" % (gpath, type(exc).__name__, exc))
            continue
        with ds:
            print(" xarray group %s dims %s" % (gpath, dict(sorted(ds.sizes.items()))))
            for vname in sorted(ds.variables):
                print("  %s %s" % (vname, pd.show(ds.variables[vname].values)))
        describe_xarray_groups(path, sub, gpath)


def main(paths):
    print("libversion", netCDF4.__netcdf4libversion__, file=sys.stderr)
    for path in paths:
        print("file %s" % os.path.basename(path))
        try:
            with netCDF4.Dataset(path) as ds:
                print(" data_model %s disk_format %s" % (ds.data_model, ds.disk_format))
                describe_group(ds)
                describe_xarray_groups(path, ds)
        except Exception as exc:  # noqa: BLE001
            print(" open -> %s: %s" % (type(exc).__name__, exc))
            continue
        pd.describe_xarray(path)


if __name__ == "__main__":
    main(sys.argv[1:])
