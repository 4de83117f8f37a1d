#!/bin/sh
# The perf.data route: `trace2flame X.data -o X.folded` must write the same bytes as
# `perf script --header -i X.data | trace2flame - -o Y.folded` (the header's "# event :" lines
# give the text route the recording's event order, which picks the event written by default),
# on files recorded at test time with perf record -g of fixtures/perf-data/mt.c (two named
# threads, a shared library libmtlib.so; built with frame pointers, leaf functions included).
# fixtures/perf-data/README.md lists them:
#   u      -e cpu-clock:u                      user call chains
#   ex     u of a shell that execs mt          the shell's mappings kept past the exec
#   k      -e cpu-clock                        kernel frames too (named from /proc/kallsyms
#                                              when the recording's kernel is the running one)
#   kx     k with another kernel build-id      kernel frames unresolved (--stats says why),
#                                              then named from perf's ~/.debug kallsyms cache
#   ev     -e cpu-clock:u -e sched:sched_switch  two event columns: each --event, and the
#                                              speedscope output (below)
#   pf     -e cpu-clock:u -e page-faults:u     the first event of the recording's order is
#                                              written (page-faults come first in time), said
#                                              so; perf script --header text picks the same
#   z      -z --buildid-mmap                   zstd-compressed records
#   bm     --buildid-mmap                      build-ids from MMAP2 records (no BUILD_ID feature)
#   here   -z -e cpu-clock                     no build-id at all: converted on the machine that
#                                              recorded it, the files at the recorded paths are
#                                              used as perf uses them (kernel frames from
#                                              /proc/kallsyms), equal to perf script's; after
#                                              the program is touched (newer than the
#                                              recording) its frames are refused, said in --stats
#   nobid  u --buildid-all of mt linked without a build-id: its file used as perf uses it
#   sys    -a                                  system-wide while mt runs: see below
#   trunc  u cut inside the data section       complete records kept, a warning with the offset
#   dwarf  --call-graph dwarf                  user stacks unwound, every sample in --stats
#   pipe   perf record -o -                    refused: pipe mode, said so
#   fork   made by tests/perf_data_gen.py       a process running when perf record started
#                                              (its FORK record marked so) takes none of its
#                                              parent's mappings, one forked later takes them
#   u with --symbol-rules strict               the other rules: the program named the same
# and a perf.data on stdin is refused with a message naming what to do.
# speedscope (k, ev, bm): the route must build the profile the perf script reader builds from
# `perf script -F comm,pid,tid,time,period,event,ip,dso --show-mmap-events` with --resymbolize
# --symbol-rules perf (frames per address, named afterwards): the speedscope outputs of both are
# compared byte for byte (frames per name, as default perf script text gives, can order
# speedscope's frame list differently) and checked by the validator when it is installed.
#
# The route names frames by perf's symbol rules (--symbol-rules perf, its default for perf.data:
# NOTYPE labels such as ld.so's _dl_start_user, sizeless symbols reaching the next one, the alias
# perf picks at one address such as cfree@GLIBC_2.2.5 (written cfree, without its version), PLT
# stubs as perf 6.1 numbers them, and lookups walking a tree of perf's shape, which decides where
# ranges overlap: a sizeless `_init` reaching over .plt), so every case compares whole outputs
# byte for byte, sys (system-wide) included.
# `--buildid-all` (not for bm, z): perf writes build-ids only of the DSOs a sample's ip hit,
# and uses a library seen only in call chains (libc's start_thread) from its path unverified;
# trace2flame refuses to name frames from a file it cannot verify by build-id (docs/design.md §5).
# `-z` goes with `--buildid-mmap`: perf record -z writes no BUILD_ID feature (perf then uses
# the files at the recorded paths unverified); MMAP2 records then carry the build-ids.
# Skipped (with a message) when perf is missing or may not record.
#
# usage: sh tests/perf_data_route.sh TRACE2FLAME [1|2|3]   (a part of the cases; default all)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 2 "$@"
PART=${2:-all}
# part N: this run does the cases of part N (1: u ex k kx trunc stdin; 2: ev pf z bm here
# nobid; 3: sys dwarf pipe)
part() { [ "$PART" = all ] || [ "$PART" = "$1" ]; }

