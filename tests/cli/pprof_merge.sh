#!/bin/sh
# Merges through pprof: `trace2flame A B -o ab.pb.gz; trace2flame ab.pb.gz C -o x` writes the
# same bytes as `trace2flame A B C -o x`, for pprof and folded outputs, over mixes of perf
# script text, folded stacks, .nettrace traces, pprof and perf.data (.nettrace beside a perf.data
# of unnamed frames too); so do each input's pprof read in order; a mapping's range is an input's
# that samples its file; the same command twice gives the same bytes; and the sample counts and weights of a merged pprof are the sums of its parts',
# by tests/pprof_decode.py (per sample type name), its duration_nanos the sum of theirs and its
# comments name every input.
# usage: sh tests/cli/pprof_merge.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
NT=$SRC/fixtures/nettrace
"$PY" -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
open(sys.argv[2], "wb").write(g.perf_data(b"worker", b"page-faults",
    [(b"/opt/demo/libdemo.so", 0x7f0000000000, 5), (b"/opt/demo/app", 0x400000, 5)],
    [(t, [0x7f0000001010 + 16 * (t % 3), 0x400100]) for t in range(1, 40)]))' \
	"$SRC/tests" "$TMP/gen.data" || bad "perf_data_gen failed"

# decoded_diff A B: what differs between two pprof files, decoded
decoded_diff() {
	for _f in "$1" "$2"; do
		"$PY" "$SRC/tests/pprof_decode.py" "$_f" |
			"$PY" -c 'import json, sys; json.dump(json.load(sys.stdin), sys.stdout, indent=0)' \
				>"$_f.json" 2>&1
	done
	diff "$1.json" "$2.json" | head -n 30 | cut -c1-200 | sed 's/^/    decoded: /'
}

# same_pb WHAT A B: two pprof files byte-identical; when not, what differs, decoded
same_pb() {
	same "$1" "$2" "$3" || decoded_diff "$2" "$3"
}

assoc() { # A B C: (A B) C = A B C, pprof and folded
	t2f -q -o "$TMP/ab.pb.gz" "$1" "$2" && t2f -q -o "$TMP/x1.pb.gz" "$TMP/ab.pb.gz" "$3" &&
		t2f -q -o "$TMP/x2.pb.gz" "$1" "$2" "$3" && t2f -q -o "$TMP/x3.pb.gz" "$1" "$2" "$3" ||
		{ bad "$1 $2 $3: a conversion failed"; return; }
	same_pb "$1 $2 $3: deterministic" "$TMP/x2.pb.gz" "$TMP/x3.pb.gz"
	same_pb "$1 $2 $3: pprof associative" "$TMP/x1.pb.gz" "$TMP/x2.pb.gz"
	t2f -q -o "$TMP/y1.folded" "$TMP/ab.pb.gz" "$3" && t2f -q -o "$TMP/y2.folded" "$1" "$2" "$3" &&
		same_nonempty "$TEST_NAME" "$1 $2 $3: folded associative" "$TMP/y1.folded" \
			"$TMP/y2.folded" "< via pprof, > at once"
}
# partials: each input converted to pprof alone, then those read in input order, write the
# bytes of one conversion of the inputs, pprof and folded (a folded input's event "samples"
# keeps its name beside others)
partials() { # INPUT...
	_pbs='' _k=0
	for _in in "$@"; do
		_k=$((_k + 1))
		t2f -q -o "$TMP/part$_k.pb.gz" "$_in" || bad "$_in: its partial failed"
		_pbs="$_pbs $TMP/part$_k.pb.gz"
	done
	for _ext in pb.gz folded; do
		# shellcheck disable=SC2086 # _pbs: paths without spaces
		if ! t2f -q -o "$TMP/pa.$_ext" $_pbs || ! t2f -q -o "$TMP/pb.$_ext" "$@"; then
			bad "$*: a conversion failed"
			continue
		fi
		same_nonempty "$TEST_NAME" "$*: partials, $_ext" "$TMP/pb.$_ext" "$TMP/pa.$_ext" \
			"< at once, > from partials"
		if [ "$_ext" = pb.gz ] && ! cmp -s "$TMP/pb.$_ext" "$TMP/pa.$_ext"; then
			decoded_diff "$TMP/pb.$_ext" "$TMP/pa.$_ext"
		fi
	done
}
partials counts.folded.txt burner.perf.txt
partials burner.perf.txt multi.perf.txt counts.folded.txt cxxwork.perf.txt
partials multi.perf.txt "$TMP/gen.data" burner.stackcollapse.txt burner.srcline.perf.txt
# frames the profile keeps apart that pprof cannot tell apart: a kernel address of a one-line
# sample (absolute) and of a call chain; .nettrace frames named at the end of their input
partials burner.nocg.perf.txt burner.cpu.perf.txt
partials "$NT/universal.nettrace" "$NT/mixed_managed_external_samples.nettrace" \
	"$NT/universal.nettrace"

