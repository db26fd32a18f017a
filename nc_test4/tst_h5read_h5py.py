"""tst_h5read_h5py.py OUTDIR: pure HDF5 files (no netCDF conventions) written
with h5py, for the differential read test tst_h5read.sh: datasets without
dimension scales (phony dims), scales made by h5py, committed and uncommitted
user types, fixed and variable strings, big-endian and unlimited datasets,
filters, fill values, attributes of many shapes, groups, creation order."""
import sys, os
import numpy as np
import h5py

out = sys.argv[1]

def p(name):
    return os.path.join(out, name)

# 1. No dimension scales: phony dims shared by length, never twice per var.
with h5py.File(p("tst_h5read_py_plain.h5"), "w") as f:
    f["i1"] = np.arange(5, dtype="i4")
    f["f2"] = np.arange(15, dtype="f4").reshape(5, 3)
    f["sq"] = np.arange(9, dtype="f8").reshape(3, 3)
    f["be"] = np.arange(4, dtype=">i2")
    f["u64"] = np.array([1, 2**63, 2**64 - 1], dtype="u8")
    f["i8"] = np.array([-128, 0, 127], dtype="i1")
    f["u8"] = np.array([0, 255], dtype="u1")
    f["sc"] = np.float64(3.25)
    d = f.create_dataset("unl", (3,), maxshape=(None,), dtype="i4", chunks=(2,))
    d[:] = [7, 8, 9]
    d = f.create_dataset("unl2", (2, 3), maxshape=(None, 3), dtype="f4", chunks=(1, 3))
    d[:] = [[1, 2, 3], [4, 5, 6]]
    d = f.create_dataset("gz", data=np.arange(20, dtype="i4").reshape(4, 5),
                         compression="gzip", compression_opts=4, shuffle=True,
                         fletcher32=True, chunks=(2, 5))
    d = f.create_dataset("filled", (4,), dtype="i2", fillvalue=-7)
    d[1] = 3
    f.create_dataset("vstr", data=["one", "", "three"], dtype=h5py.string_dtype())
    f["cmp_anon"] = np.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f8")])
    f.attrs["ai"] = np.int32(5)
    f.attrs["af"] = np.array([1.5, 2.5], dtype="f4")
    f.attrs["astr"] = "variable string"
    f.attrs["abytes"] = np.bytes_(b"fixed")
    f.attrs["astrs"] = np.array([b"x", b"yy"], dtype="S2")
    f.attrs["avstrs"] = np.array(["p", "qq"], dtype=h5py.string_dtype())
    f.attrs["ai64"] = np.array([-1, 2**40], dtype="i8")
    g = f.create_group("grp")
    g["x"] = np.arange(5, dtype="i4")
    g["y"] = np.arange(6, dtype="i4").reshape(2, 3)
    g.attrs["ga"] = np.uint16(9)
    g2 = g.create_group("inner")
    g2["z"] = np.arange(3, dtype="u2")

# 2. h5py dimension scales, creation order tracked.
with h5py.File(p("tst_h5read_py_scales.h5"), "w", track_order=True) as f:
    f["time"] = np.arange(4, dtype="f8")
    f["lat"] = np.array([10, 20, 30], dtype="f4")
    f["time"].make_scale("time")
    f["lat"].make_scale("lat")
    d = f.create_dataset("temp", data=np.arange(12, dtype="f4").reshape(4, 3))
    d.dims[0].attach_scale(f["time"])
    d.dims[1].attach_scale(f["lat"])
    d.attrs["units"] = "K"
    f.create_dataset("nodims", data=np.arange(3, dtype="i4"))
    g = f.create_group("g", track_order=True)
    e = g.create_dataset("e", data=np.arange(4, dtype="i2"))
    e.dims[0].attach_scale(f["time"])

