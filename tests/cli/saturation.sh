#!/bin/sh
# Weights and times that would pass 2^64 - 1 saturate there with a warning, never wrap
# (formats/sat.h), in every reader and writer:
#   - five perf script samples of period 2^63 - 1 (one stack) sum to 18446744073709551615 in
#     folded output (they wrapped to 9223372036854775803), with the warning "capped"; the SVG
#     draws no frame wider than its parent (a title's count never exceeds its parent's); pprof
#     values are never negative (int64: capped at 2^63 - 1, with its own warning);
#   - a 20-digit period (2^64 - 1) is read (it was refused as "unreadable text"), one of 21
#     digits is refused with a warning naming the line;
#   - a time past 2^64 ns (18446744074 s) is left out of pprof's duration (it gave a negative
#     duration_nanos) with a warning;
#   - folded input: 2^64 - 1 plus 1 is 2^64 - 1, and a count over range is taken as 2^64 - 1 with
#     a warning naming the line (it was clamped without a word);
#   - --strict makes each warning an error (exit 1).
# pprof outputs are read by tests/pprof_decode.py (the wire format decoded independently).
# usage: sh tests/cli/saturation.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

MAX=18446744073709551615
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
cd "$TMP" || exit 1

sample() { # TIME PERIOD STACK...: one perf script sample of prog 1/1
	printf 'prog 1/1 %s: %s cpu-clock: \n' "$1" "$2"
	shift 2
	for f in "$@"; do printf '\t400000 %s+0x0 (/bin/prog)\n' "$f"; done
	printf '\n'
}

# --- five samples of 2^63 - 1 --------------------------------------------------------------------
for i in 1 2 3 4 5; do sample "$i.000000" 9223372036854775807 main; done >five.txt
sample 6.000000 1 leaf main >>five.txt
expect 0 "five samples of 2^63-1: folded" five.txt -o five.folded &&
	stderr_has "capped, named" "^trace2flame: warning: five\\.txt: weights summed past $MAX were capped"
printf 'prog;main %s\nprog;main;leaf 1\n' "$MAX" >want.folded
same "five samples of 2^63-1: sums" want.folded five.folded
expect 1 "--strict: capped is an error" --strict five.txt -o strict.folded

expect 0 "five samples: svg" five.txt -o five.svg
# every frame's count (its title) against its parent's (frames come parents first; depth from y)
if "$PY" - five.svg <<'PYEOF'; then
import re, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
frames = ET.parse(sys.argv[1]).getroot().find(".//%sg[@id='frames']" % ns)
stack, n = [], 0
for g in frames:
    count = int(re.search(r" \(([0-9,]+) ", g.find(ns + "title").text).group(1).replace(",", ""))
    y = float(g.find(ns + "rect").get("y"))
    while stack and stack[-1][0] <= y:
        stack.pop()
    if stack and count > stack[-1][1]:
        sys.exit("a frame of %d inside one of %d" % (count, stack[-1][1]))
    if not stack and count != 2**64 - 1:
        sys.exit("root total %d" % count)
    stack.append((y, count))
    n += 1
sys.exit(0 if n == 3 else "%d frames" % n)
PYEOF
	ok
else
	bad "svg: a frame wider than its parent, or a wrong root total"
fi

expect 0 "five samples: pprof" five.txt -o five.pb.gz &&
	stderr_has "pprof int64 warning" "pprof values are signed 64-bit numbers"
if "$PY" "$SRC/tests/pprof_decode.py" five.pb.gz >five.json &&
	"$PY" -c 'import json, sys
p = json.load(open("five.json"))
v = [x for s in p["samples"] for x in s["values"]]
sys.exit(0 if v and min(v) >= 0 and max(v) == 2**63 - 1 else 1)'; then
	ok
else
	bad "pprof: a negative value, or no value capped at 2^63-1"
	cut -c1-300 five.json
fi

# --- periods of 20 and 21 digits --------------------------------------------------------------
sample 1.000000 "$MAX" main >p20.txt
sample 2.000000 123456789012345678901 main >>p20.txt
expect 0 "20- and 21-digit periods" p20.txt -o p20.folded &&
	stderr_has "21 digits refused, line named" "^trace2flame: warning: p20\\.txt:4: "
printf 'prog;main %s\n' "$MAX" >want20.folded
same "20-digit period read exactly" want20.folded p20.folded

# --- a time past 2^64 ns --------------------------------------------------------------------
sample 1.000000 10 main >late.txt
sample 3.000000 10 main >>late.txt
sample 99999999999.000000 10 main >>late.txt
expect 0 "time past 2^64 ns: pprof" late.txt -o late.pb.gz &&
	stderr_has "time past, warned" "^trace2flame: warning: late\\.txt: 1 sample has a time past 2\\^64 ns"
if "$PY" "$SRC/tests/pprof_decode.py" late.pb.gz | grep -q '"duration_nanos": 2000000000,'; then
	ok
else
	bad "pprof duration: want the 2 s of the times that fit"
fi

# --- folded counts ---------------------------------------------------------------------------
printf 'a;b %s\na;b 1\na;c 99999999999999999999999\na;d 18446744073709551614\n' "$MAX" >in.folded
expect 0 "folded: counts past 2^64-1" in.folded -o out.folded &&
	stderr_has "over range, line named" "^trace2flame: warning: in\\.folded:3: count past $MAX" &&
	stderr_has "sum capped" "weights summed past $MAX were capped"
printf 'a;b %s\na;c %s\na;d 18446744073709551614\n' "$MAX" "$MAX" >want.out.folded
same "folded: saturated sums" want.out.folded out.folded
expect 1 "folded: --strict" --strict in.folded -o strict2.folded

finish
