#!/usr/bin/env python3
"""tests/layers.py: the dependency rule of docs/design.md §1 (formats <- readers, symbolizer,
writers, never each other <- pipeline <- tools, the command line seeing only the library's
header, include/trace2flame.h), checked two ways.

1. The build: for each target compiling sources of a layer, a probe file including one header
   of every directory of the tree is compiled with that target's own flags (its command in
   BUILD/compile_commands.json, the source replaced by the probe, -fsyntax-only). A header the
   target may include must compile (so a broken command cannot pass for a refusal); any other
   must fail with the compiler's "not found" for that header. A target of a layer's directory
   that this table does not name fails the test: a new program gets a rule first.
2. The sources: every #include of formats/, readers/, symbolizer/, writers/, pipeline/, tools/
   and include/ names a directory its own may include, by its path from the top of the tree
   ("formats/diag.h"; a bare name is a file beside it or a system header), never through "..",
   never a header of the tree between angle brackets.
A rule names directories, or one header of a directory ("include/trace2flame_enums.h": the
public enumerations every layer uses, without the rest of include/).

The rule is written here, apart from CMakeLists.txt's t2f_layer_view table, so widening a
target's includes there fails this test.

usage: python3 tests/layers.py BUILD_DIR
env:   T2F_SOURCE_DIR (default: this file's directory/..)
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ENUMS = "include/trace2flame_enums.h"
# what the sources of each directory may include (check 2)
DIR_RULE = {
    "formats": ["formats", "include"],  # include/: t2f_strerror in formats/diag.c
    "readers": ["formats", "readers", ENUMS],
    "symbolizer": ["formats", "symbolizer", ENUMS],
    "writers": ["formats", "writers", ENUMS],
    "pipeline": ["formats", "readers", "symbolizer", "writers", "pipeline", "include"],
    "tools": ["include", "tools"],  # the command line: a client of the library
    "include": [],
}
# what each target compiling them may reach (check 1): a layer's library as its directory; the
# command line the library's header and its own, the developer programs the layers they
# exercise, the examples and the writer bench (a client of the library) only <trace2flame.h>
TARGET_RULE = {
    "t2f_formats": DIR_RULE["formats"],
    "t2f_readers": DIR_RULE["readers"],
    "t2f_symbolizer": DIR_RULE["symbolizer"],
    "t2f_writers": DIR_RULE["writers"],
    "t2f_pipeline": DIR_RULE["pipeline"],
    "trace2flame": DIR_RULE["tools"],
    "t2f-bench-symbols": ["formats", "symbolizer", ENUMS],
    "t2f-nettrace-dump": ["formats", "readers", ENUMS],
    "t2f-perf-data-dump": ["formats", "readers", ENUMS],
    "example_folded": [],
    "example_convert": [],
    "t2f-bench-write": [],
}
# the developer programs in tools/ print or time a layer's internals: their sources may
# include what their targets may (check 2), the command line's only the library's header
FILE_RULE = {
    "tools/bench_symbols.c": TARGET_RULE["t2f-bench-symbols"],
    "tools/nettrace_dump.c": TARGET_RULE["t2f-nettrace-dump"],
    "tools/perf_data_dump.c": TARGET_RULE["t2f-perf-data-dump"],
}
# one self-contained header per directory, included by the probes
PROBE = {
    "formats": "formats/diag.h",
    "readers": "readers/input.h",
    "symbolizer": "symbolizer/demangle.h",
    "writers": "writers/out.h",
    "pipeline": "pipeline/tmpguard.h",
    "tools": "tools/clobber.h",
    "include": "include/trace2flame.h",
    ENUMS: ENUMS,
    "tests": "tests/unit/support/diag_sink.h",
}

failed = 0


def allowed(rule, name):
    """Whether a rule (directories, or single headers) lets a file include header or directory
    name ("formats/diag.h", "include/trace2flame_enums.h", "include")."""
    return name in rule or name.split("/")[0] in rule


def bad(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def probe_args(entry):
    """The entry's target (from its object's path) and compiler command without its source,
    object and dependency file."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out, obj, drop = [], entry.get("output", ""), None
    for a in args:
        if drop:
            if drop == "-o":
                obj = a
            drop = None
        elif a in ("-o", "-MT", "-MF", "-MQ"):
            drop = a
        elif a not in ("-c", "-MD", "-MMD") and a != entry["file"]:
            out.append(a)
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", obj)
    return (m.group(1) if m else None), out


