#!/usr/bin/python3
"""tests/pprof_gen.py: pprof profiles (profile.proto) written from their wire format alone, for
the pprof reader's tests and its fuzz seeds: well-formed ones (an unsymbolized one with
addresses and a build-id; one with inline chains; one in the column layout of a heap profile;
samples sharing outer frames, with ids 1, 2, ... and with others)
and hostile ones (truncated, a bad varint, a length past the end, string indices and ids that
name nothing, a sample deeper than the reader's limit, a declared length past the decode
limit, a gzip bomb).

usage: tests/pprof_gen.py [--small] DIR   writes DIR/NAME.pb (raw) and DIR/NAME.pb.gz files
                                          and prints their names, one a line (--small: not the
                                          bomb)
"""
import gzip
import os
import sys


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def key(field, wt):
    return varint(field << 3 | wt)


def vfield(field, v):
    return key(field, 0) + varint(v)


def lfield(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def packed(field, values):
    return lfield(field, b"".join(varint(v) for v in values))


class Profile:
    """a Profile built field by field: strings interned in order of use"""

    def __init__(self):
        self.strings = [b""]
        self.body = b""

    def s(self, text):
        text = text.encode() if isinstance(text, str) else text
        if text not in self.strings:
            self.strings.append(text)
        return self.strings.index(text)

    def sample_type(self, t, unit):
        self.body += lfield(1, vfield(1, self.s(t)) + vfield(2, self.s(unit)))

    def sample(self, locs, values, labels=()):
        b = packed(1, locs) + packed(2, values)
        for k, v in labels:
            if isinstance(v, int):
                b += lfield(3, vfield(1, self.s(k)) + vfield(3, v))
            else:
                b += lfield(3, vfield(1, self.s(k)) + vfield(2, self.s(v)))
        self.body += lfield(2, b)

    def mapping(self, mid, start, limit, offset, filename, build_id=""):
        b = vfield(1, mid) + vfield(2, start) + vfield(3, limit) + vfield(4, offset)
        b += vfield(5, self.s(filename))
        if build_id:
            b += vfield(6, self.s(build_id))
        self.body += lfield(3, b)

    def location(self, lid, mapping=0, address=0, lines=()):
        b = vfield(1, lid)
        if mapping:
            b += vfield(2, mapping)
        if address:
            b += vfield(3, address)
        for func, line in lines:
            b += lfield(4, vfield(1, func) + vfield(2, line))
        self.body += lfield(4, b)

    def function(self, fid, name, system_name="", filename="", start_line=0):
        b = vfield(1, fid) + vfield(2, self.s(name))
        if system_name:
            b += vfield(3, self.s(system_name))
        if filename:
            b += vfield(4, self.s(filename))
        if start_line:
            b += vfield(5, start_line)
        self.body += lfield(5, b)

    def raw(self, extra=b""):
        return self.body + extra + b"".join(lfield(6, t) for t in self.strings)


def cpu_profile():
    """Go's layout: samples/count + cpu/nanoseconds, functions with lines, no labels"""
    p = Profile()
    p.sample_type("samples", "count")
    p.sample_type("cpu", "nanoseconds")
    p.mapping(1, 0x400000, 0x500000, 0, "/opt/app/server")
    p.function(1, "main.main", "main.main", "/src/main.go", 10)
    p.function(2, "main.work", "main.work", "/src/main.go", 20)
    p.function(3, "main.inner", "main.inner", "/src/main.go", 30)
    p.location(1, 1, 0x401000, [(1, 12)])
    p.location(2, 1, 0x402000, [(3, 31), (2, 22)])  # inner inlined into work
    p.sample([2, 1], [3, 30000000])
    p.sample([1], [1, 10000000])
    return p.raw(vfield(10, 2000000000) + vfield(14, p.s("cpu")))


def unsymbolized():
    """addresses and a build-id, no lines: named by the resolve stage, or [server]"""
    p = Profile()
    p.sample_type("cycles", "count")
    p.mapping(1, 0x400000, 0x500000, 0x1000, "/nonexistent/server", "00112233445566778899AABBCCDDEEFF00112233")
    p.location(1, 1, 0x401234)
    p.location(2, 1, 0x402345)
    p.sample([2, 1], [5], [("pid", 42), ("tid", 43), ("thread", "srv")])
    return p.raw()


def heap():
    """four columns that are no count+weight pairs: one is read"""
    p = Profile()
    for t, u in (("alloc_objects", "count"), ("alloc_space", "bytes"),
                 ("inuse_objects", "count"), ("inuse_space", "bytes")):
        p.sample_type(t, u)
    p.function(1, "alloc", "alloc")
    p.location(1, 0, 0, [(1, 0)])
    p.sample([1], [1, 100, 2, 200])
    return p.raw(vfield(14, p.s("inuse_space")))


def stacks(sparse):
    """samples whose stacks share their outer frames with the sample before them in several
    ways (a prefix, an extension, the same stack again, a frame repeated, the frames of the one
    before reversed, none shared); sparse:
    the same profile with ids that are not 1, 2, ... in order (mappings, functions and
    locations given in reverse, ids far apart)"""
    fid = (lambda i: 50 + 3 * i) if sparse else (lambda i: i)
    lid = (lambda i: 1000 - 10 * i) if sparse else (lambda i: i)
    mid = (lambda i: 77) if sparse else (lambda i: i)
    p = Profile()
    p.sample_type("samples", "count")
    p.mapping(mid(1), 0x400000, 0x500000, 0, "/opt/app/stacks")
    order = range(5, 0, -1) if sparse else range(1, 6)
    for i in order:
        p.function(fid(i), "abcde"[i - 1], "abcde"[i - 1])
    for i in order:
        p.location(lid(i), mid(1), 0, [(fid(i), 0)])
    for locs, n, labels in (([3, 2, 1], 1, ()), ([4, 2, 1], 2, ()), ([2, 1], 4, ()),
                            ([1, 2], 1024, ()), ([3, 2, 1, 1], 8, ()), ([5], 16, ()),
                            ([3, 2, 1], 32, ()), ([3, 2, 1], 64, ()), ([4, 3, 2, 1], 128, ()),
                            ([4, 2, 1], 256, (("thread", "w"),)), ([2, 1, 1], 512, ())):
        p.sample([lid(i) for i in locs], [n], labels)
    return p.raw()


def hostile():
    good = cpu_profile()
    out = {
        "truncated": good[: len(good) // 2],
        "bad-varint": good[:6] + b"\xff" * 11,
        "past-end": key(1, 2) + varint(1 << 40) + b"\x08\x01",
        "empty-string0": lfield(1, vfield(1, 0) + vfield(2, 0)) + lfield(6, b"x"),
    }
    p = Profile()
    p.sample_type("samples", "count")
    p.body += lfield(1, vfield(1, 999) + vfield(2, 0))
    out["string-index"] = p.raw()
    p = Profile()
    p.sample_type("samples", "count")
    p.sample([77], [1])
    out["unknown-location"] = p.raw()
    p = Profile()
    p.sample_type("samples", "count")
    p.function(1, "f", "f")
    p.location(1, 0, 0, [(1, 0)])
    p.sample([1] * ((1 << 16) + 1), [1])
    out["too-deep"] = p.raw()
    p = Profile()
    p.sample_type("samples", "count")
    p.function(1, "f", "f")
    p.location(1, 0, 0, [(1, 0)])
    p.location(1, 0, 0, [(1, 0)])
    out["duplicate-id"] = p.raw()
    p = Profile()
    p.sample_type("samples", "count")
    p.sample([], [1, 2])
    out["values"] = p.raw()
    return out


def main():
    small = sys.argv[1] == "--small"
    d = sys.argv[-1]
    os.makedirs(d, exist_ok=True)
    files = {"cpu": cpu_profile(), "unsymbolized": unsymbolized(), "heap": heap(),
             "stacks": stacks(False), "stacks-sparse": stacks(True)}
    files.update(hostile())
    for name, data in files.items():
        with open(os.path.join(d, name + ".pb"), "wb") as f:
            f.write(data)
        with open(os.path.join(d, name + ".pb.gz"), "wb") as f:
            f.write(gzip.compress(data, mtime=0))
        print(name)
    if small:
        return
    # a bomb: 1 GiB of tick_unit fields (15, two bytes each) in about 1 MiB of gzip
    with open(os.path.join(d, "bomb.pb.gz"), "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(lfield(1, vfield(1, 0) + vfield(2, 0)) + lfield(6, b""))
        chunk = vfield(15, 0) * (1 << 19)
        for _ in range(1024 + 1):
            f.write(chunk)
    print("bomb")


if __name__ == "__main__":
    main()
