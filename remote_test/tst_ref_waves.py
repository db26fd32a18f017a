#!/usr/bin/env python3
"""tst_ref_waves.py: a read through a reference store of more chunks than
the chunk engine fetches in one wave.

    tst_ref_waves.py LIBDIR WORKDIR

A netCDF-4 variable of 128 deflated chunks (netCDF4-python) is served by
the loopback rangeserver.py; a version 1 reference file names each chunk
as a range of that URL, except one chunk left out (it reads as the fill
value).  Read whole through our library (nc_get_var), the store must give
every value the direct #mode=bytes read gives (and h5py's local read),
the left-out chunk as fill, in a bounded number of requests: a few per
wave, far fewer than one per chunk (16 KiB blocks, so that waves are not
served from blocks an earlier wave brought).
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
import nctst  # noqa: E402
import rtest  # noqa: E402

LIBDIR, WORK = sys.argv[1:3]
PY = "/usr/bin/python3"
ROWS, COLS, CROWS = 1024, 512, 8
NCHUNKS = ROWS // CROWS
DROPPED = 37      # the chunk the reference file leaves out
FILL = -7.5

MAKE = r"""
import json, sys, h5py, numpy as np, netCDF4
src, rows, cols, crows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with netCDF4.Dataset(src, 'w') as d:
    d.createDimension('y', rows); d.createDimension('x', cols)
    v = d.createVariable('v', 'f4', ('y', 'x'), zlib=True, complevel=1, shuffle=True,
                         chunksizes=(crows, cols))
    rng = np.random.default_rng(3)
    y = np.arange(rows, dtype='f4')[:, None]; x = np.arange(cols, dtype='f4')
    v[:] = (np.sin(x / 30) * np.cos(y / 40) * 50 + rng.integers(0, 100, (rows, cols)) * 0.25).astype('f4')
chunks = []
with h5py.File(src, 'r') as f:
    d = f['v']
    for i in range(d.id.get_num_chunks()):
        c = d.id.get_chunk_info(i)
        chunks.append([c.chunk_offset[0] // crows, c.byte_offset, c.size])
print(json.dumps(chunks))
"""


def refs(url, chunks):
    r = {".zgroup": json.dumps({"zarr_format": 2}),
         "v/.zarray": json.dumps({"shape": [ROWS, COLS], "chunks": [CROWS, COLS], "dtype": "<f4",
                                  "compressor": {"id": "zlib", "level": 1},
                                  "filters": [{"id": "shuffle", "elementsize": 4}],
                                  "fill_value": FILL, "order": "C", "zarr_format": 2}),
         "v/.zattrs": json.dumps({"_ARRAY_DIMENSIONS": ["y", "x"]})}
    for i, off, size in chunks:
        if i != DROPPED:
            r["v/%d.0" % i] = ["{{u}}", off, size]
    return {"version": 1, "templates": {"u": url}, "refs": r}


def main():
    import numpy as np
    shutil.rmtree(WORK, ignore_errors=True)
    data = os.path.join(WORK, "data")
    os.makedirs(data)
    src = os.path.join(data, "w.nc")
    r = subprocess.run([PY, "-c", MAKE, src, str(ROWS), str(COLS), str(CROWS)], capture_output=True, timeout=120)
    if r.returncode != 0:
        nctst.skip("netCDF4-python / h5py: %s" % r.stderr.decode()[-300:])
    chunks = json.loads(r.stdout)
    nctst.check(len(chunks) == NCHUNKS, "%d chunks written" % len(chunks))
    r = subprocess.run([PY, "-c", "import h5py, numpy as np, sys; "
                        "np.save(sys.argv[2], h5py.File(sys.argv[1], 'r')['v'][...])", src,
                        os.path.join(WORK, "local.npy")], capture_output=True, timeout=120)
    nctst.check(r.returncode == 0, "h5py read: %s" % r.stderr.decode()[-300:])
    local = np.load(os.path.join(WORK, "local.npy"))
    # Small blocks: each wave needs requests of its own.
    os.environ["NETCDF_BYTERANGE_BLOCKSIZE"] = "16k"
    nc = nctst.load_lib(os.path.join(LIBDIR, "libnetcdf.so"))
    with rtest.server(data, WORK) as port:
        base = "http://127.0.0.1:%d" % port
        rj = os.path.join(data, "w.json")
        with open(rj, "w") as f:
            json.dump(refs(base + "/w.nc", chunks), f)
        rtest.control(port, "reset")
        s, direct = nctst.read_var(nc, base + "/w.nc#mode=bytes", "v")
        nctst.check(s == 0, "direct read: status %d" % s)
        rtest.control(port, "reset")
        s, viaref = nctst.read_var(nc, "file://%s#mode=zarr,reference" % rj, "v")
        st = rtest.control(port, "stats")
    nctst.check(s == 0, "reference store read: status %d" % s)
    if direct is None or viaref is None:
        nctst.finish("tst_ref_waves")
    nctst.check(np.array_equal(direct, local), "direct read differs from h5py's")
    want = local.copy()
    want[DROPPED * CROWS:(DROPPED + 1) * CROWS, :] = FILL
    bad = int(np.count_nonzero(viaref != want))
    nctst.check(bad == 0, "reference store: %d values differ from the direct read" % bad)
    nctst.check(np.array_equal(viaref[:DROPPED * CROWS], direct[:DROPPED * CROWS]) and
                np.array_equal(viaref[(DROPPED + 1) * CROWS:], direct[(DROPPED + 1) * CROWS:]),
                "reference store and direct read differ outside the left-out chunk")
    # A few requests per wave (the reader's connections, 4), about
    # log2(chunks / first wave) + 4 waves: bounded well below one per chunk.
    nreq = st["requests"]
    nctst.check(1 < nreq <= 4 * 10 + 1 and nreq < NCHUNKS // 2,
                "reference store read of %d chunks: %d requests" % (NCHUNKS, nreq))
    print("reference store read: %d requests for %d chunks (%d bytes in the file)" %
          (nreq, NCHUNKS, os.path.getsize(src)))
    nctst.finish("tst_ref_waves")


if __name__ == "__main__":
    main()
