#!/bin/sh
# tests/cache/ranges.sh: the symbol cache answers an address it was never asked when an answer
# it holds is known to hold there (docs/symbols.md, Symbol cache). tests/cache/ranges.c is
# built as a PIE (file offsets are its ELF addresses) and perf script text naming no function
# ([unknown] frames, the build-id given by --buildids) is made for three sets of its addresses:
# A, one in each function; B, other addresses of the same functions; C, addresses where a
# nested symbol, a gap or the end of a function changes the answer. Under each --symbol-rules,
# A is converted into an empty cache, then B must be answered from the cache alone ("0 looked
# up in the files") and give the bytes of B with --no-cache; C and A too (C may look up).
# `resolve` too: A's addresses, then B's answered from its cache file (poisoned by
# tests/cache/craft.c, B's names show it), the same bytes as resolve --no-cache.
# x86-64 only (ranges.c holds assembly); skipped elsewhere.
# usage: sh tests/cache/ranges.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
make_tmp
if [ "$(uname -m)" != x86_64 ]; then
	echo "$TEST_NAME: not x86-64: skipped"
	exit 0
fi
export DEBUGINFOD_URLS=
C=$TMP/cache
export T2F_CACHE_DIR="$C"
P=$TMP/ranges
cc -O1 -pie -fPIE -Wl,--build-id -o "$P" "$SRC/tests/cache/ranges.c" ||
	{ bad "cc ranges.c failed"; finish; }
echo "$(readelf -n "$P" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p') $P" >"$TMP/ids"
sym() { nm "$P" | awk -v n="$1" '$3 == n { print $1 }'; }
alpha=$((0x$(sym alpha))) beta=$((0x$(sym beta))) main=$((0x$(sym main)))
outer=$((0x$(sym outer))) inner=$((0x$(sym inner)))

# input NAME ADDR...: one sample per address, each a frame of ranges
input() {
	_n=$1
	shift
	for _a in "$@"; do
		printf 'ranges 100 1.000000: 1000 cpu-clock:\n\t%16x [unknown] (%s)\n\n' "$_a" "$P"
	done >"$TMP/$_n.txt"
}
input A $((alpha + 1)) $((beta + 1)) $((main + 1)) $((outer + 1)) $((inner + 1))
input B $((alpha + 16)) $((beta + 30)) $((main + 20)) "$outer" $((inner + 2))
input C $((inner + 3)) $((outer + 6)) $((outer - 1)) $((main + 0x100)) $((alpha - 1))

for rules in strict perf; do
	rm -rf "$C"
	for n in A B C; do
		t2f --symbol-rules $rules --no-cache --buildids "$TMP/ids" "$TMP/$n.txt" \
			-o "$TMP/$n.ref.folded" 2>"$TMP/err" || bad "$rules $n --no-cache: $(cat "$TMP/err")"
	done
	for n in A B C A; do
		t2f --symbol-rules $rules --stats --buildids "$TMP/ids" "$TMP/$n.txt" \
			-o "$TMP/$n.folded" 2>"$TMP/$n.err" || bad "$rules $n: $(head -3 "$TMP/$n.err")"
		same_nonempty "$rules $n" "with the cache and without" "$TMP/$n.ref.folded" \
			"$TMP/$n.folded" "< --no-cache, > the cache"
	done
	grep -q '^ranges;alpha' "$TMP/B.folded" && grep -q '^ranges;main' "$TMP/B.folded" && ok ||
		bad "$rules: B not named: $(cat "$TMP/B.folded")"
	case $(grep '^symbol cache' "$TMP/B.err") in
	*": 1 files used, 0 missing, 0 ignored"*" 0 written,"*"; 5 addresses answered from it, 0 looked up in the files") ok ;;
	*) bad "$rules: B was not answered from the cache: $(grep '^symbol cache' "$TMP/B.err")" ;;
	esac
done

# resolve uses the cache as a conversion does: B's addresses answered from what A's run kept
# (the file poisoned by tests/cache/craft.c shows it), the same bytes as --no-cache before
cc -O -I"$SRC" -o "$TMP/craft" "$SRC/tests/cache/craft.c" || { bad "cc craft.c failed"; finish; }
addrs() { for _a in "$@"; do printf '%x ' "$_a"; done; }
RA=$(addrs $((alpha + 1)) $((beta + 1)) $((main + 1)))
RB=$(addrs $((alpha + 16)) $((beta + 30)) $((main + 20)))
rm -rf "$C"
for n in RA RB; do
	eval "_as=\$$n"
	# shellcheck disable=SC2086,SC2154 # _as: several addresses
	"$T2F_BIN" resolve --no-cache "$P" $_as >"$TMP/$n.ref" 2>"$TMP/err" ||
		bad "resolve --no-cache $n: $(cat "$TMP/err")"
	# shellcheck disable=SC2086
	"$T2F_BIN" resolve "$P" $_as >"$TMP/$n.out" 2>"$TMP/err" || bad "resolve $n: $(cat "$TMP/err")"
	same_nonempty "resolve $n" "with the cache and without" "$TMP/$n.ref" "$TMP/$n.out" \
		"< --no-cache, > the cache"
done
F=$C/$(cut -d' ' -f1 "$TMP/ids").t2fsym
if [ -f "$F" ]; then
	"$TMP/craft" poison "$F" "$TMP/poisoned" && mv "$TMP/poisoned" "$F" && chmod 600 "$F"
	# shellcheck disable=SC2086
	"$T2F_BIN" resolve "$P" $RB >"$TMP/RB.poisoned" 2>"$TMP/err"
	[ "$(grep -c '	XXXX' "$TMP/RB.poisoned")" = 3 ] && ok ||
		bad "resolve did not answer B from the cache: $(cat "$TMP/RB.poisoned" "$TMP/err")"
	# shellcheck disable=SC2086
	"$T2F_BIN" resolve --no-cache "$P" $RB >"$TMP/RB.nc" 2>&1
	cmp -s "$TMP/RB.ref" "$TMP/RB.nc" && ok || bad "resolve --no-cache read the cache"
else
	bad "resolve wrote no cache file $F: $(ls -A "$C" 2>&1)"
fi
finish
