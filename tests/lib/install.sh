#!/bin/sh
# libtrace2flame as a user gets it: the build tree installed with `cmake --install` into a new
# prefix, then tools/example_folded.c compiled against that prefix with nothing but what
# `pkg-config trace2flame` gives, linked with the shared library and, with `pkg-config --static`,
# with libtrace2flame.a and static copies of its dependencies (so a dependency missing from the
# .pc's Requires.private / Libs.private fails the link), under -Wall -Wextra -Werror, and once
# more beside functions of its own named as the library's internal ones (svg_color, nt_detect);
# the archive must define the header's T2F_API functions and no other global symbol. The
# programs and the in-tree one (linked with the build's libtrace2flame.so) must write the bytes
# the installed `trace2flame INPUT -f collapsed` writes, for perf script text, folded stacks, a gzip'd input
# and a .nettrace (written by tools/make-nettrace; skipped without python3), and fail with exit
# 1 and a message naming the input for a bad input. Also checks the installed header, .pc, man
# page and docs.
# usage: sh tests/lib/install.sh EXAMPLE_FOLDED    (the in-tree build of tools/example_folded.c)
# env:   T2F_BUILD_DIR (required), T2F_SOURCE_DIR; CC (default cc), T2F_CMAKE (default cmake);
#        T2F_LIB_CFLAGS: flags for compiling and linking the examples (the sanitizer build's)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
if [ $# -ne 1 ] || [ -z "${T2F_BUILD_DIR:-}" ]; then
	echo "usage: T2F_BUILD_DIR=BUILD $0 EXAMPLE_FOLDED" >&2
	exit 2
fi
SRC=${T2F_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TEST_NAME=install
make_tmp
CC=${CC:-cc}
cflags=${T2F_LIB_CFLAGS:-}
in_tree=$1

# --- install ----------------------------------------------------------------------------------
prefix=$TMP/prefix
if ! "${T2F_CMAKE:-cmake}" --install "$T2F_BUILD_DIR" --prefix "$prefix" >"$TMP/install.log" 2>&1; then
	bad "cmake --install $T2F_BUILD_DIR failed:"
	tail -n 5 "$TMP/install.log"
	finish
fi
# installed FILE SOURCE: FILE is there, the same bytes as SOURCE
installed() {
	if cmp -s "$1" "$2"; then
		ok
	else
		bad "${1#"$prefix"/}: not installed, or not the bytes of ${2#"$SRC"/}"
	fi
}
installed "$prefix/include/trace2flame.h" "$SRC/include/trace2flame.h"
installed "$prefix/include/trace2flame_enums.h" "$SRC/include/trace2flame_enums.h"
installed "$prefix/share/man/man1/trace2flame.1" "$SRC/docs/trace2flame.1"
for f in "$SRC"/docs/*.md; do
	installed "$prefix/share/doc/trace2flame/${f##*/}" "$f"
done
[ -x "$prefix/bin/trace2flame" ] && ok || bad "bin/trace2flame not installed"
pc=$(find "$prefix" -path '*/pkgconfig/trace2flame.pc')
if [ -z "$pc" ]; then
	bad "no pkgconfig/trace2flame.pc under the prefix"
	finish
fi
export PKG_CONFIG_PATH="${pc%/*}${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
libdir=$(pkg-config --variable=libdir trace2flame)
for f in libtrace2flame.so libtrace2flame.so.0 libtrace2flame.a; do
	[ -e "$libdir/$f" ] && ok || bad "$libdir/$f: not installed (the .pc's libdir)"
done
version=$(pkg-config --modversion trace2flame)
"$prefix/bin/trace2flame" --version | grep -qx "trace2flame $version" && ok ||
	bad "pkg-config --modversion says '$version', trace2flame --version '$("$prefix/bin/trace2flame" --version)'"

# --- build the example against the prefix -----------------------------------------------------
example=$SRC/tools/example_folded.c
# shellcheck disable=SC2046,SC2086 # the flags are words
if $CC $cflags -o "$TMP/ex-shared" "$example" $(pkg-config --cflags --libs trace2flame) \
	2>"$TMP/cc.err"; then
	ok
	readelf -d "$TMP/ex-shared" | grep -q 'NEEDED.*\[libtrace2flame\.so\.0\]' && ok ||
		bad "ex-shared does not need libtrace2flame.so.0"
else
	bad "$CC $cflags example_folded.c \$(pkg-config --cflags --libs trace2flame) failed:"
	head -n 10 "$TMP/cc.err"
fi
# every library of `pkg-config --static --libs` static (libc excepted), with the warnings a
# careful program is built with made errors: the archive brings no code of its own to the
# program's link (no link-time bytecode compiled there, under the program's flags)
# shellcheck disable=SC2046,SC2086 # the flags are words
if $CC $cflags -Wall -Wextra -Werror -o "$TMP/ex-static" "$example" \
	$(pkg-config --cflags trace2flame) -Wl,-Bstatic $(pkg-config --static --libs trace2flame) \
	-Wl,-Bdynamic 2>"$TMP/cc.err"; then
	ok
	if readelf -d "$TMP/ex-static" | grep -E 'NEEDED.*\[lib(trace2flame|json-c|zstd|z|elf|lzma)\.so'; then
		bad "ex-static needs the shared libraries above"
	else
		ok
	fi
else
	bad "$CC $cflags -Wall -Wextra -Werror example_folded.c -Wl,-Bstatic \$(pkg-config --static --libs trace2flame) failed:"
	head -n 10 "$TMP/cc.err"
fi

# libtrace2flame.a defines the header's T2F_API functions and no other global symbol: a
# program's own svg_color or nt_detect is no "multiple definition"
sed -n 's/^T2F_API[^(]*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' \
	"$prefix/include/trace2flame.h" | sort >"$TMP/api"
nm -g --defined-only "$libdir/libtrace2flame.a" 2>/dev/null | awk 'NF == 3 { print $3 }' |
	sort -u >"$TMP/archive"
unprefixed=$(grep -cv '^t2f_' "$TMP/archive")
[ "$unprefixed" -eq 0 ] && ok ||
	bad "libtrace2flame.a: $unprefixed global symbols without the t2f_ prefix: $(grep -v '^t2f_' "$TMP/archive" | head -n 5 | tr '\n' ' ')..."
if cmp -s "$TMP/api" "$TMP/archive"; then
	ok
else
	bad "libtrace2flame.a's global symbols are not the header's T2F_API functions:"
	diff "$TMP/api" "$TMP/archive" | head -n 10
fi
printf '%s\n' 'int svg_color(void);' 'int svg_color(void) { return 0; }' \
	'int nt_detect(void);' 'int nt_detect(void) { return 0; }' >"$TMP/own.c"
# shellcheck disable=SC2046,SC2086 # the flags are words
if $CC $cflags -o "$TMP/ex-own" "$example" "$TMP/own.c" $(pkg-config --cflags trace2flame) \
	-Wl,-Bstatic $(pkg-config --static --libs trace2flame) -Wl,-Bdynamic 2>"$TMP/cc.err"; then
	ok
else
	bad "example_folded.c with a svg_color and nt_detect of its own, linked statically:"
	head -n 5 "$TMP/cc.err"
fi

# --- run them ---------------------------------------------------------------------------------
# convert NAME INPUT: every example's output is the installed CLI's
convert() {
	_name=$1 _in=$2
	if ! "$prefix/bin/trace2flame" "$_in" -f collapsed >"$TMP/want" 2>"$TMP/want.err" ||
		[ ! -s "$TMP/want" ]; then
		bad "$_name: trace2flame $_in -f collapsed failed or wrote nothing"
		head -n 3 "$TMP/want.err"
		return
	fi
	for _ex in ex-shared ex-static ex-own in-tree; do
		case $_ex in
		in-tree) _bin=$in_tree ;;
		*) _bin=$TMP/$_ex ;;
		esac
		[ -x "$_bin" ] || continue
		rm -f "$TMP/got"
		# standard output (no OUTPUT) for one, a path for the others
		if [ "$_ex" = ex-shared ]; then
			LD_LIBRARY_PATH=$libdir "$_bin" "$_in" >"$TMP/got" 2>"$TMP/got.err"
		else
			LD_LIBRARY_PATH=$libdir "$_bin" "$_in" "$TMP/got" 2>"$TMP/got.err"
		fi
		_rc=$?
		if [ "$_rc" -ne 0 ]; then
			bad "$_name: $_ex exit $_rc"
			head -n 3 "$TMP/got.err"
		else
			same_nonempty "$_name" "$_ex and trace2flame -f collapsed" "$TMP/want" "$TMP/got" \
				"< trace2flame, > $_ex"
		fi
	done
}
FX=$SRC/fixtures/perf-script
convert "perf script" "$FX/burner.perf.txt"
convert "perf script, kernel frames" "$FX/cxxwork.perf.txt"
convert "folded" "$FX/counts.folded.txt"
if command -v gzip >/dev/null 2>&1; then
	gzip -c "$FX/multi.perf.txt" >"$TMP/multi.perf.txt.gz"
	convert "gzip'd perf script" "$TMP/multi.perf.txt.gz"
fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if "$PY" "$SRC/tools/make-nettrace" -o "$TMP/v4.nettrace" "$SRC/fixtures/nettrace/v4-ptr8.desc" \
	2>"$TMP/mk.err"; then
	convert "nettrace" "$TMP/v4.nettrace"
else
	echo "install: tools/make-nettrace failed ($(head -n 1 "$TMP/mk.err")): no .nettrace checked"
fi

# fails ENDING INPUT: each example exits 1 with "example_folded: MESSAGE" naming INPUT's ENDING
fails() {
	for _ex in ex-shared ex-static in-tree; do
		case $_ex in
		in-tree) _bin=$in_tree ;;
		*) _bin=$TMP/$_ex ;;
		esac
		[ -x "$_bin" ] || continue
		LD_LIBRARY_PATH=$libdir "$_bin" "$2" "$TMP/bad.folded" 2>"$TMP/got.err"
		_rc=$?
		if [ "$_rc" -eq 1 ] && grep -q "^example_folded: .*$1" "$TMP/got.err"; then
			ok
		else
			bad "$_ex $2: exit $_rc (want 1), stderr:"
			head -n 3 "$TMP/got.err"
		fi
		[ ! -e "$TMP/bad.folded" ] && ok || bad "$_ex $2: left bad.folded"
	done
}
fails bad_binary.txt "$FX/bad_binary.txt"
fails missing "$TMP/missing"
finish
