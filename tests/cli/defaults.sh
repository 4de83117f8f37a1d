#!/bin/sh
# Guardrails and defaults: what trace2flame says without --stats when the output is worse than
# asked for, and the choices it makes by itself.
#   - options the chosen format does not use are named in a warning (none under -q);
#   - an output that is a device (/dev/null) needs no -f: collapsed, as on standard output;
#   - an input without samples: a warning (an error under --strict, no output left);
#     a .nettrace without samples too (written by tools/make-nettrace);
#   - --stats reports only the re-symbolization attempted (frames looked up, frames that could
#     not be);
#   - every warning names the input it is about: with --each, and "FIRST and N more inputs" for
#     a merged run;
#   - --each exits with the worst status its inputs would have alone (cli/batch.sh);
#   - speedscope opens on the heaviest thread that is not the idle task (pid 0), names threads
#     "comm (tid T)" when the pid is unknown and .nettrace's "Thread (TID)" with the ids once,
#     and names the file after its input ("standard input", "FIRST and N more inputs").
# usage: sh tests/cli/defaults.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

# --- options that do nothing for the format --------------------------------------------------
# ignored WHAT OPTION FORMAT-SAID WHY-ERE ARGS...: ARGS exit 0 and warn once about OPTION
ignored() {
	_what=$1 _opt=$2 _fmt=$3 _why=$4
	shift 4
	expect 0 "$_what" "$@" || return 0
	stderr_has "$_what: said" "^trace2flame: warning: $_opt does nothing for $_fmt \\($_why\\)$"
	_n=$(grep -c -- "$_opt does nothing" "$TMP/err")
	[ "$_n" -eq 1 ] && ok || bad "$_what: $_n warnings about $_opt"
}
ignored "--title, collapsed" --title "collapsed output" "it is for SVG" \
	--title T burner.perf.txt -o "$TMP/a.folded"
ignored "--flamechart, collapsed" --flamechart "collapsed output" "it is for SVG" \
	--flamechart burner.perf.txt -o "$TMP/a.folded"
ignored "--minwidth, speedscope" --minwidth "speedscope output" "it is for SVG" \
	--minwidth 2 burner.perf.txt -o "$TMP/a.json"
ignored "--pid, speedscope" --pid "speedscope output" "it is for collapsed stacks" \
	--pid burner.perf.txt -o "$TMP/a.json"
ignored "--tid, SVG" --tid "SVG output" "it is for collapsed stacks" \
	--tid burner.perf.txt -o "$TMP/a.svg"
ignored "--kernel, pprof" --kernel "pprof output" "it is for collapsed stacks and SVG" \
	--kernel burner.perf.txt -o "$TMP/a.pb.gz"
ignored "--weight samples, pprof" "--weight samples" "pprof output" \
	"a pprof profile keeps both sample counts and weights: choose with pprof -sample_index" \
	--weight samples burner.perf.txt -o "$TMP/a.pb.gz"
ignored "--colors hot (the default) given, collapsed" --colors "collapsed output" "it is for SVG" \
	--colors hot -f collapsed burner.perf.txt
expect 0 "options SVG uses" --title T --subtitle S --countname c --width 900 --minwidth 1 \
	--colors kind --hash --reverse --icicle --kernel --raw-names burner.perf.txt -o "$TMP/a.svg"
if [ -s "$TMP/err" ]; then bad "options SVG uses: stderr: $(head -2 "$TMP/err")"; else ok; fi
expect 0 "options collapsed uses" --tid --all --addrs --raw-names --weight samples \
	burner.perf.txt -o "$TMP/a.folded"
if [ -s "$TMP/err" ]; then bad "options collapsed uses: stderr: $(head -2 "$TMP/err")"; else ok; fi
expect 0 "-q: no warning" -q --title T burner.perf.txt -o "$TMP/a.folded"
if [ -s "$TMP/err" ]; then bad "-q: stderr: $(head -2 "$TMP/err")"; else ok; fi

# --addrs reaches speedscope: the unnamed frames of an address-only input show their address
expect 0 "--addrs, speedscope" -q --addrs burner.addrs.perf.txt -o "$TMP/addrs.json"
file_has "--addrs, speedscope: an address" "$TMP/addrs.json" '"name":"\[[^]"]* <[0-9a-f]+>\]"'
expect 0 "speedscope without --addrs" -q burner.addrs.perf.txt -o "$TMP/noaddrs.json"
if grep -Eq '"name":"\[[^]"]* <[0-9a-f]+>\]"' "$TMP/noaddrs.json"; then
	bad "speedscope without --addrs shows addresses"
else ok; fi

