#!/usr/bin/env python3
"""tst_remote_threads.py: threads sharing one remote handle.

    tst_remote_threads.py TST_SHARE_READ NCGEN NCKERCHUNK|- WORKDIR

A netCDF-4 file (chunked and deflated variables, a contiguous and a
compact one, a string variable, a group, attributes) and a CDF-5 file of
the same numbers, made with ncgen, are served by the loopback
rangeserver.py; tst_share_read (nc_test/) reads each from 6 threads
through one handle of its #mode=bytes URL and, when
nckerchunk is given, through one handle of a reference store
(#mode=zarr,reference) whose chunks are ranges of that URL, every value
against a serial read.  Small blocks in a small cache (16 KiB, 128 KiB)
make the threads' reads fetch, fill and evict the block cache at once.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
import nctst  # noqa: E402
import rtest  # noqa: E402

CDL = r"""netcdf f {
dimensions:
    x = 3000 ;
    y = 40 ;
    x2 = 120 ;
    t = UNLIMITED ;
variables:
    int a(x) ;
        a:_ChunkSizes = 256 ;
        a:_DeflateLevel = 1 ;
        a:units = "m" ;
        a:valid = 0, 100000 ;
    float c(y, x2) ;
        c:_ChunkSizes = 8, 30 ;
        c:_DeflateLevel = 2 ;
        c:_Shuffle = "true" ;
        c:scale = 0.5 ;
    double d(x) ;
        d:_Storage = "contiguous" ;
    short s(y, x2) ;
        s:_ChunkSizes = 40, 7 ;
    int r(t, y) ;
        r:_ChunkSizes = 3, 40 ;
        r:_DeflateLevel = 1 ;
    byte k(y) ;
        k:_Storage = "compact" ;
    string str(y) ;
:title = "threads on one remote handle" ;
:n = 1, 2, 3 ;
group: g {
  variables:
    double gv(x2) ;
        gv:_ChunkSizes = 16 ;
        gv:_DeflateLevel = 4 ;
        gv:note = "in a group" ;
  }
}
"""


def data_section():
    a = ", ".join(str(i * 7 % 100003) for i in range(3000))
    c = ", ".join("%g" % ((j * 120 + i) * 0.25 - 300) for j in range(40) for i in range(120))
    d = ", ".join("%r" % (i / 3.0) for i in range(3000))
    s = ", ".join(str((j * 131 + i * 17) % 32000 - 16000) for j in range(40) for i in range(120))
    r = ", ".join(str(t * 1000 + j) for t in range(9) for j in range(40))
    k = ", ".join(str(j - 20) for j in range(40))
    st = ", ".join('"s%d%s"' % (j, "x" * (j % 7)) for j in range(40))
    gv = ", ".join("%r" % (i * 1.5) for i in range(120))
    body = CDL.rstrip().rstrip("}")
    head, _, grp = body.partition("group: g {")
    return (head + "data:\n a = %s ;\n c = %s ;\n d = %s ;\n s = %s ;\n r = %s ;\n k = %s ;\n"
            " str = %s ;\n\ngroup: g {%s\n  data:\n   gv = %s ;\n  }\n}\n"
            % (a, c, d, s, r, k, st, grp.rstrip().rstrip("}"), gv))


def classic_cdl(text):
    """The same data as a CDF-5 file: no storage settings, strings or group."""
    text = re.sub(r"\n\s*\w+:_(ChunkSizes|DeflateLevel|Shuffle|Storage) = [^;]*;", "", text)
    text = re.sub(r"\n\s*string str\(y\) ;", "", text)
    text = re.sub(r"\n str = [^;]*;", "", text)
    return text[:text.index("group: g {")].rstrip() + "\n}\n"


def main():
    prog, ncgen, kerchunk, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    data = os.path.join(work, "data")
    os.makedirs(data)
    cdl = os.path.join(work, "f.cdl")
    with open(cdl, "w") as f:
        f.write(data_section())
    src = os.path.join(data, "f.nc")
    r = subprocess.run([ncgen, "-k", "nc4", "-o", src, cdl], capture_output=True)
    if r.returncode != 0:
        print(r.stderr.decode()[-500:])
        nctst.check(False, "ncgen")
        nctst.finish("tst_remote_threads")
    cdl5 = os.path.join(work, "f5.cdl")
    with open(cdl5, "w") as f:
        f.write(classic_cdl(data_section()))
    r = subprocess.run([ncgen, "-k", "nc5", "-o", os.path.join(data, "f5.nc"), cdl5], capture_output=True)
    nctst.check(r.returncode == 0, "ncgen -k nc5: %s" % r.stderr.decode()[-300:])
    env = dict(os.environ, NETCDF_BYTERANGE_BLOCKSIZE="16k", NETCDF_BYTERANGE_CACHESIZE="128k")
    with rtest.server(data, work) as port:
        urls = ["http://127.0.0.1:%d/f.nc#mode=bytes" % port,
                "http://127.0.0.1:%d/f5.nc#mode=bytes" % port]
        if kerchunk != "-":
            ref = os.path.join(data, "f.json")
            r = subprocess.run([kerchunk, "-u", "http://127.0.0.1:%d/f.nc" % port, src, ref],
                               capture_output=True)
            nctst.check(r.returncode == 0, "nckerchunk: %s" % r.stderr.decode()[-300:])
            urls.append("http://127.0.0.1:%d/f.json#mode=zarr,reference" % port)
        for url in urls:
            r = subprocess.run([prog, "-t", "6", "-r", "3", "-s", "0.5", url], capture_output=True,
                               env=env, timeout=240)
            out = r.stdout.decode() + r.stderr.decode()
            print(out.strip())
            nctst.check(r.returncode == 0, "%s: exit %d" % (url, r.returncode))
    nctst.finish("tst_remote_threads")


main()
