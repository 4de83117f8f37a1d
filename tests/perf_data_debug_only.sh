#!/bin/sh
# Debug files without the binaries they were split from: the frames are still named, as perf
# names them with the binaries at hand. fixtures/perf-data/mt.c and mtlib.c (a program and its
# shared library, frame pointers) are built with GNU ld (cc) and with lld (clang -fuse-ld=lld),
# as PIE and as non-PIE, each with a SHA-1 build-id, and recorded (perf record -g -e
# cpu-clock:u --buildid-all, perf's build-id cache kept in $TMP). Their debug files
# (objcopy --only-keep-debug: p_filesz 0, GNU ld's p_offset rewritten) go into a build-id tree.
# The reference is `perf script -i X.data | trace2flame --symbol-rules perf -` with the unstripped
# binaries at the recorded paths. Then, with perf's and debuginfod's caches pointed away:
#   gone      the binaries deleted, only the debug tree: the perf.data route, and the text route
#             (`perf script -F comm,pid,tid,time,period,event,ip,dso --show-mmap-events`,
#             --resymbolize --buildids of perf buildid-list) both equal the reference; the text
#             without its PERF_RECORD_MMAP2 lines cannot be mapped, and --stats says so
#             ("debug file only, no mapping recorded");
#   stripped  stripped copies in a --symbol-path directory beside the debug tree: equal, the
#             copy named in --stats as the binary;
#   archive   recorded with stripped binaries, `perf archive` unpacked as --symbol-path, the
#             binaries deleted, the debug tree: equal.
# Where only a debug file names a module (gone, and archive's mt, which perf archive leaves out),
# a sample in a PLT stub is compared as "[plt]": the stubs' names need the binary (symbolizer/
# elf_perf_rules.c leaves them unnamed), every other frame must equal perf's.
# Skipped (with a message) when perf cannot record, or a linker is missing (lld: not under
# CI=true).
# usage: sh tests/perf_data_debug_only.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
need_perf_record
FP="-O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wl,--build-id=sha1"
export PERF_BUILDID_DIR="$TMP/perf-cache" DEBUGINFOD_CACHE_PATH="$TMP/none"

# same NAME WHAT A B: the outputs are the same bytes and A is not empty
same() { same_nonempty "$@" "< reference (perf script, binaries present), > $1"; }

# same_but_plt NAME WHAT A B: as same, once a leaf that may be a sample in a PLT stub reads
# "[plt]" on both sides (equal lines then summed): perf names it "x@plt", nothing ("[mt]"), or
# by its tree's shape "_init" / "_fini"; trace2flame the same when it has the binary, nothing
# from a debug file alone (unit/test_elf_perf_rules checks that it never guesses there)
same_but_plt() {
	plt_leaves "$3" '[^;]*@plt|_init|_fini|\[mt\]|\[libmtlib\.so\]'
	plt_leaves "$4" '[^;]*@plt|_init|_fini|\[mt\]|\[libmtlib\.so\]'
	same "$1" "$2" "$3.plt" "$4.plt"
}
plt_leaves() {
	sed -E "s/;($2) ([0-9]+)\$/;[plt] \\2/" "$1" |
		awk '{ n = $NF; $NF = ""; s[$0] += n } END { for (k in s) print k s[k] }' |
		LC_ALL=C sort >"$1.plt"
}

# build DIR CC LD PIE: mt and libmtlib.so in DIR, linked by LD (bfd or lld), PIE or not
build() {
	_pie=-no-pie
	[ "$4" = pie ] && _pie=-pie
	# shellcheck disable=SC2086 # FP: several options
	$2 $FP -fuse-ld="$3" -shared -fPIC -o "$1/libmtlib.so" "$SRC/fixtures/perf-data/mtlib.c" &&
		$2 $FP -fuse-ld="$3" $_pie -o "$1/mt" "$SRC/fixtures/perf-data/mt.c" -L"$1" -lmtlib \
			-Wl,-rpath,"$1" -pthread
}

