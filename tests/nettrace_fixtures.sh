#!/bin/sh
# tests/nettrace_fixtures.sh: builds the ELF files of fixtures/nettrace from its C sources, writes
# every fixtures/nettrace/*.desc with tools/make-nettrace and checks the bytes with the
# independent decoder fixtures/nettrace/check.py (framing, row headers, references, events
# against the writer's manifest, symbolic frames symbolized back with readelf's tables).
# Also: the output is deterministic (two runs, same bytes), truncated outputs are prefixes of
# the whole file and end inside a block, and a repeated sample section (--repeat, the fast path
# of large traces) decodes to the described events.
#
# usage: tests/nettrace_fixtures.sh [OUTDIR]
#   OUTDIR  keep the ELF files and the .nettrace files there (default: a temp dir, removed)
# env: T2F_SOURCE_DIR (default: this script's directory/..)
# Needs python3 (/usr/bin/python3), gcc and readelf; clang + lld and gcc -m32 are optional (their
# fixtures are skipped without them). Exit status 0 when every check passed.
set -u

SRC=$(cd "${T2F_SOURCE_DIR:-$(dirname "$0")/..}" && pwd) || exit 1
FX=$SRC/fixtures/nettrace
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
MK="$PY $SRC/tools/make-nettrace"
CHECK="$PY $FX/check.py"

if [ $# -gt 1 ]; then
	echo "usage: $0 [OUTDIR]" >&2
	exit 2
fi
if [ $# -eq 1 ]; then
	mkdir -p "$1" && OUT=$(cd "$1" && pwd) || exit 1
else
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/t2f-nettrace-fx.XXXXXX") || exit 1
	trap 'rm -rf "$OUT"' EXIT
	trap 'exit 130' INT TERM
fi
ELF=$OUT/elf
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# --- the ELF files (paths mapped, so rebuilding gives the same build-ids) --------------------
# Compiled in src/ (the DWARF's comp_dir is the working directory, mapped to /src like the
# sources), so the build-ids depend neither on where the checkout is nor on where this runs:
# fixtures/nettrace/universal.nettrace records them.
mkdir -p "$ELF/gnu" "$ELF/lld" "$ELF/m32"
CF="-O1 -g -fno-omit-frame-pointer -ffile-prefix-map=$FX/src=/src"
cd "$FX/src" || exit 1
log=$OUT/build.log
: >"$log"
# shellcheck disable=SC2086 # CF: several words
{
	gcc $CF -fPIC -shared -Wl,--build-id=sha1 -o "$ELF/gnu/libnt.so" "$FX/src/lib.c" &&
		gcc $CF -Wl,--build-id=sha1 -o "$ELF/gnu/prog" "$FX/src/prog.c" \
			-L"$ELF/gnu" -lnt &&
		gcc $CF -no-pie -Wl,--build-id=sha1 -o "$ELF/gnu/prog-nopie" "$FX/src/prog.c" \
			"$FX/src/lib.c"
} >>"$log" 2>&1 || { echo "gcc could not build the fixture programs:"; cat "$log"; exit 1; }
# shellcheck disable=SC2086
clang $CF -fuse-ld=lld -Wl,--build-id -o "$ELF/lld/prog" "$FX/src/prog.c" "$FX/src/lib.c" \
	>>"$log" 2>&1 || rm -f "$ELF/lld/prog"
# shellcheck disable=SC2086
gcc $CF -m32 -fPIC -shared -nostdlib -Wl,--build-id=sha1 -o "$ELF/m32/libnt.so" \
	"$FX/src/lib.c" >>"$log" 2>&1 || rm -f "$ELF/m32/libnt.so"

# --- every description ------------------------------------------------------------------------
for desc in "$FX"/*.desc; do
	name=$(basename "$desc" .desc)
	missing=
	for p in $(grep -o '\${ELF}/[^ ]*' "$desc" | sort -u); do
		f=$ELF/${p#\$\{ELF\}/}
		[ -f "$f" ] || missing="$missing ${p#\$\{ELF\}/}"
	done
	if [ -n "$missing" ]; then
		echo "skip: $name (not built:$missing)"
		skip=$((skip + 1))
		continue
	fi
	args=$(sed -n 's/^# make-nettrace-args: //p' "$desc")
	# shellcheck disable=SC2086 # args: several words
	if ! $MK -D ELF="$ELF" $args --manifest "$OUT/$name.manifest" -o "$OUT/$name.nettrace" \
		"$desc"; then
		bad "$name: make-nettrace failed"
		continue
	fi
	if r=$($CHECK "$OUT/$name.nettrace" "$OUT/$name.manifest"); then
		ok
		echo "$r"
	else
		bad "$name:"
		echo "$r"
	fi
	# shellcheck disable=SC2086
	if $MK -D ELF="$ELF" $args "$desc" | cmp -s - "$OUT/$name.nettrace"; then
		ok
	else
		bad "$name: a second run wrote other bytes"
	fi
done

# --- truncated files --------------------------------------------------------------------------
for name in v6-gnu-pie v6-jit v4-ptr8 v5-uncompressed; do
	full=$OUT/$name.nettrace
	[ -f "$full" ] || continue
	size=$(wc -c <"$full")
	for cut in 40 $((size / 3)) $((size / 2)) -1; do
		t=$OUT/$name.cut$cut.nettrace
		if ! $MK -D ELF="$ELF" --truncate "$cut" -o "$t" "$FX/$name.desc"; then
			bad "$name: --truncate $cut failed"
			continue
		fi
		want=$cut
		[ "$cut" -lt 0 ] && want=$((size + cut))
		if [ "$(wc -c <"$t")" -ne "$want" ] || ! cmp -s -n "$want" "$t" "$full"; then
			bad "$name: --truncate $cut is not the first $want bytes of the whole file"
		elif r=$($CHECK --truncated "$t"); then
			ok
			echo "$r"
		else
			bad "$name: truncated at $cut:"
			echo "$r"
		fi
	done
done

# --- a repeated sample section (the fast path of large traces) --------------------------------
for rep in 4 257; do
	n=$OUT/v6-bench.r$rep
	if $MK -D ELF="$ELF" --repeat $rep --flush-bytes 700 --manifest "$n.manifest" \
		-o "$n.nettrace" "$FX/v6-bench.desc" && r=$($CHECK "$n.nettrace" "$n.manifest"); then
		ok
		echo "$r"
	else
		bad "v6-bench --repeat $rep:"
		echo "${r:-}"
	fi
done
n=$OUT/v4-ptr8.r40
if sed '/^flush$/d' "$FX/v4-ptr8.desc" >"$n.desc" &&
	$MK --repeat 40 --flush-bytes 300 --manifest "$n.manifest" -o "$n.nettrace" "$n.desc" &&
	r=$($CHECK "$n.nettrace" "$n.manifest"); then
	ok
	echo "$r"
else
	bad "v4-ptr8 --repeat 40:"
	echo "${r:-}"
fi

echo "nettrace_fixtures: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
