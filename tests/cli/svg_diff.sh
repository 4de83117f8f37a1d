#!/bin/sh
# Differential flame graphs: `trace2flame diff BEFORE AFTER -o OUT.svg`. A profile against itself
# is all white; a hand-made pair of folded inputs gives the expected fills and tooltips (grew red,
# shrank blue, saturation by the change); perf script fixtures diffed against each other are
# well-formed and accepted by tests/validate/check svg when the validators are installed;
# programs of different names are said to share no root, and --ignore-comm compares them;
# usage and input errors exit like the rest of the command line (an output named *.folded too).
# usage: sh tests/cli/svg_diff.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"
find_validators "validator checks skipped" svg browser
# shellcheck source-path=SCRIPTDIR source=svg_checks.sh
. "$(dirname "$0")/svg_checks.sh"

# fills FILE: the distinct frame fills, one per line
fills() {
	grep '^<g><title>' "$1" | sed 's/.* fill="\([^"]*\)".*/\1/' | sort -u
}

# frame FILE NAME: the title and fill of frame NAME, as "TITLE|FILL"
frame() {
	grep "^<g><title>$2 (" "$1" | sed 's/^<g><title>\([^<]*\)<\/title>.* fill="\([^"]*\)".*/\1|\2/'
}

# want WHAT GOT EXPECTED
want() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}

# Self-diff: all white, every change +0.00%
for f in burner.perf.txt multi.perf.txt; do
	expect 0 "self-diff $f" diff -o "$TMP/self.svg" "$f" "$f" || continue
	want "self-diff $f: fills" "$(fills "$TMP/self.svg")" "rgb(255,255,255)"
	if grep '^<g><title>' "$TMP/self.svg" | grep -qv '; +0\.00%)</title>'; then
		bad "self-diff $f: a change that is not +0.00%"
	else ok; fi
done

# A grew from 50% to 75% of the total, b shrank from 50% to 25%; c is new (10 of 100 after).
printf 'p;main;a 50\np;main;b 50\n' >"$TMP/before.folded"
printf 'p;main;a 75\np;main;b 25\n' >"$TMP/after.folded"
printf 'p;main;a 60\np;main;b 30\np;main;c 10\n' >"$TMP/after2.folded"
expect 0 "folded pair" diff "$TMP/before.folded" "$TMP/after.folded" -o "$TMP/d.svg"
want "a grew" "$(frame "$TMP/d.svg" a)" "a (75 samples, 75.00%; before 50 samples, 50.00%; +25.00%)|rgb(255,65,65)"
want "b shrank" "$(frame "$TMP/d.svg" b)" "b (25 samples, 25.00%; before 50 samples, 50.00%; -25.00%)|rgb(65,65,255)"
want "main unchanged" "$(frame "$TMP/d.svg" main)" "main (100 samples, 100.00%; before 100 samples, 100.00%; +0.00%)|rgb(255,255,255)"
want "root" "$(frame "$TMP/d.svg" all)" "all (100 samples, 100%; before 100 samples, 100.00%; +0.00%)|rgb(255,255,255)"
file_has "default title" "$TMP/d.svg" '<text id="title" [^>]*>Differential Flame Graph</text>'
well_formed "folded pair" "$TMP/d.svg"
validate "$TMP/d.svg" a
expect 0 "folded pair again" diff "$TMP/before.folded" "$TMP/after.folded" -o "$TMP/d2.svg"
same "deterministic" "$TMP/d.svg" "$TMP/d2.svg"
expect 0 "folded self-diff" diff "$TMP/after.folded" "$TMP/after.folded" -o "$TMP/fs.svg"
want "folded self-diff: fills" "$(fills "$TMP/fs.svg")" "rgb(255,255,255)"

# Saturation in proportion: c (+10) is the largest change; a (+10) too, b (-20) the largest
expect 0 "new frame" diff "$TMP/before.folded" "$TMP/after2.folded" -o "$TMP/n.svg"
want "b: the largest change" "$(frame "$TMP/n.svg" b)" "b (30 samples, 30.00%; before 50 samples, 50.00%; -20.00%)|rgb(65,65,255)"
want "a: half of it" "$(frame "$TMP/n.svg" a)" "a (60 samples, 60.00%; before 50 samples, 50.00%; +10.00%)|rgb(255,160,160)"
want "c: only in AFTER" "$(frame "$TMP/n.svg" c)" "c (10 samples, 10.00%; before 0 samples, 0.00%; +10.00%)|rgb(255,160,160)"

# --negate: BEFORE's shape, the colours still AFTER against BEFORE
expect 0 "--negate" diff --negate "$TMP/after2.folded" "$TMP/before.folded" -o "$TMP/ng.svg"
want "--negate: c only in BEFORE" "$(frame "$TMP/ng.svg" c)" "c (10 samples, 10.00%; after 0 samples, 0.00%; -10.00%)|rgb(160,160,255)"
want "--negate: b" "$(frame "$TMP/ng.svg" b)" "b (30 samples, 30.00%; after 50 samples, 50.00%; +20.00%)|rgb(255,65,65)"
expect 0 "without --negate, frames only in BEFORE are not drawn" diff "$TMP/after2.folded" "$TMP/before.folded" -o "$TMP/nn.svg"
want "no c" "$(frame "$TMP/nn.svg" c)" ""

