#!/bin/sh
# Bad inputs (fixtures/perf-script/bad_*.txt, see its README):
#   bad_binary.txt     NUL bytes after two good samples: exit 1, "trace2flame: FILE:LINE: ..."
#                      naming the line of the first NUL; no output written
#   bad_header.txt     a sample whose header is "hello world": a warning "FILE:LINE:" for that
#                      line, the sample dropped and counted by --stats, the rest converted
#                      exactly as without it (exit 0); --strict makes it exit 1
#   bad_truncated.txt  ends inside a frame line, no final newline: exit 1 with FILE:LINE: of
#                      the last line, or exit 0 with a warning "FILE:LINE:" for the last line,
#                      the partial sample dropped and counted by --stats ("truncated at end of
#                      input") and the rest converted exactly (then --strict exits 1)
# usage: sh tests/cli/bad_input.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

# Line number of the first NUL byte of a file.
nul_line() {
	off=$(od -An -v -tu1 "$1" | tr -s ' ' '\n' | grep -v '^$' | grep -n '^0$' | head -n 1 | cut -d: -f1)
	echo $(($(head -c $((off - 1)) "$1" | wc -l) + 1))
}
# The blank-line separated blocks of a file, without those matching an ERE / without the last.
drop_blocks() { awk -v re="$2" 'BEGIN { RS = ""; ORS = "\n\n" } $0 !~ re { print }' "$1"; }
drop_last_block() { awk 'BEGIN { RS = ""; ORS = "\n\n" } NR > 1 { print prev } { prev = $0 }' "$1"; }
mkdir "$TMP/clean"

# --- bad_binary.txt -----------------------------------------------------------------------------
n=$(nul_line bad_binary.txt)
for fmt in collapsed speedscope; do
	expect 1 "bad_binary.txt -f $fmt" -f $fmt -o "$TMP/binary.out" bad_binary.txt &&
		stderr_has "bad_binary.txt" "^trace2flame: bad_binary\\.txt:$n: "
	if [ -e "$TMP/binary.out" ]; then bad "bad_binary.txt: an output was written"; else ok; fi
done
expect 1 "bad_binary.txt from stdin" - <bad_binary.txt &&
	stderr_has "bad_binary.txt from stdin" "^trace2flame: <stdin>:$n: "

# --- bad_header.txt -----------------------------------------------------------------------------
n=$(grep -n '^hello world$' bad_header.txt | cut -d: -f1)
drop_blocks bad_header.txt '^hello world' >"$TMP/clean/bad_header.txt"
for fmt in collapsed speedscope; do
	(cd "$TMP/clean" && t2f -f $fmt bad_header.txt >"$TMP/want" 2>/dev/null)
	expect 0 "bad_header.txt -f $fmt" -f $fmt --stats bad_header.txt &&
		stderr_has "bad_header.txt warning" "^trace2flame: warning: bad_header\\.txt:$n: " &&
		stderr_has "bad_header.txt --stats" 'malformed sample\): 1$' &&
		same "bad_header.txt -f $fmt: the good samples" "$TMP/want" "$TMP/out"
done
if grep -q hello "$TMP/out"; then bad "bad_header.txt: 'hello' reached the output"; else ok; fi
expect 1 "bad_header.txt --strict" --strict bad_header.txt &&
	stderr_has "bad_header.txt --strict" "^trace2flame: bad_header\\.txt:$n: "
if [ -s "$TMP/out" ]; then bad "bad_header.txt --strict: wrote to stdout"; else ok; fi

# --- bad_truncated.txt --------------------------------------------------------------------------
n=$(($(wc -l <bad_truncated.txt) + 1))
drop_last_block bad_truncated.txt >"$TMP/clean/bad_truncated.txt"
(cd "$TMP/clean" && t2f bad_truncated.txt >"$TMP/want" 2>/dev/null)
t2f --stats bad_truncated.txt >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ]; then
	ok
	stderr_has "bad_truncated.txt" "^trace2flame: bad_truncated\\.txt:$n: "
	if [ -s "$TMP/out" ]; then bad "bad_truncated.txt: exit 1 but wrote to stdout"; else ok; fi
elif [ "$rc" -eq 0 ]; then
	ok
	stderr_has "bad_truncated.txt warning" "^trace2flame: warning: bad_truncated\\.txt:$n: "
	stderr_has "bad_truncated.txt --stats" 'truncated at end of input\): 1$'
	same "bad_truncated.txt: the complete samples" "$TMP/want" "$TMP/out"
	expect 1 "bad_truncated.txt --strict" --strict bad_truncated.txt &&
		stderr_has "bad_truncated.txt --strict" "^trace2flame: bad_truncated\\.txt:$n: "
else
	bad "bad_truncated.txt: exit $rc, want 1 (error) or 0 (partial sample dropped)"
	show_err
fi

finish
