#!/bin/sh
# A stack of a million frames (made here, 28 MB of perf script text): every format converts it,
# exit 0, no recursion limit met; the folded line holds every frame, root first, and speedscope,
# pprof and SVG outputs are complete. A second sample (main) checks the reader went on after it.
# usage: sh tests/cli/deep_stacks.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

deep=$TMP/deep.perf.txt
awk 'BEGIN {
	print "deep 7 [000] 1.000001: 1 cpu-clock:"
	for (i = 999999; i >= 0; i--) printf "\t%x f%d+0x1 (/bin/deep)\n", 4096 + i, i
	print ""
	print "deep 7 [000] 1.000002: 1 cpu-clock:"
	print "\t401000 main+0x1 (/bin/deep)"
	print ""
}' >"$deep"

expect 0 "folded" -f collapsed -o "$TMP/deep.folded" "$deep"
lines=$(wc -l <"$TMP/deep.folded")
if [ "$lines" -eq 2 ]; then ok; else bad "folded: $lines lines, want 2"; fi
# the deep line: "deep;f0;f1;...;f999999 1" (1,000,001 names), sorted after "deep;main 1"
awk -F';' 'NR == 1 { if (NF != 1000001 || $2 != "f0" || $NF != "f999999 1") exit 1 }
	NR == 2 { if ($0 != "deep;main 1") exit 1 }' "$TMP/deep.folded" && ok ||
	bad "folded: the deep line is not deep;f0;...;f999999 1 then deep;main 1"

for f in speedscope pprof svg; do
	expect 0 "$f" -f "$f" -o "$TMP/deep.$f" "$deep"
done
tail -c 200 "$TMP/deep.speedscope" | grep -q '"weights":\[1,1\]}\]}$' && ok ||
	bad "speedscope: the profile does not end with its two weights"
gzip -t "$TMP/deep.pprof" && ok || bad "pprof: not a whole gzip stream"
tail -c 20 "$TMP/deep.svg" | grep -q '</svg>' && ok || bad "svg: no closing tag"

finish
