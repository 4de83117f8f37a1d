#!/bin/sh
# Parity: `trace2flame symbols` against the reference procedure of
# docs/design.md §5 (readelf, an independent implementation), over the ELF files
# of this machine.
#
# usage: sh tests/parity.sh TRACE2FLAME
# env:   T2F_ELF_FIXTURES       also every file in this directory (set by ctest)
#        T2F_PARITY_DIRS        replaces the default file set (space-separated directories,
#                               every regular non-archive file in them)
#        T2F_PARITY_MIN_FILES   files that must be compared (default 2000 when CI=true, else 1)
#        T2F_PARITY_MIN_ROWS    reference rows that must be compared (default 500000 when
#                               CI=true, else 1)
#        CI=true                also requires the debug packages (libc6-dbg, libstdc++6-12-dbg)
#
# Files: every ELF file (readelf -h finds an ELF header) under /usr/lib/debug, the *.so* files
# under /usr/lib (x86_64-linux-gnu and the rest: jvm, postgresql, python ...) and /usr/lib32,
# /usr/libx32, and everything under /usr/bin, /usr/sbin, /usr/libexec; archives (*.a) are left
# out (readelf lists their members).
#
# Reference, per file (`readelf -h -S -Ws --wide --sym-base=16 FILE`, run once per file, parsed
# by the awk program below): in every "Symbol table 'T' contains N entries" block, rows of type
# FUNC or IFUNC (readelf prints "<OS specific>: 10" for STT_GNU_IFUNC when EI_OSABI is not GNU
# or FreeBSD), Ndx not UND/ABS/COM, value != 0, size != 0; T is the TABLE column; VALUE without
# leading zeros, SIZE from hex to decimal; .dynsym names without the "@VER"/"@@VER" and " (n)"
# readelf appends from .gnu.version, .symtab names raw (GNU ld writes '@' into them).
# What readelf cannot list by itself is made from a copy: MiniDebugInfo (.gnu_debugdata dumped
# with objcopy, unpacked with xz, then readelf; TABLE ".gnu_debugdata:.symtab"), SHF_COMPRESSED
# symbol tables (readelf 2.40 prints them undecoded: decompressed with eu-elfcompress, zlib
# only; a zstd one has no reference and its file is left out, counted). .SUNW_ldynsym rows
# have no reference (readelf does not dump that type): counted, not compared.
#
# Per file, the sorted rows of both sides must be equal, and `trace2flame symbols` must not
# report an error; except for the crafted broken files of the ELF fixtures (T2F_ELF_FIXTURES/
# broken/), which trace2flame may refuse, or warn about: those are left out of the comparison.
# The fixtures' decompression bombs (bomb/) are not candidates.
# Prints the files, rows and mismatches, the first differing rows, and "parity: N passed,
# N failed" (files). Runs in about 30-60 s on 2 CPUs (2,600 files, 680,000 rows).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
make_tmp
ci=${CI:-}
if [ "$ci" = true ]; then
	min_files=${T2F_PARITY_MIN_FILES:-2000}
	min_rows=${T2F_PARITY_MIN_ROWS:-500000}
else
	min_files=${T2F_PARITY_MIN_FILES:-1}
	min_rows=${T2F_PARITY_MIN_ROWS:-1}
fi

for tool in readelf objcopy xz xargs; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "parity: $tool not found (binutils, xz-utils)"
		exit 1
	fi
done
if [ "$ci" = true ] && { [ ! -d /usr/lib/debug/.build-id ] ||
	[ ! -d /usr/lib/x86_64-linux-gnu/debug ]; }; then
	echo "parity: /usr/lib/debug/.build-id or /usr/lib/x86_64-linux-gnu/debug missing, and" \
		"CI=true requires them (apt-get install libc6-dbg libstdc++6-12-dbg)"
	exit 1
fi

# --- the candidate files --------------------------------------------------------------------
candidates() {
	if [ -n "${T2F_PARITY_DIRS:-}" ]; then
		# shellcheck disable=SC2086 # a space-separated list of directories
		find $T2F_PARITY_DIRS -type f ! -name '*.a' 2>/dev/null
	else
		find /usr/lib/debug -type f ! -name '*.a' 2>/dev/null
		find /usr/lib /usr/lib32 /usr/libx32 -path /usr/lib/debug -prune -o \
			-type f -name '*.so*' -print 2>/dev/null
		find /usr/bin /usr/sbin /usr/libexec -type f ! -name '*.a' 2>/dev/null
	fi
	if [ -d "${T2F_ELF_FIXTURES:-}" ]; then
		find "$T2F_ELF_FIXTURES" -path "${T2F_ELF_FIXTURES%/}/bomb" -prune -o \
			-type f ! -name '*.a' -print
	fi
}
# Names with a newline cannot be told apart in this line-based test: left out.
candidates | LC_ALL=C sort -u >"$TMP/candidates"

