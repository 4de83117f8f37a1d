#!/bin/sh
# tests/fuzz/run.sh: fuzzes one target, then minimizes its corpus into tests/fuzz/corpus/TARGET.
#
# usage: sh tests/fuzz/run.sh BUILD TARGET SECONDS [LIBFUZZER-ARGS...]
#   BUILD    a build directory configured with CC=clang -DT2F_FUZZ=ON (make fuzzers first)
#   TARGET   perf_script, perf_script_par, nettrace, elf_module, convert, perf_data, resolve or unwind
#   SECONDS  fuzzing time, wall clock (-max_total_time; the CPU time used is printed at the end);
#            0: only minimize the corpus (with the inputs found before, in WORK/TARGET)
# env: T2F_FUZZ_WORK  where new inputs and findings go (default /tmp/t2f-fuzz-work): WORK/TARGET
#                     (inputs found), WORK/TARGET-crashes/ (crash-*, leak-*, timeout-*, oom-*)
#      T2F_FUZZ_KEEP_LEN  the longest input the merge keeps (longer ones are cut to it): 4096,
#                     65536 for elf_module and perf_data
#      T2F_FUZZ_BUDGET  bytes of the minimized corpus beyond what covers every edge (1.5 MiB)
#
# Runs under `nice -n 19`, one process, with the limits findings are judged by: 10 s per input,
# 1 GiB RSS, no single allocation over 1 GiB. Starts from the committed corpus, with the
# dictionaries of the target's input formats (perf_script.dict, nettrace.dict). Then minimizes:
# a libFuzzer merge run (-merge=1) over the committed corpus and the new inputs, each cut to
# T2F_FUZZ_KEEP_LEN bytes, records every input's edges and features; minimize.py keeps the
# inputs that cover every edge in the fewest bytes, then more that add features while they fit
# T2F_FUZZ_BUDGET (so the corpus stays under 2 MiB); they replace corpus/TARGET except for the
# regress-* inputs (findings), kept as they are. Review `git status tests/fuzz/corpus` before
# committing.
set -eu

if [ $# -lt 3 ]; then
	sed -n '4,8s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
build=$1 target=$2 seconds=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/tests/fuzz/fuzz-$target
corpus=$here/corpus/$target
work=${T2F_FUZZ_WORK:-/tmp/t2f-fuzz-work}
limits="-timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=1024"
if [ ! -x "$bin" ]; then
	echo "run.sh: no $bin (configure with CC=clang -DT2F_FUZZ=ON, make fuzzers)" >&2
	exit 1
fi
mkdir -p "$corpus" "$work/$target" "$work/$target-crashes"

# dictionaries; the longest input kept by the merge (a longer one is cut: the corpus of a text
# or stream format stays small, an ELF file needs its section headers at the end)
case $target in
perf_script | perf_script_par) dicts=perf_script.dict keep=4096 ;;
nettrace) dicts=nettrace.dict keep=4096 ;;
convert) dicts="perf_script.dict nettrace.dict perf_data.dict" keep=4096 ;;
perf_data) dicts=perf_data.dict keep=65536 ;;
*) dicts= keep=65536 ;;
esac
keep=${T2F_FUZZ_KEEP_LEN:-$keep}
budget=${T2F_FUZZ_BUDGET:-1572864}
if [ -n "$dicts" ]; then
	# shellcheck disable=SC2086 # dicts: file names
	(cd "$here" && cat $dicts) >"$work/$target.dict"
	set -- -dict="$work/$target.dict" "$@"
fi

# the run ends with status 0, or on a finding (kept under WORK/TARGET-crashes/)
# shellcheck disable=SC2086 # limits: several words
if [ "$seconds" -gt 0 ]; then
	/usr/bin/time -f "run.sh: $target: %U s user + %S s system CPU, %e s wall" \
		nice -n 19 "$bin" -max_total_time="$seconds" $limits -print_final_stats=1 \
		-artifact_prefix="$work/$target-crashes/" "$@" "$work/$target" "$corpus" ||
		echo "run.sh: $target stopped on a finding: see $work/$target-crashes/"
fi

# the merge's control file lists each input's edges and features; minimize.py picks from it
fresh=$work/$target-merged.$$ base=$work/$target-base.$$ ctl=$work/$target-merge.txt
rm -rf "$fresh" "$base" "$ctl" && mkdir -p "$fresh" "$base"
for f in "$corpus"/regress-*; do
	if [ -e "$f" ]; then cp "$f" "$fresh"/ && cp "$f" "$base"/; fi
done
# shellcheck disable=SC2086
nice -n 19 "$bin" -merge=1 -merge_control_file="$ctl" -max_len="$keep" $limits "$base" \
	"$corpus" "$work/$target"
nice -n 19 python3 "$here/minimize.py" "$ctl" "$keep" "$budget" "$fresh"
find "$corpus" -maxdepth 1 -type f ! -name 'regress-*' -delete
find "$fresh" -maxdepth 1 -type f ! -name 'regress-*' -exec mv {} "$corpus"/ \;
rm -rf "$fresh" "$base"
echo "run.sh: corpus/$target: $(find "$corpus" -type f | wc -l) inputs," \
	"$(du -sk --apparent-size "$corpus" | cut -f1) KiB"
