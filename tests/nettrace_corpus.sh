#!/bin/sh
# Real-data corpus for the nettrace reader: every trace in ../shared/corpus/nettrace (beside the
# project root), unzipped into a temp dir, converted with --weight samples to collapsed stacks and
# to speedscope JSON.
#
# usage: sh tests/nettrace_corpus.sh TRACE2FLAME
# env:   T2F_SOURCE_DIR  project root (set by ctest; default: this script's parent directory)
#        T2F_VALIDATORS_DIR  where tools/setup-validators installed the output checkers
#        CI=true         a missing corpus or missing validators fail instead of being skipped
#
# Per trace: both conversions exit 0; the samples written (folded counts, speedscope weights)
# equal the SampleProfiler events of SAMPLES.md; only the truncated trace.nettrace warns (that
# it ends inside a block); tests/validate/check accepts the speedscope and pprof
# outputs; the pprof stacks, as Go pprof reads them, equal the folded output written with
# --raw-names, per event, line for line (tests/pprof_lib.sh). In the two Linux traces at least 99% of managed frames (weighted by samples) are
# named from a method, and every frame name has dotnet-trace's shape "Module!Namespace.Type.Method(args)", as in
# example-*.speedscope.json. HeartRateMonitor's 4-byte IPs stay below 2^32. NetPerf (V3) is
# refused with exit 1 and a message naming it.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=pprof_lib.sh
. "$(dirname "$0")/pprof_lib.sh"
t2f_init .. 1 "$@"
corpus=$SRC/../shared/corpus/nettrace
ci=${CI:-}
py=/usr/bin/python3

if [ ! -d "$corpus" ]; then
	if [ "$ci" = true ]; then
		echo "$TEST_NAME: $corpus not found, and CI=true requires it"
		exit 1
	fi
	echo "$TEST_NAME: $corpus $CORPUS_MISSING: skipping"
	exit 0
fi
if [ ! -x "$py" ]; then
	echo "$TEST_NAME: $py is needed to unzip the traces and read the outputs"
	[ "$ci" = true ] && exit 1
	exit 0
fi

make_tmp
find_validators "skipping validation" speedscope pprof
find_pprof "$SRC"
pp_files=0 pp_stacks=0 pp_mismatches=0

# unzip ZIP: extracts into $TMP (each zip holds one trace)
unzip_trace() {
	"$py" -m zipfile -e "$1" "$TMP/" 2>"$TMP/err" && return 0
	bad "$(basename "$1"): cannot unzip:"
	head -n 5 "$TMP/err" | sed 's/^/    /'
	return 1
}

# convert NAME TRACE FORMAT OUT: one conversion; its stderr is left in $TMP/NAME.FORMAT.err
convert() {
	t2f --weight samples -f "$3" -o "$4" "$2" 2>"$TMP/$1.$3.err"
	_rc=$?
	[ "$_rc" -eq 0 ] && return 0
	bad "$1: trace2flame -f $3 exited $_rc:"
	head -n 10 "$TMP/$1.$3.err" | sed 's/^/    /'
	return 1
}

# Facts of a folded file: "samples N", "frames N" (managed frames on the stacks, weighted by
# samples; the thread root and UNMANAGED_CODE_TIME are not counted), "unnamed N" (of them,
# "?!0x…" or "Module!0x…"), "maxaddr HEX" (longest unnamed address).
folded_facts() {
	LC_ALL=C awk '{
		n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		samples += n
		k = split(s, f, ";")
		for (i = 2; i <= k; i++) {
			if (f[i] == "UNMANAGED_CODE_TIME") continue
			frames += n
			if (f[i] ~ /!0x[0-9a-f]+$/) {
				unnamed += n
				a = f[i]; sub(/.*!0x/, "", a)
				if (length(a) > length(max)) max = a
			}
		}
	} END { printf "samples %d\nframes %d\nunnamed %d\nmaxaddr %s\n", samples, frames, unnamed, max }' "$1"
}

