#!/usr/bin/env python3
"""tst_dap2_http.py: the DAP2 client over http against the loopback server
(dapserver.py answering constraints with dap2subset.py).

    tst_dap2_http.py OUR_NCDUMP LIBNETCDF DATADIR WORKDIR [all]

With "all": only the sweep of every recorded dataset, our ncdump over http
against the reference over file:// (slow).  Without:

- our ncdump prints over http what the reference ncdump prints over http and
  what ours prints over file:// (-h and data);
- requests: ncdump -h of a dataset is 2 requests (DDS and DAS), plain
  ncdump 3 (and one prefetch of the small variables); a strided nc_get_vars
  is one request (the prefetch, or with #noprefetch one constrained request)
  with the values of the same read over file://; a whole variable is then
  read from the prefetch, or once and then from the response cache;
- a constrained .dods the server builds with dap2subset.py decodes to the
  values of the unconstrained response (the subsetter checked on its own).
Exit 77 when the reference ncdump or the HTTP layer is missing.
"""
import ctypes
import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
sys.path.insert(0, HERE)
import nctst  # noqa: E402
import run_http  # noqa: E402

REF = "/usr/bin/ncdump"
# Datasets the reference also reads correctly over this server.
SAMPLE = ["test.01", "test.03", "123bears.nc", "kwcase.nc", "test.07"]

# Constraint expressions in the URL (projections, hyperslabs, a whole grid
# with a hyperslab, variables left out).
CONSTRAINED = ["test.03?b2,i16[0:1][1][0:1]", "fnoc1.nc?u[0:2:10][1][3:5],lat",
               "123bears.nc?order,bears", "kwcase.nc?SST[0:2:8]",
               "test.03?ui32[1][0:2:2][1:3][0][0:1],s1[1][2:3][4]",
               # the dataset name leaves out the query (whose dot is no
               # extension) and the fragment
               "kwcase.nc?SST.SST[1:3:10]", "synth3?S1.v1#nofillmismatch"]
# Where the reference is wrong (docs/differences.md): [0:2:2] selects
# indices 0 and 2 (the server's DDS says 2), the reference shows one.
REFBUGS = {"test.03?ui32[1][0:2:2][1:3][0][0:1],s1[1][2:3][4]"}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, timeout=120)
    return r.returncode, r.stdout


def counts(port, reset=False):
    url = "http://127.0.0.1:%d/%s" % (port, "_reset" if reset else "_count")
    with urllib.request.urlopen(url, timeout=10) as f:
        body = f.read()
    return None if reset else json.loads(body)


def sweep(ours, data, work):
    """Every recorded dataset: our ncdump over http prints what the
    reference prints over file://."""
    names = sorted(f[:-4] for f in os.listdir(data) if f.endswith(".dds"))
    with run_http.server(data, work, lifetime=900) as ports:
        base = "http://127.0.0.1:%d/" % ports[0]
        for n in names:
            rr, rout = run([REF, "file://%s/%s" % (data, n)])
            orc, oout = run([ours, base + n])
            nctst.check(orc == rr and oout == rout, "%s: ours over http differs from the reference" % n)
    nctst.finish("tst_dap2_http all")


# Reads one whole Float32 array of NBIG values over http in a fresh process
# (or every second value with a stride: the values go straight into the
# caller's buffer) and prints the growth of its peak RSS in KiB (the
# caller's buffer is touched before).
BIG_READER = r"""
import ctypes, sys
def hwm():  # this process's peak RSS (ru_maxrss can carry the parent's)
    with open("/proc/self/status") as f:
        return int(next(l for l in f if l.startswith("VmHWM:")).split()[1])
nc = ctypes.CDLL(sys.argv[1])
step = int(sys.argv[4])  # 1: nc_get_var of all; 2: nc_get_vars of every second value from 1
n = int(sys.argv[3]) // step
buf = (ctypes.c_float * n)()
ctypes.memset(buf, 1, ctypes.sizeof(buf))
ncid, varid = ctypes.c_int(), ctypes.c_int()
assert nc.nc_open(sys.argv[2].encode(), 0, ctypes.byref(ncid)) == 0
assert nc.nc_inq_varid(ncid, b"big", ctypes.byref(varid)) == 0
before = hwm()
if step == 1:
    assert nc.nc_get_var_float(ncid, varid, buf) == 0
else:
    assert nc.nc_get_vars_float(ncid, varid, (ctypes.c_size_t * 1)(1), (ctypes.c_size_t * 1)(n),
                                (ctypes.c_ssize_t * 1)(step), buf) == 0
after = hwm()
first = step - 1
assert all(buf[i] == float(first + step * i) for i in range(0, n, 4099))
assert buf[n - 1] == float(first + step * (n - 1))
nc.nc_close(ncid)
print(after - before)
"""
NBIG = 1 << 20


