#!/bin/sh
# pprof as an input (readers/pprof.h): profiles made here by tests/pprof_gen.py convert to the
# folded stacks written out below (Go's column layout with an inline chain, an unsymbolized one
# with labels, a heap profile's columns picked by --event, else by default_sample_type, samples
# sharing outer frames with the one before them, with ids 1, 2, ... and with others); every
# hostile one (truncated, bad varint, a length past the end, a string index or a location id
# naming nothing, a duplicate id, a sample too deep, values not one per type, a gzip bomb past
# the decode limit) fails with exit 1 and a message naming the file and what is wrong; and
# trace2flame's own pprof of perf script text, folded stacks, .nettrace traces and a perf.data
# converts back to the folded bytes of its source (with --weight samples, --pid and --tid too).
# usage: sh tests/cli/pprof_input.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
G="$TMP/gen"
"$PY" "$SRC/tests/pprof_gen.py" "$G" >/dev/null || { bad "pprof_gen.py failed"; finish; }

# well-formed profiles: the folded stacks they hold
folded_is() { # WHAT FILE EXPECTED ARGS...
	_w=$1 _f=$2 _e=$3
	shift 3
	if expect 0 "$_w" "$@" -o "$TMP/o.folded" "$_f"; then
		printf '%s\n' "$_e" >"$TMP/want.folded"
		same "$_w: folded" "$TMP/want.folded" "$TMP/o.folded"
	fi
}
cpu='server;main.main 10000000
server;main.main;main.work;main.inner 30000000'
folded_is "Go's layout (gzip)" "$G/cpu.pb.gz" "$cpu"
folded_is "Go's layout (raw)" "$G/cpu.pb" "$cpu"
folded_is "Go's layout, --weight samples" "$G/cpu.pb.gz" 'server;main.main 1
server;main.main;main.work;main.inner 3' --weight samples
folded_is "--all marks the inline chain" "$G/cpu.pb.gz" 'server;main.main 10000000
server;main.main;main.work;main.inner_[i] 30000000' --all
folded_is "unsymbolized, labelled" "$G/unsymbolized.pb.gz" 'srv;[server];[server] 5'
folded_is "unsymbolized, --pid --tid" "$G/unsymbolized.pb.gz" 'srv-42/43;[server];[server] 5' \
	--pid --tid
stacks='stacks;a;a;b 512
stacks;a;a;b;c 8
stacks;a;b 4
stacks;a;b;c 97
stacks;a;b;c;d 128
stacks;a;b;d 2
stacks;b;a 1024
stacks;e 16
w;a;b;d 256'
folded_is "stacks sharing outer frames" "$G/stacks.pb.gz" "$stacks"
folded_is "stacks sharing outer frames, ids not 1, 2, ..." "$G/stacks-sparse.pb.gz" "$stacks"
folded_is "heap: default_sample_type" "$G/heap.pb.gz" '[unknown];alloc 200'
folded_is "heap: --event TYPE" "$G/heap.pb.gz" '[unknown];alloc 100' --event alloc_space
folded_is "heap: --event TYPE/UNIT" "$G/heap.pb.gz" '[unknown];alloc 2' \
	--event inuse_objects/count

# hostile profiles
refused() { # NAME ERE
	if expect 1 "$1" -o "$TMP/h.folded" "$G/$1.pb.gz"; then
		stderr_has "$1: the message" "$1\\.pb\\.gz: .*$2"
	fi
	if [ -e "$TMP/h.folded" ]; then bad "$1: an output was left"; else ok; fi
}
refused truncated 'byte offset [0-9]+ \(decoded\): the profile: the message ends inside a field'
refused bad-varint 'byte offset 6 \(decoded\): the profile: a malformed field'
refused past-end 'byte offset 0 \(decoded\): the profile: the message ends inside a field'
refused empty-string0 'the first string is not empty'
refused string-index 'a sample type names string 999, past the string table'
refused unknown-location 'byte offset [0-9]+ \(decoded\): a sample.s location id \(no such location\)'
refused duplicate-id 'a location with id 1: a second one'
refused too-deep "a sample's location ids: a limit of the reader"
refused values "a sample's values \\(not one per sample type\\)"
expect 1 "a bomb past the decode limit" -o "$TMP/h.folded" "$G/bomb.pb.gz"
stderr_has "the bomb's message" 'bomb\.pb\.gz: the profile is more than 1073741824 bytes decoded'
T2F_PPROF_MAX_BYTES=1048576 expect 1 "a bomb past a lower limit" -o "$TMP/h.folded" \
	"$G/bomb.pb.gz"
stderr_has "the bomb's message" 'the profile is more than 1048576 bytes decoded'

# trace2flame's pprof converts back to its source's folded stacks
"$PY" -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
open(sys.argv[2], "wb").write(g.perf_data(b"worker", b"page-faults",
    [(b"/opt/demo/libdemo.so", 0x7f0000000000, 5), (b"/opt/demo/app", 0x400000, 5)],
    [(t, [0x7f0000001010 + 16 * (t % 3), 0x400100]) for t in range(1, 40)],
    build_ids=[(b"/opt/demo/libdemo.so", bytes(range(1, 21)))]))' "$SRC/tests" "$TMP/gen.data" ||
	bad "perf_data_gen failed"
NT="$SRC/fixtures/nettrace"
for src in burner.perf.txt burner.cpu.perf.txt multi.perf.txt burner.srcline.perf.txt \
	cxxwork.perf.txt counts.folded.txt "$NT/mixed_managed_external_samples.nettrace" \
	"$NT/universal.nettrace" "$TMP/gen.data"; do
	b=$(basename "$src")
	for opts in "" "--weight samples" "--pid --tid"; do
		# shellcheck disable=SC2086 # opts: words
		expect 0 "$b: folded $opts" $opts -o "$TMP/$b.folded" "$src" &&
			expect 0 "$b: pprof" -o "$TMP/$b.pb.gz" "$src" &&
			expect 0 "$b: pprof -> folded $opts" $opts -o "$TMP/$b.rt.folded" "$TMP/$b.pb.gz" &&
			same_nonempty "$TEST_NAME" "$b $opts: round trip" "$TMP/$b.folded" \
				"$TMP/$b.rt.folded" "< source, > its pprof"
	done
done
finish