# --- the reference: readelf -h -S -Ws output → FILE TAB TABLE TAB VALUE TAB SIZE TAB NAME -----
# Input: per file a "File: NAME" line (printed by the worker: readelf runs once per file, as
# readelf 2.40 given several files prints no symbols for the files after a corrupt header) and
# readelf's output. -v elf=PATH: the files with an ELF header are written there; -v special=PATH:
# "mini<TAB>FILE" for a file with a .gnu_debugdata section, "zsym<TAB>FILE" for a file with an
# SHF_COMPRESSED symbol table (readelf 2.40 prints such a table undecoded: its rows are left out
# here and made again from a decompressed copy); -v prefix, -v only: reading a MiniDebugInfo
# image or a decompressed copy (TABLE prefixed, FILE forced to `only`).
cat >"$TMP/ref.awk" <<'EOF'
function hexval(c) { return index("0123456789abcdef", c) - 1 }
# hex digits (lowercase, no leading zeros) to decimal; exact beyond 2^53 too
function hex2dec(h,    n, i, d, nd, j, t, carry, s) {
	if (length(h) <= 13) {
		n = 0
		for (i = 1; i <= length(h); i++)
			n = n * 16 + hexval(substr(h, i, 1))
		return sprintf("%.0f", n)
	}
	nd = 1; d[1] = 0
	for (i = 1; i <= length(h); i++) {
		carry = hexval(substr(h, i, 1))
		for (j = 1; j <= nd; j++) {
			t = d[j] * 16 + carry; d[j] = t % 10; carry = int(t / 10)
		}
		while (carry > 0) { d[++nd] = carry % 10; carry = int(carry / 10) }
	}
	s = ""
	for (j = nd; j >= 1; j--) s = s d[j]
	return s
}
/^File: / { file = substr($0, 7); table = ""; next }
/^ELF Header:/ { if (elf != "") print file > elf; next }
# "  [30] .symtab  SYMTAB  0000000000000000 005438 00017b 18   C 31  26  8" (Flg may be empty)
table == "" && /^ *\[ *[0-9]+\] / {
	l = $0; sub(/^ *\[ *[0-9]+\] /, "", l); n = split(l, a, " ")
	if (a[1] == ".gnu_debugdata" && special != "") print "mini\t" file > special
	if ((a[2] == "SYMTAB" || a[2] == "DYNSYM") && n == 10 && a[7] ~ /C/) {
		if (special != "") print "zsym\t" file > special
		zsym[file] = 1
	}
	next
}
/^Symbol table '.*' contains [0-9]+ entr(y|ies):$/ {
	table = $0
	sub(/^Symbol table '/, "", table)
	sub(/' contains [0-9]+ entr(y|ies):$/, "", table)
	dyn = table == ".dynsym"
	next
}
table == "" || !/^ *[0-9]+: / || (file in zsym) { next }
{
	# Num: Value Size Type Bind Vis [vis extras] Ndx Name
	if ($4 == "FUNC" || $4 == "IFUNC") i = 5
	else if ($4 == "<OS" && $5 == "specific>:" && $6 == "10") i = 7
	else next
	j = i + 2
	if (substr($j, 1, 1) == "[") {          # "DEFAULT [<localentry>: 8]" (ppc64le)
		while (j < NF && $j !~ /\]$/) j++
		j++
	}
	if ($j == "UND" || $j == "ABS" || $j == "COM") next
	value = $2; sub(/^0+/, "", value)
	size = $3; sub(/^0x/, "", size); sub(/^0+/, "", size)
	if (value == "" || size == "") next
	name = $0
	for (k = 1; k <= j; k++) sub(/^ *[^ ]+/, "", name)
	name = substr(name, 2)
	if (dyn) { sub(/ \([0-9]+\)$/, "", name); sub(/@@?[^@]*$/, "", name) }
	print (only != "" ? only : file) "\t" prefix table "\t" value "\t" hex2dec(size) "\t" name
}
EOF

# --- both sides, in batches, two at a time ------------------------------------------------------
cat >"$TMP/worker.sh" <<'EOF'
# worker.sh DIR TRACE2FLAME FILE...: one batch of candidates; outputs in DIR/batch.XXXXXX.*:
# .elf (the ELF files), .special (see ref.awk), .ref (reference rows), .our (trace2flame rows),
# .err (its stderr)
dir=$1 bin=$2
shift 2
b=$(mktemp "$dir/batch.XXXXXX") || exit 1
: >"$b.elf"
: >"$b.special"
for f; do
	printf '\nFile: %s\n' "$f"
	readelf -h -S -Ws --wide --sym-base=16 "$f" 2>/dev/null
done | LC_ALL=C awk -v elf="$b.elf" -v special="$b.special" -f "$dir/ref.awk" >"$b.ref"
set --
while IFS= read -r f; do set -- "$@" "$f"; done <"$b.elf"
[ $# -gt 0 ] || exit 0
if command -v timeout >/dev/null 2>&1; then
	timeout 600 "$bin" symbols "$@" >"$b.our" 2>"$b.err"
else
	"$bin" symbols "$@" >"$b.our" 2>"$b.err"
fi
rc=$?
# 1 and 3: some file failed, each reported as "trace2flame: FILE: message"
case $rc in 0 | 1 | 3) ;; *) echo "trace2flame symbols exited $rc" >>"$b.err" ;; esac
exit 0
EOF
tr '\n' '\0' <"$TMP/candidates" | xargs -0 -n 100 -P 2 sh "$TMP/worker.sh" "$TMP" "$T2F_BIN"
find "$TMP" -name 'batch.*.elf' -exec cat {} + | LC_ALL=C sort >"$TMP/elf"
n_elf=$(wc -l <"$TMP/elf")