def compile_probe(cwd, args, tmp, text):
    path = os.path.join(tmp, "probe.c")
    with open(path, "w") as f:
        f.write(text + "typedef int t2f_layer_probe;\n")
    r = subprocess.run(args + ["-fsyntax-only", path], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    return r.returncode, r.stdout


def check_build(src, build):
    db = os.path.join(build, "compile_commands.json")
    if not os.path.exists(db):
        print("layers: no %s (a generator that writes none): skipping the compile check" % db)
        return
    with open(db) as f:
        entries = json.load(f)
    layer_dirs = set(DIR_RULE) - {"include"}
    contexts = {}
    for e in entries:
        path = os.path.realpath(os.path.join(e["directory"], e["file"]))
        top = os.path.relpath(path, src).split(os.sep)[0]
        target, args = probe_args(e)
        if os.path.relpath(os.path.realpath(e["directory"]), build).split(os.sep)[0] == "tests":
            continue  # a target of tests/CMakeLists.txt: tests may include anything
        if target not in TARGET_RULE:
            if top in layer_dirs:
                bad("%s: its target %s has no rule in tests/layers.py" % (path, target))
            continue
        contexts.setdefault(target, (e["directory"], args))
    for t in sorted(TARGET_RULE):
        if t not in contexts:
            bad("target %s: no compile command in %s" % (t, db))
    with tempfile.TemporaryDirectory(prefix="t2f-layers.") as tmp:
        for t in sorted(contexts):
            before = failed
            cwd, args = contexts[t]
            rc, out = compile_probe(cwd, args, tmp, "#include <stdio.h>\n")
            if rc != 0:
                bad("%s: a probe including <stdio.h> does not compile:\n%s" % (t, out))
                continue
            for d in sorted(PROBE):
                hdr = PROBE[d]
                if not os.path.exists(os.path.join(src, hdr)):
                    bad("probe header %s does not exist: update PROBE" % hdr)
                    continue
                rc, out = compile_probe(cwd, args, tmp, '#include "%s"\n' % hdr)
                if allowed(TARGET_RULE[t], d):
                    if rc != 0:
                        bad("%s may include %s, which does not compile:\n%s" % (t, hdr, out))
                elif rc == 0:
                    bad("%s includes %s: the build lets it reach %s/" % (t, hdr, d))
                elif hdr not in out or ("No such file" not in out and  # gcc
                                        "file not found" not in out):  # clang
                    bad("%s including %s fails, but not as not found:\n%s" % (t, hdr, out))
            if failed == before:
                print("layers: %s: reaches %s, not the rest"
                      % (t, " ".join(TARGET_RULE[t]) or "<trace2flame.h>"))


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def check_sources(src):
    files = 0
    for d in sorted(DIR_RULE):
        for root, _, names in os.walk(os.path.join(src, d)):
            for n in sorted(names):
                if not n.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, n)
                rel = os.path.relpath(path, src)
                files += 1
                with open(path, errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        quote, name = m.groups()
                        parts = name.split("/")
                        where = "%s:%d: #include %s%s%s" % (rel, no, quote, name,
                                                             ">" if quote == "<" else quote)
                        if ".." in parts:
                            bad(where + ': a path through ".."')
                        elif len(parts) == 1:
                            continue  # beside the file, or a system header
                        elif parts[0] in PROBE and os.path.exists(os.path.join(src, name)):
                            if quote == "<":
                                bad(where + ": a header of the tree between angle brackets")
                            elif not allowed(FILE_RULE.get(rel, DIR_RULE[d]), name):
                                bad(where + ": %s/ may not include %s/" % (d, parts[0]))
    print("layers: %d source files' includes checked" % files)


def main():
    if len(sys.argv) != 2:
        print("usage: %s BUILD_DIR" % sys.argv[0], file=sys.stderr)
        return 2
    src = os.environ.get("T2F_SOURCE_DIR") or os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..")
    src = os.path.realpath(src)
    check_sources(src)
    check_build(src, os.path.realpath(sys.argv[1]))
    print("layers: %s" % ("%d failed" % failed if failed else "ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
