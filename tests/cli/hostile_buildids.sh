#!/bin/sh
# Hostile build-ids: in a --buildids FILE (`perf buildid-list` lines "HEX PATH") and in
# PERF_RECORD_MMAP2 lines (perf record --buildid-mmap prints "<HEX>" where "maj:min ino gen" was).
#   --buildids lines whose id is not hex, has an odd number of digits, is empty or is longer
#   than 128 digits (64 bytes), and a line without "ID PATH": each a warning naming FILE:LINE,
#   counted in --stats ("warnings: N"), the line skipped; the valid lines around them still
#   count (their modules are searched: "no file", not "no build-id known"), a short id padded
#   to 40 columns as perf prints lld's 8-byte ones included; --strict exits 1
#   naming the first bad line. The id itself is never printed (untrusted text).
#   MMAP2 ids the reader takes (16 or more hex digits) that are odd or too long: a warning
#   naming the mapped file; the mapping's frames count as "no build-id known". "<not hex>" is
#   not a build-id for the reader: the same count, no warning.
# usage: sh tests/cli/hostile_buildids.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

hex40=0123456789abcdef0123456789abcdef01234567
odd41=${hex40}8
long130=$(printf '%0130d' 1)
long128=$(printf '%0128d' 1)
in=$TMP/in.perf.txt
ids=$TMP/ids.txt

# An MMAP2 line with build-id ID for /nonexistent/LIB.
mmap2() {
	printf 'prog  100   1.000000: PERF_RECORD_MMAP2 100/100: [0x400000(0x1000) @ 0 <%s>]: r-xp /nonexistent/%s\n' "$1" "$2"
}
{
	mmap2 "$odd41" lib-odd.so
	mmap2 "$long130" lib-long.so
	mmap2 "$hex40" lib-good.so
	mmap2 "zz$hex40" lib-nothex.so
	printf 'prog   100     1.000100:     1000 cpu-clock: \n'
	for lib in odd long good nothex f1 f2 f3 f4 f5 f6 f7 f8; do
		printf '\t            1234 [unknown] (/nonexistent/lib-%s.so)\n' "$lib"
	done
	printf '\n'
} >"$in"
{
	echo "zz$hex40 /nonexistent/lib-f1.so"
	echo "abc /nonexistent/lib-f1.so"
	echo " /nonexistent/lib-f1.so"
	echo "$long130 /nonexistent/lib-f1.so"
	echo "no-space-here"
	echo "$hex40 /nonexistent/lib-f2.so"
	echo ""
	echo "$(echo "$hex40" | tr a-f A-F) /nonexistent/lib-f3.so"
	echo "$long128 /nonexistent/lib-f4.so"
	printf '%s /nonexistent/lib-f5.so\r\n' "$hex40"
	printf '0x%s /nonexistent/lib-f6.so\n' "$hex40"
	printf '%s\t/nonexistent/lib-f7.so\n' "$hex40"
	printf '%-40s /nonexistent/lib-f8.so\n' 0123456789abcdef # lld's 8 bytes, padded as perf does
} >"$ids"

# stats_has WHAT LIB REASON: the --stats line of /nonexistent/LIB ends with REASON.
stats_has() {
	stderr_has "$1" "^  /nonexistent/$2: 0 resolved, 1 unresolved.*$3"
}
no_id='1 not tried: no build-id known'

expect 0 "--buildids with bad lines" --stats --buildids "$ids" -o "$TMP/a.folded" "$in" || finish
n=0
for line in 1:'not hex' 2:'an odd number of hex digits' 3:'empty' \
	4:'longer than 128 hex digits' 11:'not hex'; do
	stderr_has "ids.txt line ${line%%:*}" \
		"^trace2flame: warning: $ids:${line%%:*}: build-id refused \\(${line#*:}: want 2 to 128 hex digits, an even number\\); line skipped$"
	n=$((n + 1))
done
for line in 5 12; do
	stderr_has "ids.txt line $line" "^trace2flame: warning: $ids:$line: expected \"BUILD-ID PATH\"$"
	n=$((n + 1))
done
stderr_has "MMAP2 odd id" "^trace2flame: warning: /nonexistent/lib-odd\\.so: the trace's build-id for this mapping refused \\(an odd number of hex digits: "
stderr_has "MMAP2 long id" "^trace2flame: warning: /nonexistent/lib-long\\.so: the trace's build-id for this mapping refused \\(longer than 128 hex digits: "
# 5 bad ids + 2 lines without "ID PATH" + 2 MMAP2 ids; nothing else warns
stderr_has "warnings counted" "^  warnings: $((n + 2))$"
c=$(grep -c 'warning: ' "$TMP/err")
if [ "$c" -eq $((n + 2)) ]; then ok; else bad "$c warnings printed, want $((n + 2))"; fi
if grep -q "zz$hex40\\|$long130\\|$odd41" "$TMP/err"; then bad "an untrusted id was printed"; else ok; fi
stats_has "odd MMAP2 id: no id" lib-odd.so "$no_id"
stats_has "long MMAP2 id: no id" lib-long.so "$no_id"
stats_has "non-hex MMAP2 id: no id" lib-nothex.so "$no_id"
stats_has "good MMAP2 id: searched" lib-good.so "no file 1$"
stats_has "only bad lines: no id" lib-f1.so "$no_id"
stats_has "good line after bad ones: searched" lib-f2.so "no file 1$"
stats_has "uppercase hex: searched" lib-f3.so "no file 1$"
stats_has "128 hex digits: searched" lib-f4.so "no file 1$"
stats_has "CRLF line: searched" lib-f5.so "no file 1$"
stats_has "0x prefix: no id" lib-f6.so "$no_id"
stats_has "tab separator (not perf's): no id" lib-f7.so "$no_id"
stats_has "a short id padded to 40 columns: searched" lib-f8.so "no file 1$"
file_has "the output" "$TMP/a.folded" '^prog;.*\[lib-odd\.so\] 1000$'

expect 1 "--strict with bad --buildids lines" --strict --buildids "$ids" -o "$TMP/b.folded" "$in" &&
	stderr_has "--strict names the first bad line or mapping" \
		"^trace2flame: (/nonexistent/lib-odd\\.so|$ids:1): "
if [ -e "$TMP/b.folded" ]; then bad "--strict wrote an output"; else ok; fi

# Only good ids: the modules without an id, and the one whose id names no file, said apart.
grep -v 'lib-odd\|lib-long\|lib-nothex' "$in" >"$TMP/good.perf.txt"
printf '%s /nonexistent/lib-f1.so\n' "$hex40" >"$TMP/good-ids.txt"
expect 0 "good ids only" --strict --buildids "$TMP/good-ids.txt" -o "$TMP/c.folded" \
	"$TMP/good.perf.txt"
stderr_has "good ids only: frames without an id" \
	"^trace2flame: warning: $TMP/good.perf.txt: 7 frames of 7 modules not named: the recording has no build-id"
stderr_has "good ids only: frames looked up" \
	"^trace2flame: warning: $TMP/good.perf.txt: 2 of 2 frames looked up stayed unnamed "
if [ "$(grep -c 'warning' "$TMP/err")" -eq 2 ]; then ok; else bad "good ids only: two warnings"; fi

finish
