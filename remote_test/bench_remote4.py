#!/usr/bin/env python3
"""bench_remote4.py LIBDIR WORKDIR [REPS] [MIB]: the remote netCDF-4 and
reference-store workloads, ratios in one run with an A/A pair beside.

  dump_h   ncdump -h of a 20-variable netCDF-4 file: the reference's
           /usr/bin/ncdump on the local file (twice: A/A) against ours over
           the loopback server (#mode=bytes), with request counts.
  read     every value of a MIB MiB (default 256) float variable, shuffle +
           deflate 1, 64x4096 chunks: the reference library on the local
           file (twice: A/A), ours locally, ours over the loopback server
           with 5 ms added per request (rangeserver.py lat5), and ours
           through a kerchunk reference store whose chunks are ranges of
           the same URL (lat5).

Inputs are made once in WORKDIR (kept between runs).  Not part of CTest (a
measurement); prints medians of REPS runs (default 3) and the ratios."""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rtest  # noqa: E402

LIBDIR, WORK = sys.argv[1], os.path.abspath(sys.argv[2])
REPS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
MIB = int(sys.argv[4]) if len(sys.argv) > 4 else 256
PY = "/usr/bin/python3"
REFLIB = "libnetcdf.so.19"            # the reference, from the system's path
OURLIB = os.path.join(LIBDIR, "libnetcdf.so")
NCDUMP = os.path.join(LIBDIR, "ncdump", "ncdump")
ROWS, COLS = MIB * 64, 4096

MAKE_BIG = r"""
import sys, numpy as np, netCDF4
rows, cols = int(sys.argv[2]), int(sys.argv[3])
with netCDF4.Dataset(sys.argv[1], 'w') as d:
    d.createDimension('y', rows); d.createDimension('x', cols)
    v = d.createVariable('v', 'f4', ('y', 'x'), zlib=True, complevel=1, shuffle=True,
                         chunksizes=(64, 4096))
    x = np.arange(cols, dtype='f4')
    rng = np.random.default_rng(1)
    for r0 in range(0, rows, 1024):
        y = np.arange(r0, r0 + 1024, dtype='f4')[:, None]
        b = np.sin(x / 50.0) * np.cos(y / 80.0) * 100 + rng.integers(0, 16, (1024, cols)) * 0.01
        v[r0:r0 + 1024, :] = np.round(b, 2).astype('f4')
"""

MAKE_REFS = r"""
import json, sys, h5py
src, target, rows, cols = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
refs = {'.zgroup': json.dumps({'zarr_format': 2}),
        'v/.zarray': json.dumps({'shape': [rows, cols], 'chunks': [64, 4096], 'dtype': '<f4',
                                 'compressor': {'id': 'zlib', 'level': 1},
                                 'filters': [{'id': 'shuffle', 'elementsize': 4}],
                                 'fill_value': None, 'order': 'C', 'zarr_format': 2}),
        'v/.zattrs': json.dumps({'_ARRAY_DIMENSIONS': ['y', 'x']})}
with h5py.File(src, 'r') as f:
    d = f['v']
    for i in range(d.id.get_num_chunks()):
        c = d.id.get_chunk_info(i)
        refs['v/%d.0' % (c.chunk_offset[0] // 64)] = ['{{u}}', c.byte_offset, c.size]
print(json.dumps({'version': 1, 'templates': {'u': target}, 'refs': refs}))
"""

READ = r"""
import ctypes, sys, time, numpy as np
nc = ctypes.CDLL(sys.argv[1])
ncid, nv = ctypes.c_int(), ctypes.c_int()
t = time.perf_counter()
assert nc.nc_open(sys.argv[2].encode(), 0, ctypes.byref(ncid)) == 0
vid = ctypes.c_int()
assert nc.nc_inq_varid(ncid, b'v', ctypes.byref(vid)) == 0
buf = np.empty(int(sys.argv[3]), dtype='f4')
assert nc.nc_get_var_float(ncid, vid, buf.ctypes.data_as(ctypes.c_void_p)) == 0
nc.nc_close(ncid)
print(time.perf_counter() - t, float(buf[::4099].sum()))
"""


def v20_cdl():
    lines = ["netcdf v20 {", "dimensions:", "  t = UNLIMITED ; x = 1000 ;", "variables:",
             "  double t(t) ; t:units = \"days since 2000-01-01\" ;"]
    for k in range(20):
        kind = ("float", "double", "int", "short")[k % 4]
        lines.append("  %s v%02d(t, x) ; v%02d:long_name = \"variable %d\" ; v%02d:units = \"K\" ; "
                     "v%02d:_DeflateLevel = 1 ; v%02d:_ChunkSizes = 8, 250 ;" % ((kind,) + (k,) * 6))
    lines += ["  :title = \"twenty variables\" ;", "data:",
              "  t = %s ;" % ", ".join(str(i) for i in range(24))]
    for k in range(20):
        lines.append("  v%02d = %s ;" % (k, ", ".join(str((i * 7919 + k * 31) % 30011 - 15000)
                                                     for i in range(24 * 1000))))
    return "\n".join(lines + ["}"]) + "\n"


