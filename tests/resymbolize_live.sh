#!/bin/sh
# Re-symbolization of fresh perf recordings: names from address-only text + stripped binaries +
# a build-id debug tree must equal the names perf printed for the unstripped binaries.
#
# usage: sh tests/resymbolize_live.sh TRACE2FLAME
# env:   T2F_SOURCE_DIR  project root (set by ctest; default: this script's parent directory)
#        CI=true         a missing tool (perf, gcc, clang, ld.lld, binutils) or perf unable to
#                        record fails instead of being skipped
#        T2F_LIVE_KEEP=1 keep the work directory (its path is printed)
#        T2F_LIVE_ARGS   more trace2flame options for the address side of the four cases
#
# Builds the programs of fixtures/resym-live (README.md there) into a temp dir: a GNU ld PIE, a
# GNU ld non-PIE executable, an lld PIE (p_vaddr != p_offset) and a GNU ld PIE whose hot
# functions live in a GNU ld shared library. Records each with
#   perf record -e cpu-clock:u -g --buildid-mmap -N
# (a private --buildid-dir, so no cached copy outlives the strip) and prints the recording twice
# while the unstripped binaries are in place: with perf's names (default fields), and address-only
#   perf script -F comm,pid,tid,time,event,ip,dso --show-mmap-events
# (MMAP2 lines carry the build-ids: checked against readelf -n). The PIE and the library's
# program are also recorded without -g and printed address-only with only the tid in the header
#   perf script -F comm,tid,time,event,ip,dso --show-mmap-events --show-task-events
# (one-line samples: absolute ips, turned into file offsets through the MMAP2 mapping of the
# sample's process). Then each binary's debug part
# goes to DEBUG/.build-id/xx/rest.debug, the unstripped file is moved away and a stripped copy
# (objcopy --strip-all, which keeps the build-id) takes its recorded path.
#
# Samples are paired by (tid, time) (--ns); of each common sample only the frames of the
# programs' own modules are kept, and its comm becomes the pair index, so every folded line is
# one sample. The named side goes through trace2flame as printed; the address side with
# --resymbolize --debug-dir DEBUG. Asserted per case: >= 99.9% of the compared frames equal,
# stacks of one depth, every sample paired (PLT stubs counted apart: foo@plt in perf's text, or
# perf's _init / _fini where its tree puts that sizeless symbol over the first stub and these
# rules, the default for text, name the stub foo@plt).
# Then the checks that must fail: address text without MMAP2 lines (no build-id: nothing
# resolved), a debug file of another build of the PIE at its build-id path (refused), that
# build's unstripped binary in --symbol-path with --unsafe-build-id-match (accepted: names differ).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
LIVE=$SRC/fixtures/resym-live

skip() {
	if [ "${CI:-}" = true ]; then
		echo "$TEST_NAME: $*, and CI=true requires it"
		exit 1
	fi
	echo "$TEST_NAME: $*: skipping"
	exit 0
}

for tool in perf gcc clang ld.lld objcopy readelf; do
	command -v $tool >/dev/null 2>&1 || skip "$tool not found"
done
make_tmp
if [ "${T2F_LIVE_KEEP:-}" = 1 ]; then
	trap - EXIT
	echo "$TEST_NAME: work directory $TMP"
fi
BIN=$TMP/bin
mkdir -p "$BIN" "$TMP/orig" "$TMP/debug" "$TMP/rec"

# --- build ---------------------------------------------------------------------------------------
CF="-O1 -fno-omit-frame-pointer -g"
build() {
	# shellcheck disable=SC2086 # CF is a list of flags
	gcc $CF -fPIE -pie -o "$BIN/pie" "$LIVE/work.c" &&
	gcc $CF -fno-pie -no-pie -o "$BIN/nopie" "$LIVE/work.c" &&
	clang $CF -fuse-ld=lld -fPIE -pie -o "$BIN/lld" "$LIVE/work.c" &&
	gcc $CF -fPIC -shared -o "$BIN/libwork.so" "$LIVE/libwork.c" &&
	gcc $CF -fPIE -pie -o "$BIN/libmain" "$LIVE/libmain.c" -L"$BIN" -lwork -Wl,-rpath,"$BIN" &&
	gcc $CF -fPIE -pie -DRESYM_VARIANT=2 -o "$TMP/orig/pie.variant" "$LIVE/work.c"
}
if ! build >"$TMP/build.log" 2>&1; then
	bad "building fixtures/resym-live failed:"
	sed 's/^/    /' "$TMP/build.log"
	finish
