#!/bin/sh
# The heat map (-f heatmap, OUT.heatmap.svg) without a recording (tests/heatmap/recorded.sh has
# one): inputs without times are refused before any output is made; every cell's --time of the
# fixture burner.perf.txt (and every 10th of a shipped .nettrace) selects exactly that cell's
# samples, and the cells hold every sample;
# parser threads give the same bytes; a few samples years apart are refused quickly with a
# message (the histogram is sparse: no grid of the span is made), a span within the limit draws
# only the cells with samples; --heatmap-rows; names from the input escaped; well-formed XML
# (xmllint, when installed).
# usage: sh tests/cli/heatmap.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

# xml F: F is well-formed XML (when xmllint is installed)
xml() {
	command -v xmllint >/dev/null 2>&1 || return 0
	if xmllint --noout "$1" 2>"$TMP/xml"; then ok; else bad "$1: $(head -n 3 "$TMP/xml")"; fi
}

# sample SECONDS [EVENT]: one perf script sample at SECONDS ("S.UUUUUU")
sample() {
	printf 'burner  6279 %s:    1000 %s: \n\tffffffff8226e398 spin+0x8 ([kernel.kallsyms])\n\n' \
		"$1" "${2:-cpu-clock}"
}

# --- inputs without times ------------------------------------------------------------------------
echo keep >"$TMP/old.heatmap.svg"
expect 1 "folded stacks" counts.folded.txt -o "$TMP/old.heatmap.svg" &&
	stderr_has "folded: names the input and says why" \
		"counts\.folded\.txt: the heat map needs samples with times.*folded stacks carry no times"
same "folded: the existing output is untouched" "$TMP/old.heatmap.svg" - <<EOF2
keep
EOF2
expect 1 "folded stacks, -f heatmap on stdout" counts.folded.txt -f heatmap
[ -s "$TMP/out" ] && bad "folded: something written on stdout" || ok
expect 1 "perf script text without times" notime/burner.comm-tid.perf.txt -f heatmap -o \
	"$TMP/nt.heatmap.svg" && stderr_has "no time field: says why" "needs samples with times"
[ -e "$TMP/nt.heatmap.svg" ] && bad "no time field: an output was made" || ok

# --- the fixtures: cells against --time -----------------------------------------------------------
# feedback NAME INPUT SVG EVERY: each EVERY-th cell's --time gives that cell's count of INPUT
feedback() {
	sed -n 's/^.*<title>[0-9]*\.[0-9]* s to [0-9.]* s: \([0-9]*\) sample.*/\1/p' "$3" >"$TMP/counts"
	sed -n 's/^--time \([0-9.,]*\)<\/title>.*/\1/p' "$3" >"$TMP/ranges"
	if [ "$(wc -l <"$TMP/ranges")" -lt 2 ] ||
		[ "$(wc -l <"$TMP/counts")" -ne "$(wc -l <"$TMP/ranges")" ]; then
		bad "$1: $(wc -l <"$TMP/counts") cell counts, $(wc -l <"$TMP/ranges") --time" \
			"lines (want 2 or more, equal)"
	fi
	paste -d' ' "$TMP/ranges" "$TMP/counts" | awk -v n="$4" 'NR % n == 1 || n == 1' |
		while read -r range want; do
			got=$(t2f "$2" -q --time "$range" -f collapsed --weight samples |
				awk '{ s += $NF } END { print s + 0 }')
			[ "$got" = "$want" ] || echo "--time $range: $got samples, the cell says $want"
		done >"$TMP/feedback"
	if [ -s "$TMP/feedback" ]; then bad "$1: cells' --time:" && head -n 5 "$TMP/feedback"; else ok; fi
}
expect 0 "burner.perf.txt" burner.perf.txt -q -o "$TMP/b.heatmap.svg"
xml "$TMP/b.heatmap.svg"
feedback burner burner.perf.txt "$TMP/b.heatmap.svg" 1
[ "$(wc -l <"$TMP/counts")" -ge 10 ] && ok || bad "burner: $(wc -l <"$TMP/counts") cells (want 10 or more)"
all=$(t2f burner.perf.txt -q -f collapsed --weight samples | awk '{ s += $NF } END { print s }')
cells=$(awk '{ s += $1 } END { print s }' "$TMP/counts")
[ "$all" = "$cells" ] && ok || bad "burner: the cells hold $cells samples, the input $all"
T2F_SEGMENT_SIZE=4096 expect 0 "burner -j3" burner.perf.txt -q -j3 -o "$TMP/j3.heatmap.svg" &&
	same "parser threads: the same heat map" "$TMP/b.heatmap.svg" "$TMP/j3.heatmap.svg"
