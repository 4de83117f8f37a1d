#!/bin/sh
# Exit codes: 0 ok, 1 bad input, 2 usage, 3 I/O; every error message starts "trace2flame: ".
# usage: sh tests/cli/exit_codes.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

in=burner.perf.txt

# 0
expect 0 "plain conversion" -o "$TMP/a.folded" "$in" &&
	file_has "plain conversion" "$TMP/a.folded" ' [0-9]+$'
expect 0 "-f speedscope to stdout" -f speedscope "$in" &&
	file_has "-f speedscope" "$TMP/out" '"\$schema"'
expect 0 "--help" --help && file_has "--help" "$TMP/out" 'Usage'
expect 0 "--version" --version && file_has "--version" "$TMP/out" '^trace2flame [0-9]'

# 2: usage
expect 2 "unknown option" --no-such-option "$in" &&
	stderr_has "unknown option" '^trace2flame: .*no-such-option'
expect 2 "no input" && stderr_has "no input" '^trace2flame: '
expect 2 "unknown -f format" -f svgz "$in" && stderr_has "unknown -f" '^trace2flame: .*svgz'
expect 2 "unknown --weight" --weight bytes "$in" && stderr_has "unknown --weight" '^trace2flame: .*bytes'
expect 2 "-o with an unknown extension and no -f" -o "$TMP/out.unknownext" "$in"
if [ -e "$TMP/out.unknownext" ]; then bad "a usage error created the output"; else ok; fi
expect 2 "--each without -o" --each "$in"
expect 2 "standard input twice" - -

# 3: I/O
expect 3 "missing input" no-such-file.perf.txt &&
	stderr_has "missing input" '^trace2flame: no-such-file\.perf\.txt: '
expect 3 "missing input after a good one" "$in" no-such-file.perf.txt
expect 3 "output in a missing directory" -o "$TMP/no/such/dir/a.folded" "$in" &&
	stderr_has "output in a missing directory" "^trace2flame: $TMP/no/such/dir/a\\.folded: "
expect 3 "output is a directory" -f collapsed -o "$TMP" "$in"
if [ -w /dev/full ]; then
	t2f "$in" >/dev/full 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 3 ]; then ok; else bad "stdout on /dev/full: exit $rc, want 3"; show_err; fi
	t2f -f speedscope -o - "$in" >/dev/full 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 3 ]; then ok; else bad "-o - on /dev/full: exit $rc, want 3"; show_err; fi
fi
# -o naming an existing device: written in place (no temp file renamed over it). The device is a
# private node with /dev/full's numbers, so a wrong rename can only replace our own copy.
if mknod "$TMP/full" c 1 7 2>/dev/null && ! (printf x >"$TMP/full") 2>/dev/null; then
	expect 3 "-o on a full device" -f collapsed -o "$TMP/full" "$in"
	if [ -c "$TMP/full" ]; then ok; else bad "-o on a device node replaced the node with a file"; fi
else
	echo "exit_codes: cannot make a full device node here: -o DEVICE not checked"
fi

# 1: bad input
expect 1 "binary input" bad_binary.txt &&
	stderr_has "binary input" '^trace2flame: bad_binary\.txt:[0-9]+: '
expect 1 "--strict with a bad sample" --strict bad_header.txt &&
	stderr_has "--strict" '^trace2flame: bad_header\.txt:[0-9]+: '
expect 1 "--event not in the input" --event no-such-event "$in" &&
	stderr_has "--event" '^trace2flame: .*no-such-event'
# the distinct-frame cap: read by one thread and by three (the merge meets it), in every format;
# no output is left; the burner fixture has more than 10 frames and fewer than 1000
for j in 1 3; do
	for f in collapsed speedscope pprof svg; do
		expect 1 "--max-frames 10 -j $j -f $f" --max-frames 10 -j "$j" -f "$f" \
			-o "$TMP/capped.$f" "$in" &&
			stderr_has "--max-frames -j $j" \
				'^trace2flame: burner\.perf\.txt: more than 10 distinct frames \(--max-frames'
		if [ -e "$TMP/capped.$f" ]; then bad "--max-frames -j $j -f $f left an output"; else ok; fi
	done
done
expect 0 "--max-frames 1000" --max-frames 1000 -o "$TMP/uncapped.folded" "$in" &&
	cmp -s "$TMP/uncapped.folded" "$TMP/a.folded" && ok ||
	bad "--max-frames 1000 changed the output"
expect 2 "--max-frames 0" --max-frames 0 "$in"
expect 2 "--max-frames x" --max-frames x "$in"

finish
