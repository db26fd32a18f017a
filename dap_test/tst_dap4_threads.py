#!/usr/bin/env python3
"""tst_dap4_threads.py: threads sharing one DAP4 handle over http.

    tst_dap4_threads.py TST_SHARE_READ NCGEN WORKDIR

The loopback server (dapserver.py, dap4serve.py encoding the answers from
a netCDF-4 file made here with ncgen, 1 KiB chunks) serves a dataset of
scalars (fetched together on the first read of one), 1-D and 2-D
variables of several types, strings, an enum and a group.  tst_share_read
(nc_test/) reads it from 6 threads through one handle, every value
against a serial read: the plain URL (one request per slice, the slice
cache filled and evicted by the threads at once), with checksums, under
a constraint of strided slices (reads composed with it) and under one
with a slice list (the whole constrained response, decoded once).
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
import nctst  # noqa: E402

CDL = """netcdf th {
types:
  byte enum color {red = 1, green = 2, blue = 3} ;
dimensions:
    x = 400 ;
    y = 30 ;
    x2 = 70 ;
variables:
    int a(x) ;
        a:units = "m" ;
    float c(y, x2) ;
        c:scale = 0.5f ;
    double d(x) ;
    short s(y, x2) ;
    string str(y) ;
    color e(y) ;
    int sc1 ;
    double sc2 ;
    short sc3 ;
    char ch(y) ;
:title = "threads on one DAP4 handle" ;
:n = 1, 2, 3 ;
data:
"""


def data_cdl():
    a = ", ".join(str(i * 7 % 10007) for i in range(400))
    c = ", ".join("%g" % ((j * 70 + i) * 0.25 - 300) for j in range(30) for i in range(70))
    d = ", ".join("%r" % (i / 3.0) for i in range(400))
    s = ", ".join(str((j * 131 + i * 17) % 32000 - 16000) for j in range(30) for i in range(70))
    st = ", ".join('"s%d%s"' % (j, "x" * (j % 7)) for j in range(30))
    e = ", ".join(("red", "green", "blue")[j % 3] for j in range(30))
    ch = '"%s"' % "".join(chr(97 + j % 26) for j in range(30))
    grp = ("\ngroup: g {\n  dimensions:\n    z = 50 ;\n  variables:\n    double gv(z) ;\n"
           "        gv:note = \"in a group\" ;\n  data:\n   gv = %s ;\n  }\n"
           % ", ".join("%r" % (i * 1.5) for i in range(50)))
    return (CDL + " a = %s ;\n c = %s ;\n d = %s ;\n s = %s ;\n str = %s ;\n e = %s ;\n"
            " sc1 = 42 ;\n sc2 = 2.5 ;\n sc3 = -7 ;\n ch = %s ;\n%s}\n" % (a, c, d, s, st, e, ch, grp))


def main():
    prog, ncgen, work = sys.argv[1:4]
    nctst.system_python()
    try:
        import netCDF4  # noqa: F401
    except ImportError:
        nctst.skip("python3-netcdf4 missing (dap4serve.py encodes with it)")
    import run_http
    shutil.rmtree(work, ignore_errors=True)
    srv = os.path.join(work, "srv")
    os.makedirs(srv)
    cdl = os.path.join(work, "th.cdl")
    with open(cdl, "w") as f:
        f.write(data_cdl())
    r = subprocess.run([ncgen, "-k", "nc4", "-o", os.path.join(srv, "th.nc"), cdl], capture_output=True)
    if not nctst.check(r.returncode == 0, "ncgen: %s" % r.stderr.decode()[-300:]):
        nctst.finish("tst_dap4_threads")
    with run_http.server(srv, work) as (port, _login, _tls):
        base = "http://127.0.0.1:%d/th.nc" % port
        urls = [base + "#dap4",
                base + "?dap4.checksum=true#dap4",
                base + "?dap4.ce=/a[1:3:398];/c[2:2:29][0:69];/str;/e;/sc1;/g/gv[0:2:49]#dap4",
                base + "?dap4.ce=/a[0:1,5:2:399];/s;/d#dap4"]
        for url in urls:
            r = subprocess.run([prog, "-t", "6", "-r", "3", "-s", "0.3", url], capture_output=True,
                               timeout=240)
            print((r.stdout.decode() + r.stderr.decode()).strip())
            nctst.check(r.returncode == 0, "%s: exit %d" % (url, r.returncode))
    nctst.finish("tst_dap4_threads")


main()
