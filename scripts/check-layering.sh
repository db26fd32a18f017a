#!/bin/sh
# check-layering.sh [ROOT]: fail when a source file includes a header that
# another folder keeps private.
#
# The rules are the "layering" block of docs/architecture.md: the headers
# of include/ (and the generated config.h) are public; every other header
# belongs to the top-level folder that holds it and is private to it,
# unless a rule lets another folder include it.  Known violations that are
# being removed are listed, one per line, in scripts/layering-allowlist.txt;
# they are reported but do not fail the check.  An allowlist line that no
# longer matches anything is reported as stale (delete it).
#
# Quoted includes ("x.h") are checked when they name a header of this tree;
# angle-bracket includes are system headers (a test's stand-in <mpi.h> too).  Exit status: 0 clean,
# 1 violations, 2 unreadable rules, 77 no python3 (CTest: skipped).
command -v python3 >/dev/null 2>&1 || { echo "check-layering: python3 not found"; exit 77; }
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
exec python3 - "$root" <<'PYEOF'
import os, re, sys

root = os.path.abspath(sys.argv[1])
rules_file = os.path.join(root, "docs", "architecture.md")
allow_file = os.path.join(root, "scripts", "layering-allowlist.txt")
SRC_EXT = (".c", ".h", ".h.in", ".c.in")
PUBLIC = {"include", "."}          # folders whose headers anyone may include


def skip_dir(rel):
    top = rel.split("/")[0]
    return top.startswith((".", "build")) or top in ("Testing", "install")


def sources():
    """Every C source or header of the tree (working copy, new files too)."""
    for dp, dn, fn in os.walk(root):
        rel = os.path.relpath(dp, root)
        dn[:] = sorted(d for d in dn if not skip_dir(os.path.normpath(os.path.join(rel, d))))
        for f in sorted(fn):
            if f.endswith(SRC_EXT):
                yield os.path.normpath(os.path.join(rel, f))


def folder_of(rel):
    return rel.split("/")[0] if "/" in rel else "."


def read_rules():
    """consumer folder -> set of "folder/header" or "folder/*" it may include."""
    try:
        text = open(rules_file, encoding="utf-8").read()
    except OSError as e:
        print(f"check-layering: cannot read {rules_file}: {e}")
        sys.exit(2)
    m = re.search(r"^```layering\n(.*?)^```", text, re.M | re.S)
    if not m:
        print(f"check-layering: no ```layering block in {rules_file}")
        sys.exit(2)
    rules = {}
    for n, line in enumerate(m.group(1).splitlines(), 1):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        consumer, targets = line[0].rstrip(":"), line[1:]
        bad = [t for t in targets if "/" not in t]
        if bad or not targets:
            print(f"check-layering: rule line {n}: want 'FOLDER FOLDER/HEADER...', got {' '.join(line)}")
            sys.exit(2)
        rules.setdefault(consumer, set()).update(targets)
    return rules


def read_allowlist():
    allow = {}
    if not os.path.exists(allow_file):
        return allow
    for n, line in enumerate(open(allow_file, encoding="utf-8"), 1):
        f = line.split("#", 1)[0].split()
        if not f:
            continue
        if len(f) != 2:
            print(f"check-layering: {allow_file}:{n}: want 'FILE FOLDER/HEADER'")
            sys.exit(2)
        allow[(f[0], f[1])] = n
    return allow


def main():
    rules = read_rules()
    allow = read_allowlist()
    files = list(sources())
    fileset = set(files)
    headers = {}                                  # basename -> [relative paths]
    for rel in files:
        if rel.endswith((".h", ".h.in")):
            base = os.path.basename(rel)
            if base.endswith(".in"):
                base = base[:-3]
            headers.setdefault(base, []).append(rel)
    inc = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
    bad, allowed_used = [], set()
    for rel in files:
        me = folder_of(rel)
        mine = rules.get(me, set()) | rules.get("*", set())
        try:
            lines = open(os.path.join(root, rel), encoding="utf-8", errors="replace").readlines()
        except OSError:
            continue
        for ln, line in enumerate(lines, 1):
            m = inc.match(line)
            if not m:
                continue
            name = m.group(1)
            # The compiler looks beside the including file first for "x.h".
            local = os.path.normpath(os.path.join(os.path.dirname(rel), name))
            if local in fileset:
                target = local
            else:
                cands = headers.get(os.path.basename(name), [])
                if "/" in name:
                    cands = [c for c in cands if c.endswith(name)]
                if not cands:
                    continue                      # system or generated header
                same = [c for c in cands if folder_of(c) == me]
                target = (same or cands)[0]
            owner = folder_of(target)
            if owner == me or owner in PUBLIC:
                continue
            hdr = owner + "/" + os.path.basename(target).replace(".h.in", ".h")
            if hdr in mine or owner + "/*" in mine:
                continue
            if (rel, hdr) in allow:
                allowed_used.add((rel, hdr))
                continue
            bad.append(f"{rel}:{ln}: includes {hdr}, private to {owner}/")
    for (rel, hdr), n in sorted(allow.items(), key=lambda kv: kv[1]):
        if (rel, hdr) in allowed_used:
            print(f"allowed (scripts/layering-allowlist.txt:{n}): {rel} includes {hdr}")
        else:
            print(f"stale allowlist line {n}: {rel} no longer includes {hdr}; delete the line")
    for b in bad:
        print(b)
    print(f"check-layering: {len(files)} files, {len(bad)} violations, "
          f"{len(allowed_used)} allowlisted")
    if bad:
        print("Either include a header the rules make visible (docs/architecture.md, "
              "'Who may include whom'), or change the design and the rules together.")
    return 1 if bad else 0


sys.exit(main())
PYEOF