def big_read_memory(lib, work):
    """Peak memory of a whole read of a 4 MiB variable over http: the body
    decoded in place is about one copy (the body and a decoded copy were two)."""
    import array
    d = os.path.join(work, "big")
    os.makedirs(d, exist_ok=True)
    dds = "Dataset {\n    Float32 big[n = %d];\n} big;\n" % NBIG
    vals = array.array("f", range(NBIG))
    if sys.byteorder == "little":
        vals.byteswap()
    with open(os.path.join(d, "big.dds"), "w") as f:
        f.write(dds)
    with open(os.path.join(d, "big.das"), "w") as f:
        f.write("Attributes {\n}\n")
    with open(os.path.join(d, "big.dods"), "wb") as f:
        f.write(dds.encode() + b"Data:\n" + (NBIG).to_bytes(4, "big") * 2 + vals.tobytes())
    with run_http.server(d, os.path.join(work, "bigsrv")) as ports:
        url = "http://127.0.0.1:%d/big#noprefetch" % ports[0]
        r = subprocess.run([sys.executable, "-c", BIG_READER, lib, url, str(NBIG), "1"],
                           capture_output=True, text=True, timeout=120)
        grown = int(r.stdout.strip() or -1) if r.returncode == 0 else -1
        print("whole 4 MiB read over http: peak RSS grew %d KiB" % grown)
        nctst.check(0 <= grown <= NBIG * 4 * 3 // 2 // 1024,
                    "whole 4 MiB read: peak RSS grew %d KiB (want <= 1.5 x 4096; %s)"
                    % (grown, r.stderr[-300:]))
        # strided: 2 MiB of values, no body held beside them (was about 2 MiB more)
        r = subprocess.run([sys.executable, "-c", BIG_READER, lib, url, str(NBIG), "2"],
                           capture_output=True, text=True, timeout=120)
        grown = int(r.stdout.strip() or -1) if r.returncode == 0 else -1
        print("strided 2 MiB read over http: peak RSS grew %d KiB" % grown)
        nctst.check(0 <= grown <= NBIG * 2 // 4 // 1024,
                    "strided 2 MiB read: peak RSS grew %d KiB (want <= 512; %s)"
                    % (grown, r.stderr[-300:]))