fi

# --- record --------------------------------------------------------------------------------------
PERF="perf --buildid-dir $TMP/buildid-cache"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')
for prog in pie nopie lld libmain; do
	d=$TMP/rec/$prog
	if ! (cd "$BIN" && $PERF record -q -N -e cpu-clock:u -g --buildid-mmap -o "$d.data" \
			-- "./$prog" 0.6) >"$d.log" 2>&1 || [ ! -s "$d.data" ]; then
		sed 's/^/    /' "$d.log"
		skip "perf cannot record cpu-clock:u here (perf_event_paranoid $paranoid)"
	fi
	if ! $PERF script -i "$d.data" --ns >"$d.named.txt" 2>"$d.log" ||
	   ! $PERF script -i "$d.data" --ns -F comm,pid,tid,time,event,ip,dso --show-mmap-events \
			>"$d.addrs.txt" 2>>"$d.log"; then
		bad "$prog: perf script failed"
		sed 's/^/    /' "$d.log"
	fi
done
# one-line samples (no -g): the absolute ip goes through the process's MMAP2 mapping; the header
# names only the tid (perf script's default), so the thread is matched to its process
for prog in pie libmain; do
	d=$TMP/rec/$prog.nocg
	if ! (cd "$BIN" && $PERF record -q -N -e cpu-clock:u --buildid-mmap -o "$d.data" \
			-- "./$prog" 0.3) >"$d.log" 2>&1 || [ ! -s "$d.data" ] ||
	   ! $PERF script -i "$d.data" --ns >"$d.named.txt" 2>"$d.log" ||
	   ! $PERF script -i "$d.data" --ns -F comm,tid,time,event,ip,dso --show-mmap-events \
			--show-task-events >"$d.addrs.txt" 2>>"$d.log"; then
		bad "$prog: perf record or script without -g failed"
		sed 's/^/    /' "$d.log"
	fi
done

