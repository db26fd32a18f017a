#!/usr/bin/env python3
"""tst_dap4_http.py: the DAP4 client over http against the loopback server
(dapserver.py with dap4serve.py answering any constraint from netCDF-4
files made with the reference ncgen from the recorded datasets' CDL).

    tst_dap4_http.py OUR_NCDUMP LIBDIR DATADIR WORKDIR

- ncdump of http://127.0.0.1:PORT/NAME.nc#dap4 (and dap4://, checksums on)
  shows what ncdump shows of the local netCDF-4 twin NAME.nc;
- requests: ncdump -h = 1 request (the DMR); ncdump -v of one variable of a
  dataset of 40 = 2 (the DMR, then one constrained .dap with that
  variable only); a second read of the same slice comes from the cache;
- recorded responses served as they are: ncdump -h over http = file://;
- an error chunk, a truncated response and a checksum mismatch are errors
  (the mismatch only with dap4.checksum=true);
- netCDF4-python on our library reads the loopback URLs with the values
  netCDF4-python on the reference reads from the local twins.
Runs under /usr/bin/python3 (Debian's netCDF4-python serves the data).
Exit 77 when netCDF4-python or the reference ncgen is missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
sys.path.insert(0, HERE)
import nctst  # noqa: E402

PY = "/usr/bin/python3"
NCGEN = "/usr/bin/ncgen"
TWINS = ["test_one_var", "test_one_vararray", "test_atomic_types_x", "test_enum_array_x",
         "test_groups1", "test_fill", "test_utf8", "test_unlim1", "test_test"]
MANY = "netcdf many {\ndimensions:\n  n = 50 ;\nvariables:\n%s\ndata:\n%s}\n" % (
    "".join("  int v%d(n) ;\n" % i for i in range(40)),
    "".join(" v%d = %s ;\n" % (i, ", ".join(str(i * 100 + k) for k in range(50))) for i in range(40)))
ADDED = re.compile(r"^\s+(?:\S+ )?\S*:(_DAP4_\w+|_NCProperties) = ")


def normalize(text):
    out = []
    for l in text.splitlines()[1:]:
        if not l.strip() or l.startswith("// global") or ADDED.match(l):
            continue
        out.append(re.sub(r"^(\s+)string (\S*:)", r"\1\2", l))
    return out


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, timeout=120, env=env)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def get(port, what):
    with urllib.request.urlopen("http://127.0.0.1:%d/%s" % (port, what), timeout=10) as f:
        return f.read()


def counts(port):
    return json.loads(get(port, "_count"))


def make_data(data, srv):
    """The twins (reference ncgen), the many-variable dataset, the recorded
    responses and the hostile ones."""
    os.makedirs(srv, exist_ok=True)
    made = []
    for n in TWINS:
        src = os.path.join(data, "cdl", n.replace("_x", "") + ".cdl")
        if not os.path.exists(src):
            continue
        cdl = open(src).read()
        if n.endswith("_x"):
            # leave out what dap4serve does not encode (opaque, compound)
            cdl = re.sub(r"\n\s*opaque\(\d+\) \w+\s*;", "", cdl)
            cdl = re.sub(r"\n\s*o_t \w+(\([^)]*\))?\s*;", "", cdl)
            cdl = re.sub(r"\n\s*vo\w* =[^;]*;", "", cdl)
            cdl = cdl.replace("netcdf %s " % n.replace("_x", ""), "netcdf %s " % n)
        cdlp = os.path.join(srv, n + ".cdl")
        open(cdlp, "w").write(cdl)
        r = subprocess.run([NCGEN, "-k", "nc4", "-o", os.path.join(srv, n + ".nc"), cdlp],
                           capture_output=True)
        if r.returncode == 0:
            made.append(n)
        else:
            print("ncgen failed for", n, r.stderr.decode()[:200])
    open(os.path.join(srv, "many.cdl"), "w").write(MANY)
    subprocess.run([NCGEN, "-k", "nc4", "-o", os.path.join(srv, "many.nc"),
                    os.path.join(srv, "many.cdl")], check=True)
    rec = os.path.join(srv, "rec")
    os.makedirs(rec, exist_ok=True)
    for f in os.listdir(os.path.join(data, "raw")):
        dst = os.path.join(rec, f)
        if not os.path.lexists(dst):
            os.symlink(os.path.join(data, "raw", f), dst)
    # hostile: made from dap4serve's own answers
    import dap4serve
    bad = os.path.join(srv, "bad")
    os.makedirs(bad, exist_ok=True)
    base = os.path.join(srv, "test_one_vararray.nc")
    dmr = dap4serve.respond(base, "dmr", "")[0]
    full = dap4serve.respond(base, "dap", "dap4.checksum=true")[0]
    for name, body in [("err", dap4serve.error_chunk("the server says no")),
                       ("trunc", full[: len(full) - 6]),
                       ("badcrc", full[:-5] + bytes([full[-5] ^ 0xff]) + full[-4:])]:
        open(os.path.join(bad, name + ".nc.dmr"), "wb").write(
            dap4serve.respond(base, "dmr", "dap4.checksum=true")[0] if name == "badcrc" else dmr)
        open(os.path.join(bad, name + ".nc.dap"), "wb").write(body)
    return made


def child_python(urls):
    """Run in a child: dims, vars, attributes and values of each URL."""
    import warnings
    import netCDF4
    import numpy as np
    warnings.simplefilter("ignore")
    print("libversion", netCDF4.getlibversion().split()[0])
    for u in urls:
        print("==", os.path.basename(u.split("#")[0].split("?")[0]))
        ds = netCDF4.Dataset(u)
        ds.set_auto_maskandscale(False)

        def show(g):
            for name, d in g.dimensions.items():
                print(" dim", name, len(d), d.isunlimited())
            for a in g.ncattrs():
                if not a.startswith("_DAP4") and a != "_NCProperties":
                    print(" gatt", a, repr(g.getncattr(a)))
            for name, v in g.variables.items():
                print(" var", name, v.dtype, v.dimensions)
                for a in v.ncattrs():
                    if not a.startswith("_DAP4"):
                        print("  att", a, repr(v.getncattr(a)))
                print("  data", np.asarray(v[...]).tolist())
                if v.ndim > 0 and v.dtype != str:
                    print("  strided", np.asarray(v[tuple(slice(1, None, 2) for _ in v.shape)]).tolist())
            for sub in g.groups.values():
                print(" group", sub.name)
                show(sub)
        show(ds)
        ds.close()


def child_reads(url):
    """Run in a child on our library: one variable read twice, then a
    strided part of it, then a second variable."""
    import netCDF4
    import numpy as np
    ds = netCDF4.Dataset(url)
    a = np.asarray(ds["v7"][:]).tolist()
    b = np.asarray(ds["v7"][:]).tolist()
    c = np.asarray(ds["v7"][3:40:4]).tolist()
    d = np.asarray(ds["v9"][5]).tolist()
    ds.close()
    print(json.dumps([a == b, a[3:40:4] == c, d]))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child_python(sys.argv[2:])
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--reads":
        child_reads(sys.argv[2])
        return
    ncdump, libdir, data, work = sys.argv[1:5]
    nctst.system_python()
    try:
        import netCDF4  # noqa: F401
    except ImportError:
        nctst.skip("python3-netcdf4 missing")
    if not os.path.exists(NCGEN):
        nctst.skip("no reference ncgen")
    import run_http
    os.makedirs(work, exist_ok=True)
    srv = os.path.join(work, "srv")
    twins = make_data(data, srv)
    nctst.check(len(twins) >= 6, "twins made: %s" % twins)
    with run_http.server(srv, work) as (port, _login, _tls):
        host = "127.0.0.1:%d" % port
        # 1. ncdump over http = ncdump of the local twin
        for n in twins:
            _, local, _ = run([ncdump, os.path.join(srv, n + ".nc")])
            for url in ["http://%s/%s.nc#dap4" % (host, n),
                        "dap4://%s/%s.nc" % (host, n),
                        "http://%s/%s.nc?dap4.checksum=true#mode=dap4" % (host, n)]:
                rc, out, err = run([ncdump, url])
                nctst.check(rc == 0, "%s: %s" % (url, err[-300:]))
                a, b = normalize(out), normalize(local)
                if not nctst.check(a == b, "%s differs from the twin" % url):
                    for x, y in zip(a, b):
                        if x != y:
                            print("   ours %r\n   twin %r" % (x, y))
                            break
        # 2. request counts
        get(port, "_reset")
        rc, out, err = run([ncdump, "-h", "http://%s/many.nc#dap4" % host])
        c = counts(port)
        nctst.check(rc == 0 and c.get("total") == 1 and c.get("/many.nc.dmr") == 1,
                    "ncdump -h: %s %s" % (c, err[-200:]))
        get(port, "_reset")
        rc, out, err = run([ncdump, "-v", "v7", "http://%s/many.nc#dap4" % host])
        c = counts(port)
        nctst.check(rc == 0 and c.get("total") == 2 and c.get("/many.nc.dap") == 1,
                    "ncdump -v v7: %s %s" % (c, err[-200:]))
        nctst.check(" v7 = 700, 701, 702" in out, "v7 values: %s" % out[-300:])
        # small variables (fixed-size, 64 bytes at most) come together: the
        # 13 scalars of test_atomic_types_x in one request, its string alone
        get(port, "_reset")
        rc, out, err = run([ncdump, "http://%s/test_atomic_types_x.nc#dap4" % host])
        c = counts(port)
        nctst.check(rc == 0 and c.get("total") == 3 and c.get("/test_atomic_types_x.nc.dap") == 2,
                    "small variables together: %s %s" % (c, err[-200:]))
        # the constrained response holds that variable only
        one = get(port, "many.nc.dap?dap4.ce=/v7&dap4.checksum=false")
        whole = get(port, "many.nc.dap?dap4.checksum=false")
        nctst.check(len(whole) - len(one) > 39 * 50 * 4, "constrained %d bytes, whole %d" % (len(one), len(whole)))
        # the user's constraint: checked before any request, sent in normal
        # form; a read of a variable it slices is one request, the read's
        # indices composed with the constraint's slice
        get(port, "_reset")
        url = "http://%s/many.nc?dap4.ce=v7%%5B1:2:41%%5D;%%20/v9#dap4" % host
        rc, out, err = run([ncdump, "-v", "v7", url])
        reqs = [urllib.parse.unquote(r) for r in json.loads(get(port, "_requests"))]
        want = " v7 = " + ", ".join(str(700 + k) for k in range(1, 42, 2)) + " ;"
        nctst.check(rc == 0 and want in " " + " ".join(out.split()), "ce: v7 %s %s" % (out[-300:], err[-200:]))
        nctst.check(len(reqs) == 2 and "dap4.ce=/v7[1:2:41];/v9" in reqs[0]
                    and "dap4.ce=/v7[1:2:41]&" in reqs[1] and ".dap?" in reqs[1],
                    "ce: requests %s" % reqs)
        get(port, "_reset")
        # ncdump reads v7[0:7] of the 21 values in one row: [1+2*0 : 2 : 1+2*20]
        url = "http://%s/many.nc?dap4.ce=/v7[3:5:]#dap4" % host
        rc, out, err = run([ncdump, "-v", "v7", url])
        reqs = [urllib.parse.unquote(r) for r in json.loads(get(port, "_requests"))]
        want = " v7 = " + ", ".join(str(700 + k) for k in range(3, 50, 5)) + " ;"
        nctst.check(rc == 0 and want in " " + " ".join(out.split()), "ce to the end: %s %s" % (out[-300:], err[-200:]))
        nctst.check(len(reqs) == 2 and "dap4.ce=/v7[3:5:48]&" in reqs[1], "ce to the end: %s" % reqs)
        for bad in ["/v7[5:2]", "/v7[0:0:3]", "/v7[", "/v7;;/v9{", "/v7|x<", "/v7[1]x"]:
            get(port, "_reset")
            rc, out, err = run([ncdump, "-h", "http://%s/many.nc?dap4.ce=%s#dap4" % (host, bad)])
            nctst.check(rc != 0 and "dap4.ce at offset" in err and counts(port).get("total") == 0,
                        "bad ce %s: rc %d, %s, %s" % (bad, rc, counts(port), err[-200:]))
        # 3. recorded responses as they are: the header over http = file://
        for n in ["test_atomic_array", "test_struct_array", "test_vlen2", "test_groups1"]:
            get(port, "_reset")
            rc, out, err = run([ncdump, "-h", "http://%s/rec/%s.nc#dap4" % (host, n)])
            _, ref, _ = run([ncdump, "-h", "file://%s/raw/%s.nc?dap4.checksum=false#dap4" % (data, n)])
            nctst.check(rc == 0 and normalize(out) == normalize(ref), "recorded %s: %s" % (n, err[-200:]))
            nctst.check(counts(port).get("total") == 1, "recorded %s: %s" % (n, counts(port)))
        # 4. hostile responses: clean errors
        rc, out, err = run([ncdump, "http://%s/bad/err.nc#dap4" % host])
        nctst.check(rc != 0 and "the server says no" in err and "server error" in err,
                    "error chunk: rc %d %s" % (rc, err[-300:]))
        rc, out, err = run([ncdump, "http://%s/bad/trunc.nc#dap4" % host])
        nctst.check(rc != 0 and "DAP failure" in err, "truncated: rc %d %s" % (rc, err[-300:]))
        rc, out, err = run([ncdump, "http://%s/bad/badcrc.nc?dap4.checksum=true#dap4" % host])
        nctst.check(rc != 0 and "DATADDS" in err,
                    "checksum mismatch: rc %d %s" % (rc, err[-300:]))
        # checksums are on unless dap4.checksum=false (upstream's default);
        # #hyrax reads them without checking
        rc, out, err = run([ncdump, "http://%s/bad/badcrc.nc#dap4" % host])
        nctst.check(rc != 0 and "DATADDS" in err, "checksum mismatch, default: rc %d %s" % (rc, err[-300:]))
        for q in ("?dap4.checksum=false#dap4", "#dap4&hyrax"):
            rc, out, err = run([ncdump, "http://%s/bad/badcrc.nc%s" % (host, q)])
            nctst.check(rc == 0, "checksum mismatch unverified (%s): rc %d %s" % (q, rc, err[-300:]))
        rc, out, err = run([ncdump, "http://%s/nosuch.nc#dap4" % host])
        nctst.check(rc != 0, "missing dataset opened")
        # 5. netCDF4-python on our library over http = on the reference locally
        so = os.path.abspath(os.path.join(libdir, "libnetcdf.so.22"))
        if os.environ.get("NCT_SANITIZE") or not os.path.exists(so):
            print("python interop left out (sanitizer build)")
        else:
            lib = os.path.join(work, "lib")
            os.makedirs(lib, exist_ok=True)
            link = os.path.join(lib, "libnetcdf.so.19")
            if os.path.lexists(link):
                os.remove(link)
            os.symlink(so, link)
            me = os.path.abspath(__file__)
            urls = ["http://%s/%s.nc#dap4" % (host, n) for n in twins]
            files = [os.path.join(srv, n + ".nc") for n in twins]
            ours = subprocess.run([PY, me, "--child"] + urls, capture_output=True, text=True,
                                  timeout=300, env=dict(os.environ, LD_LIBRARY_PATH=lib))
            ref = subprocess.run([PY, me, "--child"] + files, capture_output=True, text=True,
                                 timeout=300)
            nctst.check(ours.returncode == 0, "python on ours: " + ours.stderr[-400:])
            nctst.check(ref.returncode == 0, "python on the reference: " + ref.stderr[-400:])
            o, r = ours.stdout.splitlines(), ref.stdout.splitlines()
            # the same slice twice: one request (the cache), then one per new slice
            get(port, "_reset")
            rd = subprocess.run([PY, me, "--reads", "http://%s/many.nc#dap4" % host],
                                capture_output=True, text=True, timeout=120,
                                env=dict(os.environ, LD_LIBRARY_PATH=lib))
            c = counts(port)
            nctst.check(rd.returncode == 0 and json.loads(rd.stdout) == [True, True, 905],
                        "reads: %s %s" % (rd.stdout, rd.stderr[-300:]))
            nctst.check(c.get("/many.nc.dmr") == 1 and c.get("/many.nc.dap") == 3,
                        "reads: requests %s (want the DMR and 3 slices)" % c)
            nctst.check(o and o[0].startswith("libversion 4.10.1"), "python did not load ours")
            nctst.check(len(o) > 30 and len(o) == len(r), "%d lines, reference %d" % (len(o), len(r)))
            for i, (a, b) in enumerate(zip(o[1:], r[1:])):
                if not nctst.check(a == b, "python line %d: ours %r, reference %r" % (i, a[:200], b[:200])):
                    break
    nctst.finish("tst_dap4_http")


if __name__ == "__main__":
    main()
