#!/usr/bin/env python3
"""tst_dap2_encode.py: the DAP2 client parameter "encode" (none, path, query,
all, lists of them) against the reference ncdump (4.9.0) on the loopback
server, which records each request target byte for byte (/_requests).

    tst_dap2_encode.py OUR_NCDUMP DATADIR WORKDIR

A dataset is served twice: as "plain" and inside a directory "d s".  For
each URL and mode, our request targets are the reference's (as a set: the
reference also fetches the unconstrained DDS first) and both print the same
header; where the reference is wrong (docs/differences.md) ours is checked
against the expected bytes and against the reference's output for the same
dataset reached another way.  Exit 77 when the reference or the HTTP layer
is missing.
"""
import json
import os
import shutil
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
sys.path.insert(0, HERE)
import nctst  # noqa: E402
import run_http  # noqa: E402

REF = "/usr/bin/ncdump"
DATASET = "test.sds1"
CE_RAW = "SDS_DFNT_INT32[0:2],SDS_DFNT_UINT8"
CE_ENC = "SDS_DFNT_INT32%5b0:2%5d,SDS_DFNT_UINT8"
# mode fragment -> (path encoded, query encoded), as upstream reads the list
MODES = {"": (0, 1), "#encode=none": (0, 0), "#encode=path": (1, 0),
         "#encode=query": (0, 1), "#encode=all": (1, 1), "#encode=path,query": (1, 1),
         "#encode=query,none": (0, 0), "#encode=bogus": (0, 0)}


def http(port, what):
    with urllib.request.urlopen("http://127.0.0.1:%d/%s" % (port, what), timeout=10) as f:
        return f.read()


def body(out):
    """ncdump's output without its first line (which names the dataset)."""
    return out.split(b"\n", 1)[-1]


def dump(port, prog, args, url):
    http(port, "_reset")
    r = subprocess.run([prog] + args + [url], capture_output=True, timeout=60)
    return r.returncode, r.stdout, json.loads(http(port, "_requests"))


def main():
    ours, data, work = sys.argv[1:4]
    if not os.path.exists(REF):
        nctst.skip("no reference ncdump")
    srv = os.path.join(work, "data")
    shutil.rmtree(srv, ignore_errors=True)
    os.makedirs(os.path.join(srv, "d s"))
    for ext in ("dds", "das", "dods"):
        src = os.path.join(data, "%s.%s" % (DATASET, ext))
        shutil.copy(src, os.path.join(srv, "plain.%s" % ext))
        shutil.copy(src, os.path.join(srv, "d s", "t{1}.%s" % ext))
    with run_http.server(srv, work) as ports:
        port = ports[0]
        base = "http://127.0.0.1:%d/" % port
        _, want_h, _ = dump(port, REF, ["-h"], base + "plain")
        _, want_v, _ = dump(port, REF, ["-v", "SDS_DFNT_INT32"], base + "plain?" + CE_RAW)
        nctst.check(b"SDS_DFNT_INT32 =" in want_v, "reference: no data over http")
        for mode, (epath, equery) in MODES.items():
            # the constraint: brackets %5b %5d (lowercase, as upstream) or raw
            url = base + "plain?" + CE_RAW + mode
            rr, rout, rreq = dump(port, REF, ["-h"], url)
            orc, oout, oreq = dump(port, ours, ["-h"], url)
            ce = CE_ENC if equery else CE_RAW
            nctst.check(("/plain.dds?" + ce) in oreq, "%s: ours sent %s" % (mode, oreq))
            nctst.check(set(oreq) == set(rreq), "%s: ours %s, reference %s" % (mode, oreq, rreq))
            nctst.check(orc == rr == 0 and oout == rout, "%s: -h differs" % mode)
            # data requests carry the constraint encoded the same way
            orc, oout, oreq = dump(port, ours, ["-v", "SDS_DFNT_INT32"], url)
            dods = [r for r in oreq if r.startswith("/plain.dods?")]
            nctst.check(orc == 0 and oout == want_v and dods, "%s: data differs" % mode)
            nctst.check(all((("[" in r) != bool(equery)) and (("%5b" in r) == bool(equery))
                            for r in dods), "%s: data requests %s" % (mode, dods))
            # a path already escaped: "%20" stays (the reference's encode=path
            # sends %2520, a name the server does not have)
            url = base + "d%20s/t%7b1%7d" + mode
            rr, rout, rreq = dump(port, REF, ["-h"], url)
            orc, oout, oreq = dump(port, ours, ["-h"], url)
            nctst.check(oreq == ["/d%20s/t%7b1%7d.dds", "/d%20s/t%7b1%7d.das"],
                        "%s: ours sent %s" % (mode, oreq))
            nctst.check(orc == 0 and body(oout) == body(want_h),
                        "%s: escaped path: ours fails or differs" % mode)
            if epath:
                nctst.check(rreq == ["/d%2520s/t%257b1%257d.dds"] and rr != 0,
                            "%s: reference sent %s" % (mode, rreq))
            else:
                nctst.check(set(rreq) == set(oreq) and rr == 0 and rout == oout,
                            "%s: escaped path: reference %s" % (mode, rreq))
            # a raw path: braces escaped only when the path is; the space,
            # which no request line can carry, always (the reference's curl
            # refuses the URL unless the path is encoded)
            url = base + "d s/t{1}" + mode
            rr, rout, rreq = dump(port, REF, ["-h"], url)
            orc, oout, oreq = dump(port, ours, ["-h"], url)
            p = "/d%20s/t%7b1%7d" if epath else "/d%20s/t{1}"
            nctst.check(oreq == [p + ".dds", p + ".das"], "%s: ours sent %s" % (mode, oreq))
            nctst.check(orc == 0 and body(oout) == body(want_h),
                        "%s: raw path: ours fails or differs" % mode)
            if epath:
                nctst.check(set(rreq) == set(oreq) and rr == 0 and rout == oout,
                            "%s: raw path: reference %s" % (mode, rreq))
            else:
                nctst.check(rreq == [] and rr != 0, "%s: reference sent %s" % (mode, rreq))
    nctst.finish("tst_dap2_encode")


if __name__ == "__main__":
    main()