def main():
    ours, lib, data, work = sys.argv[1:5]
    if not os.path.exists(REF):
        nctst.skip("no reference ncdump")
    os.makedirs(work, exist_ok=True)
    if len(sys.argv) > 5 and sys.argv[5] == "all":
        return sweep(ours, data, work)
    nc = nctst.load_lib(lib)
    os.makedirs(os.path.join(work, "bigsrv"), exist_ok=True)
    big_read_memory(lib, work)
    with run_http.server(data, work) as ports:
        port = ports[0]
        base = "http://127.0.0.1:%d/" % port
        for n in SAMPLE:
            for opt in (["-h"], []):
                rr, rout = run([REF] + opt + [base + n])
                orc, oout = run([ours] + opt + [base + n])
                frc, fout = run([ours] + opt + ["file://%s/%s" % (data, n)])
                nctst.check(orc == 0 and oout == fout, "%s %s: http differs from file://" % (n, opt))
                if rr == 0:
                    nctst.check(oout == rout, "%s %s: ours and the reference differ over http" % (n, opt))
        # constraint expressions in the URL restrict what is seen
        for q in CONSTRAINED:
            rr, rout = run([REF, base + q])
            orc, oout = run([ours, base + q])
            nctst.check(orc == 0, "%s: status %d" % (q, orc))
            if q in REFBUGS:
                nctst.check(oout != rout, "%s: the reference's bug is gone?" % q)
            else:
                nctst.check(rr == 0 and oout == rout, "%s: ours and the reference differ" % q)
        # a file:// URL takes no constraint, as upstream
        nctst.check(run([ours, "file://%s/test.03?b2" % data])[0] != 0, "file:// with a constraint")
        # ncdump -h: the DDS and the DAS, nothing else
        counts(port, reset=True)
        orc, _ = run([ours, "-h", base + "test.03"])
        c = counts(port)
        nctst.check(orc == 0 and c.get("total") == 2, "ncdump -h: %s requests (want 2)" % c)
        # plain ncdump: DDS, DAS and one prefetch of the small variables
        counts(port, reset=True)
        orc, _ = run([ours, base + "test.03"])
        c = counts(port)
        nctst.check(orc == 0 and c.get("total") == 3, "ncdump: %s requests (want 3)" % c)
        # strided reads, with and without the prefetch
        fid, fvar = ctypes.c_int(), ctypes.c_int()
        nctst.check(nc.nc_open(("file://%s/test.03" % data).encode(), 0, ctypes.byref(fid)) == 0,
                    "open file://")
        nc.nc_inq_varid(fid, b"ui32", ctypes.byref(fvar))
        start = (ctypes.c_size_t * 5)(1, 0, 1, 0, 1)
        count = (ctypes.c_size_t * 5)(1, 2, 2, 3, 1)
        stride = (ctypes.c_ssize_t * 5)(1, 2, 2, 1, 1)
        want = (ctypes.c_int * 12)()
        wantall = (ctypes.c_int * 144)()
        nctst.check(nc.nc_get_vars_int(fid, fvar, start, count, stride, want) == 0, "file:// read")
        nctst.check(nc.nc_get_var_int(fid, fvar, wantall) == 0, "file:// whole read")
        # a response larger than cachelimit is not kept: read again, asked again
        for frag, strided, whole, again in (("", 1, 0, 0), ("#noprefetch", 1, 1, 0),
                                            ("#noprefetch&cachelimit=200", 1, 1, 1)):
            ncid, varid = ctypes.c_int(), ctypes.c_int()
            url = base + "test.03" + frag
            if not nctst.check(nc.nc_open(url.encode(), 0, ctypes.byref(ncid)) == 0, "open " + url):
                continue
            nc.nc_inq_varid(ncid, b"ui32", ctypes.byref(varid))
            got = (ctypes.c_int * 12)()
            counts(port, reset=True)
            s1 = nc.nc_get_vars_int(ncid, varid, start, count, stride, got)
            c = counts(port)
            nctst.check(s1 == 0 and list(got) == list(want), "%s: strided values %s, want %s"
                        % (url, list(got), list(want)))
            nctst.check(c.get("total") == strided, "%s: strided nc_get_vars: %s requests (want %d)"
                        % (url, c, strided))
            gotall = (ctypes.c_int * 144)()
            for n, label in ((whole, "first"), (again, "second")):
                counts(port, reset=True)
                s1 = nc.nc_get_var_int(ncid, varid, gotall)
                c = counts(port)
                nctst.check(s1 == 0 and list(gotall) == list(wantall), "%s: whole values" % url)
                nctst.check(c.get("total") == n, "%s: %s nc_get_var: %s requests (want %d)"
                            % (url, label, c, n))
            nc.nc_close(ncid)
        nc.nc_close(fid)
        # each numeric array of test.03 read whole in its own type (one
        # array per response: decoded in place) equals the file:// values
        for name, ctype, n in (("b", ctypes.c_ubyte, 24), ("b2", ctypes.c_ubyte, 6),
                               ("i32", ctypes.c_int, 24), ("i16", ctypes.c_short, 8),
                               ("ui16", ctypes.c_ushort, 8), ("f32", ctypes.c_float, 8),
                               ("f64", ctypes.c_double, 8)):
            got = []
            for url in (base + "test.03#noprefetch", "file://%s/test.03" % data):
                ncid, varid = ctypes.c_int(), ctypes.c_int()
                buf = (ctype * n)()
                ok = (nc.nc_open(url.encode(), 0, ctypes.byref(ncid)) == 0
                      and nc.nc_inq_varid(ncid, name.encode(), ctypes.byref(varid)) == 0
                      and nc.nc_get_var(ncid, varid, buf) == 0)
                nc.nc_close(ncid)
                got.append(list(buf) if ok else None)
            nctst.check(got[0] is not None and got[0] == got[1],
                        "test.03 %s whole: http %s, file:// %s" % (name, got[0], got[1]))
        # the same arrays read in part (every second index of the first
        # dimension): the response decoded straight into the caller's buffer
        for name, ctype in (("b", ctypes.c_ubyte), ("i32", ctypes.c_int), ("i16", ctypes.c_short),
                            ("ui16", ctypes.c_ushort), ("f32", ctypes.c_float),
                            ("f64", ctypes.c_double), ("ui32", ctypes.c_uint)):
            got = []
            for url in (base + "test.03#noprefetch", "file://%s/test.03" % data):
                ncid, varid, nd = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
                ok = (nc.nc_open(url.encode(), 0, ctypes.byref(ncid)) == 0
                      and nc.nc_inq_varid(ncid, name.encode(), ctypes.byref(varid)) == 0
                      and nc.nc_inq_varndims(ncid, varid, ctypes.byref(nd)) == 0)
                dimids = (ctypes.c_int * 8)()
                nc.nc_inq_vardimid(ncid, varid, dimids)
                lens = []
                for i in range(nd.value):
                    ln = ctypes.c_size_t()
                    nc.nc_inq_dimlen(ncid, dimids[i], ctypes.byref(ln))
                    lens.append(ln.value)
                cnt = [(lens[0] + 1) // 2] + lens[1:]
                total = 1
                for c in cnt:
                    total *= c
                buf = (ctype * total)()
                k = len(cnt)
                ok = ok and nc.nc_get_vars(ncid, varid, (ctypes.c_size_t * k)(*([0] * k)),
                                           (ctypes.c_size_t * k)(*cnt),
                                           (ctypes.c_ssize_t * k)(*([2] + [1] * (k - 1))), buf) == 0
                nc.nc_close(ncid)
                got.append(list(buf) if ok else None)
            nctst.check(got[0] is not None and got[0] == got[1],
                        "test.03 %s strided: http %s, file:// %s" % (name, got[0], got[1]))
        # a large variable (fnoc1.nc u, 5712 values, not prefetched): a
        # strided read after the prefetch is one constrained request
        ids = [(ctypes.c_int(), ctypes.c_int()) for _ in range(2)]
        urls = [base + "fnoc1.nc", "file://%s/fnoc1.nc" % data]
        vals = []
        for (ncid, varid), url in zip(ids, urls):
            if not nctst.check(nc.nc_open(url.encode(), 0, ctypes.byref(ncid)) == 0, "open " + url):
                return nctst.finish("tst_dap2_http")
            nc.nc_inq_varid(ncid, b"u", ctypes.byref(varid))
            small, lat = (ctypes.c_float * 17)(), ctypes.c_int()
            nc.nc_inq_varid(ncid, b"lat", ctypes.byref(lat))
            nctst.check(nc.nc_get_var_float(ncid, lat, small) == 0, url + ": lat")
            start = (ctypes.c_size_t * 3)(1, 2, 3)
            count = (ctypes.c_size_t * 3)(3, 4, 5)
            stride = (ctypes.c_ssize_t * 3)(5, 3, 4)
            got = (ctypes.c_short * 60)()
            counts(port, reset=True)
            nctst.check(nc.nc_get_vars_short(ncid, varid, start, count, stride, got) == 0,
                        url + ": strided read")
            c = counts(port)
            if url.startswith("http"):
                nctst.check(c.get("total") == 1, "fnoc1.nc u strided: %s requests (want 1)" % c)
            vals.append(list(got))
            nc.nc_close(ncid)
        nctst.check(vals[0] == vals[1], "fnoc1.nc u: http %s, file:// %s" % (vals[0][:6], vals[1][:6]))
        client_params(nc, ours, base, port, vals[1])
        members(nc, ours, base, port, data)
    nctst.finish("tst_dap2_http")


def requests(port):
    url = "http://127.0.0.1:%d/_requests" % port
    with urllib.request.urlopen(url, timeout=10) as f:
        return [urllib.parse.unquote(r) for r in json.loads(f.read())]


def client_params(nc, ours, base, port, want):
    """show=fetch (with logging on: the [log] prefix, the log fragment key or
    NCLOGGING) prints each request and its time as the reference does;
    wholevar makes a partial read fetch (and cache) the whole variable."""
    env = dict(os.environ)
    env.pop("NCLOGGING", None)
    for url, extra in (("[log][show=fetch]" + base + "test.03", {}),
                       (base + "test.03#show=fetch&log", {}),
                       (base + "test.03#show=fetch", {"NCLOGGING": "1"}),
                       (base + "test.03#show=fetch", None)):
        e = dict(env, **(extra or {}))
        got = []
        for exe in (ours, REF):
            r = subprocess.run([exe, "-v", "i32", url], capture_output=True, text=True,
                               timeout=120, env=e)
            notes = [l for l in r.stderr.splitlines() if l.startswith("Note:fetch")]
            got.append((r.returncode, notes))
        (orc, ours_notes), (rrc, ref_notes) = got
        fetched = [l for l in ours_notes if not l.startswith("Note:fetch complete: ")]
        done = [l for l in ours_notes if l.startswith("Note:fetch complete: ") and l.endswith(" secs")]
        if extra is None:  # logging off: nothing, as the reference
            nctst.check(orc == 0 and ours_notes == [] and ref_notes == [],
                        "%s, no log: %s / %s" % (url, ours_notes, ref_notes))
            continue
        nctst.check(orc == 0 and len(fetched) == 3 and len(done) == 3,
                    "%s: our log %s" % (url, ours_notes))
        # the reference asks for the DDS twice; the same URLs otherwise
        nctst.check(rrc == 0 and set(fetched) == {l for l in ref_notes
                                                  if not l.startswith("Note:fetch complete")},
                    "%s: ours %s, the reference %s" % (url, fetched, ref_notes))
    # wholevar: a strided read asks for the whole variable, then reads from it
    start = (ctypes.c_size_t * 3)(1, 2, 3)
    count = (ctypes.c_size_t * 3)(3, 4, 5)
    stride = (ctypes.c_ssize_t * 3)(5, 3, 4)
    for frag, query in (("#noprefetch&wholevar", "u"), ("#noprefetch", "u[1:5:11][2:3:11][3:4:19]")):
        ncid, varid = ctypes.c_int(), ctypes.c_int()
        if not nctst.check(nc.nc_open((base + "fnoc1.nc" + frag).encode(), 0, ctypes.byref(ncid)) == 0,
                           "open fnoc1.nc" + frag):
            continue
        nc.nc_inq_varid(ncid, b"u", ctypes.byref(varid))
        got = (ctypes.c_short * 60)()
        counts(port, reset=True)
        st = nc.nc_get_vars_short(ncid, varid, start, count, stride, got)
        r1 = requests(port)
        nctst.check(st == 0 and list(got) == want, "fnoc1.nc%s: values" % frag)
        nctst.check(len(r1) == 1 and r1[0].endswith("/fnoc1.nc.dods?" + query),
                    "fnoc1.nc%s: requests %s (want ...?%s)" % (frag, r1, query))
        counts(port, reset=True)
        nc.nc_get_vars_short(ncid, varid, start, count, stride, got)
        n = len(requests(port))
        nctst.check(n == (0 if "wholevar" in frag else 1), "fnoc1.nc%s: read again: %d requests" % (frag, n))
        nc.nc_close(ncid)


REFLIB = "/usr/lib/x86_64-linux-gnu/libnetcdf.so.19"
# One nc_get_vars_double in a fresh process (the reference library is never
# loaded beside ours): prints the status, the values and the requests made.
VARS_READER = r"""
import ctypes, json, sys, urllib.request
lib, url, var, port = sys.argv[1:5]
st, ct, sd = (json.loads(a) for a in sys.argv[5:8])
nc = ctypes.CDLL(lib)
ncid, varid = ctypes.c_int(), ctypes.c_int()
assert nc.nc_open(url.encode(), 0, ctypes.byref(ncid)) == 0
assert nc.nc_inq_varid(ncid, var.encode(), ctypes.byref(varid)) == 0
n, tot = len(st), 1
for c in ct:
    tot *= c
buf = (ctypes.c_double * tot)()
urllib.request.urlopen("http://127.0.0.1:%s/_reset" % port).read()
r = nc.nc_get_vars_double(ncid, varid, (ctypes.c_size_t * n)(*st), (ctypes.c_size_t * n)(*ct),
                          (ctypes.c_ssize_t * n)(*sd), buf)
reqs = json.loads(urllib.request.urlopen("http://127.0.0.1:%s/_requests" % port).read())
nc.nc_close(ncid)
print(json.dumps([r, list(buf), reqs]))
"""


def vars_read(lib, url, port, var, st, ct, sd):
    r = subprocess.run([sys.executable, "-c", VARS_READER, lib, url, var, str(port),
                        json.dumps(st), json.dumps(ct), json.dumps(sd)],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None, None, [r.stderr[-300:]]
    st_, vals, reqs = json.loads(r.stdout)
    return st_, vals, [urllib.parse.unquote(q) for q in reqs]


def members(nc, ours, base, port, data):
    """Members of sequences and of structure arrays are fetched with a
    constraint naming them, as upstream does (never the whole .dods):
    sequence members whole (after one request per sequence for its record
    count), structure array members with the hyperslab on the array and on
    the member; no more requests than the reference, the values of file://."""
    lib = sys.argv[2]
    for opt, name in ((["-h"], "test.07"), ([], "test.07"), (["-v", "person.age"], "test.07"),
                      (["-v", "types.f32"], "test.50"),
                      # sequence limits: the first records ([0:N-1] on the sequence)
                      (["-h"], "test.07#limit=2"), ([], "test.07#limit=2"),
                      ([], "test.07#limit_types=3"), ([], "test.07#limit=2&nolimit_person")):
        got = []
        for exe in (ours, REF):
            counts(port, reset=True)
            rc, out = run([exe] + opt + [base + name])
            got.append((rc, out, requests(port)))
        (orc, oout, oreq), (rrc, rout, rreq) = got
        whole = [q for q in oreq if q.endswith(".dods")]
        nctst.check(orc == 0 and oout == rout, "%s %s: ours and the reference differ" % (name, opt))
        nctst.check(not whole and len(oreq) <= len(rreq),
                    "%s %s: requests %s (the reference %s)" % (name, opt, oreq, rreq))
    counts(port, reset=True)
    run([ours, base + "test.07#limit_types=3"])
    oreq = [q.split("?", 1)[1] for q in requests(port) if ".dods?" in q]
    nctst.check(oreq and all(q.startswith("types[0:2].") or q.startswith("person.") for q in oreq)
                and "types[0:2].f64" in oreq, "test.07#limit_types=3: .dods requests %s" % oreq)
    # ncdump -v person.age: the count of each sequence, nothing of the others' members
    counts(port, reset=True)
    run([ours, "-v", "person.age", base + "test.07"])
    oreq = [q.split("?", 1)[1] for q in requests(port) if ".dods?" in q]
    nctst.check(oreq == ["person.age", "types.b"], "-v person.age test.07: .dods requests %s" % oreq)
    # partial reads: (url, variable, start, count, stride, the query asked)
    cases = (("test.53#noprefetch", "types.ss.ui16", [1, 2], [3, 4], [3, 2],
              "types[1:3:7].ss.ui16[2:2:8]"),
             ("test.50#noprefetch", "types.f64", [1], [4], [2], "types[1:2:7].f64"),
             ("test.50#noprefetch", "types.i16", [0], [10], [1], "types.i16"),
             ("synth3#noprefetch", "S1.v1", [1, 0], [1, 2], [1, 2], "S1[1:1:1].v1[0:2:2]"),
             ("test.07#noprefetch", "types.f32", [1], [2], [1], "types.f32"),
             # read from the response that counted the records at open
             ("test.07#noprefetch", "person.age", [0], [5], [1], None))
    for url, var, st, ct, sd, query in cases:
        name = url.split("#")[0]
        ost, ovals, oreq = vars_read(lib, base + url, port, var, st, ct, sd)
        fst, fvals, _ = vars_read(lib, "file://%s/%s" % (data, name), port, var, st, ct, sd)
        nctst.check(ost == 0 and fst == 0 and ovals == fvals,
                    "%s %s: http %s, file:// %s" % (url, var, ovals, fvals))
        dods = [q for q in oreq if ".dods" in q]
        nctst.check(dods == ([] if query is None else ["/%s.dods?%s" % (name, query)]),
                    "%s %s: requests %s (want .dods?%s)" % (url, var, oreq, query))
        if os.path.exists(REFLIB):
            _, _, rreq = vars_read(REFLIB, base + url, port, var, st, ct, sd)
            nctst.check(len(oreq) <= len(rreq), "%s %s: requests %s, the reference %s"
                        % (url, var, oreq, rreq))


if __name__ == "__main__":
    main()
