#!/bin/sh
# tests/cache/cache.sh: the symbol cache (docs/symbols.md, Symbol cache) gives the bytes a run
# without it gives. fixtures/dwarf/inl.c (C) and tmpl.cc (C++), built with -O2 -g and frame
# pointers, and fixtures/elf/prog.c with lib.c (a shared library, its symbols in a separate
# debug file found by build-id) are recorded with `perf record -g -e cpu-clock:u
# --buildid-all`. For each recording and each of folded (inlined frames marked), pprof and
# speedscope, and for the perf script text route (--buildids): --no-cache, then a cold run
# (an empty cache directory), then a warm one, must give the same bytes (the cache written on a
# thread of its own with -j 2, as folded is run, and by the calling thread with -j 1, as pprof
# is); the warm run must
# take every answer from the cache ("0 looked up in the files", no file missing) and leave
# the files as they were; both print the naming stage's time and CPU time (`--stats`, `time:`).
# Then the directory is 0700, its files 0600, and `cache list`,
# `verify`, `clear` and `dir` say what they hold; a module with new addresses extends its
# file; --cache-max evicts. A module whose recorded path is gone, named from a build-id tree,
# is taken from the cache on the second of two runs, which writes no file; so is the one of two
# hard links that a run answered from its cache file. A program linked without a build-id,
# recorded here (trusted by its path), is cached by its path: folded and pprof cold, warm and
# uncached the same, the warm run answered from the cache alone. Skipped when perf cannot
# record here.
# usage: sh tests/cache/cache.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
cache_setup

record() {
	_n=$1
	record_user "$@" || return 1
	perf script -i "$TMP/$_n.data" >"$TMP/$_n.txt" 2>/dev/null &&
		perf buildid-list -i "$TMP/$_n.data" >"$TMP/$_n.ids" 2>/dev/null
}

same() {
	if [ ! -s "$2" ]; then
		bad "$1: nothing written ($2)"
	elif cmp -s "$2" "$3"; then ok; else
		bad "$1 differ"
		cmp "$2" "$3" | head -3
	fi
}

# check NAME INPUT EXT ARGS...: --no-cache, cold and warm give the same bytes
check() {
	_n=$1 _in=$2 _x=$3
	shift 3
	rm -rf "$C"
	t2f "$@" --no-cache "$_in" -o "$TMP/$_n.ref.$_x" 2>"$TMP/$_n.err" ||
		bad "$_n: --no-cache failed: $(head -3 "$TMP/$_n.err")"
	[ ! -e "$C" ] && ok || bad "$_n: --no-cache made the cache directory"
	t2f "$@" --stats "$_in" -o "$TMP/$_n.cold.$_x" 2>"$TMP/$_n.cold.err" ||
		bad "$_n: cold run failed: $(head -3 "$TMP/$_n.cold.err")"
	ls -l --time-style=+%s.%N "$C" >"$TMP/$_n.files.cold"
	t2f "$@" --stats "$_in" -o "$TMP/$_n.warm.$_x" 2>"$TMP/$_n.warm.err" ||
		bad "$_n: warm run failed: $(head -3 "$TMP/$_n.warm.err")"
	same "$_n: --no-cache and cold" "$TMP/$_n.ref.$_x" "$TMP/$_n.cold.$_x"
	same "$_n: --no-cache and warm" "$TMP/$_n.ref.$_x" "$TMP/$_n.warm.$_x"
	_cold=$(grep '^symbol cache' "$TMP/$_n.cold.err")
	_warm=$(grep '^symbol cache' "$TMP/$_n.warm.err")
	case $_cold in
	*": 0 files used, "[1-9]*" missing, 0 ignored"*"; 0 addresses answered from it, "[1-9]*) ok ;;
	*) bad "$_n: cold run: $_cold" ;;
	esac
	case $_warm in
	*": "[1-9]*" files used, 0 missing, 0 ignored"*" 0 written,"*" answered from it, 0 looked up in the files") ok ;;
	*) bad "$_n: warm run: $_warm" ;;
	esac
	# the cold run says how long its cache files took, and where: on a thread of their own
	# with -j 2, within the names' time with -j 1; the warm run wrote none
	case " $* " in
	*" -j 1 "*) _where="within the names' time" ;;
	*" -j 2 "*) _where="on a thread of their own while the output was made" ;;
	*) _where= ;;
	esac
	if [ -n "$_where" ]; then
		grep -q "^symbol cache files written in [0-9.]* s, $_where" "$TMP/$_n.cold.err" && ok ||
			bad "$_n: cold run: $(grep '^symbol cache files' "$TMP/$_n.cold.err")"
	fi
	! grep -q '^symbol cache files written' "$TMP/$_n.warm.err" && ok ||
		bad "$_n: warm run: $(grep '^symbol cache files' "$TMP/$_n.warm.err")"
	# both say how long naming took, in time and CPU, for the warm run's to be held to the cold's
	for _r in cold warm; do
		grep -q '^  time: read [0-9.]* s, names [0-9.]* s (CPU [0-9.]* s), write ' \
			"$TMP/$_n.$_r.err" && ok ||
			bad "$_n: $_r run: no naming time: $(grep '^  time:' "$TMP/$_n.$_r.err")"
	done
}

