#!/usr/bin/python3
"""tst_zstr_interop.py: variable-length strings with the Zarr peers.

  zarr-python 2 -> ours  object arrays (dtype "|O", filter vlen-utf8; no
                         compressor, zlib, blosc; fill_value "" and 0)
                         with strings of length 0..10000 and multibyte UTF-8;
                         read whole, strided, one element
  ours -> zarr-python 2  we write into such arrays (partial chunks, a long
                         string); zarr-python reads
  ours -> zarrita        v3 "string" arrays, plain and sharded
  zarrita -> ours        a v3 string array made by zarrita (chunk bytes laid
                         out by the script: zarrita 0.7 decodes vlen-utf8 but
                         does not encode it)
Exit 77 when numpy/zarr/numcodecs are missing, under a sanitizer runtime; the
zarrita part is skipped (reported) without node/npm.
Usage: tst_zstr_interop.py LIBNETCDF WORKDIR SCRIPT.mjs
"""
import ctypes, json, os, shutil, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
from nctst import check, finish, load_lib, node, open_var, skip, zarrita  # noqa: E402

try:
    import numpy as np
    import zarr
    import numcodecs
except ImportError:
    skip("numpy or zarr-python missing")

LIB, WORK, MJS = sys.argv[1], sys.argv[2], sys.argv[3]
nc = load_lib(LIB)
os.makedirs(WORK, exist_ok=True)
nc.nc_free_string.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_char_p)]
VALS = ["", "a", "x" * 127, "y" * 128, "z" * 129, "".join(chr(97 + (i * 7) % 26) for i in range(10000)),
        "h\u00e9llo w\u00f6rld \u2713 \u65e5\u672c\u8a9e \U0001F600", "end"]


def get_strings(url, name, start=None, count=None, stride=None):
    with open_var(nc, url, name) as (s, ncid, varid):
        if s:
            return s, None
        dimid, ln = ctypes.c_int(), ctypes.c_size_t()
        nc.nc_inq_vardimid(ncid, varid, ctypes.byref(dimid))
        nc.nc_inq_dimlen(ncid, dimid, ctypes.byref(ln))
        if start is None:
            n = ln.value
            buf = (ctypes.c_char_p * max(n, 1))()
            s = nc.nc_get_var_string(ncid, varid, buf)
        else:
            n = count
            buf = (ctypes.c_char_p * max(n, 1))()
            st, ct, sd = ctypes.c_size_t(start), ctypes.c_size_t(count), ctypes.c_ssize_t(stride)
            s = nc.nc_get_vars_string(ncid, varid, ctypes.byref(st), ctypes.byref(ct), ctypes.byref(sd), buf)
        if s:
            return s, None
        out = [buf[i].decode("utf-8") if buf[i] is not None else None for i in range(n)]
        nc.nc_free_string(ctypes.c_size_t(n), buf)
        return 0, out


def put_strings(url, name, start, vals, create_dims=None):
    """Write vals at start of 1-D string var name (created when create_dims)."""
    ncid = ctypes.c_int()
    if create_dims is not None:
        s = nc.nc_create(url.encode(), 0x1000, ctypes.byref(ncid))
    else:
        s = nc.nc_open(url.encode(), 1, ctypes.byref(ncid))
    if s:
        return s
    varid = ctypes.c_int()
    if create_dims is not None:
        dim = ctypes.c_int()
        s = nc.nc_def_dim(ncid, b"n", ctypes.c_size_t(create_dims[0]), ctypes.byref(dim))
        s = s or nc.nc_def_var(ncid, name.encode(), 12, 1, ctypes.byref(dim), ctypes.byref(varid))
        s = s or nc.nc_def_var_chunking(ncid, varid, 0, ctypes.byref(ctypes.c_size_t(create_dims[1])))
        s = s or nc.nc_enddef(ncid)
    else:
        s = nc.nc_inq_varid(ncid, name.encode(), ctypes.byref(varid))
    if s == 0:
        arr = (ctypes.c_char_p * len(vals))(*[v.encode("utf-8") for v in vals])
        st, ct = ctypes.c_size_t(start), ctypes.c_size_t(len(vals))
        s = nc.nc_put_vara_string(ncid, varid, ctypes.byref(st), ctypes.byref(ct), arr)
    s2 = nc.nc_close(ncid)
    return s or s2


