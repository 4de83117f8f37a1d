#!/bin/sh
# tests/cache/classes.sh: a warm perf.data run reads the user frames the symbol cache names
# alike as one frame (pipeline/sym_classes.h), and its outputs are the bytes of a run without
# the cache, and of a warm run that reads every address apart (T2F_NO_CLASSES=1).
# tests/cache/inlines.c (inlined functions with lines of their own) built -O2 -g as a PIE:
#   gen   made by tests/perf_data_gen.py: one sample at each instruction of run, called from
#         main (its BUILD_ID feature names the file), then at each again from another call site
#   rec   perf record -g of the program (skipped where perf cannot record)
# Each is converted with --no-cache, then cold (the cache written), then warm: folded,
# speedscope and SVG (which show lines) the same bytes each time; the warm folded run says how
# many frames it read as another (more than none), SVG too on gen (its classes hold lines);
# folded's classes span line rows whose chains name the same functions (on gen, more frames
# than T2F_CLASS_LINES=1, classes that hold lines, reads as another; the same bytes);
# speedscope, which lists frames in id order, reads none so; and they name, count and warn as
# the run without classes does (its --stats but for the times and the inline lookups, fewer
# by class).
# usage: sh tests/cache/classes.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
make_tmp
for tool in cc objdump readelf nm python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$TEST_NAME: $tool not found: skipped"
		exit 0
	fi
done
pass=0 fail=0
export DEBUGINFOD_URLS=
C=$TMP/cache
export T2F_CACHE_DIR="$C"
P=$TMP/inlines
cc -O2 -g -fno-omit-frame-pointer -pie -fPIE -Wl,--build-id -o "$P" \
	"$SRC/tests/cache/inlines.c" || { bad "cc inlines.c failed"; finish; }

# gen: the file offsets of run's instructions, and two call sites in main
objdump -d --no-show-raw-insn "$P" >"$TMP/dis"
readelf -lW "$P" >"$TMP/loads"
nm "$P" >"$TMP/syms"
readelf -n "$P" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' >"$TMP/id"
python3 - "$SRC/tests" "$TMP" "$P" <<'PY' || bad "tests/perf_data_gen.py failed"
import re, sys
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
d, prog = sys.argv[2], sys.argv[3].encode()
segs = []  # executable PT_LOADs: (p_offset, p_vaddr, p_filesz)
for l in open(d + "/loads"):
    f = l.split()
    if f and f[0] == "LOAD" and "E" in f[6:-1]:
        segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
def off(va):
    for o, v, n in segs:
        if v <= va < v + n:
            return va - v + o
    raise SystemExit("%x in no executable segment" % va)
sym, cur, insns = {}, None, {}
for l in open(d + "/dis"):
    m = re.match(r"[0-9a-f]+ <(\w+)>:", l)
    if m:
        cur = m.group(1); insns[cur] = []
    m = re.match(r"\s+([0-9a-f]+):", l)
    if m and cur:
        insns[cur].append(int(m.group(1), 16))
run, main = insns["run"], insns["main"]
if len(run) < 40 or len(main) < 8:
    raise SystemExit("run or main too short")
start = 0x555555550000
calls = [start + off(main[3]), start + off(main[6])]
samples = [(t, [start + off(a), c]) for t, (a, c) in
           enumerate(((a, c) for c in calls for a in run), 1)]
bid = bytes.fromhex(open(d + "/id").read().strip())
open(d + "/gen.data", "wb").write(g.perf_data(b"inlines", b"cpu-clock",
    [(prog, start, 5)], samples, build_ids=[(prog, bid)], config=0))
PY

