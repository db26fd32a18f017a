#!/usr/bin/python3
"""tst_interop.py: libfilter against HDF5 itself (through h5py).

  hdf5->ours  HDF5 writes chunks with deflate/shuffle/fletcher32/szip
              pipelines; we read them raw (read_direct_chunk) and decode
              them with libfilter, using the parameters HDF5 stored.
  ours->hdf5  libfilter encodes chunks with those parameters; h5py stores
              them raw (write_direct_chunk) and HDF5 must read them back.
  plugins     our lib__nch5{zstd,bzip2,blosc}.so loaded by h5py write and
              read; Debian's plugins (bzip2 307, lz4 32004, blosc 32001)
              read our files and we (libfilter's registry) read theirs;
              h5dump -d reads a file written with our plugins.
Uses only our libnetcdf through ctypes (never the reference library).
Exit 77 when h5py or numpy is missing.
Usage: tst_interop.py LIBNETCDF OURPLUGINDIR
"""
import ctypes, os, subprocess, sys, tempfile, itertools

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
from nctst import check, finish, load_lib, skip  # noqa: E402

try:
    import numpy as np
    import h5py
except ImportError:
    skip("numpy or h5py missing")

LIB, OURDIR = sys.argv[1], sys.argv[2]
DEBDIR = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"
class Spec(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("nparams", ctypes.c_size_t), ("params", ctypes.POINTER(ctypes.c_uint))]

nc = load_lib(LIB)
nc.ncf_chain_create.argtypes = [ctypes.c_size_t, ctypes.POINTER(Spec), ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
nc.ncf_chain_decode.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
nc.ncf_chain_encode.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p),
                                ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_uint)]
nc.ncf_chain_free.argtypes = [ctypes.c_void_p]
libc = ctypes.CDLL(None)
libc.free.argtypes = [ctypes.c_void_p]

def filters_of(dset):
    """The pipeline HDF5 stored: [(id, flags, cd_values)]."""
    pl = dset.id.get_create_plist()
    return [pl.get_filter(i)[:3] for i in range(pl.get_nfilters())]

def make_chain(filters, typesize):
    specs = (Spec * max(1, len(filters)))()
    keep = []
    for i, (fid, flags, cd) in enumerate(filters):
        arr = (ctypes.c_uint * max(1, len(cd)))(*cd)
        keep.append(arr)
        specs[i] = Spec(fid, flags & 1, len(cd), arr)
    ch = ctypes.c_void_p()
    st = nc.ncf_chain_create(len(filters), specs, typesize, ctypes.byref(ch))
    return st, ch

def decode(ch, mask, raw, nbytes):
    out = ctypes.create_string_buffer(nbytes)
    st = nc.ncf_chain_decode(ch, mask, raw, len(raw), out, nbytes)
    return st, out.raw

def encode(ch, data):
    out = ctypes.c_void_p(); ol = ctypes.c_size_t(); mask = ctypes.c_uint()
    st = nc.ncf_chain_encode(ch, data, len(data), ctypes.byref(out), ctypes.byref(ol), ctypes.byref(mask))
    if st:
        return st, None, 0
    b = ctypes.string_at(out, ol.value)
    libc.free(out)
    return st, b, mask.value

def chunk_origins(shape, chunks):
    return itertools.product(*[range(0, s, c) for s, c in zip(shape, chunks)])

def chunk_of(arr, origin, chunks):
    """The chunk's data padded to full chunk size (zeros past the extent)."""
    full = np.zeros(chunks, dtype=arr.dtype)
    sl = tuple(slice(o, min(o + c, s)) for o, c, s in zip(origin, chunks, arr.shape))
    part = arr[sl]
    full[tuple(slice(0, n) for n in part.shape)] = part
    return full, sl, part.shape

DTYPES = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]
PIPES = [
    ("gzip1", dict(compression="gzip", compression_opts=1)),
    ("gzip9", dict(compression="gzip", compression_opts=9)),
    ("shuffle+gzip", dict(compression="gzip", compression_opts=4, shuffle=True)),
    ("fletcher32", dict(fletcher32=True)),
    ("shuffle+fletcher32+gzip", dict(compression="gzip", shuffle=True, fletcher32=True)),
    ("szip-nn8", dict(compression="szip", compression_opts=("nn", 8))),
    ("szip-ec16+shuffle", dict(compression="szip", compression_opts=("ec", 16), shuffle=True)),
]
SHAPES = [((37, 53), (10, 16)),      # partial edge chunks
          ((5, 7), (8, 8)),          # chunk larger than the variable
          ((3, 4), (1, 1))]          # one-element chunks

