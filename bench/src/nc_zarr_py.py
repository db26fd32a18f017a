#!/usr/bin/python3
"""nc_zarr_py.py: zarr-python 2's side of the Zarr read-all workload.

  nc_zarr_py.py STORE [LEVEL]

Reads the whole uint16 array "data" of the pure Zarr v2 store that
`nc_zarr -k plain -K` left (zstd chunks), once to warm the page cache and
once timed, and prints a bench line (workload Z_plain_zstd<LEVEL>_zarrpy).
numcodecs' zstd and blosc use their own threads as configured by zarr-python
(single-threaded decode per chunk, chunks in sequence).
"""
import os, resource, sys, time

store, level = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "1")
wl = "workload=Z_plain_zstd%s_zarrpy phase=read" % level
try:
    import zarr
except ImportError:
    print(wl + " status=unavailable reason=zarr-python-missing")
    sys.exit(0)

try:
    a = zarr.open(store, mode="r")["data"]
except Exception as e:  # report in the table rather than leave an empty row
    print(wl + " status=failed reason=open:" + type(e).__name__)
    sys.exit(0)
nbytes = a.nbytes
_ = a[0:1, 0:1, 0:1]
t0 = time.monotonic()
x = a[...]
t = time.monotonic() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("%s bytes=%d seconds=%.6f MBps=%.1f peak_rss_kb=%d base_rss_kb=0 "
      "rss_scope=lifetime sum=%d" % (wl, nbytes, t, nbytes / t / 1e6, peak, int(x[::64, ::64, ::64].sum())))
