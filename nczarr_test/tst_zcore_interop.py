#!/usr/bin/python3
"""tst_zcore_interop.py: Zarr v2 interop between our library (loaded with
ctypes; no other libnetcdf in this process) and zarr-python 2 / xarray, both
directions: values, dtypes, attributes, fill values, groups, compressors.

Usage: tst_zcore_interop.py LIBNETCDF WORKDIR
Exit 77 (skip) when zarr/numpy/xarray are missing."""
import ctypes, os, shutil, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
from nctst import check, finish, load_lib, skip  # noqa: E402

try:
    import numpy as np
    import zarr
    import numcodecs
except Exception as e:  # pragma: no cover
    skip("zarr-python not available (%s)" % e)

lib = load_lib(sys.argv[1])
work = sys.argv[2]
os.makedirs(work, exist_ok=True)


def ok(rc, what):
    if rc != 0:
        lib.nc_strerror.restype = ctypes.c_char_p
        raise RuntimeError("%s: %d %s" % (what, rc, lib.nc_strerror(rc).decode()))


NC_CLOBBER, NC_NOWRITE = 0, 0
NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE = 1, 2, 3, 4, 5, 6
NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64, NC_STRING = 7, 8, 9, 10, 11, 12
NC_GLOBAL = -1
ctype_of = {NC_BYTE: ctypes.c_int8, NC_SHORT: ctypes.c_int16, NC_INT: ctypes.c_int32,
            NC_FLOAT: ctypes.c_float, NC_DOUBLE: ctypes.c_double, NC_UBYTE: ctypes.c_uint8,
            NC_USHORT: ctypes.c_uint16, NC_UINT: ctypes.c_uint32, NC_INT64: ctypes.c_int64,
            NC_UINT64: ctypes.c_uint64}
np_of = {NC_BYTE: "i1", NC_SHORT: "i2", NC_INT: "i4", NC_FLOAT: "f4", NC_DOUBLE: "f8",
         NC_UBYTE: "u1", NC_USHORT: "u2", NC_UINT: "u4", NC_INT64: "i8", NC_UINT64: "u8"}


def nc_read(ncid, name, group=None):
    """The whole variable as a numpy array of its own type, via nc_get_vara."""
    gid = ncid
    vid = ctypes.c_int()
    ok(lib.nc_inq_varid(gid, name.encode(), ctypes.byref(vid)), "inq_varid " + name)
    xt = ctypes.c_int()
    nd = ctypes.c_int()
    ok(lib.nc_inq_vartype(gid, vid, ctypes.byref(xt)), "vartype")
    ok(lib.nc_inq_varndims(gid, vid, ctypes.byref(nd)), "ndims")
    dimids = (ctypes.c_int * max(nd.value, 1))()
    ok(lib.nc_inq_vardimid(gid, vid, dimids), "dimids")
    shape = []
    for i in range(nd.value):
        ln = ctypes.c_size_t()
        ok(lib.nc_inq_dimlen(gid, dimids[i], ctypes.byref(ln)), "dimlen")
        shape.append(ln.value)
    n = int(np.prod(shape)) if shape else 1
    if xt.value == NC_STRING:
        buf = (ctypes.c_char_p * n)()
        ok(lib.nc_get_var(gid, vid, buf), "get strings")
        out = np.array([b.decode() if b is not None else "" for b in buf], dtype=object).reshape(shape)
        lib.nc_free_string(ctypes.c_size_t(n), buf)
        return xt.value, out
    if xt.value == NC_CHAR:
        buf = ctypes.create_string_buffer(n)
        ok(lib.nc_get_var(gid, vid, buf), "get text")
        return xt.value, np.frombuffer(buf.raw, dtype="S1").reshape(shape)
    buf = (ctype_of[xt.value] * n)()
    ok(lib.nc_get_var(gid, vid, buf), "get " + name)
    return xt.value, np.frombuffer(buf, dtype=np_of[xt.value]).reshape(shape).copy()