cc $FP -o "$TMP/inl" "$SRC/fixtures/dwarf/inl.c" || bad "cc inl.c failed"
c++ $FP -o "$TMP/tmpl" "$SRC/fixtures/dwarf/tmpl.cc" || bad "c++ tmpl.cc failed"
# prog with lib.so, the library's symbols and DWARF only in its debug file (build-id tree)
mkdir -p "$TMP/dbg"
cc $FP -shared -fPIC -Wl,--build-id -o "$TMP/libfx.so" "$SRC/fixtures/elf/lib.c" &&
	cc $FP -Wl,--build-id -o "$TMP/prog" "$SRC/fixtures/elf/prog.c" -L"$TMP" -lfx \
		-Wl,-rpath,"$TMP" || bad "building fixtures/elf/prog.c failed"
id=$(readelf -n "$TMP/libfx.so" | sed -n 's/.*Build ID: //p')
mkdir -p "$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)"
objcopy --only-keep-debug "$TMP/libfx.so" \
	"$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" &&
	strip --strip-unneeded "$TMP/libfx.so" || bad "splitting libfx.so failed"

record inl "$TMP/inl" 150000000
record tmpl "$TMP/tmpl"
record prog "$TMP/prog" 100000000
for n in inl tmpl prog; do
	[ -s "$TMP/$n.data" ] || continue
	dd="--debug-dir $TMP/dbg"
	# shellcheck disable=SC2086 # dd: two words
	check "$n folded" "$TMP/$n.data" folded -j 2 --all $dd
	# shellcheck disable=SC2086
	check "$n pprof" "$TMP/$n.data" pb.gz -j 1 $dd
	# shellcheck disable=SC2086
	check "$n speedscope" "$TMP/$n.data" speedscope.json $dd
	# shellcheck disable=SC2086
	check "$n text route" "$TMP/$n.txt" folded --all --buildids "$TMP/$n.ids" $dd
done

# a module whose recorded path is gone (a rebuilt tree), named from its copy in a build-id tree:
# the second of two identical runs takes its file from the cache and writes none
cp "$TMP/inl" "$TMP/gone"
record gone "$TMP/gone" 20000000
gid=$(readelf -n "$TMP/gone" | sed -n 's/.*Build ID: //p')
mkdir -p "$TMP/gdbg/.build-id/$(echo "$gid" | cut -c1-2)"
mv "$TMP/gone" "$TMP/gdbg/.build-id/$(echo "$gid" | cut -c1-2)/$(echo "$gid" | cut -c3-).debug"
rm -rf "$C"
for run in 1 2; do
	t2f --stats --debug-dir "$TMP/gdbg" "$TMP/gone.data" -o "$TMP/gone.$run.folded" \
		2>"$TMP/gone.$run.err" || bad "path gone: run $run failed: $(head -3 "$TMP/gone.$run.err")"
done
same "path gone: the two runs" "$TMP/gone.1.folded" "$TMP/gone.2.folded"
grep -q "^gone;.*;main" "$TMP/gone.1.folded" && ok || bad "path gone: no frame named from the copy"
case $(grep '^symbol cache' "$TMP/gone.2.err") in
*": "[1-9]*" files used, 0 missing, 0 ignored"*" 0 written,"*" 0 looked up in the files") ok ;;
*) bad "path gone: second run: $(grep '^symbol cache' "$TMP/gone.2.err")" ;;
esac

# one build-id under two paths (hard links, as /usr/bin/git and /usr/lib/git-core/git): one cache
# file name, two modules whose cache files differ; a warm run keeps the one it used, the other's
# addresses are looked up in the files, and nothing is written (each run wrote its module's file
# over the other's, so every second run looked all of them up again)
ln "$TMP/inl" "$TMP/inl2"
record links sh -c "'$TMP/inl' 100000000; '$TMP/inl2' 30000000"
rm -rf "$C"
for run in 1 2 3; do
	t2f --stats "$TMP/links.data" -o "$TMP/links.$run.folded" 2>"$TMP/links.$run.err" ||
		bad "hard links: run $run failed: $(head -3 "$TMP/links.$run.err")"
	grep '^symbol cache' "$TMP/links.$run.err" >"$TMP/links.$run.sc"
