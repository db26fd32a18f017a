#!/usr/bin/python3
"""Random enhanced-model CDL for differential tests of ncgen.

usage: gen_cdl4.py SEED COUNT OUTDIR

Writes COUNT files OUTDIR/r<SEED>_<i>.cdl made only of constructs the
reference ncgen 4.9.0 accepts with -k nc4: nested groups with their own
dimensions (referenced bare from below and by "/g/d" paths), every atomic
type including string and the 64-bit and unsigned ones, user types (enum,
opaque, vlen, compound with array fields and nested compounds) with data and
attributes, several unlimited dimensions (inner ones as {...} groups), and
storage special attributes.  Only the Python standard library is used."""
import random
import sys

ATOMIC = ["byte", "ubyte", "short", "ushort", "int", "uint", "int64", "uint64",
          "float", "double", "char", "string"]
RANGES = {"byte": (-128, 127), "ubyte": (0, 255), "short": (-32768, 32767),
          "ushort": (0, 65535), "int": (-2147483647, 2147483647), "uint": (0, 4294967295),
          "int64": (-9223372036854775807, 9223372036854775807), "uint64": (0, 18446744073709551615)}
SUFFIX = {"byte": "b", "ubyte": "UB", "short": "s", "ushort": "US", "int": "",
          "uint": "U", "int64": "LL", "uint64": "ULL"}


