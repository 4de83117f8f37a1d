#!/bin/sh
# tests/collect/collect.sh: `trace2flame collect DIR -o STORE`. A tree is built here from
# tests/collect/*.c: app (-O2 -g, frame pointers, -fno-plt) and its libapp.so (with a
# .gdb_index when clang and ld.lld are there), tool (no -g: a symbol table only), and beside them
# copies of one build-id (app without DWARF first in name order, its objcopy --only-keep-debug
# file, stripped copies), a relocatable object, a truncated ELF, files that are not ELF (one
# named .so, one of three bytes), a FIFO and symbolic links (a loop, two links to each other).
# collect (under a timeout: the FIFO must not block) must
#  - count exactly: files seen, ELF, kept (one in place of a worse copy), duplicates, skipped by
#    reason, one warning naming the truncated file; seen = kept + duplicates + skipped;
#  - leave exactly one debug file per build-id (3), no temp file, each with DWARF where a copy
#    had it, no .gdb_index, every .debug_ section compressed (readelf's flag C), the symbols and
#    the DWARF (readelf -s, readelf -wi) of the file it came from, no code (.text NOBITS);
#  - run again: nothing written, the store the same bytes; a corrupt entry is replaced;
#  - fail (exit 1, 3) for one FILE operand that is not collected or cannot be read, naming it;
#    follow an operand that is a symbolic link;
#  - keep a file with Go's build id note by its GNU build-id, skip one with Go's alone;
#  - leave no temp file when a signal ends it (SIGXFSZ of a write past `ulimit -f`);
#  - keep --max-depth (a directory not entered, warned) and --max-files (the walk stopped), and
#    not walk the store inside a directory given;
#  - count a file it may not read as a warning (as an unprivileged user when run as root, through
#    setpriv; skipped without setpriv).
# Then app and tool are recorded (perf record -g -e cpu-clock; skipped when perf may not
# record), converted with the binaries present (the reference, --all: inlined frames marked
# _[i]), the binaries deleted: --debug-dir STORE, and `debuginfod -F STORE` on a free port of
# 127.0.0.1 with --debuginfod URL (skipped without debuginfod), must give the same folded stacks
# and the same speedscope output (source files and lines).
# usage: sh tests/collect/collect.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
make_tmp
T=$TMP/tree
S=$TMP/store
FP="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-plt -Wl,--build-id=sha1"
export PERF_BUILDID_DIR="$TMP/perf-cache" DEBUGINFOD_CACHE_PATH="$TMP/dcache" HOME="$TMP/home"
mkdir -p "$T/a-nodebug" "$T/bin" "$T/debug" "$T/lib" "$T/sym" "$T/z-stripped" "$HOME"
C=$SRC/tests/collect

# libapp.so: with lld's .gdb_index (before .symtab: the copy renumbers the sections) when it can
gdb_index=0
if command -v clang >/dev/null 2>&1 && command -v ld.lld >/dev/null 2>&1; then
	# shellcheck disable=SC2086 # FP: several options
	clang $FP -fuse-ld=lld -Wl,--gdb-index -shared -fPIC -o "$T/lib/libapp.so" "$C/applib.c" &&
		gdb_index=1
fi
if [ $gdb_index = 0 ]; then
	echo "$TEST_NAME: clang or ld.lld missing: no .gdb_index in the inputs, its check skipped"
	# shellcheck disable=SC2086
	cc $FP -shared -fPIC -o "$T/lib/libapp.so" "$C/applib.c" || exit 1
fi
# shellcheck disable=SC2086
cc $FP -o "$T/bin/app" "$C/app.c" -L"$T/lib" -lapp -Wl,-rpath,"$T/lib" || exit 1
cc -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-plt -Wl,--build-id=sha1 \
	-o "$T/sym/tool" "$C/tool.c" || exit 1
