#!/bin/sh
# Output faults, for every format (collapsed, speedscope, pprof, svg, firefox; chosen by -f and by
# the -o extension) and every route (-o FILE, -o -, standard output, --each -o DIR/, diff -o), with a
# perf script input and a nettrace input:
#   (a) standard output or -o - on /dev/full: exit 3, "<stdout>: cannot write (No space left on
#       device)"
#   (b) -o where the file cannot be created: exit 3, the message names the path and the reason.
#       A directory of mode 555 stops only a user that is not root; as root a read-only tmpfs
#       takes its place. Always: a parent that is a regular file (ENOTDIR), a target that is a
#       directory ("is a directory", with the --each hint but for diff).
#   (c) after every failure an existing output is byte-identical and no temp file is left
#   (d) a full disk (a 64 KiB tmpfs, filled; and one with less room than the output, so the
#       failure comes after a short write): exit 3, ENOSPC named, the previous file intact
#   (e) --each whose first output fails: the others are still written, exit 3; on a full disk
#       every previous file is kept, exit 3
# Mounts are made in a private mount namespace (the script runs itself again under unshare -m),
# so none outlives the test; where mounting is not possible those cases say so and are skipped.
# usage: sh tests/cli/output_faults.sh TRACE2FLAME
if [ -z "${T2F_OUTPUT_FAULTS_NS:-}" ] && [ "$(id -u)" -eq 0 ] &&
	unshare -m true 2>/dev/null; then
	T2F_OUTPUT_FAULTS_NS=1
	export T2F_OUTPUT_FAULTS_NS
	exec unshare -m sh "$0" "$@"
fi
. "$(dirname "$0")/common.sh"

umask 022
ENOSPC='No space left on device'
# format:extension pairs; the extension alone picks the format
FMTS="collapsed:.folded speedscope:.speedscope.json pprof:.pb.gz svg:.svg firefox:.profile.json"

# re STRING: STRING quoted for an extended regular expression
re() { printf '%s' "$1" | sed 's/[].[^$*+?(){}|\\]/\\&/g'; }

# the nettrace input: fixtures/nettrace/v4-ptr8.desc written by tools/make-nettrace
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
NT=$TMP/v4-ptr8.nettrace
if ! "$PY" "$SRC/tools/make-nettrace" -o "$NT" "$SRC/fixtures/nettrace/v4-ptr8.desc" \
	>"$TMP/err" 2>&1; then
	bad "make-nettrace could not write the nettrace input"
	show_err
	finish
fi
INPUTS="burner.perf.txt $NT"

