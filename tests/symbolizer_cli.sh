#!/bin/sh
# `trace2flame resolve` against binutils: on the lld-built modules (p_vaddr != p_offset) every
# function, at its start and middle (addresses from nm), resolves to the function
# `addr2line -f -e FILE ADDR` names (an alias at the same address counts as the same function);
# the same through a separate debug file only; a wrong build-id is refused with a message naming
# both ids, a file without one as such; the search places the CLI adds (--symbol-path, T2F_SYMBOL_PATH); the exit codes.
#
# usage: sh tests/symbolizer_cli.sh TRACE2FLAME
# env:   T2F_ELF_FIXTURES  the tree of tests/elf/build-fixtures.sh (set by ctest)
#        CI=true           a skipped lld fixture part fails instead of being skipped
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
EF=${T2F_ELF_FIXTURES:-}
if [ -z "$EF" ] || [ ! -f "$EF/.t2f-elf-fixtures" ]; then
	echo "$TEST_NAME: T2F_ELF_FIXTURES does not name a fixture tree (ctest sets it)"
	exit 1
fi
for tool in addr2line nm objcopy readelf; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$TEST_NAME: $tool not found (binutils)"
		exit 1
	fi
done
make_tmp

# expect RC WHAT ARGS: runs `trace2flame resolve ARGS` (stdout $TMP/out, stderr $TMP/err).
expect() {
	_want=$1 _what=$2
	shift 2
	t2f resolve "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	if [ "$_rc" -eq "$_want" ]; then
		ok
		return 0
	fi
	bad "$_what: exit $_rc, want $_want (trace2flame resolve $*)"
	head -n 5 "$TMP/err" | sed 's/^/    stderr: /'
	return 1
}

# exactly WHAT FILE TEXT: FILE holds TEXT and nothing else (a final newline aside)
exactly() {
	if [ "$(cat "$2")" = "$3" ]; then
		ok
	else
		bad "$1: $(basename "$2") is not exactly '$3'"
		head -n 5 "$2" | sed 's/^/    /'
	fi
}

has() {
	if grep -qF -- "$3" "$2"; then
		ok
	else
		bad "$1: no '$3' in $(basename "$2")"
		head -n 5 "$2" | sed 's/^/    /'
	fi
}

build_id() { awk '$1 == "buildid" { print $2; exit }' "$1.expect"; }

# addrs FILE: "ADDR VALUE" for the start and the middle of each function: nm's sized symbols
# that the readelf sidecar lists as FUNC/IFUNC (nm cannot tell a function from an object).
addrs() {
	awk '$1 == "sym" { print $NF }' "$1.expect" | sort -u >"$TMP/funcs"
	nm -S --defined-only "$1" |
		awk 'NF == 4 { print $4, $1, $2 }' | sort -k1,1 |
		join - "$TMP/funcs" |
		awk '# hex arithmetic by hand: exact below 2^53, where mawk'"'"'s %x stops at 2^32
		function num(h,   i, n) {
			n = 0
			for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return n
		}
		function hex(n,   s, d) {
			s = ""
			do { d = n % 16; s = substr("0123456789abcdef", d + 1, 1) s; n = (n - d) / 16 } while (n > 0)
			return s
		}
		{ print $2, $2; print hex(num($2) + int(num($3) / 2)), $2 }' | sort -u
}

# compare FILE [RESOLVE-OPTS...]: resolve vs addr2line for every address of addrs FILE; the
# module named to resolve is $TARGET (default FILE), addr2line always reads FILE. Raw names
# (addr2line -f, resolve --demangle none), then demangled ones (addr2line -f -C, resolve's
# default --demangle full).
compare() {
	_f=$1
	shift
	compare_names "$_f" -f none "$@"
	compare_names "$_f" -fC full "$@"
}

