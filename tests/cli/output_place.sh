#!/bin/sh
# Where the output goes is checked before any input is read (exit 3, nothing written): a missing
# directory ("no such directory DIR"), a parent that is a file, an output that is a directory
# ("is a directory (use --each ...)"; for diff, "is a directory"), with -o and with diff -o. The
# input is a FIFO no one writes to: reading it would block until the time limit, so a check made
# after reading fails here by time.
# usage: sh tests/cli/output_place.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

T2F_TEST_TIMEOUT=15
in=$TMP/fifo
if ! mkfifo "$in" 2>/dev/null; then
	echo "$TEST_NAME: cannot make a FIFO here: skipped"
	exit 0
fi
mkdir "$TMP/adir"
printf 'a file\n' >"$TMP/afile"

# place WHAT WANT ARGS...: exit 3 at once, stderr exactly WANT
place() {
	_pwhat=$1 _pwant=$2
	shift 2
	expect 3 "$_pwhat" "$@" || return 1
	if [ "$(cat "$TMP/err")" = "$_pwant" ]; then ok; else
		bad "$_pwhat: stderr is not exactly: $_pwant"
		show_err
	fi
}

place "a missing directory" "trace2flame: $TMP/nodir/out.svg: no such directory $TMP/nodir" \
	"$in" -o "$TMP/nodir/out.svg"
place "a missing directory, name/" "trace2flame: $TMP/nodir/: no such directory $TMP/nodir/" \
	-f collapsed "$in" -o "$TMP/nodir/"
(cd "$TMP" && t2f "$in" -o nodir/out.folded) >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 3 ] && [ "$(cat "$TMP/err")" = "trace2flame: nodir/out.folded: no such directory nodir" ]; then
	ok
else
	bad "a relative path: exit $rc"
	show_err
fi
place "a file as the directory" "trace2flame: $TMP/afile/out.svg: cannot be created in $TMP/afile (Not a directory)" \
	"$in" -o "$TMP/afile/out.svg"
place "a directory, no format" "trace2flame: $TMP/adir: is a directory (use --each to write one file per input in it)" \
	"$in" -o "$TMP/adir"
place "a directory, -f svg" "trace2flame: $TMP/adir/: is a directory (use --each to write one file per input in it)" \
	-f svg "$in" -o "$TMP/adir/"
place "diff into a missing directory" "trace2flame: $TMP/nodir/d.svg: no such directory $TMP/nodir" \
	diff "$in" "$in" -o "$TMP/nodir/d.svg"
place "diff into a directory" "trace2flame: $TMP/adir: is a directory" diff "$in" "$in" -o "$TMP/adir"
if [ -z "$(ls "$TMP/adir")" ]; then ok; else bad "the directory was written in: $(ls "$TMP/adir")"; fi

finish
