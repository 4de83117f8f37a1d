#!/bin/sh
# Re-symbolization of address-only perf script text against copied, stripped and wrong binaries.
#
# usage: sh tests/resymbolize.sh TRACE2FLAME
# env:   T2F_SOURCE_DIR  project root (set by ctest; default: this script's parent directory)
#        CI=true         a missing corpus fails instead of being skipped
#
# The corpus pairs X.addrs_only.perf.txt / X.perf.txt are one recording printed twice (addresses
# only, and with perf's names), possibly cut at different sample counts. Samples are paired by
# (tid, time); of each common sample only the frames of the program's own modules
# (/srv/t2f-corpus/recordings/prog/...) are kept, and the sample's comm becomes its pair index,
# so every folded line is one sample. Both sides go through trace2flame; the names trace2flame
# finds for the addresses must equal perf's, frame by frame, PLT stubs included (perf names
# them foo@plt from the PLT relocations; so does the symbolizer). Asserted: >= 99.9% equal
# (measured: cpp_fp copies 8118/8118, 25 of them PLT stubs; stripped 8118/8118: the debug file
# has .plt and .rela.plt as NOBITS, the stripped binary of the same build names the stubs;
# rust_v0_fp 11285/11290: RawVec<u64>::grow_one and RawVec<usize>::grow_one are one function
# folded to one address, and perf names it by the other alias).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init . 1 "$@"
corpus=$SRC/../shared/corpus/perf-script
prog=/srv/t2f-corpus/recordings/prog/

if [ ! -d "$corpus" ]; then
	if [ "${CI:-}" = true ]; then
		echo "resymbolize: $corpus not found, and CI=true requires it"
		exit 1
	fi
	echo "resymbolize: $corpus $CORPUS_MISSING: skipping"
	exit 0
fi
for tool in objcopy readelf; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "resymbolize: $tool not found: skipping"
		exit 0
	fi
done
make_tmp

