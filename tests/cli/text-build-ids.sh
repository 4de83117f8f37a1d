#!/bin/sh
# perf script text without build-ids: a user frame perf could not name keeps no address, since
# nothing could look it up by one (no --buildids, no --unsafe-build-id-match, no PERF_RECORD_MMAP2
# line with a build-id before it): the frames of a module share one frame, and --stats still
# counts each address not looked up (and --max-frames counts them as the frames they would be).
# A build-id read in the middle of the text gives the frames after it their addresses, the same
# for one thread and for segments read by several.
# usage: sh tests/cli/text-build-ids.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

IN=burner.addrs.perf.txt
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
ID=4ff1b12c1f4a68d964dde3e107bfbafe605df721

# stat NAME FILE: the number after "  NAME: " in a --stats dump.
stat() { sed -n "s/^  $1: \([0-9]*\).*/\1/p" "$2"; }

# the text's frame lines: "ADDR (DSO)", perf having named none
frames_of() { awk '/^\t/ { sub(/^\t */, ""); print }' "$@"; }

# keys [FILE...]: a frame's identity for each frame line: its dso, or with addrs=1 the whole
# line when the dso is a file (the frame keeps its address); kernel and "[unknown]" frames
# share one frame either way (text gives no kallsyms file).
keys() { frames_of "$@" | awk -v addrs="${addrs:-0}" '{ print (addrs && $NF ~ /^\(\//) ? $0 : $NF }'; }

# stats_of FILE: a --stats dump without its timings
stats_of() { grep -Ev '^  (elapsed|time):' "$1"; }

# 1. No build-id: one frame per dso; each libc and burner address counted as not looked up.
expect 0 "no build-id" --stats -q -o "$TMP/a.folded" "$IN"
want=$(keys "$IN" | sort -u | wc -l)
got=$(stat frames "$TMP/err")
[ "$got" = "$want" ] && ok || bad "no build-id: $got frames, want $want (one per dso)"
want=$(frames_of "$IN" | grep ' (/' | sort -u | wc -l)
stderr_has "no build-id: addresses counted" \
	"^frames not looked up \\(no build-id known, or no mapping\\): $want\$"
stats_of "$TMP/err" >"$TMP/one.err"
T2F_SEGMENT_SIZE=777 expect 0 "no build-id, segments" --stats -q -j 3 -o "$TMP/b.folded" "$IN"
same "no build-id, segments: output" "$TMP/a.folded" "$TMP/b.folded"
stats_of "$TMP/err" >"$TMP/par.err"
same "no build-id, segments: stats" "$TMP/one.err" "$TMP/par.err"

# The addresses left out count against --max-frames as the frames they would be (49 here).
for j in "-j 1" "-j 3"; do
	T2F_SEGMENT_SIZE=777 expect 1 "--max-frames 48 $j" -q $j --max-frames 48 -o "$TMP/m.folded" "$IN"
	stderr_has "--max-frames 48 $j: the limit" "more than 48 distinct frames"
	T2F_SEGMENT_SIZE=777 expect 0 "--max-frames 49 $j" -q $j --max-frames 49 -o "$TMP/m.folded" "$IN"
done

# 2. --buildids gives a build-id: file frames keep their addresses, to be looked up.
printf '%s %s\n' "$ID" "$LIBC" >"$TMP/ids"
expect 0 "--buildids" --stats -q --buildids "$TMP/ids" -o "$TMP/c.folded" "$IN"
want=$(addrs=1 keys "$IN" | sort -u | wc -l)
got=$(stat frames "$TMP/err")
[ "$got" = "$want" ] && ok || bad "--buildids: $got frames, want $want (one per address)"
same "--buildids: the same output" "$TMP/a.folded" "$TMP/c.folded"

# 3. A PERF_RECORD_MMAP2 line with libc's build-id after the first half of the samples.
half=$(awk '/^$/ { n++ } n == 60 { print NR; exit }' "$IN")
{
	head -n "$half" "$IN"
	printf 'burner  6279   372.300000: PERF_RECORD_MMAP2 6279/6279: [0x7f5f6ab7c000(0x156000) @ 0x26000 <%s>]: r-xp %s\n\n' "$ID" "$LIBC"
	tail -n +"$((half + 1))" "$IN"
} >"$TMP/mid.txt"
head -n "$half" "$IN" >"$TMP/first"
tail -n +"$((half + 1))" "$IN" >"$TMP/second"
[ "$(grep -c '(/' "$TMP/first")" -gt 0 ] && [ "$(grep -c '(/' "$TMP/second")" -gt 0 ] && ok ||
	bad "build-id midway: file frames on both sides wanted"
expect 0 "build-id midway" --stats -q -j 1 -o "$TMP/d.folded" "$TMP/mid.txt"
got=$(stat frames "$TMP/err")
want=$({ keys "$TMP/first"; addrs=1 keys "$TMP/second"; } | sort -u | wc -l)
[ "$got" = "$want" ] && ok || bad "build-id midway: $got frames, want $want"
same "build-id midway: the same output" "$TMP/a.folded" "$TMP/d.folded"
stats_of "$TMP/err" >"$TMP/one.err"
for seg in 64 777 4096; do
	T2F_SEGMENT_SIZE=$seg expect 0 "build-id midway, segments of $seg" --stats -q -j 3 \
		-o "$TMP/e.folded" "$TMP/mid.txt"
	same "build-id midway, segments of $seg: output" "$TMP/d.folded" "$TMP/e.folded"
	stats_of "$TMP/err" >"$TMP/par.err"
	same "build-id midway, segments of $seg: stats" "$TMP/one.err" "$TMP/par.err"
done
finish