def nc_att(ncid, varid, name):
    xt = ctypes.c_int()
    ln = ctypes.c_size_t()
    ok(lib.nc_inq_att(ncid, varid, name.encode(), ctypes.byref(xt), ctypes.byref(ln)), "inq_att " + name)
    if xt.value == NC_CHAR:
        buf = ctypes.create_string_buffer(ln.value + 1)
        ok(lib.nc_get_att(ncid, varid, name.encode(), buf), "get_att")
        return xt.value, buf.value.decode()
    if xt.value == NC_STRING:
        buf = (ctypes.c_char_p * ln.value)()
        ok(lib.nc_get_att(ncid, varid, name.encode(), buf), "get_att")
        v = [b.decode() for b in buf]
        lib.nc_free_string(ln, buf)
        return xt.value, v
    buf = (ctype_of[xt.value] * ln.value)()
    ok(lib.nc_get_att(ncid, varid, name.encode(), buf), "get_att")
    return xt.value, list(buf)


def varid_of(ncid, name):
    vid = ctypes.c_int()
    ok(lib.nc_inq_varid(ncid, name.encode(), ctypes.byref(vid)), "varid")
    return vid.value


# ---- 1. zarr-python writes, we read -----------------------------------------------
def theirs_to_ours(compressor, tag):
    path = os.path.join(work, "py_%s.zarr" % tag)
    shutil.rmtree(path, ignore_errors=True)
    g = zarr.open_group(path, mode="w")
    g.attrs["title"] = "from zarr-python"
    g.attrs["count"] = 7
    g.attrs["scale"] = 0.5
    g.attrs["list"] = [1, 2, 3]
    data = {}
    for t, dt in np_of.items():
        a = g.create_dataset("v_" + dt, shape=(6, 5), chunks=(4, 2), dtype="<" + dt,
                             compressor=compressor, fill_value=3)
        vals = (np.arange(30) % 100).reshape(6, 5).astype(dt)
        a[:5, :] = vals[:5, :]          # last row stays fill
        vals[5, :] = 3
        data[dt] = (t, vals)
        a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    b = g.create_dataset("big", shape=(4,), dtype=">f8", compressor=compressor, fill_value=np.nan)
    b[:2] = [1.25, -2.5]
    b.attrs["_ARRAY_DIMENSIONS"] = ["four"]
    s = g.create_dataset("s", shape=(3,), dtype="S6", compressor=compressor, fill_value=b"")
    s[:] = [b"ab", b"cdef", b""]
    sub = g.create_group("sub")
    c = sub.create_dataset("c", shape=(3, 3), dtype="i2", compressor=compressor, fill_value=None)
    c[:] = np.arange(9).reshape(3, 3)

    ncid = ctypes.c_int()
    ok(lib.nc_open(path.encode(), NC_NOWRITE, ctypes.byref(ncid)), "open " + path)
    for dt, (t, vals) in data.items():
        xt, got = nc_read(ncid.value, "v_" + dt)
        check(xt == t, "%s type %d want %d" % (dt, xt, t))
        check(np.array_equal(got, vals), "%s values %s" % (dt, got.ravel()[:8]))
    xt, got = nc_read(ncid.value, "big")
    check(xt == NC_DOUBLE and got[0] == 1.25 and got[1] == -2.5 and np.isnan(got[3]), "big-endian f8 %s" % got)
    xt, got = nc_read(ncid.value, "s")
    check(xt == NC_STRING and list(got) == ["ab", "cdef", ""], "fixed strings %s" % got)
    t, v = nc_att(ncid.value, NC_GLOBAL, "title")
    check(t == NC_CHAR and v == "from zarr-python", "title %r" % v)
    t, v = nc_att(ncid.value, NC_GLOBAL, "count")
    check(t == NC_INT and v == [7], "count %s %s" % (t, v))
    t, v = nc_att(ncid.value, NC_GLOBAL, "scale")
    check(t == NC_DOUBLE and v == [0.5], "scale %s" % v)
    t, v = nc_att(ncid.value, NC_GLOBAL, "list")
    check(t == NC_INT and v == [1, 2, 3], "list %s" % v)
    # fill value: zarr fill_value becomes the netCDF fill
    nofill = ctypes.c_int()
    fv = ctypes.c_int32()
    ok(lib.nc_inq_var_fill(ncid.value, varid_of(ncid.value, "v_i4"), ctypes.byref(nofill), ctypes.byref(fv)), "fill")
    check(nofill.value == 0 and fv.value == 3, "fill %d %d" % (nofill.value, fv.value))
    gid = ctypes.c_int()
    ok(lib.nc_inq_ncid(ncid.value, b"sub", ctypes.byref(gid)), "sub group")
    xt, got = nc_read(gid.value, "c")
    check(xt == NC_SHORT and got.ravel().tolist() == list(range(9)), "sub/c %s" % got)
    ok(lib.nc_inq_var_fill(gid.value, varid_of(gid.value, "c"), ctypes.byref(nofill), None), "fill c")
    check(nofill.value == 1, "fill_value null -> nofill")
    ok(lib.nc_close(ncid.value), "close")
    # A writable open that changes nothing leaves their metadata as it was.
    before = {k: open(os.path.join(path, k), "rb").read() for k in (".zattrs", "v_i4/.zattrs", "v_i4/.zarray")}
    ok(lib.nc_open(path.encode(), 1, ctypes.byref(ncid)), "open for writing")
    ok(lib.nc_close(ncid.value), "close")
    after = {k: open(os.path.join(path, k), "rb").read() for k in before}
    check(before == after, "metadata rewritten by an open/close that changed nothing")


