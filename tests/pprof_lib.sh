# shellcheck shell=sh
# tests/pprof_lib.sh, sourced (POSIX sh) by tests/pprof_validate.sh, tests/nettrace_universal.sh
# and tests/nettrace_corpus.sh: pprof compared with the collapsed writer stack by stack.
#
#   find_pprof ROOT         PPROF: Go pprof as installed by ROOT/tools/setup-validators (the path
#                           ROOT/tests/validate/check --pprof prints), empty when not installed
#                           (lib.sh's find_validators says so, and fails under CI=true)
#   pprof_stacks FILE PFX   reads FILE as Go pprof decodes it (`pprof -raw -symbolize=none`: by
#                           default pprof rewrites names whose system_name equals the name, as
#                           C++ demangled by it, dropping "(...)" and "<...>") and writes, per event
#                           E (1, 2, ...: the pairs of value columns), PFX.E.stacks, and the event
#                           names, one a line, in PFX.events. Prints the number of events.
#   folded_stacks SAMPLES WEIGHT OUT
#                           the same form from two folded files of one event (the sample counts,
#                           the weights)
#   stacks_check PPROF_FILE PFX LABEL FOLD
#                           compares every event of PPROF_FILE with the folded output of the same
#                           input: `FOLD OUT --weight samples|period [--event NAME]` must write it
#                           (--event only when there are several events). Sets STACKS (lines
#                           compared) and MISMATCHES (lines on one side only); on a difference
#                           prints LABEL and the first differing lines, and returns 1.
#
# The stack form: "ROOT;FRAME;...;LEAF<TAB>SAMPLES<TAB>WEIGHT", one line per distinct stack,
# values summed, stacks where both are 0 left out, sorted bytewise. From pprof:
#   - ROOT is the sample's `thread` label as the collapsed writer names the root frame: ' ' and
#     control characters -> '_', ';' -> ':', "[unknown]" when there is no label;
#   - the frames are the samples' locations from the last (root) to the first (leaf), and within
#     a location its lines from the last (the caller) to line[0] (the innermost inlined
#     function), each the function's name (read up to " FILE:LINE s=START", the file empty
#     when the function has none) with what writers/frame_name.c adds for collapsed names: ';' -> ':', a
#     trailing " <digits>" gets '_' ("f 12" -> "f_12"), "" -> "[unknown]";
#   - SAMPLES and WEIGHT are the event's two value columns.
# This equals the folded output written with --raw-names (argument lists kept, as pprof keeps
# them) and without --pid/--tid/--kernel/--jit/--addrs (pprof names carry no such decoration):
# the collapsed writer otherwise applies the same frame_name.c table (control characters -> ' '
# in both). pprof merges nothing across threads; folded lines of threads with the same comm
# merge, so the pprof side is summed per line too. Not mapped: the pprof writer replaces invalid
# UTF-8 with U+FFFD, the folded one keeps the bytes (no input here has any).

find_pprof() {
	PPROF=$("$1/tests/validate/check" --pprof) || PPROF=
}