# --- a device as the output -------------------------------------------------------------------
expect 0 "-o /dev/null" burner.perf.txt -o /dev/null
if [ -s "$TMP/err" ]; then bad "-o /dev/null: stderr: $(head -2 "$TMP/err")"; else ok; fi
expect 2 "-o a name of no format" burner.perf.txt -o "$TMP/out.txt" &&
	stderr_has "-o a name of no format: said" "cannot tell the output format of '$TMP/out.txt'"

# --- inputs without samples -------------------------------------------------------------------
: >"$TMP/empty.txt"
expect 0 "an empty input" "$TMP/empty.txt" -o "$TMP/e.folded" &&
	stderr_has "an empty input: said" \
		"^trace2flame: warning: $TMP/empty.txt: no samples in the input: the output is empty$"
[ -e "$TMP/e.folded" ] && [ ! -s "$TMP/e.folded" ] && ok || bad "an empty input: no empty output"
expect 1 "an empty input, --strict" --strict "$TMP/empty.txt" -o "$TMP/e2.folded" &&
	stderr_has "an empty input, --strict: the error" \
		"^trace2flame: $TMP/empty.txt: no samples in the input: the output is empty$"
if [ -e "$TMP/e2.folded" ]; then bad "--strict left an output"; else ok; fi
expect 0 "an empty input, -q" -q "$TMP/empty.txt" -o "$TMP/e.folded"
expect 0 "an empty input merged with one with samples" "$TMP/empty.txt" burner.perf.txt \
	-o "$TMP/e3.folded"
if grep -q 'no samples' "$TMP/err"; then bad "a merged run with samples warned"; else ok; fi

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
printf 'format v6\ntrace pid=10 cpus=4 page-size=4096\nprocess 10 prog\n' >"$TMP/nos.desc"
if "$PY" "$SRC/tools/make-nettrace" -o "$TMP/nos.nettrace" "$TMP/nos.desc" 2>"$TMP/mk.err"; then
	expect 0 "a .nettrace without samples" "$TMP/nos.nettrace" -o "$TMP/nos.json" &&
		stderr_has "a .nettrace without samples: said" \
			"^trace2flame: warning: $TMP/nos.nettrace: no samples in the input"
	expect 1 "a .nettrace without samples, --strict" --strict "$TMP/nos.nettrace" -o "$TMP/nos.json"
else
	bad "make-nettrace failed: $(head -2 "$TMP/mk.err")"
fi

# --- warnings name their input ----------------------------------------------------------------
expect 1 "--each" --each -o "$TMP" multi.perf.txt burner.addrs.perf.txt "$TMP/empty.txt" --strict
stderr_has "--each: the event warning names multi.perf.txt" \
	"^trace2flame: warning: multi\\.perf\\.txt: writing only event 'page-faults'"
stderr_has "--each: unnamed frames of multi.perf.txt" \
	"^trace2flame: warning: multi\\.perf\\.txt: 1 of 1 frame looked up stayed unnamed "
stderr_has "--each: frames without a build-id in burner.addrs.perf.txt" \
	"^trace2flame: warning: burner\\.addrs\\.perf\\.txt: [0-9]+ frames of 2 modules not named: the recording has no build-id"
stderr_has "--each: the empty input" "^trace2flame: $TMP/empty.txt: no samples in the input"
expect 0 "merged" multi.perf.txt burner.addrs.perf.txt -o "$TMP/m.folded"
stderr_has "merged: the event warning" \
	"^trace2flame: warning: multi\\.perf\\.txt and 1 more input: writing only event 'page-faults'"
stderr_has "merged: unnamed frames" \
	"^trace2flame: warning: multi\\.perf\\.txt and 1 more input: [0-9]+ frames of 2 modules not named"
expect 0 "standard input" - -o "$TMP/s.folded" <multi.perf.txt
stderr_has "standard input: named" "^trace2flame: warning: <stdin>: writing only event"

# --- --stats: only what was attempted ---------------------------------------------------------
expect 0 "--stats, named text" --stats burner.perf.txt -o "$TMP/a.folded"
if grep -q 'resymbolized\|not looked up' "$TMP/err"; then
	bad "--stats, named text: $(grep 'resymbolized\|not looked up' "$TMP/err")"
else ok; fi
expect 0 "--stats, addresses without build-ids" --stats burner.addrs.perf.txt -o "$TMP/a.folded"
stderr_has "--stats: frames not looked up" \
	'^frames not looked up \(no build-id known, or no mapping\): 49$'
if grep -q 'resymbolized frames' "$TMP/err"; then
	bad "--stats: a resymbolized line with nothing looked up: $(grep resymbolized "$TMP/err")"
else ok; fi
expect 0 "--stats, a frame looked up" --stats multi.perf.txt -o "$TMP/a.folded"
stderr_has "--stats: frames looked up" '^resymbolized frames: 0 of 1 looked up resolved$'