# ---- 2. we write (NCZarr and pure Zarr), zarr-python reads -------------------------
def ours_to_theirs(mode, tag, filt):
    path = os.path.join(work, "nc_%s.zarr" % tag)
    url = "file://%s#mode=%s" % (path, mode)
    ncid = ctypes.c_int()
    ok(lib.nc_create(url.encode(), NC_CLOBBER, ctypes.byref(ncid)), "create " + url)
    dy, dx = ctypes.c_int(), ctypes.c_int()
    ok(lib.nc_def_dim(ncid, b"y", ctypes.c_size_t(4), ctypes.byref(dy)), "dim")
    ok(lib.nc_def_dim(ncid, b"x", ctypes.c_size_t(6), ctypes.byref(dx)), "dim")
    dims = (ctypes.c_int * 2)(dy.value, dx.value)
    vids = {}
    for t, dt in np_of.items():
        vid = ctypes.c_int()
        ok(lib.nc_def_var(ncid, ("v_" + dt).encode(), t, 2, dims, ctypes.byref(vid)), "def_var")
        chunks = (ctypes.c_size_t * 2)(3, 4)
        ok(lib.nc_def_var_chunking(ncid, vid, 0, chunks), "chunking")
        if filt:
            ok(lib.nc_def_var_deflate(ncid, vid, 1, 1, 4), "deflate")
        vids[dt] = (t, vid.value)
    sv = ctypes.c_int()
    ok(lib.nc_def_var(ncid, b"s", NC_STRING, 1, dims, ctypes.byref(sv)), "def s")
    fill = ctypes.c_int32(-7)
    ok(lib.nc_def_var_fill(ncid, vids["i4"][1], 0, ctypes.byref(fill)), "fill")
    ok(lib.nc_put_att_text(ncid, NC_GLOBAL, b"title", ctypes.c_size_t(4), b"ours"), "att")
    dv = (ctypes.c_double * 2)(1.5, -2.0)
    ok(lib.nc_put_att_double(ncid, vids["f8"][1], b"range", NC_DOUBLE, ctypes.c_size_t(2), dv), "att")
    ok(lib.nc_enddef(ncid), "enddef")
    expect = {}
    for dt, (t, vid) in vids.items():
        vals = (np.arange(24) % 50).reshape(4, 6).astype(dt)
        if dt == "i4":
            start = (ctypes.c_size_t * 2)(0, 0)
            count = (ctypes.c_size_t * 2)(3, 6)
            arr = np.ascontiguousarray(vals[:3])
            ok(lib.nc_put_vara(ncid, vid, start, count, arr.ctypes.data_as(ctypes.c_void_p)), "put_vara")
            vals[3, :] = -7
        else:
            arr = np.ascontiguousarray(vals)
            ok(lib.nc_put_var(ncid, vid, arr.ctypes.data_as(ctypes.c_void_p)), "put")
        expect[dt] = vals
    strs = (ctypes.c_char_p * 4)(b"one", b"two", b"", b"four")
    start = (ctypes.c_size_t * 1)(0)
    count = (ctypes.c_size_t * 1)(4)
    ok(lib.nc_put_vara_string(ncid, sv, start, count, strs), "put strings")
    ok(lib.nc_close(ncid), "close")

    g = zarr.open_group(path, mode="r")
    for dt, vals in expect.items():
        a = g["v_" + dt]
        check(a.dtype == np.dtype(dt).newbyteorder("<") or a.dtype == np.dtype(dt), "%s dtype %s" % (dt, a.dtype))
        check(a.chunks == (3, 4), "%s chunks %s" % (dt, a.chunks))
        check(np.array_equal(a[:], vals), "%s values" % dt)
        if filt:
            check(a.compressor is not None or a.filters, "%s has a codec" % dt)
    check(g["v_i4"].fill_value == -7, "fill %s" % g["v_i4"].fill_value)
    check(g.attrs["title"] == "ours", "title %r" % g.attrs.get("title"))
    check(list(g["v_f8"].attrs["range"]) == [1.5, -2.0], "range")
    check(list(g["v_f8"].attrs["_ARRAY_DIMENSIONS"]) == ["y", "x"], "xarray dims")
    s = g["s"][:]
    check([x.decode() if isinstance(x, bytes) else x for x in s] == ["one", "two", "", "four"], "strings %s" % s)
    if "nczarr" in mode:
        check("_nczarr_superblock" in g.attrs, "superblock in .zattrs")