# One sorted file per side; errors: "trace2flame: FILE: message" lines (warnings left out).
find "$TMP" -name 'batch.*.ref' -exec cat {} + | LC_ALL=C sort >"$TMP/ref.sorted"
find "$TMP" -name 'batch.*.our' -exec cat {} + | LC_ALL=C sort >"$TMP/our.all"
find "$TMP" -name 'batch.*.err' -exec cat {} + >"$TMP/stderr"
grep -v '^trace2flame: warning: ' "$TMP/stderr" >"$TMP/errors"

# Files readelf cannot list alone (a few at most), their reference rows made one by one:
# - MiniDebugInfo: .gnu_debugdata dumped with objcopy, unpacked with xz, read by readelf;
# - compressed symbol tables: a copy decompressed by eu-elfcompress (zlib only in elfutils
#   0.188), read by readelf; a file that cannot be decompressed (zstd) has no reference.
find "$TMP" -name 'batch.*.special' -exec cat {} + | LC_ALL=C sort -u >"$TMP/special"
: >"$TMP/noref"
while IFS="$(printf '\t')" read -r kind f; do
	rm -f "$TMP/x.xz" "$TMP/x.elf" "$TMP/x.copy"
	if [ "$kind" = mini ]; then
		objcopy --dump-section .gnu_debugdata="$TMP/x.xz" "$f" "$TMP/x.copy" 2>/dev/null &&
			xz -dc "$TMP/x.xz" >"$TMP/x.elf" 2>/dev/null &&
			readelf -Ws --wide --sym-base=16 "$TMP/x.elf" 2>/dev/null |
			LC_ALL=C awk -v prefix=.gnu_debugdata: -v only="$f" -f "$TMP/ref.awk"
	elif command -v eu-elfcompress >/dev/null 2>&1 &&
		eu-elfcompress -q -t none -n '*' -o "$TMP/x.elf" "$f" 2>/dev/null; then
		readelf -Ws --wide --sym-base=16 "$TMP/x.elf" 2>/dev/null |
			LC_ALL=C awk -v only="$f" -f "$TMP/ref.awk"
	else
		echo "$f" >>"$TMP/noref"
	fi
done <"$TMP/special" >"$TMP/ref.more"
if [ -s "$TMP/ref.more" ]; then
	cat "$TMP/ref.sorted" "$TMP/ref.more" | LC_ALL=C sort >"$TMP/ref.merged"
	mv "$TMP/ref.merged" "$TMP/ref.sorted"
fi