# Facts of a speedscope file: "samples N" (sum of weights), "badnames N" (frame names other than
# "Module!Namespace.Type.Method(args)", "Module!0xADDR" or UNMANAGED_CODE_TIME), "name X" per frame.
speedscope_facts() {
	"$py" - "$1" <<-'EOF'
	import json, re, sys
	d = json.load(open(sys.argv[1], encoding="utf-8"))
	print("samples %d" % sum(sum(p["weights"]) for p in d["profiles"]))
	shape = re.compile(r"^[^!;]+!([^!(]+\(.*\)|0x[0-9a-f]+)$")
	names = [f["name"] for f in d["shared"]["frames"]]
	bad = [n for n in names if n != "UNMANAGED_CODE_TIME" and not shape.match(n)]
	print("badnames %d" % len(bad))
	for n in bad[:3]:
	    print("bad %s" % n)
	for n in names:
	    print("name %s" % n)
	EOF
}

fact() { sed -n "s/^$1 //p" "$2" | head -n 1; }

# fold OUT ARGS...: the folded output of $trace for the pprof stack comparison.
# shellcheck disable=SC2317 # called through stacks_check
fold() {
	_fo=$1
	shift
	t2f -f collapsed --raw-names "$@" -o "$_fo" "$trace" 2>/dev/null
}

# check_trace TRACE SAMPLES LINUX: the checks above for one trace
check_trace() {
	name=$(basename "$1" .nettrace)
	folded=$TMP/$name.folded
	ss=$TMP/$name.speedscope.json
	convert "$name" "$1" collapsed "$folded" && ok || return
	convert "$name" "$1" speedscope "$ss" && ok || return
	folded_facts "$folded" >"$TMP/$name.ff"
	speedscope_facts "$ss" >"$TMP/$name.sf" 2>"$TMP/err" || {
		bad "$name: cannot read the speedscope output:"
		head -n 5 "$TMP/err" | sed 's/^/    /'
		return
	}
	for f in ff sf; do
		n=$(fact samples "$TMP/$name.$f")
		if [ "$n" = "$2" ]; then ok; else bad "$name: $n samples in the .$f output, want $2"; fi
	done
	n=$(fact badnames "$TMP/$name.sf")
	if [ "$n" = 0 ]; then ok; else
		bad "$name: $n frame names not shaped Module!Namespace.Type.Method(args):"
		sed -n 's/^bad /    /p' "$TMP/$name.sf"
	fi
	if [ "$name" = trace ]; then
		if grep -q "ends inside a block" "$TMP/$name.collapsed.err"; then ok; else
			bad "$name: no warning about the truncated last block:"
			head -n 5 "$TMP/$name.collapsed.err" | sed 's/^/    /'
		fi
	elif [ -s "$TMP/$name.collapsed.err" ]; then
		bad "$name: unexpected messages:"
		head -n 5 "$TMP/$name.collapsed.err" | sed 's/^/    /'
	else
		ok
	fi
	if [ "$3" = linux ]; then
		frames=$(fact frames "$TMP/$name.ff")
		unnamed=$(fact unnamed "$TMP/$name.ff")
		if [ "$frames" -gt 0 ] && [ $((unnamed * 100)) -le "$frames" ]; then ok; else
			bad "$name: $unnamed of $frames managed frames are not named (more than 1%)"
		fi
	fi
	if [ "$name" = HeartRateMonitor.10068 ]; then
		max=$(fact maxaddr "$TMP/$name.ff")
		if [ "${#max}" -le 8 ]; then ok; else bad "$name: 4-byte IP read as 0x$max"; fi
	fi
	if [ "$VALIDATE" = 1 ]; then
		if "$CHECK" speedscope "$ss" >"$TMP/check" 2>&1; then ok; else
			bad "$name: speedscope output rejected by the validator:"
			head -n 10 "$TMP/check" | sed 's/^/    /'
		fi
	fi
	if [ "$VALIDATE" = 1 ] || [ -n "$PPROF" ]; then
		convert "$name" "$1" pprof "$TMP/$name.pb.gz" && ok || return
		# --weight samples makes the reader weigh each sample 1 (cpu/count): the stack
		# comparison uses the default weights (cpu/nanoseconds), a second pprof file
		if t2f -f pprof -o "$TMP/$name.period.pb.gz" "$1" 2>/dev/null; then ok; else
			bad "$name: trace2flame -f pprof (default weights) failed"
			return
		fi
	fi
	if [ "$VALIDATE" = 1 ]; then
		for pb in "$TMP/$name.pb.gz" "$TMP/$name.period.pb.gz"; do
			if "$CHECK" pprof "$pb" >"$TMP/check" 2>&1; then ok; else
				bad "$(basename "$pb"): pprof output rejected by the validator:"
				head -n 10 "$TMP/check" | sed 's/^/    /'
			fi
		done
	fi
	if [ -n "$PPROF" ]; then
		trace=$1
		if stacks_check "$TMP/$name.period.pb.gz" "$TMP/$name.st" "    $name" fold; then ok; else
			bad "$name: pprof stacks differ from the folded output (--raw-names)"
		fi
		pp_files=$((pp_files + 1))
		pp_stacks=$((pp_stacks + STACKS))
		pp_mismatches=$((pp_mismatches + MISMATCHES))
	fi
}

