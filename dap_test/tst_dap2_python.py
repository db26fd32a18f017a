#!/usr/bin/env python3
"""tst_dap2_python.py: netCDF4-python (built for upstream's libnetcdf.so.19)
reads DAP2 datasets through file:// URLs on our library and on the
reference library; what it sees must be the same.

    tst_dap2_python.py LIBDIR DATADIR WORKDIR

Each run is a child python (LD_LIBRARY_PATH pointing libnetcdf.so.19 at ours,
or the system's); the child prints the library version, then for each
dataset its dimensions, variables (type, dimensions, attributes) and the
values of every variable.  Exit 77 when netCDF4-python is missing or the
library is built with sanitizers.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
import nctst  # noqa: E402

SAMPLE = ["test.01", "test.03", "test.07", "synth3", "123bears.nc", "kwcase.nc", "fnoc1.nc",
          "NestedSeq", "Drifters", "ingrid"]


def child(data):
    import warnings
    import netCDF4
    import numpy as np
    warnings.simplefilter("ignore")
    print("libversion", netCDF4.getlibversion().split()[0])
    for n in SAMPLE:
        print("==", n)
        try:
            ds = netCDF4.Dataset("file://%s/%s" % (data, n))
        except Exception as e:  # the same failure on both libraries is fine
            print(" open failed", type(e).__name__)
            continue
        ds.set_auto_maskandscale(False)
        print(" format", ds.data_model, ds.disk_format)
        for name, d in ds.dimensions.items():
            print(" dim", name, len(d), d.isunlimited())
        for a in ds.ncattrs():
            print(" gatt", a, repr(ds.getncattr(a)))
        for name, v in ds.variables.items():
            print(" var", name, v.dtype, v.dimensions)
            for a in v.ncattrs():
                print("  att", a, repr(v.getncattr(a)))
            try:
                vals = v[...]
                print("  data", np.asarray(vals).tolist())
            except Exception as e:
                print("  read failed", type(e).__name__)
        ds.close()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    libdir, data, work = sys.argv[1:4]
    py = "/usr/bin/python3"  # Debian's python3-netcdf4
    if subprocess.run([py, "-c", "import netCDF4"], capture_output=True).returncode != 0:
        nctst.skip("python3-netcdf4 missing")
    so = os.path.abspath(os.path.join(libdir, "libnetcdf.so.22"))
    nctst.load_lib(so)  # skips when built with sanitizers
    lib = os.path.join(work, "lib")
    os.makedirs(lib, exist_ok=True)
    link = os.path.join(lib, "libnetcdf.so.19")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(so, link)
    me = os.path.abspath(__file__)
    env = dict(os.environ, LD_LIBRARY_PATH=lib)
    ours = subprocess.run([py, me, "--child", data], env=env, capture_output=True,
                          text=True, timeout=300)
    ref = subprocess.run([py, me, "--child", data], capture_output=True, text=True,
                         timeout=300)
    if ours.returncode != 0 and "undefined symbol: H5" in ours.stderr:
        nctst.skip("netCDF4-python needs HDF5 through libnetcdf (a build without HDF5)")
    nctst.check(ours.returncode == 0, "our run failed: " + ours.stderr[-500:])
    nctst.check(ref.returncode == 0, "reference run failed: " + ref.stderr[-500:])
    o, r = ours.stdout.splitlines(), ref.stdout.splitlines()
    nctst.check(o and o[0].startswith("libversion 4.10.1"), "python did not load our library")
    nctst.check(r and not r[0].startswith("libversion 4.10.1"), "reference run loaded ours")
    o, r = o[1:], r[1:]
    nctst.check(len(o) > 20, "too little output")
    for i, (a, b) in enumerate(zip(o, r)):
        if not nctst.check(a == b, "line %d: ours %r, reference %r" % (i, a[:200], b[:200])):
            break
    nctst.check(len(o) == len(r), "%d lines, reference %d" % (len(o), len(r)))
    nctst.finish("tst_dap2_python")


if __name__ == "__main__":
    main()
