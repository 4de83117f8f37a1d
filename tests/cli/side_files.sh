#!/bin/sh
# The files a conversion opens besides its inputs, when the trace or an option names something
# hostile (formats/side_file.h, formats/perf_map.h):
#   - perf maps: only a dso of the exact shape /tmp/perf-PID.map is one, and the file read is
#     /tmp/perf-PID.map or DIR/perf-PID.map (--perf-map-dir) built from the pid: a dso
#     "/tmp/perf-D/../..TMP/secret.map" (perf script text and a perf.data MMAP2 file name alike)
#     reads no file (the secret names never reach the output), nor does "/tmp/perf-0123.map"
#     read DIR/perf-123.map; the real shape is still read (perf script text and perf.data's
#     anonymous executable memory);
#   - FIFOs (no writer: opening one to read would block) and devices (/dev/zero never ends):
#     a perf map that is a FIFO or a link to /dev/zero is a warning "not a regular file", its
#     frames stay as printed (exit 0); --kallsyms and --buildids naming one fail at once
#     naming the file (exit 1); `symbols FIFO` exits 1, `resolve FIFO ADDR` exits 3 saying
#     "not a regular file" (it said "build-id mismatch"); a FIFO where a debug file is looked
#     for (a build-id tree entry) or at a binary's recorded path is refused "not a regular
#     file" in --stats, the search goes on.
# Every run has a time limit (T2F_TEST_TIMEOUT, 20 s here): a hang fails its check.
# usage: sh tests/cli/side_files.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"
T2F_TEST_TIMEOUT=${T2F_TEST_TIMEOUT:-20}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
cd "$TMP" || exit 1

# no file of this output holds the name NAME: not_in WHAT NAME FILE
not_in() {
	if grep -q "$2" "$3"; then bad "$1: '$2' reached $3"; else ok; fi
}

jit_sample() { # PID DSO: a sample with a JIT frame at 0x7f0000001010 in DSO, then main
	printf 'java %s/%s 1.000000: 1000 cpu-clock: \n\t7f0000001010 [unknown] (%s)\n' "$1" "$1" "$2"
	printf '\t400000 main+0x0 (/usr/bin/java)\n\n'
}

# --- perf map names ---------------------------------------------------------------------------
mkdir maps
printf '7f0000001000 100 SECRET_HOME\n' >secret.map
printf '7f0000001000 100 SECRET_DIR\n' >maps/secret.map
printf '7f0000001000 100 SECRET_ZERO\n' >maps/perf-123.map.bak
printf '7f0000001000 100 JitGood\n' >maps/perf-123.map
cp maps/perf-123.map maps/perf-100.map
climb_dir=$(mktemp -d /tmp/perf-t2f.XXXXXX) || exit 1
trap 'rm -rf "$TMP" "$climb_dir"' EXIT
climb="$climb_dir/../..$TMP/secret.map"
{
	jit_sample 10 "$climb"
	jit_sample 11 /tmp/perf-0123.map
	jit_sample 123 /tmp/perf-123.map
} >jit.txt
cp maps/perf-123.map.bak maps/perf-0123.map
for dir in "" "--perf-map-dir maps"; do
	# shellcheck disable=SC2086 # dir: zero or two words
	expect 0 "perf map names ($dir)" $dir --resymbolize jit.txt -o "jit$#.folded" &&
		not_in "climbing dso ($dir)" SECRET_ "jit$#.folded"
	[ -z "$dir" ] || file_has "perf-123.map read" "jit$#.folded" 'java;main;JitGood 1000'
	set -- "$@" x
done

# perf.data: an executable MMAP2 whose file name climbs, and anonymous executable memory
"$PY" -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
climb = sys.argv[2].encode()
open("climb.data", "wb").write(g.perf_data(b"java", b"cpu-clock",
    [(climb, 0x7f0000000000, 5), (b"//anon", 0x7f1000000000, 7)],
    [(5, [0x7f0000001010, 0x7f1000001010])]))' "$SRC/tests" "$climb" || bad "perf_data_gen"
sed 's/^7f0000001000 100 JitGood$/7f1000001000 100 JitGood/' maps/perf-100.map >maps/p100 &&
	mv maps/p100 maps/perf-100.map
expect 0 "perf.data: climbing MMAP2 name" --perf-map-dir maps climb.data -o climb.folded &&
	not_in "perf.data: climbing MMAP2 name" SECRET_ climb.folded &&
	file_has "perf.data: perf-100.map read" climb.folded ';JitGood;'

# --- FIFOs and devices ------------------------------------------------------------------------
mkdir fmaps
mkfifo fmaps/perf-123.map fifo
ln -s /dev/zero fmaps/perf-11.map
{
	jit_sample 123 /tmp/perf-123.map
	jit_sample 11 /tmp/perf-11.map
} >fjit.txt
expect 0 "perf maps: a FIFO and /dev/zero" --stats --perf-map-dir fmaps fjit.txt -o fjit.folded &&
	stderr_has "FIFO perf map" "warning: fmaps/perf-123\\.map: cannot read the perf map \\(not a regular file\\)" &&
	stderr_has "/dev/zero perf map" "warning: fmaps/perf-11\\.map: cannot read the perf map \\(not a regular file\\)" &&
	stderr_has "--stats: unreadable" "unreadable: fmaps/perf-123\\.map \\(not a regular file\\)"
for f in fifo /dev/zero; do
	expect 1 "--kallsyms $f" --kallsyms "$f" fjit.txt -o k.folded &&
		stderr_has "--kallsyms $f named" "^trace2flame: $f: cannot open \\(not a regular file\\)"
	expect 1 "--buildids $f" --buildids "$f" --resymbolize fjit.txt -o b.folded &&
		stderr_has "--buildids $f named" "^trace2flame: $f: cannot open \\(not a regular file\\)"
done
expect 1 "symbols FIFO" symbols fifo && stderr_has "symbols FIFO" "fifo: not a regular file"
expect 3 "resolve FIFO" resolve fifo 0x1003 &&
	stderr_has "resolve FIFO" "^trace2flame: fifo: not a regular file$"

# a FIFO in the build-id tree (before the right debug file) and at a binary's recorded path
printf 'int main(void) { return 0; }\n' >p.c
if cc -O1 -g -Wl,--build-id -o prog p.c; then
	id=$(readelf -n prog | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
	mkdir -p "dbg/.build-id/$(echo "$id" | cut -c1-2)"
	mkfifo "dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
	addr=$(nm prog | sed -n 's/^0*\([0-9a-f]*\) T main$/\1/p')
	expect 0 "a FIFO in the build-id tree" resolve --debug-dir dbg prog "$addr" &&
		stderr_has "FIFO candidate refused" "refused .*\\.debug: not a regular file" &&
		file_has "resolved through the binary" "$TMP/out" "main\\+0x0"
	mkfifo fbin
	printf 'prog 1/1 1.000000: 1000 cpu-clock: \n\t%s [unknown] (%s/fbin)\n\n' "$addr" "$TMP" >fbin.txt
	printf '%s %s/fbin\n' "$id" "$TMP" >ids
	expect 0 "a FIFO at a binary's path" --stats --buildids ids fbin.txt -o fbin.folded &&
		stderr_has "FIFO binary refused" "refused: .*/fbin: not a regular file"
else
	bad "cc failed"
fi

finish
