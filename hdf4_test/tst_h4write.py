"""tst_h4write.py LIBNETCDF WORK: HDF4 files written by the HDF4 library's
own SD interface (libmfhdfalt, through ctypes) with every number type, named
dimensions, attributes of every type, fill values and parts never written,
each data set plain and compressed (RLE, skipping Huffman, deflate, N-bit
for the integers); hrepack then chunks them.  Every value and attribute read
through our library must be what the writer was given (N-bit: the value
its bit field keeps, computed here).

Written files stay in WORK for tst_h4comp.sh, which compares them with
hdp dumpsds.
"""
import ctypes
import os
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
import nctst  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h4dds  # noqa: E402

# HDF4 number types: (DFNT code, struct letter, netCDF type)
TYPES = {
    "char8": (4, "c", 2), "uchar8": (3, "B", 7), "int8": (20, "b", 1), "uint8": (21, "B", 7),
    "int16": (22, "h", 3), "uint16": (23, "H", 8), "int32": (24, "i", 4), "uint32": (25, "I", 9),
    "float32": (5, "f", 5), "float64": (6, "d", 6),
}
LIMITS = {"b": (-128, 127), "B": (0, 255), "h": (-32768, 32767), "H": (0, 65535),
          "i": (-2**31, 2**31 - 1), "I": (0, 2**32 - 1)}
NY, NX = 5, 64
COMP_RLE, COMP_NBIT, COMP_SKPHUFF, COMP_DEFLATE = 1, 2, 3, 4


