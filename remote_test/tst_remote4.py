#!/usr/bin/env python3
"""tst_remote4.py: netCDF-4/HDF5 files read over HTTP byte ranges
(#mode=bytes), against the loopback rangeserver.py.

    tst_remote4.py NCDUMP NCGEN LIBDIR WORKDIR

Files of every kind -- groups, user-defined types, strings, filters, the
classic model, written by the reference ncgen, by ours, by h5py (HDF5's
own layout: read through the remote HDF5 driver) and by xarray -- must dump
over the URL exactly as the local file dumps (ours, and the reference's for
the files netCDF wrote), the same with the native metadata reader off (HDF5
on the remote driver only), and read the same values through netCDF4-python
and xarray on our library.  Request counts are asserted: ncdump -h of a
20-variable file at most 3 requests with the default settings, a whole-file
dump at most size / block + 3.  Faults: dropped connections and a 500 are
retried to the right output; a short body and a file changed between
requests are clean errors, never other output.
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
PY = "/usr/bin/python3"
BLOCK = 65536

TYPES_CDL = """netcdf %(name)s {
types:
  compound cmp { int a ; double b ; char tag(3) ; } ;
  byte enum en { RED = 1, GREEN = 2, BLUE = -3 } ;
  int(*) vl ;
  opaque(4) op ;
dimensions:
  x = 5 ; t = UNLIMITED ;
variables:
  int x(x) ; x:units = "m" ;
  float v(t, x) ; v:_FillValue = -1.f ; v:valid_range = 0.f, 100.f ;
  string s(x) ; s:note = "strings", "two" ;
  cmp c(x) ; en e(x) ; vl l(x) ; op o(x) ;
  double big(t, x) ; big:_Storage = "chunked" ; big:_ChunkSizes = 1, 5 ;
    big:_DeflateLevel = 4 ; big:_Shuffle = "true" ; big:_Fletcher32 = "true" ;
  :title = "remote netCDF-4" ; :n = 1, 2, 3 ;
data:
  x = 1, 2, 3, 4, 5 ;
  v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ;
  s = "a", "bb", "", "dddd", "\u00e9t\u00e9" ;
  c = {1, 2.5, {"abc"}}, {2, 3.5, {"de"}}, {3, 4.5, {""}}, {4, 5.5, {"x"}}, {5, 6.5, {"yz"}} ;
  e = RED, GREEN, BLUE, GREEN, RED ;
  l = {1}, {1, 2}, {}, {3, 4, 5}, {6} ;
  o = 0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f10, 0x11121314 ;
  big = 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5 ;
group: sub {
  dimensions:
    y = 3 ;
  variables:
    double d(y) ; d:_Storage = "chunked" ; d:_ChunkSizes = 2 ; d:_DeflateLevel = 5 ;
    ushort u(y) ; int64 i64(y) ;
    :gatt = "in a group" ;
  data:
    d = 1.5, 2.5, 3.5 ; u = 1, 65535, 7 ; i64 = -9000000000000, 0, 9000000000000 ;
  group: deeper {
    variables: string z ; z:a = "deep" ;
    data: z = "zz" ;
  }
}
}
"""


def v20_cdl(name, n=20, nt=24, nx=1000):
    """20 chunked, deflated variables with attributes, about 1.5 MiB of data
    after the metadata."""
    lines = ["netcdf %s {" % name, "dimensions:", "  t = UNLIMITED ; x = %d ;" % nx,
             "variables:", "  double t(t) ; t:units = \"days since 2000-01-01\" ;"]
    for k in range(n):
        kind = ("float", "double", "int", "short")[k % 4]
        lines.append("  %s v%02d(t, x) ; v%02d:long_name = \"variable %d\" ; "
                     "v%02d:units = \"K\" ; v%02d:_DeflateLevel = 1 ; "
                     "v%02d:_ChunkSizes = 8, %d ;" % (kind, k, k, k, k, k, k, nx // 4))
    lines.append("  :title = \"twenty variables\" ; :history = \"tst_remote4\" ;")
    lines.append("data:")
    lines.append("  t = %s ;" % ", ".join(str(i) for i in range(nt)))
    for k in range(n):
        # Varied values (they compress, not to nothing).
        vals = ", ".join(str((i * 7919 + k * 31) % 30011 - 15000) for i in range(nt * nx))
        lines.append("  v%02d = %s ;" % (k, vals))
    lines.append("}")
    return "\n".join(lines) + "\n"


def env(**kw):
    e = dict(os.environ)
    e["LD_LIBRARY_PATH"] = LIBDIR + ":" + e.get("LD_LIBRARY_PATH", "")
    e["NETCDF_BYTERANGE_BLOCKSIZE"] = str(BLOCK)
    e.update({k: str(v) for k, v in kw.items()})
    for k in [k for k, v in e.items() if v == ""]:
        del e[k]
    return e


def run(cmd, timeout=120, **kw):
    return subprocess.run(cmd, capture_output=True, env=env(**kw), timeout=timeout)


def dump(tool, target, *opts, **kw):
    r = run([tool] + list(opts) + [target], **kw)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def make_files(data):
    """name -> whether the reference's dump must match too."""
    files = {}
    for name, tool, k, cdl in (("types_ref", REF_NCGEN, "nc4", TYPES_CDL),
                               ("types_our", NCGEN, "nc4", TYPES_CDL),
                               ("v20", REF_NCGEN, "nc4", None),
                               ("model_ref", REF_NCGEN, "nc7", None)):
        path = os.path.join(WORK, name + ".cdl")
        with open(path, "w") as f:
            if cdl is not None and tool == NCGEN:
                # Our ncgen: the compound without its char field.
                f.write(cdl.replace(" char tag(3) ;", "").replace(', {"abc"}', "")
                        .replace(', {"de"}', "").replace(', {""}', "").replace(', {"x"}', "")
                        .replace(', {"yz"}', "") % {"name": name})
            elif cdl is not None:
                f.write(cdl % {"name": name})
            elif name == "v20":
                f.write(v20_cdl(name))
            else:
                f.write(v20_cdl(name, n=4, nt=3, nx=10))
        r = run([tool, "-k", k, "-o", os.path.join(data, name + ".nc"), path])
        if nctst.check(r.returncode == 0, "%s -k %s %s: %s" % (tool, k, name, r.stderr)):
            files[name] = True
    # h5py (superblock 0, HDF5's own layout) and xarray (through the
    # reference library that Debian's netCDF4 module loads).
    code = r"""
import sys, numpy as np, h5py
with h5py.File(sys.argv[1] + '/h5py.nc', 'w') as f:
    f['a'] = np.arange(1000.).reshape(10, 100)
    f['a'].attrs['units'] = 'm'
    g = f.create_group('g')
    g.attrs['t'] = 'x'
    g.create_dataset('z', data=np.arange(50000, dtype='i4') * 3, chunks=(1000,),
                     compression='gzip', shuffle=True)
    g.create_dataset('s', data=np.array([b'ab', b'cde'], dtype='S3'))
"""
    r = subprocess.run([PY, "-c", code, data], capture_output=True, timeout=60)
    if r.returncode == 0:
        files["h5py"] = False
    else:
        print("h5py file not written: %s" % r.stderr.decode()[-300:])
    code = r"""
import sys, numpy as np, xarray as xr, pandas as pd
ds = xr.Dataset({'temp': (('time', 'lat'), np.arange(60.).reshape(6, 10).astype('f4')),
                 'flag': (('lat',), np.arange(10, dtype='i1'))},
                coords={'time': pd.date_range('2001-01-01', periods=6),
                        'lat': np.linspace(-45, 45, 10)},
                attrs={'title': 'by xarray'})
ds.temp.attrs['units'] = 'K'
ds.to_netcdf(sys.argv[1] + '/xr.nc', engine='netcdf4',
             encoding={'temp': {'zlib': True, 'complevel': 3}})
"""
    r = subprocess.run([PY, "-c", code, data], capture_output=True, timeout=60)
    if r.returncode == 0:
        files["xr"] = False
    else:
        print("xarray file not written: %s" % r.stderr.decode()[-300:])
    return files


