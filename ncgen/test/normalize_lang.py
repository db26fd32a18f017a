#!/usr/bin/env python3
"""Put upstream ncgen 4.9.0 "-l f77" / "-l java" output and ours in one
comparable form, undoing only the documented differences (see ncgen.1,
LANGUAGES), so that everything else must match line for line.

usage: normalize_lang.py f77|java ref|our FILE.cdl < program > normalized

f77: continuation lines are joined (the fold points move when names change
length); upstream's quoted names in identifier positions ('n'_len, 'b'(4),
data 'b' /.../, write_'b'_0(ncid,'b'_id_<garbage>)) become the identifiers
we print; the unlimited dimension's length parameter (upstream: the record
count, ours: NF_UNLIMITED) is blanked on both sides; the "textval" vector
size (upstream: number of CDL strings, not kept by our parser) is blanked;
upstream's scalar char data (the Fortran text of 'a' quoted once more, and a
single quote for the NUL of "") are rewritten as we print them; with -x, upstream's
nf_set_fill(ncid, NC_NOFILL, 0) (an undefined name, and a constant where the
old mode is stored) becomes ours and our "oldfill" declaration is dropped.

java: the unlimited dimension (upstream: a fixed one of the record count)
and the shape of each written Array (upstream: the declared shape, ours: the
slab's) are blanked on both sides; upstream's unusable constants are
rewritten as ours (((float)inf) as Float.POSITIVE_INFINITY, the scalar char
''x'' as 'x', ''' as the NUL of ""); on our side char data are cut at the
first NUL (upstream drops the rest) and an escaped backslash is printed bare,
as upstream does.
"""
import re
import sys

WORDS = {' ': "_SPACE_", '!': "_EXCLAMATION_", '"': "_QUOTATION_", '#': "_HASH_",
         '$': "_DOLLAR_", '%': "_PERCENT_", '&': "_AMPERSAND_", "'": "_APOSTROPHE_",
         '(': "_LEFTPAREN_", ')': "_RIGHTPAREN_", '*': "_ASTERISK_", '+': "_PLUS_",
         ',': "_COMMA_", '-': "_MINUS_", '.': "_PERIOD_", ':': "_COLON_",
         ';': "_SEMICOLON_", '<': "_LESSTHAN_", '=': "_EQUALS_", '>': "_GREATERTHAN_",
         '?': "_QUESTION_", '@': "_ATSIGN_", '[': "_LEFTBRACKET_", '\\': "_BACKSLASH_",
         ']': "_RIGHTBRACKET_", '^': "_CIRCUMFLEX_", '`': "_BACKQUOTE_", '{': "_LEFTCURLY_",
         '|': "_VERTICALBAR_", '}': "_RIGHTCURLY_", '~': "_TILDE_", '/': "_SLASH_"}


def ident(raw):
    """identifier for an upstream Fortran string expression of a name"""
    # the expression is 'abc'//char(195)//'...' : rebuild the bytes
    out = bytearray()
    for part in re.findall(r"'((?:[^']|'')*)'|char\((\d+)\)", raw):
        if part[0] or not part[1]:
            out += part[0].replace("''", "'").encode('latin-1', 'replace')
        else:
            out.append(int(part[1]))
    s = ''
    b = bytes(out)
    i = 0
    if b[:1].isdigit():
        s = 'DIGIT_%c_' % b[0]
        i = 1
    for c in b[i:]:
        if c >= 128:
            s += '_X%02X' % c
        else:
            s += WORDS.get(chr(c), chr(c))
    return s[1:] if s.startswith('_') else s


NAME = r"((?:'(?:[^']|'')*'|char\(\d+\))(?://(?:'(?:[^']|'')*'|char\(\d+\)))*)"


