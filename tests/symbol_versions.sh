#!/bin/sh
# tests/symbol_versions.sh: no frame name keeps a symbol version ('@' or "@@", then
# [A-Za-z_][A-Za-z0-9_.]*, ending the name: cfree@GLIBC_2.2.5, __libc_start_main@@GLIBC_2.34),
# on any route; "@plt" stays. fixtures/versions (README.md there): calls.c calls malloc, printf
# and free, and libver.so, whose functions have versioned symbols only (ver::work as
# _ZN3ver4workEm@@VER_2, legacy@VER_1, built without DWARF). Checked:
#   - `resolve` (the library's t2f_symbols_resolve): ver::work(unsigned long), legacy; raw
#     (--demangle none) _ZN3ver4workEm; `symbols --demangle` as frames show them, `symbols`
#     the table's raw names;
#   - a .nettrace (tools/make-nettrace) sampling libver.so's functions: libver.so!ver::work,
#     libver.so!legacy;
#   - recordings of calls (skipped when perf cannot record here), each converted from the
#     perf.data file and from `perf script` text (which must print versions: the test checks
#     that it does), to folded and speedscope output:
#       g      perf record -g              with and without --no-inline: both routes write the
#                                          same folded bytes; legacy and ver::work are there,
#                                          cfree too with libc's debug file (libc6-dbg)
#       dwarf  --call-graph dwarf          --no-inline: __libc_start_main, legacy (perf's
#                                          symbol-table choice, cut); default: the names perf
#                                          gets from addr2line, __libc_start_main_impl with
#                                          libc's debug file, legacy (cut)
#     and no frame name of any output has a version.
# usage: sh tests/symbol_versions.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
make_tmp
export DEBUGINFOD_URLS=
VX=$SRC/fixtures/versions
FP="-O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fasynchronous-unwind-tables"
VERSION='@@?[A-Za-z_][A-Za-z0-9_.]*$'
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# shellcheck disable=SC2086 # FP: several flags
if ! cc $FP -fPIC -shared -Wl,--version-script="$VX/ver.map" -o "$TMP/libver.so" "$VX/ver.c" ||
	! objcopy --strip-symbol=work_v2 --strip-symbol=legacy_v1 "$TMP/libver.so" ||
	! cc $FP -g -o "$TMP/calls" "$VX/calls.c" -L"$TMP" -lver -Wl,-rpath,"$TMP"; then
	bad "building fixtures/versions/ver.c and calls.c failed"
	finish
fi

# names FILE: the frame names of a folded or speedscope FILE, one a line
names() {
	case $1 in
	*.folded) sed 's/ [0-9]*$//' "$1" | tr ';' '\n' ;;
	*) "$PY" -c 'import json, sys
for f in json.load(open(sys.argv[1]))["shared"]["frames"]:
    print(f["name"])' "$1" ;;
	esac
}

# unversioned WHAT FILE: no frame name of FILE ends in a symbol version (but @plt), and FILE
# has frames
unversioned() {
	names "$2" >"$TMP/names" || { bad "$1: cannot read $2"; return; }
	_v=$(grep -E "$VERSION" "$TMP/names" | grep -v '@plt$' | sort -u | head -5 | tr '\n' ' ')
	if [ ! -s "$TMP/names" ]; then bad "$1: no frame in $(basename "$2")"
	elif [ -n "$_v" ]; then bad "$1: frame names with a symbol version: $_v"
	else ok; fi
}

# has WHAT FILE NAME...: each NAME is a frame name of FILE
has() {
	_w=$1 _f=$2
	shift 2
	names "$_f" >"$TMP/names"
	for _x in "$@"; do
		if grep -qxF -- "$_x" "$TMP/names"; then ok; else
			bad "$_w: no frame named '$_x' in $(basename "$_f")"; fi
	done
}

# resolve and symbols: ver::work at its start, legacy in its middle
_work=$(readelf -sW "$TMP/libver.so" | awk '$8 == "_ZN3ver4workEm@@VER_2" { print $2; exit }')
_legacy=$(readelf -sW "$TMP/libver.so" | awk '$8 == "legacy@VER_1" { print $2; exit }')
if [ -z "$_work" ] || [ -z "$_legacy" ]; then
	bad "libver.so has no _ZN3ver4workEm@@VER_2 or legacy@VER_1 in its .symtab"
	finish
fi
_legacy4=$(printf '%x' $((0x$_legacy + 4)))
t2f resolve --unsafe-build-id-match "$TMP/libver.so" "$_work" "$_legacy4" 2>&1 |
	cut -f1,2 >"$TMP/res"
printf '0x%x\tver::work(unsigned long)+0x0\n0x%s\tlegacy+0x4\n' 0x"$_work" "$_legacy4" \
	>"$TMP/res.want"
same_nonempty resolve "the names of resolve" "$TMP/res.want" "$TMP/res" "< wanted, > resolve"
t2f resolve --demangle none --unsafe-build-id-match "$TMP/libver.so" "$_work" 2>&1 |
	cut -f2 >"$TMP/res"
echo "_ZN3ver4workEm+0x0" >"$TMP/res.want"
same_nonempty resolve "resolve --demangle none" "$TMP/res.want" "$TMP/res" "< wanted, > resolve"
# (.dynsym lists the names without their versions, .symtab with them)
t2f symbols --demangle "$TMP/libver.so" 2>&1 | cut -f2,5 | sort -u >"$TMP/sym"
printf '%s\t%s\n' .dynsym legacy .dynsym 'ver::work(unsigned long)' .symtab legacy \
	.symtab 'ver::work(unsigned long)' >"$TMP/sym.want"
