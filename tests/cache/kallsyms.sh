#!/bin/sh
# tests/cache/kallsyms.sh: kallsyms tables kept across runs in the symbol cache
# (symbolizer/text_syms_cache.h). The output is the same bytes cold, warm and with --no-cache;
# a file that changes, a new boot, or an address the kept /proc/kallsyms table does not hold
# reads the file again; hostile cache files are ignored, not followed, and written again.
#   1. a --kallsyms copy (fixtures/perf-script/kjit): --no-cache writes nothing; the first run
#      reads the file and keeps it (0600), the next takes it (--stats), `cache list` names it;
#   2. the proof: a kept file with every name poisoned (tests/cache/kcraft.c) is used and shows;
#   3. broken or untrusted files (another version, magic, truncated, grown, a name offset or
#      the ranges' section out of bounds, ranges out of order or empty, a symlink pointing
#      outside, a FIFO, a group-writable file, another user's as root) give the reference with
#      one warning and are good files again after the run; under --strict the error;
#   4. the copy rewritten with a symbol renamed, its size and mtime kept: read again, the new
#      name shown;
#   5. /proc/kallsyms (when its addresses are visible): kept per boot (T2F_TEST_BOOT_ID stands
#      for the boot id): a new boot reads it again; an address of the kernel's last function
#      (not kept: a later allocation may follow it) reads it whole, with the same names.
#   6. perf's copy of /proc/kallsyms (symbolizer/kallsyms_copy.h), when the kernel has a
#      build-id and loads no module: HOME holding an exact copy gives the reference (--stats:
#      the copy read); one with every name after its first text line poisoned shows them (the
#      proof it stood in); one placed elsewhere (its first line changed) or with a bad line
#      does not stand in; the last function reads /proc/kallsyms whole, with its true name;
#      in one process (--each) the second input takes the copy's table, then the file whole.
# usage: sh tests/cache/kallsyms.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
make_tmp
export DEBUGINFOD_URLS=
export HOME="$TMP/home" # no perf build-id cache but part 6's
mkdir -p "$HOME"
C=$TMP/cache
export T2F_CACHE_DIR="$C"
KCRAFT=$TMP/kcraft
cc -O -o "$KCRAFT" "$SRC/tests/cache/kcraft.c" || { bad "cc kcraft.c failed"; finish; }
K=$FX/kjit
IN=$K/jitloop.unnamed.perf.txt
cp "$K/kallsyms" "$TMP/kallsyms"
OPTS="--all --kallsyms $TMP/kallsyms --perf-map-dir $K"

# same NAME A B: the same bytes
same() {
	if cmp -s "$2" "$3"; then ok; else
		bad "$1: $3 differs from $2:"
		diff "$2" "$3" | head -5
	fi
}

# stats NAME PATTERN: --stats said PATTERN (grep -E) on its kallsyms line
stats() {
	grep -Eq "^  kallsyms: $2" "$TMP/err" && ok ||
		bad "$1: --stats: $(grep '^  kallsyms' "$TMP/err"), want $2"
}

# 1. cold, warm, --no-cache
# shellcheck disable=SC2086 # OPTS: options
t2f $OPTS --no-cache "$IN" -o "$TMP/ref.folded" 2>/dev/null
[ -s "$TMP/ref.folded" ] && ok || { bad "no reference output"; finish; }
[ -z "$(ls "$C" 2>/dev/null)" ] && ok || bad "--no-cache wrote: $(ls "$C")"
# shellcheck disable=SC2086
t2f $OPTS --stats "$IN" -o "$TMP/cold.folded" 2>"$TMP/err"
same cold "$TMP/ref.folded" "$TMP/cold.folded"
stats cold '1 read, 0 shared \(read before in this process\)$'
F=$(ls "$C"/kallsyms-*.t2fsym 2>/dev/null)
[ -f "$F" ] && [ "$(stat -c %a "$F")" = 600 ] && ok || bad "no kept file 0600: $(ls -l "$C")"
# shellcheck disable=SC2086
t2f $OPTS --stats "$IN" -o "$TMP/warm.folded" 2>"$TMP/err"
same warm "$TMP/ref.folded" "$TMP/warm.folded"
stats warm '0 read, 0 shared \(read before in this process\), 1 from the symbol cache'
# shellcheck disable=SC2086
t2f $OPTS --stats --no-cache "$IN" -o "$TMP/nc.folded" 2>"$TMP/err"
same no-cache "$TMP/ref.folded" "$TMP/nc.folded"
stats no-cache '1 read, 0 shared \(read before in this process\)$'
"$T2F_BIN" cache list >"$TMP/list" 2>&1
grep -Eq "^kallsyms-[0-9a-f]{16} .* $TMP/kallsyms\$" "$TMP/list" && ok ||
	bad "cache list: $(cat "$TMP/list")"
