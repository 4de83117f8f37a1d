#!/bin/sh
# The perf.data reader alone (t2f-perf-data-dump) against perf's own view of the same files,
# recorded at test time with perf record -e cpu-clock (fixtures/perf-data/README.md):
#   g     -g, fixtures/perf-data/spin.c built with frame pointers
#   two   -e cpu-clock -e sched:sched_switch (skipped when the tracepoint cannot be recorded)
#   z     -z -g -m 1: many PERF_RECORD_COMPRESSED records (records spanning two of them), LOST
#   bm    --buildid-mmap: MMAP2 records in their build-id form
# Per file: the per-type record counts of `perf report -D`'s "Aggregated stats", every sample's
# time, pid/tid, ip, period and raw callchain as `perf report -D` prints them, every sample's
# pid/tid/time/period as `perf script -F pid,tid,time,period --ns` prints them, the samples per
# event name (`perf script -F event`), the BUILD_ID feature as `perf buildid-list` prints it,
# and for bm every MMAP2's build-id. Skipped (with a message) when perf is missing or may not
# record.
#
# usage: sh tests/perf_data.sh T2F-PERF-DATA-DUMP
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
DUMP=$T2F_BIN
pass=0 fail=0

need_perf_record
CC=${CC:-cc}
if ! $CC -O1 -g -fno-omit-frame-pointer -o "$TMP/spin" "$SRC/fixtures/perf-data/spin.c"; then
	bad "cannot build fixtures/perf-data/spin.c"
	finish
fi

# rec NAME PERF-RECORD-ARGS...: $TMP/NAME.data of spin running 100 ms
rec() {
	_n=$1
	shift
	perf record -q "$@" -o "$TMP/$_n.data" -- "$TMP/spin" 100 >"$TMP/$_n.rec" 2>&1
}

# dump NAME: $TMP/NAME.dump (fails the check when the reader fails or warns)
dump() {
	if ! "$DUMP" "$TMP/$1.data" >"$TMP/$1.dump" 2>"$TMP/$1.derr"; then
		bad "$1: t2f-perf-data-dump failed: $(head -3 "$TMP/$1.derr")"
		return 1
	fi
	if [ -s "$TMP/$1.derr" ]; then
		bad "$1: t2f-perf-data-dump warned: $(head -3 "$TMP/$1.derr")"
		return 1
	fi
	ok
}

# same NAME WHAT A B: A and B have the same lines (and at least one)
same() { same_nonempty "$@" "< perf, > dump"; }

# (from $TMP/NAME.D, perf report -D's output) the "Aggregated stats" block as "TYPE N" lines, sorted
perf_counts() {
	awk '
		/^Aggregated stats:/ { on = 1; next }
		on && / events:/ { if ($1 != "TOTAL") print $1, $3; next }
		on { exit }' "$TMP/$1.D" | sort
}

# every SAMPLE of perf report -D as "time pid/tid ip period chain", sorted
perf_samples() {
	awk '
		function flush() { if (have) print line (chain == "" ? " -" : chain); have = 0 }
		/PERF_RECORD_SAMPLE\(/ {
			flush()
			# [CPU] TIME OFFSET [SIZE]: PERF_RECORD_SAMPLE(...): PID/TID: 0xIP period: P
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^\[0x/) t = $(i - 2)
				if ($i ~ /^[0-9]+\/[0-9]+:$/) pt = substr($i, 1, length($i) - 1)
				if ($i == "period:") period = $(i + 1)
			}
			ip = $0; sub(/.*: 0x/, "", ip); sub(/ .*/, "", ip)
			line = t " " pt " " ip " " period; chain = ""; have = 1; next
		}
		/^\.\.\.\.\. +[0-9]+: [0-9a-f]+$/ {
			if (have) { v = $3; sub(/^0+/, "", v); if (v == "") v = "0"
				chain = chain (chain == "" ? " " : ",") v }
			next
		}
		/^$/ || /^0x/ { flush() }
		END { flush() }' "$TMP/$1.D" | sort
}

# the same from the dump
dump_samples() {
	awk '$1 == "record" && $3 == "SAMPLE" {
		for (i = 4; i <= NF; i++) {
			if ($i == "ip") ip = substr($(i + 1), 3)
			if ($i == "pid") pid = $(i + 1)
			if ($i == "tid") tid = $(i + 1)
			if ($i == "time") t = $(i + 1)
			if ($i == "period") period = $(i + 1)
		}
		chain = " -"
		for (i = 4; i <= NF; i++) if ($i == "chain" && $(i + 1) != "-") {
			chain = " " $(i + 1); gsub(/0x/, "", chain)
		}
		print t " " pid "/" tid " " ip " " period chain
	}' "$TMP/$1.dump" | sort
}

dump_counts() {
	awk '$1 == "count" { print $2, $3 }' "$TMP/$1.dump" | sort
}

# perf script's pid/tid time period lines, and the dump's in the same form
script_lines() {
	perf script -i "$TMP/$1.data" -F pid,tid,time,period --ns 2>/dev/null |
		awk 'NF == 3 && $1 ~ /\// { print $1, $2, $3 }' | sort
}

dump_script_lines() {
	awk '$1 == "record" && $3 == "SAMPLE" {
		for (i = 4; i <= NF; i++) {
			if ($i == "pid") pid = $(i + 1)
			if ($i == "tid") tid = $(i + 1)
			if ($i == "time") t = $(i + 1)
			if ($i == "period") period = $(i + 1)
		}
		print pid "/" tid, substr(t, 1, length(t) - 9) "." substr(t, length(t) - 8) ":", period
	}' "$TMP/$1.dump" | sort
}

