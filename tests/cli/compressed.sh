#!/bin/sh
# Compressed inputs: gzip and zstd (told by their first bytes, not their names) give the same
# output as the plain file, from a file or from standard input, with several members/frames too;
# a truncated or corrupt stream exits 1 instead of converting part of it.
# usage: sh tests/cli/compressed.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

for tool in gzip zstd; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "compressed: $tool not installed (tools/quickstart installs it)"
		bad "$tool missing"
	fi
done
z() { # z gz|zst: compressor to stdout
	case $1 in gz) gzip -c ;; zst) zstd -q -c ;; esac
}

in=burner.perf.txt
t2f -o "$TMP/plain.folded" "$in" 2>/dev/null
t2f -f speedscope -o "$TMP/plain.speedscope.json" "$in" 2>/dev/null
cat "$in" "$in" | t2f - >"$TMP/twice.folded" 2>/dev/null

for x in gz zst; do
	z $x <"$in" >"$TMP/$in.$x"
	expect 0 "$in.$x" -o "$TMP/$x.folded" "$TMP/$in.$x"
	same "$in.$x, folded" "$TMP/plain.folded" "$TMP/$x.folded"
	# speedscope names the profile group after the input: give the compressed copy the plain name
	mkdir "$TMP/$x"
	cp "$TMP/$in.$x" "$TMP/$x/$in"
	(cd "$TMP/$x" && t2f -f speedscope -o "$TMP/$x.speedscope.json" "$in" 2>"$TMP/err")
	same "$in ($x content), speedscope" "$TMP/plain.speedscope.json" "$TMP/$x.speedscope.json"

	t2f - <"$TMP/$in.$x" >"$TMP/$x.stdin.folded" 2>"$TMP/err"
	same "$in.$x from redirected stdin" "$TMP/plain.folded" "$TMP/$x.stdin.folded"
	z $x <"$in" | t2f - >"$TMP/$x.pipe.folded" 2>"$TMP/err"
	same "$in.$x from a pipe" "$TMP/plain.folded" "$TMP/$x.pipe.folded"
	z $x <"$in" | t2f -f speedscope - 2>"$TMP/err" |
		sed "1s/\"name\":\"standard input\"/\"name\":\"$in\"/" >"$TMP/$x.pipe.speedscope.json"
	same "$in.$x from a pipe, speedscope" "$TMP/plain.speedscope.json" "$TMP/$x.pipe.speedscope.json"

	# two members (gzip) / frames (zstd) back to back: the text of both
	cat "$TMP/$in.$x" "$TMP/$in.$x" >"$TMP/twice.$x"
	expect 0 "two $x members" -o "$TMP/twice.$x.folded" "$TMP/twice.$x"
	same "two $x members" "$TMP/twice.folded" "$TMP/twice.$x.folded"

	# --each names the output after the name without .gz/.zst
	mkdir "$TMP/each-$x"
	expect 0 "--each $in.$x" --each -o "$TMP/each-$x" "$TMP/$in.$x"
	same "--each $in.$x" "$TMP/plain.folded" "$TMP/each-$x/burner.perf.folded"

	# truncated in the middle: an error, not a partial profile (and no hang)
	size=$(wc -c <"$TMP/$in.$x")
	head -c $((size / 2)) "$TMP/$in.$x" >"$TMP/cut.$x"
	expect 1 "truncated $x" -o "$TMP/cut.$x.folded" "$TMP/cut.$x" &&
		stderr_has "truncated $x" "^trace2flame: $TMP/cut\\.$x: "
	if [ -e "$TMP/cut.$x.folded" ]; then bad "truncated $x: an output was written"; else ok; fi
	expect 1 "truncated $x from a pipe" - <"$TMP/cut.$x"

	# corrupt in the middle (16 bytes overwritten)
	cp "$TMP/$in.$x" "$TMP/bad.$x"
	printf 'garbage!garbage!' | dd of="$TMP/bad.$x" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	expect 1 "corrupt $x" "$TMP/bad.$x" && stderr_has "corrupt $x" "^trace2flame: $TMP/bad\\.$x: "

	# a bad text inside a compressed file is reported with the same line as in the plain file
	z $x <bad_binary.txt >"$TMP/bad_binary.txt.$x"
	t2f bad_binary.txt >/dev/null 2>"$TMP/err.plain"
	line=$(sed -n 's/^trace2flame: bad_binary\.txt:\([0-9]*\): .*/\1/p' "$TMP/err.plain")
	(cd "$TMP" && t2f "bad_binary.txt.$x" >/dev/null 2>"$TMP/err")
	rc=$?
	if [ "$rc" -eq 1 ]; then ok; else bad "bad_binary.txt.$x: exit $rc, want 1"; show_err; fi
	stderr_has "bad_binary.txt.$x" "^trace2flame: bad_binary\\.txt\\.$x:${line:-[0-9]+}: "
done

finish