def timed(cmd, env=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, env=env, timeout=900)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (cmd, r.stderr.decode()[-500:]))
    return time.perf_counter() - t, r.stdout


def ourenv():
    e = dict(os.environ)
    e["LD_LIBRARY_PATH"] = LIBDIR
    return e


def main():
    data = os.path.join(WORK, "data")
    os.makedirs(data, exist_ok=True)
    v20 = os.path.join(data, "v20.nc")
    big = os.path.join(data, "big%d.nc" % MIB)
    if not os.path.exists(v20):
        with open(os.path.join(WORK, "v20.cdl"), "w") as f:
            f.write(v20_cdl())
        timed(["/usr/bin/ncgen", "-k", "nc4", "-o", v20, os.path.join(WORK, "v20.cdl")])
    if not os.path.exists(big):
        print("writing %s ..." % big, file=sys.stderr)
        timed([PY, "-c", MAKE_BIG, big, str(ROWS), str(COLS)])
    n = ROWS * COLS
    res = {}

    def add(k, v):
        res.setdefault(k, []).append(v)

    with rtest.server(data, WORK, lifetime=3600) as port:
        base = "http://127.0.0.1:%d" % port
        url_h = "%s/v20.nc#mode=bytes" % base
        url_big = "%s/m/lat5/%s#mode=bytes" % (base, os.path.basename(big))
        refjson = os.path.join(data, "big_refs.json")
        _, out = timed([PY, "-c", MAKE_REFS, big, "%s/m/lat5/%s" % (base, os.path.basename(big)),
                        str(ROWS), str(COLS)])
        with open(refjson, "wb") as f:
            f.write(out)
        url_ref = "file://%s#mode=zarr,reference" % refjson
        for rep in range(REPS):
            for k in ("A", "A2"):
                add("dump_h ref local " + k, timed(["/usr/bin/ncdump", "-h", v20])[0])
            rtest.control(port, "reset")
            add("dump_h our remote", timed([NCDUMP, "-h", url_h], ourenv())[0])
            add("dump_h requests", rtest.control(port, "stats")["requests"])
            for k in ("A", "A2"):
                add("read ref local " + k, float(timed([PY, "-c", READ, REFLIB, big, str(n)])[1].split()[0]))
            add("read our local", float(timed([PY, "-c", READ, OURLIB, big, str(n)], ourenv())[1].split()[0]))
            rtest.control(port, "reset")
            add("read our remote lat5", float(timed([PY, "-c", READ, OURLIB, url_big, str(n)], ourenv())[1].split()[0]))
            add("read remote requests", rtest.control(port, "stats")["requests"])
            rtest.control(port, "reset")
            add("read our refstore lat5", float(timed([PY, "-c", READ, OURLIB, url_ref, str(n)], ourenv())[1].split()[0]))
            add("read refstore requests", rtest.control(port, "stats")["requests"])
    med = {k: statistics.median(v) for k, v in res.items()}
    mb = n * 4 / 1e6
    print("remote netCDF-4 bench: %d reps, %d MiB variable (%.1f MB in the file), medians" %
          (REPS, MIB, os.path.getsize(big) / 1e6))
    for k, v in med.items():
        if "requests" in k:
            print("  %-28s %8d" % (k, v))
        elif k.startswith("read"):
            print("  %-28s %8.3f s %8.1f MB/s" % (k, v, mb / v))
        else:
            print("  %-28s %8.3f s" % (k, v))
    a = med["read ref local A"]
    print("ratios (throughput against the reference's local read; A/A beside):")
    print("  A/A ref local                %.2f" % (a / med["read ref local A2"]))
    print("  our remote lat5 / ref local  %.2f (target >= 0.50)" % (a / med["read our remote lat5"]))
    print("  our refstore / our remote    %.2f (target 0.90-1.10)" %
          (med["read our remote lat5"] / med["read our refstore lat5"]))
    print("  our local / ref local        %.2f" % (a / med["read our local"]))
    print("  dump_h: our remote / ref local time %.2f (A/A %.2f), %d requests" %
          (med["dump_h our remote"] / med["dump_h ref local A"],
           med["dump_h ref local A2"] / med["dump_h ref local A"], med["dump_h requests"]))


if __name__ == "__main__":
    main()
