#!/usr/bin/python3
"""tst_quantize.py: our quantize (ncf_quantize_*) against the reference.

The reference library (Debian's libnetcdf, through netCDF4-python, in a
child process of its own) writes random float and double data with
BitGroom, GranularBitRound and BitRound at every NSD/NSB from 1 to the
maximum; ncf_tool quantizes the same input; the values must be bit-identical.
Data include NaN, +-Inf, -0.0, subnormals, huge and tiny values and the
default fill value.  Known, intended differences (upstream is wrong there):
+-Inf stay +-Inf (upstream's BitGroom makes NaN of them), so Inf positions
are checked against the input instead.
Usage: tst_quantize.py NCF_TOOL.   Exit 77 without netCDF4-python/numpy.
"""
import os, subprocess, sys, tempfile
try:
    import numpy as np
except ImportError:
    sys.exit(77)

TOOL = sys.argv[1] if len(sys.argv) > 1 else None
MODES = {1: "BitGroom", 2: "GranularBitRound", 3: "BitRound"}
MAXNSD = {"f4": 6, "f8": 15}
MAXNSB = {"f4": 23, "f8": 52}
N = 4000

def data(dt, seed):
    rng = np.random.default_rng(seed)
    a = (rng.normal(size=N) * 10.0 ** rng.integers(-30, 30, size=N)).astype(dt)
    fill = np.float32(9.9692099683868690e+36) if dt == "f4" else 9.9692099683868690e+36
    tiny = np.finfo(dt).tiny
    special = [np.nan, np.inf, -np.inf, -0.0, 0.0, fill, tiny / 3, -tiny / 7, tiny, np.finfo(dt).max,
               -np.finfo(dt).max, 1.0, -1.0, 0.1, 123456.789]
    a[:len(special)] = np.array(special, dtype=dt)
    a[len(special):len(special) + 200] = (rng.random(200) * 1e-3).astype(dt)
    return a

def reference(tmp):
    """Child process: the reference library quantizes everything."""
    import netCDF4
    for dt in ("f4", "f8"):
        a = np.fromfile(os.path.join(tmp, "in_%s" % dt), dtype=dt)
        for mode, name in MODES.items():
            top = MAXNSB[dt] if mode == 3 else MAXNSD[dt]
            for nsd in range(1, top + 1):
                p = os.path.join(tmp, "ref.nc")
                ds = netCDF4.Dataset(p, "w")
                ds.createDimension("x", a.size)
                v = ds.createVariable("v", dt, ("x",), significant_digits=nsd, quantize_mode=name)
                v.set_auto_maskandscale(False)
                v[:] = a
                ds.close()
                ds = netCDF4.Dataset(p)
                ds["v"].set_auto_maskandscale(False)
                np.asarray(ds["v"][:]).astype(dt).tofile(os.path.join(tmp, "ref_%s_%d_%d" % (dt, mode, nsd)))
                ds.close()
    return 0

def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--reference":
        return reference(sys.argv[2])
    try:
        import netCDF4  # noqa: F401 -- only checks availability; the work is in the child
    except ImportError:
        return 77
    npass = nfail = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, dt in enumerate(("f4", "f8")):
            data(dt, i).tofile(os.path.join(tmp, "in_%s" % dt))
        r = subprocess.run([sys.executable, __file__, "--reference", tmp], capture_output=True, text=True)
        if r.returncode:
            print("reference failed:", r.stdout, r.stderr)
            return 1
        for dt in ("f4", "f8"):
            src = os.path.join(tmp, "in_%s" % dt)
            a = np.fromfile(src, dtype=dt)
            ut = np.uint32 if dt == "f4" else np.uint64
            for mode in MODES:
                top = MAXNSB[dt] if mode == 3 else MAXNSD[dt]
                for nsd in range(1, top + 1):
                    out = os.path.join(tmp, "ours")
                    r = subprocess.run([TOOL, "quantize", "float" if dt == "f4" else "double", str(mode),
                                        str(nsd), src, out], capture_output=True, text=True)
                    if r.returncode:
                        nfail += 1
                        print("ncf_tool failed:", r.stderr)
                        continue
                    ours = np.fromfile(out, dtype=dt)
                    ref = np.fromfile(os.path.join(tmp, "ref_%s_%d_%d" % (dt, mode, nsd)), dtype=dt)
                    # NaN, +-Inf, +-0 and the fill value are never touched
                    # (the 4.9.0 reference corrupts some: NaN and -0.0 in
                    # GranularBR/BitGroom, Inf in BitGroom); elsewhere the
                    # reference's bits are the answer.
                    fillv = np.float32(9.9692099683868690e+36) if dt == "f4" else 9.9692099683868690e+36
                    keep = np.isnan(a) | np.isinf(a) | (a == 0) | (a == fillv)
                    same = np.where(keep, ours.view(ut) == a.view(ut), ours.view(ut) == ref.view(ut))
                    if same.all():
                        npass += 1
                    else:
                        nfail += 1
                        bad = np.nonzero(~same)[0][:5]
                        print("FAIL %s %s nsd %d: %d differ, e.g. in=%r ours=%r ref=%r" % (
                            dt, MODES[mode], nsd, (~same).sum(), a[bad], ours[bad], ref[bad]))
    print("tst_quantize: %d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0

if __name__ == "__main__":
    sys.exit(main())