done
same "hard links: cold and warm" "$TMP/links.1.folded" "$TMP/links.2.folded"
same "hard links: the two warm runs" "$TMP/links.2.folded" "$TMP/links.3.folded"
grep -q "^inl;.*;main" "$TMP/links.1.folded" && grep -q "^inl2;.*;main" "$TMP/links.1.folded" &&
	ok || bad "hard links: frames of inl or inl2 not named"
case $(cat "$TMP/links.2.sc") in
*": "[1-9]*" files used, 1 missing, 0 ignored"*" 0 written,"*" answered from it, "[1-9]*" looked up in the files") ok ;;
*) bad "hard links: first warm run: $(cat "$TMP/links.2.sc")" ;;
esac
cmp -s "$TMP/links.2.sc" "$TMP/links.3.sc" && ok ||
	bad "hard links: the warm runs differ: $(cat "$TMP/links.2.sc" "$TMP/links.3.sc")"

# a program without a build-id (linked with --build-id=none; Go links so by default), recorded
# here and unchanged since: trusted by its path, its cache file is keyed by the path
cc $FP -Wl,--build-id=none -o "$TMP/noid" "$SRC/fixtures/dwarf/inl.c" ||
	bad "cc --build-id=none failed"
if record noid "$TMP/noid" 100000000; then
	readelf -n "$TMP/noid" | grep -q 'Build ID' && bad "noid has a build-id"
	check "noid folded" "$TMP/noid.data" folded --all
	check "noid pprof" "$TMP/noid.data" pb.gz
	grep -q "^noid;.*;main;" "$TMP/noid folded.warm.folded" && ok ||
		bad "noid: frames not named: $(head -3 "$TMP/noid folded.warm.folded")"
	# without a cache file its addresses were looked up in its DWARF on every run
	grep -q '^inline frames: 0 addresses looked up in DWARF, [1-9]' \
		"$TMP/noid folded.warm.err" && ok ||
		bad "noid: warm run: $(grep '^inline frames' "$TMP/noid folded.warm.err")"
fi

# the directory and its files: 0700, 0600; list, verify, dir, clear
rm -rf "$C"
t2f "$TMP/inl.data" -o "$TMP/x.folded" 2>/dev/null
t2f "$TMP/tmpl.data" -o "$TMP/x.folded" 2>/dev/null
[ "$(stat -c %a "$C")" = 700 ] && ok || bad "cache directory mode $(stat -c %a "$C")"
modes=$(find "$C" -type f -printf '%m\n' | sort -u)
[ "$modes" = 600 ] && ok || bad "cache file modes: $modes"
[ "$("$T2F_BIN" cache dir)" = "$C" ] && ok || bad "cache dir: $("$T2F_BIN" cache dir)"
"$T2F_BIN" cache list >"$TMP/list" || bad "cache list failed"
for p in "$TMP/inl" "$TMP/tmpl"; do
	pid=$(readelf -n "$p" | sed -n 's/.*Build ID: //p')
	grep -q "^$pid  *[0-9]* [0-9T:-]*Z $p\$" "$TMP/list" && ok ||
		bad "cache list: no line for $p ($pid): $(cat "$TMP/list")"
done
"$T2F_BIN" cache verify >"$TMP/verify" && ok || bad "cache verify: $(cat "$TMP/verify")"
n=$(wc -l <"$TMP/list")
grep -q "^$n files, [0-9]* bytes, 0 bad\$" "$TMP/verify" && ok ||
	bad "cache verify: $(cat "$TMP/verify")"
# the limit is kept after a write: one below a file's size keeps none
rm -rf "$C"
t2f --cache-max 1 "$TMP/inl.data" -o "$TMP/x.folded" 2>/dev/null
[ -n "$(find "$C" -name '*.t2fsym')" ] && ok || bad "--cache-max 1 (MiB) kept nothing"
T2F_CACHE_MAX=100 t2f --stats "$TMP/tmpl.data" -o "$TMP/x.folded" 2>"$TMP/evict.err"
grep -q '^symbol cache.* [1-9][0-9]* evicted;' "$TMP/evict.err" && ok ||
	bad "T2F_CACHE_MAX=100: $(grep '^symbol cache' "$TMP/evict.err")"
[ -z "$(find "$C" -name '*.t2fsym')" ] && ok || bad "T2F_CACHE_MAX=100 left $(ls "$C")"
t2f "$TMP/inl.data" -o "$TMP/x.folded" 2>/dev/null
n=$(find "$C" -name '*.t2fsym' | wc -l)
[ "$n" -gt 0 ] && [ "$("$T2F_BIN" cache clear)" = "$n files removed" ] && ok ||
	bad "cache clear of $n files"
[ -z "$(ls -A "$C")" ] && ok || bad "cache clear left $(ls -A "$C")"
finish
