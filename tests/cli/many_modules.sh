#!/bin/sh
# The resolve stage in a trace naming many modules: N = 150,000 distinct dso paths of perf
# script text, one sample and one unresolvable frame each (the files do not exist). A third
# have their build-id in a PERF_RECORD_MMAP2 line (perf record --buildid-mmap, r-xp), a third
# in a --buildids file, a third none. Each module is looked up once by its path (the module
# table, the build-ids, the first executable mapping: hashed), so the run is linear in the
# modules: 1 s here (0.8 s for 100,000 modules), where lookups that scanned every module known
# so far took 60 s for 100,000 and grow with the square. The timeout (60 s, T2F_TEST_TIMEOUT)
# only catches that.
#
# Checked exactly, against what awk computes from the same numbers: the folded output (one line
# per module), the --stats totals (frames looked up, not looked up), each module's line of
# --stats in the order the frames met them (no file for those with a build-id; not tried for
# the others), and, in a second run without --stats, the warnings' counts.
# usage: sh tests/cli/many_modules.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

n=150000
dir=/nonexistent/t2f-many/
LC_ALL=C awk -v n="$n" -v dir="$dir" -v ids="$TMP/ids.txt" -v folded="$TMP/want.folded" \
	-v stats="$TMP/want.stats" 'BEGIN {
	no_id = "; 1 not tried: no build-id known (--buildids FILE, or --unsafe-build-id-match)"
	for (i = 0; i < n; i += 3)
		printf "prog   100     1.000000: PERF_RECORD_MMAP2 100/100: " \
			"[0x%x(0x2000) @ 0x1000 <%040x>]: r-xp %smod%06d.so\n",
			4096 * (16 + 4 * i), i + 1, dir, i
	for (i = 1; i < n; i += 3)
		printf "%040x %smod%06d.so\n", i + 1, dir, i > ids
	for (i = 0; i < n; i++) {
		printf "prog   100/100     2.%06d: 1 cpu-clock:\n\t%x (%smod%06d.so)\n\n", i,
			4096 + i, dir, i
		printf "prog;[mod%06d.so] 1\n", i > folded
		printf "  %smod%06d.so: 0 resolved, 1 unresolved%s\n", dir, i,
			i % 3 == 2 ? no_id : ", no file 1" > stats
	}
}' >"$TMP/in.txt"
with_id=$(((n + 2) / 3 + (n + 1) / 3))
no_id=$((n - with_id))

# --offline: no debuginfod server is asked for the made-up build-ids, whatever DEBUGINFOD_URLS
expect 0 "$n modules" --offline --stats -j 2 --buildids "$TMP/ids.txt" -o "$TMP/out.folded" \
	"$TMP/in.txt"
same "$n modules: folded output" "$TMP/want.folded" "$TMP/out.folded"
stderr_has "$n modules: looked up" "^resymbolized frames: 0 of $with_id looked up resolved$"
stderr_has "$n modules: not looked up" \
	"^frames not looked up \(no build-id known, or no mapping\): $no_id$"
grep "^  $dir" "$TMP/err" >"$TMP/got.stats"
same "$n modules: --stats per module" "$TMP/want.stats" "$TMP/got.stats"
# without --stats: the warnings instead
expect 0 "$n modules, warnings" --offline -j 2 --buildids "$TMP/ids.txt" -o /dev/null \
	"$TMP/in.txt"
stderr_has "$n modules: warning, no build-id" \
	"warning: .*in\.txt: $no_id frames of $no_id modules not named: the recording has no"
stderr_has "$n modules: warning, unnamed" \
	"warning: .*in\.txt: $with_id of $with_id frames looked up stayed unnamed"
finish