def sample(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        a = np.cumsum(rng.normal(size=shape), axis=-1).astype(dt)
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min // 2, info.max // 2, size=shape, dtype=dt, endpoint=True)
        a[::2] = (np.arange(a[::2].size).reshape(a[::2].shape) % 50).astype(dt)
    return a

def both_directions(tmp):
    n = 0
    for (pname, kw), dtype, (shape, chunks) in itertools.product(PIPES, DTYPES, SHAPES):
        if pname.startswith("szip") and np.dtype(dtype).itemsize * min(chunks) < 1 and False:
            continue
        arr = sample(dtype, shape, n)
        path = os.path.join(tmp, "d%d.h5" % n)
        n += 1
        try:
            with h5py.File(path, "w") as f:
                # Chunks larger than a fixed extent need unlimited dims.
                mx = (None,) * len(shape) if any(c > s for c, s in zip(chunks, shape)) else None
                d = f.create_dataset("v", data=arr, chunks=chunks, maxshape=mx, **kw)
                filt = filters_of(d)
        except (ValueError, OSError) as e:
            # HDF5 refuses szip when pixels-per-block exceeds the chunk.
            check(pname.startswith("szip"), "%s %s %s: h5py refused: %s" % (pname, dtype, chunks, e))
            continue
        ts = np.dtype(dtype).itemsize
        nbytes = int(np.prod(chunks)) * ts
        if pname.startswith("szip"):
            # Our set_local computation gives what HDF5 stored.
            sz = [f_ for f_ in filt if f_[0] == 4][0][2]
            out4 = (ctypes.c_uint * 4)()
            dims = (ctypes.c_size_t * len(chunks))(*chunks)
            um = 32 if "nn" in pname else 4
            ppb = kw["compression_opts"][1]
            st = nc.ncf_szip_params(um, ppb, ts, 0, len(chunks), dims, out4)
            check(st == 0 and tuple(out4) == tuple(sz), "szip params %s %s: ours %s hdf5 %s" % (dtype, chunks, tuple(out4), sz))
        st, ch = make_chain(filt, ts)
        check(st == 0, "chain %s: %d" % (filt, st))
        if st:
            continue
        # hdf5 -> ours
        with h5py.File(path, "r") as f:
            d = f["v"]
            for o in chunk_origins(shape, chunks):
                mask, raw = d.id.read_direct_chunk(o)
                st, out = decode(ch, mask, raw, nbytes)
                want, sl, pshape = chunk_of(arr, o, chunks)
                got = np.frombuffer(out, dtype=dtype).reshape(chunks)
                ok = st == 0 and np.array_equal(got[tuple(slice(0, k) for k in pshape)], arr[sl])
                check(ok, "hdf5->ours %s %s %s chunk %s: st %d" % (pname, dtype, chunks, o, st))
        # ours -> hdf5
        path2 = os.path.join(tmp, "e%d.h5" % n)
        with h5py.File(path2, "w") as f:
            mx = (None,) * len(shape) if any(c > s for c, s in zip(chunks, shape)) else None
            d = f.create_dataset("v", shape=shape, dtype=dtype, chunks=chunks, maxshape=mx, **kw)
            for o in chunk_origins(shape, chunks):
                full, _, _ = chunk_of(arr, o, chunks)
                st, enc, mask = encode(ch, full.tobytes())
                check(st == 0, "encode %s %s: %d" % (pname, dtype, st))
                if st == 0:
                    d.id.write_direct_chunk(o, enc, filter_mask=mask)
        with h5py.File(path2, "r") as f:
            try:
                back = f["v"][...]
                check(np.array_equal(back, arr), "ours->hdf5 %s %s %s: data differ" % (pname, dtype, chunks))
            except OSError as e:
                check(False, "ours->hdf5 %s %s %s: HDF5 cannot read: %s" % (pname, dtype, chunks, e))
        nc.ncf_chain_free(ch)
        os.unlink(path); os.unlink(path2)

# ---- plugins: each step in a child process with its own HDF5_PLUGIN_PATH ----

PLUG_WRITES = {
    "zstd": (32015, (3,)),
    "bzip2": (307, (9,)),
    "blosc-lz4": (32001, (0, 0, 0, 0, 5, 1, 1)),
    "blosc-zstd-bit": (32001, (0, 0, 0, 0, 7, 2, 5)),
    "blosc-lz-noshuf": (32001, (0, 0, 0, 0, 3, 0, 0)),
    "blosc-zlib": (32001, (0, 0, 0, 0, 4, 1, 4)),
}

def child(mode, path, plugdir):
    env = dict(os.environ, HDF5_PLUGIN_PATH=plugdir)
    r = subprocess.run([sys.executable, __file__, LIB, OURDIR, mode, path], env=env,
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr

def plugin_child(mode, path):
    """Runs inside a child process."""
    arr = np.arange(60000, dtype="f4").reshape(200, 300) * np.float32(0.37)
    if mode == "write":
        with h5py.File(path, "w") as f:
            for name, (fid, opts) in PLUG_WRITES.items():
                f.create_dataset(name, data=arr, chunks=(50, 64), compression=fid, compression_opts=opts)
        return 0
    if mode == "write-lz4":
        with h5py.File(path, "w") as f:
            f.create_dataset("lz4", data=arr, chunks=(50, 64), compression=32004, compression_opts=(0,))
            f.create_dataset("bzip2", data=arr, chunks=(50, 64), compression=307, compression_opts=(9,))
            f.create_dataset("blosc", data=arr, chunks=(50, 64), compression=32001,
                             compression_opts=(0, 0, 0, 0, 5, 1, 1))
        return 0
    if mode.startswith("read:"):
        names = mode[5:].split(",")
        with h5py.File(path, "r") as f:
            for nm in names:
                if not np.array_equal(f[nm][...], arr):
                    print("data differ in", nm)
                    return 1
        return 0
    if mode == "libfilter-read":
        # Decode every raw chunk with libfilter (plugins from the registry).
        with h5py.File(path, "r") as f:
            for nm in f:
                d = f[nm]
                st, ch = make_chain(filters_of(d), 4)
                if st:
                    print("no chain for", nm, st)
                    return 1
                for o in chunk_origins(arr.shape, d.chunks):
                    mask, raw = d.id.read_direct_chunk(o)
                    st, out = decode(ch, mask, raw, 50 * 64 * 4)
                    want, sl, pshape = chunk_of(arr, o, d.chunks)
                    got = np.frombuffer(out, dtype="f4").reshape(d.chunks)
                    if st or not np.array_equal(got[tuple(slice(0, k) for k in pshape)], arr[sl]):
                        print("libfilter decode of", nm, o, "failed", st)
                        return 1
                nc.ncf_chain_free(ch)
        return 0
    return 2

def plugins(tmp):
    ours = os.path.join(tmp, "ours.h5")
    rc, out = child("write", ours, OURDIR)
    check(rc == 0, "h5py writes with our plugins: " + out)
    rc, out = child("read:" + ",".join(PLUG_WRITES), ours, OURDIR)
    check(rc == 0, "h5py reads back with our plugins: " + out)
    rc, out = child("libfilter-read", ours, "/nonexistent")
    check(rc == 0, "libfilter's built-ins read our plugin's chunks: " + out)
    h5dump = "/usr/bin/h5dump"
    if os.path.exists(h5dump):
        for nm in ("zstd", "bzip2", "blosc-lz4"):
            r = subprocess.run([h5dump, "-d", "/" + nm, "-c", "1,4", ours], capture_output=True, text=True,
                               env=dict(os.environ, HDF5_PLUGIN_PATH=OURDIR))
            check(r.returncode == 0 and "DATA" in r.stdout, "h5dump -d /%s with our plugins: %s" % (nm, r.stderr[-300:]))
    if os.path.isdir(DEBDIR):
        # Debian's plugins read what ours wrote (bzip2, blosc with every compressor).
        rc, out = child("read:bzip2,blosc-lz4,blosc-zstd-bit,blosc-lz-noshuf,blosc-zlib", ours, DEBDIR)
        check(rc == 0, "Debian's bzip2/blosc plugins read our files: " + out)
        theirs = os.path.join(tmp, "theirs.h5")
        rc, out = child("write-lz4", theirs, DEBDIR)
        check(rc == 0, "h5py writes with Debian's plugins: " + out)
        rc, out = child("read:bzip2,blosc", theirs, OURDIR)
        check(rc == 0, "our plugins read Debian's bzip2/blosc: " + out)
        # lz4 has no built-in: libfilter must load Debian's plugin itself.
        rc, out = child("libfilter-read", theirs, DEBDIR)
        check(rc == 0, "libfilter reads Debian lz4/bzip2/blosc chunks: " + out)
        rc, out = child("libfilter-read", theirs, "/nonexistent")
        check(rc != 0 and "no chain for lz4" in out, "without the plugin, lz4 is NC_ENOFILTER: " + out)
    else:
        print("Debian plugins not installed: those checks skipped")

if __name__ == "__main__":
    if len(sys.argv) == 5:
        sys.exit(plugin_child(sys.argv[3], sys.argv[4]))
    with tempfile.TemporaryDirectory() as tmp:
        both_directions(tmp)
        plugins(tmp)
    finish("tst_interop")
