#!/bin/sh
# What messages say when things go wrong:
#   - running out of memory names the input being read ("FILE: out of memory while reading it",
#     not a bare "Cannot allocate memory"), under `ulimit -v` (the normal build only: ASan
#     reserves terabytes of address space);
#   - the summary of suppressed warnings shows the warning's text with "..." for its values,
#     never a raw format string ("%s", "%llu");
#   - control characters of an input (a comm, an event) reach stderr as \xNN;
#   - a count of one reads "1 sample", "1 thread", "1 more warning" (--stats, the summary on a
#     terminal, through script(1) when it is installed, and the suppressed warnings).
# usage: sh tests/cli/messages.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"
cd "$TMP" || exit 1

# --- out of memory ----------------------------------------------------------------------------
if [ -n "${T2F_SANITIZER_LOGS:-}" ]; then
	echo "$TEST_NAME: sanitizer build: the out-of-memory case needs ulimit -v; skipped"
else
	# 300,000 samples with a frame each: about 30 MB of text, far more than 100 MB to convert
	awk 'BEGIN { for (i = 0; i < 300000; i++)
		printf "prog 1/1 %d.000000: 1000 cpu-clock: \n\t%x f%d+0x0 (/bin/prog)\n\n", i, 4194304 + 16 * i, i }' >many.txt
	# shellcheck disable=SC3045 # ulimit -v: dash and bash have it
	(ulimit -v 100000 && exec "$T2F_BIN" -j 1 many.txt -o many.folded) >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 1 ]; then ok; else bad "out of memory: exit $rc, want 1"; fi
	stderr_has "out of memory names the input" "^trace2flame: many\\.txt: out of memory while reading it$"
fi

# --- suppressed warnings (a --kallsyms file with 8 bad lines: "...: %s; line skipped") -------
printf 'ffffffff81000000 T _stext\n' >kallsyms
for i in 1 2 3 4 5 6 7 8; do printf 'zz%d T bad\n' "$i"; done >>kallsyms
printf 'prog 1/1 1.000000: 1000 cpu-clock: \n\tffffffff81000010 [unknown] ([kernel.kallsyms])\n\n' >k.txt
expect 0 "suppressed warnings" --kallsyms kallsyms k.txt -o k.folded &&
	stderr_has "a summary" "^trace2flame: warning: 3 more warnings like: " &&
	if grep 'more warnings like' "$TMP/err" | grep -q '%'; then
		bad "the summary shows a format string: $(grep 'more warnings like' "$TMP/err")"
	else
		ok
	fi

# --- counts of one -------------------------------------------------------------------------
printf 'prog 1/1 1.000000: 1000 cpu-clock: \n\t400000 main+0x0 (/bin/prog)\n\n' >one.txt
expect 0 "one sample: --stats" --stats one.txt -o one.folded &&
	stderr_has "one sample: --stats" "^  event cpu-clock \\(written\\): 1 sample, weight 1000 ns$"
if command -v script >/dev/null 2>&1; then
	script -qec "'$T2F_BIN' one.txt -o one.json" /dev/null >tty.out 2>&1
	if grep -q "trace2flame: wrote one\\.json: 1 sample of cpu-clock, 1 thread, [0-9]* bytes in" \
		tty.out; then
		ok
	else
		bad "one sample: the summary on a terminal: $(cat tty.out)"
	fi
else
	echo "$TEST_NAME: script(1) not found (Debian bsdutils): the summary on a terminal skipped"
fi
head -7 kallsyms >kallsyms6
expect 0 "one suppressed warning" --kallsyms kallsyms6 k.txt -o k.folded &&
	stderr_has "one suppressed warning" "^trace2flame: warning: 1 more warning like: "

# --- control characters -----------------------------------------------------------------------
printf 'pr\033[2Jog 1/1 1.000000: 1000 ev\033]0;x\007ent: \n\t400000 main+0x0 (/bin/pr\033[31mog)\n\n' >esc.txt
printf 'prog 1/1 2.000000: 1000 cpu-clock: \n\t400000 main+0x0 (/bin/prog)\n\n' >>esc.txt
expect 0 "control characters" --stats --resymbolize esc.txt -o esc.folded &&
	stderr_has "event shown as \\xNN" "ev\\\\x1b\\]0;x\\\\x07ent" &&
	if tr -d '\n' <"$TMP/err" | LC_ALL=C grep -q '[[:cntrl:]]'; then
		bad "stderr holds a control character"
	else
		ok
	fi

finish
