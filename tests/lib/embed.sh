#!/bin/sh
# libtrace2flame embedded as its documentation says, from an installed copy alone: the build tree
# installed with `cmake --install` into a new prefix, then
#   - tools/example_convert.c (written from the installed header and `man 3 trace2flame`) and
#     the man page's own EXAMPLES program, compiled with nothing but `pkg-config trace2flame`;
#   - tools/python/example_convert.py, run by Debian's /usr/bin/python3 on the installed Python
#     module (PYTHONPATH the prefix's directory alone; the module finds the library by itself);
# convert perf script text, .nettrace (shipped, and V4 written by tools/make-nettrace) and
# perf.data (written by tests/perf_data_gen.py; recorded by perf record where it may record),
# together and one by one, into every format: the bytes of the installed `trace2flame INPUT...
# -f FORMAT`. Their progress lines name each input with its size; a bad input fails with exit 1
# and the library's message, leaving no output. Also checks the installed man page (man -w
# finds it), the Python files, and that the directory the module goes to for the configured
# prefix is on Debian python3's sys.path (/usr/local, /usr).
# usage: T2F_BUILD_DIR=BUILD sh tests/lib/embed.sh
# env:   T2F_BUILD_DIR (required), T2F_SOURCE_DIR; CC (default cc), T2F_CMAKE (default cmake);
#        T2F_LIB_CFLAGS: flags for compiling and linking the C programs (the sanitizer build's);
#        T2F_SANITIZE=1: the sanitizer build (tests/lib/python.sh preloads the ASan runtime)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
if [ -z "${T2F_BUILD_DIR:-}" ]; then
	echo "usage: T2F_BUILD_DIR=BUILD $0" >&2
	exit 2
