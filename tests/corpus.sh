#!/bin/sh
# Real-data corpus: every ../shared/corpus/perf-script/*.perf.txt (beside the project root), read
# in place, converted to collapsed stacks and to speedscope JSON.
#
# usage: sh tests/corpus.sh TRACE2FLAME
# env:   T2F_SOURCE_DIR  project root (set by ctest; default: this script's parent directory)
#        T2F_VALIDATORS_DIR  where tools/setup-validators installed the output checkers
#        CI=true         a missing corpus or missing validators fail instead of being skipped
#
# Per file: both conversions exit 0; tests/validate/check accepts both outputs; each
# thread's weight in the speedscope output, summed per comm, equals the folded weight under that
# root frame. cpp_fp.perf.txt's folded output equals ref/cpp_fp.inferno-head.folded exactly, but
# for the symbol versions trace2flame cuts (cut in the reference too), and gzip and zstd copies
# of it convert to the same bytes as the plain file.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
corpus=$SRC/../shared/corpus/perf-script
ci=${CI:-}

if [ ! -d "$corpus" ]; then
	if [ "$ci" = true ]; then
		echo "corpus: $corpus not found, and CI=true requires it"
		exit 1
	fi
	echo "corpus: $corpus $CORPUS_MISSING: skipping the corpus tests"
	exit 0
fi

make_tmp
find_validators "skipping validation and weight sums" folded speedscope

# run NAME DIR INPUT FORMAT OUT: one conversion, from DIR with the input's bare name, with a time
# limit of T2F_TEST_TIMEOUT seconds (default 60) so a hang fails instead of blocking ctest
run() {
	(cd "$2" && t2f -f "$4" -o "$5" "$3") 2>"$TMP/err"
	_rc=$?
	[ "$_rc" -eq 0 ] && return 0
	bad "$1: trace2flame -f $4 $3 exited $_rc:"
	head -n 10 "$TMP/err" | sed 's/^/    /'
	return 1
}

# Weight per root frame of a folded file: "ROOT SUM" lines, sorted.
folded_roots() {
	LC_ALL=C awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); sub(/;.*/, "", s); w[s] += n }
		END { for (r in w) printf "%s %.0f\n", r, w[r] }' "$1" | LC_ALL=C sort
}

# Weight per thread of a speedscope file, summed per comm as the folded root names it
# ("comm (pid P, tid T)", "comm (tid T)" → comm with spaces as '_'): "ROOT SUM" lines, sorted.
speedscope_roots() {
	node -e '
		const f = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const w = new Map();
		for (const p of f.profiles) {
			const root = p.name.replace(/ \((pid [^()]*, )?tid [^()]*\)$/, "").replace(/ \(pid [^()]*\)$/, "").replace(/ /g, "_");
			let s = 0;
			for (const x of p.weights) s += x;
			w.set(root, (w.get(root) || 0) + s);
		}
		for (const [r, s] of w) console.log(r + " " + s);
	' "$1" | LC_ALL=C sort
}

