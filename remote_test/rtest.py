"""rtest.py: what the remote tests share: the loopback rangeserver.py
started and stopped around a block, and its control requests."""
import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


@contextlib.contextmanager
def server(data, work, lifetime=240):
    """rangeserver.py serving data; yields its port.  It stops when the
    block ends, even on failure, and after lifetime seconds in any case."""
    portfile = os.path.join(work, "port")
    if os.path.exists(portfile):
        os.remove(portfile)
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "rangeserver.py"), "--data", data,
                             "--portfile", portfile, "--lifetime", str(lifetime)])
    try:
        deadline = time.time() + 20
        while not os.path.exists(portfile):
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("rangeserver did not start")
            time.sleep(0.05)
        with open(portfile) as f:
            yield int(f.read())
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def control(port, what):
    """GET /_stats (its JSON) or /_reset."""
    with urllib.request.urlopen("http://127.0.0.1:%d/_%s" % (port, what), timeout=10) as r:
        return json.loads(r.read()) if what == "stats" else None