# compare_names FILE ADDR2LINE-OPT DEMANGLE-MODE RESOLVE-OPTS...: one comparison.
compare_names() {
	_file=$1 _a2l=$2 _dm=$3
	shift 3
	addrs "$_file" >"$TMP/addrs"
	[ -s "$TMP/addrs" ] || { bad "$_file: no functions from nm"; return; }
	# shellcheck disable=SC2046
	addr2line "$_a2l" -e "$_file" $(awk '{ print "0x" $1 }' "$TMP/addrs") |
		awk 'NR % 2 == 1' >"$TMP/a2l"
	# shellcheck disable=SC2046
	t2f resolve --demangle "$_dm" "$@" "${TARGET:-$_file}" $(awk '{ print $1 }' "$TMP/addrs") \
		>"$TMP/res" 2>"$TMP/err"
	_rc=$?
	[ "$_rc" -eq 0 ] || bad "$_file: resolve exit $_rc"
	# value name pairs of every sized FUNC, to accept aliases (same address, another name)
	awk '$1 == "sym" && $4 !~ /^0+$/ { v = $7; sub(/^0+/, "", v); print v, $NF }' \
		"$_file.expect" | sort -u >"$TMP/names"
	if paste "$TMP/addrs" "$TMP/a2l" "$TMP/res" | awk -v file="$_file" -v names="$TMP/names" -v dm="$_dm" '
		BEGIN { while ((getline l < names) > 0) { split(l, a, " "); at[a[2]] = a[1] } }
		{
			split($0, c, "\t"); split(c[1], av, " "); want = c[2]; got = c[4]
			sub(/\+0x[0-9a-f]+$/, "", got)
			n++
			if (got == want) next
			if ((got in at) && (want in at) && at[got] == at[want]) { alias++; next }
			bad++
			if (bad <= 10) printf "FAIL %s 0x%s: addr2line %s, resolve %s\n", file, av[1], want, c[4]
		}
		END {
			printf "%s (%s): %d addresses, %d identical, %d aliases, %d different\n", file, dm, n,
				n - alias - bad, alias, bad
			exit bad > 0
		}'; then
		ok
	else
		bad "$_file: resolve --demangle $_dm and addr2line $_a2l differ"
	fi
}

skipped() { grep -q "^$1	" "$EF/SKIPPED" 2>/dev/null; }

# --- lld modules: resolve == addr2line -f -------------------------------------------------------
if skipped lld; then
	if [ "${CI:-}" = true ]; then
		bad "the lld fixture part was skipped: $(grep '^lld	' "$EF/SKIPPED")"
	else
		echo "$TEST_NAME: lld fixtures skipped ($(grep '^lld	' "$EF/SKIPPED")), not comparing"
	fi
else
	for f in lld/prog lld/libfx.so lld/libfx-pinned.so; do
		compare "$EF/$f" --debug-dir "$TMP/none"
	done
	# only a debug file of lld/prog, found by build-id; the binary is not at its path
	id=$(build_id "$EF/lld/prog")
	dbg=$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	mkdir -p "$(dirname "$dbg")"
	objcopy --only-keep-debug "$EF/lld/prog" "$dbg"
	TARGET=$TMP/gone/prog compare "$EF/lld/prog" --debug-dir "$TMP/dbg" --build-id "$id"
fi
# GNU ld, for good measure
compare "$EF/gnu/libfx.so" --debug-dir "$TMP/none"

# --- refusals name both ids ---------------------------------------------------------------------
id=$(build_id "$EF/gnu/prog")
idv2=$(build_id "$EF/gnu/prog-v2")
hot=$(awk '$1 == "sym" && $NF == "fx_hot_loop" { print $7; exit }' "$EF/gnu/prog.expect")
hotx=$(printf '0x%x' "0x$hot") # as resolve prints it: 0x, lowercase, no leading zeros
wrong=$EF/wrongid/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
expect 1 "wrong build-id debug file" --debug-dir "$EF/wrongid/debug" "$EF/stripped/prog" "$hot"
has "wrong build-id debug file" "$TMP/err" \
	"trace2flame: refused $wrong: build-id mismatch (expected $id, found $idv2)"