need_perf_record
CC=${CC:-cc}
find_validators "the speedscope output is not validated" speedscope
FP="-O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
# shellcheck disable=SC2086 # FP: several options
if ! $CC $FP -shared -fPIC -o "$TMP/libmtlib.so" "$SRC/fixtures/perf-data/mtlib.c" ||
	! $CC $FP -o "$TMP/mt" "$SRC/fixtures/perf-data/mt.c" -L"$TMP" -lmtlib \
		-Wl,-rpath,"$TMP" -pthread; then
	bad "cannot build fixtures/perf-data/mt.c and mtlib.c"
	finish
fi

# rec NAME PERF-RECORD-ARGS...: $TMP/NAME.data of mt running 250 ms ($MT_MODE: its 2nd argument)
rec() {
	_n=$1
	shift
	if perf record -q "$@" -o "$TMP/$_n.data" -- "$TMP/mt" 250 ${MT_MODE:-} >"$TMP/$_n.rec" 2>&1; then
		return 0
	fi
	bad "$_n: perf record $* failed: $(head -3 "$TMP/$_n.rec")"
	return 1
}

# both NAME OUT-EXT [TRACE2FLAME-ARGS...]: $TMP/NAME.r.EXT from the file, $TMP/NAME.s.EXT
# through perf script; both must succeed
both() {
	_n=$1 _x=$2
	shift 2
	if ! t2f --no-inline "$TMP/$_n.data" -o "$TMP/$_n.r.$_x" "$@" 2>"$TMP/$_n.rerr"; then
		bad "$_n: trace2flame $_n.data $*: $(head -3 "$TMP/$_n.rerr")"
		return 1
	fi
	[ -s "$TMP/$_n.txt" ] || perf script --header -i "$TMP/$_n.data" 2>/dev/null >"$TMP/$_n.txt"
	if ! t2f --no-inline - -o "$TMP/$_n.s.$_x" "$@" <"$TMP/$_n.txt" 2>"$TMP/$_n.serr"; then
		bad "$_n: perf script | trace2flame - $*: $(head -3 "$TMP/$_n.serr")"
		return 1
	fi
}

# same NAME WHAT A B: A and B are the same bytes, and A is not empty
same() { same_nonempty "$@" "< perf.data route, > perf script route"; }

# folded NAME [TRACE2FLAME-ARGS...]: the two routes' folded outputs are equal
folded() {
	_f=$1
	shift
	both "$_f" folded "$@" || return 0
	same "$_f" "folded $*" "$TMP/$_f.r.folded" "$TMP/$_f.s.folded"
}

# vdso NAME: main's spin names the vdso's function (from perf's ~/.debug/[vdso] copy, found by
# the build-id of the BUILD_ID feature; --buildid-mmap and -z record none for the vdso, and
# perf then uses its own process's vdso unverified: those recordings run mt without "vdso")
vdso() {
	if grep -q '^mt;.*run_threads;.*__vdso_clock_gettime' "$TMP/$1.r.folded"; then ok; else
		bad "$1: no stack of mt's main thread reaches __vdso_clock_gettime"; fi
}

# deep NAME: some stack reaches mtlib_inner under mtlib_work under a step of worker
deep() {
	if grep -q 'worker;step_[ab];mtlib_work;mtlib_inner' "$TMP/$1.r.folded"; then ok; else
		bad "$1: no stack reaches worker;step_X;mtlib_work;mtlib_inner"; fi
}

# lines NAME: pprof from the file and from `perf script --show-mmap-events` text carries the
# addresses and mappings Go pprof needs to find source lines in mt's binaries (-symbolize=local:
# force -lines names mtlib.c:LINE); skipped without Go pprof (tools/setup-validators)
lines() {
	. "$SRC/tests/pprof_lib.sh"
	find_pprof "$SRC"
	[ -n "$PPROF" ] || return 0
	perf script -i "$TMP/$1.data" --show-mmap-events 2>/dev/null >"$TMP/$1.mm.txt"
	for _in in "$TMP/$1.data" "$TMP/$1.mm.txt"; do
		if t2f "$_in" -o "$TMP/$1.lines.pb.gz" 2>/dev/null &&
			"$PPROF" -symbolize=local:force -lines -top "$TMP/$1.lines.pb.gz" 2>/dev/null |
			grep -q 'mtlib_inner .*mtlib\.c:[0-9]'; then
			ok
		else
			bad "$1: pprof -lines finds no line of mtlib_inner in the pprof of $_in"
		fi
	done
}