# has_frame NAME FRAME: the speedscope output of NAME has a frame called FRAME
has_frame() {
	if grep -qxF "name $2" "$TMP/$1.sf" 2>/dev/null; then ok; else
		bad "$1: no frame \"$2\""
	fi
}

missing=
for z in eventpipe-dotnetcore3.0-win-x64-objver4 mixed_managed_external_samples \
	only_managed_samples HeartRateMonitor.10068 eventpipe-dotnetcore2.1-linux-x64-tracelogging; do
	zip=
	for f in "$corpus/$z".*.zip; do
		[ -f "$f" ] && zip=$f
	done
	if [ -n "$zip" ]; then unzip_trace "$zip"; else missing="$missing $z"; fi
done
[ -f "$corpus/trace.nettrace" ] || missing="$missing trace.nettrace"
if [ -n "$missing" ]; then
	if [ "$ci" = true ]; then bad "missing from $corpus:$missing"; else
		echo "$TEST_NAME: missing from $corpus (skipped):$missing"
	fi
fi

[ -f "$TMP/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace" ] &&
	check_trace "$TMP/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace" 35161 windows
[ -f "$TMP/mixed_managed_external_samples.nettrace" ] &&
	check_trace "$TMP/mixed_managed_external_samples.nettrace" 6331 linux
[ -f "$TMP/only_managed_samples.nettrace" ] &&
	check_trace "$TMP/only_managed_samples.nettrace" 7423 linux
[ -f "$TMP/HeartRateMonitor.10068.nettrace" ] &&
	check_trace "$TMP/HeartRateMonitor.10068.nettrace" 921 tizen
if [ -f "$corpus/trace.nettrace" ]; then
	cp "$corpus/trace.nettrace" "$TMP/trace.nettrace"
	check_trace "$TMP/trace.nettrace" 7338 windows
fi

[ -n "$PPROF" ] &&
	echo "pprof stacks: $pp_files traces, $pp_stacks stacks compared, $pp_mismatches mismatches"

# dotnet-trace's naming (example-*.speedscope.json: "System.Private.CoreLib!System.Threading.
# Thread.Sleep(int32)"), on frames these traces are known to hold.
if [ -f "$TMP/mixed_managed_external_samples.sf" ]; then
	has_frame mixed_managed_external_samples \
		"NoNativeStacks!NoNativeStacks.Program.Main(class System.String[])"
	has_frame mixed_managed_external_samples \
		"System.Console!System.IO.StdInReader.ReadKey(bool&)"
	has_frame mixed_managed_external_samples UNMANAGED_CODE_TIME
fi
[ -f "$TMP/only_managed_samples.sf" ] &&
	has_frame only_managed_samples "NoNativeStacks!NoNativeStacks.Program.Test(int32)"
[ -f "$TMP/HeartRateMonitor.10068.sf" ] &&
	has_frame HeartRateMonitor.10068 \
		"HeartRateMonitor.ni!HeartRateMonitor.Program.Main(class System.String[])"

# NetPerf (V3 and older): refused, exit 1, a message that names it; no output file.
np=$TMP/eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf
if [ -f "$np" ]; then
	t2f -o "$TMP/np.folded" "$np" 2>"$TMP/np.err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "NetPerf" "$TMP/np.err" && [ ! -e "$TMP/np.folded" ]; then ok; else
		bad "netperf: exit $rc (want 1), output $([ -e "$TMP/np.folded" ] && echo written || echo absent), message:"
		head -n 5 "$TMP/np.err" | sed 's/^/    /'
	fi
fi

finish