def values(letter, seed):
    """NY*NX values with runs, extremes and variety."""
    out = []
    for k in range(NY * NX):
        if letter == "c":
            out.append(bytes([97 + (k // 7 + seed) % 26]))
        elif letter in "fd":
            out.append([1.5, -2.25, 1e30 if letter == "f" else 1e300, 0.1, k * 0.5][(k // 5 + seed) % 5])
        else:
            lo, hi = LIMITS[letter]
            out.append([lo, hi, 0, 7, (k * 37 + seed) % 100][(k // 3 + seed) % 5] if k % 11 else 5)
    return out


def pack(letter, vals):
    if letter == "c":
        return b"".join(vals)
    return struct.pack("=%d%s" % (len(vals), letter), *vals)


def nbit_keep(v, size, top, length, sign_ext, fill_one):
    """What N-bit keeps of v: its field, the rest fill or the sign."""
    bits = 8 * size
    u = v & ((1 << bits) - 1)
    low = top + 1 - length
    field = (u >> low) & ((1 << length) - 1)
    fmask = ((1 << length) - 1) << low
    r = (((1 << bits) - 1) & ~fmask if fill_one else 0) | field << low
    if sign_ext:
        above = ((1 << bits) - 1) & ~((1 << (top + 1)) - 1)
        r = r | above if field >> (length - 1) & 1 else r & ~above
    return r


def signed(r, size, letter):
    if letter in "bhi" and r >> (8 * size - 1):
        return r - (1 << (8 * size))
    return r


def write_file(mf, path, comp, only=None):
    """One file: every type (or only one) as data set v_<type>, compressed
    with comp."""
    sd = mf.SDstart(path.encode(), 4)  # DFACC_CREATE
    if sd < 0:
        return None
    expect = {}
    mf.SDsetattr(sd, b"title", 4, 9, b"all types")
    for n, (name, (nt, letter, _)) in enumerate(TYPES.items()):
        if (comp == "nbit" and letter not in "bBhHiI") or (only and name != only):
            continue
        vals = values(letter, n)
        gattr = vals[:3]
        mf.SDsetattr(sd, ("g_" + name).encode(), nt, 3, pack(letter, gattr))
        dims = (ctypes.c_int32 * 2)(NY, NX)
        sds = mf.SDcreate(sd, ("v_" + name).encode(), nt, 2, dims)
        mf.SDsetdimname(mf.SDgetdimid(sds, 0), b"y")
        mf.SDsetdimname(mf.SDgetdimid(sds, 1), b"x")
        mf.SDsetattr(sds, b"units", 4, 1, b"m")
        mf.SDsetattr(sds, b"valid", nt, 2, pack(letter, vals[3:5]))
        fill = vals[7]
        mf.SDsetfillvalue(sds, pack(letter, [fill]))
        keep = list(vals)
        rows = NY
        if comp in (COMP_RLE, COMP_SKPHUFF, COMP_DEFLATE):
            info = (ctypes.c_int32 * 16)()
            info[0] = {COMP_RLE: 0, COMP_SKPHUFF: struct.calcsize(letter), COMP_DEFLATE: 6}[comp]
            if mf.SDsetcompress(sds, comp, info) < 0:
                return None
        elif comp == "nbit":
            size = struct.calcsize(letter)
            top, length = 8 * size - 2, 8 * size - 3
            sign_ext, fill_one = (1, 0) if letter in "bhi" else (0, 1)
            if mf.SDsetnbitdataset(sds, top, length, sign_ext, fill_one) < 0:
                return None
            keep = [signed(nbit_keep(v, size, top, length, sign_ext, fill_one), size, letter)
                    for v in vals]
        else:
            rows = NY - 2   # the last rows never written: the fill value
            keep = keep[:rows * NX] + [fill] * ((NY - rows) * NX)
        start = (ctypes.c_int32 * 2)(0, 0)
        edges = (ctypes.c_int32 * 2)(rows, NX)
        if mf.SDwritedata(sds, start, None, edges, pack(letter, vals[:rows * NX])) < 0:
            return None
        mf.SDendaccess(sds)
        expect["v_" + name] = (letter, keep, vals[3:5], fill, gattr)
    mf.SDend(sd)
    return expect


class SzCom(ctypes.Structure):
    _fields_ = [("options_mask", ctypes.c_int), ("bits_per_pixel", ctypes.c_int),
                ("pixels_per_block", ctypes.c_int), ("pixels_per_scanline", ctypes.c_int)]


def to_szip(sz, src, dst, bpp, form):
    """Rewrites every deflate-compressed element of src as szip (libaec's
    szlib): the HDF4 compression header's szip fields, and the stream
    after a flag and its length (form "rev2"), bare (form "old", as the
    first HDF4 releases with szip wrote it), or stored as is (form "raw",
    flag 1).  New elements go at the end of the file; their descriptors
    are rewritten in place."""
    data = bytearray(open(src, "rb").read())
    nbytes = 4 if bpp == 24 else bpp // 8
    for tag, ref, off, ln, p in h4dds.dds(data):
        if not (tag & h4dds.SPECIAL) or ln < 16:
            continue
        sp, ver, total, cref, model, coder = struct.unpack(">HHIHHH", data[off:off + 14])
        if sp != h4dds.SP_COMP or coder != 4:
            continue
        comp = [d for d in h4dds.dds(data) if d[0] == 40 and d[1] == cref][0]
        raw = zlib.decompress(bytes(data[comp[2]:comp[2] + comp[3]]))
        pixels = total // nbytes
        pps = min(pixels, 64)
        mask = 32 | 16 | 128 | 1   # NN, MSB first, raw (no scanline headers), K13
        if form == "raw":
            stream = bytes([1]) + struct.pack(">I", len(raw)) + raw
        else:
            param = SzCom(mask, bpp, 8, pps)
            out = ctypes.create_string_buffer(2 * len(raw) + 1024)
            olen = ctypes.c_size_t(len(out))
            if sz.SZ_BufftoBuffCompress(out, ctypes.byref(olen), raw, ctypes.c_size_t(len(raw)),
                                        ctypes.byref(param)) != 0:
                return False
            stream = out.raw[:olen.value]
            if form == "rev2":
                stream = bytes([0]) + struct.pack(">I", len(stream)) + stream
        hdr = struct.pack(">HHIHHHIIIBB", sp, ver, total, cref, 0, 5, pixels, pps,
                          mask | (0x10000 if form != "old" else 0), bpp, 8)
        for blob, desc in ((stream, comp[4]), (hdr, p)):
            struct.pack_into(">II", data, desc + 4, len(data), len(blob))
            data += blob
    open(dst, "wb").write(bytes(data))
    return True


def native(letter, vals):
    if letter == "c":
        return b"".join(vals)
    return struct.pack("=%d%s" % (len(vals), letter), *vals)


def check_file(nc, path, expect, chunked):
    ncid = ctypes.c_int()
    st = nc.nc_open(path.encode(), 0, ctypes.byref(ncid))
    if not nctst.check(st == 0, "%s: nc_open %d" % (path, st)):
        return
    base = os.path.basename(path)
    for var, (letter, keep, valid, fill, gattr) in expect.items():
        vid = ctypes.c_int()
        if not nctst.check(nc.nc_inq_varid(ncid, var.encode(), ctypes.byref(vid)) == 0, base + var):
            continue
        size = 1 if letter == "c" else struct.calcsize(letter)
        buf = ctypes.create_string_buffer(NY * NX * size)
        st = nc.nc_get_var(ncid, vid, buf)
        nctst.check(st == 0 and buf.raw == native(letter, keep),
                    "%s %s: values (status %d)" % (base, var, st))
        # attributes: valid, units, _FillValue; the global one of this type
        ab = ctypes.create_string_buffer(64)
        if var == "v_uchar8":
            # the SD library reads a uchar8 attribute as text: as many
            # values as the field's order (1 here), not its 2 records
            valid, gattr = valid[:1], gattr[:1]
        alen = ctypes.c_size_t()
        nc.nc_inq_attlen(ncid, vid, b"valid", ctypes.byref(alen))
        nctst.check(alen.value == len(valid), base + var + ":valid length")
        nc.nc_inq_attlen(ncid, -1, ("g_" + var[2:]).encode(), ctypes.byref(alen))
        nctst.check(alen.value == len(gattr), base + var + " global length")
        nctst.check(nc.nc_get_att(ncid, vid, b"valid", ab) == 0
                    and ab.raw[:len(valid) * size] == native(letter, valid), base + var + ":valid")
        nctst.check(nc.nc_get_att(ncid, vid, b"units", ab) == 0 and ab.raw[:1] == b"m",
                    base + var + ":units")
        nctst.check(nc.nc_get_att(ncid, vid, b"_FillValue", ab) == 0
                    and ab.raw[:size] == native(letter, [fill]), base + var + ":_FillValue")
        nctst.check(nc.nc_get_att(ncid, -1, ("g_" + var[2:]).encode(), ab) == 0
                    and ab.raw[:len(gattr) * size] == native(letter, gattr), base + var + " global")
        t = ctypes.c_int()
        nc.nc_inq_vartype(ncid, vid, ctypes.byref(t))
        nctst.check(t.value == TYPES[var[2:]][2], "%s %s: type %d" % (base, var, t.value))
        dimids = (ctypes.c_int * 2)()
        nc.nc_inq_vardimid(ncid, vid, dimids)
        names = []
        for d in dimids:
            nm = ctypes.create_string_buffer(256)
            nc.nc_inq_dimname(ncid, d, nm)
            names.append(nm.value)
        nctst.check(names == [b"y", b"x"], "%s %s: dims %s" % (base, var, names))
        storage = ctypes.c_int(-1)
        cs = (ctypes.c_size_t * 2)()
        nc.nc_inq_var_chunking(ncid, vid, ctypes.byref(storage), cs)
        nctst.check((storage.value == 0) == chunked and (not chunked or list(cs) == [2, 16]),
                    "%s %s: chunking %d %s" % (base, var, storage.value, list(cs)))
        # a strided corner read agrees with the whole read
        start = (ctypes.c_size_t * 2)(1, 3)
        count = (ctypes.c_size_t * 2)(2, 5)
        stride = (ctypes.c_ssize_t * 2)(2, 7)
        sb = ctypes.create_string_buffer(10 * size)
        st = nc.nc_get_vars(ncid, vid, start, count, stride, sb)
        want = [keep[(1 + 2 * i) * NX + 3 + 7 * j] for i in range(2) for j in range(5)]
        nctst.check(st == 0 and sb.raw == native(letter, want), "%s %s: strided read" % (base, var))
    nc.nc_close(ncid)


def main():
    libpath, work = sys.argv[1:3]
    try:
        ctypes.CDLL("libdfalt.so.0", mode=ctypes.RTLD_GLOBAL)  # its symbols serve libmfhdfalt
        mf = ctypes.CDLL("libmfhdfalt.so.0")
    except OSError:
        nctst.skip("no HDF4 library (libhdf4-0-alt) to write with")
    os.makedirs(work, exist_ok=True)
    made = []   # (path, expected, chunked)
    for tag, comp in (("plain", None), ("rle", COMP_RLE), ("huff", COMP_SKPHUFF),
                      ("deflate", COMP_DEFLATE), ("nbit", "nbit")):
        path = os.path.join(work, "w_%s.hdf" % tag)
        if os.path.exists(path):
            os.remove(path)
        expect = write_file(mf, path, comp)
        if nctst.check(expect is not None, "writing " + path):
            made.append((path, expect, False))
    # szip: Debian's HDF4 writes none, so deflate-compressed data sets of
    # one type each are rewritten as szip (libaec), in HDF4's three forms
    try:
        sz = ctypes.CDLL("libsz.so.2")
    except OSError:
        sz = None
    if nctst.check(sz is not None, "libsz (libaec) to write szip with"):
        for name, (nt, letter, _) in TYPES.items():
            if letter == "c":
                continue
            src = os.path.join(work, "w_sz_%s.tmp" % name)
            if os.path.exists(src):
                os.remove(src)
            expect = write_file(mf, src, COMP_DEFLATE, only=name)
            for form in ("rev2", "old", "raw"):
                out = os.path.join(work, "w_szip_%s_%s.hdf" % (form, name))
                if nctst.check(expect is not None
                               and to_szip(sz, src, out, 8 * struct.calcsize(letter), form),
                               "szip " + out):
                    made.append((out, expect, False))
    # hrepack: the same data sets chunked 2 x 16, plain and compressed
    if shutil.which("hrepack") and made:
        path, expect, _ = made[0]
        for how in ("NONE", "RLE", "HUFF 2", "GZIP 1"):
            out = os.path.join(work, "w_chunk_%s.hdf" % how.split()[0].lower())
            r = subprocess.run(["hrepack", "-i", path, "-o", out, "-t", "*:" + how,
                                "-c", "*:2x16"], capture_output=True)
            if nctst.check(r.returncode == 0 and os.path.exists(out), "hrepack " + how):
                made.append((out, expect, True))
    # the files stay for tst_h4comp.sh even when this process cannot load
    # the library (a sanitizer build)
    nc = nctst.load_lib(libpath)
    nc.nc_get_vars.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_void_p, ctypes.c_void_p]
    for path, expect, chunked in made:
        check_file(nc, path, expect, chunked)
    nctst.finish("tst_h4write")


if __name__ == "__main__":
    main()