# the samples per event name: perf script -F event, the dump's attr names
event_counts() {
	perf script -i "$TMP/$1.data" -F event 2>/dev/null | sed 's/^ *//; s/: *$//' | sort | uniq -c |
		awk '{ print $2, $1 }'
}

dump_event_counts() {
	awk '$1 == "attr" { name[$2] = $4 }
	     $1 == "record" && $3 == "SAMPLE" { for (i = 4; i <= NF; i++) if ($i == "attr") n[$(i + 1)]++ }
	     END { for (a in n) print name[a], n[a] }' "$TMP/$1.dump" | sort
}

check_file() {
	_n=$1
	dump "$_n" || return
	perf report -D -i "$TMP/$_n.data" >"$TMP/$_n.D" 2>/dev/null
	perf_counts "$_n" >"$TMP/$_n.pc"
	dump_counts "$_n" >"$TMP/$_n.dc"
	same "$_n" "per-type record counts" "$TMP/$_n.pc" "$TMP/$_n.dc"
	perf_samples "$_n" >"$TMP/$_n.ps"
	dump_samples "$_n" >"$TMP/$_n.ds"
	same "$_n" "samples (time pid/tid ip period callchain)" "$TMP/$_n.ps" "$TMP/$_n.ds"
	script_lines "$_n" >"$TMP/$_n.sl"
	dump_script_lines "$_n" >"$TMP/$_n.dl"
	same "$_n" "perf script pid/tid time period" "$TMP/$_n.sl" "$TMP/$_n.dl"
	event_counts "$_n" >"$TMP/$_n.pe"
	dump_event_counts "$_n" >"$TMP/$_n.de"
	same "$_n" "samples per event" "$TMP/$_n.pe" "$TMP/$_n.de"
	# perf buildid-list prints the BUILD_ID feature when the file has one
	if grep -q '^feature 2 BUILD_ID .* decoded' "$TMP/$_n.dump"; then
		perf buildid-list -i "$TMP/$_n.data" 2>/dev/null | sort >"$TMP/$_n.pb"
		awk '$1 == "build-id" { print $6, $7 }' "$TMP/$_n.dump" | sort >"$TMP/$_n.db"
		same "$_n" "BUILD_ID feature" "$TMP/$_n.pb" "$TMP/$_n.db"
	fi
	_s=$(awk '$1 == "stats" { print $5 }' "$TMP/$_n.dump")
	_ps=$(wc -l <"$TMP/$_n.ps")
	if [ "$_s" = "$_ps" ] && [ "$_s" -gt 0 ]; then ok; else
		bad "$_n: the dump counts $_s samples, perf report -D shows $_ps"; fi
}

if rec g -e cpu-clock -g; then
	check_file g
	# the callchains reach spin's main through outer → middle → inner: more than 3 user frames
	if awk '$1 == "record" && $3 == "SAMPLE" && /chain/ { n = gsub(/0x5[0-9a-f]+/, "&"); if (n >= 3) d++ }
		END { exit !(d > 0) }' "$TMP/g.dump"; then ok; else bad "g: no callchain reaches main"; fi
	grep -q '^feature 11 CMDLINE .* decoded .*record -q -e cpu-clock -g' "$TMP/g.dump" && ok ||
		bad "g: CMDLINE feature: $(grep '^feature 11' "$TMP/g.dump")"
	grep -q '^attr 0 name cpu-clock type 1 ' "$TMP/g.dump" && ok || bad "g: attr 0: $(grep '^attr' "$TMP/g.dump")"
else
	bad "perf record -g failed: $(head -3 "$TMP/g.rec")"
fi

if rec two -e cpu-clock -e sched:sched_switch; then
	check_file two
	[ "$(grep -c '^attr ' "$TMP/two.dump")" = 2 ] && ok || bad "two: expected 2 attrs"
	grep -q '^attr 1 name sched:sched_switch type 2 ' "$TMP/two.dump" && ok || bad "two: attr 1"
else
	echo "$TEST_NAME: the tracepoint sched:sched_switch cannot be recorded here: skipping that file"
	sed 's/^/  /' "$TMP/two.rec" | head -3
fi

if rec z -e cpu-clock -g -z -m 1; then
	check_file z
	_c=$(awk '$1 == "count" && $2 == "COMPRESSED" { print $3 }' "$TMP/z.dump")
	[ "${_c:-0}" -gt 1 ] && ok || bad "z: expected several COMPRESSED records, got ${_c:-0}"
	_l=$(awk '/PERF_RECORD_LOST: /{ v = $NF; sub(/lost:/, "", v); s += v }
		END { print s + 0 }' "$TMP/z.D")
	_dl=$(awk '$1 == "stats" { print $7 }' "$TMP/z.dump")
	[ "$_l" = "$_dl" ] && ok || bad "z: lost samples: perf $_l, dump $_dl"
else
	bad "perf record -z failed: $(head -3 "$TMP/z.rec")"
fi

if rec bm -e cpu-clock --buildid-mmap; then
	check_file bm
	sed -n 's/.*PERF_RECORD_MMAP2 .*<\([0-9a-f]*\)>\]: [^ ]* \(.*\)$/\1 \2/p' "$TMP/bm.D" | sort >"$TMP/bm.pm"
	awk '$1 == "record" && $3 == "MMAP2" {
		b = ""
		for (i = 4; i <= NF; i++) { if ($i == "build-id") b = $(i + 1); if ($i == "file") f = $(i + 1) }
		if (b != "") print b, f }' "$TMP/bm.dump" | sort >"$TMP/bm.dm"
	same bm "MMAP2 build-ids" "$TMP/bm.pm" "$TMP/bm.dm"
else
	bad "perf record --buildid-mmap failed: $(head -3 "$TMP/bm.rec")"
fi
finish
