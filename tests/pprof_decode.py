#!/usr/bin/python3
"""tests/pprof_decode.py: a pprof file (gzip or raw profile.proto) decoded from its wire format alone,
printed as JSON, for tests that check what a profile holds without Go pprof.

usage: tests/pprof_decode.py FILE

Prints one JSON object: "strings" (the string table, each decoded as UTF-8: a string that is
not valid UTF-8 makes this exit 1), "samples" (each {"locations": [...], "values": [...]} with
values as signed 64-bit numbers, "labels": [[key, str, num], ...]), "mappings" ({"id",
"start", "limit", "offset", "filename", "build_id"}), "locations" ({"id", "mapping", "address"}),
"functions" ({"name", "system_name"} as strings), "sample_types" ([type, unit] strings), "time_nanos",
"duration_nanos", "period" (signed), "comments" (strings). Field numbers from profile.proto.
"""
import gzip
import json
import sys


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field, wire type, value) of every field of message b; LEN values are bytes."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wt == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise ValueError("wire type %d at %d" % (wt, i))
        yield f, wt, v


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def ints(wt, v):
    """a repeated integer field: packed (LEN) or one value"""
    if wt != 2:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def sub(v):
    return {f: (wt, x) for f, wt, x in fields(v)}


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    p = {"strings": [], "samples": [], "mappings": [], "functions": [], "comments": [],
         "time_nanos": 0, "duration_nanos": 0, "period": 0}
    raw = {"mappings": [], "functions": [], "comments": [], "sample_types": []}
    p["locations"] = []
    for f, wt, v in fields(data):
        if f == 1:
            raw["sample_types"].append(sub(v))
        elif f == 6:
            p["strings"].append(v.decode("utf-8"))  # strict: ill-formed UTF-8 fails
        elif f == 2:
            s = {"locations": [], "values": [], "labels": []}
            for g, gwt, x in fields(v):
                if g == 1:
                    s["locations"] += ints(gwt, x)
                elif g == 2:
                    s["values"] += [signed(n) for n in ints(gwt, x)]
                elif g == 3:
                    lab = sub(x)
                    s["labels"].append([lab.get(k, (0, 0))[1] for k in (1, 2, 3)])
            p["samples"].append(s)
        elif f == 3:
            raw["mappings"].append(sub(v))
        elif f == 4:
            loc = sub(v)
            p["locations"].append({k: loc.get(n, (0, 0))[1]
                                   for k, n in (("id", 1), ("mapping", 2), ("address", 3))})
        elif f == 5:
            raw["functions"].append(sub(v))
        elif f == 9:
            p["time_nanos"] = signed(v)
        elif f == 10:
            p["duration_nanos"] = signed(v)
        elif f == 12:
            p["period"] = signed(v)
        elif f == 13:
            raw["comments"] += ints(wt, v)
    st = p["strings"]
    name = lambda m, k: st[m.get(k, (0, 0))[1]]
    p["mappings"] = [{"id": m.get(1, (0, 0))[1], "start": m.get(2, (0, 0))[1],
                      "limit": m.get(3, (0, 0))[1], "offset": m.get(4, (0, 0))[1],
                      "filename": name(m, 5), "build_id": name(m, 6)} for m in raw["mappings"]]
    p["functions"] = [{"name": name(m, 2), "system_name": name(m, 3)} for m in raw["functions"]]
    p["comments"] = [st[i] for i in raw["comments"]]
    p["sample_types"] = [[name(m, 1), name(m, 2)] for m in raw["sample_types"]]
    for s in p["samples"]:
        s["labels"] = [[st[k], st[x] if x else "", n] for k, x, n in s["labels"]]
    json.dump(p, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
