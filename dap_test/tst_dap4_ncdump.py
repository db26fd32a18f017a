#!/usr/bin/env python3
"""tst_dap4_ncdump.py NCDUMP DATA WORK: the DAP4 client against the CDL.

Oracle 1: for every recorded unconstrained response DATA/raw/NAME.nc.dap,
our ncdump of file://DATA/raw/NAME.nc?dap4.checksum=false#dap4 shows the
dataset of DATA/cdl/NAME.cdl, as the reference /usr/bin/ncgen -k nc4 and
/usr/bin/ncdump show it, once the differences DAP4 makes are taken out
(listed below, and in docs/differences.md).
Oracle 2: each constrained response decodes to the slice of the full
dataset its constraint names.
"""
import os
import re
import subprocess
import sys

NCDUMP, DATA, WORK = sys.argv[1:4]
REF_NCGEN, REF_NCDUMP = "/usr/bin/ncgen", "/usr/bin/ncdump"

# Attributes a DAP4 server or upstream's client add: not in the CDL.
ADDED_ATTS = re.compile(r"^\s+(?:\S+ )?\S*:(_DAP4_\w+|_ChunkSizes|_edu\.ucar\.\w+) = ")

# Deliberate or protocol-made differences, per dataset (why):
EXPECTED = {
    # DAP4 has no type names: structures are "PATH_t", sequences vlens
    # "PATH_t" of compounds "PATH_base_t", opaques the vlen "_bytestring"
    # (upstream's mapping); the shape and values are the CDL's.
    "types": "user type names and opaque/sequence representation (upstream's DAP4 mapping)",
    # The server leaves out variables with a zero-length dimension.
    "test_misc1": {"time", "pr"},
    "test_zerodim": {"time", "pr"},
}
# Values shown differently (what is compared instead: dimensions, variables
# and attributes):
DATA_DIFFERS = {
    # a structure or sequence holding a sequence: compound{vlen of compound}
    # here, compound{vlen of int} in the CDL (upstream's mapping)
    "test_vlen3": "sequence of one member inside a structure",
    "test_vlen5": "sequence of one member inside a structure array",
    # the CDL's anonymous field dimension of size 2 is the root dimension
    # _AnonymousDim2 here, as upstream makes it
    "test_vlen4": "sequence inside a structure with an anonymous dimension",
    # the server describes a vlen of vlens as one sequence of Int32: the
    # counts of the inner vlens read as values (the recorded DMR says so)
    "test_vlen11": "the server's DMR flattens a vlen of vlens",
}


def run(args):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args), r.stderr.decode(errors="replace")))
    return r.stdout.decode()


def sections(text):
    """Header line dropped; blank lines, comments and added attributes out;
    the 'string' prefix of text attributes dropped (DAP4 String attributes
    are NC_STRING, the CDL's char); user type names replaced by <T>;
    variable and data blocks as sets (the server's DMR order is its own)."""
    lines = text.splitlines()[1:]
    types, decls, data, dims = [], {}, {}, []
    part, cur = None, None
    typenames = set()
    bytestring_vars, flat_vars = set(), set()
    single_field = set()
    # compound types with one field (the base of a sequence of one member)
    tl = [l for l in lines]
    for i, l in enumerate(tl):
        m = re.match(r"^  compound (\S+) \{$", l)
        if m and i + 2 < len(tl) and tl[i + 2].startswith("  }; //"):
            single_field.add(m.group(1))
    for l in lines:
        if not l.strip() or l.startswith("// global") or l == "}" or ADDED_ATTS.match(l):
            continue
        if l in ("types:", "dimensions:", "variables:", "data:"):
            part = l
            cur = None
            continue
        if part == "types:":
            m = re.match(r"^  (?:compound|opaque\(\d+\)|\S+ enum) (\S+)", l) or \
                re.match(r"^  \S+\(\*\) (\S+) ;", l)
            if m:
                typenames.add(m.group(1))
                m2 = re.match(r"^  (\S+)\(\*\) (\S+) ;", l)
                if m2 and m2.group(1) in single_field:
                    single_field.add(m2.group(2))
            types.append(l)
        elif part == "dimensions:":
            dims.append(l)
        elif part == "variables:":
            if ADDED_ATTS.match(l):
                continue
            m = re.match(r"^\t(\S+) (\S+?)(\(.*\))? ;$", l)
            if m:
                t, name = m.group(1), m.group(2)
                if t == "_bytestring":
                    bytestring_vars.add(name)
                if t in single_field:
                    flat_vars.add(name)
                if t in typenames and " enum " not in " ".join(types):
                    t = "<T>"
                elif t in typenames and not any(re.match(r"^  \S+ enum %s " % re.escape(t), x) for x in types):
                    t = "<T>"
                cur = name
                decls[cur] = ["\t%s %s%s ;" % (t, name, m.group(3) or "")]
                continue
            l = re.sub(r"^(\t\t)string (\S*:)", r"\1\2", l)
            l = re.sub(r"^(\t\t)\S+ (\S*:_FillValue)", r"\1\2", l)
            if cur is None or l.startswith("\t\t:"):
                decls.setdefault("", []).append(l)
            else:
                decls[cur].append(l)
        elif part == "data:":
            m = re.match(r"^ (\S+) = ?(.*)$", l)
            if m:
                cur = m.group(1)
                data[cur] = [m.group(2)] if m.group(2) else []
            else:
                data[cur].append(l.strip())
    for v in data:
        s = " ".join(data[v])
        if v in bytestring_vars:
            s = re.sub(r"\{([\d, ]+)\}",
                       lambda m: "0X" + "".join("%02X" % int(x) for x in m.group(1).split(", ")), s)
        if v in flat_vars:
            s = re.sub(r"\{([^{}]*)\}", r"\1", s)
        data[v] = s
    return dims, decls, data