# 3. Committed types used by datasets and attributes.
with h5py.File(p("tst_h5read_py_types.h5"), "w", track_order=True) as f:
    f["cmp_t"] = np.dtype([("a", "i4"), ("b", "f8"), ("c", "i2", (2,))])
    f["en_t"] = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 5}, basetype="i1")
    f["vl_t"] = h5py.vlen_dtype(np.dtype("i4"))
    f["op_t"] = np.dtype("V3")
    d = f.create_dataset("c", (2,), dtype=f["cmp_t"])
    d[0] = (1, 2.5, [3, 4])
    d[1] = (5, 6.5, [7, 8])
    d = f.create_dataset("e", (3,), dtype=f["en_t"])
    d[:] = [0, 1, 5]
    d = f.create_dataset("v", (2,), dtype=f["vl_t"])
    d[0] = np.array([1, 2, 3], dtype="i4")
    d[1] = np.array([], dtype="i4")
    d = f.create_dataset("o", (2,), dtype=f["op_t"])
    d[0] = np.void(b"\x01\x02\x03")
    d[1] = np.void(b"\xaa\xbb\xcc")
    f["c"].attrs.create("ac", np.array([(9, 1.0, [1, 2])], dtype=f["cmp_t"].dtype), dtype=f["cmp_t"])

# 4. Fixed-size string datasets (upstream returns only the first string;
#    compared with an expected output, not with the reference).
with h5py.File(p("tst_h5read_fixstr.h5"), "w") as f:
    f["fixstr"] = np.array([b"ab", b"cdefg", b""], dtype="S5")

# 5. Odd objects netCDF skips or maps: links, references, bool/complex/half
#    types, null and zero-size spaces, several scales on one dimension.
with h5py.File(p("tst_h5read_py_odd.h5"), "w") as f:
    f["a"] = np.arange(3, dtype="i4")
    f["soft"] = h5py.SoftLink("/a")
    f["hard2"] = f["a"]
    f["refs"] = np.array([f["a"].ref], dtype=h5py.ref_dtype)
    f["bools"] = np.array([True, False])
    f["empty"] = h5py.Empty("f4")
    f.attrs["nullatt"] = h5py.Empty("i4")
    f["zero"] = np.zeros((0, 3), dtype="i2")
    f["f16"] = np.arange(2, dtype="f2")
    f["c64"] = np.arange(2, dtype="c8")
    d = f.create_dataset("d", data=np.arange(6, dtype="i4").reshape(3, 2))
    s2 = f.create_dataset("s2", data=np.arange(2, dtype="f4"))
    s2.make_scale()
    s3 = f.create_dataset("s3", data=np.arange(2, dtype="f4"))
    s3.make_scale("three")
    d.dims[1].attach_scale(s2)
    d.dims[1].attach_scale(s3)
    f["a"].attrs["s2d"] = np.array([[b"a", b"b"], [b"c", b"d"]])
    f["a"].attrs["vs"] = np.array(["x"], dtype=h5py.string_dtype())
    f["a"].attrs["u8s"] = "h\u00e9llo"
    f["a"].attrs["bool"] = np.bool_(True)
    f["a"].attrs["scalar_str"] = np.array("s", dtype=h5py.string_dtype())

# 6. Files the reference cannot open (a dangling and an external link, a
#    2-D scale without _Netcdf4Coordinates, a scale in a child group used
#    from its parent, hard links making a cycle: it fails, crashes or
#    loops); ours must open them.
with h5py.File(p("tst_h5read_noref.h5"), "w") as f:
    f["a"] = np.arange(3, dtype="i4")
    f["dangling"] = h5py.SoftLink("/nothere")
    f["ext"] = h5py.ExternalLink("nofile.h5", "/x")
    m = f.create_dataset("multi", data=np.arange(6, dtype="i4").reshape(2, 3))
    m.make_scale("multi")
    g = f.create_group("g")
    s = g.create_dataset("scale", data=np.arange(3, dtype="f4"))
    s.make_scale("myscale")
    d = f.create_dataset("usesother", data=np.arange(6, dtype="i4").reshape(3, 2))
    d.dims[0].attach_scale(s)
    g["back"] = f["/"]
    h = g.create_group("deep")
    h["loop"] = g