# Errors: "trace2flame: FILE: message" → FILE (the longest file of the set it starts with);
# any other line is unexpected. The crafted broken files of the fixtures (directory "broken/")
# may be refused, or have a table refused with a warning ("trace2flame: warning: FILE: ..."):
# their rows are then left out of the comparison on both sides.
broken=
[ -d "${T2F_ELF_FIXTURES:-}" ] && broken=${T2F_ELF_FIXTURES%/}/broken/
LC_ALL=C awk -v errors="$TMP/stderr" -v broken="$broken" -v refused="$TMP/refused" '
	{ files[$0] = 1 }
	END {
		while ((getline line < errors) > 0) {
			if (line !~ /^trace2flame: /) { print "?"; continue }
			warn = line ~ /^trace2flame: warning: /
			line = substr(line, warn ? 23 : 14); best = ""
			for (f in files)
				if (index(line, f ": ") == 1 && length(f) > length(best)) best = f
			if (best == "" && !warn) { print "?"; continue }
			if (best != "" && broken != "" && index(best, broken) == 1) print best > refused
			else if (!warn) print best
		}
	}' "$TMP/elf" | LC_ALL=C sort -u >"$TMP/errfiles"
: >>"$TMP/refused"
LC_ALL=C sort -u -o "$TMP/refused" "$TMP/refused"

# Rows of refused broken files and .SUNW_ldynsym rows (no reference) are left out.
drop_rows() {
	LC_ALL=C awk -F '\t' -v refused="$TMP/refused" -v noref="$TMP/noref" -v sunw="$2" '
		BEGIN {
			while ((getline f < refused) > 0) skip[f] = 1
			while ((getline f < noref) > 0) nr[f] = 1
		}
		$1 in skip || $1 in nr { next }
		sunw != "" && $2 == ".SUNW_ldynsym" { print > sunw; next }
		{ print }' "$1"
}
drop_rows "$TMP/ref.sorted" "" >"$TMP/ref.cmp"
drop_rows "$TMP/our.all" "$TMP/our.sunw" >"$TMP/our.cmp"
n_sunw=0
[ -f "$TMP/our.sunw" ] && n_sunw=$(wc -l <"$TMP/our.sunw")

# --- compare -------------------------------------------------------------------------------------
LC_ALL=C comm -3 "$TMP/ref.cmp" "$TMP/our.cmp" |
	LC_ALL=C awk '/^\t/ { print "+ " substr($0, 2); next } { print "- " $0 }' >"$TMP/diff"
n_ref=$(wc -l <"$TMP/ref.cmp")
n_our=$(wc -l <"$TMP/our.cmp")
n_diff=$(wc -l <"$TMP/diff")

# Failed files: a differing row, or an error (other than a refused broken fixture).
LC_ALL=C awk -v errfiles="$TMP/errfiles" -v diff="$TMP/diff" '
	BEGIN {
		while ((getline line < diff) > 0) {
			sub(/^[-+] /, "", line); sub(/\t.*/, "", line); failed[line] = 1
		}
		while ((getline line < errfiles) > 0) {
			if (line == "?") stray = 1
			else failed[line] = 1
		}
	}
	{ if ($0 in failed) nf++; else np++ }
	END { printf "%d %d %d\n", np, nf, stray }' "$TMP/elf" >"$TMP/counts"
# shellcheck disable=SC2034 # pass: counted for finish (lib.sh)
read -r pass fail stray <"$TMP/counts"

echo "parity: $(wc -l <"$TMP/candidates") candidate files, $n_elf ELF files compared"
echo "parity: $n_ref reference rows, $n_our trace2flame rows, $n_diff mismatched rows" \
	"($n_sunw .SUNW_ldynsym rows without a reference," \
	"$(wc -l <"$TMP/refused") broken fixtures refused," \
	"$(wc -l <"$TMP/noref") files without a reference)"
if [ "$n_diff" -gt 0 ]; then
	echo "parity: first mismatches (- readelf only, + trace2flame only):"
	head -n 20 "$TMP/diff" | sed 's/^/    /'
fi
if [ -s "$TMP/errfiles" ]; then
	echo "parity: trace2flame errors (crafted broken fixtures left out):"
	grep -v -F -f "$TMP/refused" "$TMP/errors" | head -n 10 | sed 's/^/    /'
fi
if [ "$stray" -ne 0 ]; then
	fail=$((fail + 1))
	echo "FAIL trace2flame printed something unexpected on stderr"
fi
if [ "$n_elf" -lt "$min_files" ]; then
	fail=$((fail + 1))
	echo "FAIL $n_elf ELF files compared, at least $min_files wanted"
fi
if [ "$n_ref" -lt "$min_rows" ]; then
	fail=$((fail + 1))
	echo "FAIL $n_ref reference rows compared, at least $min_rows wanted"
fi
finish
