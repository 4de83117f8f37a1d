"""tests/lib/python_abi.py: the Python module's ctypes declarations
(tools/python/trace2flame/_ffi.py) against include/trace2flame.h (and the enumerations it
includes, include/trace2flame_enums.h), so that a change of the C interface that the binding
does not follow fails here:

  - structs: the header's fields, in order (its text read here), are the ctypes struct's; each
    field's offset and size and the struct's size, as a C compiler gives them (a program
    generated here, compiled against the header), are ctypes'
  - constants: every enum member of the header is in _ffi with the compiler's value, and
    T2F_FORMAT_BIT agrees with the macro
  - functions: the header's T2F_API functions are _ffi.FUNCTIONS' keys; per function, the return
    type is void or not alike, and each parameter is a pointer in both or a scalar of the
    compiler's size and signedness (enums: size only)

usage: python3 tests/lib/python_abi.py     (env: T2F_SOURCE_DIR, CC (default cc))
Exit status 0 when all agree, 1 otherwise (each difference said on a "FAIL" line).
"""
import ctypes
import os
import re
import subprocess
import sys
import tempfile

SRC = os.environ.get("T2F_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(SRC, "tools", "python"))
from trace2flame import _ffi  # noqa: E402  (no library loaded: declarations only)

HEADER = os.path.join(SRC, "include", "trace2flame.h")
HEADERS = [HEADER, os.path.join(SRC, "include", "trace2flame_enums.h")]
passed = failed = 0


def ok():
    global passed
    passed += 1


def bad(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def header_text():
    text = ""
    for h in HEADERS:
        with open(h) as f:
            text += f.read() + "\n"
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)  # comments
    return re.sub(r"^\s*#.*$", " ", text, flags=re.M)   # preprocessor lines


def declarators(decl):
    """The names a member declaration declares ("const char *title, *subtitle" → both)."""
    parts = decl.split(",")
    names = [re.findall(r"[A-Za-z_]\w*", parts[0])[-1]]
    for p in parts[1:]:
        names.append(re.findall(r"[A-Za-z_]\w*", p)[-1])
    return names


def header_structs(text):
    """{struct name: [field names in order]} of the structs the header defines."""
    out = {}
    for m in re.finditer(r"\bstruct\s+(\w+)\s*\{(.*?)\};", text, flags=re.S):
        fields = []
        for decl in m.group(2).split(";"):
            if decl.strip():
                fields += declarators(decl.strip())
        out[m.group(1)] = fields
    return out


def header_enum_members(text):
    members = []
    for m in re.finditer(r"\benum\s+\w+\s*\{(.*?)\};", text, flags=re.S):
        members += re.findall(r"\b(T2F_\w+)\s*(?:=|,|$)", m.group(1), flags=re.M)
    return members


def split_params(params):
    """Parameters split at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip() and cur.strip() != "void":
        out.append(cur)
    return [" ".join(p.split()) for p in out]


def header_functions(text):
    """{name: (return type text, [parameter texts])} of the T2F_API functions."""
    out = {}
    for m in re.finditer(r"\bT2F_API\s+([^;]*?)\b(t2f_\w+)\s*\((.*?)\)\s*;", text, flags=re.S):
        out[m.group(2)] = (" ".join(m.group(1).split()), split_params(m.group(3)))
    return out


def param_type(p):
    """A scalar parameter's type without its name ("uint32_t module" → "uint32_t")."""
    words = p.split()
    return " ".join(words[:-1]) if len(words) > 1 else p


def is_pointer_c(t):
    return "*" in t or "(" in t


def is_pointer_ctypes(t):
    return t in (ctypes.c_char_p, ctypes.c_void_p) or \
        issubclass(t, (ctypes._Pointer, ctypes._CFuncPtr))


def compile_probe(structs, members, scalars):
    """Runs a C program printing the sizes and offsets the compiler gives; {key: int}."""
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <trace2flame.h>",
             "int main(void) {"]
    for name, fields in structs.items():
        lines.append('printf("%%s\\t%%zu\\n", "sizeof %s", sizeof(struct %s));' % (name, name))
        for f in fields:
            lines.append('printf("%%s\\t%%zu %%zu\\n", "field %s.%s", offsetof(struct %s, %s), '
                         'sizeof(((struct %s *)0)->%s));' % (name, f, name, f, name, f))
    for m in members:
        lines.append('printf("%%s\\t%%lld\\n", "const %s", (long long)%s);' % (m, m))
    for f in range(5):
        lines.append('printf("%%s\\t%%u\\n", "bit %d", T2F_FORMAT_BIT(%d));' % (f, f))
    for t in scalars:
        lines.append('printf("%%s\\t%%zu %%d\\n", "scalar %s", sizeof(%s), (%s)-1 < (%s)0);'
                     % (t, t, t, t))
    lines += ["return 0;", "}"]
    with tempfile.TemporaryDirectory(prefix="t2f-python-abi.") as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        cc = os.environ.get("CC") or "cc"
        r = subprocess.run([cc, "-std=c11", "-I", os.path.dirname(HEADER), "-o", exe, src],
                           capture_output=True, text=True)
        if r.returncode:
            bad("the probe does not compile against the header (a field or constant of _ffi "
                "the header lacks?):\n" + r.stderr[:2000])
            return None
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        key, vals = line.split("\t")
        res[key] = [int(v) for v in vals.split()]
    return res