fi
SRC=${T2F_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TEST_NAME=embed
make_tmp
CC=${CC:-cc}
cflags=${T2F_LIB_CFLAGS:-}
PY=/usr/bin/python3
GEN=$PY # what runs the input generators: any python3 will do
[ -x "$GEN" ] || GEN=$(command -v python3 || echo python3)

# --- install ----------------------------------------------------------------------------------
prefix=$TMP/prefix
if ! "${T2F_CMAKE:-cmake}" --install "$T2F_BUILD_DIR" --prefix "$prefix" >"$TMP/install.log" 2>&1; then
	bad "cmake --install $T2F_BUILD_DIR failed:"
	tail -n 5 "$TMP/install.log"
	finish
fi
cli=$prefix/bin/trace2flame
cmp -s "$prefix/share/man/man3/trace2flame.3" "$SRC/docs/trace2flame.3" && ok ||
	bad "share/man/man3/trace2flame.3: not installed, or not the bytes of docs/trace2flame.3"
if command -v man >/dev/null 2>&1; then
	found=$(MANPATH=$prefix/share/man man -w 3 trace2flame 2>&1)
	[ "$found" = "$prefix/share/man/man3/trace2flame.3" ] && ok ||
		bad "MANPATH=PREFIX/share/man man -w 3 trace2flame: '$found'"
fi
pkgdir=$(find "$prefix" -path '*/trace2flame/__init__.py' | sed 's|/__init__.py$||')
if [ -z "$pkgdir" ]; then
	bad "the Python module trace2flame is not installed under the prefix"
	finish
fi
pydir=${pkgdir%/trace2flame}
for f in "$SRC"/tools/python/trace2flame/*.py; do
	cmp -s "$f" "$pkgdir/${f##*/}" && ok || bad "${pkgdir#"$prefix"/}/${f##*/}: not installed"
done
[ -f "$pkgdir/_install.py" ] && ok || bad "${pkgdir#"$prefix"/}/_install.py: not installed"
configured=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$T2F_BUILD_DIR/CMakeCache.txt")
if [ -x "$PY" ] && { [ "$configured" = /usr/local ] || [ "$configured" = /usr ]; }; then
	want=$configured/${pydir#"$prefix"/}
	"$PY" -c 'import sys; print("\n".join(sys.path))' | grep -qx "$want" && ok ||
		bad "$want (where the module goes for the prefix $configured) is not on $PY's sys.path"
fi
pc=$(find "$prefix" -path '*/pkgconfig/trace2flame.pc')
export PKG_CONFIG_PATH="${pc%/*}${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
libdir=$(cd "$(pkg-config --variable=libdir trace2flame)" && pwd)

# --- the C programs, built against the prefix -------------------------------------------------
# cc_example NAME SOURCE
cc_example() {
	# shellcheck disable=SC2046,SC2086 # the flags are words
	if $CC $cflags -o "$TMP/$1" "$2" $(pkg-config --cflags --libs trace2flame) 2>"$TMP/cc.err"
	then
		ok
	else
		bad "$CC $cflags ${2#"$SRC"/} \$(pkg-config --cflags --libs trace2flame) failed:"
		head -n 10 "$TMP/cc.err"
	fi
}
cc_example ex-c "$SRC/tools/example_convert.c"
# the program of the man page's EXAMPLES, its roff escapes undone
sed -n '/^\.SH EXAMPLES/,/^\.SH/p' "$SRC/docs/trace2flame.3" | sed -n '/^\.EX/,/^\.EE/p' |
	sed '/^\.E[XE]$/d; s/\\e/\\/g; s/\\-/-/g' | sed '/^cc /,$d' >"$TMP/man-example.c"
grep -q 't2f_session_new' "$TMP/man-example.c" && ok || bad "no program in the man page's EXAMPLES"
cc_example ex-man "$TMP/man-example.c"
# the Python example away from the source tree, so that it imports the installed module
cp "$SRC/tools/python/example_convert.py" "$TMP/example_convert.py"
py_ok=0
if [ ! -x "$PY" ]; then
	echo "$TEST_NAME: $PY not found (Debian python3): the Python example skipped"
else
	where=$(cd "$TMP" && PYTHONPATH=$pydir sh "$SRC/tests/lib/python.sh" -c \
		'import trace2flame as t; print(t.__file__); print(t.library_path())' 2>&1)
	case $where in
	"$pkgdir/__init__.py
$libdir/libtrace2flame.so.0") ok; py_ok=1 ;;
	*) bad "the installed module, or the library it loads, is not the prefix's: $where" ;;
	esac
fi

# --- inputs -----------------------------------------------------------------------------------
FX=$SRC/fixtures/perf-script
set -- "$FX/burner.perf.txt" "$SRC/fixtures/nettrace/universal.nettrace"
if ! command -v "$GEN" >/dev/null 2>&1; then
	echo "$TEST_NAME: python3 not found (Debian python3): no V4 .nettrace nor generated perf.data"
elif "$GEN" "$SRC/tools/make-nettrace" -o "$TMP/v4.nettrace" \
	"$SRC/fixtures/nettrace/v4-ptr8.desc" 2>"$TMP/mk.err"; then
	set -- "$@" "$TMP/v4.nettrace"
else
	bad "tools/make-nettrace failed: $(head -n 1 "$TMP/mk.err")"
fi
# perf.data over the C example itself (its build-id recorded): named by the resolve stage
bid=$(readelf -n "$TMP/ex-c" 2>/dev/null | sed -n 's/.*Build ID: //p')
if [ -n "$bid" ] && command -v "$GEN" >/dev/null 2>&1 && "$GEN" - "$SRC/tests" "$TMP/ex-c" "$bid" "$TMP/gen.data" <<'EOF' 2>"$TMP/gen.err"
import subprocess, sys
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
exe, bid, out = sys.argv[2], bytes.fromhex(sys.argv[3]), sys.argv[4]
syms = {}
for line in subprocess.run(["readelf", "-Ws", exe], capture_output=True, text=True).stdout.split("\n"):
    f = line.split()
    if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
        syms[f[7]] = int(f[1], 16)
base = 0x555555554000
samples = [(100 + i, [base + syms["on_progress"] + i % 8, base + syms["main"] + 0x10])
           for i in range(30)]
with open(out, "wb") as f:
    f.write(g.perf_data(b"ex-c", b"cpu-clock", [(exe.encode(), base, 5)], samples,
                        build_ids=[(exe.encode(), bid)], config=0))
EOF
then
	set -- "$@" "$TMP/gen.data"
elif command -v "$GEN" >/dev/null 2>&1; then
	bad "tests/perf_data_gen.py: $(tail -n 1 "$TMP/gen.err" 2>/dev/null) (build-id '$bid')"
fi
if command -v perf >/dev/null 2>&1 &&
	$CC -O1 -g -fno-omit-frame-pointer -o "$TMP/spin" "$SRC/fixtures/perf-data/spin.c" \
		>"$TMP/rec.err" 2>&1 &&
	perf record -q -g -e cpu-clock -o "$TMP/rec.data" -- "$TMP/spin" 100 >"$TMP/rec.err" 2>&1
then
	set -- "$@" "$TMP/rec.data"
else
	echo "$TEST_NAME: perf not found, or perf record -e cpu-clock is not allowed here: no" \
		"recorded perf.data ($(head -n 1 "$TMP/rec.err" 2>/dev/null))"
fi

# --- conversions ------------------------------------------------------------------------------
# convert NAME FORMAT INPUT...: each program writes the installed CLI's bytes, and says each
# input read with its size
convert() {
	_name=$1 _fmt=$2
	shift 2
	if ! "$cli" "$@" -f "$_fmt" -o "$TMP/want" 2>"$TMP/want.err" || [ ! -s "$TMP/want" ]; then
		bad "$_name: trace2flame -f $_fmt failed or wrote nothing"
		head -n 3 "$TMP/want.err"
		return
	fi
	: >"$TMP/reads"
	for _i in "$@"; do
		echo "example_convert: read $_i: $(wc -c <"$_i") bytes" >>"$TMP/reads"
	done
	for _ex in ex-c py ex-man; do
		rm -f "$TMP/got"
		case $_ex in
		ex-c) LD_LIBRARY_PATH=$libdir "$TMP/ex-c" "$_fmt" "$TMP/got" "$@" 2>"$TMP/got.err" ;;
		py)
			[ "$py_ok" = 1 ] || continue
			(cd "$TMP" && PYTHONPATH=$pydir sh "$SRC/tests/lib/python.sh" example_convert.py \
				"$_fmt" "$TMP/got" "$@" 2>"$TMP/got.err") ;;
		ex-man)
			[ "$_fmt" = collapsed ] || continue
			LD_LIBRARY_PATH=$libdir "$TMP/ex-man" "$@" >"$TMP/got" 2>"$TMP/got.err" ;;
		esac
		_rc=$?
		if [ "$_rc" -ne 0 ]; then
			bad "$_name: $_ex -f $_fmt: exit $_rc"
			head -n 3 "$TMP/got.err"
			continue
		fi
		same_nonempty "$_name" "$_ex and trace2flame -f $_fmt" "$TMP/want" "$TMP/got" \
			"< trace2flame, > $_ex"
		if [ "$_ex" = ex-man ]; then
			sed 's/^example_convert: //' "$TMP/reads" >"$TMP/reads.man"
			grep '^read ' "$TMP/got.err" | cmp -s - "$TMP/reads.man" && ok ||
				bad "$_name: $_ex's progress lines are not one per input with its size"
		else
			grep '^example_convert: read ' "$TMP/got.err" | cmp -s - "$TMP/reads" && ok ||
				bad "$_name: $_ex's progress lines are not one per input with its size:" \
					"$(grep '^example_convert: read ' "$TMP/got.err" | head -n 3)"
		fi
	done
}
for fmt in collapsed speedscope pprof svg; do
	convert "all inputs" "$fmt" "$@"
