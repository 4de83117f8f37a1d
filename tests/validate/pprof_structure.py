#!/usr/bin/python3
"""tests/validate/pprof_structure.py: a pprof file checked against profile.proto by a decoder of
its own (the protobuf wire format read here, field by field; nothing of the writer's code).

usage: pprof_structure.py FILE        exit 0 accepted, 1 rejected (every reason on stderr)

Rejected: not gzip (the format's on-disk form) or a truncated/corrupt gzip stream; a message that
ends inside a field, an over-long varint, a wire type other than profile.proto's for a field, a
field number profile.proto does not define; string_table[0] not "" or a string not valid UTF-8; a
string index out of range; a mapping, location or function id that is 0 or repeated; a reference
(location -> mapping, line -> function, sample -> location) to no such entry; a sample whose
value count is not the number of sample types; samples without sample types; a label with both a
string and a number, or no key; a mapping whose memory_limit is below its memory_start; a
default_sample_type that names none of the sample types.
"""
import gzip
import sys
import zlib

VARINT, I64, LEN, I32 = 0, 1, 2, 5

# message -> field number -> (name, kind); kinds: "u" varint scalar, "s" string-table index
# (varint), "b" bytes/string, a message name, or a list of one of these (repeated).
SCHEMA = {
    "Profile": {1: ("sample_type", ["ValueType"]), 2: ("sample", ["Sample"]),
                3: ("mapping", ["Mapping"]), 4: ("location", ["Location"]),
                5: ("function", ["Function"]), 6: ("string_table", ["b"]),
                7: ("drop_frames", "s"), 8: ("keep_frames", "s"), 9: ("time_nanos", "u"),
                10: ("duration_nanos", "u"), 11: ("period_type", "ValueType"),
                12: ("period", "u"), 13: ("comment", ["s"]),
                14: ("default_sample_type", "s")},
    "ValueType": {1: ("type", "s"), 2: ("unit", "s")},
    "Sample": {1: ("location_id", ["u"]), 2: ("value", ["u"]), 3: ("label", ["Label"])},
    "Label": {1: ("key", "s"), 2: ("str", "s"), 3: ("num", "u"), 4: ("num_unit", "s")},
    "Mapping": {1: ("id", "u"), 2: ("memory_start", "u"), 3: ("memory_limit", "u"),
                4: ("file_offset", "u"), 5: ("filename", "s"), 6: ("build_id", "s"),
                7: ("has_functions", "u"), 8: ("has_filenames", "u"),
                9: ("has_line_numbers", "u"), 10: ("has_inline_frames", "u")},
    "Location": {1: ("id", "u"), 2: ("mapping_id", "u"), 3: ("address", "u"),
                 4: ("line", ["Line"]), 5: ("is_folded", "u")},
    "Line": {1: ("function_id", "u"), 2: ("line", "u"), 3: ("column", "u")},
    "Function": {1: ("id", "u"), 2: ("name", "s"), 3: ("system_name", "s"),
                 4: ("filename", "s"), 5: ("start_line", "u")},
}


class Bad(Exception):
    pass


def varint(b, i, where):
    v = shift = 0
    for n in range(10):
        if i >= len(b):
            raise Bad("%s: varint cut by the end of the message" % where)
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v & ((1 << 64) - 1), i
    raise Bad("%s: varint longer than 10 bytes" % where)


def packed(b, where):
    out, i = [], 0
    while i < len(b):
        v, i = varint(b, i, where)
        out.append(v)
    return out


def decode(b, msg, where):
    """message msg from bytes b: a dict name -> value (lists for repeated fields)"""
    out = {name: [] for name, kind in SCHEMA[msg].values() if isinstance(kind, list)}
    i = 0
    while i < len(b):
        at = "%s at byte %d" % (where, i)
        key, i = varint(b, i, at)
        num, wt = key >> 3, key & 7
        if num not in SCHEMA[msg]:
            raise Bad("%s: field %d is not in %s (wire type %d)" % (at, num, msg, wt))
        name, kind = SCHEMA[msg][num]
        rep = isinstance(kind, list)
        base = kind[0] if rep else kind
        if wt == VARINT and base in ("u", "s"):
            v, i = varint(b, i, at)
            vals = [v]
        elif wt == LEN:
            n, i = varint(b, i, at)
            if n > len(b) - i:
                raise Bad("%s: %s: %d bytes announced, %d left" % (at, name, n, len(b) - i))
            raw, i = b[i:i + n], i + n
            if base == "b":
                vals = [raw]
            elif base in ("u", "s"):
                if not rep:
                    raise Bad("%s: %s is a scalar but has wire type LEN" % (at, name))
                vals = packed(raw, "%s.%s" % (at, name))
            else:
                vals = [decode(raw, base, "%s.%s" % (where, name))]
        else:
            raise Bad("%s: %s has wire type %d" % (at, name, wt))
        if rep:
            out[name].extend(vals)
        else:
            out[name] = vals[0]
    return out


