#!/bin/sh
# Atomic output: a failed run leaves an existing output byte-identical and no ".NAME.*" temp file
# behind; a successful run replaces the output whole, with mode 0666 & ~umask.
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

expect 0 "speedscope over an existing file" -o "$d/a.speedscope.json" "$in"
t2f -f speedscope "$in" >"$TMP/stdout.json" 2>/dev/null
same "replaced speedscope output" "$TMP/stdout.json" "$d/a.speedscope.json"
no_temp "successful speedscope run"

# A relative -o in the current directory (no '/' in the name) works the same way.
(cd "$d" && t2f -o rel.folded "$FX/$in" 2>"$TMP/err")
if [ -s "$d/rel.folded" ]; then ok; else bad "relative -o rel.folded was not written"; show_err; fi
no_temp "relative -o"

finish
