#!/bin/sh
# Truncated perf script input, with one thread (-j 1) and the parallel reader (-j 2, tiny
# segments), on burner.perf.txt (289 samples):
# - gzip and zstd streams of several members/frames, each member a run of whole samples: cut at
#   every member boundary they are complete files of the first K samples (exit 0, no warning,
#   --stats: K read = K kept, written K, the output is the plain text's first K samples); cut
#   1 byte in and halfway into the 2nd member, and 1 byte before its end: exit 1, the error
#   names the file and says "truncated"; no output is written.
# - a member boundary inside a frame line: the text ends inside a line: exit 0, the warning names
#   FILE:LINE, the last sample counted "truncated at end of input", the others kept.
# - plain text cut inside a header line or a frame line of sample K (also inside its leading
#   blanks): K read = K-1 kept + 1 truncated (0 malformed), warning FILE:LINE; --strict: exit 1.
# Expected counts come from awk over the text (sample headers: lines that are neither empty nor
# indented), never from trace2flame.
# usage: sh tests/cli/truncation.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

in=burner.perf.txt
per=100 # samples per member
export T2F_SEGMENT_SIZE=512

for tool in gzip zstd; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "truncation: $tool not installed (tools/quickstart installs it)"
		bad "$tool missing"
	fi
done
z() { # z gz|zst: compressor to stdout
	case $1 in gz) gzip -n -c ;; zst) zstd -q -c ;; esac
}

# Line table of the input: "LINE BYTE-OFFSET h|f|e" (header, frame, empty).
LC_ALL=C awk 'BEGIN { off = 0 } { print NR, off, ($0 == "" ? "e" : (/^[ \t]/ ? "f" : "h")); off += length($0) + 1 }' \
	"$in" >"$TMP/lines"
total=$(awk '$3 == "h"' "$TMP/lines" | wc -l)
[ "$total" -eq 289 ] && ok || bad "$in: $total sample headers, want 289"

# headers FILE: sample header lines in FILE (a partial last line counts too)
headers() { LC_ALL=C awk '$0 != "" && !/^[ \t]/' "$1" | wc -l; }

# stat NAME: the number on --stats line NAME of $TMP/err
stat() {
	case $1 in
	read) sed -n 's/^  samples: \([0-9]*\) read = .*/\1/p' "$TMP/err" ;;
	kept) sed -n 's/^  samples: [0-9]* read = \([0-9]*\) kept.*/\1/p' "$TMP/err" ;;
	*) sed -n "s/^    $1: \\([0-9]*\\)\$/\\1/p" "$TMP/err" ;;
	esac
}

# counts WHAT READ KEPT TRUNCATED: --stats in $TMP/err and the folded output $TMP/out.folded
# (written with --weight samples: its weights add up to the samples written).
counts() {
	_got="$(stat read) $(stat kept) $(stat 'dropped (truncated at end of input)')"
	_got="$_got $(stat 'dropped (malformed sample)') $(stat 'dropped (empty call chain)')"
	_got="$_got $(stat written)"
	_w=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/out.folded" 2>/dev/null)
	_want="$2 $3 $4 0 0 $3"
	if [ "$_got" = "$_want" ] && [ "$_w" = "$3" ]; then ok; else
		bad "$1: read/kept/truncated/malformed/empty/written '$_got' (output weight $_w), want '$_want' ($3)"
		show_err
	fi
}

# run J FILE: trace2flame -j J --stats --weight samples FILE → $TMP/out.folded, stderr $TMP/err
run() {
	rm -f "$TMP/out.folded"
	t2f -j "$1" --stats --weight samples -o "$TMP/out.folded" "$2" 2>"$TMP/err"
}

# Members of $per whole samples: part files, their text offsets and sample counts.
LC_ALL=C awk -v per=$per -v dir="$TMP" '
	$0 != "" && !/^[ \t]/ { if (n % per == 0) part++; n++ }
	{ print > (dir "/part." part) }' "$in"
parts=$(ls "$TMP"/part.* | wc -l)
[ "$parts" -eq $(((total + per - 1) / per)) ] && ok || bad "split into $parts members"