# debug_tree DIR: DIR/tree/.build-id/ab/cdef....debug of DIR's mt and libmtlib.so
debug_tree() {
	for _f in mt libmtlib.so; do
		_id=$(readelf -n "$1/$_f" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
		mkdir -p "$1/tree/.build-id/$(echo "$_id" | cut -c1-2)"
		objcopy --only-keep-debug "$1/$_f" \
			"$1/tree/.build-id/$(echo "$_id" | cut -c1-2)/$(echo "$_id" | cut -c3-).debug"
	done
}

# record DIR: DIR/mt.data of mt running 250 ms; DIR/ref.folded from perf script (binaries there)
record() {
	if ! perf record -q -g -e cpu-clock:u --buildid-all -o "$1/mt.data" -- "$1/mt" 250 \
		>"$1/rec.log" 2>&1; then
		bad "$1: perf record failed: $(head -3 "$1/rec.log")"
		return 1
	fi
}
reference() {
	perf script -i "$1/mt.data" 2>/dev/null | t2f --symbol-rules perf - -o "$1/ref.folded" 2>/dev/null
	if grep -q 'worker;step_[ab];mtlib_work;mtlib_inner' "$1/ref.folded"; then ok; else
		bad "$1: the reference has no stack worker;step_X;mtlib_work;mtlib_inner"; fi
}

# hide DIR: the binaries moved away (DIR/keep), perf's cache emptied
hide() {
	mkdir -p "$1/keep"
	mv "$1/mt" "$1/libmtlib.so" "$1/keep/"
	rm -rf "$PERF_BUILDID_DIR"
}

run_case() { # NAME CC LD PIE
	d=$TMP/$1
	mkdir -p "$d"
	if ! build "$d" "$2" "$3" "$4" 2>"$d/build.log"; then
		bad "$1: cannot build: $(head -3 "$d/build.log")"
		return
	fi
	debug_tree "$d"

	# gone: record, reference, then only the debug tree
	record "$d" || return
	reference "$d"
	perf script -i "$d/mt.data" -F comm,pid,tid,time,period,event,ip,dso --show-mmap-events \
		>"$d/addrs.txt" 2>/dev/null
	perf buildid-list -i "$d/mt.data" >"$d/ids" 2>/dev/null
	hide "$d"
	t2f --no-inline --debug-dir "$d/tree" "$d/mt.data" -o "$d/gone.folded" 2>"$d/err"
	same_but_plt "$1 gone (perf.data)" folded "$d/ref.folded" "$d/gone.folded"
	t2f --no-inline --resymbolize --symbol-rules perf --buildids "$d/ids" --debug-dir "$d/tree" \
		"$d/addrs.txt" -o "$d/gone-text.folded" 2>"$d/err"
	same_but_plt "$1 gone (text)" folded "$d/ref.folded" "$d/gone-text.folded"
	grep -v PERF_RECORD_MMAP "$d/addrs.txt" >"$d/nomaps.txt"
	t2f --stats --resymbolize --buildids "$d/ids" --debug-dir "$d/tree" "$d/nomaps.txt" \
		-o "$d/nomaps.folded" 2>"$d/err"
	if grep -q "$d/mt: 0 resolved.*debug file only, no mapping recorded" "$d/err"; then ok; else
		bad "$1: text without mappings: --stats does not say why mt's frames are unnamed"
		grep 'resolved' "$d/err" | head -3
	fi

	# stripped copies beside the debug tree
	mkdir -p "$d/bin"
	for f in mt libmtlib.so; do strip -o "$d/bin/$f" "$d/keep/$f"; done
	t2f --no-inline --stats --symbol-path "$d/bin" --debug-dir "$d/tree" "$d/mt.data" \
		-o "$d/stripped.folded" 2>"$d/err"
	same "$1 stripped copies" folded "$d/ref.folded" "$d/stripped.folded"
	if grep -q "binary (its program headers): $d/bin/libmtlib.so" "$d/err"; then ok; else
		bad "$1: the stripped libmtlib.so was not paired with its debug file"; fi

	# perf archive of a recording of stripped binaries
	cp "$d/bin/mt" "$d/bin/libmtlib.so" "$d/"
	record "$d" || return
	cp "$d/keep/mt" "$d/keep/libmtlib.so" "$d/" # perf script names them from these
	reference "$d"
	if ! (cd "$d" && perf archive mt.data >/dev/null 2>&1) || ! mkdir -p "$d/ar" ||
		! tar xjf "$d/mt.data.tar.bz2" -C "$d/ar"; then
		bad "$1: perf archive failed"
		return
	fi
	rm -f "$d/mt" "$d/libmtlib.so"
	rm -rf "$PERF_BUILDID_DIR"
	t2f --no-inline --symbol-path "$d/ar" --debug-dir "$d/tree" "$d/mt.data" -o "$d/archive.folded" \
		2>"$d/err"
	same_but_plt "$1 perf archive" folded "$d/ref.folded" "$d/archive.folded"
}

run_case gnu-pie cc bfd pie
run_case gnu-nopie cc bfd nopie
if command -v clang >/dev/null 2>&1 && command -v ld.lld >/dev/null 2>&1; then
	run_case lld-pie clang lld pie
	run_case lld-nopie clang lld nopie
elif [ "${CI:-}" = true ]; then
	bad "clang or ld.lld missing, and CI=true requires the lld cases"
else
	echo "$TEST_NAME: clang or ld.lld missing: the lld cases skipped"
fi
finish