def main():
    if not (os.access(REF_NCGEN, os.X_OK) and os.access(REF_NCDUMP, os.X_OK)):
        nctst.skip("reference ncgen/ncdump missing")
    shutil.rmtree(WORK, ignore_errors=True)
    data = os.path.join(WORK, "data")
    os.makedirs(data)
    files = make_files(data)
    ourlib = os.path.join(LIBDIR, "libnetcdf.so")
    asan = b"libasan" in subprocess.run(["ldd", ourlib], capture_output=True).stdout

    with rtest.server(data, WORK) as port:
        base = "http://127.0.0.1:%d" % port

        def url(name, modes=None):
            pre = "/m/%s" % modes if modes else ""
            return "%s%s/%s.nc#mode=bytes" % (base, pre, name)

        def stats():
            return rtest.control(port, "stats")

        def reset():
            rtest.control(port, "reset")

        for name, with_ref in files.items():
            local = os.path.join(data, name + ".nc")
            size = os.path.getsize(local)
            _, want, _ = dump(NCDUMP, local)
            if with_ref:
                _, ref_out, _ = dump(REF_NCDUMP, local)
                nctst.check(want == ref_out, "%s: our local dump differs from the reference's" % name)
            reset()
            rc, out, err = dump(NCDUMP, url(name))
            st = stats()
            nctst.check(rc == 0 and out == want, "%s: remote dump differs: rc %d %s" % (name, rc, err))
            nctst.check(st["requests"] <= size // BLOCK + 3,
                        "%s: whole-file dump in %d requests (size %d, block %d)"
                        % (name, st["requests"], size, BLOCK))
            # HDF5 alone on the remote driver (native reader off).
            rc, out, err = dump(NCDUMP, url(name), NETCDF_HDF5_NATIVE_OPEN=0)
            nctst.check(rc == 0 and out == want, "%s: dump through HDF5's driver: rc %d %s"
                        % (name, rc, err))
            rc, out, err = dump(NCDUMP, url(name), "-hs")
            nctst.check(rc == 0 and out == dump(NCDUMP, local, "-hs")[1],
                        "%s: remote ncdump -hs differs: %s" % (name, err))
        # netCDF wrote these without committed types: opened by the native
        # reader (=2: only it).
        for name in ("v20", "model_ref"):
            rc, out, err = dump(NCDUMP, url(name), "-h", NETCDF_HDF5_NATIVE_OPEN=2)
            nctst.check(rc == 0, "%s: native open over the URL: %s" % (name, err))

        # Request counts with the default settings.
        reset()
        rc, out, err = dump(NCDUMP, url("v20"), "-h", NETCDF_BYTERANGE_BLOCKSIZE="")
        st = stats()
        nctst.check(rc == 0 and out == dump(NCDUMP, os.path.join(data, "v20.nc"), "-h")[1],
                    "v20 -h: %s" % err)
        nctst.check(st["requests"] <= 3, "ncdump -h of 20 variables in %d requests (%s)"
                    % (st["requests"], st["ranges"]))
        print("ncdump -h of v20.nc (%d bytes): %d requests" % (
            os.path.getsize(os.path.join(data, "v20.nc")), st["requests"]))
        reset()
        rc, out, err = dump(NCDUMP, url("v20"), "-h", NETCDF_BYTERANGE_BLOCKSIZE="",
                            NETCDF_HDF5_NATIVE_OPEN=0)
        st = stats()
        nctst.check(rc == 0, "v20 -h through HDF5's driver: %s" % err)
        print("the same through HDF5 on the driver: %d requests" % st["requests"])

        # Faults on a file of many blocks.
        want = dump(NCDUMP, os.path.join(data, "v20.nc"))[1]
        for modes in ("close", "fail500", "norange", "close+fail500"):
            reset()
            rc, out, err = dump(NCDUMP, url("v20", modes))
            nctst.check(rc == 0 and out == want, "mode %s: rc %d %s" % (modes, rc, err.strip()))
        # A cut body or a changed file: an error, and what was printed
        # before it is the start of the right dump (never other values).
        for modes in ("short", "changed"):
            for native in ("1", "0"):
                reset()
                rc, out, err = dump(NCDUMP, url("v20", modes), NETCDF_HDF5_NATIVE_OPEN=native)
                nctst.check(rc != 0 and ("I/O failure" in err or "HDF error" in err),
                            "mode %s (native %s): rc %d %s" % (modes, native, rc, err.strip()[-300:]))
                nctst.check(want.startswith(out.rsplit("\n", 1)[0]),
                            "mode %s (native %s): output that is not the file's" % (modes, native))

        if not asan:
            libs = os.path.join(WORK, "lib")
            os.makedirs(libs, exist_ok=True)
            link = os.path.join(libs, "libnetcdf.so.19")
            if not os.path.lexists(link):
                os.symlink(os.path.join(LIBDIR, "libnetcdf.so.22"), link)
            names = list(files)
            r = subprocess.run([PY, os.path.join(HERE, "py_values.py"), data, base] + names,
                               capture_output=True, timeout=180, env=env(LD_LIBRARY_PATH=libs))
            out = r.stdout.decode()
            nctst.check(r.returncode == 0 and "libversion 4.10.1" in out,
                        "netCDF4-python values: %s %s" % (out, r.stderr.decode()[-2000:]))
            r = subprocess.run([PY, os.path.join(HERE, "py_xarray.py"), data, base] + names,
                               capture_output=True, timeout=180, env=env(LD_LIBRARY_PATH=libs))
            out = r.stdout.decode()
            nctst.check(r.returncode == 0 and "libversion 4.10.1" in out,
                        "xarray values: %s %s" % (out, r.stderr.decode()[-2000:]))
            nc = ctypes.CDLL(ourlib)
            ncid = ctypes.c_int()
            nctst.check(nc.nc_open(url("types_ref").encode(), 1, ctypes.byref(ncid)) == -37,
                        "NC_WRITE over a URL is NC_EPERM")
            fmt = ctypes.c_int()
            nctst.check(nc.nc_open(url("model_ref").encode(), 0, ctypes.byref(ncid)) == 0 and
                        nc.nc_inq_format(ncid, ctypes.byref(fmt)) == 0 and fmt.value == 4 and
                        nc.nc_close(ncid) == 0, "classic model over a URL: format %d" % fmt.value)

    nctst.finish("tst_remote4")


if __name__ == "__main__":
    main()