for x in gz zst; do
	# the whole stream first; "END-OFFSET SIZE" of each member in $TMP/members.$x
	: >"$TMP/all.$x"
	: >"$TMP/members.$x"
	i=1
	while [ $i -le "$parts" ]; do
		z $x <"$TMP/part.$i" >"$TMP/member"
		cat "$TMP/member" >>"$TMP/all.$x"
		echo "$(wc -c <"$TMP/all.$x") $(wc -c <"$TMP/member")" >>"$TMP/members.$x"
		i=$((i + 1))
	done
	: >"$TMP/text"
	i=1
	while [ $i -le "$parts" ]; do
		cat "$TMP/part.$i" >>"$TMP/text"
		zoff=$(sed -n "${i}s/ .*//p" "$TMP/members.$x")
		want=$(headers "$TMP/text")
		cp "$TMP/text" "$TMP/prefix.txt"
		t2f --weight samples -o "$TMP/prefix.folded" "$TMP/prefix.txt" 2>/dev/null
		head -c "$zoff" "$TMP/all.$x" >"$TMP/cut.$x"
		for j in 1 2; do
			if run $j "$TMP/cut.$x"; then ok; else bad "$x member $i end, -j $j: exit $?"; fi
			if grep -q '^trace2flame: warning' "$TMP/err"; then
				bad "$x member $i end, -j $j: a warning"
				show_err
			else
				ok
			fi
			counts "$x cut after member $i, -j $j" "$want" "$want" 0
			same "$x cut after member $i, -j $j: the first $want samples" \
				"$TMP/prefix.folded" "$TMP/out.folded"
		done
		i=$((i + 1))
		# inside the next member: 1 byte in, halfway, 1 byte before its end (the
		# 2nd member only: time)
		[ $i -eq 2 ] || continue
		znext=$(sed -n "${i}s/.* //p" "$TMP/members.$x")
		for d in 1 $((znext / 2)) $((znext - 1)); do
			head -c $((zoff + d)) "$TMP/all.$x" >"$TMP/mid.$x"
			for j in 1 2; do
				run $j "$TMP/mid.$x"
				rc=$?
				if [ $rc -eq 1 ]; then ok; else
					bad "$x member $i cut at +$d, -j $j: exit $rc, want 1"
					show_err
				fi
				stderr_has "$x member $i cut at +$d, -j $j" \
					"^trace2flame: $TMP/mid\\.$x: .*truncated"
				if [ -e "$TMP/out.folded" ]; then
					bad "$x member $i cut at +$d, -j $j: an output was written"
				else
					ok
				fi
			done
		done
	done
done

# A member boundary inside a frame line: line L of sample K, 7 bytes into it.
set -- $(awk '$3 == "h" { k++ } $3 == "f" && k == 100 { print $1, $2, k; exit }' "$TMP/lines")
line=$1 cut=$(($2 + 7)) k=$3
head -c $cut "$in" >"$TMP/a.txt"
tail -c +$((cut + 1)) "$in" >"$TMP/b.txt"
for x in gz zst; do
	z $x <"$TMP/a.txt" >"$TMP/ab.$x"
	zoff=$(wc -c <"$TMP/ab.$x")
	z $x <"$TMP/b.txt" >>"$TMP/ab.$x"
	head -c "$zoff" "$TMP/ab.$x" >"$TMP/line.$x"
	for j in 1 2; do
		if run $j "$TMP/line.$x"; then ok; else bad "$x cut inside line $line, -j $j: exit $?"; fi
		stderr_has "$x cut inside line $line, -j $j" \
			"^trace2flame: warning: $TMP/line\\.$x:$line: input ends inside a line"
		counts "$x cut inside line $line (sample $k), -j $j" $k $((k - 1)) 1
	done
done

# Plain text cut inside the header line of samples 2 and 289 (30 bytes in) and inside
# their first frame line: 3 bytes in (its indentation: a blank-looking last line) and 24.
for k in 2 289; do
	for what in h:30 f:3 f:24; do
		w=${what%:*} d=${what#*:}
		set -- $(awk -v k=$k -v w=$w '$3 == "h" { n++ } n == k && $3 == w { print $1, $2; exit }' \
			"$TMP/lines")
		line=$1 cut=$(($2 + d))
		head -c $cut "$in" >"$TMP/cut.txt"
		[ "$(headers "$TMP/cut.txt")" -eq $k ] && ok || bad "plain cut at $cut: not inside sample $k"
		for j in 1 2; do
			if run $j "$TMP/cut.txt"; then ok; else bad "plain cut in sample $k ($what), -j $j: exit $?"; fi
			stderr_has "plain cut in sample $k ($what), -j $j" \
				"^trace2flame: warning: $TMP/cut\\.txt:$line: input ends inside a line"
			counts "plain cut in sample $k ($what, line $line), -j $j" $k $((k - 1)) 1
		done
		expect 1 "plain cut in sample $k ($what), --strict" --strict "$TMP/cut.txt" &&
			stderr_has "plain cut in sample $k ($what), --strict" \
				"^trace2flame: $TMP/cut\\.txt:$line: input ends inside a line"
	done
done

finish