cc -O2 -g -c -o "$T/lib/app.o" "$C/app.c" || exit 1
strip --strip-debug -o "$T/a-nodebug/app" "$T/bin/app"
objcopy --only-keep-debug "$T/bin/app" "$T/debug/app.debug"
strip -o "$T/z-stripped/app" "$T/bin/app"
strip --strip-debug -o "$T/z-stripped/libapp.so" "$T/lib/libapp.so"
head -c 300 "$T/lib/libapp.so" >"$T/lib/trunc.so"
echo "not an ELF file" >"$T/lib/libfake.so"
echo "notes" >"$T/bin/notes.txt"
printf '\177EL' >"$T/bin/short"
mkfifo "$T/bin/fifo"
ln -s . "$T/loop"
ln -s lnk-b "$T/lnk-a"
ln -s lnk-a "$T/lnk-b"

id_of() { readelf -n "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p'; }
entry() { _i=$(id_of "$1"); echo "$S/.build-id/$(echo "$_i" | cut -c1-2)/$(echo "$_i" | cut -c3-).debug"; }
# symtab FILE: FILE's .symtab as readelf prints it
symtab() { readelf -sW "$1" 2>&1 | awk '/^Symbol table/ { on = /\.symtab/ } on'; }
# check_line FILE LINE: FILE holds LINE whole
check_line() {
	if grep -qxF "$2" "$1"; then ok; else
		bad "summary: no line '$2' in:"
		sed 's/^/  /' "$1"
	fi
}

# ---- the walk ----
rc=0
timeout 60 "$T2F_BIN" collect "$T" -o "$S" >"$TMP/sum" 2>"$TMP/err" || rc=$?
if [ $rc = 124 ]; then bad "collect did not end within 60 s (the FIFO?)"; finish; fi
if [ $rc = 0 ]; then ok; else bad "collect exited $rc: $(head -3 "$TMP/err")"; fi
for l in "files seen: 16" "ELF files: 9" "kept: 4 (1 in place of a worse copy)" \
	"duplicates: 2" "skipped: 10" "  not ELF: 3" "  not a regular file: 1" \
	"  symbolic link, not followed: 3" "  ELF that could not be read: 1" \
	"  ELF, neither an executable nor a shared library: 1" \
	"  ELF, neither .symtab nor DWARF: 1" "warnings: 1"; do
	check_line "$TMP/sum" "$l"
done
if awk -F': ' '/^files seen/ { s = $2 } /^kept/ { k = $2 + 0 } /^duplicates/ { d = $2 }
	/^skipped/ { x = $2 } END { exit !(s == k + d + x) }' "$TMP/sum"; then ok; else
	bad "summary: seen is not kept + duplicates + skipped"; fi
if [ "$(grep -c 'warning' "$TMP/err")" = 1 ] &&
	grep -q "^trace2flame: collect: warning: $T/lib/trunc.so: " "$TMP/err"; then ok; else
	bad "warnings: not one naming trunc.so:"
	cat "$TMP/err"
fi

# ---- the store ----
n=$(find "$S" -type f | wc -l)
if [ "$n" = 3 ] && [ "$(find "$S" -type f -name '*.debug' | wc -l)" = 3 ]; then ok; else
	bad "the store holds $n files, not 3 .debug files:"
	find "$S" -type f
fi
for f in bin/app lib/libapp.so sym/tool; do
	e=$(entry "$T/$f")
	if [ ! -f "$e" ]; then bad "$f: no entry $e"; continue; fi
	readelf -SW "$e" >"$TMP/sections" 2>&1
	if [ "$f" = sym/tool ]; then
		if grep -q ' \.debug_' "$TMP/sections"; then bad "$f: DWARF in the entry of a file without"; else ok; fi
	elif grep -q ' \.debug_info ' "$TMP/sections"; then ok; else
		bad "$f: the entry has no .debug_info (the copy without DWARF was kept)"
	fi
	if grep -q '\.gdb_index' "$TMP/sections"; then bad "$f: .gdb_index in the entry"; else ok; fi
	# every .debug_ section compressed: flag C
	if awk '$0 ~ / \.debug_/ { sub(/^.*\] /, ""); if ($7 !~ /C/) { print; bad = 1 } }
		END { exit bad }' "$TMP/sections"; then ok; else bad "$f: .debug_ sections not compressed"; fi
	if grep -q ' \.text  *NOBITS ' "$TMP/sections"; then ok; else bad "$f: .text is not NOBITS"; fi
	symtab "$T/$f" >"$TMP/syms.in"
	symtab "$e" >"$TMP/syms.out"
	same_nonempty "$f" "readelf -s" "$TMP/syms.in" "$TMP/syms.out" "< input, > entry"
	if [ "$f" != sym/tool ]; then
		readelf -wi "$T/$f" 2>/dev/null | grep -v -e '^$' -e '^Contents of the' >"$TMP/info.in"
		readelf -wi "$e" 2>/dev/null | grep -v -e '^$' -e '^Contents of the' >"$TMP/info.out"
		same_nonempty "$f" "readelf -wi" "$TMP/info.in" "$TMP/info.out" "< input, > entry"
	fi
done
if [ $gdb_index = 1 ]; then
	if readelf -SW "$T/lib/libapp.so" | grep -q '\.gdb_index'; then ok; else
		bad "the input libapp.so has no .gdb_index: the check above checks nothing"; fi
fi
in=$(du -cb "$T/bin/app" "$T/lib/libapp.so" "$T/sym/tool" | tail -1 | cut -f1)
out=$(find "$S" -type f -exec du -cb {} + | tail -1 | cut -f1)
echo "$TEST_NAME: store $out bytes for inputs of $in bytes (app, libapp.so, tool)"

# ---- again: nothing written; a corrupt entry replaced ----
(cd "$S" && find . -type f -exec md5sum {} + | sort) >"$TMP/before"
timeout 60 "$T2F_BIN" collect "$T" -o "$S" >"$TMP/sum2" 2>"$TMP/err2"
(cd "$S" && find . -type f -exec md5sum {} + | sort) >"$TMP/after"
check_line "$TMP/sum2" "kept: 0 (0 in place of a worse copy)"
check_line "$TMP/sum2" "duplicates: 6"
same_nonempty again "the store" "$TMP/before" "$TMP/after" "< first run, > second"
e=$(entry "$T/sym/tool")
echo "garbage" >"$e"
timeout 60 "$T2F_BIN" collect "$T/sym" -o "$S" >"$TMP/sum3" 2>"$TMP/err3"
check_line "$TMP/sum3" "kept: 1 (1 in place of a worse copy)"
(cd "$S" && find . -type f -exec md5sum {} + | sort) >"$TMP/after"
same_nonempty "corrupt entry" "the store" "$TMP/before" "$TMP/after" "< first run, > now"

# ---- a write past `ulimit -f` (SIGXFSZ): no temp file left ----
# shellcheck disable=SC2016 # expanded by the inner shell
rc=$(sh -c 'ulimit -f 2 && timeout 60 "$0" collect -q "$1" -o "$2" 2>/dev/null; echo $?' \
	"$T2F_BIN" "$T/bin" "$TMP/s5" 2>/dev/null)
n=$(find "$TMP/s5" -type f | wc -l)
if [ "$rc" -gt 128 ] && [ "$n" = 0 ]; then ok; else
	bad "ulimit -f 2: exit $rc (a signal: above 128), $n files left in the store:"
	find "$TMP/s5" -type f
fi

# ---- one FILE operand ----
operand() { # FILE STATUS WHAT
	_rc=0
	timeout 60 "$T2F_BIN" collect -q "$1" -o "$TMP/s2" >/dev/null 2>"$TMP/err4" || _rc=$?
	if [ $_rc = "$2" ] && grep -q "^trace2flame: collect: $1: $3" "$TMP/err4"; then ok; else
		bad "operand $1: exit $_rc (not $2), said: $(cat "$TMP/err4")"; fi
}
operand "$T/lib/trunc.so" 1 ""
operand "$T/lib/libfake.so" 1 "not an ELF file"
operand "$T/bin/fifo" 1 "not a regular file"
operand "$T/z-stripped/app" 1 "not collected: neither .symtab nor DWARF"
operand "$T/missing" 3 ""
ln -s "$T/sym/tool" "$TMP/tool-link"
if timeout 60 "$T2F_BIN" collect -q "$TMP/tool-link" -o "$TMP/s7" 2>"$TMP/err4" &&
	[ "$(find "$TMP/s7" -type f -name '*.debug' | wc -l)" = 1 ]; then ok; else
	bad "a symbolic link as operand: not followed: $(cat "$TMP/err4")"; fi
if [ ! -e "$TMP/s2/.build-id" ]; then ok; else bad "operands: entries were written"; fi

# ---- Go's build id note: kept by the GNU build-id, skipped without one ----
mkdir -p "$TMP/go"
printf '\003\000\000\000\010\000\000\000\004\000\000\000Go\000\000abcdefgh' >"$TMP/go.note"
objcopy --add-section .note.go.buildid="$TMP/go.note" "$T/sym/tool" "$TMP/go/both"
objcopy --remove-section .note.gnu.build-id --add-section .note.go.buildid="$TMP/go.note" \
	"$T/sym/tool" "$TMP/go/go-only"
if readelf -n "$TMP/go/go-only" | grep -q "GO BUILDID"; then ok; else
	bad "go-only has no Go build id note: the check below checks nothing"; fi
timeout 60 "$T2F_BIN" collect "$TMP/go" -o "$TMP/s6" >"$TMP/sum10" 2>&1
check_line "$TMP/sum10" "kept: 1 (0 in place of a worse copy)"
check_line "$TMP/sum10" "  ELF, a Go build id but no GNU build-id: 1"
if [ -f "$(entry "$TMP/go/both" | sed "s|^$S|$TMP/s6|")" ]; then ok; else
	bad "a file with both notes is not stored by its GNU build-id"; fi

# ---- the walk's bounds ----
mkdir -p "$TMP/deep/1/2/3"
cp "$T/sym/tool" "$TMP/deep/1/2/3/"
cp "$T/bin/app" "$TMP/deep/1/"
timeout 60 "$T2F_BIN" collect --max-depth 2 "$TMP/deep" -o "$TMP/s3" >"$TMP/sum6" 2>"$TMP/err6"
check_line "$TMP/sum6" "kept: 1 (0 in place of a worse copy)"
check_line "$TMP/sum6" "directories not entered (--max-depth): 1"
if grep -q "warning: $TMP/deep/1/2/3: not entered" "$TMP/err6"; then ok; else
	bad "--max-depth: no warning naming the directory: $(cat "$TMP/err6")"; fi
# the store inside the directory walked: not walked
for i in 1 2; do
	timeout 60 "$T2F_BIN" collect "$TMP/deep" -o "$TMP/deep/store" >"$TMP/sum8" 2>&1
	check_line "$TMP/sum8" "files seen: 2"
done
rm -rf "$TMP/deep/store"
timeout 60 "$T2F_BIN" collect --max-files 3 "$T" -o "$TMP/s4" >"$TMP/sum7" 2>"$TMP/err7"
check_line "$TMP/sum7" "files seen: 3"
check_line "$TMP/sum7" "the walk stopped at --max-files"
check_line "$TMP/sum7" "warnings: 1"
rc=0
"$T2F_BIN" collect --max-files 0 "$T" -o "$TMP/s4" >/dev/null 2>&1 || rc=$?
if [ $rc = 2 ]; then ok; else bad "--max-files 0 exited $rc, not 2"; fi

# ---- a file that may not be read ----
mkdir -p "$TMP/unr/in" "$TMP/unr/store"
cp "$T/sym/tool" "$T/bin/app" "$TMP/unr/in/"
chmod 000 "$TMP/unr/in/app"
run_unr() { timeout 60 "$T2F_BIN" collect "$TMP/unr/in" -o "$TMP/unr/store"; }
unr=1
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null 2>&1; then
		chmod 755 "$TMP" "$TMP/unr" "$TMP/unr/in"
		chmod 777 "$TMP/unr/store"
		run_unr() {
			timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups \
				"$T2F_BIN" collect "$TMP/unr/in" -o "$TMP/unr/store"
		}
	else
		echo "$TEST_NAME: root without setpriv: the unreadable file's check skipped"
		unr=0
	fi
fi
if [ $unr = 1 ]; then
	run_unr >"$TMP/sum5" 2>"$TMP/err5"
	check_line "$TMP/sum5" "kept: 1 (0 in place of a worse copy)"
	check_line "$TMP/sum5" "  could not be read: 1"
	check_line "$TMP/sum5" "warnings: 1"
	if grep -q "warning: $TMP/unr/in/app: cannot read" "$TMP/err5"; then ok; else
		bad "unreadable: no warning naming it: $(cat "$TMP/err5")"; fi
fi

# ---- recordings, converted with the binaries and with the store alone ----
if ! perf_can_record "skipping the recordings"; then finish; fi
record() { # NAME PROGRAM
	if perf record -q -g -e cpu-clock --buildid-all -o "$TMP/$1.data" -- "$2" 300 \
		>"$TMP/$1.rec" 2>&1; then ok; else
		bad "$1: perf record failed: $(head -3 "$TMP/$1.rec")"
		return 1
	fi
}
conv() { # NAME OUT.folded OPTIONS...
	_n=$1 _o=$2
	shift 2
	t2f --all "$@" "$TMP/$_n.data" -o "$_o" 2>>"$TMP/conv.err"
	t2f -f speedscope "$@" "$TMP/$_n.data" -o "${_o%.folded}.speedscope.json" 2>>"$TMP/conv.err"
}
record app "$T/bin/app" || finish
record tool "$T/sym/tool" || finish
conv app "$TMP/app.ref.folded"
conv tool "$TMP/tool.ref.folded"
if grep -q ';crunch;round__\[i\];fold_\[i\] ' "$TMP/app.ref.folded" &&
	grep -q ';work;applib_hash;lmix_\[i\] ' "$TMP/app.ref.folded"; then ok; else
	bad "the reference has not the stacks crunch;round_;fold and work;applib_hash;lmix:"
	head -5 "$TMP/app.ref.folded"
fi
if grep -q ';main;tool_spin ' "$TMP/tool.ref.folded"; then ok; else
	bad "the reference of tool has no main;tool_spin"; fi
ids="$(id_of "$T/bin/app") $(id_of "$T/lib/libapp.so") $(id_of "$T/sym/tool")"
rm -rf "$T" "$PERF_BUILDID_DIR"
for p in app tool; do
	conv $p "$TMP/$p.store.folded" --offline --debug-dir "$S"
	same_nonempty "$p --debug-dir STORE" folded "$TMP/$p.ref.folded" "$TMP/$p.store.folded" \
		"< binaries, > store"
	same_nonempty "$p --debug-dir STORE" speedscope "$TMP/$p.ref.speedscope.json" \
		"$TMP/$p.store.speedscope.json" "< binaries, > store"
done

if ! command -v debuginfod >/dev/null 2>&1; then
	echo "$TEST_NAME: debuginfod not found (Debian debuginfod): its check skipped"
	finish
fi
pid=
stop_server() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=; fi
}
trap 'stop_server; rm -rf "$TMP"' EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
debuginfod -p "$port" -F "$S" -d "$TMP/db.sqlite" -t 0 -g 0 >"$TMP/server.log" 2>&1 &
pid=$!
url=http://127.0.0.1:$port
i=0
for id in $ids; do
	until [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/buildid/$id/debuginfo")" = 200 ]; do
		i=$((i + 1))
		if [ $i -ge 100 ]; then
			bad "debuginfod does not serve $id within 20 s"
			tail -5 "$TMP/server.log"
			finish
		fi
		sleep 0.2
	done
done
for p in app tool; do
	conv $p "$TMP/$p.dinfod.folded" --debuginfod "$url"
	same_nonempty "$p --debuginfod" folded "$TMP/$p.ref.folded" "$TMP/$p.dinfod.folded" \
		"< binaries, > debuginfod -F STORE"
	same_nonempty "$p --debuginfod" speedscope "$TMP/$p.ref.speedscope.json" \
		"$TMP/$p.dinfod.speedscope.json" "< binaries, > debuginfod -F STORE"
done
if [ "$(find "$DEBUGINFOD_CACHE_PATH" -name debuginfo | wc -l)" -ge 2 ]; then ok; else
	bad "debuginfod: fewer than 2 debug files fetched into the cache"; fi
stop_server
finish
