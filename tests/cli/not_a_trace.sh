#!/bin/sh
# An input in which nothing is a sample fails (exit 1, no output written), in one message that
# names what the input is and what trace2flame reads, with no warning before it: a text file,
# trace2flame's own speedscope JSON and SVG outputs (its pprof is read), a program (an ELF file: "record it
# with perf record"), standard input, a long text (decided on its first lines, not line by
# line), perf script text whose every sample is unreadable (after its warnings). An empty input
# or perf script text without samples is still a warning only; --each goes on with the others.
# usage: sh tests/cli/not_a_trace.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

READS="trace2flame reads perf.data files, perf script text, folded stacks, .nettrace traces and pprof profiles (plain, gzip or zstd)"

# refused WHAT WANT ARGS...: exit 1, stderr exactly WANT, the output $TMP/out.* not written
refused() {
	_rwhat=$1 _rwant=$2
	shift 2
	expect 1 "$_rwhat" "$@" || return 1
	if [ "$(cat "$TMP/err")" = "$_rwant" ]; then ok; else
		bad "$_rwhat: stderr is not exactly: $_rwant"
		show_err
	fi
	if ls "$TMP"/out.* >/dev/null 2>&1; then bad "$_rwhat: an output was written"; else ok; fi
}

printf 'hello world\nsome notes\n' >"$TMP/notes.txt"
refused "a text file" "trace2flame: $TMP/notes.txt: not a trace: it is plain text (its first line: \"hello world\"). $READS" \
	"$TMP/notes.txt" -o "$TMP/out.folded"
refused "a text file on standard input" "trace2flame: <stdin>: not a trace: it is plain text (its first line: \"hello world\"). $READS" \
	- -o "$TMP/out.svg" <"$TMP/notes.txt"

# trace2flame's own outputs
expect 0 "the outputs to read back" burner.perf.txt -o "$TMP/b.speedscope.json"
expect 0 "the outputs to read back" burner.perf.txt -o "$TMP/b.svg"
expect 0 "the outputs to read back" burner.perf.txt -o "$TMP/b.pb.gz"
refused "speedscope JSON" "trace2flame: $TMP/b.speedscope.json: not a trace: it is speedscope JSON, which trace2flame writes but does not read. $READS" \
	"$TMP/b.speedscope.json" -o "$TMP/out.folded"
refused "an SVG" "trace2flame: $TMP/b.svg: not a trace: it is an SVG image (a flame graph is an output, not an input). $READS" \
	"$TMP/b.svg" -o "$TMP/out.svg"
expect 0 "pprof is read (tests/cli/pprof_input.sh)" "$TMP/b.pb.gz" -o "$TMP/read.folded"

# a program: trace2flame itself (a position-independent executable, ET_DYN)
refused "a program" "trace2flame: $T2F_BIN: not a trace: it is an ELF executable or shared library, a program and not a recording of one: record it with \`perf record -g -- $T2F_BIN\`, then convert the perf.data file that writes. $READS" \
	"$T2F_BIN" -o "$TMP/out.folded"

# 2000 lines, none perf script: said after its first lines, with no warning
awk 'BEGIN { for (i = 0; i < 2000; i++) print "line " i " of a log" }' >"$TMP/log.txt"
refused "a long text" "trace2flame: $TMP/log.txt: not a trace: it is plain text (its first line: \"line 0 of a log\"). $READS" \
	"$TMP/log.txt" -o "$TMP/out.folded"
gzip -c "$TMP/log.txt" >"$TMP/log.txt.gz"
refused "a long text, gzip'd" "trace2flame: $TMP/log.txt.gz: not a trace: it is plain text (its first line: \"line 0 of a log\"). $READS" \
	"$TMP/log.txt.gz" -o "$TMP/out.folded"

# perf script text (a side record with a time) whose samples are all unreadable: the warnings,
# then the verdict
{
	printf 'prog 1 1.000000: PERF_RECORD_COMM: prog:1/1\n'
	printf 'prog one 2.0: x\n\tzz\n\nprog two 3.0: x\n\tzz\n\n'
} >"$TMP/bad.perf.txt"
expect 1 "perf script text without a readable sample" "$TMP/bad.perf.txt" -o "$TMP/out.folded"
if [ "$(tail -n 1 "$TMP/err")" = "trace2flame: $TMP/bad.perf.txt: not a trace: none of its 2 samples could be read (see the warnings): it looks like perf script text. $READS" ]; then
	ok
else
	bad "perf script text without a readable sample: the verdict"
	show_err
fi
stderr_has "the warnings before it" "^trace2flame: warning: $TMP/bad\\.perf\\.txt:2: not a perf script sample header"

# not refused: an empty input, perf script text with no samples (a warning each, exit 0)
: >"$TMP/empty.txt"
expect 0 "an empty input" "$TMP/empty.txt" -o "$TMP/e.folded"
printf '# ========\n# captured on    : Thu Nov 28 10:00:00 2026\n# ========\n#\n' >"$TMP/header.txt"
expect 0 "a perf script header without samples" "$TMP/header.txt" -o "$TMP/h.folded" &&
	stderr_has "no samples: said" "^trace2flame: warning: $TMP/header\\.txt: no samples in the input"

# --each: the others are converted, exit 1
mkdir "$TMP/each"
expect 1 "--each with a text file" --each -o "$TMP/each" "$TMP/notes.txt" burner.perf.txt
if [ -s "$TMP/each/burner.perf.folded" ] && [ ! -e "$TMP/each/notes.folded" ]; then ok; else
	bad "--each: burner.perf.folded written, notes.folded not: $(ls "$TMP/each" | tr '\n' ' ')"
fi

finish
