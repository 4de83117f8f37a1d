#!/bin/sh
# Hostile inputs under resource limits: every file of the fuzz corpora (tests/fuzz/corpus/*/:
# perf script text, plain and compressed, nettrace, perf.data, whole-conversion inputs, and ELF
# files, which go through `trace2flame symbols` and `resolve`), the broken ELF fixtures
# ($T2F_ELF_FIXTURES/broken) and inputs made here run under a memory bound of 1 GiB (below) and
# a timeout per process (HANG). Conversions go several hundred files a process (--each): each
# quarter of a reader's corpus through one of the four formats, the whole-conversion corpus
# through all four (one, in the sanitizer build: below); a failed batch runs again file by file
# to name the culprit. Each process must exit with a status its help documents (0 or 1 for
# conversions, 0, 1 or 3 for symbols and resolve), never by a signal or the timeout, and never
# say it ran out of memory. Made here:
#   - perf script text of 10 million samples, each with its own frame, streamed through a pipe
#     (awk stops when trace2flame does): --max-frames 1000000 stops it with "more than 1000000
#     distinct frames", exit 1, at about 220 MB resident (checked below 400 MiB; 460 MB under
#     ASan, checked below 800 MiB);
#   - a nettrace file whose first block claims 4 GiB (exit 1, the offset named), and one that
#     claims just under the 256 MiB unit limit and ends after 3 KB (exit 0: its complete blocks
#     are kept, with a warning; under 64 MiB resident, 3 MB measured, 13 MB under ASan: nothing
#     the size of the claim is allocated).
# A stack of a million frames is tests/cli/deep_stacks.sh's (every format); it is not repeated
# here.
#
# The address-space limit, measured on x86-64 (glibc 2.36): the fixtures and every corpus file
# convert within 64 MiB with -j 2. The same 10-million-frame input under the default
# --max-frames (2,000,000) peaks at 480 MB resident with -j 1 (570 MB with -j 2) and needs
# 650 MiB of address space with -j 1, 700-768 MiB with -j 2 (thread stacks and malloc arenas
# included), so 1 GiB would hold it with a quarter spare; but it costs 4-5 s of CPU, too close
# to a 10 s timeout on a loaded 2-core machine, hence the lower cap here. -j is given
# everywhere so the number of threads (their stacks and arenas) does not follow the machine.
#
# The sanitizer build (tests/CMakeLists.txt sets T2F_SANITIZER_LOGS there) cannot limit the
# address space: ASan reserves terabytes of shadow memory at start. There ASan's own options,
# added to the ASAN_OPTIONS the build sets (its report directory), bound memory instead: a
# process resident over 1 GiB is stopped with a report (hard_rss_limit_mb, checked every 0.1 s),
# and an allocation over 1 GiB fails as it would under the address-space limit
# (max_allocation_size_mb with allocator_may_return_null). Resident sizes are about twice the
# normal build's there (shadow memory, redzones, freed memory held in quarantine): each corpus
# batch peaks at 60-80 MB, the 10-million-frame input at 460 MB, hence its own check there. The
# test takes 8 s of CPU in the normal build and would take 31 s under ASan (23 s of it system
# time: ASan maps, faults in and unmaps memory for every process, thread and large buffer),
# about half of it in the 3552 conversions of the whole-conversion corpus through all four
# formats. So under ASan that corpus is sampled like the readers' corpora, each file through one
# format (a quarter of the corpus per format; every file goes through every writer under the
# sanitizers in fuzz/replay-convert): 3605 conversions instead of 6269, 20 s of CPU.
# usage: sh tests/cli/hostile_limits.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

LIMIT_KB=1048576
PEAK_FRAMES_KB=409600 # 10M distinct frames, --max-frames 1000000: peak resident size
SAN=
if [ -n "${T2F_SANITIZER_LOGS:-}" ]; then
	SAN=1
	PEAK_FRAMES_KB=819200
	mb=$((LIMIT_KB / 1024))
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$mb:max_allocation_size_mb=$mb"
	ASAN_OPTIONS="$ASAN_OPTIONS:allocator_may_return_null=1"
	export ASAN_OPTIONS
fi
CORPUS=$SRC/tests/fuzz/corpus
BATCH=300 # files per --each process: about 0.5 s of work, far from the timeout
HANG=60   # seconds: a run taking longer is a hang (the slowest case takes 1-3 s, more under load)

# bounded CMD ARGS: CMD ARGS with 1 GiB of address space (ulimit -v: dash, bash; under ASan the
# options set above instead) and HANG s
# shellcheck disable=SC3045
bounded() {
	if [ -n "$SAN" ]; then
		timeout "$HANG" "$@"
	else
		(ulimit -v "$LIMIT_KB" && exec timeout "$HANG" "$@")
	fi
}
limited() { bounded "$T2F_BIN" "$@"; }