n=0
for f in "$corpus"/*.perf.txt; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f")
	c=${name%.perf.txt}
	folded=$TMP/$c.folded
	ss=$TMP/$c.speedscope.json
	run "$name" "$corpus" "$name" collapsed "$folded" && ok || folded=
	run "$name" "$corpus" "$name" speedscope "$ss" && ok || ss=
	if [ "$VALIDATE" = 1 ]; then
		if [ -n "$folded" ]; then
			if "$CHECK" folded "$folded" >"$TMP/check" 2>&1; then ok; else
				bad "$name: folded output rejected by the validator:"
				head -n 10 "$TMP/check" | sed 's/^/    /'
			fi
		fi
		if [ -n "$ss" ]; then
			if "$CHECK" speedscope "$ss" >"$TMP/check" 2>&1; then ok; else
				bad "$name: speedscope output rejected by the validator:"
				head -n 10 "$TMP/check" | sed 's/^/    /'
			fi
		fi
		if [ -n "$folded" ] && [ -n "$ss" ]; then
			folded_roots "$folded" >"$TMP/roots.folded"
			if ! speedscope_roots "$ss" >"$TMP/roots.ss" 2>"$TMP/err"; then
				bad "$name: could not read the speedscope output:"
				head -n 5 "$TMP/err" | sed 's/^/    /'
			elif cmp -s "$TMP/roots.folded" "$TMP/roots.ss"; then ok; else
				bad "$name: per-thread weights differ between folded (-) and speedscope (+):"
				diff -u "$TMP/roots.folded" "$TMP/roots.ss" | tail -n +3 | head -n 20 | sed 's/^/    /'
			fi
		fi
	fi
done
if [ "$n" -eq 0 ]; then
	bad "no *.perf.txt in $corpus"
fi

# unversioned FOLDED: FOLDED with each frame's symbol version cut ("cfree@GLIBC_2.2.5" is
# "cfree", "malloc@plt" stays), the stacks that became equal summed, sorted bytewise
unversioned() {
	awk '{
		n = split($0, f, ";")
		w = f[n]
		sub(/.* /, "", w)
		sub(/ [0-9]+$/, "", f[n])
		s = ""
		for (i = 1; i <= n; i++) {
			if (match(f[i], /@@?[A-Za-z_][A-Za-z0-9_.]*$/) && RSTART > 1 &&
				substr(f[i], RSTART) != "@plt")
				f[i] = substr(f[i], 1, RSTART - 1)
			s = s (i > 1 ? ";" : "") f[i]
		}
		sum[s] += w
	} END { for (s in sum) printf "%s %.0f\n", s, sum[s] }' "$1" | LC_ALL=C sort
}

# cpp_fp.perf.txt: the default collapsed rule is what inferno's current perf collapser writes,
# but for the symbol versions perf prints (inferno keeps them, trace2flame cuts them).
ref=$corpus/ref/cpp_fp.inferno-head.folded
if [ -f "$corpus/cpp_fp.perf.txt" ] && [ -f "$ref" ] && [ -s "$TMP/cpp_fp.folded" ]; then
	unversioned "$ref" >"$TMP/ref.folded"
	if cmp -s "$TMP/ref.folded" "$TMP/cpp_fp.folded"; then ok; else
		bad "cpp_fp.perf.txt: folded output differs from ref/cpp_fp.inferno-head.folded" \
			"(versions cut):"
		diff -u "$TMP/ref.folded" "$TMP/cpp_fp.folded" | head -n 30 | cut -c1-200 |
			sed 's/^/    /'
	fi

	# Compressed copies: the same bytes out. The folded check uses the real .gz/.zst names; the
	# speedscope one gives the compressed copy the plain file's name (the content, not the name,
	# tells the format), since the profile group's name is the input's name.
	mkdir -p "$TMP/c" "$TMP/gz" "$TMP/zst"
	gzip -c "$corpus/cpp_fp.perf.txt" >"$TMP/c/cpp_fp.perf.txt.gz"
	zstd -q -c "$corpus/cpp_fp.perf.txt" >"$TMP/c/cpp_fp.perf.txt.zst"
	cp "$TMP/c/cpp_fp.perf.txt.gz" "$TMP/gz/cpp_fp.perf.txt"
	cp "$TMP/c/cpp_fp.perf.txt.zst" "$TMP/zst/cpp_fp.perf.txt"
	for z in gz zst; do
		if run "cpp_fp.perf.txt.$z" "$TMP/c" "cpp_fp.perf.txt.$z" collapsed "$TMP/$z.folded"; then
			if cmp -s "$TMP/cpp_fp.folded" "$TMP/$z.folded"; then ok; else
				bad "cpp_fp.perf.txt.$z: folded output differs from the plain file's"
			fi
		fi
		if [ -s "$TMP/cpp_fp.speedscope.json" ] &&
			run "cpp_fp.perf.txt ($z)" "$TMP/$z" cpp_fp.perf.txt speedscope "$TMP/$z.speedscope.json"; then
			if cmp -s "$TMP/cpp_fp.speedscope.json" "$TMP/$z.speedscope.json"; then ok; else
				bad "cpp_fp.perf.txt ($z): speedscope output differs from the plain file's"
			fi
		fi
	done
else
	bad "cpp_fp.perf.txt, its conversion or ref/cpp_fp.inferno-head.folded is missing"
fi

finish