def main():
    text = header_text()
    hstructs = header_structs(text)
    pystructs = {s.__name__: s for s in _ffi.STRUCTS}
    # the struct set and each one's fields, by name and order
    for name in sorted(set(hstructs) | set(pystructs)):
        if name not in pystructs:
            bad("struct %s: in the header, not in _ffi.STRUCTS" % name)
            continue
        if name not in hstructs:
            bad("struct %s: in _ffi, not defined by the header" % name)
            continue
        pyf = [f for f, _ in pystructs[name]._fields_]
        if pyf != hstructs[name]:
            bad("struct %s: fields differ:\n  header: %s\n  _ffi:   %s"
                % (name, " ".join(hstructs[name]), " ".join(pyf)))
        else:
            ok()
        if "size" in pyf and pyf[0] == "size" and not issubclass(pystructs[name], _ffi.Sized):
            bad("struct %s starts with size: its _ffi class must be a Sized" % name)
    structs = {n: [f for f, _ in pystructs[n]._fields_] for n in pystructs if n in hstructs}
    members = header_enum_members(text)
    for m in members:
        if not hasattr(_ffi, m):
            bad("%s: an enum member of the header, not in _ffi" % m)
    members = [m for m in members if hasattr(_ffi, m)]
    hfuncs = header_functions(text)
    for name in sorted(set(hfuncs) ^ set(_ffi.FUNCTIONS)):
        bad("%s: %s" % (name, "a T2F_API function not in _ffi.FUNCTIONS" if name in hfuncs
                        else "in _ffi.FUNCTIONS, not declared T2F_API by the header"))
    if not hfuncs:
        bad("no T2F_API function read from the header")
    scalars = sorted({param_type(p) for _, (r, ps) in hfuncs.items() for p in ps + [r + " x"]
                      if not is_pointer_c(p) and param_type(p) != "void"})
    probe = compile_probe(structs, members, scalars)
    if probe is None:
        return
    for name, fields in structs.items():
        cls = pystructs[name]
        want = probe["sizeof " + name][0]
        if ctypes.sizeof(cls) != want:
            bad("struct %s: sizeof %d in C, %d in _ffi" % (name, want, ctypes.sizeof(cls)))
        else:
            ok()
        for f, t in cls._fields_:
            off, size = probe["field %s.%s" % (name, f)]
            got = (getattr(cls, f).offset, ctypes.sizeof(t))
            if got != (off, size):
                bad("struct %s.%s: offset %d size %d in C, offset %d size %d in _ffi"
                    % (name, f, off, size, got[0], got[1]))
            else:
                ok()
    for m in members:
        if probe["const " + m][0] != getattr(_ffi, m):
            bad("%s: %d in C, %d in _ffi" % (m, probe["const " + m][0], getattr(_ffi, m)))
        else:
            ok()
    for f in range(5):
        if probe["bit %d" % f][0] != _ffi.T2F_FORMAT_BIT(f):
            bad("T2F_FORMAT_BIT(%d): %d in C, %d in _ffi" % (f, probe["bit %d" % f][0],
                                                           _ffi.T2F_FORMAT_BIT(f)))
    for name in sorted(set(hfuncs) & set(_ffi.FUNCTIONS)):
        ret, params = hfuncs[name]
        restype, argtypes = _ffi.FUNCTIONS[name]
        what = []
        if (ret == "void") != (restype is None):
            what.append("returns %s, _ffi %s" % (ret, restype))
        elif ret != "void":
            what += check_type(ret + " x", restype, "the return", probe)
        if len(params) != len(argtypes):
            what.append("%d parameters, _ffi %d" % (len(params), len(argtypes)))
        else:
            for i, (p, t) in enumerate(zip(params, argtypes)):
                what += check_type(p, t, "parameter %d (%s)" % (i + 1, p), probe)
        if what:
            bad("%s: %s" % (name, "; ".join(what)))
        else:
            ok()


def check_type(c, t, what, probe):
    if is_pointer_c(c) != is_pointer_ctypes(t):
        return ["%s: a %s in C, %s in _ffi" % (what, "pointer" if is_pointer_c(c) else "scalar",
                                              t.__name__)]
    if is_pointer_c(c):
        return []
    size, signed = probe["scalar " + param_type(c)]
    if ctypes.sizeof(t) != size:
        return ["%s: %d bytes in C, %s in _ffi" % (what, size, t.__name__)]
    py_signed = t not in (ctypes.c_bool,) and t(-1).value < 0
    if not param_type(c).startswith("enum ") and t is not ctypes.c_bool and py_signed != signed:
        return ["%s: %s in C, %s in _ffi" % (what, "signed" if signed else "unsigned",
                                            t.__name__)]
    return []


main()
print("python-abi: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
