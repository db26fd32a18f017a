#!/usr/bin/env python3
"""d4bench.py: the D4 workload: a whole read of a large float variable over
DAP4 on loopback, against curl fetching the same .dap response from the same
server in the same run, and against DAP2 on the same data.

    d4bench.py --prefix PREFIX [--ref PREFIX] [--mib 128] [-n 5] [--work DIR]

PREFIX is an install (include/, lib/) of the library measured.  The data are
dap2gen.py's d2big.nc (one float variable b[z][250][1000], 200 MB at --mib
128), served by dap2serve.py as DAP2 (d2big) and DAP4 (d2big.nc, checksums
on: upstream's default).  Each repetition runs, in this order:
  A    nc_dap2 -k full on http://.../d2big.nc#dap4 (nc_open .. nc_close)
  curl curl -o /dev/null of the .dap request A made (its URL from the log)
  A'   A again (the A/A pair shows the noise)
  D2   nc_dap2 -k full on http://.../d2big (DAP2)
  R    with --ref: A on the reference install (another build of the
       library), for a before/after ratio in the same run
A first untimed round warms the server (its checksum cache) and the page
cache.  Prints one line per run and the medians: MB/s of the variable's
bytes (curl: of the response's), the ratios A/curl, A/A' and A/D2 (and
A/R, R/curl), and the peak RSS growth of A (and R) over the variable's size.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def run_prog(exe, libdir, url, nz):
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    r = subprocess.run([exe, "-u", url, "-v", "b", "-z", str(nz), "-y", "250", "-x", "1000",
                        "-k", "full"], capture_output=True, text=True, env=env, timeout=600)
    kv = dict(re.findall(r"(\w+)=(\S+)", r.stdout))
    if r.returncode != 0 or kv.get("verify") != "ok":
        raise RuntimeError("nc_dap2 %s failed: %s %s" % (url, r.stdout, r.stderr[-400:]))
    return float(kv["seconds"]), int(kv["bytes"]), int(kv["peak_rss_kb"]) - int(kv["base_rss_kb"])


def run_curl(url):
    t0 = time.perf_counter()
    r = subprocess.run(["curl", "-s", "-S", "-o", "/dev/null", "-w", "%{size_download}", url],
                       capture_output=True, text=True, timeout=600)
    t = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("curl failed: %s" % r.stderr)
    return t, int(float(r.stdout))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--ref", help="install of another build: run R beside A")
    ap.add_argument("--mib", type=int, default=128)
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--work", default="/tmp/d4bench")
    a = ap.parse_args()
    if not shutil.which("curl"):
        sys.exit("no curl")
    os.makedirs(a.work, exist_ok=True)
    data = os.path.join(a.work, "in")
    os.makedirs(data, exist_ok=True)
    nz = max(4, 200 * a.mib // 128)
    subprocess.run([PY, os.path.join(HERE, "dap2gen.py"), data, str(a.mib)], check=True,
                   capture_output=True)
    exe = os.path.join(a.work, "nc_dap2")
    libdir = os.path.join(a.prefix, "lib")
    subprocess.run(["cc", "-O2", "-I" + os.path.join(a.prefix, "include"), "-I" + HERE,
                    os.path.join(HERE, "nc_dap2.c"), "-o", exe, "-L" + libdir, "-lnetcdf", "-lm"],
                   check=True)
    refexe, reflib = exe + "_ref", os.path.join(a.ref, "lib") if a.ref else None
    if a.ref:
        subprocess.run(["cc", "-O2", "-I" + os.path.join(a.ref, "include"), "-I" + HERE,
                        os.path.join(HERE, "nc_dap2.c"), "-o", refexe, "-L" + reflib, "-lnetcdf",
                        "-lm"], check=True)
    portfile, log = os.path.join(a.work, "port"), os.path.join(a.work, "requests.log")
    for f in (portfile, log):
        if os.path.exists(f):
            os.remove(f)
    srv = subprocess.Popen([PY, os.path.join(HERE, "dap2serve.py"), "--data", data, "--portfile",
                            portfile, "--log", log, "--lifetime", "3600"])
    try:
        for _ in range(150):
            if os.path.exists(portfile) and open(portfile).read().strip():
                break
            time.sleep(0.1)
        port = int(open(portfile).read())
        base = "http://127.0.0.1:%d/" % port
        d4url, d2url = base + "d2big.nc#dap4", base + "d2big"
        # warm-up; the .dap request ours makes is what curl fetches
        run_prog(exe, libdir, d4url, nz)
        lines = [l.split()[0] for l in open(log) if ".dap?" in l]
        curlurl = base + lines[-1].lstrip("/")
        run_curl(curlurl)
        run_prog(exe, libdir, d2url, nz)
        labels = ("A", "curl", "A'", "D2") + (("R",) if a.ref else ())
        rows = {k: [] for k in labels}
        rss, rssref = [], []
        if a.ref:
            run_prog(refexe, reflib, d4url, nz)
        for rep in range(a.n):
            for label in labels:
                if label == "curl":
                    t, nbytes = run_curl(curlurl)
                elif label == "R":
                    t, nbytes, r = run_prog(refexe, reflib, d4url, nz)
                    rssref.append(r)
                else:
                    t, nbytes, r = run_prog(exe, libdir, d2url if label == "D2" else d4url, nz)
                    if label == "A":
                        rss.append(r)
                mbps = nbytes / t / 1e6
                rows[label].append(mbps)
                print("rep=%d run=%s seconds=%.3f bytes=%d MBps=%.1f" % (rep, label, t, nbytes, mbps))
        med = {k: statistics.median(v) for k, v in rows.items()}
        print("\nD4 read of b (%d MB), %d reps, medians (MB/s):" % (nz * 250 * 1000 * 4 // 1000000, a.n))
        for k in labels:
            print("  %-5s %8.1f" % (k, med[k]))
        print("  A/curl = %.2f   A/A' = %.2f   A/D2 = %.2f   A peak RSS growth = %.2f x the variable"
              % (med["A"] / med["curl"], med["A"] / med["A'"], med["A"] / med["D2"],
                 statistics.median(rss) * 1024 / (nz * 250 * 1000 * 4)))
        if a.ref:
            print("  A/R = %.2f   R/curl = %.2f   R peak RSS growth = %.2f x the variable"
                  % (med["A"] / med["R"], med["R"] / med["curl"],
                     statistics.median(rssref) * 1024 / (nz * 250 * 1000 * 4)))
    finally:
        srv.terminate()
        srv.wait(10)


if __name__ == "__main__":
    main()