MOUNTS=
# mnt DIR OPTS: a tmpfs on DIR (made here); 0 when mounted
mnt() {
	mkdir -p "$1" && mount -t tmpfs -o "$2" tmpfs "$1" 2>/dev/null || return 1
	MOUNTS="$1 $MOUNTS"
}
cleanup() {
	for m in $MOUNTS; do umount "$m" 2>/dev/null; done
	chmod -R u+w "$TMP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# fails RC WHAT ERE ARGS: trace2flame ARGS exits RC and its stderr matches ERE
fails() {
	_rc=$1 _what=$2 _ere=$3
	shift 3
	expect "$_rc" "$_what" "$@" && stderr_has "$_what" "$_ere"
}

# no_temp WHAT DIR: no ".NAME.XXXXXX" temp file left in DIR
no_temp() {
	_left=$(find "$2" -maxdepth 1 -name '.*.??????' | head -n 3)
	if [ -z "$_left" ]; then ok; else bad "$1: temp file left behind: $_left"; fi
}

# kept WHAT FILE: FILE still holds the "precious" text it had before the run
kept() {
	if [ "$(cat "$2" 2>/dev/null)" = "precious $2" ]; then ok; else
		bad "$1: the existing $2 was changed"
	fi
}

# precious FILE...: an existing output, with a text that names it
precious() { for _f; do printf 'precious %s\n' "$_f" >"$_f"; done; }

# --- (a) standard output and -o - on /dev/full ----------------------------------------------
if [ -w /dev/full ]; then
	for in in $INPUTS; do
		for fe in $FMTS; do
			f=${fe%%:*}
			for o in "" "-o -"; do
				# shellcheck disable=SC2086 # o: no word or two
				t2f -f "$f" $o "$in" >/dev/full 2>"$TMP/err"
				rc=$?
				if [ "$rc" -eq 3 ]; then ok; else
					bad "-f $f ${o:-(stdout)} $in on /dev/full: exit $rc, want 3"
				fi
				stderr_has "-f $f ${o:-(stdout)} on /dev/full" \
					"^trace2flame: <stdout>: cannot write \\($ENOSPC\\)\$"
			done
		done
		t2f "$in" >/dev/full 2>"$TMP/err"
		rc=$?
		if [ "$rc" -eq 3 ]; then ok; else bad "default format $in on /dev/full: exit $rc"; fi
		stderr_has "default format on /dev/full" "^trace2flame: <stdout>: cannot write \\($ENOSPC\\)\$"
		for o in "" "-o -"; do
			# shellcheck disable=SC2086
			t2f diff $o "$in" "$in" >/dev/full 2>"$TMP/err"
			rc=$?
			if [ "$rc" -eq 3 ]; then ok; else bad "diff ${o:-(stdout)} $in on /dev/full: exit $rc"; fi
			stderr_has "diff ${o:-(stdout)} on /dev/full" \
				"^trace2flame: <stdout>: cannot write \\($ENOSPC\\)\$"
		done
	done
else
	echo "$TEST_NAME: /dev/full cannot be written here: (a) skipped"
fi

# --- (b) a file that cannot be created ------------------------------------------------------
# a parent that is a regular file: ENOTDIR, for -o, --each -o and diff -o
printf 'a file\n' >"$TMP/plain"
cp "$TMP/plain" "$TMP/plain.before"
for in in $INPUTS; do
	for fe in $FMTS; do
		f=${fe%%:*} ext=${fe#*:}
		p=$TMP/plain/out$ext
		fails 3 "-o under a file ($ext)" "^trace2flame: $(re "$p"): .*\\(Not a directory\\)\$" \
			-o "$p" "$in"
		p=$TMP/plain/out
		fails 3 "-f $f -o under a file" "^trace2flame: $(re "$p"): .*\\(Not a directory\\)\$" \
			-f "$f" -o "$p" "$in"
		fails 3 "--each -f $f -o under a file" \
			"^trace2flame: $(re "$TMP/plain/sub/"): Not a directory\$" \
			--each -f "$f" -o "$TMP/plain/sub/" "$in"
	done
	p=$TMP/plain/diff.svg
	fails 3 "diff -o under a file" "^trace2flame: $(re "$p"): .*\\(Not a directory\\)\$" \
		diff -o "$p" "$in" "$in"
done
same "the file used as a directory" "$TMP/plain.before" "$TMP/plain"
no_temp "under a file" "$TMP"

# a target that is a directory: EISDIR, the directory untouched
mkdir "$TMP/isdir" "$TMP/isdir/out.svg" "$TMP/isdir/out.folded"
for in in $INPUTS; do
	for fe in $FMTS; do
		f=${fe%%:*}
		fails 3 "-f $f -o DIR" "^trace2flame: $(re "$TMP/isdir/out.svg"): is a directory \\(use --each " \
			-f "$f" -o "$TMP/isdir/out.svg" "$in"
	done
	fails 3 "-o DIR.svg" "^trace2flame: $(re "$TMP/isdir/out.svg"): is a directory \\(use --each " \
		-o "$TMP/isdir/out.svg" "$in"
	fails 3 "diff -o DIR" "^trace2flame: $(re "$TMP/isdir/out.svg"): is a directory\$" \
		diff -o "$TMP/isdir/out.svg" "$in" "$in"
done
left=$(find "$TMP/isdir" | sort | tr '\n' ' ')
if [ "$left" = "$TMP/isdir $TMP/isdir/out.folded $TMP/isdir/out.svg " ]; then ok; else
	bad "the directories in the way were changed: $left"
fi

# a directory that cannot be written: mode 555, or as root (whom the mode does not stop) a
# read-only tmpfs; each holds an existing output per format that must survive
ro=$TMP/ro
mkdir "$ro"
ro_how=
for fe in $FMTS; do precious "$ro/out${fe#*:}" "$ro/out-f.${fe%%:*}" "$ro/diff.svg"; done
chmod 555 "$ro"
if ! (: >"$ro/probe") 2>/dev/null; then
	ro_how="mode 555" ro_err="Permission denied"
else
	rm -f "$ro/probe"
	chmod 755 "$ro"
	if mnt "$ro" size=64k; then
		for fe in $FMTS; do precious "$ro/out${fe#*:}" "$ro/out-f.${fe%%:*}" "$ro/diff.svg"; done
		if mount -o remount,ro "$ro" 2>/dev/null && ! (: >"$ro/probe") 2>/dev/null; then
			ro_how="a read-only tmpfs" ro_err="Read-only file system"
		fi
	fi
fi
if [ -n "$ro_how" ]; then
	mkdir -p "$TMP/each-src"
	for in in $INPUTS; do
		for fe in $FMTS; do
			f=${fe%%:*} ext=${fe#*:}
			p=$ro/out$ext
			fails 3 "-o in $ro_how ($ext)" "^trace2flame: $(re "$p"): .*\\($ro_err\\)\$" -o "$p" "$in"
			kept "-o in $ro_how ($ext)" "$p"
			p=$ro/out-f.$f
			fails 3 "-f $f -o in $ro_how" "^trace2flame: $(re "$p"): .*\\($ro_err\\)\$" \
				-f "$f" -o "$p" "$in"
			kept "-f $f -o in $ro_how" "$p"
			fails 3 "--each -f $f -o $ro_how/" "^trace2flame: $(re "$ro/")[^ ]+: .*\\($ro_err\\)\$" \
				--each -f "$f" -o "$ro/" "$in"
		done
		p=$ro/diff.svg
		fails 3 "diff -o in $ro_how" "^trace2flame: $(re "$p"): .*\\($ro_err\\)\$" \
			diff -o "$p" "$in" "$in"
		kept "diff -o in $ro_how" "$p"
	done
	n=$(find "$ro" -type f | wc -l)
	# shellcheck disable=SC2086 # FMTS: one word a format
	want=$((2 * $(echo $FMTS | wc -w) + 1)) # two a format, and diff.svg
	if [ "$n" -eq "$want" ]; then ok; else bad "$ro_how: $n files after the failures, want the $want there before"; fi
	no_temp "$ro_how" "$ro"
else
	echo "$TEST_NAME: no way to make a directory read-only here (root, no tmpfs): read-only case skipped"
fi

# --- (d) a full disk --------------------------------------------------------------------------
# a 64 KiB tmpfs holding an existing output per format and route, then filled to the last page;
# then the same with 8 KiB left and an input (made here) whose every output is larger, so the
# failure comes after a short write
wide=$TMP/wide.perf.txt
awk 'BEGIN { for (i = 0; i < 3000; i++) {
	printf "wide 7 [000] 1.%06d: 1 cpu-clock:\n", i
	printf "\t%x leaf%d+0x1 (/bin/wide)\n\t%x mid%d+0x1 (/bin/wide)\n", 8192 + 2 * i,
		i * 7919 % 100003, 8193 + 2 * i, i
	print "\t401000 main+0x1 (/bin/wide)\n"
} }' >"$wide"
full=$TMP/full
if mnt "$full" size=64k; then
	for fe in $FMTS; do
		precious "$full/out${fe#*:}" "$full/out-f.${fe%%:*}"
	done
	precious "$full/diff.svg"
	mkdir "$full/each"
	precious "$full/each/burner.perf.folded" "$full/each/multi.perf.folded" \
		"$full/each/v4-ptr8.folded"
	cat /dev/zero >"$full/filler" 2>/dev/null
	for room in 0 8K; do
		ins=$INPUTS
		if [ "$room" != 0 ]; then
			truncate -s "-$room" "$full/filler"
			ins=$wide
		fi
		free=$(df -k "$full" | awk 'NR == 2 { print $4 }')
		for in in $ins; do
			for fe in $FMTS; do
				f=${fe%%:*} ext=${fe#*:}
				p=$full/out$ext
				fails 3 "-o on a full disk ($ext, ${free}k free)" \
					"^trace2flame: $(re "$p"): cannot write \\($ENOSPC\\)\$" -o "$p" "$in"
				kept "-o on a full disk ($ext)" "$p"
				p=$full/out-f.$f
				fails 3 "-f $f -o on a full disk (${free}k free)" \
					"^trace2flame: $(re "$p"): cannot write \\($ENOSPC\\)\$" -f "$f" -o "$p" "$in"
				kept "-f $f -o on a full disk" "$p"
			done
			p=$full/diff.svg
			fails 3 "diff -o on a full disk (${free}k free)" \
				"^trace2flame: $(re "$p"): cannot write \\($ENOSPC\\)\$" diff -o "$p" "$in" "$in"
			kept "diff -o on a full disk" "$p"
		done
		no_temp "full disk, ${free}k free" "$full"
		[ "$room" = 0 ] || continue
		# (e) --each on a full disk: the first output fails, and so do the others; every
		# previous file is kept
		fails 3 "--each on a full disk" \
			"^trace2flame: $(re "$full/each/burner.perf.folded"): cannot write \\($ENOSPC\\)\$" \
			--each -o "$full/each/" burner.perf.txt multi.perf.txt "$NT"
		stderr_has "--each on a full disk: the count" '^trace2flame: 3 of 3 inputs failed$'
		for x in burner.perf multi.perf v4-ptr8; do
			kept "--each on a full disk ($x)" "$full/each/$x.folded"
		done
		no_temp "--each on a full disk" "$full/each"
	done
else
	echo "$TEST_NAME: cannot mount a tmpfs here (mount -t tmpfs -o size=64k): full-disk cases skipped"
fi

# --- (e) --each whose first output fails -----------------------------------------------------
# the first input's output is blocked by a directory; the others are written whole (the same
# bytes as their own conversions), replacing their previous files; exit 3, not 1
e=$TMP/each
for fe in $FMTS; do
	f=${fe%%:*}
	ext=${fe#*:}
	rm -rf "$e"
	mkdir -p "$e/burner.perf$ext"
	precious "$e/multi.perf$ext" "$e/v4-ptr8$ext"
	fails 3 "--each -f $f, first output blocked" \
		"^trace2flame: $(re "$e/burner.perf$ext"): .*\\(Is a directory\\)\$" \
		--each -f "$f" -o "$e/" burner.perf.txt multi.perf.txt "$NT"
	stderr_has "--each -f $f, first output blocked: the count" '^trace2flame: 1 of 3 inputs failed$'
	if [ -d "$e/burner.perf$ext" ]; then ok; else bad "--each -f $f: the directory in the way went"; fi
	t2f -f "$f" -o "$TMP/multi$ext" multi.perf.txt 2>/dev/null
	t2f -f "$f" -o "$TMP/nt$ext" "$NT" 2>/dev/null
	same "--each -f $f, first blocked: multi" "$TMP/multi$ext" "$e/multi.perf$ext"
	same "--each -f $f, first blocked: nettrace" "$TMP/nt$ext" "$e/v4-ptr8$ext"
	no_temp "--each -f $f, first blocked" "$e"
done
# a bad input and a failed output: the output's exit status (3) wins; a bad input alone is 1
rm -rf "$e"
mkdir -p "$e/burner.perf.folded"
fails 3 "--each, bad input then blocked output" "^trace2flame: 2 of 3 inputs failed\$" \
	--each -o "$e/" bad_binary.txt burner.perf.txt multi.perf.txt
rmdir "$e/burner.perf.folded"
fails 1 "--each, bad input only" "^trace2flame: 1 of 3 inputs failed\$" \
	--each -o "$e/" bad_binary.txt burner.perf.txt multi.perf.txt

finish
