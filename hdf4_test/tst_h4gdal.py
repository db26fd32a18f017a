"""tst_h4gdal.py LIBNETCDF WORK: HDF4 files written by GDAL's HDF4Image
driver (Debian's python3-gdal, run as a child /usr/bin/python3), one per
GDAL data type, as rank-2 data sets (one per band) and as one rank-3 data
set (bands interleaved by pixel); each read through our library: every value, the dimensions, the type
and the global attributes GDAL writes (signature, transform, metadata,
no-data values, band descriptions: text with a trailing NUL, as written).

Written files stay in WORK for tst_h4comp.sh (hdp dumpsds comparisons).
"""
import ctypes
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
import nctst  # noqa: E402

NX, NY, NB = 9, 4, 2
# GDAL type name: (struct letter, netCDF type)
TYPES = {"Byte": ("B", 7), "Int16": ("h", 3), "UInt16": ("H", 8), "Int32": ("i", 4),
         "UInt32": ("I", 9), "Float32": ("f", 5), "Float64": ("d", 6)}

WRITER = r"""
import json, struct, sys
from osgeo import gdal
gdal.UseExceptions()
work, spec = sys.argv[1], json.loads(sys.argv[2])
drv = gdal.GetDriverByName("HDF4Image")
for t in spec["types"]:
    letter = spec["types"][t]
    for rank in (2, 3):
        ds = drv.Create("%s/g_%s_r%d.hdf" % (work, t, rank), spec["nx"], spec["ny"], spec["nb"],
                        gdal.GetDataTypeByName(t), ["RANK=%d" % rank])
        ds.SetGeoTransform([10, 0.5, 0, 20, 0, -0.5])
        ds.SetMetadataItem("title", "from gdal")
        for b in range(1, spec["nb"] + 1):
            band = ds.GetRasterBand(b)
            band.SetNoDataValue(spec["nodata"])
            band.SetDescription("band%d" % b)
            vals = spec["values"][t][b - 1]
            band.WriteRaster(0, 0, spec["nx"], spec["ny"], struct.pack("=%d%s" % (len(vals), letter), *vals))
        ds = None
"""


def values(letter, band):
    n = NX * NY
    if letter in "fd":
        return [(k - 7) * 0.25 + band * 100 for k in range(n)]
    lo, hi = {"B": (0, 255), "h": (-32768, 32767), "H": (0, 65535), "i": (-2**31, 2**31 - 1),
              "I": (0, 2**32 - 1)}[letter]
    return [lo if k == 0 else hi if k == 1 else (k * 13 + band) % 120 for k in range(n)]


def text_att(nc, ncid, name):
    n = ctypes.c_size_t()
    if nc.nc_inq_attlen(ncid, -1, name.encode(), ctypes.byref(n)):
        return None
    b = ctypes.create_string_buffer(n.value + 1)
    nc.nc_get_att_text(ncid, -1, name.encode(), b)
    return b.raw[:n.value]


def main():
    libpath, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    spec = {"nx": NX, "ny": NY, "nb": NB, "nodata": 7,
            "types": {t: v[0] for t, v in TYPES.items()},
            "values": {t: [values(v[0], b) for b in range(NB)] for t, v in TYPES.items()}}
    r = subprocess.run(["/usr/bin/python3", "-c", "import osgeo.gdal"], capture_output=True)
    if r.returncode != 0:
        nctst.skip("no python3-gdal")
    r = subprocess.run(["/usr/bin/python3", "-c", "from osgeo import gdal; "
                        "print(gdal.GetDriverByName('HDF4Image') is not None)"],
                       capture_output=True, text=True)
    if r.stdout.strip() != "True":
        nctst.skip("GDAL without the HDF4Image driver")
    r = subprocess.run(["/usr/bin/python3", "-c", WRITER, work, json.dumps(spec)],
                       capture_output=True, text=True)
    if not nctst.check(r.returncode == 0, "GDAL writer: " + r.stderr[-500:]):
        nctst.finish("tst_h4gdal")
    nc = nctst.load_lib(libpath)   # the files stay for tst_h4comp.sh either way
    for t, (letter, nctype) in TYPES.items():
        size = struct.calcsize(letter)
        for rank in (2, 3):
            path = os.path.join(work, "g_%s_r%d.hdf" % (t, rank))
            ncid = ctypes.c_int()
            if not nctst.check(nc.nc_open(path.encode(), 0, ctypes.byref(ncid)) == 0, path):
                continue
            nvars = ctypes.c_int()
            nc.nc_inq_nvars(ncid, ctypes.byref(nvars))
            nctst.check(nvars.value == (NB if rank == 2 else 1), "%s: %d vars" % (path, nvars.value))
            for v in range(nvars.value):
                typ, nd = ctypes.c_int(), ctypes.c_int()
                dimids = (ctypes.c_int * 8)()
                nc.nc_inq_var(ncid, v, None, ctypes.byref(typ), ctypes.byref(nd), dimids, None)
                lens = []
                for i in range(nd.value):
                    ln = ctypes.c_size_t()
                    nc.nc_inq_dimlen(ncid, dimids[i], ctypes.byref(ln))
                    lens.append(ln.value)
                # rank 3: GDAL interleaves the bands by pixel (y, x, band)
                want_shape = [NY, NX] if rank == 2 else [NY, NX, NB]
                nctst.check(typ.value == nctype and lens == want_shape,
                            "%s var %d: type %d shape %s" % (path, v, typ.value, lens))
                n = 1
                for ln in lens:
                    n *= ln
                buf = ctypes.create_string_buffer(n * size)
                st = nc.nc_get_var(ncid, v, buf)
                bands = [values(letter, b) for b in range(NB)]
                want = bands[v] if rank == 2 else [bands[b][k] for k in range(NX * NY)
                                                   for b in range(NB)]
                nctst.check(st == 0 and buf.raw == struct.pack("=%d%s" % (len(want), letter), *want),
                            "%s var %d: values (status %d)" % (path, v, st))
            nctst.check(text_att(nc, ncid, "title") == b"from gdal\0", path + " title")
            nctst.check(text_att(nc, ncid, "TransformationMatrix")
                        == b"10.000000, 0.500000, 0.000000, 20.000000, 0.000000, -0.500000\0",
                        path + " transform")
            nctst.check((text_att(nc, ncid, "Signature") or b"").startswith(b"Created with GDAL"),
                        path + " signature")
            for b in range(1, NB + 1):
                nctst.check(text_att(nc, ncid, "NoDataValue%d" % b) == b"7.000000\0",
                            "%s NoDataValue%d" % (path, b))
                nctst.check(text_att(nc, ncid, "BandDesc%d" % b) == b"band%d\0" % b,
                            "%s BandDesc%d" % (path, b))
            nc.nc_close(ncid)
    nctst.finish("tst_h4gdal")


if __name__ == "__main__":
    main()
