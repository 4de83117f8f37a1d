#!/bin/sh
# The heat map (-f heatmap) of a recording made here against an independent count: perf record
# -e cpu-clock of tests/heatmap/burst.c (3 bursts of 300 ms of spinning, 700 ms of sleep between
# them), then
#  - the oracle: `perf script -F time --ns` times bucketed by awk into (second, 20 ms row) and
#    counted; the heat map's cells (their <title>s: start and sample count) from the perf.data
#    route, from the ns text (one thread, and parser threads with tiny segments: the histogram's
#    merge) and with --heatmap-rows 10 (bucketed by 100 ms) must be those counts exactly;
#  - every cell's --time START,STOP fed back to trace2flame -f collapsed --weight samples must
#    sum to that cell's count (its samples, no more, no fewer);
#  - the bursts show: the cells with samples make 3 runs, each at most 500 ms long;
#  - well-formed XML (xmllint, Debian libxml2-utils, when installed).
# Skipped (with a message) when perf is missing or may not record.
#
# usage: sh tests/heatmap/recorded.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
need_perf_record
CC=${CC:-cc}
if ! $CC -O1 -g -o "$TMP/burst" "$SRC/tests/heatmap/burst.c"; then
	bad "cannot build tests/heatmap/burst.c"
	finish
fi
D=$TMP/b.data
if ! perf record -q -e cpu-clock -F 999 -g -o "$D" -- "$TMP/burst" 3 300 700 >"$TMP/rec" 2>&1
then
	bad "perf record failed: $(head -3 "$TMP/rec")"
	finish
fi
perf script --ns -i "$D" 2>/dev/null >"$TMP/ns.txt"
perf script -F time --ns -i "$D" 2>/dev/null >"$TMP/times"

# oracle ROWS: "SECOND ROW COUNT" lines, sorted, from the printed ns times
oracle() {
	awk -v rows="$1" '{
		t = $1; sub(/:$/, "", t)
		if (t !~ /^[0-9]+\.[0-9]+$/) next
		split(t, p, ".")
		if (length(p[2]) != 9) next
		row = int((p[2] + 0) / (1000000000 / rows))
		n[p[1] + 0 " " row]++
	} END { for (k in n) print k, n[k] }' "$TMP/times" | sort -n -k1,1 -k2,2
}

# cells SVG ROWS: "SECOND ROW COUNT" lines, sorted, from the heat map's tooltips
# ("S.mmm s to S.mmm s: N samples, ...")
cells() {
	sed -n 's/^.*<title>\([0-9]*\)\.\([0-9]\{3\}\) s to [0-9.]* s: \([0-9]*\) sample.*/\1 \2 \3/p' "$1" |
		awk -v rows="$2" '{ print $1, int($2 / (1000 / rows)), $3 }' | sort -n -k1,1 -k2,2
}

oracle 50 >"$TMP/want50"
oracle 10 >"$TMP/want10"
N=$(wc -l <"$TMP/times")
if [ "$N" -lt 20 ]; then
	bad "only $N samples recorded (want 20 or more)"
	finish
fi

t2f "$D" -q -o "$TMP/data.heatmap.svg" || bad "perf.data: trace2flame failed"
t2f "$TMP/ns.txt" -q -j1 -o "$TMP/text.heatmap.svg" || bad "ns text: trace2flame failed"
T2F_SEGMENT_SIZE=4096 t2f "$TMP/ns.txt" -q -j2 -f heatmap -o "$TMP/par.svg" ||
	bad "ns text -j2: trace2flame failed"
t2f "$D" -q --heatmap-rows 10 -o "$TMP/rows10.heatmap.svg" || bad "rows 10: trace2flame failed"
for route in data text par; do
	f=$TMP/$route.heatmap.svg
	[ "$route" = par ] && f=$TMP/par.svg
	cells "$f" 50 >"$TMP/got-$route"
	same_nonempty "$route" "cells and the oracle's counts" "$TMP/want50" "$TMP/got-$route" \
		"< perf script times, > heat map"
done
cells "$TMP/rows10.heatmap.svg" 10 >"$TMP/got10"
same_nonempty rows10 "cells and the oracle's counts" "$TMP/want10" "$TMP/got10" \
	"< perf script times, > heat map"

# every cell's --time gives exactly its samples
sed -n 's/^.*<title>[0-9]*\.[0-9]* s to [0-9.]* s: \([0-9]*\) sample.*/\1/p' \
	"$TMP/data.heatmap.svg" >"$TMP/counts"
sed -n 's/^--time \([0-9.,]*\)<\/title>.*/\1/p' "$TMP/data.heatmap.svg" >"$TMP/ranges"
if [ "$(wc -l <"$TMP/counts")" -ne "$(wc -l <"$TMP/ranges")" ] || [ ! -s "$TMP/ranges" ]; then
	bad "the cells' titles: $(wc -l <"$TMP/counts") counts, $(wc -l <"$TMP/ranges") --time lines"
fi
paste -d' ' "$TMP/ranges" "$TMP/counts" | while read -r range want; do
	got=$(t2f "$D" -q --time "$range" -f collapsed --weight samples |
		awk '{ s += $NF } END { print s + 0 }')
	[ "$got" = "$want" ] || echo "--time $range: $got samples, the cell says $want"
done >"$TMP/feedback"
if [ -s "$TMP/feedback" ]; then
	bad "cells' --time arguments:"
	head -5 "$TMP/feedback"
else
	ok
fi

# the bursts: the cells with samples make 3 runs (split by more than 500 ms without a sample),
# each at most 500 ms long (300 ms of spinning, and the program's start before the first):
# where the samples fall is the wall clock's, whatever share of the CPU the program got
runs=$(awk '{ k = $1 * 50 + $2
	if (NR == 1 || k - last > 25) { r++; first = k }
	if (k - first > 25) long++
	last = k } END { print r + 0, long + 0 }' "$TMP/want50")
if [ "$runs" = "3 0" ]; then
	ok
else
	bad "the bursts: $runs (want 3 runs of cells with samples, 0 cells past 500 ms of a run)"
fi

if command -v xmllint >/dev/null 2>&1; then
	for f in "$TMP/data.heatmap.svg" "$TMP/rows10.heatmap.svg"; do
		if xmllint --noout "$f" 2>"$TMP/xml"; then ok; else bad "$f: $(head -3 "$TMP/xml")"; fi
	done
else
	echo "$TEST_NAME: xmllint not found (Debian libxml2-utils): skipping the XML checks"
fi
finish
