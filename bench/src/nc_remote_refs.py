#!/usr/bin/env python3
"""nc_remote_refs.py FILE URL OUT: a kerchunk reference file (version 1)
for variable v of the netCDF-4 file FILE (shuffle + zlib chunks), each
chunk a byte range of URL (the same file on the loopback server), found
with h5py.  Input of the R workloads (bench/run.sh)."""
import json
import sys

import h5py

src, url, out = sys.argv[1:4]
with h5py.File(src, "r") as f:
    d = f["v"]
    rows, cols = d.shape
    crows, ccols = d.chunks
    refs = {".zgroup": json.dumps({"zarr_format": 2}),
            "v/.zarray": json.dumps({"shape": [rows, cols], "chunks": [crows, ccols], "dtype": "<f4",
                                     "compressor": {"id": "zlib", "level": 1},
                                     "filters": [{"id": "shuffle", "elementsize": 4}],
                                     "fill_value": None, "order": "C", "zarr_format": 2}),
            "v/.zattrs": json.dumps({"_ARRAY_DIMENSIONS": ["y", "x"]})}
    for i in range(d.id.get_num_chunks()):
        c = d.id.get_chunk_info(i)
        refs["v/%d.%d" % (c.chunk_offset[0] // crows, c.chunk_offset[1] // ccols)] = \
            ["{{u}}", c.byte_offset, c.size]
with open(out, "w") as f:
    json.dump({"version": 1, "templates": {"u": url}, "refs": refs}, f)