# speedscope NAME ARGS...: the route's speedscope output against the perf script reader's on
# `perf script -F comm,pid,tid,time,period,event,ip,dso --show-mmap-events` re-symbolized
# (the profile the route must build: frames per address, named afterwards; speedscope orders
# its frames by first use, which frames per name would change), build-ids from perf
# buildid-list, kernel names from /proc/kallsyms for both; each input in a directory of its
# own, so both have the same name
speedscope() {
	_n=$1
	shift
	mkdir -p "$TMP/ss.$_n" "$TMP/sr.$_n"
	cp "$TMP/$_n.data" "$TMP/sr.$_n/$_n.data"
	perf script -i "$TMP/$_n.data" -F comm,pid,tid,time,period,event,ip,dso --show-mmap-events \
		2>/dev/null >"$TMP/ss.$_n/$_n.data"
	perf buildid-list -i "$TMP/$_n.data" >"$TMP/ss.$_n/ids" 2>/dev/null
	# (without inline frames: with them the order of the frame list can differ between the
	# routes; tests/dwarf/recorded.sh compares their folded outputs with inline frames)
	if (cd "$TMP/sr.$_n" && t2f --no-inline "$_n.data" -o out.speedscope.json \
		--kallsyms /proc/kallsyms "$@" 2>err) &&
		(cd "$TMP/ss.$_n" && t2f --no-inline --resymbolize --symbol-rules perf --buildids ids \
			--kallsyms /proc/kallsyms "$_n.data" -o out.speedscope.json "$@" 2>err); then
		same "$_n" "speedscope $*" "$TMP/sr.$_n/out.speedscope.json" \
			"$TMP/ss.$_n/out.speedscope.json"
	else
		bad "$_n: speedscope $*: $(cat "$TMP/sr.$_n/err" "$TMP/ss.$_n/err" | head -3)"
	fi
	if [ "$VALIDATE" = 1 ]; then
		if "$CHECK" speedscope "$TMP/sr.$_n/out.speedscope.json" >"$TMP/check" 2>&1; then ok
		else
			bad "$_n: the speedscope validator refused the output:"
			head -5 "$TMP/check"
		fi
	fi
}

U="--buildid-all"
MT_MODE=vdso
# shellcheck disable=SC2086 # U: several options
if part 1 && rec u $U -e cpu-clock:u -g; then
	folded u
	deep u
	vdso u
	lines u
	# no kernel frame (the [vdso] ones are named from perf's copy of it): the kallsyms file
	# picked for the recording is never read
	if t2f "$TMP/u.data" -o "$TMP/u2.folded" --stats 2>"$TMP/u.stats" &&
		grep -q '^    kernel frames (distinct addresses): [0-9]*, named from /proc/kallsyms$' \
			"$TMP/u.stats" && ! grep -q '^  kallsyms: ' "$TMP/u.stats"; then
		ok
	else
		bad "u: kallsyms read for a recording without kernel frames: $(grep -e kallsyms \
			-e 'kernel frames' "$TMP/u.stats")"
	fi
fi
MT_MODE=

# ex: mt run by a shell that counts a while, then execs it: the shell's samples, then mt's, in
# one process. The reader keeps the shell's mappings past the exec (mt's overlay them); the
# routes must agree on every frame of both programs.
# shellcheck disable=SC2086
if part 1 && perf record -q $U -e cpu-clock:u -g -o "$TMP/ex.data" -- \
	sh -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i + 1)); done; exec '$TMP/mt' 250" \
	>"$TMP/ex.rec" 2>&1; then
	folded ex
	deep ex
	if grep -q '^sh;' "$TMP/ex.r.folded"; then ok; else
		bad "ex: no stack of the shell before its exec"; fi
fi

