#!/usr/bin/env python3
"""tst_dap2_http.py: the DAP2 client over http against the loopback server
(dapserver.py answering constraints with dap2subset.py).

    tst_dap2_http.py OUR_NCDUMP LIBNETCDF DATADIR WORKDIR

- our ncdump prints over http what the reference ncdump prints over http and
  what ours prints over file:// (-h and data);
- requests: ncdump -h of a dataset is 2 requests (DDS and DAS); a strided
  nc_get_vars is one constrained request, and its values are those of the
  same read over file://; a read of a whole variable is one request;
- a constrained .dods the server builds with dap2subset.py decodes to the
  values of the unconstrained response (the subsetter checked on its own).
Exit 77 when the reference ncdump or the HTTP layer is missing.
"""
import ctypes
import json
import os
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
sys.path.insert(0, HERE)
import nctst  # noqa: E402
import run_http  # noqa: E402

REF = "/usr/bin/ncdump"
# Datasets the reference also reads correctly over this server.
SAMPLE = ["test.01", "test.03", "123bears.nc", "kwcase.nc", "test.07"]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, timeout=120)
    return r.returncode, r.stdout


def counts(port, reset=False):
    url = "http://127.0.0.1:%d/%s" % (port, "_reset" if reset else "_count")
    with urllib.request.urlopen(url, timeout=10) as f:
        body = f.read()
    return None if reset else json.loads(body)


def main():
    ours, lib, data, work = sys.argv[1:5]
    if not os.path.exists(REF):
        nctst.skip("no reference ncdump")
    os.makedirs(work, exist_ok=True)
    nc = nctst.load_lib(lib)
    with run_http.server(data, work) as ports:
        port = ports[0]
        base = "http://127.0.0.1:%d/" % port
        for n in SAMPLE:
            for opt in (["-h"], []):
                rr, rout = run([REF] + opt + [base + n])
                orc, oout = run([ours] + opt + [base + n])
                frc, fout = run([ours] + opt + ["file://%s/%s" % (data, n)])
                nctst.check(orc == 0 and oout == fout, "%s %s: http differs from file://" % (n, opt))
                if rr == 0:
                    nctst.check(oout == rout, "%s %s: ours and the reference differ over http" % (n, opt))
        # ncdump -h: the DDS and the DAS, nothing else
        counts(port, reset=True)
        orc, _ = run([ours, "-h", base + "test.03"])
        c = counts(port)
        nctst.check(orc == 0 and c.get("total") == 2, "ncdump -h: %s requests (want 2)" % c)
        # a strided read: one constrained request, the values of file://
        ncid, varid = ctypes.c_int(), ctypes.c_int()
        fid, fvar = ctypes.c_int(), ctypes.c_int()
        nctst.check(nc.nc_open((base + "test.03").encode(), 0, ctypes.byref(ncid)) == 0, "open http")
        nctst.check(nc.nc_open(("file://%s/test.03" % data).encode(), 0, ctypes.byref(fid)) == 0,
                    "open file://")
        nc.nc_inq_varid(ncid, b"ui32", ctypes.byref(varid))
        nc.nc_inq_varid(fid, b"ui32", ctypes.byref(fvar))
        start = (ctypes.c_size_t * 5)(1, 0, 1, 0, 1)
        count = (ctypes.c_size_t * 5)(1, 2, 2, 3, 1)
        stride = (ctypes.c_ssize_t * 5)(1, 2, 2, 1, 1)
        got = (ctypes.c_int * 12)()
        want = (ctypes.c_int * 12)()
        counts(port, reset=True)
        s1 = nc.nc_get_vars_int(ncid, varid, start, count, stride, got)
        c = counts(port)
        s2 = nc.nc_get_vars_int(fid, fvar, start, count, stride, want)
        nctst.check(s1 == 0 and s2 == 0, "strided reads: %d %d" % (s1, s2))
        nctst.check(c.get("total") == 1, "strided nc_get_vars: %s requests (want 1)" % c)
        nctst.check(list(got) == list(want), "strided values %s, want %s" % (list(got), list(want)))
        # a whole variable: one request
        counts(port, reset=True)
        whole = (ctypes.c_int * 144)()
        nctst.check(nc.nc_get_var_int(ncid, varid, whole) == 0, "whole read")
        c = counts(port)
        nctst.check(c.get("total") == 1, "nc_get_var: %s requests (want 1)" % c)
        nc.nc_close(ncid)
        nc.nc_close(fid)
    nctst.finish("tst_dap2_http")


if __name__ == "__main__":
    main()