class Gen:
    def __init__(self, rnd):
        self.r = rnd
        self.names = 0
        self.types = {}         # name -> description
        self.typeorder = []

    def name(self, prefix):
        self.names += 1
        return "%s%d" % (prefix, self.names)

    def string(self):
        pieces = ["a", "Bc", " ", "x y", "\\\"", "\\\\", "\\n", "\\t", "z9", "\u00e9".encode().decode()]
        return '"' + "".join(self.r.choice(pieces) for _ in range(self.r.randint(0, 5))) + '"'

    def atom(self, t, typed=False):
        r = self.r
        if t in RANGES:
            lo, hi = RANGES[t]
            v = r.choice([lo, hi, 0, 1, r.randint(lo, hi)])
            return "%d%s" % (v, SUFFIX[t] if typed else "")
        if t == "float":
            v = r.choice(["0.", "1.5", "-2.25", "3.4e+38", "1e-10", "%.2f" % r.uniform(-1e4, 1e4)])
            return v + ("f" if typed else "")
        if t == "double":
            return r.choice(["0", "-1.e-300", "2.5", "1.7976931348623157e+308", "%.10g" % r.uniform(-1e6, 1e6)])
        if t == "char":
            return '"%s"' % r.choice(["a", "Z", "0", " "])
        if t == "string":
            return self.string()
        return self.value(t)

    def value(self, t):
        """one value of t in data syntax"""
        r = self.r
        if t in ATOMIC:
            return self.atom(t)
        d = self.types[t]
        if d["cls"] == "enum":
            return r.choice(d["consts"])
        if d["cls"] == "opaque":
            return "0X" + "".join(r.choice("0123456789ABCDEF") for _ in range(2 * d["size"]))
        if d["cls"] == "vlen":
            return "{" + ", ".join(self.value(d["base"]) for _ in range(r.randint(0, 3))) + "}"
        parts = []
        for fname, ftype, fdims in d["fields"]:
            n = 1
            for x in fdims:
                n *= x
            if ftype == "char" and fdims:
                parts.append('{"%s"}' % "".join(r.choice("abc") for _ in range(r.randint(1, n))))
            elif fdims:
                parts.append("{" + ", ".join(self.value(ftype) for _ in range(n)) + "}")
            else:
                parts.append(self.value(ftype))
        return "{" + ", ".join(parts) + "}"

    def deftypes(self, out, ind):
        r = self.r
        for _ in range(r.randint(0, 4)):
            kind = r.choice(["enum", "opaque", "vlen", "compound", "compound"])
            name = self.name("t")
            if kind == "enum":
                base = r.choice(["byte", "ubyte", "short", "int", "uint64"])
                lo, hi = RANGES[base]
                vals = r.sample(range(max(lo, -100), min(hi, 100)), r.randint(1, 4))
                consts = [self.name("E") for _ in vals]
                out.append("%s%s enum %s {%s} ;" % (ind, base, name,
                                                     ", ".join("%s = %d" % cv for cv in zip(consts, vals))))
                self.types[name] = {"cls": "enum", "consts": consts}
            elif kind == "opaque":
                size = r.randint(1, 6)
                out.append("%sopaque(%d) %s ;" % (ind, size, name))
                self.types[name] = {"cls": "opaque", "size": size}
            elif kind == "vlen":
                # 4.9.0 mangles or crashes on vlens of user types: atomic bases only
                base = r.choice(["int", "double", "string", "ubyte"])
                out.append("%s%s(*) %s ;" % (ind, base, name))
                self.types[name] = {"cls": "vlen", "base": base}
            else:
                fields = []
                for _ in range(r.randint(1, 4)):
                    ft = r.choice(["short", "int", "float", "double", "char", "int64", "ubyte", "string"]
                                  + [t for t in self.typeorder[-2:] if self.types[t]["cls"] != "vlen"])
                    fdims = r.choice([[], [], [2], [2, 3]]) if ft in ATOMIC and ft != "string" else []
                    if ft == "char" and not fdims:
                        fdims = [r.randint(1, 4)]
                    fields.append((self.name("f"), ft, fdims))
                out.append("%scompound %s {" % (ind, name))
                for fname, ft, fdims in fields:
                    out.append("%s  %s %s%s ;" % (ind, ft, fname,
                                                  "(%s)" % ", ".join(map(str, fdims)) if fdims else ""))
                out.append("%s}; // %s" % (ind, name))
                self.types[name] = {"cls": "compound", "fields": fields}
            self.typeorder.append(name)

    def group(self, out, depth, scope_dims, path):
        r = self.r
        ind = "  " * depth
        body = []
        tout = []
        self.deftypes(tout, ind + "  ")
        if tout:
            out.append(ind + "types:")
            out.extend(tout)
        dims = []
        for _ in range(r.randint(0 if depth else 1, 3)):
            dn = self.name("d")
            if r.random() < 0.25:
                dims.append((dn, None))
            else:
                dims.append((dn, r.randint(1, 4)))
        if dims:
            out.append(ind + "dimensions:")
            for dn, ln in dims:
                out.append("%s\t%s = %s ;" % (ind, dn, "UNLIMITED" if ln is None else ln))
        visible = [(dn, ln, path + dn) for dn, ln in dims] + scope_dims
        vars_ = []
        for _ in range(r.randint(0, 4)):
            t = r.choice(ATOMIC + list(self.types) * 2)
            vn = self.name("v")
            fixed = [x for x in visible if x[1] is not None]
            unl = [x for x in visible if x[1] is None]
            shape = []
            if unl and r.random() < 0.4:
                shape.append(r.choice(unl))
                if len(unl) > 1 and r.random() < 0.4:
                    shape.append(r.choice([u for u in unl if u is not shape[0]]))
            for _ in range(r.randint(0, 2)):
                if fixed:
                    shape.append(r.choice(fixed))
            vars_.append((vn, t, shape))
        if vars_:
            out.append(ind + "variables:")
        for vn, t, shape in vars_:
            dl = []
            for dn, ln, full in shape:
                dl.append(full if (r.random() < 0.5 or dn not in [d[0] for d in dims]) and full.count("/") > 1
                          else dn)
            out.append("%s\t%s %s%s ;" % (ind, t, vn, "(%s)" % ", ".join(dl) if dl else ""))
            for _ in range(r.randint(0, 2)):
                at = r.choice(ATOMIC + list(self.types))
                # one value of a user type: 4.9.0 writes garbage after the first compound
                vals = ", ".join(self.atom(at, True) if at in ATOMIC else self.value(at)
                                 for _ in range(1 if at not in ATOMIC or at == "char" else r.randint(1, 3)))
                out.append("%s\t\t%s %s:%s = %s ;" % (ind, at, vn, self.name("a"), vals))
            if shape and r.random() < 0.3 and t != "string":
                out.append('%s\t\t%s:_Storage = "chunked" ;' % (ind, vn))
                out.append("%s\t\t%s:_ChunkSizes = %s ;" % (ind, vn, ", ".join(
                    str(r.randint(1, ln if ln else 3)) for dn, ln, full in shape)))
                if t in ATOMIC and t != "string" and r.random() < 0.5:
                    out.append("%s\t\t%s:_DeflateLevel = %d ;" % (ind, vn, r.randint(1, 9)))
                    out.append('%s\t\t%s:_Shuffle = "true" ;' % (ind, vn))
            if t in ("int", "float", "double", "short") and r.random() < 0.2:
                out.append('%s\t\t%s:_Endianness = "big" ;' % (ind, vn))
            if t in ATOMIC and r.random() < 0.2:
                out.append("%s\t\t%s %s:_FillValue = %s ;" % (ind, t, vn, self.atom(t, True)))
        if r.random() < 0.7:
            out.append("")
            out.append("%s// %s attributes:" % (ind, "group" if depth else "global"))
            for _ in range(r.randint(1, 3)):
                at = r.choice(ATOMIC + list(self.types))
                vals = ", ".join(self.atom(at, True) if at in ATOMIC else self.value(at)
                                 for _ in range(1 if at not in ATOMIC or at == "char" else r.randint(1, 3)))
                out.append("%s\t\t%s :%s = %s ;" % (ind, at, self.name("g"), vals))
        datav = [v for v in vars_ if r.random() < 0.8]
        if datav:
            out.append(ind + "data:")
            for vn, t, shape in datav:
                out.append("%s %s = %s ;" % (ind, vn, self.data(t, shape, 0)))
        for _ in range(r.randint(0, 2) if depth < 3 else 0):
            gn = self.name("g")
            out.append("")
            out.append("%sgroup: %s {" % (ind, gn))
            self.group(out, depth + 1, visible, path + gn + "/")
            out.append("%s} // group %s" % (ind, gn))
        return body

    def data(self, t, shape, k):
        """data of dims shape[k:], inner unlimited dims as {...}"""
        r = self.r
        if k == len(shape):
            return self.value(t) if r.random() < 0.9 or t == "char" else "_"
        ln = shape[k][1]
        n = ln if ln is not None else r.randint(1 if k == 0 else 0, 3)
        if t == "char" and k == len(shape) - 1:
            return '"%s"' % "".join(r.choice("abc") for _ in range(n))
        items = [self.data(t, shape, k + 1) for _ in range(n)]
        if k > 0 and ln is None:
            return "{" + ", ".join(items) + "}"
        if not items:
            return self.value(t)
        return ", ".join(items)


def main():
    seed, count, outdir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    for i in range(count):
        rnd = random.Random(seed * 100003 + i)
        g = Gen(rnd)
        out = ["netcdf r%d_%d {" % (seed, i)]
        g.group(out, 0, [], "/")
        out.append("}")
        with open("%s/r%d_%d.cdl" % (outdir, seed, i), "w") as f:
            f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