done
for i in "$@"; do
	convert "${i##*/}" collapsed "$i"
	convert "${i##*/}" pprof "$i"
done

# fails INPUT TEXT: each program exits 1 with "example_convert: MESSAGE", MESSAGE the CLI's
# (TEXT in it), and leaves no output
fails() {
	"$cli" "$1" -f svg -o "$TMP/bad.svg" 2>"$TMP/want.err"
	_want=$(grep -v warning "$TMP/want.err" | sed -n 's/^trace2flame: //p')
	case $_want in
	*"$2"*) ok ;;
	*) bad "trace2flame $1: '$_want' does not say '$2'" ;;
	esac
	for _ex in ex-c py; do
		case $_ex in
		ex-c) LD_LIBRARY_PATH=$libdir "$TMP/ex-c" svg "$TMP/bad.svg" "$1" 2>"$TMP/got.err" ;;
		py)
			[ "$py_ok" = 1 ] || continue
			(cd "$TMP" && PYTHONPATH=$pydir sh "$SRC/tests/lib/python.sh" example_convert.py \
				svg "$TMP/bad.svg" "$1" 2>"$TMP/got.err") ;;
		esac
		_rc=$?
		if [ "$_rc" -eq 1 ] && grep -qxF "example_convert: $_want" "$TMP/got.err"; then
			ok
		else
			bad "$_ex $1: exit $_rc (want 1 and 'example_convert: $_want'), stderr:"
			head -n 3 "$TMP/got.err"
		fi
		[ ! -e "$TMP/bad.svg" ] && ok || bad "$_ex $1: left bad.svg"
	done
}
fails "$FX/bad_binary.txt" "bad_binary.txt:8"
fails "$TMP/missing.data" "missing.data"
finish
