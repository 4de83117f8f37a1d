#!/bin/sh
# Atomic output: a failed run leaves an existing output byte-identical and no ".NAME.*" temp file
# behind; a successful run replaces the output whole, with the replaced file's mode (and owner
# and group, where the run may give them), a new one with 0666 & ~umask. An output that is
# one of the inputs (the same file: its name, a symbolic or hard link, another spelling; a
# perf.data input too; either input of `diff`) is refused with exit 2 and the input left as it
# was; an --each output that would land on an input is skipped (exit 1).
# usage: sh tests/cli/atomic_output.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

umask 022
in=burner.perf.txt
d=$TMP/d
mkdir "$d"

# no_temp WHAT: nothing but the named outputs in $d
no_temp() {
	left=
	for f in "$d"/.*; do
		case ${f##*/} in . | .. | '.*') ;; *) left="$left ${f##*/}" ;; esac
	done
	if [ -z "$left" ]; then ok; else bad "$1: temp file left behind: $left"; fi
}

# A failed run must not touch an existing output, whatever made it fail.
for target in a.folded a.speedscope.json; do
	printf 'precious\n' >"$d/$target"
	cp "$d/$target" "$TMP/before"
	expect 1 "binary input into existing $target" -o "$d/$target" bad_binary.txt
	same "existing $target after a bad input" "$TMP/before" "$d/$target"
	no_temp "bad input into $target"
	expect 1 "--event not found into existing $target" --event no-such-event -o "$d/$target" "$in"
	same "existing $target after --event not found" "$TMP/before" "$d/$target"
	no_temp "--event not found into $target"
	expect 3 "missing second input into existing $target" -o "$d/$target" "$in" no-such-file.txt
	same "existing $target after a missing input" "$TMP/before" "$d/$target"
	no_temp "missing input into $target"
	expect 1 "--strict into existing $target" --strict -o "$d/$target" bad_header.txt
	same "existing $target after --strict" "$TMP/before" "$d/$target"
	no_temp "--strict into $target"
done

# A failed run does not create the output either.
expect 1 "binary input into a new file" -o "$d/new.folded" bad_binary.txt
if [ -e "$d/new.folded" ]; then bad "a failed run created its output"; else ok; fi
no_temp "bad input into a new file"

# Success replaces the file (a new inode: renamed, not rewritten in place; an old hard link
# keeps the old bytes).
ln "$d/a.folded" "$TMP/old-link"
expect 0 "conversion over an existing file" -o "$d/a.folded" "$in"
t2f "$in" >"$TMP/stdout.folded" 2>/dev/null
same "replaced output" "$TMP/stdout.folded" "$d/a.folded"
same "the old file's other link" "$TMP/before" "$TMP/old-link"
no_temp "successful run"
mode=$(ls -l "$d/a.folded" | cut -c1-10)
if [ "$mode" = "-rw-r--r--" ]; then ok; else bad "output mode $mode, want -rw-r--r-- (0666 & ~022)"; fi

# Replacing keeps the replaced file's mode (a private profile stays private) and, where the run
# may give them (root; a group it is in), its owner and group; a new file is 0666 & ~umask.
for m in 600 640 604 750 1644; do
	printf 'old\n' >"$d/m.folded"
	chmod "$m" "$d/m.folded"
	expect 0 "over a mode $m file" -o "$d/m.folded" "$in"
	got=$(stat -c %a "$d/m.folded")
	if [ "$got" = "$m" ]; then ok; else bad "output over a mode $m file: mode $got"; fi
done
rm "$d/m.folded"
(umask 077 && t2f -o "$d/m.folded" "$in" 2>"$TMP/err")
got=$(stat -c %a "$d/m.folded")
if [ "$got" = 600 ]; then ok; else bad "a new output under umask 077: mode $got, want 600"; fi
rm "$d/m.folded"
if [ "$(id -u)" = 0 ]; then
	printf 'old\n' >"$d/m.folded"
	chown 65534:65534 "$d/m.folded"
	chmod 6750 "$d/m.folded"
	expect 0 "over another user's file" -o "$d/m.folded" "$in"
	got=$(stat -c %u:%g:%a "$d/m.folded")
	if [ "$got" = 65534:65534:6750 ]; then ok; else
		bad "output over 65534:65534 mode 6750 (as root): $got"
	fi
else
	group=$(id -G | tr ' ' '\n' | grep -vx "$(id -g)" | head -n 1)
	if [ -n "$group" ]; then
		printf 'old\n' >"$d/m.folded"
		chgrp "$group" "$d/m.folded"
		chmod 2640 "$d/m.folded"
		expect 0 "over a file of group $group" -o "$d/m.folded" "$in"
		got=$(stat -c %g:%a "$d/m.folded")
		if [ "$got" = "$group:2640" ]; then ok; else
			bad "output over group $group mode 2640: $got"
		fi
	else
		echo "$TEST_NAME: not root and in no second group: owner and group not checked"
	fi
fi
rm -f "$d/m.folded"

expect 0 "speedscope over an existing file" -o "$d/a.speedscope.json" "$in"
t2f -f speedscope "$in" >"$TMP/stdout.json" 2>/dev/null
same "replaced speedscope output" "$TMP/stdout.json" "$d/a.speedscope.json"
no_temp "successful speedscope run"

# A relative -o in the current directory (no '/' in the name) works the same way.
(cd "$d" && t2f -o rel.folded "$FX/$in" 2>"$TMP/err")
if [ -s "$d/rel.folded" ]; then ok; else bad "relative -o rel.folded was not written"; show_err; fi
no_temp "relative -o"

# Never replace an input with the output.
mkdir "$d/in"
cp "$in" "$d/in/x.perf.txt"
cp "$in" "$TMP/orig"
ln -s x.perf.txt "$d/in/sym.folded"
ln "$d/in/x.perf.txt" "$d/in/hard.folded"
for target in "$d/in/x.perf.txt" "$d/in/sym.folded" "$d/in/hard.folded" "$d/in/../in/x.perf.txt"; do
	expect 2 "output over the input ($target)" -f collapsed -o "$target" "$d/in/x.perf.txt" &&
		stderr_has "named" "the output would replace the input $d/in/x\.perf\.txt"
	same "the input after -o $target" "$TMP/orig" "$d/in/x.perf.txt"
done
expect 2 "diff into its BEFORE" diff -o "$d/in/hard.folded" "$d/in/x.perf.txt" "$in"
same "diff's input" "$TMP/orig" "$d/in/x.perf.txt"
pd=$(ls "$SRC"/tests/fuzz/corpus/perf_data/* 2>/dev/null | head -n 1)
if [ -n "$pd" ]; then
	cp "$pd" "$d/in/copy.data"
	expect 2 "output over a perf.data input" -f collapsed -o "$d/in/copy.data" "$d/in/copy.data"
	same "the perf.data input" "$pd" "$d/in/copy.data"
fi
cp "$in" "$d/in/e.folded"
expect 1 "--each output landing on an input" --each -f collapsed -o "$d/in" "$d/in/e.folded" &&
	stderr_has "--each: skipped" "e\.folded: skipped"
same "the --each input" "$TMP/orig" "$d/in/e.folded"
no_temp "refused outputs"

finish
