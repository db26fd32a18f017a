#!/usr/bin/env python3
"""tst_dap4_big.py: a DAP4 read larger than the slice cache (64 MiB) over
the loopback server (dapserver.py with dap4serve.py).

    tst_dap4_big.py TST_DAP4_BIG WORKDIR

Makes big.nc (float big(17, 1024, 1024): 71 MB, short s(100003), double
d(100003); the values tst_dap4_big.c checks) with netCDF4-python, then runs
tst_dap4_big on:
- the dataset (little-endian, 64 KiB chunks, checksums on): every value,
  and the read of big grows the peak RSS by less than half of its size;
- the same data big-endian in chunks of 1021 bytes (values split between
  chunks): every value;
- three faults in big's response (dap4serve's BASE.d4 options): the
  response cut at 60 % (NC_EDAP), a byte of big flipped under its checksum
  (NC_EDATADAP), an error chunk half-way (NC_EDAPSVC).
The data are made here and removed at the end.  Runs under /usr/bin/python3
(Debian's netCDF4-python and numpy); exit 77 when they are missing.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
sys.path.insert(0, HERE)
import nctst  # noqa: E402

NC_EDAP, NC_EDAPSVC, NC_EDATADAP = -66, -70, -73
SHAPE = (17, 1024, 1024)
N = 100003


def make(path):
    import netCDF4
    import numpy as np
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        for name, n in zip(("z", "y", "x"), SHAPE):
            ds.createDimension(name, n)
        ds.createDimension("n", N)
        i = np.arange(int(np.prod(SHAPE)), dtype=np.int64)
        ds.createVariable("big", "f4", ("z", "y", "x"))[:] = ((i * 7) % 65521).astype(np.float32).reshape(SHAPE)
        i = np.arange(N, dtype=np.int64)
        ds.createVariable("s", "i2", ("n",))[:] = ((i * 13) % 30011 - 15000).astype(np.int16)
        ds.createVariable("d", "f8", ("n",))[:] = i * 0.5 + 1e9


def main():
    exe, work = sys.argv[1:3]
    nctst.system_python()
    try:
        import netCDF4  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:
        nctst.skip("python3-netcdf4 or numpy missing")
    import run_http
    os.makedirs(work, exist_ok=True)
    srv = os.path.join(work, "srv")
    shutil.rmtree(srv, ignore_errors=True)
    os.makedirs(srv)
    try:
        make(os.path.join(srv, "big.nc"))
        cases = [("big", "chunk=65536", "ok"), ("bigbe", "big chunk=1021", "ok"),
                 ("trunc", "chunk=65536 trunc", NC_EDAP),
                 ("badcrc", "chunk=65536 badcrc", NC_EDATADAP),
                 ("errmid", "chunk=65536 errmid", NC_EDAPSVC)]
        for name, opts, _ in cases:
            if name != "big":
                os.symlink("big.nc", os.path.join(srv, name + ".nc"))
            open(os.path.join(srv, name + ".nc.d4"), "w").write(opts + "\n")
        with run_http.server(srv, work, lifetime=240) as (port, _login, _tls):
            for name, _opts, want in cases:
                url = "http://127.0.0.1:%d/%s.nc#dap4" % (port, name)
                r = subprocess.run([exe, url, str(want)], capture_output=True, text=True, timeout=200)
                nctst.check(r.returncode == 0, "%s (want %s): %s %s" % (name, want, r.stdout, r.stderr[-600:]))
                print(r.stdout.strip() or "%s: %s as expected" % (name, want))
    finally:
        shutil.rmtree(srv, ignore_errors=True)
    nctst.finish("tst_dap4_big")


if __name__ == "__main__":
    main()