has "wrong build-id debug file" "$TMP/out" "$hotx	?? (build-id mismatch)	$EF/stripped/prog"
expect 0 "wrong, then right debug dir" --debug-dir "$EF/wrongid/debug" --debug-dir "$EF/debug" \
	"$EF/stripped/prog" "$hot"
has "wrong, then right debug dir" "$TMP/err" "refused $wrong: build-id mismatch (expected $id, found $idv2)"
has "wrong, then right debug dir" "$TMP/out" "$hotx	fx_hot_loop+0x0	$EF/debug/.build-id/"
expect 1 "binary of another build" --debug-dir "$TMP/none" --build-id "$idv2" "$EF/gnu/prog" "$hot"
has "binary of another build" "$TMP/err" \
	"trace2flame: refused $EF/gnu/prog: build-id mismatch (expected $idv2, found $id)"
expect 0 "binary of another build, unsafe" --debug-dir "$TMP/none" --unsafe-build-id-match \
	--build-id "$idv2" "$EF/gnu/prog" "$hot"
has "binary of another build, unsafe" "$TMP/err" \
	"trace2flame: warning: $EF/gnu/prog: build-id mismatch accepted (--unsafe-build-id-match)"
expect 1 "no build-id" --debug-dir "$TMP/none" "$EF/gnu/prog-noid" "$hot"
has "no build-id" "$TMP/err" "refused $EF/gnu/prog-noid: no build-id to verify against"
has "no build-id" "$TMP/out" "$hotx	?? (no build-id)	$EF/gnu/prog-noid"
expect 1 "no build-id in the file" --debug-dir "$TMP/none" --build-id "$id" "$EF/gnu/prog-noid" \
	"$hot"
has "no build-id in the file" "$TMP/err" \
	"trace2flame: refused $EF/gnu/prog-noid: no build-id in the file (expected $id)"
has "no build-id in the file" "$TMP/out" "$hotx	?? (no build-id)	$EF/gnu/prog-noid"
expect 0 "no build-id, unsafe" --debug-dir "$TMP/none" --unsafe-build-id-match \
	"$EF/gnu/prog-noid" "$hot"
has "no build-id, unsafe" "$TMP/out" "fx_hot_loop+0x0"

# --- search places from the command line --------------------------------------------------------
expect 0 "--symbol-path" --debug-dir "$TMP/none" --symbol-path "$TMP/none" --symbol-path "$EF/symdir" \
	"$EF/stripped/prog" "0x$hot"
has "--symbol-path" "$TMP/out" "$hotx	fx_hot_loop+0x0	$EF/symdir/prog"
T2F_SYMBOL_PATH="$TMP/none::$EF/symdir" expect 0 "T2F_SYMBOL_PATH" --debug-dir "$TMP/none" \
	"$EF/stripped/prog" "$hot"
has "T2F_SYMBOL_PATH" "$TMP/out" "$EF/symdir/prog"
expect 0 "debuglink beside" --debug-dir "$TMP/none" "$EF/dl-beside/prog" "$hot"
has "debuglink beside" "$TMP/out" "fx_hot_loop+0x0	$EF/dl-beside/prog.debug"
DEBUGINFOD_CACHE_PATH=$EF/debuginfod expect 0 "debuginfod cache" --debug-dir "$TMP/none" \
	"$EF/stripped/prog" "$hot"
has "debuginfod cache" "$TMP/out" "$EF/debuginfod/$id/debuginfo"

