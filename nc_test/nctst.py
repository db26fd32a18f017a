"""nctst.py: what the Python tests share (the Python side of nctst.h).

- check(cond, msg) counts a check and prints FAIL: msg when it fails;
  finish(name) prints "name: N passed, M failed" and exits 1 on any failure.
- skip(why) exits 77, which CTest reports as skipped (SKIP_RETURN_CODE 77):
  never a pass.
- system_python() runs the script again under Debian's /usr/bin/python3
  (where python3-netcdf4, numpy and xarray are) unless it already runs
  there; a skip when there is none.
- load_lib(path) loads libnetcdf with ctypes; a library built with
  sanitizers cannot be loaded into an uninstrumented python (their runtime
  must come first), so that is a skip.
- zarrita(work, mjs) installs zarrita from npm into work/npm once and puts
  the test's node script beside it; node(z, *args) runs that script and
  returns the JSON of its last output line.
- open_var(nc, url, name) opens url read-only with the library handle nc
  and finds variable name (closed on leaving the with block);
  read_var(nc, url, name) reads a whole variable as numpy (strings: a list).

A test puts this directory on sys.path:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
"""
import contextlib
import ctypes
import json
import os
import shutil
import subprocess
import sys

SKIP = 77
npass = 0
nfail = 0


def check(cond, msg):
    global npass, nfail
    if cond:
        npass += 1
    else:
        nfail += 1
        print("FAIL:", msg)
    return bool(cond)


def finish(name):
    print("%s: %d passed, %d failed" % (name, npass, nfail))
    sys.exit(1 if nfail or npass == 0 else 0)


def skip(why):
    print("%s: skipped" % why)
    sys.exit(SKIP)


SYSTEM_PY = "/usr/bin/python3"


def system_python():
    if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PY):
        if not os.path.exists(SYSTEM_PY):
            skip("no /usr/bin/python3")
        os.execv(SYSTEM_PY, [SYSTEM_PY] + sys.argv)


def load_lib(path):
    if b"libasan" in subprocess.run(["ldd", path], capture_output=True).stdout:
        skip("library built with sanitizers")
    return ctypes.CDLL(path)


def zarrita(work, mjs):
    """(npm directory, script name) with zarrita and a copy of mjs there, or
    None (the reason printed) when node/npm or the install is not there."""
    if not shutil.which("node") or not shutil.which("npm"):
        print("node/npm missing")
        return None
    npm = os.path.join(work, "npm")
    os.makedirs(npm, exist_ok=True)
    if not os.path.isdir(os.path.join(npm, "node_modules", "zarrita")):
        r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "zarrita@0.7", "@zarrita/storage"],
                           cwd=npm, capture_output=True, timeout=300)
        if r.returncode != 0 or not os.path.isdir(os.path.join(npm, "node_modules", "zarrita")):
            print("npm install zarrita failed")
            return None
    script = os.path.basename(mjs)
    shutil.copy(mjs, os.path.join(npm, script))
    return npm, script


def node(z, *args):
    npm, script = z
    r = subprocess.run(["node", script] + list(args), cwd=npm, capture_output=True, timeout=300)
    if r.returncode != 0:
        print(r.stderr.decode()[-2000:])
        return None
    return json.loads(r.stdout.decode().strip().splitlines()[-1])


# numpy dtypes of the netCDF numeric types; NC_STRING is read as a list.
NP_TYPES = {1: "i1", 2: "S1", 3: "i2", 4: "i4", 5: "f4", 6: "f8", 7: "u1", 8: "u2", 9: "u4", 10: "i8", 11: "u8"}
NC_STRING = 12


@contextlib.contextmanager
def open_var(nc, url, name):
    """(status, ncid, varid); ncid and varid are None when the open failed."""
    ncid, varid = ctypes.c_int(), ctypes.c_int()
    s = nc.nc_open(url.encode(), 0, ctypes.byref(ncid))
    if s:
        yield s, None, None
        return
    try:
        yield nc.nc_inq_varid(ncid, name.encode(), ctypes.byref(varid)), ncid, varid
    finally:
        nc.nc_close(ncid)


def read_var(nc, url, name):
    """(status, numpy array, or list of str for a string variable)."""
    import numpy as np
    with open_var(nc, url, name) as (s, ncid, varid):
        if s:
            return s, None
        xt, nd = ctypes.c_int(), ctypes.c_int()
        dimids = (ctypes.c_int * 1024)()
        nc.nc_inq_var(ncid, varid, None, ctypes.byref(xt), ctypes.byref(nd), dimids, None)
        shape = []
        for d in range(nd.value):
            ln = ctypes.c_size_t()
            nc.nc_inq_dimlen(ncid, dimids[d], ctypes.byref(ln))
            shape.append(ln.value)
        if xt.value == NC_STRING:
            n = int(np.prod(shape)) if shape else 1
            arr = (ctypes.c_char_p * max(n, 1))()
            s = nc.nc_get_var_string(ncid, varid, arr)
            if s:
                return s, None
            out = [arr[i].decode() if arr[i] is not None else None for i in range(n)]
            nc.nc_free_string(ctypes.c_size_t(n), arr)
            return 0, out
        a = np.zeros(shape, dtype=NP_TYPES[xt.value])
        return nc.nc_get_var(ncid, varid, a.ctypes.data_as(ctypes.c_void_p)), a