# --- strip ---------------------------------------------------------------------------------------
build_id() {
	readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'
}
# debug_path DIR ID: where DIR's build-id tree keeps the debug file of ID.
debug_path() {
	echo "$1/.build-id/$(echo "$2" | cut -c1-2)/$(echo "$2" | cut -c3-).debug"
}
for f in pie nopie lld libmain libwork.so; do
	id=$(build_id "$BIN/$f")
	if ! grep -q "PERF_RECORD_MMAP2 .*$id.*: r-xp $BIN/$f\$" "$TMP"/rec/*[!g].addrs.txt; then
		bad "$f: no PERF_RECORD_MMAP2 line with its build-id $id in the address-only text"
	fi
	dbg=$(debug_path "$TMP/debug" "$id")
	mkdir -p "$(dirname "$dbg")"
	mv "$BIN/$f" "$TMP/orig/$f"
	if ! objcopy --only-keep-debug "$TMP/orig/$f" "$dbg" ||
	   ! objcopy --strip-all "$TMP/orig/$f" "$BIN/$f"; then
		bad "$f: objcopy failed"
	fi
	if readelf -SW "$BIN/$f" | grep -q ' \.symtab '; then bad "$f: still has a .symtab"; fi
done

# --- pairing and comparison ----------------------------------------------------------------------
# keys TEXT: "tid time" of every sample header of perf script text (not PERF_RECORD lines).
keys() {
	LC_ALL=C awk '/^[^\t#]/ && !/PERF_RECORD_/ { for (i = 2; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $(i - 1); sub(/.*\//, "", t); print t, $i; break } }' "$1"
}

# own_frames KEYS IN OUT: the samples of IN whose key is in KEYS, comm := "s" + the key's line
# number (perf pads the comm of one-line samples with blanks), with only the frames of modules
# under $BIN; PERF_RECORD lines are kept.
own_frames() {
	LC_ALL=C awk -v mod="($BIN/" 'NR == FNR { idx[$0] = "s" FNR; next }
		/PERF_RECORD_/ { print; next }
		/^[^\t#]/ { keep = 0; k = ""
			for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
				t = $(i - 1); sub(/.*\//, "", t); k = t " " $i; break }
			if (k in idx) { keep = 1; sub(/^ *[^ ]+/, idx[k]); print }
			next }
		/^$/ { if (keep) print; keep = 0; next }
		keep && index($0, mod) { print }' "$1" "$2" >"$3"
}

# compare REF_FOLDED OURS_FOLDED DIFFS: frame-by-frame agreement of one-sample-per-line stacks;
# prints "compared equal unresolved plt shape unpaired", the first differing frames to DIFFS.
compare() {
	LC_ALL=C awk -v out="$3" '
		function stack(line, a,   s) { s = line; sub(/ [0-9]+$/, "", s); return split(s, a, ";") }
		NR == FNR { stack($0, a); ref[a[1]] = $0; next }
		{ n = stack($0, b); if (!(b[1] in ref)) { unpaired++; next }
		  seen[b[1]] = 1
		  if (stack(ref[b[1]], a) != n) { shape++; next }
		  for (i = 2; i <= n; i++) {
			if (a[i] ~ /@plt$/ || (b[i] ~ /@plt$/ && a[i] ~ /^_(init|fini)$/)) {
				plt++
				continue
			}
			cmp++
			if (a[i] == b[i]) eq++
			else if (b[i] ~ /^\[[^]]*\]$/) unres++
			if (a[i] != b[i] && diffs++ < 8)
				printf "    %s frame %d: perf %s, trace2flame %s\n", b[1], i - 1, a[i], b[i] >out
		  } }
		END { for (k in ref) if (!(k in seen)) unpaired++
		      printf "%d %d %d %d %d %d\n", cmp, eq, unres, plt, shape, unpaired }' "$1" "$2"
}

# run CASE REF ADDRS ARGS...: pairs the two texts, converts them (ARGS go to trace2flame for the
# address side) and sets RES to the compare result, NPAIRS to the number of paired samples.
run() {
	_c=$1 _ref=$2 _addrs=$3
	shift 3
	keys "$_ref" | sort >"$TMP/k1"
	keys "$_addrs" | sort >"$TMP/k2"
	# a key that occurs twice in one text cannot pair: drop it
	LC_ALL=C comm -12 "$TMP/k1" "$TMP/k2" | uniq -u >"$TMP/keys"
	NPAIRS=$(wc -l <"$TMP/keys")
	own_frames "$TMP/keys" "$_ref" "$TMP/$_c.ref.txt"
	own_frames "$TMP/keys" "$_addrs" "$TMP/$_c.addrs.txt"
	: >"$TMP/$_c.diffs"
	RES="0 0 0 0 0 0"
	# names as perf prints them: no inline frames (perf script without --inline)
	if ! t2f -q --no-inline --weight samples "$TMP/$_c.ref.txt" -o "$TMP/$_c.ref.folded" \
		2>"$TMP/$_c.err" ||
	   ! t2f -q --no-inline --stats --weight samples "$@" "$TMP/$_c.addrs.txt" -o "$TMP/$_c.addrs.folded" \
			2>"$TMP/$_c.err"; then
		sed 's/^/    /' "$TMP/$_c.err" >"$TMP/$_c.diffs"
		return 1
	fi
	RES=$(compare "$TMP/$_c.ref.folded" "$TMP/$_c.addrs.folded" "$TMP/$_c.diffs")
}

# agrees COMPARED EQUAL SHAPE UNPAIRED: >= 99.9% equal, same depths, all paired
agrees() {
	[ "$1" -gt 0 ] && [ $(($2 * 1000)) -ge $(($1 * 999)) ] && [ "$3" -eq 0 ] && [ "$4" -eq 0 ]
}

RESYM="--resymbolize --debug-dir $TMP/debug"
for prog in pie nopie lld libmain; do
	d=$TMP/rec/$prog
	# shellcheck disable=SC2086 # lists of options
	run "$prog" "$d.named.txt" "$d.addrs.txt" $RESYM ${T2F_LIVE_ARGS:-} ||
		bad "$prog: trace2flame failed"
	# shellcheck disable=SC2086 # RES: six numbers
	set -- $RES
	echo "$prog: $NPAIRS paired samples; frames compared $1, equal $2, unresolved $3;" \
		"PLT stubs $4, stacks of another depth $5, unpaired $6"
	if agrees "$1" "$2" "$5" "$6"; then ok; else
		bad "$prog: names differ from perf's:"
		cat "$TMP/$prog.diffs"
		grep -A4 "^  $BIN/" "$TMP/$prog.err" | sed 's/^/    /'
		if grep -q "^  $BIN/.*no build-id known" "$TMP/$prog.err"; then
			bad "$prog: trace2flame did not take the build-ids of the PERF_RECORD_MMAP2 lines:"
			grep -m2 "PERF_RECORD_MMAP2 .*: r-xp $BIN/" "$d.addrs.txt" | sed 's/^/    /'
		fi
	fi
done

for prog in pie libmain; do
	d=$TMP/rec/$prog.nocg
	# only the samples in the programs' own modules (a one-line sample is its header line)
	grep -e PERF_RECORD_ -e "($BIN/" "$d.named.txt" >"$d.own.named.txt"
	grep -e PERF_RECORD_ -e "($BIN/" "$d.addrs.txt" >"$d.own.addrs.txt"
	# shellcheck disable=SC2086 # lists of options
	run "$prog.nocg" "$d.own.named.txt" "$d.own.addrs.txt" $RESYM || bad "$prog: trace2flame failed"
	# shellcheck disable=SC2086 # RES: six numbers
	set -- $RES
	echo "$prog without -g: $NPAIRS paired samples; frames compared $1, equal $2, unresolved $3;" \
		"stacks of another depth $5, unpaired $6"
	if agrees "$1" "$2" "$5" "$6"; then ok; else
		bad "$prog without -g: names differ from perf's:"
		cat "$TMP/$prog.nocg.diffs"
	fi
done

# --- checks that must fail -----------------------------------------------------------------------
d=$TMP/rec/pie
# 1. no MMAP2 lines: no build-id for the program, so nothing of it is resolved
grep -v PERF_RECORD_MMAP "$d.addrs.txt" >"$TMP/nomap.txt"
# shellcheck disable=SC2086
run nomap "$d.named.txt" "$TMP/nomap.txt" $RESYM
# shellcheck disable=SC2086
set -- $RES
echo "pie without MMAP2 lines: frames compared $1, equal $2, unresolved $3"
if [ "$1" -gt 0 ] && [ "$2" -eq 0 ] && [ "$3" -eq "$1" ]; then ok; else
	bad "pie without build-ids: frames were resolved"
fi
# ... and without --stats one warning line counts them
t2f "$TMP/nomap.addrs.txt" -o "$TMP/nomap.plain.folded" 2>"$TMP/nomap.warn" || :
if grep -Eq "^trace2flame: warning: $TMP/nomap.addrs.txt: [0-9]+ frames? of 1 module not named: the recording has no build-id" "$TMP/nomap.warn"; then ok; else
	bad "pie without build-ids: no warning about the unresolved frames:"
	sed 's/^/    /' "$TMP/nomap.warn"
fi

# 2. the debug file of another build (-DRESYM_VARIANT=2) at the PIE's build-id path
mkdir -p "$TMP/wrong"
cp -R "$TMP/debug/.build-id" "$TMP/wrong/"
objcopy --only-keep-debug "$TMP/orig/pie.variant" \
	"$(debug_path "$TMP/wrong" "$(build_id "$TMP/orig/pie")")"
run wrong "$d.named.txt" "$d.addrs.txt" --resymbolize --debug-dir "$TMP/wrong"
# shellcheck disable=SC2086
set -- $RES
echo "pie with a wrong debug file: frames compared $1, equal $2, unresolved $3"
if [ "$1" -gt 0 ] && [ "$2" -eq 0 ] && [ "$3" -eq "$1" ] &&
	grep -q "build-id mismatch" "$TMP/wrong.err"; then ok; else
	bad "pie with a wrong debug file: not refused"
	grep -A4 "^  $BIN/pie" "$TMP/wrong.err" | sed 's/^/    /'
fi

# 3. the unstripped other build as the program in --symbol-path: refused by its build-id; with
# --unsafe-build-id-match accepted, and its names differ from perf's
mkdir -p "$TMP/wrongsym"
cp "$TMP/orig/pie.variant" "$TMP/wrongsym/pie"
run unsafe "$d.named.txt" "$d.addrs.txt" --resymbolize --symbol-path "$TMP/wrongsym" \
	--unsafe-build-id-match
# shellcheck disable=SC2086
set -- $RES
echo "pie with another build's binary, --unsafe-build-id-match: frames compared $1, equal $2," \
	"unresolved $3"
if [ "$3" -lt "$1" ] && ! agrees "$1" "$2" "$5" "$6"; then ok; else
	bad "pie with another build's binary: its names pass as perf's, or none were found"
	grep -A4 "^  $BIN/pie" "$TMP/unsafe.err" | sed 's/^/    /'
fi

finish