# --- demangling, exit codes ---------------------------------------------------------------------
poke=$(awk '$1 == "sym" && $NF == "_ZN2fx6Widget4pokeEi" { print $7; exit }' "$EF/gnu/libfx.so.expect")
expect 0 "demangle full" "$EF/gnu/libfx.so" "$poke"
has "demangle full" "$TMP/out" "fx::Widget::poke(int)+0x0"
expect 0 "demangle no-params" --demangle no-params "$EF/gnu/libfx.so" "$poke"
has "demangle no-params" "$TMP/out" "	fx::Widget::poke+0x0	"
expect 0 "demangle none" --demangle none "$EF/gnu/libfx.so" "$poke"
has "demangle none" "$TMP/out" "	_ZN2fx6Widget4pokeEi+0x0	"
expect 1 "an address in no function" --debug-dir "$TMP/none" "$EF/gnu/prog" "$hot" 1
has "an address in no function" "$TMP/out" "0x1	?? (not found)	$EF/gnu/prog"
# a missing or non-ELF FILE: that alone is said (no refusal, no build-id advice), exit 3
expect 3 "missing file" --debug-dir "$TMP/none" "$TMP/gone/prog" 1000
exactly "missing file" "$TMP/err" "trace2flame: cannot read $TMP/gone/prog: No such file or directory"
exactly "missing file: no output" "$TMP/out" ""
expect 3 "not an ELF file" --debug-dir "$TMP/none" "$EF/broken/not-elf" 1000
exactly "not an ELF file" "$TMP/err" "trace2flame: $EF/broken/not-elf: not a readable ELF file"
# addresses are printed as 0x and lowercase hex, however they were typed; one that is not hex
# is said, the others are resolved, exit 1
up=$(printf '%s' "$hot" | tr a-f A-F)
expect 0 "spellings" --debug-dir "$TMP/none" "$EF/gnu/prog" "$hot" "0X$up" "${hotx#0x}"
exactly "spellings" "$TMP/out" "$(printf '%s\tfx_hot_loop+0x0\t%s\n' "$hotx" "$EF/gnu/prog" \
	"$hotx" "$EF/gnu/prog" "$hotx" "$EF/gnu/prog")"
expect 0 "spellings, --inlines" --inlines --debug-dir "$TMP/none" "$EF/gnu/prog" "0X$up"
if grep -qv "^$hotx	" "$TMP/out"; then bad "--inlines: a line not led by $hotx"; else ok; fi
expect 1 "a bad address among good ones" --debug-dir "$TMP/none" "$EF/gnu/prog" zz "$hot" 0x 1g
exactly "a bad address: the good one printed" "$TMP/out" \
	"$(printf '%s\tfx_hot_loop+0x0\t%s' "$hotx" "$EF/gnu/prog")"
exactly "a bad address: each said" "$TMP/err" "trace2flame: resolve: 'zz' is not a hex address
trace2flame: resolve: '0x' is not a hex address
trace2flame: resolve: '1g' is not a hex address"
# --debug-dir adds to /usr/lib/debug: libc's local __libc_start_call_main (only in libc6-dbg's
# debug file) is still named when another directory is given
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
id=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ -n "$id" ] && [ -f "$dbg" ]; then
	at=$(readelf -Ws "$dbg" | awk '$8 == "__libc_start_call_main" { print $2; exit }')
	# (perf's build-id cache and debuginfod's may hold the file too: not here)
	export PERF_BUILDID_DIR="$TMP/none" DEBUGINFOD_CACHE_PATH="$TMP/none"
	expect 0 "--debug-dir adds to /usr/lib/debug" --debug-dir "$TMP/none" "$libc" "$at"
	has "--debug-dir adds to /usr/lib/debug" "$TMP/out" "__libc_start_call_main+0x0	$dbg"
	unset PERF_BUILDID_DIR DEBUGINFOD_CACHE_PATH
else
	echo "$TEST_NAME: no libc6-dbg debug file for $libc: the --debug-dir default check skipped"
fi
expect 2 "no address" "$EF/gnu/prog"
expect 1 "only a bad address" "$EF/gnu/prog" 0xzz
exactly "only a bad address" "$TMP/err" "trace2flame: resolve: '0xzz' is not a hex address"
expect 2 "bad build-id" --build-id 12345 "$EF/gnu/prog" 1000
expect 2 "bad demangle mode" --demangle some "$EF/gnu/prog" 1000
expect 0 "help" --help
has "help" "$TMP/out" "Usage: trace2flame resolve"

finish