same_nonempty symbols "symbols --demangle" "$TMP/sym.want" "$TMP/sym" "< wanted, > symbols"
t2f symbols "$TMP/libver.so" 2>&1 | cut -f2,5 | sort -u >"$TMP/sym"
printf '%s\t%s\n' .dynsym _ZN3ver4workEm .dynsym legacy .symtab _ZN3ver4workEm@@VER_2 \
	.symtab legacy@VER_1 >"$TMP/sym.want"
same_nonempty symbols "symbols (raw)" "$TMP/sym.want" "$TMP/sym" "< wanted, > symbols"

# nettrace: a universal trace sampling libver.so's functions
cat >"$TMP/v.desc" <<'DESC'
format v6
trace pid=100
elf V ${LIB}
process 100 calls
thread 100 100 main
map M 100 V 0x7f0000000000
sample 100 100 V:legacy@VER_1+4;V:_ZN3ver4workEm@@VER_2+8
DESC
if "$PY" "$SRC/tools/make-nettrace" -D LIB="$TMP/libver.so" -o "$TMP/v.nettrace" "$TMP/v.desc" \
	2>"$TMP/nt.err" && t2f "$TMP/v.nettrace" -o "$TMP/nt.folded" 2>>"$TMP/nt.err"; then
	echo 'main;libver.so!ver::work;libver.so!legacy 1000000' >"$TMP/nt.want"
	same_nonempty nettrace "folded" "$TMP/nt.want" "$TMP/nt.folded" "< wanted, > nettrace"
else
	bad "nettrace: $(head -3 "$TMP/nt.err")"
fi

perf_can_record "skipping the recordings" || finish

# libc's debug file (libc6-dbg), which names free cfree@GLIBC_2.2.5 and __libc_start_main
# __libc_start_main@@GLIBC_2.34 in perf's symbol-table choice
_libc=$(ldd "$TMP/calls" | awk '$1 ~ /^libc\.so/ { print $3 }')
_id=$(readelf -n "$_libc" 2>/dev/null | awk '/Build ID/ { print $3; exit }')
_rest=${_id#??}
DBG=
[ -n "$_id" ] && [ -f "/usr/lib/debug/.build-id/${_id%"$_rest"}/$_rest.debug" ] && DBG=1
[ -n "$DBG" ] || echo "$TEST_NAME: libc's debug file not found (Debian libc6-dbg): its names" \
	"not checked, skipped"

# record NAME PERF-RECORD-ARGS...: NAME.data, perf script's text of it (NAME.txt, and
# NAME.noinl.txt with --no-inline) and its build-ids
record() {
	_n=$1
	shift
	if ! perf record -q "$@" -e cpu-clock --buildid-all -o "$TMP/$_n.data" -- \
		"$TMP/calls" 60000 >/dev/null 2>"$TMP/$_n.rec"; then
		bad "$_n: perf record $* failed: $(head -3 "$TMP/$_n.rec")"
		return 1
	fi
	perf script -i "$TMP/$_n.data" >"$TMP/$_n.txt" 2>/dev/null &&
		perf script -i "$TMP/$_n.data" --no-inline >"$TMP/$_n.noinl.txt" 2>/dev/null &&
		perf buildid-list -i "$TMP/$_n.data" >"$TMP/$_n.ids" 2>/dev/null
	if grep -qE '[^ ]@@?[A-Za-z_][A-Za-z0-9_.]*(\+0x[0-9a-f]+)? \(' "$TMP/$_n.noinl.txt"; then
		ok
	else
		bad "$_n: perf script printed no symbol version: nothing to cut"
	fi
}

# convert NAME TAG TEXT ARGS...: NAME.TAG.{d,t}.{folded,speedscope.json}, from the perf.data
# file and from TEXT (perf script's), with ARGS; none with a version
convert() {
	_n=$1 _t=$2 _x=$3
	shift 3
	for _o in folded speedscope.json; do
		if t2f "$@" "$TMP/$_n.data" -o "$TMP/$_n.$_t.d.$_o" 2>"$TMP/err" &&
			t2f "$@" --buildids "$TMP/$_n.ids" - -o "$TMP/$_n.$_t.t.$_o" <"$TMP/$_x" \
				2>>"$TMP/err"; then
			unversioned "$_n $_t perf.data route" "$TMP/$_n.$_t.d.$_o"
			unversioned "$_n $_t text route" "$TMP/$_n.$_t.t.$_o"
		else
			bad "$_n $_t: $(head -3 "$TMP/err")"
		fi
	done
}

if record g -g; then
	convert g noinl g.noinl.txt --no-inline
	convert g inl g.txt
	for _t in noinl inl; do
		same_nonempty "g $_t" "folded routes" "$TMP/g.$_t.d.folded" "$TMP/g.$_t.t.folded" \
			"< perf.data route, > perf script route"
	done
	has "g" "$TMP/g.noinl.d.folded" legacy ver::work
	[ -z "$DBG" ] || has "g" "$TMP/g.noinl.d.folded" cfree
fi
if record dwarf --call-graph dwarf; then
	convert dwarf noinl dwarf.noinl.txt --no-inline
	convert dwarf inl dwarf.txt
	for _r in d t; do
		has "dwarf --no-inline" "$TMP/dwarf.noinl.$_r.folded" legacy ver::work
		has "dwarf" "$TMP/dwarf.inl.$_r.folded" legacy ver::work
		[ -z "$DBG" ] || has "dwarf --no-inline" "$TMP/dwarf.noinl.$_r.folded" \
			__libc_start_main cfree
		[ -z "$DBG" ] || has "dwarf" "$TMP/dwarf.inl.$_r.folded" __libc_start_main_impl
	done
fi
finish
