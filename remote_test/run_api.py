#!/usr/bin/env python3
"""run_api.py TST_REMOTE_API WORKDIR: write WORKDIR/data/api.nc (a CDF-1
magic number then 3 MiB of pseudo-random bytes: the reader does not parse
headers), start rangeserver.py on it, run the remote reader's API test on FILE's URL with the default
settings and again with 16 KiB blocks in a 128 KiB cache (large reads go
straight to the caller in concurrent pieces), stop the server."""
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
prog, work = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(work, "data"), exist_ok=True)
path = os.path.abspath(os.path.join(work, "data", "api.nc"))
with open(path, "wb") as f:
    f.write(b"CDF\x01" + random.Random(7).randbytes(3 * 2**20 + 12345))
portfile = os.path.join(work, "port")
if os.path.exists(portfile):
    os.remove(portfile)
srv = subprocess.Popen([sys.executable, os.path.join(HERE, "rangeserver.py"), "--data",
                        os.path.dirname(path), "--portfile", portfile, "--lifetime", "120"])
rc = 1
try:
    deadline = time.time() + 20
    while not os.path.exists(portfile):
        if srv.poll() is not None or time.time() > deadline:
            raise RuntimeError("rangeserver did not start")
        time.sleep(0.05)
    url = "http://127.0.0.1:%d/%s#mode=bytes" % (int(open(portfile).read()), os.path.basename(path))
    rc = 0
    for extra in ({}, {"NETCDF_BYTERANGE_BLOCKSIZE": "16k", "NETCDF_BYTERANGE_CACHESIZE": "128k"}):
        env = dict(os.environ, **extra)
        print("settings:", extra or "default", flush=True)
        r = subprocess.run([prog, url, path], env=env, timeout=120)
        rc = rc or r.returncode
finally:
    srv.terminate()
    srv.wait(timeout=10)
sys.exit(rc)
