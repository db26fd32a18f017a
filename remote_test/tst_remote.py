#!/usr/bin/env python3
"""tst_remote.py: classic files read over HTTP byte ranges (#mode=bytes)
through the remote reader, against the loopback rangeserver.py.

    tst_remote.py NCDUMP NCGEN LIBDIR WORKDIR

Classic CDF-1, CDF-2 and CDF-5 files with records and every classic type,
written by the reference ncgen and by ours, must dump over the URL exactly
as the local file dumps (ours and the reference's), and read the same
values through the C API.  Request counts are asserted (the server counts
them); server faults (a dropped connection, a 500 once, a short body, a
file changed between requests, no Range support, 404) and files this build
cannot read remotely give clean results.  netCDF-4 files: tst_remote4.py.  The server stops when the test
ends, even on failure, and after a bounded lifetime in any case.
"""
import ctypes
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
import nctst  # noqa: E402
import rtest  # noqa: E402

NCDUMP, NCGEN, LIBDIR, WORK = sys.argv[1:5]
REF_NCDUMP, REF_NCGEN = "/usr/bin/ncdump", "/usr/bin/ncgen"
BLOCK = 65536  # small blocks: a few-MiB file spans many of them

CDL = """netcdf %(name)s {
dimensions:
  rec = UNLIMITED ; x = %(nx)d ; s = 4 ;
variables:
  byte b(rec, x) ; char c(rec, s) ; short sh(rec, x) ; int i(rec) ;
  float f(rec, x) ; double d(x) ;
  %(cdf5vars)s
  f:units = "m s-1" ; f:valid_range = -1.f, 1.e6f ;
  d:note = "fixed" ;
  :title = "remote read" ; :n = 1, 2, 3 ;
data:
  b = %(b)s ; c = %(c)s ; sh = %(sh)s ; i = %(i)s ;
  f = %(f)s ; d = %(d)s ;
  %(cdf5data)s
}
"""


def make_cdl(name, nrec, nx, cdf5):
    def seq(n, fmt):
        return ", ".join(fmt(k) for k in range(n))
    v = {"name": name, "nx": nx,
         "b": seq(nrec * nx, lambda k: str(k % 256 - 128)),
         "c": ", ".join('"r%02d"' % (k % 100) for k in range(nrec)),
         "sh": seq(nrec * nx, lambda k: str(k % 65536 - 32768)),
         "i": seq(nrec, lambda k: str(k * 100003 - 7)),
         "f": seq(nrec * nx, lambda k: "%g" % (k * 0.25 - 3)),
         "d": seq(nx, lambda k: "%.17g" % (k / 7.0)),
         "cdf5vars": "", "cdf5data": ""}
    if cdf5:
        v["cdf5vars"] = ("ubyte ub(x) ; ushort us(x) ; uint ui(x) ; int64 i64(x) ; "
                         "uint64 u64(x) ;")
        v["cdf5data"] = ("ub = %s ; us = %s ; ui = %s ; i64 = %s ; u64 = %s ;" % (
            seq(nx, lambda k: str(k % 256)), seq(nx, lambda k: str(k * 3 % 65536)),
            seq(nx, lambda k: str(k * 4000000007 % 4294967296)),
            seq(nx, lambda k: str(k * -9000000000007)),
            seq(nx, lambda k: str(k * 18000000000007 % 18446744073709551616))))
    return CDL % v


def server(data, lifetime=240):
    return rtest.server(data, WORK, lifetime)


control = rtest.control


def env(**kw):
    e = dict(os.environ)
    e["LD_LIBRARY_PATH"] = LIBDIR + ":" + e.get("LD_LIBRARY_PATH", "")
    e["NETCDF_BYTERANGE_BLOCKSIZE"] = str(BLOCK)
    e.update({k: str(v) for k, v in kw.items()})
    return e


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, env=env(**kw), timeout=120)


