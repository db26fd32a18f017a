#!/usr/bin/env python3
"""tst_dap_xarray.py: xarray's open_dataset(url) on our library over the
loopback server (dapserver.py), for DAP2 and DAP4.

    tst_dap_xarray.py LIBDIR DAP2DIR DAP4DIR WORKDIR

- DAP2: xarray (netCDF4 engine) on our library and on the reference library
  open the same http URLs; dimensions, coordinates, variables, dtypes,
  attributes, encodings, values and masks (decoded with CF rules) must be
  the same, whole and for a strided selection.
- DAP4: xarray on our library opening http://.../NAME.nc#dap4 shows what
  xarray on the reference library shows of the local netCDF-4 twin NAME.nc
  (the attributes DAP4 adds, _DAP4_*, left out).
Each side runs in a child /usr/bin/python3 (LD_LIBRARY_PATH pointing
libnetcdf.so.19 at ours, or not).  Exit 77 when xarray, netCDF4-python or the
reference ncgen is missing, or the library is built with sanitizers.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
sys.path.insert(0, HERE)
import nctst  # noqa: E402

PY = "/usr/bin/python3"
DAP2 = ["test.01", "test.02", "test.03", "test.07", "synth3", "123bears.nc", "kwcase.nc",
        "fnoc1.nc", "ingrid", "ber-2002-10-01.nc", "fillmismatch.nc", "Drifters", "in.nc"]


def describe(ds, label):
    """Print what xarray shows of ds: dims, coords, variables, attrs, values."""
    import numpy as np

    def vals(a):
        a = np.asarray(a)
        if a.dtype.kind == "f":
            return "nan@%s %s" % (np.flatnonzero(np.isnan(a)).tolist(),
                                  np.where(np.isnan(a), 0, a).tolist())
        if a.dtype.kind in "Mm":
            return str(a.astype("datetime64[ns]").astype("int64").tolist())
        return repr(a.tolist())

    print("==", label)
    print(" dims", sorted((str(k), int(v)) for k, v in ds.sizes.items()))
    print(" coords", sorted(str(c) for c in ds.coords))
    for a in sorted(ds.attrs):
        if not a.startswith("_DAP4") and a != "_NCProperties":
            print(" gatt", a, repr(ds.attrs[a]))
    for name in sorted(ds.variables):
        v = ds.variables[name]
        print(" var", name, v.dtype, v.dims)
        for a in sorted(v.attrs):
            if not a.startswith("_DAP4"):
                print("  att", a, repr(v.attrs[a]))
        enc = {k: v.encoding[k] for k in ("dtype", "_FillValue", "missing_value", "scale_factor",
                                           "add_offset", "units", "calendar") if k in v.encoding}
        print("  enc", sorted((k, repr(x)) for k, x in enc.items()))
        print("  data", vals(v.values))
        if v.ndim > 0 and v.dtype.kind != "O":
            sel = {d: slice(1, None, 2) for d in v.dims}
            print("  strided", vals(v.isel(sel).values))


def child(pairs):
    import warnings
    import netCDF4
    import xarray as xr
    warnings.simplefilter("ignore")
    print("libversion", netCDF4.getlibversion().split()[0])
    for label, url in pairs:
        try:
            ds = xr.open_dataset(url, engine="netcdf4")
        except ValueError as e:  # times xarray cannot decode: read them raw
            print("==", label, "decode failed", type(e).__name__)
            ds = xr.open_dataset(url, engine="netcdf4", decode_times=False)
        except Exception as e:  # the same failure on both sides is fine
            print("==", label, "open failed", type(e).__name__)
            continue
        try:
            describe(ds, label)
        except Exception as e:
            print(" failed", type(e).__name__, str(e)[:80])
        ds.close()


def run_child(pairs, env):
    args = [PY, os.path.abspath(__file__), "--child"]
    for label, url in pairs:
        args += [label, url]
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    return r


def compare(what, ours, ref):
    nctst.check(ours.returncode == 0, "%s: our run failed: %s" % (what, ours.stderr[-800:]))
    nctst.check(ref.returncode == 0, "%s: reference run failed: %s" % (what, ref.stderr[-800:]))
    o, r = ours.stdout.splitlines(), ref.stdout.splitlines()
    nctst.check(o and o[0].startswith("libversion 4.10.1"), what + ": python did not load ours")
    nctst.check(r and not r[0].startswith("libversion 4.10.1"), what + ": reference run loaded ours")
    o, r = o[1:], r[1:]
    nctst.check(len(o) > 20, "%s: too little output (%d lines)" % (what, len(o)))
    nctst.check(not any(" open failed" in l for l in o if "fillmismatch" not in l),
                what + ": an open failed: %s" % [l for l in o if "open failed" in l])
    for i, (a, b) in enumerate(zip(o, r)):
        if not nctst.check(a == b, "%s line %d: ours %r, reference %r" % (what, i, a[:300], b[:300])):
            break
    nctst.check(len(o) == len(r), "%s: %d lines, reference %d" % (what, len(o), len(r)))
    print(what, "datasets:", "; ".join(l[3:] for l in o if l.startswith("==")))
    return o


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        a = sys.argv[2:]
        child(list(zip(a[0::2], a[1::2])))
        return
    libdir, dap2, dap4, work = sys.argv[1:5]
    nctst.system_python()
    try:
        import netCDF4  # noqa: F401
        import xarray  # noqa: F401
    except ImportError:
        nctst.skip("xarray or python3-netcdf4 missing")
    if not os.path.exists("/usr/bin/ncgen"):
        nctst.skip("no reference ncgen")
    so = os.path.abspath(os.path.join(libdir, "libnetcdf.so.22"))
    nctst.load_lib(so)  # skips when built with sanitizers
    os.makedirs(work, exist_ok=True)
    lib = os.path.join(work, "lib")
    os.makedirs(lib, exist_ok=True)
    link = os.path.join(lib, "libnetcdf.so.19")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(so, link)
    ours_env = dict(os.environ, LD_LIBRARY_PATH=lib)
    ref_env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    # the server's tree: the recorded DAP2 responses under d2/, the DAP4 twins at the top
    import run_http
    import tst_dap4_http
    srv = os.path.join(work, "srv")
    twins = tst_dap4_http.make_data(dap4, srv)
    nctst.check(len(twins) >= 6, "twins made: %s" % twins)
    d2 = os.path.join(srv, "d2")
    os.makedirs(d2, exist_ok=True)
    for n in DAP2:
        for ext in (".dds", ".das", ".dods"):
            src, dst = os.path.join(dap2, n + ext), os.path.join(d2, n + ext)
            if os.path.exists(src) and not os.path.lexists(dst):
                os.symlink(src, dst)
    with run_http.server(srv, work, lifetime=280) as (port, _login, _tls):
        host = "http://127.0.0.1:%d" % port
        # DAP2: the same URLs on both libraries
        pairs = [(n, "%s/d2/%s" % (host, n)) for n in DAP2]
        o = compare("dap2", run_child(pairs, ours_env), run_child(pairs, ref_env))
        nctst.check(sum(1 for l in o if l.startswith("==") and "open failed" not in l) >= 10,
                    "dap2: fewer than 10 datasets opened")
        # DAP4: ours over http against the reference on the local twin
        ours = run_child([(n, "%s/%s.nc#dap4" % (host, n)) for n in twins], ours_env)
        ref = run_child([(n, os.path.join(srv, n + ".nc")) for n in twins], ref_env)
        compare("dap4", ours, ref)
    nctst.finish("tst_dap_xarray")


if __name__ == "__main__":
    main()
