#!/usr/bin/python3
"""tests/hostile_names.py: strings from an input that try to break out of every output.

usage: tests/hostile_names.py TRACE2FLAME SRC_DIR

Inputs are made here, each carrying the hostile strings below in every field its reader takes
from the input:
  - perf script text: comm, event, symbol, dso (also as a module whose basename names a frame);
  - folded stacks: the root (comm) and the frames;
  - perf.data: COMM comm, EVENT_DESC event name, MMAP2 file name, BUILD_ID path, HOSTNAME;
  - .nettrace V6 (tools/make-nettrace): process and thread names, a mapping's name, JIT symbol
    names; V4: module paths, method namespaces, names and signatures (UTF-16 in the file, with a
    lone surrogate);
  - an ELF file built from C with hostile symbol names (its .strtab patched), named through
    --buildids and re-symbolization, and listed by `trace2flame symbols` / `resolve`.
Each goes through every writer (folded, speedscope, pprof, Firefox profile, SVG flame graph,
flame chart, differential graph) with --stats, and the outputs are parsed by independent readers:
  - SVG: an XML parser (expat through xml.etree): well-formed, exactly one <script> element and
    one on* attribute (the document's own), and the markup of the names shown as text;
  - speedscope: a strict JSON parser (UTF-8 strictly decoded), the markup kept in the names;
  - pprof: tests/pprof_decode.py (every string valid UTF-8), no control character (C0, DEL, C1)
    in any string;
  - Firefox profile: a strict JSON parser, the markup kept in the names, no control character in
    the strings, thread and process names, libs' names and paths;
  - folded: every line "STACK COUNT" (a name cannot start a new line or fake a count), no
    control character;
  - stderr (warnings, --stats): no control character but newlines.
Prints "FAIL ..." per failed check and "hostile_names: N passed, M failed"; exit 0 only if none
failed.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

T2F, SRC = sys.argv[1], sys.argv[2]
PY = sys.executable
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(SRC, "tests"))
import perf_data_gen  # noqa: E402

SCRIPT = b"</title><script>alert(1)</script><title>"
ATTR = b"\"><svg onload=alert(2)> x='&amp;\\"
TERM = b"\x1b[31mred\x1b]0;pwned\x07\x01\x7f\xc2\x9b2J"
BAD = b"bad\xff\xfe\xc3(\xef\xbf\xbe]]>\xed\xa0\x80"
HOSTILE = [SCRIPT, ATTR, TERM, BAD]
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

passed = failed = 0


def ok():
    global passed
    passed += 1


def bad(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def check(cond, msg):
    ok() if cond else bad(msg)


# ---- inputs --------------------------------------------------------------------------------

def perf_script_text():
    out = b""
    for i, h in enumerate(HOSTILE):
        out += b"%s 10%d/10%d %d.000000: 1000 %s: \n" % (h, i, i, i + 1, h.replace(b":", b""))
        out += b"\t401000 %s+0x0 (/opt/%s/lib.so)\n" % (h, h)
        out += b"\t402000 [unknown] (/opt/%s)\n" % h
        out += b"\t403000 main+0x0 (/usr/bin/prog)\n\n"
    return out


def folded_text():
    return b"".join(b"%s;main;%s %d\n" % (h, h, i + 1) for i, h in enumerate(HOSTILE))


def perf_data():
    """perf.data (tests/perf_data_gen.py): a page-faults event (a count, so the SVG writes its
    name) whose EVENT_DESC name is hostile; COMM, MMAP2 and samples with hostile comm and file
    name (one build-id for it), an anonymous executable mapping (a perf map's frames), and
    HOSTNAME."""
    lib = b"/opt/" + ATTR + b"/" + BAD + b".so"
    return perf_data_gen.perf_data(
        SCRIPT + TERM, SCRIPT + ATTR + TERM, [(lib, 0x400000, 5), (b"//anon", 0x7f0000000000, 7)],
        [(3, [0x401000, 0x402000]), (4, [0x7f0000000100, 0x401000])],
        build_ids=[(lib, bytes(range(1, 21)))], hostname=TERM + SCRIPT)


def nettrace_descs(tmp, elf):
    """V6 and V4 descriptions for tools/make-nettrace (names as -D values, quoted there)"""
    v6 = """format v6
trace pid=300 cpus=2
elf prog ${ELF}
process 300 "${H0}"
thread 300 301 "${H1}"
map exe 300 prog 0x5600aa001000
map jit 300 - 0x7f5500000000 len=0x20000 name="/memfd:${H2}"
map lib 300 - 0x7f6600000000 len=0x20000 name="/opt/${H1}/${H2}.so"
jit j1 jit 0x7f5500000100 0x80 "${H0}"
jit j2 jit 0x7f5500000400 0x200 "${H3}"
sample 300 301 count=3 j1+0x10;j2+0x40;prog:main
sample 300 301 j2+0x44;lib+0x100;prog:main
"""
    v4 = """format v4
trace pid=400 cpus=2
module m1 0x7ff0a0001000 "/opt/${H1}/x.dll" native="/opt/${H2}/x.so"
method f1 m1 0x7ff1c0001000 0x80 "${H0}" "${H3}" "${H1}"
method f2 m1 0x7ff1c0002000 0x80 NS "${H2}" "void ()"
sample 400 401 count=2 f1+0x10;f2+0x20
"""
    return v6, v4


def make_nettraces(tmp, elf):
    env = dict(os.environ, ELF=elf)
    for i, h in enumerate(HOSTILE):
        env["H%d" % i] = os.fsdecode(h.replace(b"\"", b"'").replace(b"\\", b"/"))
    made = []
    for name, desc in zip(("v6", "v4"), nettrace_descs(tmp, elf)):
        d = os.path.join(tmp, name + ".desc")
        open(d, "w").write(desc)
        out = os.path.join(tmp, name + ".nettrace")
        r = subprocess.run([PY, os.path.join(SRC, "tools/make-nettrace"), "-o", out, d],
                           env=env, capture_output=True)
        check(r.returncode == 0, "make-nettrace %s: %s" % (name, r.stderr.decode(errors="replace")))
        made.append(out)
    return made


PLACEHOLDER = b"hostile_name_slot_0123456789abcdefghijklmnopqrstuvwxyz0123456789"


def hostile_elf(tmp):
    """A PIE with two functions whose .strtab names are patched to hostile bytes; its build-id"""
    c = os.path.join(tmp, "prog.c")
    open(c, "w").write(
        "__attribute__((noinline)) int %sA(int x) { return x * 3 + 1; }\n"
        "__attribute__((noinline)) int %sB(int x) { return x * 5 + 2; }\n"
        "int main(int argc, char **argv) { (void)argv; return %sA(argc) + %sB(argc); }\n"
        % ((PLACEHOLDER.decode(),) * 4))
    exe = os.path.join(tmp, "prog")
    r = subprocess.run(["cc", "-O1", "-g0", "-Wl,--build-id", "-o", exe, c], capture_output=True)
    if r.returncode:
        bad("cc: " + r.stderr.decode(errors="replace"))
        return None, None
    data = bytearray(open(exe, "rb").read())
    for suffix, h in ((b"A", SCRIPT + TERM), (b"B", ATTR + BAD)):
        old = PLACEHOLDER + suffix + b"\0"
        new = h[:len(old) - 1].ljust(len(old) - 1, b"_") + b"\0"
        check(data.count(old) >= 1, "ELF: placeholder %s not found" % suffix)
        data = data.replace(old, new)
    open(exe, "wb").write(data)
    notes = subprocess.run(["readelf", "-n", exe], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", notes)
    return exe, m.group(1) if m else None


def elf_symbols(exe):
    """(value, name bytes) of the sized FUNC symbols of .symtab, read from the section headers
    (ELF64 little-endian): readelf would print the names' bytes changed"""
    d = open(exe, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", d, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for s in secs:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[s[6]]
        for k in range(s[5] // 24):
            name, info, _, _, value, size = struct.unpack_from("<IBBHQQ", d, s[4] + k * 24)
            if info & 15 == 2 and size:
                end = d.index(b"\0", strtab[4] + name)
                out.append((value, d[strtab[4] + name:end]))
    return out


# ---- checks --------------------------------------------------------------------------------

def run(args, what):
    r = subprocess.run([T2F] + args, capture_output=True, timeout=120)
    text = r.stderr.decode("utf-8", errors="replace")
    check(r.returncode in (0, 1), "%s: exit %d: %s" % (what, r.returncode, text[:300]))
    check(not CONTROL.search(text.replace("\n", "")),
          "%s: stderr holds a control character: %r" % (what, r.stderr[:400]))
    return r


def check_svg(path, what):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        bad("%s: not well-formed XML: %s" % (what, e))
        return
    ns = "{http://www.w3.org/2000/svg}"
    scripts = [e for e in root.iter() if e.tag.split("}")[-1].lower() == "script"]
    handlers = [(e.tag, a) for e in root.iter() for a in e.attrib if a.lower().startswith("on")]
    check(len(scripts) == 1, "%s: %d script elements" % (what, len(scripts)))
    check(handlers == [(ns + "svg", "onload")], "%s: event handlers %r" % (what, handlers))
    titles = "".join(t.text or "" for t in root.iter(ns + "title"))
    check("<script>alert" in titles, "%s: the markup of a name is not shown" % what)


def check_json(path, what):
    try:
        doc = json.loads(open(path, "rb").read().decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        bad("%s: not JSON: %s" % (what, e))
        return
    names = [f.get("name", "") for f in doc["shared"]["frames"]] + \
            [p.get("name", "") for p in doc["profiles"]]
    check(any("<script>alert(1)</script>" in n for n in names),
          "%s: the markup of a name is lost" % what)


def check_firefox(path, what):
    try:
        doc = json.loads(open(path, "rb").read().decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        bad("%s: not JSON: %s" % (what, e))
        return
    strings = doc["shared"]["stringArray"] + [t[k] for t in doc["threads"]
                                              for k in ("name", "processName")]
    strings += [lib[k] for lib in doc["libs"] for k in ("name", "path", "debugName", "debugPath")]
    check(any("<script>alert(1)</script>" in s for s in strings),
          "%s: the markup of a name is lost" % what)
    dirty = [s for s in strings if CONTROL.search(s)]
    check(not dirty, "%s: control characters in strings %r" % (what, dirty[:3]))


def check_pprof(path, what):
    r = subprocess.run([PY, os.path.join(SRC, "tests/pprof_decode.py"), path], capture_output=True)
    if r.returncode:
        bad("%s: pprof_decode: %s" % (what, r.stderr.decode(errors="replace")[-300:]))
        return
    strings = json.loads(r.stdout)["strings"]
    dirty = [s for s in strings if CONTROL.search(s)]
    check(not dirty, "%s: control characters in strings %r" % (what, dirty[:3]))
    check(any("<script>alert(1)</script>" in s for s in strings),
          "%s: the markup of a name is lost" % what)


def check_folded(path, what):
    lines = open(path, "rb").read().split(b"\n")
    check(lines[-1] == b"", "%s: no final newline" % what)
    good = [l for l in lines[:-1] if re.fullmatch(rb"[^\n]*[^ ] [0-9]+", l)]
    check(len(good) == len(lines) - 1 and good, "%s: lines not 'STACK COUNT': %r" % (what, lines[:4]))
    text = open(path, "rb").read().decode("utf-8", errors="replace")
    check(not CONTROL.search(text.replace("\n", "")), "%s: a control character" % what)


def convert_all(inp, tmp, extra=()):
    base = os.path.join(tmp, os.path.basename(inp).replace(".", "_"))
    what = os.path.basename(inp)
    for ext, fn in ((".folded", check_folded), (".speedscope.json", check_json),
                    (".pb.gz", check_pprof), (".svg", check_svg),
                    (".profile.json", check_firefox)):
        out = base + ext
        r = run(list(extra) + ["--stats", "-j", "2", inp, "-o", out], "%s -> %s" % (what, ext))
        if r.returncode == 0:
            fn(out, "%s -> %s" % (what, ext))
    for opt in (["--flamechart"], ["--icicle", "--title", SCRIPT.decode()]):
        out = base + "." + opt[0].strip("-") + ".svg"
        if run(list(extra) + opt + [inp, "-o", out], "%s %s" % (what, opt[0])).returncode == 0:
            check_svg(out, "%s %s" % (what, opt[0]))
    out = base + ".diff.svg"
    if run(["diff"] + list(extra) + [inp, inp, "-o", out], what + " diff").returncode == 0:
        check_svg(out, what + " diff")


def main():
    tmp = tempfile.mkdtemp(prefix="t2f-hostile-names.")
    try:
        exe, build_id = hostile_elf(tmp)
        text = os.path.join(tmp, "names.perf.txt")
        open(text, "wb").write(perf_script_text())
        folded = os.path.join(tmp, "names.folded")
        open(folded, "wb").write(folded_text())
        pdata = os.path.join(tmp, "names.data")
        open(pdata, "wb").write(perf_data())
        for inp in [text, folded, pdata] + make_nettraces(tmp, exe or "/bin/true"):
            convert_all(inp, tmp)
        if exe and build_id:
            syms = {name: value for value, name in elf_symbols(exe)}
            hostile_syms = [n for n in syms if n.startswith(SCRIPT[:8]) or n.startswith(ATTR[:8])]
            check(len(hostile_syms) == 2, "ELF: hostile symbols %r" % hostile_syms)
            resym = os.path.join(tmp, "resym.perf.txt")
            frames = b"".join(b"\t%x [unknown] (%s)\n" % (syms[n], exe.encode()) for n in hostile_syms)
            open(resym, "wb").write(b"prog 1/1 1.000000: 1000 cpu-clock: \n" + frames + b"\n")
            ids = os.path.join(tmp, "buildids")
            open(ids, "w").write("%s %s\n" % (build_id, exe))
            convert_all(resym, tmp, ["--buildids", ids])
            out = os.path.join(tmp, "resym.folded")
            run(["--buildids", ids, resym, "-o", out], "resym folded")
            check(SCRIPT[:20] in open(out, "rb").read(), "resym: the ELF's names were not used")
            run(["symbols", "--demangle", exe], "symbols")
            run(["resolve", "--build-id", build_id, exe] + ["%x" % syms[n] for n in hostile_syms],
                "resolve")
            r = subprocess.run([T2F, "symbols", exe], capture_output=True)
            check(b"\\x1b[31m" in r.stdout and b"\x1b" not in r.stdout,
                  "symbols: control characters not shown as \\xNN")
    finally:
        if os.environ.get("T2F_KEEP"):
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("hostile_names: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
