#!/usr/bin/python3
"""tst_zmeta_zarrpy.py: stores zarr-python 2 writes that upstream reads:
pure Zarr stores with no root .zgroup (only arrays; only a nested group),
JSON-valued attributes, and zarr-python's default fill_value 0.  Our ncdump
must print them as the reference 4.9.0 ncdump does where it can read them
(its anonymous dimensions are "_zdim_N", 4.10.1's and ours
"_Anonymous_Dim_N"); JSON attributes read in upstream 4.10.1's layout; no
_FillValue attribute is made up from fill_value (as 4.10.1), so real zeros
print as 0.

Usage: tst_zmeta_zarrpy.py NCDUMP WORKDIR [REF_NCDUMP]
Exit 77 (skip) without zarr-python."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nc_test"))
from nctst import check, finish, skip  # noqa: E402

try:
    import numpy as np
    import zarr
except Exception as e:  # pragma: no cover
    skip("zarr-python not available (%s)" % e)

ours = sys.argv[1]
work = os.path.abspath(sys.argv[2])
ref = sys.argv[3] if len(sys.argv) > 3 else "/usr/bin/ncdump"
have_ref = os.access(ref, os.X_OK)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.chdir(work)


def dump(tool, store, *opts):
    r = subprocess.run([tool, *opts, "file://%s/%s#mode=zarr,file" % (work, store)],
                       capture_output=True, text=True,
                       env=dict(os.environ, LD_LIBRARY_PATH="") if tool == ref else None)
    return r.returncode, r.stdout, r.stderr


def same_as_ref(store, what, *opts):
    rc, out, err = dump(ours, store, *opts)
    check(rc == 0, "%s: our ncdump failed: %s" % (what, err.strip()))
    if not have_ref:
        return out
    rrc, rout, rerr = dump(ref, store, *opts)
    if rrc != 0:
        print("note: reference cannot read %s: %s" % (what, rerr.strip()))
        return out
    rout = rout.replace("_zdim_", "_Anonymous_Dim_")
    check(out == rout, "%s: differs from the reference:\n--- ours\n%s--- reference\n%s" % (what, out, rout))
    return out


# ---- no root .zgroup: only arrays ------------------------------------------------
a = zarr.open_array("arrays.zarr/x", mode="w", shape=(4,), chunks=(2,), dtype="<i4",
                    fill_value=-1, compressor=None)
a[:] = [1, 0, 3, 4]
a.attrs["_ARRAY_DIMENSIONS"] = ["n"]
b = zarr.open_array("arrays.zarr/y", mode="w", shape=(2, 3), dtype="<f8", compressor=None)
b[:] = 1.5
check(not os.path.exists("arrays.zarr/.zgroup"), "zarr-python wrote no root .zgroup")
out = same_as_ref("arrays.zarr", "arrays-only store")
check("int x(n) ;" in out and "double y(" in out, "arrays-only store variables:\n" + out)
check("x = 1, 0, 3, 4 ;" in out, "arrays-only store data:\n" + out)

# ---- no root .zgroup: a nested group ---------------------------------------------
g = zarr.open_group("nested.zarr/g", mode="w")
g.attrs["title"] = "inner"
z = g.create_dataset("z", shape=(3,), dtype="<i2", compressor=None)
z[:] = [5, 0, 7]
out = same_as_ref("nested.zarr", "nested-group store")
check("group: g {" in out and ':title = "inner" ;' in out and "z = 5, 0, 7 ;" in out,
      "nested-group store:\n" + out)

# ---- JSON-valued attributes ------------------------------------------------------
root = zarr.open_group("json.zarr", mode="w")
v = root.create_dataset("v", shape=(2,), dtype="<i4", compressor=None, fill_value=None)
v[:] = [1, 2]
v.attrs["j"] = {"key1": [1, 2, 3]}
v.attrs["k"] = {"a": 1, "b": [1, 2.5, "x"], "c": {"d": None, "e": True}}
# objects: the reference's layout and 4.10.1's agree
same_as_ref("json.zarr", "JSON attributes", "-h")
v.attrs["m"] = [[1, 2], [3, 4]]  # the reference fails on a nested array
rc, out, err = dump(ours, "json.zarr", "-h")
check(r'v:j = "{\"key1\": [1,2,3]}" ;' in out, "JSON attribute j:\n" + out)
check(r'v:k = "{\"a\": 1, \"b\": [1,2.5,\"x\"], \"c\": {\"d\": null, \"e\": true}}" ;' in out,
      "JSON attribute k:\n" + out)
check('v:m = "[[1,2],[3,4]]" ;' in out, "JSON attribute m:\n" + out)

# ---- zarr-python's default fill 0 ------------------------------------------------
root = zarr.open_group("fill.zarr", mode="w")
f = root.create_dataset("f", shape=(4,), chunks=(2,), dtype="<i4", compressor=None)
f[0:2] = [0, 6]  # the second chunk is never written: it reads as the fill 0
check(f.fill_value == 0, "zarr-python's default fill_value is 0")
rc, out, err = dump(ours, "fill.zarr")
check(rc == 0 and "_FillValue" not in out, "no _FillValue made up:\n" + out + err)
check("f = 0, 6, 0, 0 ;" in out, "zeros print as zeros:\n" + out)

finish("tst_zmeta_zarrpy")