assoc burner.perf.txt multi.perf.txt counts.folded.txt
assoc cxxwork.perf.txt burner.srcline.perf.txt multi.perf.txt
assoc "$NT/mixed_managed_external_samples.nettrace" burner.cpu.perf.txt counts.folded.txt
assoc "$TMP/gen.data" multi.perf.txt counts.folded.txt
# .nettrace traces beside inputs with unnamed file frames: each input's frames named as it
# names them (not "FILE!0xADDR" for the others')
assoc "$TMP/gen.data" "$NT/universal.nettrace" counts.folded.txt
assoc "$NT/universal.nettrace" "$TMP/gen.data" multi.perf.txt
assoc burner.perf.txt "$NT/mixed_managed_external_samples.nettrace" "$NT/universal.nettrace"
partials "$TMP/gen.data" "$NT/universal.nettrace" burner.nocg.perf.txt

# A mapping's range and build-id come from an input whose cells use its file: A maps libx.so
# (at 0x7f0000000000, build-id aa..) with no sample in it, B (the same pid: the generator's) maps
# it at 0x7f1000000000 (bb..) with samples; A's pprof has no libx.so mapping, so A and B at once
# must take B's as the merge of their pprof files does, in any mix and order of inputs
"$PY" -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
for name, at, ips in ((sys.argv[2], 0x7f0000000000, lambda t: [0x400100 + 16 * (t % 2)]),
                      (sys.argv[3], 0x7f1000000000, lambda t: [at + 0x1010 + 16 * (t % 3), 0x400100])):
    lib = b"/opt/demo/libx.so"
    open(name, "wb").write(g.perf_data(b"worker", b"page-faults",
        [(lib, at, 5), (b"/opt/demo/app", 0x400000, 5)], [(t, ips(t)) for t in range(1, 20)],
        build_ids=[(lib, bytes([0xaa if at == 0x7f0000000000 else 0xbb]) * 20)]))' \
	"$SRC/tests" "$TMP/A.data" "$TMP/B.data" || bad "perf_data_gen failed"
# one input, two processes mapping libx.so at other places, only the second sampled in it
cat >"$TMP/two.perf.txt" <<'EOF2'
app   100/100   1.000000: PERF_RECORD_MMAP2 100/100: [0x400000(0x10000) @ 0 fe:00 2 0]: r-xp /opt/demo/app
app   100/100   1.000001: PERF_RECORD_MMAP2 100/100: [0x7f0000000000(0x10000) @ 0 fe:00 1 0]: r-xp /opt/demo/libx.so
app   200/200   1.000002: PERF_RECORD_MMAP2 200/200: [0x400000(0x10000) @ 0 fe:00 2 0]: r-xp /opt/demo/app
app   200/200   1.000003: PERF_RECORD_MMAP2 200/200: [0x7f2000000000(0x10000) @ 0 fe:00 1 0]: r-xp /opt/demo/libx.so
app   100/100   1.100000:       1000 page-faults: 
	          400100 main+0x0 (/opt/demo/app)

app   200/201   1.200000:       1000 page-faults: 
	            1010 work+0x10 (/opt/demo/libx.so)
	          400100 main+0x0 (/opt/demo/app)

