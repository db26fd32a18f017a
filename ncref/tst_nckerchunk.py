#!/usr/bin/env python3
"""tst_nckerchunk.py: nckerchunk's reference files read by zarr-python and
by the library.

    tst_nckerchunk.py NCKERCHUNK NCDUMP NCGEN LIBDIR BYTERANGE WORKDIR

ncgen writes a netCDF-4 file with contiguous, compact, chunked and
deflate+shuffle variables of every atomic type, a big-endian variable, fill
values, unwritten variables, an unlimited dimension, nested groups, a
variable stored under HDF5's non-coordinate name, and variables a Zarr v2
array cannot describe (strings, a Fletcher32 checksum).  nckerchunk writes
reference files (plain, with small chunks inline, and with -u naming a URL
of the loopback rangeserver.py).  Then:
- zarr-python 2 through fsspec's ReferenceFileSystem reads every variable
  with the values and types netCDF4-python (on this library) reads from
  the original file;
- the library opens each reference file (#mode=zarr,reference) and
  ncdump's data section holds the same values as for the original file
  (the headers differ where Zarr has no equivalent: the unlimited
  dimension is fixed, dimensions are not scoped to groups, variables are
  listed by name);
- the variables it cannot describe are named on stderr and left out;
- a missing file, a file that is not HDF5 and a truncated HDF5 file are a
  message and exit code 1.
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
sys.path.insert(0, os.path.join(HERE, "..", "remote_test"))
import nctst  # noqa: E402

KC, NCDUMP, NCGEN, LIBDIR, BYTERANGE, WORK = sys.argv[1:7]
PY = "/usr/bin/python3"

CDL = r"""netcdf k {
dimensions:
  time = UNLIMITED ;
  y = 5 ;
  x = 7 ;
  n = 3 ;
variables:
  double time(time) ;
    time:units = "days since 2000-01-01" ;
  float temp(time, y, x) ;
    temp:_FillValue = -999.f ;
    temp:_ChunkSizes = 2, 3, 4 ;
    temp:_DeflateLevel = 4 ;
    temp:_Shuffle = "true" ;
    temp:scale = 1.5, 2.5 ;
    temp:long_name = "temperature \"quoted\"" ;
  int cont(y, x) ;
    cont:_Storage = "contiguous" ;
  short be(n) ;
    be:_Endianness = "big" ;
    be:_Storage = "contiguous" ;
  int compact(n) ;
    compact:_Storage = "compact" ;
  byte b(n) ;
  ubyte ub(n) ;
    ub:_FillValue = 7UB ;
  ushort us(n) ;
  uint ui(n) ;
  int64 i64(n) ;
  uint64 u64(n) ;
  char c(n) ;
  double sc ;
  float x(y) ;
  string str(n) ;
  float fl(n) ;
    fl:_Fletcher32 = "true" ;
  float nowrite(y) ;
  double nowrite_chunked(time, y) ;
    nowrite_chunked:_ChunkSizes = 1, 5 ;
  double fnan(n) ;
    fnan:_FillValue = NaN ;
  :title = "kerchunk me" ;
  :version = 3 ;
data:
  time = 0, 1, 2 ;
  temp = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
         26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
         _, _, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
         26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
         1.5, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
         26, 27, 28, 29, 30, 31, 32, 33, 34, -1e30 ;
  cont = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
         26, 27, 28, 29, 30, 31, 32, 33, 34, 35 ;
  be = -1, 2, 300 ;
  compact = 10, -20, 30 ;
  b = -1, 2, 3 ;
  ub = 255, _, 3 ;
  us = 65535, 2, 3 ;
  ui = 4000000000, 2, 3 ;
  i64 = -9000000000000, 2, 3 ;
  u64 = 18000000000000000000, 2, 3 ;
  c = "ab" ;
  sc = 3.25 ;
  x = 0.5, 1.5, 2.5, 3.5, 4.5 ;
  str = "a", "bb", "ccc" ;
  fl = 1, 2, 3 ;
  fnan = 1, _, 3 ;

group: g1 {
  dimensions:
    z = 4 ;
  variables:
    int v(z) ;
      v:_ChunkSizes = 2 ;
      v:_DeflateLevel = 1 ;
    float w(time, z) ;
      w:_ChunkSizes = 1, 4 ;
    :where = "g1" ;
  data:
    v = 1, 2, 3, 4 ;
    w = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;
  group: g2 {
    variables:
      double d(z) ;
    data:
      d = 0.5, 1.5, 2.5, 3.5 ;
  }
}
}
"""

# Every variable nckerchunk describes, by path; str and fl are skipped.
SKIPPED = {"str", "fl"}

# zarr-python 2 (through fsspec) against netCDF4-python on the original.
COMPARE = r"""
import collections.abc, json, sys
import fsspec, zarr, numpy as np, netCDF4