def compare(name, ours, ref):
    d1, v1, x1 = sections(ours)
    d2, v2, x2 = sections(ref)
    missing = EXPECTED.get(name, set())
    for v in missing:
        v2.pop(v, None)
        x2.pop(v, None)
    errs = []
    if name in DATA_DIFFERS:
        d1 = [x for x in d1 if "_AnonymousDim" not in x]
        x1, x2 = {}, {}
    if sorted(d1) != sorted(d2):
        errs.append("dimensions %s != %s" % (d1, d2))
    for k in sorted(set(v1) | set(v2)):
        a, b = v1.get(k), v2.get(k)
        if a != b:
            # user types: declared as <T> on both sides unless a name is kept
            if a and b and [x for x in a if not x.startswith("\t<T>")] == \
                    [x for x in b if not x.startswith("\t<T>")] and a[0].split(" ", 1)[1] == b[0].split(" ", 1)[1]:
                continue
            errs.append("variable %r: %s != %s" % (k, a, b))
    for k in sorted(set(x1) | set(x2)):
        if x1.get(k) != x2.get(k):
            errs.append("data %r: %s != %s" % (k, x1.get(k), x2.get(k)))
    return errs


# The constrained responses (README): dataset, variable, flat indices of
# the full variable the constraint selects.
SLICES = [
    ("test_atomic_array.1", "test_atomic_array", "vu8", [3, 5]),       # vu8[1][0:2:2]
    ("test_atomic_array.1", "test_atomic_array", "vd", [1]),           # vd[1]
    ("test_atomic_array.1", "test_atomic_array", "vs", [2]),           # vs[1][0]
    ("test_atomic_array.1", "test_atomic_array", "vo", [1]),           # vo[0][1]
    ("test_atomic_array.2", "test_atomic_array", "v16", [0, 1, 3]),    # v16[0:1,3]
    ("test_atomic_array.3", "test_atomic_array", "v16", [3, 0, 1]),    # v16[3,0:1]
    ("test_one_vararray.4", "test_one_vararray", "t", [1]),            # t[1]
    ("test_one_vararray.5", "test_one_vararray", "t", [0, 1]),         # t[0:1]
    ("test_enum_array.6", "test_enum_array", "primary_cloud", [1, 3]), # [1:2:4]
    ("test_opaque_array.7", "test_opaque_array", "vo2", [2, 3]),       # vo2[1][0:1]
    ("test_struct_array.8", "test_struct_array", "s", [0, 1, 6, 7]),   # s[0:2:3][0:1] of 4x3
]


def tokens(text, var):
    """The values of var in an ncdump listing, split at top-level commas."""
    m = re.search(r"\n %s =(.*?);\n" % re.escape(var), text, re.S)
    if not m:
        return []
    s, out, cur, depth, q = m.group(1), [], "", 0, False
    i = 0
    while i < len(s):
        c = s[i]
        if q:
            cur += c
            if c == "\\":
                cur += s[i + 1]
                i += 1
            elif c == '"':
                q = False
        elif c == '"':
            q = True
            cur += c
        elif c in "{":
            depth += 1
            cur += c
        elif c in "}":
            depth -= 1
            cur += c
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        out.append(cur.strip())
    return [" ".join(x.split()) for x in out]


def main():
    os.makedirs(WORK, exist_ok=True)
    raw, cdl = os.path.join(DATA, "raw"), os.path.join(DATA, "cdl")
    if not (os.path.exists(REF_NCGEN) and os.path.exists(REF_NCDUMP) and os.path.isdir(raw)):
        print("no reference or no data")
        return 77
    names = sorted(f[:-len(".nc.dap")] for f in os.listdir(raw)
                   if f.endswith(".nc.dap") and not re.search(r"\.\d+\.nc\.dap$", f))
    bad = 0
    for n in names:
        c = os.path.join(cdl, n + ".cdl")
        if not os.path.exists(c):
            continue
        nc = os.path.join(WORK, n + ".nc")
        run([REF_NCGEN, "-k", "nc4", "-o", nc, c])
        ref = run([REF_NCDUMP, nc])
        url = "file://%s/%s.nc?dap4.checksum=false#dap4" % (raw, n)
        try:
            ours = run([NCDUMP, url])
        except RuntimeError as e:
            print("FAIL %s: %s" % (n, e))
            bad += 1
            continue
        errs = compare(n, ours, ref)
        print("%s %s" % ("ok  " if not errs else "FAIL", n))
        for e in errs:
            print("    " + e)
        bad += bool(errs)
    # Oracle 2: each constrained response holds the slice of the reference's
    # values its constraint names (flat indices into the full variable).
    for cname, full, var, idx in SLICES:
        nc = os.path.join(WORK, full + ".nc")
        want = [tokens(run([REF_NCDUMP, "-v", var, nc]), var)[i] for i in idx]
        url = "file://%s/%s.nc?dap4.checksum=false#dap4" % (raw, cname)
        try:
            got = tokens(run([NCDUMP, url]), var)
        except RuntimeError as e:
            got = [str(e)]
        if var == "vo" or var == "vo2":
            got = [re.sub(r"\{([\d, ]+)\}", lambda m: "0X" + "".join(
                "%02X" % int(x) for x in m.group(1).split(", ")), g) for g in got]
        print("%s %s %s" % ("ok  " if got == want else "FAIL", cname, var))
        if got != want:
            print("    %s != %s" % (got, want))
            bad += 1
    print("%d failures (%d datasets, %d constrained responses)" % (bad, len(names), len(SLICES)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
