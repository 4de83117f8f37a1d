#!/bin/sh
# What perf lost while recording is said without --stats, in perf report's numbers:
#   - perf script text with --show-lost-events (fixtures/perf-script/lost/, a real recording):
#     its PERF_RECORD_LOST lines, counted here by awk, are the chunks and events of the warning;
#     perf report said "lost 2 chunks" and "Total Lost Samples: 43" for that recording;
#   - perf.data (tests/perf_data_gen.py): LOST and LOST_SAMPLES records; where perf is installed,
#     `perf report` on the same file gives the numbers the warning must show;
#   - a perf.data whose samples were all lost: the loss is said, then "no samples";
#   - -q says nothing of it; --stats has a line for it.
# usage: sh tests/cli/lost.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

ADVICE=": perf could not keep up, and the profile lacks them; a larger buffer (perf record -m) or a lower frequency (-F) loses fewer"
# stderr_line WHAT LINE: stderr has LINE, whole and exact
stderr_line() {
	if grep -qxF -- "$2" "$TMP/err"; then ok; else bad "$1: no line '$2'"; show_err; fi
}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# --- perf script text ---------------------------------------------------------------------------
in=lost/burner.lost.perf.txt.zst
zstd -dc "$in" >"$TMP/lost.txt" || bad "zstd -dc $in"
set -- $(awk '/ PERF_RECORD_LOST lost / { n++; s += $NF } END { print n + 0, s + 0 }' "$TMP/lost.txt")
chunks=$1 events=$2
if [ "$chunks" -eq 2 ] && [ "$events" -eq 43 ]; then ok; else
	bad "the fixture's LOST lines: $chunks chunks, $events events (perf report: 2 chunks, 43)"
fi
expect 0 "text with lost events" "$in" -o "$TMP/t.folded" &&
	if [ "$(cat "$TMP/err")" = "trace2flame: warning: $in: the recording lost $chunks chunks ($events events)$ADVICE" ]; then
		ok
	else
		bad "text with lost events: stderr is not the warning alone"
		show_err
	fi
T2F_SEGMENT_SIZE=4096 expect 0 "the same text, uncompressed, -j 3 in small segments" \
	"$TMP/lost.txt" -o "$TMP/t3.folded" -j 3
stderr_has "-j 3: the same numbers" "lost $chunks chunks \\($events events\\)"
same "-j 3: the same output" "$TMP/t.folded" "$TMP/t3.folded"
expect 0 "-q" -q "$in" -o "$TMP/t.folded"
if [ -s "$TMP/err" ]; then bad "-q: stderr: $(head -n 1 "$TMP/err")"; else ok; fi
expect 0 "--stats" --stats "$in" -o "$TMP/t.folded" &&
	stderr_has "--stats: the lost line" \
		"^    lost while recording: 0 samples \\(LOST_SAMPLES records\\), $events events in $chunks LOST records$"

# --- perf.data ----------------------------------------------------------------------------------
# 3 samples; LOST records of 7 and 30 events; a LOST_SAMPLES record of 37
if ! "$PY" -c 'import sys
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
m = [(b"/bin/prog", 0x400000, 5)]
s = [(10, [0x401000, 0x401100]), (20, [0x401010]), (30, [0x401020])]
open(sys.argv[2], "wb").write(g.perf_data(b"prog", b"page-faults", m, s, lost=(7, 30),
    lost_samples=((37, 0),)))
open(sys.argv[3], "wb").write(g.perf_data(b"prog", b"page-faults", m, [], lost=(5,)))' \
	"$SRC/tests" "$TMP/lost.data" "$TMP/all-lost.data"; then
	bad "perf_data_gen could not write the perf.data inputs"
	finish
fi
expect 0 "perf.data with lost records" -q --stats "$TMP/lost.data" -o "$TMP/d.folded" &&
	stderr_has "perf.data: --stats" \
		"^    lost while recording: 37 samples \\(LOST_SAMPLES records\\), 37 events in 2 LOST records$"
expect 0 "perf.data with lost records" "$TMP/lost.data" -o "$TMP/d.folded" &&
	stderr_line "perf.data: the warning" \
		"trace2flame: warning: $TMP/lost.data: the recording lost 37 of 40 samples (92.5%) and 2 chunks (37 events)$ADVICE"
# perf report on the same file: "lost N chunks", "Total Lost Samples: N"
if command -v perf >/dev/null 2>&1 && perf report -i "$TMP/lost.data" --stdio >"$TMP/perf.out" 2>&1; then
	pchunks=$(sed -n 's/.*and lost \([0-9]*\) chunks!.*/\1/p' "$TMP/perf.out" | head -n 1)
	psamples=$(sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p' "$TMP/perf.out")
	if [ "$pchunks" = 2 ] && [ "$psamples" = 37 ]; then ok; else
		bad "perf report: lost ${pchunks:-?} chunks, Total Lost Samples ${psamples:-?}; trace2flame: 2, 37"
	fi
else
	echo "$TEST_NAME: perf report not available here: its numbers not compared"
fi
expect 0 "every sample lost" "$TMP/all-lost.data" -o "$TMP/a.folded" &&
	if [ "$(cat "$TMP/err")" = "trace2flame: warning: $TMP/all-lost.data: the recording lost 1 chunk (5 events)$ADVICE
trace2flame: warning: $TMP/all-lost.data: no samples in the input: the output is empty" ]; then
		ok
	else
		bad "every sample lost: not the two warnings"
		show_err
	fi

finish
