#!/usr/bin/env python3
"""tst_ref.py: kerchunk reference files opened as read-only Zarr stores
(URL#mode=zarr,reference).

    tst_ref.py NCDUMP LIBDIR WORKDIR

The test writes a netCDF-4 file (netCDF4-python), finds its chunks with
h5py, and writes reference files the way kerchunk does, from the format's
description: version 0 (a flat map, metadata as JSON text, one chunk
inline as base64), version 1 with "templates" and a "gen" entry, and
version 1 whose targets are URLs of the loopback rangeserver.py (read
through the remote reader), itself served remotely.  Each must print the
values ncdump prints for the netCDF-4 file, and zarr-python 2 reading the
same files through fsspec's ReferenceFileSystem must see the same values
(so the files are what kerchunk writes).  Hostile references (a range past
its target's end, bad JSON, a missing target) are clean errors.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
import nctst  # noqa: E402
import rtest  # noqa: E402

NCDUMP, LIBDIR, WORK = sys.argv[1:4]
PY = "/usr/bin/python3"

MAKE = r"""
import json, sys, h5py, numpy as np, netCDF4
src = sys.argv[1]
with netCDF4.Dataset(src, 'w') as d:
    d.createDimension('y', 30); d.createDimension('x', 40)
    v = d.createVariable('t', 'f4', ('y', 'x'), zlib=True, complevel=1, shuffle=True,
                         chunksizes=(8, 16), fill_value=-99.0)
    v[:] = np.arange(1200, dtype='f4').reshape(30, 40) / 7
    v[29, 39] = -99.0
    c = d.createVariable('c', 'i4', ('x',), contiguous=True)
    c[:] = np.arange(40) * 3 - 7