theirs_to_ours(None, "raw")
theirs_to_ours(numcodecs.Zlib(level=3), "zlib")
ours_to_theirs("nczarr,file", "nczarr", False)
ours_to_theirs("zarr,file", "pure", False)
ours_to_theirs("nczarr,file", "deflate", True)

# ---- 3. xarray both ways --------------------------------------------------------------
try:
    import xarray as xr
except Exception:
    xr = None
if xr is not None:
    path = os.path.join(work, "xr.zarr")
    shutil.rmtree(path, ignore_errors=True)
    ds = xr.Dataset({"temp": (("time", "lat"), np.arange(12, dtype="f4").reshape(3, 4))},
                    coords={"lat": np.array([10.0, 20.0, 30.0, 40.0])}, attrs={"source": "xarray"})
    ds.to_zarr(path, mode="w")  # consolidated by default
    ncid = ctypes.c_int()
    ok(lib.nc_open(path.encode(), NC_NOWRITE, ctypes.byref(ncid)), "open xarray store")
    xt, got = nc_read(ncid.value, "temp")
    check(xt == NC_FLOAT and got.shape == (3, 4) and got[2, 3] == 11, "xarray temp %s" % got)
    xt, got = nc_read(ncid.value, "lat")
    check(got.tolist() == [10.0, 20.0, 30.0, 40.0], "xarray lat")
    t, v = nc_att(ncid.value, NC_GLOBAL, "source")
    check(v == "xarray", "xarray attr")
    dimid = ctypes.c_int()
    ok(lib.nc_inq_dimid(ncid.value, b"time", ctypes.byref(dimid)), "time dim from _ARRAY_DIMENSIONS")
    ok(lib.nc_close(ncid.value), "close")
    # ours -> xarray
    back = xr.open_zarr(os.path.join(work, "nc_pure.zarr"), consolidated=False)
    check(back["v_f4"].dims == ("y", "x") and float(back["v_f4"][1, 1]) == 7.0, "xarray reads ours")
    back = xr.open_zarr(os.path.join(work, "nc_nczarr.zarr"), consolidated=False)
    check(back["v_i2"].dims == ("y", "x"), "xarray reads NCZarr")