# shellcheck disable=SC2086
if part 1 && rec k $U -e cpu-clock -g; then
	folded k
	deep k
	speedscope k
	t2f "$TMP/k.data" -o "$TMP/k2.folded" --stats --no-cache 2>"$TMP/k.stats"
	if grep -q '^    kernel frames (distinct addresses): [1-9][0-9]*, named from ' "$TMP/k.stats" ||
		grep -q '^    kernel frames (distinct addresses) unresolved: ' "$TMP/k.stats"; then
		ok
	else
		bad "k: --stats has no kernel frames line: $(grep -A6 perf.data "$TMP/k.stats")"
	fi
	# kernel frames named: the file was read for them, once (the symbol cache, which keeps
	# the table for later runs, left out)
	if ! grep -q '^    kernel frames (distinct addresses): [1-9][0-9]*, named from ' \
		"$TMP/k.stats" || grep -q '^  kallsyms: 1 read, 0 shared ' "$TMP/k.stats"; then
		ok
	else
		bad "k: kernel frames named, but kallsyms not read once: $(grep kallsyms "$TMP/k.stats")"
	fi
fi

# kx: k with another kernel build-id in its BUILD_ID feature (one byte changed): kernel frames
# are not named from /proc/kallsyms then, and --stats says why; a kallsyms file in perf's cache
# under that build-id (HOME) names them again, as for k (perf's vdso copies join that cache)
DUMP=$(dirname "$T2F_BIN")/t2f-perf-data-dump
if part 1 && [ -s "$TMP/k.r.folded" ] && grep -q '^mt-worker-.*;entry_SYSCALL_64' "$TMP/k.r.folded"; then
	cp "$TMP/k.data" "$TMP/kx.data"
	_at=$(grep -obUa '\[kernel\.kallsyms\]' "$TMP/kx.data" | tail -1 | cut -d: -f1)
	_at=$((_at - 24))            # build_id_event: header, pid, build_id[24], filename
	_b=$(od -An -tu1 -j "$_at" -N1 "$TMP/kx.data" | tr -d ' ')
	printf '%b' "\\0$(printf '%03o' $(((_b + 1) % 256)))" |
		dd of="$TMP/kx.data" bs=1 seek="$_at" conv=notrunc 2>/dev/null
	_old=$("$DUMP" "$TMP/k.data" | awk '$1 == "build-id" && $7 == "[kernel.kallsyms]" { print $6 }')
	_new=$("$DUMP" "$TMP/kx.data" | awk '$1 == "build-id" && $7 == "[kernel.kallsyms]" { print $6 }')
	mkdir -p "$TMP/home"
	if [ -n "$_new" ] && [ "$_new" != "$_old" ]; then ok; else
		bad "kx: the kernel build-id was not changed ($_old, $_new)"; fi
	HOME=$TMP/home t2f "$TMP/kx.data" -o "$TMP/kx.folded" --stats 2>"$TMP/kx.err"
	grep -q "^    kernel frames (distinct addresses) unresolved: [1-9][0-9]* (no kallsyms matching the recording's kernel build-id" \
		"$TMP/kx.err" && ok || bad "kx: no unresolved kernel frames line: $(grep kernel "$TMP/kx.err")"
	grep -q 'entry_SYSCALL_64' "$TMP/kx.folded" && bad "kx: kernel frames named anyway" || ok
	mkdir -p "$TMP/home/.debug/[kernel.kallsyms]/$_new"
	cp /proc/kallsyms "$TMP/home/.debug/[kernel.kallsyms]/$_new/kallsyms"
	# (a sample of k in the vdso is named from perf's copy of it in the real HOME's cache)
	[ -d "${HOME:-/nonexistent}/.debug/[vdso]" ] && cp -r "$HOME/.debug/[vdso]" "$TMP/home/.debug/"
	HOME=$TMP/home t2f --no-inline "$TMP/kx.data" -o "$TMP/kx2.folded" --stats 2>"$TMP/kx2.err"
	grep -q "^    kernel frames (distinct addresses): [1-9][0-9]*, named from $TMP/home/.debug/" \
		"$TMP/kx2.err" && ok || bad "kx: perf's cached kallsyms not used: $(grep kernel "$TMP/kx2.err")"
	same kx "folded through the cached kallsyms" "$TMP/kx2.folded" "$TMP/k.r.folded"
fi

# shellcheck disable=SC2086
if ! part 2; then
	:
elif perf record -q $U -e cpu-clock:u -e sched:sched_switch -g -o "$TMP/ev.data" -- \
	"$TMP/mt" 300 >"$TMP/ev.rec" 2>&1; then
	folded ev
	folded ev --event cpu-clock
	folded ev --event sched:sched_switch
	grep -q '^mt-worker-[12];.*;__schedule ' "$TMP/ev.r.folded" && ok ||
		bad "ev: no sched:sched_switch stack of mt's threads ends in __schedule"
	speedscope ev --event cpu-clock
else
	echo "$TEST_NAME: the tracepoint sched:sched_switch cannot be recorded here: skipping ev"
	sed 's/^/  /' "$TMP/ev.rec" | head -3
fi

# pf: cpu-clock:u, listed first, is written though page-faults:u samples come first in time
if part 2 && rec pf --buildid-all -e cpu-clock:u -e page-faults:u -g; then
	folded pf --event page-faults:u
	t2f --no-inline "$TMP/pf.data" -o "$TMP/pf.d.folded" 2>"$TMP/pf.err"
	grep -q "^trace2flame: warning: $TMP/pf.data: writing only event 'cpu-clock' ([0-9]* samples\{0,1\}); the input also has: page-faults ([0-9]* samples\{0,1\}); choose one with --event NAME\$" \
		"$TMP/pf.err" && ok || bad "pf: the event chosen and the other not said: $(cat "$TMP/pf.err")"
	t2f --no-inline "$TMP/pf.data" -o "$TMP/pf.c.folded" --event cpu-clock:u 2>/dev/null
	same pf "the default event is cpu-clock:u" "$TMP/pf.d.folded" "$TMP/pf.c.folded"
	perf script --header -i "$TMP/pf.data" 2>/dev/null | t2f --no-inline - -o "$TMP/pf.h.folded" 2>/dev/null
	same pf "perf script --header text: cpu-clock:u" "$TMP/pf.d.folded" "$TMP/pf.h.folded"
fi

# shellcheck disable=SC2086
if part 2 && rec z --buildid-mmap -z -e cpu-clock:u -g; then
	folded z
	deep z
fi

if part 2 && rec bm --buildid-mmap -e cpu-clock:u -g; then
	folded bm
	deep bm
	# (the worker threads only: --buildid-mmap records no build-id for the vdso, where main's
	# clock_gettime may take a sample; the file route names it from this machine's vdso, as it
	# was recorded here, and the text, which cannot say where it was recorded, leaves it unnamed)
	speedscope bm --comms mt-worker-1,mt-worker-2
fi

# here: no build-id recorded (-z writes no BUILD_ID feature), converted where it was recorded
if part 2 && rec here -z -e cpu-clock -g; then
	folded here
	deep here
	if grep -q '^mt;\[mt\]\|\[libmtlib.so\]\|\[\[kernel' "$TMP/here.r.folded"; then
		bad "here: unnamed frames of mt, libmtlib.so or the kernel"
	else
		ok
	fi
	touch -d "@$(($(stat -c %Y "$TMP/here.data") + 2))" "$TMP/mt"
	if t2f --stats "$TMP/here.data" -o "$TMP/here.t.folded" 2>"$TMP/here.terr" &&
		grep -q "$TMP/mt: 0 resolved.*the file changed after the recording" "$TMP/here.terr" &&
		grep -q "libmtlib.so: [1-9].*matched by path without a build-id" "$TMP/here.terr"; then
		ok
	else
		bad "here: after touching mt, its frames are not refused as changed (or the library's no longer named):"
		grep 'resolved' "$TMP/here.terr" | head -5
	fi
fi

# nobid: --buildid-all, but mt linked without a build-id (as a Go binary, which carries only
# its own note), converted where it was recorded: mt's file is used as perf uses it
if part 2 && $CC $FP -Wl,--build-id=none -o "$TMP/mt-nobid" "$SRC/fixtures/perf-data/mt.c" \
	-L"$TMP" -lmtlib -Wl,-rpath,"$TMP" -pthread &&
	perf record -q --buildid-all -e cpu-clock:u -g -o "$TMP/nobid.data" -- "$TMP/mt-nobid" 250 \
		>"$TMP/nobid.rec" 2>&1; then
	folded nobid
	if grep -q '\[mt-nobid\]' "$TMP/nobid.r.folded" ||
		! grep -q '^mt-worker-[12];.*worker;step_[ab];' "$TMP/nobid.r.folded"; then
		bad "nobid: mt's frames are not named without a build-id in the file"
	else
		ok
	fi