out = {'t': [], 'c': None}
with h5py.File(src, 'r') as f:
    t = f['t']
    for i in range(t.id.get_num_chunks()):
        ci = t.id.get_chunk_info(i)
        out['t'].append([ci.chunk_offset[0] // 8, ci.chunk_offset[1] // 16, ci.byte_offset, ci.size])
    out['c'] = f['c'].id.get_offset()
print(json.dumps(out))
"""

ZGROUP = json.dumps({"zarr_format": 2})
TARRAY = {"shape": [30, 40], "chunks": [8, 16], "dtype": "<f4",
          "compressor": {"id": "zlib", "level": 1},
          "filters": [{"id": "shuffle", "elementsize": 4}], "fill_value": -99.0,
          "order": "C", "zarr_format": 2}
TATTRS = {"_ARRAY_DIMENSIONS": ["y", "x"], "units": "K"}


def carray(chunk):
    return {"shape": [40], "chunks": [chunk], "dtype": "<i4", "compressor": None,
            "filters": None, "fill_value": None, "order": "C", "zarr_format": 2}


CATTRS = {"_ARRAY_DIMENSIONS": ["x"]}


def v0(target, info, src):
    refs = {".zgroup": ZGROUP, ".zattrs": json.dumps({"title": "kerchunk me"}),
            "t/.zarray": json.dumps(TARRAY), "t/.zattrs": json.dumps(TATTRS),
            "c/.zarray": json.dumps(carray(40)), "c/.zattrs": json.dumps(CATTRS),
            "c/0": [target, info["c"], 160]}
    with open(src, "rb") as f:
        blob = f.read()
    for k, (i, j, off, size) in enumerate(info["t"]):
        if k == 0:   # inline, as kerchunk inlines small chunks
            refs["t/%d.%d" % (i, j)] = "base64:" + base64.b64encode(blob[off:off + size]).decode()
        else:
            refs["t/%d.%d" % (i, j)] = [target, off, size]
    return refs


def v1(target, info):
    refs = {".zgroup": ZGROUP, ".zattrs": json.dumps({"title": "kerchunk me"}),
            "t/.zarray": json.dumps(TARRAY), "t/.zattrs": json.dumps(TATTRS),
            "c/.zarray": json.dumps(carray(10)), "c/.zattrs": json.dumps(CATTRS)}
    for i, j, off, size in info["t"]:
        refs["t/%d.%d" % (i, j)] = ["{{u}}", off, size]
    return {"version": 1, "templates": {"u": target},
            "gen": [{"key": "c/{{i}}", "url": "{{u}}",
                     "offset": "{{%d + i * 40}}" % info["c"], "length": "{{ 4 * 10 }}",
                     "dimensions": {"i": {"start": 0, "stop": 4, "step": 1}}}],
            "refs": refs}


def values(out, name):
    """The data of variable name in ncdump output, as one string."""
    m = re.search(r"\n %s =\s*(.*?);" % name, out, re.S)
    return re.sub(r"\s+", "", m.group(1)) if m else None


def env():
    e = dict(os.environ)
    e["LD_LIBRARY_PATH"] = LIBDIR + ":" + e.get("LD_LIBRARY_PATH", "")
    return e


def dump(target, *opts):
    r = subprocess.run([NCDUMP] + list(opts) + [target], capture_output=True, env=env(), timeout=120)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


ZARR = r"""
import json, sys, fsspec, zarr, numpy as np
ref = json.load(open(sys.argv[1]))
fs = fsspec.filesystem('reference', fo=ref)
g = zarr.open_group(fs.get_mapper(''), mode='r')
print(json.dumps({k: np.asarray(g[k][...]).ravel().tolist() for k in ('t', 'c')}))
"""


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    data = os.path.join(WORK, "data")
    os.makedirs(data)
    src = os.path.join(data, "k.nc")
    r = subprocess.run([PY, "-c", MAKE, src], capture_output=True, timeout=120)
    if r.returncode != 0:
        nctst.skip("netCDF4-python / h5py: %s" % r.stderr.decode()[-300:])
    info = json.loads(r.stdout)
    _, want, _ = dump(src)
    want_t, want_c = values(want, "t"), values(want, "c")
    # The Zarr side prints its fill value as a number.
    want_t = want_t and re.sub(r"(^|,)_(?=,|$)", r"\1-99", want_t)
    nctst.check(want_t and want_c, "local dump has t and c")

    def write(name, obj):
        p = os.path.join(data, name)
        with open(p, "w") as f:
            json.dump(obj, f)
        return p

    files = {"v0": write("v0.json", v0(src, info, src)),
             "v1": write("v1.json", v1(src, info)),
             "v1rel": write("v1rel.json", v1("k.nc", info))}
    have_fsspec = subprocess.run([PY, "-c", "import fsspec, zarr"], capture_output=True).returncode == 0

    with rtest.server(data, WORK) as port:
        base = "http://127.0.0.1:%d" % port
        files["v1http"] = write("v1http.json", v1(base + "/k.nc", info))
        targets = {k: "file://%s#mode=zarr,reference" % p for k, p in files.items()}
        targets["remote_json"] = "%s/v1http.json#mode=zarr,reference" % base
        for name, target in targets.items():
            rtest.control(port, "reset")
            rc, out, err = dump(target)
            st = rtest.control(port, "stats")
            nctst.check(rc == 0, "%s: ncdump: %s" % (name, err))
            nctst.check(values(out, "t") == want_t, "%s: t differs" % name)
            nctst.check(values(out, "c") == want_c, "%s: c differs" % name)
            nctst.check("units = \"K\"" in out and "title = \"kerchunk me\"" in out,
                        "%s: attributes" % name)
            if name in ("v1http", "remote_json"):
                # The file is smaller than a block: one request for the
                # target (and one for the reference file).
                nctst.check(0 < st["requests"] <= 3, "%s: %d requests" % (name, st["requests"]))
        # zarr-python 2 through fsspec's ReferenceFileSystem on the same files.
        if have_fsspec:
            # fsspec reads http targets with aiohttp, when installed.
            aio = subprocess.run([PY, "-c", "import aiohttp"], capture_output=True).returncode == 0
            for name in ("v0", "v1", "v1http") if aio else ("v0", "v1"):
                r = subprocess.run([PY, "-c", ZARR, files[name]], capture_output=True, timeout=120)
                ok = r.returncode == 0
                if ok:
                    got = json.loads(r.stdout)
                    exp_c = [int(x) for x in want_c.split(",")]
                    ok = got["c"] == exp_c and len(got["t"]) == 1200
                nctst.check(ok, "%s through fsspec/zarr: %s" % (name, r.stderr.decode()[-500:]))
        else:
            print("fsspec or zarr missing: not compared with zarr-python")

    # Hostile references: clean errors.
    bad = v1(src, info)
    bad["refs"]["t/0.0"] = ["{{u}}", os.path.getsize(src) - 10, 100]
    rc, out, err = dump("file://%s#mode=zarr,reference" % write("past.json", bad))
    nctst.check(rc != 0 and values(out, "t") is None, "range past the end: rc %d %s" % (rc, err))
    with open(os.path.join(data, "broken.json"), "w") as f:
        f.write('{"version": 1, "refs": {".zgroup": ')
    rc, out, err = dump("file://%s#mode=zarr,reference" % os.path.join(data, "broken.json"))
    nctst.check(rc != 0, "broken JSON: rc %d" % rc)
    gone = v1(os.path.join(data, "nosuch.nc"), info)
    rc, out, err = dump("file://%s#mode=zarr,reference" % write("gone.json", gone))
    nctst.check(rc != 0, "missing target: rc %d" % rc)
    rc, out, err = dump("file://%s#mode=zarr,reference" % os.path.join(data, "nosuch.json"))
    nctst.check(rc != 0, "missing reference file: rc %d" % rc)
    huge = v1(src, info)
    huge["gen"][0]["dimensions"] = {"i": 10**12}
    rc, out, err = dump("file://%s#mode=zarr,reference" % write("huge.json", huge))
    nctst.check(rc != 0, "a gen of 10^12 keys: rc %d" % rc)
    nctst.finish("tst_ref")


if __name__ == "__main__":
    main()
