#!/bin/sh
# tests/fuzz/replay-pprof.sh: the pprof fuzz target's corpus replay (fuzz/replay-pprof), on seeds
# made here rather than committed: the profiles tests/pprof_gen.py writes (well-formed and
# hostile, raw protobuf; not its 1 GiB bomb) and trace2flame's pprof of the fixtures (perf
# script text, folded stacks, the shipped .nettrace traces), decompressed, as the reader sees
# them; with `-o DIR` the seeds are kept in DIR (a libFuzzer corpus: tests/fuzz/README.md).
# usage: sh tests/fuzz/replay-pprof.sh REPLAY TRACE2FLAME [-o DIR]
set -u
replay=$1 t2f=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t2f-replay-pprof.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=$tmp/seeds
[ $# -ge 4 ] && [ "$3" = -o ] && out=$4
mkdir -p "$out" "$tmp/gen"
python3 "$here/tests/pprof_gen.py" --small "$tmp/gen" >/dev/null || exit 1
cp "$tmp"/gen/*.pb "$out/" || exit 1
fx=$here/fixtures
min=15
if [ ! -x "$t2f" ]; then # the clang build's fuzz-replays target builds no trace2flame
	echo "replay-pprof: $t2f not built: the generated seeds only"
	min=10
	set --
else
	set -- x
fi
[ $# -eq 1 ] && for src in "$fx"/perf-script/burner.perf.txt "$fx"/perf-script/burner.srcline.perf.txt \
	"$fx"/perf-script/multi.perf.txt "$fx"/perf-script/counts.folded.txt \
	"$fx"/nettrace/mixed_managed_external_samples.nettrace "$fx"/nettrace/universal.nettrace; do
	b=$(basename "$src")
	"$t2f" -q -o "$tmp/$b.pb.gz" "$src" 2>/dev/null || { echo "replay-pprof: $b failed"; exit 1; }
	gzip -dc "$tmp/$b.pb.gz" >"$out/t2f-$b.pb" || exit 1
done
n=$(ls "$out" | wc -l)
[ "$n" -ge "$min" ] || { echo "replay-pprof: only $n seeds"; exit 1; }
exec "$replay" "$out"