"$T2F_BIN" cache verify >/dev/null 2>&1 && ok || bad "cache verify failed on a good file"
cp "$F" "$TMP/good"

# run NAME: converts with the cache; the output must be the reference's
run() {
	# shellcheck disable=SC2086
	t2f $OPTS --stats "$IN" -o "$TMP/out.folded" 2>"$TMP/err" ||
		bad "$1: the run failed: $(grep -v '^ ' "$TMP/err" | head -3)"
	same "$1" "$TMP/ref.folded" "$TMP/out.folded"
}

# ignored NAME: the run said it ignored the file, once, read the copy, and wrote a good file
# that the next run takes
ignored() {
	run "$1"
	n=$(grep -c 'a symbol cache file (kallsyms) ignored' "$TMP/err")
	[ "$n" = 1 ] && ok || bad "$1: $n warnings about an ignored file"
	stats "$1" '1 read, 0 shared \(read before in this process\)$'
	if [ -f "$F" ] && [ ! -L "$F" ] && "$T2F_BIN" cache verify >/dev/null 2>&1; then ok; else
		bad "$1: not written again: $(ls -l "$F")"
	fi
	run "$1, then"
	stats "$1, then" '0 read, .* 1 from the symbol cache'
}

# place MODE: the crafted file of MODE as the kept file
place() {
	rm -f "$F"
	"$KCRAFT" "$1" "$TMP/good" "$F" || bad "kcraft $1 failed"
	chmod 600 "$F"
}

# 2. the proof: a poisoned file with nothing else wrong is used, and the output shows it
place poison
# shellcheck disable=SC2086
t2f $OPTS "$IN" -o "$TMP/out.folded" 2>/dev/null
grep -q 'XXXX' "$TMP/out.folded" && ok ||
	bad "poison: a trusted poisoned file changed nothing: the cases below would prove nothing"

# 3. broken and untrusted files
for mode in version magic truncated grown name-oob section-oob unsorted inverted; do
	place "$mode"
	ignored "$mode"
done
place truncated
rm -f "$TMP/strict.folded"
# shellcheck disable=SC2086
t2f $OPTS --strict "$IN" -o "$TMP/strict.folded" 2>"$TMP/err"
st=$?
[ "$st" = 1 ] && [ ! -e "$TMP/strict.folded" ] &&
	grep -q 'a symbol cache file (kallsyms) ignored (.*truncated' "$TMP/err" && ok ||
	bad "--strict with a truncated file: exit $st, $(head -3 "$TMP/err")"
mkdir -p "$TMP/outside"
"$KCRAFT" poison "$TMP/good" "$TMP/outside/target" && chmod 600 "$TMP/outside/target"
cp "$TMP/outside/target" "$TMP/target.copy"
rm -f "$F"
ln -s "$TMP/outside/target" "$F"
ignored symlink
cmp -s "$TMP/outside/target" "$TMP/target.copy" && ok || bad "symlink: its target changed"
rm -f "$F"
mkfifo "$F"
ignored fifo
place poison
chmod 620 "$F"
ignored "group-writable file"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	place poison
	chown nobody "$F"
	ignored "another user's file"
