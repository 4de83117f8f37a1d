#!/bin/sh
# Speedscope's profiles are formatted in pieces of up to 65,536 items on worker threads: a
# profile of many items is cut into several pieces, and many small profiles share one piece.
# Made here: 3,000 threads of 30 samples (two stacks taking turns, so each sample is a run of
# its own) and one thread of 70,000; 160,000 items in all. Checked: -j 1 and -j 3 write the same
# bytes, and every profile holds its samples, in order, with their weights and their sum.
# usage: sh tests/cli/speedscope_pieces.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

PY=/usr/bin/python3
in=$TMP/pieces.perf.txt
awk 'BEGIN {
	t = 1
	for (tid = 1; tid <= 3001; tid++) {
		n = tid == 3001 ? 70000 : 30
		for (i = 0; i < n; i++) {
			printf "app %d/%d [000] %d.%06d: %d cpu-clock:\n", 1, tid, t / 1000000,
				t % 1000000, 1 + i % 7
			t++
			if (i % 2)
				print "\t401100 b+0x1 (/bin/app)"
			else
				print "\t401000 a+0x1 (/bin/app)"
			print "\t400500 main+0x5 (/bin/app)"
			print ""
		}
	}
}' >"$in"

expect 0 "speedscope -j 1" -j 1 -f speedscope -o "$TMP/j1.json" "$in"
expect 0 "speedscope -j 3" -j 3 -f speedscope -o "$TMP/j3.json" "$in"
same "-j 1 and -j 3" "$TMP/j1.json" "$TMP/j3.json"

if [ ! -x "$PY" ]; then
	[ "${CI:-}" = true ] && bad "python3 missing"
	finish
fi
if "$PY" - "$TMP/j1.json" <<'EOF'; then ok; else bad "speedscope: the profiles' samples are not as written"; fi
import json, sys

doc = json.load(open(sys.argv[1]))
names = [f["name"] for f in doc["shared"]["frames"]]
profiles = doc["profiles"]
assert len(profiles) == 3001, len(profiles)
for k, prof in enumerate(profiles):
    n = 70000 if k == 3000 else 30
    samples, weights = prof["samples"], prof["weights"]
    assert len(samples) == n and len(weights) == n, (k, len(samples), len(weights))
    for i, (stack, w) in enumerate(zip(samples, weights)):
        want = ["main", "b" if i % 2 else "a"]
        assert [names[f] for f in stack] == want, (k, i, stack)
        assert w == 1 + i % 7, (k, i, w)
    assert prof["endValue"] == sum(weights), (k, prof["endValue"])
EOF
finish
