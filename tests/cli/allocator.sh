#!/bin/sh
# The CLI's allocator settings (tools/malloc_tune.h), as --stats says them:
#   - an input of 4 MiB or more (a folded file made here), and one on standard input: the
#     program started again with its GLIBC_TUNABLES (a sanitizer build says it keeps its own);
#   - a small input, T2F_MALLOC_DEFAULTS, the user's GLIBC_TUNABLES, the program started through
#     the dynamic loader by name: glibc's defaults (or the environment's), nothing started again;
#   - a --call-graph dwarf recording of 4 MiB or more but few samples (recorded here when perf
#     may record): its stack copies do not count, glibc's defaults;
#   - every run writes the same bytes.
# usage: sh tests/cli/allocator.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

TUNED="  allocator: glibc, GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=16777216:glibc.malloc.arena_max=1"
DEFAULTS="  allocator: glibc's defaults"
if ldd "$T2F_BIN" 2>/dev/null | grep -q 'lib[at]san'; then
	TUNED="  allocator: not glibc's tuned (another allocator or a sanitizer build)"
	DEFAULTS=$TUNED
fi

# said WHAT LINE: stderr's allocator line is LINE
said() {
	if [ "$(grep '^  allocator: ' "$TMP/err")" = "$2" ]; then ok; else
		bad "$1: the allocator line is not '$2'"
		grep '^  allocator: ' "$TMP/err" | sed 's/^/    got: /'
	fi
}

awk 'BEGIN { for (i = 0; i < 160000; i++)
	printf "proc%d;main;work_%d;leaf_function_number_%d %d\n", i % 7, i % 113, i, i % 5 + 1 }' \
	>"$TMP/big.folded"
size=$(wc -c <"$TMP/big.folded")
if [ "$size" -ge 4194304 ]; then ok; else bad "the big input is only $size bytes"; fi

expect 0 "big" --stats "$TMP/big.folded" -o "$TMP/tuned.folded" && said "big" "$TUNED"
T2F_MALLOC_DEFAULTS=1 expect 0 "big, T2F_MALLOC_DEFAULTS" --stats "$TMP/big.folded" \
	-o "$TMP/plain.folded" && said "T2F_MALLOC_DEFAULTS" "$DEFAULTS"
same "tuned and not: the same bytes" "$TMP/tuned.folded" "$TMP/plain.folded"
t2f --stats - -o "$TMP/stdin.folded" <"$TMP/big.folded" >"$TMP/out" 2>"$TMP/err"
said "standard input" "$TUNED"
same "standard input: the same bytes" "$TMP/tuned.folded" "$TMP/stdin.folded"
expect 0 "small" --stats multi.perf.txt -o "$TMP/small.folded" && said "small" "$DEFAULTS"

# A dwarf recording of spin: ~700 samples of 8 KiB stack copies, weighing 700 * 256 bytes.
if perf_can_record "skipping the dwarf recording" &&
	${CC:-cc} -O1 -g -o "$TMP/spin" "$SRC/fixtures/perf-data/spin.c"; then
	if perf record -q --call-graph dwarf -F 999 -e cpu-clock -o "$TMP/dwarf.data" -- \
		"$TMP/spin" 700 >/dev/null 2>"$TMP/rec.err"; then
		size=$(wc -c <"$TMP/dwarf.data")
		if [ "$size" -ge 4194304 ]; then ok; else bad "the dwarf recording is only $size bytes"; fi
		expect 0 "dwarf" --stats "$TMP/dwarf.data" -o "$TMP/dwarf.folded" &&
			said "dwarf" "$DEFAULTS"
		if [ "$TUNED" != "$DEFAULTS" ]; then
			GLIBC_TUNABLES=${TUNED#*GLIBC_TUNABLES=} expect 0 "dwarf, tuned" \
				"$TMP/dwarf.data" -o "$TMP/dwarf-tuned.folded"
			same "dwarf, tuned and not: the same bytes" "$TMP/dwarf.folded" \
				"$TMP/dwarf-tuned.folded"
		fi
	else
		bad "perf record --call-graph dwarf failed: $(head -n 2 "$TMP/rec.err")"
	fi
fi
if [ "$TUNED" != "$DEFAULTS" ]; then
	GLIBC_TUNABLES=glibc.malloc.perturb=0 expect 0 "the user's GLIBC_TUNABLES" --stats \
		"$TMP/big.folded" -o "$TMP/env.folded" &&
		said "the user's GLIBC_TUNABLES" "  allocator: the environment's (GLIBC_TUNABLES or LD_PRELOAD)"
	same "the user's GLIBC_TUNABLES: the same bytes" "$TMP/tuned.folded" "$TMP/env.folded"
	interp=$(readelf -l "$T2F_BIN" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	if [ -x "$interp" ]; then
		"$interp" "$T2F_BIN" --stats "$TMP/big.folded" -o "$TMP/ld.folded" >"$TMP/out" 2>"$TMP/err"
		said "through $interp" "$DEFAULTS"
		same "through the loader: the same bytes" "$TMP/tuned.folded" "$TMP/ld.folded"
	else
		bad "no program interpreter found in $T2F_BIN"
	fi
fi
finish
