#!/usr/bin/python3
"""zmap_interop.py: our stores against zarr-python 2's, object by object.

Usage: zmap_interop.py ZMAP_CAT WORKDIR
  - zarr-python writes a DirectoryStore and a ZipStore; we list and read every
    object of both (same keys, same bytes) and sniff them as Zarr;
  - we copy the directory store into a zip in zarr-python's layout ("zip,zarr")
    and zarr-python reads the arrays back; in upstream NCZarr's layout ("zip")
    every entry sits under the archive's name and copying back gives the same
    arrays;
  - with NCZ_S3_ENDPOINT/NCZ_S3_BUCKET set (s3server.sh run), the store goes
    to the S3 server and back unchanged.
Exit 77 when zarr-python is missing."""
import os
import shutil
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
from nctst import check, finish, skip  # noqa: E402

try:
    import numpy as np
    import zarr
    import numcodecs
except ImportError:
    skip("zarr-python not available")

cat, work = sys.argv[1], sys.argv[2]


def run(*args):
    p = subprocess.run([cat, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        print("zmap_cat", *args, "->", p.returncode, p.stderr.decode(errors="replace"))
    return p.returncode, p.stdout


def fill(root):
    g = zarr.group(store=root, overwrite=True)
    g.attrs["title"] = "interop"
    g.create_dataset("a", data=np.arange(100, dtype="<i4").reshape(10, 10), chunks=(4, 4),
                     compressor=numcodecs.Zlib(level=1))
    sub = g.create_group("sub")
    sub.create_dataset("b", data=np.linspace(0, 1, 37), chunks=(10,), compressor=None)
    arr = zarr.create(shape=(6, 6), chunks=(3, 3), dtype="u2", store=root, path="nested",
                      dimension_separator="/", compressor=None)
    arr[:] = np.arange(36, dtype="u2").reshape(6, 6)


def arrays_of(store):
    g = zarr.open_group(store=store, mode="r")
    return {"a": g["a"][:], "b": g["sub/b"][:], "nested": zarr.open_array(store=store, path="nested", mode="r")[:]}


def same_arrays(x, y, what):
    for k in x:
        check(np.array_equal(x[k], y[k]), f"{what}: array {k}")


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
pydir = os.path.join(work, "py.zarr")
pyzip = os.path.join(work, "py.zip")
fill(zarr.DirectoryStore(pydir))
zs = zarr.ZipStore(pyzip, mode="w")
fill(zs)
zs.close()
want = arrays_of(zarr.DirectoryStore(pydir))

# 1. their stores, read by us
dirkeys = sorted("/" + os.path.relpath(os.path.join(d, f), pydir)
                 for d, _, fs in os.walk(pydir) for f in fs)
rc, out = run("list", pydir, "file")
check(rc == 0 and out.decode().split() == dirkeys, "directory listing")
with zipfile.ZipFile(pyzip) as z:
    zipkeys = sorted("/" + n for n in z.namelist() if not n.endswith("/"))
    rc, out = run("list", pyzip, "zip")
    check(rc == 0 and out.decode().split() == zipkeys, "zip listing")
    for k in zipkeys:
        rc, data = run("get", pyzip, "", k)
        check(rc == 0 and data == z.read(k[1:]), f"zip object {k}")
for k in dirkeys:
    rc, data = run("get", "file://" + pydir, "", k)
    with open(pydir + k, "rb") as f:
        check(rc == 0 and data == f.read(), f"directory object {k}")
for path, yes in ((pydir, "yes"), (pyzip, "yes"), (work, "no"), (os.path.join(work, "nothing"), "no")):
    rc, out = run("sniff", path)
    check(rc == 0 and out.decode().strip() == yes, f"sniff {path}")

# 2. our zips, read by zarr-python
ourzip = os.path.join(work, "ours.zip")
rc, _ = run("copy", pydir, "file", ourzip, "zip,zarr")
check(rc == 0, "copy to a zarr-layout zip")
zs = zarr.ZipStore(ourzip, mode="r")
same_arrays(want, arrays_of(zs), "zarr-python reads our zip")
zs.close()
nczip = os.path.join(work, "ours_nczarr.zip")
rc, _ = run("copy", pydir, "file", nczip, "zip")
check(rc == 0, "copy to an NCZarr-layout zip")
with zipfile.ZipFile(nczip) as z:
    names = z.namelist()
    check(names[0] == "ours_nczarr/" and all(n.startswith("ours_nczarr/") for n in names),
          "NCZarr zip layout: " + " ".join(names[:3]))
    check(all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist()), "entries stored")
back = os.path.join(work, "back.zarr")
rc, _ = run("copy", nczip, "", back, "file")
check(rc == 0, "copy back from the NCZarr zip")
same_arrays(want, arrays_of(zarr.DirectoryStore(back)), "round trip through our zip")

# 3. S3
ep, bucket = os.environ.get("NCZ_S3_ENDPOINT"), os.environ.get("NCZ_S3_BUCKET")
if ep and bucket:
    url = f"{ep}/{bucket}/interop/store"
    rc, _ = run("copy", pydir, "file", url, "s3")
    check(rc == 0, "copy to S3")
    rc, out = run("list", url, "s3")
    check(rc == 0 and out.decode().split() == dirkeys, "S3 listing")
    s3back = os.path.join(work, "s3back.zarr")
    rc, _ = run("copy", url, "s3", s3back, "file")
    check(rc == 0, "copy back from S3")
    same_arrays(want, arrays_of(zarr.DirectoryStore(s3back)), "round trip through S3")

finish("zmap_interop")