# judge WHAT RC ALLOWED ERRFILE: RC is one of ALLOWED ("0 1"), and ERRFILE shows no failed
# allocation
judge() {
	case " $3 " in
	*" $2 "*) ;;
	*)
		case $2 in
		124) _why="killed by the $HANG s timeout" ;;
		12[5-9] | 1[3-9][0-9] | 2[0-9][0-9]) _why="died (status $2: a signal or timeout's own error)" ;;
		*) _why="exit $2, want one of: $3" ;;
		esac
		bad "$1: $_why"
		head -n 3 "$4" | sed 's/^/    stderr: /'
		return 1
		;;
	esac
	if grep -q 'Cannot allocate memory\|out of memory' "$4"; then
		bad "$1: ran out of memory under the $((LIMIT_KB / 1024)) MiB limit"
		grep -m 3 'Cannot allocate memory\|out of memory' "$4" | sed 's/^/    stderr: /'
		return 1
	fi
	ok
}

# each_batch WHAT FMT JOBS FILE...: the files through --each; every input accounted for (an
# output written or counted in "K of N inputs failed"); on a failure the files run alone to
# name the culprits (the first 5)
each_batch() {
	_what=$1 _fmt=$2 _j=$3
	shift 3
	_out=$TMP/out
	rm -rf "$_out"
	mkdir "$_out"
	limited --each -q -f "$_fmt" -j "$_j" -o "$_out/" "$@" >/dev/null 2>"$TMP/err"
	_rc=$?
	if ! judge "$_what -f $_fmt -j $_j ($# files)" "$_rc" "0 1" "$TMP/err"; then
		_n=0
		for _f; do
			limited -q -f "$_fmt" -j "$_j" "$_f" >/dev/null 2>"$TMP/err1"
			judge "$_what: $_f alone, -f $_fmt -j $_j" $? "0 1" "$TMP/err1" >/dev/null ||
				{ echo "    culprit: $_f" && _n=$((_n + 1)); }
			[ "$_n" -lt 5 ] || break
		done
		return
	fi
	_written=$(find "$_out" -type f | wc -l)
	_failed=$(sed -n 's/^trace2flame: \([0-9]*\) of [0-9]* inputs failed$/\1/p' "$TMP/err")
	if [ $((_written + ${_failed:-0})) -eq $# ]; then ok; else
		bad "$_what -f $_fmt: $_written outputs + ${_failed:-0} failed != $# inputs"
	fi
	total=$((total + $#))
}

# --- the conversion corpora --------------------------------------------------------------------
# The readers' corpora in four parts, one format each (-j 2 and 1 in turn); the whole-conversion
# corpus (the writers' hostile inputs) in parts of $BATCH files through every format (under ASan
# in four parts, one format each, as the readers' corpora).
FMTS="collapsed speedscope pprof svg"
total=0
for dir in perf_script perf_script_par nettrace convert perf_data; do
	[ -d "$CORPUS/$dir" ] || { bad "no corpus $CORPUS/$dir"; continue; }
	find "$CORPUS/$dir" -type f | sort >"$TMP/list"
	n=$(wc -l <"$TMP/list")
	if [ "$n" -gt 100 ]; then ok; else bad "corpus $dir: $n files, want more than 100"; fi
	rm -f "$TMP"/part.*
	every=
	[ "$dir" = convert ] && [ -z "$SAN" ] && every=1 # every format on each file
	if [ -n "$every" ]; then
		split -l "$BATCH" "$TMP/list" "$TMP/part."
	else
		split -n l/4 "$TMP/list" "$TMP/part."
	fi
	i=0 k=0
	for part in "$TMP"/part.*; do
		i=$((i + 1))
		fmts=$FMTS sj=$i # every format: each part's formats start on the other -j
		# shellcheck disable=SC2086 # FMTS: four words
		[ -n "$every" ] || { set -- $FMTS && eval "fmts=\${$(((i - 1) % 4 + 1))}" && sj=0; }
		for fmt in $fmts; do
			k=$((k + 1))
			# shellcheck disable=SC2046 # corpus names: hex digits, no blanks
			each_batch "corpus $dir ${part##*.}" "$fmt" $(((k + sj) % 2 + 1)) $(cat "$part")
		done
	done
done
echo "$TEST_NAME: $total conversions of corpus files"

# --- ELF files: symbols (all in one process) and resolve (one process each, two at once) -------
ELF_BROKEN=${T2F_ELF_FIXTURES:-}/broken
if [ -z "${T2F_ELF_FIXTURES:-}" ] || [ ! -d "$ELF_BROKEN" ]; then
	bad "no broken ELF fixtures (T2F_ELF_FIXTURES=${T2F_ELF_FIXTURES:-unset}: the test needs the" \
		"ctest fixture elf)"
	ELF_BROKEN=
fi
find "$CORPUS/elf_module" ${ELF_BROKEN:+"$ELF_BROKEN"} -type f | sort >"$TMP/elf"
n=$(wc -l <"$TMP/elf")
if [ "$n" -gt 200 ]; then ok; else bad "ELF files: $n, want more than 200"; fi
# shellcheck disable=SC2046
limited symbols --demangle $(cat "$TMP/elf") >/dev/null 2>"$TMP/err"
judge "symbols --demangle of $n ELF files" $? "0 1 3" "$TMP/err"
mkdir "$TMP/nodebug"
# resolve_half PARITY: every other ELF file; prints "RC FILE" per file, stderr kept on a failure
resolve_half() {
	awk -v p="$1" 'NR % 2 == p' "$TMP/elf" | while read -r f; do
		limited resolve --debug-dir "$TMP/nodebug" "$f" 0 1000 1130 401000 7fffffffffff \
			ffffffffffffffff >/dev/null 2>"$TMP/rerr.$1"
		rc=$?
		if grep -q 'Cannot allocate memory\|out of memory' "$TMP/rerr.$1"; then rc=nomem; fi
		echo "$rc $f"
	done >"$TMP/resolve.$1"
}
resolve_half 0 &
resolve_half 1
wait
cat "$TMP/resolve.0" "$TMP/resolve.1" >"$TMP/resolve"
n2=$(wc -l <"$TMP/resolve")
if [ "$n2" -eq "$n" ]; then ok; else bad "resolve ran on $n2 of $n ELF files"; fi
awk '$1 != 0 && $1 != 1 && $1 != 3' "$TMP/resolve" >"$TMP/resolve.bad"
if [ -s "$TMP/resolve.bad" ]; then
	bad "resolve: $(wc -l <"$TMP/resolve.bad") files did not exit 0, 1 or 3 (124: timeout," \
		"nomem: out of memory):"
	head -n 5 "$TMP/resolve.bad" | sed 's/^/    /'
else
	ok
fi

# --- made here ---------------------------------------------------------------------------------
# 10 million samples, each with a frame of its own, through a pipe; the peak resident size
# (GNU time's %M) shows the cap bounds memory
if [ -x /usr/bin/time ]; then
	peak() { bounded /usr/bin/time -f %M -o "$TMP/rss" "$T2F_BIN" "$@"; }
else
	peak() { limited "$@"; }
fi
awk 'BEGIN { for (i = 0; i < 10000000; i++) printf "x 7 1.000001: 1 cpu-clock:\n\t0 u%d (x)\n\n", i }' \
	2>/dev/null | peak -j 1 --max-frames 1000000 -f collapsed - >/dev/null 2>"$TMP/err"
rc=$?
judge "10M distinct frames" "$rc" 1 "$TMP/err" &&
	stderr_has "10M distinct frames" \
		'^trace2flame: <stdin>: more than 1000000 distinct frames \(--max-frames N raises'
if [ -s "$TMP/rss" ]; then
	kb=$(tail -n 1 "$TMP/rss")
	echo "$TEST_NAME: 10M distinct frames, --max-frames 1000000: peak resident ${kb} KiB"
	if [ "$kb" -lt "$PEAK_FRAMES_KB" ]; then ok; else
		bad "10M distinct frames: peak resident $kb KiB, want < $((PEAK_FRAMES_KB / 1024)) MiB"
	fi
fi

# nettrace: the first block's size field (after the MetadataBlock type name and its end tag)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
nt=$TMP/v4.nettrace
if "$PY" "$SRC/tools/make-nettrace" -o "$nt" "$SRC/fixtures/nettrace/v4-ptr8.desc" >"$TMP/err" 2>&1
then
	at=$(grep -obUa MetadataBlock "$nt" | head -n 1 | cut -d: -f1)
	at=$((at + 14))
	# claim BYTES NAME: a copy of the trace whose first block's size is the 4 little-endian
	# BYTES (printf %b octal escapes)
	claim() {
		cp "$nt" "$TMP/$2"
		printf '%b' "$1" | dd of="$TMP/$2" bs=1 seek="$at" conv=notrunc 2>/dev/null
	}
	claim '\0377\0377\0377\0377' 4g.nettrace
	(cd "$TMP" && limited 4g.nettrace >/dev/null 2>"$TMP/err")
	judge "nettrace block of 4 GiB" $? 1 "$TMP/err" &&
		stderr_has "nettrace block of 4 GiB" \
			"^trace2flame: 4g\\.nettrace: offset $at: block size 4294967295 exceeds the limit"
	claim '\0377\0377\0377\0017' 256m.nettrace
	rm -f "$TMP/rss"
	(cd "$TMP" && peak 256m.nettrace >/dev/null 2>"$TMP/err")
	judge "nettrace block of 256 MiB, file of 3 KB" $? 0 "$TMP/err" &&
		stderr_has "nettrace block of 256 MiB" \
			'^trace2flame: warning: 256m\.nettrace: offset [0-9]+: the file ends inside a block'
	if [ -s "$TMP/rss" ]; then
		kb=$(tail -n 1 "$TMP/rss")
		echo "$TEST_NAME: nettrace block of 256 MiB, file of 3 KB: peak resident ${kb} KiB"
		if [ "$kb" -lt 65536 ]; then ok; else
			bad "nettrace block of 256 MiB: peak resident $kb KiB, want < 64 MiB"
		fi
	fi
else
	bad "make-nettrace could not write the nettrace input"
	show_err
fi

finish