src, ref, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
fs = fsspec.filesystem("reference", fo=json.load(open(ref)))


class Store(collections.abc.MutableMapping):
    # One key at a time: this fsspec raises on a missing chunk in its
    # batched read instead of leaving it out (a missing chunk is fill).
    def __getitem__(self, k):
        if k not in fs.references:
            raise KeyError(k)
        return fs.cat_file(k)
    def __iter__(self):
        return iter(fs.references)
    def __len__(self):
        return len(fs.references)
    def __setitem__(self, k, v):
        raise PermissionError(k)
    def __delitem__(self, k):
        raise PermissionError(k)


z = zarr.open_group(Store(), mode="r")
bad = 0
with netCDF4.Dataset(src) as d:
    d.set_auto_maskandscale(False)
    d.set_auto_chartostring(False)
    for name in names:
        parts = name.split("/")
        g = d
        for p in parts[:-1]:
            g = g.groups[p]
        want = np.asarray(g.variables[parts[-1]][...])
        got = z[name][...]
        same = (want.shape == got.shape and want.dtype.kind == got.dtype.kind
                and want.dtype.itemsize == got.dtype.itemsize
                and np.array_equal(want, got, equal_nan=want.dtype.kind == "f"))
        if not same:
            print("FAIL: %s: netCDF4 %s %s %r, zarr %s %s %r" % (name, want.dtype, want.shape, want.tolist(),
                                                                 got.dtype, got.shape, got.tolist()))
            bad += 1
    print("compared", len(names), "libversion", netCDF4.getlibversion().split()[0])