# ---- zarr-python 2 writes, we read; we write, zarr-python reads ------------------------------
for tag, comp, fill in (("raw", None, ""), ("zlib", numcodecs.Zlib(level=1), ""),
                        ("blosc", numcodecs.Blosc(), ""), ("fill0", None, 0)):
    p = os.path.join(WORK, "zstr_zp_%s.zarr" % tag)
    shutil.rmtree(p, ignore_errors=True)
    g = zarr.open_group(p, mode="w")
    z = g.create_dataset("s", shape=(10,), chunks=(3,), dtype=object, object_codec=numcodecs.VLenUTF8(),
                         compressor=comp, fill_value=fill)
    z[0:len(VALS)] = np.array(VALS, dtype=object)
    url = "file://" + p + "#mode=zarr,file"
    s, got = get_strings(url, "s")
    # Past what was written zarr-python holds its fill value ("" or 0; 0
    # is no string: we read it as "").
    want = VALS + ["", ""]
    check(s == 0 and got == want, "zarr-python->ours %s: %d %s" % (tag, s, None if got is None else
                                                                  [len(x) for x in got]))
    s, got = get_strings(url, "s", 1, 3, 3)  # 1, 4, 7
    check(s == 0 and got == [VALS[1], VALS[4], VALS[7]], "zarr-python->ours %s strided: %d" % (tag, s))
    # Ours writes: a partial chunk and a long string across a chunk edge.
    new = ["\u00fcber", "w" * 5000, ""]
    s = put_strings(url, "s", 4, new)
    check(s == 0, "ours put into %s: %d" % (tag, s))
    z = zarr.open_array(os.path.join(p, "s"), mode="r")
    back = list(z[:])
    want2 = VALS[:4] + new + VALS[7:] + ["", ""]
    if fill == 0:  # the last chunk was never written: zarr-python's fill (0, or "" if we rewrote it)
        back = back[:8] + ["" if x == 0 else x for x in back[8:]]
    check(back == want2, "ours->zarr-python %s: %r" % (tag, [x if not isinstance(x, str) or len(x) < 20 else
                                                             len(x) for x in back]))
    meta = json.load(open(os.path.join(p, "s", ".zarray")))
    check(meta.get("dtype") == "|O" and (meta.get("filters") or [{}])[0].get("id") == "vlen-utf8",
          "%s .zarray kept |O + vlen-utf8: %r" % (tag, (meta.get("dtype"), meta.get("filters"))))

# ---- v3 with zarrita --------------------------------------------------------------------------
NPM = zarrita(WORK, MJS)
if NPM is None:
    print("zarrita part skipped")
else:
    for mode in ("zarr,v3,file", "zarr,v3,file,shard"):
        p = os.path.join(WORK, "zstr_to_zarrita_%s.zarr" % mode.replace(",", "_"))
        shutil.rmtree(p, ignore_errors=True)
        url = "file://" + p + "#mode=" + mode
        s = put_strings(url, "s", 0, VALS, create_dims=(9, 2))
        check(s == 0, "ours write v3 %s: %d" % (mode, s))
        got = (node(NPM, "read", p, "s") or {}).get("s", {})
        check(got.get("data") == VALS + [""], "ours->zarrita %s: %s" % (mode, got.get("error", "differs")))
        s, back = get_strings(url, "s")
        check(s == 0 and back == VALS + [""], "ours->ours %s: %d" % (mode, s))
        # A partial write (by inner chunk in a shard), read by zarrita.
        s = put_strings(url, "s", 4, ["partial \u00e9crit"])
        got = (node(NPM, "read", p, "s") or {}).get("s", {})
        want = VALS[:4] + ["partial \u00e9crit"] + VALS[5:] + [""]
        check(s == 0 and got.get("data") == want, "ours->zarrita %s after a partial write: %s" %
              (mode, got.get("error", "differs")))
        codecs = [c.get("name") for c in json.load(open(os.path.join(p, "s", "zarr.json")))["codecs"]]
        check(codecs == (["sharding_indexed"] if "shard" in mode else ["vlen-utf8"]),
              "%s codecs %r" % (mode, codecs))
    p = os.path.join(WORK, "zstr_from_zarrita.zarr")
    shutil.rmtree(p, ignore_errors=True)
    jf = os.path.join(WORK, "zstr_vals.json")
    with open(jf, "w") as f:
        json.dump(VALS, f)
    got = (node(NPM, "write", p, jf) or {}).get("s", {})
    check(got.get("data") == VALS, "zarrita reads its own store: %s" % got.get("error", "differs"))
    s, back = get_strings("file://" + p + "#mode=zarr,v3,file", "s")
    check(s == 0 and back == VALS, "zarrita->ours: %d" % s)
    s, back = get_strings("file://" + p + "#mode=zarr,v3,file", "s", 0, 3, 3)
    check(s == 0 and back == [VALS[0], VALS[3], VALS[6]], "zarrita->ours strided: %d" % s)

finish("tst_zstr_interop")