else
	echo "$TEST_NAME: not root: the case of another user's file is skipped"
fi

# 4. the copy rewritten, one name changed, its size and mtime as before: read again
touch -r "$TMP/kallsyms" "$TMP/stamp"
sed 's/ do_syscall_64$/ do_syscall_6X/' "$K/kallsyms" >"$TMP/kallsyms.new"
cat "$TMP/kallsyms.new" >"$TMP/kallsyms"
touch -r "$TMP/stamp" "$TMP/kallsyms"
# shellcheck disable=SC2086
t2f $OPTS --no-cache "$IN" -o "$TMP/ref2.folded" 2>/dev/null
grep -q 'do_syscall_6X' "$TMP/ref2.folded" && ok || bad "the renamed symbol is not in the reference"
# shellcheck disable=SC2086
t2f $OPTS --stats "$IN" -o "$TMP/out.folded" 2>"$TMP/err"
same "a changed copy" "$TMP/ref2.folded" "$TMP/out.folded"
stats "a changed copy" '1 read, 0 shared \(read before in this process\)$'

# 5. /proc/kallsyms, when this reader sees its addresses
P=/proc/kallsyms
if ! awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' "$P" 2>/dev/null; then
	echo "$TEST_NAME: $P unreadable or its addresses hidden (kptr_restrict): part 5 skipped"
	finish
fi
# the kernel's own text symbols: A, inside one that the next one ends; L, in the last one
LC_ALL=C awk 'NF == 3 && $2 ~ /^[tTwW]$/' "$P" | LC_ALL=C sort -u -k1,1 >"$TMP/core"
A=$(awk 'NR == 1000 { print $1 }' "$TMP/core")
L=$(tail -n 1 "$TMP/core" | cut -d' ' -f1)
sample() { # sample FILE ADDR...: one sample, kernel frames at ADDR... (sh arithmetic would
	# overflow on kernel addresses)
	_sf=$1
	shift
	{
		echo "prog 4242  1.000000:    1000 cpu-clock: "
		for a in "$@"; do printf '\t%s [unknown] ([kernel.kallsyms])\n' "$a"; done
		echo
	} >"$_sf"
}
sample "$TMP/a.txt" "$A"
sample "$TMP/l.txt" "$A" "$L"
PO="--all --kallsyms $P"
for x in a l; do
	# shellcheck disable=SC2086
	t2f $PO --no-cache "$TMP/$x.txt" -o "$TMP/ref-$x.folded" 2>/dev/null
	grep -q '\[unknown\]' "$TMP/ref-$x.folded" && bad "$x: a frame stayed unnamed" || ok
done
# procrun NAME BOOT X: converts X.txt with boot id BOOT; the output must be the reference's
procrun() {
	# shellcheck disable=SC2086
	T2F_TEST_BOOT_ID=$2 t2f $PO --stats "$TMP/$3.txt" -o "$TMP/out.folded" 2>"$TMP/err"
	same "$1" "$TMP/ref-$3.folded" "$TMP/out.folded"
}
procrun "proc cold" boot-a a
stats "proc cold" '1 read, 0 shared \(read before in this process\)$'
procrun "proc warm" boot-a a
stats "proc warm" '0 read, 0 shared \(read before in this process\), 1 from the symbol cache'
procrun "proc, the last function" boot-a l
stats "proc, the last function" '1 read, 0 shared \(read before in this process\), 1 from the'
procrun "proc, a new boot" boot-b a
stats "proc, a new boot" '1 read, 0 shared \(read before in this process\)$'
procrun "proc, the new boot warm" boot-b a
stats "proc, the new boot warm" '0 read, .* 1 from the symbol cache'