# --- what --help and the man page say ---------------------------------------------------------
expect 0 "--help" --help
file_has "--help: perf.data among the inputs" "$TMP/out" '^Convert profiler output \(perf\.data files; '
file_has "--help: --ignore-comm" "$TMP/out" '^      --ignore-comm '
file_has "--help: the --each exit rule" "$TMP/out" '^  With --each: the worst status of its inputs'
file_has "man page: every input and output in its first sentence" "$SRC/docs/trace2flame.1" \
	'^and inferno, a speedscope JSON profile, a pprof profile, an interactive SVG flame graph, a$'
file_has "man page: the heat map in its first sentence" "$SRC/docs/trace2flame.1" \
	'^Firefox Profiler profile or a heat map of the samples over time\.$'
file_has "docs/usage.md: --symbol-rules in the option list" "$SRC/docs/usage.md" '^`--symbol-rules perf\|strict`,'
file_has "docs/usage.md: the Firefox Profiler wants --weight samples" "$SRC/docs/usage.md" \
	'^  which reads the numbers as sample counts: write them with `--weight samples`\);$'

# --- speedscope: names, the profile shown first ---------------------------------------------
# a whole-machine recording: the idle task (pid 0) is the heaviest thread, prog is shown first
printf 'swapper     0/0     [000] 1.000000:    5000000 cpu-clock: \n\tffffffff81000010 default_idle+0x0 ([kernel.kallsyms])\n\n' >"$TMP/sys.txt"
printf 'prog    10/11    [001] 1.000001:    1000000 cpu-clock: \n\t400000 main+0x0 (/bin/prog)\n\n' >>"$TMP/sys.txt"
printf 'sh    12/12    [001] 1.000002:    500000 cpu-clock: \n\t400000 main+0x0 (/bin/sh)\n\n' >>"$TMP/sys.txt"
expect 0 "whole machine" -q "$TMP/sys.txt" -o "$TMP/sys.json"
file_has "whole machine: prog, not swapper, shown first" "$TMP/sys.json" '"activeProfileIndex":1,'
file_has "whole machine: swapper written" "$TMP/sys.json" '"name":"swapper \(pid 0, tid 0\)"'
printf 'swapper     0/0     [000] 1.000000:    5000000 cpu-clock: \n\tffffffff81000010 default_idle+0x0 ([kernel.kallsyms])\n\n' >"$TMP/idle.txt"
expect 0 "only the idle task" -q "$TMP/idle.txt" -o "$TMP/idle.json"
file_has "only the idle task: shown" "$TMP/idle.json" '"activeProfileIndex":0,'
# perf script without a pid: "comm (tid T)"
expect 0 "no pid" -q burner.perf.txt -o "$TMP/b.json"
file_has "no pid: the tid alone" "$TMP/b.json" '"name":"burner \(tid 6279\)"'
# the input's name; standard input said so; a merged run names its first input
expect 0 "named input" -q burner.perf.txt -o "$TMP/b.json"
file_has "named input: its name" "$TMP/b.json" '"name":"burner\.perf\.txt","activeProfileIndex"'
expect 0 "standard input, speedscope" -q -f speedscope - -o "$TMP/s.json" <burner.perf.txt
file_has "standard input, speedscope: named" "$TMP/s.json" '"name":"standard input","activeProfileIndex"'
expect 0 "merged, speedscope" -q burner.perf.txt cxxwork.perf.txt -o "$TMP/m.json"
file_has "merged, speedscope: named" "$TMP/m.json" '"name":"burner\.perf\.txt and 1 more input","activeProfileIndex"'
# .nettrace threads named "Thread (TID)": the ids said once
printf 'format v5\ntrace pid=600 cpus=4\nmodule m 0x7f0000100000 /app/Lib.dll\nmethod f m 0x7f0000200000 0x60 Lib.Worker Compute "float64  (float64)"\nsample 600 601 count=3 sampler=599 f+0x10\n' >"$TMP/t.desc"
if "$PY" "$SRC/tools/make-nettrace" -o "$TMP/t.nettrace" "$TMP/t.desc" 2>"$TMP/mk.err"; then
	expect 0 ".nettrace thread names" -q "$TMP/t.nettrace" -o "$TMP/t.json"
	file_has ".nettrace thread names: ids once" "$TMP/t.json" '"name":"Thread \(pid 600, tid 601\)"'
	expect 0 ".nettrace, folded" -q "$TMP/t.nettrace" -o "$TMP/t.folded"
	file_has ".nettrace, folded: the root keeps the tid" "$TMP/t.folded" '^Thread_\(601\);'
else
	bad "make-nettrace failed: $(head -2 "$TMP/mk.err")"
fi

finish