def check_refs(p, errs):
    strings = p["string_table"]

    def s(v, what):
        if v >= len(strings):
            errs.append("%s: string index %d, the table has %d strings" % (what, v, len(strings)))
            return ""
        return strings[v]

    def ids(items, what):
        seen = set()
        for k, x in enumerate(items):
            v = x.get("id", 0)
            if v == 0 or v in seen:
                errs.append("%s %d: id %d %s" % (what, k, v, "is 0" if v == 0 else "repeated"))
            seen.add(v)
        return seen

    mappings, functions = ids(p["mapping"], "mapping"), ids(p["function"], "function")
    locations = ids(p["location"], "location")
    for k, vt in enumerate(p["sample_type"]):
        s(vt.get("type", 0), "sample_type %d type" % k)
        s(vt.get("unit", 0), "sample_type %d unit" % k)
    if "period_type" in p:
        s(p["period_type"].get("type", 0), "period_type type")
        s(p["period_type"].get("unit", 0), "period_type unit")
    for f in ("drop_frames", "keep_frames"):
        s(p.get(f, 0), f)
    for k, c in enumerate(p["comment"]):
        s(c, "comment %d" % k)
    dflt = p.get("default_sample_type", 0)
    if dflt and s(dflt, "default_sample_type") not in [
            strings[vt.get("type", 0)] for vt in p["sample_type"] if vt.get("type", 0) < len(strings)]:
        errs.append("default_sample_type %r is none of the sample types" % s(dflt, ""))
    for k, m in enumerate(p["mapping"]):
        s(m.get("filename", 0), "mapping %d filename" % k)
        s(m.get("build_id", 0), "mapping %d build_id" % k)
        if m.get("memory_limit", 0) < m.get("memory_start", 0):
            errs.append("mapping %d: memory_limit below memory_start" % k)
    for k, f in enumerate(p["function"]):
        for field in ("name", "system_name", "filename"):
            s(f.get(field, 0), "function %d %s" % (k, field))
    for k, loc in enumerate(p["location"]):
        m = loc.get("mapping_id", 0)
        if m and m not in mappings:
            errs.append("location %d: mapping_id %d: no such mapping" % (k, m))
        for j, line in enumerate(loc["line"]):
            if line.get("function_id", 0) not in functions:
                errs.append("location %d line %d: function_id %d: no such function"
                            % (k, j, line.get("function_id", 0)))
    if p["sample"] and not p["sample_type"]:
        errs.append("%d samples but no sample_type" % len(p["sample"]))
    for k, smp in enumerate(p["sample"]):
        if len(smp["value"]) != len(p["sample_type"]):
            errs.append("sample %d: %d values for %d sample types"
                        % (k, len(smp["value"]), len(p["sample_type"])))
        for loc in smp["location_id"]:
            if loc not in locations:
                errs.append("sample %d: location_id %d: no such location" % (k, loc))
        for j, lab in enumerate(smp["label"]):
            what = "sample %d label %d" % (k, j)
            if not lab.get("key", 0):
                errs.append("%s: no key" % what)
            s(lab.get("key", 0), what + " key")
            s(lab.get("str", 0), what + " str")
            s(lab.get("num_unit", 0), what + " num_unit")
            if lab.get("str", 0) and lab.get("num", 0):
                errs.append("%s: both a string and a number" % what)


def check(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != b"\x1f\x8b":
        raise Bad("not gzip-compressed")
    try:
        raw = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as e:
        raise Bad("gzip: %s" % e)
    p = decode(raw, "Profile", "Profile")
    strings = []
    for k, b in enumerate(p["string_table"]):
        try:
            strings.append(b.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise Bad("string_table[%d] is not valid UTF-8: %s" % (k, e))
    p["string_table"] = strings
    if not strings or strings[0] != "":
        raise Bad("string_table[0] must be \"\"")
    errs = []
    check_refs(p, errs)
    for e in errs[:10]:
        print("%s: %s" % (path, e), file=sys.stderr)
    if len(errs) > 10:
        print("%s: ... %d problems in all" % (path, len(errs)), file=sys.stderr)
    if errs:
        return 1
    print("pprof structure OK: %s (%d samples, %d locations, %d functions, %d strings)" % (
        path, len(p["sample"]), len(p["location"]), len(p["function"]), len(strings)))
    return 0


def main():
    if len(sys.argv) != 2:
        print("usage: pprof_structure.py FILE", file=sys.stderr)
        return 2
    try:
        return check(sys.argv[1])
    except Bad as e:
        print("%s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