# "tid time" of every sample header of perf script text.
sample_keys() {
	LC_ALL=C awk '/^[^\t#]/ { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
		t = $(i - 1); if (t ~ /^\[/) t = $(i - 2); sub(/.*\//, "", t); print t, $i; break } }' "$1"
}

# filter KEYS IN OUT: the samples of IN whose key is in KEYS (comm := "s" + the key's line
# number), with only the frames of $prog modules.
filter() {
	LC_ALL=C awk -v prog="($prog" 'NR == FNR { idx[$0] = "s" FNR; next }
		/^[^\t#]/ { keep = 0
			for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
				t = $(i - 1); if (t ~ /^\[/) t = $(i - 2); sub(/.*\//, "", t)
				k = t " " $i; break }
			if (k in idx) { keep = 1; sub(/^[^ ]+/, idx[k]); print }
			next }
		/^$/ { if (keep) print; keep = 0; next }
		keep && index($0, prog) { print }' "$1" "$2" >"$3"
}

# compare PERF_FOLDED OURS_FOLDED LABEL: frame-by-frame agreement of one-sample-per-line stacks.
compare() {
	LC_ALL=C awk -v label="$3" -v out="$TMP/cmp.txt" '
		function stack(line, a,   s) { s = line; sub(/ [0-9]+$/, "", s); return split(s, a, ";") }
		NR == FNR { n = stack($0, a); ref[a[1]] = $0; next }
		{ n = stack($0, b); if (!(b[1] in ref)) { extra++; next }
		  m = stack(ref[b[1]], a)
		  if (m != n) { shape++; next }
		  for (i = 2; i <= n; i++) {
			cmp++
			if (a[i] ~ /@plt$/) { plt++; if (a[i] == b[i]) plteq++ }
			if (a[i] == b[i]) eq++
			else if (b[i] ~ /^\[[^]]*\]$/) unres++
			else if (bad++ < 5) printf "    %s: perf %s, trace2flame %s\n", b[1], a[i], b[i] >out
		  } }
		END { printf "%d %d %d %d %d %d %d\n", cmp, eq, plt, shape, extra, unres, plteq + 0 }' \
		"$1" "$2"
}

# check NAME REF ADDRS ARGS...: pairs REF and ADDRS, converts, compares; ARGS go to trace2flame
# for the address side.
check() {
	_name=$1 _ref=$2 _addrs=$3
	shift 3
	sample_keys "$_ref" | sort -u >"$TMP/k1"
	sample_keys "$_addrs" | sort -u >"$TMP/k2"
	LC_ALL=C comm -12 "$TMP/k1" "$TMP/k2" >"$TMP/keys"
	filter "$TMP/keys" "$_ref" "$TMP/ref.txt"
	filter "$TMP/keys" "$_addrs" "$TMP/addrs.txt"
	: >"$TMP/cmp.txt"
	if ! t2f -q --no-inline --weight samples "$TMP/ref.txt" -o "$TMP/ref.folded" ||
	   ! t2f -q --no-inline --weight samples "$@" "$TMP/addrs.txt" -o "$TMP/addrs.folded"; then
		bad "$_name: trace2flame failed"
		return
	fi
	set -- $(compare "$TMP/ref.folded" "$TMP/addrs.folded" "$_name")
	echo "$_name: $(wc -l <"$TMP/keys") paired samples; frames compared $1, equal $2," \
		"left unresolved $6; of them PLT stubs $3, equal $7; stacks of another depth $4," \
		"unpaired $5"
	if [ "$1" -gt 0 ] && [ $(($2 * 1000)) -ge $(($1 * 999)) ] && [ "$4" -eq 0 ] &&
	     [ "$5" -eq 0 ]; then ok; else
		bad "$_name: names differ from perf's:"
		cat "$TMP/cmp.txt"
	fi
}

build_id() {
	readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'
}

cpp=$corpus/cpp_fp
sym=$TMP/sym
mkdir -p "$sym" "$TMP/stripped" "$TMP/debug"
cp "$corpus/prog/workload" "$corpus/prog/libshape.so" "$sym/"

# 1. copies of the binaries, build-ids from perf buildid-list
check cpp_fp/copies "$cpp.perf.txt" "$cpp.addrs_only.perf.txt" \
	--symbol-path "$sym" --buildids "$cpp.buildid-list.txt"

# 2. a stripped workload + its debug file in a build-id tree: symbols from the debug file, the
# PT_LOAD table (real p_offset values, which objcopy rewrites in a debug file) from the verified
# stripped copy in --symbol-path, since the recorded path does not exist here.
id=$(build_id "$corpus/prog/workload")
mkdir -p "$TMP/debug/.build-id/$(echo "$id" | cut -c1-2)"
objcopy --strip-all "$corpus/prog/workload" "$TMP/stripped/workload"
objcopy --only-keep-debug "$corpus/prog/workload" \
	"$TMP/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
cp "$corpus/prog/libshape.so" "$TMP/stripped/"
check cpp_fp/stripped "$cpp.perf.txt" "$cpp.addrs_only.perf.txt" \
	--symbol-path "$TMP/stripped" --debug-dir "$TMP/debug" --buildids "$cpp.buildid-list.txt"

REPORT_ONLY=

# 3. a wrong build-id for workload: refused, reported with both ids, frames unresolved
wrong=0123456789abcdef0123456789abcdef01234567
sed "s|^$id |$wrong |" "$cpp.buildid-list.txt" >"$TMP/wrong.txt"
t2f --stats --symbol-path "$sym" --buildids "$TMP/wrong.txt" "$cpp.addrs_only.perf.txt" \
	-o "$TMP/wrong.folded" 2>"$TMP/wrong.err"
line=$(grep "^  ${prog}workload: " "$TMP/wrong.err")
case $line in
*": 0 resolved, "*"build-id mismatch"*) ok ;;
*) bad "wrong build-id: workload frames resolved or no mismatch reported: $line" ;;
esac
if grep -q "refused: .*workload: .*found $id, expected $wrong" "$TMP/wrong.err"; then ok; else
	bad "wrong build-id: the refusal does not name both ids:"
	grep -A3 "^  ${prog}workload" "$TMP/wrong.err" | sed 's/^/    /'
fi
t2f --symbol-path "$sym" --buildids "$TMP/wrong.txt" "$cpp.addrs_only.perf.txt" \
	-o "$TMP/wrong.folded" 2>"$TMP/wrong.err"
if grep -q "^trace2flame: warning: $cpp.addrs_only.perf.txt: ${prog}workload: .*workload refused: its build-id $id is not the recording's $wrong\$" "$TMP/wrong.err"; then ok; else
	bad "wrong build-id: no per-module refusal without --stats:"
	sed 's/^/    /' "$TMP/wrong.err"
fi
# --unsafe-build-id-match accepts it
check cpp_fp/unsafe "$cpp.perf.txt" "$cpp.addrs_only.perf.txt" \
	--symbol-path "$sym" --buildids "$TMP/wrong.txt" --unsafe-build-id-match

# 4. lld-linked Rust program (p_vaddr != p_offset): the PT_LOAD arithmetic
rs=$corpus/rust_v0_fp
if [ -e "$rs.addrs_only.perf.txt" ]; then
	cp "$corpus/prog/rwork_v0" "$sym/"
	echo "$(build_id "$corpus/prog/rwork_v0") ${prog}rwork_v0" >"$TMP/rust-ids.txt"
	check rust_v0_fp/copies "$rs.perf.txt" "$rs.addrs_only.perf.txt" \
		--symbol-path "$sym" --buildids "$TMP/rust-ids.txt"
fi

finish
