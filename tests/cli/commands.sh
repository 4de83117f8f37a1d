#!/bin/sh
# The subcommands (diff, symbols, resolve, collect) on the command line:
#   - options given before a subcommand's name are the subcommand's: `trace2flame -q diff A B`
#     is `trace2flame diff -q A B` (options that take an argument, given apart or not, skipped
#     as getopt reads them: `-o diff` names an output, `--` ends the options); `resolve` gets
#     those it shares (the same output as with them after the name), and an option a command
#     does not take is its usage error
#   - --help and the man page's SYNOPSIS list every subcommand
# usage: sh tests/cli/commands.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

in=burner.perf.txt

# --- options before the subcommand -------------------------------------------------------------
expect 0 "diff -q A B" diff -q "$in" "$in" -o "$TMP/after.svg"
expect 0 "-q diff A B" -q diff "$in" "$in" -o "$TMP/before.svg" &&
	if [ -s "$TMP/err" ]; then bad "-q diff: stderr: $(head -n 1 "$TMP/err")"; else ok; fi
same "-q diff: the same graph" "$TMP/after.svg" "$TMP/before.svg"
expect 0 "--title T -o OUT -j 2 diff A B" --title T -o "$TMP/titled.svg" -j 2 diff "$in" "$in"
file_has "--title before diff reached it" "$TMP/titled.svg" '<text id="title"[^>]*>T</text>'
expect 0 "--output=OUT -jN --hash diff A B" --output="$TMP/eq.svg" -j2 --hash diff "$in" "$in"
[ -s "$TMP/eq.svg" ] && ok || bad "--output=OUT before diff: no output"
expect 2 "an option diff does not take, before diff" --each diff "$in" "$in" -o "$TMP/x.svg" &&
	stderr_has "--each before diff: diff's usage error" \
		"^trace2flame: diff: --each does not apply to a differential graph$"
# an option's argument is not a subcommand: "-o diff" names the output file "diff"
(cd "$TMP" && t2f -f collapsed -o diff "$FX/$in" "$FX/$in") >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && [ -s "$TMP/diff" ]; then ok; else bad "-o diff: exit $rc, or no file named diff"; fi
expect 3 "after --, diff is an input" -- diff &&
	stderr_has "after --: an input" "^trace2flame: diff: cannot open"

# collect: -o given before its name is its STORE
mkdir "$TMP/nothing"
expect 0 "-o STORE collect DIR" -o "$TMP/store" collect "$TMP/nothing" &&
	file_has "-o STORE collect DIR: its summary" "$TMP/out" '^files seen: 0$' &&
	if [ -d "$TMP/store" ]; then ok; else bad "-o STORE collect DIR: no STORE made"; fi

# resolve: the conversion's options it shares act before its name as after it; an option of
# the conversion a command does not take is that command's usage error
mkdir "$TMP/dbg"
t2f resolve --offline --debug-dir "$TMP/dbg" "$T2F_BIN" 0x10 >"$TMP/after.txt" 2>&1
rc_after=$?
t2f --offline --debug-dir "$TMP/dbg" resolve "$T2F_BIN" 0x10 >"$TMP/out" 2>&1
rc=$?
if [ "$rc" -eq "$rc_after" ]; then ok; else bad "options before resolve: exit $rc, after: $rc_after"; fi
same "options before resolve" "$TMP/after.txt" "$TMP/out"
expect 2 "-q symbols FILE" -q symbols "$T2F_BIN" &&
	stderr_has "-q symbols: symbols' usage error" "^trace2flame: symbols: unknown option '-q'$"

# --- --help and the man page list every subcommand -------------------------------------------
expect 0 "--help" --help
for line in "Usage: trace2flame [OPTIONS] INPUT... [-o OUTPUT]" \
	"       trace2flame diff [OPTIONS] BEFORE AFTER [-o OUTPUT.svg]" \
	"       trace2flame symbols [--demangle] FILE..." \
	"       trace2flame resolve [OPTIONS] FILE ADDR..." \
	"       trace2flame collect [OPTIONS] DIR|FILE... -o STORE"; do
	if grep -qxF -- "$line" "$TMP/out"; then ok; else bad "--help: no line '$line'"; fi
done
man=$SRC/docs/trace2flame.1
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$man")
for cmd in diff symbols resolve collect; do
	if printf '%s\n' "$synopsis" | grep -qx "\\.B trace2flame $cmd"; then ok; else
		bad "the man page's SYNOPSIS has no '.B trace2flame $cmd'"
	fi
done
if command -v man >/dev/null 2>&1 && MANWIDTH=100 man -l "$man" >"$TMP/man.txt" 2>/dev/null; then
	sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' "$TMP/man.txt" | tr -s ' ' >"$TMP/syn.txt"
	for line in "trace2flame symbols [--demangle] FILE..." "trace2flame resolve [OPTIONS] FILE ADDR..." \
		"trace2flame collect [OPTIONS] DIR|FILE... -o STORE"; do
		if grep -qF -- "$line" "$TMP/syn.txt"; then ok; else
			bad "man: SYNOPSIS does not read '$line'"
			sed 's/^/    /' "$TMP/syn.txt"
		fi
	done
else
	echo "$TEST_NAME: man cannot format the page here: its rendered SYNOPSIS not checked"
fi

finish
