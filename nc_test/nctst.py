"""nctst.py: what the Python tests share (the Python side of nctst.h).

- check(cond, msg) counts a check and prints FAIL: msg when it fails;
  finish(name) prints "name: N passed, M failed" and exits 1 on any failure.
- skip(why) exits 77, which CTest reports as skipped (SKIP_RETURN_CODE 77):
  never a pass.
- load_lib(path) loads libnetcdf with ctypes; a library built with
  sanitizers cannot be loaded into an uninstrumented python (their runtime
  must come first), so that is a skip.
- zarrita(work, mjs) installs zarrita from npm into work/npm once and puts
  the test's node script beside it; node(z, *args) runs that script and
  returns the JSON of its last output line.

A test puts this directory on sys.path:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys

SKIP = 77
npass = 0
nfail = 0


def check(cond, msg):
    global npass, nfail
    if cond:
        npass += 1
    else:
        nfail += 1
        print("FAIL:", msg)
    return bool(cond)


def finish(name):
    print("%s: %d passed, %d failed" % (name, npass, nfail))
    sys.exit(1 if nfail or npass == 0 else 0)


def skip(why):
    print("%s: skipped" % why)
    sys.exit(SKIP)


def load_lib(path):
    if b"libasan" in subprocess.run(["ldd", path], capture_output=True).stdout:
        skip("library built with sanitizers")
    return ctypes.CDLL(path)


def zarrita(work, mjs):
    """(npm directory, script name) with zarrita and a copy of mjs there, or
    None (the reason printed) when node/npm or the install is not there."""
    if not shutil.which("node") or not shutil.which("npm"):
        print("node/npm missing")
        return None
    npm = os.path.join(work, "npm")
    os.makedirs(npm, exist_ok=True)
    if not os.path.isdir(os.path.join(npm, "node_modules", "zarrita")):
        r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "zarrita@0.7", "@zarrita/storage"],
                           cwd=npm, capture_output=True, timeout=300)
        if r.returncode != 0 or not os.path.isdir(os.path.join(npm, "node_modules", "zarrita")):
            print("npm install zarrita failed")
            return None
    script = os.path.basename(mjs)
    shutil.copy(mjs, os.path.join(npm, script))
    return npm, script


def node(z, *args):
    npm, script = z
    r = subprocess.run(["node", script] + list(args), cwd=npm, capture_output=True, timeout=300)
    if r.returncode != 0:
        print(r.stderr.decode()[-2000:])
        return None
    return json.loads(r.stdout.decode().strip().splitlines()[-1])
