#!/usr/bin/env python3
"""bench_remote.py LIBDIR FILE [REPEAT]: time a whole-file read of every
variable of a classic FILE through our library (ctypes, nc_get_var), from
the local path and over rangeserver.py by #mode=bytes, with the server's
request and connection counts.  Prints one line per run; not part of CTest (a measurement)."""
import contextlib
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
libdir, path = sys.argv[1], os.path.abspath(sys.argv[2])
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
nc = ctypes.CDLL(os.path.join(libdir, "libnetcdf.so"))


def read_all(target):
    ncid, nv = ctypes.c_int(), ctypes.c_int()
    s = nc.nc_open(target.encode(), 0, ctypes.byref(ncid))
    if s:
        raise RuntimeError("nc_open %s: %d" % (target, s))
    nc.nc_inq_nvars(ncid, ctypes.byref(nv))
    total = 0
    for v in range(nv.value):
        nd, xt = ctypes.c_int(), ctypes.c_int()
        dims = (ctypes.c_int * 1024)()
        nc.nc_inq_var(ncid, v, None, ctypes.byref(xt), ctypes.byref(nd), dims, None)
        n = 1
        for d in range(nd.value):
            ln = ctypes.c_size_t()
            nc.nc_inq_dimlen(ncid, dims[d], ctypes.byref(ln))
            n *= ln.value
        sz = ctypes.c_size_t()
        nc.nc_inq_type(ncid, xt, None, ctypes.byref(sz))
        buf = ctypes.create_string_buffer(max(n * sz.value, 1))
        s = nc.nc_get_var(ncid, v, buf)
        if s:
            raise RuntimeError("nc_get_var: %d" % s)
        total += n * sz.value
    nc.nc_close(ncid)
    return total


@contextlib.contextmanager
def server(data):
    work = tempfile.mkdtemp()
    portfile = os.path.join(work, "port")
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "rangeserver.py"), "--data", data,
                             "--portfile", portfile, "--lifetime", "600"])
    try:
        while not os.path.exists(portfile):
            time.sleep(0.05)
        yield int(open(portfile).read())
    finally:
        proc.terminate()
        proc.wait()


with server(os.path.dirname(path)) as port:
    url = "http://127.0.0.1:%d/%s#mode=bytes" % (port, os.path.basename(path))
    for i in range(repeat):
        for name, target in (("local", path), ("remote", url)):
            urllib.request.urlopen("http://127.0.0.1:%d/_reset" % port).read()
            t = time.perf_counter()
            n = read_all(target)
            dt = time.perf_counter() - t
            st = json.loads(urllib.request.urlopen("http://127.0.0.1:%d/_stats" % port).read())
            print("%-6s %6.1f MiB in %.3f s (%.0f MiB/s), %d requests, %d connections"
                  % (name, n / 2**20, dt, n / 2**20 / dt, st["requests"], st["connections"] - 1))
