#!/usr/bin/python3
"""tests/validate/broken.py: writes outputs that tests/validate/check must reject, each broken in
one way, for tests/validate/selftest.sh.

usage: broken.py SRC OUTDIR

Writes OUTDIR/KIND.WHAT.EXT (KIND: speedscope, pprof, folded, svg; WHAT: how it is broken), built
from the golden outputs of SRC/fixtures/perf-script/expected (burner.speedscope.json, burner.folded,
burner.svg) and, for pprof, from a small profile encoded here field by field; that profile is also
written unbroken, as OUTDIR/good.pprof.pb.gz, which check must accept. The SVG breakages replace
parts of the embedded script: when one is not found (the script changed), this exits 1.
"""
import copy
import gzip
import json
import os
import sys

SRC, OUT = sys.argv[1], sys.argv[2]
EXP = os.path.join(SRC, "fixtures", "perf-script", "expected")


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def speedscope():
    with open(os.path.join(EXP, "burner.speedscope.json"), "rb") as f:
        raw = f.read()
    good = json.loads(raw)
    nframes = len(good["shared"]["frames"])

    def variant(what, change):
        doc = copy.deepcopy(good)
        change(doc)
        write("speedscope.%s.speedscope.json" % what, json.dumps(doc))

    write("speedscope.truncated.speedscope.json", raw[:len(raw) // 2])
    write("speedscope.not-utf8.speedscope.json", raw.replace(b'"name":"', b'"name":"\xff', 1))
    variant("no-weights", lambda d: d["profiles"][0].pop("weights"))
    variant("frame-index", lambda d: d["profiles"][0]["samples"][0].append(nframes))
    variant("weight-count", lambda d: d["profiles"][0]["weights"].pop())
    variant("active-index", lambda d: d.update(activeProfileIndex=len(d["profiles"])))
    variant("misnested", lambda d: d["profiles"].__setitem__(0, {
        "type": "evented", "name": "t", "unit": "none", "startValue": 0, "endValue": 4,
        "events": [{"type": "O", "frame": 0, "at": 0}, {"type": "O", "frame": 1, "at": 1},
                   {"type": "C", "frame": 0, "at": 2}, {"type": "C", "frame": 1, "at": 3}]}))
    # accepted by the schema and by the structure checks: only speedscope's importer refuses it
    variant("no-profiles", lambda d: (d.pop("activeProfileIndex", None),
                                      d.__setitem__("profiles", [])))


# --- pprof: profile.proto encoded by hand -----------------------------------------------------

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(num, value):
    """an int is a varint field, bytes a length-delimited one"""
    if isinstance(value, int):
        return varint(num << 3) + varint(value)
    return varint(num << 3 | 2) + varint(len(value)) + value


def profile(strings=("", "samples", "count", "main"), fn_name=3, fn_ids=(1,), line_fn=1,
            sample_loc=1, values=(5,), extra=b""):
    p = field(1, field(1, 1) + field(2, 2))                    # sample_type samples/count
    p += field(2, field(1, sample_loc) + field(2, b"".join(varint(v) for v in values)))
    p += field(4, field(1, 1) + field(4, field(1, line_fn)))   # location 1 -> function
    for i in fn_ids:
        p += field(5, field(1, i) + field(2, fn_name))
    for s in strings:
        p += field(6, s.encode() if isinstance(s, str) else s)
    return p + extra


def pprof():
    gz = lambda b: gzip.compress(b, mtime=0)
    write("good.pprof.pb.gz", gz(profile()))
    write("pprof.string-index.pb.gz", gz(profile(fn_name=99)))
    write("pprof.string-table-0.pb.gz", gz(profile(strings=("x", "samples", "count", "main"))))
    write("pprof.not-utf8.pb.gz", gz(profile(strings=("", "samples", "count", b"ma\xffin"))))
    write("pprof.no-function.pb.gz", gz(profile(line_fn=2)))
    write("pprof.no-location.pb.gz", gz(profile(sample_loc=7)))
    write("pprof.value-count.pb.gz", gz(profile(values=(5, 6))))
    write("pprof.duplicate-id.pb.gz", gz(profile(fn_ids=(1, 1))))
    write("pprof.wire-type.pb.gz", gz(profile(extra=field(6, 3))))
    write("pprof.unknown-field.pb.gz", gz(profile(extra=field(99, 1))))
    write("pprof.cut-message.pb.gz", gz(profile()[:-2]))
    write("pprof.cut-gzip.pb.gz", gz(profile())[:-6])
    write("pprof.not-gzip.pb.gz", profile())


def folded():
    for what, text in (("tab", "a;b\t3\n"), ("cr", "a;b 3\r\n"), ("empty-frame", "a;;b 3\n"),
                       ("no-count", "a;b\n"),
                       ("leading-zero", "a;b 03\n"), ("differential", "a;b 12 3\n"),
                       ("no-newline", "a;b 3"), ("negative", "a;b -3\n")):
        write("folded.%s.folded" % what, "main;x 1\n" + text)
    write("folded.not-utf8.folded", b"main;\xff 1\n")


def svg():
    with open(os.path.join(EXP, "burner.svg")) as f:
        good = f.read()

    def variant(what, old, new):
        if good.count(old) != 1:
            sys.exit("broken.py: %r is not once in burner.svg's script" % old)
        write("svg.%s.svg" % what, good.replace(old, new))

    write("svg.not-xml.svg", good[:len(good) // 2])
    variant("script-throws", "function init(evt) {", "function init(evt) { null.x();")
    variant("search-dead", "function search(term) {", "function search(term) { return;")
    variant("zoom-dead", "function zoom(f) {", "function zoom(f) { return;")
    variant("unzoom-dead", "function unzoom() {", "function unzoom() { return;")


speedscope()
pprof()
folded()
svg()