def dump(tool, target, *opts, **kw):
    r = run([tool] + list(opts) + [target], **kw)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def main():
    if not (os.access(REF_NCGEN, os.X_OK) and os.access(REF_NCDUMP, os.X_OK)):
        nctst.skip("reference ncgen/ncdump missing")
    shutil.rmtree(WORK, ignore_errors=True)
    data = os.path.join(WORK, "data")
    os.makedirs(data)
    files = []
    for kind, k, cdf5 in (("cdf1", "nc3", False), ("cdf2", "nc6", False), ("cdf5", "nc5", True)):
        for gen, tool in (("ref", REF_NCGEN), ("our", NCGEN)):
            name = "%s_%s" % (kind, gen)
            cdl = os.path.join(WORK, name + ".cdl")
            with open(cdl, "w") as f:
                f.write(make_cdl(name, 7, 9, cdf5))
            r = run([tool, "-k", k, "-o", os.path.join(data, name + ".nc"), cdl])
            if nctst.check(r.returncode == 0, "%s -k %s: %s" % (tool, k, r.stderr)):
                files.append(name)
    # A file of many blocks (about 3 MiB: 300 records of 2500 floats and shorts).
    big = "big_our"
    with open(os.path.join(WORK, big + ".cdl"), "w") as f:
        f.write(make_cdl(big, 300, 2500, False))
    r = run([NCGEN, "-k", "nc6", "-o", os.path.join(data, big + ".nc"), os.path.join(WORK, big + ".cdl")])
    nctst.check(r.returncode == 0, "ncgen big: %s" % r.stderr)
    files.append(big)
    # A netCDF-4 file (remote_nc4 tests them in depth).
    r = run([REF_NCGEN, "-k", "nc4", "-o", os.path.join(data, "h5.nc"), os.path.join(WORK, "cdf1_ref.cdl")])
    nctst.check(r.returncode == 0, "ncgen nc4")

    ourlib = os.path.join(LIBDIR, "libnetcdf.so")
    asan = b"libasan" in subprocess.run(["ldd", ourlib], capture_output=True).stdout

    with server(data) as port:
        base = "http://127.0.0.1:%d" % port

        def url(name, modes=None):
            pre = "/m/%s" % modes if modes else ""
            return "%s%s/%s.nc#mode=bytes" % (base, pre, name)

        # Dumps over the URL equal the local dumps (ours and the reference's).
        for name in files:
            local = os.path.join(data, name + ".nc")
            _, ref_out, _ = dump(REF_NCDUMP, local)
            _, our_local, _ = dump(NCDUMP, local)
            control(port, "reset")
            rc, remote, err = dump(NCDUMP, url(name))
            st = control(port, "stats")
            nctst.check(rc == 0, "%s over URL: %s" % (name, err))
            nctst.check(remote == our_local, "%s: remote dump differs from our local dump" % name)
            nctst.check(remote == ref_out, "%s: remote dump differs from the reference's" % name)
            size = os.path.getsize(local)
            nctst.check(st["requests"] <= size // BLOCK + 3,
                        "%s: whole-file dump in %d requests (size %d, block %d)"
                        % (name, st["requests"], size, BLOCK))
            # Connections stay open across requests and batches: at most one
            # per concurrent request (4), plus the one asking for the counts.
            nctst.check(st["connections"] <= 5, "%s: whole-file dump on %d connections"
                        % (name, st["connections"] - 1))
            control(port, "reset")
            rc, head, err = dump(NCDUMP, url(name), "-h")
            st = control(port, "stats")
            nctst.check(rc == 0 and head == dump(NCDUMP, local, "-h")[1], "%s -h: %s" % (name, err))
            nctst.check(st["requests"] <= 2, "%s: ncdump -h in %d requests" % (name, st["requests"]))

        # Values through netCDF4-python on our library: remote == local.
        if not asan:
            libs = os.path.join(WORK, "lib")
            os.makedirs(libs, exist_ok=True)
            link = os.path.join(libs, "libnetcdf.so.19")
            if not os.path.lexists(link):
                os.symlink(os.path.join(LIBDIR, "libnetcdf.so.22"), link)
            r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "py_values.py"), data,
                                base] + files, capture_output=True, timeout=120,
                               env=env(LD_LIBRARY_PATH=libs))
            out = r.stdout.decode()
            if b"No module named" in r.stderr:
                print("netCDF4-python missing: values not compared")
            else:
                nctst.check(r.returncode == 0 and "libversion 4.10.1" in out,
                            "netCDF4-python values: %s %s" % (out, r.stderr.decode()[-2000:]))
            nc = ctypes.CDLL(ourlib)
            # NC_WRITE over a URL: read-only.
            ncid = ctypes.c_int()
            nctst.check(nc.nc_open(url("cdf1_ref").encode(), 1, ctypes.byref(ncid)) == -37,
                        "NC_WRITE over a URL is NC_EPERM")

        # Settings: a cache of two blocks (evictions on every read), one
        # connection, and the block size from a .ncrc key scoped to the server.
        _, want, _ = dump(NCDUMP, os.path.join(data, big + ".nc"))
        rc, out, err = dump(NCDUMP, url(big), NETCDF_BYTERANGE_CACHESIZE=2 * BLOCK,
                            NETCDF_BYTERANGE_CONNECTIONS=1)
        nctst.check(rc == 0 and out == want, "two-block cache: rc %d %s" % (rc, err.strip()))
        home = os.path.join(WORK, "home")
        os.makedirs(home, exist_ok=True)
        with open(os.path.join(home, ".ncrc"), "w") as f:
            f.write("[127.0.0.1:%d]HTTP.BYTERANGE.BLOCKSIZE=8k\n" % port)
        control(port, "reset")
        e = env(NCRCENV_HOME=home)
        del e["NETCDF_BYTERANGE_BLOCKSIZE"]
        r = subprocess.run([NCDUMP, "-h", url("cdf1_ref")], capture_output=True, env=e, timeout=60)
        st = control(port, "stats")
        nctst.check(r.returncode == 0 and st["ranges"][:1] == ["bytes=0-8191"],
                    ".ncrc block size: %s" % st["ranges"][:2])

        # Faults: retried to success, or a clean error.
        _, want, _ = dump(NCDUMP, os.path.join(data, big + ".nc"))
        for modes in ("close", "fail500", "slow", "norange", "close+fail500"):
            control(port, "reset")
            rc, out, err = dump(NCDUMP, url(big, modes))
            nctst.check(rc == 0 and out == want, "mode %s: rc %d %s" % (modes, rc, err.strip()))
        for modes, what in (("short", "I/O failure"), ("changed", "I/O failure")):
            control(port, "reset")
            rc, out, err = dump(NCDUMP, url(big, modes))
            nctst.check(rc == 1 and what in err, "mode %s: rc %d %s" % (modes, rc, err.strip()))
        rc, out, err = dump(NCDUMP, url("nosuchfile"))
        nctst.check(rc == 1 and "No such file" in err or "not found" in err.lower(),
                    "404: rc %d %s" % (rc, err.strip()))
        rc, out, err = dump(NCDUMP, url("h5"))
        rc0, local_h5, _ = dump(NCDUMP, os.path.join(data, "h5.nc"))
        if rc0 == 0:
            nctst.check(rc == 0 and out == local_h5, "netCDF-4 over bytes: rc %d %s" % (rc, err.strip()))
        else:  # a build without HDF5
            nctst.check(rc == 1 and "not turned on" in err, "netCDF-4 over bytes without HDF5: rc %d %s"
                        % (rc, err.strip()))
        # The counters through the log level (stderr of a child process).
        if not asan:
            code = ("import ctypes,sys; nc=ctypes.CDLL(sys.argv[1]); nc.nc_set_log_level(1); "
                    "i=ctypes.c_int(); s=nc.nc_open(sys.argv[2].encode(),0,ctypes.byref(i)); "
                    "nc.nc_close(i); sys.exit(s)")
            r = run([sys.executable, "-c", code, ourlib, url("cdf1_ref")])
            err = r.stderr.decode()
            nctst.check(r.returncode == 0 and "1 requests" in err and "bytes" in err,
                        "counters logged: %s" % err)

    nctst.finish("tst_remote")


if __name__ == "__main__":
    main()