# 6. perf's copy, standing in for /proc/kallsyms
# the running kernel's build-id: its GNU note (type 3) in /sys/kernel/notes
ID=$(od -An -tx1 -v /sys/kernel/notes 2>/dev/null | tr -s ' \n' '  ' | awk '
function h(x) { return (index(H, substr(x, 1, 1)) - 1) * 16 + index(H, substr(x, 2, 1)) - 1 }
function le(j) { return h(b[j]) + 256 * h(b[j + 1]) + 65536 * h(b[j + 2]) }
{
	H = "0123456789abcdef"
	n = split($0, b, " ")
	for (i = 1; i + 11 <= n;) {
		nz = le(i); dz = le(i + 4); np = int((nz + 3) / 4) * 4; dp = int((dz + 3) / 4) * 4
		name = ""
		for (k = 0; k < nz && i + 12 + k <= n; k++) name = name b[i + 12 + k]
		if (le(i + 8) == 3 && name == "474e5500" && dz > 0 && dz <= 20) {
			for (k = 0; k < dz; k++) printf "%s", b[i + 12 + np + k]
			exit
		}
		i += 12 + np + dp
	}
}')
if [ -s /proc/modules ] || [ -z "$ID" ]; then
	echo "$TEST_NAME: modules loaded or no kernel build-id: part 6 skipped"
	finish
fi
KD="$HOME/.debug/[kernel.kallsyms]/$ID"
mkdir -p "$KD"
# copyrun NAME X EXPECT [STATS]: with the copy in place, X.txt must give EXPECT
copyrun() {
	# shellcheck disable=SC2086
	t2f $PO --no-cache --stats "$TMP/$2.txt" -o "$TMP/out.folded" 2>"$TMP/err"
	same "$1" "$3" "$TMP/out.folded"
	[ -z "${4:-}" ] || stats "$1" "$4"
}
cat "$P" >"$KD/kallsyms"
copyrun "copy" a "$TMP/ref-a.folded" \
	'1 read, 0 shared \(read before in this process\), 1 of the reads perf.s copy'
copyrun "copy, the last function" l "$TMP/ref-l.folded" \
	'2 read, 0 shared \(read before in this process\), 1 of the reads perf.s copy'
# one process, two inputs: the second takes the copy's table, then reads the file whole
mkdir -p "$TMP/each"
# shellcheck disable=SC2086
t2f $PO --no-cache --stats --each "$TMP/a.txt" "$TMP/l.txt" -o "$TMP/each" 2>"$TMP/err"
same "each, the copy" "$TMP/ref-a.folded" "$TMP/each/a.folded"
same "each, the last function" "$TMP/ref-l.folded" "$TMP/each/l.folded"
[ "$(grep '^  kallsyms:' "$TMP/err" | cut -d, -f1-3 | tr '\n' '|')" = \
	"  kallsyms: 1 read, 0 shared (read before in this process), 1 of the reads perf's copy in ~/.debug/[kernel.kallsyms]/ (it matched /proc/kallsyms)|  kallsyms: 1 read, 1 shared (read before in this process)|" ] && ok ||
	bad "each: $(grep '^  kallsyms:' "$TMP/err")"
awk 'p && NF >= 3 { $3 = "poisoned_" $3 } { print } !p && $2 ~ /^[tTwW]$/ { p = 1 }' "$P" \
	>"$KD/kallsyms"
sed 's/;\([^;]*\) \([0-9]*\)$/;poisoned_\1 \2/' "$TMP/ref-a.folded" >"$TMP/poisoned-a.folded"
copyrun "copy poisoned" a "$TMP/poisoned-a.folded"
cmp -s "$TMP/poisoned-a.folded" "$TMP/ref-a.folded" && bad "poisoned: no name changed" || ok
awk 'NR == 1 { $1 = "0000000000001000" } { print }' "$P" >"$KD/kallsyms"
copyrun "copy placed elsewhere" a "$TMP/ref-a.folded" '1 read, 0 shared \(read before in this process\)$'
{ awk 'p && NF >= 3 { $3 = "poisoned_" $3 } { print } !p && $2 ~ /^[tTwW]$/ { p = 1 }' "$P"
	echo "not a kallsyms line"; } >"$KD/kallsyms"
copyrun "copy with a bad line" a "$TMP/ref-a.folded" '1 read, 0 shared \(read before in this process\)$'
finish
