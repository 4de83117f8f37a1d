#!/bin/sh
# Standard input and output: "-" reads stdin (a pipe or a redirected file), no -o or "-o -"
# writes stdout, and the bytes equal those of a named-file conversion. In speedscope output the
# profile group's name is the input's name, "standard input" for standard input.
# usage: sh tests/cli/stdin_stdout.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

for in in burner.perf.txt burner.nocg.perf.txt multi.perf.txt; do
	t2f -o "$TMP/file.folded" "$in" 2>/dev/null
	t2f -f speedscope -o "$TMP/file.speedscope.json" "$in" 2>/dev/null
	if [ ! -s "$TMP/file.folded" ] || [ ! -s "$TMP/file.speedscope.json" ]; then
		bad "$in: reference conversion failed"
		continue
	fi
	# speedscope from stdin, with the group name put back to the file's, for the comparison
	cat "$in" | t2f -f speedscope - 2>"$TMP/err" |
		sed "1s/\"name\":\"standard input\"/\"name\":\"$in\"/" >"$TMP/pipe.speedscope.json"
	same "$in: cat | trace2flame -f speedscope -" "$TMP/file.speedscope.json" "$TMP/pipe.speedscope.json"

	cat "$in" | t2f - >"$TMP/pipe.folded" 2>"$TMP/err"
	same "$in: cat | trace2flame -" "$TMP/file.folded" "$TMP/pipe.folded"
	t2f - <"$in" >"$TMP/redir.folded" 2>"$TMP/err"
	same "$in: trace2flame - < FILE" "$TMP/file.folded" "$TMP/redir.folded"
	t2f "$in" >"$TMP/stdout.folded" 2>"$TMP/err"
	same "$in: trace2flame FILE > stdout" "$TMP/file.folded" "$TMP/stdout.folded"
	t2f -o - "$in" >"$TMP/dash.folded" 2>"$TMP/err"
	same "$in: -o -" "$TMP/file.folded" "$TMP/dash.folded"
	cat "$in" | t2f -o "$TMP/pipe-o.folded" - 2>"$TMP/err"
	same "$in: stdin to -o FILE" "$TMP/file.folded" "$TMP/pipe-o.folded"
done

expect 0 "stdin speedscope names the group standard input" -f speedscope - <burner.perf.txt &&
	file_has "stdin speedscope name" "$TMP/out" '^\{.*"name":"standard input"'
expect 0 "file speedscope names the group after the input" -f speedscope burner.perf.txt &&
	file_has "file speedscope name" "$TMP/out" '^\{.*"name":"burner\.perf\.txt"'

# stdout carries only the output: messages go to stderr
t2f burner.perf.txt >"$TMP/plain.folded" 2>/dev/null
t2f --stats burner.perf.txt >"$TMP/stats.folded" 2>"$TMP/err"
same "--stats keeps stdout clean" "$TMP/plain.folded" "$TMP/stats.folded"
stderr_has "--stats goes to stderr" 'samples'

# an empty input is not an error: it converts to an empty profile
expect 0 "empty stdin" - </dev/null
expect 2 "stdin twice" - burner.perf.txt -

finish