elif part 2; then
	bad "nobid: cannot build mt without a build-id or record it: $(head -3 "$TMP/nobid.rec" 2>/dev/null)"
fi

# sys: every thread on the machine for as long as mt runs
# (the machine's other processes include the suite's own tests, whose binaries come and go: a
# file removed between the two conversions names its frames in one and not the other, so a
# difference is looked at again once, both routes converted anew back to back)
if ! part 3; then
	:
elif perf record -q -a -g --buildid-all -e cpu-clock -o "$TMP/sys.data" -- "$TMP/mt" 300 >"$TMP/sys.rec" 2>&1; then
	both sys folded && if ! cmp -s "$TMP/sys.r.folded" "$TMP/sys.s.folded"; then
		rm -f "$TMP/sys.txt"
		echo "$TEST_NAME: sys: the routes differed once; converting both again"
	fi
	folded sys
else
	bad "sys: perf record -a failed: $(head -3 "$TMP/sys.rec")"
fi

# trunc: u cut inside its data section (header fields from the dump of the whole file)
if part 1 && [ -s "$TMP/u.data" ]; then
	"$DUMP" "$TMP/u.data" >"$TMP/u.dump" 2>/dev/null
	_off=$(awk '$1 == "header" { split($11, a, "+"); print a[1], a[2] }' "$TMP/u.dump")
	_start=$(printf '%d' "${_off% *}")
	_size=$(printf '%d' "${_off#* }")
	_cut=$((_start + _size / 2 + 3))
	head -c "$_cut" "$TMP/u.data" >"$TMP/trunc.data"
	# the complete SAMPLE records before the cut
	_want=$(awk -v cut="$_cut" '
		function hex(s,  v, i) { v = 0; s = tolower(substr(s, 3))
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$1 == "record" && $3 == "SAMPLE" && hex($2) + $5 <= cut { n++ }
		END { print n + 0 }' "$TMP/u.dump")
	if t2f "$TMP/trunc.data" -o "$TMP/trunc.folded" --stats 2>"$TMP/trunc.err"; then ok; else
		bad "trunc: exit status $? (want 0, a warning)"; fi
	grep -q "trunc.data: offset [0-9]*: truncated: a record of" "$TMP/trunc.err" && ok ||
		bad "trunc: no warning naming the offset of the cut record: $(head -3 "$TMP/trunc.err")"
	_got=$(awk '/^  samples: / { print $2 }' "$TMP/trunc.err")
	[ "$_got" = "$_want" ] && [ "$_want" -gt 0 ] && ok ||
		bad "trunc: $_got samples read, want the $_want complete ones before byte $_cut"
fi

# dwarf: user stacks unwound from each sample's registers and stack copy (tests/unwind/recorded.sh
# compares them with perf's sample for sample): every sample accounted for in --stats, the
# stacks go through mt's worker threads or main, and no warning says user frames were left out
if part 3 && rec dwarf --buildid-all --call-graph dwarf,4096 -e cpu-clock:u; then
	_n=$(perf script -i "$TMP/dwarf.data" -F event 2>/dev/null | grep -c 'cpu-clock')
	t2f "$TMP/dwarf.data" -o "$TMP/dwarf.folded" --stats 2>"$TMP/dwarf.err"
	grep -q "^    --call-graph dwarf samples: $_n; user stacks unwound: $_n " "$TMP/dwarf.err" &&
		[ "$_n" -gt 0 ] && ok ||
		bad "dwarf: want $_n samples unwound: $(grep -A3 'call-graph dwarf' "$TMP/dwarf.err")"
	# (of the stacks holding a function of mt's own: the dynamic loader's start and a thread's
	# end after worker returned go through neither, and their CPU time is fixed while mt's own
	# is a share of its 250 ms, so on a busy machine they weigh 5-9% of all)
	_main=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); n = split(s, f, ";"); own = 0
		for (k = 2; k <= n; k++)
			if (f[k] ~ /^(main|run_threads|worker|step_[ab]|ms_now|mtlib_work|mtlib_inner)$/)
				own = 1
		if (own) { all += $NF; if (s ~ /;(main|worker)(;|$)/) n_in += $NF } }
		END { print n_in + 0, all + 0 }' "$TMP/dwarf.folded")
	_all=${_main#* } _main=${_main% *}
	[ "$_all" -gt 0 ] && [ $((_main * 100)) -ge $((_all * 95)) ] && ok ||
		bad "dwarf: $_main of $_all weight of mt's own functions goes through worker or main"
	! grep -q "not unwound" "$TMP/dwarf.err" && ok || bad "dwarf: $(grep 'not unwound' "$TMP/dwarf.err")"
fi

# --symbol-rules strict: the rules of other inputs; mt's own frames are named the same, the total
# weight is the same; an unknown value is a usage error
if part 1 && [ -s "$TMP/u.data" ]; then
	if t2f "$TMP/u.data" -o "$TMP/u.strict.folded" --symbol-rules strict 2>"$TMP/u.strict.err" &&
		grep -q 'worker;step_[ab];mtlib_work;mtlib_inner' "$TMP/u.strict.folded" &&
		[ "$(awk '{ s += $NF } END { print s }' "$TMP/u.strict.folded")" = \
			"$(awk '{ s += $NF } END { print s }' "$TMP/u.r.folded")" ]; then
		ok
	else
		bad "u: --symbol-rules strict: $(head -3 "$TMP/u.strict.err")"
	fi
	t2f "$TMP/u.data" -o "$TMP/u.bad.folded" --symbol-rules nope 2>/dev/null
	_rc=$?
	[ "$_rc" = 2 ] && ok || bad "u: --symbol-rules nope: exit $_rc, want 2"
fi

# fork: pid 100 maps /nonexistent/libfx.so; 200's FORK is one perf record writes for a process
# running when it starts (misc PERF_RECORD_MISC_FORK_EXEC: its own mappings follow, and perf
# copies none of its parent's), 300's one the kernel writes (the parent's mappings copied); a
# sample of each at the same address: 200's is unnamed, as perf script leaves it
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if part 1 && "$PY" -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
ip = 0x7f0000001010
open(sys.argv[2], "wb").write(g.perf_data(b"prog", b"cpu-clock",
    [(b"/nonexistent/libfx.so", 0x7f0000000000, 5)],
    [(5, [ip]), (6, [ip], (), 200), (7, [ip], (), 300)], config=1,
    forks=((200, 3, True), (300, 4, False))))' "$SRC/tests" "$TMP/fork.data"; then
	folded fork
	[ "$(cat "$TMP/fork.r.folded")" = "prog;[libfx.so] 2000
prog;[unknown] 1000" ] && ok || bad "fork: $(cat "$TMP/fork.r.folded")"
elif part 1; then
	bad "fork: tests/perf_data_gen.py failed"
fi

# pipe mode: refused, and the message says so
if part 3 && perf record -q -e cpu-clock:u -o - -- "$TMP/mt" 50 >"$TMP/pipe.data" 2>/dev/null; then
	t2f "$TMP/pipe.data" -o "$TMP/pipe.folded" 2>"$TMP/pipe.err"
	_rc=$?
	[ "$_rc" = 1 ] && grep -q 'pipe-mode perf.data .* is not supported' "$TMP/pipe.err" && ok ||
		bad "pipe: exit $_rc, want 1 and a pipe-mode message: $(head -2 "$TMP/pipe.err")"
fi

# stdin: refused with what to do instead
if part 1 && [ -s "$TMP/u.data" ]; then
	t2f - -o "$TMP/stdin.folded" <"$TMP/u.data" 2>"$TMP/stdin.err"
	_rc=$?
	[ "$_rc" = 1 ] && grep -q '<stdin>: perf.data is read from a named, uncompressed file only' \
		"$TMP/stdin.err" && ok ||
		bad "stdin: exit $_rc, want 1 and the message: $(head -2 "$TMP/stdin.err")"
	[ ! -e "$TMP/stdin.folded" ] && ok || bad "stdin: an output was written"
fi
finish