# check NAME: NAME.data converted with --no-cache, cold, warm, and warm without classes
check() {
	rm -rf "$C"
	for f in folded speedscope.json svg; do
		t2f --no-cache "$TMP/$1.data" -o "$TMP/$1.ref.$f" 2>"$TMP/err" ||
			bad "$1 --no-cache: $(head -3 "$TMP/err")"
	done
	t2f "$TMP/$1.data" -o "$TMP/$1.cold.folded" 2>"$TMP/err" ||
		bad "$1 cold: $(head -3 "$TMP/err")"
	same_nonempty "$1 cold" "with the cache and without" "$TMP/$1.ref.folded" \
		"$TMP/$1.cold.folded" "< --no-cache, > cold"
	T2F_CLASS_LINES=1 t2f --stats "$TMP/$1.data" -o "$TMP/$1.lines.folded" \
		2>"$TMP/$1.lines.err" || bad "$1 lines: $(head -3 "$TMP/$1.lines.err")"
	for f in folded speedscope.json svg; do
		t2f --stats "$TMP/$1.data" -o "$TMP/$1.warm.$f" 2>"$TMP/$1.warm.$f.err" ||
			bad "$1 warm: $(head -3 "$TMP/$1.warm.$f.err")"
		same_nonempty "$1 warm $f" "with classes and without the cache" "$TMP/$1.ref.$f" \
			"$TMP/$1.warm.$f" "< --no-cache, > warm"
		T2F_NO_CLASSES=1 t2f --stats "$TMP/$1.data" -o "$TMP/$1.apart.$f" \
			2>"$TMP/$1.apart.$f.err" || bad "$1 apart: $(head -3 "$TMP/$1.apart.$f.err")"
		same_nonempty "$1 apart $f" "with classes and without" "$TMP/$1.apart.$f" \
			"$TMP/$1.warm.$f" "< apart, > classes"
	done
	n=$(sed -n 's/.*user frames read as another that the symbol cache names alike: //p' \
		"$TMP/$1.warm.folded.err")
	# (the first SVG run may have found the file folded wrote, without lines, and written it
	# again with them)
	t2f --stats "$TMP/$1.data" -o "$TMP/$1.again.svg" 2>"$TMP/$1.again.svg.err" ||
		bad "$1 SVG again: $(head -3 "$TMP/$1.again.svg.err")"
	same_nonempty "$1 SVG again" "with classes and without the cache" "$TMP/$1.ref.svg" \
		"$TMP/$1.again.svg" "< --no-cache, > warm"
	# (gen samples every instruction: rows of the line table with several; a recording's
	# few addresses may each have a row of their own, a class with lines of its own)
	[ "$1" != gen ] || grep -q 'read as another' "$TMP/$1.again.svg.err" && ok ||
		bad "$1: SVG read no frame as another"
	! grep -q 'read as another' "$TMP/$1.warm.speedscope.json.err" && ok ||
		bad "$1: speedscope (frames listed in id order) read frames as others"
	[ "${n:-0}" -gt 0 ] && ok || bad "$1: no frame read as another: $(grep -c . \
		"$TMP/$1.warm.folded.err") lines of --stats"
	# folded shows no line: its classes span the rows of the line table whose chains name the
	# same functions (gen: more frames read as another than with classes that hold lines, on
	# the cache the warm folded run found)
	same_nonempty "$1 lines" "classes of names and of lines" "$TMP/$1.lines.folded" \
		"$TMP/$1.warm.folded" "< lines, > names"
	m=$(sed -n 's/.*user frames read as another that the symbol cache names alike: //p' \
		"$TMP/$1.lines.err")
	[ "$1" != gen ] || [ "${n:-0}" -gt "${m:-0}" ] && ok ||
		bad "$1: folded read ${n:-0} frames as another, ${m:-0} with classes of lines"
	! grep -q 'read as another' "$TMP/$1.apart.folded.err" && ok ||
		bad "$1: T2F_NO_CLASSES=1 still read frames as others"
	for k in warm apart; do
		grep -v 'time:\|elapsed:\|read as another\|answered from\|cache files written' \
			"$TMP/$1.$k.folded.err" >"$TMP/$1.$k.stats"
	done
	same_nonempty "$1 --stats" "with classes and without" "$TMP/$1.apart.stats" \
		"$TMP/$1.warm.stats" "< apart, > classes"
	echo "$TEST_NAME: $1: $n frames read as another (${m:-0} with classes of lines)"
}
[ -s "$TMP/gen.data" ] && check gen
grep -q '^inlines;main;run;mix;scale' "$TMP/gen.ref.folded" && ok ||
	bad "gen has no inlined frames: $(head -3 "$TMP/gen.ref.folded")"

if perf_can_record "skipping the recorded part"; then
	if perf record -q -g -e cpu-clock:u -o "$TMP/rec.data" -- "$P" 50000000 >/dev/null \
		2>"$TMP/rec.err"; then
		check rec
	else
		bad "perf record failed: $(head -3 "$TMP/rec.err")"
	fi
fi
finish
