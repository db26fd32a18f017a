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

try:
    import zarr
except ImportError:
    print("workload=Z_plain_zstd_zarrpy phase=read unavailable=zarr-python-missing")
    sys.exit(0)

store, level = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "1")
a = zarr.open(store, mode="r")["data"]
nbytes = a.nbytes
_ = a[0:1, 0:1, 0:1]
t0 = time.monotonic()
x = a[...]
t = time.monotonic() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("workload=Z_plain_zstd%s_zarrpy phase=read bytes=%d seconds=%.6f MBps=%.1f peak_rss_kb=%d base_rss_kb=0 "
      "rss_scope=lifetime sum=%d" % (level, nbytes, t, nbytes / t / 1e6, peak, int(x[::64, ::64, ::64].sum())))