EOF2
# libx_start WHAT FILE START BUILD_ID: FILE's libx.so mapping starts at START with BUILD_ID, and
# every location of it lies in it
libx_start() {
	if "$PY" "$SRC/tests/pprof_decode.py" "$2" >"$2.json" &&
		"$PY" - "$2.json" "$3" "$4" <<'PYEOF'; then ok; else bad "$1: libx.so mapping"; fi
import json, sys
p = json.load(open(sys.argv[1]))
m = [m for m in p["mappings"] if m["filename"] == "/opt/demo/libx.so"]
assert len(m) == 1, m
m = m[0]
assert (m["start"], m["build_id"]) == (int(sys.argv[2], 16), sys.argv[3]), m
locs = [l for l in p["locations"] if l["mapping"] == m["id"]]
assert locs and all(m["start"] <= l["address"] < m["limit"] for l in locs), (m, locs)
PYEOF
}
t2f -q -o "$TMP/ab.pb.gz" "$TMP/A.data" "$TMP/B.data" || bad "A B: conversion failed"
libx_start "A B at once" "$TMP/ab.pb.gz" 0x7f1000000000 "$(printf 'bb%.0s' $(seq 20))"
t2f -q -o "$TMP/two.pb.gz" "$TMP/two.perf.txt" || bad "two processes: conversion failed"
libx_start "two processes, the sampled one's" "$TMP/two.pb.gz" 0x7f2000000000 ""
t2f -q -o "$TMP/two-a.pb.gz" "$TMP/two.perf.txt" "$TMP/A.data" "$TMP/B.data" ||
	bad "two A B: conversion failed"
libx_start "two processes before A B" "$TMP/two-a.pb.gz" 0x7f2000000000 ""
partials "$TMP/A.data" "$TMP/B.data"
partials "$TMP/A.data" "$TMP/two.perf.txt" "$TMP/B.data"
t2f -q -o "$TMP/multi.pb.gz" multi.perf.txt || bad "multi.perf.txt: its pprof failed"
assoc "$TMP/A.data" "$TMP/B.data" counts.folded.txt
assoc "$TMP/A.data" multi.perf.txt "$TMP/B.data"
assoc "$TMP/A.data" counts.folded.txt "$TMP/B.data"
assoc "$TMP/A.data" "$TMP/multi.pb.gz" "$TMP/B.data"
assoc counts.folded.txt "$TMP/A.data" "$TMP/two.perf.txt"
assoc "$TMP/A.data" "$TMP/two.perf.txt" "$TMP/B.data"

# totals: the merge of two pprof files holds the sums of theirs
t2f -q -o "$TMP/p1.pb.gz" burner.perf.txt multi.perf.txt &&
	t2f -q -o "$TMP/p2.pb.gz" "$NT/universal.nettrace" "$TMP/gen.data" counts.folded.txt &&
	t2f -q -o "$TMP/p12.pb.gz" "$TMP/p1.pb.gz" "$TMP/p2.pb.gz" || bad "totals: a conversion failed"
for f in p1 p2 p12; do
	"$PY" "$SRC/tests/pprof_decode.py" "$TMP/$f.pb.gz" >"$TMP/$f.json" || bad "decode $f"
done
if "$PY" - "$TMP/p1.json" "$TMP/p2.json" "$TMP/p12.json" <<'PYEOF'; then ok; else bad "totals"; fi
import json, sys
a, b, ab = (json.load(open(x)) for x in sys.argv[1:])
def sums(p):
    out = {}
    for smp in p["samples"]:
        for i, v in enumerate(smp["values"]):
            out[i] = out.get(i, 0) + v
    return out
def named(p):
    t = p.get("sample_types")
    return {tuple(t[i]): v for i, v in sums(p).items()} if t else None
na, nb, nab = named(a), named(b), named(ab)
assert na is not None, "pprof_decode.py gives no sample types"
want = dict(na)
for k, v in nb.items():
    want[k] = want.get(k, 0) + v
assert want == nab, (want, nab)
assert ab["duration_nanos"] == a["duration_nanos"] + b["duration_nanos"], \
    (ab["duration_nanos"], a["duration_nanos"], b["duration_nanos"])
inputs = [c for c in ab["comments"] if c.startswith("input: ")]
assert inputs == [c for c in a["comments"] + b["comments"] if c.startswith("input: ")], inputs
assert len(inputs) == 5, inputs
print("totals:", sorted(nab.items()))
PYEOF
finish