# ---- 4. the reference tools (Debian's netCDF 4.9.0) ------------------------------------
import subprocess
refgen, refdump = "/usr/bin/ncgen", "/usr/bin/ncdump"
if os.access(refgen, os.X_OK) and os.access(refdump, os.X_OK):
    # 4.9.0 writes NCZarr (keys in .zgroup/.zarray, "<U1" chars); we read it.
    cdl = os.path.join(work, "ref.cdl")
    with open(cdl, "w") as fh:
        fh.write('netcdf ref {\ndimensions: x = 3 ; t = 2 ;\nvariables:\n'
                 ' int v(t, x) ; v:units = "m" ; v:_FillValue = -1 ;\n'
                 ' char c(x) ; ushort u(x) ;\n :g = "hi" ; :gi = 1s ;\n'
                 'data: v = 1,2,3,4,5,6 ; c = "ab" ; u = 7, 8, 9 ;\n}\n')
    store = os.path.join(work, "ref.zarr")
    shutil.rmtree(store, ignore_errors=True)
    r = subprocess.run([refgen, "-4", "-o", "file://%s#mode=nczarr,file" % store, cdl],
                       capture_output=True)
    if os.path.exists(os.path.join(store, ".zgroup")):
        ncid = ctypes.c_int()
        ok(lib.nc_open(store.encode(), NC_NOWRITE, ctypes.byref(ncid)), "open 4.9.0 store")
        xt, got = nc_read(ncid.value, "v")
        check(xt == NC_INT and got.ravel().tolist() == [1, 2, 3, 4, 5, 6], "4.9.0 v %s" % got)
        xt, got = nc_read(ncid.value, "c")
        check(xt == NC_CHAR and got.ravel().tolist()[:2] == [b"a", b"b"], "4.9.0 c %s" % got)
        xt, got = nc_read(ncid.value, "u")
        check(xt == NC_USHORT and got.tolist() == [7, 8, 9], "4.9.0 u %s" % got)
        t, v = nc_att(ncid.value, NC_GLOBAL, "gi")
        check(t == NC_SHORT and v == [1], "4.9.0 typed attribute %s %s" % (t, v))
        ok(lib.nc_close(ncid.value), "close")
    # 4.9.0 reads our pure Zarr (it cannot read the 4.10.1 NCZarr layout,
    # and it crashes on fixed-string arrays, so numbers only here).
    path = os.path.join(work, "for_ref.zarr")
    ncid = ctypes.c_int()
    ok(lib.nc_create(("file://%s#mode=zarr,file" % path).encode(), NC_CLOBBER, ctypes.byref(ncid)), "create")
    dx, vid = ctypes.c_int(), ctypes.c_int()
    ok(lib.nc_def_dim(ncid, b"x", ctypes.c_size_t(5), ctypes.byref(dx)), "dim")
    ok(lib.nc_def_var(ncid, b"w", NC_DOUBLE, 1, ctypes.byref(dx), ctypes.byref(vid)), "var")
    ok(lib.nc_enddef(ncid), "enddef")
    arr = np.array([0.5, 1.5, 2.5, 3.5, 4.5])
    ok(lib.nc_put_var(ncid, vid, arr.ctypes.data_as(ctypes.c_void_p)), "put")
    ok(lib.nc_close(ncid), "close")
    r = subprocess.run([refdump, "-v", "w", "file://%s#mode=zarr,file" % path], capture_output=True, text=True)
    check(r.returncode == 0 and "w = 0.5, 1.5, 2.5, 3.5, 4.5 ;" in r.stdout,
          "4.9.0 ncdump of our pure Zarr: rc %d %s" % (r.returncode, r.stdout[-300:]))

finish("tst_zcore_interop")
