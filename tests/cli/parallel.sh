#!/bin/sh
# -j N: perf script text read by several threads gives what one thread gives, byte for byte:
# outputs, warnings (with their line numbers), exit codes. Segments are made tiny with
# T2F_SEGMENT_SIZE so every fixture is cut at many points (and, below 16 segments' worth of
# bytes without a record start, read on in order); plain files (mapped), gzip and zstd files and
# standard input (streams) all go through it. `-j 1` on a plain file is the one-thread reader.
# usage: sh tests/cli/parallel.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

# run TAG ARGS...: trace2flame ARGS with its output in $TMP/TAG.out, stderr in $TMP/TAG.err and
# the exit code in $TMP/TAG.rc.
run() {
	_tag=$1
	shift
	rm -f "$TMP/$_tag.out"
	t2f "$@" >"$TMP/$_tag.out.stdout" 2>"$TMP/$_tag.err"
	echo $? >"$TMP/$_tag.rc"
}

# agree WHAT A B: runs A and B gave the same exit code, stderr and output.
agree() {
	for _x in rc err out; do
		if [ ! -e "$TMP/$2.$_x" ] && [ ! -e "$TMP/$3.$_x" ]; then
			ok
		else
			same "$1 ($_x)" "$TMP/$2.$_x" "$TMP/$3.$_x"
		fi
	done
}

# every fixture, four formats, three segment sizes; the corpus recordings (2 MB each), folded
for f in ./*.txt; do
	for fmt in collapsed speedscope pprof firefox; do
		run one -j 1 -f "$fmt" -o "$TMP/one.out" "$f"
		for seg in 64 777 4096; do
			T2F_SEGMENT_SIZE=$seg run par -j 3 -f "$fmt" -o "$TMP/par.out" "$f"
			agree "$f -f $fmt, segments of $seg bytes" one par
		done
	done
done
for f in "$SRC"/../shared/corpus/perf-script/*.perf.txt; do
	[ -e "$f" ] || continue
	run one -j 1 -f collapsed -o "$TMP/one.out" "$f"
	for seg in 5000 100000; do
		T2F_SEGMENT_SIZE=$seg run par -j 2 -f collapsed -o "$TMP/par.out" "$f"
		agree "$f, segments of $seg bytes" one par
	done
done

# --resymbolize keeps every address: one-line samples then need the PERF_RECORD_MMAP2 lines of
# earlier segments (those segments are read again by the calling thread)
f=burner.oneline-mmap.perf.txt
run one -j 1 --resymbolize --stats -f pprof -o "$TMP/one.out" "$f"
for seg in 64 1000 30000; do
	T2F_SEGMENT_SIZE=$seg run par -j 2 --resymbolize --stats -f pprof -o "$TMP/par.out" "$f"
	sed -i '/ seconds\| s$\|MB\/s/d' "$TMP/one.err" "$TMP/par.err"
	agree "$f --resymbolize, segments of $seg bytes" one par
done
# (the mappings matter here: without them the addresses, and so the bytes, differ)
grep -v PERF_RECORD_MMAP "$f" >"$TMP/nomaps.txt"
run nomaps -j 1 --resymbolize -f pprof -o "$TMP/nomaps.out" "$TMP/nomaps.txt"
if cmp -s "$TMP/one.out" "$TMP/nomaps.out"; then bad "$f: the mappings made no difference"; else ok; fi

# --strict: the first warning is the error, at the same line
for f in bad_header.txt bad_binary.txt bad_truncated.txt; do
	run one -j 1 --strict -f collapsed -o "$TMP/one.out" "$f"
	T2F_SEGMENT_SIZE=100 run par -j 3 --strict -f collapsed -o "$TMP/par.out" "$f"
	agree "$f --strict" one par
done

# streams: gzip, zstd and a pipe, with default and tiny segments
for f in burner.perf.txt multi.perf.txt burner.oneline-mmap.perf.txt; do
	gzip -c "$f" >"$TMP/in.gz"
	zstd -q -c "$f" >"$TMP/in.zst"
	run one -j 1 -f collapsed -o "$TMP/one.out" "$f"
	for j in 1 2; do
		run gz -j $j -f collapsed -o "$TMP/gz.out" "$TMP/in.gz"
		sed -i "s|$TMP/in.gz|$f|g" "$TMP/gz.err"
		agree "$f gzip -j $j" one gz
		T2F_SEGMENT_SIZE=500 run zst -j $j -f collapsed -o "$TMP/zst.out" "$TMP/in.zst"
		sed -i "s|$TMP/in.zst|$f|g" "$TMP/zst.err"
		agree "$f zstd -j $j, small segments" one zst
	done
	T2F_SEGMENT_SIZE=300 t2f -j 2 -f collapsed -o "$TMP/pipe.out" - <"$f" >/dev/null 2>"$TMP/pipe.err"
	echo $? >"$TMP/pipe.rc"
	sed -i "s|<stdin>|$f|g" "$TMP/pipe.err"
	agree "$f on standard input" one pipe
done

expect 2 "-j 0" -j 0 -o "$TMP/x.folded" burner.perf.txt
stderr_has "-j is checked" "want a number of threads"
finish
