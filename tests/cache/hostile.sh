#!/bin/sh
# tests/cache/hostile.sh: symbol cache files that must not be trusted are ignored, not
# followed, and written again; the output is the bytes of a run without the cache.
# fixtures/dwarf/tmpl.cc (C++, -O2 -g: inlined functions) is recorded with `perf record -g -e
# cpu-clock:u --buildid-all`, converted with --no-cache (the reference) and once with the cache
# to make its file. tests/cache/craft.c then poisons that file (every symbol and inline frame
# name overwritten) and breaks it in one way per case: the poisoned file itself must be used
# (the output differs: the proof that a trusted file shows), and every broken one, put in its
# place, must give the reference with one warning and "1 ignored" in --stats, and be a good
# file again after the run:
#   another build-id in the header, another format version (the next, and the one before,
#   which kept inline chains per address), another magic, truncated, grown, a name offset, the
#   answers' section, an inline chain's frames out of bounds, symbol answers' ranges that
#   overlap, inline chains' ranges that overlap, are out of order or end before they start,
#   a symlink in
#   place of the file pointing outside the directory (the target left as it was), a FIFO, a
#   group-writable file, a file of another user (as root only; else said and skipped);
# and a directory that is a symlink, or group-writable, is not used at all (one warning).
# Under --strict a file ignored, or the directory refused, is the error (exit status 1).
# Skipped when perf cannot record here.
# usage: sh tests/cache/hostile.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
cache_setup
CRAFT=$TMP/craft

cc -O -I"$SRC" -o "$CRAFT" "$SRC/tests/cache/craft.c" || { bad "cc craft.c failed"; finish; }
c++ $FP -o "$TMP/tmpl" "$SRC/fixtures/dwarf/tmpl.cc" || { bad "c++ tmpl.cc failed"; finish; }
record_user tmpl "$TMP/tmpl" || finish
ARGS="--all"
# shellcheck disable=SC2086 # ARGS: options
t2f $ARGS --no-cache "$TMP/tmpl.data" -o "$TMP/ref.folded" 2>/dev/null
# shellcheck disable=SC2086
t2f $ARGS "$TMP/tmpl.data" -o "$TMP/x.folded" 2>/dev/null
ID=$(readelf -n "$TMP/tmpl" | sed -n 's/.*Build ID: //p')
F=$C/$ID.t2fsym
[ -s "$TMP/ref.folded" ] && [ -f "$F" ] || { bad "no reference output or no cache file $F"; finish; }
cp "$F" "$TMP/good"

# run NAME: converts with the cache; the output must be the reference's
run() {
	# shellcheck disable=SC2086
	t2f $ARGS --stats "$TMP/tmpl.data" -o "$TMP/out.folded" 2>"$TMP/err" ||
		bad "$1: the run failed: $(grep -v '^ ' "$TMP/err" | head -3)"
	if cmp -s "$TMP/ref.folded" "$TMP/out.folded"; then ok; else
		bad "$1: the output is not the one without the cache:"
		diff "$TMP/ref.folded" "$TMP/out.folded" | head -5
	fi
}

# ignored NAME: the run said it ignored one file, once, and wrote a good one in its place
ignored() {
	run "$1"
	n=$(grep -c 'a symbol cache file ignored' "$TMP/err")
	[ "$n" = 1 ] && ok || bad "$1: $n warnings about an ignored file"
	grep -q '^symbol cache .* 1 ignored (untrusted or broken), [1-9][0-9]* written' \
		"$TMP/err" && ok || bad "$1: --stats: $(grep '^symbol cache' "$TMP/err")"
	if [ -f "$F" ] && [ ! -L "$F" ] && "$T2F_BIN" cache verify >"$TMP/verify"; then ok; else
		bad "$1: not written again: $(ls -l "$F") $(cat "$TMP/verify")"
	fi
}

# place MODE: the crafted file of MODE as the module's cache file
place() {
	rm -f "$F"
	"$CRAFT" "$1" "$TMP/good" "$F" || bad "craft $1 failed"
	chmod 600 "$F"
}

# the proof: a poisoned file with nothing else wrong is used, and the output shows it
place poison
# shellcheck disable=SC2086
t2f $ARGS --stats "$TMP/tmpl.data" -o "$TMP/out.folded" 2>"$TMP/err"
if cmp -s "$TMP/ref.folded" "$TMP/out.folded"; then
	bad "poison: a trusted poisoned file changed nothing: the cases below would prove nothing"
else
	ok
fi
grep -q 'XXXX' "$TMP/out.folded" && ok || bad "poison: no poisoned name in the output"

for mode in wrong-id version old-version magic truncated grown name-oob section-oob frames-oob \
	ranges inl-overlap inl-unsorted inl-inverted; do
	place "$mode"
	ignored "$mode"
done

# under --strict an ignored file is the error (exit status 1, no output), as other warnings
place truncated
rm -f "$TMP/strict.folded"
# shellcheck disable=SC2086
t2f $ARGS --strict "$TMP/tmpl.data" -o "$TMP/strict.folded" 2>"$TMP/err"
st=$?
[ "$st" = 1 ] && [ ! -e "$TMP/strict.folded" ] &&
	grep -q 'a symbol cache file ignored (.*truncated' "$TMP/err" && ok ||
	bad "--strict with a truncated file: exit $st, $(ls "$TMP/strict.folded" 2>&1), $(head -3 "$TMP/err")"

# a symlink in its place, to a poisoned good file outside: not followed, replaced, the target
# untouched
mkdir -p "$TMP/outside"
"$CRAFT" poison "$TMP/good" "$TMP/outside/target" && chmod 600 "$TMP/outside/target"
cp "$TMP/outside/target" "$TMP/target.copy"
rm -f "$F"
ln -s "$TMP/outside/target" "$F"
ignored "symlink"
cmp -s "$TMP/outside/target" "$TMP/target.copy" && ok || bad "symlink: its target changed"

# a FIFO: never waited on
rm -f "$F"
mkfifo "$F"
ignored "fifo"

# a group-writable file
place poison
chmod 620 "$F"
ignored "group-writable file"

# another user's file
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	place poison
	chown nobody "$F"
	ignored "another user's file"
else
	echo "$TEST_NAME: not root: the case of another user's file is skipped"
fi

# the directory a symlink (to a directory holding a poisoned good file): not used
mkdir -m 700 "$TMP/real"
"$CRAFT" poison "$TMP/good" "$TMP/real/$ID.t2fsym" && chmod 600 "$TMP/real/$ID.t2fsym"
ln -s "$TMP/real" "$TMP/link"
T2F_CACHE_DIR=$TMP/link run "directory symlink"
grep -q 'symbol cache not used: it is not a directory (or is a symlink)' "$TMP/err" && ok ||
	bad "directory symlink: no warning: $(head -3 "$TMP/err")"
[ "$(ls "$TMP/real")" = "$ID.t2fsym" ] && ok || bad "directory symlink: written: $(ls "$TMP/real")"

# the directory group-writable
place poison
chmod 770 "$C"
run "group-writable directory"
grep -q 'symbol cache not used: it is writable by the group or others' "$TMP/err" && ok ||
	bad "group-writable directory: no warning: $(head -3 "$TMP/err")"
# shellcheck disable=SC2086
t2f $ARGS --strict "$TMP/tmpl.data" -o "$TMP/strict.folded" 2>"$TMP/err"
st=$?
[ "$st" = 1 ] && grep -q 'symbol cache not used: it is writable by the group' "$TMP/err" && ok ||
	bad "--strict with a group-writable directory: exit $st, $(head -3 "$TMP/err")"
finish