sys.exit(1 if bad else 0)
"""


def env(**kw):
    e = dict(os.environ)
    e["LD_LIBRARY_PATH"] = LIBDIR + ":" + e.get("LD_LIBRARY_PATH", "")
    e.update(kw)
    return e


def run(*args, **kw):
    r = subprocess.run(list(args), capture_output=True, env=env(**kw), timeout=120)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def data_section(out):
    """{group/var: values without blanks} from ncdump's data sections."""
    vals = {}
    path = []
    indata = False
    cur = None
    for line in out.split("\n"):
        s = line.strip()
        m = re.match(r"group: (\S+) \{$", s)
        if m:
            path.append(m.group(1))
            indata = False
            continue
        if s == "data:":
            indata = True
            continue
        if s == "}" and cur is None:
            if path:
                path.pop()
            indata = False
            continue
        if not indata:
            continue
        if cur is None:
            m = re.match(r"(\S+) =(.*)$", s)
            if not m:
                continue
            cur, text = "/".join(path + [m.group(1)]), m.group(2)
        else:
            text = s
        vals[cur] = vals.get(cur, "") + text
        if text.endswith(";"):
            vals[cur] = re.sub(r"\s+", "", vals[cur])
            cur = None
    return vals


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    data = os.path.join(WORK, "data")
    os.makedirs(data)
    cdl = os.path.join(WORK, "k.cdl")
    with open(cdl, "w") as f:
        f.write(CDL)
    src = os.path.join(data, "k.nc")
    rc, _, err = run(NCGEN, "-4", "-o", src, cdl)
    if not nctst.check(rc == 0, "ncgen: %s" % err):
        nctst.finish("tst_nckerchunk")

    plain = os.path.join(WORK, "k.json")
    rc, out, err = run(KC, src, plain)
    nctst.check(rc == 0, "nckerchunk: rc %d %s" % (rc, err))
    for v in sorted(SKIPPED):
        nctst.check(re.search(r"warning: variable %s skipped" % v, err), "%s skipped with a warning: %s" % (v, err))
    nctst.check("2 variable(s) skipped: " in err, "skipped variables listed: %s" % err)
    with open(plain) as f:
        doc = json.load(f)
    refs = doc["refs"]
    nctst.check(doc.get("version") == 1, "version 1")
    names = sorted(k[:-len("/.zarray")] for k in refs if k.endswith("/.zarray"))
    nctst.check(not SKIPPED & set(names), "skipped variables absent: %s" % names)
    nctst.check(len(names) == 20, "20 variables described: %s" % names)
    za = {n: json.loads(refs[n + "/.zarray"]) for n in names}
    temp = za["temp"]
    nctst.check(temp["compressor"] == {"id": "zlib", "level": 4} and
                temp["filters"] == [{"id": "shuffle", "elementsize": 4}] and temp["chunks"] == [2, 3, 4] and
                temp["shape"] == [3, 5, 7] and temp["dtype"] == "<f4" and temp["fill_value"] == -999.0 and
                temp["order"] == "C" and temp["zarr_format"] == 2, "temp .zarray: %s" % temp)
    nctst.check(za["be"]["dtype"] == ">i2", "big-endian dtype: %s" % za["be"])
    nctst.check(za["fnan"]["fill_value"] == "NaN", "NaN fill value: %s" % za["fnan"])
    nctst.check(json.loads(refs["temp/.zattrs"])["_ARRAY_DIMENSIONS"] == ["time", "y", "x"], "temp dimensions")
    nctst.check(json.loads(refs["x/.zattrs"])["_ARRAY_DIMENSIONS"] == ["y"], "x (non-coordinate) dimensions")
    nctst.check(json.loads(refs["g1/.zattrs"]) == {"where": "g1"} and "g1/g2/.zgroup" in refs, "nested groups")
    nctst.check(refs.get("temp/0.0.0", [None])[0] == os.path.abspath(src) and
                isinstance(refs["temp/0.0.0"][1], int), "chunk reference [url, offset, length]: %s" %
                refs.get("temp/0.0.0"))
    nctst.check("nowrite/0" not in refs and not any(k.startswith("nowrite_chunked/0") for k in refs),
                "unwritten variables have no chunks")
    nctst.check(refs.get("compact/0", "").startswith("base64:"), "compact data inline")

    inl = os.path.join(WORK, "k_inline.json")
    rc, _, err = run(KC, "-i", "64", src, inl)
    with open(inl) as f:
        irefs = json.load(f)["refs"]
    nctst.check(rc == 0 and str(irefs.get("temp/0.0.0", "")).startswith("base64:") and
                isinstance(irefs.get("cont/0.0"), list), "-i 64: small chunks inline, large ones referenced")

    # (1) zarr-python through fsspec against netCDF4-python on this library.
    asan = b"libasan" in subprocess.run(["ldd", os.path.join(LIBDIR, "libnetcdf.so")],
                                        capture_output=True).stdout
    have = subprocess.run([PY, "-c", "import fsspec, zarr, netCDF4"], capture_output=True).returncode == 0
    if asan or not have:
        print("zarr-python comparison not run (%s)" % ("sanitizer build" if asan else "fsspec/zarr/netCDF4 missing"))
    else:
        libs = os.path.join(WORK, "lib")
        os.makedirs(libs, exist_ok=True)
        os.symlink(os.path.join(LIBDIR, "libnetcdf.so.22"), os.path.join(libs, "libnetcdf.so.19"))
        for ref in (plain, inl):
            r = subprocess.run([PY, "-c", COMPARE, src, ref, ",".join(names)], capture_output=True,
                               timeout=180, env=env(LD_LIBRARY_PATH=libs))
            out = r.stdout.decode()
            nctst.check(r.returncode == 0 and "compared 20 libversion 4.10.1" in out,
                        "zarr-python on %s: %s %s" % (os.path.basename(ref), out, r.stderr.decode()[-2000:]))

    # (2) the library on the reference files: ncdump's data equal.
    rc, orig, err = run(NCDUMP, src)
    nctst.check(rc == 0, "ncdump of the file: %s" % err)
    want = {k: v for k, v in data_section(orig).items() if k not in SKIPPED}
    nctst.check(len(want) == 20, "20 variables in the file's data section: %s" % sorted(want))

    def same_data(url, what):
        rc, out, err = run(NCDUMP, url)
        got = data_section(out)
        diff = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
        nctst.check(rc == 0 and not diff, "%s: ncdump rc %d, differs in %s: %s" %
                    (what, rc, [(k, want.get(k), got.get(k)) for k in diff], err))

    same_data("file://%s#mode=zarr,reference" % plain, "reference file")
    same_data("file://%s#mode=zarr,reference" % inl, "reference file with inline chunks")

    # -u: every reference names the URL, here of the loopback server.
    if BYTERANGE == "1":
        import rtest
        with rtest.server(data, WORK) as port:
            url = "http://127.0.0.1:%d/k.nc" % port
            remote = os.path.join(WORK, "k_http.json")
            rc, _, err = run(KC, "-u", url, src, remote)
            with open(remote) as f:
                rrefs = json.load(f)["refs"]
            nctst.check(rc == 0 and rrefs["temp/0.0.0"][0] == url, "-u URL is every target")
            same_data("file://%s#mode=zarr,reference" % remote, "reference file with http targets")

    # Bad input: a message and exit code 1.
    rc, _, err = run(KC, os.path.join(data, "nosuch.nc"), os.path.join(WORK, "x.json"))
    nctst.check(rc == 1 and "nosuch.nc" in err and "No such file" in err, "missing file: rc %d %s" % (rc, err))
    rc, _, err = run(KC, cdl, os.path.join(WORK, "x.json"))
    nctst.check(rc == 1 and "not a netCDF-4/HDF5 file" in err, "text file: rc %d %s" % (rc, err))
    classic = os.path.join(data, "classic.nc")
    with open(os.path.join(WORK, "c.cdl"), "w") as f:
        f.write("netcdf c { dimensions: n = 2 ; variables: int v(n) ; data: v = 1, 2 ; }")
    run(NCGEN, "-3", "-o", classic, os.path.join(WORK, "c.cdl"))
    rc, _, err = run(KC, classic)
    nctst.check(rc == 1 and "not a netCDF-4/HDF5 file" in err, "classic file: rc %d %s" % (rc, err))
    cut = os.path.join(data, "cut.nc")
    with open(src, "rb") as f, open(cut, "wb") as g:
        g.write(f.read(3000))
    rc, out, err = run(KC, cut, os.path.join(WORK, "cut.json"))
    nctst.check(rc == 1 and err.startswith("nckerchunk: ") and not out, "truncated file: rc %d %s" % (rc, err))
    rc, _, err = run(KC, src, os.path.join(WORK, "nosuchdir", "x.json"))
    nctst.check(rc == 1 and "nosuchdir" in err, "output not writable: rc %d %s" % (rc, err))
    rc, _, err = run(KC)
    nctst.check(rc == 1 and "usage" in err, "no argument: usage and rc 1")
    rc, _, err = run(KC, "-i", "-5", src)
    nctst.check(rc == 1 and "-i" in err, "bad -i: rc 1")
    nctst.finish("tst_nckerchunk")


main()
