#!/bin/sh
# Folded stacks as an input (readers/folded.h), read back into folded stacks: the lines of a
# file whose lines share leading frames with the line before them in every way the reader's
# reuse of the previous line must tell apart (a prefix, an extension, the same line again, a
# frame that only starts like the previous one's, another thread with the same frames, a kind
# suffix, a thread alone, -j 1 and -j 2), checked against an oracle written here (equal stacks
# summed, sorted bytewise; suffixes removed unless --all).
# usage: sh tests/cli/folded_input.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
cat >"$TMP/in.folded" <<'IN'
p;a;b;c 1
p;a;b;d 2
p;a;b 4
p;a;bc 8
p;a;b 16
p;a;b;c;e 32
p;a;b;c;e 64
q;a;b;c 128
p;a;b_[k];c 256
p;a;b;c 512
p;a 1024
p 2048
p;x;y 4096
p;a;b_[k] 8192
p;a;b_[k];c_[i] 16384
pp;a 32768
p;a;b;c 65536
IN
cat >"$TMP/oracle.py" <<'IN'
import re, sys
keep = sys.argv[2] == "all"
sums = {}
for line in open(sys.argv[1], "rb").read().decode().splitlines():
    stack, n = line.rsplit(" ", 1)
    frames = stack.split(";")
    if not keep:
        frames = [frames[0]] + [re.sub(r"_\[[kji]\]$", "", f) for f in frames[1:]]
    key = ";".join(frames)
    sums[key] = sums.get(key, 0) + int(n)
sys.stdout.write("".join("%s %d\n" % (k, sums[k]) for k in sorted(sums, key=str.encode)))
IN
for all in "" all; do
	"$PY" "$TMP/oracle.py" "$TMP/in.folded" "$all" >"$TMP/want$all.folded" ||
		{ bad "the oracle failed"; finish; }
	for j in 1 2; do
		if expect 0 "folded ${all:+--all }-j $j" -j "$j" ${all:+--all} \
			-o "$TMP/o.folded" "$TMP/in.folded"; then
			same "folded ${all:+--all }-j $j: the oracle's" "$TMP/want$all.folded" \
				"$TMP/o.folded"
		fi
	done
done
finish
