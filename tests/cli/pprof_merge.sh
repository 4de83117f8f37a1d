#!/bin/sh
# Merges through pprof: `trace2flame A B -o ab.pb.gz; trace2flame ab.pb.gz C -o x` writes the
# same bytes as `trace2flame A B C -o x`, for pprof and folded outputs, over mixes of perf
# script text, folded stacks, .nettrace traces and a perf.data (.nettrace beside a perf.data of
# unnamed frames too); so do each input's pprof read in order; the same command twice gives the
# same bytes; and the sample counts and weights of a merged pprof are the sums of its parts',
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

# same_pb WHAT A B: two pprof files byte-identical; when not, what differs, decoded
same_pb() {
	same "$1" "$2" "$3" && return
	for _f in "$2" "$3"; do
		"$PY" "$SRC/tests/pprof_decode.py" "$_f" |
			"$PY" -c 'import json, sys; json.dump(json.load(sys.stdin), sys.stdout, indent=0)' \
				>"$_f.json" 2>&1
	done
	diff "$2.json" "$3.json" | head -n 30 | cut -c1-200 | sed 's/^/    decoded: /'
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