NT=$SRC/fixtures/nettrace/mixed_managed_external_samples.nettrace
expect 0 ".nettrace" "$NT" -q -o "$TMP/nt.heatmap.svg" && feedback nettrace "$NT" "$TMP/nt.heatmap.svg" 10
xml "$TMP/nt.heatmap.svg"

# --- rows -----------------------------------------------------------------------------------------
expect 0 "--heatmap-rows 100" burner.perf.txt -q --heatmap-rows 100 -o "$TMP/r100.heatmap.svg" &&
	file_has "rows of 10 ms" "$TMP/r100.heatmap.svg" '^--time 372\.140000000,372\.149999999<'
xml "$TMP/r100.heatmap.svg"
expect 2 "--heatmap-rows 3" burner.perf.txt --heatmap-rows 3 -f heatmap &&
	stderr_has "--heatmap-rows 3: says what it takes" "heatmap-rows '3'.*1, 2, 4, 5, 10, 20, 25, 50 or 100"
expect 2 "--heatmap-rows 0" burner.perf.txt --heatmap-rows 0 -f heatmap
expect 0 "--heatmap-rows with -f svg" burner.perf.txt --heatmap-rows 10 -f svg &&
	stderr_has "--heatmap-rows with -f svg: warned" "heatmap-rows does nothing for SVG output"

# --- hostile spans --------------------------------------------------------------------------------
{ sample 1.000001; sample 5000.500000; sample 3000000000.250000; } >"$TMP/years.txt"
expect 1 "samples 95 years apart" "$TMP/years.txt" -o "$TMP/y.heatmap.svg" &&
	stderr_has "95 years: refused, --time named" \
		"span 3000000000 seconds \(1 s to 3000000000 s\): a heat map draws at most 10000.*--time"
[ -e "$TMP/y.heatmap.svg" ] && bad "95 years: an output was made" || ok
expect 0 "95 years, cut by --time" "$TMP/years.txt" -q --time 0,6000 -o "$TMP/cut.heatmap.svg" &&
	file_has "95 years, cut: two cells" "$TMP/cut.heatmap.svg" '2 samples over 5000 s'
{ sample 1.000001; sample 9999.990000; } >"$TMP/far.txt"
expect 0 "two samples 9999 s apart" "$TMP/far.txt" -q -o "$TMP/far.heatmap.svg"
n=$(grep -c '<title>' "$TMP/far.heatmap.svg")
size=$(wc -c <"$TMP/far.heatmap.svg")
[ "$n" = 2 ] && [ "$size" -lt 100000 ] && ok ||
	bad "9999 s apart: $n cells drawn, $size bytes (want 2 cells, under 100000 bytes)"
xml "$TMP/far.heatmap.svg"

# --- names from the input are escaped --------------------------------------------------------------
odd="$TMP/a<&'b.txt"
{ sample 2.000001 'ev<&"x>'; sample 2.500000 'ev<&"x>'; } >"$odd"
expect 0 "markup in the names" "$odd" -q -o "$TMP/n.heatmap.svg" &&
	file_has "the event escaped" "$TMP/n.heatmap.svg" '>ev&lt;&amp;&quot;x&gt;: 2 samples' &&
	file_has "the input escaped" "$TMP/n.heatmap.svg" "Heat map: [^<]*a&lt;&amp;'b\.txt<"
xml "$TMP/n.heatmap.svg"
finish