# Programs of different names share no root: said; --ignore-comm compares below the name
printf 'q;main;a 60\nq;main;b 40\n' >"$TMP/other.folded"
expect 0 "different programs" diff "$TMP/before.folded" "$TMP/other.folded" -o "$TMP/o.svg"
stderr_has "different programs: said" \
	"^trace2flame: warning: $TMP/before.folded and $TMP/other.folded share no command name, .*; --ignore-comm "
want "different programs: main is new" "$(frame "$TMP/o.svg" main)" "main (100 samples, 100.00%; before 0 samples, 0.00%; +100.00%)|rgb(255,65,65)"
expect 0 "--ignore-comm" diff --ignore-comm "$TMP/before.folded" "$TMP/other.folded" -o "$TMP/ic.svg"
if [ -s "$TMP/err" ]; then bad "--ignore-comm: stderr: $(head -2 "$TMP/err")"; else ok; fi
want "--ignore-comm: main under all" "$(frame "$TMP/ic.svg" main)" "main (100 samples, 100.00%; before 100 samples, 100.00%; +0.00%)|rgb(255,255,255)"
want "--ignore-comm: a" "$(frame "$TMP/ic.svg" a)" "a (60 samples, 60.00%; before 50 samples, 50.00%; +10.00%)|rgb(255,65,65)"
want "--ignore-comm: no command name" "$(frame "$TMP/ic.svg" q)" ""
well_formed "--ignore-comm" "$TMP/ic.svg"
expect 0 "--ignore-comm --negate" diff --ignore-comm --negate "$TMP/before.folded" "$TMP/other.folded" -o "$TMP/icn.svg"
want "--ignore-comm --negate: b" "$(frame "$TMP/icn.svg" b)" "b (50 samples, 50.00%; after 40 samples, 40.00%; -10.00%)|rgb(65,65,255)"

# Folded output of a perf input diffs against the perf input itself as unchanged
expect 0 "perf to folded" -o "$TMP/burner.folded" burner.perf.txt
expect 0 "folded against perf" diff --weight samples "$TMP/burner.folded" burner.perf.txt -o "$TMP/fp.svg"
expect 0 "folded against perf (periods)" diff "$TMP/burner.folded" burner.perf.txt -o "$TMP/fp.svg"
want "folded against perf: fills" "$(fills "$TMP/fp.svg")" "rgb(255,255,255)"

# Perf script fixtures against each other
set -- *.perf.txt
prev=$1
for f in "$@"; do
	out=$TMP/fx-$(basename "$f" .perf.txt).svg
	expect 0 "diff $prev $f" diff -q -o "$out" "$prev" "$f" || { prev=$f; continue; }
	well_formed "diff $prev $f" "$out"
	name=$(grep '^<g><title>' "$out" | sed -n '2s/^<g><title>\(.*\) ([0-9,]* [^ ]*, [0-9.]*%; .*/\1/p')
	[ -n "$name" ] && validate "$out" "$name"
	prev=$f
done

# Errors
expect 2 "no AFTER" diff burner.perf.txt -o "$TMP/x.svg"
stderr_has "no AFTER: message" "diff: no AFTER given"
expect 2 "no inputs" diff -o "$TMP/x.svg"
expect 2 "three inputs" diff burner.perf.txt burner.perf.txt burner.perf.txt -o "$TMP/x.svg"
expect 2 "not SVG" diff -f pprof burner.perf.txt burner.perf.txt -o "$TMP/x.pb.gz"
expect 2 "--flamechart" diff --flamechart burner.perf.txt burner.perf.txt -o "$TMP/x.svg"
expect 2 "--negate outside diff" --negate burner.perf.txt -o "$TMP/x.svg"
expect 2 "--ignore-comm outside diff" --ignore-comm burner.perf.txt -o "$TMP/x.svg"
expect 2 "an output named for another format" diff burner.perf.txt burner.perf.txt -o "$TMP/x.folded" &&
	stderr_has "another format: said" "^trace2flame: diff: writes SVG only: '$TMP/x.folded' names another format; name the output \*\.svg"
if [ -e "$TMP/x.folded" ]; then bad "diff wrote x.folded"; else ok; fi
expect 0 "--colors in a differential graph" diff --colors mem burner.perf.txt burner.perf.txt -o "$TMP/x.svg" &&
	stderr_has "--colors: said" "^trace2flame: warning: --colors does nothing for a differential graph \(its colours show the change\)$"
rm -f "$TMP/x.svg"
expect 3 "unreadable BEFORE" diff "$TMP/missing.perf.txt" burner.perf.txt -o "$TMP/x.svg"
expect 3 "unreadable AFTER" diff burner.perf.txt "$TMP/missing.perf.txt" -o "$TMP/x.svg"
if [ -e "$TMP/x.svg" ]; then bad "a failed diff left an output"; else ok; fi
expect 1 "--event missing" diff --event nosuch burner.perf.txt burner.perf.txt -o "$TMP/x.svg"
expect 0 "diff --help" diff --help
file_has "--help mentions diff" "$TMP/out" 'trace2flame diff \[OPTIONS\] BEFORE AFTER'
finish