def f77(text, side, unlim):
    text = text.replace('\n     1', '')
    lines = []
    for ln in text.split('\n'):
        if side == 'our' and ln in ('* previous fill mode', '      integer  oldfill'):
            continue
        if side == 'ref':
            ln = ln.replace('nf_set_fill(ncid, NC_NOFILL, 0);', 'nf_set_fill(ncid, NF_NOFILL, oldfill);')
        if side == 'ref' and not ln.startswith('*'):
            ln = re.sub(r"write_" + NAME + r"_(\d+)\(ncid," + NAME + r"_id(?:_-?\d+)?\)",
                        lambda m: 'write_%s_%s(ncid,%s_id)' % (ident(m.group(1)), m.group(2), ident(m.group(3))), ln)
            ln = re.sub(NAME + r"_(len|dim|id|rank|dims|start|count)\b",
                        lambda m: ident(m.group(1)) + '_' + m.group(2), ln)
            ln = re.sub(r"^(\s+(?:integer|real |double precision) )" + NAME + r"(\(|$)",
                        lambda m: m.group(1) + ident(m.group(2)) + m.group(3), ln)
            ln = re.sub(r"^(\s+data )" + NAME + r" /", lambda m: m.group(1) + ident(m.group(2)) + ' /', ln)
            ln = re.sub(r", " + NAME + r"\)$", lambda m: ', ' + ident(m.group(1)) + ')'
                        if re.search(r"nf_put_vara?_(int|real|double)\(", ln) else m.group(0), ln)
            ln = re.sub(r"^(\s+stat = nf_put_var_text\(ncid, \w+_id, )'''(.+)'''\)$", r"\1'\2')", ln)
            ln = re.sub(r"^(\s+stat = nf_put_var_text\(ncid, \w+_id, )''''\)$", r"\1char(0))", ln)
        for u in unlim:
            ln = re.sub(r"^(\s+parameter \(%s_len = ).*\)$" % re.escape(u), r"\1UNLIMITED)", ln)
        ln = re.sub(r"^(\s+integer textval\()\d+\)$", r"\1N)", ln)
        lines.append(ln)
    return '\n'.join(lines)


def java(text, side, unlim):
    lines = []
    for ln in text.split('\n'):
        for u in unlim:
            ln = re.sub(r"^(    final int %s_len = ).*;$" % re.escape(u), r"\1UNLIMITED;", ln)
            ln = re.sub(r"^(    Dimension %s_dim = ncfile\.)add(?:Unlimited)?Dimension\(.*$" % re.escape(u),
                        r"\1UNLIMITED", ln)
        ln = re.sub(r"^(    Array\w+ data = new Array\w+\(new int\[\]\{)[0-9, ]*(\}\);)$", r"\1SHAPE\2", ln)
        if side == 'ref':
            for t in ('float', 'double'):
                big = t.capitalize()
                ln = ln.replace('((%s)-inf)' % t, big + '.NEGATIVE_INFINITY')
                ln = ln.replace('((%s)inf)' % t, big + '.POSITIVE_INFINITY')
            ln = re.sub(r"data\.set\(\(char\)''(.+)''\);$", r"data.set((char)'\1');", ln)
            ln = ln.replace("data.set((char)''');", r"data.set((char)'\u0000');")
        else:
            ln = re.sub(r'^(    String contents = ".*?)\\u0000.*";$', r'\1";', ln)
            ln = ln.replace('\\\\', '\\')
        lines.append(ln)
    return '\n'.join(lines)


def main():
    lang, side, cdl = sys.argv[1:4]
    src = open(cdl, encoding='utf-8', errors='replace').read()
    # unlimited dimension names (the corpus spells them plainly)
    unlim = [ident("'" + m.group(1).replace("'", "''") + "'")
             for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*unlimited", src, re.I)]
    text = sys.stdin.buffer.read().decode('latin-1')
    out = f77(text, side, unlim) if lang == 'f77' else java(text, side, unlim)
    sys.stdout.buffer.write(out.encode('latin-1'))


main()