pprof_stacks() {
	"$PPROF" -raw -symbolize=none "$1" 2>/dev/null | LC_ALL=C awk -v pfx="$2" '
		function frame(n) {
			gsub(/;/, ":", n)
			if (match(n, / [0-9]+$/))
				n = substr(n, 1, RSTART - 1) "_" substr(n, RSTART + 1)
			return n == "" ? "[unknown]" : n
		}
		/^Samples:/ { sect = 1; getline; ncol = NF; for (i = 1; i <= NF; i++) hdr[i] = $i; next }
		/^Locations/ { sect = 2; next }
		/^Mappings/ { sect = 3; next }
		sect == 1 && /^ *-?[0-9]+( +-?[0-9]+)*: / {
			ns++
			p = index($0, ":")
			sv[ns] = substr($0, 1, p - 1)
			sl[ns] = substr($0, p + 1)
			st[ns] = ""
			next
		}
		sect == 1 && /^ +thread:\[/ {
			t = $0
			sub(/^ +thread:\[/, "", t)
			sub(/\]$/, "", t)
			st[ns] = t
			next
		}
		sect == 2 {
			line = $0
			if (match(line, /^ *[0-9]+: 0x[0-9a-f]+ /)) {
				cur = substr(line, 1, RLENGTH)
				sub(/:.*/, "", cur)
				cur += 0
				nl[cur] = 0
				line = substr(line, RLENGTH + 1)
				sub(/^M=[0-9]+ /, "", line)
				sub(/^\[F\] /, "", line)
			} else {
				line = substr(line, 14) # the 13 spaces of an inlined line
			}
			if (line == "") {
				ln[cur, nl[cur]++] = "<location without lines>"
				next
			}
			if (match(line, / [^ ]*:[0-9]+(:[0-9]+)? s=[0-9]+/))
				line = substr(line, 1, RSTART - 1)
			ln[cur, nl[cur]++] = frame(line)
		}
		END {
			ne = int(ncol / 2)
			for (e = 1; e <= ne; e++) {
				name = hdr[2 * e]
				sub(/\[dflt\]$/, "", name)
				sub(/\/[^\/]*$/, "", name)
				print name > (pfx ".events")
			}
			for (s = 1; s <= ns; s++) {
				root = st[s]
				gsub(/[ \001-\037\177]/, "_", root)
				gsub(/;/, ":", root)
				stack = root == "" ? "[unknown]" : root
				k = split(sl[s], ids, " ")
				for (i = k; i >= 1; i--) {
					id = ids[i] + 0
					if (!(id in nl))
						stack = stack ";<missing location " id ">"
					for (j = nl[id] - 1; j >= 0; j--)
						stack = stack ";" ln[id, j]
				}
				split(sv[s], v, " ")
				for (e = 1; e <= ne; e++) {
					c = v[2 * e - 1]; w = v[2 * e]
					if (c == 0 && w == 0)
						continue
					cnt[e, stack] += c
					wt[e, stack] += w
					seen[e, stack] = 1
				}
			}
			for (key in seen) {
				split(key, kk, SUBSEP)
				printf "%s\t%.0f\t%.0f\n", kk[2], cnt[key], wt[key] > (pfx "." kk[1] ".unsorted")
			}
			print ne
		}' >"$2.count" || return 1
	_pl_n=$(cat "$2.count")
	_pl_e=1
	while [ "$_pl_e" -le "$_pl_n" ]; do
		if [ -f "$2.$_pl_e.unsorted" ]; then
			LC_ALL=C sort "$2.$_pl_e.unsorted" >"$2.$_pl_e.stacks"
		else
			: >"$2.$_pl_e.stacks"
		fi
		_pl_e=$((_pl_e + 1))
	done
	echo "$_pl_n"
}

folded_stacks() {
	LC_ALL=C awk '
		{ k = $0; sub(/ [^ ]*$/, "", k); seen[k] = 1 }
		FILENAME == ARGV[1] { c[k] += $NF; next }
		{ w[k] += $NF }
		END {
			for (k in seen)
				if (c[k] != 0 || w[k] != 0)
					printf "%s\t%.0f\t%.0f\n", k, c[k], w[k]
		}' "$1" "$2" | LC_ALL=C sort >"$3"
}

stacks_check() {
	_pl_f=$1 _pl_p=$2 _pl_label=$3 _pl_fold=$4
	STACKS=0 MISMATCHES=0
	if ! _pl_ne=$(pprof_stacks "$_pl_f" "$_pl_p") || [ "$_pl_ne" -lt 1 ]; then
		echo "$_pl_label: no sample types read from $_pl_f by pprof -raw"
		MISMATCHES=1
		return 1
	fi
	_pl_e=1 _pl_rc=0
	while [ "$_pl_e" -le "$_pl_ne" ]; do
		_pl_ev=$(sed -n "${_pl_e}p" "$_pl_p.events")
		if [ "$_pl_ne" -gt 1 ]; then
			set -- --event "$_pl_ev"
		else
			set --
		fi
		if ! "$_pl_fold" "$_pl_p.$_pl_e.samples.folded" --weight samples "$@" ||
			! "$_pl_fold" "$_pl_p.$_pl_e.weight.folded" --weight period "$@"; then
			echo "$_pl_label: event $_pl_ev: folded conversion failed"
			MISMATCHES=$((MISMATCHES + 1))
			_pl_rc=1
			_pl_e=$((_pl_e + 1))
			continue
		fi
		folded_stacks "$_pl_p.$_pl_e.samples.folded" "$_pl_p.$_pl_e.weight.folded" "$_pl_p.$_pl_e.want"
		STACKS=$((STACKS + $(wc -l <"$_pl_p.$_pl_e.want")))
		if ! cmp -s "$_pl_p.$_pl_e.want" "$_pl_p.$_pl_e.stacks"; then
			_pl_m=$(LC_ALL=C comm -3 "$_pl_p.$_pl_e.want" "$_pl_p.$_pl_e.stacks" | wc -l)
			MISMATCHES=$((MISMATCHES + _pl_m))
			echo "$_pl_label: event $_pl_ev: $_pl_m stack lines differ (< folded, > pprof):"
			LC_ALL=C comm -3 "$_pl_p.$_pl_e.want" "$_pl_p.$_pl_e.stacks" | head -n 6 |
				awk '{ print (substr($0, 1, 1) == "\t" ? "    > " substr($0, 2) : "    < " $0) }' |
				cut -c 1-400
			_pl_rc=1
		fi
		_pl_e=$((_pl_e + 1))
	done
	return "$_pl_rc"
}
